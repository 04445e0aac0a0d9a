//! Stored matches: `GET /api/v1/matches/{match_id}` (summary, seats, standings) and
//! `GET /api/v1/matches/{match_id}/replay` (everything needed to re-play it,
//! RULES.md §10). Both read the store, so they answer for running and ended matches;
//! what a running room has not yet handed to the persistence writer is not shown.
//! `GET /api/v1/matches/live` lists the matches running in this server's rooms (in a
//! cluster: on every node), so a client can offer them for spectating.

use crate::api::extract::ApiPath;
use crate::api::openapi::ErrorBody;
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use protocol::RestErrorCode;
use serde::{Deserialize, Serialize};
use store::{MatchSummary, ReplayDoc, SeatSummary};
use utoipa::ToSchema;
use uuid::Uuid;

/// One line of the final standings (rule 9.2); points are game points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Standing {
    /// The seat: `green`, `red`, `blue` or `yellow`.
    #[schema(value_type = String, example = "green")]
    pub seat: engine::Seat,
    /// Place by total, 1 = best; equal totals share a place (1, 1, 3, 4).
    pub place: u8,
    /// Progress points (rule 8.5).
    pub progress: i64,
    /// Combat points (rule 8.6).
    pub combat: i64,
    /// Completion bonus (rule 8.8).
    pub bonus: i64,
    /// progress + combat + bonus.
    pub total: i64,
    /// Finishing place (rule 8.8), if the seat finished.
    pub finished: Option<u8>,
    /// True when the seat's player left the match (`leave_match`): it ranks below
    /// every seat that stayed.
    pub left: bool,
    /// The seat's rating change (skill points, Weng-Lin scale: μ 25 and σ 25/3 for
    /// a new player, ranked by μ − 3σ); absent for a bot's seat and in a match that
    /// rated nothing (fewer than two human players). The same as in `match_ended`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<store::RatingChange>,
}

/// `GET /api/v1/matches/{match_id}` answer: the stored summary (every field of
/// `MatchSummary`, flattened) plus the final standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MatchDetail {
    /// The summary: id, mode, status, times, end reason, commitment, seats (each with
    /// its result once ended), turns stored.
    #[serde(flatten)]
    pub summary: MatchSummary,
    /// Final standings, best first (rule 9.2; equal places keep seat order); `null`
    /// while the match runs.
    pub standings: Option<Vec<Standing>>,
}

impl MatchDetail {
    /// The detail of `summary`: standings from the seats' results, or `None` unless
    /// every seat has one.
    pub fn of(summary: MatchSummary) -> MatchDetail {
        let standings: Option<Vec<Standing>> = summary.seats.iter().map(standing_of).collect();
        let standings = standings.map(|mut v| {
            v.sort_by_key(|s| s.place); // stable: equal places stay in seat order
            v
        });
        MatchDetail { summary, standings }
    }
}

fn standing_of(s: &SeatSummary) -> Option<Standing> {
    s.result.as_ref().map(|r| Standing {
        seat: s.seat,
        place: r.place,
        progress: r.progress,
        combat: r.combat,
        bonus: r.bonus,
        total: r.total,
        finished: r.finished,
        left: r.left,
        rating: r.rating,
    })
}

/// Routes of this resource.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/matches/{match_id}", get(summary))
        .route("/api/v1/matches/{match_id}/replay", get(replay))
        .route("/api/v1/matches/live", get(live))
}

/// Most matches [`live`] lists.
pub const LIVE_LIMIT: u32 = 50;

/// `GET /api/v1/matches/live` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LiveMatches {
    /// Running matches of this server (at most 50), most recently started first
    /// (then highest id); each can be watched with the WebSocket message
    /// `spectate {match_id}`. Matches of private lobbies are not listed: their players
    /// share the id to let others watch.
    pub matches: Vec<MatchSummary>,
}

/// Matches running now in this server's rooms (at most 50, newest first), except
/// those started from a private lobby.
///
/// Newest `started_at` first, then highest id. Read from the store; a room whose
/// start the persistence writer has not stored yet is left out until it is.
#[utoipa::path(
    get,
    path = "/api/v1/matches/live",
    operation_id = "liveMatches",
    tag = "matches",
    responses(
        (status = 200, description = "Running matches, newest first (a match whose start the \
            persistence writer has not stored yet is left out, and so is every match started \
            from a private lobby).", body = LiveMatches),
        (status = 500, description = "`internal`: a store failure.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = ErrorBody),
    )
)]
pub async fn live(State(state): State<AppState>) -> Result<Json<LiveMatches>, ApiError> {
    // Copy the ids first: no registry guard may be held across the store's `.await`.
    // A private lobby's match is not listed (watching it needs its id). One store
    // call for all rooms (two queries up to 500 rooms), not one per room.
    // In a cluster, every node's matches: their leases say which may be listed.
    let ids: Vec<Uuid> = match state.cluster() {
        Some(_) => state.store().listed_matches(LIVE_LIMIT).await?,
        None => state.registries().listed_rooms(),
    };
    let matches = state.store().running_summaries(&ids, LIVE_LIMIT).await?;
    Ok(Json(LiveMatches { matches }))
}

