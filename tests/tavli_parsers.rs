//! The Tavli parsers never panic, whatever they are given: the request lines of UBGI and
//! the external interface, play texts, position strings and player specs. Random bytes,
//! random text with multi-byte letters, and near misses built from the grammar's words.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use stargammon::game::{Dice, Variant};
use stargammon::players::PlayerSpec;
use stargammon::protocol::tavli::{is_tavli_line, parse_request};
use stargammon::tavli::{parse_play, parse_position_string, RuleSwitches, TavliPosition};

const GAMES: [Variant; 4] = [
    Variant::Backgammon,
    Variant::Portes,
    Variant::Plakoto,
    Variant::Fevga,
];

fn everything(text: &str) {
    for v in GAMES {
        let _ = is_tavli_line(text, v);
        if let Ok(r) = parse_request(text, v) {
            // A request that reads is a position of a Tavli game, not finished.
            assert!(r.position.variant().is_tavli());
            assert!(r.position.result().is_none());
        }
        if v.is_tavli() {
            let _ = PlayerSpec::parse(text);
            let start = TavliPosition::start(v);
            let _ = parse_play(
                &start,
                Dice::new(6, 5).unwrap(),
                &RuleSwitches::default(),
                text,
            );
        }
    }
    let _ = parse_position_string(text);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        everything(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn any_text(text in "\\PC{0,120}") {
        everything(&text);
    }

    #[test]
    fn near_misses(words in prop::collection::vec(prop::sample::select(vec![
        "plakoto:", "fevga:", "portes:", "24-15", "24-15p", ":", ",", "bar-2", "1-1", "65",
        "6 5", "6-5", "0", "77", "é", "24/18", "24/18*", "(2)", "/off", "bar/", "13/7(4)",
        "net", "depth=5", "algo=star2", ",", "heuristic", "xx", "-", "25-1", "24-16",
    ]), 0..10)) {
        everything(&words.concat());
        everything(&words.join(" "));
    }
}
