//! An authenticated protocol session: one socket after a successful `hello`, the
//! request/answer helpers (queue, lobby, turns, resync), per-match `seq` tracking with
//! gap detection, and reconnecting with resync.
//!
//! # Sequence numbers
//! Every match message carries the match's `seq` (1, 2, 3 … without gaps). The
//! session hands match messages to the caller strictly in order:
//! * a frame whose `seq` is at or below the last one handed out is a duplicate (for
//!   example replayed by a resync) and is dropped;
//! * a frame whose `seq` skips ahead is a gap: the session sends `resync` with the last
//!   `seq` it handed out, drops the frame and every later one until the server's replay
//!   (the missed messages, or a `snapshot`) reaches the missing number;
//! * a `snapshot` is always handed out and sets the last `seq` to its own.
//!
//! On [`Session::reconnect`] the new `hello` carries the last `seq` of every match the
//! session follows, so the server replays a short gap of a running match right after
//! `welcome` (or sends a snapshot) without a `resync` round trip.

use crate::codec::Decode;
use crate::conn::Connection;
use crate::endpoint::Endpoint;
use crate::error::{ClientError, Result};
use crate::rest::Guest;
use engine::{Mode, Plan};
use protocol::{
    ClientMsg, CreateLobby, Hello, JoinLobby, JoinQueue, LobbyState, MatchRef, MatchStarted,
    PlanPreview, Resync, ServerFrame, ServerMsg, SubmitTurn, TurnRef, Welcome, PROTOCOL_VERSION,
};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::Duration;
use tokio::time::Instant;
use uuid::Uuid;

/// How long the request helpers wait for an answer by default.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// Pause between two tries of [`Session::rejoin_elsewhere`].
pub const REJOIN_BACKOFF: Duration = Duration::from_millis(200);

/// Per-match sequence state.
#[derive(Debug, Clone, Copy, Default)]
struct SeqState {
    /// The last `seq` handed to the caller (0 for none).
    last: u64,
    /// A `resync` is on its way: drop frames until the missing `seq` (or a snapshot) comes.
    resyncing: bool,
}

/// The match a message is about, if any.
pub fn match_of(msg: &ServerMsg) -> Option<Uuid> {
    match msg {
        ServerMsg::MatchStarted(m) => Some(m.match_id),
        ServerMsg::DiceSealed(m) => Some(m.match_id),
        ServerMsg::TurnStarted(m) => Some(m.match_id),
        ServerMsg::TurnResolved(m) => Some(m.match_id),
        ServerMsg::Snapshot(m) => Some(m.match_id),
        ServerMsg::MatchEnded(m) => Some(m.match_id),
        ServerMsg::Chat(m) => Some(m.match_id),
        _ => None,
    }
}

/// An authenticated session on one socket.
#[derive(Debug)]
pub struct Session {
    endpoint: Endpoint,
    /// Every server this session may use (cluster nodes), `endpoint` among them;
    /// [`Session::rejoin_elsewhere`] moves to the next one.
    endpoints: Vec<Endpoint>,
    guest: Guest,
    client_name: String,
    conn: Connection,
    welcome: Welcome,
    seqs: HashMap<Uuid, SeqState>,
    /// Frames already read and passed through the seq filter, not yet handed out.
    held: VecDeque<ServerFrame>,
    gaps: u64,
    decode: Decode,
}

