//! One WebSocket connection: a reader (this task) that decodes, rate-limits and
//! dispatches client frames, and a writer task that drains the connection's bounded
//! outbound queue into the socket and sends keep-alive pings. The requests are
//! handled in `super::requests`, one file per message family.
//!
//! The reader never writes to the socket itself: every reply goes through the
//! same queue as match broadcasts, so frames reach the client in the order they
//! were queued, and a slow client is detected in one place (a full queue).
//!
//! One socket's requests take effect in the order sent: the reader reads the next
//! request only once the previous one was answered, also when an actor (the
//! matchmaker, a room) answers it ([`ConnHandle::for_request`]). A slow room thus
//! delays only the sockets waiting on it.

use super::outbound::{CloseReason, ConnHandle};
use super::socket::{SocketIo, SocketOut};
use crate::clock::TokioClock;
use crate::presence::Busy;
use crate::room::RoomCmd;
use crate::services::Services;
use futures_util::StreamExt;
use governor::middleware::NoOpMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use protocol::{ClientFrame, ClientMsg, ErrorCode, Inbound, ServerMsg};
use std::collections::HashSet;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{self as ws, Message};
use tokio_tungstenite::WebSocketStream;
use uuid::Uuid;

/// Server build version sent in `welcome`.
pub(super) const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The WebSocket a connection's reader reads: tokio-tungstenite over the socket.
type Socket = WebSocketStream<SocketIo>;

/// An upgraded socket's shares of the connection caps: its connection slot (the
/// global cap's permit, kept until the socket closes, and the per-address share)
/// and, for a client behind a trusted proxy, its share of the forwarded address's
/// cap. A `hello` from the holder of a seat in a running match or of a lobby place
/// gives both per-address shares back ([`AddressShare::release`]).
pub(crate) struct AddressShare {
    /// The TCP connection's hold (`None` off the edge's listener, as in tests).
    pub(crate) slot: Option<std::sync::Arc<dyn super::AddressHold>>,
    /// The forwarded client's share (`--trusted-proxies`), given back when dropped.
    pub(crate) proxied: Option<Box<dyn Send + Sync>>,
}

impl AddressShare {
    /// Stops counting this socket against its address (issue 37: players of running
    /// matches and lobby members behind one carrier NAT all get back in; sockets that
    /// hold nothing stay bounded per address).
    pub(super) fn release(&mut self) {
        if let Some(s) = &self.slot {
            s.release_address_share();
        }
        self.proxied = None;
    }
}

/// Serves one upgraded socket until it closes: `tcp` with `read_buf`, the bytes
/// the client sent after its upgrade request, read before the socket; `share`, its
/// shares of the connection caps, held until then.
pub(crate) async fn serve(
    tcp: TcpStream,
    read_buf: axum::body::Bytes,
    state: Services,
    share: AddressShare,
) {
    let (rd, wr) = tcp.into_split();
    let out = SocketOut::new(wr, state.config().outbound_queue);
    let conn = ConnHandle::socket(state.next_conn_id(), out);
    let Some(out) = conn.socket_out() else {
        return;
    };
    let limit = state.config().transport_limit();
    let config = ws::protocol::WebSocketConfig::default()
        .read_buffer_size(super::READ_BUFFER_BYTES)
        // tungstenite writes only its pongs and close replies: at once, to `out`.
        .write_buffer_size(0)
        .max_frame_size(Some(limit))
        .max_message_size(Some(limit));
    // (A copy: `read_buf` keeps hyper's whole read buffer alive.)
    let early = read_buf.to_vec();
    drop(read_buf);
    let socket = WebSocketStream::from_partially_read(
        SocketIo::new(rd, out),
        early,
        ws::protocol::Role::Server,
        Some(config),
    )
    .await;
    metrics::gauge!("ludo_ws_connections").increment(1.0);
    let ping_every = Duration::from_secs(state.config().ping_seconds.into());
    let writer = state.tasks().spawn(super::outbound::write_task(
        conn.clone(),
        ping_every,
        state.config().max_lag(),
    ));
    let mut session = Session::new(state, conn.clone(), share);
    let mut socket = socket;
    session.read_loop(&mut socket).await;
    // Boxed, as a request's handling in `on_frame`: it is not part of the reading.
    Box::pin(session.cleanup()).await;
    conn.close(CloseReason::NORMAL);
    let _ = writer.await;
    // The last frames and the close frame are written and the write half is shut
    // (FIN). Closing the socket now, with the client's unread bytes in it, would
    // reset it and lose what the client has not read yet: read (and drop) until the
    // client closes too, within CLOSE_TIMEOUT.
    let _ = tokio::time::timeout(super::outbound::CLOSE_TIMEOUT, socket.get_mut().drain()).await;
    metrics::gauge!("ludo_ws_connections").decrement(1.0);
}

