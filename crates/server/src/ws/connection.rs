//! One WebSocket connection: a reader (this task) that decodes, rate-limits and
//! routes client frames, and a writer task that drains the connection's bounded
//! outbound queue into the socket and sends keep-alive pings.
//!
//! The reader never writes to the socket itself: every reply goes through the
//! same queue as match broadcasts, so frames reach the client in the order they
//! were queued, and a slow client is detected in one place (a full queue).

use super::outbound::{CloseReason, ConnHandle, Frame};
use crate::auth::token_hash;
use crate::presence::Busy;
use crate::room::RoomCmd;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use protocol::{ClientFrame, ClientMsg, ErrorCode, Hello, ServerMsg, Welcome};
use std::collections::HashSet;
use std::num::NonZeroU32;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;
use uuid::Uuid;

/// How long the writer spends on the last frames and the close frame.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// Server build version sent in `welcome`.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Serves one upgraded socket until it closes.
pub async fn serve(socket: WebSocket, state: AppState) {
    let (sink, stream) = socket.split();
    let (tx, rx) = mpsc::channel(state.config().outbound_queue);
    let conn = ConnHandle::new(state.next_conn_id(), tx);
    metrics::gauge!("ludo_ws_connections").increment(1.0);
    let ping_every = Duration::from_secs(state.config().ping_seconds.into());
    let writer = state
        .tasks()
        .spawn(write_loop(sink, rx, conn.clone(), ping_every));
    let mut session = Session::new(state, conn.clone());
    session.read_loop(stream).await;
    session.cleanup().await;
    conn.close(CloseReason::NORMAL);
    let _ = writer.await;
    metrics::gauge!("ludo_ws_connections").decrement(1.0);
}

