/**
 * A server frame: `{"t": <type>, "d": <payload>, "seq": <match sequence number>}`.
 * `seq` is present on every message about a match (`match_started`, `dice_sealed`,
 * `turn_started`, `turn_resolved`, `snapshot`, `match_ended`, `chat`, `seat_left`):
 * 1 for `match_started`, then +1
 * per message of that match, the same numbers for every player and spectator. A
 * `snapshot` carries the `seq` of the last message it includes.
 */
export type ServerFrame = {
    /**
     * Per-match sequence number, on match messages only.
     */
    seq?: number | null;
} & ({
    d: Welcome;
    t: 'welcome';
} | {
    d: QueueStatus;
    t: 'queue_status';
} | {
    d: LobbyState;
    t: 'lobby_state';
} | {
    d: MatchStarted;
    t: 'match_started';
} | {
    d: DiceSealed;
    t: 'dice_sealed';
} | {
    d: TurnStarted;
    t: 'turn_started';
} | {
    d: TurnResolved;
    t: 'turn_resolved';
} | {
    d: Snapshot;
    t: 'snapshot';
} | {
    d: MatchEnded;
    t: 'match_ended';
} | {
    d: ErrorMsg;
    t: 'error';
} | {
    d: Ack;
    t: 'ack';
} | {
    /**
     * No payload: leave `d` out or send null.
     */
    d?: null;
    t: 'pong';
} | {
    d: ChatLine;
    t: 'chat';
} | {
    d: SeatLeft;
    t: 'seat_left';
} | {
    d: LobbyList;
    t: 'lobby_list';
} | {
    d: SeatPresence;
    t: 'seat_away';
} | {
    d: SeatPresence;
    t: 'seat_back';
} | {
    d: RematchOffered;
    t: 'rematch_offered';
} | {
    d: PlanPreview;
    t: 'plan_preview';
});
/**
 * How strong the bots are that fill empty seats, weakest first: `beginner` (a
 * random legal plan on 3 turns in 4), `casual` (on 1 turn in 4, otherwise as
 * `greedy`), `greedy` (the best plan under a one-turn heuristic), `expert` (compares
 * the greedy bot's best plans by playing the next turns out with sampled dice).
 */
export type BotLevel = 'beginner' | 'casual' | 'greedy' | 'expert';
/**
 * Rule 1.1: the four seats, in turn order (green moves first).
 */
export type Seat = 'green' | 'red' | 'blue' | 'yellow';
/**
 * One thing that happened during resolution (rules §3–§8), tagged by `"type"`.
 * Events come in the order they happened; a [`Event::Move`] ends at every tile where
 * something else happened, so the next events belong to its last tile.
 */
export type Event = {
    /**
     * The guardian.
     */
    piece: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Its entry tile.
     */
    to: string;
    type: 'exit';
} | {
    /**
     * Where they started this stretch.
     */
    from: string;
    /**
     * Tiles entered, in step order.
     */
    path: Location[];
    /**
     * The pieces moving together (one royal, or one or more guardians).
     */
    pieces: PieceId[];
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'move';
} | {
    /**
     * Where a piece is: "yard", "ring:N" (absolute ring index N = 0..=67; 0 is green's entry tile), "hp:N" (the owner's home-path tile N = 1..=7) or "home".
     */
    at: string;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    by: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Steps lost, summed over the blocked pieces.
     */
    lost_steps: number;
    /**
     * Combat points lost (0 when blocked by the own seat).
     */
    penalty: number;
    /**
     * The blocked pieces.
     */
    pieces: PieceId[];
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Where a piece is: "yard", "ring:N" (absolute ring index N = 0..=67; 0 is green's entry tile), "hp:N" (the owner's home-path tile N = 1..=7) or "home".
     */
    tile: string;
    type: 'blocked';
} | {
    /**
     * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
     */
    captured: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    captured_seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * True when the piece was captured because its royal was (rule 7.8).
     */
    cascade: boolean;
    /**
     * Combat points the capturing seat earned (rule 8.6).
     */
    points: number;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Where a piece is: "yard", "ring:N" (absolute ring index N = 0..=67; 0 is green's entry tile), "hp:N" (the owner's home-path tile N = 1..=7) or "home".
     */
    tile: string;
    type: 'capture';
} | {
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    by: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Exit credits the seat now holds.
     */
    exit_credits: number;
    /**
     * Guardians sent to the Yard with it.
     */
    guardians: PieceId[];
    /**
     * Rolls the seat lost.
     */
    rolls_lost: number[];
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'royal_captured';
} | {
    /**
     * The checkpoint.
     */
    checkpoint: string;
    /**
     * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
     */
    piece: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Progress points earned (rule 8.5).
     */
    points: number;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'checkpoint';
} | {
    /**
     * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
     */
    piece: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Progress points earned (rule 8.5).
     */
    points: number;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'midpoint';
} | {
    /**
     * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
     */
    piece: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Progress points earned (0 if `home` was already recorded).
     */
    points: number;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'home';
} | {
    /**
     * Completion bonus earned (journey only).
     */
    bonus: number;
    /**
     * Its finishing place 1..=4.
     */
    place: number;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    type: 'finished';
};
/**
 * Where a piece is: "yard", "ring:N" (absolute ring index N = 0..=67; 0 is green's entry tile), "hp:N" (the owner's home-path tile N = 1..=7) or "home".
 */
