//! The byte level of one WebSocket: the TCP socket shared by the reader and every
//! sender, and the bytes still waiting for it.
//!
//! **Direct writes.** A frame queued for a socket ([`SocketOut::push`]) is written by
//! the task that queues it (a room, the matchmaker, the socket's own reader) with one
//! non-blocking `writev` of the frame header and the shared frame bytes: no task
//! wakes up to write it, no per-socket buffer copies it, and a frame broadcast to
//! four sockets stays one allocation. Only what the kernel does not take at once (a
//! client that reads slowly) waits here, in order, and the socket's writer task
//! writes it once the socket is writable again. Frames queued while a
//! [`super::outbound::Batch`] is open on the thread (a room's commit: the `ack`,
//! `turn_resolved` and `turn_started` of a turn) leave together, in one `writev`
//! per socket, when the batch ends.
//!
//! **Framing** is tungstenite's: a header from its [`FrameHeader`], and for control
//! frames its [`Frame`] encoder. Reading is tokio-tungstenite's, over [`SocketIo`]:
//! its reads come from the socket, and what tungstenite writes itself (the `pong`
//! to a client's `ping`, the reply to a client's close) joins the same queue, so
//! every byte of the socket leaves through one ordered path.

use axum::body::Bytes;
use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::Notify;
use tungstenite::protocol::frame::coding::{Data, OpCode};
use tungstenite::protocol::frame::{Frame as WsFrame, FrameHeader};

/// Most byte ranges handed to one `writev` (the kernel takes up to 1,024; a turn
/// needs six: three frames, each a header and its payload).
const MAX_IOV: usize = 64;

/// Longest frame header: 2 bytes, an 8-byte length, no mask (server frames are not
/// masked, RFC 6455 §5.1).
const MAX_HEADER: usize = 10;

/// A byte range waiting for the socket.
#[derive(Debug)]
enum Segment {
    /// A frame header, `len` bytes of `bytes` from `at`.
    Head {
        bytes: [u8; MAX_HEADER],
        at: u8,
        len: u8,
    },
    /// A payload, or a whole control frame; `last` when it ends a frame.
    Body { bytes: Bytes, last: bool },
}

impl Segment {
    fn as_slice(&self) -> &[u8] {
        match self {
            Segment::Head { bytes, at, len } => &bytes[*at as usize..*len as usize],
            Segment::Body { bytes, .. } => bytes,
        }
    }

    /// Drops the first `n` bytes (fewer than the segment has).
    fn advance(&mut self, n: usize) {
        match self {
            Segment::Head { at, .. } => *at += n as u8,
            Segment::Body { bytes, .. } => {
                let _ = bytes.split_to(n);
            }
        }
    }

    fn ends_frame(&self) -> bool {
        matches!(self, Segment::Body { last: true, .. })
    }
}

/// What a write attempt came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flushed {
    /// Everything queued is written.
    Done,
    /// The socket takes no more now; the rest waits for the writer task.
    Blocked,
    /// The socket failed (reset, broken pipe) or was shut: the connection is over.
    Failed,
}

/// Why a frame was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Already `cap` frames wait for a client that does not read: a slow consumer.
    Full,
    /// The socket is shut.
    Shut,
}

#[derive(Debug)]
struct OutState {
    /// `None` once the connection ended ([`SocketOut::shut`]).
    tcp: Option<Arc<OwnedWriteHalf>>,
    /// What the kernel has not taken yet, in order.
    queue: VecDeque<Segment>,
    /// Whole frames in `queue` (checked against the cap).
    frames: usize,
    /// Text frames pushed since the socket opened (the writer's lag probe goes only
    /// to a socket that was sent something since the last one).
    texts: u64,
    /// A write found the socket full: the writer task writes the rest once it is
    /// writable, and nothing is written before it.
    blocked: bool,
    /// Registered in the thread's open batch: written when the batch ends.
    batched: bool,
    /// Some bytes of the first frame in `queue` are written: the rest of it must
    /// follow before anything else.
    started: bool,
}

