//! The `POS` argument of the commands that take a position: one function reads every
//! format a user may paste, so all commands accept the same inputs.
//!
//! Accepted: a gnubg Position ID (`4HPwATDgc/ABMA`), a gnubg id with Match ID
//! (`4HPwATDgc/ABMA:MAELAAAAAAAA`), an XGID (`XGID=...`, prefix optional), and FIBS board
//! strings (`board:...`), read in the convention their fields show (gnubg's fixed
//! orientation when they cannot tell, as gnubg reads them).

use std::fmt;

use crate::game::MatchState;
use crate::notation::fibs_board::{
    detect_line_convention, parse_match_state, Convention, FibsBoardError,
};
use crate::notation::{parse_gnubg_ids, IdError, Xgid, XgidError};

/// Why a `POS` argument was not understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PosArgError {
    /// Nothing was given.
    Empty,
    /// It looked like a gnubg id and was not a valid one.
    Gnubg(IdError),
    /// It looked like an XGID and was not a valid one.
    Xgid(XgidError),
    /// It looked like a FIBS board string and was not a valid one.
    FibsBoard(FibsBoardError),
}

impl fmt::Display for PosArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PosArgError::Empty => write!(f, "no position given"),
            PosArgError::Gnubg(e) => write!(f, "bad gnubg id: {e}"),
            PosArgError::Xgid(e) => write!(f, "bad XGID: {e}"),
            PosArgError::FibsBoard(e) => write!(f, "bad FIBS board: {e}"),
        }
    }
}

impl std::error::Error for PosArgError {}

/// The kinds of text a `POS` argument can be.
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

/// Reads a `POS` argument into the typed match state (relative to the side to act).
pub fn parse_pos_arg(text: &str) -> Result<MatchState, PosArgError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(PosArgError::Empty);
    }
    match detect(text) {
        PosFormat::Xgid => Xgid::parse(text)
            .and_then(|x| x.to_match_state())
            .map_err(PosArgError::Xgid),
        PosFormat::FibsBoard => {
            let convention = detect_line_convention(text).unwrap_or(Convention::Gnubg);
            parse_match_state(text, convention).map_err(PosArgError::FibsBoard)
        }
        PosFormat::Gnubg => parse_gnubg_ids(text).map_err(PosArgError::Gnubg),
    }
}

/// The roll of a command: `--dice D1 D2` when given, else the dice the position itself
/// holds (a checker-play decision), else none.
pub fn roll_arg(
    dice: Option<&[u8]>,
    state: &crate::game::MatchState,
) -> Result<Option<crate::game::Dice>, super::CliError> {
    match dice {
        Some([a, b]) => Ok(Some(crate::game::Dice::new(*a, *b)?)),
        Some(_) => Err("--dice takes two values".into()),
        None => match state.decision {
            crate::game::Decision::Move(d) => Ok(Some(d)),
            _ => Ok(None),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Decision, Position};

    #[test]
    fn reads_every_format() {
        let a = parse_pos_arg("4HPwATDgc/ABMA").expect("position id");
        assert_eq!(a.position, Position::OPENING);
        assert_eq!(a.decision, Decision::DoubleOrRoll);
        let b = parse_pos_arg(" 4HPwATDgc/ABMA:MAELAAAAAAAA ").expect("gnubg id");
        assert!(matches!(b.decision, Decision::Move(_)));
        let c = parse_pos_arg("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10").expect("xgid");
        assert_eq!(c.position, Position::OPENING);
        let d = parse_pos_arg("-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10").expect("bare xgid");
        assert_eq!(d, c);
        // Real FIBS: you are O, on roll with 6-2 in a 3-point match.
        let e = parse_pos_arg("board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
            .expect("fibs board");
        assert_eq!(e.position, Position::OPENING);
        assert_eq!(e.match_length, 3);
        assert!(matches!(e.decision, Decision::Move(d) if d.high() == 6 && d.low() == 2));
        // gnubg's writer: P0 with two checkers on the bar, 5-point match, 2-3 to play.
        let f = parse_pos_arg("board:gnubg:root:5:0:0:-2:-1:0:1:0:0:4:0:4:0:0:0:-4:4:0:0:0:-3:1:-5:0:0:1:0:0:0:-1:2:3:2:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
            .expect("gnubg board");
        assert_eq!(f.position.bar(), 2);
    }

    #[test]
    fn errors_name_the_format() {
        assert_eq!(parse_pos_arg("  "), Err(PosArgError::Empty));
        assert!(matches!(parse_pos_arg("hello"), Err(PosArgError::Gnubg(_))));
        assert!(matches!(
            parse_pos_arg("XGID=-b--:0"),
            Err(PosArgError::Xgid(_))
        ));
        assert!(matches!(
            parse_pos_arg("board:You:x:3"),
            Err(PosArgError::FibsBoard(_))
        ));
    }
}
