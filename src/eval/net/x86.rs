//! The AVX2/FMA kernels of the float nets and the integer nets' output layer (x86-64
//! only), each behind [`Avx2Fma`], the proof that the processor has them; the AVX-512
//! copies where the processor has those too.

use std::arch::x86_64::*;

use super::Kernels;

/// Proof that the processor has AVX2 and FMA, and whether it has AVX-512 F too: the
/// private fields leave [`Avx2Fma::detect`] the only way to make one.
#[derive(Debug, Clone, Copy)]
pub(super) struct Avx2Fma {
    avx512: bool,
}

impl Avx2Fma {
    /// `Some` when the processor has AVX2 and FMA.
    pub(super) fn detect() -> Option<Avx2Fma> {
        (std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")).then(|| {
            Avx2Fma {
                avx512: std::is_x86_feature_detected!("avx512f"),
            }
        })
    }

    /// This token without AVX-512, so that tests can run the AVX2 kernel on a
    /// processor that has both.
    #[cfg(test)]
    pub(super) fn without_avx512(self) -> Avx2Fma {
        Avx2Fma { avx512: false }
    }

    /// The [`OUTPUTS`](super::OUTPUTS) dot products of the sigmoids of `acc[j] * unit`
    /// (the first `width` sums) with the rows of `width` weights in `w2`.
    #[inline]
    pub(super) fn output_dots_of_sums(
        self,
        acc: &[i32],
        unit: f32,
        w2: &[f32],
        width: usize,
    ) -> [f32; super::OUTPUTS] {
        if self.avx512 {
            // SAFETY: `avx512` is true only where `detect` found AVX2, FMA and
            // AVX-512 F; the kernel checks every slice it reads.
            return unsafe { output_dots_of_sums_avx512(acc, unit, w2, width) };
        }
        // SAFETY: `self` exists, so `detect` found AVX2 and FMA; the kernel checks
        // every slice it reads.
        unsafe { output_dots_of_sums(acc, unit, w2, width) }
    }
}

/// The output layer's rows of `w2` (rows of `width` weights), each cut to its first `n`
/// (which the caller keeps within every row). Written out rather than by
/// `std::array::from_fn`, which stays a call inside the kernels (it is not compiled for
/// their instructions) and cost about 1% of a rollout.
#[inline(always)]
fn output_rows(w2: &[f32], width: usize, n: usize) -> [&[f32]; super::OUTPUTS] {
    let row = |o: usize| &w2[o * width..o * width + n];
    [row(0), row(1), row(2), row(3), row(4)]
}

