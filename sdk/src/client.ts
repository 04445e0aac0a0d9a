// The WebSocket client of protocol 3 (proto/README.md): `hello`/`welcome`, typed
// events per server message, requests as promises (ids assigned here; an `error`
// rejects with its code), reconnect with exponential backoff and jitter and
// `hello.last_seq`, per-match `seq` order (gap replay, resync, snapshot) so each
// `seq` is delivered once and in order, and the server clock offset.
//
// Only web-standard APIs (WebSocket, setTimeout, JSON): browsers, Node >= 22 (global
// WebSocket; Node 20 with --experimental-websocket, or inject one), React Native.

import type { ClientFrame } from './generated/client.js';
import type { Ack, PlanPreview, ServerFrame, Snapshot, TurnStarted, Welcome } from './generated/server.js';
import type { WsErrorCode } from './generated/error-codes.js';

/** Protocol version this SDK speaks (proto/README.md). */
export const PROTOCOL_VERSION = 3;

/** Every server message type (`t`). */
export type ServerMessageType = ServerFrame['t'];
/** The whole frame of server message `T` (`t`, `d`, `seq`). */
export type FrameOf<T extends ServerMessageType> = Extract<ServerFrame, { t: T }> & {
  seq?: number | null;
};
/** Every client message type (`t`). */
export type ClientMessageType = ClientFrame['t'];
/** The payload (`d`) of client message `T` (`undefined` for those without one). */
export type PayloadOf<T extends ClientMessageType> = Extract<ClientFrame, { t: T }>['d'];

/**
 * Why a request failed: a server `error` code (proto/error_codes.json, `websocket`),
 * or, from the SDK itself, `disconnected` (the socket dropped before the answer),
 * `timeout` (no answer in `requestTimeoutMs`), `closed` (after `close()`).
 */
export type RequestErrorCode = WsErrorCode | 'disconnected' | 'timeout' | 'closed';

/** A refused or failed request (`code` to branch on, `message` for humans). */
export class LudoError extends Error {
  /** The error code. */
  readonly code: RequestErrorCode;
  constructor(code: RequestErrorCode, message?: string) {
    super(message || code);
    this.name = 'LudoError';
    this.code = code;
  }
}

/** Connection state as the `status` event reports it. */
export type Status = 'connecting' | 'open' | 'reconnecting' | 'replaced' | 'signed_out' | 'closed';

/** The subset of the standard WebSocket the SDK uses. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}
/** A WebSocket constructor (the global one, `ws`'s, React Native's). */
export type WebSocketCtor = new (url: string) => WebSocketLike;

/** Options of [`connect`]. */
export interface ConnectOptions {
  /** WebSocket implementation; default: the global `WebSocket`. */
  WebSocket?: WebSocketCtor;
  /** The local clock, Unix ms (default `Date.now`); tests shift it. */
  now?: () => number;
  /** Uniform [0, 1) for the backoff jitter (default `Math.random`). */
  random?: () => number;
  /** First reconnect delay, ms (default 250); doubles per failed attempt. */
  backoffInitialMs?: number;
  /** Largest reconnect delay, ms (default 10000). */
  backoffMaxMs?: number;
  /** A request without an answer after this long rejects with `timeout` (ms, default 10000). */
  requestTimeoutMs?: number;
  /** Keep-alive `ping` interval while connected, ms (default 20000; 0: none). */
  pingIntervalMs?: number;
  /** `hello.client`: a name/version for the server's logs (default `ludo-sdk/0.1`). */
  client?: string;
  /** Last processed `seq` per match, e.g. restored after an app restart. */
  lastSeq?: Record<string, number>;
}

type Handler<T> = (value: T) => void;
type EventMap = { [K in ServerMessageType]: FrameOf<K> } & {
  /** Every server frame, after ordering (match frames once each, in `seq` order). */
  frame: ServerFrame;
  /** Connection state changes. */
  status: Status;
};

