//! Reconnects after connections that end badly: a TCP reset (no close frame), a
//! socket dropped without a close frame in the middle of the player's own turn (the
//! documented blip), and a half-open socket that the keep-alive has to close. Each
//! checks the reconnect snapshot's `position` against what another player saw live.
//!
//! The rooms run on a manual clock, so turn timers fire only when the test moves it;
//! the keep-alive (ping, idle close, 1 s / 2 s) runs on Tokio's paused clock.

use crate::common::*;
use client::tracker::MatchTracker;
use engine::{Seat, TurnKind};
use futures_util::StreamExt;
use protocol::{ServerFrame, ServerMsg, Snapshot, TurnStarted};
use serde_json::{json, Value};
use server::Clock;
use std::time::Duration;
use tokio_tungstenite::MaybeTlsStream;

/// What one player has seen of the match, frame by frame.
#[derive(Default)]
struct View {
    /// The last match `seq` read.
    seq: u64,
    /// The position, kept from `match_started` by re-playing every turn (protocol
    /// version 3: `turn_resolved` carries the events, not the position).
    tracker: Option<MatchTracker>,
    /// The last `turn_started` read (the turn in progress).
    turn: Option<TurnStarted>,
    /// Every resolved turn: (turn number, seat, kind).
    log: Vec<(u32, Seat, TurnKind)>,
}

impl View {
    /// Takes in one live frame; live match frames come without gaps.
    fn absorb(&mut self, f: &ServerFrame) {
        if let Some(seq) = f.seq {
            assert_eq!(seq, self.seq + 1, "live frames without gaps: {:?}", f.msg);
            self.seq = seq;
        }
        match &f.msg {
            ServerMsg::MatchStarted(m) => self.tracker = Some(MatchTracker::from_started(m)),
            ServerMsg::TurnStarted(t) => self.turn = Some(t.clone()),
            ServerMsg::TurnResolved(r) => self.log.push((r.turn_number, r.seat, r.kind)),
            _ => {}
        }
        if let Some(t) = &mut self.tracker {
            t.apply(&f.msg).expect("the live frames re-play");
        }
    }

    /// The position now, as this player knows it: every turn re-played on the start
    /// position, with the current turn's roll store and exit credits (rule 4.1).
    fn position(&self) -> Value {
        let t = self.tracker.as_ref().expect("match_started was read");
        assert!(t.turn().is_some(), "a turn runs");
        serde_json::to_value(t.position()).unwrap()
    }

    /// The turn's kinds of `seat`, in order.
    fn kinds_of(&self, seat: Seat) -> Vec<TurnKind> {
        self.log
            .iter()
            .filter(|(_, s, _)| *s == seat)
            .map(|(_, _, k)| *k)
            .collect()
    }
}

/// A plan that changes the position: on the seat's first turn, bring G1 out (rule
/// 4.2: every seat starts with exit credits) and move it by the first stored roll;
/// later, pass.
fn plan_for(t: &TurnStarted, first: bool) -> Value {
    if first {
        json!({"exits": ["G1"], "moves": {"G1": [t.roll_store[0]]}})
    } else {
        json!({})
    }
}

/// A human player that plays its own turns (see [`plan_for`]) while reading.
struct Player {
    c: Client,
    seat: Seat,
    view: View,
    played: u32,
}

impl Player {
    /// Reads (and plays its turns) until `stop` holds for the view; `stop` is checked
    /// after each frame, before playing, so the player can stop at its own turn.
    async fn pump(&mut self, id: uuid::Uuid, stop: impl Fn(&View) -> bool) {
        while !stop(&self.view) {
            let f = self.c.recv().await;
            self.view.absorb(&f);
            if stop(&self.view) {
                return;
            }
            match &f.msg {
                ServerMsg::TurnStarted(t) if t.seat == self.seat => {
                    self.play(id, t.clone(), "p").await;
                }
                // A refused plan (none is expected): pass instead, so the match goes on.
                ServerMsg::Error(e) => {
                    let t = self.view.turn.clone().unwrap();
                    assert_eq!(t.seat, self.seat, "unexpected error {e:?}");
                    self.c
                        .send(json!({"t": "pass", "d": {"match_id": id, "turn_number": t.turn_number}}))
                        .await;
                }
                _ => {}
            }
        }
    }

