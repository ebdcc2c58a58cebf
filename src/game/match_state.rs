//! The state of a game within a match or money session, as a decision sees it: the
//! position, the dice or the cube question, the cube and the score. Everything is relative
//! to the *acting side*: the side that must answer now (the roller for a move or a
//! "double or roll?" question, the taker for a "take or drop?" question).

use std::fmt;

use super::dice::Dice;
use super::position::Position;

/// The longest match gnubg plays (its `MAXSCORE`); it refuses longer ones, and so do the
/// readers here.
pub const MAX_MATCH_LENGTH: u32 = 64;

/// The largest cube value gnubg accepts.
pub const MAX_CUBE: u32 = 4096;

/// Who holds the cube, relative to the acting side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CubeOwner {
    Centered,
    /// The acting side owns the cube.
    Me,
    /// The acting side's opponent owns the cube.
    Opponent,
}

impl CubeOwner {
    /// The same ownership seen from the other side.
    pub fn swap(self) -> CubeOwner {
        match self {
            CubeOwner::Centered => CubeOwner::Centered,
            CubeOwner::Me => CubeOwner::Opponent,
            CubeOwner::Opponent => CubeOwner::Me,
        }
    }
}

/// What the acting side must decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Play a roll; `position` is from the roller's view.
    Move(Dice),
    /// Double or roll; `position` is from the roller's view.
    DoubleOrRoll,
    /// The opponent doubled: take, drop (or beaver). `position` is from the taker's view,
    /// so the opponent (the doubler) is the one about to roll.
    TakeOrDrop,
    /// The opponent beavered our double (money play): keep the redoubled cube (take) or
    /// drop. `position` is from our (the original doubler's) view.
    BeaverAnswer,
    /// Nothing to decide: the game is over.
    GameOver,
}

/// Money-play rules as a position's text states them (an XGID's rules field, a Match ID's
/// Jacoby bit). `None` where the text says nothing; the configuration decides then.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Rules {
    /// The Jacoby rule: gammons count only once the cube has been turned.
    pub jacoby: Option<bool>,
    /// A doubled side may beaver.
    pub beavers: Option<bool>,
}

/// Why a match state cannot occur in a game. Each names the field at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StateError {
    /// A match longer than [`MAX_MATCH_LENGTH`].
    MatchLength(u32),
    /// A score past the match length, or at it while a game is still played.
    Score { score: u32, length: u32 },
    /// A cube value that is not a power of two from 1 to [`MAX_CUBE`].
    Cube(u32),
    /// The Crawford flag in money play.
    CrawfordInMoney,
    /// The Crawford flag while not exactly one side is one point from winning.
    CrawfordScore {
        score: u32,
        opp_score: u32,
        length: u32,
    },
    /// A turned cube in the Crawford game, where nobody may double.
    CrawfordCube { cube: u32, centred: bool },
    /// A double pending in the Crawford game.
    CrawfordDouble,
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::MatchLength(n) => write!(
                f,
                "match length {n} is longer than the longest match ({MAX_MATCH_LENGTH})"
            ),
            StateError::Score { score, length } if score > length => {
                write!(f, "score {score} is past the match length {length}")
            }
            StateError::Score { score, length } => write!(
                f,
                "score {score} reaches the match length {length} while a game is played"
            ),
            StateError::Cube(v) => {
                write!(
                    f,
                    "cube value {v} is not a power of two from 1 to {MAX_CUBE}"
                )
            }
            StateError::CrawfordInMoney => f.write_str("the Crawford flag is set in money play"),
            StateError::CrawfordScore {
                score,
                opp_score,
                length,
            } => write!(
                f,
                "the Crawford flag is set at {score}-{opp_score} in a {length}-point match, \
                 where not exactly one side is one point from winning"
            ),
            StateError::CrawfordCube { cube, centred } => write!(
                f,
                "the cube is turned in the Crawford game (value {cube}, {})",
                if *centred { "centred" } else { "owned" }
            ),
            StateError::CrawfordDouble => f.write_str("a double is pending in the Crawford game"),
        }
    }
}

impl std::error::Error for StateError {}

/// What the consistency checks read, in the terms every format has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchFacts {
    /// 0 for money play.
    pub match_length: u32,
    pub scores: [u32; 2],
    /// A game is being played (not over).
    pub in_play: bool,
    pub cube: u32,
    pub cube_centred: bool,
    pub crawford: bool,
    pub double_pending: bool,
}

