// End-to-end tests of the web client in a real browser (Debian's chromium, headless,
// driven by playwright-core), on a phone: 390×844 portrait with touch emulation.
//
// 1. English: sign in, start a private match with three bots, play every own turn
//    through the UI (taps; the first valid turn with the keyboard alone) until the
//    match clock ends it, reload mid-match, spectate from a second phone held in
//    landscape, compare the standings shown with `GET /api/v1/matches/{id}`, check
//    from the REST replay that every plan the UI sent was resolved as that plan,
//    and step through the replay.
// 2. Bengali (the browser's language is bn-BD) at 360×780: quick play, a whole
//    match, the translated texts on every screen, the language switch (remembered
//    over a reload).
// On every screen: `document.documentElement.scrollWidth` is at most the viewport
// width, touch targets are at least 44 × 44 CSS px, and axe-core reports no serious
// or critical violation (home, match and replay screens).
//
// Needs LUDO_TEST_URL (the server, e.g. http://127.0.0.1:8123) and a server started
// with short clocks; scripts/browser-test.sh does all of that. Screenshots go to
// LUDO_ARTIFACTS (default ../../artifacts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const BASE = process.env.LUDO_TEST_URL;
const ART = path.resolve(process.env.LUDO_ARTIFACTS ?? new URL('../../artifacts', import.meta.url).pathname);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-default-apps', '--disable-extensions', '--metrics-recording-only', '--no-default-browser-check',
];
const AXE_SOURCE = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SKIP = !BASE && 'LUDO_TEST_URL is not set: run scripts/browser-test.sh';
// Without a server the browser tests cannot run; that is a failure, not a pass with
// everything skipped (LUDO_SKIP_BROWSER=1 skips them on purpose, e.g. for the unit
// tests alone).
if (SKIP && process.env.LUDO_SKIP_BROWSER !== '1') {
  test('the browser tests have a server (LUDO_TEST_URL)', () => {
    throw new Error('LUDO_TEST_URL is not set: run scripts/browser-test.sh (or set LUDO_SKIP_BROWSER=1 to skip on purpose)');
  });
}
const now = () => new Date().toISOString().slice(11, 23);

/** The match the first test played to its end (the dice-check test views its replay). */
let finishedMatchId = null;

/**
 * A fresh browser profile (its own --user-data-dir) with one page: a phone of
 * `width`×`height` CSS px with touch, in `locale` (navigator.languages).
 */
async function openBrowser(label, errors, { width = 390, height = 844, locale = 'en-GB' } = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), `ludo-${label}-`));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width, height },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 1,
    locale,
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  // Short action timeouts: the match clock may end the match in the middle of a turn.
  page.setDefaultTimeout(8000);
  page.on('pageerror', (e) => errors.push(`${label}: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${label} console: ${m.text()}`);
  });
  // The last WebSocket frames, for the diagnosis of a stuck turn.
  page.frames_ = [];
  page.on('websocket', (ws) => {
    const note = (dir) => (f) => {
      let t = '?';
      try {
        const j = JSON.parse(f.payload);
        t = `${j.t}${j.seq ? `#${j.seq}` : ''}${j.d?.turn_number ? ` turn ${j.d.turn_number}` : ''}${j.d?.code ? ` ${j.d.code}` : ''}`;
      } catch {
        // not JSON
      }
      page.frames_.push(`${now()} ${dir} ${t}`);
      if (page.frames_.length > 30) page.frames_.shift();
    };
    ws.on('framereceived', note('<'));
    ws.on('framesent', note('>'));
    ws.on('close', () => page.frames_.push(`${now()} closed`));
  });
  return { ctx, page, width, close: async () => { await ctx.close(); await rm(dir, { recursive: true, force: true }); } };
}

/** No horizontal overflow: the document is no wider than the viewport. */
async function assertFits(page, where) {
  const { sw, vw } = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, vw: window.innerWidth }));
  assert.ok(sw <= vw, `${where}: scrollWidth ${sw} > viewport ${vw}`);
  // No table wider than its box (tables reflow instead of scrolling sideways).
  const wide = await page.$$eval('table', (ts) => ts.filter((t) => t.offsetParent && t.parentElement.scrollWidth > t.parentElement.clientWidth + 1).map((t) => `${t.id} ${t.parentElement.scrollWidth}>${t.parentElement.clientWidth}`));
  assert.deepEqual(wide, [], `${where}: tables wider than their box`);
}

/**
 * Every visible control (buttons, links styled as buttons or list links, selects,
 * text fields, summaries, labels around radios and check boxes, the replay
 * slider, the player's selectable board pieces) is at least 44 × 44 CSS px.
 */
