//! Ratings end to end (in-process server, SQLite, manual clock): three players play
//! four rated matches over WebSocket — two humans and two bots each; the loser
//! leaves (ranking last) and the match clock ends the match. `match_ended` carries
//! each human's rating change, computed as the Weng-Lin update from the ratings
//! before; bots carry none; the leaderboard lists the players by μ − 3σ; the REST
//! match summary and the player profile agree, and a recomputation from the
//! stored results gives the same ratings.

use crate::common::*;
use protocol::{MatchEnded, ServerMsg};
use serde_json::{json, Value};
use server::Clock;
use store::rating::{rate, Rating};
use uuid::Uuid;

/// Start of the manual clock (Unix ms).
const T0: u64 = 1_800_000_000_000;
/// The match clock of these matches (seconds).
const MATCH_SECONDS: u32 = 600;

async fn get(s: &TestServer, path: &str) -> Value {
    let r = reqwest::get(s.url(path)).await.unwrap();
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// `winner` hosts a journey lobby with bot fill, `loser` joins; once started the
/// loser leaves and the clock runs out. Returns the `match_ended` the winner saw.
async fn rated_match(clock: &Clock, winner: &mut Client, loser: &mut Client) -> MatchEnded {
    winner
        .send(json!({"t": "create_lobby", "d": {"mode": "journey", "fill_with_bots": true}}))
        .await;
    let (f, _) = winner
        .recv_until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await;
    let ServerMsg::LobbyState(lobby) = f.msg else {
        unreachable!()
    };
    loser
        .send(json!({"t": "join_lobby", "id": "join", "d": {"code": lobby.code}}))
        .await;
    loser
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "join"))
        .await;
    winner.send(json!({"t": "start_lobby"})).await;
    let started = expect_started(winner).await;
    expect_started(loser).await;
    loser
        .send(json!({"t": "leave_match", "id": "bye", "d": {"match_id": started.match_id}}))
        .await;
    loser
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "bye"))
        .await;
    // Wait for the leave to be shown before the clock runs out.
    winner
        .recv_until(|m| matches!(m, ServerMsg::SeatLeft(_)))
        .await;
    clock.advance_ms(u64::from(MATCH_SECONDS) * 1000 + 1);
    let (f, _) = winner
        .recv_until(|m| matches!(m, ServerMsg::MatchEnded(_)))
        .await;
    let ServerMsg::MatchEnded(end) = f.msg else {
        unreachable!()
    };
    assert_eq!(end.match_id, started.match_id);
    end
}

