/**
 * A client frame: `{"t": <type>, "d": <payload>, "id": <optional string>}`. The
 * server echoes `id` (at most 64 characters) in its `ack` or `error`.
 */
export type ClientFrame = {
    /**
     * Client-chosen id echoed in `ack.id` / `error.in_reply_to`.
     */
    id?: string | null;
} & ({
    d: Hello;
    t: 'hello';
} | {
    d: JoinQueue;
    t: 'join_queue';
} | {
    /**
     * No payload: leave `d` out or send null.
     */
    d?: null;
    t: 'leave_queue';
} | {
    d: CreateLobby;
    t: 'create_lobby';
} | {
    d: JoinLobby;
    t: 'join_lobby';
} | {
    /**
     * No payload: leave `d` out or send null.
     */
    d?: null;
    t: 'leave_lobby';
} | {
    /**
     * No payload: leave `d` out or send null.
     */
    d?: null;
    t: 'start_lobby';
} | {
    d: SubmitTurn;
    t: 'submit_turn';
} | {
    d: TurnRef;
    t: 'pass';
} | {
    d: SubmitTurn;
    t: 'preview_plan';
} | {
    d: Resync;
    t: 'resync';
} | {
    d: MatchRef;
    t: 'spectate';
} | {
    d: Chat;
    t: 'chat';
} | {
    d: MatchRef;
    t: 'leave_match';
} | {
    /**
     * No payload: leave `d` out or send null.
     */
    d?: null;
    t: 'ping';
} | {
    /**
     * No payload: leave `d` out or send null.
     */
    d?: null;
    t: 'subscribe_lobbies';
} | {
    /**
     * No payload: leave `d` out or send null.
     */
    d?: null;
    t: 'unsubscribe_lobbies';
} | {
    d: MatchRef;
    t: 'offer_rematch';
} | {
    d: ContributeEntropy;
    t: 'contribute_entropy';
});
/**
 * `hello` payload.
 */
export interface Hello {
    /**
     * Free-form client name and version, for logs (≤ 64 characters).
     */
    client?: string;
    /**
     * Optional: per running match, the last `seq` the client processed
     * (`{"<match_id>": 17}`), as in `resync`. For each match of
     * `welcome.active_matches` named here the server replays the frames after it
     * when the room still keeps them all (a short gap; none when the client is up to
     * date), and sends a `snapshot` otherwise; a match not named gets a `snapshot`.
     */
    last_seq?: {
        [k: string]: number;
    };
    /**
     * Protocol version the client speaks (this document: 2).
     */
    protocol_version: number;
    /**
     * Guest token from `POST /api/v1/guests` (secret).
     */
    token: string;
}
/**
 * `join_queue` payload.
 */
export interface JoinQueue {
    /**
     * Level of the bots that fill the empty seats if the bot-fill wait runs out
     * (default `greedy`). Players of every level share one queue; a match that
     * gets bots takes the level of its longest-waiting player.
     */
    bot_level?: 'beginner' | 'casual' | 'greedy' | 'expert';
    /**
     * journey or clash.
     */
    mode: 'journey' | 'clash';
}
/**
 * `create_lobby` payload.
 */
export interface CreateLobby {
    /**
     * Level of those bots (default `greedy`).
     */
    bot_level?: 'beginner' | 'casual' | 'greedy' | 'expert';
    /**
     * Fill empty seats with bots when the host starts.
     */
    fill_with_bots?: boolean;
    /**
     * journey or clash.
     */
    mode: 'journey' | 'clash';
    /**
     * Private lobbies are joined by code only.
     */
    private?: boolean;
}
/**
 * `join_lobby` payload.
 */
export interface JoinLobby {
    /**
     * The lobby's join code (6 characters, case-insensitive).
     */
    code: string;
}
/**
 * `submit_turn` and `preview_plan` payload.
 */
export interface SubmitTurn {
    /**
     * The match.
     */
    match_id: string;
    plan: Plan;
    /**
     * The turn this plan is for (from `turn_started`).
     */
    turn_number: number;
}
/**
 * The turn plan (RULES.md §11).
 */
export interface Plan {
    /**
     * Rule 4.3: direction of every ring move this turn (default forward).
     */
    direction?: 'forward' | 'backward';
    /**
     * Rule 4.3: guardians (`"G1"`..`"G4"`) to bring out of the Yard, one exit credit each.
     */
    exits?: string[];
    /**
     * Rule 4.3: roll values from the store per guardian; the guardian moves by their sum (steps).
     */
    moves?: {
        [k: string]: number[];
    };
    /**
     * Rule 4.3: royal steps, 1..=`royal_max_steps` (default 8); absent = the royal stays.
     */
    royal?: number | null;
    /**
     * Rule 5.1: the royal moves before the guardians when true (default false).
     */
    royal_first?: boolean;
}
/**
 * `pass` payload.
 */
export interface TurnRef {
    /**
     * The match.
     */
    match_id: string;
    /**
     * The turn being passed (from `turn_started`).
     */
    turn_number: number;
}
/**
 * `resync` payload.
 */
export interface Resync {
    /**
     * The last `seq` the client processed (0 for none).
     */
    last_seq: number;
    /**
     * The match.
     */
    match_id: string;
}
/**
 * Payload naming a match (`spectate`, `leave_match`, `offer_rematch`).
 */
export interface MatchRef {
    /**
     * The match.
     */
    match_id: string;
}
/**
 * `chat` payload.
 */
export interface Chat {
    /**
     * The match.
     */
    match_id: string;
    /**
     * 1..=280 characters after NFC normalization; refused (`invalid_text`) when it
     * renders blank or holds control, bidirectional or invisible format characters
     * (ZWJ and ZWNJ are fine between two characters) or more than 4 stacked
     * combining marks.
     */
    text: string;
}
/**
 * `contribute_entropy` payload.
 */
export interface ContributeEntropy {
    /**
     * 16 to 64 random bytes as hex (32 to 128 hex digits; upper or lower case).
     */
    entropy: string;
    /**
     * The match.
     */
    match_id: string;
}
