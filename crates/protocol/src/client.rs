//! Client → server messages.

use engine::{Mode, Plan};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use uuid::Uuid;

/// A client frame: `{"t": <type>, "d": <payload>, "id": <optional string>}`. The
/// server echoes `id` (at most 64 characters) in its `ack` or `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClientFrame {
    /// Client-chosen id echoed in `ack.id` / `error.in_reply_to`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 64))]
    pub id: Option<String>,
    /// The message.
    #[serde(flatten)]
    pub msg: ClientMsg,
}

/// Every message a client may send, tagged by `t` with its payload in `d`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "d", rename_all = "snake_case")]
#[schemars(transform = crate::schema::no_payload_is_null)]
pub enum ClientMsg {
    /// First message on a socket: authenticate with a guest token from
    /// `POST /api/v1/guests` and state the protocol version. Answer: `welcome`, or
    /// `error` (`not_authenticated`, or `unsupported_version` and the socket closes).
    /// For each running match of the player (`welcome.active_matches`) the frames
    /// missed since the `seq` given in `last_seq` follow, or a `snapshot`.
    Hello(Hello),
    /// Enter the quick-play queue of a mode. Answer: `ack`, then `queue_status`
    /// updates, then `match_started` once four seats are filled (bots fill empty
    /// seats after the server's bot-fill wait, 20 s by default).
    JoinQueue(JoinQueue),
    /// Leave the queue. Answer: `ack`.
    LeaveQueue,
    /// Create a lobby; the creator is its host. Answer: `lobby_state` with the join code.
    CreateLobby(CreateLobby),
    /// Join a lobby by its code. Answer: `lobby_state` to every member, or `error`
    /// (`lobby_not_found`, `lobby_full`).
    JoinLobby(JoinLobby),
    /// Leave the current lobby. Answer: `ack` (and `lobby_state` to the others).
    LeaveLobby,
    /// Host only: start the lobby's match (empty seats get bots when the lobby was
    /// created with `fill_with_bots`, otherwise at least two players are needed).
    /// Answer: `match_started` to every member, or `error` (`not_host`).
    StartLobby,
    /// Submit the plan for your seat's current turn. Answer: `ack`, then
    /// `turn_resolved` to everybody; or `error` and nothing changes, the first code
    /// that applies in this order: `match_not_found`, `not_in_match`, `match_over`,
    /// `stale_turn` (the turn number is not the current turn's, whoever sends it),
    /// `not_your_turn`, then the plan errors in the order of RULES.md rule 4.5.
    SubmitTurn(SubmitTurn),
    /// Pass your seat's current turn (RULES.md rule 4.4). Answers as `submit_turn`.
    Pass(TurnRef),
    /// Ask what a plan for your seat's current turn would do, changing nothing: the
    /// server validates and resolves it with the engine on a copy of the position.
    /// Answer: `ack`, then `plan_preview` (the events and standings `turn_resolved`
    /// would carry, and the legal single-piece moves the plan could still add); or
    /// the very `error` `submit_turn` would get for it, in the same order. Counted
    /// against the connection's message budget like every request.
    PreviewPlan(SubmitTurn),
    /// Ask for everything after `last_seq` of a match you play or watch: the missed
    /// messages in order, or a `snapshot` when they are no longer kept.
    Resync(Resync),
    /// Watch a running match read-only: a `snapshot`, then live messages.
    Spectate(MatchRef),
    /// Chat in a match you play or watch (1..=280 characters after NFC normalization,
    /// by the text policy of [`crate::text`]). Relayed, normalized, as `chat`; or
    /// `error` `invalid_text`.
    Chat(Chat),
    /// Leave a running match you are seated in: a bot plays your seat for the rest
    /// of the match (the others play on), you are free at once (queue, lobby), and
    /// your seat ranks below every seat that stayed. Answer: `ack`, then `seat_left`
    /// to everybody; or `error` (`match_not_found`, `not_in_match`).
    LeaveMatch(MatchRef),
    /// Keep-alive. Answer: `pong`.
    Ping,
    /// Watch the list of open public lobbies (those created with `private: false`)
    /// of this server. Answer: `ack`, then `lobby_list` with the whole list at once
    /// and again after every change (a public lobby opens, gains or loses a member,
    /// starts or closes) until `unsubscribe_lobbies` or the socket closes. Join one
    /// with `join_lobby` and its code. Subscribing again just sends the list again.
    SubscribeLobbies,
    /// Stop the `lobby_list` updates. Answer: `ack` (also when not subscribed).
    UnsubscribeLobbies,
    /// After `match_ended`: offer the other human players of that match a rematch.
    /// The sender hosts a new private lobby of the same mode that fills empty seats
    /// with bots (answer: `ack` and `lobby_state`), and every other human of the
    /// match who is online gets `rematch_offered` with its code (accept: `join_lobby`
    /// with it). If a rematch of that match is already open, the sender joins it
    /// instead. Errors: `match_not_found` (no such match), `not_in_match` (the sender
    /// had no seat in it), `match_not_ended` (it is still running), `already_busy`
    /// (the sender is queued, in a lobby or seated), `lobby_full` (the open rematch
    /// is full), `store_unavailable`.
    OfferRematch(MatchRef),
    /// Add your seat's randomness to the match's dice (dice scheme `contributed`,
    /// `proto/README.md` §10): after `match_started`, before its
    /// `contribution_deadline_ms`, 16 to 64 bytes from the platform's CSPRNG as hex.
    /// Answer: `ack` once the contribution is stored; it is used in `dice_sealed`.
    /// Errors (nothing changes), the first that applies: `invalid_entropy` (not hex,
    /// fewer than 16 or more than 64 bytes), `match_not_found`, `not_in_match` (a
    /// spectator, or a player not seated in that match), `already_contributed` (the
    /// seat contributed before), `contribution_closed` (the window is over: the dice
    /// are sealed, or the match is of the server-seed scheme).
    ContributeEntropy(ContributeEntropy),
}

