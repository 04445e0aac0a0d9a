//! `GET /healthz`: liveness and readiness in one. 200 with a few gauges when the
//! database answers, 503 `unavailable` otherwise.

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `GET /healthz` answer.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Health {
    /// Always `"ok"`.
    pub status: String,
    /// `"postgres"` or `"sqlite"`.
    pub database: String,
    /// Running matches.
    pub rooms: usize,
    /// Players with a live WebSocket.
    pub sessions: usize,
    /// Writes handed to the persistence writer and not yet stored.
    pub persistence_backlog: usize,
}

/// Routes of this resource.
pub fn router() -> Router<AppState> {
    Router::new().route("/healthz", get(health))
}

async fn health(State(state): State<AppState>) -> Result<Json<Health>, ApiError> {
    if let Err(e) = state.store().ping().await {
        tracing::warn!(error = %e, "health check: database unavailable");
        return Err(ApiError::Unavailable);
    }
    Ok(Json(Health {
        status: "ok".into(),
        database: state.store().backend_name().into(),
        rooms: state.rooms().len(),
        sessions: state.sessions().len(),
        persistence_backlog: state.writer().backlog(),
    }))
}
