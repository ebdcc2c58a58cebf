//! Encoding 2 computed one side at a time: the same inputs as
//! [`super::inputs_v2::encode_v2`], bit for bit, from a summary of each side's checkers.
//!
//! Most of encoding 2 depends on one side's checkers alone: its board units, its pips,
//! points, primes, timing, anchors, and, read from the other side, the escapes and the
//! containment its points impose. A [`Side`] holds those; the rest (shots, mobility,
//! escapes of given checkers, contact) combines two of them. The children of one position
//! share the checkers of the side that did not move (the side to act in every child, bar
//! a hit), so a [`SideCache`] keeps the side to act's summary from one position to the
//! next and builds it again only when those checkers differ.
//!
//! Encoding 1 in a race (the race net's inputs) is the board units and the side
//! features of the same summaries, so races take the same path
//! ([`encode_v1_cached`]); a summary leaves out what only encoding 2 reads (the rearmost
//! checkers, the extras, the escapes) until encoding 2 asks for it.

use super::encoding::{Masks, SparseInput, BOARD, BOARD_SIDE, FEATURES_START, SIDE_FEATURES};
use super::inputs_v2::{
    escape_counts, escapes36_in, expected_left_on_bar, shots_masks, spread, EncodingAvx2, Shots,
    EXTRA_FEATURES, POP6,
};
use crate::game::Position;

/// The most nonzero board units of one side (two per point, the bar, the borne off).
const UNITS: usize = 2 * 24 + 2;
/// The first slot whose escapes a [`Side`] keeps (containment reads 15..=24, back
/// escapes 19..=25).
const KEPT_ESCAPES: usize = 15;

/// One side's checkers, in its own numbering (points 1..=24 moving towards 1, the bar
/// 25), and what encoding 2 derives from them alone.
#[derive(Debug, Clone)]
pub struct Side {
    /// Checkers per slot, 1..=25 (0 and 26..32 always 0): what the rest is computed from.
    counts: [u8; 32],
    /// Whether the fields describe `counts` (false before the first build).
    built: bool,
    /// Whether `extras`, `rear` and the escapes describe `counts` too (what only
    /// encoding 2 reads: encoding 1 in a race leaves them until it is asked for).
    extras_built: bool,
    /// The `made_mirrored` that `escapes_against` and `least_against` were computed for
    /// (`None` before the first time).
    escapes_for: Option<u32>,
    /// Slots (1..=25) holding checkers.
    sources: u32,
    /// Slots (1..=25) holding two or more.
    multi: u32,
    /// Points (1..=24) held with two or more.
    made: u32,
    /// `made` and the blots (points with one checker) in the other side's numbering.
    made_mirrored: u32,
    blots_mirrored: u32,
    /// Checkers on the board and the bar, and their pips.
    count: u32,
    pips: u32,
    /// The highest slot holding a checker, 0 when all are off.
    highest: usize,
    /// The slots of the two rearmost checkers (0 where there is none).
    rear: [usize; 2],
    /// Home-board points held.
    home: u32,
    /// The pips timing counts and the checkers on slots 19..=25 (for the extras).
    timing: u32,
    back_count: u32,
    /// The side features of `encoding` that depend on this side alone (2, 6, 7, 8, 9;
    /// the others are left 0).
    features: [f32; SIDE_FEATURES],
    /// The extras of `inputs_v2` that depend on this side alone (1, 2, 3, 10, 12..=15,
    /// 17..=19; the others are left 0).
    extras: [f32; EXTRA_FEATURES],
    /// For a checker of the other side on its slot q (`KEPT_ESCAPES..=25`), the rolls out
    /// of 36 that carry it past this side's points.
    escapes_against: [u32; 26],
    /// The least of `escapes_against` over 15..=24 (the other side's containment).
    least_against: u32,
    /// The board units, offsets within a side's block, in increasing order.
    unit_index: [u16; UNITS],
    unit_value: [f32; UNITS],
    units: usize,
}

