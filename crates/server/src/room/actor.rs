//! The room actor: the one task that owns a running match.
//!
//! It waits on four things at once: its command queue (submissions, resyncs,
//! spectators, reconnects), the commit of its pending write, its timer (the engine's
//! next deadline — turn timer or match clock — or the moment a bot or an absent seat
//! must act), and the server's shutdown. Every change goes through the engine and
//! never awaits anything.
//!
//! **Durable before visible.** Every sequenced match message (`match_started`,
//! `turn_started`, `turn_resolved`, `chat`, `match_ended`) and the `ack` of an
//! accepted turn is held in a [`Pending`] entry until the persistence writer has
//! committed the write that records it (group commit: one transaction carries many
//! rooms' writes). Only then is each message given its `seq`'s frame, encoded once
//! and queued to every seat and spectator. While a write is pending the room
//! resolves nothing more: every command except `Detach` is deferred, in arrival
//! order, and answered once the write is visible; its timers wait too. So the engine
//! is never more than one turn ahead of what clients have seen, a crash loses no
//! turn anyone saw, and a room waiting for the store blocks no other room.
//!
//! **Store outages.** If a commit takes longer than [`STALL`] (the store is down or
//! behind), the match clock and turn timer are postponed by the whole wait when the
//! write lands, so players are not charged for the outage.
//!
//! **Dice contributions** (proto/README.md §10, issue 31). A new match is of dice
//! scheme `contributed`: nothing is rolled at `match_started`. Each human seat may
//! send `contribute_entropy` within the contribution window
//! (`--contribution-window-ms`, from when `match_started` is shown); an accepted
//! contribution is stored before its `ack`. When every human seat has contributed,
//! or the window is over, the room seals the dice: the four contributions (seats
//! that sent none get the default, no bytes) are stored, and only then are
//! `dice_sealed` and the first `turn_started` shown. A match resumed with its
//! window open gets a fresh window and keeps the contributions stored.
//!
//! When the match ends the room records the result (whose transaction also updates
//! the skill ratings of a match with two or more human players), reads the rating
//! changes once it is durable, tells everyone (`match_ended` with each rated seat's
//! change), removes itself from the registries and returns.

use super::bots::{self, BotSeat, Thinking, Thought};
use super::{History, RoomCmd, RoomDeps};
use crate::clock;
use crate::ws::outbound::Fanout;
use crate::ws::{encode, Batch, ConnHandle, Frame};
use backon::{ExponentialBuilder, Retryable};
use engine::{Contribution, Entropy, Expiry, Match, MatchEnd, Plan, Seat, TurnOutcome, TurnStart};
use protocol::{
    ChatLine, Clocks, ErrorCode, MatchEnded, MatchStarted, SeatInfo, ServerMsg, Snapshot,
    TurnResolved, TurnStarted,
};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use store::{Committed, WriteOp};
use tokio::sync::mpsc;
use tokio::time::Instant;
use uuid::Uuid;

/// A commit that took at least this long means the store was unavailable: the
/// match clock and turn timer are postponed by the whole wait (rule 9.1, 4.6).
/// Shorter waits are a loaded machine's ordinary commit latency, charged as usual
/// (postponing by every slow commit would let a busy server stop the clocks).
pub(crate) const STALL: Duration = Duration::from_secs(1);

/// The `stale_turn` message of a plan read at or after its turn's deadline.
const LATE_PLAN: &str = "the plan arrived at or after turn_deadline_ms: the turn timed out";

/// Who plays a seat.
pub(crate) enum SeatKind {
    /// A human player (by id).
    Human(Uuid),
    /// A bot: its level and strategy (with its own seeded generator).
    Bot(BotSeat),
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
    /// The seat is away (`seat_away`): a turn of this human timed out while they
    /// were disconnected, or `away_after_timeouts` in a row while connected. Its
    /// turns are passed at once instead of waiting for the turn timer again. A
    /// reconnect or any match message from the player clears it (`seat_back`).
    pub away: bool,
    /// Turns of this human that timed out in a row (a plan or pass of its own, or
    /// any match message, resets it).
    pub timeouts: u32,
    /// The last plan (or pass) of this human the room applied: its turn number,
    /// the plan, and the `seq` of its `turn_resolved`. A resend of it (its `ack`
    /// was lost) is answered `ack` with `applied_seq`, not `stale_turn`.
    pub applied: Option<(u32, Plan, u64)>,
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

/// One message held until its write is committed.
enum Out {
    /// `match_started` (seq 1), built per seat at release (it names the receiver's
    /// seat and carries the match deadline).
    Started,
    /// `turn_started` for the engine's current turn, built at release (so its
    /// deadlines include any postponement), with this `seq`.
    TurnStarted(u64),
    /// A match message with its `seq`, encoded once when it was made (its content
    /// does not depend on when it is shown).
    Msg(u64, Frame),
    /// An unsequenced notice to everyone in the room (`seat_away`), shown after the
    /// turn that caused it.
    Notice(Frame),
    /// The `ack` of an accepted request.
    Ack(ConnHandle, Option<String>),
    /// `match_ended` with its `seq`, encoded at release with the rating changes the
    /// result's transaction made (read once it committed; none when the match rated
    /// nothing or they could not be read).
    Ended(u64, Box<MatchEnded>, Ratings),
}

/// The rating changes of an ended match, filled once its result is committed.
type Ratings = Arc<OnceLock<Vec<(Seat, protocol::RatingChange)>>>;

/// Attempts at reading an ended match's rating changes before `match_ended` is
/// shown without them (the store answered the commit a moment ago).
const RATING_READS: usize = 4;

/// `committed`, extended: resolves once the write committed and the rating changes
/// of match `id` are read into `slot` (or could not be, after [`RATING_READS`]
/// attempts). Resolves with an error, as `committed` does, if the writer stopped.
fn then_ratings(committed: Committed, store: store::Store, id: Uuid, slot: Ratings) -> Committed {
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        if committed.await.is_err() {
            return; // dropping `tx`: the room sees the writer stopped
        }
        let backoff = ExponentialBuilder::default()
            .with_min_delay(Duration::from_millis(50))
            .with_max_times(RATING_READS);
        match (|| store.rating_changes(id)).retry(backoff).await {
            Ok(changes) => {
                let _ = slot.set(
                    changes
                        .into_iter()
                        .map(|(s, c)| (s, wire_change(c)))
                        .collect(),
                );
            }
            Err(e) => {
                tracing::warn!(match_id = %id, error = %e, "rating changes not read; match_ended is shown without them");
            }
        }
        let _ = tx.send(());
    });
    rx
}

use crate::wire::wire_change;

/// A write on its way to the store and the messages it makes visible.
struct Pending {
    committed: Committed,
    /// When the write was handed to the writer, on the room's clock (Unix ms).
    since_ms: u64,
    out: Vec<Out>,
    /// A turn was resolved (or the match started): bots and timers restart at release.
    new_turn: bool,
    /// When the submission that caused it was read (turn latency metric).
    received: Option<std::time::Instant>,
}

