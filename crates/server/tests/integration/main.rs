//! Integration tests: the real server on 127.0.0.1:0, tokio-tungstenite clients.

mod common;

mod bad_input;
mod keepalive;
mod matchmaking;
mod play;
mod reconnect;
mod rest;
mod shutdown;
