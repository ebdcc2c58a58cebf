//! The integer form of an [`Mlp`] for fast inference: the first layer's weights as 16-bit
//! integers, the inputs as 16-bit fixed-point numbers, the hidden sums in 32-bit integers.
//! The sigmoids and the small output layer stay in floating point.
//!
//! The first layer's weights (a row of `hidden` numbers per nonzero input) are read from
//! the second-level cache on every evaluation; 16-bit weights halve that traffic, and
//! `vpmaddwd` multiplies and adds two inputs' rows in one instruction. Integer sums are
//! exact, so the AVX2 kernels and the portable ones give bit-identical results, and so
//! does a sum updated from another position's (see [`QuantState`]): the order of the
//! additions cannot matter. The first layer alone runs about twice as fast as the float
//! one, but the input encoding costs about as much as the float net, so a whole
//! evaluation gains much less (see the precision option of `stargammon bench eval`).
//!
//! Scales: every product of a weight and an input value, and so every hidden sum, is an
//! integer count of `2^-S` (S = [`QuantMlp::sum_bits`], at most [`SUM_BITS`]). Row `i` of
//! the first layer (the weights of input `i`) is stored as `round(w * 2^a_i)` and the value
//! of input `i` as `round(v * 2^(S - a_i))`, with `a_i` as large as the row's largest
//! weight allows (16 bits) but leaving the value at least [`MIN_VALUE_BITS`] fraction bits:
//! rows of small weights get fine weights, rows of large weights (the features with small
//! values) fine values. A value too large for 16 bits at its row's scale, or a position
//! whose sums could leave 32 bits, is evaluated by the float net instead. The sums are
//! bounded before the integer pass by the largest bias plus each input's largest weight
//! times its value, over all units and, when that bound is too large, over each block of
//! `BOUND_UNITS` units.

use std::sync::atomic::{AtomicU64, Ordering};

use super::encoding::SparseInput;
use super::net::{self, Mlp, MAX_HIDDEN, OUTPUTS};

/// The most fraction bits of a hidden sum: sums up to 2^(31 - SUM_BITS) = 128 in float
/// terms fit 32 bits (fewer bits when the biases are large).
pub const SUM_BITS: u32 = 24;
/// The fewest fraction bits of a quantized input value (values up to 16 fit 16 bits).
pub const MIN_VALUE_BITS: u32 = 11;
/// The most fraction bits of a quantized input value (values below 1 fit 16 bits).
const MAX_VALUE_BITS: u32 = 15;
/// The overflow bound is taken over blocks of this many hidden units.
const BOUND_UNITS: usize = 64;
/// Hidden units are stored in groups of this many (the AVX2 kernel's unit of work).
const GROUP: usize = 16;
/// The most entries a quantized input or a difference of two can hold.
const MAX_ENTRIES: usize = 2 * super::encoding::MAX_NONZERO;

/// How a [`super::NeuralEvaluator`] computes: the float nets, or their integer form.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 32-bit floats throughout: the reference, and the default.
    #[default]
    Float,
    /// 16-bit integer first layer ([`QuantMlp`]), float sigmoids and outputs.
    Int16,
}

impl Precision {
    /// The name in player specs (`precision=float`).
    pub fn name(self) -> &'static str {
        match self {
            Precision::Float => "float",
            Precision::Int16 => "int16",
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Precision {
    type Err = String;
    fn from_str(s: &str) -> Result<Precision, String> {
        match s {
            "float" => Ok(Precision::Float),
            "int16" => Ok(Precision::Int16),
            other => Err(format!("unknown precision '{other}' (float or int16)")),
        }
    }
}

/// One (input index, quantized value) pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entry {
    pub index: u16,
    pub value: i16,
}

/// A position's nonzero inputs, quantized, in increasing index order.
#[derive(Debug, Clone)]
pub struct QuantInput {
    entries: [Entry; MAX_ENTRIES],
    len: usize,
}

impl Default for QuantInput {
    fn default() -> Self {
        QuantInput {
            entries: [Entry::default(); MAX_ENTRIES],
            len: 0,
        }
    }
}

impl QuantInput {
    /// The entries.
    pub fn entries(&self) -> &[Entry] {
        &self.entries[..self.len]
    }

    fn push(&mut self, index: u16, value: i16) {
        if value != 0 && self.len < MAX_ENTRIES {
            self.entries[self.len] = Entry { index, value };
            self.len += 1;
        }
    }

