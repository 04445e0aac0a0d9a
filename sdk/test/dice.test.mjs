// The SDK's dice verification (src/dice.ts, proto/README.md §10; issue 31):
// 1. the primitives against RFC 8439's ChaCha20 test vectors, SHA-256 and the engine's
//    known answers (crates/engine/tests/kat/contributed_kat.json, computed in Python
//    with hashlib/hmac and the `cryptography` package), and 10,000 dice against the
//    same Python derivation (past many ChaCha20 calls of the SDK);
// 2. verifyDice on replays made here: both schemes, each failed check named;
// 3. replays of real matches played to the end on the real ludo-server binary
//    ($LUDO_SERVER_BIN, scripts/sdk-test.sh): scheme `contributed` (this client
//    contributes, the three bots get the default) and `server_seed`
//    (LUDO_CONTRIBUTION_WINDOW_MS=0) verify `ok`; a running match's replay is
//    `hidden`; one changed contribution or die is `bad` at the right turn.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  checkDice,
  connect,
  contributedKey,
  diceCommitment,
  dieFromWord,
  keyStream,
  LARGEST_DIE_WORD,
  Rest,
  rollDice,
  verifyDice,
} from '../dist/index.js';
import { startServer, within } from './harness.mjs';

const kat = JSON.parse(readFileSync(new URL('../../crates/engine/tests/kat/contributed_kat.json', import.meta.url)));
const fromHex = (h) => Uint8Array.from(Buffer.from(h, 'hex'));
const hex = (b) => Buffer.from(b).toString('hex');
const take = (it, n) => Array.from({ length: n }, () => it.next().value);
const sha256 = (b) => createHash('sha256').update(b).digest('hex');

describe('primitives', () => {
  test('ChaCha20 key stream: RFC 8439 A.1 test vectors 1 and 2 (zero key, zero nonce, blocks 0 and 1)', () => {
    const bytes = new Uint8Array(Uint32Array.from(take(keyStream(new Uint8Array(32)), 32)).buffer);
    assert.equal(hex(bytes.subarray(0, 64)),
      '76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7'
      + 'da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586');
    assert.equal(hex(bytes.subarray(64, 128)),
      '9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed'
      + '29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f');
  });

  test('the commitment is SHA-256 of the seed bytes (32 zero bytes: 66687aad…)', () => {
    assert.equal(diceCommitment(new Uint8Array(32)), '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925');
  });

  test('a die is 1 + x mod 6 for x ≤ 4294967291; the four words above are skipped', () => {
    assert.equal(LARGEST_DIE_WORD, 4294967291);
    assert.deepEqual([0, 5, 6, 4294967290, 4294967291].map(dieFromWord), [1, 6, 1, 5, 6]);
    assert.deepEqual([4294967292, 4294967293, 4294967294, 4294967295].map(dieFromWord), [null, null, null, null]);
  });

  test('known answers of the engine: HKDF key, contributed dice and server-seed dice of all four cases', () => {
    assert.equal(kat.info_prefix, 'ludo dice v2');
    assert.equal(kat.cases.length, 4);
    for (const c of kat.cases) {
      const key = contributedKey(fromHex(c.seed), c.contributions);
      assert.equal(hex(key), c.key, `${c.name}: key`);
      assert.deepEqual(take(rollDice(key), 30), c.dice, `${c.name}: dice`);
      assert.deepEqual(take(rollDice(fromHex(c.seed)), 30), c.server_seed_dice, `${c.name}: server-seed dice`);
    }
    // Case "mixed lengths", stated here too.
    assert.equal(hex(contributedKey(fromHex(kat.cases[1].seed), kat.cases[1].contributions)),
      '61e423c7074e2ab314914e90b021f83b2d06e59ab3938cc7c070e4ccf25a9e52');
  });

  test('10,000 dice of the "mixed lengths" key: the same as the Python derivation (many ChaCha20 calls)', () => {
    // Python: cryptography's ChaCha20(key, 16 zero bytes) over 128,000 bytes; no word
    // of them is above 4294967291.
    const key = fromHex('61e423c7074e2ab314914e90b021f83b2d06e59ab3938cc7c070e4ccf25a9e52');
    const dice = take(rollDice(key), 10_000);
    assert.deepEqual(dice.slice(5000, 5012), [6, 6, 4, 4, 3, 1, 3, 3, 1, 6, 2, 6]);
    assert.equal(dice.reduce((a, b) => a + b, 0), 35095);
    assert.equal(sha256(Uint8Array.from(dice)), '2f70e66ffa44fa0a6f8c75e7464e333eaea8e9c96e22d2ae7cd18820650ebac5');
    // Block 1000 (words 16000…): its first 16 bytes.
    const words = take(keyStream(key), 16_004).slice(16_000);
    assert.equal(hex(new Uint8Array(Uint32Array.from(words).buffer)), '59c6689987d70abe93dbc37a0d720d87');
  });

  test('contributedKey refuses contributions that are not the four seats in order, 0 or 16..=64 bytes each', () => {
    const cs = kat.cases[1].contributions;
    const seed = fromHex(kat.cases[1].seed);
    const bad = [
      cs.slice(0, 3),
      [cs[1], cs[0], cs[2], cs[3]],
      cs.map((c, i) => (i === 0 ? { ...c, entropy: 'ab'.repeat(15) } : c)),
      cs.map((c, i) => (i === 0 ? { ...c, entropy: 'ab'.repeat(65) } : c)),
      cs.map((c, i) => (i === 0 ? { ...c, entropy: 'zz'.repeat(16) } : c)),
      cs.map((c, i) => (i === 0 ? { ...c, defaulted: true } : c)),
    ];
    for (const b of bad) assert.throws(() => contributedKey(seed, b), { name: 'BadContributions' });
  });
});

