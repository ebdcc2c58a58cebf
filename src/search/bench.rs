//! The search benchmark kernel: every algorithm at every depth over a fixed set of
//! decisions, with the figures of docs/search.md. The CLI (`stargammon bench search`)
//! prints them; node counts are reproducible across machines, times are not.

use std::sync::Arc;
use std::time::Instant;

use crate::eval::Evaluator;
use crate::game::{Dice, Position};

use super::{Algorithm, Cancel, SearchSettings, SearchStats, Searcher, TranspositionTable, Value};

/// The committed search benchmark set (see [`super::positions`] for how it was made).
pub const SEARCH_SET: &str = include_str!("../../tests/data/search_positions.txt");

/// The committed set, parsed.
pub fn search_set() -> Result<Vec<(Position, Dice)>, String> {
    crate::bench::parse_position_rolls(SEARCH_SET)
}

/// Figures of one algorithm at one depth over the set.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AlgoFigures {
    pub algo: String,
    pub depth: u8,
    pub positions: usize,
    pub mean_ms: f64,
    pub median_ms: f64,
    pub mean_nodes: f64,
    pub mean_evals: f64,
    pub tt_hit_rate: f64,
    pub probe_efficiency: f64,
    /// Decisions whose root play equals Expectimax's at this depth (None when Expectimax
    /// was not run).
    pub same_root_play: Option<usize>,
    /// Decisions whose root value equals Expectimax's.
    pub same_root_value: Option<usize>,
    pub totals: SearchStats,
}

/// Runs `algos` at `depth` on `set` (a cleared table before every decision) and returns
/// one figure line per algorithm. Expectimax, when listed, is the reference for the
/// root-play comparison, whatever its position in the list.
/// `template` supplies everything but the algorithm and depth (ordering, threads, ...).
pub fn run_search_bench(
    evaluator: Arc<dyn Evaluator>,
    set: &[(Position, Dice)],
    algos: &[Algorithm],
    depth: u8,
    template: &SearchSettings,
    tt_mb: usize,
    mut progress: impl FnMut(Algorithm, usize),
) -> Vec<AlgoFigures> {
    let tt = Arc::new(TranspositionTable::new(tt_mb));
    let searcher = Searcher::new(evaluator, tt.clone());
    let cancel = Cancel::new();
    let mut order: Vec<Algorithm> = algos.to_vec();
    order.sort_by_key(|a| *a != Algorithm::Expectimax);
    let mut reference: Option<Vec<(usize, Value)>> = None;
    let mut out = Vec::new();
    for algo in order {
        let mut settings = template.clone();
        settings.depth = depth;
        settings.algorithm = algo;
        settings.threads = settings.threads.max(1);
        let mut times = Vec::with_capacity(set.len());
        let mut totals = SearchStats::default();
        let mut roots = Vec::with_capacity(set.len());
        for (k, (pos, dice)) in set.iter().enumerate() {
            tt.clear();
            let start = Instant::now();
            let d = searcher.choose(pos, *dice, &settings, &cancel);
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            totals.add(&d.stats);
            roots.push(d.best().map_or((0, 0), |b| (b.index, b.value)));
            progress(algo, k + 1);
        }
        let n = set.len().max(1) as f64;
        let mut sorted = times.clone();
        sorted.sort_by(f64::total_cmp);
        let median = if sorted.is_empty() {
            0.0
        } else if sorted.len() % 2 == 1 {
            sorted[sorted.len() / 2]
        } else {
            (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) / 2.0
        };
        let (same_play, same_value) = match &reference {
            Some(r) => (
                Some(r.iter().zip(&roots).filter(|(a, b)| a.0 == b.0).count()),
                Some(r.iter().zip(&roots).filter(|(a, b)| a.1 == b.1).count()),
            ),
            None => (None, None),
        };
        if algo == Algorithm::Expectimax {
            reference = Some(roots.clone());
        }
        out.push(AlgoFigures {
            algo: algo.name().to_string(),
            depth,
            positions: set.len(),
            mean_ms: times.iter().sum::<f64>() / n,
            median_ms: median,
            mean_nodes: totals.nodes() as f64 / n,
            mean_evals: totals.evals as f64 / n,
            tt_hit_rate: totals.tt_hit_rate(),
            probe_efficiency: totals.probe_efficiency(),
            same_root_play: same_play,
            same_root_value: same_value,
            totals,
        });
    }
    out
}
