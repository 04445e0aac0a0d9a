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
    /// A new bot of `kind`, its generator seeded with `seed`; an expert searches
    /// within `budget` per decision.
    pub(crate) fn new(kind: bot::BotKind, seed: u64, budget: SearchBudget) -> BotSeat {
        let strategy: Strategy = if kind.searches() {
            let nodes = |n: usize| if n == 0 { usize::MAX } else { n };
            Box::new(bot::ExpertBot::with_config(
                seed,
                bot::ExpertConfig {
                    time_budget: Some(budget.time),
                    node_budget: nodes(budget.nodes),
                    journey_node_budget: nodes(budget.journey_nodes),
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

/// An expert's search budgets per decision: the search stops at whichever runs out
/// first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SearchBudget {
    /// Wall clock (`--bot-budget-ms`).
    pub time: Duration,
    /// Plans played in a clash decision (`--bot-nodes`; 0: the wall clock alone).
    pub nodes: usize,
    /// Plans played in a journey decision (`--bot-journey-nodes`; 0: the wall clock
    /// alone).
    pub journey_nodes: usize,
}

impl SearchBudget {
    /// The budgets `config` sets.
    pub(crate) fn of(config: &crate::config::Config) -> SearchBudget {
        SearchBudget {
            time: Duration::from_millis(config.bot_budget_ms),
            nodes: config.bot_nodes,
            journey_nodes: config.bot_journey_nodes,
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
    BotSeat::new(kind, rand::random(), SearchBudget::of(config))
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
