//! A bgammon.org `board` event as the bot's decision: the board in the reader's numbering
//! turned into our [`Position`] and [`MatchState`], checked, and what the bot must do.
//!
//! The server turns the board round for its second player, so the reader always owns the
//! positive counts and moves from space 24 towards 1, which is exactly our mover's view:
//! spaces 1..=24 are our slots 1..=24, the reader's bar (space 26) is our slot 25, the
//! opponent's bar (space 27, negative) our slot 0, and the borne-off spaces 0 (the
//! reader's) and 25 (the opponent's, negative) are implicit in [`Position`] but checked:
//! each side must have its 15 checkers.

use std::fmt;

use super::protocol::{space_text, GameState};
use crate::game::{
    legal_plays, CubeOwner, Decision, Dice, MatchState, Play, Position, PositionError, Rules,
    StateError,
};

/// The highest cube bgammon.org allows a double below.
pub const SERVER_MAX_CUBE: u32 = 64;

/// Why a board cannot be played from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardError {
    /// The board array does not have its 28 spaces.
    Spaces(usize),
    /// Not a backgammon game (acey-deucey, tabula).
    Variant(i64),
    /// A field outside its range.
    Range {
        field: &'static str,
        value: i64,
    },
    /// A side does not have 15 checkers (own side first).
    Checkers {
        side: &'static str,
        count: i64,
    },
    Position(PositionError),
    State(StateError),
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::Spaces(n) => write!(f, "a board of {n} spaces (28 expected)"),
            BoardError::Variant(v) => write!(f, "variant {v} is not backgammon (0)"),
            BoardError::Range { field, value } => write!(f, "{field} = {value} is out of range"),
            BoardError::Checkers { side, count } => {
                write!(f, "{side} side has {count} checkers (15 expected)")
            }
            BoardError::Position(e) => write!(f, "{e}"),
            BoardError::State(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BoardError {}

/// What a board asks of the bot.
#[derive(Debug, Clone, PartialEq)]
pub enum Need {
    /// Nothing: the opponent acts, the bot waits for an answer to its double, or the
    /// opponent is not in the match.
    Wait,
    /// The opening roll (both sides roll once).
    OpeningRoll,
    /// The bot's turn before the roll without access to the cube: `roll`.
    Roll,
    /// Double or roll: the decider answers `state`.
    CubeOrRoll(Box<MatchState>),
    /// A checker play: the decider chooses among the legal plays of `state`.
    Move(Box<MatchState>),
    /// Rolled with no legal play: `ok` passes the turn.
    Pass,
    /// Steps of this turn are pending on the server (the bot's own in flight, or from
    /// before a reconnection).
    Pending,
    /// The opponent doubled: take (`ok`) or drop (`resign`).
    TakeOrDrop(Box<MatchState>),
    /// The game is over; `match_over` when the match is too.
    Over { won: bool, match_over: bool },
}

/// A checked board: the position from the reader's side and what it asks.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub position: Position,
    pub need: Need,
    /// Borne-off checkers (reader, opponent) and the score (reader, opponent).
    pub off: (i64, i64),
    pub score: (i64, i64),
}

fn range(field: &'static str, value: i64, lo: i64, hi: i64) -> Result<i64, BoardError> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(BoardError::Range { field, value })
    }
}

/// The position of a board (reader's side), after the checks of the spaces.
pub fn position(board: &[i64]) -> Result<(Position, (i64, i64)), BoardError> {
    if board.len() != 28 {
        return Err(BoardError::Spaces(board.len()));
    }
    let off = range("space 0 (borne off)", board[0], 0, 15)?;
    let opp_off = -range("space 25 (opponent's borne off)", board[25], -15, 0)?;
    let bar = range("space 26 (bar)", board[26], 0, 15)?;
    let opp_bar = -range("space 27 (opponent's bar)", board[27], -15, 0)?;
    let mut slots = [0i8; 26];
    let (mut own, mut opp) = (off + bar, opp_off + opp_bar);
    for (i, &v) in board[1..=24].iter().enumerate() {
        let v = range("a point", v, -15, 15)?;
        slots[i + 1] = v as i8;
        if v > 0 {
            own += v;
        } else {
            opp -= v;
        }
    }
    if own != 15 {
        return Err(BoardError::Checkers {
            side: "the bot's",
            count: own,
        });
    }
    if opp != 15 {
        return Err(BoardError::Checkers {
            side: "the opponent's",
            count: opp,
        });
    }
    slots[25] = bar as i8;
    slots[0] = -(opp_bar as i8);
    let p = Position::from_slots(slots).map_err(BoardError::Position)?;
    Ok((p, (off, opp_off)))
}

/// Whether `side` (1 the reader, 2 the opponent) may double as the server judges it
/// before the roll, and the cube is not dead (it would not win more than the match).
fn may_double(s: &GameState, side: i64, cube: u32, away: u32) -> bool {
    s.points != 1
        && s.crawford != 1
        && cube < SERVER_MAX_CUBE
        && (s.double_player == 0 || s.double_player == side)
        && cube < away
}

