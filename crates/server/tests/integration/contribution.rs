//! Player-contributed dice (proto/README.md §10, issue 31), on a manual clock:
//! each human seat's `contribute_entropy` is stored, then acknowledged; once every
//! human seat has contributed, or the contribution window is over, `dice_sealed`
//! shows the four contributions (defaults for bots and silent seats) and only then
//! is the first turn rolled, from the seed and those contributions. The replay
//! records them and verifies; bad contributions get a typed error and change
//! nothing.

use crate::common::*;
use engine::{Contribution, Dice, DiceScheme, Entropy, Seat};
use protocol::{ErrorCode, ServerMsg};
use serde_json::{json, Value};
use std::time::Duration;
use uuid::Uuid;

const WINDOW_MS: u32 = 3_000;

fn config() -> server::Config {
    server::Config {
        contribution_window_ms: WINDOW_MS,
        match_seconds: 600,
        ..test_config()
    }
}

fn contribute(match_id: Uuid, id: &str, entropy: &str) -> Value {
    json!({"t": "contribute_entropy", "id": id, "d": {"match_id": match_id, "entropy": entropy}})
}

async fn expect_ack(c: &mut Client, id: &str) {
    match c.recv().await.msg {
        ServerMsg::Ack(a) => assert_eq!(a.id, id),
        other => panic!("expected ack {id}, got {other:?}"),
    }
}

/// The next frame is `dice_sealed`: its seq and contributions.
async fn expect_sealed(c: &mut Client) -> (u64, Vec<Contribution>) {
    let f = c.recv().await;
    match f.msg {
        ServerMsg::DiceSealed(d) => (f.seq.unwrap(), d.contributions),
        other => panic!("expected dice_sealed, got {other:?}"),
    }
}

/// The next frame is `turn_started`: (seq, turn number, dice, turn deadline).
async fn expect_turn(c: &mut Client) -> (u64, u32, Vec<u8>, u64) {
    let f = c.recv().await;
    match f.msg {
        ServerMsg::TurnStarted(t) => (f.seq.unwrap(), t.turn_number, t.dice, t.turn_deadline_ms),
        other => panic!("expected turn_started, got {other:?}"),
    }
}

async fn replay(s: &TestServer, id: Uuid) -> engine::Replay {
    let doc: Value = reqwest::get(s.url(&format!("/api/v1/matches/{id}/replay")))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    serde_json::from_value(doc).unwrap()
}

/// Plays on from turn `turn` of `seat` (already read by client 0) until turn `until`
/// starts: the humans pass their turns, the bots play theirs.
async fn play_to(
    clients: &mut [Client],
    started: &[Started],
    id: Uuid,
    (mut seat, mut turn): (Seat, u32),
    until: u32,
) {
    while turn < until {
        if let Some(i) = started.iter().position(|s| s.your_seat == Some(seat)) {
            clients[i]
                .send(json!({"t": "pass", "d": {"match_id": id, "turn_number": turn}}))
                .await;
        }
        (seat, turn, _) = next_turn(&mut clients[0]).await;
    }
}

/// Both humans leave: the match ends as abandoned and its seed is revealed.
async fn end_by_leaving(clients: &mut [Client], id: Uuid) {
    for c in clients.iter_mut() {
        c.send(json!({"t": "leave_match", "id": "bye", "d": {"match_id": id}}))
            .await;
        c.recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "bye"))
            .await;
    }
}

