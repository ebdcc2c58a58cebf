//! One trial: a game played from a start position by the rollout's players, with the luck
//! of every roll measured for variance reduction.
//!
//! Luck of a roll (variance reduction): with `f(r)` the evaluator's value (depth 1, the
//! mover's view) after the best play of roll `r` by the evaluator's cubeless equity,
//! `luck = f(actual roll) - sum over the 21 rolls of weight(r)/36 * f(r)`. Its expectation
//! over the roll is zero whatever the position, so the trial's result minus the sum of its
//! luck terms estimates the same thing as the result, with less spread the better the
//! evaluator predicts the game. All five probabilities and the equity get the same
//! treatment (the equity is linear in them, so the adjusted equity is the equity of the
//! adjusted probabilities).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::dice::TrialDice;
use super::stats::{Vector, COMPONENTS};
use crate::engine::{build as engine_build, Engine, EngineSpec};
use crate::eval::luck::{After, Judge};
use crate::eval::neural::finished;
use crate::eval::{Evaluator, Probabilities};
use crate::game::{Dice, Play, Position, ALL_ROLLS};
use crate::search::Cancel;

/// Games longer than this are cut and valued by the evaluator (real games end long before;
/// this only bounds a pathological one).
pub(super) const MAX_PLIES: u32 = 10_000;
/// The plies whose best plays a thread remembers from trial to trial: every trial of a
/// start begins there, so the first rolls' positions repeat (with stratified dice, each
/// first roll in every 36th trial, each pair of rolls in every 1,296th).
const REMEMBERED_PLIES: u32 = 3;
/// The most best plays a thread remembers (about 100 bytes each).
const REMEMBERED_MOST: usize = 1 << 16;

/// How a trial is played and scored.
#[derive(Debug, Clone, Copy)]
pub struct TrialSettings {
    /// Stop after this many plies and value the position with the evaluator.
    pub truncate: Option<u32>,
    pub variance_reduction: bool,
}

/// A trial's result from the view of the side to roll at the start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialResult {
    /// The result minus the luck (equal to `raw` without variance reduction).
    pub adjusted: Vector,
    /// The plain result: the game's outcome, or the evaluator's value where it was cut.
    pub raw: Vector,
}

/// `[w, wg, wbg, lg, lbg, equity]` of probabilities.
pub fn value_of(p: &Probabilities) -> Vector {
    let q = p.0.map(f64::from);
    [
        q[0],
        q[1],
        q[2],
        q[3],
        q[4],
        2.0 * q[0] - 1.0 + q[1] - q[3] + q[2] - q[4],
    ]
}

/// A value seen from the other side.
pub fn invert_value(v: &Vector) -> Vector {
    [1.0 - v[0], v[3], v[4], v[1], v[2], -v[5]]
}

/// A difference of two values seen from the other side.
fn invert_difference(d: &Vector) -> Vector {
    [-d[0], d[3], d[4], d[1], d[2], -d[5]]
}

pub(super) fn sub(a: &Vector, b: &Vector) -> Vector {
    std::array::from_fn(|i| a[i] - b[i])
}

/// The players of one worker thread (both sides play alike) with their scratch space.
pub struct Player {
    pub(super) evaluator: Arc<dyn Evaluator>,
    pub(super) spec: EngineSpec,
    /// This trial's engine when plays are searched (depth > 1): a fresh table per trial, so
    /// a trial's plays never depend on which trials the thread played before.
    pub(super) engine: Option<Engine>,
    pub(super) judge: Judge,
    pub(super) cancel: Cancel,
    pub(super) scratch: super::cubeful::CubefulScratch,
    /// The best play of each position and roll met in the first [`REMEMBERED_PLIES`]
    /// plies of this thread's trials, with its value: what [`Player::best_static`] would
    /// compute again (the evaluator's values do not depend on what it valued before).
    remembered: HashMap<(Position, Dice), (Play, Vector)>,
}

impl Player {
    pub fn new(spec: &EngineSpec, evaluator: Arc<dyn Evaluator>) -> Player {
        Player {
            judge: Judge::new(evaluator.clone(), "rollout"),
            evaluator,
            spec: spec.clone(),
            engine: None,
            cancel: Cancel::new(),
            scratch: super::cubeful::CubefulScratch::default(),
            remembered: HashMap::new(),
        }
    }

    pub(super) fn searches(&self) -> bool {
        self.spec.depth.get() > 1
    }

