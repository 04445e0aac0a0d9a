//! [`ConnHandle`]: the sending side of one client connection, held by everything
//! that talks to that client (the connection itself, rooms, the matchmaker,
//! lobbies).
//!
//! Senders never wait. A frame for a socket of this node is written at once by the
//! task that sends it, with one non-blocking `writev` (`ws::socket`): no writer task
//! wakes up per frame. Frames sent while a [`Batch`] is open on the thread (a room
//! opens one for each commit it releases: a turn's `ack`, `turn_resolved` and
//! `turn_started`) leave together when it ends, one `writev` per socket. What a slow
//! client's socket does not take waits, bounded (`--outbound-queue` frames): a client
//! that lets it fill is closed (code 1008) rather than buffered without bound. A
//! [`Frame`] is reference-counted bytes: a broadcast is encoded once and the same
//! bytes are written to every receiver.
//!
//! `write_task` is a socket's writer task: it writes what waits once the socket is
//! writable again, sends the keep-alive pings and, at the end, the close frame.

use super::socket::{self, Flushed, Queued, Refused, SocketOut};
use axum::body::Bytes;
use protocol::ServerMsg;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tungstenite::protocol::frame::Frame as WsFrame;

/// One encoded server frame (JSON text), cheap to clone.
pub type Frame = tungstenite::Utf8Bytes;

thread_local! {
    /// The JSON encoder's buffer, reused by every frame this thread encodes.
    static ENCODE_BUF: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(ENCODE_BUF_BYTES));
}

/// Capacity of [`ENCODE_BUF`], and the most it keeps between frames (a larger frame,
/// a snapshot of a long match, grows it once; it is then given back).
const ENCODE_BUF_BYTES: usize = 16 * 1024;

/// Encodes a server message once, ready to be shared by many sockets. The JSON is
/// written into the thread's reused buffer and copied once into an allocation of
/// its exact length: a fresh encoder buffer would grow by doubling, copying the
/// frame each time, and a frame kept in a room's resync history would hold up to
/// twice its length for as long as it is kept.
pub fn encode(seq: Option<u64>, msg: &ServerMsg) -> Frame {
    ENCODE_BUF.with(|b| {
        let mut buf = b.borrow_mut();
        buf.clear();
        protocol::encode_server_to(seq, msg, &mut buf);
        let frame = Frame::from(std::str::from_utf8(&buf).expect("serde_json writes UTF-8"));
        if buf.capacity() > ENCODE_BUF_BYTES {
            *buf = Vec::with_capacity(ENCODE_BUF_BYTES);
        }
        frame
    })
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
    /// 1013 (RFC 6455 §7.4.1, "try again later"): `hello` could not be checked
    /// because the store did not answer (a database outage); the client
    /// reconnects with its back-off and signs in once the store is back.
    pub const STORE_UNAVAILABLE: CloseReason = CloseReason {
        code: 1013,
        reason: "store unavailable: reconnect later",
        drain: true,
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
    /// 1000: the client closed first; tungstenite already queued its close reply,
    /// which is written after the frames before it, so the writer sends no other.
    pub const PEER_CLOSED: CloseReason = CloseReason {
        code: 1000,
        reason: "bye",
        drain: true,
    };
    /// 4001: the client reads so slowly that it is more than `--max-lag-ms` behind
    /// the live stream (a lag probe, a ping sent after the frames queued before it,
    /// was not answered in that time). Documented in `proto/README.md` §2: reconnect
    /// and resync; a gap past `--resync-frames` is answered with a snapshot, so a
    /// slow link sees the match as it is now rather than a stream minutes stale.
    pub const LAGGING: CloseReason = CloseReason {
        code: 4001,
        reason: "too far behind: reconnect and resync",
        drain: false,
    };
    /// 4000: the same player connected again; the newer socket wins. Documented in
    /// `proto/README.md` §2: a client must not reconnect automatically on it.
    pub const REPLACED: CloseReason = CloseReason {
        code: 4000,
        reason: "replaced by a newer connection",
        drain: true,
    };
    /// 4002: the session this socket signed in with was signed out (by the player,
    /// from any device, or by a password change), expired or its account deleted.
    /// Documented in `proto/README.md` §2: a client must not reconnect with that
    /// token; it signs in again.
    pub const SIGNED_OUT: CloseReason = CloseReason {
        code: 4002,
        reason: "signed out",
        drain: false,
    };
    /// 1012: the match this socket plays or watches runs on another node now (its
    /// node stopped or lost its lease); the client reconnects (through the load
    /// balancer) and resyncs there.
    pub const MOVED: CloseReason = CloseReason {
        code: 1012,
        reason: "match moved to another node",
        drain: true,
    };
}

/// Where a connection's frames go.
#[derive(Debug)]
enum Target {
    /// A socket of this node, written directly (`ws::socket`).
    Socket(Arc<SocketOut>),
    /// A queue drained by someone else (an in-process consumer, a test).
    Queue(mpsc::Sender<Frame>),
    /// A socket of another node (cluster mode): the relay of its node for one match,
    /// and the socket's connection id on that node.
    Relay { relay: Arc<Relay>, remote: u64 },
}

/// What a [`Relay`] carries to the other node, in the order the room queued it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Relayed {
    /// One frame for the sockets `to` (connection ids on the other node): a
    /// broadcast names every socket of the match there, a reply names one.
    Frame {
        /// Connection ids on the other node.
        to: Vec<u64>,
        /// The frame, encoded once.
        frame: Frame,
    },
    /// Close the socket `to` with close code `code`.
    Close {
        /// Connection id on the other node.
        to: u64,
        /// WebSocket close code.
        code: u16,
    },
}

