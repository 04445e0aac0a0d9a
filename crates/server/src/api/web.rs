//! The browser client (`web/` of the repository): its static files are the router's
//! fallback, so a path that no API route claims is looked up among the client's
//! files — `/` and `/index.html`, and the files under `/css/` and `/js/` — and
//! anything else (the folder's tests, README, `node_modules` after a browser test
//! run) is a plain 404. The installable app's `manifest.webmanifest`, `icon.svg` and
//! service worker `sw.js` are served at the root too (the worker's scope is `/`).
//!
//! Caching ([`revalidated`]): every file carries a weak `ETag` (SHA-256 of its bytes)
//! and `Cache-Control: no-cache`, so a browser asks again on each load and an
//! unchanged file is answered `304 Not Modified` without a body. This is the
//! equivalent of content-hashed asset names without a build step: a new release is
//! picked up on the next load, and a repeat visit transfers no client code (the
//! service worker then serves the shell even offline). Compression (gzip, Brotli)
//! is the edge's (`crate::edge::http::layer`).

use crate::config::Config;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use tower_http::services::{ServeDir, ServeFile};

/// Largest static file [`revalidated`] hashes (bytes); a larger one is served as is,
/// without an `ETag`.
const MAX_HASHED_FILE: usize = 8 << 20;

/// `Cache-Control` of every client file: cache, but revalidate before each use.
const REVALIDATE: &str = "no-cache";

/// The weak entity tag of `bytes`: `W/"<first 128 bits of SHA-256, hex>"`. Weak,
/// because the same tag names the identity and the compressed forms of the file.
pub(crate) fn etag_of(bytes: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(bytes);
    HeaderValue::from_str(&format!("W/\"{}\"", hex::encode(&digest[..16])))
        .expect("hex is a valid header value")
}

/// Whether the request's `If-None-Match` names `etag` (or is `*`); weak comparison
/// (RFC 9110 §13.1.2), so `W/"x"` and `"x"` both match `W/"x"`.
pub(crate) fn none_match(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let want = etag.to_str().unwrap_or_default().trim_start_matches("W/");
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.trim_start_matches("W/") == want)
}

/// `304 Not Modified` with `etag` and `cache_control`, no body.
pub(crate) fn not_modified(etag: HeaderValue, cache_control: HeaderValue) -> Response {
    (
        StatusCode::NOT_MODIFIED,
        [(header::ETAG, etag), (header::CACHE_CONTROL, cache_control)],
    )
        .into_response()
}

/// Middleware over the client's files: a `200` gets its [`etag_of`] and
/// `Cache-Control: no-cache`; a request whose `If-None-Match` names that tag gets
/// [`not_modified`] instead. Other statuses pass unchanged.
async fn revalidated(req: Request, next: Next) -> Response {
    let conditional = req.headers().clone();
    let res = next.run(req).await;
    if res.status() != StatusCode::OK {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_HASHED_FILE).await else {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "file too large or unreadable",
        )
            .into_response();
    };
    let etag = etag_of(&bytes);
    let cache = HeaderValue::from_static(REVALIDATE);
    if none_match(&conditional, &etag) {
        return not_modified(etag, cache);
    }
    parts.headers.insert(header::ETAG, etag);
    parts.headers.insert(header::CACHE_CONTROL, cache);
    Response::from_parts(parts, Body::from(bytes))
}

/// The repository's `web/` folder as seen from this crate's source (`crates/server`).
const SOURCE_WEB_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web");

/// The folder to serve: `config.web_dir` (`--web-dir`, `LUDO_WEB_DIR`) when given,
/// otherwise the first of the source tree's `web/` and `./web` that holds an
/// `index.html`; `None` when there is no such folder.
pub(crate) fn web_dir(config: &Config) -> Option<PathBuf> {
    if let Some(dir) = &config.web_dir {
        return Some(dir.clone());
    }
    [PathBuf::from(SOURCE_WEB_DIR), PathBuf::from("web")]
        .into_iter()
        .find(|d| d.join("index.html").is_file())
}

