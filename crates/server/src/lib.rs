//! The authoritative game server: an axum application where four seats play a
//! match over WebSocket. Clients only send intentions; a room actor owning the
//! engine's match decides everything.
//!
//! # Public surface
//! Binaries and tests see [`run`], [`Config`], [`AppState`], [`app`], [`Clock`],
//! [`Cluster`] with [`ClusterSettings`], [`bootstrap_store`], [`openapi_document`],
//! a few constants, and the [`room`] and [`ws`] modules (tests drive rooms and
//! connection handles directly); every other module is private to the crate.
//!
//! # Layout
//! * `config`: [`Config`], the clap flags (each with an environment variable).
//! * `state`: [`AppState`], the composition root: the `Services` (the handles the
//!   socket tier and REST take) and the edge's caps and budgets.
//! * `services`: `Services` — the game side, the cluster membership, accounts,
//!   passkeys, the edge's budgets as a trait object, and the route handles.
//! * `game`: `Game` — rooms, lobbies, the matchmaker, the room, session and presence
//!   registries, the store, the persistence writer, the shutdown token and task
//!   tracker; what it tells other nodes goes through `Elsewhere` (the cluster's).
//! * `route`: the handles that decide whether a room, the queue or a lobby is here or
//!   on another node (`Rooms`, `Queue`, `LobbyDir`, `Sessions`).
//! * `api`: HTTP routes, composed with `/ws`, the web client and the edge by [`app`] (`/api/v1/guests`, `/api/v1/matches`,
//!   `/api/v1/players`, `/api/v1/lobbies`, `/api/v1/leaderboard`,
//!   `/api/v1/openapi.json`, `/healthz`, `/readyz`, `/ws`; described by
//!   [`openapi_document`]); `error`: the REST error body.
//! * `auth`: guest tokens (CSPRNG, stored as SHA-256) and the bearer extractor.
//! * [`ws`]: the WebSocket endpoint: per-connection reader (one function per client
//!   message) and writer with a bounded outbound queue.
//! * [`room`]: the room actor, one task per running match, with its narrow
//!   dependencies (`RoomDeps`) instead of the whole `Game`.
//! * `matchmaker`: quick-play queues per mode, bot fill after a wait.
//! * `lobby`: lobbies with join codes, the public lobby list, rematch offers.
//! * `presence`: who is queued, in a lobby or seated.
//! * `metrics`: the Prometheus recorder and `GET /metrics`.
//! * `clock`: [`Clock`], Unix-ms time for the engine and Tokio timers.
//! * `cluster`: cluster mode (`--nats-url`): room leases with fencing on
//!   PostgreSQL, takeover of a dead node's matches, sockets on any node, one
//!   matchmaker and lobbies reachable from every node (NATS).
//! * `edge`: the accept loop and HTTP layers facing the network: timeouts,
//!   connection caps, per-address limits, security headers, `Origin` policy.
//!
//! Layers (lowest first; a module names only its own layer or lower ones, checked by
//! `tests/integration/layers.rs`, see `docs/server-layout.md`): ground (config,
//! clock, metrics, error, wire) ← the write side of a connection ← game ← cluster ←
//! route ← services ← ws, api, auth ← edge ← composition.
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
//! running stays `running` in the store with every turn played so far, its seed and
//! its clock use; the next start resumes it ([`bootstrap_store`]).

mod accounts;
mod api;
mod auth;
mod clock;
mod cluster;
mod config;
mod edge;
mod error;
mod game;
mod lobby;
mod matchmaker;
mod metrics;
mod passkeys;
mod presence;
pub mod room;
mod route;
mod services;
mod state;
mod wire;
pub mod ws;

pub use api::openapi::document as openapi_document;
pub use clock::Clock;
pub use cluster::{Cluster, Settings as ClusterSettings};
pub use config::Config;
pub use edge::{http::CONTENT_SECURITY_POLICY, FD_HEADROOM};
pub use lobby::CODE_ALPHABET;
pub use metrics::set_node_label;
pub use state::AppState;

use backon::Retryable;
use std::future::Future;
use tokio::net::TcpListener;

