//! Passkeys (issue 29): WebAuthn registration and sign-in ceremonies (the
//! `webauthn-rs` crate), for `crate::api::passkeys`.
//!
//! * The **relying party** is `--webauthn-rp-id` with the one origin
//!   `--webauthn-origin` ([`relying_party`]); a response made on another origin, or
//!   for another relying party id, does not verify.
//! * **Registration** asks for a discoverable (resident) credential whose user handle
//!   is the player id, with user verification, so that sign-in needs no username:
//!   the authenticator names the account ([`Passkeys::start_sign_in`] starts a
//!   discoverable authentication).
//! * **Ceremonies** (the state between the options and the response) are kept in
//!   this node's memory, keyed by a random id, for [`CEREMONY_MS`] (5 minutes, on the
//!   server clock), at most [`MAX_CEREMONIES`] at once (past that the one expiring
//!   first is dropped); each is used once. In a cluster the request that finishes a
//!   ceremony must reach the node that started it (a load balancer with sticky
//!   sessions); elsewhere it is `ceremony_not_found`.

use crate::config::Config;
use crate::error::ApiError;
use protocol::RestErrorCode;
use std::collections::HashMap;
use std::sync::Mutex;
use uuid::Uuid;
use webauthn_rs::prelude::{
    CreationChallengeResponse, DiscoverableAuthentication, Passkey, PasskeyRegistration,
    PublicKeyCredential, RegisterPublicKeyCredential, RequestChallengeResponse, Webauthn,
};
use webauthn_rs_proto::ResidentKeyRequirement;

/// How long a ceremony may take, in ms (5 minutes; the options' `timeout` too).
pub(crate) const CEREMONY_MS: u64 = crate::config::PASSKEY_CEREMONY_MS;
/// Most ceremonies held at once by one node.
pub(crate) const MAX_CEREMONIES: usize = 10_000;
/// Most passkeys one account may hold.
pub(crate) const MAX_PASSKEYS: usize = 10;

/// The credential id of a passkey as stored and shown: base64url without padding.
pub(crate) fn credential_id(raw: &[u8]) -> String {
    data_encoding::BASE64URL_NOPAD.encode(raw)
}

/// What a ceremony is waiting to finish.
enum Ceremony {
    /// Adding a passkey to account `player`.
    Register {
        player: Uuid,
        state: Box<PasskeyRegistration>,
    },
    /// Signing in with any passkey.
    SignIn {
        state: Box<DiscoverableAuthentication>,
    },
}

/// The node's relying party and its ceremonies in progress. See the module docs.
pub(crate) struct Passkeys {
    webauthn: Webauthn,
    /// Ceremony id → (expiry on the server clock in ms, ceremony).
    ceremonies: Mutex<HashMap<Uuid, (u64, Ceremony)>>,
}

impl std::fmt::Debug for Passkeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.ceremonies.lock().map(|c| c.len()).unwrap_or(0);
        f.debug_struct("Passkeys")
            .field("ceremonies", &n)
            .finish_non_exhaustive()
    }
}

fn invalid(why: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        RestErrorCode::InvalidCredential,
        format!("the passkey response does not verify: {why}"),
    )
}

fn not_found() -> ApiError {
    ApiError::new(
        RestErrorCode::CeremonyNotFound,
        "no passkey ceremony has this id (unknown, used or expired): start again",
    )
}

impl Passkeys {
    /// The relying party of `config`.
    ///
    /// Errors: as [`relying_party`] (`Config::check` refuses such a configuration
    /// before start).
    pub(crate) fn new(config: &Config) -> Result<Passkeys, String> {
        Ok(Passkeys {
            webauthn: config.relying_party()?,
            ceremonies: Mutex::new(HashMap::new()),
        })
    }

    fn keep(&self, now_ms: u64, ceremony: Ceremony) -> Uuid {
        let id = Uuid::new_v4();
        let mut all = self.ceremonies.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() >= MAX_CEREMONIES {
            all.retain(|_, (expires, _)| *expires > now_ms);
        }
        if all.len() >= MAX_CEREMONIES {
            if let Some(first) = all.iter().min_by_key(|(_, (e, _))| *e).map(|(k, _)| *k) {
                all.remove(&first);
            }
        }
        all.insert(id, (now_ms + CEREMONY_MS, ceremony));
        id
    }

    /// Removes and returns ceremony `id` when `fits` it and it has not expired;
    /// a ceremony that does not fit stays.
    fn take(&self, id: Uuid, now_ms: u64, fits: impl Fn(&Ceremony) -> bool) -> Option<Ceremony> {
        let mut all = self.ceremonies.lock().unwrap_or_else(|e| e.into_inner());
        match all.get(&id) {
            Some((_, c)) if !fits(c) => None,
            Some(_) => all
                .remove(&id)
                .filter(|(expires, _)| *expires > now_ms)
                .map(|(_, c)| c),
            None => None,
        }
    }

