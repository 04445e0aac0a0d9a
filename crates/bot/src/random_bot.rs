//! The random bot: a uniformly drawn legal plan each turn.

use crate::{legal_or_pass, Strategy};
use engine::legal::random_plan;
use engine::{Plan, Position, RuleSet};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// A bot that plays [`engine::legal::random_plan`] with its own ChaCha20 generator:
/// the same seed and positions give the same plans.
#[derive(Debug, Clone)]
pub struct RandomBot {
    rng: ChaCha20Rng,
}

impl RandomBot {
    /// A random bot whose generator is seeded with `seed`.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: ChaCha20Rng::seed_from_u64(seed),
        }
    }
}

impl Strategy for RandomBot {
    fn choose(&mut self, pos: &Position, rules: &RuleSet) -> Plan {
        let plan = random_plan(pos, rules, &mut self.rng);
        legal_or_pass(pos, rules, plan)
    }
}
