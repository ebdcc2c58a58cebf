//! FIBS board records (`board:...`) in both conventions: parse, read as a match state, write
//! back. A record that parses must write a line that parses to the same record (names with
//! `:`, whitespace or NUL written with `_` instead, as the writer keeps a line one line), and
//! a state read from it must write a record that reads back to the same state.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stargammon::notation::fibs_board::{
    detect_convention, detect_line_convention, parse_match_state, Convention, FibsBoard,
};

/// A name as the writer puts it in a line.
fn written_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c == ':' || c.is_whitespace() || c == '\0' {
                '_'
            } else {
                c
            }
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let line = stargammon_fuzz::text(data);
    let _ = detect_line_convention(&line);
    for c in [Convention::Fibs, Convention::Gnubg] {
        let _ = parse_match_state(&line, c);
    }
    let Ok(board) = FibsBoard::parse(&line) else {
        return;
    };
    let _ = detect_convention(&board);
    let _ = board.seat();
    let again = FibsBoard::parse(&board.to_line()).expect("a written record parses");
    let mut expected = board.clone();
    expected.player = written_name(&board.player);
    expected.opponent = written_name(&board.opponent);
    assert_eq!(
        again, expected,
        "the record changed on the way through its line"
    );
    for c in [Convention::Fibs, Convention::Gnubg] {
        let Ok(state) = board.to_match_state(c) else {
            continue;
        };
        assert!(state.check().is_ok(), "an accepted state fails its check");
        if let Ok(written) = FibsBoard::from_match_state(&state, c, board.seat()) {
            let back =
                parse_match_state(&written.to_line(), c).expect("a written state reads back");
            assert_eq!(back.position, state.position);
            assert_eq!(back.decision, state.decision);
        }
    }
});
