//! Search players for duels: `net,depth=N,algo=A` (plus the net's `noise=`).

use std::sync::Arc;

use crate::arena::players::Player;
use crate::arena::spec::PlayerFactory;
use crate::eval::Evaluator;
use crate::game::{Dice, Play, Position};

use super::noisy::NoisyEvaluator;
use super::{Algorithm, Cancel, SearchSettings, Searcher, TranspositionTable};

/// Table size of one search player factory (shared by its threads).
pub const PLAYER_TT_MB: usize = 32;

/// A player choosing its plays by search.
#[derive(Debug)]
pub struct SearchPlayer {
    searcher: Searcher,
    settings: SearchSettings,
    name: String,
    cancel: Cancel,
}

impl SearchPlayer {
    pub fn new(searcher: Searcher, settings: SearchSettings, name: String) -> SearchPlayer {
        SearchPlayer {
            searcher,
            settings,
            name,
            cancel: Cancel::new(),
        }
    }
}

impl Player for SearchPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, pos: &Position, dice: Dice, plays: &[Play]) -> usize {
        if plays.len() == 1 {
            return 0;
        }
        let d = self
            .searcher
            .choose(pos, dice, &self.settings, &self.cancel);
        d.best()
            .and_then(|b| plays.iter().position(|p| p.position == b.play.position))
            .unwrap_or(0)
    }
}

/// A factory of search players sharing one evaluator (with `noise`, if not zero) and one
/// transposition table.
pub fn search_player_factory(
    evaluator: Arc<dyn Evaluator>,
    noise: f32,
    depth: u8,
    algorithm: Algorithm,
    name: String,
) -> PlayerFactory {
    let evaluator: Arc<dyn Evaluator> = if noise != 0.0 {
        Arc::new(NoisyEvaluator::new(evaluator, noise))
    } else {
        evaluator
    };
    let searcher = Searcher::new(evaluator, Arc::new(TranspositionTable::new(PLAYER_TT_MB)));
    let settings = SearchSettings::new(depth, algorithm);
    let n = name.clone();
    PlayerFactory::new(name, move || {
        Box::new(SearchPlayer::new(
            searcher.clone(),
            settings.clone(),
            n.clone(),
        ))
    })
}

/// Builds the search player of a `net,...` specification with `depth=` and/or `algo=`
/// (defaults: depth 3, star2).
pub fn factory_from_spec(
    spec: &crate::arena::spec::PlayerSpec,
    evaluator: Arc<dyn Evaluator>,
    noise: f32,
) -> Result<PlayerFactory, crate::arena::spec::SpecError> {
    use crate::arena::spec::SpecError;
    let depth = match spec.option("depth") {
        None => 3,
        Some(v) => super::parse_depth(v).map_err(|_| SpecError::BadValue {
            option: "depth".into(),
            value: v.to_string(),
            expected: "an odd depth from 1 to 9",
        })?,
    };
    let algorithm = match spec.option("algo") {
        None => Algorithm::Star2,
        Some(v) => v.parse().map_err(|_| SpecError::BadValue {
            option: "algo".into(),
            value: v.to_string(),
            expected: "expectimax, star1, star2 or filter",
        })?,
    };
    Ok(search_player_factory(
        evaluator,
        noise,
        depth,
        algorithm,
        spec.text().to_string(),
    ))
}
