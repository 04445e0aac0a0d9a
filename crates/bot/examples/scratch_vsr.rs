use bot::{GreedyBot, GreedyConfig, RandomBot, Strategy};
use engine::game::Match;
use engine::{Location, Mode, PieceId, RuleSet, Seed};

fn variant(name: &str) -> GreedyConfig {
    let mut c = GreedyConfig::default();
    let w = &mut c.weights;
    for kv in name.split(',') {
        let Some((k, v)) = kv.split_once('=') else { continue };
        let v: f32 = v.parse().unwrap();
        match k {
            "have" => w.threat_have = v,
            "step" => w.step = v,
            "royal" => w.royal_factor = v,
            "threat" => w.threat = v,
            "opp" => w.opponent = v,
            "leader" => w.leader = v,
            "capture" => w.capture = v,
            "two" => w.threat_two_singles = v,
            "glow" => w.glow = v,
            "out" => w.out = v,
            "roll" => w.roll = v,
            "beam" => c.beam = v as usize,
            _ => panic!("{k}"),
        }
    }
    c
}


fn main() {
    let args: Vec<String> = std::env::args().collect();
    let a = variant(&args[1]);
    let n: u32 = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(100);
    let rules = RuleSet::default();
    for mode in [Mode::Clash, Mode::Journey] {
        let hs: Vec<_> = (0..2u32).map(|t| { let (a, rules) = (a.clone(), rules.clone()); std::thread::spawn(move || {
            let (mut tot, mut rh, mut wins, mut fin) = (0i64, 0u32, 0.0f64, 0u32);
            for i in (0..n).filter(|i| i % 2 == t) {
                let mut m = Match::new(rules.clone(), mode, Seed([(i % 256) as u8, (i / 256) as u8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]), 0).unwrap();
                let gs = (i % 4) as usize;
                let mut g = GreedyBot::with_config(i as u64, a.clone());
                let mut r = RandomBot::new(i as u64 + 1000);
                for _ in 0..400 {
                    let Some(cur) = m.current_turn().cloned() else { break };
                    let plan = if cur.seat.index() == gs { g.choose(m.position(), &rules) } else { r.choose(m.position(), &rules) };
                    m.submit(cur.seat, cur.turn_number, &plan, 0).unwrap();
                }
                let end = match m.end() { Some(e) => e.clone(), None => m.end_by_clock() };
                let firsts: Vec<_> = end.standings.iter().filter(|s| s.place == 1).collect();
                for s in &firsts { if s.seat.index() == gs { wins += 1.0 / firsts.len() as f64; } }
                let st = m.position().seat(engine::Seat::from_index(gs));
                tot += st.total();
                if st.location(PieceId::R) == Location::Home { rh += 1; }
                if st.finished.is_some() { fin += 1; }
            }
            (tot, rh, wins, fin)
        })}).collect();
        let (mut tot, mut rh, mut wins, mut fin) = (0i64, 0u32, 0.0f64, 0u32);
        for h in hs { let r = h.join().unwrap(); tot += r.0; rh += r.1; wins += r.2; fin += r.3; }
        println!("{} [{}] n={n} wins={:.1}% meanTotal={} royalHome={} finished={}", mode.name(), args[1], 100.0 * wins / n as f64, tot / n as i64, rh, fin);
    }
}
