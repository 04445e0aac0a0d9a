//! Checkpoints (rule 8.2) and the per-piece record of those already scored in the
//! current cycle (rule 8.3).

use crate::board::{fort_index, Location, Seat, FORTS};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// Rule 8.2: a checkpoint of a piece, named in the notation as `"entry"`,
/// `"fort:<ring index>"`, `"entry:<seat>"`, `"midpoint"` or `"home"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Checkpoint {
    /// The piece's own entry tile.
    Entry,
    /// A fort, by ring index (7, 12, 24, 29, 41, 46, 58, 63).
    Fort(u8),
    /// Another seat's entry tile (never the piece's midpoint).
    EntryOf(Seat),
    /// The piece's midpoint (rule 8.4; never recorded).
    Midpoint,
    /// Home.
    Home,
}

impl Checkpoint {
    /// Bit of this checkpoint in a [`Record`]; `None` for the midpoint, which is
    /// never recorded (rule 8.4).
    pub(crate) fn bit(self) -> Option<u16> {
        Some(match self {
            Checkpoint::Entry => 1,
            Checkpoint::Fort(t) => 1 << (1 + fort_index(t)?),
            Checkpoint::EntryOf(s) => 1 << (9 + s.index()),
            Checkpoint::Home => 1 << 13,
            Checkpoint::Midpoint => return None,
        })
    }

    /// Rule 8.2: the checkpoint a piece of `seat` reaches on `loc`, if any. The
    /// midpoint tile is only the midpoint, not also an entry tile.
    pub fn at(seat: Seat, loc: Location) -> Option<Checkpoint> {
        match loc {
            Location::Ring(r) if r == seat.midpoint() => Some(Checkpoint::Midpoint),
            Location::Ring(r) if r == seat.entry() => Some(Checkpoint::Entry),
            Location::Ring(r) if fort_index(r).is_some() => Some(Checkpoint::Fort(r)),
            Location::Ring(r) => Seat::owning_entry(r).map(Checkpoint::EntryOf),
            Location::Home => Some(Checkpoint::Home),
            _ => None,
        }
    }

    /// True when a piece of `seat` can have this checkpoint in its record.
    pub fn valid_for(self, seat: Seat) -> bool {
        match self {
            Checkpoint::EntryOf(s) => s != seat && s != seat.opposite(),
            Checkpoint::Fort(t) => fort_index(t).is_some(),
            Checkpoint::Midpoint => false,
            Checkpoint::Entry | Checkpoint::Home => true,
        }
    }
}

impl fmt::Display for Checkpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Checkpoint::Entry => f.write_str("entry"),
            Checkpoint::Fort(t) => write!(f, "fort:{t}"),
            Checkpoint::EntryOf(s) => write!(f, "entry:{s}"),
            Checkpoint::Midpoint => f.write_str("midpoint"),
            Checkpoint::Home => f.write_str("home"),
        }
    }
}

/// Error parsing a checkpoint name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad checkpoint {0:?}: expected \"entry\", \"fort:<ring index of a fort>\", \"entry:<seat>\", \"midpoint\" or \"home\"")]
pub struct BadCheckpoint(pub String);

impl FromStr for Checkpoint {
    type Err = BadCheckpoint;
    fn from_str(s: &str) -> Result<Self, BadCheckpoint> {
        let bad = || BadCheckpoint(s.to_string());
        match s {
            "entry" => Ok(Checkpoint::Entry),
            "midpoint" => Ok(Checkpoint::Midpoint),
            "home" => Ok(Checkpoint::Home),
            _ => {
                if let Some(t) = s.strip_prefix("fort:") {
                    let n: u8 = t.parse().map_err(|_| bad())?;
                    if FORTS.contains(&n) && n.to_string() == t {
                        return Ok(Checkpoint::Fort(n));
                    }
                } else if let Some(t) = s.strip_prefix("entry:") {
                    return t
                        .parse::<Seat>()
                        .map(Checkpoint::EntryOf)
                        .map_err(|_| bad());
                }
                Err(bad())
            }
        }
    }
}

impl Serialize for Checkpoint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Checkpoint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Cow::<'de, str>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Checkpoint {
    fn schema_name() -> Cow<'static, str> {
        "Checkpoint".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "Rule 8.2 checkpoint: \"entry\" (own entry tile), \"fort:<ring index>\", \"entry:<seat>\" (another seat's entry that is not the midpoint), \"midpoint\" (events only) or \"home\".",
            "pattern": "^(entry|home|midpoint|fort:(7|12|24|29|41|46|58|63)|entry:(green|red|blue|yellow))$"
        })
    }
}

