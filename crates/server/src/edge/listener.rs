//! The accept loop. Each accepted TCP connection is served by hyper's HTTP/1.1
//! connection (with upgrades, for WebSocket) in its own task:
//!
//! * over the global cap ([`super::EdgeState::max_connections`]) or the per-address
//!   cap (`--max-connections-per-ip`, not applied to `--trusted-proxies` peers) the
//!   connection is answered `503` (best effort, without reading the request) and
//!   closed at once, so hostile connections cannot use up the file descriptors that
//!   players, the database and the listener need;
//! * every request's line and headers must arrive within `--header-timeout-ms`
//!   (hyper's `header_read_timeout`, which also bounds an idle keep-alive
//!   connection's wait for its next request); otherwise the connection is closed;
//! * when `accept` fails for lack of descriptors (`EMFILE`, `ENFILE`) or memory, the
//!   loop sleeps (10 ms, doubling up to 1 s) instead of spinning.
//!
//! A connection's slot ([`ConnSlot`]) travels in each request's extensions so that
//! an upgraded WebSocket keeps it until the socket closes.

use super::addr::AddrGuard;
use super::EdgeState;
use crate::services::Services;
use crate::ws::AddressHold;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

/// First back-off after `accept` failed for lack of resources.
pub(crate) const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(10);
/// Longest back-off after repeated `accept` failures.
pub(crate) const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// The answer written to a refused connection (before it is closed).
const REFUSED: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 90\r\n\r\n{\"error\":{\"code\":\"unavailable\",\"message\":\"the server is at max_connections, retry later\"}}";

/// The answer written to a connection refused by the per-address cap: 429 (this
/// address's limit, not the server's), naming the limit, with `Retry-After`.
const REFUSED_PER_IP: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 109\r\n\r\n{\"error\":{\"code\":\"rate_limited\",\"message\":\"too many connections from this address (max_connections_per_ip)\"}}";

/// One accepted connection's share of the connection caps; released when the last
/// holder (the HTTP connection task, or the WebSocket it was upgraded to) drops it.
#[derive(Debug)]
pub(crate) struct ConnSlot {
    _permit: OwnedSemaphorePermit,
    /// The share of the per-address cap, given back early by a WebSocket whose
    /// player holds a seat or a lobby place ([`ConnSlot::release_address_share`]).
    per_ip: std::sync::Mutex<Option<AddrGuard>>,
}

impl AddressHold for ConnSlot {
    /// Gives back this connection's share of the per-address cap now (the global
    /// cap's permit is kept until the connection closes): a socket signed in as the
    /// holder of a seat in a running match, or of a lobby place, no longer counts
    /// against its address, so any number of such players behind one address (a
    /// carrier's NAT) get back in.
    fn release_address_share(&self) {
        let share = self.per_ip.lock().map(|mut g| g.take());
        drop(share);
    }
}

/// Why `accept` failed, for the loop's reaction.
fn is_resource_exhaustion(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// Serves `router` on `listener` until `stop` is cancelled; then stops accepting and
/// asks every HTTP connection to finish its current request and close (upgraded
/// sockets watch the same token themselves). `edge` holds the caps; connection tasks
/// are tracked by `services.tasks()`. Errors: none so far (accept failures are
/// logged and retried).
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    services: Services,
    edge: Arc<EdgeState>,
    stop: CancellationToken,
) -> io::Result<()> {
    let mut backoff = ACCEPT_BACKOFF_MIN;
    let trusted = services.config().trusted_proxies.clone();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(services.config().header_timeout())
        .keep_alive(true);
    loop {
        let (tcp, peer) = match accept(&listener, &stop, &mut backoff).await {
            Accepted::Conn(tcp, peer) => (tcp, peer),
            Accepted::Again => continue,
            Accepted::Stop => break,
        };
        let Some((tcp, slot)) = admit(&edge, &trusted, tcp, peer.ip()) else {
            continue;
        };
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let svc = {
            let hold: Arc<dyn AddressHold> = slot.clone();
            router
                .clone()
                .map_request(move |mut req: axum::http::Request<Incoming>| {
                    req.extensions_mut().insert(ConnectInfo(peer));
                    req.extensions_mut().insert(hold.clone());
                    req
                })
        };
        let conn = http
            .serve_connection(TokioIo::new(tcp), TowerToHyperService::new(svc))
            .with_upgrades();
        let stop = stop.clone();
        services.tasks().spawn(async move {
            let _slot = slot;
            tokio::pin!(conn);
            tokio::select! {
                r = conn.as_mut() => log_conn_end(r, peer),
                _ = stop.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    log_conn_end(conn.await, peer);
                }
            }
        });
    }
    Ok(())
}

/// What one `accept` gave the loop of [`serve`].
enum Accepted {
    /// A connection and its peer's address.
    Conn(TcpStream, SocketAddr),
    /// No connection this time (an error, logged and counted): accept again.
    Again,
    /// `stop` was cancelled.
    Stop,
}

/// Accepts the next connection. A failure for lack of resources (file descriptors,
/// buffers, memory) backs off first — `backoff`, doubled up to
/// [`ACCEPT_BACKOFF_MAX`] while failures repeat, back to [`ACCEPT_BACKOFF_MIN`] after a
/// success; any other failure (a connection reset before it was accepted, and the
/// like) is counted and skipped.
async fn accept(
    listener: &TcpListener,
    stop: &CancellationToken,
    backoff: &mut Duration,
) -> Accepted {
    let accepted = tokio::select! {
        _ = stop.cancelled() => return Accepted::Stop,
        r = listener.accept() => r,
    };
    match accepted {
        Ok((tcp, peer)) => {
            *backoff = ACCEPT_BACKOFF_MIN;
            Accepted::Conn(tcp, peer)
        }
        Err(e) if is_resource_exhaustion(&e) => {
            metrics::counter!("ludo_accept_errors_total", "kind" => "resources").increment(1);
            tracing::warn!(error = %e, backoff_ms = backoff.as_millis() as u64, "accept failed; backing off");
            tokio::select! {
                _ = stop.cancelled() => return Accepted::Stop,
                _ = tokio::time::sleep(*backoff) => {}
            }
            *backoff = (*backoff * 2).min(ACCEPT_BACKOFF_MAX);
            Accepted::Again
        }
        Err(e) => {
            metrics::counter!("ludo_accept_errors_total", "kind" => "other").increment(1);
            tracing::debug!(error = %e, "accept failed");
            Accepted::Again
        }
    }
}

/// Admits the connection `tcp` from `ip` under the caps: a place under
/// `--max-connections` and, unless `ip` is one of the `trusted` proxies, under
/// `--max-connections-per-ip`. Returns the socket with its slot; `None` when a cap
/// is full (the connection was answered 503 and closed, [`refuse`]).
fn admit(
    edge: &EdgeState,
    trusted: &[std::net::IpAddr],
    tcp: TcpStream,
    ip: std::net::IpAddr,
) -> Option<(TcpStream, Arc<ConnSlot>)> {
    let Ok(permit) = edge.connection_permits().clone().try_acquire_owned() else {
        refuse(tcp, "max_connections", REFUSED);
        return None;
    };
    let per_ip = if trusted.contains(&ip) {
        None
    } else {
        match edge.per_ip().try_acquire(ip) {
            Some(g) => Some(g),
            None => {
                refuse(tcp, "max_connections_per_ip", REFUSED_PER_IP);
                return None;
            }
        }
    };
    let slot = Arc::new(ConnSlot {
        _permit: permit,
        per_ip: std::sync::Mutex::new(per_ip),
    });
    Some((tcp, slot))
}

/// Answers a connection over a cap with `answer` ([`REFUSED`] or
/// [`REFUSED_PER_IP`], if the socket takes it at once) and closes it.
fn refuse(tcp: TcpStream, cap: &'static str, answer: &[u8]) {
    metrics::counter!("ludo_connections_refused_total", "cap" => cap).increment(1);
    tracing::debug!(cap, "connection refused");
    let _ = tcp.try_write(answer);
}

fn log_conn_end(r: Result<(), hyper::Error>, peer: SocketAddr) {
    if let Err(e) = r {
        if e.is_timeout() {
            metrics::counter!("ludo_http_header_timeouts_total").increment(1);
        }
        tracing::debug!(%peer, error = %e, "http connection ended");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server's own cap is 503 `unavailable`; an address's cap is 429
    /// `rate_limited` naming `max_connections_per_ip`; both with `Retry-After: 1`
    /// and a body of the length they state.
    #[test]
    fn the_refusals_are_complete_json_503_and_429() {
        for (answer, status, code, names) in [
            (REFUSED, "503 ", "unavailable", "max_connections"),
            (
                REFUSED_PER_IP,
                "429 ",
                "rate_limited",
                "max_connections_per_ip",
            ),
        ] {
            check_refusal(answer, status, code, names);
        }
    }

    fn check_refusal(answer: &[u8], status: &str, code: &str, names: &str) {
        let text = std::str::from_utf8(answer).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with(&format!("HTTP/1.1 {status}")), "{head}");
        assert!(head.contains("\r\nretry-after: 1\r\n"), "{head}");
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(len, body.len());
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"]["code"], code);
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("{names},")) || message.contains(&format!("{names})")),
            "{message}"
        );
    }

    #[test]
    fn only_resource_exhaustion_backs_off() {
        assert!(is_resource_exhaustion(&io::Error::from_raw_os_error(
            libc::EMFILE
        )));
        assert!(is_resource_exhaustion(&io::Error::from_raw_os_error(
            libc::ENFILE
        )));
        assert!(!is_resource_exhaustion(&io::Error::from_raw_os_error(
            libc::ECONNABORTED
        )));
    }
}