/// The sending side of one room's frames to one other node (cluster mode): every
/// proxy [`ConnHandle`] of that node's sockets in the room queues here, so a
/// broadcast is queued once for all of them ([`Fanout`]) and one socket's replies
/// stay in order with the broadcasts it sees. The queue is bounded like a socket's
/// (`--outbound-queue`): when it is full the node does not keep up, and the
/// sockets sending through it are closed as slow consumers.
#[derive(Debug)]
pub struct Relay {
    tx: mpsc::Sender<Relayed>,
    /// Closes, apart from the bounded queue so that one always gets through; the
    /// relay's reader sends them once the frames queued before them are out.
    closes: mpsc::UnboundedSender<Relayed>,
}

impl Relay {
    /// A relay with a queue of `capacity` items; the reader drains both receivers
    /// (frames first, see [`Relay`]).
    pub fn new(
        capacity: usize,
    ) -> (
        Arc<Relay>,
        mpsc::Receiver<Relayed>,
        mpsc::UnboundedReceiver<Relayed>,
    ) {
        let (tx, rx) = mpsc::channel(capacity);
        let (closes, closes_rx) = mpsc::unbounded_channel();
        (Arc::new(Relay { tx, closes }), rx, closes_rx)
    }

    /// A handle (with this node's connection id `id`) for the socket `remote` of
    /// the relay's node.
    pub fn conn(self: &Arc<Self>, id: u64, remote: u64) -> ConnHandle {
        ConnHandle::with_sink(
            id,
            Target::Relay {
                relay: self.clone(),
                remote,
            },
        )
    }
}

#[derive(Debug)]
struct Shared {
    id: u64,
    tx: Target,
    /// Cancelled once the connection must close; both the reader and the writer
    /// select on it.
    closing: CancellationToken,
    /// Set with `closing`: the check on every send (the token's own check takes a
    /// lock).
    closed: AtomicBool,
    /// The first close reason wins.
    reason: OnceLock<CloseReason>,
    /// When the handle was made: the origin of `heard_ms`.
    born: Instant,
    /// When the last frame came from the client, in ms after `born` (0 until one
    /// came): the keep-alive ping goes only to a socket quiet for a whole period.
    heard_ms: AtomicU64,
    /// Frames heard from the client so far (a [`Probe`] compares it).
    heard_count: AtomicU64,
    /// The highest lag-probe number the client echoed in a pong ([`write_task`]).
    pong_mark: AtomicU64,
    /// The number of the last lag probe sent: a pong echoing a higher one is not
    /// an answer (a client cannot switch its own probe off).
    probe_sent: AtomicU64,
    /// Pings the server sent on this socket not answered by a pong yet (a pong
    /// beyond them is unsolicited: charged to the message budget).
    pongs_owed: AtomicU64,
    /// The connection's reader waits for the answer to a request (a room or the
    /// store is slow): it reads no pong meanwhile, so neither probe holds that
    /// against the client.
    awaiting: AtomicBool,
}

/// A ping sent by [`ConnHandle::probe`]: answered once any frame came from the
/// client after it ([`ConnHandle::answered_since`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Probe {
    heard_count: u64,
}

/// The signal of one request's answer: fired by the first `ack` or `error` sent
/// through a handle of [`ConnHandle::for_request`], with true for a plain `ack`
/// (the request took effect).
#[derive(Debug)]
struct ReplySlot(Mutex<Option<oneshot::Sender<bool>>>);

impl ReplySlot {
    fn fire(&self, took_effect: bool) {
        let tx = self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(tx) = tx {
            let _ = tx.send(took_effect);
        }
    }
}

/// Resolves once the request it belongs to was answered (see
/// [`ConnHandle::for_request`]).
#[derive(Debug)]
pub struct Answered(oneshot::Receiver<bool>);

impl Answered {
    /// Waits for the answer: the first `ack` or `error` sent through the request's
    /// handle, or the moment every clone of that handle was dropped unanswered (the
    /// actor holding it stopped). True when the answer was a plain `ack` (the
    /// request took effect now); false for an error, the `ack` of a resend
    /// (`applied_seq`), or no answer.
    pub async fn wait(self) -> bool {
        self.0.await.unwrap_or(false)
    }
}

/// The error of a `try_send`, without the value that was not sent.
fn unit<T>(e: mpsc::error::TrySendError<T>) -> mpsc::error::TrySendError<()> {
    match e {
        mpsc::error::TrySendError::Full(_) => mpsc::error::TrySendError::Full(()),
        mpsc::error::TrySendError::Closed(_) => mpsc::error::TrySendError::Closed(()),
    }
}

/// The sending side of one connection. Clone freely (an `Arc`).
#[derive(Debug, Clone)]
pub struct ConnHandle {
    shared: Arc<Shared>,
    /// Set on a handle made for one request ([`ConnHandle::for_request`]).
    reply: Option<Arc<ReplySlot>>,
}

impl ConnHandle {
    /// A handle with connection id `id` whose frames go into the queue `tx` (for an
    /// in-process consumer; a full queue closes the handle as a slow consumer).
    pub fn new(id: u64, tx: mpsc::Sender<Frame>) -> ConnHandle {
        ConnHandle::with_sink(id, Target::Queue(tx))
    }

    /// The handle of the socket `out` (the connection's own; `write_task` serves it).
    pub(crate) fn socket(id: u64, out: SocketOut) -> ConnHandle {
        ConnHandle::with_sink(id, Target::Socket(Arc::new(out)))
    }

    /// The socket's sending side, for a handle made by [`ConnHandle::socket`].
    pub(crate) fn socket_out(&self) -> Option<Arc<SocketOut>> {
        match &self.shared.tx {
            Target::Socket(out) => Some(out.clone()),
            _ => None,
        }
    }

