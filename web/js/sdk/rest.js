// REST helpers typed from proto/openapi.json (src/generated/openapi.ts): guests,
// matches, replays, leaderboards, lobbies, players. Only `fetch` (browsers, Node >= 18,
// React Native); inject another with `RestOptions.fetch`.
/** A non-2xx REST answer: HTTP `status` and the body's `error.code` and message. */
export class RestError extends Error {
    /** HTTP status. */
    status;
    /** `error.code` of the body (proto/error_codes.json, `rest`), when it had one. */
    code;
    constructor(status, code, message) {
        super(message);
        this.name = 'RestError';
        this.status = status;
        this.code = code;
    }
}
/** The REST API under `baseUrl` (`http://HOST` or `https://HOST`, no trailing slash). */
export class Rest {
    baseUrl;
    f;
    /** Bearer token for calls that need one; set it after [`createGuest`]. */
    token;
    constructor(baseUrl, options = {}) {
        this.baseUrl = baseUrl;
        this.f = options.fetch ?? fetch;
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
            throw new RestError(res.status, err?.code, err?.message ?? (text || `HTTP ${res.status}`));
        }
        return data;
    }
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