impl Default for Side {
    fn default() -> Self {
        Side {
            counts: [0; 32],
            built: false,
            extras_built: false,
            escapes_for: None,
            sources: 0,
            multi: 0,
            made: 0,
            made_mirrored: 0,
            blots_mirrored: 0,
            count: 0,
            pips: 0,
            highest: 0,
            rear: [0; 2],
            home: 0,
            timing: 0,
            back_count: 0,
            features: [0.0; SIDE_FEATURES],
            extras: [0.0; EXTRA_FEATURES],
            escapes_against: [0; 26],
            least_against: 0,
            unit_index: [0; UNITS],
            unit_value: [0.0; UNITS],
            units: 0,
        }
    }
}

/// Per slot, the pips timing counts for every checker there (7..=18: p - 1).
const TIMING_ALL: [u32; 26] = {
    let mut t = [0; 26];
    let mut p = 7;
    while p <= 18 {
        t[p] = p as u32 - 1;
        p += 1;
    }
    t
};

/// Per slot, the pips timing counts for each checker beyond two (2..=6: p - 1).
const TIMING_SPARE: [u32; 26] = {
    let mut t = [0; 26];
    let mut p = 2;
    while p <= 6 {
        t[p] = p as u32 - 1;
        p += 1;
    }
    t
};

/// The slots (bits 1..=25) of `counts` holding one or more checkers and two or more:
/// eight counts (at most 15 each) per word, the high bit of each byte of `n + 0x7F`
/// (`n + 0x7E`) set when `n` is at least 1 (2), the eight high bits gathered by one
/// multiplication.
#[inline(always)]
fn occupied(counts: &[u8; 32]) -> (u32, u32) {
    let gather = crate::game::position::top_bits;
    let (mut one, mut two) = (0u32, 0u32);
    for (k, chunk) in counts.chunks_exact(8).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        let w = u64::from_le_bytes(b);
        one |= gather(w + 0x7F7F_7F7F_7F7F_7F7F) << (8 * k);
        two |= gather(w + 0x7E7E_7E7E_7E7E_7E7E) << (8 * k);
    }
    (one, two)
}

/// Bit p of `x` (1..=24) moved to bit 25 - p: a point in the other side's numbering.
#[inline(always)]
fn mirror(x: u32) -> u32 {
    (x.reverse_bits() >> 6) & BOARD
}

impl Side {
    /// Makes this the summary of `counts` (unless it already is), without what only
    /// encoding 2 reads ([`Side::with_extras`] adds it).
    #[inline(always)]
    fn build(&mut self, counts: &[u8; 32]) {
        if !(self.built && self.counts == *counts) {
            self.build_common(counts);
        }
    }

    /// Adds what only encoding 2 reads to the summary (unless it is there).
    #[inline(always)]
    fn with_extras(&mut self) {
        if !self.extras_built {
            self.build_extras();
        }
    }

    /// Whether the position of `x` to act against `y` has contact, as `Position::phase`
    /// decides it: a checker of `x` behind one of `y`.
    #[inline(always)]
    fn contact(x: &Side, y: &Side) -> bool {
        let y_rear = if y.highest == 0 { 26 } else { 25 - y.highest };
        x.highest > y_rear
    }

