//! The position of any of the games, always seen from the side to act.
//!
//! Each side's checkers are counted on its own points (24 = its first point, 1 = its last
//! before bearing off, 25 = its bar in Portes); borne-off checkers are 15 minus the
//! checkers on the board. In Plakoto each side also has the set of its own points where
//! its single checker is pinned (bit `m` of `pins[side]`). Turning the board over for the
//! other side swaps the arrays and the pin sets.

use std::fmt;

use super::GameEnd;
use crate::game::position::top_bits;
use crate::game::Variant;

/// Checkers per side.
pub const CHECKERS: u8 = 15;
/// The mover's bar in its own numbering (Portes).
pub const BAR: usize = 25;

/// Why a set of counts is not a position of the variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TavliPositionError {
    /// A side has more than 15 checkers on the board.
    TooManyCheckers { mover: bool, count: u32 },
    /// Checkers on the bar in a game without one.
    BarNotAllowed,
    /// Pins in a game other than Plakoto.
    PinNotAllowed,
    /// Both sides on one point where the game does not allow it (point in the mover's
    /// numbering).
    SharedPoint { point: u8 },
    /// A pin where there is not exactly one checker of the pinned side under at least one
    /// of the other (point in the pinned side's numbering).
    BadPin { point: u8, mover: bool },
    /// Both sides have borne off every checker.
    BothFinished,
}

impl fmt::Display for TavliPositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who = |m: bool| {
            if m {
                "the side to move"
            } else {
                "the opponent"
            }
        };
        match self {
            TavliPositionError::TooManyCheckers { mover, count } => {
                write!(f, "{} has {count} checkers (at most 15)", who(*mover))
            }
            TavliPositionError::BarNotAllowed => {
                write!(f, "only Portes and backgammon have a bar")
            }
            TavliPositionError::PinNotAllowed => write!(f, "only Plakoto has pinned checkers"),
            TavliPositionError::SharedPoint { point } => {
                write!(f, "both sides have checkers on point {point}, which this game does not allow")
            }
            TavliPositionError::BadPin { point, mover } => write!(
                f,
                "{} is marked pinned on its point {point}, which needs exactly one of its checkers under at least one opposing checker",
                who(*mover)
            ),
            TavliPositionError::BothFinished => {
                write!(f, "both sides have borne off every checker")
            }
        }
    }
}

impl std::error::Error for TavliPositionError {}

/// How a finished position ended, from the side to act's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TavliResult {
    MoverWins(u8),
    OpponentWins(u8),
    Tie,
}

impl TavliResult {
    /// Points to the side to act (negative when it lost).
    pub fn mover_points(self) -> i32 {
        match self {
            TavliResult::MoverWins(p) => p as i32,
            TavliResult::OpponentWins(p) => -(p as i32),
            TavliResult::Tie => 0,
        }
    }
}

/// A valid position of one variant from the side to act's view. See the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TavliPosition {
    pub(crate) variant: Variant,
    /// Index 1..=24: the side's own points; 25: its bar; 0 unused (always 0).
    pub(crate) sides: [[u8; 26]; 2],
    /// Bit m: the side's single checker on its own point m is pinned (Plakoto).
    pub(crate) pins: [u32; 2],
}

impl fmt::Debug for TavliPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::notation::position_string(self))
    }
}

/// A side's 26 counts as four little-endian words, eight counts each (bytes 26..32 zero).
#[inline]
fn words(side: &[u8; 26]) -> [u64; 4] {
    // Read straight from the counts: assembling them in a zeroed buffer first would make
    // the last word wait on stores of different widths.
    let word = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&side[8 * i..8 * i + 8]);
        u64::from_le_bytes(b)
    };
    let last = u64::from(u16::from_le_bytes([side[24], side[25]]));
    [word(0), word(1), word(2), last]
}

