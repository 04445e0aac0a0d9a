//! Rooms: one Tokio task per running match (the *room actor*, module `actor`) that owns
//! the engine's [`engine::Match`]. Everything else talks to it through its
//! [`RoomHandle`] (an mpsc channel), so the match state has exactly one owner and
//! needs no lock. Clients only send intentions ([`RoomCmd`]); the room decides.
//!
//! [`start`] builds a room from up to four occupants (humans, bots, empty seats),
//! assigns seats at random, records the match (with its secret seed) with the
//! persistence writer and registers the room so connections can find it by match id;
//! the room shows `match_started` once that record is committed. [`resume_all`]
//! rebuilds, at start-up, every match the store has as running (a crash, a restart
//! or a deploy stopped it) from its seed and turn log, and runs it on.
//!
//! Seats nobody is connected to: a disconnected human keeps its seat. While at least
//! one human of the match is connected, the turns of absent humans and empty seats
//! are passed at once (kind `pass`); with nobody connected they wait for the turn
//! timer (kind `timeout`), so an abandoned room does not race through turns. Bots
//! move after `--bot-think-ms`. The player's next connection re-attaches on `hello`
//! (or `resync`/`spectate`) and receives a snapshot.

mod actor;
pub(crate) mod bots;
mod deps;
mod history;

pub(crate) use bots::BotPool;
pub use bots::{kind_of, level_of};
pub(crate) use deps::RoomDeps;
pub use history::History;

use crate::clock;
use crate::game::Game;
use crate::ws::ConnHandle;
use engine::{Match, Mode, Plan, Seat, Seed};
use protocol::SeatInfo;
use rand::seq::SliceRandom;
use rand::TryRngCore;
use tokio::sync::mpsc;
use uuid::Uuid;

/// Commands a room's queue holds before the room reads them.
const ROOM_QUEUE: usize = 256;

/// Who takes a seat when a room starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Occupant {
    /// A human player.
    Human {
        /// The player.
        player_id: Uuid,
        /// Display name.
        name: String,
    },
    /// A bot of this kind (level).
    Bot(bot::BotKind),
    /// Nobody: the seat's turns are passed (lobbies started without bots).
    Empty,
}

/// Everything a client can ask of a room. Replies go to `conn` only; match messages
/// go to every seat and spectator.
#[derive(Debug)]
pub enum RoomCmd {
    /// `submit_turn` (or `pass`, with the pass plan) from `player`.
    Submit {
        /// The authenticated player.
        player: Uuid,
        /// Where to send the ack or error.
        conn: ConnHandle,
        /// The frame's `id`.
        req: Option<String>,
        /// The turn the plan is for.
        turn_number: u32,
        /// The plan.
        plan: Plan,
        /// When the connection read the request (for the turn latency metric).
        received: std::time::Instant,
        /// When the connection read the request, on the server's clock (Unix ms). A
        /// plan read at or after its turn's deadline is late: the turn resolves as a
        /// timeout (rule 4.6), whenever the room gets to it.
        at_ms: u64,
    },
    /// `preview_plan` from `player`: what the plan would do, answered to `conn`
    /// only; nothing changes.
    Preview {
        /// The authenticated player.
        player: Uuid,
        /// Where to send the answer or error.
        conn: ConnHandle,
        /// The frame's `id`.
        req: Option<String>,
        /// The turn the plan is for.
        turn_number: u32,
        /// The plan.
        plan: Plan,
        /// When the connection read the request, on the server's clock (Unix ms):
        /// checked as a submission's would be.
        at_ms: u64,
    },
    /// `resync`: missed frames after `last_seq`, or a snapshot. A seated player's
    /// connection is (re-)attached to its seat.
    Resync {
        /// The authenticated player.
        player: Uuid,
        /// The connection asking.
        conn: ConnHandle,
        /// The frame's `id`.
        req: Option<String>,
        /// Last `seq` the client processed.
        last_seq: u64,
    },
    /// `spectate`: a snapshot, then live messages.
    Spectate {
        /// The authenticated player.
        player: Uuid,
        /// The connection to add.
        conn: ConnHandle,
        /// The frame's `id`.
        req: Option<String>,
    },
    /// A seated player's new connection (after `hello`): attach it and send the
    /// frames after `last_seq` (as `resync` does), or a snapshot.
    Attach {
        /// The player.
        player: Uuid,
        /// Its new connection.
        conn: ConnHandle,
        /// The last `seq` the client processed (`hello.last_seq`; 0 for none: a
        /// snapshot).
        last_seq: u64,
    },
    /// A connection closed: forget it (the seat is kept).
    Detach {
        /// The connection id.
        conn_id: u64,
    },
    /// `leave_match`: the player leaves; a bot plays the seat from now on.
    Leave {
        /// The authenticated player.
        player: Uuid,
        /// The connection asking.
        conn: ConnHandle,
        /// The frame's `id`.
        req: Option<String>,
    },
    /// `chat` in the match.
    Chat {
        /// The authenticated player.
        player: Uuid,
        /// Its display name.
        name: String,
        /// The connection asking.
        conn: ConnHandle,
        /// The frame's `id`.
        req: Option<String>,
        /// The text, NFC-normalized and within the text policy (decoding checked it,
        /// `protocol::decode_client`).
        text: String,
    },
    /// `contribute_entropy`: the player's seat adds its randomness to the dice
    /// (scheme `contributed`, proto/README.md §10).
    Contribute {
        /// The authenticated player.
        player: Uuid,
        /// The connection asking.
        conn: ConnHandle,
        /// The frame's `id`.
        req: Option<String>,
        /// The entropy, 16..=64 bytes (decoding checked it).
        entropy: engine::Entropy,
    },
}