/// Opens a socket and authenticates on it (`hello` with `last_seq`: the last `seq`
/// processed per match); returns the socket and the `welcome`.
async fn open_authenticated(
    endpoint: &Endpoint,
    guest: &Guest,
    client_name: &str,
    last_seq: BTreeMap<Uuid, u64>,
) -> Result<(Connection, Welcome, Vec<ServerFrame>)> {
    let mut conn = Connection::open(&endpoint.ws()).await?;
    let hello = Hello {
        token: guest.token.clone(),
        protocol_version: PROTOCOL_VERSION,
        client: client_name.to_string(),
        last_seq,
    };
    let id = conn.request(ClientMsg::Hello(hello)).await?;
    let mut early = Vec::new();
    let deadline = Instant::now() + ANSWER_TIMEOUT;
    loop {
        let frame = tokio::time::timeout_at(deadline, conn.recv())
            .await
            .map_err(|_| ClientError::Timeout("welcome".into()))??;
        match frame.msg {
            ServerMsg::Welcome(w) => return Ok((conn, w, early)),
            ServerMsg::Error(e)
                if e.in_reply_to.as_deref() == Some(&id) || e.in_reply_to.is_none() =>
            {
                return Err(ClientError::Server(e))
            }
            ServerMsg::Ack(_) => continue,
            _ => early.push(frame),
        }
    }
}

impl Session {
    /// Connects to `endpoint`'s `/ws` and sends `hello` with the guest's token.
    ///
    /// Errors: transport errors, [`ClientError::Server`] with `not_authenticated` or
    /// `unsupported_version`, [`ClientError::Timeout`] when no `welcome` comes within
    /// [`ANSWER_TIMEOUT`].
    pub async fn connect(endpoint: &Endpoint, guest: Guest, client_name: &str) -> Result<Session> {
        let (conn, welcome, early) =
            open_authenticated(endpoint, &guest, client_name, BTreeMap::new()).await?;
        let mut s = Session {
            endpoint: endpoint.clone(),
            endpoints: vec![endpoint.clone()],
            guest,
            client_name: client_name.to_string(),
            conn,
            welcome,
            seqs: HashMap::new(),
            held: VecDeque::new(),
            gaps: 0,
            decode: Decode::Full,
        };
        for f in early {
            s.filter(f).await?;
        }
        Ok(s)
    }

    /// The servers (cluster nodes) this session may move to; the current one is
    /// added when missing.
    pub fn set_endpoints(&mut self, all: Vec<Endpoint>) {
        self.endpoints = all;
        if !self.endpoints.contains(&self.endpoint) {
            self.endpoints.insert(0, self.endpoint.clone());
        }
    }

    /// The server this session is connected to.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// The close code of the socket's close by the server (see
    /// [`Connection::close_code`]).
    pub fn close_code(&self) -> Option<u16> {
        self.conn.close_code()
    }

    /// Moves to the next server of [`Session::set_endpoints`] (the same one when
    /// there is only one) and rejoins the running match `match_id` there: a new
    /// socket, `hello` with the last `seq` of every followed match, then `resync`
    /// from the last `seq` of `match_id`, whose `ack` proves the match's room took
    /// the socket (the missed frames, or a snapshot, follow). A node that is down,
    /// or a match not running anywhere yet (its new owner is resuming it), is tried
    /// again on the next server, every [`REJOIN_BACKOFF`], until `limit` passes.
    ///
    /// Returns false when the match is no longer running (not among
    /// `welcome.active_matches`: it ended meanwhile).
    ///
    /// Errors: the last failure once `limit` passed.
    pub async fn rejoin_elsewhere(&mut self, match_id: Uuid, limit: Duration) -> Result<bool> {
        use backon::BackoffBuilder;
        let deadline = Instant::now() + limit;
        let tries = (limit.as_millis() / REJOIN_BACKOFF.as_millis()).max(1) as usize;
        let mut delays = backon::ConstantBuilder::default()
            .with_delay(REJOIN_BACKOFF)
            .with_max_times(tries)
            .build();
        loop {
            let failed = match tokio::time::timeout_at(deadline, self.rejoin_next(match_id)).await {
                Ok(Ok(running)) => return Ok(running),
                Ok(Err(e)) => e,
                Err(_) => ClientError::Timeout("rejoin".into()),
            };
            match delays.next() {
                Some(d) if Instant::now() + d < deadline => {
                    tracing::debug!(%match_id, "rejoin failed ({failed}): trying the next server");
                    tokio::time::sleep(d).await;
                }
                _ => return Err(failed),
            }
        }
    }

