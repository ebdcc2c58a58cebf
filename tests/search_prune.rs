#![allow(clippy::unwrap_used)]
//! Pruned move nodes (`prune=N`): a pruner that agrees with the nets changes no answer of
//! any search, a pruner at least as wide as the plays changes nothing, a table shared with
//! the exact search changes no answer of either, the shipped pruning nets read the board
//! block alone, and a pruned search answers close to the exact one for a fraction of its
//! evaluations.

use std::sync::Arc;

use stargammon::cube::{result_chances, CubeSettings, CubeView};
use stargammon::engine::build::{engine, pruning_nets, searcher_over};
use stargammon::engine::EngineSpec;
use stargammon::eval::encoding::{Encoding, SparseInput, FEATURES_START};
use stargammon::eval::neural::NeuralEvaluator;
use stargammon::eval::{Evaluator, NetSet};
use stargammon::game::{CubeOwner, Dice, Phase, Position};
use stargammon::search::positions::self_play_positions;
use stargammon::search::{
    Algorithm, Cancel, SearchSettings, Searcher, TranspositionTable, Utility,
};

fn nets() -> Arc<dyn Evaluator> {
    Arc::new(NeuralEvaluator::default_nets().unwrap())
}

fn table() -> Arc<TranspositionTable> {
    Arc::new(TranspositionTable::new(4))
}

fn settings(depth: u8, algorithm: Algorithm, prune: usize) -> SearchSettings {
    let mut s = SearchSettings::new(depth, algorithm);
    s.prune = prune;
    if algorithm == Algorithm::Filter {
        s.filter = "net,algorithm=filter,filter=9:0.16/3:0.06"
            .parse::<EngineSpec>()
            .unwrap()
            .filter;
    }
    s
}

fn answer(s: &Searcher, pos: &Position, dice: Dice, cfg: &SearchSettings) -> Vec<(usize, i32)> {
    let d = s.choose(pos, dice, cfg, &Cancel::new());
    d.plays.iter().take(3).map(|p| (p.index, p.value)).collect()
}

/// A cubeful match utility at 4-away 2-away, the cube on 2 owned by the leader.
fn match_utility() -> Utility {
    let v = CubeView {
        cube: 2,
        owner: CubeOwner::Opponent,
        match_length: 7,
        away: 4,
        opp_away: 2,
        crawford: false,
        post_crawford: false,
    };
    let (win, lose) = result_chances(&v).unwrap();
    Utility::from_match_chances(win, lose).with_cube(v, CubeSettings::default())
}

#[test]
fn a_pruner_that_agrees_with_the_nets_changes_no_answer() {
    // Ranked by the nets themselves, the best play by its depth-1 value is always among
    // the first kept, even when only one is: every value and every choice is exact.
    let eval = nets();
    let cancel = Cancel::new();
    for (pos, dice) in self_play_positions(eval.as_ref(), 31, 5, 3) {
        for algorithm in [Algorithm::Expectimax, Algorithm::Star2, Algorithm::Filter] {
            for utility in [Utility::MONEY, match_utility()] {
                let mut exact = settings(3, algorithm, 0);
                exact.utility = utility.clone();
                let want = answer(&Searcher::new(eval.clone(), table()), &pos, dice, &exact);
                for keep in [1, 2, 5] {
                    let mut pruned = exact.clone();
                    pruned.prune = keep;
                    let s = Searcher::new(eval.clone(), table()).with_pruner(eval.clone());
                    assert_eq!(
                        answer(&s, &pos, dice, &pruned),
                        want,
                        "{algorithm} prune={keep} {utility:?}"
                    );
                }
                let mut at = SearchSettings::new(3, Algorithm::Star2);
                at.utility = utility;
                let want = Searcher::new(eval.clone(), table())
                    .evaluate_position(&pos, &at, &cancel)
                    .value;
                at.prune = 1;
                let s = Searcher::new(eval.clone(), table()).with_pruner(eval.clone());
                assert_eq!(s.evaluate_position(&pos, &at, &cancel).value, want);
            }
        }
    }
}

#[test]
fn keeping_every_play_or_having_no_pruner_is_the_exact_search() {
    let eval = nets();
    let pruner = pruning_nets().expect("the built-in pruning nets load");
    for (pos, dice) in self_play_positions(eval.as_ref(), 32, 4, 3) {
        let want = answer(
            &Searcher::new(eval.clone(), table()),
            &pos,
            dice,
            &settings(3, Algorithm::Star2, 0),
        );
        // Keeping 64 (more than any roll of these positions has) prunes nothing, and a
        // searcher without a pruner ignores `prune`.
        let wide = Searcher::new(eval.clone(), table()).with_pruner(pruner.clone());
        assert_eq!(
            answer(&wide, &pos, dice, &settings(3, Algorithm::Star2, 64)),
            want
        );
        let none = Searcher::new(eval.clone(), table());
        assert_eq!(
            answer(&none, &pos, dice, &settings(3, Algorithm::Star2, 2)),
            want
        );
    }
}