export type Location = string;
/**
 * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
 */
export type PieceId = 'G1' | 'G2' | 'G3' | 'G4' | 'R';
/**
 * Rule 8.2 checkpoint: "entry" (own entry tile), "fort:<ring index>", "entry:<seat>" (another seat's entry that is not the midpoint), "midpoint" (events only) or "home".
 */
export type Checkpoint = string;
/**
 * `welcome` payload.
 */
export interface Welcome {
    /**
     * Running matches this player is seated in (reconnect: send `resync` with `last_seq` 0
     * or the last seen `seq`).
     */
    active_matches: string[];
    /**
     * The player's display name.
     */
    name: string;
    /**
     * The authenticated player.
     */
    player_id: string;
    /**
     * Protocol version in use.
     */
    protocol_version: number;
    /**
     * Server build version (semver).
     */
    server_version: string;
}
/**
 * `queue_status` payload.
 */
export interface QueueStatus {
    /**
     * Seconds until bots fill the empty seats (0 when it happens now).
     */
    bots_in_seconds: number;
    /**
     * The queue's mode.
     */
    mode: 'journey' | 'clash';
    /**
     * Humans waiting in this queue, including the player.
     */
    waiting: number;
}
/**
 * `lobby_state` payload.
 */
export interface LobbyState {
    /**
     * Level of those bots.
     */
    bot_level: 'beginner' | 'casual' | 'greedy' | 'expert';
    /**
     * Join code (6 characters from `ABCDEFGHJKMNPQRSTUVWXYZ23456789`).
     */
    code: string;
    /**
     * Empty seats get bots when the host starts.
     */
    fill_with_bots: boolean;
    /**
     * The host (may start the match).
     */
    host: string;
    /**
     * Members in joining order (at most 4).
     *
     * @minItems 1
     * @maxItems 4
     */
    members: [LobbyMember] | [LobbyMember, LobbyMember] | [LobbyMember, LobbyMember, LobbyMember] | [LobbyMember, LobbyMember, LobbyMember, LobbyMember];
    /**
     * journey or clash.
     */
    mode: 'journey' | 'clash';
    /**
     * Joined by code only.
     */
    private: boolean;
}
/**
 * One seat of a lobby.
 */
export interface LobbyMember {
    /**
     * Display name.
     */
    name: string;
    /**
     * The player.
     */
    player_id: string;
}
/**
 * `match_started` payload.
 */
