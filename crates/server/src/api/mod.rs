//! HTTP routes. [`router`] composes one `router()` per resource; add a resource by
//! adding a module with a `router() -> Router<Services>` and merging it here.
//! Every handler fails with [`crate::error::ApiError`] (`{"error":{"code","message"}}`).

pub(crate) mod accounts;
pub(crate) mod extract;
pub(crate) mod guests;
pub(crate) mod health;
pub(crate) mod leaderboard;
pub(crate) mod lobbies;
pub(crate) mod matches;
pub(crate) mod model;
pub(crate) mod openapi;
pub(crate) mod passkeys;
pub(crate) mod players;
pub(crate) mod sessions;
pub(crate) mod web;

use crate::error::ApiError;
use crate::services::Services;
use axum::http::{Method, Uri};
use axum::routing::any;
use axum::Router;
use protocol::RestErrorCode;

/// 404 `not_found` with the JSON error body for any `/api/…` path no route claims
/// (without it the web folder's plain 404 would answer).
async fn api_not_found(uri: Uri) -> ApiError {
    ApiError::new(
        RestErrorCode::NotFound,
        format!("no API route {}", uri.path()),
    )
}

/// 405 `method_not_allowed` with the JSON error body (axum's own 405 has no body).
async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        RestErrorCode::MethodNotAllowed,
        format!("{} does not answer {method}", uri.path()),
    )
}

/// The REST resources (guests, accounts, sessions, passkeys, matches, players,
/// lobbies, leaderboard, the OpenAPI document), `/healthz`, `/readyz` and
/// `/metrics`, with the JSON 404 for unclaimed `/api/…` paths and the JSON 405.
/// The composition (`crate::app`) adds the WebSocket endpoint, the web client and
/// the edge's layers.
pub(crate) fn router() -> Router<Services> {
    Router::new()
        .merge(guests::router())
        .merge(accounts::router())
        .merge(sessions::router())
        .merge(passkeys::router())
        .merge(health::router())
        .merge(health::metrics_router())
        .merge(matches::router())
        .merge(players::router())
        .merge(leaderboard::router())
        .merge(lobbies::router())
        .merge(openapi::router())
        .route("/api/{*rest}", any(api_not_found))
        .method_not_allowed_fallback(method_not_allowed)
}
