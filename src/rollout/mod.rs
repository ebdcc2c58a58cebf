//! Rollouts: many games played out from a position (or from each of the best plays of a
//! roll) by the engine's players, averaged into cubeless probabilities and equity with
//! their standard errors.
//!
//! What a rollout does, and why:
//! - Players: checker plays at the spec's depth; depth 1 is the evaluator's greedy play by
//!   cubeless equity, deeper depths are the engine's search (a fresh table per trial).
//! - Variance reduction (on by default): every roll's luck, measured with the evaluator at
//!   depth 1, is subtracted from the trial's result (the formula is in `trial.rs`).
//! - Stratified dice: the first two rolls of the trials cycle through all 36 x 36 ordered
//!   outcomes, each once per 1,296 trials ([`dice`]); later rolls come from a generator
//!   seeded by (seed, trial index).
//! - Truncation after a number of plies, valued there by the evaluator; otherwise games
//!   are played to the end, gammons and backgammons counted.
//! - Determinism: a trial depends only on (seed, trial index, start, settings), and
//!   results are summed in trial order, so a seed gives the same numbers whatever the
//!   thread count.
//! - Plays of a roll are rolled out side by side: trial `i` of every play uses the same
//!   dice, so the differences between plays carry less noise than the plays themselves.
//!   A roll with no legal play is refused (there is nothing to roll out); a roll with one
//!   legal play rolls that play out.
//! - A raised stop flag ends the rollout soon; what completed is returned, marked partial.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::engine::build::{self as engine_build, BuildError};
use crate::engine::{Engine, EngineSpec};
use crate::eval::Evaluator;
use crate::game::{legal_plays, Dice, MatchState, Play, Position};
use crate::search::Cancel;

mod cubeful;
pub mod dice;
mod report;
pub mod stats;
mod trial;

pub use cubeful::{result_value, roller_state, CubefulStart};

pub use dice::{Strata, TrialDice, STRATA};
pub use report::{cube_object, emg};
pub use stats::{Estimate, Vector, EQUITY};
pub use trial::{TrialResult, TrialSettings};

use stats::{Comoments, Running};
use trial::{invert_value, Player};

/// How a rollout runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RolloutSettings {
    pub trials: u64,
    pub seed: u64,
    /// Plies after which a game is valued by the evaluator (None: played to the end).
    pub truncate: Option<u32>,
    pub variance_reduction: bool,
    pub threads: usize,
}

impl Default for RolloutSettings {
    fn default() -> Self {
        RolloutSettings {
            trials: STRATA,
            seed: 1,
            truncate: None,
            variance_reduction: true,
            threads: 1,
        }
    }
}

/// Why a rollout was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum RolloutError {
    Build(BuildError),
    NoTrials,
    /// Truncating at 0 plies plays nothing: the result would be the evaluator's own value.
    ZeroTruncation,
    NoThreads,
    /// A rollout of plays asked for zero plays.
    NoPlays,
    /// The roll has no legal play, so there are no plays to compare.
    NoLegalPlay(Dice),
    /// The position is a finished game.
    GameOver,
}

impl fmt::Display for RolloutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RolloutError::Build(e) => write!(f, "{e}"),
            RolloutError::NoTrials => f.write_str("a rollout needs at least one trial"),
            RolloutError::ZeroTruncation => {
                f.write_str("truncation at 0 plies plays no roll (use 1 or more, or no truncation)")
            }
            RolloutError::NoThreads => f.write_str("a rollout needs at least one thread"),
            RolloutError::NoPlays => f.write_str("at least one play must be rolled out"),
            RolloutError::NoLegalPlay(d) => {
                write!(f, "no legal play for {d}: there are no plays to roll out")
            }
            RolloutError::GameOver => f.write_str("the game is over: nothing to roll out"),
        }
    }
}

impl std::error::Error for RolloutError {}

impl From<BuildError> for RolloutError {
    fn from(e: BuildError) -> RolloutError {
        RolloutError::Build(e)
    }
}

/// What a running rollout reports and listens to.
#[derive(Clone, Copy)]
pub struct Hooks<'a> {
    /// Raised: stop soon and return the trials completed so far.
    pub stop: &'a AtomicBool,
    /// Called (from worker threads) with the number of trials completed so far.
    pub progress: &'a (dyn Fn(u64) + Sync),
}