export interface MatchStarted {
    /**
     * Scheme `contributed`: when the contribution window closes (Unix ms); seats
     * that did not contribute by then get the default (no bytes). Null otherwise.
     */
    contribution_deadline_ms?: number | null;
    /**
     * SHA-256 of the match seed (hex); the seed is revealed in `match_ended`.
     */
    dice_commitment: string;
    /**
     * Which inputs key the dice: `contributed` (a new match, unless the server's
     * contribution window is 0: send
     * `contribute_entropy` before `contribution_deadline_ms`) or `server_seed`.
     */
    dice_scheme?: 'server_seed' | 'contributed';
    /**
     * When the match clock runs out, Unix time in milliseconds.
     */
    match_deadline_ms: number;
    /**
     * The match.
     */
    match_id: string;
    /**
     * journey or clash.
     */
    mode: 'journey' | 'clash';
    rules: RuleSet;
    /**
     * The four seats in turn order.
     *
     * @minItems 4
     * @maxItems 4
     */
    seats: [SeatInfo, SeatInfo, SeatInfo, SeatInfo];
    /**
     * The receiving player's seat (null for spectators).
     */
    your_seat?: Seat | null;
}
/**
 * The rule set (RULES.md §10; times in seconds, points in points).
 */
export interface RuleSet {
    blockade_penalty_per_step: PerMode;
    combat: PerMode3;
    /**
     * Rule 8.8: journey completion bonus by finishing place 1..=4 (400, 300, 200, 100).
     *
     * @minItems 4
     * @maxItems 4
     */
    completion_bonus: [number, number, number, number];
    /**
     * Rule 4.1: dice rolled at each turn start (default 3).
     */
    dice_per_turn: number;
    /**
     * Rule 4.1: most exit credits a seat holds (default 4).
     */
    exit_credit_cap: number;
    /**
     * Rule 9.1: the match clock, seconds (default 1800).
     */
    match_seconds: number;
    progress: PerMode2;
    /**
     * Rule 4.1: most rolls a store holds (default 9; at most [`MAX_ROLL_STORE`]).
     */
    roll_store_cap: number;
    /**
     * Rule 7.8: exit credits a seat receives after its royal is captured (default 2).
     */
    royal_capture_exit_credits: number;
    /**
     * Rule 4.3: most steps of a royal move (default 8).
     */
    royal_max_steps: number;
    /**
     * Rule 4.2: exit credits each seat starts with (default 2).
     */
    start_exit_credits: number;
    /**
     * Rule 4.6: time for one turn, seconds (default 30).
     */
    turn_seconds: number;
}
/**
 * Rule 6.5: combat points lost per lost step per blocked piece (journey 5, clash 10).
 */
export interface PerMode {
    /**
     * Value in clash mode.
     */
    clash: number;
    /**
     * Value in journey mode.
     */
    journey: number;
}
/**
 * Rule 8.6: combat points per captured piece.
 */
export interface PerMode3 {
    clash: CombatTable;
    journey: CombatTable1;
}
/**
 * Value in clash mode.
 */
export interface CombatTable {
    fort: PerPiece;
    fort_glowing: PerPiece1;
    other: PerPiece2;
    other_glowing: PerPiece3;
    safe: PerPiece4;
}
/**
 * Capturer's royal on a fort, not glowing.
 */
