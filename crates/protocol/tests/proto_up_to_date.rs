//! Contract: `proto/` holds exactly what `gen-proto` generates from the types (plus the
//! hand-written README), byte for byte.

mod common;

use protocol::artifacts::{files, HAND_WRITTEN};
use std::collections::BTreeSet;
use std::path::Path;

fn list(dir: &Path, base: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("proto/ is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            list(&path, base, out);
        } else {
            let rel = path.strip_prefix(base).expect("under proto/");
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn proto_dir_is_up_to_date() {
    let dir = common::proto_dir();
    let generated = files();
    let mut problems = Vec::new();
    for f in &generated {
        match std::fs::read(dir.join(&f.path)) {
            Ok(bytes) if bytes == f.contents.as_bytes() => {}
            Ok(_) => problems.push(format!("{} differs from the generated text", f.path)),
            Err(e) => problems.push(format!("{} cannot be read: {e}", f.path)),
        }
    }
    let known: BTreeSet<&str> = generated
        .iter()
        .map(|f| f.path.as_str())
        .chain(HAND_WRITTEN)
        .collect();
    let mut present = Vec::new();
    if dir.is_dir() {
        list(&dir, &dir, &mut present);
    }
    for rel in &present {
        if !known.contains(rel.as_str()) {
            problems.push(format!("{rel} is not generated any more"));
        }
    }
    assert!(
        problems.is_empty(),
        "proto/ is out of date: run `cargo run -p protocol --bin gen-proto`\n{}",
        problems.join("\n")
    );
}

#[test]
fn generated_file_set_is_complete() {
    // 6 schemas + error_codes.json + 19 client + 19 server examples + session.txt.
    let paths: Vec<String> = files().into_iter().map(|f| f.path).collect();
    assert_eq!(paths.len(), 6 + 1 + 19 + 19 + 1);
    for t in protocol::ClientMsg::TYPES {
        assert!(paths.contains(&format!("examples/client/{t}.json")), "{t}");
    }
    for t in protocol::ServerMsg::TYPES {
        assert!(paths.contains(&format!("examples/server/{t}.json")), "{t}");
    }
    for f in files() {
        assert!(f.contents.ends_with('\n'), "{} ends with a newline", f.path);
    }
}
