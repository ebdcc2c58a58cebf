//! Net inputs: a Tesauro-style raw board encoding plus hand-made backgammon features.
//!
//! Why this shape: the raw encoding lets the net see every point, but it learns slowly
//! what an expert reads at a glance (shots, blockades, the race). The features below
//! (Palamedes' list plus a few of gnubg's) hand it those quantities directly.
//!
//! Layout of [`INPUTS`] values, every side seen in its own numbering (its points 1..24,
//! moving towards 1):
//!
//! ```text
//!   0..96    mover, point p (1..=24): 4 units at 4*(p-1): n==1, n==2, n>=3, (n-3)/2 if n>3
//!   96       mover checkers on the bar / 2
//!   97       mover checkers borne off / 15
//!   98..196  the same for the opponent
//!   196..206 mover features (SIDE_FEATURES, see `side_features`)
//!   206..216 opponent features
//!   216      pip lead of the mover / 50 (0 when behind)
//!   217      pip deficit of the mover / 50 (0 when ahead)
//! ```
//!
//! The board block is mostly zeros, so the encoder produces a sparse list of
//! (index, value) pairs; the first layer of the net sums only those rows.

use crate::game::{Dice, Position, ALL_ROLLS};

/// Identifies this encoding (the race net's, and the contact net's in files with
/// encoding 1) in weights files; a changed layout gets a new id (see [`Encoding`]).
pub const ENCODING_ID: u32 = 1;
/// Units per side in the board block.
pub const BOARD_SIDE: usize = 98;
/// Features per side.
pub const SIDE_FEATURES: usize = 10;
/// Index of the first feature unit.
pub const FEATURES_START: usize = 2 * BOARD_SIDE;
/// Total number of inputs.
pub const INPUTS: usize = FEATURES_START + 2 * SIDE_FEATURES + 2;
/// The most nonzero inputs encoding 1 can have (board units plus every feature).
pub const MAX_NONZERO_V1: usize = 2 * (24 * 2 + 2) + 2 * SIDE_FEATURES + 2;
/// The most nonzero inputs any encoding can have (encoding 2 adds its extra features);
/// the capacity of a [`SparseInput`].
pub const MAX_NONZERO: usize = MAX_NONZERO_V1 + 2 * super::inputs_v2::EXTRA_FEATURES;

/// The input encodings this build computes. The race net always uses encoding 1; a
/// weights file's encoding id says which one its contact net reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// Raw points and the ten features per side of this module ([`INPUTS`] inputs).
    #[default]
    V1,
    /// Encoding 1 followed by the expert features of [`super::inputs_v2`]
    /// ([`super::inputs_v2::INPUTS_V2`] inputs).
    V2,
    /// Encoding 1's board block alone ([`FEATURES_START`] inputs), for contact and race
    /// nets alike: the cheap inputs of the pruning nets (`super::prune`), which rank a
    /// roll's plays before the full nets value the best few.
    Board,
}

impl Encoding {
    /// Every encoding this build knows, by increasing id.
    pub const ALL: [Encoding; 3] = [Encoding::V1, Encoding::V2, Encoding::Board];

    /// The id written in weights files and training configs.
    pub fn id(self) -> u32 {
        match self {
            Encoding::V1 => 1,
            Encoding::V2 => 2,
            Encoding::Board => 3,
        }
    }

    /// The encoding with this id, `None` when this build does not know it.
    pub fn from_id(id: u32) -> Option<Encoding> {
        Encoding::ALL.into_iter().find(|e| e.id() == id)
    }

    /// Inputs of a contact net that reads this encoding.
    pub fn contact_inputs(self) -> usize {
        match self {
            Encoding::V1 => INPUTS,
            Encoding::V2 => super::inputs_v2::INPUTS_V2,
            Encoding::Board => FEATURES_START,
        }
    }

    /// Inputs of the race net (encoding 1 whatever the contact net reads, but for
    /// [`Encoding::Board`], which both nets read).
    pub fn race_inputs(self) -> usize {
        match self {
            Encoding::Board => FEATURES_START,
            _ => INPUTS,
        }
    }

