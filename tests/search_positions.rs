#![allow(clippy::unwrap_used)]
//! The committed search benchmark set: enough contact decisions, and reproducible from
//! the command in its header.

use stargammon::bench::search::{search_set, SEARCH_SET};
use stargammon::eval::simple::PipSigmoid;
use stargammon::game::{legal_plays, Phase};
use stargammon::search::positions::{format_set, self_play_positions};

#[test]
fn the_set_has_at_least_200_contact_decisions() {
    let set = search_set().unwrap();
    assert!(set.len() >= 200);
    for (pos, dice) in &set {
        assert_eq!(pos.phase(), Phase::Contact);
        assert!(legal_plays(pos, *dice).len() >= 2);
    }
}

#[test]
fn the_set_is_reproduced_by_its_generator() {
    let header: Vec<&str> = SEARCH_SET
        .lines()
        .take_while(|l| l.starts_with('#'))
        .collect();
    let made_with = header.iter().find(|l| l.contains("--generate")).unwrap();
    // Regenerate only when the set was made with the evaluator available to tests.
    if made_with.contains("--eval pip-sigmoid") {
        let set = search_set().unwrap();
        let again = self_play_positions(&PipSigmoid, 1, set.len(), 3);
        assert_eq!(
            format_set(&again, ""),
            format_set(&set, ""),
            "the committed set differs from `{made_with}`"
        );
    }
}
