//! A table of four bot clients: they meet in a private lobby (one host, three
//! joiners by code) or in the quick-play queue, play the match to its end, and meet
//! again while time and the shared match budget last. Used by `ludo-bots` and the
//! load generator.

use crate::error::{ClientError, Result};
use crate::player::{play_match, MatchOutcome, PlayOptions};
use crate::rest::Rest;
use crate::session::Session;
use crate::stats::Stats;
use bot::BotKind;
use engine::Mode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// How the four clients of a table get into a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Meet {
    /// The first client creates a private lobby, the others join it by code, the host
    /// starts it: the four are seated together.
    Lobby,
    /// All four join the quick-play queue; the server seats waiting players in fours.
    Queue,
}

/// What a table plays.
#[derive(Debug, Clone)]
pub struct TableConfig {
    /// journey or clash.
    pub game: Mode,
    /// Lobby or queue.
    pub meet: Meet,
    /// The strategy each client plays with.
    pub bot: BotKind,
    /// Think time, stop instant, reconnects.
    pub play: PlayOptions,
    /// Wait this long before the first match (to spread many tables' turns in time).
    pub start_delay: Duration,
    /// Lobby: the level of the server's bots that fill the seats no client takes
    /// (`None`: four clients per table, no bots).
    pub bot_fill: Option<protocol::BotLevel>,
}

/// Matches left to start, shared by all tables.
#[derive(Debug)]
pub struct Budget(AtomicU64);

