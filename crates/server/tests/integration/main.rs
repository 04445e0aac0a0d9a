//! Integration tests: the real server on 127.0.0.1:0, tokio-tungstenite clients.
//!
//! Which harness for what: `common::start(test_config())` runs the server in this
//! process on a port-0 listener with a SQLite file of its own and the system clock;
//! `common::start_manual` gives it a manual `Clock` instead, which the test moves
//! (every turn timer, match clock, bot fill and session expiry is tested that way,
//! never waited out). `common::Client` is one WebSocket with bounded `recv`,
//! `expect_error`, `expect_silence` and `expect_close`. `backends`, `outage` and
//! `rest_api` also run on a PostgreSQL database of their own (created and dropped
//! by the test); `edge_process` starts the real binary (open-file limits). Tests of
//! several processes (crashes, restarts, the cluster) are in `tests/processes`.

mod backends;
mod common;

mod accounts;
mod passkeys;

mod delivery;

mod bad_input;
mod bot_levels;
mod bot_ratings;
mod contribution;
mod edge;
mod edge_process;
mod keepalive;
mod layers;
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
