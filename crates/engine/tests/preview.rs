//! `Match::preview` (the server's `preview_plan`) against `Match::submit`: for
//! random legal plans on the positions of real matches of both modes, the previewed
//! events and standings equal the resolved turn's; bad plans get the same error as a
//! submission; a preview changes nothing. `legal::legal_moves` lists exactly the
//! single-piece moves a plan may still add, each with where the piece ends.

use engine::legal::{legal_moves, random_plan, LegalMove};
use engine::{standings, ErrorCode, Location, Match, Mode, PieceId, Plan, RuleSet, Seat, Seed};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::collections::HashMap;

const T0: u64 = 1_800_000_000_000;
/// Random legal plans checked per mode.
const PLANS_PER_MODE: usize = 1_000;

fn new_match(mode: Mode, n: u8) -> Match {
    Match::new(RuleSet::default(), mode, Seed([n; 32]), T0).unwrap()
}

/// A plan that breaks rule 4.5 in the way `k` picks, for the position of `m`.
fn bad_plan(m: &Match, k: u64, rng: &mut ChaCha20Rng) -> Plan {
    let pos = m.position();
    let seat = pos.to_move().unwrap();
    let st = pos.seat(seat);
    let mut p = random_plan(pos, m.rules(), rng);
    match k % 5 {
        0 => {
            p.moves.insert("G7".into(), vec![1]);
        }
        1 => p.royal = Some(m.rules().royal_max_steps as i64 + 1),
        2 => {
            // One more roll of a value than the store holds.
            let v = (rng.next_u32() % 6 + 1) as i64;
            let held = st.rolls.count(v as u8) as i64;
            let on_board = PieceId::GUARDIANS
                .into_iter()
                .find(|g| st.location(*g).on_board())
                .unwrap_or(PieceId::G1);
            p.moves.insert(
                on_board.name().into(),
                std::iter::repeat_n(v, held as usize + 1).collect(),
            );
        }
        3 => {
            // Exit every guardian, whatever the credits and the Yard say.
            p.exits = PieceId::GUARDIANS.iter().map(|g| g.name().into()).collect();
        }
        _ => {
            p.moves.insert("G2".into(), Vec::new());
        }
    }
    if pos.play(m.rules(), &p).is_ok() {
        // Every guardian in the Yard with the credits for all: legal after all.
        p.moves.insert("G7".into(), vec![1]);
    }
    p
}

#[test]
fn preview_equals_the_resolved_turn_and_changes_nothing() {
    let mut rng = ChaCha20Rng::seed_from_u64(35);
    let mut codes: HashMap<ErrorCode, usize> = HashMap::new();
    for mode in [Mode::Journey, Mode::Clash] {
        let mut checked = 0;
        let mut n = 0u8;
        while checked < PLANS_PER_MODE {
            n += 1;
            let mut m = new_match(mode, n);
            let mut now = T0;
            while !m.is_over() && checked < PLANS_PER_MODE {
                now += 1_000;
                let cur = m.current_turn().unwrap().clone();
                let before = format!("{m:?}");
                let plan = random_plan(m.position(), m.rules(), &mut rng);
                let preview = m.preview(cur.seat, cur.turn_number, &plan, now).unwrap();

                // Bad plans: the preview's error is the submission's, code and text.
                let bad = bad_plan(&m, rng.next_u64(), &mut rng);
                let other = Seat::ALL[(cur.seat.index() + 1) % 4];
                for (seat, turn, p, at) in [
                    (cur.seat, cur.turn_number, &bad, now),
                    (other, cur.turn_number, &plan, now),
                    (cur.seat, cur.turn_number + 1, &plan, now),
                    (cur.seat, cur.turn_number, &plan, m.deadline_ms()),
                ] {
                    let pe = m.preview(seat, turn, p, at).unwrap_err();
                    let se = m.clone().submit(seat, turn, p, at).unwrap_err();
                    assert_eq!(pe, se, "preview and submit refuse {p:?} alike");
                    *codes.entry(pe.code()).or_default() += 1;
                }
                assert_eq!(format!("{m:?}"), before, "a preview changes nothing");

                let out = m.submit(cur.seat, cur.turn_number, &plan, now).unwrap();
                assert_eq!(preview.events, out.record.events, "events of {plan:?}");
                assert_eq!(preview.position, out.position);
                assert_eq!(standings(&preview.position), standings(&out.position));
                checked += 1;
            }
        }
    }
    // Every kind of refusal above was met (rule 4.5 order, then the match's own).
    for code in [
        ErrorCode::UnknownPiece,
        ErrorCode::RoyalStepsOutOfRange,
        ErrorCode::RollNotInStore,
        ErrorCode::NotInYard,
        ErrorCode::NotEnoughExitCredits,
        ErrorCode::EmptyMove,
        ErrorCode::PieceInYard,
        ErrorCode::NotYourTurn,
        ErrorCode::StaleTurn,
        ErrorCode::MatchOver,
    ] {
        assert!(codes.contains_key(&code), "{code:?} met: {codes:?}");
    }
}

