//! Server → client messages.

use crate::error::ErrorCode;
use engine::{
    Contribution, DiceScheme, EndReason, Event, LegalMove, Mode, Plan, Position, RuleSet, Seat,
    Standing, TurnKind,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A server frame: `{"t": <type>, "d": <payload>, "seq": <match sequence number>}`.
/// `seq` is present on every message about a match (`match_started`, `dice_sealed`,
/// `turn_started`, `turn_resolved`, `snapshot`, `match_ended`, `chat`, `seat_left`):
/// 1 for `match_started`, then +1
/// per message of that match, the same numbers for every player and spectator. A
/// `snapshot` carries the `seq` of the last message it includes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerFrame {
    /// Per-match sequence number, on match messages only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// The message.
    #[serde(flatten)]
    pub msg: ServerMsg,
}

/// Every message the server sends, tagged by `t` with its payload in `d`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "d", rename_all = "snake_case")]
#[schemars(transform = crate::schema::no_payload_is_null)]
// `match_started` holds the whole rule set; messages are built once and serialized
// at once, so their size does not matter, and boxing would change the variants.
#[allow(clippy::large_enum_variant)]
pub enum ServerMsg {
    /// Answer to a good `hello`.
    Welcome(Welcome),
    /// The player's place in the quick-play queue (sent on join and when it changes).
    QueueStatus(QueueStatus),
    /// The lobby as it now is (sent to every member on every change).
    LobbyState(LobbyState),
    /// A match the player is seated in (or watches) has started.
    MatchStarted(MatchStarted),
    /// Dice scheme `contributed`: the contribution window is over and the dice are
    /// keyed with the seed and these contributions (`proto/README.md` §10); the first
    /// `turn_started` follows. Sequenced (seq 2).
    DiceSealed(DiceSealed),
    /// A turn started: the server rolled the dice (RULES.md rule 4.1).
    TurnStarted(TurnStarted),
    /// A turn was resolved: the plan, the events in order, and the new standings.
    TurnResolved(TurnResolved),
    /// The whole state of a match, for joining, reconnecting, spectating and resync.
    Snapshot(Box<Snapshot>),
    /// The match is over (RULES.md rule 9.1).
    MatchEnded(MatchEnded),
    /// A request failed; nothing changed.
    Error(ErrorMsg),
    /// A request with an `id` was accepted.
    Ack(Ack),
    /// Answer to `ping`.
    Pong,
    /// A chat line in a match.
    Chat(ChatLine),
    /// A seat's player left the match (`leave_match`): a bot plays the seat from now
    /// on, and it ranks below every seat that stayed. Sequenced like `turn_resolved`.
    SeatLeft(SeatLeft),
    /// The open public lobbies (after `subscribe_lobbies`, and on every change).
    LobbyList(LobbyList),
    /// A seat is away (`proto/README.md` §6.2): its player let `away_after_timeouts`
    /// turns in a row time out (2 by default) while connected, or one while
    /// disconnected. Its turns are now passed at once (`kind: "pass"`) until it is
    /// back. Not sequenced: a state notice, sent again after every reconnect,
    /// `resync` and `spectate` for each seat that is away then.
    SeatAway(SeatPresence),
    /// An away seat is back: its player sent a match message (plan, pass, chat,
    /// `resync`, `spectate`) or reconnected; its turns wait for it again. Not
    /// sequenced.
    SeatBack(SeatPresence),
    /// Another player of a match you played offers a rematch: join its lobby with
    /// `join_lobby` and `code` to accept.
    RematchOffered(RematchOffered),
    /// Answer to `preview_plan`: what the plan would do if submitted now.
    PlanPreview(PlanPreview),
}

/// One open public lobby in `lobby_list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LobbyInfo {
    /// Join code (`join_lobby`).
    #[schemars(pattern(r"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$"))]
    pub code: String,
    /// journey or clash.
    pub mode: Mode,
    /// Empty seats get bots when the host starts.
    pub fill_with_bots: bool,
    /// Level of those bots.
    pub bot_level: crate::BotLevel,
    /// The host's display name.
    pub host_name: String,
    /// Members now (1..=4; a lobby with 4 is full and not listed).
    #[schemars(range(min = 1, max = 4))]
    pub members: u32,
}

