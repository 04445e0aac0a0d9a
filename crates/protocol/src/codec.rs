//! Total decoding of client frames and encoding of server frames.

use crate::client::{ClientFrame, ClientMsg};
use crate::error::ErrorCode;
use crate::server::{ServerFrame, ServerMsg};
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
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
/// at most 64 characters, or a payload `d` of the wrong shape, an array where the
/// schema has an object included; `unknown_type` for a `t`
/// that names no client message; `invalid_text` for a `chat` whose text breaks the text
/// policy of [`crate::text`]: a decoded `chat` carries its text NFC-normalized, as it
/// is relayed; `invalid_entropy` for a `contribute_entropy` whose entropy is not hex
/// of 16..=64 bytes). `d` may be left out or be `null` for messages
/// without a payload. Keys other than `t`, `d` and `id` are ignored; when a key is
/// repeated the last one counts. The error carries the frame's `id` whenever the
/// frame is an object with a valid `id`. Never panics.
pub fn decode_client(bytes: &[u8]) -> Result<ClientFrame, DecodeError> {
    decode_client_limited(bytes, MAX_FRAME_BYTES)
}

/// [`decode_client`] with another frame limit, `max_bytes` (a server configured with a
/// larger or smaller frame limit). Total, like [`decode_client`].
pub fn decode_client_limited(bytes: &[u8], max_bytes: usize) -> Result<ClientFrame, DecodeError> {
    if bytes.len() > max_bytes {
        return Err(DecodeError {
            code: ErrorCode::TooLarge,
            message: format!("frame of {} bytes, at most {max_bytes}", bytes.len()),
            id: None,
        });
    }
    match decode_plain(bytes) {
        Some(frame) => {
            debug_assert_eq!(
                Ok(&frame),
                decode_general(bytes).as_ref(),
                "the direct decoding of {:?} differs from the general one",
                String::from_utf8_lossy(bytes)
            );
            Ok(frame)
        }
        None => decode_general(bytes),
    }
}

/// The head of a plain frame: an object with no keys but `t`, `id` and `d`, each
/// at most once, whose `t` and `id` (when present and not `null`) are strings
/// without escapes. Anything else fails to deserialize, and the frame goes the
/// general way. (An ignored key's value would only be skipped, and serde_json skips
/// a lone surrogate escape or a number out of range that the general decoding
/// refuses; every value of a plain frame is read by a type that refuses them.)
struct PlainHead<'a> {
    t: Option<&'a str>,
    id: Option<&'a str>,
}

impl<'de> Deserialize<'de> for PlainHead<'de> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct HeadVisitor;
        impl<'de> Visitor<'de> for HeadVisitor {
            type Value = PlainHead<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            // Only `visit_map`: an array is not a frame.
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut t, mut id) = (None, None);
                let mut d = false;
                while let Some(key) = map.next_key::<&'de str>()? {
                    let slot = match key {
                        "t" => &mut t,
                        "id" => &mut id,
                        // Read with its type by the message's own decoder.
                        "d" if !d => {
                            d = true;
                            map.next_value::<PayloadShape>()?;
                            continue;
                        }
                        _ => return Err(de::Error::custom("not a plain frame")),
                    };
                    if slot.is_some() {
                        return Err(de::Error::custom("repeated key"));
                    }
                    *slot = Some(map.next_value::<Option<&'de str>>()?);
                }
                Ok(PlainHead {
                    t: t.flatten(),
                    id: id.flatten(),
                })
            }
        }
        de.deserialize_map(HeadVisitor)
    }
}

/// The shape the schema gives a payload `d`: `null`, or an object whose `plan` (if it
/// has one) is an object. serde's derived structs also accept a JSON array (their
/// fields by position), which the schema does not allow; [`PayloadShape`] and
/// [`payload_shape_error`] refuse it on the direct and the general way alike.
struct PayloadShape;

impl<'de> Deserialize<'de> for PayloadShape {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct ShapeVisitor;
        impl<'de> Visitor<'de> for ShapeVisitor {
            type Value = PayloadShape;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object or null")
            }
            fn visit_unit<E: de::Error>(self) -> Result<PayloadShape, E> {
                Ok(PayloadShape)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PayloadShape, A::Error> {
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "plan" {
                        map.next_value::<ObjectOnly>()?;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(PayloadShape)
            }
        }
        de.deserialize_any(ShapeVisitor)
    }
}