/// Reads a board event.
pub fn read(s: &GameState) -> Result<Reading, BoardError> {
    if s.variant != 0 {
        return Err(BoardError::Variant(s.variant));
    }
    let (position, off) = position(&s.board)?;
    let points = range("Points", s.points, 1, crate::game::MAX_MATCH_LENGTH as i64)? as u32;
    let score = range("Player1.Points", s.player1.points, 0, 127)?;
    let opp_score = range("Player2.Points", s.player2.points, 0, 127)?;
    let turn = range("Turn", s.turn, 0, 2)?;
    let winner = range("Winner", s.winner, 0, 2)?;
    range("Crawford", s.crawford, 0, 2)?;
    range("DoublePlayer", s.double_player, 0, 2)?;
    let cube = range(
        "DoubleValue",
        s.double_value,
        1,
        crate::game::MAX_CUBE as i64,
    )? as u32;
    if !cube.is_power_of_two() {
        return Err(BoardError::Range {
            field: "DoubleValue",
            value: s.double_value,
        });
    }
    let roll1 = range("Roll1", s.roll1, 0, 6)?;
    let roll2 = range("Roll2", s.roll2, 0, 6)?;
    let reading = |need| Reading {
        position,
        need,
        off,
        score: (score, opp_score),
    };
    if winner != 0 {
        let match_over = score >= points as i64 || opp_score >= points as i64;
        return Ok(reading(Need::Over {
            won: winner == 1,
            match_over,
        }));
    }
    if s.spectating || s.player2.name.is_empty() {
        return Ok(reading(Need::Wait));
    }
    let away = points.saturating_sub(score as u32);
    let opp_away = points.saturating_sub(opp_score as u32);
    let state = |decision| -> Result<Box<MatchState>, BoardError> {
        let m = MatchState {
            position,
            decision,
            cube,
            cube_owner: match s.double_player {
                1 => CubeOwner::Me,
                2 => CubeOwner::Opponent,
                _ => CubeOwner::Centered,
            },
            may_double: may_double(s, 1, cube, away),
            opp_may_double: may_double(s, 2, cube, opp_away),
            match_length: points,
            score: score as u32,
            opp_score: opp_score as u32,
            crawford: s.crawford == 1,
            post_crawford: s.crawford == 2,
            acting_player: 0,
            names: (s.player1.name.clone(), s.player2.name.clone()),
            rules: Rules::default(),
            dice_low_first: false,
        };
        m.check().map_err(BoardError::State)?;
        Ok(Box::new(m))
    };
    let need = match turn {
        0 if roll1 == 0 => Need::OpeningRoll,
        0 => Need::Wait,
        1 if s.double_offered => Need::Wait,
        1 if roll1 == 0 || roll2 == 0 => {
            let st = state(Decision::DoubleOrRoll)?;
            if st.may_double && !s.double_offered {
                Need::CubeOrRoll(st)
            } else {
                Need::Roll
            }
        }
        1 if s.moves.as_ref().is_some_and(|m| !m.is_empty()) => Need::Pending,
        1 => {
            let dice = Dice::new(roll1 as u8, roll2 as u8).map_err(|_| BoardError::Range {
                field: "Roll1",
                value: roll1,
            })?;
            if legal_plays(&position, dice)
                .iter()
                .all(|p| p.steps().is_empty())
            {
                Need::Pass
            } else {
                Need::Move(state(Decision::Move(dice))?)
            }
        }
        _ if s.double_offered => Need::TakeOrDrop(state(Decision::TakeOrDrop)?),
        _ => Need::Wait,
    };
    Ok(reading(need))
}

/// The `move` commands of a play, one step each in an order the server accepts.
pub fn move_commands(play: &Play) -> Vec<String> {
    play.steps()
        .iter()
        .map(|s| format!("move {}/{}", space_text(s.from), space_text(s.to)))
        .collect()
}