impl fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hooks")
            .field("stop", &self.stop.load(Ordering::Relaxed))
            .finish()
    }
}

static NEVER: AtomicBool = AtomicBool::new(false);

fn no_progress(_: u64) {}

impl Hooks<'static> {
    /// No progress report, never stopped.
    pub fn none() -> Hooks<'static> {
        Hooks {
            stop: &NEVER,
            progress: &no_progress,
        }
    }
}

/// The rollout of a position, its side to roll before rolling.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionRollout {
    pub trials: u64,
    /// Stopped before all trials completed.
    pub partial: bool,
    pub seconds: f64,
    /// For the side on roll; variance-reduced when that is on.
    pub estimate: Estimate,
    /// The plain average of the same trials (the same as `estimate` without variance
    /// reduction).
    pub raw: Estimate,
}

impl PositionRollout {
    /// The rollout of a run's first (here only) start.
    fn of_first(t: &Totals) -> PositionRollout {
        PositionRollout {
            trials: t.trials,
            partial: t.partial,
            seconds: t.seconds,
            estimate: t.adjusted[0].estimate(),
            raw: t.raw[0].estimate(),
        }
    }
}

/// One play of a rollout of plays.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayRollout {
    pub play: Play,
    /// Rank of the play in the search that picked the candidates (0 = its best).
    pub search_rank: usize,
    /// For the side that played.
    pub estimate: Estimate,
    pub raw: Estimate,
    /// This play's equity minus the rollout's best play's equity, and the standard error
    /// of that difference (small: the plays share their dice).
    pub diff: f64,
    pub diff_se: f64,
}

/// The rollout of the best plays of a roll, best first by rolled-out equity.
#[derive(Debug, Clone, PartialEq)]
pub struct PlaysRollout {
    pub trials: u64,
    pub partial: bool,
    pub seconds: f64,
    pub plays: Vec<PlayRollout>,
}

/// A start of the rollout: a position with its side to roll, and whether results are
/// wanted for the other side (the one that just played to reach it); or a cubeful start.
#[derive(Debug, Clone)]
enum Start {
    Cubeless {
        position: Position,
        for_opponent: bool,
    },
    Cubeful(CubefulStart),
}

/// The rollout of a cube decision: the roller's three choices, from its view (money: equity
/// per unit of the cube it holds now; match play: match-winning chance). "No double" and
/// "double, take" are rolled out on the same dice; "double, pass" is exact.
#[derive(Debug, Clone, PartialEq)]
pub struct CubeRollout {
    pub trials: u64,
    pub partial: bool,
    pub seconds: f64,
    /// The roller keeps the cube where it is for this roll (later turns use the cube).
    pub no_double: Estimate,
    pub no_double_raw: Estimate,
    /// The cube doubled, the taker owning it; `None` where the roller may not double.
    pub double_take: Option<Estimate>,
    pub double_take_raw: Option<Estimate>,
    /// The value of the opponent's pass.
    pub double_pass: f64,
    /// Money play with beavers: twice "double, take" (the cube at four times, the taker
    /// keeping it), with twice its standard error.
    pub double_beaver: Option<(f64, f64)>,
    /// The standard error of "double, take" minus "no double" (small: shared dice).
    pub diff_se: f64,
    /// The decision that follows from the rolled-out values (the cube model's efficiency is
    /// recorded, unused).
    pub decision: crate::cube::CubeDecision,
}

/// Totals of a run over several starts on the same trials.
struct Totals {
    trials: u64,
    partial: bool,
    seconds: f64,
    adjusted: Vec<Running>,
    raw: Vec<Running>,
    equities: Comoments,
}

/// Sums results in trial order: trials that finish early wait until those before them
/// are in.
struct Collector {
    next: u64,
    pending: BTreeMap<u64, Vec<TrialResult>>,
    adjusted: Vec<Running>,
    raw: Vec<Running>,
    equities: Comoments,
}

impl Collector {
    fn new(k: usize) -> Collector {
        Collector {
            next: 0,
            pending: BTreeMap::new(),
            adjusted: vec![Running::default(); k],
            raw: vec![Running::default(); k],
            equities: Comoments::new(k),
        }
    }

