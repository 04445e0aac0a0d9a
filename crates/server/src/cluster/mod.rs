//! Cluster mode: several `ludo-server` nodes on one PostgreSQL database and one NATS
//! server, each running match owned by exactly one node at a time, and no match lost
//! when a node dies.
//!
//! Switched on by `--nats-url` (`LUDO_NATS_URL`) with a PostgreSQL `DATABASE_URL`
//! ([`Settings::from_config`]); without it the server is the single node it always
//! was. Each node has an id (`--node-id`, random by default) that its logs and
//! `/metrics` carry.
//!
//! # Ownership (PostgreSQL, `store::lease`)
//! * A node that starts a match takes its lease (fencing token 1) in the same
//!   transaction as the match's row; the persistence writer is fenced
//!   ([`store::spawn_writer_fenced`]): every write carries the token its room held
//!   and is skipped, in the same transaction, if the token is no longer current.
//!   The room of a fenced write shows nothing of it and stops.
//! * The renew task extends this node's leases every third of `--lease-ms`; a match
//!   it can no longer renew (another node claimed it) is stopped here at once, and
//!   its players' sockets are closed (1012) so they reconnect.
//! * The takeover task on every node claims, every [`SCAN`] (or at once on a
//!   release notice), the running matches whose lease expired (token + 1, `FOR
//!   UPDATE SKIP LOCKED`) and resumes them from the stored seed and turn log
//!   ([`crate::room::resume`]), the same path a restart uses.
//! * A lease that expired because nobody could reach the database is left to an
//!   owner that still runs the match, for up to `--lease-grace-ms` past its expiry
//!   ([`grace`]): a database outage moves no match.
//! * On SIGTERM the node stops its rooms, flushes its writer, releases its leases
//!   and publishes a release notice on NATS (`<prefix>.cluster.released`) so the
//!   other nodes claim the matches without waiting for the leases to expire.
//!
//! # Sockets on any node ([`remote`])
//! A socket whose match runs on another node reaches its room over NATS; the owner
//! sends the frames back to its node, a broadcast once per node whatever the number
//! of that node's sockets in the match.
//!
//! # Shared queue and lobbies ([`queue`], [`lobby`], [`closed`])
//! One elected node runs the quick-play queue; a lobby lives on the node that opened
//! it and is reached by code from any node; the public lobby list is every node's.
//! A remote socket's close reaches the room seating it.

pub(crate) mod closed;
mod grace;
mod handover;
pub(crate) mod lobby;
pub(crate) mod queue;
pub(crate) mod remote;

use crate::config::Config;
use crate::game::Game;
use crate::ws::{CloseReason, ConnHandle};
use std::sync::Arc;
use std::time::Duration;
use store::{Leases, Store, StoreError};
use tokio::sync::Notify;
use uuid::Uuid;

use async_nats::{Message, Subscriber};
use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

/// A listener's subscription until shutdown ([`Cluster::listen`]).
struct Inbox {
    sub: Subscriber,
    token: CancellationToken,
}

impl Inbox {
    /// The next message; `None` at shutdown or when the subscription ended.
    async fn next(&mut self) -> Option<Message> {
        tokio::select! {
            _ = self.token.cancelled() => None,
            m = self.sub.next() => m,
        }
    }
}

/// How often every node looks for matches whose lease expired.
pub(crate) const SCAN: Duration = Duration::from_millis(500);
/// Most matches one scan claims (the rest wait for the next scan, or another node).
pub(crate) const CLAIM_BATCH: u32 = 64;
/// Close code and reason sent to the sockets of a room this node lost
/// ([`CloseReason::MOVED`]).
pub(crate) const MOVED: CloseReason = CloseReason::MOVED;

/// Counter: matches this node claimed from another (expired or released) lease.
pub(crate) const TAKEOVERS_COUNTER: &str = "ludo_cluster_takeovers_total";
/// Counter: rooms this node stopped because another node owns their match now.
pub(crate) const LOST_COUNTER: &str = "ludo_cluster_rooms_lost_total";
/// Gauge: room leases this node holds.
pub(crate) const LEASES_GAUGE: &str = "ludo_cluster_leases";
/// Gauge: 1 while this node's NATS connection is up, 0 while it is lost.
pub(crate) const NATS_UP_GAUGE: &str = "ludo_cluster_nats_up";

