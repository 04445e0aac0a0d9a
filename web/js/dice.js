// Checks a replay's dice in the browser (proto/README.md §10): the revealed seed
// against the commitment (SHA-256), the dice key (scheme `contributed`: HKDF-SHA256 of
// the seed and each seat's recorded contribution; `server_seed`: the seed itself) and
// every turn's dice re-rolled from it. SHA-256 and HKDF are the browser's Web Crypto;
// Web Crypto has no ChaCha20, so its RFC 8439 block function is written out below
// (checked against the RFC's test vector and the engine's known answers by
// web/tests/dice.test.js).

const LIMIT = 4294967291; // largest u32 kept: 6 · 715827882 − 1
const INFO_PREFIX = new TextEncoder().encode('ludo dice v2');
const SEATS = ['green', 'red', 'blue', 'yellow'];

const fromHex = (h) => new Uint8Array((h.match(/../g) ?? []).map((b) => parseInt(b, 16)));
const toHex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');

/** ChaCha20 block (RFC 8439 §2.3) of a 32-byte key, zero nonce, block `counter`: 16 words. */
export function chachaBlock(key, counter) {
  const k = new DataView(key.buffer, key.byteOffset, 32);
  const s = new Uint32Array(16);
  s.set([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
  for (let i = 0; i < 8; i++) s[4 + i] = k.getUint32(4 * i, true);
  s[12] = counter >>> 0;
  s[13] = Math.floor(counter / 2 ** 32) >>> 0; // rand_chacha: a 64-bit block counter, nonce 0
  const x = s.slice();
  const rotl = (v, n) => (v << n) | (v >>> (32 - n));
  const qr = (a, b, c, d) => {
    x[a] = (x[a] + x[b]) >>> 0; x[d] = rotl(x[d] ^ x[a], 16) >>> 0;
    x[c] = (x[c] + x[d]) >>> 0; x[b] = rotl(x[b] ^ x[c], 12) >>> 0;
    x[a] = (x[a] + x[b]) >>> 0; x[d] = rotl(x[d] ^ x[a], 8) >>> 0;
    x[c] = (x[c] + x[d]) >>> 0; x[b] = rotl(x[b] ^ x[c], 7) >>> 0;
  };
  for (let r = 0; r < 10; r++) {
    qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15);
    qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14);
  }
  for (let i = 0; i < 16; i++) x[i] = (x[i] + s[i]) >>> 0;
  return x;
}

/** The dice of a 32-byte key: each die the next key-stream word x ≤ LIMIT, 1 + x mod 6. */
export function* dice(key) {
  for (let block = 0; ; block++) {
    for (const x of chachaBlock(key, block)) if (x <= LIMIT) yield 1 + (x % 6);
  }
}

/** The dice key of scheme `contributed`: HKDF-SHA256(no salt, seed, info, 32 bytes). */
export async function contributedKey(seed, contributions) {
  const parts = [INFO_PREFIX];
  for (const c of contributions) {
    const e = fromHex(c.entropy);
    parts.push(Uint8Array.of(e.length), e);
  }
  const info = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (info.set(p, at), at + p.length), 0);
  const ikm = await crypto.subtle.importKey('raw', seed, 'HKDF', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info }, ikm, 256);
  return new Uint8Array(bits);
}

/**
 * Verifies `replay`'s dice. Returns `{ state: 'hidden' }` before the seed is revealed,
 * otherwise `{ state: 'ok' | 'bad', scheme, turns, players, defaults, why? }`:
 * `players`/`defaults` count the seats that contributed or got the default; `why`
 * names the first failed check (`commitment`, `contributions`, or `turn`: the dice of
 * turn number `turn` differ).
 */
export async function verifyDice(replay) {
  if (!replay.seed) return { state: 'hidden' };
  const scheme = replay.dice_scheme ?? 'server_seed';
  const cs = replay.contributions ?? [];
  const out = {
    scheme,
    turns: replay.turns.length,
    players: cs.filter((c) => !c.defaulted).length,
    defaults: cs.filter((c) => c.defaulted).length,
  };
  const seed = fromHex(replay.seed);
  if (toHex(await crypto.subtle.digest('SHA-256', seed)) !== replay.dice_commitment.toLowerCase()) {
    return { ...out, state: 'bad', why: 'commitment' };
  }
  let key = seed;
  if (scheme === 'contributed') {
    const inOrder = cs.length === 4 && cs.every((c, i) => c.seat === SEATS[i]);
    if (!inOrder && replay.turns.length) return { ...out, state: 'bad', why: 'contributions' };
    key = await contributedKey(seed, cs);
  }
  const roll = dice(key);
  for (const t of replay.turns) {
    if (t.dice.some((d) => d !== roll.next().value)) {
      return { ...out, state: 'bad', why: 'turn', turn: t.turn_number };
    }
  }
  return { ...out, state: 'ok' };
}
