use bot::{GreedyBot, GreedyConfig, Strategy, Weights};
use engine::game::Match;
use engine::{Mode, RuleSet, Seed, PieceId, Location};

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
    let b = variant(args.get(2).map(|s| s.as_str()).unwrap_or(""));
    let n: u32 = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(100);
    let rules = RuleSet::default();
    let mut res = [0.0f64; 2];
    let mut tot = [0i64; 2];
    let mut royal_home = [0u32; 2];
    let handles: Vec<_> = (0..2).map(|t| { let (a, b, rules) = (a.clone(), b.clone(), rules.clone()); std::thread::spawn(move || {
        let mut res = [0.0f64; 2]; let mut tot = [0i64; 2]; let mut rh = [0u32;2];
        for i in (0..n).filter(|i| i % 2 == t) {
            let mode = if i % 4 < 2 { Mode::Clash } else { Mode::Journey };
            let mut m = Match::new(rules.clone(), mode, Seed([(i % 256) as u8, (i / 256) as u8, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]), 0).unwrap();
            let off = (i / 4) as usize % 2; // A seats: off, off+2
            let mut bots: Vec<GreedyBot> = (0..4).map(|s| GreedyBot::with_config(s as u64 + 10 * i as u64, if (s + 4 - off) % 2 == 0 { a.clone() } else { b.clone() })).collect();
            for _ in 0..400 {
                let Some(cur) = m.current_turn().cloned() else { break };
                let plan = bots[cur.seat.index()].choose(m.position(), &rules);
                m.submit(cur.seat, cur.turn_number, &plan, 0).unwrap();
            }
            let end = match m.end() { Some(e) => e.clone(), None => m.end_by_clock() };
            let firsts: Vec<_> = end.standings.iter().filter(|s| s.place == 1).collect();
            for s in &firsts { let side = ((s.seat.index() + 4 - off) % 2) as usize; res[side] += 1.0 / firsts.len() as f64; }
            for s in &end.standings { let side = ((s.seat.index() + 4 - off) % 2) as usize; tot[side] += s.total;
                if m.position().seat(s.seat).location(PieceId::R) == Location::Home { rh[side] += 1; } }
        }
        (res, tot, rh)
    })}).collect();
    for h in handles { let (r, t, rh) = h.join().unwrap(); for k in 0..2 { res[k] += r[k]; tot[k] += t[k]; royal_home[k] += rh[k]; } }
    println!("A[{}] firsts={:.1} ({:.1}%) meanTot={} royalsHome={} | B[{}] firsts={:.1} meanTot={} royalsHome={}", args[1], res[0], 100.0*res[0]/n as f64, tot[0]/(2*n as i64), royal_home[0], args.get(2).map(|s| s.as_str()).unwrap_or("default"), res[1], tot[1]/(2*n as i64), royal_home[1]);
}
