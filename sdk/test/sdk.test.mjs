// The SDK against the real ludo-server binary (issue 30): four SDK clients play a
// whole quick-play match, one of them through a TCP proxy that drops its socket
// mid-match; a refused request rejects with its typed code; the server clock offset
// is right on devices whose clocks are an hour ahead and an hour behind.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect, LudoError, Rest, countdownMs } from '../dist/index.js';
import { startServer, startProxy, within } from './harness.mjs';

const HOUR = 3_600_000;
let server;

before(async () => {
  server = await startServer({ LUDO_TURN_SECONDS: '6', LUDO_MATCH_SECONDS: '8', LUDO_RESYNC_FRAMES: '64' });
});
after(async () => {
  await server?.stop();
});

async function guest(name) {
  const rest = new Rest(server.http);
  const g = await rest.createGuest(name);
  assert.match(g.token, /^[0-9a-f]{64}$/);
  return g;
}

test('four SDK clients play a whole match; a cut socket reconnects and sees every seq once, in order', async () => {
  const proxy = await startProxy(server.port);
  const names = ['Ada', 'Bo', 'Cy', 'Di'];
  // Device clocks: Bo's is an hour ahead, Cy's an hour behind.
  const shift = [0, HOUR, -HOUR, 0];
  const players = [];
  for (const [i, name] of names.entries()) {
    const g = await guest(name);
    const url = i === 0 ? `ws://127.0.0.1:${proxy.port}/ws` : server.ws;
    const client = await within(10_000, `${name} welcome`, connect(url, g.token, {
      now: () => Date.now() + shift[i],
      backoffInitialMs: 100,
      client: 'sdk-test/1',
    }));
    assert.equal(client.welcome.player_id, g.player_id);
    assert.equal(client.welcome.name, name);
    players.push({ name, client, seqs: [], kinds: [], welcomes: 1, statuses: [], clockChecked: false });
  }
  let matchId = null;
  const ended = players.map((p) =>
    new Promise((resolve) => {
      const c = p.client;
      c.on('welcome', () => (p.welcomes += 1));
      c.on('status', (s) => p.statuses.push(s));
      c.on('frame', (f) => {
        if (f.seq != null) {
          p.seqs.push(f.seq);
          p.kinds.push(f.t);
        }
      });
      c.on('match_started', (f) => {
        p.seat = f.d.your_seat;
        matchId = f.d.match_id;
      });
      c.on('turn_started', (f) => {
        const t = f.d;
        if (!p.clockChecked) {
          // The offset is server − local: minus the device's shift, to within the
          // frame's transit and the test's scheduling (1 s).
          p.clockChecked = true;
          p.offset = c.clockOffsetMs;
          p.remaining = [c.remainingMs(t.turn_deadline_ms), t.turn_remaining_ms];
        }
        if (t.seat === p.seat) {
          // Pass a little later (the per-connection rate limit is 10 messages/s). A
          // pass the cut socket took down ('disconnected') is sent again once
          // reconnected: otherwise the turn waits out its 6 s timer and the 8 s match
          // clock ends the match after a few turns.
          const pass = (tries) =>
            c.pass(t.match_id, t.turn_number).catch((e) => {
              if (e.code === 'disconnected' && tries > 0) setTimeout(() => pass(tries - 1), 100);
            });
          setTimeout(() => pass(50), 40);
        }
      });
      c.on('match_ended', (f) => resolve(f));
    }),
  );
  try {
    for (const p of players) await p.client.joinQueue('clash');

    // Mid-match: once Ada has seen seq 6, drop her socket (TCP, no close frame).
    await within(15_000, 'seq 6', players[0].client.next('frame', (f) => (f.seq ?? 0) >= 6));
    assert.equal(proxy.cut(), 1, 'one connection went through the proxy');

    const ends = await within(30_000, 'match_ended for all four', Promise.all(ended));
    const lastSeq = ends[1].seq;
    assert.ok(lastSeq > 10, `a whole match: ${lastSeq} messages`);
    assert.deepEqual(new Set(ends.map((e) => e.seq)), new Set([lastSeq]), 'one last seq');
    for (const p of players) {
      // Each seq exactly once, in order: 1, 2, …, last (Ada's gap came as a replay of
      // the missed frames after welcome; a snapshot would have carried their seq).
      // The server keeps the last 64 frames (LUDO_RESYNC_FRAMES), so the gap is
      // replayed rather than summed up by a snapshot.
      const want = Array.from({ length: lastSeq }, (_, i) => i + 1);
      assert.ok(!p.kinds.includes('snapshot'), `${p.name}: no snapshot needed`);
      assert.deepEqual(p.seqs, want, `${p.name} sees every seq once, in order`);
      assert.equal(p.kinds[0], 'match_started');
      assert.equal(p.kinds.at(-1), 'match_ended');
    }
    assert.equal(players[0].welcomes, 2, 'Ada signed in again after the cut');
    assert.ok(players[0].statuses.includes('reconnecting'), players[0].statuses.join());
    for (const p of players.slice(1)) assert.equal(p.welcomes, 1, `${p.name} never reconnected`);
    assert.deepEqual(players[0].client.followed(), { [matchId]: lastSeq });

    // Server clock: offset = server − local; countdowns agree with the relative field.
    for (const [i, p] of players.entries()) {
      assert.ok(Math.abs(p.offset + shift[i]) < 1000, `${p.name}: offset ${p.offset}, device shift ${shift[i]}`);
      const [local, relative] = p.remaining;
      assert.ok(Math.abs(local - relative) < 1000, `${p.name}: countdown ${local} vs turn_remaining_ms ${relative}`);
    }
    // The replay of the ended match, through the typed REST helper.
    const replay = await new Rest(server.http).replay(matchId);
    assert.equal(replay.match_id, matchId);
    assert.equal(replay.end.reason, 'clock');
  } finally {
    // Closed on failure too: an open socket would keep the test file running.
    for (const p of players) p.client.close();
    await proxy.close();
  }
});

test('a refused request rejects with its typed code and changes nothing', async () => {
  const g = await guest('Eve');
  const c = await connect(server.ws, g.token);
  await assert.rejects(c.joinLobby('ZZZZZZ'), (e) => {
    assert.ok(e instanceof LudoError);
    assert.equal(e.code, 'lobby_not_found');
    return true;
  });
  await assert.rejects(c.pass('00000000-0000-0000-0000-000000000000', 1), (e) => e.code === 'match_not_found');
  // Nothing changed: she is free to queue (answered with an ack).
  const ack = await c.joinQueue('journey');
  assert.match(ack.id, /^s\d+$/);
  c.close();
  await assert.rejects(c.joinQueue('journey'), (e) => e.code === 'closed');
});

test('a refused token rejects connect with not_authenticated', async () => {
  await assert.rejects(connect(server.ws, '0'.repeat(64)), (e) => e instanceof LudoError && e.code === 'not_authenticated');
});

test('countdownMs: deadline − (local now + offset)', () => {
  // A device an hour behind (offset +1 h): a deadline 5 s after server now.
  const serverNow = 1_800_000_000_000;
  const local = serverNow - HOUR;
  assert.equal(countdownMs(serverNow + 5000, local, HOUR), 5000);
  assert.equal(countdownMs(serverNow - 1, serverNow, 0), -1);
});
