//! `play_match` re-sends a plan the server never acknowledged (proto/README.md §6.1:
//! "If you had submitted a plan that was never acknowledged, submit it again for the
//! turn the snapshot shows."), against a scripted WebSocket server on 127.0.0.1:0
//! that plays the server's side of the frames with the protocol crate's types and a
//! real `engine::Match` (so the client's tracker checks every die, event and
//! standing):
//!
//! * the socket drops after `submit_turn`, without `ack`; the reconnect gets a
//!   snapshot of the same turn: the same plan arrives again, for the same turn, once;
//! * the re-send is answered `stale_turn` (the first send had been accepted): counted
//!   as re-sent and stale, not as an error;
//! * the reconnect gets no frame at all (the server is up to date and the plan never
//!   reached it): the plan is re-sent once the rejoin's `resync` is acknowledged;
//! * an ordinary reconnect whose replay carries the plan's `turn_resolved`: nothing
//!   is re-sent, and the latency is counted from the first send;
//! * a `stale_turn` answering a first send is still an error.
//!
//! Every wait is bounded (`tokio::time::timeout`); nothing sleeps.

use client::player::{play_match, MatchOutcome, PlayOptions};
use client::{Endpoint, Guest, Session, Stats, StatsSnapshot};
use engine::{Match, Mode, Plan, Position, RuleSet, Seat, Seed};
use futures_util::{SinkExt, StreamExt};
use protocol::{
    Ack, ClientFrame, ClientMsg, Clocks, ErrorCode, MatchEnded, MatchStarted, SeatInfo, ServerMsg,
    Snapshot, TurnResolved, TurnStarted, Welcome,
};
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;
use uuid::Uuid;

const MATCH: Uuid = Uuid::from_u128(42);
const PLAYER: Uuid = Uuid::from_u128(1);
/// How long any one step may take.
const STEP: Duration = Duration::from_secs(10);

type Ws = WebSocketStream<TcpStream>;

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The next client frame (`None` once the client closed the socket).
async fn try_recv(ws: &mut Ws) -> Option<ClientFrame> {
    loop {
        match timeout(STEP, ws.next())
            .await
            .expect("a client frame in time")
        {
            Some(Ok(Message::Text(t))) => {
                return Some(protocol::decode_client(t.as_bytes()).expect("valid client frame"))
            }
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
            Some(Ok(_)) => continue,
        }
    }
}

async fn recv(ws: &mut Ws) -> ClientFrame {
    try_recv(ws)
        .await
        .expect("the client keeps its socket open")
}

async fn send(ws: &mut Ws, seq: Option<u64>, msg: &ServerMsg) {
    ws.send(Message::text(protocol::encode_server(seq, msg)))
        .await
        .unwrap();
}

/// Accepts one socket, answers its `hello` with `welcome` (the match running) and
/// returns the socket and the `hello`'s `last_seq`.
async fn accept_hello(l: &TcpListener) -> (Ws, BTreeMap<Uuid, u64>) {
    let (tcp, _) = timeout(STEP, l.accept())
        .await
        .expect("the client connects in time")
        .unwrap();
    let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
    let f = recv(&mut ws).await;
    let ClientMsg::Hello(h) = f.msg else {
        panic!("first frame must be hello, got {:?}", f.msg)
    };
    let w = Welcome {
        player_id: PLAYER,
        name: "p".into(),
        server_version: "0".into(),
        protocol_version: protocol::PROTOCOL_VERSION,
        active_matches: vec![MATCH],
    };
    send(&mut ws, None, &ServerMsg::Welcome(w)).await;
    (ws, h.last_seq)
}

/// Reads the rejoin's `resync` (from `last_seq`) and acknowledges it.
async fn ack_resync(ws: &mut Ws, last_seq: u64) {
    let f = recv(ws).await;
    let ClientMsg::Resync(r) = &f.msg else {
        panic!("expected the rejoin's resync, got {:?}", f.msg)
    };
    assert_eq!((r.match_id, r.last_seq), (MATCH, last_seq));
    ack(ws, &f).await;
}

async fn ack(ws: &mut Ws, f: &ClientFrame) {
    let id = f.id.clone().expect("requests carry an id");
    send(
        ws,
        None,
        &ServerMsg::Ack(Ack {
            id,
            applied_seq: None,
        }),
    )
    .await;
}

