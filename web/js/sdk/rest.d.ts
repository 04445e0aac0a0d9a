import type { operations, components } from './generated/openapi.js';
import type { RestErrorCode } from './generated/error-codes.js';
type Ok<Op extends keyof operations> = operations[Op]['responses'] extends {
    200: {
        content: {
            'application/json': infer B;
        };
    };
} ? B : operations[Op]['responses'] extends {
    201: {
        content: {
            'application/json': infer C;
        };
    };
} ? C : never;
/** A schema of the REST API by name (e.g. `Schema<'Leaderboard'>`). */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];
/** A non-2xx REST answer: HTTP `status` and the body's `error.code` and message. */
export declare class RestError extends Error {
    /** HTTP status. */
    readonly status: number;
    /** `error.code` of the body (proto/error_codes.json, `rest`), when it had one. */
    readonly code: RestErrorCode | undefined;
    /** Seconds to wait before trying again (the `Retry-After` header of a 429 or 503), when sent. */
    readonly retryAfterS: number | undefined;
    constructor(status: number, code: RestErrorCode | undefined, message: string, retryAfterS?: number);
}
/** Options of [`Rest`]. */
export interface RestOptions {
    /** The `fetch` to use (default: the global one). */
    fetch?: typeof fetch;
    /** Bearer token for the calls that need one (`me`). */
    token?: string;
}
/**
 * What [`Rest`] and [`Accounts`] share: the base URL, the bearer token and one JSON
 * call that throws a [`RestError`] on a non-2xx answer.
 */
export declare class RestBase {
    readonly baseUrl: string;
    private readonly f;
    /** Bearer token for calls that need one; set it after [`Rest.createGuest`] or [`Accounts.signIn`]. */
    token: string | undefined;
    constructor(baseUrl: string, options?: RestOptions);
    protected call<T>(path: string, init?: {
        method?: string;
        body?: unknown;
        auth?: boolean;
    }): Promise<T>;
}
/** The REST API under `baseUrl` (`http://HOST` or `https://HOST`, no trailing slash). */
export declare class Rest extends RestBase {
    /** `POST /api/v1/guests`: a new guest (`player_id`, `token`); also sets [`token`]. */
    createGuest(name: string): Promise<Ok<'createGuest'>>;
    /** `GET /api/v1/guests/me`: the signed-in player (needs [`token`]). */
    me(): Promise<Ok<'getMe'>>;
    /** `GET /api/v1/leaderboard?mode&limit`. */
    leaderboard(mode: string, limit?: number): Promise<Ok<'getLeaderboard'>>;
    /** `GET /api/v1/leaderboard/bots?mode`: the bot levels' ratings from bot-vs-bot matches (both modes without `mode`). */
    botLeaderboard(mode?: string): Promise<Ok<'getBotLeaderboard'>>;
    /** `GET /api/v1/lobbies`: open public lobbies. */
    lobbies(): Promise<Ok<'listLobbies'>>;
    /** `GET /api/v1/matches/live`: running matches to spectate. */
    liveMatches(): Promise<Ok<'liveMatches'>>;
    /** `GET /api/v1/matches/{id}`: a stored match's summary. */
    match(matchId: string): Promise<Ok<'getMatch'>>;
    /** `GET /api/v1/matches/{id}/replay`: the replay (proto/replay.schema.json). */
    replay(matchId: string): Promise<import('./generated/replay.js').Replay & {
        match_id: string;
    }>;
    /** `GET /api/v1/players/{id}`: ratings and counts. */
    player(playerId: string): Promise<Ok<'getPlayer'>>;
    /** `GET /api/v1/players/{id}/matches`: the player's matches, newest first. */
    playerMatches(playerId: string): Promise<Ok<'getPlayerMatches'>>;
}
export {};