/** A replay of `n` three-dice turns of KAT case `c`, rolled with `scheme`'s key. */
function replayOf(c, scheme, n = 5) {
  const seed = fromHex(c.seed);
  const roll = rollDice(scheme === 'contributed' ? contributedKey(seed, c.contributions) : seed);
  const r = {
    seed: c.seed,
    dice_commitment: sha256(seed),
    rules: { dice_per_turn: 3 },
    turns: Array.from({ length: n }, (_, i) => ({ turn_number: i + 1, dice: take(roll, 3) })),
  };
  if (scheme === 'contributed') Object.assign(r, { dice_scheme: 'contributed', contributions: c.contributions });
  return r;
}

describe('verifyDice on made replays', () => {
  const c = kat.cases[1]; // contributions: green, blue, yellow sent bytes; red defaulted
  const contributed = { scheme: 'contributed', turns: 5, players: 3, defaults: 1 };
  const serverSeed = { scheme: 'server_seed', turns: 5, players: 0, defaults: 0 };

  test('both schemes verify ok (a replay without dice_scheme is server_seed)', async () => {
    assert.deepEqual(await verifyDice(replayOf(c, 'contributed')), { state: 'ok', ...contributed });
    assert.deepEqual(await verifyDice(replayOf(c, 'server_seed')), { state: 'ok', ...serverSeed });
    assert.deepEqual(await verifyDice({ ...replayOf(c, 'server_seed'), dice_scheme: 'server_seed' }), { state: 'ok', ...serverSeed });
    assert.deepEqual(checkDice(replayOf(c, 'contributed')), { state: 'ok', ...contributed });
  });

  test('an unrevealed seed is hidden (null or absent)', async () => {
    assert.deepEqual(await verifyDice({ ...replayOf(c, 'contributed'), seed: null }), { state: 'hidden' });
    const { seed: _, ...noSeed } = replayOf(c, 'server_seed');
    assert.deepEqual(await verifyDice(noSeed), { state: 'hidden' });
  });

  test('a changed contribution fails at turn 1; a changed die at its own turn', async () => {
    const r = replayOf(c, 'contributed');
    r.contributions = r.contributions.map((x) => (x.seat === 'blue' ? { ...x, entropy: 'cd'.repeat(32) } : x));
    assert.deepEqual(await verifyDice(r), { state: 'bad', ...contributed, why: 'turn', turn: 1 });
    const d = replayOf(c, 'contributed');
    d.turns[3].dice[2] = (d.turns[3].dice[2] % 6) + 1;
    assert.deepEqual(await verifyDice(d), { state: 'bad', ...contributed, why: 'turn', turn: 4 });
    const s = replayOf(c, 'server_seed');
    s.turns[1].dice[0] = (s.turns[1].dice[0] % 6) + 1;
    assert.deepEqual(await verifyDice(s), { state: 'bad', ...serverSeed, why: 'turn', turn: 2 });
    // A die too few or too many (rule 4.1: exactly dice_per_turn).
    const short = replayOf(c, 'contributed');
    short.turns[4].dice.pop();
    assert.deepEqual(await verifyDice(short), { state: 'bad', ...contributed, why: 'turn', turn: 5 });
  });

  test('a changed seed or commitment is named commitment', async () => {
    assert.deepEqual(await verifyDice({ ...replayOf(c, 'contributed'), seed: '00'.repeat(32) }), { state: 'bad', ...contributed, why: 'commitment' });
    assert.deepEqual(await verifyDice({ ...replayOf(c, 'server_seed'), dice_commitment: '00'.repeat(32) }), { state: 'bad', ...serverSeed, why: 'commitment' });
    assert.deepEqual(await verifyDice({ ...replayOf(c, 'server_seed'), seed: 'not hex' }), { state: 'bad', ...serverSeed, why: 'commitment' });
    // Upper-case hex of the commitment is the same commitment.
    const r = replayOf(c, 'server_seed');
    assert.deepEqual(await verifyDice({ ...r, dice_commitment: r.dice_commitment.toUpperCase() }), { state: 'ok', ...serverSeed });
  });

  test('malformed contributions are named contributions', async () => {
    const r = replayOf(c, 'contributed');
    const swapped = [r.contributions[1], r.contributions[0], r.contributions[2], r.contributions[3]];
    assert.deepEqual(await verifyDice({ ...r, contributions: swapped }), { state: 'bad', ...contributed, why: 'contributions' });
    assert.deepEqual(await verifyDice({ ...r, contributions: r.contributions.slice(1) }),
      { state: 'bad', ...contributed, players: 2, why: 'contributions' });
    // Scheme contributed with turns but nothing recorded; scheme server_seed with contributions.
    assert.deepEqual(await verifyDice({ ...r, contributions: null }),
      { state: 'bad', ...contributed, players: 0, defaults: 0, why: 'contributions' });
    assert.deepEqual(await verifyDice({ ...replayOf(c, 'server_seed'), contributions: c.contributions }),
      { state: 'bad', ...serverSeed, players: 3, defaults: 1, why: 'contributions' });
  });
});