    fn with_sink(id: u64, tx: Target) -> ConnHandle {
        ConnHandle {
            shared: Arc::new(Shared {
                id,
                tx,
                closing: CancellationToken::new(),
                closed: AtomicBool::new(false),
                reason: OnceLock::new(),
                born: Instant::now(),
                heard_ms: AtomicU64::new(0),
                heard_count: AtomicU64::new(0),
                pong_mark: AtomicU64::new(0),
                probe_sent: AtomicU64::new(0),
                pongs_owed: AtomicU64::new(0),
                awaiting: AtomicBool::new(false),
            }),
            reply: None,
        }
    }

    /// A handle to the same connection for answering one request, and the signal of
    /// that answer. The first [`ConnHandle::ack`] or [`ConnHandle::send_error`] sent
    /// through the returned handle (or a clone of it) fires [`Answered`]; so does
    /// dropping every clone unanswered. The connection reads a socket's next request
    /// only after the previous one was answered, so one socket's requests take
    /// effect in the order sent, whichever actor (matchmaker, room) handles them.
    pub fn for_request(&self) -> (ConnHandle, Answered) {
        let (tx, rx) = oneshot::channel();
        let handle = ConnHandle {
            shared: self.shared.clone(),
            reply: Some(Arc::new(ReplySlot(Mutex::new(Some(tx))))),
        };
        (handle, Answered(rx))
    }

    fn answered(&self, took_effect: bool) {
        if let Some(r) = &self.reply {
            r.fire(took_effect);
        }
    }

    /// The connection id (unique per server run).
    pub fn id(&self) -> u64 {
        self.shared.id
    }

    /// Notes that a frame (any: text, binary, ping, pong) came from the client now.
    /// The socket's keep-alive ping is due only a whole ping period after the last
    /// such frame ([`write_task`]).
    pub(crate) fn heard(&self) {
        let ms = self.shared.born.elapsed().as_millis();
        self.shared
            .heard_ms
            .store(u64::try_from(ms).unwrap_or(u64::MAX), Ordering::Relaxed);
        self.shared.heard_count.fetch_add(1, Ordering::Release);
    }

    /// Notes a pong's payload: the writer's lag probes carry their number (8 bytes,
    /// big-endian); other payloads (keep-alive pings carry none), and numbers of
    /// probes not sent yet, are ignored.
    pub(crate) fn ponged(&self, payload: &[u8]) {
        if let Ok(n) = <[u8; 8]>::try_from(payload) {
            let n = u64::from_be_bytes(n);
            if n <= self.shared.probe_sent.load(Ordering::Relaxed) {
                self.shared.pong_mark.fetch_max(n, Ordering::Relaxed);
            }
        }
    }

    /// Notes that a ping goes to the client now (its pong will be solicited).
    fn pinged(&self) {
        self.shared.pongs_owed.fetch_add(1, Ordering::Relaxed);
    }

    /// Takes a pong that just came from the client: true when it answers a ping the
    /// server sent (not yet answered), false for an unsolicited one.
    pub(crate) fn solicited_pong(&self) -> bool {
        self.shared
            .pongs_owed
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }

    /// Marks whether the connection's reader is waiting for a request's answer
    /// (then it reads no pong: see [`Shared::awaiting`]).
    pub(crate) fn set_awaiting(&self, awaiting: bool) {
        self.shared.awaiting.store(awaiting, Ordering::Relaxed);
    }

    /// Sends the client a WebSocket ping now (its browser or library answers it
    /// with a pong without the player's help) and returns the mark to check the
    /// answer by. `None` when this is not a socket of this node (an in-process
    /// queue, or a socket relayed from another node) or it is closed.
    pub(crate) fn probe(&self) -> Option<Probe> {
        let Target::Socket(out) = &self.shared.tx else {
            return None;
        };
        if self.is_closed() {
            return None;
        }
        let heard_count = self.shared.heard_count.load(Ordering::Acquire);
        self.pinged();
        let pushed = out.push_raw(
            socket::control(WsFrame::ping(Bytes::new())),
            Batch::is_open(),
            false,
        );
        self.pushed(pushed).then_some(Probe { heard_count })
    }

    /// True when a frame (a pong, or anything else) came from the client after
    /// `probe` was sent.
    pub(crate) fn answered_since(&self, probe: Probe) -> bool {
        self.shared.heard_count.load(Ordering::Acquire) != probe.heard_count
            || self.shared.awaiting.load(Ordering::Relaxed)
    }

    /// When the last frame came from the client ([`ConnHandle::heard`]); when the
    /// handle was made if none came yet.
    fn heard_at(&self) -> Instant {
        self.shared.born + Duration::from_millis(self.shared.heard_ms.load(Ordering::Relaxed))
    }

    /// Queues `frame` without waiting. Returns false when the frame was not queued:
    /// the connection is closed or closing, or its queue was full, in which case it
    /// is closed now as a slow consumer.
    pub fn send(&self, frame: Frame) -> bool {
        if self.shared.closed.load(Ordering::Acquire) {
            return false;
        }
        let sent = match &self.shared.tx {
            Target::Socket(out) => {
                let pushed = out.push_text(Bytes::from(frame), Batch::is_open());
                return self.pushed(pushed);
            }
            Target::Queue(tx) => tx.try_send(frame).map_err(unit),
            Target::Relay { relay, remote } => relay
                .tx
                .try_send(Relayed::Frame {
                    to: vec![*remote],
                    frame,
                })
                .map_err(unit),
        };
        self.sent(sent)
    }

