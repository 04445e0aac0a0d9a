//! [`RoomDeps`]: what a room needs from the rest of the server, and nothing more.
//! Built from the [`Game`] in one place ([`RoomDeps::of`]); a room never sees
//! the whole state (connections, lobbies, the matchmaker, the edge).

use crate::clock::Clock;
use crate::game::{Game, Registries};
use crate::presence::Busy;
use std::sync::Arc;
use std::time::Duration;
use store::{Store, WriterHandle};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// A room's dependencies. Cheap to clone (handles and `Arc`s).
#[derive(Clone)]
pub(crate) struct RoomDeps {
    /// The server's clock (Unix ms; a test's manual clock): turn timers, the match
    /// clock, the abandon wait.
    pub(crate) clock: Clock,
    /// The ordered write-behind persistence writer: every write of the room.
    pub(crate) writer: WriterHandle,
    /// The store, read once a result is durable for its rating changes.
    pub(crate) store: Store,
    /// The room's settings from the server's configuration.
    pub(crate) settings: RoomSettings,
    /// Cancelled when the server begins shutting down.
    pub(crate) shutdown: CancellationToken,
    /// Cluster mode (this node joined a cluster before serving): a write that fails
    /// was fenced, because another node owns the match now.
    pub(crate) clustered: bool,
    /// The server's bound on expert searches running at once.
    pub(crate) bots: super::bots::BotPool,
    /// The registries the room updates: its own entry and its players' presence.
    registries: Arc<Registries>,
}

/// The configuration values a room reads (`crate::config::Config`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RoomSettings {
    /// Match messages kept for `resync` (`--resync-frames`).
    pub(crate) resync_frames: usize,
    /// How long a match waits with no human connected before it ends as abandoned,
    /// ms (`--abandon-seconds` × 1000).
    pub(crate) abandon_ms: u64,
    /// Turns in a row a connected seat may time out before it is away
    /// (`--away-after-timeouts`).
    pub(crate) away_after_timeouts: u32,
    /// How long a seat has to answer the ping at the start of its turn before it
    /// is away (`--pong-timeout-ms`; `None`: no ping).
    pub(crate) pong_timeout: Option<Duration>,
    /// The strategy of bot seats.
    pub(crate) bot_kind: bot::BotKind,
    /// How long a bot waits before it moves (`--bot-think-ms`).
    pub(crate) bot_think: Duration,
    /// An expert's search budgets per decision (`--bot-budget-ms`, `--bot-nodes`,
    /// `--bot-journey-nodes`).
    pub(crate) bot_budget: super::bots::SearchBudget,
    /// How long a new match waits for dice contributions, ms
    /// (`--contribution-window-ms`).
    pub(crate) contribution_window_ms: u64,
}

impl RoomDeps {
    /// The dependencies of a room of the server's game side `game`.
    pub(crate) fn of(game: &Game) -> RoomDeps {
        let config = game.config();
        RoomDeps {
            clock: game.clock().clone(),
            writer: game.writer().clone(),
            store: game.store().clone(),
            settings: RoomSettings {
                resync_frames: config.resync_frames,
                abandon_ms: u64::from(config.abandon_seconds) * 1000,
                away_after_timeouts: config.away_after_timeouts,
                pong_timeout: (config.pong_timeout_ms > 0)
                    .then(|| Duration::from_millis(u64::from(config.pong_timeout_ms))),
                bot_kind: config.bot_kind,
                bot_think: config.bot_think(),
                bot_budget: super::bots::SearchBudget::of(config),
                contribution_window_ms: u64::from(config.contribution_window_ms),
            },
            bots: game.bot_pool().clone(),
            shutdown: game.shutdown_token().clone(),
            clustered: game.clustered(),
            registries: game.registries().clone(),
        }
    }

    /// Frees `player`, seated in match `match_id`, so it can queue or open a lobby at
    /// once (it left the match, or the match ended or moved).
    pub(crate) fn free_seat(&self, player: Uuid, match_id: Uuid) {
        self.registries
            .presence()
            .release(player, Busy::Seated(match_id));
    }

    /// A new bot of `kind` for a seat, with this server's search budgets.
    pub(crate) fn new_bot(&self, kind: bot::BotKind) -> super::bots::BotSeat {
        super::bots::BotSeat::new(kind, rand::random(), self.settings.bot_budget)
    }

    /// Removes the room of `match_id` from the registry: requests naming the match
    /// no longer reach it.
    pub(crate) fn unregister(&self, match_id: Uuid) {
        self.registries.unregister_room(match_id);
    }
}
