//! Server configuration: command-line flags, each also readable from an environment
//! variable (`--turn-seconds` or `LUDO_TURN_SECONDS` …). [`Config::default`] gives the
//! same values as running with no flags and no variables.

use clap::Parser;
use std::net::SocketAddr;
use std::time::Duration;

/// How long a passkey ceremony may take, in ms (5 minutes; the WebAuthn options'
/// `timeout` too).
pub(crate) const PASSKEY_CEREMONY_MS: u64 = 5 * 60 * 1000;

/// Default listen address.
pub(crate) const DEFAULT_BIND: &str = "127.0.0.1:8080";
/// Rule 4.6 default: seconds per turn.
pub(crate) const DEFAULT_TURN_SECONDS: u32 = 30;
/// Rule 9.1 default: seconds of the match clock.
pub(crate) const DEFAULT_MATCH_SECONDS: u32 = 1800;
/// Default seconds a quick-play queue waits for four humans before bots fill in.
pub(crate) const DEFAULT_BOT_FILL_SECONDS: u32 = 20;
/// Default milliseconds a bot "thinks" before it submits (so humans can follow).
pub(crate) const DEFAULT_BOT_THINK_MS: u64 = 300;
/// Default largest client frame handled, bytes.
pub(crate) const DEFAULT_MAX_FRAME_BYTES: usize = protocol::MAX_FRAME_BYTES;
/// Default sustained client messages per second per connection.
pub(crate) const DEFAULT_RATE_PER_SECOND: u32 = 10;
/// Default burst of client messages above the sustained rate.
pub(crate) const DEFAULT_RATE_BURST: u32 = 20;
/// Default rate-limited messages in a row after which the socket is closed.
pub(crate) const DEFAULT_ABUSE_STRIKES: u32 = 40;
/// Default frames a connection's outbound queue holds before the client counts as
/// too slow and is disconnected.
pub(crate) const DEFAULT_OUTBOUND_QUEUE: usize = 256;
/// Default match frames kept per room for `resync`: 8, about four turns (a
/// `turn_resolved` and a `turn_started` each). Older gaps get a snapshot, which holds
/// everything a client needs to go on. Each kept `turn_resolved` is ≈ 3.7 KB, so 16
/// frames cost ≈ 16 KiB more per live match than 8 (BENCHMARKS.md, issue 14).
pub(crate) const DEFAULT_RESYNC_FRAMES: usize = 8;
/// Default group-commit window of the persistence writer, ms.
pub(crate) const DEFAULT_COMMIT_WINDOW_MS: u64 = 2;
/// Default threads running sockets, rooms and timers ([`Config::worker_threads`]).
pub(crate) const DEFAULT_WORKER_THREADS: usize = 1;
/// Default seconds between server pings.
pub(crate) const DEFAULT_PING_SECONDS: u32 = 20;
/// Default seconds of silence after which a socket is closed.
pub(crate) const DEFAULT_IDLE_SECONDS: u32 = 60;
/// Default seconds shutdown waits for rooms and sockets (and again for the writer).
pub(crate) const DEFAULT_SHUTDOWN_GRACE_SECONDS: u32 = 10;
/// Default seconds every human of a match may be away before it ends as abandoned.
pub(crate) const DEFAULT_ABANDON_SECONDS: u32 = 120;
/// Default turns in a row a connected seat may let time out before it is away.
pub(crate) const DEFAULT_AWAY_AFTER_TIMEOUTS: u32 = 2;
/// Default `--pong-timeout-ms`: how long a seat on its turn has to answer the
/// room's ping before the seat is away.
pub(crate) const DEFAULT_PONG_TIMEOUT_MS: u32 = 12_000;
/// Default `--max-lag-ms`: how far behind the live stream a client's socket may
/// fall before it is closed to resync (4001).
pub(crate) const DEFAULT_MAX_LAG_MS: u32 = 30_000;
/// Default dice contribution window (ms): how long a new match waits for its human
/// seats' `contribute_entropy` before the first roll.
pub(crate) const DEFAULT_CONTRIBUTION_WINDOW_MS: u32 = 3_000;
/// Default bot strategy.
pub(crate) const DEFAULT_BOT_KIND: &str = "greedy";
/// Default wall-clock budget of an expert decision, ms.
pub(crate) const DEFAULT_BOT_BUDGET_MS: u64 = 20;
/// Default node budget of an expert's clash decision ([`bot::ExpertConfig::node_budget`]).
pub(crate) const DEFAULT_BOT_NODES: usize = 16_000;
/// Default node budget of an expert's journey decision
/// ([`bot::ExpertConfig::journey_node_budget`]).
pub(crate) const DEFAULT_BOT_JOURNEY_NODES: usize = 32_000;
/// Default expert searches at once.
pub(crate) const DEFAULT_BOT_SEARCHES: usize = 2;
/// Default seconds a lobby keeps the seat of a member whose connection dropped.
pub(crate) const DEFAULT_LOBBY_GRACE_SECONDS: u32 = 60;
/// Default seconds a queued player whose connection dropped keeps its queue place.
pub(crate) const DEFAULT_QUEUE_GRACE_SECONDS: u32 = 10;
/// Default for [`Config::rating_min_matches`].
pub(crate) const DEFAULT_RATING_MIN_MATCHES: u32 = 5;

