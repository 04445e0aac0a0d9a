//! The store's contract, one suite run against both backends: SQLite (a temp file)
//! and PostgreSQL (a fresh database on `LUDO_TEST_PG_URL`, default
//! `postgres://postgres@127.0.0.1:5432/postgres`; the PostgreSQL test fails when the
//! server is unreachable).

mod common;

use chrono::{SubsecRound, Utc};
use common::*;
use engine::replay::{replay_of, verify};
use engine::{EndReason, Mode, Replay, Seat, Seed};
use store::{
    Cursor, HistoryPage, LeaderboardRow, MatchStatus, Page, Player, Rating, RatingChange,
    ReplayDoc, Store, StoreError, WriteOp,
};
use uuid::Uuid;

/// Every part of the contract, in order, on one fresh database.
async fn contract(store: Store) {
    store.ping().await.expect("ping");
    guests(&store).await;
    match_lifecycle(&store).await;
    bad_match_input(&store).await;
    history_paging(&store).await;
    history_ties(&store).await;
    leaderboard_order(&store).await;
    running_among(&store).await;
    unknown_ids(&store).await;
    big_turn_batches(&store).await;
    failed_turn_batch(&store).await;
    ratings(&store).await;
    accounts(&store).await;
    passkeys(&store).await;
}

