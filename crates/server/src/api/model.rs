//! The REST answers about matches and players, built from the store's rows.
//!
//! The store keeps plain row types ([`store::MatchSummary`], [`store::PlayerProfile`]
//! …); these are the wire shapes, named by the one wire vocabulary
//! (`docs/vocabulary.md`) the WebSocket protocol uses too. Where REST and WebSocket
//! send the same thing they send the same type: a seat is a [`SeatInfo`]
//! (`seat`, `player_id`, `name`, `bot`, `left`), a standings line a
//! [`FinalStanding`] (the engine's [`engine::Standing`] plus the rating change), a
//! rating a [`Rating`]. Those protocol types are documented in the OpenAPI document
//! from their JSON Schema ([`crate::api::openapi::shared_schemas`]).

pub(crate) use crate::wire::{level, wire_change, wire_rating};
use chrono::{DateTime, Utc};
use engine::{EndReason, Mode, Replay, Seat};
use protocol::{FinalStanding, Rating, SeatInfo};
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ArrayBuilder, SchemaType, Type};
use utoipa::openapi::{Ref, RefOr, Schema};
use utoipa::ToSchema;
use uuid::Uuid;

/// Whether a match is still being played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum MatchStatus {
    /// Started and not yet ended.
    Running,
    /// Ended; seed and standings are recorded.
    Ended,
}

impl From<store::MatchStatus> for MatchStatus {
    fn from(s: store::MatchStatus) -> MatchStatus {
        match s {
            store::MatchStatus::Running => MatchStatus::Running,
            store::MatchStatus::Ended => MatchStatus::Ended,
        }
    }
}

/// A stored match without its turn log: the answer of
/// `GET /api/v1/matches/{match_id}` and each line of the history and live lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct MatchSummary {
    /// The match (the `match_id` of `match_started`).
    pub match_id: Uuid,
    /// `journey` or `clash` (rule 1.4).
    #[schema(value_type = String, example = "journey")]
    pub mode: Mode,
    /// running or ended.
    pub status: MatchStatus,
    /// When the match was stored (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// When the match started (RFC 3339, UTC).
    pub started_at: DateTime<Utc>,
    /// When the match ended (RFC 3339, UTC); `null` while it runs.
    pub ended_at: Option<DateTime<Utc>>,
    /// Why it ended, `all_finished`, `clock` or `abandoned` (rule 9.1; the `reason` of
    /// `match_ended`); `null` while it runs.
    #[schema(value_type = Option<String>, example = "clock")]
    pub end_reason: Option<EndReason>,
    /// SHA-256 of the seed, 64 hex digits (RULES.md §10).
    pub dice_commitment: String,
    /// The four seats in turn order (green, red, blue, yellow), as in `match_started`.
    #[schema(schema_with = seat_list)]
    pub seats: Vec<SeatInfo>,
    /// Turns stored so far.
    pub turns_played: u32,
    /// Final standings, best first (rule 9.2; equal places keep seat order), with the
    /// rating changes: the same lines as `match_ended.standings`. `null` while the
    /// match runs.
    #[schema(schema_with = standings_or_null)]
    pub standings: Option<Vec<FinalStanding>>,
}

impl From<store::MatchSummary> for MatchSummary {
    fn from(m: store::MatchSummary) -> MatchSummary {
        let standings: Option<Vec<FinalStanding>> = m
            .seats
            .iter()
            .map(|s| {
                s.standing.clone().map(|standing| FinalStanding {
                    standing,
                    rating: s.rating.map(wire_change),
                })
            })
            .collect();
        let standings = standings.map(|mut v| {
            v.sort_by_key(|s| s.place); // stable: equal places stay in seat order
            v
        });
        MatchSummary {
            match_id: m.id,
            mode: m.mode,
            status: m.status.into(),
            created_at: m.created_at,
            started_at: m.started_at,
            ended_at: m.ended_at,
            end_reason: m.end_reason,
            dice_commitment: m.dice_commitment,
            seats: m
                .seats
                .into_iter()
                .map(|s| {
                    let level = level(s.bot_level.as_deref());
                    seat_info(s.seat, s.player_id, s.name, s.is_bot, s.left, level)
                })
                .collect(),
            turns_played: m.turn_count,
            standings,
        }
    }
}

/// A seat as the wire shows it: `bot` is true for a bot and for a seat whose player
/// left (a bot plays it from then on), as in `match_started`; `bot_level` the stored
/// level of a seated bot.
fn seat_info(
    seat: Seat,
    player_id: Option<Uuid>,
    name: String,
    bot: bool,
    left: bool,
    bot_level: Option<protocol::BotLevel>,
) -> SeatInfo {
    SeatInfo {
        seat,
        player_id,
        name,
        bot: bot || left,
        left,
        bot_level,
    }
}

