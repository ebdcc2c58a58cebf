//! Search over the backgammon game tree: Expectimax, Star1, Star2 with probing, and a
//! gnubg-style forward-pruning filter.
//!
//! Why: a static evaluation of the plays ("depth 1") is only as good as the net; looking
//! ahead over the opponent's 21 rolls and replies corrects its inconsistencies. The tree
//! has chance nodes, so plain alpha-beta does not apply; Ballard's *-Minimax (Star1,
//! Star2) prunes chance nodes with bounds on the value and, as Hauk, Buro and Schaeffer
//! measured, makes full-width depth-5 search affordable. Star1 and Star2 are exact: they
//! return the same value and play as Expectimax at the same depth.
//!
//! Conventions (negamax): every node's value is from the view of the side to act there.
//! A move node has known dice and chooses a play; a chance node is a position before its
//! side rolls. A play's value at depth 1 is minus the evaluator's equity of
//! `play.next_position()`, or the exact result when the play ends the game. Depth counts
//! both layers: depth 3 = play, 21 rolls, best reply, evaluate. Values are on the
//! fixed-point grid of [`value`].
//!
//! Entry points: [`Searcher`] (synchronous, used by `hint`, duel players and the pool),
//! [`pool::Pool`] (worker threads fed by a bounded queue, used by the server).

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::eval::Probabilities;
use crate::game::Play;

pub mod mcts;
pub mod pool;
pub mod positions;
pub mod searcher;
pub mod tt;
pub mod value;

pub use pool::{Job, Pool, PoolConfig, Query, SubmitError, Task, TaskError};
pub use searcher::Searcher;
pub use tt::TranspositionTable;
pub use value::{Utility, Value};

/// The search algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Algorithm {
    /// Alpha-beta at move nodes, full averaging at chance nodes: the baseline.
    Expectimax,
    /// Ballard's Star1: bounds-based pruning at chance nodes. Exact.
    Star1,
    /// Star1 plus a probing phase (one play per roll) before the search phase. Exact.
    Star2,
    /// gnubg-style forward pruning: a few root candidates after depth 1, one best reply
    /// per roll below. Fast, not exact.
    Filter,
    /// Monte-Carlo tree search with chance nodes ([`mcts`]): a playout or time budget
    /// instead of a depth.
    Mcts,
}

impl Algorithm {
    /// All algorithms, baseline first.
    pub const ALL: [Algorithm; 5] = [
        Algorithm::Expectimax,
        Algorithm::Star1,
        Algorithm::Star2,
        Algorithm::Filter,
        Algorithm::Mcts,
    ];

    /// The name used on command lines and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Expectimax => "expectimax",
            Algorithm::Star1 => "star1",
            Algorithm::Star2 => "star2",
            Algorithm::Filter => "filter",
            Algorithm::Mcts => "mcts",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A search setting that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingError {
    UnknownAlgorithm(String),
    BadDepth(String),
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingError::UnknownAlgorithm(s) => write!(
                f,
                "unknown search algorithm {s:?} (expected expectimax, star1, star2, filter or mcts)"
            ),
            SettingError::BadDepth(s) => {
                write!(
                    f,
                    "bad search depth {s:?} (expected an odd number 1..={MAX_DEPTH})"
                )
            }
        }
    }
}

impl std::error::Error for SettingError {}

impl TryFrom<String> for Algorithm {
    type Error = SettingError;
    fn try_from(s: String) -> Result<Algorithm, SettingError> {
        s.parse()
    }
}

impl From<Algorithm> for String {
    fn from(a: Algorithm) -> String {
        a.name().to_string()
    }
}

impl FromStr for Algorithm {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<Algorithm, SettingError> {
        match s.to_ascii_lowercase().as_str() {
            "expectimax" => Ok(Algorithm::Expectimax),
            "star1" => Ok(Algorithm::Star1),
            "star2" => Ok(Algorithm::Star2),
            "filter" => Ok(Algorithm::Filter),
            "mcts" => Ok(Algorithm::Mcts),
            _ => Err(SettingError::UnknownAlgorithm(s.to_string())),
        }
    }
}

/// Deepest search accepted.
pub const MAX_DEPTH: u8 = 9;

/// Parses a depth: an odd number from 1 to [`MAX_DEPTH`].
pub fn parse_depth(s: &str) -> Result<u8, SettingError> {
    match s.trim().parse::<u8>() {
        Ok(d) if d % 2 == 1 && d <= MAX_DEPTH => Ok(d),
        _ => Err(SettingError::BadDepth(s.to_string())),
    }
}