// --- Edge hardening (timeouts, connection caps, per-address limits, origins) ---
/// Default milliseconds a client has to send a request's line and headers (every
/// HTTP request, the WebSocket upgrade request included; also an idle keep-alive
/// connection's wait for its next request).
pub(crate) const DEFAULT_HEADER_TIMEOUT_MS: u64 = 5_000;
/// Default milliseconds a whole request body has to arrive after the headers.
pub(crate) const DEFAULT_BODY_TIMEOUT_MS: u64 = 5_000;
/// Default milliseconds from the WebSocket upgrade until a good `hello`.
pub(crate) const DEFAULT_HELLO_TIMEOUT_MS: u64 = 5_000;
/// Default most concurrent connections from one client address (0: no limit).
pub(crate) const DEFAULT_MAX_CONNECTIONS_PER_IP: usize = 64;
/// Default guests one client address may create per minute, sustained.
pub(crate) const DEFAULT_GUESTS_PER_MINUTE: u32 = 10;
/// Default burst of guest creations per client address.
pub(crate) const DEFAULT_GUEST_BURST: u32 = 20;
/// Default days a session may stay unused before it expires.
pub(crate) const DEFAULT_SESSION_IDLE_DAYS: u32 = 30;
/// Default password hashes computed at once (Argon2id, 19 MiB each).
pub(crate) const DEFAULT_PASSWORD_HASH_THREADS: usize = 1;
/// Default sign-in attempts one client address may make per minute, sustained.
pub(crate) const DEFAULT_SIGN_INS_PER_MINUTE: u32 = 10;
/// Default burst of sign-in attempts per client address.
pub(crate) const DEFAULT_SIGN_IN_BURST: u32 = 10;
/// Default sign-in attempts on one username per minute, sustained.
pub(crate) const DEFAULT_ACCOUNT_SIGN_INS_PER_MINUTE: u32 = 5;
/// Default burst of sign-in attempts on one username.
pub(crate) const DEFAULT_ACCOUNT_SIGN_IN_BURST: u32 = 10;

/// Default milliseconds of a room lease in cluster mode.
pub(crate) const DEFAULT_LEASE_MS: u64 = 3_000;
/// Default milliseconds past its expiry during which a lease whose owner still
/// answers on NATS that it runs the match is left to that owner (a database outage
/// shorter than this moves no match).
pub(crate) const DEFAULT_LEASE_GRACE_MS: u64 = 20_000;
/// Default WebAuthn relying party id (passkeys): the host of the default server.
pub(crate) const DEFAULT_WEBAUTHN_RP_ID: &str = "localhost";
/// Default WebAuthn origin (passkeys): the page's origin on the default server.
pub(crate) const DEFAULT_WEBAUTHN_ORIGIN: &str = "http://localhost:8080";
/// Default prefix of the cluster's NATS subjects.
pub(crate) const DEFAULT_NATS_PREFIX: &str = "ludo";

