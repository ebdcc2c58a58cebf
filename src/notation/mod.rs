//! Text formats around the rules core: move notations (gnubg, plain single steps, FIBS),
//! gnubg's Position ID and Match ID, eXtreme Gammon's XGID, FIBS board strings, and match
//! files (`match_file`: the game record of a file and the `.mat` reader).
//!
//! Every parser here returns a typed error and never panics: these strings come from
//! users, peers and files. Parsers that resolve a move against a position tell "cannot
//! parse" apart from "not legal here".

pub mod fibs_board;
pub mod ids;
pub mod match_file;
pub mod moves;
pub mod summary;
pub mod text;
pub mod xgid;

pub use ids::{
    decode_position_id, encode_match_state, ids_from_match_state, match_state_from_ids,
    parse_gnubg_ids, position_id, GameState, IdError, MatchId,
};
pub use moves::{
    format_play, parse_move, FibsOrientation, IllegalMove, MoveError, MoveStyle, SyntaxError,
};
pub use xgid::{Xgid, XgidDice, XgidError};

/// `text` without a leading ASCII `prefix` matched case-insensitively (`board:`, `XGID=`).
/// The comparison is on bytes, so a multi-byte character where the prefix would end is a
/// mismatch, never a slice through a character.
pub fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.as_bytes().get(..prefix.len())?;
    if !head.eq_ignore_ascii_case(prefix.as_bytes()) {
        return None;
    }
    text.get(prefix.len()..)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_match_without_case_and_never_split_a_character() {
        assert_eq!(strip_prefix_ignore_case("BOARD:a:b", "board:"), Some("a:b"));
        assert_eq!(strip_prefix_ignore_case("xgid=", "XGID="), Some(""));
        assert_eq!(strip_prefix_ignore_case("boardé:1:2", "board:"), None);
        assert_eq!(strip_prefix_ignore_case("board", "board:"), None);
        assert_eq!(strip_prefix_ignore_case("字字", "xgid="), None);
        assert_eq!(strip_prefix_ignore_case("", "x"), None);
    }
}