    /// The fields every position reads: the board units, the side features that depend
    /// on this side alone, the points held, the pips.
    #[inline(always)]
    fn build_common(&mut self, counts: &[u8; 32]) {
        self.built = true;
        self.extras_built = false;
        self.counts = *counts;
        let c = counts;
        let (sources, multi) = occupied(c);
        let (mut count, mut pips) = (0u32, 0u32);
        let (mut outside, mut timing, mut back_count) = (0u32, 0u32, 0u32);
        let mut highest = 0;
        // The board units, each written at the end and kept only when nonzero (without
        // a branch: whether one is zero is unpredictable). A side has at most 15 points
        // and the bar and the borne off, far fewer than `UNITS`.
        let (unit_index, unit_value) = (&mut self.unit_index, &mut self.unit_value);
        let mut units = 0;
        let mut unit = |i: usize, v: f32| {
            unit_index[units] = i as u16;
            unit_value[units] = v;
            units += (v != 0.0) as usize;
        };
        // The occupied slots only, in increasing order.
        let mut from = sources;
        while from != 0 {
            let p = from.trailing_zeros() as usize;
            from &= from - 1;
            let n = c[p] as u32;
            count += n;
            pips += n * p as u32;
            highest = p;
            // Pips to bring home (the bar counts 19).
            outside += (p as u32).saturating_sub(6) * n;
            timing += n * TIMING_ALL[p] + n.saturating_sub(2) * TIMING_SPARE[p];
            back_count += n * (p >= 19) as u32;
            if p <= 24 {
                // The units of `encoding`'s board block for this point.
                super::encoding::point_units(4 * (p - 1), n as u8, &mut unit);
            }
        }
        let bar = c[25] as u32;
        unit(96, bar as f32 / 2.0);
        let off = (crate::game::CHECKERS as u32).saturating_sub(count);
        unit(97, off as f32 / 15.0);
        self.units = units;
        let made = multi & BOARD;
        let blots = sources & !multi & BOARD;
        self.sources = sources;
        self.multi = multi;
        self.made = made;
        self.made_mirrored = mirror(made);
        self.blots_mirrored = mirror(blots);
        self.count = count;
        self.pips = pips;
        self.highest = highest;
        self.timing = timing;
        self.back_count = back_count;
        self.home = (made & 0x7E).count_ones();

        // Side features 2, 6, 7, 8, 9 (see `encoding::side_features`).
        let f = &mut self.features;
        f[2] = outside as f32 / 100.0;
        let mut run = made;
        let mut prime = 0;
        while run != 0 {
            run &= run << 1;
            prime += 1;
        }
        f[6] = prime as f32 / 6.0;
        f[7] = self.home as f32 / 6.0;
        f[8] = pips as f32 / 150.0;
        f[9] = blots.count_ones() as f32 / 5.0;
    }

    /// The fields only encoding 2 reads: the rearmost checkers, the extras of `inputs_v2`
    /// that depend on this side alone, and what its points do to the other side's
    /// checkers.
    #[inline(always)]
    fn build_extras(&mut self) {
        self.extras_built = true;
        let c = &self.counts;
        let (sources, made, highest) = (self.sources, self.made, self.highest);
        let (count, pips) = (self.count, self.pips);
        // The two rearmost checkers, as `side_features` finds them (0 where none).
        let below = sources & ((1u32 << highest) - 1);
        let second = if c[highest] >= 2 {
            highest
        } else if below == 0 {
            0
        } else {
            31 - below.leading_zeros() as usize
        };
        self.rear = [highest, second];

        // Extras 1, 2, 3, 10, 12..=15, 17..=19 (see `inputs_v2::extras_with_shots`).
        let e = &mut self.extras;
        e[1] = highest as f32 / 25.0;
        e[2] = if made == 0 {
            0.0
        } else {
            (31 - made.leading_zeros()) as f32 / 24.0
        };
        let forward = made & 0x01FF_E000;
        e[3] = if forward == 0 {
            0.0
        } else {
            (25 - forward.trailing_zeros()) as f32 / 12.0
        };
        e[10] = if count == 0 {
            0.0
        } else {
            let (mut k, mut s1, mut s2) = (0u32, 0u32, 0u32);
            let mut from = sources;
            while from != 0 {
                let p = from.trailing_zeros();
                from &= from - 1;
                let n = c[p as usize] as u32 * (p * count > pips) as u32;
                k += n;
                s1 += n * p;
                s2 += n * p * p;
            }
            spread(k, s1, s2, pips, count)
        };
        e[12] = (self.timing as f32 / 150.0).min(1.0);
        // The most points held in six consecutive ones starting at 1..=19: a window
        // holds no more than the one starting at its lowest point held, or at 19.
        let anchors = POP6[((made >> 19) & 0x3F) as usize];
        let mut best = anchors;
        let mut from = made & ((1 << 19) - 1);
        while from != 0 {
            let lo = from.trailing_zeros();
            from &= from - 1;
            best = best.max(POP6[((made >> lo) & 0x3F) as usize]);
        }
        e[13] = best as f32 / 6.0;
        let back = self.back_count as f32 / 15.0;
        e[14] = if anchors >= 2 { back } else { 0.0 };
        e[15] = if anchors == 1 { back } else { 0.0 };
        let off = 15.0 - count as f32;
        e[17] = off.min(5.0) / 5.0;
        e[18] = (off - 5.0).clamp(0.0, 5.0) / 5.0;
        e[19] = (off - 10.0).clamp(0.0, 5.0) / 5.0;

        // What these points do to the other side's checkers: the same as the last
        // time when the points held are (often so for the children of one position).
        if self.escapes_for == Some(self.made_mirrored) {
            return;
        }
        self.escapes_for = Some(self.made_mirrored);
        let table = escape_counts();
        let mut least = 36;
        for q in KEPT_ESCAPES..=25 {
            let e = escapes36_in(table, self.made_mirrored, q);
            self.escapes_against[q] = e;
            if q <= 24 {
                least = least.min(e);
            }
        }
        self.least_against = least;
    }