/// Any JSON object, its contents skipped; anything else is an error.
struct ObjectOnly;

impl<'de> Deserialize<'de> for ObjectOnly {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct ObjectVisitor;
        impl<'de> Visitor<'de> for ObjectVisitor {
            type Value = ObjectOnly;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ObjectOnly, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ObjectOnly)
            }
        }
        de.deserialize_any(ObjectVisitor)
    }
}

/// Why payload `d` (not `null`) does not have the schema's shape ([`PayloadShape`]).
fn payload_shape_error(d: &Value) -> Option<&'static str> {
    match d {
        Value::Object(o) if o.get("plan").is_some_and(|p| !p.is_object()) => {
            Some("plan must be a JSON object")
        }
        Value::Object(_) => None,
        _ => Some("d must be a JSON object"),
    }
}

/// The direct decoding of the common frame (issue 14: CPU per turn): the head read
/// without building a [`Value`] of the frame, then the message deserialized from
/// the same text by its derived `{"t", "d"}` decoder (every payload type refuses
/// unknown fields, so each of its values is read by a type). `None` for anything
/// but UTF-8 text of a valid frame whose head is plain ([`PlainHead`]), with a
/// known `t`, an `id` of at most 64 characters and a payload of the right shape:
/// [`decode_general`] then gives the answer, error or frame. Where this gives a
/// frame, it is the one [`decode_general`] gives (checked in debug builds: every
/// test and fuzz run).
fn decode_plain(bytes: &[u8]) -> Option<ClientFrame> {
    // serde_json checks UTF-8 only in the strings it reads, not in those it skips.
    let text = std::str::from_utf8(bytes).ok()?;
    let head: PlainHead = serde_json::from_str(text).ok()?;
    let t = head.t?;
    if !ClientMsg::TYPES.contains(&t) || head.id.is_some_and(|id| id.chars().count() > MAX_ID_CHARS)
    {
        return None;
    }
    let mut msg: ClientMsg = serde_json::from_str(text).ok()?;
    if let ClientMsg::Chat(c) = &mut msg {
        c.text = crate::text::chat(&c.text).ok()?;
    }
    if let ClientMsg::ContributeEntropy(c) = &msg {
        engine::Entropy::from_player_hex(&c.entropy).ok()?;
    }
    Some(ClientFrame {
        id: head.id.map(str::to_owned),
        msg,
    })
}

