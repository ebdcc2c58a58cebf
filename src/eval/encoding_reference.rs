//! The input encodings as they were first written, kept for tests only: the encoders
//! in [`super::encoding`] and [`super::inputs_v2`] are rewritten for speed and must give
//! these inputs bit for bit (`tests` below, on the positions of many seeded games).

#![allow(dead_code)]

use super::encoding::SparseInput;
use crate::game::{Dice, Position, ALL_ROLLS};

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
pub const MAX_NONZERO: usize = MAX_NONZERO_V1 + 2 * EXTRA_FEATURES;

/// Extra features per side.
pub const EXTRA_FEATURES: usize = 20;
/// Index of the mover's first extra feature.
pub const EXTRAS_START: usize = INPUTS;
/// Total inputs of encoding 2.
pub const INPUTS_V2: usize = INPUTS + 2 * EXTRA_FEATURES;

/// Appends (i, v) to `out` when `v` is not zero.
fn push(out: &mut SparseInput, i: usize, v: f32) {
    if v != 0.0 {
        out.index[out.len] = i as u16;
        out.value[out.len] = v;
        out.len += 1;
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
        push(out, FEATURES_START + k, v);
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
    push(out, 96, s[25] as f32 / 2.0);
    push(out, 97, pos.off() as f32 / 15.0);
    // Opponent: its point q is the mover's slot 25 - q.
    for q in 1..=24 {
        let n = s[25 - q];
        if n < 0 {
            push_point(out, BOARD_SIDE + 4 * (q - 1), n.unsigned_abs());
        }
    }
    push(out, BOARD_SIDE + 96, s[0].unsigned_abs() as f32 / 2.0);
    push(out, BOARD_SIDE + 97, pos.opp_off() as f32 / 15.0);
}

#[inline]
fn push_point(out: &mut SparseInput, base: usize, n: u8) {
    match n {
        1 => push(out, base, 1.0),
        2 => push(out, base + 1, 1.0),
        3 => push(out, base + 2, 1.0),
        _ => {
            push(out, base + 2, 1.0);
            push(out, base + 3, (n as f32 - 3.0) / 2.0);
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
    // Doubles.
    let d = d1;
    let mut steps = 4u32;
    let mut s = m.sources & BOARD;
    let mut entry_hit = 0u32;
    if bar > 0 {
        let entry = 25 - d;
        if open & (1 << entry) == 0 {
            return (false, false);
        }
        entry_hit = m.blots & (1 << entry);
        let used = (bar as u32).min(4);
        steps -= used;
        s |= 1 << entry;
        if bar as u32 >= 4 {
            return (entry_hit != 0, false);
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
    let one = seen != 0;
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
    (one, two)
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
        out[4] = escape_masks(blocked, rear[0]);
        out[5] = if rear[1] == rear[0] {
            out[4]
        } else {
            escape_masks(blocked, rear[1])
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

/// Encodes `pos` (side to act before rolling) with encoding 2 into `out`.
pub fn encode_v2(pos: &Position, out: &mut SparseInput) {
    out.len = 0;
    encode_board(pos, out);
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
        push(out, FEATURES_START + k, v);
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
    const NONE: Shots = Shots {
        one: 0.0,
        two: 0.0,
        loss_expected: 0.0,
        loss_worst: 0,
    };
}

/// The shots of the mover of `hitter` at the opponent's blots. A blot on the hitter's
/// slot `t` stands on the victim's point 25 - t; hit, it restarts from 25, losing `t`
/// pips. Agrees with [`hit_probabilities`] on `one` and `two` (tested).
pub fn shots(hitter: &Position) -> Shots {
    let m = masks(hitter);
    if m.blots == 0 {
        return Shots::NONE;
    }
    let bar = hitter.bar();
    let mut one = 0u32;
    let mut two = 0u32;
    let mut loss_sum = 0u32;
    let mut worst = 0u32;
    let mut tally = |weight: u32, hit: u32, (a, b): (bool, bool)| {
        if hit != 0 {
            let loss = 31 - hit.leading_zeros();
            loss_sum += weight * loss;
            worst = worst.max(loss);
        }
        one += weight * a as u32;
        two += weight * b as u32;
    };
    if bar > 0 {
        for d in ALL_ROLLS {
            let hit = hit_mask(&m, bar, d);
            tally(d.weight(), hit, hits_masks(&m, bar, d));
        }
    } else {
        let (direct, landed) = m.die_masks();
        for d1 in 2..=6usize {
            for d2 in 1..d1 {
                let (hit, t) = m.non_double_shots(&direct, &landed, d1, d2);
                tally(2, hit, (hit != 0, t));
            }
        }
        for d in 1..=6u8 {
            let dice = Dice::new_unchecked(d, d);
            let hit = hit_mask(&m, 0, dice);
            tally(1, hit, hits_masks(&m, 0, dice));
        }
    }
    Shots {
        one: one as f32 / 36.0,
        two: two as f32 / 36.0,
        loss_expected: loss_sum as f32 / 36.0,
        loss_worst: worst,
    }
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
fn hit_mask(m: &Masks, bar: u8, dice: Dice) -> u32 {
    let open = !m.blocked & BOARD;
    let (d1, d2) = (dice.high() as u32, dice.low() as u32);
    if m.blots == 0 {
        return 0;
    }
    if d1 != d2 {
        if bar >= 2 {
            return m.blots & ((1 << (25 - d1)) | (1 << (25 - d2)));
        }
        let board_sources = m.sources & BOARD;
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
    let mut s = m.sources & BOARD;
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
/// block it. The same count as encoding 1's escape feature, from `escape_patterns`:
/// the non-doubles and, for each double that gets past with its landings inside the
/// window, one look at the landing point beyond it.
#[inline]
pub fn escapes36(blocked: u32, p: usize) -> u32 {
    let pattern = if p >= 13 {
        (blocked >> (p - 12)) & 0xFFF
    } else {
        (blocked << (12 - p)) & 0xFFF
    };
    if pattern == 0 {
        return 36;
    }
    let e = escape_patterns()[pattern as usize];
    let mut count = e.non_doubles as u32;
    let mut dice = e.doubles;
    // Slot q is bit q + 24: slots at or below 0 (off the board) read as open.
    let ext = (blocked as u64) << 24;
    while dice != 0 {
        let a = dice.trailing_zeros() as usize;
        dice &= dice - 1;
        let landing = p + 24 - e.landing[a] as usize;
        count += ((ext >> landing) & 1 == 0) as u32;
    }
    count
}

/// What one pattern of blocked points in front of a checker decides about its escapes.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct EscapePattern {
    /// Non-double rolls (of the 30) that get past the furthest blocked point.
    non_doubles: u8,
    /// Bit a set: with the double a-a, the checker's landings before it gets past are
    /// all open (and it gets past within four moves).
    doubles: u8,
    /// For such a double, how far ahead it lands once past: the escape needs that
    /// landing point open too, and it may lie beyond the 12 points.
    landing: [u8; 7],
}

/// For each pattern of blocked points among the 12 points in front of a checker (bit 11
/// = the point just in front, bit 0 = twelve points ahead), its [`EscapePattern`].
fn escape_patterns() -> &'static [EscapePattern; 4096] {
    static TABLE: std::sync::OnceLock<Box<[EscapePattern; 4096]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let non_doubles = escape_table();
        let mut t = Box::new([EscapePattern::default(); 4096]);
        for (pattern, entry) in t.iter_mut().enumerate().skip(1) {
            entry.non_doubles = non_doubles[pattern];
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
                if open_before {
                    entry.doubles |= 1 << a;
                    entry.landing[a] = (moves * a) as u8;
                }
            }
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
        let open = ((!blocked & BOARD) as u64) << 6;
        moves += c * POP6[((open >> p) & 0x3F) as usize] as u32;
    }
    made &= BOARD;
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
    let mut escapes = 0u32;
    let mut trapped = 0u32;
    for p in 19..=25 {
        let n = s[p].max(0) as u32;
        if n > 0 {
            escapes += n * escapes36(blocked, p);
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
        least = least.min(escapes36(blocked, p));
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
        if k == 0 {
            0.0
        } else {
            let mean = sum as f64 / count as f64;
            let sq = s2 as f64 - 2.0 * mean * s1 as f64 + mean * mean * k as f64;
            ((sq / k as f64 / 576.0) as f32).clamp(0.0, 1.0)
        }
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
const POP6: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    t
};

/// Expected number of `bar` checkers that fail to enter against the blocked points
/// 19..=24 (entry with die d lands on 25 - d).
fn expected_left_on_bar(bar: u32, blocked: u32) -> f32 {
    let open = |d: u32| blocked & (1 << (25 - d)) == 0;
    let mut left = 0u32;
    for a in 1..=6u32 {
        for b in 1..=6u32 {
            let entered = if a == b {
                if open(a) {
                    bar.min(4)
                } else {
                    0
                }
            } else {
                bar.min(open(a) as u32 + open(b) as u32)
            };
            left += bar - entered;
        }
    }
    left as f32 / 36.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::encoding;
    use crate::eval::Evaluator;

    fn same(a: &SparseInput, b: &SparseInput) -> bool {
        a.len == b.len
            && a.index[..a.len] == b.index[..b.len]
            && a.value[..a.len]
                .iter()
                .zip(&b.value[..b.len])
                .all(|(x, y)| x.to_bits() == y.to_bits())
    }

    /// Every position of 400 seeded games of random plays and 200 of the nets' plays,
    /// and each of them with the sides swapped: both encodings give these inputs.
    #[test]
    fn the_encoders_give_the_reference_inputs_bit_for_bit() {
        let mut positions: Vec<Position> = crate::testing::random_game_positions(31, 400)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        // And games of the shipped nets' greedy play: the positions real play meets.
        let net = crate::eval::NeuralEvaluator::default_nets().expect("embedded weights");
        let greedy = |_: &Position, _: crate::game::Dice, plays: &[crate::game::Play]| {
            let value = |k: usize| -net.evaluate(&plays[k].next_position()).equity();
            (0..plays.len())
                .max_by(|&a, &b| value(a).total_cmp(&value(b)))
                .unwrap_or(0)
        };
        positions.extend(
            crate::testing::seeded_game_positions(greedy, 32, 200)
                .into_iter()
                .map(|(p, _)| p),
        );
        let (mut got, mut want) = (SparseInput::default(), SparseInput::default());
        let mut checked = 0;
        for p in positions.iter().flat_map(|p| [*p, p.swap()]) {
            if p.is_game_over() {
                continue;
            }
            encoding::encode(&p, &mut got);
            encode(&p, &mut want);
            assert!(same(&got, &want), "encoding 1 differs on {p:?}");
            super::super::inputs_v2::encode_v2(&p, &mut got);
            encode_v2(&p, &mut want);
            assert!(same(&got, &want), "encoding 2 differs on {p:?}");
            checked += 1;
        }
        assert!(checked > 50_000, "only {checked} positions");
    }
}
