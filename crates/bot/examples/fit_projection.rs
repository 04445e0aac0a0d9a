//! Fits the projection table (`bot::projection`, `crates/bot/projection.json`) from
//! matches of four greedy bots.
//!
//! `cargo run --release -p bot --example fit_projection -- --matches 3000 --seed 1
//! --out crates/bot/projection.json`

use bot::projection::{Fit, Projection};
use bot::{match_seeds, play_match_observed, BotKind, GreedyBot, Strategy, MATCH_TURNS};
use clap::Parser;
use engine::{Mode, RuleSet};
use std::process::ExitCode;

/// Command line.
#[derive(Parser)]
struct Args {
    /// Matches per mode (3,000 for the committed table).
    #[arg(long, default_value_t = 3000)]
    matches: u32,
    /// Seeds the dice and the bots.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write the table.
    #[arg(long)]
    out: std::path::PathBuf,
}

fn fit(mode: Mode, matches: u32, seed: u64) -> Fit {
    let rules = RuleSet::default();
    let mut fit = Fit::default();
    for i in 0..matches {
        let (dice, seeds) = match_seeds(seed, i);
        let bots = seeds.map(|s| -> Box<dyn Strategy + Send> { Box::new(GreedyBot::new(s)) });
        let mut positions = Vec::new();
        play_match_observed(
            &rules,
            mode,
            dice,
            [BotKind::Greedy; 4],
            bots,
            MATCH_TURNS,
            |p| positions.push(*p),
        )
        .expect("default rules are valid and bots play legal plans");
        // The last position observed is where the match ended.
        let last = positions.pop().expect("the end is always observed");
        fit.add_match(&positions, &last);
    }
    fit
}

fn main() -> ExitCode {
    let args = Args::parse();
    let (m, s) = (args.matches, args.seed);
    let journey = std::thread::spawn(move || fit(Mode::Journey, m, s));
    let clash = fit(Mode::Clash, m, s);
    let journey = journey.join().expect("the journey fit does not panic");
    let p = Projection {
        journey: journey.table(),
        clash: clash.table(),
    };
    let json = serde_json::to_string_pretty(&p).expect("the table serialises");
    if let Err(e) = std::fs::write(&args.out, json + "\n") {
        eprintln!("fit_projection: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    println!("wrote {} ({} matches per mode)", args.out.display(), m);
    ExitCode::SUCCESS
}
