//! Counters shared by many player tasks: turns, matches, submit→`turn_resolved`
//! latency (an HDR histogram in microseconds), errors by code, reconnects, plans
//! re-sent after a reconnect, connections held.

use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Duration;

/// Highest latency the histogram records exactly, in microseconds (60 s); longer
/// ones are clamped to it.
const MAX_LATENCY_US: u64 = 60_000_000;

/// Live counters, updated by every player task (lock-free except the histogram and
/// the error map, each behind its own mutex).
#[derive(Debug)]
pub struct Stats {
    submits: AtomicU64,
    turns: AtomicU64,
    matches_started: AtomicU64,
    matches_completed: AtomicU64,
    connections: AtomicU64,
    connections_peak: AtomicU64,
    gaps: AtomicU64,
    reconnects: AtomicU64,
    resent: AtomicU64,
    resent_stale: AtomicU64,
    latency: Mutex<Histogram<u64>>,
    errors: Mutex<BTreeMap<String, u64>>,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            submits: AtomicU64::new(0),
            turns: AtomicU64::new(0),
            matches_started: AtomicU64::new(0),
            matches_completed: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            connections_peak: AtomicU64::new(0),
            gaps: AtomicU64::new(0),
            reconnects: AtomicU64::new(0),
            resent: AtomicU64::new(0),
            resent_stale: AtomicU64::new(0),
            latency: Mutex::new(
                Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("valid histogram bounds"),
            ),
            errors: Mutex::new(BTreeMap::new()),
        }
    }
}

/// Latency percentiles, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencySummary {
    /// Samples recorded.
    pub count: u64,
    /// Median, ms.
    pub p50_ms: f64,
    /// 95th percentile, ms.
    pub p95_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Largest sample, ms.
    pub max_ms: f64,
    /// Mean, ms.
    pub mean_ms: f64,
}

/// A copy of the counters at one moment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsSnapshot {
    /// Plans and passes submitted (a plan re-sent unchanged after a reconnect is
    /// counted in `resent`, not again here).
    pub submits: u64,
    /// Turns resolved (counted once per match).
    pub turns: u64,
    /// Matches started.
    pub matches_started: u64,
    /// Matches that reached `match_ended` (counted once per match).
    pub matches_completed: u64,
    /// Authenticated sockets open now.
    pub connections: u64,
    /// Most authenticated sockets open at once.
    pub connections_peak: u64,
    /// `seq` gaps detected (each answered by a `resync`).
    pub seq_gaps: u64,
    /// Sockets lost during a match (closed by the server, e.g. 1012 moved or 1001
    /// shutting down, or broken) and replaced by a new one that rejoined the match.
    /// Not errors.
    pub reconnects: u64,
    /// Plans (and passes) sent again, unchanged, after a reconnect because the
    /// server had not acknowledged them and still showed that turn as the client's
    /// to play (proto/README.md §6.1: "If you had submitted a plan that was never
    /// acknowledged, submit it again for the turn the snapshot shows.").
    pub resent: u64,
    /// Of `resent`, those the server answered with `stale_turn`: the first send had
    /// been accepted after all (its `ack` lost with the old socket) or the turn had
    /// ended meanwhile. Expected, so not in `errors`; the server's own error count
    /// (`/metrics`) does include them.
    pub resent_stale: u64,
    /// submit → own `turn_resolved` latency, when any was recorded. A plan whose
    /// socket was lost before its `turn_resolved` counts from its first send, so the
    /// reconnect (and any re-send) is part of its latency.
    pub latency: Option<LatencySummary>,
    /// Errors by code: the server's error codes, plus client-side kinds
    /// (`websocket`, `closed`, `timeout`, `desync`, `http` …). A re-sent plan's
    /// `stale_turn` is not among them (see `resent_stale`).
    pub errors: BTreeMap<String, u64>,
}

impl StatsSnapshot {
    /// Sum of all errors.
    pub fn error_total(&self) -> u64 {
        self.errors.values().sum()
    }
}

