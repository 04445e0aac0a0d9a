// The replay viewer: fetches `GET /api/v1/matches/{id}/replay`, rebuilds the
// position after every turn by applying the recorded events from the start (every
// piece in its Yard), and steps forward and backward through the turns.

import { api } from './net.js';
import { Board, describeEvent } from './board.js';
import { SEATS } from './notation.js';
import { initialState, cloneState, applyTurnStart, removePlanRolls, applyEvent, standings } from './state.js';
import { renderScoreboard, renderStandings, planText } from './ui.js';
import { t, numList, seatName, modeName, errorMessage, onLanguageChange, seatShownName } from './i18n.js';
import { verifyDice } from './dice.js';

/** @typedef {import('./sdk/dice.js').DiceCheck} DiceCheck */

/** Positions after each turn: `states[0]` is the start, `states[k]` after turn k. */
export function replayStates(replay) {
  const rules = replay.rules;
  const states = [initialState(replay.mode, rules.start_exit_credits)];
  for (const t of replay.turns) {
    const s = cloneState(states[states.length - 1]);
    applyTurnStart(s, t.seat, t.dice, rules);
    removePlanRolls(s, t.seat, t.plan);
    for (const ev of t.events) applyEvent(s, ev);
    states.push(s);
  }
  return states;
}

