// Talking to the server: REST (`/api/v1/...`) and the WebSocket protocol of proto/
// (frames `{"t", "d", "id"?}` out, `{"t", "d", "seq"?}` in), with reconnects, the
// per-match sequence numbers and resync after a gap.

/** Protocol version this client speaks (proto/README.md). */
export const PROTOCOL_VERSION = 3;

/** An HTTP error with the server's error code and message, when it sent them. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

/** GET/POST JSON under the page's origin. Throws ApiError on non-2xx. */
export async function api(path, { method = 'GET', body } = {}) {
  const res = await fetch(path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = data?.error ?? data ?? {};
    throw new ApiError(res.status, err.code, err.message || text || res.statusText);
  }
  return data;
}

/** A server error frame turned into an exception (`code`, `message`). */
export class ProtocolError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

/**
 * One logical connection: reconnects with backoff, says `hello` with the stored
 * token and the last `seq` of each followed match each time, and delivers server
 * frames in `seq` order per match. Listeners:
 * `onFrame(frame)` for every in-order frame, `onStatus(messageKey, connected)`,
 * `onWelcome(welcome)` after each successful hello, `onAuthFailed(error)`.
 */
export class Connection {
  constructor(token) {
    this.token = token;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, timer}
    this.lastSeq = new Map(); // match_id -> last in-order seq
    this.held = new Map(); // match_id -> frames that came after a gap
    this.resyncing = new Set();
    this.closed = false;
    this.backoff = 500;
    this.onFrame = () => {};
    this.onStatus = () => {};
    this.onWelcome = () => {};
    this.onAuthFailed = () => {};
  }

  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${location.host}/ws`;
  }

  /** Opens the socket (and re-opens it after a drop until `close()`). */
  connect() {
    this.closed = false;
    this.onStatus('conn.connecting', false);
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      const d = { token: this.token, protocol_version: PROTOCOL_VERSION, client: 'web/1' };
      // The last seq of each followed match: the server replays a short gap of a
      // running match after `welcome` (or sends a snapshot), no `resync` needed.
      const seen = [...this.lastSeq].filter(([, seq]) => seq > 0);
      if (seen.length) d.last_seq = Object.fromEntries(seen);
      this.raw({ t: 'hello', d });
    };
    ws.onmessage = (m) => {
      let f;
      try {
        f = JSON.parse(m.data);
      } catch {
        return;
      }
      f.rx = Date.now();
      this.receive(f);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      clearInterval(this.pinger);
      for (const [, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(new ProtocolError('disconnected', 'The connection dropped; try again.'));
      }
      this.pending.clear();
      this.resyncing.clear();
      if (this.closed) return;
      // 4000: the same player signed in on another tab or device, which now holds
      // the session; reconnecting would only take it back (proto/README.md §2).
      if (ev.code === 4000) {
        this.closed = true;
        this.onStatus('conn.replaced', false);
        return;
      }
      this.onStatus('conn.reconnecting', false);
      setTimeout(() => !this.closed && this.connect(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, 8000);
    };
  }

  /** Closes for good (sign out). */
  close() {
    this.closed = true;
    this.ws?.close();
  }

  raw(frame) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  /** Sends a message without waiting for an answer. */
  send(t, d) {
    const f = { t };
    if (d !== undefined) f.d = d;
    this.raw(f);
  }

  /**
   * Sends a message with an `id` and resolves with the `ack` (or the first answer
   * whose type is in `answers`), rejects with a ProtocolError on the `error` that
   * names it, or after `timeoutMs`.
   */
  request(t, d, { timeoutMs = 10000 } = {}) {
    const id = `c${this.nextId++}`;
    const f = { t, id };
    if (d !== undefined) f.d = d;
    return new Promise((resolve, reject) => {
      if (this.ws?.readyState !== WebSocket.OPEN) {
        reject(new ProtocolError('disconnected', 'Not connected to the server.'));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ProtocolError('timeout', `No answer to ${t}.`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.raw(f);
    });
  }

  /**
   * `preview_plan` (proto/README.md §4): resolves with the `plan_preview` payload
   * that answers it (its `ack` is skipped), or rejects with the very error a
   * `submit_turn` of the plan would get.
   */
  preview(d, { timeoutMs = 10000 } = {}) {
    const id = `c${this.nextId++}`;
    return new Promise((resolve, reject) => {
      if (this.ws?.readyState !== WebSocket.OPEN) {
        reject(new ProtocolError('disconnected', 'Not connected to the server.'));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ProtocolError('timeout', 'No answer to preview_plan.'));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, answer: 'plan_preview' });
      this.raw({ t: 'preview_plan', id, d });
    });
  }

  settle(id, ok, value) {
    const p = this.pending.get(id);
    if (!p) return false;
    clearTimeout(p.timer);
    this.pending.delete(id);
    (ok ? p.resolve : p.reject)(value);
    return true;
  }

  /** Starts following a match from `seq` (e.g. after `match_started` or a snapshot). */
  follow(matchId, seq) {
    this.lastSeq.set(matchId, seq);
  }

  /** Asks for a snapshot of a match: the whole position again (resync from 0). */
  snapshot(matchId) {
    this.lastSeq.set(matchId, 0);
    this.resync(matchId);
  }

  /** Asks for everything after the last seen `seq` of a match (0: from its start). */
  resync(matchId) {
    if (this.resyncing.has(matchId)) return;
    this.resyncing.add(matchId);
    this.send('resync', { match_id: matchId, last_seq: this.lastSeq.get(matchId) ?? 0 });
  }

  receive(f) {
    const d = f.d ?? {};
    switch (f.t) {
      case 'welcome':
        this.backoff = 500;
        this.onStatus('conn.connected', true);
        clearInterval(this.pinger);
        this.pinger = setInterval(() => this.send('ping'), 20000);
        this.onWelcome(d);
        return;
      case 'ack':
        // A request answered by another message waits for that message.
        if (!this.pending.get(d.id)?.answer) this.settle(d.id, true, d);
        return;
      case 'plan_preview':
        this.settle(d.in_reply_to, true, d);
        return;
      case 'error':
        if (d.code === 'not_authenticated' || d.code === 'unsupported_version') {
          this.closed = true;
          this.onAuthFailed(new ProtocolError(d.code, d.message));
          this.ws?.close();
          return;
        }
        if (d.in_reply_to && this.settle(d.in_reply_to, false, new ProtocolError(d.code, d.message))) return;
        this.onFrame(f);
        return;
      default:
        break;
    }
    const matchId = d.match_id;
    if (f.seq === undefined || f.seq === null || !matchId) {
      this.onFrame(f);
      return;
    }
    if (f.t === 'snapshot') {
      this.resyncing.delete(matchId);
      this.lastSeq.set(matchId, d.seq ?? f.seq);
      this.onFrame(f);
      this.drain(matchId);
      return;
    }
    const last = this.lastSeq.get(matchId);
    if (last === undefined) {
      if (f.t === 'match_started' || f.seq === 1) {
        this.lastSeq.set(matchId, f.seq);
        this.onFrame(f);
        this.drain(matchId);
      } else {
        this.hold(matchId, f);
        this.lastSeq.set(matchId, 0);
        this.resync(matchId);
      }
      return;
    }
    if (f.seq <= last) return; // already seen
    if (f.seq === last + 1) {
      this.lastSeq.set(matchId, f.seq);
      this.resyncing.delete(matchId);
      this.onFrame(f);
      this.drain(matchId);
      return;
    }
    this.hold(matchId, f);
    this.resync(matchId);
  }

  hold(matchId, f) {
    if (!this.held.has(matchId)) this.held.set(matchId, []);
    this.held.get(matchId).push(f);
  }

  drain(matchId) {
    const list = this.held.get(matchId);
    if (!list) return;
    list.sort((a, b) => a.seq - b.seq);
    while (list.length) {
      const last = this.lastSeq.get(matchId) ?? 0;
      const f = list[0];
      if (f.seq <= last) {
        list.shift();
      } else if (f.seq === last + 1) {
        list.shift();
        this.lastSeq.set(matchId, f.seq);
        this.onFrame(f);
      } else {
        break;
      }
    }
    if (!list.length) this.held.delete(matchId);
  }
}
