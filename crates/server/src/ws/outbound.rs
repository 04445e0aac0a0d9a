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
//!
//! [`write_loop`] is the writer task: it writes the frames queued together (a
//! turn's `ack`, `turn_resolved` and `turn_started` arrive at once) as one batch
//! and flushes once, so a turn costs each socket one wake-up and one `write`.

use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use futures_util::{Sink, SinkExt};
use protocol::ServerMsg;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// One encoded server frame (JSON text), cheap to clone.
pub type Frame = Utf8Bytes;

/// Encodes a server message once, ready to be shared by many queues. The bytes are
/// allocated at their exact length: the JSON encoder grows its buffer by doubling,
/// and a frame kept in a room's resync history would otherwise hold up to twice
/// its length for as long as it is kept.
pub fn encode(seq: Option<u64>, msg: &ServerMsg) -> Frame {
    let json = protocol::encode_server(seq, msg).into_boxed_str();
    Utf8Bytes::from(String::from(json))
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
    /// 4000: the same player connected again; the newer socket wins. Documented in
    /// `proto/README.md` §2: a client must not reconnect automatically on it.
    pub const REPLACED: CloseReason = CloseReason {
        code: 4000,
        reason: "replaced by a newer connection",
        drain: true,
    };
}

/// Where a connection's frames go.
#[derive(Debug)]
enum Target {
    /// A socket of this node: its writer's queue.
    Local(mpsc::Sender<Frame>),
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
}

/// The signal of one request's answer: fired by the first `ack` or `error` sent
/// through a handle of [`ConnHandle::for_request`].
#[derive(Debug)]
struct ReplySlot(Mutex<Option<oneshot::Sender<()>>>);

impl ReplySlot {
    fn fire(&self) {
        let tx = self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(tx) = tx {
            let _ = tx.send(());
        }
    }
}

/// Resolves once the request it belongs to was answered (see
/// [`ConnHandle::for_request`]).
#[derive(Debug)]
pub struct Answered(oneshot::Receiver<()>);