/// Every setting of the server. Times are in the unit their name says.
#[derive(Debug, Clone, Parser)]
#[command(name = "ludo-server", version, about = "Authoritative game server")]
pub struct Config {
    /// Address to listen on (HTTP and WebSocket).
    #[arg(long, env = "LUDO_BIND", default_value = DEFAULT_BIND)]
    pub bind: SocketAddr,
    /// Database URL (`postgres://…` or `sqlite:…`); none: `sqlite://ludo.db`. An
    /// empty value is refused (it would otherwise silently mean the default).
    #[arg(long, env = "DATABASE_URL", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub database_url: Option<String>,
    /// Rule 4.6: seconds per turn before the server passes it.
    #[arg(long, env = "LUDO_TURN_SECONDS", default_value_t = DEFAULT_TURN_SECONDS,
          value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub turn_seconds: u32,
    /// Rule 9.1: seconds of the match clock.
    #[arg(long, env = "LUDO_MATCH_SECONDS", default_value_t = DEFAULT_MATCH_SECONDS,
          value_parser = clap::value_parser!(u32).range(1..=604_800))]
    pub match_seconds: u32,
    /// RULES.md §10: a JSON file holding a whole rule set — the `rules` object of a
    /// replay or snapshot (`proto/replay.schema.json`, every field) — used for every
    /// new match; none: the §10 defaults. Its `turn_seconds` and `match_seconds` are
    /// replaced by `--turn-seconds` and `--match-seconds`. A file that cannot be read,
    /// is not a rule set, or breaks the engine's limits (`RuleSet::check`) stops the
    /// start-up with the reason. A running match keeps the rule set it started with.
    #[arg(long, env = "LUDO_RULES_FILE", value_parser = parse_rules_file)]
    pub rules_file: Option<engine::RuleSet>,
    /// Seconds the quick-play queue waits for four humans before bots take the
    /// empty seats (0: bots at once).
    #[arg(long, env = "LUDO_BOT_FILL_SECONDS", default_value_t = DEFAULT_BOT_FILL_SECONDS)]
    pub bot_fill_seconds: u32,
    /// Milliseconds a bot waits before it submits its plan.
    #[arg(long, env = "LUDO_BOT_THINK_MS", default_value_t = DEFAULT_BOT_THINK_MS)]
    pub bot_think_ms: u64,
    /// Bot level of a seat whose player left, of resumed matches stored without a
    /// level, and the default of lobbies and quick play: `beginner`, `casual`,
    /// `greedy`, `expert` (or `random`).
    #[arg(long, env = "LUDO_BOT_KIND", default_value = DEFAULT_BOT_KIND)]
    pub bot_kind: bot::BotKind,
    /// Wall-clock budget of one `expert` decision, ms (its search runs on the
    /// blocking thread pool, never on the event loop).
    #[arg(long, env = "LUDO_BOT_BUDGET_MS", default_value_t = DEFAULT_BOT_BUDGET_MS,
          value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub bot_budget_ms: u64,
    /// Node budget of one `expert` decision in clash (plans played; the search stops
    /// at this or at the wall-clock budget, whichever comes first; 0: the wall clock
    /// alone).
    #[arg(long, env = "LUDO_BOT_NODES", default_value_t = DEFAULT_BOT_NODES)]
    pub bot_nodes: usize,
    /// The same in journey, where the expert needs the larger search
    /// (`BENCHMARKS.md`).
    #[arg(long, env = "LUDO_BOT_JOURNEY_NODES", default_value_t = DEFAULT_BOT_JOURNEY_NODES)]
    pub bot_journey_nodes: usize,
    /// `expert` searches running at once, over all matches; a bot that finds them
    /// all busy plays its greedy plan instead (overload makes bots weaker, not slower).
    #[arg(long, env = "LUDO_BOT_SEARCHES", default_value_t = DEFAULT_BOT_SEARCHES,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    pub bot_searches: usize,
    /// Largest client frame handled, bytes. Larger frames up to 4× this get a
    /// `too_large` error; beyond that the socket is closed (code 1009).
    #[arg(long, env = "LUDO_MAX_FRAME_BYTES", default_value_t = DEFAULT_MAX_FRAME_BYTES,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(256..=1_048_576))]
    pub max_frame_bytes: usize,
    /// Sustained client messages per second per connection.
    #[arg(long, env = "LUDO_RATE_PER_SECOND", default_value_t = DEFAULT_RATE_PER_SECOND,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_per_second: u32,
    /// Extra messages a connection may send in a burst.
    #[arg(long, env = "LUDO_RATE_BURST", default_value_t = DEFAULT_RATE_BURST,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_burst: u32,
    /// Rate-limited messages in a row after which the socket is closed (code 1008).
    #[arg(long, env = "LUDO_ABUSE_STRIKES", default_value_t = DEFAULT_ABUSE_STRIKES,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub abuse_strikes: u32,
    /// Frames a connection's outbound queue holds; a client that lets it fill is
    /// disconnected instead of buffered without bound (close code 1008 when it
    /// reads again within 1 s, else the connection just ends).
    #[arg(long, env = "LUDO_OUTBOUND_QUEUE", default_value_t = DEFAULT_OUTBOUND_QUEUE,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(8..=65_536))]
    pub outbound_queue: usize,
    /// Milliseconds a client may fall behind the live stream (a player or spectator
    /// on a slow link): a lag probe (a ping sent after the frames queued before it)
    /// not answered by a pong within this time closes the socket with 4001
    /// (`proto/README.md` §2), and the client's resync gets a snapshot instead of a
    /// stream that stays minutes stale. 0 turns the probe off.
    #[arg(long, env = "LUDO_MAX_LAG_MS", default_value_t = DEFAULT_MAX_LAG_MS,
          value_parser = clap::value_parser!(u32).range(0..=600_000))]
    pub max_lag_ms: u32,
    /// Match frames each room keeps for `resync`; older gaps get a snapshot.
    #[arg(long, env = "LUDO_RESYNC_FRAMES", default_value_t = DEFAULT_RESYNC_FRAMES)]
    pub resync_frames: usize,
    /// Group-commit window of the persistence writer, ms: a commit waits until its
    /// oldest write was made this long ago, so other rooms' writes share it (a turn
    /// is shown only once committed, so this is added to the turn latency; a write
    /// that waited for the commit before it waits no more; 0 commits at once).
    #[arg(long, env = "LUDO_COMMIT_WINDOW_MS", default_value_t = DEFAULT_COMMIT_WINDOW_MS,
          value_parser = clap::value_parser!(u64).range(0..=100))]
    pub commit_window_ms: u64,
    /// Threads that run the sockets, rooms, lobbies, matchmaking and timers. 1 (the
    /// default): one event-loop thread (Tokio's current-thread runtime) beside the
    /// store's own connection threads; on the 2-core machine of BENCHMARKS.md it spent
    /// 0.145 CPU-s per 1,000 turns at 1,000 matches × 1 turn/s against 0.166 with two
    /// workers (no wake-ups between workers). N > 1: a multi-thread
    /// runtime with N workers, for a node whose one thread does not keep up (cluster
    /// nodes are the other way to scale).
    #[arg(long, env = "LUDO_WORKER_THREADS", default_value_t = DEFAULT_WORKER_THREADS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub worker_threads: usize,
    /// Seconds of silence from a client after which the server sends it a WebSocket
    /// ping, and again every as many seconds while it stays quiet.
    #[arg(long, env = "LUDO_PING_SECONDS", default_value_t = DEFAULT_PING_SECONDS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub ping_seconds: u32,
    /// Seconds without any frame from a client after which its socket is closed.
    #[arg(long, env = "LUDO_IDLE_SECONDS", default_value_t = DEFAULT_IDLE_SECONDS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub idle_seconds: u32,
    /// Seconds graceful shutdown waits for rooms and sockets, and then for the
    /// persistence writer.
    #[arg(long, env = "LUDO_SHUTDOWN_GRACE_SECONDS", default_value_t = DEFAULT_SHUTDOWN_GRACE_SECONDS)]
    pub shutdown_grace_seconds: u32,
    /// Seconds every human of a match may be disconnected (or gone: left the match)
    /// before the match ends with reason `abandoned` and the standings of that moment.
    #[arg(long, env = "LUDO_ABANDON_SECONDS", default_value_t = DEFAULT_ABANDON_SECONDS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub abandon_seconds: u32,
    /// Turns in a row a connected seat's player may let time out (rule 4.6) before
    /// the seat is away (`seat_away`): its turns are then passed at once until its
    /// player sends a match message again (`seat_back`). A disconnected seat is away
    /// after one.
    #[arg(long, env = "LUDO_AWAY_AFTER_TIMEOUTS", default_value_t = DEFAULT_AWAY_AFTER_TIMEOUTS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub away_after_timeouts: u32,
    /// Milliseconds a connected seat has, from the start of its own turn, to answer
    /// the WebSocket ping the room sends it then (any frame counts as the answer).
    /// A seat whose socket stays silent that long is away at once (`seat_away`) and
    /// its turn is passed, instead of waiting out the turn timer (a locked phone, a
    /// dead link the TCP stack has not noticed). 0 turns the ping off. Only for
    /// sockets on the room's own node; a seat connected through another node of a
    /// cluster keeps the turn timer.
    #[arg(long, env = "LUDO_PONG_TIMEOUT_MS", default_value_t = DEFAULT_PONG_TIMEOUT_MS,
          value_parser = clap::value_parser!(u32).range(0..=120_000))]
    pub pong_timeout_ms: u32,
    /// Milliseconds a new match waits, after `match_started`, for each human seat's
    /// dice contribution (`contribute_entropy`, proto/README.md §10) before the
    /// first roll; a seat that sent none by then gets the recorded default (no
    /// bytes). The roll comes at once when every human seat has contributed. 0 turns
    /// contributions off: the seed alone keys the dice (scheme `server_seed`).
    #[arg(long, env = "LUDO_CONTRIBUTION_WINDOW_MS", default_value_t = DEFAULT_CONTRIBUTION_WINDOW_MS,
          value_parser = clap::value_parser!(u32).range(0..=60_000))]
    pub contribution_window_ms: u32,
    /// Folder of the browser client served at `/` (static files). Without it: the
    /// source tree's `web/` (next to `crates/`) or `./web`, whichever holds an
    /// `index.html`; with neither, no client is served.
    #[arg(long, env = "LUDO_WEB_DIR")]
    pub web_dir: Option<std::path::PathBuf>,
    /// Log as JSON lines instead of human-readable text (filter with `RUST_LOG`).
    #[arg(long, env = "LUDO_LOG_JSON", action = clap::ArgAction::SetTrue,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub log_json: bool,

    // --- Edge hardening: see `crate::edge` ---
    /// Milliseconds a client has to send a request's line and headers (the WebSocket
    /// upgrade request included, and an idle keep-alive connection's next request);
    /// then the connection is closed without an answer.
    #[arg(long, env = "LUDO_HEADER_TIMEOUT_MS", default_value_t = DEFAULT_HEADER_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub header_timeout_ms: u64,
    /// Milliseconds a request's whole body has to arrive after its headers; then
    /// the request fails with 408 `request_timeout` and the connection is closed.
    #[arg(long, env = "LUDO_BODY_TIMEOUT_MS", default_value_t = DEFAULT_BODY_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub body_timeout_ms: u64,
    /// Milliseconds after the WebSocket upgrade by which the client must have been
    /// welcomed (a good `hello`); otherwise the socket is closed (1008).
    #[arg(long, env = "LUDO_HELLO_TIMEOUT_MS", default_value_t = DEFAULT_HELLO_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub hello_timeout_ms: u64,
    /// Most open client connections (HTTP and WebSocket) in all; over it a new
    /// connection is refused at once. None: the open-file limit (raised to its hard
    /// limit at start) minus 64 descriptors kept for the listener, the database
    /// pool, NATS and files.
    #[arg(long, env = "LUDO_MAX_CONNECTIONS",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_connections: Option<usize>,
    /// Most open connections from one client address (0: no limit); over it a new
    /// connection is refused at once, and a WebSocket upgrade relayed by a trusted
    /// proxy gets 429 `rate_limited`.
    #[arg(long, env = "LUDO_MAX_CONNECTIONS_PER_IP", default_value_t = DEFAULT_MAX_CONNECTIONS_PER_IP)]
    pub max_connections_per_ip: usize,
    /// Guests one client address may create per minute, sustained (0: no limit);
    /// past the budget `POST /api/v1/guests` is 429 `rate_limited` with `Retry-After`.
    #[arg(long, env = "LUDO_GUESTS_PER_MINUTE", default_value_t = DEFAULT_GUESTS_PER_MINUTE)]
    pub guests_per_minute: u32,
    /// Guests one client address may create in a burst.
    #[arg(long, env = "LUDO_GUEST_BURST", default_value_t = DEFAULT_GUEST_BURST,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub guest_burst: u32,
    /// Days a session (a sign-in or a guest's token) may stay unused before it
    /// expires: REST answers 401 `not_authenticated` and `hello` `not_authenticated`.
    #[arg(long, env = "LUDO_SESSION_IDLE_DAYS", default_value_t = DEFAULT_SESSION_IDLE_DAYS,
          value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub session_idle_days: u32,
    /// Password hashes (Argon2id, 19 MiB, about 25 ms of one core each) computed at
    /// once on the blocking pool; more sign-ins wait (up to 10 s, then 503).
    #[arg(long, env = "LUDO_PASSWORD_HASH_THREADS", default_value_t = DEFAULT_PASSWORD_HASH_THREADS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    pub password_hash_threads: usize,
    /// Sign-in attempts (`POST /api/v1/sessions`) one client address may make per
    /// minute, sustained (0: no limit); past it: 429 `rate_limited` with `Retry-After`.
    #[arg(long, env = "LUDO_SIGN_INS_PER_MINUTE", default_value_t = DEFAULT_SIGN_INS_PER_MINUTE)]
    pub sign_ins_per_minute: u32,
    /// Sign-in attempts one client address may make in a burst.
    #[arg(long, env = "LUDO_SIGN_IN_BURST", default_value_t = DEFAULT_SIGN_IN_BURST,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub sign_in_burst: u32,
    /// Sign-in attempts on one username per minute, from any address (0: no limit).
    #[arg(long, env = "LUDO_ACCOUNT_SIGN_INS_PER_MINUTE", default_value_t = DEFAULT_ACCOUNT_SIGN_INS_PER_MINUTE)]
    pub account_sign_ins_per_minute: u32,
    /// Sign-in attempts on one username in a burst.
    #[arg(long, env = "LUDO_ACCOUNT_SIGN_IN_BURST", default_value_t = DEFAULT_ACCOUNT_SIGN_IN_BURST,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub account_sign_in_burst: u32,
    /// WebAuthn relying party id of passkeys: the domain the web client is served
    /// from (`play.example.com`), the origin's host or a parent domain of it. A
    /// passkey works only under the relying party id it was added with.
    #[arg(long, env = "LUDO_WEBAUTHN_RP_ID", default_value = DEFAULT_WEBAUTHN_RP_ID)]
    pub webauthn_rp_id: String,
    /// WebAuthn origin: the web client's origin exactly (`https://play.example.com`;
    /// `http://` only for `localhost`). Passkey responses made on any other origin
    /// are refused (`invalid_credential`).
    #[arg(long, env = "LUDO_WEBAUTHN_ORIGIN", default_value = DEFAULT_WEBAUTHN_ORIGIN)]
    pub webauthn_origin: String,
    /// Reverse proxies (comma-separated IP addresses) whose `X-Forwarded-For` names
    /// the client; from any other peer the header is ignored.
    #[arg(long, env = "LUDO_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Origins (comma-separated, e.g. `https://play.example.com`) allowed besides the
    /// server's own: REST CORS and the WebSocket `Origin` check. A browser request
    /// from any other origin is refused (403 `origin_not_allowed`).
    #[arg(long, env = "LUDO_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,
    // --- lobbies ---
    /// Seconds a lobby keeps the seat of a member whose connection dropped; a member
    /// that signs in again within it keeps its seat (0: leave at once).
    #[arg(long, env = "LUDO_LOBBY_GRACE_SECONDS", default_value_t = DEFAULT_LOBBY_GRACE_SECONDS,
          value_parser = clap::value_parser!(u32).range(0..=3_600))]
    pub lobby_grace_seconds: u32,
    /// Seconds a quick-play queue keeps the place (and the bot-fill wait) of a
    /// player whose connection dropped; a player that signs in again within it is
    /// still queued (0: leave at once). A match formed meanwhile seats it.
    #[arg(long, env = "LUDO_QUEUE_GRACE_SECONDS", default_value_t = DEFAULT_QUEUE_GRACE_SECONDS,
          value_parser = clap::value_parser!(u32).range(0..=600))]
    pub queue_grace_seconds: u32,
    // --- ratings ---
    /// Rated matches of a mode (matches with two or more human players) a player
    /// needs to be listed on that mode's leaderboard.
    #[arg(long, env = "LUDO_RATING_MIN_MATCHES", default_value_t = DEFAULT_RATING_MIN_MATCHES,
          value_parser = clap::value_parser!(u32).range(1..=1_000))]
    pub rating_min_matches: u32,
    // --- cluster (crate::cluster) ---
    /// NATS server URL (`nats://127.0.0.1:4222`): switches on cluster mode, several
    /// nodes on one PostgreSQL `DATABASE_URL` (required then). None: one node, as
    /// without this flag.
    #[arg(long, env = "LUDO_NATS_URL", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub nats_url: Option<String>,
    /// This node's id in a cluster (logs, `/metrics`, room leases); none: a random
    /// one at each start.
    #[arg(long, env = "LUDO_NODE_ID", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub node_id: Option<String>,
    /// Milliseconds a node's room lease lasts after each renewal (renewed every
    /// third of it); another node resumes a match this long after its owner died.
    #[arg(long, env = "LUDO_LEASE_MS", default_value_t = DEFAULT_LEASE_MS,
          value_parser = clap::value_parser!(u64).range(300..=600_000))]
    pub lease_ms: u64,
    /// Milliseconds past its expiry during which a lease stays with its owner when
    /// that owner still answers on NATS that it runs the match (it could not renew
    /// because the database was unreachable: no node could claim it meanwhile, so
    /// it renews as soon as the database answers). Past this, or when the owner
    /// does not answer within 1 s (dead or paused), another node claims it.
    /// 0: an expired lease is claimed at once, whatever its owner says.
    #[arg(long, env = "LUDO_LEASE_GRACE_MS", default_value_t = DEFAULT_LEASE_GRACE_MS,
          value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    pub lease_grace_ms: u64,
    /// Prefix of every NATS subject the cluster uses (nodes of one cluster share it).
    #[arg(long, env = "LUDO_NATS_PREFIX", default_value = DEFAULT_NATS_PREFIX,
          value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub nats_prefix: String,
}

