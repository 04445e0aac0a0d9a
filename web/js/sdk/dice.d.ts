import type { Contribution, Replay, TurnRecord } from './generated/replay.js';
/** The HKDF `info` prefix of scheme `contributed` (domain separation and version). */
export declare const DICE_INFO_PREFIX = "ludo dice v2";
/** The largest key-stream word that gives a die (6 · 715827882 − 1); larger ones are skipped. */
export declare const LARGEST_DIE_WORD = 4294967291;
/** The die of one key-stream word: `1 + x mod 6`, or null for a skipped word (x > LARGEST_DIE_WORD). */
export declare function dieFromWord(x: number): number | null;
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
export declare function keyStream(key: Uint8Array): Generator<number, never, unknown>;
/** The dice of a 32-byte key: each die is the next key-stream word x ≤ LARGEST_DIE_WORD, 1 + x mod 6. */
export declare function rollDice(key: Uint8Array): Generator<number, void, unknown>;
/** `dice_commitment` of a seed: SHA-256 of its 32 bytes, lowercase hex. */
export declare function diceCommitment(seed: Uint8Array): string;
/** The contributions are not the four seats in seat order with 0 or 16..=64 bytes each (a default: none). */
export declare class BadContributions extends Error {
    constructor(message: string);
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
export declare function contributedKey(seed: Uint8Array, contributions: readonly Pick<Contribution, 'seat' | 'entropy' | 'defaulted'>[]): Uint8Array;
/** What {@link verifyDice} reads of a replay (any `Replay` of `GET /api/v1/matches/{id}/replay` is one). */
export type DiceReplay = Pick<Replay, 'seed' | 'dice_commitment' | 'dice_scheme' | 'contributions'> & {
    /** When present, every turn must roll exactly `rules.dice_per_turn` dice (rule 4.1). */
    rules?: Pick<Replay['rules'], 'dice_per_turn'>;
    turns: Pick<TurnRecord, 'turn_number' | 'dice'>[];
};
/** The dice scheme of a replay (proto/README.md §10). */
export type DiceScheme = NonNullable<Replay['dice_scheme']>;
/**
 * The outcome of {@link verifyDice}: `hidden` while the seed is not revealed;
 * otherwise `ok` or `bad`, with the scheme, the number of turns, and how many seats
 * contributed (`players`) or got the default (`defaults`). A `bad` one names the first
 * failed check in `why`: `commitment` (SHA-256 of the seed is not `dice_commitment`),
 * `contributions` (not the four seats in order with 0 or 16..=64 bytes each; none
 * recorded for a `contributed` match with turns; some recorded for `server_seed`), or
 * `turn` (the dice of turn number `turn` are not the next ones of the key stream).
 */
export type DiceCheck = {
    state: 'hidden';
} | {
    state: 'ok' | 'bad';
    scheme: DiceScheme;
    turns: number;
    players: number;
    defaults: number;
    why?: 'commitment' | 'contributions' | 'turn';
    turn?: number;
};
/**
 * Verifies a replay's dice (proto/README.md §10): the seed against `dice_commitment`,
 * the dice key of its `dice_scheme` (`server_seed` when absent) and the recorded
 * contributions, and every turn's dice, in order, against the key stream. Resolves to
 * a {@link DiceCheck}; never rejects for a malformed replay (that is a `bad` check).
 */
export declare function verifyDice(replay: DiceReplay): Promise<DiceCheck>;
/** {@link verifyDice}, synchronously. */
export declare function checkDice(replay: DiceReplay): DiceCheck;