/**
 * Plays one quick-play clash match to its end on `server`: one SDK player (sending
 * `entropy` when the match takes contributions) and three bots. Returns the match id,
 * the replay fetched while it ran (after the first turn) and the replay after the end.
 */
async function playMatch(server, name, entropy) {
  const rest = new Rest(server.http);
  const { token } = await rest.createGuest(name);
  const client = await within(10_000, `${name} welcome`, connect(server.ws, token));
  try {
    let seat = null;
    let matchId = null;
    let running = null;
    const started = client.next('match_started');
    client.on('turn_started', ({ d }) => {
      if (!running) running = rest.replay(d.match_id);
      if (d.seat === seat) setTimeout(() => client.pass(d.match_id, d.turn_number).catch(() => {}), 20);
    });
    const ended = client.next('match_ended');
    await client.joinQueue('clash');
    const { d } = await within(15_000, 'match_started', started);
    seat = d.your_seat;
    matchId = d.match_id;
    if (d.contribution_deadline_ms != null) await client.request('contribute_entropy', { match_id: matchId, entropy });
    await within(60_000, 'match_ended', ended);
    return { matchId, seat, started: d, running: await running, replay: await rest.replay(matchId) };
  } finally {
    client.close();
  }
}

describe('replays of real matches (ludo-server)', () => {
  let contributedServer;
  let serverSeedServer;
  before(async () => {
    const clocks = { LUDO_BOT_FILL_SECONDS: '0', LUDO_BOT_THINK_MS: '100', LUDO_MATCH_SECONDS: '5', LUDO_TURN_SECONDS: '3' };
    contributedServer = await startServer(clocks);
    serverSeedServer = await startServer({ ...clocks, LUDO_CONTRIBUTION_WINDOW_MS: '0' });
  });
  after(async () => {
    await contributedServer?.stop();
    await serverSeedServer?.stop();
  });

  test('scheme contributed: ok with 1 player and 3 defaults; hidden while running; a changed contribution or die is bad', async () => {
    const entropy = randomBytes(32).toString('hex');
    const { seat, started, running, replay } = await playMatch(contributedServer, 'Dice', entropy);
    assert.equal(started.dice_scheme, 'contributed');
    assert.equal(replay.dice_scheme, 'contributed');
    assert.equal(replay.dice_commitment, started.dice_commitment);
    assert.ok(replay.turns.length >= 3, `${replay.turns.length} turns`);
    // Our bytes were used; the bots' seats got the default.
    assert.deepEqual(replay.contributions.map((c) => [c.seat, c.defaulted, c.entropy]),
      ['green', 'red', 'blue', 'yellow'].map((s) => (s === seat ? [s, false, entropy] : [s, true, ''])));
    const n = replay.turns.length;
    assert.deepEqual(await verifyDice(replay), { state: 'ok', scheme: 'contributed', turns: n, players: 1, defaults: 3 });

    // While the match ran, its replay had no seed yet.
    assert.equal(running.seed ?? null, null);
    assert.deepEqual(await verifyDice(running), { state: 'hidden' });

    // Our contribution changed (one hex digit): another key, so turn 1's dice differ.
    const flipped = entropy.slice(0, -1) + (entropy.at(-1) === '0' ? '1' : '0');
    const tampered = { ...replay, contributions: replay.contributions.map((c) => (c.seat === seat ? { ...c, entropy: flipped } : c)) };
    assert.deepEqual(await verifyDice(tampered),
      { state: 'bad', scheme: 'contributed', turns: n, players: 1, defaults: 3, why: 'turn', turn: replay.turns[0].turn_number });
    assert.equal(replay.turns[0].turn_number, 1);

    // One die of the last turn changed.
    const k = n - 1;
    const die = structuredClone(replay);
    die.turns[k].dice[1] = (die.turns[k].dice[1] % 6) + 1;
    assert.deepEqual(await verifyDice(die),
      { state: 'bad', scheme: 'contributed', turns: n, players: 1, defaults: 3, why: 'turn', turn: replay.turns[k].turn_number });
    assert.equal(replay.turns[k].turn_number, n);
  });

  test('scheme server_seed (contribution window 0): ok with no contributions; a changed die is bad', async () => {
    const { started, replay } = await playMatch(serverSeedServer, 'Seed', randomBytes(32).toString('hex'));
    assert.equal(started.dice_scheme ?? 'server_seed', 'server_seed');
    assert.equal(replay.dice_scheme ?? 'server_seed', 'server_seed');
    assert.equal(replay.contributions ?? null, null);
    const n = replay.turns.length;
    assert.ok(n >= 3, `${n} turns`);
    assert.deepEqual(await verifyDice(replay), { state: 'ok', scheme: 'server_seed', turns: n, players: 0, defaults: 0 });
    const die = structuredClone(replay);
    die.turns[0].dice[0] = (die.turns[0].dice[0] % 6) + 1;
    assert.deepEqual(await verifyDice(die),
      { state: 'bad', scheme: 'server_seed', turns: n, players: 0, defaults: 0, why: 'turn', turn: 1 });
  });
});