/// The sending side of one socket: the frames not written yet and the signal of the
/// socket's writer task. Shared (in an `Arc`) by every handle of the connection.
#[derive(Debug)]
pub(crate) struct SocketOut {
    state: Mutex<OutState>,
    /// Wakes the writer task: a write blocked.
    blocked: Notify,
    /// Most frames that may wait (`--outbound-queue`).
    cap: usize,
}

/// The result of queuing a frame.
pub(crate) type Pushed = Result<Queued, Refused>;

/// A queued frame's next step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Queued {
    /// Written (or waiting for the writer task): nothing more to do.
    Sent,
    /// Queued in the thread's open batch: the caller registers the socket with it.
    InBatch,
    /// Written partly or not at all, and the socket failed.
    Failed,
}

impl SocketOut {
    /// The sending side of `tcp`, letting at most `cap` frames wait.
    pub(crate) fn new(tcp: OwnedWriteHalf, cap: usize) -> SocketOut {
        SocketOut {
            state: Mutex::new(OutState {
                tcp: Some(Arc::new(tcp)),
                queue: VecDeque::new(),
                frames: 0,
                texts: 0,
                blocked: false,
                batched: false,
                started: false,
            }),
            blocked: Notify::new(),
            cap,
        }
    }

    fn lock(&self) -> MutexGuard<'_, OutState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues the text frame `payload` and writes it now, unless `batch` (the
    /// thread has an open batch: the frame waits for its end, and `InBatch` asks the
    /// caller to register the socket once) or earlier bytes still wait.
    pub(crate) fn push_text(&self, payload: Bytes, batch: bool) -> Pushed {
        let mut head = [0u8; MAX_HEADER];
        let len = header(&mut head, OpCode::Data(Data::Text), payload.len());
        let mut st = self.lock();
        let Some(tcp) = st.tcp.clone() else {
            return Err(Refused::Shut);
        };
        if st.frames >= self.cap {
            return Err(Refused::Full);
        }
        st.texts += 1;
        if !batch && !st.blocked && st.queue.is_empty() {
            // The common case: nothing waits, write the frame at once; only what the
            // socket does not take is queued.
            let iov = [IoSlice::new(&head[..len as usize]), IoSlice::new(&payload)];
            let written = match tcp.try_write_vectored(&iov) {
                Ok(0) => return Ok(Queued::Failed),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => 0,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => 0,
                Err(_) => return Ok(Queued::Failed),
            };
            if written == len as usize + payload.len() {
                return Ok(Queued::Sent);
            }
            enqueue(&mut st, head, len, payload);
            consume(&mut st, written);
            return Ok(match self.write_queued(&mut st) {
                Flushed::Failed => Queued::Failed,
                _ => Queued::Sent,
            });
        }
        enqueue(&mut st, head, len, payload);
        Ok(self.after_push(&mut st, batch))
    }

    /// Queues a control frame (`ping`, `close`) or bytes tungstenite wrote itself
    /// (`capped`: the pong of a client's ping counts against the cap like any frame;
    /// the writer's own pings and close frame do not, so a close gets through), and
    /// writes them now unless a batch is open or earlier bytes wait.
    pub(crate) fn push_raw(&self, bytes: Bytes, batch: bool, capped: bool) -> Pushed {
        let mut st = self.lock();
        if st.tcp.is_none() {
            return Err(Refused::Shut);
        }
        if capped && st.frames >= self.cap {
            return Err(Refused::Full);
        }
        st.queue.push_back(Segment::Body { bytes, last: true });
        st.frames += 1;
        Ok(self.after_push(&mut st, batch))
    }

    fn after_push(&self, st: &mut OutState, batch: bool) -> Queued {
        if st.blocked {
            return Queued::Sent;
        }
        if batch {
            if st.batched {
                return Queued::Sent;
            }
            st.batched = true;
            return Queued::InBatch;
        }
        match self.write_queued(st) {
            Flushed::Failed => Queued::Failed,
            _ => Queued::Sent,
        }
    }

