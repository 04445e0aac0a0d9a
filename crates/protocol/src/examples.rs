//! Realistic example frames for `proto/examples/` and the tests, taken from one real
//! quick-play match that the engine plays from start to clock-out: fixed ids, a fixed
//! seed, a fixed start time (2026-01-01T00:00:00Z) and seeded random plans, so every
//! run gives the same frames.
//!
//! * [`session`]: the match as the player "Ada" sees it on her socket, from `hello`
//!   to `match_ended`, including a disconnect, a reconnect whose `hello` carries the
//!   last `seq` (the missed messages are replayed), and a `resync` answered by a
//!   `snapshot` (written to `proto/examples/session.txt`).
//! * [`client_examples`] / [`server_examples`]: one frame per message type, most of
//!   them lifted from that session.

use crate::client::{
    Chat, ClientFrame, ClientMsg, CreateLobby, Hello, JoinLobby, JoinQueue, MatchRef, Resync,
    SubmitTurn, TurnRef,
};
use crate::codec::encode_server;
use crate::convert::replay_url;
use crate::error::ErrorCode;
use crate::server::{
    Ack, ChatLine, Clocks, LobbyMember, LobbyState, MatchEnded, MatchStarted, PlanPreview,
    QueueStatus, SeatInfo, ServerFrame, ServerMsg, Snapshot, TurnResolved, TurnStarted, Welcome,
};
use crate::{BotLevel, PROTOCOL_VERSION};
use engine::legal::random_plan;
use engine::{
    Direction, Event, Expiry, Match, Mode, PieceId, Plan, RuleSet, Seat, Seed, TurnOutcome,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use uuid::Uuid;

/// The example match.
pub const MATCH_ID: Uuid = Uuid::from_u128(0x5f0c1d2e_8a4b_4c6d_9e7f_1a2b3c4d5e6f);
/// The player whose socket the session shows (seat green).
pub const ADA: Uuid = Uuid::from_u128(0x1c9e4f2a_7b3d_4e5f_8a6b_9c0d1e2f3a4b);
/// The other human (seat red).
pub const BO: Uuid = Uuid::from_u128(0x8d2f6a1b_3c4e_4f5a_9b7c_0d1e2f3a4b5c);
/// When the example match starts: 2026-01-01T00:00:00Z, Unix milliseconds.
pub const START_MS: u64 = 1_767_225_600_000;
/// The example match's seed (revealed in its `match_ended`).
pub const SEED: Seed = Seed(*b"example-seed-for-protocol-docs!!");
/// Ada's guest token (64 hex digits, from `POST /api/v1/guests`).
pub const ADA_TOKEN: &str = "6f2c9b1e4d7a4c3b9e8f0a1b2c3d4e5f0718293a4b5c6d7e8f90a1b2c3d4e5f6";
/// The example lobby's join code.
pub const LOBBY_CODE: &str = "K7MQ2X";
/// Server version named in the example `welcome`.
/// Ada's dice contribution in the examples (16 bytes as hex).
pub const ADA_ENTROPY: &str = "3f9a0c7e51d2b8846e0f1a2b3c4d5e6f";
/// Bo's dice contribution in the examples.
pub const BO_ENTROPY: &str = "c41d7e2a9b3f5061728394a5b6c7d8e9";
/// The contribution window of the examples (the server's default, ms).
const CONTRIBUTION_WINDOW_MS: u64 = 3_000;
const SERVER_VERSION: &str = "0.1.0";
/// Seed of the random plans and thinking times.
const PLAY_SEED: u64 = 20_260_101;

/// One line of the example session, as seen from Ada's client.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionLine {
    /// A comment on what happens.
    Note(String),
    /// A frame Ada's client sends.
    Client(ClientFrame),
    /// A frame the server sends to Ada (boxed: it is much larger than the others).
    Server(Box<ServerFrame>),
}

