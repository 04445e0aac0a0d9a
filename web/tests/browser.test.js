// End-to-end test of the web client in a real browser (Debian's chromium, headless,
// driven by playwright-core): sign in, start a private match with three bots, play
// every own turn through the UI until the match clock ends it, reload mid-match,
// spectate from a second browser, compare the standings shown with
// `GET /api/v1/matches/{id}`, and step through the replay.
//
// Needs LUDO_TEST_URL (the server, e.g. http://127.0.0.1:8123) and a server started
// with short clocks; scripts/browser-test.sh does all of that. Screenshots go to
// LUDO_ARTIFACTS (default ../../artifacts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
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

/** A fresh browser profile (its own --user-data-dir) with one page. */
async function openBrowser(label, errors) {
  const dir = await mkdtemp(path.join(tmpdir(), `ludo-${label}-`));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1440, height: 1000 },
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  // Short action timeouts: the match clock may end the match in the middle of a turn.
  page.setDefaultTimeout(8000);
  page.on('pageerror', (e) => errors.push(`${label}: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${label} console: ${m.text()}`);
  });
  return { ctx, page, close: async () => { await ctx.close(); await rm(dir, { recursive: true, force: true }); } };
}

async function signIn(page, name) {
  const res = await page.goto(BASE);
  // The client runs under the server's Content-Security-Policy (no inline script or
  // style); a violation would show up as a console error, which the test refuses.
  assert.match(res.headers()['content-security-policy'] ?? '', /script-src 'self'/, 'the page is served under the CSP');
  await page.fill('#signin-name', name);
  await page.click('#signin-form button[type=submit]');
  await page.waitForSelector('#screen-home:not([hidden])');
  await page.waitForSelector('#conn-status.ok');
}

/** Standings of the UI table: {seat: total}. */
async function shownTotals(page, selector) {
  return page.$$eval(`${selector} tbody tr`, (rows) => Object.fromEntries(rows.map((r) => [r.dataset.seat, Number(r.dataset.total)])));
}

/**
 * Plays the turn shown in the plan panel through the UI. Turn `n` (0-based count
 * of own turns) varies the plan: exits when there are credits, dice spread over
 * guardians, royal steps, royal first, and backward now and then.
 */
async function playTurn(page, n) {
  const panel = page.locator('#plan-panel');
  const dir = n % 4 === 3 ? 'backward' : 'forward';
  await page.check(`input[name=direction][value=${dir}]`);
  // Exit one yard guardian when credits allow.
  const credits = Number((await page.textContent('#exit-credits')).match(/\d+/)[0]);
  const exitBoxes = panel.locator('input[id^=exit-]');
  let exited = null;
  if (credits > 0 && (await exitBoxes.count()) > 0) {
    const box = exitBoxes.first();
    exited = (await box.getAttribute('id')).slice(5);
    await box.check();
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
    await page.check(`#target-${g}`);
    await panel.locator('#roll-store button.die').first().click();
    k += 1;
  }
  const royalHome = await page.evaluate(() => window.ludo.live.state.seats[window.ludo.live.yourSeat].pieces.R === 'home');
  if (n % 2 === 0 && !royalHome) {
    await page.selectOption('#royal-steps', String((n % 8) + 1));
    if (n % 4 === 0) await page.check('#royal-first');
  }
  const planned = await panel.locator('#plan-preview li').count();
  assert.ok(planned >= 1, 'the preview lists the plan');
  await page.click('#plan-submit');
  // Either the turn resolves (panel closes) or the server explains a rejection.
  let outcome;
  try {
    outcome = await Promise.race([
      page.waitForSelector('#plan-panel', { state: 'hidden', timeout: 15000 }).then(() => 'resolved'),
      page.waitForFunction(() => (document.querySelector('#plan-error')?.textContent ?? '').length > 0, null, { timeout: 15000 }).then(() => 'error'),
    ]);
  } catch (e) {
    const dump = await page.evaluate(() => ({ turn: window.ludo.live?.turn, queue: window.ludo.live?.queue.length, info: document.querySelector('#turn-info').textContent, log: [...document.querySelectorAll('#event-log li')].slice(-8).map((li) => li.textContent) }));
    console.log('stuck after submit:', JSON.stringify(dump, null, 1));
    throw e;
  }
  const turnInfo = await page.textContent('#turn-info');
  const err = outcome === 'error' ? await page.textContent('#plan-error') : '';
  if (outcome !== 'resolved' || n % 10 === 0) console.log(`[${new Date().toISOString().slice(11, 23)}] own turn ${n}: ${outcome}${err ? ` (${err})` : ''} — ${turnInfo}`);
  if (outcome === 'error' && (await panel.isVisible())) {
    await page.click('#plan-pass');
    await page.waitForSelector('#plan-panel', { state: 'hidden', timeout: 15000 }).catch(() => {});
  }
}