/// The room actor's state. Owned by its task; nothing else can reach it.
pub(crate) struct Room {
    id: Uuid,
    /// What the room needs from the server (clock, writer, settings, registries).
    deps: RoomDeps,
    m: Match,
    seats: Vec<SeatSlot>,
    /// Spectators by connection id.
    spectators: HashMap<u64, ConnHandle>,
    history: History,
    /// The last `seq` given to a message (sent or pending).
    assigned: u64,
    rx: mpsc::Receiver<Box<RoomCmd>>,
    /// Cancelled when this node lost the match's lease (cluster mode).
    stop: tokio_util::sync::CancellationToken,
    /// The write clients are waiting for, if any.
    pending: Option<Pending>,
    /// Commands that arrived while a write was pending, in arrival order.
    deferred: VecDeque<RoomCmd>,
    /// When the current turn became visible (bots think from here).
    turn_began: Instant,
    /// When the room must act for the current seat (a bot's move, or the pass of an
    /// absent seat), if it must.
    auto_at: Option<Instant>,
    /// Since when (room clock, Unix ms) no human of the match is connected; the match
    /// ends as abandoned `abandon_seconds` later. `None` while one is connected.
    away_since: Option<u64>,
    /// The `match_ended` shown (with rating changes), for snapshots after it.
    ended: Option<MatchEnded>,
    /// A bot's search running on the blocking pool, if any (module `bots`).
    thinking: Option<Thinking>,
    /// A searched plan that came back while a write was pending: the turn it is
    /// for, and the plan (played when the room acts for that turn).
    bot_ready: Option<(u32, Plan)>,
    /// The `seq` and turn number of the last `turn_started` shown: a gap replay
    /// sends that frame re-stamped with the remaining times of the moment it is
    /// sent (issue 37), not the stale ones of its first sending.
    turn_frame: Option<(u64, u32)>,
    /// Dice contributions accepted per seat (in seat order) while the match waits
    /// for them (scheme `contributed`).
    entropy: [Option<Entropy>; 4],
    /// While the match waits for contributions: when the window closes (room
    /// clock, Unix ms); set once `match_started` is shown (or at resume).
    window_until: Option<u64>,
    /// The ping sent to the current seat's socket at the start of its turn
    /// (`--pong-timeout-ms`): checked when `at` comes.
    probe: Option<TurnProbe>,
}

/// The ping of one turn's seat ([`Room::probe_turn`]).
#[derive(Debug, Clone, Copy)]
struct TurnProbe {
    seat: usize,
    turn_number: u32,
    conn_id: u64,
    mark: crate::ws::outbound::Probe,
    /// When an unanswered ping makes the seat away.
    at: Instant,
}

/// What woke the room actor.
enum Wake {
    /// The server is shutting down.
    Shutdown,
    /// The pending write committed (true), or its writer stopped or fenced it.
    Committed(bool),
    /// This node lost the match's lease (cluster mode).
    Stop,
    /// A command arrived.
    Cmd(RoomCmd),
    /// The engine's deadline or the bot / absent-seat moment came.
    Timer,
    /// A bot's search finished (`None`: it panicked).
    Thought(Option<Thought>),
}

/// How a room begins: a new match waiting for its `CreateMatch` commit, or a match
/// resumed from the store (its last sent `seq`).
pub(crate) enum Beginning {
    /// A new match: `match_started` and the first `turn_started` are shown once the
    /// match is stored.
    New(Committed),
    /// A resumed match whose clients last saw `seq`.
    Resumed {
        /// The last `seq` any client can have seen.
        seq: u64,
    },
}

/// What a room of `m` begins with: its resync history, the last `seq` assigned, and
/// for a new match the write it waits for (`match_started` and, unless the dice
/// wait for contributions, the first `turn_started`, seq 2, shown once it is
/// durable).
fn first_outputs(
    deps: &RoomDeps,
    m: &Match,
    beginning: Beginning,
) -> (History, u64, Option<Pending>) {
    let cap = deps.settings.resync_frames;
    let new = |committed, out: Vec<Out>| Pending {
        committed,
        since_ms: deps.clock.now_ms(),
        out,
        new_turn: true,
        received: None,
    };
    match beginning {
        // Scheme `contributed`: only `match_started`; the first turn follows the
        // seal. Server seed: the first `turn_started` too.
        Beginning::New(committed) if m.awaiting_contributions() => (
            History::new(cap),
            1,
            Some(new(committed, vec![Out::Started])),
        ),
        Beginning::New(committed) => (
            History::new(cap),
            2,
            Some(new(committed, vec![Out::Started, Out::TurnStarted(2)])),
        ),
        Beginning::Resumed { seq } => (History::resumed(cap, seq), seq, None),
    }
}

impl Room {
    pub(crate) fn new(
        id: Uuid,
        deps: RoomDeps,
        m: Match,
        seats: Vec<SeatSlot>,
        rx: mpsc::Receiver<Box<RoomCmd>>,
        stop: tokio_util::sync::CancellationToken,
        beginning: Beginning,
    ) -> Room {
        let (history, assigned, pending) = first_outputs(&deps, &m, beginning);
        Room {
            id,
            deps,
            m,
            seats,
            spectators: HashMap::new(),
            history,
            assigned,
            rx,
            stop,
            pending,
            deferred: VecDeque::new(),
            turn_began: Instant::now(),
            auto_at: None,
            probe: None,
            away_since: None,
            ended: None,
            thinking: None,
            bot_ready: None,
            turn_frame: None,
            entropy: Default::default(),
            window_until: None,
        }
    }

    /// A resumed match still waiting for its dice contributions: the player
    /// contributions stored before the stop count (the seal stores all four).
    pub(crate) fn restore_contributions(&mut self, stored: &[Contribution]) {
        if !self.m.awaiting_contributions() {
            return;
        }
        for c in stored.iter().filter(|c| !c.defaulted) {
            self.entropy[c.seat.index()] = Some(c.entropy.clone());
        }
    }