    /// What to add to a hidden sum computed for `old` to get `new`'s (both in increasing
    /// index order): the change of every input whose value differs, as one entry when it
    /// fits 16 bits and as the removal of the old value and the addition of the new one
    /// otherwise.
    pub fn difference(old: &QuantInput, new: &QuantInput, out: &mut QuantInput) {
        out.len = 0;
        let (a, b) = (old.entries(), new.entries());
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let ia = a.get(i).map_or(u16::MAX as u32 + 1, |e| e.index as u32);
            let ib = b.get(j).map_or(u16::MAX as u32 + 1, |e| e.index as u32);
            if ia < ib {
                out.push(a[i].index, a[i].value.saturating_neg());
                i += 1;
            } else if ib < ia {
                out.push(b[j].index, b[j].value);
                j += 1;
            } else {
                let d = b[j].value as i32 - a[i].value as i32;
                match i16::try_from(d) {
                    Ok(d) => out.push(b[j].index, d),
                    Err(_) => {
                        out.push(a[i].index, a[i].value.saturating_neg());
                        out.push(b[j].index, b[j].value);
                    }
                }
                i += 1;
                j += 1;
            }
        }
    }
}

/// The integer first layer of an [`Mlp`], with its float output layer.
#[derive(Clone)]
pub struct QuantMlp {
    /// Distinguishes nets for [`QuantState`]; clones share it (they hold the same weights).
    id: u64,
    inputs: usize,
    hidden: usize,
    /// `hidden` rounded up to a multiple of [`GROUP`]; the extra units have zero weights.
    padded: usize,
    /// `inputs` rows of `padded` weights, input-major.
    w1: Vec<i16>,
    b1: Vec<i32>,
    /// Per input and block of `BOUND_UNITS` units, the largest stored weight's magnitude
    /// (for the overflow bound), input-major.
    group_max: Vec<f32>,
    /// Per input, `2^(S - a_i)`: what its value is multiplied by before rounding.
    value_scale: Vec<f32>,
    /// Per block of `BOUND_UNITS` units, the largest stored bias magnitude.
    group_bias: Vec<f32>,
    /// Per input, its largest stored weight's magnitude (the quick overflow bound).
    row_max: Vec<f32>,
    /// The largest stored bias magnitude.
    bias_max: f32,
    /// `OUTPUTS` rows of `padded` float weights.
    w2: Vec<f32>,
    b2: [f32; OUTPUTS],
    /// S: the fraction bits of the hidden sums.
    sum_bits: u32,
    /// The float value of one unit of a hidden sum: 2^-S.
    unit: f32,
}

impl std::fmt::Debug for QuantMlp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "QuantMlp({}x{}x{}, sums 2^-{})",
            self.inputs, self.hidden, OUTPUTS, self.sum_bits
        )
    }
}

/// The largest hidden sum magnitude the integer pass accepts.
const SUM_LIMIT: u64 = (i32::MAX - 1) as u64;

