//! Writing matches: creation with its seats, the append-only turn log and the result.
//! Every write here is idempotent, so the write-behind writer may retry any of them.

use crate::codec::{micros, name};
use crate::error::StoreError;
use crate::lease::Leases;
use crate::model::{ChatEntry, MatchResult, NewMatch};
use crate::store::{with_pool, with_write_pool, Store};
use crate::writer::WriteOp;
use chrono::Utc;
use engine::{Seat, TurnRecord};
use sqlx::types::Json;
use uuid::Uuid;

const INSERT_MATCH: &str = "INSERT INTO matches \
    (id, mode, rules, dice_commitment, created_at, started_at, status, secret_seed) \
    VALUES ($1, $2, $3, $4, $5, $6, 'running', $7) ON CONFLICT (id) DO NOTHING";
const INSERT_DICE: &str = "INSERT INTO match_dice (match_id, dice_scheme) VALUES ($1, $2) \
    ON CONFLICT (match_id) DO NOTHING";
const INSERT_CONTRIBUTION: &str = "INSERT INTO match_contributions \
    (match_id, seat, entropy, defaulted) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (match_id, seat) DO NOTHING";
const SEAL_DICE: &str = "UPDATE match_dice SET dice_sealed_seq = $2 \
    WHERE match_id = $1 AND dice_sealed_seq IS NULL";
const INSERT_SEAT: &str =
    "INSERT INTO match_seats (match_id, seat, player_id, is_bot, name, bot_level) \
    VALUES ($1, $2, $3, $4, $5, $6)";
const INSERT_TURNS_HEAD: &str =
    "INSERT INTO turns (match_id, turn_number, seat, dice, kind, plan, events, seq, clock_ms) ";
const INSERT_CHAT_HEAD: &str = "INSERT INTO match_chat (match_id, seq, seat, name, text, sent_at) ";
const INSERT_CHAT_TAIL: &str = " ON CONFLICT (match_id, seq) DO NOTHING";
const INSERT_TURNS_TAIL: &str = " ON CONFLICT (match_id, turn_number) DO NOTHING";
/// Turns per multi-row INSERT: 7 bound values each stays far below both drivers'
/// limits on bound parameters (SQLite 32,766; PostgreSQL 65,535).
const TURN_ROWS_PER_INSERT: usize = 500;
const END_MATCH: &str = "UPDATE matches SET seed = $2, ended_at = $3, status = 'ended', \
    end_reason = $4, end_seq = $6 WHERE id = $1 AND status = 'running' AND dice_commitment = $5";
const SEAT_RESULT: &str = "UPDATE match_seats SET place = $3, progress = $4, combat = $5, \
    bonus = $6, total = $7, finished = $8 WHERE match_id = $1 AND seat = $2";
const SEAT_LEFT: &str = "UPDATE match_seats SET left_seq = $3 \
    WHERE match_id = $1 AND seat = $2 AND left_seq IS NULL";
const MATCH_STATE: &str = "SELECT status, dice_commitment FROM matches WHERE id = $1";
/// Current fencing tokens of a comma-separated list of match ids, locked against a
/// concurrent claim until the transaction ends (PostgreSQL; cluster mode only).
const LEASE_TOKENS: &str = "SELECT match_id, fencing_token FROM room_leases \
    WHERE match_id = ANY(string_to_array($1, ',')::uuid[]) FOR SHARE";
/// A new match's lease: this node, token 1, `$3` seconds from now.
const INSERT_LEASE: &str = "INSERT INTO room_leases \
    (match_id, node_id, fencing_token, expires_at, listed) \
    VALUES ($1, $2, 1, now() + make_interval(secs => $3), $4) ON CONFLICT (match_id) DO NOTHING";
const DELETE_LEASE: &str = "DELETE FROM room_leases WHERE match_id = $1";

/// Chat lines per multi-row INSERT (6 bound values each).
const CHAT_ROWS_PER_INSERT: usize = 500;

/// A turn row to insert: the match, the record, and `(seq, clock_ms)` when a room
/// logged it (`None` for [`Store::append_turns`]).
type TurnRow<'a> = (Uuid, &'a TurnRecord, Option<(u64, u64)>);

