//! The board, always seen from the side to act.
//!
//! Slot layout of [`Position`] (the "mover" is the side to act):
//!
//! ```text
//!  slot 0        the opponent's bar (opponent checkers, stored negative)
//!  slots 1..=24  points numbered from the mover's side: 1 is the mover's ace point,
//!                the mover moves 24 -> 1 and bears off below 1; positive counts are the
//!                mover's checkers, negative counts the opponent's
//!  slot 25       the mover's bar (mover checkers, positive)
//! ```
//!
//! Borne-off checkers are implicit: 15 minus the checkers on the board. The opponent's
//! own point `p` is the mover's point `25 - p`, so swapping sides reverses the slots and
//! negates them.

use std::fmt;

/// Checkers per side.
pub const CHECKERS: u8 = 15;
/// Index of the mover's bar.
pub const BAR: usize = 25;
/// Index of the opponent's bar.
pub const OPP_BAR: usize = 0;

/// Why a set of checker counts is not a backgammon position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionError {
    /// A side has more than 15 checkers on the board.
    TooManyCheckers { side: Side, count: u32 },
    /// A bar slot holds checkers of the wrong side.
    WrongSideOnBar { slot: usize },
    /// Both sides have borne off all their checkers.
    BothFinished,
}

/// The two sides of a position relative to the side to act.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The side to act.
    Mover,
    /// The other side.
    Opponent,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::TooManyCheckers { side, count } => {
                write!(f, "{side:?} has {count} checkers on the board (at most 15)")
            }
            PositionError::WrongSideOnBar { slot } => {
                write!(f, "bar slot {slot} holds the other side's checkers")
            }
            PositionError::BothFinished => write!(f, "both sides have borne off every checker"),
        }
    }
}

impl std::error::Error for PositionError {}

/// Bit i of the result: the top bit of byte i of `x` (eight byte-wise flags, one per
/// board slot, gathered into a mask). Byte i's bit, moved to bit 8i, lands on bit 56 + i
/// of the product; no two partial products overlap, so nothing carries.
#[inline]
pub(crate) fn top_bits(x: u64) -> u32 {
    ((((x >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080)) >> 56) as u32
}

/// A valid backgammon position from the side to act's view. See the module docs for
/// the slot layout. Every value of this type has at most 15 checkers per side, bars
/// holding only their own side's checkers.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(C, align(16))]
pub struct Position {
    pub(crate) slots: [i8; 26],
    /// Always zero. With it the type is 32 initialised bytes aligned to 16, which move
    /// generation reads and writes as two 16-byte vectors.
    pad: [i8; 6],
}

/// Game classification used to pick evaluators and search bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The checkers can still meet.
    Contact,
    /// No further contact is possible: a pure race.
    Race,
}

/// How a finished game was won, counting points as in cubeless money play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameResult {
    Single = 1,
    Gammon = 2,
    Backgammon = 3,
}

impl GameResult {
    /// Points the result is worth at cube value 1.
    pub fn points(self) -> i32 {
        self as i32
    }
}

impl Position {
    /// The standard starting position.
    pub const OPENING: Position = Position::with_slots([
        0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0,
    ]);

    /// Wraps slot counts already known to be valid.
    #[inline]
    const fn with_slots(slots: [i8; 26]) -> Position {
        Position { slots, pad: [0; 6] }
    }

    /// Builds a position from signed slot counts (layout in the module docs).
    pub fn from_slots(slots: [i8; 26]) -> Result<Position, PositionError> {
        let mut mine = 0u32;
        let mut theirs = 0u32;
        for (i, &c) in slots.iter().enumerate() {
            if c > 0 {
                if i == OPP_BAR {
                    return Err(PositionError::WrongSideOnBar { slot: i });
                }
                mine += c as u32;
            } else if c < 0 {
                if i == BAR {
                    return Err(PositionError::WrongSideOnBar { slot: i });
                }
                theirs += c.unsigned_abs() as u32;
            }
        }
        if mine > CHECKERS as u32 {
            return Err(PositionError::TooManyCheckers {
                side: Side::Mover,
                count: mine,
            });
        }
        if theirs > CHECKERS as u32 {
            return Err(PositionError::TooManyCheckers {
                side: Side::Opponent,
                count: theirs,
            });
        }
        if mine == 0 && theirs == 0 {
            return Err(PositionError::BothFinished);
        }
        Ok(Position::with_slots(slots))
    }

