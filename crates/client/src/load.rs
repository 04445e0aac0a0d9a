//! The load generator behind `ludo-load`: 4·N bot clients playing N concurrent
//! matches against a server on this machine, for a fixed time or number of matches.
//!
//! Phases: (1) create 4·N guests and open 4·N authenticated sockets (a bounded number
//! at a time); (2) the tables play, their first matches spread over one think time so
//! the turns do not all fall on the same instant, until `duration` passes or
//! `max_matches` have been started; (3) every socket closes. The run stops by itself:
//! each phase is bounded in time, and a hard limit of `duration` + 30 s aborts whatever
//! is still running. Only loopback servers are accepted.
//!
//! Several servers (the nodes of a cluster, `urls`): table `t` connects its four
//! clients to `urls[t % n]`, where its lobby (so its match) is created; with
//! [`Placement::Other`] the four move to the next node once the match started, so
//! every frame of the match crosses NATS. In every mode a client whose socket is
//! lost during a match (a node restarting: close 1001 or 1012, or a broken socket)
//! rejoins the match on the next node with `hello.last_seq` and carries on, up to
//! `reconnects` times; such reconnects are counted apart from errors, and so are the
//! plans re-sent after one (proto §6.1) and their expected `stale_turn` answers
//! ([`crate::stats::StatsSnapshot::resent`]). Server memory
//! and `/metrics` figures are those of the first URL's server.
//!
//! In [`LoadMode::Idle`] the clients only authenticate and hold their sockets for
//! `duration`, to measure what idle authenticated sockets cost the server.

use crate::codec::Decode;
use crate::endpoint::Endpoint;
use crate::error::{ClientError, Result};
use crate::memory::{listener_pid, rss, Rss};
use crate::player::PlayOptions;
use crate::rest::Rest;
use crate::server_metrics::{self, ServerView};
use crate::session::Session;
use crate::stats::{Stats, StatsSnapshot};
use crate::table::{connect_seat, run_table, Budget, Meet, TableConfig};
use crate::window::{self, CpuWindow, Probe};
use bot::BotKind;
use engine::Mode;
use futures_util::FutureExt;
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;

/// Longest the connect phase may take.
pub const SETUP_LIMIT: Duration = Duration::from_secs(120);
/// Extra time after `duration` before unfinished tables are aborted.
pub const GRACE: Duration = Duration::from_secs(30);

/// What the clients do once connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadMode {
    /// Four clients per table meet in a private lobby and play.
    Lobby,
    /// Every client joins the quick-play queue and plays what it is seated in.
    Queue,
    /// Clients authenticate and hold their sockets without playing.
    Idle,
}

/// Where the four players of a match sit, with several servers (cluster nodes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// On the node that creates (so owns) the match.
    Owner,
    /// On another node than the match's creator: they meet there, then move to the
    /// next node once the match started (needs two URLs or more).
    #[value(alias = "spread")]
    Other,
}

/// A load run.
#[derive(Debug, Clone, Serialize)]
pub struct LoadConfig {
    /// The servers' base URLs (one, or the nodes of a cluster); each must be
    /// loopback (e.g. `http://127.0.0.1:8080`).
    pub urls: Vec<String>,
    /// Where the players of a match sit (lobby mode, several URLs).
    pub placement: Placement,
    /// Times one client may rejoin its match after losing its socket.
    pub reconnects: u32,
    /// Concurrent matches N (4·N sockets). In idle mode: 4·N idle sockets.
    pub matches: u32,
    /// Think time before each submit, ms.
    pub think_ms: u64,
    /// How long the play (or idle hold) phase lasts, s.
    pub duration_secs: u64,
    /// Start of the steady window measured for CPU per turn, s after the play phase
    /// began (at most a quarter of it; see [`window::bounds`]).
    pub warmup_secs: u64,
    /// Stop starting new matches after this many (None: no limit).
    pub max_matches: Option<u64>,
    /// Lobby, queue or idle.
    pub mode: LoadMode,
    /// journey or clash.
    pub game: Mode,
    /// Strategy of the bot clients.
    #[serde(serialize_with = "ser_display")]
    pub bot: BotKind,
    /// The server's process id, for its resident memory (found by port when None).
    pub server_pid: Option<i32>,
    /// Sockets opened at the same time during setup.
    pub connect_concurrency: usize,
    /// Seed of the bots' generators.
    pub seed: u64,
    /// Decode every frame whole and check every `turn_resolved.events` (default:
    /// [`Decode::Lite`], which skips the bulk of `turn_resolved` to keep the load
    /// generator's own CPU use low; standings are checked either way).
    pub full_decode: bool,
    /// Lobby mode: seats of each match left to the server's bots (0 to 3; default
    /// 0). Each table then has 4 − `bot_seats` clients; the host's lobby fills the
    /// rest with bots of [`LoadConfig::bot_level`] (issue 32: the server's cost of
    /// its bots, e.g. three expert seats per match).
    pub bot_seats: u8,
    /// Level of the server's bots in the seats of [`LoadConfig::bot_seats`].
    pub bot_level: protocol::BotLevel,
}

