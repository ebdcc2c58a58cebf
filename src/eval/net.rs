//! A one-hidden-layer perceptron with sigmoid units and five sigmoid outputs, written for
//! speed: the inputs are mostly zero, so the first layer adds one contiguous weight row
//! per nonzero input (rows are input-major, the hidden index varies fastest), and the
//! inner loops run on AVX2/FMA when the processor has them, with a portable fallback
//! that LLVM vectorises for plain SSE2.
//!
//! The same type trains: [`Mlp::accumulate_gradient`] adds a TD update for one position
//! into a [`Gradient`] buffer of the same shape, and [`Mlp::apply`] adds such buffers.

use rand::Rng;

use super::encoding::SparseInput;
use super::Probabilities;

/// Outputs of every net: win, win gammon, win backgammon, lose gammon, lose backgammon.
pub const OUTPUTS: usize = 5;
/// Largest hidden layer the stack buffers of [`Mlp::forward`] allow.
pub const MAX_HIDDEN: usize = 1024;

/// The weights of one net.
#[derive(Clone, PartialEq)]
pub struct Mlp {
    pub(crate) inputs: usize,
    pub(crate) hidden: usize,
    /// `inputs` rows of `hidden` weights.
    pub(crate) w1: Vec<f32>,
    pub(crate) b1: Vec<f32>,
    /// `OUTPUTS` rows of `hidden` weights.
    pub(crate) w2: Vec<f32>,
    pub(crate) b2: [f32; OUTPUTS],
}

impl std::fmt::Debug for Mlp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mlp({}x{}x{})", self.inputs, self.hidden, OUTPUTS)
    }
}

/// Weight changes with the shape of an [`Mlp`], summed over many positions.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradient {
    pub(crate) w1: Vec<f32>,
    pub(crate) b1: Vec<f32>,
    pub(crate) w2: Vec<f32>,
    pub(crate) b2: [f32; OUTPUTS],
    /// Which input rows of `w1` hold nonzero changes.
    pub(crate) touched: Vec<bool>,
}

impl Gradient {
    /// Sets every change back to zero.
    pub fn clear(&mut self) {
        let h = self.b1.len();
        for (i, t) in self.touched.iter_mut().enumerate() {
            if *t {
                self.w1[i * h..(i + 1) * h].fill(0.0);
                *t = false;
            }
        }
        self.b1.fill(0.0);
        self.w2.fill(0.0);
        self.b2 = [0.0; OUTPUTS];
    }
}

impl Mlp {
    /// A net with small uniform random weights in [-scale, scale].
    pub fn random<R: Rng>(inputs: usize, hidden: usize, scale: f32, rng: &mut R) -> Mlp {
        let mut u = || rng.gen_range(-scale..=scale);
        let w1 = (0..inputs * hidden).map(|_| u()).collect();
        let b1 = (0..hidden).map(|_| u()).collect();
        let w2 = (0..OUTPUTS * hidden).map(|_| u()).collect();
        let mut b2 = [0.0; OUTPUTS];
        for b in &mut b2 {
            *b = u();
        }
        Mlp {
            inputs,
            hidden,
            w1,
            b1,
            w2,
            b2,
        }
    }

    /// Builds a net from its parts; `None` when the sizes do not fit together.
    pub fn from_parts(
        inputs: usize,
        hidden: usize,
        w1: Vec<f32>,
        b1: Vec<f32>,
        w2: Vec<f32>,
        b2: [f32; OUTPUTS],
    ) -> Option<Mlp> {
        if hidden == 0
            || hidden > MAX_HIDDEN
            || w1.len() != inputs * hidden
            || b1.len() != hidden
            || w2.len() != OUTPUTS * hidden
        {
            return None;
        }
        Some(Mlp {
            inputs,
            hidden,
            w1,
            b1,
            w2,
            b2,
        })
    }

