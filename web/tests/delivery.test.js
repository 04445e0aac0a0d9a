// Delivery of the web client in a real browser (issue 30; Debian's chromium,
// headless, driven by playwright-core), as a phone would load it:
// 1. A repeat visit transfers under 2 KB of client code: every file of the shell
//    is revalidated (`ETag`, `Cache-Control: no-cache`) and answered `304` without
//    a body. The service worker is blocked here so this measures HTTP caching alone.
// 2. With the service worker installed, the client shell opens with the network
//    gone: the browser reaches the server through a TCP proxy in this test, which
//    is then shut, so every request is refused for real.
// Prints the bytes measured (BENCHMARKS.md). Needs LUDO_TEST_URL; run by
// scripts/browser-test.sh.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const BASE = process.env.LUDO_TEST_URL;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-default-apps', '--disable-extensions', '--metrics-recording-only', '--no-default-browser-check',
];
const SKIP = !BASE && 'LUDO_TEST_URL is not set: run scripts/browser-test.sh';
// Without a server the browser tests cannot run; that is a failure, not a pass with
// everything skipped (LUDO_SKIP_BROWSER=1 skips them on purpose, e.g. for the unit
// tests alone).
if (SKIP && process.env.LUDO_SKIP_BROWSER !== '1') {
  test('the browser tests have a server (LUDO_TEST_URL)', () => {
    throw new Error('LUDO_TEST_URL is not set: run scripts/browser-test.sh (or set LUDO_SKIP_BROWSER=1 to skip on purpose)');
  });
}

async function openBrowser(label, options = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), `ludo-${label}-`));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    ...options,
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  page.setDefaultTimeout(10_000);
  return { ctx, page, close: async () => { await ctx.close(); await rm(dir, { recursive: true, force: true }); } };
}

/** The client opened: app.js ran (it fills the language menu). */
async function assertShell(page, where) {
  await page.waitForFunction(() => document.querySelectorAll('#lang option').length >= 3, null, { timeout: 10_000 });
  assert.equal(await page.title(), 'Royal Ludo', where);
}

/** Client code of one visit: the same-origin files other than the API and /ws. */
function meter(page) {
  const files = [];
  page.on('requestfinished', async (req) => {
    const url = new URL(req.url());
    if (url.pathname.startsWith('/api/') || url.pathname === '/ws') return;
    const resp = await req.response();
    const sizes = await req.sizes();
    files.push({ path: url.pathname, status: resp?.status(), body: sizes.responseBodySize, headers: sizes.responseHeadersSize });
  });
  return files;
}

const sum = (files, key) => files.reduce((n, f) => n + Math.max(0, f[key]), 0);

test('a repeat visit transfers under 2 KB of client code (304s without bodies)', { skip: SKIP }, async () => {
  const b = await openBrowser('repeat', { serviceWorkers: 'block' });
  try {
    let files = meter(b.page);
    await b.page.goto(BASE, { waitUntil: 'networkidle' });
    await assertShell(b.page, 'cold');
    const cold = files;
    assert.ok(cold.some((f) => f.path === '/js/app.js' && f.status === 200), 'app.js came cold');
    await b.page.goto('about:blank');
    b.page.removeAllListeners('requestfinished');
    files = meter(b.page);
    await b.page.goto(BASE, { waitUntil: 'networkidle' });
    await assertShell(b.page, 'repeat');
    const repeat = files;
    console.log(`cold: ${cold.length} files, ${sum(cold, 'body')} B of bodies (compressed), ${sum(cold, 'headers')} B of headers`);
    console.log(`repeat: ${repeat.length} files, ${sum(repeat, 'body')} B of bodies, ${sum(repeat, 'headers')} B of headers; statuses ${repeat.map((f) => `${f.path} ${f.status}`).join(', ')}`);
    assert.ok(sum(cold, 'body') > 10_000, 'the cold load brought the client');
    assert.ok(repeat.length >= 3, 'the repeat visit revalidated the shell');
    for (const f of repeat) assert.ok(f.status === 304 || f.body === 0, `${f.path}: ${f.status}, ${f.body} B`);
    assert.ok(sum(repeat, 'body') < 2048, `repeat visit: ${sum(repeat, 'body')} B of client code`);
  } finally {
    await b.close();
  }
});

test('with the service worker installed, the client shell opens offline', { skip: SKIP }, async () => {
  const target = new URL(BASE);
  const socks = new Set();
  const proxy = net.createServer((down) => {
    const up = net.connect(Number(target.port), target.hostname);
    socks.add(down).add(up);
    down.pipe(up);
    up.pipe(down);
    const end = () => { down.destroy(); up.destroy(); socks.delete(down); socks.delete(up); };
    down.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${proxy.address().port}/`;
  const b = await openBrowser('offline');
  try {
    await b.page.goto(url, { waitUntil: 'networkidle' });
    await assertShell(b.page, 'online');
    // Installed and in control (the worker claims the page once active).
    await b.page.evaluate(() => navigator.serviceWorker.ready);
    await b.page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    // One more visit under the worker, so it has cached every module of the shell.
    await b.page.reload({ waitUntil: 'networkidle' });
    await assertShell(b.page, 'controlled');
    // The network goes away: nothing listens any more.
    await new Promise((r) => {
      proxy.close(r);
      for (const s of socks) s.destroy();
    });
    const refused = await b.page.evaluate((u) => fetch(u + 'api/v1/lobbies').then(() => 'answered', () => 'refused'), url);
    assert.equal(refused, 'refused', 'offline for real');
    await b.page.goto(url, { waitUntil: 'load' });
    await assertShell(b.page, 'offline');
  } finally {
    await b.close();
    proxy.close();
  }
});
