//! [`AddrCounter`], open connections per address (the client address of a request,
//! `X-Forwarded-For` only from a `--trusted-proxies` peer, is
//! `crate::api::extract::ClientIp`).

use dashmap::DashMap;
use std::net::IpAddr;
use std::sync::Arc;

/// Open connections per address, capped at `max` (0: no cap).
#[derive(Debug)]
pub struct AddrCounter {
    max: usize,
    open: DashMap<IpAddr, usize>,
}

/// One connection counted against an address; dropping it releases the count.
#[derive(Debug)]
pub struct AddrGuard {
    counter: Arc<AddrCounter>,
    ip: IpAddr,
}

impl AddrCounter {
    /// A counter allowing `max` connections per address (0: unlimited).
    pub fn new(max: usize) -> AddrCounter {
        AddrCounter {
            max,
            open: DashMap::new(),
        }
    }

    /// Counts one more connection from `ip`; `None` when `ip` already has `max`.
    pub fn try_acquire(self: &Arc<Self>, ip: IpAddr) -> Option<AddrGuard> {
        let mut n = self.open.entry(ip).or_insert(0);
        if self.max != 0 && *n >= self.max {
            return None;
        }
        *n += 1;
        Some(AddrGuard {
            counter: self.clone(),
            ip,
        })
    }

    /// Connections open now from `ip`.
    pub fn open(&self, ip: IpAddr) -> usize {
        self.open.get(&ip).map_or(0, |n| *n)
    }
}

impl Drop for AddrGuard {
    fn drop(&mut self) {
        self.counter.open.remove_if_mut(&self.ip, |_, n| {
            *n = n.saturating_sub(1);
            *n == 0
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_counter_caps_each_address_and_releases_on_drop() {
        let c = Arc::new(AddrCounter::new(2));
        let (a, b) = (ip("192.0.2.1"), ip("192.0.2.2"));
        let g1 = c.try_acquire(a).unwrap();
        let _g2 = c.try_acquire(a).unwrap();
        assert!(c.try_acquire(a).is_none(), "a third from one address");
        assert!(c.try_acquire(b).is_some(), "another address is unaffected");
        drop(g1);
        assert_eq!(c.open(a), 1);
        assert!(c.try_acquire(a).is_some());
        let unlimited = Arc::new(AddrCounter::new(0));
        let guards: Vec<_> = (0..1000)
            .map(|_| unlimited.try_acquire(a).unwrap())
            .collect();
        assert_eq!(unlimited.open(a), 1000);
        drop(guards);
        assert_eq!(unlimited.open(a), 0);
        assert!(
            unlimited.open.is_empty(),
            "released addresses are forgotten"
        );
    }
}