/// `contribute_entropy` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContributeEntropy {
    /// The match.
    pub match_id: Uuid,
    /// 16 to 64 random bytes as hex (32 to 128 hex digits; upper or lower case).
    #[schemars(pattern(r"^([0-9a-fA-F]{2}){16,64}$"))]
    pub entropy: String,
}

/// `hello` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    /// Guest token from `POST /api/v1/guests` (secret).
    pub token: String,
    /// Protocol version the client speaks (this document: 2).
    #[schemars(range(max = u32::MAX))]
    pub protocol_version: u32,
    /// Free-form client name and version, for logs (≤ 64 characters).
    #[serde(default)]
    #[schemars(length(max = 64))]
    pub client: String,
    /// Optional: per running match, the last `seq` the client processed
    /// (`{"<match_id>": 17}`), as in `resync`. For each match of
    /// `welcome.active_matches` named here the server replays the frames after it
    /// when the room still keeps them all (a short gap; none when the client is up to
    /// date), and sends a `snapshot` otherwise; a match not named gets a `snapshot`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub last_seq: BTreeMap<Uuid, u64>,
}

/// How strong the bots are that fill empty seats, weakest first: `beginner` (a
/// random legal plan on 3 turns in 4), `casual` (on 1 turn in 4, otherwise as
/// `greedy`), `greedy` (the best plan under a one-turn heuristic), `expert` (compares
/// the greedy bot's best plans by playing the next turns out with sampled dice).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum BotLevel {
    /// The weakest level.
    Beginner,
    /// Between beginner and greedy.
    Casual,
    /// The one-turn heuristic bot (the default).
    #[default]
    Greedy,
    /// The searching bot.
    Expert,
}

impl BotLevel {
    /// Every level, weakest first.
    pub const ALL: [BotLevel; 4] = [
        BotLevel::Beginner,
        BotLevel::Casual,
        BotLevel::Greedy,
        BotLevel::Expert,
    ];

    /// `"beginner"`, `"casual"`, `"greedy"` or `"expert"`.
    pub const fn name(self) -> &'static str {
        match self {
            BotLevel::Beginner => "beginner",
            BotLevel::Casual => "casual",
            BotLevel::Greedy => "greedy",
            BotLevel::Expert => "expert",
        }
    }

    /// The level named `s` (as [`BotLevel::name`] writes it), if any.
    pub fn parse(s: &str) -> Option<BotLevel> {
        BotLevel::ALL.into_iter().find(|l| l.name() == s)
    }
}

/// `join_queue` payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinQueue {
    /// journey or clash.
    pub mode: Mode,
    /// Level of the bots that fill the empty seats if the bot-fill wait runs out
    /// (default `greedy`). Players of every level share one queue; a match that
    /// gets bots takes the level of its longest-waiting player.
    #[serde(default)]
    pub bot_level: BotLevel,
}

