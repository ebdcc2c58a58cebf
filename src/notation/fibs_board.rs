//! FIBS board strings (`board:...`, FIBS "boardstyle 3"), in both conventions that occur in
//! practice.
//!
//! A board line has 53 colon-separated tokens (token 0 is the literal `board`). Two writers
//! produce them with different meanings for the same fields, and both reach this project:
//!
//! - [`Convention::Fibs`]: a real FIBS server. Everything is from "your" perspective: names,
//!   scores, dice pairs, may-double flags and the off/bar counts are (you, opponent); colour and
//!   direction say which sign and which way round the board are yours. Money play has match
//!   length 9999. Token 51 is "did Crawford", token 52 the redouble limit.
//! - [`Convention::Gnubg`]: GNU Backgammon 1.07 writing boards for its external players. The
//!   orientation is fixed (colour +1, direction -1, positive checkers = player 1, who moves
//!   24 -> 1), money play has length 0, both dice pairs carry the roll, token 38/39 are the cube
//!   access of (P1, P0), token 51 is "post-Crawford" and token 52 is 0 in the Crawford game. Names
//!   and scores are (P0, P1) on move questions and (P1, P0) on take questions; the rule that
//!   holds in every case is that the acting side's score is token 4 when turn is -1, else token 5.
//!
//! Parsing happens in two steps, so that "cannot parse" and "not a consistent game" stay apart:
//! [`FibsBoard::parse`] reads the tokens into a typed record (every field range-checked), and
//! [`FibsBoard::to_match_state`] interprets the record in a convention as a
//! [`MatchState`] seen from the acting side. The way back is
//! [`FibsBoard::from_match_state`] and [`FibsBoard::to_line`]. Which convention a line follows is
//! an explicit argument; [`detect_convention`] decides it where the fields make it unambiguous.

use std::fmt;

use crate::game::{
    legal_plays, CubeOwner, Decision, Dice, MatchState, Position, PositionError, Rules, StateError,
    CHECKERS,
};

/// Number of colon-separated tokens in a board line, `board` included.
pub const TOKENS: usize = 53;

/// The match length FIBS writes for unlimited (money) matches.
pub const FIBS_MONEY_LENGTH: u32 = 9999;

/// Which writer's meaning the fields of a board line carry (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Convention {
    /// A real FIBS server: everything from "your" perspective.
    Fibs,
    /// GNU Backgammon's writer for external players: fixed orientation, P1 positive.
    Gnubg,
}

impl fmt::Display for Convention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Convention::Fibs => "fibs",
            Convention::Gnubg => "gnubg",
        })
    }
}

/// Why a line is not a board, or not a consistent game in the chosen convention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FibsBoardError {
    /// The line does not start with `board:`.
    NotABoard,
    /// The line has the wrong number of tokens.
    TokenCount { found: usize },
    /// A token that must be a number is not one.
    NotANumber { token: usize, text: String },
    /// A number outside the range its field allows.
    OutOfRange { token: usize, value: i64 },
    /// The checkers do not form a position (too many checkers, wrong side on a bar, ...).
    Position(PositionError),
    /// One die is set and the other is not.
    HalfRolled { token: usize },
    /// The cube value is not a power of two.
    CubeValue(u32),
    /// A match score reaches the match length.
    ScoreBeyondMatch { score: u32, length: u32 },
    /// The gnubg convention always writes colour +1, direction -1, home 0, bar 25.
    NotGnubgOrientation,
    /// A double is pending while dice are showing.
    DoubledWithDice,
    /// The state cannot be written in this convention (e.g. an opponent's take decision
    /// on a FIBS board, which FIBS never shows).
    Unrepresentable(&'static str),
    /// The board describes a state no game can reach.
    State(StateError),
}

