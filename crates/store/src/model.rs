//! The values the store reads and writes: players, new matches, results, summaries,
//! replay documents, history pages and leaderboard rows.

use chrono::{DateTime, Utc};
use engine::{EndReason, Mode, Replay, RuleSet, Seat, Seed, Standing, TurnRecord};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The most rows one history or leaderboard call returns.
pub const MAX_PAGE: u32 = 100;

/// A guest player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Player {
    /// Player id.
    pub id: Uuid,
    /// Display name, as given at creation.
    pub name: String,
    /// When the guest was created (UTC, microsecond precision).
    pub created_at: DateTime<Utc>,
}

/// One seat of a match as it was set up: who plays it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatEntry {
    /// The seat (rule 1.1): `green`, `red`, `blue` or `yellow`.
    #[schema(value_type = String, example = "green")]
    pub seat: Seat,
    /// The human player in the seat; `None` for a bot.
    pub player_id: Option<Uuid>,
    /// True when a bot plays the seat.
    pub is_bot: bool,
    /// Name shown for the seat.
    pub name: String,
}

/// A match to record when it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMatch {
    /// Match id.
    pub id: Uuid,
    /// journey or clash (rule 1.4).
    pub mode: Mode,
    /// The rule set the match is played with (stored as JSON).
    pub rules: RuleSet,
    /// SHA-256 of the seed, 64 hex digits (RULES.md §10), published at the start.
    pub dice_commitment: String,
    /// When the match started (UTC; kept to the microsecond).
    pub started_at: DateTime<Utc>,
    /// Exactly the four seats, each once, in any order.
    pub seats: Vec<SeatEntry>,
    /// The seed, kept server-side (column `secret_seed`, read only to resume the
    /// match after a restart; no API returns it before the match has ended). Its
    /// SHA-256 must equal `dice_commitment`. `None`: the match cannot be resumed.
    pub secret_seed: Option<Seed>,
}

/// A resolved turn as the server logs it: the engine's record plus where it sits in
/// the match's message sequence and on the match clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedTurn {
    /// The resolved turn.
    pub record: TurnRecord,
    /// `seq` of the turn's `turn_resolved` message (its `turn_started` successor, if
    /// any, has `seq + 1`).
    pub seq: u64,
    /// Match clock used when the turn resolved, milliseconds since the match started
    /// minus any time the server was down or the store unavailable (rule 9.1).
    pub clock_ms: u64,
}

/// One chat line of a match, stored before anyone sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatEntry {
    /// The match.
    pub match_id: Uuid,
    /// `seq` of the `chat` message.
    pub seq: u64,
    /// The sender's seat; `None` for a spectator.
    pub seat: Option<Seat>,
    /// The sender's display name.
    pub name: String,
    /// The text (already checked by the protocol's text policy).
    pub text: String,
    /// When it was sent (UTC).
    pub sent_at: DateTime<Utc>,
}

/// A running match as stored, with everything needed to resume it: the secret seed,
/// the seats and the turn log with sequence numbers and clock use.
#[derive(Debug, Clone, PartialEq)]
pub struct RunningMatch {
    /// Match id.
    pub id: Uuid,
    /// journey or clash (rule 1.4).
    pub mode: Mode,
    /// The rule set the match is played with.
    pub rules: RuleSet,
    /// The seed (its SHA-256 is the stored commitment); `None` when the match was
    /// stored without one (before durable matches) and cannot be resumed.
    pub secret_seed: Option<Seed>,
    /// When the match started (UTC).
    pub started_at: DateTime<Utc>,
    /// The four seats in turn order (green, red, blue, yellow).
    pub seats: Vec<SeatEntry>,
    /// Every stored turn, in order.
    pub turns: Vec<LoggedTurn>,
    /// Highest `seq` of a stored chat line (0 if none).
    pub last_chat_seq: u64,
}