/// `lobby_list` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LobbyList {
    /// Every open public lobby of this server with a free seat, oldest first (at
    /// most 100).
    #[schemars(length(max = 100))]
    pub lobbies: Vec<LobbyInfo>,
}

/// `rematch_offered` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RematchOffered {
    /// The ended match the rematch follows.
    pub match_id: Uuid,
    /// The rematch lobby's join code (accept: `join_lobby` with it).
    #[schemars(pattern(r"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$"))]
    pub code: String,
    /// journey or clash (the match's mode).
    pub mode: Mode,
    /// Who offers it (the lobby's host).
    pub host: Uuid,
    /// The host's display name.
    pub host_name: String,
}

/// `welcome` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Welcome {
    /// The authenticated player.
    pub player_id: Uuid,
    /// The player's display name.
    pub name: String,
    /// Server build version (semver).
    pub server_version: String,
    /// Protocol version in use.
    pub protocol_version: u32,
    /// Running matches this player is seated in (reconnect: send `resync` with `last_seq` 0
    /// or the last seen `seq`).
    pub active_matches: Vec<Uuid>,
}

/// `queue_status` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct QueueStatus {
    /// The queue's mode.
    pub mode: Mode,
    /// Humans waiting in this queue, including the player.
    pub waiting: u32,
    /// Seconds until bots fill the empty seats (0 when it happens now).
    pub bots_in_seconds: u32,
}

/// One seat of a lobby.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LobbyMember {
    /// The player.
    pub player_id: Uuid,
    /// Display name.
    pub name: String,
}

/// `lobby_state` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LobbyState {
    /// Join code (6 characters from `ABCDEFGHJKMNPQRSTUVWXYZ23456789`).
    #[schemars(pattern(r"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$"))]
    pub code: String,
    /// journey or clash.
    pub mode: Mode,
    /// Joined by code only.
    pub private: bool,
    /// Empty seats get bots when the host starts.
    pub fill_with_bots: bool,
    /// Level of those bots.
    pub bot_level: crate::BotLevel,
    /// The host (may start the match).
    pub host: Uuid,
    /// Members in joining order (at most 4).
    #[schemars(length(min = 1, max = 4))]
    pub members: Vec<LobbyMember>,
}

/// Who sits in a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatInfo {
    /// The seat.
    pub seat: Seat,
    /// The player, or null for a bot.
    pub player_id: Option<Uuid>,
    /// Display name (bots are named "Bot …").
    pub name: String,
    /// True for a bot (also for a seat whose player left: a bot plays it). Replay
    /// documents of servers before protocol 2 call it `is_bot`, which is read too.
    #[serde(alias = "is_bot")]
    pub bot: bool,
    /// True once the seat's player left the match (`seat_left`).
    #[serde(default)]
    pub left: bool,
    /// The level of the bot that plays the seat (absent for a human's seat, and for
    /// the bot of a seat whose player left, which plays at the server's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot_level: Option<crate::BotLevel>,
}

/// `match_started` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatchStarted {
    /// The match.
    pub match_id: Uuid,
    /// journey or clash.
    pub mode: Mode,
    /// The rule set (RULES.md §10; times in seconds, points in points).
    pub rules: RuleSet,
    /// The four seats in turn order.
    #[schemars(length(min = 4, max = 4))]
    pub seats: Vec<SeatInfo>,
    /// The receiving player's seat (null for spectators).
    pub your_seat: Option<Seat>,
    /// SHA-256 of the match seed (hex); the seed is revealed in `match_ended`.
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub dice_commitment: String,
    /// When the match clock runs out, Unix time in milliseconds.
    pub match_deadline_ms: u64,
    /// Which inputs key the dice: `contributed` (a new match, unless the server's
    /// contribution window is 0: send
    /// `contribute_entropy` before `contribution_deadline_ms`) or `server_seed`.
    #[serde(default)]
    pub dice_scheme: DiceScheme,
    /// Scheme `contributed`: when the contribution window closes (Unix ms); seats
    /// that did not contribute by then get the default (no bytes). Null otherwise.
    #[serde(default)]
    pub contribution_deadline_ms: Option<u64>,
}

