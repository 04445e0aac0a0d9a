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

/// Runs `test` with a store on a fresh SQLite file (and the file's URL), then closes
/// the store and removes the file, also when the test panics (re-raised).
async fn on_sqlite_file<F, Fut>(test: F)
where
    F: FnOnce(Store, String) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let db = TempSqlite::new();
    let store = Store::connect(Some(&db.url)).await.unwrap();
    let outcome = run_catching(test(store.clone(), db.url.clone())).await;
    store.close().await;
    db.remove();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// The match `id` as `store` holds it is `m`: its replay is the engine's and verifies.
async fn assert_replay_is(store: &Store, id: Uuid, m: &engine::Match) {
    let doc = store.replay(id).await.unwrap().unwrap();
    assert_eq!(doc.replay, replay_of(m));
    verify(&doc.replay).expect("replay verifies");
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
    on_sqlite_file(|store, _| async move {
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
        assert_replay_is(&store, id, &m).await;
        let s = store.match_summary(id).await.unwrap().unwrap();
        assert_eq!((s.status, s.turn_count), (MatchStatus::Ended, 16));
    })
    .await;
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
    assert_replay_is(&direct, id, &m).await;
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

/// Group commit (issue 14): the window is counted from each op's send, not from when
/// the writer takes it. Another connection holds SQLite's write lock, so the commit
/// of op A (sent at t0, window 300 ms) runs until the lock is released at t0 + 900 ms.
/// Op B, sent at t0 + 450 ms while that commit runs, has waited out its window by
/// then and is committed right after A, not a whole window later (the old writer
/// slept 300 ms more: B 300 ms after A). B is not in A's transaction: it was sent
/// after A's batch was taken. On real time, every wait bounded: the lock is SQLite's
/// own busy wait on its connection thread, which Tokio's paused clock cannot move
/// (paused, the clock would jump to the bounding timeouts while that thread waits).
#[tokio::test]
async fn an_op_that_waited_for_the_previous_commit_waits_no_window_more() {
    use sqlx::Connection;
    on_sqlite_file(|store, url| async move {
        let config = WriterConfig {
            commit_window: Duration::from_millis(300),
            ..FAST
        };
        let writer = spawn_writer_with(store.clone(), config);
        let m = play_short_match(6, Mode::Clash, 4);
        let (a_id, b_id) = (Uuid::new_v4(), Uuid::new_v4());
        for id in [a_id, b_id] {
            store
                .create_match(&new_match_of(id, &m, at(0), seats(&[])))
                .await
                .unwrap();
        }
        let turns = |id| WriteOp::Turns {
            match_id: id,
            turns: logged(m.log()),
        };
        let mut lock = sqlx::SqliteConnection::connect(&url).await.unwrap();
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut lock)
            .await
            .unwrap();
        let t0 = tokio::time::Instant::now();
        let a = writer.send(turns(a_id));
        tokio::time::sleep_until(t0 + Duration::from_millis(450)).await;
        let b = writer.send(turns(b_id));
        tokio::time::sleep_until(t0 + Duration::from_millis(900)).await;
        sqlx::query("ROLLBACK").execute(&mut lock).await.unwrap();
        let limit = Duration::from_secs(10);
        tokio::time::timeout(limit, a)
            .await
            .expect("A commits")
            .unwrap();
        let a_at = t0.elapsed();
        tokio::time::timeout(limit, b)
            .await
            .expect("B commits")
            .unwrap();
        let b_at = t0.elapsed();
        assert!(
            a_at >= Duration::from_millis(900),
            "A waited for the lock: {a_at:?}"
        );
        assert!(
            b_at - a_at < Duration::from_millis(150),
            "B committed {:?} after A; its window had passed",
            b_at - a_at
        );
        for id in [a_id, b_id] {
            let s = store.match_summary(id).await.unwrap().unwrap();
            assert_eq!(s.turn_count, 4);
        }
    })
    .await;
}

/// On an SQLite file the turn log's thread appends the writer's batches of turns
/// (its own connection, rusqlite, not sqlx). Every column must read back as sqlx wrote it: the turns a
/// resumed room gets are the match's log with each turn's `seq` (2n+1 here) and clock
/// use (n s), the replay is the engine's and verifies, and a batch sent again (a
/// retry after a lost acknowledgement) stores nothing twice (16 turns, not 32).
#[tokio::test]
async fn turns_appended_on_the_turn_log_thread_read_back_as_sqlx_wrote_them() {
    on_sqlite_file(|store, _| async move {
        let writer = spawn_writer_with(store.clone(), FAST);
        let ana = guest(&store, 1, "Ana").await;
        let m = play_short_match(5, Mode::Journey, 16);
        let id = Uuid::new_v4();
        let ops = match_ops(id, &m, ana);
        let limit = Duration::from_secs(10);
        // One op at a time, each committed before the next is sent: the three
        // batches of turns are turns only.
        for op in ops[..4].iter().chain(&ops[1..2]) {
            tokio::time::timeout(limit, writer.send(op.clone()))
                .await
                .expect("committed within 10 s")
                .unwrap();
        }
        let running = store.running_matches().await.unwrap();
        assert_eq!(running.len(), 1);
        assert_eq!(running[0].turns, logged(m.log()));
        tokio::time::timeout(limit, writer.send(ops[4].clone()))
            .await
            .expect("result committed within 10 s")
            .unwrap();
        assert_replay_is(&store, id, &m).await;
        let s = store.match_summary(id).await.unwrap().unwrap();
        assert_eq!((s.status, s.turn_count), (MatchStatus::Ended, 16));
    })
    .await;
}

/// Never skip a write, on the turn log's thread too: turns of a match not stored (a
/// foreign-key violation) are kept and retried, the writer reports failing and
/// admits no new match meanwhile, and the turns commit once the match is stored.
#[tokio::test]
async fn turns_of_an_unknown_match_are_kept_and_retried_on_the_turn_log_thread() {
    on_sqlite_file(|store, _| async move {
        let writer = spawn_writer_with(store.clone(), FAST);
        let m = play_short_match(7, Mode::Clash, 6);
        let id = Uuid::new_v4();
        let mut pending = writer.send(WriteOp::Turns {
            match_id: id,
            turns: logged(m.log()),
        });
        let limit = Duration::from_secs(10);
        tokio::time::timeout(limit, async {
            while !writer.is_failing() {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
        .await
        .expect("the writer reports failing within 10 s");
        assert!(!writer.accepting_new_matches());
        assert_eq!(writer.backlog(), 1, "the failing batch is kept");
        assert!(pending.try_recv().is_err(), "not committed yet");
        store
            .create_match(&new_match_of(id, &m, at(0), seats(&[])))
            .await
            .unwrap();
        tokio::time::timeout(limit, pending)
            .await
            .expect("committed within 10 s of the match being stored")
            .unwrap();
        assert!(!writer.is_failing());
        assert_eq!(writer.backlog(), 0);
        let s = store.match_summary(id).await.unwrap().unwrap();
        assert_eq!(s.turn_count, 6);
    })
    .await;
}