/// The turn a `submit_turn` or `pass` names and the plan it carries.
fn turn_plan(msg: &ClientMsg) -> (u32, Plan) {
    match msg {
        ClientMsg::SubmitTurn(s) => {
            assert_eq!(s.match_id, MATCH);
            (s.turn_number, s.plan.clone())
        }
        ClientMsg::Pass(p) => {
            assert_eq!(p.match_id, MATCH);
            (p.turn_number, Plan::pass())
        }
        m => panic!("expected submit_turn or pass, got {m:?}"),
    }
}

/// The server's side of the match: the engine's match, with the client on green
/// (rule 1.1: green moves first, so turn 1 is the client's).
struct Game {
    m: Match,
    started: MatchStarted,
}

impl Game {
    fn new() -> Game {
        let m = Match::new(RuleSet::default(), Mode::Clash, Seed([11; 32]), now_ms()).unwrap();
        let started = MatchStarted {
            match_id: MATCH,
            mode: Mode::Clash,
            rules: m.rules().clone(),
            seats: Seat::ALL
                .iter()
                .map(|&seat| SeatInfo {
                    seat,
                    player_id: (seat == Seat::Green).then_some(PLAYER),
                    name: seat.name().into(),
                    bot: seat != Seat::Green,
                    left: false,
                    bot_level: None,
                })
                .collect(),
            your_seat: Some(Seat::Green),
            dice_commitment: m.commitment(),
            match_deadline_ms: m.deadline_ms(),
            dice_scheme: m.dice_scheme(),
            contribution_deadline_ms: None,
        };
        Game { m, started }
    }

    fn turn_started(&self) -> TurnStarted {
        let cur = self.m.current_turn().expect("a turn runs");
        TurnStarted::from_turn_start(MATCH, cur, self.m.deadline_ms(), now_ms())
    }

    /// What a resumed match sends on `hello` and `resync` (§6.1): the whole match at
    /// `seq`, its turn in progress.
    fn snapshot(&self, seq: u64) -> ServerMsg {
        let turn = self.turn_started();
        ServerMsg::Snapshot(Box::new(Snapshot {
            match_id: MATCH,
            mode: Mode::Clash,
            rules: self.m.rules().clone(),
            seats: self.started.seats.clone(),
            your_seat: Some(Seat::Green),
            position: *self.m.position(),
            clocks: Clocks {
                now_ms: now_ms(),
                turn_deadline_ms: Some(turn.turn_deadline_ms),
                match_deadline_ms: self.m.deadline_ms(),
            },
            turn: Some(turn),
            dice_commitment: self.m.commitment(),
            turns_played: self.m.turns_played(),
            dice_scheme: self.m.dice_scheme(),
            contributions: None,
            contribution_deadline_ms: None,
            seq,
            ended: None,
        }))
    }

    /// Resolves the turn in progress with `plan` (green's) and returns its
    /// `turn_resolved`.
    fn resolve(&mut self, turn: u32, plan: &Plan) -> ServerMsg {
        let o = self.m.submit(Seat::Green, turn, plan, now_ms()).unwrap();
        ServerMsg::TurnResolved(TurnResolved::from_record(
            MATCH,
            &o.record,
            self.m.standings(),
        ))
    }

    /// Ends the match by its clock (rule 9.1).
    fn end(&mut self) -> ServerMsg {
        let end = self.m.end_by_clock();
        ServerMsg::MatchEnded(MatchEnded::from_end(MATCH, &end, self.m.seed()))
    }
}

/// A greedy bot that counts its choices (a re-send must not be a new choice).
struct Counting {
    inner: Box<dyn bot::Strategy + Send>,
    choices: usize,
}

impl bot::Strategy for Counting {
    fn choose(&mut self, pos: &Position, rules: &RuleSet) -> Plan {
        self.choices += 1;
        self.inner.choose(pos, rules)
    }
}

