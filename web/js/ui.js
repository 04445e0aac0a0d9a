// Small DOM helpers shared by the live match and the replay viewer: scoreboards,
// standings tables and plan text.

import { SEATS, GUARDIANS } from './notation.js';

/** "green" → "Green". */
export const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : '');

function cell(tr, text, tag = 'td', cls = '') {
  const c = document.createElement(tag);
  c.textContent = String(text);
  if (cls) c.className = cls;
  if (tag === 'th') c.scope = 'row';
  tr.append(c);
  return c;
}

function seatCell(tr, seat, names, you) {
  const c = document.createElement('th');
  c.scope = 'row';
  const dot = document.createElement('span');
  dot.className = `dot dot-${seat}`;
  dot.setAttribute('aria-hidden', 'true');
  c.append(dot, ` ${cap(seat)}`);
  if (names?.[seat]) {
    const n = document.createElement('span');
    n.className = 'small name';
    n.textContent = ` ${names[seat]}${you === seat ? ' (you)' : ''}`;
    c.append(n);
  }
  tr.append(c);
}

/**
 * The scoreboard in seat order: place, seat and player, progress, combat, bonus,
 * total (rule 8.1), the roll store and exit credits. `rows` are standings
 * ({seat, place, progress, combat, bonus, total}); `state` gives rolls and credits.
 */
export function renderScoreboard(tbody, rows, state, names, toMove, you) {
  tbody.replaceChildren();
  for (const seat of SEATS) {
    const r = rows.find((x) => x.seat === seat);
    if (!r) continue;
    const tr = document.createElement('tr');
    tr.dataset.seat = seat;
    if (seat === toMove) tr.className = 'to-move';
    cell(tr, r.place);
    seatCell(tr, seat, names, you);
    cell(tr, r.progress, 'td', 'num');
    cell(tr, r.combat, 'td', 'num');
    cell(tr, r.bonus, 'td', 'num');
    cell(tr, r.total, 'td', 'num total');
    const st = state?.seats?.[seat];
    cell(tr, st ? st.rolls.join(' ') || '–' : '', 'td', 'rolls');
    cell(tr, st ? st.exit_credits : '', 'td', 'num');
    tbody.append(tr);
  }
}

/** Final standings, best first (rule 9.2). */
export function renderStandings(tbody, rows, names, you) {
  tbody.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement('tr');
    tr.dataset.seat = r.seat;
    tr.dataset.total = String(r.total);
    tr.dataset.place = String(r.place);
    cell(tr, r.place);
    seatCell(tr, r.seat, null, null);
    cell(tr, `${names?.[r.seat] ?? ''}${you === r.seat ? ' (you)' : ''}`);
    cell(tr, r.progress, 'td', 'num');
    cell(tr, r.combat, 'td', 'num');
    cell(tr, r.bonus, 'td', 'num');
    cell(tr, r.total, 'td', 'num total');
    tbody.append(tr);
  }
}

/** A plan in words: "forward · exit G1 · G2 ← 3+4 · royal 5 (first)". */
export function planText(plan) {
  if (!plan) return 'pass';
  const parts = [plan.direction ?? 'forward'];
  if (plan.exits?.length) parts.push(`exit ${plan.exits.join(', ')}`);
  for (const g of GUARDIANS) if (plan.moves?.[g]?.length) parts.push(`${g} ← ${plan.moves[g].join('+')}`);
  if (plan.royal) parts.push(`royal ${plan.royal}${plan.royal_first ? ' (first)' : ''}`);
  return parts.length === 1 ? 'pass' : parts.join(' · ');
}

/** m:ss from milliseconds (never negative). */
export function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