impl FibsBoardError {
    /// True when the line could not be read at all (as opposed to read but inconsistent).
    pub fn is_syntax(&self) -> bool {
        matches!(
            self,
            FibsBoardError::NotABoard
                | FibsBoardError::TokenCount { .. }
                | FibsBoardError::NotANumber { .. }
                | FibsBoardError::OutOfRange { .. }
        )
    }
}

impl fmt::Display for FibsBoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FibsBoardError::NotABoard => write!(f, "a board line starts with `board:`"),
            FibsBoardError::TokenCount { found } => {
                write!(f, "a board has {TOKENS} tokens, this one has {found}")
            }
            FibsBoardError::NotANumber { token, text } => {
                write!(f, "token {token} should be a number, not `{text}`")
            }
            FibsBoardError::OutOfRange { token, value } => {
                write!(f, "token {token} is out of range: {value}")
            }
            FibsBoardError::Position(e) => write!(f, "not a backgammon position: {e}"),
            FibsBoardError::HalfRolled { token } => {
                write!(f, "dice at token {token}: one die set and the other not")
            }
            FibsBoardError::CubeValue(v) => write!(f, "cube value {v} is not a power of two"),
            FibsBoardError::ScoreBeyondMatch { score, length } => {
                write!(f, "score {score} reaches the match length {length}")
            }
            FibsBoardError::NotGnubgOrientation => write!(
                f,
                "gnubg boards have colour 1, direction -1, home 0 and bar 25"
            ),
            FibsBoardError::DoubledWithDice => write!(f, "a double is pending while dice show"),
            FibsBoardError::Unrepresentable(what) => {
                write!(f, "cannot be written as a board in this convention: {what}")
            }
            FibsBoardError::State(e) => write!(f, "not a possible game state: {e}"),
        }
    }
}

impl std::error::Error for FibsBoardError {}

impl From<PositionError> for FibsBoardError {
    fn from(e: PositionError) -> Self {
        FibsBoardError::Position(e)
    }
}

/// Every field of a board line, typed and range-checked but not interpreted. The field names
/// follow real FIBS; their meaning in the gnubg convention is in the module docs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FibsBoard {
    /// Token 1.
    pub player: String,
    /// Token 2.
    pub opponent: String,
    /// Token 3 (9999 or 0 for money, by convention).
    pub match_length: u32,
    /// Token 4.
    pub player_score: u32,
    /// Token 5.
    pub opponent_score: u32,
    /// Tokens 6..=31: board[0..=25]; 0 and 25 are the bars.
    pub board: [i8; 26],
    /// Token 32: -1 X (negative) to act, +1 O (positive), 0 game over.
    pub turn: i8,
    /// Tokens 33, 34.
    pub player_dice: [u8; 2],
    /// Tokens 35, 36.
    pub opponent_dice: [u8; 2],
    /// Token 37.
    pub cube: u32,
    /// Token 38.
    pub player_may_double: bool,
    /// Token 39.
    pub opponent_may_double: bool,
    /// Token 40: a double is pending. gnubg writes the doubler's sign (-1 or 1).
    pub was_doubled: i8,
    /// Token 41: -1 X, +1 O.
    pub colour: i8,
    /// Token 42: -1 moves 24 -> 1, +1 moves 1 -> 24.
    pub direction: i8,
    /// Token 43 (obsolete; 0 or 25).
    pub home: u8,
    /// Token 44 (obsolete; 25 or 0).
    pub bar: u8,
    /// Token 45.
    pub player_off: u8,
    /// Token 46.
    pub opponent_off: u8,
    /// Token 47.
    pub player_bar: u8,
    /// Token 48.
    pub opponent_bar: u8,
    /// Token 49: checkers the player can move with this roll.
    pub can_move: u8,
    /// Token 50.
    pub forced: u8,
    /// Token 51: FIBS "did Crawford", gnubg "post-Crawford".
    pub did_crawford: u8,
    /// Token 52: FIBS redouble limit, gnubg "not the Crawford game".
    pub redoubles: u32,
}

