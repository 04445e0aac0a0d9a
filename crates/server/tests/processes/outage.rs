//! PostgreSQL outages while a match plays (durable before visible, never skip a
//! write): the database refusing connections for 8 s (`ALLOW_CONNECTIONS false` and
//! its backends terminated), or renamed away and back. Meanwhile the submitted turn
//! is not shown (no `ack`, no `turn_resolved`), `/readyz` answers 503 and no new
//! match starts (`store_unavailable`); afterwards the turn appears with its clocks
//! postponed by the outage (rules 4.6, 9.1), the match plays to its end, no write was
//! dropped and the replay verifies.

use crate::durable::check_replay;
use crate::harness::*;
use protocol::{ErrorCode, ServerMsg};
use serde_json::json;
use sqlx::Executor;
use std::time::Duration;

/// How long the database stays unreachable.
const OUTAGE: Duration = Duration::from_secs(8);

#[derive(Clone, Copy, Debug)]
enum Fault {
    RefuseConnections,
    Rename,
}

/// A connection to PostgreSQL's admin database (stays up while a test database is
/// made unreachable).
pub(crate) async fn admin() -> sqlx::PgPool {
    sqlx::PgPool::connect(&store::testing::pg_admin_url())
        .await
        .expect("PostgreSQL admin connection")
}

/// Ends every connection to database `db` (but the caller's).
pub(crate) async fn terminate(admin: &sqlx::PgPool, db: &str) {
    admin
        .execute(
            format!(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = '{db}' AND pid <> pg_backend_pid()"
            )
            .as_str(),
        )
        .await
        .unwrap();
}

async fn outage_mid_match(db_name: String, url: String, fault: Fault) {
    let dir = tempfile::tempdir().unwrap();
    let env = [("LUDO_MATCH_SECONDS", "6"), ("LUDO_TURN_SECONDS", "30")];
    let s = ServerProc::start(&url, &env, dir.path()).await;
    s.wait_ready().await;
    let (mut players, match_id) = lobby_of_four(&s).await;
    let (idle_id, idle_token) = s.guest("Idle").await;
    let (mut idle, _) = Player::connect(&s, idle_id, &idle_token).await;
    assert_eq!(play_until(&mut players, match_id, 5).await, 5);
    let turn = players[0].turn.clone().unwrap();
    let deadline_before = turn.turn_deadline_ms;
    let match_left_before = turn.match_remaining_ms;

    // The store goes away.
    let admin = admin().await;
    let away = format!("{db_name}_away");
    match fault {
        Fault::RefuseConnections => {
            admin
                .execute(format!("ALTER DATABASE {db_name} ALLOW_CONNECTIONS false").as_str())
                .await
                .unwrap();
            terminate(&admin, &db_name).await;
        }
        Fault::Rename => {
            terminate(&admin, &db_name).await;
            admin
                .execute(format!("ALTER DATABASE {db_name} RENAME TO {away}").as_str())
                .await
                .unwrap();
        }
    }
    let outage_began = tokio::time::Instant::now();
    let mover = turn.seat.index();
    players[mover]
        .send(json!({"t": "pass", "id": "during", "d": {"match_id": match_id, "turn_number": turn.turn_number}}))
        .await;
    // Durable before visible: nothing of that turn is shown while the store is away.
    let quiet = tokio::time::timeout(Duration::from_secs(3), players[mover].recv()).await;
    assert!(
        quiet.is_err(),
        "a frame arrived during the outage: {:?}",
        quiet.map(|f| f.msg)
    );
    assert_eq!(s.readyz().await, 503, "readyz during the outage");
    idle.send(json!({"t": "join_queue", "id": "q", "d": {"mode": "clash"}}))
        .await;
    match idle
        .until(|m| matches!(m, ServerMsg::Error(_) | ServerMsg::Ack(_)))
        .await
        .msg
    {
        ServerMsg::Error(e) => assert_eq!(e.code, ErrorCode::StoreUnavailable),
        other => panic!("expected store_unavailable, got {other:?}"),
    }
    tokio::time::sleep(OUTAGE.saturating_sub(outage_began.elapsed())).await;

    // The store comes back.
    match fault {
        Fault::RefuseConnections => {
            admin
                .execute(format!("ALTER DATABASE {db_name} ALLOW_CONNECTIONS true").as_str())
                .await
                .unwrap();
        }
        Fault::Rename => {
            admin
                .execute(format!("ALTER DATABASE {away} RENAME TO {db_name}").as_str())
                .await
                .unwrap();
        }
    }
    admin.close().await;
    let outage = outage_began.elapsed();
    let ack = players[mover]
        .until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
        .await;
    assert!(
        matches!(ack.msg, ServerMsg::Ack(ref a) if a.id == "during"),
        "{:?}",
        ack.msg
    );
    let next = turn.turn_number + 1;
    let mut after = None;
    for p in players.iter_mut() {
        let f = p
            .until(|m| matches!(m, ServerMsg::TurnStarted(t) if t.turn_number == next))
            .await;
        if let ServerMsg::TurnStarted(t) = f.msg {
            after = Some(t);
        }
    }
    let after = after.unwrap();
    // Rules 4.6 and 9.1: no clock time charged for the outage — the new turn has its
    // full 30 s, and the match clock left is what was left before (minus a little
    // play), not minus the outage.
    // (The turn timer never runs past the match clock: rule 4.6 capped by 9.1.)
    assert!(
        after.turn_remaining_ms + 1_000 >= after.match_remaining_ms.min(30_000),
        "turn timer {} ms, match clock {} ms",
        after.turn_remaining_ms,
        after.match_remaining_ms
    );
    assert!(
        after.match_remaining_ms + 1_000 >= match_left_before,
        "match clock left {} ms, was {} ms before an outage of {} ms",
        after.match_remaining_ms,
        match_left_before,
        outage.as_millis()
    );
    assert!(
        after.turn_deadline_ms > deadline_before,
        "deadline moved on"
    );
    s.wait_ready().await;

    assert_eq!(play_until(&mut players, match_id, u32::MAX).await, 0);
    check_replay(&s, match_id, &seen_turns(&players)).await;
    let metrics = s.metrics_text().await;
    assert!(
        !metrics
            .lines()
            .any(|l| l.starts_with("ludo_persistence_dropped_total") && !l.ends_with(" 0")),
        "no write dropped:\n{metrics}"
    );
    s.kill9().await;
}

async fn with_pg(fault: Fault) {
    let db = store::testing::TempPg::create("ludo_outage").await;
    let outcome =
        store::testing::run_catching(outage_mid_match(db.name.clone(), db.url.clone(), fault))
            .await;
    // Whatever happened, put the database back under its name before dropping it.
    let admin = admin().await;
    let _ = admin
        .execute(format!("ALTER DATABASE {}_away RENAME TO {}", db.name, db.name).as_str())
        .await;
    let _ = admin
        .execute(format!("ALTER DATABASE {} ALLOW_CONNECTIONS true", db.name).as_str())
        .await;
    admin.close().await;
    db.drop_db().await;
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}

#[tokio::test]
async fn postgres_refusing_connections_loses_nothing_and_charges_no_clock() {
    with_pg(Fault::RefuseConnections).await;
}

#[tokio::test]
async fn postgres_renamed_away_and_back_loses_nothing() {
    with_pg(Fault::Rename).await;
}