    /// One try of [`Session::rejoin_elsewhere`] on the next server.
    async fn rejoin_next(&mut self, match_id: Uuid) -> Result<bool> {
        let at = self
            .endpoints
            .iter()
            .position(|e| *e == self.endpoint)
            .unwrap_or(0);
        self.endpoint = self.endpoints[(at + 1) % self.endpoints.len()].clone();
        self.reconnect().await?;
        if !self.welcome.active_matches.contains(&match_id) {
            return Ok(false);
        }
        let last = self.last_seq(match_id);
        self.seqs.insert(
            match_id,
            SeqState {
                last,
                resyncing: true,
            },
        );
        self.request_ack(ClientMsg::Resync(Resync {
            match_id,
            last_seq: last,
        }))
        .await?;
        Ok(true)
    }

    /// The server's `welcome` (of the latest connect or reconnect).
    pub fn welcome(&self) -> &Welcome {
        &self.welcome
    }
    /// The authenticated player.
    pub fn player_id(&self) -> Uuid {
        self.welcome.player_id
    }
    /// The guest identity (its token reconnects).
    pub fn guest(&self) -> &Guest {
        &self.guest
    }
    /// The last `seq` handed out for `match_id` (0 when none).
    pub fn last_seq(&self, match_id: Uuid) -> u64 {
        self.seqs.get(&match_id).map_or(0, |s| s.last)
    }
    /// How much of each frame to decode from now on (kept across reconnects). With
    /// [`Decode::Lite`], `turn_resolved` frames come without events and with a
    /// placeholder position.
    pub fn set_decode(&mut self, decode: Decode) {
        self.decode = decode;
        self.conn.set_decode(decode);
    }
    /// The decoding mode.
    pub fn decode(&self) -> Decode {
        self.decode
    }
    /// How many `seq` gaps were detected (each answered by a `resync`).
    pub fn gaps_detected(&self) -> u64 {
        self.gaps
    }
    /// Frames already read from the socket (past the `seq` filter) that
    /// [`Session::next_frame_until`] hands out before it reads the socket again.
    /// Right after [`Session::rejoin_elsewhere`] returned true these are what the
    /// server sent before it acknowledged the rejoin's `resync`: the frames missed
    /// (or a snapshot) as of then, `ack`s and other answers among them; once they
    /// are all handed out the caller has seen the match as the server showed it
    /// at the rejoin.
    pub fn buffered(&self) -> usize {
        self.held.len()
    }

    /// Reconnect: drops the socket, opens a new one and sends `hello` again with the
    /// same token and the last handed-out `seq` of every match the session follows.
    /// The server follows `welcome` with the missed frames (or a snapshot) of each of
    /// the player's running matches (`welcome.active_matches`); the other followed
    /// matches (watched, or ended meanwhile) get a `resync` from their last `seq`.
    pub async fn reconnect(&mut self) -> Result<()> {
        let last_seq = self
            .seqs
            .iter()
            .filter(|(_, st)| st.last > 0)
            .map(|(m, st)| (*m, st.last))
            .collect();
        let (conn, welcome, early) =
            open_authenticated(&self.endpoint, &self.guest, &self.client_name, last_seq).await?;
        let old = std::mem::replace(&mut self.conn, conn);
        drop(old);
        self.welcome = welcome;
        let others: Vec<Uuid> = self
            .seqs
            .keys()
            .filter(|m| !self.welcome.active_matches.contains(m))
            .copied()
            .collect();
        for m in others {
            let last = self.last_seq(m);
            self.resync_from(m, last).await?;
        }
        for f in early {
            self.filter(f).await?;
        }
        Ok(())
    }