/// A state read from a board, refused when no game can reach it.
fn checked(state: MatchState) -> Result<MatchState, FibsBoardError> {
    state.check().map_err(FibsBoardError::State)?;
    Ok(state)
}

/// Which side of a real FIBS board "you" are: the two fields that fix the orientation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FibsSeat {
    /// -1 (X, negative checkers) or +1 (O, positive checkers).
    pub colour: i8,
    /// -1: you move 24 -> 1 on the board array; +1: you move 1 -> 24.
    pub direction: i8,
}

impl Default for FibsSeat {
    /// O moving 24 -> 1, the orientation gnubg also uses.
    fn default() -> Self {
        FibsSeat {
            colour: 1,
            direction: -1,
        }
    }
}

fn parse_int(tokens: &[&str], token: usize) -> Result<i64, FibsBoardError> {
    let text = tokens[token].trim();
    text.parse::<i64>().map_err(|_| FibsBoardError::NotANumber {
        token,
        text: text.chars().take(32).collect(),
    })
}

fn ranged(tokens: &[&str], token: usize, lo: i64, hi: i64) -> Result<i64, FibsBoardError> {
    let v = parse_int(tokens, token)?;
    if v < lo || v > hi {
        return Err(FibsBoardError::OutOfRange { token, value: v });
    }
    Ok(v)
}

fn flag(tokens: &[&str], token: usize) -> Result<bool, FibsBoardError> {
    Ok(ranged(tokens, token, 0, 1)? == 1)
}

fn sign(tokens: &[&str], token: usize) -> Result<i8, FibsBoardError> {
    let v = ranged(tokens, token, -1, 1)?;
    if v == 0 {
        return Err(FibsBoardError::OutOfRange { token, value: 0 });
    }
    Ok(v as i8)
}

/// Largest match length or score a token may hold (FIBS writes 9999 for money); a match
/// longer than gnubg's 64 points is refused when the board is read as a state.
const MAX_SCORE: i64 = 9999;
/// Largest cube value accepted.
const MAX_CUBE: i64 = 1 << 15;

impl FibsBoard {
    /// Reads a board line. Surrounding whitespace, a trailing `\r`, `\n` and gnubg's NUL
    /// terminator are ignored.
    pub fn parse(line: &str) -> Result<FibsBoard, FibsBoardError> {
        let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        let Some(rest) = line.strip_prefix("board:") else {
            return Err(FibsBoardError::NotABoard);
        };
        let mut tokens: Vec<&str> = Vec::with_capacity(TOKENS);
        tokens.push("board");
        tokens.extend(rest.split(':'));
        if tokens.len() != TOKENS {
            return Err(FibsBoardError::TokenCount {
                found: tokens.len(),
            });
        }
        let mut board = [0i8; 26];
        for (i, b) in board.iter_mut().enumerate() {
            *b = ranged(&tokens, 6 + i, -(CHECKERS as i64), CHECKERS as i64)? as i8;
        }
        let die = |t: usize| -> Result<u8, FibsBoardError> { Ok(ranged(&tokens, t, 0, 6)? as u8) };
        let count = |t: usize| -> Result<u8, FibsBoardError> {
            Ok(ranged(&tokens, t, 0, CHECKERS as i64)? as u8)
        };
        let home_or_bar = |t: usize| -> Result<u8, FibsBoardError> {
            let v = ranged(&tokens, t, 0, 25)?;
            if v != 0 && v != 25 {
                return Err(FibsBoardError::OutOfRange { token: t, value: v });
            }
            Ok(v as u8)
        };
        Ok(FibsBoard {
            player: tokens[1].to_string(),
            opponent: tokens[2].to_string(),
            match_length: ranged(&tokens, 3, 0, MAX_SCORE)? as u32,
            player_score: ranged(&tokens, 4, 0, MAX_SCORE)? as u32,
            opponent_score: ranged(&tokens, 5, 0, MAX_SCORE)? as u32,
            board,
            turn: ranged(&tokens, 32, -1, 1)? as i8,
            player_dice: [die(33)?, die(34)?],
            opponent_dice: [die(35)?, die(36)?],
            cube: ranged(&tokens, 37, 1, MAX_CUBE)? as u32,
            player_may_double: flag(&tokens, 38)?,
            opponent_may_double: flag(&tokens, 39)?,
            was_doubled: ranged(&tokens, 40, -1, 1)? as i8,
            colour: sign(&tokens, 41)?,
            direction: sign(&tokens, 42)?,
            home: home_or_bar(43)?,
            bar: home_or_bar(44)?,
            player_off: count(45)?,
            opponent_off: count(46)?,
            player_bar: count(47)?,
            opponent_bar: count(48)?,
            can_move: ranged(&tokens, 49, 0, 4)? as u8,
            forced: ranged(&tokens, 50, 0, 1)? as u8,
            did_crawford: ranged(&tokens, 51, 0, 3)? as u8,
            redoubles: ranged(&tokens, 52, 0, MAX_SCORE)? as u32,
        })
    }

