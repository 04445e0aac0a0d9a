//! `cargo bench -p bot`: time of one `choose` call on mid-game positions (turns 120,
//! 200 and 280 of a seeded match between greedy and random bots).

use bot::{GreedyBot, RandomBot, Strategy};
use criterion::{criterion_group, criterion_main, Criterion};
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
    let pos = mid_game(Mode::Clash, 5, 200);
    let mut bot = RandomBot::new(9);
    c.bench_function("random choose clash turn 200", |b| {
        b.iter(|| bot.choose(std::hint::black_box(&pos), &rules))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
