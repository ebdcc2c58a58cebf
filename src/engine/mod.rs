//! The engine facade: "given this match state and these settings, what do I do?"
//!
//! Every front end (gnubg's external-player mode, the external-interface requests, UBGI, the
//! CLI) turns its input into a [`Work`] item around a [`MatchState`]. Answering it takes two
//! steps so that the expensive part can run wherever the caller likes:
//! 1. [`Engine::need`] says what cubeless search result the work needs: ranked plays for a
//!    roll, or the probabilities of the side about to roll at a depth (or nothing, e.g. a
//!    "double or roll?" question without cube access). The server hands this to the search
//!    worker pool ([`crate::search::pool`]); [`Engine::run`] searches on the calling
//!    thread.
//! 2. [`Engine::complete`] turns that result into an [`Action`] or an [`EvalReport`] with
//!    the match score and the cube in mind ([`crate::cube`]). This step is cheap (no
//!    evaluations), and the server runs it on the worker thread too, in the job's reply.
//!
//! Play choice: at depth 1 every play's probabilities are exact, so plays are re-ranked by
//! their cubeful value at the score (money equity with the cube where it is, or match-winning
//! chance). At deeper searches the search's own ranking decides, since only the best play's
//! value is exact at the full depth: the value of the best line at the score, whose leaves
//! in a match with the cube in play are valued cubefully too ([`Engine::play_utility`]);
//! money play's deeper searches rank by cubeless equity.

use crate::game::Rng;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::cube::{self, CubeSettings, CubeView, TakeAction};
use crate::eval::Probabilities;
use crate::game::{CubeOwner, Decision, Dice, MatchState, Play, Position};
use crate::search::{
    Algorithm, Cancel, PositionEvaluation, RollChild, SearchSettings, Searcher, Utility,
};

pub mod build;
pub mod cube_detail;
pub mod game;
pub mod names;
pub mod spec;

pub use game::GameEngine;
pub use spec::{Budget, CubePolicy, Depth, EngineSpec, EvaluatorKind, Lookahead, Noise, SpecError};

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

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::Move(p) => write!(f, "move {p:?}"),
            Action::Roll => f.write_str("roll"),
            Action::Double => f.write_str("double"),
            Action::Take => f.write_str("take"),
            Action::Drop => f.write_str("drop"),
            Action::Beaver => f.write_str("beaver"),
            Action::AcceptResignation => f.write_str("accept the resignation"),
            Action::RejectResignation => f.write_str("reject the resignation"),
            Action::Nothing => f.write_str("nothing"),
        }
    }
}

/// Why a decision did not complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineError {
    /// The cancel flag was raised (the client went away, or the server is stopping).
    Cancelled,
    /// A search result of the wrong kind was supplied to [`Engine::complete`].
    WrongResult,
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Cancelled => f.write_str("the decision was cancelled"),
            EngineError::WrongResult => f.write_str("internal error: mismatched search result"),
        }
    }
}

impl std::error::Error for EngineError {}

/// A play with the cubeless probabilities of the side that made it, after the play (the
/// opponent to roll next).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayProbs {
    pub play: Play,
    pub probs: Probabilities,
}

impl From<&crate::search::RankedPlay> for PlayProbs {
    /// The play and its probabilities of a search's ranking.
    fn from(r: &crate::search::RankedPlay) -> PlayProbs {
        PlayProbs {
            play: r.play,
            probs: r.probs,
        }
    }
}

