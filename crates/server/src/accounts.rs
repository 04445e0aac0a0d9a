//! Accounts (issue 29): the rules for usernames and passwords, password hashing
//! off the event-loop threads, and the sign-in budgets.
//!
//! * A **username** follows the names policy of display names
//!   ([`protocol::text::name`]: 1–24 characters, grapheme clusters, after NFC, any
//!   script) and is unique
//!   ignoring case: its key is the Unicode case fold of the NFC form, NFC again
//!   ([`username_key`], ICU4X `icu_casemap`).
//! * A **password** is 8–128 characters (Unicode scalar values after NFC, so the same
//!   password typed on two keyboards that compose differently is the same), with no
//!   control character. It is hashed with Argon2id at OWASP's minimum (19 MiB,
//!   2 passes, 1 lane; [`ARGON2_M_KIB`] …) into a PHC string with a random 16-byte
//!   salt, and verified by the `argon2` crate (constant-time comparison).
//! * Hashing runs on Tokio's blocking pool, at most `--password-hash-threads` at once
//!   (a semaphore): a burst of sign-ins waits there and never holds a worker thread
//!   the rooms need. A sign-in for an unknown username verifies against a dummy hash
//!   made at start, so both answers take the same work ([`Accounts::verify`]).
//! * **Budgets** (`governor`): every sign-in attempt takes one from its client
//!   address's budget (`--sign-ins-per-minute`, `--sign-in-burst`) and one from the
//!   username's (`--account-sign-ins-per-minute`, `--account-sign-in-burst`), known
//!   or not; past either: 429 `rate_limited` with `Retry-After`. Budgets live on each
//!   node (a cluster of n nodes allows up to n times as many).

use crate::config::Config;
use crate::error::ApiError;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use protocol::RestErrorCode;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Argon2id memory cost: 19 MiB (19,456 KiB), OWASP's minimum.
pub(crate) const ARGON2_M_KIB: u32 = 19 * 1024;
/// Argon2id passes (time cost): 2.
pub(crate) const ARGON2_T: u32 = 2;
/// Argon2id lanes (parallelism): 1.
pub(crate) const ARGON2_P: u32 = 1;
/// Fewest characters in a password.
pub(crate) const PASSWORD_MIN_CHARS: usize = 8;
/// Most characters in a password.
pub(crate) const PASSWORD_MAX_CHARS: usize = 128;
/// The longest wait for a hashing slot before a request answers 503 `unavailable`.
const HASH_QUEUE_WAIT: Duration = Duration::from_secs(10);

/// Checks a username by the names policy and returns it as shown (NFC) and its key
/// (unique ignoring case).
///
/// Errors: 400 `invalid_username`, the message saying what is wrong.
pub(crate) fn username(raw: &str) -> Result<(String, String), ApiError> {
    let shown = protocol::text::name(raw)
        .map_err(|e| ApiError::new(RestErrorCode::InvalidUsername, format!("username {e}")))?;
    let key = username_key(&shown);
    Ok((shown, key))
}

/// The uniqueness key of a username: NFC of the full Unicode case fold of `name`
/// ("ÅSA", "åsa" and "A\u{30A}sa" share one).
pub(crate) fn username_key(name: &str) -> String {
    let nfc = icu_normalizer::ComposingNormalizerBorrowed::new_nfc();
    let composed = nfc.normalize(name);
    let folded = icu_casemap::CaseMapper::new().fold_string(&composed);
    nfc.normalize(&folded).into_owned()
}

/// Checks a password and returns its NFC form, the one hashed.
///
/// Errors: 400 `invalid_password` when it is not 8..=128 characters after NFC or
/// holds a control character (`char::is_control`, Unicode category Cc).
pub(crate) fn password(raw: &str) -> Result<String, ApiError> {
    let bad = |why: &str| ApiError::new(RestErrorCode::InvalidPassword, why.to_string());
    // Refuse the absurd before normalizing (a 10 kB password costs nothing then).
    if raw.chars().count() > PASSWORD_MAX_CHARS * 4 {
        return Err(bad("password must be 8 to 128 characters"));
    }
    let nfc = icu_normalizer::ComposingNormalizerBorrowed::new_nfc()
        .normalize(raw)
        .into_owned();
    let n = nfc.chars().count();
    if !(PASSWORD_MIN_CHARS..=PASSWORD_MAX_CHARS).contains(&n) {
        return Err(bad("password must be 8 to 128 characters"));
    }
    if nfc.chars().any(char::is_control) {
        return Err(bad("password must not hold control characters"));
    }
    Ok(nfc)
}