/// The client side: connects to `addr`, takes the `match_started` the script sends
/// first, and plays the match with [`play_match`] (no think time, one reconnect
/// allowed). Returns its outcome, its counters and how many plans its strategy
/// chose.
async fn play(addr: std::net::SocketAddr) -> (MatchOutcome, StatsSnapshot, usize) {
    let ep = Endpoint::parse(&format!("http://{addr}")).unwrap();
    let guest = Guest {
        player_id: PLAYER,
        token: "good".into(),
    };
    let mut session = Session::connect(&ep, guest, "test").await.unwrap();
    let started = session.wait_match_started(STEP).await.unwrap();
    let mut strategy = Counting {
        inner: bot::new_bot(bot::BotKind::Greedy, 3),
        choices: 0,
    };
    let opts = PlayOptions {
        think: Duration::ZERO,
        stop_at: tokio::time::Instant::now() + 3 * STEP,
        reconnects: 1,
        relocate: false,
    };
    let stats = Stats::default();
    let outcome = timeout(
        3 * STEP,
        play_match(&mut session, &started, &mut strategy, &opts, &stats),
    )
    .await
    .expect("play_match ends in time")
    .expect("play_match");
    session.close().await;
    (outcome, stats.snapshot(), strategy.choices)
}

/// Runs the scripted server `script` on a fresh listener against [`play`]; the
/// script's own checks must pass too.
async fn run<F, Fut>(script: F) -> (MatchOutcome, StatsSnapshot, usize)
where
    F: FnOnce(TcpListener, Game) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    let server = tokio::spawn(script(l, Game::new()));
    let result = play(addr).await;
    timeout(STEP, server)
        .await
        .expect("the script ends in time")
        .expect("the script's checks pass");
    result
}

/// The script's opening: `welcome`, `match_started` (seq 1), the client's
/// `turn_started` (seq 2, turn 1); returns the socket and the client's first
/// `submit_turn` for turn 1 (a plan that moves), not answered yet.
async fn opening(l: &TcpListener, game: &Game) -> (Ws, ClientFrame) {
    let (mut ws, last_seq) = accept_hello(l).await;
    assert!(last_seq.is_empty(), "a first hello has no last_seq");
    send(
        &mut ws,
        Some(1),
        &ServerMsg::MatchStarted(game.started.clone()),
    )
    .await;
    send(
        &mut ws,
        Some(2),
        &ServerMsg::TurnStarted(game.turn_started()),
    )
    .await;
    let first = recv(&mut ws).await;
    assert_eq!(turn_plan(&first.msg).0, 1, "the plan is for turn 1");
    assert!(
        matches!(&first.msg, ClientMsg::SubmitTurn(s) if !s.plan.is_pass()),
        "a plan that moves, so a re-send can be told from a pass: {:?}",
        first.msg
    );
    (ws, first)
}

/// Every client frame until the client closes the socket.
async fn rest(ws: &mut Ws) -> Vec<ClientMsg> {
    let mut out = Vec::new();
    while let Some(f) = try_recv(ws).await {
        out.push(f.msg);
    }
    out
}

fn is_plan(msg: &ClientMsg) -> bool {
    matches!(msg, ClientMsg::SubmitTurn(_) | ClientMsg::Pass(_))
}

/// Answers the request `f` with an `error` of `code`.
async fn refuse(ws: &mut Ws, f: &ClientFrame, code: ErrorCode, message: &str) {
    send(ws, None, &ServerMsg::error(code, message, f.id.clone())).await;
}

/// Ends the match (`match_ended` at `seq`) and checks that the client sent no plan
/// after it (`why` names what that proves).
async fn end_match(ws: &mut Ws, game: &mut Game, seq: u64, why: &str) {
    let end = game.end();
    send(ws, Some(seq), &end).await;
    let later = rest(ws).await;
    assert!(!later.iter().any(is_plan), "{why}: {later:?}");
}

