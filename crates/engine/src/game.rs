//! A whole match over time (rules 4.1, 4.2, 4.6, 9.1, 9.2): seeded dice, turns,
//! passes, timeouts, the match clock, standings and the turn log. The engine never
//! reads a clock: every call that depends on time takes `now`, in milliseconds on
//! any clock the caller likes (the same clock for every call of one match).

use crate::board::Seat;
use crate::dice::{BadContributions, Contribution, Dice, DiceScheme, Seed};
use crate::event::Event;
use crate::plan::{ErrorCode, Plan, PlanError};
use crate::position::{Position, Roll};
use crate::rules::{InvalidRuleSet, Mode, RuleSet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TurnKind {
    /// The seat submitted a plan (a pass plan counts as a pass).
    Plan,
    /// The seat passed (rule 4.4).
    Pass,
    /// The turn timer ran out and the server passed (rule 4.6).
    Timeout,
}

/// Rule 4.1: what the start of a turn rolled and granted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TurnStart {
    /// The seat to move.
    pub seat: Seat,
    /// Turn number, 1 for the first turn of the match, +1 per turn.
    pub turn_number: u32,
    /// The dice rolled, in order (`dice_per_turn` values 1..=6).
    pub dice: Vec<u8>,
    /// Rolled values that did not fit in the store and were dropped.
    pub dropped: Vec<u8>,
    /// Exit credits gained from 6s (after the cap).
    pub credits_gained: u32,
    /// The roll store after the roll, oldest first.
    pub roll_store: Vec<u8>,
    /// Exit credits held after the roll.
    pub exit_credits: u32,
    /// When the turn times out (rule 4.6), caller's clock, milliseconds.
    pub deadline_ms: u64,
}

/// One resolved turn, as kept in the log and the replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TurnRecord {
    /// Turn number (1-based).
    pub turn_number: u32,
    /// The seat that moved.
    pub seat: Seat,
    /// Dice rolled at the start of the turn.
    pub dice: Vec<u8>,
    /// How the turn ended.
    pub kind: TurnKind,
    /// The plan resolved (the empty plan for a pass or a timeout).
    pub plan: Plan,
    /// Events of the resolution, in order.
    pub events: Vec<Event>,
}

/// Why a match ended (rule 9.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Every seat finished.
    AllFinished,
    /// The 30-minute match clock ran out.
    Clock,
    /// Server rule (not in RULES.md): every human left the match or was away for the
    /// server's abandon time; the standings are those at that moment.
    Abandoned,
}

/// Rule 9.2: one seat's final (or current) result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Standing {
    /// The seat.
    pub seat: Seat,
    /// Place by total, 1 = best; equal totals share a place (1, 1, 3, 4).
    pub place: u8,
    /// Sum of progress points (rule 8.5).
    pub progress: i64,
    /// Combat points (rule 8.6).
    pub combat: i64,
    /// Completion bonus (rule 8.8).
    pub bonus: i64,
    /// progress + combat + bonus.
    pub total: i64,
    /// Finishing place (rule 8.8), if the seat finished.
    pub finished: Option<u8>,
    /// Server rule (not in RULES.md): the seat's player left the match
    /// ([`Match::leave`]); a seat that left ranks below every seat that stayed.
    #[serde(default)]
    pub left: bool,
}

/// Rule 9.2: standings of a position, best first (ties share a place and are listed
/// in seat order).
pub fn standings(pos: &Position) -> Vec<Standing> {
    standings_with_leavers(pos, &[])
}

/// Rule 9.2 with the server's leaving rule: seats in `left` rank below every seat
/// that stayed (each group by total, best first); equal totals in the same group
/// share a place; ties are listed in seat order.
pub fn standings_with_leavers(pos: &Position, left: &[Seat]) -> Vec<Standing> {
    let mut v: Vec<Standing> = Seat::ALL
        .iter()
        .map(|&seat| {
            let st = pos.seat(seat);
            Standing {
                seat,
                place: 0,
                progress: st.progress_sum(),
                combat: st.combat,
                bonus: st.bonus,
                total: st.total(),
                finished: st.finished,
                left: left.contains(&seat),
            }
        })
        .collect();
    // Stable: ties keep seat order.
    v.sort_by_key(|s| (s.left, std::cmp::Reverse(s.total)));
    for i in 0..v.len() {
        v[i].place = if i > 0 && v[i].total == v[i - 1].total && v[i].left == v[i - 1].left {
            v[i - 1].place
        } else {
            i as u8 + 1
        };
    }
    v
}

