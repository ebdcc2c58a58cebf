//! The cubeless engine of any game: one searcher over the game's evaluator with the plan
//! and depth of an [`EngineSpec`](super::EngineSpec). Backgammon's [`Engine`](super::Engine)
//! adds the cube, the match score and resignations on top of the same searcher; the
//! Tavli games, which have no cube, play through this one directly.

use crate::game::{Dice, GamePosition};
use crate::search::{Cancel, MoveDecision, PositionEvaluation, SearchSettings, Searcher, Utility};

use super::SearchPlan;

/// A searcher, its plan (algorithm, time budget, guaranteed depth, MCTS and filter
/// settings) and the depth of its decisions. Cloning is cheap (the searcher's evaluator
/// and table are shared).
#[derive(Debug, Clone)]
pub struct GameEngine<P: GamePosition> {
    pub searcher: Searcher<P>,
    pub plan: SearchPlan,
    /// Search depth of a decision (1, 3, 5, ...).
    pub depth: u32,
}

impl<P: GamePosition> GameEngine<P> {
    /// The settings of one decision valued by `utility` (money points, or the chances of
    /// the match at its score).
    pub fn settings(&self, utility: Utility) -> SearchSettings {
        SearchSettings {
            utility,
            ..self.plan.settings(self.depth)
        }
    }

    /// Ranks the plays of `dice` in `pos`, best first (the best with an exact value at the
    /// deepest iteration completed).
    pub fn choose(
        &self,
        pos: &P,
        dice: Dice,
        utility: Utility,
        cancel: &Cancel,
    ) -> MoveDecision<P::Play> {
        self.searcher
            .choose(pos, dice, &self.settings(utility), cancel)
    }

    /// Ranks every play of `dice` in `pos` for a hint: up to `rank` of the best get exact
    /// values at the deepest iteration, with their probabilities searched as deep.
    pub fn hint(&self, pos: &P, dice: Dice, rank: usize, cancel: &Cancel) -> MoveDecision<P::Play> {
        let settings = SearchSettings {
            rank: rank.max(1),
            probabilities: true,
            ..self.settings(Utility::MONEY)
        };
        self.searcher.choose(pos, dice, &settings, cancel)
    }

    /// Values `pos` before its side rolls, at the engine's depth.
    pub fn evaluate(&self, pos: &P, cancel: &Cancel) -> PositionEvaluation<P> {
        self.searcher
            .evaluate_position(pos, &self.settings(Utility::MONEY), cancel)
    }
}

/// The utility of the Tavli games' four scores to the player (single win, double win,
/// single loss, double loss): money points, or match-winning chances at a score.
pub fn utility_of_scores(values: [f64; 4]) -> Utility {
    if values == [1.0, 2.0, -1.0, -2.0] {
        return Utility::MONEY;
    }
    let [sw, dw, sl, dl] = values;
    Utility::from_match_chances([sw, dw, dw], [sl, dl, dl])
}
