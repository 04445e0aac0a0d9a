// The turn-plan builder (RULES.md rule 4.3), two views of one plan:
// * on the board (touch): tap a piece, see where each die or sum of dice takes it
//   (the server's `preview_plan` answers the legal single-piece moves), tap the
//   destination; the bottom sheet (in thumb reach) holds the dice left, direction,
//   zoom, undo, pass and submit, and says what the plan scores — or warns, before
//   it is sent, when it costs points (blockade penalties);
// * the form (keyboard and screen readers): roll store as dice, exit credits,
//   exits, rolls per guardian, royal steps and order, a path preview, submit or pass.
// Every change of the plan is previewed by the server (`preview_plan`): the sheet
// shows the engine's own events and points for it, never a guess.

import { GUARDIANS, entry, simulatePath, parseLoc } from './notation.js';
import { t, num, numList, errorMessage } from './i18n.js';
import { pieceName } from './board.js';

const PIPS = {
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

/** An inline SVG die face showing `v` pips (decorative: the button has a label). */
export function dieSvg(v) {
  const pips = PIPS[v].map(([x, y]) => `<circle cx="${12 + x * 6}" cy="${12 + y * 6}" r="2.3"/>`).join('');
  return `<svg viewBox="0 0 24 24" width="30" height="30" aria-hidden="true" focusable="false"><rect x="1" y="1" width="22" height="22" rx="4"/>${pips}</svg>`;
}

function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'html') e.innerHTML = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/**
 * The plan panel of one turn. `ctx` gives: `seat`, `state` (client state), `turn`
 * (`turn_started` payload), `rules`, `board`, `getDirection()`, `submit(plan)` and
 * `pass()` (both return promises that reject with the server's error).
 */
