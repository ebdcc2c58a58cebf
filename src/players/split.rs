//! A player of two parts: one decider plays the checkers, another answers the cube
//! questions (double or roll, take or drop, beaver). Swapping one part of a player for
//! another's, and nothing else, tells how much of a difference in results comes from the
//! checker play and how much from the cube.

use crate::engine::Action;
use crate::game::{Decision, MatchState, Play};

use super::{Decide, DecideError, MakeDecider};

/// Makes deciders whose checker plays come from `checkers` and whose cube decisions come
/// from `cube`.
pub struct SplitFactory {
    checkers: Box<dyn MakeDecider>,
    cube: Box<dyn MakeDecider>,
}

impl std::fmt::Debug for SplitFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitFactory")
            .field("checkers", &self.checkers.name())
            .field("cube", &self.cube.name())
            .finish()
    }
}

impl SplitFactory {
    pub fn new(checkers: Box<dyn MakeDecider>, cube: Box<dyn MakeDecider>) -> SplitFactory {
        SplitFactory { checkers, cube }
    }
}

/// The name of a split player: its checker player's, then its cube player's.
fn split_name(checkers: &str, cube: &str) -> String {
    format!("{checkers} (cube: {cube})")
}

impl MakeDecider for SplitFactory {
    fn name(&self) -> String {
        split_name(&self.checkers.name(), &self.cube.name())
    }

    fn make(&self, worker: usize) -> Result<Box<dyn Decide>, String> {
        Ok(Box::new(Split {
            name: self.name(),
            checkers: self.checkers.make(worker)?,
            cube: self.cube.make(worker)?,
        }))
    }
}

/// Checker plays from one decider, everything else (the cube questions, and a finished
/// game's nothing) from another.
pub struct Split {
    /// The player's name in reports.
    pub name: String,
    pub checkers: Box<dyn Decide>,
    pub cube: Box<dyn Decide>,
}

impl std::fmt::Debug for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Split")
            .field("name", &self.name)
            .field("checkers", &self.checkers.name())
            .field("cube", &self.cube.name())
            .finish()
    }
}

impl Decide for Split {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, seed: u64) {
        self.checkers.new_game(seed);
        self.cube.new_game(seed);
    }

    fn decide(&mut self, state: &MatchState, plays: &[Play]) -> Result<Action, DecideError> {
        match state.decision {
            Decision::Move(_) => self.checkers.decide(state, plays),
            _ => self.cube.decide(state, plays),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::legal_plays;
    use crate::players::build::factory;
    use crate::players::BuildOptions;

    fn make(spec: &str) -> Box<dyn MakeDecider> {
        Box::new(factory(spec, BuildOptions { cube: true }).unwrap())
    }

    /// Checker plays are the checker part's and cube answers the cube part's: a split of
    /// a net with noisy checker play and a net with noisy cube decisions answers as each
    /// part does alone (seeded alike), and the parts disagree often enough on both kinds
    /// of question that answers from the wrong part would show.
    #[test]
    fn checker_plays_and_cube_answers_come_from_their_own_parts() {
        let (checkers, cube) = ("net,noise=0.5", "net,cube_noise=0.5");
        let split = SplitFactory::new(make(checkers), make(cube));
        assert_eq!(split.name(), format!("{checkers} (cube: {cube})"));
        let mut both = split.make(0).unwrap();
        // Each part alone, asked only its own kind of question; and each again, asked the
        // other kind (so that no part's seeded noise is drawn by questions it never sees
        // inside the split).
        let mut alone = [make(checkers).make(0).unwrap(), make(cube).make(0).unwrap()];
        let mut cross = [make(checkers).make(0).unwrap(), make(cube).make(0).unwrap()];
        both.new_game(7);
        for d in alone.iter_mut().chain(cross.iter_mut()) {
            d.new_game(7);
        }
        let mut disagreements = [0, 0];
        for (pos, dice) in crate::testing::random_game_positions(5, 4) {
            let plays = legal_plays(&pos, dice);
            let mv = MatchState::money(pos, Decision::Move(dice));
            let answer = both.decide(&mv, &plays).unwrap();
            assert_eq!(answer, alone[0].decide(&mv, &plays).unwrap());
            disagreements[0] += usize::from(answer != cross[1].decide(&mv, &plays).unwrap());
            let cube = MatchState::money(pos, Decision::DoubleOrRoll);
            let answer = both.decide(&cube, &[]).unwrap();
            assert_eq!(answer, alone[1].decide(&cube, &[]).unwrap());
            disagreements[1] += usize::from(answer != cross[0].decide(&cube, &[]).unwrap());
        }
        assert!(disagreements.iter().all(|&n| n > 3), "{disagreements:?}");
    }
}