/// How searches are run: algorithm and time budget (the depth comes with each request).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchPlan {
    pub algorithm: Algorithm,
    /// Per-decision time budget (None = unlimited): deeper iterations stop at the budget
    /// and the deepest completed one answers.
    pub time_budget: Option<Duration>,
    /// Iterations up to this depth complete whatever the budget (1 = none guaranteed).
    pub min_depth: u32,
    /// Playouts and budget when the algorithm is MCTS.
    pub mcts: crate::search::mcts::MctsConfig,
    /// Root stages and reply width when the algorithm is the filter.
    pub filter: crate::search::FilterConfig,
    /// Plays valued per pruned move node ([`SearchSettings::prune`]; 0 = every play).
    pub prune: usize,
    /// Levels of rolls a position evaluation keeps ([`SearchSettings::rolls`]): the
    /// cube decisions' lookahead, at least 1.
    pub rolls: u8,
}

impl Default for SearchPlan {
    fn default() -> Self {
        SearchPlan {
            algorithm: Algorithm::Star2,
            time_budget: None,
            min_depth: 1,
            mcts: crate::search::mcts::MctsConfig::default(),
            filter: crate::search::FilterConfig::default(),
            prune: 0,
            rolls: 1,
        }
    }
}

impl SearchPlan {
    /// The search settings for one request at `depth` (clamped to the search's range).
    pub fn settings(&self, depth: u32) -> SearchSettings {
        let d = depth.clamp(1, crate::search::MAX_DEPTH as u32) as u8;
        let d = if d.is_multiple_of(2) { d - 1 } else { d };
        SearchSettings {
            time_budget: self.time_budget,
            min_depth: self.min_depth.min(crate::search::MAX_DEPTH as u32) as u8,
            mcts: self.mcts,
            filter: self.filter,
            prune: self.prune,
            rolls: self.rolls.max(1),
            ..SearchSettings::new(d, self.algorithm)
        }
    }
}

/// How the engine plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineSettings {
    /// Search depth for checker plays (1 = static evaluation of each play).
    pub depth: u32,
    /// Search depth for cube decisions (1 = static evaluation of the position).
    pub cube_depth: u32,
    /// Rolls looked ahead by cube decisions past the searched probabilities (0 = none;
    /// [`cube::analyse_rolls`]), as far as the search kept them.
    pub cube_lookahead: u8,
    /// Rank plays by cubeful value at the score (depth 1 only, see the module docs).
    pub cubeful_plays: bool,
    pub cube: CubeSettings,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            depth: 1,
            cube_depth: 1,
            cube_lookahead: 0,
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

/// One question for the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    /// The action for the acting side.
    Decide(MatchState),
    /// The opponent offers to resign this many points (1-3) per cube: accept or reject.
    Resignation(MatchState, u32),
    /// Probabilities and value of the acting side, before rolling.
    Evaluate(MatchState, EvalOptions),
}

impl Work {
    pub fn state(&self) -> &MatchState {
        match self {
            Work::Decide(s) | Work::Resignation(s, _) | Work::Evaluate(s, _) => s,
        }
    }
}

/// The cubeless search a [`Work`] needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Need {
    Nothing,
    /// Rank the plays of `dice` in `position` at `depth`, the search maximising `utility`.
    Plays {
        position: Position,
        dice: Dice,
        depth: u32,
        utility: Utility,
    },
    /// Probabilities of the side to roll in `position` at `depth`, the search choosing
    /// the plays below by `utility`.
    Probabilities {
        position: Position,
        depth: u32,
        utility: Utility,
    },
}

/// A search result for [`Engine::complete`].
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    Nothing,
    Plays(Vec<PlayProbs>),
    Probabilities(Probabilities),
    /// A searched position: its probabilities and the rolls below them.
    Position(PositionEvaluation),
}

/// What the engine answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    Action(Action),
    Evaluation(EvalReport),
}

/// The facade. Cheap to clone and share between worker threads.
#[derive(Clone)]
pub struct Engine {
    searcher: Searcher,
    plan: SearchPlan,
    settings: EngineSettings,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("name", &self.name())
            .field("plan", &self.plan)
            .field("settings", &self.settings)
            .finish()
    }
}

