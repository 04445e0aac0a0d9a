//! The write-behind writer: rooms hand it [`WriteOp`]s without waiting
//! ([`WriterHandle::send`] never blocks and never touches the database); one task
//! applies them in order, batching consecutive turn writes, and retries transient
//! failures with exponential backoff (the `backon` crate) until the database is back.
//!
//! Guarantees:
//! * Ops are applied in the order they were sent.
//! * An op that fails transiently ([`StoreError::is_transient`]) stays at the head of
//!   the queue and is retried forever (delays from `min_delay` doubling up to
//!   `max_delay`, with jitter); each failure is logged (`warn`) and counted in
//!   `ludo_persistence_retries_total`.
//! * Every store write is idempotent, so a retry after a lost acknowledgement never
//!   duplicates.
//! * An op that fails permanently (a caller bug: turns for a match never created, a
//!   seed that does not match its commitment) cannot succeed by retrying; it is
//!   logged (`error`), counted in `ludo_persistence_dropped_total` and skipped so it
//!   does not stall every later write. A failing turn batch is first re-tried op by
//!   op, so only the bad op is skipped.
//! * `ludo_persistence_backlog` (gauge) and [`WriterHandle::backlog`] count the ops
//!   sent and not yet written or skipped.

use crate::error::StoreError;
use crate::model::{MatchResult, NewMatch};
use crate::store::Store;
use backon::{ExponentialBuilder, Retryable};
use engine::TurnRecord;
use std::collections::VecDeque;
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use uuid::Uuid;

/// Gauge: ops sent to the writer and not yet written (or skipped).
pub const BACKLOG_GAUGE: &str = "ludo_persistence_backlog";
/// Counter: failed write attempts that will be retried.
pub const RETRIES_COUNTER: &str = "ludo_persistence_retries_total";
/// Counter: ops skipped after a permanent error (or sent after the writer stopped).
pub const DROPPED_COUNTER: &str = "ludo_persistence_dropped_total";

/// One write for the writer, applied in the order sent.
// Unboxed on purpose: each op is moved once into the queue, and callers build the
// variants directly (`WriteOp::CreateMatch(new_match)`).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum WriteOp {
    /// [`Store::create_match`].
    CreateMatch(NewMatch),
    /// [`Store::append_turns`]; consecutive `Turns` ops are written in one
    /// transaction.
    Turns {
        /// The match.
        match_id: Uuid,
        /// Resolved turns, in order.
        turns: Vec<TurnRecord>,
    },
    /// [`Store::finish_match`].
    Finish(MatchResult),
}

/// Retry and batching settings of the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterConfig {
    /// First retry delay after a transient failure (default 50 ms).
    pub min_delay: Duration,
    /// Longest retry delay (default 5 s).
    pub max_delay: Duration,
    /// Most `Turns` ops written in one transaction (default 256).
    pub max_batch: usize,
}

impl Default for WriterConfig {
    fn default() -> Self {
        WriterConfig {
            min_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(5),
            max_batch: 256,
        }
    }
}

/// Sends ops to the writer task. Clone freely; the task stops once every handle is
/// dropped and the queue is written.
#[derive(Debug, Clone)]
pub struct WriterHandle {
    tx: mpsc::UnboundedSender<WriteOp>,
    backlog: Arc<AtomicUsize>,
    sent: Arc<AtomicU64>,
    done: watch::Receiver<u64>,
}

/// Starts the writer task on the current Tokio runtime with [`WriterConfig::default`].
pub fn spawn_writer(store: Store) -> WriterHandle {
    spawn_writer_with(store, WriterConfig::default())
}

/// Starts the writer task on the current Tokio runtime with `config`.
pub fn spawn_writer_with(store: Store, config: WriterConfig) -> WriterHandle {
    let (tx, rx) = mpsc::unbounded_channel();
    let (done_tx, done) = watch::channel(0u64);
    let backlog = Arc::new(AtomicUsize::new(0));
    tokio::spawn(run(store, config, rx, backlog.clone(), done_tx));
    WriterHandle {
        tx,
        backlog,
        sent: Arc::new(AtomicU64::new(0)),
        done,
    }
}

