//! Unit tests of the parent module.

use super::*;
use crate::game::Rng;

fn random_vec(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.uniform_f32(-1.0, 1.0)).collect()
}

/// Every length up to 70 (0 and every remainder mod 8 and 16), then random longer ones.
fn test_lengths(rng: &mut Rng, random: usize) -> Vec<usize> {
    (0..=70)
        .chain((0..random).map(|_| rng.index(1100 + 1)))
        .collect()
}

/// Checks one kernel set against sums in f64 on random slices of equal and unequal
/// lengths; the elements past the shorter length must stay untouched.
fn check_kernels<K: Kernels>(k: K, seed: u64) {
    let mut rng = Rng::seeded(seed);
    for n in test_lengths(&mut rng, 200) {
        let m = if rng.chance(0.25) {
            rng.index(n + 20 + 1)
        } else {
            n
        };
        let x = random_vec(&mut rng, m);
        let y = random_vec(&mut rng, n);
        let a = rng.uniform_f32(-2.0, 2.0);
        let common = n.min(m);

        let mut got = y.clone();
        k.axpy(&mut got, a, &x);
        for i in 0..n {
            let want = if i < common {
                y[i] as f64 + a as f64 * x[i] as f64
            } else {
                y[i] as f64
            };
            assert!(
                (got[i] as f64 - want).abs() <= 4e-7,
                "axpy n={n} m={m} i={i}"
            );
        }

        let d = k.dot(&y, &x) as f64;
        let want: f64 = (0..common).map(|i| y[i] as f64 * x[i] as f64).sum();
        let scale: f64 = (0..common).map(|i| (y[i] * x[i]).abs() as f64).sum();
        assert!(
            (d - want).abs() <= 1e-6 * (1.0 + scale),
            "dot n={n} m={m}: {d} vs {want}"
        );
        assert_eq!(
            k.dot(&y, &x),
            k.dot(&x, &y),
            "dot is symmetric, n={n} m={m}"
        );
    }
}

#[test]
fn portable_kernels_match_f64_sums() {
    check_kernels(Portable, 1);
}

#[test]
fn simd_kernels_match_f64_sums_and_the_portable_ones() {
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = x86::Avx2Fma::detect() {
        check_kernels(k, 2);
        // And the two kernel sets side by side on the same data.
        let mut rng = Rng::seeded(3);
        for n in test_lengths(&mut rng, 100) {
            let x = random_vec(&mut rng, n);
            let y = random_vec(&mut rng, n);
            let (mut p, mut s) = (y.clone(), y.clone());
            Portable.axpy(&mut p, 0.37, &x);
            k.axpy(&mut s, 0.37, &x);
            for i in 0..n {
                assert!((p[i] - s[i]).abs() <= 2.5e-7, "axpy n={n} i={i}");
            }
            let (dp, ds) = (Portable.dot(&x, &y), k.dot(&x, &y));
            assert!(
                (dp - ds).abs() <= 1e-5 * (1.0 + n as f32).sqrt(),
                "dot n={n}"
            );
        }
        return;
    }
    eprintln!("no AVX2/FMA on this processor: only the portable kernels were tested");
}

/// Random nets of awkward widths on random sparse inputs: the default path (AVX2
/// where the processor has it) and the forced portable one give the same outputs.
#[test]
fn portable_and_default_forward_agree_on_random_nets() {
    use crate::eval::encoding::MAX_NONZERO;
    let mut rng = Rng::seeded(4);
    for hidden in [
        1, 2, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 100, 128, 129, 192, 256, MAX_HIDDEN,
    ] {
        let inputs = 250;
        let net = Mlp::random(inputs, hidden, 0.3, &mut rng);
        for _ in 0..50 {
            let mut x = SparseInput {
                len: rng.index(MAX_NONZERO + 1),
                ..SparseInput::default()
            };
            for n in 0..x.len {
                x.index[n] = rng.index(inputs) as u16;
                x.value[n] = rng.uniform_f32(0.0, 1.0);
            }
            let (a, b) = (net.forward(&x), net.forward_portable(&x));
            for k in 0..OUTPUTS {
                assert!(
                    (a[k] - b[k]).abs() < 1e-5,
                    "hidden {hidden}: {a:?} vs {b:?}"
                );
            }
        }
    }
}

