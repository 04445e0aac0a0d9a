//! Harness for the tests that run against both databases: a server on a given store
//! ([`Srv`]), throw-away databases ([`TempPg`], [`temp_sqlite`]), a TCP [`Gate`] that
//! can cut the server off PostgreSQL, and [`play_greedy`], a scripted human that plays
//! its seat to `match_ended`.

use crate::common::{Client, Started};
use engine::Seat;
use protocol::{MatchEnded, ServerMsg};
use serde_json::{json, Value};
use server::room::Occupant;
use server::{AppState, Config};
use sqlx::postgres::{PgConnectOptions, PgPool};
use sqlx::Executor;
use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Short clocks for whole matches: humans play at once, bots move at once, the match
/// clock (rule 9.1) ends a match after `match_seconds`.
pub fn quick_config(match_seconds: u32) -> Config {
    Config {
        turn_seconds: 5,
        match_seconds,
        bot_think_ms: 0,
        bot_fill_seconds: 60,
        shutdown_grace_seconds: 5,
        rate_per_second: 1000,
        rate_burst: 1000,
        ..Config::default()
    }
}

/// The real server (`server::run`) on 127.0.0.1:0 over `store`/`writer`.
pub struct Srv {
    pub addr: SocketAddr,
    pub state: AppState,
    handle: Option<JoinHandle<std::io::Result<()>>>,
}

pub async fn serve(config: Config, store: store::Store, writer: store::WriterHandle) -> Srv {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState::new(config, store, writer);
    let handle = tokio::spawn(server::run(listener, state.clone(), std::future::pending()));
    Srv {
        addr,
        state,
        handle: Some(handle),
    }
}

impl Srv {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `GET path`: (status, JSON body). Every answer of this API is JSON.
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let r = reqwest::get(self.url(path)).await.unwrap();
        let status = r.status().as_u16();
        let ct = r
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        assert!(
            ct.starts_with("application/json"),
            "{path}: content-type {ct:?}"
        );
        (status, r.json().await.unwrap())
    }

    /// A new guest, connected and welcomed.
    pub async fn player(&self, name: &str) -> Client {
        let r = reqwest::Client::new()
            .post(self.url("/api/v1/guests"))
            .json(&json!({ "name": name }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let v: Value = r.json().await.unwrap();
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", self.addr))
            .await
            .unwrap();
        let mut c = Client {
            ws,
            player_id: v["player_id"].as_str().unwrap().parse().unwrap(),
            token: v["token"].as_str().unwrap().to_string(),
            name: name.to_string(),
        };
        c.hello().await;
        c
    }

    /// Stops the server and waits for `run` to return (the writer is flushed).
    pub async fn stop(&mut self) {
        self.state.shutdown_token().cancel();
        if let Some(h) = self.handle.take() {
            let _ = tokio::time::timeout(Duration::from_secs(15), h).await;
        }
    }
}

/// The seat of a connected human.
pub fn human(c: &Client) -> Occupant {
    Occupant::Human {
        player_id: c.player_id,
        name: c.name.clone(),
    }
}

/// What a scripted human saw of its match.
pub struct Played {
    pub client: Client,
    pub ended: MatchEnded,
    /// Turn numbers of every `turn_resolved`, in order.
    pub resolved: Vec<u32>,
}

/// Plays `st`'s seat with the greedy bot until `match_ended`: on its own
/// `turn_started` it asks for a snapshot (`resync` from 0) and submits the bot's plan
/// for the snapshot's position.
pub async fn play_greedy(mut c: Client, st: Started) -> Played {
    let me: Seat = st.your_seat.expect("a seated player");
    let mut strategy = bot::new_bot(bot::BotKind::Greedy, me.index() as u64 + 7);
    let mut resolved = Vec::new();
    loop {
        match c.recv().await.msg {
            ServerMsg::TurnStarted(t) if t.seat == me => {
                c.send(json!({"t": "resync", "d": {"match_id": st.match_id, "last_seq": 0}}))
                    .await;
            }
            ServerMsg::Snapshot(snap) => {
                if let Some(turn) = snap.turn.filter(|t| t.seat == me) {
                    let plan = strategy.choose(&snap.position, &snap.rules);
                    c.send(json!({"t": "submit_turn", "d": {"match_id": st.match_id,
                        "turn_number": turn.turn_number, "plan": plan}}))
                        .await;
                }
            }
            ServerMsg::TurnResolved(r) => resolved.push(r.turn_number),
            ServerMsg::MatchEnded(ended) => {
                return Played {
                    client: c,
                    ended,
                    resolved,
                }
            }
            ServerMsg::Error(e) => assert_eq!(
                e.code,
                protocol::ErrorCode::MatchOver,
                "only the clock may beat a plan: {e:?}"
            ),
            _ => {}
        }
    }
}

/// A SQLite database file in a fresh temporary directory (deleted with the guard).
pub fn temp_sqlite() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("rest.db").display());
    (dir, url)
}

