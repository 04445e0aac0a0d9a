//! The server's layers, checked on its source (issue 33): the local-or-remote
//! decision is made only behind the handles of `crate::route` (and in `cluster/`
//! itself), so the socket tier, the game modules and REST ask no topology
//! question; the game modules reach neither REST types nor the edge.
//!
//! Code lines only: comments and doc comments may name any module.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/` of the server whose path (relative to `src/`)
/// starts with one of `prefixes`.
fn sources(prefixes: &[&str]) -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p
                    .strip_prefix(&src)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                if prefixes.iter().any(|pre| rel.starts_with(pre)) {
                    out.push(p);
                }
            }
        }
    }
    assert!(!out.is_empty(), "no sources under {prefixes:?}");
    out
}

/// The code lines (not comments) of `files` that contain `needle`, as
/// `file:line: text`.
fn code_lines_with(files: &[PathBuf], needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if code.contains(needle) {
                hits.push(format!("{}:{}: {}", f.display(), i + 1, code));
            }
        }
    }
    hits
}

/// The socket tier, rooms, lobbies, the matchmaker, presence, sign-in and REST.
const ASKS_HANDLES: &[&str] = &[
    "ws/",
    "room/",
    "lobby.rs",
    "matchmaker.rs",
    "presence.rs",
    "auth.rs",
    "api/",
];

/// Issue 33.1: none of them asks `state.cluster()`; they use `state.rooms()`,
/// `state.queue()`, `state.lobby_dir()` and `state.sessions()` (0 lines; the
/// socket reader alone had 26 before).
#[test]
fn only_the_handles_ask_where_things_live() {
    let hits = code_lines_with(&sources(ASKS_HANDLES), "cluster()");
    assert_eq!(hits, Vec::<String>::new());
}

/// Issue 33.1/33.3: none of them imports `crate::cluster` (0 lines).
#[test]
fn no_cluster_import_outside_the_handles() {
    let hits = code_lines_with(&sources(ASKS_HANDLES), "crate::cluster");
    assert_eq!(hits, Vec::<String>::new());
}

/// Issue 33.3: the game modules (rooms, lobbies, matchmaker, presence) import
/// neither the REST types (`crate::api`) nor the edge (`crate::edge`), and the REST
/// error type does not import the edge (0 lines each).
#[test]
fn the_game_reaches_neither_rest_nor_the_edge() {
    let game = sources(&["room/", "lobby.rs", "matchmaker.rs", "presence.rs"]);
    let mut hits = code_lines_with(&game, "crate::api");
    hits.extend(code_lines_with(&game, "crate::edge"));
    hits.extend(code_lines_with(&sources(&["error.rs"]), "crate::edge"));
    assert_eq!(hits, Vec::<String>::new());
}