/// How plays at interior move nodes are ordered after the table's best play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayOrder {
    /// Generation order.
    None,
    /// [`crate::game::core::heuristic_score`]: hits, points made, exposed blots. No evaluations.
    Heuristic,
    /// The evaluator's static value of each play (costs one evaluation per play, cached).
    Evaluator,
}

/// How Star2 picks the probe play of a roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeChoice {
    /// The first generated play.
    First,
    /// The best play by [`crate::game::core::heuristic_score`] (the paper's rule, refined).
    Heuristic,
    /// The best play by static evaluation where the child is deeper than depth 1, the
    /// heuristic at depth 1 (where evaluating every play is the full search).
    Evaluator,
}

/// Order in which a chance node visits the 21 rolls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RollOrder {
    /// [`crate::game::ALL_ROLLS`] order.
    Natural,
    /// The 15 non-doubles (probability 2/36) first, then the doubles.
    NonDoublesFirst,
}

/// Ordering and probing heuristics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderingConfig {
    /// Try the transposition table's best play first.
    pub tt_best: bool,
    pub plays: PlayOrder,
    pub probe: ProbeChoice,
    pub rolls: RollOrder,
}

impl Default for OrderingConfig {
    fn default() -> Self {
        OrderingConfig {
            tt_best: true,
            plays: PlayOrder::Evaluator,
            probe: ProbeChoice::Evaluator,
            rolls: RollOrder::NonDoublesFirst,
        }
    }
}

/// The forward-pruning filter (gnubg's move filter): after depth 1 keep the best
/// `accept` root plays plus up to `extra` more within `threshold` equity of the best;
/// after each deeper iteration narrow them again by [`FilterConfig::deeper`]; below the
/// root expand the best `reply_width` replies per roll by static value.
///
/// Its text form (the `filter` option of an engine spec) lists the root stages as
/// `KEEP:MARGIN` pairs joined by `/`: `9:0.16/2:0.04` keeps at most 9 plays within 0.16 of
/// the best after depth 1 and at most 2 within 0.04 after depth 3. When one play is left,
/// the search answers without deepening further: a clear decision costs what its first
/// stages cost, a close one the full depth.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FilterConfig {
    pub accept: usize,
    pub extra: usize,
    pub threshold: f64,
    pub reply_width: usize,
    /// Narrowing after the iterations at depth 3, 5 and 7 (entry k after depth 2k + 3);
    /// a stage keeping 0 plays narrows nothing.
    pub deeper: [FilterStage; 3],
}

/// One narrowing of the root plays: at most `keep` plays within `margin` equity of the
/// best at the iteration just completed (the best always stays).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FilterStage {
    pub keep: usize,
    pub margin: f64,
}

impl Default for FilterConfig {
    fn default() -> Self {
        FilterConfig {
            accept: 1,
            extra: 8,
            threshold: 0.16,
            reply_width: 1,
            deeper: [FilterStage::default(); 3],
        }
    }
}

impl FilterConfig {
    /// The narrowing after the iteration at `depth` (3, 5 or 7), if any.
    pub fn stage_after(&self, depth: u8) -> Option<FilterStage> {
        let k = (depth as usize).checked_sub(3)? / 2;
        self.deeper.get(k).copied().filter(|s| s.keep > 0)
    }

    /// Reads the root stages of the text form (`KEEP:MARGIN[/KEEP:MARGIN...]`, at most
    /// four, each keeping at least one play with a margin from 0 to 3), keeping the reply
    /// width.
    pub fn with_stages(self, text: &str) -> Option<FilterConfig> {
        let mut out = self;
        out.deeper = [FilterStage::default(); 3];
        let mut n = 0;
        for (k, part) in text.split('/').enumerate() {
            let (keep, margin) = part.split_once(':')?;
            let keep = keep.trim().parse::<usize>().ok().filter(|&k| k >= 1)?;
            let margin = margin
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|m| m.is_finite() && (0.0..=3.0).contains(m))?;
            if k == 0 {
                out.accept = 1;
                out.extra = keep - 1;
                out.threshold = margin;
            } else {
                *out.deeper.get_mut(k - 1)? = FilterStage { keep, margin };
            }
            n += 1;
        }
        (n > 0).then_some(out)
    }

    /// The root stages as text (the inverse of [`FilterConfig::with_stages`] for
    /// configurations whose first stage accepts one play).
    pub fn stages_text(&self) -> String {
        let mut out = format!("{}:{}", self.accept + self.extra, self.threshold);
        for s in self.deeper.iter().take_while(|s| s.keep > 0) {
            out.push_str(&format!("/{}:{}", s.keep, s.margin));
        }
        out
    }
}

