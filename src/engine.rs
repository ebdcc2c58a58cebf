//! The engine facade: "given this match state and these settings, what do I do?"
//!
//! Every front end (gnubg's external-player mode, the external-interface requests, UBGI, the
//! CLI) turns its input into a [`MatchState`] and asks an [`Engine`]; the engine asks a
//! [`Decider`] for cubeless probabilities (ranked plays at a depth, or a position's
//! probabilities before rolling) and turns them into an [`Action`] with the match score and
//! the cube in mind ([`crate::cube`]). Engines are synchronous and CPU-bound: the server runs
//! them on worker threads, never on the async runtime.
//!
//! [`ExpectimaxDecider`] is the decider built into this module: full-width expectimax over
//! [`generate_plays`] with any [`Evaluator`] at the leaves (depth 1 = each play evaluated
//! statically, depth 3 = one more roll-and-reply layer, ...). It honours a cancel flag and a
//! deadline so that abandoned or over-long decisions stop early.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::cube::{self, CubeSettings, CubeView, TakeAction};
use crate::eval::{Evaluator, Probabilities};
use crate::game::{
    generate_plays, CubeOwner, Decision, Dice, MatchState, Play, PlayList, Position, ALL_ROLLS,
};

/// What the acting side does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Play this (possibly empty) play.
    Move(Play),
    Roll,
    Double,
    Take,
    Drop,
    Beaver,
    AcceptResignation,
    RejectResignation,
    /// Nothing to decide (the game is over).
    Nothing,
}

/// Why a decision did not complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineError {
    /// The cancel flag was raised (the client went away, or the server is stopping).
    Cancelled,
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Cancelled => f.write_str("the decision was cancelled"),
        }
    }
}

impl std::error::Error for EngineError {}

/// Stops a decision early: a cancel flag (checked often) and an optional deadline after which
/// a deeper search gives up and the best completed depth answers.
#[derive(Debug, Clone)]
pub struct Limits {
    pub cancel: Arc<AtomicBool>,
    pub deadline: Option<Instant>,
}

impl Limits {
    /// No deadline, a fresh cancel flag.
    pub fn none() -> Limits {
        Limits {
            cancel: Arc::new(AtomicBool::new(false)),
            deadline: None,
        }
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    fn expired(&self) -> bool {
        self.cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// A play with the cubeless probabilities of the side that made it, after the play (the
/// opponent to roll next).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankedPlay {
    pub play: Play,
    pub probs: Probabilities,
}

/// Cubeless search: the part of a decision that depends only on the position.
pub trait Decider: Send + Sync {
    /// Every legal play with its probabilities at `depth`, best first by cubeless money
    /// equity. `Err(Cancelled)` when the limits stopped the search before depth 1 finished.
    fn rank_plays(
        &self,
        pos: &Position,
        dice: Dice,
        depth: u32,
        limits: &Limits,
    ) -> Result<Vec<RankedPlay>, EngineError>;

    /// Probabilities of the side to act in `pos`, before it rolls, at `depth`.
    fn probabilities(
        &self,
        pos: &Position,
        depth: u32,
        limits: &Limits,
    ) -> Result<Probabilities, EngineError>;

    /// A short description for logs and `version`.
    fn name(&self) -> String;
}

/// Full-width expectimax over an evaluator (see the module docs).
pub struct ExpectimaxDecider {
    evaluator: Arc<dyn Evaluator>,
}

impl std::fmt::Debug for ExpectimaxDecider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ExpectimaxDecider({})", self.evaluator.name())
    }
}

impl ExpectimaxDecider {
    pub fn new(evaluator: Arc<dyn Evaluator>) -> ExpectimaxDecider {
        ExpectimaxDecider { evaluator }
    }