impl Config {
    /// The Tokio runtime of `--worker-threads`: a current-thread runtime for 1, a
    /// multi-thread one with that many workers otherwise; timers and IO enabled.
    /// Errors: the operating system refused a thread or the IO driver.
    pub fn runtime(&self) -> std::io::Result<tokio::runtime::Runtime> {
        let mut b = if self.worker_threads <= 1 {
            tokio::runtime::Builder::new_current_thread()
        } else {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(self.worker_threads);
            b
        };
        b.enable_all().build()
    }

    /// Settings that only make sense together. Errors (the text names the flags):
    /// `--resync-frames` not below `--outbound-queue` (a resync replays the kept
    /// frames at once, and a socket with that many frames waiting counts as a slow
    /// consumer); `--ping-seconds` not below `--idle-seconds` (a quiet client is
    /// pinged only after `--ping-seconds` of silence, and its pong must come before
    /// the idle close).
    pub fn check(&self) -> Result<(), String> {
        if self.resync_frames >= self.outbound_queue {
            return Err(format!(
                "--resync-frames ({}) must be below --outbound-queue ({}): a resync \
                 replays every kept frame at once",
                self.resync_frames, self.outbound_queue
            ));
        }
        if self.ping_seconds >= self.idle_seconds {
            return Err(format!(
                "--ping-seconds ({}) must be below --idle-seconds ({}): a quiet client \
                 is pinged only after that much silence, and must answer before the \
                 idle close",
                self.ping_seconds, self.idle_seconds
            ));
        }
        self.relying_party().map(|_| ())
    }