export class ReplayViewer {
  constructor() {
    this.board = new Board(/** @type {SVGSVGElement} */ (document.querySelector('#replay-board')));
    this.k = 0;
    this.timer = null;
    /** The replay's dice check; null while it runs. @type {DiceCheck | { state: 'bad', why: string } | null} */
    this.dice = null;
    const on = (id, fn) => document.getElementById(id).addEventListener('click', fn);
    on('rp-first', () => this.go(0));
    on('rp-prev', () => this.go(this.k - 1));
    on('rp-next', () => this.go(this.k + 1, true));
    on('rp-last', () => this.go(this.n));
    on('rp-play', () => this.togglePlay());
    document.getElementById('rp-slider').addEventListener('input', (e) => this.go(Number(/** @type {HTMLInputElement} */ (e.target).value)));
    /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name="replay-direction"]')).forEach((r) =>
      r.addEventListener('change', () => {
        this.board.setDirection(r.value);
        this.show(false);
      }));
    document.getElementById('replay-view-seat').addEventListener('change', (e) => {
      this.board.setViewSeat(/** @type {HTMLSelectElement} */ (e.target).value);
      this.board.setSeatNames(this.names);
      this.show(false);
    });
    document.getElementById('screen-replay').addEventListener('keydown', (e) => {
      const { tagName } = /** @type {Element} */ (e.target);
      if (tagName === 'INPUT' || tagName === 'SELECT') return;
      if (e.key === 'ArrowRight') this.go(this.k + 1, true);
      else if (e.key === 'ArrowLeft') this.go(this.k - 1);
      else return;
      e.preventDefault();
    });
    onLanguageChange(() => {
      this.board.relabel();
      if (!this.replay) return;
      this.renderHeading();
      this.renderEnd();
      this.renderDice();
      this.show(false);
      document.getElementById('rp-play').textContent = t(this.timer ? 'replay.pause' : 'replay.play');
    });
  }

  renderHeading() {
    document.getElementById('rp-seed').textContent = this.replay.seed ?? t('replay.seedHidden');
    document.getElementById('replay-h').textContent = t('replay.heading', { mode: modeName(this.replay.mode), n: this.n });
  }

  /**
   * Loads match `id`'s replay; `viewSeat` orients the board (else the seat of player
   * `playerId` when they played in it, else green). `expectEnd`: the match
   * is known to have ended, so a replay without its end (the server stores turns
   * behind the game) is fetched again for a few seconds.
   */
  async load(id, viewSeat, expectEnd = false, playerId = null) {
    this.stop();
    this.id = id;
    const err = document.getElementById('replay-error');
    err.textContent = '';
    document.getElementById('rp-match-id').textContent = id;
    let replay;
    try {
      for (let tries = 0; ; tries++) {
        replay = await api(`/api/v1/matches/${encodeURIComponent(id)}/replay`);
        if (replay.end || !expectEnd || tries >= 20) break;
        await new Promise((r) => setTimeout(r, 300));
      }
    } catch (e) {
      err.textContent = t('replay.loadFailed', { why: e.code ? errorMessage(e.code) : e.message });
      this.replay = null;
      return false;
    }
    this.replay = replay;
    this.names = {};
    // A bot's server name ("Bot Ash") is not in the viewer's language: "Bot".
    for (const s of replay.seats ?? []) this.names[s.seat] = seatShownName(s);
    this.states = replayStates(replay);
    this.n = replay.turns.length;
    const slider = /** @type {HTMLInputElement} */ (document.getElementById('rp-slider'));
    slider.max = String(this.n);
    this.renderHeading();
    const own = replay.seats?.find((s) => playerId && s.player_id === playerId)?.seat;
    const vs = [viewSeat, own].find((s) => SEATS.includes(s)) ?? 'green';
    /** @type {HTMLSelectElement} */ (document.getElementById('replay-view-seat')).value = vs;
    this.board.setViewSeat(vs);
    this.board.setSeatNames(this.names);
    this.renderEnd();
    this.dice = null;
    this.renderDice();
    this.go(0);
    const check = await verifyDice(replay).catch((e) => ({ state: /** @type {const} */ ('bad'), why: e.message }));
    if (this.replay === replay) {
      this.dice = check;
      this.renderDice();
    }
    return true;
  }

  /** The "dice verified" mark (web/js/dice.js): what was checked, and the outcome. */
  renderDice() {
    let p = document.getElementById('rp-dice');
    if (!p) {
      p = document.createElement('p');
      p.id = 'rp-dice';
      document.getElementById('rp-check').after(p);
    }
    const d = this.dice;
    p.dataset.state = d?.state ?? 'pending';
    p.dataset.scheme = d && 'scheme' in d ? d.scheme : '';
    p.className = d?.state === 'ok' ? 'ok' : d?.state === 'bad' ? 'warn' : '';
    if (!d) p.textContent = t('replay.diceChecking');
    else if (d.state === 'hidden') p.textContent = t('replay.diceHidden');
    else if (d.state === 'bad') {
      const what = { commitment: t('replay.diceWhatCommitment'), contributions: t('replay.diceWhatContributions'), turn: t('replay.diceWhatTurn', { k: 'turn' in d ? d.turn : undefined }) }[d.why] ?? d.why;
      p.textContent = t('replay.diceBad', { what });
    }
    else if (d.scheme === 'contributed') p.textContent = t('replay.diceOkContributed', { n: d.turns, players: d.players, defaults: d.defaults });
    else p.textContent = t('replay.diceOkServerSeed', { n: d.turns });
  }

  renderEnd() {
    const end = this.replay.end;
    const box = document.getElementById('rp-end');
    box.hidden = !end;
    if (!end) return;
    document.getElementById('rp-end-reason').textContent = t({ clock: 'end.clock', abandoned: 'end.abandoned' }[end.reason] ?? 'end.finished');
    renderStandings(document.querySelector('#rp-standings tbody'), end.standings, this.names);
    // The client-side re-play must reach the recorded result.
    const mine = standings(this.states[this.n]);
    const same = end.standings.every((s) => mine.find((m) => m.seat === s.seat)?.total === s.total);
    const check = document.getElementById('rp-check');
    check.textContent = t(same ? 'replay.checkOk' : 'replay.checkBad');
    check.className = same ? 'ok' : 'warn';
    check.dataset.match = String(same);
  }

  /** Shows the position after turn `k` (animating one step forward when asked). */
  async go(k, animate = false) {
    if (!this.replay) return;
    k = Math.max(0, Math.min(this.n, k));
    const from = this.k;
    this.k = k;
    if (animate && k === from + 1 && !matchMedia('(prefers-reduced-motion: reduce)').matches) {
      const s = cloneState(this.states[from]);
      const t = this.replay.turns[k - 1];
      applyTurnStart(s, t.seat, t.dice, this.replay.rules);
      removePlanRolls(s, t.seat, t.plan);
      this.show(true);
      const token = (this.animToken = {});
      await this.board.animate(s, t.events, 70);
      if (this.animToken !== token || this.k !== k) return;
    }
    this.show(false);
  }

  show(detailsOnly) {
    const k = this.k;
    const st = this.states[k];
    if (!detailsOnly) this.board.render(st);
    /** @type {HTMLInputElement} */ (document.getElementById('rp-slider')).value = String(k);
    const turn = k > 0 ? this.replay.turns[k - 1] : null;
    const who = turn ? (this.names[turn.seat] ? t('seat.withName', { seat: seatName(turn.seat), name: this.names[turn.seat] }) : seatName(turn.seat)) : '';
    const label = turn ? t('replay.turnOf', { k, n: this.n, who }) : t('replay.start', { n: this.n });
    const rt = document.getElementById('rp-turn');
    rt.textContent = label;
    rt.dataset.turn = String(k);
    rt.dataset.turns = String(this.n);
    document.getElementById('rp-slider').setAttribute('aria-valuetext', label);
    const det = document.getElementById('rp-details');
    det.replaceChildren();
    if (turn) {
      const p = document.createElement('p');
      p.textContent = `${t('plan.rolled', { dice: numList(turn.dice) })} · ${turn.kind === 'plan' ? planText(turn.plan) : t(turn.kind === 'timeout' ? 'turn.timedOut' : 'turn.passed')}`;
      det.append(p);
      const ol = document.createElement('ol');
      ol.className = 'log';
      ol.tabIndex = 0; // it may scroll: reachable by keyboard
      ol.setAttribute('aria-label', t('match.events'));
      for (const ev of turn.events) {
        const li = document.createElement('li');
        li.textContent = describeEvent(ev, this.board, this.names);
        ol.append(li);
      }
      if (!turn.events.length) {
        const li = document.createElement('li');
        li.textContent = t('replay.nothingMoved');
        ol.append(li);
      }
      det.append(ol);
    } else {
      det.textContent = t('replay.startText');
    }
    renderScoreboard(document.querySelector('#replay-scoreboard tbody'), standings(st), st, this.names, turn?.seat);
    ['rp-first', 'rp-prev'].forEach((id) => (/** @type {HTMLButtonElement} */ (document.getElementById(id)).disabled = k === 0));
    ['rp-next', 'rp-last'].forEach((id) => (/** @type {HTMLButtonElement} */ (document.getElementById(id)).disabled = k === this.n));
  }

  togglePlay() {
    if (this.timer) {
      this.stop();
      return;
    }
    const btn = document.getElementById('rp-play');
    btn.textContent = t('replay.pause');
    if (this.k >= this.n) this.go(0);
    const tick = async () => {
      if (!this.timer) return;
      if (this.k >= this.n) {
        this.stop();
        return;
      }
      await this.go(this.k + 1, true);
      this.timer = this.timer && setTimeout(tick, 350);
    };
    this.timer = setTimeout(tick, 0);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    const btn = document.getElementById('rp-play');
    btn.textContent = t('replay.play');
  }
}
