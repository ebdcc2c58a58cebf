//! The `POS` argument of the commands that take a position: every format a user may paste,
//! read by [`crate::notation::text`] (the HTTP API reads positions with the same function).

use crate::game::Position;
pub use crate::notation::text::{
    parse_position_text as parse_pos_arg, PositionTextError as PosArgError,
};

/// The roll of a command: `--dice D1 D2` when given, else the dice the position itself
/// holds (a checker-play decision), else none.
pub fn roll_arg(
    dice: Option<&[u8]>,
    state: &crate::game::MatchState,
) -> Result<Option<crate::game::Dice>, super::CliError> {
    match dice {
        Some(d) => dice_arg(d).map(Some),
        None => match state.decision {
            crate::game::Decision::Move(d) => Ok(Some(d)),
            _ => Ok(None),
        },
    }
}

/// `--dice D1 D2`.
pub fn dice_arg(dice: &[u8]) -> Result<crate::game::Dice, super::CliError> {
    match dice {
        [a, b] => Ok(crate::game::Dice::new(*a, *b)?),
        _ => Err("--dice takes two values".into()),
    }
}

/// Why `--slots` (or a missing position) was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotsError {
    /// Not a well-formed Position ID or slot list.
    Syntax(String),
    /// Well-formed but not a legal position.
    Illegal(String),
    Missing,
}

impl std::fmt::Display for SlotsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SlotsError::Syntax(s) => write!(f, "cannot parse position: {s}"),
            SlotsError::Illegal(s) => write!(f, "not a legal position: {s}"),
            SlotsError::Missing => f.write_str("a position is required (POS or --slots)"),
        }
    }
}

impl std::error::Error for SlotsError {}

/// Parses 26 comma-separated signed slot counts.
pub fn parse_slots(text: &str) -> Result<Position, SlotsError> {
    let mut slots = [0i8; 26];
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 26 {
        return Err(SlotsError::Syntax(format!(
            "expected 26 slot counts, got {}",
            parts.len()
        )));
    }
    for (i, p) in parts.iter().enumerate() {
        slots[i] = p
            .parse()
            .map_err(|_| SlotsError::Syntax(format!("bad slot count {p:?}")))?;
    }
    Position::from_slots(slots).map_err(|e| SlotsError::Illegal(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_slots() {
        let s: Vec<String> = Position::OPENING
            .slots()
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(
            parse_slots(&s.join(",")).expect("the opening slots"),
            Position::OPENING
        );
        assert!(matches!(parse_slots("1,2"), Err(SlotsError::Syntax(_))));
    }
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