    /// Builds a position from each side's checker counts on its own points:
    /// `mover[i]` for i in 0..24 is the mover's point i+1, `mover[24]` its bar; likewise
    /// `opponent` on the opponent's own numbering. This is gnubg's `TanBoard` layout.
    pub fn from_sides(mover: &[u8; 25], opponent: &[u8; 25]) -> Result<Position, PositionError> {
        let mut slots = [0i8; 26];
        for p in 1..=24 {
            let m = mover[p - 1];
            let o = opponent[24 - p];
            if m > 0 && o > 0 {
                return Err(PositionError::WrongSideOnBar { slot: p });
            }
            if m > CHECKERS || o > CHECKERS {
                return Err(PositionError::TooManyCheckers {
                    side: if m > CHECKERS {
                        Side::Mover
                    } else {
                        Side::Opponent
                    },
                    count: m.max(o) as u32,
                });
            }
            slots[p] = m as i8 - o as i8;
        }
        if mover[24] > CHECKERS || opponent[24] > CHECKERS {
            return Err(PositionError::TooManyCheckers {
                side: if mover[24] > CHECKERS {
                    Side::Mover
                } else {
                    Side::Opponent
                },
                count: mover[24].max(opponent[24]) as u32,
            });
        }
        slots[BAR] = mover[24] as i8;
        slots[OPP_BAR] = -(opponent[24] as i8);
        Position::from_slots(slots)
    }

    /// Each side's checker counts on its own points (gnubg's `TanBoard`): index i is
    /// point i+1, index 24 the bar. Returns (mover, opponent).
    pub fn to_sides(&self) -> ([u8; 25], [u8; 25]) {
        let mut mover = [0u8; 25];
        let mut opp = [0u8; 25];
        for p in 1..=24 {
            let c = self.slots[p];
            if c > 0 {
                mover[p - 1] = c as u8;
            } else if c < 0 {
                opp[24 - p] = c.unsigned_abs();
            }
        }
        mover[24] = self.slots[BAR] as u8;
        opp[24] = self.slots[OPP_BAR].unsigned_abs();
        (mover, opp)
    }

    /// Signed slot counts (layout in the module docs).
    #[inline]
    pub fn slots(&self) -> &[i8; 26] {
        &self.slots
    }

    /// Signed count on one slot.
    #[inline]
    pub fn at(&self, slot: usize) -> i8 {
        self.slots[slot]
    }

    /// The same position seen from the other side.
    #[inline]
    pub fn swap(&self) -> Position {
        let mut slots = [0i8; 26];
        for i in 0..26 {
            slots[i] = -self.slots[25 - i];
        }
        Position::with_slots(slots)
    }

    /// The mover's checkers on its bar.
    #[inline]
    pub fn bar(&self) -> u8 {
        self.slots[BAR] as u8
    }

    /// The opponent's checkers on its bar.
    #[inline]
    pub fn opp_bar(&self) -> u8 {
        self.slots[OPP_BAR].unsigned_abs()
    }

    /// Bit i set where slot i holds mover checkers, and where it holds opponent ones.
    #[inline(always)]
    fn occupied(&self) -> (u32, u32) {
        let [mover, _, _, opponent] = self.slot_masks();
        (mover, opponent)
    }

