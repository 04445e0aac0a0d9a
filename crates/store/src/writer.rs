//! The persistence writer with group commit. Rooms hand it [`WriteOp`]s without
//! waiting ([`WriterHandle::send`] never blocks and never touches the database) and
//! get back a [`Committed`] receiver that resolves once the op is durable: a room
//! shows a turn to clients only then ("durable before visible"). One task applies the
//! ops in order and commits them in groups: a commit waits until its oldest op was
//! sent [`WriterConfig::commit_window`] ago, so ops of many rooms share ONE
//! transaction at every load, and an op that queued up while the previous commit ran
//! has already waited that long and waits no more. On an SQLite file a batch of
//! turns only (every commit of a running server) is appended on the turn log's own
//! thread over its own connection (`turn_log`): the event loop only hands it over
//! and wakes for the answer. Any other batch is written through sqlx.
//!
//! Guarantees:
//! * Ops are applied in the order they were sent; each batch is all or nothing.
//! * No op is ever skipped, except by fencing (cluster mode, [`spawn_writer_fenced`]:
//!   an op of a match another node owns now is never written). A batch that fails is retried until it succeeds (delays
//!   from `min_delay` doubling up to `max_delay`, with jitter; the `backon` crate),
//!   whatever the error: a transient one (database down, refusing connections,
//!   renamed away) is a `warn`; any other is an `error` and counted in
//!   `ludo_persistence_failures_total`, and [`WriterHandle::is_failing`] is true until
//!   a commit succeeds again (`/readyz` answers 503 meanwhile). Every retry is
//!   counted in `ludo_persistence_retries_total`.
//! * Every store write is idempotent, so a retry after a lost acknowledgement never
//!   duplicates.
//! * Bounded: [`WriterHandle::accepting_new_matches`] is false while the writer is
//!   failing or its backlog exceeds [`WriterConfig::max_backlog`]; the server then
//!   starts no new match. A running room has at most one turn (plus its chat lines)
//!   waiting for its commit — it resolves nothing more until that turn is visible —
//!   so the queue is bounded by the rooms running, which admission keeps bounded.
//! * `ludo_persistence_backlog` (gauge) and [`WriterHandle::backlog`] count the ops
//!   sent and not yet written.

use crate::error::StoreError;
use crate::lease::Leases;
use crate::model::{ChatEntry, LoggedTurn, MatchResult, NewMatch};
use crate::store::Store;
use crate::turn_log::{TurnLog, TurnLogWorker};
use backon::{ExponentialBuilder, Retryable};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use uuid::Uuid;

/// Gauge: ops sent to the writer and not yet written.
pub const BACKLOG_GAUGE: &str = "ludo_persistence_backlog";
/// Counter: failed write attempts (each will be retried).
pub const RETRIES_COUNTER: &str = "ludo_persistence_retries_total";
/// Counter: failed write attempts whose error was not a transient one (a bug or a
/// damaged schema: loud, and still retried).
pub const FAILURES_COUNTER: &str = "ludo_persistence_failures_total";
/// Counter: ops sent after the writer task stopped (the runtime is shutting down).
/// Such an op was never acknowledged, so nobody has seen what it carries.
pub const DROPPED_COUNTER: &str = "ludo_persistence_dropped_total";
/// Histogram: seconds from the first op of a batch being queued to its commit.
pub const COMMIT_SECONDS: &str = "ludo_persistence_commit_seconds";
/// Histogram: ops per committed batch.
pub const BATCH_OPS: &str = "ludo_persistence_batch_ops";
/// Counter: ops skipped because their match's fencing token was no longer current
/// (cluster mode: another node owns the match now).
pub const FENCED_COUNTER: &str = "ludo_persistence_fenced_total";

/// Resolves with `Ok(())` once the op it was returned for is committed; with an error
/// only if the writer stopped first (then the op may not be durable: do not show it).
pub type Committed = oneshot::Receiver<()>;

