//! The room actor: the one task that owns a running match.
//!
//! It waits on three things at once: its command queue (submissions, resyncs,
//! spectators, reconnects), its timer (the engine's next deadline — turn timer or
//! match clock — or the moment a bot or an absent seat must act), and the server's
//! shutdown. Every change goes through the engine; every match message gets the
//! next `seq`, is encoded once and the same bytes are queued to each seat and
//! spectator without waiting. Persistence is handed to the write-behind writer, so
//! nothing on the path from a submission to its broadcast touches the database.
//!
//! When the match ends the room records the result, tells everyone, removes itself
//! from the registries and returns: its queue, timers, bots and engine state are
//! dropped with it.

use super::{History, RoomCmd};
use crate::clock;
use crate::state::AppState;
use crate::ws::{encode, ConnHandle, Frame};
use engine::{Expiry, Match, MatchEnd, Seat, TurnOutcome, TurnStart};
use protocol::{
    ChatLine, Clocks, ErrorCode, MatchEnded, MatchStarted, SeatInfo, ServerMsg, Snapshot,
    TurnResolved, TurnStarted,
};
use std::collections::HashMap;
use tokio::sync::mpsc;
use tokio::time::Instant;
use uuid::Uuid;

/// Longest chat line, characters (protocol `chat`).
const MAX_CHAT_CHARS: usize = 280;

/// Who plays a seat.
pub(crate) enum SeatKind {
    /// A human player (by id).
    Human(Uuid),
    /// A bot and its strategy (with its own seeded generator).
    Bot(Box<dyn bot::Strategy + Send>),
    /// Nobody.
    Empty,
}

/// One seat of the room.
pub(crate) struct SeatSlot {
    /// As shown to clients.
    pub info: SeatInfo,
    /// Who plays it.
    pub kind: SeatKind,
    /// The human's live connection, if any. `None` while disconnected: the seat is
    /// kept and its turns are passed.
    pub conn: Option<ConnHandle>,
    /// True once a turn of this human timed out while they were away: later turns are
    /// passed at once instead of waiting for the turn timer again. A reconnect clears it.
    pub away: bool,
}

impl SeatSlot {
    fn player(&self) -> Option<Uuid> {
        match self.kind {
            SeatKind::Human(p) => Some(p),
            _ => None,
        }
    }

    fn connected(&self) -> bool {
        self.conn.as_ref().is_some_and(|c| !c.is_closed())
    }
}

/// The room actor's state. Owned by its task; nothing else can reach it.
pub(crate) struct Room {
    id: Uuid,
    state: AppState,
    m: Match,
    seats: Vec<SeatSlot>,
    /// Spectators by connection id.
    spectators: HashMap<u64, ConnHandle>,
    history: History,
    rx: mpsc::Receiver<RoomCmd>,
    /// When the current turn started (bots think from here).
    turn_began: Instant,
    /// When the room must act for the current seat (a bot's move, or the pass of an
    /// absent seat), if it must.
    auto_at: Option<Instant>,
}

impl Room {
    pub(crate) fn new(
        id: Uuid,
        state: AppState,
        m: Match,
        seats: Vec<SeatSlot>,
        rx: mpsc::Receiver<RoomCmd>,
    ) -> Room {
        let cap = state.config().resync_frames;
        Room {
            id,
            state,
            m,
            seats,
            spectators: HashMap::new(),
            history: History::new(cap),
            rx,
            turn_began: Instant::now(),
            auto_at: None,
        }
    }

    /// Runs the match to its end (or until the server shuts down), then cleans up.
    pub(crate) async fn run(mut self) {
        let shutdown = self.state.shutdown_token().clone();
        self.announce_start();
        while !self.m.is_over() {
            let wake = self.next_wake();
            tokio::select! {
                biased;
                _ = shutdown.cancelled() => {
                    tracing::info!(match_id = %self.id, turns = self.m.turns_played(), "server stopping: room left running in the store");
                    break;
                }
                cmd = self.rx.recv() => match cmd {
                    Some(cmd) => self.on_cmd(cmd),
                    None => break, // unreachable while registered: the registry holds a sender
                },
                _ = sleep_until(wake) => self.on_timer(),
            }
        }
        self.unregister();
    }

