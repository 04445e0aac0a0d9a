// Dice verification of a replay (proto/README.md §10), as verify-replay and the
// engine's replay::verify do it: the revealed seed against the published commitment
// (SHA-256), the dice key (scheme `contributed`: HKDF-SHA256 of the seed and the four
// recorded contributions; `server_seed`: the seed itself), and every turn's dice
// re-rolled from that key with ChaCha20.
//
// The primitives are @noble/hashes (sha256, hkdf) and @noble/ciphers (chacha20):
// audited pure-JavaScript libraries, so this runs the same in browsers, Node >= 20
// and React Native (no Web Crypto, which has no ChaCha20 anyway).
import { chacha20 } from '../vendor/noble-ciphers/chacha.js';
import { hkdf } from '../vendor/noble-hashes/hkdf.js';
import { sha256 } from '../vendor/noble-hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '../vendor/noble-hashes/utils.js';
/** The seats in seat order (rule 1.1): the order of the contributions. */
const SEATS = ['green', 'red', 'blue', 'yellow'];
/** The HKDF `info` prefix of scheme `contributed` (domain separation and version). */
export const DICE_INFO_PREFIX = 'ludo dice v2';
/** The largest key-stream word that gives a die (6 · 715827882 − 1); larger ones are skipped. */
export const LARGEST_DIE_WORD = 4294967291;
/** A contribution holds no bytes (the default) or 16 to 64 (proto/README.md §10). */
const MIN_ENTROPY_BYTES = 16;
const MAX_ENTROPY_BYTES = 64;
/** Key-stream blocks (64 bytes each) computed per ChaCha20 call. */
const CHUNK_BLOCKS = 16;
/** The die of one key-stream word: `1 + x mod 6`, or null for a skipped word (x > LARGEST_DIE_WORD). */
export function dieFromWord(x) {
    return x <= LARGEST_DIE_WORD ? 1 + (x % 6) : null;
}
/**
 * The ChaCha20 key stream of a 32-byte key as little-endian u32 words, from block 0.
 *
 * The engine's generator is rand_chacha's ChaCha20Rng: 20 rounds, a 64-bit block
 * counter in state words 12–13 from 0, nonce (stream) 0 in words 14–15. noble's
 * `chacha20` is RFC 8439's layout: a 32-bit counter in word 12 and a 12-byte nonce in
 * words 13–15. With the nonce all zero, the two states are the same for every block
 * below 2^32 (word 13, the counter's high half, is 0) — 256 GiB of key stream, far
 * more than a match rolls; noble refuses (throws) rather than wrap past it.
 */
export function* keyStream(key) {
    if (key.length !== 32)
        throw new Error(`a dice key is 32 bytes, got ${key.length}`);
    const nonce = new Uint8Array(12);
    const zeros = new Uint8Array(64 * CHUNK_BLOCKS);
    for (let block = 0;; block += CHUNK_BLOCKS) {
        const bytes = chacha20(key, nonce, zeros, undefined, block);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        for (let at = 0; at < bytes.length; at += 4)
            yield view.getUint32(at, true);
    }
}
/** The dice of a 32-byte key: each die is the next key-stream word x ≤ LARGEST_DIE_WORD, 1 + x mod 6. */
export function* rollDice(key) {
    for (const x of keyStream(key)) {
        const die = dieFromWord(x);
        if (die !== null)
            yield die;
    }
}
/** `dice_commitment` of a seed: SHA-256 of its 32 bytes, lowercase hex. */
export function diceCommitment(seed) {
    return bytesToHex(sha256(seed));
}
/** The contributions are not the four seats in seat order with 0 or 16..=64 bytes each (a default: none). */
export class BadContributions extends Error {
    constructor(message) {
        super(message);
        this.name = 'BadContributions';
    }
}
/**
 * The dice key of scheme `contributed`:
 *
 * ```text
 * info = "ludo dice v2" ‖ for seat in green, red, blue, yellow: len(e) as one byte ‖ e
 * key  = HKDF-SHA256(salt = 32 zero bytes, ikm = seed, info, 32 bytes)
 * ```
 *
 * Throws {@link BadContributions} unless `contributions` are the four seats in seat
 * order, each with 16 to 64 bytes of entropy (hex) or the default (none).
 */
export function contributedKey(seed, contributions) {
    if (contributions.length !== SEATS.length) {
        throw new BadContributions(`${contributions.length} contributions, not one per seat (4)`);
    }
    const parts = [utf8ToBytes(DICE_INFO_PREFIX)];
    contributions.forEach((c, i) => {
        if (c.seat !== SEATS[i])
            throw new BadContributions(`contribution ${i + 1} is ${c.seat}'s, not ${SEATS[i]}'s`);
        let e;
        try {
            e = hexToBytes(c.entropy);
        }
        catch {
            throw new BadContributions(`${c.seat}: entropy is not hex`);
        }
        const sized = e.length === 0 || (e.length >= MIN_ENTROPY_BYTES && e.length <= MAX_ENTROPY_BYTES);
        if (!sized)
            throw new BadContributions(`${c.seat}: ${e.length} bytes of entropy (0 or 16 to 64)`);
        if (c.defaulted && e.length)
            throw new BadContributions(`${c.seat}: a default has no bytes`);
        parts.push(Uint8Array.of(e.length), e);
    });
    const info = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (info.set(p, at), at + p.length), 0);
    return hkdf(sha256, seed, new Uint8Array(32), info, 32);
}
/**
 * Verifies a replay's dice (proto/README.md §10): the seed against `dice_commitment`,
 * the dice key of its `dice_scheme` (`server_seed` when absent) and the recorded
 * contributions, and every turn's dice, in order, against the key stream. Resolves to
 * a {@link DiceCheck}; never rejects for a malformed replay (that is a `bad` check).
 */
export async function verifyDice(replay) {
    return checkDice(replay);
}
/** {@link verifyDice}, synchronously. */
export function checkDice(replay) {
    if (!replay.seed)
        return { state: 'hidden' };
    const scheme = replay.dice_scheme ?? 'server_seed';
    const cs = replay.contributions ?? [];
    const out = {
        scheme,
        turns: replay.turns.length,
        players: cs.filter((c) => !c.defaulted).length,
        defaults: cs.filter((c) => c.defaulted).length,
    };
    const bad = (why, turn) => turn === undefined ? { ...out, state: 'bad', why } : { ...out, state: 'bad', why, turn };
    let seed;
    try {
        seed = hexToBytes(replay.seed);
    }
    catch {
        return bad('commitment');
    }
    if (seed.length !== 32 || diceCommitment(seed) !== replay.dice_commitment.toLowerCase())
        return bad('commitment');
    let key = seed;
    if (scheme === 'contributed') {
        if (replay.contributions != null) {
            try {
                key = contributedKey(seed, replay.contributions);
            }
            catch (e) {
                if (e instanceof BadContributions)
                    return bad('contributions');
                throw e;
            }
        }
        else if (replay.turns.length) {
            return bad('contributions');
        }
    }
    else if (replay.contributions != null) {
        return bad('contributions');
    }
    const roll = rollDice(key);
    const perTurn = replay.rules?.dice_per_turn;
    for (const t of replay.turns) {
        if (perTurn !== undefined && t.dice.length !== perTurn)
            return bad('turn', t.turn_number);
        for (const d of t.dice)
            if (d !== roll.next().value)
                return bad('turn', t.turn_number);
    }
    return { ...out, state: 'ok' };
}
