//! Readiness that means it: `/readyz` answers 503 while the store is down at start
//! (the server still serves `/healthz`, and becomes ready by itself once the store
//! answers: migrated, running matches resumed), and 503 when the database behind a
//! running server is recreated empty (schema missing).

use crate::harness::*;
use sqlx::Executor;
use store::testing::{authority, run_catching, url_via, Gate, TempPg};

async fn store_down_at_start_then_up(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let gate = Gate::start(authority(&url)).await;
    gate.close();
    let s = ServerProc::start(&url_via(&url, gate.addr), &[], dir.path()).await;
    let (health, _) = s.get_json("/healthz").await;
    assert_eq!(health, 200, "alive without its store");
    assert_eq!(s.readyz().await, 503, "not ready while the store is down");
    gate.open();
    s.wait_ready().await; // bounded: migrated and ready once the store answers
    s.kill9().await;
}

async fn schema_dropped_under_a_running_server(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let s = ServerProc::start(&url, &[], dir.path()).await;
    s.wait_ready().await;
    let db = sqlx::PgPool::connect(&url).await.unwrap();
    db.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
        .await
        .unwrap();
    db.close().await;
    s.wait_readyz(503).await;
    s.kill9().await;
}

#[tokio::test]
async fn readyz_is_503_while_the_store_is_down_at_start() {
    let db = TempPg::create("ludo_ready").await;
    let outcome = run_catching(store_down_at_start_then_up(db.url.clone())).await;
    db.drop_db().await;
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}

#[tokio::test]
async fn readyz_is_503_when_the_database_is_recreated_empty() {
    let db = TempPg::create("ludo_ready").await;
    let outcome = run_catching(schema_dropped_under_a_running_server(db.url.clone())).await;
    db.drop_db().await;
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}
