//! The group-commit writer: ops land in order with their `seq` and clock use, and
//! during a database outage nothing is lost: the backlog grows, and everything lands
//! once the database is back.

mod common;

use common::*;
use engine::replay::{replay_of, verify};
use engine::Mode;
use std::time::Duration;
use store::{spawn_writer_with, LoggedTurn, MatchStatus, Store, WriteOp, WriterConfig};
use uuid::Uuid;

const FAST: WriterConfig = WriterConfig {
    min_delay: Duration::from_millis(10),
    max_delay: Duration::from_millis(100),
    max_batch: 64,
    commit_window: Duration::from_millis(2),
    max_backlog: 1_000,
};

/// `turns` as a room logs them: turn n has `seq` 2n+1 and used n seconds of clock.
fn logged(turns: &[engine::TurnRecord]) -> Vec<LoggedTurn> {
    turns
        .iter()
        .map(|t| LoggedTurn {
            record: t.clone(),
            seq: 2 * u64::from(t.turn_number) + 1,
            clock_ms: 1_000 * u64::from(t.turn_number),
        })
        .collect()
}

/// Ops of one real match: create, turns in three pieces, finish.
fn match_ops(id: Uuid, m: &engine::Match, ana: Uuid) -> Vec<WriteOp> {
    let log = m.log();
    vec![
        WriteOp::CreateMatch(new_match_of(id, m, at(0), seats(&[(ana, "Ana")]))),
        WriteOp::Turns {
            match_id: id,
            turns: logged(&log[..5]),
        },
        WriteOp::Turns {
            match_id: id,
            turns: logged(&log[5..9]),
        },
        WriteOp::Turns {
            match_id: id,
            turns: logged(&log[9..]),
        },
        WriteOp::Finish(result_of(id, m, at(30))),
    ]
}

/// Contract: after flush every op sent is written in order (the stored replay is the
/// engine's replay and verifies, each turn keeps its seq and clock use); backlog
/// returns to 0.
#[tokio::test]
async fn sqlite_writer_lands_ops_in_order() {
    let db = TempSqlite::new();
    let store = Store::connect(Some(&db.url)).await.unwrap();
    let outcome = run_catching({
        let store = store.clone();
        async move {
            let writer = spawn_writer_with(store.clone(), FAST);
            writer.flush().await; // nothing sent: returns at once
            let ana = guest(&store, 1, "Ana").await;
            let m = play_short_match(4, Mode::Clash, 16);
            let id = Uuid::new_v4();
            for op in match_ops(id, &m, ana) {
                let _committed = writer.send(op);
            }
            assert_eq!(writer.backlog(), 5);
            tokio::time::timeout(Duration::from_secs(10), writer.flush())
                .await
                .expect("flush within 10 s");
            assert_eq!(writer.backlog(), 0);
            let doc = store.replay(id).await.unwrap().unwrap();
            assert_eq!(doc.replay, replay_of(&m));
            verify(&doc.replay).expect("replay verifies");
            let s = store.match_summary(id).await.unwrap().unwrap();
            assert_eq!((s.status, s.turn_count), (MatchStatus::Ended, 16));
        }
    })
    .await;
    store.close().await;
    db.remove();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

async fn outage(direct: Store, url: String) {
    let gate = Gate::start(authority(&url)).await;
    gate.close();
    let gated = Store::connect_lazy(&url_via(&url, gate.addr)).unwrap();
    let writer = spawn_writer_with(gated.clone(), FAST);

    let ana = guest(&direct, 1, "Ana").await;
    let m = play_short_match(5, Mode::Journey, 12);
    let id = Uuid::new_v4();
    for op in match_ops(id, &m, ana) {
        let _committed = writer.send(op);
    }
    // The database is down: the writer keeps retrying (at least 3 attempts seen)
    // and holds every op.
    tokio::time::timeout(Duration::from_secs(10), async {
        while gate.refused() < 3 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the writer retries while the database is down");
    assert_eq!(writer.backlog(), 5);
    assert_eq!(direct.match_summary(id).await.unwrap(), None);

    gate.open();
    tokio::time::timeout(Duration::from_secs(10), writer.flush())
        .await
        .expect("everything lands within 10 s of recovery");
    assert_eq!(writer.backlog(), 0);
    let doc = direct.replay(id).await.unwrap().unwrap();
    assert_eq!(doc.replay, replay_of(&m));
    verify(&doc.replay).expect("replay verifies");
    gated.close().await;
}

/// Contract: ops sent while PostgreSQL is unreachable are kept (backlog 5) and all
/// land, in order, once it is reachable again (backlog 0, replay verifies).
#[tokio::test]
async fn postgres_outage_loses_nothing() {
    let db = TempPg::create("ludo_test").await;
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
