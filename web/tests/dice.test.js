// The replay viewer's dice check (web/js/dice.js: the client SDK's verifyDice, built
// into web/js/sdk with @noble/hashes and @noble/ciphers in web/js/vendor, as the
// browser loads them; proto/README.md §10) against RFC 8439's ChaCha20 test vectors
// and the engine's known answers (crates/engine/tests/kat/contributed_kat.json,
// computed independently in Python).
// Run: cd web/tests && node --test dice.test.js

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { contributedKey, keyStream, rollDice, verifyDice } from '../js/dice.js';

const kat = JSON.parse(readFileSync(new URL('../../crates/engine/tests/kat/contributed_kat.json', import.meta.url)));
const fromHex = (h) => new Uint8Array((h.match(/../g) ?? []).map((b) => parseInt(b, 16)));
const hex = (b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
const take = (it, n) => Array.from({ length: n }, () => it.next().value);

test('the web copy of the SDK loads its crypto from js/vendor, and js/dice.js writes none out', () => {
  const sdkDice = readFileSync(new URL('../js/sdk/dice.js', import.meta.url), 'utf8');
  const imports = [...sdkDice.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
  assert.deepEqual(imports, [
    '../vendor/noble-ciphers/chacha.js',
    '../vendor/noble-hashes/hkdf.js',
    '../vendor/noble-hashes/sha2.js',
    '../vendor/noble-hashes/utils.js',
  ]);
  const own = readFileSync(new URL('../js/dice.js', import.meta.url), 'utf8');
  assert.doesNotMatch(own, /0x61707865|chachaBlock|crypto\.subtle/);
});

test('ChaCha20 key stream: RFC 8439 A.1 test vectors 1 and 2 (zero key, zero nonce, blocks 0 and 1)', () => {
  const words = take(keyStream(new Uint8Array(32)), 32);
  const bytes = new Uint8Array(Uint32Array.from(words).buffer); // little-endian words
  assert.equal(hex(bytes.slice(0, 64)),
    '76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7'
    + 'da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586');
  assert.equal(hex(bytes.slice(64, 128)),
    '9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed'
    + '29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f');
});

test('known answers: the HKDF key, the contributed dice and the server-seed dice', () => {
  assert.equal(kat.cases.length, 4);
  for (const c of kat.cases) {
    const key = contributedKey(fromHex(c.seed), c.contributions);
    assert.equal(hex(key), c.key, `${c.name}: key`);
    assert.deepEqual(take(rollDice(key), 30), c.dice, `${c.name}: dice`);
    assert.deepEqual(take(rollDice(fromHex(c.seed)), 30), c.server_seed_dice, `${c.name}: server-seed dice`);
  }
});

/** A replay of 5 three-dice turns rolled with the scheme's key. */
function replayOf(c, scheme) {
  const seed = fromHex(c.seed);
  const key = scheme === 'contributed' ? contributedKey(seed, c.contributions) : seed;
  const roll = rollDice(key);
  const turns = Array.from({ length: 5 }, (_, i) => ({ turn_number: i + 1, dice: take(roll, 3) }));
  const commitment = createHash('sha256').update(seed).digest('hex');
  const r = { seed: c.seed, dice_commitment: commitment, turns };
  if (scheme === 'contributed') Object.assign(r, { dice_scheme: scheme, contributions: c.contributions });
  return r;
}

test('verifyDice: both schemes verify; a changed contribution, die or seed is named', async () => {
  const c = kat.cases[1];
  assert.deepEqual(await verifyDice(replayOf(c, 'contributed')),
    { state: 'ok', scheme: 'contributed', turns: 5, players: 3, defaults: 1 });
  assert.deepEqual(await verifyDice(replayOf(c, 'server_seed')),
    { state: 'ok', scheme: 'server_seed', turns: 5, players: 0, defaults: 0 });
  const tampered = replayOf(c, 'contributed');
  tampered.contributions = tampered.contributions.map((x, i) => (i === 0 ? { ...x, entropy: 'ff'.repeat(16) } : x));
  assert.deepEqual(await verifyDice(tampered),
    { state: 'bad', scheme: 'contributed', turns: 5, players: 3, defaults: 1, why: 'turn', turn: 1 });
  const die = replayOf(c, 'contributed');
  die.turns[3].dice = die.turns[3].dice.map((d) => (d % 6) + 1);
  assert.deepEqual(await verifyDice(die),
    { state: 'bad', scheme: 'contributed', turns: 5, players: 3, defaults: 1, why: 'turn', turn: 4 });
  const seed = replayOf(c, 'contributed');
  seed.seed = '00'.repeat(32);
  assert.deepEqual(await verifyDice(seed),
    { state: 'bad', scheme: 'contributed', turns: 5, players: 3, defaults: 1, why: 'commitment' });
  assert.deepEqual(await verifyDice({ ...seed, seed: null }), { state: 'hidden' });
});
