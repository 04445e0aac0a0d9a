//! Time: ONE clock, driven by Tokio's. The engine never reads a clock: it takes
//! `now_ms`, and the server gives it Unix time in milliseconds, so deadlines in the
//! engine are also the Unix-ms deadlines the protocol sends (`turn_deadline`,
//! `match_deadline`). [`now_ms`] is the wall clock read once (at first use) plus the
//! time elapsed since on Tokio's monotonic clock, so a test that pauses Tokio's time
//! (`tokio::time::pause`/`advance`) controls every deadline, timer and timestamp of
//! the server; timers are armed by converting a deadline into a
//! [`tokio::time::Instant`] ([`instant_at`]).

use chrono::{DateTime, Utc};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::Notify;
use tokio::time::Instant;

/// Unix ms and the monotonic instant of the first reading.
static BASE: OnceLock<(u64, std::time::Instant)> = OnceLock::new();

fn base() -> (u64, std::time::Instant) {
    *BASE.get_or_init(|| {
        let unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        (unix, Instant::now().into_std())
    })
}

/// Now, Unix time in milliseconds, on Tokio's clock (see the module docs).
pub(crate) fn now_ms() -> u64 {
    let (unix, at) = base();
    unix + Instant::now()
        .into_std()
        .saturating_duration_since(at)
        .as_millis() as u64
}

/// The server's clock as the rooms and matchmaking read it: Unix milliseconds.
/// [`Clock::system`] (the default) is `now_ms` with Tokio timers; a
/// [`Clock::manual`] clock stands still until a test moves it ([`Clock::set_ms`],
/// [`Clock::advance_ms`]), and every deadline timer armed with
/// [`Clock::sleep_until_ms`] fires exactly when the clock reaches it — so tests of
/// turn timers and match clocks are deterministic from both sides.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    manual: Option<Arc<Manual>>,
}

#[derive(Debug)]
struct Manual {
    now: AtomicU64,
    moved: Notify,
}

impl Clock {
    /// The real clock (`now_ms`, Tokio timers).
    pub fn system() -> Clock {
        Clock::default()
    }

    /// A clock that reads `start_ms` until a test moves it.
    pub fn manual(start_ms: u64) -> Clock {
        Clock {
            manual: Some(Arc::new(Manual {
                now: AtomicU64::new(start_ms),
                moved: Notify::new(),
            })),
        }
    }

    /// Now, Unix milliseconds.
    pub fn now_ms(&self) -> u64 {
        match &self.manual {
            Some(m) => m.now.load(Ordering::SeqCst),
            None => now_ms(),
        }
    }

    /// Sets a manual clock to `ms` (never backwards) and wakes its timers.
    ///
    /// Panics on the system clock: only tests move time.
    pub fn set_ms(&self, ms: u64) {
        let m = self
            .manual
            .as_ref()
            .expect("only a manual clock can be set");
        m.now.fetch_max(ms, Ordering::SeqCst);
        m.moved.notify_waiters();
    }

    /// Moves a manual clock forward by `ms` (see [`Clock::set_ms`]).
    pub fn advance_ms(&self, ms: u64) {
        self.set_ms(self.now_ms() + ms);
    }

    /// Resolves once the clock reads `deadline_ms` or later: a Tokio timer on the
    /// system clock (one millisecond late, see `instant_at`); on a manual clock,
    /// when a test moves it there.
    pub async fn sleep_until_ms(&self, deadline_ms: u64) {
        match &self.manual {
            None => tokio::time::sleep_until(instant_at(deadline_ms)).await,
            Some(m) => loop {
                let moved = m.moved.notified();
                if m.now.load(Ordering::SeqCst) >= deadline_ms {
                    return;
                }
                moved.await;
            },
        }
    }
}

/// The Tokio instant at which Unix time reaches `deadline_ms` (now, if it already
/// has). One millisecond is added so that a timer never fires just before the
/// engine, reading the wall clock, agrees the deadline has passed.
pub(crate) fn instant_at(deadline_ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(deadline_ms.saturating_sub(now_ms()) + 1)
}

