//! Encoding 2 of the contact net: everything encoding 1 has (raw points, the ten features
//! per side, the race lead), followed by [`EXTRA_FEATURES`] expert features per side.
//!
//! Layout of [`INPUTS_V2`] values:
//!
//! ```text
//!   0..218    encoding 1, unchanged (see `encoding`)
//!   218..238  mover extras (EXTRA_FEATURES, see `side_extras`)
//!   238..258  opponent extras
//! ```
//!
//! Each side's extras are computed in its own numbering (its points 1..24 moving towards
//! 1, its bar 25), with the other side's checkers as the obstacles and the hitters.
//! docs/TRAINING.md defines every feature and its scale; `side_extras` below restates
//! the definitions next to the code. Everything is scaled into [0, 1] (a few counts
//! that can exceed their scale in rare positions are clamped at 1).
//!
//! Speed: the features read the board through bit masks (points held, points blocked,
//! blots) in one pass over the slots; escapes use a table indexed by the pattern of
//! blocked points in front of a checker (the non-doubles that get past, the doubles that
//! do if one landing point beyond is open), and one pass over the rolls gives both encoding
//! 1's hit probabilities and the pip losses here.

use super::encoding::{
    double_hits, escape_table, masks, side_features_with_shots, SparseInput, FEATURES_START,
    INPUTS, SIDE_FEATURES,
};
use crate::game::{Dice, Position, ALL_ROLLS};

/// Extra features per side.
pub const EXTRA_FEATURES: usize = 20;
/// Index of the mover's first extra feature.
pub const EXTRAS_START: usize = INPUTS;
/// Total inputs of encoding 2.
pub const INPUTS_V2: usize = INPUTS + 2 * EXTRA_FEATURES;

/// Names of the extra features, in input order (for docs, tests and tools).
pub const EXTRA_NAMES: [&str; EXTRA_FEATURES] = [
    "break_contact",
    "back_checker",
    "back_anchor",
    "forward_anchor",
    "pip_loss_expected",
    "pip_loss_worst",
    "back_escapes",
    "containment",
    "containment_squared",
    "mobility",
    "back_moment",
    "entering",
    "timing",
    "backbone",
    "back_game",
    "back_game_one_anchor",
    "free_pips",
    "off_first_five",
    "off_second_five",
    "off_last_five",
];

/// Encodes `pos` (side to act before rolling) with encoding 2 into `out`: the definition,
/// feature by feature; the evaluator and [`super::encoding::Encoding`] compute the same
/// inputs, bit for bit, one side at a time ([`super::sides`]).
pub fn encode_v2(pos: &Position, out: &mut SparseInput) {
    out.len = 0;
    super::encoding::encode_board(pos, out);
    let swapped = pos.swap();
    let contact = pos.highest() > pos.opp_rearmost();
    let mut f = [0.0f32; 2 * SIDE_FEATURES + 2 + 2 * EXTRA_FEATURES];
    // Shots at the mover come from the opponent (the mover of `swapped`), and the other
    // way round; one pass over the rolls gives both encoding 1's hit probabilities and
    // the pip losses.
    let at_mover = if contact {
        shots(&swapped)
    } else {
        Shots::NONE
    };
    let at_opp = if contact { shots(pos) } else { Shots::NONE };
    side_features_with_shots(
        pos,
        contact,
        (at_mover.one, at_mover.two),
        &mut f[..SIDE_FEATURES],
    );
    side_features_with_shots(
        &swapped,
        contact,
        (at_opp.one, at_opp.two),
        &mut f[SIDE_FEATURES..2 * SIDE_FEATURES],
    );
    let lead = pos.opp_pips() as f32 - pos.pips() as f32;
    f[2 * SIDE_FEATURES] = lead.max(0.0) / 50.0;
    f[2 * SIDE_FEATURES + 1] = (-lead).max(0.0) / 50.0;
    let e = 2 * SIDE_FEATURES + 2;
    extras_with_shots(pos, &at_mover, &mut f[e..e + EXTRA_FEATURES]);
    extras_with_shots(&swapped, &at_opp, &mut f[e + EXTRA_FEATURES..]);
    for (k, &v) in f.iter().enumerate() {
        out.push(FEATURES_START + k, v);
    }
}

/// What the opponent's next roll can do to one side's blots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shots {
    /// P(at least one blot hit), as encoding 1 counts it.
    pub one: f32,
    /// P(at least two hit), as encoding 1 counts it.
    pub two: f32,
    /// Over the 36 rolls, the mean of the most pips the side loses to one hit.
    pub loss_expected: f32,
    /// The most pips one hit can cost the side with any roll.
    pub loss_worst: u32,
}

impl Shots {
    pub(crate) const NONE: Shots = Shots {
        one: 0.0,
        two: 0.0,
        loss_expected: 0.0,
        loss_worst: 0,
    };
}

/// The shots of the mover of `hitter` at the opponent's blots. A blot on the hitter's
/// slot `t` stands on the victim's point 25 - t; hit, it restarts from 25, losing `t`
/// pips. Agrees with [`super::encoding::hit_probabilities`] on `one` and `two` (tested).
pub fn shots(hitter: &Position) -> Shots {
    shots_masks(&masks(hitter), hitter.bar())
}