/// The server crashed after reading the plan and before storing it: the socket
/// drops without `ack`; the resumed match answers the reconnect's `hello` (and its
/// `resync`) with a snapshot of the same turn. The client sends the same plan
/// again for that turn — once, though two snapshots show it — and the match goes on
/// from its `ack` and `turn_resolved`; latency counts from the first send.
#[tokio::test]
async fn unacknowledged_plan_is_resent_for_the_turn_the_snapshot_shows() {
    let (outcome, stats, choices) = run(|l, mut game| async move {
        let (ws, first) = opening(&l, &game).await;
        drop(ws); // the crash: no ack, no close frame
        let (mut ws, last_seq) = accept_hello(&l).await;
        assert_eq!(last_seq, BTreeMap::from([(MATCH, 2)]));
        send(&mut ws, Some(2), &game.snapshot(2)).await;
        ack_resync(&mut ws, 2).await;
        // "a resync gets the same snapshot until the match's next message" (§6.1)
        send(&mut ws, Some(2), &game.snapshot(2)).await;
        let again = recv(&mut ws).await;
        assert_eq!(again.msg, first.msg, "the same plan, for the same turn");
        ack(&mut ws, &again).await;
        let (turn, plan) = turn_plan(&again.msg);
        let resolved = game.resolve(turn, &plan);
        send(&mut ws, Some(3), &resolved).await;
        end_match(
            &mut ws,
            &mut game,
            4,
            "sent once again, not once per snapshot",
        )
        .await;
    })
    .await;
    assert!(outcome.end.is_some(), "the match ended");
    assert_eq!(outcome.turns, 1);
    assert_eq!(
        (outcome.submits, choices),
        (1, 1),
        "re-sent, not chosen again"
    );
    assert_eq!((stats.resent, stats.resent_stale), (1, 0));
    assert_eq!(stats.errors, Default::default());
    assert_eq!(stats.reconnects, 1);
    assert_eq!(
        stats.latency.map(|l| l.count),
        Some(1),
        "the plan's latency, from its first send"
    );
}

/// The first send had been accepted after all (its `ack` lost with the socket): the
/// re-send is answered `stale_turn`. That is counted as a re-send answered stale,
/// not as an error; the turn's `turn_resolved` follows as usual.
#[tokio::test]
async fn resent_plan_answered_stale_turn_is_not_an_error() {
    let (outcome, stats, choices) = run(|l, mut game| async move {
        let (ws, first) = opening(&l, &game).await;
        drop(ws);
        let (mut ws, _) = accept_hello(&l).await;
        send(&mut ws, Some(2), &game.snapshot(2)).await;
        ack_resync(&mut ws, 2).await;
        let again = recv(&mut ws).await;
        assert_eq!(again.msg, first.msg, "the same plan, for the same turn");
        refuse(
            &mut ws,
            &again,
            ErrorCode::StaleTurn,
            "not the current turn",
        )
        .await;
        // The first send's turn, as the server resolved it.
        let (turn, plan) = turn_plan(&first.msg);
        let resolved = game.resolve(turn, &plan);
        send(&mut ws, Some(3), &resolved).await;
        end_match(&mut ws, &mut game, 4, "no plan after the match ended").await;
    })
    .await;
    assert!(outcome.end.is_some(), "the match ended");
    assert_eq!((outcome.submits, choices), (1, 1));
    assert_eq!((stats.resent, stats.resent_stale), (1, 1));
    assert_eq!(
        stats.errors,
        Default::default(),
        "a re-send's stale_turn is expected"
    );
}

/// The plan never reached the server, which kept running: the reconnect's `hello`
/// and `resync` bring nothing (the client is up to date), so no snapshot shows the
/// turn; once the `resync` is acknowledged the tracked match still shows the turn
/// as the client's, and the plan is sent again.
#[tokio::test]
async fn unacknowledged_plan_is_resent_when_the_rejoin_brings_nothing() {
    let (outcome, stats, choices) = run(|l, mut game| async move {
        let (ws, first) = opening(&l, &game).await;
        drop(ws);
        let (mut ws, last_seq) = accept_hello(&l).await;
        assert_eq!(last_seq, BTreeMap::from([(MATCH, 2)]));
        ack_resync(&mut ws, 2).await;
        let again = recv(&mut ws).await;
        assert_eq!(again.msg, first.msg, "the same plan, for the same turn");
        ack(&mut ws, &again).await;
        let (turn, plan) = turn_plan(&again.msg);
        let resolved = game.resolve(turn, &plan);
        send(&mut ws, Some(3), &resolved).await;
        end_match(&mut ws, &mut game, 4, "no plan after the match ended").await;
    })
    .await;
    assert!(outcome.end.is_some(), "the match ended");
    assert_eq!((outcome.submits, choices), (1, 1));
    assert_eq!((stats.resent, stats.resent_stale), (1, 0));
    assert_eq!(stats.errors, Default::default());
    assert_eq!(stats.latency.map(|l| l.count), Some(1));
}