    /// Runs the match to its end (or until the server shuts down), then cleans up.
    /// The room is boxed: its task then holds a pointer, not a second copy of the
    /// room's two kilobytes (issue 14).
    pub(crate) async fn run(mut self: Box<Self>) {
        let shutdown = self.deps.shutdown.clone();
        let stop = self.stop.clone();
        self.track_presence();
        if self.pending.is_none() {
            self.resumed_start();
        }
        while !self.m.is_over() || self.pending.is_some() {
            let (deadline, auto) = self.next_wake();
            let clock = self.deps.clock.clone();
            let event = tokio::select! {
                biased;
                _ = shutdown.cancelled() => Wake::Shutdown,
                res = committed(&mut self.pending) => Wake::Committed(res.is_ok()),
                _ = stop.cancelled() => Wake::Stop,
                cmd = self.rx.recv() => match cmd {
                    Some(cmd) => Wake::Cmd(*cmd),
                    None => break, // unreachable while registered: the registry holds a sender
                },
                _ = sleep_until_ms(&clock, deadline) => Wake::Timer,
                _ = sleep_until(auto) => Wake::Timer,
                res = bots::thought(&mut self.thinking) => Wake::Thought(res.ok()),
            };
            // Everything this event shows leaves in one write per socket.
            let _batch = Batch::open();
            match event {
                Wake::Shutdown => {
                    tracing::info!(match_id = %self.id, turns = self.m.turns_played(),
                        "server stopping: the match stays running in the store and resumes at the next start");
                    break;
                }
                Wake::Committed(true) => self.release(),
                Wake::Committed(false) if self.deps.clustered && !shutdown.is_cancelled() => {
                    // Fenced: another node owns the match now.
                    tracing::warn!(match_id = %self.id, "pending write fenced (another node owns the match); room stops without showing it");
                    self.moved();
                    break;
                }
                Wake::Committed(false) => {
                    tracing::error!(match_id = %self.id, "persistence writer stopped; room stops without showing its pending write");
                    break;
                }
                Wake::Stop => {
                    self.moved();
                    break;
                }
                Wake::Cmd(cmd) => self.on_cmd(cmd),
                Wake::Timer => self.on_timer(),
                Wake::Thought(t) => self.on_thought(t),
            }
        }
        self.unregister();
    }

    /// The start of a resumed room (nothing pending): the log may already have ended
    /// the match (its result was not stored), or the turn in progress starts over
    /// with a fresh timer.
    fn resumed_start(&mut self) {
        if let Some(end) = self.m.end().cloned() {
            self.end(end);
            return;
        }
        self.turn_began = Instant::now();
        self.schedule_auto();
        // Cluster takeover: the players' sockets on this node (taken from the
        // sessions at resume) followed the match on the old owner and may have
        // missed its last frames: each gets a snapshot before any live frame
        // (issue 34.1).
        for i in 0..self.seats.len() {
            if let Some(conn) = self.seats[i].conn.clone() {
                self.send_snapshot(&conn, Some(Seat::from_index(i)));
                self.send_away(&conn);
            }
        }
        if self.m.awaiting_contributions() {
            // A fresh window: the players reconnect first.
            self.open_window();
            self.maybe_seal();
        }
    }

    /// When the room must wake without a command: the engine's next deadline (turn
    /// timer or match clock, Unix ms on the server's clock) and the moment a bot or an
    /// absent seat must act. Neither while a write is pending: clocks wait for what
    /// clients can see.
    fn next_wake(&self) -> (Option<u64>, Option<Instant>) {
        if self.pending.is_some() {
            return (None, None);
        }
        let abandon = self.away_since.map(|t| t + self.deps.settings.abandon_ms);
        let deadline = [self.m.next_deadline(), abandon, self.window_until]
            .into_iter()
            .flatten()
            .min();
        let probe = self.probe.map(|p| p.at);
        let auto = [self.auto_at, probe].into_iter().flatten().min();
        (deadline, auto)
    }

    /// Starts or stops the abandon countdown: it runs while no human of the match
    /// is connected (seats that left count as gone).
    fn track_presence(&mut self) {
        let here = self
            .seats
            .iter()
            .any(|s| matches!(s.kind, SeatKind::Human(_)) && s.connected());
        self.away_since = match (here, self.away_since) {
            (true, _) => None,
            (false, None) => Some(self.deps.clock.now_ms()),
            (false, since) => since,
        };
    }

    fn seat_index_of(&self, player: Uuid) -> Option<usize> {
        self.seats.iter().position(|s| s.player() == Some(player))
    }

    fn next_seq(&mut self) -> u64 {
        self.assigned += 1;
        self.assigned
    }

    /// Hands `op` to the writer; `out` is shown once it is committed.
    fn write(
        &mut self,
        op: WriteOp,
        out: Vec<Out>,
        new_turn: bool,
        received: Option<std::time::Instant>,
    ) {
        let committed = self.deps.writer.send(op);
        self.pend(committed, out, new_turn, received);
    }

    /// Waits for `committed`; `out` is shown once it resolves.
    fn pend(
        &mut self,
        committed: Committed,
        out: Vec<Out>,
        new_turn: bool,
        received: Option<std::time::Instant>,
    ) {
        debug_assert!(self.pending.is_none(), "one pending write at a time");
        self.auto_at = None;
        self.pending = Some(Pending {
            committed,
            since_ms: self.deps.clock.now_ms(),
            out,
            new_turn,
            received,
        });
    }

    /// The pending write is durable: show its messages, then answer the commands
    /// that waited, in order, until one of them makes a new write.
    fn release(&mut self) {
        let Some(p) = self.pending.take() else {
            return;
        };
        let waited_ms = self.deps.clock.now_ms().saturating_sub(p.since_ms);
        if waited_ms >= STALL.as_millis() as u64 {
            self.m.postpone(waited_ms);
            tracing::warn!(match_id = %self.id, waited_ms,
                "store was slow: match clock and turn timer postponed");
        }
        let ended = self.m.is_over();
        if ended {
            self.release_seats();
        }
        for out in p.out {
            self.show(out);
        }
        if let Some(at) = p.received {
            crate::metrics::turn_latency(at.elapsed());
        }
        if p.new_turn && !ended {
            self.turn_began = Instant::now();
            self.probe_turn();
        }
        if !ended {
            self.schedule_auto();
            self.maybe_seal();
        }
        while self.pending.is_none() {
            let Some(cmd) = self.deferred.pop_front() else {
                break;
            };
            self.on_cmd(cmd);
        }
    }

    /// Shows one output of a write that is durable now: to the seats, spectators or
    /// the one connection it is for.
    fn show(&mut self, out: Out) {
        match out {
            Out::Started => {
                if self.m.awaiting_contributions() {
                    self.open_window();
                }
                self.announce_start();
            }
            Out::TurnStarted(seq) => {
                if let Some(t) = self.m.current_turn() {
                    let msg =
                        ServerMsg::TurnStarted(self.turn_started(t, self.deps.clock.now_ms()));
                    self.turn_frame = Some((seq, t.turn_number));
                    self.broadcast(seq, encode(Some(seq), &msg));
                }
            }
            Out::Msg(seq, frame) => self.broadcast(seq, frame),
            Out::Notice(frame) => self.notify(frame, None),
            Out::Ack(conn, req) => conn.ack(req),
            Out::Ended(seq, msg, ratings) => {
                let msg = match ratings.get() {
                    Some(changes) => msg.with_ratings(changes),
                    None => *msg,
                };
                self.broadcast(seq, encode(Some(seq), &ServerMsg::MatchEnded(msg.clone())));
                self.ended = Some(msg);
            }
        }
    }

    // ----- commands -----