/// Bit m (0..=25) set where a side's count on m is at least `at_least` (1..=16): each
/// count is at most 15, so adding `0x80 - at_least` to every byte carries into no other.
#[inline]
pub(crate) fn count_mask(side: &[u8; 26], at_least: u8) -> u32 {
    let add = u64::from_le_bytes([0x80 - at_least; 8]);
    let top = 0x8080_8080_8080_8080u64;
    words(side).iter().enumerate().fold(0, |m, (i, &w)| {
        m | top_bits(((w & 0x0f0f_0f0f_0f0f_0f0f) + add) & top) << (8 * i)
    })
}

/// The points 1..=24 of a side's counts that hold a checker, as bits (branch free).
#[inline]
pub(crate) fn occupancy(side: &[u8; 26]) -> u32 {
    count_mask(side, 1) & 0x01ff_fffe
}

/// The points 1..=24 where a side has two or more checkers, as bits.
#[inline]
pub(crate) fn made_points(side: &[u8; 26]) -> u32 {
    count_mask(side, 2) & 0x01ff_fffe
}

/// A side's points 1..=24 as the other side's points in the games whose sides move in
/// opposite directions (bit q becomes bit 25 - q).
#[inline]
pub(crate) fn turned(points: u32) -> u32 {
    (points & 0x01ff_fffe).reverse_bits() >> 6
}

/// A side's counts 0..=25 as four-bit fields: count m in bits 4m..4m+4.
#[inline]
pub(crate) fn nibbles(side: &[u8; 26]) -> u128 {
    let mut out = 0u128;
    for (i, &w) in words(side).iter().enumerate() {
        // Eight bytes, each at most 15, packed pairwise into 32 bits.
        let mut x = w & 0x0f0f_0f0f_0f0f_0f0f;
        x = (x | x >> 4) & 0x00ff_00ff_00ff_00ff;
        x = (x | x >> 8) & 0x0000_ffff_0000_ffff;
        x = (x | x >> 16) & 0xffff_ffff;
        out |= (x as u128) << (32 * i);
    }
    out
}