/// After this node's NATS connection comes back, how long the other nodes may still
/// be reconnecting: async-nats waits up to 4 s between attempts (its default
/// back-off), and a node that has not resubscribed yet looks absent ("no
/// responders"). At least a lease is used ([`Link::relinked_within`]).
pub(crate) const RELINK_SETTLE: Duration = Duration::from_secs(5);

/// This node's NATS connection as its events report it: whether it was ever lost,
/// and when it last came back.
#[derive(Debug, Default)]
struct Link {
    lost: std::sync::atomic::AtomicBool,
    back_at: std::sync::Mutex<Option<tokio::time::Instant>>,
}

impl Link {
    /// Records a connection event (async-nats' event callback): a loss, or a
    /// connection after a loss (the first connection is not a return).
    fn on_event(&self, event: &async_nats::Event) {
        use std::sync::atomic::Ordering;
        match event {
            async_nats::Event::Disconnected => {
                self.lost.store(true, Ordering::Relaxed);
                metrics::gauge!(NATS_UP_GAUGE).set(0.0);
                tracing::warn!(
                    "NATS connection lost; requests for other nodes are refused until it is back"
                );
            }
            async_nats::Event::Connected => {
                metrics::gauge!(NATS_UP_GAUGE).set(1.0);
                if self.lost.load(Ordering::Relaxed) {
                    *self.back_at.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some(tokio::time::Instant::now());
                    tracing::info!("NATS connection back");
                }
            }
            _ => {}
        }
    }

    /// True when the connection came back after a loss less than `window` ago.
    fn relinked_within(&self, window: Duration) -> bool {
        self.back_at
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some_and(|at| at.elapsed() < window)
    }
}

/// How long the start-up check of the node id waits for a node holding the id to
/// answer (a live node answers in about a millisecond).
pub(crate) const ALIVE_CHECK: Duration = Duration::from_secs(2);

/// The start-up check of [`Cluster::connect`]: asks on `<prefix>.alive.<node id>`
/// whether a node with this id is live (NATS answers "no responders" at once when
/// none is), then subscribes there and answers for this node (its pid and start
/// time, Unix ms) until the connection closes.
async fn answer_alive(nats: &async_nats::Client, settings: &Settings) -> Result<(), ClusterError> {
    use async_nats::RequestErrorKind;
    let subject = format!("{}.alive.{}", settings.prefix, settings.node_id);
    let taken = |answer: String| ClusterError::NodeIdLive {
        node_id: settings.node_id.clone(),
        answer,
    };
    let failed = |reason: String| ClusterError::NodeIdCheck {
        node_id: settings.node_id.clone(),
        reason,
    };
    let asked = nats.request(subject.clone(), Default::default());
    match tokio::time::timeout(ALIVE_CHECK, asked).await {
        Ok(Ok(reply)) => {
            return Err(taken(format!(
                "it answered: {}",
                String::from_utf8_lossy(&reply.payload)
            )))
        }
        Ok(Err(e)) if e.kind() == RequestErrorKind::NoResponders => {}
        Ok(Err(e)) if e.kind() == RequestErrorKind::TimedOut => {
            return Err(taken("it holds the id but did not answer".into()))
        }
        Ok(Err(e)) => return Err(failed(e.to_string())),
        Err(_) => {
            return Err(taken(format!(
                "it holds the id but did not answer within {} ms",
                ALIVE_CHECK.as_millis()
            )))
        }
    }
    let mut sub = nats
        .subscribe(subject)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let answer = format!(
        "pid {}, up since {} (Unix ms)",
        std::process::id(),
        crate::clock::now_ms()
    );
    let nats = nats.clone();
    tokio::spawn(async move {
        use futures_util::StreamExt;
        while let Some(m) = sub.next().await {
            if let Some(reply) = m.reply {
                let _ = nats.publish(reply, answer.clone().into()).await;
            }
        }
    });
    Ok(())
}

