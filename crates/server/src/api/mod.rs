//! HTTP routes. [`app`] composes one `router()` per resource; add a resource by
//! adding a module with a `router() -> Router<AppState>` and merging it here.
//! Every handler fails with [`crate::error::ApiError`] (`{"error":{"code","message"}}`).

pub mod extract;
pub mod guests;
pub mod health;
pub mod leaderboard;
pub mod matches;
pub mod openapi;
pub mod players;
pub mod web;

use crate::state::AppState;
use axum::Router;
use tower_http::trace::TraceLayer;

/// The whole application: REST resources (guests, matches, players, leaderboard, the
/// OpenAPI document), `/healthz`, `/readyz`, the WebSocket endpoint `/ws`, and the
/// browser client's static files for every other path ([`web`]).
pub fn app(state: AppState) -> Router {
    let router = Router::new()
        .merge(guests::router())
        .merge(health::router())
        .merge(matches::router())
        .merge(players::router())
        .merge(leaderboard::router())
        .merge(openapi::router())
        .merge(crate::ws::router())
        .merge(crate::metrics::router());
    web::with_web(router, state.config())
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}
