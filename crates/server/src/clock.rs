//! Time: ONE clock, driven by Tokio's. The engine never reads a clock: it takes
//! `now_ms`, and the server gives it Unix time in milliseconds, so deadlines in the
//! engine are also the Unix-ms deadlines the protocol sends (`turn_deadline`,
//! `match_deadline`). [`now_ms`] is the wall clock read once (at first use) plus the
//! time elapsed since on Tokio's monotonic clock, so a test that pauses Tokio's time
//! (`tokio::time::pause`/`advance`) controls every deadline, timer and timestamp of
//! the server; timers are armed by converting a deadline into a
//! [`tokio::time::Instant`] ([`instant_at`]).

use chrono::{DateTime, Utc};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
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
pub fn now_ms() -> u64 {
    let (unix, at) = base();
    unix + Instant::now()
        .into_std()
        .saturating_duration_since(at)
        .as_millis() as u64
}

/// The Tokio instant at which Unix time reaches `deadline_ms` (now, if it already
/// has). One millisecond is added so that a timer never fires just before the
/// engine, reading the wall clock, agrees the deadline has passed.
pub fn instant_at(deadline_ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(deadline_ms.saturating_sub(now_ms()) + 1)
}

/// A Unix-ms time as a UTC date-time (for the store).
pub fn datetime(ms: u64) -> DateTime<Utc> {
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

    #[test]
    fn datetime_round_trips_milliseconds() {
        assert_eq!(
            datetime(1_700_000_000_123).timestamp_millis(),
            1_700_000_000_123
        );
    }
}