/// An ordinary reconnect: the server had accepted the plan (its `ack` was lost with
/// the socket) and replays its `turn_resolved` and the next `turn_started` after
/// `welcome`. Nothing is sent again, and the plan's latency is counted from its
/// first send.
#[tokio::test]
async fn accepted_plan_replayed_after_a_reconnect_is_not_resent() {
    let (outcome, stats, choices) = run(|l, mut game| async move {
        let (ws, first) = opening(&l, &game).await;
        let (turn, plan) = turn_plan(&first.msg);
        let resolved = game.resolve(turn, &plan);
        drop(ws);
        let (mut ws, last_seq) = accept_hello(&l).await;
        assert_eq!(last_seq, BTreeMap::from([(MATCH, 2)]));
        let next = ServerMsg::TurnStarted(game.turn_started());
        send(&mut ws, Some(3), &resolved).await;
        send(&mut ws, Some(4), &next).await;
        ack_resync(&mut ws, 2).await;
        // The resync's own replay: duplicates, dropped by the client.
        send(&mut ws, Some(3), &resolved).await;
        send(&mut ws, Some(4), &next).await;
        end_match(&mut ws, &mut game, 5, "nothing re-sent").await;
    })
    .await;
    assert!(outcome.end.is_some(), "the match ended");
    assert_eq!(outcome.turns, 1);
    assert_eq!((outcome.submits, choices), (1, 1));
    assert_eq!((stats.resent, stats.resent_stale), (0, 0));
    assert_eq!(stats.errors, Default::default());
    assert_eq!(
        stats.latency.map(|l| l.count),
        Some(1),
        "the pending plan was kept across the reconnect"
    );
}

/// A `stale_turn` answering a first send (no reconnect, nothing re-sent) is still
/// counted as an error.
#[tokio::test]
async fn stale_turn_for_a_first_send_is_still_an_error() {
    let (outcome, stats, _) = run(|l, mut game| async move {
        let (mut ws, first) = opening(&l, &game).await;
        refuse(
            &mut ws,
            &first,
            ErrorCode::StaleTurn,
            "not the current turn",
        )
        .await;
        end_match(&mut ws, &mut game, 3, "no plan after the match ended").await;
    })
    .await;
    assert!(outcome.end.is_some(), "the match ended");
    assert_eq!((stats.resent, stats.resent_stale), (0, 0));
    assert_eq!(
        stats.errors,
        BTreeMap::from([("stale_turn".to_string(), 1)])
    );
}

/// A submit the server dropped for its rate limit, answered `rate_limited` with the
/// submit's id (`in_reply_to`): the client sends the same plan again after
/// `RATE_LIMIT_BACKOFF` (not a new choice), and the `rate_limited` is counted as an
/// error.
#[tokio::test]
async fn rate_limited_submit_is_sent_again_unchanged() {
    let (outcome, stats, choices) = run(|l, mut game| async move {
        let (mut ws, first) = opening(&l, &game).await;
        refuse(
            &mut ws,
            &first,
            ErrorCode::RateLimited,
            "too many messages; slow down",
        )
        .await;
        let again = recv(&mut ws).await;
        assert_eq!(again.msg, first.msg, "the same plan, for the same turn");
        ack(&mut ws, &again).await;
        let (turn, plan) = turn_plan(&again.msg);
        let resolved = game.resolve(turn, &plan);
        send(&mut ws, Some(3), &resolved).await;
        end_match(&mut ws, &mut game, 4, "no plan after the match ended").await;
    })
    .await;
    assert!(outcome.end.is_some(), "the match ended");
    assert_eq!(choices, 1, "the plan was chosen once");
    assert_eq!(
        stats.latency.map(|l| l.count),
        Some(1),
        "one latency sample, from the first send"
    );
    assert_eq!(
        stats.errors,
        BTreeMap::from([("rate_limited".to_string(), 1)])
    );
}