    fn on_cmd(&mut self, cmd: RoomCmd) {
        if self.pending.is_some() || self.m.is_over() {
            match cmd {
                RoomCmd::Detach { conn_id } => self.detach(conn_id),
                cmd if self.pending.is_some() => self.deferred.push_back(cmd),
                cmd => answer_gone(cmd),
            }
            return;
        }
        match cmd {
            RoomCmd::Submit {
                player,
                conn,
                req,
                turn_number,
                plan,
                received,
                at_ms,
            } => self.submit(player, conn, req, turn_number, &plan, received, at_ms),
            RoomCmd::Preview {
                player,
                conn,
                req,
                turn_number,
                plan,
                at_ms,
            } => self.preview(player, &conn, req, turn_number, plan, at_ms),
            RoomCmd::Resync {
                player,
                conn,
                req,
                last_seq,
            } => self.resync(player, conn, req, last_seq),
            RoomCmd::Spectate { player, conn, req } => self.spectate(player, conn, req),
            RoomCmd::Attach {
                player,
                conn,
                last_seq,
            } => self.reattach(player, &conn, last_seq),
            RoomCmd::Detach { conn_id } => self.detach(conn_id),
            RoomCmd::Leave { player, conn, req } => self.leave(player, conn, req),
            RoomCmd::Chat {
                player,
                name,
                conn,
                req,
                text,
            } => self.chat(player, name, conn, req, text),
            RoomCmd::Contribute {
                player,
                conn,
                req,
                entropy,
            } => self.contribute(player, conn, req, entropy),
        }
    }

    // ----- dice contributions (proto/README.md §10) -----

    /// Opens the contribution window: it closes `contribution_window_ms` from now.
    fn open_window(&mut self) {
        self.window_until =
            Some(self.deps.clock.now_ms() + self.deps.settings.contribution_window_ms);
    }

    /// `contribute_entropy`: a seated human's contribution, stored, then
    /// acknowledged; the dice are sealed once every human seat has contributed.
    /// Errors (nothing changes): `not_in_match` (no seat: a spectator, or a player
    /// who left), `already_contributed`, `contribution_closed` (sealed, or the
    /// window is over).
    fn contribute(
        &mut self,
        player: Uuid,
        conn: ConnHandle,
        req: Option<String>,
        entropy: Entropy,
    ) {
        let Some(i) = self.seat_index_of(player) else {
            conn.send_error(ErrorCode::NotInMatch, "you have no seat in this match", req);
            return;
        };
        if self.entropy[i].is_some()
            || self
                .m
                .contributions()
                .is_some_and(|c| c.get(i).is_some_and(|c| !c.defaulted))
        {
            conn.send_error(
                ErrorCode::AlreadyContributed,
                "your seat has contributed to this match's dice already",
                req,
            );
            return;
        }
        let now = self.deps.clock.now_ms();
        if !self.m.awaiting_contributions() || self.window_until.is_none_or(|u| now >= u) {
            conn.send_error(
                ErrorCode::ContributionClosed,
                "the contribution window is over: the dice are sealed",
                req,
            );
            return;
        }
        let seat = Seat::from_index(i);
        self.entropy[i] = Some(entropy.clone());
        let op = WriteOp::Contributions {
            match_id: self.id,
            contributions: vec![Contribution {
                seat,
                entropy,
                defaulted: false,
            }],
            sealed_seq: None,
        };
        self.write(op, vec![Out::Ack(conn, req)], false, None);
    }

    /// Seals the dice when the match waits for contributions and every human seat
    /// has contributed or the window is over: the four contributions (the default
    /// for seats that sent none) key the dice and the first turn is rolled; the
    /// seal is stored, then `dice_sealed` and the first `turn_started` are shown.
    fn maybe_seal(&mut self) {
        if self.pending.is_some() || !self.m.awaiting_contributions() {
            return;
        }
        let Some(until) = self.window_until else {
            return;
        };
        let now = self.deps.clock.now_ms();
        let all_in = self
            .seats
            .iter()
            .zip(&self.entropy)
            .all(|(s, e)| !matches!(s.kind, SeatKind::Human(_)) || e.is_some());
        if now < until && !all_in {
            return;
        }
        let contributions: Vec<Contribution> = Seat::ALL
            .into_iter()
            .zip(&self.entropy)
            .map(|(seat, e)| match e {
                Some(e) => Contribution {
                    seat,
                    entropy: e.clone(),
                    defaulted: false,
                },
                None => Contribution::default_for(seat),
            })
            .collect();
        if let Err(e) = self.m.seal(contributions.clone(), now) {
            tracing::error!(match_id = %self.id, error = %e, "dice not sealed");
            return;
        }
        self.window_until = None;
        let defaults = contributions.iter().filter(|c| c.defaulted).count();
        tracing::info!(match_id = %self.id, defaults, "dice sealed");
        let seq = self.next_seq();
        let msg = ServerMsg::DiceSealed(protocol::DiceSealed {
            match_id: self.id,
            contributions: contributions.clone(),
        });
        let frame = encode(Some(seq), &msg);
        let turn_seq = self.next_seq();
        let op = WriteOp::Contributions {
            match_id: self.id,
            contributions,
            sealed_seq: Some(seq),
        };
        self.write(
            op,
            vec![Out::Msg(seq, frame), Out::TurnStarted(turn_seq)],
            true,
            None,
        );
    }

    /// `submit_turn` / `pass`: validates and resolves the plan of the seat to move
    /// (rules §4–§9 in the engine). A plan read at or after its turn's deadline is
    /// late: `stale_turn`, and the turn times out (rule 4.6).
    #[allow(clippy::too_many_arguments)]
    fn submit(
        &mut self,
        player: Uuid,
        conn: ConnHandle,
        req: Option<String>,
        turn_number: u32,
        plan: &Plan,
        received: std::time::Instant,
        at_ms: u64,
    ) {
        let Some(i) = self.seat_index_of(player) else {
            conn.send_error(ErrorCode::NotInMatch, "you have no seat in this match", req);
            return;
        };
        self.present(i, None);
        if let Some((_, _, seq)) = self.seats[i].applied.as_ref().filter(|(t, p, _)| {
            *t == turn_number
                && p == plan
                && self
                    .m
                    .current_turn()
                    .is_none_or(|c| c.turn_number != turn_number)
        }) {
            conn.ack_applied(req, *seq);
            return;
        }
        let seat = Seat::from_index(i);
        if self.late(seat, turn_number, at_ms) {
            // Rule 4.6: a plan must arrive before `turn_deadline_ms`; at or after
            // it the turn times out, whichever the room sees first.
            conn.send_error(ErrorCode::StaleTurn, LATE_PLAN, req);
            let now = self.deps.clock.now_ms().max(at_ms);
            self.expire(now);
            return;
        }
        match self.m.submit(seat, turn_number, plan, at_ms) {
            Err(e) => conn.send_error(ErrorCode::from(&e), e.to_string(), req),
            Ok(outcome) => {
                // `after_turn` gives its turn_resolved the next seq.
                self.seats[i].applied = Some((turn_number, plan.clone(), self.assigned + 1));
                self.after_turn(outcome, Some((conn, req)), Some(received))
            }
        }
    }

