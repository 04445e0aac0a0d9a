//! One WebSocket connection: a reader (this task) that decodes, rate-limits and
//! routes client frames, and a writer task that drains the connection's bounded
//! outbound queue into the socket and sends keep-alive pings.
//!
//! The reader never writes to the socket itself: every reply goes through the
//! same queue as match broadcasts, so frames reach the client in the order they
//! were queued, and a slow client is detected in one place (a full queue).
//!
//! One socket's requests take effect in the order sent: the reader reads the next
//! request only once the previous one was answered, also when an actor (the
//! matchmaker, a room) answers it ([`ConnHandle::for_request`]). A slow room thus
//! delays only the sockets waiting on it.

use super::outbound::{Answered, CloseReason, ConnHandle};
use super::socket::{SocketIo, SocketOut};
use crate::auth::session_of_token;
use crate::clock::TokioClock;
use crate::presence::Busy;
use crate::room::RoomCmd;
use crate::state::AppState;
use futures_util::StreamExt;
use governor::middleware::NoOpMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use protocol::{
    ClientFrame, ClientMsg, CreateLobby, ErrorCode, Hello, Inbound, Request, ServerMsg, Welcome,
};
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
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The WebSocket a connection's reader reads: tokio-tungstenite over the socket.
type Socket = WebSocketStream<SocketIo>;

/// An upgraded socket's shares of the connection caps: its connection slot (the
/// global cap's permit, kept until the socket closes, and the per-address share)
/// and, for a client behind a trusted proxy, its share of the forwarded address's
/// cap. A `hello` from the holder of a seat in a running match or of a lobby place
/// gives both per-address shares back ([`AddressShare::release`]).
pub(crate) struct AddressShare {
    /// The TCP connection's slot (`None` off the edge's listener, as in tests).
    pub(crate) slot: Option<std::sync::Arc<crate::edge::listener::ConnSlot>>,
    /// The forwarded client's share (`--trusted-proxies`).
    pub(crate) proxied: Option<crate::edge::addr::AddrGuard>,
}

impl AddressShare {
    /// Stops counting this socket against its address (issue 37: players of running
    /// matches and lobby members behind one carrier NAT all get back in; sockets that
    /// hold nothing stay bounded per address).
    fn release(&mut self) {
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
    state: AppState,
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
struct Session {
    state: AppState,
    conn: ConnHandle,
    /// Set by a good `hello`.
    player: Option<store::Player>,
    /// The per-connection message budget.
    limiter: Budget,
    /// Rate-limited messages in a row.
    strikes: u32,
    /// Whether the last request routed to a room took effect (a plain `ack`): an
    /// applied plan is not charged to the budget.
    took_effect: AtomicBool,
    /// Matches this connection spectates (to detach from on close).
    watching: HashSet<Uuid>,
    /// The socket's shares of the connection caps.
    share: AddressShare,
}

impl Session {
    fn new(state: AppState, conn: ConnHandle, share: AddressShare) -> Session {
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
            let msg = match next {
                None => return,
                // The client half-closed (or reset) without a close frame: the
                // connection ends as if it had said goodbye.
                Some(Err(ws::Error::Protocol(
                    ws::error::ProtocolError::ResetWithoutClosingHandshake,
                ))) => return,
                Some(Err(e)) => {
                    // Over the hard size limit, a bad frame, or a dropped connection.
                    tracing::debug!(conn = self.conn.id(), error = %e, "websocket read failed");
                    self.conn.close(read_error_reason(e));
                    return;
                }
                Some(Ok(m)) => m,
            };
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
                    return;
                }
            }
            // The idle period runs from the end of the last frame's handling; the
            // keep-alive ping waits a whole period from it too.
            active_at = Instant::now();
            self.conn.heard();
        }
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

