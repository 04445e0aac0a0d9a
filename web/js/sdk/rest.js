// REST helpers typed from proto/openapi.json (src/generated/openapi.ts): guests,
// matches, replays, leaderboards, lobbies, players. Only `fetch` (browsers, Node >= 18,
// React Native); inject another with `RestOptions.fetch`.
/** A non-2xx REST answer: HTTP `status` and the body's `error.code` and message. */
export class RestError extends Error {
    /** HTTP status. */
    status;
    /** `error.code` of the body (proto/error_codes.json, `rest`), when it had one. */
    code;
    /** Seconds to wait before trying again (the `Retry-After` header of a 429 or 503), when sent. */
    retryAfterS;
    constructor(status, code, message, retryAfterS) {
        super(message);
        this.name = 'RestError';
        this.status = status;
        this.code = code;
        this.retryAfterS = retryAfterS;
    }
}
/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined. */
function retryAfter(value) {
    if (!value)
        return undefined;
    if (/^\d+$/.test(value.trim()))
        return Number(value.trim());
    const at = Date.parse(value);
    return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
/**
 * What [`Rest`] and [`Accounts`] share: the base URL, the bearer token and one JSON
 * call that throws a [`RestError`] on a non-2xx answer.
 */
export class RestBase {
    baseUrl;
    f;
    /** Bearer token for calls that need one; set it after [`Rest.createGuest`] or [`Accounts.signIn`]. */
    token;
    constructor(baseUrl, options = {}) {
        this.baseUrl = baseUrl;
        // The global fetch, called unbound (a browser refuses `fetch` called on another object).
        this.f = options.fetch ?? ((input, init) => fetch(input, init));
        this.token = options.token;
    }
    async call(path, init = {}) {
        const headers = {};
        if (init.body !== undefined)
            headers['content-type'] = 'application/json';
        if (init.auth && this.token)
            headers.authorization = `Bearer ${this.token}`;
        const res = await this.f(this.baseUrl + path, {
            method: init.method ?? 'GET',
            headers,
            body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
        const text = await res.text();
        let data = null;
        try {
            data = text ? JSON.parse(text) : null;
        }
        catch {
            data = null;
        }
        if (!res.ok) {
            const err = data?.error;
            throw new RestError(res.status, err?.code, err?.message ?? (text || `HTTP ${res.status}`), retryAfter(res.headers.get('retry-after')));
        }
        return data;
    }
}
/** The REST API under `baseUrl` (`http://HOST` or `https://HOST`, no trailing slash). */
export class Rest extends RestBase {
    /** `POST /api/v1/guests`: a new guest (`player_id`, `token`); also sets [`token`]. */
    async createGuest(name) {
        const g = await this.call('/api/v1/guests', { method: 'POST', body: { name } });
        this.token = g.token;
        return g;
    }
    /** `GET /api/v1/guests/me`: the signed-in player (needs [`token`]). */
    me() {
        return this.call('/api/v1/guests/me', { auth: true });
    }
    /** `GET /api/v1/leaderboard?mode&limit`. */
    leaderboard(mode, limit) {
        const q = new URLSearchParams({ mode });
        if (limit !== undefined)
            q.set('limit', String(limit));
        return this.call(`/api/v1/leaderboard?${q}`);
    }
    /** `GET /api/v1/leaderboard/bots?mode`: the bot levels' ratings from bot-vs-bot matches (both modes without `mode`). */
    botLeaderboard(mode) {
        const q = mode === undefined ? '' : `?${new URLSearchParams({ mode })}`;
        return this.call(`/api/v1/leaderboard/bots${q}`);
    }
    /** `GET /api/v1/lobbies`: open public lobbies. */
    lobbies() {
        return this.call('/api/v1/lobbies');
    }
    /** `GET /api/v1/matches/live`: running matches to spectate. */
    liveMatches() {
        return this.call('/api/v1/matches/live');
    }
    /** `GET /api/v1/matches/{id}`: a stored match's summary. */
    match(matchId) {
        return this.call(`/api/v1/matches/${encodeURIComponent(matchId)}`);
    }
    /** `GET /api/v1/matches/{id}/replay`: the replay (proto/replay.schema.json). */
    replay(matchId) {
        return this.call(`/api/v1/matches/${encodeURIComponent(matchId)}/replay`);
    }
    /** `GET /api/v1/players/{id}`: ratings and counts. */
    player(playerId) {
        return this.call(`/api/v1/players/${encodeURIComponent(playerId)}`);
    }
    /** `GET /api/v1/players/{id}/matches`: the player's matches, newest first. */
    playerMatches(playerId) {
        return this.call(`/api/v1/players/${encodeURIComponent(playerId)}/matches`);
    }
}
