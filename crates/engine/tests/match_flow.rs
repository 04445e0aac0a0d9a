//! A match over time (rules 4.1, 4.2, 4.6, 4.7, 9.1, 9.2): rolling, caps, turn
//! timeouts, the match clock, standings and the submission checks of [`Match`].

use engine::{
    standings, EndReason, ErrorCode, Expiry, Match, MatchError, Mode, Plan, Position, RuleSet,
    Seat, Seed, TurnKind,
};

const SEED: Seed = Seed([5; 32]);

/// Rules 4.1, 4.2: every seat starts with 2 exit credits and an empty store; turn 1
/// rolls 3 dice for green, puts them in its store and grants a credit per 6; the turn
/// deadline is 30 s later.
#[test]
fn start_and_first_roll() {
    let m = Match::new(RuleSet::default(), Mode::Journey, SEED, 1_000).unwrap();
    let t = m.current_turn().unwrap();
    assert_eq!((t.seat, t.turn_number), (Seat::Green, 1));
    assert_eq!(t.dice.len(), 3);
    assert_eq!(t.roll_store, t.dice);
    let sixes = t.dice.iter().filter(|&&d| d == 6).count() as u32;
    assert_eq!(t.credits_gained, sixes);
    assert_eq!(t.exit_credits, 2 + sixes);
    assert_eq!(t.deadline_ms, 31_000);
    assert_eq!(m.deadline_ms(), 1_000 + 1_800_000);
    assert_eq!(m.started_ms(), 1_000, "the match clock runs from the start");
    assert_eq!(m.commitment(), SEED.commitment());
    for s in [Seat::Red, Seat::Blue, Seat::Yellow] {
        let st = m.position().seat(s);
        assert_eq!((st.exit_credits, st.rolls.len()), (2, 0));
    }
}

