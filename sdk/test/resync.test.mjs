// A refused `resync` (proto/README.md §7) against a scripted socket, on Node's mock
// clock: a passing refusal (`cluster_unavailable`: a cluster node not back on NATS
// yet) is asked again after the full-jitter backoff, so frames held behind a `seq`
// gap are delivered once the server answers; a final refusal is not asked again;
// a reconnect drops the waiting retry (its `hello` carries `last_seq`).
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../dist/index.js';

const MATCH = '00000000-0000-4000-8000-000000000001';

/** A WebSocket the test plays the server of: it records what the SDK sends. */
class ScriptedSocket {
  static all = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.onopen = this.onmessage = this.onclose = this.onerror = null;
    ScriptedSocket.all.push(this);
  }
  send(data) {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000) {
    this.readyState = 3;
    this.onclose?.({ code });
  }
  /** The server side: opens the socket. */
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  /** The server side: sends frame `f`. */
  push(f) {
    this.onmessage?.({ data: JSON.stringify(f) });
  }
  resyncs() {
    return this.sent.filter((f) => f.t === 'resync');
  }
}

const welcome = {
  t: 'welcome',
  d: { player_id: 'p', name: 'P', active_matches: [MATCH], protocol_version: 3, server_version: '0.1.0' },
};
const chat = (seq) => ({ t: 'chat', seq, d: { match_id: MATCH, seat: 'red', name: 'R', text: `m${seq}` } });
const refused = (code) => ({ t: 'error', d: { code, message: 'refused', in_reply_to: null } });

/** A signed-in client on a fresh scripted socket that has delivered `seq` 5 of MATCH. */
async function signedIn() {
  ScriptedSocket.all = [];
  const pending = connect('ws://test/ws', 't', {
    WebSocket: ScriptedSocket,
    random: () => 0.5,
    backoffInitialMs: 100,
    backoffMaxMs: 1000,
    pingIntervalMs: 0,
    lastSeq: { [MATCH]: 5 },
  });
  const ws = ScriptedSocket.all[0];
  ws.open();
  assert.equal(ws.sent[0].t, 'hello');
  ws.push(welcome);
  const client = await pending;
  const delivered = [];
  client.on('frame', (f) => f.seq && delivered.push(f.seq));
  return { client, ws, delivered };
}

test('a resync refused with cluster_unavailable is asked again after the backoff; the held frames follow', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { client, ws, delivered } = await signedIn();
    // A gap (6 is missing): 7 is held and a resync from 5 goes out.
    ws.push(chat(7));
    assert.deepEqual(ws.resyncs(), [{ t: 'resync', d: { match_id: MATCH, last_seq: 5 } }]);
    ws.push(refused('cluster_unavailable'));
    // Backoff 0.5 · min(1000, 100 · 2^0) = 50 ms.
    mock.timers.tick(49);
    assert.equal(ws.resyncs().length, 1);
    mock.timers.tick(1);
    assert.equal(ws.resyncs().length, 2);
    assert.deepEqual(ws.resyncs()[1].d, { match_id: MATCH, last_seq: 5 });
    // Refused again: 0.5 · 200 = 100 ms.
    ws.push(refused('cluster_unavailable'));
    mock.timers.tick(99);
    assert.equal(ws.resyncs().length, 2);
    mock.timers.tick(1);
    assert.equal(ws.resyncs().length, 3);
    // Answered: 6 comes, and the held 7 after it, each once.
    ws.push(chat(6));
    ws.push(chat(7));
    assert.deepEqual(delivered, [6, 7]);
    assert.deepEqual(client.followed(), { [MATCH]: 7 });
    // Nothing more is asked.
    mock.timers.tick(10_000);
    assert.equal(ws.resyncs().length, 3);
    client.close();
  } finally {
    mock.timers.reset();
  }
});

test('a resync refused for good is not asked again; a reconnect drops a waiting retry', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { client, ws } = await signedIn();
    ws.push(chat(7));
    ws.push(refused('match_not_found'));
    mock.timers.tick(10_000);
    assert.equal(ws.resyncs().length, 1);
    client.close();

    const second = await signedIn();
    second.ws.push(chat(7));
    second.ws.push(refused('cluster_unavailable'));
    // The socket drops before the retry (50 ms): the retry is not sent on the next
    // socket, whose hello carries last_seq 5 instead.
    second.ws.close(1006);
    mock.timers.tick(10_000);
    assert.equal(second.ws.resyncs().length, 1);
    const next = ScriptedSocket.all[1];
    assert.ok(next, 'reconnected');
    next.open();
    assert.deepEqual(next.sent[0].d.last_seq, { [MATCH]: 5 });
    next.push(welcome);
    mock.timers.tick(10_000);
    assert.equal(next.resyncs().length, 0);
    second.client.close();
  } finally {
    mock.timers.reset();
  }
});