    /// Writes the 53 tokens back (no line terminator). Names have `:` and whitespace
    /// replaced by `_` so the line stays one line of 53 tokens.
    pub fn to_line(&self) -> String {
        use std::fmt::Write;
        let clean = |s: &str| -> String {
            s.chars()
                .map(|c| {
                    if c == ':' || c.is_whitespace() || c == '\0' {
                        '_'
                    } else {
                        c
                    }
                })
                .collect()
        };
        let mut s = String::with_capacity(160);
        let _ = write!(
            s,
            "board:{}:{}:{}:{}:{}",
            clean(&self.player),
            clean(&self.opponent),
            self.match_length,
            self.player_score,
            self.opponent_score
        );
        for b in self.board {
            let _ = write!(s, ":{b}");
        }
        let _ = write!(
            s,
            ":{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}",
            self.turn,
            self.player_dice[0],
            self.player_dice[1],
            self.opponent_dice[0],
            self.opponent_dice[1],
            self.cube,
            self.player_may_double as u8,
            self.opponent_may_double as u8,
            self.was_doubled,
            self.colour,
            self.direction,
            self.home,
            self.bar,
            self.player_off,
            self.opponent_off,
            self.player_bar,
            self.opponent_bar,
            self.can_move,
            self.forced,
            self.did_crawford,
            self.redoubles,
        );
        s
    }

    /// The board seen by side `s` (sign +1 or -1) moving 24 -> 1 (`down`) or 1 -> 24: the
    /// position in [`Position`]'s layout with `s` as the mover.
    fn position_for(&self, s: i8, down: bool) -> Result<Position, FibsBoardError> {
        let mut slots = [0i8; 26];
        for (i, slot) in slots.iter_mut().enumerate() {
            let b = if down {
                self.board[i]
            } else {
                self.board[25 - i]
            };
            *slot = s * b;
        }
        Ok(Position::from_slots(slots)?)
    }

    /// Writes `pos` (mover = side `s`, moving 24 -> 1 when `down`) into the board array.
    fn set_position(&mut self, pos: &Position, s: i8, down: bool) {
        let slots = pos.slots();
        for j in 0..26 {
            self.board[j] = if down {
                s * slots[j]
            } else {
                s * slots[25 - j]
            };
        }
    }

    fn check_scores(length: u32, a: u32, b: u32) -> Result<(), FibsBoardError> {
        if length > 0 {
            for score in [a, b] {
                if score >= length {
                    return Err(FibsBoardError::ScoreBeyondMatch { score, length });
                }
            }
        }
        Ok(())
    }

