//! Room leases and fencing (cluster mode, PostgreSQL): a node that lost a match's
//! lease writes nothing more for it, checked in the writer's own transaction, while
//! the other matches of the same batch are written.

mod common;

use common::*;
use engine::Mode;
use std::time::Duration;
use store::{spawn_writer_fenced, Leases, LoggedTurn, Store, WriteOp, WriterConfig};
use uuid::Uuid;

/// A commit window long enough that ops sent together share one transaction.
const BATCHED: WriterConfig = WriterConfig {
    min_delay: Duration::from_millis(10),
    max_delay: Duration::from_millis(100),
    max_batch: 64,
    commit_window: Duration::from_millis(50),
    max_backlog: 1_000,
};

const LEASE: Duration = Duration::from_secs(30);

fn turn(m: &engine::Match, n: usize, id: Uuid) -> WriteOp {
    WriteOp::Turns {
        match_id: id,
        turns: vec![LoggedTurn {
            record: m.log()[n - 1].clone(),
            seq: 2 * n as u64 + 1,
            clock_ms: 1_000 * n as u64,
        }],
    }
}

async fn within<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(20), f)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

async fn turn_numbers(pool: &sqlx::PgPool, id: Uuid) -> Vec<i32> {
    sqlx::query_scalar("SELECT turn_number FROM turns WHERE match_id = $1 ORDER BY turn_number")
        .bind(id)
        .fetch_all(pool)
        .await
        .unwrap()
}

async fn expire_all(pool: &sqlx::PgPool) {
    sqlx::query("UPDATE room_leases SET expires_at = now() - interval '1 second'")
        .execute(pool)
        .await
        .unwrap();
}