/// The end of a match, to record once.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchResult {
    /// Match id.
    pub id: Uuid,
    /// The revealed seed; its SHA-256 must equal the stored commitment.
    pub seed: Seed,
    /// When the match ended (UTC; kept to the microsecond).
    pub ended_at: DateTime<Utc>,
    /// Why it ended (rule 9.1).
    pub reason: EndReason,
    /// Final standings (rule 9.2): exactly the four seats, each once.
    pub standings: Vec<Standing>,
}

/// Whether a match is still being played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MatchStatus {
    /// Started and not yet ended.
    Running,
    /// Ended; seed and standings are recorded.
    Ended,
}

/// One seat's final result (rule 9.2); points are game points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatResult {
    /// Place by total, 1 = best; equal totals share a place.
    pub place: u8,
    /// Progress points (rule 8.5).
    pub progress: i64,
    /// Combat points (rule 8.6).
    pub combat: i64,
    /// Completion bonus (rule 8.8).
    pub bonus: i64,
    /// progress + combat + bonus.
    pub total: i64,
    /// Finishing place (rule 8.8), if the seat finished.
    pub finished: Option<u8>,
}

/// One seat of a stored match, with its result once the match has ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatSummary {
    /// The seat: `green`, `red`, `blue` or `yellow`.
    #[schema(value_type = String, example = "green")]
    pub seat: Seat,
    /// The human player in the seat; `None` for a bot.
    pub player_id: Option<Uuid>,
    /// True when a bot plays the seat.
    pub is_bot: bool,
    /// Name shown for the seat.
    pub name: String,
    /// The final result; `None` while the match runs.
    pub result: Option<SeatResult>,
}

/// What the store knows about one match, without its turn log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MatchSummary {
    /// Match id.
    pub id: Uuid,
    /// `journey` or `clash` (rule 1.4).
    #[schema(value_type = String, example = "journey")]
    pub mode: Mode,
    /// running or ended.
    pub status: MatchStatus,
    /// When the row was written (UTC).
    pub created_at: DateTime<Utc>,
    /// When the match started (UTC).
    pub started_at: DateTime<Utc>,
    /// When the match ended (UTC); `None` while it runs.
    pub ended_at: Option<DateTime<Utc>>,
    /// `all_finished` or `clock` (rule 9.1); `None` while it runs.
    #[schema(value_type = Option<String>, example = "clock")]
    pub end_reason: Option<EndReason>,
    /// SHA-256 of the seed, 64 hex digits (RULES.md §10).
    pub dice_commitment: String,
    /// The four seats in turn order (green, red, blue, yellow).
    pub seats: Vec<SeatSummary>,
    /// Number of turns stored so far.
    pub turn_count: u32,
}

/// A replay document: the engine's [`Replay`] (flattened: `rules`, `mode`,
/// `dice_commitment`, `seed`, `turns`, `end`) plus the match id and its seats. It
/// deserializes as a plain [`Replay`] (extra fields are ignored), so
/// `engine::replay::verify` can check it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayDoc {
    /// Match id.
    pub match_id: Uuid,
    /// The four seats in turn order.
    pub seats: Vec<SeatEntry>,
    /// The replay: the seed only once the match has ended, turns in order, and the
    /// end once it has ended.
    #[serde(flatten)]
    pub replay: Replay,
}

/// One page of a player's match history, newest first (by `started_at`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// How many matches at most, 1..=100 ([`MAX_PAGE`]); others are rejected with
    /// [`crate::StoreError::Invalid`].
    pub limit: u32,
    /// Cursor: only matches that started strictly before this time. For the next
    /// page pass the `started_at` of the last match of the previous page; `None`
    /// starts at the newest.
    pub before: Option<DateTime<Utc>>,
}

/// One leaderboard line: a human player's results over the ended matches of a mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LeaderboardRow {
    /// Player id.
    pub player_id: Uuid,
    /// The player's name.
    pub name: String,
    /// Ended matches played in this mode.
    pub matches: i64,
    /// Matches finished in place 1 (shared first places count).
    pub wins: i64,
    /// Sum of the player's final totals (points).
    pub total_points: i64,
}
