//! The integer form of an [`Mlp`] for fast inference: the first layer's weights as 16-bit
//! integers, the inputs as 16-bit fixed-point numbers, the hidden sums in 32-bit integers.
//! The sigmoids and the small output layer stay in floating point (on AVX2/FMA in one
//! pass with the scaling of the sums, the sigmoids' reciprocals by `vrcpps` and a Newton
//! step, sixteen units at a time on AVX-512: within a few units in the last place of the
//! portable path). Where the processor has AVX-512 (F and BW), the first layer keeps 384
//! units' sums in its 32 registers and reads each changed input's row once, in one pass.
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
//! A position's inputs are quantized dense, one 16-bit value per input of the net, eight
//! at a time (the `x86` kernels on AVX2), and compared with the last position's sixteen at a time,
//! so that neither costs a step per nonzero input.
//!
//! Scales: every product of a weight and an input value, and so every hidden sum, is an
//! integer count of `2^-S` (S = [`QuantMlp::sum_bits`], at most [`SUM_BITS`]). Row `i` of
//! the first layer (the weights of input `i`) is stored as `round(w * 2^a_i)` and the value
//! of input `i` as `round(v * 2^(S - a_i))`, with `a_i` as large as the row's largest
//! weight allows (16 bits) but leaving the value at least [`MIN_VALUE_BITS`] fraction bits:
//! rows of small weights get fine weights, rows of large weights (the features with small
//! values) fine values. A value too large for 16 bits at its row's scale, or a position
//! whose sums leave 32 bits, is evaluated by the float net instead. Whether they do is
//! settled before the integer pass by the first of these that holds: the largest bias
//! plus each input's largest weight times its value, over all units, is within 32 bits;
//! the last position's largest sum plus the same bound of the changes from it is; each
//! block of `BOUND_UNITS` units is, by its own bound or else by its exact sums, computed
//! in 64 bits. So a position is summed in integers or not by its own sums alone, never by
//! the positions before it (a rollout gives the same results on any number of threads).

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
/// The overflow bound is taken over blocks of this many hidden units. On random boards
/// (gnubg's `calibrate`), where the bound over all units fails for nearly every position,
/// blocks of 16 hold for 99.9% of them (blocks of 64 for 6%), so the exact sums in 64
/// bits are almost never needed; the bound reads only the nonzero inputs' rows of block
/// maxima.
const BOUND_UNITS: usize = 16;
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

    fn len(&self) -> usize {
        self.len
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn push(&mut self, index: u16, value: i16) {
        if value != 0 && self.len < MAX_ENTRIES {
            self.entries[self.len] = Entry { index, value };
            self.len += 1;
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
    /// `inputs` rounded up to a multiple of [`GROUP`]: the length of a dense quantized
    /// input (the extra inputs are always zero).
    padded_inputs: usize,
    /// `inputs` rows of `padded` weights, input-major.
    w1: Vec<i16>,
    b1: Vec<i32>,
    /// Per input and block of `BOUND_UNITS` units, the largest stored weight's magnitude
    /// (for the overflow bound): a row of `group_bias.len()` per input, zero past the
    /// last block.
    group_max: Vec<f32>,
    /// Per input, `2^(S - a_i)`: what its value is multiplied by before rounding
    /// (`padded_inputs` of them, zero past `inputs`).
    value_scale: Vec<f32>,
    /// Per block of `BOUND_UNITS` units, the largest stored bias magnitude (a multiple of
    /// eight of them, zero past the last block).
    group_bias: Vec<f32>,
    /// Per input, its largest stored weight's magnitude (the quick overflow bound;
    /// `padded_inputs` of them, zero past `inputs`).
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
/// What the overflow bounds, summed in float, are held to: float sums of at most a few
/// hundred terms are far within 1% of the exact ones.
const BOUND_LIMIT: f32 = 0.99 * SUM_LIMIT as f32;

/// A position's inputs quantized by [`QuantMlp::quantize`].
struct Quantized {
    /// How many are nonzero.
    nonzero: usize,
    /// Whether the bound over all units keeps every sum within 32 bits.
    within: bool,
}

impl QuantMlp {
    /// The integer form of `net`; `None` when a weight is not finite, the biases are so
    /// large that no scale fits them, or the net has more blocks of `BOUND_UNITS` units
    /// than the 64 bits that mark those whose overflow bound fails.
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
        // Blocks in whole groups of eight, as the overflow bound's kernel sums them.
        let groups = padded.div_ceil(BOUND_UNITS).div_ceil(8) * 8;
        if groups > 64 {
            return None;
        }
        let padded_inputs = inputs.div_ceil(GROUP) * GROUP;
        let mut group_max = vec![0f32; padded_inputs * groups];
        let mut value_scale = vec![0f32; padded_inputs];
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
            padded_inputs,
            w1,
            b1,
            row_max: group_max
                .chunks_exact(groups)
                .map(|row| row.iter().fold(0f32, |m, &g| m.max(g)))
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

    /// Quantizes `x` at this net's scales into `q` (one value per input, `padded_inputs`
    /// of them), using `dense` (as long) as scratch space, and bounds the sums over all
    /// units at once. `None` when an index is not one of this net's inputs
    /// or a value does not fit 16 bits: the position is then for the float net.
    fn quantize(&self, x: &SparseInput, dense: &mut [f32], q: &mut [i16]) -> Option<Quantized> {
        let n = self.padded_inputs;
        let (dense, q) = (&mut dense[..n], &mut q[..n]);
        dense.fill(0.0);
        let len = x.len.min(x.index.len());
        for (&i, &v) in x.index[..len].iter().zip(&x.value[..len]) {
            let i = i as usize;
            if i >= self.inputs {
                return None;
            }
            dense[i] = v;
        }
        let lanes = Lanes {
            dense,
            scale: &self.value_scale,
            row_max: &self.row_max,
            q,
        };
        let found = lanes.run();
        if found.out_of_range {
            return None;
        }
        Some(Quantized {
            nonzero: found.nonzero,
            within: self.bias_max + found.bound <= BOUND_LIMIT,
        })
    }

    /// The blocks of `BOUND_UNITS` units (bit b for block b) whose own bound, for the
    /// nonzero inputs `index` of the quantized input `q` (one value per input), does not
    /// keep their sums within 32 bits (the bound over all units at once is looser).
    fn failing_blocks(&self, index: &[u16], q: &[i16]) -> u64 {
        Blocks {
            bias: &self.group_bias,
            max: &self.group_max,
            index,
            q,
            limit: BOUND_LIMIT,
        }
        .run()
    }

    /// Checks the sums of the inputs `entries` of the units in the `failing` blocks
    /// exactly, in 64 bits (`wide` is scratch space): `false` when one leaves the 32-bit
    /// range the integer pass accepts. The other blocks' bounds hold already.
    fn exact_blocks_fit(&self, entries: &[Entry], failing: u64, wide: &mut Vec<i64>) -> bool {
        let n = self.padded;
        let mut blocks = failing;
        while blocks != 0 {
            let base = blocks.trailing_zeros() as usize * BOUND_UNITS;
            blocks &= blocks - 1;
            let end = (base + BOUND_UNITS).min(n);
            if base >= end {
                continue;
            }
            wide.clear();
            wide.extend(self.b1[base..end].iter().map(|&b| b as i64));
            wide_sums(wide, &self.w1, n, base, entries);
            if wide.iter().any(|s| s.unsigned_abs() > SUM_LIMIT) {
                return false;
            }
        }
        true
    }

    /// Whether sums within 32 bits whose largest magnitude is `largest` stay within them
    /// after adding `entries`: each changes a sum by at most its row's largest weight
    /// times its value's magnitude.
    fn change_fits(&self, largest: u32, entries: &[Entry]) -> bool {
        let change: f32 = entries
            .iter()
            .map(|e| self.row_max[e.index as usize] * e.value.unsigned_abs() as f32)
            .sum();
        largest as f32 + change <= BOUND_LIMIT
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

    /// The float part: sigmoids of the hidden sums, the output layer, its sigmoids.
    fn outputs(&self, acc: &[i32], hidden: &mut [f32]) -> [f32; OUTPUTS] {
        net::output_layer_of_sums(acc, self.unit, hidden, &self.w2, self.padded, &self.b2)
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
    accumulate_from(acc, w1, width, entries, 0);
}

/// [`accumulate_portable`] for the units from `from` on (the SIMD kernels' last units,
/// past their whole groups).
fn accumulate_from(acc: &mut [i32], w1: &[i16], width: usize, entries: &[Entry], from: usize) {
    let n = acc.len().min(width);
    if from >= n {
        return;
    }
    for e in entries {
        let start = e.index as usize * width;
        let row = &w1[start + from..start + n];
        let v = e.value as i32;
        for (a, &w) in acc[from..n].iter_mut().zip(row) {
            *a = a.wrapping_add(w as i32 * v);
        }
    }
}

/// A dense input to quantize at a net's scales (every slice as long as `dense`, a
/// multiple of 8).
struct Lanes<'a> {
    dense: &'a [f32],
    scale: &'a [f32],
    row_max: &'a [f32],
    /// Out: the quantized values.
    q: &'a mut [i16],
}

/// What quantizing a dense input found.
struct Found {
    nonzero: usize,
    /// A value did not fit 16 bits (or was not a number).
    out_of_range: bool,
    /// The sum of each input's largest row weight times its value's magnitude.
    bound: f32,
}

impl Lanes<'_> {
    /// [`Lanes::quantize`] on the fastest kernels this processor has.
    fn run(self) -> Found {
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = x86::Avx2::get() {
            return k.quantize(self);
        }
        self.quantize()
    }

    /// Eight lanes of partial sums and flags, so that the loop vectorises (with AVX2 when
    /// compiled inside [`x86::Avx2::quantize`]).
    #[inline(always)]
    fn quantize(self) -> Found {
        let mut bound = [0f32; 8];
        let mut out_of_range = [false; 8];
        let mut nonzero = [0u32; 8];
        let inputs = self.dense.chunks_exact(8).zip(self.scale.chunks_exact(8));
        let outputs = self.q.chunks_exact_mut(8);
        for (((v, scale), m), q) in inputs.zip(self.row_max.chunks_exact(8)).zip(outputs) {
            for l in 0..8 {
                let t = v[l] * scale[l];
                out_of_range[l] |= t.is_nan() | (t.abs() > 32767.0);
                // Rounded half away from zero (the cast truncates; `round` is a library
                // call on plain x86-64). In range, the 32-bit integer fits 16 bits.
                let r = (t + 0.5f32.copysign(t)) as i32;
                q[l] = r as i16;
                bound[l] += m[l] * (r as f32).abs();
                nonzero[l] += (r != 0) as u32;
            }
        }
        Found {
            nonzero: nonzero.iter().sum::<u32>() as usize,
            out_of_range: out_of_range.iter().any(|&b| b),
            bound: ((bound[0] + bound[4]) + (bound[1] + bound[5]))
                + ((bound[2] + bound[6]) + (bound[3] + bound[7])),
        }
    }
}

/// The overflow bound of each block of units: its largest bias plus, over the nonzero
/// inputs, the block's largest weight of the input's row times the value's magnitude.
struct Blocks<'a> {
    /// Per block (at most 64 of them).
    bias: &'a [f32],
    /// Per input, a row of `bias.len()` block maxima.
    max: &'a [f32],
    /// The nonzero inputs.
    index: &'a [u16],
    /// The quantized value of every input.
    q: &'a [i16],
    limit: f32,
}

impl Blocks<'_> {
    /// [`Blocks::failing`] on the fastest kernels this processor has.
    fn run(self) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = x86::Avx2::get() {
            return k.failing(self);
        }
        self.failing()
    }

    /// The blocks (bit b for block b, at most 64 of them) whose bound exceeds the limit:
    /// eight blocks at a time, each nonzero input adds its eight block maxima, scaled, to
    /// eight partial sums, so that the loop vectorises (with AVX2 inside
    /// [`x86::Avx2::failing`]). Panics (never reads outside `max` or `q`) when an index is
    /// out of their range.
    #[inline(always)]
    fn failing(self) -> u64 {
        let width = self.bias.len();
        let mut out = 0u64;
        for first in (0..width.min(64)).step_by(8) {
            let lanes = (width - first).min(8);
            let mut acc = [0f32; 8];
            for &i in self.index {
                let i = i as usize;
                let m = self.q[i].unsigned_abs() as f32;
                let row = &self.max[i * width + first..i * width + first + lanes];
                if let Ok(row) = <&[f32; 8]>::try_from(row) {
                    for l in 0..8 {
                        acc[l] += row[l] * m;
                    }
                } else {
                    for (a, &w) in acc.iter_mut().zip(row) {
                        *a += w * m;
                    }
                }
            }
            for (l, (&bias, &a)) in self.bias[first..first + lanes].iter().zip(&acc).enumerate() {
                out |= ((bias + a > self.limit) as u64) << (first + l);
            }
        }
        out
    }
}

