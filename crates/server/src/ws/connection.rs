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
use crate::auth::token_hash;
use crate::presence::Busy;
use crate::room::RoomCmd;
use crate::state::AppState;
use axum::extract::ws::{Message, WebSocket};
use futures_util::stream::SplitStream;
use futures_util::StreamExt;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use protocol::{ClientFrame, ClientMsg, ErrorCode, Hello, ServerMsg, Welcome};
use std::collections::HashSet;
use std::num::NonZeroU32;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;
use uuid::Uuid;

/// Server build version sent in `welcome`.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Serves one upgraded socket until it closes.
pub async fn serve(socket: WebSocket, state: AppState) {
    let (sink, stream) = socket.split();
    let (tx, rx) = mpsc::channel(state.config().outbound_queue);
    let conn = ConnHandle::new(state.next_conn_id(), tx);
    metrics::gauge!("ludo_ws_connections").increment(1.0);
    let ping_every = Duration::from_secs(state.config().ping_seconds.into());
    let writer = state.tasks().spawn(super::outbound::write_loop(
        sink,
        rx,
        conn.clone(),
        ping_every,
    ));
    let mut session = Session::new(state, conn.clone());
    session.read_loop(stream).await;
    session.cleanup().await;
    conn.close(CloseReason::NORMAL);
    let _ = writer.await;
    metrics::gauge!("ludo_ws_connections").decrement(1.0);
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
                // Any frame counts as activity; tungstenite answers pings itself.
                Message::Ping(_) | Message::Pong(_) => {}
                Message::Close(_) => return,
            }
            // The idle period runs from the end of the last frame's handling.
            active_at = Instant::now();
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
        if !self.admit(id) {
            return;
        }
        match decoded {
            Ok(frame) => self.dispatch(frame).await,
            Err(e) => self.conn.send_error(e.code, e.message, e.id),
        }
    }

    /// Waits until the request of `answered` was answered (or the connection or the
    /// server is closing), before the next request is read.
    async fn answer_of(&self, answered: Answered) {
        tokio::select! {
            biased;
            _ = self.conn.closing() => {}
            _ = self.state.shutdown_token().cancelled() => {}
            _ = answered.wait() => {}
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
            ClientMsg::JoinQueue(_) | ClientMsg::CreateLobby(_) | ClientMsg::OfferRematch(_)
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
                // Cluster: the queue is the matchmaker node's (crate::cluster::queue).
                if let Some(c) = state.cluster().filter(|c| !c.is_matchmaker()) {
                    let cmd = crate::cluster::queue::QueueCmd::Join {
                        name: player.name.clone(),
                        mode: j.mode,
                    };
                    match c.queue_remote(player.id, cmd, &conn).await {
                        Ok(()) => conn.ack(req),
                        Err(r) => {
                            state.presence().release(player.id, Busy::Queued(j.mode));
                            conn.send_error(r.code, r.message, req);
                        }
                    }
                    return;
                }
                let (rconn, answered) = conn.for_request();
                let cmd = crate::matchmaker::MmCmd::Join {
                    player: player.id,
                    name: player.name,
                    mode: j.mode,
                    conn: rconn,
                    req: req.clone(),
                };
                if state.matchmaker().send(cmd).await.is_err() {
                    state.presence().release(player.id, Busy::Queued(j.mode));
                    conn.send_error(ErrorCode::Internal, "matchmaking is not available", req);
                    return;
                }
                self.answer_of(answered).await;
            }
            ClientMsg::LeaveQueue => {
                if let Some(c) = state.cluster().filter(|c| !c.is_matchmaker()) {
                    let cmd = crate::cluster::queue::QueueCmd::Leave { closed: false };
                    match c.queue_remote(player.id, cmd, &conn).await {
                        Ok(()) => {
                            if let Some(b @ Busy::Queued(_)) = state.presence().get(player.id) {
                                state.presence().release(player.id, b);
                            }
                            conn.ack(req);
                        }
                        Err(r) => conn.send_error(r.code, r.message, req),
                    }
                    return;
                }
                let (rconn, answered) = conn.for_request();
                let cmd = crate::matchmaker::MmCmd::Leave {
                    player: player.id,
                    conn: Some(rconn),
                    req: req.clone(),
                };
                if state.matchmaker().send(cmd).await.is_err() {
                    conn.send_error(ErrorCode::Internal, "matchmaking is not available", req);
                    return;
                }
                self.answer_of(answered).await;
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
            ClientMsg::SubscribeLobbies => {
                conn.ack(req);
                state.lobbies().subscribe(&conn);
            }
            ClientMsg::UnsubscribeLobbies => {
                state.lobbies().unsubscribe(conn.id());
                conn.ack(req);
            }
            ClientMsg::OfferRematch(m) => self.offer_rematch(&player, m.match_id, req).await,
            ClientMsg::LeaveLobby => match state.lobbies().leave(&state, player.id) {
                Ok(()) => conn.ack(req),
                Err(e) => conn.send_error(e.code(), e.to_string(), req),
            },
            ClientMsg::StartLobby => match state.lobbies().start(&state, player.id) {
                Ok(_) => conn.ack(req),
                Err(e) => conn.send_error(e.code(), e.to_string(), req),
            },
            ClientMsg::SubmitTurn(s) => {
                let received = std::time::Instant::now();
                let at_ms = state.clock().now_ms();
                let make = |conn| RoomCmd::Submit {
                    player: player.id,
                    conn,
                    req: req.clone(),
                    turn_number: s.turn_number,
                    plan: s.plan,
                    received,
                    at_ms,
                };
                self.to_room(s.match_id, Route::Submit, req.clone(), make)
                    .await;
            }
            ClientMsg::LeaveMatch(m) => {
                let make = |conn| RoomCmd::Leave {
                    player: player.id,
                    conn,
                    req: req.clone(),
                };
                self.to_room(m.match_id, Route::Submit, req.clone(), make)
                    .await;
            }
            ClientMsg::Pass(t) => {
                let received = std::time::Instant::now();
                let at_ms = state.clock().now_ms();
                let make = |conn| RoomCmd::Submit {
                    player: player.id,
                    conn,
                    req: req.clone(),
                    turn_number: t.turn_number,
                    plan: engine::Plan::pass(),
                    received,
                    at_ms,
                };
                self.to_room(t.match_id, Route::Submit, req.clone(), make)
                    .await;
            }
            ClientMsg::Resync(r) => {
                let make = |conn| RoomCmd::Resync {
                    player: player.id,
                    conn,
                    req: req.clone(),
                    last_seq: r.last_seq,
                };
                self.to_room(r.match_id, Route::Watch(player.id), req.clone(), make)
                    .await;
            }
            ClientMsg::Spectate(m) => {
                let make = |conn| RoomCmd::Spectate {
                    player: player.id,
                    conn,
                    req: req.clone(),
                };
                if self
                    .to_room(m.match_id, Route::Watch(player.id), req.clone(), make)
                    .await
                {
                    self.watching.insert(m.match_id);
                }
            }
            ClientMsg::Chat(c) => {
                // The text policy (protocol::text) is applied here, before the room:
                // the room relays the normalized text.
                let text = match protocol::text::chat(&c.text) {
                    Ok(t) => t,
                    Err(e) => {
                        conn.send_error(ErrorCode::InvalidText, format!("chat text: {e}"), req);
                        return;
                    }
                };
                let make = |conn| RoomCmd::Chat {
                    player: player.id,
                    name: player.name,
                    conn,
                    req: req.clone(),
                    text,
                };
                self.to_room(c.match_id, Route::Other, req.clone(), make)
                    .await;
            }
        }
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
        let sent = match (self.state.room(match_id), self.state.cluster()) {
            (Some(room), _) => room.send(make(rconn)).await.is_ok(),
            // Cluster: the match may run on another node (crate::cluster::remote).
            (None, Some(c)) => c.route(match_id, make(rconn), &self.conn).await,
            (None, None) => false,
        };
        if sent {
            self.answer_of(answered).await;
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
                now,
                turn_deadline: None,
                match_deadline: now,
            },
            dice_commitment: doc.replay.dice_commitment.clone(),
            turns_played: m.turns_played(),
            // The match's last message: its `match_ended` (0 for a match recorded
            // before its seq was).
            seq: end_seq,
            ended: Some(
                protocol::MatchEnded::from_end(match_id, &end, seed).with_ratings(&ratings),
            ),
        })
    }

    /// `offer_rematch`: the first error that applies, in this order:
    /// `match_not_found`, `not_in_match`, `match_not_ended`, then the lobby's
    /// (`already_busy`, `lobby_full`); otherwise the rematch lobby opens (or the
    /// player joins the open one) and the answer is `ack`.
    async fn offer_rematch(&self, player: &store::Player, match_id: Uuid, req: Option<String>) {
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
        match self.state.lobbies().rematch(
            &self.state,
            player.id,
            &player.name,
            match_id,
            summary.mode,
            &invited,
        ) {
            Ok(_) => self.conn.ack(req),
            Err(e) => self.conn.send_error(e.code(), e.to_string(), req),
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
        // Cluster: a socket of the same player on another node is replaced too.
        if let Some(c) = self.state.cluster() {
            c.announce_hello(player.id).await;
        }
        let mut active: Vec<Uuid> = self
            .state
            .presence()
            .active_match(player.id)
            .into_iter()
            .collect();
        // Cluster: the player's match may run on another node.
        if active.is_empty() && self.state.cluster().is_some() {
            match self.state.store().running_match_of(player.id).await {
                Ok(Some(m)) => active.push(m),
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "running match of the player not read"),
            }
        }
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
            let attach = RoomCmd::Attach {
                player: player.id,
                conn: self.conn.clone(),
                last_seq: h.last_seq.get(&m).copied().unwrap_or(0),
            };
            match (self.state.room(m), self.state.cluster()) {
                (Some(room), _) => {
                    let _ = room.send(attach).await;
                }
                (None, Some(c)) => {
                    if c.route(m, attach, &self.conn).await {
                        self.watching.insert(m);
                    }
                }
                (None, None) => {}
            }
        }
        // A player waiting in a lobby or queue (a second tab, or back within the
        // lobby's grace period) gets that state at once.
        match self.state.presence().get(player.id) {
            Some(Busy::Lobby) => {
                self.state.lobbies().back(player.id, &self.conn);
            }
            Some(Busy::Queued(_)) if self.state.cluster().is_some_and(|c| !c.is_matchmaker()) => {
                if let Some(c) = self.state.cluster() {
                    let cmd = crate::cluster::queue::QueueCmd::Status;
                    if let Err(r) = c.queue_remote(player.id, cmd, &self.conn).await {
                        tracing::debug!(error = %r.message, "queue status not asked");
                    }
                }
            }
            Some(Busy::Queued(_)) => {
                let cmd = crate::matchmaker::MmCmd::Status {
                    player: player.id,
                    conn: self.conn.clone(),
                };
                let _ = self.state.matchmaker().send(cmd).await;
            }
            Some(Busy::Seated(_)) | None => {}
        }
        self.player = Some(player);
    }

    /// The socket closed: leave the queue (unless a newer connection of the same
    /// player took over), keep a lobby seat for the grace period, and detach from
    /// rooms; a match seat is kept.
    async fn cleanup(&mut self) {
        let conn_id = self.conn.id();
        self.state.lobbies().unsubscribe(conn_id);
        if let Some(p) = &self.player {
            let current = self
                .state
                .sessions()
                .remove_if(&p.id, |_, c| c.id() == conn_id)
                .is_some();
            match self.state.presence().get(p.id) {
                Some(b @ Busy::Queued(_))
                    if current && self.state.cluster().is_some_and(|c| !c.is_matchmaker()) =>
                {
                    if let Some(c) = self.state.cluster() {
                        let cmd = crate::cluster::queue::QueueCmd::Leave { closed: true };
                        let _ = c.queue_remote(p.id, cmd, &self.conn).await;
                    }
                    self.state.presence().release(p.id, b);
                }
                Some(Busy::Queued(_)) if current => {
                    let cmd = crate::matchmaker::MmCmd::Leave {
                        player: p.id,
                        conn: None,
                        req: None,
                    };
                    let _ = self.state.matchmaker().send(cmd).await;
                }
                Some(Busy::Lobby) if current => {
                    self.state.lobbies().away(&self.state, p.id);
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
fn read_error_reason(e: axum::Error) -> CloseReason {
    match e.into_inner().downcast::<tungstenite::Error>() {
        Ok(t) if matches!(*t, tungstenite::Error::Capacity(_)) => CloseReason::TOO_BIG,
        Ok(t) if matches!(*t, tungstenite::Error::Utf8(_)) => CloseReason::INVALID_UTF8,
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