    /// Probabilities of the side to act before rolling, with `layers` chance/move layer
    /// pairs below (0 = static). `None` when the limits expired.
    fn chance(&self, pos: &Position, layers: u32, limits: &Limits) -> Option<Probabilities> {
        if layers == 0 || pos.is_game_over() {
            return Some(self.evaluator.evaluate(pos));
        }
        if limits.expired() {
            return None;
        }
        let mut sum = [0f64; 5];
        let mut list = PlayList::new();
        for dice in ALL_ROLLS {
            generate_plays(pos, dice, &mut list);
            let mut best: Option<(f32, Probabilities)> = None;
            for play in list.iter() {
                let p = self
                    .chance(&play.next_position(), layers - 1, limits)?
                    .invert();
                let e = p.equity();
                if best.map_or(true, |(b, _)| e > b) {
                    best = Some((e, p));
                }
            }
            let w = dice.probability();
            if let Some((_, p)) = best {
                for (s, v) in sum.iter_mut().zip(p.0) {
                    *s += w * v as f64;
                }
            }
        }
        Some(Probabilities(sum.map(|v| v as f32)))
    }

    fn rank_at(
        &self,
        pos: &Position,
        dice: Dice,
        depth: u32,
        limits: &Limits,
    ) -> Option<Vec<RankedPlay>> {
        let mut list = PlayList::new();
        generate_plays(pos, dice, &mut list);
        let layers = depth.saturating_sub(1) / 2;
        let mut out = Vec::with_capacity(list.len());
        for play in list.iter() {
            if limits.cancelled() {
                return None;
            }
            let probs = if layers == 0 {
                let next = play.next_position();
                match next.opponent_result() {
                    Some(r) => Probabilities::from_result(r, true),
                    None => self.evaluator.evaluate(&next).invert(),
                }
            } else {
                self.chance(&play.next_position(), layers, limits)?.invert()
            };
            out.push(RankedPlay { play: *play, probs });
        }
        out.sort_by(|a, b| b.probs.equity().total_cmp(&a.probs.equity()));
        Some(out)
    }
}

impl Decider for ExpectimaxDecider {
    fn rank_plays(
        &self,
        pos: &Position,
        dice: Dice,
        depth: u32,
        limits: &Limits,
    ) -> Result<Vec<RankedPlay>, EngineError> {
        // Depth 1 always completes (unless cancelled); deeper levels stop at the deadline.
        let mut best = self
            .rank_at(
                pos,
                dice,
                1,
                &Limits {
                    cancel: limits.cancel.clone(),
                    deadline: None,
                },
            )
            .ok_or(EngineError::Cancelled)?;
        let mut d = 3;
        while d <= depth.max(1) {
            if best.len() <= 1 {
                break;
            }
            match self.rank_at(pos, dice, d, limits) {
                Some(r) => best = r,
                None if limits.cancelled() => return Err(EngineError::Cancelled),
                None => break,
            }
            d += 2;
        }
        Ok(best)
    }

    fn probabilities(
        &self,
        pos: &Position,
        depth: u32,
        limits: &Limits,
    ) -> Result<Probabilities, EngineError> {
        let mut best = self.evaluator.evaluate(pos);
        let mut layers = 1;
        while 2 * layers < depth.max(1) {
            match self.chance(pos, layers, limits) {
                Some(p) => best = p,
                None if limits.cancelled() => return Err(EngineError::Cancelled),
                None => break,
            }
            layers += 1;
        }
        if limits.cancelled() {
            return Err(EngineError::Cancelled);
        }
        Ok(best)
    }

    fn name(&self) -> String {
        format!("expectimax/{}", self.evaluator.name())
    }
}

/// How the engine plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineSettings {
    /// Search depth for checker plays (1 = static evaluation of each play).
    pub depth: u32,
    /// Search depth for cube decisions.
    pub cube_depth: u32,
    /// Per-decision time budget in milliseconds (0 = none): deeper levels stop at the budget
    /// and the best completed depth answers.
    pub time_budget_ms: u64,
    /// Rank plays by cubeful value (cube position and score aware) rather than cubeless.
    pub cubeful_plays: bool,
    pub cube: CubeSettings,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            depth: 1,
            cube_depth: 1,
            time_budget_ms: 0,
            cubeful_plays: true,
            cube: CubeSettings::default(),
        }
    }
}

/// Options of an evaluation request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvalOptions {
    pub depth: u32,
    pub cubeful: bool,
    /// Standard deviation of noise added to the value (0 = none).
    pub noise: f64,
    /// Noise derived from the position (the same position always gets the same noise).
    pub deterministic: bool,
}

/// Probabilities of the acting side before rolling and its value: money equity (per unit of
/// cube) or match-winning chance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvalReport {
    pub probs: Probabilities,
    pub value: f64,
}

