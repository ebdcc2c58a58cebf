//! eXtreme Gammon's position id (XGID), e.g.
//! `XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10`.
//!
//! Sources for the field definitions: the field list eXtreme Gammon documents for its
//! "XGID" export (restated by public XGID readers and by the position-posting guide at
//! backgammonforums.com/t/how-to-post-positions/153, whose example
//! `XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:1:31:6:4:1:7:10` is read in the tests), and gnubg
//! 1.07's own `set xgid` importer, against which tests/gnubg_rules.rs checks 300 random
//! XGIDs (position, cube, turn, dice, scores, Crawford flag, match length). gnubg cannot
//! import a pending double ("D"); its importer steps back to the doubler on roll, which
//! supports reading the turn field as the player on roll (the doubler) in that case too.
//!
//! ```text
//! XGID=PPPPPPPPPPPPPPPPPPPPPPPPPP:CV:CP:T:D:S1:S2:CJ:ML:MC
//! P   26 characters: [0] the top player's bar, [1..=24] points 1..24 numbered from the
//!     bottom player's side, [25] the bottom player's bar; '-' empty, 'A'..'P' 1..16
//!     bottom checkers, 'a'..'p' top checkers. The bottom player moves 24 -> 1.
//! CV  log2 of the cube value
//! CP  cube position: 1 bottom owns, -1 top owns, 0 centred
//! T   turn: 1 bottom player, -1 top player (the player on roll)
//! D   dice: "00" not rolled, two digits when rolled, "D" double offered,
//!     "B" double beavered, "R" raccooned
//! S1  bottom player's score, S2 top player's score
//! CJ  match play: 1 = this is the Crawford game; money: bit 0 Jacoby, bit 1 beaver
//! ML  match length, 0 for money
//! MC  log2 of the maximum cube (optional, usually 10)
//! ```
//!
//! gnubg's `set xgid` makes the player on roll its player 1 whichever side that is; reading
//! does the same, so [`MatchState::acting_player`] and the Match ID agree with gnubg.
//! Writing puts gnubg's player 1 at the bottom.
//!
//! The money-play rules (CJ) become [`MatchState::rules`]: gnubg takes bit 0 as its Jacoby
//! rule, which its Match ID records, so the Match ID written here agrees with gnubg's (in
//! match play gnubg records the Jacoby rule as off). A turned cube in the Crawford game is
//! refused as an impossible state (gnubg resets it to a centred 1-cube instead).

use std::fmt;

use crate::game::{
    CubeOwner, Decision, Dice, MatchState, Position, PositionError, Rules, StateError,
};

use super::ids::{may_double, post_crawford};

/// What the dice field says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum XgidDice {
    /// "00": the player on roll has not rolled.
    NotRolled,
    /// Two digits: the dice as written.
    Rolled(u8, u8),
    /// "D": the player on roll has doubled; the opponent must take or drop.
    Doubled,
    /// "B": the opponent beavered the double; the doubler must answer.
    Beavered,
    /// "R": the doubler raccooned the beaver.
    Raccooned,
}

/// Every field of an XGID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Xgid {
    /// The checkers seen from the bottom player (the bottom player is the "mover").
    pub board: Position,
    /// log2 of the cube value.
    pub cube_log2: u8,
    /// 1: bottom owns the cube, -1: top owns it, 0: centred.
    pub cube_position: i8,
    /// 1: bottom player on roll, -1: top player.
    pub turn: i8,
    pub dice: XgidDice,
    pub score_bottom: u32,
    pub score_top: u32,
    /// Crawford flag in match play; Jacoby (bit 0) and beaver (bit 1) in money play.
    pub rules: u8,
    /// 0 for money play.
    pub match_length: u32,
    /// log2 of the maximum cube, when given.
    pub max_cube_log2: Option<u32>,
}

/// Why a text is not an XGID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XgidError {
    /// Not 9 or 10 colon-separated fields.
    FieldCount(usize),
    /// The position field is not 26 characters.
    PositionLength(usize),
    /// A position character other than `-`, `A`-`P`, `a`-`p`.
    BadChecker(char),
    /// The checkers do not form a position.
    Position(PositionError),
    /// A numeric field that does not hold a valid value.
    Field { field: &'static str, text: String },
    /// A state the typed match state cannot hold (a raccoon).
    Unsupported(&'static str),
    /// The XGID describes a state no game can reach.
    State(StateError),
}

impl fmt::Display for XgidError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            XgidError::FieldCount(n) => {
                write!(f, "an XGID has 9 or 10 fields separated by ':', not {n}")
            }
            XgidError::PositionLength(n) => {
                write!(f, "the XGID position has 26 characters, not {n}")
            }
            XgidError::BadChecker(c) => {
                write!(f, "{c:?} is not an XGID checker count (-, A-P, a-p)")
            }
            XgidError::Position(e) => write!(f, "the XGID is not a position: {e}"),
            XgidError::Field { field, text } => {
                write!(f, "the XGID's {field} field {text:?} is not valid")
            }
            XgidError::Unsupported(what) => write!(f, "XGID states with {what} are not supported"),
            XgidError::State(e) => write!(f, "the XGID is not a possible state: {e}"),
        }
    }
}

