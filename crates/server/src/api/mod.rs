//! HTTP routes. [`app`] composes one `router()` per resource; add a resource by
//! adding a module with a `router() -> Router<AppState>` and merging it here.
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
use crate::state::AppState;
use axum::http::{Method, Uri};
use axum::routing::any;
use axum::Router;
use protocol::RestErrorCode;
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;

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

/// The whole application: REST resources (guests, accounts, sessions, matches, players, leaderboard, the
/// OpenAPI document), `/healthz`, `/readyz`, the WebSocket endpoint `/ws`, and the
/// browser client's static files for every other path (`web`); wrapped in the
/// edge's HTTP layers (`crate::edge::http::layer`: security headers, `Origin`
/// policy and CORS, body timeout, JSON error bodies) and compressed (gzip or Brotli,
/// by `Accept-Encoding`).
pub fn app(state: AppState) -> Router {
    let router = Router::new()
        .merge(guests::router())
        .merge(accounts::router())
        .merge(sessions::router())
        .merge(passkeys::router())
        .merge(health::router())
        .merge(matches::router())
        .merge(players::router())
        .merge(leaderboard::router())
        .merge(lobbies::router())
        .merge(openapi::router())
        .merge(crate::ws::router())
        .merge(crate::metrics::router())
        .route("/api/{*rest}", any(api_not_found))
        .method_not_allowed_fallback(method_not_allowed);
    let router = web::with_web(router, state.config());
    crate::edge::http::layer(router, state.config())
        // gzip or Brotli by `Accept-Encoding`, for REST answers and static files alike
        // (tower-http's default predicate skips bodies under 32 bytes, images and
        // the WebSocket upgrade, which has no body).
        .layer(CompressionLayer::new().gzip(true).br(true))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}