/// A thread's memory of the last two positions evaluated with the integer nets: their
/// quantized inputs (one value per input of the net) and hidden sums. The next position
/// of the same net whose inputs differ from one of theirs in fewer places than it has
/// nonzero inputs is summed from it (the children of one position differ from each
/// other in a few points and some features; in a game the sides to act alternate, so
/// the first child of a position is summed from the children two plies back rather than
/// from the other side's). The result is the same integer sum either way.
#[derive(Debug, Clone)]
pub struct QuantState {
    /// The remembered positions, the one used last first.
    slots: [Remembered; 2],
    /// The next position's quantized inputs.
    next: Vec<i16>,
    /// The next position's inputs, dense, before quantizing.
    dense: Vec<f32>,
    /// What to add to the sums: the changes from a remembered position, or all of `next`.
    entries: QuantInput,
    /// Room for sums in 64 bits, when no bound shows that 32 bits hold them.
    wide: Vec<i64>,
    hidden: Vec<f32>,
}

/// One remembered position of a [`QuantState`].
#[derive(Debug, Clone)]
struct Remembered {
    /// The net the sums belong to (0: none).
    net: u64,
    /// Its quantized inputs and hidden sums.
    inputs: Vec<i16>,
    acc: Vec<i32>,
}

impl Default for Remembered {
    fn default() -> Self {
        Remembered {
            net: 0,
            inputs: Vec::new(),
            acc: vec![0; MAX_HIDDEN],
        }
    }
}