    /// Starts adding a passkey to account `player` (`username`, display `name`),
    /// excluding the credential ids it has (`existing`): the ceremony id and the
    /// options for `navigator.credentials.create`.
    ///
    /// Errors: 500 `internal` when the library refuses (it does not with valid ids).
    pub(crate) fn start_registration(
        &self,
        now_ms: u64,
        player: Uuid,
        username: &str,
        name: &str,
        existing: &[Passkey],
    ) -> Result<(Uuid, CreationChallengeResponse), ApiError> {
        let exclude = existing.iter().map(|p| p.cred_id().clone()).collect();
        let (mut options, state) = self
            .webauthn
            .start_passkey_registration(player, username, name, Some(exclude))
            .map_err(|e| ApiError::Internal(format!("passkey registration options: {e}")))?;
        // A discoverable credential: sign-in then needs no username.
        if let Some(sel) = options.public_key.authenticator_selection.as_mut() {
            sel.resident_key = Some(ResidentKeyRequirement::Required);
            sel.require_resident_key = true;
        }
        let id = self.keep(
            now_ms,
            Ceremony::Register {
                player,
                state: Box::new(state),
            },
        );
        Ok((id, options))
    }

    /// Finishes adding a passkey to `player`: the verified passkey.
    ///
    /// Errors: 404 `ceremony_not_found` (no registration ceremony of `player` with
    /// this id, or expired; it is used up either way), 400 `invalid_credential`.
    pub(crate) fn finish_registration(
        &self,
        now_ms: u64,
        player: Uuid,
        ceremony: Uuid,
        response: &RegisterPublicKeyCredential,
    ) -> Result<Passkey, ApiError> {
        let fits = |c: &Ceremony| matches!(c, Ceremony::Register { player: p, .. } if *p == player);
        let Some(Ceremony::Register { state, .. }) = self.take(ceremony, now_ms, fits) else {
            return Err(not_found());
        };
        self.webauthn
            .finish_passkey_registration(response, &state)
            .map_err(invalid)
    }

    /// Starts a sign-in with any passkey of this relying party: the ceremony id and
    /// the options for `navigator.credentials.get` (no `allowCredentials`: the
    /// authenticator offers its passkeys).
    ///
    /// Errors: 500 `internal` when the library refuses.
    pub(crate) fn start_sign_in(
        &self,
        now_ms: u64,
    ) -> Result<(Uuid, RequestChallengeResponse), ApiError> {
        let (mut options, state) = self
            .webauthn
            .start_discoverable_authentication()
            .map_err(|e| ApiError::Internal(format!("passkey sign-in options: {e}")))?;
        // The library asks for conditional mediation (autofill UI); the web client
        // signs in from a button instead.
        options.mediation = None;
        let id = self.keep(
            now_ms,
            Ceremony::SignIn {
                state: Box::new(state),
            },
        );
        Ok((id, options))
    }

    /// The player id (user handle) and credential id a sign-in response names,
    /// before it is verified.
    ///
    /// Errors: 400 `invalid_credential` without a user handle that is a UUID.
    pub(crate) fn identify(
        &self,
        response: &PublicKeyCredential,
    ) -> Result<(Uuid, String), ApiError> {
        self.webauthn
            .identify_discoverable_authentication(response)
            .map(|(player, raw)| (player, credential_id(raw)))
            .map_err(invalid)
    }

    /// Takes sign-in ceremony `ceremony`.
    ///
    /// Errors: 404 `ceremony_not_found` (unknown, used or expired).
    pub(crate) fn take_sign_in(
        &self,
        now_ms: u64,
        ceremony: Uuid,
    ) -> Result<Box<DiscoverableAuthentication>, ApiError> {
        match self.take(ceremony, now_ms, |c| matches!(c, Ceremony::SignIn { .. })) {
            Some(Ceremony::SignIn { state }) => Ok(state),
            _ => Err(not_found()),
        }
    }

    /// Verifies sign-in `response` against `state` and the stored `passkey`, and moves
    /// the passkey's counter on: true when the passkey changed (store it again).
    ///
    /// Errors: 400 `invalid_credential`.
    pub(crate) fn finish_sign_in(
        &self,
        response: &PublicKeyCredential,
        state: DiscoverableAuthentication,
        passkey: &mut Passkey,
    ) -> Result<bool, ApiError> {
        let result = self
            .webauthn
            .finish_discoverable_authentication_v2(response, state, &*passkey)
            .map_err(invalid)?;
        Ok(passkey.update_credential(&result).unwrap_or(false))
    }
}
