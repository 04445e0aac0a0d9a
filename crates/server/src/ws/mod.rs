//! The WebSocket endpoint `/ws`.
//!
//! The upgrade is checked and answered with tungstenite's handshake
//! (`create_response_with_body`); the upgraded TCP socket is then read by
//! tokio-tungstenite and written directly by whoever sends it a frame (`socket`:
//! one `writev` per frame or batch of frames, no writer task woken per frame). Each
//! socket gets a small read buffer (512 bytes, not the 128 KiB default, since tens of
//! thousands of sockets may be open), a hard message limit of 4× `--max-frame-bytes`
//! (larger messages close the socket with 1009; frames between the two limits get a
//! `too_large` error and the socket stays open), and two tasks: the reader
//! (`reader`, with the requests in `requests`) and the writer (`outbound::write_task`), which wakes only when
//! a slow client's socket was full, for pings and to close.
//!
//! Edge limits: the upgrade request's headers fall under `--header-timeout-ms`, a
//! foreign browser `Origin` is refused (403), the socket must say `hello` within
//! `--hello-timeout-ms`, and each client address has at most
//! `--max-connections-per-ip` connections (see `crate::edge`).

pub mod outbound;
mod reader;
mod requests;
mod socket;

pub use outbound::{encode, Batch, CloseReason, ConnHandle, Frame};

use crate::api::extract::ClientIp;
use crate::error::ApiError;
use crate::services::Services;
use axum::body::Body;
use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use axum::response::Response;
use axum::routing::get;
use axum::Extension;
use axum::Router;
use hyper_util::rt::TokioIo;
use protocol::RestErrorCode;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use tokio::net::TcpStream;

/// Bytes read from the socket at a time (the buffer is allocated per socket and
/// held for its life). Client frames are a few hundred bytes (`submit_turn` about
/// 250, `hello` about 150); a larger one (up to the frame limit) grows this socket's
/// buffer as it arrives, so the size costs no correctness, only memory per socket.
pub const READ_BUFFER_BYTES: usize = 512;

/// A connection's hold on the edge's per-address cap, lent by the edge's listener in
/// each request's extensions (`Arc<dyn AddressHold>`): the upgraded socket keeps it
/// until it closes. Implemented by the edge's connection slot; the socket tier does
/// not see the edge's counters (issue 33.3).
pub(crate) trait AddressHold: Send + Sync {
    /// Gives back this connection's share of the per-address cap now, keeping its
    /// place under the global cap (issue 37: a player who holds a seat or a lobby
    /// place behind a carrier's NAT gets back in).
    fn release_address_share(&self);
}

/// `GET /ws`.
pub fn router() -> Router<Services> {
    Router::new().route("/ws", get(upgrade))
}

/// The upgrade: refused with the JSON error body when the request is not a
/// WebSocket upgrade (426 `upgrade_required` without `Upgrade: websocket`, else 400
/// `bad_request` naming what is missing, RFC 6455 §4.2.1),
/// and with 429 `rate_limited` when a client behind a trusted proxy already has
/// `--max-connections-per-ip` sockets (direct clients are capped per address when
/// their connection is accepted). A browser `Origin` other than the server's own or
/// `--allowed-origins` was already refused (403) by `edge::http`. The upgraded socket
/// keeps its connection's hold ([`AddressHold`]) until it closes.
async fn upgrade(
    State(state): State<Services>,
    ConnectInfoOpt(peer): ConnectInfoOpt,
    ClientIp(client): ClientIp,
    slot: Option<Extension<Arc<dyn AddressHold>>>,
    mut req: Request,
) -> Result<Response, ApiError> {
    let accept = handshake(&req)?;
    // A proxied client: count its sockets against its own (forwarded) address.
    let proxied = match (peer, client) {
        (Some(p), Some(c)) if p != c => match state.budgets().hold_forwarded_socket(c) {
            Some(g) => Some(g),
            None => {
                metrics::counter!("ludo_connections_refused_total", "cap" => "ws_per_ip")
                    .increment(1);
                return Err(ApiError::RateLimited {
                    message: "too many sockets from this address".into(),
                    retry_after: std::time::Duration::from_secs(1),
                });
            }
        },
        _ => None,
    };
    let upgraded = hyper::upgrade::on(&mut req);
    let tasks = state.tasks().clone();
    tasks.spawn(async move {
        let share = reader::AddressShare {
            slot: slot.map(|Extension(s)| s),
            proxied,
        };
        let upgraded = match upgraded.await {
            Ok(u) => u,
            Err(e) => {
                tracing::debug!(error = %e, "websocket upgrade failed");
                return;
            }
        };
        // The edge serves every connection as `TokioIo<TcpStream>` (edge::listener).
        match upgraded.downcast::<TokioIo<TcpStream>>() {
            Ok(parts) => reader::serve(parts.io.into_inner(), parts.read_buf, state, share).await,
            Err(_) => tracing::error!("upgraded connection is not a TCP socket; closed"),
        }
    });
    Ok(accept)
}