/// One write for the writer, applied in the order sent.
// Unboxed on purpose: each op is moved once into the queue, and callers build the
// variants directly (`WriteOp::CreateMatch(new_match)`).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum WriteOp {
    /// A match as it starts: seats, commitment and the secret seed
    /// ([`Store::create_match`]).
    CreateMatch(NewMatch),
    /// Resolved turns of one match, in order, with their `seq` and clock use.
    Turns {
        /// The match.
        match_id: Uuid,
        /// Resolved turns, in order.
        turns: Vec<LoggedTurn>,
    },
    /// A chat line of a match.
    Chat(ChatEntry),
    /// A seat's player left the match (a bot plays it from then on).
    Leave {
        /// The match.
        match_id: Uuid,
        /// The seat left.
        seat: engine::Seat,
        /// `seq` of the `seat_left` message.
        seq: u64,
    },
    /// The result ([`Store::finish_match`]).
    Finish(MatchResult),
    /// Dice contributions of a match of scheme `contributed` (proto/README.md §10):
    /// a player's contribution as it is accepted, or, with `sealed_seq`, the seal:
    /// every seat's contribution (the defaults included) and the `seq` of the
    /// `dice_sealed` message. A seat stored already keeps its row.
    Contributions {
        /// The match.
        match_id: Uuid,
        /// The contributions to store.
        contributions: Vec<engine::Contribution>,
        /// `seq` of `dice_sealed` when this write seals the dice.
        sealed_seq: Option<u64>,
    },
}

/// Retry, batching and admission settings of the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterConfig {
    /// First retry delay after a failure (default 50 ms).
    pub min_delay: Duration,
    /// Longest retry delay (default 500 ms; with jitter a retry waits up to twice
    /// that): how long after a database outage ends the held turns may still wait
    /// for their commit (issue 34.4).
    pub max_delay: Duration,
    /// Most ops written in one transaction (default 1,024).
    pub max_batch: usize,
    /// Group-commit window: a commit waits until its oldest op was sent this long
    /// ago, so ops of other rooms join the same transaction (default 2 ms; zero
    /// commits at once). Counted from the send, not from when the writer took the
    /// op: an op that waited for the commit before it waits no longer than the
    /// window (issue 14: p99 submit→`turn_resolved`).
    pub commit_window: Duration,
    /// Backlog (ops) above which no new match is started (default 20,000).
    pub max_backlog: usize,
}

impl Default for WriterConfig {
    fn default() -> Self {
        WriterConfig {
            min_delay: Duration::from_millis(50),
            max_delay: Duration::from_millis(500),
            max_batch: 1024,
            commit_window: Duration::from_millis(2),
            max_backlog: 20_000,
        }
    }
}

struct Job {
    op: WriteOp,
    /// When it was sent: its commit waits until `sent + commit_window`.
    sent: tokio::time::Instant,
    done: oneshot::Sender<()>,
    /// The fencing token the op was sent with (fenced writers only).
    token: i64,
}

#[derive(Debug, Default)]
struct Shared {
    backlog: AtomicUsize,
    sent: AtomicU64,
    failing: AtomicBool,
}

/// Sends ops to the writer task. Clone freely; the task stops once every handle is
/// dropped and the queue is written.
#[derive(Debug, Clone)]
pub struct WriterHandle {
    tx: mpsc::UnboundedSender<Job>,
    /// Cluster mode: the node's leases; each op is stamped with its match's token.
    leases: Option<Arc<Leases>>,
    shared: Arc<Shared>,
    max_backlog: usize,
    done: watch::Receiver<u64>,
}

/// Starts the writer task on the current Tokio runtime with [`WriterConfig::default`].
pub fn spawn_writer(store: Store) -> WriterHandle {
    spawn_writer_with(store, WriterConfig::default())
}

/// Starts the writer task on the current Tokio runtime with `config`.
pub fn spawn_writer_with(store: Store, config: WriterConfig) -> WriterHandle {
    spawn(store, config, None)
}

/// Starts a *fenced* writer (cluster mode, PostgreSQL) on the current Tokio runtime:
/// every op is stamped, when sent, with the fencing token `leases` holds for its
/// match (a new match takes token 1), and each transaction skips the ops whose token
/// is no longer current ([`crate::lease`]). A skipped op's [`Committed`] resolves
/// with an error (as if the writer had stopped: its room must not show it and
/// stops), the match is forgotten from `leases`, and it is counted in
/// [`FENCED_COUNTER`]. A match's result forgets it from `leases` once committed.
pub fn spawn_writer_fenced(
    store: Store,
    config: WriterConfig,
    leases: Arc<Leases>,
) -> WriterHandle {
    spawn(store, config, Some(leases))
}

fn spawn(store: Store, config: WriterConfig, leases: Option<Arc<Leases>>) -> WriterHandle {
    let (tx, rx) = mpsc::unbounded_channel();
    let (done_tx, done) = watch::channel(0u64);
    let shared = Arc::new(Shared::default());
    // An SQLite file, not fenced: batches of turns go to the turn log's thread.
    let turn_log = match (&leases, &store.sqlite_file) {
        (None, Some(file)) => match TurnLogWorker::start(file.clone()) {
            Ok(worker) => Some(worker),
            Err(e) => {
                tracing::warn!(error = %e, "cannot start the turn log's thread; writing turns through sqlx");
                None
            }
        },
        _ => None,
    };
    tokio::spawn(run(
        store,
        config,
        rx,
        shared.clone(),
        done_tx,
        leases.clone(),
        turn_log,
    ));
    WriterHandle {
        tx,
        leases,
        shared,
        max_backlog: config.max_backlog,
        done,
    }
}

