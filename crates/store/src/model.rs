//! The values the store reads and writes: players, new matches, results, summaries,
//! replay documents, history pages and leaderboard rows.

use crate::rating::{Rating, RatingChange};
use chrono::{DateTime, Utc};
use engine::{EndReason, Mode, Replay, RuleSet, Seat, Seed, Standing, TurnRecord};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The most rows one history or leaderboard call returns.
pub const MAX_PAGE: u32 = 100;

/// A player: a guest, or a claimed account when `username` is set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Player id.
    pub id: Uuid,
    /// Display name (changeable; `""` once the account is deleted).
    pub name: String,
    /// When the guest was created (UTC, microsecond precision).
    pub created_at: DateTime<Utc>,
    /// The account's username as chosen; `None` for a guest.
    pub username: Option<String>,
}

/// A session: one sign-in (or one guest), authenticated by a bearer token stored
/// only as its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// Session id.
    pub id: Uuid,
    /// Whose session it is.
    pub player_id: Uuid,
    /// The `client` string of its last `hello`, or the User-Agent it signed in with
    /// (at most 64 characters).
    pub client: String,
    /// When it was created (UTC, microseconds).
    pub created_at: DateTime<Utc>,
    /// When it was last used (UTC, microseconds; refreshed at most once a minute).
    pub last_used_at: DateTime<Utc>,
}

/// A passkey (WebAuthn credential) of an account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredPasskey {
    /// The credential id, base64url without padding (unique across accounts).
    pub id: String,
    /// Whose passkey it is.
    pub player_id: Uuid,
    /// The WebAuthn library's serialized credential (JSON text: public key, counter …).
    pub passkey: String,
    /// The name its owner gave it (shown in the passkeys list).
    pub name: String,
    /// When it was added (UTC, microseconds).
    pub created_at: DateTime<Utc>,
    /// When it last signed in (UTC, microseconds); `None` before its first sign-in.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// A session to store: its id, the SHA-256 of its token (64 lowercase hex digits),
/// the client string and the creation time (also its first use).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    /// Session id.
    pub id: Uuid,
    /// SHA-256 of the bearer token, 64 lowercase hex digits.
    pub token_hash: String,
    /// Client string (at most 64 characters).
    pub client: String,
    /// Creation time (UTC).
    pub at: DateTime<Utc>,
}

/// One seat of a match as it was set up: who plays it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatEntry {
    /// The seat (rule 1.1): `green`, `red`, `blue` or `yellow`.
    pub seat: Seat,
    /// The human player in the seat; `None` for a bot.
    pub player_id: Option<Uuid>,
    /// True when a bot plays the seat.
    pub is_bot: bool,
    /// Name shown for the seat.
    pub name: String,
    /// The level of the seat's bot (`beginner`, `casual`, `greedy`, `expert`);
    /// `None` for a human's seat and for matches stored before levels existed.
    #[serde(default)]
    pub bot_level: Option<String>,
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
    /// Which inputs key the dice (column `dice_scheme`).
    pub dice_scheme: engine::DiceScheme,
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
    /// Seats whose player left, with the `seq` of their `seat_left` message, in the
    /// order they left.
    pub left: Vec<(Seat, u64)>,
    /// Which inputs key the dice.
    pub dice_scheme: engine::DiceScheme,
    /// Scheme `contributed`: the contributions stored so far, in seat order (all
    /// four once sealed).
    pub contributions: Vec<engine::Contribution>,
    /// Scheme `contributed`: the `seq` of `dice_sealed` once the dice are sealed.
    pub dice_sealed_seq: Option<u64>,
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
    /// `seq` of the `match_ended` message, when a room sent one.
    pub end_seq: Option<u64>,
}

/// Whether a match is still being played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchStatus {
    /// Started and not yet ended.
    Running,
    /// Ended; seed and standings are recorded.
    Ended,
}