/// How long [`run`] waits for the store at start (migrations and resuming the
/// running matches) before it serves anyway and keeps trying in the background.
pub const BOOTSTRAP_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The whole application: REST resources (guests, accounts, sessions, matches,
/// players, leaderboard, the OpenAPI document), `/healthz`, `/readyz`, `/metrics`,
/// the WebSocket endpoint `/ws`, and the browser client's static files for every
/// other path (`web`); wrapped in the edge's HTTP layers (`edge::http::layer`:
/// security headers, `Origin` policy and CORS, body timeout, JSON error bodies) and
/// compressed (gzip or Brotli, by `Accept-Encoding`). The composition: the one
/// place besides [`run`] that sees both the [`AppState`]'s services and its edge.
pub fn app(state: AppState) -> axum::Router {
    let router = api::router().merge(ws::router());
    let router = api::web::with_web(router, state.config());
    edge::http::layer(router, state.config())
        // gzip or Brotli by `Accept-Encoding`, for REST answers and static files alike
        // (tower-http's default predicate skips bodies under 32 bytes, images and
        // the WebSocket upgrade, which has no body).
        .layer(
            tower_http::compression::CompressionLayer::new()
                .gzip(true)
                .br(true),
        )
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state.services().clone())
}

/// Serves the application on `listener` (`edge::listener::serve`: TCP_NODELAY,
/// header timeout and connection caps on every accepted socket) until `shutdown`
/// resolves or the shutdown token (`AppState::shutdown_token`) is cancelled, then shuts down gracefully
/// (see the crate docs).
///
/// Errors: the listener failed.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // The recorder first: the matches resumed below count in `/metrics` (installed
    // only by the route, the resumed rooms' increments were dropped and the
    // gauge went negative as they ended).
    metrics::install();
    let token = state.shutdown_token().clone();
    tracing::info!(
        max_connections = state.edge().max_connections(),
        "accepting connections"
    );
    let stop = {
        let token = token.clone();
        async move {
            tokio::select! {
                _ = shutdown => {}
                _ = token.cancelled() => {}
            }
            tracing::info!("shutting down: no new connections");
            // Close sockets and stop rooms now; HTTP connections finish their
            // current request and close.
            token.cancel();
        }
    };
    // Resume the matches a previous run left running before serving, so players who
    // reconnect find theirs; if the store cannot be reached now, keep trying in the
    // background (`/readyz` answers 503 and no match starts meanwhile).
    let first = tokio::time::timeout(BOOTSTRAP_WAIT, bootstrap_store(&state)).await;
    if let Err(e) = first.unwrap_or(Err(store::StoreError::Invalid(
        "no answer within the start-up wait".into(),
    ))) {
        tracing::warn!(error = %e, "store not ready at start; retrying in the background");
        state.tasks().spawn(bootstrap_until_ready(state.clone()));
    }
    tokio::spawn(stop);
    let served = edge::listener::serve(
        listener,
        app(state.clone()),
        state.services().clone(),
        state.edge().clone(),
        token,
    )
    .await;
    state.shutdown().await;
    tracing::info!("shutdown complete");
    served
}

/// Retries [`bootstrap_store`] (backing off from 200 ms to 5 s, without end) until
/// it succeeds or the server shuts down.
async fn bootstrap_until_ready(state: AppState) {
    let token = state.shutdown_token().clone();
    let attempts = (|| bootstrap_store(&state))
        .retry(
            backon::ExponentialBuilder::default()
                .with_min_delay(std::time::Duration::from_millis(200))
                .with_max_delay(std::time::Duration::from_secs(5))
                .without_max_times(),
        )
        .sleep(tokio::time::sleep)
        .notify(|e, d| tracing::warn!(error = %e, retry_in_ms = d.as_millis() as u64, "store not ready"));
    tokio::select! {
        _ = token.cancelled() => {}
        _ = attempts => {}
    }
}

/// Makes the store ready: applies the migrations not yet applied, then resumes every
/// match the store has as running ([`room::resume_all`]) and marks the state ready
/// (`AppState::store_ready`). Idempotent.
///
/// Errors: the store could not be reached, migrated or read.
pub async fn bootstrap_store(state: &AppState) -> Result<usize, store::StoreError> {
    state.store().migrate().await?;
    // In a cluster the other nodes' running matches are theirs: resume only the
    // matches whose lease expired (or that have none), claiming them first.
    let resumed = match state.cluster() {
        Some(c) => c.claim_and_resume(state.game()).await?,
        None => room::resume_all(state.game()).await?,
    };
    state.set_store_ready();
    if resumed > 0 {
        tracing::info!(resumed, "running matches resumed");
    }
    Ok(resumed)
}
