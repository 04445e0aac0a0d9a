//! A bot client playing one match to its end: it follows the match with a
//! [`MatchTracker`], and on each of its own turns waits the think time, lets a
//! [`bot::Strategy`] choose a plan on the tracked position and submits it (a pass
//! when the strategy passes). It records submit→`turn_resolved` latency and errors
//! in [`Stats`], recovers from desyncs with a resync from 0, and from a dropped
//! socket by reconnecting (new socket, on the next server of a cluster, + `hello` +
//! `resync`).

use crate::codec::Decode;
use crate::error::{ClientError, Result};
use crate::session::{match_of, Session};
use crate::stats::Stats;
use crate::tracker::{Applied, MatchTracker};
use engine::Seat;
use protocol::{ErrorCode, MatchEnded, MatchStarted, SeatInfo, ServerMsg};
use std::time::Duration;
use tokio::time::Instant;
use uuid::Uuid;

/// Wait before re-sending a submit the server dropped with `rate_limited`.
pub const RATE_LIMIT_BACKOFF: Duration = Duration::from_millis(250);

/// How a bot client plays.
#[derive(Debug, Clone)]
pub struct PlayOptions {
    /// Wait this long after its `turn_started` before submitting.
    pub think: Duration,
    /// Give up (returning an outcome without `end`) at this instant.
    pub stop_at: Instant,
    /// Reconnect attempts allowed when the socket drops (closed by the server, other
    /// than 4000 replaced, or broken): each moves to the session's next server and
    /// rejoins the match ([`Session::rejoin_elsewhere`]), counted in
    /// [`Stats::reconnected`], not as an error.
    pub reconnects: u32,
    /// Before playing, move to the session's next server ([`Session::set_endpoints`])
    /// and play from there: the players sit on another node than the match's owner
    /// (cluster mode: their frames cross NATS).
    pub relocate: bool,
}

/// How long one reconnect may take to rejoin the match (a node restarting, the
/// match being resumed by another).
pub const REJOIN_LIMIT: Duration = Duration::from_secs(30);

/// What one client saw of a match.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchOutcome {
    /// The match.
    pub match_id: Uuid,
    /// The client's seat.
    pub seat: Option<Seat>,
    /// Who sat where.
    pub seats: Vec<SeatInfo>,
    /// The end (standings, seed, replay URL); `None` when play stopped at `stop_at`.
    pub end: Option<MatchEnded>,
    /// Turns resolved while playing.
    pub turns: u32,
    /// Plans and passes this client submitted.
    pub submits: u32,
}

/// A client of a loopback server (whose clock is this machine's) sends no plan when
/// less than this is left before the turn's deadline or the match's end: it would
/// arrive at or after it and be refused (`stale_turn`, rule 4.6; `match_over`,
/// rule 9.1). Such a turn is left to time out.
pub const LATE_MARGIN: Duration = Duration::from_millis(200);

/// True when `t`'s turn deadline or the match's end is less than [`LATE_MARGIN`]
/// away. The match's end is `turn_deadline − turn_remaining_ms` (the server's time
/// when it sent the frame) + `match_remaining_ms`.
fn too_late(t: &protocol::TurnStarted) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let match_end = t
        .turn_deadline_ms
        .saturating_sub(t.turn_remaining_ms)
        .saturating_add(t.match_remaining_ms);
    now + LATE_MARGIN.as_millis() as u64 >= t.turn_deadline_ms.min(match_end)
}

/// True for the errors that mean the tracked position was wrong (rule 4.5 plan errors).
fn is_plan_error(code: ErrorCode) -> bool {
    use ErrorCode::*;
    matches!(
        code,
        UnknownPiece
            | PieceInYard
            | PieceAtHome
            | NotInYard
            | NotEnoughExitCredits
            | RollNotInStore
            | EmptyMove
            | RoyalStepsOutOfRange
            | RoyalAtHome
            | InvalidPosition
            | InvalidPlan
    )
}

/// A submit waiting for its `turn_resolved`.
struct Pending {
    id: String,
    turn: u32,
    sent: Instant,
}

