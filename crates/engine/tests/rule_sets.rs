//! RULES.md §10: every number that the seeds do not fix lives in the `RuleSet`. Each
//! test plays one position (or a match) under the default rule set and under one
//! with changed numbers, and checks the exact effect of the change.

use engine::{
    Direction, EndReason, ErrorCode, Expiry, Match, Mode, PieceId, Plan, PlanError, Position,
    RuleSet, Seat, Seed,
};

fn pos(json: &str) -> Position {
    Position::from_json(json).unwrap()
}

/// Rule 6.5 with `blockade_penalty_per_step`: green G1 on ring 20 moves 5 forward into
/// the red pair on ring 23, stops on 22 and loses 3 steps. Journey default 5 per step:
/// combat 10 → −5; with 7 per step: 10 − 21 = −11.
#[test]
fn blockade_penalty_per_step_is_taken_from_the_rule_set() {
    let p = pos(r#"{"mode":"journey","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:20"},"rolls":[5],"combat":10},
        "red":{"pieces":{"G1":"ring:23","G2":"ring:23"}}}}"#);
    let plan = Plan::new(Direction::Forward).mv(PieceId::G1, &[5]);
    let combat = |rules: &RuleSet| p.play(rules, &plan).unwrap().0.seat(Seat::Green).combat;
    assert_eq!(combat(&RuleSet::default()), -5);
    let mut rules = RuleSet::default();
    rules.blockade_penalty_per_step.journey = 7;
    assert_eq!(combat(&rules), -11);
    // The clash number does not apply to a journey match.
    let mut clash_only = RuleSet::default();
    clash_only.blockade_penalty_per_step.clash = 99;
    assert_eq!(combat(&clash_only), -5);
}

/// Rules 8.4, 8.5 with the progress table: a journey guardian reaching its midpoint
/// (green: ring 34) scores `progress.journey.midpoint.guardian`: 50 by default, 77
/// when changed.
#[test]
fn progress_table_is_taken_from_the_rule_set() {
    let p = pos(r#"{"mode":"journey","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:30"},"rolls":[4]}}}"#);
    let plan = Plan::new(Direction::Forward).mv(PieceId::G1, &[4]);
    let progress = |rules: &RuleSet| p.play(rules, &plan).unwrap().0.seat(Seat::Green).progress[0];
    assert_eq!(progress(&RuleSet::default()), 50);
    let mut rules = RuleSet::default();
    rules.progress.journey.midpoint.guardian = 77;
    assert_eq!(progress(&rules), 77);
}

/// Rules 7.3, 7.8, 8.6 with the combat table and `royal_capture_exit_credits`: a
/// green pair (royal in the Yard: the "safe" row) captures red's royal and guardian on
/// ring 22. Default clash safe row 75 + 50 = 125 and red gets 2 exit credits; with
/// the safe row at royal 60 / guardian 40 and 3 credits after a royal capture: 100
/// and 3.
#[test]
fn combat_table_and_royal_capture_credits_are_taken_from_the_rule_set() {
    let p = pos(r#"{"mode":"clash","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:20","G2":"ring:20"},"rolls":[2,2]},
        "red":{"pieces":{"R":"ring:22","G1":"ring:22"},"rolls":[1,2],"exit_credits":3}}}"#);
    let plan = Plan::new(Direction::Forward)
        .mv(PieceId::G1, &[2])
        .mv(PieceId::G2, &[2]);
    let outcome = |rules: &RuleSet| {
        let next = p.play(rules, &plan).unwrap().0;
        (
            next.seat(Seat::Green).combat,
            next.seat(Seat::Red).exit_credits,
        )
    };
    assert_eq!(outcome(&RuleSet::default()), (125, 2));
    let mut rules = RuleSet {
        royal_capture_exit_credits: 3,
        ..RuleSet::default()
    };
    rules.combat.clash.safe.royal = 60;
    rules.combat.clash.safe.guardian = 40;
    assert_eq!(outcome(&rules), (100, 3));
}

/// Rules 8.5, 8.8 with `completion_bonus` and the home points: green's royal reaches
/// Home as green's fifth piece while red holds place 1, so green takes place 2.
/// Default: bonus 300, royal progress 400 + 200. With bonuses [1000, 700, 500, 10]
/// and a royal's home worth 250: bonus 700, progress 650.
#[test]
fn completion_bonus_and_home_points_are_taken_from_the_rule_set() {
    let p = pos(r#"{"mode":"journey","to_move":"green","seats":{
        "green":{"pieces":{"G1":"home","G2":"home","G3":"home","G4":"home","R":"hp:5"},
            "glowing":["G1","G2","G3","G4","R"],"progress":{"R":400}},
        "red":{"pieces":{"G1":"home","G2":"home","G3":"home","G4":"home","R":"home"},
            "glowing":["G1","G2","G3","G4","R"],"finished":1,"bonus":400}}}"#);
    let plan = Plan::new(Direction::Forward).royal(3, false);
    let outcome = |rules: &RuleSet| {
        let next = p.play(rules, &plan).unwrap().0;
        let g = next.seat(Seat::Green);
        (g.finished, g.bonus, g.progress[PieceId::R.index()])
    };
    assert_eq!(outcome(&RuleSet::default()), (Some(2), 300, 600));
    let mut rules = RuleSet {
        completion_bonus: [1000, 700, 500, 10],
        ..RuleSet::default()
    };
    rules.progress.journey.home.royal = 250;
    assert_eq!(outcome(&rules), (Some(2), 700, 650));
}