#[test]
fn a_table_shared_with_the_exact_search_changes_no_answer() {
    let eval = nets();
    let shared = searcher_over(eval.clone(), Arc::new(TranspositionTable::new(16)));
    for (pos, dice) in self_play_positions(eval.as_ref(), 33, 4, 3) {
        for cfg in [
            settings(3, Algorithm::Star2, 0),
            settings(3, Algorithm::Star2, 4),
            settings(5, Algorithm::Filter, 4),
            settings(5, Algorithm::Filter, 0),
        ] {
            let got = answer(&shared, &pos, dice, &cfg);
            let fresh = answer(&searcher_over(eval.clone(), table()), &pos, dice, &cfg);
            assert_eq!(got, fresh, "{} prune={}", cfg.algorithm, cfg.prune);
        }
    }
}

#[test]
fn a_pruned_search_is_close_to_the_exact_one_for_fewer_evaluations() {
    let eval = nets();
    let cancel = Cancel::new();
    let (mut same, mut n, mut loss, mut evals, mut exact_evals, mut ranked) = (0, 0, 0.0, 0, 0, 0);
    for (pos, dice) in self_play_positions(eval.as_ref(), 34, 120, 3) {
        let exact = Searcher::new(eval.clone(), table()).choose(
            &pos,
            dice,
            &SearchSettings {
                rank: 64,
                ..settings(3, Algorithm::Star2, 0)
            },
            &cancel,
        );
        let plain = Searcher::new(eval.clone(), table()).choose(
            &pos,
            dice,
            &settings(3, Algorithm::Star2, 0),
            &cancel,
        );
        let pruned = searcher_over(eval.clone(), table()).choose(
            &pos,
            dice,
            &settings(3, Algorithm::Star2, 8),
            &cancel,
        );
        let (Some(e), Some(p)) = (exact.best(), pruned.best()) else {
            continue;
        };
        n += 1;
        same += usize::from(e.index == p.index);
        // What the pruned choice costs, by the exact search's own value of it.
        let chosen = exact.plays.iter().find(|q| q.index == p.index).unwrap();
        loss += e.equity - chosen.equity;
        evals += pruned.stats.evals;
        ranked += pruned.stats.prune_evals;
        exact_evals += plain.stats.evals;
    }
    assert_eq!(n, 120);
    assert!(same * 100 >= n * 85, "the same play in {same} of {n}");
    assert!(loss / (n as f64) < 0.005, "mean loss {}", loss / n as f64);
    assert!(evals * 3 < exact_evals * 2, "{evals} against {exact_evals}");
    assert!(ranked > 0);
}

#[test]
fn the_pruning_nets_read_the_board_block_alone() {
    let p = NetSet::from_bytes(stargammon::eval::neural::PRUNE_WEIGHTS).unwrap();
    assert_eq!(p.encoding, Encoding::Board);
    assert_eq!(p.contact.inputs(), FEATURES_START);
    assert_eq!(p.race.inputs(), FEATURES_START);
    assert!(p.contact.hidden() <= 64);
    // Both phases get the same board units, and nothing else.
    let mut x = SparseInput::default();
    let race = Position::from_slots({
        let mut s = [0i8; 26];
        s[6] = 8;
        s[9] = 7;
        s[19] = -8;
        s[22] = -7;
        s
    })
    .unwrap();
    assert_eq!(race.phase(), Phase::Race);
    for pos in [Position::OPENING, race] {
        Encoding::Board.encode_for(&pos, &mut x);
        assert!(x.len > 0);
        assert!(x.index[..x.len]
            .iter()
            .all(|&i| (i as usize) < FEATURES_START));
        let mut v1 = SparseInput::default();
        Encoding::V1.encode_for(&pos, &mut v1);
        let board = v1.index[..v1.len]
            .iter()
            .take_while(|&&i| (i as usize) < FEATURES_START)
            .count();
        assert_eq!(&x.index[..x.len], &v1.index[..board], "{:?}", pos.phase());
        assert_eq!(&x.value[..x.len], &v1.value[..board]);
    }
    // Pruning nets are not widened into other encodings.
    assert!(p.widened(Encoding::V2, 64, 64, 1).is_err());
}

#[test]
fn the_engine_prunes_where_its_spec_says() {
    let spec: EngineSpec = "net,depth=3,prune=6".parse().unwrap();
    assert_eq!(spec.prune, 6);
    assert_eq!(spec.to_string(), "net,depth=3,prune=6");
    assert!("net,prune=65".parse::<EngineSpec>().is_err());
    assert!("net,prune=x".parse::<EngineSpec>().is_err());
    let e = engine(&spec).unwrap();
    assert!(e.searcher().pruner().is_some());
    assert_eq!(e.plan().prune, 6);
    let pos = Position::OPENING;
    let d = e.searcher().choose(
        &pos,
        Dice::new(6, 5).unwrap(),
        &e.plan().settings(3),
        &Cancel::new(),
    );
    assert!(d.stats.prune_evals > 0);
    assert!(d.best().is_some());
}