/// The end of a match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MatchEnd {
    /// Why it ended.
    pub reason: EndReason,
    /// Final standings (rule 9.2).
    pub standings: Vec<Standing>,
}

/// Why a submission to a [`Match`] was refused. Nothing changes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// `not_your_turn`: the submitting seat is not the seat to move.
    #[error("not_your_turn: it is {to_move}'s turn, not {seat}'s")]
    NotYourTurn {
        /// Who submitted.
        seat: Seat,
        /// Who is to move.
        to_move: Seat,
    },
    /// `stale_turn`: the plan names another turn number than the current one (a late
    /// or repeated submission, or one for a turn not started yet). Checked before the
    /// seat: see [`Match::submit`].
    #[error("stale_turn: the current turn is {current}, the plan is for turn {got}")]
    StaleTurn {
        /// The current turn number.
        current: u32,
        /// The turn number the plan named.
        got: u32,
    },
    /// `match_over`: the match has ended or its clock ran out (rule 9.1).
    #[error("match_over: the match is over")]
    MatchOver,
    /// The plan itself was rejected (rule 4.5).
    #[error(transparent)]
    Plan(#[from] PlanError),
}

impl MatchError {
    /// The stable error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            MatchError::NotYourTurn { .. } => ErrorCode::NotYourTurn,
            MatchError::StaleTurn { .. } => ErrorCode::StaleTurn,
            MatchError::MatchOver => ErrorCode::MatchOver,
            MatchError::Plan(e) => e.code(),
        }
    }
}

/// What one resolved turn produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnOutcome {
    /// The resolved turn (also appended to the log).
    pub record: TurnRecord,
    /// The position right after the resolution, before the next turn's dice are rolled.
    pub position: Position,
    /// The next turn, already rolled, unless the match ended.
    pub next: Option<TurnStart>,
    /// The end of the match, if this turn ended it.
    pub end: Option<MatchEnd>,
}

/// What [`Match::preview`] found for a plan: what submitting it would give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanPreview {
    /// The events the plan would resolve to, in order (as [`TurnRecord::events`]).
    pub events: Vec<Event>,
    /// The position right after the plan (as [`TurnOutcome::position`]).
    pub position: Position,
    /// The legal single-piece moves the plan could still add, in its direction.
    pub moves: Vec<crate::legal::LegalMove>,
}

/// The turn in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Current {
    start: TurnStart,
}

/// A whole match: rule set, seed, dice, position, current turn, clocks and log.
///
/// ```text
/// let mut m = Match::new(RuleSet::default(), Mode::Clash, seed, now)?;  // rolls turn 1
/// m.submit(Seat::Green, 1, &plan, now)?;   // resolves, rolls turn 2
/// m.expire(now)                            // timeouts and the match clock
/// ```
#[derive(Debug, Clone)]
pub struct Match {
    rules: RuleSet,
    seed: Seed,
    dice: Dice,
    /// Which inputs key the dice.
    scheme: DiceScheme,
    /// Scheme `contributed`: the four seats' contributions once sealed
    /// ([`Match::seal`]); `None` before (no turn is rolled until then).
    contributions: Option<Vec<Contribution>>,
    position: Position,
    current: Option<Current>,
    started_ms: u64,
    deadline_ms: u64,
    turn_counter: u32,
    log: Vec<TurnRecord>,
    /// Turns taken out of `log` by [`Match::drain_log`].
    log_base: u32,
    end: Option<MatchEnd>,
    /// Seats whose player left (server rule, see [`Match::leave`]).
    left: Vec<Seat>,
}

impl Match {
    /// Starts a match at `now_ms` (rule 4.2) and rolls the first turn (rule 4.1).
    ///
    /// Errors: [`InvalidRuleSet`] when `rules` fails [`RuleSet::check`].
    pub fn new(
        rules: RuleSet,
        mode: Mode,
        seed: Seed,
        now_ms: u64,
    ) -> Result<Match, InvalidRuleSet> {
        let mut m = Match::unrolled(rules, mode, seed, now_ms, DiceScheme::ServerSeed)?;
        m.begin_turn(now_ms);
        Ok(m)
    }

