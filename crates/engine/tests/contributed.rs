//! Matches of dice scheme `contributed` (issue 31, proto/README.md §10): no turn is
//! rolled before the four seats' contributions are sealed; the dice follow from the
//! seed and the contributions; replays record them and verify; replays of the
//! server-seed scheme still verify and say so.

use engine::replay::{replay_of, verify, Replay};
use engine::{
    Contribution, DiceScheme, Entropy, Match, MatchError, Mode, RuleSet, SealError, Seat, Seed,
};

const SEED: Seed = Seed([42; 32]);

fn player(seat: Seat, byte: u8) -> Contribution {
    Contribution {
        seat,
        entropy: Entropy::from_player_hex(&format!("{byte:02x}").repeat(16)).unwrap(),
        defaulted: false,
    }
}

/// Green and blue contributed `g` and `b`; red and yellow (bots) defaulted.
fn contributions(g: u8, b: u8) -> Vec<Contribution> {
    vec![
        player(Seat::Green, g),
        Contribution::default_for(Seat::Red),
        player(Seat::Blue, b),
        Contribution::default_for(Seat::Yellow),
    ]
}

/// A sealed match passed for `turns` turns: its first `turns` turns' dice.
fn dice_of(c: Vec<Contribution>, turns: usize) -> (Match, Vec<Vec<u8>>) {
    let mut m = Match::new_contributed(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    m.seal(c, 1_000).unwrap();
    let mut dice = Vec::new();
    for _ in 0..turns {
        let t = m.current_turn().unwrap().clone();
        dice.push(t.dice.clone());
        m.pass(t.seat, t.turn_number, 2_000).unwrap();
    }
    (m, dice)
}

#[test]
fn nothing_is_rolled_before_the_seal_and_submissions_are_stale() {
    let mut m = Match::new_contributed(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    assert!(m.awaiting_contributions());
    assert_eq!(m.current_turn(), None);
    assert_eq!(m.dice_scheme(), DiceScheme::Contributed);
    assert_eq!(
        m.pass(Seat::Green, 1, 10).unwrap_err(),
        MatchError::StaleTurn { current: 0, got: 1 }
    );
    assert_eq!(m.expire(10), None, "no turn timer runs before the seal");
    // The first turn's timer starts at the seal (rule 4.6: 30 s).
    m.seal(contributions(1, 2), 3_000).unwrap();
    assert_eq!(m.current_turn().unwrap().deadline_ms, 33_000);
    assert_eq!(m.current_turn().unwrap().turn_number, 1);
    assert_eq!(
        m.seal(contributions(1, 2), 3_000).unwrap_err(),
        SealError::NotAwaiting,
        "sealed once"
    );
}

#[test]
fn a_seal_with_the_seats_out_of_order_is_refused_and_changes_nothing() {
    let mut m = Match::new_contributed(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    let mut c = contributions(1, 2);
    c.swap(0, 1);
    assert!(matches!(m.seal(c, 0), Err(SealError::Bad(_))));
    assert!(m.awaiting_contributions());
    let mut c = contributions(1, 2);
    c[1].entropy = Entropy::from_player_hex(&"07".repeat(16)).unwrap(); // "defaulted" with bytes
    assert!(matches!(m.seal(c, 0), Err(SealError::Bad(_))));
    assert!(m.awaiting_contributions());
    let mut s = Match::new(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    assert_eq!(s.seal(contributions(1, 2), 0), Err(SealError::NotAwaiting));
}

#[test]
fn same_inputs_same_dice_and_another_contribution_other_dice() {
    let (_, a) = dice_of(contributions(1, 2), 40);
    let (_, b) = dice_of(contributions(1, 2), 40);
    assert_eq!(a, b, "same seed and contributions: same dice");
    let (_, c) = dice_of(contributions(1, 3), 40);
    assert_ne!(a, c, "blue's contribution differs: other dice");
    let (_, d) = dice_of(contributions(9, 2), 40);
    assert_ne!(a, d, "green's contribution differs: other dice");
    // Neither equals the server-seed dice of the same seed.
    let mut s = Match::new(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    let mut server = Vec::new();
    for _ in 0..40 {
        let t = s.current_turn().unwrap().clone();
        server.push(t.dice.clone());
        s.pass(t.seat, t.turn_number, 2_000).unwrap();
    }
    assert_ne!(a, server);
}

fn ended_replay(c: Vec<Contribution>) -> Replay {
    let (mut m, _) = dice_of(c, 25);
    m.end_by_clock();
    replay_of(&m)
}

#[test]
fn a_contributed_replay_verifies_and_names_its_scheme() {
    let r = ended_replay(contributions(1, 2));
    assert_eq!(r.dice_scheme, DiceScheme::Contributed);
    assert_eq!(r.contributions.as_deref(), Some(&contributions(1, 2)[..]));
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["dice_scheme"], "contributed");
    assert_eq!(json["contributions"][0]["entropy"], "01".repeat(16));
    assert_eq!(json["contributions"][1]["entropy"], "");
    assert_eq!(json["contributions"][1]["defaulted"], true);
    let back: Replay = serde_json::from_value(json).unwrap();
    let m = verify(&back).unwrap();
    assert_eq!(m.dice_scheme(), DiceScheme::Contributed);
    assert_eq!(m.turns_played(), 25);
}

#[test]
fn a_changed_contribution_fails_verification_at_the_first_die() {
    let mut r = ended_replay(contributions(1, 2));
    r.contributions.as_mut().unwrap()[2] = player(Seat::Blue, 3);
    let e = verify(&r).unwrap_err();
    assert_eq!((e.turn, e.field.as_str()), (Some(1), "dice"));
    // The mismatch shows both values as JSON: the recorded dice and the dice the
    // changed contribution rolls.
    let mut changed = contributions(1, 2);
    changed[2] = player(Seat::Blue, 3);
    let (_, rolled) = dice_of(changed, 1);
    assert_eq!(e.expected, serde_json::to_string(&r.turns[0].dice).unwrap());
    assert_eq!(e.got, serde_json::to_string(&rolled[0]).unwrap());
    assert_ne!(e.expected, e.got);
    // A contribution dropped from the record fails too.
    let mut r = ended_replay(contributions(1, 2));
    r.contributions = None;
    let e = verify(&r).unwrap_err();
    assert_eq!((e.turn, e.field.as_str()), (None, "contributions"));
    // So does the scheme changed to server_seed (the contributions then are extra).
    let mut r = ended_replay(contributions(1, 2));
    r.dice_scheme = DiceScheme::ServerSeed;
    assert_eq!(verify(&r).unwrap_err().field, "contributions");
}

#[test]
fn an_old_server_seed_replay_still_verifies_as_that_scheme() {
    let mut m = Match::new(RuleSet::default(), Mode::Journey, SEED, 0).unwrap();
    for _ in 0..10 {
        let t = m.current_turn().unwrap().clone();
        m.pass(t.seat, t.turn_number, 1).unwrap();
    }
    m.end_by_clock();
    let mut json = serde_json::to_value(replay_of(&m)).unwrap();
    assert_eq!(json["dice_scheme"], "server_seed");
    assert!(json.get("contributions").is_none());
    // A replay served before issue 31 has neither field.
    json.as_object_mut().unwrap().remove("dice_scheme");
    let old: Replay = serde_json::from_value(json).unwrap();
    assert_eq!(old.dice_scheme, DiceScheme::ServerSeed);
    assert_eq!(verify(&old).unwrap().dice_scheme(), DiceScheme::ServerSeed);
}

#[test]
fn resume_of_a_sealed_match_rolls_the_same_dice_and_of_a_waiting_one_waits() {
    let (m, _) = dice_of(contributions(4, 5), 6);
    let log = m.log().to_vec();
    let r = Match::resume_with(
        RuleSet::default(),
        Mode::Clash,
        SEED,
        DiceScheme::Contributed,
        Some(contributions(4, 5)),
        &log,
        10_000,
        50_000,
    )
    .unwrap();
    assert_eq!(
        r.current_turn().unwrap().dice,
        m.current_turn().unwrap().dice
    );
    assert_eq!(r.position(), m.position());
    let w = Match::resume_with(
        RuleSet::default(),
        Mode::Clash,
        SEED,
        DiceScheme::Contributed,
        None,
        &[],
        0,
        50_000,
    )
    .unwrap();
    assert!(w.awaiting_contributions());
    assert_eq!(w.current_turn(), None);
}

#[test]
fn entropy_text_is_checked() {
    use engine::dice::BadEntropy;
    assert_eq!(
        Entropy::from_player_hex("ab").unwrap_err(),
        BadEntropy::TooShort(1)
    );
    assert_eq!(
        Entropy::from_player_hex(&"0".repeat(31)).unwrap_err(),
        BadEntropy::NotHex
    );
    assert_eq!(
        Entropy::from_player_hex(&"zz".repeat(16)).unwrap_err(),
        BadEntropy::NotHex
    );
    assert_eq!(
        Entropy::from_player_hex(&"00".repeat(65)).unwrap_err(),
        BadEntropy::TooLong(65)
    );
    assert_eq!(
        Entropy::from_player_hex(&"AB".repeat(16)).unwrap().to_hex(),
        "ab".repeat(16)
    );
    assert_eq!(
        Entropy::from_player_hex("").unwrap_err(),
        BadEntropy::TooShort(0)
    );
    assert!(Entropy::from_recorded_hex("")
        .unwrap()
        .as_bytes()
        .is_empty());
}

/// A replay whose turn has a changed event names that event's index: the first
/// event that differs (here the second of two exits), not the first event.
#[test]
fn a_changed_event_is_named_by_its_index() {
    let mut m = Match::new(RuleSet::default(), Mode::Clash, SEED, 0).unwrap();
    let t = m.current_turn().unwrap().clone();
    let exits = engine::Plan {
        exits: vec!["G1".into(), "G2".into()],
        ..engine::Plan::default()
    };
    m.submit(t.seat, t.turn_number, &exits, 0).unwrap();
    m.end_by_clock();
    let mut r = replay_of(&m);
    let events = &mut r.turns[0].events;
    assert!(events.len() >= 2, "{events:?}");
    assert_ne!(events[0], events[1]);
    events[1] = events[0].clone();
    let e = verify(&r).unwrap_err();
    assert_eq!((e.turn, e.field.as_str()), (Some(1), "events[1]"));
}