fn ser_display<S: serde::Serializer>(v: &BotKind, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(v.name())
}

impl Default for LoadConfig {
    fn default() -> Self {
        LoadConfig {
            urls: vec!["http://127.0.0.1:8080".into()],
            placement: Placement::Owner,
            reconnects: 5,
            matches: 10,
            think_ms: 1000,
            duration_secs: 30,
            warmup_secs: 5,
            max_matches: None,
            mode: LoadMode::Lobby,
            game: Mode::Clash,
            bot: BotKind::Random,
            server_pid: None,
            connect_concurrency: 64,
            seed: 1,
            full_decode: false,
            bot_seats: 0,
            bot_level: protocol::BotLevel::default(),
        }
    }
}

/// Server memory at the phases of a run, KiB.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MemoryReport {
    /// The server process measured.
    pub pid: Option<i32>,
    /// Before any client connected.
    pub before: Option<Rss>,
    /// Once every socket was authenticated.
    pub connected: Option<Rss>,
    /// Largest resident size sampled (once a second) during the play/idle phase, KiB.
    pub during_max_kb: Option<u64>,
    /// After the run, sockets closed.
    pub after: Option<Rss>,
    /// (during_max − before) / sockets, KiB.
    pub per_socket_kb: Option<f64>,
    /// (during_max − before) / matches, KiB (play modes only).
    pub per_match_kb: Option<f64>,
}

/// The result of a load run.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    /// The run's configuration.
    pub config: LoadConfig,
    /// Sockets that authenticated in the setup phase.
    pub sockets_connected: u64,
    /// Setup (guest creation + connect + hello) time, s.
    pub setup_secs: f64,
    /// Play (or idle hold) phase time, s.
    pub run_secs: f64,
    /// Turns resolved per second of the play phase.
    pub turns_per_sec: f64,
    /// Counters, latency percentiles and errors.
    pub stats: StatsSnapshot,
    /// Server memory.
    pub memory: MemoryReport,
    /// The server's own figures from `/metrics` (None when it has none).
    pub server: Option<ServerView>,
    /// CPU per turn over the steady window of the play phase (None when the run
    /// ended before the window did).
    pub window: Option<CpuWindow>,
}

impl LoadReport {
    /// Why the run fell short of what it was asked, if it did: no socket
    /// authenticated (a server of another protocol version, say); fewer sockets than
    /// the `(4 − bot_seats) × matches` asked for (the rest refused: a connection or guest limit, a
    /// server at capacity — the errors line says which), so every figure describes a
    /// smaller load than asked; or, in a playing mode, no match started. `ludo-load`
    /// then exits 1 after its report.
    pub fn shortfall(&self) -> Option<String> {
        let asked = (4 - u64::from(self.config.bot_seats)) * u64::from(self.config.matches);
        if self.sockets_connected == 0 {
            Some("no socket authenticated".into())
        } else if self.sockets_connected < asked {
            Some(format!(
                "only {} of the {asked} sockets asked for authenticated; the figures are for a smaller load",
                self.sockets_connected
            ))
        } else if self.config.mode != LoadMode::Idle && self.stats.matches_started == 0 {
            Some("no match started".into())
        } else {
            None
        }
    }