    /// The WebAuthn relying party of `config` (`--webauthn-rp-id`, `--webauthn-origin`).
    ///
    /// Errors: the reason, when the origin is not a URL or the id is not its host (or a
    /// parent domain of it).
    pub(crate) fn relying_party(&self) -> Result<webauthn_rs::prelude::Webauthn, String> {
        let origin = webauthn_rs::prelude::Url::parse(&self.webauthn_origin)
            .map_err(|e| format!("--webauthn-origin {:?}: {e}", self.webauthn_origin))?;
        webauthn_rs::prelude::WebauthnBuilder::new(&self.webauthn_rp_id, &origin)
            .and_then(|b| {
                b.rp_name("Ludo")
                    .timeout(std::time::Duration::from_millis(PASSKEY_CEREMONY_MS))
                    .build()
            })
            .map_err(|e| {
                format!(
                    "--webauthn-rp-id {:?} does not fit --webauthn-origin {:?}: {e}",
                    self.webauthn_rp_id, self.webauthn_origin
                )
            })
    }

    /// The persistence writer's settings: [`store::WriterConfig::default`] with the
    /// configured group-commit window.
    pub fn writer_config(&self) -> store::WriterConfig {
        store::WriterConfig {
            commit_window: Duration::from_millis(self.commit_window_ms),
            ..store::WriterConfig::default()
        }
    }
}