    /// Encodes a contact position for the contact net.
    #[inline]
    pub fn encode_contact(self, pos: &Position, out: &mut SparseInput) {
        match self {
            Encoding::V1 => encode(pos, out),
            Encoding::V2 => super::sides::encode_v2_sides(pos, out),
            Encoding::Board => {
                out.len = 0;
                encode_board(pos, out);
            }
        }
    }

    /// Encodes `pos` for the net of its phase (the race net reads encoding 1, or the
    /// board block with [`Encoding::Board`]).
    #[inline]
    pub fn encode_for(self, pos: &Position, out: &mut SparseInput) {
        if self == Encoding::Board {
            return self.encode_contact(pos, out);
        }
        match pos.phase() {
            crate::game::Phase::Contact => self.encode_contact(pos, out),
            crate::game::Phase::Race => encode(pos, out),
        }
    }

    /// [`Encoding::encode_for`] keeping the side to act's summary (its part of encoding 2,
    /// or of encoding 1 in a race) in `cache` from one call to the next (the same inputs
    /// bit for bit).
    #[inline]
    pub fn encode_for_cached(
        self,
        pos: &Position,
        out: &mut SparseInput,
        cache: &mut super::sides::SideCache,
    ) {
        match (pos.phase(), self) {
            (_, Encoding::Board) => self.encode_contact(pos, out),
            (crate::game::Phase::Contact, Encoding::V2) => {
                super::sides::encode_v2_cached(pos, out, cache)
            }
            (crate::game::Phase::Contact, Encoding::V1) => encode(pos, out),
            (crate::game::Phase::Race, _) => super::sides::encode_v1_cached(pos, out, cache),
        }
    }
}

/// The nonzero inputs of one position, in increasing index order.
#[derive(Debug, Clone)]
pub struct SparseInput {
    pub index: [u16; MAX_NONZERO],
    pub value: [f32; MAX_NONZERO],
    pub len: usize,
}

impl Default for SparseInput {
    fn default() -> Self {
        SparseInput {
            index: [0; MAX_NONZERO],
            value: [0.0; MAX_NONZERO],
            len: 0,
        }
    }
}

impl SparseInput {
    #[inline]
    pub(crate) fn push(&mut self, i: usize, v: f32) {
        if v != 0.0 {
            self.index[self.len] = i as u16;
            self.value[self.len] = v;
            self.len += 1;
        }
    }

    /// The dense vector of all [`INPUTS`] values of encoding 1 (for tests and tools).
    pub fn to_dense(&self) -> Vec<f32> {
        self.to_dense_len(INPUTS)
    }

    /// The dense vector of `n` inputs (an encoding's input count); indices at or past
    /// `n` are left out.
    pub fn to_dense_len(&self, n: usize) -> Vec<f32> {
        let mut d = vec![0.0; n];
        for k in 0..self.len {
            if let Some(slot) = d.get_mut(self.index[k] as usize) {
                *slot = self.value[k];
            }
        }
        d
    }
}

/// Encodes `pos` (side to act before rolling) into `out`.
pub fn encode(pos: &Position, out: &mut SparseInput) {
    out.len = 0;
    encode_board(pos, out);
    let mut f = [0.0f32; 2 * SIDE_FEATURES + 2];
    let contact = pos.highest() > pos.opp_rearmost();
    side_features(pos, contact, &mut f[..SIDE_FEATURES]);
    side_features(
        &pos.swap(),
        contact,
        &mut f[SIDE_FEATURES..2 * SIDE_FEATURES],
    );
    let lead = pos.opp_pips() as f32 - pos.pips() as f32;
    f[2 * SIDE_FEATURES] = lead.max(0.0) / 50.0;
    f[2 * SIDE_FEATURES + 1] = (-lead).max(0.0) / 50.0;
    for (k, &v) in f.iter().enumerate() {
        out.push(FEATURES_START + k, v);
    }
}

