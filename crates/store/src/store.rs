//! [`Store`]: one handle over either backend, opening and migrating the database.

use crate::error::StoreError;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};
use std::str::FromStr;
use std::time::Duration;

/// The database used when no URL is given: `ludo.db` in the working directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://ludo.db";

/// How long a query waits for a pooled connection before failing with the
/// transient [`StoreError::Unavailable`] (seconds).
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections per PostgreSQL pool.
const PG_CONNECTIONS: u32 = 10;

/// Connections per SQLite pool (WAL: many readers, one writer at a time).
const SQLITE_CONNECTIONS: u32 = 4;

/// The backend pool behind a [`Store`].
#[derive(Clone, Debug)]
pub(crate) enum Backend {
    Pg(PgPool),
    Sqlite(SqlitePool),
}

/// Runs `$body` with `$pool` bound to the backend's pool. The body is compiled once
/// per backend, so the same runtime query text and binds serve both drivers.
macro_rules! with_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.backend {
            $crate::store::Backend::Pg($pool) => $body,
            $crate::store::Backend::Sqlite($pool) => $body,
        }
    };
}
pub(crate) use with_pool;

/// A transaction's `BEGIN` per database ([`begin_write`]).
pub(crate) trait WriteBegin: sqlx::Database {
    /// The statement that begins a transaction that will write, `None` for the
    /// driver's default `BEGIN`.
    const BEGIN: Option<&'static str>;
}

impl WriteBegin for sqlx::Postgres {
    const BEGIN: Option<&'static str> = None;
}

impl WriteBegin for sqlx::Sqlite {
    /// SQLite takes the write lock at once: a deferred transaction that reads and then
    /// writes fails with `SQLITE_BUSY` ("database is locked") at its first write when
    /// another connection committed after its reads, without waiting for the busy
    /// timeout (seen as a 503 on adding a passkey while turns were written).
    const BEGIN: Option<&'static str> = Some("BEGIN IMMEDIATE");
}

/// Begins a transaction that will write on `pool`: `BEGIN IMMEDIATE` on SQLite (it
/// waits up to the connection's busy timeout for the write lock instead of failing
/// at its first write), `BEGIN` on PostgreSQL.
pub(crate) async fn begin_write<DB: WriteBegin>(
    pool: &sqlx::Pool<DB>,
) -> Result<sqlx::Transaction<'static, DB>, sqlx::Error> {
    match DB::BEGIN {
        Some(statement) => pool.begin_with(statement).await,
        None => pool.begin().await,
    }
}

/// Like [`with_pool`], for the persistence writer's group commits: on an SQLite
/// file, its own one-connection pool ([`Store::sqlite_writes`]).
macro_rules! with_write_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match (&$store.backend, &$store.sqlite_writes) {
            ($crate::store::Backend::Pg($pool), _) => $body,
            ($crate::store::Backend::Sqlite(_), Some($pool)) => $body,
            ($crate::store::Backend::Sqlite($pool), None) => $body,
        }
    };
}
pub(crate) use with_write_pool;

/// The persistence of guests, matches, turn logs and results, over PostgreSQL or
/// SQLite. Cheap to clone: clones share the connection pool.
#[derive(Clone, Debug)]
pub struct Store {
    pub(crate) backend: Backend,
    /// SQLite file only: one connection kept open for the persistence writer's
    /// group commits. Every commit on the same connection keeps that connection's
    /// page cache valid from one commit to the next (a commit made on another
    /// connection of the pool makes SQLite drop and re-read the cached pages) and
    /// wakes the same sqlx worker thread each time (issue 14). `None` for
    /// PostgreSQL and for an in-memory database (one connection in all).
    pub(crate) sqlite_writes: Option<SqlitePool>,
    /// The SQLite database file (`None` for PostgreSQL and an in-memory database):
    /// the persistence writer's thread appends turns to it over its own connection
    /// ([`crate::turn_log`]).
    pub(crate) sqlite_file: Option<std::path::PathBuf>,
}