/// Reads `--rules-file`: a whole [`engine::RuleSet`] as JSON that passes
/// [`engine::RuleSet::check`]. Errors name the file and what is wrong with it.
fn parse_rules_file(path: &str) -> Result<engine::RuleSet, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let rules: engine::RuleSet =
        serde_json::from_str(&text).map_err(|e| format!("{path} is not a rule set: {e}"))?;
    rules.check().map_err(|e| format!("{path}: {e}"))?;
    Ok(rules)
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind: DEFAULT_BIND.parse().expect("valid default address"),
            database_url: None,
            turn_seconds: DEFAULT_TURN_SECONDS,
            match_seconds: DEFAULT_MATCH_SECONDS,
            bot_fill_seconds: DEFAULT_BOT_FILL_SECONDS,
            bot_think_ms: DEFAULT_BOT_THINK_MS,
            bot_kind: bot::BotKind::Greedy,
            bot_budget_ms: DEFAULT_BOT_BUDGET_MS,
            bot_nodes: DEFAULT_BOT_NODES,
            bot_journey_nodes: DEFAULT_BOT_JOURNEY_NODES,
            bot_searches: DEFAULT_BOT_SEARCHES,
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
            rate_per_second: DEFAULT_RATE_PER_SECOND,
            rate_burst: DEFAULT_RATE_BURST,
            abuse_strikes: DEFAULT_ABUSE_STRIKES,
            outbound_queue: DEFAULT_OUTBOUND_QUEUE,
            resync_frames: DEFAULT_RESYNC_FRAMES,
            commit_window_ms: DEFAULT_COMMIT_WINDOW_MS,
            worker_threads: DEFAULT_WORKER_THREADS,
            ping_seconds: DEFAULT_PING_SECONDS,
            idle_seconds: DEFAULT_IDLE_SECONDS,
            shutdown_grace_seconds: DEFAULT_SHUTDOWN_GRACE_SECONDS,
            abandon_seconds: DEFAULT_ABANDON_SECONDS,
            away_after_timeouts: DEFAULT_AWAY_AFTER_TIMEOUTS,
            pong_timeout_ms: DEFAULT_PONG_TIMEOUT_MS,
            max_lag_ms: DEFAULT_MAX_LAG_MS,
            contribution_window_ms: DEFAULT_CONTRIBUTION_WINDOW_MS,
            web_dir: None,
            log_json: false,
            header_timeout_ms: DEFAULT_HEADER_TIMEOUT_MS,
            body_timeout_ms: DEFAULT_BODY_TIMEOUT_MS,
            hello_timeout_ms: DEFAULT_HELLO_TIMEOUT_MS,
            max_connections: None,
            max_connections_per_ip: DEFAULT_MAX_CONNECTIONS_PER_IP,
            guests_per_minute: DEFAULT_GUESTS_PER_MINUTE,
            guest_burst: DEFAULT_GUEST_BURST,
            session_idle_days: DEFAULT_SESSION_IDLE_DAYS,
            password_hash_threads: DEFAULT_PASSWORD_HASH_THREADS,
            sign_ins_per_minute: DEFAULT_SIGN_INS_PER_MINUTE,
            sign_in_burst: DEFAULT_SIGN_IN_BURST,
            account_sign_ins_per_minute: DEFAULT_ACCOUNT_SIGN_INS_PER_MINUTE,
            account_sign_in_burst: DEFAULT_ACCOUNT_SIGN_IN_BURST,
            webauthn_rp_id: DEFAULT_WEBAUTHN_RP_ID.into(),
            webauthn_origin: DEFAULT_WEBAUTHN_ORIGIN.into(),
            trusted_proxies: Vec::new(),
            allowed_origins: Vec::new(),
            lobby_grace_seconds: DEFAULT_LOBBY_GRACE_SECONDS,
            queue_grace_seconds: DEFAULT_QUEUE_GRACE_SECONDS,
            rating_min_matches: DEFAULT_RATING_MIN_MATCHES,
            rules_file: None,
            nats_url: None,
            node_id: None,
            lease_ms: DEFAULT_LEASE_MS,
            lease_grace_ms: DEFAULT_LEASE_GRACE_MS,
            nats_prefix: DEFAULT_NATS_PREFIX.into(),
        }
    }
}