    /// A match of `scheme` at `now_ms` with no turn rolled yet (rules 4.2, 9.1).
    fn unrolled(
        rules: RuleSet,
        mode: Mode,
        seed: Seed,
        now_ms: u64,
        scheme: DiceScheme,
    ) -> Result<Match, InvalidRuleSet> {
        rules.check()?;
        let position = Position::start(mode, rules.start_exit_credits);
        let deadline_ms = now_ms + rules.match_seconds as u64 * 1000;
        Ok(Match {
            dice: Dice::new(seed),
            scheme,
            contributions: None,
            seed,
            position,
            current: None,
            started_ms: now_ms,
            deadline_ms,
            turn_counter: 0,
            log: Vec::new(),
            log_base: 0,
            end: None,
            left: Vec::new(),
            rules,
        })
    }

    /// Starts a match of scheme [`DiceScheme::Contributed`] at `now_ms` (rule 4.2;
    /// the match clock runs from now) without rolling: no turn is in progress until
    /// [`Match::seal`] gives the four seats' contributions, which key the dice with
    /// the seed ([`crate::dice::contributed_key`]). Meanwhile [`Match::awaiting_contributions`]
    /// is true, submissions are refused (`stale_turn`) and [`Match::expire`] only ends
    /// the match when its clock runs out.
    ///
    /// Errors: [`InvalidRuleSet`] when `rules` fails [`RuleSet::check`].
    pub fn new_contributed(
        rules: RuleSet,
        mode: Mode,
        seed: Seed,
        now_ms: u64,
    ) -> Result<Match, InvalidRuleSet> {
        Match::unrolled(rules, mode, seed, now_ms, DiceScheme::Contributed)
    }

    /// Scheme [`DiceScheme::Contributed`]: records the four seats' contributions (seat
    /// order green, red, blue, yellow), keys the dice with them and the seed, and
    /// rolls the first turn at `now_ms` (rule 4.1; its turn timer starts now).
    ///
    /// Errors (nothing changes): [`SealError::NotAwaiting`] when the match is not of
    /// that scheme, is sealed already or is over; [`SealError::Bad`] for contributions
    /// that are not the four seats in order with valid entropy.
    pub fn seal(&mut self, contributions: Vec<Contribution>, now_ms: u64) -> Result<(), SealError> {
        if !self.awaiting_contributions() {
            return Err(SealError::NotAwaiting);
        }
        self.dice = Dice::contributed(self.seed, &contributions)?;
        self.contributions = Some(contributions);
        self.begin_turn(now_ms);
        Ok(())
    }

    /// True while a match of scheme [`DiceScheme::Contributed`] waits for
    /// [`Match::seal`] (and is not over).
    pub fn awaiting_contributions(&self) -> bool {
        self.scheme == DiceScheme::Contributed && self.contributions.is_none() && self.end.is_none()
    }

    /// Which inputs key the dice.
    pub fn dice_scheme(&self) -> DiceScheme {
        self.scheme
    }