/// Why the roller cannot (usefully) double, in words, or `None` when it may.
pub fn no_cube_reason(state: &MatchState) -> Option<(&'static str, String)> {
    if matches!(
        state.decision,
        Decision::TakeOrDrop | Decision::BeaverAnswer
    ) {
        return None;
    }
    if state.crawford {
        return Some((
            "crawford",
            "Crawford game: no doubling in this game".to_string(),
        ));
    }
    if state.cube_owner == CubeOwner::Opponent || !state.may_double {
        return Some((
            "no_access",
            "the opponent owns the cube: no double possible".to_string(),
        ));
    }
    if !state.is_money() && state.cube >= state.away() {
        return Some((
            "dead_cube",
            format!(
                "Dead cube: a win at cube {} already wins the match ({} away)",
                state.cube,
                state.away()
            ),
        ));
    }
    None
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

/// What the searches of a decision maximise, for the side whose view `view` is: money
/// equity, or at a match score that side's match-winning chance with the cube where it
/// is, so that a gammon counts for what it is worth at the score (as depth 1 values plays
/// by [`cube::cubeless_value`] or [`cube::cubeful_value`] there).
pub fn utility(view: &CubeView) -> Utility {
    match cube::result_chances(view) {
        Some((win, lose)) => Utility::from_match_chances(win, lose),
        None => Utility::MONEY,
    }
}

/// Whether the game is played without the cube: in the middle, and neither side may turn
/// it (a cubeless game; also the Crawford game, where it is dead anyway).
fn cube_unused(state: &MatchState) -> bool {
    state.cube_owner == CubeOwner::Centered && !state.may_double && !state.opp_may_double
}

/// The cube as the side about to roll sees it (the doubler at a take question).
pub fn roller_view(state: &MatchState) -> CubeView {
    if roller(state).1 {
        cube_view(state).swap()
    } else {
        cube_view(state)
    }
}

/// The position of the side about to roll, and whether that is the acting side's opponent
/// (at a take question the doubler rolls next).
pub fn roller(state: &MatchState) -> (Position, bool) {
    if state.decision == Decision::TakeOrDrop {
        (state.position.swap(), true)
    } else {
        (state.position, false)
    }
}

impl Engine {
    /// An engine searching with `searcher` as `plan` says, playing by `settings`. Most
    /// callers build one from an [`EngineSpec`] with [`build::engine`].
    pub fn new(searcher: Searcher, plan: SearchPlan, settings: EngineSettings) -> Engine {
        Engine {
            searcher,
            plan,
            settings,
        }
    }

    pub fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    pub fn plan(&self) -> &SearchPlan {
        &self.plan
    }

    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// The same engine with other cube rules (per-request overrides).
    pub fn with_cube(&self, cube: CubeSettings) -> Engine {
        self.with_settings(EngineSettings {
            cube,
            ..self.settings
        })
    }

    /// The same engine with other settings.
    pub fn with_settings(&self, settings: EngineSettings) -> Engine {
        Engine {
            searcher: self.searcher.clone(),
            plan: self.plan,
            settings,
        }
    }

    /// A short description for logs and `version`.
    pub fn name(&self) -> String {
        format!(
            "{} search, {} evaluator",
            self.plan.algorithm,
            self.searcher.evaluator().name()
        )
    }

    /// Every legal play with its probabilities, best first by the search at `depth`.
    pub fn rank_plays(
        &self,
        pos: &Position,
        dice: Dice,
        depth: u32,
        cancel: &Cancel,
    ) -> Result<Vec<PlayProbs>, EngineError> {
        self.rank_plays_for(pos, dice, depth, Utility::MONEY, cancel)
    }

    /// [`Self::rank_plays`] with the search maximising `utility` (the value of results at
    /// a match score, [`utility`]).
    pub fn rank_plays_for(
        &self,
        pos: &Position,
        dice: Dice,
        depth: u32,
        utility: Utility,
        cancel: &Cancel,
    ) -> Result<Vec<PlayProbs>, EngineError> {
        let settings = SearchSettings {
            utility,
            ..self.plan.settings(depth)
        };
        let d = self.searcher.choose(pos, dice, &settings, cancel);
        if d.plays.is_empty() || (cancel.is_cancelled() && d.stopped && d.depth == 0) {
            return Err(EngineError::Cancelled);
        }
        Ok(d.plays.iter().map(PlayProbs::from).collect())
    }

    /// Probabilities of the side to act in `pos`, before it rolls, at `depth`.
    pub fn probabilities(
        &self,
        pos: &Position,
        depth: u32,
        cancel: &Cancel,
    ) -> Result<Probabilities, EngineError> {
        self.probabilities_for(pos, depth, Utility::MONEY, cancel)
    }

    /// [`Self::probabilities`] with the plays below chosen by `utility`.
    pub fn probabilities_for(
        &self,
        pos: &Position,
        depth: u32,
        utility: Utility,
        cancel: &Cancel,
    ) -> Result<Probabilities, EngineError> {
        Ok(self.evaluation_for(pos, depth, utility, cancel)?.probs)
    }

    /// [`Self::probabilities_for`] with the rest of the search's answer.
    pub fn evaluation_for(
        &self,
        pos: &Position,
        depth: u32,
        utility: Utility,
        cancel: &Cancel,
    ) -> Result<PositionEvaluation, EngineError> {
        let settings = SearchSettings {
            utility,
            ..self.plan.settings(depth)
        };
        let e = self.searcher.evaluate_position(pos, &settings, cancel);
        if cancel.is_cancelled() && e.depth == 0 {
            return Err(EngineError::Cancelled);
        }
        Ok(e)
    }

    /// The cube settings for `state`: the engine's, with the money rules the state itself
    /// states (an XGID's flags, a Match ID's Jacoby bit, a referee's own rules) in force
    /// over the engine's defaults.
    /// With the cube out of use (a centred cube neither side may turn) gammons count
    /// whatever the Jacoby rule says, as in gnubg.
    pub fn rules_for(&self, state: &MatchState) -> CubeSettings {
        let mut rules = self.settings.cube.under(state.rules);
        rules.jacoby &= !cube_unused(state);
        rules
    }

    fn efficiency(&self, pos: &Position) -> f64 {
        self.settings.cube.efficiency(pos.phase(), pos.pips())
    }

    /// What the search of a checker play in `state` maximises: [`utility`] at the score,
    /// its leaves valued cubefully (the cube where it is, [`Utility::with_cube`]) in a
    /// match whose cube is in play when the engine ranks plays cubefully, as depth 1 ranks
    /// them.
    pub fn play_utility(&self, state: &MatchState) -> Utility {
        self.play_utility_for(state, cube_view(state))
    }

    /// [`Engine::play_utility`] for the side whose view of the cube is `view` (the acting
    /// side's, or swapped, its opponent's).
    pub fn play_utility_for(&self, state: &MatchState, view: CubeView) -> Utility {
        let u = utility(&view);
        if self.settings.cubeful_plays && !state.is_money() && !cube_unused(state) {
            u.with_cube(view, self.rules_for(state))
        } else {
            u
        }
    }

    fn can_double(state: &MatchState) -> bool {
        state.may_double && state.cube_owner != CubeOwner::Opponent && !state.crawford
    }

    /// What search `work` needs.
    pub fn need(&self, work: &Work) -> Need {
        let state = work.state();
        let probs_at = |depth: u32| Need::Probabilities {
            position: roller(state).0,
            depth,
            utility: utility(&roller_view(state)),
        };
        match work {
            Work::Decide(s) => match s.decision {
                Decision::GameOver => Need::Nothing,
                Decision::Move(dice) => Need::Plays {
                    position: s.position,
                    dice,
                    depth: self.settings.depth,
                    utility: self.play_utility(s),
                },
                Decision::DoubleOrRoll if !Self::can_double(s) => Need::Nothing,
                Decision::DoubleOrRoll | Decision::TakeOrDrop | Decision::BeaverAnswer => {
                    probs_at(self.settings.cube_depth)
                }
            },
            Work::Resignation(..) => probs_at(self.settings.cube_depth),
            Work::Evaluate(_, opts) => probs_at(opts.depth),
        }
    }

    /// Turns the search result for `work` into the answer (cheap: no evaluations).
    pub fn complete(&self, work: &Work, found: Found) -> Result<Outcome, EngineError> {
        let state = work.state();
        match (work, found) {
            (Work::Decide(s), Found::Nothing) => Ok(Outcome::Action(match s.decision {
                Decision::GameOver => Action::Nothing,
                Decision::DoubleOrRoll => Action::Roll,
                _ => return Err(EngineError::WrongResult),
            })),
            (Work::Decide(s), Found::Plays(plays)) => {
                let Decision::Move(_) = s.decision else {
                    return Err(EngineError::WrongResult);
                };
                let play = self
                    .best_play(s, plays)
                    .unwrap_or_else(|| Play::none(s.position));
                Ok(Outcome::Action(Action::Move(play)))
            }
            (Work::Decide(s), Found::Probabilities(p)) => {
                Ok(Outcome::Action(self.cube_action(s, &p, &[])?))
            }
            (Work::Decide(s), Found::Position(e)) => {
                Ok(Outcome::Action(self.cube_action(s, &e.probs, &e.rolls)?))
            }
            (Work::Resignation(s, points), Found::Position(e)) => Ok(Outcome::Action(
                self.resignation_answer(s, *points, &e.probs),
            )),
            (Work::Evaluate(s, opts), Found::Position(e)) => {
                Ok(Outcome::Evaluation(self.report(s, opts, &e.probs)))
            }
            (Work::Resignation(s, points), Found::Probabilities(p)) => {
                Ok(Outcome::Action(self.resignation_answer(s, *points, &p)))
            }
            (Work::Evaluate(s, opts), Found::Probabilities(p)) => {
                Ok(Outcome::Evaluation(self.report(s, opts, &p)))
            }
            _ => {
                let _ = state;
                Err(EngineError::WrongResult)
            }
        }
    }

    /// Answers `work` on the calling thread.
    pub fn run(&self, work: &Work, cancel: &Cancel) -> Result<Outcome, EngineError> {
        let found = match self.need(work) {
            Need::Nothing => Found::Nothing,
            Need::Plays {
                position,
                dice,
                depth,
                utility,
            } => Found::Plays(self.rank_plays_for(&position, dice, depth, utility, cancel)?),
            Need::Probabilities {
                position,
                depth,
                utility,
            } => Found::Position(self.evaluation_for(&position, depth, utility, cancel)?),
        };
        self.complete(work, found)
    }

    /// The action for the acting side of `state` (synchronous).
    pub fn decide(&self, state: &MatchState, cancel: &Cancel) -> Result<Action, EngineError> {
        match self.run(&Work::Decide(state.clone()), cancel)? {
            Outcome::Action(a) => Ok(a),
            Outcome::Evaluation(_) => Err(EngineError::WrongResult),
        }
    }

    /// The mover's value of a play, from the probabilities after it (opponent to roll);
    /// `opp_cube` is the cube as the opponent sees it there, valued by the engine's rules.
    fn play_value(&self, state: &MatchState, opp_cube: &cube::CubefulValue, rp: &PlayProbs) -> f64 {
        let opp_probs = rp.probs.invert();
        let opp_value = if self.settings.cubeful_plays {
            opp_cube.value(&opp_probs, self.efficiency(&rp.play.next_position()))
        } else {
            opp_cube.cubeless(&opp_probs)
        };
        if state.is_money() {
            -opp_value
        } else {
            1.0 - opp_value
        }
    }

    /// Plays ranked best first with the engine's value at the score.
    pub fn value_plays(&self, state: &MatchState, plays: Vec<PlayProbs>) -> Vec<(PlayProbs, f64)> {
        let opp_cube = cube::CubefulValue::new(cube_view(state).swap(), self.rules_for(state));
        let mut valued: Vec<(PlayProbs, f64)> = plays
            .into_iter()
            .map(|rp| {
                let v = self.play_value(state, &opp_cube, &rp);
                (rp, v)
            })
            .collect();
        if self.settings.depth <= 1 {
            // Stable: ties keep the search's order.
            valued.sort_by(|a, b| b.1.total_cmp(&a.1));
        }
        valued
    }

    fn best_play(&self, state: &MatchState, plays: Vec<PlayProbs>) -> Option<Play> {
        self.value_plays(state, plays)
            .first()
            .map(|(rp, _)| rp.play)
    }

    /// The cube analysis from the roller's view: `roller_probs` are the probabilities of
    /// the side about to roll (the acting side, or the doubler at a take question).
    pub fn cube_analysis(
        &self,
        state: &MatchState,
        roller_probs: &Probabilities,
    ) -> cube::CubeDecision {
        let pos = roller(state).0;
        let view = roller_view(state);
        cube::analyse(
            roller_probs,
            &view,
            &self.rules_for(state),
            self.efficiency(&pos),
        )
    }

    /// [`Self::cube_analysis`] a roll or two deeper where the engine is set to and the
    /// search gave the roller's `rolls` ([`cube::analyse_rolls`]).
    pub fn cube_analysis_with(
        &self,
        state: &MatchState,
        roller_probs: &Probabilities,
        rolls: &[RollChild],
    ) -> cube::CubeDecision {
        if self.settings.cube_lookahead > 0 && !rolls.is_empty() {
            let values = self.roll_values(rolls, self.settings.cube_lookahead);
            let pos = roller(state).0;
            if let Some(d) = cube::analyse_rolls(
                &values,
                &roller_view(state),
                &self.rules_for(state),
                self.efficiency(&pos),
            ) {
                return d;
            }
        }
        self.cube_analysis(state, roller_probs)
    }

    /// The search's `rolls`, `levels` of them down, with each position's cube efficiency.
    fn roll_values(&self, rolls: &[RollChild], levels: u8) -> Vec<cube::RollValue> {
        rolls
            .iter()
            .map(|r| cube::RollValue {
                weight: r.weight as f64,
                probs: r.probs,
                x: self.efficiency(&r.after),
                rolls: if levels > 1 {
                    self.roll_values(&r.rolls, levels - 1)
                } else {
                    Vec::new()
                },
            })
            .collect()
    }

    fn cube_action(
        &self,
        state: &MatchState,
        p: &Probabilities,
        rolls: &[RollChild],
    ) -> Result<Action, EngineError> {
        match state.decision {
            Decision::DoubleOrRoll => {
                if !Self::can_double(state) {
                    return Ok(Action::Roll);
                }
                let d = self.cube_analysis_with(state, p, rolls);
                Ok(if d.action.doubles() {
                    Action::Double
                } else {
                    Action::Roll
                })
            }
            Decision::TakeOrDrop => {
                let d = self.cube_analysis_with(state, p, rolls);
                let beavers = self.rules_for(state).beavers && state.is_money();
                Ok(match d.response {
                    TakeAction::Beaver if beavers => Action::Beaver,
                    TakeAction::Beaver | TakeAction::Take => Action::Take,
                    TakeAction::Drop => Action::Drop,
                })
            }
            Decision::BeaverAnswer => {
                // Our double was beavered: the opponent owns a cube at four times the old
                // value. Keep playing unless that is worse than giving up twice the old cube.
                let x = self.efficiency(&state.position);
                let e = cube::money_equity(p, CubeOwner::Opponent, x, false);
                Ok(if 4.0 * e >= -2.0 {
                    Action::Take
                } else {
                    Action::Drop
                })
            }
            Decision::Move(_) | Decision::GameOver => Err(EngineError::WrongResult),
        }
    }

    /// The acting side's probabilities from the roller's.
    fn acting_probs(state: &MatchState, roller_probs: &Probabilities) -> Probabilities {
        if roller(state).1 {
            roller_probs.invert()
        } else {
            *roller_probs
        }
    }

    /// The acting side's cubeful (or cubeless) value from the roller's probabilities.
    fn acting_value(&self, state: &MatchState, roller_probs: &Probabilities, cubeful: bool) -> f64 {
        let (pos, swapped) = roller(state);
        let view = roller_view(state);
        let v = if cubeful {
            cube::cubeful_value(
                roller_probs,
                &view,
                &self.rules_for(state),
                self.efficiency(&pos),
            )
        } else {
            cube::cubeless_value(roller_probs, &view)
        };
        match (swapped, state.is_money()) {
            (false, _) => v,
            (true, true) => -v,
            (true, false) => 1.0 - v,
        }
    }

    fn resignation_answer(&self, state: &MatchState, points: u32, p: &Probabilities) -> Action {
        let play_on = self.acting_value(state, p, true);
        let offered = if state.is_money() {
            points as f64
        } else {
            cube::met::mwc(
                state.away() as i64 - (points as i64) * state.cube as i64,
                state.opp_away() as i64,
                state.crawford || state.post_crawford,
            )
        };
        if offered + 1e-9 >= play_on {
            Action::AcceptResignation
        } else {
            Action::RejectResignation
        }
    }

    fn report(&self, state: &MatchState, opts: &EvalOptions, p: &Probabilities) -> EvalReport {
        let probs = Self::acting_probs(state, p);
        let mut value = self.acting_value(state, p, opts.cubeful);
        if opts.noise > 0.0 {
            let seed = if opts.deterministic {
                position_seed(&state.position)
            } else {
                NOISE_COUNTER.fetch_add(1, Ordering::Relaxed)
            };
            let mut rng = Rng::seeded(seed);
            value += opts.noise * standard_normal(&mut rng);
        }
        EvalReport { probs, value }
    }
}

/// The cube answer as the command line and the HTTP API name it, for the acting side:
/// "double" or "no double" for the roller, "take", "drop" or "beaver" at a take question
/// (a beaver only in money play with beavers allowed by `rules`).
pub fn cube_answer(
    state: &MatchState,
    d: &cube::CubeDecision,
    rules: &cube::CubeSettings,
) -> &'static str {
    if matches!(state.decision, Decision::TakeOrDrop) {
        return match d.response {
            TakeAction::Take => "take",
            TakeAction::Drop => "drop",
            TakeAction::Beaver if state.is_money() && rules.beavers => "beaver",
            TakeAction::Beaver => "take",
        };
    }
    let can_double = state.may_double && !state.crawford;
    match d.action {
        cube::DoubleAction::DoubleTake
        | cube::DoubleAction::DoublePass
        | cube::DoubleAction::DoubleBeaver
            if can_double =>
        {
            "double"
        }
        _ => "no double",
    }
}