    /// Interprets the record in `convention` as a match state seen from the acting side.
    pub fn to_match_state(&self, convention: Convention) -> Result<MatchState, FibsBoardError> {
        if !self.cube.is_power_of_two() {
            return Err(FibsBoardError::CubeValue(self.cube));
        }
        match convention {
            Convention::Gnubg => self.gnubg_state(),
            Convention::Fibs => self.fibs_state(),
        }
    }

    fn dice_of(pair: [u8; 2], token: usize) -> Result<Option<Dice>, FibsBoardError> {
        match pair {
            [0, 0] => Ok(None),
            [a, b] if a == 0 || b == 0 => Err(FibsBoardError::HalfRolled { token }),
            [a, b] => Dice::new(a, b)
                .map(Some)
                .map_err(|_| FibsBoardError::HalfRolled { token }),
        }
    }

    fn gnubg_state(&self) -> Result<MatchState, FibsBoardError> {
        if self.colour != 1 || self.direction != -1 || self.home != 0 || self.bar != 25 {
            return Err(FibsBoardError::NotGnubgOrientation);
        }
        let dice = Self::dice_of(self.player_dice, 33)?;
        let doubled = self.was_doubled != 0;
        // The acting side's sign: the roller, or the taker when a double is pending.
        let (decision, acting) = match (self.turn, dice, doubled) {
            (0, _, _) => (Decision::GameOver, -1),
            (t, Some(_), true) => {
                let _ = t;
                return Err(FibsBoardError::DoubledWithDice);
            }
            (t, Some(d), false) => (Decision::Move(d), t),
            (t, None, false) => (Decision::DoubleOrRoll, t),
            (t, None, true) => (Decision::TakeOrDrop, -t),
        };
        // P1 (positive) moves 24 -> 1 in the fixed orientation, P0 (negative) 1 -> 24.
        let position = self.position_for(acting, acting == 1)?;
        let acting_first = self.turn <= 0;
        let (score, opp_score) = if acting_first {
            (self.player_score, self.opponent_score)
        } else {
            (self.opponent_score, self.player_score)
        };
        let names = if acting_first {
            (self.player.clone(), self.opponent.clone())
        } else {
            (self.opponent.clone(), self.player.clone())
        };
        let match_length = self.match_length;
        Self::check_scores(match_length, score, opp_score)?;
        // Token 38 is P1's cube access, token 39 P0's.
        let (my_access, opp_access) = if acting == 1 {
            (self.player_may_double, self.opponent_may_double)
        } else {
            (self.opponent_may_double, self.player_may_double)
        };
        let cube_owner = owner_from_access(self.cube, my_access, opp_access);
        let crawford = match_length > 0 && self.redoubles == 0;
        let post_crawford = match_length > 0 && self.did_crawford != 0;
        checked(MatchState {
            position,
            decision,
            cube: self.cube,
            cube_owner,
            may_double: my_access && !crawford,
            opp_may_double: opp_access && !crawford,
            match_length,
            score,
            opp_score,
            crawford,
            post_crawford,
            acting_player: if acting == 1 { 1 } else { 0 },
            names,
            rules: Rules::default(),
            dice_low_first: false,
        })
    }