/// [`shots`] from the hitter's masks and its checkers on the bar.
#[inline(always)]
pub(crate) fn shots_masks(m: &super::encoding::Masks, bar: u8) -> Shots {
    let m = *m;
    if m.blots == 0 {
        return Shots::NONE;
    }
    let mut t = Tally::default();
    if bar > 0 {
        for d in ALL_ROLLS {
            if d.is_double() {
                let (hit, two) = double_hits(&m, bar, d.high() as u32);
                t.add(d.weight(), hit, hit != 0, two);
            } else {
                let (hit, two) = entering_non_double(&m, bar, d.high() as u32, d.low() as u32);
                t.add(d.weight(), hit, hit != 0, two);
            }
        }
    } else {
        let (direct, landed) = m.die_masks();
        for d1 in 2..=6usize {
            for d2 in 1..d1 {
                let (hit, two) = m.non_double_shots(&direct, &landed, d1, d2);
                t.add(2, hit, hit != 0, two);
            }
        }
        t.doubles(&m);
    }
    t.shots()
}

/// For a hitter with `bar` (at least one) checkers on the bar and the non-double
/// `d1`-`d2`: the blots hit and whether two are, in one pass: what `hit_mask` and
/// `super::encoding::hits_masks` give (a blot is hit whenever one is, as both count it).
#[inline(always)]
fn entering_non_double(m: &super::encoding::Masks, bar: u8, d1: u32, d2: u32) -> (u32, bool) {
    if bar >= 2 {
        // Both dice enter; nothing else moves.
        let (h1, h2) = (m.blots & 1 << (25 - d1), m.blots & 1 << (25 - d2));
        return (h1 | h2, h1 != 0 && h2 != 0);
    }
    let open = !m.blocked & super::encoding::BOARD;
    let board_sources = m.sources & super::encoding::BOARD;
    let (mut hit, mut two) = (0u32, false);
    for (a, b) in [(d1, d2), (d2, d1)] {
        let entry = 1u32 << (25 - a);
        if open & entry == 0 {
            continue;
        }
        // Entering on a blot, and the other die from the board or the entered checker.
        let entered = m.blots & entry;
        let second = m.blots & ((board_sources | entry) >> b) & !entry;
        hit |= entered | second;
        two |= entered != 0 && second != 0;
    }
    (hit, two)
}

/// The counts behind [`Shots`], roll by roll: each roll's weight (out of 36) when it hits
/// one blot and two, and the pips its costliest hit takes.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    one: u32,
    two: u32,
    loss_sum: u32,
    worst: u32,
}

impl Tally {
    /// A roll of `weight` that hits the blots `hit` (hitter's slots), any (`one`) and two
    /// (`two`).
    #[inline(always)]
    fn add(&mut self, weight: u32, hit: u32, one: bool, two: bool) {
        if hit != 0 {
            let loss = 31 - hit.leading_zeros();
            self.loss_sum += weight * loss;
            self.worst = self.worst.max(loss);
        }
        self.one += weight * one as u32;
        self.two += weight * two as u32;
    }

    /// The six doubles with no hitter on the bar: the blots hit and whether two are,
    /// from one pass each.
    #[inline(always)]
    fn doubles(&mut self, m: &super::encoding::Masks) {
        for d in 1..=6u32 {
            let (hit, two) = double_hits(m, 0, d);
            self.add(1, hit, hit != 0, two);
        }
    }

    #[inline(always)]
    fn shots(self) -> Shots {
        Shots {
            one: self.one as f32 / 36.0,
            two: self.two as f32 / 36.0,
            loss_expected: self.loss_sum as f32 / 36.0,
            loss_worst: self.worst,
        }
    }
}

/// Encoding 2's AVX2 kernels, where the processor has AVX2 and the bit-counting
/// instructions (POPCNT, LZCNT, BMI1, BMI2): a token made only where it does, which also
/// lets encoding 2 run compiled for them (`sides::encode_v2_cached`).
/// [`EncodingAvx2::shots`] computes the fifteen non-doubles side by side,
/// [`EncodingAvx2::push_nonzero`] appends eight inputs at a time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EncodingAvx2(());

impl EncodingAvx2 {
    /// `Some` when the processor has those instructions (asked once per process).
    #[inline]
    pub(crate) fn detect() -> Option<EncodingAvx2> {
        #[cfg(target_arch = "x86_64")]
        {
            static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
            let has = HAS.get_or_init(|| {
                std::is_x86_feature_detected!("avx2")
                    && std::is_x86_feature_detected!("popcnt")
                    && std::is_x86_feature_detected!("lzcnt")
                    && std::is_x86_feature_detected!("bmi1")
                    && std::is_x86_feature_detected!("bmi2")
            });
            if *has {
                return Some(EncodingAvx2(()));
            }
        }
        None
    }

