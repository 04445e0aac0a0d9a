//! Contract: `decode_client` is total. Any byte string gives a frame or a
//! `DecodeError` whose code is `bad_json`, `unknown_type`, `too_large` or
//! `invalid_text` (chat text the text policy refuses); it never panics; and a frame
//! that follows `client.schema.json` always decodes, unless its chat text breaks the
//! policy (which the schema cannot state).

mod common;

use proptest::prelude::*;
use protocol::examples::client_examples;
use protocol::{decode_client, ClientFrame, ClientMsg, DecodeError, ErrorCode, MAX_FRAME_BYTES};
use serde_json::{json, Value};
use std::sync::OnceLock;

const DECODE_CODES: [ErrorCode; 5] = [
    ErrorCode::BadJson,
    ErrorCode::UnknownType,
    ErrorCode::TooLarge,
    ErrorCode::InvalidText,
    ErrorCode::InvalidEntropy,
];

fn code(bytes: &[u8]) -> ErrorCode {
    decode_client(bytes).expect_err("the frame is refused").code
}

fn decode_err(text: &str) -> DecodeError {
    decode_client(text.as_bytes()).expect_err("the frame is refused")
}

/// The example client frames as compact JSON values.
fn example_values() -> &'static Vec<Value> {
    static V: OnceLock<Vec<Value>> = OnceLock::new();
    V.get_or_init(|| {
        client_examples()
            .into_iter()
            .map(|(_, f)| serde_json::to_value(f).unwrap())
            .collect()
    })
}

fn client_schema() -> &'static jsonschema::Validator {
    static S: OnceLock<jsonschema::Validator> = OnceLock::new();
    S.get_or_init(|| common::validator("client.schema.json"))
}

// ---------------------------------------------------------------- unit cases ----

#[test]
fn not_json_is_bad_json() {
    let e = decode_err("not json");
    assert_eq!((e.code, e.id), (ErrorCode::BadJson, None));
}