    /// The report as human-readable lines.
    pub fn render(&self) -> String {
        let c = &self.config;
        let s = &self.stats;
        let mut out = String::new();
        let mut line = |l: String| {
            out.push_str(&l);
            out.push('\n');
        };
        line(format!(
            "ludo-load: {} server(s), placement {:?}, mode {:?}, {} matches ({} sockets{}), think {} ms, duration {} s, max matches {}, game {}, bot {}, decode {}",
            c.urls.len(),
            c.placement,
            c.mode,
            c.matches,
            c.matches * (4 - u32::from(c.bot_seats)),
            if c.bot_seats > 0 {
                format!("; {} server bot seats per match, level {}", c.bot_seats, c.bot_level.name())
            } else {
                String::new()
            },
            c.think_ms,
            c.duration_secs,
            c.max_matches.map_or("-".into(), |m| m.to_string()),
            c.game.name(),
            c.bot.name(),
            if c.full_decode { "full" } else { "lite" }
        ));
        line(format!(
            "setup: {} sockets authenticated in {:.1} s",
            self.sockets_connected, self.setup_secs
        ));
        line(format!(
            "run: {:.1} s, matches started {}, completed {}, turns resolved {} ({:.1}/s), submits {}",
            self.run_secs, s.matches_started, s.matches_completed, s.turns, self.turns_per_sec, s.submits
        ));
        match &s.latency {
            Some(l) => line(format!(
                "submit->turn_resolved latency: n {} p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms, mean {:.2} ms",
                l.count, l.p50_ms, l.p95_ms, l.p99_ms, l.max_ms, l.mean_ms
            )),
            None => line("submit->turn_resolved latency: no samples".into()),
        }
        let errs = if s.errors.is_empty() {
            "none".to_string()
        } else {
            s.errors
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        line(format!(
            "errors: {} ({errs}); reconnects {}; plans re-sent after a reconnect {} ({} answered stale_turn, not errors); seq gaps {}",
            s.error_total(),
            s.reconnects,
            s.resent,
            s.resent_stale,
            s.seq_gaps
        ));
        line(format!(
            "connections: peak {}, open at end {}",
            s.connections_peak, s.connections
        ));
        let m = &self.memory;
        let kb = |r: Option<Rss>| r.map_or("-".into(), |r| format!("{} KiB", r.rss_kb));
        line(format!(
            "server rss (pid {}): before {}, connected {}, max during run {}, after {}, peak {}",
            m.pid.map_or("?".into(), |p| p.to_string()),
            kb(m.before),
            kb(m.connected),
            m.during_max_kb.map_or("-".into(), |k| format!("{k} KiB")),
            kb(m.after),
            m.after.map_or("-".into(), |r| format!("{} KiB", r.peak_kb)),
        ));
        if let Some(v) = &self.server {
            let ms = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x} ms"));
            let errs = if v.errors.is_empty() {
                "none".to_string()
            } else {
                v.errors
                    .iter()
                    .map(|(k, n)| format!("{k}={n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            line(format!(
                "server /metrics: turns resolved {}, submit->broadcast n {} p50 <= {}, p99 <= {}, errors sent {errs}, persistence backlog at end {}",
                v.turns,
                v.latency_count,
                ms(v.latency_p50_le_ms),
                ms(v.latency_p99_le_ms),
                v.persistence_backlog
            ));
        }
        if let Some(w) = &self.window {
            line(w.render());
        }
        line(format!(
            "server memory: {} per socket, {} per live match",
            m.per_socket_kb
                .map_or("-".into(), |k| format!("{k:.1} KiB")),
            m.per_match_kb.map_or("-".into(), |k| format!("{k:.1} KiB")),
        ));
        out
    }
}

/// Raises this process's open-file limit to its hard limit (thousands of sockets).
pub fn raise_fd_limit() {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) => tracing::debug!("open-file limit {n}"),
        Err(e) => tracing::warn!("cannot raise the open-file limit: {e}"),
    }
}

/// Samples the server's resident memory once a second until dropped; returns the largest.
struct Sampler {
    task: tokio::task::JoinHandle<()>,
    max: Arc<std::sync::atomic::AtomicU64>,
}

impl Sampler {
    fn start(pid: Option<i32>) -> Sampler {
        let max = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let m = max.clone();
        let task = tokio::spawn(async move {
            let Some(pid) = pid else { return };
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tick.tick().await;
                if let Some(r) = rss(pid) {
                    m.fetch_max(r.rss_kb, std::sync::atomic::Ordering::Relaxed);
                }
            }
        });
        Sampler { task, max }
    }
    fn finish(self, pid: Option<i32>) -> Option<u64> {
        self.task.abort();
        if let Some(r) = pid.and_then(rss) {
            self.max
                .fetch_max(r.rss_kb, std::sync::atomic::Ordering::Relaxed);
        }
        Some(self.max.load(std::sync::atomic::Ordering::Relaxed)).filter(|&k| k > 0)
    }
}

