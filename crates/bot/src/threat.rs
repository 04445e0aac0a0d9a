//! The threat map: for every ring tile, a rough chance that the opponents capture a
//! piece of the seat to move standing there before that seat's next turn. It is built
//! from the opponents' guardians, stored rolls, exit credits and the dice they will
//! roll (rules 4.1, 5.4, 6.2, 7.2–7.6).

use crate::eval::Weights;
use engine::board::{is_fort, RING_LEN};
use engine::{Location, PieceId, Position, Seat};

/// Capture chances per ring tile, 0.0..=1.0, for pieces of one seat (the "victim").
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ThreatMap {
    /// For a single guardian or a royal standing alone (rules 7.2, 7.3: any unit of
    /// strength ≥ 2, or an opponent reaching its own entry tile, rule 7.5).
    single: [f32; RING_LEN as usize],
    /// For a group of two of the victim's guardians (and a royal they share a tile
    /// with, since that pair blocks strength-2 units, rule 6.2): strength ≥ 3 or rule 7.5.
    pair: [f32; RING_LEN as usize],
}

/// `tail[n]` = probability that the sum of `dice` six-sided dice is at least `n`
/// (`n` = 0..=6·dice; the table ends there, larger sums are impossible).
pub(crate) fn dice_tail(dice: u8) -> Vec<f32> {
    let max = 6 * dice as usize;
    let mut dist = vec![0.0f64; max + 1];
    dist[0] = 1.0;
    for _ in 0..dice {
        let mut next = vec![0.0f64; max + 1];
        for (s, &p) in dist.iter().enumerate() {
            if p > 0.0 {
                for face in 1..=6 {
                    if s + face <= max {
                        next[s + face] += p / 6.0;
                    }
                }
            }
        }
        dist = next;
    }
    let mut tail = vec![0.0f32; max + 1];
    let mut acc = 0.0f64;
    for n in (0..=max).rev() {
        acc += dist[n];
        tail[n] = acc.min(1.0) as f32;
    }
    tail
}

/// Rule 7.2: a unit of `strength` captures a group of `size` ≥ 2 when it is larger, or
/// when both are four.
fn can_capture_group(strength: usize, size: usize) -> bool {
    strength > size || strength == 4
}

/// Index of the tile `d` steps from `from` in direction `sign` (+1 forward, −1 backward).
fn ring_add(from: u8, d: usize, forward: bool) -> usize {
    let n = RING_LEN as usize;
    if forward {
        (from as usize + d) % n
    } else {
        (from as usize + n - d % n) % n
    }
}

impl ThreatMap {
    /// The threats to `victim`'s pieces in `pos` from every other seat that has not
    /// finished. `tail` is [`dice_tail`] for the rule set's `dice_per_turn`. The
    /// victim's own guardians are left out of the blockade check (the map is reused
    /// for every candidate plan of one turn).
    pub(crate) fn build(pos: &Position, victim: Seat, tail: &[f32], w: &Weights) -> ThreatMap {
        const N: usize = RING_LEN as usize;
        let mut survive_single = [1.0f32; N];
        let mut survive_pair = [1.0f32; N];
        // Guardians per seat per ring tile (rule 6.2 blockades, rule 5.4 strength).
        let mut cnt = [[0u8; N]; 4];
        for s in Seat::ALL {
            if s == victim {
                continue;
            }
            for g in PieceId::GUARDIANS {
                if let Location::Ring(r) = pos.seat(s).location(g) {
                    cnt[s.index()][r as usize] += 1;
                }
            }
        }
        let max_new = tail.len().saturating_sub(1);
        for o in Seat::ALL {
            let st = pos.seat(o);
            if o == victim || st.finished.is_some() {
                continue;
            }
            let stored: usize = st.rolls.as_slice().iter().map(|&v| v as usize).sum();
            let reach = (stored + max_new).min(N - 1);
            let p_reach = |d: usize| -> f32 {
                if d <= stored {
                    w.threat_have
                } else {
                    w.threat_have * tail.get(d - stored).copied().unwrap_or(0.0)
                }
            };
            let entry = o.entry();
            let mut units: Vec<(u8, usize)> = (0..N)
                .filter(|&t| cnt[o.index()][t] > 0)
                .map(|t| (t as u8, cnt[o.index()][t] as usize))
                .collect();
            let yard = PieceId::GUARDIANS
                .iter()
                .filter(|&&g| st.location(g) == Location::Yard)
                .count();
            let exits = yard.min(st.exit_credits as usize);
            let mut p1 = [0.0f32; N];
            let mut p2 = [0.0f32; N];
            if exits > 0 {
                // Rule 7.5 [H]: a guardian arriving from the Yard captures on its entry.
                p1[entry as usize] = w.threat_exit;
                p2[entry as usize] = w.threat_exit;
                match units.iter_mut().find(|(t, _)| *t == entry) {
                    Some(u) => u.1 += exits,
                    None => units.push((entry, exits)),
                }
            }
            // Top two single-guardian reach chances per tile (two singles of one
            // seat: the first stops there, the second reaches it with strength 2).
            let mut best = [(0.0f32, usize::MAX); N];
            let mut second = [0.0f32; N];
            for (ui, &(from, k)) in units.iter().enumerate() {
                for forward in [true, false] {
                    for d in 1..=reach {
                        // One guardian needs rolls summing to ≥ d; m guardians stepping
                        // together need m disjoint subsets of ≥ d each (rule 5.3).
                        let p = p_reach(d);
                        if p < 0.005 {
                            break;
                        }
                        let t = ring_add(from, d, forward);
                        let standing = if t == from as usize {
                            0
                        } else {
                            cnt[o.index()][t] as usize
                        };
                        let tile = t as u8;
                        if !is_fort(tile) && tile != entry {
                            // Rules 6.2, 6.4: another seat's group blocks this unit.
                            let strength = k + standing;
                            let blocked = Seat::ALL.iter().any(|&x| {
                                let gx = cnt[x.index()][t] as usize;
                                x != o
                                    && gx >= 2
                                    && !(tile != x.entry() && can_capture_group(strength, gx))
                            });
                            if blocked {
                                break;
                            }
                        }
                        // Chance of reaching t with strength ≥ `need` (rule 5.4: the
                        // unit plus the seat's guardians standing on t).
                        let with_strength = |need: usize| -> f32 {
                            let m = need.saturating_sub(standing).max(1);
                            if m <= k {
                                p_reach(m * d)
                            } else {
                                0.0
                            }
                        };
                        if tile == entry {
                            // Rule 7.5: any guardian reaching its own entry captures all.
                            p1[t] = p1[t].max(p);
                            p2[t] = p2[t].max(p);
                        } else {
                            p1[t] = p1[t].max(with_strength(2));
                            p2[t] = p2[t].max(with_strength(3));
                        }
                        if best[t].1 == ui {
                            best[t].0 = best[t].0.max(p);
                        } else if p > best[t].0 {
                            second[t] = second[t].max(best[t].0);
                            best[t] = (p, ui);
                        } else {
                            second[t] = second[t].max(p);
                        }
                    }
                }
            }
            for t in 0..N {
                let pair_up = w.threat_two_singles * second[t];
                let a = p1[t].max(pair_up);
                survive_single[t] *= 1.0 - a;
                survive_pair[t] *= 1.0 - p2[t];
            }
        }
        ThreatMap {
            single: survive_single.map(|s| 1.0 - s),
            pair: survive_pair.map(|s| 1.0 - s),
        }
    }