impl WriterHandle {
    /// Queues `op` without waiting and returns the receiver that resolves once it is
    /// committed. If the writer task has stopped (the runtime is shutting down) the
    /// op is logged and counted in `ludo_persistence_dropped_total`, and the receiver
    /// resolves with an error at once.
    pub fn send(&self, op: WriteOp) -> Committed {
        let (done, committed) = oneshot::channel();
        let token = self.leases.as_ref().map_or(0, |l| l.stamp(&op));
        self.shared.sent.fetch_add(1, Ordering::SeqCst);
        self.shared.backlog.fetch_add(1, Ordering::SeqCst);
        publish(&self.shared.backlog);
        if let Err(mpsc::error::SendError(job)) = self.tx.send(Job {
            op,
            done,
            token,
            sent: tokio::time::Instant::now(),
        }) {
            self.shared.backlog.fetch_sub(1, Ordering::SeqCst);
            publish(&self.shared.backlog);
            metrics::counter!(DROPPED_COUNTER).increment(1);
            tracing::error!(
                op = job.op.label(),
                "persistence writer stopped; write not stored"
            );
        }
        committed
    }

    /// Ops sent and not yet written.
    pub fn backlog(&self) -> usize {
        self.shared.backlog.load(Ordering::SeqCst)
    }

    /// True while the last commit attempt failed (the writer is retrying it).
    pub fn is_failing(&self) -> bool {
        self.shared.failing.load(Ordering::SeqCst)
    }

    /// True when the store keeps up: not failing and the backlog is at most
    /// [`WriterConfig::max_backlog`]. The server starts new matches only then.
    pub fn accepting_new_matches(&self) -> bool {
        !self.is_failing() && self.backlog() <= self.max_backlog
    }

    /// Waits until every op sent before this call has been written. Returns at once
    /// if the writer task has stopped. Waits as long as the database stays down:
    /// wrap it in a timeout for a bounded shutdown.
    pub async fn flush(&self) {
        let target = self.shared.sent.load(Ordering::SeqCst);
        let mut done = self.done.clone();
        let _ = done.wait_for(|d| *d >= target).await;
    }
}

impl WriteOp {
    fn label(&self) -> &'static str {
        match self {
            WriteOp::CreateMatch(_) => "create_match",
            WriteOp::Turns { .. } => "turns",
            WriteOp::Chat(_) => "chat",
            WriteOp::Leave { .. } => "leave",
            WriteOp::Finish(_) => "finish",
            WriteOp::Contributions { .. } => "contributions",
        }
    }

    /// The match the op writes to.
    pub fn match_id(&self) -> Uuid {
        match self {
            WriteOp::CreateMatch(m) => m.id,
            WriteOp::Turns { match_id, .. } => *match_id,
            WriteOp::Chat(c) => c.match_id,
            WriteOp::Leave { match_id, .. } => *match_id,
            WriteOp::Finish(r) => r.id,
            WriteOp::Contributions { match_id, .. } => *match_id,
        }
    }
}

fn publish(backlog: &AtomicUsize) {
    metrics::gauge!(BACKLOG_GAUGE).set(backlog.load(Ordering::SeqCst) as f64);
}