/// The writer: queued frames and pings out, until the connection closes; then the
/// remaining queued frames (for reasons that drain) and a close frame.
async fn write_loop(
    mut sink: SplitSink<WebSocket, Message>,
    mut rx: mpsc::Receiver<Frame>,
    conn: ConnHandle,
    ping_every: Duration,
) {
    let mut ping = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let msg = tokio::select! {
            biased;
            _ = conn.closing() => break,
            f = rx.recv() => match f {
                Some(f) => Message::Text(f),
                None => break,
            },
            _ = ping.tick() => Message::Ping(Bytes::new()),
        };
        // A client that stops reading blocks this send; closing must still win.
        let sent = tokio::select! {
            biased;
            _ = conn.closing() => break,
            r = sink.send(msg) => r,
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
                if sink.send(Message::Text(f)).await.is_err() {
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

/// The reader's state.
struct Session {
    state: AppState,
    conn: ConnHandle,
    /// Set by a good `hello`.
    player: Option<store::Player>,
    /// The per-connection message budget.
    limiter: DefaultDirectRateLimiter,
    /// Rate-limited messages in a row.
    strikes: u32,
    /// Matches this connection spectates (to detach from on close).
    watching: HashSet<Uuid>,
}

impl Session {
    fn new(state: AppState, conn: ConnHandle) -> Session {
        let cfg = state.config();
        let rate = NonZeroU32::new(cfg.rate_per_second).unwrap_or(NonZeroU32::MIN);
        let burst = NonZeroU32::new(cfg.rate_burst).unwrap_or(NonZeroU32::MIN);
        Session {
            limiter: RateLimiter::direct(Quota::per_second(rate).allow_burst(burst)),
            state,
            conn,
            player: None,
            strikes: 0,
            watching: HashSet::new(),
        }
    }

    async fn read_loop(&mut self, mut stream: SplitStream<WebSocket>) {
        let idle = Duration::from_secs(self.state.config().idle_seconds.into());
        let shutdown = self.state.shutdown_token().clone();
        loop {
            let next = tokio::select! {
                biased;
                _ = shutdown.cancelled() => {
                    self.conn.close(CloseReason::GOING_AWAY);
                    return;
                }
                _ = self.conn.closing() => return,
                r = tokio::time::timeout(idle, stream.next()) => r,
            };
            let msg = match next {
                Err(_) => {
                    self.conn.close(CloseReason::IDLE);
                    return;
                }
                Ok(None) => return,
                Ok(Some(Err(e))) => {
                    // Over the hard size limit, a bad frame, or a dropped connection.
                    tracing::debug!(conn = self.conn.id(), error = %e, "websocket read failed");
                    self.conn.close(read_error_reason(e));
                    return;
                }
                Ok(Some(Ok(m))) => m,
            };
            match msg {
                Message::Text(t) => self.on_frame(t.as_bytes()).await,
                Message::Binary(b) => {
                    if self.admit() {
                        let msg = format!(
                            "binary frames are not supported ({} bytes); send JSON text",
                            b.len()
                        );
                        self.conn.send_error(ErrorCode::BadJson, msg, None);
                    }
                }
                // Any frame counts as activity; tungstenite answers pings itself.
                Message::Ping(_) | Message::Pong(_) => {}
                Message::Close(_) => return,
            }
        }
    }

    /// The message budget: true when this message may be handled. Over budget the
    /// client gets `rate_limited`; after `--abuse-strikes` such messages in a row the
    /// socket is closed (1008).
    fn admit(&mut self) -> bool {
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
                .send_error(ErrorCode::RateLimited, "too many messages; slow down", None);
        }
        false
    }

    async fn on_frame(&mut self, bytes: &[u8]) {
        if !self.admit() {
            return;
        }
        let max = self.state.config().max_frame_bytes;
        match protocol::decode_client_limited(bytes, max) {
            Ok(frame) => self.dispatch(frame).await,
            Err(e) => self.conn.send_error(e.code, e.message, e.id),
        }
    }

    async fn dispatch(&mut self, frame: ClientFrame) {
        let ClientFrame { id: req, msg } = frame;
        let player = match msg {
            ClientMsg::Ping => {
                self.conn.send_msg(None, &ServerMsg::Pong);
                return;
            }
            ClientMsg::Hello(h) => return self.hello(h, req).await,
            _ => match &self.player {
                Some(p) => p.clone(),
                None => {
                    self.conn.send_error(
                        ErrorCode::NotAuthenticated,
                        "send hello with your token first",
                        req,
                    );
                    return;
                }
            },
        };
        let conn = self.conn.clone();
        let state = self.state.clone();
        match msg {
            ClientMsg::Ping | ClientMsg::Hello(_) => unreachable!("handled above"),
            ClientMsg::JoinQueue(_) | ClientMsg::CreateLobby(_)
                if !state.accepting_new_matches() =>
            {
                conn.send_error(
                    ErrorCode::StoreUnavailable,
                    "the store is unavailable or behind; no new match can start now",
                    req,
                );
            }
            ClientMsg::JoinQueue(j) => {
                if let Err(b) = state.presence().claim(player.id, Busy::Queued(j.mode)) {
                    conn.send_error(ErrorCode::AlreadyBusy, busy_text(b), req);
                    return;
                }
                let cmd = crate::matchmaker::MmCmd::Join {
                    player: player.id,
                    name: player.name,
                    mode: j.mode,
                    conn: conn.clone(),
                    req: req.clone(),
                };
                if state.matchmaker().send(cmd).await.is_err() {
                    state.presence().release(player.id, Busy::Queued(j.mode));
                    conn.send_error(ErrorCode::Internal, "matchmaking is not available", req);
                }
            }
            ClientMsg::LeaveQueue => {
                let cmd = crate::matchmaker::MmCmd::Leave {
                    player: player.id,
                    conn: Some(conn.clone()),
                    req: req.clone(),
                };
                if state.matchmaker().send(cmd).await.is_err() {
                    conn.send_error(ErrorCode::Internal, "matchmaking is not available", req);
                }
            }
            ClientMsg::CreateLobby(c) => {
                match state.lobbies().create(&state, player.id, &player.name, &c) {
                    Ok(_) => conn.ack(req),
                    Err(e) => conn.send_error(e.code(), e.to_string(), req),
                }
            }
            ClientMsg::JoinLobby(j) => {
                match state
                    .lobbies()
                    .join(&state, player.id, &player.name, &j.code)
                {
                    Ok(()) => conn.ack(req),
                    Err(e) => conn.send_error(e.code(), e.to_string(), req),
                }
            }
            ClientMsg::LeaveLobby => match state.lobbies().leave(&state, player.id) {
                Ok(()) => conn.ack(req),
                Err(e) => conn.send_error(e.code(), e.to_string(), req),
            },
            ClientMsg::StartLobby => match state.lobbies().start(&state, player.id) {
                Ok(_) => conn.ack(req),
                Err(e) => conn.send_error(e.code(), e.to_string(), req),
            },
            ClientMsg::SubmitTurn(s) => {
                let cmd = RoomCmd::Submit {
                    player: player.id,
                    conn: conn.clone(),
                    req: req.clone(),
                    turn_number: s.turn_number,
                    plan: s.plan,
                    received: std::time::Instant::now(),
                };
                self.to_room(s.match_id, cmd, req).await;
            }
            ClientMsg::Pass(t) => {
                let cmd = RoomCmd::Submit {
                    player: player.id,
                    conn: conn.clone(),
                    req: req.clone(),
                    turn_number: t.turn_number,
                    plan: engine::Plan::pass(),
                    received: std::time::Instant::now(),
                };
                self.to_room(t.match_id, cmd, req).await;
            }
            ClientMsg::Resync(r) => {
                let cmd = RoomCmd::Resync {
                    player: player.id,
                    conn: conn.clone(),
                    req: req.clone(),
                    last_seq: r.last_seq,
                };
                self.to_room(r.match_id, cmd, req).await;
            }
            ClientMsg::Spectate(m) => {
                let cmd = RoomCmd::Spectate {
                    player: player.id,
                    conn: conn.clone(),
                    req: req.clone(),
                };
                if self.to_room(m.match_id, cmd, req).await {
                    self.watching.insert(m.match_id);
                }
            }
            ClientMsg::Chat(c) => {
                let cmd = RoomCmd::Chat {
                    player: player.id,
                    name: player.name,
                    conn: conn.clone(),
                    req: req.clone(),
                    text: c.text,
                };
                self.to_room(c.match_id, cmd, req).await;
            }
        }
    }

    /// Routes `cmd` to the room of `match_id`; `match_not_found` if it is not running.
    async fn to_room(&self, match_id: Uuid, cmd: RoomCmd, req: Option<String>) -> bool {
        let sent = match self.state.room(match_id) {
            Some(room) => room.send(cmd).await.is_ok(),
            None => false,
        };
        if !sent {
            self.conn.send_error(
                ErrorCode::MatchNotFound,
                format!("no running match {match_id}"),
                req,
            );
        }
        sent
    }

    /// `hello`: check the version and token, register this connection as the
    /// player's (closing an older one), answer `welcome`, and re-attach the player to
    /// its running match, which sends a snapshot.
    async fn hello(&mut self, h: Hello, req: Option<String>) {
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
            return;
        }
        let player = match self
            .state
            .store()
            .player_by_token_hash(&token_hash(&h.token))
            .await
        {
            Ok(Some(p)) => p,
            Ok(None) => {
                self.conn
                    .send_error(ErrorCode::NotAuthenticated, "unknown token", req);
                return;
            }
            Err(e) => {
                tracing::error!(error = %e, "token look-up failed");
                self.conn.send_error(
                    ErrorCode::Internal,
                    "could not check the token; try again",
                    req,
                );
                return;
            }
        };
        if self.player.as_ref().is_some_and(|p| p.id != player.id) {
            self.conn.send_error(
                ErrorCode::AlreadyBusy,
                "this socket is signed in as another player",
                req,
            );
            return;
        }
        if let Some(old) = self.state.sessions().insert(player.id, self.conn.clone()) {
            if old.id() != self.conn.id() {
                old.close(CloseReason::REPLACED);
            }
        }
        let active: Vec<Uuid> = self
            .state
            .presence()
            .active_match(player.id)
            .into_iter()
            .collect();
        tracing::debug!(conn = self.conn.id(), player = %player.id, client = %h.client.chars().take(64).collect::<String>(), "hello");
        self.conn.send_msg(
            None,
            &ServerMsg::Welcome(Welcome {
                player_id: player.id,
                name: player.name.clone(),
                server_version: SERVER_VERSION.to_string(),
                protocol_version: v,
                active_matches: active.clone(),
            }),
        );
        for m in active {
            if let Some(room) = self.state.room(m) {
                let _ = room
                    .send(RoomCmd::Attach {
                        player: player.id,
                        conn: self.conn.clone(),
                    })
                    .await;
            }
        }
        self.player = Some(player);
    }

    /// The socket closed: leave the queue or lobby (unless a newer connection of the
    /// same player took over) and detach from rooms; a seat is kept.
    async fn cleanup(&mut self) {
        let conn_id = self.conn.id();
        if let Some(p) = &self.player {
            let current = self
                .state
                .sessions()
                .remove_if(&p.id, |_, c| c.id() == conn_id)
                .is_some();
            match self.state.presence().get(p.id) {
                Some(Busy::Queued(_)) if current => {
                    let cmd = crate::matchmaker::MmCmd::Leave {
                        player: p.id,
                        conn: None,
                        req: None,
                    };
                    let _ = self.state.matchmaker().send(cmd).await;
                }
                Some(Busy::Lobby) if current => {
                    let _ = self.state.lobbies().leave(&self.state, p.id);
                }
                Some(Busy::Seated(m)) => {
                    self.watching.insert(m);
                }
                _ => {}
            }
        }
        for m in self.watching.drain() {
            if let Some(room) = self.state.room(m) {
                let _ = room.send(RoomCmd::Detach { conn_id }).await;
            }
        }
    }
}

/// The close for a failed read: 1009 for a message over the hard size limit (as
/// `proto/README.md` §2 promises), 1002 for anything else.
fn read_error_reason(e: axum::Error) -> CloseReason {
    match e.into_inner().downcast::<tungstenite::Error>() {
        Ok(t) if matches!(*t, tungstenite::Error::Capacity(_)) => CloseReason::TOO_BIG,
        _ => CloseReason::READ_ERROR,
    }
}

fn busy_text(b: Busy) -> &'static str {
    match b {
        Busy::Queued(_) => "you are already in a queue",
        Busy::Lobby => "you are in a lobby",
        Busy::Seated(_) => "you are seated in a running match",
    }
}
