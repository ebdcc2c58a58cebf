//! Search players: checker plays chosen by a cubeless search (`net,depth=N,algo=A`).

use super::{checker_play, Decide, DecideError};
use crate::engine::Action;
use crate::game::{Dice, MatchState, Play, Position};
use crate::search::{Cancel, SearchSettings, Searcher};

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

    /// The index into `plays` (every legal play, never empty) of the play to make.
    pub fn choose(&mut self, pos: &Position, dice: Dice, plays: &[Play]) -> usize {
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

impl Decide for SearchPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn decide(&mut self, state: &MatchState, plays: &[Play]) -> Result<Action, DecideError> {
        checker_play(state, plays, |pos, dice, plays| {
            self.choose(pos, dice, plays)
        })
    }
}
