//! Replays (RULES.md §10): the seed, the rule set and every turn's plan are enough to
//! re-play a match; [`verify`] re-plays one and names the first difference.

use crate::dice::{Contribution, DiceScheme, Seed};
use crate::game::{EndReason, Match, MatchEnd, TurnKind, TurnRecord};
use crate::rules::{Mode, RuleSet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What re-playing a match needs: rule set, mode, seed (revealed once the match has
/// ended), its commitment, every turn in order and the end. Extra fields (match id,
/// players, times) are ignored when reading one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Replay {
    /// The rule set the match was played with.
    pub rules: RuleSet,
    /// journey or clash.
    pub mode: Mode,
    /// SHA-256 of the seed, published at match start (hex).
    pub dice_commitment: String,
    /// The seed (hex); null while the match is running.
    pub seed: Option<Seed>,
    /// Which inputs key the dice: `server_seed` (the seed alone; the default, so a
    /// replay from before issue 31 reads as that scheme) or `contributed` (the seed
    /// and `contributions`, `proto/README.md` §10).
    #[serde(default)]
    pub dice_scheme: DiceScheme,
    /// Scheme `contributed`: every seat's recorded contribution in seat order, once
    /// sealed (before the first roll); absent for `server_seed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contributions: Option<Vec<Contribution>>,
    /// Every resolved turn, in order.
    pub turns: Vec<TurnRecord>,
    /// Seats whose player left the match (server rule: they rank last); empty when
    /// nobody left.
    #[serde(default)]
    pub left: Vec<crate::board::Seat>,
    /// The end, once the match is over.
    pub end: Option<MatchEnd>,
}

/// The first difference between a replay and its re-play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {field} differs: recorded {expected}, re-played {got}", turn.map_or("match".to_string(), |t| format!("turn {t}")))]
pub struct ReplayMismatch {
    /// The first differing turn (`None` for match-level fields: seed, end).
    pub turn: Option<u32>,
    /// Which field differs (`dice`, `seat`, `events`, `plan`, `standings` …).
    pub field: String,
    /// The recorded value (JSON).
    pub expected: String,
    /// The re-played value (JSON).
    pub got: String,
}

fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn mismatch<T: Serialize>(turn: Option<u32>, field: &str, expected: &T, got: &T) -> ReplayMismatch {
    ReplayMismatch {
        turn,
        field: field.to_string(),
        expected: json(expected),
        got: json(got),
    }
}

/// Re-plays `replay` from its seed and checks every die, seat, event and the final
/// standings. Returns the re-played match.
///
/// Errors: the first [`ReplayMismatch`] (a missing seed, a commitment that is not the
/// SHA-256 of the seed, or the first turn or end field that differs).
pub fn verify(replay: &Replay) -> Result<Match, ReplayMismatch> {
    let seed = replay.seed.ok_or_else(|| {
        mismatch(
            None,
            "seed",
            &"null (no seed is revealed before the match has ended)",
            &"a seed to re-play from",
        )
    })?;
    if seed.commitment() != replay.dice_commitment.to_lowercase() {
        return Err(mismatch(
            None,
            "dice_commitment",
            &replay.dice_commitment,
            &seed.commitment(),
        ));
    }
    let bad_rules = |e: crate::rules::InvalidRuleSet| {
        mismatch(
            None,
            "rules",
            &"a valid rule set".to_string(),
            &e.to_string(),
        )
    };
    let mut m = match (replay.dice_scheme, &replay.contributions) {
        (DiceScheme::ServerSeed, None) => {
            Match::new(replay.rules.clone(), replay.mode, seed, 0).map_err(bad_rules)?
        }
        (DiceScheme::ServerSeed, Some(_)) => {
            return Err(mismatch(
                None,
                "contributions",
                &"none (scheme server_seed)".to_string(),
                &"contributions recorded".to_string(),
            ))
        }
        (DiceScheme::Contributed, contributions) => {
            let mut m = Match::new_contributed(replay.rules.clone(), replay.mode, seed, 0)
                .map_err(bad_rules)?;
            match contributions {
                Some(c) => m.seal(c.clone(), 0).map_err(|e| {
                    mismatch(
                        None,
                        "contributions",
                        &"the four seats in order, 16..=64 bytes each or a default".to_string(),
                        &e.to_string(),
                    )
                })?,
                None if !replay.turns.is_empty() => {
                    return Err(mismatch(
                        None,
                        "contributions",
                        &"recorded (the match has turns)".to_string(),
                        &"none".to_string(),
                    ))
                }
                None => {}
            }
            m
        }
    };
    for rec in &replay.turns {
        let t = Some(rec.turn_number);
        let Some(cur) = m.current_turn().cloned() else {
            return Err(mismatch(t, "turn", &rec.turn_number, &0));
        };
        if cur.turn_number != rec.turn_number {
            return Err(mismatch(
                t,
                "turn_number",
                &rec.turn_number,
                &cur.turn_number,
            ));
        }
        if cur.seat != rec.seat {
            return Err(mismatch(t, "seat", &rec.seat, &cur.seat));
        }
        if cur.dice != rec.dice {
            return Err(mismatch(t, "dice", &rec.dice, &cur.dice));
        }
        let out = match rec.kind {
            TurnKind::Timeout => m.force_timeout(),
            _ => m.submit(rec.seat, rec.turn_number, &rec.plan, 0),
        }
        .map_err(|e| mismatch(t, "plan", &"accepted".to_string(), &e.to_string()))?;
        if out.record.events != rec.events {
            let i = out
                .record
                .events
                .iter()
                .zip(&rec.events)
                .position(|(a, b)| a != b)
                .unwrap_or(out.record.events.len().min(rec.events.len()));
            return Err(mismatch(
                t,
                &format!("events[{i}]"),
                &rec.events.get(i),
                &out.record.events.get(i),
            ));
        }
    }
    for &seat in &replay.left {
        m.leave(seat);
    }
    if let Some(end) = &replay.end {
        let got = match (m.end(), end.reason) {
            (Some(e), _) => e.clone(),
            (None, EndReason::Abandoned) => m.end_abandoned(),
            (None, _) => m.end_by_clock(),
        };
        if got.reason != end.reason {
            return Err(mismatch(None, "end.reason", &end.reason, &got.reason));
        }
        if got.standings != end.standings {
            return Err(mismatch(
                None,
                "end.standings",
                &end.standings,
                &got.standings,
            ));
        }
    }
    Ok(m)
}

/// Builds the replay of `m` (the seed only once it has ended).
pub fn replay_of(m: &Match) -> Replay {
    Replay {
        rules: m.rules().clone(),
        mode: m.position().mode(),
        dice_commitment: m.commitment(),
        seed: m.is_over().then(|| m.seed()),
        dice_scheme: m.dice_scheme(),
        contributions: m.contributions().map(<[Contribution]>::to_vec),
        turns: m.log().to_vec(),
        left: m.left().to_vec(),
        end: m.end().cloned(),
    }
}
