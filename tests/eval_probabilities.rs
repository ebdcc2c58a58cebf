//! Evaluations are always consistent probabilities, finished games are exact, the SIMD
//! and portable paths agree, and pubeval scores by hand.
#![allow(clippy::unwrap_used)]
use stargammon::eval::encoding::{encode, SparseInput, INPUTS};
use stargammon::eval::net::{consistent, Mlp};
use stargammon::eval::{pubeval, Evaluator, NetSet, NeuralEvaluator, Probabilities};
use stargammon::game::Rng;
use stargammon::game::{GameResult, Position};

fn random_nets(seed: u64, scale: f32) -> NeuralEvaluator {
    let mut rng = Rng::seeded(seed);
    NeuralEvaluator::new(
        NetSet {
            encoding: stargammon::eval::encoding::Encoding::V1,
            contact: Mlp::random(INPUTS, 40, scale, &mut rng),
            race: Mlp::random(INPUTS, 24, scale, &mut rng),
            games: 0,
        },
        "random",
    )
}

fn check(p: &Probabilities, pos: &Position) {
    let [w, wg, wbg, lg, lbg] = p.0;
    assert!((0.0..=1.0).contains(&w), "{p:?}");
    assert!(0.0 <= wbg && wbg <= wg && wg <= w, "{p:?}");
    assert!(0.0 <= lbg && lbg <= lg && lg <= 1.0 - w + 1e-6, "{p:?}");
    if pos.opp_off() > 0 {
        assert_eq!(wg, 0.0, "no gammon once the opponent has borne off");
    }
    if pos.off() > 0 {
        assert_eq!(lg, 0.0);
    }
}

#[test]
fn evaluations_are_consistent() {
    let positions = stargammon::bench::random_game_positions(5, 30);
    // Large random weights push outputs everywhere, including inconsistent raw values.
    for (seed, scale) in [(1, 0.1), (2, 2.0), (3, 8.0)] {
        let e = random_nets(seed, scale);
        let mut batch = vec![Probabilities::default(); positions.len()];
        let ps: Vec<Position> = positions.iter().map(|(p, _)| *p).collect();
        e.evaluate_batch(&ps, &mut batch);
        for (pos, b) in ps.iter().zip(&batch) {
            let single = e.evaluate(pos);
            assert_eq!(&single, b, "batch and single agree");
            check(&single, pos);
        }
    }
    let e = NeuralEvaluator::default_nets().unwrap();
    for (pos, _) in &positions {
        check(&e.evaluate(pos), pos);
    }
}

#[test]
fn consistency_fix_by_hand() {
    let p = consistent([0.7, 0.8, 0.9, 0.5, 0.6], 0, 0);
    assert_eq!(p.0, [0.7, 0.7, 0.7, 0.3, 0.3].map(|x: f32| x));
    let p = consistent([0.6, 0.2, 0.1, 0.1, 0.05], 0, 3);
    assert_eq!(p.0, [0.6, 0.0, 0.0, 0.1, 0.05]);
    let p = consistent([1.3, -0.2, 0.0, 0.0, 0.0], 0, 0);
    assert_eq!(p.0, [1.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn finished_games_are_exact() {
    let e = random_nets(4, 1.0);
    // The opponent (not to act) has borne off all; the mover has 15 on the board with
    // one in the opponent's home board (mover point 20): a backgammon loss... but the
    // opponent's home board in the mover's numbering is 19..24, so that is a backgammon.
    let mut s = [0i8; 26];
    s[20] = 1;
    s[6] = 14;
    let pos = Position::from_slots(s).unwrap();
    assert_eq!(pos.opponent_result(), Some(GameResult::Backgammon));
    assert_eq!(e.evaluate(&pos).0, [0.0, 0.0, 0.0, 1.0, 1.0]);
    // Seen from the other side: the mover has won a backgammon.
    assert_eq!(e.evaluate(&pos.swap()).0, [1.0, 1.0, 1.0, 0.0, 0.0]);
    let mut s = [0i8; 26];
    s[3] = 10;
    let pos = Position::from_slots(s).unwrap();
    assert_eq!(e.evaluate(&pos).0, [0.0, 0.0, 0.0, 0.0, 0.0], "single loss");
}

#[test]
fn simd_and_portable_paths_agree() {
    let e = random_nets(9, 0.5);
    let mut x = SparseInput::default();
    for (pos, _) in stargammon::bench::random_game_positions(8, 5) {
        encode(&pos, &mut x);
        let net = e.net_for(&pos);
        let a = net.forward(&x);
        let b = net.forward_portable(&x);
        for k in 0..5 {
            assert!((a[k] - b[k]).abs() < 1e-5, "{a:?} vs {b:?}");
        }
    }
}

#[test]
fn pubeval_scores_by_hand() {
    // One mover checker on its 1 point (block 24, "n == 1" unit: contact weight
    // -1.59529), 14 borne off (x[121] = 14/15, weight -2.75800).
    let mut s = [0i8; 26];
    s[1] = 1;
    s[24] = -15;
    let pos = Position::from_slots(s).unwrap();
    let expect = -1.59529f32 + -2.758 * 14.0 / 15.0;
    assert!((pubeval::score(&pos, false) - expect).abs() < 1e-4);
    // Race weights for the same block: -2.77982 (index 116 of the race vector).
    let expect = -2.77982f32 + 3.42040 * 14.0 / 15.0;
    assert!((pubeval::score(&pos, true) - expect).abs() < 1e-4);
    // An opponent blot on the mover's 24 point (block 1, x[0] = 1: 0.25696) and two
    // opponent checkers on the bar (x[120] = 1, weight 5.62596).
    let mut s = [0i8; 26];
    s[24] = -1;
    s[0] = -2;
    s[10] = 1;
    let pos = Position::from_slots(s).unwrap();
    // Mover: 1 on point 10 = block 15, unit k = 70 + 1 = 71: contact weight 0.08240.
    let expect = 0.25696f32 + 5.62596 + 0.0824 + -2.758 * 14.0 / 15.0;
    assert!((pubeval::score(&pos, false) - expect).abs() < 1e-4);
    let mut s = [0i8; 26];
    s[24] = -15;
    assert_eq!(
        pubeval::score(&Position::from_slots(s).unwrap(), false),
        f32::INFINITY
    );
}