    /// Rule 4.6: a plan of `seat` for `turn_number` read at `at_ms` is late when that
    /// turn is still in progress and its deadline has passed (at or after the match
    /// deadline the engine answers `match_over` instead).
    fn late(&self, seat: Seat, turn_number: u32, at_ms: u64) -> bool {
        at_ms < self.m.deadline_ms()
            && self.m.current_turn().is_some_and(|t| {
                t.seat == seat && t.turn_number == turn_number && at_ms >= t.deadline_ms
            })
    }

    /// `preview_plan`: the plan resolved by the engine on a copy of the position
    /// ([`engine::Match::preview`]), answered with `ack` and `plan_preview`; errors
    /// exactly as `submit_turn`'s (a plan read at or after the turn's deadline is
    /// `stale_turn`, though a preview does not end the turn). Changes nothing.
    fn preview(
        &self,
        player: Uuid,
        conn: &ConnHandle,
        req: Option<String>,
        turn_number: u32,
        plan: Plan,
        at_ms: u64,
    ) {
        let Some(i) = self.seat_index_of(player) else {
            conn.send_error(ErrorCode::NotInMatch, "you have no seat in this match", req);
            return;
        };
        let seat = Seat::from_index(i);
        if self.late(seat, turn_number, at_ms) {
            conn.send_error(ErrorCode::StaleTurn, LATE_PLAN, req);
            return;
        }
        match self.m.preview(seat, turn_number, &plan, at_ms) {
            Err(e) => conn.send_error(ErrorCode::from(&e), e.to_string(), req),
            Ok(p) => {
                conn.ack(req.clone());
                let msg = ServerMsg::PlanPreview(protocol::PlanPreview {
                    in_reply_to: req,
                    match_id: self.id,
                    turn_number,
                    seat,
                    plan,
                    events: p.events,
                    // As `turn_resolved` computes them (`after_turn`).
                    standings: engine::standings(&p.position),
                    moves: p.moves,
                });
                conn.send_msg(None, &msg);
            }
        }
    }

    /// `resync`: the frames after `last_seq` from the history, or a snapshot; a
    /// seated player's connection is (re-)attached to its seat first.
    fn resync(&mut self, player: Uuid, conn: ConnHandle, req: Option<String>, last_seq: u64) {
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
        self.send_since(&conn, last_seq, seated.map(Seat::from_index));
    }

    /// `spectate`: a snapshot, then every frame; a seated player gets its seat back.
    fn spectate(&mut self, player: Uuid, conn: ConnHandle, req: Option<String>) {
        conn.ack(req);
        if let Some(i) = self.seat_index_of(player) {
            // A seated player asking to watch gets its seat back instead.
            self.attach(i, &conn);
            self.send_snapshot(&conn, Some(Seat::from_index(i)));
            self.send_away(&conn);
        } else {
            self.send_snapshot(&conn, None);
            self.send_away(&conn);
            self.spectators.insert(conn.id(), conn);
        }
    }

    /// A seated player's new connection (`hello`): attached to its seat, with the
    /// frames after `last_seq` (`hello.last_seq`) or a snapshot.
    fn reattach(&mut self, player: Uuid, conn: &ConnHandle, last_seq: u64) {
        if let Some(i) = self.seat_index_of(player) {
            self.attach(i, conn);
            self.send_since(conn, last_seq, Some(Seat::from_index(i)));
        }
    }

    fn detach(&mut self, conn_id: u64) {
        self.spectators.remove(&conn_id);
        for s in &mut self.seats {
            if s.conn.as_ref().is_some_and(|c| c.id() == conn_id) {
                s.conn = None;
            }
        }
        self.track_presence();
        if self.pending.is_none() && !self.m.is_over() {
            self.schedule_auto();
        }
    }

    /// `leave_match`: the seat is given to a bot for the rest of the match and ranks
    /// below every seat that stayed; the player is free at once. Stored, then shown
    /// (`ack`, `seat_left`). When no human is left in the match it ends as abandoned.
    fn leave(&mut self, player: Uuid, conn: ConnHandle, req: Option<String>) {
        let Some(i) = self.seat_index_of(player) else {
            conn.send_error(ErrorCode::NotInMatch, "you have no seat in this match", req);
            return;
        };
        let seat = Seat::from_index(i);
        self.m.leave(seat);
        let slot = &mut self.seats[i];
        slot.kind = SeatKind::Bot(self.deps.new_bot(self.deps.settings.bot_kind));
        slot.info.bot = true;
        slot.info.left = true;
        slot.conn = None;
        slot.away = false;
        self.deps.free_seat(player, self.id);
        tracing::info!(match_id = %self.id, seat = seat.name(), "player left the match");
        let seq = self.next_seq();
        let msg = ServerMsg::SeatLeft(protocol::SeatLeft {
            match_id: self.id,
            seat,
        });
        let out = vec![Out::Ack(conn, req), Out::Msg(seq, encode(Some(seq), &msg))];
        let op = WriteOp::Leave {
            match_id: self.id,
            seat,
            seq,
        };
        let humans_left = self
            .seats
            .iter()
            .any(|s| matches!(s.kind, SeatKind::Human(_)));
        if humans_left {
            self.track_presence();
            self.write(op, out, false, None);
        } else {
            // Nobody is left to play for: the ordered writer stores the leave, then
            // the result; the room waits for the last one.
            let _leave_committed = self.deps.writer.send(op);
            let end = self.m.end_abandoned();
            self.finish(end, out);
        }
    }

    /// `chat`: stored, then shown to everyone with its `seq`, then acknowledged.
    fn chat(
        &mut self,
        player: Uuid,
        name: String,
        conn: ConnHandle,
        req: Option<String>,
        text: String,
    ) {
        let seat = self.seat_index_of(player).map(Seat::from_index);
        if seat.is_none() && !self.spectators.contains_key(&conn.id()) {
            conn.send_error(
                ErrorCode::NotInMatch,
                "you neither play nor watch this match",
                req,
            );
            return;
        }
        if let Some(s) = seat {
            self.present(s.index(), None);
        }
        // The text passed the protocol's text policy (`protocol::text::chat`) when
        // the connection decoded it.
        let name = seat.map_or(name, |s| self.seats[s.index()].info.name.clone());
        let seq = self.next_seq();
        let op = WriteOp::Chat(store::ChatEntry {
            match_id: self.id,
            seq,
            seat,
            name: name.clone(),
            text: text.clone(),
            sent_at: clock::datetime(self.deps.clock.now_ms()),
        });
        let msg = ServerMsg::Chat(ChatLine {
            match_id: self.id,
            seat,
            name,
            text,
        });
        let frame = encode(Some(seq), &msg);
        self.write(
            op,
            vec![Out::Ack(conn, req), Out::Msg(seq, frame)],
            false,
            None,
        );
    }

    /// Makes `conn` the live connection of seat `i`.
    fn attach(&mut self, i: usize, conn: &ConnHandle) {
        let slot = &mut self.seats[i];
        if slot.conn.as_ref().map(ConnHandle::id) != Some(conn.id()) {
            slot.conn = Some(conn.clone());
            self.track_presence();
        }
        // The attached socket gets its own view (replay or snapshot) next, already
        // without the seat away; everyone else is told it is back.
        self.present(i, Some(conn.id()));
    }

