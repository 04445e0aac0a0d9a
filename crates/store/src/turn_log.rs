//! The turn log of an SQLite file store, appended on a thread of its own over its own
//! connection (issue 14: CPU per turn).
//!
//! Every group commit of a running server is a batch of turns only. On an SQLite
//! file the persistence writer hands such a batch, as it is, to this thread
//! ([`TurnLogWorker::append`]), which encodes the rows and appends them with
//! `rusqlite` (the same SQLite library as sqlx's) with statements prepared once.
//! Through sqlx the event loop itself built a multi-row statement and its bound
//! values (the JSON of every plan and event list included), took the connection
//! from its pool and gave it back; now it only sends the batch and wakes for the
//! answer. The rows are exactly the ones [`crate::Store::append_turns`] writes
//! through sqlx (the match id as a 16-byte blob, enums by their serde names, dice,
//! plan and events as JSON text), and an insert of a turn already stored does
//! nothing, so a retried batch never duplicates. Batches with anything else (a new
//! match, chat, a result) are written through sqlx.

use crate::codec::name;
use crate::error::StoreError;
use crate::writer::WriteOp;
use rusqlite::{params, Connection, OpenFlags};
use std::path::PathBuf;
use std::sync::{mpsc, Arc};
use std::time::Duration;
use tokio::sync::oneshot;

/// A batch for the turn log's thread and where its outcome goes.
type Request = (Arc<Vec<WriteOp>>, oneshot::Sender<Result<(), StoreError>>);

/// The handle of the turn log's thread. The thread stops once the handle is dropped.
pub(crate) struct TurnLogWorker {
    tx: mpsc::Sender<Request>,
}

impl TurnLogWorker {
    /// Starts the thread (`ludo-turn-log`) of the turn log of the SQLite file `path`;
    /// it opens the file at its first batch. Errors: the thread could not be started.
    pub(crate) fn start(path: PathBuf) -> std::io::Result<TurnLogWorker> {
        let (tx, rx) = mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name("ludo-turn-log".into())
            .spawn(move || {
                let mut log = TurnLog::new(path);
                while let Ok((ops, reply)) = rx.recv() {
                    let _ = reply.send(log.append(&ops));
                }
            })?;
        Ok(TurnLogWorker { tx })
    }

    /// Appends the turns of `ops` (all [`WriteOp::Turns`]: [`TurnLog::takes`]) on
    /// the thread and waits for the outcome: [`TurnLog::append`]'s. Errors also with
    /// [`StoreError::Database`] if the thread has stopped (it panicked).
    pub(crate) async fn append(&self, ops: Arc<Vec<WriteOp>>) -> Result<(), StoreError> {
        let stopped = || {
            StoreError::Database(Box::new(std::io::Error::other(
                "the turn log's thread stopped",
            )))
        };
        let (reply, outcome) = oneshot::channel();
        self.tx.send((ops, reply)).map_err(|_| stopped())?;
        outcome.await.map_err(|_| stopped())?
    }
}

/// One turn row (all columns of `turns`); `?1` … `?9` in this order.
const INSERT_TURN: &str = "INSERT INTO turns \
    (match_id, turn_number, seat, dice, kind, plan, events, seq, clock_ms) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (match_id, turn_number) DO NOTHING";

/// How long a statement waits for another connection's write lock before failing
/// with the transient SQLITE_BUSY (as sqlx's default).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The thread's connection to the database file, opened at the first append and
/// reopened after a failure that left it unusable.
pub(crate) struct TurnLog {
    path: PathBuf,
    conn: Option<Connection>,
}

impl TurnLog {
    /// A turn log of the SQLite database file `path` (migrated by
    /// [`crate::Store::connect`]); opens nothing yet.
    pub(crate) fn new(path: PathBuf) -> TurnLog {
        TurnLog { path, conn: None }
    }

    /// True when every op of `ops` is [`WriteOp::Turns`]: a batch [`TurnLog::append`]
    /// takes.
    pub(crate) fn takes(ops: &[WriteOp]) -> bool {
        ops.iter().all(|op| matches!(op, WriteOp::Turns { .. }))
    }

    /// Appends the turns of `ops` (all [`WriteOp::Turns`]) in one transaction
    /// (`BEGIN IMMEDIATE` … `COMMIT`, durable at its end: `synchronous=FULL`), all
    /// or nothing; turns already stored are skipped.
    ///
    /// Errors: [`StoreError::Invalid`] for a turn number outside 1..=2³¹−1,
    /// [`StoreError::UnknownMatch`] (the batch's first match) when a match of the
    /// batch is not stored, [`StoreError::Unavailable`] while another connection
    /// holds the write lock beyond 5 s, [`StoreError::Database`] for any other
    /// failure. Nothing is written then.
    pub(crate) fn append(&mut self, ops: &[WriteOp]) -> Result<(), StoreError> {
        for op in ops {
            if let WriteOp::Turns { turns, .. } = op {
                crate::writes::check_turn_numbers(turns.iter().map(|t| &t.record))?;
            }
        }
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => self.conn.insert(open(&self.path)?),
        };
        let res = insert(conn, ops);
        if res.is_err() && !conn.is_autocommit() && conn.execute_batch("ROLLBACK").is_err() {
            // A connection that cannot even roll back is not reused.
            self.conn = None;
        }
        res.map_err(|e| match &e {
            rusqlite::Error::SqliteFailure(f, _)
                if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY =>
            {
                StoreError::UnknownMatch(ops.first().map(WriteOp::match_id).unwrap_or_default())
            }
            _ => StoreError::from(e),
        })
    }
}

/// Opens `path` as sqlx's connections are opened: WAL journal, `synchronous=FULL`,
/// foreign keys on, temporary tables in memory, a 5 s busy timeout.
fn open(path: &std::path::Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
         PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;",
    )?;
    Ok(conn)
}

/// The transaction of [`TurnLog::append`]; the statements are prepared once per
/// connection.
fn insert(conn: &Connection, ops: &[WriteOp]) -> rusqlite::Result<()> {
    conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
    let mut row = conn.prepare_cached(INSERT_TURN)?;
    for op in ops {
        let WriteOp::Turns { match_id, turns } = op else {
            continue;
        };
        for t in turns {
            let r = &t.record;
            row.execute(params![
                &match_id.as_bytes()[..],
                r.turn_number as i64,
                name(&r.seat),
                json(&r.dice)?,
                name(&r.kind),
                json(&r.plan)?,
                json(&r.events)?,
                t.seq as i64,
                t.clock_ms as i64,
            ])?;
        }
    }
    conn.prepare_cached("COMMIT")?.execute([])?;
    Ok(())
}

/// A value as JSON text (as sqlx's `Json` stores it on SQLite).
fn json<T: serde::Serialize>(v: &T) -> rusqlite::Result<String> {
    serde_json::to_string(v).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}