export class PlanBuilder {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.reset();
  }

  reset() {
    this.picked = null; // the piece tapped on the board (its destinations shown)
    this.previewed = null; // {key, d} or {key, error}: the server's preview of plan()
    this.exits = new Set();
    this.moves = Object.fromEntries(GUARDIANS.map((g) => [g, []]));
    this.royal = null;
    this.royalFirst = false;
    const seat = this.ctx.state.seats[this.ctx.seat];
    this.target = GUARDIANS.find((g) => seat.pieces[g] !== 'yard' && seat.pieces[g] !== 'home') ?? 'G1';
    this.error = null; // {code, text} of the last rejection
    this.busy = false;
  }

  /** Rolls of the store not yet given to a guardian (a multiset, store order). */
  freeRolls() {
    const left = [...this.ctx.turn.roll_store];
    for (const g of GUARDIANS) {
      for (const v of this.moves[g]) {
        const i = left.indexOf(v);
        if (i >= 0) left.splice(i, 1);
      }
    }
    return left;
  }

  /** The plan in the §11 notation. */
  plan() {
    const moves = {};
    for (const g of GUARDIANS) if (this.moves[g].length) moves[g] = [...this.moves[g]];
    const p = { direction: this.ctx.getDirection(), exits: GUARDIANS.filter((g) => this.exits.has(g)), moves, royal_first: this.royalFirst };
    if (this.royal !== null) p.royal = this.royal;
    return p;
  }

  /** Preview paths (rule 3.1 steps, no captures or blockades). */
  previews() {
    const { seat, state } = this.ctx;
    const st = state.seats[seat];
    const dir = this.ctx.getDirection();
    const out = [];
    for (const g of GUARDIANS) {
      const steps = this.moves[g].reduce((a, b) => a + b, 0);
      let from = st.pieces[g];
      const exiting = this.exits.has(g);
      if (exiting) from = `ring:${entry(seat)}`;
      if (!exiting && !steps) continue;
      if (parseLoc(from).kind === 'yard' || from === 'home') {
        out.push({ seat, piece: g, from, path: [], steps, label: g, bad: true });
        continue;
      }
      const { path } = simulatePath(seat, from, steps, dir, st.glowing.has(g), false);
      out.push({ seat, piece: g, from: exiting ? 'yard' : from, start: from, exiting, path: exiting ? [from, ...path] : path, steps, label: g });
    }
    if (this.royal !== null) {
      const from = st.pieces.R;
      const { path } = simulatePath(seat, from, this.royal, dir, st.glowing.has('R'), true);
      out.push({ seat, piece: 'R', from, path, steps: this.royal, label: 'R' });
    }
    return out;
  }

  describePreview(p) {
    const b = this.ctx.board;
    if (p.bad) return t(p.from === 'home' ? 'plan.previewAtHome' : 'plan.previewInYard', { piece: pieceName(p.piece), n: p.steps });
    const end = p.path.length ? p.path[p.path.length - 1] : p.start ?? p.from;
    const lost = p.steps - (p.exiting ? p.path.length - 1 : p.path.length);
    const line = t(p.exiting ? 'plan.previewExit' : 'plan.preview', { piece: pieceName(p.piece), from: b.describe(p.seat, p.from), to: b.describe(p.seat, end), n: p.steps });
    return lost > 0 ? `${line} ${t('plan.previewLost', { n: lost })}` : line;
  }

  render() {
    const { seat, state, turn, rules } = this.ctx;
    const st = state.seats[seat];
    const free = this.freeRolls();
    const dir = this.ctx.getDirection();
    const credits = turn.exit_credits;
    const root = this.root;
    const focusId = document.activeElement?.id;
    root.replaceChildren();
    root.append(h('h3', { id: 'plan-h' }, t('plan.title', { n: turn.turn_number })));
    const rolled = t('plan.rolled', { dice: numList(turn.dice) });
    const dropped = turn.dropped?.length ? ` ${t('plan.dropped', { dice: numList(turn.dropped) })}` : '';
    root.append(h('p', { class: 'small' }, `${rolled}${dropped} ${t('plan.directionIs', { dir: t(`dir.${dir}`) })}`));

    // Roll store.
    const store = h('div', { class: 'dice', role: 'group', 'aria-label': t('plan.storeLabel'), id: 'roll-store' });
    if (!free.length) store.append(h('span', { class: 'small' }, turn.roll_store.length ? t('plan.allGiven') : t('plan.storeEmpty')));
    free.forEach((v, i) => {
      store.append(h('button', { type: 'button', class: 'die', id: `die-${i}`, 'data-value': v, 'aria-label': t('plan.dieLabel', { v: num(v), piece: pieceName(this.target) }), html: dieSvg(v), onclick: () => this.giveRoll(v) }));
    });
    root.append(h('div', { class: 'store-row' }, h('span', { class: 'label' }, t('plan.store')), store));
    const used = this.exits.size;
    root.append(h('p', { id: 'exit-credits', 'data-credits': credits }, t('plan.credits', { n: credits }), used ? ` ${t('plan.creditsToUse', { n: used })}` : '', used > credits ? h('span', { class: 'warn' }, ` — ${t('plan.creditsShort', { n: used })}`) : ''));

    // Guardians.
    const fs = h('fieldset', { class: 'guardians' }, h('legend', {}, t('plan.guardians')));
    for (const g of GUARDIANS) {
      const loc = st.pieces[g];
      const steps = this.moves[g].reduce((a, b) => a + b, 0);
      const row = h('div', { class: `g-row${this.target === g ? ' target' : ''}`, 'data-guardian': g });
      row.append(
        h('label', { class: 'g-target' },
          h('input', { type: 'radio', name: 'target', value: g, id: `target-${g}`, checked: this.target === g, onchange: () => this.setTarget(g) }),
          h('strong', {}, ` ${g}`), h('span', { class: 'small' }, ` ${this.ctx.board.describe(seat, loc)}`), st.glowing.has(g) ? h('span', { class: 'small', title: t('plan.glowing') }, ' ✦', h('span', { class: 'sr-only' }, t('plan.glowing'))) : ''),
      );
      if (loc === 'yard') {
        row.append(h('label', { class: 'g-exit check' }, h('input', { type: 'checkbox', id: `exit-${g}`, checked: this.exits.has(g), onchange: (e) => this.setExit(g, e.target.checked) }), ` ${t('plan.exit')}`));
      }
      const chips = h('span', { class: 'chips' });
      this.moves[g].forEach((v, i) => chips.append(h('button', { type: 'button', class: 'chip', id: `chip-${g}-${i}`, 'aria-label': t('plan.takeBack', { v: num(v), piece: g }), onclick: () => this.takeRoll(g, i) }, `${num(v)} ✕`)));
      if (steps) chips.append(h('span', { class: 'small' }, ` = ${num(steps)}`));
      row.append(chips);
      fs.append(row);
    }
    root.append(fs);

    // Royal.
    const where = this.ctx.board.describe(seat, st.pieces.R);
    const rfs = h('fieldset', { class: 'royal' }, h('legend', {}, t(st.glowing.has('R') ? 'plan.royalGlowing' : 'plan.royal', { where })));
    const sel = h('select', { id: 'royal-steps', onchange: (e) => this.setRoyal(e.target.value === '' ? null : Number(e.target.value)) }, h('option', { value: '' }, t('plan.royalStays')));
    for (let i = 1; i <= (rules?.royal_max_steps ?? 8); i++) sel.append(h('option', { value: i, selected: this.royal === i }, t('plan.steps', { n: i })));
    rfs.append(h('label', { for: 'royal-steps', class: 'check' }, t('plan.royalSteps'), ' ', sel));
    rfs.append(h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'royal-first', checked: this.royalFirst, onchange: (e) => { this.royalFirst = e.target.checked; this.update(); } }), ` ${t('plan.royalFirst')}`));
    root.append(rfs);

    // Preview.
    const prev = this.previews();
    this.ctx.board.showPreview(prev.filter((p) => !p.bad));
    const list = h('ul', { class: 'preview-list', id: 'plan-preview', 'aria-live': 'polite' });
    if (!prev.length) list.append(h('li', {}, t('plan.nothing')));
    for (const p of prev) list.append(h('li', {}, this.describePreview(p)));
    root.append(h('div', {}, h('span', { class: 'label' }, t('plan.previewTitle')), list));

    root.append(h('p', { class: 'error', id: 'plan-error', role: 'alert', tabindex: '-1', 'data-code': this.error?.code ?? '' }, this.error?.text ?? ''));
    root.append(h('div', { class: 'row' },
      h('button', { type: 'button', class: 'primary', id: 'plan-submit', disabled: this.busy, onclick: () => this.doSubmit() }, t('plan.submit')),
      h('button', { type: 'button', id: 'plan-pass', disabled: this.busy, onclick: () => this.doPass() }, t('plan.pass')),
      h('button', { type: 'button', id: 'plan-clear', disabled: this.busy, onclick: () => { this.reset(); this.update(); } }, t('plan.clear'))));

    this.ctx.board.setSelectable(this.tappable().map((p) => `${seat}/${p}`), this.picked ? `${seat}/${this.picked}` : `${seat}/${this.target}`, this.plannedKeys());
    this.renderSheet();
    this.requestPreview();
    // (the same control again, where it was: no jump of the page to the form)
    if (focusId) document.getElementById(focusId)?.focus({ preventScroll: true });
  }

  // ----- the board and the bottom sheet (touch) -----

  /** The key of the current plan (what a preview was asked for). */
  planKey() {
    return JSON.stringify(this.plan());
  }

  /** The server's preview of the current plan, when it is the current one. */
  current() {
    const p = this.previewed;
    return p && p.key === this.planKey() ? p : null;
  }

  /** Asks the server what the current plan does (once per distinct plan). */
  requestPreview() {
    const key = this.planKey();
    if (this.previewed?.key === key || this.asking === key || !this.ctx.preview) return;
    this.asking = key;
    this.ctx.preview(this.plan()).then(
      (d) => ({ key, d }),
      (error) => ({ key, error }),
    ).then((r) => {
      if (this.asking === key) this.asking = null;
      if (this.closed || this.planKey() !== key) return;
      this.previewed = r;
      this.ctx.board.setSelectable(this.tappable().map((p) => `${this.ctx.seat}/${p}`), this.picked ? `${this.ctx.seat}/${this.picked}` : null, this.plannedKeys());
      this.renderSheet();
      this.drawTargets();
    });
  }

  /** Own pieces the player may tap: those with a legal move, and those already in the plan (tap: take back). */
  tappable() {
    const st = this.ctx.state.seats[this.ctx.seat];
    const inPlan = (p) => (p === 'R' ? this.royal !== null : this.exits.has(p) || this.moves[p].length > 0);
    const cur = this.current();
    const legal = new Set(cur?.d ? cur.d.moves.map((m) => m.piece) : ['G1', 'G2', 'G3', 'G4', 'R'].filter((p) => st.pieces[p] !== 'home'));
    return ['G1', 'G2', 'G3', 'G4', 'R'].filter((p) => legal.has(p) || inPlan(p));
  }

  /** Own pieces already in the plan ("seat/piece"): a tap takes their move back. */
  plannedKeys() {
    const inPlan = (p) => (p === 'R' ? this.royal !== null : this.exits.has(p) || this.moves[p].length > 0);
    return ['G1', 'G2', 'G3', 'G4', 'R'].filter(inPlan).map((p) => `${this.ctx.seat}/${p}`);
  }

  /** A tap on own piece `p` on the board: show its destinations, or take back its move. */
  pickPiece(p) {
    if (this.busy) return;
    const inPlan = p === 'R' ? this.royal !== null : this.exits.has(p) || this.moves[p].length > 0;
    if (inPlan) {
      if (p === 'R') this.royal = null;
      else {
        this.exits.delete(p);
        this.moves[p] = [];
      }
    }
    this.picked = p;
    if (p !== 'R') this.target = p;
    this.error = null;
    // Destinations are tapped at a zoom where they are at least 44 px.
    this.ctx.board.ensureTapZoom();
    this.render();
    this.drawTargets(true);
  }

  /** The destinations of the picked piece, from the preview's legal moves (one per tile). */
  targets() {
    const cur = this.current();
    if (!this.picked || !cur?.d) return [];
    const seen = new Map();
    for (const m of cur.d.moves) {
      if (m.piece !== this.picked || seen.has(m.to)) continue;
      seen.set(m.to, m);
    }
    return [...seen.values()];
  }

  drawTargets(scroll = false) {
    const { board, seat } = this.ctx;
    const list = this.targets().map((m) => ({
      seat,
      loc: m.to,
      // "+5": steps, told apart from the tile numbers beside it (rule 2.6 labels).
      text: m.exit && !m.steps ? '↑' : `+${num(m.steps)}`,
      warn: m.points < 0,
      label: t(m.points < 0 ? 'sheet.destWarn' : 'sheet.dest', { piece: pieceName(m.piece), to: board.describe(seat, m.to), steps: num(m.steps), n: m.points }),
      move: m,
    }));
    board.showTargets(list, (m) => this.chooseMove(m));
    if (scroll && list.length) {
      // In sight: the piece and as many of its destinations as fit, nearest first
      // (else the nearest destination).
      const piece = board.piecePoint(`${seat}/${this.picked}`);
      const k = board.svg.clientWidth / 1000;
      const span = (ps, i) => Math.max(...ps.map((q) => q[i])) - Math.min(...ps.map((q) => q[i]));
      const fits = (ps) => span(ps, 0) * k < board.frame.clientWidth - 100 && span(ps, 1) * k < board.frame.clientHeight - 100;
      const far = (q) => (piece ? Math.hypot(q[0] - piece[0], q[1] - piece[1]) : 0);
      const dests = list.map((x) => board.point(seat, x.loc)).sort((a, b) => far(a) - far(b));
      const shown = piece ? [piece] : [];
      for (const q of dests) {
        if (!fits([...shown, q])) break;
        shown.push(q);
      }
      board.centerOn(shown.length > (piece ? 1 : 0) ? shown : dests.slice(0, 1));
    }
  }

  /** A tapped destination: the move joins the plan (and is previewed). */
  chooseMove(m) {
    if (this.busy) return;
    if (m.piece === 'R') this.royal = m.steps;
    else {
      if (m.exit) this.exits.add(m.piece);
      if (m.rolls?.length) this.moves[m.piece] = [...m.rolls];
    }
    this.picked = null;
    this.ctx.board.closeFan();
    this.ctx.board.showTargets([], null);
    this.error = null;
    this.render();
  }

  /** Own standing now (before the plan), for the points the plan adds. */
  myStanding(rows) {
    return rows.find((r) => r.seat === this.ctx.seat);
  }

  renderSheet() {
    const sheet = this.ctx.sheet;
    if (!sheet) return;
    const { turn, seat } = this.ctx;
    const free = this.freeRolls();
    const dir = this.ctx.getDirection();
    const cur = this.current();
    const focusId = sheet.contains(document.activeElement) ? document.activeElement.id : null;
    sheet.hidden = false;
    sheet.replaceChildren();
    sheet.append(h('h2', { id: 'sheet-h', class: 'sheet-title' }, t('plan.title', { n: turn.turn_number })));
    const dice = h('div', { class: 'sheet-dice', id: 'sheet-dice', role: 'img', 'aria-label': t('sheet.diceLeft', { dice: free.length ? numList(free) : '–' }) });
    for (const v of free) dice.append(h('span', { class: 'die small-die', html: dieSvg(v) }));
    if (!free.length) dice.append(h('span', { class: 'small' }, t(turn.roll_store.length ? 'plan.allGiven' : 'plan.storeEmpty')));
    dice.append(h('span', { class: 'small credits' }, t('plan.credits', { n: Math.max(0, turn.exit_credits - this.exits.size) })));
    sheet.append(dice);
    let hint;
    let warn = '';
    if (this.error) hint = this.error.text;
    else if (this.picked) hint = this.targets().length ? t('sheet.pickDest', { piece: pieceName(this.picked) }) : t('sheet.noMove', { piece: pieceName(this.picked) });
    else if (!cur) hint = t('sheet.checking');
    else if (cur.error) hint = errorMessage(cur.error.code);
    else {
      const now = this.myStanding(this.ctx.standingsNow());
      const then = this.myStanding(cur.d.standings);
      const gain = then.total - now.total;
      const lost = cur.d.events.filter((e) => e.type === 'blocked' && e.seat === seat).reduce((a, e) => a + e.penalty, 0);
      const empty = this.planKey() === JSON.stringify({ ...this.plan(), exits: [], moves: {} }) && this.royal === null;
      hint = empty ? t('sheet.pick') : t('sheet.scores', { n: gain });
      if (lost > 0) warn = t('sheet.penalty', { n: lost });
    }
    sheet.append(h('p', { id: 'sheet-hint', class: 'sheet-hint', 'aria-live': 'polite' }, hint));
    sheet.append(h('p', { id: 'sheet-warn', class: 'warn sheet-warn', role: 'alert', hidden: !warn }, warn));
    const ready = !!cur?.d && !this.busy;
    sheet.append(h('div', { class: 'sheet-row' },
      h('button', { type: 'button', id: 'sheet-dir', 'aria-pressed': String(dir === 'backward'), disabled: this.busy, onclick: () => this.ctx.toggleDirection() }, `⇄ ${t(`dir.${dir}`)}`),
      h('button', { type: 'button', id: 'sheet-zoom', 'aria-pressed': String(this.ctx.board.zoomed), onclick: () => { this.ctx.board.toggleZoom(); this.renderSheet(); } }, this.ctx.board.zoomed ? t('sheet.zoomOut') : t('sheet.zoomIn')),
      h('button', { type: 'button', id: 'sheet-undo', disabled: this.busy, onclick: () => { this.reset(); this.ctx.board.closeFan(); this.render(); this.ctx.board.showTargets([], null); } }, t('plan.clear')),
      h('button', { type: 'button', id: 'sheet-pass', disabled: this.busy, onclick: () => this.doPass() }, t('plan.pass')),
      h('button', { type: 'button', id: 'sheet-submit', class: warn ? 'primary warn-btn' : 'primary', disabled: !ready, 'aria-describedby': warn ? 'sheet-warn' : null, onclick: () => this.doSubmit() }, t(warn ? 'sheet.submitAnyway' : 'plan.submit'))));
    if (focusId) document.getElementById(focusId)?.focus({ preventScroll: true });
  }

  update() {
    this.render();
  }

  setTarget(g) {
    this.target = g;
    this.render();
  }

  setExit(g, on) {
    if (on) this.exits.add(g);
    else this.exits.delete(g);
    this.render();
  }

  setRoyal(v) {
    this.royal = v;
    this.render();
  }

  giveRoll(v) {
    this.moves[this.target].push(v);
    this.error = null;
    const idBefore = document.activeElement?.id;
    this.render();
    // keep focus in the dice row when the clicked die vanished
    if (idBefore && !document.getElementById(idBefore)) /** @type {HTMLElement | null} */ (document.querySelector('#roll-store button') ?? document.getElementById('plan-submit'))?.focus();
  }

  takeRoll(g, i) {
    this.moves[g].splice(i, 1);
    this.render();
    if (!document.activeElement || document.activeElement === document.body) document.getElementById('roll-store')?.querySelector('button')?.focus();
  }

  async run(fn) {
    this.busy = true;
    this.error = null;
    this.render();
    try {
      await fn();
      this.busy = true; // wait for turn_resolved; the panel closes then
      this.error = null;
      this.render();
    } catch (e) {
      this.busy = false;
      this.error = { code: e.code ?? '', text: e.code ? errorMessage(e.code) : String(e.message ?? e) };
      this.render();
      document.getElementById('plan-error')?.focus?.();
    }
  }

  doSubmit() {
    return this.run(() => this.ctx.submit(this.plan()));
  }

  doPass() {
    return this.run(() => this.ctx.pass());
  }

  /** Removes the panel's board highlights and the bottom sheet. */
  close() {
    this.closed = true;
    this.ctx.board.closeFan();
    this.ctx.board.clearPreview();
    this.ctx.board.showTargets([], null);
    this.ctx.board.setSelectable([], null);
    if (this.ctx.sheet) {
      this.ctx.sheet.hidden = true;
      this.ctx.sheet.replaceChildren();
    }
  }
}
