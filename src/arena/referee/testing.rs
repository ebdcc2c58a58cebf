//! Seats and setups shared by the referee's tests.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::game::GameSetup;
use super::seats::{Reply, Seat, SeatError};
use crate::game::{legal_plays, Decision, MatchState};

/// A deterministic seat for tests: plays the first legal play, takes every double and
/// answers "double or roll?" with `at_roll`.
pub(crate) struct FirstPlaySeat {
    pub at_roll: Reply,
}

impl Seat for FirstPlaySeat {
    fn name(&self) -> String {
        "first".into()
    }
    fn act(&mut self, state: &MatchState) -> Result<Reply, SeatError> {
        Ok(match state.decision {
            Decision::Move(d) => Reply::Move(legal_plays(&state.position, d)[0]),
            Decision::TakeOrDrop => Reply::Take,
            _ => self.at_roll.clone(),
        })
    }
}

/// Picks uniformly among the legal plays; doubles when told to.
pub(super) struct RandomSeat {
    rng: ChaCha8Rng,
    double_prob: f64,
    take: bool,
}

impl Seat for RandomSeat {
    fn name(&self) -> String {
        "random".into()
    }
    fn act(&mut self, state: &MatchState) -> Result<Reply, SeatError> {
        Ok(match state.decision {
            Decision::Move(d) => {
                let plays = legal_plays(&state.position, d);
                Reply::Move(*plays.choose(&mut self.rng).unwrap())
            }
            Decision::DoubleOrRoll => {
                assert!(state.may_double);
                if self.rng.gen_bool(self.double_prob) {
                    Reply::Double
                } else {
                    Reply::Roll
                }
            }
            Decision::TakeOrDrop => {
                if self.take {
                    Reply::Take
                } else {
                    Reply::Drop
                }
            }
            _ => Reply::Roll,
        })
    }
}

pub(super) fn seat(seed: u64, double_prob: f64, take: bool) -> RandomSeat {
    RandomSeat {
        rng: ChaCha8Rng::seed_from_u64(seed),
        double_prob,
        take,
    }
}

pub(super) fn money(cube: bool) -> GameSetup {
    GameSetup {
        match_length: 0,
        score: [0, 0],
        crawford: false,
        post_crawford: false,
        cube,
        names: ["a".into(), "b".into()],
    }
}
