#![allow(clippy::unwrap_used)]
//! Star1 and Star2 are exact: at equal depth they return the same root play and value as
//! Expectimax, whatever the table holds.

use std::sync::Arc;

use stargammon::eval::simple::PipSigmoid;
use stargammon::eval::Evaluator;
use stargammon::search::positions::self_play_positions;
use stargammon::search::{
    Algorithm, Cancel, OrderingConfig, PlayOrder, ProbeChoice, RollOrder, SearchSettings, Searcher,
    TranspositionTable,
};

fn searcher(tt_mb: usize) -> Searcher {
    let e: Arc<dyn Evaluator> = Arc::new(PipSigmoid);
    Searcher::new(e, Arc::new(TranspositionTable::new(tt_mb)))
}

fn check(depth: u8, count: usize, orderings: &[OrderingConfig]) {
    let set = self_play_positions(&PipSigmoid, 7, count, 3);
    assert_eq!(set.len(), count);
    let cancel = Cancel::new();
    for (n, (pos, dice)) in set.iter().enumerate() {
        let base = searcher(4).choose(
            pos,
            *dice,
            &SearchSettings::new(depth, Algorithm::Expectimax),
            &cancel,
        );
        assert_eq!(base.depth, depth);
        let want = base.best().map(|b| (b.index, b.value));
        for ordering in orderings {
            for algo in [Algorithm::Star1, Algorithm::Star2] {
                let mut s = SearchSettings::new(depth, algo);
                s.ordering = *ordering;
                let got = searcher(4).choose(pos, *dice, &s, &cancel);
                assert_eq!(
                    got.best().map(|b| (b.index, b.value)),
                    want,
                    "position {n} {} {dice}: {algo} {ordering:?}",
                    pos.debug_string()
                );
                assert!(got.stats.evals <= base.stats.evals, "{algo} evaluates more");
            }
        }
    }
}

#[test]
fn star1_and_star2_match_expectimax_at_depth_3() {
    let orderings = [
        OrderingConfig::default(),
        OrderingConfig {
            tt_best: false,
            plays: PlayOrder::Heuristic,
            probe: ProbeChoice::Heuristic,
            rolls: RollOrder::Natural,
        },
        OrderingConfig {
            tt_best: true,
            plays: PlayOrder::None,
            probe: ProbeChoice::First,
            rolls: RollOrder::NonDoublesFirst,
        },
    ];
    check(3, 40, &orderings);
}

#[test]
fn star1_and_star2_match_expectimax_at_depth_5() {
    check(5, 3, &[OrderingConfig::default()]);
}

#[test]
fn a_shared_table_does_not_change_the_answer() {
    // One table for every algorithm and depth, in an order that leaves deep entries
    // behind for shallower searches.
    let shared = searcher(16);
    let cancel = Cancel::new();
    for (pos, dice) in self_play_positions(&PipSigmoid, 11, 12, 5) {
        for algo in [Algorithm::Star2, Algorithm::Expectimax, Algorithm::Star1] {
            for depth in [3, 1] {
                let d = shared.choose(&pos, dice, &SearchSettings::new(depth, algo), &cancel);
                let fresh =
                    searcher(1).choose(&pos, dice, &SearchSettings::new(depth, algo), &cancel);
                assert_eq!(
                    d.best().map(|b| (b.index, b.value)),
                    fresh.best().map(|b| (b.index, b.value))
                );
            }
        }
    }
}

#[test]
fn a_filter_that_keeps_everything_is_expectimax() {
    let cancel = Cancel::new();
    for (pos, dice) in self_play_positions(&PipSigmoid, 5, 8, 3) {
        let base = searcher(4).choose(
            &pos,
            dice,
            &SearchSettings::new(3, Algorithm::Expectimax),
            &cancel,
        );
        let mut s = SearchSettings::new(3, Algorithm::Filter);
        s.filter = stargammon::search::FilterConfig {
            accept: 1000,
            extra: 0,
            threshold: 0.0,
            reply_width: 1000,
        };
        let f = searcher(4).choose(&pos, dice, &s, &cancel);
        assert_eq!(
            f.best().map(|b| (b.index, b.value)),
            base.best().map(|b| (b.index, b.value))
        );
        // The default filter keeps fewer root plays and evaluates less.
        let narrow = searcher(4).choose(
            &pos,
            dice,
            &SearchSettings::new(3, Algorithm::Filter),
            &cancel,
        );
        assert!(narrow.stats.evals <= base.stats.evals);
    }
}