    /// Waits until the request of `answered` was answered (or the connection or the
    /// server is closing), before the next request is read.
    /// True when the answer was a plain `ack` (the request took effect).
    async fn answer_of(&self, answered: Answered) -> bool {
        self.conn.set_awaiting(true);
        let took_effect = tokio::select! {
            biased;
            _ = self.conn.closing() => false,
            _ = self.state.shutdown_token().cancelled() => false,
            took_effect = answered.wait() => took_effect,
        };
        self.conn.set_awaiting(false);
        took_effect
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

    /// A signed-in player's request, answered by the function of its kind.
    async fn request(&mut self, player: &store::Player, r: Request, req: Option<String>) {
        match r {
            Request::JoinQueue(j) => self.join_queue(player, j.mode, j.bot_level, req).await,
            Request::LeaveQueue => self.leave_queue(player, req).await,
            Request::CreateLobby(c) => self.create_lobby(player, &c, req).await,
            Request::JoinLobby(j) => self.join_lobby(player, &j.code, req).await,
            Request::LeaveLobby => self.leave_lobby(player, req).await,
            Request::StartLobby => self.start_lobby(player, req).await,
            Request::SubscribeLobbies => self.subscribe_lobbies(req),
            Request::UnsubscribeLobbies => self.unsubscribe_lobbies(req),
            Request::OfferRematch(m) => self.offer_rematch(player, m.match_id, req).await,
            Request::SubmitTurn(s) => {
                self.submit(player, s.match_id, s.turn_number, s.plan, req)
                    .await
            }
            Request::PreviewPlan(s) => {
                self.preview(player, s.match_id, s.turn_number, s.plan, req)
                    .await
            }
            Request::Pass(t) => {
                self.submit(player, t.match_id, t.turn_number, engine::Plan::pass(), req)
                    .await
            }
            Request::LeaveMatch(m) => self.leave_match(player, m.match_id, req).await,
            Request::Resync(r) => self.resync(player, r, req).await,
            Request::Spectate(m) => self.spectate(player, m.match_id, req).await,
            Request::Chat(c) => self.chat(player, c, req).await,
            Request::ContributeEntropy(c) => self.contribute(player, c, req).await,
        }
    }

    /// False, after answering `store_unavailable`, when no new match may start now
    /// (`join_queue`, `create_lobby` and `offer_rematch` ask first).
    fn new_matches_open(&self, req: &Option<String>) -> bool {
        if self.state.accepting_new_matches() {
            return true;
        }
        self.conn.send_error(
            ErrorCode::StoreUnavailable,
            "the store is unavailable or behind; no new match can start now",
            req.clone(),
        );
        false
    }

    /// Cluster: false, after answering `already_busy`, when `player` holds a seat in
    /// a running match of another node. This node's presence only knows the matches
    /// it runs; the store knows every node's (`Store::running_match_of`). A store
    /// that does not answer leaves the local check alone (a new match cannot start
    /// then anyway: `new_matches_open`). Single node: always true.
    ///
    /// First, a member of a lobby on a node that died is in no lobby any more: its
    /// presence here is freed (issue 34.3: it was `already_busy` until that node
    /// came back).
    async fn free_in_cluster(&self, player: &store::Player, req: &Option<String>) -> bool {
        let Some(c) = self.state.cluster() else {
            return true;
        };
        if self.state.presence().get(player.id) == Some(Busy::Lobby)
            && c.remote_lobby_gone(player.id).await
        {
            tracing::info!(player = %player.id, "the node of the player's lobby is gone: lobby left");
            self.lobby_vanished(player.id);
        }
        match self.state.store().running_match_of(player.id).await {
            Ok(Some(m)) if self.state.room(m).is_none() => {
                self.conn.send_error(
                    ErrorCode::AlreadyBusy,
                    busy_text(Busy::Seated(m)),
                    req.clone(),
                );
                false
            }
            Ok(_) => true,
            Err(e) => {
                tracing::debug!(error = %e, "seat look-up failed; local presence decides");
                true
            }
        }
    }

    /// `join_queue`: claims the player as queued (`already_busy` if it is busy), then
    /// the matchmaker (this node's, or in a cluster the matchmaker node's) answers.
    async fn join_queue(
        &self,
        player: &store::Player,
        mode: engine::Mode,
        bot_level: protocol::BotLevel,
        req: Option<String>,
    ) {
        if !self.new_matches_open(&req) || !self.free_in_cluster(player, &req).await {
            return;
        }
        let state = &self.state;
        if let Err(b) = state.presence().claim(player.id, Busy::Queued(mode)) {
            self.conn
                .send_error(ErrorCode::AlreadyBusy, busy_text(b), req);
            return;
        }
        // Cluster: the queue is the matchmaker node's (crate::cluster::queue).
        if let Some(c) = state.cluster().filter(|c| !c.is_matchmaker()) {
            let cmd = crate::cluster::queue::QueueCmd::Join {
                name: player.name.clone(),
                mode,
                since_ms: None,
                bot_level,
            };
            // On success the matchmaker answered through its stand-in.
            match c
                .queue_remote(player.id, cmd, req.clone(), &self.conn)
                .await
            {
                Ok(()) => {}
                Err(r) => {
                    state.presence().release(player.id, Busy::Queued(mode));
                    self.conn.send_error(r.code, r.message, req);
                }
            }
            return;
        }
        let (rconn, answered) = self.conn.for_request();
        let cmd = crate::matchmaker::MmCmd::Join {
            player: player.id,
            name: player.name.clone(),
            mode,
            conn: rconn,
            req: req.clone(),
            since_ms: None,
            bot_level,
        };
        if state.matchmaker().send(cmd).await.is_err() {
            state.presence().release(player.id, Busy::Queued(mode));
            self.conn
                .send_error(ErrorCode::Internal, "matchmaking is not available", req);
            return;
        }
        self.answer_of(answered).await;
    }

    /// `leave_queue`: the matchmaker (this node's, or the matchmaker node's) answers.
    async fn leave_queue(&self, player: &store::Player, req: Option<String>) {
        let state = &self.state;
        if let Some(c) = state.cluster().filter(|c| !c.is_matchmaker()) {
            let cmd = crate::cluster::queue::QueueCmd::Leave { closed: false };
            match c
                .queue_remote(player.id, cmd, req.clone(), &self.conn)
                .await
            {
                Ok(()) => {
                    c.forget_queued(player.id);
                    if let Some(b @ Busy::Queued(_)) = state.presence().get(player.id) {
                        state.presence().release(player.id, b);
                    }
                }
                Err(r) => self.conn.send_error(r.code, r.message, req),
            }
            return;
        }
        let (rconn, answered) = self.conn.for_request();
        let cmd = crate::matchmaker::MmCmd::Leave {
            player: player.id,
            conn: Some(rconn),
            req: req.clone(),
        };
        if state.matchmaker().send(cmd).await.is_err() {
            self.conn
                .send_error(ErrorCode::Internal, "matchmaking is not available", req);
            return;
        }
        self.answer_of(answered).await;
    }

    /// `create_lobby`: `ack` (and `lobby_state`), or the lobby's error. In a cluster
    /// the code is served to the other nodes before anyone is shown it.
    async fn create_lobby(&self, player: &store::Player, c: &CreateLobby, req: Option<String>) {
        if !self.new_matches_open(&req) || !self.free_in_cluster(player, &req).await {
            return;
        }
        let code = self.served_code().await;
        let made = self.state.lobbies().create_with_code(
            &self.state,
            player.id,
            &player.name,
            c,
            code.clone(),
        );
        if let (Ok(used), Some(cl)) = (&made, self.state.cluster()) {
            if Some(used) != code.as_ref() {
                cl.serve_lobby(&self.state, used.clone()).await;
            }
        }
        self.answer(made.map(drop), req);
    }

    /// `join_lobby` by its code: `ack`, or the lobby's error. In a cluster a code no
    /// lobby here has is asked of the node that has it.
    async fn join_lobby(&self, player: &store::Player, code: &str, req: Option<String>) {
        if !self.free_in_cluster(player, &req).await {
            return;
        }
        let joined = self
            .state
            .lobbies()
            .join(&self.state, player.id, &player.name, code);
        match joined {
            Err(crate::lobby::LobbyError::NotFound(code)) if self.state.cluster().is_some() => {
                self.join_remote_lobby(player, code, req).await
            }
            joined => self.answer(joined, req),
        }
    }

    /// `leave_lobby`: `ack`, or the lobby's error (a lobby on another node answers
    /// through its owner).
    async fn leave_lobby(&self, player: &store::Player, req: Option<String>) {
        match self.state.lobbies().leave(&self.state, player.id) {
            Err(crate::lobby::LobbyError::NotInLobby) if self.remote_lobby(player) => {
                let cmd = crate::cluster::lobby::LobbyCmd::Leave;
                if self.to_remote_lobby(player, cmd, req).await {
                    if let Some(c) = self.state.cluster() {
                        c.forget_remote_lobby(player.id);
                    }
                    self.state.presence().release(player.id, Busy::Lobby);
                }
            }
            left => self.answer(left, req),
        }
    }

    /// `start_lobby` (host only): `ack`, or the lobby's error (a lobby on another
    /// node answers through its owner).
    async fn start_lobby(&self, player: &store::Player, req: Option<String>) {
        match self.state.lobbies().start(&self.state, player.id) {
            Err(crate::lobby::LobbyError::NotInLobby) if self.remote_lobby(player) => {
                let cmd = crate::cluster::lobby::LobbyCmd::Start;
                self.to_remote_lobby(player, cmd, req).await;
            }
            started => self.answer(started.map(drop), req),
        }
    }

    /// `subscribe_lobbies`: `ack`, then the `lobby_list`.
    fn subscribe_lobbies(&self, req: Option<String>) {
        self.conn.ack(req);
        self.state.lobbies().subscribe(&self.conn);
    }

    /// `unsubscribe_lobbies`: `ack` (also when not subscribed).
    fn unsubscribe_lobbies(&self, req: Option<String>) {
        self.state.lobbies().unsubscribe(self.conn.id());
        self.conn.ack(req);
    }

    /// Answers a lobby operation: `ack`, or its error's code and text.
    fn answer(&self, result: Result<(), crate::lobby::LobbyError>, req: Option<String>) {
        match result {
            Ok(()) => self.conn.ack(req),
            Err(e) => self.conn.send_error(e.code(), e.to_string(), req),
        }
    }

    /// `submit_turn` (or `pass`, the plan [`engine::Plan::pass`]): to the room, which
    /// answers.
    async fn submit(
        &self,
        player: &store::Player,
        match_id: Uuid,
        turn_number: u32,
        plan: engine::Plan,
        req: Option<String>,
    ) {
        let received = std::time::Instant::now();
        let at_ms = self.state.clock().now_ms();
        let make = |conn| RoomCmd::Submit {
            player: player.id,
            conn,
            req: req.clone(),
            turn_number,
            plan,
            received,
            at_ms,
        };
        self.to_room(match_id, Route::Submit, req.clone(), make)
            .await;
    }

    /// `preview_plan`: to the room, which answers (`plan_preview`, or the error a
    /// `submit_turn` of the same plan would get; no room: as `submit_turn`).
    async fn preview(
        &self,
        player: &store::Player,
        match_id: Uuid,
        turn_number: u32,
        plan: engine::Plan,
        req: Option<String>,
    ) {
        let at_ms = self.state.clock().now_ms();
        let make = |conn| RoomCmd::Preview {
            player: player.id,
            conn,
            req: req.clone(),
            turn_number,
            plan,
            at_ms,
        };
        self.to_room(match_id, Route::Submit, req.clone(), make)
            .await;
    }

    /// `leave_match`: to the room, which answers.
    async fn leave_match(&self, player: &store::Player, match_id: Uuid, req: Option<String>) {
        let make = |conn| RoomCmd::Leave {
            player: player.id,
            conn,
            req: req.clone(),
        };
        self.to_room(match_id, Route::Submit, req.clone(), make)
            .await;
    }

    /// `resync`: to the room, or the stored end of a match that ended.
    async fn resync(&self, player: &store::Player, r: protocol::Resync, req: Option<String>) {
        let make = |conn| RoomCmd::Resync {
            player: player.id,
            conn,
            req: req.clone(),
            last_seq: r.last_seq,
        };
        self.to_room(r.match_id, Route::Watch(player.id), req.clone(), make)
            .await;
    }

    /// `spectate`: to the room (the socket then watches the match until it closes),
    /// or the stored end of a match that ended.
    async fn spectate(&mut self, player: &store::Player, match_id: Uuid, req: Option<String>) {
        let make = |conn| RoomCmd::Spectate {
            player: player.id,
            conn,
            req: req.clone(),
        };
        if self
            .to_room(match_id, Route::Watch(player.id), req.clone(), make)
            .await
        {
            self.watching.insert(match_id);
        }
    }

    /// `chat`: to the room, which relays the text (decoding checked it against the
    /// text policy and normalized it, `protocol::text`).
    async fn chat(&self, player: &store::Player, c: protocol::Chat, req: Option<String>) {
        let make = |conn| RoomCmd::Chat {
            player: player.id,
            name: player.name.clone(),
            conn,
            req: req.clone(),
            text: c.text,
        };
        self.to_room(c.match_id, Route::Other, req.clone(), make)
            .await;
    }

    /// `contribute_entropy`: to the match's room (proto/README.md §10). Decoding
    /// checked the entropy (`invalid_entropy` otherwise).
    async fn contribute(
        &self,
        player: &store::Player,
        c: protocol::ContributeEntropy,
        req: Option<String>,
    ) {
        let entropy = match engine::Entropy::from_player_hex(&c.entropy) {
            Ok(e) => e,
            Err(e) => {
                self.conn
                    .send_error(protocol::ErrorCode::InvalidEntropy, e.to_string(), req);
                return;
            }
        };
        let make = |conn| RoomCmd::Contribute {
            player: player.id,
            conn,
            req: req.clone(),
            entropy,
        };
        self.to_room(c.match_id, Route::Other, req.clone(), make)
            .await;
    }

    /// Routes the command `make` builds (around a request handle) to the room of
    /// `match_id` and waits for the room's answer. Returns false when no room runs
    /// the match: then the answer is `match_not_found`, or, for a plan or pass
    /// ([`Route::Submit`]) naming a match the store knows (it ended, or its room is
    /// gone), `match_over` (`proto/README.md` §7).
    async fn to_room(
        &self,
        match_id: Uuid,
        route: Route,
        req: Option<String>,
        make: impl FnOnce(ConnHandle) -> RoomCmd,
    ) -> bool {
        let (rconn, answered) = self.conn.for_request();
        let answer = match (self.state.room(match_id), self.state.cluster()) {
            (Some(room), _) => match room.send(make(rconn)).await {
                Ok(()) => Some(self.answer_of(answered).await),
                Err(_) => None,
            },
            // Cluster: the match may run on another node (crate::cluster::remote);
            // with NATS down nothing is sent: `cluster_unavailable` at once.
            (None, Some(c)) if !c.messaging_up() => {
                let r = crate::cluster::Cluster::unreachable();
                self.conn.send_error(r.code, r.message, req);
                return false;
            }
            (None, Some(c)) => c.route(match_id, make(rconn), &self.conn).await,
            (None, None) => None,
        };
        if let Some(took_effect) = answer {
            self.took_effect.store(took_effect, Ordering::Relaxed);
            return true;
        }
        if let Route::Watch(player) = route {
            if let Some(snap) = self.ended_snapshot(match_id, player).await {
                self.conn.ack(req);
                let seq = snap.seq;
                self.conn
                    .send_msg(Some(seq), &ServerMsg::Snapshot(Box::new(snap)));
                return false;
            }
        }
        let status = self.stored_status(match_id).await;
        if self.state.cluster().is_some() && status == Some(store::MatchStatus::Running) {
            // Cluster: a running match no node serves right now is moving (its
            // owner stopped; another resumes it): not over, not unknown. The socket
            // is closed as moved (1012); the client reconnects and resyncs there.
            self.conn.close(crate::cluster::MOVED);
            return false;
        }
        if route == Route::Submit && status.is_some() {
            self.conn
                .send_error(ErrorCode::MatchOver, "the match is over", req);
        } else {
            self.conn.send_error(
                ErrorCode::MatchNotFound,
                format!("no running match {match_id}"),
                req,
            );
        }
        false
    }

    /// The `snapshot` of a match that has ended, re-played from its stored replay
    /// (final position, standings, seed), with `your_seat` for `player` and `seq` the
    /// one of its `match_ended`; `None` when the store has no ended match `match_id`
    /// (or cannot be read).
    async fn ended_snapshot(&self, match_id: Uuid, player: Uuid) -> Option<protocol::Snapshot> {
        let doc = match self.state.store().replay(match_id).await {
            Ok(Some(doc)) => doc,
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!(error = %e, match_id = %match_id, "replay look-up failed");
                return None;
            }
        };
        let end = doc.replay.end.clone()?;
        let seed = doc.replay.seed?;
        let m = match engine::replay::verify(&doc.replay) {
            Ok(m) => m,
            Err(e) => {
                tracing::error!(error = %e, match_id = %match_id, "stored replay does not re-play");
                return None;
            }
        };
        let end_seq = match self.state.store().end_seq(match_id).await {
            Ok(s) => s.unwrap_or(0),
            Err(e) => {
                tracing::warn!(error = %e, match_id = %match_id, "seq look-up failed");
                return None;
            }
        };
        let ratings: Vec<(engine::Seat, protocol::RatingChange)> =
            match self.state.store().rating_changes(match_id).await {
                Ok(c) => c
                    .into_iter()
                    .map(|(s, c)| (s, crate::room::wire_change(c)))
                    .collect(),
                Err(e) => {
                    tracing::warn!(error = %e, match_id = %match_id, "rating look-up failed");
                    Vec::new()
                }
            };
        let now = self.state.clock().now_ms();
        let seats: Vec<protocol::SeatInfo> = doc
            .seats
            .iter()
            .map(|s| protocol::SeatInfo {
                seat: s.seat,
                player_id: s.player_id,
                name: s.name.clone(),
                bot: s.is_bot || doc.replay.left.contains(&s.seat),
                left: doc.replay.left.contains(&s.seat),
                bot_level: crate::api::model::level(s.bot_level.as_deref()),
            })
            .collect();
        let your_seat = seats
            .iter()
            .find(|s| s.player_id == Some(player))
            .map(|s| s.seat);
        Some(protocol::Snapshot {
            match_id,
            mode: doc.replay.mode,
            rules: doc.replay.rules.clone(),
            seats,
            your_seat,
            position: *m.position(),
            turn: None,
            clocks: protocol::Clocks {
                now_ms: now,
                turn_deadline_ms: None,
                match_deadline_ms: now,
            },
            dice_commitment: doc.replay.dice_commitment.clone(),
            turns_played: m.turns_played(),
            dice_scheme: doc.replay.dice_scheme,
            contributions: doc.replay.contributions.clone(),
            contribution_deadline_ms: None,
            // The match's last message: its `match_ended` (0 for a match recorded
            // before its seq was).
            seq: end_seq,
            ended: Some(
                protocol::MatchEnded::from_end(match_id, &end, seed).with_ratings(&ratings),
            ),
        })
    }

