//! A position as a user pastes it, in any of the formats this crate reads: one function, so
//! that every front end (the command line's `POS` arguments, the HTTP API, the board page)
//! accepts the same inputs.
//!
//! Accepted: a gnubg Position ID (`4HPwATDgc/ABMA`), a gnubg id with Match ID
//! (`4HPwATDgc/ABMA:MAELAAAAAAAA`), an XGID (`XGID=...`, prefix optional), and FIBS board
//! strings (`board:...`), read in the convention their fields show (gnubg's fixed
//! orientation when they cannot tell, as gnubg reads them).

use std::fmt;

use super::fibs_board::{detect_line_convention, parse_match_state, Convention, FibsBoardError};
use super::{parse_gnubg_ids, IdError, Xgid, XgidError};
use crate::game::MatchState;

/// Why a position text was not understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionTextError {
    /// Nothing was given.
    Empty,
    /// It looked like a gnubg id and was not a valid one.
    Gnubg(IdError),
    /// It looked like an XGID and was not a valid one.
    Xgid(XgidError),
    /// It looked like a FIBS board string and was not a valid one.
    FibsBoard(FibsBoardError),
}

impl fmt::Display for PositionTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionTextError::Empty => write!(f, "no position given"),
            PositionTextError::Gnubg(e) => write!(f, "bad gnubg id: {e}"),
            PositionTextError::Xgid(e) => write!(f, "bad XGID: {e}"),
            PositionTextError::FibsBoard(e) => write!(f, "bad FIBS board: {e}"),
        }
    }
}

impl std::error::Error for PositionTextError {}

/// The kinds of text a position can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PosFormat {
    Xgid,
    FibsBoard,
    Gnubg,
}

fn detect(text: &str) -> PosFormat {
    let head = text.get(..6).unwrap_or(text).to_ascii_lowercase();
    if head.starts_with("xgid=") {
        return PosFormat::Xgid;
    }
    if head.starts_with("board:") {
        return PosFormat::FibsBoard;
    }
    // An XGID without its prefix: 26 position characters and at least 8 more fields.
    let first = text.split(':').next().unwrap_or("");
    if first.chars().count() == 26 && text.split(':').count() >= 9 {
        return PosFormat::Xgid;
    }
    PosFormat::Gnubg
}

/// Reads a position text into the typed match state (relative to the side to act).
pub fn parse_position_text(text: &str) -> Result<MatchState, PositionTextError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(PositionTextError::Empty);
    }
    match detect(text) {
        PosFormat::Xgid => Xgid::parse(text)
            .and_then(|x| x.to_match_state())
            .map_err(PositionTextError::Xgid),
        PosFormat::FibsBoard => {
            let convention = detect_line_convention(text).unwrap_or(Convention::Gnubg);
            parse_match_state(text, convention).map_err(PositionTextError::FibsBoard)
        }
        PosFormat::Gnubg => parse_gnubg_ids(text).map_err(PositionTextError::Gnubg),
    }
}