/// The first of the steps the server lists as available, as a `move` command (the
/// fallback when the bot's own plays keep being refused).
pub fn server_step(s: &GameState) -> Option<String> {
    let step = s.available.as_ref()?.first()?;
    let text = |v: i64| match v {
        0 => "off".to_string(),
        26 => "bar".to_string(),
        v => v.to_string(),
    };
    match step.as_slice() {
        [from, to] => Some(format!("move {}/{}", text(*from), text(*to))),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The opening board in the reader's numbering.
    fn opening() -> Vec<i64> {
        let mut b = vec![0i64; 28];
        b[24] = 2;
        b[13] = 5;
        b[8] = 3;
        b[6] = 5;
        b[1] = -2;
        b[12] = -5;
        b[17] = -3;
        b[19] = -5;
        b
    }

    fn state(turn: i64, r1: i64, r2: i64) -> GameState {
        GameState {
            player1: crate::bgammon::protocol::PlayerInfo {
                name: "BOT_star".into(),
                ..Default::default()
            },
            player2: crate::bgammon::protocol::PlayerInfo {
                name: "alice".into(),
                ..Default::default()
            },
            board: opening(),
            turn,
            roll1: r1,
            roll2: r2,
            points: 5,
            double_value: 1,
            player_number: 1,
            ..Default::default()
        }
    }

    #[test]
    fn the_opening_board_is_our_opening_position() {
        let r = read(&state(1, 3, 1)).unwrap();
        assert_eq!(r.position, Position::OPENING);
        let Need::Move(m) = r.need else {
            panic!("{:?}", r.need)
        };
        assert_eq!(m.decision, Decision::Move(Dice::new(3, 1).unwrap()));
        assert_eq!((m.match_length, m.cube, m.may_double), (5, 1, true));
        assert_eq!(read(&state(0, 0, 0)).unwrap().need, Need::OpeningRoll);
        assert_eq!(read(&state(2, 4, 2)).unwrap().need, Need::Wait);
    }

    #[test]
    fn bars_and_borne_off_checkers_map_to_our_slots() {
        let mut s = state(1, 6, 5);
        // One of ours on the bar (from 24), one of theirs on its bar (from their 1 = our 24... our 1).
        s.board[24] = 1;
        s.board[26] = 1;
        s.board[1] = -1;
        s.board[27] = -1;
        let r = read(&s).unwrap();
        assert_eq!(r.position.bar(), 1);
        assert_eq!(r.position.opp_bar(), 1);
        // Plays enter from the bar: written as bar/...
        let Need::Move(m) = r.need else { panic!() };
        let Decision::Move(d) = m.decision else {
            panic!()
        };
        let plays = legal_plays(&m.position, d);
        let cmds = move_commands(&plays[0]);
        assert!(cmds[0].starts_with("move bar/"), "{cmds:?}");
        // Borne-off checkers count towards the 15.
        let mut s = state(1, 6, 5);
        s.board[6] = 2;
        s.board[0] = 3;
        assert!(read(&s).is_ok());
        s.board[0] = 4;
        assert!(matches!(read(&s), Err(BoardError::Checkers { .. })));
    }

    #[test]
    fn impossible_boards_are_refused() {
        let mut s = state(1, 3, 1);
        s.board.pop();
        assert_eq!(read(&s), Err(BoardError::Spaces(27)));
        let mut s = state(1, 3, 1);
        s.board[26] = -1;
        assert!(matches!(read(&s), Err(BoardError::Range { .. })));
        let mut s = state(1, 9, 1);
        s.roll1 = 9;
        assert!(matches!(read(&s), Err(BoardError::Range { .. })));
        let mut s = state(1, 3, 1);
        s.variant = 2;
        assert_eq!(read(&s), Err(BoardError::Variant(2)));
        let mut s = state(1, 3, 1);
        s.double_value = 3;
        assert!(read(&s).is_err());
        let mut s = state(1, 3, 1);
        s.player1.points = 5;
        assert!(matches!(read(&s), Err(BoardError::State(_))));
    }

    #[test]
    fn cube_questions() {
        // Before our roll with the cube centred: double or roll.
        let r = read(&state(1, 0, 0)).unwrap();
        assert!(matches!(r.need, Need::CubeOrRoll(_)));
        // The opponent owns it: just roll; in the Crawford game too.
        let mut s = state(1, 0, 0);
        s.double_player = 2;
        s.double_value = 2;
        assert_eq!(read(&s).unwrap().need, Need::Roll);
        let mut s = state(1, 0, 0);
        s.crawford = 1;
        s.player2.points = 4;
        assert_eq!(read(&s).unwrap().need, Need::Roll);
        // Their double offered to us.
        let mut s = state(2, 0, 0);
        s.double_offered = true;
        let Need::TakeOrDrop(m) = read(&s).unwrap().need else {
            panic!()
        };
        assert_eq!(m.decision, Decision::TakeOrDrop);
        // Our own double pending: wait.
        let mut s = state(1, 0, 0);
        s.double_offered = true;
        assert_eq!(read(&s).unwrap().need, Need::Wait);
    }

    #[test]
    fn a_dance_passes_and_a_finished_match_is_over() {
        let mut s = state(1, 6, 6);
        // Ours on the bar against a closed board on 19..=24.
        s.board = vec![0; 28];
        s.board[26] = 1;
        s.board[6] = 14;
        for p in 19..=24 {
            s.board[p] = -2;
        }
        s.board[25] = -3;
        assert_eq!(read(&s).unwrap().need, Need::Pass);
        let mut s = state(1, 0, 0);
        s.winner = 1;
        s.player1.points = 5;
        assert_eq!(
            read(&s).unwrap().need,
            Need::Over {
                won: true,
                match_over: true
            }
        );
        let mut s = state(1, 3, 1);
        s.available = Some(vec![vec![26, 22], vec![8, 5]]);
        assert_eq!(server_step(&s).as_deref(), Some("move bar/22"));
    }
}
