//! Decoding server frames without serde's buffering: the outer `{"seq","t","d"}` is
//! read first with `d` kept as raw JSON, then `d` is parsed straight into the payload
//! type that `t` names. [`Decode::Full`] gives exactly what
//! [`protocol::decode_server`] gives (the generic decoder of the adjacently tagged,
//! flattened enum buffers every frame into an intermediate tree first).

use protocol::{ServerFrame, ServerMsg};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

#[derive(Deserialize)]
struct Outer<'a> {
    #[serde(default)]
    seq: Option<u64>,
    #[serde(borrow)]
    t: Cow<'a, str>,
    #[serde(default, borrow)]
    d: Option<&'a RawValue>,
}

/// `turn_resolved` without its bulk (`events`), for [`Decode::Lite`].
#[derive(Deserialize)]
struct TurnResolvedLite {
    match_id: uuid::Uuid,
    turn_number: u32,
    seat: engine::Seat,
    kind: engine::TurnKind,
    plan: engine::Plan,
    standings: Vec<engine::Standing>,
}

/// How much of each frame to decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Decode {
    /// Everything, as [`protocol::decode_server`].
    #[default]
    Full,
    /// Everything except the bulk of `turn_resolved`: its `events` come out empty.
    /// For load generation, where clients re-play plans with the engine instead
    /// ([`crate::tracker::MatchTracker::set_verify_events`]): decoding the events
    /// (and, before protocol version 3, the position) was the load generator's
    /// largest cost.
    Lite,
}

/// Decodes one server frame (JSON text), as [`decode_frame_with`] in [`Decode::Full`].
///
/// Errors: the `serde_json` error for text that is not a server frame (unknown `t`,
/// a payload of the wrong shape, a missing payload).
pub fn decode_frame(text: &str) -> Result<ServerFrame, serde_json::Error> {
    decode_frame_with(text, Decode::Full)
}

fn payload<'a, T: Deserialize<'a>>(d: Option<&'a RawValue>) -> Result<T, serde_json::Error> {
    match d {
        Some(d) => serde_json::from_str(d.get()),
        None => Err(serde::de::Error::missing_field("d")),
    }
}

fn lite_turn_resolved(d: Option<&RawValue>) -> Result<ServerMsg, serde_json::Error> {
    let l: TurnResolvedLite = payload(d)?;
    Ok(ServerMsg::TurnResolved(protocol::TurnResolved {
        match_id: l.match_id,
        turn_number: l.turn_number,
        seat: l.seat,
        kind: l.kind,
        plan: l.plan,
        events: Vec::new(),
        standings: l.standings,
    }))
}

/// Decodes one server frame (JSON text) in the given mode.
///
/// Errors: as [`decode_frame`].
pub fn decode_frame_with(text: &str, mode: Decode) -> Result<ServerFrame, serde_json::Error> {
    let outer: Outer = serde_json::from_str(text)?;
    let d = outer.d;
    let msg = match outer.t.as_ref() {
        "turn_started" => ServerMsg::TurnStarted(payload(d)?),
        "turn_resolved" if mode == Decode::Lite => lite_turn_resolved(d)?,
        "turn_resolved" => ServerMsg::TurnResolved(payload(d)?),
        "ack" => ServerMsg::Ack(payload(d)?),
        "error" => ServerMsg::Error(payload(d)?),
        "match_started" => ServerMsg::MatchStarted(payload(d)?),
        "match_ended" => ServerMsg::MatchEnded(payload(d)?),
        "snapshot" => ServerMsg::Snapshot(payload(d)?),
        "welcome" => ServerMsg::Welcome(payload(d)?),
        "queue_status" => ServerMsg::QueueStatus(payload(d)?),
        "lobby_state" => ServerMsg::LobbyState(payload(d)?),
        "chat" => ServerMsg::Chat(payload(d)?),
        // Unit messages and anything unknown: the generic decoder decides.
        _ => return protocol::decode_server(text),
    };
    Ok(ServerFrame {
        seq: outer.seq,
        msg,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every server example of the protocol docs decodes to the same frame as with
    /// the generic decoder, with and without a `seq`.
    #[test]
    fn same_frames_as_the_generic_decoder_for_every_example() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto/examples/server");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let generic = protocol::decode_server(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(decode_frame(&text).unwrap(), generic, "{}", path.display());
            let resent = protocol::encode_server(Some(7), &generic.msg);
            assert_eq!(
                decode_frame(&resent).unwrap(),
                protocol::decode_server(&resent).unwrap(),
                "{}",
                path.display()
            );
            n += 1;
        }
        assert_eq!(
            n,
            ServerMsg::TYPES.len(),
            "one example per server message type"
        );
    }

    /// Lite decoding keeps every field of `turn_resolved` but its bulk, and every other
    /// message whole.
    #[test]
    fn lite_keeps_all_but_the_bulk_of_turn_resolved() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto/examples/server");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let full = decode_frame(&text).unwrap();
            let lite = decode_frame_with(&text, Decode::Lite).unwrap();
            assert_eq!(full.seq, lite.seq);
            match (full.msg, lite.msg) {
                (ServerMsg::TurnResolved(mut f), ServerMsg::TurnResolved(l)) => {
                    assert!(!f.events.is_empty(), "the example has events");
                    assert!(l.events.is_empty());
                    f.events.clear();
                    assert_eq!(f, l);
                }
                (f, l) => assert_eq!(f, l),
            }
        }
    }

    /// Malformed frames are errors, as with the generic decoder.
    #[test]
    fn malformed_frames_are_errors() {
        for bad in [
            "",
            "[]",
            r#"{"d":{}}"#,
            r#"{"t":"nope"}"#,
            r#"{"t":"ack"}"#,
            r#"{"t":"ack","d":{"id":5}}"#,
            r#"{"t":"turn_started","d":{}}"#,
            r#"{"t":"turn_resolved","d":{"match_id":"x"}}"#,
        ] {
            assert!(decode_frame(bad).is_err(), "{bad}");
            assert!(decode_frame_with(bad, Decode::Lite).is_err(), "{bad}");
            assert!(protocol::decode_server(bad).is_err(), "{bad}");
        }
    }
}
