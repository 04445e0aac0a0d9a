//! `ludo-bots`: plays N full matches as bot clients (four real WebSocket clients per
//! match, seated together through a private lobby or the quick-play queue) against a
//! running server, then prints each match's standings and replay URL and checks the
//! replay with the engine. Exit status 0 when every match ended and every replay
//! re-played identically, 1 otherwise, 2 when the server cannot be used.

use clap::Parser;
use client::player::{MatchOutcome, PlayOptions};
use client::table::{connect_seat, run_table, Budget, Meet, TableConfig};
use client::{Endpoint, Rest, Stats};
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Command-line arguments.
#[derive(Parser, Debug)]
#[command(
    version,
    about = "Play N whole matches as bot clients and print standings and replay URLs"
)]
struct Args {
    /// Server base URL.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
    /// Matches to play (concurrently, four clients each).
    #[arg(long, default_value_t = 1)]
    matches: u32,
    /// Game mode: journey or clash.
    #[arg(long, default_value = "clash", value_parser = parse_game)]
    game: engine::Mode,
    /// How the four clients meet: lobby or queue.
    #[arg(long, value_enum, default_value_t = Meet::Lobby)]
    meet: Meet,
    /// Bot strategy: greedy or random.
    #[arg(long, default_value = "greedy")]
    bot: bot::BotKind,
    /// Think time before each submit, ms (the server's default rate limit is 10
    /// messages per second per connection).
    #[arg(long, default_value_t = 100)]
    think_ms: u64,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 600)]
    timeout_secs: u64,
    /// Do not download and re-play the replays.
    #[arg(long)]
    no_verify: bool,
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

fn name_of(o: &MatchOutcome, seat: engine::Seat) -> String {
    o.seats
        .iter()
        .find(|s| s.seat == seat)
        .map_or("?".into(), |s| s.name.clone())
}

async fn run(a: Args) -> Result<bool, String> {
    let endpoint = Endpoint::parse(&a.url).map_err(|e| e.to_string())?;
    let rest = Rest::new(endpoint);
    let stats = Arc::new(Stats::default());
    let stop_at = Instant::now() + Duration::from_secs(a.timeout_secs);
    let mut tables = tokio::task::JoinSet::new();
    for t in 0..a.matches {
        let mut seats = Vec::new();
        for i in 0..4 {
            seats.push(
                connect_seat(&rest, &format!("bot-{t}-{i}"), &stats)
                    .await
                    .map_err(|e| format!("connecting: {e}"))?,
            );
        }
        let cfg = Arc::new(TableConfig {
            game: a.game,
            meet: a.meet,
            bot: a.bot,
            play: PlayOptions {
                think: Duration::from_millis(a.think_ms),
                stop_at,
                reconnects: 3,
                relocate: false,
            },
            start_delay: Duration::ZERO,
            bot_fill: None,
        });
        tables.spawn(run_table(
            seats,
            cfg,
            Arc::new(Budget::new(1)),
            stats.clone(),
            1000 + t as u64 * 4,
        ));
    }
    let mut ended: BTreeMap<uuid::Uuid, MatchOutcome> = BTreeMap::new();
    while let Some(r) = tables.join_next().await {
        for o in r.map_err(|e| format!("table task: {e}"))? {
            if o.end.is_some() {
                ended.entry(o.match_id).or_insert(o);
            }
        }
    }
    let mut ok = ended.len() as u32 == a.matches;
    for (i, o) in ended.values().enumerate() {
        let end = o.end.as_ref().expect("only ended matches are kept");
        println!(
            "match {} of {}: {} ({}, {} turns, end reason {})",
            i + 1,
            a.matches,
            o.match_id,
            a.game.name(),
            o.turns,
            serde_json::to_string(&end.reason).unwrap_or_default()
        );
        for s in &end.standings {
            println!(
                "  {} {:<6} {:<14} total {:>6} (progress {}, combat {}, bonus {})",
                s.place,
                s.seat.name(),
                name_of(o, s.seat),
                s.total,
                s.progress,
                s.combat,
                s.bonus
            );
        }
        let url = rest
            .endpoint()
            .base()
            .join(&end.replay_url)
            .map_or(end.replay_url.clone(), |u| u.to_string());
        println!("  replay: {url}");
        if !a.no_verify {
            match rest.ended_replay(&end.replay_url).await {
                Ok(replay) => match engine::replay::verify(&replay) {
                    Ok(_) => println!(
                        "  replay verified: {} turns re-played, dice, events and standings match",
                        replay.turns.len()
                    ),
                    Err(e) => {
                        ok = false;
                        println!("  replay MISMATCH: {e}");
                    }
                },
                Err(e) => {
                    ok = false;
                    println!("  replay not available: {e}");
                }
            }
        }
    }
    let snap = stats.snapshot();
    if let Some(l) = &snap.latency {
        println!(
            "submit->turn_resolved: n {} p50 {:.2} ms p99 {:.2} ms max {:.2} ms",
            l.count, l.p50_ms, l.p99_ms, l.max_ms
        );
    }
    if !snap.errors.is_empty() {
        println!("errors: {:?}", snap.errors);
    }
    if (ended.len() as u32) < a.matches {
        println!(
            "only {} of {} matches ended within {} s",
            ended.len(),
            a.matches,
            a.timeout_secs
        );
    }
    Ok(ok)
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let rt = tokio::runtime::Runtime::new().expect("tokio runtime");
    match rt.block_on(run(Args::parse())) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("ludo-bots: {e}");
            ExitCode::from(2)
        }
    }
}