/// The room is gone (the match ended or the server is stopping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("match not running")]
pub struct RoomGone;

/// The sending side of a room's command queue. Clone freely.
#[derive(Debug, Clone)]
pub struct RoomHandle {
    /// Commands are boxed: the queue's blocks hold 32 entries each whatever its
    /// capacity, so a room's queue costs 32 pointers, not 32 commands (issue 14).
    tx: mpsc::Sender<Box<RoomCmd>>,
    /// Shown in `GET /api/v1/matches/live` (false for a match of a private lobby).
    listed: bool,
    /// Cancelled to stop the room at once (cluster mode: another node owns the
    /// match now).
    stop: tokio_util::sync::CancellationToken,
}

impl RoomHandle {
    /// True when the match may be listed for spectators (`GET /api/v1/matches/live`);
    /// a private lobby's match is watched only by its id.
    pub fn is_listed(&self) -> bool {
        self.listed
    }

    /// Hands `cmd` to the room, waiting while its queue is full. Errors when the room
    /// has stopped.
    pub async fn send(&self, cmd: RoomCmd) -> Result<(), RoomGone> {
        self.tx.send(Box::new(cmd)).await.map_err(|_| RoomGone)
    }

    /// Stops the room without writing anything more (cluster mode: this node lost
    /// the match's lease). Its players' sockets are closed (1012) so they reconnect
    /// to the match's new owner.
    pub fn stop(&self) {
        self.stop.cancel();
    }

    /// Resolves once the room has stopped taking commands.
    pub async fn closed(&self) {
        self.tx.closed().await
    }
}

/// Why a room could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// More than four occupants were given.
    #[error("a match has four seats, {0} occupants were given")]
    TooMany(usize),
    /// The configured rule set is unusable.
    #[error(transparent)]
    Rules(#[from] engine::rules::InvalidRuleSet),
    /// The operating system's random generator failed.
    #[error("no randomness for the seed: {0}")]
    Random(String),
    /// The store is unavailable or behind ([`store::WriterHandle::accepting_new_matches`]):
    /// no new match starts until it catches up.
    #[error("the store is unavailable or behind; no new match can start now")]
    StoreUnavailable,
}

/// A fresh match seed from the operating system's CSPRNG (RULES.md §10).
fn new_seed() -> Result<Seed, StartError> {
    let mut b = [0u8; 32];
    rand::rngs::OsRng
        .try_fill_bytes(&mut b)
        .map_err(|e| StartError::Random(e.to_string()))?;
    Ok(Seed(b))
}

/// Display name of a bot seat ("Bot Green" …).
fn bot_name(seat: Seat) -> String {
    let n = seat.name();
    format!("Bot {}{}", n[..1].to_uppercase(), &n[1..])
}