/// Appends the board block (indices below [`FEATURES_START`]) of `pos` to `out`.
#[inline]
pub(crate) fn encode_board(pos: &Position, out: &mut SparseInput) {
    let s = pos.slots();
    // Mover: slot p holds the mover's point p.
    for p in 1..=24 {
        let n = s[p];
        if n > 0 {
            push_point(out, 4 * (p - 1), n as u8);
        }
    }
    out.push(96, s[25] as f32 / 2.0);
    out.push(97, pos.off() as f32 / 15.0);
    // Opponent: its point q is the mover's slot 25 - q.
    for q in 1..=24 {
        let n = s[25 - q];
        if n < 0 {
            push_point(out, BOARD_SIDE + 4 * (q - 1), n.unsigned_abs());
        }
    }
    out.push(BOARD_SIDE + 96, s[0].unsigned_abs() as f32 / 2.0);
    out.push(BOARD_SIDE + 97, pos.opp_off() as f32 / 15.0);
}

#[inline]
fn push_point(out: &mut SparseInput, base: usize, n: u8) {
    point_units(base, n, |i, v| out.push(i, v));
}

/// The board units of a point holding `n` (at least one) of a side's checkers, whose
/// four units start at input `base`: one checker, two, three, and (n - 3) / 2 beyond
/// three (with the unit of three). Each nonzero unit goes to `unit`.
#[inline(always)]
pub(super) fn point_units(base: usize, n: u8, mut unit: impl FnMut(usize, f32)) {
    match n {
        1 => unit(base, 1.0),
        2 => unit(base + 1, 1.0),
        3 => unit(base + 2, 1.0),
        _ => {
            unit(base + 2, 1.0);
            unit(base + 3, (n as f32 - 3.0) / 2.0);
        }
    }
}

/// Bit masks of one side's situation, in the mover's numbering of `pos`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Masks {
    /// Points (and bit 25 for the bar) holding mover checkers.
    pub(crate) sources: u32,
    /// Points holding two or more mover checkers.
    pub(crate) multi: u32,
    /// Points where the opponent has exactly one checker (the mover's targets).
    pub(crate) blots: u32,
    /// Points the opponent holds with two or more checkers (closed to the mover).
    pub(crate) blocked: u32,
}

impl Masks {
    /// For each die d (1..=6), with no mover checker on the bar: the blots that a mover
    /// checker d pips away hits directly, and the open points a mover checker lands on
    /// with d (the first step of a combination shot).
    #[inline(always)]
    pub(crate) fn die_masks(&self) -> ([u32; 7], [u32; 7]) {
        let open = !self.blocked & BOARD;
        let s = self.sources & BOARD;
        let mut direct = [0u32; 7];
        let mut landed = [0u32; 7];
        for d in 1..=6 {
            direct[d] = self.blots & (s >> d);
            landed[d] = (s >> d) & open;
        }
        (direct, landed)
    }

    /// The blots the non-double roll (`d1`, `d2`), `d1 > d2`, hits with no mover checker on
    /// the bar (from [`Masks::die_masks`]), and whether it can hit two: the rules of
    /// `hits_masks` with the per-die masks computed once for all rolls.
    #[inline(always)]
    pub(crate) fn non_double_shots(
        &self,
        direct: &[u32; 7],
        landed: &[u32; 7],
        d1: usize,
        d2: usize,
    ) -> (u32, bool) {
        let h1 = direct[d1];
        let h2 = direct[d2];
        let combo = self.blots & ((landed[d1] >> d2) | (landed[d2] >> d1));
        // `single`: exactly one bit, without a popcount.
        let single = |x: u32| x != 0 && x & (x - 1) == 0;
        let mut two = h1 != 0 && h2 != 0 && !(h1 == h2 && single(h1));
        if two && single(h1) && single(h2) {
            let t1 = h1.trailing_zeros() as usize;
            let t2 = h2.trailing_zeros() as usize;
            if t1 + d1 == t2 + d2 && self.multi & (1 << (t1 + d1)) == 0 {
                two = false;
            }
        }
        two |= self.blots & ((h1 >> d2) | (h2 >> d1)) != 0;
        (h1 | h2 | combo, two)
    }
}