impl Default for QuantState {
    fn default() -> Self {
        QuantState {
            slots: [Remembered::default(), Remembered::default()],
            next: Vec::new(),
            dense: Vec::new(),
            entries: QuantInput::default(),
            wide: Vec::with_capacity(MAX_HIDDEN),
            hidden: vec![0.0; MAX_HIDDEN],
        }
    }
}

impl QuantState {
    /// The five raw outputs of `net` for `x`, from remembered sums where that is
    /// cheaper; `None` when the sums leave 32 bits or a value 16 bits (the state then
    /// forgets).
    pub fn forward(&mut self, net: &QuantMlp, x: &SparseInput) -> Option<[f32; OUTPUTS]> {
        let n = net.padded_inputs;
        if self.next.len() < n {
            self.clear();
            self.next.resize(n, 0);
            self.dense.resize(n, 0.0);
            for slot in &mut self.slots {
                slot.inputs.resize(n, 0);
            }
        }
        let Some(quantized) = net.quantize(x, &mut self.dense, &mut self.next) else {
            self.clear();
            return None;
        };
        // The remembered position to sum from: the one used last, else the other; when
        // neither is close enough, the other is replaced. Either way it becomes the
        // first.
        let near = |slot: &Remembered, entries: &mut QuantInput| {
            slot.net == net.id
                && difference(
                    &slot.inputs[..n],
                    &self.next[..n],
                    quantized.nonzero,
                    entries,
                )
        };
        let mut incremental = near(&self.slots[0], &mut self.entries);
        if !incremental {
            incremental = near(&self.slots[1], &mut self.entries);
            self.slots.swap(0, 1);
        }
        let slot = &mut self.slots[0];
        let acc = &mut slot.acc[..net.padded];
        let nonzero = &x.index[..x.len.min(x.index.len())];
        // The sums stay within 32 bits when the bound over all units says so; else, from
        // the remembered position's sums (within 32 bits: they were checked), when the
        // changes cannot carry any of them out; else for the blocks whose own bound says
        // so, and for the others when their exact sums, in 64 bits, do. The sums are exact
        // modulo 2^32 in any order, so only the final sums matter, and whether a position
        // is summed in integers never depends on the positions before it.
        let failing = if quantized.within
            || (incremental && net.change_fits(largest_magnitude(acc), self.entries.entries()))
        {
            0
        } else {
            net.failing_blocks(nonzero, &self.next)
        };
        if !incremental || failing != 0 {
            let e = &mut self.entries;
            e.clear();
            for &i in nonzero {
                e.push(i, self.next[i as usize]);
            }
            if failing != 0 && !net.exact_blocks_fit(e.entries(), failing, &mut self.wide) {
                slot.net = 0;
                return None;
            }
            acc.copy_from_slice(&net.b1);
        }
        accumulate(acc, &net.w1, net.padded, self.entries.entries());
        std::mem::swap(&mut slot.inputs, &mut self.next);
        slot.net = net.id;
        Some(net.outputs(&slot.acc[..net.padded], &mut self.hidden))
    }

