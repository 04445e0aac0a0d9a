//! A signed-in socket's requests, one file per message family (after nakama's
//! `pipeline_<area>.go`): [`queue`] (quick play), [`lobby`] (lobbies and
//! rematches), [`play`] (a seat's moves, chat and dice entropy, all routed to the
//! match's room), [`watch`] (`resync`, `spectate`, and the end of a match that
//! ended) and [`session`] (`hello`).
//!
//! A handler checks the request, then hands it to the handle of what it is about
//! (`state.rooms()`, `state.queue()`, `state.lobby_dir()`, `state.sessions()`:
//! `crate::route`), which decides whether that lives on this node or another. No
//! handler asks where anything lives.

mod lobby;
mod play;
mod queue;
mod session;
mod watch;

use super::reader::Session;
use crate::presence::Busy;
use protocol::{ErrorCode, Request};

impl Session {
    /// A signed-in player's request, answered by the function of its kind.
    pub(in crate::ws) async fn request(
        &mut self,
        player: &store::Player,
        r: Request,
        req: Option<String>,
    ) {
        match r {
            Request::JoinQueue(j) => self.join_queue(player, j.mode, j.bot_level, req).await,
            Request::LeaveQueue => self.leave_queue(player, req).await,
            Request::CreateLobby(c) => self.create_lobby(player, &c, req).await,
            Request::JoinLobby(j) => self.join_lobby(player, &j.code, req).await,
            Request::LeaveLobby => self.leave_lobby(player, req).await,
            Request::StartLobby => self.start_lobby(player, req).await,
            Request::SubscribeLobbies => self.subscribe_lobbies(req),
            Request::UnsubscribeLobbies => self.unsubscribe_lobbies(req),
            Request::OfferRematch(m) => self.offer_rematch(player, m.match_id, req).await,
            Request::SubmitTurn(s) => {
                self.submit(player, s.match_id, s.turn_number, s.plan, req)
                    .await
            }
            Request::PreviewPlan(s) => {
                self.preview(player, s.match_id, s.turn_number, s.plan, req)
                    .await
            }
            Request::Pass(t) => {
                self.submit(player, t.match_id, t.turn_number, engine::Plan::pass(), req)
                    .await
            }
            Request::LeaveMatch(m) => self.leave_match(player, m.match_id, req).await,
            Request::Resync(r) => self.resync(player, r, req).await,
            Request::Spectate(m) => self.spectate(player, m.match_id, req).await,
            Request::Chat(c) => self.chat(player, c, req).await,
            Request::ContributeEntropy(c) => self.contribute(player, c, req).await,
        }
    }

    /// False, after answering `store_unavailable`, when no new match may start now
    /// (`join_queue`, `create_lobby` and `offer_rematch` ask first).
    fn new_matches_open(&self, req: &Option<String>) -> bool {
        if self.state.accepting_new_matches() {
            return true;
        }
        self.conn.send_error(
            ErrorCode::StoreUnavailable,
            "the store is unavailable or behind; no new match can start now",
            req.clone(),
        );
        false
    }

    /// False, after answering `already_busy`, when `player` holds a seat in a
    /// running match of another node (cluster; `Rooms::seated_elsewhere`). A store
    /// that does not answer leaves the local check alone (a new match cannot start
    /// then anyway: `new_matches_open`). Single node: always true.
    ///
    /// First, what the player waits in on the node of an older socket is handed
    /// over here (`Sessions::settled`, at most 200 ms after sign-in), and a member
    /// of a lobby on a node that died is in no lobby any more
    /// (`LobbyDir::leave_if_gone`; issue 34.3).
    async fn free(&self, player: &store::Player, req: &Option<String>) -> bool {
        self.state.sessions().settled(player.id).await;
        if self.conn.is_closed() {
            // Replaced by a newer socket meanwhile (4000): the request goes no
            // further (the newer socket has what this one waited in).
            return false;
        }
        self.state.lobby_dir().leave_if_gone(player.id).await;
        match self.state.rooms().seated_elsewhere(player.id).await {
            Some(m) => {
                let busy = Busy::Seated(m);
                self.conn
                    .send_error(ErrorCode::AlreadyBusy, busy.text(), req.clone());
                false
            }
            None => true,
        }
    }
}