/**
 * Countdown of a server deadline on this device: `deadline_ms − (local_now + offset)`,
 * ms (negative once past). `offset_ms` is [`LudoClient.clockOffsetMs`]: server time
 * minus local time. The one place the SDK turns a server instant into a countdown.
 */
export function countdownMs(deadlineMs: number, localNowMs: number, offsetMs: number): number {
  return deadlineMs - (localNowMs + offsetMs);
}

const OPEN = 1;

/**
 * Refusals that pass by themselves (proto/README.md §7): the request may be sent
 * again a little later. A `resync` refused with one of them is ([`LudoClient`]).
 */
const PASSING: ReadonlySet<string> = new Set(['cluster_unavailable', 'store_unavailable', 'rate_limited', 'internal']);

/**
 * One logical connection to the server (see [`connect`]). Reconnects on its own
 * until [`close`] (or until the server replaces it with another socket of the same
 * player, close code 4000: then status `replaced`, no reconnect; or until its
 * session is signed out, expires or its account is deleted, close code 4002: then
 * status `signed_out`, no reconnect: the token is dead, drop it and sign in again).
 */
export class LudoClient {
  /** The last `welcome` (after each successful `hello`). */
  welcome: Welcome | null = null;
  /** Server clock minus local clock, ms (0 until a frame told the server time). */
  clockOffsetMs = 0;

  private ws: WebSocketLike | null = null;
  private readonly WS: WebSocketCtor;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly opts: Required<
    Pick<ConnectOptions, 'backoffInitialMs' | 'backoffMaxMs' | 'requestTimeoutMs' | 'pingIntervalMs' | 'client'>
  >;
  private nextId = 1;
  private attempt = 0;
  private closed = false;
  private pinger: ReturnType<typeof setInterval> | null = null;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private readonly pending = new Map<
    string,
    {
      resolve: (a: never) => void;
      reject: (e: LudoError) => void;
      timer: ReturnType<typeof setTimeout>;
      /** The message type that answers the request, when not its `ack` (`plan_preview`). */
      answer?: string;
    }
  >();
  private readonly lastSeq = new Map<string, number>();
  private readonly held = new Map<string, ServerFrame[]>();
  private readonly resyncing = new Set<string>();
  /** Matches whose refused `resync` waits to be sent again → consecutive refusals. */
  private readonly resyncRefusals = new Map<string, number>();
  private readonly resyncTimers = new Set<ReturnType<typeof setTimeout>>();
  private readonly handlers = new Map<string, Set<Handler<never>>>();
  private firstWelcome: { resolve: (c: LudoClient) => void; reject: (e: LudoError) => void } | null;

