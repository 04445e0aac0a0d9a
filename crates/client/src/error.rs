//! The client's error type.

use protocol::{ErrorCode, ErrorMsg};

/// Everything that can go wrong talking to a server.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The base URL is not an `http://` URL (or not loopback where loopback is required).
    #[error("bad server url {url:?}: {reason}")]
    BadUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An HTTP request (guest creation, replay download) failed.
    #[error("http: {0}")]
    Http(String),
    /// The WebSocket failed (connect, read or write).
    #[error("websocket: {0}")]
    WebSocket(Box<tokio_tungstenite::tungstenite::Error>),
    /// The server sent a frame that is not a protocol server frame.
    #[error("undecodable server frame: {0}")]
    Decode(String),
    /// The server closed the socket.
    #[error("connection closed by the server")]
    Closed,
    /// A replay was fetched before the server had stored the match as ended (its
    /// `seed` and `end` are still null).
    #[error("the replay has no seed and no end yet: the match is not stored as ended")]
    NotEndedYet,
    /// The server answered a request with an `error` message.
    #[error("server error {}: {}", .0.code.as_str(), .0.message)]
    Server(ErrorMsg),
    /// The server sent something the protocol does not allow at this point.
    #[error("protocol violation: {0}")]
    Unexpected(String),
    /// The locally tracked position no longer matches the server's (see
    /// [`crate::tracker::MatchTracker`]).
    #[error("desynchronized from the server: {0}")]
    Desync(String),
    /// No answer came in time.
    #[error("timed out waiting for {0}")]
    Timeout(String),
}

impl ClientError {
    /// A stable short label for counting errors by kind: the server's error code for
    /// [`ClientError::Server`], otherwise the variant's name in snake_case.
    pub fn label(&self) -> String {
        match self {
            ClientError::Server(e) => e.code.as_str().to_string(),
            ClientError::BadUrl { .. } => "bad_url".into(),
            ClientError::Http(_) => "http".into(),
            ClientError::WebSocket(_) => "websocket".into(),
            ClientError::Decode(_) => "decode".into(),
            ClientError::Closed => "closed".into(),
            ClientError::NotEndedYet => "not_ended_yet".into(),
            ClientError::Unexpected(_) => "unexpected".into(),
            ClientError::Desync(_) => "desync".into(),
            ClientError::Timeout(_) => "timeout".into(),
        }
    }

    /// The server's error code, when this is a server `error` answer.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            ClientError::Server(e) => Some(e.code),
            _ => None,
        }
    }
}

impl From<tokio_tungstenite::tungstenite::Error> for ClientError {
    fn from(e: tokio_tungstenite::tungstenite::Error) -> Self {
        ClientError::WebSocket(Box::new(e))
    }
}

impl From<reqwest::Error> for ClientError {
    fn from(e: reqwest::Error) -> Self {
        ClientError::Http(e.to_string())
    }
}

/// Result with [`ClientError`].
pub type Result<T, E = ClientError> = std::result::Result<T, E>;