/// `GET /api/v1/matches/{match_id}/replay` answer: the engine's [`Replay`]
/// (flattened: `rules`, `mode`, `dice_commitment`, `seed`, `dice_scheme`,
/// `contributions`, `turns`, `left`, `end`) plus
/// the match id and its seats. It reads as a plain [`Replay`] (extra fields are
/// ignored), so `engine::replay::verify` checks it; a document of a server before
/// protocol 2 (seats with `is_bot`) still reads as this type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MatchReplay {
    /// The match.
    pub match_id: Uuid,
    /// The four seats in turn order, as in `match_started`.
    pub seats: Vec<SeatInfo>,
    /// The replay: the seed only once the match has ended, turns in order, and the
    /// end once it has ended.
    #[serde(flatten)]
    pub replay: Replay,
}

impl From<store::ReplayDoc> for MatchReplay {
    fn from(d: store::ReplayDoc) -> MatchReplay {
        let seats = d
            .seats
            .into_iter()
            .map(|s| {
                let left = d.replay.left.contains(&s.seat);
                let level = level(s.bot_level.as_deref());
                seat_info(s.seat, s.player_id, s.name, s.is_bot, left, level)
            })
            .collect();
        MatchReplay {
            match_id: d.match_id,
            seats,
            replay: d.replay,
        }
    }
}

/// One line of the rated leaderboard of a mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct RatedRow {
    /// The player.
    pub player_id: Uuid,
    /// The player's name.
    pub name: String,
    /// The player's current rating in the mode (skill points; ranked by
    /// `rating.conservative` = μ − 3σ).
    #[schema(schema_with = rating_ref)]
    pub rating: Rating,
    /// Rated matches of the mode played (matches with two or more human players).
    pub rated_matches: i64,
    /// Ended matches of the mode finished in place 1 (shared first places count).
    pub wins: i64,
}

impl From<store::RatedRow> for RatedRow {
    fn from(r: store::RatedRow) -> RatedRow {
        RatedRow {
            player_id: r.player_id,
            name: r.name,
            rating: wire_rating(r.rating),
            rated_matches: r.rated_matches,
            wins: r.wins,
        }
    }
}

/// A player's figures in one mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct ModeStats {
    /// `journey` or `clash` (rule 1.4).
    #[schema(value_type = String, example = "journey")]
    pub mode: Mode,
    /// The current rating in the mode; the initial one (μ 25, σ 25/3, conservative
    /// 0) when the player has no rated match of it.
    #[schema(schema_with = rating_ref)]
    pub rating: Rating,
    /// Rated matches of the mode played.
    pub rated_matches: i64,
    /// Ended matches of the mode played (rated or not).
    pub matches: i64,
    /// Of those, matches finished in place 1 (shared first places count).
    pub wins: i64,
    /// Sum of the player's final totals in them (game points).
    pub total_points: i64,
}

/// `GET /api/v1/players/{player_id}` answer: name and, per mode, rating and counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct PlayerProfile {
    /// The player.
    pub player_id: Uuid,
    /// Display name.
    pub name: String,
    /// When the guest was created (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// Figures per mode, journey then clash (every mode is listed).
    pub modes: Vec<ModeStats>,
}

impl From<store::PlayerProfile> for PlayerProfile {
    fn from(p: store::PlayerProfile) -> PlayerProfile {
        PlayerProfile {
            player_id: p.player_id,
            name: p.name,
            created_at: p.created_at,
            modes: p
                .modes
                .into_iter()
                .map(|m| ModeStats {
                    mode: m.mode,
                    rating: wire_rating(m.rating),
                    rated_matches: m.rated_matches,
                    matches: m.matches,
                    wins: m.wins,
                    total_points: m.total_points,
                })
                .collect(),
        }
    }
}

/// `[SeatInfo]`: a reference to the protocol's seat schema.
fn seat_list() -> RefOr<Schema> {
    ArrayBuilder::new()
        .description(Some(
            "The four seats in turn order (green, red, blue, yellow), as in `match_started`.",
        ))
        .items(Ref::from_schema_name("SeatInfo"))
        .build()
        .into()
}

/// `[FinalStanding] | null`.
fn standings_or_null() -> RefOr<Schema> {
    ArrayBuilder::new()
        .description(Some(
            "Final standings, best first (rule 9.2; equal places keep seat order), with the \
             rating changes: the lines of `match_ended.standings`. `null` while the match runs.",
        ))
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(Ref::from_schema_name("FinalStanding"))
        .build()
        .into()
}

/// A reference to the protocol's rating schema.
pub(crate) fn rating_ref() -> RefOr<Schema> {
    let mut r = Ref::from_schema_name("Rating");
    r.description = "Skill points; ranked by `conservative` = μ − 3σ.".into();
    r.into()
}