async function assertTouchTargets(page, where) {
  const small = await page.evaluate(() => {
    const sel = 'button, a.button, ul.links a, .top h1 a, select, input:not([type]), input[type=text], input[type=range], summary, label.check, .g-target, .piece.selectable .hit';
    const out = [];
    for (const e of document.querySelectorAll(sel)) {
      const r = e.getBoundingClientRect();
      if (!r.width || !r.height || e.closest('[hidden], .sr-only')) continue;
      if (r.width < 43.5 || r.height < 43.5) out.push(`${e.tagName.toLowerCase()}#${e.id || ''}.${e.getAttribute('class') || ''} "${(e.textContent || '').trim().slice(0, 20)}" ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return out;
  });
  assert.deepEqual(small, [], `${where}: touch targets under 44 px`);
}

/** axe-core on the whole page: no serious or critical violation. */
async function assertAxe(page, where) {
  // Evaluated through the DevTools protocol, so a strict Content-Security-Policy
  // (no inline script) does not stop it.
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(await AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `${where}: axe-core violations`);
}

/** All three checks of a screen, and its screenshot. */
async function checkScreen(page, name, { axe = false } = {}) {
  await assertFits(page, name);
  await assertTouchTargets(page, name);
  if (axe) await assertAxe(page, name);
  await page.screenshot({ path: path.join(ART, `${name}.png`), fullPage: true });
}

async function signIn(page, name) {
  const res = await page.goto(BASE);
  // The client runs under the server's Content-Security-Policy (no inline script or
  // style); a violation would show up as a console error, which the test refuses.
  assert.match(res.headers()['content-security-policy'] ?? '', /script-src 'self'/, 'the page is served under the CSP');
  await page.waitForSelector('#screen-signin:not([hidden])');
  await page.fill('#signin-name', name);
  await page.tap('#signin-form button[type=submit]');
  await page.waitForSelector('#screen-home:not([hidden])');
  await page.waitForSelector('#conn-status.ok');
}

/** The player's board: its own Yard is drawn in the bottom-left quarter (nearest the player). */
async function assertOwnSeatNearest(page, seat) {
  const { yard, board } = await page.evaluate((s) => {
    const r = (e) => {
      const b = e.getBoundingClientRect();
      return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    };
    return { yard: r(document.querySelector(`#board .yard-${s} rect`)), board: r(document.querySelector('#board')) };
  }, seat);
  assert.ok(yard.y > board.y && yard.x < board.x, `own yard ${JSON.stringify(yard)} is bottom-left of the board centre ${JSON.stringify(board)}`);
}

/** Presses Tab (or Shift+Tab) until the focused element matches `selector`. */
async function tabTo(page, selector, back = false) {
  for (let i = 0; i < 80; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`could not reach ${selector} with the keyboard`);
}

/** A plan as the REST replay records it, for comparison. */
function normPlan(p) {
  const moves = {};
  for (const g of ['G1', 'G2', 'G3', 'G4']) if (p.moves?.[g]?.length) moves[g] = [...p.moves[g]];
  return { direction: p.direction, exits: [...(p.exits ?? [])].sort(), moves, royal: p.royal ?? null, royal_first: !!p.royal_first };
}

/**
 * Waits for turn `k` (the plan just submitted) to be over: the panel closed or moved
 * on to a later turn. (Whether the server resolved it as the plan sent is checked
 * from the REST replay at the end: a timeout also closes the panel.) An error shown
 * in the panel fails the test, unless the match clock ended the match (returns
 * false then).
 */
async function awaitAccepted(page, n, k) {
  let outcome;
  try {
    outcome = await Promise.race([
      page.waitForFunction((turn) => document.querySelector('#plan-panel').hidden || window.ludo.live?.turn?.turn_number !== turn, k, { timeout: 15000 }).then(() => 'resolved'),
      page.waitForFunction(() => (document.querySelector('#plan-error')?.textContent ?? '').length > 0, null, { timeout: 15000 }).then(() => 'error'),
    ]);
  } catch (e) {
    const dump = await page.evaluate(() => {
      const c = window.ludo.conn;
      return { turn: window.ludo.live?.turn, queue: window.ludo.live?.queue.length, pumping: window.ludo.live?.pumping, ws: c?.ws?.readyState, held: [...(c?.held ?? new Map()).values()].map((l) => l.map((f) => `${f.seq}:${f.t}`)), lastSeq: [...(c?.lastSeq ?? new Map()).values()], resyncing: [...(c?.resyncing ?? [])], pending: c?.pending?.size, error: document.querySelector('#plan-error')?.textContent, busy: document.querySelector('#plan-submit')?.disabled, info: document.querySelector('#turn-info').textContent, log: [...document.querySelectorAll('#event-log li')].slice(-8).map((li) => li.textContent) };
    });
    console.log('stuck after submit:', JSON.stringify(dump, null, 1), page.frames_);
    throw e;
  }
  if (outcome === 'error') {
    const code = await page.getAttribute('#plan-error', 'data-code').catch(() => '');
    if (code === 'match_over' || (await page.isVisible('#final'))) return false;
    console.log('rejected:', page.frames_);
    assert.fail(`own turn ${n}: the server rejected the plan: ${code}: ${await page.textContent('#plan-error')}`);
  }
  return true;
}

/**
 * Plays the turn shown in the plan panel with taps. Turn `n` (0-based count of own
 * turns) varies the plan: exits when there are credits, dice spread over
 * guardians, royal steps, royal first, and backward now and then. Returns
 * {turn_number, plan} of the plan the UI was told to send, or null when the match
 * ended first.
 */
async function playTurn(page, n) {
  const t0 = Date.now();
  const panel = page.locator('#plan-panel');
  const turnNumber = await page.evaluate(() => window.ludo.live.turn.turn_number);
  const dir = n % 4 === 3 ? 'backward' : 'forward';
  await page.tap(`input[name=direction][value=${dir}]`);
  const plan = { direction: dir, exits: [], moves: {}, royal_first: false };
  // Exit one yard guardian when credits allow.
  const credits = Number(await page.getAttribute('#exit-credits', 'data-credits'));
  const exitBoxes = panel.locator('input[id^=exit-]');
  let exited = null;
  if (credits > 0 && (await exitBoxes.count()) > 0) {
    const box = exitBoxes.first();
    exited = (await box.getAttribute('id')).slice(5);
    await box.tap();
    assert.ok(await page.isChecked(`#exit-${exited}`), `tap checked exit ${exited}: ${page.frames_.slice(-3)}`);
    plan.exits.push(exited);
  }
  // Guardians that may take rolls: on the board or exiting now.
  const movable = await page.evaluate((ex) => {
    const l = window.ludo.live;
    const pcs = l.state.seats[l.yourSeat].pieces;
    return ['G1', 'G2', 'G3', 'G4'].filter((g) => g === ex || (pcs[g] !== 'yard' && pcs[g] !== 'home'));
  }, exited);
  let k = 0;
  while (movable.length && (await panel.locator('#roll-store button.die').count()) > 0 && k < 4) {
    const g = movable[k % movable.length];
    await page.tap(`#target-${g}`);
    assert.ok(await page.isChecked(`#target-${g}`), `tap chose ${g}`);
    const die = panel.locator('#roll-store button.die').first();
    const v = Number(await die.getAttribute('data-value'));
    const before = await panel.locator(`button[id^=chip-${g}-]`).count();
    await die.tap();
    assert.equal(await panel.locator(`button[id^=chip-${g}-]`).count(), before + 1, `tap gave die ${v} to ${g}`);
    (plan.moves[g] ??= []).push(v);
    k += 1;
  }
  const royalHome = await page.evaluate(() => window.ludo.live.state.seats[window.ludo.live.yourSeat].pieces.R === 'home');
  if (n % 2 === 0 && !royalHome) {
    plan.royal = (n % 8) + 1;
    await page.selectOption('#royal-steps', String(plan.royal));
    if (n % 4 === 0) {
      await page.tap('#royal-first');
      assert.ok(await page.isChecked('#royal-first'), 'tap checked royal first');
      plan.royal_first = true;
    }
  }
  const planned = await panel.locator('#plan-preview li').count();
  assert.ok(planned >= 1, 'the preview lists the plan');
  await page.tap('#plan-submit');
  const ok = await awaitAccepted(page, n, turnNumber);
  page.turnMs = Math.max(page.turnMs ?? 0, Date.now() - t0);
  if (n % 10 === 0) console.log(`[${now()}] own turn ${n} (turn ${turnNumber}): ${ok ? 'accepted' : 'match over'} — ${await page.textContent('#turn-info')}`);
  return ok ? { turn_number: turnNumber, plan } : null;
}

/** Milliseconds left on the current turn's clock, as the page counts it. */
function turnLeft(page) {
  return page.evaluate(() => {
    const l = window.ludo.live;
    return l?.turnDeadline ? l.turnDeadline - (Date.now() + l.offset) : 0;
  });
}

/** Passes the own turn shown (Pass button) and waits until it is over. */
async function passTurn(page) {
  const k = await page.evaluate(() => window.ludo.live.turn?.turn_number);
  await page.tap('#plan-pass');
  await page.waitForFunction((turn) => document.querySelector('#plan-panel').hidden || window.ludo.live?.turn?.turn_number !== turn, k, { timeout: 15000 });
}

/**
 * Plays own turns until the final standings show; reloads the page once after three
 * turns. Returns the plans sent ({turn_number, plan}).
 */
async function playToEnd(page, matchId, sent, { reload = true } = {}) {
  let played = 0;
  let reloaded = !reload;
  for (;;) {
    const which = await Promise.race([
      page.waitForSelector('#plan-panel:not([hidden])', { timeout: 120000 }).then(() => 'turn'),
      page.waitForSelector('#final:not([hidden])', { timeout: 120000 }).then(() => 'final'),
    ]);
    if (which === 'final') break;
    if (played === 3 && !reloaded) {
      reloaded = true;
      console.log(`[${now()}] reloading`);
      await page.reload();
      console.log(`[${now()}] reloaded`);
      await page.waitForSelector('#screen-match:not([hidden])', { timeout: 15000 });
      await page.waitForFunction((id) => window.ludo.live?.matchId === id && window.ludo.live?.mode, matchId, { timeout: 15000 });
      await page.waitForFunction(() => document.querySelectorAll('#scoreboard tbody tr').length === 4);
      console.log(`[${now()}] resynced`, page.frames_.slice(-6));
      continue;
    }
    // A turn whose clock is nearly out (the test was busy elsewhere) is left to time
    // out: the plans checked against the replay are the ones sent in time.
    if ((await turnLeft(page)) < 4000) {
      const k = await page.evaluate(() => window.ludo.live.turn?.turn_number);
      await page.waitForFunction((turn) => document.querySelector('#plan-panel').hidden || window.ludo.live?.turn?.turn_number !== turn, k, { timeout: 15000 });
      continue;
    }
    let r;
    try {
      r = await playTurn(page, played);
    } catch (e) {
      // The match clock may end the match mid-turn (the panel vanishes).
      if (await page.isVisible('#final')) break;
      throw e;
    }
    if (!r) break;
    sent.push(r);
    played += 1;
    if (played === 6) await page.screenshot({ path: path.join(ART, `${page.artPrefix}-04-midgame.png`) });
  }
  return played;
}

/** Polls `GET /api/v1/matches/{id}` until the match is stored as ended. */
async function endedMatch(matchId) {
  let info;
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${BASE}/api/v1/matches/${matchId}`);
    assert.equal(res.status, 200);
    info = await res.json();
    if (info.status === 'ended' && info.standings) return info;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`match ${matchId} not stored as ended: ${JSON.stringify(info).slice(0, 300)}`);
}

/**
 * Issue 17.1: the server resolved every plan the UI sent as that plan. From the
 * REST replay, each turn the test played is a turn of its own seat, of kind
 * "plan", with exactly the exits, rolls per guardian, royal steps, order and
 * direction the UI was told to use. (A plan that moves nothing is recorded by the
 * engine as kind "pass" with the empty plan; at least three must be real plans.)
 */
async function assertPlansResolved(matchId, seat, sent) {
  const replay = await (await fetch(`${BASE}/api/v1/matches/${matchId}/replay`)).json();
  const isEmpty = (p) => !p.exits.length && !Object.keys(p.moves).length && p.royal == null;
  const real = sent.filter((s) => !isEmpty(s.plan));
  assert.ok(real.length >= 3, `${real.length} non-empty plans sent through the UI`);
  for (const { turn_number: k, plan } of sent) {
    const turn = replay.turns.find((x) => x.turn_number === k);
    assert.ok(turn, `turn ${k} is in the replay`);
    assert.equal(turn.seat, seat, `turn ${k} is the test's seat`);
    if (isEmpty(plan)) {
      assert.equal(turn.kind, 'pass', `turn ${k}: an empty plan is a pass`);
      assert.deepEqual(turn.plan.exits, []);
      assert.deepEqual(turn.plan.moves, {});
      continue;
    }
    assert.equal(turn.kind, 'plan', `turn ${k} resolved as a plan, not ${turn.kind}`);
    assert.deepEqual(normPlan(turn.plan), normPlan(plan), `turn ${k}: the resolved plan is the one built in the UI`);
  }
  return real.length;
}

test('a match against three bots on a phone: touch, keyboard, spectating, standings, plans resolved, replay, audits', { skip: SKIP, timeout: 200_000 }, async () => {
  await mkdir(ART, { recursive: true });
  const errors = [];
  const player = await openBrowser('player', errors);
  const { page } = player;
  page.artPrefix = 'web';
  let watcher = null;
  try {
    await page.goto(BASE);
    await page.waitForSelector('#screen-signin:not([hidden])');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    await checkScreen(page, 'web-00-signin');
    await signIn(page, 'Tester');
    await checkScreen(page, 'web-01-home', { axe: true });

    // A private lobby, bots fill the three empty seats.
    await page.tap('input[name=lobby-mode][value=journey]');
    await page.tap('#lobby-create-btn');
    await page.waitForSelector('#lobby-box:not([hidden])');
    assert.match(await page.textContent('#lobby-code-show'), /^[A-Z0-9]{6}$/);
    await page.tap('#lobby-start');
    await page.waitForSelector('#screen-match:not([hidden])');
    await page.waitForFunction(() => document.querySelectorAll('#scoreboard tbody tr').length === 4);
    const matchId = (await page.textContent('#match-id')).trim();
    assert.match(matchId, /^[0-9a-f-]{36}$/);
    assert.equal(new URL(page.url()).hash, `#/match/${matchId}`);
    // One seat is ours, three are bots.
    const seats = await page.evaluate(() => window.ludo.live.seats);
    assert.equal(seats.filter((s) => s.bot).length, 3);
    const mySeat = await page.evaluate(() => window.ludo.live.yourSeat);
    assert.ok(['green', 'red', 'blue', 'yellow'].includes(mySeat));
    await assertOwnSeatNearest(page, mySeat);

    // Accessible names: tiles and pieces name seat, piece and tile.
    assert.equal(await page.getAttribute(`#board .piece[data-seat=${mySeat}][data-piece=R]`, 'aria-label'), `${mySeat[0].toUpperCase()}${mySeat.slice(1)} royal, Yard`);
    const entryRing = { green: 0, red: 17, blue: 34, yellow: 51 }[mySeat];
    assert.equal(await page.getAttribute(`#board circle[data-ring="${entryRing}"]`, 'aria-label'), 'tile 1');
    assert.equal(await page.getAttribute(`#board [data-ring="${(entryRing + 7) % 68}"]`, 'aria-label'), 'tile 8 (fort)');

    // First own turn: an illegal choice is explained by the server's error code,
    // translated.
    await page.waitForSelector('#plan-panel:not([hidden])', { timeout: 30000 });
    const t0 = Date.now();
    const yardGuardian = await page.evaluate(() => {
      const l = window.ludo.live;
      return ['G1', 'G2', 'G3', 'G4'].find((g) => l.state.seats[l.yourSeat].pieces[g] === 'yard');
    });
    assert.ok(yardGuardian, 'at the first turn a guardian is in the yard');
    // A tap on the player's own piece on the board selects it as the target.
    await page.tap(`#board .piece[data-seat=${mySeat}][data-piece=${yardGuardian}]`);
    assert.ok(await page.isChecked(`#target-${yardGuardian}`), 'tapping the piece selected it');
    await page.locator('#roll-store button.die').first().tap();
    await page.tap('#plan-submit');
    await page.waitForFunction(() => document.querySelector('#plan-error')?.dataset.code === 'piece_in_yard', null, { timeout: 10000 });
    assert.equal(await page.textContent('#plan-error'), 'A guardian you move is in the Yard: exit it in the same plan.');

    // Direction toggle renumbers the tiles (rule 2.6): our entry tile is 1 both
    // ways, the tile after it is 2 forward and 68 backward.
    const label = (r) => page.textContent(`#board text[data-ring="${r}"]`);
    assert.equal(await label(entryRing), '1');
    assert.equal(await label((entryRing + 1) % 68), '2');
    await page.tap('input[name=direction][value=backward]');
    assert.equal(await label(entryRing), '1');
    assert.equal(await label((entryRing + 1) % 68), '68');
    await page.tap('input[name=direction][value=forward]');

    // The valid plan of this turn with the keyboard alone: Clear, check "Exit" of a
    // yard guardian, choose it with the arrow keys, give it the first die, submit.
    const sent = [];
    const turnNumber = await page.evaluate(() => window.ludo.live.turn.turn_number);
    await page.focus('#plan-submit'); // where the keyboard user is after the error
    await tabTo(page, '#plan-clear');
    await page.keyboard.press('Enter');
    await tabTo(page, `#exit-${yardGuardian}`, true);
    await page.keyboard.press('Space');
    assert.ok(await page.isChecked(`#exit-${yardGuardian}`));
    // The player's own pieces on the board are buttons: Enter on one chooses it.
    const other = ['G1', 'G2', 'G3', 'G4'].find((g) => g !== yardGuardian);
    await tabTo(page, `#board .piece.selectable[data-seat=${mySeat}][data-piece=${other}]`, true);
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('role')), 'button');
    await page.keyboard.press('Enter');
    assert.ok(await page.isChecked(`#target-${other}`), 'Enter on the board piece chose it');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-pressed')), 'true');
    // Back in the panel, the arrow keys move the choice along the guardians.
    await tabTo(page, 'input[name=target]');
    for (let i = 0; i < 4 && !(await page.isChecked(`#target-${yardGuardian}`)); i++) await page.keyboard.press('ArrowUp');
    assert.ok(await page.isChecked(`#target-${yardGuardian}`), 'the arrow keys chose the guardian');
    await tabTo(page, '#die-0', true);
    const die = Number(await page.getAttribute('#die-0', 'data-value'));
    await page.keyboard.press('Enter');
    assert.ok((await page.locator('#board .preview-path').count()) >= 1, 'a preview path is drawn');
    await tabTo(page, '#plan-submit');
    await page.keyboard.press('Enter');
    assert.ok(await awaitAccepted(page, 'keyboard', turnNumber), 'the keyboard plan was accepted');
    sent.push({ turn_number: turnNumber, plan: { direction: 'forward', exits: [yardGuardian], moves: { [yardGuardian]: [die] }, royal_first: false } });
    console.log(`[${now()}] first turn played by keyboard in ${Date.now() - t0} ms`);

    // The match screen with the plan panel open: layout, touch targets and axe.
    await page.waitForSelector('#plan-panel:not([hidden])', { timeout: 30000 });
    await checkScreen(page, 'web-02-turn', { axe: true });
    await passTurn(page);

    // A spectator on another phone, held in landscape, sees the same match.
    watcher = await openBrowser('watcher', errors, { width: 844, height: 390 });
    await signIn(watcher.page, 'Watcher');
    // A private lobby's match is not in the live list (issue 12.10): it is watched by
    // the id its players share.
    assert.equal(await watcher.page.locator(`#live-matches a[href="#/watch/${matchId}"]`).count(), 0, 'a private match is not listed');
    await watcher.page.fill('#watch-id', matchId);
    await watcher.page.tap('#watch-form button[type=submit]');
    await watcher.page.waitForSelector('#screen-match:not([hidden])');
    await watcher.page.waitForFunction(() => document.querySelectorAll('#scoreboard tbody tr').length === 4 && window.ludo.live?.yourSeat === null && window.ludo.live?.mode);
    await watcher.page.waitForFunction(() => /turn|to move/i.test(document.querySelector('#turn-info').textContent));
    await checkScreen(watcher.page, 'web-03-spectator-landscape');
    // Quick play from the lobby: bots fill the empty seats (bot-fill wait 0 s here).
    await watcher.page.goto(`${BASE}/#/`);
    await watcher.page.waitForSelector('#screen-home:not([hidden])');
    await watcher.page.tap('#qp-clash');
    await watcher.page.waitForSelector('#screen-match:not([hidden])', { timeout: 15000 });
    await watcher.page.waitForFunction(() => window.ludo.live?.mode === 'clash' && window.ludo.live.seats.filter((s) => s.bot).length === 3 && window.ludo.live.yourSeat);
    await watcher.close();
    watcher = null;
    console.log(`[${now()}] spectator done`);

    // Play on until the match clock ends the match; reload once mid-match.
    const played = await playToEnd(page, matchId, sent);
    console.log(`[${now()}] match over after ${played} more own turns; the slowest took ${page.turnMs} ms`);
    assert.ok(played >= 2, `played ${played} turns through the UI`);
    await page.waitForTimeout(300);
    await checkScreen(page, 'web-05-final');
    // A player of the match may offer a rematch from the results.
    assert.ok(await page.isVisible('#final-rematch'), 'the rematch button is shown');

    // The standings shown are the server's.
    const shown = await shownTotals(page, '#final-standings');
    const info = await endedMatch(matchId);
    assert.equal(info.standings.length, 4, JSON.stringify(info).slice(0, 300));
    // REST speaks the WebSocket's vocabulary: the same seats as `match_started`.
    assert.equal(info.match_id, matchId);
    assert.deepEqual(info.seats.map((s) => [s.seat, s.name, s.bot]), seats.map((s) => [s.seat, s.name, s.bot]));
    assert.deepEqual(shown, Object.fromEntries(info.standings.map((s) => [s.seat, s.total])));
    const places = await page.$$eval('#final-standings tbody tr', (rows) => rows.map((r) => [r.dataset.seat, Number(r.dataset.place)]));
    assert.deepEqual(places, info.standings.map((s) => [s.seat, s.place]));
    // The live region announces the result (numbers grouped by Intl).
    const top = info.standings[0];
    const topSeat = seats.find((s) => s.seat === top.seat);
    // Bots are called "Bot" in the player's language; the player's own seat says so once.
    const levelEn = { beginner: 'Beginner', casual: 'Casual', greedy: 'Greedy', expert: 'Expert' };
    const topName = topSeat.bot ? (topSeat.bot_level ? `Bot · ${levelEn[topSeat.bot_level]}` : 'Bot') : topSeat.name;
    const cap = (s) => s[0].toUpperCase() + s.slice(1);
    assert.equal(await page.textContent('#turn-info'), `Match over. ${cap(top.seat)} (${top.seat === mySeat ? `${topName}, you` : topName}) wins with ${new Intl.NumberFormat('en').format(top.total)} points.`);
    assert.equal(await page.getAttribute('#turn-info', 'aria-live'), 'polite');

    // Every plan sent from the UI was resolved as that plan (issue 17.1).
    await assertPlansResolved(matchId, mySeat, sent);

    // The replay viewer: re-playing every turn's events reaches the same totals.
    await page.tap('#final-replay');
    await page.waitForSelector('#screen-replay:not([hidden])');
    await page.waitForFunction(() => Number(document.querySelector('#rp-turn').dataset.turns) > 0);
    const turns = Number(await page.getAttribute('#rp-turn', 'data-turns'));
    assert.ok(turns >= sent.length, `${turns} turns in the replay`);
    await page.tap('#rp-last');
    assert.equal(await page.getAttribute('#rp-check', 'data-match'), 'true');
    finishedMatchId = matchId;
    // The dice check (proto/README.md §10): our browser contributed, the three bots got
    // the default, and every die follows from the revealed seed and those four.
    await page.waitForFunction(() => ['ok', 'bad'].includes(document.querySelector('#rp-dice')?.dataset.state));
    assert.equal(await page.getAttribute('#rp-dice', 'data-state'), 'ok');
    assert.equal(await page.getAttribute('#rp-dice', 'data-scheme'), 'contributed');
    assert.equal(await page.textContent('#rp-dice'), `Dice verified: SHA-256 of the seed is the published commitment, and the dice of all ${turns} turns follow from the seed and the recorded contributions (1 from players, 3 defaults).`);
    assert.deepEqual(await shownTotals(page, '#rp-standings'), shown);
    assert.deepEqual(await shownTotals(page, '#replay-scoreboard'), shown);
    // The shown totals are the numbers formatted by Intl ("3,610").
    const cells = await page.$$eval('#replay-scoreboard tbody tr', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.seat, r.querySelector('td.total').textContent])));
    assert.deepEqual(cells, Object.fromEntries(Object.entries(shown).map(([s, v]) => [s, new Intl.NumberFormat('en').format(v)])));
    await checkScreen(page, 'web-06-replay-end', { axe: true });
    // Step backward and forward (buttons and arrow keys).
    await page.tap('#rp-prev');
    assert.match(await page.textContent('#rp-turn'), new RegExp(`^Turn ${turns - 1} of ${turns}: `));
    await page.tap('#rp-first');
    assert.match(await page.textContent('#rp-turn'), /^Start/);
    assert.equal(await page.locator('#replay-board .piece').count(), 20);
    await page.focus('#rp-next');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#rp-turn', 'data-turn'), '1');
    const mid = Math.max(1, Math.floor(turns / 2));
    await page.$eval('#rp-slider', (el, v) => {
      el.value = String(v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, mid - 1);
    await page.tap('#rp-next');
    await page.waitForFunction((k) => document.querySelector('#rp-turn').dataset.turn === String(k), mid);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: path.join(ART, 'web-07-replay-mid.png') });

    // The lobby lists the match with a link to its replay.
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector(`#my-matches a[href="#/replay/${matchId}"]`);

    assert.deepEqual(errors, [], 'no script errors in the pages');
  } catch (e) {
    console.log('script errors so far:', errors);
    throw e;
  } finally {
    if (watcher) await watcher.close();
    await player.close();
  }
});

