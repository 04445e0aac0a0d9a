//! `ludo-load`: load generator. Spawns 4·N bot connections playing N concurrent
//! matches against a server on this machine (loopback only) with a configurable think
//! time, for a fixed duration or number of matches, then reports matches completed,
//! turns per second, submit→turn_resolved latency percentiles, errors by code,
//! connections held, the server's resident memory and, over the steady window of
//! the play phase, the server's CPU seconds per 1,000 turns. Several `--url`s spread
//! the matches over the nodes of a cluster (`--placement`); clients rejoin their
//! match on another node when theirs restarts (reconnects are reported apart from
//! errors, as are the plans re-sent after one: a plan the server had not
//! acknowledged is sent again for the same turn, proto §6.1, and its `stale_turn`
//! answer, when the first send had been accepted after all, is not an error). Stops
//! by itself.

use clap::Parser;
use client::load::{run, LoadConfig, LoadMode, Placement};
use std::process::ExitCode;

/// Command-line arguments.
#[derive(Parser, Debug)]
#[command(
    version,
    about = "Load generator: N concurrent matches of bot clients against a loopback server"
)]
struct Args {
    /// Server base URL (loopback only). Repeat it (or give a comma list) for the
    /// nodes of a cluster: table t plays on the t-th node (round robin).
    #[arg(
        long = "url",
        default_value = "http://127.0.0.1:8080",
        value_delimiter = ',',
        num_args = 1
    )]
    urls: Vec<String>,
    /// Where the four players of a match sit: owner (on the node that creates the
    /// match) or other (alias spread: they move to the next node once it started,
    /// so its frames cross NATS; needs two URLs or more).
    #[arg(long, value_enum, default_value_t = Placement::Owner)]
    placement: Placement,
    /// Times a client may rejoin its match (on the next URL) after losing its
    /// socket, e.g. to a node restart (close 1012 or 1001); counted apart from errors.
    #[arg(long, default_value_t = 5)]
    reconnects: u32,
    /// Concurrent matches N (4·N sockets; in idle mode 4·N idle sockets).
    #[arg(long, default_value_t = 10)]
    matches: u32,
    /// Think time before each submit, ms (0 = submit at once).
    #[arg(long, default_value_t = 1000)]
    think_ms: u64,
    /// Length of the play (or idle) phase, s (at most 3600).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    duration_secs: u64,
    /// Start of the steady window (server CPU-s per 1,000 turns), s after the play
    /// phase began; the window ends 1 s before the stop.
    #[arg(long, default_value_t = 5)]
    warmup_secs: u64,
    /// Stop starting matches after this many.
    #[arg(long)]
    max_matches: Option<u64>,
    /// lobby: four clients per private lobby; queue: quick-play queue; idle: hold sockets only.
    #[arg(long, value_enum, default_value_t = LoadMode::Lobby)]
    mode: LoadMode,
    /// Game mode: journey or clash.
    #[arg(long, default_value = "clash", value_parser = parse_game)]
    game: engine::Mode,
    /// Bot strategy of the clients: random or greedy.
    #[arg(long, default_value = "random")]
    bot: bot::BotKind,
    /// Lobby mode: seats of each match left to the server's bots (0 to 3); each
    /// table then has 4 − N clients.
    #[arg(long, default_value_t = 0)]
    bot_seats: u8,
    /// Level of the server's bots in those seats: beginner, casual, greedy or expert.
    #[arg(long, default_value = "greedy", value_parser = parse_level)]
    bot_level: protocol::BotLevel,
    /// The server's process id (default: the process listening on the URL's port).
    #[arg(long)]
    server_pid: Option<i32>,
    /// Sockets opened at once during setup.
    #[arg(long, default_value_t = 64)]
    connect_concurrency: usize,
    /// Seed of the bots' generators.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Decode every frame whole and check every turn_resolved event (costs the
    /// load generator CPU that the server then lacks).
    #[arg(long)]
    full_decode: bool,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn parse_level(s: &str) -> Result<protocol::BotLevel, String> {
    protocol::BotLevel::parse(s).ok_or_else(|| {
        format!("unknown bot level {s:?}: expected beginner, casual, greedy or expert")
    })
}

fn parse_game(s: &str) -> Result<engine::Mode, String> {
    match s {
        "journey" => Ok(engine::Mode::Journey),
        "clash" => Ok(engine::Mode::Clash),
        _ => Err(format!(
            "unknown game mode {s:?}: expected journey or clash"
        )),
    }
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let a = Args::parse();
    let config = LoadConfig {
        urls: a.urls,
        placement: a.placement,
        reconnects: a.reconnects,
        matches: a.matches,
        think_ms: a.think_ms,
        duration_secs: a.duration_secs,
        warmup_secs: a.warmup_secs,
        max_matches: a.max_matches,
        mode: a.mode,
        game: a.game,
        bot: a.bot,
        server_pid: a.server_pid,
        connect_concurrency: a.connect_concurrency,
        seed: a.seed,
        full_decode: a.full_decode,
        bot_seats: a.bot_seats,
        bot_level: a.bot_level,
    };
    let rt = tokio::runtime::Runtime::new().expect("tokio runtime");
    match rt.block_on(run(config)) {
        Ok(report) => {
            if a.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("reports serialize")
                );
            } else {
                print!("{}", report.render());
            }
            match report.shortfall() {
                Some(why) => {
                    eprintln!("ludo-load: the run fell short: {why}");
                    ExitCode::from(1)
                }
                None => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            eprintln!("ludo-load: {e}");
            ExitCode::from(2)
        }
    }
}