/// Starts a match of `mode` for `occupants` (at most four; missing seats are
/// [`Occupant::Empty`]). Seats are assigned at random (rule 1.1). Records the match
/// (`WriteOp::CreateMatch`), marks every human as seated, registers and spawns the
/// room, which sends `match_started` and `turn_started`. Returns the match id.
///
/// Errors: [`StartError`]; nothing is registered then.
pub fn start(game: &Game, mode: Mode, occupants: Vec<Occupant>) -> Result<Uuid, StartError> {
    start_listed(game, mode, occupants, true)
}

/// [`start`], with `listed` false for a match that `GET /api/v1/matches/live` must
/// not show (a private lobby's; spectators need its id).
pub fn start_listed(
    game: &Game,
    mode: Mode,
    occupants: Vec<Occupant>,
    listed: bool,
) -> Result<Uuid, StartError> {
    start_seeded(game, mode, occupants, listed, new_seed()?)
}

/// [`start_listed`] with a given seed instead of a fresh one from the operating
/// system: for tests that need dice known in advance (a match that finishes by
/// construction). A server never calls it with anything but a fresh seed from the
/// operating system's CSPRNG.
///
/// Errors: [`StartError`]; nothing is registered then.
pub fn start_seeded(
    game: &Game,
    mode: Mode,
    mut occupants: Vec<Occupant>,
    listed: bool,
    seed: Seed,
) -> Result<Uuid, StartError> {
    if occupants.len() > 4 {
        return Err(StartError::TooMany(occupants.len()));
    }
    if !game.accepting_new_matches() {
        return Err(StartError::StoreUnavailable);
    }
    occupants.resize(4, Occupant::Empty);
    occupants.shuffle(&mut rand::rng());
    let now = game.clock().now_ms();
    // A new match takes its players' dice contributions (issue 31): nothing is rolled
    // until the room seals them. A contribution window of 0 turns them off: the seed
    // alone keys the dice (scheme `server_seed`, as before).
    let m = if game.config().contribution_window_ms == 0 {
        Match::new(game.config().rules(), mode, seed, now)?
    } else {
        Match::new_contributed(game.config().rules(), mode, seed, now)?
    };
    let id = Uuid::new_v4();
    let seats: Vec<actor::SeatSlot> = Seat::ALL
        .into_iter()
        .zip(occupants)
        .map(|(seat, occ)| seat_slot(game, seat, occ))
        .collect();
    if let (false, Some(e)) = (listed, game.elsewhere()) {
        e.unlist(id);
    }
    let committed = game.writer().send(store::WriteOp::CreateMatch(new_match(
        id, mode, &m, &seats, seed, now,
    )));
    let (rx, stop) = register(game, id, listed);
    for s in &seats {
        if let Some(p) = s.info.player_id {
            game.presence().seat(p, id);
        }
    }
    metrics::gauge!("ludo_rooms_active").increment(1.0);
    tracing::info!(match_id = %id, mode = mode.name(), "match started");
    let room = actor::Room::new(
        id,
        RoomDeps::of(game),
        m,
        seats,
        rx,
        stop,
        actor::Beginning::New(committed),
    );
    game.tasks().spawn(Box::new(room).run());
    Ok(id)
}

/// The slot of `seat` in a new match for its occupant `occ`: a human (reached at
/// its socket here, or its stand-in in a cluster), a bot of the configured
/// strategy, or an empty seat.
fn seat_slot(game: &Game, seat: Seat, occ: Occupant) -> actor::SeatSlot {
    let (info, kind, conn) = match occ {
        Occupant::Human { player_id, name } => (
            SeatInfo {
                seat,
                player_id: Some(player_id),
                name,
                bot: false,
                left: false,
                bot_level: None,
            },
            actor::SeatKind::Human(player_id),
            game.reach(player_id),
        ),
        Occupant::Bot(kind) => (
            SeatInfo {
                seat,
                player_id: None,
                name: bot_name(seat),
                bot: true,
                left: false,
                bot_level: level_of(kind),
            },
            actor::SeatKind::Bot(bots::configured(game.config(), kind)),
            None,
        ),
        Occupant::Empty => (
            SeatInfo {
                seat,
                player_id: None,
                name: "(empty)".into(),
                bot: false,
                left: false,
                bot_level: None,
            },
            actor::SeatKind::Empty,
            None,
        ),
    };
    actor::SeatSlot {
        info,
        kind,
        conn,
        away: false,
        timeouts: 0,
        applied: None,
    }
}

