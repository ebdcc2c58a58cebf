//! Text formats around the rules core: board strings, move notations, position ids.

pub mod fibs_board;