/// The PostgreSQL server of the tests: `LUDO_TEST_PG_URL`, or the local server as
/// user `postgres`.
pub fn pg_admin_url() -> String {
    std::env::var("LUDO_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string())
}

/// `url` with its database replaced by `db` and, when given, its `host:port` by
/// `authority` (user, password and query kept).
pub fn pg_url(url: &str, authority: Option<&str>, db: &str) -> String {
    let (scheme, rest) = url.split_once("://").expect("URL has a scheme");
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, format!("?{q}")),
        None => (rest, String::new()),
    };
    let hostpart = rest.split('/').next().unwrap_or(rest);
    let (userinfo, hostport) = match hostpart.rsplit_once('@') {
        Some((u, h)) => (format!("{u}@"), h),
        None => (String::new(), hostpart),
    };
    format!(
        "{scheme}://{userinfo}{}/{db}{query}",
        authority.unwrap_or(hostport)
    )
}

/// A fresh PostgreSQL database `ludo_rest_<uuid>`, dropped by [`TempPg::drop_db`].
pub struct TempPg {
    pub name: String,
    pub url: String,
    admin: PgPool,
}

impl TempPg {
    /// Creates the database. Panics when PostgreSQL cannot be reached: these tests
    /// must not pass silently without it.
    pub async fn create() -> TempPg {
        let admin_url = pg_admin_url();
        let admin = PgPool::connect(&admin_url)
            .await
            .unwrap_or_else(|e| panic!("PostgreSQL is required for this test ({admin_url}): {e}"));
        let name = format!("ludo_rest_{}", Uuid::new_v4().simple());
        admin
            .execute(format!("CREATE DATABASE {name}").as_str())
            .await
            .expect("CREATE DATABASE");
        let url = pg_url(&admin_url, None, &name);
        TempPg { name, url, admin }
    }

    /// `host:port` of the server.
    pub fn authority(&self) -> String {
        let o = PgConnectOptions::from_str(&self.url).expect("a PostgreSQL URL");
        format!("{}:{}", o.get_host(), o.get_port())
    }

    /// Drops the database, closing its remaining connections.
    pub async fn drop_db(self) {
        self.admin
            .execute(format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name).as_str())
            .await
            .expect("DROP DATABASE");
        self.admin.close().await;
    }
}

/// Runs `f` as a task so that cleanup can run even when it panics; re-raise with
/// `std::panic::resume_unwind`.
pub async fn run_catching<F>(f: F) -> Result<(), Box<dyn std::any::Any + Send>>
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    tokio::spawn(f).await.map_err(|e| e.into_panic())
}

/// A TCP gate in front of a database. Open: forwards each connection. Closed: cuts
/// every forwarded connection at once and accepts and drops new ones, so the
/// database looks down to everything behind the gate.
pub struct Gate {
    pub addr: SocketAddr,
    inner: Arc<Mutex<GateState>>,
    refused: Arc<AtomicUsize>,
}

struct GateState {
    open: bool,
    /// Cancelled on close: every connection forwarded since the last close ends.
    cut: CancellationToken,
}

impl Gate {
    /// An open gate to `target` (`host:port`).
    pub async fn start(target: String) -> Gate {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let inner = Arc::new(Mutex::new(GateState {
            open: true,
            cut: CancellationToken::new(),
        }));
        let refused = Arc::new(AtomicUsize::new(0));
        let (st, r) = (inner.clone(), refused.clone());
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let cut = {
                    let g = st.lock().unwrap();
                    g.open.then(|| g.cut.clone())
                };
                let Some(cut) = cut else {
                    r.fetch_add(1, Ordering::SeqCst);
                    drop(inbound);
                    continue;
                };
                let target = target.clone();
                tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(&target).await {
                        tokio::select! {
                            _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                            _ = cut.cancelled() => {}
                        }
                    }
                });
            }
        });
        Gate {
            addr,
            inner,
            refused,
        }
    }

    /// Cuts every connection and refuses new ones.
    pub fn close(&self) {
        let mut g = self.inner.lock().unwrap();
        g.open = false;
        g.cut.cancel();
        g.cut = CancellationToken::new();
    }

    /// Forwards again.
    pub fn open(&self) {
        self.inner.lock().unwrap().open = true;
    }

    /// Connections refused while closed.
    pub fn refused(&self) -> usize {
        self.refused.load(Ordering::SeqCst)
    }
}