    /// Forgets the remembered sums.
    pub fn clear(&mut self) {
        for slot in &mut self.slots {
            slot.net = 0;
        }
    }
}

/// Adds `value` times units `base..base + sums.len()` of row `index` of `w1` (rows of
/// `width` weights) to `sums`, in 64 bits, for every entry, on the fastest kernels this
/// processor has. Panics (never reads outside `w1`) when a row is not inside it.
fn wide_sums(sums: &mut [i64], w1: &[i16], width: usize, base: usize, entries: &[Entry]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = x86::Avx2::get() {
        return k.wide_sums(sums, w1, width, base, entries);
    }
    wide_sums_portable(sums, w1, width, base, entries);
}

/// [`wide_sums`] as a loop that vectorises (with AVX2 inside [`x86::Avx2::wide_sums`]).
#[inline(always)]
fn wide_sums_portable(sums: &mut [i64], w1: &[i16], width: usize, base: usize, entries: &[Entry]) {
    for e in entries {
        let start = e.index as usize * width + base;
        let row = &w1[start..start + sums.len()];
        let v = e.value as i64;
        for (s, &w) in sums.iter_mut().zip(row) {
            *s += w as i64 * v;
        }
    }
}

/// The largest magnitude of `sums`, on the fastest kernels this processor has.
fn largest_magnitude(sums: &[i32]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = x86::Avx2::get() {
        return k.largest_magnitude(sums);
    }
    largest_magnitude_portable(sums)
}

