//! Seeded dice (RULES.md §10): ChaCha20 seeded with the match's 32-byte seed, and the
//! SHA-256 commitment published when the match starts; or (scheme
//! [`DiceScheme::Contributed`], issue 31) ChaCha20 keyed with HKDF-SHA256 of the seed
//! and every seat's [`Contribution`], so that the operator alone cannot choose the dice.

use crate::board::Seat;
use hkdf::Hkdf;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// A match seed: 32 bytes, written as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// Rule §10: the commitment published at match start, SHA-256 of the 32 seed
    /// bytes, as 64 lowercase hex digits.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }

    /// The seed as 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seed({})", self.to_hex())
    }
}

impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// Error parsing a seed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a seed is 64 hex digits (32 bytes)")]
pub struct BadSeed;

impl FromStr for Seed {
    type Err = BadSeed;
    fn from_str(s: &str) -> Result<Self, BadSeed> {
        let mut b = [0u8; 32];
        hex::decode_to_slice(s, &mut b).map_err(|_| BadSeed)?;
        Ok(Seed(b))
    }
}

impl Serialize for Seed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Cow::<'de, str>::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Seed {
    fn schema_name() -> Cow<'static, str> {
        "Seed".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A match seed: 32 bytes as 64 hex digits. Dice: ChaCha20 (RFC 8439 block function, 20 rounds, zero nonce) seeded with these bytes; each die takes the next little-endian u32 x, rejects x >= 4294967292 and yields 1 + x mod 6.",
            "pattern": "^[0-9a-fA-F]{64}$"
        })
    }
}

/// The match's dice: a ChaCha20 stream seeded with the [`Seed`]. Each die takes the
/// next `u32` of the stream, rejects values ≥ 4 294 967 292 (the largest multiple of
/// 6 that fits) so every face is equally likely, and yields `1 + x mod 6`. The mapping
/// is written out here (not left to a library's sampler) so that any client can
/// re-roll the dice from the revealed seed.
#[derive(Clone, Debug)]
pub struct Dice {
    rng: ChaCha20Rng,
}

impl Dice {
    /// Dice for `seed` (scheme [`DiceScheme::ServerSeed`]: the seed is the ChaCha20 key).
    pub fn new(seed: Seed) -> Dice {
        Dice {
            rng: ChaCha20Rng::from_seed(seed.0),
        }
    }

    /// Dice of scheme [`DiceScheme::Contributed`]: ChaCha20 keyed with
    /// [`contributed_key`]`(seed, contributions)`.
    ///
    /// Errors: [`BadContributions`] unless `contributions` are the four seats in
    /// order green, red, blue, yellow.
    pub fn contributed(
        seed: Seed,
        contributions: &[Contribution],
    ) -> Result<Dice, BadContributions> {
        Ok(Dice {
            rng: ChaCha20Rng::from_seed(contributed_key(seed, contributions)?),
        })
    }

    /// One die, 1..=6: the first word of the stream that [`die_from_word`] accepts.
    pub fn roll(&mut self) -> u8 {
        loop {
            if let Some(face) = die_from_word(self.rng.next_u32()) {
                return face;
            }
        }
    }
}

/// The largest stream word that yields a die: 4 294 967 291. The words 0 ..= this are
/// 4 294 967 292 = 6 × 715 827 882 values, so every face is equally likely.
pub const LARGEST_DIE_WORD: u32 = u32::MAX - (u32::MAX % 6) - 1;

/// Rule §10's mapping of one little-endian `u32` of the ChaCha20 stream to a die:
/// `Some(1 + x mod 6)` for `x ≤` [`LARGEST_DIE_WORD`], `None` (the word is rejected and
/// the next one is taken) above it.
pub const fn die_from_word(x: u32) -> Option<u8> {
    if x <= LARGEST_DIE_WORD {
        Some((x % 6) as u8 + 1)
    } else {
        None
    }
}

/// Which inputs key a match's dice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiceScheme {
    /// The server seed alone is the ChaCha20 key (every match before issue 31; a
    /// replay without `dice_scheme` is of this scheme).
    #[default]
    ServerSeed,
    /// The ChaCha20 key is HKDF-SHA256 of the server seed and each seat's
    /// contribution in seat order ([`contributed_key`]).
    Contributed,
}

impl DiceScheme {
    /// The scheme's wire name (`server_seed`, `contributed`).
    pub fn name(self) -> &'static str {
        match self {
            DiceScheme::ServerSeed => "server_seed",
            DiceScheme::Contributed => "contributed",
        }
    }
}

/// Fewest bytes a player's contribution has (128 bits).
pub const MIN_ENTROPY_BYTES: usize = 16;
/// Most bytes a player's contribution may have.
pub const MAX_ENTROPY_BYTES: usize = 64;

/// A seat's entropy: empty (the recorded default of a seat that did not contribute)
/// or [`MIN_ENTROPY_BYTES`]..=[`MAX_ENTROPY_BYTES`] bytes; on the wire lowercase hex
/// (`""` for the default).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Entropy(Vec<u8>);

