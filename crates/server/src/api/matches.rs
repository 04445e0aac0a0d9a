//! Stored matches: `GET /api/v1/matches/{match_id}` (summary, seats, standings) and
//! `GET /api/v1/matches/{match_id}/replay` (everything needed to re-play it,
//! RULES.md §10). Both read the store, so they answer for running and ended matches;
//! what a running room has not yet handed to the persistence writer is not shown.
//! `GET /api/v1/matches/live` lists the matches running in this server's rooms (in a
//! cluster: on every node), so a client can offer them for spectating.

use crate::api::extract::ApiPath;
use crate::api::model::{MatchReplay, MatchSummary};
use crate::api::openapi::ErrorBody;
use crate::api::web;
use crate::error::ApiError;
use crate::services::Services;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use protocol::RestErrorCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Routes of this resource.
pub(crate) fn router() -> Router<Services> {
    Router::new()
        .route("/api/v1/matches/{match_id}", get(summary))
        .route("/api/v1/matches/{match_id}/replay", get(replay))
        .route("/api/v1/matches/live", get(live))
}

/// Most matches [`live`] lists.
pub(crate) const LIVE_LIMIT: u32 = 50;

/// `GET /api/v1/matches/live` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct LiveMatches {
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
pub(crate) async fn live(State(state): State<Services>) -> Result<Json<LiveMatches>, ApiError> {
    // Copy the ids first: no registry guard may be held across the store's `.await`.
    // A private lobby's match is not listed (watching it needs its id). One store
    // call for all rooms (two queries up to 500 rooms), not one per room.
    // In a cluster, every node's matches: their leases say which may be listed.
    let ids: Vec<Uuid> = state.rooms().listed(LIVE_LIMIT).await?;
    let matches = state.store().running_summaries(&ids, LIVE_LIMIT).await?;
    Ok(Json(LiveMatches {
        matches: matches.into_iter().map(MatchSummary::from).collect(),
    }))
}

fn match_not_found(id: Uuid) -> ApiError {
    ApiError::new(RestErrorCode::MatchNotFound, format!("no match {id}"))
}

/// A match's summary, seats and standings.
///
/// The summary with the final `standings` (the lines of `match_ended`), `null`
/// while the match runs.
/// Read from the store: turns a running room has handed to the persistence writer
/// but that are not stored yet (the database is slow or down) count once stored.
#[utoipa::path(
    get,
    path = "/api/v1/matches/{match_id}",
    operation_id = "getMatch",
    tag = "matches",
    params(("match_id" = Uuid, Path, description = "The match id (from `match_started`).")),
    responses(
        (status = 200, description = "The match: status `running` (standings null) or `ended`.", body = MatchSummary),
        (status = 400, description = "`invalid_id`: the id is not a UUID.", body = ErrorBody),
        (status = 404, description = "`match_not_found`: no match with this id is stored.", body = ErrorBody),
        (status = 500, description = "`internal`: a store failure.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = ErrorBody),
    )
)]
pub(crate) async fn summary(
    State(state): State<Services>,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<Json<MatchSummary>, ApiError> {
    let summary = state
        .store()
        .match_summary(id)
        .await?
        .ok_or_else(|| match_not_found(id))?;
    Ok(Json(summary.into()))
}

/// Everything needed to re-play a match (RULES.md §10).
///
/// The seed is revealed only once the match has ended; its SHA-256 is the
/// `dice_commitment` published at the start. Read from the store: turns not yet
/// stored by the persistence writer appear once stored. The `verify-replay URL`
/// tool (crate `client`) re-plays it and names the first differing turn.
///
/// Caching: an ended match's replay never changes, so it carries an `ETag` and
/// `Cache-Control: public, max-age=31536000, immutable`, and a request whose
/// `If-None-Match` names that tag gets `304 Not Modified` without a body; a running
/// match's replay is `Cache-Control: no-store`.
#[utoipa::path(
    get,
    path = "/api/v1/matches/{match_id}/replay",
    operation_id = "getReplay",
    tag = "matches",
    params(("match_id" = Uuid, Path, description = "The match id.")),
    responses(
        (status = 200, body = Object, description = "The replay document, JSON Schema in \
            `proto/replay.schema.json`: `match_id`, `seats` (seat, player_id, name, bot, left, \
            as in `match_started`), \
            `rules`, `mode`, `dice_commitment` (SHA-256 of the seed, hex), `seed` (hex; null \
            until the match has ended), `dice_scheme` (`contributed`: the dice are keyed with \
            HKDF-SHA256 of the seed and `contributions`, each seat's recorded entropy in seat \
            order, proto/README.md §10; `server_seed`: the seed alone, matches before it), \
            `turns` (each turn's number, seat, dice, plan, kind and \
            events, in order), `left` (seats whose player left, in leaving order) and `end` \
            (reason and standings; null until ended). \
            `verify-replay URL` re-plays it. An ended match's replay has an `ETag` and \
            `Cache-Control: public, max-age=31536000, immutable`."),
        (status = 304, description = "Not modified: the match has ended and `If-None-Match` \
            names its replay's `ETag`. No body."),
        (status = 400, description = "`invalid_id`: the id is not a UUID.", body = ErrorBody),
        (status = 404, description = "`match_not_found`: no match with this id is stored.", body = ErrorBody),
        (status = 500, description = "`internal`: a store failure.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = ErrorBody),
    )
)]
pub(crate) async fn replay(
    State(state): State<Services>,
    ApiPath(id): ApiPath<Uuid>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let doc = state
        .store()
        .replay(id)
        .await?
        .ok_or_else(|| match_not_found(id))?;
    let doc: MatchReplay = doc.into();
    if doc.replay.end.is_none() {
        // A running match's replay grows with every turn: always ask again.
        let cache = [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))];
        return Ok((cache, Json(doc)).into_response());
    }
    // An ended match's replay never changes: cache it for a year, revalidate by ETag.
    let body = serde_json::to_vec(&doc)
        .map_err(|e| ApiError::new(RestErrorCode::Internal, e.to_string()))?;
    let etag = web::etag_of(&body);
    let cache = HeaderValue::from_static(ENDED_REPLAY_CACHE);
    if web::none_match(&headers, &etag) {
        return Ok(web::not_modified(etag, cache));
    }
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::ETAG, etag),
            (header::CACHE_CONTROL, cache),
        ],
        body,
    )
        .into_response())
}

/// `Cache-Control` of an ended match's replay (it never changes): public, one year.
const ENDED_REPLAY_CACHE: &str = "public, max-age=31536000, immutable";