/// Tokio's clock as a `governor` time source, so the per-connection message budget
/// refills on the same clock as every other timer of the server (a test that pauses
/// Tokio's time and advances it refills the budget without waiting).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TokioClock;

impl governor::clock::Clock for TokioClock {
    type Instant = std::time::Instant;

    fn now(&self) -> std::time::Instant {
        Instant::now().into_std()
    }
}

/// A Unix-ms time as a UTC date-time (for the store).
pub(crate) fn datetime(ms: u64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms as i64).unwrap_or_else(Utc::now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadline_in_the_past_is_now() {
        let before = Instant::now();
        let at = instant_at(0);
        assert!(at >= before && at <= Instant::now() + Duration::from_millis(1));
    }

    #[test]
    fn deadline_in_the_future_is_that_far_ahead() {
        let at = instant_at(now_ms() + 5_000);
        let ahead = at - Instant::now();
        assert!(ahead > Duration::from_millis(4_900) && ahead <= Duration::from_millis(5_001));
    }

    /// Paused Tokio time drives the server clock: advancing it by 90 s moves
    /// `now_ms` by exactly 90,000 ms.
    #[tokio::test(start_paused = true)]
    async fn paused_time_drives_now_ms() {
        let before = now_ms();
        tokio::time::advance(Duration::from_secs(90)).await;
        assert_eq!(now_ms() - before, 90_000);
    }

    /// The system clock's timers (turn timer, match clock, bot fill: every deadline the
    /// rooms and the matchmaker arm goes through `Clock::sleep_until_ms`) fire 1 ms
    /// after their Unix-ms deadline on Tokio's paused clock: not before it, and not
    /// later than that one millisecond (`instant_at`).
    #[tokio::test(start_paused = true)]
    async fn system_timers_fire_one_millisecond_after_the_deadline() {
        let c = Clock::system();
        for ahead_ms in [0, 1, 999, 30_000, 1_800_000] {
            let deadline = c.now_ms() + ahead_ms;
            let t = tokio::spawn({
                let c = c.clone();
                async move { c.sleep_until_ms(deadline).await }
            });
            settle().await; // the timer is armed now
            if ahead_ms > 0 {
                tokio::time::advance(Duration::from_millis(ahead_ms)).await;
                settle().await;
                assert!(
                    !t.is_finished(),
                    "{ahead_ms} ms: fired at the deadline, 1 ms early"
                );
            }
            tokio::time::advance(Duration::from_millis(1)).await;
            settle().await;
            assert!(
                t.is_finished(),
                "{ahead_ms} ms: not fired 1 ms after the deadline"
            );
            assert_eq!(c.now_ms(), deadline + 1);
        }
    }

    /// Lets every task woken so far run (a few scheduler rounds, no time passes).
    async fn settle() {
        for _ in 0..8 {
            tokio::task::yield_now().await;
        }
    }

    /// A deadline already past fires at once on the system clock.
    #[tokio::test(start_paused = true)]
    async fn system_timer_for_a_past_deadline_fires_at_once() {
        let c = Clock::system();
        let now = c.now_ms();
        tokio::time::advance(Duration::from_secs(10)).await;
        let before = c.now_ms();
        c.sleep_until_ms(now).await;
        assert!(c.now_ms() - before <= 1);
    }

    /// A manual clock's timer fires when the clock reaches the deadline, not before.
    #[tokio::test]
    async fn manual_timers_fire_exactly_at_the_deadline() {
        let c = Clock::manual(1_000);
        let t = tokio::spawn({
            let c = c.clone();
            async move { c.sleep_until_ms(1_500).await }
        });
        c.set_ms(1_499);
        tokio::task::yield_now().await;
        assert!(!t.is_finished(), "1 ms early: still waiting");
        c.advance_ms(1);
        tokio::time::timeout(Duration::from_secs(5), t)
            .await
            .expect("fires at the deadline")
            .unwrap();
        assert_eq!(c.now_ms(), 1_500);
    }

    #[test]
    fn datetime_round_trips_milliseconds() {
        assert_eq!(
            datetime(1_700_000_000_123).timestamp_millis(),
            1_700_000_000_123
        );
    }
}