/// [`Avx2Fma::output_dots_of_sums`]: eight units at a time, their sigmoids computed
/// in registers (2^x by the same split and polynomial as [`super::exp2_approx`], in
/// fused multiply-adds; 1 / (1 + e) by `vrcpps` and one Newton step) and multiplied
/// into five sums; the units past the last whole eight by the scalar functions.
///
/// # Safety
/// The processor must support AVX2 and FMA. The slices may have any lengths: only
/// units inside `acc` and every row of `w2` are read (fewer units when they are short).
#[target_feature(enable = "avx2,fma")]
unsafe fn output_dots_of_sums(
    acc: &[i32],
    unit: f32,
    w2: &[f32],
    width: usize,
) -> [f32; super::OUTPUTS] {
    use super::OUTPUTS;
    // Row o is w2[o * width..][..n]: the last row must fit too.
    let n = acc
        .len()
        .min(width)
        .min(w2.len().saturating_sub((OUTPUTS - 1) * width));
    let rows = output_rows(w2, width, n);
    let scale = _mm256_set1_ps(-unit * std::f32::consts::LOG2_E);
    let lo = _mm256_set1_ps(-40.0 * std::f32::consts::LOG2_E);
    let hi = _mm256_set1_ps(40.0 * std::f32::consts::LOG2_E);
    let magic = _mm256_set1_ps(super::EXP2_MAGIC);
    let one = _mm256_set1_ps(1.0);
    let two = _mm256_set1_ps(2.0);
    let mut sums = [_mm256_setzero_ps(); OUTPUTS];
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n, within `acc` and every row: the unaligned 8-lane loads
        // stay inside them.
        unsafe {
            let a = _mm256_cvtepi32_ps(_mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i));
            // -x log2(e), clamped as `sigmoid` clamps x to [-40, 40].
            let x = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(a, scale), lo), hi);
            let shifted = _mm256_add_ps(x, magic);
            let r = _mm256_sub_ps(shifted, magic);
            let f = _mm256_sub_ps(x, r);
            let k = _mm256_sub_epi32(_mm256_castps_si256(shifted), _mm256_castps_si256(magic));
            let c = &super::EXP2_POLY;
            let mut p = _mm256_set1_ps(c[6]);
            for &cj in c[..6].iter().rev() {
                p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(cj));
            }
            let e = _mm256_castsi256_ps(_mm256_add_epi32(
                _mm256_castps_si256(p),
                _mm256_slli_epi32::<23>(k),
            ));
            let d = _mm256_add_ps(one, e);
            let y = _mm256_rcp_ps(d);
            let h = _mm256_mul_ps(y, _mm256_fnmadd_ps(d, y, two));
            for (s, row) in sums.iter_mut().zip(&rows) {
                *s = _mm256_fmadd_ps(h, _mm256_loadu_ps(row.as_ptr().add(i)), *s);
            }
        }
        i += 8;
    }
    let mut out = [0f32; OUTPUTS];
    for (o, s) in out.iter_mut().zip(&sums) {
        let mut lanes = [0f32; 8];
        // SAFETY: `lanes` holds exactly the 8 floats the unaligned store writes.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), *s) };
        *o = ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5]))
            + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
    }
    for j in i..n {
        let h = super::sigmoid(acc[j] as f32 * unit);
        for (o, row) in out.iter_mut().zip(&rows) {
            *o += h * row[j];
        }
    }
    out
}

/// [`output_dots_of_sums`] sixteen units at a time in AVX-512 registers: the same
/// steps (`vrcp14ps` for the reciprocal, then the same Newton step), the units past
/// the last whole sixteen by the scalar functions, as there.
///
/// # Safety
/// The processor must support AVX2, FMA and AVX-512 F. The slices may have any
/// lengths, as for [`output_dots_of_sums`].
#[target_feature(enable = "avx2,fma,avx512f")]
unsafe fn output_dots_of_sums_avx512(
    acc: &[i32],
    unit: f32,
    w2: &[f32],
    width: usize,
) -> [f32; super::OUTPUTS] {
    use super::OUTPUTS;
    let n = acc
        .len()
        .min(width)
        .min(w2.len().saturating_sub((OUTPUTS - 1) * width));
    let rows = output_rows(w2, width, n);
    let scale = _mm512_set1_ps(-unit * std::f32::consts::LOG2_E);
    let lo = _mm512_set1_ps(-40.0 * std::f32::consts::LOG2_E);
    let hi = _mm512_set1_ps(40.0 * std::f32::consts::LOG2_E);
    let magic = _mm512_set1_ps(super::EXP2_MAGIC);
    let one = _mm512_set1_ps(1.0);
    let two = _mm512_set1_ps(2.0);
    let mut sums = [_mm512_setzero_ps(); OUTPUTS];
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: i + 16 <= n, within `acc` and every row: the unaligned 16-lane loads
        // stay inside them.
        unsafe {
            let a = _mm512_cvtepi32_ps(_mm512_loadu_si512(acc.as_ptr().add(i) as *const _));
            let x = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(a, scale), lo), hi);
            let shifted = _mm512_add_ps(x, magic);
            let r = _mm512_sub_ps(shifted, magic);
            let f = _mm512_sub_ps(x, r);
            let k = _mm512_sub_epi32(_mm512_castps_si512(shifted), _mm512_castps_si512(magic));
            let c = &super::EXP2_POLY;
            let mut p = _mm512_set1_ps(c[6]);
            for &cj in c[..6].iter().rev() {
                p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(cj));
            }
            let e = _mm512_castsi512_ps(_mm512_add_epi32(
                _mm512_castps_si512(p),
                _mm512_slli_epi32::<23>(k),
            ));
            let d = _mm512_add_ps(one, e);
            let y = _mm512_rcp14_ps(d);
            let h = _mm512_mul_ps(y, _mm512_fnmadd_ps(d, y, two));
            for (s, row) in sums.iter_mut().zip(&rows) {
                *s = _mm512_fmadd_ps(h, _mm512_loadu_ps(row.as_ptr().add(i)), *s);
            }
        }
        i += 16;
    }
    let mut out = [0f32; OUTPUTS];
    for (o, s) in out.iter_mut().zip(&sums) {
        let mut lanes = [0f32; 16];
        // SAFETY: `lanes` holds exactly the 16 floats the unaligned store writes.
        unsafe { _mm512_storeu_ps(lanes.as_mut_ptr(), *s) };
        let mut half = [0f32; 8];
        for (l, h) in half.iter_mut().enumerate() {
            *h = lanes[l] + lanes[l + 8];
        }
        *o = ((half[0] + half[4]) + (half[1] + half[5]))
            + ((half[2] + half[6]) + (half[3] + half[7]));
    }
    for j in i..n {
        let h = super::sigmoid(acc[j] as f32 * unit);
        for (o, row) in out.iter_mut().zip(&rows) {
            *o += h * row[j];
        }
    }
    out
}

