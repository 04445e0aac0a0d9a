use bot::{new_bot, BotKind};
use engine::game::Match;
use engine::{Mode, RuleSet, Seed, PieceId};
fn main() {
    let rules = RuleSet::default();
    for mode in [Mode::Clash, Mode::Journey] {
    for seed in 0..3u8 {
        let mut m = Match::new(rules.clone(), mode, Seed([seed; 32]), 0).unwrap();
        let mut bots = [new_bot(BotKind::Greedy, 1), new_bot(BotKind::Random, 2), new_bot(BotKind::Random, 3), new_bot(BotKind::Random, 4)];
        for turn in 0..400 {
            let Some(cur) = m.current_turn().cloned() else { break };
            let plan = bots[cur.seat.index()].choose(m.position(), &rules);
            m.submit(cur.seat, cur.turn_number, &plan, 0).unwrap();
            if turn % 40 == 39 {
                let st = m.position().seat(engine::Seat::Green);
                let locs: Vec<String> = PieceId::ALL.iter().map(|&p| format!("{}{}", st.location(p), if st.glows(p) {"*"} else {""})).collect();
                println!("{} s{} t{} total={} combat={} rolls={:?} cr={} {:?} fin={:?}", mode.name(), seed, turn+1, st.total(), st.combat, st.rolls.as_slice(), st.exit_credits, locs, st.finished);
            }
        }
    }}
}
