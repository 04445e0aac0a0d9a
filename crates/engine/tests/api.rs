//! The engine's public contracts: typed position errors (§11), applying a turn's roll
//! (rule 4.1) and the checked / unchecked split of playing a plan (rule 4.5).

use engine::{
    Direction, ErrorCode, Match, Mode, PieceId, Plan, Position, PositionError, Roll, RollError,
    RuleSet, Seat, Seed,
};

fn pos(json: &str) -> Position {
    Position::from_json(json).unwrap()
}

/// §11: every way a setup can be invalid has its own typed error naming the seat and
/// field, and every one has the stable code `invalid_position`.
#[test]
fn position_errors_are_typed() {
    use engine::Checkpoint;
    let cases: Vec<(&str, PositionError)> = vec![
        (
            r#"{"mode":"clash","to_move":"green","seats":{"red":{"pieces":{"G1":"ring:3"},"glowing":["G1","G1"]}}}"#,
            PositionError::GlowingTwice {
                seat: Seat::Red,
                piece: PieceId::G1,
            },
        ),
        (
            r#"{"mode":"clash","to_move":"green","seats":{"red":{"glowing":["R"]}}}"#,
            PositionError::GlowingInYard {
                seat: Seat::Red,
                piece: PieceId::R,
            },
        ),
        (
            r#"{"mode":"clash","to_move":"green","seats":{"green":{"rolls":[3,7]}}}"#,
            PositionError::NotADieValue {
                seat: Seat::Green,
                value: 7,
            },
        ),
        (
            r#"{"mode":"clash","to_move":"green","seats":{"yellow":{"exit_credits":256}}}"#,
            PositionError::ExitCreditsOutOfRange {
                seat: Seat::Yellow,
                value: 256,
            },
        ),
        (
            r#"{"mode":"journey","to_move":"green","seats":{"green":{"bonus":-1}}}"#,
            PositionError::NegativeBonus {
                seat: Seat::Green,
                value: -1,
            },
        ),
        (
            r#"{"mode":"journey","to_move":"green","seats":{"red":{"progress":{"G3":-5}}}}"#,
            PositionError::NegativeProgress {
                seat: Seat::Red,
                piece: PieceId::G3,
                value: -5,
            },
        ),
        (
            // Rule 8.2: a red piece's own entry is `entry`, never `entry:red`.
            r#"{"mode":"journey","to_move":"green","seats":{"red":{"scored":{"G2":["entry:red"]}}}}"#,
            PositionError::CheckpointNotForSeat {
                seat: Seat::Red,
                piece: PieceId::G2,
                checkpoint: Checkpoint::EntryOf(Seat::Red),
            },
        ),
        (
            r#"{"mode":"journey","to_move":"green","seats":{"red":{"scored":{"G2":["fort:7","fort:7"]}}}}"#,
            PositionError::CheckpointTwice {
                seat: Seat::Red,
                piece: PieceId::G2,
                checkpoint: Checkpoint::Fort(7),
            },
        ),
        (
            r#"{"mode":"journey","to_move":"green","seats":{"red":{"finished":5}}}"#,
            PositionError::PlaceOutOfRange {
                seat: Seat::Red,
                place: 5,
            },
        ),
        (
            r#"{"mode":"journey","to_move":"green","seats":{"red":{"finished":1},"blue":{"finished":1}}}"#,
            PositionError::PlaceTaken {
                seat: Seat::Blue,
                place: 1,
            },
        ),
        (
            r#"{"mode":"journey","to_move":"red","seats":{"red":{"finished":2}}}"#,
            PositionError::ToMoveFinished { seat: Seat::Red },
        ),
    ];
    let too_many = format!(
        r#"{{"mode":"clash","to_move":"green","seats":{{"blue":{{"rolls":{:?}}}}}}}"#,
        [1; 33]
    );
    let cases = cases.into_iter().chain([(
        too_many.as_str(),
        PositionError::TooManyRolls {
            seat: Seat::Blue,
            count: 33,
        },
    )]);
    for (json, want) in cases {
        let got = Position::from_json(json).unwrap_err();
        assert_eq!(got, want, "{json}");
        assert_eq!(got.code(), ErrorCode::InvalidPosition);
        assert!(got.to_string().starts_with("invalid_position: "), "{got}");
    }
    for json in [
        "{",
        r#"{"to_move":"green"}"#,
        r#"{"mode":"clash","seats":{"purple":{}}}"#,
        r#"{"mode":"clash","seats":{"green":{"pieces":{"G1":"ring:68"}}}}"#,
        r#"{"mode":"clash","extra":1}"#,
    ] {
        let got = Position::from_json(json).unwrap_err();
        assert!(matches!(got, PositionError::Json(_)), "{json}: {got:?}");
        assert_eq!(got.code(), ErrorCode::InvalidPosition);
    }
}

