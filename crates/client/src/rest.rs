//! The REST calls a client needs: creating a guest (`POST /api/v1/guests`) and
//! fetching a replay (`GET /api/v1/matches/{id}/replay`).

use crate::endpoint::Endpoint;
use crate::error::{ClientError, Result};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A guest identity: the answer of `POST /api/v1/guests`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guest {
    /// The player's id.
    pub player_id: Uuid,
    /// The secret token sent in `hello`.
    pub token: String,
}

#[derive(Serialize)]
struct NewGuest<'a> {
    name: &'a str,
}

/// REST access to one server, sharing one HTTP connection pool.
#[derive(Debug, Clone)]
pub struct Rest {
    endpoint: Endpoint,
    http: reqwest::Client,
}

impl Rest {
    /// A REST client for `endpoint`.
    pub fn new(endpoint: Endpoint) -> Rest {
        let http = reqwest::Client::builder()
            .tcp_nodelay(true)
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .expect("the default reqwest client builds");
        Rest { endpoint, http }
    }

    /// The server's endpoint.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// `POST /api/v1/guests {"name"}` → a new [`Guest`].
    ///
    /// Errors: [`ClientError::Http`] for transport failures and non-2xx answers (the
    /// status and body are in the message).
    pub async fn create_guest(&self, name: &str) -> Result<Guest> {
        let resp = self
            .http
            .post(self.endpoint.http("/api/v1/guests"))
            .json(&NewGuest { name })
            .send()
            .await?;
        let status = resp.status();
        if !status.is_success() {
            let body = resp.text().await.unwrap_or_default();
            return Err(ClientError::Http(format!(
                "POST /api/v1/guests: HTTP {status}: {body}"
            )));
        }
        Ok(resp.json::<Guest>().await?)
    }

    /// Fetches a replay by the path (or absolute URL) given in `match_ended.replay_url`.
    ///
    /// Errors: [`ClientError::Http`] for transport failures, non-2xx answers and bodies
    /// that are not a replay.
    pub async fn replay(&self, replay_url: &str) -> Result<engine::Replay> {
        let url = self
            .endpoint
            .base()
            .join(replay_url)
            .map_err(|e| ClientError::Http(format!("{replay_url}: {e}")))?;
        let resp = self.http.get(url.clone()).send().await?;
        let status = resp.status();
        if !status.is_success() {
            let body = resp.text().await.unwrap_or_default();
            return Err(ClientError::Http(format!(
                "GET {url}: HTTP {status}: {body}"
            )));
        }
        Ok(resp.json::<engine::Replay>().await?)
    }

    /// [`Rest::replay`] of a match that has just ended: the server stores the end and
    /// reveals the seed through its write-behind writer, a moment after it sends
    /// `match_ended`, so until then the replay has `seed` and `end` null. Retries every
    /// 100 ms (the `backon` crate) for up to 10 s while they are null.
    ///
    /// Errors: as [`Rest::replay`]; [`ClientError::Http`] "not stored as ended yet"
    /// when the end is still missing after 10 s.
    pub async fn ended_replay(&self, replay_url: &str) -> Result<engine::Replay> {
        use backon::{ConstantBuilder, Retryable};
        let fetch = || async {
            let r = self.replay(replay_url).await?;
            if r.end.is_none() || r.seed.is_none() {
                return Err(ClientError::NotEndedYet);
            }
            Ok(r)
        };
        fetch
            .retry(
                ConstantBuilder::default()
                    .with_delay(std::time::Duration::from_millis(100))
                    .with_max_times(100),
            )
            .when(|e| matches!(e, ClientError::NotEndedYet))
            .await
    }
}