/// Why cluster mode cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// `--nats-url` was given without a PostgreSQL `DATABASE_URL`.
    #[error(
        "cluster mode (--nats-url / LUDO_NATS_URL) needs a PostgreSQL DATABASE_URL (postgres://…)"
    )]
    NeedsPostgres,
    /// The node id or subject prefix is not usable as NATS subject tokens.
    #[error("{what} {value:?} must be non-empty and made of letters, digits, '-', '_' and (prefix only) '.'")]
    BadName {
        /// `--node-id` or `--nats-prefix`.
        what: &'static str,
        /// The value given.
        value: String,
    },
    /// Another live node of the cluster (same `--nats-prefix`) has this node id: it
    /// answered the start-up check, or holds the id's subscription without
    /// answering within 2 s (a paused process). Two nodes with one id
    /// would each take the other's leases for their own.
    #[error("node id {node_id:?} is already live in the cluster ({answer}); stop that node or give this one another --node-id (LUDO_NODE_ID)")]
    NodeIdLive {
        /// The id given.
        node_id: String,
        /// What the other node answered (its pid and start time), or that it did
        /// not answer.
        answer: String,
    },
    /// The start-up check of the node id, or the subscription that answers it for
    /// this node, failed (NATS refused).
    #[error("cannot check node id {node_id:?} on NATS: {reason}")]
    NodeIdCheck {
        /// The id given.
        node_id: String,
        /// The client's error.
        reason: String,
    },
    /// The NATS server could not be reached.
    #[error("cannot connect to NATS at {url}: {source}")]
    Nats {
        /// The URL given.
        url: String,
        /// The client's error.
        #[source]
        source: async_nats::ConnectError,
    },
}

/// Cluster settings taken from [`Config`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// NATS server URL.
    pub nats_url: String,
    /// This node's id.
    pub node_id: String,
    /// Room lease length.
    pub lease: Duration,
    /// How long past its expiry a lease is left to an owner that still answers it
    /// runs the match (`--lease-grace-ms`).
    pub lease_grace: Duration,
    /// Prefix of every NATS subject.
    pub prefix: String,
}

fn token_ok(s: &str, dots: bool) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && !s.ends_with('.')
        && !s.contains("..")
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || (dots && c == '.'))
}

impl Settings {
    /// The cluster settings of `config`: `None` without `--nats-url` (single node).
    /// A node without `--node-id` gets a random one (a UUID).
    ///
    /// Errors: `ClusterError::NeedsPostgres` when the database is not PostgreSQL;
    /// `ClusterError::BadName` for a node id or prefix that is not a subject token.
    pub fn from_config(config: &Config) -> Result<Option<Settings>, ClusterError> {
        let Some(nats_url) = config.nats_url.clone() else {
            return Ok(None);
        };
        let pg = config
            .database_url
            .as_deref()
            .is_some_and(|u| u.starts_with("postgres://") || u.starts_with("postgresql://"));
        if !pg {
            return Err(ClusterError::NeedsPostgres);
        }
        let node_id = config
            .node_id
            .clone()
            .unwrap_or_else(|| Uuid::new_v4().simple().to_string());
        if !token_ok(&node_id, false) {
            return Err(ClusterError::BadName {
                what: "--node-id",
                value: node_id,
            });
        }
        if !token_ok(&config.nats_prefix, true) {
            return Err(ClusterError::BadName {
                what: "--nats-prefix",
                value: config.nats_prefix.clone(),
            });
        }
        Ok(Some(Settings {
            nats_url,
            node_id,
            lease: Duration::from_millis(config.lease_ms),
            lease_grace: Duration::from_millis(config.lease_grace_ms),
            prefix: config.nats_prefix.clone(),
        }))
    }
}