    /// Chance that a lone piece of the victim on `loc` is captured. Zero off the ring,
    /// on forts and on the victim's own entry tile (rule 7.6).
    pub(crate) fn single(&self, victim: Seat, loc: Location) -> f32 {
        match loc {
            Location::Ring(r) if !is_fort(r) && r != victim.entry() => self.single[r as usize],
            _ => 0.0,
        }
    }

    /// Chance that a group of two or more of the victim's guardians on `loc` is
    /// captured. Zero off the ring, on forts and on the victim's own entry tile.
    pub(crate) fn pair(&self, victim: Seat, loc: Location) -> f32 {
        match loc {
            Location::Ring(r) if !is_fort(r) && r != victim.entry() => self.pair[r as usize],
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_dice_tail() {
        let t = dice_tail(3);
        assert_eq!(t.len(), 19);
        assert_eq!(t[3], 1.0);
        assert!((t[18] - 1.0 / 216.0).abs() < 1e-6);
        // P(3d6 >= 11) = 108/216 = 0.5.
        assert!((t[11] - 0.5).abs() < 1e-6);
    }

    fn pos(json: &str) -> Position {
        Position::from_json(json).unwrap()
    }

    #[test]
    fn pairs_threaten_singles_and_forts_are_safe() {
        // Red has two guardians together on ring 20 and no stored rolls. To pass a
        // tile d steps away together (strength 2), both need rolls of ≥ d each:
        // the 3 new dice must sum to ≥ 2d (rules 5.3, 5.4).
        let p = pos(r#"{"mode":"clash","to_move":"green","seats":{
            "red":{"pieces":{"G1":"ring:20","G2":"ring:20","G3":"home","G4":"home"}}}}"#);
        let w = Weights::default();
        let tail = dice_tail(3);
        let m = ThreatMap::build(&p, Seat::Green, &tail, &w);
        // d = 3: P(3d6 >= 6) = 206/216.
        let near = m.single(Seat::Green, Location::Ring(23));
        assert!((near - w.threat_have * 206.0 / 216.0).abs() < 1e-6);
        // d = 6 backward (ring 14): P(3d6 >= 12) = 81/216.
        let mid = m.single(Seat::Green, Location::Ring(14));
        assert!((mid - w.threat_have * 81.0 / 216.0).abs() < 1e-6);
        // d = 10: 20 > 18, out of reach for the pair.
        assert_eq!(m.single(Seat::Green, Location::Ring(30)), 0.0);
        assert_eq!(
            m.single(Seat::Green, Location::Ring(24)),
            0.0,
            "fort (rule 7.6)"
        );
        // Strength 2 cannot capture a pair (rule 7.2).
        assert_eq!(m.pair(Seat::Green, Location::Ring(23)), 0.0);
    }

    #[test]
    fn opponent_entry_is_dangerous_with_exit_credits() {
        // Red has a guardian in the Yard and an exit credit: red's entry (17) is
        // threatened by rule 7.5 whatever the group size.
        let p = pos(r#"{"mode":"clash","to_move":"green","seats":{
            "red":{"pieces":{"G2":"home","G3":"home","G4":"home"},"exit_credits":1}}}"#);
        let w = Weights::default();
        let m = ThreatMap::build(&p, Seat::Green, &dice_tail(3), &w);
        assert!(m.pair(Seat::Green, Location::Ring(17)) >= w.threat_exit - 1e-6);
        // A single exited guardian has strength 1 elsewhere: no threat one step on.
        assert_eq!(m.single(Seat::Green, Location::Ring(18)), 0.0);
    }
}
