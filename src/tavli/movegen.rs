//! The shared step search of the Tavli games (section 9 of the rules text).
//!
//! Most positions are settled in one canonical order of steps ([`canonical`]),
//! backgammon's: a double's steps with non-increasing sources, a non-double's higher die
//! first and then only the lower-die-first sequences the first pass cannot have found.
//! That order finds every play when a step's legality depends on the steps before it
//! only through the checkers they moved; it watches every state it reaches, drops the
//! plays that end in a state failing a per-step check (Fevga's walls), tries the other
//! orders of a play that passes one on the way, and ends a play at a step that ends the
//! game (C5). When a double may end the game other than by the last checker borne off
//! (a mother pinned in Plakoto), or when a game's sources depend on the steps before
//! (Fevga's runner), the full search decides.
//!
//! The full search ([`full`]) tries every order of steps, applying each game's per-step
//! rules, with the positions reached after the same number of steps of a double explored
//! once (a step's legality depends only on the position, so two step orders reaching one
//! position have the same continuations); then the C4 filter with game-ending plays
//! exempt (C5, E19), and distinct resulting positions.
//!
//! Both run over a compact state ([`Compact`]): the mover's checkers, four bits per point
//! in one `u128`, the occupied points as bits, and what the mover's steps did to the
//! opponent as a set of marked points (pins in Plakoto, hits in Portes). The opponent's
//! checkers are otherwise fixed during a play, so a game computes what they imply once
//! ([`StepRules::Ctx`]), and a state's counts and marks together are one exact 128-bit
//! key: states are compared and merged by it, never by a hash alone. A state becomes a
//! [`TavliPosition`] only for the plays returned.

use super::position::{count_mask, made_points, nibbles, occupancy, turned, TavliPosition};
use super::{GameEnd, Rules, TavliPlay, TavliStep};
use crate::game::Dice;

