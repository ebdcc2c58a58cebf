//! A one-hidden-layer perceptron with sigmoid units and five sigmoid outputs, written for
//! speed: the inputs are mostly zero, so the first layer adds one contiguous weight row
//! per nonzero input (rows are input-major, the hidden index varies fastest; on AVX2 the
//! sums of 64 hidden units at a time stay in registers over all the rows), and the
//! inner loops run on AVX2/FMA when the processor has them (asked once per process),
//! with a portable fallback that LLVM vectorises for plain SSE2.
//!
//! The same type trains: [`Mlp::accumulate_gradient`] adds a TD update for one position
//! into a [`Gradient`] buffer of the same shape, and [`Mlp::apply`] adds such buffers.

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
    pub fn random(inputs: usize, hidden: usize, scale: f32, rng: &mut crate::game::Rng) -> Mlp {
        let mut u = || rng.uniform_f32(-scale, scale);
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

    /// This net with more inputs and hidden units that computes the same function: the new
    /// inputs' weights into the old hidden units are zero, and the new hidden units (input
    /// weights and biases uniform in `-scale..scale`) have zero output weights. Training
    /// then starts from this net's evaluations and can only learn to use what was added.
    /// `None` when a size shrinks or the hidden layer grows past the largest allowed.
    pub fn widened(
        &self,
        inputs: usize,
        hidden: usize,
        scale: f32,
        rng: &mut crate::game::Rng,
    ) -> Option<Mlp> {
        if inputs < self.inputs || hidden < self.hidden || hidden > MAX_HIDDEN {
            return None;
        }
        let (h0, h) = (self.hidden, hidden);
        let mut w1 = vec![0f32; inputs * h];
        for i in 0..inputs {
            for j in 0..h {
                w1[i * h + j] = if j < h0 {
                    if i < self.inputs {
                        self.w1[i * h0 + j]
                    } else {
                        0.0
                    }
                } else {
                    rng.uniform_f32(-scale, scale)
                };
            }
        }
        let mut b1 = self.b1.clone();
        b1.extend((h0..h).map(|_| rng.uniform_f32(-scale, scale)));
        let mut w2 = vec![0f32; OUTPUTS * h];
        for o in 0..OUTPUTS {
            w2[o * h..o * h + h0].copy_from_slice(&self.w2[o * h0..(o + 1) * h0]);
        }
        Mlp::from_parts(inputs, h, w1, b1, w2, self.b2)
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

    /// Hidden activations into `hidden` (length at least the hidden units), raw outputs
    /// returned.
    #[inline]
    pub fn forward_into(&self, x: &SparseInput, hidden: &mut [f32]) -> [f32; OUTPUTS] {
        self.forward_on(best_path(), &x.index[..x.len], &x.value[..x.len], hidden)
    }

    /// [`Mlp::forward_into`] for nonzero inputs given as two slices (input indices and
    /// their values, the same length): the encodings of other games.
    #[inline]
    pub fn forward_sparse(
        &self,
        index: &[u16],
        value: &[f32],
        hidden: &mut [f32],
    ) -> [f32; OUTPUTS] {
        self.forward_on(best_path(), index, value, hidden)
    }

    /// [`Mlp::forward_into`] in two steps, with the same outputs bit for bit: the hidden
    /// sums of the biases and the first `split` nonzero inputs are left in `prefix`
    /// (computed there unless `reuse`, when `prefix` already holds them for this net and
    /// the same first `split` inputs: the caller's promise), then the other inputs are
    /// added to them. Positions that share their first inputs (the children of one
    /// position share the side to move's checkers) sum those once.
    pub(crate) fn forward_split(
        &self,
        x: &SparseInput,
        split: usize,
        prefix: &mut [f32],
        reuse: bool,
        hidden: &mut [f32],
    ) -> [f32; OUTPUTS] {
        #[inline(always)]
        fn with<K: Kernels>(
            net: &Mlp,
            k: K,
            x: &SparseInput,
            split: usize,
            prefix: &mut [f32],
            reuse: bool,
            hidden: &mut [f32],
        ) -> [f32; OUTPUTS] {
            let h = net.hidden;
            let (index, value) = (&x.index[..x.len], &x.value[..x.len]);
            let split = split.min(index.len());
            let prefix = &mut prefix[..h];
            if !reuse {
                k.sums(prefix, &net.b1, &net.w1, &index[..split], &value[..split]);
            }
            let hidden = &mut hidden[..h];
            k.sums(hidden, prefix, &net.w1, &index[split..], &value[split..]);
            k.sigmoids(hidden);
            let dots = k.output_dots(hidden, &net.w2);
            let mut out = [0.0; OUTPUTS];
            for (j, o) in out.iter_mut().enumerate() {
                *o = sigmoid(dots[j] + net.b2[j]);
            }
            out
        }
        match best_path() {
            Path::Portable => with(self, Portable, x, split, prefix, reuse, hidden),
            #[cfg(target_arch = "x86_64")]
            Path::Avx2Fma(k) => with(self, k, x, split, prefix, reuse, hidden),
        }
    }

    /// One step of gradient descent on the cross-entropy between the outputs listed in
    /// `trained` and `target` (the other outputs and their weights stay as they are), with
    /// learning rate `alpha`, for the nonzero inputs `index`/`value`. `hidden` and `back`
    /// are scratch space of at least the hidden units. Returns the outputs before the step.
    #[allow(clippy::too_many_arguments)]
    pub fn cross_entropy_step(
        &mut self,
        index: &[u16],
        value: &[f32],
        target: &[f32; OUTPUTS],
        trained: &[usize],
        alpha: f32,
        hidden: &mut [f32],
        back: &mut [f32],
    ) -> [f32; OUTPUTS] {
        let h = self.hidden;
        let out = self.forward_on(best_path(), index, value, hidden);
        let hidden = &hidden[..h];
        let back = &mut back[..h];
        back.fill(0.0);
        for &k in trained.iter().filter(|&&k| k < OUTPUTS) {
            // d(cross-entropy)/d(pre-activation) of a sigmoid output is (out - target).
            let dk = alpha * (target[k] - out[k]);
            if dk == 0.0 {
                continue;
            }
            let row = &mut self.w2[k * h..(k + 1) * h];
            for j in 0..h {
                back[j] += dk * row[j];
                row[j] += dk * hidden[j];
            }
            self.b2[k] += dk;
        }
        for j in 0..h {
            let a = hidden[j];
            back[j] *= a * (1.0 - a);
            self.b1[j] += back[j];
        }
        for (&i, &v) in index.iter().zip(value) {
            let row = &mut self.w1[i as usize * h..(i as usize + 1) * h];
            for (w, b) in row.iter_mut().zip(back.iter()) {
                *w += v * b;
            }
        }
        out
    }

    /// The five raw outputs for an encoded position.
    #[inline]
    pub fn forward(&self, x: &SparseInput) -> [f32; OUTPUTS] {
        let mut hidden = [0.0f32; MAX_HIDDEN];
        self.forward_into(x, &mut hidden)
    }

    /// The same as [`Mlp::forward`] on the portable kernels whatever the processor (for
    /// tests that compare the two paths).
    pub fn forward_portable(&self, x: &SparseInput) -> [f32; OUTPUTS] {
        let mut hidden = [0.0f32; MAX_HIDDEN];
        self.forward_on(
            Path::Portable,
            &x.index[..x.len],
            &x.value[..x.len],
            &mut hidden,
        )
    }

    /// One match per evaluation, so each arm runs loops built for its kernels.
    #[inline(always)]
    fn forward_on(
        &self,
        path: Path,
        index: &[u16],
        value: &[f32],
        hidden: &mut [f32],
    ) -> [f32; OUTPUTS] {
        match path {
            Path::Portable => self.forward_with(Portable, index, value, hidden),
            #[cfg(target_arch = "x86_64")]
            Path::Avx2Fma(k) => self.forward_with(k, index, value, hidden),
        }
    }

    #[inline(always)]
    fn forward_with<K: Kernels>(
        &self,
        k: K,
        index: &[u16],
        value: &[f32],
        hidden: &mut [f32],
    ) -> [f32; OUTPUTS] {
        let h = self.hidden;
        let hidden = &mut hidden[..h];
        k.hidden_layer(hidden, &self.b1, &self.w1, index, value);
        let dots = k.output_dots(hidden, &self.w2);
        let mut out = [0.0; OUTPUTS];
        for (j, o) in out.iter_mut().enumerate() {
            *o = sigmoid(dots[j] + self.b2[j]);
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
            Portable.axpy(&mut g.w1[i * h..(i + 1) * h], x.value[k], back);
        }
    }
}

fn add_assign(a: &mut [f32], b: &[f32]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// 1.5 * 2^23: a float in about [-2^22, 2^22] plus this is rounded to an integer.
const EXP2_MAGIC: f32 = 12_582_912.0;

/// The degree-6 Taylor polynomial of 2^f = e^(f ln 2), its coefficients lowest first.
const EXP2_POLY: [f32; 7] = {
    const L: f32 = std::f32::consts::LN_2;
    [
        1.0,
        L,
        L * L / 2.0,
        L * L * L / 6.0,
        L * L * L * L / 24.0,
        L * L * L * L * L / 120.0,
        L * L * L * L * L * L / 720.0,
    ]
};

/// 2^x for x in about [-126, 126], relative error below 2e-7: split into an integer and a
/// fraction in [-0.5, 0.5], [`EXP2_POLY`] for the fraction (Horner's rule). Plain
/// arithmetic and bit casts, so loops over it vectorise.
#[inline(always)]
fn exp2_approx(x: f32) -> f32 {
    let shifted = x + EXP2_MAGIC;
    let r = shifted - EXP2_MAGIC;
    let f = x - r;
    let i = (shifted.to_bits() as i32).wrapping_sub(EXP2_MAGIC.to_bits() as i32);
    let mut p = EXP2_POLY[6];
    for &c in EXP2_POLY[..6].iter().rev() {
        p = c + f * p;
    }
    f32::from_bits((p.to_bits() as i32).wrapping_add(i << 23) as u32)
}

/// The logistic function 1 / (1 + e^-x), fast and accurate to about 1e-6.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    let x = x.clamp(-40.0, 40.0);
    1.0 / (1.0 + exp2_approx(-x * std::f32::consts::LOG2_E))
}

#[inline(always)]
fn sigmoid_slice(v: &mut [f32]) {
    for x in v.iter_mut() {
        *x = sigmoid(*x);
    }
}

/// The layers after an integer first layer (the nets of [`super::qnet`]): the hidden
/// pre-activations are `acc[j] * unit` (`width` of them), replaced by their sigmoids;
/// the five outputs are the sigmoids of `b2` plus the dot products with the `OUTPUTS`
/// rows of `width` weights in `w2`. On
/// AVX2/FMA the sigmoids, the scaling and the output dot products run in one pass, the
/// reciprocal taken by `vrcpps` and a Newton step: within a few units in the last place
/// of the portable path's values, not bit for bit. `hidden` is scratch space of `width`.
pub(crate) fn output_layer_of_sums(
    acc: &[i32],
    unit: f32,
    hidden: &mut [f32],
    w2: &[f32],
    width: usize,
    b2: &[f32; OUTPUTS],
) -> [f32; OUTPUTS] {
    let dots = match best_path() {
        #[cfg(target_arch = "x86_64")]
        Path::Avx2Fma(k) => k.output_dots_of_sums(acc, unit, w2, width),
        Path::Portable => {
            let hidden = &mut hidden[..width];
            for (h, &a) in hidden.iter_mut().zip(acc) {
                *h = a as f32 * unit;
            }
            Portable.sigmoids(hidden);
            Portable.output_dots(hidden, w2)
        }
    };
    std::array::from_fn(|j| sigmoid(dots[j] + b2[j]))
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

/// Adds to `sums` the rows of `table` (each `sums.len()` long) at the offsets `rows`, on
/// the fastest kernels this processor has (the first layer of the pruning nets' tables,
/// [`super::prune`]). Panics (never reads outside a slice) when a row is short.
pub(crate) fn add_rows(sums: &mut [f32], table: &[f32], rows: &[u32]) {
    match best_path() {
        Path::Portable => add_rows_with(Portable, sums, table, rows),
        #[cfg(target_arch = "x86_64")]
        Path::Avx2Fma(k) => add_rows_with(k, sums, table, rows),
    }
}

#[inline(always)]
fn add_rows_with<K: Kernels>(k: K, sums: &mut [f32], table: &[f32], rows: &[u32]) {
    let h = sums.len();
    for &r in rows {
        let r = r as usize;
        k.axpy(sums, 1.0, &table[r..r + h]);
    }
}

/// A forward pass whose first layer is a sum of precomputed rows (the pruning nets'
/// tables, [`super::prune`]): the hidden sums are `start` plus the rows of `table` (each
/// `hidden.len()` long) at the offsets `rows` ([`add_rows`]), then the sigmoids and the
/// five outputs against `w2` (`OUTPUTS` rows of `hidden.len()`), on the fastest kernels
/// this processor has. Panics (never reads outside a slice) when a row or `w2` is short.
pub(crate) fn forward_rows(
    hidden: &mut [f32],
    start: &[f32],
    table: &[f32],
    rows: &[u32],
    w2: &[f32],
    b2: &[f32; OUTPUTS],
) -> [f32; OUTPUTS] {
    #[inline(always)]
    fn with<K: Kernels>(
        k: K,
        hidden: &mut [f32],
        start: &[f32],
        table: &[f32],
        rows: &[u32],
        w2: &[f32],
        b2: &[f32; OUTPUTS],
    ) -> [f32; OUTPUTS] {
        let h = hidden.len();
        hidden.copy_from_slice(&start[..h]);
        add_rows_with(k, hidden, table, rows);
        k.sigmoids(hidden);
        let dots = k.output_dots(hidden, w2);
        std::array::from_fn(|j| sigmoid(dots[j] + b2[j]))
    }
    match best_path() {
        Path::Portable => with(Portable, hidden, start, table, rows, w2, b2),
        #[cfg(target_arch = "x86_64")]
        Path::Avx2Fma(k) => with(k, hidden, start, table, rows, w2, b2),
    }
}

/// The two inner loops of the forward pass. A value of an implementing type stands for
/// the right to run its loops on this processor, so the methods are safe for any
/// arguments; each touches only the first `min(len)` elements of its slices.
trait Kernels: Copy {
    /// The hidden layer: `hidden[j] = sigmoid(b1[j] + sum of the nonzero inputs' values
    /// times row j of their inputs in w1)`, for the first `hidden.len()` units; w1 is
    /// input-major with rows of `hidden.len()` weights; `index` and `value` list the
    /// nonzero inputs (pairs up to the shorter). Panics (never reads outside a slice) when
    /// `b1` is shorter than `hidden` or an input's row does not lie inside `w1`.
    fn hidden_layer(
        self,
        hidden: &mut [f32],
        b1: &[f32],
        w1: &[f32],
        index: &[u16],
        value: &[f32],
    ) {
        let h = hidden.len();
        hidden.copy_from_slice(&b1[..h]);
        for (&i, &v) in index.iter().zip(value) {
            let i = i as usize;
            self.axpy(hidden, v, &w1[i * h..(i + 1) * h]);
        }
        sigmoid_slice(hidden);
    }
    /// [`Kernels::hidden_layer`] before its sigmoids, from `start` instead of the biases:
    /// `hidden[j] = start[j] + the products`, each unit summed exactly as `hidden_layer`
    /// sums it (so sums resumed from sums of some first inputs are the sums of all).
    fn sums(self, hidden: &mut [f32], start: &[f32], w1: &[f32], index: &[u16], value: &[f32]) {
        let h = hidden.len();
        hidden.copy_from_slice(&start[..h]);
        for (&i, &v) in index.iter().zip(value) {
            let i = i as usize;
            self.axpy(hidden, v, &w1[i * h..(i + 1) * h]);
        }
    }
    /// Every element replaced by its sigmoid.
    fn sigmoids(self, v: &mut [f32]) {
        sigmoid_slice(v);
    }
    /// y += a * x
    fn axpy(self, y: &mut [f32], a: f32, x: &[f32]);
    /// Sum of x[i] * y[i].
    fn dot(self, x: &[f32], y: &[f32]) -> f32;
    /// The [`OUTPUTS`] dot products of `hidden` with the consecutive rows of
    /// `hidden.len()` weights in `w2`, each exactly as [`Kernels::dot`] sums it. Panics
    /// (never reads outside a slice) when `w2` holds fewer than `OUTPUTS` rows.
    fn output_dots(self, hidden: &[f32], w2: &[f32]) -> [f32; OUTPUTS] {
        let h = hidden.len();
        std::array::from_fn(|j| self.dot(hidden, &w2[j * h..(j + 1) * h]))
    }
}

/// Loops written so that LLVM vectorises them for any x86-64 (SSE2) or other target.
#[derive(Debug, Clone, Copy)]
struct Portable;

impl Kernels for Portable {
    #[inline(always)]
    fn axpy(self, y: &mut [f32], a: f32, x: &[f32]) {
        let n = y.len().min(x.len());
        let (y, x) = (&mut y[..n], &x[..n]);
        for i in 0..n {
            y[i] += a * x[i];
        }
    }

    /// In eight interleaved partial sums.
    #[inline(always)]
    fn dot(self, x: &[f32], y: &[f32]) -> f32 {
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

/// The kernels a forward pass runs on.
#[derive(Debug, Clone, Copy)]
enum Path {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2Fma(x86::Avx2Fma),
}

/// The fastest path this processor supports. The processor is asked once per process:
/// the hot path pays one already-initialised load per evaluation.
#[inline]
fn best_path() -> Path {
    static BEST: std::sync::OnceLock<Path> = std::sync::OnceLock::new();
    *BEST.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = x86::Avx2Fma::detect() {
            return Path::Avx2Fma(k);
        }
        Path::Portable
    })
}

/// Whether evaluations run on the AVX2/FMA kernels (reported by the benchmarks).
pub(crate) mod simd {
    /// True when the processor has AVX2 and FMA (asked once per process).
    pub(crate) fn available() -> bool {
        !matches!(super::best_path(), super::Path::Portable)
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests;
