//! Portes (section 3 of the rules text): movement, hitting, entering and bearing off are
//! backgammon's exactly (PO2, PO3, PO5), so plays come from backgammon's generator
//! ([`crate::game::generate_plays`]) on the same checkers; what differs is scoring (no
//! triple, [`TavliPosition::result`]) and the opening (C8, [`super::opening`]). The
//! naive generator of the tests checks that the two rule texts coincide.
//!
//! One difference remains, C5: a step that bears off the 15th checker ends the play even
//! when another order would use more dice (checker on 2, roll 3-1: 2/off is legal beside
//! 2/1*/off, and the two differ when the 1 hits). Backgammon's rules demand both dice
//! there, so while the mover has at most four checkers on the board (the only positions
//! where a play can end the game) Portes plays come from the shared step search with the
//! Portes step rules below.

use super::position::{TavliPosition, BAR, CHECKERS};
use super::search::{Compact, StepRules};
use super::{GameEnd, Rules, TavliPlay, TavliStep};
use crate::game::Dice;

/// Every distinct legal play of `dice` in `pos` (Portes or backgammon), into `out`.
pub(crate) fn generate(
    pos: &TavliPosition,
    dice: Dice,
    list: &mut crate::game::PlayList,
    out: &mut Vec<TavliPlay>,
) {
    let Some(bg) = pos.to_backgammon() else {
        return;
    };
    let variant = pos.variant();
    // Only a play that bears off the last checker ends a game, and while more than four
    // of the mover's checkers are on the board (the only positions that come here in
    // Portes; see the module docs) none can. Backgammon positions are checked as before.
    let may_end = variant == super::Variant::Backgammon || pos.off(0) >= CHECKERS - 4;
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
            if may_end {
                p.end = p.after.end_for_mover();
            }
        }
    }
}

/// The opponent's lone checker on the mover's point `m` goes to his bar.
#[inline]
fn hit(after: &mut TavliPosition, m: usize) {
    after.sides[1][25 - m] -= 1;
    after.sides[1][BAR] += 1;
}

/// The Portes step rules (PO2, PO3, C6), for the positions where a play can end the game.
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

    fn context(pos: &TavliPosition, _: &Rules) -> PortesCtx {
        let (made, single) = super::search::opposing(pos);
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
    fn step(s: &Compact, from: usize, die: u8, ctx: &PortesCtx) -> Option<(Compact, u8, bool)> {
        let to = from as isize - die as isize;
        let mut n = *s;
        let mut hit = false;
        if to >= 1 {
            let bit = 1u32 << to;
            if ctx.made & bit != 0 {
                return None;
            }
            if ctx.single & bit != 0 && n.marks & bit == 0 {
                n.marks |= bit;
                hit = true;
            }
            n.land(to as usize);
        } else {
            // Bearing off: every checker home (none on the bar), a higher die only from
            // the highest point.
            if s.occ & !0x7e != 0 {
                return None;
            }
            if to < 0 && s.occ >> (from + 1) != 0 {
                return None;
            }
            n.off += 1;
        }
        n.lift(from);
        Some((n, to.max(0) as u8, hit))
    }

    #[inline]
    fn end(s: &Compact, ctx: &PortesCtx) -> Option<GameEnd> {
        if s.off == CHECKERS {
            return Some(GameEnd::Win(if ctx.opp_off { 1 } else { 2 }));
        }
        None
    }
}
