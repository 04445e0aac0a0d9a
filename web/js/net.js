// Talking to the server: REST (`/api/v1/...`) and the WebSocket protocol of proto/
// (frames `{"t", "d", "id"?}` out, `{"t", "d", "seq"?}` in). The WebSocket side is a
// thin adapter over the client SDK (sdk/, built into js/sdk/ by
// scripts/build-web-sdk.sh), which does the reconnects with backoff and jitter, the
// per-match sequence numbers, resync after a gap and the request ids.

import { LudoClient, PROTOCOL_VERSION } from './sdk/index.js';

/** @typedef {import('./sdk/generated/server.js').ServerFrame} ServerFrame */
/** @typedef {import('./sdk/generated/server.js').Welcome} Welcome */

export { PROTOCOL_VERSION };

/** An HTTP error with the server's error code and message, when it sent them. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

/**
 * GET/POST JSON under the page's origin. Throws ApiError on non-2xx.
 * @param {string} path
 * @param {{ method?: string, body?: unknown }} [options]
 */
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

/** The SDK's connection states as the app's status message keys. */
/** @type {Record<string, [string, boolean]>} */
const STATUS_KEYS = {
  connecting: ['conn.connecting', false],
  reconnecting: ['conn.reconnecting', false],
  open: ['conn.connected', true],
  replaced: ['conn.replaced', false],
  signed_out: ['conn.signedOut', false],
};

/**
 * `hello.client` (≤ 64 characters; the server shows it in the account's sessions
 * list): the client's name and version, then the browser and the system, from the
 * User-Agent ("web/1 · Chrome · Android").
 */
export function clientLabel(ua = navigator.userAgent) {
  /** @type {[RegExp, string][]} */
  const browsers = [
    [/Edg(A|iOS)?\//, 'Edge'], [/OPR\/|Opera/, 'Opera'], [/SamsungBrowser\//, 'Samsung Internet'],
    [/Firefox\/|FxiOS\//, 'Firefox'], [/Chrome\/|CriOS\/|Chromium\//, 'Chrome'], [/Safari\//, 'Safari'],
  ];
  const browser = browsers.find(([re]) => re.test(ua))?.[1];
  /** @type {[RegExp, string][]} */
  const systems = [
    [/Android/, 'Android'], [/iPhone|iPad|iPod/, 'iOS'], [/CrOS/, 'ChromeOS'], [/Windows/, 'Windows'],
    [/Mac OS X|Macintosh/, 'macOS'], [/Linux/, 'Linux'],
  ];
  const system = systems.find(([re]) => re.test(ua))?.[1];
  return ['web/1', browser, system].filter(Boolean).join(' · ').slice(0, 64);
}

/**
 * One logical connection (the SDK's `LudoClient`): reconnects with backoff, says
 * `hello` with the stored token and the last `seq` of each followed match each
 * time, and delivers server frames in `seq` order per match. Listeners:
 * `onFrame(frame)` for every in-order frame (not `welcome`, `ack`, or the `error`
 * answering a request; `frame.rx` is the local time it was delivered),
 * `onStatus(messageKey, connected)`, `onWelcome(welcome)` after each successful
 * hello, `onAuthFailed(error)`, `onSignedOut()` when the server closed the socket with
 * 4002 (the session was signed out, expired or its account deleted: no reconnect).
 */
export class Connection {
  /** @param {string} token */
  constructor(token) {
    this.token = token;
    /** @type {LudoClient | null} */
    this.client = null;
    /** @type {(frame: ServerFrame & { rx: number }) => void} */
    this.onFrame = () => {};
    /** @type {(messageKey: string, connected: boolean) => void} */
    this.onStatus = () => {};
    /** @type {(welcome: Welcome) => void} */
    this.onWelcome = () => {};
    /** @type {(error: Error & { code?: string }) => void} */
    this.onAuthFailed = () => {};
    /** @type {() => void} */
    this.onSignedOut = () => {};
  }

  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${location.host}/ws`;
  }

  /** The socket's state, as `{ readyState }` (WebSocket.OPEN once open). */
  get ws() {
    return this.client ? { readyState: this.client.readyState } : null;
  }

  /** Opens the socket (and re-opens it after a drop until `close()`). */
  connect() {
    this.client?.close();
    this.onStatus('conn.connecting', false);
    const c = new LudoClient(this.url(), this.token, {
      client: clientLabel(),
      backoffInitialMs: 500,
      backoffMaxMs: 8000,
    });
    this.client = c;
    c.on('status', (s) => {
      if (this.client !== c) return;
      const key = STATUS_KEYS[s];
      if (key) this.onStatus(...key);
      if (s === 'signed_out') this.onSignedOut();
    });
    c.on('frame', (raw) => {
      if (this.client !== c) return;
      const f = Object.assign(raw, { rx: Date.now() });
      if (f.t === 'welcome') {
        this.onWelcome(f.d);
      } else if (f.t === 'ack') {
        // answers a request (its promise)
      } else if (f.t === 'error' && (f.d.code === 'not_authenticated' || f.d.code === 'unsupported_version')) {
        this.onAuthFailed(new ProtocolError(f.d.code, f.d.message));
      } else if (f.t === 'error' && f.d.in_reply_to != null) {
        // rejects its request's promise
      } else {
        this.onFrame(f);
      }
    });
  }

  /** Closes for good (sign out). */
  close() {
    this.client?.close();
  }

  /** Sends a message without waiting for an answer. */
  send(t, d) {
    this.client?.send(t, d);
  }

  /**
   * Sends a message with an `id` and resolves with the `ack`, rejects with a
   * ProtocolError on the `error` that names it, or after 10 s (`timeout`).
   */
  request(t, d) {
    if (!this.client) return Promise.reject(new ProtocolError('disconnected', 'Not connected to the server.'));
    return this.client.request(t, d).catch((e) => {
      throw new ProtocolError(e.code, e.code === 'disconnected' ? 'The connection dropped; try again.' : e.message);
    });
  }

  /**
   * `preview_plan` (proto/README.md §4): resolves with the `plan_preview` payload
   * that answers it, or rejects with the very error a `submit_turn` of the plan
   * would get (a ProtocolError).
   */
  preview(d) {
    if (!this.client) return Promise.reject(new ProtocolError('disconnected', 'Not connected to the server.'));
    return this.client.preview(d).catch((e) => {
      throw new ProtocolError(e.code, e.code === 'disconnected' ? 'The connection dropped; try again.' : e.message);
    });
  }

  /** Starts following a match from `seq` (e.g. after `match_started` or a snapshot). */
  follow(matchId, seq) {
    this.client?.follow(matchId, seq);
  }

  /** Asks for a snapshot of a match: the whole position again (resync from 0). */
  snapshot(matchId) {
    this.client?.snapshot(matchId);
  }

  /** Asks for everything after the last seen `seq` of a match (0: from its start). */
  resync(matchId) {
    this.client?.resync(matchId);
  }
}