impl SessionLine {
    /// The line in `session.txt` form: `# note`, `> {client frame}` or
    /// `< {server frame}`, each frame as the compact JSON text sent on the socket.
    pub fn to_text(&self) -> String {
        match self {
            SessionLine::Note(n) => format!("# {n}"),
            SessionLine::Client(f) => format!(
                "> {}",
                serde_json::to_string(f).expect("client frames always serialize")
            ),
            SessionLine::Server(f) => format!("< {}", encode_server(f.seq, &f.msg)),
        }
    }
}

/// The example match as Ada's socket sees it, from `hello` to `match_ended`.
pub fn session() -> Vec<SessionLine> {
    play().lines
}

/// One example frame per client message type, in [`ClientMsg::TYPES`] order.
pub fn client_examples() -> Vec<(&'static str, ClientFrame)> {
    let played = play();
    pick(&ClientMsg::TYPES, &played.client, |f| f.msg.type_name())
}

/// One example frame per server message type, in [`ServerMsg::TYPES`] order.
pub fn server_examples() -> Vec<(&'static str, ServerFrame)> {
    let played = play();
    pick(&ServerMsg::TYPES, &played.server, |f| f.msg.type_name())
}

fn pick<F: Clone>(
    types: &[&'static str],
    pool: &[F],
    type_name: impl Fn(&F) -> &'static str,
) -> Vec<(&'static str, F)> {
    types
        .iter()
        .map(|&t| {
            let frame = pool
                .iter()
                .find(|f| type_name(f) == t)
                .unwrap_or_else(|| panic!("no example for message type {t}"));
            (t, frame.clone())
        })
        .collect()
}

fn client(id: Option<&str>, msg: ClientMsg) -> ClientFrame {
    ClientFrame {
        id: id.map(str::to_string),
        msg,
    }
}

fn unsequenced(msg: ServerMsg) -> ServerFrame {
    ServerFrame { seq: None, msg }
}

/// The played example: the session and the frames chosen as examples.
struct Played {
    lines: Vec<SessionLine>,
    client: Vec<ClientFrame>,
    server: Vec<ServerFrame>,
}

impl Played {
    fn note(&mut self, n: impl Into<String>) {
        self.lines.push(SessionLine::Note(n.into()));
    }
    fn send(&mut self, f: ClientFrame, example: bool) {
        if example {
            self.client.push(f.clone());
        }
        self.lines.push(SessionLine::Client(f));
    }
    fn recv(&mut self, f: ServerFrame, example: bool) {
        if example {
            self.server.push(f.clone());
        }
        self.lines.push(SessionLine::Server(Box::new(f)));
    }
    fn recv_all(&mut self, frames: Vec<ServerFrame>) {
        for f in frames {
            self.recv(f, false);
        }
    }
}

/// The engine match behind the examples, on Unix milliseconds, and the match's
/// message sequence numbers.
struct Sim {
    m: Match,
    now: u64,
    seq: u64,
    rng: ChaCha20Rng,
    /// The first `turn_resolved` with a capture.
    featured: Option<ServerFrame>,
}

impl Sim {
    fn new() -> Sim {
        Sim {
            m: Match::new_contributed(RuleSet::default(), Mode::Clash, SEED, START_MS)
                .expect("the default rule set is valid"),
            now: START_MS,
            seq: 0,
            rng: ChaCha20Rng::seed_from_u64(PLAY_SEED),
            featured: None,
        }
    }

    fn seats() -> Vec<SeatInfo> {
        let seat = |seat, player_id, name: &str| SeatInfo {
            left: false,
            seat,
            player_id,
            name: name.to_string(),
            bot: player_id.is_none(),
            bot_level: player_id.is_none().then_some(BotLevel::Expert),
        };
        vec![
            seat(Seat::Green, Some(ADA), "Ada"),
            seat(Seat::Red, Some(BO), "Bo"),
            seat(Seat::Blue, None, "Bot Ash"),
            seat(Seat::Yellow, None, "Bot Birch"),
        ]
    }

    /// A match message with the next sequence number.
    fn send(&mut self, msg: ServerMsg) -> ServerFrame {
        self.seq += 1;
        ServerFrame {
            seq: Some(self.seq),
            msg,
        }
    }

    fn match_started(&mut self) -> ServerFrame {
        let msg = ServerMsg::MatchStarted(MatchStarted {
            match_id: MATCH_ID,
            mode: self.m.position().mode(),
            rules: self.m.rules().clone(),
            seats: Sim::seats(),
            your_seat: Some(Seat::Green),
            dice_commitment: self.m.commitment(),
            match_deadline_ms: self.m.deadline_ms(),
            dice_scheme: self.m.dice_scheme(),
            contribution_deadline_ms: Some(self.now + CONTRIBUTION_WINDOW_MS),
        });
        self.send(msg)
    }

    /// Ada and Bo contributed, the bots get the default: the dice are sealed and
    /// the first turn is rolled.
    fn seal(&mut self) -> ServerFrame {
        let player = |seat, hex: &str| engine::Contribution {
            seat,
            entropy: engine::Entropy::from_player_hex(hex).expect("example entropy is valid"),
            defaulted: false,
        };
        let contributions = vec![
            player(Seat::Green, ADA_ENTROPY),
            player(Seat::Red, BO_ENTROPY),
            engine::Contribution::default_for(Seat::Blue),
            engine::Contribution::default_for(Seat::Yellow),
        ];
        self.m
            .seal(contributions.clone(), self.now)
            .expect("the match waits for its contributions");
        self.send(ServerMsg::DiceSealed(crate::DiceSealed {
            match_id: MATCH_ID,
            contributions,
        }))
    }

    fn current(&self) -> Option<TurnStarted> {
        self.m
            .current_turn()
            .map(|t| TurnStarted::from_turn_start(MATCH_ID, t, self.m.deadline_ms(), self.now))
    }

    fn turn_started(&mut self) -> ServerFrame {
        let t = self.current().expect("a turn is running");
        self.send(ServerMsg::TurnStarted(t))
    }

    fn to_move(&self) -> Option<Seat> {
        self.m.current_turn().map(|t| t.seat)
    }

    /// Milliseconds `seat` takes to submit: the humans think, the bots are quick.
    fn think_ms(&mut self, seat: Seat) -> u64 {
        let r = self.rng.next_u32() as u64;
        match seat {
            Seat::Green => 4_000 + r % 9_000,
            Seat::Red => 3_000 + r % 12_000,
            Seat::Blue | Seat::Yellow => 700 + r % 900,
        }
    }

    fn outcome(&mut self, out: TurnOutcome) -> Vec<ServerFrame> {
        let resolved =
            TurnResolved::from_record(MATCH_ID, &out.record, engine::standings(&out.position));
        let captured = resolved
            .events
            .iter()
            .any(|e| matches!(e, Event::Capture { .. }));
        let mut frames = vec![self.send(ServerMsg::TurnResolved(resolved))];
        if captured && self.featured.is_none() {
            self.featured = frames.first().cloned();
        }
        if let Some(next) = &out.next {
            let t = TurnStarted::from_turn_start(MATCH_ID, next, self.m.deadline_ms(), self.now);
            frames.push(self.send(ServerMsg::TurnStarted(t)));
        }
        if let Some(end) = &out.end {
            let e = MatchEnded::from_end(MATCH_ID, end, self.m.seed());
            frames.push(self.send(ServerMsg::MatchEnded(e)));
        }
        frames
    }

    /// Plays the turn in progress: the seat to move submits `plan` (a seeded random
    /// legal plan when `None`) after `think_ms` (drawn when `None`), unless the turn
    /// timer (rule 4.6) or the match clock (rule 9.1) runs out first.
    fn play_turn(&mut self, plan: Option<Plan>, think_ms: Option<u64>) -> Vec<ServerFrame> {
        let cur = self.m.current_turn().expect("a turn is running").clone();
        let think = think_ms.unwrap_or_else(|| self.think_ms(cur.seat));
        let limit = self.m.next_deadline().expect("the match is running");
        if self.now.saturating_add(think) >= limit {
            self.now = limit;
            return match self.m.expire(limit) {
                Some(Expiry::TurnTimedOut(out)) => self.outcome(out),
                Some(Expiry::MatchEnded(end)) => {
                    let e = MatchEnded::from_end(MATCH_ID, &end, self.m.seed());
                    vec![self.send(ServerMsg::MatchEnded(e))]
                }
                None => unreachable!("a deadline was reached"),
            };
        }
        self.now += think;
        let plan =
            plan.unwrap_or_else(|| random_plan(self.m.position(), self.m.rules(), &mut self.rng));
        let out = self
            .m
            .submit(cur.seat, cur.turn_number, &plan, self.now)
            .expect("the example plans are legal");
        self.outcome(out)
    }

    /// Lets `ms` pass without anybody acting (stopping short of the next deadline).
    fn wait(&mut self, ms: u64) {
        let limit = self.m.next_deadline().unwrap_or(u64::MAX);
        self.now = (self.now + ms).min(limit - 1);
    }

    /// A snapshot for Ada, at the current time and sequence number.
    fn snapshot(&self) -> ServerFrame {
        let snap = Snapshot {
            match_id: MATCH_ID,
            mode: self.m.position().mode(),
            rules: self.m.rules().clone(),
            seats: Sim::seats(),
            your_seat: Some(Seat::Green),
            position: *self.m.position(),
            turn: self.current(),
            clocks: Clocks {
                now_ms: self.now,
                turn_deadline_ms: self.m.current_turn().map(|t| t.deadline_ms),
                match_deadline_ms: self.m.deadline_ms(),
            },
            dice_commitment: self.m.commitment(),
            turns_played: self.m.log().len() as u32,
            dice_scheme: self.m.dice_scheme(),
            contributions: self.m.contributions().map(<[_]>::to_vec),
            contribution_deadline_ms: None,
            seq: self.seq,
            ended: self
                .m
                .end()
                .map(|e| MatchEnded::from_end(MATCH_ID, e, self.m.seed())),
        };
        ServerFrame {
            seq: Some(self.seq),
            msg: ServerMsg::Snapshot(Box::new(snap)),
        }
    }
}

fn submit(id: &str, turn_number: u32, plan: Plan) -> ClientFrame {
    client(
        Some(id),
        ClientMsg::SubmitTurn(SubmitTurn {
            match_id: MATCH_ID,
            turn_number,
            plan,
        }),
    )
}

fn welcome(active_matches: Vec<Uuid>) -> ServerFrame {
    unsequenced(ServerMsg::Welcome(Welcome {
        player_id: ADA,
        name: "Ada".into(),
        server_version: SERVER_VERSION.into(),
        protocol_version: PROTOCOL_VERSION,
        active_matches,
    }))
}

fn hello() -> ClientFrame {
    client(
        None,
        ClientMsg::Hello(Hello {
            token: ADA_TOKEN.into(),
            protocol_version: PROTOCOL_VERSION,
            client: "web/0.1.0".into(),
            last_seq: Default::default(),
        }),
    )
}

/// Plays the example match and records Ada's session.
fn play() -> Played {
    let mut p = Played {
        lines: Vec::new(),
        client: Vec::new(),
        server: Vec::new(),
    };
    let mut sim = Sim::new();

    // --- connect and queue ---
    p.note("Ada got {\"player_id\",\"token\"} from POST /api/v1/guests {\"name\":\"Ada\"} and opened a WebSocket to /ws.");
    p.send(hello(), true);
    p.recv(welcome(Vec::new()), false);
    p.send(
        client(
            Some("c1"),
            ClientMsg::JoinQueue(JoinQueue {
                mode: Mode::Clash,
                bot_level: BotLevel::Expert,
            }),
        ),
        true,
    );
    p.recv(
        unsequenced(ServerMsg::Ack(Ack {
            id: "c1".into(),
            applied_seq: None,
        })),
        false,
    );
    let queue = |waiting, bots_in_seconds| {
        unsequenced(ServerMsg::QueueStatus(QueueStatus {
            mode: Mode::Clash,
            waiting,
            bots_in_seconds,
        }))
    };
    p.recv(queue(1, 20), false);
    p.note("Bo joins the clash queue 8 s later.");
    p.recv(queue(2, 12), true);
    p.note("20 s after Ada joined, bots take the two empty seats and the match starts (seq 1). Ada got green, which moves first (rule 1.1).");
    let started = sim.match_started();
    p.recv(started, true);
    p.note("The dice are of scheme contributed (§10): Ada's client adds 16 bytes from its CSPRNG before contribution_deadline_ms (3 s).");
    p.send(
        client(
            Some("e1"),
            ClientMsg::ContributeEntropy(crate::ContributeEntropy {
                match_id: MATCH_ID,
                entropy: ADA_ENTROPY.into(),
            }),
        ),
        true,
    );
    p.recv(
        unsequenced(ServerMsg::Ack(Ack {
            id: "e1".into(),
            applied_seq: None,
        })),
        false,
    );
    sim.now += 400;
    p.note("Bo contributes too; every human seat has, so the dice are sealed at once (the bots' seats get the default, no bytes) and the first turn is rolled from the seed and these contributions.");
    let sealed = sim.seal();
    p.recv(sealed, true);
    let first_turn = sim.turn_started();
    p.recv(first_turn, true);

    // --- Ada's first turn: a refused plan, then a good one ---
    let t1 = sim.m.current_turn().expect("turn 1 is running").clone();
    let missing = (1..=6u8)
        .find(|v| !t1.roll_store.contains(v))
        .expect("three dice leave a value out");
    let bad = Plan::new(Direction::Forward)
        .exit(PieceId::G1)
        .mv(PieceId::G1, &[missing]);
    p.note(format!("Ada's plan uses a {missing} she did not roll: it is refused whole and nothing changes (rule 4.5)."));
    p.send(submit("c2", t1.turn_number, bad.clone()), false);
    let err = sim
        .m
        .clone()
        .submit(Seat::Green, t1.turn_number, &bad, sim.now + 5_000)
        .expect_err("a roll that is not in the store is refused");
    p.recv(
        unsequenced(ServerMsg::error(
            ErrorCode::from(&err),
            err.to_string(),
            Some("c2".into()),
        )),
        true,
    );
    let good = Plan::new(Direction::Forward)
        .exit(PieceId::G1)
        .mv(PieceId::G1, &t1.roll_store);
    p.note("She previews exiting G1 (one exit credit) and moving it by all three dice: the server resolves it on a copy of the position and answers what it would do, and which single-piece moves she could still add (G2..G4 exits, the royal); nothing changes.");
    p.send(
        client(
            Some("c3p"),
            ClientMsg::PreviewPlan(SubmitTurn {
                match_id: MATCH_ID,
                turn_number: t1.turn_number,
                plan: good.clone(),
            }),
        ),
        true,
    );
    p.recv(
        unsequenced(ServerMsg::Ack(Ack {
            id: "c3p".into(),
            applied_seq: None,
        })),
        false,
    );
    let preview = sim
        .m
        .preview(Seat::Green, t1.turn_number, &good, sim.now + 8_000)
        .expect("the good plan is legal");
    p.recv(
        unsequenced(ServerMsg::PlanPreview(PlanPreview {
            in_reply_to: Some("c3p".into()),
            match_id: MATCH_ID,
            turn_number: t1.turn_number,
            seat: Seat::Green,
            plan: good.clone(),
            events: preview.events,
            standings: engine::standings(&preview.position),
            moves: preview.moves,
        })),
        true,
    );
    p.note("She submits it.");
    p.send(submit("c3", t1.turn_number, good.clone()), true);
    p.recv(
        unsequenced(ServerMsg::Ack(Ack {
            id: "c3".into(),
            applied_seq: None,
        })),
        true,
    );
    let frames = sim.play_turn(Some(good), Some(9_000));
    p.recv_all(frames);
    for _ in 0..3 {
        let frames = sim.play_turn(None, None);
        p.recv_all(frames);
    }

    // --- disconnect: the match goes on without her ---
    let last_seq = sim.seq;
    let dropped_at = sim.now;
    p.note(format!("Ada's connection drops right after seq {last_seq} (her phone changed networks). The match goes on: her turn is passed when its 30 s run out (rule 4.6, kind \"timeout\")."));
    let mut missed = Vec::new();
    while sim.now < dropped_at + 60_000 || sim.to_move() == Some(Seat::Green) {
        let think = (sim.to_move() == Some(Seat::Green)).then_some(u64::MAX);
        missed.extend(sim.play_turn(None, think));
    }
    sim.wait(1_200);
    let away_s = (sim.now - dropped_at) / 1000;
    p.note(format!("{away_s} s later Ada reconnects with the same token and the last seq she processed ({last_seq}); welcome lists the running match she is seated in."));
    let mut back = hello();
    if let ClientMsg::Hello(h) = &mut back.msg {
        h.last_seq.insert(MATCH_ID, last_seq);
    }
    p.send(back, false);
    p.recv(welcome(vec![MATCH_ID]), true);
    p.note(format!("The server still keeps the messages she missed (this server keeps the last 16: `--resync-frames 16`; the default is 8), so it replays them right after welcome, in order with their original seq ({} … {}); a gap older than that would get a snapshot instead.", last_seq + 1, sim.seq));
    p.recv_all(missed);
    p.note(format!("A client that needs the whole position again (say its view was reset) sends resync with last_seq 0 and gets a snapshot, whose seq ({}) is that of the last message it includes.", sim.seq));
    p.send(
        client(
            None,
            ClientMsg::Resync(Resync {
                match_id: MATCH_ID,
                last_seq: 0,
            }),
        ),
        true,
    );
    p.recv(sim.snapshot(), true);

    // --- live again ---
    p.note("Live messages continue from the next seq.");
    while sim.to_move() != Some(Seat::Green) {
        let frames = sim.play_turn(None, None);
        p.recv_all(frames);
    }
    let turn = sim.m.current_turn().expect("Ada's turn is running").clone();
    let plan = random_plan(sim.m.position(), sim.m.rules(), &mut sim.rng);
    p.send(submit("c4", turn.turn_number, plan.clone()), false);
    p.recv(
        unsequenced(ServerMsg::Ack(Ack {
            id: "c4".into(),
            applied_seq: None,
        })),
        false,
    );
    let frames = sim.play_turn(Some(plan), None);
    p.recv_all(frames);
    p.send(client(None, ClientMsg::Ping), true);
    p.recv(unsequenced(ServerMsg::Pong), true);
    let text = "back again, sorry for the timeout";
    p.send(
        client(
            None,
            ClientMsg::Chat(Chat {
                match_id: MATCH_ID,
                text: text.into(),
            }),
        ),
        true,
    );
    let chat = sim.send(ServerMsg::Chat(ChatLine {
        match_id: MATCH_ID,
        seat: Some(Seat::Green),
        name: "Ada".into(),
        text: text.into(),
    }));
    p.recv(chat, true);

    // --- to the end of the match clock ---
    let turns_before = sim.m.log().len();
    let mut last_turn: Vec<ServerFrame> = Vec::new();
    let end_frames = loop {
        let frames = sim.play_turn(None, None);
        if sim.m.is_over() {
            break frames;
        }
        last_turn = frames;
    };
    let shown = last_turn
        .iter()
        .chain(&end_frames)
        .filter(|f| matches!(f.msg, ServerMsg::TurnResolved(_)))
        .count();
    let skipped = sim.m.log().len() - turns_before - shown;
    p.note(format!("… {skipped} more turns (each: turn_resolved, then turn_started; Ada submits on her turns) …"));
    p.recv_all(last_turn);
    for f in end_frames {
        let is_end = matches!(f.msg, ServerMsg::MatchEnded(_));
        p.recv(f, is_end);
    }
    p.note(format!("The match clock ran out (rule 9.1). The seed is now public: SHA-256 of its 32 bytes is the dice_commitment of match_started, and GET {} returns the replay (proto/replay.schema.json) that re-plays every die and plan.", replay_url(MATCH_ID)));

    // --- the featured turn and the frames the session does not show ---
    let featured = sim
        .featured
        .clone()
        .expect("the example match has a capture");
    p.server.push(featured);
    p.client.extend(extra_client_frames(turn.turn_number));
    p.server.push(ServerFrame {
        seq: Some(40),
        msg: ServerMsg::SeatLeft(crate::SeatLeft {
            match_id: MATCH_ID,
            seat: Seat::Red,
        }),
    });
    p.server
        .push(unsequenced(ServerMsg::SeatAway(crate::SeatPresence {
            match_id: MATCH_ID,
            seat: Seat::Blue,
        })));
    p.server
        .push(unsequenced(ServerMsg::SeatBack(crate::SeatPresence {
            match_id: MATCH_ID,
            seat: Seat::Blue,
        })));
    p.server
        .push(unsequenced(ServerMsg::LobbyList(crate::LobbyList {
            lobbies: vec![crate::LobbyInfo {
                code: "P4RTY9".into(),
                mode: Mode::Clash,
                fill_with_bots: true,
                bot_level: BotLevel::Casual,
                host_name: "Bo".into(),
                members: 2,
            }],
        })));
    p.server.push(unsequenced(ServerMsg::RematchOffered(
        crate::RematchOffered {
            match_id: MATCH_ID,
            code: LOBBY_CODE.into(),
            mode: Mode::Journey,
            host: BO,
            host_name: "Bo".into(),
        },
    )));
    p.server.push(unsequenced(ServerMsg::LobbyState(LobbyState {
        code: LOBBY_CODE.into(),
        mode: Mode::Journey,
        private: true,
        fill_with_bots: true,
        bot_level: BotLevel::Beginner,
        host: ADA,
        members: vec![
            LobbyMember {
                player_id: ADA,
                name: "Ada".into(),
            },
            LobbyMember {
                player_id: BO,
                name: "Bo".into(),
            },
        ],
    })));
    p
}

/// Client frames of the flows the session does not show (lobbies, spectating,
/// passing, leaving the queue).
fn extra_client_frames(ada_turn: u32) -> Vec<ClientFrame> {
    vec![
        client(Some("c9"), ClientMsg::LeaveQueue),
        client(
            Some("l1"),
            ClientMsg::CreateLobby(CreateLobby {
                mode: Mode::Journey,
                private: true,
                fill_with_bots: true,
                bot_level: BotLevel::Beginner,
            }),
        ),
        client(
            Some("l2"),
            ClientMsg::JoinLobby(JoinLobby {
                code: LOBBY_CODE.into(),
            }),
        ),
        client(Some("l3"), ClientMsg::LeaveLobby),
        client(Some("l4"), ClientMsg::StartLobby),
        client(
            Some("c5"),
            ClientMsg::Pass(TurnRef {
                match_id: MATCH_ID,
                turn_number: ada_turn,
            }),
        ),
        client(None, ClientMsg::Spectate(MatchRef { match_id: MATCH_ID })),
        client(
            Some("c6"),
            ClientMsg::LeaveMatch(MatchRef { match_id: MATCH_ID }),
        ),
        client(Some("p1"), ClientMsg::SubscribeLobbies),
        client(Some("p2"), ClientMsg::UnsubscribeLobbies),
        client(
            Some("r1"),
            ClientMsg::OfferRematch(MatchRef { match_id: MATCH_ID }),
        ),
    ]
}
