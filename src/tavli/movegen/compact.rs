//! The compact state of the step search: the mover's counts four bits a point in one
//! `u128` (an SSE2 register where the target has one, with a portable form beside it),
//! the occupied points and the marks as bit masks; and the bit-mask helpers the games'
//! step rules share (where the opponent stands, the sources a die may move).

use crate::tavli::position::{count_mask, made_points, nibbles, occupancy, turned, TavliPosition};

/// The search state: the mover's checkers and what his steps did to the opponent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Compact {
    /// The mover's count on point m (1..=24, 25 the bar) in bits 4m..4m+4 (at most 15
    /// fit); bits 0-3 and 104-127 are zero.
    counts: Counts,
    /// Bit m: the mover has a checker on point m (1..=25).
    pub occ: u32,
    /// Bit m (1..=24): the mover's step marked the opponent's checker on the mover's
    /// point m (a pin, or a hit).
    pub marks: u32,
    /// Checkers the mover has borne off.
    pub off: u8,
}

impl Compact {
    /// The mover's side of `pos`, with `marks`.
    #[inline]
    pub fn load(pos: &TavliPosition, marks: u32) -> Compact {
        let side = &pos.sides[0];
        Compact {
            counts: Counts::new(nibbles(side) & !15),
            occ: count_mask(side, 1) & 0x03ff_fffe,
            marks,
            off: pos.off(0),
        }
    }

    /// Adds a checker on point `to` (1..=24).
    #[inline]
    pub fn land(&mut self, to: usize) {
        self.counts.add(to);
        self.occ |= 1 << to;
    }

    /// One checker from `from` by `die`: onto point `from - die`, or borne off when that
    /// is no point; landing on one of the opponent's lone checkers (`single`) marks it
    /// unless marked already. The landing point (0 = off), whether it marked, and whether
    /// `from` was left empty.
    #[inline]
    pub fn shift(&mut self, from: usize, die: u8, single: u32) -> (u8, bool, bool) {
        let to = from.saturating_sub(die as usize);
        let mut mark = false;
        if to >= 1 {
            let bit = 1u32 << to;
            if single & bit & !self.marks != 0 {
                self.marks |= bit;
                mark = true;
            }
            self.land(to);
        } else {
            self.off += 1;
        }
        (to as u8, mark, self.lift(from))
    }

    /// Takes a checker from point `from`; true when the point is left empty.
    #[inline]
    pub fn lift(&mut self, from: usize) -> bool {
        let empty = self.counts.sub(from);
        if empty {
            self.occ &= !(1 << from);
        }
        empty
    }

    /// The mover's counts as a side of a position (index 0 zero, 25 the bar).
    #[inline]
    pub fn side(&self) -> [u8; 26] {
        let words = self.counts.spread();
        let mut side = [0u8; 26];
        side[..8].copy_from_slice(&words[0].to_le_bytes());
        side[8..16].copy_from_slice(&words[1].to_le_bytes());
        side[16..24].copy_from_slice(&words[2].to_le_bytes());
        side[24..].copy_from_slice(&words[3].to_le_bytes()[..2]);
        side
    }

    /// The state as one exact key: counts in bits 4-103, marks (points 1-24) in 104-127.
    #[inline]
    pub(super) fn key(&self) -> u128 {
        self.counts.bits() | ((self.marks >> 1) as u128) << 104
    }
}

/// `unit` shifted to the four bits of each point m (0..26) at index m; zero beyond.
const fn per_point(unit: u128) -> [u128; 32] {
    let mut t = [0u128; 32];
    let mut m = 0;
    while m < 26 {
        t[m] = unit << (4 * m);
        m += 1;
    }
    t
}

/// `ONE[m]`: one checker on point m in the four-bit counts (m up to 31, so any index a
/// `u32` bit mask yields is in range). A table: a 128-bit shift by a variable amount takes
/// several instructions and branches, a load one.
static ONE: [u128; 32] = per_point(1);

/// `FIELD[m]`: the four bits of point m in the four-bit counts.
static FIELD: [u128; 32] = per_point(15);

