//! The closed list of error codes a server sends in [`crate::ServerMsg::Error`] (the
//! REST API's codes are [`crate::RestErrorCode`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Every error code of the protocol: the engine's plan errors (RULES.md rule 4.5) plus
/// the transport, session and lobby errors. Serialized in `snake_case`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    // --- frames ---
    /// The frame is not JSON, or its payload does not have the message's shape.
    BadJson,
    /// The frame's `t` names no client message type.
    UnknownType,
    /// The frame is larger than 4096 bytes (`MAX_FRAME_BYTES`).
    TooLarge,
    /// Too many messages: the per-connection budget is spent (the socket closes on sustained abuse).
    RateLimited,
    // --- session ---
    /// A message other than `hello`/`ping` came before a successful `hello`, or the token is unknown.
    NotAuthenticated,
    /// `hello` named a protocol version outside the supported range (the socket then closes).
    UnsupportedVersion,
    /// The message names a match this connection does not play in.
    NotInMatch,
    /// The match id is unknown (or the match is no longer running).
    MatchNotFound,
    /// The lobby code is unknown.
    LobbyNotFound,
    /// The lobby has four seats taken already.
    LobbyFull,
    /// Only the lobby's host may start it.
    NotHost,
    /// The lobby cannot start: it needs at least two players unless it fills empty seats with bots.
    LobbyTooSmall,
    /// A chat text breaks the text policy (1..=280 characters after NFC, visible, no control, bidi or invisible format characters).
    InvalidText,
    /// The player is already queued, in a lobby or seated in a running match.
    AlreadyBusy,
    /// The plan is for a turn that is not the current one (it arrived late or twice).
    /// Checked before the seat: a late plan of the previous seat gets `stale_turn`.
    StaleTurn,
    /// Something failed inside the server; nothing was changed.
    Internal,
    /// `offer_rematch` named a match that is still running (a rematch follows
    /// `match_ended`).
    MatchNotEnded,
    /// The store (database) is unavailable or behind, so no new match can start
    /// (queues and lobbies refuse until it catches up; running matches hold their
    /// turns meanwhile). Nothing was changed; try again shortly.
    StoreUnavailable,
    /// Cluster mode: the request needs another node (the match, lobby or queue is
    /// there) and this node cannot reach the others right now (NATS is down).
    /// Nothing was sent and nothing changed; try again in a few seconds.
    ClusterUnavailable,
    /// `contribute_entropy`: the entropy is not hex, or has fewer than 16 or more
    /// than 64 bytes.
    InvalidEntropy,
    /// `contribute_entropy`: the seat has contributed to this match's dice already.
    AlreadyContributed,
    /// `contribute_entropy`: the contribution window is over (the dice are sealed), or
    /// the match's dice are of the server-seed scheme.
    ContributionClosed,
    // --- engine (rule 4.5) ---
    /// It is another seat's turn (the turn number given is the current one).
    NotYourTurn,
    /// The match is over.
    MatchOver,
    /// A piece name is not `G1`..`G4`.
    UnknownPiece,
    /// A moved guardian is in the Yard (and not exited in the same plan).
    PieceInYard,
    /// A moved guardian is at Home.
    PieceAtHome,
    /// An exited guardian is not in the Yard.
    NotInYard,
    /// More exits than exit credits.
    NotEnoughExitCredits,
    /// A roll value is not in the store (counting repeats).
    RollNotInStore,
    /// A guardian's move list is empty.
    EmptyMove,
    /// Royal steps outside 1..=8.
    RoyalStepsOutOfRange,
    /// The royal is at Home.
    RoyalAtHome,
    /// A malformed position.
    InvalidPosition,
    /// A malformed plan (for example a guardian named twice in `exits`).
    InvalidPlan,
}

