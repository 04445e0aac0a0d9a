//! `bot-duel`: bots of any levels against each other over many simulated matches
//! (`--levels`), or, without it, greedy against random bots.
//!
//! ```text
//! cargo run -p bot --release --bin bot-duel -- --matches 200 --mode clash --turns 400 --seed 1
//! ```
//!
//! `--levels expert,greedy,greedy,greedy` plays any lineup of bot kinds instead (seats
//! rotating one place per match) and prints each kind's share of first places with
//! its 95 % Wilson interval, mean totals and `choose` times (p50, p99), and each
//! kind's Weng-Lin rating over those matches (the server's rating system); seats of
//! one kind are pooled (one share, interval and rating for all of them):
//!
//! ```text
//! cargo run -p bot --release --bin bot-duel -- --levels expert,greedy,greedy,greedy --matches 500 --mode journey
//! ```
//!
//! With `--ratings-out FILE` it also writes those ratings (mode, level, μ, σ, matches,
//! lineup, turns, seed, date) to `FILE`, replacing the lines of the same mode and
//! keeping the other mode's; the server's leaderboard shows `crates/bot/ratings.json`,
//! written by (one run per mode; see `BENCHMARKS.md`, *Bot ratings*):
//!
//! ```text
//! cargo run -p bot --release --bin bot-duel -- --levels beginner,casual,greedy,expert \
//!     --mode journey --matches 500 --seed 32 --threads 1 --ratings-out crates/bot/ratings.json
//! ```
//!
//! Otherwise, for each lineup (two greedy bots on opposite seats, two on neighbouring seats, one
//! greedy bot against three random ones; seats rotate by match) it prints the greedy
//! side's share of first places (rule 9.2; a first place shared by k seats counts 1/k
//! for each), the share equally strong bots would get, mean totals, how many matches
//! hit the turn limit, the run time and the greedy bot's `choose` times.

use bot::{
    duel_levels, level_ratings, published_lines, simulate, BotKind, DuelConfig, LevelDuel, Lineup,
    PublishedRatings, MATCH_TURNS,
};
use clap::{Parser, ValueEnum};
use engine::{Mode, RuleSet};
use std::process::ExitCode;
use std::time::Instant;

/// Game mode (rule 1.4).
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    Journey,
    Clash,
}

/// Which lineups to play.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum LineupArg {
    /// All three lineups.
    All,
    /// Two greedy bots on opposite seats.
    #[value(name = "2v2-opposite")]
    Opposite,
    /// Two greedy bots on neighbouring seats.
    #[value(name = "2v2-adjacent")]
    Adjacent,
    /// One greedy bot against three random bots.
    #[value(name = "1v3")]
    OneVsThree,
}

