// The replay viewer's dice check (web/js/dice.js, proto/README.md §10) against
// RFC 8439's ChaCha20 test vector and the engine's known answers
// (crates/engine/tests/kat/contributed_kat.json, computed independently in Python).
// Run: cd web/tests && node --test dice.test.js

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chachaBlock, contributedKey, dice, verifyDice } from '../js/dice.js';

const kat = JSON.parse(readFileSync(new URL('../../crates/engine/tests/kat/contributed_kat.json', import.meta.url)));
const fromHex = (h) => new Uint8Array((h.match(/../g) ?? []).map((b) => parseInt(b, 16)));
const hex = (b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
const take = (it, n) => Array.from({ length: n }, () => it.next().value);

test('ChaCha20 block: RFC 8439 A.1 test vector 1 (zero key, zero nonce, counter 0)', () => {
  const words = chachaBlock(new Uint8Array(32), 0);
  const bytes = new Uint8Array(words.buffer);
  assert.equal(hex(bytes.slice(0, 32)), '76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7');
});

test('known answers: the HKDF key, the contributed dice and the server-seed dice', async () => {
  assert.equal(kat.cases.length, 4);
  for (const c of kat.cases) {
    const key = await contributedKey(fromHex(c.seed), c.contributions);
    assert.equal(hex(key), c.key, `${c.name}: key`);
    assert.deepEqual(take(dice(key), 30), c.dice, `${c.name}: dice`);
    assert.deepEqual(take(dice(fromHex(c.seed)), 30), c.server_seed_dice, `${c.name}: server-seed dice`);
  }
});

/** A replay of `turns` three-dice turns rolled with `key`. */
async function replayOf(c, scheme) {
  const seed = fromHex(c.seed);
  const key = scheme === 'contributed' ? await contributedKey(seed, c.contributions) : seed;
  const roll = dice(key);
  const turns = Array.from({ length: 5 }, (_, i) => ({ turn_number: i + 1, dice: take(roll, 3) }));
  const commitment = hex(new Uint8Array(await crypto.subtle.digest('SHA-256', seed)));
  const r = { seed: c.seed, dice_commitment: commitment, turns };
  if (scheme === 'contributed') Object.assign(r, { dice_scheme: scheme, contributions: c.contributions });
  return r;
}

test('verifyDice: both schemes verify; a changed contribution, die or seed is named', async () => {
  const c = kat.cases[1];
  assert.deepEqual(await verifyDice(await replayOf(c, 'contributed')),
    { state: 'ok', scheme: 'contributed', turns: 5, players: 3, defaults: 1 });
  assert.deepEqual(await verifyDice(await replayOf(c, 'server_seed')),
    { state: 'ok', scheme: 'server_seed', turns: 5, players: 0, defaults: 0 });
  const tampered = await replayOf(c, 'contributed');
  tampered.contributions = tampered.contributions.map((x, i) => (i === 0 ? { ...x, entropy: 'ff'.repeat(16) } : x));
  assert.deepEqual([(await verifyDice(tampered)).why, (await verifyDice(tampered)).turn], ['turn', 1]);
  const die = await replayOf(c, 'contributed');
  die.turns[3].dice = die.turns[3].dice.map((d) => (d % 6) + 1);
  assert.equal((await verifyDice(die)).turn, 4);
  const seed = await replayOf(c, 'contributed');
  seed.seed = '00'.repeat(32);
  assert.equal((await verifyDice(seed)).why, 'commitment');
  assert.deepEqual(await verifyDice({ ...seed, seed: null }), { state: 'hidden' });
});