    /// [`shots_masks`], the same values: with no hitter on the bar, the non-doubles in
    /// eight lanes at a time. Compiled into a caller built for AVX2 (it is inlined), the
    /// kernel's instructions join the caller's.
    #[inline(always)]
    pub(crate) fn shots(self, m: &super::encoding::Masks, bar: u8) -> Shots {
        #[cfg(target_arch = "x86_64")]
        if bar == 0 && m.blots != 0 {
            // SAFETY: an `EncodingAvx2` exists only where `detect` found AVX2.
            let mut t = unsafe { non_doubles_avx2(m) };
            t.doubles(m);
            return t.shots();
        }
        shots_masks(m, bar)
    }

    /// Appends the nonzero values of `values` to `out` in order, value `k` as input
    /// `first + k`, as `SparseInput::push` would one by one: eight at a time, packed by a
    /// table of lane orders (a value is kept when it compares unequal to zero, as `!=`
    /// does, NaN included). Falls back to the one-by-one loop when `out` might lack room
    /// for a whole group.
    #[inline(always)]
    pub(crate) fn push_nonzero(self, values: &[f32], first: usize, out: &mut SparseInput) {
        #[cfg(target_arch = "x86_64")]
        if out.len + values.len() + 8 <= out.index.len().min(out.value.len())
            && first + values.len() + 8 <= u16::MAX as usize
        {
            // SAFETY: an `EncodingAvx2` exists only where `detect` found AVX2, and `out`
            // has room for every value and a whole group more (checked above).
            unsafe { push_nonzero_avx2(values, first, out) };
            return;
        }
        for (k, &v) in values.iter().enumerate() {
            out.push(first + k, v);
        }
    }
}

/// For each 8-bit mask, the positions of its set bits in increasing order, one byte each,
/// the rest 0: the lane order that moves the kept lanes to the front.
#[cfg(target_arch = "x86_64")]
const PACK_ORDER: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut bit, mut at) = (0, 0);
        while bit < 8 {
            if mask & (1 << bit) != 0 {
                t[mask] |= (bit as u64) << (8 * at);
                at += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    t
};

/// [`EncodingAvx2::push_nonzero`] on AVX2: each group of eight values compared with zero,
/// the kept lanes moved to the front by `vpermps` and stored whole (the lanes past the
/// kept ones are overwritten by the next group or left past `out.len`), their input
/// numbers alike.
///
/// # Safety
/// The processor must support AVX2, `out` must have room for `out.len + values.len() + 8`
/// inputs, and `first + values.len() + 8` must fit 16 bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn push_nonzero_avx2(values: &[f32], first: usize, out: &mut SparseInput) {
    use std::arch::x86_64::*;
    let mut len = out.len;
    let zero = _mm256_setzero_ps();
    let mut k = 0;
    while k < values.len() {
        let v = if k + 8 <= values.len() {
            // SAFETY: values k..k + 8 lie inside `values`.
            unsafe { _mm256_loadu_ps(values.as_ptr().add(k)) }
        } else {
            // The last, partial group, padded with zeros (which are not kept).
            let mut group = [0f32; 8];
            group[..values.len() - k].copy_from_slice(&values[k..]);
            // SAFETY: `group` holds eight floats.
            unsafe { _mm256_loadu_ps(group.as_ptr()) }
        };
        let keep = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_NEQ_UQ>(v, zero)) as usize;
        let order = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(PACK_ORDER[keep] as i64));
        let packed = _mm256_permutevar8x32_ps(v, order);
        let index = _mm256_add_epi32(order, _mm256_set1_epi32((first + k) as i32));
        let index16 = _mm_packus_epi32(
            _mm256_castsi256_si128(index),
            _mm256_extracti128_si256::<1>(index),
        );
        // SAFETY: len + 8 <= out.len + values.len() + 8, within both arrays (the caller's
        // promise); unaligned stores of eight floats and eight 16-bit numbers.
        unsafe {
            _mm256_storeu_ps(out.value.as_mut_ptr().add(len), packed);
            _mm_storeu_si128(out.index.as_mut_ptr().add(len) as *mut __m128i, index16);
        }
        len += keep.count_ones() as usize;
        k += 8;
    }
    out.len = len;
}

/// The non-double rolls, high die and low die, lane by lane; the sixteenth lane's shifts
/// carry every bit out, so it hits nothing and counts nothing.
#[cfg(target_arch = "x86_64")]
const LANE_HIGH: [i32; 16] = [2, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 6, 31];
#[cfg(target_arch = "x86_64")]
const LANE_LOW: [i32; 16] = [1, 1, 2, 1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4, 5, 31];