    /// A socket push's outcome: true when the frame is on its way.
    fn pushed(&self, pushed: socket::Pushed) -> bool {
        match pushed {
            Ok(Queued::Sent) => true,
            Ok(Queued::InBatch) => {
                Batch::register(self.clone());
                true
            }
            Ok(Queued::Failed) => {
                self.close(CloseReason::NORMAL);
                false
            }
            Err(Refused::Full) => self.sent(Err(mpsc::error::TrySendError::Full(()))),
            Err(Refused::Shut) => false,
        }
    }

    /// The batch this socket was registered with ended: write what it queued.
    fn end_batch(&self) {
        if let Target::Socket(out) = &self.shared.tx {
            if out.end_batch() == Flushed::Failed {
                self.close(CloseReason::NORMAL);
            }
        }
    }

    fn sent(&self, result: Result<(), mpsc::error::TrySendError<()>>) -> bool {
        match result {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(())) => {
                metrics::counter!("ludo_ws_slow_consumer_total").increment(1);
                tracing::info!(
                    conn = self.shared.id,
                    "outbound queue full: closing slow client"
                );
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
        self.answered(false);
    }

    /// Queues an `ack` when the request had an `id`. Either way the request counts
    /// as answered (see [`ConnHandle::for_request`]).
    pub fn ack(&self, id: Option<String>) {
        if let Some(id) = id {
            self.send_msg(
                None,
                &ServerMsg::Ack(protocol::Ack {
                    id,
                    applied_seq: None,
                }),
            );
        }
        self.answered(true);
    }

    /// Queues the `ack` of a resent plan that was already applied by the
    /// `turn_resolved` of `seq` (`applied_seq`), when the request had an `id`.
    pub fn ack_applied(&self, id: Option<String>, seq: u64) {
        if let Some(id) = id {
            self.send_msg(
                None,
                &ServerMsg::Ack(protocol::Ack {
                    id,
                    applied_seq: Some(seq),
                }),
            );
        }
        // A resend: it took effect earlier, not now.
        self.answered(false);
    }

    /// Asks the connection to close with `reason` (the first reason given wins).
    pub fn close(&self, reason: CloseReason) {
        let first = self.shared.reason.set(reason).is_ok();
        self.shared.closed.store(true, Ordering::Release);
        self.shared.closing.cancel();
        if let (true, Target::Relay { relay, remote }) = (first, &self.shared.tx) {
            let _ = relay.closes.send(Relayed::Close {
                to: *remote,
                code: reason.code,
            });
        }
    }

    /// The close reason, once [`ConnHandle::close`] was called.
    pub fn close_reason(&self) -> Option<CloseReason> {
        self.shared.reason.get().copied()
    }

    /// True once the connection is closing or its writer has stopped.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
            || match &self.shared.tx {
                // The writer task closes the handle before it shuts the socket.
                Target::Socket(_) => false,
                Target::Queue(tx) => tx.is_closed(),
                Target::Relay { relay, .. } => relay.tx.is_closed(),
            }
    }

    /// Resolves once [`ConnHandle::close`] was called.
    pub async fn closing(&self) {
        self.shared.closing.cancelled().await
    }
}

/// One broadcast of one frame: queued at once to this node's sockets
/// ([`Fanout::send`]); for the sockets of other nodes, gathered per [`Relay`] and
/// queued once per relay, naming them all ([`Fanout::finish`]). The frame keeps its
/// place in every socket's order: nothing else is queued between the two calls
/// (the room actor makes both without awaiting).
#[derive(Debug)]
pub struct Fanout {
    frame: Frame,
    groups: Vec<(Arc<Relay>, mpsc::OwnedPermit<Relayed>, Vec<u64>)>,
}

impl Fanout {
    /// A broadcast of `frame`.
    pub fn new(frame: Frame) -> Fanout {
        Fanout {
            frame,
            groups: Vec::new(),
        }
    }

    /// Queues the frame to `conn` (a remote socket: reserves its place in the
    /// relay's queue). False as [`ConnHandle::send`]: the connection is closed, or
    /// its queue (its relay's) is full and it is closed now as a slow consumer.
    pub fn send(&mut self, conn: &ConnHandle) -> bool {
        let (relay, remote) = match &conn.shared.tx {
            Target::Socket(_) | Target::Queue(_) => return conn.send(self.frame.clone()),
            Target::Relay { relay, remote } => (relay, *remote),
        };
        if conn.shared.closed.load(Ordering::Acquire) {
            return false;
        }
        if let Some(g) = self.groups.iter_mut().find(|g| Arc::ptr_eq(&g.0, relay)) {
            g.2.push(remote);
            return true;
        }
        match relay.tx.clone().try_reserve_owned() {
            Ok(permit) => {
                self.groups.push((relay.clone(), permit, vec![remote]));
                true
            }
            Err(e) => conn.sent(Err(unit(e))),
        }
    }

    /// Queues the frame once per relay, to the sockets [`Fanout::send`] gathered.
    pub fn finish(self) {
        for (_, permit, to) in self.groups {
            permit.send(Relayed::Frame {
                to,
                frame: self.frame.clone(),
            });
        }
    }
}

thread_local! {
    /// The sockets that queued frames in this thread's open batch, if one is open.
    static BATCH: RefCell<Option<Vec<ConnHandle>>> = const { RefCell::new(None) };
}

/// While a batch is open on a thread, frames sent to this node's sockets from that
/// thread are queued, and each socket's frames leave together, in one `writev`,
/// when the batch ends (the guard is dropped). A room opens one around each event it
/// handles, so a turn's `ack`, `turn_resolved` and `turn_started` reach each socket
/// in one write. A batch opened while another is open on the thread adds to that
/// one. The guard cannot be sent to another thread, and the code that holds it must
/// not await (the room actor never does).
#[derive(Debug)]
pub struct Batch {
    /// False when another batch was already open (that one writes).
    outer: bool,
    _not_send: PhantomData<*const ()>,
}

