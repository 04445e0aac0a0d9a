//! `ludo-server`: reads the configuration (flags or environment), opens the store,
//! starts the persistence writer and serves until SIGTERM or Ctrl-C.

use clap::Parser;
use server::{AppState, Config};
use tracing_subscriber::fmt::format::{FormatEvent, FormatFields, Writer};
use tracing_subscriber::fmt::FmtContext;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::EnvFilter;

/// A log line format that tags every event with the cluster node id (cluster mode):
/// `"node":"<id>"` first in a JSON line, `node=<id> ` before a text line. Node ids
/// are made of letters, digits, `-` and `_` (`cluster::Settings`), so they need no
/// escaping.
struct NodeTagged<F> {
    node: Option<String>,
    inner: F,
}

impl<S, N, F> FormatEvent<S, N> for NodeTagged<F>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let Some(node) = &self.node else {
            return self.inner.format_event(ctx, writer, event);
        };
        let mut line = String::new();
        self.inner
            .format_event(ctx, Writer::new(&mut line), event)?;
        match line.strip_prefix('{') {
            Some(rest) => write!(writer, "{{\"node\":\"{node}\",{rest}"),
            None => write!(writer, "node={node} {line}"),
        }
    }
}

/// jemalloc instead of glibc malloc: the server allocates and frees many small,
/// short-lived buffers per turn (frames, queue blocks, JSON), and glibc's
/// `malloc`/`free` took about a fifth of its CPU samples at 1,000 matches × 1
/// turn/s. jemalloc cut the server's CPU per turn and its RSS per live match;
/// mimalloc cut the CPU as much but raised the RSS by a quarter (BENCHMARKS.md,
/// issue 14).
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    let config = Config::parse();
    let served = match config.runtime() {
        Ok(rt) => rt.block_on(serve(config)),
        Err(e) => Err(format!("cannot start the runtime (--worker-threads): {e}").into()),
    };
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // The error and each of its causes, one line each (a database error's
            // cause is the server's own message: "database \"ludo\" does not exist").
            eprintln!("ludo-server: {e}");
            let mut cause = e.source();
            while let Some(c) = cause {
                eprintln!("  caused by: {c}");
                cause = c.source();
            }
            std::process::ExitCode::FAILURE
        }
    }
}

/// Starts everything `config` asks for and serves until SIGTERM or Ctrl-C; a start
/// that cannot proceed (bad cluster settings, a store that refuses for good, a
/// taken port) is the error.
async fn serve(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    // Listened for before anything else: a SIGTERM while the store or the cluster
    // is still being reached ends the start-up cleanly instead of killing the
    // process with the signal's default action.
    let mut shutdown = Shutdown::listen()?;
    config.check()?;
    // Cluster mode (--nats-url): checked before anything starts; every log line
    // then carries the node id.
    let settings = server::ClusterSettings::from_config(&config)?;
    let node = settings.as_ref().map(|s| s.node_id.clone());
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // `log_internal_errors(false)`: a log line that cannot be written (nobody reads
    // stdout any more) is dropped quietly. Reported, it went to stderr with
    // `eprintln!`, which panics on the same closed pipe, and the task logging it
    // died: after SIGTERM the server kept serving.
    if config.log_json {
        tracing_subscriber::fmt()
            .log_internal_errors(false)
            .json()
            .map_event_format(|f| NodeTagged { node, inner: f })
            .with_env_filter(filter)
            .init();
    } else {
        // Colours only on a terminal: a log redirected to a file stays plain text.
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
        tracing_subscriber::fmt()
            .log_internal_errors(false)
            .with_ansi(ansi)
            .map_event_format(|f| NodeTagged { node, inner: f })
            .with_env_filter(filter)
            .init();
    }
    let (listener, state, store) = tokio::select! {
        biased;
        signal = shutdown.recv() => {
            tracing::info!("{signal} received during start-up: exiting");
            return Ok(());
        }
        started = start(config, settings) => started?,
    };
    server::run(listener, state, shutdown.recv_logged()).await?;
    store.close().await;
    Ok(())
}

/// What serving needs, once the store and (in cluster mode) NATS were reached: the
/// bound listener, the state and the store.
type Started = (tokio::net::TcpListener, AppState, store::Store);

/// Opens the store, joins the cluster (`settings`), starts the persistence writer
/// and binds the listener. Errors: a store that refuses for good, a cluster that
/// cannot be joined, a taken port.
async fn start(
    config: Config,
    settings: Option<server::ClusterSettings>,
) -> Result<Started, Box<dyn std::error::Error>> {
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
    // Cluster mode (--nats-url): a fenced writer stamps each write with its match's
    // lease token; the node joins before serving.
    let cluster = match settings {
        Some(settings) => {
            server::set_node_label(&settings.node_id);
            let cluster = server::Cluster::connect(settings).await?;
            tracing::info!(
                node = cluster.node_id(),
                lease_ms = config.lease_ms,
                "cluster mode"
            );
            Some(cluster)
        }
        None => None,
    };
    let writer = match &cluster {
        Some(c) => {
            store::spawn_writer_fenced(store.clone(), config.writer_config(), c.leases().clone())
        }
        None => store::spawn_writer_with(store.clone(), config.writer_config()),
    };
    let listener = tokio::net::TcpListener::bind(config.bind)
        .await
        .map_err(|e| format!("cannot listen on {} (--bind, LUDO_BIND): {e}", config.bind))?;
    tracing::info!(addr = %listener.local_addr()?, database = store.backend_name(), "listening");
    let state = AppState::new(config, store.clone(), writer);
    if let Some(c) = cluster {
        state.set_cluster(c);
    }
    Ok((listener, state, store))
}

/// The signals that stop the server: SIGTERM and SIGINT (Ctrl-C), listened for from
/// [`Shutdown::listen`] on, so that one arriving during start-up is not lost.
struct Shutdown {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
}

impl Shutdown {
    /// Starts listening. Errors: the signal handlers could not be installed.
    fn listen() -> std::io::Result<Shutdown> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Shutdown {
                term: signal(SignalKind::terminate())?,
                int: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Shutdown {})
    }

    /// Resolves on the next signal, with its name (`SIGTERM`, `SIGINT`).
    async fn recv(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.term.recv() => "SIGTERM",
                _ = self.int.recv() => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            "Ctrl-C"
        }
    }

    /// [`Shutdown::recv`], logging the signal: the graceful stop of `server::run`.
    async fn recv_logged(mut self) {
        let signal = self.recv().await;
        tracing::info!("{signal} received");
    }
}
