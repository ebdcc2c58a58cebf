//! Unit tests of the parent module.

use super::*;
use crate::game::Rng;

fn random_input(rng: &mut Rng, inputs: usize, len: usize) -> QuantInput {
    let mut idx: Vec<u16> = (0..len).map(|_| rng.index(inputs) as u16).collect();
    idx.sort_unstable();
    idx.dedup();
    let mut x = QuantInput::default();
    for i in idx {
        x.push(i, (rng.index(65535) as i32 - 32767) as i16);
    }
    x
}

/// The kernels this processor runs (AVX-512 where it has it, and AVX2 alone) and the
/// portable loop give the same integers on random rows of awkward widths, odd and even
/// entry counts, sums longer than the rows included.
#[test]
fn simd_and_portable_sums_are_identical() {
    #[cfg(target_arch = "x86_64")]
    let kernels = x86::Avx2::get().map_or(vec![], |k| vec![k, k.without_avx512()]);
    let mut rng = Rng::seeded(21);
    for width in [16usize, 32, 48, 64, 80, 96, 128, 144, 384, 400, 416, 1024] {
        let inputs = 50;
        let w1: Vec<i16> = (0..inputs * width)
            .map(|_| (rng.index(65535) as i32 - 32767) as i16)
            .collect();
        for len in [0, 1, 2, 3, 7, 19, 40] {
            let x = random_input(&mut rng, inputs, len);
            for extra in [0, 16] {
                let start: Vec<i32> = (0..width + extra)
                    .map(|_| rng.index(1 << 20) as i32 - (1 << 19))
                    .collect();
                let mut want = start.clone();
                accumulate_portable(&mut want, &w1, width, x.entries());
                let mut got = start.clone();
                accumulate(&mut got, &w1, width, x.entries());
                assert_eq!(got, want, "width {width} len {len} extra {extra}");
                #[cfg(target_arch = "x86_64")]
                for k in &kernels {
                    let mut got = start.clone();
                    k.accumulate(&mut got, &w1, width, x.entries());
                    assert_eq!(got, want, "{k:?} width {width} len {len} extra {extra}");
                }
            }
        }
    }
}

fn dense(x: &QuantInput, len: usize) -> Vec<i16> {
    let mut d = vec![0i16; len];
    for e in x.entries() {
        d[e.index as usize] = e.value;
    }
    d
}

/// A sum updated by the difference of two inputs equals the sum of the new input,
/// differences beyond 16 bits included; a difference of `limit` entries or more is
/// refused.
#[test]
fn difference_updates_match_full_sums() {
    let mut rng = Rng::seeded(22);
    let (inputs, width) = (60usize, 64);
    let len = inputs.div_ceil(GROUP) * GROUP;
    let w1: Vec<i16> = (0..inputs * width)
        .map(|_| (rng.index(2001) as i32 - 1000) as i16)
        .collect();
    let mut refused = 0;
    for _ in 0..200 {
        let (la, lb) = (rng.index(30), rng.index(30));
        let old = random_input(&mut rng, inputs, la);
        let new = random_input(&mut rng, inputs, lb);
        let (a, b) = (dense(&old, len), dense(&new, len));
        let mut from_old = vec![0i32; width];
        accumulate(&mut from_old, &w1, width, old.entries());
        let mut diff = QuantInput::default();
        assert!(difference(&a, &b, usize::MAX, &mut diff));
        accumulate(&mut from_old, &w1, width, diff.entries());
        let mut full = vec![0i32; width];
        accumulate(&mut full, &w1, width, new.entries());
        assert_eq!(from_old, full);
        let n = diff.len;
        let mut again = QuantInput::default();
        assert!(difference(&a, &b, n + 1, &mut again));
        if n > 0 {
            assert!(!difference(&a, &b, n, &mut again));
            refused += 1;
        }
    }
    assert!(refused > 150);
}