impl Batch {
    /// Opens a batch on this thread (or joins the one open).
    pub fn open() -> Batch {
        let outer = BATCH.with(|b| {
            let mut b = b.borrow_mut();
            if b.is_some() {
                return false;
            }
            *b = Some(Vec::new());
            true
        });
        Batch {
            outer,
            _not_send: PhantomData,
        }
    }

    fn is_open() -> bool {
        BATCH.with(|b| b.borrow().is_some())
    }

    fn register(conn: ConnHandle) {
        let left = BATCH.with(|b| match b.borrow_mut().as_mut() {
            Some(list) => {
                list.push(conn);
                None
            }
            None => Some(conn),
        });
        // (No batch after all: write at once.)
        if let Some(conn) = left {
            conn.end_batch();
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        if !self.outer {
            return;
        }
        let list = BATCH.with(|b| b.borrow_mut().take()).unwrap_or_default();
        for conn in list {
            conn.end_batch();
        }
    }
}

/// How long the writer spends on the last frames and the close frame.
pub const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// The writer's lag probe (issue 37.5): a socket that was sent frames since its
/// last probe gets a ping carrying the probe's number, every `max` while its
/// frames go out at once, and a third of `max` after its last probe once a write
/// found it full (a slow reader: the probe goes behind what waits); the pong comes
/// back only once the client has read everything queued before the ping (kernel
/// buffers included). A probe not echoed within `max` means the client is that far
/// behind the live stream: it is closed with [`CloseReason::LAGGING`] and resyncs
/// from a snapshot. (One ping per `max` per socket in play: a third of one that
/// probed every socket every third of `max`, which cost ~10 % of a turn's server
/// CPU at 1,000 matches.)
struct LagProbe {
    /// `--max-lag-ms`.
    max: Duration,
    /// The last probe's number (the first is 1).
    number: u64,
    /// The probe waiting for its pong, and when it was sent.
    outstanding: Option<(u64, Instant)>,
    /// When the last probe was sent (the writer's start before the first).
    last_sent: Instant,
    /// [`SocketOut::texts`] when the last probe was sent.
    texts: u64,
}

impl LagProbe {
    fn new(max: Duration) -> LagProbe {
        LagProbe {
            max,
            number: 0,
            outstanding: None,
            last_sent: Instant::now(),
            texts: 0,
        }
    }

    /// Checks the probe waiting (closing the connection when it is late) and sends
    /// the next one when due (`blocked`: frames wait for the socket now); returns
    /// when to look again.
    fn tick(&mut self, conn: &ConnHandle, out: &SocketOut, blocked: bool) -> Instant {
        let now = Instant::now();
        if let Some((number, sent)) = self.outstanding {
            if conn.shared.pong_mark.load(Ordering::Relaxed) >= number {
                self.outstanding = None;
            } else if conn.shared.awaiting.load(Ordering::Relaxed) {
                // The server is not reading: the pong may be waiting in its buffer.
                return now + self.max / 3;
            } else if now >= sent + self.max {
                metrics::counter!("ludo_ws_lagging_total").increment(1);
                tracing::info!(
                    conn = conn.shared.id,
                    "client too far behind: closing it to resync"
                );
                conn.close(CloseReason::LAGGING);
                return now + self.max;
            } else {
                return sent + self.max;
            }
        }
        let every = if blocked { self.max / 3 } else { self.max };
        let texts = out.texts();
        if now >= self.last_sent + every && texts != self.texts {
            self.texts = texts;
            self.number += 1;
            let ping = WsFrame::ping(Bytes::copy_from_slice(&self.number.to_be_bytes()));
            conn.shared.probe_sent.store(self.number, Ordering::Relaxed);
            conn.pinged();
            if conn.pushed(out.push_raw(socket::control(ping), false, false)) {
                self.outstanding = Some((self.number, now));
                self.last_sent = now;
                return now + self.max;
            }
        }
        (self.last_sent + every).max(now + self.max / 3)
    }
}

/// The writer task of one socket (a handle made by [`ConnHandle::socket`]): until
/// the connection closes it writes what a full socket left waiting, once the socket
/// is writable again, and sends a keep-alive ping once the client has sent nothing
/// for `ping_every` (a client that plays or chats gets none: its own frames show it
/// is there and keep the connection's middleboxes awake; a quiet one gets a ping
/// every `ping_every`, as its pong is a frame too); with `max_lag`, it also runs the
/// lag probe ([`LagProbe`]) and closes a client more than `max_lag` behind with
/// [`CloseReason::LAGGING`]; then, within
/// [`CLOSE_TIMEOUT`], the frames still waiting (for close reasons that drain) and a
/// close frame, and it shuts the socket. A failed write closes the connection
/// ([`CloseReason::NORMAL`]). Closing wins over a write blocked by a client that
/// stopped reading.
pub(crate) async fn write_task(conn: ConnHandle, ping_every: Duration, max_lag: Option<Duration>) {
    let Target::Socket(out) = &conn.shared.tx else {
        return;
    };
    let ping = tokio::time::sleep_until(conn.heard_at() + ping_every);
    tokio::pin!(ping);
    let closing = conn.closing();
    tokio::pin!(closing);
    let mut lag = max_lag.map(LagProbe::new);
    let lag_timer = tokio::time::sleep_until(Instant::now() + max_lag.unwrap_or_default());
    tokio::pin!(lag_timer);
    'serve: loop {
        tokio::select! {
            biased;
            _ = &mut closing => break 'serve,
            _ = out.blocked() => {}
            () = &mut lag_timer, if lag.is_some() => {
                if let Some(l) = lag.as_mut() {
                    lag_timer.as_mut().reset(l.tick(&conn, out, false));
                }
                continue;
            }
            () = &mut ping => {
                ping.as_mut().reset(ping_if_quiet(&conn, out, ping_every));
                continue;
            }
        }
        // A write found the socket full: write the rest as it drains (a client that
        // reads too slowly meanwhile is found by the lag probe, probed now if due).
        if let Some(l) = lag.as_mut() {
            if out.is_pending() {
                lag_timer.as_mut().reset(l.tick(&conn, out, true));
            }
        }
        if !drain(&conn, out, closing.as_mut(), &mut lag, lag_timer.as_mut()).await {
            break 'serve;
        }
    }
    // Boxed: the task holds this phase's futures only once it is reached.
    Box::pin(close(
        out,
        conn.close_reason().unwrap_or(CloseReason::NORMAL),
    ))
    .await;
    out.shut();
}