    /// Reads until nothing arrives for `quiet` (the match waits for a human).
    async fn drain(&mut self, quiet: Duration) {
        while let Ok(Some(m)) = tokio::time::timeout(quiet, self.c.ws.next()).await {
            if let tokio_tungstenite::tungstenite::Message::Text(t) = m.unwrap() {
                self.view
                    .absorb(&protocol::decode_server(t.as_str()).unwrap());
            }
        }
    }

    /// Submits this player's plan for turn `t`.
    async fn play(&mut self, id: uuid::Uuid, t: TurnStarted, rid: &str) {
        let plan = plan_for(&t, self.played == 0);
        self.played += 1;
        self.c
            .send(json!({"t": "submit_turn", "id": rid, "d": {"match_id": id, "turn_number": t.turn_number, "plan": plan}}))
            .await;
    }
}

/// Ends the connection with a TCP reset: no close frame, no FIN (SO_LINGER 0).
fn reset(c: Client) {
    match c.ws.get_ref() {
        MaybeTlsStream::Plain(tcp) => tcp.set_zero_linger().unwrap(),
        _ => unreachable!("plain TCP"),
    }
    drop(c);
}

/// Two humans and two bots on a manual clock; returns the server, the match id and
/// the two players (in lobby order: host first).
async fn two_humans(
    config: server::Config,
    clock: &Clock,
) -> (TestServer, uuid::Uuid, Player, Player) {
    let s = start_with_clock(config, clock.clone()).await;
    let (mut clients, started) = lobby_of_four(&s, true, 2).await;
    let id = started[0].match_id;
    let mut players = clients.drain(..).zip(&started).map(|(c, st)| Player {
        c,
        seat: st.your_seat.unwrap(),
        view: View {
            seq: st.seq,
            tracker: Some(MatchTracker::from_started(&st.msg)),
            ..View::default()
        },
        played: 0,
    });
    let a = players.next().unwrap();
    let b = players.next().unwrap();
    (s, id, a, b)
}

/// Reconnects `who` (player id, token, seat) on a new socket; returns it and the
/// snapshot it gets right after `welcome`.
async fn reconnect_snapshot(
    s: &TestServer,
    who: (uuid::Uuid, &str, Seat),
    id: uuid::Uuid,
) -> (Client, Snapshot) {
    let (mut c, active) = s.reconnect(who.0, who.1).await;
    assert_eq!(active, vec![id], "welcome lists the running match");
    let f = c.recv().await;
    let ServerMsg::Snapshot(snap) = f.msg else {
        panic!("expected snapshot, got {:?}", f.msg)
    };
    assert_eq!((snap.match_id, snap.your_seat), (id, Some(who.2)));
    assert_eq!(f.seq, Some(snap.seq));
    (c, *snap)
}

/// The snapshot shows what `other` saw live: same `seq`, same turn, and the same
/// position (every seat's pieces, rolls, credits, scores).
fn assert_snapshot_matches(snap: &Snapshot, other: &View) {
    assert_eq!(
        snap.seq, other.seq,
        "snapshot seq = the other player's last seq"
    );
    let (st, ot) = (snap.turn.as_ref().unwrap(), other.turn.as_ref().unwrap());
    assert_eq!(
        (
            st.turn_number,
            st.seat,
            &st.dice,
            &st.roll_store,
            st.exit_credits,
            st.turn_deadline_ms
        ),
        (
            ot.turn_number,
            ot.seat,
            &ot.dice,
            &ot.roll_store,
            ot.exit_credits,
            ot.turn_deadline_ms
        ),
        "the turn in progress"
    );
    assert_eq!(snap.clocks.turn_deadline_ms, Some(ot.turn_deadline_ms));
    assert_eq!(
        serde_json::to_value(snap.position).unwrap(),
        other.position(),
        "the snapshot's position is the one the other player sees"
    );
}