/// [`largest_magnitude`] as a loop that vectorises (with AVX2 inside
/// [`x86::Avx2::largest_magnitude`]).
#[inline(always)]
fn largest_magnitude_portable(sums: &[i32]) -> u32 {
    sums.iter().fold(0, |m, s| m.max(s.unsigned_abs()))
}

/// Fills `out` with what to add to a hidden sum computed for the inputs `old` to get
/// those of `new` (two dense inputs of the same length): the change of every input whose
/// value differs, as one entry when it fits 16 bits and as the removal of the old value
/// and the addition of the new one otherwise. Returns `false`, leaving `out` partly
/// filled, as soon as it holds `limit` entries (the new sums are then cheaper from
/// scratch).
fn difference(old: &[i16], new: &[i16], limit: usize, out: &mut QuantInput) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = x86::Avx2::get() {
        return k.difference(old, new, limit, out);
    }
    out.clear();
    difference_portable(old, new, 0, limit, out)
}

/// [`difference`] in plain Rust, appending to `out`; `old[0]` is input `first`.
fn difference_portable(
    old: &[i16],
    new: &[i16],
    first: usize,
    limit: usize,
    out: &mut QuantInput,
) -> bool {
    for (c, (a, b)) in old.chunks(GROUP).zip(new.chunks(GROUP)).enumerate() {
        for (l, (&va, &vb)) in a.iter().zip(b).enumerate() {
            if va != vb {
                push_change(out, first + c * GROUP + l, va, vb);
            }
        }
        if out.len() >= limit {
            return false;
        }
    }
    out.len() < limit
}

/// Appends the change of input `index` from `old` to `new` to `out`.
#[inline(always)]
fn push_change(out: &mut QuantInput, index: usize, old: i16, new: i16) {
    let index = index as u16;
    match i16::try_from(new as i32 - old as i32) {
        Ok(d) => out.push(index, d),
        Err(_) => {
            out.push(index, old.saturating_neg());
            out.push(index, new);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests;