impl Avx2Fma {
    /// [`hidden_layer`], on AVX-512 where the processor has it: the same sums bit for
    /// bit (each unit's sum takes the same fused multiply-adds in the same order).
    #[inline]
    fn layer(
        self,
        hidden: &mut [f32],
        b1: &[f32],
        w1: &[f32],
        index: &[u16],
        value: &[f32],
        squash: bool,
    ) {
        if self.avx512 {
            // SAFETY: `avx512` is true only where `detect` found AVX2, FMA and
            // AVX-512 F; `hidden_layer_avx512` checks every slice it reads.
            unsafe { hidden_layer_avx512(hidden, b1, w1, index, value, squash) }
        } else {
            // SAFETY: `self` exists, so `detect` found AVX2 and FMA;
            // `hidden_layer` checks every slice it reads.
            unsafe { hidden_layer(hidden, b1, w1, index, value, squash, 0) }
        }
    }
}

/// Units the AVX-512 hidden layer sums in registers in one pass over the inputs: 384
/// (24 of the 32 registers), then 128 at a time.
const WIDE512: usize = 384;
const NARROW512: usize = 128;

/// [`hidden_layer`] on AVX-512: each unit's sum is the bias plus the same fused
/// multiply-adds in the same order (so the same bits), over [`WIDE512`] units per pass
/// where they fit, then [`NARROW512`], then the rest and the sigmoids by
/// [`hidden_layer`].
///
/// # Safety
/// The processor must support AVX2, FMA and AVX-512 F. The slices may have any
/// lengths: the rows are taken by checked slicing.
#[target_feature(enable = "avx2,fma,avx512f")]
unsafe fn hidden_layer_avx512(
    hidden: &mut [f32],
    b1: &[f32],
    w1: &[f32],
    index: &[u16],
    value: &[f32],
    squash: bool,
) {
    let h = hidden.len();
    let b1 = &b1[..h];
    let n = index.len().min(value.len());
    let (nonzero, values) = (&index[..n], &value[..n]);
    let mut base = 0;
    while base + WIDE512 <= h {
        // SAFETY: AVX-512 F, as this function's callers promise.
        unsafe { block512::<{ WIDE512 / 16 }>(hidden, b1, w1, nonzero, values, base) };
        base += WIDE512;
    }
    while base + NARROW512 <= h {
        // SAFETY: as above.
        unsafe { block512::<{ NARROW512 / 16 }>(hidden, b1, w1, nonzero, values, base) };
        base += NARROW512;
    }
    // SAFETY: AVX2 and FMA, as this function's callers promise.
    unsafe { hidden_layer(hidden, b1, w1, nonzero, values, squash, base) }
}

