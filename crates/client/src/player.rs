//! A bot client playing one match to its end: it follows the match with a
//! [`MatchTracker`], and on each of its own turns waits the think time, lets a
//! [`bot::Strategy`] choose a plan on the tracked position and submits it (a pass
//! when the strategy passes). It records submit→`turn_resolved` latency and errors
//! in [`Stats`], recovers from desyncs with a resync from 0, and from a dropped
//! socket by reconnecting (new socket, on the next server of a cluster, + `hello` +
//! `resync`). A plan whose `ack` had not come when its socket was lost is sent
//! again, unchanged, when the server still shows that turn as the client's to play
//! (proto/README.md §6.1; see [`play_match`]).

use crate::codec::Decode;
use crate::error::{ClientError, Result};
use crate::session::{match_of, Session};
use crate::stats::Stats;
use crate::tracker::{Applied, MatchTracker};
use engine::{Plan, Seat};
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
    /// Plans and passes this client submitted (a plan re-sent unchanged after a
    /// reconnect is not counted again: see [`Stats::resent`]).
    pub submits: u32,
}

/// A client of a loopback server (whose one-way latency is far below this) sends no
/// plan when less than this is left before the turn's deadline or the match's end: it would
/// arrive at or after it and be refused (`stale_turn`, rule 4.6; `match_over`,
/// rule 9.1). Such a turn is left to time out.
pub const LATE_MARGIN: Duration = Duration::from_millis(200);

