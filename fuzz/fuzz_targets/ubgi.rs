//! UBGI command lines: the command parser, then the position of a board or XGID line read
//! into a match state in every way the UBGI front end may read it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stargammon::notation::fibs_board::{Convention, FibsBoard};
use stargammon::notation::Xgid;
use stargammon::protocol::ubgi::{parse_command, UbgiCommand};

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        // The front end answers a line that is not UTF-8 as unknown without parsing it.
        return;
    };
    match parse_command(line) {
        UbgiCommand::Board(b) => {
            if let Ok(board) = FibsBoard::parse(&b) {
                for c in [Convention::Fibs, Convention::Gnubg] {
                    if let Ok(state) = board.to_match_state(c) {
                        assert!(state.check().is_ok());
                    }
                }
            }
        }
        UbgiCommand::Xgid(x) => {
            if let Ok(state) = Xgid::parse(&x).and_then(|x| x.to_match_state()) {
                assert!(state.check().is_ok());
            }
        }
        _ => {}
    }
});
