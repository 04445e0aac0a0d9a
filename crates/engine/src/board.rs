//! Board geometry (RULES.md §2): seats, pieces, locations, the 68-tile ring, entry
//! tiles, forts, midpoints, home paths, and the player-relative tile numbers of
//! rule 2.6.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// Number of tiles on the common ring (rule 2.1).
pub const RING_LEN: u8 = 68;
/// Number of tiles of a home path, `HP1..=HP7` (rule 2.5).
pub const HOME_PATH_LEN: u8 = 7;
/// Ring indices of the eight forts, the same for every seat (rule 2.4).
pub const FORTS: [u8; 8] = [7, 12, 24, 29, 41, 46, 58, 63];

/// Rule 1.1: the four seats, in turn order (green moves first).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Seat {
    /// Entry tile 0.
    Green,
    /// Entry tile 17.
    Red,
    /// Entry tile 34.
    Blue,
    /// Entry tile 51.
    Yellow,
}

impl Seat {
    /// All seats in turn order (rule 1.1).
    pub const ALL: [Seat; 4] = [Seat::Green, Seat::Red, Seat::Blue, Seat::Yellow];

    /// Index in turn order: green 0, red 1, blue 2, yellow 3.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The seat with turn-order index `i` (`i` taken modulo 4).
    pub const fn from_index(i: usize) -> Seat {
        Seat::ALL[i % 4]
    }

    /// Rule 2.2: the seat's entry tile (ring index): green 0, red 17, blue 34, yellow 51.
    pub const fn entry(self) -> u8 {
        (self as u8) * 17
    }

    /// Rule 2.3: the seat's midpoint (ring index) = the opposite seat's entry tile.
    pub const fn midpoint(self) -> u8 {
        (self.entry() + 34) % RING_LEN
    }

    /// The opposite seat (green↔blue, red↔yellow), whose entry is this seat's midpoint.
    pub const fn opposite(self) -> Seat {
        Seat::from_index(self.index() + 2)
    }

    /// The seat's lowercase name as used in the notation (`"green"` …).
    pub const fn name(self) -> &'static str {
        match self {
            Seat::Green => "green",
            Seat::Red => "red",
            Seat::Blue => "blue",
            Seat::Yellow => "yellow",
        }
    }

    /// The seat whose entry tile is ring index `tile`, if any.
    pub fn owning_entry(tile: u8) -> Option<Seat> {
        Seat::ALL.into_iter().find(|s| s.entry() == tile)
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Seat {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Seat::ALL.into_iter().find(|x| x.name() == s).ok_or(())
    }
}

/// Rule 1.2: the five pieces of a seat: guardians `G1`–`G4` and the royal `R`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum PieceId {
    /// Guardian 1.
    G1,
    /// Guardian 2.
    G2,
    /// Guardian 3.
    G3,
    /// Guardian 4.
    G4,
    /// The royal.
    R,
}

impl PieceId {
    /// All pieces in notation order G1, G2, G3, G4, R.
    pub const ALL: [PieceId; 5] = [
        PieceId::G1,
        PieceId::G2,
        PieceId::G3,
        PieceId::G4,
        PieceId::R,
    ];
    /// The four guardians.
    pub const GUARDIANS: [PieceId; 4] = [PieceId::G1, PieceId::G2, PieceId::G3, PieceId::G4];

    /// Index 0..=4 (G1 = 0 … R = 4).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The piece with index `i` (0..=4).
    pub const fn from_index(i: usize) -> PieceId {
        PieceId::ALL[i]
    }

    /// True for the royal.
    pub const fn is_royal(self) -> bool {
        matches!(self, PieceId::R)
    }

    /// Notation name (`"G1"` … `"R"`).
    pub const fn name(self) -> &'static str {
        match self {
            PieceId::G1 => "G1",
            PieceId::G2 => "G2",
            PieceId::G3 => "G3",
            PieceId::G4 => "G4",
            PieceId::R => "R",
        }
    }
}

impl fmt::Display for PieceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PieceId {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        PieceId::ALL.into_iter().find(|p| p.name() == s).ok_or(())
    }
}