enum Kind {
    Pg,
    Sqlite,
}

fn kind(url: &str) -> Result<Kind, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Kind::Pg)
    } else if url.starts_with("sqlite:") {
        Ok(Kind::Sqlite)
    } else {
        Err(StoreError::BadUrl)
    }
}

fn sqlite_pool_options(url: &str) -> Result<(SqliteConnectOptions, SqlitePoolOptions), StoreError> {
    let opts = SqliteConnectOptions::from_str(url)
        .map_err(|_| StoreError::BadUrl)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .foreign_keys(true)
        // Statement journals (a multi-row INSERT inside a group commit opens one) in
        // memory, not as a temporary file opened, truncated and unlinked each time.
        .pragma("temp_store", "memory");
    // No ping before each acquire: an SQLite connection is a file handle on its own
    // thread that does not go stale like a network one, and the ping was one more
    // round trip to that thread per group commit (a failed statement is retried by
    // the writer anyway).
    let pool = SqlitePoolOptions::new()
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .test_before_acquire(false);
    // An in-memory database lives and dies with its one connection: keep exactly one.
    let pool = if is_in_memory(url) {
        pool.max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
    } else {
        pool.max_connections(SQLITE_CONNECTIONS)
    };
    Ok((opts, pool))
}

/// The persistence writer's own pool on an SQLite file ([`Store::sqlite_writes`]):
/// one connection, opened at the first commit and then kept (no idle timeout, no
/// maximum lifetime). `None` for an in-memory database, whose one connection is the
/// database.
fn sqlite_writes_pool(url: &str, opts: &SqliteConnectOptions) -> Option<SqlitePool> {
    if is_in_memory(url) {
        return None;
    }
    Some(
        SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .test_before_acquire(false)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_lazy_with(opts.clone()),
    )
}

/// The database file of an SQLite URL; `None` for an in-memory database.
fn sqlite_file(url: &str, opts: &SqliteConnectOptions) -> Option<std::path::PathBuf> {
    (!is_in_memory(url)).then(|| opts.get_filename().to_path_buf())
}

/// True for an SQLite URL naming an in-memory database.
fn is_in_memory(url: &str) -> bool {
    url.contains(":memory:") || url.contains("mode=memory")
}

fn pg_pool_options() -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(PG_CONNECTIONS)
        .acquire_timeout(ACQUIRE_TIMEOUT)
}

/// SQLite schema changes that need foreign keys off, which sqlx's migrations (each
/// inside a transaction) cannot do: `migrations/sqlite-rebuild/`, each run once, on
/// one connection, while the schema still needs it (idempotent).
async fn sqlite_rebuilds(pool: &SqlitePool) -> Result<(), StoreError> {
    use sqlx::Executor;
    const MATCHES_SQL: &str =
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'matches'";
    let mut conn = pool.acquire().await?;
    let sql: String = sqlx::query_scalar(MATCHES_SQL)
        .fetch_one(&mut *conn)
        .await?;
    if sql.contains("'abandoned'") {
        return Ok(());
    }
    conn.execute("PRAGMA foreign_keys = OFF").await?;
    let rebuilt = conn
        .execute(include_str!(
            "../../../migrations/sqlite-rebuild/matches_end_reason.sql"
        ))
        .await;
    if rebuilt.is_err() {
        let _ = conn.execute("ROLLBACK").await;
    }
    conn.execute("PRAGMA foreign_keys = ON").await?;
    rebuilt?;
    Ok(())
}

