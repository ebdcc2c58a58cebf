//! The AVX2 kernels of the integer nets (x86-64 only), each behind [`Avx2`], the proof
//! that the processor has AVX2.

use std::arch::x86_64::*;

use super::{Entry, QuantInput, GROUP};

/// Proof that the processor has AVX2, and whether it also has AVX-512 with its 16-bit
/// instructions (F and BW): the private fields leave [`Avx2::get`] the only way to make
/// one.
#[derive(Debug, Clone, Copy)]
pub(super) struct Avx2 {
    avx512: bool,
}

impl Avx2 {
    /// `Some` when the processor has AVX2 (asked once per process).
    #[inline]
    pub(super) fn get() -> Option<Avx2> {
        static HAS: std::sync::OnceLock<Option<Avx2>> = std::sync::OnceLock::new();
        *HAS.get_or_init(|| {
            std::is_x86_feature_detected!("avx2").then(|| Avx2 {
                avx512: std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw"),
            })
        })
    }

    /// This token without AVX-512, so that tests can run the AVX2 kernels on a processor
    /// that has both.
    #[cfg(test)]
    pub(super) fn without_avx512(self) -> Avx2 {
        Avx2 { avx512: false }
    }

    /// [`super::Lanes::quantize`] compiled for AVX2.
    #[inline]
    pub(super) fn quantize(self, lanes: super::Lanes<'_>) -> super::Found {
        // SAFETY: `self` exists, so the processor has AVX2; the kernel is safe code.
        unsafe { quantize(lanes) }
    }

    /// [`super::Blocks::failing`] compiled for AVX2.
    #[inline]
    pub(super) fn failing(self, blocks: super::Blocks<'_>) -> u64 {
        // SAFETY: `self` exists, so the processor has AVX2; the kernel is safe code.
        unsafe { failing(blocks) }
    }

    /// [`super::wide_sums`] compiled for AVX2.
    #[inline]
    pub(super) fn wide_sums(
        self,
        sums: &mut [i64],
        w1: &[i16],
        width: usize,
        base: usize,
        entries: &[Entry],
    ) {
        // SAFETY: `self` exists, so the processor has AVX2; the kernel is safe code.
        unsafe { wide_sums(sums, w1, width, base, entries) }
    }

    /// [`super::largest_magnitude`] compiled for AVX2.
    #[inline]
    pub(super) fn largest_magnitude(self, sums: &[i32]) -> u32 {
        // SAFETY: `self` exists, so the processor has AVX2; the kernel is safe code.
        unsafe { largest_magnitude(sums) }
    }

    /// [`super::difference`] on AVX2.
    #[inline]
    pub(super) fn difference(
        self,
        old: &[i16],
        new: &[i16],
        limit: usize,
        out: &mut QuantInput,
    ) -> bool {
        if self.avx512 {
            // SAFETY: `avx512` is true only where `get` found AVX2, AVX-512 F and BW;
            // `difference_avx512` checks every slice it reads.
            return unsafe { difference_avx512(old, new, limit, out) };
        }
        // SAFETY: `self` exists, so the processor has AVX2; `difference` checks every
        // slice it reads.
        unsafe { difference(old, new, limit, out) }
    }

    /// [`super::accumulate`] on AVX2.
    #[inline]
    pub(super) fn accumulate(self, acc: &mut [i32], w1: &[i16], width: usize, e: &[Entry]) {
        if self.avx512 {
            // SAFETY: `avx512` is true only where `get` found AVX2, AVX-512 F and BW;
            // `accumulate_avx512` checks every slice it reads or writes.
            unsafe { accumulate_avx512(acc, w1, width, e) }
        } else {
            // SAFETY: `self` exists, so the processor has AVX2; `accumulate` checks
            // every slice it reads or writes.
            unsafe { accumulate(acc, w1, width, e) }
        }
    }
}

