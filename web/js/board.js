// The board drawn in SVG: the 68-tile ring (a circle, forward = clockwise) with the
// eight forts, four yards in the corners, four home paths towards the centre and the
// Homes, pieces with G1–G4/R labels, glow, player-relative tile numbers (rule 2.6)
// for the viewing seat and direction, plan previews and turn animations.
// Accessibility: every tile and piece has an accessible name (seat, piece, tile in
// the viewer's numbering); the viewing seat's selectable pieces are buttons that
// take the keyboard focus; each seat's pieces have their own shape besides their
// colour (green circle, red square, blue diamond, yellow triangle).
// Touch: a tap on a stack (or on crowded pieces of a zoomed-out board) fans the
// player's pieces out in a small panel of 52 px buttons; the board zooms by pinch,
// ctrl + wheel, the + − 0 keys and the buttons under it (`setZoom`, `zoomLevels`).

import { SEATS, PIECES, RING_LEN, FORTS, entry, midpoint, parseLoc, relativeTile, owningEntry } from './notation.js';
import { applyEvent } from './state.js';
import { t, num, seatName, seatOf } from './i18n.js';
import { SEAT_SHAPES } from './ui.js';

const NS = 'http://www.w3.org/2000/svg';
const C = 500; // centre of the 1000×1000 view box
const R_RING = 372; // ring radius
const TILE_R = 15; // ring tile radius
const HP_GAP = 41; // distance between home-path tiles
const PIECE_R = 13;
const STACK = 25; // distance between stacked pieces on a tile
const TARGET_R = 17; // a destination marker: 34 units, 45 CSS px at the tap zoom
const A = (2 * Math.PI) / RING_LEN;

/** Seat colours (text colour chosen for contrast). */
export const COLORS = {
  green: { fill: '#17823a', tint: '#cdebd5', text: '#ffffff' },
  red: { fill: '#c62828', tint: '#f6d0d0', text: '#ffffff' },
  blue: { fill: '#1f57c3', tint: '#d0dcf6', text: '#ffffff' },
  yellow: { fill: '#f2c200', tint: '#fbefb8', text: '#1a1a1a' },
};

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * SVG path of a seat's piece shape of "radius" `r` centred on 0,0: circle (green),
 * square (red), diamond (blue), triangle (yellow).
 */
export function shapePath(seat, r) {
  switch (SEAT_SHAPES[seat]) {
    case 'square': {
      const a = r * 0.9;
      return `M ${-a} ${-a} H ${a} V ${a} H ${-a} Z`;
    }
    case 'diamond': {
      const a = r * 1.25;
      return `M 0 ${-a} L ${a} 0 L 0 ${a} L ${-a} 0 Z`;
    }
    case 'triangle': {
      const a = r * 1.45;
      return `M 0 ${-a} L ${a * 0.95} ${a * 0.62} L ${-a * 0.95} ${a * 0.62} Z`;
    }
    default:
      return `M ${-r} 0 A ${r} ${r} 0 1 0 ${r} 0 A ${r} ${r} 0 1 0 ${-r} 0 Z`;
  }
}

/**
 * One board view bound to an `<svg>` element. `viewSeat` decides the rotation
 * (that seat's yard bottom-left) and the tile numbering; `direction` the numbering.
 */
