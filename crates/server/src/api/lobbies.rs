//! `GET /api/v1/lobbies`: the open public lobbies of this server, and in a cluster
//! of every node (created with `private: false`, with a free seat), oldest first. Private lobbies are never
//! listed. Join one over the WebSocket with `join_lobby` and its code; a client that
//! wants the list kept current sends `subscribe_lobbies` instead.

use crate::state::AppState;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use engine::Mode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One open public lobby.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PublicLobby {
    /// Join code: 6 characters from `ABCDEFGHJKMNPQRSTUVWXYZ23456789`.
    #[schema(example = "K7MQ2X")]
    pub code: String,
    /// `journey` or `clash` (rule 1.4).
    #[schema(value_type = String, example = "journey")]
    pub mode: Mode,
    /// Empty seats get bots when the host starts.
    pub fill_with_bots: bool,
    /// The host's display name.
    pub host_name: String,
    /// Members now, 1..=3 (a full lobby is not listed).
    pub members: u32,
}

/// `GET /api/v1/lobbies` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PublicLobbies {
    /// Open public lobbies with a free seat, oldest first (at most 100).
    pub lobbies: Vec<PublicLobby>,
}

/// Routes of this resource.
pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/lobbies", get(lobbies))
}

/// The open public lobbies of this server (of every node in a cluster), oldest first.
#[utoipa::path(
    get,
    path = "/api/v1/lobbies",
    operation_id = "listLobbies",
    tag = "lobbies",
    responses(
        (status = 200, description = "Open public lobbies with a free seat, oldest first \
            (at most 100; private lobbies are never listed).", body = PublicLobbies),
    )
)]
pub async fn lobbies(State(state): State<AppState>) -> Json<PublicLobbies> {
    let list = state.lobbies().public_list();
    Json(PublicLobbies {
        lobbies: list
            .lobbies
            .into_iter()
            .map(|l| PublicLobby {
                code: l.code,
                mode: l.mode,
                fill_with_bots: l.fill_with_bots,
                host_name: l.host_name,
                members: l.members,
            })
            .collect(),
    })
}
