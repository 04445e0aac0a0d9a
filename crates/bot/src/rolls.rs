//! Roll multisets (rule 4.3: a plan takes roll values from the store as a multiset):
//! counts per die face, the distinct sums a subset can make, and subsets of a given sum.

/// A multiset of die values 1..=6, stored as a count per face.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Rolls {
    /// `counts[v]` rolls of value `v`; `counts[0]` is always 0.
    counts: [u8; 7],
}

impl Rolls {
    /// The multiset of `vals`; values outside 1..=6 are ignored (a store never holds them).
    pub(crate) fn from_slice(vals: &[u8]) -> Rolls {
        let mut r = Rolls::default();
        for &v in vals {
            if (1..=6).contains(&v) {
                r.counts[v as usize] += 1;
            }
        }
        r
    }

    /// Number of rolls.
    pub(crate) fn len(&self) -> usize {
        self.counts.iter().map(|&c| c as usize).sum()
    }

    /// True when no roll is held.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sum of the values, in steps.
    pub(crate) fn sum(&self) -> u16 {
        (1..=6u16).map(|v| v * self.counts[v as usize] as u16).sum()
    }

    /// The union of both multisets.
    pub(crate) fn plus(&self, other: &Rolls) -> Rolls {
        let mut r = *self;
        for v in 1..=6 {
            r.counts[v] += other.counts[v];
        }
        r
    }

    /// `self` without `other`, or `None` when `other` is not contained in `self`.
    pub(crate) fn minus(&self, other: &Rolls) -> Option<Rolls> {
        let mut r = *self;
        for v in 1..=6 {
            r.counts[v] = r.counts[v].checked_sub(other.counts[v])?;
        }
        Some(r)
    }

    /// The values in ascending order.
    pub(crate) fn to_vec(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for v in 1..=6u8 {
            out.extend(std::iter::repeat_n(v, self.counts[v as usize] as usize));
        }
        out
    }

    /// Writes the values in ascending order into `buf` (at most its 32 slots: a store
    /// holds at most `engine::rules::MAX_ROLL_STORE` = 32) and returns them, without
    /// allocating.
    pub(crate) fn write_to(self, buf: &mut [u8; 32]) -> &[u8] {
        let mut n = 0;
        for v in 1..=6u8 {
            for _ in 0..self.counts[v as usize] {
                if n < buf.len() {
                    buf[n] = v;
                    n += 1;
                }
            }
        }
        &buf[..n]
    }

    /// Every distinct non-zero sum a sub-multiset can make, ascending, each with one
    /// sub-multiset of that sum that uses the fewest rolls (so more rolls stay stored).
    pub(crate) fn subset_sums(&self) -> Vec<(u16, Rolls)> {
        let total = self.sum() as usize;
        // best[s] = fewest-roll subset of sum s found so far (0/1 knapsack over each roll).
        let mut best: Vec<Option<(u8, Rolls)>> = vec![None; total + 1];
        best[0] = Some((0, Rolls::default()));
        for v in (1..=6usize).rev() {
            for _ in 0..self.counts[v] {
                for s in (v..=total).rev() {
                    if let Some((n, r)) = best[s - v] {
                        if best[s].is_none_or(|(m, _)| n + 1 < m) {
                            let mut r2 = r;
                            r2.counts[v] += 1;
                            best[s] = Some((n + 1, r2));
                        }
                    }
                }
            }
        }
        best.into_iter()
            .enumerate()
            .skip(1)
            .filter_map(|(s, b)| b.map(|(_, r)| (s as u16, r)))
            .collect()
    }

    /// A fewest-roll sub-multiset whose values add up to `sum` steps, if one exists.
    pub(crate) fn subset_with_sum(&self, sum: u16) -> Option<Rolls> {
        if sum == 0 || sum > self.sum() {
            return None;
        }
        self.subset_sums()
            .into_iter()
            .find(|&(s, _)| s == sum)
            .map(|(_, r)| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_sum_and_difference() {
        let r = Rolls::from_slice(&[3, 3, 5, 2]);
        assert_eq!(r.len(), 4);
        assert_eq!(r.sum(), 13);
        assert_eq!(r.to_vec(), vec![2, 3, 3, 5]);
        assert_eq!(r.write_to(&mut [0; 32]), &[2, 3, 3, 5]);
        let part = Rolls::from_slice(&[3, 5]);
        assert_eq!(r.minus(&part).unwrap().to_vec(), vec![2, 3]);
        assert_eq!(part.minus(&r), None, "a larger multiset is not contained");
        assert_eq!(r.minus(&part).unwrap().plus(&part), r);
    }

    #[test]
    fn subset_sums_are_all_distinct_sums_with_fewest_rolls() {
        // {1, 2, 6}: sums 1, 2, 3, 6, 7, 8, 9 (4 and 5 cannot be made).
        let r = Rolls::from_slice(&[1, 2, 6]);
        let sums: Vec<u16> = r.subset_sums().iter().map(|&(s, _)| s).collect();
        assert_eq!(sums, vec![1, 2, 3, 6, 7, 8, 9]);
        for (s, sub) in r.subset_sums() {
            assert_eq!(sub.sum(), s);
            assert!(r.minus(&sub).is_some(), "subset must come from the store");
        }
        // 6 can be {6} or {1, 2, 3}-like; with {1, 2, 3, 6} the fewest-roll subset is {6}.
        let r = Rolls::from_slice(&[1, 2, 3, 6]);
        assert_eq!(r.subset_with_sum(6).unwrap().to_vec(), vec![6]);
        assert_eq!(r.subset_with_sum(13), None, "13 > 12, the sum of all rolls");
        assert_eq!(r.subset_with_sum(12).unwrap().len(), 4);
    }
}
