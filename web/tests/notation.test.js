// Unit tests of the client's rule ports (web/js/notation.js, web/js/state.js) against
// the numbers RULES.md states. Run: node --test (in web/tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entry, midpoint, step, relativeTile, simulatePath, FORTS, SEATS } from '../js/notation.js';
import { initialState, applyEvent, applyTurnStart, removePlanRolls, standings } from '../js/state.js';

test('rule 2.2/2.3: entries 0,17,34,51 and midpoints are the opposite entries, tile 35 both ways', () => {
  assert.deepEqual(SEATS.map(entry), [0, 17, 34, 51]);
  assert.deepEqual(SEATS.map(midpoint), [34, 51, 0, 17]);
  for (const s of SEATS) {
    assert.equal(relativeTile(s, `ring:${midpoint(s)}`, 'forward'), 35);
    assert.equal(relativeTile(s, `ring:${midpoint(s)}`, 'backward'), 35);
  }
});

test('rule 2.4: forts in green numbering are 8,13,25,30,42,47,59,64 forward and 6,11,23,28,40,45,57,62 backward', () => {
  assert.deepEqual(FORTS.map((f) => relativeTile('green', `ring:${f}`, 'forward')), [8, 13, 25, 30, 42, 47, 59, 64]);
  assert.deepEqual(FORTS.map((f) => relativeTile('green', `ring:${f}`, 'backward')).sort((a, b) => a - b), [6, 11, 23, 28, 40, 45, 57, 62]);
});

test('rule 2.6: home path and Home numbers; ring E+64..E+67 have no forward number', () => {
  assert.equal(relativeTile('red', 'hp:1', 'forward'), 65);
  assert.equal(relativeTile('red', 'hp:7', 'forward'), 71);
  assert.equal(relativeTile('red', 'home', 'forward'), 72);
  assert.equal(relativeTile('red', 'hp:3', 'backward'), null);
  assert.equal(relativeTile('red', 'hp:4', 'backward'), 70);
  assert.equal(relativeTile('red', 'home', 'backward'), 74);
  assert.equal(relativeTile('red', 'ring:17', 'backward'), 1);
  for (let k = 64; k < 68; k++) {
    const loc = `ring:${(17 + k) % 68}`;
    assert.equal(relativeTile('red', loc, 'forward'), null);
    assert.equal(relativeTile('red', loc, 'backward'), 69 - k);
  }
});

test('rule 3.1: one step (the engine test cases)', () => {
  assert.equal(step('green', 'ring:63', 'forward', false, false), 'ring:64');
  assert.equal(step('green', 'ring:63', 'forward', true, false), 'hp:1');
  assert.equal(step('green', 'ring:0', 'backward', false, false), 'ring:67');
  assert.equal(step('green', 'ring:0', 'backward', true, false), 'hp:4');
  assert.equal(step('green', 'ring:67', 'forward', false, false), 'ring:0');
  assert.equal(step('green', 'hp:7', 'backward', true, false), 'home');
  assert.equal(step('green', 'hp:2', 'backward', true, false), 'hp:3');
  assert.equal(step('green', 'home', 'forward', true, false), null);
  assert.equal(step('green', 'yard', 'forward', false, false), null);
  assert.equal(step('red', 'yard', 'backward', false, true), 'ring:17');
  assert.equal(step('red', 'ring:12', 'forward', true, false), 'hp:1');
  assert.equal(step('red', 'ring:12', 'forward', false, false), 'ring:13');
  assert.equal(step('red', 'ring:17', 'backward', true, false), 'hp:4');
});

test('rules 3.2/3.3: a piece glows from its midpoint on within the move and loses steps after Home', () => {
  // blue's midpoint is ring 0; backward from ring 2 for 4 steps: 1, 0 (glows), then
  // blue's entry is 34, so it keeps going on the ring: 67, 66.
  const a = simulatePath('blue', 'ring:2', 4, 'backward', false, false);
  assert.deepEqual(a.path, ['ring:1', 'ring:0', 'ring:67', 'ring:66']);
  assert.equal(a.glowing, true);
  // green glowing from ring 62 forward 12 steps: 63, hp1..hp7, home (9 steps), 3 lost.
  const b = simulatePath('green', 'ring:62', 12, 'forward', true, false);
  assert.deepEqual(b.path, ['ring:63', 'hp:1', 'hp:2', 'hp:3', 'hp:4', 'hp:5', 'hp:6', 'hp:7', 'home']);
  // the royal's first step from the Yard lands on its entry tile (rule 4.3)
  assert.deepEqual(simulatePath('yellow', 'yard', 2, 'forward', false, true).path, ['ring:51', 'ring:52']);
});

test('events applied in order give positions and points (rules 4.1, 7.7, 8.1, 9.2)', () => {
  const rules = { roll_store_cap: 9, exit_credit_cap: 4 };
  const st = initialState('clash', 2);
  applyTurnStart(st, 'green', [6, 3, 6], rules);
  assert.deepEqual(st.seats.green.rolls, [6, 3, 6]);
  assert.equal(st.seats.green.exit_credits, 4);
  removePlanRolls(st, 'green', { moves: { G1: [6] } });
  assert.deepEqual(st.seats.green.rolls, [3, 6]);
  applyEvent(st, { type: 'exit', seat: 'green', piece: 'G1', to: 'ring:0' });
  applyEvent(st, { type: 'checkpoint', seat: 'green', piece: 'G1', checkpoint: 'entry', points: 10 });
  applyEvent(st, { type: 'move', seat: 'green', pieces: ['G1'], from: 'ring:0', path: ['ring:1', 'ring:2'] });
  assert.equal(st.seats.green.pieces.G1, 'ring:2');
  assert.equal(st.seats.green.exit_credits, 3);
  st.seats.red.pieces.G2 = 'ring:2';
  st.seats.red.progress.G2 = 40;
  applyEvent(st, { type: 'capture', seat: 'green', tile: 'ring:2', captured_seat: 'red', captured: 'G2', points: 100, cascade: false });
  applyEvent(st, { type: 'blocked', seat: 'green', pieces: ['G1'], at: 'ring:2', tile: 'ring:3', by: 'blue', lost_steps: 2, penalty: 20 });
  assert.equal(st.seats.red.pieces.G2, 'yard');
  assert.equal(st.seats.red.progress.G2, 0);
  const s = standings(st);
  assert.deepEqual(s.map((r) => [r.seat, r.place, r.total]), [['green', 1, 90], ['red', 2, 0], ['blue', 2, 0], ['yellow', 2, 0]]);
});