async fn run(
    store: Store,
    config: WriterConfig,
    mut rx: mpsc::UnboundedReceiver<Job>,
    shared: Arc<Shared>,
    done_tx: watch::Sender<u64>,
    leases: Option<Arc<Leases>>,
    turn_log: Option<TurnLogWorker>,
) {
    let max = config.max_batch.max(1);
    let mut window = Window::new();
    let mut queue: Vec<Job> = Vec::new();
    let mut done = 0u64;
    loop {
        if queue.is_empty() {
            let first = match rx.try_recv() {
                Ok(job) => job,
                Err(mpsc::error::TryRecvError::Empty) => match rx.recv().await {
                    Some(job) => job,
                    None => break,
                },
                Err(mpsc::error::TryRecvError::Disconnected) => break,
            };
            // Give other rooms' ops the rest of the first op's window to join.
            let until = first.sent + config.commit_window;
            queue.push(first);
            window.wait_until(until).await;
        }
        while queue.len() < max {
            match rx.try_recv() {
                Ok(job) => queue.push(job),
                Err(_) => break,
            }
        }
        let rest = if queue.len() > max {
            queue.split_off(max)
        } else {
            Vec::new()
        };
        let batch = std::mem::replace(&mut queue, rest);
        let n = batch.len();
        let started = std::time::Instant::now();
        let tokens: Vec<i64> = batch.iter().map(|j| j.token).collect();
        let (ops, dones): (Vec<WriteOp>, Vec<oneshot::Sender<()>>) =
            batch.into_iter().map(|j| (j.op, j.done)).unzip();
        let ops = Arc::new(ops);
        let fence = leases.as_deref().map(|l| (l, tokens.as_slice()));
        let turn_log = turn_log.as_ref().filter(|_| TurnLog::takes(&ops));
        let skipped = commit(&store, turn_log, &config, &shared, &ops, fence).await;
        metrics::histogram!(COMMIT_SECONDS).record(started.elapsed().as_secs_f64());
        metrics::histogram!(BATCH_OPS).record(n as f64);
        for (i, d) in dones.into_iter().enumerate() {
            let (op, token) = (&ops[i], tokens[i]);
            if skipped.get(i).copied().unwrap_or(false) {
                // Fenced: another node owns the match now. Dropping `d` tells the
                // room its write is not durable: it shows nothing and stops.
                metrics::counter!(FENCED_COUNTER).increment(1);
                if let Some(l) = &leases {
                    if l.forget(op.match_id(), token) {
                        tracing::warn!(match_id = %op.match_id(), token, op = op.label(),
                            "write fenced: another node owns the match now; not written");
                    }
                }
                continue;
            }
            match (&leases, op) {
                (Some(l), WriteOp::Finish(r)) => {
                    l.forget(r.id, token);
                }
                (Some(l), WriteOp::CreateMatch(m)) => l.created(m.id),
                _ => {}
            }
            let _ = d.send(()); // a room that stopped no longer waits
        }
        done += n as u64;
        shared.backlog.fetch_sub(n, Ordering::SeqCst);
        publish(&shared.backlog);
        done_tx.send_replace(done);
    }
}

/// The wait of a group-commit window. On Linux a timerfd, reused from one window to
/// the next, wakes the event loop within microseconds of the deadline; Tokio's own
/// timer works in whole milliseconds and rounds up twice (the deadline to the next
/// tick, then the `epoll_wait` timeout), so a 2 ms window lasted 2 to 4 ms. Tokio's
/// timer runs beside it, so that a test that pauses Tokio's clock still moves the
/// window on. Elsewhere, or if no timerfd can be made, Tokio's timer alone.
struct Window {
    #[cfg(target_os = "linux")]
    fd: Option<tokio_timerfd::Delay>,
}

impl Window {
    fn new() -> Window {
        Window {
            #[cfg(target_os = "linux")]
            fd: tokio_timerfd::Delay::new(std::time::Instant::now()).ok(),
        }
    }

    /// Returns at `until` (at once if it has passed).
    async fn wait_until(&mut self, until: tokio::time::Instant) {
        let now = tokio::time::Instant::now();
        if until <= now {
            return;
        }
        #[cfg(target_os = "linux")]
        if let Some(fd) = self.fd.as_mut() {
            fd.reset(std::time::Instant::now() + (until - now));
            // Whichever ends first: the timerfd, on time to the microsecond, or
            // Tokio's timer, which alone follows a paused test clock (re-arming the
            // timerfd next time clears an expiry nobody waited for).
            tokio::select! {
                biased;
                r = &mut *fd => if r.is_ok() { return },
                () = tokio::time::sleep_until(until) => return,
            }
        }
        tokio::time::sleep_until(until).await;
    }
}

