//! A seat's play: `submit_turn`, `pass`, `preview_plan`, `leave_match`, `chat` and
//! `contribute_entropy`, each routed to the match's room (`crate::route::Rooms`),
//! which answers.

use crate::room::RoomCmd;
use crate::route::{Absent, Unrouted};
use crate::ws::reader::Session;
use crate::ws::{CloseReason, ConnHandle};
use protocol::{ErrorCode, ServerMsg};
use std::sync::atomic::Ordering;
use uuid::Uuid;

impl Session {
    /// `submit_turn` (or `pass`, the plan [`engine::Plan::pass`]): to the room, which
    /// answers.
    pub(super) async fn submit(
        &self,
        player: &store::Player,
        match_id: Uuid,
        turn_number: u32,
        plan: engine::Plan,
        req: Option<String>,
    ) {
        let received = std::time::Instant::now();
        let at_ms = self.state.clock().now_ms();
        let make = |conn| RoomCmd::Submit {
            player: player.id,
            conn,
            req: req.clone(),
            turn_number,
            plan,
            received,
            at_ms,
        };
        self.to_room(match_id, Route::Submit, req.clone(), make)
            .await;
    }

    /// `preview_plan`: to the room, which answers (`plan_preview`, or the error a
    /// `submit_turn` of the same plan would get; no room: as `submit_turn`).
    pub(super) async fn preview(
        &self,
        player: &store::Player,
        match_id: Uuid,
        turn_number: u32,
        plan: engine::Plan,
        req: Option<String>,
    ) {
        let at_ms = self.state.clock().now_ms();
        let make = |conn| RoomCmd::Preview {
            player: player.id,
            conn,
            req: req.clone(),
            turn_number,
            plan,
            at_ms,
        };
        self.to_room(match_id, Route::Submit, req.clone(), make)
            .await;
    }

    /// `leave_match`: to the room, which answers.
    pub(super) async fn leave_match(
        &self,
        player: &store::Player,
        match_id: Uuid,
        req: Option<String>,
    ) {
        let make = |conn| RoomCmd::Leave {
            player: player.id,
            conn,
            req: req.clone(),
        };
        self.to_room(match_id, Route::Submit, req.clone(), make)
            .await;
    }

    /// `chat`: to the room, which relays the text (decoding checked it against the
    /// text policy and normalized it, `protocol::text`).
    pub(super) async fn chat(
        &self,
        player: &store::Player,
        c: protocol::Chat,
        req: Option<String>,
    ) {
        let make = |conn| RoomCmd::Chat {
            player: player.id,
            name: player.name.clone(),
            conn,
            req: req.clone(),
            text: c.text,
        };
        self.to_room(c.match_id, Route::Other, req.clone(), make)
            .await;
    }

    /// `contribute_entropy`: to the match's room (proto/README.md §10). Decoding
    /// checked the entropy (`invalid_entropy` otherwise).
    pub(super) async fn contribute(
        &self,
        player: &store::Player,
        c: protocol::ContributeEntropy,
        req: Option<String>,
    ) {
        let entropy = match engine::Entropy::from_player_hex(&c.entropy) {
            Ok(e) => e,
            Err(e) => {
                self.conn
                    .send_error(protocol::ErrorCode::InvalidEntropy, e.to_string(), req);
                return;
            }
        };
        let make = |conn| RoomCmd::Contribute {
            player: player.id,
            conn,
            req: req.clone(),
            entropy,
        };
        self.to_room(c.match_id, Route::Other, req.clone(), make)
            .await;
    }

    /// Routes the command `make` builds (around a request handle) to the room of
    /// `match_id` (here or on the node that runs it: `crate::route::Rooms`) and
    /// waits for the room's answer. Returns false when no room runs the match: then
    /// the answer is `cluster_unavailable` (the other nodes cannot be reached, or
    /// the match's owner is not back on NATS yet after an outage), a
    /// close with 1012 (cluster: the match is moving to another node), the stored
    /// end of the match for [`Route::Watch`], `match_over` for a plan or pass
    /// ([`Route::Submit`]) naming a match the store knows (it ended, or its room is
    /// gone), or else `match_not_found` (`proto/README.md` §7).
    pub(super) async fn to_room(
        &self,
        match_id: Uuid,
        route: Route,
        req: Option<String>,
        make: impl FnOnce(ConnHandle) -> RoomCmd,
    ) -> bool {
        let asked = match self.state.rooms().find(match_id) {
            Some(room) => {
                room.ask(&self.conn, self.state.shutdown_token(), make)
                    .await
            }
            None => Err(Unrouted::NoRoom),
        };
        match asked {
            Ok(took_effect) => {
                self.took_effect.store(took_effect, Ordering::Relaxed);
                return true;
            }
            Err(Unrouted::Unreachable(r)) => {
                self.conn.send_error(r.code, r.message, req);
                return false;
            }
            Err(Unrouted::NoRoom) => {}
        }
        if let Route::Watch(player) = route {
            if let Some(snap) = self.ended_snapshot(match_id, player).await {
                self.conn.ack(req);
                let seq = snap.seq;
                self.conn
                    .send_msg(Some(seq), &ServerMsg::Snapshot(Box::new(snap)));
                return false;
            }
        }
        match self.state.rooms().absent(match_id).await {
            // The client reconnects and resyncs on the node that resumes it.
            Absent::Moving => self.conn.close(CloseReason::MOVED),
            // Its owner is not back on NATS yet: try again shortly, on this socket.
            Absent::NotBack(r) => self.conn.send_error(r.code, r.message, req),
            Absent::Stored if route == Route::Submit => {
                self.conn
                    .send_error(ErrorCode::MatchOver, "the match is over", req)
            }
            Absent::Stored | Absent::Unknown => self.conn.send_error(
                ErrorCode::MatchNotFound,
                format!("no running match {match_id}"),
                req,
            ),
        }
        false
    }
}

/// Where [`Session::to_room`] sends a command: what a missing room answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    /// `submit_turn`, `pass` or `leave_match`: `match_over` for a match that ended.
    Submit,
    /// `resync` or `spectate` by this player: for a match that ended, a `snapshot`
    /// of its end (from the store), so a client that was away can show the result.
    Watch(Uuid),
    /// Anything else: `match_not_found`.
    Other,
}
