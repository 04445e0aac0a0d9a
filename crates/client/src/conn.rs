//! One WebSocket connection speaking the protocol's JSON text frames: encodes
//! [`ClientFrame`]s, decodes [`ServerFrame`]s. No protocol logic beyond framing.

use crate::codec::{decode_frame_with, Decode};
use crate::error::{ClientError, Result};
use futures_util::{SinkExt, StreamExt};
use protocol::{ClientFrame, ClientMsg, ServerFrame};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Bytes read from the socket at a time (a server frame is at most a few KiB).
pub const READ_BUFFER_BYTES: usize = 8 * 1024;

/// An open WebSocket to the server's `/ws`.
#[derive(Debug)]
pub struct Connection {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    decode: Decode,
    /// The server's close code, once it closed the socket with one.
    close_code: Option<u16>,
}

impl Connection {
    /// Opens `ws_url` (e.g. `ws://127.0.0.1:8080/ws`) with Nagle's algorithm off, so
    /// small frames leave at once, and a [`READ_BUFFER_BYTES`] read buffer (the
    /// library's 128 KiB default is zeroed on every read: a load generator holding
    /// thousands of sockets spent a tenth of its time in that `memset`).
    ///
    /// Errors: [`ClientError::WebSocket`] when the TCP connect or the upgrade fails.
    pub async fn open(ws_url: &str) -> Result<Connection> {
        let config = WebSocketConfig::default()
            .read_buffer_size(READ_BUFFER_BYTES)
            .write_buffer_size(0);
        let (ws, _resp) =
            tokio_tungstenite::connect_async_with_config(ws_url, Some(config), true).await?;
        Ok(Connection {
            ws,
            next_id: 0,
            decode: Decode::Full,
            close_code: None,
        })
    }

    /// How much of each received frame to decode (default [`Decode::Full`]).
    pub fn set_decode(&mut self, decode: Decode) {
        self.decode = decode;
    }

    /// Sends `msg` with a fresh request id (`"1"`, `"2"`, …) and returns the id, which
    /// the server echoes in its `ack` or `error`.
    pub async fn request(&mut self, msg: ClientMsg) -> Result<String> {
        self.next_id += 1;
        let id = self.next_id.to_string();
        self.send(&ClientFrame {
            id: Some(id.clone()),
            msg,
        })
        .await?;
        Ok(id)
    }

    /// Sends one frame as a text message.
    pub async fn send(&mut self, frame: &ClientFrame) -> Result<()> {
        let text = serde_json::to_string(frame).expect("client frames always serialize");
        self.ws.send(Message::text(text)).await?;
        Ok(())
    }

    /// The next server frame. WebSocket pings are answered by the library; pongs and
    /// other control frames are skipped.
    ///
    /// Errors: [`ClientError::Closed`] when the server closed the socket,
    /// [`ClientError::Decode`] for a text frame that is not a server frame or a binary
    /// frame, [`ClientError::WebSocket`] for transport errors.
    pub async fn recv(&mut self) -> Result<ServerFrame> {
        loop {
            match self.ws.next().await {
                None => return Err(ClientError::Closed),
                Some(Err(e)) => return Err(e.into()),
                Some(Ok(Message::Text(t))) => {
                    return decode_frame_with(t.as_str(), self.decode)
                        .map_err(|e| ClientError::Decode(format!("{e}: {}", t.as_str())))
                }
                Some(Ok(Message::Binary(_))) => {
                    return Err(ClientError::Decode("binary frame".into()))
                }
                Some(Ok(Message::Close(c))) => {
                    self.close_code = c.map(|c| u16::from(c.code));
                    return Err(ClientError::Closed);
                }
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The close code the server sent when it closed the socket (after
    /// [`ClientError::Closed`]; `None` before, or for a close without a code).
    pub fn close_code(&self) -> Option<u16> {
        self.close_code
    }

    /// Closes the socket politely (errors while closing are ignored).
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}
