//! The JSON Schemas (draft 2020-12) published in `proto/`, the error-code lists built
//! from the doc comments of [`ErrorCode`] (WebSocket) and [`RestErrorCode`] (REST),
//! and the schema adjustment the message enums need.

use crate::client::ClientFrame;
use crate::error::ErrorCode;
use crate::rest::RestErrorCode;
use crate::server::ServerFrame;
use schemars::{schema_for, JsonSchema, Schema};
use serde_json::{json, Value};

/// Schema transform for the `t`/`d` message enums: a message without a payload
/// (`ping`, `leave_queue`, `pong` …) accepts only a missing or `null` `d`, exactly as
/// [`crate::decode_client`] does, so its schema says `"d": {"type": "null"}`.
pub fn no_payload_is_null(schema: &mut Schema) {
    let Some(Value::Array(variants)) = schema.get_mut("oneOf") else {
        return;
    };
    for variant in variants {
        if let Some(Value::Object(props)) = variant.get_mut("properties") {
            if !props.contains_key("d") {
                props.insert(
                    "d".into(),
                    json!({
                        "description": "No payload: leave `d` out or send null.",
                        "type": "null"
                    }),
                );
            }
        }
    }
}

/// Every schema of `proto/`, as (file name, schema): `client.schema.json`
/// ([`ClientFrame`]), `server.schema.json` ([`ServerFrame`]), and the engine's
/// `position`, `plan`, `event` and `replay` schemas (RULES.md §11 notation).
pub fn published() -> Vec<(&'static str, Schema)> {
    vec![
        ("client.schema.json", schema_for!(ClientFrame)),
        ("server.schema.json", schema_for!(ServerFrame)),
        ("position.schema.json", schema_for!(engine::Position)),
        ("plan.schema.json", schema_for!(engine::Plan)),
        ("event.schema.json", schema_for!(engine::Event)),
        ("replay.schema.json", schema_for!(engine::Replay)),
    ]
}

/// One WebSocket error code in `proto/error_codes.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ErrorCodeDoc {
    /// The stable code string (`"bad_json"` …).
    pub code: String,
    /// What it means: the variant's doc comment.
    pub description: String,
}

/// One REST error code in `proto/error_codes.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RestErrorCodeDoc {
    /// The stable code string (`"invalid_limit"` …).
    pub code: String,
    /// The HTTP status it is sent with ([`RestErrorCode::status`]).
    pub status: u16,
    /// What it means: the variant's doc comment.
    pub description: String,
}

/// The contents of `proto/error_codes.json`: both closed lists of error codes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorCodeList {
    /// Codes of the WebSocket `error` message ([`ErrorCode`]), in declaration order.
    pub websocket: Vec<ErrorCodeDoc>,
    /// Codes of REST error bodies ([`RestErrorCode`]), in declaration order (by status).
    pub rest: Vec<RestErrorCodeDoc>,
}

/// The doc comment of each variant of a unit enum, by its serialized name, read from
/// the derived schema (`oneOf` of `const`s with descriptions); line breaks become
/// spaces.
fn variant_docs<T: JsonSchema>() -> Vec<(String, String)> {
    let schema = schema_for!(T);
    match schema.get("oneOf") {
        Some(Value::Array(variants)) => variants
            .iter()
            .filter_map(|v| {
                let code = v.get("const")?.as_str()?.to_string();
                let doc = v.get("description").and_then(Value::as_str).unwrap_or("");
                Some((code, doc.replace('\n', " ")))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The description of `code` in `docs`, or empty (the tests refuse that).
fn doc_of(docs: &[(String, String)], code: &str) -> String {
    docs.iter()
        .find(|(c, _)| c == code)
        .map(|(_, d)| d.clone())
        .unwrap_or_default()
}

/// Every [`ErrorCode`] in declaration order with its doc comment, read from the
/// derived schema so the list cannot drift from the code. A code without a doc
/// comment gets an empty description (the tests refuse that).
pub fn error_code_docs() -> Vec<ErrorCodeDoc> {
    let docs = variant_docs::<ErrorCode>();
    ErrorCode::ALL
        .iter()
        .map(|c| ErrorCodeDoc {
            code: c.as_str().to_string(),
            description: doc_of(&docs, c.as_str()),
        })
        .collect()
}

/// Every [`RestErrorCode`] in declaration order with its HTTP status and doc comment.
pub fn rest_error_code_docs() -> Vec<RestErrorCodeDoc> {
    let docs = variant_docs::<RestErrorCode>();
    RestErrorCode::ALL
        .iter()
        .map(|c| RestErrorCodeDoc {
            code: c.as_str().to_string(),
            status: c.status(),
            description: doc_of(&docs, c.as_str()),
        })
        .collect()
}

/// Both lists, as written to `proto/error_codes.json`.
pub fn error_code_list() -> ErrorCodeList {
    ErrorCodeList {
        websocket: error_code_docs(),
        rest: rest_error_code_docs(),
    }
}