#[inline]
pub(crate) fn masks(pos: &Position) -> Masks {
    let s = pos.slots();
    let mut m = Masks {
        sources: 0,
        multi: 0,
        blots: 0,
        blocked: 0,
    };
    // Branch-free: the board is read on every evaluation and its pattern is random.
    for p in 1..=24 {
        let n = s[p];
        m.sources |= ((n > 0) as u32) << p;
        m.multi |= ((n >= 2) as u32) << p;
        m.blots |= ((n == -1) as u32) << p;
        m.blocked |= ((n <= -2) as u32) << p;
    }
    m.sources |= ((s[25] > 0) as u32) << 25;
    m.multi |= ((s[25] >= 2) as u32) << 25;
    m
}

/// Which of the opponent's blots the mover of `pos` can hit with `dice`, as the outcome
/// "at least one" and "at least two". An approximation: it follows single checkers
/// through open landing points and the bar-entry rule, but only partly accounts for how
/// many checkers a source point has and ignores the rule that both dice must be played. Its agreement with
/// exact move generation is measured in the tests.
pub fn hits_with(pos: &Position, dice: Dice) -> (bool, bool) {
    hits_masks(&masks(pos), pos.bar(), dice)
}

pub(crate) const BOARD: u32 = 0x01FF_FFFE; // bits 1..=24

#[inline(always)]
pub(crate) fn hits_masks(m: &Masks, bar: u8, dice: Dice) -> (bool, bool) {
    let open = !m.blocked & BOARD;
    let (d1, d2) = (dice.high() as u32, dice.low() as u32);
    if m.blots == 0 {
        return (false, false);
    }
    if d1 != d2 {
        if bar >= 2 {
            let h1 = m.blots & (1 << (25 - d1));
            let h2 = m.blots & (1 << (25 - d2));
            return (h1 | h2 != 0, h1 != 0 && h2 != 0);
        }
        let board_sources = m.sources & BOARD;
        if bar == 1 {
            let mut one = false;
            let mut two = false;
            for (a, b) in [(d1, d2), (d2, d1)] {
                let entry = 25 - a;
                if open & (1 << entry) == 0 {
                    continue;
                }
                let e_hit = m.blots & (1 << entry) != 0;
                let srcs = board_sources | (1 << entry);
                let second = m.blots & (srcs >> b) & !(1 << entry);
                one |= e_hit || second != 0;
                two |= e_hit && second != 0;
            }
            return (one, two);
        }
        let s = board_sources;
        let h1 = m.blots & (s >> d1);
        let h2 = m.blots & (s >> d2);
        let combo = m.blots & ((((s >> d1) & open) >> d2) | (((s >> d2) & open) >> d1));
        let one = h1 | h2 | combo != 0;
        // Two different blots, one per die, or one checker hitting and hitting again.
        let mut two = h1 != 0 && h2 != 0 && !(h1 == h2 && h1.count_ones() == 1);
        if two && h1.count_ones() == 1 && h2.count_ones() == 1 {
            let t1 = h1.trailing_zeros();
            let t2 = h2.trailing_zeros();
            // The same lone checker would have to hit both.
            if t1 + d1 == t2 + d2 && m.multi & (1 << (t1 + d1)) == 0 {
                two = false;
            }
        }
        two |= m.blots & ((h1 >> d2) | (h2 >> d1)) != 0;
        return (one, two);
    }
    let (seen, two) = double_hits(m, bar, d1);
    (seen != 0, two)
}