    /// Asks for everything of `match_id` after `last_seq` (0 = from the start); later
    /// frames are dropped until the replay arrives. Returns the request id.
    pub async fn resync_from(&mut self, match_id: Uuid, last_seq: u64) -> Result<String> {
        self.seqs.insert(
            match_id,
            SeqState {
                last: last_seq,
                resyncing: true,
            },
        );
        self.conn
            .request(ClientMsg::Resync(Resync { match_id, last_seq }))
            .await
    }

    /// Passes one frame through the seq filter into `held`.
    async fn filter(&mut self, frame: ServerFrame) -> Result<()> {
        let (Some(seq), Some(m)) = (frame.seq, match_of(&frame.msg)) else {
            self.held.push_back(frame);
            return Ok(());
        };
        let st = self.seqs.entry(m).or_default();
        if matches!(frame.msg, ServerMsg::Snapshot(_)) || seq == st.last + 1 {
            *st = SeqState {
                last: seq,
                resyncing: false,
            };
            self.held.push_back(frame);
        } else if seq > st.last + 1 && !st.resyncing {
            let last = st.last;
            self.gaps += 1;
            tracing::debug!(%m, last, seq, "seq gap: resync");
            self.resync_from(m, last).await?;
        }
        // seq <= last: duplicate; seq > last + 1 while resyncing: covered by the replay.
        Ok(())
    }

    /// The next frame in order, or `None` when `deadline` passes first. Reading is
    /// cancel-safe; the seq filter (which may send a `resync`) runs after the read.
    ///
    /// Errors: [`ClientError::Closed`] and transport or decode errors.
    pub async fn next_frame_until(&mut self, deadline: Instant) -> Result<Option<ServerFrame>> {
        loop {
            if let Some(f) = self.held.pop_front() {
                return Ok(Some(f));
            }
            let frame = tokio::select! {
                f = self.conn.recv() => f?,
                _ = tokio::time::sleep_until(deadline) => return Ok(None),
            };
            self.filter(frame).await?;
        }
    }

    /// Keeps reading (so WebSocket pings are answered and the server sees a live
    /// client) until `until` completes; frames that arrive are kept for
    /// [`Session::next_frame`]. Returns `until`'s output.
    ///
    /// Errors: [`ClientError::Closed`] and transport or decode errors.
    pub async fn idle_until<F: std::future::Future>(&mut self, until: F) -> Result<F::Output> {
        tokio::pin!(until);
        loop {
            tokio::select! {
                out = &mut until => return Ok(out),
                f = self.conn.recv() => {
                    let f = f?;
                    self.filter(f).await?;
                }
            }
        }
    }

    /// The next frame in order (waits as long as it takes).
    pub async fn next_frame(&mut self) -> Result<ServerFrame> {
        let far = Instant::now() + Duration::from_secs(86_400 * 365);
        Ok(self
            .next_frame_until(far)
            .await?
            .expect("a year-long wait does not expire"))
    }

    /// Reads frames until `pick` returns `Some`, keeping every other frame for later
    /// [`Session::next_frame`] calls in their order.
    async fn wait_for<T>(
        &mut self,
        what: &str,
        timeout: Duration,
        mut pick: impl FnMut(&ServerFrame) -> Option<Result<T>>,
    ) -> Result<T> {
        let deadline = Instant::now() + timeout;
        let mut skipped = VecDeque::new();
        let result = loop {
            match self.next_frame_until(deadline).await {
                Ok(Some(f)) => match pick(&f) {
                    Some(r) => break r,
                    None => skipped.push_back(f),
                },
                Ok(None) => break Err(ClientError::Timeout(what.to_string())),
                Err(e) => break Err(e),
            }
        };
        while let Some(f) = skipped.pop_back() {
            self.held.push_front(f);
        }
        result
    }

    /// Sends `msg` and waits for `ack` (or `error`) with its id.
    async fn request_ack(&mut self, msg: ClientMsg) -> Result<()> {
        let what = msg.type_name();
        let id = self.conn.request(msg).await?;
        self.wait_for(what, ANSWER_TIMEOUT, |f| match &f.msg {
            ServerMsg::Ack(a) if a.id == id => Some(Ok(())),
            ServerMsg::Error(e) if e.in_reply_to.as_deref() == Some(&id) => {
                Some(Err(ClientError::Server(e.clone())))
            }
            _ => None,
        })
        .await
    }