    /// Seat `i`'s player is here (it reconnected or sent a match message): its
    /// timeout streak restarts, and an away seat is back (`seat_back` to everyone)
    /// and its turns wait for it again. `skip`: a connection not to tell.
    fn present(&mut self, i: usize, skip: Option<u64>) {
        let slot = &mut self.seats[i];
        slot.timeouts = 0;
        if slot.away {
            slot.away = false;
            let back = encode(
                None,
                &ServerMsg::SeatBack(protocol::SeatPresence {
                    match_id: self.id,
                    seat: Seat::from_index(i),
                }),
            );
            self.notify(back, skip);
        }
        if self.pending.is_none() && !self.m.is_over() {
            self.schedule_auto();
        }
    }

    /// The `seat_away` notice of seat `i`.
    fn away_notice(&self, i: usize) -> Frame {
        encode(
            None,
            &ServerMsg::SeatAway(protocol::SeatPresence {
                match_id: self.id,
                seat: Seat::from_index(i),
            }),
        )
    }

    /// Sends `conn` a `seat_away` for every seat away now (after a replay or a
    /// snapshot: the notices are not kept in the history).
    fn send_away(&self, conn: &ConnHandle) {
        for (i, s) in self.seats.iter().enumerate() {
            if s.away {
                conn.send(self.away_notice(i));
            }
        }
    }

    /// Queues an unsequenced `frame` to every connected seat and spectator (not kept
    /// for resync). A connection whose queue is closed or full is dropped as in
    /// [`Room::broadcast`]. `skip`: a connection not to send it to.
    fn notify(&mut self, frame: Frame, skip: Option<u64>) {
        let mut fan = Fanout::new(frame);
        let mut lost = false;
        for s in &mut self.seats {
            if let Some(c) = s.conn.as_ref().filter(|c| Some(c.id()) != skip) {
                if !fan.send(c) {
                    s.conn = None;
                    lost = true;
                }
            }
        }
        self.spectators
            .retain(|id, c| Some(*id) == skip || fan.send(c));
        fan.finish();
        if lost {
            self.track_presence();
        }
    }

    // ----- time -----

    fn on_timer(&mut self) {
        let now = self.deps.clock.now_ms();
        if self.expire(now) {
            return;
        }
        let abandon_ms = self.deps.settings.abandon_ms;
        if self.away_since.is_some_and(|t| now >= t + abandon_ms) {
            tracing::info!(match_id = %self.id, "every human away: match abandoned");
            let end = self.m.end_abandoned();
            self.end(end);
            return;
        }
        if self.window_until.is_some_and(|u| now >= u) {
            self.maybe_seal();
            return;
        }
        if let Some(p) = self.probe.filter(|p| p.at <= Instant::now()) {
            self.probe = None;
            self.check_probe(p);
            return;
        }
        if self.auto_at.is_some_and(|at| at <= Instant::now()) {
            self.auto_at = None;
            self.auto_move(now);
        }
    }

    /// At the start of a connected human's turn: pings its socket, to be checked
    /// `--pong-timeout-ms` later ([`Room::check_probe`]). Nothing for a bot, an
    /// empty, absent or away seat, or a socket of another node.
    fn probe_turn(&mut self) {
        self.probe = None;
        let Some(timeout) = self.deps.settings.pong_timeout else {
            return;
        };
        let Some(turn) = self.m.current_turn() else {
            return;
        };
        let i = turn.seat.index();
        let slot = &self.seats[i];
        if !matches!(slot.kind, SeatKind::Human(_)) || slot.away {
            return;
        }
        let Some(conn) = &slot.conn else {
            return;
        };
        if let Some(mark) = conn.probe() {
            self.probe = Some(TurnProbe {
                seat: i,
                turn_number: turn.turn_number,
                conn_id: conn.id(),
                mark,
                at: Instant::now() + timeout,
            });
        }
    }

    /// The turn's ping is due: if its seat still plays that turn on the same socket
    /// and nothing came from that socket since the ping, the seat is away now
    /// (`seat_away` to everyone) and its turn is passed at once (while another human
    /// is here), like the turns of a seat away after timeouts (issue 37.2).
    fn check_probe(&mut self, p: TurnProbe) {
        let current = self.m.current_turn().map(|t| t.turn_number);
        let slot = &mut self.seats[p.seat];
        let Some(conn) = slot.conn.as_ref().filter(|c| c.id() == p.conn_id) else {
            return;
        };
        if current != Some(p.turn_number) || slot.away || conn.answered_since(p.mark) {
            return;
        }
        slot.away = true;
        metrics::counter!("ludo_seats_unresponsive_total").increment(1);
        tracing::info!(match_id = %self.id, seat = p.seat, "seat did not answer its turn's ping: away");
        let notice = self.away_notice(p.seat);
        self.notify(notice, None);
        self.schedule_auto();
    }

