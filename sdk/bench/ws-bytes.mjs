// WebSocket bytes per player for one whole match (BENCHMARKS.md, issue 30):
//   node --experimental-websocket bench/ws-bytes.mjs http://127.0.0.1:8080
// One SDK player quick-plays a match (bots fill the other seats; the server's clocks
// decide its length) and passes every turn. Counts the text payload bytes it
// received and sent, and what permessage-deflate (RFC 7692, context takeover, one
// raw-deflate stream per direction flushed after each message) would have sent:
// each message is deflated with Node's zlib the way that extension does.
import zlib from 'node:zlib';
import { Rest, connect } from '../dist/index.js';

const base = process.argv[2] ?? 'http://127.0.0.1:8080';

function deflater() {
  const z = zlib.createDeflateRaw({ level: 6, windowBits: 15 });
  let out = 0;
  z.on('data', (b) => (out += b.length));
  return {
    add: (text) => new Promise((r) => { z.write(text); z.flush(zlib.constants.Z_SYNC_FLUSH, r); }),
    // permessage-deflate drops the trailing 00 00 ff ff of each flush (4 bytes).
    bytes: (messages) => out - 4 * messages,
  };
}

const rx = { n: 0, bytes: 0, z: deflater() };
const tx = { n: 0, bytes: 0, z: deflater() };
const queue = [];
class CountingWebSocket extends WebSocket {
  constructor(url) {
    super(url);
    this.addEventListener('message', (m) => {
      rx.n += 1;
      rx.bytes += Buffer.byteLength(m.data);
      queue.push(rx.z.add(m.data));
    });
  }
  send(data) {
    tx.n += 1;
    tx.bytes += Buffer.byteLength(data);
    queue.push(tx.z.add(data));
    super.send(data);
  }
}

const rest = new Rest(base);
const { token } = await rest.createGuest('Meter');
const client = await connect(base.replace(/^http/, 'ws') + '/ws', token, { WebSocket: CountingWebSocket });
let seat = null;
let turns = 0;
client.on('match_started', ({ d }) => (seat = d.your_seat));
client.on('turn_resolved', () => (turns += 1));
client.on('turn_started', ({ d }) => {
  if (d.seat === seat) setTimeout(() => client.pass(d.match_id, d.turn_number).catch(() => {}), 50);
});
await client.joinQueue('clash');
const ended = await client.next('match_ended');
client.close();
await Promise.all(queue);
const fmt = (x) => `${x.n} messages, ${x.bytes} B payload, ${x.z.bytes(x.n)} B with permessage-deflate`;
console.log(`match ${ended.d.match_id}: ${turns} turns`);
console.log(`received: ${fmt(rx)}`);
console.log(`sent: ${fmt(tx)}`);
