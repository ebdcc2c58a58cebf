//! Position evaluators: the neural nets, pubeval, heuristics.
//!
//! An evaluation is always of a position with the side to act **before it rolls**, and
//! from that side's view.

use crate::game::{GameResult, Position};

/// P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon) for the
/// side to act, before it rolls. Gammon figures include backgammons.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Probabilities(pub [f32; 5]);

impl Probabilities {
    pub const WIN: usize = 0;
    pub const WIN_GAMMON: usize = 1;
    pub const WIN_BACKGAMMON: usize = 2;
    pub const LOSE_GAMMON: usize = 3;
    pub const LOSE_BACKGAMMON: usize = 4;

    /// Cubeless money equity: 2w - 1 + wg - lg + wbg - lbg.
    #[inline]
    pub fn equity(&self) -> f32 {
        let p = &self.0;
        2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]
    }

    /// The same probabilities seen from the other side.
    #[inline]
    pub fn invert(&self) -> Probabilities {
        let p = &self.0;
        Probabilities([1.0 - p[0], p[3], p[4], p[1], p[2]])
    }

    /// The certain outcome of a game the mover's last play ended (`ending`), from the
    /// mover's view when `mover`, else from the opponent's. A tie is half a win.
    pub fn from_ending(ending: crate::game::Ending, mover: bool) -> Probabilities {
        match ending {
            crate::game::Ending::Won(r) => Probabilities::from_result(r, mover),
            crate::game::Ending::Tie => Probabilities([0.5, 0.0, 0.0, 0.0, 0.0]),
        }
    }

    /// The certain outcome of a finished game, from the winner's view when `won`.
    pub fn from_result(result: GameResult, won: bool) -> Probabilities {
        let g = if result >= GameResult::Gammon {
            1.0
        } else {
            0.0
        };
        let bg = if result >= GameResult::Backgammon {
            1.0
        } else {
            0.0
        };
        let p = Probabilities([1.0, g, bg, 0.0, 0.0]);
        if won {
            p
        } else {
            p.invert()
        }
    }
}

/// Something that values positions. Implementations must be cheap to share across
/// threads; per-thread scratch space lives inside the call.
///
/// Generic over the game (`P`, backgammon's [`Position`] by default): the Tavli games'
/// nets are evaluators of their positions, with the same five probabilities (no
/// backgammons there; a Plakoto tie counts as half a single win).
pub trait Evaluator<P = Position>: Send + Sync {
    /// Probabilities for the side to act in `pos`, before it rolls. A finished game
    /// returns its certain outcome.
    fn evaluate(&self, pos: &P) -> Probabilities;

    /// Evaluates many positions; `out` has the same length as `positions`.
    fn evaluate_batch(&self, positions: &[P], out: &mut [Probabilities]) {
        for (p, o) in positions.iter().zip(out.iter_mut()) {
            *o = self.evaluate(p);
        }
    }

    /// A short name for logs and reports.
    fn name(&self) -> String;
}

pub mod bearoff;
pub mod encoding;
pub mod inputs_v2;
pub mod luck;
pub mod net;
pub mod neural;
pub mod noisy;
pub mod prune;
pub mod pubeval;
pub mod qnet;
pub mod sides;
pub mod simple;
pub mod tavli;
pub mod weights;

pub use neural::NeuralEvaluator;
pub use weights::{NetSet, WeightsError};