impl MatchFacts {
    /// Refuses what no game can reach, as gnubg refuses it. A finished game may show a
    /// score at the match length (the match is over) and the cube it ended with.
    pub fn check(&self) -> Result<(), StateError> {
        if !self.cube.is_power_of_two() || self.cube > MAX_CUBE {
            return Err(StateError::Cube(self.cube));
        }
        let length = self.match_length;
        if length > MAX_MATCH_LENGTH {
            return Err(StateError::MatchLength(length));
        }
        if length == 0 {
            if self.crawford {
                return Err(StateError::CrawfordInMoney);
            }
            return Ok(());
        }
        for score in self.scores {
            if score > length || (score == length && self.in_play) {
                return Err(StateError::Score { score, length });
            }
        }
        if self.crawford && self.in_play {
            let [a, b] = self.scores;
            if (a + 1 == length) == (b + 1 == length) {
                return Err(StateError::CrawfordScore {
                    score: a,
                    opp_score: b,
                    length,
                });
            }
            if self.cube != 1 || !self.cube_centred {
                return Err(StateError::CrawfordCube {
                    cube: self.cube,
                    centred: self.cube_centred,
                });
            }
            if self.double_pending {
                return Err(StateError::CrawfordDouble);
            }
        }
        Ok(())
    }
}

/// A game between seats 0 and 1 as the one who runs it keeps it (the referee, the replay of
/// a match file): the one place a seat's [`MatchState`] is derived from it.
#[derive(Debug, Clone, Copy)]
pub struct SeatTable<'a> {
    /// Points to win the match; 0 for money play.
    pub match_length: u32,
    /// Scores of seat 0 and seat 1 before the game.
    pub score: [u32; 2],
    pub names: &'a [String; 2],
    pub crawford: bool,
    pub post_crawford: bool,
    /// The doubling cube is in use.
    pub cube_in_use: bool,
    pub cube: u32,
    /// Seat that owns the cube, None when centred.
    pub owner: Option<usize>,
    /// The money rules stated in every state.
    pub rules: Rules,
}

impl SeatTable<'_> {
    /// Whether `seat` may double now: the cube in use, not the Crawford game, not at its
    /// largest, not the other seat's, and not already dead (a cube that wins the match).
    pub fn may_double(&self, seat: usize) -> bool {
        if !self.cube_in_use || self.crawford || self.cube >= MAX_CUBE {
            return false;
        }
        if self.owner.is_some_and(|o| o != seat) {
            return false;
        }
        self.match_length == 0 || self.cube < self.match_length.saturating_sub(self.score[seat])
    }

    /// The state `seat` acts in.
    pub fn state(&self, seat: usize, position: Position, decision: Decision) -> MatchState {
        let other = 1 - seat;
        MatchState {
            position,
            decision,
            cube: self.cube,
            cube_owner: match self.owner {
                None => CubeOwner::Centered,
                Some(o) if o == seat => CubeOwner::Me,
                Some(_) => CubeOwner::Opponent,
            },
            may_double: self.may_double(seat),
            opp_may_double: self.may_double(other),
            match_length: self.match_length,
            score: self.score[seat],
            opp_score: self.score[other],
            crawford: self.crawford,
            post_crawford: self.post_crawford,
            acting_player: seat as u8,
            names: (self.names[seat].clone(), self.names[other].clone()),
            rules: self.rules,
            dice_low_first: false,
        }
    }
}

/// Everything about a game that a decision needs, relative to the acting side.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MatchState {
    /// From the acting side's view (see [`Decision`] for who that is).
    pub position: Position,
    pub decision: Decision,
    /// Cube value (1, 2, 4, ...).
    pub cube: u32,
    pub cube_owner: CubeOwner,
    /// The acting side may double in principle (cube access, not Crawford, ...).
    pub may_double: bool,
    /// The opponent may double in principle.
    pub opp_may_double: bool,
    /// Points to win the match; 0 for money play.
    pub match_length: u32,
    /// The acting side's score.
    pub score: u32,
    /// The opponent's score.
    pub opp_score: u32,
    /// This game is the Crawford game (no doubling).
    pub crawford: bool,
    /// The Crawford game has been played.
    pub post_crawford: bool,
    /// Which of gnubg's players (0 or 1) is the acting side, where a format says so.
    pub acting_player: u8,
    /// Player names (acting side, opponent), where a format carries them.
    pub names: (String, String),
    /// The rules the position's text states; a decision honours them over its defaults.
    pub rules: Rules,
    /// The dice were written lower die first (an XGID's `25`); writers that can keep the
    /// order do, so a position prints back as it was given.
    pub dice_low_first: bool,
}