/// The facade. Cheap to clone and share between worker threads.
#[derive(Clone)]
pub struct Engine {
    decider: Arc<dyn Decider>,
    settings: EngineSettings,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("decider", &self.decider.name())
            .field("settings", &self.settings)
            .finish()
    }
}

/// The cube as the acting side of `state` sees it.
pub fn cube_view(state: &MatchState) -> CubeView {
    CubeView {
        cube: state.cube,
        owner: state.cube_owner,
        match_length: state.match_length,
        away: state.away(),
        opp_away: state.opp_away(),
        crawford: state.crawford,
        post_crawford: state.post_crawford,
    }
}

impl Engine {
    pub fn new(decider: Arc<dyn Decider>, settings: EngineSettings) -> Engine {
        Engine { decider, settings }
    }

    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    pub fn decider_name(&self) -> String {
        self.decider.name()
    }

    fn limits_with_budget(&self, limits: &Limits) -> Limits {
        let deadline = if self.settings.time_budget_ms > 0 {
            let budget =
                Instant::now() + std::time::Duration::from_millis(self.settings.time_budget_ms);
            Some(limits.deadline.map_or(budget, |d| d.min(budget)))
        } else {
            limits.deadline
        };
        Limits {
            cancel: limits.cancel.clone(),
            deadline,
        }
    }

    fn efficiency(&self, pos: &Position) -> f64 {
        self.settings.cube.efficiency(pos.phase(), pos.pips())
    }

    /// The mover's value of a play, from the probabilities after it (opponent to roll).
    fn play_value(&self, state: &MatchState, rp: &RankedPlay) -> f64 {
        let opp_view = cube_view(state).swap();
        let opp_probs = rp.probs.invert();
        let next = rp.play.next_position();
        let opp_value = if self.settings.cubeful_plays {
            cube::cubeful_value(
                &opp_probs,
                &opp_view,
                &self.settings.cube,
                self.efficiency(&next),
            )
        } else {
            cube::cubeless_value(&opp_probs, &opp_view)
        };
        if state.is_money() {
            -opp_value
        } else {
            1.0 - opp_value
        }
    }

    /// Plays ranked best first by the engine's value at the score, with that value.
    pub fn ranked_plays(
        &self,
        state: &MatchState,
        dice: Dice,
        limits: &Limits,
    ) -> Result<Vec<(RankedPlay, f64)>, EngineError> {
        let limits = self.limits_with_budget(limits);
        let ranked =
            self.decider
                .rank_plays(&state.position, dice, self.settings.depth, &limits)?;
        let mut valued: Vec<(RankedPlay, f64)> = ranked
            .into_iter()
            .map(|rp| {
                let v = self.play_value(state, &rp);
                (rp, v)
            })
            .collect();
        // Stable: ties keep the decider's order.
        valued.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(valued)
    }

    /// Probabilities of the side about to roll: the acting side, or for a take decision the
    /// doubler. Returned from the *acting* side's view.
    fn acting_probs(
        &self,
        state: &MatchState,
        depth: u32,
        limits: &Limits,
    ) -> Result<Probabilities, EngineError> {
        if matches!(state.decision, Decision::TakeOrDrop) {
            let doubler = self
                .decider
                .probabilities(&state.position.swap(), depth, limits)?;
            Ok(doubler.invert())
        } else {
            self.decider.probabilities(&state.position, depth, limits)
        }
    }

    /// The cube analysis for the acting side's cube question, from the roller's view (the
    /// acting side at "double or roll?", the doubler at "take or drop?").
    pub fn cube_decision(
        &self,
        state: &MatchState,
        limits: &Limits,
    ) -> Result<cube::CubeDecision, EngineError> {
        let limits = self.limits_with_budget(limits);
        let taking = state.decision == Decision::TakeOrDrop;
        let (roller_pos, view) = if taking {
            (state.position.swap(), cube_view(state).swap())
        } else {
            (state.position, cube_view(state))
        };
        let probs = self
            .decider
            .probabilities(&roller_pos, self.settings.cube_depth, &limits)?;
        let x = self.efficiency(&roller_pos);
        Ok(cube::analyse(&probs, &view, &self.settings.cube, x))
    }