    fn fibs_state(&self) -> Result<MatchState, FibsBoardError> {
        let match_length = if self.match_length == FIBS_MONEY_LENGTH {
            0
        } else {
            self.match_length
        };
        Self::check_scores(match_length, self.player_score, self.opponent_score)?;
        let you = self.colour;
        let doubled = self.was_doubled != 0;
        // Who acts: you when a double is pending against you or it is your turn.
        let (you_act, decision) = if self.turn == 0 {
            (true, Decision::GameOver)
        } else if doubled {
            if Self::dice_of(self.player_dice, 33)?.is_some() {
                return Err(FibsBoardError::DoubledWithDice);
            }
            (true, Decision::TakeOrDrop)
        } else if self.turn == you {
            match Self::dice_of(self.player_dice, 33)? {
                Some(d) => (true, Decision::Move(d)),
                None => (true, Decision::DoubleOrRoll),
            }
        } else {
            match Self::dice_of(self.opponent_dice, 35)? {
                Some(d) => (false, Decision::Move(d)),
                None => (false, Decision::DoubleOrRoll),
            }
        };
        let (s, down) = if you_act {
            (you, self.direction == -1)
        } else {
            (-you, self.direction == 1)
        };
        let position = self.position_for(s, down)?;
        let (score, opp_score, names, my_flag, opp_flag) = if you_act {
            (
                self.player_score,
                self.opponent_score,
                (self.player.clone(), self.opponent.clone()),
                self.player_may_double,
                self.opponent_may_double,
            )
        } else {
            (
                self.opponent_score,
                self.player_score,
                (self.opponent.clone(), self.player.clone()),
                self.opponent_may_double,
                self.player_may_double,
            )
        };
        let one_away =
            match_length > 0 && (match_length - score == 1 || match_length - opp_score == 1);
        let post_crawford = match_length > 0 && self.did_crawford != 0;
        let crawford = one_away && !post_crawford;
        // FIBS clears both flags while a double is pending; the cube then belongs to the
        // doubler unless it is still the centred 1-cube.
        let cube_owner = if decision == Decision::TakeOrDrop && !my_flag && !opp_flag {
            if self.cube == 1 {
                CubeOwner::Centered
            } else {
                CubeOwner::Opponent
            }
        } else {
            owner_from_access(self.cube, my_flag, opp_flag)
        };
        checked(MatchState {
            position,
            decision,
            cube: self.cube,
            cube_owner,
            may_double: my_flag && !crawford,
            opp_may_double: opp_flag && !crawford,
            match_length,
            score,
            opp_score,
            crawford,
            post_crawford,
            acting_player: if you_act { 0 } else { 1 },
            names,
            rules: Rules::default(),
            dice_low_first: false,
        })
    }

    /// Writes a match state as a board record in `convention`. For [`Convention::Fibs`],
    /// `seat` fixes your colour and direction; `state.acting_player` says whether the acting
    /// side is you (0) or your opponent (1). For [`Convention::Gnubg`] the seat is ignored and
    /// `state.acting_player` is gnubg's player number.
    pub fn from_match_state(
        state: &MatchState,
        convention: Convention,
        seat: FibsSeat,
    ) -> Result<FibsBoard, FibsBoardError> {
        match convention {
            Convention::Gnubg => Ok(Self::gnubg_from(state)),
            Convention::Fibs => Self::fibs_from(state, seat),
        }
    }

    fn blank() -> FibsBoard {
        FibsBoard {
            player: String::new(),
            opponent: String::new(),
            match_length: 0,
            player_score: 0,
            opponent_score: 0,
            board: [0; 26],
            turn: 0,
            player_dice: [0, 0],
            opponent_dice: [0, 0],
            cube: 1,
            player_may_double: false,
            opponent_may_double: false,
            was_doubled: 0,
            colour: 1,
            direction: -1,
            home: 0,
            bar: 25,
            player_off: 0,
            opponent_off: 0,
            player_bar: 0,
            opponent_bar: 0,
            can_move: 0,
            forced: 0,
            did_crawford: 0,
            redoubles: 0,
        }
    }