/// Greedy vs random bot duel over simulated matches.
#[derive(Debug, Parser)]
#[command(name = "bot-duel", version)]
struct Args {
    /// Matches per lineup.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    matches: u32,
    /// Game mode.
    #[arg(long, value_enum, default_value = "clash")]
    mode: ModeArg,
    /// Turns before a match is ended by its clock (rule 9.1); 400 ≈ a 30-minute match.
    #[arg(long, default_value_t = MATCH_TURNS, value_parser = clap::value_parser!(u32).range(1..))]
    turns: u32,
    /// Seed of the dice and the bots.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Lineups to play.
    #[arg(long, value_enum, default_value = "all")]
    lineup: LineupArg,
    /// Any lineup of four bot kinds (random, beginner, casual, greedy, expert), comma
    /// separated, instead of the greedy-against-random lineups.
    #[arg(long, value_delimiter = ',')]
    levels: Option<Vec<BotKind>>,
    /// With `--levels`: also write the kinds' Weng-Lin ratings to this JSON file
    /// (replacing its lines of this mode; created when missing).
    #[arg(long, requires = "levels")]
    ratings_out: Option<std::path::PathBuf>,
    /// Worker threads (default: the machine's cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mode = match args.mode {
        ModeArg::Journey => Mode::Journey,
        ModeArg::Clash => Mode::Clash,
    };
    let lineups: Vec<Lineup> = match args.lineup {
        LineupArg::All => Lineup::ALL.to_vec(),
        LineupArg::Opposite => vec![Lineup::Opposite],
        LineupArg::Adjacent => vec![Lineup::Adjacent],
        LineupArg::OneVsThree => vec![Lineup::OneVsThree],
    };
    let threads = args.threads.map(usize::from).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    println!(
        "mode={} matches/lineup={} turns={} seed={} threads={}",
        mode.name(),
        args.matches,
        args.turns,
        args.seed,
        threads
    );
    let all = Instant::now();
    if let Some(levels) = args.levels {
        let Ok(lineup) = <[BotKind; 4]>::try_from(levels) else {
            eprintln!("bot-duel: --levels takes exactly four kinds");
            return ExitCode::FAILURE;
        };
        let d = LevelDuel {
            rules: RuleSet::default(),
            mode,
            lineup,
            matches: args.matches,
            max_turns: args.turns,
            seed: args.seed,
            threads,
        };
        let (runs, shares) = match duel_levels(&d) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("bot-duel: {e}");
                return ExitCode::FAILURE;
            }
        };
        let names: Vec<&str> = lineup.iter().map(|k| k.name()).collect();
        println!("lineup={} (seats rotate each match)", names.join(","));
        for s in shares {
            println!(
                "{:<9} seats={} first={:.1}/{} share={:.1}% ci95=[{:.1}%, {:.1}%] fair_share={:.0}% \
                 mean_total={:.0} choose: p50={:.0}us p99={:.0}us max={:.0}us",
                s.kind.name(),
                s.seats,
                s.firsts,
                args.matches,
                100.0 * s.share,
                100.0 * s.ci95.0,
                100.0 * s.ci95.1,
                100.0 * s.fair_share,
                s.mean_total,
                s.choose.p50_us,
                s.choose.p99_us,
                s.choose.max_us
            );
        }
        let ratings = level_ratings(&runs);
        for r in &ratings {
            println!(
                "{:<9} rating (Weng-Lin over these matches): mu={:.2} sigma={:.2} conservative={:.2}",
                r.kind.name(),
                r.mu,
                r.sigma,
                r.conservative()
            );
        }
        if let Some(path) = args.ratings_out {
            let date = chrono::Utc::now().format("%Y-%m-%d").to_string();
            if let Err(e) = write_ratings(&path, &d, &ratings, &date) {
                eprintln!("bot-duel: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
            println!("ratings written to {}", path.display());
        }
        println!("total time={:.1}s", all.elapsed().as_secs_f64());
        return ExitCode::SUCCESS;
    }
    for lineup in lineups {
        let cfg = DuelConfig {
            rules: RuleSet::default(),
            mode,
            lineup,
            matches: args.matches,
            max_turns: args.turns,
            seed: args.seed,
            threads,
        };
        let started = Instant::now();
        let r = match simulate(&cfg) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("bot-duel: {e}");
                return ExitCode::FAILURE;
            }
        };
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{:<13} matches={} greedy_first={:.1} ({:.1}%) random_first={:.1} ({:.1}%) fair_share={:.0}% \
             mean_total greedy={:.0} random={:.0} ended_by_turn_limit={} turns={} time={:.1}s",
            lineup.name(),
            r.matches,
            r.greedy_firsts,
            100.0 * r.greedy_win_rate(),
            r.random_firsts,
            100.0 * r.random_firsts / r.matches as f64,
            100.0 * r.fair_share,
            r.greedy_mean_total,
            r.random_mean_total,
            r.ended_by_clock,
            r.turns,
            secs
        );
        let t = r.greedy_choose;
        println!(
            "{:<13} greedy choose(): calls={} mean={:.0}us p50={:.0}us p99={:.0}us max={:.0}us",
            "", t.calls, t.mean_us, t.p50_us, t.p99_us, t.max_us
        );
    }
    println!("total time={:.1}s", all.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}

/// Writes the ratings of duel `d` into the ratings file at `path` (read first when it
/// exists: its lines of other modes stay).
fn write_ratings(
    path: &std::path::Path,
    d: &LevelDuel,
    ratings: &[bot::LevelRating],
    date: &str,
) -> Result<(), String> {
    let mut file = match std::fs::read_to_string(path) {
        Ok(text) => PublishedRatings::parse(&text).map_err(|e| e.to_string())?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => PublishedRatings::default(),
        Err(e) => return Err(e.to_string()),
    };
    file.replace_mode(d.mode, published_lines(d, ratings, date));
    std::fs::write(path, file.to_json()).map_err(|e| e.to_string())
}