/// The plan of `base` with `mv` added.
fn with_move(base: &Plan, mv: &LegalMove) -> Plan {
    let mut p = base.clone();
    if mv.piece == PieceId::R {
        p.royal = Some(mv.steps as i64);
    } else {
        if mv.exit {
            p.exits.push(mv.piece.name().into());
        }
        if !mv.rolls.is_empty() {
            p.moves.insert(
                mv.piece.name().into(),
                mv.rolls.iter().map(|&r| r as i64).collect(),
            );
        }
    }
    p
}

#[test]
fn legal_moves_are_exactly_the_single_piece_additions() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let mut listed = 0usize;
    let mut penalised = 0usize;
    for mode in [Mode::Journey, Mode::Clash] {
        let mut m = new_match(mode, 200);
        let mut now = T0;
        for _ in 0..300 {
            if m.is_over() {
                break;
            }
            now += 1_000;
            let pos = *m.position();
            let rules = m.rules().clone();
            let seat = pos.to_move().unwrap();
            let st = pos.seat(seat);
            // The moves a pass (and a random plan) may still add.
            let base = if rng.next_u32() % 2 == 0 {
                Plan::pass()
            } else {
                random_plan(&pos, &rules, &mut rng)
            };
            let base_total = pos.play(&rules, &base).unwrap().0.seat(seat).total();
            let moves = legal_moves(&pos, &rules, &base).unwrap();
            for mv in &moves {
                let p = with_move(&base, mv);
                let (after, _) = pos.play(&rules, &p).expect("a listed move is legal");
                assert_eq!(after.seat(seat).location(mv.piece), mv.to, "{mv:?}");
                assert_eq!(after.seat(seat).total() - base_total, mv.points, "{mv:?}");
                assert!(!base.moves.contains_key(mv.piece.name()));
                if mv.piece == PieceId::R {
                    assert!(base.royal.is_none() && mv.rolls.is_empty());
                } else {
                    assert_eq!(mv.steps, mv.rolls.iter().sum::<u8>());
                }
                penalised += usize::from(mv.points < 0);
            }
            listed += moves.len();
            // Complete: every legal single guardian move (each sub-multiset of the
            // store, with an exit when in the Yard) and royal step is listed by its
            // step count, and nothing is listed twice.
            let mut keys: Vec<(PieceId, bool, u8)> =
                moves.iter().map(|m| (m.piece, m.exit, m.steps)).collect();
            let n = keys.len();
            keys.sort();
            keys.dedup();
            assert_eq!(keys.len(), n, "each (piece, exit, steps) once");
            let rolls = st.rolls.as_slice();
            for g in PieceId::GUARDIANS {
                if base.moves.contains_key(g.name()) {
                    continue;
                }
                for mask in 1u32..(1 << rolls.len()) {
                    let used: Vec<u8> = (0..rolls.len())
                        .filter(|i| mask & (1 << i) != 0)
                        .map(|i| rolls[i])
                        .collect();
                    let exit = st.location(g) == Location::Yard
                        && !base.exits.iter().any(|e| e == g.name());
                    let mv = LegalMove {
                        piece: g,
                        exit,
                        rolls: used.clone(),
                        steps: used.iter().sum(),
                        to: Location::Yard,
                        points: 0,
                    };
                    if pos.play(&rules, &with_move(&base, &mv)).is_ok() {
                        assert!(
                            keys.binary_search(&(g, exit, mv.steps)).is_ok(),
                            "{g} by {used:?} (exit {exit}) listed, base {base:?}"
                        );
                    }
                }
            }
            let out = m.submit(
                seat,
                m.current_turn().unwrap().turn_number,
                &random_plan(&pos, &rules, &mut rng),
                now,
            );
            out.unwrap();
        }
    }
    assert!(listed > 1_000, "moves were listed: {listed}");
    assert!(
        penalised > 0,
        "some listed moves cost points (rule 6): {penalised}"
    );
}

/// Rules 4.3, 3.5, 8.5: with the royal on the ring and not moved by the plan,
/// `legal_moves` lists the royal by every step count 1..=`royal_max_steps` (8), each
/// with where it ends and what it scores. Green's royal on ring 2, forward, nothing
/// else on the board: by `s` steps it ends on ring `2 + s`; from 5 steps on it reaches
/// the fort on ring 7 and scores the royal's fort points, 40. A royal at Home
/// (rule 3.5) is never listed.
#[test]
fn legal_moves_list_the_royal_by_each_step_count() {
    let rules = RuleSet::default();
    let pos = engine::Position::from_json(
        r#"{"mode":"clash","to_move":"green","seats":{"green":{"pieces":{"R":"ring:2"}}}}"#,
    )
    .unwrap();
    let want: Vec<LegalMove> = (1..=8u8)
        .map(|s| LegalMove {
            piece: PieceId::R,
            exit: false,
            rolls: Vec::new(),
            steps: s,
            to: Location::Ring(2 + s),
            points: if s >= 5 { 40 } else { 0 },
        })
        .collect();
    assert_eq!(legal_moves(&pos, &rules, &Plan::pass()).unwrap(), want);

    let home = engine::Position::from_json(
        r#"{"mode":"clash","to_move":"green","seats":{"green":{"pieces":{"R":"home"}}}}"#,
    )
    .unwrap();
    assert_eq!(legal_moves(&home, &rules, &Plan::pass()).unwrap(), []);
}
