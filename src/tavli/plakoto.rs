//! Plakoto (section 4 of the rules text): no hitting; a lone opposing checker is pinned by
//! landing on it (PL2-PL6); a pinned checker cannot move and blocks its point for its own
//! side while pinned; mother win and tie end the game after any step (PL8, PL9); no
//! bearing off while a checker of the side is pinned unless `pinned_counts_home` (PL10).

use super::position::{TavliPosition, CHECKERS};
use super::search::StepRules;
use super::{GameEnd, Rules};

/// The Plakoto step rules.
#[derive(Debug)]
pub struct Plakoto;

const MOTHER: u32 = 1 << 24;

impl StepRules for Plakoto {
    // Pins change the opponent's pin set, which is hashed and compared; his counts never
    // change.
    const OPPONENT_FIXED: bool = true;
    type Ctx = ();
    fn context(_: &TavliPosition, _: &Rules) {}

    #[inline]
    fn sources(pos: &TavliPosition, _: &()) -> u32 {
        super::position::occupancy(&pos.sides[0]) & !pos.pins[0]
    }

    #[inline]
    fn step(
        pos: &TavliPosition,
        from: usize,
        die: u8,
        rules: &Rules,
        _: &(),
    ) -> Option<(TavliPosition, u8, bool)> {
        let me = &pos.sides[0];
        if me[from] == 0 || pos.pins[0] >> from & 1 == 1 {
            return None;
        }
        let to = from as isize - die as isize;
        let mut p = *pos;
        let mut mark = false;
        if to >= 1 {
            let to = to as usize;
            let q = 25 - to;
            let b = pos.sides[1][q];
            if b >= 2 {
                return None;
            }
            if b == 1 {
                if pos.pins[0] >> to & 1 == 1 {
                    // A single opposing pinner blocks like a made point (PL3).
                    return None;
                }
                if pos.pins[1] >> q & 1 == 0 {
                    // A lone opposing checker: landing pins it.
                    p.pins[1] |= 1 << q;
                    mark = true;
                }
            }
            p.sides[0][to] += 1;
        } else {
            // Bearing off (C6, PL10).
            if (7..=24).any(|m| me[m] > 0) {
                return None;
            }
            if pos.pins[0] != 0 && !rules.pinned_counts_home {
                return None;
            }
            if to < 0 && (from + 1..=6).any(|m| me[m] > 0) {
                return None;
            }
        }
        p.sides[0][from] -= 1;
        if p.sides[0][from] == 0 {
            // The last pinner left: the pinned checker is free (PL5).
            p.pins[1] &= !(1 << (25 - from));
        }
        Some((p, to.max(0) as u8, mark))
    }

    #[inline]
    fn end(pos: &TavliPosition) -> Option<GameEnd> {
        if pos.pins[0] & pos.pins[1] & MOTHER != 0 {
            return Some(GameEnd::Tie);
        }
        if pos.pins[1] & MOTHER != 0 && pos.sides[0][24] == 0 {
            return Some(GameEnd::Win(2));
        }
        // Every checker borne off (a branch-free scan first: most positions have some).
        if pos.sides[0].iter().fold(0u8, |a, &c| a | c) != 0 {
            return None;
        }
        if pos.off(0) == CHECKERS {
            return Some(GameEnd::Win(if pos.off(1) == 0 { 2 } else { 1 }));
        }
        None
    }
}
