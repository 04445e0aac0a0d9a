//! Test support (feature `testing`, for this workspace's tests only): throw-away
//! PostgreSQL databases and a TCP gate that makes a database look down.

use sqlx::postgres::PgPool;
use sqlx::Executor;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use url::Url;
use uuid::Uuid;

/// The PostgreSQL server of the tests: `LUDO_TEST_PG_URL`, or the local server as
/// user `postgres` (trust auth).
pub fn pg_admin_url() -> String {
    std::env::var("LUDO_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string())
}

/// `host:port` of a PostgreSQL URL (port 5432 when it names none).
pub fn authority(url: &str) -> String {
    let u = Url::parse(url).expect("a URL");
    format!(
        "{}:{}",
        u.host_str().unwrap_or("127.0.0.1"),
        u.port().unwrap_or(5432)
    )
}

/// `url` reached through `addr` (a [`Gate`]): the same user, database and query.
pub fn url_via(url: &str, addr: SocketAddr) -> String {
    let mut u = Url::parse(url).expect("a URL");
    u.set_host(Some(&addr.ip().to_string()))
        .expect("an IP host");
    u.set_port(Some(addr.port())).expect("a port");
    u.into()
}

/// A fresh PostgreSQL database `<prefix>_<uuid>`, dropped by [`TempPg::drop_db`].
#[derive(Debug)]
pub struct TempPg {
    /// The database name.
    pub name: String,
    /// Its URL (the admin URL with the database replaced).
    pub url: String,
    admin: PgPool,
}

impl TempPg {
    /// Creates the database. Panics when PostgreSQL cannot be reached: tests that
    /// need it must not pass silently without it.
    pub async fn create(prefix: &str) -> TempPg {
        let admin_url = pg_admin_url();
        let admin = PgPool::connect(&admin_url)
            .await
            .unwrap_or_else(|e| panic!("PostgreSQL is required for this test ({admin_url}): {e}"));
        let name = format!("{prefix}_{}", Uuid::new_v4().simple());
        admin
            .execute(format!("CREATE DATABASE {name}").as_str())
            .await
            .expect("CREATE DATABASE");
        let mut url = Url::parse(&admin_url).expect("LUDO_TEST_PG_URL is a URL");
        url.set_path(&name);
        TempPg {
            name,
            url: url.into(),
            admin,
        }
    }

    /// `host:port` of the server.
    pub fn authority(&self) -> String {
        authority(&self.url)
    }

    /// Drops the database, closing its remaining connections.
    pub async fn drop_db(self) {
        self.admin
            .execute(format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name).as_str())
            .await
            .expect("DROP DATABASE");
        self.admin.close().await;
    }
}

/// Runs `f` as a task so that cleanup can run even when it panics; re-raise with
/// `std::panic::resume_unwind`.
pub async fn run_catching<F>(f: F) -> Result<(), Box<dyn std::any::Any + Send>>
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    tokio::spawn(f).await.map_err(|e| e.into_panic())
}

/// A TCP gate in front of a database. Open: forwards each connection. Closed: cuts
/// every forwarded connection at once and accepts and drops new ones, so the
/// database looks down to everything behind the gate.
#[derive(Debug)]
pub struct Gate {
    /// Where to connect instead of the database.
    pub addr: SocketAddr,
    inner: Arc<Mutex<GateState>>,
    refused: Arc<AtomicUsize>,
}

#[derive(Debug)]
struct GateState {
    open: bool,
    /// Cancelled on close: every connection forwarded since the last close ends.
    cut: CancellationToken,
}

impl Gate {
    /// An open gate to `target` (`host:port`).
    pub async fn start(target: String) -> Gate {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let inner = Arc::new(Mutex::new(GateState {
            open: true,
            cut: CancellationToken::new(),
        }));
        let refused = Arc::new(AtomicUsize::new(0));
        let (st, r) = (inner.clone(), refused.clone());
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                // The lock guards only this read; it is never held across an await.
                let cut = {
                    let g = st.lock().expect("gate lock");
                    g.open.then(|| g.cut.clone())
                };
                let Some(cut) = cut else {
                    r.fetch_add(1, Ordering::SeqCst);
                    drop(inbound);
                    continue;
                };
                let target = target.clone();
                tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(&target).await {
                        tokio::select! {
                            _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                            _ = cut.cancelled() => {}
                        }
                    }
                });
            }
        });
        Gate {
            addr,
            inner,
            refused,
        }
    }

    /// Cuts every connection and refuses new ones.
    pub fn close(&self) {
        let mut g = self.inner.lock().expect("gate lock");
        g.open = false;
        g.cut.cancel();
        g.cut = CancellationToken::new();
    }

    /// Forwards again.
    pub fn open(&self) {
        self.inner.lock().expect("gate lock").open = true;
    }

    /// Connections refused while closed.
    pub fn refused(&self) -> usize {
        self.refused.load(Ordering::SeqCst)
    }
}