/// The answer to a WebSocket upgrade request (101, tungstenite's
/// `create_response_with_body`).
///
/// Errors: 426 `upgrade_required` (with `Upgrade: websocket`) for a request that
/// asks for no WebSocket upgrade (a plain `GET /ws`); 400 `bad_request` naming what
/// is wrong with an upgrade request: a body announced (a handshake is
/// a GET without one, RFC 6455 §4.1; one announced and never sent would hold the
/// connection past the header timeout), a `Sec-WebSocket-Key` that is not one
/// base64 value of 16 bytes (§4.2.1), or another missing or wrong header.
fn handshake(req: &Request) -> Result<Response, ApiError> {
    let websocket = req
        .headers()
        .get_all(header::UPGRADE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|p| p.trim().eq_ignore_ascii_case("websocket"));
    if !websocket {
        return Err(ApiError::new(
            RestErrorCode::UpgradeRequired,
            "/ws is the WebSocket endpoint: send a WebSocket upgrade request \
             (Upgrade: websocket, RFC 6455 §4.1)",
        ));
    }
    if let Some(reason) = body_announced(req.headers()) {
        return Err(ApiError::new(
            RestErrorCode::BadRequest,
            format!("a WebSocket upgrade request has no body ({reason})"),
        ));
    }
    let key_ok = req
        .headers()
        .get_all(header::SEC_WEBSOCKET_KEY)
        .iter()
        .map(|k| data_encoding::BASE64.decode(k.as_bytes()).map(|b| b.len()))
        .collect::<Vec<_>>();
    if key_ok.len() > 1 || matches!(key_ok.first(), Some(r) if r.as_ref().ok() != Some(&16)) {
        return Err(ApiError::new(
            RestErrorCode::BadRequest,
            "not a WebSocket upgrade request: Sec-WebSocket-Key must be one base64 \
             value of 16 bytes",
        ));
    }
    tungstenite::handshake::server::create_response_with_body(req, Body::empty).map_err(|e| {
        ApiError::new(
            RestErrorCode::BadRequest,
            format!("not a WebSocket upgrade request: {e}"),
        )
    })
}

/// Why a request has a body: a `Transfer-Encoding`, or a `Content-Length` other
/// than 0; `None` without one.
fn body_announced(headers: &HeaderMap) -> Option<&'static str> {
    if headers.contains_key(header::TRANSFER_ENCODING) {
        return Some("Transfer-Encoding");
    }
    match headers.get(header::CONTENT_LENGTH).map(|v| v.as_bytes()) {
        None | Some(b"0") => None,
        Some(_) => Some("Content-Length"),
    }
}

/// The TCP peer's IP address, when the request came through the edge's listener.
struct ConnectInfoOpt(Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ConnectInfoOpt {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ConnectInfoOpt(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip()),
        ))
    }
}