/// A connection's message budget (`--rate-per-second`, `--rate-burst`), refilled on
/// Tokio's clock.
type Budget = RateLimiter<NotKeyed, InMemoryState, TokioClock, NoOpMiddleware<std::time::Instant>>;

/// The reader's state.
pub(super) struct Session {
    pub(super) state: Services,
    pub(super) conn: ConnHandle,
    /// Set by a good `hello`.
    pub(super) player: Option<store::Player>,
    /// The per-connection message budget.
    pub(super) limiter: Budget,
    /// Rate-limited messages in a row.
    pub(super) strikes: u32,
    /// Whether the last request routed to a room took effect (a plain `ack`): an
    /// applied plan is not charged to the budget.
    pub(super) took_effect: AtomicBool,
    /// Matches this connection spectates (to detach from on close).
    pub(super) watching: HashSet<Uuid>,
    /// The socket's shares of the connection caps.
    pub(super) share: AddressShare,
}

impl Session {
    pub(super) fn new(state: Services, conn: ConnHandle, share: AddressShare) -> Session {
        let cfg = state.config();
        let rate = NonZeroU32::new(cfg.rate_per_second).unwrap_or(NonZeroU32::MIN);
        let burst = NonZeroU32::new(cfg.rate_burst).unwrap_or(NonZeroU32::MIN);
        Session {
            limiter: RateLimiter::direct_with_clock(
                Quota::per_second(rate).allow_burst(burst),
                TokioClock,
            ),
            state,
            conn,
            player: None,
            share,
            strikes: 0,
            took_effect: AtomicBool::new(false),
            watching: HashSet::new(),
        }
    }

    /// What the socket's stream gave: the message read, or `None` when the reader
    /// ends — the stream ended, the client half-closed or reset without a close frame
    /// (as if it had said goodbye), or a read failed (closed with the matching code:
    /// over the hard size limit, a bad frame, a dropped connection).
    fn received(&self, next: Option<Result<Message, ws::Error>>) -> Option<Message> {
        match next? {
            Err(ws::Error::Protocol(ws::error::ProtocolError::ResetWithoutClosingHandshake)) => {
                None
            }
            Err(e) => {
                tracing::debug!(conn = self.conn.id(), error = %e, "websocket read failed");
                self.conn.close(read_error_reason(e));
                None
            }
            Ok(m) => Some(m),
        }
    }

    /// Reads the socket until it closes, the server shuts down, the `hello` deadline
    /// passes without a `hello`, or it stays idle for `--idle-seconds`.
    async fn read_loop(&mut self, stream: &mut Socket) {
        let idle = Duration::from_secs(self.state.config().idle_seconds.into());
        let shutdown = self.state.shutdown_token().clone();
        // Edge: the client must be welcomed within --hello-timeout-ms of the upgrade.
        let hello_deadline = tokio::time::sleep(self.state.config().hello_timeout());
        tokio::pin!(hello_deadline);
        // The close signals are registered with once for the connection's life, and
        // the idle timer is not re-armed per frame: it fires at most once per idle
        // period and then checks when the last frame came (a frame costs no timer
        // update and no wake-up).
        let conn = self.conn.clone();
        let closing = conn.closing();
        tokio::pin!(closing);
        let shutting_down = shutdown.cancelled();
        tokio::pin!(shutting_down);
        let idle_timer = tokio::time::sleep(idle);
        tokio::pin!(idle_timer);
        let mut active_at = Instant::now();
        loop {
            let next = tokio::select! {
                biased;
                _ = &mut shutting_down => {
                    self.conn.close(CloseReason::GOING_AWAY);
                    return;
                }
                _ = &mut closing => return,
                _ = &mut hello_deadline, if self.player.is_none() => {
                    metrics::counter!("ludo_ws_hello_timeouts_total").increment(1);
                    self.conn.close(CloseReason::HELLO_TIMEOUT);
                    return;
                }
                _ = &mut idle_timer => None,
                r = stream.next() => Some(r),
            };
            let Some(next) = next else {
                let due = active_at + idle;
                if due <= Instant::now() {
                    self.conn.close(CloseReason::IDLE);
                    return;
                }
                idle_timer.as_mut().reset(due);
                continue;
            };
            let Some(msg) = self.received(next) else {
                return;
            };
            if !self.on_message(stream, msg).await {
                return;
            }
            // The idle period runs from the end of the last frame's handling; the
            // keep-alive ping waits a whole period from it too.
            active_at = Instant::now();
            self.conn.heard();
        }
    }