    /// The recorded contributions (scheme `contributed`, once sealed).
    pub fn contributions(&self) -> Option<&[Contribution]> {
        self.contributions.as_deref()
    }

    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }
    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }
    /// The seed (reveal it only once the match has ended).
    pub fn seed(&self) -> Seed {
        self.seed
    }
    /// SHA-256 commitment of the seed (hex), published at the start.
    pub fn commitment(&self) -> String {
        self.seed.commitment()
    }
    /// When the match started, caller's clock, milliseconds.
    pub fn started_ms(&self) -> u64 {
        self.started_ms
    }
    /// When the match clock runs out (rule 9.1), caller's clock, milliseconds.
    pub fn deadline_ms(&self) -> u64 {
        self.deadline_ms
    }
    /// The turn in progress, if the match is running.
    pub fn current_turn(&self) -> Option<&TurnStart> {
        self.current.as_ref().map(|c| &c.start)
    }
    /// Every resolved turn so far.
    pub fn log(&self) -> &[TurnRecord] {
        &self.log
    }
    /// Turns resolved so far (also counting turns taken out with [`Match::drain_log`]).
    pub fn turns_played(&self) -> u32 {
        self.log_base + self.log.len() as u32
    }
    /// Takes the turns logged since the last drain, oldest first. A server that
    /// persists each turn as it resolves drains the log so a long match does not keep
    /// every [`TurnRecord`] in memory (≈ 1.3 KiB per turn); [`crate::replay::replay_of`]
    /// of a drained match lacks the drained turns.
    pub fn drain_log(&mut self) -> Vec<TurnRecord> {
        self.log_base += self.log.len() as u32;
        std::mem::take(&mut self.log)
    }
    /// The end, once the match is over.
    pub fn end(&self) -> Option<&MatchEnd> {
        self.end.as_ref()
    }
    /// True once the match is over.
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }
    /// Current standings (rule 9.2; seats that left rank last, see [`Match::leave`]).
    pub fn standings(&self) -> Vec<Standing> {
        standings_with_leavers(&self.position, &self.left)
    }

    /// Seats whose player left, in the order they left.
    pub fn left(&self) -> &[Seat] {
        &self.left
    }

    /// Server rule (not in RULES.md): the player of `seat` left the match. The seat
    /// plays on (the server gives it to a bot) and ranks below every seat that
    /// stayed in the standings. Leaving twice changes nothing. Returns false when the
    /// seat had left already or the match is over.
    pub fn leave(&mut self, seat: Seat) -> bool {
        if self.end.is_some() || self.left.contains(&seat) {
            return false;
        }
        self.left.push(seat);
        true
    }

    /// Server rule (not in RULES.md): ends the match because every human left or was
    /// away for the server's abandon time; the standings are those of now.
    pub fn end_abandoned(&mut self) -> MatchEnd {
        self.position.set_to_move(None);
        self.finish(EndReason::Abandoned)
    }

    /// Rule 4.1: rolls `dice_per_turn` dice for the seat to move, appends them to its
    /// store up to `roll_store_cap` and grants an exit credit per 6 up to
    /// `exit_credit_cap`.
    fn begin_turn(&mut self, now_ms: u64) {
        let Some(seat) = self.position.to_move() else {
            return;
        };
        self.turn_counter += 1;
        let dice: Vec<u8> = (0..self.rules.dice_per_turn)
            .map(|_| self.dice.roll())
            .collect();
        let Roll {
            dropped,
            credits_gained: gained,
        } = self
            .position
            .apply_roll(&self.rules, &dice)
            .expect("dice_per_turn dice 1..=6 for the seat to move");
        let st = self.position.seat(seat);
        let turn_deadline = now_ms + self.rules.turn_seconds as u64 * 1000;
        let start = TurnStart {
            seat,
            turn_number: self.turn_counter,
            dice,
            dropped,
            credits_gained: gained,
            roll_store: st.rolls.as_slice().to_vec(),
            exit_credits: st.exit_credits,
            deadline_ms: turn_deadline.min(self.deadline_ms),
        };
        self.current = Some(Current { start });
    }

    /// Submits `plan` for `seat` on turn `turn_number` at `now_ms`.
    ///
    /// Errors (nothing changes), the first that applies in this order:
    /// 1. `match_over`: the match has ended, or `now_ms` is at or past the match
    ///    deadline (rule 9.1);
    /// 2. `stale_turn`: `turn_number` is not the current turn's — a late or repeated
    ///    submission is stale whoever sends it, so a seat whose turn has passed hears
    ///    `stale_turn`, not `not_your_turn`;
    /// 3. `not_your_turn`: `seat` is not the seat to move (rule 4.5);
    /// 4. the plan's own error, in rule 4.5's order ([`PlanError`]).
    pub fn submit(
        &mut self,
        seat: Seat,
        turn_number: u32,
        plan: &Plan,
        now_ms: u64,
    ) -> Result<TurnOutcome, MatchError> {
        let cur = self.check_turn(seat, turn_number, now_ms)?;
        let kind = if plan.is_pass() {
            TurnKind::Pass
        } else {
            TurnKind::Plan
        };
        let (pos, events) = self.position.play(&self.rules, plan)?;
        Ok(self.finish_turn(cur, kind, plan.clone(), pos, events, now_ms))
    }

    /// What [`Match::submit`] of the same arguments would do, computed on a copy of
    /// the position and changing nothing: the events and the position right after
    /// the turn (before the next roll), and the [`crate::legal::legal_moves`] the plan
    /// could still add. Errors exactly as [`Match::submit`] (same checks, same order).
    pub fn preview(
        &self,
        seat: Seat,
        turn_number: u32,
        plan: &Plan,
        now_ms: u64,
    ) -> Result<PlanPreview, MatchError> {
        self.check_turn(seat, turn_number, now_ms)?;
        let (position, events) = self.position.play(&self.rules, plan)?;
        let moves = crate::legal::legal_moves(&self.position, &self.rules, plan)?;
        Ok(PlanPreview {
            events,
            position,
            moves,
        })
    }

    /// Rule 4.4: `seat` passes turn `turn_number`. Errors as [`Match::submit`].
    pub fn pass(
        &mut self,
        seat: Seat,
        turn_number: u32,
        now_ms: u64,
    ) -> Result<TurnOutcome, MatchError> {
        self.submit(seat, turn_number, &Plan::pass(), now_ms)
    }

    fn check_turn(
        &self,
        seat: Seat,
        turn_number: u32,
        now_ms: u64,
    ) -> Result<TurnStart, MatchError> {
        let cur = match (
            &self.current,
            self.end.is_some() || now_ms >= self.deadline_ms,
        ) {
            (Some(c), false) => c.start.clone(),
            // No turn is rolled before the contributions are sealed.
            (None, false) if self.awaiting_contributions() => {
                return Err(MatchError::StaleTurn {
                    current: 0,
                    got: turn_number,
                })
            }
            _ => return Err(MatchError::MatchOver),
        };
        // Turn number before seat (documented order of `submit`).
        if turn_number != cur.turn_number {
            return Err(MatchError::StaleTurn {
                current: cur.turn_number,
                got: turn_number,
            });
        }
        if seat != cur.seat {
            return Err(MatchError::NotYourTurn {
                seat,
                to_move: cur.seat,
            });
        }
        Ok(cur)
    }

    fn finish_turn(
        &mut self,
        cur: TurnStart,
        kind: TurnKind,
        plan: Plan,
        pos: Position,
        events: Vec<Event>,
        now_ms: u64,
    ) -> TurnOutcome {
        self.position = pos;
        let position = pos;
        let record = TurnRecord {
            turn_number: cur.turn_number,
            seat: cur.seat,
            dice: cur.dice,
            kind,
            plan,
            events,
        };
        self.log.push(record.clone());
        self.current = None;
        if self.position.to_move().is_none() {
            let end = self.finish(EndReason::AllFinished);
            return TurnOutcome {
                record,
                position,
                next: None,
                end: Some(end),
            };
        }
        self.begin_turn(now_ms);
        TurnOutcome {
            record,
            position,
            next: self.current_turn().cloned(),
            end: None,
        }
    }

    fn finish(&mut self, reason: EndReason) -> MatchEnd {
        self.current = None;
        let end = MatchEnd {
            reason,
            standings: self.standings(),
        };
        self.end = Some(end.clone());
        end
    }

    /// Applies the clocks at `now_ms`: when the match clock has run out the match ends
    /// (rule 9.1, reason `clock`); otherwise, when the turn timer has run out the
    /// server passes the turn (rule 4.6). Returns what happened, or `None`.
    pub fn expire(&mut self, now_ms: u64) -> Option<Expiry> {
        if self.end.is_some() {
            return None;
        }
        if now_ms >= self.deadline_ms {
            return Some(Expiry::MatchEnded(self.end_by_clock()));
        }
        let cur = self.current.as_ref()?.start.clone();
        if now_ms < cur.deadline_ms {
            return None;
        }
        let (pos, events) = self
            .position
            .play(&self.rules, &Plan::pass())
            .expect("a pass is always legal (rule 4.4)");
        Some(Expiry::TurnTimedOut(self.finish_turn(
            cur,
            TurnKind::Timeout,
            Plan::pass(),
            pos,
            events,
            now_ms,
        )))
    }

    /// Rule 9.1: ends the match because its clock ran out (also used by replays).
    pub fn end_by_clock(&mut self) -> MatchEnd {
        self.position.set_to_move(None);
        self.finish(EndReason::Clock)
    }

    /// Resolves the current turn as a timeout pass (rule 4.6) whatever the time; used
    /// when re-playing a log. Errors with `match_over` when no turn is running.
    pub fn force_timeout(&mut self) -> Result<TurnOutcome, MatchError> {
        let cur = self
            .current
            .as_ref()
            .ok_or(MatchError::MatchOver)?
            .start
            .clone();
        let (pos, events) = self.position.play(&self.rules, &Plan::pass())?;
        Ok(self.finish_turn(
            cur,
            TurnKind::Timeout,
            Plan::pass(),
            pos,
            events,
            self.started_ms,
        ))
    }

    /// The earliest time at which [`Match::expire`] will act (turn deadline or match
    /// deadline), or `None` once the match is over.
    pub fn next_deadline(&self) -> Option<u64> {
        if self.end.is_some() {
            return None;
        }
        Some(self.current.as_ref().map_or(self.deadline_ms, |c| {
            c.start.deadline_ms.min(self.deadline_ms)
        }))
    }
}