impl Stats {
    /// A plan or pass was sent.
    pub fn submitted(&self) {
        self.submits.fetch_add(1, Relaxed);
    }
    /// The own `turn_resolved` came `latency` after the submit.
    pub fn resolved(&self, latency: Duration) {
        let us = (latency.as_micros() as u64).clamp(1, MAX_LATENCY_US);
        self.latency
            .lock()
            .expect("latency lock")
            .record(us)
            .expect("clamped into the histogram's range");
    }
    /// A turn was resolved.
    pub fn turn(&self) {
        self.turns.fetch_add(1, Relaxed);
    }
    /// A match started.
    pub fn match_started(&self) {
        self.matches_started.fetch_add(1, Relaxed);
    }
    /// A match ended.
    pub fn match_completed(&self) {
        self.matches_completed.fetch_add(1, Relaxed);
    }
    /// A `seq` gap was detected.
    pub fn gap(&self) {
        self.gaps.fetch_add(1, Relaxed);
    }
    /// A socket was lost during a match and a new one rejoined it.
    pub fn reconnected(&self) {
        self.reconnects.fetch_add(1, Relaxed);
    }
    /// A plan that was never acknowledged was sent again after a reconnect (see
    /// [`StatsSnapshot::resent`]).
    pub fn resent(&self) {
        self.resent.fetch_add(1, Relaxed);
    }
    /// A re-sent plan was answered with `stale_turn` (see
    /// [`StatsSnapshot::resent_stale`]); not an error.
    pub fn resent_stale(&self) {
        self.resent_stale.fetch_add(1, Relaxed);
    }
    /// An error of kind `label` (a server error code or a client-side kind).
    pub fn error(&self, label: &str) {
        *self
            .errors
            .lock()
            .expect("errors lock")
            .entry(label.to_string())
            .or_default() += 1;
    }
    /// An authenticated socket opened.
    pub fn connected(&self) {
        let now = self.connections.fetch_add(1, Relaxed) + 1;
        self.connections_peak.fetch_max(now, Relaxed);
    }
    /// An authenticated socket closed.
    pub fn disconnected(&self) {
        self.connections.fetch_sub(1, Relaxed);
    }
    /// Matches completed so far.
    pub fn completed(&self) -> u64 {
        self.matches_completed.load(Relaxed)
    }
    /// Matches started so far.
    pub fn started(&self) -> u64 {
        self.matches_started.load(Relaxed)
    }

    /// A copy of every counter now.
    pub fn snapshot(&self) -> StatsSnapshot {
        let h = self.latency.lock().expect("latency lock");
        let ms = |us: u64| us as f64 / 1000.0;
        let latency = (!h.is_empty()).then(|| LatencySummary {
            count: h.len(),
            p50_ms: ms(h.value_at_quantile(0.50)),
            p95_ms: ms(h.value_at_quantile(0.95)),
            p99_ms: ms(h.value_at_quantile(0.99)),
            max_ms: ms(h.max()),
            mean_ms: h.mean() / 1000.0,
        });
        StatsSnapshot {
            submits: self.submits.load(Relaxed),
            turns: self.turns.load(Relaxed),
            matches_started: self.matches_started.load(Relaxed),
            matches_completed: self.matches_completed.load(Relaxed),
            connections: self.connections.load(Relaxed),
            connections_peak: self.connections_peak.load(Relaxed),
            seq_gaps: self.gaps.load(Relaxed),
            reconnects: self.reconnects.load(Relaxed),
            resent: self.resent.load(Relaxed),
            resent_stale: self.resent_stale.load(Relaxed),
            latency,
            errors: self.errors.lock().expect("errors lock").clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_one_to_hundred_ms() {
        let s = Stats::default();
        for i in 1..=100u64 {
            s.resolved(Duration::from_millis(i));
        }
        let l = s.snapshot().latency.unwrap();
        assert_eq!(l.count, 100);
        // 3 significant digits: values are exact to within 0.1 %.
        assert!((l.p50_ms - 50.0).abs() < 0.1, "{l:?}");
        assert!((l.p95_ms - 95.0).abs() < 0.1, "{l:?}");
        assert!((l.p99_ms - 99.0).abs() < 0.1, "{l:?}");
        assert!((l.max_ms - 100.0).abs() < 0.1, "{l:?}");
        assert!((l.mean_ms - 50.5).abs() < 0.1, "{l:?}");
    }

    #[test]
    fn no_samples_no_latency_and_errors_count_by_label() {
        let s = Stats::default();
        s.error("stale_turn");
        s.error("stale_turn");
        s.error("closed");
        s.reconnected();
        s.resent();
        s.resent_stale();
        let snap = s.snapshot();
        assert_eq!(snap.reconnects, 1, "counted apart from errors");
        assert_eq!(
            (snap.resent, snap.resent_stale),
            (1, 1),
            "apart from errors"
        );
        assert_eq!(snap.latency, None);
        assert_eq!(snap.errors.get("stale_turn"), Some(&2));
        assert_eq!(snap.errors.get("closed"), Some(&1));
        assert_eq!(snap.error_total(), 3);
    }

    #[test]
    fn connection_peak_is_kept_after_disconnects() {
        let s = Stats::default();
        s.connected();
        s.connected();
        s.disconnected();
        s.connected();
        s.disconnected();
        let snap = s.snapshot();
        assert_eq!((snap.connections, snap.connections_peak), (1, 2));
    }
}
