//! Portes (section 3 of the rules text): movement, hitting, entering and bearing off are
//! backgammon's exactly (PO2, PO3, PO5), so plays come from backgammon's generator
//! ([`crate::game::generate_plays`]) on the same checkers; what differs is scoring (no
//! triple, [`TavliPosition::result`]) and the opening (C8, [`super::opening`]). The
//! naive generator of the tests checks that the two rule texts coincide.

use super::position::TavliPosition;
use super::{TavliPlay, TavliStep};
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
    crate::game::generate_plays(&bg, dice, list);
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
        let end = after.end_for_mover();
        out.push(TavliPlay::new(after, steps, play.steps().len() as u8, end));
    }
}
