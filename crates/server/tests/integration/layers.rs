//! The server's layers, checked on its source (issue 33): every `crate::` path in a
//! module names a module of its own layer or a lower one, so no import runs back up;
//! the local-or-remote decision is made only behind the handles of `crate::route`
//! (and in `cluster/` itself).
//!
//! The layers, lowest first (`docs/server-layout.md`):
//!
//! | layer | modules |
//! |---|---|
//! | 0 ground | `config`, `clock`, `metrics`, `error`, `wire` |
//! | 1 the write side of a connection | `ws/outbound.rs`, `ws/socket.rs` (and what `ws` re-exports of them) |
//! | 2 game | `game`, `room/`, `lobby`, `matchmaker`, `presence`, `accounts`, `passkeys` |
//! | 3 cluster | `cluster/` |
//! | 4 route | `route/` |
//! | 5 services | `services` |
//! | 6 socket tier and REST | `ws/` (the reader and the requests), `api/`, `auth` |
//! | 7 edge | `edge/` |
//! | 8 composition | `state`, `lib` |
//!
//! Code lines only, outside the items marked `#[cfg(test)]` (a unit test may build
//! the whole server): comments and doc comments may name any module.

use std::path::{Path, PathBuf};

/// The layer of each top-level module of `src/` (a file `x.rs` or a folder `x/`).
const LAYERS: &[(&str, u8)] = &[
    ("config", 0),
    ("clock", 0),
    ("metrics", 0),
    ("error", 0),
    ("wire", 0),
    ("game", 2),
    ("room", 2),
    ("lobby", 2),
    ("matchmaker", 2),
    ("presence", 2),
    ("accounts", 2),
    ("passkeys", 2),
    ("cluster", 3),
    ("route", 4),
    ("services", 5),
    ("ws", 6),
    ("api", 6),
    ("auth", 6),
    ("edge", 7),
    ("state", 8),
    ("lib", 8),
];

/// What `crate::ws` re-exports of its write side (layer 1): `ConnHandle`, `Frame`,
/// `CloseReason`, `encode`, `Batch`, and the `outbound` and `socket` modules.
const WS_WRITE_SIDE: &[&str] = &[
    "outbound",
    "socket",
    "ConnHandle",
    "Frame",
    "CloseReason",
    "encode",
    "Batch",
];

/// What the crate root re-exports, by the module that defines it.
const ROOT_REEXPORTS: &[(&str, &str)] = &[
    ("AppState", "state"),
    ("Config", "config"),
    ("Clock", "clock"),
    ("Cluster", "cluster"),
    ("ClusterSettings", "cluster"),
    ("CODE_ALPHABET", "lobby"),
    ("app", "lib"),
    ("run", "lib"),
    ("bootstrap_store", "lib"),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file of the library under `src/` (not `main.rs`, not `bin/`), with
/// its path relative to `src/`.
fn library_files() -> Vec<(String, PathBuf)> {
    let root = src();
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                if rel != "main.rs" && !rel.starts_with("bin/") {
                    out.push((rel, p));
                }
            }
        }
    }
    out.sort();
    out
}

/// The code lines of a file: comments dropped, and the item after each
/// `#[cfg(test)]` (the crate's unit-test modules) skipped to its closing brace.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut skipping = false;
    let mut opened = false;
    let mut depth = 0i32;
    for (i, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let code = code.split("//").next().unwrap_or("");
        if code.starts_with("#[cfg(test)]") {
            (skipping, opened, depth) = (true, false, 0);
            continue;
        }
        if skipping {
            depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            opened |= code.contains('{');
            // The item ends where its braces close, or at its `;` if it has none.
            skipping = if opened {
                depth > 0
            } else {
                !code.ends_with(';')
            };
            continue;
        }
        out.push((i + 1, code.to_string()));
    }
    out
}

fn layer_of_module(m: &str) -> Option<u8> {
    LAYERS.iter().find(|(n, _)| *n == m).map(|(_, l)| *l)
}

/// The layer of the file at `rel` (a path under `src/`).
fn layer_of_file(rel: &str) -> u8 {
    if rel == "ws/outbound.rs" || rel == "ws/socket.rs" {
        return 1;
    }
    let top = rel.split('/').next().unwrap().trim_end_matches(".rs");
    layer_of_module(top).unwrap_or_else(|| panic!("{rel}: its module has no layer in LAYERS"))
}

/// The layer of the module a path after `crate::` names (`room::RoomHandle`,
/// `ws::ConnHandle`, `AppState`, …).
fn layer_of_path(path: &str) -> Option<u8> {
    let mut parts = path.split("::").map(str::trim);
    let first = parts.next()?;
    if first == "ws" {
        let second = parts.next().unwrap_or("");
        return Some(if WS_WRITE_SIDE.contains(&second) {
            1
        } else {
            6
        });
    }
    if let Some(l) = layer_of_module(first) {
        return Some(l);
    }
    ROOT_REEXPORTS
        .iter()
        .find(|(item, _)| *item == first)
        .and_then(|(_, m)| layer_of_module(m))
}

