//! Passkeys end to end (issue 29.2; in-process server, SQLite): real WebAuthn
//! ceremonies with `webauthn-authenticator-rs`'s software authenticator
//! (`SoftPasskey`) against the default relying party (`localhost`,
//! `http://localhost:8080`).
//!
//! The software authenticator cannot store a discoverable (resident) credential, so
//! the test plays the browser's part there: it asks the authenticator for a
//! non-resident one (the server's options say `residentKey: required`, checked), and
//! at sign-in hands it the credential id and puts the user handle (the player id)
//! into the assertion — what a browser's credential store does. Neither is covered
//! by the signature the server verifies.

use crate::accounts::{call, claim, code, from, get_as, sign_in};
use crate::common::*;
use chrono::{DateTime, Utc};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use server::Config;
use uuid::Uuid;
use webauthn_authenticator_rs::prelude::{
    CreationChallengeResponse, RequestChallengeResponse, Url, WebauthnAuthenticator,
};
use webauthn_authenticator_rs::softpasskey::SoftPasskey;
use webauthn_rs_proto::AllowCredentials;

/// The default `--webauthn-origin`.
fn origin() -> Url {
    Url::parse("http://localhost:8080").unwrap()
}

/// A guest claimed as account `username` (password "correct horse"): (player id, token).
async fn account(s: &TestServer, username: &str) -> (Uuid, String) {
    let (player, token) = s.guest(username).await;
    claim(s, &token, username, "correct horse").await;
    (player, token)
}

/// `POST path` with `token` and `body` from 127.0.0.1: (status, body).
async fn post(s: &TestServer, path: &str, token: &str, body: Option<Value>) -> (StatusCode, Value) {
    let (st, v, _) = call(&reqwest::Client::new(), s, Method::POST, path, token, body).await;
    (st, v)
}

/// Starts adding a passkey: (ceremony id, options).
async fn start_adding(s: &TestServer, token: &str) -> (Uuid, CreationChallengeResponse) {
    let (st, v) = post(s, "/api/v1/accounts/me/passkey-challenges", token, None).await;
    assert_eq!(st, 201, "{v}");
    let options: CreationChallengeResponse = serde_json::from_value(v["options"].clone()).unwrap();
    (v["ceremony_id"].as_str().unwrap().parse().unwrap(), options)
}

/// The authenticator's registration response to `options` on `origin`, as JSON.
fn register(key: &mut SoftPasskey, mut options: CreationChallengeResponse, origin: Url) -> Value {
    let sel = options.public_key.authenticator_selection.as_mut().unwrap();
    // The software authenticator cannot keep a resident key (see the module docs).
    sel.require_resident_key = false;
    sel.resident_key = None;
    serde_json::to_value(key.do_registration(origin, options).unwrap()).unwrap()
}

/// Adds a passkey named `name` made by `key` to the account of `token`: its id.
async fn add_passkey(s: &TestServer, token: &str, key: &mut SoftPasskey, name: &str) -> String {
    let (ceremony, options) = start_adding(s, token).await;
    let credential = register(key, options, origin());
    let (st, v) = post(
        s,
        "/api/v1/accounts/me/passkeys",
        token,
        Some(json!({"ceremony_id": ceremony, "name": name, "credential": credential})),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["name"], name);
    assert_eq!(v["passkey_id"], credential["id"]);
    v["passkey_id"].as_str().unwrap().to_string()
}

/// Starts a passkey sign-in: (ceremony id, options).
async fn start_sign_in(s: &TestServer) -> (Uuid, RequestChallengeResponse) {
    let (st, v) = post(s, "/api/v1/sessions/passkey-challenges", "", None).await;
    assert_eq!(st, 201, "{v}");
    let options: RequestChallengeResponse = serde_json::from_value(v["options"].clone()).unwrap();
    (v["ceremony_id"].as_str().unwrap().parse().unwrap(), options)
}

