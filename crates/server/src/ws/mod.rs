//! The WebSocket endpoint `/ws`.
//!
//! Each socket gets small buffers (a few KiB, not the 128 KiB defaults, since tens of
//! thousands of sockets may be open), a hard message limit of 4× `--max-frame-bytes`
//! (larger messages close the socket with 1009; frames between the two limits get a
//! `too_large` error and the socket stays open), and two tasks: the reader
//! ([`connection`]) and the writer draining the bounded outbound queue
//! ([`outbound`]).
//!
//! Edge limits: the upgrade request's headers fall under `--header-timeout-ms`, a
//! foreign browser `Origin` is refused (403), the socket must say `hello` within
//! `--hello-timeout-ms`, and each client address has at most
//! `--max-connections-per-ip` connections (see `crate::edge`).

pub mod connection;
pub mod outbound;

pub use outbound::{encode, CloseReason, ConnHandle, Frame};

use crate::edge::addr::ClientIp;
use crate::edge::listener::ConnSlot;
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{ConnectInfo, FromRequestParts, State, WebSocketUpgrade};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use axum::response::Response;
use axum::routing::get;
use axum::Extension;
use axum::Router;
use protocol::RestErrorCode;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// Bytes read from the socket at a time (the buffer is allocated per socket and
/// held for its life). Client frames are a few hundred bytes (`submit_turn`,
/// `hello`); a larger one (up to the frame limit) grows this socket's buffer as it
/// arrives, so the size costs no correctness, only memory per idle socket.
pub const READ_BUFFER_BYTES: usize = 1024;
/// Frames fed to the socket are buffered up to this many bytes before they are
/// written: the writer feeds the frames queued together (a turn's `ack`,
/// `turn_resolved` and `turn_started`, about 4 KiB) and flushes once, so they leave
/// in one `write` ([`outbound::write_loop`]). The buffer holds only what one batch
/// needs (its capacity stays at the largest batch written).
pub const WRITE_BUFFER_BYTES: usize = 16 * 1024;
/// Most bytes buffered for writing before writes fail (a snapshot is a few KiB; the
/// queue in front of the writer bounds everything else). Greater than
/// [`WRITE_BUFFER_BYTES`] plus one message, as tungstenite requires.
pub const MAX_WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// `GET /ws`.
pub fn router() -> Router<AppState> {
    Router::new().route("/ws", get(upgrade))
}

/// The upgrade: refused with the JSON error body when the request is not a
/// WebSocket upgrade (axum's rejection, made JSON by `edge::http::json_errors`), and
/// with 429 `rate_limited` when a client behind a trusted proxy already has
/// `--max-connections-per-ip` sockets (direct clients are capped per address when
/// their connection is accepted). A browser `Origin` other than the server's own or
/// `--allowed-origins` was already refused (403) by `edge::http`. The upgraded socket
/// keeps its connection slot ([`ConnSlot`]) until it closes.
async fn upgrade(
    ws: WebSocketUpgrade,
    State(state): State<AppState>,
    ConnectInfoOpt(peer): ConnectInfoOpt,
    ClientIp(client): ClientIp,
    slot: Option<Extension<Arc<ConnSlot>>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    // A handshake is a GET without a body (RFC 6455 §4.1); a body announced and
    // never sent would hold the connection past the header timeout.
    if let Some(reason) = body_announced(&headers) {
        return Err(ApiError::new(
            RestErrorCode::BadRequest,
            format!("a WebSocket upgrade request has no body ({reason})"),
        ));
    }
    // A proxied client: count its sockets against its own (forwarded) address.
    let proxied = match (peer, client) {
        (Some(p), Some(c)) if p != c => match state.edge().ws_per_ip().try_acquire(c) {
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
    let limit = state.config().transport_limit();
    Ok(ws
        .read_buffer_size(READ_BUFFER_BYTES)
        // Frames fed together leave in one write, at the writer's flush.
        .write_buffer_size(WRITE_BUFFER_BYTES)
        .max_write_buffer_size(MAX_WRITE_BUFFER_BYTES)
        .max_frame_size(limit)
        .max_message_size(limit)
        .on_upgrade(move |socket| {
            let tasks = state.tasks().clone();
            tasks.track_future(async move {
                let _held = (slot, proxied);
                connection::serve(socket, state).await
            })
        }))
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