/// Why [`Match::seal`] refused contributions. Nothing changes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    /// The match does not wait for contributions (server-seed scheme, sealed
    /// already, or over).
    #[error("the match does not wait for dice contributions")]
    NotAwaiting,
    /// The contributions are not the four seats in order with valid entropy.
    #[error(transparent)]
    Bad(#[from] BadContributions),
}

/// What [`Match::expire`] did.
// Returned by value once per expiry and consumed at once, never stored: boxing the
// larger variant would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expiry {
    /// The turn timer ran out: the turn was passed (rule 4.6).
    TurnTimedOut(TurnOutcome),
    /// The match clock ran out (rule 9.1).
    MatchEnded(MatchEnd),
}

/// Resuming a match from its stored log, and moving its clocks (durable matches: a
/// server that restarts, or waits for its store, must not charge that time to the
/// players).
impl Match {
    /// Rebuilds a running match from its seed and turn log, as a server resumes it
    /// after a restart: the match is replayed turn by turn (every die and event is
    /// checked against the log, as [`crate::replay::verify`] does), the match clock
    /// is set so that `clock_used_ms` of it is spent (rule 9.1: the match deadline is
    /// `now_ms + match_seconds·1000 − clock_used_ms`, so time the server was down is
    /// not charged), and the turn in progress gets a fresh turn timer from `now_ms`
    /// (rule 4.6). The returned match's log is empty (the turns are stored already);
    /// [`Match::turns_played`] counts them.
    ///
    /// If the log ends the match (every seat finished) the match is returned ended.
    /// If `clock_used_ms` is at or past the match clock, the next [`Match::expire`]
    /// ends it (reason `clock`).
    ///
    /// Errors: the first [`crate::replay::ReplayMismatch`] between the log and its
    /// re-play (a log that is not this seed's match), or an invalid rule set.
    pub fn resume(
        rules: RuleSet,
        mode: Mode,
        seed: Seed,
        log: &[TurnRecord],
        clock_used_ms: u64,
        now_ms: u64,
    ) -> Result<Match, crate::replay::ReplayMismatch> {
        Match::resume_with(
            rules,
            mode,
            seed,
            DiceScheme::ServerSeed,
            None,
            log,
            clock_used_ms,
            now_ms,
        )
    }