/// For the double of `d`: the blots (bit masks in the mover's numbering) the mover of `m`
/// hits, and whether it can hit two, under the rules of [`hits_masks`].
#[inline(always)]
pub(crate) fn double_hits(m: &Masks, bar: u8, d: u32) -> (u32, bool) {
    let open = !m.blocked & BOARD;
    let mut steps = 4u32;
    let mut s = m.sources & BOARD;
    let mut entry_hit = 0u32;
    if bar > 0 {
        let entry = 25 - d;
        if open & (1 << entry) == 0 {
            return (0, false);
        }
        entry_hit = m.blots & (1 << entry);
        let used = (bar as u32).min(4);
        steps -= used;
        s |= 1 << entry;
        if bar as u32 >= 4 {
            return (entry_hit, false);
        }
    }
    // Blots first reached after k steps.
    let mut reach = s;
    let mut by_step = [0u32; 5];
    let mut seen = entry_hit;
    for k in 1..=steps as usize {
        reach = (reach >> d) & open;
        let new = reach & m.blots & !seen;
        by_step[k] = new;
        seen |= new;
    }
    let mut two = false;
    if entry_hit != 0 && (seen & !entry_hit) != 0 {
        two = true;
    }
    for k1 in 1..=steps as usize {
        if by_step[k1].count_ones() >= 2 && 2 * k1 as u32 <= steps {
            two = true;
        }
        for k2 in (k1 + 1)..=steps as usize {
            if by_step[k1] != 0 && by_step[k2] != 0 && (k1 + k2) as u32 <= steps {
                two = true;
            }
        }
    }
    // One checker running through two blots on its way.
    if !two {
        let hit = seen & !entry_hit;
        let mut chain = hit;
        for _ in 1..steps {
            chain = (chain >> d) & open;
            if chain & hit != 0 {
                two = true;
                break;
            }
        }
    }
    (seen, two)
}

/// Probability (over 36 rolls) that the mover of `pos` hits at least one / two blots.
pub fn hit_probabilities(pos: &Position) -> (f32, f32) {
    let m = masks(pos);
    if m.blots == 0 {
        return (0.0, 0.0);
    }
    let bar = pos.bar();
    let mut one = 0;
    let mut two = 0;
    if bar > 0 {
        for d in ALL_ROLLS {
            let (a, b) = hits_masks(&m, bar, d);
            if a {
                one += d.weight();
            }
            if b {
                two += d.weight();
            }
        }
        return (one as f32 / 36.0, two as f32 / 36.0);
    }
    // No checker on the bar: the same rules as `hits_masks`, with the per-die masks
    // computed once instead of once per roll.
    let (direct, landed) = m.die_masks();
    for d1 in 2..=6usize {
        for d2 in 1..d1 {
            let (hit, t) = m.non_double_shots(&direct, &landed, d1, d2);
            if hit != 0 {
                one += 2;
            }
            if t {
                two += 2;
            }
        }
    }
    for d in 1..=6u8 {
        let (a, b) = hits_masks(&m, 0, Dice::new_unchecked(d, d));
        one += a as u32;
        two += b as u32;
    }
    (one as f32 / 36.0, two as f32 / 36.0)
}

/// Probability (over 36 rolls) that a mover checker on slot `p` gets past the opponent's
/// blocking points in the 12 points in front of it, moving only that checker through
/// open landing points. 1 when nothing blocks it.
pub fn escape_probability(pos: &Position, p: usize) -> f32 {
    let m = masks(pos);
    escape_masks(m.blocked, p)
}

pub(crate) fn escape_masks(blocked: u32, p: usize) -> f32 {
    if p == 0 {
        return 1.0;
    }
    let lo = p.saturating_sub(12).max(1);
    let window = blocked & (((1u32 << p) - 1) & !((1u32 << lo) - 1));
    if window == 0 {
        return 1.0;
    }
    let lowest = window.trailing_zeros() as i32;
    // Non-doubles never travel more than 11 pips, so their count depends only on the
    // 12 points in front of the checker: a table indexed by that pattern.
    let pattern = if p >= 13 {
        (window >> (p - 12)) & 0xFFF
    } else {
        (window << (12 - p)) & 0xFFF
    };
    let mut count = escape_table()[pattern as usize] as u32;
    let is_open = |q: i32| q < 1 || blocked & (1 << q) == 0;
    let p = p as i32;
    for a in 1..=6 {
        let mut q = p;
        for _ in 0..4 {
            if !is_open(q - a) {
                break;
            }
            q -= a;
        }
        if q < lowest {
            count += 1;
        }
    }
    count as f32 / 36.0
}

