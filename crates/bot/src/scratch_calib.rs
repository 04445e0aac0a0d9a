#![cfg(test)]
use crate::eval::Weights;
use crate::threat::{dice_tail, ThreatMap};
use crate::{new_bot, BotKind};
use engine::game::Match;
use engine::{Location, Mode, PieceId, RuleSet, Seat, Seed};

#[test]
#[ignore]
fn calibrate() {
    let rules = RuleSet::default();
    let w = Weights::default();
    let tail = dice_tail(3);
    for opp in [BotKind::Random, BotKind::Greedy] {
        // bins of predicted p: (count, captured) for royal and lone guardians
        let mut bins = [[(0u32, 0u32); 10]; 2];
        for s in 0..30u8 {
            let mode = if s % 2 == 0 { Mode::Clash } else { Mode::Journey };
            let mut m = Match::new(rules.clone(), mode, Seed([s; 32]), 0).unwrap();
            let mut bots = [new_bot(BotKind::Greedy, 1), new_bot(opp, 2), new_bot(opp, 3), new_bot(opp, 4)];
            let mut pending: Vec<(usize, usize, PieceId, Location)> = vec![];
            for _ in 0..400 {
                let Some(cur) = m.current_turn().cloned() else { break };
                let plan = bots[cur.seat.index()].choose(m.position(), &rules);
                m.submit(cur.seat, cur.turn_number, &plan, 0).unwrap();
                let next = m.current_turn().map(|c| c.seat);
                let pos = m.position();
                let g = pos.seat(Seat::Green);
                if next == Some(Seat::Green) || next.is_none() {
                    for (kind, bin, p, loc) in pending.drain(..) {
                        let captured = g.location(p) != loc;
                        bins[kind][bin].0 += 1;
                        if captured { bins[kind][bin].1 += 1; }
                    }
                }
                if cur.seat == Seat::Green {
                    let tm = ThreatMap::build(pos, Seat::Green, &tail, &w);
                    for p in PieceId::ALL {
                        let loc = g.location(p);
                        if let Location::Ring(_) = loc {
                            let pr = if g.guardians_on(loc) >= 2 { tm.pair(Seat::Green, loc) } else { tm.single(Seat::Green, loc) };
                            let kind = if p.is_royal() { 0 } else { 1 };
                            let bin = ((pr * 10.0) as usize).min(9);
                            pending.push((kind, bin, p, loc));
                        }
                    }
                }
            }
        }
        println!("opponents {opp}:");
        for (k, name) in ["royal", "guardian"].iter().enumerate() {
            for (b, &(n, c)) in bins[k].iter().enumerate() {
                if n > 0 { println!("  {name} p in [{:.1},{:.1}): n={n} captured={c} rate={:.2}", b as f32/10.0, (b+1) as f32/10.0, c as f32 / n as f32); }
            }
        }
    }
}