/// Rule 3.1 / 4.3: the direction every ring move of a turn uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Ring indices increase.
    #[default]
    Forward,
    /// Ring indices decrease.
    Backward,
}

/// Where a piece is (§11 notation): `"yard"`, `"ring:N"` (N = 0..=67), `"hp:N"`
/// (N = 1..=7, the seat's own home path) or `"home"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// Rule 1.3: not yet out, or captured.
    Yard,
    /// A ring tile, absolute index 0..=67 (rule 2.1).
    Ring(u8),
    /// Home-path tile 1..=7 of the piece's own seat (rule 2.5).
    HomePath(u8),
    /// Rule 3.5: finished; never moves again.
    Home,
}

impl Location {
    /// The ring index, if on the ring.
    pub const fn ring(self) -> Option<u8> {
        match self {
            Location::Ring(i) => Some(i),
            _ => None,
        }
    }

    /// True on the ring or in the home path (a piece that can be moved by steps).
    pub const fn on_board(self) -> bool {
        matches!(self, Location::Ring(_) | Location::HomePath(_))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Yard => f.write_str("yard"),
            Location::Ring(i) => write!(f, "ring:{i}"),
            Location::HomePath(k) => write!(f, "hp:{k}"),
            Location::Home => f.write_str("home"),
        }
    }
}

/// Error parsing a location string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad location {0:?}: expected \"yard\", \"ring:0\"..\"ring:67\", \"hp:1\"..\"hp:7\" or \"home\"")]
pub struct BadLocation(pub String);

impl FromStr for Location {
    type Err = BadLocation;
    fn from_str(s: &str) -> Result<Self, BadLocation> {
        let bad = || BadLocation(s.to_string());
        let num = |t: &str| -> Result<u8, BadLocation> {
            if t.is_empty() || t.len() > 2 || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            t.parse::<u8>().map_err(|_| bad())
        };
        match s {
            "yard" => Ok(Location::Yard),
            "home" => Ok(Location::Home),
            _ => {
                if let Some(t) = s.strip_prefix("ring:") {
                    let n = num(t)?;
                    if n < RING_LEN {
                        return Ok(Location::Ring(n));
                    }
                } else if let Some(t) = s.strip_prefix("hp:") {
                    let n = num(t)?;
                    if (1..=HOME_PATH_LEN).contains(&n) {
                        return Ok(Location::HomePath(n));
                    }
                }
                Err(bad())
            }
        }
    }
}

impl Location {
    /// The notation of [`fmt::Display`] (`"yard"`, `"ring:N"`, `"hp:N"`, `"home"`),
    /// written into `buf` without the formatting machinery: a turn's events name
    /// dozens of locations, and `collect_str` went through `fmt::write` and escaped
    /// every fragment it was handed (issue 14: CPU per turn).
    fn notation(self, buf: &mut [u8; 8]) -> &str {
        let (prefix, n): (&[u8], u8) = match self {
            Location::Yard => return "yard",
            Location::Home => return "home",
            Location::Ring(i) => (b"ring:", i),
            Location::HomePath(k) => (b"hp:", k),
        };
        buf[..prefix.len()].copy_from_slice(prefix);
        let mut len = prefix.len();
        for (place, shown) in [(100, n >= 100), (10, n >= 10), (1, true)] {
            if shown {
                buf[len] = b'0' + n / place % 10;
                len += 1;
            }
        }
        // ASCII only: a prefix and decimal digits.
        std::str::from_utf8(&buf[..len]).unwrap_or_default()
    }
}

impl Serialize for Location {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 8];
        s.serialize_str(self.notation(&mut buf))
    }
}

impl<'de> Deserialize<'de> for Location {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Cow::<'de, str>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Location {
    fn schema_name() -> Cow<'static, str> {
        "Location".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "Where a piece is: \"yard\", \"ring:N\" (absolute ring index N = 0..=67; 0 is green's entry tile), \"hp:N\" (the owner's home-path tile N = 1..=7) or \"home\".",
            "pattern": "^(yard|home|ring:([0-9]|[1-5][0-9]|6[0-7])|hp:[1-7])$"
        })
    }
}

