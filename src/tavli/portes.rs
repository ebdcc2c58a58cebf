//! Portes (section 3 of the rules text): movement, hitting, entering and bearing off are
//! backgammon's exactly (PO2, PO3, PO5); what differs is scoring (no triple,
//! [`TavliPosition::result`]), the opening (C8, [`super::opening`]) and C5: a step that
//! bears off the 15th checker ends the play even when another order would use more dice
//! (checker on 2, roll 3-1: 2/off is legal beside 2/1*/off, and the two differ when the 1
//! hits), where backgammon demands both dice.
//!
//! Portes plays come from the shared step search with the step rules below, in the
//! canonical order of backgammon's generator (the last checker borne off within the roll
//! ending the play as C5 has it). The backgammon positions of this module's `generate`
//! come from backgammon's own generator ([`crate::game::generate_plays`]). The naive
//! generator of the tests checks that the rule texts coincide.

use super::movegen::{movable_mask, Compact, StepRules};
use super::position::{TavliPosition, BAR, CHECKERS};
use super::{GameEnd, RuleSwitches, TavliPlay, TavliStep};
use crate::game::Dice;

/// Every distinct legal play of `dice` in the backgammon position `pos`, into `out`.
pub(crate) fn generate(
    pos: &TavliPosition,
    dice: Dice,
    list: &mut crate::game::PlayList,
    out: &mut Vec<TavliPlay>,
) {
    let Some(bg) = pos.to_backgammon() else {
        return;
    };
    crate::game::generate_plays(&bg, dice, list);
    out.reserve(list.len());
    for play in list.iter() {
        let mut steps = [TavliStep::default(); 4];
        for (slot, s) in steps.iter_mut().zip(play.steps()) {
            *slot = TavliStep {
                from: s.from,
                to: s.to,
                mark: s.hit,
            };
        }
        // The position after the play from `pos` and the steps (cheaper than converting
        // the whole backgammon position back).
        let len = play.steps().len() as u8;
        if let Some(p) = TavliPlay::push_from(out, pos, steps, len, None) {
            for st in steps[..len as usize].iter().filter(|st| st.mark) {
                hit(&mut p.after, st.to as usize);
            }
            p.end = p.after.end_for_mover();
        }
    }
}

/// The opponent's lone checker on the mover's point `m` goes to his bar.
#[inline]
fn hit(after: &mut TavliPosition, m: usize) {
    after.sides[1][25 - m] -= 1;
    after.sides[1][BAR] += 1;
}

/// The Portes step rules (PO2, PO3, C6).
#[derive(Debug)]
pub struct Portes;

/// What a Portes search computes once, as bits of the mover's points: where the opponent
/// has two or more checkers, and where one (hit by landing there, unless hit already).
#[derive(Debug, Clone, Copy)]
pub struct PortesCtx {
    made: u32,
    single: u32,
    /// The opponent has borne off a checker (a win is then single).
    opp_off: bool,
}

impl StepRules for Portes {
    type Ctx = PortesCtx;

    fn context(pos: &TavliPosition, _: &RuleSwitches) -> PortesCtx {
        let (made, single) = super::movegen::opposing(pos);
        PortesCtx {
            made,
            single,
            opp_off: pos.off(1) > 0,
        }
    }

    #[inline]
    fn marks(_: &TavliPosition) -> u32 {
        0
    }

    /// The checkers hit go to the opponent's bar (they stay there whatever the mover's
    /// later steps do).
    #[inline]
    fn store_marks(after: &mut TavliPosition, s: &Compact) {
        let mut hits = s.marks;
        while hits != 0 {
            let m = hits.trailing_zeros() as usize;
            hits &= hits - 1;
            hit(after, m);
        }
    }

    #[inline]
    fn sources(s: &Compact, _: &PortesCtx) -> u32 {
        if s.occ >> BAR & 1 == 1 {
            return 1 << BAR;
        }
        s.occ
    }

    #[inline]
    fn movable(s: &Compact, die: u8, ctx: &PortesCtx) -> u32 {
        movable_mask(s.occ, Self::sources(s, ctx), !ctx.made, die, true)
    }

    #[inline]
    fn apply(s: &Compact, from: usize, die: u8, ctx: &PortesCtx) -> (Compact, u8, bool) {
        let mut n = *s;
        let (to, hit, _) = n.shift(from, die, ctx.single);
        (n, to, hit)
    }

    /// Backgammon's movement; the ending step, the 15th checker borne off, is
    /// [`Self::end`]'s, and the canonical order settles it too.
    #[inline]
    fn order_free(_: &Compact, _: &PortesCtx) -> bool {
        true
    }

    /// No checks beyond movement, and no 15th checker borne off with more than four on
    /// the board.
    #[inline]
    fn quiet(s: &Compact, _: &PortesCtx, _: u8, _: u8) -> bool {
        s.off + 4 < CHECKERS
    }

    #[inline]
    fn end(s: &Compact, ctx: &PortesCtx) -> Option<GameEnd> {
        if s.off == CHECKERS {
            return Some(GameEnd::Win(if ctx.opp_off { 1 } else { 2 }));
        }
        None
    }
}
