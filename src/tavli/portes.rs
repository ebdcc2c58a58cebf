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
use super::search::StepRules;
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
        let after = TavliPosition::from_backgammon(variant, &play.position);
        let mut steps = [TavliStep::default(); 4];
        for (slot, s) in steps.iter_mut().zip(play.steps()) {
            *slot = TavliStep {
                from: s.from,
                to: s.to,
                mark: s.hit,
            };
        }
        let end = if may_end { after.end_for_mover() } else { None };
        out.push(TavliPlay::new(after, steps, play.steps().len() as u8, end));
    }
}

/// The Portes step rules (PO2, PO3, C6), for the positions where a play can end the game.
#[derive(Debug)]
pub struct Portes;

impl StepRules for Portes {
    const OPPONENT_FIXED: bool = false;
    type Ctx = ();
    fn context(_: &TavliPosition, _: &Rules) {}

    #[inline]
    fn sources(pos: &TavliPosition, _: &()) -> u32 {
        if pos.sides[0][BAR] > 0 {
            return 1 << BAR;
        }
        pos.occupied(0)
    }

    #[inline]
    fn step(
        pos: &TavliPosition,
        from: usize,
        die: u8,
        _rules: &Rules,
        _: &(),
    ) -> Option<(TavliPosition, u8, bool)> {
        let me = &pos.sides[0];
        if me[from] == 0 || (me[BAR] > 0 && from != BAR) {
            return None;
        }
        let to = from as isize - die as isize;
        let mut p = *pos;
        let mut hit = false;
        if to >= 1 {
            let to = to as usize;
            let q = 25 - to;
            match pos.sides[1][q] {
                0 => {}
                1 => {
                    p.sides[1][q] = 0;
                    p.sides[1][BAR] += 1;
                    hit = true;
                }
                _ => return None,
            }
            p.sides[0][to] += 1;
        } else {
            if (7..=25).any(|m| me[m] > 0) {
                return None;
            }
            if to < 0 && (from + 1..=6).any(|m| me[m] > 0) {
                return None;
            }
        }
        p.sides[0][from] -= 1;
        Some((p, to.max(0) as u8, hit))
    }

    #[inline]
    fn end(pos: &TavliPosition) -> Option<GameEnd> {
        if pos.off(0) == CHECKERS {
            return Some(GameEnd::Win(if pos.off(1) == 0 { 2 } else { 1 }));
        }
        None
    }
}