/// `router` with the web folder of [`web_dir`] as its fallback service (`index.html`
/// for `/`); unchanged, with a warning, when there is no web folder. A configured
/// folder without an `index.html` is still served, with a warning.
pub(crate) fn with_web<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    config: &Config,
) -> Router<S> {
    match web_dir(config) {
        Some(dir) => {
            if !dir.join("index.html").is_file() {
                tracing::warn!(dir = %dir.display(), "the web folder has no index.html");
            }
            tracing::debug!(dir = %dir.display(), "serving the browser client at /");
            router.fallback_service(client_files(&dir))
        }
        None => {
            tracing::warn!(
                "no web folder found: the browser client is not served (set LUDO_WEB_DIR)"
            );
            router
        }
    }
}

/// The client's files in `dir`: `index.html` at `/` and `/index.html`, the folders
/// `css/` and `js/`, the web app manifest, its icon and the service worker; every
/// other path 404. Each answer goes through [`revalidated`].
fn client_files(dir: &std::path::Path) -> Router {
    let index = ServeFile::new(dir.join("index.html"));
    Router::new()
        .route_service("/", index.clone())
        .route_service("/index.html", index)
        .route_service(
            "/manifest.webmanifest",
            ServeFile::new(dir.join("manifest.webmanifest")),
        )
        .route_service("/icon.svg", ServeFile::new(dir.join("icon.svg")))
        .route_service("/sw.js", ServeFile::new(dir.join("sw.js")))
        .nest_service("/css", ServeDir::new(dir.join("css")))
        .nest_service("/js", ServeDir::new(dir.join("js")))
        .layer(axum::middleware::from_fn(revalidated))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::{to_bytes, Body};
    use axum::http::{header, Request, StatusCode};
    use axum::routing::get;
    use std::path::Path;
    use tower::ServiceExt;

    async fn get_path(app: Router, path: &str) -> (StatusCode, String, String) {
        let res = app
            .oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = res.status();
        let ctype = res
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let body = to_bytes(res.into_body(), 1 << 20).await.unwrap();
        (status, ctype, String::from_utf8_lossy(&body).into_owned())
    }

    #[test]
    fn the_source_tree_web_folder_is_found_and_the_flag_wins() {
        let found = web_dir(&Config::default()).expect("the repository has web/index.html");
        assert!(found.join("index.html").is_file());
        let cfg = Config {
            web_dir: Some(PathBuf::from("/srv/web")),
            ..Config::default()
        };
        assert_eq!(web_dir(&cfg), Some(PathBuf::from("/srv/web")));
    }

    #[tokio::test]
    async fn the_client_is_served_behind_the_api_routes() {
        // Contract: `/` is web/index.html, modules come with a JavaScript type, API
        // routes still win, and an unknown file is 404.
        let api = Router::new().route("/api/v1/ping", get(|| async { "pong" }));
        let app = with_web(api, &Config::default());
        let (status, ctype, body) = get_path(app.clone(), "/").await;
        assert_eq!(status, StatusCode::OK);
        assert!(ctype.starts_with("text/html"), "{ctype}");
        assert!(
            body.contains("<script type=\"module\" src=\"js/app.js\">"),
            "index.html"
        );
        let (status, ctype, body) = get_path(app.clone(), "/js/notation.js").await;
        assert_eq!(status, StatusCode::OK);
        assert!(ctype.starts_with("text/javascript"), "{ctype}");
        assert!(body.contains("export function step("));
        assert_eq!(get_path(app.clone(), "/api/v1/ping").await.2, "pong");
        assert_eq!(
            get_path(app.clone(), "/no/such/file.js").await.0,
            StatusCode::NOT_FOUND
        );
        // Only the client's files: web/'s tests and README exist but are not served.
        assert!(Path::new(SOURCE_WEB_DIR)
            .join("tests/package.json")
            .is_file());
        for path in [
            "/tests/package.json",
            "/README.md",
            "/tests/browser.test.js",
        ] {
            assert_eq!(
                get_path(app.clone(), path).await.0,
                StatusCode::NOT_FOUND,
                "{path}"
            );
        }
        assert_eq!(get_path(app, "/index.html").await.0, StatusCode::OK);
    }
}