    /// Text frames pushed since the socket opened.
    pub(crate) fn texts(&self) -> u64 {
        self.lock().texts
    }

    /// The batch this socket was registered with ended: writes what it queued.
    pub(crate) fn end_batch(&self) -> Flushed {
        let mut st = self.lock();
        st.batched = false;
        if st.blocked {
            return Flushed::Blocked;
        }
        self.write_queued(&mut st)
    }

    /// The writer task's write, once the socket is writable again.
    pub(crate) fn flush(&self) -> Flushed {
        let mut st = self.lock();
        st.blocked = false;
        self.write_queued(&mut st)
    }

    /// Writes what is queued, as far as the socket takes it without waiting; a
    /// socket that takes no more marks the queue blocked and wakes the writer task.
    fn write_queued(&self, st: &mut OutState) -> Flushed {
        let Some(tcp) = st.tcp.clone() else {
            return Flushed::Failed;
        };
        while !st.queue.is_empty() {
            let mut iov = [IoSlice::new(&[]); MAX_IOV];
            let n = st.queue.len().min(MAX_IOV);
            for (slot, seg) in iov.iter_mut().zip(st.queue.iter()) {
                *slot = IoSlice::new(seg.as_slice());
            }
            match tcp.try_write_vectored(&iov[..n]) {
                Ok(0) => return Flushed::Failed,
                Ok(written) => consume(st, written),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    st.blocked = true;
                    self.blocked.notify_one();
                    return Flushed::Blocked;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Flushed::Failed,
            }
        }
        // Nothing waits: give the queue's memory back (an idle socket holds none).
        st.queue = VecDeque::new();
        Flushed::Done
    }

    /// Resolves once a write blocked (the writer task then waits for the socket).
    pub(crate) async fn blocked(&self) {
        self.blocked.notified().await
    }

    /// The socket's write half, while the connection lasts.
    pub(crate) fn tcp(&self) -> Option<Arc<OwnedWriteHalf>> {
        self.lock().tcp.clone()
    }

    /// Drops every frame still waiting (a close that does not drain), except the
    /// rest of a frame partly written already (the client must get whole frames).
    pub(crate) fn discard(&self) {
        let mut st = self.lock();
        let keep = if st.started {
            st.queue
                .iter()
                .position(Segment::ends_frame)
                .map_or(0, |i| i + 1)
        } else {
            0
        };
        st.queue.truncate(keep);
        st.frames = usize::from(keep > 0);
    }

    /// True while bytes wait for the socket.
    pub(crate) fn is_pending(&self) -> bool {
        !self.lock().queue.is_empty()
    }

    /// Makes the socket's close abortive (`SO_LINGER` 0): once both halves are
    /// dropped the peer gets a reset at once, and the bytes the kernel still holds
    /// for it are dropped rather than sent first (a client too far behind,
    /// `CloseReason::LAGGING`).
    pub(crate) fn abort(&self) {
        if let Some(tcp) = &self.lock().tcp {
            let _ = tcp.as_ref().as_ref().set_zero_linger();
        }
    }

    /// The connection ended: nothing more is queued or written, and the write half
    /// is released (the socket closes once the reader drops its half too).
    pub(crate) fn shut(&self) {
        let mut st = self.lock();
        st.tcp = None;
        st.queue = VecDeque::new();
        st.frames = 0;
    }
}

/// Queues one text frame: its `len`-byte header `head`, then its payload.
fn enqueue(st: &mut OutState, head: [u8; MAX_HEADER], len: u8, payload: Bytes) {
    st.queue.push_back(Segment::Head {
        bytes: head,
        at: 0,
        len,
    });
    st.queue.push_back(Segment::Body {
        bytes: payload,
        last: true,
    });
    st.frames += 1;
}

/// Drops the first `written` bytes of the queue.
fn consume(st: &mut OutState, mut written: usize) {
    while written > 0 {
        let Some(seg) = st.queue.front_mut() else {
            return;
        };
        let len = seg.as_slice().len();
        if written < len {
            seg.advance(written);
            st.started = true;
            return;
        }
        written -= len;
        let last = seg.ends_frame();
        if last {
            st.frames -= 1;
        }
        st.started = !last;
        st.queue.pop_front();
    }
}

