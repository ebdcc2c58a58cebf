//! Running means, standard errors and covariances of trial results, updated one trial at
//! a time in trial order (so a run sums in the same order whatever the thread count).

/// Components of a trial result: the five probabilities, then the equity.
pub const COMPONENTS: usize = 6;
/// Index of the equity in a result vector.
pub const EQUITY: usize = 5;

/// A trial result or a luck term: `[w, wg, wbg, lg, lbg, equity]`.
pub type Vector = [f64; COMPONENTS];

/// The mean of each component with its standard error.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Estimate {
    pub mean: Vector,
    pub se: Vector,
}

impl Estimate {
    pub fn equity(&self) -> f64 {
        self.mean[EQUITY]
    }

    pub fn equity_se(&self) -> f64 {
        self.se[EQUITY]
    }

    /// The five probabilities `[w, wg, wbg, lg, lbg]`.
    pub fn probs(&self) -> [f64; 5] {
        std::array::from_fn(|i| self.mean[i])
    }

    pub fn probs_se(&self) -> [f64; 5] {
        std::array::from_fn(|i| self.se[i])
    }
}

/// Welford's running mean and sum of squared deviations, per component: exact zero spread
/// stays exactly zero, which a sum of squares would not guarantee.
#[derive(Debug, Clone, Default)]
pub struct Running {
    n: u64,
    mean: Vector,
    m2: Vector,
}

impl Running {
    pub fn push(&mut self, x: &Vector) {
        self.n += 1;
        let n = self.n as f64;
        for i in 0..COMPONENTS {
            let d = x[i] - self.mean[i];
            self.mean[i] += d / n;
            self.m2[i] += d * (x[i] - self.mean[i]);
        }
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// Means and standard errors (sample variance over n - 1; 0 below two trials).
    pub fn estimate(&self) -> Estimate {
        let mut se = [0.0; COMPONENTS];
        if self.n >= 2 {
            let n = self.n as f64;
            for i in 0..COMPONENTS {
                se[i] = (self.m2[i].max(0.0) / (n - 1.0) / n).sqrt();
            }
        }
        Estimate {
            mean: self.mean,
            se,
        }
    }
}

/// Running covariances of the equities of several starts rolled out on the same dice, for
/// the standard error of their differences.
#[derive(Debug, Clone)]
pub struct Comoments {
    n: u64,
    mean: Vec<f64>,
    /// Row-major k x k sums of co-deviations.
    c: Vec<f64>,
}

impl Comoments {
    pub fn new(k: usize) -> Comoments {
        Comoments {
            n: 0,
            mean: vec![0.0; k],
            c: vec![0.0; k * k],
        }
    }

    pub fn push(&mut self, x: &[f64]) {
        let k = self.mean.len();
        self.n += 1;
        let n = self.n as f64;
        let before: Vec<f64> = x.iter().zip(&self.mean).map(|(a, m)| a - m).collect();
        for (m, d) in self.mean.iter_mut().zip(&before) {
            *m += d / n;
        }
        for j in 0..k {
            for l in 0..k {
                self.c[j * k + l] += before[j] * (x[l] - self.mean[l]);
            }
        }
    }

    /// The standard error of the mean of (start `a` - start `b`).
    pub fn diff_se(&self, a: usize, b: usize) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let k = self.mean.len();
        let var = self.c[a * k + a] + self.c[b * k + b] - 2.0 * self.c[a * k + b];
        let n = self.n as f64;
        (var.max(0.0) / (n - 1.0) / n).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_matches_the_textbook_formulas() {
        let xs = [1.0, 4.0, 2.0, 8.0, -3.0];
        let mut r = Running::default();
        for &x in &xs {
            r.push(&[x; COMPONENTS]);
        }
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let e = r.estimate();
        assert!((e.equity() - mean).abs() < 1e-12);
        assert!((e.equity_se() - (var / n).sqrt()).abs() < 1e-12);
        let mut same = Running::default();
        for _ in 0..10 {
            same.push(&[0.3; COMPONENTS]);
        }
        assert_eq!(same.estimate().equity_se(), 0.0);
    }

    #[test]
    fn difference_se_from_comoments() {
        let a = [1.0, 2.0, 0.5, 3.0];
        let b = [0.5, 2.5, 0.0, 2.0];
        let mut c = Comoments::new(2);
        for (x, y) in a.iter().zip(&b) {
            c.push(&[*x, *y]);
        }
        let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
        let mut r = Running::default();
        for x in &d {
            r.push(&[*x; COMPONENTS]);
        }
        assert!((c.diff_se(0, 1) - r.estimate().equity_se()).abs() < 1e-12);
        assert_eq!(c.diff_se(1, 1), 0.0);
    }
}
