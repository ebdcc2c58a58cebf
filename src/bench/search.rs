//! The search benchmark kernel: every algorithm at every depth over a fixed set of
//! decisions, with the figures of docs/benchmarks/search.md. The CLI (`stargammon bench search`)
//! prints them; node counts are reproducible across machines, times are not.
//!
//! A run produces one [`DecisionRecord`] per (algorithm, depth, decision); the figures are
//! a summary of records, so a long run can be written to a file as it goes, resumed from
//! any decision, and summarised later ([`summarize`]).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use crate::eval::Evaluator;
use crate::game::{Dice, Position};

use crate::search::{Algorithm, Cancel, SearchSettings, SearchStats, TranspositionTable, Value};

/// The committed search benchmark set (see [`crate::search::positions`] for how it was made).
pub const SEARCH_SET: &str = include_str!("../../tests/data/search_positions.txt");

/// The committed set, parsed.
pub fn search_set() -> Result<Vec<(Position, Dice)>, String> {
    crate::bench::parse_position_rolls(SEARCH_SET)
}

/// One searched decision: which one, how, and what it cost and chose.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DecisionRecord {
    /// Index of the decision in the benchmark set (0-based).
    pub index: usize,
    pub algo: String,
    pub depth: u8,
    pub ms: f64,
    pub stats: SearchStats,
    /// Index of the chosen root play in generation order.
    pub root_play: usize,
    /// Root value on the search grid.
    pub root_value: Value,
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
    /// was not run on every decision of this line).
    pub same_root_play: Option<usize>,
    /// Decisions whose root value equals Expectimax's.
    pub same_root_value: Option<usize>,
    /// Leaf evaluations over Expectimax's on the same decisions.
    pub evals_vs_expectimax: Option<f64>,
    pub totals: SearchStats,
}

/// Runs `algos` at `depth` on the decisions `set` (a cleared table before every decision);
/// `first_index` is the set index of `set[0]`, so a run can start part-way through.
/// Expectimax runs first whatever its position in the list. `template` supplies everything
/// but the algorithm and depth (ordering, threads, ...). `on_record` sees every decision as
/// it finishes; the records are also returned.
pub fn run_search_bench(
    evaluator: Arc<dyn Evaluator>,
    set: &[(Position, Dice)],
    first_index: usize,
    algos: &[Algorithm],
    depth: u8,
    template: &SearchSettings,
    tt_mb: usize,
    mut on_record: impl FnMut(&DecisionRecord),
) -> Vec<DecisionRecord> {
    let tt = Arc::new(TranspositionTable::new(tt_mb));
    let searcher = crate::engine::build::searcher_over(evaluator, tt.clone());
    let cancel = Cancel::new();
    let mut order: Vec<Algorithm> = algos.to_vec();
    order.sort_by_key(|a| *a != Algorithm::Expectimax);
    let mut out = Vec::new();
    for algo in order {
        let mut settings = template.clone();
        settings.depth = depth;
        settings.algorithm = algo;
        settings.threads = settings.threads.max(1);
        for (k, (pos, dice)) in set.iter().enumerate() {
            tt.clear();
            let start = Instant::now();
            let d = searcher.choose(pos, *dice, &settings, &cancel);
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            let (root_play, root_value) = d.best().map_or((0, 0), |b| (b.index, b.value));
            let record = DecisionRecord {
                index: first_index + k,
                algo: algo.name().to_string(),
                depth,
                ms,
                stats: d.stats,
                root_play,
                root_value,
            };
            on_record(&record);
            out.push(record);
        }
    }
    out
}