    /// The action for the acting side of `state`.
    pub fn decide(&self, state: &MatchState, limits: &Limits) -> Result<Action, EngineError> {
        match state.decision {
            Decision::GameOver => Ok(Action::Nothing),
            Decision::Move(dice) => {
                let ranked = self.ranked_plays(state, dice, limits)?;
                let play = ranked
                    .first()
                    .map(|(rp, _)| rp.play)
                    .unwrap_or_else(|| Play::none(state.position));
                Ok(Action::Move(play))
            }
            Decision::DoubleOrRoll => {
                if !state.may_double || state.cube_owner == CubeOwner::Opponent || state.crawford {
                    return Ok(Action::Roll);
                }
                let d = self.cube_decision(state, limits)?;
                Ok(if d.action.doubles() {
                    Action::Double
                } else {
                    Action::Roll
                })
            }
            Decision::TakeOrDrop => {
                let d = self.cube_decision(state, limits)?;
                let beavers = self.settings.cube.beavers && state.is_money();
                Ok(match d.response {
                    TakeAction::Beaver if beavers => Action::Beaver,
                    TakeAction::Beaver | TakeAction::Take => Action::Take,
                    TakeAction::Drop => Action::Drop,
                })
            }
            Decision::BeaverAnswer => {
                // Our double was beavered: the opponent owns a cube at four times the old
                // value. Keep playing (take) unless that is worse than giving up twice it.
                let limits = self.limits_with_budget(limits);
                let probs = self.decider.probabilities(
                    &state.position,
                    self.settings.cube_depth,
                    &limits,
                )?;
                let x = self.efficiency(&state.position);
                let e = cube::money_equity(&probs, CubeOwner::Opponent, x, false);
                Ok(if 4.0 * e >= -2.0 {
                    Action::Take
                } else {
                    Action::Drop
                })
            }
        }
    }

    /// Answer to the opponent's offer to resign `points` (1 single, 2 gammon, 3 backgammon,
    /// times the cube): accept when it is worth at least as much as playing on.
    pub fn resignation(
        &self,
        state: &MatchState,
        points: u32,
        limits: &Limits,
    ) -> Result<Action, EngineError> {
        let limits = self.limits_with_budget(limits);
        let probs = self.acting_probs(state, self.settings.cube_depth, &limits)?;
        let mut view = cube_view(state);
        if state.decision == Decision::TakeOrDrop {
            // The doubled cube is not ours yet: value the game with the cube as it stands.
            view.owner = state.cube_owner;
        }
        let x = self.efficiency(&state.position);
        let play_on = cube::cubeful_value(&probs, &view, &self.settings.cube, x);
        let offered = if state.is_money() {
            points as f64
        } else {
            cube::met::mwc(
                state.away() as i64 - (points as i64) * state.cube as i64,
                state.opp_away() as i64,
                state.crawford || state.post_crawford,
            )
        };
        Ok(if offered + 1e-9 >= play_on {
            Action::AcceptResignation
        } else {
            Action::RejectResignation
        })
    }

    /// Probabilities and value of the acting side before rolling.
    pub fn evaluate(
        &self,
        state: &MatchState,
        opts: &EvalOptions,
        limits: &Limits,
    ) -> Result<EvalReport, EngineError> {
        let limits = self.limits_with_budget(limits);
        let probs = self.acting_probs(state, opts.depth, &limits)?;
        let view = cube_view(state);
        let mut value = if opts.cubeful {
            let x = self.efficiency(&state.position);
            cube::cubeful_value(&probs, &view, &self.settings.cube, x)
        } else {
            cube::cubeless_value(&probs, &view)
        };
        if opts.noise > 0.0 {
            let seed = if opts.deterministic {
                position_seed(&state.position)
            } else {
                NOISE_COUNTER.fetch_add(1, Ordering::Relaxed)
            };
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            value += opts.noise * standard_normal(&mut rng);
        }
        Ok(EvalReport { probs, value })
    }
}