/// The checkers a side has on the board (its counts summed).
#[inline]
fn on_board(side: &[u8; 26]) -> u32 {
    // Per word: byte pairs summed into four 16-bit lanes, then the lanes summed into the
    // top one (at most 8 * 255, so no lane overflows).
    words(side)
        .iter()
        .map(|&w| {
            let pairs = (w & 0x00ff_00ff_00ff_00ff) + (w >> 8 & 0x00ff_00ff_00ff_00ff);
            (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as u32
        })
        .sum()
}

/// The opponent's own point that is the mover's point `m` (1..=24).
#[inline(always)]
pub fn opp_point(variant: Variant, m: usize) -> usize {
    match variant {
        Variant::Fevga => {
            if m <= 12 {
                m + 12
            } else {
                m - 12
            }
        }
        _ => 25 - m,
    }
}

impl TavliPosition {
    /// Builds a position after checking it is possible in the variant. `mover` and
    /// `opponent` are counts on own points (index 1..=24, 25 the bar, 0 ignored);
    /// `pins` the pin sets (Plakoto; bit m = own point m).
    pub fn new(
        variant: Variant,
        mover: [u8; 26],
        opponent: [u8; 26],
        pins: [u32; 2],
    ) -> Result<TavliPosition, TavliPositionError> {
        let mut sides = [mover, opponent];
        sides[0][0] = 0;
        sides[1][0] = 0;
        for (i, s) in sides.iter().enumerate() {
            let count: u32 = s.iter().map(|&c| c as u32).sum();
            if count > CHECKERS as u32 {
                return Err(TavliPositionError::TooManyCheckers {
                    mover: i == 0,
                    count,
                });
            }
        }
        let has_bar = matches!(variant, Variant::Portes | Variant::Backgammon);
        if !has_bar && (sides[0][BAR] > 0 || sides[1][BAR] > 0) {
            return Err(TavliPositionError::BarNotAllowed);
        }
        if variant != Variant::Plakoto && pins != [0, 0] {
            return Err(TavliPositionError::PinNotAllowed);
        }
        // Bits other than 1..=24 are never valid pins.
        for (i, &set) in pins.iter().enumerate() {
            if set & !0x01ff_fffe != 0 {
                return Err(TavliPositionError::BadPin {
                    point: set.trailing_zeros().min(31) as u8,
                    mover: i == 0,
                });
            }
        }
        for m in 1..=24usize {
            let q = opp_point(variant, m);
            let (a, b) = (sides[0][m], sides[1][q]);
            let (pa, pb) = (pins[0] >> m & 1 == 1, pins[1] >> q & 1 == 1);
            if variant == Variant::Plakoto {
                if pa && (a != 1 || b == 0 || pb) {
                    return Err(TavliPositionError::BadPin {
                        point: m as u8,
                        mover: true,
                    });
                }
                if pb && (b != 1 || a == 0) {
                    return Err(TavliPositionError::BadPin {
                        point: q as u8,
                        mover: false,
                    });
                }
                if a > 0 && b > 0 && !pa && !pb {
                    return Err(TavliPositionError::SharedPoint { point: m as u8 });
                }
            } else if a > 0 && b > 0 {
                return Err(TavliPositionError::SharedPoint { point: m as u8 });
            }
        }
        let p = TavliPosition {
            variant,
            sides,
            pins,
        };
        if p.off(0) == CHECKERS && p.off(1) == CHECKERS {
            return Err(TavliPositionError::BothFinished);
        }
        Ok(p)
    }

    /// The starting position of the variant (PO1, PL1, FE1), first side to act.
    pub fn start(variant: Variant) -> TavliPosition {
        let mut s = [0u8; 26];
        match variant {
            Variant::Portes | Variant::Backgammon => {
                s[24] = 2;
                s[13] = 5;
                s[8] = 3;
                s[6] = 5;
            }
            Variant::Plakoto | Variant::Fevga => s[24] = 15,
        }
        TavliPosition {
            variant,
            sides: [s, s],
            pins: [0, 0],
        }
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Counts of the side to act (`side` 0) or the opponent (1) on its own points
    /// (index 25 the bar, 0 unused).
    pub fn counts(&self, side: usize) -> &[u8; 26] {
        &self.sides[side & 1]
    }

    /// The pin set of a side: bit m = its single checker on its own point m is pinned.
    pub fn pins(&self, side: usize) -> u32 {
        self.pins[side & 1]
    }

    /// Checkers a side has borne off.
    pub fn off(&self, side: usize) -> u8 {
        let on = on_board(&self.sides[side & 1]);
        CHECKERS.saturating_sub(on.min(CHECKERS as u32) as u8)
    }

    /// Bit m set for each of the side's own points 1..=24 that holds one of its checkers.
    #[inline]
    pub fn occupied(&self, side: usize) -> u32 {
        occupancy(&self.sides[side & 1])
    }

    /// Pip count of a side (the bar counts 25).
    pub fn pips(&self, side: usize) -> u32 {
        self.sides[side & 1]
            .iter()
            .enumerate()
            .map(|(i, &c)| i as u32 * c as u32)
            .sum()
    }

    /// The same position with the other side to act.
    pub fn swap(&self) -> TavliPosition {
        TavliPosition {
            variant: self.variant,
            sides: [self.sides[1], self.sides[0]],
            pins: [self.pins[1], self.pins[0]],
        }
    }

    /// Whether a side's mother (its single checker on its 24-point) is pinned.
    pub fn mother_pinned(&self, side: usize) -> bool {
        self.pins[side & 1] >> 24 & 1 == 1
    }

    /// The game's result when the position is finished: a side has borne off all 15
    /// (C7, with backgammon's triple only in backgammon), or in Plakoto a tie (PL9) or a
    /// mother win (PL8).
    pub fn result(&self) -> Option<TavliResult> {
        for side in 0..2 {
            // All borne off: no count left (cheaper than summing them).
            if words(&self.sides[side]).iter().all(|&w| w == 0) {
                let points = self.win_points(side);
                return Some(if side == 0 {
                    TavliResult::MoverWins(points)
                } else {
                    TavliResult::OpponentWins(points)
                });
            }
        }
        if self.variant == Variant::Plakoto {
            let (m0, m1) = (self.mother_pinned(0), self.mother_pinned(1));
            if m0 && m1 {
                return Some(TavliResult::Tie);
            }
            if m1 && self.sides[0][24] == 0 {
                return Some(TavliResult::MoverWins(2));
            }
            if m0 && self.sides[1][24] == 0 {
                return Some(TavliResult::OpponentWins(2));
            }
        }
        None
    }

    /// Points won by `winner`, who has borne off every checker.
    fn win_points(&self, winner: usize) -> u8 {
        let loser = 1 - (winner & 1);
        if self.off(loser) > 0 {
            return 1;
        }
        if self.variant == Variant::Backgammon {
            // The loser has a checker on the bar or in the winner's home board.
            let l = &self.sides[loser];
            if l[BAR] > 0 || (19..=24).any(|p| l[p] > 0) {
                return 3;
            }
        }
        2
    }

    /// [`Self::result`] as the [`GameEnd`] of a step just played by the side to act.
    pub(crate) fn end_for_mover(&self) -> Option<GameEnd> {
        match self.result()? {
            TavliResult::MoverWins(p) => Some(GameEnd::Win(p)),
            TavliResult::Tie => Some(GameEnd::Tie),
            // A step never makes its own side lose; such a position was finished before.
            TavliResult::OpponentWins(_) => None,
        }
    }

    /// The backgammon position with the same checkers (Portes and backgammon only).
    pub fn to_backgammon(&self) -> Option<crate::game::Position> {
        if !matches!(self.variant, Variant::Portes | Variant::Backgammon) {
            return None;
        }
        let mut a = [0u8; 25];
        let mut b = [0u8; 25];
        a.copy_from_slice(&self.sides[0][1..26]);
        b.copy_from_slice(&self.sides[1][1..26]);
        crate::game::Position::from_sides(&a, &b).ok()
    }

    /// The Portes (or backgammon) position with the checkers of `p`.
    #[inline]
    pub fn from_backgammon(variant: Variant, p: &crate::game::Position) -> TavliPosition {
        // Slot m of the position is the mover's point m and the opponent's point 25 - m.
        let slots = p.slots();
        let mut sides = [[0u8; 26]; 2];
        for m in 1..=24 {
            let c = slots[m];
            sides[0][m] = c.max(0) as u8;
            sides[1][25 - m] = (-c).max(0) as u8;
        }
        sides[0][BAR] = slots[25].max(0) as u8;
        sides[1][BAR] = (-slots[0]).max(0) as u8;
        TavliPosition {
            variant: if variant == Variant::Backgammon {
                Variant::Backgammon
            } else {
                Variant::Portes
            },
            sides,
            pins: [0, 0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time readings of a side's counts agree with counting point by point,
    /// on every position of seeded random games of each game and on hand-made extremes.
    #[test]
    fn packed_counts_match_point_by_point() {
        let mut sides: Vec<[u8; 26]> = vec![
            [0; 26],
            {
                let mut s = [0u8; 26];
                s[25] = 15;
                s
            },
            {
                let mut s = [0u8; 26];
                s[1] = 15;
                s
            },
        ];
        for variant in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            for (p, _) in crate::testing::tavli_movegen_set(variant).iter().take(3000) {
                sides.extend_from_slice(&p.sides);
            }
        }
        for side in &sides {
            let (mut occ, mut made, mut packed, mut on) = (0u32, 0u32, 0u128, 0u32);
            for (m, &c) in side.iter().enumerate() {
                if (1..=24).contains(&m) {
                    occ |= u32::from(c > 0) << m;
                    made |= u32::from(c > 1) << m;
                }
                packed |= (c as u128) << (4 * m);
                on += c as u32;
            }
            assert_eq!(occupancy(side), occ, "{side:?}");
            assert_eq!(made_points(side), made, "{side:?}");
            assert_eq!(
                count_mask(side, 1) & 0x03ff_ffff,
                occ | u32::from(side[0] > 0) | u32::from(side[BAR] > 0) << BAR
            );
            assert_eq!(nibbles(side), packed, "{side:?}");
            assert_eq!(on_board(side), on, "{side:?}");
            for q in 1..=24 {
                assert_eq!(turned(occ) >> (25 - q) & 1, occ >> q & 1);
            }
        }
    }
}
