//! Search players: checker plays chosen by a cubeless search (`net,depth=N,algo=A`), in
//! any game.

use super::{checker_play, Decide, DecideError};
use crate::engine::Action;
use crate::game::{Dice, GamePlay, GamePosition, MatchState, Play, Position};
use crate::search::{Cancel, SearchSettings, Searcher};

/// A player choosing its plays by search.
#[derive(Debug)]
pub struct SearchPlayer<P: GamePosition = Position> {
    searcher: Searcher<P>,
    pub(super) settings: SearchSettings,
    name: String,
    cancel: Cancel,
}

impl<P: GamePosition> Clone for SearchPlayer<P> {
    /// A copy shares the searcher's evaluator and table, with a cancel flag of its own.
    fn clone(&self) -> SearchPlayer<P> {
        SearchPlayer::new(
            self.searcher.clone(),
            self.settings.clone(),
            self.name.clone(),
        )
    }
}

impl<P: GamePosition> SearchPlayer<P> {
    pub fn new(searcher: Searcher<P>, settings: SearchSettings, name: String) -> SearchPlayer<P> {
        SearchPlayer {
            searcher,
            settings,
            name,
            cancel: Cancel::new(),
        }
    }

    /// The index into `plays` (every legal play, never empty) of the play to make.
    pub fn choose(&mut self, pos: &P, dice: Dice, plays: &[P::Play]) -> usize {
        if plays.len() == 1 {
            return 0;
        }
        let d = self
            .searcher
            .choose(pos, dice, &self.settings, &self.cancel);
        d.best()
            .and_then(|b| plays.iter().position(|p| p.after() == b.play.after()))
            .unwrap_or(0)
    }

    pub(super) fn player_name(&self) -> String {
        self.name.clone()
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
