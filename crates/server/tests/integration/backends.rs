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
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// Short clocks for whole matches: humans play at once, bots move at once, the match
/// clock (rule 9.1) ends a match after `match_seconds`.
pub(crate) fn quick_config(match_seconds: u32) -> Config {
    Config {
        turn_seconds: 5,
        match_seconds,
        bot_think_ms: 0,
        bot_fill_seconds: 60,
        shutdown_grace_seconds: 5,
        rate_per_second: 1000,
        rate_burst: 1000,
        // One rated match lists a player on the leaderboard.
        rating_min_matches: 1,
        // The seed alone keys the dice: the first turn starts at once.
        contribution_window_ms: 0,
        ..Config::default()
    }
}

/// The real server (`server::run`) on 127.0.0.1:0 over `store`/`writer`.
pub(crate) struct Srv {
    pub addr: SocketAddr,
    pub state: AppState,
    handle: Option<JoinHandle<std::io::Result<()>>>,
}

pub(crate) async fn serve(config: Config, store: store::Store, writer: store::WriterHandle) -> Srv {
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
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `GET path`: (status, JSON body). Every answer of this API is JSON.
    pub(crate) async fn get(&self, path: &str) -> (u16, Value) {
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
    pub(crate) async fn player(&self, name: &str) -> Client {
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
    pub(crate) async fn stop(&mut self) {
        self.state.shutdown_token().cancel();
        if let Some(h) = self.handle.take() {
            let _ = tokio::time::timeout(Duration::from_secs(15), h).await;
        }
    }
}

/// The seat of a connected human.
pub(crate) fn human(c: &Client) -> Occupant {
    Occupant::Human {
        player_id: c.player_id,
        name: c.name.clone(),
    }
}

/// What a scripted human saw of its match.
pub(crate) struct Played {
    pub client: Client,
    pub ended: MatchEnded,
    /// Turn numbers of every `turn_resolved`, in order.
    pub resolved: Vec<u32>,
}

/// Plays `st`'s seat with the greedy bot until `match_ended`: on its own
/// `turn_started` it asks for a snapshot (`resync` from 0) and submits the bot's plan
/// for the snapshot's position.
pub(crate) async fn play_greedy(mut c: Client, st: Started) -> Played {
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
            // Only the clocks may beat a plan: the match clock (match_over) or, on a
            // loaded machine, the turn timer (a plan read at or after turn_deadline
            // is late: stale_turn, and the turn times out, rule 4.6).
            ServerMsg::Error(e) => assert!(
                matches!(
                    e.code,
                    protocol::ErrorCode::MatchOver | protocol::ErrorCode::StaleTurn
                ),
                "only the clocks may beat a plan: {e:?}"
            ),
            _ => {}
        }
    }
}

/// A SQLite database file in a fresh temporary directory (deleted with the guard).
pub(crate) fn temp_sqlite() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("rest.db").display());
    (dir, url)
}

pub(crate) use store::testing::{authority, run_catching, url_via, Gate, TempPg};
