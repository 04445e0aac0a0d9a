//! Contract: the protocol's closed list of WebSocket error codes holds every engine
//! code (RULES.md rule 4.5) under the same string, plus the transport and session
//! codes; the REST list gives each code one HTTP status; and `proto/error_codes.json`
//! lists both with their meaning.

mod common;

use protocol::schema::{
    error_code_docs, error_code_list, ErrorCodeDoc, ErrorCodeList, RestErrorCodeDoc,
};
use protocol::{ErrorCode, RestErrorCode};
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
    // Rule 4.5 names 11 codes, plus invalid_position, invalid_plan and the match's
    // stale_turn.
    assert_eq!(engine_codes.len(), 14, "{engine_codes:?}");
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
        "invalid_text",
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
        listed.len(),
        35,
        "35 codes: 22 frame, session, lobby, text, store, cluster and dice contribution, 13 engine"
    );
    assert_eq!(
        listed.iter().collect::<BTreeSet<_>>().len(),
        listed.len(),
        "no code is listed twice"
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
        assert_eq!(e.code().as_str(), want, "the engine names the same code");
    }
}

#[test]
fn rest_all_is_complete_distinct_and_serializes_as_as_str() {
    let from_schema = enumerated(&schemars::schema_for!(RestErrorCode));
    let listed: Vec<String> = RestErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_string())
        .collect();
    assert_eq!(
        listed, from_schema,
        "RestErrorCode::ALL lists every variant in order"
    );
    assert_eq!(
        listed.iter().collect::<BTreeSet<_>>().len(),
        35,
        "35 distinct codes"
    );
    for c in RestErrorCode::ALL {
        assert_eq!(
            serde_json::to_value(c).unwrap(),
            Value::String(c.as_str().into())
        );
        assert_eq!(c.to_string(), c.as_str());
        let back: RestErrorCode = serde_json::from_value(Value::String(c.as_str().into())).unwrap();
        assert_eq!(back, c);
    }
}

#[test]
fn each_rest_code_has_its_http_status() {
    let by_status = |status: u16| -> Vec<&str> {
        RestErrorCode::ALL
            .iter()
            .filter(|c| c.status() == status)
            .map(|c| c.as_str())
            .collect()
    };
    assert_eq!(
        by_status(400),
        [
            "bad_json",
            "bad_query",
            "bad_request",
            "invalid_name",
            "invalid_id",
            "invalid_limit",
            "invalid_cursor",
            "invalid_mode",
            "invalid_username",
            "invalid_password",
            "invalid_credential"
        ]
    );
    assert_eq!(by_status(401), ["not_authenticated", "bad_credentials"]);
    assert_eq!(by_status(403), ["origin_not_allowed", "forbidden"]);
    assert_eq!(
        by_status(404),
        [
            "match_not_found",
            "player_not_found",
            "not_found",
            "session_not_found",
            "ceremony_not_found",
            "passkey_not_found"
        ]
    );
    assert_eq!(
        by_status(409),
        [
            "username_taken",
            "already_claimed",
            "not_claimed",
            "in_match",
            "passkey_taken",
            "too_many_passkeys"
        ]
    );
    assert_eq!(by_status(405), ["method_not_allowed"]);
    assert_eq!(by_status(408), ["request_timeout"]);
    assert_eq!(by_status(413), ["too_large"]);
    assert_eq!(by_status(415), ["unsupported_media_type"]);
    assert_eq!(by_status(426), ["upgrade_required"]);
    assert_eq!(by_status(429), ["rate_limited"]);
    assert_eq!(by_status(500), ["internal"]);
    assert_eq!(by_status(503), ["unavailable"]);
}

#[test]
fn codes_shared_by_both_lists_are_exactly_these_six() {
    let ws: BTreeSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let shared: Vec<&str> = RestErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|s| ws.contains(s))
        .collect();
    assert_eq!(
        shared,
        [
            "bad_json",
            "not_authenticated",
            "match_not_found",
            "too_large",
            "rate_limited",
            "internal"
        ]
    );
    assert!(
        !ws.contains("invalid_name"),
        "invalid_name is REST only: no WebSocket message names a guest"
    );
}

#[test]
fn error_codes_file_lists_every_code_with_its_meaning() {
    let file: ErrorCodeList =
        serde_json::from_value(common::read_json("error_codes.json")).unwrap();
    assert_eq!(file, error_code_list());
    assert_eq!(file.websocket, error_code_docs());
    let codes: Vec<&str> = file.websocket.iter().map(|d| d.code.as_str()).collect();
    let all: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(codes, all);
    let rest: Vec<(&str, u16)> = file
        .rest
        .iter()
        .map(|d| (d.code.as_str(), d.status))
        .collect();
    let all: Vec<(&str, u16)> = RestErrorCode::ALL
        .iter()
        .map(|c| (c.as_str(), c.status()))
        .collect();
    assert_eq!(rest, all);
    let descriptions = file
        .websocket
        .iter()
        .map(|d| (&d.code, &d.description))
        .chain(file.rest.iter().map(|d| (&d.code, &d.description)));
    for (code, description) in descriptions {
        assert!(!description.trim().is_empty(), "{code} has a description");
    }
    assert_eq!(
        file.websocket[0],
        ErrorCodeDoc {
            code: "bad_json".into(),
            description: "The frame is not JSON, or its payload does not have the message's shape."
                .into()
        }
    );
    assert_eq!(
        file.rest[5],
        RestErrorCodeDoc {
            code: "invalid_limit".into(),
            status: 400,
            description: "`limit` is not an integer in 1..=100.".into()
        }
    );
}