impl Store {
    /// Opens the database and applies the migrations (`migrations/postgres` or
    /// `migrations/sqlite`).
    ///
    /// * `postgres://…` or `postgresql://…`: PostgreSQL.
    /// * `sqlite:…` (e.g. `sqlite://ludo.db`, `sqlite::memory:`): SQLite; the file is
    ///   created if missing, WAL journal, foreign keys on.
    /// * `None`: [`DEFAULT_DATABASE_URL`].
    ///
    /// Errors: [`StoreError::BadUrl`] for any other scheme or unparsable options,
    /// [`StoreError::Unavailable`] when the server cannot be reached within 5 s,
    /// [`StoreError::Migrate`] when a migration fails.
    pub async fn connect(database_url: Option<&str>) -> Result<Store, StoreError> {
        let url = database_url.unwrap_or(DEFAULT_DATABASE_URL);
        let (backend, sqlite_writes, sqlite_file) = match kind(url)? {
            Kind::Pg => (
                Backend::Pg(pg_pool_options().connect(url).await?),
                None,
                None,
            ),
            Kind::Sqlite => {
                let (opts, pool) = sqlite_pool_options(url)?;
                let writes = sqlite_writes_pool(url, &opts);
                let file = sqlite_file(url, &opts);
                (
                    Backend::Sqlite(pool.connect_with(opts).await?),
                    writes,
                    file,
                )
            }
        };
        let store = Store {
            backend,
            sqlite_writes,
            sqlite_file,
        };
        store.migrate().await?;
        Ok(store)
    }

    /// Like [`Store::connect`] but opens no connection now and applies no
    /// migrations: the first query connects. For a database that may be down at
    /// start-up (the write-behind writer retries until it is back); call
    /// [`Store::migrate`] once it is reachable if the schema may be missing.
    ///
    /// Errors: [`StoreError::BadUrl`].
    pub fn connect_lazy(database_url: &str) -> Result<Store, StoreError> {
        let (backend, sqlite_writes, sqlite_file) = match kind(database_url)? {
            Kind::Pg => (
                Backend::Pg(
                    pg_pool_options()
                        .connect_lazy(database_url)
                        .map_err(|_| StoreError::BadUrl)?,
                ),
                None,
                None,
            ),
            Kind::Sqlite => {
                let (opts, pool) = sqlite_pool_options(database_url)?;
                let writes = sqlite_writes_pool(database_url, &opts);
                let file = sqlite_file(database_url, &opts);
                (Backend::Sqlite(pool.connect_lazy_with(opts)), writes, file)
            }
        };
        Ok(Store {
            backend,
            sqlite_writes,
            sqlite_file,
        })
    }