/// The store's record of the new match `id` of `mode`: its rules, dice commitment and secret
/// `seed`, start time (`now`, Unix ms) and `seats`.
fn new_match(
    id: Uuid,
    mode: Mode,
    m: &Match,
    seats: &[actor::SeatSlot],
    seed: Seed,
    now: u64,
) -> store::NewMatch {
    store::NewMatch {
        id,
        mode,
        rules: m.rules().clone(),
        dice_commitment: m.commitment(),
        started_at: clock::datetime(now),
        seats: seats
            .iter()
            .map(|s| store::SeatEntry {
                seat: s.info.seat,
                player_id: s.info.player_id,
                is_bot: s.info.bot,
                name: s.info.name.clone(),
                bot_level: s.info.bot_level.map(|l| l.name().to_string()),
            })
            .collect(),
        secret_seed: Some(seed),
        dice_scheme: m.dice_scheme(),
    }
}

/// Why a stored running match could not be resumed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResumeError {
    /// The match was stored without its seed (before durable matches).
    #[error("the match was stored without its seed")]
    NoSeed,
    /// The stored seats are not the four seats in turn order.
    #[error("the stored seats are not the four seats")]
    Seats,
    /// The stored turn log does not re-play from the seed.
    #[error("the stored turn log does not re-play: {0}")]
    Log(#[from] engine::ReplayMismatch),
}

/// Resumes one running match from the store: rebuilds it with
/// [`engine::Match::resume`] (every stored die and event re-checked; the clock charged
/// only the match time used before the stop; the turn in progress gets a fresh turn
/// timer), restores its seats (humans keep their seats and find the match in
/// `welcome.active_matches`; bots get a fresh strategy) and runs it on from the last
/// `seq` its clients can have seen. Returns the match id.
///
/// Errors: [`ResumeError`]; nothing is registered then.
pub fn resume(game: &Game, stored: store::RunningMatch) -> Result<Uuid, ResumeError> {
    let m = rebuild(&stored, game.clock().now_ms())?;
    let seq = last_seen_seq(&stored, m.is_over());
    let left: Vec<Seat> = stored.left.iter().map(|&(seat, _)| seat).collect();
    let seats: Vec<actor::SeatSlot> = stored
        .seats
        .into_iter()
        .map(|e| resumed_slot(game, e, &left))
        .collect();
    let id = stored.id;
    // The store does not record whether the match came from a private lobby: a
    // resumed match is not listed, so a private one is never shown.
    let (rx, stop) = register(game, id, false);
    for s in &seats {
        if let (Some(p), false) = (s.info.player_id, s.info.left) {
            game.presence().seat(p, id);
        }
    }
    metrics::gauge!("ludo_rooms_active").increment(1.0);
    metrics::counter!("ludo_rooms_resumed_total").increment(1);
    tracing::info!(match_id = %id, turns = m.turns_played(), seq, "match resumed");
    let mut room = actor::Room::new(
        id,
        RoomDeps::of(game),
        m,
        seats,
        rx,
        stop,
        actor::Beginning::Resumed { seq },
    );
    // Contributions accepted (and stored) before the stop, while the window was open.
    room.restore_contributions(&stored.contributions);
    game.tasks().spawn(Box::new(room).run());
    Ok(id)
}

/// The match of `stored` re-played from its seed and turn log at `now` (Unix ms),
/// with the seats whose player left marked as left.
///
/// Errors: [`ResumeError`] (no seed, seats not the four in order, a log that does
/// not re-play).
fn rebuild(stored: &store::RunningMatch, now: u64) -> Result<Match, ResumeError> {
    let seed = stored.secret_seed.ok_or(ResumeError::NoSeed)?;
    if stored.seats.len() != 4
        || stored
            .seats
            .iter()
            .zip(Seat::ALL)
            .any(|(s, seat)| s.seat != seat)
    {
        return Err(ResumeError::Seats);
    }
    let log: Vec<engine::TurnRecord> = stored.turns.iter().map(|t| t.record.clone()).collect();
    let clock_used = stored.turns.last().map_or(0, |t| t.clock_ms);
    let sealed = stored.dice_sealed_seq.is_some();
    let contributions = match stored.dice_scheme {
        engine::DiceScheme::Contributed if sealed => Some(stored.contributions.clone()),
        _ => None,
    };
    let mut m = Match::resume_with(
        stored.rules.clone(),
        stored.mode,
        seed,
        stored.dice_scheme,
        contributions,
        &log,
        clock_used,
        now,
    )?;
    for &(seat, _) in &stored.left {
        m.leave(seat);
    }
    Ok(m)
}