    /// One message read from the socket: a text frame is a client frame
    /// ([`Session::on_frame`]); binary frames, pings and unsolicited pongs are
    /// charged to the budget. False when the connection ends with it (a close
    /// frame).
    async fn on_message(&mut self, stream: &mut Socket, msg: Message) -> bool {
        match msg {
            Message::Text(t) => self.on_frame(t.as_bytes()).await,
            Message::Binary(b) => {
                if self.admit(None) {
                    let msg = format!(
                        "binary frames are not supported ({} bytes); send JSON text",
                        b.len()
                    );
                    self.conn.send_error(ErrorCode::BadJson, msg, None);
                }
            }
            // A client's ping is a message like any other for the budget (each
            // costs a pong): a ping flood is answered `rate_limited`, then
            // closed (1008). tungstenite answers the pings it admits.
            Message::Ping(_) => {
                self.admit(None);
            }
            // The answer to one of the server's pings (the writer's lag probe
            // carries a number, `outbound::LagProbe`), free; an unsolicited pong
            // is charged like a ping, so a pong flood is cut off as any other.
            Message::Pong(p) => {
                if self.conn.solicited_pong() || self.admit(None) {
                    self.conn.ponged(&p);
                }
            }
            // Any frame counts as activity.
            Message::Frame(_) => {}
            Message::Close(_) => {
                // tungstenite queued its reply to the client's close; a flush
                // hands it to the socket (RFC 6455 §5.5.1: one close frame back).
                let _ = futures_util::SinkExt::flush(stream).await;
                self.conn.close(CloseReason::PEER_CLOSED);
                return false;
            }
        }
        true
    }

    /// The message budget: true when this message may be handled. Over budget the
    /// client gets `rate_limited` (with `in_reply_to` = the message's `id`, when it
    /// has one); after `--abuse-strikes` such messages in a row the socket is closed
    /// (1008).
    fn admit(&mut self, id: Option<String>) -> bool {
        if self.limiter.check().is_ok() {
            self.strikes = 0;
            return true;
        }
        self.strikes += 1;
        metrics::counter!("ludo_ws_rate_limited_total").increment(1);
        if self.strikes >= self.state.config().abuse_strikes {
            tracing::info!(conn = self.conn.id(), "closing a flooding client");
            self.conn.close(CloseReason::ABUSE);
        } else {
            self.conn
                .send_error(ErrorCode::RateLimited, "too many messages; slow down", id);
        }
        false
    }