#[tokio::test]
async fn the_first_roll_follows_the_seed_and_every_contribution_and_the_replay_verifies() {
    let (s, clock) = start_manual(config()).await;
    let (mut clients, started) = lobby_of_four(&s, true, 2).await;
    let id = started[0].match_id;
    for st in &started {
        assert_eq!(st.seq, 1);
        assert_eq!(st.msg.dice_scheme, DiceScheme::Contributed);
        assert_eq!(st.msg.contribution_deadline_ms, Some(T0 + 3_000));
    }
    let entropy = ["11".repeat(16), "a7".repeat(32)];
    clients[0].send(contribute(id, "e0", &entropy[0])).await;
    expect_ack(&mut clients[0], "e0").await;
    // One of two humans contributed: nothing is rolled yet.
    clients[1].expect_silence(Duration::from_millis(200)).await;
    clock.set_ms(T0 + 1_000);
    clients[1]
        .send(contribute(id, "e1", &entropy[1].to_uppercase()))
        .await;
    expect_ack(&mut clients[1], "e1").await;
    // Both contributed: sealed at once (seq 2), the first turn follows (seq 3) with
    // a full turn timer from the seal.
    let mut sealed = Vec::new();
    let mut first = Vec::new();
    for c in clients.iter_mut() {
        sealed.push(expect_sealed(c).await);
        first.push(expect_turn(c).await);
    }
    assert_eq!(sealed[0], sealed[1]);
    assert_eq!(first[0], first[1]);
    let (seq, contributions) = sealed.remove(0);
    assert_eq!(seq, 2);
    let (turn_seq, turn, dice, deadline) = first.remove(0);
    assert_eq!((turn_seq, turn, deadline), (3, 1, T0 + 1_000 + 30_000));
    // Each player sees its own bytes used; the bots' seats got the default.
    for (st, e) in started.iter().zip(&entropy) {
        let c = &contributions[st.your_seat.unwrap().index()];
        assert_eq!((c.entropy.to_hex(), c.defaulted), (e.clone(), false));
    }
    for (seat, c) in Seat::ALL.into_iter().zip(&contributions) {
        assert_eq!(c.seat, seat);
        let human = started.iter().any(|st| st.your_seat == Some(seat));
        assert_eq!(c.defaulted, !human);
        assert_eq!(c.entropy.as_bytes().is_empty(), !human);
    }
    // A snapshot shows the sealed contributions too.
    clients[0]
        .send(json!({"t": "resync", "d": {"match_id": id, "last_seq": 0}}))
        .await;
    let (f, _) = clients[0]
        .recv_until(|m| matches!(m, ServerMsg::Snapshot(_)))
        .await;
    let ServerMsg::Snapshot(snap) = f.msg else {
        unreachable!()
    };
    assert_eq!(snap.contributions.as_deref(), Some(&contributions[..]));
    assert_eq!(snap.contribution_deadline_ms, None);

    // A bot may have played turn 1 before the resync was answered (its frames then
    // came before the snapshot and were skipped): go on from the snapshot's turn.
    let now = snap.turn.as_ref().unwrap();
    play_to(&mut clients, &started, id, (now.seat, now.turn_number), 6).await;
    end_by_leaving(&mut clients, id).await;
    let r = replay(&s, id).await;
    assert_eq!(r.dice_scheme, DiceScheme::Contributed);
    assert_eq!(r.contributions.as_deref(), Some(&contributions[..]));
    let seed = r.seed.expect("the seed is revealed at the end");
    assert_eq!(seed.commitment(), started[0].msg.dice_commitment);
    // The first roll is ChaCha20 keyed with HKDF(seed, contributions) ...
    let mut d = Dice::contributed(seed, &contributions).unwrap();
    assert_eq!(dice, (0..3).map(|_| d.roll()).collect::<Vec<_>>());
    // ... and another contribution would have rolled other dice (30 dice compared).
    let mut other = contributions.clone();
    let i = started[1].your_seat.unwrap().index();
    other[i].entropy = Entropy::from_player_hex(&"a8".repeat(32)).unwrap();
    let roll30 = |c: &[Contribution]| {
        let mut d = Dice::contributed(seed, c).unwrap();
        (0..30).map(|_| d.roll()).collect::<Vec<_>>()
    };
    assert_eq!(roll30(&contributions), roll30(&contributions));
    assert_ne!(roll30(&contributions), roll30(&other));
    assert!(r.turns.len() >= 5, "{} turns", r.turns.len());
    assert_eq!(r.turns[0].dice, dice);
    let m = engine::replay::verify(&r).expect("the replay verifies");
    assert_eq!(m.dice_scheme(), DiceScheme::Contributed);
    // A changed contribution fails verification at the first die.
    let mut tampered = r.clone();
    tampered.contributions = Some(other);
    let e = engine::replay::verify(&tampered).unwrap_err();
    assert_eq!((e.turn, e.field.as_str()), (Some(1), "dice"));
}