  /** Use [`connect`]. */
  constructor(
    readonly url: string,
    readonly token: string,
    options: ConnectOptions = {},
    first: { resolve: (c: LudoClient) => void; reject: (e: LudoError) => void } | null = null,
  ) {
    const WS = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketCtor }).WebSocket;
    if (!WS) {
      throw new Error(
        'no WebSocket: pass options.WebSocket (Node 20: run with --experimental-websocket or use the ws package)',
      );
    }
    this.WS = WS;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.opts = {
      backoffInitialMs: options.backoffInitialMs ?? 250,
      backoffMaxMs: options.backoffMaxMs ?? 10_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      pingIntervalMs: options.pingIntervalMs ?? 20_000,
      client: options.client ?? 'ludo-sdk/0.1',
    };
    for (const [m, s] of Object.entries(options.lastSeq ?? {})) this.lastSeq.set(m, s);
    this.firstWelcome = first;
    this.open();
  }

  /** Listens to server message `type` (or `frame`, `status`); returns the unsubscribe. */
  on<K extends keyof EventMap>(type: K, handler: Handler<EventMap[K]>): () => void {
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    set.add(handler as Handler<never>);
    return () => set.delete(handler as Handler<never>);
  }

  /** The next frame of `type` that satisfies `pred`, as a promise. */
  next<K extends keyof EventMap>(type: K, pred: (v: EventMap[K]) => boolean = () => true): Promise<EventMap[K]> {
    return new Promise((resolve) => {
      const off = this.on(type, (v) => {
        if (pred(v)) {
          off();
          resolve(v);
        }
      });
    });
  }

  /** The server's time now (Unix ms), from the local clock and [`clockOffsetMs`]. */
  serverNow(): number {
    return this.now() + this.clockOffsetMs;
  }

  /** Milliseconds left until the server instant `deadlineMs` (see [`countdownMs`]). */
  remainingMs(deadlineMs: number): number {
    return countdownMs(deadlineMs, this.now(), this.clockOffsetMs);
  }

  /** The last `seq` delivered of each followed match. */
  followed(): Record<string, number> {
    return Object.fromEntries(this.lastSeq);
  }

  /**
   * Sends request `t` with an SDK-assigned `id`; resolves with its `ack`, rejects
   * with a [`LudoError`] carrying the server's `error` code (or `disconnected`,
   * `timeout`, `closed`).
   */
  request<T extends ClientMessageType>(t: T, d?: PayloadOf<T>): Promise<Ack> {
    return this.ask<T, Ack>(t, d);
  }

  /**
   * `preview_plan` (proto/README.md §4): resolves with the `plan_preview` that
   * answers it — the events and standings the plan would give, and the single-piece
   * moves it could still add — or rejects with the very `error` a `submit_turn` of
   * the plan would get. Nothing changes on the server.
   */
  preview(d: PayloadOf<'preview_plan'>): Promise<PlanPreview> {
    return this.ask<'preview_plan', PlanPreview>('preview_plan', d, 'plan_preview');
  }

  /** Sends request `t` with an id; resolves with the `answer` message (default `ack`). */
  private ask<T extends ClientMessageType, A>(t: T, d?: PayloadOf<T>, answer?: string): Promise<A> {
    const id = `s${this.nextId++}`;
    return new Promise<A>((resolve, reject) => {
      if (this.closed) return reject(new LudoError('closed', 'the client is closed'));
      if (this.ws?.readyState !== OPEN || !this.welcome) {
        return reject(new LudoError('disconnected', 'not connected to the server'));
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new LudoError('timeout', `no answer to ${t}`));
      }, this.opts.requestTimeoutMs);
      this.pending.set(id, { resolve: resolve as (a: never) => void, reject, timer, answer });
      this.raw((d === undefined ? { t, id } : { t, id, d }) as ClientFrame);
    });
  }

  /** The socket's `readyState` (WebSocket's 0–3; 3, closed, between sockets). */
  get readyState(): number {
    return this.ws?.readyState ?? 3;
  }

  /** Whether the socket is open and signed in (`welcome` received). */
  get connected(): boolean {
    return this.ws?.readyState === OPEN && this.welcome !== null;
  }

  /** Sends message `t` without an `id` (no answer awaited); dropped when not connected. */
  send<T extends ClientMessageType>(t: T, d?: PayloadOf<T>): void {
    this.raw((d === undefined ? { t } : { t, d }) as ClientFrame);
  }

  /**
   * Asks for everything after the last delivered `seq` of `matchId` (`resync`; from
   * its start when it is not followed yet). Frames arriving meanwhile are held and
   * delivered in order.
   */
  resync(matchId: string): void {
    this.resyncing.delete(matchId);
    this.resync_(matchId);
  }

  /** Asks for a `snapshot` of `matchId`: forgets its `seq` and resyncs from 0. */
  snapshot(matchId: string): void {
    this.lastSeq.set(matchId, 0);
    this.resync(matchId);
  }

  /** Starts following `matchId` from `seq` (e.g. state restored by the app). */
  follow(matchId: string, seq: number): void {
    this.lastSeq.set(matchId, seq);
  }

  /** Enter quick play (`join_queue`). */
  joinQueue(mode: PayloadOf<'join_queue'>['mode']): Promise<Ack> {
    return this.request('join_queue', { mode });
  }
  /** Create a lobby you host (`create_lobby`); its code comes in `lobby_state`. */
  createLobby(d: PayloadOf<'create_lobby'>): Promise<Ack> {
    return this.request('create_lobby', d);
  }
  /** Join a lobby by code (`join_lobby`). */
  joinLobby(code: string): Promise<Ack> {
    return this.request('join_lobby', { code });
  }
  /** Host only: start the lobby's match (`start_lobby`). */
  startLobby(): Promise<Ack> {
    return this.request('start_lobby');
  }
  /** Submit your plan for `turnNumber` (`submit_turn`). */
  submitTurn(d: PayloadOf<'submit_turn'>): Promise<Ack> {
    return this.request('submit_turn', d);
  }
  /** Pass your turn (`pass`, rule 4.4). */
  pass(matchId: string, turnNumber: number): Promise<Ack> {
    return this.request('pass', { match_id: matchId, turn_number: turnNumber });
  }
  /** Watch a running match (`spectate`): a snapshot, then live frames. */
  spectate(matchId: string): Promise<Ack> {
    return this.request('spectate', { match_id: matchId });
  }
  /** Say something in a match (`chat`). */
  chat(matchId: string, text: string): Promise<Ack> {
    return this.request('chat', { match_id: matchId, text });
  }
  /** Leave a running match for good (`leave_match`). */
  leaveMatch(matchId: string): Promise<Ack> {
    return this.request('leave_match', { match_id: matchId });
  }

  /** Closes for good: pending requests reject with `closed`, no reconnect. */
  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.stopResyncRetries();
    this.stopPing();
    this.failPending('closed', 'the client is closed');
    this.ws?.close(1000);
    this.emit('status', 'closed');
  }

  // ---- connection ---------------------------------------------------------

  private open(): void {
    this.retry = null;
    this.emit('status', this.attempt === 0 ? 'connecting' : 'reconnecting');
    const ws = new this.WS(this.url);
    this.ws = ws;
    ws.onopen = () => {
      const d: PayloadOf<'hello'> = {
        token: this.token,
        protocol_version: PROTOCOL_VERSION,
        client: this.opts.client,
      };
      const seen = [...this.lastSeq].filter(([, s]) => s > 0);
      if (seen.length) d.last_seq = Object.fromEntries(seen);
      this.raw({ t: 'hello', d });
    };
    ws.onmessage = (m) => {
      if (this.ws !== ws || typeof m.data !== 'string') return;
      let f: ServerFrame;
      try {
        f = JSON.parse(m.data) as ServerFrame;
      } catch {
        return;
      }
      this.receive(f, this.now());
    };
    ws.onerror = () => {};
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.welcome = null;
      this.stopPing();
      this.failPending('disconnected', 'the connection dropped');
      this.resyncing.clear();
      // The next `hello` carries `last_seq`: it replaces the resyncs waiting to retry.
      this.stopResyncRetries();
      if (this.closed) return;
      if (ev.code === 4000) {
        // Replaced by a newer socket of the same player: reconnecting would take the
        // session back from it (proto/README.md §2).
        this.closed = true;
        this.emit('status', 'replaced');
        return;
      }
      if (ev.code === 4002) {
        // Signed out (this session, from another device, a password change, an
        // expiry or a deleted account): the token will never work again.
        this.closed = true;
        const first = this.firstWelcome;
        this.firstWelcome = null;
        first?.reject(new LudoError('not_authenticated', 'signed out'));
        this.emit('status', 'signed_out');
        return;
      }
      this.scheduleReconnect();
    };
  }

  /** Full-jitter exponential backoff: uniform in [0, min(max, initial · 2^attempt)]. */
  private scheduleReconnect(): void {
    const cap = Math.min(this.opts.backoffMaxMs, this.opts.backoffInitialMs * 2 ** this.attempt);
    this.attempt += 1;
    this.emit('status', 'reconnecting');
    this.retry = setTimeout(() => !this.closed && this.open(), Math.round(this.random() * cap));
  }

  private stopPing(): void {
    if (this.pinger) clearInterval(this.pinger);
    this.pinger = null;
  }

  private failPending(code: RequestErrorCode, message: string): void {
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new LudoError(code, message));
    }
    this.pending.clear();
  }

  private raw(frame: ClientFrame): void {
    if (this.ws?.readyState === OPEN) this.ws.send(JSON.stringify(frame));
  }

  private emit<K extends keyof EventMap>(type: K, value: EventMap[K]): void {
    for (const h of this.handlers.get(type) ?? []) (h as Handler<EventMap[K]>)(value);
  }

  private deliver(f: ServerFrame): void {
    this.emit(f.t, f as never);
    this.emit('frame', f);
  }

  // ---- frames -------------------------------------------------------------

  /** Server clock from a frame that tells the server time, received at local `rx`. */
  private observeClock(f: ServerFrame, rx: number): void {
    let serverNow: number | null = null;
    if (f.t === 'snapshot') serverNow = (f.d as Snapshot).clocks.now_ms;
    if (f.t === 'turn_started') {
      const t = f.d as TurnStarted;
      serverNow = t.turn_deadline_ms - t.turn_remaining_ms;
    }
    if (serverNow !== null) this.clockOffsetMs = serverNow - rx;
  }

  private receive(f: ServerFrame, rx: number): void {
    switch (f.t) {
      case 'welcome': {
        this.welcome = f.d;
        this.attempt = 0;
        this.stopPing();
        if (this.opts.pingIntervalMs > 0) {
          this.pinger = setInterval(() => this.raw({ t: 'ping' }), this.opts.pingIntervalMs);
        }
        this.emit('status', 'open');
        this.deliver(f);
        const first = this.firstWelcome;
        this.firstWelcome = null;
        first?.resolve(this);
        return;
      }
      case 'ack': {
        // A request answered by another message (`plan_preview`) waits for that one.
        const p = this.pending.get(f.d.id);
        if (p && !p.answer) {
          clearTimeout(p.timer);
          this.pending.delete(f.d.id);
          p.resolve(f.d as never);
        }
        this.deliver(f);
        return;
      }
      case 'plan_preview': {
        const id = f.d.in_reply_to;
        const p = id ? this.pending.get(id) : undefined;
        if (p && id && p.answer === 'plan_preview') {
          clearTimeout(p.timer);
          this.pending.delete(id);
          p.resolve(f.d as never);
        }
        this.deliver(f);
        return;
      }
      case 'error': {
        const d = f.d;
        if (d.code === 'not_authenticated' || d.code === 'unsupported_version') {
          if (!this.welcome) {
            // The token (or version) is refused: retrying cannot help.
            this.closed = true;
            const first = this.firstWelcome;
            this.firstWelcome = null;
            first?.reject(new LudoError(d.code, d.message));
            this.ws?.close(1000);
            this.emit('status', 'closed');
          }
        }
        if (!d.in_reply_to && PASSING.has(d.code)) this.resyncRefused();
        const p = d.in_reply_to ? this.pending.get(d.in_reply_to) : undefined;
        if (p && d.in_reply_to) {
          clearTimeout(p.timer);
          this.pending.delete(d.in_reply_to);
          p.reject(new LudoError(d.code, d.message));
        }
        this.deliver(f);
        return;
      }
      default:
        break;
    }
    const matchId = (f.d as { match_id?: string } | null | undefined)?.match_id;
    const seq = f.seq;
    if (seq === undefined || seq === null || !matchId) {
      this.deliver(f);
      return;
    }
    this.observeClock(f, rx);
    if (f.t === 'snapshot') {
      // The whole match now: replaces the view; later frames continue from its seq.
      const last = this.lastSeq.get(matchId) ?? 0;
      this.resyncing.delete(matchId);
      this.resyncRefusals.delete(matchId);
      if (seq < last) return;
      this.lastSeq.set(matchId, seq);
      this.deliver(f);
      this.drain(matchId);
      return;
    }
    const last = this.lastSeq.get(matchId);
    if (last === undefined) {
      if (f.t === 'match_started' || seq === 1) {
        this.lastSeq.set(matchId, seq);
        this.deliver(f);
        this.drain(matchId);
      } else {
        this.hold(matchId, f);
        this.lastSeq.set(matchId, 0);
        this.resync_(matchId);
      }
      return;
    }
    if (seq <= last) return; // already delivered
    if (seq === last + 1) {
      this.lastSeq.set(matchId, seq);
      this.resyncing.delete(matchId);
      this.resyncRefusals.delete(matchId);
      this.deliver(f);
      this.drain(matchId);
      return;
    }
    this.hold(matchId, f);
    this.resync_(matchId);
  }

  private resync_(matchId: string): void {
    if (this.resyncing.has(matchId)) return;
    this.resyncing.add(matchId);
    this.raw({ t: 'resync', d: { match_id: matchId, last_seq: this.lastSeq.get(matchId) ?? 0 } });
  }

  /**
   * A passing refusal ([`PASSING`]) without `in_reply_to` came while resyncs were
   * out: the SDK sends `resync` without an id, so it answers one of them (a
   * cluster whose node is not back on NATS yet, a database catching up). Each
   * waiting match is asked again after a full-jitter backoff, uniform in
   * [0, min(max, initial · 2^refusals)] ms (the reconnect backoff's options);
   * frames held meanwhile stay held, so the match does not stall behind a refused
   * resync until the next reconnect. A resync asked twice is harmless: frames
   * already delivered are dropped by `seq`.
   */
  private resyncRefused(): void {
    const ws = this.ws;
    for (const matchId of this.resyncing) {
      this.resyncing.delete(matchId);
      const n = this.resyncRefusals.get(matchId) ?? 0;
      this.resyncRefusals.set(matchId, n + 1);
      const cap = Math.min(this.opts.backoffMaxMs, this.opts.backoffInitialMs * 2 ** n);
      const timer = setTimeout(() => {
        this.resyncTimers.delete(timer);
        if (!this.closed && this.ws === ws && this.welcome) this.resync_(matchId);
      }, Math.round(this.random() * cap));
      this.resyncTimers.add(timer);
    }
  }

  private stopResyncRetries(): void {
    for (const t of this.resyncTimers) clearTimeout(t);
    this.resyncTimers.clear();
    this.resyncRefusals.clear();
  }

  private hold(matchId: string, f: ServerFrame): void {
    const list = this.held.get(matchId) ?? [];
    list.push(f);
    this.held.set(matchId, list);
  }

  private drain(matchId: string): void {
    const list = this.held.get(matchId);
    if (!list) return;
    list.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    while (list.length) {
      const last = this.lastSeq.get(matchId) ?? 0;
      const f = list[0];
      const seq = f.seq ?? 0;
      if (seq <= last) list.shift();
      else if (seq === last + 1) {
        list.shift();
        this.lastSeq.set(matchId, seq);
        this.deliver(f);
      } else break;
    }
    if (!list.length) this.held.delete(matchId);
  }
}

/**
 * Opens a connection to `url` (`ws://HOST/ws` or `wss://HOST/ws`), signs in with
 * `token` (`hello`) and resolves with the client once `welcome` arrives; rejects
 * with `not_authenticated` / `unsupported_version` when the server refuses the
 * token. Afterwards the client reconnects by itself (see [`LudoClient`]).
 */
export function connect(url: string, token: string, options: ConnectOptions = {}): Promise<LudoClient> {
  return new Promise((resolve, reject) => {
    new LudoClient(url, token, options, { resolve, reject });
  });
}