export class Board {
  /**
   * @param {SVGSVGElement} svg
   * @param {{ onPieceClick?: (seat: string, piece: string) => void, onZoom?: (zoom: number) => void,
   *   zoomable?: boolean }} [options]
   */
  constructor(svg, { onPieceClick, onZoom, zoomable = false } = {}) {
    this.svg = svg;
    this.onZoom = onZoom;
    this.pos = new Map(); // "seat/piece" -> [x, y] where it is drawn (view-box units)
    this.groupOf = new Map(); // "seat/piece" -> the key of the pieces sharing its place
    this.hitR = 66; // a selectable piece's touch radius (view-box units)
    this.fan = null; // the open fan of a stack: {el, keys}
    this.planned = new Set(); // "seat/piece" of own pieces already in the plan
    this.viewSeat = 'green';
    this.direction = 'forward';
    this.onPieceClick = onPieceClick;
    this.pieceEls = new Map(); // "seat/piece" -> <g>
    this.selectable = new Set(); // pieces (of viewSeat) the user may click
    this.selected = null;
    this.stepMs = 110;
    this.zoom = 1;
    svg.setAttribute('viewBox', '0 0 1000 1000');
    svg.setAttribute('role', 'group');
    svg.classList.add('board');
    // Keyboard: Enter or Space on a focused selectable piece chooses it.
    svg.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      const target = /** @type {Element} */ (e.target);
      const dest = /** @type {(Element & { pick?: () => void }) | null} */ (target.closest('.target'));
      if (dest) {
        e.preventDefault();
        dest.pick?.();
        return;
      }
      const g = /** @type {SVGElement | null} */ (target.closest('.piece.selectable'));
      if (!g) return;
      e.preventDefault();
      this.onPieceClick?.(g.dataset.seat, g.dataset.piece);
    });
    // A tap on the board away from the pieces closes an open fan.
    svg.addEventListener('click', (e) => {
      if (this.fan && !/** @type {Element} */ (e.target).closest('.piece')) this.closeFan();
    });
    this.build();
    if (zoomable) this.bindZoom();
  }

  /** Angle of ring index `i` (may be fractional), radians; forward runs clockwise. */
  angle(i) {
    return Math.PI / 2 + (i - (entry(this.viewSeat) - 2.5)) * A;
  }

  /** Angle of a seat's home path (between ring E−5, its forward tile 64, and E). */
  seatAngle(seat) {
    return this.angle(entry(seat) - 2.5);
  }

  /** Centre point of a location of `seat`'s piece (yard: the yard's centre). */
  point(seat, loc) {
    const l = typeof loc === 'string' ? parseLoc(loc) : loc;
    if (l.kind === 'ring') {
      const a = this.angle(l.n);
      return [C + R_RING * Math.cos(a), C + R_RING * Math.sin(a)];
    }
    const a = this.seatAngle(seat);
    if (l.kind === 'hp') {
      const r = R_RING - HP_GAP * l.n;
      return [C + r * Math.cos(a), C + r * Math.sin(a)];
    }
    if (l.kind === 'home') return [C + 38 * Math.cos(a), C + 38 * Math.sin(a)];
    const ya = a + Math.PI / 4;
    return [C + 566 * Math.cos(ya), C + 566 * Math.sin(ya)];
  }

  build() {
    const svg = this.svg;
    svg.replaceChildren();
    const defs = el('defs', {}, svg);
    const f = el('filter', { id: `glow-${svg.id}`, x: '-80%', y: '-80%', width: '260%', height: '260%' }, defs);
    el('feGaussianBlur', { stdDeviation: 5, result: 'b' }, f);
    const m = el('feMerge', {}, f);
    el('feMergeNode', { in: 'b' }, m);
    el('feMergeNode', { in: 'SourceGraphic' }, m);
    el('rect', { x: 0, y: 0, width: 1000, height: 1000, rx: 24, class: 'board-bg' }, svg);
    this.gStatic = el('g', {}, svg);
    this.gLabels = el('g', { class: 'tile-labels', 'aria-hidden': 'true' }, svg);
    this.gPreview = el('g', { class: 'preview' }, svg);
    this.gPieces = el('g', { class: 'pieces' }, svg);
    this.gTargets = el('g', { class: 'targets' }, svg);
    this.gFx = el('g', { class: 'fx', 'aria-hidden': 'true' }, svg);
    this.pieceEls.clear();
    this.drawStatic();
    this.drawLabels();
  }

  drawStatic() {
    const g = this.gStatic;
    g.replaceChildren();
    // Yards in the corners.
    for (const s of SEATS) {
      const [x, y] = this.point(s, 'yard');
      const yg = el('g', { class: `yard yard-${s}` }, g);
      el('path', { d: shapePath(s, 11), transform: `translate(${x - 78} ${y + (y > C ? 78 : -78)})`, fill: COLORS[s].fill, class: 'yard-shape', 'aria-hidden': 'true' }, yg);
      const tx = el('text', { x, y: y + (y > C ? 84 : -72), class: 'yard-name', 'text-anchor': 'middle', 'aria-hidden': 'true' }, yg);
      tx.textContent = this.seatNames?.[s] ?? seatName(s);
      fitText(tx, YARD_TEXT_MAX);
      const r = el('rect', { x: x - 92, y: y - 92, width: 184, height: 184, rx: 18, fill: COLORS[s].tint, stroke: COLORS[s].fill, 'stroke-width': 4, role: 'img', 'aria-label': t('board.yardOf', { seat: seatOf(s), name: this.seatNames?.[s] ?? '' }) });
      yg.prepend(r);
    }
    // Centre: the four Homes.
    for (const s of SEATS) {
      const a = this.seatAngle(s);
      const a0 = a - Math.PI / 4;
      const a1 = a + Math.PI / 4;
      const r = 66;
      const d = `M ${C} ${C} L ${C + r * Math.cos(a0)} ${C + r * Math.sin(a0)} A ${r} ${r} 0 0 1 ${C + r * Math.cos(a1)} ${C + r * Math.sin(a1)} Z`;
      el('path', { d, fill: COLORS[s].fill, class: 'home-wedge', role: 'img', 'aria-label': t('board.homeOf', { seat: seatOf(s) }) }, g);
    }
    // Home paths.
    for (const s of SEATS) {
      for (let k = 1; k <= 7; k++) {
        const [x, y] = this.point(s, `hp:${k}`);
        el('rect', { x: x - 15, y: y - 15, width: 30, height: 30, rx: 6, fill: COLORS[s].tint, stroke: COLORS[s].fill, 'stroke-width': 2.5, class: 'hp-tile', role: 'img', 'data-seat': s, 'data-hp': k }, g);
      }
    }
    // The ring.
    for (let i = 0; i < RING_LEN; i++) {
      const [x, y] = this.point(null, `ring:${i}`);
      const owner = owningEntry(i);
      const cls = ['tile'];
      let fill = '#fbfaf6';
      let stroke = '#8a8578';
      let sw = 1.5;
      if (owner) {
        fill = COLORS[owner].tint;
        stroke = COLORS[owner].fill;
        sw = 4;
        cls.push('entry');
      }
      if (FORTS.includes(i)) {
        cls.push('fort');
        const a = (this.angle(i) * 180) / Math.PI;
        el('rect', { x: x - 16, y: y - 16, width: 32, height: 32, rx: 3, fill: '#d9d4c4', stroke: '#4a4537', 'stroke-width': 3.5, transform: `rotate(${a + 45} ${x} ${y})`, class: cls.join(' '), role: 'img', 'data-ring': i }, g);
        // battlements: a small tower mark outside the ring
        const a2 = this.angle(i);
        const ox = C + (R_RING + 27) * Math.cos(a2);
        const oy = C + (R_RING + 27) * Math.sin(a2);
        el('path', { d: `M ${ox - 7} ${oy + 5} v -9 h 3 v 3 h 2.5 v -3 h 3 v 3 h 2.5 v -3 h 3 v 9 z`, class: 'fort-mark' }, g);
      } else {
        el('circle', { cx: x, cy: y, r: TILE_R, fill, stroke, 'stroke-width': sw, class: cls.join(' '), role: 'img', 'data-ring': i }, g);
      }
    }
    // Arrows showing the home-path entries of the viewing seat.
    const s = this.viewSeat;
    const [ax, ay] = this.point(s, `ring:${(entry(s) + 63) % RING_LEN}`);
    const [hx, hy] = this.point(s, 'hp:1');
    el('line', { x1: ax, y1: ay, x2: hx, y2: hy, class: 'hp-arrow' }, g);
  }

  /** Rule 2.6 numbers for the viewing seat and direction. */
  drawLabels() {
    const g = this.gLabels;
    g.replaceChildren();
    const s = this.viewSeat;
    const dir = this.direction;
    const mid = midpoint(s);
    for (let i = 0; i < RING_LEN; i++) {
      const rel = relativeTile(s, `ring:${i}`, dir);
      const [x, y] = this.point(null, `ring:${i}`);
      const text = el('text', { x, y: y + 4.5, 'text-anchor': 'middle', class: i === mid ? 'tile-num midpoint-num' : 'tile-num', 'data-ring': i }, g);
      text.textContent = rel === null ? '·' : num(rel);
    }
    for (let k = 1; k <= 7; k++) {
      const rel = relativeTile(s, `hp:${k}`, dir);
      const [x, y] = this.point(s, `hp:${k}`);
      const text = el('text', { x, y: y + 4.5, 'text-anchor': 'middle', class: 'tile-num', 'data-hp': k }, g);
      text.textContent = rel === null ? `H${num(k)}` : num(rel);
    }
    this.nameTiles();
  }

  /** Accessible names of the ring and home-path tiles, in the viewer's numbering. */
  nameTiles() {
    for (const e of this.gStatic.querySelectorAll('[data-ring]')) {
      e.setAttribute('aria-label', this.describe(null, `ring:${e.dataset.ring}`));
    }
    for (const e of this.gStatic.querySelectorAll('.hp-tile')) {
      e.setAttribute('aria-label', t('board.hpTileOf', { seat: seatName(e.dataset.seat), where: this.describe(e.dataset.seat, `hp:${e.dataset.hp}`) }));
    }
  }

  /** Sets the seat whose view (rotation, numbering) is drawn. */
  setViewSeat(seat) {
    if (seat === this.viewSeat) return;
    this.viewSeat = seat;
    this.build();
    if (this.state) this.render(this.state);
  }

  /** Sets the direction whose rule 2.6 numbers label the tiles. */
  setDirection(dir) {
    this.direction = dir;
    this.drawLabels();
  }

  /** Sets the players' names shown in the yards. */
  setSeatNames(names) {
    this.seatNames = names;
    this.drawStatic();
    this.nameTiles();
  }

  /** Redraws every text after a language switch. */
  relabel() {
    this.drawStatic();
    this.drawLabels();
    if (this.state) this.render(this.state);
  }

  pieceEl(seat, piece) {
    const key = `${seat}/${piece}`;
    let g = this.pieceEls.get(key);
    if (!g) {
      g = el('g', { class: `piece piece-${seat}`, 'data-seat': seat, 'data-piece': piece }, this.gPieces);
      const royal = piece === 'R';
      // A large transparent disc: a touch target of at least 44 CSS px on a phone.
      el('circle', { r: 66, class: 'hit' }, g);
      el('circle', { r: PIECE_R + 7, class: 'glow-ring', filter: `url(#glow-${this.svg.id})` }, g);
      if (royal) {
        // the royal: a larger shape with a gold rim and a crown above its label
        el('path', { d: shapePath(seat, PIECE_R + 2), fill: COLORS[seat].fill, class: 'piece-body royal-body' }, g);
        el('path', { d: 'M -7 -4 L -7 -11 L -3.5 -7.5 L 0 -12 L 3.5 -7.5 L 7 -11 L 7 -4 Z', class: 'crown' }, g);
      } else {
        el('path', { d: shapePath(seat, PIECE_R), fill: COLORS[seat].fill, class: 'piece-body' }, g);
      }
      const label = el('text', { y: royal ? 9 : SEAT_SHAPES[seat] === 'triangle' ? 8 : 4.5, 'text-anchor': 'middle', fill: COLORS[seat].text, class: 'piece-label', 'aria-hidden': 'true' }, g);
      label.textContent = piece;
      // (no <title>: the aria-label names it; a title counts as visible text that
      // axe-core's label-content-name-mismatch then finds outside the name)
      g.addEventListener('click', (e) => this.tapPiece(seat, piece, e));
      this.pieceEls.set(key, g);
    }
    return g;
  }

  /** Where each piece is drawn: pieces sharing a location are stacked. */
  layout(pieces) {
    const groups = new Map();
    for (const [seat, map] of Object.entries(pieces)) {
      for (const [piece, loc] of Object.entries(map)) {
        const l = parseLoc(loc);
        const key = l.kind === 'ring' ? loc : `${seat}:${loc}`;
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push({ seat, piece, l });
      }
    }
    const out = new Map();
    this.groupOf = new Map();
    for (const [gk, list] of groups) {
      // (a Yard's and a Home's pieces have their own places: not a stack)
      for (const it of list) this.groupOf.set(`${it.seat}/${it.piece}`, it.l.kind === 'yard' || it.l.kind === 'home' ? `${it.seat}/${it.piece}` : gk);
      list.sort((a, b) => SEATS.indexOf(a.seat) - SEATS.indexOf(b.seat) || PIECES.indexOf(a.piece) - PIECES.indexOf(b.piece));
      const { seat, l } = list[0];
      if (l.kind === 'yard') {
        const [x, y] = this.point(seat, l);
        for (const it of list) {
          const slot = { G1: [-34, -34], G2: [34, -34], G3: [-34, 34], G4: [34, 34], R: [0, 0] }[it.piece];
          out.set(`${it.seat}/${it.piece}`, [x + slot[0], y + slot[1]]);
        }
        continue;
      }
      if (l.kind === 'home') {
        // up to five small pieces in the seat's wedge of the centre: 3 outer, 2 inner
        const a = this.seatAngle(seat);
        const slots = [[50, -19], [50, 0], [50, 19], [27, -9], [27, 9]];
        list.forEach((it, k) => {
          const [r, t] = slots[k % 5];
          const x = C + r * Math.cos(a) - t * Math.sin(a);
          const y = C + r * Math.sin(a) + t * Math.cos(a);
          out.set(`${it.seat}/${it.piece}`, [x, y, 0.62]);
        });
        continue;
      }
      const [x, y] = this.point(seat, l);
      let ux;
      let uy; // unit vector along which to stack
      if (l.kind === 'ring') {
        const a = this.angle(l.n);
        ux = Math.cos(a);
        uy = Math.sin(a);
      } else {
        const a = this.seatAngle(seat) + Math.PI / 2;
        ux = Math.cos(a);
        uy = Math.sin(a);
      }
      const gap = STACK;
      list.forEach((it, k) => {
        // 0, +1, −1, +2, −2 … (ring: outward first)
        const off = k === 0 ? 0 : (k % 2 === 1 ? 1 : -1) * Math.ceil(k / 2) * gap;
        out.set(`${it.seat}/${it.piece}`, [x + ux * off, y + uy * off]);
      });
    }
    return out;
  }

  /** Draws every piece of `state` at its place (no animation). */
  render(state, pieces = null) {
    this.state = state;
    const map = pieces ?? Object.fromEntries(SEATS.map((s) => [s, state.seats[s].pieces]));
    const pos = this.layout(map);
    // A selectable piece's touch target: 46 CSS px across at the board's scale, at
    // least its tile (34 units) so that neighbours' targets do not swallow it.
    const k = this.svg.clientWidth / 1000;
    const hitR = k ? Math.max(17, Math.min(66, 23 / k)) : 66;
    this.hitR = hitR;
    this.pos = pos;
    for (const s of SEATS) {
      for (const p of PIECES) {
        const g = this.pieceEl(s, p);
        const xy = pos.get(`${s}/${p}`);
        if (!xy) continue;
        g.style.transform = `translate(${xy[0]}px, ${xy[1]}px)${xy[2] ? ` scale(${xy[2]})` : ''}`;
        const loc = map[s][p];
        const glowing = state.seats[s].glowing.has(p);
        g.classList.toggle('glowing', glowing && loc !== 'home');
        const selectable = this.selectable.has(`${s}/${p}`);
        g.classList.toggle('selectable', selectable);
        g.classList.toggle('selected', this.selected === `${s}/${p}`);
        g.classList.toggle('fanned', !!this.fan?.keys.includes(`${s}/${p}`));
        const name = t(glowing ? 'board.pieceGlowing' : 'board.piece', { seat: seatName(s), piece: pieceName(p), where: this.describe(s, loc) });
        g.setAttribute('aria-label', name);
        if (selectable) {
          g.querySelector('.hit').setAttribute('r', hitR);
          g.setAttribute('role', 'button');
          g.setAttribute('tabindex', '0');
          g.setAttribute('aria-pressed', String(this.selected === `${s}/${p}`));
        } else {
          g.setAttribute('role', 'img');
          g.removeAttribute('tabindex');
          g.removeAttribute('aria-pressed');
        }
      }
    }
    this.svg.setAttribute('aria-label', this.summary(state));
  }

  /** A location as the viewing player reads it (rule 2.6 numbers). */
  describe(seat, loc) {
    const l = parseLoc(loc);
    if (l.kind === 'yard') return t('loc.yard');
    if (l.kind === 'home') return t('loc.home');
    if (l.kind === 'hp') {
      const rel = seat === this.viewSeat ? relativeTile(seat, loc, this.direction) : null;
      return rel === null ? t('loc.hp', { k: l.n }) : t('loc.hpTile', { k: l.n, n: rel });
    }
    const rel = relativeTile(this.viewSeat, loc, this.direction);
    const fort = FORTS.includes(l.n);
    if (rel === null) return t(fort ? 'loc.ringFort' : 'loc.ring', { n: l.n });
    return t(fort ? 'loc.tileFort' : 'loc.tile', { n: rel });
  }

  summary(state) {
    const parts = SEATS.map((s) => {
      const x = state.seats[s].pieces;
      const out = PIECES.filter((p) => x[p] !== 'yard').map((p) => `${pieceName(p)} ${this.describe(s, x[p])}`);
      return `${seatName(s)}: ${out.length ? out.join(', ') : t('board.allInYard')}`;
    });
    return `${t('board.summary', { seat: seatName(this.viewSeat), dir: t(`dir.${this.direction}`) })} ${parts.join('. ')}.`;
  }

  /** Which of the viewing seat's pieces may be clicked, and which is selected. */
  setSelectable(keys, selected, planned = []) {
    this.selectable = new Set(keys);
    this.planned = new Set(planned);
    this.selected = selected;
    if (this.fan && !this.fan.keys.every((k) => this.selectable.has(k))) this.closeFan();
    if (this.state) this.render(this.state);
  }

  /**
   * Draws plan previews: `paths` is a list of {seat, from, path, label} (location
   * strings); each is drawn as a dashed line with a ghost piece at the end.
   */
  showPreview(paths) {
    const g = this.gPreview;
    g.replaceChildren();
    for (const p of paths) {
      if (!p.path.length) continue;
      const pts = [p.from, ...p.path].map((l) => this.point(p.seat, l));
      el('polyline', { points: pts.map((q) => q.join(',')).join(' '), class: 'preview-path', stroke: COLORS[p.seat].fill }, g);
      const [x, y] = pts[pts.length - 1];
      el('circle', { cx: x, cy: y, r: PIECE_R + 3, class: 'preview-ghost', stroke: COLORS[p.seat].fill }, g);
      const t = el('text', { x, y: y - 20, 'text-anchor': 'middle', class: 'preview-label' }, g);
      t.textContent = p.label;
    }
  }

  /**
   * Legal destinations of the picked piece, drawn above the pieces as buttons
   * (`targets`: {seat, loc, text, label, warn}); `onPick(target.move)` on a tap,
   * Enter or Space. An empty list removes them.
   */
  showTargets(targets, onPick) {
    const g = this.gTargets;
    g.replaceChildren();
    for (const x of targets) {
      const [cx, cy] = this.point(x.seat, x.loc);
      const b = el('g', { class: `target${x.warn ? ' target-warn' : ''}`, role: 'button', tabindex: 0, 'aria-label': x.label, 'data-loc': x.loc, transform: `translate(${cx} ${cy})` }, g);
      el('circle', { r: TARGET_R, class: 'target-disc' }, b);
      const tx = el('text', { y: 6, 'text-anchor': 'middle', class: x.text.length > 2 ? 'target-text target-text-long' : 'target-text', 'aria-hidden': 'true' }, b);
      tx.textContent = x.text;
      b.pick = () => onPick?.(x.move);
      b.addEventListener('click', b.pick);
    }
  }

  // ----- zoom: pinch, ctrl+wheel, the + and − keys and buttons -----

  /** The element around the board (scrolls when the board is zoomed in). */
  get frame() {
    return this.svg.parentElement;
  }

  /** Zoomed in (the board wider than its frame, scrolled by touch) or not. */
  get zoomed() {
    return this.zoom > 1;
  }

  /**
   * The zoom that makes a ring tile (34 view-box units apart) about 45 CSS px apart
   * at the frame's width: at least 44 px tap targets where they are tapped.
   */
  tapZoom() {
    const w = this.frame?.clientWidth || 0;
    return w ? Math.max(1, (1000 * 45) / (34 * w)) : 1;
  }

  /**
   * The zoom steps of the + and − buttons and keys: the whole board, two steps up
   * to the tap zoom, the tap zoom, and a closer one where a ring tile itself (30
   * units across) is at least 58 CSS px wide. Pinching zooms anywhere in between.
   */
  zoomLevels() {
    const tz = this.tapZoom();
    const w = this.frame?.clientWidth || 1000;
    const top = Math.max(tz * 1.5, (1000 * 58) / (30 * w));
    const out = [1];
    for (const z of [tz / 2.25, tz / 1.5, tz, top]) if (z > out[out.length - 1] * 1.2) out.push(z);
    return out;
  }

  get maxZoom() {
    const l = this.zoomLevels();
    return l[l.length - 1];
  }

  /** One zoom step in (`dir` > 0) or out, about the middle of the frame. */
  zoomStep(dir) {
    const l = this.zoomLevels();
    const z = dir > 0 ? l.find((v) => v > this.zoom * 1.02) : [...l].reverse().find((v) => v < this.zoom / 1.02);
    if (z !== undefined) this.setZoom(z);
  }

  /**
   * Sets the zoom (1: the whole board fits its frame), keeping the board point under
   * `anchor` (CSS px from the frame's top-left corner; default its middle) in place.
   * `light`: during a pinch, only the size changes (the pieces are redrawn at its end).
   */
  setZoom(z, anchor = null, { light = false } = {}) {
    const frame = this.frame;
    z = Math.min(Math.max(z, 1), Math.max(1, this.maxZoom));
    if (z < 1.02) z = 1;
    const k0 = this.svg.clientWidth / 1000;
    const ax = anchor?.x ?? (frame?.clientWidth ?? 0) / 2;
    const ay = anchor?.y ?? (frame?.clientHeight ?? 0) / 2;
    const ux = k0 && frame ? (frame.scrollLeft + ax) / k0 : 500;
    const uy = k0 && frame ? (frame.scrollTop + ay) / k0 : 500;
    this.closeFan();
    this.zoom = z;
    this.svg.style.width = z > 1 ? `${z * 100}%` : '';
    this.svg.classList.toggle('zoomed', z > 1);
    if (frame) {
      const k1 = this.svg.clientWidth / 1000;
      frame.scrollLeft = ux * k1 - ax;
      frame.scrollTop = uy * k1 - ay;
    }
    if (light) return;
    if (this.state) this.render(this.state);
    this.onZoom?.(z);
  }

  toggleZoom() {
    this.setZoom(this.zoomed ? 1 : this.tapZoom());
  }

  /** At least the tap zoom (destinations of 44 px) where the frame needs it. */
  ensureTapZoom() {
    const tz = this.tapZoom();
    if (tz > 1.05 && this.zoom < tz * 0.98) this.setZoom(tz);
  }

  /**
   * Pinch (two fingers on the frame; the browser's own page zoom stays for the rest
   * of the page), ctrl + wheel (a trackpad's pinch) and, with the frame or a piece
   * focused, the keys + (or =), − and 0 (the whole board). One finger scrolls.
   */
  bindZoom() {
    const frame = this.frame;
    if (!frame) return;
    frame.classList.add('zoomable');
    let pinch = null;
    const at = (ts) => {
      const r = frame.getBoundingClientRect();
      return {
        x: (ts[0].clientX + ts[1].clientX) / 2 - r.left - frame.clientLeft,
        y: (ts[0].clientY + ts[1].clientY) / 2 - r.top - frame.clientTop,
        d: Math.hypot(ts[0].clientX - ts[1].clientX, ts[0].clientY - ts[1].clientY),
      };
    };
    frame.addEventListener('touchstart', (e) => {
      if (e.touches.length !== 2) return;
      pinch = { z0: this.zoom, d0: Math.max(at(e.touches).d, 1) };
      this.closeFan();
    }, { passive: true });
    frame.addEventListener('touchmove', (e) => {
      if (!pinch || e.touches.length !== 2) return;
      if (e.cancelable) e.preventDefault();
      const m = at(e.touches);
      this.setZoom((pinch.z0 * m.d) / pinch.d0, m, { light: true });
    }, { passive: false });
    const end = (e) => {
      if (!pinch || e.touches.length >= 2) return;
      pinch = null;
      this.setZoom(this.zoom);
    };
    frame.addEventListener('touchend', end);
    frame.addEventListener('touchcancel', end);
    frame.addEventListener('wheel', (e) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      const r = frame.getBoundingClientRect();
      this.setZoom(this.zoom * Math.exp(-e.deltaY / 200), { x: e.clientX - r.left, y: e.clientY - r.top });
    }, { passive: false });
    frame.addEventListener('keydown', (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'Escape' && this.fan) this.closeFan(true);
      else if (e.key === '+' || e.key === '=') this.zoomStep(1);
      else if (e.key === '-' || e.key === '_') this.zoomStep(-1);
      else if (e.key === '0') this.setZoom(1);
      else return;
      e.preventDefault();
    });
  }

  /** Scrolls the (zoomed) frame so that the middle of `points` (view-box units) is in its middle. */
  centerOn(points) {
    const frame = this.frame;
    if (!frame || !this.zoomed || !points.length) return;
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    const x = (Math.min(...xs) + Math.max(...xs)) / 2;
    const y = (Math.min(...ys) + Math.max(...ys)) / 2;
    const k = this.svg.clientWidth / 1000;
    frame.scrollTo({ left: x * k - frame.clientWidth / 2, top: y * k - frame.clientHeight / 2, behavior: 'instant' });
  }

  /** Scrolls the (zoomed) board frame so that `loc` of `seat` is in the middle. */
  scrollToLoc(seat, loc) {
    this.centerOn([this.point(seat, loc)]);
  }

  /** Where piece `key` ("seat/piece") is drawn, in view-box units. */
  piecePoint(key) {
    return this.pos.get(key) ?? null;
  }

  // ----- stacks: a tap on pieces sharing a tile fans them out -----

  /** A tap at `e` (client coordinates) in view-box units, or null (keyboard). */
  toBoard(e) {
    if (!e || (!e.clientX && !e.clientY)) return null;
    const m = this.svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    return [p.x, p.y];
  }

  /**
   * The own pieces a tap on `seat`/`piece` may mean: the selectable pieces sharing
   * its tile (a stack), and those whose touch discs cover the tapped point (pieces
   * crowded on neighbouring tiles when the board is small).
   */
  tapCandidates(seat, piece, e) {
    const group = this.groupOf.get(`${seat}/${piece}`);
    const out = new Set([...this.selectable].filter((k) => this.groupOf.get(k) === group));
    const pt = this.toBoard(e);
    if (pt) {
      for (const k of this.selectable) {
        const q = this.pos.get(k);
        if (q && Math.hypot(q[0] - pt[0], q[1] - pt[1]) <= this.hitR) out.add(k);
      }
    }
    const order = (k) => SEATS.indexOf(k.split('/')[0]) * 10 + PIECES.indexOf(k.split('/')[1]);
    return [...out].sort((a, b) => order(a) - order(b));
  }

  /** A tap on a piece: one own piece meant: it is chosen; several: they fan out. */
  tapPiece(seat, piece, e) {
    if (!this.onPieceClick) return;
    const keys = this.tapCandidates(seat, piece, e);
    if (keys.length > 1) {
      this.openFan(keys);
      return;
    }
    this.closeFan();
    if (keys.length === 1) {
      const [s, p] = keys[0].split('/');
      this.onPieceClick(s, p);
    }
  }

  /**
   * Fans out the stacked pieces `keys`: a small panel over the board next to the
   * stack, one 48 CSS px button per piece (its shape, colour and name), whatever the
   * zoom; a tap chooses that piece. Escape, ✕ or a tap elsewhere on the board closes it.
   */
  openFan(keys) {
    this.closeFan();
    const frame = this.frame;
    if (!frame) return;
    const fan = document.createElement('div');
    fan.className = 'fan';
    fan.setAttribute('role', 'group');
    const hid = `${this.svg.id}-fan-h`;
    fan.setAttribute('aria-labelledby', hid);
    const head = document.createElement('div');
    head.className = 'fan-head';
    const title = document.createElement('p');
    title.className = 'fan-title';
    title.id = hid;
    title.textContent = t('fan.title');
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'fan-close';
    close.textContent = '✕';
    close.setAttribute('aria-label', t('fan.close'));
    close.addEventListener('click', () => this.closeFan(true));
    head.append(title, close);
    const row = document.createElement('div');
    row.className = 'fan-row';
    for (const k of keys) {
      const [s, p] = k.split('/');
      const b = document.createElement('button');
      b.type = 'button';
      b.className = `fan-piece${this.planned.has(k) ? ' planned' : ''}`;
      b.dataset.seat = s;
      b.dataset.piece = p;
      const name = this.pieceEls.get(k)?.getAttribute('aria-label') || `${seatName(s)} ${pieceName(p)}`;
      b.setAttribute('aria-label', this.planned.has(k) ? t('fan.planned', { name }) : name);
      b.innerHTML = pieceSvg(s, p);
      b.addEventListener('click', () => {
        this.closeFan();
        this.pieceEls.get(k)?.focus({ preventScroll: true });
        this.onPieceClick?.(s, p);
      });
      row.append(b);
    }
    fan.append(head, row);
    frame.append(fan);
    this.fan = { el: fan, keys };
    for (const k of keys) this.pieceEls.get(k)?.classList.add('fanned');
    this.placeFan();
    row.querySelector('button')?.focus({ preventScroll: true });
  }

  /** Puts the open fan above its stack (below when there is no room), inside the board. */
  placeFan() {
    const { el, keys } = this.fan;
    const k = this.svg.clientWidth / 1000;
    const pts = keys.map((x) => this.pos.get(x)).filter(Boolean);
    if (!pts.length || !k) return;
    const r = PIECE_R + 8;
    const x0 = Math.min(...pts.map((p) => p[0])) - r;
    const x1 = Math.max(...pts.map((p) => p[0])) + r;
    const y0 = Math.min(...pts.map((p) => p[1])) - r;
    const y1 = Math.max(...pts.map((p) => p[1])) + r;
    const W = el.offsetWidth;
    const H = el.offsetHeight;
    const maxW = this.svg.clientWidth;
    const maxH = this.svg.clientHeight;
    const cx = ((x0 + x1) / 2) * k;
    const left = Math.max(4, Math.min(cx - W / 2, maxW - W - 4));
    let top = y0 * k - H - 12;
    const below = top < this.frame.scrollTop + 4;
    if (below) top = y1 * k + 12;
    top = Math.max(4, Math.min(top, maxH - H - 4));
    el.style.left = `${left}px`;
    el.style.top = `${top}px`;
    el.style.setProperty('--tip', `${Math.max(18, Math.min(W - 18, cx - left))}px`);
    el.classList.toggle('below', below);
    el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  /** Closes the fan (`refocus`: the focus goes back to the stack). */
  closeFan(refocus = false) {
    if (!this.fan) return;
    const { el, keys } = this.fan;
    this.fan = null;
    el.remove();
    for (const k of keys) this.pieceEls.get(k)?.classList.remove('fanned');
    if (refocus) this.pieceEls.get(keys[0])?.focus({ preventScroll: true });
  }

  clearPreview() {
    this.gPreview.replaceChildren();
  }

  /** A short floating text at a point (points, captures, blockades). */
  float(xy, text, cls, ms = 900) {
    const t = el('text', { x: xy[0], y: xy[1] - 18, 'text-anchor': 'middle', class: `fx-text ${cls}` }, this.gFx);
    t.textContent = text;
    setTimeout(() => t.remove(), ms);
  }

  mark(xy, cls, ms = 900) {
    const c = el('g', { class: `fx-mark ${cls}`, transform: `translate(${xy[0]} ${xy[1]})` }, this.gFx);
    el('circle', { r: 20 }, c);
    el('path', { d: 'M -10 -10 L 10 10 M 10 -10 L -10 10' }, c);
    setTimeout(() => c.remove(), ms);
  }

  /**
   * Animates `events` of one turn on `state` (mutating it event by event): moves
   * step along their path, captured pieces flash and go to their Yard, blockades,
   * points, the midpoint and Home are marked. `speed` is the milliseconds per step,
   * or a function asked before every event (so a backlog can hurry the animation);
   * 0 applies the remaining events at once.
   * @param {number | (() => number)} [speed]
   */
  async animate(state, events, speed = this.stepMs) {
    const ms = typeof speed === 'function' ? speed : () => speed;
    let i = 0;
    for (; i < events.length; i++) {
      const stepMs = ms();
      if (!stepMs) break;
      this.svg.style.setProperty('--step-ms', `${Math.round(stepMs * 0.9)}ms`);
      const ev = events[i];
      const seat = ev.seat;
      if (ev.type === 'move') {
        const map = Object.fromEntries(SEATS.map((s) => [s, { ...state.seats[s].pieces }]));
        for (const loc of ev.path) {
          if (!ms()) break;
          for (const p of ev.pieces) map[seat][p] = loc;
          this.render(state, map);
          await sleep(stepMs);
        }
        applyEvent(state, ev);
      } else if (ev.type === 'capture') {
        const g = this.pieceEl(ev.captured_seat, ev.captured);
        g.classList.add('captured');
        this.float(this.point(ev.captured_seat, ev.tile), `✕ +${num(ev.points)}`, 'fx-capture');
        await sleep(stepMs * 3);
        g.classList.remove('captured');
        applyEvent(state, ev);
        this.render(state);
      } else if (ev.type === 'blocked') {
        this.mark(this.point(seat, ev.tile), 'fx-blocked', stepMs * 6);
        if (ev.penalty) this.float(this.point(seat, ev.at), t('fx.blocked', { n: ev.penalty }), 'fx-penalty');
        applyEvent(state, ev);
        await sleep(stepMs * 3);
      } else {
        applyEvent(state, ev);
        this.render(state);
        const loc = state.seats[seat]?.pieces?.[ev.piece];
        if (ev.type === 'exit') {
          await sleep(stepMs * 2);
        } else if (loc && (ev.type === 'checkpoint' || ev.type === 'midpoint' || ev.type === 'home')) {
          this.float(this.point(seat, loc), t(`fx.${ev.type}`, { n: ev.points }), `fx-${ev.type}`);
          await sleep(ev.type === 'checkpoint' ? stepMs : stepMs * 3);
        }
      }
    }
    for (; i < events.length; i++) applyEvent(state, events[i]);
    this.svg.style.setProperty('--step-ms', '0ms');
    this.render(state);
  }
}

