//! `preview_plan` over the WebSocket: on the positions of real matches of both
//! modes, each seat previews a random legal plan before submitting it; the
//! `plan_preview` events and standings equal the `turn_resolved` that follows; a bad
//! plan gets from `preview_plan` the very error (code and text) `submit_turn` gets
//! for it; and a preview changes nothing (the snapshot before it equals the one
//! after it, clocks included: the test's clock stands still).

use crate::common::*;
use engine::{Mode, PieceId, Plan, Seat};
use protocol::{ServerMsg, Snapshot};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Own turns each seat previews and checks per match (4 seats, 2 modes: 1,000).
const PER_SEAT: usize = 125;

/// A snapshot of the match (`resync` from 0).
async fn snapshot(c: &mut Client, match_id: uuid::Uuid) -> Snapshot {
    c.send(json!({"t": "resync", "d": {"match_id": match_id, "last_seq": 0}}))
        .await;
    let (f, _) = c.recv_until(|m| matches!(m, ServerMsg::Snapshot(_))).await;
    match f.msg {
        ServerMsg::Snapshot(s) => *s,
        _ => unreachable!(),
    }
}

/// A plan of the seat to move that breaks rule 4.5 in the way `k` picks.
fn bad_plan(snap: &Snapshot, k: u64, rng: &mut StdRng) -> Plan {
    let pos = &snap.position;
    let st = pos.seat(pos.to_move().unwrap());
    let mut p = engine::legal::random_plan(pos, &snap.rules, rng);
    match k % 4 {
        0 => {
            p.moves.insert("G9".into(), vec![1]);
        }
        1 => p.royal = Some(snap.rules.royal_max_steps as i64 + 1),
        2 => {
            let v = (rng.next_u32() % 6 + 1) as u8;
            let g = PieceId::GUARDIANS
                .into_iter()
                .find(|g| st.location(*g).on_board())
                .unwrap_or(PieceId::G1);
            p.moves
                .insert(g.name().into(), vec![v as i64; st.rolls.count(v) + 1]);
        }
        _ => p.exits = PieceId::GUARDIANS.iter().map(|g| g.name().into()).collect(),
    }
    if pos.play(&snap.rules, &p).is_ok() {
        // Every guardian in the Yard with the credits for all: legal after all.
        p.moves.insert("G9".into(), vec![1]);
    }
    p
}

