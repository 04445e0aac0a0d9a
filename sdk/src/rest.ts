// REST helpers typed from proto/openapi.json (src/generated/openapi.ts): guests,
// matches, replays, leaderboards, lobbies, players. Only `fetch` (browsers, Node >= 18,
// React Native); inject another with `RestOptions.fetch`.

import type { operations, components } from './generated/openapi.js';
import type { RestErrorCode } from './generated/error-codes.js';

type Ok<Op extends keyof operations> = operations[Op]['responses'] extends { 200: { content: { 'application/json': infer B } } }
  ? B
  : operations[Op]['responses'] extends { 201: { content: { 'application/json': infer C } } }
    ? C
    : never;

/** A schema of the REST API by name (e.g. `Schema<'Leaderboard'>`). */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

/** A non-2xx REST answer: HTTP `status` and the body's `error.code` and message. */
export class RestError extends Error {
  /** HTTP status. */
  readonly status: number;
  /** `error.code` of the body (proto/error_codes.json, `rest`), when it had one. */
  readonly code: RestErrorCode | undefined;
  /** Seconds to wait before trying again (the `Retry-After` header of a 429 or 503), when sent. */
  readonly retryAfterS: number | undefined;
  constructor(status: number, code: RestErrorCode | undefined, message: string, retryAfterS?: number) {
    super(message);
    this.name = 'RestError';
    this.status = status;
    this.code = code;
    this.retryAfterS = retryAfterS;
  }
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined. */
function retryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
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
export class RestBase {
  private readonly f: typeof fetch;
  /** Bearer token for calls that need one; set it after [`Rest.createGuest`] or [`Accounts.signIn`]. */
  token: string | undefined;

  constructor(readonly baseUrl: string, options: RestOptions = {}) {
    // The global fetch, called unbound (a browser refuses `fetch` called on another object).
    this.f = options.fetch ?? ((input, init) => fetch(input, init));
    this.token = options.token;
  }

  protected async call<T>(path: string, init: { method?: string; body?: unknown; auth?: boolean } = {}): Promise<T> {
    const headers: Record<string, string> = {};
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.auth && this.token) headers.authorization = `Bearer ${this.token}`;
    const res = await this.f(this.baseUrl + path, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    let data: unknown = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok) {
      const err = (data as { error?: { code?: RestErrorCode; message?: string } } | null)?.error;
      throw new RestError(res.status, err?.code, err?.message ?? (text || `HTTP ${res.status}`), retryAfter(res.headers.get('retry-after')));
    }
    return data as T;
  }
}

/** The REST API under `baseUrl` (`http://HOST` or `https://HOST`, no trailing slash). */
export class Rest extends RestBase {

  /** `POST /api/v1/guests`: a new guest (`player_id`, `token`); also sets [`token`]. */
  async createGuest(name: string): Promise<Ok<'createGuest'>> {
    const g = await this.call<Ok<'createGuest'>>('/api/v1/guests', { method: 'POST', body: { name } });
    this.token = g.token;
    return g;
  }
  /** `GET /api/v1/guests/me`: the signed-in player (needs [`token`]). */
  me(): Promise<Ok<'getMe'>> {
    return this.call('/api/v1/guests/me', { auth: true });
  }
  /** `GET /api/v1/leaderboard?mode&limit`. */
  leaderboard(mode: string, limit?: number): Promise<Ok<'getLeaderboard'>> {
    const q = new URLSearchParams({ mode });
    if (limit !== undefined) q.set('limit', String(limit));
    return this.call(`/api/v1/leaderboard?${q}`);
  }
  /** `GET /api/v1/leaderboard/bots?mode`: the bot levels' ratings from bot-vs-bot matches (both modes without `mode`). */
  botLeaderboard(mode?: string): Promise<Ok<'getBotLeaderboard'>> {
    const q = mode === undefined ? '' : `?${new URLSearchParams({ mode })}`;
    return this.call(`/api/v1/leaderboard/bots${q}`);
  }
  /** `GET /api/v1/lobbies`: open public lobbies. */
  lobbies(): Promise<Ok<'listLobbies'>> {
    return this.call('/api/v1/lobbies');
  }
  /** `GET /api/v1/matches/live`: running matches to spectate. */
  liveMatches(): Promise<Ok<'liveMatches'>> {
    return this.call('/api/v1/matches/live');
  }
  /** `GET /api/v1/matches/{id}`: a stored match's summary. */
  match(matchId: string): Promise<Ok<'getMatch'>> {
    return this.call(`/api/v1/matches/${encodeURIComponent(matchId)}`);
  }
  /** `GET /api/v1/matches/{id}/replay`: the replay (proto/replay.schema.json). */
  replay(matchId: string): Promise<import('./generated/replay.js').Replay & { match_id: string }> {
    return this.call(`/api/v1/matches/${encodeURIComponent(matchId)}/replay`);
  }
  /** `GET /api/v1/players/{id}`: ratings and counts. */
  player(playerId: string): Promise<Ok<'getPlayer'>> {
    return this.call(`/api/v1/players/${encodeURIComponent(playerId)}`);
  }
  /** `GET /api/v1/players/{id}/matches`: the player's matches, newest first. */
  playerMatches(playerId: string): Promise<Ok<'getPlayerMatches'>> {
    return this.call(`/api/v1/players/${encodeURIComponent(playerId)}/matches`);
  }
}