/// One multi-row INSERT of `$chunk` (a slice of [`TurnRow`]) on `$conn`; turns already
/// stored are skipped.
macro_rules! insert_turns {
    ($conn:expr, $chunk:expr) => {{
        let mut q = sqlx::QueryBuilder::new("");
        push_turn_rows!(q, $chunk);
        q.build().execute($conn).await?;
    }};
}

/// Appends one multi-row `INSERT` of `$chunk` (a slice of [`TurnRow`]) to the
/// query builder `$q`; turns already stored are skipped. (A macro, like
/// [`insert_turns`], so one text serves both drivers' bind types.)
macro_rules! push_turn_rows {
    ($q:expr, $chunk:expr) => {{
        $q.push(INSERT_TURNS_HEAD);
        $q.push_values($chunk, |mut b, (match_id, t, logged)| {
            b.push_bind(*match_id)
                .push_bind(t.turn_number as i32)
                .push_bind(name(&t.seat))
                .push_bind(Json(&t.dice))
                .push_bind(name(&t.kind))
                .push_bind(Json(&t.plan))
                .push_bind(Json(&t.events))
                .push_bind(logged.map(|(seq, _)| seq as i64))
                .push_bind(logged.map(|(_, clock)| clock as i64));
        });
        $q.push(INSERT_TURNS_TAIL);
    }};
}

/// Turn numbers must fit the column (1..=2³¹−1).
pub(crate) fn check_turn_numbers<'a>(
    turns: impl Iterator<Item = &'a TurnRecord>,
) -> Result<(), StoreError> {
    for t in turns {
        if t.turn_number == 0 || i32::try_from(t.turn_number).is_err() {
            return Err(StoreError::Invalid(format!(
                "turn number {} is outside 1..=2147483647",
                t.turn_number
            )));
        }
    }
    Ok(())
}

/// Checks that `seats` names each of the four seats exactly once.
fn four_seats(seats: impl Iterator<Item = Seat>, what: &str) -> Result<(), StoreError> {
    let mut seen = [0u8; 4];
    for s in seats {
        seen[s.index()] += 1;
    }
    if seen != [1; 4] {
        return Err(StoreError::Invalid(format!(
            "{what} must name green, red, blue and yellow exactly once"
        )));
    }
    Ok(())
}

/// Checks a new match's seats, commitment and (if given) secret seed.
fn check_new_match(m: &NewMatch) -> Result<(), StoreError> {
    four_seats(m.seats.iter().map(|s| s.seat), "seats")?;
    if !is_commitment(&m.dice_commitment) {
        return Err(StoreError::Invalid(
            "dice_commitment must be 64 lowercase hex digits".into(),
        ));
    }
    if m.secret_seed
        .is_some_and(|s| s.commitment() != m.dice_commitment)
    {
        return Err(StoreError::Invalid(
            "the secret seed does not match the dice commitment".into(),
        ));
    }
    Ok(())
}

