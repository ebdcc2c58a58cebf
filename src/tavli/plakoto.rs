//! Plakoto (section 4 of the rules text): no hitting; a lone opposing checker is pinned by
//! landing on it (PL2-PL6); a pinned checker cannot move and blocks its point for its own
//! side while pinned; mother win and tie end the game after any step (PL8, PL9); no
//! bearing off while a checker of the side is pinned unless `pinned_counts_home` (PL10).

use super::movegen::{movable_mask, Compact, StepRules};
use super::position::{turned, TavliPosition, CHECKERS};
use super::{GameEnd, RuleSwitches};

/// The Plakoto step rules.
#[derive(Debug)]
pub struct Plakoto;

const MOTHER: u32 = 1 << 24;

/// What a Plakoto search computes once (the opponent's checkers do not move), as bits of
/// the mover's points.
#[derive(Debug, Clone, Copy)]
pub struct PlakotoCtx {
    /// The opponent has two or more checkers there.
    made: u32,
    /// The opponent has exactly one checker there.
    single: u32,
    /// The mover's own pinned checkers (they cannot move; the opponent's pinner there
    /// blocks the point, PL3).
    pinned: u32,
    /// Bearing off is allowed once every checker is home (PL10).
    may_bear_off: bool,
    /// The mover's mother is pinned.
    mother_pinned: bool,
    /// The opponent has borne off a checker (a win is then single).
    opp_off: bool,
}

impl StepRules for Plakoto {
    type Ctx = PlakotoCtx;

    fn context(pos: &TavliPosition, rules: &RuleSwitches) -> PlakotoCtx {
        let (made, single) = super::movegen::opposing(pos);
        PlakotoCtx {
            made,
            single,
            pinned: pos.pins[0],
            may_bear_off: pos.pins[0] == 0 || rules.pinned_counts_home,
            mother_pinned: pos.pins[0] & MOTHER != 0,
            opp_off: pos.off(1) > 0,
        }
    }

    #[inline]
    fn marks(pos: &TavliPosition) -> u32 {
        turned(pos.pins[1])
    }

    #[inline]
    fn store_marks(after: &mut TavliPosition, s: &Compact) {
        after.pins[1] = turned(s.marks);
    }

    #[inline]
    fn sources(s: &Compact, ctx: &PlakotoCtx) -> u32 {
        s.occ & !ctx.pinned
    }

    #[inline]
    fn movable(s: &Compact, die: u8, ctx: &PlakotoCtx) -> u32 {
        // A single opposing pinner blocks like a made point (PL3).
        let open = !(ctx.made | ctx.single & ctx.pinned);
        movable_mask(s.occ, Self::sources(s, ctx), open, die, ctx.may_bear_off)
    }

    #[inline]
    fn apply(s: &Compact, from: usize, die: u8, ctx: &PlakotoCtx) -> (Compact, u8, bool) {
        let mut n = *s;
        let (to, mark, emptied) = n.shift(from, die, ctx.single);
        if emptied {
            // The last pinner left: the pinned checker is free (PL5).
            n.marks &= !(1 << from);
        }
        (n, to, mark)
    }

    /// The blocked points, the mover's pinned checkers and whether it may bear off are
    /// fixed for the play; the game-ending steps are [`Self::end`]'s.
    #[inline]
    fn order_free(_: &Compact, _: &PlakotoCtx) -> bool {
        true
    }

    /// No 15th checker borne off with more than four on the board, and no lone opposing
    /// checker on the mover's 1-point (only a pin of the opponent's mother there ends a
    /// game, PL8, PL9).
    #[inline]
    fn quiet(s: &Compact, ctx: &PlakotoCtx, _: u8, _: u8) -> bool {
        s.off + 4 < CHECKERS && ctx.single & 2 == 0
    }

    #[inline]
    fn end(s: &Compact, ctx: &PlakotoCtx) -> Option<GameEnd> {
        // The opponent's mother stands on the mover's 1-point.
        let his_mother = s.marks & 2 != 0;
        if his_mother && ctx.mother_pinned {
            return Some(GameEnd::Tie);
        }
        if his_mother && s.occ & MOTHER == 0 {
            return Some(GameEnd::Win(2));
        }
        if s.off == CHECKERS {
            return Some(GameEnd::Win(if ctx.opp_off { 1 } else { 2 }));
        }
        None
    }
}