/// The shipped nets over the positions of seeded games, both paths.
#[test]
fn portable_and_default_forward_agree_on_default_nets() {
    let ev = crate::eval::NeuralEvaluator::default_nets().expect("embedded weights");
    let mut x = SparseInput::default();
    for (pos, _) in crate::testing::random_game_positions(11, 20) {
        crate::eval::encoding::encode(&pos, &mut x);
        let net = ev.net_for(&pos);
        let (a, b) = (net.forward(&x), net.forward_portable(&x));
        for k in 0..OUTPUTS {
            assert!((a[k] - b[k]).abs() < 1e-5, "{pos:?}: {a:?} vs {b:?}");
        }
    }
}

#[test]
fn sigmoid_matches_the_exact_function() {
    let mut x = -30.0f32;
    while x < 30.0 {
        let exact = 1.0 / (1.0 + (-x as f64).exp());
        assert!((sigmoid(x) as f64 - exact).abs() < 2e-6, "x = {x}");
        x += 0.013;
    }
    assert!(sigmoid(-1000.0) >= 0.0 && sigmoid(1000.0) <= 1.0);
}

/// The integer nets' output layer on AVX2/FMA (sigmoids in registers, a reciprocal with a
/// Newton step) stays within a few units in the last place of the portable path.
#[test]
fn output_layer_of_sums_kernels_agree() {
    let mut rng = Rng::seeded(31);
    let unit = 1.0 / (1u32 << 24) as f32;
    for width in [16usize, 24, 128, 384, 392, 400] {
        let acc: Vec<i32> = (0..width)
            .map(|_| (rng.index(1 << 26) as i64 - (1 << 25)) as i32 * 16)
            .collect();
        let w2: Vec<f32> = (0..OUTPUTS * width)
            .map(|_| rng.index(2001) as f32 / 1000.0 - 1.0)
            .collect();
        let b2 = [0.1, -0.2, 0.3, -0.4, 0.5];
        let mut hidden = vec![0f32; width];
        let via_best = output_layer_of_sums(&acc, unit, &mut hidden, &w2, width, &b2);
        for h in hidden.iter_mut() {
            *h = 0.0;
        }
        let portable = {
            for (h, &a) in hidden.iter_mut().zip(&acc) {
                *h = a as f32 * unit;
            }
            Portable.sigmoids(&mut hidden);
            let dots = Portable.output_dots(&hidden, &w2);
            std::array::from_fn::<f32, OUTPUTS, _>(|j| sigmoid(dots[j] + b2[j]))
        };
        for (a, b) in via_best.iter().zip(&portable) {
            assert!(
                (a - b).abs() < 2e-6,
                "width {width}: {via_best:?} {portable:?}"
            );
        }
        // Each kernel's dot products (before the output sigmoids, which would hide a
        // small error): AVX-512 where the processor has it, and AVX2 alone.
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = x86::Avx2Fma::detect() {
            let dots = Portable.output_dots(&hidden, &w2);
            for kernel in [k, k.without_avx512()] {
                let got = kernel.output_dots_of_sums(&acc, unit, &w2, width);
                for (a, b) in got.iter().zip(&dots) {
                    assert!((a - b).abs() < 1e-4, "width {width}: {got:?} {dots:?}");
                }
            }
        }
    }
}

/// The hidden layer on AVX-512 gives the AVX2 kernel's sums and sigmoids bit for bit
/// (each unit takes the same fused multiply-adds in the same order), on random rows of
/// awkward widths and random sparse inputs.
#[cfg(target_arch = "x86_64")]
#[test]
fn both_x86_hidden_layers_give_the_same_bits() {
    let Some(k) = x86::Avx2Fma::detect() else {
        eprintln!("no AVX2/FMA on this processor: nothing to compare");
        return;
    };
    let mut rng = Rng::seeded(32);
    let inputs = 60;
    for h in [8usize, 20, 64, 100, 128, 200, 256, 384, 392, 520, 768] {
        let w1 = random_vec(&mut rng, inputs * h);
        let b1 = random_vec(&mut rng, h);
        for len in [0, 1, 5, 30, 60] {
            let mut index: Vec<u16> = (0..len).map(|_| rng.index(inputs) as u16).collect();
            index.sort_unstable();
            index.dedup();
            let value = random_vec(&mut rng, index.len());
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            let (mut a, mut b) = (vec![0f32; h], vec![0f32; h]);
            k.hidden_layer(&mut a, &b1, &w1, &index, &value);
            k.without_avx512()
                .hidden_layer(&mut b, &b1, &w1, &index, &value);
            assert_eq!(bits(&a), bits(&b), "hidden {h} len {len}");
            k.sums(&mut a, &b1, &w1, &index, &value);
            k.without_avx512().sums(&mut b, &b1, &w1, &index, &value);
            assert_eq!(bits(&a), bits(&b), "sums {h} len {len}");
        }
    }
}