test('a match against three bots through the UI, spectating, standings and replay', { skip: !BASE && 'LUDO_TEST_URL is not set: run scripts/browser-test.sh', timeout: 170_000 }, async () => {
  await mkdir(ART, { recursive: true });
  const errors = [];
  const player = await openBrowser('player', errors);
  const { page } = player;
  let watcher = null;
  try {
    await signIn(page, 'Tester');
    await page.screenshot({ path: path.join(ART, 'web-00-lobby.png') });

    // A private lobby, bots fill the three empty seats.
    await page.check('input[name=lobby-mode][value=journey]');
    await page.check('#lobby-bots');
    await page.click('#lobby-create-btn');
    await page.waitForSelector('#lobby-box:not([hidden])');
    assert.match(await page.textContent('#lobby-code-show'), /^[A-Z0-9]{6}$/);
    await page.click('#lobby-start');
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

    // First own turn: an illegal choice is explained by the server's error.
    await page.waitForSelector('#plan-panel:not([hidden])', { timeout: 30000 });
    await page.screenshot({ path: path.join(ART, 'web-01-first-turn.png') });
    const yardGuardian = await page.evaluate(() => {
      const l = window.ludo.live;
      return ['G1', 'G2', 'G3', 'G4'].find((g) => l.state.seats[l.yourSeat].pieces[g] === 'yard');
    });
    assert.ok(yardGuardian, 'at the first turn a guardian is in the yard');
    await page.check(`#target-${yardGuardian}`);
    await page.locator('#roll-store button.die').first().click();
    await page.click('#plan-submit');
    await page.waitForFunction(() => /piece_in_yard/.test(document.querySelector('#plan-error')?.textContent ?? ''), null, { timeout: 10000 });
    const errText = await page.textContent('#plan-error');
    assert.match(errText, new RegExp(`piece_in_yard: .*${yardGuardian}`));

    // Direction toggle renumbers the tiles (rule 2.6): our entry tile is 1 both
    // ways, the tile after it is 2 forward and 68 backward.
    const entryRing = { green: 0, red: 17, blue: 34, yellow: 51 }[mySeat];
    const label = (r) => page.textContent(`#board text[data-ring="${r}"]`);
    await page.check('input[name=direction][value=forward]');
    assert.equal(await label(entryRing), '1');
    assert.equal(await label((entryRing + 1) % 68), '2');
    await page.check('input[name=direction][value=backward]');
    assert.equal(await label(entryRing), '1');
    assert.equal(await label((entryRing + 1) % 68), '68');
    await page.check('input[name=direction][value=forward]');

    // Exit + dice on the exiting guardian: the preview draws the path.
    await page.click('#plan-clear');
    await page.check(`#exit-${yardGuardian}`);
    await page.check(`#target-${yardGuardian}`);
    await page.locator('#roll-store button.die').first().click();
    assert.ok((await page.locator('#board .preview-path').count()) >= 1, 'a preview path is drawn');
    await page.screenshot({ path: path.join(ART, 'web-02-preview.png') });
    await page.click('#plan-submit');
    await page.waitForSelector('#plan-panel', { state: 'hidden', timeout: 15000 });

    console.log(`[${new Date().toISOString().slice(11, 23)}] first turn played`);
    // A spectator in another browser sees the same match.
    watcher = await openBrowser('watcher', errors);
    await signIn(watcher.page, 'Watcher');
    // The running match is listed for spectators; its link opens the live view.
    await watcher.page.click(`#live-matches a[href="#/watch/${matchId}"]`, { timeout: 15000 });
    await watcher.page.waitForSelector('#screen-match:not([hidden])');
    await watcher.page.waitForFunction(() => document.querySelectorAll('#scoreboard tbody tr').length === 4 && window.ludo.live?.yourSeat === null && window.ludo.live?.mode);
    await watcher.page.waitForFunction(() => /turn|moving|to move/i.test(document.querySelector('#turn-info').textContent));
    await watcher.page.screenshot({ path: path.join(ART, 'web-03-spectator.png') });
    // Quick play from the lobby: bots fill the empty seats (bot-fill wait 0 s here).
    await watcher.page.goto(`${BASE}/#/`);
    await watcher.page.waitForSelector('#screen-home:not([hidden])');
    await watcher.page.click('#qp-clash');
    await watcher.page.waitForSelector('#screen-match:not([hidden])', { timeout: 15000 });
    await watcher.page.waitForFunction(() => window.ludo.live?.mode === 'clash' && window.ludo.live.seats.filter((s) => s.bot).length === 3 && window.ludo.live.yourSeat);
    await watcher.close();
    watcher = null;

    console.log(`[${new Date().toISOString().slice(11, 23)}] spectator done`);
    // Play on until the match clock ends the match; reload once mid-match.
    let played = 0;
    let reloaded = false;
    for (;;) {
      const which = await Promise.race([
        page.waitForSelector('#plan-panel:not([hidden])', { timeout: 120000 }).then(() => 'turn'),
        page.waitForSelector('#final:not([hidden])', { timeout: 120000 }).then(() => 'final'),
      ]);
      if (which === 'final') break;
      if (played === 3 && !reloaded) {
        reloaded = true;
        console.log(`[${new Date().toISOString().slice(11, 23)}] reloading`);
        await page.reload();
        await page.waitForSelector('#screen-match:not([hidden])', { timeout: 15000 });
        await page.waitForFunction((id) => window.ludo.live?.matchId === id && window.ludo.live?.mode, matchId, { timeout: 15000 });
        await page.waitForFunction(() => document.querySelectorAll('#scoreboard tbody tr').length === 4);
        continue;
      }
      try {
        await playTurn(page, played);
      } catch (e) {
        // The match clock may end the match mid-turn (the panel vanishes).
        if (await page.isVisible('#final')) break;
        throw e;
      }
      played += 1;
      if (played === 6) await page.screenshot({ path: path.join(ART, 'web-04-midgame.png') });
    }
    console.log(`[${new Date().toISOString().slice(11, 23)}] match over after ${played} own turns`);
    assert.ok(played >= 3, `played ${played} turns through the UI`);
    assert.ok(reloaded, 'the page was reloaded mid-match');
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(ART, 'web-05-final.png') });

    // The standings shown are the server's.
    const shown = await shownTotals(page, '#final-standings');
    // The server stores turns behind the game: poll until the match is stored as ended.
    let info;
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${BASE}/api/v1/matches/${matchId}`);
      assert.equal(res.status, 200);
      info = await res.json();
      if (info.status === 'ended' && info.standings) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(info.status, 'ended');
    const serverStandings = info.standings;
    assert.equal(serverStandings.length, 4, JSON.stringify(info).slice(0, 300));
    assert.deepEqual(shown, Object.fromEntries(serverStandings.map((s) => [s.seat, s.total])));
    const places = await page.$$eval('#final-standings tbody tr', (rows) => rows.map((r) => [r.dataset.seat, Number(r.dataset.place)]));
    assert.deepEqual(places, serverStandings.map((s) => [s.seat, s.place]));

    // The replay viewer: re-playing every turn's events reaches the same totals.
    await page.click('#final-replay');
    await page.waitForSelector('#screen-replay:not([hidden])');
    await page.waitForFunction(() => /of \d+/.test(document.querySelector('#rp-turn').textContent));
    const turns = Number((await page.textContent('#rp-turn')).match(/of (\d+)/)[1]);
    assert.ok(turns >= played, `${turns} turns in the replay`);
    await page.click('#rp-last');
    assert.equal(await page.getAttribute('#rp-check', 'data-match'), 'true');
    assert.deepEqual(await shownTotals(page, '#rp-standings'), shown);
    const last = await page.$$eval('#replay-scoreboard tbody tr', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.seat, Number(r.querySelector('td.total').textContent)])));
    assert.deepEqual(last, shown);
    await page.screenshot({ path: path.join(ART, 'web-06-replay-end.png') });
    // Step backward and forward.
    await page.click('#rp-prev');
    assert.match(await page.textContent('#rp-turn'), new RegExp(`^Turn ${turns - 1} of ${turns}`));
    await page.click('#rp-first');
    assert.match(await page.textContent('#rp-turn'), /^Start/);
    assert.equal(await page.locator('#replay-board .piece').count(), 20);
    const mid = Math.max(1, Math.floor(turns / 2));
    await page.$eval('#rp-slider', (el, v) => {
      el.value = String(v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, mid - 1);
    await page.click('#rp-next');
    await page.waitForFunction((k) => document.querySelector('#rp-turn').textContent.startsWith(`Turn ${k} of`), mid);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: path.join(ART, 'web-07-replay-mid.png') });

    // The lobby lists the match with a link to its replay.
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector(`#my-matches a[href="#/replay/${matchId}"]`);

    assert.deepEqual(errors, [], 'no script errors in the pages');
  } finally {
    if (watcher) await watcher.close();
    await player.close();
  }
});
