//! Contract: `proto/openapi.json` is exactly the document the server generates and
//! serves (`cargo run -p server --bin gen-openapi` rewrites it).

use std::path::Path;

#[test]
fn proto_openapi_json_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto/openapi.json");
    let on_disk = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert!(
        on_disk == server::openapi_document(),
        "proto/openapi.json is out of date: run `cargo run -p server --bin gen-openapi`"
    );
}

#[test]
fn the_document_is_openapi_3_1_with_every_error_shared() {
    let doc: serde_json::Value = serde_json::from_str(&server::openapi_document()).expect("JSON");
    assert_eq!(doc["openapi"], "3.1.0");
    // Every 4xx/5xx answer of every path uses the one error body schema.
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (status, resp) in op["responses"].as_object().unwrap() {
                if status.starts_with('4') || status.starts_with('5') {
                    assert_eq!(
                        resp["content"]["application/json"]["schema"]["$ref"],
                        "#/components/schemas/ErrorBody",
                        "{method} {path} {status}"
                    );
                }
            }
        }
    }
}
