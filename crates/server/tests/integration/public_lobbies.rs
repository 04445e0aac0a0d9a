//! Public lobbies and rematch over WebSocket.
//!
//! * `subscribe_lobbies` answers the list of open public lobbies and pushes it again
//!   as lobbies open, fill, start and close; private lobbies are never listed (nor
//!   by `GET /api/v1/lobbies`); a listed lobby is joined by its code;
//!   `unsubscribe_lobbies` stops the pushes.
//! * `offer_rematch` after `match_ended` opens a private lobby with bot fill hosted
//!   by the offerer and invites the match's other humans (`rematch_offered`), who
//!   accept with `join_lobby`; every bad case has its code.

use crate::common::*;
use protocol::{ErrorCode, LobbyList, ServerMsg};
use serde_json::{json, Value};
use server::Clock;
use std::time::Duration;

const T0: u64 = 1_800_000_000_000;

/// The next `error` frame (other frames before it are skipped) must have `code`.
async fn error_of(c: &mut Client, code: ErrorCode) {
    let (f, _) = c.recv_until(|m| matches!(m, ServerMsg::Error(_))).await;
    match f.msg {
        ServerMsg::Error(e) => assert_eq!(e.code, code, "{}", e.message),
        _ => unreachable!(),
    }
}

async fn next_list(c: &mut Client) -> LobbyList {
    let (f, _) = c.recv_until(|m| matches!(m, ServerMsg::LobbyList(_))).await;
    match f.msg {
        ServerMsg::LobbyList(l) => l,
        _ => unreachable!(),
    }
}

async fn rest_list(s: &TestServer) -> Value {
    reqwest::get(s.url("/api/v1/lobbies"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn lobby_code(c: &mut Client) -> String {
    let (f, _) = c
        .recv_until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await;
    match f.msg {
        ServerMsg::LobbyState(l) => l.code,
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn the_public_list_stays_current_and_never_shows_private_lobbies() {
    let s = start(test_config()).await;
    let mut watcher = s.player("Watcher").await;
    let mut host = s.player("Host").await;
    let mut guest = s.player("Guest").await;
    let mut secret = s.player("Secret").await;

    watcher
        .send(json!({"t": "subscribe_lobbies", "id": "sub"}))
        .await;
    watcher
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "sub"))
        .await;
    assert!(next_list(&mut watcher).await.lobbies.is_empty());

    // A private lobby: no push, not listed.
    secret
        .send(json!({"t": "create_lobby", "d": {"mode": "clash", "private": true}}))
        .await;
    lobby_code(&mut secret).await;
    watcher.expect_silence(Duration::from_millis(200)).await;
    assert_eq!(rest_list(&s).await["lobbies"], json!([]));

    // A public lobby opens: pushed and listed.
    host.send(json!({"t": "create_lobby", "d": {"mode": "clash", "private": false, "fill_with_bots": true}}))
        .await;
    let code = lobby_code(&mut host).await;
    let list = next_list(&mut watcher).await;
    assert_eq!(list.lobbies.len(), 1);
    let l = &list.lobbies[0];
    assert_eq!(
        (
            l.code.as_str(),
            l.mode,
            l.fill_with_bots,
            l.host_name.as_str(),
            l.members
        ),
        (code.as_str(), engine::Mode::Clash, true, "Host", 1)
    );
    let rest = rest_list(&s).await;
    assert_eq!(rest["lobbies"][0]["code"], json!(code));
    assert_eq!(rest["lobbies"].as_array().unwrap().len(), 1);

    // Joined from the list: the count changes.
    guest
        .send(json!({"t": "join_lobby", "id": "j", "d": {"code": list.lobbies[0].code}}))
        .await;
    guest
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "j"))
        .await;
    assert_eq!(next_list(&mut watcher).await.lobbies[0].members, 2);

    // It starts: gone from the list.
    host.send(json!({"t": "start_lobby"})).await;
    expect_started(&mut host).await;
    assert!(next_list(&mut watcher).await.lobbies.is_empty());

    // Unsubscribed: no more pushes.
    watcher
        .send(json!({"t": "unsubscribe_lobbies", "id": "unsub"}))
        .await;
    watcher
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "unsub"))
        .await;
    let mut other = s.player("Other").await;
    other
        .send(json!({"t": "create_lobby", "d": {"mode": "journey", "private": false}}))
        .await;
    lobby_code(&mut other).await;
    watcher.expect_silence(Duration::from_millis(200)).await;
    assert_eq!(rest_list(&s).await["lobbies"].as_array().unwrap().len(), 1);
    // Its host leaves: the lobby closes and is no longer listed.
    other.send(json!({"t": "leave_lobby"})).await;
    s.eventually("the lobby to close", |st| {
        st.lobbies().public_list().lobbies.is_empty()
    })
    .await;
}

