//! `Session::reconnect` against the real server (in-process on 127.0.0.1:0, SQLite
//! store, rooms on a manual clock so no turn timer fires): a player that stopped
//! reading while the match went on reconnects with its token and last `seq` and gets
//! the match back — exactly the frames it missed, up to the other player's `seq`,
//! with the position that player sees, none twice, no snapshot, and its own turn
//! still to play. And the
//! reconnect path of `play_match` (the load tools' player) after the server drops
//! a socket mid-match.

use client::tracker::MatchTracker;
use client::{Endpoint, Rest, Session};
use engine::{Mode, TurnKind};
use protocol::{ServerFrame, ServerMsg, TurnStarted};
use serde_json::Value;
use server::{AppState, Clock, Config};
use std::time::Duration;
use tokio::time::timeout;

/// How long any one step may take.
const STEP: Duration = Duration::from_secs(10);

async fn start() -> (String, AppState, tempfile::TempDir) {
    let config = Config {
        bot_think_ms: 0,
        bot_fill_seconds: 60,
        // Room for every frame A misses, so its reconnect is answered by a replay.
        resync_frames: 64,
        // The manual clock never closes a dice contribution window: scheme
        // `server_seed` (the dice are not what this test is about).
        contribution_window_ms: 0,
        ..Config::default()
    };
    start_with(config, Clock::manual(1_800_000_000_000)).await
}

async fn start_with(config: Config, clock: Clock) -> (String, AppState, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("reconnect.db").display());
    let store = store::Store::connect(Some(&db)).await.unwrap();
    let writer = store::spawn_writer(store.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let state = AppState::with_clock(config, store, writer, clock);
    tokio::spawn(server::run(listener, state.clone(), std::future::pending()));
    (url, state, dir)
}

/// What one player saw live: the last `seq` and `turn_started`, and the position
/// its tracker keeps from `match_started` by re-playing every turn (protocol
/// version 3: `turn_resolved` carries events, not the position).
struct View {
    seq: u64,
    turn: Option<TurnStarted>,
    tracker: MatchTracker,
}

impl View {
    fn new(started: &protocol::MatchStarted) -> View {
        View {
            seq: 1,
            turn: None,
            tracker: MatchTracker::from_started(started),
        }
    }

    fn absorb(&mut self, f: &ServerFrame) {
        if let Some(seq) = f.seq {
            assert_eq!(seq, self.seq + 1, "frames in order: {:?}", f.msg);
            self.seq = seq;
        }
        if let ServerMsg::TurnStarted(t) = &f.msg {
            self.turn = Some(t.clone());
        }
        self.tracker.apply(&f.msg).expect("the frames re-play");
    }

    /// The position now, with the current turn's rolls (rule 4.1).
    fn position(&self) -> Value {
        serde_json::to_value(self.tracker.position()).unwrap()
    }
}

