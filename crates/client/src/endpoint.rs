//! Where the server is: its base URL (`http://host:port`), the WebSocket URL derived
//! from it (`ws://host:port/ws`), and the loopback check the load tools apply.

use crate::error::{ClientError, Result};
use reqwest::Url;
use std::net::IpAddr;

/// A server's base URL, e.g. `http://127.0.0.1:8080`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    base: Url,
}

impl Endpoint {
    /// Parses a base URL. Accepts `http://` and `https://` (REST) URLs; a trailing path
    /// is ignored.
    ///
    /// Errors: [`ClientError::BadUrl`] for unparsable URLs, other schemes, or a URL
    /// without a host.
    pub fn parse(url: &str) -> Result<Endpoint> {
        let bad = |reason: &str| ClientError::BadUrl {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let mut base = Url::parse(url).map_err(|e| bad(&e.to_string()))?;
        if base.scheme() != "http" && base.scheme() != "https" {
            return Err(bad("the scheme must be http or https"));
        }
        if base.host_str().is_none() {
            return Err(bad("no host"));
        }
        base.set_path("/");
        base.set_query(None);
        base.set_fragment(None);
        Ok(Endpoint { base })
    }

    /// Like [`Endpoint::parse`], but refuses any host that is not on the loopback
    /// interface (`127.0.0.0/8`, `::1` or `localhost`): load traffic must stay on this
    /// machine.
    pub fn parse_loopback(url: &str) -> Result<Endpoint> {
        let ep = Endpoint::parse(url)?;
        if !ep.is_loopback() {
            return Err(ClientError::BadUrl {
                url: url.to_string(),
                reason: "only loopback hosts (127.0.0.0/8, ::1, localhost) may be targeted".into(),
            });
        }
        Ok(ep)
    }

    /// True when the host is `localhost` or a loopback IP address.
    pub fn is_loopback(&self) -> bool {
        match self.base.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
            None => false,
        }
    }

    /// The base URL (always ending in `/`).
    pub fn base(&self) -> &Url {
        &self.base
    }

    /// The TCP port (the scheme's default when none is given).
    pub fn port(&self) -> u16 {
        self.base.port_or_known_default().unwrap_or(80)
    }

    /// An absolute URL for a server path such as `/api/v1/guests`.
    pub fn http(&self, path: &str) -> Url {
        self.base
            .join(path.trim_start_matches('/'))
            .expect("a path joins onto an http base URL")
    }

    /// The WebSocket URL: `ws://host:port/ws` (`wss://` for an https base).
    pub fn ws(&self) -> String {
        let mut u = self.http("/ws");
        let scheme = if self.base.scheme() == "https" {
            "wss"
        } else {
            "ws"
        };
        u.set_scheme(scheme)
            .expect("ws and wss are valid schemes for an http URL");
        u.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ws_url_is_derived_from_the_base() {
        let ep = Endpoint::parse("http://127.0.0.1:8080/some/path?x=1").unwrap();
        assert_eq!(ep.ws(), "ws://127.0.0.1:8080/ws");
        assert_eq!(
            ep.http("/api/v1/guests").as_str(),
            "http://127.0.0.1:8080/api/v1/guests"
        );
        assert_eq!(ep.port(), 8080);
        assert_eq!(
            Endpoint::parse("https://example.org").unwrap().ws(),
            "wss://example.org/ws"
        );
    }

    #[test]
    fn loopback_hosts_are_accepted_and_others_refused() {
        for ok in [
            "http://127.0.0.1:8080",
            "http://127.3.4.5",
            "http://localhost:1",
            "http://[::1]:9",
        ] {
            assert!(Endpoint::parse_loopback(ok).is_ok(), "{ok} is loopback");
        }
        for bad in [
            "http://10.0.0.1:8080",
            "http://192.168.1.2",
            "http://example.org",
            "http://[2001:db8::1]",
        ] {
            let err = Endpoint::parse_loopback(bad).unwrap_err();
            assert!(matches!(err, ClientError::BadUrl { .. }), "{bad}: {err}");
        }
    }

    #[test]
    fn non_http_urls_are_refused() {
        for bad in ["ws://127.0.0.1/ws", "ftp://127.0.0.1", "not a url"] {
            assert!(
                matches!(Endpoint::parse(bad), Err(ClientError::BadUrl { .. })),
                "{bad}"
            );
        }
    }
}