/// The tally of the fifteen non-doubles with no hitter on the bar, as
/// [`super::encoding::Masks::non_double_shots`] gives them roll by roll, eight rolls per
/// register: the same masks by per-lane shifts, the two-blot rule without branches (for
/// single bits, `t1 + d1 == t2 + d2` is `h1 << d1 == h2 << d2`), each hit's highest bit
/// by its exponent as a float (an isolated bit below 2^26 converts exactly).
///
/// # Safety
/// The processor must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn non_doubles_avx2(m: &super::encoding::Masks) -> Tally {
    use std::arch::x86_64::*;
    let board = super::encoding::BOARD as i32;
    let s = _mm256_set1_epi32((m.sources as i32) & board);
    let open = _mm256_set1_epi32(!(m.blocked as i32) & board);
    let blots = _mm256_set1_epi32(m.blots as i32);
    let multi = _mm256_set1_epi32(m.multi as i32);
    let zero = _mm256_setzero_si256();
    let ones = _mm256_set1_epi32(1);
    let mut t = Tally::default();
    let (mut loss_sum, mut worst) = (zero, zero);
    for half in 0..2 {
        // SAFETY: each load reads lanes 8 * half..8 * half + 8 of a 16-lane array.
        let (d1, d2) = unsafe {
            (
                _mm256_loadu_si256(LANE_HIGH.as_ptr().add(8 * half) as *const __m256i),
                _mm256_loadu_si256(LANE_LOW.as_ptr().add(8 * half) as *const __m256i),
            )
        };
        let s1 = _mm256_srlv_epi32(s, d1);
        let s2 = _mm256_srlv_epi32(s, d2);
        let h1 = _mm256_and_si256(blots, s1);
        let h2 = _mm256_and_si256(blots, s2);
        let combo = _mm256_and_si256(
            blots,
            _mm256_or_si256(
                _mm256_srlv_epi32(_mm256_and_si256(s1, open), d2),
                _mm256_srlv_epi32(_mm256_and_si256(s2, open), d1),
            ),
        );
        let hit = _mm256_or_si256(_mm256_or_si256(h1, h2), combo);
        // All-ones lanes where a condition holds.
        let is_zero = |x: __m256i| _mm256_cmpeq_epi32(x, zero);
        let single = |x: __m256i| {
            _mm256_andnot_si256(
                is_zero(x),
                is_zero(_mm256_and_si256(x, _mm256_sub_epi32(x, ones))),
            )
        };
        let (single1, single2) = (single(h1), single(h2));
        let both = _mm256_andnot_si256(
            _mm256_or_si256(is_zero(h1), is_zero(h2)),
            _mm256_set1_epi32(-1),
        );
        // Two blots, one per die, unless both dice find the same lone blot...
        let mut two =
            _mm256_andnot_si256(_mm256_and_si256(_mm256_cmpeq_epi32(h1, h2), single1), both);
        // ...or the same lone checker would have to hit both.
        let meet1 = _mm256_sllv_epi32(h1, d1);
        let same_checker = _mm256_and_si256(
            _mm256_and_si256(single1, single2),
            _mm256_and_si256(
                _mm256_cmpeq_epi32(meet1, _mm256_sllv_epi32(h2, d2)),
                is_zero(_mm256_and_si256(multi, meet1)),
            ),
        );
        two = _mm256_andnot_si256(same_checker, two);
        // One checker hitting and hitting again.
        let again = _mm256_and_si256(
            blots,
            _mm256_or_si256(_mm256_srlv_epi32(h1, d2), _mm256_srlv_epi32(h2, d1)),
        );
        two = _mm256_or_si256(
            two,
            _mm256_andnot_si256(is_zero(again), _mm256_set1_epi32(-1)),
        );
        let any = _mm256_andnot_si256(is_zero(hit), _mm256_set1_epi32(-1));
        // The highest bit of each hit: smeared down, isolated, its float exponent.
        let mut v = hit;
        v = _mm256_or_si256(v, _mm256_srli_epi32::<1>(v));
        v = _mm256_or_si256(v, _mm256_srli_epi32::<2>(v));
        v = _mm256_or_si256(v, _mm256_srli_epi32::<4>(v));
        v = _mm256_or_si256(v, _mm256_srli_epi32::<8>(v));
        v = _mm256_or_si256(v, _mm256_srli_epi32::<16>(v));
        let top = _mm256_xor_si256(v, _mm256_srli_epi32::<1>(v));
        let exponent = _mm256_srli_epi32::<23>(_mm256_castps_si256(_mm256_cvtepi32_ps(top)));
        let loss = _mm256_and_si256(any, _mm256_sub_epi32(exponent, _mm256_set1_epi32(127)));
        loss_sum = _mm256_add_epi32(loss_sum, loss);
        worst = _mm256_max_epi32(worst, loss);
        let lanes = |x: __m256i| _mm256_movemask_ps(_mm256_castsi256_ps(x)).count_ones();
        t.one += 2 * lanes(any);
        t.two += 2 * lanes(two);
    }
    let (mut sums, mut most) = ([0i32; 8], [0i32; 8]);
    // SAFETY: unaligned stores of one register into arrays of eight lanes.
    unsafe {
        _mm256_storeu_si256(sums.as_mut_ptr() as *mut __m256i, loss_sum);
        _mm256_storeu_si256(most.as_mut_ptr() as *mut __m256i, worst);
    }
    t.loss_sum = 2 * sums.iter().sum::<i32>() as u32;
    t.worst = most.iter().copied().max().unwrap_or(0) as u32;
    t
}

/// The pips the opponent of `hitter`'s mover loses to the costliest single blot that
/// mover can hit with `dice` (the slot of that blot in the hitter's numbering), 0 when
/// it hits none: the per-roll quantity behind [`Shots::loss_expected`].
pub fn costliest_hit(hitter: &Position, dice: Dice) -> u32 {
    let hit = hit_mask(&masks(hitter), hitter.bar(), dice);
    if hit == 0 {
        0
    } else {
        31 - hit.leading_zeros()
    }
}