    /// Applies the migrations not yet applied (idempotent; PostgreSQL takes an
    /// advisory lock so concurrent servers do not race).
    pub async fn migrate(&self) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Pg(pool) => {
                sqlx::migrate!("../../migrations/postgres")
                    .run(pool)
                    .await?
            }
            Backend::Sqlite(pool) => {
                sqlx::migrate!("../../migrations/sqlite").run(pool).await?;
                sqlite_rebuilds(pool).await?;
            }
        }
        Ok(())
    }

    /// True when every migration this build embeds is applied (the schema is the one
    /// this code expects). False when the schema is missing or older (a database
    /// recreated empty, or not migrated yet).
    ///
    /// Errors: [`StoreError::Unavailable`] when the database cannot be reached.
    pub async fn schema_current(&self) -> Result<bool, StoreError> {
        const APPLIED: &str = "SELECT MAX(version) FROM _sqlx_migrations WHERE success";
        let (latest, applied) = match &self.backend {
            Backend::Pg(pool) => (
                sqlx::migrate!("../../migrations/postgres")
                    .iter()
                    .map(|m| m.version)
                    .max(),
                sqlx::query_scalar::<_, Option<i64>>(APPLIED)
                    .fetch_one(pool)
                    .await,
            ),
            Backend::Sqlite(pool) => (
                sqlx::migrate!("../../migrations/sqlite")
                    .iter()
                    .map(|m| m.version)
                    .max(),
                sqlx::query_scalar::<_, Option<i64>>(APPLIED)
                    .fetch_one(pool)
                    .await,
            ),
        };
        match applied.map_err(StoreError::from) {
            Ok(applied) => Ok(applied >= latest),
            Err(e) if e.is_transient() => Err(e),
            // No migrations table: the schema is missing.
            Err(_) => Ok(false),
        }
    }

    /// Readiness probe: runs `SELECT 1`. Errors: [`StoreError::Unavailable`] when the
    /// database cannot be reached.
    pub async fn ping(&self) -> Result<(), StoreError> {
        with_pool!(self, pool => sqlx::query("SELECT 1").execute(pool).await.map(|_| ()))?;
        Ok(())
    }

    /// The pool of the persistence writer's group commits on SQLite (its own
    /// connection on a file, [`Store::sqlite_writes`]); `None` on PostgreSQL.
    pub(crate) fn sqlite_write_pool(&self) -> Option<&SqlitePool> {
        match (&self.backend, &self.sqlite_writes) {
            (Backend::Sqlite(_), Some(writes)) => Some(writes),
            (Backend::Sqlite(pool), None) => Some(pool),
            (Backend::Pg(_), _) => None,
        }
    }

    /// `"postgres"` or `"sqlite"`, for logs.
    pub fn backend_name(&self) -> &'static str {
        match self.backend {
            Backend::Pg(_) => "postgres",
            Backend::Sqlite(_) => "sqlite",
        }
    }

    /// Closes the pool, waiting for checked-out connections to be returned. Later
    /// calls fail with [`StoreError::Database`].
    pub async fn close(&self) {
        if let Some(writes) = &self.sqlite_writes {
            writes.close().await;
        }
        with_pool!(self, pool => pool.close().await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn other_schemes_are_rejected() {
        assert!(matches!(
            Store::connect(Some("mysql://root@127.0.0.1/x")).await,
            Err(StoreError::BadUrl)
        ));
        assert!(matches!(
            Store::connect_lazy("ludo.db"),
            Err(StoreError::BadUrl)
        ));
    }

    /// A transaction begun by [`begin_write`] on SQLite holds the write lock from its
    /// start: while it has only read, another connection's write fails at once
    /// (busy timeout 0) instead of slipping in, so the transaction's own write after
    /// its reads cannot meet `SQLITE_BUSY` (the passkey 503 seen in a browser test).
    #[tokio::test]
    async fn sqlite_write_transactions_take_the_write_lock_at_begin() {
        let path =
            std::env::temp_dir().join(format!("ludo-begin-write-{}.db", uuid::Uuid::new_v4()));
        let opts = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(opts.clone())
            .await
            .unwrap();
        let impatient = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(opts.busy_timeout(std::time::Duration::ZERO))
            .await
            .unwrap();
        sqlx::query("CREATE TABLE t (x INTEGER)")
            .execute(&pool)
            .await
            .unwrap();
        let mut tx = begin_write(&pool).await.unwrap();
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM t")
            .fetch_one(&mut *tx)
            .await
            .unwrap();
        assert_eq!(n, 0);
        let other = sqlx::query("INSERT INTO t VALUES (2)")
            .execute(&impatient)
            .await;
        match other {
            Err(sqlx::Error::Database(db)) => {
                assert!(db.message().contains("locked"), "{}", db.message())
            }
            other => panic!("the other write went through: {other:?}"),
        }
        sqlx::query("INSERT INTO t VALUES (1)")
            .execute(&mut *tx)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let rows: Vec<i64> = sqlx::query_scalar("SELECT x FROM t")
            .fetch_all(&impatient)
            .await
            .unwrap();
        assert_eq!(rows, vec![1]);
        pool.close().await;
        impatient.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }

    #[tokio::test]
    async fn in_memory_sqlite_connects_migrates_and_pings() {
        let store = Store::connect(Some("sqlite::memory:")).await.unwrap();
        assert_eq!(store.backend_name(), "sqlite");
        store.ping().await.unwrap();
        // Migrations are idempotent.
        store.migrate().await.unwrap();
    }
}
