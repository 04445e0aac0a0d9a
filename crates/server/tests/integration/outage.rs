//! A PostgreSQL outage in the middle of a match: the server reaches the database
//! through a TCP [`Gate`]; the gate is closed while the match is played (every
//! connection cut, new ones refused) and opened after the match has ended. The match
//! goes on without the database, the writer keeps what it cannot store, and once the
//! database is back every turn and the result land: nothing is lost.

use crate::backends::*;
use crate::common::expect_started;
use engine::Mode;
use serde_json::json;
use server::room::{self, Occupant};
use std::time::Duration;
use store::{MatchStatus, Store, WriterConfig};

/// Retry quickly so that the test does not wait for long backoffs.
const FAST: WriterConfig = WriterConfig {
    min_delay: Duration::from_millis(10),
    max_delay: Duration::from_millis(200),
    max_batch: 64,
};

async fn outage(direct: Store, db_url: String) {
    let gate = Gate::start(authority(&db_url)).await;
    let gated = Store::connect(Some(&url_via(&db_url, gate.addr)))
        .await
        .expect("connect through the open gate");
    let writer = store::spawn_writer_with(gated.clone(), FAST);
    let mut srv = serve(quick_config(3), gated.clone(), writer.clone()).await;

    let mut ana = srv.player("Ana").await;
    let id = room::start(
        &srv.state,
        Mode::Clash,
        vec![human(&ana), Occupant::Bot, Occupant::Bot, Occupant::Bot],
    )
    .unwrap();
    let st = expect_started(&mut ana).await;
    let player = tokio::spawn(play_greedy(ana, st));

    // Some turns are stored, then the database goes away mid-match.
    let t0 = tokio::time::Instant::now();
    let stored_before = loop {
        let n = direct
            .match_summary(id)
            .await
            .unwrap()
            .map_or(0, |s| s.turn_count);
        if n >= 4 {
            break n;
        }
        assert!(t0.elapsed() < Duration::from_secs(5), "turns are stored");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    gate.close();
    let (s, v) = srv.get("/readyz").await;
    assert_eq!(
        (s, &v["error"]["code"]),
        (503, &json!("unavailable")),
        "{v}"
    );

    // The match is played to its end (rule 9.1 clock) without the database.
    let played = tokio::time::timeout(Duration::from_secs(20), player)
        .await
        .unwrap()
        .unwrap();
    let turns = played.resolved.len();
    assert!(
        turns > stored_before as usize,
        "turns were played during the outage"
    );
    assert!(
        writer.backlog() > 0,
        "the result (and the last turns) wait in the writer"
    );
    let during = direct.match_summary(id).await.unwrap().unwrap();
    assert_eq!(
        during.status,
        MatchStatus::Running,
        "the result is not stored yet"
    );
    assert!(
        gate.refused() > 0,
        "the writer kept trying while the database was down"
    );

    // The database is back: everything lands, in order.
    gate.open();
    tokio::time::timeout(Duration::from_secs(20), writer.flush())
        .await
        .expect("the backlog is written within 20 s of recovery");
    assert_eq!(writer.backlog(), 0);
    let (s, v) = srv.get("/readyz").await;
    assert_eq!((s, v), (200, json!({"status": "ready"})));
    let (s, m) = srv.get(&format!("/api/v1/matches/{id}")).await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(
        (&m["status"], &m["turn_count"], &m["standings"]),
        (
            &json!("ended"),
            &json!(turns),
            &json!(played.ended.standings)
        ),
        "every turn and the result are stored"
    );
    let (s, r) = srv.get(&format!("/api/v1/matches/{id}/replay")).await;
    assert_eq!(s, 200);
    assert_eq!(r["seed"], json!(played.ended.seed));
    let numbers: Vec<u64> = r["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["turn_number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, (1..=turns as u64).collect::<Vec<_>>());
    let replay: engine::Replay = serde_json::from_value(r).unwrap();
    engine::replay::verify(&replay).expect("the recovered match re-plays identically");
    srv.stop().await;
    gated.close().await;
}

/// Contract: a PostgreSQL outage during a match loses no turn and no result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_outage_during_a_match_loses_nothing() {
    let db = TempPg::create("ludo_rest").await;
    let direct = Store::connect(Some(&db.url))
        .await
        .expect("connect postgres");
    let outcome = run_catching(outage(direct.clone(), db.url.clone())).await;
    direct.close().await;
    db.drop_db().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}