/// Everything that shapes one search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchSettings {
    /// Target depth (odd: 1, 3, 5, ...).
    pub depth: u8,
    pub algorithm: Algorithm,
    /// Stop deepening when the next iteration cannot finish within this budget, and abort
    /// an iteration that overruns it (the last completed iteration answers).
    pub time_budget: Option<Duration>,
    /// Iterations up to this depth always complete, whatever the budget (only the cancel
    /// flag stops them); deeper ones run while the budget allows. 1 = none guaranteed.
    pub min_depth: u8,
    /// Search depths 1, 3, ... up to `depth` (ordering and table filled by each
    /// iteration). When false only depth 1 (for ordering) and `depth` are searched.
    pub iterative: bool,
    pub ordering: OrderingConfig,
    pub filter: FilterConfig,
    /// Threads searching one play decision together (root split sharing the table);
    /// position queries use one thread.
    pub threads: usize,
    /// How many of the best root plays get an exact value at the final depth (the rest
    /// keep the value of the deepest iteration that valued them exactly). 1 = only the
    /// best play.
    pub rank: usize,
    /// Compute the five probabilities of the ranked plays at the searched depth
    /// (averaged along the best replies); otherwise they are static (depth 1).
    pub probabilities: bool,
    /// Budget and playouts of [`Algorithm::Mcts`] (ignored by the others).
    pub mcts: mcts::MctsConfig,
    /// What the tree searches maximise: money equity, or the match-winning chance at a
    /// score ([`Utility`]), at every depth (the engine re-ranks depth-1 plays by its own
    /// cubeful value at the score). MCTS values plays by money equity whatever it says.
    pub utility: Utility,
    /// At the move nodes that take the best play by its depth-1 value (the last roll
    /// of a search, and the filter's replies), value only the best `prune` plays by the
    /// searcher's pruning evaluator ([`Searcher::with_pruner`]), as gnubg's pruning nets
    /// do; 0 values every play (exact), as does a searcher without a pruner.
    pub prune: usize,
    /// Levels of rolls a position evaluation keeps below its probabilities
    /// ([`PositionEvaluation::rolls`]): 1 keeps the side to act's rolls, 2 also the
    /// opponent's rolls below each of them (where the searched depth reaches so far).
    pub rolls: u8,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            depth: 3,
            algorithm: Algorithm::Star2,
            time_budget: None,
            min_depth: 1,
            iterative: true,
            ordering: OrderingConfig::default(),
            filter: FilterConfig::default(),
            threads: 1,
            rank: 1,
            probabilities: false,
            mcts: mcts::MctsConfig::default(),
            utility: Utility::MONEY,
            prune: 0,
            rolls: 1,
        }
    }
}

impl SearchSettings {
    /// Default settings with a depth and an algorithm.
    pub fn new(depth: u8, algorithm: Algorithm) -> SearchSettings {
        SearchSettings {
            depth,
            algorithm,
            ..SearchSettings::default()
        }
    }

    /// Text identifying the settings that change node values (mixed into table keys).
    pub(crate) fn mode_tag(&self) -> String {
        let mode = match self.algorithm {
            Algorithm::Filter => format!("filter/{}", self.filter.reply_width),
            _ => "exact".to_string(),
        };
        match self.prune {
            0 => mode,
            k => format!("{mode}/prune{k}"),
        }
    }
}

/// Counters of one search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SearchStats {
    pub move_nodes: u64,
    pub chance_nodes: u64,
    /// Leaf visits (each either a table hit or an evaluation).
    pub leaves: u64,
    /// Positions passed to the evaluator.
    pub evals: u64,
    pub tt_probes: u64,
    /// Probes that found an entry for the key.
    pub tt_hits: u64,
    /// Probes whose entry decided the node without searching it.
    pub tt_cutoffs: u64,
    /// Star2 chance nodes that ran a probing phase.
    pub probe_phases: u64,
    /// Probing phases that produced the cut-off on their own.
    pub probe_cutoffs: u64,
    /// Positions the pruning evaluator ranked (not counted in `evals`).
    #[serde(default)]
    pub prune_evals: u64,
}