/// Password hashing and the sign-in budgets of one node. See the module docs.
pub(crate) struct Accounts {
    argon: Argon2<'static>,
    slots: Arc<Semaphore>,
    /// A hash of a random password, verified instead when the username is unknown.
    dummy: String,
    by_address: Option<DefaultKeyedRateLimiter<IpAddr>>,
    by_account: Option<DefaultKeyedRateLimiter<String>>,
    /// `--session-idle-days` in ms.
    idle_ms: u64,
}

impl std::fmt::Debug for Accounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Accounts")
            .field("slots", &self.slots.available_permits())
            .field("idle_ms", &self.idle_ms)
            .finish_non_exhaustive()
    }
}

fn limiter<K: std::hash::Hash + Eq + Clone>(
    per_minute: u32,
    burst: u32,
) -> Option<DefaultKeyedRateLimiter<K>> {
    NonZeroU32::new(per_minute).map(|rate| {
        let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
        RateLimiter::keyed(Quota::per_minute(rate).allow_burst(burst))
    })
}

fn wait_time(not_until: governor::NotUntil<governor::clock::QuantaInstant>) -> Duration {
    not_until.wait_time_from(governor::clock::Clock::now(
        &governor::clock::DefaultClock::default(),
    ))
}

impl Accounts {
    /// Builds the node's hashing slots, dummy hash and budgets from `config`.
    pub(crate) fn new(config: &Config) -> Accounts {
        let params = Params::new(ARGON2_M_KIB, ARGON2_T, ARGON2_P, None)
            .expect("OWASP's Argon2id parameters are valid");
        let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
        let mut random = [0u8; 32];
        rand::TryRngCore::try_fill_bytes(&mut rand::rngs::OsRng, &mut random)
            .expect("the OS random generator works");
        let dummy = argon
            .hash_password(&random, &SaltString::generate(&mut OsRng))
            .expect("hashing a 32-byte value works")
            .to_string();
        Accounts {
            argon,
            slots: Arc::new(Semaphore::new(config.password_hash_threads.max(1))),
            dummy,
            by_address: limiter(config.sign_ins_per_minute, config.sign_in_burst),
            by_account: limiter(
                config.account_sign_ins_per_minute,
                config.account_sign_in_burst,
            ),
            idle_ms: u64::from(config.session_idle_days) * 86_400_000,
        }
    }

    /// How long a session may stay unused before it expires, in ms.
    pub(crate) fn idle_ms(&self) -> u64 {
        self.idle_ms
    }

    /// Takes one sign-in attempt from the budgets of `address` (when known) and of
    /// the username `key`. `Err(wait)`: over a budget, retry after `wait`.
    pub(crate) fn take_sign_in(&self, address: Option<IpAddr>, key: &str) -> Result<(), Duration> {
        self.take_address_sign_in(address)?;
        if let Some(l) = &self.by_account {
            if l.len() > 10_000 {
                l.retain_recent();
            }
            l.check_key(&key.to_string()).map_err(wait_time)?;
        }
        Ok(())
    }

    /// Takes one sign-in attempt from the budget of `address` alone (a passkey
    /// sign-in, which names no username). `Err(wait)`: over it, retry after `wait`.
    pub(crate) fn take_address_sign_in(&self, address: Option<IpAddr>) -> Result<(), Duration> {
        if let (Some(l), Some(ip)) = (&self.by_address, address) {
            if l.len() > 10_000 {
                l.retain_recent();
            }
            l.check_key(&ip).map_err(wait_time)?;
        }
        Ok(())
    }