/// `create_lobby` payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateLobby {
    /// journey or clash.
    pub mode: Mode,
    /// Private lobbies are joined by code only.
    #[serde(default = "yes")]
    pub private: bool,
    /// Fill empty seats with bots when the host starts.
    #[serde(default)]
    pub fill_with_bots: bool,
    /// Level of those bots (default `greedy`).
    #[serde(default)]
    pub bot_level: BotLevel,
}

fn yes() -> bool {
    true
}

/// `join_lobby` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinLobby {
    /// The lobby's join code (6 characters, case-insensitive).
    #[schemars(length(min = 6, max = 6))]
    pub code: String,
}

/// `submit_turn` and `preview_plan` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitTurn {
    /// The match.
    pub match_id: Uuid,
    /// The turn this plan is for (from `turn_started`).
    #[schemars(range(max = u32::MAX))]
    pub turn_number: u32,
    /// The turn plan (RULES.md §11).
    pub plan: Plan,
}

/// `pass` payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TurnRef {
    /// The match.
    pub match_id: Uuid,
    /// The turn being passed (from `turn_started`).
    #[schemars(range(max = u32::MAX))]
    pub turn_number: u32,
}

/// `resync` payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Resync {
    /// The match.
    pub match_id: Uuid,
    /// The last `seq` the client processed (0 for none).
    #[schemars(range(max = u64::MAX))]
    pub last_seq: u64,
}

/// Payload naming a match (`spectate`, `leave_match`, `offer_rematch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchRef {
    /// The match.
    pub match_id: Uuid,
}

/// `chat` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Chat {
    /// The match.
    pub match_id: Uuid,
    /// 1..=280 characters after NFC normalization; refused (`invalid_text`) when it
    /// renders blank or holds control, bidirectional or invisible format characters
    /// (ZWJ and ZWNJ are fine between two characters) or more than 4 stacked
    /// combining marks.
    #[schemars(length(min = 1, max = 280))]
    pub text: String,
}

/// A decoded client message sorted by what the socket must be for it (how a server
/// reads a [`ClientMsg`]; the wire format is [`ClientMsg`]'s): `hello` and `ping` are
/// answered on any socket, every other message only once the socket is signed in.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// `hello`: signs the socket in (see [`ClientMsg::Hello`]).
    Hello(Hello),
    /// `ping`: answered with `pong`, signed in or not.
    Ping,
    /// Any other message: a request that needs a signed-in player.
    Request(Request),
}

/// A signed-in player's request: every [`ClientMsg`] but `hello` and `ping`, with
/// the same payloads and answers (documented on [`ClientMsg`]'s variants).
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// [`ClientMsg::JoinQueue`].
    JoinQueue(JoinQueue),
    /// [`ClientMsg::LeaveQueue`].
    LeaveQueue,
    /// [`ClientMsg::CreateLobby`].
    CreateLobby(CreateLobby),
    /// [`ClientMsg::JoinLobby`].
    JoinLobby(JoinLobby),
    /// [`ClientMsg::LeaveLobby`].
    LeaveLobby,
    /// [`ClientMsg::StartLobby`].
    StartLobby,
    /// [`ClientMsg::SubmitTurn`].
    SubmitTurn(SubmitTurn),
    /// [`ClientMsg::Pass`].
    Pass(TurnRef),
    /// [`ClientMsg::PreviewPlan`].
    PreviewPlan(SubmitTurn),
    /// [`ClientMsg::Resync`].
    Resync(Resync),
    /// [`ClientMsg::Spectate`].
    Spectate(MatchRef),
    /// [`ClientMsg::Chat`]; from [`crate::decode_client`] its text is already
    /// normalized and within the text policy.
    Chat(Chat),
    /// [`ClientMsg::LeaveMatch`].
    LeaveMatch(MatchRef),
    /// [`ClientMsg::SubscribeLobbies`].
    SubscribeLobbies,
    /// [`ClientMsg::UnsubscribeLobbies`].
    UnsubscribeLobbies,
    /// [`ClientMsg::OfferRematch`].
    OfferRematch(MatchRef),
    /// [`ClientMsg::ContributeEntropy`]; from [`crate::decode_client`] its entropy is
    /// already checked (hex, 16..=64 bytes).
    ContributeEntropy(ContributeEntropy),
}