impl SearchStats {
    /// All nodes: move, chance and leaf.
    pub fn nodes(&self) -> u64 {
        self.move_nodes + self.chance_nodes + self.leaves
    }

    /// Share of probes that found their key.
    pub fn tt_hit_rate(&self) -> f64 {
        ratio(self.tt_hits, self.tt_probes)
    }

    /// Share of Star2 probing phases that produced the cut-off.
    pub fn probe_efficiency(&self) -> f64 {
        ratio(self.probe_cutoffs, self.probe_phases)
    }

    /// Adds another search's counters.
    pub fn add(&mut self, o: &SearchStats) {
        self.move_nodes += o.move_nodes;
        self.chance_nodes += o.chance_nodes;
        self.leaves += o.leaves;
        self.evals += o.evals;
        self.tt_probes += o.tt_probes;
        self.tt_hits += o.tt_hits;
        self.tt_cutoffs += o.tt_cutoffs;
        self.probe_phases += o.probe_phases;
        self.probe_cutoffs += o.probe_cutoffs;
        self.prune_evals += o.prune_evals;
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// A root play with its valuation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankedPlay<M = Play> {
    pub play: M,
    /// Index of the play in the deterministic list of `generate_plays`.
    pub index: usize,
    /// Cubeless money equity for the side that plays, on the value grid.
    pub value: Value,
    /// `value` as an equity.
    pub equity: f64,
    /// Probabilities for the side that plays (after the play, before the opponent rolls,
    /// inverted to the player's view).
    pub probs: Probabilities,
    /// Depth at which `value` is exact.
    pub depth: u8,
}

/// The answer to a play decision.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveDecision<M = Play> {
    /// Every legal play, best first.
    pub plays: Vec<RankedPlay<M>>,
    /// Deepest completed iteration.
    pub depth: u8,
    pub stats: SearchStats,
    pub elapsed: Duration,
    /// The search was stopped (cancel flag or time budget) before reaching the target
    /// depth; the answer is from the last completed iteration.
    pub stopped: bool,
    /// Threads the root iterations were split over (1: searched on the caller's alone).
    pub threads: usize,
}

impl<M> MoveDecision<M> {
    /// The chosen play.
    pub fn best(&self) -> Option<&RankedPlay<M>> {
        self.plays.first()
    }
}

/// The answer to a position question (before rolling): cube decisions, evaluations.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionEvaluation<P = crate::game::Position> {
    /// Probabilities for the side to act.
    pub probs: Probabilities,
    pub value: Value,
    pub equity: f64,
    /// Deepest completed iteration.
    pub depth: u8,
    pub stats: SearchStats,
    pub elapsed: Duration,
    pub stopped: bool,
    /// The 21 rolls of the side to act at the deepest completed iteration, whose
    /// weighted mean `probs` is; empty when no iteration beyond depth 1 completed (or for
    /// MCTS). The cube is valued on them one roll deep.
    pub rolls: Vec<RollChild<P>>,
}

/// One roll of the side to act in a [`PositionEvaluation`].
#[derive(Debug, Clone, PartialEq)]
pub struct RollChild<P = crate::game::Position> {
    /// How many of the 36 dice outcomes the roll is (1 or 2).
    pub weight: u8,
    /// The position after the side's best play for the roll, its opponent to act (and
    /// in that side's view, as [`GamePlay::next`](crate::game::GamePlay::next) gives it).
    pub after: P,
    /// `after`'s probabilities for the opponent, searched two plies less deep than the
    /// evaluation (exact when the play ends the game).
    pub probs: Probabilities,
    /// The opponent's rolls from `after`, kept the same way one level further down
    /// when [`SearchSettings::rolls`] asks for it and the depth allows (`probs` is
    /// then their weighted mean); empty otherwise.
    pub rolls: Vec<RollChild<P>>,
}

/// What a pool job produces.
#[derive(Debug, Clone, PartialEq)]
pub enum SearchOutcome {
    Move(MoveDecision),
    Position(PositionEvaluation),
    /// The plays of a Tavli game's roll, ranked.
    Tavli(MoveDecision<crate::tavli::TavliPlay>),
    /// Cancelled before even depth 1 completed.
    Cancelled,
}

/// A shared cancellation flag, checked often by the search.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every search holding this flag to stop soon.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for work that stops on a raised `AtomicBool` (a rollout's
    /// [`Hooks::stop`](crate::rollout::Hooks), a duel's or an analysis's stop).
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }
}