    /// Sends `msg` and waits for the first frame `pick` accepts, or an `error` with its id.
    async fn request_answer<T>(
        &mut self,
        msg: ClientMsg,
        mut pick: impl FnMut(&ServerMsg) -> Option<T>,
    ) -> Result<T> {
        let what = msg.type_name();
        let id = self.conn.request(msg).await?;
        self.wait_for(what, ANSWER_TIMEOUT, |f| match &f.msg {
            ServerMsg::Error(e) if e.in_reply_to.as_deref() == Some(&id) => {
                Some(Err(ClientError::Server(e.clone())))
            }
            m => pick(m).map(Ok),
        })
        .await
    }

    /// `join_queue`: enters the quick-play queue of `mode` and waits for the `ack`.
    /// The match comes later as `match_started` (see [`Session::wait_match_started`]).
    /// Bots that fill in are of the default level (`greedy`).
    pub async fn join_queue(&mut self, mode: Mode) -> Result<()> {
        self.request_ack(ClientMsg::JoinQueue(JoinQueue {
            mode,
            bot_level: protocol::BotLevel::default(),
        }))
        .await
    }

    /// `leave_queue`, waiting for the `ack`.
    pub async fn leave_queue(&mut self) -> Result<()> {
        self.request_ack(ClientMsg::LeaveQueue).await
    }

    /// `create_lobby`: returns the new lobby (with its join code). `bots`: the lobby
    /// fills its empty seats with bots of that level when it starts (`None`: it
    /// needs two players or more).
    pub async fn create_lobby(
        &mut self,
        mode: Mode,
        private: bool,
        bots: Option<protocol::BotLevel>,
    ) -> Result<LobbyState> {
        self.request_answer(
            ClientMsg::CreateLobby(CreateLobby {
                mode,
                private,
                fill_with_bots: bots.is_some(),
                bot_level: bots.unwrap_or_default(),
            }),
            |m| match m {
                ServerMsg::LobbyState(l) => Some(l.clone()),
                _ => None,
            },
        )
        .await
    }

    /// `join_lobby` by code: returns the lobby as it is after joining.
    pub async fn join_lobby(&mut self, code: &str) -> Result<LobbyState> {
        let me = self.player_id();
        self.request_answer(
            ClientMsg::JoinLobby(JoinLobby {
                code: code.to_string(),
            }),
            |m| match m {
                ServerMsg::LobbyState(l) if l.members.iter().any(|p| p.player_id == me) => {
                    Some(l.clone())
                }
                _ => None,
            },
        )
        .await
    }

    /// `leave_lobby`, waiting for the `ack`.
    pub async fn leave_lobby(&mut self) -> Result<()> {
        self.request_ack(ClientMsg::LeaveLobby).await
    }

    /// Waits (up to `timeout`) until a `lobby_state` shows at least `members` members.
    pub async fn wait_lobby_members(
        &mut self,
        members: usize,
        timeout: Duration,
    ) -> Result<LobbyState> {
        self.wait_for("lobby members", timeout, |f| match &f.msg {
            ServerMsg::LobbyState(l) if l.members.len() >= members => Some(Ok(l.clone())),
            _ => None,
        })
        .await
    }

    /// `start_lobby` (host only): returns (and consumes) the `match_started` it causes;
    /// start a [`crate::tracker::MatchTracker`] from it.
    pub async fn start_lobby(&mut self) -> Result<MatchStarted> {
        let started = self
            .request_answer(ClientMsg::StartLobby, |m| match m {
                ServerMsg::MatchStarted(s) => Some(s.clone()),
                _ => None,
            })
            .await?;
        Ok(started)
    }

