//! Whole matches: four scripted clients to `match_ended`; the turn timer; the match
//! clock; spectators. Timers run on a manual clock that only the test moves.

use crate::common::*;
use bot::BotKind;
use engine::{EndReason, Mode, Seat, Seed, TurnKind};
use protocol::ServerMsg;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::time::Duration;

/// What one scripted client saw of a match.
struct Seen {
    /// (turn number, seat, kind) of every `turn_resolved`, in order.
    resolved: Vec<(u32, Seat, TurnKind)>,
    /// The raw `turn_resolved` payloads (must be identical for every client).
    payloads: Vec<String>,
    ended: protocol::MatchEnded,
    last_seq: u64,
}

/// Plays one seat: on its own `turn_started` asks for a snapshot (`resync` from 0),
/// lets a greedy bot choose a plan for the snapshot's position and submits it.
/// Checks that match messages arrive with `seq` 2, 3, 4 … without gaps (a snapshot
/// repeats the current `seq`).
async fn play(mut c: Client, st: Started) -> Seen {
    let me = st.your_seat.expect("a player has a seat");
    let mut strategy = bot::new_bot(BotKind::Greedy, me.index() as u64);
    let mut last_seq = st.seq;
    assert_eq!(last_seq, 1, "match_started is seq 1");
    let mut resolved = Vec::new();
    let mut payloads = Vec::new();
    loop {
        let f = c.recv().await;
        match (&f.msg, f.seq) {
            (ServerMsg::Snapshot(_), Some(s)) => {
                assert_eq!(s, last_seq, "a snapshot repeats the current seq")
            }
            (_, Some(s)) => {
                assert_eq!(s, last_seq + 1, "match messages are numbered without gaps");
                last_seq = s;
            }
            (_, None) => {}
        }
        match f.msg {
            ServerMsg::TurnStarted(t) if t.seat == me => {
                c.send(json!({"t": "resync", "d": {"match_id": st.match_id, "last_seq": 0}}))
                    .await;
            }
            ServerMsg::Snapshot(snap) => {
                if let Some(turn) = snap.turn.filter(|t| t.seat == me) {
                    let plan = strategy.choose(&snap.position, &snap.rules);
                    c.send(json!({"t": "submit_turn", "id": format!("t{}", turn.turn_number),
                        "d": {"match_id": st.match_id, "turn_number": turn.turn_number, "plan": plan}}))
                        .await;
                }
            }
            ServerMsg::TurnResolved(r) => {
                payloads.push(serde_json::to_string(&r).unwrap());
                resolved.push((r.turn_number, r.seat, r.kind));
            }
            ServerMsg::MatchEnded(ended) => {
                return Seen {
                    resolved,
                    payloads,
                    ended,
                    last_seq,
                }
            }
            ServerMsg::Error(e) => {
                // The only acceptable refusal: the clock ran out while a plan was on its way.
                assert_eq!(
                    e.code,
                    protocol::ErrorCode::MatchOver,
                    "unexpected error {e:?}"
                );
            }
            _ => {}
        }
    }
}