impl From<ClientMsg> for Inbound {
    fn from(msg: ClientMsg) -> Inbound {
        let request = match msg {
            ClientMsg::Hello(h) => return Inbound::Hello(h),
            ClientMsg::Ping => return Inbound::Ping,
            ClientMsg::JoinQueue(j) => Request::JoinQueue(j),
            ClientMsg::LeaveQueue => Request::LeaveQueue,
            ClientMsg::CreateLobby(c) => Request::CreateLobby(c),
            ClientMsg::JoinLobby(j) => Request::JoinLobby(j),
            ClientMsg::LeaveLobby => Request::LeaveLobby,
            ClientMsg::StartLobby => Request::StartLobby,
            ClientMsg::SubmitTurn(s) => Request::SubmitTurn(s),
            ClientMsg::Pass(t) => Request::Pass(t),
            ClientMsg::PreviewPlan(s) => Request::PreviewPlan(s),
            ClientMsg::Resync(r) => Request::Resync(r),
            ClientMsg::Spectate(m) => Request::Spectate(m),
            ClientMsg::Chat(c) => Request::Chat(c),
            ClientMsg::LeaveMatch(m) => Request::LeaveMatch(m),
            ClientMsg::SubscribeLobbies => Request::SubscribeLobbies,
            ClientMsg::UnsubscribeLobbies => Request::UnsubscribeLobbies,
            ClientMsg::OfferRematch(m) => Request::OfferRematch(m),
            ClientMsg::ContributeEntropy(c) => Request::ContributeEntropy(c),
        };
        Inbound::Request(request)
    }
}

impl From<Request> for ClientMsg {
    fn from(r: Request) -> ClientMsg {
        match r {
            Request::JoinQueue(j) => ClientMsg::JoinQueue(j),
            Request::LeaveQueue => ClientMsg::LeaveQueue,
            Request::CreateLobby(c) => ClientMsg::CreateLobby(c),
            Request::JoinLobby(j) => ClientMsg::JoinLobby(j),
            Request::LeaveLobby => ClientMsg::LeaveLobby,
            Request::StartLobby => ClientMsg::StartLobby,
            Request::SubmitTurn(s) => ClientMsg::SubmitTurn(s),
            Request::Pass(t) => ClientMsg::Pass(t),
            Request::PreviewPlan(s) => ClientMsg::PreviewPlan(s),
            Request::Resync(r) => ClientMsg::Resync(r),
            Request::Spectate(m) => ClientMsg::Spectate(m),
            Request::Chat(c) => ClientMsg::Chat(c),
            Request::LeaveMatch(m) => ClientMsg::LeaveMatch(m),
            Request::SubscribeLobbies => ClientMsg::SubscribeLobbies,
            Request::UnsubscribeLobbies => ClientMsg::UnsubscribeLobbies,
            Request::OfferRematch(m) => ClientMsg::OfferRematch(m),
            Request::ContributeEntropy(c) => ClientMsg::ContributeEntropy(c),
        }
    }
}

impl ClientMsg {
    /// The message's type tag (`"submit_turn"` …).
    pub fn type_name(&self) -> &'static str {
        match self {
            ClientMsg::Hello(_) => "hello",
            ClientMsg::JoinQueue(_) => "join_queue",
            ClientMsg::LeaveQueue => "leave_queue",
            ClientMsg::CreateLobby(_) => "create_lobby",
            ClientMsg::JoinLobby(_) => "join_lobby",
            ClientMsg::LeaveLobby => "leave_lobby",
            ClientMsg::StartLobby => "start_lobby",
            ClientMsg::SubmitTurn(_) => "submit_turn",
            ClientMsg::Pass(_) => "pass",
            ClientMsg::Resync(_) => "resync",
            ClientMsg::Spectate(_) => "spectate",
            ClientMsg::Chat(_) => "chat",
            ClientMsg::LeaveMatch(_) => "leave_match",
            ClientMsg::Ping => "ping",
            ClientMsg::SubscribeLobbies => "subscribe_lobbies",
            ClientMsg::UnsubscribeLobbies => "unsubscribe_lobbies",
            ClientMsg::OfferRematch(_) => "offer_rematch",
            ClientMsg::ContributeEntropy(_) => "contribute_entropy",
            ClientMsg::PreviewPlan(_) => "preview_plan",
        }
    }

    /// Every client message type tag.
    pub const TYPES: [&'static str; 19] = [
        "hello",
        "join_queue",
        "leave_queue",
        "create_lobby",
        "join_lobby",
        "leave_lobby",
        "start_lobby",
        "submit_turn",
        "pass",
        "resync",
        "spectate",
        "chat",
        "leave_match",
        "ping",
        "subscribe_lobbies",
        "unsubscribe_lobbies",
        "offer_rematch",
        "contribute_entropy",
        "preview_plan",
    ];
}