impl Budget {
    /// A budget of `n` matches (`u64::MAX` for no limit).
    pub fn new(n: u64) -> Budget {
        Budget(AtomicU64::new(n))
    }
    /// Takes one match from the budget; false when it is spent.
    pub fn take(&self) -> bool {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }
    /// Matches left.
    pub fn left(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Creates a guest named `name` and opens an authenticated session for it, counting
/// the connection in `stats`.
pub async fn connect_seat(rest: &Rest, name: &str, stats: &Stats) -> Result<Session> {
    let guest = rest.create_guest(name).await?;
    let s = Session::connect(
        rest.endpoint(),
        guest,
        concat!("ludo-client/", env!("CARGO_PKG_VERSION")),
    )
    .await?;
    stats.connected();
    Ok(s)
}

/// Counts `e` unless it is only the stop instant passing while waiting.
fn note_error(e: &ClientError, stop_at: Instant, stats: &Stats) {
    if matches!(e, ClientError::Timeout(_)) && Instant::now() >= stop_at {
        return;
    }
    tracing::warn!("seat error: {e}");
    stats.error(&e.label());
}

fn remaining(stop_at: Instant) -> Duration {
    stop_at.saturating_duration_since(Instant::now())
}

async fn close(s: Session, stats: &Stats) {
    s.close().await;
    stats.disconnected();
}

/// How often and how long to retry a request answered `already_busy`.
const BUSY_RETRIES: u32 = 40;
const BUSY_BACKOFF: Duration = Duration::from_millis(50);

/// Awaits the request future `$req` (an expression, evaluated again for each try)
/// and repeats it while the server answers `already_busy`: right after `match_ended`
/// the server may not yet have freed the players of the ended match.
macro_rules! retry_busy {
    ($req:expr) => {{
        let mut tries = 0;
        loop {
            match $req.await {
                Err(e)
                    if e.code() == Some(protocol::ErrorCode::AlreadyBusy)
                        && tries < BUSY_RETRIES =>
                {
                    tries += 1;
                    tokio::time::sleep(BUSY_BACKOFF).await;
                }
                r => break r,
            }
        }
    }};
}

async fn host_round(
    host: &mut Session,
    joiners: &[mpsc::UnboundedSender<String>],
    cfg: &TableConfig,
    strategy: &mut (dyn bot::Strategy + Send),
    stats: &Stats,
) -> Result<MatchOutcome> {
    let lobby = retry_busy!(host.create_lobby(cfg.game, true, cfg.bot_fill))?;
    for tx in joiners {
        tx.send(lobby.code.clone())
            .map_err(|_| ClientError::Unexpected("a joiner of the table is gone".into()))?;
    }
    if !joiners.is_empty() {
        host.wait_lobby_members(1 + joiners.len(), remaining(cfg.play.stop_at))
            .await?;
    }
    let started = host.start_lobby().await?;
    stats.match_started();
    play_match(host, &started, strategy, &cfg.play, stats).await
}

async fn joiner_round(
    s: &mut Session,
    code: &str,
    cfg: &TableConfig,
    strategy: &mut (dyn bot::Strategy + Send),
    stats: &Stats,
) -> Result<MatchOutcome> {
    retry_busy!(s.join_lobby(code))?;
    let started = s.wait_match_started(remaining(cfg.play.stop_at)).await?;
    play_match(s, &started, strategy, &cfg.play, stats).await
}

async fn queue_seat(
    mut s: Session,
    cfg: Arc<TableConfig>,
    budget: Arc<Budget>,
    stats: Arc<Stats>,
    seed: u64,
) -> Vec<MatchOutcome> {
    let mut strategy = bot::new_bot(cfg.bot, seed);
    let mut out = Vec::new();
    while Instant::now() < cfg.play.stop_at && budget.left() > 0 {
        let round = async {
            retry_busy!(s.join_queue(cfg.game))?;
            let started = s.wait_match_started(remaining(cfg.play.stop_at)).await?;
            if started
                .seats
                .iter()
                .find(|x| !x.bot)
                .and_then(|x| x.player_id)
                == Some(s.player_id())
            {
                budget.take();
                stats.match_started();
            }
            play_match(&mut s, &started, strategy.as_mut(), &cfg.play, &stats).await
        };
        match round.await {
            Ok(o) => out.push(o),
            Err(e) => {
                note_error(&e, cfg.play.stop_at, &stats);
                break;
            }
        }
    }
    close(s, &stats).await;
    out
}

/// Runs one table with its connected sessions (four, or fewer when the server's
/// bots fill the rest, [`TableConfig::bot_fill`]; the first hosts) until
/// `cfg.play.stop_at` or the budget is spent, and returns every outcome each client
/// saw (so a match appears once per client that played it to the end or to the
/// stop).
pub async fn run_table(
    sessions: Vec<Session>,
    cfg: Arc<TableConfig>,
    budget: Arc<Budget>,
    stats: Arc<Stats>,
    seed: u64,
) -> Vec<MatchOutcome> {
    tokio::time::sleep(cfg.start_delay).await;
    let mut tasks = tokio::task::JoinSet::new();
    if cfg.meet == Meet::Queue {
        for (i, s) in sessions.into_iter().enumerate() {
            tasks.spawn(queue_seat(
                s,
                cfg.clone(),
                budget.clone(),
                stats.clone(),
                seed.wrapping_add(i as u64),
            ));
        }
        return tasks.join_all().await.into_iter().flatten().collect();
    }
    let mut sessions = sessions.into_iter();
    let Some(host) = sessions.next() else {
        return Vec::new();
    };
    let mut txs = Vec::new();
    for (i, mut s) in sessions.enumerate() {
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        txs.push(tx);
        let (cfg, stats) = (cfg.clone(), stats.clone());
        tasks.spawn(async move {
            let mut strategy = bot::new_bot(cfg.bot, seed.wrapping_add(1 + i as u64));
            let mut out = Vec::new();
            while let Some(code) = rx.recv().await {
                match joiner_round(&mut s, &code, &cfg, strategy.as_mut(), &stats).await {
                    Ok(o) => out.push(o),
                    Err(e) => {
                        note_error(&e, cfg.play.stop_at, &stats);
                        break;
                    }
                }
            }
            close(s, &stats).await;
            out
        });
    }
    let mut host = host;
    let mut strategy = bot::new_bot(cfg.bot, seed);
    let mut out = Vec::new();
    while Instant::now() < cfg.play.stop_at && budget.take() {
        match host_round(&mut host, &txs, &cfg, strategy.as_mut(), &stats).await {
            Ok(o) => out.push(o),
            Err(e) => {
                note_error(&e, cfg.play.stop_at, &stats);
                break;
            }
        }
    }
    drop(txs);
    close(host, &stats).await;
    out.extend(tasks.join_all().await.into_iter().flatten());
    out
}