    /// The next instant the room must wake without a command.
    fn next_wake(&self) -> Option<Instant> {
        let engine = self.m.next_deadline().map(clock::instant_at);
        match (engine, self.auto_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn seat_index_of(&self, player: Uuid) -> Option<usize> {
        self.seats.iter().position(|s| s.player() == Some(player))
    }

    // ----- commands -----

    fn on_cmd(&mut self, cmd: RoomCmd) {
        match cmd {
            RoomCmd::Submit {
                player,
                conn,
                req,
                turn_number,
                plan,
                received,
            } => {
                let Some(i) = self.seat_index_of(player) else {
                    conn.send_error(ErrorCode::NotInMatch, "you have no seat in this match", req);
                    return;
                };
                let seat = Seat::from_index(i);
                match self.m.submit(seat, turn_number, &plan, clock::now_ms()) {
                    Err(e) => conn.send_error(ErrorCode::from(&e), e.to_string(), req),
                    Ok(outcome) => {
                        conn.ack(req);
                        self.after_turn(outcome);
                        crate::metrics::turn_latency(received.elapsed());
                    }
                }
            }
            RoomCmd::Resync {
                player,
                conn,
                req,
                last_seq,
            } => {
                let seated = self.seat_index_of(player);
                if seated.is_none() && !self.spectators.contains_key(&conn.id()) {
                    conn.send_error(
                        ErrorCode::NotInMatch,
                        "you neither play nor watch this match",
                        req,
                    );
                    return;
                }
                if let Some(i) = seated {
                    self.attach(i, &conn);
                }
                conn.ack(req);
                match self.history.since(last_seq) {
                    Some(frames) => {
                        for f in frames {
                            conn.send(f);
                        }
                    }
                    None => self.send_snapshot(&conn, seated.map(Seat::from_index)),
                }
            }
            RoomCmd::Spectate { player, conn, req } => {
                conn.ack(req);
                if let Some(i) = self.seat_index_of(player) {
                    // A seated player asking to watch gets its seat back instead.
                    self.attach(i, &conn);
                    self.send_snapshot(&conn, Some(Seat::from_index(i)));
                } else {
                    self.send_snapshot(&conn, None);
                    self.spectators.insert(conn.id(), conn);
                }
            }
            RoomCmd::Attach { player, conn } => {
                if let Some(i) = self.seat_index_of(player) {
                    self.attach(i, &conn);
                    self.send_snapshot(&conn, Some(Seat::from_index(i)));
                }
            }
            RoomCmd::Detach { conn_id } => {
                self.spectators.remove(&conn_id);
                for s in &mut self.seats {
                    if s.conn.as_ref().is_some_and(|c| c.id() == conn_id) {
                        s.conn = None;
                    }
                }
                self.schedule_auto();
            }
            RoomCmd::Chat {
                player,
                name,
                conn,
                req,
                text,
            } => {
                let seat = self.seat_index_of(player).map(Seat::from_index);
                if seat.is_none() && !self.spectators.contains_key(&conn.id()) {
                    conn.send_error(
                        ErrorCode::NotInMatch,
                        "you neither play nor watch this match",
                        req,
                    );
                    return;
                }
                let n = text.chars().count();
                if text.chars().any(char::is_control) {
                    conn.send_error(
                        ErrorCode::BadJson,
                        "chat text must not hold control characters",
                        req,
                    );
                    return;
                }
                if n == 0 || n > MAX_CHAT_CHARS {
                    conn.send_error(
                        ErrorCode::BadJson,
                        format!("chat text must be 1..={MAX_CHAT_CHARS} characters, got {n}"),
                        req,
                    );
                    return;
                }
                conn.ack(req);
                let name = seat.map_or(name, |s| self.seats[s.index()].info.name.clone());
                self.broadcast(ServerMsg::Chat(ChatLine {
                    match_id: self.id,
                    seat,
                    name,
                    text,
                }));
            }
        }
    }

    /// Makes `conn` the live connection of seat `i`.
    fn attach(&mut self, i: usize, conn: &ConnHandle) {
        let slot = &mut self.seats[i];
        if slot.conn.as_ref().map(ConnHandle::id) != Some(conn.id()) {
            slot.conn = Some(conn.clone());
            slot.away = false;
            self.schedule_auto();
        }
    }

    // ----- time -----

    fn on_timer(&mut self) {
        let now = clock::now_ms();
        if let Some(exp) = self.m.expire(now) {
            match exp {
                Expiry::TurnTimedOut(outcome) => {
                    let slot = &mut self.seats[outcome.record.seat.index()];
                    if matches!(slot.kind, SeatKind::Human(_)) && !slot.connected() {
                        slot.away = true;
                    }
                    self.after_turn(outcome)
                }
                Expiry::MatchEnded(end) => self.end(end),
            }
            return;
        }
        if self.auto_at.is_some_and(|at| at <= Instant::now()) {
            self.auto_at = None;
            self.auto_move(now);
        }
    }

    /// Decides whether the room must act for the current seat, and when: a bot after
    /// its think time; an empty seat, or a human who already missed a turn while away,
    /// at once (as a pass) while at least one human is connected. A human who has just
    /// disconnected keeps the whole turn timer (a network blip costs nothing if they
    /// are back in time; otherwise the turn times out, rule 4.6). With nobody connected
    /// the turn timer passes every turn, so an abandoned room does not spin through turns.
    fn schedule_auto(&mut self) {
        let Some(turn) = self.m.current_turn() else {
            self.auto_at = None;
            return;
        };
        let someone_here = self.seats.iter().any(SeatSlot::connected);
        let slot = &self.seats[turn.seat.index()];
        self.auto_at = match slot.kind {
            SeatKind::Bot(_) => Some(self.turn_began + self.state.config().bot_think()),
            SeatKind::Human(_) if slot.connected() || !slot.away => None,
            SeatKind::Human(_) | SeatKind::Empty if someone_here => Some(Instant::now()),
            _ => None,
        };
    }

    /// Plays the current turn for a bot or passes it for an absent seat.
    fn auto_move(&mut self, now: u64) {
        let Some(turn) = self.m.current_turn().cloned() else {
            return;
        };
        let i = turn.seat.index();
        if matches!(self.seats[i].kind, SeatKind::Human(_)) && self.seats[i].connected() {
            return; // the player came back: its own plan (or the turn timer) decides
        }
        let plan = match &mut self.seats[i].kind {
            SeatKind::Bot(strategy) => strategy.choose(self.m.position(), self.m.rules()),
            _ => engine::Plan::pass(),
        };
        let outcome = match self.m.submit(turn.seat, turn.turn_number, &plan, now) {
            Ok(o) => o,
            Err(e) => {
                tracing::warn!(match_id = %self.id, error = %e, "bot plan rejected; passing");
                match self.m.pass(turn.seat, turn.turn_number, now) {
                    Ok(o) => o,
                    Err(e) => {
                        tracing::warn!(match_id = %self.id, error = %e, "pass rejected");
                        return;
                    }
                }
            }
        };
        self.after_turn(outcome);
    }

    // ----- match messages -----

    fn turn_started(&self, t: &TurnStart, now: u64) -> TurnStarted {
        TurnStarted::from_turn_start(self.id, t, self.m.deadline_ms(), now)
    }

    fn seat_infos(&self) -> Vec<SeatInfo> {
        self.seats.iter().map(|s| s.info.clone()).collect()
    }

    /// seq 1: `match_started`, encoded per seat (it names the receiver's seat), then
    /// the first `turn_started`.
    fn announce_start(&mut self) {
        let seq = self.history.next_unkept();
        let seats = self.seat_infos();
        for (i, slot) in self.seats.iter().enumerate() {
            if let Some(conn) = &slot.conn {
                conn.send_msg(
                    Some(seq),
                    &ServerMsg::MatchStarted(MatchStarted {
                        match_id: self.id,
                        mode: self.m.position().mode(),
                        rules: self.m.rules().clone(),
                        seats: seats.clone(),
                        your_seat: Some(Seat::from_index(i)),
                        dice_commitment: self.m.commitment(),
                        match_deadline: self.m.deadline_ms(),
                    }),
                );
            }
        }
        if let Some(t) = self.m.current_turn().cloned() {
            self.begin_turn(&t);
        }
    }

    fn begin_turn(&mut self, t: &TurnStart) {
        let msg = ServerMsg::TurnStarted(self.turn_started(t, clock::now_ms()));
        self.broadcast(msg);
        self.turn_began = Instant::now();
        self.schedule_auto();
    }

    /// A turn was resolved: log it, tell everyone, then start the next turn or end.
    fn after_turn(&mut self, outcome: TurnOutcome) {
        let TurnOutcome {
            record,
            position,
            next,
            end,
        } = outcome;
        let msg = ServerMsg::TurnResolved(TurnResolved::from_record(
            self.id,
            &record,
            engine::standings(&position),
            position,
        ));
        self.broadcast(msg);
        crate::metrics::turn_resolved(record.kind);
        // The writer persists the turn; the room keeps no turn log of its own (the
        // store has it), so a long match does not grow in memory turn by turn.
        self.state.writer().send(store::WriteOp::Turns {
            match_id: self.id,
            turns: self.m.drain_log(),
        });
        if let Some(end) = end {
            self.end(end);
        } else if let Some(next) = next {
            self.begin_turn(&next);
        }
    }

    fn match_ended(&self, end: &MatchEnd) -> MatchEnded {
        MatchEnded::from_end(self.id, end, self.m.seed())
    }

    /// Rule 9.1: the match is over. Hand the result to persistence, tell everyone.
    fn end(&mut self, end: MatchEnd) {
        self.auto_at = None;
        self.state
            .writer()
            .send(store::WriteOp::Finish(store::MatchResult {
                id: self.id,
                seed: self.m.seed(),
                ended_at: clock::datetime(clock::now_ms()),
                reason: end.reason,
                standings: end.standings.clone(),
            }));
        tracing::info!(match_id = %self.id, reason = ?end.reason, turns = self.m.turns_played(), "match ended");
        // Free the seats before telling anyone, so a player who reads `match_ended` can
        // queue or open a lobby at once (the room unregisters itself right after).
        for s in &self.seats {
            if let Some(p) = s.player() {
                self.state
                    .presence()
                    .release(p, crate::presence::Busy::Seated(self.id));
            }
        }
        let msg = ServerMsg::MatchEnded(self.match_ended(&end));
        self.broadcast(msg);
    }

    /// Gives `msg` the next `seq`, encodes it once, keeps it for resync and queues
    /// the same bytes to every connected seat and spectator. A connection whose
    /// queue is closed or full is dropped from the room (its seat is kept).
    fn broadcast(&mut self, msg: ServerMsg) {
        let frame: Frame = self.history.push(|seq| encode(Some(seq), &msg));
        let mut lost = false;
        for s in &mut self.seats {
            if let Some(c) = &s.conn {
                if !c.send(frame.clone()) {
                    s.conn = None;
                    lost = true;
                }
            }
        }
        self.spectators.retain(|_, c| c.send(frame.clone()));
        if lost && !self.m.is_over() {
            self.schedule_auto();
        }
    }

    fn send_snapshot(&self, conn: &ConnHandle, your_seat: Option<Seat>) {
        let now = clock::now_ms();
        let snap = Snapshot {
            match_id: self.id,
            mode: self.m.position().mode(),
            rules: self.m.rules().clone(),
            seats: self.seat_infos(),
            your_seat,
            position: *self.m.position(),
            turn: self.m.current_turn().map(|t| self.turn_started(t, now)),
            clocks: Clocks {
                now,
                turn_deadline: self.m.current_turn().map(|t| t.deadline_ms),
                match_deadline: self.m.deadline_ms(),
            },
            dice_commitment: self.m.commitment(),
            turns_played: self.m.turns_played(),
            seq: self.history.seq(),
            ended: self.m.end().map(|e| self.match_ended(e)),
        };
        conn.send_msg(
            Some(self.history.seq()),
            &ServerMsg::Snapshot(Box::new(snap)),
        );
    }

    /// Removes the room from the registries; the task then returns and everything it
    /// owned is dropped.
    fn unregister(&mut self) {
        self.state.rooms().remove(&self.id);
        for s in &self.seats {
            if let Some(p) = s.player() {
                self.state
                    .presence()
                    .release(p, crate::presence::Busy::Seated(self.id));
            }
        }
        // Requests that arrived too late still get an answer.
        self.rx.close();
        while let Ok(cmd) = self.rx.try_recv() {
            match cmd {
                RoomCmd::Submit { conn, req, .. } => {
                    conn.send_error(ErrorCode::MatchOver, "the match is over", req)
                }
                RoomCmd::Resync { conn, req, .. }
                | RoomCmd::Spectate { conn, req, .. }
                | RoomCmd::Chat { conn, req, .. } => conn.send_error(
                    ErrorCode::MatchNotFound,
                    "the match is no longer running",
                    req,
                ),
                RoomCmd::Attach { .. } | RoomCmd::Detach { .. } => {}
            }
        }
        metrics::gauge!("ludo_rooms_active").decrement(1.0);
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
