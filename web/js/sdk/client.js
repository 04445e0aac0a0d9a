// The WebSocket client of protocol 3 (proto/README.md): `hello`/`welcome`, typed
// events per server message, requests as promises (ids assigned here; an `error`
// rejects with its code), reconnect with exponential backoff and jitter and
// `hello.last_seq`, per-match `seq` order (gap replay, resync, snapshot) so each
// `seq` is delivered once and in order, and the server clock offset.
//
// Only web-standard APIs (WebSocket, setTimeout, JSON): browsers, Node >= 22 (global
// WebSocket; Node 20 with --experimental-websocket, or inject one), React Native.
/** Protocol version this SDK speaks (proto/README.md). */
export const PROTOCOL_VERSION = 3;
/** A refused or failed request (`code` to branch on, `message` for humans). */
export class LudoError extends Error {
    /** The error code. */
    code;
    constructor(code, message) {
        super(message || code);
        this.name = 'LudoError';
        this.code = code;
    }
}
/**
 * Countdown of a server deadline on this device: `deadline_ms − (local_now + offset)`,
 * ms (negative once past). `offset_ms` is [`LudoClient.clockOffsetMs`]: server time
 * minus local time. The one place the SDK turns a server instant into a countdown.
 */
export function countdownMs(deadlineMs, localNowMs, offsetMs) {
    return deadlineMs - (localNowMs + offsetMs);
}
const OPEN = 1;
/**
 * Refusals that pass by themselves (proto/README.md §7): the request may be sent
 * again a little later. A `resync` refused with one of them is ([`LudoClient`]).
 */
const PASSING = new Set(['cluster_unavailable', 'store_unavailable', 'rate_limited', 'internal']);
/**
 * One logical connection to the server (see [`connect`]). Reconnects on its own
 * until [`close`] (or until the server replaces it with another socket of the same
 * player, close code 4000: then status `replaced`, no reconnect; or until its
 * session is signed out, expires or its account is deleted, close code 4002: then
 * status `signed_out`, no reconnect: the token is dead, drop it and sign in again).
 */
