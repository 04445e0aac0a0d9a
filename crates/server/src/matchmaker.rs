//! Quick play: one queue per mode (journey, clash), run by one matchmaker task that
//! owns both queues (so they need no lock) and is reached by channel.
//!
//! Four waiting humans form a match at once. Otherwise, once the oldest waiting
//! player has waited the bot-fill time (`--bot-fill-seconds`, default 20 s), the
//! waiting humans get a match and bots take the empty seats. Seats are assigned at
//! random by [`crate::room::start`].
//!
//! The wait is measured on the server's [`crate::clock::Clock`] (`game.clock()`),
//! like turn timers: a player's wait starts at the clock's reading when its join is
//! handled, and bots come when the clock reads that plus the bot-fill time — on a
//! test's manual clock, exactly then (not a millisecond earlier) and at once.
//!
//! The connection claims the player's presence (`Busy::Queued`) before sending
//! [`MmCmd::Join`], so "already busy" is decided atomically; the matchmaker frees it
//! when the player leaves (or the room marks the player seated).

use crate::game::Game;
use crate::presence::Busy;
use crate::room::{self, Occupant};
use crate::ws::ConnHandle;
use engine::Mode;
use protocol::{ErrorCode, QueueStatus, ServerMsg};
use std::collections::VecDeque;
use tokio::sync::mpsc;
use uuid::Uuid;

/// Commands the matchmaker's queue holds before it reads them.
const MM_QUEUE: usize = 1024;

/// A request to the matchmaker.
#[derive(Debug)]
pub enum MmCmd {
    /// Enter the queue of `mode` (presence already claimed as `Queued(mode)`).
    Join {
        /// The player.
        player: Uuid,
        /// Its display name.
        name: String,
        /// journey or clash.
        mode: Mode,
        /// Where to send the ack.
        conn: ConnHandle,
        /// The frame's `id`.
        req: Option<String>,
        /// When the player first queued (Unix ms, server clock), for a player
        /// queued again after the cluster's matchmaker moved
        /// ([`crate::cluster::queue`]): it keeps its place and its bot-fill wait.
        /// `None`: now.
        since_ms: Option<u64>,
        /// Level of the bots if the bot-fill wait runs out for this player.
        bot_level: protocol::BotLevel,
    },
    /// Leave whichever queue the player is in (no-op if none).
    Leave {
        /// The player.
        player: Uuid,
        /// Where to send the ack (none when the connection closed).
        conn: Option<ConnHandle>,
        /// The frame's `id`.
        req: Option<String>,
    },
    /// Send `conn` the `queue_status` of the queue `player` waits in (nothing when it
    /// waits in none): a queued player's new connection (`hello`, e.g. a second tab).
    /// Sent by the matchmaker itself, so it is never older than an update it sends.
    Status {
        /// The player.
        player: Uuid,
        /// The player's new connection.
        conn: ConnHandle,
    },
    /// The connection of `player` closed: it keeps its place (and bot-fill wait)
    /// for `--queue-grace-seconds`; signed in again by then ([`MmCmd::Status`]) it
    /// is still queued, otherwise it leaves as with [`MmCmd::Leave`].
    Away {
        /// The player.
        player: Uuid,
    },
    /// Cluster: this node is no longer the cluster's matchmaker. Empties both
    /// queues (presences untouched, no message sent) and answers who waited there.
    Drain {
        /// Gets the players who waited, oldest first per mode.
        reply: tokio::sync::oneshot::Sender<Vec<Drained>>,
    },
}

/// A player taken out of the queue by [`MmCmd::Drain`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drained {
    /// The player.
    pub player: Uuid,
    /// Its display name.
    pub name: String,
    /// The queue it waited in.
    pub mode: Mode,
    /// When it joined (Unix ms, server clock).
    pub since_ms: u64,
    /// The bot level it asked for.
    pub bot_level: protocol::BotLevel,
}

