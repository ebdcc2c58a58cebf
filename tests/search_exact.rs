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
            ..Default::default()
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

#[test]
fn the_filter_with_wide_later_stages_chooses_as_the_filter_without_them() {
    // Stages that keep every play only widen the root windows: the best play at depth 5 is
    // the filter's with its first stage alone, and so is its value when the search went
    // that deep (a first stage that leaves one play answers at once).
    let cancel = Cancel::new();
    let mut deep = 0;
    for (pos, dice) in self_play_positions(&PipSigmoid, 9, 8, 3) {
        let plain = SearchSettings::new(5, Algorithm::Filter);
        let mut wide = plain.clone();
        wide.filter = plain.filter.with_stages("9:0.16/1000:3").unwrap();
        let a = searcher(4).choose(&pos, dice, &plain, &cancel);
        let b = searcher(4).choose(&pos, dice, &wide, &cancel);
        assert_eq!(a.best().map(|p| p.index), b.best().map(|p| p.index));
        assert!(!b.stopped);
        if b.depth == 5 {
            deep += 1;
            assert_eq!(a.best().map(|p| p.value), b.best().map(|p| p.value));
        } else {
            assert_eq!(b.depth, 1);
        }
    }
    assert!(deep >= 4, "{deep}");
}

#[test]
fn a_filter_stage_that_keeps_one_play_answers_at_that_depth() {
    // Narrowed to one play after depth 3, the search answers there with the depth-3
    // filter's play (or at depth 1 when the first stage already left one), never stopped.
    let cancel = Cancel::new();
    let mut at_three = 0;
    for (pos, dice) in self_play_positions(&PipSigmoid, 10, 8, 3) {
        let mut s = SearchSettings::new(5, Algorithm::Filter);
        s.filter = s.filter.with_stages("9:0.16/1:0").unwrap();
        let got = searcher(4).choose(&pos, dice, &s, &cancel);
        let d3 = searcher(4).choose(
            &pos,
            dice,
            &SearchSettings::new(3, Algorithm::Filter),
            &cancel,
        );
        assert!(!got.stopped);
        assert_eq!(got.best().map(|p| p.index), d3.best().map(|p| p.index));
        match got.depth {
            3 => {
                at_three += 1;
                assert_eq!(got.best().map(|p| p.value), d3.best().map(|p| p.value));
            }
            d => assert!(d == 1 || got.plays.len() == 1, "depth {d}"),
        }
    }
    assert!(at_three >= 4, "{at_three}");
}

#[test]
fn filter_stages_read_and_write_their_text_form() {
    let d = stargammon::search::FilterConfig::default();
    assert_eq!(d.stages_text(), "9:0.16");
    let f = d.with_stages("8:0.2/3:0.06/2:0.02").unwrap();
    assert_eq!((f.accept, f.extra, f.threshold), (1, 7, 0.2));
    assert_eq!(
        f.stage_after(3).map(|s| (s.keep, s.margin)),
        Some((3, 0.06))
    );
    assert_eq!(
        f.stage_after(5).map(|s| (s.keep, s.margin)),
        Some((2, 0.02))
    );
    assert_eq!(f.stage_after(7), None);
    assert_eq!(f.stages_text(), "8:0.2/3:0.06/2:0.02");
    assert_eq!(d.with_stages(&f.stages_text()), Some(f));
    for bad in [
        "",
        "9",
        "0:0.1",
        "9:-1",
        "9:4",
        "9:x",
        "1:0/1:0/1:0/1:0/1:0",
        "9:0.16/",
        "é:0.1",
    ] {
        assert_eq!(d.with_stages(bad), None, "{bad:?}");
    }
}