/// Rule 8.3: the checkpoints one piece has scored in its current cycle, as a bit set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Record(pub(crate) u16);

impl Record {
    /// True when `cp` is recorded.
    pub fn contains(self, cp: Checkpoint) -> bool {
        cp.bit().is_some_and(|b| self.0 & b != 0)
    }

    /// Records `cp`; returns false when it was already recorded (or is the midpoint).
    pub fn insert(&mut self, cp: Checkpoint) -> bool {
        match cp.bit() {
            Some(b) if self.0 & b == 0 => {
                self.0 |= b;
                true
            }
            _ => false,
        }
    }

    /// The recorded checkpoints, sorted by their notation strings (§11 output form).
    pub fn names(self) -> Vec<String> {
        self.iter().map(|c| c.to_string()).collect()
    }

    /// The recorded checkpoints in the order of their notation strings (§11 output
    /// form): "entry", "entry:blue", "entry:green", "entry:red", "entry:yellow",
    /// "fort:12" … "fort:63", "fort:7", "home". The order is a fixed table, so no
    /// string is built to sort them.
    pub fn iter(self) -> impl Iterator<Item = Checkpoint> {
        SORTED.into_iter().filter(move |c| self.contains(*c))
    }
}

/// Every recordable checkpoint, in the string order of its notation (checked by a test).
const SORTED: [Checkpoint; 14] = [
    Checkpoint::Entry,
    Checkpoint::EntryOf(Seat::Blue),
    Checkpoint::EntryOf(Seat::Green),
    Checkpoint::EntryOf(Seat::Red),
    Checkpoint::EntryOf(Seat::Yellow),
    Checkpoint::Fort(12),
    Checkpoint::Fort(24),
    Checkpoint::Fort(29),
    Checkpoint::Fort(41),
    Checkpoint::Fort(46),
    Checkpoint::Fort(58),
    Checkpoint::Fort(63),
    Checkpoint::Fort(7),
    Checkpoint::Home,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_order_is_the_string_order_and_covers_every_bit() {
        let names: Vec<String> = SORTED.iter().map(|c| c.to_string()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        let all: u16 = SORTED
            .iter()
            .map(|c| c.bit().unwrap())
            .fold(0, |a, b| a | b);
        assert_eq!(all, (1 << 14) - 1, "entry, 8 forts, 4 entries, home");
    }

    /// §11 notation (rule 8.2): every checkpoint, the midpoint too, prints and
    /// parses back; a fort index that is not a fort, or not written as the
    /// server writes it, is refused.
    #[test]
    fn checkpoints_print_and_parse_in_the_notation() {
        for c in SORTED.into_iter().chain([Checkpoint::Midpoint]) {
            assert_eq!(c.to_string().parse::<Checkpoint>(), Ok(c), "{c}");
        }
        assert_eq!("midpoint".parse::<Checkpoint>(), Ok(Checkpoint::Midpoint));
        assert_eq!("fort:7".parse::<Checkpoint>(), Ok(Checkpoint::Fort(7)));
        for bad in ["fort:5", "fort:07", "fort:+7", "entry:purple", "mid", ""] {
            assert_eq!(
                bad.parse::<Checkpoint>(),
                Err(BadCheckpoint(bad.to_string())),
                "{bad:?}"
            );
        }
    }

    /// The generated schemas (`proto/`) name the definition `Checkpoint` and give
    /// its notation as a pattern.
    #[test]
    fn checkpoint_schema_is_named_and_has_the_pattern() {
        assert_eq!(Checkpoint::schema_name(), "Checkpoint");
        let json = serde_json::to_value(schemars::schema_for!(Vec<Checkpoint>)).unwrap();
        assert_eq!(
            json["$defs"]["Checkpoint"]["pattern"],
            "^(entry|home|midpoint|fort:(7|12|24|29|41|46|58|63)|entry:(green|red|blue|yellow))$",
            "{json}"
        );
    }

    /// Rule 8.3, §11 output form: a record's names in string order.
    #[test]
    fn a_records_names_are_its_checkpoints_in_string_order() {
        let mut r = Record::default();
        assert!(r.names().is_empty());
        for c in [
            Checkpoint::Home,
            Checkpoint::Fort(7),
            Checkpoint::EntryOf(Seat::Red),
            Checkpoint::Entry,
            Checkpoint::Fort(12),
        ] {
            assert!(r.insert(c));
        }
        assert!(
            !r.insert(Checkpoint::Midpoint),
            "the midpoint is never recorded"
        );
        assert_eq!(
            r.names(),
            ["entry", "entry:red", "fort:12", "fort:7", "home"]
        );
    }
}