test('the replay viewer names a changed contribution: its dice check fails at turn 1', { skip: SKIP, timeout: 60_000 }, async () => {
  assert.ok(finishedMatchId, 'the first test finished a match');
  const errors = [];
  const viewer = await openBrowser('dicecheck', errors);
  const { page } = viewer;
  try {
    // The served replay with one recorded contribution changed on its way.
    await page.route(`**/api/v1/matches/${finishedMatchId}/replay`, async (route) => {
      const doc = await (await route.fetch()).json();
      const mine = doc.contributions.find((c) => !c.defaulted);
      mine.entropy = mine.entropy.startsWith('00') ? `11${mine.entropy.slice(2)}` : `00${mine.entropy.slice(2)}`;
      await route.fulfill({ json: doc });
    });
    await page.goto(`${BASE}/#/replay/${finishedMatchId}`);
    await page.waitForFunction(() => ['ok', 'bad'].includes(document.querySelector('#rp-dice')?.dataset.state));
    assert.equal(await page.getAttribute('#rp-dice', 'data-state'), 'bad');
    assert.equal(await page.textContent('#rp-dice'), 'Warning: the dice check failed (the dice of turn 1 do not follow).');
    assert.deepEqual(errors, [], 'no script errors');
  } finally {
    await viewer.close();
  }
});

test('the same flow in Bengali at 360 px: translated texts, Intl numbers, the remembered language switch', { skip: SKIP, timeout: 200_000 }, async () => {
  await mkdir(ART, { recursive: true });
  const errors = [];
  const player = await openBrowser('bn', errors, { width: 360, height: 780, locale: 'bn-BD' });
  const { page } = player;
  page.artPrefix = 'bn';
  try {
    // The browser's language (bn-BD) chooses Bengali.
    await page.goto(BASE);
    await page.waitForSelector('#screen-signin:not([hidden])');
    assert.equal(await page.getAttribute('html', 'lang'), 'bn');
    assert.equal(await page.textContent('#signin-h'), 'অতিথি হিসেবে খেলুন');
    assert.equal(await page.inputValue('#lang'), 'bn');
    await checkScreen(page, 'bn-00-signin');
    await signIn(page, 'পরীক্ষক');
    assert.equal(await page.textContent('#conn-status'), 'সংযুক্ত');
    assert.equal(await page.textContent('#qp-h'), 'দ্রুত খেলা');
    assert.equal(await page.textContent('#qp-clash'), 'লড়াই');
    await checkScreen(page, 'bn-01-home', { axe: true });

    // Quick play (clash): bots fill the seats at once here.
    await page.tap('#qp-clash');
    await page.waitForSelector('#screen-match:not([hidden])', { timeout: 15000 });
    await page.waitForFunction(() => window.ludo.live?.mode === 'clash' && window.ludo.live.yourSeat && document.querySelectorAll('#scoreboard tbody tr').length === 4);
    const matchId = (await page.textContent('#match-id')).trim();
    const mySeat = await page.evaluate(() => window.ludo.live.yourSeat);
    const seatBn = { green: 'সবুজ', red: 'লাল', blue: 'নীল', yellow: 'হলুদ' };
    assert.deepEqual(await page.$$eval('#scoreboard thead th', (ths) => ths.map((th) => th.textContent)), ['#', 'আসন', 'অগ্রগতি', 'লড়াই', 'বোনাস', 'মোট', 'জমা rolls', 'exit']);
    const rowSeats = await page.$$eval('#scoreboard tbody th', (ths) => ths.map((th) => th.firstChild.nextSibling.textContent.trim()));
    assert.deepEqual(rowSeats, ['সবুজ', 'লাল', 'নীল', 'হলুদ']);
    await assertOwnSeatNearest(page, mySeat);
    assert.equal(await page.getAttribute(`#board .piece[data-seat=${mySeat}][data-piece=R]`, 'aria-label'), `${seatBn[mySeat]} রাজকীয়, Yard`);

    await page.waitForSelector('#plan-panel:not([hidden])', { timeout: 30000 });
    // The plan panel speaks Bengali, numbers in Bengali digits (Intl).
    assert.match(await page.textContent('#plan-h'), /^আপনার পালা — পালা [০-৯]+$/);
    assert.match(await page.textContent('#plan-submit'), /^পরিকল্পনা জমা দিন$/);
    assert.match(await page.textContent('#exit-credits'), /^exit credits: [০-৯]+/);
    assert.match(await page.textContent('#turn-clock'), /^[০-৯]+:[০-৯]{2}/);
    // A server error code, translated.
    const yardGuardian = await page.evaluate(() => {
      const l = window.ludo.live;
      return ['G1', 'G2', 'G3', 'G4'].find((g) => l.state.seats[l.yourSeat].pieces[g] === 'yard');
    });
    await page.tap(`#target-${yardGuardian}`);
    await page.locator('#roll-store button.die').first().tap();
    await page.tap('#plan-submit');
    await page.waitForFunction(() => document.querySelector('#plan-error')?.dataset.code === 'piece_in_yard', null, { timeout: 10000 });
    assert.equal(await page.textContent('#plan-error'), 'যে রক্ষককে চালাচ্ছেন সে Yard-এ আছে: একই পরিকল্পনায় তাকে বের করুন।');
    await checkScreen(page, 'bn-02-turn', { axe: true });
    await passTurn(page);

    const sent = [];
    const played = await playToEnd(page, matchId, sent, { reload: false });
    console.log(`[${now()}] Bengali match over after ${played} own turns; the slowest took ${page.turnMs} ms`);
    await page.waitForTimeout(300);
    assert.equal(await page.textContent('#final-h'), 'চূড়ান্ত স্থান');
    // Rule 9.1: the 60 s match clock ends the match, unless every seat finished first
    // (bots answer at once, and on a quiet machine the player's turns are quick too):
    // the reason shown is the stored one, in Bengali.
    const info = await endedMatch(matchId);
    const reasonBn = { clock: 'ম্যাচের ঘড়ি শেষ হয়ে গেছে।', all_finished: 'সব খেলোয়াড় শেষ করেছেন।' };
    assert.ok(info.end_reason in reasonBn, `end reason ${info.end_reason}`);
    assert.equal(await page.textContent('#final-reason'), reasonBn[info.end_reason]);
    await checkScreen(page, 'bn-05-final');
    const top = info.standings[0];
    const topSeat = (await page.evaluate(() => window.ludo.live.seats)).find((s) => s.seat === top.seat);
    const levelBn = { beginner: 'শিক্ষানবিশ', casual: 'সাধারণ', greedy: 'লোভী', expert: 'দক্ষ' };
    const topName = topSeat.bot ? (topSeat.bot_level ? `বট · ${levelBn[topSeat.bot_level]}` : 'বট') : topSeat.name;
    const who = `${seatBn[top.seat]} (${top.seat === mySeat ? `${topName}, আপনি` : topName})`;
    assert.equal(await page.textContent('#turn-info'), `ম্যাচ শেষ। ${new Intl.NumberFormat('bn').format(top.total)} পয়েন্ট নিয়ে ${who} জিতেছে।`);
    assert.match(await page.textContent('#turn-info'), /[০-৯]/, 'Bengali digits');
    await assertPlansResolved(matchId, mySeat, sent);

    await page.tap('#final-replay');
    await page.waitForSelector('#screen-replay:not([hidden])');
    await page.waitForFunction(() => Number(document.querySelector('#rp-turn').dataset.turns) > 0);
    assert.match(await page.textContent('#replay-h'), /^রিপ্লে — লড়াই, [০-৯]+টি পালা$/);
    assert.match(await page.textContent('#rp-turn'), /^শুরু/);
    await page.tap('#rp-last');
    assert.equal(await page.textContent('#rp-check'), 'এখানে আবার খেলা পালাগুলো ঠিক এই মোট পয়েন্টই দেয়।');
    await page.waitForFunction(() => document.querySelector('#rp-dice')?.dataset.state === 'ok');
    assert.match(await page.textContent('#rp-dice'), /^ছক্কা যাচাই হয়েছে: /);
    await checkScreen(page, 'bn-06-replay', { axe: true });

    // The switch: Hindi, remembered over a reload; back to English.
    await page.selectOption('#lang', 'hi');
    // Only the active language's table is loaded: the switch fetches Hindi's first.
    await page.waitForFunction(() => document.documentElement.lang === 'hi');
    assert.match(await page.textContent('#replay-h'), /^रीप्ले — भिड़ंत, \d+ बारियाँ$/);
    await page.reload();
    await page.waitForSelector('#screen-replay:not([hidden])');
    await page.waitForFunction(() => Number(document.querySelector('#rp-turn').dataset.turns) > 0);
    assert.equal(await page.inputValue('#lang'), 'hi');
    // Still the player's own view: their seat bottom-left.
    assert.equal(await page.inputValue('#replay-view-seat'), mySeat);
    assert.equal(await page.textContent('#rp-first'), '« पहली');
    await checkScreen(page, 'hi-06-replay', { axe: true });
    await page.selectOption('#lang', 'en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    assert.equal(await page.textContent('#rp-first'), '« First');

    assert.deepEqual(errors, [], 'no script errors in the pages');
  } finally {
    await player.close();
  }
});

/** Standings of the UI table: {seat: total}. */
test('a public lobby is listed on another phone and joined with its button; ratings on the home screen', { skip: SKIP, timeout: 90_000 }, async () => {
  await mkdir(ART, { recursive: true });
  const errors = [];
  const host = await openBrowser('host', errors);
  const guest = await openBrowser('guest', errors);
  try {
    await signIn(host.page, 'Hosta');
    await signIn(guest.page, 'Guesto');
    // The leaderboard card and the player's own ratings (new player: 0.0).
    await guest.page.waitForFunction(() => document.querySelector('#my-rating').textContent.includes('Journey'));
    assert.match(await guest.page.textContent('#my-rating'), /Journey 0\.0/);
    // The bot levels' ratings, apart from the players (GET /api/v1/leaderboard/bots,
    // served from crates/bot/ratings.json): journey then clash, best μ − 3σ first.
    await guest.page.waitForFunction(() => document.querySelectorAll('#bot-board tbody tr[data-level]').length === 8);
    const botRows = await guest.page.$$eval('#bot-board tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    const file = JSON.parse(await readFile(new URL('../../crates/bot/ratings.json', import.meta.url), 'utf8')).ratings;
    const names = { journey: 'Journey', clash: 'Clash', beginner: 'Beginner', casual: 'Casual', greedy: 'Greedy', expert: 'Expert' };
    const cons = (r) => r.mu - 3 * r.sigma;
    const want = ['journey', 'clash'].flatMap((m) => {
      const lines = file.filter((r) => r.mode === m).sort((a, b) => cons(b) - cons(a));
      return [[`${names[m]} · ${lines[0].matches} matches between bots`], ...lines.map((r) => [names[r.level], cons(r).toFixed(1), r.mu.toFixed(1), r.sigma.toFixed(1)])];
    });
    assert.deepEqual(botRows, want);
    assert.deepEqual(botRows.slice(0, 2), [['Journey · 500 matches between bots'], ['Expert', '31.7', '34.4', '0.9']]);
    // A public lobby: listed for the guest (private lobbies never are).
    await host.page.tap('#lobby-public');
    await host.page.tap('#lobby-create-btn');
    await host.page.waitForSelector('#lobby-box:not([hidden])');
    const code = (await host.page.textContent('#lobby-code-show')).trim();
    await guest.page.waitForSelector('#open-lobbies li button');
    assert.match(await guest.page.textContent('#open-lobbies'), /host Hosta · 1\/4 players/);
    await checkScreen(guest.page, 'web-08-open-lobbies', { axe: true });
    await guest.page.tap('#open-lobbies li button');
    await guest.page.waitForSelector('#lobby-box:not([hidden])');
    assert.equal((await guest.page.textContent('#lobby-code-show')).trim(), code);
    await host.page.waitForFunction(() => document.querySelectorAll('#lobby-members li').length === 2);
    // Both leave: the lobby closes and the list empties.
    await guest.page.tap('#lobby-leave');
    await host.page.tap('#lobby-leave');
    await guest.page.waitForFunction(() => !document.querySelector('#open-lobbies li button'));
    assert.deepEqual(errors, [], 'no script errors in the pages');
  } finally {
    await host.close();
    await guest.close();
  }
});

test('after a rated match of two phones: the rating change on the results, a rematch offered and accepted', { skip: SKIP, timeout: 180_000 }, async () => {
  await mkdir(ART, { recursive: true });
  const errors = [];
  const host = await openBrowser('rhost', errors);
  const guest = await openBrowser('rguest', errors);
  try {
    await signIn(host.page, 'Rhea');
    await signIn(guest.page, 'Ravi');
    // A private lobby of the two, bots fill the other seats.
    await host.page.tap('#lobby-create-btn');
    await host.page.waitForSelector('#lobby-box:not([hidden])');
    const code = (await host.page.textContent('#lobby-code-show')).trim();
    await guest.page.fill('#lobby-code', code);
    await guest.page.tap('#lobby-join button[type=submit]');
    await host.page.waitForFunction(() => document.querySelectorAll('#lobby-members li').length === 2);
    await host.page.tap('#lobby-start');
    // Nobody moves: the turn timers pass their turns until the match clock (60 s) ends it.
    for (const p of [host.page, guest.page]) await p.waitForSelector('#final:not([hidden])', { timeout: 120_000 });
    // Two humans: a rated match; each sees its own rating change.
    for (const p of [host.page, guest.page]) assert.match(await p.textContent('#final-rating'), /^Your rating: -?\d+\.\d \([+-−]?\d+\.\d\)$/);
    // Guests: the rating lives only in this browser until claimed; the results say so,
    // with a button to the account screen's claim form (issue 29).
    for (const p of [host.page, guest.page]) {
      assert.equal(await p.textContent('#final-claim-text'), 'As a guest, your rating is kept only in this browser: clear its data or lose this device and it is gone. Claim your account to keep it.');
    }
    await checkScreen(guest.page, 'en-account-09-claim-reminder', { axe: true });
    await guest.page.tap('#final-claim-link');
    await guest.page.waitForSelector('#screen-account:not([hidden]) #acct-claim:not([hidden])');
    await guest.page.waitForFunction(() => document.activeElement?.id === 'claim-username', null, { timeout: 5000 });
    await guest.page.goBack();
    await guest.page.waitForSelector('#final:not([hidden])');
    await host.page.tap('#final-rematch');
    await host.page.waitForSelector('#lobby-box:not([hidden])');
    await guest.page.waitForSelector('#rematch-box:not([hidden])');
    assert.equal(await guest.page.textContent('#rematch-text'), 'Rhea offers a rematch.');
    // Seen wherever the player is on the page (here: the results, scrolled down),
    // and announced (an alert).
    for (const y of [0, 100000]) {
      await guest.page.evaluate((top) => window.scrollTo(0, top), y);
      const box = await guest.page.$eval('#rematch-box', (e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, h: window.innerHeight }; });
      assert.ok(box.top >= 0 && box.bottom <= box.h, `the rematch offer is in the viewport at scroll ${y}: ${JSON.stringify(box)}`);
    }
    assert.equal(await guest.page.getAttribute('#rematch-text', 'role'), 'alert');
    await checkScreen(guest.page, 'web-09-rematch-offer', { axe: true });
    await guest.page.tap('#rematch-accept');
    await guest.page.waitForSelector('#lobby-box:not([hidden])');
    await host.page.waitForFunction(() => document.querySelectorAll('#lobby-members li').length === 2);
    assert.notEqual((await host.page.textContent('#lobby-code-show')).trim(), code, 'a new lobby');
    await guest.page.tap('#lobby-leave');
    await host.page.tap('#lobby-leave');
    assert.deepEqual(errors, [], 'no script errors in the pages');
  } finally {
    await host.close();
    await guest.close();
  }
});

async function shownTotals(page, selector) {
  return page.$$eval(`${selector} tbody tr`, (rows) => Object.fromEntries(rows.map((r) => [r.dataset.seat, Number(r.dataset.total)])));
}

// ---------- issue 35: playing on the board (touch), per language ----------

/** Every frame the page sends and receives, parsed (for the preview checks). */
function recordFrames(page) {
  const log = [];
  page.on('websocket', (ws) => {
    const keep = (dir) => (f) => {
      try {
        log.push({ dir, at: Date.now(), ...JSON.parse(f.payload) });
      } catch {
        // not JSON
      }
    };
    ws.on('framesent', keep('>'));
    ws.on('framereceived', keep('<'));
  });
  return log;
}

/**
 * Plays the own turn shown in the bottom sheet by taps on the board only: a piece,
 * then one of its lit destinations (a penalised one when offered, to see the
 * warning), up to two pieces, then the sheet's Submit. Returns what was seen.
 */
async function tapTurn(page, n, shots) {
  const turnNumber = await page.evaluate(() => window.ludo.live.turn.turn_number);
  const ready = () => page.waitForFunction(() => !document.querySelector('#sheet-submit')?.disabled, null, { timeout: 8000 });
  await ready();
  const seen = { turnNumber, pieces: 0, warned: false, targets: [] };
  for (let k = 0; k < 2; k++) {
    const pieces = page.locator('#board .piece.selectable');
    const count = await pieces.count();
    if (!count) break;
    const before = await page.evaluate(() => (window.ludo.live?.planner ? JSON.stringify(window.ludo.live.planner.plan()) : null));
    if (before === null) break; // the turn is over (timer or match clock)
    const piece = pieces.nth((n + k) % count);
    const inPlan = await piece.evaluate((g) => {
      const pl = window.ludo.live.planner;
      const p = g.dataset.piece;
      return p === 'R' ? pl.royal !== null : pl.exits.has(p) || pl.moves[p].length > 0;
    });
    if (inPlan) break;
    const pname = await piece.getAttribute('data-piece');
    await piece.tap();
    // A stack (or pieces crowded together) fans out: the fanned piece is tapped.
    await page.waitForFunction((q) => document.querySelector('#board-frame .fan') || window.ludo.live?.planner?.picked === q, pname, { timeout: 3000 }).catch(() => {});
    if (await page.locator('#board-frame .fan').count()) await page.tap(`#board-frame .fan .fan-piece[data-piece="${pname}"]`);
    const targets = page.locator('#board .target');
    await page.waitForFunction(() => document.querySelectorAll('#board .target').length > 0 || /\S/.test(document.querySelector('#sheet-hint')?.textContent ?? ''), null, { timeout: 5000 });
    const nt = await targets.count();
    if (!nt) continue;
    // Each destination is a tap target of at least 44 CSS px at this zoom.
    const sizes = await page.$$eval('#board .target .target-disc', (cs) => cs.map((c) => Math.round(c.getBoundingClientRect().width)));
    seen.targets.push(...sizes);
    // A destination reads "+N" (its steps, in the page's digits) or "↑" (an exit with no
    // steps): never a bare number that could be taken for the tile number beside it.
    const marks = await page.$$eval('#board .target .target-text', (ts) => ts.map((x) => x.textContent));
    for (const m of marks) assert.match(m, /^(\+\p{Nd}+|↑)$/u, `destination marker ${JSON.stringify(m)}`);
    if (shots.first) {
      shots.first = false;
      await page.screenshot({ path: path.join(ART, `${page.artPrefix}-tap-01-destinations.png`) });
    }
    const warnTarget = page.locator('#board .target.target-warn');
    const target = (await warnTarget.count()) ? warnTarget.first() : targets.nth((n * 3 + k) % nt);
    await target.tap();
    // (The turn may end meanwhile: the match clock; then the planner is gone.)
    await page.waitForFunction((b) => { const pl = window.ludo.live?.planner; return !pl || JSON.stringify(pl.plan()) !== b; }, before, { timeout: 5000 });
    await ready();
    seen.pieces += 1;
  }
  seen.warned = await page.isVisible('#sheet-warn');
  if (seen.warned && shots.warn !== false) {
    shots.warn = false;
    await page.screenshot({ path: path.join(ART, `${page.artPrefix}-tap-05-warning.png`) });
  }
  if (shots.second && seen.pieces) {
    shots.second = false;
    await page.screenshot({ path: path.join(ART, `${page.artPrefix}-tap-02-previewed.png`) });
  }
  seen.plan = await page.evaluate(() => window.ludo.live?.planner?.plan() ?? null);
  if (!seen.plan) return seen;
  await page.tap('#sheet-submit');
  await page.waitForFunction((turn) => document.querySelector('#sheet').hidden || window.ludo.live?.turn?.turn_number !== turn, turnNumber, { timeout: 15000 });
  return seen;
}

/** The Latin names the tests sign in with. */
const GUEST_NAMES = ['Guesto', 'Hosta', 'Ravi', 'Rhea', 'Tester', 'Watcher', 'Tapper', 'Screens', 'Clocky'];

/** Names of the standard algorithms the dice check names (SHA-256, HKDF, ChaCha20): proper names, not translated. */
const ALGORITHM_NAMES = ['SHA', 'HKDF', 'ChaCha'];

/** Latin words a language's own rule texts use (../shared/seeds), allowed on its screens. */
const OWN_LATIN = {
  bn: ['Yard', 'Home', 'Forward', 'Backward', 'midpoint', 'tile', 'tiles', 'Home path', 'roll', 'rolls', 'exit', 'credits', 'store'],
  hi: ['Yard', 'Home', 'Forward', 'Backward', 'midpoint', 'tile', 'tiles', 'Home path', 'checkpoint', 'cycle'],
};

/**
 * Visible text of the page in another language than `lang`: any Latin word (3
 * letters or more) not in the rule texts' own list, outside names, ids, codes and
 * piece names (G1…R).
 */
async function foreignWords(page, lang) {
  const words = await page.evaluate(() => {
    const out = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('[hidden], script, style, code, .code, .name, #who-name, #lang, .lang-pick, option, .piece, title, #match-id, #rp-match-id, #rp-seed, #chat-log, [translate=no]')) continue;
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      for (const w of n.textContent.match(/[A-Za-z]{3,}/g) ?? []) out.push(w);
    }
    return out;
  });
  // Player names are the players' own (user content, never translated): the Latin
  // names of this file's guests, who may show in the lists of running matches.
  const allowed = new Set([...OWN_LATIN[lang].flatMap((w) => w.split(' ')), ...GUEST_NAMES, ...ALGORITHM_NAMES]);
  return [...new Set(words)].filter((w) => !allowed.has(w));
}