/// `dice_sealed` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiceSealed {
    /// The match.
    pub match_id: Uuid,
    /// The four seats' contributions in seat order (green, red, blue, yellow) as
    /// used in the dice key: a player can check its own bytes are there.
    #[schemars(length(min = 4, max = 4))]
    pub contributions: Vec<Contribution>,
}

/// `turn_started` payload (RULES.md rule 4.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TurnStarted {
    /// The match.
    pub match_id: Uuid,
    /// The seat to move.
    pub seat: Seat,
    /// Turn number (1-based); submit plans with it.
    pub turn_number: u32,
    /// The dice rolled for this turn.
    #[schemars(inner(range(min = 1, max = 6)))]
    pub dice: Vec<u8>,
    /// Rolled values dropped because the store was full.
    #[schemars(inner(range(min = 1, max = 6)))]
    pub dropped: Vec<u8>,
    /// The seat's roll store after the roll, oldest first.
    #[schemars(inner(range(min = 1, max = 6)))]
    pub roll_store: Vec<u8>,
    /// The seat's exit credits after the roll.
    pub exit_credits: u32,
    /// When the turn is passed automatically, Unix time in milliseconds.
    pub turn_deadline_ms: u64,
    /// Milliseconds left on the turn timer when this frame was sent (a gap replay
    /// after `hello.last_seq` or `resync` sends the turn in progress with its times
    /// as of the replay): count down from `turn_remaining_ms` from the moment it
    /// arrives (`proto/README.md` §7).
    pub turn_remaining_ms: u64,
    /// Milliseconds left on the match clock when this frame was sent.
    pub match_remaining_ms: u64,
    /// The server's clock when this frame was sent, Unix milliseconds
    /// (`turn_deadline_ms − turn_remaining_ms`, unless the turn is already due).
    pub now_ms: u64,
}

/// `turn_resolved` payload. It carries no position (protocol version 3): every
/// change a turn makes is one of its `events`, so applying them in order to the
/// position before the turn (the last `snapshot`'s, or the start position of
/// `match_started`) gives the position after it, before the next turn's roll
/// (`proto/README.md` §6); a client that lost track asks for a `snapshot`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TurnResolved {
    /// The match.
    pub match_id: Uuid,
    /// The turn resolved.
    pub turn_number: u32,
    /// The seat that moved.
    pub seat: Seat,
    /// plan, pass, or timeout (the server passed after `turn_seconds`).
    pub kind: TurnKind,
    /// The plan resolved (empty for a pass or timeout).
    pub plan: Plan,
    /// What happened, in order (animate these).
    pub events: Vec<Event>,
    /// Current standings after the turn, best first (RULES.md rule 9.2): the same
    /// shape as `match_ended.standings`, without rating changes.
    #[schemars(length(min = 4, max = 4))]
    pub standings: Vec<Standing>,
}

/// `plan_preview` payload: what submitting `plan` for turn `turn_number` would do,
/// resolved by the engine on a copy of the position (nothing changed). `events` and
/// `standings` are exactly those the `turn_resolved` of that plan would carry, as
/// long as the turn is still running.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanPreview {
    /// The `id` of the `preview_plan` this answers (null when it had none).
    pub in_reply_to: Option<String>,
    /// The match.
    pub match_id: Uuid,
    /// The turn the plan is for.
    pub turn_number: u32,
    /// The seat to move (the asker's).
    pub seat: Seat,
    /// The plan previewed, as sent.
    pub plan: Plan,
    /// What the plan would do, in order (RULES.md §11 events): captures, blockade
    /// penalties, checkpoints, reaching Home, finishing.
    pub events: Vec<Event>,
    /// The standings right after the plan, best first (rule 9.2), as the
    /// `turn_resolved` of the plan would carry them.
    #[schemars(length(min = 4, max = 4))]
    pub standings: Vec<Standing>,
    /// The legal single-piece moves the plan could still add in its direction
    /// (`engine::legal::legal_moves`): per piece not moved yet, each distinct step
    /// count of the remaining rolls (with an exit first for a guardian in the Yard,
    /// or an exit alone), or of royal steps; `to` where the piece would end and
    /// `points` the change of the seat's total that adding it makes. Send an empty
    /// plan to get every legal first move of the turn.
    pub moves: Vec<LegalMove>,
}