async fn next(s: &mut Session) -> ServerFrame {
    timeout(STEP, s.next_frame())
        .await
        .expect("a frame in time")
        .expect("session open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_reconnect_gets_the_match_back_from_the_real_server() {
    let (url, state, _dir) = start().await;
    let endpoint = Endpoint::parse(&url).unwrap();
    let rest = Rest::new(endpoint.clone());
    let mut a = Session::connect(&endpoint, rest.create_guest("Ada").await.unwrap(), "test")
        .await
        .unwrap();
    let mut b = Session::connect(&endpoint, rest.create_guest("Bo").await.unwrap(), "test")
        .await
        .unwrap();
    let lobby = a
        .create_lobby(Mode::Clash, true, Some(protocol::BotLevel::default()))
        .await
        .unwrap();
    b.join_lobby(&lobby.code).await.unwrap();
    a.wait_lobby_members(2, STEP).await.unwrap();
    let started = a.start_lobby().await.unwrap();
    let id = started.match_id;
    let a_seat = started.your_seat.unwrap();
    let b_started = b.wait_match_started(STEP).await.unwrap();
    let b_seat = b_started.your_seat.unwrap();
    assert_eq!((a.last_seq(id), b.last_seq(id)), (1, 1));

    // B (with the bots) plays on until A's SECOND turn starts, passing its own turns.
    let mut a_view = View::new(&started);
    let b_task = tokio::spawn(async move {
        let mut view = View::new(&b_started);
        let mut a_turns = 0;
        loop {
            let f = next(&mut b).await;
            view.absorb(&f);
            if let ServerMsg::TurnStarted(t) = &f.msg {
                if t.seat == b_seat {
                    b.pass(id, t.turn_number).await.unwrap();
                } else if t.seat == a_seat {
                    a_turns += 1;
                    if a_turns == 2 {
                        return (b, view);
                    }
                }
            }
        }
    });
    // A passes its first turn, then stops reading: everything after it waits unread
    // on A's old socket.
    let first = loop {
        let f = next(&mut a).await;
        a_view.absorb(&f);
        if let ServerMsg::TurnStarted(t) = f.msg {
            if t.seat == a_seat {
                break t;
            }
        }
    };
    a.pass(id, first.turn_number).await.unwrap();
    loop {
        let f = next(&mut a).await;
        a_view.absorb(&f);
        if let ServerMsg::TurnResolved(r) = f.msg {
            if r.seat == a_seat {
                assert_eq!((r.turn_number, r.kind), (first.turn_number, TurnKind::Pass));
                break;
            }
        }
    }
    let a_last = a.last_seq(id);
    let (mut b, b_view) = timeout(STEP, b_task).await.expect("B in time").unwrap();
    assert!(
        b_view.seq > a_last + 1,
        "A missed frames ({a_last} < {})",
        b_view.seq
    );

    // Reconnect: a new socket, hello with the same token and A's last seq.
    let old_conn = state.session(a.player_id()).unwrap().id();
    timeout(STEP, a.reconnect())
        .await
        .expect("reconnect in time")
        .unwrap();
    assert_eq!(a.welcome().active_matches, vec![id]);
    assert_ne!(
        state.session(a.player_id()).map(|c| c.id()),
        Some(old_conn),
        "the server serves A on the new socket"
    );

    // The room replays exactly the frames A missed, in order, up to B's seq (no
    // snapshot), with the position B sees; the turn in progress is A's second one.
    assert_eq!(a_view.seq, a_last);
    while a_view.seq < b_view.seq {
        let f = next(&mut a).await;
        assert!(
            !matches!(f.msg, ServerMsg::Snapshot(_)),
            "a short gap is replayed, not snapshotted"
        );
        a_view.absorb(&f);
    }
    assert_eq!(a.last_seq(id), b_view.seq);
    let turn = a_view.turn.clone().expect("a turn runs");
    assert_eq!(Some(&turn), b_view.turn.as_ref(), "the turn B sees running");
    assert_eq!(turn.seat, a_seat);
    assert_eq!(
        a_view.position(),
        b_view.position(),
        "A's position is the one B sees"
    );
    let seq = b_view.seq;

    // A plays that turn; the next match frame is its turn_resolved, seq + 1.
    let rid = a.pass(id, turn.turn_number).await.unwrap();
    let mut acked = false;
    let resolved = loop {
        let f = next(&mut a).await;
        match f.msg {
            ServerMsg::Ack(x) => acked |= x.id == rid,
            ServerMsg::TurnResolved(r) => {
                assert_eq!(f.seq, Some(seq + 1), "no frame twice, none skipped");
                break r;
            }
            other => panic!("unexpected after the replay: {other:?} (seq {:?})", f.seq),
        }
    };
    assert!(acked, "the pass was acknowledged");
    assert_eq!(
        (resolved.turn_number, resolved.seat, resolved.kind),
        (turn.turn_number, a_seat, TurnKind::Pass)
    );
    assert_eq!(a.gaps_detected(), 0);
    // B sees the same turn at the same seq.
    loop {
        let f = next(&mut b).await;
        if let ServerMsg::TurnResolved(r) = f.msg {
            assert_eq!((f.seq, r), (Some(seq + 1), resolved.clone()));
            break;
        }
    }
}

/// `play_match`'s reconnect path (what `ludo-load --reconnects` relies on) against the
/// real server: four bot clients play a queue match (6 s match clock on the manual
/// clock, so nothing ends it before the test moves time); once 4 turns are resolved
/// the server drops one client's socket; that client reconnects once, picks the
/// match up again (the missed frames or a snapshot; its tracker checks every later
/// position), 8 more turns are played, and the match clock then ends the match
/// (rule 9.1): the same `match_ended` for all four, one reconnect counted, no error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_match_reconnects_after_the_server_drops_its_socket() {
    use client::player::PlayOptions;
    use client::table::{connect_seat, run_table, Budget, Meet, TableConfig};
    use std::sync::Arc;
    let config = Config {
        turn_seconds: 5,
        match_seconds: 6,
        bot_think_ms: 0,
        bot_fill_seconds: 60,
        // The manual clock never closes a dice contribution window.
        contribution_window_ms: 0,
        ..Config::default()
    };
    let clock = Clock::manual(1_800_000_000_000);
    let (url, state, _dir) = start_with(config, clock.clone()).await;
    let rest = Rest::new(Endpoint::parse(&url).unwrap());
    let stats = Arc::new(client::Stats::default());
    let mut seats = Vec::new();
    for i in 0..4 {
        seats.push(connect_seat(&rest, &format!("r{i}"), &stats).await.unwrap());
    }
    let victim = seats[1].player_id();
    let killer = tokio::spawn({
        let state = state.clone();
        let stats = stats.clone();
        async move {
            // Polls `done` every 10 ms for at most STEP.
            async fn until(what: &str, mut done: impl FnMut() -> bool) {
                let t0 = tokio::time::Instant::now();
                while !done() {
                    assert!(t0.elapsed() < STEP, "{what}");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
            until("4 turns resolved", || stats.snapshot().turns >= 4).await;
            let conn = state.session(victim).expect("connected");
            conn.close(server::ws::CloseReason::NORMAL);
            let dropped = conn.id();
            until("the victim reconnected", || {
                state.session(victim).is_some_and(|c| c.id() != dropped)
            })
            .await;
            let turns = stats.snapshot().turns;
            until("8 turns after the reconnect", || {
                stats.snapshot().turns >= turns + 8
            })
            .await;
            // The match clock (6 s) runs out now (rule 9.1).
            clock.advance_ms(6_001);
            dropped
        }
    });
    let cfg = Arc::new(TableConfig {
        game: Mode::Journey,
        meet: Meet::Queue,
        bot: bot::BotKind::Random,
        play: PlayOptions {
            think: Duration::from_millis(30),
            stop_at: tokio::time::Instant::now() + Duration::from_secs(30),
            reconnects: 1,
            relocate: false,
        },
        start_delay: Duration::ZERO,
        bot_fill: None,
    });
    let outcomes = run_table(seats, cfg, Arc::new(Budget::new(1)), stats.clone(), 7).await;
    let dropped = timeout(STEP, killer).await.unwrap().unwrap();
    assert_ne!(
        state.session(victim).map(|c| c.id()),
        Some(dropped),
        "the victim came back on a new socket"
    );
    assert_eq!(outcomes.len(), 4, "each client finished its match");
    let end = outcomes[0].end.clone().expect("the match ended");
    assert!(outcomes
        .iter()
        .all(|o| o.match_id == outcomes[0].match_id && o.end.as_ref() == Some(&end)));
    let mut snap = stats.snapshot();
    // A bot whose submit races the end of the 6 s match clock gets match_over: that
    // is the clock (rule 9.1), not a reconnect fault.
    snap.errors.remove("match_over");
    assert!(
        snap.errors.is_empty(),
        "no desync or other error: {:?}",
        snap.errors
    );
    assert_eq!(
        snap.reconnects, 1,
        "one reconnect, counted apart from errors"
    );
    assert_eq!((snap.matches_started, snap.matches_completed), (1, 1));
}