fn passkey(id: &str, player: Uuid, name: &str, minutes: i64) -> store::StoredPasskey {
    store::StoredPasskey {
        id: id.into(),
        player_id: player,
        passkey: format!(r#"{{"cred":"{id}","counter":0}}"#),
        name: name.into(),
        created_at: at(minutes),
        last_used_at: None,
    }
}

/// Passkeys (issue 29): only an account holds them; a credential id belongs to one
/// account; at most `max` per account; listed oldest first; a sign-in updates the
/// stored credential and its last use; removed one by one, and all with the account.
async fn passkeys(store: &Store) {
    let ann = guest(store, 400, "Ann").await;
    let bob = guest(store, 401, "Bob").await;
    // A guest holds none.
    assert!(matches!(
        store
            .add_passkey(&passkey("k-guest", ann, "phone", 0), 3)
            .await,
        Err(StoreError::Invalid(_))
    ));
    store.claim_account(ann, "Ann", "ann", "$h").await.unwrap();
    store.claim_account(bob, "Bob", "bob", "$h").await.unwrap();
    store
        .add_passkey(&passkey("k-laptop", ann, "laptop", 2), 3)
        .await
        .unwrap();
    store
        .add_passkey(&passkey("k-phone", ann, "phone", 1), 3)
        .await
        .unwrap();
    // The same credential id again, to Ann or to Bob: refused.
    for owner in [ann, bob] {
        assert!(matches!(
            store
                .add_passkey(&passkey("k-phone", owner, "again", 3), 3)
                .await,
            Err(StoreError::Conflict("passkey"))
        ));
    }
    store
        .add_passkey(&passkey("k-key", ann, "key", 3), 3)
        .await
        .unwrap();
    assert!(matches!(
        store
            .add_passkey(&passkey("k-fourth", ann, "fourth", 4), 3)
            .await,
        Err(StoreError::Conflict("too_many"))
    ));
    let listed = store.passkeys_of(ann).await.unwrap();
    assert_eq!(
        listed,
        vec![
            passkey("k-phone", ann, "phone", 1),
            passkey("k-laptop", ann, "laptop", 2),
            passkey("k-key", ann, "key", 3),
        ]
    );
    assert!(store.passkeys_of(bob).await.unwrap().is_empty());
    assert_eq!(
        store.passkey("k-phone").await.unwrap(),
        Some(passkey("k-phone", ann, "phone", 1))
    );
    assert_eq!(store.passkey("k-none").await.unwrap(), None);

    // A sign-in: new serialized credential, last use set.
    assert!(store
        .passkey_used("k-phone", r#"{"counter":1}"#, at(5))
        .await
        .unwrap());
    assert!(!store
        .passkey_used("k-none", r#"{"counter":1}"#, at(5))
        .await
        .unwrap());
    let used = store.passkey("k-phone").await.unwrap().unwrap();
    assert_eq!(
        (used.passkey.as_str(), used.last_used_at),
        (r#"{"counter":1}"#, Some(at(5)))
    );

    // Removal: only the owner's, once.
    assert!(!store.delete_passkey(bob, "k-key").await.unwrap());
    assert!(store.delete_passkey(ann, "k-key").await.unwrap());
    assert!(!store.delete_passkey(ann, "k-key").await.unwrap());
    let ids: Vec<String> = store
        .passkeys_of(ann)
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.id)
        .collect();
    assert_eq!(ids, vec!["k-phone", "k-laptop"]);

    // Deleting the account deletes its passkeys; the credential id is free again.
    store.delete_account(ann, &token_hash(402)).await.unwrap();
    assert_eq!(store.passkey("k-phone").await.unwrap(), None);
    assert!(store.passkeys_of(ann).await.unwrap().is_empty());
    store
        .add_passkey(&passkey("k-phone", bob, "phone", 6), 3)
        .await
        .unwrap();
    assert_eq!(
        store.passkey("k-phone").await.unwrap().map(|k| k.player_id),
        Some(bob)
    );
}

fn new_session(n: u64, client: &str, minutes: i64) -> store::NewSession {
    store::NewSession {
        id: Uuid::new_v4(),
        token_hash: token_hash(n),
        client: client.into(),
        at: at(minutes),
    }
}

/// Accounts and sessions (issue 29): a guest's token is its first session; a claim
/// keeps the player id; usernames are unique by key; sessions are listed most
/// recently used first, signed out one by one or all but one (and by a password
/// change); deleting erases name, credentials, sessions and seat names, keeps the
/// turns (the replay verifies) and drops the player from the leaderboards, and is
/// refused while the player sits in a running match.
async fn accounts(store: &Store) {
    // A guest is a player plus one session with its token.
    let zoe = Uuid::new_v4();
    let first = store
        .create_guest_at(zoe, "Zoe", &token_hash(300), at(0))
        .await
        .unwrap();
    let (s, p) = store
        .session_by_token_hash(&token_hash(300))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (s.id, s.player_id, p.id, p.username),
        (first, zoe, zoe, None)
    );
    assert_eq!(
        (s.created_at, s.last_used_at, s.client.as_str()),
        (at(0), at(0), "")
    );

    // Claim: once; the key is unique.
    store
        .claim_account(zoe, "Zoë", "zoë", "$argon2id$x")
        .await
        .unwrap();
    assert_eq!(
        store
            .player(zoe)
            .await
            .unwrap()
            .unwrap()
            .username
            .as_deref(),
        Some("Zoë")
    );
    assert!(matches!(
        store.claim_account(zoe, "Other", "other", "$h").await,
        Err(StoreError::Conflict("already claimed"))
    ));
    let yan = guest(store, 301, "Yan").await;
    assert!(matches!(
        store.claim_account(yan, "ZOË", "zoë", "$h").await,
        Err(StoreError::Conflict("username"))
    ));
    assert_eq!(store.player(yan).await.unwrap().unwrap().username, None);
    assert_eq!(
        store.credentials("zoë").await.unwrap(),
        Some((zoe, "$argon2id$x".to_string()))
    );
    assert_eq!(store.credentials("nobody").await.unwrap(), None);
    assert_eq!(store.password_hash(yan).await.unwrap(), None);

    // Sessions: two more sign-ins; listed by last use.
    let phone = new_session(302, "phone", 5);
    let tablet = new_session(303, "tablet", 6);
    store.create_session(zoe, &phone).await.unwrap();
    store.create_session(zoe, &tablet).await.unwrap();
    assert!(matches!(
        store
            .create_session(zoe, &new_session(303, "again", 7))
            .await,
        Err(StoreError::Conflict(_))
    ));
    store
        .touch_session(first, at(9), Some("web/1.0"))
        .await
        .unwrap();
    let listed: Vec<(Uuid, String)> = store
        .sessions_of(zoe)
        .await
        .unwrap()
        .into_iter()
        .map(|s| (s.id, s.client))
        .collect();
    assert_eq!(
        listed,
        vec![
            (first, "web/1.0".to_string()),
            (tablet.id, "tablet".into()),
            (phone.id, "phone".into())
        ]
    );
    // Another player's session is not Zoe's to sign out.
    assert!(!store.delete_session(yan, phone.id).await.unwrap());
    assert!(store.delete_session(zoe, phone.id).await.unwrap());
    assert!(!store.delete_session(zoe, phone.id).await.unwrap());
    assert_eq!(
        store.session_by_token_hash(&token_hash(302)).await.unwrap(),
        None
    );
    let phone2 = new_session(304, "phone", 10);
    store.create_session(zoe, &phone2).await.unwrap();
    let mut gone = store.delete_other_sessions(zoe, first).await.unwrap();
    gone.sort();
    let mut want = vec![tablet.id, phone2.id];
    want.sort();
    assert_eq!(gone, want);
    assert_eq!(store.sessions_of(zoe).await.unwrap().len(), 1);
    // A password change signs out the others too.
    let laptop = new_session(305, "laptop", 11);
    store.create_session(zoe, &laptop).await.unwrap();
    assert_eq!(
        store.set_password(zoe, "$argon2id$y", first).await.unwrap(),
        vec![laptop.id]
    );
    assert_eq!(
        store.password_hash(zoe).await.unwrap().as_deref(),
        Some("$argon2id$y")
    );
    assert!(matches!(
        store.set_password(yan, "$h", Uuid::new_v4()).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(store.rename_player(zoe, "Zoë R").await.unwrap());
    assert_eq!(store.player(zoe).await.unwrap().unwrap().name, "Zoë R");

    // A finished match of Zoe and Yan, and a running one of Yan.
    let m = play_short_match(41, Mode::Clash, 12);
    let done = Uuid::new_v4();
    store
        .create_match(&new_match_of(
            done,
            &m,
            at(20),
            seats(&[(zoe, "Zoë R"), (yan, "Yan")]),
        ))
        .await
        .unwrap();
    store.append_turns(done, m.log()).await.unwrap();
    store
        .finish_match(&result_of(done, &m, at(50)))
        .await
        .unwrap();
    let running = Uuid::new_v4();
    let r = play_short_match(42, Mode::Clash, 3);
    store
        .create_match(&new_match_of(running, &r, at(60), seats(&[(yan, "Yan")])))
        .await
        .unwrap();
    let on_board = |rows: Vec<LeaderboardRow>| rows.iter().any(|r| r.player_id == zoe);
    assert!(on_board(store.leaderboard(Mode::Clash, 100).await.unwrap()));
    assert!(store
        .rated_leaderboard(Mode::Clash, 1, 100)
        .await
        .unwrap()
        .iter()
        .any(|r| r.player_id == zoe));

    // Yan sits in a running match: refused, nothing changes.
    assert!(matches!(
        store.delete_account(yan, &token_hash(306)).await,
        Err(StoreError::Conflict("in_match"))
    ));
    assert_eq!(store.player(yan).await.unwrap().unwrap().name, "Yan");

    // Zoe deletes her account.
    assert_eq!(
        store.delete_account(zoe, &token_hash(307)).await.unwrap(),
        vec![first]
    );
    assert_eq!(store.player(zoe).await.unwrap(), None);
    assert_eq!(store.player_profile(zoe).await.unwrap(), None);
    assert_eq!(
        store.session_by_token_hash(&token_hash(300)).await.unwrap(),
        None
    );
    assert_eq!(
        store.player_by_token_hash(&token_hash(300)).await.unwrap(),
        None
    );
    assert_eq!(store.credentials("zoë").await.unwrap(), None);
    assert!(store.sessions_of(zoe).await.unwrap().is_empty());
    assert!(!on_board(
        store.leaderboard(Mode::Clash, 100).await.unwrap()
    ));
    assert!(!store
        .rated_leaderboard(Mode::Clash, 1, 100)
        .await
        .unwrap()
        .iter()
        .any(|r| r.player_id == zoe));
    let doc = store.replay(done).await.unwrap().unwrap();
    verify(&doc.replay).expect("the replay of a deleted player's match verifies");
    let summary = store.match_summary(done).await.unwrap().unwrap();
    let names: Vec<&str> = summary.seats.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["", "Yan", "Bot 3", "Bot 4"]);
    assert!(summary.seats[0].standing.is_some(), "the result stays");
    // The username is free again; a second delete finds nobody.
    store.claim_account(yan, "Zoë", "zoë", "$h").await.unwrap();
    assert!(matches!(
        store.delete_account(zoe, &token_hash(308)).await,
        Err(StoreError::Invalid(_))
    ));
    // The ratings still recompute to what is stored.
    assert_eq!(
        store.recompute_ratings().await.unwrap(),
        store.stored_ratings().await.unwrap()
    );
}

/// Ratings: only matches with two or more humans rate; bots are not rated; ties
/// share a rank; a seat that left ranks last; the rated leaderboard ranks by
/// μ − 3σ among players with enough rated matches; recomputing from the stored
/// results gives the incremental ratings, and a rebuild keeps them.
async fn ratings(store: &Store) {
    let w = store::spawn_writer(store.clone());
    let kim = guest(store, 60, "Kim").await;
    let lou = guest(store, 61, "Lou").await;
    let max = guest(store, 62, "Max").await;
    // ((humans in seat order, (place, total) per seat), seat that left)
    let games: Vec<(Game, Option<Seat>)> = vec![
        // Kim beats Lou; the bots in between do not count.
        (
            (
                vec![(lou, "Lou"), (kim, "Kim")],
                [(3, 10), (1, 90), (2, 50), (4, 0)],
            ),
            None,
        ),
        // Kim, Lou and Max: Max wins, Kim and Lou tie.
        (
            (
                vec![(kim, "Kim"), (lou, "Lou"), (max, "Max")],
                [(2, 40), (2, 40), (1, 70), (4, 1)],
            ),
            None,
        ),
        // Max left: he ranks below Kim (and the bots) whatever his points.
        (
            (
                vec![(max, "Max"), (kim, "Kim")],
                [(4, 95), (1, 60), (2, 20), (3, 0)],
            ),
            Some(Seat::Green),
        ),
        // Only Lou is human: nothing is rated.
        (
            (vec![(lou, "Lou")], [(1, 99), (2, 10), (3, 5), (4, 0)]),
            None,
        ),
    ];
    let mut ids = Vec::new();
    for (i, ((humans, results), left)) in games.into_iter().enumerate() {
        let seed = 170 + i as u8;
        let nm = synthetic_match(seed, Mode::Clash, at(600 + i as i64), seats(&humans));
        w.send(WriteOp::CreateMatch(nm.clone())).await.unwrap();
        let mut r = synthetic_result(nm.id, seed, at(630 + i as i64), results);
        if let Some(seat) = left {
            w.send(WriteOp::Leave {
                match_id: nm.id,
                seat,
                seq: 5,
            })
            .await
            .unwrap();
            // Standings mark the leaver (ranked last, as the engine does).
            for st in &mut r.standings {
                st.left = st.seat == seat;
            }
        }
        w.send(WriteOp::Finish(r)).await.unwrap();
        ids.push(nm.id);
    }
    let by_seat = |c: &[(Seat, RatingChange)], s: Seat| c.iter().find(|x| x.0 == s).unwrap().1;
    let first = store.rating_changes(ids[0]).await.unwrap();
    assert_eq!(first.len(), 2, "two humans rated, bots not: {first:?}");
    let kim1 = by_seat(&first, Seat::Red);
    let lou1 = by_seat(&first, Seat::Green);
    assert!(kim1.change > 0.0 && lou1.change < 0.0 || kim1.after.mu > lou1.after.mu);
    assert!(
        kim1.after.mu > 25.0 && lou1.after.mu < 25.0,
        "{kim1:?} {lou1:?}"
    );
    let second = store.rating_changes(ids[1]).await.unwrap();
    assert_eq!(second.len(), 3);
    // Kim and Lou tie: each is rated from where it stood.
    assert_eq!(by_seat(&second, Seat::Green).before, kim1.after);
    assert_eq!(by_seat(&second, Seat::Red).before, lou1.after);
    assert!(by_seat(&second, Seat::Blue).after.mu > 25.0);
    let third = store.rating_changes(ids[2]).await.unwrap();
    let (max3, kim3) = (by_seat(&third, Seat::Green), by_seat(&third, Seat::Red));
    assert!(max3.after.mu < max3.before.mu, "the leaver loses: {max3:?}");
    assert!(kim3.after.mu > kim3.before.mu, "{kim3:?}");
    assert!(store.rating_changes(ids[3]).await.unwrap().is_empty());

    // Leaderboard (of these three; the leaderboard test's players are rated too):
    // Kim has 3 rated matches, Lou and Max 2.
    let ours = |b: Vec<store::RatedRow>| -> Vec<store::RatedRow> {
        b.into_iter()
            .filter(|r| [kim, lou, max].contains(&r.player_id))
            .collect()
    };
    let board = ours(store.rated_leaderboard(Mode::Clash, 3, 10).await.unwrap());
    let names: Vec<&str> = board.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["Kim"]);
    assert_eq!(board[0].rated_matches, 3);
    assert_eq!(board[0].rating, kim3.after);
    let board = ours(store.rated_leaderboard(Mode::Clash, 1, 10).await.unwrap());
    assert_eq!(board.len(), 3);
    assert!(board
        .windows(2)
        .all(|w| w[0].rating.conservative >= w[1].rating.conservative));
    assert!(matches!(
        store.rated_leaderboard(Mode::Clash, 1, 0).await,
        Err(StoreError::Invalid(_))
    ));

    // Re-computable: the stored results give the incremental ratings exactly.
    let stored = store.stored_ratings().await.unwrap();
    assert!(stored.iter().any(|r| r.player_id == kim && r.matches == 3));
    assert_eq!(store.recompute_ratings().await.unwrap(), stored);
    store.rebuild_ratings().await.unwrap();
    assert_eq!(store.stored_ratings().await.unwrap(), stored);
    assert_eq!(store.rating_changes(ids[2]).await.unwrap(), third);
}

/// Turn writes are multi-row INSERTs of at most 500 rows: a batch of 1,100 turns over
/// two matches spans three of them and lands whole, in order; appending it again adds
/// nothing (append-only and idempotent).
async fn big_turn_batches(store: &Store) {
    let m = play_short_match(11, Mode::Clash, 2);
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    for id in [a, b] {
        store
            .create_match(&new_match_of(id, &m, at(5), seats(&[])))
            .await
            .unwrap();
    }
    let many = |from: u32, n: u32| -> Vec<engine::TurnRecord> {
        (from..from + n)
            .map(|k| engine::TurnRecord {
                turn_number: k,
                ..m.log()[0].clone()
            })
            .collect()
    };
    let batches = vec![(a, many(1, 700)), (b, many(1, 400))];
    store.append_turn_batches(&batches).await.unwrap();
    store.append_turn_batches(&batches).await.unwrap();
    let count = |id| async move { store.match_summary(id).await.unwrap().unwrap().turn_count };
    assert_eq!((count(a).await, count(b).await), (700, 400));
    let doc = store.replay(a).await.unwrap().unwrap();
    let numbers: Vec<u32> = doc.replay.turns.iter().map(|t| t.turn_number).collect();
    assert_eq!(numbers, (1..=700).collect::<Vec<_>>());
}

/// A turn batch naming one unknown match writes nothing, not even the other match's
/// turns (all or nothing), and fails with UnknownMatch naming the batch's first
/// match; the store stays writable (on SQLite the batch is one multi-row INSERT on
/// the writer's own connection, its own transaction in autocommit mode): the same
/// turns then land.
async fn failed_turn_batch(store: &Store) {
    let m = play_short_match(12, Mode::Journey, 3);
    let a = Uuid::new_v4();
    store
        .create_match(&new_match_of(a, &m, at(6), seats(&[])))
        .await
        .unwrap();
    let batches = vec![(a, m.log().to_vec()), (Uuid::new_v4(), m.log().to_vec())];
    let res = store.append_turn_batches(&batches).await;
    assert!(
        matches!(res, Err(StoreError::UnknownMatch(x)) if x == a),
        "{res:?}"
    );
    let count = || async { store.match_summary(a).await.unwrap().unwrap().turn_count };
    assert_eq!(count().await, 0);
    store.append_turns(a, m.log()).await.unwrap();
    assert_eq!(count().await, 3);
}

/// Guests: created, found by token hash and by id; a taken token hash or id is a
/// Conflict that writes nothing; a malformed hash is Invalid.
async fn guests(store: &Store) {
    let id = Uuid::new_v4();
    let before = Utc::now().trunc_subsecs(6);
    store.create_guest(id, "Ana", &token_hash(1)).await.unwrap();
    let after = Utc::now();
    let p = store
        .player_by_token_hash(&token_hash(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((p.id, p.name.as_str()), (id, "Ana"));
    assert!(before <= p.created_at && p.created_at <= after);
    assert_eq!(
        p.created_at.timestamp_subsec_nanos() % 1000,
        0,
        "microseconds"
    );
    assert_eq!(store.player(id).await.unwrap(), Some(p.clone()));

    let other = Uuid::new_v4();
    let taken_hash = store.create_guest(other, "Imposter", &token_hash(1)).await;
    assert!(
        matches!(taken_hash, Err(StoreError::Conflict(_))),
        "{taken_hash:?}"
    );
    assert_eq!(store.player(other).await.unwrap(), None);
    let taken_id = store.create_guest(id, "Again", &token_hash(2)).await;
    assert!(
        matches!(taken_id, Err(StoreError::Conflict(_))),
        "{taken_id:?}"
    );
    assert_eq!(
        store.player_by_token_hash(&token_hash(2)).await.unwrap(),
        None
    );
    assert_eq!(store.player(id).await.unwrap(), Some(p));

    let bad = store.create_guest(Uuid::new_v4(), "X", "ABC").await;
    assert!(matches!(bad, Err(StoreError::Invalid(_))), "{bad:?}");
    assert_eq!(
        store.player_by_token_hash(&token_hash(99)).await.unwrap(),
        None
    );
}

/// A real match: create (twice: no-op), append turns (overlapping re-append: no
/// duplicates), finish (twice, and with other standings: first result wins); the
/// summary and the replay document at each stage; the ended replay passes
/// engine::replay::verify after a JSON round trip.
async fn match_lifecycle(store: &Store) {
    let ana = guest(store, 10, "Ana").await;
    let ben = guest(store, 11, "Ben").await;
    let m = play_short_match(7, Mode::Journey, 14);
    let log = m.log();
    assert_eq!(log.len(), 14);
    let id = Uuid::new_v4();
    let nm = new_match_of(id, &m, at(0), seats(&[(ana, "Ana"), (ben, "Ben")]));
    store.create_match(&nm).await.unwrap();
    store.create_match(&nm).await.unwrap();

    let s = store.match_summary(id).await.unwrap().unwrap();
    assert_eq!(s.id, id);
    assert_eq!(s.mode, Mode::Journey);
    assert_eq!(s.status, MatchStatus::Running);
    assert_eq!(s.started_at, at(0));
    assert_eq!((s.ended_at, s.end_reason), (None, None));
    assert_eq!(s.dice_commitment, m.commitment());
    assert_eq!(s.turn_count, 0);
    let names: Vec<_> = s
        .seats
        .iter()
        .map(|x| (x.seat, x.name.as_str(), x.is_bot))
        .collect();
    assert_eq!(
        names,
        vec![
            (Seat::Green, "Ana", false),
            (Seat::Red, "Ben", false),
            (Seat::Blue, "Bot 3", true),
            (Seat::Yellow, "Bot 4", true)
        ]
    );
    assert_eq!(s.seats[0].player_id, Some(ana));
    assert!(s
        .seats
        .iter()
        .all(|x| x.standing.is_none() && x.rating.is_none() && !x.left));
    assert_eq!(store.unfinished_matches().await.unwrap(), vec![id]);

    store.append_turns(id, &log[..6]).await.unwrap();
    store.append_turns(id, &log[4..]).await.unwrap();
    store.append_turns(id, log).await.unwrap();
    assert_eq!(
        store.match_summary(id).await.unwrap().unwrap().turn_count,
        14
    );

    let running = store.replay(id).await.unwrap().unwrap();
    assert_eq!(running.match_id, id);
    assert_eq!(running.seats, nm.seats);
    assert_eq!(
        running.replay.seed, None,
        "the seed stays secret while running"
    );
    assert_eq!(running.replay.end, None);
    assert_eq!(running.replay.turns, log.to_vec());
    let err = verify(&running.replay).unwrap_err();
    assert_eq!(err.field, "seed");

    // A seed that is not the committed one is refused and changes nothing.
    let mut wrong = result_of(id, &m, at(31));
    wrong.seed = Seed([8; 32]);
    assert!(matches!(
        store.finish_match(&wrong).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(
        store.match_summary(id).await.unwrap().unwrap().status,
        MatchStatus::Running
    );

    let result = result_of(id, &m, at(31));
    store.finish_match(&result).await.unwrap();
    store.finish_match(&result).await.unwrap();
    let mut other = result.clone();
    other.standings.iter_mut().for_each(|s| s.total += 1000);
    other.reason = EndReason::AllFinished;
    store.finish_match(&other).await.unwrap();

    let s = store.match_summary(id).await.unwrap().unwrap();
    // Ana and Ben are rated once (a repeated result changes nothing), by their
    // places; the bots are not.
    let end = m.end().unwrap();
    let place = |seat: Seat| end.standings.iter().find(|x| x.seat == seat).unwrap().place;
    let (pa, pb) = (place(Seat::Green), place(Seat::Red));
    let rank = |p: u8, q: u8| if p <= q { 1 } else { 2 };
    let expected = store::rating::rate(&[
        (Rating::initial(), rank(pa, pb)),
        (Rating::initial(), rank(pb, pa)),
    ]);
    let changes = store.rating_changes(id).await.unwrap();
    assert_eq!(
        changes,
        vec![
            (
                Seat::Green,
                RatingChange::new(Rating::initial(), expected[0])
            ),
            (Seat::Red, RatingChange::new(Rating::initial(), expected[1])),
        ]
    );
    let profile = store.player_profile(ana).await.unwrap().unwrap();
    assert_eq!(profile.modes[0].mode, Mode::Journey);
    assert_eq!(profile.modes[0].rated_matches, 1);
    assert_eq!(profile.modes[0].rating, expected[0]);
    assert_eq!(profile.modes[1].rated_matches, 0);
    assert_eq!(profile.modes[1].rating, Rating::initial());
    assert_eq!(s.status, MatchStatus::Ended);
    assert_eq!(s.ended_at, Some(at(31)));
    assert_eq!(s.end_reason, Some(EndReason::Clock));
    assert_eq!(s.turn_count, 14);
    for st in &m.end().unwrap().standings {
        let seat = &s.seats[st.seat.index()];
        assert_eq!(seat.seat, st.seat);
        assert_eq!(
            seat.standing.as_ref(),
            Some(st),
            "the engine's standing, unchanged"
        );
        assert_eq!(seat.left, st.left);
        assert_eq!(
            seat.rating,
            changes
                .iter()
                .find(|(seat, _)| *seat == st.seat)
                .map(|(_, c)| *c)
        );
    }
    assert_eq!(
        store.unfinished_matches().await.unwrap(),
        Vec::<Uuid>::new()
    );

    let doc = store.replay(id).await.unwrap().unwrap();
    assert_eq!(doc.replay, replay_of(&m));
    let json = serde_json::to_string(&doc).unwrap();
    let plain: Replay = serde_json::from_str(&json).unwrap();
    let replayed = verify(&plain).expect("stored replay verifies");
    assert_eq!(replayed.log(), log);
    assert_eq!(serde_json::from_str::<ReplayDoc>(&json).unwrap(), doc);
}

/// Bad match input is Invalid and writes nothing.
async fn bad_match_input(store: &Store) {
    let m = play_short_match(3, Mode::Clash, 1);
    let mut three = new_match_of(Uuid::new_v4(), &m, at(1), seats(&[]));
    three.seats.pop();
    let mut twice = new_match_of(Uuid::new_v4(), &m, at(1), seats(&[]));
    twice.seats[3].seat = Seat::Green;
    let mut bad_commit = new_match_of(Uuid::new_v4(), &m, at(1), seats(&[]));
    bad_commit.dice_commitment = "xyz".into();
    let stranger = new_match_of(Uuid::new_v4(), &m, at(1), seats(&[(Uuid::new_v4(), "Who")]));
    for nm in [three, twice, bad_commit, stranger] {
        let res = store.create_match(&nm).await;
        assert!(matches!(res, Err(StoreError::Invalid(_))), "{res:?}");
        assert_eq!(store.match_summary(nm.id).await.unwrap(), None);
    }
    let id = Uuid::new_v4();
    store
        .create_match(&new_match_of(id, &m, at(1), seats(&[])))
        .await
        .unwrap();
    let mut r = result_of(id, &m, at(2));
    r.standings.pop();
    assert!(matches!(
        store.finish_match(&r).await,
        Err(StoreError::Invalid(_))
    ));
    let mut t = m.log()[0].clone();
    t.turn_number = 0;
    assert!(matches!(
        store.append_turns(id, &[t]).await,
        Err(StoreError::Invalid(_))
    ));
    let s = store.match_summary(id).await.unwrap().unwrap();
    assert_eq!((s.status, s.turn_count), (MatchStatus::Running, 0));
}

/// The ids of a history page's matches, in order.
fn ids_of(page: &HistoryPage) -> Vec<Uuid> {
    page.matches.iter().map(|s| s.id).collect()
}

/// History: newest first (`started_at`, then id), `limit` per page; the cursor after
/// a page's last match gives the next page; a page that takes exactly the matches
/// left has no next cursor; a plain time cursor means "started strictly before";
/// limits outside 1..=100 are Invalid; a player without matches has an empty history.
async fn history_paging(store: &Store) {
    let cy = guest(store, 20, "Cy").await;
    let mut ids = Vec::new();
    for i in 0..5u8 {
        let nm = synthetic_match(
            100 + i,
            Mode::Clash,
            at(100 + i as i64),
            seats(&[(cy, "Cy")]),
        );
        store.create_match(&nm).await.unwrap();
        ids.push(nm.id);
    }
    let not_cy = synthetic_match(120, Mode::Clash, at(200), seats(&[]));
    store.create_match(&not_cy).await.unwrap();
    // The newest is ended: history shows it with its result.
    let r = synthetic_result(ids[4], 104, at(130), [(1, 10), (2, 5), (3, 1), (4, 0)]);
    store.finish_match(&r).await.unwrap();
    let page =
        |limit: u32, before: Option<Cursor>| store.player_matches(cy, Page { limit, before });
    let after = |i: usize| {
        Some(Cursor {
            started_at: at(100 + i as i64),
            id: Some(ids[i]),
        })
    };

    let p1 = page(2, None).await.unwrap();
    assert_eq!(ids_of(&p1), vec![ids[4], ids[3]]);
    assert_eq!(p1.next, after(3), "more follow: the cursor after ids[3]");
    assert_eq!(p1.matches[0].status, MatchStatus::Ended);
    assert_eq!(
        p1.matches[0].seats[0].standing.as_ref().map(|r| r.place),
        Some(1)
    );
    assert_eq!(p1.matches[1].seats[0].name, "Cy");
    assert_eq!(p1.matches[1].seats.len(), 4);
    let p2 = page(2, p1.next).await.unwrap();
    assert_eq!(ids_of(&p2), vec![ids[2], ids[1]]);
    assert_eq!(p2.next, after(1));
    let p3 = page(2, p2.next).await.unwrap();
    assert_eq!((ids_of(&p3), p3.next), (vec![ids[0]], None));
    // Exactly `limit` matches left: a full page, and no next cursor.
    let rest = page(3, p1.next).await.unwrap();
    assert_eq!(
        (ids_of(&rest), rest.next),
        (vec![ids[2], ids[1], ids[0]], None)
    );
    let all = page(5, None).await.unwrap();
    assert_eq!((all.matches.len(), all.next), (5, None));
    let four = page(4, None).await.unwrap();
    assert_eq!((four.matches.len(), four.next), (4, after(1)));
    let none_left = page(2, after(0)).await.unwrap();
    assert_eq!(
        none_left,
        HistoryPage {
            matches: vec![],
            next: None
        }
    );
    // A plain time cursor: the matches that started strictly before it.
    let before_102 = Some(Cursor {
        started_at: at(102),
        id: None,
    });
    let p = page(10, before_102).await.unwrap();
    assert_eq!((ids_of(&p), p.next), (vec![ids[1], ids[0]], None));
    for limit in [0, 101] {
        let res = page(limit, None).await;
        assert!(
            matches!(res, Err(StoreError::Invalid(_))),
            "limit {limit}: {res:?}"
        );
    }
    let nobody = store
        .player_matches(
            Uuid::new_v4(),
            Page {
                limit: 10,
                before: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(
        nobody,
        HistoryPage {
            matches: vec![],
            next: None
        }
    );
}

/// History ties: three of Dot's matches start in the same microsecond. They come in
/// id order (highest first) between the later and the earlier match, and paging by
/// one or two with the returned cursors shows each match exactly once; a plain time
/// cursor at that instant skips all three.
async fn history_ties(store: &Store) {
    let dot = guest(store, 21, "Dot").await;
    let create = |seed: u8, minutes: i64| {
        let nm = synthetic_match(seed, Mode::Journey, at(minutes), seats(&[(dot, "Dot")]));
        async move {
            store.create_match(&nm).await.unwrap();
            nm.id
        }
    };
    let earlier = create(160, 140).await;
    let mut tied = vec![
        create(161, 150).await,
        create(162, 150).await,
        create(163, 150).await,
    ];
    let later = create(164, 160).await;
    tied.sort_by_key(|&id| std::cmp::Reverse(id));
    let want: Vec<Uuid> = [vec![later], tied, vec![earlier]].concat();

    for limit in [1, 2] {
        let mut seen = Vec::new();
        let mut before = None;
        let mut pages = 0;
        loop {
            let p = store
                .player_matches(dot, Page { limit, before })
                .await
                .unwrap();
            assert!(p.matches.len() <= limit as usize);
            seen.extend(ids_of(&p));
            pages += 1;
            match p.next {
                Some(c) => before = Some(c),
                None => break,
            }
            assert!(pages <= 5, "limit {limit}: paging does not end");
        }
        assert_eq!(seen, want, "limit {limit}: every match once, in order");
        assert_eq!(pages, 5_usize.div_ceil(limit as usize), "limit {limit}");
    }
    let p = store
        .player_matches(
            dot,
            Page {
                limit: 10,
                before: Some(Cursor {
                    started_at: at(150),
                    id: None,
                }),
            },
        )
        .await
        .unwrap();
    assert_eq!(ids_of(&p), vec![earlier]);
}

/// Running matches among given ids (a server's rooms): only stored running ones,
/// newest start first then highest id, at most `limit`; unknown and ended ids are
/// left out; more than 500 ids are read in slices with the same answer.
async fn running_among(store: &Store) {
    let eli = guest(store, 22, "Eli").await;
    let create = |seed: u8, minutes: i64| {
        let nm = synthetic_match(seed, Mode::Clash, at(minutes), seats(&[(eli, "Eli")]));
        async move {
            store.create_match(&nm).await.unwrap();
            nm.id
        }
    };
    let old = create(170, 500).await;
    let mut tied = [create(171, 501).await, create(172, 501).await];
    let ended = create(173, 502).await;
    store
        .finish_match(&synthetic_result(
            ended,
            173,
            at(503),
            [(1, 9), (2, 8), (3, 7), (4, 6)],
        ))
        .await
        .unwrap();
    tied.sort_by_key(|&id| std::cmp::Reverse(id));
    let want = vec![tied[0], tied[1], old];
    let ids = vec![old, Uuid::new_v4(), tied[0], ended, tied[1]];

    let got = store.running_summaries(&ids, 100).await.unwrap();
    assert_eq!(got.iter().map(|m| m.id).collect::<Vec<_>>(), want);
    for m in &got {
        assert_eq!(m.status, MatchStatus::Running);
        assert_eq!(m.seats.len(), 4);
        assert_eq!(
            (m.seats[0].name.as_str(), m.seats[0].player_id),
            ("Eli", Some(eli))
        );
        assert_eq!(Some(m), store.match_summary(m.id).await.unwrap().as_ref());
    }
    let two = store.running_summaries(&ids, 2).await.unwrap();
    assert_eq!(two.iter().map(|m| m.id).collect::<Vec<_>>(), want[..2]);
    let mut many: Vec<Uuid> = (0..1200).map(|_| Uuid::new_v4()).collect();
    many[3] = old;
    many[700] = tied[1];
    many[1100] = tied[0];
    let got = store.running_summaries(&many, 100).await.unwrap();
    assert_eq!(got.iter().map(|m| m.id).collect::<Vec<_>>(), want);
    assert!(store.running_summaries(&[], 10).await.unwrap().is_empty());
    assert!(matches!(
        store.running_summaries(&ids, 0).await,
        Err(StoreError::Invalid(_))
    ));
}

/// Humans in seat order, and (place, total) per seat in turn order.
type Game<'a> = (Vec<(Uuid, &'a str)>, [(u8, i64); 4]);

/// Leaderboard: humans only, ended matches of the mode only, ordered by wins then
/// total points; shared first places count as wins.
async fn leaderboard_order(store: &Store) {
    let dee = guest(store, 30, "Dee").await;
    let eve = guest(store, 31, "Eve").await;
    let fay = guest(store, 32, "Fay").await;
    let games: [Game; 4] = [
        // green, red, blue, yellow; bots fill the seats after the humans.
        (
            vec![(dee, "Dee"), (eve, "Eve")],
            [(1, 300), (2, 200), (3, 100), (4, 0)],
        ),
        (
            vec![(eve, "Eve"), (dee, "Dee"), (fay, "Fay")],
            [(1, 250), (2, 150), (3, 50), (4, 10)],
        ),
        (
            vec![(dee, "Dee"), (eve, "Eve"), (fay, "Fay")],
            [(1, 120), (1, 120), (3, 60), (4, 5)],
        ),
        (vec![], [(1, 1500), (2, 1000), (3, 10), (4, 0)]),
    ];
    for (i, (humans, results)) in games.into_iter().enumerate() {
        let seed = 140 + i as u8;
        let mut seats = seats(&humans);
        if humans.is_empty() {
            // Game 4: a bot wins; Fay, Eve, Dee follow.
            for (slot, (id, name)) in [(1, (fay, "Fay")), (2, (eve, "Eve")), (3, (dee, "Dee"))] {
                seats[slot].player_id = Some(id);
                seats[slot].is_bot = false;
                seats[slot].name = name.to_string();
            }
        }
        let nm = synthetic_match(seed, Mode::Clash, at(300 + i as i64), seats);
        store.create_match(&nm).await.unwrap();
        let r = synthetic_result(nm.id, seed, at(330 + i as i64), results);
        store.finish_match(&r).await.unwrap();
    }
    // A running clash match of Fay's does not count.
    let running = synthetic_match(150, Mode::Clash, at(400), seats(&[(fay, "Fay")]));
    store.create_match(&running).await.unwrap();

    let row = |player_id, name: &str, matches, wins, total_points| LeaderboardRow {
        player_id,
        name: name.to_string(),
        matches,
        wins,
        total_points,
    };
    // Fay has the most points but no win: wins rank first.
    let expected = vec![
        row(eve, "Eve", 4, 2, 200 + 250 + 120 + 10),
        row(dee, "Dee", 4, 2, 300 + 150 + 120),
        row(fay, "Fay", 3, 0, 50 + 60 + 1000),
    ];
    let got = store.leaderboard(Mode::Clash, 100).await.unwrap();
    // The history player Cy finished one ended clash match (place 1, 10 points).
    let got: Vec<_> = got.into_iter().filter(|r| r.name != "Cy").collect();
    assert_eq!(got, expected);
    assert_eq!(
        store.leaderboard(Mode::Clash, 2).await.unwrap(),
        expected[..2].to_vec()
    );
    assert!(matches!(
        store.leaderboard(Mode::Clash, 0).await,
        Err(StoreError::Invalid(_))
    ));
    // Journey: only the lifecycle match (Ana and Ben).
    let journey: Vec<_> = store.leaderboard(Mode::Journey, 10).await.unwrap();
    let mut names: Vec<_> = journey.iter().map(|r| r.name.as_str()).collect();
    names.sort();
    assert_eq!(names, vec!["Ana", "Ben"]);
    assert!(journey.iter().all(|r| r.matches == 1));
}

/// Unknown ids: reads give None or nothing, writes give UnknownMatch.
async fn unknown_ids(store: &Store) {
    let id = Uuid::new_v4();
    assert_eq!(store.match_summary(id).await.unwrap(), None);
    assert_eq!(store.replay(id).await.unwrap(), None);
    assert_eq!(store.player(id).await.unwrap(), None::<Player>);
    let m = play_short_match(9, Mode::Clash, 1);
    let res = store.append_turns(id, m.log()).await;
    assert!(
        matches!(res, Err(StoreError::UnknownMatch(x)) if x == id),
        "{res:?}"
    );
    let res = store.finish_match(&result_of(id, &m, at(5))).await;
    assert!(
        matches!(res, Err(StoreError::UnknownMatch(x)) if x == id),
        "{res:?}"
    );
}

#[tokio::test]
async fn sqlite_contract() {
    let db = TempSqlite::new();
    let store = Store::connect(Some(&db.url)).await.expect("connect sqlite");
    assert_eq!(store.backend_name(), "sqlite");
    let outcome = run_catching(contract(store.clone())).await;
    // The turn log is append-only (trigger): an UPDATE is refused.
    let raw = sqlx::SqlitePool::connect(&db.url).await.unwrap();
    let upd = sqlx::query("UPDATE turns SET kind = 'pass'")
        .execute(&raw)
        .await;
    raw.close().await;
    store.close().await;
    db.remove();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
    assert!(upd.is_err(), "turns must be append-only: {upd:?}");
}

#[tokio::test]
async fn postgres_contract() {
    let db = TempPg::create("ludo_test").await;
    let store = Store::connect(Some(&db.url))
        .await
        .expect("connect postgres");
    assert_eq!(store.backend_name(), "postgres");
    let outcome = run_catching(contract(store.clone())).await;
    let raw = sqlx::PgPool::connect(&db.url).await.unwrap();
    let upd = sqlx::query("UPDATE turns SET kind = 'pass'")
        .execute(&raw)
        .await;
    raw.close().await;
    store.close().await;
    db.drop_db().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
    assert!(upd.is_err(), "turns must be append-only: {upd:?}");
}

/// Migration 0008 (SQLite, issue 14) rebuilds `turns` with its CHECK constraints as
/// OR chains instead of IN lists: a turn stored before it is still there, byte for
/// byte, and the rebuilt table still refuses an unknown seat or kind, an orphan turn
/// (foreign key) and any UPDATE (trigger).
#[tokio::test]
async fn sqlite_turns_rebuild_keeps_rows_and_constraints() {
    let db = TempSqlite::new();
    let opts: sqlx::sqlite::SqliteConnectOptions = db.url.parse().unwrap();
    let raw = sqlx::SqlitePool::connect_with(opts.create_if_missing(true).foreign_keys(true))
        .await
        .unwrap();
    // The schema as it was before 0008.
    let mut before = sqlx::migrate!("../../migrations/sqlite");
    before.migrations = before
        .migrations
        .iter()
        .filter(|m| m.version < 8)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    before.run(&raw).await.unwrap();
    let id = Uuid::new_v4();
    sqlx::query(
        "INSERT INTO matches (id, mode, rules, dice_commitment, created_at, started_at) \
         VALUES (?1, 'clash', '{}', 'c0ffee', '2026-12-02T00:00:00Z', '2026-12-02T00:00:00Z')",
    )
    .bind(&id.as_bytes()[..])
    .execute(&raw)
    .await
    .unwrap();
    let insert =
        "INSERT INTO turns (match_id, turn_number, seat, dice, kind, plan, events, seq, clock_ms) \
                  VALUES (?1, ?2, ?3, '[6,2]', ?4, '{\"moves\":[]}', '[]', 7, 1234)";
    sqlx::query(insert)
        .bind(&id.as_bytes()[..])
        .bind(1)
        .bind("red")
        .bind("plan")
        .execute(&raw)
        .await
        .unwrap();
    let old_sql: String =
        sqlx::query_scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'turns'")
            .fetch_one(&raw)
            .await
            .unwrap();
    assert!(old_sql.contains("seat IN ("), "{old_sql}");

    // The store applies 0008 (and every later step) at connect.
    let store = Store::connect(Some(&db.url)).await.expect("connect sqlite");
    let new_sql: String =
        sqlx::query_scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'turns'")
            .fetch_one(&raw)
            .await
            .unwrap();
    assert!(!new_sql.contains(" IN ("), "{new_sql}");
    let row: (
        Vec<u8>,
        i64,
        String,
        String,
        String,
        String,
        String,
        i64,
        i64,
    ) = sqlx::query_as(
        "SELECT match_id, turn_number, seat, dice, kind, plan, events, seq, clock_ms FROM turns",
    )
    .fetch_one(&raw)
    .await
    .unwrap();
    assert_eq!(
        row,
        (
            id.as_bytes().to_vec(),
            1,
            "red".to_string(),
            "[6,2]".to_string(),
            "plan".to_string(),
            "{\"moves\":[]}".to_string(),
            "[]".to_string(),
            7,
            1234
        )
    );
    let insert_turn = |seat: &'static str, kind: &'static str, number: i64, m: Uuid| {
        sqlx::query(insert)
            .bind(m.as_bytes().to_vec())
            .bind(number)
            .bind(seat)
            .bind(kind)
            .execute(&raw)
    };
    // Every seat and kind of rule 1.1 and the turn kinds is accepted …
    for (n, (seat, kind)) in [("green", "pass"), ("blue", "timeout"), ("yellow", "plan")]
        .into_iter()
        .enumerate()
    {
        insert_turn(seat, kind, n as i64 + 2, id).await.unwrap();
    }
    // … and anything else is refused, as an orphan turn and an UPDATE are.
    let bad_seat = insert_turn("purple", "plan", 9, id).await;
    assert!(
        format!("{bad_seat:?}").contains("CHECK constraint failed"),
        "{bad_seat:?}"
    );
    let bad_kind = insert_turn("red", "skip", 9, id).await;
    assert!(
        format!("{bad_kind:?}").contains("CHECK constraint failed"),
        "{bad_kind:?}"
    );
    let orphan = insert_turn("red", "plan", 1, Uuid::new_v4()).await;
    assert!(
        format!("{orphan:?}").contains("FOREIGN KEY constraint failed"),
        "{orphan:?}"
    );
    let upd = sqlx::query("UPDATE turns SET kind = 'pass'")
        .execute(&raw)
        .await;
    assert!(
        format!("{upd:?}").contains("turns are append-only"),
        "{upd:?}"
    );
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM turns")
        .fetch_one(&raw)
        .await
        .unwrap();
    assert_eq!(count, 4);
    raw.close().await;
    store.close().await;
    db.remove();
}

/// Migration 0012 (issue 29) on both backends: a guest stored before it keeps its
/// token, which is now its session, last used at the upgrade (so no guest expires
/// at the upgrade), and can claim an account. `upgrade`: a time just before the
/// store at `url` migrated.
async fn guest_before_accounts_survives(url: String, upgrade: chrono::DateTime<Utc>) {
    let store = Store::connect(Some(&url))
        .await
        .expect("connect and migrate");
    let (s, p) = store
        .session_by_token_hash(&token_hash(0x12))
        .await
        .unwrap()
        .expect("the old token is a session");
    assert_eq!((p.name.as_str(), p.username.clone()), ("Old", None));
    assert_eq!(s.player_id, p.id);
    assert_eq!(s.client, "");
    assert!(s.last_used_at >= upgrade, "{} < {upgrade}", s.last_used_at);
    assert!(s.created_at < upgrade, "created when the guest was");
    store.claim_account(p.id, "Old", "old", "$h").await.unwrap();
    store.close().await;
}

fn migrations_before_12(mut m: sqlx::migrate::Migrator) -> sqlx::migrate::Migrator {
    m.migrations = m
        .migrations
        .iter()
        .filter(|m| m.version < 12)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    m
}

#[tokio::test]
async fn sqlite_guests_from_before_accounts_become_sessions() {
    let db = TempSqlite::new();
    let opts: sqlx::sqlite::SqliteConnectOptions = db.url.parse().unwrap();
    let raw = sqlx::SqlitePool::connect_with(opts.create_if_missing(true).foreign_keys(true))
        .await
        .unwrap();
    migrations_before_12(sqlx::migrate!("../../migrations/sqlite"))
        .run(&raw)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO players (id, name, token_hash, created_at) \
         VALUES (?1, 'Old', ?2, '2026-01-02T03:04:05.123456+00:00')",
    )
    .bind(&Uuid::new_v4().as_bytes()[..])
    .bind(token_hash(0x12))
    .execute(&raw)
    .await
    .unwrap();
    let upgrade = Utc::now().trunc_subsecs(3);
    guest_before_accounts_survives(db.url.clone(), upgrade).await;
    raw.close().await;
}

#[tokio::test]
async fn postgres_guests_from_before_accounts_become_sessions() {
    let db = TempPg::create("ludo_upgrade").await;
    let raw = sqlx::PgPool::connect(&db.url).await.unwrap();
    migrations_before_12(sqlx::migrate!("../../migrations/postgres"))
        .run(&raw)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO players (id, name, token_hash, created_at) \
         VALUES ($1, 'Old', $2, '2026-01-02T03:04:05.123456Z')",
    )
    .bind(Uuid::new_v4())
    .bind(token_hash(0x12))
    .execute(&raw)
    .await
    .unwrap();
    let upgrade = Utc::now().trunc_subsecs(3);
    let outcome = run_catching(guest_before_accounts_survives(db.url.clone(), upgrade)).await;
    raw.close().await;
    db.drop_db().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}
