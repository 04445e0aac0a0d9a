// Small DOM helpers shared by the live match and the replay viewer: scoreboards,
// standings tables and plan text, in the current language (i18n.js); the seats' shapes.

import { SEATS, GUARDIANS } from './notation.js';
import { t, num, numList, seatName } from './i18n.js';

/** Shape drawn with each seat's colour, so seats differ without colour too. */
export const SEAT_SHAPES = { green: 'circle', red: 'square', blue: 'diamond', yellow: 'triangle' };

/** A cell; `label` (the column's name) is shown before it when narrow tables reflow. */
function cell(tr, text, tag = 'td', cls = '', label = '') {
  const c = document.createElement(tag);
  c.textContent = typeof text === 'number' ? num(text) : String(text);
  if (cls) c.className = cls;
  if (label) c.dataset.label = t(label);
  if (c instanceof HTMLTableCellElement && tag === 'th') c.scope = 'row';
  tr.append(c);
  return c;
}

function seatCell(tr, seat, names, you, away) {
  const c = document.createElement('th');
  c.scope = 'row';
  const dot = document.createElement('span');
  dot.className = `dot dot-${seat} shape-${SEAT_SHAPES[seat]}`;
  dot.setAttribute('aria-hidden', 'true');
  c.append(dot, ` ${seatName(seat)}`);
  if (names?.[seat]) {
    const n = document.createElement('span');
    n.className = 'small name';
    n.textContent = you === seat ? t('player.you', { name: names[seat] }) : names[seat];
    c.append(n);
  }
  if (away?.has(seat)) {
    const a = document.createElement('span');
    a.className = 'small away';
    a.textContent = t('seat.away');
    c.append(a);
  }
  tr.append(c);
}

/**
 * The scoreboard in seat order: place, seat and player, progress, combat, bonus,
 * total (rule 8.1), the roll store and exit credits. `rows` are standings
 * ({seat, place, progress, combat, bonus, total}); `state` gives rolls and credits;
 * `away` (a Set, live play only) the seats marked away (proto/README.md §6.2).
 */
export function renderScoreboard(tbody, rows, state, names, toMove, you, away) {
  tbody.replaceChildren();
  for (const seat of SEATS) {
    const r = rows.find((x) => x.seat === seat);
    if (!r) continue;
    const tr = document.createElement('tr');
    tr.dataset.seat = seat;
    tr.dataset.total = String(r.total);
    if (seat === toMove) tr.className = 'to-move';
    cell(tr, r.place, 'td', '', 'col.place');
    seatCell(tr, seat, names, you, away);
    cell(tr, r.progress, 'td', 'num', 'col.progress');
    cell(tr, r.combat, 'td', 'num', 'col.combat');
    cell(tr, r.bonus, 'td', 'num', 'col.bonus');
    cell(tr, r.total, 'td', 'num total', 'col.total');
    const st = state?.seats?.[seat];
    cell(tr, st ? numList(st.rolls, ' ') || '–' : '', 'td', 'rolls', 'col.rolls');
    cell(tr, st ? st.exit_credits : '', 'td', 'num', 'col.exitCredits');
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
    cell(tr, r.place, 'td', '', 'col.place');
    seatCell(tr, r.seat, null, null);
    const name = you === r.seat ? t('player.you', { name: names?.[r.seat] ?? '' }) : names?.[r.seat] ?? '';
    cell(tr, r.left ? `${name} (${t('standing.left')})` : name);
    cell(tr, r.progress, 'td', 'num', 'col.progress');
    cell(tr, r.combat, 'td', 'num', 'col.combat');
    cell(tr, r.bonus, 'td', 'num', 'col.bonus');
    cell(tr, r.total, 'td', 'num total', 'col.total');
    tbody.append(tr);
  }
}

/**
 * The bot levels' ratings (`GET /api/v1/leaderboard/bots`, `bots`) as table rows, in
 * the answer's order (journey then clash, best rating first): a heading row per mode
 * ("Journey · 500 matches between bots"), then a row per level: level, rating
 * (μ − 3σ), μ, σ. One row saying so when there are none.
 * @param {HTMLTableSectionElement} tbody
 * @param {Array<{mode: string, level: string, rating: {mu: number, sigma: number, conservative: number}, matches: number}>} rows
 * @param {(x: number) => string} rating formats a rating (one decimal, in the language)
 */
export function renderBotBoard(tbody, rows, rating) {
  tbody.replaceChildren();
  const wide = (text, cls = '') => {
    const tr = document.createElement('tr');
    if (cls) tr.className = cls;
    const th = Object.assign(document.createElement('th'), { colSpan: 4, scope: 'colgroup', textContent: text });
    tr.append(th);
    tbody.append(tr);
  };
  if (!rows.length) wide(t('home.noBotRatings'));
  let mode = null;
  for (const r of rows) {
    if (r.mode !== mode) {
      mode = r.mode;
      wide(t('home.botsMode', { mode: t(`mode.${r.mode}`), n: r.matches }), 'group');
    }
    const tr = document.createElement('tr');
    tr.dataset.mode = r.mode;
    tr.dataset.level = r.level;
    cell(tr, t(`level.${r.level}`), 'th', '', 'col.level');
    cell(tr, rating(r.rating.conservative), 'td', 'num total', 'col.rating');
    cell(tr, rating(r.rating.mu), 'td', 'num', 'col.mu');
    cell(tr, rating(r.rating.sigma), 'td', 'num', 'col.sigma');
    tbody.append(tr);
  }
}

/** A plan in words: "Forward · exit G1 · G2 ← 3+4 · royal 5 (first)". */
export function planText(plan) {
  if (!plan) return t('plan.pass');
  const parts = [t(`dir.${plan.direction ?? 'forward'}`)];
  if (plan.exits?.length) parts.push(t('plan.textExit', { pieces: plan.exits.join(', ') }));
  for (const g of GUARDIANS) if (plan.moves?.[g]?.length) parts.push(`${g} ← ${numList(plan.moves[g], '+')}`);
  if (plan.royal) parts.push(t(plan.royal_first ? 'plan.textRoyalFirst' : 'plan.textRoyal', { n: plan.royal }));
  return parts.length === 1 ? t('plan.pass') : parts.join(' · ');
}
