//! A PostgreSQL outage in the middle of a match: the server reaches the database
//! through a TCP [`Gate`]; the gate is closed while the match is played (every
//! connection cut, new ones refused) and opened again 2 s later. Durable before
//! visible: while the database is away the match shows nothing new (the turn waiting
//! for its commit is held, the writer keeps it); once it is back every turn and the
//! result land, the match plays on to its end, and nothing is lost.

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
    commit_window: Duration::from_millis(2),
    max_backlog: 1_000,
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
        srv.state.game(),
        Mode::Clash,
        vec![
            human(&ana),
            Occupant::Bot(bot::BotKind::Greedy),
            Occupant::Bot(bot::BotKind::Greedy),
            Occupant::Bot(bot::BotKind::Greedy),
        ],
    )
    .unwrap();
    let st = expect_started(&mut ana).await;
    let player = tokio::spawn(play_greedy(ana, st));

    // Some turns are stored, then the database goes away mid-match.
    let t0 = tokio::time::Instant::now();
    loop {
        let n = direct
            .match_summary(id)
            .await
            .unwrap()
            .map_or(0, |s| s.turn_count);
        if n >= 4 {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(5), "turns are stored");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    gate.close();
    let (s, v) = srv.get("/readyz").await;
    assert_eq!(
        (s, &v["error"]["code"]),
        (503, &json!("unavailable")),
        "{v}"
    );

    // Durable before visible: the match shows nothing while the database is away.
    let quiet_from = direct.match_summary(id).await.unwrap().unwrap().turn_count;
    // Not a fixed wait: until the writer has been refused five times (its retries
    // are 10–200 ms apart, FAST), which shows the outage lasting across retries.
    let t0 = tokio::time::Instant::now();
    while gate.refused() < 5 {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "the writer retries while the database is away ({} refused)",
            gate.refused()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!player.is_finished(), "the match waits for the store");
    assert!(writer.backlog() > 0, "the pending turn waits in the writer");
    assert!(
        writer.is_failing(),
        "the writer reports the failing store (readyz 503)"
    );
    assert!(
        gate.refused() > 0,
        "the writer kept trying while the database was down"
    );
    let during = direct.match_summary(id).await.unwrap().unwrap();
    assert_eq!(during.status, MatchStatus::Running);
    assert_eq!(
        during.turn_count, quiet_from,
        "nothing was stored meanwhile"
    );

    // The database is back: the match goes on to its end (rule 9.1 clock, postponed
    // by the outage) and everything lands, in order.
    gate.open();
    let played = tokio::time::timeout(Duration::from_secs(30), player)
        .await
        .expect("the match ends after the store is back")
        .unwrap();
    let turns = played.resolved.len();
    assert!(
        turns > quiet_from as usize,
        "turns were played after the outage"
    );
    tokio::time::timeout(Duration::from_secs(20), writer.flush())
        .await
        .expect("the backlog is written within 20 s of recovery");
    assert_eq!(writer.backlog(), 0);
    let (s, v) = srv.get("/readyz").await;
    assert_eq!((s, v), (200, json!({"status": "ready"})));
    let (s, m) = srv.get(&format!("/api/v1/matches/{id}")).await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(
        (&m["status"], &m["turns_played"], &m["standings"]),
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