/// A player whose TCP connection is reset (no close frame) keeps its seat: its first
/// missed turn runs the whole turn timer and times out (rule 4.6), its later turns
/// are passed at once while it is away; back with its token, it gets a snapshot whose
/// position and turn are exactly what the other human sees, and live frames go on
/// from the snapshot's `seq`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_connection_keeps_the_seat_and_the_snapshot_matches_the_other_view() {
    let clock = Clock::manual(T0);
    let (s, id, mut a, r) = two_humans(test_config(), &clock).await;
    let r_seat = r.seat;
    let r_id = r.c.player_id;
    let r_token = r.c.token.clone();
    reset(r.c);
    s.eventually("the reset socket is dropped", |st| {
        st.session(r_id).is_none()
    })
    .await;
    assert_eq!(
        s.state.presence().active_match(r_id),
        Some(id),
        "the seat is kept"
    );

    // A plays until it is R's turn; the room waits for R's turn timer.
    a.pump(id, |v| v.turn.as_ref().is_some_and(|t| t.seat == r_seat))
        .await;
    let deadline = a.view.turn.as_ref().unwrap().turn_deadline_ms;
    clock.set_ms(deadline - 1);
    a.c.expect_silence(Duration::from_millis(300)).await;
    clock.set_ms(deadline);
    // R's first missed turn times out; its next one is passed at once (the clock
    // stands still); A stops at its own turn after that, so the match waits.
    let a_seat = a.seat;
    a.pump(id, |v| {
        v.kinds_of(r_seat).len() >= 2 && v.turn.as_ref().is_some_and(|t| t.seat == a_seat)
    })
    .await;
    assert_eq!(
        &a.view.kinds_of(r_seat)[..2],
        &[TurnKind::Timeout, TurnKind::Pass]
    );

    // R comes back.
    let (mut rc, snap) = reconnect_snapshot(&s, (r_id, &r_token, r_seat), id).await;
    assert_snapshot_matches(&snap, &a.view);
    assert_eq!(snap.turns_played as usize, a.view.log.len());

    // Live frames continue right after the snapshot.
    let t = a.view.turn.clone().unwrap();
    a.play(id, t.clone(), "a").await;
    let f = rc.recv().await;
    assert_eq!(f.seq, Some(snap.seq + 1));
    let ServerMsg::TurnResolved(tr) = f.msg else {
        panic!("expected turn_resolved, got {:?}", f.msg)
    };
    assert_eq!((tr.turn_number, tr.seat), (t.turn_number, a.seat));
}

/// The documented blip (README, rule 4.6): a player whose socket drops in the middle
/// of its own turn (here without a close frame) and who is back before its turn
/// timer runs out still plays that turn itself — nothing is passed for it meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_back_within_its_own_turn_timer_still_plays_that_turn() {
    let clock = Clock::manual(T0);
    let (s, id, mut a, mut b) = two_humans(test_config(), &clock).await;
    if b.seat == Seat::Green {
        // B's turn must come after a resolved turn (A's view then holds a position).
        std::mem::swap(&mut a, &mut b);
    }
    let b_seat = b.seat;
    // Both read (A playing its turns) until it is B's turn.
    let b_to_move = |v: &View| v.turn.as_ref().is_some_and(|t| t.seat == b_seat);
    tokio::join!(a.pump(id, b_to_move), b.pump(id, b_to_move));
    assert_eq!(a.view.seq, b.view.seq);
    let turn = b.view.turn.clone().unwrap();

    // B's connection goes away without a close frame (FIN only).
    let (b_id, token) = (b.c.player_id, b.c.token.clone());
    drop(b.c);
    s.eventually("the dropped socket is detached", |st| {
        st.session(b_id).is_none()
    })
    .await;
    // 1 ms before B's turn timer runs out, nothing has been passed for B.
    clock.set_ms(turn.turn_deadline_ms - 1);
    a.c.expect_silence(Duration::from_millis(300)).await;

    // B is back: the snapshot still shows its turn, which it then plays.
    let (mut bc, snap) = reconnect_snapshot(&s, (b_id, &token, b_seat), id).await;
    assert_snapshot_matches(&snap, &a.view);
    let st = snap.turn.unwrap();
    assert_eq!(
        (st.turn_number, st.seat, st.turn_deadline_ms),
        (turn.turn_number, b_seat, turn.turn_deadline_ms)
    );
    let plan = plan_for(&turn, true);
    bc.send(json!({"t": "submit_turn", "id": "back", "d": {"match_id": id, "turn_number": turn.turn_number, "plan": plan}}))
        .await;
    let (ack, _) = bc.recv_until(|m| matches!(m, ServerMsg::Ack(_))).await;
    assert!(matches!(ack.msg, ServerMsg::Ack(x) if x.id == "back"));
    for c in [&mut bc, &mut a.c] {
        let (f, _) = c
            .recv_until(|m| matches!(m, ServerMsg::TurnResolved(_)))
            .await;
        assert_eq!(f.seq, Some(snap.seq + 1));
        let ServerMsg::TurnResolved(r) = f.msg else {
            unreachable!()
        };
        assert_eq!(
            (r.turn_number, r.seat, r.kind),
            (turn.turn_number, b_seat, TurnKind::Plan),
            "B played its own turn"
        );
    }
}

