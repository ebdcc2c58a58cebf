//! Deterministic evaluation noise for search players, as in the paper's tournaments.
//!
//! The perturbation is a pure function of the position ([`position_noise`]), so the same
//! position always gets the same value: the transposition table stays valid, and deep
//! search can average the inconsistency out.
//! The noise is applied to the equity by shifting the win probability by half of it
//! (equity = 2w - 1 + ...), clamped to [0, 1]. The noise level is part of the name, which
//! the search mixes into its table keys.

use std::sync::Arc;

use crate::eval::{Evaluator, Probabilities};
use crate::game::{splitmix, Position};

/// A deterministic pseudo-Gaussian value (mean 0, variance 1) from a position: the sum of
/// four uniform values taken from a hash of its slots, rescaled.
pub fn position_noise(pos: &Position) -> f32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &c in pos.slots() {
        h ^= c as u8 as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h = splitmix(h);
    let mut sum = 0.0f32;
    for k in 0..4 {
        sum += ((h >> (16 * k)) & 0xFFFF) as f32 / 65535.0;
    }
    // Four uniforms on [0, 1]: mean 2, variance 4/12.
    (sum - 2.0) * (3.0f32).sqrt()
}

/// `inner` with deterministic noise of standard deviation `sigma` on the equity.
#[derive(Clone)]
pub struct NoisyEvaluator {
    inner: Arc<dyn Evaluator>,
    sigma: f32,
    name: String,
}

impl std::fmt::Debug for NoisyEvaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

impl NoisyEvaluator {
    pub fn new(inner: Arc<dyn Evaluator>, sigma: f32) -> NoisyEvaluator {
        let name = format!("{},noise={sigma}", inner.name());
        NoisyEvaluator { inner, sigma, name }
    }

    fn perturb(&self, pos: &Position, mut p: Probabilities) -> Probabilities {
        if pos.is_game_over() || self.sigma == 0.0 {
            return p;
        }
        let w = p.0[0] + 0.5 * self.sigma * position_noise(pos);
        p.0[0] = w.clamp(0.0, 1.0);
        p
    }
}

impl Evaluator for NoisyEvaluator {
    fn evaluate(&self, pos: &Position) -> Probabilities {
        self.perturb(pos, self.inner.evaluate(pos))
    }

    fn evaluate_batch(&self, positions: &[Position], out: &mut [Probabilities]) {
        self.inner.evaluate_batch(positions, out);
        for (p, o) in positions.iter().zip(out.iter_mut()) {
            *o = self.perturb(p, *o);
        }
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::eval::simple::PipSigmoid;

    #[test]
    fn noise_is_deterministic_and_shifts_equity() {
        let e = NoisyEvaluator::new(Arc::new(PipSigmoid), 0.03);
        let pos = Position::OPENING;
        let a = e.evaluate(&pos);
        assert_eq!(a, e.evaluate(&pos));
        let base = PipSigmoid.evaluate(&pos);
        let shift = a.equity() - base.equity();
        assert!((shift - 0.03 * position_noise(&pos)).abs() < 1e-5);
        assert_ne!(e.name(), PipSigmoid.name());
    }
}