/// True when the tracked turn's deadline or the match's end is less than
/// [`LATE_MARGIN`] away, counted down from the frame's arrival
/// ([`MatchTracker::turn_deadline`], `proto/README.md` §7).
fn too_late(tracker: &MatchTracker) -> bool {
    tracker
        .turn_deadline()
        .is_some_and(|d| Instant::now() + LATE_MARGIN >= d)
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

/// A plan (or pass) sent for one of this client's turns, waiting for its
/// `turn_resolved` (or an `error`). Kept across a reconnect, so that a plan the
/// server never acknowledged can be sent again ([`resend_unacked`]).
struct Pending {
    /// The request id of its latest send. Request ids restart with every socket, so
    /// it names the request only while `orphaned` is false.
    id: String,
    /// The turn it is for.
    turn: u32,
    /// The plan sent (the empty plan for a pass): a re-send sends it unchanged.
    plan: Plan,
    /// When it was first sent: its latency counts from here, across a reconnect
    /// and a re-send.
    sent: Instant,
    /// The server answered it with `ack`, which it sends only once the turn is
    /// stored (proto/README.md §6.1, "Durable before visible"): it is never sent
    /// again; only its `turn_resolved` is still to come.
    acked: bool,
    /// Its latest send went out on a socket since lost: that socket's `ack` or
    /// `error` for it will never come.
    orphaned: bool,
    /// It was sent again after a reconnect, so a `stale_turn` answer is expected.
    resent: bool,
}

impl Pending {
    fn new(id: String, turn: u32, plan: Plan, sent: Instant) -> Pending {
        Pending {
            id,
            turn,
            plan,
            sent,
            acked: false,
            orphaned: false,
            resent: false,
        }
    }

    /// True when an `ack` or `error` with this `id` (`in_reply_to`) answers the
    /// latest send (on the current socket).
    fn answered_by(&self, id: Option<&str>) -> bool {
        !self.orphaned && id == Some(self.id.as_str())
    }
}

/// Sends `plan` for `turn`: `pass` for the empty plan, else `submit_turn`. Returns
/// the request id.
async fn send_plan(
    session: &mut Session,
    match_id: Uuid,
    turn: u32,
    plan: &Plan,
) -> Result<String> {
    if plan.is_pass() {
        session.pass(match_id, turn).await
    } else {
        session.submit(match_id, turn, plan.clone()).await
    }
}

/// proto/README.md §6.1: "If you had submitted a plan that was never acknowledged,
/// submit it again for the turn the snapshot shows."
///
/// When `pending` went out on a socket since lost (`orphaned`), has had no `ack`,
/// and the tracker — just updated by a snapshot, a replayed `turn_started`, or the
/// frames the server sent up to the rejoin's `resync` ack — shows that same turn
/// number as this client's to play, sends the same plan again for it (not a new
/// choice), keeping its first send time. That happens when the server crashed
/// before the plan was stored (a resumed match shows its turn again), or when the
/// plan never reached the server. If the first send was accepted after all (its
/// `ack` lost with the socket), the server answers the re-send with `stale_turn`,
/// which [`play_match`] expects ([`Stats::resent_stale`], not an error). A turn
/// too close to its deadline on a loopback server ([`LATE_MARGIN`]) is left to
/// time out, as a first send would be.
///
/// Errors: transport errors of the send.
async fn resend_unacked(
    session: &mut Session,
    match_id: Uuid,
    tracker: &MatchTracker,
    pending: &mut Option<Pending>,
    stats: &Stats,
) -> Result<()> {
    let Some(p) = pending.as_mut().filter(|p| p.orphaned && !p.acked) else {
        return Ok(());
    };
    if tracker.my_turn().is_none_or(|t| t.turn_number != p.turn) {
        return Ok(());
    }
    if session.endpoint().is_loopback() && too_late(tracker) {
        tracing::debug!(%match_id, turn = p.turn, "unacknowledged plan seen too late: left to time out");
        return Ok(());
    }
    tracing::debug!(%match_id, turn = p.turn, "plan never acknowledged: sent again (proto §6.1)");
    p.id = send_plan(session, match_id, p.turn, &p.plan).await?;
    p.orphaned = false;
    p.resent = true;
    stats.resent();
    Ok(())
}

/// Plays the match `started` announced until `match_ended` (or `opts.stop_at`).
///
/// Reconnecting: when the socket is lost, the client rejoins the match
/// ([`Session::rejoin_elsewhere`], up to `opts.reconnects` times) and keeps the
/// plan it had sent for its turn, with its request id, first send time and whether
/// the server acknowledged it (`ack`). A plan never acknowledged is sent again,
/// unchanged, for the same turn when a snapshot (a resumed match always sends one),
/// a replayed `turn_started`, or — once the frames the server sent up to the
/// rejoin's `resync` ack are all handled — the tracked match shows that turn still
/// the client's to play (proto/README.md §6.1: "If you had submitted a plan that
/// was never acknowledged, submit it again for the turn the snapshot shows."). A
/// re-send answered with `stale_turn` (the first send was accepted after all, or
/// the turn ended meanwhile) is counted in [`Stats::resent_stale`], not as an
/// error; any other answer to it is handled as for a first send.
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
    // Set by a rejoin; cleared once the frames read up to its `resync` ack are
    // handled, when an unacknowledged plan is checked for a re-send.
    let mut rejoined = false;
    if opts.relocate && !session.rejoin_elsewhere(match_id, REJOIN_LIMIT).await? {
        return Err(ClientError::Unexpected(format!(
            "match {match_id} not running right after its start"
        )));
    }
    // Dice scheme `contributed` (proto/README.md §10): add this seat's randomness
    // while the window is open. Its answer is not awaited; a refusal (the window
    // closed first) is expected, not an error.
    let contribution = match (started.contribution_deadline_ms, started.your_seat) {
        (Some(_), Some(_)) => Some(session.contribute_entropy(match_id).await?.0),
        _ => None,
    };
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
        if rejoined && session.buffered() == 0 {
            // The server's view as of the rejoin is applied: still my turn with an
            // unacknowledged plan for it (no snapshot came, nothing was replayed):
            // the plan never reached the server, or was lost with it.
            rejoined = false;
            resend_unacked(session, match_id, &tracker, &mut pending, stats).await?;
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
                // Kept (proto §6.1): its answer, if any, was lost with the socket.
                if let Some(p) = pending.as_mut() {
                    p.orphaned = true;
                }
                if !session.rejoin_elsewhere(match_id, REJOIN_LIMIT).await? {
                    // Ended while away: its result is stored (the replay has it).
                    return Ok(outcome(&tracker, submits));
                }
                rejoined = true;
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
                if session.endpoint().is_loopback() && too_late(&tracker) {
                    // Seen too late (e.g. replayed after a reconnect): the server passes
                    // the turn at its deadline; a plan now would only be refused.
                    tracing::debug!(%match_id, turn, "turn seen too late: left to time out");
                    continue;
                }
                // A retry after `rate_limited` sends the same plan again.
                let plan = match pending.as_ref().filter(|p| p.turn == turn && !p.acked) {
                    Some(p) => p.plan.clone(),
                    None => strategy.choose(tracker.position(), tracker.rules()),
                };
                let turn = t.turn_number;
                let id = send_plan(session, match_id, turn, &plan).await?;
                stats.submitted();
                submits += 1;
                submitted_turn = turn;
                // A retry keeps the first submit's time: latency counts the wait.
                let sent = pending
                    .as_ref()
                    .filter(|p| p.turn == turn)
                    .map_or_else(Instant::now, |p| p.sent);
                pending = Some(Pending::new(id, turn, plan, sent));
            }
            continue;
        };
        match &frame.msg {
            ServerMsg::MatchStarted(m) if m.match_id == match_id => {
                // A resync from 0 replays the match from its start.
                tracker = MatchTracker::from_started(m);
                tracker.set_verify_events(verify);
            }
            ServerMsg::Ack(a) => {
                if let Some(p) = pending
                    .as_mut()
                    .filter(|p| p.answered_by(Some(a.id.as_str())))
                {
                    p.acked = true;
                }
            }
            ServerMsg::Error(e)
                if contribution.is_some()
                    && e.in_reply_to.as_deref() == contribution.as_deref() =>
            {
                tracing::debug!(%match_id, code = e.code.as_str(), "dice contribution refused");
            }
            ServerMsg::Error(e)
                if e.code == ErrorCode::StaleTurn
                    && pending
                        .as_ref()
                        .is_some_and(|p| p.resent && p.answered_by(e.in_reply_to.as_deref())) =>
            {
                // A plan re-sent after a reconnect (proto §6.1) that the server had
                // accepted after all (its ack was lost with the socket), or whose turn
                // ended meanwhile: expected, not an error.
                tracing::debug!(%match_id, "re-sent plan answered stale_turn: its turn is over");
                stats.resent_stale();
                pending = None;
            }
            ServerMsg::Error(e) => {
                stats.error(e.code.as_str());
                let mine = pending
                    .as_ref()
                    .is_some_and(|p| p.answered_by(e.in_reply_to.as_deref()));
                if e.code == ErrorCode::RateLimited && (e.in_reply_to.is_none() || mine) {
                    // The server dropped a frame unread (its per-connection rate limit;
                    // it names the frame's id when it could read one): if our submit
                    // is still unanswered, send the same plan again a little later.
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
                Ok(Applied::TurnStarted { mine: true, .. }) => {
                    // The turn already planned, shown again (a resync from 0).
                    resend_unacked(session, match_id, &tracker, &mut pending, stats).await?;
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
                    // A snapshot showing another turn than the pending plan's: that
                    // turn ended unseen (no turn_resolved, so no latency sample).
                    pending.take_if(|p| tracker.turn().is_none_or(|t| t.turn_number != p.turn));
                    if let Some(t) = tracker.my_turn().filter(|t| t.turn_number > submitted_turn) {
                        think = Some((Instant::now() + opts.think, t.turn_number));
                    } else {
                        resend_unacked(session, match_id, &tracker, &mut pending, stats).await?;
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