    /// The rolls out of 36 that carry this side's checker on slot `p` past `other`'s
    /// points.
    #[inline]
    fn escapes(other: &Side, p: usize) -> u32 {
        if p >= KEPT_ESCAPES {
            other.escapes_against[p]
        } else {
            escapes36_in(escape_counts(), other.made_mirrored, p)
        }
    }

    /// The masks of `hitter`'s shots at `victim`'s blots, in `hitter`'s numbering.
    #[inline]
    fn masks_against(hitter: &Side, victim: &Side) -> Masks {
        Masks {
            sources: hitter.sources,
            multi: hitter.multi,
            blots: victim.blots_mirrored,
            blocked: victim.made_mirrored,
        }
    }

    /// This side's side features of `encoding` against `other` into `side`, given the
    /// probabilities that `other` hits one and two of its blots and whether the position
    /// has contact (the rearmost checkers' escapes need `build_extras`).
    #[inline(always)]
    fn side_features(&self, other: &Side, contact: bool, shots: (f32, f32), side: &mut [f32]) {
        side.copy_from_slice(&self.features);
        side[0] = shots.0;
        side[1] = shots.1;
        let closed = other.home as f32;
        side[3] = (closed / 6.0) * (closed / 6.0);
        if contact {
            let escape = |p: usize| Side::escapes(other, p) as f32 / 36.0;
            side[4] = escape(self.rear[0]);
            side[5] = if self.rear[1] == self.rear[0] {
                side[4]
            } else {
                escape(self.rear[1])
            };
        } else {
            side[4] = 1.0;
            side[5] = 1.0;
        }
    }

    /// This side's side features and extras (into `side` and `extras`) against `other`,
    /// given `other`'s shots at it and whether the position has contact.
    #[inline(always)]
    fn features_against(
        &self,
        other: &Side,
        contact: bool,
        shots: &Shots,
        side: &mut [f32],
        extras: &mut [f32],
    ) {
        let c = &self.counts;
        self.side_features(other, contact, (shots.one, shots.two), side);
        extras.copy_from_slice(&self.extras);
        // The slot of the other side's rearmost checker in this side's numbering (26
        // when it has none left).
        let r = if other.highest == 0 {
            26
        } else {
            25 - other.highest
        };
        // Behind it (break_contact: the distance to it) and past it (free pips).
        let (mut break_contact, mut free) = (0u32, 0u32);
        let behind = if r >= 25 {
            0
        } else {
            self.sources & !((2u32 << r) - 1)
        };
        let mut from = behind;
        while from != 0 {
            let p = from.trailing_zeros();
            from &= from - 1;
            break_contact += c[p as usize] as u32 * (p - r as u32);
        }
        let mut from = self.sources & ((1u32 << r.min(26)) - 1);
        while from != 0 {
            let p = from.trailing_zeros();
            from &= from - 1;
            free += c[p as usize] as u32 * p;
        }
        extras[0] = (break_contact as f32 / 200.0).min(1.0);
        extras[4] = shots.loss_expected / 24.0;
        extras[5] = shots.loss_worst as f32 / 24.0;
        let mut escapes = 0u32;
        let mut trapped = 0u32;
        for p in 19..=25 {
            let n = c[p] as u32;
            if n > 0 {
                escapes += n * other.escapes_against[p];
                trapped += n;
            }
        }
        extras[6] = if trapped == 0 {
            1.0
        } else {
            escapes as f32 / (36.0 * trapped as f32)
        };
        let containment = 1.0 - other.least_against as f32 / 36.0;
        extras[7] = containment;
        extras[8] = containment * containment;
        // Open points among p-1..p-6 (bit q + 6 stands for point q; points <= 0 closed).
        let open = ((!other.made_mirrored & BOARD) as u64) << 6;
        let mut moves = 0u32;
        let mut from = self.sources;
        while from != 0 {
            let p = from.trailing_zeros() as usize;
            from &= from - 1;
            moves += c[p] as u32 * POP6[((open >> p) & 0x3F) as usize] as u32;
        }
        extras[9] = moves as f32 / 90.0;
        let bar = c[25] as u32;
        extras[11] = if bar == 0 {
            0.0
        } else {
            (expected_left_on_bar(bar, other.made_mirrored) / 4.0).min(1.0)
        };
        extras[16] = (free as f32 / 150.0).min(1.0);
    }
}