/// This node's membership of the cluster: its leases and its NATS connection.
#[derive(Debug)]
pub struct Cluster {
    settings: Settings,
    leases: Arc<Leases>,
    nats: async_nats::Client,
    /// The NATS connection's losses and returns.
    link: Arc<Link>,
    /// Woken by a release notice: scan for claimable matches at once.
    scan_now: Notify,
    /// This node's sockets that sent commands to rooms on other nodes, by id.
    conns: dashmap::DashMap<u64, crate::ws::ConnHandle>,
    /// Those sockets by the match they sent to (closed when it moves).
    routed: dashmap::DashMap<Uuid, std::collections::HashMap<u64, crate::ws::ConnHandle>>,
    /// Sockets whose re-attach found no node serving their match: connection id →
    /// the match (`remote::close_if_unserved`).
    unserved: Arc<dashmap::DashMap<u64, Uuid>>,
    /// True while this node is the cluster's matchmaker ([`queue`]).
    mm_leader: std::sync::atomic::AtomicBool,
    /// Matchmaker node: remote queued players → (their socket's node, stand-in).
    stand_ins: dashmap::DashMap<Uuid, (String, crate::ws::ConnHandle)>,
    /// Players of this node queued at another node's matchmaker ([`queue`]).
    queued_here: dashmap::DashMap<Uuid, queue::Requeue>,
    /// Lobby owner: remote members → (their socket's node, connection id there,
    /// stand-in) ([`lobby`]).
    lobby_stand_ins: dashmap::DashMap<Uuid, (String, u64, crate::ws::ConnHandle)>,
    /// Players signed in here who joined a lobby on another node → its code.
    lobby_of: dashmap::DashMap<Uuid, String>,
    /// Stand-ins made here for remote sockets: (origin node, connection id) → their
    /// connection ids here ([`closed`]).
    stand_in_ids: dashmap::DashMap<(String, u64), Vec<u64>>,
    /// Players who signed in here lately → when, and the notice of their hand-over
    /// ([`handover`]).
    arrivals: dashmap::DashMap<Uuid, (tokio::time::Instant, Arc<Notify>)>,
}

impl Cluster {
    /// Connects to NATS, checks that no live node has this node's id and from then
    /// on answers that check for it (subject `<prefix>.alive.<node id>`), and builds
    /// the node's (empty) lease set. Pass [`Cluster::leases`] to
    /// [`store::spawn_writer_fenced`].
    ///
    /// Two nodes started with one id within the same few milliseconds can both
    /// pass the check (each asks before the other subscribes); one started after
    /// another has joined cannot.
    ///
    /// Errors: `ClusterError::Nats` when the NATS server cannot be reached;
    /// `ClusterError::NodeIdLive` when a node with this id is live;
    /// `ClusterError::NodeIdCheck` when NATS refuses the check.
    pub async fn connect(settings: Settings) -> Result<Arc<Cluster>, ClusterError> {
        let link = Arc::new(Link::default());
        let events = link.clone();
        let nats = async_nats::ConnectOptions::new()
            .name(format!("ludo-server {}", settings.node_id))
            .event_callback(move |event| {
                events.on_event(&event);
                std::future::ready(())
            })
            .connect(settings.nats_url.as_str())
            .await
            .map_err(|source| ClusterError::Nats {
                url: settings.nats_url.clone(),
                source,
            })?;
        answer_alive(&nats, &settings).await?;
        metrics::gauge!(NATS_UP_GAUGE).set(1.0);
        let leases = Leases::new(settings.node_id.clone(), settings.lease);
        Ok(Arc::new(Cluster {
            settings,
            leases,
            nats,
            link,
            scan_now: Notify::new(),
            conns: dashmap::DashMap::new(),
            routed: dashmap::DashMap::new(),
            unserved: Arc::new(dashmap::DashMap::new()),
            mm_leader: std::sync::atomic::AtomicBool::new(false),
            stand_ins: dashmap::DashMap::new(),
            queued_here: dashmap::DashMap::new(),
            lobby_stand_ins: dashmap::DashMap::new(),
            lobby_of: dashmap::DashMap::new(),
            stand_in_ids: dashmap::DashMap::new(),
            arrivals: dashmap::DashMap::new(),
        }))
    }

