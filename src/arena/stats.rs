//! Means and 95% confidence intervals of game results, for duels and referee series.
//!
//! Two inputs, one formula: a list of samples (duels keep their pair samples) or running
//! sums (a series counts games as they finish and keeps only the count, the sum and the
//! sum of squares). Both give the mean, the sample variance (divided by n - 1) and the
//! half-width of the 95% interval, 1.96 standard errors. Each path keeps its own order of
//! floating-point operations, so the figures of a seed never change.

/// Standard errors on each side of the mean for a two-sided 95% interval.
pub const Z95: f64 = 1.96;

/// The mean of `n` values whose sum is `sum` (NaN when `n` is 0).
pub fn mean_of_sum(n: u64, sum: f64) -> f64 {
    sum / n as f64
}

/// The mean of `samples` (NaN when there are none).
pub fn mean(samples: &[f64]) -> f64 {
    mean_of_sum(samples.len() as u64, samples.iter().sum::<f64>())
}

/// The sample variance (divided by n - 1) of `samples` about their mean `mean`, summing
/// squared deviations; NaN with fewer than two samples.
fn variance_about(samples: &[f64], mean: f64) -> f64 {
    let n = samples.len();
    if n < 2 {
        return f64::NAN;
    }
    samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64
}

/// The sample variance (divided by n - 1) of `samples`; NaN with fewer than two.
pub fn sample_variance(samples: &[f64]) -> f64 {
    variance_about(samples, mean(samples))
}

/// The sample variance (divided by n - 1) of `n` values from their sum and sum of
/// squares; NaN with fewer than two. Rounding can push the difference of the two sums
/// below zero when the values are (nearly) equal, so it is clamped at zero.
pub fn sample_variance_of_sums(n: u64, sum: f64, sum_sq: f64) -> f64 {
    if n < 2 {
        return f64::NAN;
    }
    let n = n as f64;
    let mean = sum / n;
    ((sum_sq - n * mean * mean) / (n - 1.0)).max(0.0)
}

/// Half-width of the 95% interval of a mean of `n` samples with sample variance
/// `variance`: 1.96 standard errors.
pub fn half_width95(variance: f64, n: u64) -> f64 {
    Z95 * (variance / n as f64).sqrt()
}

/// Mean and 95% half-width (1.96 standard errors, sample standard deviation) of a list
/// of independent samples. The half-width is NaN with fewer than two samples.
pub fn mean_ci95(samples: &[f64]) -> (f64, f64) {
    let n = samples.len();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let mean = mean(samples);
    if n < 2 {
        return (mean, f64::NAN);
    }
    (mean, half_width95(variance_about(samples, mean), n as u64))
}

/// Half-width of the 95% interval of the mean of `n` values from their sum and sum of
/// squares; NaN with fewer than two values.
pub fn ci95_of_sums(n: u64, sum: f64, sum_sq: f64) -> f64 {
    if n < 2 {
        return f64::NAN;
    }
    half_width95(sample_variance_of_sums(n, sum, sum_sq), n)
}

/// A figure for a JSON report: the number, or `null` where it is not finite (a mean or an
/// interval of too few samples).
pub fn json_number(x: f64) -> serde_json::Value {
    if x.is_finite() {
        serde_json::json!(x)
    } else {
        serde_json::Value::Null
    }
}

/// Running count, sum and sum of squares of samples: their mean, sample variance and 95%
/// interval by the formulas above.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Moments {
    pub n: u64,
    pub sum: f64,
    pub sum_sq: f64,
}

impl Moments {
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// The mean (NaN without samples).
    pub fn mean(&self) -> f64 {
        mean_of_sum(self.n, self.sum)
    }

    /// The sample variance (NaN with fewer than two samples).
    pub fn variance(&self) -> f64 {
        sample_variance_of_sums(self.n, self.sum, self.sum_sq)
    }

    /// Half-width of the 95% interval of the mean (NaN with fewer than two samples).
    pub fn ci95(&self) -> f64 {
        ci95_of_sums(self.n, self.sum, self.sum_sq)
    }
}