impl QuantMlp {
    /// The integer form of `net`; `None` when a weight is not finite or the biases are so
    /// large that no scale fits them.
    pub fn new(net: &Mlp) -> Option<QuantMlp> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let (inputs, hidden) = (net.inputs, net.hidden);
        if net.w1.iter().chain(&net.b1).any(|w| !w.is_finite()) {
            return None;
        }
        // The most fraction bits a weight of magnitude `m` can have in 16 bits.
        let bits_for = |m: f64| -> i32 {
            if m <= 0.0 {
                30
            } else {
                (32767.0 / m).log2().floor() as i32
            }
        };
        let row_w_max: Vec<f64> = (0..inputs)
            .map(|i| {
                net.w1[i * hidden..(i + 1) * hidden]
                    .iter()
                    .fold(0f64, |m, w| m.max(w.abs() as f64))
            })
            .collect();
        let widest = row_w_max.iter().fold(0f64, |m, &w| m.max(w));
        let b_max = net.b1.iter().fold(0f64, |m, w| m.max(w.abs() as f64));
        // S: at most SUM_BITS, low enough that the row of the largest weights still leaves
        // its values MAX_VALUE_BITS, and that the biases fit well within 32 bits.
        let mut sum = (SUM_BITS as i32).min(bits_for(widest) + MAX_VALUE_BITS as i32);
        while sum > 0 && b_max * 2f64.powi(sum) > SUM_LIMIT as f64 / 2.0 {
            sum -= 1;
        }
        if sum < MIN_VALUE_BITS as i32 {
            return None;
        }
        let padded = hidden.div_ceil(GROUP) * GROUP;
        let mut w1 = vec![0i16; inputs * padded];
        let groups = padded.div_ceil(BOUND_UNITS);
        let mut group_max = vec![0f32; inputs * groups];
        let mut value_scale = vec![0f32; inputs];
        for i in 0..inputs {
            let a = bits_for(row_w_max[i]).min(sum - MIN_VALUE_BITS as i32);
            let wscale = 2f64.powi(a);
            value_scale[i] = 2f64.powi(sum - a) as f32;
            for j in 0..hidden {
                let q = (net.w1[i * hidden + j] as f64 * wscale)
                    .round()
                    .clamp(-32767.0, 32767.0) as i16;
                w1[i * padded + j] = q;
                let m = &mut group_max[i * groups + j / BOUND_UNITS];
                *m = m.max(q.unsigned_abs() as f32);
            }
        }
        let bscale = 2f64.powi(sum);
        let mut b1 = vec![0i32; padded];
        for j in 0..hidden {
            b1[j] = (net.b1[j] as f64 * bscale).round() as i32;
        }
        let mut group_bias = vec![0f32; groups];
        for (j, b) in b1.iter().enumerate() {
            group_bias[j / BOUND_UNITS] = group_bias[j / BOUND_UNITS].max(b.unsigned_abs() as f32);
        }
        let mut w2 = vec![0f32; OUTPUTS * padded];
        for o in 0..OUTPUTS {
            w2[o * padded..o * padded + hidden]
                .copy_from_slice(&net.w2[o * hidden..(o + 1) * hidden]);
        }
        Some(QuantMlp {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            inputs,
            hidden,
            padded,
            w1,
            b1,
            row_max: (0..inputs)
                .map(|i| {
                    group_max[i * groups..(i + 1) * groups]
                        .iter()
                        .fold(0f32, |m, &g| m.max(g))
                })
                .collect(),
            bias_max: group_bias.iter().fold(0f32, |m, &g| m.max(g)),
            group_max,
            value_scale,
            group_bias,
            w2,
            b2: net.b2,
            sum_bits: sum as u32,
            unit: (1.0 / bscale) as f32,
        })
    }

    /// Quantizes `x` into `out` at this net's scales (values that round to zero are left
    /// out). `false` when an index is not one of this net's inputs, a value does not fit 16
    /// bits, or the sums could leave 32 bits: the position is then for the float net.
    pub fn quantize(&self, x: &SparseInput, out: &mut QuantInput) -> bool {
        out.len = 0;
        // Float sums of at most a few hundred terms are far within 1% of the exact ones.
        let limit = 0.99 * SUM_LIMIT as f32;
        let mut quick = self.bias_max;
        for k in 0..x.len.min(x.index.len()) {
            let i = x.index[k] as usize;
            let (Some(&scale), Some(&m)) = (self.value_scale.get(i), self.row_max.get(i)) else {
                return false;
            };
            let q = x.value[k] * scale;
            if !(-32767.0..=32767.0).contains(&q) {
                return false;
            }
            // Rounded half away from zero (the cast truncates; `round` is a library call
            // on plain x86-64).
            let q = (q + 0.5f32.copysign(q)) as i16;
            quick += m * q.unsigned_abs() as f32;
            out.push(x.index[k], q);
        }
        if quick <= limit {
            return true;
        }
        // The bound over all units at once failed: bound each block of units by itself.
        let groups = self.group_bias.len();
        let mut bound = [0f32; MAX_HIDDEN / GROUP];
        let bound = &mut bound[..groups];
        bound.copy_from_slice(&self.group_bias);
        for e in out.entries() {
            let i = e.index as usize;
            let a = e.value.unsigned_abs() as f32;
            for (b, &m) in bound
                .iter_mut()
                .zip(&self.group_max[i * groups..(i + 1) * groups])
            {
                *b += m * a;
            }
        }
        bound.iter().all(|&b| b <= limit)
    }

    pub fn inputs(&self) -> usize {
        self.inputs
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// S: the fraction bits of the hidden sums.
    pub fn sum_bits(&self) -> u32 {
        self.sum_bits
    }

    /// The five raw outputs for `x` (quantized by [`QuantMlp::quantize`], which accepted
    /// it). `acc` and `hidden` are scratch space of at least [`MAX_HIDDEN`] elements;
    /// `acc` keeps the hidden sums.
    pub fn forward(&self, x: &QuantInput, acc: &mut [i32], hidden: &mut [f32]) -> [f32; OUTPUTS] {
        let acc = &mut acc[..self.padded];
        acc.copy_from_slice(&self.b1);
        accumulate(acc, &self.w1, self.padded, x.entries());
        self.outputs(acc, hidden)
    }

    /// The float part: sigmoids of the hidden sums, the output layer, its sigmoids.
    fn outputs(&self, acc: &[i32], hidden: &mut [f32]) -> [f32; OUTPUTS] {
        let p = self.padded;
        let hidden = &mut hidden[..p];
        for (h, &a) in hidden.iter_mut().zip(acc) {
            *h = a as f32 * self.unit;
        }
        net::output_layer(hidden, &self.w2, p, &self.b2)
    }
}