/// Rule 4.3/4.5 with `royal_max_steps` 3: a royal move of 4 is
/// `royal_steps_out_of_range` (legal by default), 3 is legal.
#[test]
fn royal_max_steps_is_taken_from_the_rule_set() {
    let p =
        pos(r#"{"mode":"clash","to_move":"green","seats":{"green":{"pieces":{"R":"ring:3"}}}}"#);
    let four = Plan::new(Direction::Forward).royal(4, false);
    assert!(p.play(&RuleSet::default(), &four).is_ok());
    let rules = RuleSet {
        royal_max_steps: 3,
        ..RuleSet::default()
    };
    let e = p.play(&rules, &four).unwrap_err();
    assert_eq!(e, PlanError::RoyalStepsOutOfRange { got: 4, max: 3 });
    assert_eq!(e.code(), ErrorCode::RoyalStepsOutOfRange);
    let three = Plan::new(Direction::Forward).royal(3, false);
    let next = p.play(&rules, &three).unwrap().0;
    assert_eq!(
        next.seat(Seat::Green).location(PieceId::R),
        engine::Location::Ring(6)
    );
}

/// Rules 4.1, 4.2, 4.6, 9.1 at the match level with changed numbers: 2 dice per
/// turn, a store of at most 4, no exit credits at the start and at most 1, 5-second
/// turns and a 5-minute match. Every turn rolls 2 dice; stores never pass 4 and
/// credits never pass 1 (and start at 0); each turn's deadline is 5 s after it
/// starts; and the match ends by its clock after 300 s.
#[test]
fn match_numbers_are_taken_from_the_rule_set() {
    let rules = RuleSet {
        dice_per_turn: 2,
        roll_store_cap: 4,
        start_exit_credits: 0,
        exit_credit_cap: 1,
        turn_seconds: 5,
        match_seconds: 300,
        ..RuleSet::default()
    };
    let mut m = Match::new(rules, Mode::Journey, Seed([13; 32]), 1_000).unwrap();
    assert_eq!(m.deadline_ms(), 301_000);
    for s in [Seat::Red, Seat::Blue, Seat::Yellow] {
        assert_eq!(m.position().seat(s).exit_credits, 0, "rule 4.2: {s}");
    }
    let mut now = 1_000;
    let (mut full_store, mut capped_credit, mut turns) = (false, false, 0);
    loop {
        let t = m.current_turn().unwrap().clone();
        assert_eq!(t.dice.len(), 2, "turn {}", t.turn_number);
        assert!(t.roll_store.len() <= 4);
        assert!(t.exit_credits <= 1);
        assert_eq!(t.deadline_ms, (now + 5_000).min(301_000));
        full_store |= t.roll_store.len() == 4 && !t.dropped.is_empty();
        capped_credit |= t.exit_credits == 1 && t.dice.contains(&6) && t.credits_gained == 0;
        turns += 1;
        now = t.deadline_ms;
        match m.expire(now).unwrap() {
            Expiry::TurnTimedOut(_) => {}
            Expiry::MatchEnded(end) => {
                assert_eq!(end.reason, EndReason::Clock);
                assert_eq!(now, 301_000);
                break;
            }
        }
    }
    // Turns start at 1, 6, …, 296 s: the first 59 time out after 5 s; the 60th's
    // deadline is the match's (301 s), where the clock ends the match.
    assert_eq!(turns, 60);
    assert!(full_store, "a store filled at 4 and dropped dice");
    assert!(capped_credit, "a 6 found the credit cap of 1");
}

/// Rule 6.5 on the royal's path (rule 4.3): green's royal on ring 20 moves 5 forward
/// into the red pair on ring 23, stops on 22 and loses 3 steps. Journey default 5 per
/// step: combat −15; with 7 per step: −21 (the royal path reads the rule set too).
#[test]
fn royal_blockade_penalty_is_taken_from_the_rule_set() {
    let p = pos(r#"{"mode":"journey","to_move":"green","seats":{
        "green":{"pieces":{"R":"ring:20"}},
        "red":{"pieces":{"G1":"ring:23","G2":"ring:23"}}}}"#);
    let plan = Plan::new(Direction::Forward).royal(5, false);
    let after = |rules: &RuleSet| {
        let next = p.play(rules, &plan).unwrap().0;
        (
            next.seat(Seat::Green).combat,
            next.seat(Seat::Green).location(PieceId::R),
        )
    };
    assert_eq!(
        after(&RuleSet::default()),
        (-15, engine::Location::Ring(22))
    );
    let mut rules = RuleSet::default();
    rules.blockade_penalty_per_step.journey = 7;
    assert_eq!(after(&rules), (-21, engine::Location::Ring(22)));
}