/// Units `base..base + 16 G` of the hidden layer (rows of `hidden.len()` weights),
/// their sums kept in `G` registers over all the inputs.
///
/// # Safety
/// The processor must support AVX-512 F. Panics (never reads outside a slice) when
/// `hidden`, `b1` or a row does not hold the units.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn block512<const G: usize>(
    hidden: &mut [f32],
    b1: &[f32],
    w1: &[f32],
    nonzero: &[u16],
    values: &[f32],
    base: usize,
) {
    let h = hidden.len();
    let span = 16 * G;
    let bias = &b1[base..base + span];
    // SAFETY: `bias` holds 16 G floats; load k reads its elements 16k..16k+16.
    let mut acc: [__m512; G] =
        std::array::from_fn(|k| unsafe { _mm512_loadu_ps(bias.as_ptr().add(16 * k)) });
    for (&i, &v) in nonzero.iter().zip(values) {
        let start = i as usize * h + base;
        let row = &w1[start..start + span];
        let a = _mm512_set1_ps(v);
        for (k, sum) in acc.iter_mut().enumerate() {
            // SAFETY: `row` holds 16 G floats; the load reads elements 16k..16k+16.
            *sum = _mm512_fmadd_ps(
                a,
                unsafe { _mm512_loadu_ps(row.as_ptr().add(16 * k)) },
                *sum,
            );
        }
    }
    let out = &mut hidden[base..base + span];
    for (k, sum) in acc.iter().enumerate() {
        // SAFETY: `out` holds 16 G floats; the store writes elements 16k..16k+16.
        unsafe { _mm512_storeu_ps(out.as_mut_ptr().add(16 * k), *sum) };
    }
}

impl Kernels for Avx2Fma {
    #[inline]
    fn hidden_layer(
        self,
        hidden: &mut [f32],
        b1: &[f32],
        w1: &[f32],
        index: &[u16],
        value: &[f32],
    ) {
        self.layer(hidden, b1, w1, index, value, true);
    }

    #[inline]
    fn sums(self, hidden: &mut [f32], start: &[f32], w1: &[f32], index: &[u16], value: &[f32]) {
        self.layer(hidden, start, w1, index, value, false);
    }

    #[inline]
    fn sigmoids(self, v: &mut [f32]) {
        // SAFETY: `self` exists, so `detect` found AVX2 and FMA; any length is fine.
        unsafe { sigmoids(v) }
    }

    #[inline]
    fn axpy(self, y: &mut [f32], a: f32, x: &[f32]) {
        // SAFETY: `self` exists, so `detect` found AVX2 and FMA; `axpy` accepts
        // slices of any lengths.
        unsafe { axpy(y, a, x) }
    }

    #[inline]
    fn dot(self, x: &[f32], y: &[f32]) -> f32 {
        // SAFETY: as in `axpy`: AVX2 and FMA were detected, any lengths are fine.
        unsafe { dot(x, y) }
    }
}

/// Hidden units in blocks of this many, each block's sums kept in registers over
/// every nonzero input (eight of the sixteen vector registers).
const BLOCK: usize = 64;