/** A match each language's tapping test ended (for the screens tests below). */
const endedMatches = {};

for (const [lang, locale, name] of [['en', 'en-GB', 'Tapper'], ['bn', 'bn-BD', 'ট্যাপার'], ['hi', 'hi-IN', 'टैपर']]) {
  test(`${lang} at 390×844: a whole match played only by tapping the board, every plan previewed by the server first`, { skip: SKIP, timeout: 150_000 }, async () => {
    await mkdir(ART, { recursive: true });
    const errors = [];
    const player = await openBrowser(`tap-${lang}`, errors, { locale });
    const { page } = player;
    page.artPrefix = `${lang}`;
    const frames = recordFrames(page);
    try {
      await signIn(page, name);
      assert.equal(await page.getAttribute('html', 'lang'), lang);
      await page.tap('#lobby-create-btn');
      await page.waitForSelector('#lobby-box:not([hidden])');
      await page.tap('#lobby-start');
      await page.waitForSelector('#screen-match:not([hidden])', { timeout: 15000 });
      const mySeat = await page.evaluate(async () => {
        for (let i = 0; i < 100 && !window.ludo.live?.mode; i++) await new Promise((r) => setTimeout(r, 50));
        return window.ludo.live.yourSeat;
      });
      const shots = { first: true, second: true };
      const turns = [];
      let boardPx = 0;
      let hitPx = [];
      for (;;) {
        const which = await Promise.race([
          page.waitForSelector('#sheet:not([hidden])', { timeout: 90000 }).then(() => 'turn'),
          page.waitForSelector('#final:not([hidden])', { timeout: 90000 }).then(() => 'final'),
        ]);
        if (which === 'final') break;
        if (!boardPx) {
          boardPx = await page.$eval('#board-frame', (f) => Math.round(f.getBoundingClientRect().width));
          hitPx = await page.$$eval('#board .piece.selectable .hit', (cs) => cs.map((c) => Math.round(c.getBoundingClientRect().width)));
          if (lang !== 'en') assert.deepEqual(await foreignWords(page, lang), [], `${lang}: match screen words in another language`);
          await assertAxe(page, `${lang}-tap-turn`);
        }
        try {
          turns.push(await tapTurn(page, turns.length, shots));
        } catch (e) {
          if (await page.isVisible('#final')) break;
          throw e;
        }
      }
      // The results: every column visible at this width, no sideways scrolling.
      await page.waitForSelector('#final:not([hidden])');
      await assertFits(page, `${lang}-tap-final`);
      const wide = await page.$$eval('table', (ts) => ts.filter((t) => t.offsetParent && t.scrollWidth > t.clientWidth + 1).map((t) => t.id));
      assert.deepEqual(wide, [], 'no table wider than its box');
      assert.ok(await page.isHidden('#direction-set'), 'direction is gone once the match is over');
      await assertAxe(page, `${lang}-tap-final`);
      if (lang !== 'en') assert.deepEqual(await foreignWords(page, lang), [], `${lang}: results words in another language`);
      await page.screenshot({ path: path.join(ART, `${lang}-tap-03-final.png`), fullPage: true });
      endedMatches[lang] = await page.evaluate(() => window.ludo.live.matchId);
      // The replay of the match: audited too.
      await page.tap('#final-replay');
      await page.waitForSelector('#screen-replay:not([hidden])');
      await page.waitForFunction(() => Number(document.querySelector('#rp-turn').dataset.turns) > 0, null, { timeout: 15000 });
      await checkScreen(page, `${lang}-tap-04-replay`, { axe: true });
      if (lang !== 'en') assert.deepEqual(await foreignWords(page, lang), [], `${lang}: replay words in another language`);

      // Every plan submitted was previewed first (the same plan, same turn) and
      // accepted; a previewed blockade penalty showed the warning before sending.
      const sent = frames.filter((f) => f.dir === '>' && f.t === 'submit_turn');
      assert.ok(sent.length >= 2, `${sent.length} plans submitted by taps`);
      const played = turns.filter((x) => x.pieces > 0).length;
      assert.ok(played >= 2, `${played} turns moved pieces by taps`);
      for (const s of sent) {
        const asked = frames.filter((f) => f.dir === '>' && f.t === 'preview_plan' && f.at <= s.at && f.d.turn_number === s.d.turn_number && JSON.stringify(f.d.plan) === JSON.stringify(s.d.plan));
        assert.ok(asked.length, `turn ${s.d.turn_number}: the plan was previewed before it was sent`);
        const answer = frames.find((f) => f.dir === '<' && f.t === 'plan_preview' && asked.some((a) => a.id === f.d.in_reply_to));
        assert.ok(answer && answer.at <= s.at, `turn ${s.d.turn_number}: the preview answered before the plan was sent`);
        const penalised = answer.d.events.some((e) => e.type === 'blocked' && e.seat === mySeat && e.penalty > 0);
        const seen = turns.find((x) => x.turnNumber === s.d.turn_number);
        assert.equal(seen.warned, penalised, `turn ${s.d.turn_number}: the warning shows exactly for a penalised plan`);
        const refused = frames.find((f) => f.dir === '<' && f.t === 'error' && f.d.in_reply_to === s.id);
        assert.ok(!refused || refused.d.code === 'match_over' || refused.d.code === 'stale_turn', `turn ${s.d.turn_number} refused: ${JSON.stringify(refused?.d)}`);
      }
      const targets = turns.flatMap((x) => x.targets);
      assert.ok(targets.length > 0 && Math.min(...targets) >= 44, `destinations are ≥ 44 px: ${Math.min(...targets)}`);
      assert.ok(hitPx.length && Math.min(...hitPx) >= 44, `pieces are ≥ 44 px tap targets: ${hitPx}`);
      assert.ok(boardPx >= 370, `the board uses the width: ${boardPx} px`);
      console.log(`[${now()}] ${lang}: board ${boardPx} px, piece targets ${Math.min(...hitPx)}–${Math.max(...hitPx)} px, destinations ${Math.min(...targets)}–${Math.max(...targets)} px, ${sent.length} plans, ${turns.filter((x) => x.warned).length} warned`);
      assert.deepEqual(errors, []);
    } finally {
      await player.close();
    }
  });
}

// ---------- issue 35: stacks fan out; the board zooms (buttons, pinch, keys) ----------

/** Starts a private match of the signed-in player against three bots; resolves with the player's seat. */
async function startBotMatch(page) {
  await page.tap('#lobby-create-btn');
  await page.waitForSelector('#lobby-box:not([hidden])');
  await page.tap('#lobby-start');
  await page.waitForSelector('#screen-match:not([hidden])', { timeout: 15000 });
  return page.evaluate(async () => {
    for (let i = 0; i < 100 && !window.ludo.live?.mode; i++) await new Promise((r) => setTimeout(r, 50));
    return window.ludo.live.yourSeat;
  });
}

/**
 * Waits for the player's next own turn after turn `after` (the bottom sheet shown and
 * the server's preview of the empty plan answered); null when the match ended first.
 */
async function nextOwnTurn(page, after = 0) {
  const turn = page.waitForFunction((n) => {
    const l = window.ludo.live;
    return !document.querySelector('#sheet').hidden && l?.planner && l.turn.turn_number > n && !document.querySelector('#sheet-submit')?.disabled;
  }, after, { timeout: 60000 }).then(() => 'turn', () => null);
  const final = page.waitForSelector('#final:not([hidden])', { timeout: 60000 }).then(() => 'final', () => null);
  const which = await Promise.race([turn, final]);
  if (which !== 'turn') return null;
  return page.evaluate(() => window.ludo.live.turn.turn_number);
}

const planJson = (page) => page.evaluate(() => (window.ludo.live?.planner ? JSON.stringify(window.ludo.live.planner.plan()) : null));

/**
 * Taps the player's own piece `p` where it is drawn (a real touch at its centre,
 * scrolled into sight first), and when the tap fans out a stack or crowded pieces,
 * that piece in the fan. Resolves with the number of lit destinations.
 */