/// Clock state in a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Clocks {
    /// Server time when the snapshot was made, Unix milliseconds.
    pub now_ms: u64,
    /// Current turn's deadline, Unix milliseconds (null when no turn runs).
    pub turn_deadline_ms: Option<u64>,
    /// Match clock deadline, Unix milliseconds.
    pub match_deadline_ms: u64,
}

/// `snapshot` payload: everything a client needs to draw the match now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Snapshot {
    /// The match.
    pub match_id: Uuid,
    /// journey or clash.
    pub mode: Mode,
    /// The rule set.
    pub rules: RuleSet,
    /// The four seats.
    #[schemars(length(min = 4, max = 4))]
    pub seats: Vec<SeatInfo>,
    /// The receiving player's seat (null for spectators).
    pub your_seat: Option<Seat>,
    /// The position (RULES.md §11 output form: every seat and field, with totals).
    pub position: Position,
    /// The turn in progress, if any.
    pub turn: Option<TurnStarted>,
    /// Clocks.
    pub clocks: Clocks,
    /// SHA-256 of the seed (hex).
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub dice_commitment: String,
    /// Turns resolved so far.
    pub turns_played: u32,
    /// Which inputs key the dice (`server_seed` or `contributed`).
    #[serde(default)]
    pub dice_scheme: DiceScheme,
    /// Scheme `contributed`: the sealed contributions in seat order (as in
    /// `dice_sealed`); null while the window is open and for `server_seed`.
    #[serde(default)]
    pub contributions: Option<Vec<Contribution>>,
    /// Scheme `contributed` while the window is open: when it closes (Unix ms).
    #[serde(default)]
    pub contribution_deadline_ms: Option<u64>,
    /// The `seq` of the last match message this snapshot includes.
    pub seq: u64,
    /// Present once the match has ended.
    pub ended: Option<MatchEnded>,
}

/// A skill rating: the Weng-Lin (OpenSkill) model's belief over a player's skill
/// in one mode, in skill points. A new player has `mu` 25 and `sigma` 25/3 ≈ 8.333,
/// so `conservative` 0; leaderboards rank by `conservative`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rating {
    /// Estimated skill (skill points).
    pub mu: f64,
    /// Uncertainty of `mu`, its standard deviation (skill points); it shrinks as
    /// the player plays.
    pub sigma: f64,
    /// `mu − 3·sigma` (skill points): the rating shown and ranked by.
    pub conservative: f64,
}

/// How a match changed one player's rating in the match's mode. Only human seats
/// of a match with two or more human players are rated; bots never are; a seat
/// whose player left ranks below every seat that stayed; equal places tie.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RatingChange {
    /// The rating before the match.
    pub before: Rating,
    /// The rating after it.
    pub after: Rating,
    /// `after.conservative − before.conservative` (skill points; may be negative).
    pub change: f64,
}

/// One line of `match_ended.standings`: the seat's final result (rule 9.2) and, for
/// a rated seat, its rating change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FinalStanding {
    /// The result (the fields of a standing: seat, place, points, finished, left).
    #[serde(flatten)]
    pub standing: Standing,
    /// The seat's rating change; absent for a bot's seat and in a match that rated
    /// nothing (fewer than two human players).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatingChange>,
}

impl std::ops::Deref for FinalStanding {
    type Target = Standing;
    fn deref(&self) -> &Standing {
        &self.standing
    }
}