/// Why a contribution's entropy was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadEntropy {
    /// Not an even number of hex digits.
    #[error("the entropy is not hex (an even number of 0-9, a-f digits)")]
    NotHex,
    /// Fewer than 16 bytes (32 hex digits).
    #[error("the entropy has {0} bytes, at least 16 (32 hex digits) are needed")]
    TooShort(usize),
    /// More than 64 bytes (128 hex digits).
    #[error("the entropy has {0} bytes, at most 64 (128 hex digits) are allowed")]
    TooLong(usize),
}

impl Entropy {
    /// The recorded default of a seat that did not contribute: no bytes.
    pub fn default_entropy() -> Entropy {
        Entropy(Vec::new())
    }

    /// A player's contribution from its hex text: 16..=64 bytes.
    ///
    /// Errors: [`BadEntropy`] (not hex, too short, too long).
    pub fn from_player_hex(hex_text: &str) -> Result<Entropy, BadEntropy> {
        let b = hex::decode(hex_text).map_err(|_| BadEntropy::NotHex)?;
        match b.len() {
            n if n < MIN_ENTROPY_BYTES => Err(BadEntropy::TooShort(n)),
            n if n > MAX_ENTROPY_BYTES => Err(BadEntropy::TooLong(n)),
            _ => Ok(Entropy(b)),
        }
    }

    /// A recorded entropy from hex: the default (`""`) or a player's 16..=64 bytes.
    ///
    /// Errors: [`BadEntropy`].
    pub fn from_recorded_hex(hex_text: &str) -> Result<Entropy, BadEntropy> {
        if hex_text.is_empty() {
            return Ok(Entropy::default_entropy());
        }
        Entropy::from_player_hex(hex_text)
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Lowercase hex (`""` for the default).
    pub fn to_hex(&self) -> String {
        hex::encode(&self.0)
    }
}

impl fmt::Debug for Entropy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Entropy({})", self.to_hex())
    }
}

impl Serialize for Entropy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Entropy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Entropy::from_recorded_hex(&Cow::<'de, str>::deserialize(d)?)
            .map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Entropy {
    fn schema_name() -> Cow<'static, str> {
        "Entropy".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A seat's dice entropy as lowercase hex: 16 to 64 bytes (32 to 128 hex digits) from the player's CSPRNG, or \"\" for the recorded default of a seat that did not contribute.",
            "pattern": "^(|([0-9a-fA-F]{2}){16,64})$"
        })
    }
}

/// One seat's recorded contribution to the dice (scheme [`DiceScheme::Contributed`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Contribution {
    /// The seat.
    pub seat: Seat,
    /// The entropy used: the player's bytes, or `""` (no bytes) for the default.
    pub entropy: Entropy,
    /// True when the seat did not contribute in the window (a bot, an empty seat, or
    /// a player who sent nothing in time) and got the default (no bytes).
    pub defaulted: bool,
}

impl Contribution {
    /// The recorded default of `seat`: no bytes, `defaulted: true`.
    pub fn default_for(seat: Seat) -> Contribution {
        Contribution {
            seat,
            entropy: Entropy::default_entropy(),
            defaulted: true,
        }
    }
}

/// The contributions given are not the four seats in seat order, or a defaulted
/// one has bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("contributions must be the four seats in order green, red, blue, yellow, each with 16..=64 bytes of entropy or a default with none")]
pub struct BadContributions;

/// The HKDF `info` prefix of [`contributed_key`] (domain separation and version).
pub const DICE_INFO_PREFIX: &[u8] = b"ludo dice v2";

