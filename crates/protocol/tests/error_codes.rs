//! Contract: the protocol's closed list of error codes holds every engine code
//! (RULES.md rule 4.5) under the same string, plus the transport and session codes,
//! and `proto/error_codes.json` lists them all with their meaning.

mod common;

use protocol::schema::{error_code_docs, ErrorCodeDoc};
use protocol::ErrorCode;
use serde_json::Value;
use std::collections::BTreeSet;

/// The strings a derived enum schema enumerates (`oneOf` of `const`s, or `enum`).
fn enumerated(schema: &schemars::Schema) -> Vec<String> {
    let consts = schema.get("oneOf").and_then(Value::as_array).map(|vs| {
        vs.iter()
            .filter_map(|v| v.get("const").and_then(Value::as_str).map(str::to_string))
            .collect::<Vec<_>>()
    });
    let plain = schema.get("enum").and_then(Value::as_array).map(|vs| {
        vs.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect::<Vec<_>>()
    });
    consts.or(plain).expect("an enum schema")
}

#[test]
fn every_engine_code_maps_to_the_same_string() {
    let engine_codes = enumerated(&schemars::schema_for!(engine::ErrorCode));
    // Rule 4.5 names 11 codes, plus invalid_position and invalid_plan.
    assert_eq!(engine_codes.len(), 13, "{engine_codes:?}");
    for s in &engine_codes {
        let e: engine::ErrorCode = serde_json::from_value(Value::String(s.clone())).unwrap();
        let p = ErrorCode::from(e);
        assert_eq!(e.as_str(), s);
        assert_eq!(p.as_str(), s, "engine {s} keeps its string on the wire");
        assert!(ErrorCode::ALL.contains(&p), "{s} is in ErrorCode::ALL");
    }
}

#[test]
fn the_list_has_the_transport_and_session_codes() {
    let all: BTreeSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    for s in [
        "bad_json",
        "unknown_type",
        "too_large",
        "not_authenticated",
        "unsupported_version",
        "not_in_match",
        "not_your_turn",
        "stale_turn",
        "match_not_found",
        "lobby_not_found",
        "lobby_full",
        "rate_limited",
        "internal",
        "not_host",
        "already_busy",
        "match_over",
    ] {
        assert!(all.contains(s), "{s} is an error code");
    }
}

#[test]
fn all_is_complete_distinct_and_serializes_as_as_str() {
    let from_schema = enumerated(&schemars::schema_for!(ErrorCode));
    let listed: Vec<String> = ErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_string())
        .collect();
    assert_eq!(
        listed, from_schema,
        "ErrorCode::ALL lists every variant in order"
    );
    assert_eq!(
        listed.iter().collect::<BTreeSet<_>>().len(),
        30,
        "27 distinct codes"
    );
    for c in ErrorCode::ALL {
        assert_eq!(
            serde_json::to_value(c).unwrap(),
            Value::String(c.as_str().into())
        );
        let back: ErrorCode = serde_json::from_value(Value::String(c.as_str().into())).unwrap();
        assert_eq!(back, c);
    }
}

#[test]
fn match_errors_map_to_their_engine_strings() {
    use engine::{MatchError, PlanError, Seat};
    let cases = [
        MatchError::NotYourTurn {
            seat: Seat::Red,
            to_move: Seat::Green,
        },
        MatchError::StaleTurn { current: 4, got: 3 },
        MatchError::MatchOver,
        MatchError::Plan(PlanError::RoyalAtHome),
        MatchError::Plan(PlanError::InvalidPlan("exits names G1 twice".into())),
    ];
    let expected = [
        "not_your_turn",
        "stale_turn",
        "match_over",
        "royal_at_home",
        "invalid_plan",
    ];
    for (e, want) in cases.iter().zip(expected) {
        assert_eq!(ErrorCode::from(e).as_str(), want);
        assert_eq!(e.code(), want, "the engine names the same code");
    }
}

#[test]
fn error_codes_file_lists_every_code_with_its_meaning() {
    let file: Vec<ErrorCodeDoc> =
        serde_json::from_value(common::read_json("error_codes.json")).unwrap();
    assert_eq!(file, error_code_docs());
    let codes: Vec<&str> = file.iter().map(|d| d.code.as_str()).collect();
    let all: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(codes, all);
    for d in &file {
        assert!(
            !d.description.trim().is_empty(),
            "{} has a description",
            d.code
        );
    }
    assert_eq!(
        file[0],
        ErrorCodeDoc {
            code: "bad_json".into(),
            description: "The frame is not JSON, or its payload does not have the message's shape."
                .into()
        }
    );
}
