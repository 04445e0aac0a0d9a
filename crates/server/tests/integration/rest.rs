//! REST: guests, bearer authentication, health.

use crate::common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn guests_get_a_random_token_that_authenticates_rest() {
    let s = start(test_config()).await;
    let http = reqwest::Client::new();
    let (id, token) = s.guest("Ana María").await;
    assert_eq!(token.len(), 64, "256 bits as hex");
    let (_, token2) = s.guest("Ana María").await;
    assert_ne!(token, token2);

    let me: Value = http
        .get(s.url("/api/v1/guests/me"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["player_id"], json!(id));
    assert_eq!(me["name"], "Ana María");

    for auth in [None, Some("nope".to_string())] {
        let mut req = http.get(s.url("/api/v1/guests/me"));
        if let Some(a) = auth {
            req = req.bearer_auth(a);
        }
        let r = req.send().await.unwrap();
        assert_eq!(r.status(), 401);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], "not_authenticated");
    }
}

#[tokio::test]
async fn bad_names_and_bodies_are_400_with_the_error_body() {
    let s = start(test_config()).await;
    let http = reqwest::Client::new();
    for (body, code) in [
        (json!({"name": ""}), "invalid_name"),
        (json!({"name": "x".repeat(25)}), "invalid_name"),
        (json!({"name": "bell\u{7}"}), "invalid_name"),
        (json!({"name": "  "}), "invalid_name"),
        (json!({"nom": "Ana"}), "bad_json"),
        (json!({"name": 5}), "bad_json"),
        // Not an object: serde's derived struct would take the array as `{name}`
        // and create a guest.
        (json!(["Ana"]), "bad_json"),
        (json!("Ana"), "bad_json"),
    ] {
        let r = http
            .post(s.url("/api/v1/guests"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{body}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], code, "{body}");
        assert!(v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    }
    let r = http
        .post(s.url("/api/v1/guests"))
        .header("content-type", "application/json")
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "bad_json");
}

#[tokio::test]
async fn healthz_reports_ok() {
    let s = start(test_config()).await;
    let r = reqwest::get(s.url("/healthz")).await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        (
            v["status"].as_str(),
            v["database"].as_str(),
            v["rooms"].as_u64()
        ),
        (Some("ok"), Some("sqlite"), Some(0))
    );
}

/// Contract: every API error has the JSON error body, also for an unknown `/api/…`
/// path (404 `not_found`) and a known path with the wrong method (405
/// `method_not_allowed`); paths outside `/api` stay the web folder's.
#[tokio::test]
async fn unknown_api_paths_and_wrong_methods_have_the_error_body() {
    let s = start(test_config()).await;
    let http = reqwest::Client::new();
    for (method, path, status, code) in [
        (reqwest::Method::GET, "/api/v1/nothing", 404, "not_found"),
        (reqwest::Method::POST, "/api/v2/guests", 404, "not_found"),
        (
            reqwest::Method::DELETE,
            "/api/v1/guests",
            405,
            "method_not_allowed",
        ),
        (
            reqwest::Method::POST,
            "/api/v1/leaderboard",
            405,
            "method_not_allowed",
        ),
    ] {
        let r = http
            .request(method.clone(), s.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), status, "{method} {path}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], code, "{method} {path}: {body}");
        assert!(body["error"]["message"].as_str().unwrap().contains(path));
    }
}