/// One seat of a stored match, with its result once the match has ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeatSummary {
    /// The seat: `green`, `red`, `blue` or `yellow`.
    pub seat: Seat,
    /// The human player in the seat; `None` for a bot.
    pub player_id: Option<Uuid>,
    /// True when a bot plays the seat.
    pub is_bot: bool,
    /// Name shown for the seat.
    pub name: String,
    /// The level of the seat's bot, as in [`SeatEntry::bot_level`].
    #[serde(default)]
    pub bot_level: Option<String>,
    /// True once the seat's player left the match (it then ranks below every seat
    /// that stayed).
    pub left: bool,
    /// The seat's final standing (rule 9.2; game points); `None` while the match runs.
    pub standing: Option<Standing>,
    /// How the match changed the seat's player's rating in the match's mode
    /// ([`crate::rating`]); `None` while the match runs, for a bot and in a match
    /// that rated nothing (fewer than two human players).
    pub rating: Option<RatingChange>,
}

/// What the store knows about one match, without its turn log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchSummary {
    /// Match id.
    pub id: Uuid,
    /// `journey` or `clash` (rule 1.4).
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

/// Which page of a player's match history to read. History order is newest first:
/// `started_at` descending, then match id descending (so matches that started in the
/// same microsecond still have one fixed order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// How many matches at most, 1..=100 ([`MAX_PAGE`]); others are rejected with
    /// [`crate::StoreError::Invalid`].
    pub limit: u32,
    /// Only matches after this point in history order; `None` starts at the newest.
    /// For the next page pass the previous [`HistoryPage::next`].
    pub before: Option<Cursor>,
}

/// A point in history order (`started_at` descending, then match id descending).
/// The matches after it are those that started before `started_at`, and — when `id`
/// is given — those that started exactly at `started_at` with an id below `id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// The start time the page begins below (UTC; compared to the microsecond).
    pub started_at: DateTime<Utc>,
    /// The last match already shown, to break ties in `started_at`; `None` for a
    /// plain time cursor ("everything that started strictly before").
    pub id: Option<Uuid>,
}

impl Cursor {
    /// The cursor just after `m` in history order.
    pub fn after(m: &MatchSummary) -> Cursor {
        Cursor {
            started_at: m.started_at,
            id: Some(m.id),
        }
    }
}

/// One page of a player's match history.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPage {
    /// At most `limit` matches, in history order (newest first).
    pub matches: Vec<MatchSummary>,
    /// The cursor of the next page ([`Cursor::after`] the last match) when more
    /// matches follow; `None` when this page is the last (also when exactly `limit`
    /// matches were left).
    pub next: Option<Cursor>,
}

/// One leaderboard line: a human player's results over the ended matches of a mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// One line of the rated leaderboard of a mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatedRow {
    /// Player id.
    pub player_id: Uuid,
    /// The player's name.
    pub name: String,
    /// The player's current rating in the mode (skill points; ranked by
    /// `rating.conservative` = μ − 3σ).
    pub rating: Rating,
    /// Rated matches of the mode played (matches with two or more human players).
    pub rated_matches: i64,
    /// Ended matches of the mode finished in place 1 (shared first places count).
    pub wins: i64,
}

/// A player's figures in one mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeStats {
    /// `journey` or `clash` (rule 1.4).
    pub mode: Mode,
    /// The current rating in the mode; the initial one (μ 25, σ 25/3, conservative
    /// 0) when the player has no rated match of it.
    pub rating: Rating,
    /// Rated matches of the mode played.
    pub rated_matches: i64,
    /// Ended matches of the mode played (rated or not).
    pub matches: i64,
    /// Of those, matches finished in place 1 (shared first places count).
    pub wins: i64,
    /// Sum of the player's final totals in them (game points).
    pub total_points: i64,
}

/// A player's profile: name and, per mode, rating and counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerProfile {
    /// Player id.
    pub player_id: Uuid,
    /// Display name.
    pub name: String,
    /// When the guest was created (UTC).
    pub created_at: DateTime<Utc>,
    /// Figures per mode, journey then clash (every mode is listed).
    pub modes: Vec<ModeStats>,
}

/// A player's rating in one mode as recomputed from stored results
/// ([`crate::Store::recompute_ratings`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StoredRating {
    /// The player.
    pub player_id: Uuid,
    /// The mode.
    pub mode: Mode,
    /// μ and σ (skill points).
    pub mu: f64,
    /// See [`Rating::sigma`].
    pub sigma: f64,
    /// Rated matches of the mode played.
    pub matches: i64,
}
