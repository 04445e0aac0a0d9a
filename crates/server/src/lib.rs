//! The authoritative game server: an axum application where four seats play a
//! match over WebSocket. Clients only send intentions; a room actor owning the
//! engine's match decides everything.
//!
//! # Layout
//! * [`config`]: [`Config`], the clap flags (each with an environment variable).
//! * [`state`]: [`AppState`], shared registries (rooms, sessions, presence), the
//!   store, the persistence writer, the shutdown token and task tracker.
//! * [`api`]: HTTP routes composed by [`api::app`] (`/api/v1/guests`, `/api/v1/matches`,
//!   `/api/v1/players`, `/api/v1/leaderboard`, `/api/v1/openapi.json`, `/healthz`,
//!   `/readyz`, `/ws`; described by [`api::openapi`]); [`error`]: [`error::ApiError`],
//!   the REST error body.
//! * [`auth`]: guest tokens (CSPRNG, stored as SHA-256) and the bearer extractor.
//! * [`ws`]: the WebSocket endpoint: per-connection reader ([`ws::connection`]) and
//!   writer with a bounded outbound queue ([`ws::outbound`]).
//! * [`room`]: the room actor, one task per running match.
//! * [`matchmaker`]: quick-play queues per mode, bot fill after a wait.
//! * [`lobby`]: private lobbies with join codes.
//! * [`presence`]: who is queued, in a lobby or seated.
//! * [`metrics`]: the Prometheus recorder and `GET /metrics`.
//! * [`clock`]: Unix-ms time for the engine and Tokio timers.
//!
//! # Message flow
//! A `submit_turn` goes: reader → room queue (mpsc) → engine → one encoding →
//! `try_send` into each seat's and spectator's bounded queue → writer tasks. The
//! turn is handed to the persistence writer without waiting; no database call sits
//! on that path.
//!
//! # Shutdown
//! [`run`] stops accepting when its `shutdown` future resolves, then tells every
//! connection (close 1001), room and the matchmaker to stop and waits for them, and
//! waits for the persistence writer to store what it was handed. A match still
//! running stays `running` in the store with every turn played so far; resuming
//! such matches after a restart is out of scope.

pub mod api;
pub mod auth;
pub mod clock;
pub mod config;
pub mod error;
pub mod lobby;
pub mod matchmaker;
pub mod metrics;
pub mod presence;
pub mod room;
pub mod state;
pub mod ws;

pub use api::app;
pub use config::Config;
pub use state::AppState;

use axum::serve::ListenerExt;
use std::future::Future;
use tokio::net::TcpListener;

/// Serves the application on `listener` (TCP_NODELAY on every accepted socket) until
/// `shutdown` resolves or [`AppState::shutdown_token`] is cancelled, then shuts down
/// gracefully (see the crate docs).
///
/// Errors: the listener failed.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let token = state.shutdown_token().clone();
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!(error = %e, "could not set TCP_NODELAY");
        }
    });
    let stop = async move {
        tokio::select! {
            _ = shutdown => {}
            _ = token.cancelled() => {}
        }
        tracing::info!("shutting down: no new connections");
        // Close sockets and stop rooms now; upgraded sockets are not HTTP
        // connections, so axum's graceful shutdown would not wait for them anyway.
        token.cancel();
    };
    let served = axum::serve(listener, api::app(state.clone()))
        .with_graceful_shutdown(stop)
        .await;
    state.shutdown().await;
    tracing::info!("shutdown complete");
    served
}