/// The opponent blots (hitter's slots) that the mover of the masks can hit with `dice`,
/// under the same approximations as `hits_masks` (single checkers through open points,
/// the bar-entry rule).
fn hit_mask(m: &super::encoding::Masks, bar: u8, dice: Dice) -> u32 {
    let open = !m.blocked & super::encoding::BOARD;
    let (d1, d2) = (dice.high() as u32, dice.low() as u32);
    if m.blots == 0 {
        return 0;
    }
    if d1 != d2 {
        if bar >= 2 {
            return m.blots & ((1 << (25 - d1)) | (1 << (25 - d2)));
        }
        let board_sources = m.sources & super::encoding::BOARD;
        if bar == 1 {
            let mut hit = 0;
            for (a, b) in [(d1, d2), (d2, d1)] {
                let entry = 25 - a;
                if open & (1 << entry) == 0 {
                    continue;
                }
                let srcs = board_sources | (1 << entry);
                hit |= m.blots & ((1 << entry) | (srcs >> b));
            }
            return hit;
        }
        let s = board_sources;
        return m.blots
            & ((s >> d1) | (s >> d2) | (((s >> d1) & open) >> d2) | (((s >> d2) & open) >> d1));
    }
    let d = d1;
    let mut steps = 4u32;
    let mut s = m.sources & super::encoding::BOARD;
    let mut seen = 0u32;
    if bar > 0 {
        let entry = 25 - d;
        if open & (1 << entry) == 0 {
            return 0;
        }
        seen = m.blots & (1 << entry);
        if bar >= 4 {
            return seen;
        }
        steps -= bar as u32;
        s |= 1 << entry;
    }
    let mut reach = s;
    for _ in 0..steps {
        reach = (reach >> d) & open;
        seen |= reach & m.blots;
    }
    seen
}

/// Rolls out of 36 that let a checker on slot `p` (1..=25) get past the furthest
/// blocked point (bit mask, bits 1..=24) among the 12 in front of it; 36 when none
/// block it. The same count as encoding 1's escape feature, from `escape_counts`: the
/// rolls the 12 points decide, plus one look beyond them for each double whose last
/// landing lies further ahead.
#[inline]
pub fn escapes36(blocked: u32, p: usize) -> u32 {
    escapes36_in(escape_counts(), blocked, p)
}

/// [`escapes36`] with the table of [`escape_counts`] at hand.
#[inline(always)]
pub(crate) fn escapes36_in(table: &[u32; 4096], blocked: u32, p: usize) -> u32 {
    let pattern = if p >= 13 {
        (blocked >> (p - 12)) & 0xFFF
    } else {
        (blocked << (12 - p)) & 0xFFF
    };
    let e = table[pattern as usize];
    // Bit j: whether slot p - 24 + j is blocked; slots at or below 0 (off the board)
    // read as open. The landings beyond the pattern are at bits 24 - ahead.
    let window = (((blocked as u64) << 24) >> p) as u32;
    (e & 0x3F) + ((e >> 8) & !window & 0xFFF).count_ones()
}

/// For each pattern of blocked points among the 12 points in front of a checker (bit 11
/// = the point just in front, bit 0 = twelve points ahead), packed in a `u32`:
///
/// - bits 0..6: the rolls out of 36 the pattern alone decides get past the furthest
///   blocked point: the non-doubles (at most two moves of 11 pips, all inside the 12
///   points) and the doubles whose landings before they get past are open and whose
///   last landing lies within the 12 points (past the furthest blocked one, so open);
///   36 for the empty pattern;
/// - bits 8..20: bit 8 + 24 - a for each double that gets past with open landings on
///   the way but lands beyond the 12 points, `a` (13..=24) points ahead (that point
///   must be open too). Only 4-4, 5-5 and 6-6 can, landing 15, 16, 18, 20 or 24 points
///   ahead, never two on the same point; smaller doubles never land beyond: four moves
///   of 3 reach 12 points ahead at most.
pub(crate) fn escape_counts() -> &'static [u32; 4096] {
    static TABLE: std::sync::OnceLock<Box<[u32; 4096]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let non_doubles = escape_table();
        let mut t = Box::new([0u32; 4096]);
        t[0] = 36;
        for (pattern, entry) in t.iter_mut().enumerate().skip(1) {
            let mut count = non_doubles[pattern] as u32;
            // The checker sits at 12 relative to the pattern's bits.
            let lowest = (pattern as u32).trailing_zeros() as usize;
            let distance = 12 - lowest;
            for a in 1..=6usize {
                // The first move count that carries it past the furthest blocked point.
                let moves = distance / a + 1;
                if moves > 4 {
                    continue;
                }
                let open_before = (1..moves).all(|k| pattern & (1 << (12 - k * a)) == 0);
                if !open_before {
                    continue;
                }
                let ahead = moves * a;
                if ahead <= 12 {
                    count += 1;
                } else {
                    *entry |= 1 << (8 + 24 - ahead);
                }
            }
            *entry |= count;
        }
        t
    })
}