export class LudoClient {
    url;
    token;
    /** The last `welcome` (after each successful `hello`). */
    welcome = null;
    /** Server clock minus local clock, ms (0 until a frame told the server time). */
    clockOffsetMs = 0;
    ws = null;
    WS;
    now;
    random;
    opts;
    nextId = 1;
    attempt = 0;
    closed = false;
    pinger = null;
    retry = null;
    pending = new Map();
    lastSeq = new Map();
    held = new Map();
    resyncing = new Set();
    /** Matches whose refused `resync` waits to be sent again → consecutive refusals. */
    resyncRefusals = new Map();
    resyncTimers = new Set();
    handlers = new Map();
    firstWelcome;
    /** Use [`connect`]. */
    constructor(url, token, options = {}, first = null) {
        this.url = url;
        this.token = token;
        const WS = options.WebSocket ?? globalThis.WebSocket;
        if (!WS) {
            throw new Error('no WebSocket: pass options.WebSocket (Node 20: run with --experimental-websocket or use the ws package)');
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
        for (const [m, s] of Object.entries(options.lastSeq ?? {}))
            this.lastSeq.set(m, s);
        this.firstWelcome = first;
        this.open();
    }
    /** Listens to server message `type` (or `frame`, `status`); returns the unsubscribe. */
    on(type, handler) {
        let set = this.handlers.get(type);
        if (!set)
            this.handlers.set(type, (set = new Set()));
        set.add(handler);
        return () => set.delete(handler);
    }
    /** The next frame of `type` that satisfies `pred`, as a promise. */
    next(type, pred = () => true) {
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
    serverNow() {
        return this.now() + this.clockOffsetMs;
    }
    /** Milliseconds left until the server instant `deadlineMs` (see [`countdownMs`]). */
    remainingMs(deadlineMs) {
        return countdownMs(deadlineMs, this.now(), this.clockOffsetMs);
    }
    /** The last `seq` delivered of each followed match. */
    followed() {
        return Object.fromEntries(this.lastSeq);
    }
    /**
     * Sends request `t` with an SDK-assigned `id`; resolves with its `ack`, rejects
     * with a [`LudoError`] carrying the server's `error` code (or `disconnected`,
     * `timeout`, `closed`).
     */
    request(t, d) {
        return this.ask(t, d);
    }
    /**
     * `preview_plan` (proto/README.md §4): resolves with the `plan_preview` that
     * answers it — the events and standings the plan would give, and the single-piece
     * moves it could still add — or rejects with the very `error` a `submit_turn` of
     * the plan would get. Nothing changes on the server.
     */
    preview(d) {
        return this.ask('preview_plan', d, 'plan_preview');
    }
    /** Sends request `t` with an id; resolves with the `answer` message (default `ack`). */
    ask(t, d, answer) {
        const id = `s${this.nextId++}`;
        return new Promise((resolve, reject) => {
            if (this.closed)
                return reject(new LudoError('closed', 'the client is closed'));
            if (this.ws?.readyState !== OPEN || !this.welcome) {
                return reject(new LudoError('disconnected', 'not connected to the server'));
            }
            const timer = setTimeout(() => {
                this.pending.delete(id);
                reject(new LudoError('timeout', `no answer to ${t}`));
            }, this.opts.requestTimeoutMs);
            this.pending.set(id, { resolve: resolve, reject, timer, answer });
            this.raw((d === undefined ? { t, id } : { t, id, d }));
        });
    }
    /** The socket's `readyState` (WebSocket's 0–3; 3, closed, between sockets). */
    get readyState() {
        return this.ws?.readyState ?? 3;
    }
    /** Whether the socket is open and signed in (`welcome` received). */
    get connected() {
        return this.ws?.readyState === OPEN && this.welcome !== null;
    }
    /** Sends message `t` without an `id` (no answer awaited); dropped when not connected. */
    send(t, d) {
        this.raw((d === undefined ? { t } : { t, d }));
    }
    /**
     * Asks for everything after the last delivered `seq` of `matchId` (`resync`; from
     * its start when it is not followed yet). Frames arriving meanwhile are held and
     * delivered in order.
     */
    resync(matchId) {
        this.resyncing.delete(matchId);
        this.resync_(matchId);
    }
    /** Asks for a `snapshot` of `matchId`: forgets its `seq` and resyncs from 0. */
    snapshot(matchId) {
        this.lastSeq.set(matchId, 0);
        this.resync(matchId);
    }
    /** Starts following `matchId` from `seq` (e.g. state restored by the app). */
    follow(matchId, seq) {
        this.lastSeq.set(matchId, seq);
    }
    /** Enter quick play (`join_queue`). */
    joinQueue(mode) {
        return this.request('join_queue', { mode });
    }
    /** Create a lobby you host (`create_lobby`); its code comes in `lobby_state`. */
    createLobby(d) {
        return this.request('create_lobby', d);
    }
    /** Join a lobby by code (`join_lobby`). */
    joinLobby(code) {
        return this.request('join_lobby', { code });
    }
    /** Host only: start the lobby's match (`start_lobby`). */
    startLobby() {
        return this.request('start_lobby');
    }
    /** Submit your plan for `turnNumber` (`submit_turn`). */
    submitTurn(d) {
        return this.request('submit_turn', d);
    }
    /** Pass your turn (`pass`, rule 4.4). */
    pass(matchId, turnNumber) {
        return this.request('pass', { match_id: matchId, turn_number: turnNumber });
    }
    /** Watch a running match (`spectate`): a snapshot, then live frames. */
    spectate(matchId) {
        return this.request('spectate', { match_id: matchId });
    }
    /** Say something in a match (`chat`). */
    chat(matchId, text) {
        return this.request('chat', { match_id: matchId, text });
    }
    /** Leave a running match for good (`leave_match`). */
    leaveMatch(matchId) {
        return this.request('leave_match', { match_id: matchId });
    }
    /** Closes for good: pending requests reject with `closed`, no reconnect. */
    close() {
        this.closed = true;
        if (this.retry)
            clearTimeout(this.retry);
        this.stopResyncRetries();
        this.stopPing();
        this.failPending('closed', 'the client is closed');
        this.ws?.close(1000);
        this.emit('status', 'closed');
    }
    // ---- connection ---------------------------------------------------------
    open() {
        this.retry = null;
        this.emit('status', this.attempt === 0 ? 'connecting' : 'reconnecting');
        const ws = new this.WS(this.url);
        this.ws = ws;
        ws.onopen = () => {
            const d = {
                token: this.token,
                protocol_version: PROTOCOL_VERSION,
                client: this.opts.client,
            };
            const seen = [...this.lastSeq].filter(([, s]) => s > 0);
            if (seen.length)
                d.last_seq = Object.fromEntries(seen);
            this.raw({ t: 'hello', d });
        };
        ws.onmessage = (m) => {
            if (this.ws !== ws || typeof m.data !== 'string')
                return;
            let f;
            try {
                f = JSON.parse(m.data);
            }
            catch {
                return;
            }
            this.receive(f, this.now());
        };
        ws.onerror = () => { };
        ws.onclose = (ev) => {
            if (this.ws !== ws)
                return;
            this.ws = null;
            this.welcome = null;
            this.stopPing();
            this.failPending('disconnected', 'the connection dropped');
            this.resyncing.clear();
            // The next `hello` carries `last_seq`: it replaces the resyncs waiting to retry.
            this.stopResyncRetries();
            if (this.closed)
                return;
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
    scheduleReconnect() {
        const cap = Math.min(this.opts.backoffMaxMs, this.opts.backoffInitialMs * 2 ** this.attempt);
        this.attempt += 1;
        this.emit('status', 'reconnecting');
        this.retry = setTimeout(() => !this.closed && this.open(), Math.round(this.random() * cap));
    }
    stopPing() {
        if (this.pinger)
            clearInterval(this.pinger);
        this.pinger = null;
    }
    failPending(code, message) {
        for (const [, p] of this.pending) {
            clearTimeout(p.timer);
            p.reject(new LudoError(code, message));
        }
        this.pending.clear();
    }
    raw(frame) {
        if (this.ws?.readyState === OPEN)
            this.ws.send(JSON.stringify(frame));
    }
    emit(type, value) {
        for (const h of this.handlers.get(type) ?? [])
            h(value);
    }
    deliver(f) {
        this.emit(f.t, f);
        this.emit('frame', f);
    }
    // ---- frames -------------------------------------------------------------
    /** Server clock from a frame that tells the server time, received at local `rx`. */
    observeClock(f, rx) {
        let serverNow = null;
        if (f.t === 'snapshot')
            serverNow = f.d.clocks.now_ms;
        if (f.t === 'turn_started') {
            const t = f.d;
            serverNow = t.turn_deadline_ms - t.turn_remaining_ms;
        }
        if (serverNow !== null)
            this.clockOffsetMs = serverNow - rx;
    }
    receive(f, rx) {
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
                    p.resolve(f.d);
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
                    p.resolve(f.d);
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
                if (!d.in_reply_to && PASSING.has(d.code))
                    this.resyncRefused();
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
        const matchId = f.d?.match_id;
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
            if (seq < last)
                return;
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
            }
            else {
                this.hold(matchId, f);
                this.lastSeq.set(matchId, 0);
                this.resync_(matchId);
            }
            return;
        }
        if (seq <= last)
            return; // already delivered
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
    resync_(matchId) {
        if (this.resyncing.has(matchId))
            return;
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
    resyncRefused() {
        const ws = this.ws;
        for (const matchId of this.resyncing) {
            this.resyncing.delete(matchId);
            const n = this.resyncRefusals.get(matchId) ?? 0;
            this.resyncRefusals.set(matchId, n + 1);
            const cap = Math.min(this.opts.backoffMaxMs, this.opts.backoffInitialMs * 2 ** n);
            const timer = setTimeout(() => {
                this.resyncTimers.delete(timer);
                if (!this.closed && this.ws === ws && this.welcome)
                    this.resync_(matchId);
            }, Math.round(this.random() * cap));
            this.resyncTimers.add(timer);
        }
    }
    stopResyncRetries() {
        for (const t of this.resyncTimers)
            clearTimeout(t);
        this.resyncTimers.clear();
        this.resyncRefusals.clear();
    }
    hold(matchId, f) {
        const list = this.held.get(matchId) ?? [];
        list.push(f);
        this.held.set(matchId, list);
    }
    drain(matchId) {
        const list = this.held.get(matchId);
        if (!list)
            return;
        list.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
        while (list.length) {
            const last = this.lastSeq.get(matchId) ?? 0;
            const f = list[0];
            const seq = f.seq ?? 0;
            if (seq <= last)
                list.shift();
            else if (seq === last + 1) {
                list.shift();
                this.lastSeq.set(matchId, seq);
                this.deliver(f);
            }
            else
                break;
        }
        if (!list.length)
            this.held.delete(matchId);
    }
}
/**
 * Opens a connection to `url` (`ws://HOST/ws` or `wss://HOST/ws`), signs in with
 * `token` (`hello`) and resolves with the client once `welcome` arrives; rejects
 * with `not_authenticated` / `unsupported_version` when the server refuses the
 * token. Afterwards the client reconnects by itself (see [`LudoClient`]).
 */
export function connect(url, token, options = {}) {
    return new Promise((resolve, reject) => {
        new LudoClient(url, token, options, { resolve, reject });
    });
}
