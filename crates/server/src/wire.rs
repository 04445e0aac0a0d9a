//! Stored values in their wire form (`store` → `protocol`): a leaf the game layer
//! (rooms), the socket tier and REST all use, so none of them reaches into
//! another's types for it.

use protocol::{Rating, RatingChange};

/// A stored bot level (`match_seats.bot_level`) as the wire names it; `None` for none
/// (and for a name this build does not know).
pub(crate) fn level(stored: Option<&str>) -> Option<protocol::BotLevel> {
    stored.and_then(protocol::BotLevel::parse)
}

/// The wire form of a stored rating.
pub(crate) fn wire_rating(r: store::Rating) -> Rating {
    Rating {
        mu: r.mu,
        sigma: r.sigma,
        conservative: r.conservative,
    }
}

/// The wire form of a stored rating change.
pub(crate) fn wire_change(c: store::RatingChange) -> RatingChange {
    RatingChange {
        before: wire_rating(c.before),
        after: wire_rating(c.after),
        change: c.change,
    }
}