    /// `offer_rematch`: the first error that applies, in this order:
    /// `store_unavailable`, `match_not_found`, `not_in_match`, `match_not_ended`, then the lobby's
    /// (`already_busy`, `lobby_full`); otherwise the rematch lobby opens (or the
    /// player joins the open one) and the answer is `ack`.
    async fn offer_rematch(&self, player: &store::Player, match_id: Uuid, req: Option<String>) {
        if !self.new_matches_open(&req) || !self.free_in_cluster(player, &req).await {
            return;
        }
        let summary = match self.state.store().match_summary(match_id).await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, match_id = %match_id, "match look-up failed");
                self.conn.send_error(
                    ErrorCode::Internal,
                    "could not read the match; try again",
                    req,
                );
                return;
            }
        };
        let Some(summary) = summary else {
            // A room whose start is not stored yet is running, not unknown.
            let (code, text) = match self.state.presence().active_match(player.id) {
                Some(m) if m == match_id => {
                    (ErrorCode::MatchNotEnded, "the match is still running")
                }
                _ => (ErrorCode::MatchNotFound, "no such match"),
            };
            self.conn.send_error(code, text, req);
            return;
        };
        if !summary.seats.iter().any(|s| s.player_id == Some(player.id)) {
            self.conn
                .send_error(ErrorCode::NotInMatch, "you had no seat in this match", req);
            return;
        }
        if summary.status != store::MatchStatus::Ended {
            self.conn.send_error(
                ErrorCode::MatchNotEnded,
                "the match is still running; offer a rematch after match_ended",
                req,
            );
            return;
        }
        let mut invited: Vec<Uuid> = summary
            .seats
            .iter()
            .filter_map(|s| s.player_id)
            .filter(|p| *p != player.id)
            .collect();
        invited.dedup();
        // Cluster: a rematch lobby another node opened is joined there.
        if let Some(code) = self
            .state
            .cluster()
            .and_then(|_| self.state.lobbies().remote_rematch(match_id))
        {
            return self.join_remote_lobby(player, code, req).await;
        }
        let code = self.served_code().await;
        match self.state.lobbies().rematch(
            &self.state,
            player.id,
            &player.name,
            match_id,
            summary.mode,
            &invited,
            code.clone(),
        ) {
            Ok(crate::lobby::Rematch::Opened(used)) => {
                if let (Some(cl), false) = (self.state.cluster(), Some(&used) == code.as_ref()) {
                    cl.serve_lobby(&self.state, used).await;
                }
                self.conn.ack(req)
            }
            Ok(_) => self.conn.ack(req),
            Err(e) => self.conn.send_error(e.code(), e.to_string(), req),
        }
    }

    /// Cluster: a fresh lobby code that other nodes already reach
    /// ([`crate::cluster::Cluster::serve_lobby`]); `None` on a single node.
    async fn served_code(&self) -> Option<String> {
        let c = self.state.cluster()?;
        let code = self.state.lobbies().fresh_code();
        c.serve_lobby(&self.state, code.clone()).await;
        Some(code)
    }

    /// Cluster: true when `player` is in a lobby on another node.
    fn remote_lobby(&self, player: &store::Player) -> bool {
        self.state
            .cluster()
            .is_some_and(|c| c.remote_lobby(player.id).is_some())
    }

    /// Cluster: sends `cmd` (request `req`) to the owner of `player`'s lobby on
    /// another node, which answers the socket through its stand-in; when nobody
    /// answers, the error is sent from here. True when it succeeded.
    async fn to_remote_lobby(
        &self,
        player: &store::Player,
        cmd: crate::cluster::lobby::LobbyCmd,
        req: Option<String>,
    ) -> bool {
        let Some(c) = self.state.cluster() else {
            return false;
        };
        let Some(code) = c.remote_lobby(player.id) else {
            return false;
        };
        match c
            .lobby_remote(&code, player.id, cmd, req.clone(), &self.conn)
            .await
        {
            Ok(answer) => answer.is_ok(),
            Err(r) => {
                if r.code == ErrorCode::LobbyNotFound {
                    self.lobby_vanished(player.id);
                }
                self.conn.send_error(r.code, r.message, req);
                false
            }
        }
    }

    /// Cluster: no node has `player`'s remote lobby any more (its node died): the
    /// player is in no lobby.
    fn lobby_vanished(&self, player: Uuid) {
        if let Some(c) = self.state.cluster() {
            if c.remote_lobby(player).is_some() {
                c.forget_remote_lobby(player);
                self.state.presence().release(player, Busy::Lobby);
            }
        }
    }

    /// Cluster: `join_lobby` with a code no lobby here has: asks the node that has
    /// it (none: `lobby_not_found`), which answers the socket. The player's
    /// presence here is `Lobby` while it is a member there.
    async fn join_remote_lobby(&self, player: &store::Player, code: String, req: Option<String>) {
        let Some(c) = self.state.cluster() else {
            return;
        };
        if let Err(b) = self.state.presence().claim(player.id, Busy::Lobby) {
            self.conn
                .send_error(ErrorCode::AlreadyBusy, busy_text(b), req);
            return;
        }
        let cmd = crate::cluster::lobby::LobbyCmd::Join {
            name: player.name.clone(),
        };
        match c
            .lobby_remote(&code, player.id, cmd, req.clone(), &self.conn)
            .await
        {
            Ok(Ok(())) => {}
            Ok(Err(_)) => {
                self.state.presence().release(player.id, Busy::Lobby);
            }
            Err(r) => {
                self.state.presence().release(player.id, Busy::Lobby);
                self.conn.send_error(r.code, r.message, req);
            }
        }
    }

    /// True when the store holds the match `match_id` (a store failure counts as
    /// not: the answer is then the plain `match_not_found`).
    async fn stored_status(&self, match_id: Uuid) -> Option<store::MatchStatus> {
        match self.state.store().match_summary(match_id).await {
            Ok(m) => m.map(|m| m.status),
            Err(e) => {
                tracing::warn!(error = %e, match_id = %match_id, "match look-up failed");
                None
            }
        }
    }

    /// `hello`: check the version and token, register this connection as the
    /// player's (closing an older one with 4000), answer `welcome`, and re-attach the
    /// player to its running match, which sends the frames missed since `hello.last_seq`
    /// (or a snapshot); a player in a lobby gets
    /// its `lobby_state` (and its seat is no longer away), a queued player its
    /// `queue_status`.
    async fn hello(&mut self, h: Hello, req: Option<String>) {
        let Some((player, session)) = self.authenticate(&h, req).await else {
            return;
        };
        // Read before the socket is registered: from registration on, a room resuming
        // here may send it a snapshot, and nothing may await between registration
        // and the `welcome`, which comes first.
        let active = self.active_matches(player.id).await;
        let signed_in_ms = self.state.clock().now_ms();
        self.state
            .registries()
            .attach_session(player.id, &self.conn, signed_in_ms, session);
        // Cluster: a socket of the same player on another node is replaced too
        // (one that signed in before this one).
        if let Some(c) = self.state.cluster() {
            c.announce_hello(player.id, signed_in_ms);
        }
        if !active.is_empty() || self.state.presence().get(player.id) == Some(Busy::Lobby) {
            self.share.release();
        }
        tracing::debug!(conn = self.conn.id(), player = %player.id, client = %h.client.chars().take(64).collect::<String>(), "hello");
        self.conn.send_msg(
            None,
            &ServerMsg::Welcome(Welcome {
                player_id: player.id,
                name: player.name.clone(),
                server_version: SERVER_VERSION.to_string(),
                protocol_version: h.protocol_version,
                active_matches: active.clone(),
            }),
        );
        for m in active {
            let last_seq = h.last_seq.get(&m).copied().unwrap_or(0);
            self.reattach(player.id, m, last_seq).await;
        }
        self.back_to_waiting(player.id).await;
        self.player = Some(player);
    }

    /// The player `h` signs in as and the session of its token, or `None` after
    /// answering why not: `unsupported_version` (and the socket closes),
    /// `not_authenticated` (unknown, signed-out or expired token), `store_unavailable`
    /// (the store did not answer; the socket closes with 1013), or `already_busy` (this socket
    /// is signed in as another player).
    async fn authenticate(&self, h: &Hello, req: Option<String>) -> Option<(store::Player, Uuid)> {
        let v = h.protocol_version;
        if !(protocol::MIN_PROTOCOL_VERSION..=protocol::MAX_PROTOCOL_VERSION).contains(&v) {
            let msg = format!(
                "protocol version {v} is not supported (supported: {}..={})",
                protocol::MIN_PROTOCOL_VERSION,
                protocol::MAX_PROTOCOL_VERSION
            );
            self.conn
                .send_error(ErrorCode::UnsupportedVersion, msg, req);
            self.conn.close(CloseReason::UNSUPPORTED_VERSION);
            return None;
        }
        let client: String = h.client.chars().take(64).collect();
        let (session, player) = match session_of_token(&self.state, &h.token, Some(&client)).await {
            Ok(Some(p)) => p,
            Ok(None) => {
                self.conn
                    .send_error(ErrorCode::NotAuthenticated, "unknown token", req);
                return None;
            }
            Err(e) => {
                // A database outage (issue 34.4): a typed, retryable answer and a
                // close the client reconnects on (1013), not a wait for the hello
                // timeout.
                tracing::warn!(error = %e, "token look-up failed");
                self.conn.send_error(
                    ErrorCode::StoreUnavailable,
                    "the store is not reachable; reconnect later",
                    req,
                );
                self.conn.close(CloseReason::STORE_UNAVAILABLE);
                return None;
            }
        };
        if self.player.as_ref().is_some_and(|p| p.id != player.id) {
            self.conn.send_error(
                ErrorCode::AlreadyBusy,
                "this socket is signed in as another player",
                req,
            );
            return None;
        }
        Some((player, session.id))
    }

    /// The running matches `player` is seated in (`welcome.active_matches`): the one
    /// presence knows here, or (cluster) the one the store has on another node.
    async fn active_matches(&self, player: Uuid) -> Vec<Uuid> {
        let mut active: Vec<Uuid> = self
            .state
            .presence()
            .active_match(player)
            .into_iter()
            .collect();
        // Cluster: the player's match may run on another node.
        if active.is_empty() && self.state.cluster().is_some() {
            match self.state.store().running_match_of(player).await {
                Ok(Some(m)) => active.push(m),
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "running match of the player not read"),
            }
        }
        active
    }

    /// Re-attaches this connection to `player`'s seat in match `m` (here, or on the
    /// node that runs it), which sends the frames after `last_seq` or a snapshot.
    async fn reattach(&mut self, player: Uuid, m: Uuid, last_seq: u64) {
        let attach = RoomCmd::Attach {
            player,
            conn: self.conn.clone(),
            last_seq,
        };
        match (self.state.room(m), self.state.cluster()) {
            (Some(room), _) => {
                let _ = room.send(attach).await;
            }
            (None, Some(c)) => {
                if c.route(m, attach, &self.conn).await.is_some() {
                    self.watching.insert(m);
                }
            }
            (None, None) => {}
        }
    }

    /// A player waiting in a lobby or queue (a second tab, or back within the lobby's
    /// grace period) gets that state at once: `lobby_state` or `queue_status`.
    async fn back_to_waiting(&self, player: Uuid) {
        match self.state.presence().get(player) {
            Some(Busy::Lobby) => {
                let here = self.state.lobbies().back(player, &self.conn);
                // Cluster: a lobby on another node.
                if let (false, Some(c)) = (here, self.state.cluster()) {
                    if let Some(code) = c.remote_lobby(player) {
                        let cmd = crate::cluster::lobby::LobbyCmd::Back;
                        if let Err(r) = c.lobby_remote(&code, player, cmd, None, &self.conn).await {
                            tracing::debug!(error = %r.message, "lobby state not asked");
                            if r.code == ErrorCode::LobbyNotFound {
                                self.lobby_vanished(player);
                            }
                        }
                    }
                }
            }
            Some(Busy::Queued(_)) if self.state.cluster().is_some_and(|c| !c.is_matchmaker()) => {
                if let Some(c) = self.state.cluster() {
                    c.queued_socket(player, &self.conn);
                    let cmd = crate::cluster::queue::QueueCmd::Status;
                    if let Err(r) = c.queue_remote(player, cmd, None, &self.conn).await {
                        tracing::debug!(error = %r.message, "queue status not asked");
                    }
                }
            }
            Some(Busy::Queued(_)) => {
                let cmd = crate::matchmaker::MmCmd::Status {
                    player,
                    conn: self.conn.clone(),
                };
                let _ = self.state.matchmaker().send(cmd).await;
            }
            Some(Busy::Seated(_)) | None => {}
        }
    }

    /// The socket closed: leave the queue (unless a newer connection of the same
    /// player took over), keep a lobby seat for the grace period, and detach from
    /// rooms; a match seat is kept.
    async fn cleanup(&mut self) {
        let conn_id = self.conn.id();
        self.state.lobbies().unsubscribe(conn_id);
        if let Some(p) = &self.player {
            let current = self.state.registries().detach_session(p.id, conn_id);
            match self.state.presence().get(p.id) {
                Some(b @ Busy::Queued(_))
                    if current && self.state.cluster().is_some_and(|c| !c.is_matchmaker()) =>
                {
                    if let Some(c) = self.state.cluster() {
                        c.forget_queued(p.id);
                        let cmd = crate::cluster::queue::QueueCmd::Leave { closed: true };
                        let _ = c.queue_remote(p.id, cmd, None, &self.conn).await;
                    }
                    self.state.presence().release(p.id, b);
                }
                Some(Busy::Queued(_)) if current => {
                    // A blip keeps the queue place (`--queue-grace-seconds`).
                    let cmd = if self.state.config().queue_grace().is_zero() {
                        crate::matchmaker::MmCmd::Leave {
                            player: p.id,
                            conn: None,
                            req: None,
                        }
                    } else {
                        crate::matchmaker::MmCmd::Away { player: p.id }
                    };
                    let _ = self.state.matchmaker().send(cmd).await;
                }
                Some(Busy::Lobby) if current => {
                    self.state.lobbies().away(&self.state, p.id);
                    let remote = self
                        .state
                        .cluster()
                        .and_then(|c| c.remote_lobby(p.id).map(|code| (c.clone(), code)));
                    if let Some((c, code)) = remote {
                        let cmd = crate::cluster::lobby::LobbyCmd::Away;
                        let asked = c.lobby_remote(&code, p.id, cmd, None, &self.conn).await;
                        if asked.is_err_and(|r| r.code == ErrorCode::LobbyNotFound) {
                            self.lobby_vanished(p.id);
                        }
                    }
                }
                Some(Busy::Seated(m)) => {
                    self.watching.insert(m);
                }
                _ => {}
            }
        }
        for m in self.watching.drain() {
            match (self.state.room(m), self.state.cluster()) {
                (Some(room), _) => {
                    let _ = room.send(RoomCmd::Detach { conn_id }).await;
                }
                // (A node shutting down leaves its rooms to others: nothing to detach.)
                (None, Some(c)) if !self.state.shutdown_token().is_cancelled() => {
                    c.route(m, RoomCmd::Detach { conn_id }, &self.conn).await;
                }
                (None, _) => {}
            }
        }
        if let Some(c) = self.state.cluster() {
            if let Some(p) = &self.player {
                c.socket_closed(conn_id, p.id).await;
            }
            c.forget_conn(conn_id);
        }
    }
}

/// Where [`Session::to_room`] sends a command: what a missing room answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    /// `submit_turn`, `pass` or `leave_match`: `match_over` for a match that ended.
    Submit,
    /// `resync` or `spectate` by this player: for a match that ended, a `snapshot`
    /// of its end (from the store), so a client that was away can show the result.
    Watch(Uuid),
    /// Anything else: `match_not_found`.
    Other,
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

/// The `already_busy` text for a player busy with `b`.
pub(crate) fn busy_text(b: Busy) -> &'static str {
    match b {
        Busy::Queued(_) => "you are already in a queue",
        Busy::Lobby => "you are in a lobby",
        Busy::Seated(_) => "you are seated in a running match",
    }
}