    /// Waits (up to `timeout`) for a `match_started`, consuming it.
    pub async fn wait_match_started(&mut self, timeout: Duration) -> Result<MatchStarted> {
        self.wait_for("match_started", timeout, |f| match &f.msg {
            ServerMsg::MatchStarted(s) => Some(Ok(s.clone())),
            _ => None,
        })
        .await
    }

    /// `submit_turn` without waiting: returns the request id. The answer comes as
    /// `ack` then `turn_resolved`, or as `error` with `in_reply_to` = the id.
    pub async fn submit(&mut self, match_id: Uuid, turn_number: u32, plan: Plan) -> Result<String> {
        self.conn
            .request(ClientMsg::SubmitTurn(SubmitTurn {
                match_id,
                turn_number,
                plan,
            }))
            .await
    }

    /// `contribute_entropy` without waiting (proto/README.md §10): 32 fresh bytes
    /// from the operating system's CSPRNG as the seat's dice contribution to match
    /// `match_id`. Returns the request id and the entropy sent (hex); the answer
    /// comes as `ack`, or `error` (`contribution_closed` once the window is over).
    ///
    /// Errors: the operating system's generator failed ([`ClientError::Unexpected`]),
    /// or the socket's.
    pub async fn contribute_entropy(&mut self, match_id: Uuid) -> Result<(String, String)> {
        use rand::TryRngCore;
        let mut b = [0u8; 32];
        rand::rngs::OsRng
            .try_fill_bytes(&mut b)
            .map_err(|e| ClientError::Unexpected(format!("no randomness: {e}")))?;
        let entropy = hex::encode(b);
        let id = self
            .conn
            .request(ClientMsg::ContributeEntropy(protocol::ContributeEntropy {
                match_id,
                entropy: entropy.clone(),
            }))
            .await?;
        Ok((id, entropy))
    }

    /// `preview_plan`, waiting for its `plan_preview` (the events and standings the
    /// plan would give, and the single-piece moves it could still add), or the
    /// `error` a `submit_turn` of the plan would get ([`ClientError::Server`]).
    /// Nothing changes on the server.
    pub async fn preview(
        &mut self,
        match_id: Uuid,
        turn_number: u32,
        plan: Plan,
    ) -> Result<PlanPreview> {
        let id = self
            .conn
            .request(ClientMsg::PreviewPlan(SubmitTurn {
                match_id,
                turn_number,
                plan,
            }))
            .await?;
        self.wait_for("preview_plan", ANSWER_TIMEOUT, |f| match &f.msg {
            ServerMsg::PlanPreview(p) if p.in_reply_to.as_deref() == Some(&id) => {
                Some(Ok(p.clone()))
            }
            ServerMsg::Error(e) if e.in_reply_to.as_deref() == Some(&id) => {
                Some(Err(ClientError::Server(e.clone())))
            }
            _ => None,
        })
        .await
    }

    /// `pass` without waiting: returns the request id (answers as [`Session::submit`]).
    pub async fn pass(&mut self, match_id: Uuid, turn_number: u32) -> Result<String> {
        self.conn
            .request(ClientMsg::Pass(TurnRef {
                match_id,
                turn_number,
            }))
            .await
    }

    /// `spectate` without waiting: the `snapshot` and live messages follow.
    pub async fn spectate(&mut self, match_id: Uuid) -> Result<String> {
        self.conn
            .request(ClientMsg::Spectate(MatchRef { match_id }))
            .await
    }

    /// `ping`, waiting for the `pong`; returns the round trip.
    pub async fn ping(&mut self) -> Result<Duration> {
        let t0 = Instant::now();
        self.request_answer(ClientMsg::Ping, |m| {
            matches!(m, ServerMsg::Pong).then_some(())
        })
        .await?;
        Ok(t0.elapsed())
    }

    /// Closes the socket.
    pub async fn close(self) {
        self.conn.close().await
    }
}