/// The request handlers without a socket (issue 33.4): a [`Session`] on a SQLite
/// store, its answers read from a channel-backed connection handle.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::ws::reader::AddressShare;
    use crate::ws::{ConnHandle, Frame};
    use protocol::{Inbound, ServerMsg};
    use tokio::sync::mpsc;
    use uuid::Uuid;

    /// A signed-in session of a fresh player on a single node, and what its
    /// connection is sent.
    struct Bench {
        session: Session,
        player: store::Player,
        sent: mpsc::Receiver<Frame>,
        _dir: tempfile::TempDir,
    }

    async fn bench() -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let store = store::Store::connect(Some(&url)).await.unwrap();
        store.migrate().await.unwrap();
        let writer = store::spawn_writer(store.clone());
        let state = crate::AppState::new(crate::Config::default(), store, writer)
            .services()
            .clone();
        state.set_store_ready();
        let (tx, sent) = mpsc::channel(16);
        let share = AddressShare {
            slot: None,
            proxied: None,
        };
        let player = store::Player {
            id: Uuid::new_v4(),
            name: "Ada".into(),
            created_at: chrono::Utc::now(),
            username: None,
        };
        // Signed in: lobbies reach the player through its registered socket.
        let conn = ConnHandle::new(1, tx);
        state
            .game()
            .registries()
            .attach_session(player.id, &conn, 0, Uuid::new_v4());
        Bench {
            session: Session::new(state, conn, share),
            player,
            sent,
            _dir: dir,
        }
    }

    impl Bench {
        /// Handles the client frame `json` as a request of the player.
        async fn request(&mut self, json: &str) {
            let frame = protocol::decode_client(json.as_bytes()).expect("a valid frame");
            let Inbound::Request(r) = Inbound::from(frame.msg) else {
                panic!("not a request: {json}");
            };
            let player = self.player.clone();
            self.session.request(&player, r, frame.id).await;
        }

        /// The next message the connection was sent (it must have been sent).
        fn next(&mut self) -> ServerMsg {
            let frame = self.sent.try_recv().expect("an answer was sent");
            protocol::decode_server(&frame).unwrap().msg
        }
    }

    /// An unknown lobby code is `lobby_not_found` in reply to the request, and the
    /// player stays free (issue 33.4: a handler tested without a socket).
    #[tokio::test]
    async fn join_lobby_with_an_unknown_code_is_lobby_not_found() {
        let mut b = bench().await;
        b.request(r#"{"t":"join_lobby","id":"j","d":{"code":"ZZZZZZ"}}"#)
            .await;
        match b.next() {
            ServerMsg::Error(e) => {
                assert_eq!(e.code, ErrorCode::LobbyNotFound);
                assert_eq!(e.in_reply_to.as_deref(), Some("j"));
            }
            other => panic!("expected lobby_not_found, got {other:?}"),
        }
        assert_eq!(b.session.state.presence().get(b.player.id), None);
    }

    /// A lobby member's `join_queue` is `already_busy` ("you are in a lobby"), and
    /// leaves it a lobby member.
    #[tokio::test]
    async fn a_lobby_member_cannot_queue() {
        let mut b = bench().await;
        b.request(r#"{"t":"create_lobby","id":"c","d":{"mode":"clash","private":true}}"#)
            .await;
        assert!(matches!(b.next(), ServerMsg::LobbyState(_)));
        assert!(matches!(b.next(), ServerMsg::Ack(a) if a.id == "c"));
        b.request(r#"{"t":"join_queue","id":"q","d":{"mode":"clash"}}"#)
            .await;
        match b.next() {
            ServerMsg::Error(e) => {
                assert_eq!(e.code, ErrorCode::AlreadyBusy);
                assert_eq!(e.message, "you are in a lobby");
                assert_eq!(e.in_reply_to.as_deref(), Some("q"));
            }
            other => panic!("expected already_busy, got {other:?}"),
        }
        assert_eq!(
            b.session.state.presence().get(b.player.id),
            Some(Busy::Lobby)
        );
    }

    /// A plan for a match no room runs and the store does not know is
    /// `match_not_found` (`proto/README.md` §7), naming the match.
    #[tokio::test]
    async fn a_plan_for_an_unknown_match_is_match_not_found() {
        let mut b = bench().await;
        let m = Uuid::new_v4();
        let json = format!(r#"{{"t":"pass","id":"p","d":{{"match_id":"{m}","turn_number":1}}}}"#);
        b.request(&json).await;
        match b.next() {
            ServerMsg::Error(e) => {
                assert_eq!(e.code, ErrorCode::MatchNotFound);
                assert_eq!(e.message, format!("no running match {m}"));
            }
            other => panic!("expected match_not_found, got {other:?}"),
        }
    }
}