/// Rule 4.1 through `Position::apply_roll`: with the default caps (store 9, exit
/// credits 4), a seat holding 8 rolls and 3 credits that rolls [6, 6, 2] keeps the
/// first 6 (store full at 9), drops [6, 2], and gains one credit (3 → 4; the second 6
/// finds the cap). Other seats do not change.
#[test]
fn apply_roll_appends_up_to_the_caps() {
    let rules = RuleSet::default();
    let before = pos(r#"{"mode":"clash","to_move":"blue","seats":{
        "blue":{"rolls":[1,2,3,4,5,1,2,3],"exit_credits":3},
        "green":{"rolls":[4],"exit_credits":1}}}"#);
    let mut p = before;
    let roll = p.apply_roll(&rules, &[6, 6, 2]).unwrap();
    assert_eq!(
        roll,
        Roll {
            dropped: vec![6, 2],
            credits_gained: 1
        }
    );
    let blue = p.seat(Seat::Blue);
    assert_eq!(blue.rolls.as_slice(), [1, 2, 3, 4, 5, 1, 2, 3, 6]);
    assert_eq!(blue.exit_credits, 4);
    for s in [Seat::Green, Seat::Red, Seat::Yellow] {
        assert_eq!(p.seat(s), before.seat(s), "{s} changed");
    }
    assert_eq!(
        p.to_move(),
        Some(Seat::Blue),
        "rolling does not end the turn"
    );
}

