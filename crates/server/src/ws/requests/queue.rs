//! Quick play: `join_queue`, `leave_queue` (the queue: `crate::route::Queue`).

use crate::ws::reader::Session;

impl Session {
    /// `join_queue`: `store_unavailable` when no new match may start, `already_busy`
    /// when the player is busy (here or, in a cluster, seated on another node);
    /// otherwise the queue claims the player and the matchmaker answers.
    pub(super) async fn join_queue(
        &self,
        player: &store::Player,
        mode: engine::Mode,
        bot_level: protocol::BotLevel,
        req: Option<String>,
    ) {
        if !self.new_matches_open(&req) || !self.free(player, &req).await {
            return;
        }
        self.state
            .queue()
            .join(player, mode, bot_level, &self.conn, req)
            .await;
    }

    /// `leave_queue`: the matchmaker answers `ack` (also when not queued).
    pub(super) async fn leave_queue(&self, player: &store::Player, req: Option<String>) {
        self.state.queue().leave(player.id, &self.conn, req).await;
    }
}