/// The side to act's [`Side`] kept from one encoding to the next (one per thread), and
/// room for the other side's.
#[derive(Debug, Clone, Default)]
pub struct SideCache {
    mover: Side,
    opponent: Side,
}

/// The two sides' checker counts of `pos`, each in its own numbering (slots 1..=25; the
/// rest 0).
#[inline(always)]
fn counts(pos: &Position) -> ([u8; 32], [u8; 32]) {
    // Whole 32-byte words, which vectorise: slot 0 (the opponent's bar) holds no mover
    // checker and slot 25 (the mover's bar) no opponent checker, so the two clamps leave
    // them 0 where they must be, and the padding past slot 25 is 0.
    let s = pos.slots();
    let mut slots = [0i8; 32];
    slots[..26].copy_from_slice(s);
    let mut reversed = [0i8; 32];
    for p in 0..26 {
        reversed[p] = slots[25 - p];
    }
    let mover = slots.map(|n| n.max(0) as u8);
    let opponent = reversed.map(|n| n.min(0).unsigned_abs());
    (mover, opponent)
}

/// Encodes `pos` with encoding 2 into `out` from both sides' summaries, built afresh: the
/// inputs of [`super::inputs_v2::encode_v2`] bit for bit.
pub fn encode_v2_sides(pos: &Position, out: &mut SparseInput) {
    encode_v2_cached(pos, out, &mut SideCache::default());
}

/// Encodes `pos` with encoding 2 into `out`, the side to act's summary taken from `cache`
/// when its checkers are those of the previous call: the inputs of
/// [`super::inputs_v2::encode_v2`] bit for bit.
pub fn encode_v2_cached(pos: &Position, out: &mut SparseInput, cache: &mut SideCache) {
    #[cfg(target_arch = "x86_64")]
    if let Some(kernel) = EncodingAvx2::detect() {
        // SAFETY: an `EncodingAvx2` exists only where the processor has every feature
        // `encode_v2_cached_x86` enables.
        return unsafe { encode_v2_cached_x86(pos, out, cache, kernel) };
    }
    encode_v2_cached_inline(pos, out, cache, None);
}

/// [`encode_v2_cached`] compiled for the instructions [`EncodingAvx2`] vouches for: the
/// same inputs bit for bit (integer work, and no floating-point operation fused or
/// reordered), its population counts, bit scans and shifts in fewer instructions.
///
/// # Safety
/// The processor must support POPCNT, LZCNT, BMI1, BMI2 and AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
unsafe fn encode_v2_cached_x86(
    pos: &Position,
    out: &mut SparseInput,
    cache: &mut SideCache,
    kernel: EncodingAvx2,
) {
    encode_v2_cached_inline(pos, out, cache, Some(kernel));
}