#[test]
fn unknown_type_is_unknown_type_and_echoes_the_id() {
    let e = decode_err(r#"{"t":"fly"}"#);
    assert_eq!((e.code, e.id), (ErrorCode::UnknownType, None));
    let e = decode_err(r#"{"t":"fly","id":"q1"}"#);
    assert_eq!(
        (e.code, e.id.as_deref()),
        (ErrorCode::UnknownType, Some("q1"))
    );
}

#[test]
fn wrong_payload_is_bad_json_with_the_id() {
    let e = decode_err(r#"{"t":"submit_turn","id":"7","d":{}}"#);
    assert_eq!((e.code, e.id.as_deref()), (ErrorCode::BadJson, Some("7")));
    // A payload field the message does not have (payloads deny unknown fields).
    let e = decode_err(r#"{"t":"hello","id":"h","d":{"token":"x","protocol_version":1,"x":1}}"#);
    assert_eq!((e.code, e.id.as_deref()), (ErrorCode::BadJson, Some("h")));
    // A message with a payload needs `d`.
    let e = decode_err(r#"{"t":"hello","d":null}"#);
    assert_eq!(e.code, ErrorCode::BadJson);
}

/// The entropy of `contribute_entropy` is checked by decoding (proto/README.md §10):
/// hex of 16..=64 bytes, else `invalid_entropy` with the frame's `id`.
#[test]
fn contributed_entropy_is_checked_by_decoding() {
    let id = "00000000-0000-4000-8000-000000000001";
    let frame = |e: &str| {
        format!(
            r#"{{"t":"contribute_entropy","id":"q","d":{{"match_id":"{id}","entropy":"{e}"}}}}"#
        )
    };
    for bad in [
        "ab".repeat(15),
        "ab".repeat(65),
        "zz".repeat(16),
        "a".repeat(33),
        String::new(),
    ] {
        let e = decode_err(&frame(&bad));
        assert_eq!(
            (e.code, e.id.as_deref()),
            (ErrorCode::InvalidEntropy, Some("q")),
            "{bad}"
        );
    }
    for good in ["ab".repeat(16), "AB".repeat(64)] {
        assert!(decode_client(frame(&good).as_bytes()).is_ok(), "{good}");
    }
}

/// Chat text rules are part of decoding: a text the policy refuses is
/// `invalid_text` with the frame's `id`; an accepted one arrives NFC-normalized.
#[test]
fn chat_text_is_checked_and_normalized_by_decoding() {
    let id = "00000000-0000-4000-8000-000000000001";
    for (rid, text) in [("e", ""), ("c", r"hi\u001b[31m"), ("b", r"\u202ehi")] {
        let frame =
            format!(r#"{{"t":"chat","id":"{rid}","d":{{"match_id":"{id}","text":"{text}"}}}}"#);
        let e = decode_err(&frame);
        assert_eq!(
            (e.code, e.id.as_deref()),
            (ErrorCode::InvalidText, Some(rid)),
            "{frame}"
        );
    }
    let long = "é".repeat(281);
    let e = decode_err(&format!(
        r#"{{"t":"chat","d":{{"match_id":"{id}","text":"{long}"}}}}"#
    ));
    assert_eq!(e.code, ErrorCode::InvalidText);
    assert_eq!(e.message, "chat text: must be 1..=280 characters, got 281");
    // "e" + U+0301 COMBINING ACUTE ACCENT composes to U+00E9.
    let frame = decode_client(
        format!(r#"{{"t":"chat","d":{{"match_id":"{id}","text":"caf\u0065\u0301"}}}}"#).as_bytes(),
    )
    .unwrap();
    match frame.msg {
        ClientMsg::Chat(c) => assert_eq!(c.text, "caf\u{e9}"),
        other => panic!("expected chat, got {other:?}"),
    }
}

/// Every message but `hello` and `ping` is a signed-in player's request, and the
/// request is the same message.
#[test]
fn hello_and_ping_are_sorted_from_requests() {
    use protocol::Inbound;
    for (t, f) in client_examples() {
        match (t, Inbound::from(f.msg.clone())) {
            ("hello", Inbound::Hello(h)) => assert_eq!(ClientMsg::Hello(h), f.msg),
            ("ping", Inbound::Ping) => {}
            ("hello" | "ping", other) => panic!("{t} sorted as {other:?}"),
            (_, Inbound::Request(r)) => assert_eq!(ClientMsg::from(r), f.msg, "{t}"),
            (_, other) => panic!("{t} sorted as {other:?}"),
        }
    }
}

#[test]
fn frames_over_4096_bytes_are_too_large() {
    let pad = |n: usize| {
        let mut s = String::from(r#"{"t":"ping"}"#);
        s.push_str(&" ".repeat(n - s.len()));
        s
    };
    assert_eq!(MAX_FRAME_BYTES, 4096);
    assert_eq!(code(pad(5000).as_bytes()), ErrorCode::TooLarge);
    assert_eq!(code(pad(4097).as_bytes()), ErrorCode::TooLarge);
    assert_eq!(
        decode_client(pad(4096).as_bytes()).unwrap().msg,
        ClientMsg::Ping,
        "4096 bytes is allowed"
    );
}

#[test]
fn ping_with_or_without_null_payload() {
    let ping = ClientFrame {
        id: None,
        msg: ClientMsg::Ping,
    };
    assert_eq!(decode_client(br#"{"t":"ping"}"#), Ok(ping.clone()));
    assert_eq!(decode_client(br#"{"t":"ping","d":null}"#), Ok(ping));
    // A payload-less message takes no object as `d` (client.schema.json: "d": null).
    assert_eq!(code(br#"{"t":"ping","d":{}}"#), ErrorCode::BadJson);
    // Keys other than t, d and id are ignored.
    assert_eq!(
        decode_client(br#"{"t":"ping","seq":3}"#).unwrap().msg,
        ClientMsg::Ping
    );
}

#[test]
fn a_frame_is_an_object() {
    // serde's derived structs would also read `["ping"]`; a frame must be an object.
    assert_eq!(code(br#"["ping"]"#), ErrorCode::BadJson);
    assert_eq!(code(br#""ping""#), ErrorCode::BadJson);
    assert_eq!(code(b"null"), ErrorCode::BadJson);
    assert_eq!(code(b""), ErrorCode::BadJson);
}

#[test]
fn t_must_be_a_string_and_the_id_is_still_echoed() {
    let e = decode_err(r#"{"t":5,"id":"x"}"#);
    assert_eq!((e.code, e.id.as_deref()), (ErrorCode::BadJson, Some("x")));
    let e = decode_err(r#"{"id":"y"}"#);
    assert_eq!((e.code, e.id.as_deref()), (ErrorCode::BadJson, Some("y")));
}

#[test]
fn id_is_a_string_of_at_most_64_characters() {
    let ok = format!(r#"{{"t":"ping","id":"{}"}}"#, "é".repeat(64));
    assert_eq!(
        decode_client(ok.as_bytes()).unwrap().id,
        Some("é".repeat(64))
    );
    let long = format!(r#"{{"t":"ping","id":"{}"}}"#, "a".repeat(65));
    let e = decode_err(&long);
    assert_eq!((e.code, e.id), (ErrorCode::BadJson, None));
    let e = decode_err(r#"{"t":"ping","id":7}"#);
    assert_eq!((e.code, e.id), (ErrorCode::BadJson, None));
    assert_eq!(
        decode_client(br#"{"t":"ping","id":null}"#).unwrap().id,
        None
    );
}

#[test]
fn every_example_decodes_to_itself() {
    for (t, frame) in client_examples() {
        let bytes = serde_json::to_vec(&frame).unwrap();
        assert_eq!(decode_client(&bytes), Ok(frame), "{t}");
    }
}

// ---------------------------------------------------------------- properties ----

/// A structural change to a valid frame.
#[derive(Debug, Clone)]
enum Change {
    /// Replace `t` with another type name or junk.
    SwapType(usize),
    /// Remove the key at the chosen path.
    DropKey(usize),
    /// Replace the value at the chosen path with a value of another JSON type.
    WrongType(usize, usize),
}

const TYPE_SWAPS: [&str; 4] = ["", "PING", "submit-turn", "ack"];

fn replacement(i: usize) -> Value {
    let all = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(4_294_967_296u64),
        json!("x"),
        json!(""),
        json!([]),
        json!([1]),
        json!({}),
        json!({"a": 1}),
    ];
    all[i % all.len()].clone()
}

/// Every path (sequence of keys / indices) to a value inside `v`, `v` itself excluded.
fn paths(v: &Value, prefix: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                prefix.push(Value::String(k.clone()));
                out.push(prefix.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                prefix.push(json!(i));
                out.push(prefix.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn parent_mut<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |cur, step| match step {
        Value::String(k) => &mut cur[k.as_str()],
        _ => &mut cur[step.as_u64().unwrap() as usize],
    })
}

fn apply(mut v: Value, change: &Change) -> Value {
    let mut all = Vec::new();
    paths(&v, &mut Vec::new(), &mut all);
    if all.is_empty() {
        return v;
    }
    match *change {
        Change::SwapType(i) => {
            let names: Vec<&str> = ClientMsg::TYPES.iter().copied().chain(TYPE_SWAPS).collect();
            v["t"] = json!(names[i % names.len()]);
        }
        Change::DropKey(i) => {
            let path = &all[i % all.len()];
            let (last, parent) = path.split_last().unwrap();
            match (parent_mut(&mut v, parent), last) {
                (Value::Object(m), Value::String(k)) => {
                    m.remove(k);
                }
                (Value::Array(a), idx) => {
                    a.remove(idx.as_u64().unwrap() as usize);
                }
                _ => unreachable!("paths lead through objects and arrays"),
            }
        }
        Change::WrongType(i, r) => {
            let path = &all[i % all.len()];
            *parent_mut(&mut v, path) = replacement(r);
        }
    }
    v
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        any::<usize>().prop_map(Change::SwapType),
        any::<usize>().prop_map(Change::DropKey),
        (any::<usize>(), any::<usize>()).prop_map(|(i, r)| Change::WrongType(i, r)),
    ]
}

/// A byte-level change.
#[derive(Debug, Clone)]
enum ByteEdit {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
}

fn byte_edit() -> impl Strategy<Value = ByteEdit> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(i, m)| ByteEdit::Flip(i, m)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| ByteEdit::Insert(i, b)),
        any::<usize>().prop_map(ByteEdit::Delete),
    ]
}

fn assert_total(bytes: &[u8]) -> Result<(), TestCaseError> {
    match decode_client(bytes) {
        Ok(frame) => {
            // What decodes re-encodes and decodes to the same frame.
            let again = serde_json::to_vec(&frame).unwrap();
            prop_assert_eq!(decode_client(&again), Ok(frame));
        }
        Err(e) => {
            prop_assert!(DECODE_CODES.contains(&e.code), "code {:?}", e.code);
            prop_assert_eq!(e.code == ErrorCode::TooLarge, bytes.len() > MAX_FRAME_BYTES);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..6000)) {
        assert_total(&bytes)?;
    }

    #[test]
    fn byte_edits_of_valid_frames_never_panic(
        which in any::<usize>(),
        edits in proptest::collection::vec(byte_edit(), 1..8),
    ) {
        let values = example_values();
        let mut bytes = serde_json::to_vec(&values[which % values.len()]).unwrap();
        for edit in edits {
            let n = bytes.len().max(1);
            match edit {
                ByteEdit::Flip(i, m) => { if !bytes.is_empty() { bytes[i % n] ^= m } }
                ByteEdit::Insert(i, b) => bytes.insert(i % (bytes.len() + 1), b),
                ByteEdit::Delete(i) => { if !bytes.is_empty() { bytes.remove(i % n); } }
            }
        }
        assert_total(&bytes)?;
    }

    /// Structural changes never panic; the error echoes an intact `id`; and whatever
    /// still follows `client.schema.json` decodes (a client that validates against the
    /// schema is never refused with bad_json/unknown_type).
    #[test]
    fn structural_changes_follow_the_schema(
        which in any::<usize>(),
        changes in proptest::collection::vec(change(), 1..4),
    ) {
        let values = example_values();
        let mut v = values[which % values.len()].clone();
        for c in &changes {
            v = apply(v, c);
        }
        let bytes = serde_json::to_vec(&v).unwrap();
        assert_total(&bytes)?;
        let valid = client_schema().is_valid(&v);
        match decode_client(&bytes) {
            Ok(_) => {}
            Err(e) => {
                prop_assert!(
                    !valid || e.code == ErrorCode::InvalidText,
                    "schema-valid frame refused: {} ({})",
                    v,
                    e
                );
                let id = v.get("id").and_then(Value::as_str).filter(|s| s.chars().count() <= 64);
                prop_assert_eq!(e.id.as_deref(), id, "the error echoes the id");
            }
        }
    }
}

/// A server configured with a larger frame limit accepts frames up to it: a 5000-byte
/// `ping` (padded with spaces) is `too_large` at the default 4096 and a Ping at 8192.
#[test]
fn a_configured_limit_replaces_the_default() {
    let mut frame = br#"{"t":"ping"}"#.to_vec();
    frame.resize(5000, b' ');
    assert_eq!(
        protocol::decode_client(&frame).unwrap_err().code,
        protocol::ErrorCode::TooLarge
    );
    let ok = protocol::decode_client_limited(&frame, 8192).unwrap();
    assert_eq!(ok.msg, protocol::ClientMsg::Ping);
    assert_eq!(
        protocol::decode_client_limited(&frame, 4999)
            .unwrap_err()
            .code,
        protocol::ErrorCode::TooLarge
    );
}
