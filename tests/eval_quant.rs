//! The integer nets against the float nets they come from: every probability within 0.002
//! on positions of real games, children summed from each other exactly as from scratch,
//! and the float path still selectable.
#![allow(clippy::unwrap_used)]
use stargammon::eval::neural::{exact, Precision};
use stargammon::eval::{Evaluator, NeuralEvaluator, Probabilities};
use stargammon::game::{generate_plays, PlayList, Position};

/// The largest difference allowed between an integer and a float probability.
const BOUND: f32 = 0.002;

/// At least `count` positions met in seeded games of pubeval against itself, those the
/// nets answer (not finished, not in the bear-off database).
fn game_positions(seed: u64, count: usize) -> Vec<Position> {
    let mut out = Vec::with_capacity(count);
    let mut s = seed;
    while out.len() < count {
        for (p, _) in stargammon::bench::pubeval_game_positions(s, 200) {
            if exact(&p).is_none() {
                out.push(p);
            }
        }
        s += 1_000_003;
    }
    out.truncate(count);
    out
}

/// Per output: the largest and the mean absolute difference.
fn compare(positions: &[Position]) -> ([f32; 5], [f64; 5]) {
    let float = NeuralEvaluator::default_nets()
        .unwrap()
        .with_precision(Precision::Float);
    let int = NeuralEvaluator::default_nets()
        .unwrap()
        .with_precision(Precision::Int16);
    let mut max = [0f32; 5];
    let mut sum = [0f64; 5];
    for pos in positions {
        let (a, b) = (float.evaluate(pos), int.evaluate(pos));
        for k in 0..5 {
            let d = (a.0[k] - b.0[k]).abs();
            max[k] = max[k].max(d);
            sum[k] += d as f64;
        }
    }
    let n = positions.len().max(1) as f64;
    (max, sum.map(|s| s / n))
}

fn check(count: usize, seed: u64) {
    let positions = game_positions(seed, count);
    let (max, mean) = compare(&positions);
    println!("{count} positions, per output (win, win g, win bg, lose g, lose bg)");
    println!("max abs difference:  {max:?}");
    println!("mean abs difference: {mean:?}");
    for k in 0..5 {
        assert!(max[k] <= BOUND, "output {k}: {} > {BOUND}", max[k]);
    }
}

#[test]
fn integer_nets_match_the_float_nets_on_20000_game_positions() {
    check(20_000, 1);
}

/// `cargo test --release --test eval_quant -- --ignored --nocapture`
#[test]
#[ignore = "a million positions: minutes"]
fn integer_nets_match_the_float_nets_on_a_million_game_positions() {
    check(1_000_000, 2);
}

/// The children of a roll evaluated as a batch (each summed from the one before where
/// that is cheaper) get exactly the values of single evaluations, in any order.
#[test]
fn batches_sum_children_from_each_other_exactly() {
    let int = NeuralEvaluator::default_nets()
        .unwrap()
        .with_precision(Precision::Int16);
    let mut list = PlayList::new();
    for (pos, dice) in stargammon::bench::pubeval_game_positions(3, 20) {
        generate_plays(&pos, dice, &mut list);
        let children: Vec<Position> = list.iter().map(|p| p.next_position()).collect();
        let mut batch = vec![Probabilities::default(); children.len()];
        int.evaluate_batch(&children, &mut batch);
        let mut reversed: Vec<Position> = children.clone();
        reversed.reverse();
        let mut back = vec![Probabilities::default(); children.len()];
        int.evaluate_batch(&reversed, &mut back);
        back.reverse();
        for (i, c) in children.iter().enumerate() {
            let fresh = NeuralEvaluator::default_nets()
                .unwrap()
                .with_precision(Precision::Int16);
            assert_eq!(batch[i], fresh.evaluate(c), "{c:?}");
            assert_eq!(batch[i], back[i], "{c:?}");
        }
    }
}

/// `precision=float` is the float nets' forward pass, unchanged.
#[test]
fn the_float_precision_is_the_float_net() {
    let float = NeuralEvaluator::default_nets()
        .unwrap()
        .with_precision(Precision::Float);
    let mut x = stargammon::eval::encoding::SparseInput::default();
    for pos in game_positions(4, 500) {
        float.encode(&pos, &mut x);
        let raw = float.net_for(&pos).forward(&x);
        let want = stargammon::eval::net::consistent(raw, pos.off(), pos.opp_off());
        assert_eq!(float.evaluate(&pos), want);
    }
}

#[test]
fn player_specs_name_the_precision() {
    use stargammon::engine::EngineSpec;
    let s: EngineSpec = "net,precision=int16".parse().unwrap();
    assert_eq!(s.precision, Precision::Int16);
    assert_eq!(s.to_string(), "net,precision=int16");
    let d: EngineSpec = "net".parse().unwrap();
    assert_eq!(d.precision, Precision::Float);
    assert_eq!(d, "net,precision=float".parse().unwrap());
    assert!("net,precision=half".parse::<EngineSpec>().is_err());
}
