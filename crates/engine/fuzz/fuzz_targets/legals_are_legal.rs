//! Fuzz target after shakmaty's `legals_are_legal`: for an arbitrary valid position
//! (any mode, any seat to move, pieces anywhere, any roll store and exit credits) and
//! arbitrary plans (any guardian names, roll values, royal steps and direction, or a
//! listed plan changed in one place),
//! `legal::legal_plans` lists the plan's canonical form ⇔ `Position::validate`
//! accepts the plan (rule 4.5); every listed plan validates and plays; the list has
//! no repeat and exactly `count_legal_plans` entries.
#![no_main]

use engine::board::{Direction, Location, PieceId, Seat};
use engine::legal::{count_legal_plans, legal_plans};
use engine::{Mode, Plan, Position, RuleSet, SeatSetup, Setup};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::collections::{BTreeMap, HashSet};

/// Above this many legal plans the input is skipped (the enumeration is checked on
/// small stores; `count_legal_plans` grows as a product of binomials).
const MAX_PLANS: u64 = 4_000;

fn location(u: &mut Unstructured) -> Result<Location> {
    Ok(match u.int_in_range(0u8..=9)? {
        0..=2 => Location::Yard,
        3..=6 => Location::Ring(u.int_in_range(0..=67)?),
        7..=8 => Location::HomePath(u.int_in_range(1..=7)?),
        _ => Location::Home,
    })
}

fn setup(u: &mut Unstructured) -> Result<Setup> {
    let mode = if u.arbitrary()? {
        Mode::Journey
    } else {
        Mode::Clash
    };
    let to_move = Seat::ALL[u.int_in_range(0..=3)?];
    let mut seats = BTreeMap::new();
    for seat in Seat::ALL {
        if !u.arbitrary()? && seat != to_move {
            continue;
        }
        let mut s = SeatSetup::default();
        for p in PieceId::ALL {
            let loc = location(u)?;
            if loc != Location::Yard {
                s.pieces.insert(p, loc);
            }
        }
        if seat == to_move {
            let n = u.int_in_range(0..=6)?;
            for _ in 0..n {
                s.rolls.push(i64::from(u.int_in_range(1u8..=6)?));
            }
            s.exit_credits = i64::from(u.int_in_range(0u8..=3)?);
        }
        seats.insert(seat, s);
    }
    Ok(Setup {
        mode,
        to_move: Some(to_move),
        seats,
    })
}

/// Any plan, valid or not: guardian names include the royal and a non-piece, roll
/// values and royal steps run past their ranges.
fn plan(u: &mut Unstructured) -> Result<Plan> {
    const NAMES: [&str; 6] = ["G1", "G2", "G3", "G4", "R", "G5"];
    let mut p = Plan {
        direction: if u.arbitrary()? {
            Direction::Forward
        } else {
            Direction::Backward
        },
        ..Plan::default()
    };
    for _ in 0..u.int_in_range(0..=3)? {
        p.exits.push(NAMES[u.int_in_range(0..=5)?].to_string());
    }
    for _ in 0..u.int_in_range(0..=3)? {
        let name = NAMES[u.int_in_range(0..=5)?].to_string();
        let rolls = p.moves.entry(name).or_default();
        for _ in 0..u.int_in_range(0..=3)? {
            rolls.push(i64::from(u.int_in_range(0u8..=7)?));
        }
    }
    if u.arbitrary()? {
        p.royal = Some(i64::from(u.int_in_range(0u8..=10)?));
        p.royal_first = u.arbitrary()?;
    }
    Ok(p)
}

/// A listed plan changed in one place: a boundary probe (royal steps ±1 or any, a
/// roll added, dropped or changed, an exit added or dropped, the direction or the
/// royal order flipped). Falls back to [`plan`] when nothing is listed.
fn near(u: &mut Unstructured, listed: &[Plan]) -> Result<Plan> {
    if listed.is_empty() {
        return plan(u);
    }
    let mut p = u.choose(listed)?.clone();
    const NAMES: [&str; 6] = ["G1", "G2", "G3", "G4", "R", "G5"];
    match u.int_in_range(0u8..=7)? {
        0 => p.royal = Some(p.royal.unwrap_or(0) + 1),
        1 => p.royal = p.royal.map(|r| r - 1),
        2 => p.royal = Some(i64::from(u.int_in_range(0u8..=10)?)),
        3 => {
            let name = NAMES[u.int_in_range(0..=5)?].to_string();
            p.moves
                .entry(name)
                .or_default()
                .push(i64::from(u.int_in_range(0u8..=7)?));
        }
        4 => {
            if let Some(rolls) = p.moves.values_mut().next() {
                rolls.pop();
            }
        }
        5 => {
            if let Some(r) = p.moves.values_mut().flat_map(|v| v.iter_mut()).next() {
                *r = i64::from(u.int_in_range(0u8..=7)?);
            }
        }
        6 => {
            if p.exits.is_empty() || u.arbitrary()? {
                p.exits.push(NAMES[u.int_in_range(0..=5)?].to_string());
            } else {
                p.exits.pop();
            }
        }
        _ => {
            if u.arbitrary()? {
                p.royal_first = !p.royal_first;
            } else {
                p.direction = match p.direction {
                    Direction::Forward => Direction::Backward,
                    Direction::Backward => Direction::Forward,
                };
            }
        }
    }
    Ok(p)
}

fn key(p: &Plan) -> String {
    serde_json::to_string(p).expect("a plan serialises")
}

fn check(u: &mut Unstructured) -> Result<()> {
    let Ok(pos) = Position::from_setup(&setup(u)?) else {
        return Ok(());
    };
    let rules = RuleSet::default();
    let count = count_legal_plans(&pos, &rules);
    if count > MAX_PLANS {
        return Ok(());
    }
    let mut legal = HashSet::new();
    let mut listed = Vec::new();
    for p in legal_plans(&pos, &rules) {
        assert_eq!(p, p.canonical(), "rule 4.5: listed plans are canonical");
        if let Err(e) = pos.play(&rules, &p) {
            panic!("rule 4.5: listed plan {} refused: {e}", key(&p));
        }
        assert!(legal.insert(key(&p)), "listed twice: {}", key(&p));
        listed.push(p);
    }
    assert_eq!(legal.len() as u64, count, "count_legal_plans");
    for _ in 0..8 {
        let p = if u.arbitrary()? {
            near(u, &listed)?
        } else {
            plan(u)?
        };
        let accepted = pos.validate(&rules, &p).is_ok();
        let listed = legal.contains(&key(&p.canonical()));
        assert_eq!(
            accepted,
            listed,
            "rule 4.5: plan {} accepted={accepted} listed={listed} in {}",
            key(&p),
            pos.to_json()
        );
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = check(&mut Unstructured::new(data));
});