impl std::error::Error for XgidError {}

fn number<T: std::str::FromStr>(field: &'static str, text: &str) -> Result<T, XgidError> {
    text.trim().parse().map_err(|_| XgidError::Field {
        field,
        text: text.to_string(),
    })
}

impl Xgid {
    /// Reads an XGID, with or without the `XGID=` prefix.
    pub fn parse(text: &str) -> Result<Xgid, XgidError> {
        let t = text.trim();
        let t = super::strip_prefix_ignore_case(t, "xgid=").unwrap_or(t);
        let fields: Vec<&str> = t.split(':').collect();
        if fields.len() != 9 && fields.len() != 10 {
            return Err(XgidError::FieldCount(fields.len()));
        }
        let chars: Vec<char> = fields[0].chars().collect();
        if chars.len() != 26 {
            return Err(XgidError::PositionLength(chars.len()));
        }
        let mut slots = [0i8; 26];
        for (i, &c) in chars.iter().enumerate() {
            slots[i] = match c {
                '-' => 0,
                'A'..='P' => (c as u8 - b'A' + 1) as i8,
                'a'..='p' => -((c as u8 - b'a' + 1) as i8),
                _ => return Err(XgidError::BadChecker(c)),
            };
        }
        let board = Position::from_slots(slots).map_err(XgidError::Position)?;
        let bad = |field: &'static str, text: &str| XgidError::Field {
            field,
            text: text.to_string(),
        };
        let cube_log2: u8 = number("cube", fields[1])?;
        if cube_log2 > 15 {
            return Err(bad("cube", fields[1]));
        }
        let cube_position: i8 = number("cube position", fields[2])?;
        if !(-1..=1).contains(&cube_position) {
            return Err(bad("cube position", fields[2]));
        }
        let turn: i8 = number("turn", fields[3])?;
        if turn != 1 && turn != -1 {
            return Err(bad("turn", fields[3]));
        }
        let dice = match fields[4].trim() {
            "00" | "0" => XgidDice::NotRolled,
            "D" | "d" => XgidDice::Doubled,
            "B" | "b" => XgidDice::Beavered,
            "R" | "r" => XgidDice::Raccooned,
            d => {
                let b = d.as_bytes();
                if b.len() != 2 || !(b'1'..=b'6').contains(&b[0]) || !(b'1'..=b'6').contains(&b[1])
                {
                    return Err(bad("dice", fields[4]));
                }
                XgidDice::Rolled(b[0] - b'0', b[1] - b'0')
            }
        };
        let score_bottom: u32 = number("bottom score", fields[5])?;
        let score_top: u32 = number("top score", fields[6])?;
        let rules: u8 = number("Crawford/Jacoby", fields[7])?;
        let match_length: u32 = number("match length", fields[8])?;
        // Money play packs two flags in the field, match play only the Crawford flag.
        if rules > 3 || (match_length > 0 && rules > 1) {
            return Err(bad("Crawford/Jacoby", fields[7]));
        }
        if match_length > 0x7fff || score_bottom > 0x7fff || score_top > 0x7fff {
            return Err(bad("match length or score", t));
        }
        let max_cube_log2 = match fields.get(9) {
            Some(m) => Some(number("maximum cube", m)?),
            None => None,
        };
        Ok(Xgid {
            board,
            cube_log2,
            cube_position,
            turn,
            dice,
            score_bottom,
            score_top,
            rules,
            match_length,
            max_cube_log2,
        })
    }

    /// The typed match state, relative to the side that must act.
    pub fn to_match_state(&self) -> Result<MatchState, XgidError> {
        let bottom_on_roll = self.turn == 1;
        let on_roll_view = if bottom_on_roll {
            self.board
        } else {
            self.board.swap()
        };
        let (decision, roller_acts) = match self.dice {
            XgidDice::NotRolled => (Decision::DoubleOrRoll, true),
            XgidDice::Rolled(a, b) => (
                Decision::Move(Dice::new(a, b).map_err(|_| XgidError::Field {
                    field: "dice",
                    text: format!("{a}{b}"),
                })?),
                true,
            ),
            XgidDice::Doubled => (Decision::TakeOrDrop, false),
            XgidDice::Beavered => (Decision::BeaverAnswer, true),
            XgidDice::Raccooned => return Err(XgidError::Unsupported("a raccoon")),
        };
        let acting_is_bottom = bottom_on_roll == roller_acts;
        let position = if roller_acts {
            on_roll_view
        } else {
            on_roll_view.swap()
        };
        let over = position.is_game_over();
        let decision = if over { Decision::GameOver } else { decision };
        let owner_is_bottom = self.cube_position == 1;
        let cube_owner = match self.cube_position {
            0 => CubeOwner::Centered,
            _ if owner_is_bottom == acting_is_bottom => CubeOwner::Me,
            _ => CubeOwner::Opponent,
        };
        let crawford = self.match_length > 0 && self.rules & 1 == 1;
        let rules = if self.match_length == 0 {
            Rules {
                jacoby: Some(self.rules & 1 == 1),
                beavers: Some(self.rules & 2 == 2),
            }
        } else {
            Rules::default()
        };
        let dice_low_first = matches!(self.dice, XgidDice::Rolled(a, b) if a < b);
        let (score, opp_score) = if acting_is_bottom {
            (self.score_bottom, self.score_top)
        } else {
            (self.score_top, self.score_bottom)
        };
        let state = MatchState {
            position,
            decision,
            cube: 1 << self.cube_log2,
            cube_owner,
            may_double: may_double(cube_owner, crawford, over),
            opp_may_double: may_double(cube_owner.swap(), crawford, over),
            match_length: self.match_length,
            score,
            opp_score,
            crawford,
            post_crawford: post_crawford(self.match_length, [score, opp_score], crawford),
            // gnubg's `set xgid` makes the player on roll its player 1.
            acting_player: roller_acts as u8,
            names: (String::new(), String::new()),
            rules,
            dice_low_first,
        };
        state.check().map_err(XgidError::State)?;
        Ok(state)
    }

    /// The XGID of a typed match state. gnubg's player 1 (`acting_player`) is the bottom
    /// player. Money play writes the state's Jacoby and beaver rules (off where it has
    /// none); the dice keep the order they were read in; the maximum cube is 10.
    pub fn from_match_state(ms: &MatchState) -> Xgid {
        let acting_is_bottom = ms.acting_player & 1 == 1;
        let (roller_acts, dice) = match ms.decision {
            Decision::Move(d) if ms.dice_low_first => (true, XgidDice::Rolled(d.low(), d.high())),
            Decision::Move(d) => (true, XgidDice::Rolled(d.high(), d.low())),
            Decision::DoubleOrRoll | Decision::GameOver => (true, XgidDice::NotRolled),
            Decision::TakeOrDrop => (false, XgidDice::Doubled),
            Decision::BeaverAnswer => (true, XgidDice::Beavered),
        };
        let bottom_on_roll = acting_is_bottom == roller_acts;
        let board = if acting_is_bottom {
            ms.position
        } else {
            ms.position.swap()
        };
        let cube_position = match ms.cube_owner {
            CubeOwner::Centered => 0,
            CubeOwner::Me if acting_is_bottom => 1,
            CubeOwner::Opponent if !acting_is_bottom => 1,
            _ => -1,
        };
        let (score_bottom, score_top) = if acting_is_bottom {
            (ms.score, ms.opp_score)
        } else {
            (ms.opp_score, ms.score)
        };
        Xgid {
            board,
            cube_log2: ms.cube.max(1).trailing_zeros().min(15) as u8,
            cube_position,
            turn: if bottom_on_roll { 1 } else { -1 },
            dice,
            score_bottom,
            score_top,
            rules: if ms.is_money() {
                ms.rules.jacoby.unwrap_or(false) as u8
                    | (ms.rules.beavers.unwrap_or(false) as u8) << 1
            } else {
                ms.crawford as u8
            },
            match_length: ms.match_length,
            max_cube_log2: Some(10),
        }
    }
}