/// The matchmaker stopped (server shutting down).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("matchmaker stopped")]
pub struct Stopped;

/// Sends commands to the matchmaker task.
#[derive(Debug, Clone)]
pub struct MatchmakerHandle {
    tx: mpsc::Sender<MmCmd>,
}

impl MatchmakerHandle {
    /// Hands `cmd` to the matchmaker. Errors when it has stopped.
    pub async fn send(&self, cmd: MmCmd) -> Result<(), Stopped> {
        self.tx.send(cmd).await.map_err(|_| Stopped)
    }
}

/// The matchmaker's channel: the handle for [`Game`] and the receiver for [`run`].
pub(crate) fn channel() -> (MatchmakerHandle, mpsc::Receiver<MmCmd>) {
    let (tx, rx) = mpsc::channel(MM_QUEUE);
    (MatchmakerHandle { tx }, rx)
}

#[derive(Debug)]
struct Waiting {
    player: Uuid,
    name: String,
    /// When the player joined, Unix ms on the server clock.
    since_ms: u64,
    /// The level of bots it asked for (`join_queue.bot_level`).
    bot_level: protocol::BotLevel,
    /// When its connection dropped (Unix ms, server clock), while it is away.
    gone_ms: Option<u64>,
}

/// The two queues, oldest first.
#[derive(Debug, Default)]
struct Queues {
    journey: VecDeque<Waiting>,
    clash: VecDeque<Waiting>,
    /// How long an away player keeps its place, ms (`--queue-grace-seconds`).
    grace_ms: u64,
}

impl Queues {
    fn of(&mut self, mode: Mode) -> &mut VecDeque<Waiting> {
        match mode {
            Mode::Journey => &mut self.journey,
            Mode::Clash => &mut self.clash,
        }
    }
}

const MODES: [Mode; 2] = [Mode::Journey, Mode::Clash];

/// The matchmaker task: runs until the server shuts down. Each command is
/// applied by [`apply`]; the waits that end (bot fill, an away player's grace)
/// by [`due`].
pub(crate) async fn run(game: Game, mut rx: mpsc::Receiver<MmCmd>) {
    let wait = game.config().bot_fill_wait().as_millis() as u64;
    let clock = game.clock().clone();
    let shutdown = game.shutdown_token().clone();
    let mut q = Queues {
        grace_ms: game.config().queue_grace().as_millis() as u64,
        ..Queues::default()
    };
    loop {
        for mode in MODES {
            crate::metrics::queue_waiting(mode, q.of(mode).len());
        }
        let wake = q.wake_at(wait);
        tokio::select! {
            biased;
            _ = shutdown.cancelled() => break,
            cmd = rx.recv() => match cmd {
                Some(cmd) => apply(&game, &mut q, cmd, wait),
                None => break,
            },
            _ = sleep_until(&clock, wake) => due(&game, &mut q, wait),
        }
    }
}

impl Queues {
    /// When the matchmaker must look again (Unix ms): the oldest waiting player's
    /// bot fill (`wait` ms after it queued) or the end of an away player's grace,
    /// whichever comes first; `None` when nobody waits.
    fn wake_at(&self, wait: u64) -> Option<u64> {
        [self.journey.front(), self.clash.front()]
            .into_iter()
            .flatten()
            .map(|w| w.since_ms + wait)
            .chain(
                self.journey
                    .iter()
                    .chain(self.clash.iter())
                    .filter_map(|w| w.gone_ms.map(|g| g + self.grace_ms)),
            )
            .min()
    }
}

