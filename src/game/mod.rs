//! Pure rules: positions, dice, legal plays, outcomes. No I/O, no async.

pub mod core;
pub mod dice;
pub mod movegen;
pub mod position;
pub mod rng;
pub mod variant;
pub mod zobrist;

pub use core::{Ending, GamePlay, GamePosition};
pub use dice::{splitmix, Dice, DiceError, ALL_ROLLS};
pub use movegen::{generate_plays, legal_plays, Play, PlayList, Step};
pub use position::{GameResult, Phase, Position, PositionError, Side, BAR, CHECKERS, OPP_BAR};
pub use rng::Rng;
pub use variant::{Variant, VariantError};
pub mod match_state;
pub use match_state::{
    CubeOwner, Decision, MatchFacts, MatchState, Rules, SeatTable, StateError, MAX_CUBE,
    MAX_MATCH_LENGTH,
};