fn match_not_found(id: Uuid) -> ApiError {
    ApiError::new(RestErrorCode::MatchNotFound, format!("no match {id}"))
}

/// A match's summary, seats and standings.
///
/// Every field of the stored summary plus `standings`, `null` while the match runs.
/// Read from the store: turns a running room has handed to the persistence writer
/// but that are not stored yet (the database is slow or down) count once stored.
#[utoipa::path(
    get,
    path = "/api/v1/matches/{match_id}",
    operation_id = "getMatch",
    tag = "matches",
    params(("match_id" = Uuid, Path, description = "The match id (from `match_started`).")),
    responses(
        (status = 200, description = "The match: status `running` (standings null) or `ended`.", body = MatchDetail),
        (status = 400, description = "`invalid_id`: the id is not a UUID.", body = ErrorBody),
        (status = 404, description = "`match_not_found`: no match with this id is stored.", body = ErrorBody),
        (status = 500, description = "`internal`: a store failure.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = ErrorBody),
    )
)]
pub async fn summary(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Json<MatchDetail>, ApiError> {
    let summary = state
        .store()
        .match_summary(id)
        .await?
        .ok_or_else(|| match_not_found(id))?;
    Ok(Json(MatchDetail::of(summary)))
}

/// Everything needed to re-play a match (RULES.md §10).
///
/// The seed is revealed only once the match has ended; its SHA-256 is the
/// `dice_commitment` published at the start. Read from the store: turns not yet
/// stored by the persistence writer appear once stored. The `verify-replay URL`
/// tool (crate `client`) re-plays it and names the first differing turn.
#[utoipa::path(
    get,
    path = "/api/v1/matches/{match_id}/replay",
    operation_id = "getReplay",
    tag = "matches",
    params(("match_id" = Uuid, Path, description = "The match id.")),
    responses(
        (status = 200, body = Object, description = "The replay document, JSON Schema in \
            `proto/replay.schema.json`: `match_id`, `seats` (seat, player_id, is_bot, name), \
            `rules`, `mode`, `dice_commitment` (SHA-256 of the seed, hex), `seed` (hex; null \
            until the match has ended), `turns` (each turn's number, seat, dice, plan, kind and \
            events, in order) and `end` (reason and standings; null until ended). \
            `verify-replay URL` re-plays it."),
        (status = 400, description = "`invalid_id`: the id is not a UUID.", body = ErrorBody),
        (status = 404, description = "`match_not_found`: no match with this id is stored.", body = ErrorBody),
        (status = 500, description = "`internal`: a store failure.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = ErrorBody),
    )
)]
pub async fn replay(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Json<ReplayDoc>, ApiError> {
    let doc = state
        .store()
        .replay(id)
        .await?
        .ok_or_else(|| match_not_found(id))?;
    Ok(Json(doc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Seat;
    use store::{MatchStatus, SeatResult};

    fn seat(seat: Seat, result: Option<(u8, i64)>) -> SeatSummary {
        SeatSummary {
            seat,
            player_id: None,
            is_bot: true,
            name: format!("Bot {}", seat.name()),
            result: result.map(|(place, total)| SeatResult {
                place,
                progress: total - 3,
                combat: 3,
                bonus: 0,
                total,
                finished: None,
                left: false,
                rating: None,
            }),
        }
    }

    fn summary(results: [Option<(u8, i64)>; 4]) -> MatchSummary {
        MatchSummary {
            id: Uuid::nil(),
            mode: engine::Mode::Journey,
            status: MatchStatus::Ended,
            created_at: chrono::DateTime::UNIX_EPOCH,
            started_at: chrono::DateTime::UNIX_EPOCH,
            ended_at: None,
            end_reason: None,
            dice_commitment: "0".repeat(64),
            seats: Seat::ALL
                .iter()
                .zip(results)
                .map(|(&s, r)| seat(s, r))
                .collect(),
            turn_count: 0,
        }
    }

    #[test]
    fn standings_are_best_first_with_ties_in_seat_order() {
        // Rule 9.2: red 40 first; green and yellow share place 2 (seat order kept).
        let d = MatchDetail::of(summary([
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

    #[test]
    fn a_match_without_results_has_null_standings_and_flat_summary_fields() {
        let d = MatchDetail::of(summary([None, None, None, None]));
        assert_eq!(d.standings, None);
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["standings"], serde_json::Value::Null);
        assert_eq!(v["status"], "ended");
        assert_eq!(v["mode"], "journey");
        assert_eq!(v["seats"].as_array().map(Vec::len), Some(4));
        assert!(v.get("summary").is_none(), "the summary is flattened");
    }
}
