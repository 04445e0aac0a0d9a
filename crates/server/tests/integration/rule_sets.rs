//! RULES.md §10 through the server's configuration (`--rules-file`, `Config::rules_file`):
//! a non-default rule set reaches every new match — its start, its turns and its
//! stored replay.

use crate::common::*;
use engine::{EndReason, RuleSet};
use protocol::ServerMsg;

/// A server whose rule set rolls 2 dice a turn (rule 4.1) and gives no exit credits
/// at the start (rule 4.2): `match_started` names that rule set (with the server's
/// clocks), turn 1 rolls exactly 2 dice and its seat holds only the credits its 6s
/// gave, and the replay stored when the clock ends the match carries the same set.
#[tokio::test]
async fn a_configured_rule_set_reaches_the_match_and_its_replay() {
    let file_rules = RuleSet {
        dice_per_turn: 2,
        start_exit_credits: 0,
        blockade_penalty_per_step: engine::rules::PerMode {
            journey: 6,
            clash: 11,
        },
        ..RuleSet::default()
    };
    let (s, clock) = start_manual(server::Config {
        rules_file: Some(file_rules.clone()),
        match_seconds: 2,
        ..test_config()
    })
    .await;
    let want = RuleSet {
        match_seconds: 2,
        turn_seconds: s.state.config().turn_seconds,
        ..file_rules
    };
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    assert_eq!(
        started[0].msg.rules, want,
        "match_started names the rule set"
    );
    let (f, _) = clients[0]
        .recv_until(|m| matches!(m, ServerMsg::TurnStarted(_)))
        .await;
    let ServerMsg::TurnStarted(t) = f.msg else {
        unreachable!()
    };
    assert_eq!(t.dice.len(), 2, "rule 4.1: dice_per_turn 2");
    let sixes = t.dice.iter().filter(|&&d| d == 6).count() as u32;
    assert_eq!(t.exit_credits, sixes, "rule 4.2: start_exit_credits 0");

    clock.set_ms(T0 + 2_000);
    let (f, _) = clients[0]
        .recv_until(|m| matches!(m, ServerMsg::MatchEnded(_)))
        .await;
    let ServerMsg::MatchEnded(end) = f.msg else {
        unreachable!()
    };
    assert_eq!(end.reason, EndReason::Clock);
    s.state.writer().flush().await;
    let doc = s.store.replay(id).await.unwrap().expect("stored");
    assert_eq!(
        doc.replay.rules, want,
        "the replay keeps the match's rule set"
    );
    engine::replay::verify(&doc.replay).expect("the replay re-plays under its rules");
}