/// One game's step rules over the compact state.
pub(crate) trait StepRules {
    /// What a search computes once from the position it starts from.
    type Ctx;
    fn context(pos: &TavliPosition, rules: &Rules) -> Self::Ctx;
    /// The marks of the position the search starts from (bits of the mover's points).
    fn marks(pos: &TavliPosition) -> u32;
    /// Writes what the marks of a state reached from `start` mean for the opponent into
    /// `after` (`start` with the mover's checkers already moved).
    fn store_marks(after: &mut TavliPosition, s: &Compact);
    /// Bit m set: the mover may try to move a checker from its point m (which holds one);
    /// [`Self::movable`] narrows them to a die.
    fn sources(s: &Compact, ctx: &Self::Ctx) -> u32;
    /// The step of `die` from `from` if it is legal (movable, and the state after it
    /// allowed): the state after it, the landing point (0 = off) and its mark (a hit or a
    /// pin). The searches use the parts (a step's sources once per state); the tests
    /// replay plays with this.
    #[cfg(test)]
    fn step(s: &Compact, from: usize, die: u8, ctx: &Self::Ctx) -> Option<(Compact, u8, bool)> {
        if Self::movable(s, die, ctx) >> from & 1 == 0 {
            return None;
        }
        let after = Self::apply(s, from, die, ctx);
        Self::allowed(&after.0, ctx).then_some(after)
    }
    /// Whether the state after a step of the mover ends the game.
    fn end(s: &Compact, ctx: &Self::Ctx) -> Option<GameEnd>;
    /// The sources from which a step of `die` moves by the game's movement rules (an open
    /// landing point, or bearing off by C6), before the checks of [`Self::allowed`].
    fn movable(s: &Compact, die: u8, ctx: &Self::Ctx) -> u32;
    /// The step of `die` from `from`, one of [`Self::movable`]: the state after it, the
    /// landing point (0 = off) and its mark.
    fn apply(s: &Compact, from: usize, die: u8, ctx: &Self::Ctx) -> (Compact, u8, bool);
    /// Whether the state after a step passes the checks made after every step beyond
    /// the movement rules (Fevga's walls); a step is legal when it is movable and the
    /// state after it is allowed.
    #[inline]
    fn allowed(_: &Compact, _: &Self::Ctx) -> bool {
        true
    }
    /// Whether no state reachable this turn with the dice `high`, `low` can end the game
    /// or fail [`Self::allowed`] (a cheap bound; false when unsure), so that
    /// [`canonical`] need not check them.
    #[inline]
    fn quiet(_: &Compact, _: &Self::Ctx, _: u8, _: u8) -> bool {
        false
    }
    /// Whether the sources a step may use depend on the state only through its checkers
    /// (not so while Fevga's runner rule binds), so that [`canonical`] applies.
    fn order_free(s: &Compact, ctx: &Self::Ctx) -> bool;
    /// [`Self::movable`] in a state reached from one where [`Self::order_free`] holds (it
    /// then holds in every state after it), which [`canonical`] uses.
    #[inline]
    fn movable_free(s: &Compact, die: u8, ctx: &Self::Ctx) -> u32 {
        Self::movable(s, die, ctx)
    }
}

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
    fn key(&self) -> u128 {
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

use packed::Packed;

/// Steps as the search builds them, in the memory layout of `[TavliStep; 4]`.
mod packed {
    use super::TavliStep;

    /// Up to four steps as two little-endian words, step i in bytes 4i (from), 4i + 1
    /// (to) and 4i + 2 (the mark, 0 or 1; byte 4i + 3 is the step's padding): the layout
    /// of `[TavliStep; 4]` (`repr(C)`, four bytes a step), so a play's steps are written
    /// by one copy. The field is private to this module: every value is made by
    /// [`Packed::with`] from `NONE` (or `Default`, the same), which keeps each mark byte 0
    /// or 1.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub(super) struct Packed([u64; 2]);

    // The layout `steps` relies on.
    const _: () = assert!(std::mem::size_of::<[TavliStep; 4]>() == 16);
    const _: () = assert!(std::mem::size_of::<TavliStep>() == 4);

    impl Packed {
        pub(super) const NONE: Packed = Packed([0; 2]);

        /// With one more step, the step of index `depth` (0..=3; a constant where the
        /// callers' loops are written out, so the shift is a move of whole words).
        #[inline]
        pub(super) fn with(self, depth: u8, from: usize, to: u8, mark: bool) -> Packed {
            let s = u64::from(from as u8) | u64::from(to) << 8 | u64::from(mark) << 16;
            let mut words = self.0;
            words[usize::from(depth >> 1 & 1)] |= s << (32 * u32::from(depth & 1));
            Packed(words)
        }

        /// The steps, unused ones zero.
        #[inline]
        pub(super) fn steps(self) -> [TavliStep; 4] {
            // SAFETY: `[TavliStep; 4]` is 16 bytes (checked above) of four `repr(C)`
            // steps, each `from: u8` at byte 0, `to: u8` at 1, `mark: bool` at 2 and one
            // byte of padding. Any byte is a valid `u8` and padding may hold anything;
            // the mark bytes hold 0 or 1: zero in `NONE`, and `with` ORs into a mark byte
            // only a `bool` cast to 0 or 1 (the step's other bits fall in its `from` and
            // `to` bytes), so every value this type can hold is a valid `[TavliStep; 4]`.
            unsafe { std::mem::transmute::<[u64; 2], [TavliStep; 4]>(self.0) }
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Leaf {
    state: Compact,
    steps: Packed,
    /// The die of the first step (which die a one-step play used).
    first: u8,
    /// Steps played.
    used: u8,
    /// The game's end after the last step.
    end: Option<GameEnd>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    key: u128,
    /// generation << 3 | tag: a slot is in use only when its generation is current.
    stamp: u32,
}

/// A set of (key, tag) pairs, emptied in O(1) by a new generation; open addressing,
/// a power-of-two size at most half full.
#[derive(Debug, Clone, Default)]
struct Table {
    slots: Vec<Slot>,
    generation: u32,
    len: usize,
}

impl Table {
    fn clear(&mut self) {
        self.generation += 1;
        self.len = 0;
        if self.generation >= 1 << 28 {
            self.slots.iter_mut().for_each(|s| s.stamp = 0);
            self.generation = 1;
        }
        if self.slots.is_empty() {
            self.slots.resize(256, Slot::default());
        }
    }

    #[inline]
    fn at(&self, key: u128, stamp: u32) -> usize {
        let h =
            ((key as u64) ^ (key >> 64) as u64 ^ stamp as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> 40) as usize & (self.slots.len() - 1)
    }

    /// Adds (key, tag); false when it was there.
    #[inline]
    fn insert(&mut self, key: u128, tag: u32) -> bool {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let stamp = self.generation << 3 | tag;
        let mask = self.slots.len() - 1;
        let mut i = self.at(key, stamp);
        loop {
            let s = self.slots[i];
            if s.stamp >> 3 != self.generation {
                self.slots[i] = Slot { key, stamp };
                self.len += 1;
                return true;
            }
            if s.stamp == stamp && s.key == key {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.slots = vec![Slot::default(); old.len() * 2];
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.stamp >> 3 == self.generation) {
            let mut i = self.at(s.key, s.stamp);
            while self.slots[i].stamp >> 3 == self.generation {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

/// Reusable buffers of the search.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    /// The leaves that the C4 filter may still remove (fewer steps than the dice).
    short: Vec<Leaf>,
    table: Table,
    /// The most steps of any leaf so far.
    most: u8,
    /// A one-step leaf used the higher die.
    one_high: bool,
    /// The keys of the plays of the canonical order that another sequence may repeat.
    repeatable: Vec<u128>,
}

/// The table tag of the distinct results.
const RESULT: u32 = 7;

/// Where a search's leaves go: a play that uses every die or ends the game is legal
/// whatever else is found (C4, C5) and goes out at once if it is new; the others wait for
/// the filter.
struct Sink<'a> {
    /// A play from the position searched with no steps yet, copied for each play written.
    template: TavliPlay,
    out: &'a mut Vec<TavliPlay>,
    /// Steps of a full play (2, or 4 for a double).
    full: u8,
    high: u8,
}

impl<'a> Sink<'a> {
    fn new(pos: &TavliPosition, h: u8, l: u8, out: &'a mut Vec<TavliPlay>) -> Self {
        Sink {
            template: TavliPlay::new(*pos, [TavliStep::default(); 4], 0, None),
            out,
            full: if h == l { 4 } else { 2 },
            high: h,
        }
    }

    #[inline]
    fn leaf<G: StepRules>(&mut self, s: &mut Scratch, leaf: Leaf) {
        s.most = s.most.max(leaf.used);
        s.one_high |= leaf.used == 1 && leaf.first == self.high;
        if leaf.end.is_some() || leaf.used == self.full {
            self.emit::<G>(s, &leaf);
        } else {
            s.short.push(leaf);
        }
    }

    /// Writes the play of `leaf` unless its result is out already.
    #[inline]
    fn emit<G: StepRules>(&mut self, s: &mut Scratch, leaf: &Leaf) {
        if !s.table.insert(leaf.state.key(), RESULT) {
            return;
        }
        self.write::<G>(leaf);
    }

    /// Writes the play of `leaf`, known to be new.
    #[inline(always)]
    fn write<G: StepRules>(&mut self, leaf: &Leaf) {
        // A copy of the template, then filled in place: copying a play assembled byte by
        // byte just before would wait on those byte stores.
        self.out.push(self.template);
        if let Some(play) = self.out.last_mut() {
            play.after.sides[0] = leaf.state.side();
            G::store_marks(&mut play.after, &leaf.state);
            play.steps = leaf.steps.steps();
            play.len = leaf.used;
            play.end = leaf.end;
        }
    }
}

/// Every distinct legal play of `dice` in `pos` for the game `G`, into `out`: in the
/// canonical order where it settles them, else by the full search; by the full search
/// alone when `every_order` (to check the two against each other).
pub(crate) fn generate<G: StepRules>(
    pos: &TavliPosition,
    dice: Dice,
    rules: &Rules,
    s: &mut Scratch,
    out: &mut Vec<TavliPlay>,
    every_order: bool,
) {
    let (h, l) = (dice.high(), dice.low());
    let ctx = G::context(pos, rules);
    let root = Compact::load(pos, G::marks(pos));
    let before = out.len();
    if !every_order && settle::<G>(pos, &root, h, l, &ctx, s, out) == Some(true) {
        return;
    }
    out.truncate(before);
    full::<G>(pos, &root, h, l, &ctx, s, out);
}

/// The plays of `pos` (whose state is `root`) in the canonical order, into `out`: `None`
/// where that order does not apply ([`StepRules::order_free`]), else whether it settled
/// the plays (when not, some may have been written and the full search must decide).
#[inline]
fn settle<G: StepRules>(
    pos: &TavliPosition,
    root: &Compact,
    h: u8,
    l: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    out: &mut Vec<TavliPlay>,
) -> Option<bool> {
    if !G::order_free(root, ctx) {
        return None;
    }
    let mut sink = Sink::new(pos, h, l, out);
    // Two forms: the one that checks every state, and the one for positions where no
    // check can bite, with none of those checks in its loops.
    let settled = if G::quiet(root, ctx, h, l) {
        canonical::<G, false>(root, h, l, ctx, s, &mut sink)
    } else {
        canonical::<G, true>(root, h, l, ctx, s, &mut sink)
    };
    Some(settled.is_some())
}

/// [`generate`] by trying every order of steps (section 9 of the rules text), for the
/// positions where one canonical order does not settle the plays.
fn full<G: StepRules>(
    pos: &TavliPosition,
    root: &Compact,
    h: u8,
    l: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    out: &mut Vec<TavliPlay>,
) {
    let root = *root;
    s.short.clear();
    s.table.clear();
    s.most = 0;
    s.one_high = false;
    let mut sink = Sink::new(pos, h, l, out);
    if h == l {
        double::<G>(&root, 0, Packed::NONE, h, ctx, s, &mut sink);
    } else {
        let mut moved = false;
        for (first, second) in [(h, l), (l, h)] {
            let mut src = G::movable(&root, first, ctx);
            while src != 0 {
                let from = pop_high(&mut src);
                let (a, to, mark) = G::apply(&root, from, first, ctx);
                if !G::allowed(&a, ctx) {
                    continue;
                }
                moved = true;
                let steps = Packed::NONE.with(0, from, to, mark);
                let end = G::end(&a, ctx);
                if end.is_none() && second_steps::<G>(&a, steps, first, second, ctx, s, &mut sink) {
                    continue;
                }
                let leaf = Leaf {
                    state: a,
                    steps,
                    first,
                    used: 1,
                    end,
                };
                sink.leaf::<G>(s, leaf);
            }
        }
        if !moved {
            let leaf = Leaf {
                state: root,
                steps: Packed::NONE,
                first: 0,
                used: 0,
                end: None,
            };
            sink.leaf::<G>(s, leaf);
        }
    }
    // C4 for the rest: as many steps as any play has, and with one step of a non-double
    // the higher die where it can be played.
    let larger_only = h != l && s.most == 1 && s.one_high;
    for i in 0..s.short.len() {
        let leaf = s.short[i];
        if leaf.used == s.most && !(larger_only && leaf.first != h) {
            sink.emit::<G>(s, &leaf);
        }
    }
}

/// The second steps of a non-double after the first (`a`); false when there is none.
#[inline]
fn second_steps<G: StepRules>(
    a: &Compact,
    steps: Packed,
    first: u8,
    second: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    sink: &mut Sink,
) -> bool {
    let mut any = false;
    let mut src = G::movable(a, second, ctx);
    while src != 0 {
        let from = pop_high(&mut src);
        let (b, to, mark) = G::apply(a, from, second, ctx);
        if G::allowed(&b, ctx) {
            any = true;
            let leaf = Leaf {
                state: b,
                steps: steps.with(1, from, to, mark),
                first,
                used: 2,
                end: G::end(&b, ctx),
            };
            sink.leaf::<G>(s, leaf);
        }
    }
    any
}

/// The steps of a double from `state`, `depth` steps played; a state reached again
/// after the same number of steps is not explored twice.
fn double<G: StepRules>(
    state: &Compact,
    depth: u8,
    steps: Packed,
    die: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    sink: &mut Sink,
) {
    let mut any = false;
    let mut src = G::movable(state, die, ctx);
    while src != 0 {
        let from = pop_high(&mut src);
        let (n, to, mark) = G::apply(state, from, die, ctx);
        if !G::allowed(&n, ctx) {
            continue;
        }
        any = true;
        let steps = steps.with(depth, from, to, mark);
        let end = G::end(&n, ctx);
        if end.is_some() || depth == 3 {
            let leaf = Leaf {
                state: n,
                steps,
                first: die,
                used: depth + 1,
                end,
            };
            sink.leaf::<G>(s, leaf);
        } else if depth == 0 || s.table.insert(n.key(), depth as u32 + 1) {
            // After one step no two states are equal (each moved another checker).
            double::<G>(&n, depth + 1, steps, die, ctx, s, sink);
        }
    }
    if !any {
        let leaf = Leaf {
            state: *state,
            steps,
            first: die,
            used: depth,
            end: None,
        };
        sink.leaf::<G>(s, leaf);
    }
}

/// Every distinct legal play in one canonical order of steps, as backgammon's generator
/// finds them ([`crate::game::generate_plays`]), where [`StepRules::order_free`] holds;
/// `None`, with some plays written, where it cannot tell: then the full search must
/// decide.
///
/// Without those two checks a step's legality depends on the steps before it only
/// through the checkers they moved (the opponent's checkers stay put, and moving a checker
/// never makes another checker's step illegal), so
///
/// - a double's plays are the step sequences with non-increasing sources (each multiset
///   of steps once; equal steps on a line are determined by their net effect, so each
///   result once), of which those using the most steps are kept;
/// - a non-double's plays are the sequences with the higher die first, then those with the
///   lower die first whose second step was not already legal at the start, the results
///   compared only for the few plays another sequence can repeat (a chained play, or two
///   checkers borne off); with no two-step play, the one-step plays of the higher die
///   where it can be played, else of the lower.
///
/// Every play that any order of steps reaches is reached here too (a sequence sorted by
/// source is legal when the sequence is), so when no state reached ends the game or fails
/// the checks, these are the plays of the full rules. Where the checks can bite
/// ([`StepRules::quiet`] false) every state is checked, and
///
/// - a play whose last state fails them is dropped: every order of its steps ends there;
/// - a play that passed a refused state on the way, but whose last state is allowed, is
///   legal when another order of its steps passes none ([`legal_order`]): a double's four
///   steps are tried in every order; a non-double's two steps the other way round when the
///   higher die went first, while a play found with the lower die first, or one checker
///   moved by both dice lower die first, is among the sequences the passes try anyway;
/// - a step that ends the game ends the play, which is legal whatever else is found
///   (C5) and counts for C4 like any other (E19). A non-double's passes try both dice
///   first, so a play ending at its first step is found in its pass, and the second pass
///   also tries the higher-die steps that ended the game at the start. The last checker
///   borne off leaves no step after it in any order, so a double's sorted sequences find
///   those plays too; a double's other game ends (Plakoto's mother pinned, where a sorted
///   sequence may end before steps another order plays first) go to the full search, as
///   does any doubt about the shorter plays (one dropped or in doubt) when no play of
///   the most steps is left.
///
/// `WATCH` is [`StepRules::quiet`]'s answer negated: the form without checks has none of
/// them in its loops.
fn canonical<G: StepRules, const WATCH: bool>(
    root: &Compact,
    h: u8,
    l: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    sink: &mut Sink,
) -> Option<()> {
    s.short.clear();
    s.repeatable.clear();
    s.most = 0;
    let watch = WATCH;
    if h == l {
        canonical_double::<G, WATCH>(root, h, ctx, s, sink)?;
        if s.most < 4 {
            for i in 0..s.short.len() {
                let leaf = s.short[i];
                if leaf.used == s.most {
                    sink.write::<G>(&leaf);
                }
            }
        }
        return Some(());
    }
    let mut last_refused = false;
    let high_ok = G::movable_free(root, h, ctx);
    let low_ok = G::movable_free(root, l, ctx);
    // The sources whose higher-die step at the start ends the game.
    let mut high_ends = 0u32;
    let mut any = false;
    for (first, second, mut src) in [(h, l, high_ok), (l, h, low_ok)] {
        while src != 0 {
            let from = pop_high(&mut src);
            let (a, to, mark) = G::apply(root, from, first, ctx);
            let tainted = watch && !G::allowed(&a, ctx);
            let end = if watch { G::end(&a, ctx) } else { None };
            if end.is_some() {
                if tainted {
                    return None;
                }
                // A play of one step that ends the game.
                if first == h {
                    high_ends |= 1 << from;
                }
                let leaf = Leaf {
                    state: a,
                    steps: Packed::NONE.with(0, from, to, mark),
                    first,
                    used: 1,
                    end,
                };
                finished::<G>(s, sink, leaf);
                continue;
            }
            let mut next = G::movable_free(&a, second, ctx);
            if first == l {
                // A higher-die step from a point where it was legal at the start, other
                // than by the checker just moved, was found with the higher die first,
                // unless it ended the game there.
                next &= !(high_ok & !high_ends & !(1u32 << to));
            }
            let steps = Packed::NONE.with(0, from, to, mark);
            while next != 0 {
                let from2 = pop_high(&mut next);
                let (b, to2, mark2) = G::apply(&a, from2, second, ctx);
                let mut play = steps.with(1, from2, to2, mark2);
                if watch && !G::allowed(&b, ctx) {
                    last_refused = true;
                    continue;
                }
                let end = if watch { G::end(&b, ctx) } else { None };
                if tainted {
                    // The same two steps the other way round, lower die first (the second
                    // pass skips them). One checker's two steps (`from2 == to`) have that
                    // order only with another checker on `to` at the start; the second
                    // pass tries the chained order. A play found in the second pass has
                    // its other orders among the first pass's sequences.
                    let other = if first == h {
                        legal_order::<G>(root, &[(from2, l), (from, h)], ctx)?
                    } else {
                        None
                    };
                    let Some(other) = other else {
                        last_refused = true;
                        continue;
                    };
                    play = other;
                }
                any = true;
                if from2 == to as usize
                    || to2 as usize == from
                    || (to == 0 && to2 == 0)
                    || end.is_some()
                {
                    let key = b.key();
                    if s.repeatable.contains(&key) {
                        continue;
                    }
                    s.repeatable.push(key);
                }
                sink.write::<G>(&Leaf {
                    state: b,
                    steps: play,
                    first,
                    used: 2,
                    end,
                });
            }
        }
    }
    if any {
        return Some(());
    }
    if last_refused {
        // Which one-step plays the rules then allow is the full search's to decide.
        return None;
    }
    let (die, mut src) = if high_ok != 0 {
        (h, high_ok)
    } else {
        (l, low_ok)
    };
    if src == 0 {
        sink.write::<G>(&Leaf {
            state: *root,
            steps: Packed::NONE,
            first: 0,
            used: 0,
            end: None,
        });
        return Some(());
    }
    while src != 0 {
        let from = pop_high(&mut src);
        let (a, to, mark) = G::apply(root, from, die, ctx);
        if watch && !G::allowed(&a, ctx) {
            return None;
        }
        if watch && G::end(&a, ctx).is_some() {
            // Written by its pass above.
            continue;
        }
        sink.write::<G>(&Leaf {
            state: a,
            steps: Packed::NONE.with(0, from, to, mark),
            first: die,
            used: 1,
            end: None,
        });
    }
    Some(())
}

/// A state a double's steps reached in [`canonical`] (or [`legal_order`]), when watched:
/// `None` when the game ends there other than by the last checker borne off (the full
/// search decides), else whether it fails [`StepRules::allowed`]. With the last checker
/// off no step is left, so every order of steps ends there at its last step, and the
/// callers write it as a finished play.
#[inline]
fn refused<G: StepRules>(s: &Compact, ctx: &G::Ctx) -> Option<bool> {
    if s.occ != 0 && G::end(s, ctx).is_some() {
        return None;
    }
    Some(!G::allowed(s, ctx))
}

/// A play of [`canonical`] whose last step ends the game (`leaf.end`): legal whatever the
/// other plays (C5, E19), and written unless its result is out already (another order of
/// steps, or fewer of them, may bear off the same checkers).
#[cold]
fn finished<G: StepRules>(s: &mut Scratch, sink: &mut Sink, leaf: Leaf) {
    let key = leaf.state.key();
    if s.repeatable.contains(&key) {
        return;
    }
    s.repeatable.push(key);
    sink.write::<G>(&leaf);
}

/// The steps `steps` (source, die) from `root` packed in their order when each is
/// movable and no state before the last fails the checks: `Some(None)` when one does,
/// `None` when a state before the last ends the game (the full search decides). The last
/// state is the caller's, already allowed.
fn legal_order<G: StepRules>(
    root: &Compact,
    steps: &[(usize, u8)],
    ctx: &G::Ctx,
) -> Option<Option<Packed>> {
    let mut state = *root;
    let mut packed = Packed::NONE;
    for (i, &(from, die)) in steps.iter().enumerate() {
        if G::movable_free(&state, die, ctx) >> from & 1 == 0 {
            return Some(None);
        }
        let (n, to, mark) = G::apply(&state, from, die, ctx);
        if i + 1 < steps.len() && refused::<G>(&n, ctx)? {
            return Some(None);
        }
        packed = packed.with(i as u8, from, to, mark);
        state = n;
    }
    Some(Some(packed))
}

/// The orders of four steps other than the first (0, 1, 2, 3).
const REORDERS: [[usize; 4]; 23] = [
    [0, 1, 3, 2],
    [0, 2, 1, 3],
    [0, 2, 3, 1],
    [0, 3, 1, 2],
    [0, 3, 2, 1],
    [1, 0, 2, 3],
    [1, 0, 3, 2],
    [1, 2, 0, 3],
    [1, 2, 3, 0],
    [1, 3, 0, 2],
    [1, 3, 2, 0],
    [2, 0, 1, 3],
    [2, 0, 3, 1],
    [2, 1, 0, 3],
    [2, 1, 3, 0],
    [2, 3, 0, 1],
    [2, 3, 1, 0],
    [3, 0, 1, 2],
    [3, 0, 2, 1],
    [3, 1, 0, 2],
    [3, 1, 2, 0],
    [3, 2, 0, 1],
    [3, 2, 1, 0],
];

/// A double's four steps from the sources `from` (non-increasing, whose canonical order
/// passed a refused state) in another order that [`legal_order`] accepts, as it answers;
/// orders repeating one tried (equal sources) are skipped.
fn double_order<G: StepRules>(
    root: &Compact,
    from: [usize; 4],
    die: u8,
    ctx: &G::Ctx,
) -> Option<Option<Packed>> {
    let mut tried: [[usize; 4]; 24] = [[0; 4]; 24];
    tried[0] = from;
    let mut n = 1;
    for order in &REORDERS {
        let seq = order.map(|i| from[i]);
        if tried[..n].contains(&seq) {
            continue;
        }
        tried[n] = seq;
        n += 1;
        if let Some(packed) = legal_order::<G>(root, &seq.map(|f| (f, die)), ctx)? {
            return Some(Some(packed));
        }
    }
    Some(None)
}

/// The plays of a double in [`canonical`], four levels of steps with non-increasing
/// sources: plays of four steps go out at once, shorter ones wait in `s.short`. False
/// when a state reached ends the game or fails the checks (checked when `watch`). The
/// levels are written out so that each level's state stays in registers: an explicit
/// stack of states, and a closure for the step shared by the levels, both measured about
/// 5% slower.
fn canonical_double<G: StepRules, const WATCH: bool>(
    root: &Compact,
    die: u8,
    ctx: &G::Ctx,
    s: &mut Scratch,
    sink: &mut Sink,
) -> Option<()> {
    let watch = WATCH;
    let below = |from: usize| (2u32 << from) - 1;
    // A play dropped (its last state refused, or no order of its steps passing none):
    // the full search decides should no four-step play be found.
    let mut unsure = false;
    let mut m0 = G::movable_free(root, die, ctx);
    if m0 == 0 {
        sink.write::<G>(&Leaf {
            state: *root,
            steps: Packed::NONE,
            first: 0,
            used: 0,
            end: None,
        });
        return Some(());
    }
    // A state with no step left: a shorter play, kept unless a state on its way (this one
    // included) was refused; returns whether it was. With the last checker off the play
    // is legal whatever else is found (C5, E19), and counts for C4 like any other; one
    // that passed a refused state is the full search's.
    let short = |s: &mut Scratch,
                 sink: &mut Sink,
                 state: &Compact,
                 steps: Packed,
                 used: u8,
                 refused: bool| {
        let mut leaf = Leaf {
            state: *state,
            steps,
            first: die,
            used,
            end: None,
        };
        if watch && state.occ == 0 {
            if refused {
                return None;
            }
            s.most = s.most.max(used);
            leaf.end = G::end(state, ctx);
            finished::<G>(s, sink, leaf);
            return Some(false);
        }
        if refused {
            return Some(true);
        }
        if used >= s.most {
            s.most = used;
            s.short.push(leaf);
        }
        Some(false)
    };
    while m0 != 0 {
        let f0 = pop_high(&mut m0);
        let (n1, t0, k0) = G::apply(root, f0, die, ctx);
        // Whether a state on the way, this one included, was refused.
        let r1 = watch && refused::<G>(&n1, ctx)?;
        let p1 = Packed::NONE.with(0, f0, t0, k0);
        let mut m1 = G::movable_free(&n1, die, ctx) & below(f0);
        if m1 == 0 {
            unsure |= short(s, sink, &n1, p1, 1, r1)?;
        }
        while m1 != 0 {
            let f1 = pop_high(&mut m1);
            let (n2, t1, k1) = G::apply(&n1, f1, die, ctx);
            let r2 = watch && (refused::<G>(&n2, ctx)? || r1);
            let p2 = p1.with(1, f1, t1, k1);
            let mut m2 = G::movable_free(&n2, die, ctx) & below(f1);
            if m2 == 0 {
                unsure |= short(s, sink, &n2, p2, 2, r2)?;
            }
            while m2 != 0 {
                let f2 = pop_high(&mut m2);
                let (n3, t2, k2) = G::apply(&n2, f2, die, ctx);
                let r3 = watch && (refused::<G>(&n3, ctx)? || r2);
                let p3 = p2.with(2, f2, t2, k2);
                let mut m3 = G::movable_free(&n3, die, ctx) & below(f2);
                if m3 == 0 {
                    unsure |= short(s, sink, &n3, p3, 3, r3)?;
                }
                while m3 != 0 {
                    let f3 = pop_high(&mut m3);
                    let (n4, t3, k3) = G::apply(&n3, f3, die, ctx);
                    let mut play = p3.with(3, f3, t3, k3);
                    if watch && refused::<G>(&n4, ctx)? {
                        unsure = true;
                        continue;
                    }
                    if watch && n4.occ == 0 {
                        short(s, sink, &n4, play, 4, r3)?;
                        continue;
                    }
                    if r3 {
                        let Some(other) = double_order::<G>(root, [f0, f1, f2, f3], die, ctx)?
                        else {
                            unsure = true;
                            continue;
                        };
                        play = other;
                    }
                    s.most = 4;
                    sink.write::<G>(&Leaf {
                        state: n4,
                        steps: play,
                        first: die,
                        used: 4,
                        end: None,
                    });
                }
            }
        }
    }
    if unsure && s.most < 4 {
        return None;
    }
    Some(())
}

/// Where `generate` spends its time on a set of positions of one game (`stargammon
/// bench movegen --split`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Split {
    /// Positions of the set that are not over.
    pub positions: usize,
    /// Of those, the positions the canonical order settles.
    pub canonical: usize,
    /// The positions the canonical order hands back (a double that may pin a mother in
    /// Plakoto, or doubt about the shorter plays).
    pub handed_back: usize,
    /// The positions where the canonical order does not apply (`StepRules::order_free`
    /// false: Fevga's runner rule).
    pub not_order_free: usize,
    /// The fastest of the rounds, in ns per position of the whole set: the canonical
    /// order on every position where it applies (those handed back included, up to where
    /// it stops), and the full search on the positions it decides.
    pub canonical_ns: f64,
    pub full_ns: f64,
}

/// [`Split`] of `set` (positions of one Tavli game), `rounds` passes.
pub(crate) fn split(set: &[(TavliPosition, Dice)], rules: &Rules, rounds: u32) -> Split {
    use super::Variant;
    match set.first().map(|(p, _)| p.variant()) {
        Some(Variant::Portes) => split_of::<super::portes::Portes>(set, rules, rounds),
        Some(Variant::Plakoto) => split_of::<super::plakoto::Plakoto>(set, rules, rounds),
        Some(Variant::Fevga) => split_of::<super::fevga::Fevga>(set, rules, rounds),
        Some(Variant::Backgammon) | None => Split::default(),
    }
}

fn split_of<G: StepRules>(set: &[(TavliPosition, Dice)], rules: &Rules, rounds: u32) -> Split {
    let live: Vec<&(TavliPosition, Dice)> =
        set.iter().filter(|(p, _)| p.result().is_none()).collect();
    let mut s = Scratch::default();
    let mut out = Vec::new();
    let mut split = Split {
        positions: live.len(),
        canonical_ns: f64::MAX,
        full_ns: f64::MAX,
        ..Split::default()
    };
    // Which positions the full search decides.
    let mut decided = Vec::new();
    // The canonical order on one position: `None` where it does not apply, else whether
    // it settled the plays.
    let try_canonical = |s: &mut Scratch, out: &mut Vec<TavliPlay>, pos, dice: Dice| {
        out.clear();
        let ctx = G::context(pos, rules);
        let root = Compact::load(pos, G::marks(pos));
        settle::<G>(pos, &root, dice.high(), dice.low(), &ctx, s, out)
    };
    for (i, (pos, dice)) in live.iter().enumerate() {
        let settled = try_canonical(&mut s, &mut out, pos, *dice);
        match settled {
            Some(true) => split.canonical += 1,
            Some(false) => split.handed_back += 1,
            None => split.not_order_free += 1,
        }
        if settled != Some(true) {
            decided.push(i);
        }
    }
    let per = |t: std::time::Duration| t.as_secs_f64() * 1e9 / live.len().max(1) as f64;
    for _ in 0..rounds.max(1) {
        let t = std::time::Instant::now();
        for (pos, dice) in &live {
            std::hint::black_box(try_canonical(&mut s, &mut out, pos, *dice));
        }
        split.canonical_ns = split.canonical_ns.min(per(t.elapsed()));
        let t = std::time::Instant::now();
        for &i in &decided {
            let (pos, dice) = live[i];
            let ctx = G::context(pos, rules);
            let root = Compact::load(pos, G::marks(pos));
            out.clear();
            full::<G>(pos, &root, dice.high(), dice.low(), &ctx, &mut s, &mut out);
        }
        split.full_ns = split.full_ns.min(per(t.elapsed()));
    }
    split
}

/// Pops the highest set bit of a non-zero mask.
#[inline]
fn pop_high(mask: &mut u32) -> usize {
    let b = 31 - mask.leading_zeros() as usize;
    *mask &= !(1 << b);
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tavli::{fevga::Fevga, plakoto::Plakoto, portes::Portes, Variant};

    /// The plays of `pos` by the full search alone, and (when it settles them) by the
    /// canonical order, each sorted.
    fn both<G: StepRules>(
        pos: &TavliPosition,
        dice: Dice,
        rules: &Rules,
    ) -> (Vec<TavliPlay>, Option<Vec<TavliPlay>>) {
        let mut s = Scratch::default();
        let (h, l) = (dice.high(), dice.low());
        let ctx = G::context(pos, rules);
        let root = Compact::load(pos, G::marks(pos));
        let mut slow = Vec::new();
        full::<G>(pos, &root, h, l, &ctx, &mut s, &mut slow);
        let key = |p: &TavliPlay| (p.after, p.end);
        slow.sort_by_key(key);
        let mut fast = Vec::new();
        if settle::<G>(pos, &root, h, l, &ctx, &mut s, &mut fast) != Some(true) {
            return (slow, None);
        }
        // Each play's steps are legal one after the other, with the dice of the roll, and
        // lead to its position.
        for play in &fast {
            let mut state = root;
            let mut dice_left = if h == l { vec![h; 4] } else { vec![h, l] };
            for st in play.steps() {
                let used = dice_left.iter().position(|&d| {
                    G::step(&state, st.from as usize, d, &ctx)
                        .is_some_and(|(_, to, mark)| to == st.to && mark == st.mark)
                });
                let i = used.unwrap_or_else(|| panic!("{pos:?} {dice:?}: {st:?} not legal"));
                state = G::step(&state, st.from as usize, dice_left.remove(i), &ctx)
                    .expect("checked")
                    .0;
            }
            assert_eq!(state.side(), play.after.sides[0], "{pos:?} {dice:?}");
        }
        fast.sort_by_key(key);
        (slow, Some(fast))
    }

    /// Where the canonical order settles a position's plays, they are the full search's,
    /// each once, and each play's steps are legal in their order; on every position of
    /// the movegen sets (seeded random games and the shipped nets' self-play), most
    /// positions of each game being settled so, among them positions where a play ends
    /// the game, and some left to the full search where `hands_back` (Plakoto's doubles
    /// where a mother can be pinned, Fevga's positions under the runner rule).
    fn canonical_matches_full<G: StepRules>(variant: Variant, hands_back: bool) {
        let rules = Rules::default();
        let mut set = crate::bench::tavli_movegen_set(variant);
        set.extend(crate::bench::tavli_engine_movegen_set(variant).expect("shipped nets"));
        let (mut settled, mut handed_back, mut ending) = (0, 0, 0);
        for (pos, dice) in &set {
            if pos.result().is_some() {
                continue;
            }
            let (slow, fast) = both::<G>(pos, *dice, &rules);
            let Some(fast) = fast else {
                handed_back += 1;
                continue;
            };
            settled += 1;
            ending += usize::from(fast.iter().any(|p| p.end.is_some()));
            let after = |v: &[TavliPlay]| v.iter().map(|p| (p.after, p.end)).collect::<Vec<_>>();
            assert_eq!(after(&fast), after(&slow), "{pos:?} {dice:?}");
        }
        eprintln!(
            "{variant}: {settled} settled by the canonical order ({ending} with a play that \
             ends the game), {handed_back} by the full search"
        );
        assert!(settled > set.len() * 3 / 4, "{settled} of {}", set.len());
        assert!(ending > 100, "{ending}");
        assert_eq!(handed_back > 0, hands_back, "{handed_back}");
    }

    /// The split of `bench movegen --split` accounts for every live position once, and
    /// its counts are those of the comparison above.
    #[test]
    fn split_counts_every_position_once() {
        let rules = Rules::default();
        for variant in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            let set = crate::bench::tavli_movegen_set(variant);
            let set = &set[..3000];
            let s = split(set, &rules, 1);
            let live = set.iter().filter(|(p, _)| p.result().is_none()).count();
            assert_eq!(s.positions, live, "{variant}");
            assert_eq!(s.canonical + s.handed_back + s.not_order_free, live);
            assert!(s.canonical > live / 2, "{variant}: {s:?}");
            assert!(s.canonical_ns > 0.0 && s.full_ns >= 0.0);
            assert_eq!(s.not_order_free > 0, variant == Variant::Fevga, "{s:?}");
        }
    }

    #[test]
    fn canonical_order_matches_full_search_portes() {
        canonical_matches_full::<Portes>(Variant::Portes, false);
    }

    #[test]
    fn canonical_order_matches_full_search_plakoto() {
        canonical_matches_full::<Plakoto>(Variant::Plakoto, true);
    }

    #[test]
    fn canonical_order_matches_full_search_fevga() {
        canonical_matches_full::<Fevga>(Variant::Fevga, true);
    }

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

    /// Packed steps unpack to the steps packed, at every depth.
    #[test]
    fn packed_steps_round_trip() {
        let steps = [(25, 20, true), (13, 7, false), (6, 0, false), (24, 1, true)];
        let mut packed = Packed::NONE;
        for (depth, &(from, to, mark)) in steps.iter().enumerate() {
            packed = packed.with(depth as u8, from, to, mark);
        }
        for (st, &(from, to, mark)) in packed.steps().iter().zip(&steps) {
            assert_eq!(
                *st,
                TavliStep {
                    from: from as u8,
                    to,
                    mark
                }
            );
        }
    }
}
