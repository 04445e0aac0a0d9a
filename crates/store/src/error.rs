//! [`StoreError`]: every way a store call can fail, with [`StoreError::is_transient`]
//! telling the write-behind writer which failures are worth retrying.

use uuid::Uuid;

/// The driver's error behind [`StoreError::Unavailable`] and [`StoreError::Database`]:
/// an `sqlx::Error`, or a `rusqlite::Error` from the SQLite turn log.
pub type DriverError = Box<dyn std::error::Error + Send + Sync>;

/// Why a store call failed. `Display` never contains SQL text, table names or
/// connection strings (safe to show to a client); the underlying error, with the
/// details, is kept as the `source` for logs.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or answered with a temporary condition
    /// (connection refused or lost, pool timed out, server shutting down, lock
    /// contention). Retrying later may succeed: [`StoreError::is_transient`] is true.
    #[error("the database is unavailable")]
    Unavailable(#[source] DriverError),
    /// Any other database failure (a query the server rejected, a closed pool).
    #[error("database error")]
    Database(#[source] DriverError),
    /// Applying the schema migrations failed.
    #[error("database migration failed")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database URL is neither `postgres://…`/`postgresql://…` nor `sqlite:…`,
    /// or its options could not be parsed.
    #[error("unsupported or malformed database URL (expected postgres://… or sqlite:…)")]
    BadUrl,
    /// A unique key is already taken: a player id or token hash (`create_guest`).
    #[error("already exists: {0}")]
    Conflict(&'static str),
    /// No match with this id is stored (`append_turns`, `finish_match`).
    #[error("unknown match {0}")]
    UnknownMatch(Uuid),
    /// The caller's input breaks the store's contract (seats, page limit, a seed that
    /// does not match the commitment…). Nothing was written.
    #[error("invalid input: {0}")]
    Invalid(String),
    /// A stored value could not be read back (bad JSON, unknown enum name). Points
    /// at data written by something other than this crate.
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
}

impl StoreError {
    /// True for failures that may go away by themselves (database down or busy): the
    /// write-behind writer retries those forever; all others are permanent.
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

/// PostgreSQL SQLSTATE classes/codes that mean "try again later": connection
/// exceptions (08), insufficient resources (53), operator intervention (57P0x:
/// shutdown, crash, cannot connect now), serialization failure and deadlock.
fn pg_transient(code: &str) -> bool {
    code.starts_with("08")
        || code.starts_with("53")
        || code.starts_with("57P0")
        || code == "40001"
        || code == "40P01"
}

/// SQLite primary result codes SQLITE_BUSY (5) and SQLITE_LOCKED (6), also when
/// reported as an extended code (low byte).
fn sqlite_transient(code: &str) -> bool {
    code.parse::<i64>()
        .map(|c| matches!(c & 0xff, 5 | 6))
        .unwrap_or(false)
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        use sqlx::Error as E;
        let transient = match &e {
            E::Io(_) | E::Tls(_) | E::PoolTimedOut | E::WorkerCrashed => true,
            E::Database(db) => {
                let code = db.code().unwrap_or_default();
                if db
                    .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
                    .is_some()
                {
                    pg_transient(&code)
                } else {
                    sqlite_transient(&code)
                }
            }
            _ => false,
        };
        if transient {
            return StoreError::Unavailable(Box::new(e));
        }
        match e {
            E::ColumnDecode { index, source } => {
                StoreError::Corrupt(format!("column {index}: {source}"))
            }
            E::Decode(source) => StoreError::Corrupt(source.to_string()),
            other => StoreError::Database(Box::new(other)),
        }
    }
}

/// The SQLite turn log's errors (rusqlite), classified as sqlx's SQLite errors are:
/// SQLITE_BUSY and SQLITE_LOCKED are transient, any other failure is not.
impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        let transient = match &e {
            rusqlite::Error::SqliteFailure(f, _) => sqlite_transient(&f.extended_code.to_string()),
            _ => false,
        };
        if transient {
            StoreError::Unavailable(Box::new(e))
        } else {
            StoreError::Database(Box::new(e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_failures_are_transient_and_hide_details() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "127.0.0.1:1");
        let e = StoreError::from(sqlx::Error::Io(io));
        assert!(e.is_transient());
        assert_eq!(e.to_string(), "the database is unavailable");
        assert!(StoreError::from(sqlx::Error::PoolTimedOut).is_transient());
    }

    #[test]
    fn closed_pool_and_row_not_found_are_permanent() {
        assert!(!StoreError::from(sqlx::Error::PoolClosed).is_transient());
        let e = StoreError::from(sqlx::Error::RowNotFound);
        assert!(!e.is_transient());
        assert_eq!(e.to_string(), "database error");
    }

    #[test]
    fn sqlstate_and_sqlite_codes_classified() {
        assert!(pg_transient("08006")); // connection_failure
        assert!(pg_transient("57P01")); // admin_shutdown
        assert!(pg_transient("40001")); // serialization_failure
        assert!(!pg_transient("23505")); // unique_violation
        assert!(sqlite_transient("5")); // SQLITE_BUSY
        assert!(sqlite_transient("517")); // SQLITE_BUSY_SNAPSHOT
        assert!(sqlite_transient("6")); // SQLITE_LOCKED
        assert!(!sqlite_transient("2067")); // SQLITE_CONSTRAINT_UNIQUE
        assert!(!sqlite_transient("x"));
    }

    /// The turn log's errors are classified like sqlx's SQLite ones.
    #[test]
    fn rusqlite_busy_is_transient_and_a_constraint_is_not() {
        let failure = |code: i32| {
            StoreError::from(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(code),
                None,
            ))
        };
        assert!(failure(5).is_transient()); // SQLITE_BUSY
        assert!(failure(6).is_transient()); // SQLITE_LOCKED
        let fk = failure(787); // SQLITE_CONSTRAINT_FOREIGNKEY
        assert!(!fk.is_transient());
        assert_eq!(fk.to_string(), "database error");
    }
}
