//! Deciders and setups shared by the referee's tests.
use crate::game::Rng;

use super::game::GameSetup;
use crate::engine::Action;
use crate::game::{Decision, MatchState, Play};
use crate::players::{Decide, DecideError};

/// A deterministic decider for tests: plays the first legal play, takes every double and
/// answers "double or roll?" with `at_roll`.
pub(crate) struct FirstPlay {
    pub at_roll: Action,
}

impl Decide for FirstPlay {
    fn name(&self) -> String {
        "first".into()
    }
    fn decide(&mut self, state: &MatchState, plays: &[Play]) -> Result<Action, DecideError> {
        Ok(match state.decision {
            Decision::Move(_) => Action::Move(plays[0]),
            Decision::TakeOrDrop => Action::Take,
            _ => self.at_roll,
        })
    }
}

/// Picks uniformly among the legal plays; doubles when told to.
pub(crate) struct RandomSeat {
    rng: Rng,
    double_prob: f64,
    take: bool,
}

impl Decide for RandomSeat {
    fn name(&self) -> String {
        "random".into()
    }
    fn decide(&mut self, state: &MatchState, plays: &[Play]) -> Result<Action, DecideError> {
        Ok(match state.decision {
            Decision::Move(_) => Action::Move(*self.rng.pick(plays).unwrap()),
            Decision::DoubleOrRoll => {
                assert!(state.may_double);
                if self.rng.chance(self.double_prob) {
                    Action::Double
                } else {
                    Action::Roll
                }
            }
            Decision::TakeOrDrop => {
                if self.take {
                    Action::Take
                } else {
                    Action::Drop
                }
            }
            _ => Action::Roll,
        })
    }
}

pub(crate) fn seat(seed: u64, double_prob: f64, take: bool) -> RandomSeat {
    RandomSeat {
        rng: Rng::seeded(seed),
        double_prob,
        take,
    }
}

pub(crate) fn money(cube: bool) -> GameSetup {
    GameSetup {
        match_length: 0,
        score: [0, 0],
        crawford: false,
        post_crawford: false,
        cube,
        names: ["a".into(), "b".into()],
    }
}