/// Keeps a table's sockets read (pings answered) until `until` completes; `None`
/// when a socket failed meanwhile (counted in `stats`).
async fn hold<F>(seats: &mut [Session], until: F, stats: &Stats) -> Option<F::Output>
where
    F: std::future::Future,
    F::Output: Clone,
{
    let until = until.shared();
    let results =
        futures_util::future::join_all(seats.iter_mut().map(|s| s.idle_until(until.clone()))).await;
    let mut out = None;
    for r in results {
        match r {
            Ok(v) => out = out.or(Some(v)),
            Err(e) => {
                tracing::warn!("socket failed while waiting: {e}");
                stats.error(&e.label());
                return None;
            }
        }
    }
    out
}

async fn close_all(seats: Vec<Session>, stats: &Stats) {
    for s in seats {
        s.close().await;
        stats.disconnected();
    }
}

/// Runs a load test against a loopback server and reports what it measured.
///
/// Errors: [`ClientError::BadUrl`] for a non-loopback or malformed URL (or none),
/// and [`ClientError::Unexpected`] when `matches` is 0 or [`Placement::Other`] has
/// fewer than two URLs. Failures of single clients do not
/// end the run: they are counted in the report's errors.
pub async fn run(config: LoadConfig) -> Result<LoadReport> {
    let endpoints = config
        .urls
        .iter()
        .map(|u| Endpoint::parse_loopback(u))
        .collect::<Result<Vec<_>>>()?;
    let Some(endpoint) = endpoints.first().cloned() else {
        return Err(ClientError::BadUrl {
            url: String::new(),
            reason: "no server URL given".into(),
        });
    };
    if config.matches == 0 {
        return Err(ClientError::Unexpected(
            "--matches must be at least 1".into(),
        ));
    }
    if config.bot_seats > 3 || (config.bot_seats > 0 && config.mode != LoadMode::Lobby) {
        return Err(ClientError::Unexpected(
            "--bot-seats is 0 to 3, and only in lobby mode".into(),
        ));
    }
    if config.placement == Placement::Other && endpoints.len() < 2 {
        return Err(ClientError::Unexpected(
            "--placement other needs at least two --url".into(),
        ));
    }
    raise_fd_limit();
    let pid = config.server_pid.or_else(|| listener_pid(endpoint.port()));
    let mut memory = MemoryReport {
        pid,
        before: pid.and_then(rss),
        ..MemoryReport::default()
    };
    let stats = Arc::new(Stats::default());
    let rests: Vec<Rest> = endpoints.iter().cloned().map(Rest::new).collect();
    let metrics_before = server_metrics::scrape(&endpoint).await;

    // Phase 1: every table connects its four clients (a bounded number at a time),
    // then keeps reading its sockets until the start signal.
    let setup_start = Instant::now();
    let permits = Arc::new(Semaphore::new(config.connect_concurrency.max(1)));
    let (go_tx, go_rx) = watch::channel::<Option<Instant>>(None);
    let (ready_tx, mut ready_rx) = mpsc::unbounded_channel::<bool>();
    let mut tables = JoinSet::new();
    let budget = Arc::new(Budget::new(config.max_matches.unwrap_or(u64::MAX)));
    let n = config.matches as u64;
    for t in 0..n {
        let (rest, endpoints, stats, permits, ready_tx, mut go_rx) = (
            rests[t as usize % rests.len()].clone(),
            endpoints.clone(),
            stats.clone(),
            permits.clone(),
            ready_tx.clone(),
            go_rx.clone(),
        );
        let (config, budget) = (config.clone(), budget.clone());
        tables.spawn(async move {
            let humans = 4 - usize::from(config.bot_seats);
            let mut seats = Vec::with_capacity(humans);
            for i in 0..humans {
                let _permit = permits
                    .acquire()
                    .await
                    .expect("the semaphore is never closed");
                match connect_seat(&rest, &format!("load-{t}-{i}"), &stats).await {
                    Ok(mut s) => {
                        s.set_endpoints(endpoints.clone());
                        s.set_decode(if config.full_decode {
                            Decode::Full
                        } else {
                            Decode::Lite
                        });
                        seats.push(s)
                    }
                    Err(e) => {
                        tracing::warn!("table {t} seat {i}: {e}");
                        stats.error(&e.label());
                        break;
                    }
                }
            }
            if seats.len() < humans {
                close_all(seats, &stats).await;
                let _ = ready_tx.send(false);
                return;
            }
            let _ = ready_tx.send(true);
            drop(ready_tx);
            let go = hold(
                &mut seats,
                async move {
                    *go_rx
                        .wait_for(Option::is_some)
                        .await
                        .expect("the run sends the start")
                        .as_ref()
                        .expect("is_some")
                },
                &stats,
            )
            .await;
            let Some(stop_at) = go else {
                close_all(seats, &stats).await;
                return;
            };
            if config.mode == LoadMode::Idle {
                hold(&mut seats, tokio::time::sleep_until(stop_at), &stats).await;
                close_all(seats, &stats).await;
                return;
            }
            let meet = if config.mode == LoadMode::Queue {
                Meet::Queue
            } else {
                Meet::Lobby
            };
            let cfg = Arc::new(TableConfig {
                game: config.game,
                meet,
                bot: config.bot,
                play: PlayOptions {
                    think: Duration::from_millis(config.think_ms),
                    stop_at,
                    reconnects: config.reconnects,
                    relocate: config.placement == Placement::Other && meet == Meet::Lobby,
                },
                start_delay: Duration::from_millis(config.think_ms * t / n),
                bot_fill: (config.bot_seats > 0).then_some(config.bot_level),
            });
            let seed = config.seed.wrapping_mul(1_000_003).wrapping_add(t * 4);
            run_table(seats, cfg, budget, stats, seed).await;
        });
    }
    drop(ready_tx);
    let mut sockets_connected = 0u64;
    let setup_deadline = setup_start + SETUP_LIMIT;
    for _ in 0..n {
        match tokio::time::timeout_at(setup_deadline, ready_rx.recv()).await {
            Ok(Some(true)) => sockets_connected += 4 - u64::from(config.bot_seats),
            Ok(Some(false)) => {}
            Ok(None) | Err(_) => {
                tracing::warn!("setup did not finish within {SETUP_LIMIT:?}");
                stats.error("setup_timeout");
                break;
            }
        }
    }
    let setup_secs = setup_start.elapsed().as_secs_f64();
    memory.connected = pid.and_then(rss);

    // Phase 2: play (or hold), then close.
    let duration = Duration::from_secs(config.duration_secs);
    let run_start = Instant::now();
    let stop_at = run_start + duration;
    let sampler = Sampler::start(pid);
    let _ = go_tx.send(Some(stop_at));
    let (w_start, w_end) = window::bounds(duration, Duration::from_secs(config.warmup_secs));
    let cpu_window = {
        let (endpoint, stats) = (endpoint.clone(), stats.clone());
        tokio::spawn(async move {
            tokio::time::sleep_until(run_start + w_start).await;
            let a = Probe::take(&endpoint, pid, stats.snapshot().turns).await;
            tokio::time::sleep_until(run_start + w_end).await;
            let b = Probe::take(&endpoint, pid, stats.snapshot().turns).await;
            CpuWindow::between(&a, &b)
        })
    };
    let all = async { while tables.join_next().await.is_some() {} };
    if tokio::time::timeout_at(stop_at + GRACE, all).await.is_err() {
        tracing::warn!("tables still running {GRACE:?} after the stop: aborted");
        stats.error("aborted");
        tables.shutdown().await;
    }
    let run_secs = run_start
        .elapsed()
        .as_secs_f64()
        .min(duration.as_secs_f64().max(f64::MIN_POSITIVE));
    let window = if cpu_window.is_finished() {
        cpu_window.await.ok()
    } else {
        cpu_window.abort();
        None
    };
    memory.during_max_kb = sampler.finish(pid);
    tokio::time::sleep(Duration::from_millis(200)).await;
    memory.after = pid.and_then(rss);
    if let (Some(b), Some(d)) = (memory.before, memory.during_max_kb) {
        let grown = d.saturating_sub(b.rss_kb) as f64;
        if sockets_connected > 0 {
            memory.per_socket_kb = Some(grown / sockets_connected as f64);
        }
        if config.mode != LoadMode::Idle && sockets_connected > 0 {
            memory.per_match_kb = Some(grown / (sockets_connected as f64 / 4.0).max(1.0));
        }
    }
    let metrics_after = server_metrics::scrape(&endpoint).await;
    let server = metrics_before
        .zip(metrics_after)
        .map(|(b, a)| ServerView::between(&b, &a));
    let snap = stats.snapshot();
    Ok(LoadReport {
        server,
        window,
        turns_per_sec: snap.turns as f64 / run_secs.max(1e-9),
        config,
        sockets_connected,
        setup_secs,
        run_secs,
        stats: snap,
        memory,
    })
}
