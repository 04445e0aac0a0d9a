//! Tuning experiments: one challenger bot (a greedy or expert bot with changed
//! weights or search settings) against three default greedy bots, the challenger's
//! seat rotating one place per match (the dice and bot seeds of match `i` are those
//! `bot-duel` uses). Prints the challenger's share of first places with its 95 %
//! Wilson interval (a first place shared by k seats counts 1/k).
//!
//! ```text
//! cargo run -p bot --release --example tune -- --challenger greedy --set leader=0.6 --matches 2000
//! cargo run -p bot --release --example tune -- --challenger expert --nodes 16000 --matches 400
//! ```

use bot::{
    match_seeds, play_match_with, play_spread, wilson_interval, BotKind, ExpertBot, ExpertConfig,
    GreedyBot, GreedyConfig, OwnRoll, Strategy, Weights, MATCH_TURNS,
};
use clap::{Parser, ValueEnum};
use engine::{Mode, RuleSet};
use std::process::ExitCode;
use std::time::Instant;

/// The challenger's kind.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Challenger {
    Greedy,
    Expert,
}

/// One challenger against three default greedy bots.
#[derive(Debug, Parser)]
struct Args {
    /// The challenger.
    #[arg(long, value_enum, default_value = "expert")]
    challenger: Challenger,
    /// `journey` or `clash`.
    #[arg(long, default_value = "clash")]
    mode: String,
    /// Matches.
    #[arg(long, default_value_t = 400)]
    matches: u32,
    /// Seed of the dice and the bots.
    #[arg(long, default_value_t = 32)]
    seed: u64,
    /// Turns before the clock ends a match.
    #[arg(long, default_value_t = MATCH_TURNS)]
    turns: u32,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Weight changes of the challenger's own evaluation, `name=value` (a field of
    /// `bot::Weights`), repeatable.
    #[arg(long = "set")]
    set: Vec<String>,
    /// Expert: candidates compared.
    #[arg(long)]
    candidates: Option<usize>,
    /// Expert: rollout depth (turns).
    #[arg(long)]
    depth: Option<u32>,
    /// Expert: node budget (of a decision in either mode).
    #[arg(long)]
    nodes: Option<usize>,
    /// Expert: wall-clock budget of a decision, ms, as the server's
    /// `LUDO_BOT_BUDGET_MS` (default: none, the node budget alone; with it the run
    /// depends on the machine's speed and load).
    #[arg(long)]
    budget_ms: Option<u64>,
    /// Expert: beam of the rollout policy's guardian search (default 1).
    #[arg(long)]
    policy_beam: Option<usize>,
    /// Expert: royal beam of the rollout policy (default 1).
    #[arg(long)]
    policy_royal_beam: Option<usize>,
    /// Expert: random plans of the rollout policy (default 0).
    #[arg(long)]
    policy_random: Option<usize>,
    /// Expert: most plans the rollout policy plays per turn (default 2000).
    #[arg(long)]
    policy_max_evals: Option<usize>,
    /// Expert: the rollout policy tries royal moves only after the guardians.
    #[arg(long)]
    policy_royal_last: bool,
    /// Expert: standard errors a candidate must beat the greedy choice by.
    #[arg(long)]
    z: Option<f64>,
    /// Expert: weight changes of the rollouts' leaf evaluation only (on top of
    /// `--set`), `name=value`, repeatable; the ranking and the opponents' model keep theirs.
    #[arg(long = "leaf-set")]
    leaf_set: Vec<String>,
    /// Expert: successive halving over the candidates instead of round-robin.
    #[arg(long)]
    halving: bool,
    /// Expert: the rollout's final own turn over this many sampled rolls (0: the
    /// exact expectation over every roll; default 1).
    #[arg(long)]
    own_rolls: Option<usize>,
    /// Expert: candidates with distinct guardian parts only (`true`, the default)
    /// or the best plans outright (`false`).
    #[arg(long, action = clap::ArgAction::Set, default_value_t = true)]
    distinct: bool,
    /// Expert: with `--distinct true`, fill up to the candidates with the best
    /// remaining plans when there are fewer distinct guardian parts.
    #[arg(long)]
    distinct_fill: bool,
    /// Expert: value the opponents at the leaves by their standing (`leaf_standing`).
    #[arg(long)]
    leaf_standing: bool,
    /// Expert: value the leaves by the projected final totals with this softmax
    /// temperature in points, 0 for the margin form (`leaf_projection`; default 150).
    #[arg(long)]
    leaf_projection: Option<f32>,
    /// Expert: value the leaves by the greedy heuristic, not the projection.
    #[arg(long, conflicts_with = "leaf_projection")]
    no_projection: bool,
    /// Expert: use the projection in journey too (`projection_in_journey`).
    #[arg(long)]
    projection_in_journey: bool,
}

/// Applies `name=value` changes to `w`.
fn apply_sets(w: &mut Weights, sets: &[String]) -> Result<(), String> {
    for s in sets {
        let (k, v) = s
            .split_once('=')
            .and_then(|(k, v)| v.parse::<f32>().ok().map(|v| (k, v)))
            .ok_or_else(|| format!("{s:?}: expected name=number"))?;
        set_weight(w, k, v)?;
    }
    Ok(())
}