    fn gnubg_from(state: &MatchState) -> FibsBoard {
        let mut b = FibsBoard::blank();
        let acting: i8 = if state.acting_player == 1 { 1 } else { -1 };
        b.set_position(&state.position, acting, acting == 1);
        b.turn = match state.decision {
            Decision::GameOver => 0,
            Decision::TakeOrDrop => -acting,
            Decision::Move(_) | Decision::DoubleOrRoll | Decision::BeaverAnswer => acting,
        };
        if let Decision::Move(d) = state.decision {
            b.player_dice = [d.high(), d.low()];
            b.opponent_dice = b.player_dice;
        }
        let acting_first = b.turn <= 0;
        let (n1, n2, s1, s2) = if acting_first {
            (&state.names.0, &state.names.1, state.score, state.opp_score)
        } else {
            (&state.names.1, &state.names.0, state.opp_score, state.score)
        };
        b.player = n1.clone();
        b.opponent = n2.clone();
        b.player_score = s1;
        b.opponent_score = s2;
        b.match_length = state.match_length;
        b.cube = state.cube;
        let my_access = state.cube_owner != CubeOwner::Opponent;
        let opp_access = state.cube_owner != CubeOwner::Me;
        let (p1, p0) = if acting == 1 {
            (my_access, opp_access)
        } else {
            (opp_access, my_access)
        };
        b.player_may_double = p1;
        b.opponent_may_double = p0;
        b.was_doubled = match state.decision {
            Decision::TakeOrDrop | Decision::BeaverAnswer => b.turn,
            _ => 0,
        };
        // Token 45 counts P1's (positive) borne-off checkers, token 46 P0's.
        let (mine_off, theirs_off) = (state.position.off(), state.position.opp_off());
        let (p1_off, p0_off) = if acting == 1 {
            (mine_off, theirs_off)
        } else {
            (theirs_off, mine_off)
        };
        b.player_off = p1_off;
        b.opponent_off = p0_off;
        let is_match = state.match_length > 0;
        b.did_crawford = (is_match && state.post_crawford) as u8;
        b.redoubles = if is_match && state.crawford { 0 } else { 1 };
        b
    }

    fn fibs_from(state: &MatchState, seat: FibsSeat) -> Result<FibsBoard, FibsBoardError> {
        let mut b = FibsBoard::blank();
        let you_act = state.acting_player == 0;
        if !you_act
            && matches!(
                state.decision,
                Decision::TakeOrDrop | Decision::BeaverAnswer | Decision::GameOver
            )
        {
            return Err(FibsBoardError::Unrepresentable(
                "FIBS boards only show your own pending double and game end",
            ));
        }
        if state.decision == Decision::BeaverAnswer {
            return Err(FibsBoardError::Unrepresentable("FIBS has no beavers"));
        }
        b.colour = seat.colour;
        b.direction = seat.direction;
        b.home = if seat.direction == -1 { 0 } else { 25 };
        b.bar = 25 - b.home;
        let (s, down) = if you_act {
            (seat.colour, seat.direction == -1)
        } else {
            (-seat.colour, seat.direction == 1)
        };
        b.set_position(&state.position, s, down);
        let (yours, theirs) = if you_act {
            (state.position, state.position.swap())
        } else {
            (state.position.swap(), state.position)
        };
        b.player_off = yours.off();
        b.opponent_off = yours.opp_off();
        b.player_bar = yours.bar();
        b.opponent_bar = theirs.bar();
        let (you_name, opp_name, you_score, opp_score, you_flag, opp_flag) = if you_act {
            (
                &state.names.0,
                &state.names.1,
                state.score,
                state.opp_score,
                state.may_double,
                state.opp_may_double,
            )
        } else {
            (
                &state.names.1,
                &state.names.0,
                state.opp_score,
                state.score,
                state.opp_may_double,
                state.may_double,
            )
        };
        b.player = you_name.clone();
        b.opponent = opp_name.clone();
        b.player_score = you_score;
        b.opponent_score = opp_score;
        // FIBS clears both may-double flags while a double is pending.
        let pending = state.decision == Decision::TakeOrDrop;
        b.player_may_double = you_flag && !pending;
        b.opponent_may_double = opp_flag && !pending;
        b.match_length = if state.match_length == 0 {
            FIBS_MONEY_LENGTH
        } else {
            state.match_length
        };
        b.cube = state.cube;
        b.turn = match state.decision {
            Decision::GameOver => 0,
            Decision::TakeOrDrop => -seat.colour,
            _ if you_act => seat.colour,
            _ => -seat.colour,
        };
        if let Decision::Move(d) = state.decision {
            let pair = [d.high(), d.low()];
            if you_act {
                b.player_dice = pair;
                let plays = legal_plays(&state.position, d);
                b.can_move = plays.iter().map(|p| p.steps().len()).max().unwrap_or(0) as u8;
            } else {
                b.opponent_dice = pair;
            }
        }
        b.was_doubled = (state.decision == Decision::TakeOrDrop) as i8;
        b.did_crawford = (state.match_length > 0 && state.post_crawford) as u8;
        Ok(b)
    }

