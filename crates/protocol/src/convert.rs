//! Wire payloads built from the engine's records. The server runs each engine
//! [`engine::Match`] on Unix milliseconds, so the engine's deadlines
//! ([`TurnStart::deadline_ms`], [`engine::Match::deadline_ms`]) are the wire's Unix-ms
//! deadlines unchanged.

use crate::server::{FinalStanding, MatchEnded, RatingChange, TurnResolved, TurnStarted};
use engine::{MatchEnd, Seat, Seed, Standing, TurnRecord, TurnStart};
use uuid::Uuid;

/// Where a finished match's replay is served: `/api/v1/matches/{match_id}/replay`.
pub fn replay_url(match_id: Uuid) -> String {
    format!("/api/v1/matches/{match_id}/replay")
}

impl TurnStarted {
    /// `turn_started` for `start`, sent at `now_ms` (Unix ms) in a match whose clock
    /// runs out at `match_deadline_ms` (Unix ms). Remaining times saturate at 0.
    pub fn from_turn_start(
        match_id: Uuid,
        start: &TurnStart,
        match_deadline_ms: u64,
        now_ms: u64,
    ) -> TurnStarted {
        TurnStarted {
            match_id,
            seat: start.seat,
            turn_number: start.turn_number,
            dice: start.dice.clone(),
            dropped: start.dropped.clone(),
            roll_store: start.roll_store.clone(),
            exit_credits: start.exit_credits,
            turn_deadline_ms: start.deadline_ms,
            turn_remaining_ms: start.deadline_ms.saturating_sub(now_ms),
            match_remaining_ms: match_deadline_ms.saturating_sub(now_ms),
            now_ms,
        }
    }
}

impl TurnResolved {
    /// `turn_resolved` for a resolved turn, with the standings after it (rule 9.2).
    pub fn from_record(
        match_id: Uuid,
        record: &TurnRecord,
        standings: Vec<Standing>,
    ) -> TurnResolved {
        TurnResolved {
            match_id,
            turn_number: record.turn_number,
            seat: record.seat,
            kind: record.kind,
            plan: record.plan.clone(),
            events: record.events.clone(),
            standings,
        }
    }
}

impl MatchEnded {
    /// `match_ended` for the end of a match, revealing its `seed` (rule 9.1, RULES.md
    /// §10) and pointing at its replay ([`replay_url`]).
    pub fn from_end(match_id: Uuid, end: &MatchEnd, seed: Seed) -> MatchEnded {
        MatchEnded {
            match_id,
            standings: end
                .standings
                .iter()
                .map(|s| FinalStanding {
                    standing: s.clone(),
                    rating: None,
                })
                .collect(),
            reason: end.reason,
            seed: seed.to_hex(),
            replay_url: replay_url(match_id),
        }
    }

    /// Sets each seat's rating change from `changes` (seat, change); seats not
    /// named keep none.
    pub fn with_ratings(mut self, changes: &[(Seat, RatingChange)]) -> MatchEnded {
        for s in &mut self.standings {
            s.rating = changes
                .iter()
                .find(|(seat, _)| *seat == s.standing.seat)
                .map(|(_, c)| *c);
        }
        self
    }
}
