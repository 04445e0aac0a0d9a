//! Candidate turn plans in a compact form the greedy search can extend cheaply, their
//! conversion to and from engine [`Plan`]s, and the key that de-duplicates plans with
//! the same effect.

use crate::rolls::Rolls;
use engine::{Direction, PieceId, Plan, PlanError, Position, RuleSet, ValidPlan};

/// A turn plan (rule 4.3) in compact form: per-guardian roll multisets instead of
/// named lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Cand {
    /// Direction of every ring move.
    pub dir: Direction,
    /// Bit `i` set when guardian `i` exits.
    pub exits: u8,
    /// Rolls given to each guardian (empty = no move).
    pub moves: [Rolls; 4],
    /// Royal steps, if the royal moves.
    pub royal: Option<u8>,
    /// The royal moves before the guardians (rule 5.1).
    pub royal_first: bool,
}

/// Two candidates with equal keys resolve identically: resolution depends only on the
/// direction, the exits, each guardian's step sum, the multiset of rolls used and the
/// royal move (rules 4.3, 5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct CandKey {
    dir: Direction,
    exits: u8,
    steps: [u16; 4],
    used: Rolls,
    royal: Option<u8>,
    royal_first: bool,
}

impl Cand {
    /// A plan in `dir` that only exits the guardians in `exits`.
    pub(crate) fn new(dir: Direction, exits: u8) -> Cand {
        Cand {
            dir,
            exits,
            ..Cand::default()
        }
    }

    /// Every roll the plan uses.
    pub(crate) fn used(&self) -> Rolls {
        self.moves
            .iter()
            .fold(Rolls::default(), |acc, r| acc.plus(r))
    }

    /// True when some guardian moves.
    pub(crate) fn moves_any(&self) -> bool {
        self.moves.iter().any(|m| !m.is_empty())
    }

    /// This candidate with guardian `g` (0..=3) given `rolls`.
    pub(crate) fn with_move(mut self, g: usize, rolls: Rolls) -> Cand {
        self.moves[g] = rolls;
        self
    }

    /// This candidate with a royal move of `steps`, first or last.
    pub(crate) fn with_royal(mut self, steps: u8, first: bool) -> Cand {
        self.royal = Some(steps);
        self.royal_first = first;
        self
    }

    /// The de-duplication key. The direction is dropped (set to forward) when nothing
    /// moves, because exits alone do not depend on it.
    pub(crate) fn key(&self) -> CandKey {
        let moving = self.moves_any() || self.royal.is_some();
        CandKey {
            dir: if moving { self.dir } else { Direction::Forward },
            exits: self.exits,
            steps: [0, 1, 2, 3].map(|g| self.moves[g].sum()),
            used: self.used(),
            royal: self.royal,
            royal_first: self.royal.is_some() && self.royal_first,
        }
    }

    /// Rule 4.5 on `pos`: exactly [`Position::validate`] of [`Cand::to_plan`], without
    /// building the engine plan ([`Position::validate_compact`]).
    pub(crate) fn validate(&self, pos: &Position, rules: &RuleSet) -> Result<ValidPlan, PlanError> {
        let mut bufs = [[0u8; 32]; 4];
        let [b0, b1, b2, b3] = &mut bufs;
        let moves = [
            self.moves[0].write_to(b0),
            self.moves[1].write_to(b1),
            self.moves[2].write_to(b2),
            self.moves[3].write_to(b3),
        ];
        pos.validate_compact(
            rules,
            self.dir,
            self.exits,
            moves,
            self.royal,
            self.royal_first,
        )
    }

    /// The engine plan (§11 notation).
    pub(crate) fn to_plan(self) -> Plan {
        let mut plan = Plan::new(self.dir);
        for g in PieceId::GUARDIANS {
            if self.exits & (1 << g.index()) != 0 {
                plan = plan.exit(g);
            }
        }
        for g in PieceId::GUARDIANS {
            let m = &self.moves[g.index()];
            if !m.is_empty() {
                plan = plan.mv(g, &m.to_vec());
            }
        }
        if let Some(steps) = self.royal {
            plan = plan.royal(steps, self.royal_first);
        }
        plan
    }

    /// The compact form of an engine plan, or `None` when the plan names an unknown
    /// piece, a roll outside 1..=6, or royal steps outside 1..=255 (such a plan is
    /// illegal anyway, rule 4.5).
    pub(crate) fn from_plan(plan: &Plan) -> Option<Cand> {
        let mut c = Cand::new(plan.direction, 0);
        for name in &plan.exits {
            let g = name.parse::<PieceId>().ok().filter(|p| !p.is_royal())?;
            c.exits |= 1 << g.index();
        }
        for (name, rolls) in &plan.moves {
            let g = name.parse::<PieceId>().ok().filter(|p| !p.is_royal())?;
            let mut vals = Vec::with_capacity(rolls.len());
            for &v in rolls {
                if !(1..=6).contains(&v) {
                    return None;
                }
                vals.push(v as u8);
            }
            c.moves[g.index()] = Rolls::from_slice(&vals);
        }
        if let Some(r) = plan.royal {
            c.royal = Some(u8::try_from(r).ok().filter(|&r| r > 0)?);
            c.royal_first = plan.royal_first;
        }
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_round_trip() {
        let plan = Plan::new(Direction::Backward)
            .exit(PieceId::G3)
            .mv(PieceId::G1, &[3, 3, 5])
            .mv(PieceId::G3, &[2])
            .royal(4, true);
        let c = Cand::from_plan(&plan).unwrap();
        assert_eq!(c.exits, 0b100);
        assert_eq!(c.moves[0].to_vec(), vec![3, 3, 5]);
        assert_eq!(c.to_plan(), plan);
        assert_eq!(c.used().to_vec(), vec![2, 3, 3, 5]);
    }

    #[test]
    fn keys_identify_plans_with_the_same_effect() {
        let a = Cand::new(Direction::Forward, 0).with_move(0, Rolls::from_slice(&[1, 5]));
        let b = Cand::new(Direction::Forward, 0).with_move(0, Rolls::from_slice(&[5, 1]));
        assert_eq!(a.key(), b.key(), "order of rolls does not matter");
        // Same sum, different rolls used: different stores afterwards.
        let c = Cand::new(Direction::Forward, 0).with_move(0, Rolls::from_slice(&[6]));
        assert_ne!(a.key(), c.key());
        // Exits only: the direction does not matter.
        assert_eq!(
            Cand::new(Direction::Forward, 1).key(),
            Cand::new(Direction::Backward, 1).key()
        );
        // royal_first matters only with a royal move.
        let mut d = Cand::new(Direction::Forward, 0);
        d.royal_first = true;
        assert_eq!(d.key(), Cand::new(Direction::Forward, 0).key());
    }

    #[test]
    fn bad_plans_have_no_compact_form() {
        let mut p = Plan::pass();
        p.moves.insert("R".into(), vec![1]);
        assert_eq!(Cand::from_plan(&p), None);
        let mut p = Plan::pass();
        p.moves.insert("G1".into(), vec![7]);
        assert_eq!(Cand::from_plan(&p), None);
        let mut p = Plan::pass();
        p.royal = Some(-1);
        assert_eq!(Cand::from_plan(&p), None);
    }
}