/// Every path named after `crate::` on `line`, with `crate::a::{b, c}` as `a::b`
/// and `a::c`, and `crate::{a, b::c}` as `a` and `b::c`.
fn crate_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let head = rest[..end].trim_end_matches(':').to_string();
        if rest[end..].starts_with('{') && rest[..end].ends_with("::") || head.is_empty() {
            let close = rest.find('}').unwrap_or(rest.len());
            let open = rest.find('{').map_or(0, |o| o + 1);
            for item in rest[open..close].split(',') {
                let item = item.trim();
                if !item.is_empty() {
                    out.push(if head.is_empty() {
                        item.to_string()
                    } else {
                        format!("{head}::{item}")
                    });
                }
            }
        } else {
            out.push(head);
        }
    }
    out
}

/// `lines` with a `crate::…::{` list that spans several lines joined into its first
/// line (rustfmt breaks long `use` lists).
fn joined_uses(lines: Vec<(usize, String)>) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    for (n, line) in lines {
        if open {
            let last = out.last_mut().unwrap();
            last.1.push(' ');
            last.1.push_str(line.trim());
            open = !line.contains('}');
            continue;
        }
        open = line.contains("crate::") && line.trim_end().ends_with('{');
        out.push((n, line));
    }
    out
}

/// Issue 33.3: no import runs back up. Every `crate::` path of every library file
/// names a module of the file's own layer or a lower one (the table above); the
/// list of paths that point up is empty. Before this step it held, among others,
/// every game module's `crate::state::AppState`, `cluster → state`,
/// `route → state`, `ws → edge` and `config → passkeys`.
#[test]
fn every_import_points_down() {
    let mut up = Vec::new();
    for (rel, path) in library_files() {
        let own = layer_of_file(&rel);
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in joined_uses(code_lines(&text)) {
            for p in crate_paths(&line) {
                match layer_of_path(&p) {
                    Some(l) if l > own => up.push(format!(
                        "{rel}:{n}: crate::{p} (layer {l}) from layer {own}"
                    )),
                    Some(_) => {}
                    None => up.push(format!("{rel}:{n}: crate::{p}: no layer known")),
                }
            }
        }
    }
    assert_eq!(up, Vec::<String>::new());
}

/// The write side of a connection (layer 1) reaches nothing of `ws` above it
/// through `super::` (its only sibling paths are `outbound` and `socket`).
#[test]
fn the_write_side_does_not_reach_the_reader() {
    let mut up = Vec::new();
    for rel in ["ws/outbound.rs", "ws/socket.rs"] {
        let text = std::fs::read_to_string(src().join(rel)).unwrap();
        for (n, line) in code_lines(&text) {
            let mut rest = line.as_str();
            while let Some(i) = rest.find("super::") {
                rest = &rest[i + "super::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !["outbound", "socket", ""].contains(&name.as_str()) {
                    up.push(format!("{rel}:{n}: super::{name}"));
                }
            }
        }
    }
    assert_eq!(up, Vec::<String>::new());
}

/// Issue 33.1: outside `route/`, `cluster/`, `services.rs` and the composition, no
/// code asks `cluster()` (0 lines; the socket reader alone had 26 before). The game
/// side asks `Game::elsewhere()`, which the cluster provides at start-up.
#[test]
fn only_the_handles_ask_where_things_live() {
    let mut hits = Vec::new();
    for (rel, path) in library_files() {
        let allowed = rel.starts_with("route/")
            || rel.starts_with("cluster/")
            || ["services.rs", "state.rs", "lib.rs"].contains(&rel.as_str());
        if allowed {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in code_lines(&text) {
            if line.contains("cluster()") {
                hits.push(format!("{rel}:{n}: {line}"));
            }
        }
    }
    assert_eq!(hits, Vec::<String>::new());
}

/// The checker itself: paths are split as written, and a path that points up is
/// found (so the tests above can fail).
#[test]
fn the_checker_reads_paths_and_layers() {
    assert_eq!(
        crate_paths("use crate::ws::{CloseReason, ConnHandle};"),
        vec!["ws::CloseReason", "ws::ConnHandle"]
    );
    assert_eq!(
        crate_paths("let x = crate::room::start(&g); crate::state::AppState::new()"),
        vec!["room::start", "state::AppState::new"]
    );
    assert_eq!(
        crate_paths("use crate::{Config, ws::Frame};"),
        vec!["Config", "ws::Frame"]
    );
    assert_eq!(layer_of_path("ws::ConnHandle"), Some(1));
    assert_eq!(layer_of_path("ws::reader::Session"), Some(6));
    assert_eq!(layer_of_path("AppState"), Some(8));
    assert_eq!(layer_of_file("room/actor.rs"), 2);
    assert_eq!(layer_of_file("ws/outbound.rs"), 1);
    assert_eq!(layer_of_file("ws/reader.rs"), 6);
    assert_eq!(
        code_lines("use a;\n// crate::state\n#[cfg(test)]\nuse crate::state;").len(),
        1
    );
    let after_tests = "use a;\n#[cfg(test)]\nmod tests {\n    fn f() {\n        crate::state::X;\n    }\n}\ntype Up = crate::state::AppState;";
    let kept: Vec<usize> = code_lines(after_tests).iter().map(|(n, _)| *n).collect();
    assert_eq!(
        kept,
        vec![1, 8],
        "the test module is skipped, the code after it is not"
    );
    let joined = joined_uses(code_lines(
        "use crate::api::{\n    a,\n    b::C,\n};\nuse x;",
    ));
    assert_eq!(joined[0].1, "use crate::api::{ a, b::C, };");
    assert_eq!(crate_paths(&joined[0].1), vec!["api::a", "api::b::C"]);
    assert_eq!(joined.len(), 2);
}
