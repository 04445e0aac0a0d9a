//! Contract: every example in `proto/examples/` (and every frame line of the session
//! and of `proto/README.md`) validates against its published schema and survives a
//! decode → encode round trip unchanged; the examples are consistent with the rules.

mod common;

use common::{errors, read, validator};
use engine::legal::random_plan;
use engine::{Event, Match, Mode, RuleSet, Seed};
use protocol::{
    decode_client, decode_server, encode_server, ClientFrame, ClientMsg, ServerFrame, ServerMsg,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::Value;

/// Checks one client frame text: schema-valid, serde round trip, `decode_client`.
fn check_client(what: &str, text: &str, schema: &jsonschema::Validator) -> ClientFrame {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let errs = errors(schema, &value);
    assert!(
        errs.is_empty(),
        "{what} breaks client.schema.json:\n{}",
        errs.join("\n")
    );
    let frame: ClientFrame =
        serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        serde_json::to_value(&frame).unwrap(),
        value,
        "{what}: serde round trip"
    );
    let decoded =
        decode_client(text.as_bytes()).unwrap_or_else(|e| panic!("{what}: decode_client: {e}"));
    assert_eq!(decoded, frame, "{what}: decode_client agrees with serde");
    frame
}

/// Checks one server frame text: schema-valid, `decode_server` → `encode_server` round trip.
fn check_server(what: &str, text: &str, schema: &jsonschema::Validator) -> ServerFrame {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let errs = errors(schema, &value);
    assert!(
        errs.is_empty(),
        "{what} breaks server.schema.json:\n{}",
        errs.join("\n")
    );
    let frame = decode_server(text).unwrap_or_else(|e| panic!("{what}: decode_server: {e}"));
    let again: Value = serde_json::from_str(&encode_server(frame.seq, &frame.msg)).unwrap();
    assert_eq!(again, value, "{what}: decode → encode round trip");
    frame
}

#[test]
fn client_example_files_validate_and_round_trip() {
    let schema = validator("client.schema.json");
    for t in ClientMsg::TYPES {
        let rel = format!("examples/client/{t}.json");
        let frame = check_client(&rel, &read(&rel), &schema);
        assert_eq!(frame.msg.type_name(), t, "{rel} holds a {t} message");
    }
}

#[test]
fn server_example_files_validate_and_round_trip() {
    let schema = validator("server.schema.json");
    for t in ServerMsg::TYPES {
        let rel = format!("examples/server/{t}.json");
        let frame = check_server(&rel, &read(&rel), &schema);
        assert_eq!(frame.msg.type_name(), t, "{rel} holds a {t} message");
    }
}

/// The server frames of `session.txt`, with whether a `#` note came right before.
fn session_frames() -> (Vec<ClientFrame>, Vec<(bool, ServerFrame)>) {
    let client_schema = validator("client.schema.json");
    let server_schema = validator("server.schema.json");
    let text = read("examples/session.txt");
    let (mut clients, mut servers) = (Vec::new(), Vec::new());
    let mut after_note = false;
    for (i, line) in text.lines().enumerate() {
        let what = format!("session.txt line {}", i + 1);
        if let Some(json) = line.strip_prefix("> ") {
            clients.push(check_client(&what, json, &client_schema));
            after_note = false;
        } else if let Some(json) = line.strip_prefix("< ") {
            servers.push((after_note, check_server(&what, json, &server_schema)));
            after_note = false;
        } else {
            assert!(
                line.starts_with("# "),
                "{what}: a line is `# note`, `> frame` or `< frame`"
            );
            after_note = true;
        }
    }
    (clients, servers)
}

#[test]
fn session_runs_from_hello_to_match_ended() {
    let (clients, servers) = session_frames();
    assert!(
        matches!(clients[0].msg, ClientMsg::Hello(_)),
        "the session starts with hello"
    );
    assert!(
        matches!(servers[0].1.msg, ServerMsg::Welcome(_)),
        "hello is answered by welcome"
    );
    let last = &servers.last().expect("server frames").1;
    assert!(
        matches!(last.msg, ServerMsg::MatchEnded(_)),
        "the session ends with match_ended"
    );
    assert!(
        clients
            .iter()
            .any(|f| matches!(f.msg, ClientMsg::Resync(_))),
        "the session has a resync"
    );
}

/// Contract (ServerFrame docs): match messages carry seq 1, 2, 3 … without gaps. The
/// session skips stretches only where a note says so (Ada offline, turns left out);
/// a snapshot carries the seq of the last message it includes.
#[test]
fn session_seq_numbers_follow_the_rules() {
    let (_, servers) = session_frames();
    let mut prev: Option<u64> = None;
    for (after_note, f) in &servers {
        let is_match_msg = matches!(
            f.msg,
            ServerMsg::MatchStarted(_)
                | ServerMsg::DiceSealed(_)
                | ServerMsg::TurnStarted(_)
                | ServerMsg::TurnResolved(_)
                | ServerMsg::Snapshot(_)
                | ServerMsg::MatchEnded(_)
                | ServerMsg::Chat(_)
        );
        assert_eq!(
            f.seq.is_some(),
            is_match_msg,
            "{}: seq on match messages only",
            f.msg.type_name()
        );
        let Some(seq) = f.seq else { continue };
        if let ServerMsg::Snapshot(s) = &f.msg {
            assert_eq!(s.seq, seq, "a snapshot frame's seq is its payload's seq");
        }
        match (&f.msg, prev) {
            (ServerMsg::MatchStarted(_), _) => assert_eq!(seq, 1, "match_started is seq 1"),
            (ServerMsg::Snapshot(_), Some(p)) => assert!(seq >= p, "a snapshot never goes back"),
            (_, Some(p)) if *after_note => assert!(seq > p, "seq {seq} after {p}"),
            (_, Some(p)) => assert_eq!(seq, p + 1, "no gap without a note"),
            (_, None) => panic!("{} before match_started", f.msg.type_name()),
        }
        prev = Some(seq);
    }
}