/// The rating change of `player`'s seat in `end` (the seat from the REST summary).
async fn change_of(s: &TestServer, end: &MatchEnded, player: Uuid) -> protocol::RatingChange {
    let m = get(s, &format!("/api/v1/matches/{}", end.match_id)).await;
    let seat = m["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["player_id"] == json!(player))
        .unwrap()["seat"]
        .clone();
    let seat: engine::Seat = serde_json::from_value(seat).unwrap();
    // The REST summary shows the same change as match_ended.
    let rest = m["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["seat"] == json!(seat))
        .unwrap()["rating"]
        .clone();
    let told = end
        .standings
        .iter()
        .find(|x| x.seat == seat)
        .unwrap()
        .rating
        .expect("a human seat of a rated match has a rating change");
    assert_eq!(rest, serde_json::to_value(told).unwrap());
    told
}

#[tokio::test]
async fn rated_matches_update_ratings_and_order_the_leaderboard() {
    let clock = Clock::manual(T0);
    let config = server::Config {
        match_seconds: MATCH_SECONDS,
        rating_min_matches: 2,
        // Bots wait (real time) rather than write turns: a write pending while the
        // test moves the manual clock would postpone the match clock (store stall).
        bot_think_ms: 600_000,
        ..test_config()
    };
    let s = start_with_clock(config, clock.clone()).await;
    let mut ada = s.player("Ada").await;
    let mut bo = s.player("Bo").await;
    let mut cy = s.player("Cy").await;

    // Match 1: Ada beats Bo, both new.
    let end1 = rated_match(&clock, &mut ada, &mut bo).await;
    let ada1 = change_of(&s, &end1, ada.player_id).await;
    let bo1 = change_of(&s, &end1, bo.player_id).await;
    let expected = rate(&[(Rating::initial(), 1), (Rating::initial(), 2)]);
    assert!(close(ada1.before.mu, 25.0) && close(ada1.before.sigma, 25.0 / 3.0));
    assert!(
        close(ada1.after.mu, expected[0].mu),
        "{ada1:?} vs {expected:?}"
    );
    assert!(close(ada1.after.sigma, expected[0].sigma));
    assert!(close(bo1.after.mu, expected[1].mu));
    assert!(ada1.change > 0.0 && bo1.after.mu < 25.0, "{ada1:?} {bo1:?}");
    assert!(close(
        ada1.change,
        ada1.after.conservative - ada1.before.conservative
    ));
    // Bots are not rated.
    assert_eq!(
        end1.standings.iter().filter(|x| x.rating.is_some()).count(),
        2
    );
    // One rated match is below the leaderboard's minimum of two.
    let board = get(&s, "/api/v1/leaderboard?mode=journey").await;
    assert_eq!(board["players"], json!([]), "{board}");

    // Matches 2-4: Ada beats Cy, Bo beats Cy, Ada beats Bo.
    let end2 = rated_match(&clock, &mut ada, &mut cy).await;
    let end3 = rated_match(&clock, &mut bo, &mut cy).await;
    let end4 = rated_match(&clock, &mut ada, &mut bo).await;
    // Each match starts from the ratings the previous one left.
    let ada2 = change_of(&s, &end2, ada.player_id).await;
    assert_eq!(ada2.before, ada1.after);
    let bo3 = change_of(&s, &end3, bo.player_id).await;
    assert_eq!(bo3.before, bo1.after);
    assert!(bo3.change > 0.0);
    let ada4 = change_of(&s, &end4, ada.player_id).await;
    assert_eq!(ada4.before, ada2.after);

    let board = get(&s, "/api/v1/leaderboard?mode=journey").await;
    eprintln!(
        "leaderboard after 4 rated matches: {}",
        serde_json::to_string_pretty(&board).unwrap()
    );
    let names: Vec<&str> = board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["Ada", "Bo", "Cy"], "{board}");
    assert_eq!(board["min_matches"], 2);
    assert_eq!(board["players"][0]["rated_matches"], 3);
    assert_eq!(board["players"][0]["wins"], 3, "{board}");
    assert_eq!(
        board["players"][0]["rating"],
        serde_json::to_value(ada4.after).unwrap()
    );
    // Clash has no rated match.
    let clash = get(&s, "/api/v1/leaderboard?mode=clash").await;
    assert_eq!(clash["players"], json!([]));

    // The profile: name, rating and counts per mode.
    let p = get(&s, &format!("/api/v1/players/{}", bo.player_id)).await;
    assert_eq!(p["name"], "Bo");
    assert_eq!(p["modes"][0]["mode"], "journey");
    assert_eq!(p["modes"][0]["rated_matches"], 3);
    assert_eq!(p["modes"][0]["matches"], 3);
    assert_eq!(p["modes"][1]["rated_matches"], 0);
    assert_eq!(p["modes"][1]["rating"]["conservative"], 0.0);
    assert_eq!(
        p["modes"][0]["rating"], board["players"][1]["rating"],
        "{p} {board}"
    );
    let missing = reqwest::get(s.url(&format!("/api/v1/players/{}", Uuid::new_v4())))
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);

    // Re-computable from the stored results alone.
    s.state.writer().flush().await;
    let stored = s.store.stored_ratings().await.unwrap();
    assert_eq!(stored.len(), 3);
    assert_eq!(s.store.recompute_ratings().await.unwrap(), stored);

    // The same check by the maintenance command; a tampered rating is found, and a
    // rebuild restores the recomputed one.
    let (code, out) = ludo_ratings(&s.db_url, "check").await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("ok: 3 ratings"), "{out}");
    s.store.close().await;
    let raw = sqlx::SqlitePool::connect(&s.db_url).await.unwrap();
    sqlx::query("UPDATE player_ratings SET mu = mu + 1 WHERE matches = 2")
        .execute(&raw)
        .await
        .unwrap();
    raw.close().await;
    let (code, out) = ludo_ratings(&s.db_url, "check").await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("1 ratings differ"), "{out}");
    let (code, out) = ludo_ratings(&s.db_url, "rebuild").await;
    assert_eq!(code, 0, "{out}");
    let (code, out) = ludo_ratings(&s.db_url, "check").await;
    assert_eq!(code, 0, "{out}");
}

/// Runs the `ludo-ratings` binary on `url` (bounded wait); (exit code, stdout).
async fn ludo_ratings(url: &str, cmd: &str) -> (i32, String) {
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_ludo-ratings"))
        .arg(cmd)
        .env("DATABASE_URL", url)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(30), run)
        .await
        .expect("ludo-ratings finishes within 30 s")
        .expect("ludo-ratings runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}
