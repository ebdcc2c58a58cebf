//! Cubeful trials: games played with the cube alive, both sides taking the engine's cube
//! decisions, scored in cubeful points (money) or match-winning chance (match play).
//!
//! How a cubeful trial is played:
//! - Before each roll the side to roll, where it may double (its cube or a centred one, not
//!   the Crawford game, not a dead cube), takes the engine's cube decision: probabilities at
//!   the spec's cube depth, the cube model of [`crate::cube`] with the rules in force for the
//!   state ([`Engine::rules_for`]: Jacoby, beavers), exactly as `hint` decides. A double is
//!   answered by the same analysis: a pass ends the game (the doubler wins the cube's
//!   value), a take doubles the cube and gives it to the taker, a beaver (money play with
//!   beavers) quadruples it, the taker keeping it.
//! - Checker plays: at depth 1 the legal play with the best cubeful value at the score for
//!   the mover (the opponent's cubeful value at its cube, from the evaluator's
//!   probabilities after the play; the first of equals in move-generation order), the
//!   play the engine itself makes at depth 1; deeper, the engine's search at the spec's
//!   depth (a fresh table per trial).
//! - Result: money, the points won or lost (the result times the cube; a gammon counts one
//!   point with a centred cube under the Jacoby rule) divided by the start's cube `unit`;
//!   match play, the match-winning chance after the game. A truncated game is valued by
//!   the cubeful value of the side to roll at its cube. All from the view of the start's
//!   roller (or its opponent, for the plays of a roll).
//! - Variance reduction: the luck of a roll is `f(actual) - mean over the 21 rolls of
//!   f(r)`, with `f(r)` the mover's cubeful value (in the result's unit) after the depth-1
//!   play of roll `r`, at the cube as it stands for that roll. A cube turn carries no luck
//!   (nothing random happens). The luck has mean zero whatever the players, so the
//!   adjusted result estimates the same value.
//! - The five probabilities of a cubeful trial are those of the game's end as played (a
//!   passed double counts as a single game won; a truncated game as the evaluator's
//!   probabilities there), without variance reduction; the equity slot holds the cubeful
//!   value.

use std::sync::atomic::{AtomicBool, Ordering};

use super::dice::TrialDice;
use super::stats::{Vector, COMPONENTS, EQUITY};
use super::trial::{invert_value, value_of, Player, TrialResult, TrialSettings, MAX_PLIES};
use crate::cube::{self, TakeAction};
use crate::engine::{build as engine_build, cube_view, no_cube_reason, utility, Action, Engine};
use crate::eval::Probabilities;
use crate::game::{
    generate_plays, CubeOwner, Decision, Dice, GameResult, MatchState, Play, PlayList, Position,
    ALL_ROLLS,
};

/// The largest cube a trial turns (the largest a match state may hold).
const MAX_CUBE: u32 = 4096;

/// A start of a cubeful trial.
#[derive(Debug, Clone)]
pub struct CubefulStart {
    /// The state with its acting side about to roll (its decision is ignored: the trial
    /// starts before that side's roll).
    pub state: MatchState,
    /// Whether the side to roll may turn the cube before its first roll (false: the "no
    /// double" of a cube decision).
    pub cube_now: bool,
    /// Money play: results are points per this cube value.
    pub unit: u32,
    /// Results for the other side (the one that just played to reach `state`).
    pub for_opponent: bool,
}

/// Scratch space of depth-1 cubeful choices.
pub struct CubefulScratch {
    list: PlayList,
    positions: Vec<Position>,
    probs: Vec<Probabilities>,
}

impl Default for CubefulScratch {
    fn default() -> CubefulScratch {
        CubefulScratch {
            list: PlayList::new(),
            positions: Vec::with_capacity(64),
            probs: Vec::with_capacity(64),
        }
    }
}

/// A value of `mover` turned into the other side's: money `-v`, match `1 - v`.
fn other_side(v: f64, money: bool) -> f64 {
    if money {
        -v
    } else {
        1.0 - v
    }
}

/// What the mover of `state` (its acting side) gets for ending the game with `result`:
/// points (the cube's value times the result, a gammon counting one with a centred cube
/// under the Jacoby rule) or its match-winning chance.
pub fn result_value(engine: &Engine, state: &MatchState, result: GameResult, won: bool) -> f64 {
    let view = cube_view(state);
    let mut k = result.points();
    if state.is_money() {
        if engine.rules_for(state).jacoby && state.cube_owner == CubeOwner::Centered {
            k = 1;
        }
        let points = (k as f64) * state.cube as f64;
        return if won { points } else { -points };
    }
    let idx = (k.clamp(1, 3) - 1) as usize;
    match cube::result_chances(&view) {
        Some((win, lose)) => {
            if won {
                win[idx]
            } else {
                lose[idx]
            }
        }
        None => 0.0,
    }
}

/// The acting side's cubeful value at its cube from its probabilities `p` (before rolling):
/// points (money, times the cube) or match-winning chance.
fn cubeful_points(engine: &Engine, state: &MatchState, p: &Probabilities) -> f64 {
    let rules = engine.rules_for(state);
    let x = rules.efficiency(state.position.phase(), state.position.pips());
    let v = cube::cubeful_value(p, &cube_view(state), &rules, x);
    if state.is_money() {
        v * state.cube as f64
    } else {
        v
    }
}