/// [`encode_v2_cached`]'s work, inlined into each instruction set's copy; the shots by
/// `kernel` where there is one.
#[inline(always)]
fn encode_v2_cached_inline(
    pos: &Position,
    out: &mut SparseInput,
    cache: &mut SideCache,
    kernel: Option<EncodingAvx2>,
) {
    let (mover, opponent) = counts(pos);
    cache.mover.build(&mover);
    cache.opponent.build(&opponent);
    // Encoding 2's extras read these in a race too.
    cache.mover.with_extras();
    cache.opponent.with_extras();
    let contact = Side::contact(&cache.mover, &cache.opponent);
    encode_sides(&cache.mover, &cache.opponent, contact, out, kernel);
}

/// Encodes `pos` with encoding 1 (the race net's) into `out` from both sides' summaries,
/// the side to act's taken from `cache` as for encoding 2: the inputs of
/// [`super::encoding::encode`] bit for bit. Meant for races: a position with contact is
/// handed to [`super::encoding::encode`] (its shots are not in the summaries).
pub fn encode_v1_cached(pos: &Position, out: &mut SparseInput, cache: &mut SideCache) {
    let (mover, opponent) = counts(pos);
    cache.mover.build(&mover);
    cache.opponent.build(&opponent);
    let (x, y) = (&cache.mover, &cache.opponent);
    if Side::contact(x, y) {
        return super::encoding::encode(pos, out);
    }
    push_units(x, y, out);
    let mut f = [0.0f32; 2 * SIDE_FEATURES + 2];
    let (fx, rest) = f.split_at_mut(SIDE_FEATURES);
    x.side_features(y, false, (0.0, 0.0), fx);
    y.side_features(x, false, (0.0, 0.0), &mut rest[..SIDE_FEATURES]);
    lead_features(x, y, &mut rest[SIDE_FEATURES..]);
    push_features(&f, out);
}

/// Both sides' board units: the side to act's (`x`) block, then the other side's.
#[inline(always)]
fn push_units(x: &Side, y: &Side, out: &mut SparseInput) {
    let mut len = 0;
    for (base, side) in [(0, x), (BOARD_SIDE, y)] {
        for k in 0..side.units {
            out.index[len] = (base + side.unit_index[k] as usize) as u16;
            out.value[len] = side.unit_value[k];
            len += 1;
        }
    }
    out.len = len;
}

/// The two race-lead features (`encoding::encode`'s last two) of the side to act `x`.
#[inline(always)]
fn lead_features(x: &Side, y: &Side, out: &mut [f32]) {
    let lead = y.pips as f32 - x.pips as f32;
    out[0] = lead.max(0.0) / 50.0;
    out[1] = (-lead).max(0.0) / 50.0;
}

/// Appends the nonzero features `f` (inputs from [`FEATURES_START`] on) to `out`, without
/// a branch per feature (whether one is zero is unpredictable): each is written at the
/// end and kept only when nonzero. The units (at most `UNITS` a side) and the features
/// fit `MAX_NONZERO`, so the slot written is always inside the arrays.
#[inline(always)]
fn push_features(f: &[f32], out: &mut SparseInput) {
    let mut len = out.len;
    for (k, &v) in f.iter().enumerate() {
        out.index[len] = (FEATURES_START + k) as u16;
        out.value[len] = v;
        len += (v != 0.0) as usize;
    }
    out.len = len;
}

