//! The WebSocket endpoint `/ws`.
//!
//! Each socket gets small buffers (a few KiB, not the 128 KiB defaults, since tens of
//! thousands of sockets may be open), a hard message limit of 4× `--max-frame-bytes`
//! (larger messages close the socket with 1009; frames between the two limits get a
//! `too_large` error and the socket stays open), and two tasks: the reader
//! ([`connection`]) and the writer draining the bounded outbound queue
//! ([`outbound`]).

pub mod connection;
pub mod outbound;

pub use outbound::{encode, CloseReason, ConnHandle, Frame};

use crate::state::AppState;
use axum::extract::{State, WebSocketUpgrade};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

/// Bytes read from the socket at a time (the buffer is allocated per socket).
pub const READ_BUFFER_BYTES: usize = 4 * 1024;
/// Most bytes buffered for writing before writes fail (a snapshot is a few KiB; the
/// queue in front of the writer bounds everything else).
pub const MAX_WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// `GET /ws`.
pub fn router() -> Router<AppState> {
    Router::new().route("/ws", get(upgrade))
}

async fn upgrade(ws: WebSocketUpgrade, State(state): State<AppState>) -> Response {
    let limit = state.config().transport_limit();
    ws.read_buffer_size(READ_BUFFER_BYTES)
        // Write each frame as soon as it is sent; the writer flushes anyway.
        .write_buffer_size(0)
        .max_write_buffer_size(MAX_WRITE_BUFFER_BYTES)
        .max_frame_size(limit)
        .max_message_size(limit)
        .on_upgrade(move |socket| {
            let tasks = state.tasks().clone();
            tasks.track_future(connection::serve(socket, state))
        })
}
