//! Probes. `GET /healthz` is liveness: 200 with a few gauges while the process
//! serves HTTP, without touching the database (a database outage must not get a
//! healthy server restarted: rooms keep playing and the writer keeps the backlog).
//! `GET /readyz` is readiness: 200 only when the store is ready to take new matches —
//! the database answers within [`READY_TIMEOUT`], its schema is the one this build
//! migrates to, the running matches were resumed, and the persistence writer keeps
//! up (not failing, backlog under its limit) — else 503 `unavailable`.

use crate::api::openapi::ErrorBody;
use crate::error::ApiError;
use crate::services::Services;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::time::Duration;
use utoipa::ToSchema;

/// How long `/readyz` waits for the database to answer (1 s).
pub(crate) const READY_TIMEOUT: Duration = Duration::from_secs(1);

/// `GET /healthz` answer.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct Health {
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

/// `GET /readyz` answer (200).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub(crate) struct Ready {
    /// Always `"ready"`.
    #[schema(example = "ready")]
    pub status: String,
}

/// Routes of this resource.
pub(crate) fn router() -> Router<Services> {
    Router::new()
        .route("/healthz", get(health))
        .route("/readyz", get(ready))
}

/// Liveness and gauges; does not touch the database.
#[utoipa::path(
    get,
    path = "/healthz",
    operation_id = "healthz",
    tag = "probes",
    responses((status = 200, description = "The server is alive.", body = Health))
)]
pub(crate) async fn health(State(state): State<Services>) -> Json<Health> {
    Json(Health {
        status: "ok".into(),
        database: state.store().backend_name().into(),
        rooms: state.room_count(),
        sessions: state.session_count(),
        persistence_backlog: state.writer().backlog(),
    })
}

/// Readiness: the store is migrated and answers, matches are resumed, the writer keeps up.
#[utoipa::path(
    get,
    path = "/readyz",
    operation_id = "readyz",
    tag = "probes",
    responses(
        (status = 200, description = "The store answered within 1 s with the current schema, running matches are resumed and the persistence writer keeps up.", body = Ready),
        (status = 503, description = "`unavailable`: the store did not answer within 1 s, its schema is missing or old, or the persistence writer is failing or behind.", body = ErrorBody),
    )
)]
pub(crate) async fn ready(State(state): State<Services>) -> Result<Json<Ready>, ApiError> {
    if !state.store_ready() {
        tracing::warn!("readiness: store not migrated or matches not resumed yet");
        return Err(ApiError::Unavailable);
    }
    if !state.writer().accepting_new_matches() {
        tracing::warn!(
            backlog = state.writer().backlog(),
            failing = state.writer().is_failing(),
            "readiness: persistence writer failing or behind"
        );
        return Err(ApiError::Unavailable);
    }
    match tokio::time::timeout(READY_TIMEOUT, state.store().schema_current()).await {
        Ok(Ok(true)) => Ok(Json(Ready {
            status: "ready".into(),
        })),
        Ok(Ok(false)) => {
            tracing::warn!("readiness: the database schema is missing or old");
            Err(ApiError::Unavailable)
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "readiness: database unavailable");
            Err(ApiError::Unavailable)
        }
        Err(_) => {
            tracing::warn!(
                timeout_ms = READY_TIMEOUT.as_millis() as u64,
                "readiness: database did not answer in time"
            );
            Err(ApiError::Unavailable)
        }
    }
}

/// `GET /metrics` (installs the recorder).
pub(crate) fn metrics_router() -> Router<Services> {
    crate::metrics::install();
    Router::new().route("/metrics", get(scrape_metrics))
}

/// The Prometheus text exposition, with the scrape-time gauges refreshed.
async fn scrape_metrics(State(state): State<Services>) -> impl IntoResponse {
    metrics::gauge!(crate::metrics::SESSIONS).set(state.session_count() as f64);
    metrics::gauge!(crate::metrics::LOBBIES).set(state.lobbies().len() as f64);
    metrics::gauge!(store::BACKLOG_GAUGE).set(state.writer().backlog() as f64);
    crate::metrics::process().collect();
    let body = crate::metrics::install().map_or_else(String::new, |h| {
        h.run_upkeep();
        h.render()
    });
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        body,
    )
}