impl Config {
    /// The rule set of every new match: `--rules-file` (or the RULES.md §10 defaults)
    /// with this server's turn and match seconds.
    pub fn rules(&self) -> engine::RuleSet {
        engine::RuleSet {
            turn_seconds: self.turn_seconds,
            match_seconds: self.match_seconds,
            ..self.rules_file.clone().unwrap_or_default()
        }
    }

    /// The quick-play bot-fill wait.
    pub fn bot_fill_wait(&self) -> Duration {
        Duration::from_secs(self.bot_fill_seconds.into())
    }

    /// The lag bound of a client's socket (`--max-lag-ms`; `None` when 0).
    pub fn max_lag(&self) -> Option<Duration> {
        (self.max_lag_ms > 0).then(|| Duration::from_millis(u64::from(self.max_lag_ms)))
    }

    /// The bot think delay.
    pub fn bot_think(&self) -> Duration {
        Duration::from_millis(self.bot_think_ms)
    }

    /// The request header timeout (`--header-timeout-ms`).
    pub fn header_timeout(&self) -> Duration {
        Duration::from_millis(self.header_timeout_ms)
    }

    /// The request body stall timeout (`--body-timeout-ms`).
    pub fn body_timeout(&self) -> Duration {
        Duration::from_millis(self.body_timeout_ms)
    }

    /// The time from upgrade to `hello` (`--hello-timeout-ms`).
    pub fn hello_timeout(&self) -> Duration {
        Duration::from_millis(self.hello_timeout_ms)
    }

    /// How long a lobby keeps a disconnected member's seat.
    pub fn lobby_grace(&self) -> Duration {
        Duration::from_secs(self.lobby_grace_seconds.into())
    }

    /// How long a quick-play queue keeps a disconnected player's place.
    pub fn queue_grace(&self) -> Duration {
        Duration::from_secs(self.queue_grace_seconds.into())
    }

