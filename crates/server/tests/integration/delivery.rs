//! Delivery (issue 30): gzip and Brotli by `Accept-Encoding` for REST answers and the
//! client's static files, each decoding to the very bytes of the uncompressed answer;
//! `ETag` + `304 Not Modified` (no body) on static files and on an ended match's
//! replay, with `Cache-Control` `no-cache` (files: revalidate every load) and
//! `public, max-age=31536000, immutable` (an ended replay never changes).

use crate::common::*;
use protocol::ServerMsg;
use reqwest::header::{ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, ETAG, IF_NONE_MATCH};
use reqwest::StatusCode;
use std::io::Read;

/// GET `url` with `Accept-Encoding: encoding` (none when empty): (status, headers,
/// raw body bytes as sent).
async fn get_raw(
    url: &str,
    encoding: &str,
    if_none_match: Option<&str>,
) -> (StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let mut req = reqwest::Client::new().get(url);
    if !encoding.is_empty() {
        req = req.header(ACCEPT_ENCODING, encoding);
    }
    if let Some(tag) = if_none_match {
        req = req.header(IF_NONE_MATCH, tag);
    }
    let res = req.send().await.unwrap();
    let (status, headers) = (res.status(), res.headers().clone());
    (status, headers, res.bytes().await.unwrap().to_vec())
}

fn gunzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(b)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn unbrotli(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(b, 4096)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// `url` answered plainly, in gzip and in Brotli: the compressed bodies are smaller and
/// decode to the plain bytes. Returns the plain body.
async fn assert_compresses(url: &str) -> Vec<u8> {
    let (status, headers, plain) = get_raw(url, "", None).await;
    assert_eq!(status, StatusCode::OK, "{url}");
    assert!(headers.get(CONTENT_ENCODING).is_none(), "{url}: identity");
    for (enc, decode) in [
        ("gzip", gunzip as fn(&[u8]) -> Vec<u8>),
        ("br", unbrotli as fn(&[u8]) -> Vec<u8>),
    ] {
        let (status, headers, body) = get_raw(url, enc, None).await;
        assert_eq!(status, StatusCode::OK, "{url} {enc}");
        assert_eq!(
            headers.get(CONTENT_ENCODING).map(|v| v.to_str().unwrap()),
            Some(enc),
            "{url}"
        );
        assert!(
            body.len() < plain.len(),
            "{url} {enc}: {} bytes",
            body.len()
        );
        assert_eq!(
            decode(&body),
            plain,
            "{url} {enc} decodes to the plain bytes"
        );
    }
    plain
}

#[tokio::test]
async fn static_files_compress_and_revalidate_with_etags() {
    let s = start(test_config()).await;
    for path in [
        "/",
        "/js/net.js",
        "/css/app.css",
        "/sw.js",
        "/manifest.webmanifest",
    ] {
        let url = s.url(path);
        assert_compresses(&url).await;
        let (_, headers, _) = get_raw(&url, "gzip, br", None).await;
        assert_eq!(
            headers[CACHE_CONTROL], "no-cache",
            "{path}: revalidate every load"
        );
        let tag = headers[ETAG].to_str().unwrap().to_string();
        assert!(tag.starts_with("W/\""), "{path}: {tag}");
        let (status, headers, body) = get_raw(&url, "gzip, br", Some(&tag)).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
        assert!(body.is_empty(), "{path}: a 304 has no body");
        assert_eq!(headers[ETAG].to_str().unwrap(), tag);
        // Another tag (an older release) gets the whole file again.
        let (status, _, body) = get_raw(&url, "", Some("W/\"0123\"")).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert!(!body.is_empty());
    }
    // A REST answer compresses too (the OpenAPI document, 47 KB).
    let doc = assert_compresses(&s.url("/api/v1/openapi.json")).await;
    assert!(doc.starts_with(b"{"));
}

#[tokio::test]
async fn an_ended_replay_has_a_long_lived_etag_and_a_running_one_none() {
    let (s, clock) = start_manual(server::Config {
        match_seconds: 2,
        ..test_config()
    })
    .await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    let url = s.url(&format!("/api/v1/matches/{id}/replay"));
    clients[0]
        .recv_until(|m| matches!(m, ServerMsg::TurnStarted(_)))
        .await;
    s.state.writer().flush().await;
    let (status, headers, _) = get_raw(&url, "", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        headers[CACHE_CONTROL], "no-store",
        "a running match's replay grows"
    );
    assert!(headers.get(ETAG).is_none());

    clock.set_ms(T0 + 2_000);
    clients[0]
        .recv_until(|m| matches!(m, ServerMsg::MatchEnded(_)))
        .await;
    s.state.writer().flush().await;
    let plain = assert_compresses(&url).await;
    let doc: serde_json::Value = serde_json::from_slice(&plain).unwrap();
    assert!(doc["end"].is_object(), "ended");
    let (_, headers, _) = get_raw(&url, "br", None).await;
    assert_eq!(
        headers[CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    let tag = headers[ETAG].to_str().unwrap().to_string();
    let (status, headers, body) = get_raw(&url, "br", Some(&tag)).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty(), "a 304 has no body");
    assert_eq!(headers[ETAG].to_str().unwrap(), tag);
}
