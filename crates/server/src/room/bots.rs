//! Bot seats and their searches off the event loop.
//!
//! A bot of a level that searches (`expert`, [`bot::BotKind::searches`]) decides on
//! Tokio's blocking thread pool, never on the thread that runs rooms and sockets: the
//! room hands the bot's strategy and a copy of the position to
//! [`BotPool::think`], keeps answering its other commands (`resync`, `chat`,
//! spectators) meanwhile, and gets the strategy and its plan back as a [`Thought`]
//! that wakes it like any other event. At most [`BotPool::limit`] searches run at
//! once (`--bot-searches`); a bot that finds them all busy plays the greedy plan on
//! the room's thread instead (about 0.2 ms), so an overloaded server plays weaker
//! bots rather than slower turns. The other levels decide on the room's thread
//! (well under a millisecond).

use engine::{Plan, Position, RuleSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, OwnedSemaphorePermit, Semaphore};

/// A bot's strategy, as the room keeps it.
pub(crate) type Strategy = Box<dyn bot::Strategy + Send>;

/// The bot of a seat: its level and its strategy (`None` while the strategy is out
/// on the blocking pool, searching).
pub(crate) struct BotSeat {
    /// The bot's kind (level).
    pub kind: bot::BotKind,
    /// Its strategy with its own generator.
    pub strategy: Option<Strategy>,
}

impl BotSeat {
    /// A new bot of `kind`, its generator seeded with `seed`; an expert searches for
    /// at most `budget` (wall clock) and `nodes` plans (0: no node bound) per decision.
    pub(crate) fn new(kind: bot::BotKind, seed: u64, budget: Duration, nodes: usize) -> BotSeat {
        let strategy: Strategy = if kind.searches() {
            Box::new(bot::ExpertBot::with_config(
                seed,
                bot::ExpertConfig {
                    time_budget: Some(budget),
                    node_budget: if nodes == 0 { usize::MAX } else { nodes },
                    ..bot::ExpertConfig::default()
                },
            ))
        } else {
            bot::new_bot(kind, seed)
        };
        BotSeat {
            kind,
            strategy: Some(strategy),
        }
    }
}

/// A search that finished: the strategy comes back with its plan.
pub(crate) struct Thought {
    /// The bot's strategy, to be put back in its seat.
    pub strategy: Strategy,
    /// The plan it chose.
    pub plan: Plan,
}

/// A search in flight, as the room waits for it.
pub(crate) struct Thinking {
    /// The seat (index) whose bot is searching.
    pub seat: usize,
    /// The turn it searches for.
    pub turn_number: u32,
    /// Resolves with the [`Thought`]; fails if the search panicked.
    pub rx: oneshot::Receiver<Thought>,
}

/// The bound on searches running at once, shared by every room of the server.
#[derive(Debug, Clone)]
pub(crate) struct BotPool {
    permits: Arc<Semaphore>,
    limit: usize,
}

impl BotPool {
    /// A pool that runs at most `limit` (≥ 1) searches at once.
    pub(crate) fn new(limit: usize) -> BotPool {
        let limit = limit.max(1);
        BotPool {
            permits: Arc::new(Semaphore::new(limit)),
            limit,
        }
    }

    /// Searches running at most at once.
    #[allow(dead_code)]
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// Starts `strategy` choosing for `pos` on the blocking pool, if a search slot is
    /// free; otherwise gives the strategy back (`Err`), untouched. Never waits.
    pub(crate) fn think(
        &self,
        mut strategy: Strategy,
        pos: Position,
        rules: RuleSet,
    ) -> Result<oneshot::Receiver<Thought>, Strategy> {
        let permit: OwnedSemaphorePermit = match self.permits.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => return Err(strategy),
        };
        let (tx, rx) = oneshot::channel();
        tokio::task::spawn_blocking(move || {
            let plan = strategy.choose(&pos, &rules);
            drop(permit);
            let _ = tx.send(Thought { strategy, plan });
        });
        Ok(rx)
    }
}

/// Resolves when the search in `thinking` finishes (never while there is none).
pub(crate) async fn thought(
    thinking: &mut Option<Thinking>,
) -> Result<Thought, oneshot::error::RecvError> {
    match thinking {
        Some(t) => (&mut t.rx).await,
        None => std::future::pending().await,
    }
}

/// A new bot of `kind` with the search budgets of `config`.
pub(crate) fn configured(config: &crate::config::Config, kind: bot::BotKind) -> BotSeat {
    BotSeat::new(
        kind,
        rand::random(),
        Duration::from_millis(config.bot_budget_ms),
        config.bot_nodes,
    )
}

/// The bot kind that plays `level`.
pub fn kind_of(level: protocol::BotLevel) -> bot::BotKind {
    match level {
        protocol::BotLevel::Beginner => bot::BotKind::Beginner,
        protocol::BotLevel::Casual => bot::BotKind::Casual,
        protocol::BotLevel::Greedy => bot::BotKind::Greedy,
        protocol::BotLevel::Expert => bot::BotKind::Expert,
    }
}

/// The level `kind` plays at, shown on seats; `None` for `random` (not a level).
pub fn level_of(kind: bot::BotKind) -> Option<protocol::BotLevel> {
    match kind {
        bot::BotKind::Random => None,
        bot::BotKind::Beginner => Some(protocol::BotLevel::Beginner),
        bot::BotKind::Casual => Some(protocol::BotLevel::Casual),
        bot::BotKind::Greedy => Some(protocol::BotLevel::Greedy),
        bot::BotKind::Expert => Some(protocol::BotLevel::Expert),
    }
}
