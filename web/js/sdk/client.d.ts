import type { ClientFrame } from './generated/client.js';
import type { Ack, PlanPreview, ServerFrame, Welcome } from './generated/server.js';
import type { WsErrorCode } from './generated/error-codes.js';
/** Protocol version this SDK speaks (proto/README.md). */
export declare const PROTOCOL_VERSION = 3;
/** Every server message type (`t`). */
export type ServerMessageType = ServerFrame['t'];
/** The whole frame of server message `T` (`t`, `d`, `seq`). */
export type FrameOf<T extends ServerMessageType> = Extract<ServerFrame, {
    t: T;
}> & {
    seq?: number | null;
};
/** Every client message type (`t`). */
export type ClientMessageType = ClientFrame['t'];
/** The payload (`d`) of client message `T` (`undefined` for those without one). */
export type PayloadOf<T extends ClientMessageType> = Extract<ClientFrame, {
    t: T;
}>['d'];
/**
 * Why a request failed: a server `error` code (proto/error_codes.json, `websocket`),
 * or, from the SDK itself, `disconnected` (the socket dropped before the answer),
 * `timeout` (no answer in `requestTimeoutMs`), `closed` (after `close()`).
 */
export type RequestErrorCode = WsErrorCode | 'disconnected' | 'timeout' | 'closed';
/** A refused or failed request (`code` to branch on, `message` for humans). */
export declare class LudoError extends Error {
    /** The error code. */
    readonly code: RequestErrorCode;
    constructor(code: RequestErrorCode, message?: string);
}
/** Connection state as the `status` event reports it. */
export type Status = 'connecting' | 'open' | 'reconnecting' | 'replaced' | 'signed_out' | 'closed';
/** The subset of the standard WebSocket the SDK uses. */
export interface WebSocketLike {
    readonly readyState: number;
    send(data: string): void;
    close(code?: number, reason?: string): void;
    onopen: ((ev: unknown) => void) | null;
    onmessage: ((ev: {
        data: unknown;
    }) => void) | null;
    onclose: ((ev: {
        code: number;
        reason?: string;
    }) => void) | null;
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
type EventMap = {
    [K in ServerMessageType]: FrameOf<K>;
} & {
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
export declare function countdownMs(deadlineMs: number, localNowMs: number, offsetMs: number): number;
/**
 * One logical connection to the server (see [`connect`]). Reconnects on its own
 * until [`close`] (or until the server replaces it with another socket of the same
 * player, close code 4000: then status `replaced`, no reconnect; or until its
 * session is signed out, expires or its account is deleted, close code 4002: then
 * status `signed_out`, no reconnect: the token is dead, drop it and sign in again).
 */
export declare class LudoClient {
    readonly url: string;
    readonly token: string;
    /** The last `welcome` (after each successful `hello`). */
    welcome: Welcome | null;
    /** Server clock minus local clock, ms (0 until a frame told the server time). */
    clockOffsetMs: number;
    private ws;
    private readonly WS;
    private readonly now;
    private readonly random;
    private readonly opts;
    private nextId;
    private attempt;
    private closed;
    private pinger;
    private retry;
    private readonly pending;
    private readonly lastSeq;
    private readonly held;
    private readonly resyncing;
    /** Matches whose refused `resync` waits to be sent again → consecutive refusals. */
    private readonly resyncRefusals;
    private readonly resyncTimers;
    private readonly handlers;
    private firstWelcome;
    /** Use [`connect`]. */
    constructor(url: string, token: string, options?: ConnectOptions, first?: {
        resolve: (c: LudoClient) => void;
        reject: (e: LudoError) => void;
    } | null);
    /** Listens to server message `type` (or `frame`, `status`); returns the unsubscribe. */
    on<K extends keyof EventMap>(type: K, handler: Handler<EventMap[K]>): () => void;
    /** The next frame of `type` that satisfies `pred`, as a promise. */
    next<K extends keyof EventMap>(type: K, pred?: (v: EventMap[K]) => boolean): Promise<EventMap[K]>;
    /** The server's time now (Unix ms), from the local clock and [`clockOffsetMs`]. */
    serverNow(): number;
    /** Milliseconds left until the server instant `deadlineMs` (see [`countdownMs`]). */
    remainingMs(deadlineMs: number): number;
    /** The last `seq` delivered of each followed match. */
    followed(): Record<string, number>;
    /**
     * Sends request `t` with an SDK-assigned `id`; resolves with its `ack`, rejects
     * with a [`LudoError`] carrying the server's `error` code (or `disconnected`,
     * `timeout`, `closed`).
     */
    request<T extends ClientMessageType>(t: T, d?: PayloadOf<T>): Promise<Ack>;
    /**
     * `preview_plan` (proto/README.md §4): resolves with the `plan_preview` that
     * answers it — the events and standings the plan would give, and the single-piece
     * moves it could still add — or rejects with the very `error` a `submit_turn` of
     * the plan would get. Nothing changes on the server.
     */
    preview(d: PayloadOf<'preview_plan'>): Promise<PlanPreview>;
    /** Sends request `t` with an id; resolves with the `answer` message (default `ack`). */
    private ask;
    /** The socket's `readyState` (WebSocket's 0–3; 3, closed, between sockets). */
    get readyState(): number;
    /** Whether the socket is open and signed in (`welcome` received). */
    get connected(): boolean;
    /** Sends message `t` without an `id` (no answer awaited); dropped when not connected. */
    send<T extends ClientMessageType>(t: T, d?: PayloadOf<T>): void;
    /**
     * Asks for everything after the last delivered `seq` of `matchId` (`resync`; from
     * its start when it is not followed yet). Frames arriving meanwhile are held and
     * delivered in order.
     */
    resync(matchId: string): void;
    /** Asks for a `snapshot` of `matchId`: forgets its `seq` and resyncs from 0. */
    snapshot(matchId: string): void;
    /** Starts following `matchId` from `seq` (e.g. state restored by the app). */
    follow(matchId: string, seq: number): void;
    /** Enter quick play (`join_queue`). */
    joinQueue(mode: PayloadOf<'join_queue'>['mode']): Promise<Ack>;
    /** Create a lobby you host (`create_lobby`); its code comes in `lobby_state`. */
    createLobby(d: PayloadOf<'create_lobby'>): Promise<Ack>;
    /** Join a lobby by code (`join_lobby`). */
    joinLobby(code: string): Promise<Ack>;
    /** Host only: start the lobby's match (`start_lobby`). */
    startLobby(): Promise<Ack>;
    /** Submit your plan for `turnNumber` (`submit_turn`). */
    submitTurn(d: PayloadOf<'submit_turn'>): Promise<Ack>;
    /** Pass your turn (`pass`, rule 4.4). */
    pass(matchId: string, turnNumber: number): Promise<Ack>;
    /** Watch a running match (`spectate`): a snapshot, then live frames. */
    spectate(matchId: string): Promise<Ack>;
    /** Say something in a match (`chat`). */
    chat(matchId: string, text: string): Promise<Ack>;
    /** Leave a running match for good (`leave_match`). */
    leaveMatch(matchId: string): Promise<Ack>;
    /** Closes for good: pending requests reject with `closed`, no reconnect. */
    close(): void;
    private open;
    /** Full-jitter exponential backoff: uniform in [0, min(max, initial · 2^attempt)]. */
    private scheduleReconnect;
    private stopPing;
    private failPending;
    private raw;
    private emit;
    private deliver;
    /** Server clock from a frame that tells the server time, received at local `rx`. */
    private observeClock;
    private receive;
    private resync_;
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
    private resyncRefused;
    private stopResyncRetries;
    private hold;
    private drain;
}
/**
 * Opens a connection to `url` (`ws://HOST/ws` or `wss://HOST/ws`), signs in with
 * `token` (`hello`) and resolves with the client once `welcome` arrives; rejects
 * with `not_authenticated` / `unsupported_version` when the server refuses the
 * token. Afterwards the client reconnects by itself (see [`LudoClient`]).
 */
export declare function connect(url: string, token: string, options?: ConnectOptions): Promise<LudoClient>;
export {};
