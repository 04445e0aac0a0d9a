//! The lower levels: a greedy bot that plays a random legal plan on some turns.

use crate::greedy::GreedyBot;
use crate::{legal_or_pass, Strategy};
use engine::legal::random_plan;
use engine::{Plan, Position, RuleSet};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// A bot that, each turn, plays the greedy plan with probability
/// `greedy_per_mille / 1000` and a random legal plan ([`random_plan`]) otherwise.
/// `beginner` plays greedily on 1 turn in 4 (250 ‰), `casual` on 3 in 4 (750 ‰).
/// Deterministic for its seed.
#[derive(Debug, Clone)]
pub struct MixedBot {
    greedy: GreedyBot,
    rng: ChaCha20Rng,
    greedy_per_mille: u32,
}

impl MixedBot {
    /// A mixed bot seeded with `seed` that plays greedily on `greedy_per_mille` of
    /// 1000 turns (clamped to 0..=1000).
    pub fn new(seed: u64, greedy_per_mille: u32) -> MixedBot {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        MixedBot {
            greedy: GreedyBot::new(rng.next_u64()),
            rng,
            greedy_per_mille: greedy_per_mille.min(1000),
        }
    }
}

impl Strategy for MixedBot {
    fn choose(&mut self, pos: &Position, rules: &RuleSet) -> Plan {
        if self.rng.next_u32() % 1000 < self.greedy_per_mille {
            self.greedy.choose(pos, rules)
        } else {
            let plan = random_plan(pos, rules, &mut self.rng);
            legal_or_pass(pos, rules, plan)
        }
    }
}