/// The mover's extra features of `pos` into `out` ([`EXTRA_FEATURES`] values), with
/// contact decided as in encoding 1.
pub fn side_extras(pos: &Position, out: &mut [f32]) {
    let contact = pos.highest() > pos.opp_rearmost();
    let s = if contact {
        shots(&pos.swap())
    } else {
        Shots::NONE
    };
    extras_with_shots(pos, &s, out);
}

/// The extras of the mover of `pos`, given the opponent's shots at it.
///
/// 0. break_contact: sum over the mover's checkers behind the opponent's rearmost
///    checker (slot r) of their distance to it, p - r; / 200, at most 1
/// 1. back_checker: slot of the rearmost mover checker (25 on the bar) / 25
/// 2. back_anchor: highest point held with 2+ checkers / 24 (0 when none)
/// 3. forward_anchor: the lowest point p in 13..=24 held with 2+ checkers as
///    (25 - p) / 12 (0 when none)
/// 4. pip_loss_expected: over the opponent's 36 rolls, the mean of the most pips one hit
///    costs the mover / 24
/// 5. pip_loss_worst: the most pips one hit can cost it with any roll / 24
/// 6. back_escapes: mean over the mover's checkers on 19..=25 of their escape
///    probability (all 36 rolls; 1 when none stand there)
/// 7. containment: 1 - the least escape probability of a checker on points 15..=24
/// 8. containment squared
/// 9. mobility: sum over the mover's checkers of the die values 1..6 that move it to an
///    open point on the board, / 90
/// 10. back_moment: mean squared distance behind the mean checker position of the
///     checkers behind it / 576, at most 1
/// 11. entering: expected number of the mover's bar checkers still on the bar after
///     its roll / 4, at most 1
/// 12. timing: pips playable without moving checkers on 19..=25 or breaking a
///     home-board point: checkers on 7..=18 count p - 1, home-board spares beyond two
///     count p - 1; / 150, at most 1
/// 13. backbone: most points held (2+) in any six consecutive points / 6
/// 14. back_game: checkers on 19..=25 / 15 when the mover holds two or more points in
///     19..=24, else 0
/// 15. back_game_one_anchor: the same when it holds exactly one
/// 16. free_pips: pips of the checkers that have passed every opponent checker / 150,
///     at most 1
/// 17. off_first_five: checkers borne off, min(off, 5) / 5
/// 18. off_second_five: the next five, clamp(off - 5, 0, 5) / 5
/// 19. off_last_five: the last five, clamp(off - 10, 0, 5) / 5
pub(crate) fn extras_with_shots(pos: &Position, shots: &Shots, out: &mut [f32]) {
    let s = pos.slots();
    let r = pos.opp_rearmost();
    let mut made = 0u32;
    let mut blocked = 0u32;
    let mut count = 0u32;
    let mut sum = 0u32;
    let mut break_contact = 0u32;
    let mut free = 0u32;
    let mut timing = 0u32;
    let mut back_checker = 0usize;
    let mut back_count = 0u32;
    let mut moves = 0u32;
    // Slots 1..=25 (25: the bar) in increasing order, so the points below p, where its
    // checkers land, already have their `blocked` bits.
    for p in 1..=25usize {
        let n = s[p];
        made |= ((n >= 2) as u32) << p;
        blocked |= ((n <= -2) as u32) << p;
        let c = n.max(0) as u32;
        count += c;
        sum += c * p as u32;
        if c > 0 {
            back_checker = p;
        }
        if p > r {
            break_contact += c * (p - r) as u32;
        } else if p < r {
            free += c * p as u32;
        }
        if (7..=18).contains(&p) {
            timing += c * (p as u32 - 1);
        } else if (2..=6).contains(&p) {
            timing += c.saturating_sub(2) * (p as u32 - 1);
        }
        back_count += c * (p >= 19) as u32;
        // Open points among p-1..p-6 (bit q + 6 stands for point q; points <= 0 closed).
        let open = ((!blocked & super::encoding::BOARD) as u64) << 6;
        moves += c * POP6[((open >> p) & 0x3F) as usize] as u32;
    }
    made &= super::encoding::BOARD;
    let bar = s[25].max(0) as u32;
    out[0] = (break_contact as f32 / 200.0).min(1.0);
    out[1] = back_checker as f32 / 25.0;
    out[2] = if made == 0 {
        0.0
    } else {
        (31 - made.leading_zeros()) as f32 / 24.0
    };
    let forward = made & 0x01FF_E000; // points 13..=24
    out[3] = if forward == 0 {
        0.0
    } else {
        (25 - forward.trailing_zeros()) as f32 / 12.0
    };
    out[4] = shots.loss_expected / 24.0;
    out[5] = shots.loss_worst as f32 / 24.0;
    // Escapes.
    let table = escape_counts();
    let mut escapes = 0u32;
    let mut trapped = 0u32;
    for p in 19..=25 {
        let n = s[p].max(0) as u32;
        if n > 0 {
            escapes += n * escapes36_in(table, blocked, p);
            trapped += n;
        }
    }
    out[6] = if trapped == 0 {
        1.0
    } else {
        escapes as f32 / (36.0 * trapped as f32)
    };
    let mut least = 36;
    for p in 15..=24 {
        least = least.min(escapes36_in(table, blocked, p));
    }
    let containment = 1.0 - least as f32 / 36.0;
    out[7] = containment;
    out[8] = containment * containment;
    out[9] = moves as f32 / 90.0;
    // Second moment of the checkers behind the mean: sums of n, n p and n p^2 over the
    // slots behind it, in integers.
    out[10] = if count == 0 {
        0.0
    } else {
        let (mut k, mut s1, mut s2) = (0u32, 0u32, 0u32);
        for p in 1..=25u32 {
            let n = s[p as usize].max(0) as u32 * (p * count > sum) as u32;
            k += n;
            s1 += n * p;
            s2 += n * p * p;
        }
        spread(k, s1, s2, sum, count)
    };
    out[11] = if bar == 0 {
        0.0
    } else {
        (expected_left_on_bar(bar, blocked) / 4.0).min(1.0)
    };
    out[12] = (timing as f32 / 150.0).min(1.0);
    let mut best = 0u8;
    for lo in 1..=19 {
        best = best.max(POP6[((made >> lo) & 0x3F) as usize]);
    }
    out[13] = best as f32 / 6.0;
    let anchors = POP6[((made >> 19) & 0x3F) as usize];
    let back = back_count as f32 / 15.0;
    out[14] = if anchors >= 2 { back } else { 0.0 };
    out[15] = if anchors == 1 { back } else { 0.0 };
    out[16] = (free as f32 / 150.0).min(1.0);
    let off = 15.0 - count as f32;
    out[17] = off.min(5.0) / 5.0;
    out[18] = (off - 5.0).clamp(0.0, 5.0) / 5.0;
    out[19] = (off - 10.0).clamp(0.0, 5.0) / 5.0;
}