/// The assertion `key` makes with credential `passkey_id` for `options`, carrying
/// user handle `player` (see the module docs), as JSON.
fn assert_with(
    key: &mut SoftPasskey,
    mut options: RequestChallengeResponse,
    passkey_id: &str,
    player: Uuid,
) -> Value {
    options.public_key.allow_credentials = vec![AllowCredentials {
        type_: "public-key".into(),
        id: data_encoding::BASE64URL_NOPAD
            .decode(passkey_id.as_bytes())
            .unwrap(),
        transports: None,
    }];
    let mut cred = key.do_authentication(origin(), options).unwrap();
    cred.response.user_handle = Some(player.as_bytes().to_vec());
    serde_json::to_value(cred).unwrap()
}

/// `POST /api/v1/sessions/passkey` from `client`: (status, body, Retry-After).
async fn finish_sign_in(
    client: &reqwest::Client,
    s: &TestServer,
    ceremony: Uuid,
    credential: Value,
) -> (StatusCode, Value, Option<String>) {
    call(
        client,
        s,
        Method::POST,
        "/api/v1/sessions/passkey",
        "",
        Some(json!({"ceremony_id": ceremony, "credential": credential})),
    )
    .await
}

fn time(v: &Value) -> DateTime<Utc> {
    v.as_str().unwrap().parse().unwrap()
}

/// Issue 29.2: an account adds a passkey (discoverable, user verification
/// required), lists it, and signs in with it on a new device without a username:
/// a new session of the same player, whose token works; the passkey's last use is
/// recorded and a second sign-in (the counter moved on) works too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_passkey_is_added_and_signs_in_without_a_username() {
    let (s, clock) = start_manual(test_config()).await;
    let (player, token) = account(&s, "Ada").await;
    let mut key = SoftPasskey::new(true);

    let (_, options) = start_adding(&s, &token).await;
    let sel = options.public_key.authenticator_selection.clone().unwrap();
    assert!(
        sel.require_resident_key,
        "a discoverable credential is asked for"
    );
    assert_eq!(options.public_key.rp.id, "localhost");
    assert_eq!(options.public_key.user.id, player.as_bytes().to_vec());
    assert_eq!(options.public_key.user.name, "Ada");
    let id = add_passkey(&s, &token, &mut key, "Laptop").await;

    let (st, list) = get_as(&s, "/api/v1/accounts/me/passkeys", &token).await;
    assert_eq!(st, 200);
    let at = server_time(T0);
    assert_eq!(
        list,
        json!({"passkeys": [{"passkey_id": id, "name": "Laptop", "created_at": at, "last_used_at": null}]})
    );

    // A new device: no token, no username.
    clock.advance_ms(60_000);
    let (ceremony, options) = start_sign_in(&s).await;
    assert!(options.public_key.allow_credentials.is_empty());
    let assertion = assert_with(&mut key, options, &id, player);
    let (st, v, _) = finish_sign_in(&from(2), &s, ceremony, assertion).await;
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["player_id"], player.to_string());
    let new_token = v["token"].as_str().unwrap();
    let (st, me) = get_as(&s, "/api/v1/accounts/me", new_token).await;
    assert_eq!(
        (st, &me["player_id"], &me["username"]),
        (200, &json!(player), &json!("Ada"))
    );
    assert_eq!(me["session_id"], v["session_id"]);
    let (_, list) = get_as(&s, "/api/v1/accounts/me/passkeys", new_token).await;
    assert_eq!(
        time(&list["passkeys"][0]["last_used_at"]),
        time(&json!(server_time(T0 + 60_000)))
    );

    // Again (the stored counter moved on; the authenticator's did too).
    let (ceremony, options) = start_sign_in(&s).await;
    let assertion = assert_with(&mut key, options, &id, player);
    let (st, v, _) = finish_sign_in(&from(2), &s, ceremony, assertion.clone()).await;
    assert_eq!((st, &v["player_id"]), (StatusCode::CREATED, &json!(player)));
    // The same assertion cannot be used twice: its ceremony is gone.
    let (st, v, _) = finish_sign_in(&from(2), &s, ceremony, assertion).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::NOT_FOUND, "ceremony_not_found")
    );
    let (_, sessions) = get_as(&s, "/api/v1/sessions", &token).await;
    assert_eq!(sessions["sessions"].as_array().unwrap().len(), 3);
}

