export interface paths {
    "/api/v1/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Claims the caller's guest identity as an account with a username and password.
         *     The player keeps its id, ratings, history, running match and this session.
         *     Counts against the client address's guest-creation budget.
         */
        post: operations["claimAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/accounts/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's account (or guest identity). */
        get: operations["getAccount"];
        put?: never;
        post?: never;
        /**
         * Deletes the caller's account (or guest identity): its credentials, sessions
         *     (their sockets close with 4002), passkeys, ratings and name go. Its finished
         *     matches keep their turns and results, with the seat's name `""` (shown as a
         *     deleted player); replays still verify. Refused while the player sits in a
         *     running match.
         */
        delete: operations["deleteAccount"];
        options?: never;
        head?: never;
        /**
         * Changes the caller's display name (a guest's too). Matches already started keep
         *     the name their seats had.
         */
        patch: operations["renameAccount"];
        trace?: never;
    };
    "/api/v1/accounts/me/passkey-challenges": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Starts adding a passkey to the caller's account. */
        post: operations["startAddingPasskey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/accounts/me/passkeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's passkeys. */
        get: operations["listPasskeys"];
        put?: never;
        /** Finishes adding a passkey: verifies the browser's credential and stores it. */
        post: operations["addPasskey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/accounts/me/passkeys/{passkey_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Removes one of the caller's passkeys: it signs in no more. */
        delete: operations["removePasskey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/accounts/me/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Changes the account's password and signs out every other session of it (their
         *     sockets close with 4002, on every node).
         */
        post: operations["changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/guests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Creates a guest. Each client address ([`ClientIp`]) has a budget of
         *     `--guest-burst` guests, refilled at `--guests-per-minute`; past it: 429
         *     `rate_limited` with `Retry-After`, and nothing is stored.
         */
        post: operations["createGuest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/guests/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's guest identity. */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/leaderboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The best rated players of a mode, by conservative rating μ − 3σ. */
        get: operations["getLeaderboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/leaderboard/bots": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The bot levels' ratings from bot-vs-bot matches (Weng-Lin, as players are rated),
         *     shown apart from the players' leaderboard.
         */
        get: operations["getBotLeaderboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lobbies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The open public lobbies of this server (of every node in a cluster), oldest first. */
        get: operations["listLobbies"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/matches/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Matches running now in this server's rooms (at most 50, newest first), except
         *     those started from a private lobby.
         * @description Newest `started_at` first, then highest id. Read from the store; a room whose
         *     start the persistence writer has not stored yet is left out until it is.
         */
        get: operations["liveMatches"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/matches/{match_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A match's summary, seats and standings.
         * @description The summary with the final `standings` (the lines of `match_ended`), `null`
         *     while the match runs.
         *     Read from the store: turns a running room has handed to the persistence writer
         *     but that are not stored yet (the database is slow or down) count once stored.
         */
        get: operations["getMatch"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/matches/{match_id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Everything needed to re-play a match (RULES.md §10).
         * @description The seed is revealed only once the match has ended; its SHA-256 is the
         *     `dice_commitment` published at the start. Read from the store: turns not yet
         *     stored by the persistence writer appear once stored. The `verify-replay URL`
         *     tool (crate `client`) re-plays it and names the first differing turn.
         *
         *     Caching: an ended match's replay never changes, so it carries an `ETag` and
         *     `Cache-Control: public, max-age=31536000, immutable`, and a request whose
         *     `If-None-Match` names that tag gets `304 Not Modified` without a body; a running
         *     match's replay is `Cache-Control: no-store`.
         */
        get: operations["getReplay"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI document. */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/players/{player_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A player's profile: name, and per mode the rating and counts.
         * @description Ratings are Weng-Lin (OpenSkill) skill ratings in skill points: a new player
         *     has μ 25 and σ 25/3 (conservative μ − 3σ = 0); only matches with two or more
         *     human players are rated.
         */
        get: operations["getPlayer"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/players/{player_id}/matches": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A player's matches, newest first, paged.
         * @description History order is `started_at` descending, then match id descending; running and
         *     ended matches are listed. Paging: pass the previous page's `next_before` and
         *     `next_before_id` as `before` and `before_id`; both are `null` on the last page
         *     (also when it holds exactly `limit` matches). `before` alone lists the matches
         *     that started strictly before that time.
         */
        get: operations["getPlayerMatches"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's sessions. */
        get: operations["listSessions"];
        put?: never;
        /** Signs in with username and password: a new session of the account. */
        post: operations["signIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/others": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Signs out every session of the caller but this one. */
        delete: operations["signOutOthers"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/passkey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Signs in with a passkey: a new session of the account it belongs to. */
        post: operations["signInWithPasskey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/passkey-challenges": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Starts a sign-in with a passkey (no username: the passkey names the account). */
        post: operations["startPasskeySignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Signs out one of the caller's sessions (`current`: this one). Its token is
         *     refused from now on, and its socket closes with 4002 on whichever node holds it.
         */
        delete: operations["signOut"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness and gauges; does not touch the database. */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics.
         * @description Connections, rooms, queues, turns resolved, turn latency histogram, persistence backlog, retries and errors (list in `crate::metrics`).
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the store is migrated and answers, matches are resumed, the writer keeps up. */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description An account (or a guest, with `username` null), as its owner sees it. */
        Account: {
            /**
             * Format: date-time
             * @description When the player was created (UTC).
             */
            created_at: string;
            /** @description Display name. */
            name: string;
            /**
             * Format: uuid
             * @description The player's id (a claimed guest keeps its own).
             */
            player_id: string;
            /**
             * Format: uuid
             * @description The id of the session this request came with.
             */
            session_id: string;
            /** @description The username; `null` for a guest that has not claimed an account. */
            username?: string | null;
        };
        /** @description `GET /api/v1/leaderboard/bots` answer. */
        BotLeaderboard: {
            /** @description Journey first, then clash; in each mode the best `rating.conservative` first. */
            bots: components["schemas"]["BotRatedRow"][];
        };
        /**
         * @description How strong the bots are that fill empty seats, weakest first: `beginner` (a
         *     random legal plan on 3 turns in 4), `casual` (on 1 turn in 4, otherwise as
         *     `greedy`), `greedy` (the best plan under a one-turn heuristic), `expert` (compares
         *     the greedy bot's best plans by playing the next turns out with sampled dice).
         */
        BotLevel: "beginner" | "casual" | "greedy" | "expert";
        /** @description One bot level's rating in one mode. */
        BotRatedRow: {
            /**
             * @description UTC date of the run, `YYYY-MM-DD`.
             * @example 2026-12-06
             */
            date: string;
            level: components["schemas"]["BotLevel"];
            /**
             * Format: int32
             * @description Bot-vs-bot matches the rating comes from (one bot of each level at every
             *     table, seats rotating).
             */
            matches: number;
            /**
             * @description `journey` or `clash` (rule 1.4).
             * @example clash
             */
            mode: string;
            /** @description Skill points; ranked by `conservative` = μ − 3σ. */
            rating: components["schemas"]["Rating"];
            /**
             * Format: int64
             * @description Seed of those matches (`bot-duel --seed`): the run can be repeated.
             */
            seed: number;
        };
        /** @description `POST /api/v1/accounts` body. */
        Claim: {
            /** @description 8–128 characters (after NFC), any script, no control characters. */
            password: string;
            /**
             * @description 1–24 characters (grapheme clusters, at most 64 code points) by the names
             *     policy (any script), unique ignoring case.
             */
            username: string;
        };
        /** @description `DELETE /api/v1/accounts/me` body: an account sends its password; a guest `{}`. */
        Deletion: {
            /** @description The account's password (required for an account, ignored for a guest). */
            password?: string | null;
        };
        /**
         * @description The REST error body: every 4xx and 5xx answer of the API has this shape (it is
         *     what [`crate::error::ApiError`] renders).
         */
        ErrorBody: {
            /** @description The error. */
            error: components["schemas"]["ErrorDetail"];
        };
        /** @description The inside of [`ErrorBody`]. */
        ErrorDetail: {
            /**
             * @description Stable snake_case code; branch on it. Each code is always sent with the same HTTP status; the list with statuses and meanings is `proto/error_codes.json` (`rest`).
             * @example match_not_found
             * @enum {string}
             */
            code: "bad_json" | "bad_query" | "bad_request" | "invalid_name" | "invalid_id" | "invalid_limit" | "invalid_cursor" | "invalid_mode" | "invalid_username" | "invalid_password" | "invalid_credential" | "not_authenticated" | "bad_credentials" | "origin_not_allowed" | "forbidden" | "match_not_found" | "player_not_found" | "not_found" | "session_not_found" | "ceremony_not_found" | "passkey_not_found" | "username_taken" | "already_claimed" | "not_claimed" | "in_match" | "passkey_taken" | "too_many_passkeys" | "method_not_allowed" | "request_timeout" | "too_large" | "unsupported_media_type" | "upgrade_required" | "rate_limited" | "internal" | "unavailable";
            /** @description Human-readable explanation (may change between versions). */
            message: string;
        };
        /**
         * @description One line of `match_ended.standings`: the seat's final result (rule 9.2) and, for
         *     a rated seat, its rating change.
         */
        FinalStanding: {
            /**
             * Format: int64
             * @description Completion bonus (rule 8.8).
             */
            bonus: number;
            /**
             * Format: int64
             * @description Combat points (rule 8.6).
             */
            combat: number;
            /**
             * Format: uint8
             * @description Finishing place (rule 8.8), if the seat finished.
             */
            finished?: number | null;
            /**
             * @description Server rule (not in RULES.md): the seat's player left the match
             *     ([`Match::leave`]); a seat that left ranks below every seat that stayed.
             * @default false
             */
            left: boolean;
            /**
             * Format: uint8
             * @description Place by total, 1 = best; equal totals share a place (1, 1, 3, 4).
             */
            place: number;
            /**
             * Format: int64
             * @description Sum of progress points (rule 8.5).
             */
            progress: number;
            /**
             * @description The seat's rating change; absent for a bot's seat and in a match that rated
             *     nothing (fewer than two human players).
             */
            rating?: components["schemas"]["RatingChange"] | null;
            /** @description The seat. */
            seat: components["schemas"]["Seat"];
            /**
             * Format: int64
             * @description progress + combat + bonus.
             */
            total: number;
        };
        /** @description `POST /api/v1/guests` answer (201). */
        GuestCreated: {
            /**
             * Format: uuid
             * @description The new player's id.
             */
            player_id: string;
            /**
             * Format: uuid
             * @description The guest's session (`GET /api/v1/sessions`); it expires after
             *     `--session-idle-days` unused.
             */
            session_id: string;
            /**
             * @description Bearer token (64 hex digits): shown once, stored only as its SHA-256. Send it
             *     in `hello` and as `Authorization: Bearer <token>`.
             */
            token: string;
        };
        /** @description `GET /healthz` answer. */
        Health: {
            /** @description `"postgres"` or `"sqlite"`. */
            database: string;
            /** @description Writes handed to the persistence writer and not yet stored. */
            persistence_backlog: number;
            /** @description Running matches. */
            rooms: number;
            /** @description Players with a live WebSocket. */
            sessions: number;
            /** @description Always `"ok"`. */
            status: string;
        };
        /** @description `GET /api/v1/leaderboard` answer. */
        Leaderboard: {
            /**
             * Format: int32
             * @description Rated matches a player needs to be listed (the server's
             *     `--rating-min-matches`).
             */
            min_matches: number;
            /**
             * @description The mode asked for.
             * @example journey
             */
            mode: string;
            /** @description Best first: highest `rating.conservative` (μ − 3σ), then name, then id. */
            players: components["schemas"]["RatedRow"][];
        };
        /** @description `GET /api/v1/matches/live` answer. */
        LiveMatches: {
            /**
             * @description Running matches of this server (at most 50), most recently started first
             *     (then highest id); each can be watched with the WebSocket message
             *     `spectate {match_id}`. Matches of private lobbies are not listed: their players
             *     share the id to let others watch.
             */
            matches: components["schemas"]["MatchSummary"][];
        };
        /** @description One open public lobby in `lobby_list`. */
        LobbyInfo: {
            /** @description Level of those bots. */
            bot_level: components["schemas"]["BotLevel"];
            /** @description Join code (`join_lobby`). */
            code: string;
            /** @description Empty seats get bots when the host starts. */
            fill_with_bots: boolean;
            /** @description The host's display name. */
            host_name: string;
            /**
             * Format: uint32
             * @description Members now (1..=4; a lobby with 4 is full and not listed).
             */
            members: number;
            /** @description journey or clash. */
            mode: components["schemas"]["Mode"];
        };
        /** @description `GET /api/v1/players/{player_id}/matches` answer. */
        MatchHistory: {
            /**
             * @description The page: matches the player sat in, running and ended, newest first (by
             *     `started_at`, then id).
             */
            matches: components["schemas"]["MatchSummary"][];
            /**
             * Format: date-time
             * @description The `before` of the next page (the last match's `started_at`), or `null` when
             *     this page is the last.
             */
            next_before?: string | null;
            /**
             * Format: uuid
             * @description The `before_id` of the next page (the last match's id), or `null` when this
             *     page is the last.
             */
            next_before_id?: string | null;
        };
        /**
         * @description Whether a match is still being played.
         * @enum {string}
         */
        MatchStatus: "running" | "ended";
        /**
         * @description A stored match without its turn log: the answer of
         *     `GET /api/v1/matches/{match_id}` and each line of the history and live lists.
         */
        MatchSummary: {
            /**
             * Format: date-time
             * @description When the match was stored (RFC 3339, UTC).
             */
            created_at: string;
            /** @description SHA-256 of the seed, 64 hex digits (RULES.md §10). */
            dice_commitment: string;
            /**
             * @description Why it ended, `all_finished`, `clock` or `abandoned` (rule 9.1; the `reason` of
             *     `match_ended`); `null` while it runs.
             * @example clock
             */
            end_reason?: string | null;
            /**
             * Format: date-time
             * @description When the match ended (RFC 3339, UTC); `null` while it runs.
             */
            ended_at?: string | null;
            /**
             * Format: uuid
             * @description The match (the `match_id` of `match_started`).
             */
            match_id: string;
            /**
             * @description `journey` or `clash` (rule 1.4).
             * @example journey
             */
            mode: string;
            /** @description The four seats in turn order (green, red, blue, yellow), as in `match_started`. */
            seats: components["schemas"]["SeatInfo"][];
            /** @description Final standings, best first (rule 9.2; equal places keep seat order), with the rating changes: the lines of `match_ended.standings`. `null` while the match runs. */
            standings?: components["schemas"]["FinalStanding"][] | null;
            /**
             * Format: date-time
             * @description When the match started (RFC 3339, UTC).
             */
            started_at: string;
            /** @description running or ended. */
            status: components["schemas"]["MatchStatus"];
            /**
             * Format: int32
             * @description Turns stored so far.
             */
            turns_played: number;
        };
        /** @description `GET /api/v1/guests/me` answer. */
        Me: {
            /**
             * Format: date-time
             * @description When the guest was created (UTC).
             */
            created_at: string;
            /** @description Display name. */
            name: string;
            /**
             * Format: uuid
             * @description The player's id.
             */
            player_id: string;
        };
        /** @description Rule 1.4: the two modes. */
        Mode: "journey" | "clash";
        /** @description A player's figures in one mode. */
        ModeStats: {
            /**
             * Format: int64
             * @description Ended matches of the mode played (rated or not).
             */
            matches: number;
            /**
             * @description `journey` or `clash` (rule 1.4).
             * @example journey
             */
            mode: string;
            /**
             * Format: int64
             * @description Rated matches of the mode played.
             */
            rated_matches: number;
            /** @description Skill points; ranked by `conservative` = μ − 3σ. */
            rating: components["schemas"]["Rating"];
            /**
             * Format: int64
             * @description Sum of the player's final totals in them (game points).
             */
            total_points: number;
            /**
             * Format: int64
             * @description Of those, matches finished in place 1 (shared first places count).
             */
            wins: number;
        };
        /** @description `POST /api/v1/guests` body. */
        NewGuest: {
            /**
             * @description Display name: 1–24 characters after NFC normalization (grapheme clusters: a
             *     conjunct such as "ক্ষি" or an emoji sequence is one; at most 64 code points), in any script, emoji
             *     included; refused when it renders blank or holds control, bidirectional or
             *     invisible format characters (ZWJ and ZWNJ are fine between two characters),
             *     more than 4 stacked combining marks, or white space at either end.
             */
            name: string;
        };
        /** @description `POST /api/v1/accounts/me/passkeys` body. */
        NewPasskey: {
            /**
             * Format: uuid
             * @description The id of the ceremony `POST /api/v1/accounts/me/passkey-challenges` started.
             */
            ceremony_id: string;
            /**
             * @description The `PublicKeyCredential` `navigator.credentials.create` gave, as JSON (its
             *     `toJSON()`: `id`, `rawId`, `type`, `response.attestationObject`,
             *     `response.clientDataJSON`; bytes as base64url without padding).
             */
            credential: Record<string, never>;
            /**
             * @description A name for the passkey, shown in the list (the names policy: 1–24 characters,
             *     grapheme clusters).
             */
            name: string;
        };
        /** @description A ceremony started (201): its id and the WebAuthn options to hand to the browser. */
        PasskeyChallenge: {
            /**
             * Format: uuid
             * @description The ceremony's id: send it back with the browser's answer within 5 minutes,
             *     to the same server node.
             */
            ceremony_id: string;
            /**
             * @description WebAuthn options, `{"publicKey": {…}}`, byte fields (`challenge`, `user.id`,
             *     credential ids) as base64url without padding: decode them to `ArrayBuffer`s and
             *     pass the result to `navigator.credentials.create` (adding) or
             *     `navigator.credentials.get` (signing in).
             */
            options: Record<string, never>;
        };
        /** @description One passkey of the account. */
        PasskeyInfo: {
            /**
             * Format: date-time
             * @description When it was added (UTC).
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it last signed in (UTC); `null` before its first sign-in.
             */
            last_used_at?: string | null;
            /** @description The name it was given. */
            name: string;
            /** @description Its id: the WebAuthn credential id, base64url without padding. */
            passkey_id: string;
        };
        /** @description `GET /api/v1/accounts/me/passkeys` answer. */
        PasskeyList: {
            /** @description The account's passkeys (at most 10), oldest first. */
            passkeys: components["schemas"]["PasskeyInfo"][];
        };
        /** @description `POST /api/v1/sessions/passkey` body. */
        PasskeySignIn: {
            /**
             * Format: uuid
             * @description The id of the ceremony `POST /api/v1/sessions/passkey-challenges` started.
             */
            ceremony_id: string;
            /**
             * @description The `PublicKeyCredential` `navigator.credentials.get` gave, as JSON (`id`,
             *     `rawId`, `type`, `response.authenticatorData`, `response.clientDataJSON`,
             *     `response.signature`, `response.userHandle`; bytes as base64url without
             *     padding).
             */
            credential: Record<string, never>;
        };
        /** @description `POST /api/v1/accounts/me/password` body. */
        PasswordChange: {
            /** @description The password now. */
            current_password: string;
            /** @description The new password: 8–128 characters, no control characters. */
            new_password: string;
        };
        /** @description `GET /api/v1/players/{player_id}` answer: name and, per mode, rating and counts. */
        PlayerProfile: {
            /**
             * Format: date-time
             * @description When the guest was created (RFC 3339, UTC).
             */
            created_at: string;
            /** @description Figures per mode, journey then clash (every mode is listed). */
            modes: components["schemas"]["ModeStats"][];
            /** @description Display name. */
            name: string;
            /**
             * Format: uuid
             * @description The player.
             */
            player_id: string;
        };
        /** @description `GET /api/v1/lobbies` answer. */
        PublicLobbies: {
            /** @description Open public lobbies with a free seat, oldest first (at most 100), as in `lobby_list`. */
            lobbies: components["schemas"]["LobbyInfo"][];
        };
        /** @description One line of the rated leaderboard of a mode. */
        RatedRow: {
            /** @description The player's name. */
            name: string;
            /**
             * Format: uuid
             * @description The player.
             */
            player_id: string;
            /**
             * Format: int64
             * @description Rated matches of the mode played (matches with two or more human players).
             */
            rated_matches: number;
            /** @description Skill points; ranked by `conservative` = μ − 3σ. */
            rating: components["schemas"]["Rating"];
            /**
             * Format: int64
             * @description Ended matches of the mode finished in place 1 (shared first places count).
             */
            wins: number;
        };
        /**
         * @description A skill rating: the Weng-Lin (OpenSkill) model's belief over a player's skill
         *     in one mode, in skill points. A new player has `mu` 25 and `sigma` 25/3 ≈ 8.333,
         *     so `conservative` 0; leaderboards rank by `conservative`.
         */
        Rating: {
            /**
             * Format: double
             * @description `mu − 3·sigma` (skill points): the rating shown and ranked by.
             */
            conservative: number;
            /**
             * Format: double
             * @description Estimated skill (skill points).
             */
            mu: number;
            /**
             * Format: double
             * @description Uncertainty of `mu`, its standard deviation (skill points); it shrinks as
             *     the player plays.
             */
            sigma: number;
        };
        /**
         * @description How a match changed one player's rating in the match's mode. Only human seats
         *     of a match with two or more human players are rated; bots never are; a seat
         *     whose player left ranks below every seat that stayed; equal places tie.
         */
        RatingChange: {
            /** @description The rating after it. */
            after: components["schemas"]["Rating"];
            /** @description The rating before the match. */
            before: components["schemas"]["Rating"];
            /**
             * Format: double
             * @description `after.conservative − before.conservative` (skill points; may be negative).
             */
            change: number;
        };
        /** @description `GET /readyz` answer (200). */
        Ready: {
            /**
             * @description Always `"ready"`.
             * @example ready
             */
            status: string;
        };
        /** @description `PATCH /api/v1/accounts/me` body. */
        Rename: {
            /** @description The new display name (the names policy of `POST /api/v1/guests`). */
            name: string;
        };
        /** @description Rule 1.1: the four seats, in turn order (green moves first). */
        Seat: "green" | "red" | "blue" | "yellow";
        /** @description Who sits in a seat. */
        SeatInfo: {
            /**
             * @description True for a bot (also for a seat whose player left: a bot plays it). Replay
             *     documents of servers before protocol 2 call it `is_bot`, which is read too.
             */
            bot: boolean;
            /**
             * @description The level of the bot that plays the seat (absent for a human's seat, and for
             *     the bot of a seat whose player left, which plays at the server's default).
             */
            bot_level?: components["schemas"]["BotLevel"] | null;
            /**
             * @description True once the seat's player left the match (`seat_left`).
             * @default false
             */
            left: boolean;
            /** @description Display name (bots are named "Bot …"). */
            name: string;
            /**
             * Format: uuid
             * @description The player, or null for a bot.
             */
            player_id?: string | null;
            /** @description The seat. */
            seat: components["schemas"]["Seat"];
        };
        /** @description A new session (201): like `POST /api/v1/guests`'s answer. */
        SessionCreated: {
            /**
             * Format: uuid
             * @description The account's player id.
             */
            player_id: string;
            /**
             * Format: uuid
             * @description The new session's id.
             */
            session_id: string;
            /**
             * @description Bearer token (64 hex digits): shown once, stored only as its SHA-256. Send it
             *     in `hello` and as `Authorization: Bearer <token>`.
             */
            token: string;
        };
        /** @description One session in `GET /api/v1/sessions`. */
        SessionInfo: {
            /**
             * @description The `client` string of its last `hello`, or the User-Agent it signed in with
             *     (at most 64 characters; may be empty).
             */
            client: string;
            /**
             * Format: date-time
             * @description When it was created (UTC).
             */
            created_at: string;
            /** @description True for the session this request came with. */
            current: boolean;
            /**
             * Format: date-time
             * @description When it was last used (UTC; refreshed at most once a minute, and at every
             *     `hello`).
             */
            last_used_at: string;
            /**
             * Format: uuid
             * @description Session id.
             */
            session_id: string;
        };
        /** @description `GET /api/v1/sessions` answer. */
        SessionList: {
            /** @description The caller's sessions that have not expired, most recently used first. */
            sessions: components["schemas"]["SessionInfo"][];
        };
        /** @description `POST /api/v1/sessions` body. */
        SignIn: {
            /** @description Its password. */
            password: string;
            /** @description The account's username (any case). */
            username: string;
        };
        /** @description How many sessions an action signed out. */
        SignedOut: {
            /** @description Sessions signed out (their sockets were closed with 4002). */
            signed_out: number;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    claimAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Claim"];
            };
        };
        responses: {
            /** @description The account. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            /** @description `invalid_username` (the names policy), `invalid_password` (not 8–128 characters, or a control character) or `bad_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `not_authenticated`. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `username_taken` (another account has it, ignoring case) or `already_claimed` (the caller is an account). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `rate_limited`: this address created too many guests or accounts; `Retry-After` gives the seconds. */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer, or no password hashing slot freed up in 10 s. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller: id, name, username (null for a guest), session id. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            /** @description `not_authenticated`: no bearer token, or an unknown, signed-out or expired one. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Deletion"];
            };
        };
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_json`, or `invalid_password` (an account sent no password). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `not_authenticated`, or `bad_credentials` (wrong password). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `in_match`: the player sits in a running match; finish or leave it first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    renameAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Rename"];
            };
        };
        responses: {
            /** @description The caller with its new name. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            /** @description `invalid_name` (the names policy) or `bad_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `not_authenticated`. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    startAddingPasskey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ceremony id and the options for `navigator.credentials.create` (a discoverable credential with user verification, excluding the account's passkeys). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyChallenge"];
                };
            };
            /** @description `not_authenticated`. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `not_claimed` (a guest has no account to add a passkey to) or `too_many_passkeys` (10 already). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listPasskeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account's passkeys, oldest first (a guest has none). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyList"];
                };
            };
            /** @description `not_authenticated`. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    addPasskey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewPasskey"];
            };
        };
        responses: {
            /** @description The passkey added. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyInfo"];
                };
            };
            /** @description `bad_json`, `invalid_name` (the names policy) or `invalid_credential` (not a WebAuthn registration response, or it does not verify against the ceremony: wrong challenge, origin or relying party id, no user verification). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `not_authenticated`. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `ceremony_not_found`: no ceremony of the caller has this id (unknown, used, expired, or started on another node). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `passkey_taken` (this credential is registered already, to any account), `too_many_passkeys` or `not_claimed`. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    removePasskey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A passkey id of the caller (`passkey_id` of the list). */
                passkey_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `not_authenticated`. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `passkey_not_found`: the caller has no passkey with this id. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasswordChange"];
            };
        };
        responses: {
            /** @description Changed; how many other sessions were signed out. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignedOut"];
                };
            };
            /** @description `invalid_password` (the new one) or `bad_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `not_authenticated`, or `bad_credentials` (the current password is wrong). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `not_claimed`: a guest has no password. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createGuest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewGuest"];
            };
        };
        responses: {
            /** @description The guest and its token (shown only this once). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GuestCreated"];
                };
            };
            /** @description `invalid_name` (the name breaks the text policy: not 1–24 characters (grapheme clusters, at most 64 code points) after NFC, blank, control, bidirectional or invisible format characters, stacked combining marks, white space at either end) or `bad_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `rate_limited`: this client address created too many guests (`LUDO_GUESTS_PER_MINUTE`, `LUDO_GUEST_BURST`); `Retry-After` gives the seconds to wait. */
            429: {
                headers: {
                    /** @description Seconds until the next guest may be created. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`: a store failure. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The authenticated player. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Me"];
                };
            };
            /** @description `not_authenticated`: no bearer token, or an unknown one. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`: a store failure. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getLeaderboard: {
        parameters: {
            query: {
                /**
                 * @description `journey` or `clash` (rule 1.4); required.
                 * @example journey
                 */
                mode: string;
                /**
                 * @description Rows, 1..=100 (default 20).
                 * @example 20
                 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The leaderboard (empty when no match of the mode has ended). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Leaderboard"];
                };
            };
            /** @description `invalid_mode` (missing, or not journey/clash), `invalid_limit` (not 1..=100) or `bad_query`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`: a store failure. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getBotLeaderboard: {
        parameters: {
            query?: {
                /**
                 * @description `journey` or `clash` (rule 1.4); both modes when absent.
                 * @example clash
                 */
                mode?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every bot level's rating per mode. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BotLeaderboard"];
                };
            };
            /** @description `invalid_mode` (not journey/clash) or `bad_query`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`: the server's bot ratings do not parse. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listLobbies: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Open public lobbies with a free seat, oldest first (at most 100; private lobbies are never listed). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublicLobbies"];
                };
            };
        };
    };
    liveMatches: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Running matches, newest first (a match whose start the persistence writer has not stored yet is left out, and so is every match started from a private lobby). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LiveMatches"];
                };
            };
            /** @description `internal`: a store failure. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getMatch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The match id (from `match_started`). */
                match_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The match: status `running` (standings null) or `ended`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MatchSummary"];
                };
            };
            /** @description `invalid_id`: the id is not a UUID. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `match_not_found`: no match with this id is stored. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`: a store failure. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The match id. */
                match_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The replay document, JSON Schema in `proto/replay.schema.json`: `match_id`, `seats` (seat, player_id, name, bot, left, as in `match_started`), `rules`, `mode`, `dice_commitment` (SHA-256 of the seed, hex), `seed` (hex; null until the match has ended), `dice_scheme` (`contributed`: the dice are keyed with HKDF-SHA256 of the seed and `contributions`, each seat's recorded entropy in seat order, proto/README.md §10; `server_seed`: the seed alone, matches before it), `turns` (each turn's number, seat, dice, plan, kind and events, in order), `left` (seats whose player left, in leaving order) and `end` (reason and standings; null until ended). `verify-replay URL` re-plays it. An ended match's replay has an `ETag` and `Cache-Control: public, max-age=31536000, immutable`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Not modified: the match has ended and `If-None-Match` names its replay's `ETag`. No body. */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `invalid_id`: the id is not a UUID. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `match_not_found`: no match with this id is stored. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`: a store failure. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getOpenApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document of this API. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
        };
    };
    getPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The player id (from `POST /api/v1/guests`). */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The profile: name, creation time, and for journey and clash the rating, rated matches, ended matches, wins and points. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlayerProfile"];
                };
            };
            /** @description `invalid_id` (not a UUID). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `player_not_found`: no player with this id. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`: a store failure. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getPlayerMatches: {
        parameters: {
            query?: {
                /**
                 * @description Matches per page, 1..=100 (default 20).
                 * @example 20
                 */
                limit?: number;
                /**
                 * @description Cursor time: only matches that started before this RFC 3339 time (or exactly
                 *     at it, when `before_id` is given): the previous page's `next_before`.
                 * @example 2026-01-02T03:04:05.123456Z
                 */
                before?: string;
                /**
                 * @description Cursor tie-break, only with `before`: the previous page's `next_before_id`;
                 *     matches that started exactly at `before` follow when their id is below it.
                 */
                before_id?: string;
            };
            header?: never;
            path: {
                /** @description The player id (from `POST /api/v1/guests`). */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the history. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MatchHistory"];
                };
            };
            /** @description `invalid_id` (not a UUID), `invalid_limit` (not 1..=100), `invalid_cursor` (`before` not RFC 3339, `before_id` not a UUID or without `before`) or `bad_query`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `player_not_found`: no player with this id. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`: a store failure. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's live sessions, most recently used first; `current` marks this one. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            /** @description `not_authenticated`. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignIn"];
            };
        };
        responses: {
            /** @description Signed in: the player id, the new session's token (shown once) and id. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionCreated"];
                };
            };
            /** @description `bad_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `bad_credentials`: no account has this username, or the password is wrong (the same answer for both). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `rate_limited`: too many sign-in attempts from this address (`LUDO_SIGN_INS_PER_MINUTE`, `LUDO_SIGN_IN_BURST`) or on this username (`LUDO_ACCOUNT_SIGN_INS_PER_MINUTE`, `LUDO_ACCOUNT_SIGN_IN_BURST`); `Retry-After` gives the seconds. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt may be made. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`: the database does not answer, or no password hashing slot freed up in 10 s. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    signOutOthers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description How many sessions were signed out. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignedOut"];
                };
            };
            /** @description `not_authenticated`. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    signInWithPasskey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasskeySignIn"];
            };
        };
        responses: {
            /** @description Signed in: the player id, the new session's token (shown once) and id — as `POST /api/v1/sessions`. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionCreated"];
                };
            };
            /** @description `bad_json`, or `invalid_credential`: not a WebAuthn assertion, no passkey registered with its credential id and user handle (removed, or its account deleted), or it does not verify (wrong challenge, origin, signature, no user verification). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `ceremony_not_found`: unknown, used or expired ceremony id, or one started on another node. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `rate_limited`: too many sign-in attempts from this address (password and passkey together: `LUDO_SIGN_INS_PER_MINUTE`, `LUDO_SIGN_IN_BURST`); `Retry-After` gives the seconds. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt may be made. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    startPasskeySignIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ceremony id and the options for `navigator.credentials.get` (no `allowCredentials`; user verification required). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyChallenge"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A session id of the caller, or `current`. */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `invalid_id`: neither a UUID nor `current`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `not_authenticated`. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `session_not_found`: the caller has no session with this id. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `internal`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `unavailable`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server is alive. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The Prometheus text exposition format 0.0.4. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4; charset=utf-8": string;
                };
            };
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The store answered within 1 s with the current schema, running matches are resumed and the persistence writer keeps up. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ready"];
                };
            };
            /** @description `unavailable`: the store did not answer within 1 s, its schema is missing or old, or the persistence writer is failing or behind. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
}