/// Seeds for non-deterministic noise: a process-wide counter, so runs are reproducible given
/// the order of requests.
static NOISE_COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A stable seed from the checker layout (FNV-1a over the slots).
pub fn position_seed(pos: &Position) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &s in pos.slots() {
        h ^= s as u8 as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A standard normal variate (Box-Muller).
fn standard_normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = rng.gen::<f64>().max(f64::MIN_POSITIVE);
    let u2: f64 = rng.gen::<f64>();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// A simple race/contact evaluator for tests and tools that need *some* evaluator without
/// weights: the winning chance follows the pip-count lead (a logistic in the lead relative to
/// the race length), gammon chances grow when the loser has not borne off and trails far.
/// It is a baseline, not a strong player.
#[derive(Debug, Default, Clone, Copy)]
pub struct PipCountEvaluator;

impl Evaluator for PipCountEvaluator {
    fn evaluate(&self, pos: &Position) -> Probabilities {
        if let Some(r) = pos.mover_result() {
            return Probabilities::from_result(r, true);
        }
        if let Some(r) = pos.opponent_result() {
            return Probabilities::from_result(r, false);
        }
        // The side to roll gains about 4 pips (half a roll's worth of 8.17 pips).
        let mine = pos.pips() as f64 - 4.0;
        let theirs = pos.opp_pips() as f64;
        let scale = (mine + theirs).max(20.0).sqrt() * 0.9;
        let win = 1.0 / (1.0 + ((mine - theirs) / scale).exp());
        let gammon = |loser_off: u8, lead: f64| -> f64 {
            if loser_off > 0 {
                0.0
            } else {
                (0.3 / (1.0 + (-(lead - 40.0) / 15.0).exp())).clamp(0.0, 0.3)
            }
        };
        let wg = (gammon(pos.opp_off(), theirs - mine)).min(win);
        let lg = (gammon(pos.off(), mine - theirs)).min(1.0 - win);
        Probabilities([win as f32, wg as f32, 0.0, lg as f32, 0.0])
    }

    fn name(&self) -> String {
        "pipcount".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(depth: u32) -> Engine {
        let d = Arc::new(ExpectimaxDecider::new(Arc::new(PipCountEvaluator)));
        Engine::new(
            d,
            EngineSettings {
                depth,
                cube_depth: depth,
                ..EngineSettings::default()
            },
        )
    }

    #[test]
    fn move_decision_returns_a_legal_play() {
        let dice = Dice::new(3, 1).unwrap_or(ALL_ROLLS[0]);
        let state = MatchState::money(Position::OPENING, Decision::Move(dice));
        let legal = crate::game::legal_plays(&Position::OPENING, dice);
        for depth in [1, 3] {
            match engine(depth).decide(&state, &Limits::none()) {
                Ok(Action::Move(p)) => assert!(legal.contains(&p)),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn cancelled_decisions_stop() {
        let dice = Dice::new(6, 5).unwrap_or(ALL_ROLLS[0]);
        let state = MatchState::money(Position::OPENING, Decision::Move(dice));
        let limits = Limits::none();
        limits.cancel.store(true, Ordering::Relaxed);
        assert_eq!(
            engine(3).decide(&state, &limits),
            Err(EngineError::Cancelled)
        );
    }

    #[test]
    fn opening_position_is_not_a_double_and_is_a_take() {
        let e = engine(1);
        let state = MatchState::money(Position::OPENING, Decision::DoubleOrRoll);
        assert_eq!(e.decide(&state, &Limits::none()), Ok(Action::Roll));
        let state = MatchState::money(Position::OPENING, Decision::TakeOrDrop);
        assert_eq!(e.decide(&state, &Limits::none()), Ok(Action::Take));
    }

    #[test]
    fn crawford_game_never_doubles() {
        let e = engine(1);
        let mut state = MatchState::money(Position::OPENING, Decision::DoubleOrRoll);
        state.match_length = 5;
        state.score = 0;
        state.opp_score = 4;
        state.crawford = true;
        state.may_double = false;
        assert_eq!(e.decide(&state, &Limits::none()), Ok(Action::Roll));
    }

    #[test]
    fn evaluation_noise_is_deterministic_when_asked() {
        let e = engine(1);
        let state = MatchState::money(Position::OPENING, Decision::DoubleOrRoll);
        let opts = EvalOptions {
            depth: 1,
            cubeful: false,
            noise: 0.05,
            deterministic: true,
        };
        let a = e.evaluate(&state, &opts, &Limits::none());
        let b = e.evaluate(&state, &opts, &Limits::none());
        assert_eq!(a, b);
    }
}