async function tapOwnPiece(page, seat, p) {
  const sel = `#board .piece[data-seat="${seat}"][data-piece="${p}"] .piece-body`;
  await page.$eval(sel, (e) => e.scrollIntoView({ block: 'center', inline: 'center' }));
  const b = await page.$eval(sel, (e) => { const r = e.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
  await page.touchscreen.tap(b.x, b.y);
  await page.waitForFunction((q) => document.querySelector('#board-frame .fan') || window.ludo.live?.planner?.picked === q, p, { timeout: 3000 });
  if (await page.locator('#board-frame .fan').count()) await page.tap(`#board-frame .fan .fan-piece[data-piece="${p}"]`);
  await page.waitForFunction((q) => window.ludo.live?.planner?.picked === q, p, { timeout: 3000 });
  await page.waitForFunction(() => document.querySelectorAll('#board .target').length > 0 || !window.ludo.live?.planner?.current(), null, { timeout: 3000 }).catch(() => {});
  return page.locator('#board .target').count();
}

/** Taps a lit destination (`text`: its label, else one without a penalty) and waits for the plan to change. */
async function tapDestination(page, text = null) {
  const before = await planJson(page);
  const all = page.locator('#board .target');
  const pick = text ? page.locator('#board .target', { hasText: text }) : page.locator('#board .target:not(.target-warn)');
  const target = (await pick.count()) ? pick.first() : all.first();
  await target.tap();
  await page.waitForFunction((b) => { const pl = window.ludo.live?.planner; return !pl || JSON.stringify(pl.plan()) !== b; }, before, { timeout: 5000 });
  await page.waitForFunction(() => !window.ludo.live?.planner || !document.querySelector('#sheet-submit')?.disabled, null, { timeout: 5000 });
}

/** Taps the sheet's Submit and waits until the turn is over; resolves with the submit_turn frame. */
async function tapSubmit(page, frames, turnNumber) {
  await page.tap('#sheet-submit');
  await page.waitForFunction((n) => document.querySelector('#sheet').hidden || window.ludo.live?.turn?.turn_number !== n, turnNumber, { timeout: 15000 });
  const sent = frames.filter((f) => f.dir === '>' && f.t === 'submit_turn' && f.d.turn_number === turnNumber).pop();
  assert.ok(sent, `turn ${turnNumber}: a plan was submitted`);
  await page.waitForTimeout(300);
  const refused = frames.find((f) => f.dir === '<' && f.t === 'error' && f.d.in_reply_to === sent.id);
  assert.ok(!refused, `turn ${turnNumber} refused: ${JSON.stringify(refused?.d)}`);
  return sent;
}

/** Sizes on the board now: the zoom, frame and board widths, ring tiles, their pitch, pieces, touch discs and destinations (CSS px). */
function boardSizes(page) {
  return page.evaluate(() => {
    const f = document.querySelector('#board-frame');
    const svg = document.querySelector('#board');
    const r = (e) => e.getBoundingClientRect();
    const mid = (e) => { const b = r(e); return [b.x + b.width / 2, b.y + b.height / 2]; };
    const tiles = [...svg.querySelectorAll('circle.tile')];
    const a = svg.querySelector('circle.tile[data-ring="1"]');
    const b = svg.querySelector('circle.tile[data-ring="2"]');
    const [ax, ay] = mid(a);
    const [bx, by] = mid(b);
    const min = (es) => (es.length ? Math.min(...es.map((e) => Math.min(r(e).width, r(e).height))) : null);
    return {
      zoom: window.ludo.board.zoom,
      frame: r(f).width,
      board: r(svg).width,
      scrollW: f.scrollWidth,
      clientW: f.clientWidth,
      tile: min(tiles),
      pitch: Math.hypot(bx - ax, by - ay),
      piece: min([...svg.querySelectorAll('.piece .piece-body')].filter((e) => !e.closest('.piece').style.transform.includes('scale'))),
      hit: min([...svg.querySelectorAll('.piece.selectable .hit')]),
      target: min([...svg.querySelectorAll('.target .target-disc')]),
    };
  });
}

const round = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'number' ? Math.round(v * 100) / 100 : v]));

const stackFigures = {};
const zoomFigures = {};

for (const [lang, locale, name] of [['en', 'en-GB', 'Tapper'], ['bn', 'bn-BD', 'ট্যাপার'], ['hi', 'hi-IN', 'टैपर']]) {
  test(`${lang} at 390×844: a stack of own pieces fans out on a tap; each fanned piece (≥ 44 px) is tapped and moved by tapping a destination`, { skip: SKIP, timeout: 120_000 }, async () => {
    await mkdir(ART, { recursive: true });
    const errors = [];
    const player = await openBrowser(`stack-${lang}`, errors, { locale });
    const { page } = player;
    const frames = recordFrames(page);
    try {
      await signIn(page, name);
      const seat = await startBotMatch(page);
      // Turn after turn: the first brings two guardians out of the Yard onto the entry
      // tile (rule 4.3: two exit credits at the start; a piece on its own entry tile
      // cannot be captured, rule 7.6), which makes a stack for the next turn.
      let turn = 0;
      let done = null;
      for (let round = 0; round < 6 && !done; round++) {
        turn = await nextOwnTurn(page, turn);
        assert.ok(turn, 'an own turn before the match ended');
        const stack = await page.evaluate(() => {
          const l = window.ludo.live;
          const tappable = new Set(l.planner.tappable());
          const by = {};
          for (const [p, loc] of Object.entries(l.state.seats[l.yourSeat].pieces)) if (loc !== 'yard' && loc !== 'home' && tappable.has(p)) (by[loc] ??= []).push(p);
          const e = Object.entries(by).find(([, ps]) => ps.length >= 2);
          return e ? { loc: e[0], pieces: e[1] } : null;
        });
        if (!stack) {
          const yard = await page.evaluate(() => { const l = window.ludo.live; return Object.entries(l.state.seats[l.yourSeat].pieces).filter(([p, loc]) => loc === 'yard' && p !== 'R').map(([p]) => p); });
          for (const p of yard.slice(0, 2)) {
            if (await tapOwnPiece(page, seat, p)) await tapDestination(page, '↑');
          }
          await tapSubmit(page, frames, turn);
          continue;
        }
        // The stack is drawn on one tile: a tap there fans its pieces out.
        const tile = `#board [data-ring="${stack.loc.split(':')[1]}"]`;
        const openFan = async () => {
          await page.$eval(tile, (e) => e.scrollIntoView({ block: 'center', inline: 'center' }));
          const c = await page.$eval(tile, (e) => { const r = e.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
          await page.touchscreen.tap(c.x, c.y);
          await page.waitForSelector('#board-frame .fan', { timeout: 2000 });
        };
        await openFan();
        const fan = await page.$$eval('#board-frame .fan .fan-piece', (bs) => bs.map((b) => { const r = b.getBoundingClientRect(); return { piece: b.dataset.piece, w: r.width, h: r.height, x: r.x, y: r.y, right: r.right, bottom: r.bottom, label: b.getAttribute('aria-label') }; }));
        assert.deepEqual(fan.map((x) => x.piece).sort(), [...stack.pieces].sort(), 'the fan holds every stacked piece');
        for (const x of fan) assert.ok(x.w >= 44 && x.h >= 44, `fanned ${x.piece} is ${x.w}×${x.h} px`);
        for (let i = 1; i < fan.length; i++) assert.ok(fan[i].x >= fan[i - 1].right || fan[i].y >= fan[i - 1].bottom, 'fanned pieces do not overlap');
        const box = await page.$eval('#board-frame .fan', (e) => { const r = e.getBoundingClientRect(); const s = document.querySelector('#sheet').getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, sheetTop: s.top, vw: innerWidth }; });
        assert.ok(box.top >= 0 && box.left >= 0 && box.right <= box.vw && box.bottom <= box.sheetTop, `the fan is in sight: ${JSON.stringify(box)}`);
        stackFigures[lang] = { stack: stack.pieces.join('+'), fanned: fan.map((x) => `${x.piece} ${Math.round(x.w)}×${Math.round(x.h)}`), gap: fan.length > 1 ? Math.round(fan[1].x - fan[0].right) : null };
        if (lang !== 'en') assert.deepEqual(await foreignWords(page, lang), [], `${lang}: fan words in another language`);
        await assertAxe(page, `${lang}-stack-fan`);
        await page.screenshot({ path: path.join(ART, `${lang}-stack-01-fan.png`) });
        // Every fanned piece: tapped in the fan, then moved by tapping a destination.
        const moved = [];
        for (const p of stack.pieces) {
          if (!(await page.locator('#board-frame .fan').count())) await openFan();
          await page.tap(`#board-frame .fan .fan-piece[data-piece="${p}"]`);
          await page.waitForFunction((q) => window.ludo.live?.planner?.picked === q, p, { timeout: 3000 });
          assert.equal(await page.locator('#board-frame .fan').count(), 0, 'the fan closes once a piece is chosen');
          await page.waitForFunction(() => document.querySelectorAll('#board .target').length > 0 || !window.ludo.live?.planner?.current(), null, { timeout: 3000 }).catch(() => {});
          if (!(await page.locator('#board .target').count())) continue;
          if (!moved.length) await page.screenshot({ path: path.join(ART, `${lang}-stack-02-destinations.png`) });
          await tapDestination(page);
          moved.push(p);
        }
        await page.screenshot({ path: path.join(ART, `${lang}-stack-03-planned.png`) });
        assert.ok(moved.length >= 2, `at least two stacked pieces moved by taps: ${moved}`);
        const sent = await tapSubmit(page, frames, turn);
        const plan = sent.d.plan;
        for (const p of moved) assert.ok(p === 'R' ? plan.royal > 0 : plan.moves[p]?.length > 0, `${p} moves in the plan sent: ${JSON.stringify(plan)}`);
        done = { moved, plan };
      }
      assert.ok(done, 'a stack was played');
      console.log(`[${now()}] ${lang}: stack ${stackFigures[lang].stack}, fanned ${stackFigures[lang].fanned.join(', ')} (gap ${stackFigures[lang].gap} px), moved ${done.moved.join('+')}`);
      assert.deepEqual(errors, []);
    } finally {
      await player.close();
    }
  });

  test(`${lang} at 390×844: the board zooms over the full width (+/− buttons, pinch, keys); tiles and pieces ≥ 44 px where tapped; turns played by taps zoomed out and in`, { skip: SKIP, timeout: 120_000 }, async () => {
    await mkdir(ART, { recursive: true });
    const errors = [];
    const player = await openBrowser(`zoom-${lang}`, errors, { locale });
    const { page } = player;
    const frames = recordFrames(page);
    const figures = {};
    try {
      await signIn(page, name);
      // The page does not stop the browser's own zoom.
      const meta = await page.getAttribute('meta[name=viewport]', 'content');
      assert.doesNotMatch(meta, /user-scalable\s*=\s*(no|0)|maximum-scale\s*=\s*1(\.0*)?\b/, `viewport meta: ${meta}`);
      const seat = await startBotMatch(page);
      const zoom = () => page.evaluate(() => window.ludo.board.zoom);
      // Turn 1: the board zoomed in by itself (tap zoom); then the whole board; a
      // piece tapped on the whole board brings the zoom back where its destinations
      // are 44 px, and the turn is played by taps.
      let turn = await nextOwnTurn(page, 0);
      assert.ok(turn, 'an own turn');
      figures.tap = await boardSizes(page);
      await page.tap('#zoom-fit');
      figures.whole = await boardSizes(page);
      assert.equal(figures.whole.zoom, 1);
      assert.ok(await page.isDisabled('#zoom-out'), '− is off on the whole board');
      await page.screenshot({ path: path.join(ART, `${lang}-zoom-01-whole.png`) });
      const own = await page.evaluate(() => { const l = window.ludo.live; return l.planner.tappable().filter((p) => p !== 'R'); });
      assert.ok((await tapOwnPiece(page, seat, own[0])) > 0, 'destinations after a tap on the whole board');
      figures.picked = await boardSizes(page);
      assert.ok(figures.picked.zoom > 1 && figures.picked.target >= 44, `destinations ≥ 44 px: ${JSON.stringify(round(figures.picked))}`);
      await tapDestination(page);
      await tapSubmit(page, frames, turn);

      // Turn 2: + up to the closest zoom; tiles and pieces ≥ 44 px there; played by taps.
      turn = await nextOwnTurn(page, turn);
      assert.ok(turn, 'a second own turn');
      await page.tap('#zoom-fit');
      const steps = [await zoom()];
      while (!(await page.isDisabled('#zoom-in'))) {
        await page.tap('#zoom-in');
        steps.push(await zoom());
        assert.ok(steps.at(-1) > steps.at(-2), `+ zooms in: ${steps}`);
      }
      figures.steps = steps.map((z) => Math.round(z * 100) / 100);
      assert.ok(steps[0] === 1 && steps.length >= 3, `+ from the whole board: ${figures.steps}`);
      figures.max = await boardSizes(page);
      for (const k of ['tile', 'pitch', 'piece', 'hit']) assert.ok(figures.max[k] >= 44, `${k} at the closest zoom: ${figures.max[k]} px`);
      const mine = await page.evaluate(() => { const l = window.ludo.live; return l.planner.tappable(); });
      assert.ok((await tapOwnPiece(page, seat, mine[0])) > 0, 'destinations at the closest zoom');
      assert.equal(await zoom(), steps.at(-1), 'tapping keeps the zoom');
      figures.maxTargets = (await boardSizes(page)).target;
      assert.ok(figures.maxTargets >= 44);
      await page.screenshot({ path: path.join(ART, `${lang}-zoom-02-closest.png`) });
      // The bottom sheet stays in thumb reach: at the bottom of the screen, Submit in it.
      const sheet = await page.$eval('#sheet', (e) => { const r = e.getBoundingClientRect(); const b = document.querySelector('#sheet-submit').getBoundingClientRect(); return { bottom: r.bottom, top: r.top, vh: innerHeight, submitBottom: b.bottom }; });
      assert.ok(Math.abs(sheet.bottom - sheet.vh) < 1 && sheet.submitBottom <= sheet.vh && sheet.top > sheet.vh / 2, `the sheet at the bottom: ${JSON.stringify(sheet)}`);
      await tapDestination(page);
      await tapSubmit(page, frames, turn);

      // Turn 3: the keys and a pinch (two touch points through the DevTools protocol).
      turn = await nextOwnTurn(page, turn);
      assert.ok(turn, 'a third own turn');
      const top = await zoom();
      await page.focus('#board-frame');
      await page.keyboard.press('-');
      const keyDown = await zoom();
      await page.keyboard.press('+');
      const keyUp = await zoom();
      await page.keyboard.press('0');
      const keyZero = await zoom();
      assert.ok(keyDown < top && keyUp === top && keyZero === 1, `keys − + 0: ${top} → ${keyDown} → ${keyUp} → ${keyZero}`);
      figures.keys = [top, keyDown, keyUp, keyZero].map((z) => Math.round(z * 100) / 100);
      const cdp = await page.context().newCDPSession(page);
      const f = await page.$eval('#board-frame', (e) => { e.scrollIntoView({ block: 'start' }); const r = e.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
      const underMid = () => page.evaluate(({ x, y }) => { const p = new DOMPoint(x, y).matrixTransform(document.querySelector('#board').getScreenCTM().inverse()); return [p.x, p.y]; }, f);
      const pinch = async (from, to) => {
        const pts = (d) => [{ x: f.x - d, y: f.y, id: 0 }, { x: f.x + d, y: f.y, id: 1 }];
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: pts(from) });
        for (let i = 1; i <= 8; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: pts(from + ((to - from) * i) / 8) });
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
        await page.waitForTimeout(50);
      };
      const before = await underMid();
      await pinch(40, 150);
      const pinchedOut = await zoom();
      const after = await underMid();
      assert.ok(pinchedOut > 3, `fingers apart zoom in: ${pinchedOut}`);
      assert.ok(Math.hypot(after[0] - before[0], after[1] - before[1]) < 12, `the board point between the fingers stays: ${before} → ${after}`);
      await page.screenshot({ path: path.join(ART, `${lang}-zoom-03-pinched.png`) });
      await pinch(150, 60);
      const pinchedIn = await zoom();
      assert.ok(pinchedIn < pinchedOut / 2, `fingers together zoom out: ${pinchedOut} → ${pinchedIn}`);
      figures.pinch = [1, pinchedOut, pinchedIn].map((z) => Math.round(z * 100) / 100);
      await cdp.detach();
      // − down to the whole board: the board fits its frame again (nothing to scroll).
      while (!(await page.isDisabled('#zoom-out'))) await page.tap('#zoom-out');
      figures.restored = await boardSizes(page);
      assert.equal(figures.restored.zoom, 1);
      assert.ok(Math.abs(figures.restored.board - figures.restored.frame) < 1 && figures.restored.scrollW <= figures.restored.clientW + 1, `restored: ${JSON.stringify(round(figures.restored))}`);
      assert.ok(figures.restored.frame >= 389, `the board uses the full width: ${figures.restored.frame} px`);
      if (await page.evaluate(() => !!window.ludo.live?.planner)) await page.tap('#sheet-pass');
      await assertFits(page, `${lang}-zoom-restored`);
      if (lang !== 'en') assert.deepEqual(await foreignWords(page, lang), [], `${lang}: zoom words in another language`);
      await assertAxe(page, `${lang}-zoom`);
      zoomFigures[lang] = figures;
      const fx = (m) => `zoom ${m.zoom.toFixed(2)}: board ${Math.round(m.board)} px, tiles ${m.tile.toFixed(1)} px (pitch ${m.pitch.toFixed(1)}), pieces ${m.piece.toFixed(1)} px, touch discs ${m.hit?.toFixed(1)} px${m.target ? `, destinations ${m.target.toFixed(1)} px` : ''}`;
      console.log(`[${now()}] ${lang}: frame ${Math.round(figures.whole.frame)} px; whole board ${fx(figures.whole)}; turn ${fx(figures.tap)}; after a tap on the whole board ${fx(figures.picked)}; closest ${fx(figures.max)}, destinations ${figures.maxTargets.toFixed(1)} px; + steps ${figures.steps}; keys ${figures.keys}; pinch ${figures.pinch}`);
      assert.deepEqual(errors, []);
    } finally {
      await player.close();
    }
  });
}