/// The AVX2 kernels of quantizing, bounding and differencing give what the portable
/// loops give (the bounds' sums within rounding), on random dense inputs with values
/// in and out of 16 bits and not-a-number.
#[cfg(target_arch = "x86_64")]
#[test]
fn simd_and_portable_quantizing_agree() {
    let Some(k) = x86::Avx2::get() else {
        return;
    };
    let mut rng = Rng::seeded(23);
    let n = 272;
    let mut in_range = 0;
    for round in 0..300 {
        let dense: Vec<f32> = (0..n)
            .map(|_| match rng.index(10) {
                0..=5 => 0.0,
                6 => f32::NAN,
                _ => (rng.index(20001) as f32 - 10000.0) / 997.0,
            })
            .map(|v| if v.is_nan() && round % 3 != 0 { 0.0 } else { v })
            .collect();
        // Values up to about 10: in range at these scales but for the largest, used
        // in one round of four.
        let top = if round % 4 == 1 { 4096.0 } else { 3000.0 };
        let scale: Vec<f32> = (0..n).map(|i| [0.5f32, 8.0, 2048.0, top][i % 4]).collect();
        let row_max: Vec<f32> = (0..n).map(|_| rng.index(32768) as f32).collect();
        let (mut q1, mut q2) = (vec![0i16; n], vec![0i16; n]);
        let lanes = |q| Lanes {
            dense: &dense,
            scale: &scale,
            row_max: &row_max,
            q,
        };
        let a = lanes(&mut q1).quantize();
        let b = k.quantize(lanes(&mut q2));
        assert_eq!(a.out_of_range, b.out_of_range, "round {round}");
        if a.out_of_range {
            continue;
        }
        in_range += 1;
        assert_eq!((a.nonzero, &q1), (b.nonzero, &q2), "round {round}");
        assert!(
            (a.bound - b.bound).abs() <= 1e-5 * a.bound.max(1.0),
            "round {round}"
        );
        let blocks = [24, 32, 45, 64][round % 4];
        let bias: Vec<f32> = (0..blocks).map(|b| 1e6 * b as f32).collect();
        let max: Vec<f32> = (0..blocks * n).map(|_| rng.index(32768) as f32).collect();
        let limit = rng.index(1 << 30) as f32 * 2.0;
        let index: Vec<u16> = (0..n as u16).filter(|&i| q1[i as usize] != 0).collect();
        let blocks = || Blocks {
            bias: &bias,
            max: &max,
            index: &index,
            q: &q1,
            limit,
        };
        assert_eq!(blocks().failing(), k.failing(blocks()), "round {round}");
        // Differences, the portable loop against each kernel (AVX-512 where the
        // processor has it, and AVX2 alone).
        let old = q1.clone();
        let mut new = q1.clone();
        for _ in 0..rng.index(40) {
            new[rng.index(n)] = (rng.index(65535) as i32 - 32767) as i16;
        }
        let (mut d1, mut d2) = (QuantInput::default(), QuantInput::default());
        for limit in [usize::MAX, 5, 0] {
            for kernel in [k, k.without_avx512()] {
                let ra = difference_portable(&old, &new, 0, limit, &mut d1);
                let rb = kernel.difference(&old, &new, limit, &mut d2);
                assert_eq!(ra, rb, "round {round} limit {limit}");
                if ra {
                    assert_eq!(d1.entries(), d2.entries(), "round {round}");
                }
                d1.clear();
            }
        }
    }
    assert!(in_range > 100, "{in_range}");
}

#[test]
fn precision_names_parse_back() {
    for p in [Precision::Float, Precision::Int16] {
        assert_eq!(p.name().parse::<Precision>(), Ok(p));
    }
    assert!("half".parse::<Precision>().is_err());
}

/// A uniform number in [-m, m] (in steps of m / 10,000).
fn signed(rng: &mut Rng, m: f32) -> f32 {
    (rng.index(20001) as f32 - 10000.0) / 10000.0 * m
}

/// The integer form of a random net of `inputs` x `hidden` (first-layer weights within
/// `w1_max`, biases within `b1_max`, output weights within 0.5) drawn from `seed`, and the
/// generator after the draws.
fn random_net(
    seed: u64,
    inputs: usize,
    hidden: usize,
    w1_max: f32,
    b1_max: f32,
) -> (QuantMlp, Rng) {
    let mut rng = Rng::seeded(seed);
    let w1: Vec<f32> = (0..inputs * hidden)
        .map(|_| signed(&mut rng, w1_max))
        .collect();
    let b1: Vec<f32> = (0..hidden).map(|_| signed(&mut rng, b1_max)).collect();
    let w2: Vec<f32> = (0..OUTPUTS * hidden)
        .map(|_| signed(&mut rng, 0.5))
        .collect();
    let mlp =
        Mlp::from_parts(inputs, hidden, w1, b1, w2, [0.0; OUTPUTS]).expect("consistent shapes");
    (QuantMlp::new(&mlp).expect("an integer form"), rng)
}

