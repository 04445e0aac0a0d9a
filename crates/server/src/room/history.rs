//! [`History`]: the per-match sequence counter and a bounded ring of the most recent
//! encoded match frames, so that `resync {last_seq}` can replay a short gap without
//! a snapshot.

use crate::ws::Frame;
use std::collections::VecDeque;

/// The match's `seq` counter and its recent frames (those with `seq` ≥ 2: the
/// per-seat `match_started`, seq 1, is never replayed; a snapshot replaces it).
#[derive(Debug)]
pub struct History {
    seq: u64,
    /// A resumed match before its first new message: its turn in progress started
    /// over with a fresh timer nobody has seen, so even an up-to-date client needs
    /// a snapshot.
    restarted: bool,
    cap: usize,
    frames: VecDeque<(u64, Frame)>,
}

impl History {
    /// An empty history keeping at most `cap` frames.
    pub fn new(cap: usize) -> History {
        History {
            seq: 0,
            restarted: false,
            cap,
            frames: VecDeque::with_capacity(cap.min(64)),
        }
    }

    /// The `seq` of the last match message sent (0 before `match_started`).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Takes the next `seq` for a message that is not kept (`match_started`).
    pub fn next_unkept(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// A history whose last sent `seq` is `seq` (a resumed match: nothing older is
    /// kept, so a gap before it needs a snapshot; and until the next message, so
    /// does a client that is up to date — the turn in progress has a new deadline).
    pub fn resumed(cap: usize, seq: u64) -> History {
        History {
            seq,
            restarted: true,
            ..History::new(cap)
        }
    }

    /// Takes the next `seq` for the frame `make(seq)` builds and keeps it.
    pub fn push(&mut self, make: impl FnOnce(u64) -> Frame) -> Frame {
        let frame = make(self.seq + 1);
        self.keep(self.seq + 1, frame.clone());
        frame
    }

    /// Keeps `frame`, sent with `seq` (the next one: `seq` values are kept in order),
    /// and makes `seq` the last sent.
    pub fn keep(&mut self, seq: u64, frame: Frame) {
        debug_assert!(seq > self.seq, "seq {seq} after {}", self.seq);
        self.seq = seq;
        self.restarted = false;
        if self.cap > 0 {
            if self.frames.len() == self.cap {
                self.frames.pop_front();
            }
            self.frames.push_back((seq, frame));
        }
    }

    /// The frames after `last_seq` with their `seq`, in order, when every one of
    /// them is still kept; `None` when a snapshot is needed instead (`last_seq` is 0,
    /// older than the ring, ahead of the match, or a resumed match has sent nothing
    /// new yet).
    pub fn since(&self, last_seq: u64) -> Option<Vec<(u64, Frame)>> {
        if last_seq == 0 || last_seq > self.seq || self.restarted {
            return None;
        }
        if last_seq == self.seq {
            return Some(Vec::new());
        }
        let first = self.frames.front()?.0;
        if first > last_seq + 1 {
            return None;
        }
        Some(
            self.frames
                .iter()
                .filter(|(s, _)| *s > last_seq)
                .cloned()
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(cap: usize, n: u64) -> History {
        let mut h = History::new(cap);
        assert_eq!(h.next_unkept(), 1);
        for _ in 0..n {
            h.push(|s| Frame::from(s.to_string()));
        }
        h
    }

    fn texts(v: Vec<(u64, Frame)>) -> Vec<String> {
        v.into_iter()
            .map(|(s, f)| {
                assert_eq!(f.as_str(), s.to_string(), "each frame with its own seq");
                f.as_str().to_string()
            })
            .collect()
    }

    #[test]
    fn a_short_gap_is_replayed_in_order() {
        let h = filled(4, 5); // seq 2..=6 sent, 3..=6 kept
        assert_eq!(h.seq(), 6);
        assert_eq!(texts(h.since(3).unwrap()), ["4", "5", "6"]);
        assert_eq!(texts(h.since(2).unwrap()), ["3", "4", "5", "6"]);
        assert_eq!(h.since(6).unwrap().len(), 0, "nothing missed");
    }

    #[test]
    fn an_old_gap_start_or_future_seq_needs_a_snapshot() {
        let h = filled(4, 5);
        assert!(h.since(1).is_none(), "seq 2 is no longer kept");
        assert!(h.since(0).is_none(), "match_started is never replayed");
        assert!(h.since(7).is_none(), "ahead of the match");
    }

    /// A resumed match (seq 9 last sent before the stop): an up-to-date client gets a
    /// snapshot (the turn in progress restarted with a new deadline) until the next
    /// message; then the usual rules.
    #[test]
    fn a_resumed_match_answers_a_snapshot_until_its_next_message() {
        let mut h = History::resumed(4, 9);
        assert_eq!(h.seq(), 9);
        assert!(h.since(9).is_none(), "up to date, but the turn restarted");
        assert!(h.since(8).is_none(), "nothing older is kept");
        h.push(|s| Frame::from(s.to_string()));
        assert_eq!(h.since(10).unwrap().len(), 0, "nothing missed");
        assert_eq!(texts(h.since(9).unwrap()), ["10"]);
    }
}
