//! Integration tests: the real server on 127.0.0.1:0, tokio-tungstenite clients.

mod backends;
mod common;

mod bad_input;
mod keepalive;
mod matchmaking;
mod openapi_file;
mod outage;
mod play;
mod reconnect;
mod rest;
mod rest_api;
mod shutdown;
mod timers;