/// True when ring index `tile` is a fort (rule 2.4).
pub const fn is_fort(tile: u8) -> bool {
    matches!(tile, 7 | 12 | 24 | 29 | 41 | 46 | 58 | 63)
}

/// Index of a fort in [`FORTS`], if `tile` is one.
pub fn fort_index(tile: u8) -> Option<usize> {
    FORTS.iter().position(|&f| f == tile)
}

/// Rule 3.1: one step of a piece of `seat` from `from`, in `dir`, given whether it
/// glows. Returns `None` when the piece cannot step (Yard guardians never step; Home
/// never moves). A royal in the Yard steps onto its entry tile (rule 4.3).
///
/// * `HPk` → `HP(k+1)`, `HP7` → Home, whatever the direction (rules 3.1, 3.4);
/// * forward from forward tile 64 (ring `E+63`): `HP1` if glowing, else ring `E+64`;
/// * backward from the own entry (ring `E`): `HP4` if glowing, else ring `E−1`;
/// * otherwise ring ±1 modulo 68.
pub fn step(
    seat: Seat,
    from: Location,
    dir: Direction,
    glowing: bool,
    royal: bool,
) -> Option<Location> {
    let e = seat.entry();
    match from {
        Location::Yard => royal.then_some(Location::Ring(e)),
        Location::Home => None,
        Location::HomePath(k) if k >= HOME_PATH_LEN => Some(Location::Home),
        Location::HomePath(k) => Some(Location::HomePath(k + 1)),
        Location::Ring(r) => Some(match dir {
            Direction::Forward => {
                if glowing && r == (e + 63) % RING_LEN {
                    Location::HomePath(1)
                } else {
                    Location::Ring((r + 1) % RING_LEN)
                }
            }
            Direction::Backward => {
                if glowing && r == e {
                    Location::HomePath(4)
                } else {
                    Location::Ring((r + RING_LEN - 1) % RING_LEN)
                }
            }
        }),
    }
}

/// Rule 2.6: the player-relative tile number of `loc` for `seat` in `dir`, as a client
/// shows it. Forward: ring tiles 1..=64 (the four ring tiles `E+64..=E+67` have no
/// forward number and give `None`), home path 65..=71, Home 72. Backward: ring tiles
/// 1..=69 (the entry tile is 1, and 69 once more for a piece that comes round),
/// `HP4..HP7` = 70..=73, Home 74 (`HP1..HP3` give `None`). The entry tile is numbered 1.
/// The Yard has no number.
pub fn relative_tile(seat: Seat, loc: Location, dir: Direction) -> Option<u8> {
    let e = seat.entry();
    match (loc, dir) {
        (Location::Yard, _) => None,
        (Location::Ring(r), Direction::Forward) => {
            let t = (r + RING_LEN - e) % RING_LEN + 1;
            (t <= 64).then_some(t)
        }
        (Location::Ring(r), Direction::Backward) => Some((e + RING_LEN - r) % RING_LEN + 1),
        (Location::HomePath(k), Direction::Forward) => Some(64 + k),
        (Location::HomePath(k), Direction::Backward) => (k >= 4).then_some(66 + k),
        (Location::Home, Direction::Forward) => Some(72),
        (Location::Home, Direction::Backward) => Some(74),
    }
}

