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

/// A server whose log reader went away (`ludo-server | head -3`, a log collector that
/// died) still stops on SIGTERM: writing a log line then fails (EPIPE), and that
/// failure must not stop the shutdown. (tracing-subscriber reported it with
/// `eprintln!` on the same closed pipe, which panicked the shutdown task: the server
/// kept serving after SIGTERM.)
#[tokio::test]
async fn sigterm_stops_a_server_whose_log_pipe_is_closed() {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let addr = free_addr();
    let url = format!("sqlite://{}", dir.path().join("t.db").display());
    let mut child = server_command(addr, &url, dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ludo-server starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    tokio::time::timeout(BOUND, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains("accepting connections") {
                return;
            }
        }
        panic!("the server's log ended before it accepted connections");
    })
    .await
    .expect("the server starts within the bound");
    // Ready: serving, so its SIGTERM handler is in place.
    tokio::time::timeout(BOUND, async {
        let ready = format!("http://{addr}/readyz");
        while !matches!(reqwest::get(&ready).await, Ok(r) if r.status() == 200) {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("ready within the bound");
    drop(lines);
    drop(child.stderr.take());
    let exit = sigterm(
        &mut child,
        "the server exits after SIGTERM although nothing reads its log",
    )
    .await;
    assert!(exit.success(), "exit after SIGTERM: {exit:?}");
}

/// A SIGTERM while the server is still reaching its store (a deploy that stops a
/// node which has not started yet) ends the start-up cleanly: exit status 0 and the
/// log says so. Before, the handler was installed only once serving began, so the
/// signal's default action killed the process.
#[tokio::test]
async fn sigterm_during_start_up_exits_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    // A "PostgreSQL" that accepts the connection and never answers: the server
    // waits in its store connect (up to its 5 s acquire timeout).
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("postgres://ludo@{}/ludo", silent.local_addr().unwrap());
    let addr = free_addr();
    let log = dir.path().join("server.log");
    let out = std::fs::File::create(&log).unwrap();
    let mut child = server_command(addr, &url, dir.path())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .expect("ludo-server starts");
    // Its store connection arrived: the server is inside its start-up.
    let (_held, _) = tokio::time::timeout(BOUND, silent.accept())
        .await
        .expect("the server connects to its store within the bound")
        .unwrap();
    let exit = sigterm(&mut child, "the server exits after SIGTERM during start-up").await;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        exit.success(),
        "exit after SIGTERM during start-up: {exit:?}\n{text}"
    );
    assert!(
        text.contains("SIGTERM received during start-up: exiting"),
        "{text}"
    );
    assert!(
        !text.contains("listening"),
        "it stopped before binding: {text}"
    );
}