/// [`super::Lanes::quantize`] in AVX2 registers, eight inputs at a time: the same
/// values, count and range check (`vcvttps2dq` truncates as the cast
/// does); the bound summed in another order.
///
/// # Safety
/// The processor must support AVX2. The slices may have any lengths: only whole
/// groups of eight inputs inside all of them are read or written.
#[target_feature(enable = "avx2")]
unsafe fn quantize(lanes: super::Lanes<'_>) -> super::Found {
    let super::Lanes {
        dense,
        scale,
        row_max,
        q,
    } = lanes;
    let n = dense.len().min(scale.len()).min(row_max.len()).min(q.len()) / 8 * 8;
    let sign = _mm256_set1_ps(-0.0);
    let half = _mm256_set1_ps(0.5);
    let most = _mm256_set1_ps(32767.0);
    let mut bound = _mm256_setzero_ps();
    let mut bad = _mm256_setzero_ps();
    let mut zeros = _mm256_setzero_si256();
    let mut i = 0;
    while i < n {
        // SAFETY: i + 8 <= n, which is within every slice: the unaligned 8-float
        // loads and the 8-i16 store stay inside them.
        unsafe {
            let t = _mm256_mul_ps(
                _mm256_loadu_ps(dense.as_ptr().add(i)),
                _mm256_loadu_ps(scale.as_ptr().add(i)),
            );
            let abs = _mm256_andnot_ps(sign, t);
            bad = _mm256_or_ps(bad, _mm256_cmp_ps::<_CMP_NLE_UQ>(abs, most));
            let r =
                _mm256_cvttps_epi32(_mm256_add_ps(t, _mm256_or_ps(_mm256_and_ps(t, sign), half)));
            let packed =
                _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256::<1>(r));
            _mm_storeu_si128(q.as_mut_ptr().add(i) as *mut __m128i, packed);
            let a = _mm256_andnot_ps(sign, _mm256_cvtepi32_ps(r));
            bound = _mm256_add_ps(
                bound,
                _mm256_mul_ps(_mm256_loadu_ps(row_max.as_ptr().add(i)), a),
            );
            zeros = _mm256_sub_epi32(zeros, _mm256_cmpeq_epi32(r, _mm256_setzero_si256()));
        }
        i += 8;
    }
    let mut b = [0f32; 8];
    let mut z = [0i32; 8];
    // SAFETY: unaligned stores of one register into arrays of eight elements.
    unsafe {
        _mm256_storeu_ps(b.as_mut_ptr(), bound);
        _mm256_storeu_si256(z.as_mut_ptr() as *mut __m256i, zeros);
    }
    super::Found {
        nonzero: n - z.iter().sum::<i32>() as usize,
        out_of_range: _mm256_movemask_ps(bad) != 0,
        bound: b.iter().sum(),
    }
}

/// # Safety
/// The processor must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn failing(blocks: super::Blocks<'_>) -> u64 {
    blocks.failing()
}

/// # Safety
/// The processor must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn wide_sums(sums: &mut [i64], w1: &[i16], width: usize, base: usize, entries: &[Entry]) {
    super::wide_sums_portable(sums, w1, width, base, entries)
}

/// # Safety
/// The processor must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn largest_magnitude(sums: &[i32]) -> u32 {
    super::largest_magnitude_portable(sums)
}

/// [`super::difference`] comparing sixteen inputs at a time in a register.
///
/// # Safety
/// The processor must support AVX2. The slices may have any lengths.
#[target_feature(enable = "avx2")]
unsafe fn difference(old: &[i16], new: &[i16], limit: usize, out: &mut QuantInput) -> bool {
    let n = old.len().min(new.len());
    let whole = n / GROUP * GROUP;
    out.clear();
    let mut c = 0;
    while c < whole {
        // SAFETY: c + 16 <= n: both unaligned 16-i16 loads stay inside the slices.
        let equal = unsafe {
            let a = _mm256_loadu_si256(old.as_ptr().add(c) as *const __m256i);
            let b = _mm256_loadu_si256(new.as_ptr().add(c) as *const __m256i);
            _mm256_movemask_epi8(_mm256_cmpeq_epi16(a, b)) as u32
        };
        // One bit per input (the low bit of its two bytes) where the values differ.
        let mut differ = !equal & 0x5555_5555;
        while differ != 0 {
            let i = c + differ.trailing_zeros() as usize / 2;
            differ &= differ - 1;
            super::push_change(out, i, old[i], new[i]);
        }
        if out.len() >= limit {
            return false;
        }
        c += GROUP;
    }
    super::difference_portable(&old[whole..n], &new[whole..n], whole, limit, out)
}