/// The `seq` of the last message a client of the stored match can have seen (`over`:
/// the re-played match has ended).
fn last_seen_seq(stored: &store::RunningMatch, over: bool) -> u64 {
    let left_seq = stored.left.iter().map(|&(_, seq)| seq).max().unwrap_or(0);
    // The last message a client can have seen: the last stored turn's
    // `turn_resolved` (seq s) and, unless that turn ended the match, its successor
    // `turn_started` (s + 1); or a later stored chat line. A new match's first
    // `turn_started` is seq 2 (server-seed scheme) or follows `dice_sealed`
    // (contributed scheme: its stored seq + 1; only `match_started`, seq 1, before
    // the seal).
    let turns_seq = match (
        stored.turns.last(),
        stored.dice_scheme,
        stored.dice_sealed_seq,
    ) {
        (Some(t), _, _) if over => t.seq,
        (Some(t), _, _) => t.seq + 1,
        (None, engine::DiceScheme::ServerSeed, _) => 2,
        (None, engine::DiceScheme::Contributed, Some(s)) => s + 1,
        (None, engine::DiceScheme::Contributed, None) => 1,
    };
    turns_seq.max(stored.last_chat_seq).max(left_seq)
}

/// The slot of the stored seat `e` of a resumed match (`left`: the seats whose
/// player left, now played by bots): a bot of its stored level (or the server's
/// default), a human reached at its socket here, or an empty seat.
fn resumed_slot(game: &Game, e: store::SeatEntry, left: &[Seat]) -> actor::SeatSlot {
    let gone = left.contains(&e.seat);
    // A stored level names the seat's bot; a seat whose player left, and a
    // bot stored before levels existed, play at the server's default.
    let stored_level = e.bot_level.as_deref().and_then(protocol::BotLevel::parse);
    let bot_kind = stored_level.map_or(game.config().bot_kind, kind_of);
    let info = SeatInfo {
        seat: e.seat,
        player_id: e.player_id,
        name: e.name,
        bot: e.is_bot || gone,
        left: gone,
        bot_level: stored_level,
    };
    let (kind, conn) = match (e.is_bot || gone, e.player_id) {
        (true, _) => (
            actor::SeatKind::Bot(bots::configured(game.config(), bot_kind)),
            None,
        ),
        (false, Some(p)) => (actor::SeatKind::Human(p), game.session(p)),
        (false, None) => (actor::SeatKind::Empty, None),
    };
    actor::SeatSlot {
        info,
        kind,
        conn,
        away: false,
        timeouts: 0,
        applied: None,
    }
}

/// Resumes every match the store has as running (see [`resume`]). A match that
/// cannot be resumed is logged and left as it is. Returns how many were resumed.
///
/// Errors: the store could not be read.
pub async fn resume_all(game: &Game) -> Result<usize, store::StoreError> {
    let running = game.store().running_matches().await?;
    let mut resumed = 0;
    for stored in running {
        let id = stored.id;
        if game.registries().runs_room(id) {
            continue;
        }
        match resume(game, stored) {
            Ok(_) => resumed += 1,
            Err(e) => tracing::error!(match_id = %id, error = %e, "running match not resumed"),
        }
    }
    Ok(resumed)
}

/// Registers the room of match `id` so connections (and, in a cluster, other nodes)
/// find it: its command queue ([`ROOM_QUEUE`] deep) and stop token. `listed`: shown
/// in `GET /api/v1/matches/live`. Returns the queue's receiving end and the token.
fn register(
    game: &Game,
    id: Uuid,
    listed: bool,
) -> (
    mpsc::Receiver<Box<RoomCmd>>,
    tokio_util::sync::CancellationToken,
) {
    let (tx, rx) = mpsc::channel(ROOM_QUEUE);
    let stop = tokio_util::sync::CancellationToken::new();
    let room = RoomHandle {
        tx,
        listed,
        stop: stop.clone(),
    };
    game.registries().register_room(id, room.clone());
    if let Some(e) = game.elsewhere() {
        e.serve_room(game, id, room);
    }
    (rx, stop)
}