/// Adds `value` times row `index` of `w1` (rows of `width` weights) to `acc` for every
/// entry, on the fastest kernels this processor has. Panics (never reads outside `w1`)
/// when an entry's row is not inside `w1`.
fn accumulate(acc: &mut [i32], w1: &[i16], width: usize, entries: &[Entry]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = x86::Avx2::get() {
        return k.accumulate(acc, w1, width, entries);
    }
    accumulate_portable(acc, w1, width, entries);
}

/// [`accumulate`] in plain Rust (wrapping 32-bit arithmetic, as the SIMD kernel's).
fn accumulate_portable(acc: &mut [i32], w1: &[i16], width: usize, entries: &[Entry]) {
    let n = acc.len().min(width);
    for e in entries {
        let start = e.index as usize * width;
        let row = &w1[start..start + n];
        let v = e.value as i32;
        for (a, &w) in acc[..n].iter_mut().zip(row) {
            *a = a.wrapping_add(w as i32 * v);
        }
    }
}

/// A thread's memory of the last position evaluated with the integer nets: its quantized
/// inputs and hidden sums. The next position of the same net whose inputs differ in fewer
/// places than it has nonzero inputs is summed from them (the children of one position
/// differ from each other in a few points and some features). The result is the same
/// integer sum either way.
#[derive(Debug, Clone)]
pub struct QuantState {
    /// The net the sums belong to (0: none yet).
    net: u64,
    last: QuantInput,
    next: QuantInput,
    diff: QuantInput,
    acc: Vec<i32>,
    hidden: Vec<f32>,
}

impl Default for QuantState {
    fn default() -> Self {
        QuantState {
            net: 0,
            last: QuantInput::default(),
            next: QuantInput::default(),
            diff: QuantInput::default(),
            acc: vec![0; MAX_HIDDEN],
            hidden: vec![0.0; MAX_HIDDEN],
        }
    }
}

impl QuantState {
    /// The five raw outputs of `net` for `x`, from the remembered sums where that is
    /// cheaper; `None` when the integer pass could overflow (the state then forgets).
    pub fn forward(&mut self, net: &QuantMlp, x: &SparseInput) -> Option<[f32; OUTPUTS]> {
        if !net.quantize(x, &mut self.next) {
            self.net = 0;
            return None;
        }
        let acc = &mut self.acc[..net.padded];
        let mut incremental = false;
        if self.net == net.id {
            QuantInput::difference(&self.last, &self.next, &mut self.diff);
            incremental = self.diff.len < self.next.len;
        }
        if incremental {
            accumulate(acc, &net.w1, net.padded, self.diff.entries());
        } else {
            acc.copy_from_slice(&net.b1);
            accumulate(acc, &net.w1, net.padded, self.next.entries());
        }
        std::mem::swap(&mut self.last, &mut self.next);
        self.net = net.id;
        Some(net.outputs(&self.acc[..net.padded], &mut self.hidden))
    }

