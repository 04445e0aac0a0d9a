// The board drawn in SVG: the 68-tile ring (a circle, forward = clockwise) with the
// eight forts, four yards in the corners, four home paths towards the centre and the
// Homes, pieces with G1–G4/R labels, glow, player-relative tile numbers (rule 2.6)
// for the viewing seat and direction, plan previews and turn animations.
// Accessibility: every tile and piece has an accessible name (seat, piece, tile in
// the viewer's numbering); the viewing seat's selectable pieces are buttons that
// take the keyboard focus; each seat's pieces have their own shape besides their
// colour (green circle, red square, blue diamond, yellow triangle).

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
  constructor(svg, { onPieceClick } = {}) {
    this.svg = svg;
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
      const dest = e.target.closest?.('.target');
      if (dest) {
        e.preventDefault();
        dest.pick?.();
        return;
      }
      const g = e.target.closest?.('.piece.selectable');
      if (!g) return;
      e.preventDefault();
      this.onPieceClick?.(g.dataset.seat, g.dataset.piece);
    });
    this.build();
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
      el('title', {}, g);
      g.addEventListener('click', () => {
        if (this.onPieceClick && this.selectable.has(`${seat}/${piece}`)) this.onPieceClick(seat, piece);
      });
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
    for (const list of groups.values()) {
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
        const name = t(glowing ? 'board.pieceGlowing' : 'board.piece', { seat: seatName(s), piece: pieceName(p), where: this.describe(s, loc) });
        g.querySelector('title').textContent = name;
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
  setSelectable(keys, selected) {
    this.selectable = new Set(keys);
    this.selected = selected;
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
      const tx = el('text', { y: 6, 'text-anchor': 'middle', class: 'target-text', 'aria-hidden': 'true' }, b);
      tx.textContent = x.text;
      el('title', {}, b).textContent = x.label;
      b.pick = () => onPick?.(x.move);
      b.addEventListener('click', b.pick);
    }
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
    const w = this.svg.parentElement?.clientWidth || 0;
    return w ? Math.max(1, (1000 * 45) / (34 * w)) : 1;
  }

  /** Sets the zoom (1: the whole board fits its frame). */
  setZoom(z) {
    this.zoom = z;
    this.svg.style.width = z > 1 ? `${z * 100}%` : '';
    this.svg.classList.toggle('zoomed', z > 1);
    if (this.state) this.render(this.state);
  }

  toggleZoom() {
    this.setZoom(this.zoomed ? 1 : this.tapZoom());
  }

  /** Scrolls the (zoomed) board frame so that `loc` of `seat` is in the middle. */
  scrollToLoc(seat, loc) {
    const frame = this.svg.parentElement;
    if (!frame || !this.zoomed) return;
    const [x, y] = this.point(seat, loc);
    const k = this.svg.clientWidth / 1000;
    frame.scrollTo({ left: x * k - frame.clientWidth / 2, top: y * k - frame.clientHeight / 2, behavior: 'instant' });
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