fn is_commitment(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Store {
    /// Records a match as it starts (status `running`, no seed) with its four seats,
    /// in one transaction. Repeating an id already stored is a no-op (the first write
    /// wins), so a retried write never duplicates.
    ///
    /// Errors: [`StoreError::Invalid`] when the seats are not the four seats once each,
    /// the commitment is not 64 lowercase hex digits, or a `player_id` names no
    /// stored player. Nothing is written then.
    pub async fn create_match(&self, m: &NewMatch) -> Result<(), StoreError> {
        match self.apply_batch(&[WriteOp::CreateMatch(m.clone())]).await {
            // The only foreign key of a new match: a seat's player.
            Err(StoreError::UnknownMatch(_)) => Err(StoreError::Invalid(
                "a seat names a player that is not stored".into(),
            )),
            other => other,
        }
    }

    /// Appends resolved turns to a match's log. Turns already stored (same match and
    /// turn number) are skipped, so a retried batch never duplicates; stored turns
    /// are never changed.
    ///
    /// Errors: [`StoreError::UnknownMatch`]; [`StoreError::Invalid`] for a turn number
    /// outside 1..=2³¹−1.
    /// Nothing is written then.
    pub async fn append_turns(
        &self,
        match_id: Uuid,
        turns: &[TurnRecord],
    ) -> Result<(), StoreError> {
        self.append_turn_batches(&[(match_id, turns.to_vec())])
            .await
    }

    /// [`Store::append_turns`] for several matches in one transaction (used by the
    /// write-behind writer to batch consecutive turn writes). All or nothing.
    ///
    /// Errors: as [`Store::append_turns`]; [`StoreError::UnknownMatch`] names the
    /// batch's first match when any of its matches is not stored.
    pub async fn append_turn_batches(
        &self,
        batches: &[(Uuid, Vec<TurnRecord>)],
    ) -> Result<(), StoreError> {
        check_turn_numbers(batches.iter().flat_map(|(_, ts)| ts))?;
        // One multi-row INSERT per chunk (not one statement per turn): one round trip
        // and one statement for up to TURN_ROWS_PER_INSERT turns.
        let rows: Vec<TurnRow<'_>> = batches
            .iter()
            .flat_map(|(m, ts)| ts.iter().map(move |t| (*m, t, None)))
            .collect();
        let res: Result<(), sqlx::Error> = match self.sqlite_write_pool() {
            Some(pool) => sqlite_append_in_one_round_trip(pool, &rows).await,
            None => {
                with_pool!(self, pool => async {
                    let mut tx = crate::store::begin_write(pool).await?;
                    for chunk in rows.chunks(TURN_ROWS_PER_INSERT) {
                        insert_turns!(&mut *tx, chunk);
                    }
                    tx.commit().await
                }
                .await)
            }
        };
        match res {
            Err(sqlx::Error::Database(db)) if db.is_foreign_key_violation() => Err(
                StoreError::UnknownMatch(batches.first().map(|b| b.0).unwrap_or_default()),
            ),
            other => other.map_err(StoreError::from),
        }
    }

    /// Records the end of a match in one transaction: seed, end time, reason, status
    /// `ended`, every seat's place and points, and — when two or more human players
    /// sat in it — the new ratings of those players in the match's mode
    /// ([`crate::rating`]; each rated seat keeps its rating before and after). Idempotent: once a match has ended,
    /// later calls change nothing and succeed (the first result wins).
    ///
    /// Errors: [`StoreError::UnknownMatch`]; [`StoreError::Invalid`] when the standings
    /// are not the four seats once each or the seed's SHA-256 is not the match's
    /// commitment. Nothing is written then.
    pub async fn finish_match(&self, r: &MatchResult) -> Result<(), StoreError> {
        self.apply_batch(&[WriteOp::Finish(r.clone())]).await
    }
}

impl Store {
    /// Group commit: writes every op of `ops` in ONE transaction, all or nothing —
    /// new matches (with seats and secret seed) first, then turns (multi-row INSERTs),
    /// chat lines, and results. Every part is idempotent (a retried batch changes
    /// nothing already written), so the writer may retry a batch whose commit
    /// acknowledgement was lost.
    ///
    /// Errors: [`StoreError::Invalid`] for an op that breaks the contract of
    /// [`Store::create_match`], [`Store::append_turns`] or [`Store::finish_match`];
    /// [`StoreError::UnknownMatch`] for turns, chat or a result of a match that is
    /// neither stored nor created in the batch; [`StoreError::Unavailable`] when the
    /// database cannot be reached. Nothing is written then.
    pub(crate) async fn apply_batch(&self, ops: &[WriteOp]) -> Result<(), StoreError> {
        self.apply_batch_fenced(ops, None).await.map(|_| ())
    }

    /// [`Store::apply_batch`] with fencing (cluster mode, PostgreSQL): `fence` is the
    /// node's [`Leases`] and, per op, the fencing token its room held when it made
    /// it. In the same transaction the current token of every match written is read
    /// (`FOR SHARE`: a concurrent claim waits for this transaction, or this one
    /// reads the claim's token) and every op whose token is not the current one is
    /// skipped; a new match's lease (token 1, this node) is inserted with it, and a
    /// finished match's lease is deleted with its result. Returns, per op, true when
    /// it was skipped (fenced).
    ///
    /// Errors: as [`Store::apply_batch`].
    pub(crate) async fn apply_batch_fenced(
        &self,
        ops: &[WriteOp],
        fence: Option<(&Leases, &[i64])>,
    ) -> Result<Vec<bool>, StoreError> {
        for op in ops {
            match op {
                WriteOp::CreateMatch(m) => check_new_match(m)?,
                WriteOp::Turns { turns: ts, .. } => {
                    check_turn_numbers(ts.iter().map(|t| &t.record))?
                }
                WriteOp::Finish(r) => four_seats(r.standings.iter().map(|s| s.seat), "standings")?,
                WriteOp::Contributions {
                    contributions,
                    sealed_seq,
                    ..
                } => {
                    if sealed_seq.is_some() {
                        four_seats(contributions.iter().map(|c| c.seat), "contributions")?
                    }
                }
                WriteOp::Chat(_) | WriteOp::Leave { .. } => {}
            }
        }
        // The steady state of every running match: a batch of turns only.
        if let (None, Some(pool)) = (fence, self.sqlite_write_pool()) {
            if ops.iter().all(|op| matches!(op, WriteOp::Turns { .. })) {
                let rows: Vec<TurnRow<'_>> = ops
                    .iter()
                    .flat_map(|op| match op {
                        WriteOp::Turns { match_id, turns } => turns
                            .iter()
                            .map(|t| (*match_id, &t.record, Some((t.seq, t.clock_ms))))
                            .collect(),
                        _ => Vec::new(),
                    })
                    .collect();
                let outcome = sqlite_append_in_one_round_trip(pool, &rows).await;
                return batch_outcome(outcome.map(|()| None), ops).map(|()| vec![false; ops.len()]);
            }
        }
        // Matches whose current token the transaction must read (new matches have
        // none yet), as one comma-separated list.
        let fenced_ids: String = match fence {
            Some(_) => {
                let mut ids: Vec<Uuid> = ops
                    .iter()
                    .filter(|op| !matches!(op, WriteOp::CreateMatch(_)))
                    .map(WriteOp::match_id)
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                ids.iter()
                    .map(Uuid::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            }
            None => String::new(),
        };
        let mut skipped = vec![false; ops.len()];
        let now = micros(Utc::now());
        let pg = self.is_pg();
        let outcome: Result<Option<StoreError>, sqlx::Error> = with_write_pool!(self, pool => async {
            let mut tx = crate::store::begin_write(pool).await?;
            let res: Result<Option<StoreError>, sqlx::Error> = async {
            if let (Some((_, tokens)), false) = (fence, fenced_ids.is_empty()) {
                let current: Vec<(Uuid, i64)> = sqlx::query_as(LEASE_TOKENS)
                    .bind(&fenced_ids)
                    .fetch_all(&mut *tx)
                    .await?;
                let current: std::collections::HashMap<Uuid, i64> = current.into_iter().collect();
                for (i, op) in ops.iter().enumerate() {
                    skipped[i] = !matches!(op, WriteOp::CreateMatch(_))
                        && current.get(&op.match_id()) != tokens.get(i);
                }
            }
            let mut creates: Vec<&NewMatch> = Vec::new();
            let mut turns: Vec<TurnRow<'_>> = Vec::new();
            let mut chats: Vec<&ChatEntry> = Vec::new();
            let mut finishes: Vec<&MatchResult> = Vec::new();
            let mut leaves: Vec<(Uuid, Seat, u64)> = Vec::new();
            let mut contributions: Vec<(Uuid, &[engine::Contribution], Option<u64>)> = Vec::new();
            for (op, _) in ops.iter().zip(&skipped).filter(|(_, s)| !**s) {
                match op {
                    WriteOp::CreateMatch(m) => creates.push(m),
                    WriteOp::Turns {
                        match_id,
                        turns: ts,
                    } => turns.extend(
                        ts.iter()
                            .map(|t| (*match_id, &t.record, Some((t.seq, t.clock_ms)))),
                    ),
                    WriteOp::Chat(c) => chats.push(c),
                    WriteOp::Leave {
                        match_id,
                        seat,
                        seq,
                    } => leaves.push((*match_id, *seat, *seq)),
                    WriteOp::Finish(r) => finishes.push(r),
                    WriteOp::Contributions {
                        match_id,
                        contributions: cs,
                        sealed_seq,
                    } => contributions.push((*match_id, cs, *sealed_seq)),
                }
            }
            for m in &creates {
                let inserted = sqlx::query(INSERT_MATCH)
                    .bind(m.id)
                    .bind(name(&m.mode))
                    .bind(Json(&m.rules))
                    .bind(&m.dice_commitment)
                    .bind(now)
                    .bind(micros(m.started_at))
                    .bind(m.secret_seed.map(|s| s.to_hex()))
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if inserted == 1 {
                    sqlx::query(INSERT_DICE)
                        .bind(m.id)
                        .bind(name(&m.dice_scheme))
                        .execute(&mut *tx)
                        .await?;
                    for s in &m.seats {
                        sqlx::query(INSERT_SEAT)
                            .bind(m.id)
                            .bind(name(&s.seat))
                            .bind(s.player_id)
                            .bind(s.is_bot)
                            .bind(&s.name)
                            .bind(&s.bot_level)
                            .execute(&mut *tx)
                            .await?;
                    }
                }
                if let Some((leases, _)) = fence {
                    sqlx::query(INSERT_LEASE)
                        .bind(m.id)
                        .bind(leases.node_id())
                        .bind(leases.lease().as_secs_f64())
                        .bind(leases.is_listed(m.id))
                        .execute(&mut *tx)
                        .await?;
                }
            }
            for chunk in turns.chunks(TURN_ROWS_PER_INSERT) {
                insert_turns!(&mut *tx, chunk);
            }
            for chunk in chats.chunks(CHAT_ROWS_PER_INSERT) {
                let mut q = sqlx::QueryBuilder::new(INSERT_CHAT_HEAD);
                q.push_values(chunk, |mut b, c| {
                    b.push_bind(c.match_id)
                        .push_bind(c.seq as i64)
                        .push_bind(c.seat.map(|s| name(&s)))
                        .push_bind(&c.name)
                        .push_bind(&c.text)
                        .push_bind(micros(c.sent_at));
                });
                q.push(INSERT_CHAT_TAIL);
                q.build().execute(&mut *tx).await?;
            }
            for (match_id, seat, seq) in &leaves {
                sqlx::query(SEAT_LEFT)
                    .bind(match_id)
                    .bind(name(seat))
                    .bind(*seq as i64)
                    .execute(&mut *tx)
                    .await?;
            }
            for (match_id, cs, sealed_seq) in &contributions {
                for c in cs.iter() {
                    sqlx::query(INSERT_CONTRIBUTION)
                        .bind(match_id)
                        .bind(name(&c.seat))
                        .bind(c.entropy.to_hex())
                        .bind(c.defaulted)
                        .execute(&mut *tx)
                        .await?;
                }
                if let Some(seq) = sealed_seq {
                    sqlx::query(SEAL_DICE)
                        .bind(match_id)
                        .bind(*seq as i64)
                        .execute(&mut *tx)
                        .await?;
                }
            }
            for r in &finishes {
                let commitment = r.seed.commitment();
                let updated = sqlx::query(END_MATCH)
                    .bind(r.id)
                    .bind(r.seed.to_hex())
                    .bind(micros(r.ended_at))
                    .bind(name(&r.reason))
                    .bind(&commitment)
                    .bind(r.end_seq.map(|s| s as i64))
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if updated == 0 {
                    let state: Option<(String, String)> = sqlx::query_as(MATCH_STATE)
                        .bind(r.id)
                        .fetch_optional(&mut *tx)
                        .await?;
                    match state {
                        None => return Ok(Some(StoreError::UnknownMatch(r.id))),
                        Some((_, stored)) if stored != commitment => {
                            return Ok(Some(StoreError::Invalid(
                                "the seed does not match the match's dice commitment".into(),
                            )))
                        }
                        Some(_) => continue, // ended already: the first result wins
                    }
                }
                if fence.is_some() {
                    sqlx::query(DELETE_LEASE).bind(r.id).execute(&mut *tx).await?;
                }
                for s in &r.standings {
                    sqlx::query(SEAT_RESULT)
                        .bind(r.id)
                        .bind(name(&s.seat))
                        .bind(s.place as i32)
                        .bind(s.progress)
                        .bind(s.combat)
                        .bind(s.bonus)
                        .bind(s.total)
                        .bind(s.finished.map(i32::from))
                        .execute(&mut *tx)
                        .await?;
                }
                // Ratings change in the same transaction as the result.
                if let Some(e) = crate::ratings::rate_in_tx!(tx, r.id, pg) {
                    return Ok(Some(e));
                }
            }
            Ok(None)
            }
            .await;
            // Roll back at once on any failure: a transaction merely dropped is rolled
            // back only when its connection is next used, and on SQLite it would hold
            // the write lock (every other writer then waits out its busy timeout).
            match res {
                Ok(None) => {
                    tx.commit().await?;
                    Ok(None)
                }
                other => {
                    let _ = tx.rollback().await;
                    other
                }
            }
        }
        .await);
        batch_outcome(outcome, ops).map(|()| skipped)
    }
}

/// The result of a batch's transaction as the batch's result: a store error the
/// transaction returned (nothing written), a foreign-key violation as
/// [`StoreError::UnknownMatch`] (the batch's first match), any other database error
/// as [`StoreError`].
fn batch_outcome(
    outcome: Result<Option<StoreError>, sqlx::Error>,
    ops: &[WriteOp],
) -> Result<(), StoreError> {
    match outcome {
        Ok(None) => Ok(()),
        Ok(Some(e)) => Err(e),
        Err(sqlx::Error::Database(db)) if db.is_foreign_key_violation() => {
            let id = ops.first().map(WriteOp::match_id).unwrap_or_default();
            Err(StoreError::UnknownMatch(id))
        }
        Err(e) => Err(StoreError::from(e)),
    }
}

/// SQLite, a batch of turns only (the writer's [`WriteOp::Turns`], or
/// [`Store::append_turn_batches`]): the whole transaction in ONE request to the
/// connection's worker thread, answered with ONE result (issue 14: every result the
/// worker sends back wakes the event loop).
/// * Up to `TURN_ROWS_PER_INSERT` turns (every group commit of a running server): a
///   single multi-row `INSERT` in autocommit mode. SQLite makes one statement its own
///   transaction, all or nothing and durable at its end (`synchronous=FULL`), so no
///   `BEGIN`/`COMMIT` is needed and a failed statement leaves nothing behind.
/// * More turns: `BEGIN IMMEDIATE`, the multi-row INSERTs, `COMMIT` as one list of
///   statements (one result each). The bound values run on across the statements
///   (SQLite `?` parameters, numbered in order). On any failure the transaction is
///   rolled back on the same connection before it returns to the pool (and the
///   connection is closed if even that fails), so nothing is written and no write
///   lock is left behind.
async fn sqlite_append_in_one_round_trip(
    pool: &sqlx::SqlitePool,
    rows: &[TurnRow<'_>],
) -> Result<(), sqlx::Error> {
    use sqlx::Executor;
    let single = rows.len() <= TURN_ROWS_PER_INSERT;
    let mut q =
        sqlx::QueryBuilder::<sqlx::Sqlite>::new(if single { "" } else { "BEGIN IMMEDIATE; " });
    for chunk in rows.chunks(TURN_ROWS_PER_INSERT) {
        push_turn_rows!(q, chunk);
        if !single {
            q.push("; ");
        }
    }
    if !single {
        q.push("COMMIT");
    }
    let mut conn = pool.acquire().await?;
    let res = q.build().execute(&mut *conn).await.map(|_| ());
    if res.is_err() && (single || conn.execute("ROLLBACK").await.is_err()) {
        // "No transaction is active" (autocommit, or BEGIN itself failed) is the
        // usual reason; if the connection is in a state the rollback cannot fix, do
        // not reuse it.
        if conn.execute("SELECT 1").await.is_err() {
            conn.close_on_drop();
        }
    }
    res
}
