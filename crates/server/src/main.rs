//! `ludo-server`: reads the configuration (flags or environment), opens the store,
//! starts the persistence writer and serves until SIGTERM or Ctrl-C.

use clap::Parser;
use server::{AppState, Config};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = Config::parse();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    if config.log_json {
        tracing_subscriber::fmt()
            .json()
            .with_env_filter(filter)
            .init();
    } else {
        // Colours only on a terminal: a log redirected to a file stays plain text.
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(ansi)
            .init();
    }
    // A store that is down at start does not stop the server: it serves (readyz 503,
    // no new matches) and migrates and resumes the running matches once the store
    // answers (`server::run`).
    let store = match store::Store::connect(config.database_url.as_deref()).await {
        Ok(store) => store,
        Err(e) if e.is_transient() => {
            tracing::warn!(error = %e, "store unavailable at start; serving without it until it answers");
            let url = config
                .database_url
                .as_deref()
                .unwrap_or(store::DEFAULT_DATABASE_URL);
            store::Store::connect_lazy(url)?
        }
        Err(e) => return Err(e.into()),
    };
    let writer = store::spawn_writer_with(store.clone(), config.writer_config());
    let listener = tokio::net::TcpListener::bind(config.bind).await?;
    tracing::info!(addr = %listener.local_addr()?, database = store.backend_name(), "listening");
    let state = AppState::new(config, store.clone(), writer);
    server::run(listener, state, shutdown_signal()).await?;
    store.close().await;
    Ok(())
}

/// Resolves on Ctrl-C or (on Unix) SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => tracing::info!("Ctrl-C received"),
        _ = term => tracing::info!("SIGTERM received"),
    }
}
