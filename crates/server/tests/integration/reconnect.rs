//! Disconnects, reconnects and resync.

use crate::common::*;
use engine::{Seat, TurnKind};
use protocol::{ServerFrame, ServerMsg};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

type Log = Arc<Mutex<Vec<(u32, Seat, TurnKind)>>>;

/// The `turn_deadline` of the last `turn_started` of each seat.
type Deadlines = Arc<Mutex<[Option<u64>; 4]>>;

/// Passes each of `me`'s turns after 20 ms and logs every resolved turn and each
/// seat's last turn deadline, until `stop` fires.
async fn passer(
    mut c: Client,
    me: Seat,
    id: uuid::Uuid,
    (log, deadlines): (Log, Deadlines),
    mut stop: oneshot::Receiver<()>,
) -> Client {
    loop {
        let f = tokio::select! {
            _ = &mut stop => return c,
            f = c.recv() => f,
        };
        if let ServerMsg::TurnStarted(t) = &f.msg {
            deadlines.lock().unwrap()[t.seat.index()] = Some(t.turn_deadline_ms);
        }
        match f.msg {
            ServerMsg::TurnStarted(t) if t.seat == me => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                c.send(json!({"t": "pass", "d": {"match_id": id, "turn_number": t.turn_number}}))
                    .await;
            }
            ServerMsg::TurnResolved(r) => log.lock().unwrap().push((r.turn_number, r.seat, r.kind)),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disconnected_player_keeps_its_seat_and_continues_after_a_snapshot() {
    let (s, clock) = start_manual(server::Config {
        bot_think_ms: 50,
        turn_seconds: 1,
        ..test_config()
    })
    .await;
    let (mut clients, started) = lobby_of_four(&s, true, 2).await;
    let id = started[0].match_id;
    let (a_seat, b_seat) = (started[0].your_seat.unwrap(), started[1].your_seat.unwrap());
    let b = clients.pop().unwrap();
    let a = clients.pop().unwrap();
    let log: Log = Arc::default();
    let deadlines: Deadlines = Arc::default();
    let (stop, stop_rx) = oneshot::channel();
    let a_task = tokio::spawn(passer(
        a,
        a_seat,
        id,
        (log.clone(), deadlines.clone()),
        stop_rx,
    ));

    // B leaves mid-match.
    let (b_id, b_token) = (b.player_id, b.token.clone());
    let mut b_ws = b.ws;
    b_ws.close(None).await.unwrap();
    drop(b_ws);
    // Its seat is kept. Its first missed turn runs the whole turn timer (a blip costs
    // nothing if B is back in time) and times out (rule 4.6); after that, while B is
    // still away, its turns are passed at once. The test runs that timer out on the
    // manual clock once B's turn has started.
    let t0 = tokio::time::Instant::now();
    loop {
        let b_turns: Vec<TurnKind> = log
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, s, _)| *s == b_seat)
            .map(|(_, _, k)| *k)
            .collect();
        // (A turn of B's that started before the room saw B go also runs its timer.)
        if let Some(passed) = b_turns.iter().position(|k| *k == TurnKind::Pass) {
            assert!(
                passed >= 1,
                "the first missed turn runs its timer: {b_turns:?}"
            );
            assert!(
                b_turns[..passed].iter().all(|k| *k == TurnKind::Timeout),
                "{b_turns:?}"
            );
            break;
        }
        if let Some(deadline) = deadlines.lock().unwrap()[b_seat.index()] {
            clock.set_ms(deadline);
        }
        assert!(
            t0.elapsed() < STEP,
            "B's turns were not passed while it was away"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        s.state.presence().active_match(b_id),
        Some(id),
        "the seat is kept"
    );

    // B comes back: welcome lists the match, then a snapshot of its seat.
    let (mut b, active) = s.reconnect(b_id, &b_token).await;
    assert_eq!(active, vec![id]);
    let f = b.recv().await;
    let ServerMsg::Snapshot(snap) = f.msg else {
        panic!("expected snapshot, got {:?}", f.msg)
    };
    assert_eq!((snap.match_id, snap.your_seat), (id, Some(b_seat)));
    assert_eq!(f.seq, Some(snap.seq));
    assert!(snap.turns_played >= 1);
    let mut last_seq = snap.seq;

    // And continues: plays its next turn itself.
    loop {
        let f = b.recv().await;
        assert_eq!(
            f.seq,
            Some(last_seq + 1),
            "live frames continue right after the snapshot"
        );
        last_seq += 1;
        if let ServerMsg::TurnStarted(t) = f.msg {
            if t.seat == b_seat {
                b.send(json!({"t": "pass", "id": "back", "d": {"match_id": id, "turn_number": t.turn_number}})).await;
                let (ack, _) = b.recv_until(|m| matches!(m, ServerMsg::Ack(_))).await;
                assert!(matches!(ack.msg, ServerMsg::Ack(a) if a.id == "back"));
                let r = next_resolved(&mut b).await;
                assert_eq!(
                    (r.turn_number, r.seat, r.kind),
                    (t.turn_number, b_seat, TurnKind::Pass)
                );
                break;
            }
        }
    }
    stop.send(()).unwrap();
    a_task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resync_replays_a_short_gap_and_snapshots_a_long_one() {
    let s = start(server::Config {
        resync_frames: 4,
        ..test_config()
    })
    .await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    let idx = |seat: Seat| index_of(&started, seat);
    let y = idx(Seat::Yellow);
    // Green, red and blue pass turns 1..=3: seq 3..=8 (resolved + started each).
    pass_first_turns(&mut clients, &started, id, 3).await;
    let yc = &mut clients[y];
    let mut live = Vec::new();
    while live.len() < 7 {
        let f = yc.recv().await;
        live.push(f); // seq 2..=8
    }
    assert_eq!(
        live.iter().map(|f| f.seq.unwrap()).collect::<Vec<_>>(),
        vec![2, 3, 4, 5, 6, 7, 8]
    );
    // Missed 5..=8: still kept (ring of 4) → replayed in order, identical but for
    // the turn in progress's times, stamped as of the replay (issue 37).
    yc.send(json!({"t": "resync", "d": {"match_id": id, "last_seq": 4}}))
        .await;
    for expect in &live[3..6] {
        let f = yc.recv().await;
        assert_eq!(&f, expect);
    }
    let f = yc.recv().await;
    let (ServerMsg::TurnStarted(now), ServerMsg::TurnStarted(then)) = (&f.msg, &live[6].msg) else {
        panic!(
            "expected turn_started twice, got {:?} and {:?}",
            f.msg, live[6].msg
        )
    };
    assert_eq!(f.seq, Some(8));
    assert_eq!(
        protocol::TurnStarted {
            turn_remaining_ms: then.turn_remaining_ms,
            match_remaining_ms: then.match_remaining_ms,
            now_ms: then.now_ms,
            ..now.clone()
        },
        *then,
        "the same turn"
    );
    assert!(now.now_ms >= then.now_ms && now.turn_remaining_ms <= then.turn_remaining_ms);
    // Missed 3..=8: seq 3 and 4 are gone → a snapshot at seq 8.
    yc.send(json!({"t": "resync", "d": {"match_id": id, "last_seq": 2}}))
        .await;
    let f = yc.recv().await;
    let ServerMsg::Snapshot(snap) = f.msg else {
        panic!("expected snapshot, got {:?}", f.msg)
    };
    assert_eq!(
        (snap.seq, f.seq, snap.turns_played, snap.your_seat),
        (8, Some(8), 3, Some(Seat::Yellow))
    );
    assert_eq!(
        snap.turn.map(|t| (t.turn_number, t.seat)),
        Some((4, Seat::Yellow))
    );
}

/// Yellow, seated in a four-human match, drops its socket having processed `seq` 2
/// (turn 1's `turn_started`); then the first `turns` seats pass their turns (two
/// frames each). Yellow says `hello` again with `last_seq: {match: 2}`. Returns what
/// it read after `welcome` up to the answer of a `resync` probe sent right after the
/// `hello` (the room handles the re-attach first), and the frames Green saw meanwhile.
async fn back_after_missing(
    resync_frames: usize,
    turns: u32,
) -> (Vec<ServerFrame>, Vec<ServerFrame>) {
    let (s, _clock) = start_manual(server::Config {
        resync_frames,
        ..test_config()
    })
    .await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    let idx = |seat: Seat| index_of(&started, seat);
    let (g, y) = (idx(Seat::Green), idx(Seat::Yellow));
    let (_, turn, seq) = next_turn(&mut clients[y]).await;
    assert_eq!((turn, seq), (1, 2));
    let (y_id, y_token) = (clients[y].player_id, clients[y].token.clone());
    clients[y].ws.close(None).await.unwrap();
    s.eventually("yellow's socket is gone", |st| st.session(y_id).is_none())
        .await;

    let mut missed = Vec::new();
    pass_first_turns(&mut clients, &started, id, turns).await;
    // Green sees every frame Yellow misses: seq 3 ..= 2 + 2 × turns.
    let gc = &mut clients[g];
    while missed.len() < 2 * turns as usize {
        let f = gc.recv().await;
        if f.seq.is_some_and(|s| s > 2) {
            missed.push(f);
        }
    }

    let mut back = s.connect().await;
    back.player_id = y_id;
    back.send(
        json!({"t": "hello", "d": {"token": y_token, "protocol_version": 3,
        "client": "test", "last_seq": {id.to_string(): 2}}}),
    )
    .await;
    back.send(
        json!({"t": "resync", "id": "probe", "d": {"match_id": id, "last_seq": 2 + 2 * turns}}),
    )
    .await;
    match back.recv().await.msg {
        ServerMsg::Welcome(w) => assert_eq!(w.active_matches, vec![id]),
        other => panic!("expected welcome, got {other:?}"),
    }
    let (_, got) = back
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "probe"))
        .await;
    (got, missed)
}

/// `hello.last_seq` (issue 16.8): a reconnect that missed two frames still in the
/// room's history gets exactly those two, in order, and no snapshot.
#[tokio::test]
async fn a_reconnect_replays_the_two_missed_frames_without_a_snapshot() {
    let (got, missed) = back_after_missing(16, 1).await;
    assert_eq!(
        got.iter().map(|f| f.seq).collect::<Vec<_>>(),
        vec![Some(3), Some(4)]
    );
    assert_eq!(got, missed, "the very frames the others saw");
}

/// A gap older than the room's history (2 frames kept, 6 missed) gets a snapshot.
#[tokio::test]
async fn a_reconnect_after_a_gap_older_than_the_history_gets_a_snapshot() {
    let (got, _) = back_after_missing(2, 3).await;
    assert_eq!(got.len(), 1, "{got:?}");
    let ServerMsg::Snapshot(snap) = &got[0].msg else {
        panic!("expected snapshot, got {:?}", got[0].msg)
    };
    assert_eq!(
        (snap.seq, got[0].seq, snap.your_seat),
        (8, Some(8), Some(Seat::Yellow))
    );
    assert_eq!(snap.turn.as_ref().map(|t| t.turn_number), Some(4));
}