/// Turns the scripted clients play before the test runs the match clock out.
const SCRIPTED_TURNS: usize = 12;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_scripted_clients_play_a_full_match_to_match_ended() {
    let (s, clock) = start_manual(server::Config {
        turn_seconds: 5,
        match_seconds: 4,
        rate_per_second: 1000,
        rate_burst: 1000,
        ..test_config()
    })
    .await;
    let mut clients = Vec::new();
    for i in 0..4 {
        let mut c = s.player(&format!("Quick {i}")).await;
        c.send(json!({"t": "join_queue", "id": "q", "d": {"mode": "clash"}}))
            .await;
        clients.push(c);
    }
    let mut started = Vec::new();
    for c in clients.iter_mut() {
        started.push(expect_started(c).await);
    }
    let id = started[0].match_id;
    // Four humans form a match at once: no bots, each seat once, all told the same.
    let mut seats: Vec<Seat> = started.iter().map(|s| s.your_seat.unwrap()).collect();
    seats.sort();
    assert_eq!(seats, Seat::ALL.to_vec());
    assert!(started
        .iter()
        .all(|s| s.match_id == id && s.seats.iter().all(|x| !x.bot)));

    let mut watcher = s.player("Watcher").await;
    watcher
        .send(json!({"t": "spectate", "d": {"match_id": id}}))
        .await;
    let tasks: Vec<_> = clients
        .into_iter()
        .zip(started)
        .map(|(c, st)| tokio::spawn(play(c, st)))
        .collect();
    // Once the clients have played a few rounds (or finished), the match clock runs
    // out (rule 9.1): 4 s after the start.
    let mut resolved = 0;
    while resolved < SCRIPTED_TURNS {
        match watcher.recv().await.msg {
            ServerMsg::TurnResolved(_) => resolved += 1,
            ServerMsg::MatchEnded(_) => break,
            _ => {}
        }
    }
    clock.set_ms(T0 + 4_000);
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(
            tokio::time::timeout(Duration::from_secs(20), t)
                .await
                .unwrap()
                .unwrap(),
        );
    }
    let first = &seen[0];
    assert!(
        first.resolved.len() >= SCRIPTED_TURNS || first.ended.reason == EndReason::AllFinished,
        "three rounds were played, got {}",
        first.resolved.len()
    );
    for (i, (n, _, _)) in first.resolved.iter().enumerate() {
        assert_eq!(*n, i as u32 + 1, "turn numbers are 1, 2, 3 …");
    }
    // Rule 1.1 / 4.7: turns go green, red, blue, yellow while nobody has finished.
    let order: Vec<Seat> = first.resolved.iter().take(4).map(|r| r.1).collect();
    assert_eq!(order, Seat::ALL.to_vec());
    assert!(
        first.resolved.iter().any(|r| r.2 == TurnKind::Plan),
        "real plans were played"
    );
    for other in &seen[1..] {
        assert_eq!(
            other.payloads, first.payloads,
            "every seat sees the same turn_resolved bytes"
        );
        assert_eq!(other.ended, first.ended);
        assert_eq!(other.last_seq, first.last_seq);
    }
    // Rule 9.1: the match ends when every seat finished or the clock ran out.
    let all_finished = first.ended.standings.iter().all(|s| s.finished.is_some());
    assert_eq!(first.ended.reason == EndReason::AllFinished, all_finished);
    assert_eq!(first.ended.standings.len(), 4);
    assert_eq!(
        first.ended.replay_url,
        format!("/api/v1/matches/{id}/replay")
    );

    // The room is gone, and the stored replay re-plays to the same end.
    s.eventually("room removed", |st| {
        st.room_count() == 0 && st.presence().is_empty()
    })
    .await;
    s.state.writer().flush().await;
    let doc = s.store.replay(id).await.unwrap().expect("stored");
    let seed = doc.replay.seed.expect("seed revealed");
    assert_eq!(seed.to_hex(), first.ended.seed);
    assert_eq!(
        hex::encode(Sha256::digest(seed.0)),
        doc.replay.dice_commitment
    );
    assert_eq!(doc.replay.turns.len(), first.resolved.len());
    engine::replay::verify(&doc.replay).expect("the stored match re-plays identically");
}

#[tokio::test]
async fn turn_timer_expiry_passes_the_turn() {
    // Rule 4.6: one human who never submits, three instant bots, 1 s turns.
    let (s, clock) = start_manual(server::Config {
        turn_seconds: 1,
        ..test_config()
    })
    .await;
    let (mut clients, started) = lobby_of_four(&s, true, 1).await;
    let (me, id) = (started[0].your_seat.unwrap(), started[0].match_id);
    let c = &mut clients[0];
    let (turn, seq) = loop {
        let (seat, turn, seq) = next_turn(c).await;
        if seat == me {
            break (turn, seq);
        }
    };
    // The clock has not moved since the turn started: its deadline is 1 s ahead.
    clock.set_ms(T0 + 1_000 - 1);
    expect_room_at(c, id, seq).await;
    clock.set_ms(T0 + 1_000);
    let r = next_resolved(c).await;
    assert_eq!(
        (r.turn_number, r.seat, r.kind),
        (turn, me, TurnKind::Timeout)
    );
    assert!(r.plan.is_pass(), "a timeout resolves the pass");
}