    /// Runs `f` on the blocking pool once a hashing slot is free.
    ///
    /// Errors: 503 `unavailable` when no slot frees up within 10 s.
    async fn hashing<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Argon2<'static>) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let permit = tokio::time::timeout(HASH_QUEUE_WAIT, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| ApiError::Unavailable)?
            .map_err(|_| ApiError::Unavailable)?;
        let argon = self.argon.clone();
        let out = tokio::task::spawn_blocking(move || {
            let out = f(&argon);
            drop(permit);
            out
        })
        .await
        .map_err(|e| ApiError::Internal(format!("password hashing task failed: {e}")))?;
        Ok(out)
    }

    /// The Argon2id PHC string of `password` (already checked by [`password`]).
    ///
    /// Errors: 503 `unavailable` (no hashing slot in 10 s), 500 `internal`.
    pub(crate) async fn hash(&self, password: String) -> Result<String, ApiError> {
        self.hashing(move |argon| {
            argon
                .hash_password(password.as_bytes(), &SaltString::generate(&mut OsRng))
                .map(|h| h.to_string())
                .map_err(|e| ApiError::Internal(format!("hashing failed: {e}")))
        })
        .await?
    }

    /// True when `password` matches the PHC string `stored`. With `stored` `None`
    /// (no such account) the dummy hash is verified and the answer is false: the
    /// same work either way.
    ///
    /// Errors: 503 `unavailable` (no hashing slot in 10 s), 500 `internal`.
    pub(crate) async fn verify(
        &self,
        stored: Option<String>,
        password: String,
    ) -> Result<bool, ApiError> {
        let known = stored.is_some();
        let stored = stored.unwrap_or_else(|| self.dummy.clone());
        let matched = self
            .hashing(move |argon| {
                PasswordHash::new(&stored)
                    .map(|h| argon.verify_password(password.as_bytes(), &h).is_ok())
                    .unwrap_or(false)
            })
            .await?;
        Ok(known && matched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_are_unique_ignoring_case_in_any_script() {
        assert_eq!(username_key("Ada"), username_key("ADA"));
        assert_eq!(username_key("ÅSA"), username_key("a\u{30A}sa"));
        assert_eq!(username_key("Straße"), username_key("STRASSE"));
        assert_ne!(username_key("রবি"), username_key("রবী"));
        assert_eq!(username("রবি").unwrap(), ("রবি".into(), "রবি".into()));
        for bad in ["", " Ada", "a\nb", &"x".repeat(25)] {
            let e = username(bad).unwrap_err();
            assert_eq!(e.code(), RestErrorCode::InvalidUsername, "{bad:?}");
        }
    }

    #[test]
    fn passwords_are_8_to_128_characters_without_control_characters() {
        assert_eq!(password("12345678").unwrap(), "12345678");
        assert_eq!(password("পাসওয়ার্ড১২").unwrap().chars().count(), 12);
        assert_eq!(password(&"ক".repeat(128)).unwrap().chars().count(), 128);
        // NFC: "e" + combining acute is one character, "é".
        assert_eq!(password("caf\u{65}\u{301}1234").unwrap(), "caf\u{e9}1234");
        for bad in [
            "1234567".to_string(),
            "x".repeat(129),
            "x".repeat(10_000),
            "pass\u{0}word".into(),
            "pass\nword1".into(),
            String::new(),
        ] {
            let e = password(&bad).unwrap_err();
            assert_eq!(e.code(), RestErrorCode::InvalidPassword, "{bad:?}");
        }
    }

    fn config() -> Config {
        Config {
            sign_ins_per_minute: 6,
            sign_in_burst: 3,
            account_sign_ins_per_minute: 6,
            account_sign_in_burst: 5,
            ..Config::default()
        }
    }

    #[tokio::test]
    async fn a_hash_verifies_its_password_only_and_is_argon2id_at_owasp_parameters() {
        let a = Accounts::new(&config());
        let h = a.hash("correct horse".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(a
            .verify(Some(h.clone()), "correct horse".into())
            .await
            .unwrap());
        assert!(!a.verify(Some(h), "correct horsE".into()).await.unwrap());
        assert!(!a.verify(None, "correct horse".into()).await.unwrap());
    }

    #[test]
    fn sign_in_budgets_are_per_address_and_per_account() {
        let a = Accounts::new(&config());
        let ip1: IpAddr = "192.0.2.1".parse().unwrap();
        let ip2: IpAddr = "192.0.2.2".parse().unwrap();
        // Burst 3 per address: the 4th attempt from ip1 waits, whatever the name.
        for name in ["a", "b", "c"] {
            assert_eq!(a.take_sign_in(Some(ip1), name), Ok(()));
        }
        assert!(a.take_sign_in(Some(ip1), "d").is_err());
        // Burst 5 per account: "e" from other addresses 5 times, then it waits.
        for _ in 0..3 {
            assert_eq!(a.take_sign_in(Some(ip2), "e"), Ok(()));
        }
        assert_eq!(a.take_sign_in(None, "e"), Ok(()));
        assert_eq!(a.take_sign_in(None, "e"), Ok(()));
        let wait = a.take_sign_in(None, "e").unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(10),
            "{wait:?}"
        );
    }
}