// Long names: 24 characters in English; in Bengali and Hindi 16 characters of 36 code
// points (conjuncts count as one character, as a reader counts them: such a name was
// refused while the server counted code points).
for (const [lang, locale, name] of [['en', 'en-GB', 'Bartholomew Featherstone'], ['bn', 'bn-BD', 'অর্ঘ্যদীপ বন্দ্যোপাধ্যায় রায়চৌধুরী'], ['hi', 'hi-IN', 'श्रीलक्ष्मीनारायण चट्टोपाध्याय शर्मा']]) {
  test(`${lang} at 390×844: the header stays two rows with a long name (the name shortened, Account and Sign out beside it); in a match the name stays inside its yard`, { skip: SKIP, timeout: 60_000 }, async () => {
    await mkdir(ART, { recursive: true });
    const errors = [];
    const player = await openBrowser(`header-${lang}`, errors, { locale });
    const { page } = player;
    try {
      await signIn(page, name);
      const h = await page.evaluate(() => {
        const box = (sel) => document.querySelector(sel).getBoundingClientRect();
        const who = document.querySelector('#who > span');
        // Lines of text in an element (a word broken across two lines counts 2).
        const lines = (sel) => {
          const r = document.createRange();
          r.selectNodeContents(document.querySelector(sel));
          return new Set([...r.getClientRects()].map((c) => Math.round(c.top))).size;
        };
        return { top: box('.top').height, title: box('.top h1 a').top, account: box('#account-link').top, signout: box('#signout').top, name: box('#who-name').top, clipped: who.scrollWidth > who.clientWidth, lines: [lines('#account-link'), lines('#signout'), lines('#who > span')] };
      });
      assert.deepEqual(h.lines, [1, 1, 1], `Account, Sign out and the name each on one line: ${JSON.stringify(h)}`);
      // Row 1: title, connection, language; row 2: name, Account, Sign out.
      assert.equal(h.signout, h.account, `Sign out beside Account: ${JSON.stringify(h)}`);
      assert.ok(h.account > h.title, `Account on the second row: ${JSON.stringify(h)}`);
      assert.ok(h.top <= 120, `the header is ${h.top} px high (two rows: at most 120)`);
      assert.equal(await page.textContent('#who-name'), name, 'the whole name is in the page (screen readers read it)');
      await checkScreen(page, `${lang}-header-long-name`);
      // In a match the name is drawn in the player's yard: inside it at the turn's
      // zoom, squeezed if need be.
      await page.tap('#lobby-create-btn');
      await page.waitForSelector('#lobby-box:not([hidden])');
      await page.tap('#lobby-start');
      await page.waitForSelector('#screen-match:not([hidden]) #leave-match:not([hidden])', { timeout: 15000 });
      await page.waitForFunction((n) => [...document.querySelectorAll('#board .yard-name')].some((e) => e.textContent === n), name, { timeout: 8000 });
      const yards = await page.$$eval('#board .yard', (gs) => gs.map((g) => {
        const t = g.querySelector('.yard-name').getBoundingClientRect();
        const r = g.querySelector('rect').getBoundingClientRect();
        return { name: g.querySelector('.yard-name').textContent, text: Math.round(t.width), yard: Math.round(r.width), left: t.left >= r.left - 1, right: t.right <= r.right + 1 };
      }));
      const mine = yards.find((y) => y.name === name);
      assert.ok(mine && mine.left && mine.right, `the long name inside its yard: ${JSON.stringify(yards)}`);
      for (const y of yards) assert.ok(y.left && y.right, `every name inside its yard: ${JSON.stringify(y)}`);
      await page.screenshot({ path: path.join(ART, `${lang}-long-name-match.png`) });
      assert.deepEqual(errors, []);
    } finally {
      await player.close();
    }
  });
}

test('Leave returns home (Hindi, 360 px): the match screen and its Leave button are gone', { skip: SKIP, timeout: 60_000 }, async () => {
  await mkdir(ART, { recursive: true });
  const errors = [];
  const player = await openBrowser('leave', errors, { width: 360, height: 780, locale: 'hi-IN' });
  const { page } = player;
  try {
    await signIn(page, 'छोड़ने वाला');
    await page.tap('#lobby-create-btn');
    await page.waitForSelector('#lobby-box:not([hidden])');
    await page.tap('#lobby-start');
    await page.waitForSelector('#leave-match:not([hidden])', { timeout: 15000 });
    page.once('dialog', (d) => d.accept());
    await page.tap('#leave-match');
    await page.waitForSelector('#screen-home:not([hidden])', { timeout: 8000 });
    assert.ok(await page.isHidden('#screen-match'), 'the match screen is gone');
    assert.ok(await page.isHidden('#leave-match'), 'no Leave button');
    assert.equal(await page.evaluate(() => location.hash), '#/');
    await checkScreen(page, 'hi-06-after-leave', { axe: true });
    assert.deepEqual(await foreignWords(page, 'hi'), [], 'home in Hindi');
    assert.deepEqual(errors, []);
  } finally {
    await player.close();
  }
});

for (const [lang, locale] of [['en', 'en-GB'], ['bn', 'bn-BD'], ['hi', 'hi-IN']]) {
  test(`${lang} at 360 and 1280 px: sign-in, home, queue and replay screens have no serious axe violation and no foreign words`, { skip: SKIP, timeout: 90_000 }, async () => {
    await mkdir(ART, { recursive: true });
    const errors = [];
    for (const [width, height] of [[360, 780], [1280, 900]]) {
      const player = await openBrowser(`screens-${lang}-${width}`, errors, { width, height, locale });
      const { page } = player;
      const words = async (where) => {
        if (lang !== 'en') assert.deepEqual(await foreignWords(page, lang), [], `${lang} ${width} ${where}: words in another language`);
      };
      try {
        await page.goto(BASE);
        await page.waitForSelector('#screen-signin:not([hidden])');
        await page.waitForFunction((l) => document.documentElement.lang === l, lang);
        await checkScreen(page, `${lang}-${width}-00-signin`, { axe: true });
        await words('sign-in');
        await signIn(page, { en: 'Screens', bn: 'পর্দা', hi: 'पर्दा' }[lang]);
        await checkScreen(page, `${lang}-${width}-01-home`, { axe: true });
        await words('home');
        // The queue (bots fill at once on the test server: the match may start).
        await page.tap('#qp-journey');
        await page.waitForSelector('#queue-box:not([hidden]), #screen-match:not([hidden])', { timeout: 8000 });
        await assertAxe(page, `${lang}-${width}-queue`);
        await words('queue');
        if (endedMatches[lang]) {
          await page.evaluate((id) => { location.hash = `#/replay/${id}`; }, endedMatches[lang]);
          await page.waitForSelector('#screen-replay:not([hidden])');
          await page.waitForFunction(() => Number(document.querySelector('#rp-turn').dataset.turns) > 0, null, { timeout: 15000 });
          await checkScreen(page, `${lang}-${width}-02-replay`, { axe: true });
          await words('replay');
        }
      } finally {
        await player.close();
      }
    }
    assert.deepEqual(errors, []);
  });
}

// ---------- issue 37: a seat that is away (proto/README.md §6.2) ----------

const AWAY_TEXTS = {
  en: { seat: 'away', box: 'You were away, so your turns are being passed.', back: "I'm back" },
  bn: { seat: 'অনুপস্থিত', box: 'আপনি অনুপস্থিত ছিলেন, তাই আপনার পালা ছেড়ে দেওয়া হচ্ছে।', back: 'আমি ফিরে এসেছি' },
  hi: { seat: 'अनुपस्थित', box: 'आप अनुपस्थित थे, इसलिए आपकी बारी छोड़ी जा रही है।', back: 'मैं यहाँ हूँ' },
};

for (const [lang, locale, name] of [['en', 'en-GB', 'Dozer'], ['bn', 'bn-BD', 'ঘুমন্ত'], ['hi', 'hi-IN', 'सोता']]) {
  test(`${lang} at 390×844: two turns let time out make the seat away (marked, its own box); "I'm back" brings it back (resync)`, { skip: SKIP, timeout: 90_000 }, async () => {
    await mkdir(ART, { recursive: true });
    const errors = [];
    const player = await openBrowser(`away-${lang}`, errors, { locale });
    const { page } = player;
    const frames = recordFrames(page);
    try {
      await signIn(page, name);
      await page.tap('#lobby-create-btn');
      await page.waitForSelector('#lobby-box:not([hidden])');
      await page.tap('#lobby-start');
      await page.waitForSelector('#screen-match:not([hidden])', { timeout: 15000 });
      const mySeat = await page.evaluate(async () => {
        for (let i = 0; i < 100 && !window.ludo.live?.mode; i++) await new Promise((r) => setTimeout(r, 50));
        return window.ludo.live.yourSeat;
      });
      // The server's default: 2 turns in a row let time out (6 s each here) make a seat away.
      await page.waitForSelector('#away-box:not([hidden])', { timeout: 40000 });
      const away = frames.filter((f) => f.dir === '<' && f.t === 'seat_away');
      assert.deepEqual(away.map((f) => f.d.seat), [mySeat], 'one seat_away, for this seat');
      const timedOut = frames.filter((f) => f.dir === '<' && f.t === 'turn_resolved' && f.d.seat === mySeat);
      assert.deepEqual(timedOut.slice(0, 2).map((f) => f.d.kind), ['timeout', 'timeout'], 'two own turns timed out first');
      assert.equal(await page.textContent('#away-text'), AWAY_TEXTS[lang].box);
      assert.equal(await page.textContent('#away-back'), AWAY_TEXTS[lang].back);
      assert.equal(await page.textContent(`#scoreboard tr[data-seat="${mySeat}"] .away`), AWAY_TEXTS[lang].seat, 'the scoreboard marks the seat');
      await checkScreen(page, `${lang}-07-away`, { axe: true });
      if (lang !== 'en') assert.deepEqual(await foreignWords(page, lang), [], `${lang}: away screen words in another language`);

      await page.tap('#away-back');
      await page.waitForSelector('#away-box', { state: 'hidden', timeout: 8000 });
      assert.equal(await page.$(`#scoreboard tr[data-seat="${mySeat}"] .away`), null, 'no longer marked');
      // The tap sent a resync, which brings the seat back (the server tells the others).
      const resync = frames.filter((f) => f.dir === '>' && f.t === 'resync');
      assert.ok(resync.length >= 1, 'the tap sent a resync');
      assert.equal(resync.at(-1).d.match_id, await page.evaluate(() => window.ludo.live.matchId));
      assert.deepEqual(errors, []);
    } finally {
      await player.close();
    }
  });
}

// ---------- issue 37: clocks that are true on arrival (proto/README.md §7) ----------

/**
 * Sets the page's device clock `ms` off (Date.now() and `new Date()`), as a phone's
 * clock may be; the server's clock stays the truth. An init script: it runs before
 * the page's own scripts.
 */
async function skewDeviceClock(page, ms) {
  await page.addInitScript((skew) => {
    const Real = Date;
    const now = () => Real.now() + skew;
    function SkewedDate(...args) {
      if (!new.target) return new Real(now()).toString();
      return args.length ? new Real(...args) : new Real(now());
    }
    Object.setPrototypeOf(SkewedDate, Real); // Date.parse, Date.UTC
    SkewedDate.prototype = Real.prototype;
    SkewedDate.now = now;
    globalThis.Date = SkewedDate;
  }, ms);
}

/**
 * Routes the page's WebSocket through the test. Frames pass unchanged until the first
 * `turn_started` of the player's own seat: the page never gets that one, the socket
 * drops right then (both sides closed, as a lost network would), and every new socket
 * the page opens waits `holdMs` from the drop (the network is down) before it
 * reaches the server. Returns what it saw: `dropped` ({f, at}: the frame kept from
 * the page and when, `performance.now()` of this process), the frames after the drop
 * (`after`), the `hello`s the page sent, and the number of sockets.
 */
async function dropAtOwnTurn(page, holdMs) {
  const cut = { seat: null, matchId: null, dropped: null, after: [], hellos: [], sockets: 0, holdUntil: 0 };
  await page.routeWebSocket(/\/ws$/, async (ws) => {
    const wait = cut.holdUntil - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const n = (cut.sockets += 1);
    const server = ws.connectToServer();
    let open = true;
    ws.onMessage((m) => {
      try {
        const f = JSON.parse(m);
        if (f.t === 'hello') cut.hellos.push({ socket: n, d: f.d });
      } catch {
        // not JSON
      }
      server.send(m);
    });
    server.onMessage((m) => {
      if (!open) return;
      const at = performance.now();
      let f = null;
      try {
        f = JSON.parse(m);
      } catch {
        // not JSON
      }
      if (f?.t === 'match_started' && f.d.your_seat) {
        cut.seat = f.d.your_seat;
        cut.matchId = f.d.match_id;
      }
      if (f?.t === 'dice_sealed') cut.sealed = f.d;
      if (!cut.dropped && f?.t === 'turn_started' && f.d.seat === cut.seat) {
        open = false;
        cut.dropped = { f, at };
        cut.holdUntil = at + holdMs;
        server.close({ code: 1000, reason: 'network lost (test)' });
        ws.close({ code: 1000, reason: 'network lost (test)' });
        return;
      }
      if (cut.dropped) cut.after.push({ f, at });
      ws.send(m);
    });
  });
  return cut;
}

