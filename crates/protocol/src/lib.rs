//! Wire protocol between clients and the game server: JSON text frames over
//! WebSocket, published as JSON Schema in `proto/`.
//!
//! Every frame is an object `{"t": <type>, "d": <payload>, ...}`:
//! * client → server: [`ClientFrame`] = `{"t", "d"?, "id"?}`; the optional client-chosen
//!   `id` (≤ 64 chars) is echoed in the server's [`ServerMsg::Ack`] or
//!   [`ServerMsg::Error`] (`in_reply_to`).
//! * server → client: [`ServerFrame`] = `{"t", "d"?, "seq"?}`; every message about a
//!   match carries that match's sequence number `seq` (1, 2, 3 … without gaps), so a
//!   client that sees a gap sends [`ClientMsg::Resync`].
//!
//! Positions, plans and events are the engine's own types in the RULES.md §11 notation.
//!
//! Field names follow one vocabulary shared with the REST API and the replay
//! document (`docs/vocabulary.md`): a thing has the same name everywhere (`match_id`,
//! `bot`, `turns_played`, `standings` of [`engine::Standing`] lines), every Unix-ms
//! instant and every millisecond duration ends in `_ms`, other durations carry their
//! unit (`_seconds`), and REST's RFC 3339 instants end in `_at`.
//!
//! # Layout
//! * [`client`]: [`ClientMsg`] and its payloads.
//! * [`server`]: [`ServerMsg`] and its payloads.
//! * [`error`]: the closed list of WebSocket [`ErrorCode`]s.
//! * [`rest`]: the closed list of REST [`RestErrorCode`]s, each with its HTTP status.
//! * [`codec`]: total decoding of client frames ([`decode_client`]) and encoding.
//! * [`convert`]: payloads built from the engine's records ([`TurnStarted::from_turn_start`] …).
//! * [`schema`]: the published JSON Schemas and the error-code lists.
//! * [`text`]: the Unicode policy for names and chat text (NFC, refused characters).
//! * [`examples`]: realistic example frames and a whole example session.
//! * [`artifacts`]: every file of `proto/` (written by the `gen-proto` binary).

pub mod artifacts;
pub mod client;
pub mod codec;
pub mod convert;
pub mod error;
pub mod examples;
pub mod rest;
pub mod schema;
pub mod server;
pub mod text;

pub use client::*;
pub use codec::{
    decode_client, decode_client_limited, decode_server, encode_server, encode_server_to,
    DecodeError, MAX_FRAME_BYTES,
};
pub use error::ErrorCode;
pub use rest::RestErrorCode;
pub use server::*;

/// The protocol version this crate speaks (sent in `hello` and `welcome`).
///
/// Version 2 renamed fields to the one wire vocabulary (`docs/vocabulary.md`):
/// `match_deadline` → `match_deadline_ms`, `turn_deadline` → `turn_deadline_ms`,
/// `clocks.now` → `clocks.now_ms`, `turn_resolved.scores` → `turn_resolved.standings`.
///
/// Version 3 dropped `turn_resolved.position` (1.7 of its 3.6 KB, sent to every seat
/// and spectator each turn): the turn's `events` already say every change it made,
/// and a `snapshot` carries the whole position (issue 14).
///
/// An older client could not read these frames, so the server answers its `hello`
/// with `unsupported_version` and closes.
pub const PROTOCOL_VERSION: u32 = 3;
/// Oldest protocol version the server accepts.
pub const MIN_PROTOCOL_VERSION: u32 = 3;
/// Newest protocol version the server accepts.
pub const MAX_PROTOCOL_VERSION: u32 = 3;