impl WriterHandle {
    /// Queues `op` without waiting (unbounded queue). If the writer task has
    /// stopped (it panicked or the runtime is shutting down) the op is logged and
    /// counted in `ludo_persistence_dropped_total`.
    pub fn send(&self, op: WriteOp) {
        self.sent.fetch_add(1, Ordering::SeqCst);
        self.backlog.fetch_add(1, Ordering::SeqCst);
        publish(&self.backlog);
        if let Err(mpsc::error::SendError(op)) = self.tx.send(op) {
            self.backlog.fetch_sub(1, Ordering::SeqCst);
            publish(&self.backlog);
            metrics::counter!(DROPPED_COUNTER).increment(1);
            tracing::error!(op = op.label(), "persistence writer stopped; write dropped");
        }
    }

    /// Ops sent and not yet written (or skipped).
    pub fn backlog(&self) -> usize {
        self.backlog.load(Ordering::SeqCst)
    }

    /// Waits until every op sent before this call has been written (or skipped).
    /// Returns at once if the writer task has stopped. Waits as long as the
    /// database stays down: wrap it in a timeout for a bounded shutdown.
    pub async fn flush(&self) {
        let target = self.sent.load(Ordering::SeqCst);
        let mut done = self.done.clone();
        let _ = done.wait_for(|d| *d >= target).await;
    }
}

impl WriteOp {
    fn label(&self) -> &'static str {
        match self {
            WriteOp::CreateMatch(_) => "create_match",
            WriteOp::Turns { .. } => "turns",
            WriteOp::Finish(_) => "finish",
        }
    }

    fn match_id(&self) -> Uuid {
        match self {
            WriteOp::CreateMatch(m) => m.id,
            WriteOp::Turns { match_id, .. } => *match_id,
            WriteOp::Finish(r) => r.id,
        }
    }
}

fn publish(backlog: &AtomicUsize) {
    metrics::gauge!(BACKLOG_GAUGE).set(backlog.load(Ordering::SeqCst) as f64);
}

async fn run(
    store: Store,
    config: WriterConfig,
    mut rx: mpsc::UnboundedReceiver<WriteOp>,
    backlog: Arc<AtomicUsize>,
    done_tx: watch::Sender<u64>,
) {
    let mut queue = VecDeque::new();
    let mut done = 0u64;
    loop {
        if queue.is_empty() {
            match rx.recv().await {
                Some(op) => queue.push_back(op),
                None => break,
            }
        }
        while let Ok(op) = rx.try_recv() {
            queue.push_back(op);
        }
        let batch = next_batch(&mut queue, config.max_batch.max(1));
        let n = batch.len();
        write_batch(&store, &config, batch).await;
        done += n as u64;
        backlog.fetch_sub(n, Ordering::SeqCst);
        publish(&backlog);
        done_tx.send_replace(done);
    }
}

/// Takes the head op, plus the `Turns` ops right behind a `Turns` head (at most
/// `max` in all).
fn next_batch(queue: &mut VecDeque<WriteOp>, max: usize) -> Vec<WriteOp> {
    let mut batch: Vec<WriteOp> = queue.pop_front().into_iter().collect();
    if matches!(batch.first(), Some(WriteOp::Turns { .. })) {
        while batch.len() < max && matches!(queue.front(), Some(WriteOp::Turns { .. })) {
            batch.extend(queue.pop_front());
        }
    }
    batch
}

/// Merges consecutive turn writes of the same match.
fn merge_turns(ops: &[WriteOp]) -> Vec<(Uuid, Vec<TurnRecord>)> {
    let mut out: Vec<(Uuid, Vec<TurnRecord>)> = Vec::new();
    for op in ops {
        if let WriteOp::Turns { match_id, turns } = op {
            match out.last_mut() {
                Some((id, ts)) if id == match_id => ts.extend(turns.iter().cloned()),
                _ => out.push((*match_id, turns.clone())),
            }
        }
    }
    out
}