/// Encoding 2's inputs of the position whose side to act is `x` and whose other side is
/// `y` (with what a contact position reads when `contact`).
#[inline(always)]
fn encode_sides(
    x: &Side,
    y: &Side,
    contact: bool,
    out: &mut SparseInput,
    kernel: Option<EncodingAvx2>,
) {
    push_units(x, y, out);
    let shots = |m: &Masks, bar: u8| match kernel {
        Some(k) => k.shots(m, bar),
        None => shots_masks(m, bar),
    };
    let (at_x, at_y) = if contact {
        (
            shots(&Side::masks_against(y, x), y.counts[25]),
            shots(&Side::masks_against(x, y), x.counts[25]),
        )
    } else {
        (Shots::NONE, Shots::NONE)
    };
    let mut f = [0.0f32; 2 * SIDE_FEATURES + 2 + 2 * EXTRA_FEATURES];
    let e = 2 * SIDE_FEATURES + 2;
    {
        let (sides, rest) = f.split_at_mut(2 * SIDE_FEATURES);
        let (fx, fy) = sides.split_at_mut(SIDE_FEATURES);
        let (ex, ey) = rest[2..].split_at_mut(EXTRA_FEATURES);
        x.features_against(y, contact, &at_x, fx, ex);
        y.features_against(x, contact, &at_y, fy, ey);
    }
    lead_features(x, y, &mut f[2 * SIDE_FEATURES..e]);
    debug_assert_eq!(e + 2 * EXTRA_FEATURES, f.len());
    // Eight at a time where the AVX2 kernels are at hand.
    if let Some(k) = kernel {
        k.push_nonzero(&f, FEATURES_START, out);
        return;
    }
    push_features(&f, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{generate_plays, PlayList};

    /// The copy of encoding 2 compiled for the processor's bit instructions and the
    /// portable copy give the same inputs bit for bit, children in batch order included
    /// (each with its own kept side).
    #[test]
    fn both_instruction_sets_give_the_same_inputs() {
        let (mut fast, mut portable) = (SideCache::default(), SideCache::default());
        let (mut a, mut b) = (SparseInput::default(), SparseInput::default());
        let mut list = PlayList::new();
        let mut checked = 0;
        let mut check = |p: &Position| {
            if p.phase() != crate::game::Phase::Contact {
                return;
            }
            encode_v2_cached(p, &mut a, &mut fast);
            encode_v2_cached_inline(p, &mut b, &mut portable, None);
            assert_eq!(a.index[..a.len], b.index[..b.len], "{p:?}");
            let bits = |x: &SparseInput| {
                x.value[..x.len]
                    .iter()
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&a), bits(&b), "{p:?}");
            checked += 1;
        };
        for (pos, dice) in crate::testing::random_game_positions(73, 60) {
            check(&pos);
            generate_plays(&pos, dice, &mut list);
            for play in list.iter() {
                if !play.position.is_game_over() {
                    check(&play.next_position());
                }
            }
        }
        assert!(checked > 20_000, "only {checked} positions");
    }

    /// Encoding 1 from the kept summaries is `encoding::encode`'s, bit for bit, for races
    /// and (handed over) contact positions, with one cache shared with encoding 2 in game
    /// order, so that summaries built for encoding 1 then serve encoding 2 and the other
    /// way round (encoding 2 compared with `inputs_v2::encode_v2`'s, races included).
    #[test]
    fn encoding_one_from_summaries_is_the_encoders() {
        let mut cache = SideCache::default();
        let (mut a, mut b) = (SparseInput::default(), SparseInput::default());
        let mut list = PlayList::new();
        let (mut races, mut contacts) = (0, 0);
        let bits = |x: &SparseInput| {
            let values = x.value[..x.len].iter().map(|v| v.to_bits());
            x.index[..x.len]
                .iter()
                .copied()
                .zip(values)
                .collect::<Vec<_>>()
        };
        let mut check = |p: &Position, cache: &mut SideCache| {
            encode_v1_cached(p, &mut a, cache);
            super::super::encoding::encode(p, &mut b);
            assert_eq!(bits(&a), bits(&b), "{p:?}");
            // The same cache then serves encoding 2 as a fresh one does (races too,
            // whose extras encoding 1 left unbuilt).
            encode_v2_cached(p, &mut a, cache);
            super::super::inputs_v2::encode_v2(p, &mut b);
            assert_eq!(bits(&a), bits(&b), "{p:?}");
            if p.phase() == crate::game::Phase::Contact {
                contacts += 1;
            } else {
                races += 1;
            }
        };
        for (pos, dice) in crate::testing::random_game_positions(79, 120) {
            check(&pos, &mut cache);
            generate_plays(&pos, dice, &mut list);
            for play in list.iter() {
                if !play.position.is_game_over() {
                    check(&play.next_position(), &mut cache);
                }
            }
        }
        assert!(
            races > 5_000 && contacts > 5_000,
            "{races} races, {contacts} contact"
        );
    }
}