/// Whether a position is summed in integers, and the sums it gets, never depend on the
/// positions summed before it: on a net whose bounds fail for most inputs while their
/// sums mostly fit, every input evaluated after a similar one (its sums carried over)
/// gets exactly what a fresh state gives it, overflows included.
#[test]
fn integer_or_float_never_depends_on_the_last_position() {
    let inputs = 100;
    let (net, mut rng) = random_net(24, inputs, 80, 8.0, 1.0);
    let mut x = SparseInput::default();
    let mut carried = QuantState::default();
    let (mut unbounded, mut overflowed, mut summed) = (0, 0, 0);
    for step in 0..3000 {
        // Mostly a few values changed from the last input, sometimes a new input.
        if step % 50 == 0 {
            x.len = 0;
        }
        let changes = if x.len == 0 { 30 } else { 1 + rng.index(4) };
        for _ in 0..changes {
            let i = rng.index(inputs) as u16;
            let v = signed(&mut rng, 1.5);
            let len = x.len;
            match x.index[..len].iter().position(|&k| k == i) {
                Some(k) => x.value[k] = v,
                None if len < x.index.len() => {
                    x.index[len] = i;
                    x.value[len] = v;
                    x.len += 1;
                }
                None => {}
            }
        }
        let mut pairs: Vec<(u16, f32)> = (0..x.len).map(|k| (x.index[k], x.value[k])).collect();
        pairs.sort_by_key(|p| p.0);
        for (k, (i, v)) in pairs.into_iter().enumerate() {
            x.index[k] = i;
            x.value[k] = v;
        }
        let after = carried.forward(&net, &x);
        let fresh = QuantState::default().forward(&net, &x);
        assert_eq!(after, fresh, "step {step}");
        let mut s = QuantState::default();
        s.forward(&net, &x);
        let quantized = net
            .quantize(&x, &mut s.dense, &mut s.next)
            .expect("values in range");
        if !quantized.within && net.failing_blocks(&x.index[..x.len], &s.next) != 0 {
            unbounded += 1;
            match fresh {
                Some(_) => summed += 1,
                None => overflowed += 1,
            }
        }
    }
    assert!(summed > 100, "{summed} of {unbounded}");
    assert!(overflowed > 10, "{overflowed} of {unbounded}");
}

/// Two walks of inputs evaluated in turns through one state (as the children of
/// successive positions alternate the side to act), each input summed from whichever
/// remembered position is near: every result is what a fresh state gives, and the
/// second remembered position is used (a walk's input is nearer its own last one).
#[test]
fn two_remembered_positions_give_fresh_sums() {
    let inputs = 120;
    let (net, mut rng) = random_net(31, inputs, 64, 0.5, 0.2);
    // Two inputs with disjoint halves of the inputs, each walked a value at a time.
    let mut walks: Vec<Vec<f32>> = (0..2)
        .map(|w| {
            (0..inputs)
                .map(|i| {
                    if i % 2 == w {
                        signed(&mut rng, 1.0)
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let sparse = |dense: &[f32]| {
        let mut x = SparseInput::default();
        for (i, &v) in dense.iter().enumerate() {
            x.push(i, v);
        }
        x
    };
    let mut carried = QuantState::default();
    let mut from_second = 0;
    for turn in 0..400 {
        let w = (turn / 5) % 2;
        let i = 2 * rng.index(inputs / 2) + w;
        walks[w][i] = signed(&mut rng, 1.0);
        let x = sparse(&walks[w]);
        let after = carried.forward(&net, &x);
        assert!(after.is_some(), "turn {turn}");
        assert_eq!(
            after,
            QuantState::default().forward(&net, &x),
            "turn {turn}"
        );
        // On a change of walk after the first two, the input is summed from the walk's
        // own last input, one value away: the second remembered position.
        if turn % 5 == 0 && turn >= 10 {
            assert!(
                carried.entries.len() <= 2,
                "turn {turn}: {} entries",
                carried.entries.len()
            );
            from_second += 1;
        }
    }
    assert!(from_second > 70, "{from_second}");
}