/// The state of the side that would double when `state` asks a take question (the
/// doubler's view, before its roll); other states as they are, about to roll.
pub fn roller_state(state: &MatchState) -> MatchState {
    if state.decision == Decision::TakeOrDrop {
        MatchState {
            position: state.position.swap(),
            decision: Decision::DoubleOrRoll,
            cube_owner: state.cube_owner.swap(),
            may_double: state.opp_may_double,
            opp_may_double: state.may_double,
            score: state.opp_score,
            opp_score: state.score,
            acting_player: 1 - state.acting_player.min(1),
            names: (state.names.1.clone(), state.names.0.clone()),
            ..state.clone()
        }
    } else {
        MatchState {
            decision: Decision::DoubleOrRoll,
            ..state.clone()
        }
    }
}

/// What values the plays of the acting side of a state: the cube as the opponent sees it
/// after any play, and the rules in force then (the same for every play of every roll).
struct After {
    /// The cube as the opponent sees it after the play, valued by the engine's rules.
    value: cube::CubefulValue,
    cube: f64,
    money: bool,
}

impl After {
    fn of(engine: &Engine, state: &MatchState) -> After {
        let after = state.after_play(&Play::none(state.position));
        After {
            value: cube::CubefulValue::new(cube_view(&after), engine.rules_for(&after)),
            cube: after.cube as f64,
            money: after.is_money(),
        }
    }

    /// The mover's value of a play that leaves `next` (the opponent to roll) with the
    /// opponent's probabilities `p` there.
    fn value(&self, next: &Position, p: &Probabilities) -> f64 {
        let x = self.value.settings().efficiency(next.phase(), next.pips());
        let v = self.value.value(p, x);
        if self.money {
            -v * self.cube
        } else {
            1.0 - v
        }
    }
}

impl Player {
    /// The depth-1 cubeful choice of `dice` for the acting side of `state`: the play with
    /// the best value for the mover and that value (points or match-winning chance).
    fn best_cubeful(
        &mut self,
        engine: &Engine,
        state: &MatchState,
        after: &After,
        dice: Dice,
    ) -> (Play, f64) {
        let s = &mut self.scratch;
        generate_plays(&state.position, dice, &mut s.list);
        s.positions.clear();
        for play in s.list.iter() {
            if play.position.mover_result().is_none() {
                s.positions.push(play.next_position());
            }
        }
        s.probs.clear();
        s.probs.resize(s.positions.len(), Probabilities::default());
        self.evaluator.evaluate_batch(&s.positions, &mut s.probs);
        let mut evaluated = s.positions.iter().zip(s.probs.iter());
        let mut best: Option<(Play, f64)> = None;
        for play in s.list.iter() {
            let value = match play.position.mover_result() {
                Some(r) => result_value(engine, state, r, true),
                None => match evaluated.next() {
                    Some((next, p)) => after.value(next, p),
                    None => continue,
                },
            };
            if best.as_ref().is_none_or(|(_, b)| value > *b) {
                best = Some((*play, value));
            }
        }
        match best {
            Some(b) => b,
            None => {
                let none = Play::none(state.position);
                let next = none.next_position();
                let p = self.evaluator.evaluate(&next);
                (none, after.value(&next, &p))
            }
        }
    }

    /// The probabilities the cube decision of the acting side of `state` is taken on.
    fn cube_probabilities(&self, engine: &Engine, state: &MatchState) -> Probabilities {
        let depth = self.spec.cube_depth.get();
        if depth > 1 {
            let u = utility(&cube_view(state));
            if let Ok(p) = engine.probabilities_for(&state.position, depth, u, &self.cancel) {
                return p;
            }
        }
        self.evaluator.evaluate(&state.position)
    }

    /// Plays one cubeful trial from `start` on `dice`; `base` is the rollout's engine (its
    /// cube rules and model). `None` when `stop` was raised first.
    pub fn play_cubeful(
        &mut self,
        base: &Engine,
        start: &CubefulStart,
        dice: &mut TrialDice,
        settings: &TrialSettings,
        stop: &AtomicBool,
    ) -> Option<TrialResult> {
        let result = self.cubeful_game(base, start, dice, settings, stop)?;
        let money = start.state.is_money();
        let unit = if money { start.unit.max(1) as f64 } else { 1.0 };
        let scale = |mut v: Vector| {
            v[EQUITY] /= unit;
            v
        };
        let (adjusted, raw) = (scale(result.adjusted), scale(result.raw));
        Some(if start.for_opponent {
            let flip = |v: &Vector| {
                let mut w = invert_value(v);
                w[EQUITY] = other_side(v[EQUITY], money);
                w
            };
            TrialResult {
                adjusted: flip(&adjusted),
                raw: flip(&raw),
            }
        } else {
            TrialResult { adjusted, raw }
        })
    }