async fn fencing(url: String) {
    let store = Store::connect(Some(&url)).await.unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let m = play_short_match(3, Mode::Clash, 12);
    let (x, y) = (Uuid::new_v4(), Uuid::new_v4());
    let a = Leases::new("a", LEASE);
    let wa = spawn_writer_fenced(store.clone(), BATCHED, a.clone());

    // Node a creates two matches: it holds both with token 1.
    let cx = wa.send(WriteOp::CreateMatch(new_match_of(x, &m, at(0), seats(&[]))));
    let cy = wa.send(WriteOp::CreateMatch(new_match_of(y, &m, at(0), seats(&[]))));
    within("creates", cx).await.unwrap();
    within("creates", cy).await.unwrap();
    assert_eq!(store.lease_of(x).await.unwrap(), Some(("a".into(), 1)));
    assert_eq!(store.live_owner(x).await.unwrap(), Some("a".into()));
    assert_eq!(store.live_owner(Uuid::new_v4()).await.unwrap(), None);
    assert_eq!(a.token(x), Some(1));
    within("turn 1", wa.send(turn(&m, 1, x))).await.unwrap();
    within("turn 1", wa.send(turn(&m, 1, y))).await.unwrap();

    // Nothing expired: node b claims nothing, and node a renews both.
    let b = Leases::new("b", LEASE);
    assert_eq!(store.claim_expired(&b, 10, &[]).await.unwrap(), vec![]);
    assert_eq!(store.renew_leases(&a).await.unwrap(), vec![]);

    // Node a's leases expire (it was paused); node b claims both: token 2. Node a
    // still believes it holds them.
    expire_all(&pool).await;
    // The lease grace (issue 34.4): both expired within the last minute, held by a;
    // a does not see its own; none expired less than 0.5 s ago; spared matches are
    // not claimed.
    let mut recent = store
        .recently_expired(&b, Duration::from_secs(60), 10)
        .await
        .unwrap();
    recent.sort();
    let mut want = vec![(x, "a".to_string()), (y, "a".to_string())];
    want.sort();
    assert_eq!(recent, want);
    assert_eq!(
        store
            .recently_expired(&a, Duration::from_secs(60), 10)
            .await
            .unwrap(),
        vec![]
    );
    assert_eq!(
        store
            .recently_expired(&b, Duration::from_millis(500), 10)
            .await
            .unwrap(),
        vec![]
    );
    assert_eq!(store.claim_expired(&b, 10, &[x, y]).await.unwrap(), vec![]);
    assert_eq!(store.lease_of(x).await.unwrap(), Some(("a".into(), 1)));
    // Expired: still a's row, but no live owner (the match may be moving).
    assert_eq!(store.live_owner(x).await.unwrap(), None);
    let mut claimed = store.claim_expired(&b, 10, &[]).await.unwrap();
    claimed.sort();
    let mut want = vec![(x, 2), (y, 2)];
    want.sort();
    assert_eq!(claimed, want);
    assert_eq!(store.lease_of(x).await.unwrap(), Some(("b".into(), 2)));
    assert_eq!(store.live_owner(x).await.unwrap(), Some("b".into()));
    assert_eq!(b.token(x), Some(2));
    assert_eq!(a.token(x), Some(1), "a has not noticed yet");

    // Node b writes turn 2 of y. Then node a, in ONE transaction, writes turn 2 of x
    // (fenced: a's token 1 is stale) alongside a new match z of its own (written).
    let wb = spawn_writer_fenced(store.clone(), BATCHED, b.clone());
    within("b's turn 2", wb.send(turn(&m, 2, y))).await.unwrap();
    let z = Uuid::new_v4();
    let stale = wa.send(turn(&m, 2, x));
    let cz = wa.send(WriteOp::CreateMatch(new_match_of(z, &m, at(0), seats(&[]))));
    let stale_y = wa.send(turn(&m, 3, y));
    assert!(
        within("a's fenced turn", stale).await.is_err(),
        "a stale token's write reports not committed"
    );
    within("a's new match", cz).await.unwrap();
    assert!(within("a's fenced turn", stale_y).await.is_err());
    assert_eq!(
        turn_numbers(&pool, x).await,
        vec![1],
        "a wrote nothing for x"
    );
    assert_eq!(
        turn_numbers(&pool, y).await,
        vec![1, 2],
        "only b's turn of y"
    );
    assert_eq!(store.lease_of(z).await.unwrap(), Some(("a".into(), 1)));
    assert_eq!(a.token(x), None, "a forgot the match it lost");
    assert_eq!(a.token(z), Some(1));

    // Renewal: a renews z; b renews x and y; a lease that is not current is lost.
    assert_eq!(store.renew_leases(&a).await.unwrap(), vec![]);
    assert_eq!(store.renew_leases(&b).await.unwrap(), vec![]);
    a.hold(y, 1);
    assert_eq!(store.renew_leases(&a).await.unwrap(), vec![(y, 1)]);
    assert!(a.forget(y, 1));

    // b finishes x: the lease ends with the result and b forgets it.
    for n in 2..=m.log().len() {
        within("b's turns", wb.send(turn(&m, n, x))).await.unwrap();
    }
    within(
        "b's result",
        wb.send(WriteOp::Finish(result_of(x, &m, at(30)))),
    )
    .await
    .unwrap();
    assert_eq!(store.lease_of(x).await.unwrap(), None);
    assert_eq!(b.token(x), None);
    assert_eq!(
        turn_numbers(&pool, x).await,
        (1..=m.log().len() as i32).collect::<Vec<_>>()
    );

    // Leaving: a releases z and b claims it at once.
    assert_eq!(store.live_owner(z).await.unwrap(), Some("a".into()));
    assert_eq!(store.release_leases(&a).await.unwrap(), 1);
    assert_eq!(store.live_owner(z).await.unwrap(), None);
    assert_eq!(a.token(z), None);
    assert_eq!(
        store.claim_expired(&b, 10, &[]).await.unwrap(),
        vec![(z, 2)]
    );
    pool.close().await;
}

/// Contract: ownership is fenced in the write transaction (see the module docs).
#[tokio::test]
async fn a_stale_lease_writes_nothing_and_other_matches_still_commit() {
    let db = store::testing::TempPg::create("ludo_lease").await;
    let outcome = store::testing::run_catching(fencing(db.url.clone())).await;
    db.drop_db().await;
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}

/// Leases need PostgreSQL: on SQLite the calls are refused, not silently ignored.
#[tokio::test]
async fn leases_are_refused_on_sqlite() {
    let store = Store::connect(Some("sqlite::memory:")).await.unwrap();
    let a = Leases::new("a", LEASE);
    assert!(matches!(
        store.claim_expired(&a, 1, &[]).await,
        Err(store::StoreError::Invalid(_))
    ));
    a.hold(Uuid::new_v4(), 1);
    assert!(matches!(
        store.renew_leases(&a).await,
        Err(store::StoreError::Invalid(_))
    ));
    assert!(matches!(
        store.release_leases(&a).await,
        Err(store::StoreError::Invalid(_))
    ));
    assert!(matches!(
        store.live_owner(Uuid::new_v4()).await,
        Err(store::StoreError::Invalid(_))
    ));
}