/// The keep-alive ping's timer fired: a ping is due a whole period after the
/// client's last frame, so a socket that spoke since the timer was set is not
/// pinged (issue 14: a ping and its pong cost a socket write, a read and two
/// wake-ups). Returns when the timer is due next.
fn ping_if_quiet(conn: &ConnHandle, out: &SocketOut, ping_every: Duration) -> Instant {
    let (due, now) = (conn.heard_at() + ping_every, Instant::now());
    if due > now {
        return due;
    }
    conn.pinged();
    let pushed = out.push_raw(socket::control(WsFrame::ping(Bytes::new())), false, false);
    conn.pushed(pushed);
    now + ping_every
}

/// Writes what the full socket of `conn` still holds as it drains, probing the
/// client's lag when `lag_timer` fires. False when the writer must end: the
/// connection is closing, or the socket failed (closed 1000).
async fn drain<C: std::future::Future>(
    conn: &ConnHandle,
    out: &SocketOut,
    mut closing: std::pin::Pin<&mut C>,
    lag: &mut Option<LagProbe>,
    mut lag_timer: std::pin::Pin<&mut tokio::time::Sleep>,
) -> bool {
    while out.is_pending() {
        let Some(tcp) = out.tcp() else {
            return false;
        };
        tokio::select! {
            biased;
            _ = &mut closing => return false,
            () = &mut lag_timer, if lag.is_some() => {
                if let Some(l) = lag.as_mut() {
                    lag_timer.as_mut().reset(l.tick(conn, out, true));
                }
                continue;
            }
            r = tcp.writable() => if r.is_err() {
                conn.close(CloseReason::NORMAL);
                return false;
            },
        }
        if out.flush() == Flushed::Failed {
            conn.close(CloseReason::NORMAL);
            return false;
        }
    }
    true
}