    /// Your seat (colour and direction) on a real FIBS board.
    pub fn seat(&self) -> FibsSeat {
        FibsSeat {
            colour: self.colour,
            direction: self.direction,
        }
    }
}

/// Cube owner from the two cube-access flags (acting side, opponent) and the value: a
/// 1-cube is centred; otherwise the side that alone may double owns it.
fn owner_from_access(cube: u32, mine: bool, theirs: bool) -> CubeOwner {
    if cube <= 1 {
        return CubeOwner::Centered;
    }
    match (mine, theirs) {
        (true, false) => CubeOwner::Me,
        (false, true) => CubeOwner::Opponent,
        _ => CubeOwner::Centered,
    }
}

/// Tells the convention of a board record from its fields where that is unambiguous:
/// anything but gnubg's fixed orientation, a 9999 match length, differing dice pairs,
/// non-zero bar/can-move counts, a "did Crawford" of 3 or a pending double with both
/// may-double flags cleared are FIBS; a pending double with cube access kept, money length 0,
/// equal non-zero dice pairs or bar checkers without bar counts are gnubg. `None` otherwise.
pub fn detect_convention(b: &FibsBoard) -> Option<Convention> {
    if b.colour != 1 || b.direction != -1 || b.home != 0 || b.bar != 25 {
        return Some(Convention::Fibs);
    }
    if b.match_length == FIBS_MONEY_LENGTH
        || b.player_dice != b.opponent_dice
        || b.player_bar != 0
        || b.opponent_bar != 0
        || b.can_move != 0
        || b.forced != 0
        || b.did_crawford > 1
    {
        return Some(Convention::Fibs);
    }
    // FIBS clears both may-double flags while a double is pending; gnubg keeps the cube
    // access of both players.
    if b.was_doubled != 0 {
        return Some(if b.player_may_double || b.opponent_may_double {
            Convention::Gnubg
        } else {
            Convention::Fibs
        });
    }
    if b.match_length == 0 || b.player_dice != [0, 0] {
        return Some(Convention::Gnubg);
    }
    // With checkers on a bar FIBS fills the bar counts (47, 48); gnubg leaves them 0.
    if b.board[0] != 0 || b.board[25] != 0 {
        return Some(Convention::Gnubg);
    }
    None
}

/// Detects the convention of a raw line: gnubg terminates its lines with a NUL byte;
/// otherwise see [`detect_convention`].
pub fn detect_line_convention(line: &str) -> Option<Convention> {
    if line.trim_end_matches(['\n', '\r']).ends_with('\0') {
        return Some(Convention::Gnubg);
    }
    FibsBoard::parse(line)
        .ok()
        .as_ref()
        .and_then(detect_convention)
}

/// Parses a line straight into a match state in `convention`.
pub fn parse_match_state(line: &str, convention: Convention) -> Result<MatchState, FibsBoardError> {
    FibsBoard::parse(line)?.to_match_state(convention)
}

/// Writes a match state as a board line in `convention` (FIBS: default seat, O moving down).
pub fn format_match_state(
    state: &MatchState,
    convention: Convention,
) -> Result<String, FibsBoardError> {
    Ok(FibsBoard::from_match_state(state, convention, FibsSeat::default())?.to_line())
}