/// The ChaCha20 key of scheme [`DiceScheme::Contributed`]:
///
/// ```text
/// info = "ludo dice v2" ‖ for seat in green, red, blue, yellow: len(e) as 1 byte ‖ e
/// key  = HKDF-SHA256(salt = none (32 zero bytes), ikm = seed (32 bytes), info, 32 bytes)
/// ```
///
/// where `e` is the seat's entropy bytes (none for a default).
///
/// Errors: [`BadContributions`] unless `contributions` are the four seats in order,
/// each with 0 (default) or 16..=64 bytes.
pub fn contributed_key(
    seed: Seed,
    contributions: &[Contribution],
) -> Result<[u8; 32], BadContributions> {
    if contributions.len() != 4 {
        return Err(BadContributions);
    }
    let mut info = DICE_INFO_PREFIX.to_vec();
    for (c, seat) in contributions.iter().zip(Seat::ALL) {
        let e = c.entropy.as_bytes();
        let len_ok = e.is_empty() || (MIN_ENTROPY_BYTES..=MAX_ENTROPY_BYTES).contains(&e.len());
        if c.seat != seat || !len_ok || (c.defaulted && !e.is_empty()) {
            return Err(BadContributions);
        }
        info.push(e.len() as u8);
        info.extend_from_slice(e);
    }
    let mut key = [0u8; 32];
    Hkdf::<Sha256>::new(None, &seed.0)
        .expand(&info, &mut key)
        .expect("32 bytes is a valid HKDF-SHA256 output length");
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule §10's rejection zone, at its boundary: 4 294 967 291 is the last word
    /// that yields a die (a 6: 4 294 967 292 is a multiple of 6), the five words above
    /// it are rejected, 0 is a 1 and 5 a 6.
    #[test]
    fn die_from_word_rejects_exactly_the_top_four_words() {
        assert_eq!(LARGEST_DIE_WORD, 4_294_967_291);
        assert_eq!(die_from_word(0), Some(1));
        assert_eq!(die_from_word(5), Some(6));
        assert_eq!(die_from_word(6), Some(1));
        assert_eq!(die_from_word(4_294_967_290), Some(5));
        assert_eq!(die_from_word(4_294_967_291), Some(6));
        for x in 4_294_967_292..=u32::MAX {
            assert_eq!(die_from_word(x), None, "word {x} must be rejected");
        }
    }

    #[test]
    fn commitment_is_sha256_of_seed_bytes() {
        let seed = Seed([0; 32]);
        // SHA-256 of 32 zero bytes.
        assert_eq!(
            seed.commitment(),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
    }

    #[test]
    fn same_seed_same_dice_and_faces_in_range() {
        let mut a = Dice::new(Seed([7; 32]));
        let mut b = Dice::new(Seed([7; 32]));
        let mut counts = [0u32; 7];
        for _ in 0..6000 {
            let x = a.roll();
            assert_eq!(x, b.roll());
            counts[x as usize] += 1;
        }
        assert_eq!(counts[0], 0);
        for c in &counts[1..] {
            assert!(
                (800..1200).contains(c),
                "face count {c} far from 1000 of 6000"
            );
        }
    }

    #[test]
    fn seed_hex_round_trip() {
        let s: Seed = "00".repeat(31).add_str("ff").parse().unwrap();
        assert_eq!(s.0[31], 255);
        assert_eq!(s.to_hex().parse::<Seed>().unwrap(), s);
        assert!("abc".parse::<Seed>().is_err());
    }

    /// A seed's `Debug` shows its 64 hex digits (rule §10's revealed form), so a
    /// logged seed can be pasted back into a replay.
    #[test]
    fn seed_debug_shows_its_hex() {
        let mut b = [0u8; 32];
        b[0] = 0xab;
        b[31] = 0x01;
        assert_eq!(
            format!("{:?}", Seed(b)),
            format!("Seed(ab{}01)", "00".repeat(30))
        );
    }

    /// An entropy's `Debug` shows its bytes as lowercase hex, and nothing for the
    /// recorded default of a seat that did not contribute.
    #[test]
    fn entropy_debug_shows_its_hex() {
        let e = Entropy::from_player_hex(&"C3".repeat(16)).unwrap();
        assert_eq!(format!("{e:?}"), format!("Entropy({})", "c3".repeat(16)));
        assert_eq!(format!("{:?}", Entropy::default_entropy()), "Entropy()");
    }

    /// The generated schemas (`proto/`) name the definitions `Seed` and `Entropy`, with
    /// the patterns of 32 bytes (rule §10) and of "" or 16..=64 bytes as hex.
    #[test]
    fn seed_and_entropy_schemas_are_named_and_have_their_patterns() {
        assert_eq!(Seed::schema_name(), "Seed");
        assert_eq!(Entropy::schema_name(), "Entropy");
        let json = serde_json::to_value(schemars::schema_for!((Vec<Seed>, Vec<Entropy>))).unwrap();
        let seed = &json["$defs"]["Seed"];
        assert_eq!(seed["type"], "string", "{json}");
        assert_eq!(seed["pattern"], "^[0-9a-fA-F]{64}$", "{json}");
        assert!(
            seed["description"]
                .as_str()
                .unwrap()
                .contains("rejects x >= 4294967292 and yields 1 + x mod 6"),
            "{json}"
        );
        let entropy = &json["$defs"]["Entropy"];
        assert_eq!(entropy["type"], "string", "{json}");
        assert_eq!(entropy["pattern"], "^(|([0-9a-fA-F]{2}){16,64})$", "{json}");
        assert!(
            entropy["description"]
                .as_str()
                .unwrap()
                .starts_with("A seat's dice entropy as lowercase hex"),
            "{json}"
        );
    }

    /// `DiceScheme::name` is the scheme's wire name, the one a replay's `dice_scheme`
    /// holds.
    #[test]
    fn dice_scheme_names_are_the_wire_names() {
        for (scheme, name) in [
            (DiceScheme::ServerSeed, "server_seed"),
            (DiceScheme::Contributed, "contributed"),
        ] {
            assert_eq!(scheme.name(), name);
            assert_eq!(serde_json::to_value(scheme).unwrap(), name);
        }
    }

    trait AddStr {
        fn add_str(self, s: &str) -> String;
    }
    impl AddStr for String {
        fn add_str(mut self, s: &str) -> String {
            self.push_str(s);
            self
        }
    }
}
