//! `cargo bench -p bot`: time of one `choose` call (greedy, expert, random) on mid-game positions (turns 120,
//! 200 and 280 of a seeded match between greedy and random bots) and on a busy
//! hand-made position (a full roll store, every guardian out).

use bot::{ExpertBot, GreedyBot, RandomBot, Strategy};
use criterion::{criterion_main, Criterion};
use engine::game::Match;
use engine::{Mode, Position, RuleSet, Seed};

/// The position after `turns` turns of a match of greedy (green, blue) against random
/// (red, yellow) bots, dice seed `[seed; 32]`.
fn mid_game(mode: Mode, seed: u8, turns: u32) -> Position {
    let rules = RuleSet::default();
    let mut m = Match::new(rules.clone(), mode, Seed([seed; 32]), 0).unwrap();
    let mut bots: Vec<Box<dyn Strategy>> = vec![
        Box::new(GreedyBot::new(1)),
        Box::new(RandomBot::new(2)),
        Box::new(GreedyBot::new(3)),
        Box::new(RandomBot::new(4)),
    ];
    for _ in 0..turns {
        let cur = m.current_turn().unwrap().clone();
        let plan = bots[cur.seat.index()].choose(m.position(), &rules);
        m.submit(cur.seat, cur.turn_number, &plan, 0).unwrap();
    }
    *m.position()
}

fn bench(c: &mut Criterion) {
    let rules = RuleSet::default();
    for mode in [Mode::Clash, Mode::Journey] {
        for turns in [120, 200, 280] {
            let pos = mid_game(mode, 5, turns);
            let mut bot = GreedyBot::new(9);
            c.bench_function(
                &format!("greedy choose {} turn {turns}", mode.name()),
                |b| b.iter(|| bot.choose(std::hint::black_box(&pos), &rules)),
            );
        }
    }
    // A busy position: four guardians on four tiles, the royal out, a full store of
    // nine rolls with many distinct subset sums, opponents spread over the ring.
    let busy = Position::from_json(
        r#"{"mode":"clash","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:3","G2":"ring:20","G3":"ring:33","G4":"ring:50","R":"ring:7"},
                 "glowing":["G4"],"rolls":[1,2,3,4,5,6,2,3,5],"exit_credits":2},
        "red":{"pieces":{"G1":"ring:10","G2":"ring:10","G3":"ring:25","R":"ring:29"},"rolls":[6,6]},
        "blue":{"pieces":{"G1":"ring:40","G2":"ring:44","R":"ring:34"},"exit_credits":2},
        "yellow":{"pieces":{"G1":"ring:55","G2":"ring:60","G3":"ring:60","G4":"ring:1"},"rolls":[3]}}}"#,
    )
    .unwrap();
    let mut bot = GreedyBot::new(9);
    c.bench_function("greedy choose busy (9 rolls, 4 guardians out)", |b| {
        b.iter(|| bot.choose(std::hint::black_box(&busy), &rules))
    });
    // The expert with its default node budgets (16 000 plans in clash, 32 000 in
    // journey), no wall-clock budget.
    {
        let mut g = c.benchmark_group("expert");
        g.sample_size(20);
        for mode in [Mode::Clash, Mode::Journey] {
            for turns in [120, 200] {
                let pos = mid_game(mode, 5, turns);
                let mut bot = ExpertBot::new(9);
                g.bench_function(format!("expert choose {} turn {turns}", mode.name()), |b| {
                    b.iter(|| bot.choose(std::hint::black_box(&pos), &rules))
                });
            }
        }
        g.finish();
    }
    let pos = mid_game(Mode::Clash, 5, 200);
    let mut bot = RandomBot::new(9);
    c.bench_function("random choose clash turn 200", |b| {
        b.iter(|| bot.choose(std::hint::black_box(&pos), &rules))
    });
}

/// The benchmark group run by `criterion_main!`.
// `criterion_group!` defines an undocumented `pub fn benches`.
#[allow(missing_docs, unreachable_pub)]
mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion_main!(group::benches);