    async fn on_frame(&mut self, bytes: &[u8]) {
        // Decoded before the budget check, so that `rate_limited` names the frame's
        // `id` (decoding is total and bounded by the frame limit).
        let max = self.state.config().max_frame_bytes;
        let decoded = protocol::decode_client_limited(bytes, max);
        let id = match &decoded {
            Ok(f) => f.id.clone(),
            Err(e) => e.id.clone(),
        };
        // A plan or pass counts against the budget only once refused: one the room
        // applies is a move of the game, whose pace the game sets (a player who
        // answers each own turn at once in a zero-think match is never
        // `rate_limited`, issue 37.5); one refused (stale, not its turn, a resend)
        // costs a message like any other, so a flood of them is still cut off.
        let decoded = match decoded {
            Ok(
                frame @ ClientFrame {
                    msg: ClientMsg::SubmitTurn(_) | ClientMsg::Pass(_),
                    ..
                },
            ) => {
                // Right after a message over the budget, a plan is charged first
                // and dropped when over it (a flood of refused plans is not even
                // handled); otherwise it is charged after its answer if refused.
                let charged_first = self.strikes > 0;
                if charged_first && !self.admit(id.clone()) {
                    return;
                }
                self.took_effect.store(false, Ordering::Relaxed);
                Box::pin(self.dispatch(frame)).await;
                if !charged_first && !self.took_effect.load(Ordering::Relaxed) {
                    // Over budget it is also answered `rate_limited` (and strikes
                    // count as for any message).
                    self.admit(id);
                }
                return;
            }
            other => other,
        };
        if !self.admit(id) {
            return;
        }
        match decoded {
            // Boxed: the reader's future is allocated once per connection and held
            // for its life at the size of its largest await. Inline, the requests'
            // nested futures (store and cluster look-ups, the room hand-off) made it
            // 6,256 bytes per socket; boxed, a request's future exists only while it
            // is handled (issue 14).
            Ok(frame) => Box::pin(self.dispatch(frame)).await,
            Err(e) => self.conn.send_error(e.code, e.message, e.id),
        }
    }

    /// A decoded frame: `ping` and `hello` on any socket, every other message only
    /// once the socket is signed in (`not_authenticated` before).
    async fn dispatch(&mut self, frame: ClientFrame) {
        let ClientFrame { id: req, msg } = frame;
        match Inbound::from(msg) {
            Inbound::Ping => {
                self.conn.send_msg(None, &ServerMsg::Pong);
            }
            Inbound::Hello(h) => self.hello(h, req).await,
            Inbound::Request(r) => match self.player.clone() {
                Some(player) => self.request(&player, r, req).await,
                None => self.conn.send_error(
                    ErrorCode::NotAuthenticated,
                    "send hello with your token first",
                    req,
                ),
            },
        }
    }

    /// The socket closed: leave the queue (unless a newer connection of the same
    /// player took over), keep a lobby seat for the grace period, and detach from
    /// rooms; a match seat is kept.
    async fn cleanup(&mut self) {
        let conn_id = self.conn.id();
        self.state.lobbies().unsubscribe(conn_id);
        if let Some(p) = &self.player {
            let current = self.state.sessions().detach(p.id, conn_id);
            match self.state.presence().get(p.id) {
                Some(Busy::Queued(mode)) if current => {
                    self.state
                        .queue()
                        .socket_closed(p.id, mode, &self.conn)
                        .await;
                }
                Some(Busy::Lobby) if current => self.state.lobby_dir().away(p.id, &self.conn).await,
                Some(Busy::Seated(m)) => {
                    self.watching.insert(m);
                }
                _ => {}
            }
        }
        // (A node shutting down leaves its rooms to others: nothing to detach there.)
        let shutting_down = self.state.shutdown_token().is_cancelled();
        for m in self.watching.drain() {
            match self.state.rooms().find(m) {
                Some(room) if !(room.is_remote() && shutting_down) => {
                    room.tell(RoomCmd::Detach { conn_id }, &self.conn).await;
                }
                _ => {}
            }
        }
        let player = self.player.as_ref().map(|p| p.id);
        self.state.sessions().closed(&self.conn, player).await;
    }
}

/// The close for a failed read: 1009 for a message over the hard size limit (as
/// `proto/README.md` §2 promises), 1007 for a text message that is not UTF-8
/// (RFC 6455 §8.1), 1002 for anything else.
fn read_error_reason(e: ws::Error) -> CloseReason {
    match e {
        ws::Error::Io(io) if super::socket::is_queue_full(&io) => CloseReason::SLOW_CONSUMER,
        ws::Error::Capacity(_) => CloseReason::TOO_BIG,
        ws::Error::Utf8(_) => CloseReason::INVALID_UTF8,
        _ => CloseReason::READ_ERROR,
    }
}