    fn add(&mut self, trial: &[TrialResult]) {
        for (k, r) in trial.iter().enumerate() {
            self.adjusted[k].push(&r.adjusted);
            self.raw[k].push(&r.raw);
        }
        let eq: Vec<f64> = trial.iter().map(|r| r.adjusted[EQUITY]).collect();
        self.equities.push(&eq);
    }

    fn insert(&mut self, index: u64, results: Vec<TrialResult>) {
        self.pending.insert(index, results);
        while let Some(r) = self.pending.remove(&self.next) {
            self.add(&r);
            self.next += 1;
        }
    }

    /// Adds the trials still waiting (after a stop, some before them never finished).
    fn finish(mut self) -> (Vec<Running>, Vec<Running>, Comoments) {
        let rest = std::mem::take(&mut self.pending);
        for r in rest.values() {
            self.add(r);
        }
        (self.adjusted, self.raw, self.equities)
    }
}

/// Rollouts with the players, evaluator and settings of one engine spec.
#[derive(Debug, Clone)]
pub struct Rollout {
    spec: EngineSpec,
    engine: Engine,
}

impl Rollout {
    /// Builds the engine of `spec` (its evaluator values positions and luck; its depth is
    /// the players' depth and the depth that picks the candidate plays).
    pub fn new(spec: &EngineSpec) -> Result<Rollout, RolloutError> {
        Ok(Rollout {
            spec: spec.clone(),
            engine: engine_build::engine(spec)?,
        })
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    fn evaluator(&self) -> Arc<dyn Evaluator> {
        self.engine.searcher().evaluator().clone()
    }

    /// Rolls out `pos` with its side to act about to roll.
    pub fn position(
        &self,
        pos: &Position,
        settings: &RolloutSettings,
        hooks: Hooks<'_>,
    ) -> Result<PositionRollout, RolloutError> {
        check(settings)?;
        if pos.is_game_over() {
            return Err(RolloutError::GameOver);
        }
        let t = self.run(
            &[Start::Cubeless {
                position: *pos,
                for_opponent: false,
            }],
            settings,
            hooks,
        );
        Ok(PositionRollout::of_first(&t))
    }

    /// The `top` best plays of `dice` in `pos` by the engine's search at its depth, best
    /// first: the candidates of a rollout of plays. A roll without a legal play is refused.
    pub fn candidates(
        &self,
        pos: &Position,
        dice: Dice,
        top: usize,
    ) -> Result<Vec<Play>, RolloutError> {
        if top == 0 {
            return Err(RolloutError::NoPlays);
        }
        if pos.is_game_over() {
            return Err(RolloutError::GameOver);
        }
        let all = legal_plays(pos, dice);
        if all.iter().all(|p| p.steps().is_empty()) {
            return Err(RolloutError::NoLegalPlay(dice));
        }
        // Every candidate valued at the full depth, not only the search's best.
        let mut search = self.engine.plan().settings(self.spec.depth.get());
        search.rank = top;
        let decision = self
            .engine
            .searcher()
            .choose(pos, dice, &search, &Cancel::new());
        let ranked: Vec<Play> = if decision.plays.is_empty() {
            all
        } else {
            decision.plays.iter().map(|r| r.play).collect()
        };
        Ok(ranked.into_iter().take(top).collect())
    }

    /// Rolls out the `top` best plays of `dice` in `pos` ([`Rollout::candidates`]) on the
    /// same dice, each from the view of the side that plays.
    pub fn plays(
        &self,
        pos: &Position,
        dice: Dice,
        top: usize,
        settings: &RolloutSettings,
        hooks: Hooks<'_>,
    ) -> Result<PlaysRollout, RolloutError> {
        check(settings)?;
        let candidates = self.candidates(pos, dice, top)?;
        self.these_plays(&candidates, settings, hooks)
    }

    /// Rolls out the given plays (all from one position and roll) on the same dice, each
    /// from the view of the side that plays; `search_rank` is the index in `candidates`.
    pub fn these_plays(
        &self,
        candidates: &[Play],
        settings: &RolloutSettings,
        hooks: Hooks<'_>,
    ) -> Result<PlaysRollout, RolloutError> {
        self.plays_from(candidates, settings, hooks, |p| Start::Cubeless {
            position: p.next_position(),
            for_opponent: true,
        })
    }

    /// Rolls out the given plays (all from the acting side's position and roll in
    /// `state`) cubefully on the same dice: each from the position after it, the opponent
    /// to roll with the cube as `state` has it (free to double at once), results for the
    /// side that plays (money: points per unit of the cube now; match play: match-winning
    /// chance).
    pub fn these_plays_cubeful(
        &self,
        state: &MatchState,
        candidates: &[Play],
        settings: &RolloutSettings,
        hooks: Hooks<'_>,
    ) -> Result<PlaysRollout, RolloutError> {
        self.plays_from(candidates, settings, hooks, |p| {
            Start::Cubeful(CubefulStart {
                state: state.after_play(p),
                cube_now: true,
                unit: state.cube,
                for_opponent: true,
            })
        })
    }

    /// Rolls out `candidates` on the same dice, each from the start `start` makes of it.
    fn plays_from(
        &self,
        candidates: &[Play],
        settings: &RolloutSettings,
        hooks: Hooks<'_>,
        start: impl Fn(&Play) -> Start,
    ) -> Result<PlaysRollout, RolloutError> {
        check(settings)?;
        if candidates.is_empty() {
            return Err(RolloutError::NoPlays);
        }
        let starts: Vec<Start> = candidates.iter().map(start).collect();
        Ok(self.run_plays(candidates, &starts, settings, hooks))
    }

    /// Rolls out the position of `state` cubefully, its side to roll (the doubler at a take
    /// question) free to double at once: money, points per unit of the cube now; match
    /// play, match-winning chance.
    pub fn position_cubeful(
        &self,
        state: &MatchState,
        settings: &RolloutSettings,
        hooks: Hooks<'_>,
    ) -> Result<PositionRollout, RolloutError> {
        check(settings)?;
        let roller = roller_state(state);
        if roller.position.is_game_over() {
            return Err(RolloutError::GameOver);
        }
        let t = self.run(
            &[Start::Cubeful(CubefulStart {
                unit: roller.cube,
                state: roller,
                cube_now: true,
                for_opponent: false,
            })],
            settings,
            hooks,
        );
        Ok(PositionRollout::of_first(&t))
    }

    /// Rolls out the cube decision of `state` (the roller's, or at a take question the
    /// doubler's): "no double" and, where the roller may double, "double, take" on the same
    /// dice, and the decision with its costs from those values ([`CubeRollout`]).
    pub fn cube(
        &self,
        state: &MatchState,
        settings: &RolloutSettings,
        hooks: Hooks<'_>,
    ) -> Result<CubeRollout, RolloutError> {
        check(settings)?;
        let roller = roller_state(state);
        if roller.position.is_game_over() {
            return Err(RolloutError::GameOver);
        }
        let available = crate::engine::no_cube_reason(&roller).is_none();
        let mut starts = vec![Start::Cubeful(CubefulStart {
            state: roller.clone(),
            cube_now: false,
            unit: roller.cube,
            for_opponent: false,
        })];
        if available {
            starts.push(Start::Cubeful(CubefulStart {
                state: MatchState {
                    cube: roller.cube * 2,
                    cube_owner: crate::game::CubeOwner::Opponent,
                    ..roller.clone()
                },
                cube_now: true,
                unit: roller.cube,
                for_opponent: false,
            }));
        }
        let t = self.run(&starts, settings, hooks);
        let view = crate::engine::cube_view(&roller);
        let rules = self.engine.rules_for(&roller);
        let money = roller.is_money();
        let double_pass = if money {
            1.0
        } else {
            crate::cube::result_chances(&view).map_or(1.0, |(win, _)| win[0])
        };
        let nd = t.adjusted[0].estimate();
        let dt = available.then(|| t.adjusted[1].estimate());
        let double_beaver = match &dt {
            Some(e) if money && rules.beavers => Some((2.0 * e.equity(), 2.0 * e.equity_se())),
            _ => None,
        };
        let x = rules.efficiency(roller.position.phase(), roller.position.pips());
        let decision = match &dt {
            Some(e) => crate::cube::decide(
                nd.equity(),
                e.equity(),
                double_pass,
                double_beaver.map(|b| b.0),
                &view,
                x,
            ),
            None => crate::cube::decide(
                nd.equity(),
                f64::NEG_INFINITY,
                double_pass,
                None,
                &crate::cube::CubeView {
                    owner: crate::game::CubeOwner::Opponent,
                    ..view
                },
                x,
            ),
        };
        Ok(CubeRollout {
            trials: t.trials,
            partial: t.partial,
            seconds: t.seconds,
            no_double: nd,
            no_double_raw: t.raw[0].estimate(),
            double_take: dt,
            double_take_raw: available.then(|| t.raw[1].estimate()),
            double_pass,
            double_beaver,
            diff_se: if available {
                t.equities.diff_se(1, 0)
            } else {
                0.0
            },
            decision,
        })
    }

    /// The plays' report from a run over their starts (one per candidate, in order).
    fn run_plays(
        &self,
        candidates: &[Play],
        starts: &[Start],
        settings: &RolloutSettings,
        hooks: Hooks<'_>,
    ) -> PlaysRollout {
        let t = self.run(starts, settings, hooks);
        let mut plays: Vec<PlayRollout> = candidates
            .iter()
            .enumerate()
            .map(|(k, p)| PlayRollout {
                play: *p,
                search_rank: k,
                estimate: t.adjusted[k].estimate(),
                raw: t.raw[k].estimate(),
                diff: 0.0,
                diff_se: 0.0,
            })
            .collect();
        // Best first; equal equities keep the search's order.
        plays.sort_by(|a, b| {
            b.estimate
                .equity()
                .total_cmp(&a.estimate.equity())
                .then(a.search_rank.cmp(&b.search_rank))
        });
        if let Some(best) = plays.first().map(|p| (p.search_rank, p.estimate.equity())) {
            for p in &mut plays {
                p.diff = p.estimate.equity() - best.1;
                p.diff_se = t.equities.diff_se(p.search_rank, best.0);
            }
        }
        PlaysRollout {
            trials: t.trials,
            partial: t.partial,
            seconds: t.seconds,
            plays,
        }
    }

    /// Plays trial after trial of every start on worker threads, in trial order.
    fn run(&self, starts: &[Start], settings: &RolloutSettings, hooks: Hooks<'_>) -> Totals {
        let started = Instant::now();
        let strata = Strata::new(settings.seed);
        let trial_settings = TrialSettings {
            truncate: settings.truncate,
            variance_reduction: settings.variance_reduction,
        };
        let threads = settings
            .threads
            .clamp(1, usize::try_from(settings.trials).unwrap_or(usize::MAX));
        let next = AtomicU64::new(0);
        let done = AtomicU64::new(0);
        let collector = Mutex::new(Collector::new(starts.len()));
        let evaluator = self.evaluator();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut player = Player::new(&self.spec, evaluator.clone());
                    'trials: loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= settings.trials || hooks.stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let base = strata.trial(i);
                        let mut results = Vec::with_capacity(starts.len());
                        for s in starts {
                            let mut dice = base.clone();
                            let r = match s {
                                Start::Cubeless {
                                    position,
                                    for_opponent,
                                } => player
                                    .play(position, &mut dice, &trial_settings, hooks.stop)
                                    .map(|r| {
                                        if *for_opponent {
                                            TrialResult {
                                                adjusted: invert_value(&r.adjusted),
                                                raw: invert_value(&r.raw),
                                            }
                                        } else {
                                            r
                                        }
                                    }),
                                Start::Cubeful(c) => player.play_cubeful(
                                    &self.engine,
                                    c,
                                    &mut dice,
                                    &trial_settings,
                                    hooks.stop,
                                ),
                            };
                            let Some(r) = r else {
                                break 'trials;
                            };
                            results.push(r);
                        }
                        collector
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .insert(i, results);
                        (hooks.progress)(done.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                });
            }
        });
        let collector = collector.into_inner().unwrap_or_else(|e| e.into_inner());
        let (adjusted, raw, equities) = collector.finish();
        let trials = adjusted.first().map_or(0, Running::count);
        Totals {
            trials,
            partial: trials < settings.trials,
            seconds: started.elapsed().as_secs_f64(),
            adjusted,
            raw,
            equities,
        }
    }
}

fn check(settings: &RolloutSettings) -> Result<(), RolloutError> {
    if settings.trials == 0 {
        return Err(RolloutError::NoTrials);
    }
    if settings.truncate == Some(0) {
        return Err(RolloutError::ZeroTruncation);
    }
    if settings.threads == 0 {
        return Err(RolloutError::NoThreads);
    }
    Ok(())
}