/// A half-open socket — the client stops reading and writing but never closes — is
/// closed by the keep-alive: no frame for `idle_seconds` (2 s; pings every 1 s go
/// unanswered) closes it. The seat is kept, and the player's reconnect snapshot
/// matches the other human's view.
///
/// The keep-alive's seconds pass on Tokio's paused clock (no wall-clock wait); it is
/// resumed before the steps that wait on the store (`hello`), which a paused clock
/// would run past.
#[tokio::test]
async fn a_half_open_socket_is_closed_by_the_keepalive_and_the_seat_is_kept() {
    let clock = Clock::manual(T0);
    let config = server::Config {
        ping_seconds: 1,
        idle_seconds: 2,
        ..test_config()
    };
    let (s, id, a, h) = two_humans(config, &clock).await;
    // Green moves first (rule 1.1). If the silent player held green, the match would
    // wait on it from turn 1 and nothing would be played before the snapshot; so the
    // reader is green whenever one of the two is, and at least one turn (the reader's
    // or the bots') is always played before the comparison.
    let (mut a, h) = if h.seat == Seat::Green {
        (h, a)
    } else {
        (a, h)
    };
    let h_id = h.c.player_id;
    // H goes silent (its socket is kept open, never polled). A keeps reading, so its
    // own pings are answered; it plays until the match waits for a human.
    tokio::time::pause();
    let t0 = tokio::time::Instant::now();
    let bound = Duration::from_secs(2 + 3);
    while s.state.session(h_id).is_some() {
        assert!(
            t0.elapsed() < bound,
            "the half-open socket was not closed within {bound:?}"
        );
        if let Ok(Some(Ok(tokio_tungstenite::tungstenite::Message::Text(t)))) =
            tokio::time::timeout(Duration::from_millis(50), a.c.ws.next()).await
        {
            let f = protocol::decode_server(t.as_str()).unwrap();
            a.view.absorb(&f);
            if let ServerMsg::TurnStarted(t) = &f.msg {
                if t.seat == a.seat && a.played == 0 {
                    a.play(id, t.clone(), "p").await;
                }
            }
        }
    }
    let waited = t0.elapsed();
    tokio::time::resume();
    assert!(
        waited >= Duration::from_millis(1500),
        "closed for idleness, not at once ({waited:?})"
    );
    assert!(
        s.state.session(a.c.player_id).is_some(),
        "A, reading, stays"
    );
    assert_eq!(
        s.state.presence().active_match(h_id),
        Some(id),
        "the seat is kept"
    );
    // The room waits for a human (the manual clock stands still): A reads the rest.
    a.drain(Duration::from_millis(300)).await;

    let (_hc, snap) = reconnect_snapshot(&s, (h_id, &h.c.token, h.seat), id).await;
    assert!(
        !a.view.log.is_empty(),
        "a turn was played before the snapshot (seats {:?} / {:?})",
        a.seat,
        h.seat
    );
    assert_eq!(snap.seq, a.view.seq);
    assert_eq!(snap.turns_played as usize, a.view.log.len());
    assert_snapshot_matches(&snap, &a.view);
}