async fn write_batch(store: &Store, config: &WriterConfig, batch: Vec<WriteOp>) {
    if batch.len() > 1 {
        let merged = merge_turns(&batch);
        let res = retrying(config, "turns", || store.append_turn_batches(&merged)).await;
        match res {
            Ok(()) => return,
            Err(e) => tracing::warn!(error = ?e, ops = batch.len(),
                "turn batch failed permanently; writing its ops one by one"),
        }
    }
    for op in &batch {
        let res = retrying(config, op.label(), || apply(store, op)).await;
        if let Err(e) = res {
            metrics::counter!(DROPPED_COUNTER).increment(1);
            tracing::error!(error = ?e, op = op.label(), match_id = %op.match_id(),
                "write failed permanently; skipped");
        }
    }
}

async fn apply(store: &Store, op: &WriteOp) -> Result<(), StoreError> {
    match op {
        WriteOp::CreateMatch(m) => store.create_match(m).await,
        WriteOp::Turns { match_id, turns } => store.append_turns(*match_id, turns).await,
        WriteOp::Finish(r) => store.finish_match(r).await,
    }
}

/// Runs `write` until it succeeds or fails permanently, sleeping with exponential
/// backoff after each transient failure.
async fn retrying<F, Fut>(config: &WriterConfig, what: &str, write: F) -> Result<(), StoreError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), StoreError>>,
{
    let backoff = ExponentialBuilder::default()
        .with_min_delay(config.min_delay)
        .with_max_delay(config.max_delay)
        .with_factor(2.0)
        .with_jitter()
        .without_max_times();
    write
        .retry(backoff)
        .sleep(tokio::time::sleep)
        .when(StoreError::is_transient)
        .notify(|e: &StoreError, delay: Duration| {
            metrics::counter!(RETRIES_COUNTER).increment(1);
            tracing::warn!(error = ?e, op = what, retry_in_ms = delay.as_millis() as u64,
                "persistence write failed; will retry");
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns(match_id: u128) -> WriteOp {
        WriteOp::Turns {
            match_id: Uuid::from_u128(match_id),
            turns: Vec::new(),
        }
    }

    fn finish() -> WriteOp {
        WriteOp::Finish(MatchResult {
            id: Uuid::nil(),
            seed: engine::Seed([0; 32]),
            ended_at: chrono::DateTime::UNIX_EPOCH,
            reason: engine::EndReason::Clock,
            standings: Vec::new(),
        })
    }

    #[test]
    fn batches_take_consecutive_turn_ops_only() {
        let mut q: VecDeque<WriteOp> = [turns(1), turns(2), finish(), turns(3), finish()]
            .into_iter()
            .collect();
        let labels = |b: Vec<WriteOp>| b.iter().map(WriteOp::label).collect::<Vec<_>>();
        assert_eq!(labels(next_batch(&mut q, 10)), ["turns", "turns"]);
        assert_eq!(labels(next_batch(&mut q, 10)), ["finish"]);
        assert_eq!(labels(next_batch(&mut q, 10)), ["turns"]);
        assert_eq!(labels(next_batch(&mut q, 10)), ["finish"]);
        assert!(next_batch(&mut q, 10).is_empty());
    }

    #[test]
    fn batches_are_capped_at_max() {
        let mut q: VecDeque<WriteOp> = [turns(1), turns(2), turns(3)].into_iter().collect();
        assert_eq!(next_batch(&mut q, 2).len(), 2);
        assert_eq!(next_batch(&mut q, 2).len(), 1);
    }

    #[test]
    fn merging_joins_runs_of_the_same_match_in_order() {
        let merged = merge_turns(&[turns(1), turns(1), turns(2), turns(1)]);
        let ids: Vec<u128> = merged.iter().map(|(id, _)| id.as_u128()).collect();
        assert_eq!(ids, vec![1, 2, 1]);
    }
}
