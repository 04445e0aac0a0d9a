//! Integration tests: the real server on 127.0.0.1:0, tokio-tungstenite clients.

mod backends;
mod common;

mod accounts;

mod delivery;

mod bad_input;
mod bot_levels;
mod contribution;
mod edge;
mod edge_process;
mod keepalive;
mod leaving;
mod lifecycle;
mod matchmaking;
mod openapi_file;
mod outage;
mod phones;
mod play;
mod preview;
mod public_lobbies;
mod ratings;
mod reconnect;
mod reconnect_abrupt;
mod rest;
mod rest_api;
mod rule_sets;
mod shutdown;
mod timers;
mod ws_frames;
