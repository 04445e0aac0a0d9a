//! Watching a match: `resync` and `spectate` (routed to the match's room), and the
//! end of a match that ended, re-played from the store.

use super::play::Route;
use crate::room::RoomCmd;
use crate::ws::reader::Session;
use uuid::Uuid;

impl Session {
    /// `resync`: to the room, or the stored end of a match that ended.
    pub(super) async fn resync(
        &self,
        player: &store::Player,
        r: protocol::Resync,
        req: Option<String>,
    ) {
        let make = |conn| RoomCmd::Resync {
            player: player.id,
            conn,
            req: req.clone(),
            last_seq: r.last_seq,
        };
        self.to_room(r.match_id, Route::Watch(player.id), req.clone(), make)
            .await;
    }

    /// `spectate`: to the room (the socket then watches the match until it closes),
    /// or the stored end of a match that ended.
    pub(super) async fn spectate(
        &mut self,
        player: &store::Player,
        match_id: Uuid,
        req: Option<String>,
    ) {
        let make = |conn| RoomCmd::Spectate {
            player: player.id,
            conn,
            req: req.clone(),
        };
        if self
            .to_room(match_id, Route::Watch(player.id), req.clone(), make)
            .await
        {
            self.watching.insert(match_id);
        }
    }

    /// The stored replay of the ended match `match_id`, the match it re-plays to and
    /// the `seq` of its `match_ended` (0 for a match recorded before its seq was);
    /// `None` when the store has none, cannot be read (logged), or the replay does
    /// not re-play (logged as an error).
    async fn stored_end(&self, match_id: Uuid) -> Option<(store::ReplayDoc, engine::Match, u64)> {
        let doc = match self.state.store().replay(match_id).await {
            Ok(Some(doc)) => doc,
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!(error = %e, match_id = %match_id, "replay look-up failed");
                return None;
            }
        };
        let m = match engine::replay::verify(&doc.replay) {
            Ok(m) => m,
            Err(e) => {
                tracing::error!(error = %e, match_id = %match_id, "stored replay does not re-play");
                return None;
            }
        };
        match self.state.store().end_seq(match_id).await {
            Ok(s) => Some((doc, m, s.unwrap_or(0))),
            Err(e) => {
                tracing::warn!(error = %e, match_id = %match_id, "seq look-up failed");
                None
            }
        }
    }

    /// The `snapshot` of a match that has ended, re-played from its stored replay
    /// (final position, standings, seed), with `your_seat` for `player` and `seq` the
    /// one of its `match_ended`; `None` when the store has no ended match `match_id`
    /// (or cannot be read).
    pub(super) async fn ended_snapshot(
        &self,
        match_id: Uuid,
        player: Uuid,
    ) -> Option<protocol::Snapshot> {
        let (doc, m, end_seq) = self.stored_end(match_id).await?;
        let end = doc.replay.end.clone()?;
        let seed = doc.replay.seed?;
        let ratings = self.rating_changes(match_id).await;
        let now = self.state.clock().now_ms();
        let seats = ended_seats(&doc);
        let your_seat = seats
            .iter()
            .find(|s| s.player_id == Some(player))
            .map(|s| s.seat);
        Some(protocol::Snapshot {
            match_id,
            mode: doc.replay.mode,
            rules: doc.replay.rules.clone(),
            seats,
            your_seat,
            position: *m.position(),
            turn: None,
            clocks: protocol::Clocks {
                now_ms: now,
                turn_deadline_ms: None,
                match_deadline_ms: now,
            },
            dice_commitment: doc.replay.dice_commitment.clone(),
            turns_played: m.turns_played(),
            dice_scheme: doc.replay.dice_scheme,
            contributions: doc.replay.contributions.clone(),
            contribution_deadline_ms: None,
            // The match's last message: its `match_ended` (0 for a match recorded
            // before its seq was).
            seq: end_seq,
            ended: Some(
                protocol::MatchEnded::from_end(match_id, &end, seed).with_ratings(&ratings),
            ),
        })
    }

    /// The rating changes of the ended match `match_id` by seat, as sent in its
    /// `match_ended` (none when the store cannot be read: logged).
    async fn rating_changes(&self, match_id: Uuid) -> Vec<(engine::Seat, protocol::RatingChange)> {
        match self.state.store().rating_changes(match_id).await {
            Ok(c) => c
                .into_iter()
                .map(|(s, c)| (s, crate::wire::wire_change(c)))
                .collect(),
            Err(e) => {
                tracing::warn!(error = %e, match_id = %match_id, "rating look-up failed");
                Vec::new()
            }
        }
    }
}

/// The seats of the stored match `doc` at its end: a seat whose player left is
/// played by a bot (`bot` and `left`).
fn ended_seats(doc: &store::ReplayDoc) -> Vec<protocol::SeatInfo> {
    doc.seats
        .iter()
        .map(|s| protocol::SeatInfo {
            seat: s.seat,
            player_id: s.player_id,
            name: s.name.clone(),
            bot: s.is_bot || doc.replay.left.contains(&s.seat),
            left: doc.replay.left.contains(&s.seat),
            bot_level: crate::wire::level(s.bot_level.as_deref()),
        })
        .collect()
}
