//! The luck of a roll, as an evaluator judges it.
//!
//! The *judge* plays every roll the way a depth-1 player of its evaluator would: among the
//! legal plays it takes the one whose resulting position has the best cubeless equity for
//! the mover (the first of equals in move-generation order). With `v(r)` some value of the
//! position after the judge's play of roll `r`, the luck of the roll actually thrown is
//! `v(actual) - sum over the rolls r of P(r) v(r)`: over the 21 rolls with their weights
//! out of 36, or over the 15 non-doubles for the opening roll (doubles are rolled again).
//! A roll with no legal play counts too (the position passes to the opponent unchanged).
//!
//! Because the expectation of a roll's luck over that roll is zero by construction, a
//! result minus the luck of its rolls has the same mean as the result, whatever the judge;
//! a good judge only makes its spread smaller. Rollouts ([`crate::rollout`]) and the
//! variance-reduced duels and matches of [`crate::arena`] both measure luck here.

use std::sync::Arc;

use super::{Evaluator, Probabilities};
use crate::game::{generate_plays, Dice, GameResult, Play, PlayList, Position, ALL_ROLLS};

/// What the judge's play of a roll leads to, for the side that rolled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum After {
    /// The play bore off the last checker: the mover won with this result.
    Won(GameResult),
    /// The game goes on: the evaluator's probabilities for the opponent, who rolls next.
    Opponent(Probabilities),
}

impl After {
    /// The mover's probabilities.
    pub fn probabilities(&self) -> Probabilities {
        match self {
            After::Won(r) => Probabilities::from_result(*r, true),
            After::Opponent(p) => p.invert(),
        }
    }

    /// The mover's cubeless money equity, computed in `f64` from the stored probabilities.
    pub fn equity(&self) -> f64 {
        match self {
            After::Won(r) => equity_f64(&Probabilities::from_result(*r, true)),
            After::Opponent(p) => -equity_f64(p),
        }
    }
}

/// Cubeless money equity of `p` in `f64`: 2w - 1 + wg - lg + wbg - lbg.
fn equity_f64(p: &Probabilities) -> f64 {
    let q = p.0.map(f64::from);
    2.0 * q[0] - 1.0 + q[1] - q[3] + q[2] - q[4]
}

/// The rolls of a turn with their weights out of `total`: every roll (out of 36), or the
/// opening roll's 15 non-doubles (each 2 out of 30).
pub fn rolls(opening: bool) -> impl Iterator<Item = (Dice, u32)> {
    ALL_ROLLS
        .into_iter()
        .filter(move |r| !(opening && r.is_double()))
        .map(|r| (r, r.weight()))
}

/// The sum of the weights [`rolls`] gives.
pub fn total_weight(opening: bool) -> u32 {
    if opening {
        30
    } else {
        36
    }
}

/// An evaluator playing judge, with its scratch space (one per thread: `clone` gives a
/// judge with the same evaluator and fresh scratch).
pub struct Judge {
    evaluator: Arc<dyn Evaluator>,
    name: String,
    list: PlayList,
    positions: Vec<Position>,
    probs: Vec<Probabilities>,
}

impl Clone for Judge {
    fn clone(&self) -> Judge {
        Judge::new(self.evaluator.clone(), self.name.clone())
    }
}

impl std::fmt::Debug for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Judge").field("name", &self.name).finish()
    }
}

