//! `verify-replay` end to end (RULES.md §10: same seed + same plans ⇒ same match):
//! four bot clients play a lobby match on the real server (in-process, 127.0.0.1:0,
//! SQLite) until its 3-second clock ends it; the replay fetched over REST re-plays
//! with exit 0, and the same replay with one die changed fails with exit 1 naming
//! that turn.

use client::player::PlayOptions;
use client::table::{connect_seat, run_table, Budget, Meet, TableConfig};
use client::{Endpoint, Rest, Stats};
use engine::Mode;
use serde_json::Value;
use server::{AppState, Config};
use std::sync::Arc;
use std::time::Duration;
use tokio::process::Command;
use tokio::time::Instant;

const VERIFY: &str = env!("CARGO_BIN_EXE_verify-replay");

async fn start_server(dir: &tempfile::TempDir) -> (String, AppState) {
    let db = format!("sqlite://{}", dir.path().join("verify.db").display());
    let store = store::Store::connect(Some(&db)).await.unwrap();
    let writer = store::spawn_writer(store.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let config = Config {
        turn_seconds: 5,
        match_seconds: 3,
        bot_think_ms: 0,
        bot_fill_seconds: 60,
        ..Config::default()
    };
    let state = AppState::new(config, store, writer);
    tokio::spawn(server::run(listener, state.clone(), std::future::pending()));
    (url, state)
}

/// Runs `verify-replay source`: (exit code, stdout, stderr).
async fn verify_replay(source: &str) -> (Option<i32>, String, String) {
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        Command::new(VERIFY).arg(source).output(),
    )
    .await
    .expect("verify-replay finishes")
    .expect("verify-replay runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_replay_verifies_and_a_changed_die_is_named_by_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (url, state) = start_server(&dir).await;
    let rest = Rest::new(Endpoint::parse(&url).unwrap());
    let stats = Arc::new(Stats::default());
    let mut seats = Vec::new();
    for i in 0..4 {
        seats.push(connect_seat(&rest, &format!("v{i}"), &stats).await.unwrap());
    }
    let cfg = Arc::new(TableConfig {
        game: Mode::Journey,
        meet: Meet::Lobby,
        bot: bot::BotKind::Greedy,
        play: PlayOptions {
            think: Duration::from_millis(10),
            stop_at: Instant::now() + Duration::from_secs(20),
            reconnects: 0,
            relocate: false,
        },
        start_delay: Duration::ZERO,
        bot_fill: None,
    });
    let outcomes = run_table(seats, cfg, Arc::new(Budget::new(1)), stats.clone(), 3).await;
    assert_eq!(outcomes.len(), 4, "each client played the match");
    let end = outcomes[0].end.clone().expect("the match ended");
    let id = outcomes[0].match_id;
    assert!(outcomes.iter().all(|o| o.end.as_ref() == Some(&end)));
    state.writer().flush().await;

    // The replay over REST: the seed is revealed and is the one `match_ended` gave.
    let replay_url = format!("{url}/api/v1/matches/{id}/replay");
    let resp = reqwest::get(&replay_url).await.unwrap();
    assert_eq!(resp.status(), 200);
    let mut doc: Value = resp.json().await.unwrap();
    assert_eq!(doc["seed"], Value::String(end.seed.clone()));
    let turns = doc["turns"].as_array().unwrap().len();
    assert!(turns >= 8, "at least two rounds were played, got {turns}");

    // Unchanged: exit 0, every turn re-played, the standings of `match_ended`.
    let (code, stdout, stderr) = verify_replay(&replay_url).await;
    assert_eq!(code, Some(0), "stdout: {stdout}\nstderr: {stderr}");
    let reason = serde_json::to_value(end.reason).unwrap();
    assert!(
        stdout.starts_with(&format!(
            "ok: {turns} turns re-played, dice, events and standings match (end: {})",
            reason.as_str().unwrap()
        )),
        "{stdout}"
    );
    for s in &end.standings {
        let line = format!("  {} {:<6} total {:>6}", s.place, s.seat.name(), s.total);
        assert!(stdout.contains(&line), "{line:?} in {stdout}");
    }
    // The dice scheme (proto/README.md §10): the four bot clients contributed.
    assert!(
        stdout.contains("dice: scheme contributed; sha256(seed) = dice_commitment"),
        "{stdout}"
    );
    let contributions = doc["contributions"].as_array().unwrap().clone();
    assert_eq!(contributions.len(), 4);
    for c in &contributions {
        let line = format!(
            "  {:<6} 32 bytes {}",
            c["seat"].as_str().unwrap(),
            c["entropy"].as_str().unwrap()
        );
        assert!(stdout.contains(&line), "{line:?} in {stdout}");
    }

    // One recorded contribution changed: exit 1 at turn 1's dice, and it says why.
    let mut tampered = doc.clone();
    let e = tampered["contributions"][2]["entropy"]
        .as_str()
        .unwrap()
        .to_string();
    let first = if e.starts_with('0') { "1" } else { "0" };
    let flipped = format!("{first}{}", &e[1..]);
    tampered["contributions"][2]["entropy"] = Value::from(flipped);
    let file = dir.path().join("contribution.json");
    std::fs::write(&file, serde_json::to_vec(&tampered).unwrap()).unwrap();
    let (code, stdout, stderr) = verify_replay(file.to_str().unwrap()).await;
    assert_eq!(code, Some(1), "stdout: {stdout}\nstderr: {stderr}");
    assert!(
        stdout.starts_with("MISMATCH turn 1: dice differs"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "the recorded dice do not follow from the seed and the recorded contributions"
        ),
        "{stdout}"
    );

    // One die changed in the middle turn: exit 1, and the mismatch names that turn.
    let k = turns / 2;
    let turn = doc["turns"][k]["turn_number"].as_u64().unwrap();
    let die = &mut doc["turns"][k]["dice"][0];
    let changed = die.as_u64().unwrap() % 6 + 1;
    *die = Value::from(changed);
    let file = dir.path().join("tampered.json");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    let (code, stdout, stderr) = verify_replay(file.to_str().unwrap()).await;
    assert_eq!(code, Some(1), "stdout: {stdout}\nstderr: {stderr}");
    assert!(
        stdout.contains(&format!("MISMATCH turn {turn}: dice differs")),
        "{stdout}"
    );

    // An unknown match: the server's 404 is reported as unreadable input (exit 2).
    let missing = format!("{url}/api/v1/matches/{}/replay", uuid::Uuid::new_v4());
    let (code, _, stderr) = verify_replay(&missing).await;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("404"), "{stderr}");

    // A replay without a seed (a match not yet stored as ended) cannot be re-played:
    // exit 2 with a message that says why, not a mismatch.
    doc["seed"] = Value::Null;
    let file = dir.path().join("running.json");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    let (code, _, stderr) = verify_replay(file.to_str().unwrap()).await;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("has not ended yet"), "{stderr}");
    state.shutdown_token().cancel();
}