impl Answered {
    /// Waits for the answer: the first `ack` or `error` sent through the request's
    /// handle, or the moment every clone of that handle was dropped unanswered (the
    /// actor holding it stopped).
    pub async fn wait(self) {
        let _ = self.0.await;
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
    /// A handle with connection id `id`, sending into `tx`.
    pub fn new(id: u64, tx: mpsc::Sender<Frame>) -> ConnHandle {
        ConnHandle::with_sink(id, Target::Local(tx))
    }

    fn with_sink(id: u64, tx: Target) -> ConnHandle {
        ConnHandle {
            shared: Arc::new(Shared {
                id,
                tx,
                closing: CancellationToken::new(),
                closed: AtomicBool::new(false),
                reason: OnceLock::new(),
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

    fn answered(&self) {
        if let Some(r) = &self.reply {
            r.fire();
        }
    }

    /// The connection id (unique per server run).
    pub fn id(&self) -> u64 {
        self.shared.id
    }

    /// Queues `frame` without waiting. Returns false when the frame was not queued:
    /// the connection is closed or closing, or its queue was full, in which case it
    /// is closed now as a slow consumer.
    pub fn send(&self, frame: Frame) -> bool {
        if self.shared.closed.load(Ordering::Acquire) {
            return false;
        }
        let sent = match &self.shared.tx {
            Target::Local(tx) => tx.try_send(frame).map_err(unit),
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
        self.answered();
    }

    /// Queues an `ack` when the request had an `id`. Either way the request counts
    /// as answered (see [`ConnHandle::for_request`]).
    pub fn ack(&self, id: Option<String>) {
        if let Some(id) = id {
            self.send_msg(None, &ServerMsg::Ack(protocol::Ack { id }));
        }
        self.answered();
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
                Target::Local(tx) => tx.is_closed(),
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
            Target::Local(_) => return conn.send(self.frame.clone()),
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

/// Most queued frames written before one flush (a turn queues 2–3 per socket).
pub const MAX_FRAMES_PER_FLUSH: usize = 32;

/// How long the writer spends on the last frames and the close frame.
pub const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// The writer task of one connection: queued frames and keep-alive pings out until
/// the connection closes; then the frames still queued (for close reasons that
/// drain) and a close frame, within [`CLOSE_TIMEOUT`].
///
/// Frames queued together are written as one batch: the first one wakes the task,
/// the rest are taken with `try_recv` (at most [`MAX_FRAMES_PER_FLUSH`]), each is
/// fed to `sink` (which buffers it: see `ws::WRITE_BUFFER_BYTES`) and the batch is
/// flushed once, in one `write` to the socket. A failed write closes the
/// connection ([`CloseReason::NORMAL`]). Closing wins over a write blocked by a
/// client that stopped reading.
pub async fn write_loop<S>(
    mut sink: S,
    mut rx: mpsc::Receiver<Frame>,
    conn: ConnHandle,
    ping_every: Duration,
) where
    S: Sink<Message> + Unpin,
{
    let mut ping = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // One registration with the close signal for the connection's life, not one
    // per frame.
    let closing = conn.closing();
    tokio::pin!(closing);
    loop {
        let first = tokio::select! {
            biased;
            _ = &mut closing => break,
            f = rx.recv() => match f {
                Some(f) => Message::Text(f),
                None => break,
            },
            _ = ping.tick() => Message::Ping(Bytes::new()),
        };
        let sent = tokio::select! {
            biased;
            _ = &mut closing => break,
            r = write_batch(&mut sink, first, &mut rx) => r,
        };
        if sent.is_err() {
            conn.close(CloseReason::NORMAL);
            break;
        }
    }
    let reason = conn.close_reason().unwrap_or(CloseReason::NORMAL);
    let _ = tokio::time::timeout(CLOSE_TIMEOUT, async {
        if reason.drain {
            while let Ok(f) = rx.try_recv() {
                if sink.feed(Message::Text(f)).await.is_err() {
                    return;
                }
            }
        }
        let close = CloseFrame {
            code: reason.code,
            reason: reason.reason.into(),
        };
        let _ = sink.send(Message::Close(Some(close))).await;
    })
    .await;
}

/// Feeds `first` and the frames already queued behind it (at most
/// [`MAX_FRAMES_PER_FLUSH`] in all), then flushes once.
async fn write_batch<S>(
    sink: &mut S,
    first: Message,
    rx: &mut mpsc::Receiver<Frame>,
) -> Result<(), S::Error>
where
    S: Sink<Message> + Unpin,
{
    sink.feed(first).await?;
    for _ in 1..MAX_FRAMES_PER_FLUSH {
        match rx.try_recv() {
            Ok(f) => sink.feed(Message::Text(f)).await?,
            Err(_) => break,
        }
    }
    sink.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// A sink that records what it was fed and how the feeds were grouped into
    /// flushes.
    #[derive(Default)]
    struct Recorder {
        buffered: Vec<Message>,
        flushes: Vec<Vec<Message>>,
    }

    impl Sink<Message> for Recorder {
        type Error = std::convert::Infallible;
        fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
            Poll::Ready(Ok(()))
        }
        fn start_send(mut self: Pin<&mut Self>, m: Message) -> Result<(), Self::Error> {
            self.buffered.push(m);
            Ok(())
        }
        fn poll_flush(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Result<(), Self::Error>> {
            let batch = std::mem::take(&mut self.buffered);
            if !batch.is_empty() {
                self.flushes.push(batch);
            }
            Poll::Ready(Ok(()))
        }
        fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
            self.poll_flush(cx)
        }
    }

    fn text(m: &Message) -> &str {
        match m {
            Message::Text(t) => t.as_str(),
            Message::Close(Some(c)) => c.reason.as_str(),
            other => panic!("unexpected {other:?}"),
        }
    }

    /// Frames queued together (a turn's ack, turn_resolved and turn_started) go out
    /// in one flush; a frame queued later gets its own; the close frame comes last.
    #[tokio::test(start_paused = true)]
    async fn frames_queued_together_are_flushed_once() {
        let (tx, rx) = mpsc::channel(16);
        let conn = ConnHandle::new(1, tx);
        for f in ["ack", "turn_resolved", "turn_started"] {
            assert!(conn.send(Frame::from_static(f)));
        }
        let mut sink = Recorder::default();
        let c = conn.clone();
        let writer = tokio::spawn(async move {
            write_loop(&mut sink, rx, c, Duration::from_secs(3600)).await;
            sink
        });
        tokio::task::yield_now().await;
        assert!(conn.send(Frame::from_static("later")));
        tokio::task::yield_now().await;
        conn.close(CloseReason::GOING_AWAY);
        let sink = writer.await.unwrap();
        let batches: Vec<Vec<&str>> = sink
            .flushes
            .iter()
            .map(|b| b.iter().map(text).collect())
            .collect();
        assert_eq!(
            batches,
            vec![
                vec!["ack", "turn_resolved", "turn_started"],
                vec!["later"],
                vec!["server shutting down"],
            ]
        );
    }

    /// At most MAX_FRAMES_PER_FLUSH frames per flush, and nothing is lost.
    #[tokio::test(start_paused = true)]
    async fn a_long_queue_is_flushed_in_bounded_batches() {
        let n = MAX_FRAMES_PER_FLUSH + 5;
        let (tx, rx) = mpsc::channel(n);
        let conn = ConnHandle::new(2, tx);
        for i in 0..n {
            assert!(conn.send(Frame::from(i.to_string())));
        }
        conn.close(CloseReason::GOING_AWAY);
        // Closing before the writer ran: the queue is drained before the close frame.
        let mut sink = Recorder::default();
        write_loop(&mut sink, rx, conn, Duration::from_secs(3600)).await;
        let all: Vec<&str> = sink.flushes.iter().flatten().map(text).collect();
        let expected: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        assert_eq!(
            &all[..n],
            expected.iter().map(String::as_str).collect::<Vec<_>>()
        );
        assert_eq!(all[n], "server shutting down");

        let (tx, rx) = mpsc::channel(n);
        let conn = ConnHandle::new(3, tx);
        for i in 0..n {
            assert!(conn.send(Frame::from(i.to_string())));
        }
        let mut sink = Recorder::default();
        let c = conn.clone();
        let writer = tokio::spawn(async move {
            write_loop(&mut sink, rx, c, Duration::from_secs(3600)).await;
            sink
        });
        tokio::task::yield_now().await;
        conn.close(CloseReason::NORMAL);
        let sink = writer.await.unwrap();
        let sizes: Vec<usize> = sink.flushes.iter().map(Vec::len).collect();
        assert_eq!(
            sizes,
            vec![MAX_FRAMES_PER_FLUSH, 5, 1],
            "two batches, then the close frame"
        );
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