#[tokio::test]
async fn a_silent_seat_gets_the_default_exactly_when_the_window_closes() {
    let (s, clock) = start_manual(config()).await;
    let (mut clients, started) = lobby_of_four(&s, true, 2).await;
    let id = started[0].match_id;
    clients[0]
        .send(contribute(id, "e0", &"5c".repeat(20)))
        .await;
    expect_ack(&mut clients[0], "e0").await;
    // 1 ms before the window closes nothing is rolled ...
    clock.set_ms(T0 + 2_999);
    expect_room_at(&mut clients[1], id, 1).await;
    clients[1].expect_silence(Duration::from_millis(200)).await;
    // ... at the close the dice are sealed with the silent seat's default.
    clock.set_ms(T0 + 3_000);
    let (seq, contributions) = expect_sealed(&mut clients[1]).await;
    assert_eq!(seq, 2);
    let silent = &contributions[started[1].your_seat.unwrap().index()];
    assert!(silent.defaulted && silent.entropy.as_bytes().is_empty());
    let spoke = &contributions[started[0].your_seat.unwrap().index()];
    assert_eq!(spoke.entropy.to_hex(), "5c".repeat(20));
    let (_, turn, _, deadline) = expect_turn(&mut clients[1]).await;
    assert_eq!((turn, deadline), (1, T0 + 3_000 + 30_000));
    let (seat, turn, _) = next_turn(&mut clients[0]).await;
    play_to(&mut clients, &started, id, (seat, turn), 5).await;
    // Too late now: typed error, and the recorded default stays.
    clients[1]
        .send(contribute(id, "late", &"77".repeat(16)))
        .await;
    let (f, _) = clients[1]
        .recv_until(|m| matches!(m, ServerMsg::Error(_)))
        .await;
    let ServerMsg::Error(e) = f.msg else {
        unreachable!()
    };
    assert_eq!(
        (e.code, e.in_reply_to.as_deref()),
        (ErrorCode::ContributionClosed, Some("late"))
    );
    end_by_leaving(&mut clients, id).await;
    let r = replay(&s, id).await;
    assert_eq!(r.contributions.as_deref(), Some(&contributions[..]));
    assert!(r.turns.len() >= 4);
    engine::replay::verify(&r).expect("the replay verifies");
}

#[tokio::test]
async fn bad_contributions_get_a_typed_error_and_change_nothing() {
    let (s, clock) = start_manual(config()).await;
    let (mut clients, started) = lobby_of_four(&s, true, 2).await;
    let id = started[0].match_id;
    let mut watcher = s.player("Watcher").await;
    watcher
        .send(json!({"t": "spectate", "d": {"match_id": id}}))
        .await;
    watcher
        .recv_until(|m| {
            matches!(m, ServerMsg::Snapshot(s) if s.contributions.is_none()
            && s.contribution_deadline_ms == Some(T0 + 3_000) && s.turn.is_none())
        })
        .await;
    let c = &mut clients[0];
    // Too short (15 bytes), too long (65), not hex, not a string.
    for (i, bad) in [
        json!("ab".repeat(15)),
        json!("ab".repeat(65)),
        json!("zz".repeat(16)),
        json!("abc".repeat(11)),
    ]
    .into_iter()
    .enumerate()
    {
        let rid = format!("b{i}");
        c.send(
            json!({"t": "contribute_entropy", "id": rid, "d": {"match_id": id, "entropy": bad}}),
        )
        .await;
        let e = c.expect_error(ErrorCode::InvalidEntropy).await;
        assert_eq!(e.in_reply_to.as_deref(), Some(rid.as_str()));
    }
    c.send(json!({"t": "contribute_entropy", "id": "n", "d": {"match_id": id, "entropy": 7}}))
        .await;
    c.expect_error(ErrorCode::BadJson).await;
    // Another match (unknown id).
    c.send(contribute(Uuid::new_v4(), "other", &"01".repeat(16)))
        .await;
    c.expect_error(ErrorCode::MatchNotFound).await;
    // A spectator has no seat.
    watcher.send(contribute(id, "w", &"02".repeat(16))).await;
    watcher.expect_error(ErrorCode::NotInMatch).await;
    // None of those was recorded: the first good one is accepted ...
    c.send(contribute(id, "good", &"03".repeat(16))).await;
    expect_ack(c, "good").await;
    // ... and a second is refused, the first kept.
    c.send(contribute(id, "again", &"04".repeat(16))).await;
    c.expect_error(ErrorCode::AlreadyContributed).await;
    clock.set_ms(T0 + 3_000);
    let (_, contributions) = expect_sealed(&mut clients[1]).await;
    let mine = &contributions[started[0].your_seat.unwrap().index()];
    assert_eq!(
        (mine.entropy.to_hex(), mine.defaulted),
        ("03".repeat(16), false)
    );
    let other = &contributions[started[1].your_seat.unwrap().index()];
    assert!(other.defaulted);
    // The spectator sees the seal like everyone else.
    let (f, _) = watcher
        .recv_until(|m| matches!(m, ServerMsg::DiceSealed(_)))
        .await;
    assert_eq!(f.seq, Some(2));
    // Twice after the seal: still `already_contributed` for the seat that did.
    clients[0]
        .send(contribute(id, "again2", &"05".repeat(16)))
        .await;
    clients[0]
        .recv_until(|m| matches!(m, ServerMsg::Error(e) if e.code == ErrorCode::AlreadyContributed))
        .await;
}