/// Rule 2.6, inverse of [`relative_tile`]: the location of player-relative tile `t`
/// of `seat` in `dir` (forward 1..=72, backward 1..=74). `None` outside that range.
pub fn from_relative_tile(seat: Seat, t: u8, dir: Direction) -> Option<Location> {
    let e = seat.entry();
    match dir {
        Direction::Forward => match t {
            1..=64 => Some(Location::Ring((e + t - 1) % RING_LEN)),
            65..=71 => Some(Location::HomePath(t - 64)),
            72 => Some(Location::Home),
            _ => None,
        },
        Direction::Backward => match t {
            1..=69 => Some(Location::Ring((e + RING_LEN * 2 - (t - 1)) % RING_LEN)),
            70..=73 => Some(Location::HomePath(t - 66)),
            74 => Some(Location::Home),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §11 notation: pieces print as `G1` … `G4` and `R`, and parse back.
    #[test]
    fn pieces_print_and_parse_in_the_notation() {
        let printed: Vec<String> = PieceId::ALL.iter().map(|p| p.to_string()).collect();
        assert_eq!(printed, ["G1", "G2", "G3", "G4", "R"]);
        for p in PieceId::ALL {
            assert_eq!(p.to_string().parse::<PieceId>(), Ok(p));
        }
        assert_eq!("G5".parse::<PieceId>(), Err(()));
    }

    /// The generated schemas (`proto/`) name a location's definition `Location`, the
    /// name every schema file refers to.
    #[test]
    fn location_schema_is_named_location() {
        use schemars::JsonSchema;
        assert_eq!(Location::schema_name(), "Location");
        let schema = schemars::schema_for!(Vec<Location>);
        let json = serde_json::to_value(&schema).unwrap();
        assert_eq!(
            json["$defs"]["Location"]["pattern"],
            "^(yard|home|ring:([0-9]|[1-5][0-9]|6[0-7])|hp:[1-7])$",
            "{json}"
        );
    }

    /// `Location::ring`: the ring index on the ring, nothing elsewhere.
    #[test]
    fn ring_index_only_on_the_ring() {
        assert_eq!(Location::Ring(0).ring(), Some(0));
        assert_eq!(Location::Ring(67).ring(), Some(67));
        assert_eq!(Location::Yard.ring(), None);
        assert_eq!(Location::HomePath(3).ring(), None);
        assert_eq!(Location::Home.ring(), None);
    }

    /// §11 notation: a location serializes exactly as it displays, for every value
    /// a `Location` can hold (the four kinds, every `u8`).
    #[test]
    fn location_serializes_as_its_notation() {
        let mut all = vec![Location::Yard, Location::Home];
        for n in 0..=u8::MAX {
            all.extend([Location::Ring(n), Location::HomePath(n)]);
        }
        for l in all {
            assert_eq!(
                serde_json::to_string(&l).unwrap(),
                format!("\"{l}\""),
                "{l:?}"
            );
        }
        assert_eq!(
            serde_json::to_string(&Location::Ring(67)).unwrap(),
            r#""ring:67""#
        );
        assert_eq!(
            serde_json::to_string(&Location::HomePath(7)).unwrap(),
            r#""hp:7""#
        );
        assert_eq!(
            serde_json::to_string(&Location::Ring(0)).unwrap(),
            r#""ring:0""#
        );
        assert_eq!(
            serde_json::to_string(&Location::Ring(255)).unwrap(),
            r#""ring:255""#
        );
    }

    #[test]
    fn rule_2_2_entries_and_2_3_midpoints() {
        assert_eq!(Seat::ALL.map(Seat::entry), [0, 17, 34, 51]);
        assert_eq!(Seat::ALL.map(Seat::midpoint), [34, 51, 0, 17]);
        // Rule 2.3: the midpoint is tile 35 in both numberings.
        for s in Seat::ALL {
            let m = Location::Ring(s.midpoint());
            assert_eq!(relative_tile(s, m, Direction::Forward), Some(35));
            assert_eq!(relative_tile(s, m, Direction::Backward), Some(35));
        }
    }

    #[test]
    fn rule_2_4_forts_in_green_numbering() {
        let fwd: Vec<u8> = FORTS
            .iter()
            .map(|&f| relative_tile(Seat::Green, Location::Ring(f), Direction::Forward).unwrap())
            .collect();
        assert_eq!(fwd, [8, 13, 25, 30, 42, 47, 59, 64]);
        let mut back: Vec<u8> = FORTS
            .iter()
            .map(|&f| relative_tile(Seat::Green, Location::Ring(f), Direction::Backward).unwrap())
            .collect();
        back.sort();
        assert_eq!(back, [6, 11, 23, 28, 40, 45, 57, 62]);
    }

    #[test]
    fn rule_2_6_relative_numbers_round_trip() {
        for s in Seat::ALL {
            for t in 1..=72 {
                let l = from_relative_tile(s, t, Direction::Forward).unwrap();
                assert_eq!(relative_tile(s, l, Direction::Forward), Some(t));
            }
            for t in 1..=74 {
                let l = from_relative_tile(s, t, Direction::Backward).unwrap();
                let back = relative_tile(s, l, Direction::Backward).unwrap();
                // tile 69 is the entry tile again, numbered 1
                assert_eq!(back, if t == 69 { 1 } else { t });
            }
            // ring E+64..E+67 have no forward number; they are backward 5..2
            for k in 64..68u8 {
                let l = Location::Ring((s.entry() + k) % RING_LEN);
                assert_eq!(relative_tile(s, l, Direction::Forward), None);
                assert_eq!(relative_tile(s, l, Direction::Backward), Some(69 - k));
            }
        }
    }

    /// Rule 2.6, exact values: yellow's (entry 51) forward tile 20 is ring 2 (the
    /// ring wraps at 68), its backward tile 60 is ring 60; every ring location given
    /// is a real tile (0..=67).
    #[test]
    fn rule_2_6_relative_tiles_wrap_the_ring() {
        let y = Seat::Yellow;
        assert_eq!(
            from_relative_tile(y, 20, Direction::Forward),
            Some(Location::Ring(2))
        );
        assert_eq!(
            from_relative_tile(y, 60, Direction::Backward),
            Some(Location::Ring(60))
        );
        for s in Seat::ALL {
            for dir in [Direction::Forward, Direction::Backward] {
                for t in 0..=80 {
                    if let Some(Location::Ring(r)) = from_relative_tile(s, t, dir) {
                        assert!(r < RING_LEN, "{s} {dir:?} tile {t} gave ring {r}");
                    }
                }
            }
        }
    }

    #[test]
    fn rule_3_1_steps() {
        let g = Seat::Green;
        let f = Direction::Forward;
        let b = Direction::Backward;
        assert_eq!(
            step(g, Location::Ring(63), f, false, false),
            Some(Location::Ring(64))
        );
        assert_eq!(
            step(g, Location::Ring(63), f, true, false),
            Some(Location::HomePath(1))
        );
        assert_eq!(
            step(g, Location::Ring(0), b, false, false),
            Some(Location::Ring(67))
        );
        assert_eq!(
            step(g, Location::Ring(0), b, true, false),
            Some(Location::HomePath(4))
        );
        assert_eq!(
            step(g, Location::Ring(67), f, false, false),
            Some(Location::Ring(0))
        );
        assert_eq!(
            step(g, Location::HomePath(7), b, true, false),
            Some(Location::Home)
        );
        assert_eq!(
            step(g, Location::HomePath(2), b, true, false),
            Some(Location::HomePath(3))
        );
        assert_eq!(step(g, Location::Home, f, true, false), None);
        assert_eq!(step(g, Location::Yard, f, false, false), None);
        assert_eq!(
            step(Seat::Red, Location::Yard, b, false, true),
            Some(Location::Ring(17))
        );
        // red: forward tile 64 is ring (17 + 63) mod 68 = 12
        assert_eq!(
            step(Seat::Red, Location::Ring(12), f, true, false),
            Some(Location::HomePath(1))
        );
        assert_eq!(
            step(Seat::Red, Location::Ring(12), f, false, false),
            Some(Location::Ring(13))
        );
        assert_eq!(
            step(Seat::Red, Location::Ring(17), b, true, false),
            Some(Location::HomePath(4))
        );
    }

    #[test]
    fn locations_parse_and_print() {
        for s in ["yard", "home", "ring:0", "ring:67", "hp:1", "hp:7"] {
            assert_eq!(s.parse::<Location>().unwrap().to_string(), s);
        }
        for s in [
            "ring:68", "hp:0", "hp:8", "ring:", "ring:-1", "ring:007", "Yard", "ring:+1",
        ] {
            assert!(s.parse::<Location>().is_err(), "{s}");
        }
    }
}