/// Rule 4.1: a roll of the wrong number of dice, a die outside 1..=6, or a roll when
/// nobody is to move is refused with its own error and changes nothing.
#[test]
fn apply_roll_refuses_bad_dice_and_changes_nothing() {
    let rules = RuleSet {
        dice_per_turn: 2,
        ..RuleSet::default()
    };
    let before = pos(r#"{"mode":"journey","to_move":"red"}"#);
    let mut p = before;
    assert_eq!(
        p.apply_roll(&rules, &[1, 2, 3]),
        Err(RollError::WrongDiceCount {
            expected: 2,
            got: 3
        })
    );
    assert_eq!(
        p.apply_roll(&rules, &[6, 0]),
        Err(RollError::NotADieValue(0))
    );
    assert_eq!(
        p.apply_roll(&rules, &[7, 6]),
        Err(RollError::NotADieValue(7))
    );
    assert_eq!(p, before);
    let mut over = pos(r#"{"mode":"journey","to_move":null}"#);
    assert_eq!(
        over.apply_roll(&rules, &[6, 6]),
        Err(RollError::NoSeatToMove)
    );
}

/// Rule 4.1: a `Match` starts every turn exactly as `apply_roll` with that turn's
/// dice on the position the previous turn left (store, credits, dropped dice and
/// credits gained all agree), over 80 passed turns that fill stores and credits.
#[test]
fn match_turns_roll_like_apply_roll() {
    let rules = RuleSet::default();
    let mut m = Match::new(rules.clone(), Mode::Journey, Seed([21; 32]), 0).unwrap();
    let mut dropped_some = false;
    for _ in 0..80 {
        let t = m.current_turn().unwrap().clone();
        let out = m.pass(t.seat, t.turn_number, 0).unwrap();
        let next = out.next.unwrap();
        let mut p = out.position;
        let roll = p.apply_roll(&rules, &next.dice).unwrap();
        assert_eq!(&p, m.position());
        assert_eq!(roll.dropped, next.dropped);
        assert_eq!(roll.credits_gained, next.credits_gained);
        dropped_some |= !roll.dropped.is_empty();
    }
    assert!(dropped_some, "80 passes fill some store (cap 9)");
}

/// Rule 4.5, checked and unchecked: `play` equals `validate` + `play_unchecked` on
/// the same position, a `ValidPlan` reports what it checked, and `validate` alone
/// changes nothing.
#[test]
fn validate_then_play_unchecked_equals_play() {
    let rules = RuleSet::default();
    let p = pos(r#"{"mode":"clash","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:10","G2":"ring:10","R":"ring:3"},"rolls":[4,4,1],"exit_credits":1},
        "red":{"pieces":{"G1":"ring:14"}}}}"#);
    let plan = Plan::new(Direction::Forward)
        .exit(PieceId::G3)
        .mv(PieceId::G1, &[4])
        .mv(PieceId::G2, &[4, 1])
        .royal(2, true);
    let vp = p.validate(&rules, &plan).unwrap();
    assert_eq!(vp.seat(), Seat::Green);
    assert_eq!(vp.direction(), Direction::Forward);
    assert!(vp.exits(PieceId::G3) && !vp.exits(PieceId::G1) && !vp.exits(PieceId::R));
    assert_eq!(vp.exit_count(), 1);
    assert_eq!(
        [
            PieceId::G1,
            PieceId::G2,
            PieceId::G3,
            PieceId::G4,
            PieceId::R
        ]
        .map(|g| vp.steps(g)),
        [4, 5, 0, 0, 0]
    );
    assert_eq!(vp.used().as_slice(), [4, 4, 1]);
    assert_eq!((vp.royal(), vp.royal_first()), (Some(2), true));

    let (want, want_events) = p.play(&rules, &plan).unwrap();
    let mut got = p;
    let mut events = Vec::new();
    got.play_unchecked(&rules, &vp, &mut events);
    assert_eq!(got, want);
    assert_eq!(events, want_events);
    assert_eq!(got.seat(Seat::Green).rolls.as_slice(), [] as [u8; 0]);
    assert_eq!(got.to_move(), Some(Seat::Red));
}

/// Rule 4.5 in compact form: `validate_compact` accepts what `validate` accepts with the
/// same `ValidPlan`, refuses with the same error (here `roll_not_in_store` for a second
/// 1, `royal_steps_out_of_range` for 9 > 8), and refuses exit bits that name no
/// guardian (`invalid_plan`). (`properties.rs` compares the two over random play.)
#[test]
fn validate_compact_agrees_with_validate() {
    let rules = RuleSet::default();
    let p = pos(r#"{"mode":"clash","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:10","G2":"ring:10","R":"ring:3"},"rolls":[4,4,1],"exit_credits":1},
        "red":{"pieces":{"G1":"ring:14"}}}}"#);
    let plan = Plan::new(Direction::Backward)
        .exit(PieceId::G3)
        .mv(PieceId::G1, &[4])
        .mv(PieceId::G2, &[4, 1])
        .royal(2, true);
    let compact = p.validate_compact(
        &rules,
        Direction::Backward,
        0b0100,
        [&[4], &[4, 1], &[], &[]],
        Some(2),
        true,
    );
    assert_eq!(compact, p.validate(&rules, &plan));
    assert_eq!(compact.unwrap().steps(PieceId::G2), 5);
    let twice = p.validate_compact(
        &rules,
        Direction::Forward,
        0,
        [&[1], &[1], &[], &[]],
        None,
        false,
    );
    assert_eq!(twice.clone().unwrap_err().code(), ErrorCode::RollNotInStore);
    assert_eq!(
        twice,
        p.validate(
            &rules,
            &Plan::new(Direction::Forward)
                .mv(PieceId::G1, &[1])
                .mv(PieceId::G2, &[1])
        )
    );
    let far = p.validate_compact(&rules, Direction::Forward, 0, [&[]; 4], Some(9), false);
    assert_eq!(far.unwrap_err().code(), ErrorCode::RoyalStepsOutOfRange);
    let bits = p.validate_compact(&rules, Direction::Forward, 0b1_0000, [&[]; 4], None, false);
    assert_eq!(bits.unwrap_err().code(), ErrorCode::InvalidPlan);
}

/// `Plan::canonical`: exits sorted, move lists sorted, `royal_first` dropped without a
/// royal move, direction forward when nothing moves; and a plan resolves exactly like
/// its canonical form (rules 4.3, 5.1, 5.2.1).
#[test]
fn canonical_plans_resolve_like_the_original() {
    let rules = RuleSet::default();
    let p = pos(r#"{"mode":"journey","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:30"},"rolls":[5,1,3],"exit_credits":2}}}"#);
    let plan = Plan::from_json(
        r#"{"direction":"backward","exits":["G4","G2"],"moves":{"G1":[5,1,3]},"royal_first":true}"#,
    )
    .unwrap();
    let c = plan.canonical();
    assert_eq!(
        c,
        Plan::from_json(r#"{"direction":"backward","exits":["G2","G4"],"moves":{"G1":[1,3,5]}}"#)
            .unwrap()
    );
    assert_eq!(p.play(&rules, &plan).unwrap(), p.play(&rules, &c).unwrap());
    let exits_only =
        Plan::from_json(r#"{"direction":"backward","exits":["G3"],"royal_first":true}"#).unwrap();
    assert_eq!(
        exits_only.canonical(),
        Plan::new(Direction::Forward).exit(PieceId::G3)
    );
    assert_eq!(
        p.play(&rules, &exits_only).unwrap(),
        p.play(&rules, &exits_only.canonical()).unwrap()
    );
}