/// Rule 4.1: a store keeps at most `roll_store_cap` (9) rolls — the rest are dropped
/// and reported — and 6s grant exit credits only up to `exit_credit_cap` (4).
#[test]
fn store_and_credit_caps_when_always_passing() {
    let mut m = Match::new(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    let mut dropped_any = false;
    for _ in 0..40 {
        let t = m.current_turn().unwrap().clone();
        m.pass(t.seat, t.turn_number, 0).unwrap();
        let next = m.current_turn().unwrap().clone();
        let after = m.position().seat(next.seat);
        // What fits is appended in order, the rest is dropped.
        let kept = next.dice.len() - next.dropped.len();
        let held_before = after.rolls.len() - kept;
        assert!(after.rolls.len() <= 9);
        assert_eq!(&after.rolls.as_slice()[held_before..], &next.dice[..kept]);
        assert_eq!(next.dropped, next.dice[kept..]);
        if !next.dropped.is_empty() {
            assert_eq!(after.rolls.len(), 9);
            dropped_any = true;
        }
        assert!(after.exit_credits <= 4);
        assert_eq!(next.roll_store, after.rolls.as_slice());
    }
    assert!(
        dropped_any,
        "after 10 passes per seat some roll must be dropped"
    );
}

/// Rule 4.1 credit arithmetic over a whole sequence of passes: credits after a roll =
/// min(credits before + sixes, 4) (credits only come from 6s while passing).
#[test]
fn exit_credits_follow_sixes_up_to_the_cap() {
    let mut m = Match::new(RuleSet::default(), Mode::Journey, Seed([77; 32]), 0).unwrap();
    let mut credits = [2u32; 4];
    let first = m.current_turn().unwrap().clone();
    let sixes = |d: &[u8]| d.iter().filter(|&&x| x == 6).count() as u32;
    credits[0] = (2 + sixes(&first.dice)).min(4);
    assert_eq!(first.exit_credits, credits[0]);
    for _ in 0..60 {
        let t = m.current_turn().unwrap().clone();
        let out = m.pass(t.seat, t.turn_number, 0).unwrap();
        let next = out.next.unwrap();
        let i = next.seat.index();
        let want = (credits[i] + sixes(&next.dice)).min(4);
        assert_eq!(next.credits_gained, want - credits[i]);
        assert_eq!(next.exit_credits, want);
        credits[i] = want;
    }
}

/// Rules 4.3–4.5 at the match level: the wrong seat gets `not_your_turn`, an old turn
/// number `stale_turn`, a bad plan its own code; none of them changes anything.
#[test]
fn refused_submissions_change_nothing() {
    let mut m = Match::new(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    let pos = *m.position();
    let t = m.current_turn().unwrap().clone();
    let e = m.pass(Seat::Red, 1, 0).unwrap_err();
    assert!(matches!(
        e,
        MatchError::NotYourTurn {
            seat: Seat::Red,
            to_move: Seat::Green
        }
    ));
    assert_eq!(e.code(), ErrorCode::NotYourTurn);
    assert_eq!(
        m.pass(Seat::Green, 2, 0).unwrap_err().code(),
        ErrorCode::StaleTurn
    );
    let bad = Plan::from_json(r#"{"moves":{"G1":[1]}}"#).unwrap();
    assert_eq!(
        m.submit(Seat::Green, 1, &bad, 0).unwrap_err().code(),
        ErrorCode::PieceInYard
    );
    assert_eq!(*m.position(), pos);
    assert_eq!(m.current_turn(), Some(&t));
    assert!(m.log().is_empty());
}

/// Submission precedence (`Match::submit`, proto/README.md §5): the turn number is
/// checked before the seat. Once green's turn 1 is resolved and red's turn 2 runs, a
/// late or repeated green submission for turn 1 is `stale_turn` (not `not_your_turn`);
/// so is anyone's plan for a turn that has not started; a wrong seat with the current
/// turn number is `not_your_turn`; and a stale plan that is also illegal (rule 4.5)
/// is still `stale_turn`. None of them changes anything.
#[test]
fn late_or_repeated_submission_is_stale_before_the_seat_is_checked() {
    let mut m = Match::new(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    m.pass(Seat::Green, 1, 0).unwrap();
    let pos = *m.position();
    let t = m.current_turn().unwrap().clone();
    assert_eq!((t.seat, t.turn_number), (Seat::Red, 2));

    let late = m.pass(Seat::Green, 1, 0).unwrap_err();
    assert_eq!(late, MatchError::StaleTurn { current: 2, got: 1 });
    assert_eq!(late.code(), ErrorCode::StaleTurn);
    let illegal = Plan::from_json(r#"{"moves":{"G1":[1]}}"#).unwrap();
    assert_eq!(
        m.submit(Seat::Green, 1, &illegal, 0).unwrap_err(),
        MatchError::StaleTurn { current: 2, got: 1 }
    );
    assert_eq!(
        m.pass(Seat::Blue, 3, 0).unwrap_err(),
        MatchError::StaleTurn { current: 2, got: 3 }
    );
    assert_eq!(
        m.pass(Seat::Blue, 2, 0).unwrap_err(),
        MatchError::NotYourTurn {
            seat: Seat::Blue,
            to_move: Seat::Red
        }
    );
    assert_eq!(*m.position(), pos);
    assert_eq!(m.current_turn(), Some(&t));
    assert_eq!(m.turns_played(), 1);
}

/// Rule 4.6: before the turn deadline `expire` does nothing; at it the server passes
/// the turn (kind `timeout`) and the next seat rolls.
#[test]
fn turn_timeout_passes() {
    let mut m = Match::new(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    let deadline = m.current_turn().unwrap().deadline_ms;
    assert_eq!(m.next_deadline(), Some(deadline));
    assert!(m.expire(deadline - 1).is_none());
    let Some(Expiry::TurnTimedOut(out)) = m.expire(deadline) else {
        panic!("no timeout at the deadline")
    };
    assert_eq!(out.record.kind, TurnKind::Timeout);
    assert_eq!(out.record.plan, Plan::pass());
    assert_eq!(out.next.as_ref().unwrap().seat, Seat::Red);
    assert_eq!(out.next.unwrap().deadline_ms, deadline + 30_000);
}

/// Rule 9.1: when the 30-minute clock runs out the match ends (reason `clock`), and a
/// plan that arrives at or after that moment is rejected with `match_over`.
#[test]
fn match_clock_ends_the_match() {
    let mut m = Match::new(RuleSet::default(), Mode::Journey, SEED, 0).unwrap();
    let end_ms = m.deadline_ms();
    assert_eq!(end_ms, 1_800_000);
    let t = m.current_turn().unwrap().clone();
    assert_eq!(
        m.pass(t.seat, t.turn_number, end_ms).unwrap_err().code(),
        ErrorCode::MatchOver
    );
    let Some(Expiry::MatchEnded(end)) = m.expire(end_ms) else {
        panic!("the clock did not end the match")
    };
    assert_eq!(end.reason, EndReason::Clock);
    assert!(m.is_over());
    assert_eq!(m.position().to_move(), None);
    assert_eq!(m.next_deadline(), None);
    assert!(m.expire(end_ms + 1).is_none());
    assert_eq!(
        m.pass(t.seat, t.turn_number, 0).unwrap_err().code(),
        ErrorCode::MatchOver
    );
}

/// Rule 9.2: places by total points, highest first; equal totals share a place and
/// the next place is skipped (1, 2, 2, 4).
#[test]
fn standings_share_places_on_equal_totals() {
    let pos = Position::from_json(
        r#"{"mode":"journey","to_move":"green","seats":{
            "green":{"pieces":{"G1":"ring:20"},"progress":{"G1":60},"combat":40},
            "red":{"pieces":{"R":"ring:30"},"progress":{"R":120},"combat":-20},
            "blue":{"combat":50},
            "yellow":{"pieces":{"G2":"home"},"glowing":["G2"],"progress":{"G2":300},"combat":-100}}}"#,
    )
    .unwrap();
    let s = standings(&pos);
    let got: Vec<(Seat, u8, i64)> = s.iter().map(|x| (x.seat, x.place, x.total)).collect();
    assert_eq!(
        got,
        [
            (Seat::Yellow, 1, 200),
            (Seat::Green, 2, 100),
            (Seat::Red, 2, 100),
            (Seat::Blue, 4, 50)
        ]
    );
    assert_eq!((s[0].progress, s[0].combat, s[0].bonus), (300, -100, 0));
}

/// Server leaving rule (`Match::leave`): a seat leaves once. Leaving again changes
/// nothing and answers false; the seat is listed once and ranks last once; after the
/// match ends nobody can leave.
#[test]
fn a_seat_leaves_once() {
    let mut m = Match::new(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    assert!(m.leave(Seat::Red));
    assert!(!m.leave(Seat::Red));
    assert_eq!(m.left(), &[Seat::Red]);
    let st = m.standings();
    assert_eq!(st.iter().filter(|s| s.left).count(), 1);
    assert_eq!(st.last().map(|s| (s.seat, s.left)), Some((Seat::Red, true)));
    // Everyone is at 0 points: the three who stayed share place 1, the leaver is 4th
    // (a tie on points does not lift a seat that left to the stayers' place).
    let places: Vec<u8> = st.iter().map(|s| s.place).collect();
    assert_eq!(places, [1, 1, 1, 4]);
    assert_eq!(m.started_ms(), 0);
    m.end_abandoned();
    assert!(!m.leave(Seat::Blue));
    assert_eq!(m.left(), &[Seat::Red]);
}

/// Rule 4.4: `Plan::is_pass` holds only for the plan with no exits, no moves and
/// no royal; a turn submitted as the pass is recorded as kind `pass`, one with an
/// exit (rule 4.3) as kind `plan`.
#[test]
fn a_turns_kind_follows_its_plan() {
    let exit = Plan {
        exits: vec!["G1".into()],
        ..Plan::default()
    };
    let moves = Plan {
        moves: [("G1".to_string(), vec![6])].into(),
        ..Plan::default()
    };
    let royal = Plan {
        royal: Some(2),
        ..Plan::default()
    };
    assert!(Plan::pass().is_pass());
    for p in [&exit, &moves, &royal] {
        assert!(!p.is_pass(), "{p:?}");
    }
    let mut m = Match::new(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    let t = m.current_turn().unwrap().clone();
    let out = m.submit(t.seat, t.turn_number, &exit, 0).unwrap();
    assert_eq!(out.record.kind, TurnKind::Plan);
    let t = m.current_turn().unwrap().clone();
    let out = m.submit(t.seat, t.turn_number, &Plan::pass(), 0).unwrap();
    assert_eq!(out.record.kind, TurnKind::Pass);
}

/// Rule 4.5 (`roll_not_in_store`): a plan using a roll value more often than the
/// store holds it is refused, naming the value, how often the whole plan uses it
/// and how often the store holds it.
#[test]
fn roll_not_in_store_counts_the_plans_uses() {
    let mut m = Match::new(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    let t = m.current_turn().unwrap().clone();
    let v = t.roll_store[0];
    let held = t.roll_store.iter().filter(|&&d| d == v).count();
    let uses = held + 2;
    let plan = Plan {
        exits: vec!["G1".into(), "G2".into()],
        moves: [
            ("G1".to_string(), vec![i64::from(v); uses - 1]),
            ("G2".to_string(), vec![i64::from(v)]),
        ]
        .into(),
        ..Plan::default()
    };
    assert_eq!(
        m.submit(t.seat, t.turn_number, &plan, 0).unwrap_err(),
        MatchError::Plan(engine::PlanError::RollNotInStore {
            value: i64::from(v),
            used: uses,
            held,
        })
    );
}