/// Writes the header of a final, unmasked frame of `opcode` with `len` payload
/// bytes into `out`; returns its length.
fn header(out: &mut [u8; MAX_HEADER], opcode: OpCode, len: usize) -> u8 {
    let h = FrameHeader {
        is_final: true,
        opcode,
        ..FrameHeader::default()
    };
    let mut cursor = io::Cursor::new(&mut out[..]);
    h.format(len as u64, &mut cursor)
        .expect("a frame header fits in 10 bytes");
    cursor.position() as u8
}

/// A control frame's bytes (header and payload), by tungstenite's encoder.
pub(crate) fn control(frame: WsFrame) -> Bytes {
    let mut out = Vec::with_capacity(frame.len());
    frame
        .format(&mut out)
        .expect("writing to a Vec does not fail");
    Bytes::from(out)
}

/// The stream tokio-tungstenite reads the socket through: reads come from the
/// socket, and what tungstenite writes itself (pongs, a close reply) is queued on
/// the connection's [`SocketOut`] and written in order with everything else.
#[derive(Debug)]
pub(crate) struct SocketIo {
    rd: OwnedReadHalf,
    out: Arc<SocketOut>,
}

impl SocketIo {
    /// Reads from `rd`; tungstenite's own frames go to `out`.
    pub(crate) fn new(rd: OwnedReadHalf, out: Arc<SocketOut>) -> SocketIo {
        SocketIo { rd, out }
    }
}

impl AsyncRead for SocketIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.rd).poll_read(cx, buf)
    }
}

impl SocketIo {
    /// Reads and drops what the client still sends until it closes its side (or
    /// the read fails): closing a socket with unread bytes in it resets it, and the
    /// client would lose the frames it has not read yet.
    pub(crate) async fn drain(&mut self) {
        use tokio::io::AsyncReadExt;
        let mut scratch = [0u8; 512];
        while matches!(self.rd.read(&mut scratch).await, Ok(n) if n > 0) {}
    }
}

/// The error tungstenite's write gets when the client let `--outbound-queue`
/// frames wait (its pongs count too): the connection closes as a slow consumer.
#[derive(Debug)]
struct QueueFull;

impl std::fmt::Display for QueueFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("outbound queue full")
    }
}

impl std::error::Error for QueueFull {}

/// True for the error of a write refused because the outbound queue was full.
pub(crate) fn is_queue_full(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<QueueFull>())
}

