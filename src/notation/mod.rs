//! Text formats around the rules core: board strings, move notations (gnubg, plain single
//! steps, FIBS), gnubg's Position ID and Match ID, and eXtreme Gammon's XGID.
//!
//! Every parser here returns a typed error and never panics: these strings come from
//! users, peers and files. Parsers that resolve a move against a position tell "cannot
//! parse" apart from "not legal here".

pub mod fibs_board;
pub mod ids;
pub mod moves;
pub mod xgid;

pub use ids::{
    decode_position_id, encode_match_state, ids_from_match_state, match_state_from_ids,
    parse_gnubg_ids, position_id, GameState, IdError, MatchId,
};
pub use moves::{
    format_play, parse_move, FibsOrientation, IllegalMove, MoveError, MoveStyle, SyntaxError,
};
pub use xgid::{Xgid, XgidDice, XgidError};