/// A reference to the protocol's `BotLevel` schema.
pub(crate) fn bot_level_ref() -> RefOr<Schema> {
    Ref::from_schema_name("BotLevel").into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Standing;

    fn seat(seat: Seat, result: Option<(u8, i64)>) -> store::SeatSummary {
        store::SeatSummary {
            seat,
            player_id: None,
            is_bot: true,
            name: format!("Bot {}", seat.name()),
            bot_level: None,
            left: false,
            standing: result.map(|(place, total)| Standing {
                seat,
                place,
                progress: total - 3,
                combat: 3,
                bonus: 0,
                total,
                finished: None,
                left: false,
            }),
            rating: None,
        }
    }

    fn summary(results: [Option<(u8, i64)>; 4]) -> store::MatchSummary {
        store::MatchSummary {
            id: Uuid::nil(),
            mode: Mode::Journey,
            status: store::MatchStatus::Ended,
            created_at: DateTime::UNIX_EPOCH,
            started_at: DateTime::UNIX_EPOCH,
            ended_at: None,
            end_reason: None,
            dice_commitment: "0".repeat(64),
            seats: Seat::ALL
                .iter()
                .zip(results)
                .map(|(&s, r)| seat(s, r))
                .collect(),
            turn_count: 7,
        }
    }

    #[test]
    fn standings_are_best_first_with_ties_in_seat_order() {
        // Rule 9.2: red 40 first; green and yellow share place 2 (seat order kept).
        let d = MatchSummary::from(summary([
            Some((2, 30)),
            Some((1, 40)),
            Some((4, 10)),
            Some((2, 30)),
        ]));
        let order: Vec<(Seat, u8, i64)> = d
            .standings
            .unwrap()
            .iter()
            .map(|s| (s.seat, s.place, s.total))
            .collect();
        assert_eq!(
            order,
            vec![
                (Seat::Red, 1, 40),
                (Seat::Green, 2, 30),
                (Seat::Yellow, 2, 30),
                (Seat::Blue, 4, 10)
            ]
        );
    }

    /// The summary speaks the wire vocabulary: `match_id`, `turns_played`, seats with
    /// `bot` and `left`, and `standings` `null` until every seat has a result.
    #[test]
    fn a_match_without_results_has_null_standings_and_wire_names() {
        let d = MatchSummary::from(summary([None, None, None, None]));
        assert_eq!(d.standings, None);
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["standings"], serde_json::Value::Null);
        assert_eq!(v["status"], "ended");
        assert_eq!(v["mode"], "journey");
        assert_eq!(v["match_id"], Uuid::nil().to_string());
        assert_eq!(v["turns_played"], 7);
        assert_eq!(
            v["seats"][1],
            serde_json::json!({"seat": "red", "player_id": null, "name": "Bot red",
                "bot": true, "left": false})
        );
        for old in ["id", "turn_count", "summary"] {
            assert!(v.get(old).is_none(), "no field {old}");
        }
    }

    /// A seat whose player left is played by a bot: `bot` and `left` are both true,
    /// as in `match_started`; its standing says `left` too, and its rating change
    /// rides on its standings line.
    #[test]
    fn a_leaver_is_a_bot_seat_with_left_set() {
        let mut s = summary([Some((1, 40)), Some((2, 30)), Some((3, 20)), Some((4, 10))]);
        let p = Uuid::from_u128(7);
        s.seats[3].is_bot = false;
        s.seats[3].player_id = Some(p);
        s.seats[3].left = true;
        s.seats[3].standing.as_mut().unwrap().left = true;
        let before = store::Rating::new(25.0, 25.0 / 3.0);
        let change = store::RatingChange::new(before, store::Rating::new(24.0, 8.0));
        s.seats[3].rating = Some(change);
        let d = MatchSummary::from(s);
        let yellow = &d.seats[3];
        assert_eq!(
            (yellow.player_id, yellow.bot, yellow.left),
            (Some(p), true, true)
        );
        let last = &d.standings.as_ref().unwrap()[3];
        assert_eq!((last.seat, last.left), (Seat::Yellow, true));
        assert_eq!(last.rating, Some(wire_change(change)));
        assert_eq!(last.rating.unwrap().change, 24.0 - 3.0 * 8.0);
    }

    /// Replay documents served before protocol 2 name a seat's bot flag `is_bot`;
    /// such a document (as `verify-replay` may still be handed) reads unchanged.
    #[test]
    fn an_old_replay_document_with_is_bot_still_reads() {
        let m = engine::Match::new(
            engine::RuleSet::default(),
            Mode::Journey,
            engine::Seed([3; 32]),
            0,
        )
        .unwrap();
        let replay = engine::replay::replay_of(&m);
        let mut old = serde_json::to_value(&replay).unwrap();
        let seats: Vec<serde_json::Value> = Seat::ALL
            .iter()
            .map(|s| {
                serde_json::json!({"seat": s.name(), "player_id": null,
                    "is_bot": true, "name": format!("Bot {}", s.name())})
            })
            .collect();
        old["match_id"] = serde_json::json!(Uuid::nil());
        old["seats"] = serde_json::json!(seats);
        old.as_object_mut().unwrap().remove("left"); // older documents had no `left`
        let doc: MatchReplay = serde_json::from_value(old).expect("an old document reads");
        assert!(doc.seats.iter().all(|s| s.bot && !s.left));
        assert_eq!(doc.seats[2].name, "Bot blue");
        assert_eq!(doc.replay, replay);
        // And it is written back in the wire vocabulary.
        let v = serde_json::to_value(&doc).unwrap();
        assert_eq!(v["seats"][0]["bot"], true);
        assert!(v["seats"][0].get("is_bot").is_none());
    }
}
