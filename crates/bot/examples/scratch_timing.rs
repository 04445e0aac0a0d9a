use bot::{GreedyBot, RandomBot, Strategy};
use engine::game::Match;
use engine::{Mode, RuleSet, Seed};
use std::time::Instant;
fn main() {
    let rules = RuleSet::default();
    let mut rows = vec![];
    for mode in [Mode::Clash, Mode::Journey] {
        for seed in 0..6u8 {
            let mut m = Match::new(rules.clone(), mode, Seed([seed; 32]), 0).unwrap();
            let mut g = [
                GreedyBot::new(1),
                GreedyBot::new(2),
                GreedyBot::new(3),
                GreedyBot::new(4),
            ];
            let mut r = RandomBot::new(5);
            for turn in 0..400 {
                let Some(cur) = m.current_turn().cloned() else {
                    break;
                };
                let i = cur.seat.index();
                let plan = if i % 2 == 0 || seed % 2 == 0 {
                    let t = Instant::now();
                    let (p, ev) = g[i].choose_counted(m.position(), &rules);
                    let us = t.elapsed().as_micros();
                    rows.push((us, ev, turn, m.position().seat(cur.seat).rolls.len()));
                    p
                } else {
                    r.choose(m.position(), &rules)
                };
                m.submit(cur.seat, cur.turn_number, &plan, 0).unwrap();
            }
        }
    }
    rows.sort();
    let n = rows.len();
    println!(
        "n={n} p50={:?} p90={:?} p99={:?} max={:?}",
        rows[n / 2],
        rows[n * 9 / 10],
        rows[n * 99 / 100],
        rows[n - 1]
    );
    let mean: f64 = rows.iter().map(|r| r.0 as f64).sum::<f64>() / n as f64;
    let evmean: f64 = rows.iter().map(|r| r.1 as f64).sum::<f64>() / n as f64;
    println!(
        "mean us {mean:.0} mean evals {evmean:.0} us/eval {:.2}",
        mean / evmean
    );
    let mut byrolls = [(0u128, 0usize, 0usize); 10];
    for r in &rows {
        let b = &mut byrolls[r.3.min(9)];
        b.0 += r.0;
        b.1 += 1;
        b.2 += r.1;
    }
    for (k, b) in byrolls.iter().enumerate() {
        if b.1 > 0 {
            println!(
                "rolls {k}: n={} mean_us={} mean_evals={}",
                b.1,
                b.0 / b.1 as u128,
                b.2 / b.1
            );
        }
    }
}