    /// [`Match::resume`] for either dice scheme: `contributions` are the sealed
    /// contributions of a [`DiceScheme::Contributed`] match (`None` while it still
    /// waits for them: the match is returned waiting, and `log` must be empty).
    ///
    /// Errors: as [`Match::resume`] (`contributions` that do not seal, or turns
    /// without them, are a mismatch of field `contributions`).
    #[allow(clippy::too_many_arguments)]
    pub fn resume_with(
        rules: RuleSet,
        mode: Mode,
        seed: Seed,
        scheme: DiceScheme,
        contributions: Option<Vec<Contribution>>,
        log: &[TurnRecord],
        clock_used_ms: u64,
        now_ms: u64,
    ) -> Result<Match, crate::replay::ReplayMismatch> {
        let replay = crate::replay::Replay {
            rules,
            mode,
            dice_commitment: seed.commitment(),
            seed: Some(seed),
            dice_scheme: scheme,
            contributions,
            turns: log.to_vec(),
            left: Vec::new(),
            end: None,
        };
        let mut m = crate::replay::verify(&replay)?;
        // verify() starts the match at 0 ms; move it so that `clock_used_ms` is spent.
        let total = m.rules.match_seconds as u64 * 1000;
        m.deadline_ms = now_ms + total.saturating_sub(clock_used_ms);
        m.started_ms = m.deadline_ms.saturating_sub(total);
        if let Some(c) = m.current.as_mut() {
            let fresh = now_ms + m.rules.turn_seconds as u64 * 1000;
            c.start.deadline_ms = fresh.min(m.deadline_ms.max(now_ms));
        }
        m.drain_log();
        Ok(m)
    }

    /// Postpones the match clock and the turn timer by `delta_ms` (the time the
    /// server could not show the turn: its store was unavailable). No effect once the
    /// match is over.
    pub fn postpone(&mut self, delta_ms: u64) {
        if self.end.is_some() {
            return;
        }
        self.deadline_ms += delta_ms;
        if let Some(c) = self.current.as_mut() {
            c.start.deadline_ms += delta_ms;
        }
    }

    /// Match clock used at `now_ms`, milliseconds (rule 9.1): `match_seconds·1000`
    /// minus the time left until the match deadline (never negative).
    pub fn clock_used_ms(&self, now_ms: u64) -> u64 {
        let total = self.rules.match_seconds as u64 * 1000;
        total.saturating_sub(self.deadline_ms.saturating_sub(now_ms))
    }
}