/// [`Kernels::hidden_layer`] from unit `from` on (the units before it are summed
/// already): each block of [`BLOCK`] units summed in eight vector registers over all
/// the nonzero inputs and stored once (adding one input row at a time into memory
/// stores and loads every sum again for each input), the rest of the units as the
/// portable path does; then the sigmoids of every unit, vectorised alike (when
/// `squash`; otherwise `b1` is any start and the sums are left as they are).
///
/// # Safety
/// The processor must support AVX2 and FMA. The slices may have any lengths: the
/// rows are taken by checked slicing.
#[target_feature(enable = "avx2,fma")]
unsafe fn hidden_layer(
    hidden: &mut [f32],
    b1: &[f32],
    w1: &[f32],
    index: &[u16],
    value: &[f32],
    squash: bool,
    from: usize,
) {
    let h = hidden.len();
    let b1 = &b1[..h];
    let n = index.len().min(value.len());
    let nonzero = &index[..n];
    let values = &value[..n];
    let mut base = from;
    while base + BLOCK <= h {
        let bias = &b1[base..base + BLOCK];
        // SAFETY: `bias` holds BLOCK = 8 x 8 floats, read by unaligned loads.
        let mut acc: [__m256; 8] =
            std::array::from_fn(|k| unsafe { _mm256_loadu_ps(bias.as_ptr().add(8 * k)) });
        for (&i, &v) in nonzero.iter().zip(values) {
            let start = i as usize * h + base;
            let row = &w1[start..start + BLOCK];
            let a = _mm256_set1_ps(v);
            for (k, sum) in acc.iter_mut().enumerate() {
                // SAFETY: `row` holds BLOCK = 8 x 8 floats; the load is unaligned.
                *sum =
                    _mm256_fmadd_ps(a, unsafe { _mm256_loadu_ps(row.as_ptr().add(8 * k)) }, *sum);
            }
        }
        let out = &mut hidden[base..base + BLOCK];
        for (k, sum) in acc.iter().enumerate() {
            // SAFETY: `out` holds BLOCK = 8 x 8 floats; the store is unaligned.
            unsafe { _mm256_storeu_ps(out.as_mut_ptr().add(8 * k), *sum) };
        }
        base += BLOCK;
    }
    if base < h {
        let rest = &mut hidden[base..];
        rest.copy_from_slice(&b1[base..]);
        for (&i, &v) in nonzero.iter().zip(values) {
            let start = i as usize * h;
            // SAFETY: AVX2 and FMA, as this function's callers promise.
            unsafe { axpy(rest, v, &w1[start + base..start + h]) };
        }
    }
    if squash {
        super::sigmoid_slice(hidden);
    }
}

/// Every element replaced by its sigmoid, the loop vectorised for AVX2 and FMA.
///
/// # Safety
/// The processor must support AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
unsafe fn sigmoids(v: &mut [f32]) {
    super::sigmoid_slice(v);
}

/// y += a * x over the first `min(y.len(), x.len())` elements.
///
/// # Safety
/// The processor must support AVX2 and FMA. The slices may have any lengths.
#[target_feature(enable = "avx2,fma")]
unsafe fn axpy(y: &mut [f32], a: f32, x: &[f32]) {
    let n = y.len().min(x.len());
    let av = _mm256_set1_ps(a);
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n <= both lengths keeps both 8-float loads and the store
        // inside the slices; the loads and the store are unaligned ones.
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

/// Sum of x[i] * y[i] over the first `min(x.len(), y.len())` elements.
///
/// # Safety
/// The processor must support AVX2 and FMA. The slices may have any lengths.
#[target_feature(enable = "avx2,fma")]
unsafe fn dot(x: &[f32], y: &[f32]) -> f32 {
    let n = x.len().min(y.len());
    let mut acc0 = _mm256_setzero_ps();
    let mut acc1 = _mm256_setzero_ps();
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: i + 16 <= n <= both lengths keeps the four 8-float loads inside
        // the slices; the loads are unaligned ones.
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
    // SAFETY: `lanes` holds exactly the 8 floats the unaligned store writes.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), acc) };
    let mut s = ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5]))
        + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
    while i < n {
        s += x[i] * y[i];
        i += 1;
    }
    s
}
