// Board geometry and the RULES.md §11 notation, ported from crates/engine/src/board.rs.
// Pure functions, no DOM: used by the board view, the plan preview and the replay.

/** Seats in turn order (rule 1.1). */
export const SEATS = ['green', 'red', 'blue', 'yellow'];
/** Pieces of a seat in notation order (rule 1.2). */
export const PIECES = ['G1', 'G2', 'G3', 'G4', 'R'];
/** The four guardians. */
export const GUARDIANS = ['G1', 'G2', 'G3', 'G4'];
/** Rule 2.1: ring length in tiles. */
export const RING_LEN = 68;
/** Rule 2.5: home-path length in tiles. */
export const HOME_PATH_LEN = 7;
/** Rule 2.4: the eight forts (ring indices). */
export const FORTS = [7, 12, 24, 29, 41, 46, 58, 63];

/** Rule 2.2: a seat's entry tile (ring index): green 0, red 17, blue 34, yellow 51. */
export function entry(seat) {
  return SEATS.indexOf(seat) * 17;
}

/** Rule 2.3: a seat's midpoint (ring index) = the opposite seat's entry tile. */
export function midpoint(seat) {
  return (entry(seat) + 34) % RING_LEN;
}

/** True when ring index `r` is a fort (rule 2.4). */
export function isFort(r) {
  return FORTS.includes(r);
}

/** The seat whose entry tile is ring index `r`, or null. */
export function owningEntry(r) {
  return r % 17 === 0 ? SEATS[r / 17] : null;
}

/**
 * Parses a location string ("yard", "ring:N", "hp:N", "home") into
 * {kind: 'yard'|'ring'|'hp'|'home', n}. Throws on anything else.
 */
export function parseLoc(s) {
  if (s === 'yard' || s === 'home') return { kind: s, n: 0 };
  const m = /^(ring|hp):(\d{1,2})$/.exec(s);
  if (m) {
    const n = Number(m[2]);
    if (m[1] === 'ring' && n < RING_LEN) return { kind: 'ring', n };
    if (m[1] === 'hp' && n >= 1 && n <= HOME_PATH_LEN) return { kind: 'hp', n };
  }
  throw new Error(`bad location ${JSON.stringify(s)}`);
}

/** Formats a parsed location back into its notation string. */
export function fmtLoc(l) {
  return l.kind === 'yard' || l.kind === 'home' ? l.kind : `${l.kind}:${l.n}`;
}

/**
 * Rule 3.1: one step of a piece of `seat` from location string `from` in direction
 * `dir` ('forward'|'backward'), given whether it glows and whether it is the royal.
 * Returns the next location string, or null when the piece cannot step (a guardian
 * in the Yard, or a piece at Home). A royal in the Yard steps onto its entry tile.
 */
export function step(seat, from, dir, glowing, royal) {
  const e = entry(seat);
  const l = parseLoc(from);
  switch (l.kind) {
    case 'yard':
      return royal ? `ring:${e}` : null;
    case 'home':
      return null;
    case 'hp':
      return l.n >= HOME_PATH_LEN ? 'home' : `hp:${l.n + 1}`;
    default: {
      const r = l.n;
      if (dir === 'forward') {
        if (glowing && r === (e + 63) % RING_LEN) return 'hp:1';
        return `ring:${(r + 1) % RING_LEN}`;
      }
      if (glowing && r === e) return 'hp:4';
      return `ring:${(r + RING_LEN - 1) % RING_LEN}`;
    }
  }
}

/**
 * Rule 2.6: the player-relative tile number of location string `loc` for `seat` in
 * `dir`, or null where the numbering has none (Yard; forward ring E+64..E+67;
 * backward HP1..HP3). Forward: ring 1..64, HP 65..71, Home 72. Backward: ring 1..69
 * (the entry tile is 1), HP4..HP7 70..73, Home 74.
 */
export function relativeTile(seat, loc, dir) {
  const e = entry(seat);
  const l = parseLoc(loc);
  if (l.kind === 'yard') return null;
  if (l.kind === 'ring') {
    if (dir === 'forward') {
      const t = ((l.n - e + RING_LEN) % RING_LEN) + 1;
      return t <= 64 ? t : null;
    }
    return ((e - l.n + RING_LEN) % RING_LEN) + 1;
  }
  if (l.kind === 'hp') {
    if (dir === 'forward') return 64 + l.n;
    return l.n >= 4 ? 66 + l.n : null;
  }
  return dir === 'forward' ? 72 : 74;
}

/**
 * Rule 3.1/3.2/3.3 path of one piece moving `steps` steps: every location entered,
 * in order. The piece starts glowing when it reaches its midpoint (rule 3.2); steps
 * after Home are lost (rule 3.3). Captures and blockades are not simulated (the
 * server decides them): this is a preview only. Returns {path, glowing}.
 */
export function simulatePath(seat, from, steps, dir, glowing, royal) {
  const path = [];
  let cur = from;
  let glow = glowing;
  const mid = `ring:${midpoint(seat)}`;
  for (let i = 0; i < steps; i++) {
    const next = step(seat, cur, dir, glow, royal);
    if (next === null) break;
    path.push(next);
    cur = next;
    if (cur === mid) glow = true;
    if (cur === 'home') break;
  }
  return { path, glowing: glow };
}

/** A short human label for a location: "yard", "Home", "tile 12", "HP3 (tile 67)". */
export function describeLoc(seat, loc, dir) {
  const l = parseLoc(loc);
  if (l.kind === 'yard') return 'Yard';
  if (l.kind === 'home') return 'Home';
  const t = relativeTile(seat, loc, dir);
  if (l.kind === 'hp') return t === null ? `HP${l.n}` : `HP${l.n} (tile ${t})`;
  return t === null ? `ring ${l.n}` : `tile ${t}`;
}