    /// Applies the engine's clocks at `now` (turn timeout, rule 4.6; match clock,
    /// rule 9.1). Returns true when something happened.
    fn expire(&mut self, now: u64) -> bool {
        if let Some(exp) = self.m.expire(now) {
            match exp {
                Expiry::TurnTimedOut(outcome) => {
                    let i = outcome.record.seat.index();
                    let after = self.deps.settings.away_after_timeouts;
                    let slot = &mut self.seats[i];
                    let mut now_away = false;
                    if matches!(slot.kind, SeatKind::Human(_)) {
                        slot.timeouts += 1;
                        now_away = !slot.away && (!slot.connected() || slot.timeouts >= after);
                        slot.away |= now_away;
                    }
                    self.after_turn(outcome, None, None);
                    if now_away {
                        let notice = self.away_notice(i);
                        match &mut self.pending {
                            Some(p) => p.out.push(Out::Notice(notice)),
                            None => self.notify(notice, None),
                        }
                    }
                }
                Expiry::MatchEnded(end) => self.end(end),
            }
            return true;
        }
        false
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
        // An away seat, even a connected one, does not count: with every connected
        // human away the turn timer passes each turn, as with nobody connected.
        let someone_here = self.seats.iter().any(|s| s.connected() && !s.away);
        let slot = &self.seats[turn.seat.index()];
        self.auto_at = match slot.kind {
            SeatKind::Bot(_) => Some(self.turn_began + self.deps.settings.bot_think),
            SeatKind::Human(_) if !slot.away => None,
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
        if matches!(self.seats[i].kind, SeatKind::Human(_)) && !self.seats[i].away {
            return; // the player came back: its own plan (or the turn timer) decides
        }
        let plan = if matches!(self.seats[i].kind, SeatKind::Bot(_)) {
            match self.bot_plan(i, turn.turn_number) {
                Some(plan) => plan,
                None => return, // a search is out; its `Thought` wakes the room
            }
        } else {
            engine::Plan::pass()
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
        self.after_turn(outcome, None, None);
    }

    /// The plan of the bot at seat index `i` for turn `turn_number`: the one its
    /// search found for this turn, or (a searching level) a search sent to the bot
    /// pool and `None` until it comes back — the greedy plan at once when every
    /// search slot is busy — or (the other levels) its strategy's choice now. `None`
    /// too while a search is out.
    fn bot_plan(&mut self, i: usize, turn_number: u32) -> Option<engine::Plan> {
        if let Some((_, plan)) = self.bot_ready.take().filter(|(t, _)| *t == turn_number) {
            return Some(plan);
        }
        if self.thinking.is_some() {
            return None;
        }
        let SeatKind::Bot(b) = &mut self.seats[i].kind else {
            return None;
        };
        // Unreachable without: the strategy is out only while thinking.
        let mut strategy = b.strategy.take()?;
        if !b.kind.searches() {
            let plan = strategy.choose(self.m.position(), self.m.rules());
            b.strategy = Some(strategy);
            return Some(plan);
        }
        let pos = *self.m.position();
        match self.deps.bots.think(strategy, pos, self.m.rules().clone()) {
            Ok(rx) => {
                self.thinking = Some(Thinking {
                    seat: i,
                    turn_number,
                    rx,
                });
                None
            }
            Err(strategy) => {
                // Every search slot is busy: the greedy plan, here.
                b.strategy = Some(strategy);
                metrics::counter!("ludo_bot_search_fallbacks_total").increment(1);
                Some(bot::choose_plan(
                    bot::BotKind::Greedy,
                    self.m.position(),
                    self.m.rules(),
                    rand::random(),
                ))
            }
        }
    }

    /// A bot's search came back: its strategy returns to its seat, and its plan is
    /// played if the turn it searched for is still the current one (at once, or when
    /// the pending write is released); otherwise it is dropped (the turn timed out or
    /// the match ended meanwhile).
    fn on_thought(&mut self, thought: Option<Thought>) {
        let Some(t) = self.thinking.take() else {
            return;
        };
        match (thought, &mut self.seats[t.seat].kind) {
            (Some(th), SeatKind::Bot(b)) => {
                b.strategy = Some(th.strategy);
                self.bot_ready = Some((t.turn_number, th.plan));
            }
            (None, SeatKind::Bot(b)) => {
                tracing::error!(match_id = %self.id, "bot search panicked; a new bot takes the seat");
                let kind = b.kind;
                *b = self.deps.new_bot(kind);
            }
            _ => {}
        }
        if self.pending.is_some() || self.m.is_over() {
            return;
        }
        let current = self.m.current_turn().map(|c| c.turn_number);
        if current == Some(t.turn_number) && self.bot_ready.is_some() {
            self.auto_move(self.deps.clock.now_ms());
        } else {
            self.bot_ready = None;
            self.schedule_auto();
        }
    }

    // ----- match messages -----

    fn turn_started(&self, t: &TurnStart, now: u64) -> TurnStarted {
        TurnStarted::from_turn_start(self.id, t, self.m.deadline_ms(), now)
    }

    fn seat_infos(&self) -> Vec<SeatInfo> {
        self.seats.iter().map(|s| s.info.clone()).collect()
    }

    /// seq 1: `match_started`, encoded per seat (it names the receiver's seat).
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
                        match_deadline_ms: self.m.deadline_ms(),
                        dice_scheme: self.m.dice_scheme(),
                        contribution_deadline_ms: self.window_until,
                    }),
                );
            }
        }
    }

    /// A turn was resolved: write it (and the result, if it ended the match); its
    /// `turn_resolved`, the submitter's `ack` and the next `turn_started` (or
    /// `match_ended`) are shown once the write is committed.
    fn after_turn(
        &mut self,
        outcome: TurnOutcome,
        reply: Option<(ConnHandle, Option<String>)>,
        received: Option<std::time::Instant>,
    ) {
        let TurnOutcome {
            record,
            position,
            next,
            end,
        } = outcome;
        crate::metrics::turn_resolved(record.kind);
        let seq = self.next_seq();
        let msg = ServerMsg::TurnResolved(TurnResolved::from_record(
            self.id,
            &record,
            engine::standings(&position),
        ));
        let clock_ms = self.m.clock_used_ms(self.deps.clock.now_ms());
        // The room keeps no turn log of its own (the store has it), so a long match
        // does not grow in memory turn by turn.
        let turns = self
            .m
            .drain_log()
            .into_iter()
            .map(|record| store::LoggedTurn {
                record,
                seq,
                clock_ms,
            })
            .collect();
        let mut out = Vec::with_capacity(3);
        if let Some((conn, req)) = reply {
            out.push(Out::Ack(conn, req));
        }
        out.push(Out::Msg(seq, encode(Some(seq), &msg)));
        let op = WriteOp::Turns {
            match_id: self.id,
            turns,
        };
        match (end, next) {
            (Some(end), _) => {
                // Both writes go to the ordered writer; the result's commit implies
                // the turn's, so the room waits for the last one only.
                let _turn_committed = self.deps.writer.send(op);
                self.finish(end, out);
            }
            (None, Some(_)) => {
                let s = self.next_seq();
                out.push(Out::TurnStarted(s));
                self.write(op, out, true, received);
            }
            (None, None) => self.write(op, out, true, received),
        }
    }

    fn match_ended(&self, end: &MatchEnd) -> MatchEnded {
        MatchEnded::from_end(self.id, end, self.m.seed())
    }

    /// Rule 9.1: the match is over (clock).
    fn end(&mut self, end: MatchEnd) {
        self.finish(end, Vec::new());
    }

    /// Writes the result; `out` and then `match_ended` are shown once it is committed.
    fn finish(&mut self, end: MatchEnd, mut out: Vec<Out>) {
        self.auto_at = None;
        tracing::info!(match_id = %self.id, reason = ?end.reason, turns = self.m.turns_played(), "match ended");
        let seq = self.next_seq();
        let op = WriteOp::Finish(store::MatchResult {
            id: self.id,
            seed: self.m.seed(),
            ended_at: clock::datetime(self.deps.clock.now_ms()),
            reason: end.reason,
            standings: end.standings.clone(),
            end_seq: Some(seq),
        });
        let msg = self.match_ended(&end);
        let committed = self.deps.writer.send(op);
        let ratings = Ratings::default();
        // Two or more human players (seats that left count): the result's
        // transaction rated them; read the changes for `match_ended`.
        let humans = self
            .seats
            .iter()
            .filter(|s| s.info.player_id.is_some())
            .count();
        let committed = if humans >= 2 {
            then_ratings(committed, self.deps.store.clone(), self.id, ratings.clone())
        } else {
            committed
        };
        out.push(Out::Ended(seq, Box::new(msg), ratings));
        self.pend(committed, out, false, None);
    }

    /// Frees the seats, so a player who reads `match_ended` can queue or open a lobby
    /// at once (the room unregisters itself right after).
    fn release_seats(&self) {
        for s in &self.seats {
            if let Some(p) = s.player() {
                self.deps.free_seat(p, self.id);
            }
        }
    }

    /// Keeps `frame` (a match message encoded once with `seq`) for resync and queues
    /// the same bytes to every connected seat and spectator (once per other node for
    /// the sockets there, see [`Fanout`]). A connection whose queue
    /// is closed or full is dropped from the room (its seat is kept).
    fn broadcast(&mut self, seq: u64, frame: Frame) {
        self.history.keep(seq, frame.clone());
        let mut lost = false;
        // Sockets of other nodes get the frame once per node (cluster mode).
        let mut fan = Fanout::new(frame);
        for s in &mut self.seats {
            if let Some(c) = &s.conn {
                if !fan.send(c) {
                    s.conn = None;
                    lost = true;
                }
            }
        }
        self.spectators.retain(|_, c| fan.send(c));
        fan.finish();
        if lost {
            self.track_presence();
        }
        if lost && !self.m.is_over() && self.pending.is_none() {
            self.schedule_auto();
        }
    }

    /// The frames after `last_seq` when the history still keeps them all (none when
    /// `last_seq` is the current `seq`), otherwise a snapshot (`last_seq` 0, older
    /// than the history, or ahead of the match). The turn in progress's
    /// `turn_started`, when replayed, is encoded again with its remaining times and
    /// `now_ms` as of now (same `seq`, same turn): a client counting down from
    /// `turn_remaining_ms` on arrival is right however long it was away.
    fn send_since(&self, conn: &ConnHandle, last_seq: u64, your_seat: Option<Seat>) {
        match self.history.since(last_seq) {
            Some(frames) => {
                for (seq, f) in frames {
                    match self.restamped(seq) {
                        Some(fresh) => conn.send(fresh),
                        None => conn.send(f),
                    };
                }
            }
            None => self.send_snapshot(conn, your_seat),
        }
        self.send_away(conn);
    }

    /// The `turn_started` frame of `seq` as of now, when `seq` is that of the turn
    /// still in progress; `None` for any other frame (sent as kept).
    fn restamped(&self, seq: u64) -> Option<Frame> {
        let (turn_seq, turn_number) = self.turn_frame?;
        let t = self
            .m
            .current_turn()
            .filter(|t| seq == turn_seq && t.turn_number == turn_number)?;
        let msg = ServerMsg::TurnStarted(self.turn_started(t, self.deps.clock.now_ms()));
        Some(encode(Some(seq), &msg))
    }

    fn send_snapshot(&self, conn: &ConnHandle, your_seat: Option<Seat>) {
        let now = self.deps.clock.now_ms();
        let snap = Snapshot {
            match_id: self.id,
            mode: self.m.position().mode(),
            rules: self.m.rules().clone(),
            seats: self.seat_infos(),
            your_seat,
            position: *self.m.position(),
            turn: self.m.current_turn().map(|t| self.turn_started(t, now)),
            clocks: Clocks {
                now_ms: now,
                turn_deadline_ms: self.m.current_turn().map(|t| t.deadline_ms),
                match_deadline_ms: self.m.deadline_ms(),
            },
            dice_commitment: self.m.commitment(),
            turns_played: self.m.turns_played(),
            dice_scheme: self.m.dice_scheme(),
            contributions: self.m.contributions().map(<[Contribution]>::to_vec),
            contribution_deadline_ms: self.window_until,
            seq: self.history.seq(),
            ended: self
                .ended
                .clone()
                .or_else(|| self.m.end().map(|e| self.match_ended(e))),
        };
        conn.send_msg(
            Some(self.history.seq()),
            &ServerMsg::Snapshot(Box::new(snap)),
        );
    }

    /// Cluster mode: another node runs the match now. Frees the seats here and closes
    /// the sockets of its players and spectators (1012) so they reconnect to it.
    fn moved(&mut self) {
        self.release_seats();
        for s in &mut self.seats {
            if let Some(c) = s.conn.take() {
                c.close(crate::ws::CloseReason::MOVED);
            }
        }
        for (_, c) in self.spectators.drain() {
            c.close(crate::ws::CloseReason::MOVED);
        }
    }

    /// Removes the room from the registries; the task then returns and everything it
    /// owned is dropped. Requests that waited or arrived too late still get an answer.
    fn unregister(&mut self) {
        self.deps.unregister(self.id);
        if self.m.is_over() && self.pending.is_none() {
            self.release_seats();
        }
        self.rx.close();
        // Cluster: a room that stops before its match is over (shutdown, lost lease)
        // hands the match to another node; a request that reaches it now is not
        // told the match is over: its socket is closed as moved (1012), and the
        // client reconnects and resyncs where the match runs next.
        let moving = !self.m.is_over() && self.deps.clustered;
        for cmd in self.deferred.drain(..) {
            answer_stopped(cmd, moving);
        }
        while let Ok(cmd) = self.rx.try_recv() {
            answer_stopped(*cmd, moving);
        }
        metrics::gauge!("ludo_rooms_active").decrement(1.0);
    }
}

