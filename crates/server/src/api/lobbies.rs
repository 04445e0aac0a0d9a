//! `GET /api/v1/lobbies`: the open public lobbies of this server, and in a cluster
//! of every node (created with `private: false`, with a free seat), oldest first. Private lobbies are never
//! listed. Join one over the WebSocket with `join_lobby` and its code; a client that
//! wants the list kept current sends `subscribe_lobbies` instead.

use crate::services::Services;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use protocol::LobbyInfo;
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::ArrayBuilder;
use utoipa::openapi::{Ref, RefOr, Schema};
use utoipa::ToSchema;

/// `GET /api/v1/lobbies` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub(crate) struct PublicLobbies {
    /// Open public lobbies with a free seat, oldest first (at most 100): the
    /// `LobbyInfo` lines of the WebSocket's `lobby_list`.
    #[schema(schema_with = lobby_infos)]
    pub lobbies: Vec<LobbyInfo>,
}

/// `[LobbyInfo]`: a reference to the protocol's schema.
fn lobby_infos() -> RefOr<Schema> {
    ArrayBuilder::new()
        .description(Some(
            "Open public lobbies with a free seat, oldest first (at most 100), as in `lobby_list`.",
        ))
        .items(Ref::from_schema_name("LobbyInfo"))
        .build()
        .into()
}

/// Routes of this resource.
pub(crate) fn router() -> Router<Services> {
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
pub(crate) async fn lobbies(State(state): State<Services>) -> Json<PublicLobbies> {
    Json(PublicLobbies {
        lobbies: state.lobbies().public_list().lobbies,
    })
}