/// Sets the field `name` of `w` to `v`.
fn set_weight(w: &mut Weights, name: &str, v: f32) -> Result<(), String> {
    let f = match name {
        "opponent" => &mut w.opponent,
        "leader" => &mut w.leader,
        "capture" => &mut w.capture,
        "out" => &mut w.out,
        "step" => &mut w.step,
        "glow" => &mut w.glow,
        "home_path" => &mut w.home_path,
        "royal_factor" => &mut w.royal_factor,
        "royal_shelter" => &mut w.royal_shelter,
        "roll" => &mut w.roll,
        "overflow" => &mut w.overflow,
        "credit" => &mut w.credit,
        "threat" => &mut w.threat,
        "threat_have" => &mut w.threat_have,
        "threat_exit" => &mut w.threat_exit,
        "threat_two_singles" => &mut w.threat_two_singles,
        other => return Err(format!("no weight {other:?}")),
    };
    *f = v;
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mode = match args.mode.as_str() {
        "journey" => Mode::Journey,
        "clash" => Mode::Clash,
        other => {
            eprintln!("tune: mode {other:?}: journey or clash");
            return ExitCode::FAILURE;
        }
    };
    let mut weights = Weights::default();
    if let Err(e) = apply_sets(&mut weights, &args.set) {
        eprintln!("tune: --set {e}");
        return ExitCode::FAILURE;
    }
    let mut expert = ExpertConfig::default();
    expert.ranking.weights = weights.clone();
    if let Some(c) = args.candidates {
        expert.candidates = c;
    }
    if let Some(d) = args.depth {
        expert.depth = d;
    }
    if let Some(n) = args.nodes {
        expert.node_budget = n;
        expert.journey_node_budget = n;
    }
    expert.time_budget = args.budget_ms.map(std::time::Duration::from_millis);
    if let Some(b) = args.policy_beam {
        expert.policy.beam = b;
    }
    if let Some(b) = args.policy_royal_beam {
        expert.policy.royal_beam = b;
    }
    if let Some(r) = args.policy_random {
        expert.policy.random_plans = r;
    }
    expert.policy.royal_both_orders = !args.policy_royal_last;
    if let Some(m) = args.policy_max_evals {
        expert.policy.max_evals = m;
    }
    if let Some(z) = args.z {
        expert.switch_z = z;
    }
    if !args.leaf_set.is_empty() {
        let mut leaf = weights.clone();
        if let Err(e) = apply_sets(&mut leaf, &args.leaf_set) {
            eprintln!("tune: --leaf-set {e}");
            return ExitCode::FAILURE;
        }
        expert.leaf = Some(leaf);
    }
    expert.halving = args.halving;
    expert.distinct = args.distinct;
    expert.distinct_fill = args.distinct_fill;
    expert.leaf_standing = args.leaf_standing;
    if args.no_projection {
        expert.leaf_projection = None;
    } else if let Some(t) = args.leaf_projection {
        expert.leaf_projection = Some(t);
    }
    expert.projection_in_journey = args.projection_in_journey;
    expert.own_roll = match args.own_rolls {
        None | Some(1) => OwnRoll::One,
        Some(0) => OwnRoll::Exact,
        Some(m) => OwnRoll::Sampled(m),
    };
    let greedy = GreedyConfig {
        weights,
        ..GreedyConfig::default()
    };
    let rules = RuleSet::default();
    let started = Instant::now();
    let runs = play_spread(args.matches, args.threads, |i| {
        let (seed, seeds) = match_seeds(args.seed, i);
        let me = (i % 4) as usize;
        let mut kinds = [BotKind::Greedy; 4];
        kinds[me] = match args.challenger {
            Challenger::Greedy => BotKind::Random, // a label only: "the challenger"
            Challenger::Expert => BotKind::Expert,
        };
        let bots = [0, 1, 2, 3].map(|s| -> Box<dyn Strategy + Send> {
            if s != me {
                Box::new(GreedyBot::new(seeds[s]))
            } else {
                match args.challenger {
                    Challenger::Greedy => {
                        Box::new(GreedyBot::with_config(seeds[s], greedy.clone()))
                    }
                    Challenger::Expert => {
                        Box::new(ExpertBot::with_config(seeds[s], expert.clone()))
                    }
                }
            }
        });
        play_match_with(&rules, mode, seed, kinds, bots, args.turns)
    });
    let runs = match runs {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tune: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut firsts = 0.0;
    for (i, run) in runs.iter().enumerate() {
        let me = i % 4;
        let winners = run.end.standings.iter().filter(|s| s.place == 1).count();
        if run
            .end
            .standings
            .iter()
            .any(|s| s.seat.index() == me && s.place == 1)
        {
            firsts += 1.0 / winners as f64;
        }
    }
    let (lo, hi) = wilson_interval(firsts, args.matches);
    println!(
        "challenger={:?} mode={} matches={} seed={} set={:?} candidates={:?} depth={:?} nodes={:?} budget_ms={:?} z={:?} policy={:?}/{:?}/{:?}/{:?} royal_last={} leaf={:?} halving={} distinct={} fill={} own_rolls={:?} leaf_standing={} leaf_projection={:?} in_journey={}: \
         first={:.1} share={:.1}% ci95=[{:.1}%, {:.1}%] time={:.0}s",
        args.challenger,
        args.mode,
        args.matches,
        args.seed,
        args.set,
        args.candidates,
        args.depth,
        args.nodes,
        args.budget_ms,
        args.z,
        args.policy_beam,
        args.policy_royal_beam,
        args.policy_random,
        args.policy_max_evals,
        args.policy_royal_last,
        args.leaf_set,
        args.halving,
        args.distinct,
        args.distinct_fill,
        args.own_rolls,
        args.leaf_standing,
        expert.leaf_projection,
        args.projection_in_journey,
        firsts,
        100.0 * firsts / args.matches as f64,
        100.0 * lo,
        100.0 * hi,
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