/// Set bits of each 6-bit number (a table: the default x86-64 target has no popcount
/// instruction).
pub(crate) const POP6: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    t
};

/// Expected number of `bar` checkers that fail to enter against the blocked points
/// 19..=24 (entry with die d lands on 25 - d). Only how many of the six entry points are
/// open matters: a double on an open point enters up to four checkers, a non-double up
/// to one per open die; the counts of the 36 rolls of each kind give the sum at once.
pub(crate) fn expected_left_on_bar(bar: u32, blocked: u32) -> f32 {
    let open = (!blocked >> 19 & 0x3F).count_ones();
    let closed = 6 - open;
    let left = |entered: u32| bar - bar.min(entered);
    let doubles = open * left(4) + closed * bar;
    let non_doubles = open * (open.saturating_sub(1)) * left(2)
        + 2 * open * closed * left(1)
        + closed * (5 - open.min(5)) * bar;
    (doubles + non_doubles) as f32 / 36.0
}

/// The spread feature from the sums over the checkers counted (`k` of them, their points
/// summing to `s1`, their squares to `s2`) of a side with `count` checkers on `pips` pips.
pub(super) fn spread(k: u32, s1: u32, s2: u32, pips: u32, count: u32) -> f32 {
    if k == 0 {
        0.0
    } else {
        let mean = pips as f64 / count as f64;
        let sq = s2 as f64 - 2.0 * mean * s1 as f64 + mean * mean * k as f64;
        ((sq / k as f64 / 576.0) as f32).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`expected_left_on_bar`] counts what playing each of the 36 rolls leaves.
    #[test]
    fn left_on_bar_counts_each_roll() {
        for blocked in 0..64u32 {
            let blocked = blocked << 19;
            let open = |d: u32| blocked & (1 << (25 - d)) == 0;
            for bar in 1..=15u32 {
                let mut left = 0;
                for a in 1..=6u32 {
                    for b in 1..=6u32 {
                        let entered = match (a == b, open(a)) {
                            (true, true) => bar.min(4),
                            (true, false) => 0,
                            (false, _) => bar.min(open(a) as u32 + open(b) as u32),
                        };
                        left += bar - entered;
                    }
                }
                let want = left as f32 / 36.0;
                assert_eq!(expected_left_on_bar(bar, blocked).to_bits(), want.to_bits());
                // Points outside the entry board change nothing.
                let more = blocked | 0x3FFFF;
                assert_eq!(expected_left_on_bar(bar, more).to_bits(), want.to_bits());
            }
        }
    }

    #[test]
    fn escapes36_counts_what_the_encoding_1_feature_counts() {
        // Every 12-point pattern in front of the 24 point, then pseudo-random boards
        // for every starting point.
        let v1 = super::super::encoding::escape_masks;
        for pattern in 0..4096u32 {
            let blocked = pattern << 12;
            assert_eq!(
                escapes36(blocked, 24) as f32,
                (v1(blocked, 24) * 36.0).round()
            );
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let blocked = (x as u32) & (x >> 32) as u32 & super::super::encoding::BOARD;
            for p in 1..=25 {
                let want = (v1(blocked, p) * 36.0).round();
                assert_eq!(escapes36(blocked, p) as f32, want, "{blocked:025b} {p}");
            }
        }
    }

    /// Random masks as boards have them, from the xorshift state `x`: sources (the bar
    /// among them at times), points held twice among them, the other side's blots and
    /// points apart from them.
    fn random_masks(x: &mut u64) -> super::super::encoding::Masks {
        use super::super::encoding::BOARD;
        let mut next = || {
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            *x
        };
        let (a, b, c) = (next(), next(), next());
        let sources = (a as u32) & ((a >> 32) as u32 | b as u32) & (BOARD | 1 << 25);
        let multi = sources & (b >> 32) as u32;
        let free = !sources & BOARD;
        let blots = free & (c as u32) & (c >> 32) as u32;
        let blocked = free & !blots & (c >> 16) as u32 & (b as u32 >> 3);
        super::super::encoding::Masks {
            sources,
            multi,
            blots,
            blocked,
        }
    }

    /// The shot kernel gives [`shots_masks`]'s values on random masks (sources, points
    /// held twice, the other side's blots and points apart, as boards have them) with
    /// and without hitters on the bar, and on the positions of seeded games both ways.
    #[test]
    fn the_shot_kernel_counts_what_the_rolls_count() {
        let Some(kernel) = EncodingAvx2::detect() else {
            eprintln!("no AVX2 here: only the portable shots run");
            return;
        };
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut hits = 0;
        for _ in 0..200_000 {
            let m = random_masks(&mut x);
            for bar in [0u8, 1, 2, 4] {
                let want = shots_masks(&m, bar);
                assert_eq!(kernel.shots(&m, bar), want, "{m:?} bar {bar}");
                hits += (want.two > 0.0) as u32;
            }
        }
        assert!(hits > 10_000, "only {hits} masks hit two blots");
        for (pos, _) in crate::testing::random_game_positions(11, 100) {
            for p in [pos, pos.swap()] {
                let m = masks(&p);
                assert_eq!(kernel.shots(&m, p.bar()), shots_masks(&m, p.bar()), "{p:?}");
            }
        }
    }

    /// Entering with a non-double, the one pass gives the blots `hit_mask` hits and the
    /// one and two hits `hits_masks` counts, on random masks with one to four checkers
    /// on the bar.
    #[test]
    fn entering_non_doubles_count_what_both_passes_count() {
        use super::super::encoding::hits_masks;
        let mut x = 0x6A09_E667_F3BC_C909u64;
        let (mut hit_any, mut hit_two) = (0, 0);
        for _ in 0..50_000 {
            let mut m = random_masks(&mut x);
            m.sources |= 1 << 25;
            for bar in 1..=4u8 {
                for dice in ALL_ROLLS.into_iter().filter(|d| !d.is_double()) {
                    let (hit, two) =
                        entering_non_double(&m, bar, dice.high() as u32, dice.low() as u32);
                    assert_eq!(hit, hit_mask(&m, bar, dice), "{m:?} {bar} {dice}");
                    assert_eq!(
                        (hit != 0, two),
                        hits_masks(&m, bar, dice),
                        "{m:?} {bar} {dice}"
                    );
                    hit_any += (hit != 0) as u32;
                    hit_two += two as u32;
                }
            }
        }
        assert!(hit_any > 100_000 && hit_two > 10_000, "{hit_any} {hit_two}");
    }

    /// Packing eight values at a time keeps what `SparseInput::push` keeps, in order,
    /// for every length up to the encoding's and values that are zero, negative zero,
    /// NaN, tiny or large; and a full input falls back to one by one.
    #[test]
    fn packing_keeps_what_pushing_keeps() {
        let Some(kernel) = EncodingAvx2::detect() else {
            eprintln!("no AVX2 here: only the one-by-one loop runs");
            return;
        };
        let palette = [0.0, -0.0, 1.0, -2.5, f32::NAN, 1e-30, 3e8, 0.0, 0.25];
        let mut x = 0x9E37_79B9u64;
        for len in 0..=70 {
            for round in 0..50 {
                let values: Vec<f32> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        palette[(x % palette.len() as u64) as usize]
                    })
                    .collect();
                let start = round % 40;
                let (mut want, mut got) = (SparseInput::default(), SparseInput::default());
                for i in 0..start {
                    want.push(i, 1.0);
                    got.push(i, 1.0);
                }
                for (k, &v) in values.iter().enumerate() {
                    want.push(200 + k, v);
                }
                kernel.push_nonzero(&values, 200, &mut got);
                assert_eq!(got.len, want.len, "{values:?}");
                assert_eq!(got.index[..got.len], want.index[..want.len]);
                let bits = |s: &SparseInput| {
                    s.value[..s.len]
                        .iter()
                        .map(|v| v.to_bits())
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(&got), bits(&want));
            }
        }
        // No room for a whole group past the end: one by one, to the last slot.
        let mut full = SparseInput::default();
        let room = full.index.len();
        for i in 0..room - 3 {
            full.push(i, 1.0);
        }
        kernel.push_nonzero(&[0.0, 2.0, 0.0, 3.0, 4.0], 400, &mut full);
        assert_eq!(full.len, room);
        assert_eq!(full.index[room - 3..], [401, 403, 404]);
    }
}