/// For each pattern of blocked points among the 12 points in front of a checker (bit 11
/// = the point just in front, bit 0 = twelve points ahead), the number of the 30
/// non-double rolls (out of 36) that carry the checker past the furthest blocked point.
pub(crate) fn escape_table() -> &'static [u8; 4096] {
    static TABLE: std::sync::OnceLock<Box<[u8; 4096]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([0u8; 4096]);
        for (pattern, entry) in t.iter_mut().enumerate() {
            if pattern == 0 {
                *entry = 30;
                continue;
            }
            // Checker at 12 relative to the pattern's bit positions 0..=11.
            let blocked = |q: i32| (0..12).contains(&q) && pattern & (1 << q) != 0;
            let lowest = (pattern as u32).trailing_zeros() as i32;
            let p = 12i32;
            let mut count = 0;
            for a in 1..=6i32 {
                for b in 1..a {
                    let mut best = p;
                    for (x, y) in [(a, b), (b, a)] {
                        if !blocked(p - x) {
                            best = best.min(p - x);
                            if !blocked(p - x - y) {
                                best = best.min(p - x - y);
                            }
                        }
                    }
                    if best < lowest {
                        count += 2;
                    }
                }
            }
            *entry = count;
        }
        t
    })
}

/// The mover's features of `pos` into `out` (SIDE_FEATURES values):
///
/// 0. P(the opponent hits at least one mover blot with its next roll)
/// 1. P(it hits at least two)
/// 2. the mover's pips still to bring home (each checker outside points 1..6 counts its
///    distance to the 6 point) / 100
/// 3. P(a mover checker on the bar fails to enter) = (closed entry points / 6)^2
/// 4. escape probability of the mover's rearmost checker
/// 5. escape probability of its second rearmost checker
/// 6. longest run of consecutive mover points held with 2+ checkers / 6
/// 7. home-board points held / 6
/// 8. pip count / 150
/// 9. blots / 5
///
/// `contact` false skips the shot and escape features (0 and 1 in a race).
pub fn side_features(pos: &Position, contact: bool, out: &mut [f32]) {
    let has_blots = pos.slots()[1..=24].contains(&1);
    let shots = if contact && has_blots {
        hit_probabilities(&pos.swap())
    } else {
        (0.0, 0.0)
    };
    side_features_with_shots(pos, contact, shots, out);
}

/// [`side_features`] with features 0 and 1 given: the probabilities that the opponent
/// hits at least one / two of the mover's blots (zeros without contact).
pub(crate) fn side_features_with_shots(
    pos: &Position,
    contact: bool,
    shots: (f32, f32),
    out: &mut [f32],
) {
    let s = pos.slots();
    let mut made = 0u32;
    let mut blots = 0u32;
    let mut outside = 0u32;
    let mut blocked = 0u32;
    let mut pips = 0u32;
    for p in 1..=24 {
        let n = s[p];
        made |= ((n >= 2) as u32) << p;
        blocked |= ((n <= -2) as u32) << p;
        blots += (n == 1) as u32;
        let mine = n.max(0) as u32;
        pips += p as u32 * mine;
        outside += (p as u32).saturating_sub(6) * mine;
    }
    let on_bar = s[25].max(0) as u32;
    outside += 19 * on_bar;
    pips += 25 * on_bar;
    out[0] = shots.0;
    out[1] = shots.1;
    out[2] = outside as f32 / 100.0;
    let closed = (blocked & (0x3F << 19)).count_ones() as f32;
    out[3] = (closed / 6.0) * (closed / 6.0);
    if contact {
        let mut rear = [0usize; 2];
        let mut found = 0;
        for p in (1..=25).rev() {
            let n = s[p].max(0) as usize;
            for _ in 0..n.min(2 - found) {
                rear[found] = p;
                found += 1;
            }
            if found == 2 {
                break;
            }
        }
        // The counts of `escape_masks`, from the faster table (tested to agree).
        let escape = |p: usize| super::inputs_v2::escapes36(blocked, p) as f32 / 36.0;
        out[4] = escape(rear[0]);
        out[5] = if rear[1] == rear[0] {
            out[4]
        } else {
            escape(rear[1])
        };
    } else {
        out[4] = 1.0;
        out[5] = 1.0;
    }
    let mut run = made;
    let mut prime = 0;
    while run != 0 {
        run &= run << 1;
        prime += 1;
    }
    out[6] = prime as f32 / 6.0;
    out[7] = (made & 0x7E).count_ones() as f32 / 6.0;
    out[8] = pips as f32 / 150.0;
    out[9] = blots as f32 / 5.0;
}
