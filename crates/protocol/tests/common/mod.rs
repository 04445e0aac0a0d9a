//! Shared helpers of the protocol tests: where `proto/` is and its schemas.

#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The workspace's `proto/` directory.
pub(crate) fn proto_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto")
}

/// Reads `proto/<rel>` as text.
pub(crate) fn read(rel: &str) -> String {
    let path = proto_dir().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Parses `proto/<rel>` as JSON.
pub(crate) fn read_json(rel: &str) -> Value {
    serde_json::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel} is not JSON: {e}"))
}

/// A validator for the schema file `proto/<name>` with `format` checks on (uuid …).
pub(crate) fn validator(name: &str) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(&read_json(name))
        .unwrap_or_else(|e| panic!("{name} is not a valid JSON Schema: {e}"))
}

/// Every validation error of `instance`, as `path: message` lines (empty when valid).
pub(crate) fn errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect()
}