export interface PerPiece {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Capturer's royal on a fort, glowing.
 */
export interface PerPiece1 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Capturer's royal on any other ring tile, not glowing.
 */
export interface PerPiece2 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Capturer's royal on any other ring tile, glowing.
 */
export interface PerPiece3 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Capturer's royal in the Yard, on its own entry, in its home path or Home.
 */
export interface PerPiece4 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Value in journey mode.
 */
export interface CombatTable1 {
    fort: PerPiece;
    fort_glowing: PerPiece1;
    other: PerPiece2;
    other_glowing: PerPiece3;
    safe: PerPiece4;
}
/**
 * Rule 8.5: progress points per checkpoint.
 */
export interface PerMode2 {
    clash: ProgressTable;
    journey: ProgressTable1;
}
/**
 * Value in clash mode.
 */
export interface ProgressTable {
    fort: PerPiece5;
    home: PerPiece6;
    midpoint: PerPiece7;
    other_entry: PerPiece8;
    own_entry: PerPiece9;
}
/**
 * Any fort (`fort:<ring index>`).
 */
export interface PerPiece5 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Home (`home`).
 */
export interface PerPiece6 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * The midpoint (rule 8.4).
 */
export interface PerPiece7 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * The two other seats' entry tiles that are not the midpoint (`entry:<seat>`).
 */
export interface PerPiece8 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * The piece's own entry tile (`entry`).
 */
export interface PerPiece9 {
    /**
     * Points for (or against) a guardian.
     */
    guardian: number;
    /**
     * Points for (or against) the royal.
     */
    royal: number;
}
/**
 * Value in journey mode.
 */
export interface ProgressTable1 {
    fort: PerPiece5;
    home: PerPiece6;
    midpoint: PerPiece7;
    other_entry: PerPiece8;
    own_entry: PerPiece9;
}
/**
 * Who sits in a seat.
 */
export interface SeatInfo {
    /**
     * True for a bot (also for a seat whose player left: a bot plays it). Replay
     * documents of servers before protocol 2 call it `is_bot`, which is read too.
     */
    bot: boolean;
    /**
     * The level of the bot that plays the seat (absent for a human's seat, and for
     * the bot of a seat whose player left, which plays at the server's default).
     */
    bot_level?: BotLevel | null;
    /**
     * True once the seat's player left the match (`seat_left`).
     */
    left?: boolean;
    /**
     * Display name (bots are named "Bot …").
     */
    name: string;
    /**
     * The player, or null for a bot.
     */
    player_id?: string | null;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
}
/**
 * `dice_sealed` payload.
 */
export interface DiceSealed {
    /**
     * The four seats' contributions in seat order (green, red, blue, yellow) as
     * used in the dice key: a player can check its own bytes are there.
     *
     * @minItems 4
     * @maxItems 4
     */
    contributions: [Contribution, Contribution, Contribution, Contribution];
    /**
     * The match.
     */
    match_id: string;
}
/**
 * One seat's recorded contribution to the dice (scheme [`DiceScheme::Contributed`]).
 */
export interface Contribution {
    /**
     * True when the seat did not contribute in the window (a bot, an empty seat, or
     * a player who sent nothing in time) and got the default (no bytes).
     */
    defaulted: boolean;
    /**
     * The entropy used: the player's bytes, or `""` (no bytes) for the default.
     */
    entropy: string;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
}
/**
 * `turn_started` payload (RULES.md rule 4.1).
 */
export interface TurnStarted {
    /**
     * The dice rolled for this turn.
     */
    dice: number[];
    /**
     * Rolled values dropped because the store was full.
     */
    dropped: number[];
    /**
     * The seat's exit credits after the roll.
     */
    exit_credits: number;
    /**
     * The match.
     */
    match_id: string;
    /**
     * Milliseconds left on the match clock when this frame was sent.
     */
    match_remaining_ms: number;
    /**
     * The server's clock when this frame was sent, Unix milliseconds
     * (`turn_deadline_ms − turn_remaining_ms`, unless the turn is already due).
     */
    now_ms: number;
    /**
     * The seat's roll store after the roll, oldest first.
     */
    roll_store: number[];
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * When the turn is passed automatically, Unix time in milliseconds.
     */
    turn_deadline_ms: number;
    /**
     * Turn number (1-based); submit plans with it.
     */
    turn_number: number;
    /**
     * Milliseconds left on the turn timer when this frame was sent (a gap replay
     * after `hello.last_seq` or `resync` sends the turn in progress with its times
     * as of the replay): count down from `turn_remaining_ms` from the moment it
     * arrives (`proto/README.md` §7).
     */
    turn_remaining_ms: number;
}
/**
 * `turn_resolved` payload. It carries no position (protocol version 3): every
 * change a turn makes is one of its `events`, so applying them in order to the
 * position before the turn (the last `snapshot`'s, or the start position of
 * `match_started`) gives the position after it, before the next turn's roll
 * (`proto/README.md` §6); a client that lost track asks for a `snapshot`.
 */
export interface TurnResolved {
    /**
     * What happened, in order (animate these).
     */
    events: Event[];
    /**
     * plan, pass, or timeout (the server passed after `turn_seconds`).
     */
    kind: 'plan' | 'pass' | 'timeout';
    /**
     * The match.
     */
    match_id: string;
    plan: Plan;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * Current standings after the turn, best first (RULES.md rule 9.2): the same
     * shape as `match_ended.standings`, without rating changes.
     *
     * @minItems 4
     * @maxItems 4
     */
    standings: [Standing, Standing, Standing, Standing];
    /**
     * The turn resolved.
     */
    turn_number: number;
}
/**
 * The plan resolved (empty for a pass or timeout).
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
 * Rule 9.2: one seat's final (or current) result.
 */
export interface Standing {
    /**
     * Completion bonus (rule 8.8).
     */
    bonus: number;
    /**
     * Combat points (rule 8.6).
     */
    combat: number;
    /**
     * Finishing place (rule 8.8), if the seat finished.
     */
    finished?: number | null;
    /**
     * Server rule (not in RULES.md): the seat's player left the match
     * ([`Match::leave`]); a seat that left ranks below every seat that stayed.
     */
    left?: boolean;
    /**
     * Place by total, 1 = best; equal totals share a place (1, 1, 3, 4).
     */
    place: number;
    /**
     * Sum of progress points (rule 8.5).
     */
    progress: number;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * progress + combat + bonus.
     */
    total: number;
}
/**
 * `snapshot` payload: everything a client needs to draw the match now.
 */
export interface Snapshot {
    clocks: Clocks;
    /**
     * Scheme `contributed` while the window is open: when it closes (Unix ms).
     */
    contribution_deadline_ms?: number | null;
    /**
     * Scheme `contributed`: the sealed contributions in seat order (as in
     * `dice_sealed`); null while the window is open and for `server_seed`.
     */
    contributions?: Contribution[] | null;
    /**
     * SHA-256 of the seed (hex).
     */
    dice_commitment: string;
    /**
     * Which inputs key the dice (`server_seed` or `contributed`).
     */
    dice_scheme?: 'server_seed' | 'contributed';
    /**
     * Present once the match has ended.
     */
    ended?: MatchEnded | null;
    /**
     * The match.
     */
    match_id: string;
    /**
     * journey or clash.
     */
    mode: 'journey' | 'clash';
    position: Position;
    rules: RuleSet1;
    /**
     * The four seats.
     *
     * @minItems 4
     * @maxItems 4
     */
    seats: [SeatInfo, SeatInfo, SeatInfo, SeatInfo];
    /**
     * The `seq` of the last match message this snapshot includes.
     */
    seq: number;
    /**
     * The turn in progress, if any.
     */
    turn?: TurnStarted | null;
    /**
     * Turns resolved so far.
     */
    turns_played: number;
    /**
     * The receiving player's seat (null for spectators).
     */
    your_seat?: Seat | null;
}
/**
 * Clocks.
 */
export interface Clocks {
    /**
     * Match clock deadline, Unix milliseconds.
     */
    match_deadline_ms: number;
    /**
     * Server time when the snapshot was made, Unix milliseconds.
     */
    now_ms: number;
    /**
     * Current turn's deadline, Unix milliseconds (null when no turn runs).
     */
    turn_deadline_ms?: number | null;
}
/**
 * `match_ended` payload.
 */
export interface MatchEnded {
    /**
     * The match.
     */
    match_id: string;
    /**
     * all_finished or clock.
     */
    reason: 'all_finished' | 'clock' | 'abandoned';
    /**
     * Where to fetch the replay: `/api/v1/matches/{id}/replay`.
     */
    replay_url: string;
    /**
     * The match seed (hex), now revealed: SHA-256 of its bytes is `dice_commitment`.
     */
    seed: string;
    /**
     * Final standings, best first; equal totals share a place (RULES.md rule 9.2);
     * rated seats carry their rating change.
     *
     * @minItems 4
     * @maxItems 4
     */
    standings: [FinalStanding, FinalStanding, FinalStanding, FinalStanding];
}
/**
 * One line of `match_ended.standings`: the seat's final result (rule 9.2) and, for
 * a rated seat, its rating change.
 */
export interface FinalStanding {
    /**
     * Completion bonus (rule 8.8).
     */
    bonus: number;
    /**
     * Combat points (rule 8.6).
     */
    combat: number;
    /**
     * Finishing place (rule 8.8), if the seat finished.
     */
    finished?: number | null;
    /**
     * Server rule (not in RULES.md): the seat's player left the match
     * ([`Match::leave`]); a seat that left ranks below every seat that stayed.
     */
    left?: boolean;
    /**
     * Place by total, 1 = best; equal totals share a place (1, 1, 3, 4).
     */
    place: number;
    /**
     * Sum of progress points (rule 8.5).
     */
    progress: number;
    /**
     * The seat's rating change; absent for a bot's seat and in a match that rated
     * nothing (fewer than two human players).
     */
    rating?: RatingChange | null;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * progress + combat + bonus.
     */
    total: number;
}
/**
 * How a match changed one player's rating in the match's mode. Only human seats
 * of a match with two or more human players are rated; bots never are; a seat
 * whose player left ranks below every seat that stayed; equal places tie.
 */
export interface RatingChange {
    after: Rating;
    before: Rating1;
    /**
     * `after.conservative − before.conservative` (skill points; may be negative).
     */
    change: number;
}
/**
 * The rating after it.
 */
export interface Rating {
    /**
     * `mu − 3·sigma` (skill points): the rating shown and ranked by.
     */
    conservative: number;
    /**
     * Estimated skill (skill points).
     */
    mu: number;
    /**
     * Uncertainty of `mu`, its standard deviation (skill points); it shrinks as
     * the player plays.
     */
    sigma: number;
}
/**
 * The rating before the match.
 */
export interface Rating1 {
    /**
     * `mu − 3·sigma` (skill points): the rating shown and ranked by.
     */
    conservative: number;
    /**
     * Estimated skill (skill points).
     */
    mu: number;
    /**
     * Uncertainty of `mu`, its standard deviation (skill points); it shrinks as
     * the player plays.
     */
    sigma: number;
}
/**
 * The position (RULES.md §11 output form: every seat and field, with totals).
 */
export interface Position {
    /**
     * Rule 1.4: journey or clash.
     */
    mode: 'journey' | 'clash';
    /**
     * Seats by name; a missing seat has all its pieces in the Yard.
     */
    seats?: {
        [k: string]: SeatSetup;
    };
    /**
     * The seat whose turn it is; null once every seat has finished (rule 4.7) or the
     * match is over.
     */
    to_move?: Seat | null;
}
/**
 * One seat in the §11 notation. On input every field may be left out (a missing
 * piece is in the Yard, lists are empty, numbers are 0, `finished` is null); on
 * output every field is present, all five pieces are named and `total` is given.
 */
export interface SeatSetup {
    /**
     * Completion bonus (rule 8.8), ≥ 0.
     */
    bonus?: number;
    /**
     * Combat points (rule 8.6); may be negative (rule 8.7).
     */
    combat?: number;
    /**
     * Exit credits held (rule 4.1), ≥ 0.
     */
    exit_credits?: number;
    /**
     * Finishing place 1..=4 once the seat has finished (rule 8.8), else null.
     */
    finished?: number | null;
    /**
     * Pieces whose midpoint progress is active (rule 8.4), in the order G1..G4, R.
     */
    glowing?: PieceId[];
    /**
     * Where each piece is (rule 1.3: missing pieces are in the Yard).
     */
    pieces?: {
        [k: string]: Location;
    };
    /**
     * Progress points per piece (rule 8.5), each ≥ 0.
     */
    progress?: {
        [k: string]: number;
    };
    /**
     * The roll store (rule 4.1), oldest first; values 1..=6.
     */
    rolls?: number[];
    /**
     * Checkpoints recorded in each piece's current cycle (rule 8.3), sorted as strings.
     */
    scored?: {
        [k: string]: Checkpoint[];
    };
    /**
     * Output only: progress + combat + bonus (rule 8.1). Ignored on input.
     */
    total?: number | null;
}
/**
 * The rule set.
 */
export interface RuleSet1 {
    blockade_penalty_per_step: PerMode;
    combat: PerMode3;
    /**
     * Rule 8.8: journey completion bonus by finishing place 1..=4 (400, 300, 200, 100).
     *
     * @minItems 4
     * @maxItems 4
     */
    completion_bonus: [number, number, number, number];
    /**
     * Rule 4.1: dice rolled at each turn start (default 3).
     */
    dice_per_turn: number;
    /**
     * Rule 4.1: most exit credits a seat holds (default 4).
     */
    exit_credit_cap: number;
    /**
     * Rule 9.1: the match clock, seconds (default 1800).
     */
    match_seconds: number;
    progress: PerMode2;
    /**
     * Rule 4.1: most rolls a store holds (default 9; at most [`MAX_ROLL_STORE`]).
     */
    roll_store_cap: number;
    /**
     * Rule 7.8: exit credits a seat receives after its royal is captured (default 2).
     */
    royal_capture_exit_credits: number;
    /**
     * Rule 4.3: most steps of a royal move (default 8).
     */
    royal_max_steps: number;
    /**
     * Rule 4.2: exit credits each seat starts with (default 2).
     */
    start_exit_credits: number;
    /**
     * Rule 4.6: time for one turn, seconds (default 30).
     */
    turn_seconds: number;
}
/**
 * `error` payload.
 */
export interface ErrorMsg {
    /**
     * Stable code from the closed list.
     */
    code: 'bad_json' | 'unknown_type' | 'too_large' | 'rate_limited' | 'not_authenticated' | 'unsupported_version' | 'not_in_match' | 'match_not_found' | 'lobby_not_found' | 'lobby_full' | 'not_host' | 'lobby_too_small' | 'invalid_text' | 'already_busy' | 'stale_turn' | 'internal' | 'match_not_ended' | 'store_unavailable' | 'cluster_unavailable' | 'invalid_entropy' | 'already_contributed' | 'contribution_closed' | 'not_your_turn' | 'match_over' | 'unknown_piece' | 'piece_in_yard' | 'piece_at_home' | 'not_in_yard' | 'not_enough_exit_credits' | 'roll_not_in_store' | 'empty_move' | 'royal_steps_out_of_range' | 'royal_at_home' | 'invalid_position' | 'invalid_plan';
    /**
     * The `id` of the client frame this answers, when it had one.
     */
    in_reply_to?: string | null;
    /**
     * Human-readable explanation (may change between versions).
     */
    message: string;
}
/**
 * `ack` payload.
 */
export interface Ack {
    /**
     * Only in the answer to a resend of a plan (or pass) that was already applied
     * (its first sending's `ack` was lost): the `seq` of the `turn_resolved` that
     * applied it. Nothing is applied again (`proto/README.md` §6). Absent otherwise.
     */
    applied_seq?: number | null;
    /**
     * The `id` of the accepted client frame.
     */
    id: string;
}
/**
 * `chat` payload (server → client).
 */
export interface ChatLine {
    /**
     * The match.
     */
    match_id: string;
    /**
     * The sender's display name.
     */
    name: string;
    /**
     * The sender's seat, or null for a spectator.
     */
    seat?: Seat | null;
    /**
     * The text (1..=280 characters).
     */
    text: string;
}
/**
 * `seat_left` payload.
 */
export interface SeatLeft {
    /**
     * The match.
     */
    match_id: string;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
}
/**
 * `lobby_list` payload.
 */
export interface LobbyList {
    /**
     * Every open public lobby of this server with a free seat, oldest first (at
     * most 100).
     *
     * @maxItems 100
     */
    lobbies: LobbyInfo[];
}
/**
 * One open public lobby in `lobby_list`.
 */
export interface LobbyInfo {
    /**
     * Level of those bots.
     */
    bot_level: 'beginner' | 'casual' | 'greedy' | 'expert';
    /**
     * Join code (`join_lobby`).
     */
    code: string;
    /**
     * Empty seats get bots when the host starts.
     */
    fill_with_bots: boolean;
    /**
     * The host's display name.
     */
    host_name: string;
    /**
     * Members now (1..=4; a lobby with 4 is full and not listed).
     */
    members: number;
    /**
     * journey or clash.
     */
    mode: 'journey' | 'clash';
}
/**
 * `seat_away` / `seat_back` payload.
 */
export interface SeatPresence {
    /**
     * The match.
     */
    match_id: string;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
}
/**
 * `rematch_offered` payload.
 */
export interface RematchOffered {
    /**
     * The rematch lobby's join code (accept: `join_lobby` with it).
     */
    code: string;
    /**
     * Who offers it (the lobby's host).
     */
    host: string;
    /**
     * The host's display name.
     */
    host_name: string;
    /**
     * The ended match the rematch follows.
     */
    match_id: string;
    /**
     * journey or clash (the match's mode).
     */
    mode: 'journey' | 'clash';
}
/**
 * `plan_preview` payload: what submitting `plan` for turn `turn_number` would do,
 * resolved by the engine on a copy of the position (nothing changed). `events` and
 * `standings` are exactly those the `turn_resolved` of that plan would carry, as
 * long as the turn is still running.
 */
export interface PlanPreview {
    /**
     * What the plan would do, in order (RULES.md §11 events): captures, blockade
     * penalties, checkpoints, reaching Home, finishing.
     */
    events: Event[];
    /**
     * The `id` of the `preview_plan` this answers (null when it had none).
     */
    in_reply_to?: string | null;
    /**
     * The match.
     */
    match_id: string;
    /**
     * The legal single-piece moves the plan could still add in its direction
     * (`engine::legal::legal_moves`): per piece not moved yet, each distinct step
     * count of the remaining rolls (with an exit first for a guardian in the Yard,
     * or an exit alone), or of royal steps; `to` where the piece would end and
     * `points` the change of the seat's total that adding it makes. Send an empty
     * plan to get every legal first move of the turn.
     */
    moves: LegalMove[];
    plan: Plan1;
    /**
     * Rule 1.1: the four seats, in turn order (green moves first).
     */
    seat: 'green' | 'red' | 'blue' | 'yellow';
    /**
     * The standings right after the plan, best first (rule 9.2), as the
     * `turn_resolved` of the plan would carry them.
     *
     * @minItems 4
     * @maxItems 4
     */
    standings: [Standing, Standing, Standing, Standing];
    /**
     * The turn the plan is for.
     */
    turn_number: number;
}
/**
 * One legal single-piece addition to a plan (what a client highlights when the
 * player picks a piece): moving `piece` by `steps` in `direction`, using `rolls`
 * from the store (a guardian) or `steps` royal steps (the royal, rule 4.3), after
 * exiting it first when `exit` is set (one exit credit). `to` and `points` are what
 * the engine resolves for the plan with this move added (rules §5–§8, so captures,
 * blockades and the midpoint are counted): where the piece ends, and the change of
 * the seat's total (points) against the plan without it.
 */
export interface LegalMove {
    /**
     * True when the move exits the guardian from the Yard first (rule 4.3).
     */
    exit?: boolean;
    /**
     * Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
     */
    piece: 'G1' | 'G2' | 'G3' | 'G4' | 'R';
    /**
     * Change of the seat's total (progress + combat + bonus, rule 8.1) that adding
     * this move makes, in points (negative for a blockade penalty, rule 6).
     */
    points: number;
    /**
     * Roll values used, ascending (empty for an exit alone and for the royal).
     */
    rolls?: number[];
    /**
     * Steps: the sum of `rolls`, or the royal's steps (0 for an exit alone).
     */
    steps: number;
    /**
     * Where a piece is: "yard", "ring:N" (absolute ring index N = 0..=67; 0 is green's entry tile), "hp:N" (the owner's home-path tile N = 1..=7) or "home".
     */
    to: string;
}
/**
 * The plan previewed, as sent.
 */
export interface Plan1 {
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
