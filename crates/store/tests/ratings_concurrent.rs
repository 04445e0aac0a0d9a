//! Ratings under concurrent writers: two `Store`s on one PostgreSQL database (two
//! servers of a cluster) finish matches of the same players at the same time. The
//! rating updates are serialized (advisory lock), so no update is lost and the
//! stored ratings equal their recomputation from the stored results.

mod common;

use common::*;
use engine::Mode;
use store::Store;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_finishes_on_two_servers_lose_no_rating_update() {
    let db = TempPg::create("ludo_rating").await;
    let a = Store::connect(Some(&db.url)).await.expect("connect");
    let b = Store::connect(Some(&db.url)).await.expect("connect");
    let outcome = run_catching({
        let (a, b) = (a.clone(), b.clone());
        async move {
            let kim = guest(&a, 1, "Kim").await;
            let lou = guest(&a, 2, "Lou").await;
            let max = guest(&a, 3, "Max").await;
            const PER_SERVER: u8 = 12;
            // Every match seats Kim and Lou (and Max in every other one).
            let mut jobs = Vec::new();
            for i in 0..2 * PER_SERVER {
                let mut humans = vec![(kim, "Kim"), (lou, "Lou")];
                if i % 2 == 0 {
                    humans.push((max, "Max"));
                }
                let seed = 10 + i;
                let nm = synthetic_match(seed, Mode::Clash, at(i64::from(i)), seats(&humans));
                let places = if i % 3 == 0 {
                    [(1, 90), (2, 50), (3, 10), (4, 0)]
                } else {
                    [(2, 50), (1, 90), (3, 10), (4, 0)]
                };
                let r = synthetic_result(nm.id, seed, at(100 + i64::from(i)), places);
                let store = if i % 2 == 0 { a.clone() } else { b.clone() };
                store.create_match(&nm).await.unwrap();
                jobs.push((store, r));
            }
            // Both servers finish their matches at the same time.
            let tasks: Vec<_> = jobs
                .into_iter()
                .map(|(store, r)| tokio::spawn(async move { store.finish_match(&r).await }))
                .collect();
            for t in tasks {
                t.await.unwrap().expect("finish_match");
            }
            let stored = a.stored_ratings().await.unwrap();
            let count = |p| stored.iter().find(|r| r.player_id == p).unwrap().matches;
            assert_eq!(
                count(kim),
                i64::from(2 * PER_SERVER),
                "no rated match lost for Kim"
            );
            assert_eq!(count(lou), i64::from(2 * PER_SERVER));
            assert_eq!(count(max), i64::from(PER_SERVER));
            assert_eq!(a.recompute_ratings().await.unwrap(), stored);
        }
    })
    .await;
    a.close().await;
    b.close().await;
    db.drop_db().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}
