//! Total decoding of client frames and encoding of server frames.

use crate::client::{ClientFrame, ClientMsg};
use crate::error::ErrorCode;
use crate::server::{ServerFrame, ServerMsg};
use serde::Serialize;
use serde_json::{Map, Value};

/// Largest client frame the server accepts, in bytes (a plan is well under 1 KiB).
pub const MAX_FRAME_BYTES: usize = 4096;
/// Longest client-chosen `id`, in characters.
pub const MAX_ID_CHARS: usize = 64;

/// Why a client frame could not be decoded. `id` is the frame's `id` when it could be
/// read, so the error can be matched to the request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", code.as_str())]
pub struct DecodeError {
    /// `bad_json`, `unknown_type`, `too_large`, or `invalid_text` (a `chat` text that
    /// breaks the text policy of [`crate::text`]).
    pub code: ErrorCode,
    /// What was wrong.
    pub message: String,
    /// The frame's `id`, if readable.
    pub id: Option<String>,
}

/// A server frame borrowing its message, so encoding does not copy it.
#[derive(Serialize)]
struct FrameRef<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    seq: Option<u64>,
    #[serde(flatten)]
    msg: &'a ServerMsg,
}

/// Decodes one client frame. Total: any byte string gives a frame or a
/// [`DecodeError`] (`too_large` over [`MAX_FRAME_BYTES`]; `bad_json` for bytes that
/// are not a JSON object, a missing or non-string `t`, an `id` that is not a string of
/// at most 64 characters, or a payload `d` of the wrong shape; `unknown_type` for a `t`
/// that names no client message; `invalid_text` for a `chat` whose text breaks the text
/// policy of [`crate::text`]: a decoded `chat` carries its text NFC-normalized, as it
/// is relayed). `d` may be left out or be `null` for messages
/// without a payload. Keys other than `t`, `d` and `id` are ignored; when a key is
/// repeated the last one counts. The error carries the frame's `id` whenever the
/// frame is an object with a valid `id`. Never panics.
pub fn decode_client(bytes: &[u8]) -> Result<ClientFrame, DecodeError> {
    decode_client_limited(bytes, MAX_FRAME_BYTES)
}

/// [`decode_client`] with another frame limit, `max_bytes` (a server configured with a
/// larger or smaller frame limit). Total, like [`decode_client`].
pub fn decode_client_limited(bytes: &[u8], max_bytes: usize) -> Result<ClientFrame, DecodeError> {
    let err = |code, message: String, id| DecodeError { code, message, id };
    if bytes.len() > max_bytes {
        return Err(err(
            ErrorCode::TooLarge,
            format!("frame of {} bytes, at most {max_bytes}", bytes.len()),
            None,
        ));
    }
    // A `Map` (not a derived struct) so that a JSON array is refused: serde's derived
    // structs also accept `["ping"]`.
    let mut outer: Map<String, Value> = serde_json::from_slice(bytes).map_err(|e| {
        err(
            ErrorCode::BadJson,
            format!("a frame is one JSON object: {e}"),
            None,
        )
    })?;
    let id = match outer.remove("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() <= MAX_ID_CHARS => Some(s),
        Some(_) => {
            return Err(err(
                ErrorCode::BadJson,
                format!("id must be a string of at most {MAX_ID_CHARS} characters"),
                None,
            ))
        }
    };
    let t = match outer.remove("t") {
        Some(Value::String(t)) => t,
        Some(_) => {
            return Err(err(
                ErrorCode::BadJson,
                "message type \"t\" must be a string".into(),
                id,
            ))
        }
        None => {
            return Err(err(
                ErrorCode::BadJson,
                "missing message type \"t\"".into(),
                id,
            ))
        }
    };
    if !ClientMsg::TYPES.contains(&t.as_str()) {
        return Err(err(
            ErrorCode::UnknownType,
            format!("unknown message type {t:?}"),
            id,
        ));
    }
    // Re-assemble `{"t", "d"}` and let serde pick the variant and check the payload.
    let mut inner = Map::new();
    inner.insert("t".into(), Value::String(t.clone()));
    if let Some(d) = outer.remove("d").filter(|d| !d.is_null()) {
        inner.insert("d".into(), d);
    }
    let mut msg: ClientMsg = serde_json::from_value(Value::Object(inner)).map_err(|e| {
        err(
            ErrorCode::BadJson,
            format!("bad {t} payload: {e}"),
            id.clone(),
        )
    })?;
    // The schema's text rules (`Chat::text`), checked where the payload is read.
    if let ClientMsg::Chat(c) = &mut msg {
        match crate::text::chat(&c.text) {
            Ok(normalized) => c.text = normalized,
            Err(e) => return Err(err(ErrorCode::InvalidText, format!("chat text: {e}"), id)),
        }
    }
    Ok(ClientFrame { id, msg })
}

/// Encodes a server frame as JSON text.
pub fn encode_server(seq: Option<u64>, msg: &ServerMsg) -> String {
    serde_json::to_string(&FrameRef { seq, msg }).expect("server frames always serialize")
}

/// Encodes a server frame as JSON text (UTF-8) appended to `out`: the same bytes as
/// [`encode_server`], into a buffer the caller reuses (a server encoding thousands of
/// frames a second need not grow a fresh one for each).
pub fn encode_server_to(seq: Option<u64>, msg: &ServerMsg, out: &mut Vec<u8>) {
    serde_json::to_writer(&mut *out, &FrameRef { seq, msg })
        .expect("server frames always serialize");
}

/// Decodes a server frame (for clients and tests).
pub fn decode_server(text: &str) -> Result<ServerFrame, serde_json::Error> {
    serde_json::from_str(text)
}
