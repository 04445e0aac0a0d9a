//! Client addresses: the TCP peer, or — only when the peer is one of
//! `--trusted-proxies` — the address its `X-Forwarded-For` names; and
//! [`AddrCounter`], open connections per address.

use crate::state::AppState;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use dashmap::DashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The client address of `peer`'s request with `headers`: `peer` itself unless it
/// is one of `trusted`; then the right-most `X-Forwarded-For` entry (over all such
/// headers) that is not itself a trusted proxy. A malformed entry ends the walk:
/// the last trusted hop's address is used, since anything left of it could be forged.
pub(crate) fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        match hop.parse::<IpAddr>() {
            Ok(ip) if trusted.contains(&ip) => client = ip,
            Ok(ip) => return ip,
            Err(_) => return client,
        }
    }
    client
}

/// Extractor: the request's client address ([`client_ip`]); `None` when the request
/// did not come through [`super::listener::serve`] (no peer address known).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientIp(pub Option<IpAddr>);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Infallible> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(ClientIp(peer.map(|p| {
            client_ip(p, &parts.headers, &state.config().trusted_proxies)
        })))
    }
}

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
    use axum::http::HeaderValue;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn xff(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn forwarded_for_counts_only_from_a_trusted_proxy() {
        let proxy = ip("10.0.0.1");
        let trusted = [proxy, ip("10.0.0.2")];
        let h = xff(&["203.0.113.9, 198.51.100.7"]);
        // An untrusted peer: the header is ignored.
        assert_eq!(client_ip(ip("192.0.2.5"), &h, &trusted), ip("192.0.2.5"));
        // A trusted peer: the right-most entry (the one the proxy itself added).
        assert_eq!(client_ip(proxy, &h, &trusted), ip("198.51.100.7"));
        // Trusted hops are skipped; several headers are one list.
        let h = xff(&["203.0.113.9", "198.51.100.7, 10.0.0.2"]);
        assert_eq!(client_ip(proxy, &h, &trusted), ip("198.51.100.7"));
        // No header, or only proxies: the last proxy.
        assert_eq!(client_ip(proxy, &HeaderMap::new(), &trusted), proxy);
        assert_eq!(
            client_ip(proxy, &xff(&["10.0.0.2"]), &trusted),
            ip("10.0.0.2")
        );
        // A malformed entry stops the walk at the last trusted hop.
        assert_eq!(client_ip(proxy, &xff(&["1.2.3.4, junk"]), &trusted), proxy);
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