#[tokio::test]
async fn a_rematch_invites_the_other_humans_and_bad_offers_are_refused() {
    let clock = Clock::manual(T0);
    let config = server::Config {
        match_seconds: 600,
        // Bots wait (real time): no turn write is pending when the clock moves.
        bot_think_ms: 600_000,
        ..test_config()
    };
    let s = start_with_clock(config, clock.clone()).await;
    let (mut clients, started) = lobby_of_four(&s, true, 2).await;
    let id = started[0].match_id;
    let mut outsider = s.player("Outsider").await;

    // Unknown match; still running.
    let offer = |m: uuid::Uuid| json!({"t": "offer_rematch", "id": "r", "d": {"match_id": m}});
    clients[0].send(offer(uuid::Uuid::new_v4())).await;
    error_of(&mut clients[0], ErrorCode::MatchNotFound).await;
    clients[0].send(offer(id)).await;
    error_of(&mut clients[0], ErrorCode::MatchNotEnded).await;

    clock.advance_ms(600_001);
    for c in clients.iter_mut() {
        c.recv_until(|m| matches!(m, ServerMsg::MatchEnded(_)))
            .await;
    }
    // Not a player of that match.
    outsider.send(offer(id)).await;
    error_of(&mut outsider, ErrorCode::NotInMatch).await;

    // The offer: the offerer hosts a private lobby with bot fill; the other human
    // is invited and accepts by joining.
    clients[0].send(offer(id)).await;
    let (f, _) = clients[0]
        .recv_until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await;
    let ServerMsg::LobbyState(lobby) = f.msg else {
        unreachable!()
    };
    assert!(lobby.private && lobby.fill_with_bots);
    assert_eq!(lobby.host, clients[0].player_id);
    clients[0]
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "r"))
        .await;
    let (f, _) = clients[1]
        .recv_until(|m| matches!(m, ServerMsg::RematchOffered(_)))
        .await;
    let ServerMsg::RematchOffered(inv) = f.msg else {
        unreachable!()
    };
    assert_eq!(
        (
            inv.match_id,
            inv.code.as_str(),
            inv.host,
            inv.host_name.as_str()
        ),
        (id, lobby.code.as_str(), clients[0].player_id, "P0")
    );
    assert_eq!(inv.mode, engine::Mode::Journey);
    // The rematch lobby is private: not listed.
    assert!(s.state.lobbies().public_list().lobbies.is_empty());
    clients[1]
        .send(json!({"t": "join_lobby", "id": "acc", "d": {"code": inv.code}}))
        .await;
    let (f, _) = clients[1]
        .recv_until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await;
    let ServerMsg::LobbyState(joined) = f.msg else {
        unreachable!()
    };
    assert_eq!(joined.members.len(), 2);

    // Offering again while in the lobby: already busy.
    clients[0].send(offer(id)).await;
    error_of(&mut clients[0], ErrorCode::AlreadyBusy).await;
    // The guest leaves and offers again: it joins the open rematch instead.
    clients[1].send(json!({"t": "leave_lobby"})).await;
    clients[1]
        .recv_until(|m| matches!(m, ServerMsg::Ack(_)))
        .await;
    clients[1].send(offer(id)).await;
    let (f, _) = clients[1]
        .recv_until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await;
    let ServerMsg::LobbyState(again) = f.msg else {
        unreachable!()
    };
    assert_eq!(again.code, lobby.code);
    // The host starts the rematch: both play again.
    clients[0].send(json!({"t": "start_lobby"})).await;
    let a = expect_started(&mut clients[0]).await;
    let b = expect_started(&mut clients[1]).await;
    assert_eq!(a.match_id, b.match_id);
    assert_ne!(a.match_id, id);
}
