//! The Tavli games as games of the generic core ([`crate::game::GamePosition`]): what lets
//! the one searcher, the one referee and the one set of players serve Portes, Plakoto and
//! Fevga as they serve backgammon.
//!
//! Plays are generated under the default [`RuleSwitches`] (every rule switch off, as the engine
//! plays them everywhere); the ordering score follows backgammon's (hits and pins first,
//! then points made, less the mover's lone checkers where they can be hit or pinned).

use crate::game::{splitmix, Dice, Ending, GamePlay, GamePosition, GameResult, Variant};

use super::position::TavliResult;
use super::{generate_plays, RuleSwitches, TavliPlay, TavliPlayList, TavliPosition};

/// The rules the engine plays the Tavli games by: every switch off.
const RULES: RuleSwitches = RuleSwitches {
    pinned_counts_home: false,
    unblock_when_piled: false,
    start_quarter_only: false,
};

impl GamePosition for TavliPosition {
    type Play = TavliPlay;
    type List = TavliPlayList;

    #[inline]
    fn generate(&self, dice: Dice, list: &mut TavliPlayList) {
        generate_plays(self, dice, &RULES, list);
    }

    #[inline]
    fn swap(&self) -> TavliPosition {
        TavliPosition::swap(self)
    }

    #[inline]
    fn is_over(&self) -> bool {
        self.result().is_some()
    }

    fn key(&self) -> u64 {
        let mut h = splitmix(0x5441_564C_4900_0000 ^ self.variant as u64);
        for side in &self.sides {
            for chunk in side.chunks(8) {
                let mut b = [0u8; 8];
                b[..chunk.len()].copy_from_slice(chunk);
                h = splitmix(h ^ u64::from_le_bytes(b));
            }
        }
        splitmix(h ^ (u64::from(self.pins[0]) | u64::from(self.pins[1]) << 32))
    }

    #[inline]
    fn gammons_settled(&self) -> bool {
        // A side with a checker off has every checker home: it can neither lose a double
        // game nor (in Plakoto) have its mother pinned.
        self.off(0) > 0 && self.off(1) > 0
    }

    fn pass(&self) -> TavliPlay {
        TavliPlay::new(*self, Default::default(), 0, None)
    }
}

impl GamePlay<TavliPosition> for TavliPlay {
    #[inline]
    fn after(&self) -> &TavliPosition {
        &self.after
    }

    #[inline]
    fn next(&self) -> TavliPosition {
        self.next_position()
    }

    #[inline]
    fn ending(&self) -> Option<Ending> {
        match self.after.result()? {
            TavliResult::MoverWins(p) => Some(Ending::Won(if p >= 2 {
                GameResult::Gammon
            } else {
                GameResult::Single
            })),
            TavliResult::Tie => Some(Ending::Tie),
            // A play never makes its own side lose.
            TavliResult::OpponentWins(_) => None,
        }
    }

    fn order_score(&self) -> i32 {
        let marks = self.steps().iter().filter(|s| s.mark).count() as i32;
        let a = &self.after;
        let own = a.counts(0);
        let exposed_kind = matches!(a.variant(), Variant::Portes | Variant::Plakoto);
        let mut home_points = 0;
        let mut points = 0;
        let mut lone = 0;
        for (m, &c) in own.iter().enumerate().take(25).skip(1) {
            if c >= 2 {
                if m <= 6 {
                    home_points += 1;
                } else {
                    points += 1;
                }
            } else if c == 1 && exposed_kind {
                lone += 1;
            }
        }
        10 * marks + 3 * home_points + 2 * points - 2 * lone
    }

    #[inline]
    fn step_count(&self) -> usize {
        self.steps().len()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::tavli::parse_position_string;

    #[test]
    fn the_engine_plays_by_the_default_rules() {
        assert_eq!(RULES, RuleSwitches::default());
    }

    #[test]
    fn keys_tell_games_and_sides_apart() {
        let p = TavliPosition::start(Variant::Portes);
        let q = TavliPosition::start(Variant::Plakoto);
        assert_ne!(p.key(), q.key());
        assert_eq!(p.key(), TavliPosition::start(Variant::Portes).key());
        let r = parse_position_string("portes:24-12,21-2,18-1:24-14,18-1").unwrap();
        assert_ne!(r.key(), r.swap().key());
        assert_eq!(r.key(), r.swap().swap().key());
    }

    #[test]
    fn every_game_generates_through_the_core() {
        for v in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            let pos = TavliPosition::start(v);
            let mut list = TavliPlayList::default();
            GamePosition::generate(&pos, Dice::new(6, 5).unwrap(), &mut list);
            assert!(!list.is_empty());
            for play in list.iter() {
                assert!(play.ending().is_none());
                assert_eq!(GamePlay::next(play), play.after.swap());
            }
        }
    }
}
