// Test harness: the real ludo-server binary ($LUDO_SERVER_BIN, built by
// scripts/sdk-test.sh) on a free port with a temporary SQLite database and short
// clocks, and a TCP proxy that can cut every connection through it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';

export async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts the server with `env` on top of the test defaults; `{ http, ws, stop }`. */
export async function startServer(env = {}) {
  const bin = process.env.LUDO_SERVER_BIN;
  if (!bin) throw new Error('LUDO_SERVER_BIN is not set (run scripts/sdk-test.sh)');
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'ludo-sdk-'));
  const child = spawn(bin, [], {
    env: {
      ...process.env,
      LUDO_BIND: `127.0.0.1:${port}`,
      DATABASE_URL: `sqlite://${dir}/ludo.db`,
      LUDO_BOT_THINK_MS: '0',
      LUDO_BOT_FILL_SECONDS: '600',
      LUDO_SHUTDOWN_GRACE_SECONDS: '1',
      LUDO_GUESTS_PER_MINUTE: '1000',
      LUDO_GUEST_BURST: '1000',
      RUST_LOG: 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const http = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`ludo-server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${http}/healthz`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('ludo-server did not answer /healthz within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    http,
    port,
    ws: `ws://127.0.0.1:${port}/ws`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A TCP proxy to 127.0.0.1:`target`; `cut()` drops every connection through it. */
export async function startProxy(target) {
  const pairs = new Set();
  const server = net.createServer((down) => {
    const up = net.connect(target, '127.0.0.1');
    const pair = [down, up];
    pairs.add(pair);
    down.pipe(up);
    up.pipe(down);
    const end = () => {
      pairs.delete(pair);
      down.destroy();
      up.destroy();
    };
    down.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: server.address().port,
    /** Destroys every connection (no close frame: the client sees 1006). */
    cut() {
      const n = pairs.size;
      for (const [down, up] of pairs) {
        down.destroy();
        up.destroy();
      }
      pairs.clear();
      return n;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Rejects after `ms` with `what` (bounds every wait of a test). */
export function within(ms, what, promise) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