/// A time of the manual clock as the REST API writes it.
fn server_time(ms: u64) -> String {
    DateTime::<Utc>::from_timestamp_millis(i64::try_from(ms).unwrap())
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// Bad input gets typed errors and changes nothing: malformed and non-verifying
/// WebAuthn responses are `invalid_credential`, unknown, used, expired or foreign
/// ceremonies `ceremony_not_found`, a guest cannot add one (`not_claimed`), bad
/// bodies `bad_json` / `invalid_name`; unknown passkeys are `passkey_not_found`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_passkey_input_gets_typed_errors_and_changes_nothing() {
    let (s, clock) = start_manual(test_config()).await;
    let (player, token) = account(&s, "Bea").await;
    let (_, other) = account(&s, "Cy").await;
    let mut key = SoftPasskey::new(true);
    let add = "/api/v1/accounts/me/passkeys";

    // A guest has no account to add a passkey to.
    let (_, guest) = s.guest("Guest").await;
    let (st, v) = post(&s, "/api/v1/accounts/me/passkey-challenges", &guest, None).await;
    assert_eq!((st, code(&v)), (StatusCode::CONFLICT, "not_claimed"));
    let (st, v) = post(&s, "/api/v1/accounts/me/passkey-challenges", "", None).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::UNAUTHORIZED, "not_authenticated")
    );

    let (ceremony, options) = start_adding(&s, &token).await;
    let good = register(&mut key, options, origin());
    let mut garbled = good.clone();
    garbled["response"]["attestationObject"] = json!("AAAA");
    let mut bad_b64 = good.clone();
    bad_b64["rawId"] = json!("not base64url!");
    let cases: Vec<(Value, StatusCode, &str)> = vec![
        (json!([]), StatusCode::BAD_REQUEST, "bad_json"),
        (
            json!({"ceremony_id": ceremony, "name": "K"}),
            StatusCode::BAD_REQUEST,
            "bad_json",
        ),
        (
            json!({"ceremony_id": "nope", "name": "K", "credential": good}),
            StatusCode::BAD_REQUEST,
            "bad_json",
        ),
        (
            json!({"ceremony_id": ceremony, "name": "", "credential": good}),
            StatusCode::BAD_REQUEST,
            "invalid_name",
        ),
        (
            json!({"ceremony_id": ceremony, "name": "K", "credential": {}}),
            StatusCode::BAD_REQUEST,
            "invalid_credential",
        ),
        (
            json!({"ceremony_id": ceremony, "name": "K", "credential": "x"}),
            StatusCode::BAD_REQUEST,
            "invalid_credential",
        ),
        (
            json!({"ceremony_id": ceremony, "name": "K", "credential": bad_b64}),
            StatusCode::BAD_REQUEST,
            "invalid_credential",
        ),
        (
            json!({"ceremony_id": Uuid::new_v4(), "name": "K", "credential": good}),
            StatusCode::NOT_FOUND,
            "ceremony_not_found",
        ),
    ];
    for (body, want, want_code) in cases {
        let (st, v) = post(&s, add, &token, Some(body.clone())).await;
        assert_eq!((st, code(&v)), (want, want_code), "{body}");
    }
    // Another account cannot finish Bea's ceremony (and it stays Bea's).
    let body = json!({"ceremony_id": ceremony, "name": "K", "credential": good});
    let (st, v) = post(&s, add, &other, Some(body)).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::NOT_FOUND, "ceremony_not_found")
    );
    // A response that parses but does not verify uses the ceremony up.
    let body = json!({"ceremony_id": ceremony, "name": "K", "credential": garbled});
    let (st, v) = post(&s, add, &token, Some(body)).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::BAD_REQUEST, "invalid_credential")
    );
    let body = json!({"ceremony_id": ceremony, "name": "K", "credential": good});
    let (st, v) = post(&s, add, &token, Some(body)).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::NOT_FOUND, "ceremony_not_found")
    );

    // Made on another origin: does not verify.
    let (ceremony, options) = start_adding(&s, &token).await;
    let foreign = register(
        &mut key,
        options,
        Url::parse("http://localhost:9999").unwrap(),
    );
    let body = json!({"ceremony_id": ceremony, "name": "K", "credential": foreign});
    let (st, v) = post(&s, add, &token, Some(body)).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::BAD_REQUEST, "invalid_credential")
    );

    // Expired: 5 minutes on the server clock.
    let (ceremony, options) = start_adding(&s, &token).await;
    let late = register(&mut key, options, origin());
    clock.advance_ms(5 * 60_000);
    let body = json!({"ceremony_id": ceremony, "name": "K", "credential": late});
    let (st, v) = post(&s, add, &token, Some(body)).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::NOT_FOUND, "ceremony_not_found")
    );

    let (st, list) = get_as(&s, add, &token).await;
    assert_eq!((st, list), (200, json!({"passkeys": []})));

    // Sign-in: malformed assertions, an unregistered credential, a registration
    // ceremony's id.
    let id = add_passkey(&s, &token, &mut key, "Phone").await;
    let (ceremony, options) = start_sign_in(&s).await;
    let good = assert_with(&mut key, options, &id, player);
    let mut no_handle = good.clone();
    no_handle["response"]["userHandle"] = Value::Null;
    let mut stranger = good.clone();
    stranger["response"]["userHandle"] =
        json!(data_encoding::BASE64URL_NOPAD.encode(Uuid::new_v4().as_bytes()));
    let c = from(3);
    for bad in [json!({}), json!(null), no_handle, stranger] {
        let (st, v, _) = finish_sign_in(&c, &s, ceremony, bad.clone()).await;
        assert_eq!(
            (st, code(&v)),
            (StatusCode::BAD_REQUEST, "invalid_credential"),
            "{bad}"
        );
    }
    let (st, v, _) = finish_sign_in(&c, &s, Uuid::new_v4(), good.clone()).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::NOT_FOUND, "ceremony_not_found")
    );
    let (adding, _) = start_adding(&s, &token).await;
    let (st, v, _) = finish_sign_in(&c, &s, adding, good.clone()).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::NOT_FOUND, "ceremony_not_found")
    );
    let (ceremony, options) = start_sign_in(&s).await;
    let signed = assert_with(&mut key, options, &id, player);
    let mut bad_sig = signed.clone();
    bad_sig["response"]["signature"] = json!("AAAA");
    let (st, v, _) = finish_sign_in(&c, &s, ceremony, bad_sig).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::BAD_REQUEST, "invalid_credential")
    );
    let (st, v) = post(&s, "/api/v1/sessions/passkey", "", Some(json!(["x"]))).await;
    assert_eq!((st, code(&v)), (StatusCode::BAD_REQUEST, "bad_json"));
    // Nothing signed in: only the account's own session.
    let (_, sessions) = get_as(&s, "/api/v1/sessions", &token).await;
    assert_eq!(sessions["sessions"].as_array().unwrap().len(), 1);
    let (_, list) = get_as(&s, add, &token).await;
    assert_eq!(list["passkeys"][0]["last_used_at"], Value::Null);

    // Removing: only one's own, once.
    let path = format!("/api/v1/accounts/me/passkeys/{id}");
    let (st, v, _) = call(
        &reqwest::Client::new(),
        &s,
        Method::DELETE,
        &path,
        &other,
        None,
    )
    .await;
    assert_eq!((st, code(&v)), (StatusCode::NOT_FOUND, "passkey_not_found"));
    let (st, _, _) = call(
        &reqwest::Client::new(),
        &s,
        Method::DELETE,
        &path,
        &token,
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (st, v, _) = call(
        &reqwest::Client::new(),
        &s,
        Method::DELETE,
        &path,
        &token,
        None,
    )
    .await;
    assert_eq!((st, code(&v)), (StatusCode::NOT_FOUND, "passkey_not_found"));
    // A removed passkey signs in no more.
    let (ceremony, options) = start_sign_in(&s).await;
    let assertion = assert_with(&mut key, options, &id, player);
    let (st, v, _) = finish_sign_in(&c, &s, ceremony, assertion).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::BAD_REQUEST, "invalid_credential")
    );
}