/// `match_ended` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatchEnded {
    /// The match.
    pub match_id: Uuid,
    /// Final standings, best first; equal totals share a place (RULES.md rule 9.2);
    /// rated seats carry their rating change.
    #[schemars(length(min = 4, max = 4))]
    pub standings: Vec<FinalStanding>,
    /// all_finished or clock.
    pub reason: EndReason,
    /// The match seed (hex), now revealed: SHA-256 of its bytes is `dice_commitment`.
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub seed: String,
    /// Where to fetch the replay: `/api/v1/matches/{id}/replay`.
    pub replay_url: String,
}

/// `error` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorMsg {
    /// Stable code from the closed list.
    pub code: ErrorCode,
    /// Human-readable explanation (may change between versions).
    pub message: String,
    /// The `id` of the client frame this answers, when it had one.
    pub in_reply_to: Option<String>,
}

/// `ack` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Ack {
    /// The `id` of the accepted client frame.
    pub id: String,
    /// Only in the answer to a resend of a plan (or pass) that was already applied
    /// (its first sending's `ack` was lost): the `seq` of the `turn_resolved` that
    /// applied it. Nothing is applied again (`proto/README.md` §6). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_seq: Option<u64>,
}

/// `chat` payload (server → client).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChatLine {
    /// The match.
    pub match_id: Uuid,
    /// The sender's seat, or null for a spectator.
    pub seat: Option<Seat>,
    /// The sender's display name.
    pub name: String,
    /// The text (1..=280 characters).
    #[schemars(length(min = 1, max = 280))]
    pub text: String,
}

/// `seat_left` payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatLeft {
    /// The match.
    pub match_id: Uuid,
    /// The seat whose player left.
    pub seat: Seat,
}

/// `seat_away` / `seat_back` payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatPresence {
    /// The match.
    pub match_id: Uuid,
    /// The seat that is away (`seat_away`) or back (`seat_back`).
    pub seat: Seat,
}

impl ServerMsg {
    /// The message's type tag.
    pub fn type_name(&self) -> &'static str {
        match self {
            ServerMsg::Welcome(_) => "welcome",
            ServerMsg::QueueStatus(_) => "queue_status",
            ServerMsg::LobbyState(_) => "lobby_state",
            ServerMsg::MatchStarted(_) => "match_started",
            ServerMsg::TurnStarted(_) => "turn_started",
            ServerMsg::TurnResolved(_) => "turn_resolved",
            ServerMsg::Snapshot(_) => "snapshot",
            ServerMsg::MatchEnded(_) => "match_ended",
            ServerMsg::Error(_) => "error",
            ServerMsg::Ack(_) => "ack",
            ServerMsg::Pong => "pong",
            ServerMsg::Chat(_) => "chat",
            ServerMsg::SeatLeft(_) => "seat_left",
            ServerMsg::LobbyList(_) => "lobby_list",
            ServerMsg::RematchOffered(_) => "rematch_offered",
            ServerMsg::SeatAway(_) => "seat_away",
            ServerMsg::SeatBack(_) => "seat_back",
            ServerMsg::DiceSealed(_) => "dice_sealed",
            ServerMsg::PlanPreview(_) => "plan_preview",
        }
    }

    /// An `error` message.
    pub fn error(
        code: ErrorCode,
        message: impl Into<String>,
        in_reply_to: Option<String>,
    ) -> ServerMsg {
        ServerMsg::Error(ErrorMsg {
            code,
            message: message.into(),
            in_reply_to,
        })
    }

    /// Every server message type tag.
    pub const TYPES: [&'static str; 19] = [
        "welcome",
        "queue_status",
        "lobby_state",
        "match_started",
        "turn_started",
        "turn_resolved",
        "snapshot",
        "match_ended",
        "error",
        "ack",
        "pong",
        "chat",
        "seat_left",
        "lobby_list",
        "rematch_offered",
        "seat_away",
        "seat_back",
        "dice_sealed",
        "plan_preview",
    ];
}