    /// Forgets the remembered sums.
    pub fn clear(&mut self) {
        self.net = 0;
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{Entry, GROUP};

    /// Proof that the processor has AVX2: the private field leaves [`Avx2::get`] the only
    /// way to make one.
    #[derive(Debug, Clone, Copy)]
    pub(super) struct Avx2(());

    impl Avx2 {
        /// `Some` when the processor has AVX2 (asked once per process).
        #[inline]
        pub(super) fn get() -> Option<Avx2> {
            static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
            HAS.get_or_init(|| std::is_x86_feature_detected!("avx2"))
                .then_some(Avx2(()))
        }

        /// [`super::accumulate`] on AVX2.
        #[inline]
        pub(super) fn accumulate(self, acc: &mut [i32], w1: &[i16], width: usize, e: &[Entry]) {
            // SAFETY: `self` exists, so the processor has AVX2; `accumulate` checks every
            // slice it reads or writes.
            unsafe { accumulate(acc, w1, width, e) }
        }
    }

    /// Groups of [`GROUP`] units summed together in registers over all the entries: four
    /// groups (eight registers) at a time, then one at a time.
    const WIDE: usize = 4;

    /// Adds `value` times row `index` of `w1` (rows of `width` weights) to `acc`, for every
    /// entry, over whole groups of [`GROUP`] units; the units past the last whole group of
    /// `min(acc.len(), width)` as the portable loop does.
    ///
    /// # Safety
    /// The processor must support AVX2. The slices may have any lengths: the rows are
    /// taken by checked slicing.
    #[target_feature(enable = "avx2")]
    unsafe fn accumulate(acc: &mut [i32], w1: &[i16], width: usize, entries: &[Entry]) {
        let end = acc.len().min(width);
        let n = end / GROUP * GROUP;
        let mut base = 0;
        while base + WIDE * GROUP <= n {
            // SAFETY: AVX2, as this function's callers promise.
            unsafe {
                block::<WIDE>(
                    &mut acc[base..base + WIDE * GROUP],
                    w1,
                    width,
                    base,
                    entries,
                )
            };
            base += WIDE * GROUP;
        }
        while base < n {
            // SAFETY: as above.
            unsafe { block::<1>(&mut acc[base..base + GROUP], w1, width, base, entries) };
            base += GROUP;
        }
        if n < end {
            for e in entries {
                let start = e.index as usize * width;
                let row = &w1[start + n..start + end];
                for (a, &w) in acc[n..end].iter_mut().zip(row) {
                    *a = a.wrapping_add(w as i32 * e.value as i32);
                }
            }
        }
    }

    /// `G` groups of units starting at unit `base`, their sums (`out`, `G` x 16 of them)
    /// kept in `2 G` registers over all the entries. Two entries' rows are interleaved unit
    /// by unit and multiplied by their two values with `vpmaddwd`: each 32-bit lane gets
    /// `w_a * v_a + w_b * v_b` for one unit. The interleaving works within 128-bit halves,
    /// so a group's low register holds units 0-3 and 8-11 and its high one units 4-7 and
    /// 12-15; the sums are loaded into and stored from that order.
    ///
    /// # Safety
    /// The processor must support AVX2. Panics (never reads outside a slice) when `out`
    /// is shorter than `G` x 16 or an entry's row does not hold `base + G x 16` weights
    /// inside `w1`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn block<const G: usize>(
        out: &mut [i32],
        w1: &[i16],
        width: usize,
        base: usize,
        entries: &[Entry],
    ) {
        let span = G * GROUP;
        let out = &mut out[..span];
        let mut lo = [_mm256_setzero_si256(); G];
        let mut hi = [_mm256_setzero_si256(); G];
        for g in 0..G {
            // SAFETY: `out` holds G x 16 i32; group g's two 8-lane unaligned loads read
            // its elements 16g..16g+16.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(out.as_ptr().add(GROUP * g) as *const __m256i),
                    _mm256_loadu_si256(out.as_ptr().add(GROUP * g + 8) as *const __m256i),
                )
            };
            lo[g] = _mm256_permute2x128_si256::<0x20>(a, b);
            hi[g] = _mm256_permute2x128_si256::<0x31>(a, b);
        }
        let mut pairs = entries.chunks_exact(2);
        for pair in &mut pairs {
            let (ea, eb) = (pair[0], pair[1]);
            let ra = &w1[ea.index as usize * width + base..][..span];
            let rb = &w1[eb.index as usize * width + base..][..span];
            let factor =
                _mm256_set1_epi32((ea.value as u16 as u32 | (eb.value as u16 as u32) << 16) as i32);
            for g in 0..G {
                // SAFETY: `ra` and `rb` hold G x 16 i16; the unaligned loads read elements
                // 16g..16g+16 of each.
                let (wa, wb) = unsafe {
                    (
                        _mm256_loadu_si256(ra.as_ptr().add(GROUP * g) as *const __m256i),
                        _mm256_loadu_si256(rb.as_ptr().add(GROUP * g) as *const __m256i),
                    )
                };
                let l = _mm256_madd_epi16(_mm256_unpacklo_epi16(wa, wb), factor);
                let h = _mm256_madd_epi16(_mm256_unpackhi_epi16(wa, wb), factor);
                lo[g] = _mm256_add_epi32(lo[g], l);
                hi[g] = _mm256_add_epi32(hi[g], h);
            }
        }
        if let [e] = pairs.remainder() {
            let ra = &w1[e.index as usize * width + base..][..span];
            let factor = _mm256_set1_epi32(e.value as u16 as u32 as i32);
            let zero = _mm256_setzero_si256();
            for g in 0..G {
                // SAFETY: `ra` holds G x 16 i16; the load reads elements 16g..16g+16.
                let wa =
                    unsafe { _mm256_loadu_si256(ra.as_ptr().add(GROUP * g) as *const __m256i) };
                let l = _mm256_madd_epi16(_mm256_unpacklo_epi16(wa, zero), factor);
                let h = _mm256_madd_epi16(_mm256_unpackhi_epi16(wa, zero), factor);
                lo[g] = _mm256_add_epi32(lo[g], l);
                hi[g] = _mm256_add_epi32(hi[g], h);
            }
        }
        for g in 0..G {
            let a = _mm256_permute2x128_si256::<0x20>(lo[g], hi[g]);
            let b = _mm256_permute2x128_si256::<0x31>(lo[g], hi[g]);
            // SAFETY: as for the loads above: group g's 16 i32 of `out`, unaligned.
            unsafe {
                _mm256_storeu_si256(out.as_mut_ptr().add(GROUP * g) as *mut __m256i, a);
                _mm256_storeu_si256(out.as_mut_ptr().add(GROUP * g + 8) as *mut __m256i, b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
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

    /// The AVX2 kernel and the portable loop give the same integers on random rows of
    /// awkward widths, odd and even entry counts.
    #[test]
    fn simd_and_portable_sums_are_identical() {
        let mut rng = Rng::seeded(21);
        for width in [16usize, 32, 48, 64, 80, 128, 144, 384, 400, 1024] {
            let inputs = 40;
            let w1: Vec<i16> = (0..inputs * width)
                .map(|_| (rng.index(65535) as i32 - 32767) as i16)
                .collect();
            for len in [0, 1, 2, 3, 7, 30] {
                let x = random_input(&mut rng, inputs, len);
                let start: Vec<i32> = (0..width).map(|_| rng.index(1000) as i32).collect();
                let mut a = start.clone();
                let mut b = start.clone();
                accumulate(&mut a, &w1, width, x.entries());
                accumulate_portable(&mut b, &w1, width, x.entries());
                assert_eq!(a, b, "width {width} len {len}");
            }
        }
    }

    /// A sum updated by the difference of two inputs equals the sum of the new input.
    #[test]
    fn difference_updates_match_full_sums() {
        let mut rng = Rng::seeded(22);
        let (inputs, width) = (60, 64);
        let w1: Vec<i16> = (0..inputs * width)
            .map(|_| (rng.index(2001) as i32 - 1000) as i16)
            .collect();
        for _ in 0..200 {
            let (la, lb) = (rng.index(30), rng.index(30));
            let old = random_input(&mut rng, inputs, la);
            let new = random_input(&mut rng, inputs, lb);
            let mut from_old = vec![0i32; width];
            accumulate(&mut from_old, &w1, width, old.entries());
            let mut diff = QuantInput::default();
            QuantInput::difference(&old, &new, &mut diff);
            accumulate(&mut from_old, &w1, width, diff.entries());
            let mut full = vec![0i32; width];
            accumulate(&mut full, &w1, width, new.entries());
            assert_eq!(from_old, full);
        }
    }

    #[test]
    fn precision_names_parse_back() {
        for p in [Precision::Float, Precision::Int16] {
            assert_eq!(p.name().parse::<Precision>(), Ok(p));
        }
        assert!("half".parse::<Precision>().is_err());
    }
}