impl AsyncWrite for SocketIo {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.out.push_raw(Bytes::copy_from_slice(buf), false, true) {
            Err(Refused::Full) => Poll::Ready(Err(io::Error::other(QueueFull))),
            Ok(Queued::Failed) | Err(_) => Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())),
            Ok(_) => Poll::Ready(Ok(buf.len())),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;
    use tokio::net::{TcpListener, TcpStream};

    /// The write half of a server socket (its read half kept alive beside it) and
    /// the client.
    async fn pair() -> ((OwnedWriteHalf, OwnedReadHalf), TcpStream) {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(l.local_addr().unwrap());
        let (server, client) = tokio::join!(l.accept(), client);
        let (rd, wr) = server.unwrap().0.into_split();
        ((wr, rd), client.unwrap())
    }

    /// Reads WebSocket text frames (server frames: unmasked) until `n` arrived.
    async fn read_frames(client: &mut TcpStream, n: usize) -> Vec<String> {
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while out.len() < n {
            let mut chunk = [0u8; 4096];
            let k = client.read(&mut chunk).await.unwrap();
            assert!(k > 0, "closed early");
            buf.extend_from_slice(&chunk[..k]);
            loop {
                let mut cur = io::Cursor::new(&buf[..]);
                let Some((h, len)) = FrameHeader::parse(&mut cur).unwrap() else {
                    break;
                };
                let start = cur.position() as usize;
                if buf.len() < start + len as usize {
                    break;
                }
                assert_eq!(h.opcode, OpCode::Data(Data::Text));
                assert!(h.is_final && h.mask.is_none());
                out.push(String::from_utf8(buf[start..start + len as usize].to_vec()).unwrap());
                buf.drain(..start + len as usize);
            }
        }
        out
    }

    /// A frame written directly arrives whole; frames of a batch wait for its end
    /// and then arrive in order; headers of every length class are right.
    #[tokio::test]
    async fn frames_arrive_whole_and_in_order() {
        let ((tcp, _rd), mut client) = pair().await;
        let out = SocketOut::new(tcp, 8);
        let big = "x".repeat(70_000);
        let mid = "y".repeat(300);
        assert_eq!(
            out.push_text(Bytes::from_static(b"a"), false),
            Ok(Queued::Sent)
        );
        assert_eq!(
            out.push_text(Bytes::from(mid.clone()), true),
            Ok(Queued::InBatch)
        );
        assert_eq!(
            out.push_text(Bytes::from(big.clone()), true),
            Ok(Queued::Sent)
        );
        assert!(out.is_pending(), "batched frames wait for the batch's end");
        assert_eq!(out.end_batch(), Flushed::Done);
        assert!(!out.is_pending());
        assert_eq!(
            read_frames(&mut client, 3).await,
            vec!["a".to_string(), mid, big]
        );
    }

    /// A client that does not read: what the kernel does not take waits, in order;
    /// past `cap` waiting frames a push is refused as `Full`; once the client reads,
    /// the writer's flush delivers everything.
    #[tokio::test]
    async fn a_full_socket_queues_in_order_up_to_the_cap() {
        let ((tcp, _rd), mut client) = pair().await;
        let out = Arc::new(SocketOut::new(tcp, 4));
        let frame = Bytes::from("z".repeat(64 * 1024));
        let mut sent = 0;
        // Fill the kernel's buffers until a write blocks.
        loop {
            assert_eq!(out.push_text(frame.clone(), false), Ok(Queued::Sent));
            sent += 1;
            if out.is_pending() {
                break;
            }
            assert!(sent < 10_000, "the socket never filled");
        }
        let mut refused = false;
        for _ in 0..4 {
            match out.push_text(frame.clone(), false) {
                Ok(Queued::Sent) => sent += 1,
                Err(Refused::Full) => {
                    refused = true;
                    break;
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        assert!(refused, "at most 4 frames wait");
        tokio::time::timeout(std::time::Duration::from_secs(5), out.blocked())
            .await
            .expect("the writer task was told");
        let reader = tokio::spawn(async move {
            let got = read_frames(&mut client, sent).await;
            assert!(got.iter().all(|f| f.len() == 64 * 1024));
            got.len()
        });
        while out.is_pending() {
            out.tcp().unwrap().writable().await.unwrap();
            assert_ne!(out.flush(), Flushed::Failed);
        }
        assert_eq!(reader.await.unwrap(), sent);
    }

    /// A shut socket refuses frames and holds nothing.
    #[tokio::test]
    async fn a_shut_socket_refuses() {
        let ((tcp, _rd), _client) = pair().await;
        let out = SocketOut::new(tcp, 4);
        out.shut();
        assert!(out.tcp().is_none());
        assert_eq!(
            out.push_text(Bytes::from_static(b"a"), false),
            Err(Refused::Shut)
        );
        assert_eq!(out.flush(), Flushed::Failed);
    }

    /// Control frames are tungstenite's encoding.
    #[test]
    fn control_frames_are_tungstenites() {
        assert_eq!(&control(WsFrame::ping(Vec::new()))[..], &[0x89, 0x00]);
        let close = control(WsFrame::close(Some(tungstenite::protocol::CloseFrame {
            code: 1000.into(),
            reason: "bye".into(),
        })));
        assert_eq!(&close[..], &[0x88, 0x05, 0x03, 0xe8, b'b', b'y', b'e']);
    }
}