/// How many samples a mean needs for a 95% interval of half-width `half_width` when one
/// sample has variance `variance`: (1.96 sd / half-width)^2, rounded up.
pub fn samples_for(variance: f64, half_width: f64) -> f64 {
    // Shaved by a relative 1e-12 so that a count exact but for rounding is not pushed up.
    (Z95 * Z95 * variance / (half_width * half_width) * (1.0 - 1e-12)).ceil()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(samples: &[f64]) -> (u64, f64, f64) {
        let mut sum = 0.0;
        let mut sum_sq = 0.0;
        for x in samples {
            sum += x;
            sum_sq += x * x;
        }
        (samples.len() as u64, sum, sum_sq)
    }

    #[test]
    fn a_small_sample_by_hand() {
        // 1, 2, 3, 4: mean 2.5, squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, sample
        // variance 5/3, standard error sqrt(5/3 / 4) = sqrt(5/12).
        let s = [1.0, 2.0, 3.0, 4.0];
        let half = 1.96 * (5.0f64 / 12.0).sqrt();
        assert_eq!(mean(&s), 2.5);
        assert!((sample_variance(&s) - 5.0 / 3.0).abs() < 1e-15);
        let (m, h) = mean_ci95(&s);
        assert_eq!(m, 2.5);
        assert!((h - half).abs() < 1e-12);
        let (n, sum, sum_sq) = sums(&s);
        assert_eq!((n, sum, sum_sq), (4, 10.0, 30.0));
        assert_eq!(mean_of_sum(n, sum), 2.5);
        assert!((sample_variance_of_sums(n, sum, sum_sq) - 5.0 / 3.0).abs() < 1e-15);
        assert!((ci95_of_sums(n, sum, sum_sq) - half).abs() < 1e-12);
    }

    #[test]
    fn game_points_by_hand() {
        // Points +1, -2, +3: mean 2/3, squared deviations 1/9 + 64/9 + 49/9 = 114/9,
        // sample variance 57/9, half-width 1.96 * sqrt(57/27).
        let s = [1.0, -2.0, 3.0];
        let half = 1.96 * (57.0f64 / 27.0).sqrt();
        let (m, h) = mean_ci95(&s);
        assert!((m - 2.0 / 3.0).abs() < 1e-15);
        assert!((h - half).abs() < 1e-12);
        let (n, sum, sum_sq) = sums(&s);
        assert!((ci95_of_sums(n, sum, sum_sq) - half).abs() < 1e-12);
    }

    #[test]
    fn empty_and_single_samples() {
        let (m, h) = mean_ci95(&[]);
        assert!(m.is_nan() && h.is_nan());
        assert!(mean(&[]).is_nan());
        assert!(sample_variance(&[]).is_nan());
        let (m, h) = mean_ci95(&[0.5]);
        assert_eq!(m, 0.5);
        assert!(h.is_nan());
        assert!(sample_variance(&[0.5]).is_nan());
        assert!(ci95_of_sums(0, 0.0, 0.0).is_nan());
        assert!(ci95_of_sums(1, 2.0, 4.0).is_nan());
        assert!(sample_variance_of_sums(1, 2.0, 4.0).is_nan());
        assert!(mean_of_sum(0, 0.0).is_nan());
    }

    #[test]
    fn equal_samples_have_no_spread() {
        assert_eq!(mean_ci95(&[2.0, 2.0, 2.0]), (2.0, 0.0));
        // 0.1 is not exact in binary: the sums may disagree in the last bit, never below 0.
        let (n, sum, sum_sq) = sums(&[0.1; 7]);
        assert!(sample_variance_of_sums(n, sum, sum_sq) >= 0.0);
        assert_eq!(ci95_of_sums(3, 6.0, 12.0), 0.0);
    }

    #[test]
    fn moments_agree_with_the_sums() {
        let s = [0.5, -1.0, 1.5, 2.0, -3.0];
        let mut m = Moments::default();
        for x in s {
            m.add(x);
        }
        let (n, sum, sum_sq) = sums(&s);
        assert_eq!((m.n, m.sum, m.sum_sq), (n, sum, sum_sq));
        assert_eq!(m.ci95(), ci95_of_sums(n, sum, sum_sq));
        assert_eq!(m.mean(), mean_of_sum(n, sum));
        // Variance 1: a half-width of 0.02 needs (1.96 / 0.02)^2 = 9604 samples.
        assert_eq!(samples_for(1.0, 0.02), 9604.0);
        assert_eq!(samples_for(4.0, 0.04), 9604.0);
    }

    #[test]
    fn both_inputs_agree() {
        let s = [0.5, -1.0, 1.5, 2.0, -3.0, 0.0, 1.0];
        let (m, h) = mean_ci95(&s);
        let (n, sum, sum_sq) = sums(&s);
        assert!((mean_of_sum(n, sum) - m).abs() < 1e-12);
        assert!((ci95_of_sums(n, sum, sum_sq) - h).abs() < 1e-12);
    }
}