    /// This node's id.
    pub fn node_id(&self) -> &str {
        &self.settings.node_id
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The matches this node holds, shared with its fenced writer.
    pub fn leases(&self) -> &Arc<Leases> {
        &self.leases
    }

    /// True while this node's NATS connection is up: requests for other nodes can
    /// be sent. Down, they are refused at once with `cluster_unavailable` instead
    /// of being queued in the client and delivered after the outage.
    pub fn messaging_up(&self) -> bool {
        self.nats.connection_state() == async_nats::connection::State::Connected
    }

    /// The `cluster_unavailable` refusal of a request that needs another node while
    /// [`Cluster::messaging_up`] is false.
    pub(crate) fn unreachable() -> queue::Refused {
        queue::Refused {
            code: protocol::ErrorCode::ClusterUnavailable,
            message: "the other nodes cannot be reached right now (NATS); nothing was changed, try again in a few seconds".into(),
        }
    }

    /// The NATS connection.
    pub fn nats(&self) -> &async_nats::Client {
        &self.nats
    }

    fn subject(&self, tail: &str) -> String {
        format!("{}.{tail}", self.settings.prefix)
    }

    /// Subscribes to `subject` for one of the node's listeners; `None`, logged with
    /// `what`, when NATS refuses (the listener then does not run).
    async fn subscribe_or_log(&self, subject: String, what: &str) -> Option<Subscriber> {
        match self.nats.subscribe(subject).await {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::error!(error = %e, "{what}");
                None
            }
        }
    }

    /// One of the node's listeners: `subject`'s messages until `state` shuts down;
    /// `None`, logged with `what`, when NATS refuses the subscription.
    async fn listen(&self, game: &Game, subject: String, what: &str) -> Option<Inbox> {
        let sub = self.subscribe_or_log(subject, what).await?;
        Some(Inbox {
            sub,
            token: game.shutdown_token().clone(),
        })
    }

    /// Publishes a notice to other nodes without waiting for it; a notice NATS does
    /// not take is logged with `what` (each notice's listener has a slower path that
    /// does not need it: the lease scan, the periodic announcements, the queue
    /// check).
    fn notify(&self, subject: String, payload: Vec<u8>, what: &'static str) {
        let nats = self.nats.clone();
        tokio::spawn(async move {
            if let Err(e) = nats.publish(subject, payload.into()).await {
                tracing::warn!(error = %e, "{what}");
            }
        });
    }