/// Applies one command to the queues `q` (`wait`: the bot-fill wait, ms).
fn apply(game: &Game, q: &mut Queues, cmd: MmCmd, wait: u64) {
    match cmd {
        MmCmd::Join {
            player,
            name,
            mode,
            conn,
            req,
            since_ms,
            bot_level,
        } => {
            let now = game.clock().now_ms();
            let since_ms = since_ms.map_or(now, |s| s.min(now));
            let queue = q.of(mode);
            // Oldest first (a player queued again keeps its place).
            let at = queue
                .iter()
                .position(|w| w.since_ms > since_ms)
                .unwrap_or(queue.len());
            queue.insert(
                at,
                Waiting {
                    player,
                    name,
                    since_ms,
                    bot_level,
                    gone_ms: None,
                },
            );
            conn.ack(req);
            form_full(game, q, mode);
            status(game, q, mode, wait);
        }
        MmCmd::Leave { player, conn, req } => {
            leave(game, q, player, wait);
            if let Some(c) = conn {
                c.ack(req);
            }
        }
        MmCmd::Away { player } => {
            let now = game.clock().now_ms();
            for mode in MODES {
                for w in q.of(mode).iter_mut().filter(|w| w.player == player) {
                    w.gone_ms = Some(now);
                }
            }
        }
        MmCmd::Status { player, conn } => back(game, q, player, &conn, wait),
        MmCmd::Drain { reply } => {
            let _ = reply.send(q.drain());
        }
    }
}

/// `player` leaves every queue it waits in (the others get their new
/// `queue_status`).
fn leave(game: &Game, q: &mut Queues, player: Uuid, wait: u64) {
    for mode in MODES {
        let queue = q.of(mode);
        if let Some(i) = queue.iter().position(|w| w.player == player) {
            queue.remove(i);
            game.presence().release(player, Busy::Queued(mode));
            dequeued(game, player, mode);
            status(game, q, mode, wait);
        }
    }
}

/// A queued `player` is back on `conn` (a `hello`): its place is kept for good
/// (no longer away), and `conn` gets its `queue_status`.
fn back(game: &Game, q: &mut Queues, player: Uuid, conn: &ConnHandle, wait: u64) {
    // The player is back: its place is kept for good.
    for mode in MODES {
        for w in q.of(mode).iter_mut().filter(|w| w.player == player) {
            w.gone_ms = None;
        }
    }
    let mode = MODES
        .into_iter()
        .find(|&m| q.of(m).iter().any(|w| w.player == player));
    if let Some(st) = mode.and_then(|m| status_of(game, q, m, wait)) {
        conn.send_msg(None, &ServerMsg::QueueStatus(st));
    }
}

impl Queues {
    /// Empties every queue (the matchmaker role moves to another node): the
    /// waiting players, oldest first per mode, with what they queued with.
    fn drain(&mut self) -> Vec<Drained> {
        let mut out = Vec::new();
        for mode in MODES {
            out.extend(self.of(mode).drain(..).map(|w| Drained {
                player: w.player,
                name: w.name,
                mode,
                since_ms: w.since_ms,
                bot_level: w.bot_level,
            }));
        }
        out
    }
}

/// The time [`Queues::wake_at`] named came: away players past their grace leave
/// the queue, and a queue whose oldest player waited `wait` ms is filled with bots.
fn due(game: &Game, q: &mut Queues, wait: u64) {
    let now = game.clock().now_ms();
    for mode in MODES {
        // Away past the grace period: out of the queue.
        let grace = q.grace_ms;
        let before = q.of(mode).len();
        q.of(mode).retain(|w| {
            let over = w.gone_ms.is_some_and(|g| g + grace <= now);
            if over {
                game.presence().release(w.player, Busy::Queued(mode));
                dequeued(game, w.player, mode);
            }
            !over
        });
        if q.of(mode).len() != before {
            status(game, q, mode, wait);
        }
        if q.of(mode).front().is_some_and(|w| w.since_ms + wait <= now) {
            fill_with_bots(game, q, mode);
            status(game, q, mode, wait);
        }
    }
}

/// Resolves when `clock` reads `at_ms` (never, for `None`: nobody is waiting).
async fn sleep_until(clock: &crate::clock::Clock, at_ms: Option<u64>) {
    match at_ms {
        Some(at) => clock.sleep_until_ms(at).await,
        None => std::future::pending().await,
    }
}

