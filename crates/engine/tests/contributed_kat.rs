//! Known-answer test of the contributed dice (scheme `contributed`, proto/README.md
//! §10): the HKDF-SHA256 key of a seed and four seats' contributions, and the first
//! 30 dice of ChaCha20 keyed with it. The expected values in
//! `tests/kat/contributed_kat.json` were computed without the engine by
//! `tests/kat/contributed_kat.py` (Python's `hashlib`/`hmac` for HKDF, checked against
//! RFC 5869's test case 3, and the `cryptography` package's ChaCha20); re-derive with
//! `python3 crates/engine/tests/kat/contributed_kat.py`. Any change of the `info`
//! layout, its prefix, the seat order, the length bytes, the salt or the key use
//! fails here.

use engine::dice::{contributed_key, Contribution};
use engine::{Dice, Seed};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    name: String,
    seed: Seed,
    contributions: Vec<Contribution>,
    key: String,
    dice: Vec<u8>,
    server_seed_dice: Vec<u8>,
}

#[derive(Deserialize)]
struct Kat {
    info_prefix: String,
    cases: Vec<Case>,
}

fn kat() -> Kat {
    serde_json::from_str(include_str!("kat/contributed_kat.json")).expect("the KAT file reads")
}

#[test]
fn the_key_and_dice_are_those_computed_independently() {
    let kat = kat();
    assert_eq!(kat.info_prefix.as_bytes(), engine::dice::DICE_INFO_PREFIX);
    assert_eq!(kat.cases.len(), 4);
    for c in &kat.cases {
        let key = contributed_key(c.seed, &c.contributions).unwrap();
        assert_eq!(hex::encode(key), c.key, "{}: key", c.name);
        let mut d = Dice::contributed(c.seed, &c.contributions).unwrap();
        let got: Vec<u8> = (0..30).map(|_| d.roll()).collect();
        assert_eq!(got, c.dice, "{}: dice", c.name);
        let mut old = Dice::new(c.seed);
        let got: Vec<u8> = (0..30).map(|_| old.roll()).collect();
        assert_eq!(got, c.server_seed_dice, "{}: server-seed dice", c.name);
    }
}

#[test]
fn the_first_known_answer_written_out() {
    // Case "all defaults": seed 00 01 .. 1f, every seat defaulted (no bytes).
    let c = &kat().cases[0];
    assert_eq!(
        hex::encode(contributed_key(c.seed, &c.contributions).unwrap()),
        "a19e579a0509be06415a8855e3a1e6e4f34405663398e9642f5606ea55c80590"
    );
    assert_eq!(&c.dice[..6], &[6, 2, 1, 5, 6, 6]);
}

#[test]
fn one_byte_of_one_contribution_changes_the_key() {
    let kat = kat();
    let (a, b) = (&kat.cases[2], &kat.cases[3]);
    assert_eq!(a.seed, b.seed);
    assert_ne!(a.key, b.key);
    assert_ne!(a.dice, b.dice);
}