    pub fn inputs(&self) -> usize {
        self.inputs
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// A zero gradient of this net's shape.
    pub fn zero_gradient(&self) -> Gradient {
        Gradient {
            w1: vec![0.0; self.w1.len()],
            b1: vec![0.0; self.hidden],
            w2: vec![0.0; self.w2.len()],
            b2: [0.0; OUTPUTS],
            touched: vec![false; self.inputs],
        }
    }

    /// Adds a gradient buffer to the weights.
    pub fn apply(&mut self, g: &Gradient) {
        let h = self.hidden;
        for (i, &t) in g.touched.iter().enumerate() {
            if t {
                add_assign(&mut self.w1[i * h..(i + 1) * h], &g.w1[i * h..(i + 1) * h]);
            }
        }
        add_assign(&mut self.b1, &g.b1);
        add_assign(&mut self.w2, &g.w2);
        for k in 0..OUTPUTS {
            self.b2[k] += g.b2[k];
        }
    }

    /// The weight-by-weight mean of nets of one shape; `None` when the list is empty or
    /// the shapes differ.
    pub fn average(nets: &[&Mlp]) -> Option<Mlp> {
        let first = nets.first()?;
        if nets
            .iter()
            .any(|n| n.inputs != first.inputs || n.hidden != first.hidden)
        {
            return None;
        }
        let k = nets.len() as f32;
        let mean = |part: fn(&Mlp) -> &[f32]| -> Vec<f32> {
            let mut out = vec![0.0f32; part(first).len()];
            for n in nets {
                for (o, v) in out.iter_mut().zip(part(n)) {
                    *o += v / k;
                }
            }
            out
        };
        let mut b2 = [0.0; OUTPUTS];
        b2.copy_from_slice(&mean(|n| &n.b2[..]));
        Some(Mlp {
            inputs: first.inputs,
            hidden: first.hidden,
            w1: mean(|n| &n.w1),
            b1: mean(|n| &n.b1),
            w2: mean(|n| &n.w2),
            b2,
        })
    }

    /// `self += a - b`, weight by weight (all three nets of one shape).
    pub fn add_difference(&mut self, a: &Mlp, b: &Mlp) {
        fn add(x: &mut [f32], a: &[f32], b: &[f32]) {
            for ((x, a), b) in x.iter_mut().zip(a).zip(b) {
                *x += a - b;
            }
        }
        add(&mut self.w1, &a.w1, &b.w1);
        add(&mut self.b1, &a.b1, &b.b1);
        add(&mut self.w2, &a.w2, &b.w2);
        add(&mut self.b2, &a.b2, &b.b2);
    }

    /// Hidden activations into `hidden` (length = hidden units), raw outputs returned.
    #[inline]
    pub fn forward_into(&self, x: &SparseInput, hidden: &mut [f32]) -> [f32; OUTPUTS] {
        let h = self.hidden;
        let hidden = &mut hidden[..h];
        hidden.copy_from_slice(&self.b1);
        let simd = simd::available();
        for k in 0..x.len {
            let i = x.index[k] as usize;
            let v = x.value[k];
            let row = &self.w1[i * h..(i + 1) * h];
            if simd {
                simd::axpy(hidden, v, row);
            } else {
                portable::axpy(hidden, v, row);
            }
        }
        sigmoid_slice(hidden);
        let mut out = [0.0; OUTPUTS];
        for (k, o) in out.iter_mut().enumerate() {
            let row = &self.w2[k * h..(k + 1) * h];
            let d = if simd {
                simd::dot(hidden, row)
            } else {
                portable::dot(hidden, row)
            };
            *o = sigmoid(d + self.b2[k]);
        }
        out
    }

    /// The five raw outputs for an encoded position.
    #[inline]
    pub fn forward(&self, x: &SparseInput) -> [f32; OUTPUTS] {
        let mut hidden = [0.0f32; MAX_HIDDEN];
        self.forward_into(x, &mut hidden)
    }

    /// The same as [`Mlp::forward`] with the portable loops only (for tests).
    pub fn forward_portable(&self, x: &SparseInput) -> [f32; OUTPUTS] {
        let h = self.hidden;
        let mut hidden = vec![0.0f32; h];
        hidden.copy_from_slice(&self.b1);
        for k in 0..x.len {
            let i = x.index[k] as usize;
            portable::axpy(&mut hidden, x.value[k], &self.w1[i * h..(i + 1) * h]);
        }
        sigmoid_slice(&mut hidden);
        let mut out = [0.0; OUTPUTS];
        for (k, o) in out.iter_mut().enumerate() {
            *o = sigmoid(portable::dot(&hidden, &self.w2[k * h..(k + 1) * h]) + self.b2[k]);
        }
        out
    }

    /// Adds `alpha * (target - output) * d output / d weights` for one position to `g`
    /// (the TD update of Tesauro, one term per output). `hidden` is scratch space.
    pub fn accumulate_gradient(
        &self,
        x: &SparseInput,
        target: &[f32; OUTPUTS],
        alpha: f32,
        hidden: &mut [f32],
        g: &mut Gradient,
    ) {
        let h = self.hidden;
        let out = self.forward_into(x, hidden);
        let hidden = &hidden[..h];
        let mut delta = [0.0f32; OUTPUTS];
        for k in 0..OUTPUTS {
            delta[k] = alpha * (target[k] - out[k]) * out[k] * (1.0 - out[k]);
        }
        let mut back = [0.0f32; MAX_HIDDEN];
        let back = &mut back[..h];
        for k in 0..OUTPUTS {
            let dk = delta[k];
            g.b2[k] += dk;
            let row = &self.w2[k * h..(k + 1) * h];
            let grow = &mut g.w2[k * h..(k + 1) * h];
            for j in 0..h {
                grow[j] += dk * hidden[j];
                back[j] += dk * row[j];
            }
        }
        for j in 0..h {
            back[j] *= hidden[j] * (1.0 - hidden[j]);
            g.b1[j] += back[j];
        }
        for k in 0..x.len {
            let i = x.index[k] as usize;
            g.touched[i] = true;
            portable::axpy(&mut g.w1[i * h..(i + 1) * h], x.value[k], back);
        }
    }
}

fn add_assign(a: &mut [f32], b: &[f32]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// 2^x for x in about [-126, 126], relative error below 2e-7: split into an integer and a
/// fraction in [-0.5, 0.5], a degree-6 polynomial for the fraction. Plain arithmetic and
/// bit casts, so loops over it vectorise.
#[inline(always)]
fn exp2_approx(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0; // 1.5 * 2^23: adding it rounds to an integer
    let shifted = x + MAGIC;
    let r = shifted - MAGIC;
    let f = x - r;
    let i = (shifted.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
    const L: f32 = std::f32::consts::LN_2;
    let p = 1.0
        + f * (L + f
            * (L * L / 2.0
                + f * (L * L * L / 6.0
                    + f * (L * L * L * L / 24.0
                        + f * (L * L * L * L * L / 120.0 + f * (L * L * L * L * L * L / 720.0))))));
    f32::from_bits((p.to_bits() as i32).wrapping_add(i << 23) as u32)
}

/// The logistic function 1 / (1 + e^-x), fast and accurate to about 1e-6.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    let x = x.clamp(-40.0, 40.0);
    1.0 / (1.0 + exp2_approx(-x * std::f32::consts::LOG2_E))
}

fn sigmoid_slice(v: &mut [f32]) {
    for x in v.iter_mut() {
        *x = sigmoid(*x);
    }
}

/// Turns raw outputs into consistent probabilities for the side to act in `pos`:
/// clamps into [0, 1], enforces bg <= gammon <= win per side, and zeroes gammons a side
/// can no longer win because the loser has already borne a checker off.
pub fn consistent(raw: [f32; OUTPUTS], mover_off: u8, opp_off: u8) -> Probabilities {
    let w = raw[0].clamp(0.0, 1.0);
    let l = 1.0 - w;
    let mut wg = raw[1].clamp(0.0, w);
    let mut wbg = raw[2].clamp(0.0, wg);
    let mut lg = raw[3].clamp(0.0, l);
    let mut lbg = raw[4].clamp(0.0, lg);
    if opp_off > 0 {
        wg = 0.0;
        wbg = 0.0;
    }
    if mover_off > 0 {
        lg = 0.0;
        lbg = 0.0;
    }
    Probabilities([w, wg, wbg, lg, lbg])
}

/// Loops written so that LLVM vectorises them for any x86-64 (SSE2) or other target.
pub mod portable {
    /// y += a * x
    #[inline(always)]
    pub fn axpy(y: &mut [f32], a: f32, x: &[f32]) {
        let n = y.len().min(x.len());
        let (y, x) = (&mut y[..n], &x[..n]);
        for i in 0..n {
            y[i] += a * x[i];
        }
    }

    /// Sum of x[i] * y[i], in eight interleaved partial sums.
    #[inline(always)]
    pub fn dot(x: &[f32], y: &[f32]) -> f32 {
        let n = x.len().min(y.len());
        let mut acc = [0.0f32; 8];
        let chunks = n / 8;
        for c in 0..chunks {
            for l in 0..8 {
                acc[l] += x[c * 8 + l] * y[c * 8 + l];
            }
        }
        let mut s = 0.0;
        for i in chunks * 8..n {
            s += x[i] * y[i];
        }
        let a = (acc[0] + acc[4]) + (acc[1] + acc[5]) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
        a + s
    }
}

/// The AVX2/FMA path, chosen at run time.
pub mod simd {
    use std::sync::atomic::{AtomicU8, Ordering};

    static STATE: AtomicU8 = AtomicU8::new(0); // 0 unknown, 1 yes, 2 no

    /// True when the processor has AVX2 and FMA (checked once).
    #[inline]
    pub fn available() -> bool {
        match STATE.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => {
                let yes = detect();
                STATE.store(if yes { 1 } else { 2 }, Ordering::Relaxed);
                yes
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn detect() -> bool {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn detect() -> bool {
        false
    }

    /// y += a * x; the caller checked [`available`].
    #[inline]
    pub fn axpy(y: &mut [f32], a: f32, x: &[f32]) {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: callers only take this path after `available()` confirmed AVX2 and
            // FMA at run time.
            unsafe { x86::axpy(y, a, x) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        super::portable::axpy(y, a, x)
    }

    /// Dot product; the caller checked [`available`].
    #[inline]
    pub fn dot(x: &[f32], y: &[f32]) -> f32 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: as in `axpy`, AVX2 and FMA were confirmed at run time.
            unsafe { x86::dot(x, y) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        super::portable::dot(x, y)
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use std::arch::x86_64::*;

        /// # Safety
        /// The processor must support AVX2 and FMA.
        #[target_feature(enable = "avx2,fma")]
        pub unsafe fn axpy(y: &mut [f32], a: f32, x: &[f32]) {
            let n = y.len().min(x.len());
            let av = _mm256_set1_ps(a);
            let mut i = 0;
            while i + 8 <= n {
                // SAFETY: i + 8 <= n keeps both 8-float loads and the store inside the
                // slices; unaligned loads and stores are used.
                unsafe {
                    let yp = y.as_mut_ptr().add(i);
                    let xv = _mm256_loadu_ps(x.as_ptr().add(i));
                    let yv = _mm256_loadu_ps(yp);
                    _mm256_storeu_ps(yp, _mm256_fmadd_ps(av, xv, yv));
                }
                i += 8;
            }
            while i < n {
                y[i] += a * x[i];
                i += 1;
            }
        }

        /// # Safety
        /// The processor must support AVX2 and FMA.
        #[target_feature(enable = "avx2,fma")]
        pub unsafe fn dot(x: &[f32], y: &[f32]) -> f32 {
            let n = x.len().min(y.len());
            let mut acc0 = _mm256_setzero_ps();
            let mut acc1 = _mm256_setzero_ps();
            let mut i = 0;
            while i + 16 <= n {
                // SAFETY: i + 16 <= n keeps the four 8-float loads inside the slices.
                unsafe {
                    acc0 = _mm256_fmadd_ps(
                        _mm256_loadu_ps(x.as_ptr().add(i)),
                        _mm256_loadu_ps(y.as_ptr().add(i)),
                        acc0,
                    );
                    acc1 = _mm256_fmadd_ps(
                        _mm256_loadu_ps(x.as_ptr().add(i + 8)),
                        _mm256_loadu_ps(y.as_ptr().add(i + 8)),
                        acc1,
                    );
                }
                i += 16;
            }
            let acc = _mm256_add_ps(acc0, acc1);
            let mut lanes = [0.0f32; 8];
            // SAFETY: `lanes` holds exactly 8 floats.
            unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), acc) };
            let mut s = ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5]))
                + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
            while i < n {
                s += x[i] * y[i];
                i += 1;
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