/// [`difference`] comparing thirty-two inputs at a time (AVX-512 BW compares into a mask,
/// one bit per input), the inputs past the last whole thirty-two by [`difference`]'s
/// loop.
///
/// # Safety
/// The processor must support AVX2, AVX-512 F and BW. The slices may have any lengths.
#[target_feature(enable = "avx2,avx512f,avx512bw")]
unsafe fn difference_avx512(old: &[i16], new: &[i16], limit: usize, out: &mut QuantInput) -> bool {
    let n = old.len().min(new.len());
    let whole = n / 32 * 32;
    out.clear();
    let mut c = 0;
    while c < whole {
        // SAFETY: c + 32 <= n: both unaligned 32-i16 loads stay inside the slices.
        let mut differ = unsafe {
            let a = _mm512_loadu_si512(old.as_ptr().add(c) as *const __m512i);
            let b = _mm512_loadu_si512(new.as_ptr().add(c) as *const __m512i);
            _mm512_cmpneq_epi16_mask(a, b)
        };
        while differ != 0 {
            let i = c + differ.trailing_zeros() as usize;
            differ &= differ - 1;
            super::push_change(out, i, old[i], new[i]);
        }
        if out.len() >= limit {
            return false;
        }
        c += 32;
    }
    super::difference_portable(&old[whole..n], &new[whole..n], whole, limit, out)
}

/// Groups of [`GROUP`] units summed together in registers over all the entries: six
/// groups (twelve registers: 384 units in four passes over the entries) at a time, then
/// one at a time.
const WIDE: usize = 6;

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
    super::accumulate_from(acc, w1, width, entries, n);
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
            let wa = unsafe { _mm256_loadu_si256(ra.as_ptr().add(GROUP * g) as *const __m256i) };
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

/// Units in one AVX-512 group: a row's 32 weights in one register.
const GROUP512: usize = 32;

/// Groups of [`GROUP512`] units the AVX-512 kernel sums in registers over all the entries
/// at once: twelve (24 of the 32 registers, 384 units: every row read once, from its
/// first weight to its last).
const WIDE512: usize = 12;

/// [`accumulate`] on AVX-512: up to [`WIDE512`] groups of [`GROUP512`] units per pass
/// over the entries, then what is left by the AVX2 kernel.
///
/// # Safety
/// The processor must support AVX2, AVX-512 F and BW. The slices may have any lengths:
/// the rows are taken by checked slicing.
#[target_feature(enable = "avx2,avx512f,avx512bw")]
unsafe fn accumulate_avx512(acc: &mut [i32], w1: &[i16], width: usize, entries: &[Entry]) {
    let end = acc.len().min(width);
    let n = end / GROUP512 * GROUP512;
    let mut base = 0;
    while base + WIDE512 * GROUP512 <= n {
        // SAFETY: AVX-512 F and BW, as this function's callers promise.
        unsafe {
            block512::<WIDE512>(
                &mut acc[base..base + WIDE512 * GROUP512],
                w1,
                width,
                base,
                entries,
            )
        };
        base += WIDE512 * GROUP512;
    }
    while base < n {
        // SAFETY: as above.
        unsafe { block512::<1>(&mut acc[base..base + GROUP512], w1, width, base, entries) };
        base += GROUP512;
    }
    // The units past the last whole group of 32 (none for the shipped nets).
    super::accumulate_from(acc, w1, width, entries, base);
}