/// Summarises records into one figure line per (depth, algorithm), depths ascending and
/// Expectimax first within a depth. When a decision was searched more than once by the
/// same algorithm at the same depth, the last record counts. A line is compared with
/// Expectimax only if Expectimax searched every decision of that line.
pub fn summarize(records: &[DecisionRecord]) -> Vec<AlgoFigures> {
    let mut lines: BTreeMap<(u8, bool, String), BTreeMap<usize, &DecisionRecord>> = BTreeMap::new();
    for r in records {
        lines
            .entry((r.depth, r.algo != "expectimax", r.algo.clone()))
            .or_default()
            .insert(r.index, r);
    }
    let mut out = Vec::new();
    for ((depth, _, algo), by_index) in &lines {
        let reference = lines.get(&(*depth, false, "expectimax".to_string()));
        let mut times: Vec<f64> = by_index.values().map(|r| r.ms).collect();
        let mut totals = SearchStats::default();
        for r in by_index.values() {
            totals.add(&r.stats);
        }
        let n = by_index.len().max(1) as f64;
        let mean_ms = times.iter().sum::<f64>() / n;
        times.sort_by(f64::total_cmp);
        let median = if times.is_empty() {
            0.0
        } else if times.len() % 2 == 1 {
            times[times.len() / 2]
        } else {
            (times[times.len() / 2 - 1] + times[times.len() / 2]) / 2.0
        };
        let (same_play, same_value, evals_ratio) = match reference {
            Some(reference) if by_index.keys().all(|i| reference.contains_key(i)) => {
                let pairs = || by_index.iter().map(|(i, r)| (reference[i], *r));
                let base: u64 = pairs().map(|(a, _)| a.stats.evals).sum();
                let ratio = totals.evals as f64 / base.max(1) as f64;
                if algo == "expectimax" {
                    (None, None, Some(ratio))
                } else {
                    let same = |f: fn(&DecisionRecord) -> i64| {
                        pairs().filter(|(a, b)| f(a) == f(b)).count()
                    };
                    (
                        Some(same(|r| r.root_play as i64)),
                        Some(same(|r| r.root_value as i64)),
                        Some(ratio),
                    )
                }
            }
            _ => (None, None, None),
        };
        out.push(AlgoFigures {
            algo: algo.clone(),
            depth: *depth,
            positions: by_index.len(),
            mean_ms,
            median_ms: median,
            mean_nodes: totals.nodes() as f64 / n,
            mean_evals: totals.evals as f64 / n,
            tt_hit_rate: totals.tt_hit_rate(),
            probe_efficiency: totals.probe_efficiency(),
            same_root_play: same_play,
            same_root_value: same_value,
            evals_vs_expectimax: evals_ratio,
            totals,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(index: usize, algo: &str, evals: u64, root_play: usize) -> DecisionRecord {
        DecisionRecord {
            index,
            algo: algo.to_string(),
            depth: 3,
            ms: index as f64,
            stats: SearchStats {
                evals,
                ..SearchStats::default()
            },
            root_play,
            root_value: 0,
        }
    }

    #[test]
    fn summary_compares_with_expectimax_by_decision_index() {
        let records = vec![
            record(1, "star2", 10, 4),
            record(0, "expectimax", 100, 3),
            record(1, "expectimax", 300, 4),
            record(0, "star2", 30, 2),
        ];
        let figs = summarize(&records);
        assert_eq!(figs.len(), 2);
        assert_eq!(figs[0].algo, "expectimax");
        assert_eq!(figs[0].mean_evals, 200.0);
        assert_eq!(figs[0].same_root_play, None);
        assert_eq!(figs[1].algo, "star2");
        assert_eq!(figs[1].mean_evals, 20.0);
        assert_eq!(figs[1].same_root_play, Some(1));
        assert_eq!(figs[1].same_root_value, Some(2));
        assert_eq!(figs[1].evals_vs_expectimax, Some(0.1));
    }

    #[test]
    fn repeated_decisions_count_once_and_partial_reference_is_not_compared() {
        let records = vec![
            record(0, "expectimax", 100, 3),
            record(0, "star2", 50, 3),
            record(0, "star2", 30, 3),
            record(1, "star2", 10, 1),
        ];
        let figs = summarize(&records);
        let star2 = figs.iter().find(|f| f.algo == "star2").expect("star2 line");
        assert_eq!(star2.positions, 2);
        assert_eq!(star2.mean_evals, 20.0);
        assert_eq!(star2.same_root_play, None);
        assert_eq!(star2.evals_vs_expectimax, None);
    }

    #[test]
    fn evaluation_share_uses_the_same_decisions() {
        let records = vec![
            record(0, "expectimax", 100, 1),
            record(1, "expectimax", 900, 1),
            record(0, "star1", 50, 1),
        ];
        let figs = summarize(&records);
        let star1 = figs.iter().find(|f| f.algo == "star1").expect("star1 line");
        assert_eq!(star1.evals_vs_expectimax, Some(0.5));
    }
}