/// The end of a socket: for a reason that drains, the frames still waiting, then the
/// close frame (none after the client's own close: tungstenite answered it), within
/// [`CLOSE_TIMEOUT`]; for one that does not, only the close frame.
async fn close(out: &SocketOut, reason: CloseReason) {
    if !reason.drain {
        out.discard();
    }
    if reason == CloseReason::LAGGING {
        // Too far behind to wait for: the close frame goes only if the kernel takes
        // it now (the client reads it after the backlog, if at all), and the reset
        // drops the backlog, so the client reconnects at once.
        out.abort();
        let frame = WsFrame::close(Some(tungstenite::protocol::CloseFrame {
            code: reason.code.into(),
            reason: reason.reason.into(),
        }));
        let _ = out.push_raw(socket::control(frame), false, false);
        return;
    }
    let frame = WsFrame::close(Some(tungstenite::protocol::CloseFrame {
        code: reason.code.into(),
        reason: reason.reason.into(),
    }));
    let _ = tokio::time::timeout(CLOSE_TIMEOUT, async {
        if reason != CloseReason::PEER_CLOSED
            && out.push_raw(socket::control(frame), false, false).is_err()
        {
            return;
        }
        while out.is_pending() {
            let Some(tcp) = out.tcp() else {
                return;
            };
            if tcp.writable().await.is_err() || out.flush() == Flushed::Failed {
                return;
            }
        }
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use tokio::net::{TcpListener, TcpStream};
    use tokio_tungstenite::tungstenite::Message;

    /// A socket of this node (and its read half, kept open) and a WebSocket client
    /// reading it.
    async fn socket_pair(
        cap: usize,
    ) -> (
        ConnHandle,
        tokio_tungstenite::WebSocketStream<TcpStream>,
        tokio::net::tcp::OwnedReadHalf,
    ) {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(l.local_addr().unwrap());
        let (server, client) = tokio::join!(l.accept(), client);
        let (rd, wr) = server.unwrap().0.into_split();
        let conn = ConnHandle::socket(1, SocketOut::new(wr, cap));
        let ws = tokio_tungstenite::WebSocketStream::from_raw_socket(
            client.unwrap(),
            tokio_tungstenite::tungstenite::protocol::Role::Client,
            None,
        )
        .await;
        (conn, ws, rd)
    }

    async fn next_text(ws: &mut tokio_tungstenite::WebSocketStream<TcpStream>) -> String {
        match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => t.to_string(),
            other => panic!("expected a text frame, got {other:?}"),
        }
    }

    /// Frames sent in a batch arrive in order once it ends, after the frame sent
    /// before it; nested batches write at the outer one's end; the close frame comes
    /// last with its code.
    #[tokio::test]
    async fn batched_frames_arrive_in_order_and_the_close_comes_last() {
        let (conn, mut ws, _rd) = socket_pair(16).await;
        let writer = tokio::spawn(write_task(conn.clone(), Duration::from_secs(3600), None));
        assert!(conn.send(Frame::from_static("before")));
        {
            let _b = Batch::open();
            for f in ["ack", "turn_resolved"] {
                assert!(conn.send(Frame::from_static(f)));
            }
            {
                let _inner = Batch::open();
                assert!(conn.send(Frame::from_static("turn_started")));
            }
            assert!(Batch::is_open(), "the inner batch joined the outer one");
        }
        assert!(!Batch::is_open());
        for want in ["before", "ack", "turn_resolved", "turn_started"] {
            assert_eq!(next_text(&mut ws).await, want);
        }
        conn.close(CloseReason::GOING_AWAY);
        writer.await.unwrap();
        match ws.next().await {
            Some(Ok(Message::Close(Some(c)))) => {
                assert_eq!(u16::from(c.code), 1001);
                assert_eq!(c.reason.as_str(), "server shutting down");
            }
            other => panic!("expected the close frame, got {other:?}"),
        }
        assert!(
            !conn.send(Frame::from_static("after")),
            "nothing is sent once closed"
        );
    }

    /// The lag probe (issue 37.5), `max_lag` 3 s, on a socket that takes every frame
    /// at once: probe 1 goes 3 s after the writer started; answered (its pong
    /// echoes 1), nothing happens, and with nothing new sent no probe follows; after
    /// the next frame (at 9.5 s), probe 2 goes at the writer's next look (10 s) and,
    /// unanswered (pongs naming probes not sent yet do not count), the connection is
    /// closed as lagging (4001) 3 s after it went, not before — and not while the
    /// server's own reader waits for a request's answer (then at its next look, 15 s);
    /// the writer then ends.
    #[tokio::test(start_paused = true)]
    async fn a_client_that_does_not_answer_the_lag_probe_is_closed_as_lagging() {
        let (conn, _ws, _rd) = socket_pair(16).await;
        let t0 = Instant::now();
        let writer = tokio::spawn(write_task(
            conn.clone(),
            Duration::from_secs(3600),
            Some(Duration::from_secs(3)),
        ));
        assert!(conn.send(Frame::from_static("turn_started")));
        // A pong naming a probe not sent yet is no answer (it would switch the
        // probe off for good).
        conn.ponged(&7u64.to_be_bytes());
        tokio::time::sleep_until(t0 + Duration::from_millis(3_500)).await;
        conn.ponged(&1u64.to_be_bytes());
        conn.ponged(b"not a probe");
        tokio::time::sleep_until(t0 + Duration::from_millis(9_500)).await;
        assert_eq!(conn.close_reason(), None, "probe 1 was answered");
        assert!(conn.send(Frame::from_static("turn_resolved")));
        // Probe 2 goes at the tick of 10 s; late from 13 s.
        tokio::time::sleep_until(t0 + Duration::from_millis(11_000)).await;
        conn.ponged(&u64::MAX.to_be_bytes());
        tokio::time::sleep_until(t0 + Duration::from_millis(12_900)).await;
        assert_eq!(conn.close_reason(), None, "probe 2 is not late yet");
        // The server's reader waits for a request's answer (the store is slow): it
        // reads no pong, so the late probe is not held against the client yet.
        conn.set_awaiting(true);
        tokio::time::sleep_until(t0 + Duration::from_millis(14_900)).await;
        assert_eq!(conn.close_reason(), None, "not while the reader waits");
        conn.set_awaiting(false);
        tokio::time::sleep_until(t0 + Duration::from_millis(15_100)).await;
        assert_eq!(conn.close_reason(), Some(CloseReason::LAGGING));
        assert_eq!(CloseReason::LAGGING.code, 4001);
        tokio::time::timeout(Duration::from_secs(10), writer)
            .await
            .expect("the writer ends")
            .unwrap();
    }

    /// A client that stops reading: frames wait (the writer task writes them as the
    /// socket drains) until `--outbound-queue` frames wait, then the connection is
    /// closed as a slow consumer (1008) and the writer ends.
    #[tokio::test(start_paused = true)]
    async fn a_client_that_stops_reading_is_closed_as_slow() {
        let (conn, ws, _rd) = socket_pair(8).await;
        let writer = tokio::spawn(write_task(conn.clone(), Duration::from_secs(3600), None));
        let frame = Frame::from("p".repeat(64 * 1024));
        let mut n = 0;
        while conn.send(frame.clone()) {
            n += 1;
            assert!(n < 100_000, "never closed");
        }
        assert_eq!(conn.close_reason(), Some(CloseReason::SLOW_CONSUMER));
        tokio::time::timeout(Duration::from_secs(10), writer)
            .await
            .expect("the writer ends within CLOSE_TIMEOUT")
            .unwrap();
        drop(ws);
    }

    /// A slow consumer that reads again within [`CLOSE_TIMEOUT`] of being closed gets
    /// the whole frames the kernel already held, then the close frame with code 1008
    /// (the frames still queued in the server are dropped, not sent).
    #[tokio::test]
    async fn a_slow_consumer_that_reads_again_in_time_sees_1008() {
        let (conn, mut ws, _rd) = socket_pair(8).await;
        let writer = tokio::spawn(write_task(conn.clone(), Duration::from_secs(3600), None));
        let frame = Frame::from("s".repeat(64 * 1024));
        let mut n = 0;
        while conn.send(frame.clone()) {
            n += 1;
            assert!(n < 100_000, "never closed");
        }
        assert_eq!(conn.close_reason(), Some(CloseReason::SLOW_CONSUMER));
        let mut frames = 0;
        let code = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match ws.next().await {
                    Some(Ok(Message::Text(t))) => {
                        assert_eq!(t.len(), 64 * 1024, "whole frames only");
                        frames += 1;
                    }
                    Some(Ok(Message::Close(Some(c)))) => break (u16::from(c.code), c.reason),
                    other => panic!("expected frames, then the close frame: {other:?}"),
                }
            }
        })
        .await
        .expect("the close frame arrives");
        assert_eq!(code.0, 1008);
        assert_eq!(code.1.as_str(), "too slow to read");
        assert!(
            frames < n,
            "{frames} of {n} frames: the queued ones were dropped"
        );
        writer.await.unwrap();
    }

    /// Frames that waited for a slow socket are all delivered, in order, once the
    /// client reads again.
    #[tokio::test]
    async fn frames_that_waited_arrive_in_order() {
        let (conn, mut ws, _rd) = socket_pair(64).await;
        let _writer = tokio::spawn(write_task(conn.clone(), Duration::from_secs(3600), None));
        let big = "q".repeat(256 * 1024);
        for i in 0..40 {
            assert!(conn.send(Frame::from(format!("{i}:{big}"))), "frame {i}");
        }
        for i in 0..40 {
            let got = next_text(&mut ws).await;
            assert_eq!(got.split(':').next(), Some(i.to_string().as_str()));
            assert_eq!(got.len(), big.len() + 1 + i.to_string().len());
        }
    }

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
    async fn a_request_handle_signals_its_first_answer() {
        let (tx, mut rx) = mpsc::channel(4);
        let c = ConnHandle::new(3, tx);
        let (r, answered) = c.for_request();
        assert_eq!(r.id(), c.id(), "the same connection");
        let waiting = tokio::spawn(answered.wait());
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "no answer yet");
        r.clone().ack(Some("j1".into()));
        waiting.await.unwrap();
        assert_eq!(
            rx.recv().await.unwrap().as_str(),
            r#"{"t":"ack","d":{"id":"j1"}}"#
        );

        // An ack without id sends nothing but still answers; so does dropping the
        // handle unanswered.
        let (r, answered) = c.for_request();
        r.ack(None);
        answered.wait().await;
        let (r, answered) = c.for_request();
        drop(r);
        answered.wait().await;
        assert!(rx.try_recv().is_err());
    }

    /// The exact-size copy keeps the protocol's encoding byte for byte.
    #[test]
    fn encode_is_the_protocol_encoding() {
        let f = encode(Some(3), &ServerMsg::Pong);
        assert_eq!(
            f.as_str(),
            protocol::encode_server(Some(3), &ServerMsg::Pong)
        );
    }

    /// A broadcast to one local socket and three sockets of another node: the local
    /// one gets the frame in its queue, the relay gets it once naming the three; a
    /// reply to one remote socket queued before it stays before it; a close goes
    /// through the relay's close queue.
    #[tokio::test]
    async fn a_broadcast_is_relayed_once_per_node() {
        let (tx, mut local_rx) = mpsc::channel(4);
        let local = ConnHandle::new(1, tx);
        let (relay, mut rx, mut closes) = Relay::new(8);
        let remote: Vec<ConnHandle> = (0..3).map(|i| relay.conn(10 + i, 100 + i)).collect();
        assert!(remote[1].send(Frame::from_static("ack")));
        let mut fan = Fanout::new(Frame::from_static("turn_resolved"));
        assert!(fan.send(&remote[0]));
        assert!(fan.send(&local));
        assert!(fan.send(&remote[1]));
        assert!(fan.send(&remote[2]));
        fan.finish();
        assert_eq!(local_rx.recv().await.unwrap().as_str(), "turn_resolved");
        assert_eq!(
            rx.recv().await.unwrap(),
            Relayed::Frame {
                to: vec![101],
                frame: Frame::from_static("ack")
            }
        );
        assert_eq!(
            rx.recv().await.unwrap(),
            Relayed::Frame {
                to: vec![100, 101, 102],
                frame: Frame::from_static("turn_resolved")
            }
        );
        assert!(rx.try_recv().is_err(), "one item for the three sockets");
        remote[2].close(CloseReason::REPLACED);
        remote[2].close(CloseReason::NORMAL);
        assert_eq!(
            closes.recv().await.unwrap(),
            Relayed::Close {
                to: 102,
                code: 4000
            }
        );
        assert!(closes.try_recv().is_err(), "closed once");
        let mut fan = Fanout::new(Frame::from_static("turn_started"));
        assert!(!fan.send(&remote[2]), "a closed socket gets nothing");
        assert!(fan.send(&remote[0]));
        fan.finish();
        assert_eq!(
            rx.recv().await.unwrap(),
            Relayed::Frame {
                to: vec![100],
                frame: Frame::from_static("turn_started")
            }
        );
    }

    /// A relay whose queue is full: its sockets are closed as slow consumers (each
    /// close still reaches the relay), the other sockets are not affected.
    #[tokio::test]
    async fn a_full_relay_closes_its_sockets_as_slow() {
        let (relay, mut rx, mut closes) = Relay::new(1);
        let a = relay.conn(1, 7);
        let b = relay.conn(2, 8);
        assert!(a.send(Frame::from_static("x")));
        let mut fan = Fanout::new(Frame::from_static("y"));
        assert!(!fan.send(&a));
        assert!(!fan.send(&b));
        fan.finish();
        assert_eq!(a.close_reason(), Some(CloseReason::SLOW_CONSUMER));
        assert_eq!(b.close_reason(), Some(CloseReason::SLOW_CONSUMER));
        assert!(matches!(rx.recv().await, Some(Relayed::Frame { .. })));
        assert!(rx.try_recv().is_err(), "nothing more was queued");
        let mut closed = vec![closes.recv().await.unwrap(), closes.recv().await.unwrap()];
        closed.sort_by_key(|c| match c {
            Relayed::Close { to, .. } => *to,
            Relayed::Frame { .. } => 0,
        });
        assert_eq!(
            closed,
            vec![
                Relayed::Close { to: 7, code: 1008 },
                Relayed::Close { to: 8, code: 1008 }
            ]
        );
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