#[test]
fn embedded_positions_plans_and_events_follow_the_engine_schemas() {
    let position = validator("position.schema.json");
    let plan = validator("plan.schema.json");
    let event = validator("event.schema.json");
    let (clients, servers) = session_frames();
    let mut counts = (0, 0, 0);
    for f in &clients {
        if let ClientMsg::SubmitTurn(s) = &f.msg {
            let errs = errors(&plan, &serde_json::to_value(&s.plan).unwrap());
            assert!(errs.is_empty(), "submitted plan: {}", errs.join("\n"));
            counts.1 += 1;
        }
    }
    for (_, f) in &servers {
        match &f.msg {
            ServerMsg::Snapshot(s) => {
                let errs = errors(&position, &serde_json::to_value(s.position).unwrap());
                assert!(errs.is_empty(), "snapshot position: {}", errs.join("\n"));
                counts.0 += 1;
            }
            ServerMsg::TurnResolved(r) => {
                let errs = errors(&plan, &serde_json::to_value(&r.plan).unwrap());
                assert!(errs.is_empty(), "resolved plan: {}", errs.join("\n"));
                for e in &r.events {
                    let errs = errors(&event, &serde_json::to_value(e).unwrap());
                    assert!(errs.is_empty(), "event {e:?}: {}", errs.join("\n"));
                    counts.2 += 1;
                }
            }
            _ => {}
        }
    }
    assert!(
        counts.0 >= 1 && counts.1 >= 2 && counts.2 >= 10,
        "checked {counts:?}"
    );
}

/// RULES.md §10: the revealed seed hashes to the commitment published at the start.
#[test]
fn match_ended_example_reveals_the_committed_seed() {
    let started = decode_server(&read("examples/server/match_started.json")).unwrap();
    let ended = decode_server(&read("examples/server/match_ended.json")).unwrap();
    let (ServerMsg::MatchStarted(s), ServerMsg::MatchEnded(e)) = (started.msg, ended.msg) else {
        panic!("wrong example types");
    };
    let seed: Seed = e.seed.parse().expect("the seed is 64 hex digits");
    assert_eq!(seed.commitment(), s.dice_commitment);
    assert_eq!(
        e.replay_url,
        format!("/api/v1/matches/{}/replay", e.match_id)
    );
    assert_eq!(e.match_id, s.match_id);
}

#[test]
fn turn_resolved_example_shows_a_capture() {
    let f = decode_server(&read("examples/server/turn_resolved.json")).unwrap();
    let ServerMsg::TurnResolved(r) = f.msg else {
        panic!("not turn_resolved")
    };
    assert!(r.events.iter().any(|e| matches!(e, Event::Capture { .. })));
    assert_eq!(
        r.standings.len(),
        4,
        "standings of all four seats (rule 9.2)"
    );
}

#[test]
fn error_example_answers_its_request() {
    let f = decode_server(&read("examples/server/error.json")).unwrap();
    let ServerMsg::Error(e) = f.msg else {
        panic!("not error")
    };
    assert_eq!(e.code.as_str(), "roll_not_in_store");
    assert_eq!(e.in_reply_to.as_deref(), Some("c2"));
    assert_eq!(f.seq, None);
}

/// A real replay (a short match of seeded random plans ended by the clock) follows
/// `replay.schema.json`.
#[test]
fn a_real_replay_follows_the_replay_schema() {
    let schema = validator("replay.schema.json");
    let mut m = Match::new(RuleSet::default(), Mode::Journey, Seed([9; 32]), 0).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    for _ in 0..24 {
        let turn = m.current_turn().unwrap().clone();
        let plan = random_plan(m.position(), m.rules(), &mut rng);
        m.submit(turn.seat, turn.turn_number, &plan, 1_000).unwrap();
    }
    m.end_by_clock();
    let replay = serde_json::to_value(engine::replay::replay_of(&m)).unwrap();
    let errs = errors(&schema, &replay);
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    assert_eq!(replay["turns"].as_array().unwrap().len(), 24);
}

/// Every `> {…}` / `< {…}` line of `proto/README.md` follows the schemas and decodes
/// (README frames may leave out fields that have defaults, so no byte round trip), and
/// the README names every error code.
#[test]
fn readme_frames_validate_and_codes_are_listed() {
    let client_schema = validator("client.schema.json");
    let server_schema = validator("server.schema.json");
    let text = read("README.md");
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        let what = format!("README.md line {}", i + 1);
        let (schema, json) = match line.get(..3) {
            Some("> {") => (&client_schema, &line[2..]),
            Some("< {") => (&server_schema, &line[2..]),
            _ => continue,
        };
        let value: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{what}: {e}"));
        let errs = errors(schema, &value);
        assert!(
            errs.is_empty(),
            "{what} breaks its schema:\n{}",
            errs.join("\n")
        );
        if line.starts_with('>') {
            decode_client(json.as_bytes()).unwrap_or_else(|e| panic!("{what}: {e}"));
        } else {
            decode_server(json).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
        n += 1;
    }
    assert!(
        n >= 40,
        "README.md shows a whole walkthrough ({n} frame lines found)"
    );
    for c in protocol::ErrorCode::ALL {
        assert!(
            text.contains(&format!("| `{}` |", c.as_str())),
            "README.md explains {}",
            c.as_str()
        );
    }
}