/// The general decoding of [`decode_client_limited`], for a frame within the size
/// limit: through a [`Map`], so that every error names what is wrong and carries the
/// `id` whenever it is readable, and a repeated key counts once, the last.
fn decode_general(bytes: &[u8]) -> Result<ClientFrame, DecodeError> {
    let err = |code, message: String, id| DecodeError { code, message, id };
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
        if let Some(why) = payload_shape_error(&d) {
            return Err(err(
                ErrorCode::BadJson,
                format!("bad {t} payload: {why}"),
                id,
            ));
        }
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
    // The schema's entropy rule (`ContributeEntropy::entropy`).
    if let ClientMsg::ContributeEntropy(c) = &msg {
        if let Err(e) = engine::Entropy::from_player_hex(&c.entropy) {
            return Err(err(ErrorCode::InvalidEntropy, e.to_string(), id));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every client example of `proto/examples/client` takes the direct way (issue
    /// 14): `decode_plain` gives it, the same frame as the general decoding.
    #[test]
    fn every_client_example_decodes_directly() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../proto/examples/client");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let direct = decode_plain(&bytes);
            assert!(direct.is_some(), "{} went the general way", path.display());
            assert_eq!(direct.as_ref(), decode_general(&bytes).as_ref().ok());
            n += 1;
        }
        assert_eq!(n, ClientMsg::TYPES.len(), "one example per client message");
    }

    /// What the direct way leaves to the general one, which alone names errors and
    /// lets the last of repeated keys count.
    #[test]
    fn unusual_frames_go_the_general_way() {
        for (text, general) in [
            (r#"["ping"]"#, Err(ErrorCode::BadJson)),
            (r#"{"t":"ping","t":"pass"}"#, Err(ErrorCode::BadJson)),
            (r#"{"t":"pass","t":"ping"}"#, Ok(ClientMsg::Ping)),
            (r#"{"t":"p\u0069ng"}"#, Ok(ClientMsg::Ping)),
            (r#"{"t":"ping","id":7}"#, Err(ErrorCode::BadJson)),
            (r#"{"t":"pong"}"#, Err(ErrorCode::UnknownType)),
            (r#"{"t":"leave_match","d":null}"#, Err(ErrorCode::BadJson)),
            (r#"{"id":"a","d":null}"#, Err(ErrorCode::BadJson)),
            (r#"{"t":"ping","d":null,"d":null}"#, Ok(ClientMsg::Ping)),
            // Keys other than `t`, `d` and `id` are ignored, but only the general
            // way reads their values: a lone surrogate or a number out of range
            // there is not JSON it takes.
            (r#"{"t":"ping","x":[1,{"y":"a"}]}"#, Ok(ClientMsg::Ping)),
            (r#"{"t":"ping","x":"\ud800"}"#, Err(ErrorCode::BadJson)),
            (r#"{"t":"ping","x":1e400}"#, Err(ErrorCode::BadJson)),
        ] {
            assert_eq!(decode_plain(text.as_bytes()), None, "{text}");
            let got = decode_general(text.as_bytes())
                .map(|f| f.msg)
                .map_err(|e| e.code);
            assert_eq!(got, general, "{text}");
        }
        // Invalid UTF-8 in a value nobody reads: still not a frame.
        let bytes = b"{\"t\":\"ping\",\"d\":null,\"x\":\"\xcc\"}";
        assert_eq!(decode_plain(bytes), None);
        assert_eq!(
            decode_general(bytes).map_err(|e| e.code),
            Err(ErrorCode::BadJson)
        );
        // Payloads are objects (proto/README.md §3): serde's derived structs would
        // also take an array (fields by position), so both ways refuse one, at the
        // top of `d` and as a `plan`, naming the frame's id.
        let m = "8d3e2f4a-1b2c-4d5e-8f90-123456789abc";
        for text in [
            format!(r#"{{"t":"pass","id":"q","d":["{m}",3]}}"#),
            format!(r#"{{"t":"resync","id":"q","d":["{m}",0]}}"#),
            format!(
                r#"{{"t":"submit_turn","id":"q","d":{{"match_id":"{m}","turn_number":1,"plan":[]}}}}"#
            ),
            format!(
                r#"{{"t":"submit_turn","id":"q","d":{{"match_id":"{m}","turn_number":1,"plan":["forward",["G1"],{{"G1":[3]}},null,false]}}}}"#
            ),
            format!(r#"{{"t":"submit_turn","id":"q","d":["{m}",1,{{}}]}}"#),
            r#"{"t":"ping","id":"q","d":[]}"#.to_string(),
        ] {
            assert_eq!(decode_plain(text.as_bytes()), None, "{text}");
            let e = decode_general(text.as_bytes()).unwrap_err();
            assert_eq!(
                (e.code, e.id.as_deref()),
                (ErrorCode::BadJson, Some("q")),
                "{text}"
            );
        }
        // The same payloads as objects decode, the direct way.
        for text in [
            format!(r#"{{"t":"pass","d":{{"match_id":"{m}","turn_number":3}}}}"#),
            format!(
                r#"{{"t":"submit_turn","d":{{"match_id":"{m}","turn_number":1,"plan":{{}}}}}}"#
            ),
            format!(
                r#"{{"t":"submit_turn","d":{{"match_id":"{m}","turn_number":1,"pl\u0061n":{{}}}}}}"#
            ),
        ] {
            assert!(decode_plain(text.as_bytes()).is_some(), "{text}");
        }
        // A `null` payload or id is plain.
        let f = decode_plain(br#"{"d":null,"t":"ping","id":null}"#);
        assert_eq!(
            f,
            Some(ClientFrame {
                id: None,
                msg: ClientMsg::Ping
            })
        );
    }
}
