//! Resolution speed: typical mid-game plans (rules §4–§8).
//!
//! Builds 100 mid-game positions by random legal play (30–150 turns into matches
//! with fixed seeds, both modes), each with a random legal plan that moves at least
//! one piece, then measures per batch of 100 plans:
//! * `validate+play_unchecked`: `Position::validate` + `Position::play_unchecked` into
//!   one reused event buffer (the bots' hot path);
//! * `play`: `Position::play` (validation, copy, fresh event `Vec`);
//! * `validate`: rule 4.5 checks alone.
//!
//! Throughput is reported in plans per second (criterion "elem/s").
//! Run: `cargo bench -p engine --bench resolve -- --warm-up-time 1 --measurement-time 3`.

use criterion::{criterion_main, Criterion, Throughput};
use engine::legal::random_plan;
use engine::{Event, Match, Mode, Plan, Position, RuleSet, Seed};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

const POSITIONS: usize = 100;

/// `POSITIONS` (position, plan) pairs from random play; every plan is legal and not
/// a pass.
fn mid_game_cases(rules: &RuleSet) -> Vec<(Position, Plan)> {
    let mut cases = Vec::with_capacity(POSITIONS);
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let mut i = 0u8;
    while cases.len() < POSITIONS {
        i = i.wrapping_add(1);
        let mode = if i & 1 == 0 {
            Mode::Journey
        } else {
            Mode::Clash
        };
        let mut m = Match::new(rules.clone(), mode, Seed([i; 32]), 0).expect("default rules");
        let turns = 30 + rng.next_u32() % 120;
        for _ in 0..turns {
            let Some(cur) = m.current_turn().cloned() else {
                break;
            };
            let plan = random_plan(m.position(), rules, &mut rng);
            m.submit(cur.seat, cur.turn_number, &plan, 0)
                .expect("legal plan");
        }
        let pos = *m.position();
        if pos.to_move().is_none() {
            continue;
        }
        // A plan that does something: the first non-pass of a few draws.
        if let Some(plan) = (0..20)
            .map(|_| random_plan(&pos, rules, &mut rng))
            .find(|p| !p.moves.is_empty() || p.royal.is_some())
        {
            cases.push((pos, plan));
        }
    }
    cases
}

fn bench_resolve(c: &mut Criterion) {
    let rules = RuleSet::default();
    let cases = mid_game_cases(&rules);
    let (mut moves, mut rolls, mut events) = (0, 0, 0);
    for (pos, plan) in &cases {
        moves += plan.moves.len();
        rolls += plan.moves.values().map(Vec::len).sum::<usize>();
        events += pos.play(&rules, plan).expect("legal plan").1.len();
    }
    eprintln!(
        "{} mid-game plans: {:.1} guardians moved, {:.1} rolls used, {:.1} events per plan",
        cases.len(),
        moves as f64 / cases.len() as f64,
        rolls as f64 / cases.len() as f64,
        events as f64 / cases.len() as f64
    );
    let mut g = c.benchmark_group("resolve_mid_game");
    g.throughput(Throughput::Elements(cases.len() as u64));

    let mut events: Vec<Event> = Vec::with_capacity(64);
    g.bench_function("validate+play_unchecked", |b| {
        b.iter(|| {
            for (pos, plan) in &cases {
                let vp = pos.validate(&rules, plan).expect("legal plan");
                let mut next = *pos;
                events.clear();
                next.play_unchecked(&rules, &vp, &mut events);
                black_box(&next);
            }
            black_box(events.len())
        })
    });
    g.bench_function("play", |b| {
        b.iter(|| {
            for (pos, plan) in &cases {
                black_box(pos.play(&rules, plan).expect("legal plan"));
            }
        })
    });
    g.bench_function("validate", |b| {
        b.iter(|| {
            for (pos, plan) in &cases {
                black_box(pos.validate(&rules, plan).expect("legal plan"));
            }
        })
    });
    g.finish();
}

/// The benchmark group run by `criterion_main!`.
// `criterion_group!` defines an undocumented `pub fn benches`.
#[allow(missing_docs, unreachable_pub)]
mod group {
    criterion::criterion_group!(benches, super::bench_resolve);
}
criterion_main!(group::benches);