/// One seat: on each own turn (until `PER_SEAT` are checked) a snapshot, a bad
/// plan previewed and submitted, a random legal plan previewed, a snapshot again,
/// then the plan submitted and its `turn_resolved` compared with the preview. Later
/// turns are passed. Adds the error codes met to `codes`.
async fn seat(
    mut c: Client,
    match_id: uuid::Uuid,
    me: Seat,
    done: Arc<AtomicUsize>,
    codes: Arc<Mutex<Vec<String>>>,
) {
    let mut rng = StdRng::seed_from_u64(me.index() as u64 + 35);
    let mut checked = 0;
    let mut expecting: Option<protocol::PlanPreview> = None;
    loop {
        let f = c.recv().await;
        match f.msg {
            ServerMsg::TurnStarted(t) if t.seat == me && checked >= PER_SEAT => {
                c.send(
                    json!({"t": "pass", "d": {"match_id": match_id, "turn_number": t.turn_number}}),
                )
                .await;
            }
            ServerMsg::TurnStarted(t) if t.seat == me => {
                let before = snapshot(&mut c, match_id).await;
                let n = t.turn_number;
                // A bad plan: preview and submit refuse it alike, as the engine does.
                let bad = bad_plan(&before, rng.next_u64(), &mut rng);
                let expected = before.position.play(&before.rules, &bad).unwrap_err();
                let mut errors = Vec::new();
                for kind in ["preview_plan", "submit_turn"] {
                    c.send(json!({"t": kind, "id": kind,
                        "d": {"match_id": match_id, "turn_number": n, "plan": bad}}))
                        .await;
                    let e = c
                        .expect_error(protocol::ErrorCode::from(expected.code()))
                        .await;
                    assert_eq!(e.in_reply_to.as_deref(), Some(kind));
                    errors.push((e.code, e.message));
                }
                assert_eq!(errors[0], errors[1], "{bad:?}");
                codes.lock().unwrap().push(errors[0].0.as_str().to_string());
                // A turn that is not the current one: stale_turn from both.
                for kind in ["preview_plan", "submit_turn"] {
                    c.send(json!({"t": kind, "d": {"match_id": match_id, "turn_number": n + 1, "plan": {}}}))
                        .await;
                    c.expect_error(protocol::ErrorCode::StaleTurn).await;
                }
                let plan = engine::legal::random_plan(&before.position, &before.rules, &mut rng);
                c.send(json!({"t": "preview_plan", "id": "p",
                    "d": {"match_id": match_id, "turn_number": n, "plan": plan}}))
                    .await;
                let (f, skipped) = c
                    .recv_until(|m| matches!(m, ServerMsg::PlanPreview(_)))
                    .await;
                assert!(
                    skipped
                        .iter()
                        .all(|f| matches!(&f.msg, ServerMsg::Ack(a) if a.id == "p")),
                    "only the ack comes before the preview: {skipped:?}"
                );
                let ServerMsg::PlanPreview(p) = f.msg else {
                    unreachable!()
                };
                assert_eq!(f.seq, None, "a preview is no match message");
                assert_eq!(
                    (p.in_reply_to.as_deref(), p.turn_number, p.seat),
                    (Some("p"), n, me)
                );
                assert_eq!(p.plan, plan);
                // The legal moves are the engine's for the plan.
                let moves =
                    engine::legal::legal_moves(&before.position, &before.rules, &plan).unwrap();
                assert_eq!(p.moves, moves);
                let after = snapshot(&mut c, match_id).await;
                assert_eq!(
                    serde_json::to_value(&after).unwrap(),
                    serde_json::to_value(&before).unwrap(),
                    "previews and refused plans change nothing"
                );
                c.send(json!({"t": "submit_turn", "d": {"match_id": match_id, "turn_number": n, "plan": plan}}))
                    .await;
                expecting = Some(p);
            }
            ServerMsg::TurnResolved(r) if r.seat == me => {
                if let Some(p) = expecting.take() {
                    assert_eq!(r.turn_number, p.turn_number);
                    assert_eq!(r.plan, p.plan, "the previewed plan was played");
                    assert_eq!(r.events, p.events, "events as previewed");
                    assert_eq!(r.standings, p.standings, "standings as previewed");
                    checked += 1;
                    if checked == PER_SEAT {
                        done.fetch_add(1, Ordering::SeqCst);
                    }
                }
            }
            ServerMsg::MatchEnded(_) => return,
            ServerMsg::Error(e) => panic!("unexpected error {e:?}"),
            _ => {}
        }
    }
}

async fn previews_agree_with_turns(mode: Mode) {
    let (s, _clock) = start_manual(server::Config {
        rate_per_second: 1000,
        rate_burst: 1000,
        ..test_config()
    })
    .await;
    let mut clients = Vec::new();
    for i in 0..4 {
        let mut c = s.player(&format!("Previewer {i}")).await;
        c.send(json!({"t": "join_queue", "d": {"mode": mode}}))
            .await;
        clients.push(c);
    }
    let done = Arc::new(AtomicUsize::new(0));
    let codes = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for mut c in clients {
        let st = expect_started(&mut c).await;
        tasks.push(tokio::spawn(seat(
            c,
            st.match_id,
            st.your_seat.unwrap(),
            done.clone(),
            codes.clone(),
        )));
    }
    // Every seat checked its turns (a task that ends early failed, or saw the match end).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while done.load(Ordering::SeqCst) < 4 && !tasks.iter().any(|t| t.is_finished()) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the seats checked their turns"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        done.load(Ordering::SeqCst),
        4,
        "{PER_SEAT} previewed turns per seat"
    );
    for t in &tasks {
        t.abort();
    }
    let mut met: HashMap<String, usize> = HashMap::new();
    for c in codes.lock().unwrap().iter() {
        *met.entry(c.clone()).or_default() += 1;
    }
    for code in [
        "unknown_piece",
        "royal_steps_out_of_range",
        "roll_not_in_store",
    ] {
        assert!(met.contains_key(code), "{code} met: {met:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preview_plan_agrees_with_the_resolved_turn_in_clash() {
    previews_agree_with_turns(Mode::Clash).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preview_plan_agrees_with_the_resolved_turn_in_journey() {
    previews_agree_with_turns(Mode::Journey).await;
}