/// [`block`] on AVX-512: `G` groups of 32 units from unit `base`, `2 G` registers of
/// sums. The interleaving works within 128-bit quarters, so a group's low register holds
/// units 0-3, 8-11, 16-19 and 24-27 and its high one the others; the sums are loaded into
/// and stored from that order.
///
/// # Safety
/// The processor must support AVX-512 F and BW. Panics (never reads outside a slice)
/// when `out` is shorter than `G` x 32 or an entry's row does not hold `base + G x 32`
/// weights inside `w1`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn block512<const G: usize>(
    out: &mut [i32],
    w1: &[i16],
    width: usize,
    base: usize,
    entries: &[Entry],
) {
    let span = G * GROUP512;
    let out = &mut out[..span];
    let mut lo = [_mm512_setzero_si512(); G];
    let mut hi = [_mm512_setzero_si512(); G];
    for g in 0..G {
        // SAFETY: `out` holds G x 32 i32; group g's two 16-lane unaligned loads read
        // its elements 32g..32g+32.
        let (a, b) = unsafe {
            (
                _mm512_loadu_si512(out.as_ptr().add(GROUP512 * g) as *const __m512i),
                _mm512_loadu_si512(out.as_ptr().add(GROUP512 * g + 16) as *const __m512i),
            )
        };
        // Quarters 0 and 2 of each, then 1 and 3.
        lo[g] = _mm512_shuffle_i32x4::<0x88>(a, b);
        hi[g] = _mm512_shuffle_i32x4::<0xDD>(a, b);
    }
    let mut pairs = entries.chunks_exact(2);
    for pair in &mut pairs {
        let (ea, eb) = (pair[0], pair[1]);
        let ra = &w1[ea.index as usize * width + base..][..span];
        let rb = &w1[eb.index as usize * width + base..][..span];
        let factor =
            _mm512_set1_epi32((ea.value as u16 as u32 | (eb.value as u16 as u32) << 16) as i32);
        for g in 0..G {
            // SAFETY: `ra` and `rb` hold G x 32 i16; the unaligned loads read elements
            // 32g..32g+32 of each.
            let (wa, wb) = unsafe {
                (
                    _mm512_loadu_si512(ra.as_ptr().add(GROUP512 * g) as *const __m512i),
                    _mm512_loadu_si512(rb.as_ptr().add(GROUP512 * g) as *const __m512i),
                )
            };
            let l = _mm512_madd_epi16(_mm512_unpacklo_epi16(wa, wb), factor);
            let h = _mm512_madd_epi16(_mm512_unpackhi_epi16(wa, wb), factor);
            lo[g] = _mm512_add_epi32(lo[g], l);
            hi[g] = _mm512_add_epi32(hi[g], h);
        }
    }
    if let [e] = pairs.remainder() {
        let ra = &w1[e.index as usize * width + base..][..span];
        let factor = _mm512_set1_epi32(e.value as u16 as u32 as i32);
        let zero = _mm512_setzero_si512();
        for g in 0..G {
            // SAFETY: `ra` holds G x 32 i16; the load reads elements 32g..32g+32.
            let wa = unsafe { _mm512_loadu_si512(ra.as_ptr().add(GROUP512 * g) as *const __m512i) };
            let l = _mm512_madd_epi16(_mm512_unpacklo_epi16(wa, zero), factor);
            let h = _mm512_madd_epi16(_mm512_unpackhi_epi16(wa, zero), factor);
            lo[g] = _mm512_add_epi32(lo[g], l);
            hi[g] = _mm512_add_epi32(hi[g], h);
        }
    }
    for g in 0..G {
        // Back to unit order: [lo 0, hi 0, lo 1, hi 1] and [lo 2, hi 2, lo 3, hi 3].
        let first = _mm512_shuffle_i32x4::<0x44>(lo[g], hi[g]);
        let second = _mm512_shuffle_i32x4::<0xEE>(lo[g], hi[g]);
        let a = _mm512_shuffle_i32x4::<0xD8>(first, first);
        let b = _mm512_shuffle_i32x4::<0xD8>(second, second);
        // SAFETY: as for the loads above: group g's 32 i32 of `out`, unaligned.
        unsafe {
            _mm512_storeu_si512(out.as_mut_ptr().add(GROUP512 * g) as *mut __m512i, a);
            _mm512_storeu_si512(out.as_mut_ptr().add(GROUP512 * g + 16) as *mut __m512i, b);
        }
    }
}