/// Drops waiting players whose connection is gone, unless they are within their
/// grace period (their presence is freed).
fn prune(game: &Game, q: &mut Queues, mode: Mode) {
    let (now, grace) = (game.clock().now_ms(), q.grace_ms);
    q.of(mode).retain(|w| {
        let live = game.reach(w.player).is_some_and(|c| !c.is_closed())
            || w.gone_ms.is_some_and(|g| now < g + grace);
        if !live {
            game.presence().release(w.player, Busy::Queued(mode));
            dequeued(game, w.player, mode);
        }
        live
    });
}

/// Starts matches of four humans while four are waiting.
fn form_full(game: &Game, q: &mut Queues, mode: Mode) {
    prune(game, q, mode);
    while q.of(mode).len() >= 4 {
        let four: Vec<Waiting> = q.of(mode).drain(..4).collect();
        launch(game, mode, four);
    }
}

/// The bot-fill wait ran out: the waiting humans (at most three) get a match with bots
/// of the level the longest-waiting of them asked for.
fn fill_with_bots(game: &Game, q: &mut Queues, mode: Mode) {
    form_full(game, q, mode);
    let humans: Vec<Waiting> = q.of(mode).drain(..).collect();
    if !humans.is_empty() {
        launch(game, mode, humans);
    }
}

fn launch(game: &Game, mode: Mode, humans: Vec<Waiting>) {
    let mut occupants: Vec<Occupant> = humans
        .iter()
        .map(|w| Occupant::Human {
            player_id: w.player,
            name: w.name.clone(),
        })
        .collect();
    // Only a match of fewer than four humans gets bots: those of its oldest player's level.
    let level = humans.first().map(|w| w.bot_level).unwrap_or_default();
    occupants.resize(4, Occupant::Bot(crate::room::kind_of(level)));
    if let Err(e) = room::start(game, mode, occupants) {
        tracing::error!(error = %e, "could not start a quick-play match");
        let code = match e {
            room::StartError::StoreUnavailable => ErrorCode::StoreUnavailable,
            _ => ErrorCode::Internal,
        };
        for w in &humans {
            game.presence().release(w.player, Busy::Queued(mode));
            if let Some(c) = game.reach(w.player) {
                c.send_error(
                    code,
                    "the match could not be started; please queue again",
                    None,
                );
            }
        }
    }
    // The room holds the stand-ins of remote players already.
    for w in &humans {
        dequeued(game, w.player, mode);
    }
}

/// The `queue_status` of `mode` now (none when nobody waits there); `wait_ms` is the
/// bot-fill time, and `bots_in_seconds` the oldest player's time left, rounded up.
fn status_of(game: &Game, q: &mut Queues, mode: Mode, wait_ms: u64) -> Option<QueueStatus> {
    let now = game.clock().now_ms();
    let queue = q.of(mode);
    let front = queue.front()?;
    let left_ms = (front.since_ms + wait_ms).saturating_sub(now);
    Some(QueueStatus {
        mode,
        waiting: queue.len() as u32,
        bots_in_seconds: left_ms.div_ceil(1000) as u32,
    })
}

/// Sends `queue_status` to everyone waiting in `mode`.
fn status(game: &Game, q: &mut Queues, mode: Mode, wait_ms: u64) {
    let Some(st) = status_of(game, q, mode, wait_ms) else {
        return;
    };
    let frame = crate::ws::encode(None, &ServerMsg::QueueStatus(st));
    for w in q.of(mode).iter() {
        if let Some(c) = game.reach(w.player) {
            c.send(frame.clone());
        }
    }
}

/// Cluster: `player` (queued from another node, maybe) is out of the queue of `mode`.
fn dequeued(game: &Game, player: Uuid, mode: Mode) {
    if let Some(e) = game.elsewhere() {
        e.dequeued(player, mode);
    }
}