impl MatchState {
    /// A money-play state with a centred 1-cube and both sides free to double.
    pub fn money(position: Position, decision: Decision) -> MatchState {
        MatchState {
            position,
            decision,
            cube: 1,
            cube_owner: CubeOwner::Centered,
            may_double: true,
            opp_may_double: true,
            match_length: 0,
            score: 0,
            opp_score: 0,
            crawford: false,
            post_crawford: false,
            acting_player: 0,
            names: (String::new(), String::new()),
            rules: Rules::default(),
            dice_low_first: false,
        }
    }

    /// The state after the acting side plays `play` (one of its legal plays in
    /// `position`): the opponent acts next, before its roll (or nobody, when the play
    /// ended the game), with the cube, the score and the names seen from its side.
    pub fn after_play(&self, play: &super::movegen::Play) -> MatchState {
        let position = play.next_position();
        MatchState {
            position,
            decision: if position.is_game_over() {
                Decision::GameOver
            } else {
                Decision::DoubleOrRoll
            },
            cube_owner: self.cube_owner.swap(),
            may_double: self.opp_may_double,
            opp_may_double: self.may_double,
            score: self.opp_score,
            opp_score: self.score,
            acting_player: 1 - self.acting_player.min(1),
            names: (self.names.1.clone(), self.names.0.clone()),
            dice_low_first: false,
            ..self.clone()
        }
    }

    /// The facts [`MatchFacts::check`] reads.
    pub fn facts(&self) -> MatchFacts {
        MatchFacts {
            match_length: self.match_length,
            scores: [self.score, self.opp_score],
            in_play: self.decision != Decision::GameOver,
            cube: self.cube,
            cube_centred: self.cube_owner == CubeOwner::Centered,
            crawford: self.crawford,
            double_pending: matches!(self.decision, Decision::TakeOrDrop | Decision::BeaverAnswer),
        }
    }

    /// Refuses a state no game can reach (see [`MatchFacts::check`]).
    pub fn check(&self) -> Result<(), StateError> {
        self.facts().check()
    }

    /// True for money play.
    pub fn is_money(&self) -> bool {
        self.match_length == 0
    }

    /// Points the acting side still needs (match play only).
    pub fn away(&self) -> u32 {
        self.match_length.saturating_sub(self.score)
    }

    /// Points the opponent still needs (match play only).
    pub fn opp_away(&self) -> u32 {
        self.match_length.saturating_sub(self.opp_score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_match(length: u32, score: u32, opp_score: u32) -> MatchState {
        MatchState {
            match_length: length,
            score,
            opp_score,
            ..MatchState::money(Position::OPENING, Decision::DoubleOrRoll)
        }
    }

    #[test]
    fn reachable_states_pass() {
        assert_eq!(in_match(0, 0, 0).check(), Ok(()));
        assert_eq!(in_match(64, 63, 0).check(), Ok(()));
        let crawford = MatchState {
            crawford: true,
            ..in_match(5, 4, 2)
        };
        assert_eq!(crawford.check(), Ok(()));
        // The match is over: the winner's score reaches the length.
        let over = MatchState {
            decision: Decision::GameOver,
            ..in_match(3, 3, 1)
        };
        assert_eq!(over.check(), Ok(()));
    }

    #[test]
    fn impossible_states_name_their_field() {
        assert_eq!(in_match(65, 0, 0).check(), Err(StateError::MatchLength(65)));
        assert_eq!(
            in_match(3, 9, 3).check(),
            Err(StateError::Score {
                score: 9,
                length: 3
            })
        );
        assert_eq!(
            in_match(3, 0, 3).check(),
            Err(StateError::Score {
                score: 3,
                length: 3
            })
        );
        let big_cube = MatchState {
            cube: 8192,
            ..in_match(0, 0, 0)
        };
        assert_eq!(big_cube.check(), Err(StateError::Cube(8192)));
        let crawford = |length, a, b| MatchState {
            crawford: true,
            ..in_match(length, a, b)
        };
        assert_eq!(crawford(0, 0, 0).check(), Err(StateError::CrawfordInMoney));
        assert!(matches!(
            crawford(5, 1, 2).check(),
            Err(StateError::CrawfordScore { .. })
        ));
        assert!(matches!(
            crawford(5, 4, 4).check(),
            Err(StateError::CrawfordScore { .. })
        ));
        let turned = MatchState {
            cube: 2,
            cube_owner: CubeOwner::Me,
            ..crawford(5, 4, 2)
        };
        assert_eq!(
            turned.check(),
            Err(StateError::CrawfordCube {
                cube: 2,
                centred: false
            })
        );
        let doubled = MatchState {
            decision: Decision::TakeOrDrop,
            ..crawford(5, 4, 2)
        };
        assert_eq!(doubled.check(), Err(StateError::CrawfordDouble));
        assert!(turned
            .check()
            .is_err_and(|e| e.to_string().contains("Crawford")));
    }
}