/// The mover's counts, four bits a point, in one SSE2 register: a checker added or taken
/// is one byte-wise vector addition (no count exceeds 15, so no carry leaves its four
/// bits), and the counts spread to a byte each by unpacking the two nibbles of each byte.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod counts_sse2 {
    use super::{FIELD, ONE};
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_movemask_epi8,
        _mm_set1_epi8, _mm_setzero_si128, _mm_srli_epi16, _mm_sub_epi8, _mm_unpackhi_epi64,
        _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };

    #[derive(Debug, Clone, Copy)]
    pub(super) struct Counts(__m128i);

    #[inline]
    fn vector(x: u128) -> __m128i {
        // SAFETY: both types are 16 bytes of plain data; any bits are a valid `__m128i`.
        unsafe { std::mem::transmute::<u128, __m128i>(x) }
    }

    impl Counts {
        #[inline]
        pub(super) fn new(bits: u128) -> Counts {
            Counts(vector(bits))
        }

        /// The counts as one 128-bit word (count m in bits 4m..4m+4).
        #[inline]
        pub(super) fn bits(self) -> u128 {
            // SAFETY: both types are 16 bytes of plain data; any bits are a valid `u128`.
            unsafe { std::mem::transmute::<__m128i, u128>(self.0) }
        }

        /// One more checker on point `m` (whose count is below 15).
        #[inline]
        pub(super) fn add(&mut self, m: usize) {
            // SAFETY: this module only compiles with SSE2 enabled for the target (see its
            // cfg), and the intrinsic reads and writes registers only.
            self.0 = unsafe { _mm_add_epi8(self.0, vector(ONE[m])) };
        }

        /// One checker fewer on point `m` (which holds one); true when none is left.
        #[inline]
        pub(super) fn sub(&mut self, m: usize) -> bool {
            // SAFETY: as in `add`.
            unsafe {
                self.0 = _mm_sub_epi8(self.0, vector(ONE[m]));
                let field = _mm_and_si128(self.0, vector(FIELD[m]));
                _mm_movemask_epi8(_mm_cmpeq_epi8(field, _mm_setzero_si128())) == 0xffff
            }
        }

        /// Thirty-two counts, a byte each, as four little-endian words (count m in byte
        /// m % 8 of word m / 8).
        #[inline]
        pub(super) fn spread(self) -> [u64; 4] {
            // SAFETY: as in `add`.
            unsafe {
                let nibble = _mm_set1_epi8(0x0f);
                // Counts 0, 2, 4, .. (low nibbles) and 1, 3, 5, .. (high), a byte each.
                let even = _mm_and_si128(self.0, nibble);
                let odd = _mm_and_si128(_mm_srli_epi16::<4>(self.0), nibble);
                let first = _mm_unpacklo_epi8(even, odd);
                let second = _mm_unpackhi_epi8(even, odd);
                [
                    _mm_cvtsi128_si64(first) as u64,
                    _mm_cvtsi128_si64(_mm_unpackhi_epi64(first, first)) as u64,
                    _mm_cvtsi128_si64(second) as u64,
                    _mm_cvtsi128_si64(_mm_unpackhi_epi64(second, second)) as u64,
                ]
            }
        }
    }
}

/// The same counts in one `u128` without vector instructions (and the reference the
/// tests compare the vector form with).
#[cfg(any(not(all(target_arch = "x86_64", target_feature = "sse2")), test))]
mod counts_portable {
    use super::{FIELD, ONE};

    #[derive(Debug, Clone, Copy)]
    pub(super) struct Counts(u128);

    impl Counts {
        #[inline]
        pub(super) fn new(bits: u128) -> Counts {
            Counts(bits)
        }

        #[inline]
        pub(super) fn bits(self) -> u128 {
            self.0
        }

        #[inline]
        pub(super) fn add(&mut self, m: usize) {
            self.0 += ONE[m];
        }

        #[inline]
        pub(super) fn sub(&mut self, m: usize) -> bool {
            self.0 -= ONE[m];
            self.0 & FIELD[m] == 0
        }

        #[inline]
        pub(super) fn spread(self) -> [u64; 4] {
            let mut words = [0u64; 4];
            for (i, word) in words.iter_mut().enumerate() {
                let mut x = (self.0 >> (32 * i)) as u64 & 0xffff_ffff;
                x = (x | x << 16) & 0x0000_ffff_0000_ffff;
                x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
                x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
                *word = x;
            }
            words
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
use counts_portable::Counts;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use counts_sse2::Counts;

/// Where the opponent stands, as bits of the mover's points, in the games whose sides
/// move in opposite directions (Portes, Plakoto: his point q is the mover's 25 - q): the
/// points he holds with two or more checkers, and those with exactly one.
pub(crate) fn opposing(pos: &TavliPosition) -> (u32, u32) {
    let opp = &pos.sides[1];
    let made = made_points(opp);
    (turned(made), turned(occupancy(opp) & !made))
}

/// The sources among `sources` whose step of `die` lands on a point of `open` (bits of
/// the mover's points 1..=24; from the bar, bit 25, too) or bears off by C6 when `bear`
/// (the game allows it) and every checker of `occ` is home: exactly, or with a higher
/// die from the highest point.
#[inline]
pub(crate) fn movable_mask(occ: u32, sources: u32, open: u32, die: u8, bear: bool) -> u32 {
    let d = u32::from(die);
    let mut mask = sources & (open << d) & 0x03ff_fffe & !((2u32 << d) - 1);
    if bear && occ != 0 && occ & !0x7e == 0 {
        let high = 31 - occ.leading_zeros();
        mask |= sources & if d <= high { 1 << d } else { 1 << high };
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts' vector form agrees with the portable one: every checker added and
    /// taken on every point from every count, and seeded random words spread.
    #[test]
    fn counts_agree_with_the_portable_form() {
        use counts_portable::Counts as Portable;
        for m in 1..26 {
            for c in 0..15u128 {
                // Two checkers on another point beside them.
                let other = if m == 7 { 8 } else { 7 };
                let start = c << (4 * m) | 2 << (4 * other);
                let (mut v, mut p) = (Counts::new(start), Portable::new(start));
                v.add(m);
                p.add(m);
                assert_eq!(v.bits(), p.bits());
                assert_eq!(v.bits(), start + (1 << (4 * m)));
                assert_eq!(v.spread(), p.spread());
                assert_eq!(v.spread()[m / 8] >> (8 * (m % 8)) & 0xff, c as u64 + 1);
                assert_eq!(v.sub(m), p.sub(m));
                assert_eq!(v.bits(), start);
                if c > 0 {
                    assert_eq!(v.sub(m), c == 1, "point {m}, count {c}");
                    assert_eq!(p.sub(m), c == 1);
                    assert_eq!(v.bits(), p.bits());
                }
            }
        }
        let mut rng = crate::game::Rng::seeded(9);
        for _ in 0..10_000 {
            let bits = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
            assert_eq!(Counts::new(bits).spread(), Portable::new(bits).spread());
        }
    }
}