/**
 * The widest a player's name may be drawn in its yard: the yard is 184 units wide and
 * the seat's shape sits at its left edge (up to 67 units left of the centre), so a
 * centred name keeps 2 × 64 units.
 */
const YARD_TEXT_MAX = 128;

/**
 * Squeezes an SVG text wider than `max` user units to `max` (a long player name stays
 * inside its yard at every zoom). A text not rendered yet measures 0 and is left as
 * it is; `drawStatic` runs again when the names are set on the shown board.
 * @param {SVGTextElement} text
 * @param {number} max
 */
function fitText(text, max) {
  text.removeAttribute('textLength');
  text.removeAttribute('lengthAdjust');
  if (text.getComputedTextLength() > max) {
    text.setAttribute('textLength', String(max));
    text.setAttribute('lengthAdjust', 'spacingAndGlyphs');
  }
}

/** A piece drawn for a button of the fan: its seat's shape and colour, its label, a crown for the royal. */
function pieceSvg(seat, piece) {
  const royal = piece === 'R';
  const c = COLORS[seat];
  const body = `<path d="${shapePath(seat, royal ? 15 : 14)}" fill="${c.fill}" stroke="${royal ? '#d4a000' : '#ffffff'}" stroke-width="${royal ? 3 : 2}"/>`;
  const crown = royal ? '<path d="M -7 -4 L -7 -11 L -3.5 -7.5 L 0 -12 L 3.5 -7.5 L 7 -11 L 7 -4 Z" fill="#ffd54a" stroke="#6b4e00" stroke-width="1"/>' : '';
  const y = royal ? 9 : SEAT_SHAPES[seat] === 'triangle' ? 8 : 4.5;
  return `<svg viewBox="-21 -21 42 42" width="46" height="46" aria-hidden="true" focusable="false">${body}${crown}<text y="${y + 0.5}" text-anchor="middle" fill="${c.text}" font-size="13" font-weight="800">${piece}</text></svg>`;
}

