//! Persistence of guests, matches, the append-only turn log and results, over
//! PostgreSQL or SQLite (sqlx, runtime queries; migrations in `migrations/postgres`
//! and `migrations/sqlite`, applied by [`Store::connect`]).
//!
//! * [`Store`]: one cheap-to-clone handle over either backend: guests
//!   ([`Store::create_guest`], [`Store::player_by_token_hash`], [`Store::player`]),
//!   match writes ([`Store::create_match`], [`Store::append_turns`],
//!   [`Store::finish_match`]) and reads ([`Store::match_summary`], [`Store::replay`],
//!   [`Store::running_summaries`], [`Store::player_matches`], [`Store::leaderboard`],
//!   [`Store::unfinished_matches`], [`Store::ping`]).
//! * [`spawn_writer`]: the write-behind writer the game rooms use so that they never
//!   wait on the database.
//! * [`StoreError`]: failures, with [`StoreError::is_transient`] for retries.
//!
//! Engine values (rule set, plans, events) are stored as JSON (`jsonb` on
//! PostgreSQL, text on SQLite); enums by their serde names; times in UTC to the
//! microsecond.

mod accounts;
mod codec;
mod error;
pub mod lease;
mod model;
mod passkeys;
mod players;
pub mod rating;
mod ratings;
mod reads;
mod resume;
mod rows;
mod store;
#[cfg(feature = "testing")]
pub mod testing;
mod turn_log;
mod writer;
mod writes;

pub use error::{DriverError, StoreError};
pub use lease::Leases;
pub use model::{
    ChatEntry, Cursor, HistoryPage, LeaderboardRow, LoggedTurn, MatchResult, MatchStatus,
    MatchSummary, ModeStats, NewMatch, NewSession, Page, Player, PlayerProfile, RatedRow,
    ReplayDoc, RunningMatch, SeatEntry, SeatSummary, Session, StoredPasskey, StoredRating,
    MAX_PAGE,
};
pub use rating::{Rating, RatingChange};
pub use store::{Store, DEFAULT_DATABASE_URL};
pub use writer::{
    spawn_writer, spawn_writer_fenced, spawn_writer_with, Committed, WriteOp, WriterConfig,
    WriterHandle, BACKLOG_GAUGE, BATCH_OPS, COMMIT_SECONDS, DROPPED_COUNTER, FAILURES_COUNTER,
    FENCED_COUNTER, RETRIES_COUNTER,
};