    /// The best play of `dice` by the evaluator's cubeless equity (the first of equals in
    /// move-generation order) and its value for the mover.
    fn best_static(&mut self, pos: &Position, dice: Dice) -> (Play, Vector) {
        let (play, after) = self.judge.best(pos, dice);
        let value = match after {
            After::Won(r) => value_of(&Probabilities::from_result(r, true)),
            After::Opponent(p) => invert_value(&value_of(&p)),
        };
        (play, value)
    }

    /// [`Player::best_static`] at ply `ply` of a trial: remembered from an earlier trial
    /// in the first plies.
    fn best_static_at(&mut self, pos: &Position, dice: Dice, ply: u32) -> (Play, Vector) {
        if ply >= REMEMBERED_PLIES {
            return self.best_static(pos, dice);
        }
        if let Some(&found) = self.remembered.get(&(*pos, dice)) {
            return found;
        }
        let found = self.best_static(pos, dice);
        if self.remembered.len() < REMEMBERED_MOST {
            self.remembered.insert((*pos, dice), found);
        }
        found
    }

    /// The play of a searching player.
    fn searched(&mut self, pos: &Position, dice: Dice) -> Play {
        let depth = self.spec.depth.get();
        let found = self
            .engine
            .as_ref()
            .and_then(|e| e.rank_plays(pos, dice, depth, &self.cancel).ok())
            .and_then(|plays| plays.first().map(|p| p.play));
        match found {
            Some(p) => p,
            None => self.best_static(pos, dice).0,
        }
    }

    pub(super) fn evaluate(&self, pos: &Position) -> Vector {
        value_of(&self.evaluator.evaluate(pos))
    }

    /// Plays one trial from `start` (its side to roll) on `dice`. `None` when `stop` was
    /// raised first.
    pub fn play(
        &mut self,
        start: &Position,
        dice: &mut TrialDice,
        settings: &TrialSettings,
        stop: &AtomicBool,
    ) -> Option<TrialResult> {
        if let Some(p) = finished(start) {
            let v = value_of(&p);
            return Some(TrialResult {
                adjusted: v,
                raw: v,
            });
        }
        if settings.truncate == Some(0) {
            let v = self.evaluate(start);
            return Some(TrialResult {
                adjusted: v,
                raw: v,
            });
        }
        if self.searches() {
            self.engine = Some(engine_build::engine_with(
                &self.spec,
                engine_build::searcher(&self.spec, self.evaluator.clone()),
            ));
        }
        let mut pos = *start;
        // Whether the side to act in `pos` is the start's roller.
        let mut starter = true;
        let mut luck = [0.0; COMPONENTS];
        let mut ply = 0u32;
        let raw = loop {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let roll = dice.roll(ply);
            let play = if settings.variance_reduction {
                let mut mean = [0.0; COMPONENTS];
                let mut actual = None;
                for r in ALL_ROLLS {
                    let (play, v) = self.best_static_at(&pos, r, ply);
                    let w = r.weight() as f64;
                    for i in 0..COMPONENTS {
                        mean[i] += w * v[i];
                    }
                    if r == roll {
                        actual = Some((play, v));
                    }
                }
                // Weights out of 36 summed first: a roll-independent value then has no
                // luck at all, not a rounding error's worth.
                for m in &mut mean {
                    *m /= 36.0;
                }
                let (best, v) = match actual {
                    Some(a) => a,
                    None => self.best_static_at(&pos, roll, ply),
                };
                let l = sub(&v, &mean);
                let l = if starter { l } else { invert_difference(&l) };
                for i in 0..COMPONENTS {
                    luck[i] += l[i];
                }
                if self.searches() {
                    self.searched(&pos, roll)
                } else {
                    best
                }
            } else if self.searches() {
                self.searched(&pos, roll)
            } else if ply < REMEMBERED_PLIES {
                self.best_static_at(&pos, roll, ply).0
            } else {
                self.judge.best_play(&pos, roll)
            };
            ply += 1;
            if let Some(r) = play.position.mover_result() {
                let v = value_of(&Probabilities::from_result(r, true));
                break if starter { v } else { invert_value(&v) };
            }
            pos = play.next_position();
            starter = !starter;
            if settings.truncate.is_some_and(|t| ply >= t) || ply >= MAX_PLIES {
                let v = self.evaluate(&pos);
                break if starter { v } else { invert_value(&v) };
            }
        };
        self.engine = None;
        Some(TrialResult {
            adjusted: sub(&raw, &luck),
            raw,
        })
    }
}
