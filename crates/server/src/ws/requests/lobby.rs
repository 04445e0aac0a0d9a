//! Lobbies: `create_lobby`, `join_lobby`, `leave_lobby`, `start_lobby`,
//! `subscribe_lobbies`, `unsubscribe_lobbies` and `offer_rematch` (the lobbies:
//! `crate::route::LobbyDir`).

use crate::ws::reader::Session;
use protocol::{CreateLobby, ErrorCode};
use uuid::Uuid;

impl Session {
    /// `create_lobby`: `store_unavailable` when no new match may start,
    /// `already_busy` when the player is busy; otherwise `ack` (and `lobby_state`),
    /// or the lobby's error.
    pub(super) async fn create_lobby(
        &self,
        player: &store::Player,
        c: &CreateLobby,
        req: Option<String>,
    ) {
        if !self.new_matches_open(&req) || !self.free(player, &req).await {
            return;
        }
        self.state
            .lobby_dir()
            .create(player, c, &self.conn, req)
            .await;
    }

    /// `join_lobby` by its code: `already_busy` when the player is seated on another
    /// node; otherwise `ack`, or the lobby's error.
    pub(super) async fn join_lobby(&self, player: &store::Player, code: &str, req: Option<String>) {
        if !self.free(player, &req).await {
            return;
        }
        self.state
            .lobby_dir()
            .join(player, code, &self.conn, req)
            .await;
    }

    /// `leave_lobby`: `ack`, or the lobby's error.
    pub(super) async fn leave_lobby(&self, player: &store::Player, req: Option<String>) {
        self.state
            .lobby_dir()
            .leave(player.id, &self.conn, req)
            .await;
    }

    /// `start_lobby` (host only): `ack`, or the lobby's error.
    pub(super) async fn start_lobby(&self, player: &store::Player, req: Option<String>) {
        self.state
            .lobby_dir()
            .start(player.id, &self.conn, req)
            .await;
    }

    /// `subscribe_lobbies`: `ack`, then the `lobby_list`.
    pub(super) fn subscribe_lobbies(&self, req: Option<String>) {
        self.conn.ack(req);
        self.state.lobbies().subscribe(&self.conn);
    }

    /// `unsubscribe_lobbies`: `ack` (also when not subscribed).
    pub(super) fn unsubscribe_lobbies(&self, req: Option<String>) {
        self.state.lobbies().unsubscribe(self.conn.id());
        self.conn.ack(req);
    }

    /// `offer_rematch`: the first error that applies, in this order:
    /// `store_unavailable`, `match_not_found`, `not_in_match`, `match_not_ended`, then the lobby's
    /// (`already_busy`, `lobby_full`); otherwise the rematch lobby opens (or the
    /// player joins the open one) and the answer is `ack`.
    pub(super) async fn offer_rematch(
        &self,
        player: &store::Player,
        match_id: Uuid,
        req: Option<String>,
    ) {
        if !self.new_matches_open(&req) {
            return;
        }
        let summary = match self.state.store().match_summary(match_id).await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, match_id = %match_id, "match look-up failed");
                self.conn.send_error(
                    ErrorCode::Internal,
                    "could not read the match; try again",
                    req,
                );
                return;
            }
        };
        let Some(summary) = summary else {
            // A room whose start is not stored yet is running, not unknown.
            let (code, text) = match self.state.presence().active_match(player.id) {
                Some(m) if m == match_id => {
                    (ErrorCode::MatchNotEnded, "the match is still running")
                }
                _ => (ErrorCode::MatchNotFound, "no such match"),
            };
            self.conn.send_error(code, text, req);
            return;
        };
        if !summary.seats.iter().any(|s| s.player_id == Some(player.id)) {
            self.conn
                .send_error(ErrorCode::NotInMatch, "you had no seat in this match", req);
            return;
        }
        if summary.status != store::MatchStatus::Ended {
            self.conn.send_error(
                ErrorCode::MatchNotEnded,
                "the match is still running; offer a rematch after match_ended",
                req,
            );
            return;
        }
        // Checked after the match's own errors, in the documented order (in a
        // cluster, a seat in another running match is `already_busy` only now).
        if !self.free(player, &req).await {
            return;
        }
        let invited = others(&summary, player.id);
        self.state
            .lobby_dir()
            .rematch(player, match_id, summary.mode, &invited, &self.conn, req)
            .await;
    }
}

/// The human players of the match `summary` other than `player` (each once): who a
/// rematch offer of `player` invites.
fn others(summary: &store::MatchSummary, player: Uuid) -> Vec<Uuid> {
    let mut invited: Vec<Uuid> = summary
        .seats
        .iter()
        .filter_map(|s| s.player_id)
        .filter(|p| *p != player)
        .collect();
    invited.dedup();
    invited
}
