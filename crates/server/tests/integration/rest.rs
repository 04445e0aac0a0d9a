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