#[tokio::test]
async fn match_clock_expiry_ends_the_match_with_standings() {
    // Rule 9.1: a 2 s match clock, turns of 30 s that nobody plays.
    let (s, clock) = start_manual(server::Config {
        match_seconds: 2,
        ..test_config()
    })
    .await;
    let (mut clients, started) = lobby_of_four(&s, false, 2).await;
    let id = started[0].match_id;
    // Empty seats pass at once; a human's turn waits for the clock.
    let humans: Vec<Seat> = started.iter().filter_map(|st| st.your_seat).collect();
    let seq = loop {
        let (seat, _, seq) = next_turn(&mut clients[1]).await;
        if humans.contains(&seat) {
            break seq;
        }
    };
    clock.set_ms(T0 + 2_000 - 1);
    expect_room_at(&mut clients[1], id, seq).await;
    clock.set_ms(T0 + 2_000);
    let (f, _) = clients[1]
        .recv_until(|m| matches!(m, ServerMsg::MatchEnded(_)))
        .await;
    let ServerMsg::MatchEnded(e) = f.msg else {
        unreachable!()
    };
    assert_eq!(e.reason, EndReason::Clock);
    assert_eq!(e.match_id, id);
    // The seat is free as soon as `match_ended` arrives: queueing at once is accepted.
    clients[1]
        .send(json!({"t": "join_queue", "id": "again", "d": {"mode": "clash"}}))
        .await;
    let (f, _) = clients[1]
        .recv_until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
        .await;
    assert!(
        matches!(&f.msg, ServerMsg::Ack(a) if a.id == "again"),
        "{:?}",
        f.msg
    );
    clients[1].send(json!({"t": "leave_queue"})).await;
    assert_eq!(
        e.standings.iter().map(|s| s.place).collect::<Vec<_>>(),
        vec![1, 1, 1, 1],
        "nobody scored: all share first place"
    );
    // Everything about the room is released.
    s.eventually("room removed", |st| {
        st.room_count() == 0 && st.presence().is_empty()
    })
    .await;
    // The room is gone, but the ended match still answers: a snapshot of its end
    // (issue 12.7), not match_not_found.
    clients[0]
        .send(json!({"t": "spectate", "d": {"match_id": id}}))
        .await;
    let (f, _) = clients[0]
        .recv_until(|m| matches!(m, ServerMsg::Snapshot(_) | ServerMsg::Error(_)))
        .await;
    match f.msg {
        ServerMsg::Snapshot(snap) => assert_eq!(snap.ended.as_ref(), Some(&e)),
        other => panic!("expected the ended match's snapshot, got {other:?}"),
    }
    s.state.writer().flush().await;
    let summary = s.store.match_summary(id).await.unwrap().unwrap();
    assert_eq!(summary.status, store::MatchStatus::Ended);
    assert_eq!(summary.end_reason, Some(EndReason::Clock));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_gets_a_snapshot_then_live_events() {
    let s = start(test_config()).await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    let mut watcher = s.player("Watcher").await;
    watcher
        .send(json!({"t": "spectate", "id": "w", "d": {"match_id": id}}))
        .await;
    let (f, _) = watcher
        .recv_until(|m| matches!(m, ServerMsg::Snapshot(_)))
        .await;
    let ServerMsg::Snapshot(snap) = f.msg else {
        unreachable!()
    };
    assert_eq!(snap.your_seat, None, "a spectator has no seat");
    assert_eq!(
        snap.seq, 2,
        "match_started and the first turn_started were sent"
    );
    assert_eq!(f.seq, Some(2));
    let turn = snap.turn.clone().expect("turn 1 is running");
    assert_eq!(
        (turn.seat, turn.turn_number),
        (Seat::Green, 1),
        "rule 1.1: green moves first"
    );
    // Green passes; the spectator sees it live as seq 3, then turn 2 as seq 4.
    let green = index_of(&started, Seat::Green);
    clients[green]
        .send(json!({"t": "pass", "d": {"match_id": id, "turn_number": 1}}))
        .await;
    let f = watcher.recv().await;
    assert_eq!(f.seq, Some(3));
    let ServerMsg::TurnResolved(r) = f.msg else {
        panic!("expected turn_resolved, got {:?}", f.msg)
    };
    assert_eq!(
        (r.turn_number, r.seat, r.kind),
        (1, Seat::Green, TurnKind::Pass)
    );
    let f = watcher.recv().await;
    assert_eq!(f.seq, Some(4));
    let ServerMsg::TurnStarted(t) = f.msg else {
        panic!("expected turn_started, got {:?}", f.msg)
    };
    assert_eq!((t.turn_number, t.seat), (2, Seat::Red));
    // A spectator cannot play.
    watcher
        .send(json!({"t": "pass", "d": {"match_id": id, "turn_number": 2}}))
        .await;
    watcher.expect_error(protocol::ErrorCode::NotInMatch).await;
}

/// The turns greedy players (one `BotKind::Greedy` per seat, seeded by its seat
/// index, as [`play`] chooses) need to finish every seat of a `mode` match with
/// `seed`, played by the engine alone; `None` when they have not within 3,000 turns.
fn greedy_turns_to_finish(rules: &engine::RuleSet, mode: Mode, seed: Seed) -> Option<usize> {
    let mut m = engine::Match::new(rules.clone(), mode, seed, 0).unwrap();
    let mut bots: Vec<_> = Seat::ALL
        .iter()
        .map(|s| bot::new_bot(BotKind::Greedy, s.index() as u64))
        .collect();
    for n in 0..3_000 {
        let Some(t) = m.current_turn().cloned() else {
            return (m.end()?.reason == EndReason::AllFinished).then_some(n);
        };
        let plan = bots[t.seat.index()].choose(m.position(), rules);
        m.submit(t.seat, t.turn_number, &plan, 0).unwrap();
    }
    None
}

/// Rule 9.1's other ending, by construction and on any machine: a seed whose match
/// greedy players finish is found with the engine alone; the server starts a match
/// with that seed for four scripted clients that play those same greedy plans, on a
/// manual clock that never runs out. The match ends `all_finished` after exactly the
/// simulated number of turns, with places 1, 2, 3, 4 (rule 8.8), and the stored
/// result says so and re-plays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_players_who_finish_end_the_match_all_finished() {
    let (s, _clock) = start_manual(server::Config {
        rate_per_second: 1000,
        rate_burst: 1000,
        ..test_config()
    })
    .await;
    let mode = Mode::Clash;
    let rules = s.state.config().rules();
    let (seed, turns) = (0u8..64)
        .find_map(|k| {
            greedy_turns_to_finish(&rules, mode, Seed([k; 32])).map(|n| (Seed([k; 32]), n))
        })
        .expect("a seed among 64 whose match greedy players finish");

    let mut clients = Vec::new();
    for i in 0..4 {
        clients.push(s.player(&format!("Finisher {i}")).await);
    }
    let occupants = clients
        .iter()
        .map(|c| server::room::Occupant::Human {
            player_id: c.player_id,
            name: c.name.clone(),
        })
        .collect();
    let id = server::room::start_seeded(s.state.game(), mode, occupants, false, seed).unwrap();
    let mut started = Vec::new();
    for c in clients.iter_mut() {
        started.push(expect_started(c).await);
    }
    let tasks: Vec<_> = clients
        .into_iter()
        .zip(started)
        .map(|(c, st)| tokio::spawn(play(c, st)))
        .collect();
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(
            tokio::time::timeout(Duration::from_secs(120), t)
                .await
                .expect("the match ends within 120 s")
                .unwrap(),
        );
    }
    let ended = &seen[0].ended;
    assert_eq!(ended.reason, EndReason::AllFinished);
    assert_eq!(
        seen[0].resolved.len(),
        turns,
        "the simulated number of turns"
    );
    let mut places: Vec<u8> = ended
        .standings
        .iter()
        .map(|s| s.finished.expect("every seat finished"))
        .collect();
    places.sort_unstable();
    assert_eq!(places, [1, 2, 3, 4], "rule 8.8: finishing places");
    for other in &seen[1..] {
        assert_eq!(&other.ended, ended);
    }
    s.eventually("room removed", |st| st.room_count() == 0)
        .await;
    s.state.writer().flush().await;
    let summary = s.store.match_summary(id).await.unwrap().unwrap();
    assert_eq!(summary.status, store::MatchStatus::Ended);
    assert_eq!(summary.end_reason, Some(EndReason::AllFinished));
    let doc = s.store.replay(id).await.unwrap().expect("stored");
    assert_eq!(doc.replay.turns.len(), turns);
    engine::replay::verify(&doc.replay).expect("the stored match re-plays identically");
}