/// Plays the match `started` announced until `match_ended` (or `opts.stop_at`).
///
/// Counting: the client in the first human seat counts the match's turns and its
/// completion in `stats` (so each is counted once per match); every client records its
/// own submits, latencies and errors.
///
/// Errors: transport errors that reconnecting could not repair.
pub async fn play_match(
    session: &mut Session,
    started: &MatchStarted,
    strategy: &mut (dyn bot::Strategy + Send),
    opts: &PlayOptions,
    stats: &Stats,
) -> Result<MatchOutcome> {
    let match_id = started.match_id;
    let verify = session.decode() == Decode::Full;
    let mut tracker = MatchTracker::from_started(started);
    tracker.set_verify_events(verify);
    let counter = started
        .seats
        .iter()
        .find(|s| !s.bot)
        .and_then(|s| s.player_id)
        == Some(session.player_id());
    let mut counted_turns = 0u32;
    let mut pending: Option<Pending> = None;
    let mut think: Option<(Instant, u32)> = None;
    let mut submitted_turn = 0u32;
    let mut submits = 0u32;
    let mut reconnects = 0u32;
    if opts.relocate && !session.rejoin_elsewhere(match_id, REJOIN_LIMIT).await? {
        return Err(ClientError::Unexpected(format!(
            "match {match_id} not running right after its start"
        )));
    }
    let outcome = |tracker: &MatchTracker, submits| MatchOutcome {
        match_id,
        seat: tracker.your_seat(),
        seats: tracker.seats().to_vec(),
        end: tracker.ended().cloned(),
        turns: tracker.turns_resolved(),
        submits,
    };
    loop {
        if tracker.ended().is_some() {
            return Ok(outcome(&tracker, submits));
        }
        let wake = think.map_or(opts.stop_at, |(at, _)| at.min(opts.stop_at));
        let frame = match session.next_frame_until(wake).await {
            Ok(f) => f,
            Err(e @ (ClientError::Closed | ClientError::WebSocket(_)))
                if reconnects < opts.reconnects && session.close_code() != Some(4000) =>
            {
                tracing::debug!(%match_id, code = ?session.close_code(), "socket lost ({e}): rejoining");
                stats.reconnected();
                reconnects += 1;
                pending = None;
                if !session.rejoin_elsewhere(match_id, REJOIN_LIMIT).await? {
                    // Ended while away: its result is stored (the replay has it).
                    return Ok(outcome(&tracker, submits));
                }
                continue;
            }
            Err(e) => return Err(e),
        };
        let Some(frame) = frame else {
            if Instant::now() >= opts.stop_at {
                return Ok(outcome(&tracker, submits));
            }
            // Think time is over: choose and submit.
            let (_, turn) = think.take().expect("woken for the think timer");
            if let Some(t) = tracker.my_turn().filter(|t| t.turn_number == turn) {
                if session.endpoint().is_loopback() && too_late(t) {
                    // Seen too late (e.g. replayed after a reconnect): the server passes
                    // the turn at its deadline; a plan now would only be refused.
                    tracing::debug!(%match_id, turn, "turn seen too late: left to time out");
                    continue;
                }
                let plan = strategy.choose(tracker.position(), tracker.rules());
                let turn = t.turn_number;
                let id = if plan.is_pass() {
                    session.pass(match_id, turn).await?
                } else {
                    session.submit(match_id, turn, plan).await?
                };
                stats.submitted();
                submits += 1;
                submitted_turn = turn;
                // A retry keeps the first submit's time: latency counts the wait.
                let sent = pending
                    .as_ref()
                    .filter(|p| p.turn == turn)
                    .map_or_else(Instant::now, |p| p.sent);
                pending = Some(Pending { id, turn, sent });
            }
            continue;
        };
        match &frame.msg {
            ServerMsg::MatchStarted(m) if m.match_id == match_id => {
                // A resync from 0 replays the match from its start.
                tracker = MatchTracker::from_started(m);
                tracker.set_verify_events(verify);
            }
            ServerMsg::Error(e) => {
                stats.error(e.code.as_str());
                let mine = pending
                    .as_ref()
                    .is_some_and(|p| e.in_reply_to.as_deref() == Some(p.id.as_str()));
                if e.code == ErrorCode::RateLimited && e.in_reply_to.is_none() {
                    // The server dropped a frame unread (its per-connection rate limit):
                    // if our submit is still unanswered, send it again a little later.
                    if let Some(p) = pending
                        .as_ref()
                        .filter(|p| tracker.my_turn().is_some_and(|t| t.turn_number == p.turn))
                    {
                        think = Some((Instant::now() + RATE_LIMIT_BACKOFF, p.turn));
                    }
                } else if mine {
                    pending = None;
                    if is_plan_error(e.code) {
                        tracing::warn!(%match_id, code = e.code.as_str(), "plan refused: resync from 0");
                        session.resync_from(match_id, 0).await?;
                    }
                }
            }
            msg if match_of(msg) == Some(match_id) => match tracker.apply(msg) {
                Ok(Applied::TurnStarted {
                    turn_number,
                    mine: true,
                }) if turn_number > submitted_turn => {
                    think = Some((Instant::now() + opts.think, turn_number));
                }
                Ok(Applied::TurnResolved { turn_number, .. }) => {
                    if counter && turn_number > counted_turns {
                        counted_turns = turn_number;
                        stats.turn();
                    }
                    if let Some(p) = pending.take_if(|p| p.turn == turn_number) {
                        stats.resolved(p.sent.elapsed());
                    }
                }
                Ok(Applied::Snapshot) => {
                    if let Some(t) = tracker.my_turn().filter(|t| t.turn_number > submitted_turn) {
                        think = Some((Instant::now() + opts.think, t.turn_number));
                    }
                }
                Ok(Applied::Ended) if counter => stats.match_completed(),
                Ok(_) => {}
                Err(e) => {
                    stats.error(&e.label());
                    tracing::warn!(%match_id, "{e}: resync from 0");
                    think = None;
                    session.resync_from(match_id, 0).await?;
                }
            },
            _ => {}
        }
    }
}