/** Polls `cond()` (in this process) every 20 ms until it is truthy; fails after `ms`. */
async function until(cond, ms, what) {
  const end = performance.now() + ms;
  for (;;) {
    const v = cond();
    if (v) return v;
    if (performance.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Measured differences per device clock case (logged by the last case). */
const clockDiffs = {};

for (const [label, slug, skew] of [['exact', 'exact', 0], ['5 min ahead', 'ahead', 5 * 60_000], ['5 min behind', 'behind', -5 * 60_000]]) {
  test(`en at 390×844, device clock ${label}: after a drop at its own turn_started and a reconnect with last_seq, the turn timer shown is the server's within 0.5 s`, { skip: SKIP, timeout: 60_000 }, async () => {
    await mkdir(ART, { recursive: true });
    const errors = [];
    const player = await openBrowser(`clock-${slug}`, errors);
    const { page } = player;
    const HOLD_MS = 2000; // the network is down this long: the client reconnects ~2 s into its 6 s turn
    try {
      await skewDeviceClock(page, skew);
      const cut = await dropAtOwnTurn(page, HOLD_MS);
      await signIn(page, 'Clocky');
      const pageSkew = (await page.evaluate(() => Date.now())) - Date.now();
      assert.ok(Math.abs(pageSkew - skew) < 1000, `the page's device clock is ${label} (${pageSkew} ms)`);
      await page.tap('#lobby-create-btn');
      await page.waitForSelector('#lobby-box:not([hidden])');
      await page.tap('#lobby-start');
      await page.waitForSelector('#screen-match:not([hidden])', { timeout: 15000 });

      // The player's own turn starts (bots answer at once): its socket drops right at
      // that turn_started, which the page never gets.
      await until(() => cut.dropped, 30000, "the player's own turn_started");
      const started = cut.dropped.f;
      const k = started.d.turn_number;
      // The page sent its dice contribution whatever its clock says (the window is
      // the server's to judge): the seat's entropy is in the sealed dice.
      const mine = cut.sealed?.contributions.find((c) => c.seat === cut.seat);
      assert.equal(mine?.defaulted, false, `device clock ${label}: the seat's contribution was used (${JSON.stringify(mine)})`);
      await page.waitForSelector('#conn-status:not(.ok)', { timeout: 2000 });
      assert.notEqual(await page.evaluate(() => window.ludo.live?.turn?.turn_number), k, 'the page did not get the turn_started');

      // Back after the outage: hello with last_seq = the seq before that turn_started;
      // the server replays it stamped as of the replay (or sends a snapshot).
      const seatShown = started.d.seat[0].toUpperCase() + started.d.seat.slice(1);
      await page.waitForFunction(({ turn, seat }) => {
        const l = window.ludo.live;
        return l?.turn?.turn_number === turn && l.turnDeadline && document.querySelector('#turn-clock').textContent.endsWith(` · ${seat}`);
      }, { turn: k, seat: seatShown }, { timeout: 10000 });
      assert.equal(cut.sockets, 2, 'one reconnect');
      const hello = cut.hellos.at(-1);
      assert.equal(hello.socket, 2);
      assert.equal(hello.d.last_seq?.[cut.matchId], started.seq - 1, 'the reconnect says hello with last_seq');
      const back = cut.after.find(({ f }) => (f.t === 'turn_started' && f.d.turn_number === k) || (f.t === 'snapshot' && f.d.turn?.turn_number === k));
      assert.ok(back, `the turn_started of turn ${k} (or a snapshot) after the reconnect: ${cut.after.map(({ f }) => f.t)}`);
      const truth = back.f.t === 'snapshot'
        ? { now: back.f.d.clocks.now_ms, deadline: back.f.d.clocks.turn_deadline_ms }
        : { now: back.f.d.now_ms, deadline: back.f.d.turn_deadline_ms };
      assert.equal(truth.deadline, started.d.turn_deadline_ms, 'the same turn, the same deadline');
      assert.ok(truth.now - started.d.now_ms >= HOLD_MS - 50, `stamped as of the replay: ${truth.now - started.d.now_ms} ms after the first sending`);

      // The page's countdown and the displayed timer, against the server's deadline
      // minus the server's time at the same instant: the frame's now_ms plus the real
      // time elapsed since it arrived here (this process's clock is not skewed).
      const t0 = performance.now();
      const shown = await page.evaluate(() => {
        const l = window.ludo.live;
        return { left: l.turnDeadline - (Date.now() + l.offset), offset: l.offset, text: document.querySelector('#turn-clock').textContent };
      });
      const t1 = performance.now();
      const serverNow = truth.now + ((t0 + t1) / 2 - back.at);
      const want = truth.deadline - serverNow;
      const diff = Math.round(shown.left - want);
      const sameHost = Math.round(shown.left - (truth.deadline - (Date.now() - (t1 - t0) / 2)));
      clockDiffs[label] = { diff, sameHost, left: Math.round(shown.left), want: Math.round(want), offset: shown.offset, text: shown.text, via: back.f.t };
      console.log(`[${now()}] device clock ${label}: page ${Math.round(shown.left)} ms left, server ${Math.round(want)} ms (${back.f.t} after the reconnect): difference ${diff} ms (±${Math.round((t1 - t0) / 2)}; against this host's clock ${sameHost} ms); offset ${shown.offset} ms; shown "${shown.text}"`);
      assert.ok(want > 1000, `read while the turn still runs (${Math.round(want)} ms left)`);
      assert.ok(Math.abs(diff) <= 500, `device clock ${label}: the page counts ${Math.round(shown.left)} ms left, the server ${Math.round(want)} ms (difference ${diff} ms)`);
      const m = /^(\d+):(\d{2}) · /.exec(shown.text);
      assert.ok(m, `the turn clock shows m:ss: "${shown.text}"`);
      const secs = Number(m[1]) * 60 + Number(m[2]);
      assert.ok(Math.abs(secs - Math.ceil(want / 1000)) <= 1, `device clock ${label}: the turn clock shows ${shown.text}, the server has ${(want / 1000).toFixed(2)} s left`);
      await page.screenshot({ path: path.join(ART, `en-08-reconnect-clock-${slug}.png`) });
      if (Object.keys(clockDiffs).length === 3) console.log('turn timer after a reconnect, page − server (ms):', JSON.stringify(clockDiffs));
      assert.deepEqual(errors, []);
    } finally {
      await player.close();
    }
  });
}

// ---------- issue 29: accounts (claim, sign-in, sessions, close 4002) ----------

/** Expected texts of the account screens per language (web/js/i18n). */
const ACCOUNT_TEXTS = {
  en: {
    rules: '8 to 128 characters: letters of any script, digits, spaces or symbols.',
    badCredentials: 'Wrong username or password.',
    signedOut: 'You were signed out on this device: from another device, by a password change, or the session expired. Sign in again.',
    connSignedOut: 'Signed out on this device',
    connReplaced: 'Opened in another tab or device — this one stopped.',
    thisDevice: 'This device',
    oneDone: 'That session is signed out.',
    deleted: 'Your account was deleted.',
    guestWarning: 'Signing in replaces this guest on this device. The guest’s progress (ratings and matches) stays with the guest: claim it first if you want to keep it.',
    deleteConfirm: 'Delete your account for good? This cannot be undone.',
    guestSignOut: 'You are playing as a guest: signing out loses this player for good, with its rating and matches. To keep them, claim your account first (Account). Sign out anyway?',
  },
  bn: {
    rules: '৮ থেকে ১২৮টি অক্ষর: যেকোনো লিপির বর্ণ, সংখ্যা, ফাঁকা জায়গা বা চিহ্ন।',
    badCredentials: 'ব্যবহারকারীর নাম বা পাসওয়ার্ড ভুল।',
    signedOut: 'এই ডিভাইসে আপনাকে বের করে দেওয়া হয়েছে: অন্য ডিভাইস থেকে, পাসওয়ার্ড বদলানোর ফলে, অথবা সেশনের মেয়াদ শেষ হওয়ায়। আবার ঢুকুন।',
    connSignedOut: 'এই ডিভাইস থেকে বের করা হয়েছে',
    connReplaced: 'অন্য ট্যাব বা ডিভাইসে খোলা হয়েছে — এখানে বন্ধ।',
    thisDevice: 'এই ডিভাইস',
    oneDone: 'সেই সেশন থেকে বের করে দেওয়া হয়েছে।',
    deleted: 'আপনার অ্যাকাউন্ট মুছে ফেলা হয়েছে।',
    guestWarning: 'ঢুকলে এই ডিভাইসে এই অতিথির জায়গা নেবে অ্যাকাউন্টটি। অতিথির অগ্রগতি (রেটিং ও ম্যাচ) অতিথির কাছেই থেকে যাবে: রাখতে চাইলে আগে সেটি স্থায়ী করুন।',
    deleteConfirm: 'আপনার অ্যাকাউন্ট চিরতরে মুছে ফেলবেন? এটি আর ফেরানো যাবে না।',
    guestSignOut: 'আপনি অতিথি হিসেবে খেলছেন: বেরিয়ে গেলে এই খেলোয়াড়, তার রেটিং ও ম্যাচ চিরতরে হারিয়ে যাবে। রাখতে হলে আগে আপনার অ্যাকাউন্ট স্থায়ী করুন (অ্যাকাউন্ট)। তবুও বেরিয়ে যাবেন?',
  },
  hi: {
    rules: '8 से 128 अक्षर: किसी भी लिपि के अक्षर, अंक, खाली जगह या चिह्न।',
    badCredentials: 'उपयोगकर्ता नाम या पासवर्ड गलत है।',
    signedOut: 'इस डिवाइस पर आपको बाहर कर दिया गया: किसी दूसरे डिवाइस से, पासवर्ड बदलने से, या सत्र की अवधि ख़त्म होने से। फिर से प्रवेश करें।',
    connSignedOut: 'इस डिवाइस से बाहर किया गया',
    connReplaced: 'दूसरे टैब या डिवाइस में खुला है — यहाँ बंद।',
    thisDevice: 'यह डिवाइस',
    oneDone: 'उस सत्र से बाहर कर दिया गया।',
    deleted: 'आपका खाता मिटा दिया गया है।',
    guestWarning: 'प्रवेश करने पर इस डिवाइस पर यह मेहमान हट जाएगा। मेहमान की प्रगति (रेटिंग और मैच) मेहमान के पास ही रहेगी: उसे रखना हो तो पहले उसे पक्का करें।',
    deleteConfirm: 'अपना खाता हमेशा के लिए मिटाएँ? यह वापस नहीं हो सकता।',
    guestSignOut: 'आप मेहमान के रूप में खेल रहे हैं: बाहर निकलने पर यह खिलाड़ी, उसकी रेटिंग और मैच हमेशा के लिए चले जाएँगे। उन्हें रखना हो तो पहले अपना खाता पक्का करें (खाता)। फिर भी बाहर निकलें?',
  },
};

/** Records every WebSocket the page opens and the close code of each (an init script). */
async function recordSocketCloses(page) {
  await page.addInitScript(() => {
    const Real = window.WebSocket;
    window.__sockets = [];
    window.WebSocket = class extends Real {
      constructor(...args) {
        super(...args);
        const rec = { opened: Date.now(), code: null, closed: null };
        window.__sockets.push(rec);
        this.addEventListener('close', (e) => Object.assign(rec, { code: e.code, closed: Date.now() }));
      }
    };
  });
}

/** The account screen's checks: autocomplete and labels of every field of the visible forms. */
async function assertAccountFields(page, where) {
  const fields = await page.$$eval('#screen-account input:not([hidden]), #screen-signin input', (inputs) => inputs.filter((i) => i.offsetParent).map((i) => ({
    id: i.id,
    type: i.type,
    autocomplete: i.getAttribute('autocomplete'),
    label: i.labels?.[0]?.textContent.trim() ?? '',
  })));
  for (const f of fields) {
    assert.ok(f.label, `${where}: #${f.id} has a label`);
    if (f.type === 'password') assert.match(f.autocomplete, /^(current-password|new-password)$/, `${where}: #${f.id} autocomplete`);
    if (/username/.test(f.id)) assert.equal(f.autocomplete, 'username', `${where}: #${f.id} autocomplete`);
  }
  return fields;
}

for (const [lang, locale, guestName, username] of [['en', 'en-GB', 'Claimer', 'Amara'], ['bn', 'bn-BD', 'দাবিদার', 'অমলা'], ['hi', 'hi-IN', 'दावेदार', 'अमला']]) {
  test(`${lang} at 390×844: a guest claims its account, a new browser signs in as it (same player), the other session signed out closes its socket (4002), a wrong password is refused`, { skip: SKIP, timeout: 90_000 }, async () => {
    await mkdir(ART, { recursive: true });
    const errors = [];
    const T = ACCOUNT_TEXTS[lang];
    const password = { en: 'correct horse battery', bn: 'সঠিক ঘোড়া ব্যাটারি', hi: 'सही घोड़ा बैटरी' }[lang];
    const words = async (page, where) => {
      if (lang !== 'en') assert.deepEqual(await foreignWords(page, lang), [], `${lang} ${where}: words in another language`);
    };
    const a = await openBrowser(`acct-a-${lang}`, errors, { locale });
    let b = null;
    try {
      // (a) A guest with a history (a match against bots, left at once: the bots end
      // it) opens the account screen from the header and claims its player.
      await signIn(a.page, guestName);
      const dialogs = [];
      let acceptDialogs = true;
      a.page.on('dialog', (d) => {
        dialogs.push(d.message());
        if (acceptDialogs) d.accept();
        else d.dismiss();
      });
      await a.page.tap('#lobby-create-btn');
      await a.page.waitForSelector('#lobby-box:not([hidden])');
      await a.page.tap('#lobby-start');
      await a.page.waitForSelector('#screen-match:not([hidden]) #leave-match:not([hidden])', { timeout: 15000 });
      await a.page.tap('#leave-match');
      await a.page.waitForSelector('#screen-home:not([hidden])');
      await a.page.waitForSelector('#my-matches a', { timeout: 8000 });
      const guest = await a.page.evaluate(() => ({ ...window.ludo.session }));
      // A guest's "Sign out" asks first (the player would be gone for good); "Cancel"
      // keeps it signed in, the same player.
      acceptDialogs = false;
      await a.page.tap('#signout');
      acceptDialogs = true;
      assert.equal(dialogs.at(-1), T.guestSignOut, "a guest's sign-out asked first");
      assert.ok(await a.page.isVisible('#screen-home'), 'still on the home screen');
      assert.equal(await a.page.evaluate(() => window.ludo.session?.player_id), guest.player_id, 'still the same guest');
      await a.page.tap('#account-link');
      await a.page.waitForSelector('#screen-account:not([hidden]) #acct-claim:not([hidden])');
      assert.ok(await a.page.isHidden('#acct-sessions'), 'a guest has no sessions card');
      assert.equal(await a.page.textContent('#claim-password-rules'), T.rules, 'the password rules are shown');
      assert.ok(!(await a.page.isHidden('#acct-login-warn')), 'the sign-in form warns that the guest stays behind');
      await assertAccountFields(a.page, `${lang} guest account screen`);
      await checkScreen(a.page, `${lang}-account-01-guest`, { axe: true });
      await words(a.page, 'guest account screen');
      await a.page.fill('#claim-username', username);
      await a.page.fill('#claim-password', password);
      await a.page.tap('#claim-form button[type=submit]');
      await a.page.waitForSelector('#acct-sessions:not([hidden])', { timeout: 8000 });
      assert.equal(await a.page.textContent('#account-username'), username);
      assert.ok(await a.page.isHidden('#acct-claim'), 'no claim form once claimed');
      await a.page.waitForFunction(() => document.querySelectorAll('#sessions-list li').length === 1, null, { timeout: 5000 });
      assert.equal(await a.page.evaluate(() => window.ludo.session.username), username, 'the stored session knows the username');
      await assertAccountFields(a.page, `${lang} account screen`);
      await checkScreen(a.page, `${lang}-account-02-claimed`, { axe: true });
      await words(a.page, 'claimed account screen');

      // A new browser (fresh storage): (c) a wrong password shows the translated
      // bad_credentials message; then the right one signs in as the same player.
      b = await openBrowser(`acct-b-${lang}`, errors, { locale });
      await recordSocketCloses(b.page);
      await b.page.goto(BASE);
      await b.page.waitForSelector('#screen-signin:not([hidden])');
      await assertAccountFields(b.page, `${lang} sign-in screen`);
      await b.page.fill('#login-username', username);
      await b.page.fill('#login-password', `${password}!`);
      await b.page.tap('#login-form button[type=submit]');
      await b.page.waitForFunction((text) => document.querySelector('#login-error').textContent === text, T.badCredentials, { timeout: 8000 });
      assert.equal(await b.page.evaluate(() => localStorage.getItem('ludo.session')), null, 'nothing stored after a refused sign-in');
      // The browser logs the refused request (HTTP 401) itself: that one is expected.
      const refused = errors.findIndex((e) => e.startsWith(`acct-b-${lang} console:`) && e.includes('status of 401'));
      if (refused >= 0) errors.splice(refused, 1);
      await checkScreen(b.page, `${lang}-account-03-bad-credentials`, { axe: true });
      await words(b.page, 'bad credentials');
      await b.page.fill('#login-password', password);
      await b.page.tap('#login-form button[type=submit]');
      await b.page.waitForSelector('#screen-home:not([hidden])', { timeout: 8000 });
      await b.page.waitForSelector('#conn-status.ok');
      const signedIn = await b.page.evaluate(() => ({ ...window.ludo.session }));
      assert.equal(signedIn.player_id, guest.player_id, 'the same player_id');
      assert.equal(signedIn.name, guestName, 'the same name');
      assert.equal(signedIn.username, username);
      assert.notEqual(signedIn.token, guest.token, 'a session of its own');
      assert.equal(await b.page.textContent('#who-name'), guestName);
      // The same ratings and matches on both home screens.
      await a.page.evaluate(() => { location.hash = '#/'; });
      for (const p of [a.page, b.page]) await p.waitForFunction(() => document.querySelector('#my-rating').textContent && document.querySelector('#my-matches a'), null, { timeout: 8000 });
      for (const sel of ['#my-rating', '#my-matches']) assert.equal(await b.page.textContent(sel), await a.page.textContent(sel), `${sel} the same`);
      assert.equal(await b.page.getAttribute('#my-matches a', 'href'), await a.page.getAttribute('#my-matches a', 'href'), "the guest's match is in the account's history");
      await checkScreen(b.page, `${lang}-account-04-signed-in-home`, { axe: true });

      // (b) A's sessions list shows both, this device marked; A signs out the other.
      await a.page.tap('#account-link');
      await a.page.waitForFunction(() => document.querySelectorAll('#sessions-list li').length === 2, null, { timeout: 8000 });
      const rows = await a.page.$$eval('#sessions-list li', (lis) => lis.map((li) => ({ current: li.dataset.current, badge: li.querySelector('.badge')?.textContent ?? null, times: li.querySelector('.session-times').textContent, button: !!li.querySelector('button.session-signout'), client: li.querySelector('.session-client').textContent })));
      assert.deepEqual(rows.map((r) => r.current).sort(), ['false', 'true']);
      for (const r of rows) {
        assert.equal(r.badge, r.current === 'true' ? T.thisDevice : null, 'the "this device" mark');
        assert.equal(r.button, r.current === 'false', 'a sign-out button on the other session');
        assert.match(r.client, /^web\/1/, 'the client string of its hello');
      }
      await checkScreen(a.page, `${lang}-account-05-sessions`, { axe: true });
      await words(a.page, 'sessions');
      const opened = await b.page.evaluate(() => window.__sockets.length);
      const t0 = Date.now();
      await a.page.tap('#sessions-list li[data-current="false"] button.session-signout');
      await b.page.waitForSelector('#screen-signin:not([hidden])', { timeout: 5000 });
      const ms = Date.now() - t0;
      assert.equal(await b.page.textContent('#signin-notice'), T.signedOut);
      assert.equal(await b.page.textContent('#conn-status'), T.connSignedOut);
      assert.equal(await b.page.evaluate(() => localStorage.getItem('ludo.session')), null, 'the token is dropped');
      assert.equal(await b.page.evaluate(() => window.__sockets.at(-1).code), 4002, 'closed with 4002');
      await a.page.waitForFunction((text) => document.querySelector('#sessions-ok').textContent === text && document.querySelectorAll('#sessions-list li').length === 1, T.oneDone, { timeout: 5000 });
      // A was replaced by B's sign-in (one socket per player): its header says so and
      // offers "Play here", which connects A again.
      assert.equal(await a.page.textContent('#conn-status'), T.connReplaced);
      assert.ok(await a.page.isVisible('#play-here'), 'the replaced device offers "Play here"');
      await a.page.tap('#play-here');
      await a.page.waitForSelector('#conn-status.ok', { timeout: 5000 });
      assert.ok(await a.page.isHidden('#play-here'), 'no "Play here" once connected');
      // No reconnect on 4002.
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(await b.page.evaluate(() => window.__sockets.length), opened, 'no new socket after 4002');
      await checkScreen(b.page, `${lang}-account-06-signed-out`, { axe: true });
      await words(b.page, 'signed out');
      console.log(`[${now()}] ${lang}: the other session's page showed the sign-in screen ${ms} ms after the tap`);

      // The signed-out browser plays as a new guest, then signs in to the account
      // from the guest's account screen (warned that the guest stays behind): the
      // stored token is the new session's, the player the account's.
      await b.page.fill('#signin-name', `${guestName}2`);
      await b.page.tap('#signin-form button[type=submit]');
      await b.page.waitForSelector('#conn-status.ok');
      assert.equal(await b.page.textContent('#signin-notice'), '', 'the message is gone once signed in');
      const guest2 = await b.page.evaluate(() => ({ ...window.ludo.session }));
      await b.page.tap('#account-link');
      await b.page.waitForSelector('#screen-account:not([hidden]) #acct-login:not([hidden])');
      assert.equal(await b.page.textContent('#acct-login-warn'), T.guestWarning);
      await b.page.fill('#acct-login-username', username);
      await b.page.fill('#acct-login-password', password);
      await checkScreen(b.page, `${lang}-account-07-guest-signs-in`, { axe: true });
      await words(b.page, 'guest signs in');
      await b.page.tap('#acct-login-form button[type=submit]');
      await b.page.waitForSelector('#screen-home:not([hidden])', { timeout: 8000 });
      await b.page.waitForSelector('#conn-status.ok');
      const stored = await b.page.evaluate(() => JSON.parse(localStorage.getItem('ludo.session')));
      assert.equal(stored.player_id, guest.player_id, 'the account, not the guest');
      assert.notEqual(stored.player_id, guest2.player_id);
      assert.notEqual(stored.token, guest2.token, "the guest's token is replaced");
      assert.equal(stored.username, username);

      // A deletes the account (password, confirmation): back to the sign-in screen;
      // the other browser's session goes with it (4002).
      await a.page.fill('#delete-password', password);
      await a.page.tap('#delete-form button[type=submit]');
      await a.page.waitForSelector('#screen-signin:not([hidden])', { timeout: 8000 });
      assert.equal(await a.page.textContent('#signin-notice'), T.deleted);
      assert.equal(dialogs.at(-1), T.deleteConfirm, 'the deletion asked for a confirmation');
      await checkScreen(a.page, `${lang}-account-08-deleted`, { axe: true });
      await b.page.waitForSelector('#screen-signin:not([hidden])', { timeout: 5000 });
      assert.equal(await b.page.textContent('#signin-notice'), T.signedOut);
      assert.equal(await b.page.evaluate(() => window.__sockets.at(-1).code), 4002, 'closed with 4002');
      assert.deepEqual(errors, [], 'no script errors in the pages');
    } finally {
      await a.close();
      await b?.close();
    }
  });
}

// ---------- issue 29.2: passkeys (WebAuthn, a CDP virtual authenticator) ----------

/** Expected passkey texts per language (web/js/i18n). */
const PASSKEY_TEXTS = {
  en: { add: 'Add a passkey', signIn: 'Sign in with a passkey', added: 'Passkey added: you can sign in with it now.', never: 'never', removed: 'That passkey is removed.' },
  bn: { add: 'একটি পাসকি যোগ করুন', signIn: 'পাসকি দিয়ে সাইন ইন করুন', added: 'পাসকি যোগ হয়েছে: এখন এটি দিয়ে সাইন ইন করতে পারবেন।', never: 'কখনো নয়', removed: 'সেই পাসকি সরানো হয়েছে।' },
  hi: { add: 'एक पासकी जोड़ें', signIn: 'पासकी से साइन इन करें', added: 'पासकी जुड़ गई: अब आप इससे साइन इन कर सकते हैं।', never: 'कभी नहीं', removed: 'वह पासकी हटा दी गई।' },
};

/**
 * A virtual platform authenticator on `page` (Chrome DevTools Protocol `WebAuthn`:
 * CTAP2, internal transport, resident keys, user verification that succeeds):
 * `{ cdp, id }`.
 */
async function virtualAuthenticator(ctx, page) {
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { cdp, id: authenticatorId };
}

// WebAuthn needs a relying party id that is a domain, not an IP address: these
// pages are opened on http://localhost (scripts/browser-test.sh starts the server
// with LUDO_WEBAUTHN_ORIGIN=http://localhost:PORT and LUDO_WEBAUTHN_RP_ID=localhost).
const PASSKEY_BASE = BASE?.replace('127.0.0.1', 'localhost');

for (const [lang, locale, username] of [['en', 'en-GB', 'Keyholder'], ['bn', 'bn-BD', 'চাবিওয়ালা'], ['hi', 'hi-IN', 'चाबीवाला']]) {
  test(`${lang} at 390×844: an account adds a passkey (virtual authenticator), a new browser signs in with it (same player), the passkey is listed with its last use and removed`, { skip: SKIP, timeout: 90_000 }, async () => {
    await mkdir(ART, { recursive: true });
    const errors = [];
    const T = PASSKEY_TEXTS[lang];
    const password = 'correct horse battery';
    const words = async (page, where) => {
      if (lang !== 'en') assert.deepEqual(await foreignWords(page, lang), [], `${lang} ${where}: words in another language`);
    };
    const a = await openBrowser(`passkey-a-${lang}`, errors, { locale });
    let b = null;
    try {
      const authA = await virtualAuthenticator(a.ctx, a.page);
      await a.page.goto(PASSKEY_BASE);
      await a.page.waitForSelector('#screen-signin:not([hidden])');
      await a.page.fill('#signin-name', username);
      await a.page.tap('#signin-form button[type=submit]');
      await a.page.waitForSelector('#conn-status.ok');
      const guest = await a.page.evaluate(() => ({ ...window.ludo.session }));
      await a.page.tap('#account-link');
      await a.page.waitForSelector('#screen-account:not([hidden]) #acct-claim:not([hidden])');
      assert.ok(await a.page.isHidden('#acct-passkeys'), 'a guest has no passkeys card');
      assert.equal(await a.page.textContent('#acct-login-passkey'), T.signIn, "the guest's screen offers a passkey sign-in");
      await a.page.fill('#claim-username', username);
      await a.page.fill('#claim-password', password);
      await a.page.tap('#claim-form button[type=submit]');
      await a.page.waitForSelector('#acct-passkeys:not([hidden])', { timeout: 8000 });
      assert.equal(await a.page.textContent('#passkey-add'), T.add);
      assert.ok(!(await a.page.isHidden('#passkeys-none')), 'no passkeys yet');

      // Add a passkey named "Phone": the virtual authenticator makes a resident credential.
      await a.page.fill('#passkey-name', 'Phone');
      await a.page.tap('#passkey-add');
      await a.page.waitForFunction((text) => document.querySelector('#passkeys-ok').textContent === text, T.added, { timeout: 8000 });
      assert.equal(await a.page.textContent('#account-ok'), '', 'only the latest success is shown (the claim message gave way)');
      await a.page.waitForFunction(() => document.querySelectorAll('#passkeys-list li').length === 1, null, { timeout: 5000 });
      assert.equal(await a.page.textContent('#passkeys-list li .session-client'), 'Phone');
      assert.ok((await a.page.textContent('#passkeys-list li .session-times')).endsWith(T.never), 'never used yet');
      assert.ok(await a.page.isHidden('#passkeys-none'));
      const { credentials } = await authA.cdp.send('WebAuthn.getCredentials', { authenticatorId: authA.id });
      assert.equal(credentials.length, 1);
      assert.equal(credentials[0].isResidentCredential, true, 'a discoverable credential');
      assert.equal(credentials[0].rpId, 'localhost');
      await checkScreen(a.page, `${lang}-passkey-01-added`, { axe: true });
      await words(a.page, 'passkey added');

      // A new browser (fresh storage) holding the same credential (as a synced
      // passkey would be): "Sign in with a passkey" on the sign-in screen, no username.
      b = await openBrowser(`passkey-b-${lang}`, errors, { locale });
      const authB = await virtualAuthenticator(b.ctx, b.page);
      await authB.cdp.send('WebAuthn.addCredential', { authenticatorId: authB.id, credential: credentials[0] });
      await b.page.goto(PASSKEY_BASE);
      await b.page.waitForSelector('#screen-signin:not([hidden]) #login-passkey');
      assert.equal(await b.page.textContent('#login-passkey'), T.signIn);
      await checkScreen(b.page, `${lang}-passkey-02-sign-in`, { axe: true });
      await words(b.page, 'passkey sign-in');
      await b.page.tap('#login-passkey');
      await b.page.waitForSelector('#screen-home:not([hidden])', { timeout: 8000 });
      await b.page.waitForSelector('#conn-status.ok');
      const signedIn = await b.page.evaluate(() => ({ ...window.ludo.session }));
      assert.equal(signedIn.player_id, guest.player_id, 'the same player_id');
      assert.equal(signedIn.username, username);
      assert.notEqual(signedIn.token, guest.token, 'a session of its own');

      // B sees the passkey used; B removes it; a new sign-in with it is refused.
      await b.page.tap('#account-link');
      await b.page.waitForFunction(() => document.querySelectorAll('#passkeys-list li').length === 1, null, { timeout: 8000 });
      assert.ok(!(await b.page.textContent('#passkeys-list li .session-times')).endsWith(T.never), 'its last use is shown');
      await checkScreen(b.page, `${lang}-passkey-03-list`, { axe: true });
      await words(b.page, 'passkeys list');
      await b.page.tap('#passkeys-list li button.passkey-remove');
      await b.page.waitForFunction((text) => document.querySelector('#passkeys-ok').textContent === text && document.querySelectorAll('#passkeys-list li').length === 0, T.removed, { timeout: 8000 });
      assert.ok(!(await b.page.isHidden('#passkeys-none')), '"no passkeys yet" again');
      const refused = await b.page.evaluate(async () => {
        const { Accounts } = await import('/js/sdk/index.js');
        try {
          await new Accounts(location.origin).signInWithPasskey();
          return 'signed in';
        } catch (e) {
          return e.code ?? e.name;
        }
      });
      assert.equal(refused, 'invalid_credential', 'a removed passkey signs in no more');
      // The browser logs the refused request (HTTP 400) itself: that one is expected.
      const logged = errors.findIndex((e) => e.startsWith(`passkey-b-${lang} console:`) && e.includes('status of 400'));
      if (logged >= 0) errors.splice(logged, 1);
      assert.deepEqual(errors, [], 'no script errors in the pages');
    } finally {
      await a.close();
      await b?.close();
    }
  });
}