    /// Starts the node's background tasks on `state`'s tracker: lease renewal, the
    /// takeover scan and the release-notice listener. They stop at shutdown.
    pub fn spawn_tasks(self: &Arc<Self>, game: &Game) {
        let (me, st) = (self.clone(), game.clone());
        game.tasks().spawn(async move { me.renew_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks()
            .spawn(async move { me.takeover_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks().spawn(async move { me.notice_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks().spawn(async move { me.forward_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks().spawn(async move { me.moved_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks().spawn(async move { me.hello_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks()
            .spawn(async move { me.handover_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks()
            .spawn(async move { me.signed_out_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks()
            .spawn(async move { me.matchmaker_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks()
            .spawn(async move { me.dequeued_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks().spawn(async move { me.elected_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks()
            .spawn(async move { me.lobby_left_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks().spawn(async move { me.lobbies_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks()
            .spawn(async move { me.player_frame_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks().spawn(async move { me.gone_loop(st).await });
        let (me, st) = (self.clone(), game.clone());
        game.tasks().spawn(async move { me.holds_loop(st).await });
    }

    async fn renew_loop(self: Arc<Self>, game: Game) {
        let token = game.shutdown_token().clone();
        let mut tick = tokio::time::interval(self.settings.lease / 3);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = token.cancelled() => return,
                _ = tick.tick() => {}
            }
            match game.store().renew_leases(&self.leases).await {
                Ok(lost) => {
                    for (id, t) in lost {
                        if self.leases.forget(id, t) {
                            lose_room(&game, id);
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(node = self.node_id(), error = %e, "room leases not renewed")
                }
            }
            metrics::gauge!(LEASES_GAUGE).set(self.leases.held().len() as f64);
        }
    }

    async fn takeover_loop(self: Arc<Self>, game: Game) {
        let token = game.shutdown_token().clone();
        loop {
            tokio::select! {
                _ = token.cancelled() => return,
                _ = tokio::time::sleep(SCAN) => {}
                _ = self.scan_now.notified() => {}
            }
            if !game.store_ready() || token.is_cancelled() {
                continue;
            }
            if let Err(e) = self.claim_and_resume(&game).await {
                tracing::warn!(node = self.node_id(), error = %e, "takeover scan failed");
            }
        }
    }

    async fn notice_loop(self: Arc<Self>, game: Game) {
        use futures_util::StreamExt;
        let token = game.shutdown_token().clone();
        let mut sub = match self.nats.subscribe(self.subject("cluster.released")).await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(node = self.node_id(), error = %e, "cannot subscribe to release notices; relying on the scan");
                return;
            }
        };
        loop {
            tokio::select! {
                _ = token.cancelled() => return,
                msg = sub.next() => match msg {
                    Some(m) => {
                        tracing::info!(node = self.node_id(),
                            from = %String::from_utf8_lossy(&m.payload), "a node released its rooms: scanning now");
                        self.scan_now.notify_one();
                    }
                    None => return,
                },
            }
        }
    }

    /// A socket signed in as `player` on this node at `signed_in_ms` (Unix ms): the
    /// other nodes close theirs that signed in before it (4000, replaced), as one
    /// node does for a second socket of the same token. Sent without waiting (the
    /// `welcome` does not wait for NATS); a notice NATS delivers late (after an
    /// outage) replaces no socket that signed in after it.
    pub fn announce_hello(&self, player: Uuid, signed_in_ms: u64) {
        let notice = format!("{} {player} {signed_in_ms}", self.node_id());
        self.notify(
            self.subject("player.hello"),
            notice.into_bytes(),
            "sign-in notice not sent",
        );
    }

    /// A player notice from another node, `"<node> <player> <rest>"`: the player and
    /// the rest; `None` when malformed or sent by this node.
    fn player_notice<'a>(&self, text: &'a str) -> Option<(Uuid, &'a str)> {
        let mut words = text.splitn(3, ' ');
        let (node, player, rest) = (words.next()?, words.next()?, words.next()?);
        let player = player.parse::<Uuid>().ok()?;
        (node != self.node_id()).then_some((player, rest))
    }

    /// Sessions `sessions` of `player` were signed out (or expired, or the account
    /// deleted): the other nodes close the player's socket that signed in with one
    /// of them (4002). Sent without waiting; a notice NATS does not take is logged
    /// (the token is refused everywhere anyway, since the store no longer has it).
    pub fn announce_signed_out(&self, player: Uuid, sessions: &[Uuid]) {
        let ids: Vec<String> = sessions.iter().map(Uuid::to_string).collect();
        let notice = format!("{} {player} {}", self.node_id(), ids.join(","));
        self.notify(
            self.subject("player.signed_out"),
            notice.into_bytes(),
            "sign-out notice not sent",
        );
    }

    async fn signed_out_loop(self: Arc<Self>, game: Game) {
        let Some(mut inbox) = self
            .listen(
                &game,
                self.subject("player.signed_out"),
                "cannot subscribe to sign-out notices",
            )
            .await
        else {
            return;
        };
        while let Some(msg) = inbox.next().await {
            let text = String::from_utf8_lossy(&msg.payload);
            let Some((player, ids)) = self.player_notice(&text) else {
                continue;
            };
            let ids: Vec<Uuid> = ids.split(',').filter_map(|i| i.parse().ok()).collect();
            game.registries().close_signed_out(player, &ids);
        }
    }

    async fn hello_loop(self: Arc<Self>, game: Game) {
        let Some(mut inbox) = self
            .listen(
                &game,
                self.subject("player.hello"),
                "cannot subscribe to sign-in notices",
            )
            .await
        else {
            return;
        };
        while let Some(msg) = inbox.next().await {
            let text = String::from_utf8_lossy(&msg.payload);
            let Some((player, at)) = self.player_notice(&text) else {
                continue;
            };
            let Ok(at) = at.parse::<u64>() else {
                continue;
            };
            let node = text.split(' ').next().unwrap_or_default();
            let replaced =
                game.registries()
                    .close_session_before(player, at, CloseReason::REPLACED);
            // What the player waits in follows its socket (`handover`): from the
            // node of the socket it replaced, and from a node that keeps a queue
            // place or lobby seat for it while it is away (its socket there closed).
            let kept = game.session(player).is_none()
                && matches!(
                    game.presence().get(player),
                    Some(crate::presence::Busy::Queued(_) | crate::presence::Busy::Lobby)
                );
            if replaced || kept {
                self.hand_over(&game, player, node);
            }
        }
    }

    /// One takeover scan: claims the matches whose lease expired (or that have
    /// none), except those whose owner says it still runs them within the lease
    /// grace (`--lease-grace-ms`; the owner answers on `<prefix>.holds.<node>`),
    /// and resumes each here. Returns how many were resumed.
    ///
    /// Errors: the store could not be reached (nothing was claimed then).
    pub async fn claim_and_resume(&self, game: &Game) -> Result<usize, StoreError> {
        let mut resumed = 0;
        let spared = self.spared(game).await?;
        loop {
            let claimed = game
                .store()
                .claim_expired(&self.leases, CLAIM_BATCH, &spared)
                .await?;
            let n = claimed.len();
            for (id, t) in claimed {
                metrics::counter!(TAKEOVERS_COUNTER).increment(1);
                if resume_claimed(game, game.store(), id, t).await {
                    resumed += 1;
                    self.announce_moved(id).await;
                } else {
                    self.leases.forget(id, t);
                }
            }
            if n < CLAIM_BATCH as usize {
                break;
            }
        }
        metrics::gauge!(LEASES_GAUGE).set(self.leases.held().len() as f64);
        Ok(resumed)
    }

    /// Leaving (SIGTERM), after the rooms stopped and the writer flushed: releases
    /// every lease this node holds and tells the other nodes (NATS) to claim them now.
    pub async fn leave(&self, store: &Store) {
        self.release_matchmaker(store).await;
        match store.release_leases(&self.leases).await {
            Ok(n) => tracing::info!(node = self.node_id(), released = n, "room leases released"),
            Err(e) => tracing::warn!(node = self.node_id(), error = %e,
                "room leases not released; other nodes take the matches when they expire"),
        }
        let notice = self.nats.publish(
            self.subject("cluster.released"),
            self.node_id().to_string().into(),
        );
        let sent = async {
            notice.await.map_err(|e| e.to_string())?;
            self.nats.flush().await.map_err(|e| e.to_string())
        };
        match tokio::time::timeout(Duration::from_secs(2), sent).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "release notice not sent"),
            Err(_) => tracing::warn!("release notice not sent in time"),
        }
    }
}

/// Resumes claimed match `id` (token `t`) here. False when it has ended meanwhile or
/// cannot be resumed (logged).
async fn resume_claimed(game: &Game, store: &Store, id: Uuid, t: i64) -> bool {
    if game.registries().runs_room(id) {
        // A room of an older lease of ours is still stopping: let it go; the claim
        // expires unrenewed and the match is claimed again at a later scan.
        lose_room(game, id);
        return false;
    }
    match store.running_match(id).await {
        Ok(Some(stored)) => match crate::room::resume(game, stored) {
            Ok(_) => {
                tracing::info!(match_id = %id, token = t, "match taken over");
                true
            }
            Err(e) => {
                tracing::error!(match_id = %id, error = %e, "claimed match not resumed");
                false
            }
        },
        Ok(None) => false,
        Err(e) => {
            tracing::warn!(match_id = %id, error = %e, "claimed match not read; another node takes it when the lease expires");
            false
        }
    }
}

/// Stops this node's room of match `id`: another node owns it now.
fn lose_room(game: &Game, id: Uuid) {
    if let Some(room) = game.room(id) {
        metrics::counter!(LOST_COUNTER).increment(1);
        tracing::warn!(match_id = %id, "room lease lost: another node runs the match now; room stops");
        room.stop();
    }
}

/// The other nodes as the game side sees them ([`crate::game::Elsewhere`]): set by
/// the composition when this node joins the cluster, so rooms, lobbies and the
/// matchmaker tell the cluster what happened without importing it.
impl crate::game::Elsewhere for Arc<Cluster> {
    fn serve_room(&self, game: &Game, match_id: Uuid, room: crate::room::RoomHandle) {
        Cluster::serve_room(self, game, match_id, room);
    }
    fn unlist(&self, match_id: Uuid) {
        self.leases.unlist(match_id);
    }
    fn tell_player(&self, player: Uuid, frame: &crate::ws::Frame) {
        Cluster::tell_player(self, player, frame);
    }
    fn stand_in(&self, player: Uuid) -> Option<ConnHandle> {
        Cluster::stand_in(self, player).or_else(|| self.lobby_stand_in(player))
    }
    fn lobby_gone(&self, player: Uuid) {
        Cluster::lobby_gone(self, player);
    }
    fn dequeued(&self, player: Uuid, mode: engine::Mode) {
        Cluster::dequeued(self, player, mode);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> Config {
        Config::try_parse_from(std::iter::once("ludo-server").chain(args.iter().copied())).unwrap()
    }

    /// Contract: no NATS URL is a single node; a NATS URL needs PostgreSQL; the node
    /// id is random unless given; names must be subject tokens.
    #[test]
    fn cluster_settings_from_flags() {
        assert_eq!(Settings::from_config(&parse(&[])).unwrap(), None);
        let nats = ["--nats-url", "nats://127.0.0.1:4222"];
        assert!(matches!(
            Settings::from_config(&parse(&nats)),
            Err(ClusterError::NeedsPostgres)
        ));
        let sqlite = [&nats[..], &["--database-url", "sqlite://x.db"]].concat();
        assert!(matches!(
            Settings::from_config(&parse(&sqlite)),
            Err(ClusterError::NeedsPostgres)
        ));
        let pg = [&nats[..], &["--database-url", "postgres://h/db"]].concat();
        let a = Settings::from_config(&parse(&pg)).unwrap().unwrap();
        let b = Settings::from_config(&parse(&pg)).unwrap().unwrap();
        assert_ne!(a.node_id, b.node_id, "random node ids");
        assert_eq!(
            a.lease,
            Duration::from_millis(crate::config::DEFAULT_LEASE_MS)
        );
        assert_eq!(a.prefix, "ludo");
        assert_eq!(a.lease_grace, Duration::from_millis(20_000));
        let named = [
            &pg[..],
            &[
                "--node-id",
                "n-1",
                "--lease-ms",
                "900",
                "--nats-prefix",
                "t.x",
                "--lease-grace-ms",
                "0",
            ],
        ]
        .concat();
        let s = Settings::from_config(&parse(&named)).unwrap().unwrap();
        assert_eq!(
            (
                s.node_id.as_str(),
                s.lease,
                s.prefix.as_str(),
                s.lease_grace
            ),
            ("n-1", Duration::from_millis(900), "t.x", Duration::ZERO)
        );
        let bad = [&pg[..], &["--node-id", "a.b"]].concat();
        assert!(matches!(
            Settings::from_config(&parse(&bad)),
            Err(ClusterError::BadName { .. })
        ));
        let bad = [&pg[..], &["--nats-prefix", "a..b"]].concat();
        assert!(matches!(
            Settings::from_config(&parse(&bad)),
            Err(ClusterError::BadName { .. })
        ));
        assert!(Config::try_parse_from(["ludo-server", "--lease-ms", "10"]).is_err());
    }
}