/// At most 10 passkeys per account (`too_many_passkeys`, at the start and at the
/// finish); deleting the account deletes its passkeys: they sign in no more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_passkeys_at_most_and_they_go_with_the_account() {
    let s = start(test_config()).await;
    let (player, token) = account(&s, "Dee").await;
    let mut key = SoftPasskey::new(true);
    // A ceremony started at 9 is finished after the 10th is added: refused then.
    let mut ids = Vec::new();
    for n in 0..9 {
        ids.push(add_passkey(&s, &token, &mut key, &format!("Key {n}")).await);
    }
    let (late, late_options) = start_adding(&s, &token).await;
    ids.push(add_passkey(&s, &token, &mut key, "Key 9").await);
    let credential = register(&mut key, late_options, origin());
    let body = json!({"ceremony_id": late, "name": "Key 10", "credential": credential});
    let (st, v) = post(&s, "/api/v1/accounts/me/passkeys", &token, Some(body)).await;
    assert_eq!((st, code(&v)), (StatusCode::CONFLICT, "too_many_passkeys"));
    let (st, v) = post(&s, "/api/v1/accounts/me/passkey-challenges", &token, None).await;
    assert_eq!((st, code(&v)), (StatusCode::CONFLICT, "too_many_passkeys"));
    let (_, list) = get_as(&s, "/api/v1/accounts/me/passkeys", &token).await;
    let listed: Vec<&str> = list["passkeys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["passkey_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed.len(), 10);

    // Delete the account: its passkeys no longer sign in.
    let (st, _, _) = call(
        &reqwest::Client::new(),
        &s,
        Method::DELETE,
        "/api/v1/accounts/me",
        &token,
        Some(json!({"password": "correct horse"})),
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (ceremony, options) = start_sign_in(&s).await;
    let assertion = assert_with(&mut key, options, &ids[0], player);
    let (st, v, _) = finish_sign_in(&from(4), &s, ceremony, assertion).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::BAD_REQUEST, "invalid_credential")
    );
}