/// Answers a command that reached a room as it stopped: [`answer_gone`], or when
/// the match is `moving` to another node, closes the request's socket as moved.
fn answer_stopped(cmd: RoomCmd, moving: bool) {
    if !moving {
        return answer_gone(cmd);
    }
    match cmd {
        RoomCmd::Submit { conn, .. }
        | RoomCmd::Preview { conn, .. }
        | RoomCmd::Leave { conn, .. }
        | RoomCmd::Resync { conn, .. }
        | RoomCmd::Spectate { conn, .. }
        | RoomCmd::Chat { conn, .. }
        | RoomCmd::Contribute { conn, .. }
        // A socket re-attaching as the match leaves: it reconnects where the match
        // runs next instead of waiting in silence (issue 34.1).
        | RoomCmd::Attach { conn, .. } => conn.close(crate::ws::CloseReason::MOVED),
        RoomCmd::Detach { .. } => {}
    }
}

/// Answers a command that reached a room that has ended (or is stopping).
fn answer_gone(cmd: RoomCmd) {
    match cmd {
        RoomCmd::Submit { conn, req, .. }
        | RoomCmd::Preview { conn, req, .. }
        | RoomCmd::Leave { conn, req, .. } => {
            conn.send_error(ErrorCode::MatchOver, "the match is over", req)
        }
        RoomCmd::Resync { conn, req, .. }
        | RoomCmd::Spectate { conn, req, .. }
        | RoomCmd::Chat { conn, req, .. } => conn.send_error(
            ErrorCode::MatchNotFound,
            "the match is no longer running",
            req,
        ),
        RoomCmd::Contribute { conn, req, .. } => {
            conn.send_error(ErrorCode::ContributionClosed, "the match is over", req)
        }
        RoomCmd::Attach { .. } | RoomCmd::Detach { .. } => {}
    }
}

/// Resolves when the pending write (if any) is committed.
async fn committed(
    pending: &mut Option<Pending>,
) -> Result<(), tokio::sync::oneshot::error::RecvError> {
    match pending {
        Some(p) => (&mut p.committed).await,
        None => std::future::pending().await,
    }
}

async fn sleep_until_ms(clock: &clock::Clock, at: Option<u64>) {
    match at {
        Some(at) => clock.sleep_until_ms(at).await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
