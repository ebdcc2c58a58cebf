//! The state of a game within a match or money session, as a decision sees it: the
//! position, the dice or the cube question, the cube and the score. Everything is relative
//! to the *acting side*: the side that must answer now (the roller for a move or a
//! "double or roll?" question, the taker for a "take or drop?" question).

use super::dice::Dice;
use super::position::Position;

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