    /// The game of a cubeful trial, for the start's roller, in points or match-winning
    /// chance (not yet per unit).
    fn cubeful_game(
        &mut self,
        base: &Engine,
        start: &CubefulStart,
        dice: &mut TrialDice,
        settings: &TrialSettings,
        stop: &AtomicBool,
    ) -> Option<TrialResult> {
        let mut state = MatchState {
            decision: Decision::DoubleOrRoll,
            ..start.state.clone()
        };
        let money = state.is_money();
        // Where the game stands when it ends: the mover's probabilities of the result and
        // its value, and whether the mover is the start's roller.
        let end = |probs: Probabilities, value: f64, starter: bool| -> Vector {
            let mut v = value_of(&probs);
            v[EQUITY] = value;
            if starter {
                v
            } else {
                let mut w = invert_value(&v);
                w[EQUITY] = other_side(value, money);
                w
            }
        };
        if let Some(p) = crate::eval::neural::finished(&state.position) {
            // Only the side that just played can have borne off: the roller lost.
            let v = end(p, self.finished_value(base, &state, &p), true);
            return Some(TrialResult {
                adjusted: v,
                raw: v,
            });
        }
        let searching = self.searches() || self.spec.cube_depth.get() > 1;
        if searching {
            self.engine = Some(engine_build::engine_with(
                &self.spec,
                engine_build::searcher(&self.spec, self.evaluator.clone()),
            ));
        }
        let mut starter = true;
        let mut cube_now = start.cube_now;
        let mut luck = 0.0;
        let mut ply = 0u32;
        let raw = loop {
            if stop.load(Ordering::Relaxed) {
                self.engine = None;
                return None;
            }
            if cube_now && no_cube_reason(&state).is_none() && state.cube < MAX_CUBE {
                let engine = self.engine.as_ref().unwrap_or(base);
                let p = self.cube_probabilities(engine, &state);
                let d = base.cube_analysis(&state, &p);
                if d.action.doubles() {
                    match d.response {
                        TakeAction::Drop => {
                            let value = result_value(base, &state, GameResult::Single, true);
                            let probs = Probabilities::from_result(GameResult::Single, true);
                            break end(probs, value, starter);
                        }
                        TakeAction::Take => state.cube *= 2,
                        TakeAction::Beaver => state.cube = (state.cube * 4).min(MAX_CUBE),
                    }
                    state.cube_owner = CubeOwner::Opponent;
                }
            }
            cube_now = true;
            let roll = dice.roll(ply);
            let after = After::of(base, &state);
            let mut chosen = None;
            if settings.variance_reduction {
                let mut mean = 0.0;
                let mut actual = None;
                for r in ALL_ROLLS {
                    let (play, v) = self.best_cubeful(base, &state, &after, r);
                    mean += r.weight() as f64 * v;
                    if r == roll {
                        actual = Some((play, v));
                    }
                }
                mean /= 36.0;
                let (play, v) = match actual {
                    Some(a) => a,
                    None => self.best_cubeful(base, &state, &after, roll),
                };
                // A difference of mover values is the negated difference for the other side.
                luck += if starter { v - mean } else { mean - v };
                chosen = Some(play);
            }
            let play = if searching && self.spec.depth.get() > 1 {
                self.searched_cubeful(&state, roll)
            } else {
                None
            };
            let play = match (play, chosen) {
                (Some(p), _) | (None, Some(p)) => p,
                (None, None) => self.best_cubeful(base, &state, &after, roll).0,
            };
            ply += 1;
            if let Some(r) = play.position.mover_result() {
                let value = result_value(base, &state, r, true);
                break end(Probabilities::from_result(r, true), value, starter);
            }
            state = state.after_play(&play);
            starter = !starter;
            if settings.truncate.is_some_and(|t| ply >= t) || ply >= MAX_PLIES {
                let p = self.evaluator.evaluate(&state.position);
                let value = cubeful_points(base, &state, &p);
                break end(p, value, starter);
            }
        };
        self.engine = None;
        let mut adjusted = raw;
        adjusted[EQUITY] -= luck;
        debug_assert_eq!(adjusted.len(), COMPONENTS);
        Some(TrialResult { adjusted, raw })
    }

    /// The searching player's play of `roll` for the acting side of `state` (the engine's
    /// own decision at its depth, at the score).
    fn searched_cubeful(&mut self, state: &MatchState, roll: Dice) -> Option<Play> {
        let engine = self.engine.as_ref()?;
        let s = MatchState {
            decision: Decision::Move(roll),
            ..state.clone()
        };
        match engine.decide(&s, &self.cancel) {
            Ok(Action::Move(p)) => Some(p),
            _ => None,
        }
    }

    /// The value of a start whose game is already over, for its roller (`p`: its exact
    /// probabilities).
    fn finished_value(&self, base: &Engine, state: &MatchState, p: &Probabilities) -> f64 {
        let won = p.0[0] > 0.5;
        let (g, bg) = if won {
            (p.0[1], p.0[2])
        } else {
            (p.0[3], p.0[4])
        };
        let result = if bg > 0.5 {
            GameResult::Backgammon
        } else if g > 0.5 {
            GameResult::Gammon
        } else {
            GameResult::Single
        };
        result_value(base, state, result, won)
    }
}