/// Seeds for non-deterministic noise: a process-wide counter, so a run is reproducible given
/// the order of its requests.
static NOISE_COUNTER: AtomicU64 = AtomicU64::new(1);

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
fn standard_normal(rng: &mut Rng) -> f64 {
    let u1: f64 = rng.unit_f64().max(f64::MIN_POSITIVE);
    let u2: f64 = rng.unit_f64();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::eval::simple::PipSigmoid;
    use crate::search::TranspositionTable;

    fn engine(depth: u32) -> Engine {
        let searcher = Searcher::new(Arc::new(PipSigmoid), Arc::new(TranspositionTable::new(4)));
        Engine::new(
            searcher,
            SearchPlan::default(),
            EngineSettings {
                depth,
                cube_depth: depth,
                ..EngineSettings::default()
            },
        )
    }

    #[test]
    fn move_decision_returns_a_legal_play() {
        let dice = Dice::new(3, 1).unwrap();
        let state = MatchState::money(Position::OPENING, Decision::Move(dice));
        let legal = crate::game::legal_plays(&Position::OPENING, dice);
        for depth in [1, 3] {
            match engine(depth).decide(&state, &Cancel::new()) {
                Ok(Action::Move(p)) => assert!(legal.contains(&p)),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn cubeless_money_choice_at_depth_one_is_the_greedy_play() {
        let mut e = engine(1);
        e.settings.cubeful_plays = false;
        let evaluator = PipSigmoid;
        let set = crate::testing::random_game_positions(5, 20);
        for (pos, dice) in set.iter().take(200) {
            let state = MatchState::money(*pos, Decision::Move(*dice));
            let Ok(Action::Move(chosen)) = e.decide(&state, &Cancel::new()) else {
                panic!("no move");
            };
            let value = |p: &Play| -> f32 {
                let next = p.next_position();
                match next.opponent_result() {
                    Some(r) => Probabilities::from_result(r, true).equity(),
                    None => -crate::eval::Evaluator::evaluate(&evaluator, &next).equity(),
                }
            };
            let best = crate::game::legal_plays(pos, *dice)
                .iter()
                .map(value)
                .fold(f32::MIN, f32::max);
            assert!((value(&chosen) - best).abs() < 1e-4, "{pos:?} {dice:?}");
        }
    }

    #[test]
    fn opening_position_is_not_a_double_and_is_a_take() {
        let e = engine(1);
        let state = MatchState::money(Position::OPENING, Decision::DoubleOrRoll);
        assert_eq!(e.decide(&state, &Cancel::new()), Ok(Action::Roll));
        let state = MatchState::money(Position::OPENING, Decision::TakeOrDrop);
        assert_eq!(e.decide(&state, &Cancel::new()), Ok(Action::Take));
    }

    #[test]
    fn crawford_game_needs_no_search_and_rolls() {
        let e = engine(1);
        let mut state = MatchState::money(Position::OPENING, Decision::DoubleOrRoll);
        state.match_length = 5;
        state.opp_score = 4;
        state.crawford = true;
        state.may_double = false;
        assert_eq!(e.need(&Work::Decide(state.clone())), Need::Nothing);
        assert_eq!(e.decide(&state, &Cancel::new()), Ok(Action::Roll));
    }

    #[test]
    fn take_questions_search_the_doublers_position() {
        let e = engine(1);
        let state = MatchState::money(Position::OPENING, Decision::TakeOrDrop);
        match e.need(&Work::Decide(state)) {
            Need::Probabilities { position, .. } => assert_eq!(position, Position::OPENING.swap()),
            other => panic!("{other:?}"),
        }
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
        let w = Work::Evaluate(state, opts);
        assert_eq!(e.run(&w, &Cancel::new()), e.run(&w, &Cancel::new()));
    }

    #[test]
    fn resignations_are_accepted_when_worth_more_than_playing_on() {
        let e = engine(1);
        let mut state = MatchState::money(Position::OPENING, Decision::DoubleOrRoll);
        // Without the Jacoby rule, where the gammons below count with the cube centred.
        state.rules.jacoby = Some(false);
        // Offered a single game at the opening: worth more than playing on (equity ~0).
        assert_eq!(
            e.run(&Work::Resignation(state.clone(), 1), &Cancel::new()),
            Ok(Outcome::Action(Action::AcceptResignation))
        );
        let p = Probabilities([0.9, 0.5, 0.0, 0.0, 0.0]);
        assert_eq!(
            e.complete(&Work::Resignation(state, 1), Found::Probabilities(p)),
            Ok(Outcome::Action(Action::RejectResignation))
        );
    }
}