impl fmt::Display for Xgid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("XGID=")?;
        for &c in self.board.slots() {
            let ch = match c {
                0 => '-',
                c if c > 0 => (b'A' + c as u8 - 1) as char,
                c => (b'a' + c.unsigned_abs() - 1) as char,
            };
            write!(f, "{ch}")?;
        }
        let dice = match self.dice {
            XgidDice::NotRolled => "00".to_string(),
            XgidDice::Rolled(a, b) => format!("{a}{b}"),
            XgidDice::Doubled => "D".to_string(),
            XgidDice::Beavered => "B".to_string(),
            XgidDice::Raccooned => "R".to_string(),
        };
        write!(
            f,
            ":{}:{}:{}:{}:{}:{}:{}:{}",
            self.cube_log2,
            self.cube_position,
            self.turn,
            dice,
            self.score_bottom,
            self.score_top,
            self.rules,
            self.match_length
        )?;
        if let Some(m) = self.max_cube_log2 {
            write!(f, ":{m}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_xgid() {
        let text = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10";
        let x = Xgid::parse(text).expect("valid");
        assert_eq!(x.board, Position::OPENING);
        assert_eq!(x.dice, XgidDice::Rolled(5, 2));
        assert_eq!(x.to_string(), text);
        let ms = x.to_match_state().expect("state");
        assert_eq!(ms.decision, Decision::Move(Dice::new(5, 2).expect("dice")));
        assert_eq!(ms.acting_player, 1);
        assert!(ms.is_money());
        let back = Xgid::from_match_state(&ms);
        assert_eq!(back.to_string(), text);
    }

    #[test]
    fn forum_guide_example() {
        let text = "XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:1:31:6:4:1:7:10";
        let x = Xgid::parse(text).expect("valid");
        assert_eq!(x.to_string(), text);
        let ms = x.to_match_state().expect("state");
        assert_eq!(ms.decision, Decision::Move(Dice::new(3, 1).expect("dice")));
        assert_eq!((ms.score, ms.opp_score, ms.match_length), (6, 4, 7));
        assert!(ms.crawford);
        assert!(!ms.may_double && !ms.opp_may_double);
        assert_eq!(ms.position.pips(), x.board.pips());
    }

    #[test]
    fn pending_double_is_a_take_decision_for_the_other_side() {
        let x = Xgid::parse("XGID=-b----E-C---eE---c-e----B-:1:0:1:D:0:0:0:5:10").expect("ok");
        let ms = x.to_match_state().expect("state");
        assert_eq!(ms.decision, Decision::TakeOrDrop);
        assert_eq!(ms.acting_player, 0);
        assert_eq!(Xgid::from_match_state(&ms).to_match_state(), Ok(ms));
    }

    #[test]
    fn rules_and_dice_order_are_read_and_written_back() {
        for (rules, jacoby, beavers) in [
            (0, false, false),
            (1, true, false),
            (2, false, true),
            (3, true, true),
        ] {
            let text = format!("XGID=-b----E-C---eE---c-e----B-:0:0:1:25:0:0:{rules}:0:10");
            let ms = Xgid::parse(&text)
                .and_then(|x| x.to_match_state())
                .expect("valid");
            assert_eq!(ms.rules.jacoby, Some(jacoby));
            assert_eq!(ms.rules.beavers, Some(beavers));
            assert!(ms.dice_low_first);
            assert_eq!(Xgid::from_match_state(&ms).to_string(), text);
        }
        // In match play the field is the Crawford flag alone.
        let ms = Xgid::parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:1:0:0:5:10")
            .and_then(|x| x.to_match_state())
            .expect("valid");
        assert_eq!(ms.rules, Rules::default());
        assert!(matches!(
            Xgid::parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:1:0:2:5:10"),
            Err(XgidError::Field { .. })
        ));
    }

    #[test]
    fn impossible_states_are_refused() {
        for text in [
            // Score 9-3 in a 3-point match.
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:9:3:0:3:10",
            // A 65-point match.
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:1:0:0:65:10",
            // A turned cube in the Crawford game.
            "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:2:0:1:3:10",
            // The Crawford flag at 0-0.
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:1:3:10",
        ] {
            let r = Xgid::parse(text).and_then(|x| x.to_match_state());
            assert!(matches!(r, Err(XgidError::State(_))), "{text}: {r:?}");
        }
    }

    #[test]
    fn rejects_bad_xgids() {
        assert!(matches!(
            Xgid::parse("XGID=abc"),
            Err(XgidError::FieldCount(1))
        ));
        assert!(matches!(
            Xgid::parse("XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:0:0:10"),
            Err(XgidError::PositionLength(25))
        ));
        assert!(matches!(
            Xgid::parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:0:0:10"),
            Err(XgidError::Field { .. })
        ));
        assert!(matches!(
            Xgid::parse("XGID=-b----E-C---eE---c-e---PB-:0:0:1:52:0:0:0:0:10"),
            Err(XgidError::Position(_))
        ));
    }
}