/// Passkey sign-ins take from the client address's sign-in budget, the one password
/// sign-ins take from: past it both are 429 `rate_limited` with `Retry-After`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passkey_sign_ins_share_the_address_budget_with_passwords() {
    let s = start(Config {
        sign_ins_per_minute: 1,
        sign_in_burst: 3,
        ..test_config()
    })
    .await;
    account(&s, "Eve").await;
    let c = from(5);
    for _ in 0..2 {
        let (ceremony, _) = start_sign_in(&s).await;
        let (st, v, _) = finish_sign_in(&c, &s, ceremony, json!({})).await;
        assert_eq!(
            (st, code(&v)),
            (StatusCode::BAD_REQUEST, "invalid_credential")
        );
    }
    let (st, v, _) = call(
        &c,
        &s,
        Method::POST,
        "/api/v1/sessions",
        "",
        Some(json!({"username": "Eve", "password": "wrong password"})),
    )
    .await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::UNAUTHORIZED, "bad_credentials")
    );
    let (ceremony, _) = start_sign_in(&s).await;
    let (st, v, retry) = finish_sign_in(&c, &s, ceremony, json!({})).await;
    assert_eq!(
        (st, code(&v)),
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited")
    );
    let retry: u64 = retry.unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    // Another address still signs in with the password.
    let (player, _, _) = sign_in(&s, "Eve", "correct horse").await;
    assert_ne!(player, Uuid::nil());
}
