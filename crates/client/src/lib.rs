//! WebSocket client library for the game server, built on the `protocol` crate and
//! tokio-tungstenite, plus the tools built on it: `ludo-bots` (plays whole matches
//! as bot clients), `ludo-load` (load generator) and `verify-replay`.
//!
//! # Layout
//! * [`endpoint`]: the server's base URL, its `/ws` URL, the loopback check.
//! * [`rest`]: `POST /api/v1/guests` and replay downloads.
//! * [`codec`]: fast decoding of server frames.
//! * [`conn`]: one WebSocket speaking JSON text frames.
//! * [`session`]: an authenticated session: `hello`, queue, lobbies, submit, pass,
//!   resync, `seq` gap detection, reconnect.
//! * [`tracker`]: following a match's position from `turn_started`/`turn_resolved`
//!   by re-playing plans with the engine.
//! * [`player`]: a bot client playing one match to its end.
//! * [`stats`]: shared counters and the latency histogram.
//! * [`table`]: four bot clients meeting in a lobby (or the queue) and playing.
//! * [`load`]: the load generator behind `ludo-load`.
//! * [`memory`]: the server's resident memory from `/proc`.
//! * [`server_metrics`]: the server's `/metrics` before and after a load run.
//! * [`window`]: the server's CPU seconds per 1,000 turns over a run's steady window.
//!
//! ```no_run
//! # async fn demo() -> client::Result<()> {
//! use client::{Endpoint, Rest, Session};
//! let ep = Endpoint::parse("http://127.0.0.1:8080")?;
//! let guest = Rest::new(ep.clone()).create_guest("alice").await?;
//! let mut s = Session::connect(&ep, guest, "demo/1").await?;
//! s.join_queue(engine::Mode::Clash).await?;
//! let started = s.wait_match_started(std::time::Duration::from_secs(60)).await?;
//! println!("seated as {:?} in {}", started.your_seat, started.match_id);
//! # Ok(()) }
//! ```

pub mod codec;
pub mod conn;
pub mod endpoint;
pub mod error;
pub mod load;
pub mod memory;
pub mod player;
pub mod rest;
pub mod server_metrics;
pub mod session;
pub mod stats;
pub mod table;
pub mod tracker;
pub mod window;

pub use endpoint::Endpoint;
pub use error::{ClientError, Result};
pub use rest::{Guest, Rest};
pub use session::Session;
pub use stats::{Stats, StatsSnapshot};
pub use tracker::MatchTracker;