impl ErrorCode {
    /// Every error code, in declaration order (frames, session, engine).
    pub const ALL: [ErrorCode; 35] = {
        use ErrorCode::*;
        [
            BadJson,
            UnknownType,
            TooLarge,
            RateLimited,
            NotAuthenticated,
            UnsupportedVersion,
            NotInMatch,
            MatchNotFound,
            LobbyNotFound,
            LobbyFull,
            NotHost,
            LobbyTooSmall,
            InvalidText,
            AlreadyBusy,
            StaleTurn,
            Internal,
            MatchNotEnded,
            StoreUnavailable,
            ClusterUnavailable,
            InvalidEntropy,
            AlreadyContributed,
            ContributionClosed,
            NotYourTurn,
            MatchOver,
            UnknownPiece,
            PieceInYard,
            PieceAtHome,
            NotInYard,
            NotEnoughExitCredits,
            RollNotInStore,
            EmptyMove,
            RoyalStepsOutOfRange,
            RoyalAtHome,
            InvalidPosition,
            InvalidPlan,
        ]
    };

    /// The code's stable string (`"bad_json"` …).
    pub fn as_str(self) -> &'static str {
        use ErrorCode::*;
        match self {
            BadJson => "bad_json",
            UnknownType => "unknown_type",
            TooLarge => "too_large",
            RateLimited => "rate_limited",
            NotAuthenticated => "not_authenticated",
            UnsupportedVersion => "unsupported_version",
            NotInMatch => "not_in_match",
            MatchNotFound => "match_not_found",
            LobbyNotFound => "lobby_not_found",
            LobbyFull => "lobby_full",
            NotHost => "not_host",
            LobbyTooSmall => "lobby_too_small",
            InvalidText => "invalid_text",
            AlreadyBusy => "already_busy",
            StaleTurn => "stale_turn",
            Internal => "internal",
            MatchNotEnded => "match_not_ended",
            StoreUnavailable => "store_unavailable",
            ClusterUnavailable => "cluster_unavailable",
            InvalidEntropy => "invalid_entropy",
            AlreadyContributed => "already_contributed",
            ContributionClosed => "contribution_closed",
            NotYourTurn => "not_your_turn",
            MatchOver => "match_over",
            UnknownPiece => "unknown_piece",
            PieceInYard => "piece_in_yard",
            PieceAtHome => "piece_at_home",
            NotInYard => "not_in_yard",
            NotEnoughExitCredits => "not_enough_exit_credits",
            RollNotInStore => "roll_not_in_store",
            EmptyMove => "empty_move",
            RoyalStepsOutOfRange => "royal_steps_out_of_range",
            RoyalAtHome => "royal_at_home",
            InvalidPosition => "invalid_position",
            InvalidPlan => "invalid_plan",
        }
    }
}

impl From<engine::ErrorCode> for ErrorCode {
    fn from(c: engine::ErrorCode) -> Self {
        use engine::ErrorCode as E;
        match c {
            E::NotYourTurn => ErrorCode::NotYourTurn,
            E::StaleTurn => ErrorCode::StaleTurn,
            E::MatchOver => ErrorCode::MatchOver,
            E::UnknownPiece => ErrorCode::UnknownPiece,
            E::PieceInYard => ErrorCode::PieceInYard,
            E::PieceAtHome => ErrorCode::PieceAtHome,
            E::NotInYard => ErrorCode::NotInYard,
            E::NotEnoughExitCredits => ErrorCode::NotEnoughExitCredits,
            E::RollNotInStore => ErrorCode::RollNotInStore,
            E::EmptyMove => ErrorCode::EmptyMove,
            E::RoyalStepsOutOfRange => ErrorCode::RoyalStepsOutOfRange,
            E::RoyalAtHome => ErrorCode::RoyalAtHome,
            E::InvalidPosition => ErrorCode::InvalidPosition,
            E::InvalidPlan => ErrorCode::InvalidPlan,
        }
    }
}

impl From<&engine::MatchError> for ErrorCode {
    fn from(e: &engine::MatchError) -> Self {
        e.code().into()
    }
}
