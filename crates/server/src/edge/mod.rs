//! The network edge: what stands between the open internet and the application.
//!
//! * [`listener`]: the accept loop ([`listener::serve`]): HTTP/1.1 with a header-read
//!   timeout on every request (`--header-timeout-ms`), a cap on open connections
//!   (`--max-connections`, by default the open-file limit minus [`FD_HEADROOM`]) and
//!   per client address (`--max-connections-per-ip`), both refusing new connections
//!   at once; backing off when the process runs out of file descriptors.
//! * [`addr`]: the client address of a request (`X-Forwarded-For` only from a
//!   `--trusted-proxies` peer) and the per-address connection counter.
//! * [`http`]: browser security headers (CSP without inline script, `nosniff`,
//!   `Referrer-Policy`, `frame-ancestors`), the `Origin` policy shared by REST CORS
//!   and the WebSocket endpoint (`--allowed-origins`), and the JSON error body on
//!   every error answer.
//! * [`body`]: the request-body deadline (`--body-timeout-ms` for the whole body).
//! * [`EdgeState`]: the shared counters and the per-address guest-creation budget
//!   (`--guests-per-minute`, `--guest-burst`; `governor`).
//!
//! The WebSocket `hello` deadline (`--hello-timeout-ms`) is enforced by the
//! connection's reader (`crate::ws::reader`).

pub(crate) mod addr;
pub(crate) mod body;
pub(crate) mod http;
pub(crate) mod listener;

use crate::config::Config;
use addr::AddrCounter;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// File descriptors kept free below the open-file limit when `--max-connections` is
/// derived from it: the listener, stdio, the runtime's epoll and event descriptors,
/// the database pool (up to 10 for PostgreSQL, a few for SQLite), NATS, and static
/// files being served.
pub const FD_HEADROOM: usize = 64;

/// Fewest connections a derived cap allows, however low the open-file limit.
pub(crate) const MIN_DERIVED_CONNECTIONS: usize = 16;

/// Raises the soft open-file limit (`RLIMIT_NOFILE`) to the hard limit and returns
/// the limit now in force; `None` where it cannot be read (not Unix).
pub(crate) fn raise_nofile_limit() -> Option<u64> {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) => Some(n),
        Err(e) => {
            tracing::warn!(error = %e, "cannot raise the open-file limit");
            rlimit::getrlimit(rlimit::Resource::NOFILE)
                .ok()
                .map(|(soft, _)| soft)
        }
    }
}

/// The connection cap for an open-file limit of `nofile`: `nofile -`
/// [`FD_HEADROOM`], at least [`MIN_DERIVED_CONNECTIONS`]; `None` (no limit known):
/// 10 000.
pub(crate) fn derived_max_connections(nofile: Option<u64>) -> usize {
    match nofile {
        Some(n) => usize::try_from(n)
            .unwrap_or(usize::MAX)
            .saturating_sub(FD_HEADROOM)
            .max(MIN_DERIVED_CONNECTIONS),
        None => 10_000,
    }
}

/// Shared edge state: connection counters and the guest-creation budget.
#[derive(Debug)]
pub struct EdgeState {
    max_connections: usize,
    connections: Arc<Semaphore>,
    per_ip: Arc<AddrCounter>,
    ws_per_ip: Arc<AddrCounter>,
    guests: Option<DefaultKeyedRateLimiter<IpAddr>>,
}

impl EdgeState {
    /// Builds the edge state for `config`; when `--max-connections` is not given,
    /// raises the open-file limit ([`raise_nofile_limit`]) and derives the cap.
    pub fn new(config: &Config) -> EdgeState {
        let max_connections = config
            .max_connections
            .unwrap_or_else(|| derived_max_connections(raise_nofile_limit()));
        let guests = NonZeroU32::new(config.guests_per_minute).map(|rate| {
            let burst = NonZeroU32::new(config.guest_burst).unwrap_or(NonZeroU32::MIN);
            RateLimiter::keyed(Quota::per_minute(rate).allow_burst(burst))
        });
        EdgeState {
            max_connections,
            connections: Arc::new(Semaphore::new(max_connections)),
            per_ip: Arc::new(AddrCounter::new(config.max_connections_per_ip)),
            ws_per_ip: Arc::new(AddrCounter::new(config.max_connections_per_ip)),
            guests,
        }
    }

    /// The cap on open connections.
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// Connections open now (HTTP and upgraded WebSocket).
    pub fn open_connections(&self) -> usize {
        self.max_connections - self.connections.available_permits()
    }

    /// The global connection permits.
    pub(crate) fn connection_permits(&self) -> &Arc<Semaphore> {
        &self.connections
    }

    /// The per-address connection counter.
    pub fn per_ip(&self) -> &Arc<AddrCounter> {
        &self.per_ip
    }

    /// WebSockets per forwarded client address (clients behind a trusted proxy).
    pub fn ws_per_ip(&self) -> &Arc<AddrCounter> {
        &self.ws_per_ip
    }

    /// Takes one guest creation from `ip`'s budget. `Err(wait)`: over budget, try
    /// again after `wait`. Always `Ok` with `--guests-per-minute 0`.
    pub fn check_guest_budget(&self, ip: IpAddr) -> Result<(), Duration> {
        let Some(limiter) = &self.guests else {
            return Ok(());
        };
        // Forget addresses whose budget is full again, so the map stays small.
        if limiter.len() > 10_000 {
            limiter.retain_recent();
        }
        limiter.check_key(&ip).map_err(|not_until| {
            not_until.wait_time_from(governor::clock::Clock::now(
                &governor::clock::DefaultClock::default(),
            ))
        })
    }
}

/// The budgets the socket tier and REST ask (issue 33.2: they reach the edge's
/// counters only through [`crate::services::Budgets`]).
impl crate::services::Budgets for EdgeState {
    fn take_guest(&self, ip: IpAddr) -> Result<(), Duration> {
        self.check_guest_budget(ip)
    }
    fn hold_forwarded_socket(&self, ip: IpAddr) -> Option<Box<dyn Send + Sync>> {
        let hold = self.ws_per_ip.try_acquire(ip)?;
        Some(Box::new(hold))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_derived_cap_keeps_the_headroom() {
        assert_eq!(derived_max_connections(Some(512)), 512 - FD_HEADROOM);
        assert_eq!(derived_max_connections(Some(65_536)), 65_536 - 64);
        assert_eq!(derived_max_connections(Some(20)), MIN_DERIVED_CONNECTIONS);
        assert_eq!(derived_max_connections(None), 10_000);
    }

    #[test]
    fn the_guest_budget_is_per_address() {
        // Burst 3: the 4th guest from one address waits; another address is unaffected.
        let cfg = Config {
            guests_per_minute: 6,
            guest_burst: 3,
            max_connections: Some(10),
            ..Config::default()
        };
        let edge = EdgeState::new(&cfg);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        for _ in 0..3 {
            assert_eq!(edge.check_guest_budget(a), Ok(()));
        }
        let wait = edge.check_guest_budget(a).unwrap_err();
        // 6 per minute: one every 10 s.
        assert!(
            wait > Duration::from_secs(9) && wait <= Duration::from_secs(10),
            "{wait:?}"
        );
        assert_eq!(edge.check_guest_budget(b), Ok(()));
        let off = EdgeState::new(&Config {
            guests_per_minute: 0,
            max_connections: Some(10),
            ..Config::default()
        });
        for _ in 0..100 {
            assert_eq!(off.check_guest_budget(a), Ok(()));
        }
    }
}
