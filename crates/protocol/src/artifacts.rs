//! Every generated file of `proto/`: the JSON Schemas, the error-code lists, one
//! example frame per message type and the example session. The `gen-proto` binary
//! writes them; a test regenerates them and compares byte for byte. Output is
//! deterministic: objects built as JSON values have their keys sorted, everything is
//! pretty-printed (the session: one compact frame per line) and ends with a newline.

use crate::examples::{client_examples, server_examples, session};
use crate::schema::{error_code_list, published};
use serde::Serialize;
use serde_json::{Map, Value};

/// Files in `proto/` that this generator does not write: the hand-written README and
/// `openapi.json` (written by `cargo run -p server --bin gen-openapi`).
pub const HAND_WRITTEN: [&str; 2] = ["README.md", "openapi.json"];

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtoFile {
    /// Path relative to `proto/`, with `/` separators (`examples/client/hello.json`).
    pub path: String,
    /// The file's exact contents (UTF-8, ending in a newline).
    pub contents: String,
}

/// Every generated file, in a fixed order: `client.schema.json`,
/// `server.schema.json`, `position.schema.json`, `plan.schema.json`,
/// `event.schema.json`, `replay.schema.json`, `error_codes.json` (WebSocket and REST
/// codes, [`crate::schema::ErrorCodeList`]),
/// `examples/client/<t>.json` for each client type, `examples/server/<t>.json` for
/// each server type, and `examples/session.txt`.
pub fn files() -> Vec<ProtoFile> {
    let file = |path: String, contents: String| ProtoFile { path, contents };
    let mut out: Vec<ProtoFile> = published()
        .into_iter()
        .map(|(name, schema)| file(name.into(), pretty(&canonical(schema.to_value()))))
        .collect();
    out.push(file("error_codes.json".into(), pretty(&error_code_list())));
    for (t, frame) in client_examples() {
        out.push(file(format!("examples/client/{t}.json"), pretty(&frame)));
    }
    for (t, frame) in server_examples() {
        out.push(file(format!("examples/server/{t}.json"), pretty(&frame)));
    }
    let mut text: String = session().iter().map(|l| l.to_text() + "\n").collect();
    if text.is_empty() {
        text.push('\n');
    }
    out.push(file("examples/session.txt".into(), text));
    out
}

/// `value` as pretty-printed JSON (two-space indent) with a trailing newline.
pub fn pretty(value: &impl Serialize) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("generated values always serialize");
    s.push('\n');
    s
}

/// `v` with every object's keys in sorted order, whatever map type serde_json was
/// built with (its `preserve_order` feature keeps insertion order).
pub fn canonical(v: Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, canonical(v)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        other => other,
    }
}