    /// The hard WebSocket message limit: frames above it close the socket.
    pub fn transport_limit(&self) -> usize {
        self.max_frame_bytes.saturating_mul(4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_flags_equals_default() {
        // Contract: Config::default() is exactly what clap gives with no flags (as
        // long as no LUDO_* variable is set in the test environment).
        let parsed = Config::try_parse_from(["ludo-server"]).unwrap();
        let d = Config::default();
        assert_eq!(parsed.bind, d.bind);
        assert_eq!(parsed.turn_seconds, 30);
        assert_eq!(parsed.match_seconds, 1800);
        assert_eq!(parsed.bot_fill_seconds, 20);
        assert_eq!(parsed.max_frame_bytes, 4096);
        assert_eq!(parsed.outbound_queue, d.outbound_queue);
        assert_eq!(parsed.bot_kind, bot::BotKind::Greedy);
        assert_eq!(
            (parsed.bot_nodes, parsed.bot_journey_nodes),
            (d.bot_nodes, d.bot_journey_nodes)
        );
    }

    /// An expert's budgets per mode: the flags reach the search budget of a bot seat
    /// (16 000 plans a clash decision and 32 000 a journey one by default, as
    /// `bot::ExpertConfig::default()` has them).
    #[test]
    fn node_budget_flags_reach_the_search_budget() {
        let b = crate::room::bots::SearchBudget::of(&Config::default());
        let expert = bot::ExpertConfig::default();
        assert_eq!(
            (b.time, b.nodes, b.journey_nodes),
            (
                std::time::Duration::from_millis(20),
                expert.node_budget,
                expert.journey_node_budget
            )
        );
        let c = Config::try_parse_from([
            "ludo-server",
            "--bot-nodes",
            "500",
            "--bot-journey-nodes",
            "0",
            "--bot-budget-ms",
            "7",
        ])
        .unwrap();
        let b = crate::room::bots::SearchBudget::of(&c);
        assert_eq!(
            (b.time, b.nodes, b.journey_nodes),
            (std::time::Duration::from_millis(7), 500, 0)
        );
    }

    /// A quiet client is pinged only after `--ping-seconds` of silence: with a ping
    /// period not below the idle timeout it would be closed as idle before its
    /// first ping (found by a breaker run with 5 s against 2 s).
    #[test]
    fn the_ping_period_must_be_below_the_idle_timeout() {
        let c = Config {
            ping_seconds: 5,
            idle_seconds: 5,
            ..Config::default()
        };
        let e = c.check().unwrap_err();
        assert!(
            e.contains("--ping-seconds (5)") && e.contains("--idle-seconds (5)"),
            "{e}"
        );
        let c = Config {
            ping_seconds: 4,
            ..c
        };
        assert_eq!(c.check(), Ok(()));
    }

    /// A resync replays the kept frames at once: keeping as many as a socket may
    /// leave waiting would close a reader as slow on its first long resync.
    #[test]
    fn resync_frames_must_fit_the_outbound_queue() {
        assert_eq!(Config::default().check(), Ok(()));
        let c = Config {
            resync_frames: 256,
            outbound_queue: 256,
            ..Config::default()
        };
        let e = c.check().unwrap_err();
        assert!(
            e.contains("--resync-frames (256)") && e.contains("--outbound-queue (256)"),
            "{e}"
        );
        let c = Config {
            resync_frames: 255,
            ..c
        };
        assert_eq!(c.check(), Ok(()));
    }

    #[test]
    fn flags_reach_the_rule_set() {
        let c =
            Config::try_parse_from(["ludo-server", "--turn-seconds", "2", "--match-seconds", "9"])
                .unwrap();
        let r = c.rules();
        assert_eq!((r.turn_seconds, r.match_seconds), (2, 9));
        assert_eq!(r.dice_per_turn, 3, "other rules keep the §10 defaults");
    }

    /// RULES.md §10 through `--rules-file`: every number of the file reaches the rule
    /// set, except the two clocks, which the flags set; a file that is not a rule set
    /// or breaks the engine's limits is refused with its name in the error.
    #[test]
    fn a_rules_file_reaches_the_rule_set() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rules.json");
        let custom = engine::RuleSet {
            dice_per_turn: 2,
            start_exit_credits: 0,
            turn_seconds: 99,
            ..engine::RuleSet::default()
        };
        std::fs::write(&path, serde_json::to_string(&custom).unwrap()).unwrap();
        let p = path.to_str().unwrap();
        let c = Config::try_parse_from(["ludo-server", "--rules-file", p, "--turn-seconds", "7"])
            .unwrap();
        assert_eq!(
            c.rules(),
            engine::RuleSet {
                turn_seconds: 7,
                match_seconds: DEFAULT_MATCH_SECONDS,
                ..custom.clone()
            }
        );
        std::fs::write(&path, r#"{"dice_per_turn": 2}"#).unwrap();
        let e = Config::try_parse_from(["ludo-server", "--rules-file", p]).unwrap_err();
        assert!(e.to_string().contains("is not a rule set"), "{e}");
        let broken = engine::RuleSet {
            dice_per_turn: 12,
            ..engine::RuleSet::default()
        };
        std::fs::write(&path, serde_json::to_string(&broken).unwrap()).unwrap();
        let e = Config::try_parse_from(["ludo-server", "--rules-file", p]).unwrap_err();
        assert!(e.to_string().contains("dice_per_turn must be"), "{e}");
        let e = Config::try_parse_from(["ludo-server", "--rules-file", "/nonexistent/r.json"])
            .unwrap_err();
        assert!(
            e.to_string().contains("cannot read /nonexistent/r.json"),
            "{e}"
        );
    }

    #[test]
    fn log_json_accepts_the_flag_and_boolish_values() {
        assert!(
            Config::try_parse_from(["ludo-server", "--log-json"])
                .unwrap()
                .log_json
        );
        assert!(!Config::try_parse_from(["ludo-server"]).unwrap().log_json);
    }

    #[test]
    fn edge_settings_parse_lists_and_defaults() {
        let d = Config::try_parse_from(["ludo-server"]).unwrap();
        assert_eq!(
            (d.header_timeout_ms, d.body_timeout_ms, d.hello_timeout_ms),
            (5_000, 5_000, 5_000)
        );
        assert_eq!(d.max_connections, None);
        assert_eq!(
            (d.max_connections_per_ip, d.guests_per_minute, d.guest_burst),
            (64, 10, 20)
        );
        assert_eq!(
            (
                d.session_idle_days,
                d.password_hash_threads,
                d.sign_ins_per_minute,
                d.sign_in_burst,
                d.account_sign_ins_per_minute,
                d.account_sign_in_burst
            ),
            (30, 1, 10, 10, 5, 10)
        );
        assert!(d.trusted_proxies.is_empty() && d.allowed_origins.is_empty());
        assert_eq!(
            (d.webauthn_rp_id.as_str(), d.webauthn_origin.as_str()),
            ("localhost", "http://localhost:8080")
        );
        let c = Config::try_parse_from([
            "ludo-server",
            "--trusted-proxies",
            "10.0.0.1,::1",
            "--allowed-origins",
            "https://a.example,http://b.example:8080",
            "--max-connections",
            "100",
        ])
        .unwrap();
        assert_eq!(
            c.trusted_proxies,
            vec![
                "10.0.0.1".parse::<std::net::IpAddr>().unwrap(),
                "::1".parse().unwrap()
            ]
        );
        assert_eq!(
            c.allowed_origins,
            ["https://a.example", "http://b.example:8080"]
        );
        assert_eq!(c.max_connections, Some(100));
        assert!(Config::try_parse_from(["ludo-server", "--trusted-proxies", "proxy.lan"]).is_err());
        assert!(Config::try_parse_from(["ludo-server", "--header-timeout-ms", "0"]).is_err());
    }

    #[test]
    fn lobby_grace_defaults_to_60_seconds() {
        let c = Config::try_parse_from(["ludo-server"]).unwrap();
        assert_eq!(c.lobby_grace_seconds, 60);
        assert_eq!(Config::default().lobby_grace(), Duration::from_secs(60));
        assert_eq!(c.queue_grace_seconds, 10);
        let c = Config::try_parse_from(["ludo-server", "--lobby-grace-seconds", "0"]).unwrap();
        assert_eq!(c.lobby_grace(), Duration::ZERO);
    }

    #[test]
    fn an_empty_database_url_is_refused() {
        // DATABASE_URL="" used to mean SQLite in the working directory without a word.
        let e = Config::try_parse_from(["ludo-server", "--database-url", ""]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::InvalidValue);
        let c =
            Config::try_parse_from(["ludo-server", "--database-url", "sqlite::memory:"]).unwrap();
        assert_eq!(c.database_url.as_deref(), Some("sqlite::memory:"));
    }

    #[test]
    fn zero_turn_seconds_is_rejected() {
        assert!(Config::try_parse_from(["ludo-server", "--turn-seconds", "0"]).is_err());
    }
}
