//! Resuming a match from its stored log (durable matches): the rebuilt match equals
//! the original at the same turn, with the match clock charged only `clock_used_ms`
//! (rule 9.1) and a fresh turn timer (rule 4.6).

use engine::{Match, Mode, RuleSet, Seed};

fn played(seed: Seed, turns: usize) -> Match {
    let mut m = Match::new(RuleSet::default(), Mode::Clash, seed, 0).unwrap();
    for _ in 0..turns {
        let t = m.current_turn().unwrap().clone();
        m.pass(t.seat, t.turn_number, 1_000).unwrap();
    }
    m
}

#[test]
fn resume_rebuilds_the_same_position_and_turn() {
    let seed = Seed([9; 32]);
    let m = played(seed, 10);
    let r = Match::resume(
        RuleSet::default(),
        Mode::Clash,
        seed,
        m.log(),
        60_000,
        5_000_000,
    )
    .unwrap();
    assert_eq!(r.position(), m.position());
    assert_eq!(r.turns_played(), 10);
    assert!(r.log().is_empty(), "stored turns are not logged again");
    let (a, b) = (r.current_turn().unwrap(), m.current_turn().unwrap());
    assert_eq!((a.turn_number, a.seat, &a.dice), (11, b.seat, &b.dice));
    // Rule 9.1: 60 s of the 1,800 s clock were used; downtime is not charged.
    assert_eq!(r.deadline_ms(), 5_000_000 + 1_800_000 - 60_000);
    assert_eq!(r.clock_used_ms(5_000_000), 60_000);
    // Rule 4.6: the turn in progress gets a fresh 30 s turn timer.
    assert_eq!(a.deadline_ms, 5_000_000 + 30_000);
}

#[test]
fn resume_refuses_a_log_of_another_seed() {
    let m = played(Seed([9; 32]), 4);
    let err = Match::resume(
        RuleSet::default(),
        Mode::Clash,
        Seed([8; 32]),
        m.log(),
        0,
        0,
    )
    .unwrap_err();
    assert_eq!(err.turn, Some(1));
}

#[test]
fn resume_with_the_clock_spent_ends_by_clock_at_the_next_expiry() {
    let seed = Seed([3; 32]);
    let m = played(seed, 2);
    let mut r = Match::resume(
        RuleSet::default(),
        Mode::Clash,
        seed,
        m.log(),
        1_800_000,
        10_000,
    )
    .unwrap();
    assert_eq!(r.deadline_ms(), 10_000);
    match r.expire(10_000) {
        Some(engine::Expiry::MatchEnded(end)) => assert_eq!(end.reason, engine::EndReason::Clock),
        other => panic!("expected the clock to end the match, got {other:?}"),
    }
}

#[test]
fn postpone_moves_both_deadlines() {
    let mut m = played(Seed([1; 32]), 1);
    let (turn, clock) = (m.current_turn().unwrap().deadline_ms, m.deadline_ms());
    m.postpone(8_000);
    assert_eq!(m.current_turn().unwrap().deadline_ms, turn + 8_000);
    assert_eq!(m.deadline_ms(), clock + 8_000);
}
