//! [`ConnHandle`]: the sending side of one client connection, held by everything
//! that talks to that client (the connection itself, rooms, the matchmaker,
//! lobbies).
//!
//! Frames go through a *bounded* queue drained by the connection's writer task.
//! Senders never wait: [`ConnHandle::send`] uses `try_send`, and a full queue means
//! the client does not read fast enough, so the connection is closed (code 1008)
//! rather than buffered without bound. A [`Frame`] is a reference-counted
//! `Utf8Bytes`: a broadcast is encoded once and the same bytes are shared by every
//! receiver's queue.

use axum::extract::ws::Utf8Bytes;
use protocol::ServerMsg;
use std::sync::{Arc, OnceLock};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// One encoded server frame (JSON text), cheap to clone.
pub type Frame = Utf8Bytes;

/// Encodes a server message once, ready to be shared by many queues.
pub fn encode(seq: Option<u64>, msg: &ServerMsg) -> Frame {
    Utf8Bytes::from(protocol::encode_server(seq, msg))
}

/// Why a connection is being closed: the WebSocket close code and reason, and
/// whether frames already queued are still written first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloseReason {
    /// WebSocket close code (RFC 6455 §7.4).
    pub code: u16,
    /// Short reason text sent in the close frame.
    pub reason: &'static str,
    /// Write the frames already queued before closing.
    pub drain: bool,
}

impl CloseReason {
    /// 1000: the client closed, or the connection ended normally.
    pub const NORMAL: CloseReason = CloseReason {
        code: 1000,
        reason: "bye",
        drain: false,
    };
    /// 1001: the server is shutting down.
    pub const GOING_AWAY: CloseReason = CloseReason {
        code: 1001,
        reason: "server shutting down",
        drain: true,
    };
    /// 1002: `hello` named an unsupported protocol version.
    pub const UNSUPPORTED_VERSION: CloseReason = CloseReason {
        code: 1002,
        reason: "unsupported protocol version",
        drain: true,
    };
    /// 1008: the outbound queue filled up (the client reads too slowly).
    pub const SLOW_CONSUMER: CloseReason = CloseReason {
        code: 1008,
        reason: "too slow to read",
        drain: false,
    };
    /// 1008: sustained flooding past the rate limit.
    pub const ABUSE: CloseReason = CloseReason {
        code: 1008,
        reason: "rate limit exceeded",
        drain: true,
    };
    /// 1001: no frame from the client for the idle timeout.
    pub const IDLE: CloseReason = CloseReason {
        code: 1001,
        reason: "idle timeout",
        drain: true,
    };
    /// 1007 (RFC 6455 §7.4.1): a text message that is not valid UTF-8.
    pub const INVALID_UTF8: CloseReason = CloseReason {
        code: 1007,
        reason: "text frame is not valid UTF-8",
        drain: false,
    };
    /// 1008: no good `hello` within `--hello-timeout-ms` of the upgrade.
    pub const HELLO_TIMEOUT: CloseReason = CloseReason {
        code: 1008,
        reason: "no hello in time",
        drain: true,
    };
    /// 1002: a frame could not be read (malformed: unmasked, bad opcode).
    pub const READ_ERROR: CloseReason = CloseReason {
        code: 1002,
        reason: "unreadable frame",
        drain: false,
    };
    /// 1009: a message over the hard size limit (4× `--max-frame-bytes`).
    pub const TOO_BIG: CloseReason = CloseReason {
        code: 1009,
        reason: "message too big",
        drain: false,
    };
    /// 4000: the same player connected again; the newer socket wins.
    pub const REPLACED: CloseReason = CloseReason {
        code: 4000,
        reason: "replaced by a newer connection",
        drain: true,
    };
}

#[derive(Debug)]
struct Shared {
    id: u64,
    tx: mpsc::Sender<Frame>,
    /// Cancelled once the connection must close; both the reader and the writer
    /// select on it.
    closing: CancellationToken,
    /// The first close reason wins.
    reason: OnceLock<CloseReason>,
}

/// The sending side of one connection. Clone freely (an `Arc`).
#[derive(Debug, Clone)]
pub struct ConnHandle(Arc<Shared>);

impl ConnHandle {
    /// A handle with connection id `id`, sending into `tx`.
    pub fn new(id: u64, tx: mpsc::Sender<Frame>) -> ConnHandle {
        ConnHandle(Arc::new(Shared {
            id,
            tx,
            closing: CancellationToken::new(),
            reason: OnceLock::new(),
        }))
    }

    /// The connection id (unique per server run).
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// Queues `frame` without waiting. Returns false when the frame was not queued:
    /// the connection is closed or closing, or its queue was full, in which case it
    /// is closed now as a slow consumer.
    pub fn send(&self, frame: Frame) -> bool {
        if self.0.closing.is_cancelled() {
            return false;
        }
        match self.0.tx.try_send(frame) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                metrics::counter!("ludo_ws_slow_consumer_total").increment(1);
                tracing::info!(conn = self.0.id, "outbound queue full: closing slow client");
                self.close(CloseReason::SLOW_CONSUMER);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Encodes and queues one message (see [`ConnHandle::send`]).
    pub fn send_msg(&self, seq: Option<u64>, msg: &ServerMsg) -> bool {
        self.send(encode(seq, msg))
    }

    /// Queues an `error` message.
    pub fn send_error(
        &self,
        code: protocol::ErrorCode,
        message: impl Into<String>,
        in_reply_to: Option<String>,
    ) {
        crate::metrics::error_sent(code);
        self.send_msg(None, &ServerMsg::error(code, message, in_reply_to));
    }

    /// Queues an `ack` when the request had an `id`.
    pub fn ack(&self, id: Option<String>) {
        if let Some(id) = id {
            self.send_msg(None, &ServerMsg::Ack(protocol::Ack { id }));
        }
    }

    /// Asks the connection to close with `reason` (the first reason given wins).
    pub fn close(&self, reason: CloseReason) {
        let _ = self.0.reason.set(reason);
        self.0.closing.cancel();
    }

    /// The close reason, once [`ConnHandle::close`] was called.
    pub fn close_reason(&self) -> Option<CloseReason> {
        self.0.reason.get().copied()
    }

    /// True once the connection is closing or its writer has stopped.
    pub fn is_closed(&self) -> bool {
        self.0.closing.is_cancelled() || self.0.tx.is_closed()
    }

    /// Resolves once [`ConnHandle::close`] was called.
    pub async fn closing(&self) {
        self.0.closing.cancelled().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_queue_closes_the_connection_as_slow() {
        let (tx, mut rx) = mpsc::channel(2);
        let c = ConnHandle::new(7, tx);
        assert!(c.send(Frame::from_static("a")));
        assert!(c.send(Frame::from_static("b")));
        assert!(
            !c.send(Frame::from_static("c")),
            "third frame does not fit in a queue of 2"
        );
        assert!(c.is_closed());
        assert_eq!(c.close_reason(), Some(CloseReason::SLOW_CONSUMER));
        assert!(
            !c.send(Frame::from_static("d")),
            "nothing is queued once closing"
        );
        assert_eq!(rx.recv().await.unwrap().as_str(), "a");
        assert_eq!(rx.recv().await.unwrap().as_str(), "b");
        assert!(rx.try_recv().is_err());
    }

    #[tokio::test]
    async fn the_first_close_reason_wins() {
        let (tx, _rx) = mpsc::channel(2);
        let c = ConnHandle::new(1, tx);
        c.close(CloseReason::REPLACED);
        c.close(CloseReason::NORMAL);
        assert_eq!(c.close_reason(), Some(CloseReason::REPLACED));
    }
}