/// Writes `ops` in one transaction, retrying (forever) until it commits: on the turn
/// log's thread when `turn_log` is given (a batch of turns only), else through
/// sqlx. Returns, per op, true when fencing skipped it.
async fn commit(
    store: &Store,
    turn_log: Option<&TurnLogWorker>,
    config: &WriterConfig,
    shared: &Shared,
    ops: &Arc<Vec<WriteOp>>,
    fence: Option<(&Leases, &[i64])>,
) -> Vec<bool> {
    let backoff = ExponentialBuilder::default()
        .with_min_delay(config.min_delay)
        .with_max_delay(config.max_delay)
        .with_factor(2.0)
        .with_jitter()
        .without_max_times();
    let res = (|| async {
        match turn_log {
            Some(log) => log.append(ops.clone()).await.map(|()| Vec::new()),
            None => store.apply_batch_fenced(ops, fence).await,
        }
    })
    .retry(backoff)
    .sleep(tokio::time::sleep)
    .when(|_| true)
    .notify(|e: &StoreError, delay: Duration| {
        shared.failing.store(true, Ordering::SeqCst);
        metrics::counter!(RETRIES_COUNTER).increment(1);
        let retry_in_ms = delay.as_millis() as u64;
        if e.is_transient() {
            tracing::warn!(error = ?e, ops = ops.len(), retry_in_ms,
                "store unavailable; the batch is kept and retried");
        } else {
            metrics::counter!(FAILURES_COUNTER).increment(1);
            tracing::error!(error = ?e, ops = ops.len(), retry_in_ms,
                first_match = %ops.first().map(WriteOp::match_id).unwrap_or_default(),
                "write failed with a non-transient error; the batch is kept and retried");
        }
    })
    .await;
    // Retried without limit and on every error: it only returns once committed.
    debug_assert!(res.is_ok());
    shared.failing.store(false, Ordering::SeqCst);
    res.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NewMatch, SeatEntry};
    use engine::{Mode, RuleSet, Seat, Seed, TurnKind, TurnRecord};

    fn new_match(id: Uuid) -> NewMatch {
        let seed = Seed([7; 32]);
        NewMatch {
            id,
            mode: Mode::Clash,
            rules: RuleSet::default(),
            dice_commitment: seed.commitment(),
            started_at: chrono::Utc::now(),
            seats: Seat::ALL
                .iter()
                .map(|&seat| SeatEntry {
                    seat,
                    player_id: None,
                    is_bot: true,
                    name: format!("Bot {}", seat.name()),
                    bot_level: Some("greedy".into()),
                })
                .collect(),
            secret_seed: Some(seed),
            dice_scheme: engine::DiceScheme::ServerSeed,
        }
    }

    fn turn(id: Uuid, n: u32, seq: u64) -> WriteOp {
        WriteOp::Turns {
            match_id: id,
            turns: vec![LoggedTurn {
                record: TurnRecord {
                    turn_number: n,
                    seat: Seat::Green,
                    dice: vec![1, 2],
                    kind: TurnKind::Timeout,
                    plan: engine::Plan::pass(),
                    events: Vec::new(),
                },
                seq,
                clock_ms: 1_000 * u64::from(n),
            }],
        }
    }

    async fn within<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
        tokio::time::timeout(Duration::from_secs(20), f)
            .await
            .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
    }

    /// Durable before visible: `Committed` resolves only after the op is readable,
    /// and ops sent together share a commit.
    #[tokio::test]
    async fn committed_resolves_once_the_op_is_stored() {
        let store = Store::connect(Some("sqlite::memory:")).await.unwrap();
        let w = spawn_writer(store.clone());
        let id = Uuid::new_v4();
        let a = w.send(WriteOp::CreateMatch(new_match(id)));
        let b = w.send(turn(id, 1, 3));
        within("the create", a).await.unwrap();
        within("the turn", b).await.unwrap();
        let running = store.running_matches().await.unwrap();
        assert_eq!(running.len(), 1);
        assert_eq!(running[0].secret_seed, Some(Seed([7; 32])));
        assert_eq!(running[0].turns.len(), 1);
        assert_eq!(running[0].turns[0].seq, 3);
        assert_eq!(running[0].turns[0].clock_ms, 1_000);
        assert_eq!(w.backlog(), 0);
    }

    /// Never skip a write: a batch that fails with a non-transient error (turns of a
    /// match not stored yet: a foreign-key violation) is kept, the writer reports
    /// failing and stops admitting matches, and the batch commits once it can.
    #[tokio::test]
    async fn a_failing_write_is_kept_and_retried_until_it_commits() {
        let store = Store::connect(Some("sqlite::memory:")).await.unwrap();
        let w = spawn_writer_with(
            store.clone(),
            WriterConfig {
                min_delay: Duration::from_millis(5),
                max_delay: Duration::from_millis(20),
                ..WriterConfig::default()
            },
        );
        let id = Uuid::new_v4();
        let mut pending = w.send(turn(id, 1, 3));
        within("the writer to report failing", async {
            while !w.is_failing() {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
        .await;
        assert!(
            !w.accepting_new_matches(),
            "no new match while the store fails"
        );
        assert_eq!(w.backlog(), 1, "the failing op is kept");
        assert!(pending.try_recv().is_err(), "not committed yet");
        store.create_match(&new_match(id)).await.unwrap();
        within("the retried commit", pending).await.unwrap();
        assert!(!w.is_failing());
        assert!(w.accepting_new_matches());
        assert_eq!(store.running_matches().await.unwrap()[0].turns.len(), 1);
    }
}
