// Client-side match state: where every piece is, glow, roll stores, exit credits and
// points, kept up to date by applying the server's events in order. Used for live
// play (after a snapshot or from the start of a match) and by the replay viewer
// (from the start, where every piece is in its Yard).

import { SEATS, PIECES, entry } from './notation.js';

/**
 * One seat's part of the client state: each piece's location (notation.js), the
 * pieces glowing, the roll store, exit credits, combat and bonus points, each piece's
 * progress and the seat's finishing place (1–4, or null).
 * @typedef {{ pieces: Record<string, string>, glowing: Set<string>, rolls: number[],
 *   exit_credits: number, combat: number, bonus: number,
 *   progress: Record<string, number>, finished: number | null }} SeatState
 */
/** The client state of a match: its mode and every seat's state. @typedef {{ mode: string, seats: Record<string, SeatState> }} MatchState */

/**
 * A fresh seat: every piece in the Yard (rule 1.3).
 * @param {number} exitCredits
 * @returns {SeatState}
 */
function emptySeat(exitCredits) {
  return {
    pieces: Object.fromEntries(PIECES.map((p) => [p, 'yard'])),
    glowing: new Set(),
    rolls: [],
    exit_credits: exitCredits,
    combat: 0,
    bonus: 0,
    progress: Object.fromEntries(PIECES.map((p) => [p, 0])),
    finished: null,
  };
}

/**
 * Rule 4.2: the start of a match, `startExitCredits` exit credits per seat.
 * @param {string} mode
 * @param {number} startExitCredits
 * @returns {MatchState}
 */
export function initialState(mode, startExitCredits) {
  return {
    mode,
    seats: Object.fromEntries(SEATS.map((s) => [s, emptySeat(startExitCredits)])),
  };
}

/** State from a snapshot's position (RULES.md §11 output form). */
export function stateFromPosition(position) {
  const st = /** @type {MatchState} */ ({ mode: position.mode, seats: {} });
  for (const s of SEATS) {
    const src = position.seats?.[s] ?? {};
    const seat = emptySeat(0);
    Object.assign(seat.pieces, src.pieces ?? {});
    seat.glowing = new Set(src.glowing ?? []);
    seat.rolls = [...(src.rolls ?? [])];
    seat.exit_credits = src.exit_credits ?? 0;
    seat.combat = src.combat ?? 0;
    seat.bonus = src.bonus ?? 0;
    Object.assign(seat.progress, src.progress ?? {});
    seat.finished = src.finished ?? null;
    st.seats[s] = seat;
  }
  return st;
}

/**
 * A deep copy (the replay viewer keeps one state per turn).
 * @param {MatchState} st
 * @returns {MatchState}
 */
export function cloneState(st) {
  /** @type {Record<string, SeatState>} */
  const seats = {};
  for (const s of SEATS) {
    const x = st.seats[s];
    seats[s] = {
      ...x,
      pieces: { ...x.pieces },
      glowing: new Set(x.glowing),
      rolls: [...x.rolls],
      progress: { ...x.progress },
    };
  }
  return { mode: st.mode, seats };
}

/**
 * Rule 4.1 as the replay needs it: `dice` are appended to the seat's store up to
 * `rules.roll_store_cap` rolls (the rest dropped), and each 6 grants one exit credit
 * up to `rules.exit_credit_cap`. Live play takes the store from `turn_started` instead.
 */
export function applyTurnStart(st, seat, dice, rules) {
  const x = st.seats[seat];
  for (const v of dice) {
    if (x.rolls.length < rules.roll_store_cap) x.rolls.push(v);
    if (v === 6 && x.exit_credits < rules.exit_credit_cap) x.exit_credits += 1;
  }
}

/** Rule 4.3: the rolls a plan uses leave the store (oldest of each value first). */
export function removePlanRolls(st, seat, plan) {
  const x = st.seats[seat];
  for (const rolls of Object.values(plan?.moves ?? {})) {
    for (const v of rolls) {
      const i = x.rolls.indexOf(v);
      if (i >= 0) x.rolls.splice(i, 1);
    }
  }
}

/**
 * Applies one engine event (crates/engine/src/event.rs) to the state. Every piece
 * movement, capture and point change of a turn is an event, so applying a turn's
 * events in order gives the position after it.
 */
export function applyEvent(st, ev) {
  const x = st.seats[ev.seat];
  switch (ev.type) {
    case 'exit':
      x.pieces[ev.piece] = ev.to;
      x.exit_credits = Math.max(0, x.exit_credits - 1);
      break;
    case 'move': {
      const last = ev.path[ev.path.length - 1];
      for (const p of ev.pieces) x.pieces[p] = last;
      break;
    }
    case 'blocked':
      x.combat -= ev.penalty;
      break;
    case 'capture': {
      const v = st.seats[ev.captured_seat];
      v.pieces[ev.captured] = 'yard';
      v.glowing.delete(ev.captured);
      v.progress[ev.captured] = 0;
      x.combat += ev.points;
      break;
    }
    case 'royal_captured':
      x.rolls = [];
      x.exit_credits = ev.exit_credits;
      break;
    case 'checkpoint':
      x.progress[ev.piece] += ev.points;
      break;
    case 'midpoint':
      x.progress[ev.piece] += ev.points;
      x.glowing.add(ev.piece);
      break;
    case 'home':
      x.pieces[ev.piece] = 'home';
      x.progress[ev.piece] += ev.points;
      break;
    case 'finished':
      x.finished = ev.place;
      x.bonus += ev.bonus;
      break;
    default:
      break;
  }
}

/** Rule 8.1: a seat's total = progress + combat + bonus. */
export function seatTotals(st, seat) {
  const x = st.seats[seat];
  const progress = PIECES.reduce((a, p) => a + x.progress[p], 0);
  return { seat, progress, combat: x.combat, bonus: x.bonus, total: progress + x.combat + x.bonus, finished: x.finished };
}

/** Rule 9.2: standings, best first; equal totals share a place; ties keep seat order. */
export function standings(st) {
  const rows = SEATS.map((s) => seatTotals(st, s));
  rows.sort((a, b) => b.total - a.total);
  rows.forEach((r, i) => {
    r.place = i > 0 && r.total === rows[i - 1].total ? rows[i - 1].place : i + 1;
  });
  return rows;
}

/** The entry tile of a seat as a location string. */
export function entryLoc(seat) {
  return `ring:${entry(seat)}`;
}