/** A piece's spoken name: "G1" for guardians, the word for the royal. */
export function pieceName(p) {
  return p === 'R' ? t('piece.royal') : p;
}

/** A checkpoint (`entry`, `fort:<ring>`, `entry:<seat>`, `midpoint`, `home`) in words. */
export function checkpointName(cp, seat, board) {
  const [kind, arg] = String(cp).split(':');
  if (kind === 'entry' && arg) return t('cp.entryOf', { seat: seatOf(arg) });
  if (kind === 'entry') return t('cp.entry');
  if (kind === 'fort') return board.describe(seat, `ring:${arg}`);
  if (kind === 'midpoint') return t('cp.midpoint');
  if (kind === 'home') return t('loc.home');
  return String(cp);
}

/** Human text for one event, with rule 2.6 numbers for `board`'s viewing seat. */
export function describeEvent(ev, board, names = {}) {
  const who = (s) => (names[s] ? t('seat.withName', { seat: seatName(s), name: names[s] }) : seatName(s));
  const pieces = (ps) => ps.map(pieceName).join('+');
  switch (ev.type) {
    case 'exit':
      return t('ev.exit', { who: who(ev.seat), piece: pieceName(ev.piece), to: board.describe(ev.seat, ev.to) });
    case 'move':
      return t('ev.move', { who: who(ev.seat), pieces: pieces(ev.pieces), from: board.describe(ev.seat, ev.from), to: board.describe(ev.seat, ev.path[ev.path.length - 1]), n: ev.path.length });
    case 'blocked':
      return t(ev.penalty ? 'ev.blockedPenalty' : 'ev.blocked', { who: who(ev.seat), pieces: pieces(ev.pieces), tile: board.describe(ev.seat, ev.tile), by: seatName(ev.by), n: ev.lost_steps, penalty: ev.penalty });
    case 'capture':
      return t(ev.cascade ? 'ev.captureCascade' : 'ev.capture', { who: who(ev.seat), seat: seatName(ev.captured_seat), piece: pieceName(ev.captured), tile: board.describe(ev.captured_seat, ev.tile), n: ev.points });
    case 'royal_captured':
      return t('ev.royalCaptured', { who: who(ev.seat), by: seatName(ev.by), guardians: ev.guardians.length, rolls: ev.rolls_lost.length, n: ev.exit_credits });
    case 'checkpoint':
      return t('ev.checkpoint', { who: who(ev.seat), piece: pieceName(ev.piece), cp: checkpointName(ev.checkpoint, ev.seat, board), n: ev.points });
    case 'midpoint':
      return t('ev.midpoint', { who: who(ev.seat), piece: pieceName(ev.piece), n: ev.points });
    case 'home':
      return t('ev.home', { who: who(ev.seat), piece: pieceName(ev.piece), n: ev.points });
    case 'finished':
      return t(ev.bonus ? 'ev.finishedBonus' : 'ev.finished', { who: who(ev.seat), n: ev.place, bonus: ev.bonus });
    default:
      return `${ev.type}`;
  }
}