#[test]
fn the_table_carries_a_game_from_one_decision_to_the_next() {
    // An engine keeps its table between decisions (older entries stay usable, replaced
    // first): our next decision, two plies after a depth-5 search, answers exactly as it
    // does with a fresh table.
    use stargammon::game::{Dice, ALL_ROLLS};
    let cancel = Cancel::new();
    let mut checked = 0;
    for (pos, dice) in self_play_positions(&PipSigmoid, 12, 4, 3) {
        let shared = searcher(16);
        let first = shared.choose(
            &pos,
            dice,
            &SearchSettings::new(5, Algorithm::Star2),
            &cancel,
        );
        let Some(best) = first.best() else { continue };
        let after = best.play.next_position();
        if after.is_game_over() {
            continue;
        }
        let reply_dice: Dice = ALL_ROLLS[3];
        let reply = shared.choose(
            &after,
            reply_dice,
            &SearchSettings::new(1, Algorithm::Star2),
            &cancel,
        );
        let Some(r) = reply.best() else { continue };
        let ours = r.play.next_position();
        if ours.is_game_over() {
            continue;
        }
        let next_dice: Dice = ALL_ROLLS[7];
        let s = SearchSettings::new(3, Algorithm::Star2);
        let warm = shared.choose(&ours, next_dice, &s, &cancel);
        let cold = searcher(16).choose(&ours, next_dice, &s, &cancel);
        assert_eq!(
            warm.best().map(|p| (p.index, p.value)),
            cold.best().map(|p| (p.index, p.value))
        );
        checked += 1;
    }
    assert!(checked >= 2, "{checked}");
}

/// The same searcher serves the Tavli games: Star1 and Star2 give Expectimax's play and
/// value on positions of seeded random games of each game, at depth 3 with every root play
/// valued exactly, and at depth 5 with fewer evaluations.
#[test]
fn the_searcher_is_exact_in_every_tavli_game() {
    use stargammon::eval::tavli::TavliNets;
    use stargammon::game::Variant;
    use stargammon::tavli::{play_random_game, RuleSwitches, TavliPosition};
    let cancel = Cancel::new();
    for variant in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
        let nets: Arc<dyn Evaluator<TavliPosition>> =
            Arc::new(TavliNets::load(variant, None).unwrap());
        let fresh = || Searcher::new(nets.clone(), Arc::new(TranspositionTable::new(4)));
        let mut set = Vec::new();
        let mut rng = stargammon::game::Rng::seeded(11);
        while set.len() < 12 {
            play_random_game(
                variant,
                &RuleSwitches::default(),
                &mut rng,
                400,
                |pos, dice| {
                    if set.len() < 12 && pos.result().is_none() && rng_pick(set.len(), pos) {
                        set.push((*pos, dice));
                    }
                },
            );
        }
        for (n, (pos, dice)) in set.iter().enumerate() {
            for (depth, rank) in [(3u8, usize::MAX), (5, 1)] {
                if depth == 5 && (n > 0 || variant == Variant::Portes) {
                    continue;
                }
                let settings = |algo| SearchSettings {
                    rank,
                    ..SearchSettings::new(depth, algo)
                };
                let base = fresh().choose(pos, *dice, &settings(Algorithm::Expectimax), &cancel);
                let values = |d: &stargammon::search::MoveDecision<_>| {
                    let mut v: Vec<(usize, i32)> = d
                        .plays
                        .iter()
                        .filter(|p| rank > 1 || p.index == d.plays[0].index)
                        .map(|p| (p.index, p.value))
                        .collect();
                    v.sort_unstable();
                    v
                };
                for algo in [Algorithm::Star1, Algorithm::Star2] {
                    let got = fresh().choose(pos, *dice, &settings(algo), &cancel);
                    assert_eq!(got.depth, depth);
                    assert_eq!(
                        values(&got),
                        values(&base),
                        "{variant} position {n} depth {depth}: {algo}"
                    );
                    if depth == 5 {
                        assert!(got.stats.evals <= base.stats.evals, "{algo} evaluates more");
                    }
                }
            }
        }
    }
}

/// Takes about one position in seven of a game, so the set spreads over whole games.
fn rng_pick(taken: usize, pos: &stargammon::tavli::TavliPosition) -> bool {
    let h = format!("{pos:?}").bytes().fold(taken as u64, |h, b| {
        h.wrapping_mul(31).wrapping_add(u64::from(b))
    });
    h % 7 == 0
}