/// Rule 8.5, the fort row of the progress table: a journey guardian reaching the fort
/// on ring 7 scores `progress.journey.fort.guardian` (20 by default; 33 when changed),
/// and changing the other-entry row does not change it.
#[test]
fn fort_row_of_the_progress_table_is_taken_from_the_rule_set() {
    let p = pos(r#"{"mode":"journey","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:5"},"rolls":[2]}}}"#);
    let plan = Plan::new(Direction::Forward).mv(PieceId::G1, &[2]);
    let progress = |rules: &RuleSet| p.play(rules, &plan).unwrap().0.seat(Seat::Green).progress[0];
    assert_eq!(progress(&RuleSet::default()), 20);
    let mut fort = RuleSet::default();
    fort.progress.journey.fort.guardian = 33;
    assert_eq!(progress(&fort), 33);
    let mut other = RuleSet::default();
    other.progress.journey.other_entry.guardian = 27;
    assert_eq!(progress(&other), 20);
}

/// Rule 8.5, the other-entry row: a journey guardian reaching red's entry (ring 17,
/// not green's midpoint) scores `progress.journey.other_entry.guardian` (20 by default;
/// 27 when changed), and changing the fort row does not change it.
#[test]
fn other_entry_row_of_the_progress_table_is_taken_from_the_rule_set() {
    let p = pos(r#"{"mode":"journey","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:15"},"rolls":[2]}}}"#);
    let plan = Plan::new(Direction::Forward).mv(PieceId::G1, &[2]);
    let progress = |rules: &RuleSet| p.play(rules, &plan).unwrap().0.seat(Seat::Green).progress[0];
    assert_eq!(progress(&RuleSet::default()), 20);
    let mut other = RuleSet::default();
    other.progress.journey.other_entry.guardian = 27;
    assert_eq!(progress(&other), 27);
    let mut fort = RuleSet::default();
    fort.progress.journey.fort.guardian = 33;
    assert_eq!(progress(&fort), 20);
}

/// Rule 10: a match keeps the rule set it was created with (`Match::rules`), not the
/// default one.
#[test]
fn a_match_reports_its_own_rule_set() {
    let rules = RuleSet {
        turn_seconds: 7,
        royal_max_steps: 5,
        ..RuleSet::default()
    };
    let m = Match::new(rules.clone(), Mode::Clash, Seed([1; 32]), 0).unwrap();
    assert_eq!(m.rules(), &rules);
    assert_ne!(m.rules(), &RuleSet::default());
}

/// `RuleSet::check` at every limit it names: `roll_store_cap` 1..=32,
/// `dice_per_turn` 1..=`roll_store_cap`, `royal_max_steps` ≥ 1, positive clocks;
/// the modes' names.
#[test]
fn rule_set_limits_are_checked_at_their_bounds() {
    let ok = |r: RuleSet| r.check().map_err(|e| e.0);
    let d = RuleSet::default;
    assert_eq!(ok(d()), Ok(()));
    let cap = |n: u8| RuleSet {
        roll_store_cap: n,
        dice_per_turn: 1,
        ..d()
    };
    assert_eq!(ok(cap(1)), Ok(()));
    assert_eq!(ok(cap(32)), Ok(()));
    for n in [0, 33] {
        assert_eq!(
            ok(cap(n)),
            Err("roll_store_cap must be 1..=32".into()),
            "{n}"
        );
    }
    let dice = |n: u8| RuleSet {
        roll_store_cap: 9,
        dice_per_turn: n,
        ..d()
    };
    assert_eq!(ok(dice(9)), Ok(()));
    for n in [0, 10] {
        assert_eq!(
            ok(dice(n)),
            Err("dice_per_turn must be 1..=roll_store_cap".into()),
            "{n}"
        );
    }
    assert_eq!(
        ok(RuleSet {
            royal_max_steps: 0,
            ..d()
        }),
        Err("royal_max_steps must be at least 1".into())
    );
    for (m, t) in [(0, 30), (1800, 0)] {
        assert_eq!(
            ok(RuleSet {
                match_seconds: m,
                turn_seconds: t,
                ..d()
            }),
            Err("match_seconds and turn_seconds must be positive".into())
        );
    }
    assert_eq!(
        (engine::Mode::Journey.name(), engine::Mode::Clash.name()),
        ("journey", "clash")
    );
}