impl Judge {
    /// A judge valuing positions with `evaluator`; `name` is how reports call it.
    pub fn new(evaluator: Arc<dyn Evaluator>, name: impl Into<String>) -> Judge {
        Judge {
            evaluator,
            name: name.into(),
            list: PlayList::new(),
            positions: Vec::with_capacity(64),
            probs: Vec::with_capacity(64),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn evaluator(&self) -> &Arc<dyn Evaluator> {
        &self.evaluator
    }

    /// The judge's play of `dice` from `pos` (the mover's view, before the roll) and what
    /// it leads to: the legal play with the best cubeless equity for the mover, the first
    /// of equals in move-generation order. The children are evaluated as one batch.
    pub fn best(&mut self, pos: &Position, dice: Dice) -> (Play, After) {
        generate_plays(pos, dice, &mut self.list);
        self.choose(pos)
    }

    /// [`Judge::best`] among the plays generated into the scratch list from `pos`.
    fn choose(&mut self, pos: &Position) -> (Play, After) {
        self.positions.clear();
        for play in self.list.iter() {
            if play.position.mover_result().is_none() {
                self.positions.push(play.next_position());
            }
        }
        self.probs.clear();
        self.probs
            .resize(self.positions.len(), Probabilities::default());
        self.evaluator
            .evaluate_batch(&self.positions, &mut self.probs);
        let mut evaluated = self.probs.iter();
        let mut best: Option<(Play, After, f64)> = None;
        for play in self.list.iter() {
            let after = match play.position.mover_result() {
                Some(r) => After::Won(r),
                None => match evaluated.next() {
                    Some(p) => After::Opponent(*p),
                    None => continue,
                },
            };
            let equity = after.equity();
            if best.as_ref().is_none_or(|(_, _, b)| equity > *b) {
                best = Some((*play, after, equity));
            }
        }
        // generate_plays never yields an empty list (a blocked roll gives the empty play).
        match best {
            Some((play, after, _)) => (play, after),
            None => (
                Play::none(*pos),
                After::Opponent(self.evaluator.evaluate(&pos.swap())),
            ),
        }
    }

    /// The judge's play of `dice` from `pos`, as [`Judge::best`] chooses it, without what it
    /// leads to: where the roll has one legal play (a forced or a blocked roll) nothing is
    /// evaluated.
    pub fn best_play(&mut self, pos: &Position, dice: Dice) -> Play {
        generate_plays(pos, dice, &mut self.list);
        match self.list.as_slice() {
            [only] => *only,
            _ => self.choose(pos).0,
        }
    }

    /// The luck of rolling `roll` in `pos` (the mover's view, before the roll), in the units
    /// of `value`: `value` of what the judge's play of `roll` leads to, minus the
    /// probability-weighted mean of that over every roll (the 15 non-doubles when
    /// `opening`). Zero in expectation over `roll` for any `value`.
    pub fn luck(
        &mut self,
        pos: &Position,
        roll: Dice,
        opening: bool,
        mut value: impl FnMut(&After) -> f64,
    ) -> f64 {
        let mut mean = 0.0;
        let mut actual = None;
        for (r, w) in rolls(opening) {
            let (_, after) = self.best(pos, r);
            let v = value(&after);
            mean += w as f64 * v;
            if r == roll {
                actual = Some(v);
            }
        }
        mean /= total_weight(opening) as f64;
        // A double at the opening cannot happen in a game; judged all the same, it is
        // measured against the opening's mean.
        let actual = match actual {
            Some(v) => v,
            None => {
                let (_, after) = self.best(pos, roll);
                value(&after)
            }
        };
        actual - mean
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::eval::simple::PipSigmoid;

    fn judge() -> Judge {
        Judge::new(Arc::new(PipSigmoid), "pipsigmoid")
    }

    #[test]
    fn the_weights_are_the_dice_probabilities() {
        for opening in [false, true] {
            let total: u32 = rolls(opening).map(|(_, w)| w).sum();
            assert_eq!(total, total_weight(opening));
        }
        assert_eq!(rolls(true).count(), 15);
        assert!(rolls(true).all(|(r, _)| !r.is_double()));
        assert_eq!(rolls(false).count(), 21);
    }

    #[test]
    fn luck_has_mean_zero_over_the_rolls() {
        let mut j = judge();
        let pos = Position::OPENING;
        for opening in [false, true] {
            let mean: f64 = rolls(opening)
                .map(|(r, w)| w as f64 * j.luck(&pos, r, opening, |a| a.equity()))
                .sum::<f64>()
                / total_weight(opening) as f64;
            assert!(mean.abs() < 1e-12, "{mean}");
        }
    }

    #[test]
    fn a_value_that_ignores_the_roll_has_no_luck() {
        let mut j = judge();
        for r in ALL_ROLLS {
            assert_eq!(j.luck(&Position::OPENING, r, false, |_| 0.25), 0.0);
        }
    }

    #[test]
    fn the_best_play_is_the_best_by_the_evaluator() {
        let mut j = judge();
        let dice = Dice::new(6, 5).unwrap();
        let (play, after) = j.best(&Position::OPENING, dice);
        let mut list = PlayList::new();
        generate_plays(&Position::OPENING, dice, &mut list);
        let best = list
            .iter()
            .map(|p| -equity_f64(&PipSigmoid.evaluate(&p.next_position())))
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(after.equity(), best);
        assert!(list.iter().any(|p| p.position == play.position));
    }

    /// `PipSigmoid`, counting the positions it values.
    struct Counting(std::sync::atomic::AtomicUsize);

    impl Evaluator for Counting {
        fn evaluate(&self, pos: &Position) -> Probabilities {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            PipSigmoid.evaluate(pos)
        }

        fn name(&self) -> String {
            "counting".into()
        }
    }

    /// The play alone is the play of the full choice, every roll of positions from
    /// random games; a roll with one legal play (forced or blocked) values nothing.
    #[test]
    fn the_play_alone_is_the_best_play_and_a_forced_one_costs_nothing() {
        let counting = Arc::new(Counting(Default::default()));
        let mut j = Judge::new(counting.clone(), "counting");
        let mut list = PlayList::new();
        let (mut forced, mut chosen) = (0, 0);
        for (pos, _) in crate::testing::random_game_positions(5, 40) {
            for r in ALL_ROLLS {
                generate_plays(&pos, r, &mut list);
                let before = counting.0.load(std::sync::atomic::Ordering::Relaxed);
                let play = j.best_play(&pos, r);
                let valued = counting.0.load(std::sync::atomic::Ordering::Relaxed) - before;
                assert_eq!(play, j.best(&pos, r).0, "{pos:?} {r:?}");
                if list.len() == 1 {
                    assert_eq!(valued, 0, "{pos:?} {r:?}");
                    forced += 1;
                } else {
                    chosen += 1;
                }
            }
        }
        assert!(
            forced > 50 && chosen > 1000,
            "{forced} forced, {chosen} chosen"
        );
    }
}
