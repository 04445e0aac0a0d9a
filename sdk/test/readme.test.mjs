// The README's SDK example (issue 30) runs as written: it is cut out of README.md,
// installed into a fresh app folder with `npm install <sdk>`, and played against the
// real server (bots fill the other seats at once; a 5 s match).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, within } from './harness.mjs';

const sdk = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let server;
let app;

before(async () => {
  // Bots think 100 ms, as a real server's do (more or less): at 0 ms a player who
  // answers at once would go over the per-connection rate limit (10 messages/s).
  server = await startServer({
    LUDO_BOT_FILL_SECONDS: '0',
    LUDO_BOT_THINK_MS: '100',
    LUDO_MATCH_SECONDS: '5',
    LUDO_TURN_SECONDS: '3',
  });
  app = mkdtempSync(path.join(tmpdir(), 'ludo-sdk-app-'));
});
after(async () => {
  await server?.stop();
  if (app) rmSync(app, { recursive: true, force: true });
});

test("the README's example installs from sdk/ and plays a whole match in under 30 lines", async () => {
  const readme = readFileSync(path.join(sdk, '..', 'README.md'), 'utf8');
  const m = readme.match(/<!-- sdk-example[^>]*-->\n```js\n([\s\S]*?)```/);
  assert.ok(m, 'README.md has the marked example');
  const code = m[1];
  assert.ok(code.trimEnd().split('\n').length < 30, 'under 30 lines');
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  writeFileSync(path.join(app, 'play.mjs'), code);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', sdk], { cwd: app, stdio: 'inherit' });
  const child = spawn(process.execPath, ['--experimental-websocket', 'play.mjs', server.http], { cwd: app });
  let out = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (out += b));
  const code_ = await within(60_000, 'the example ends', new Promise((r) => child.on('exit', r)));
  assert.equal(code_, 0, out);
  assert.match(out, /^signed in as NodeBot$/m);
  assert.match(out, /^match [0-9a-f-]{36} seat (green|red|blue|yellow)$/m);
  assert.match(out, /^turn \d+: dice [1-6](,[1-6])*, \d+ s left$/m, 'it played its turns');
  // The standings: four lines "place seat total", places 1..=4.
  const standings = out.split('\n').filter((l) => /^[1-4] (green|red|blue|yellow) -?\d+$/.test(l));
  assert.equal(standings.length, 4, out);
  // A pass can only be refused when it races the match clock's end (rule 9.1).
  for (const l of out.split('\n').filter((l) => l.startsWith('refused:'))) assert.equal(l, 'refused: match_over');
});