    /// Bit i of each mask set where slot i holds, in order: one or more of the mover's
    /// checkers, two or more, exactly one, and any of the opponent's. Byte comparisons
    /// and mask moves on SSE2 (every x86-64 processor has it).
    #[inline(always)]
    pub fn slot_masks(&self) -> [u32; 4] {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            use std::arch::x86_64::{
                __m128i, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_movemask_epi8, _mm_set1_epi8,
                _mm_setzero_si128,
            };
            // SAFETY: `Position` is `repr(C, align(16))` with 32 initialised bytes (26
            // slots and 6 zero pad bytes), the size of `[__m128i; 2]` (which `transmute`
            // checks at compile time); any bytes are a valid `__m128i`.
            let [lo, hi]: [__m128i; 2] = unsafe { std::mem::transmute(*self) };
            // SAFETY: this block compiles only with SSE2 enabled for the target (its cfg).
            unsafe {
                let mask = |l: __m128i, h: __m128i| {
                    (_mm_movemask_epi8(l) as u32 & 0xFFFF)
                        | (_mm_movemask_epi8(h) as u32 & 0xFFFF) << 16
                };
                let (zero, one) = (_mm_setzero_si128(), _mm_set1_epi8(1));
                [
                    mask(_mm_cmpgt_epi8(lo, zero), _mm_cmpgt_epi8(hi, zero)),
                    mask(_mm_cmpgt_epi8(lo, one), _mm_cmpgt_epi8(hi, one)),
                    mask(_mm_cmpeq_epi8(lo, one), _mm_cmpeq_epi8(hi, one)),
                    mask(lo, hi),
                ]
            }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            let mut masks = [0u32; 4];
            for (i, &c) in self.slots.iter().enumerate() {
                masks[0] |= ((c > 0) as u32) << i;
                masks[1] |= ((c > 1) as u32) << i;
                masks[2] |= ((c == 1) as u32) << i;
                masks[3] |= ((c < 0) as u32) << i;
            }
            masks
        }
    }

    /// Checkers the mover has borne off.
    pub fn off(&self) -> u8 {
        let on: i32 = self
            .slots
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| c as i32)
            .sum();
        CHECKERS - on as u8
    }

    /// Checkers the opponent has borne off.
    pub fn opp_off(&self) -> u8 {
        let on: i32 = self
            .slots
            .iter()
            .filter(|&&c| c < 0)
            .map(|&c| -(c as i32))
            .sum();
        CHECKERS - on as u8
    }

    /// The mover's pip count.
    pub fn pips(&self) -> u32 {
        (1..26)
            .filter(|&i| self.slots[i] > 0)
            .map(|i| i as u32 * self.slots[i] as u32)
            .sum()
    }

    /// The opponent's pip count.
    pub fn opp_pips(&self) -> u32 {
        (0..25)
            .filter(|&i| self.slots[i] < 0)
            .map(|i| (25 - i) as u32 * self.slots[i].unsigned_abs() as u32)
            .sum()
    }

    /// Highest slot holding a mover checker (25 when on the bar), 0 when all are off.
    #[inline]
    pub fn highest(&self) -> usize {
        // Slot 0 (the opponent's bar) never holds a mover checker.
        let (mover, _) = self.occupied();
        (32 - mover.leading_zeros() as usize).saturating_sub(1)
    }

    /// Lowest mover-numbered slot holding an opponent checker (0 for its bar), 26 if none.
    #[inline]
    pub fn opp_rearmost(&self) -> usize {
        // Slot 25 (the mover's bar) never holds an opponent checker.
        let (_, opponent) = self.occupied();
        if opponent == 0 {
            26
        } else {
            opponent.trailing_zeros() as usize
        }
    }

    /// Whether the mover plays a back game: in contact, it holds two or more points of
    /// the opponent's home board (its own points 19 to 24, two checkers or more each) and
    /// trails in the race by 30 pips or more.
    pub fn mover_back_game(&self) -> bool {
        self.phase() == Phase::Contact
            && (19..=24).filter(|&i| self.slots[i] >= 2).count() >= 2
            && self.pips() >= self.opp_pips() + 30
    }

    /// Whether either side plays a back game ([`Position::mover_back_game`]).
    pub fn back_game(&self) -> bool {
        self.mover_back_game() || self.swap().mover_back_game()
    }

    /// Contact while some mover checker stands behind some opponent checker.
    #[inline]
    pub fn phase(&self) -> Phase {
        let (mover, opponent) = self.occupied();
        // A mover checker above the opponent's lowest: the mover's highest bit above
        // the opponent's lowest (none of either: no contact).
        let lowest_opponent = opponent & opponent.wrapping_neg();
        if mover > lowest_opponent && lowest_opponent != 0 {
            Phase::Contact
        } else {
            Phase::Race
        }
    }

    /// True when one side has borne off all its checkers.
    pub fn is_game_over(&self) -> bool {
        self.off() == CHECKERS || self.opp_off() == CHECKERS
    }

    /// If the mover has borne off all checkers, what it has won.
    ///
    /// After a play the mover may have just finished; call this before swapping.
    pub fn mover_result(&self) -> Option<GameResult> {
        if self.off() < CHECKERS {
            return None;
        }
        Some(self.result_against_opponent())
    }

    /// If the opponent has borne off all checkers, what the mover has lost.
    pub fn opponent_result(&self) -> Option<GameResult> {
        if self.opp_off() < CHECKERS {
            return None;
        }
        Some(self.swap().result_against_opponent())
    }

    /// The size of a win for the mover over the opponent as the opponent stands now.
    fn result_against_opponent(&self) -> GameResult {
        if self.opp_off() > 0 {
            return GameResult::Single;
        }
        // Backgammon: the loser still has a checker on the bar or in the winner's home
        // board (the mover's points 1..6, seen from the mover).
        if self.slots[OPP_BAR] < 0 || (1..=6).any(|p| self.slots[p] < 0) {
            GameResult::Backgammon
        } else {
            GameResult::Gammon
        }
    }

    /// A compact text form for debugging and test literals: the 26 slots.
    pub fn debug_string(&self) -> String {
        let parts: Vec<String> = self.slots.iter().map(|c| c.to_string()).collect();
        parts.join(",")
    }

    /// Apply one checker step in place: from `from` (25 for the bar) by `die` pips.
    /// The caller guarantees legality. Returns true if it hit a blot.
    #[inline]
    pub(crate) fn apply_step(&mut self, from: usize, die: u8) -> bool {
        self.slots[from] -= 1;
        let to = from as i32 - die as i32;
        if to >= 1 {
            let to = to as usize;
            if self.slots[to] == -1 {
                self.slots[to] = 1;
                self.slots[OPP_BAR] -= 1;
                return true;
            }
            self.slots[to] += 1;
        }
        false
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::OPENING
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position[{}]", self.debug_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1-3 back game (the opponent holds the mover's 1 and 3 points, 73 pips behind) is
    /// the opponent's back game, not the mover's; with two anchors but level in the race,
    /// or one anchor far behind, it is nobody's.
    #[test]
    #[allow(clippy::unwrap_used)]
    fn back_games_are_two_deep_anchors_far_behind_in_the_race() {
        // The mover's points 2, 4, 5, 6, 8 (3), 9, 13 and 18; the opponent's 3, 4, 6, 8 and
        // 13 (2 each), 22 (2) and 24 (3), in its own numbering.
        let mover = [
            (2, 2),
            (4, 2),
            (5, 2),
            (6, 2),
            (8, 3),
            (9, 1),
            (13, 2),
            (18, 1),
        ];
        let theirs = [(3, 2), (4, 2), (6, 2), (8, 2), (13, 2), (22, 2), (24, 3)];
        let build = |theirs: &[(usize, i8)]| {
            let mut slots = [0i8; 26];
            for &(p, n) in &mover {
                slots[p] = n;
            }
            for &(p, n) in theirs {
                slots[25 - p] -= n;
            }
            Position::from_slots(slots).unwrap()
        };
        let pos = build(&theirs);
        assert_eq!((pos.pips(), pos.opp_pips()), (111, 184));
        assert!(!pos.mover_back_game() && pos.swap().mover_back_game() && pos.back_game());
        // One anchor: the 22 point's checkers moved to the 13 point.
        let one = [(3, 2), (4, 2), (6, 2), (8, 2), (13, 4), (24, 3)];
        assert!(!build(&one).back_game());
        // Opening-like: both sides level in the race, nobody's back game.
        assert!(!Position::OPENING.back_game());
    }

    /// The word-wise scans and the slot masks give what slot-by-slot loops give.
    #[test]
    fn occupancy_scans_match_the_slots() {
        let mut seen = 0;
        for (pos, _) in crate::testing::random_game_positions(91, 60) {
            for p in [pos, pos.swap()] {
                let s = p.slots();
                let highest = (1..26).rev().find(|&i| s[i] > 0).unwrap_or(0);
                let rearmost = (0..25).find(|&i| s[i] < 0).unwrap_or(26);
                let on: i32 = s.iter().map(|&c| c.max(0) as i32).sum();
                let opp_on: i32 = s.iter().map(|&c| c.min(0).abs() as i32).sum();
                assert_eq!(p.highest(), highest, "{p:?}");
                assert_eq!(p.opp_rearmost(), rearmost, "{p:?}");
                assert_eq!(p.off() as i32, 15 - on, "{p:?}");
                assert_eq!(p.opp_off() as i32, 15 - opp_on, "{p:?}");
                let contact = highest > rearmost;
                assert_eq!(p.phase() == Phase::Contact, contact, "{p:?}");
                let bits = |f: &dyn Fn(i8) -> bool| {
                    (0..26).filter(|&i| f(s[i])).fold(0u32, |m, i| m | 1 << i)
                };
                let want = [
                    bits(&|c| c > 0),
                    bits(&|c| c > 1),
                    bits(&|c| c == 1),
                    bits(&|c| c < 0),
                ];
                assert_eq!(p.slot_masks(), want, "{p:?}");
                seen += 1;
            }
        }
        assert!(seen > 1000);
        // All off, and a side with no checker left on the board.
        let mut s = [0i8; 26];
        s[3] = -2;
        let p = Position::from_slots(s).expect("valid");
        assert_eq!(
            (p.highest(), p.opp_rearmost(), p.off(), p.opp_off()),
            (0, 3, 15, 13)
        );
        assert_eq!(p.phase(), Phase::Race);
        let p = p.swap();
        assert_eq!(
            (p.highest(), p.opp_rearmost(), p.off(), p.opp_off()),
            (22, 26, 13, 15)
        );
        assert_eq!(p.phase(), Phase::Race);
    }

    #[test]
    fn opening_is_symmetric_and_counts_fifteen() {
        let p = Position::OPENING;
        assert_eq!(p.swap(), p);
        assert_eq!(p.off(), 0);
        assert_eq!(p.opp_off(), 0);
        assert_eq!(p.pips(), 167);
        assert_eq!(p.opp_pips(), 167);
        assert_eq!(p.phase(), Phase::Contact);
    }

    #[test]
    fn swap_is_an_involution() {
        let mut s = Position::OPENING.slots;
        s[24] = 1;
        s[25] = 1;
        s[0] = -1;
        s[1] = -1;
        let p = Position::from_slots(s).expect("valid");
        assert_eq!(p.swap().swap(), p);
        assert_eq!(p.swap().bar(), p.opp_bar());
    }

    #[test]
    fn rejects_invalid_counts() {
        let mut s = [0i8; 26];
        s[6] = 16;
        assert!(matches!(
            Position::from_slots(s),
            Err(PositionError::TooManyCheckers { .. })
        ));
        let mut s = [0i8; 26];
        s[0] = 2;
        assert_eq!(
            Position::from_slots(s),
            Err(PositionError::WrongSideOnBar { slot: 0 })
        );
        assert_eq!(
            Position::from_slots([0; 26]),
            Err(PositionError::BothFinished)
        );
    }

    #[test]
    fn results_single_gammon_backgammon() {
        // Mover has borne off everything.
        let mut s = [0i8; 26];
        s[20] = -15;
        let p = Position::from_slots(s).expect("valid");
        assert_eq!(p.mover_result(), Some(GameResult::Gammon));
        let mut s = [0i8; 26];
        s[3] = -1;
        s[20] = -14;
        let p = Position::from_slots(s).expect("valid");
        assert_eq!(p.mover_result(), Some(GameResult::Backgammon));
        let mut s = [0i8; 26];
        s[0] = -1;
        s[20] = -14;
        let p = Position::from_slots(s).expect("valid");
        assert_eq!(p.mover_result(), Some(GameResult::Backgammon));
        let mut s = [0i8; 26];
        s[20] = -14;
        let p = Position::from_slots(s).expect("valid");
        assert_eq!(p.mover_result(), Some(GameResult::Single));
        assert_eq!(p.swap().opponent_result(), Some(GameResult::Single));
    }

    #[test]
    fn race_detection() {
        let mut s = [0i8; 26];
        s[5] = 15;
        s[20] = -15;
        let p = Position::from_slots(s).expect("valid");
        assert_eq!(p.phase(), Phase::Race);
        s[5] = 14;
        s[21] = 1;
        let p = Position::from_slots(s).expect("valid");
        assert_eq!(p.phase(), Phase::Contact);
    }

    #[test]
    fn sides_round_trip() {
        let p = Position::OPENING;
        let (m, o) = p.to_sides();
        assert_eq!(m[5], 5);
        assert_eq!(m[23], 2);
        assert_eq!(Position::from_sides(&m, &o).expect("valid"), p);
    }
}
