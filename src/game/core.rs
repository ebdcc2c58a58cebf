//! What every game the engine plays has in common: the cubeless core that the evaluators,
//! the search, the players and the referees are written against once.
//!
//! A game is its position type. Backgammon's [`Position`] implements [`GamePosition`]
//! here; the Tavli games' position (one type for Portes, Plakoto and Fevga, the variant
//! inside it) implements it in `crate::tavli`. Everything generic over a game takes a
//! `P: GamePosition` with `Position` as its default, so backgammon's code reads as before.
//!
//! The contract, for positions from the view of the side to act before it rolls:
//! - [`GamePosition::generate`] lists every distinct legal play of a roll (the empty play
//!   when none is legal; nothing for a finished game), each with the position after it,
//!   still from the mover's view;
//! - [`GamePlay::ending`] says whether that play ended the game, and how, for the mover;
//! - [`GamePosition::key`] is a 64-bit hash of the position (equal positions, equal keys),
//!   the transposition table's key;
//! - [`GamePosition::gammons_settled`] is true once neither side can lose more than a single
//!   game, which narrows the search's bounds.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::Deref;

use super::movegen::{generate_plays, Play, PlayList};
use super::position::{GameResult, Position};
use super::Dice;

/// How a play ended the game, for the side that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ending {
    /// The mover won: a single game, a gammon (a double game in Tavli) or a backgammon.
    Won(GameResult),
    /// Neither side won (Plakoto, both mothers pinned): worth half a single win and half a
    /// single loss.
    Tie,
}

impl Ending {
    /// Points to the mover (a tie: none).
    pub fn points(self) -> f64 {
        match self {
            Ending::Won(r) => r.points() as f64,
            Ending::Tie => 0.0,
        }
    }
}

/// A position of one game, from the view of the side to act, before it rolls.
pub trait GamePosition: Copy + Eq + Hash + Debug + Send + Sync + 'static {
    /// A legal play of a roll.
    type Play: GamePlay<Self>;
    /// A reusable buffer of plays (and the generator's scratch space).
    type List: Default + Deref<Target = [Self::Play]> + Send;

    /// Fills `list` with every distinct legal play of `dice`; the one empty play when none
    /// is legal; nothing when the game is over.
    fn generate(&self, dice: Dice, list: &mut Self::List);

    /// The same position seen from the other side (who then acts).
    fn swap(&self) -> Self;

    /// Whether the game is over (a side has won, or Plakoto's tie).
    fn is_over(&self) -> bool;

    /// A 64-bit hash of the position: equal positions have equal keys.
    fn key(&self) -> u64;

    /// Once true, neither side can lose more than a single game from here on.
    fn gammons_settled(&self) -> bool;

    /// The empty play: the position unchanged (a roll without a legal step).
    fn pass(&self) -> Self::Play;

    /// The side to act's pip count when the game has become a race (no contact left),
    /// for the cube's efficiency; `None` in contact, and in games without a cube.
    fn race_pips(&self) -> Option<u32> {
        None
    }

    /// Mixes the position into a generator seed (the same position, the same seed on
    /// every machine and in every build).
    fn seed_hash(&self, seed: u64) -> u64 {
        super::splitmix(seed ^ self.key())
    }
}

/// A legal play of a [`GamePosition`].
pub trait GamePlay<P>: Copy + Debug + Send + Sync + 'static {
    /// The position after the play, from the mover's view.
    fn after(&self) -> &P;

    /// The position after the play with the opponent to act.
    fn next(&self) -> P;

    /// How the play ended the game, for the mover (None: the game goes on).
    fn ending(&self) -> Option<Ending>;

    /// A cheap score for move ordering: higher is tried earlier. It costs no evaluation.
    fn order_score(&self) -> i32;

    /// The number of steps (checker moves) of the play.
    fn step_count(&self) -> usize;
}

impl GamePosition for Position {
    type Play = Play;
    type List = PlayList;

    #[inline]
    fn generate(&self, dice: Dice, list: &mut PlayList) {
        generate_plays(self, dice, list);
    }

    #[inline]
    fn swap(&self) -> Position {
        Position::swap(self)
    }

    #[inline]
    fn is_over(&self) -> bool {
        self.is_game_over()
    }

    #[inline]
    fn key(&self) -> u64 {
        super::zobrist::position_key(self)
    }

    #[inline]
    fn gammons_settled(&self) -> bool {
        self.off() > 0 && self.opp_off() > 0
    }

    fn pass(&self) -> Play {
        Play::none(*self)
    }

    fn race_pips(&self) -> Option<u32> {
        match self.phase() {
            super::Phase::Race => Some(self.pips()),
            super::Phase::Contact => None,
        }
    }

    fn seed_hash(&self, seed: u64) -> u64 {
        let mut h = seed;
        for &s in self.slots().iter() {
            h = super::splitmix(h ^ (s as u8 as u64));
        }
        h
    }
}

impl GamePlay<Position> for Play {
    #[inline]
    fn after(&self) -> &Position {
        &self.position
    }

    #[inline]
    fn next(&self) -> Position {
        self.next_position()
    }

    #[inline]
    fn ending(&self) -> Option<Ending> {
        self.position.mover_result().map(Ending::Won)
    }

    #[inline]
    fn order_score(&self) -> i32 {
        heuristic_score(self)
    }

    #[inline]
    fn step_count(&self) -> usize {
        self.steps().len()
    }
}

/// Backgammon's ordering score: hits first (the probe rule of Hauk, Buro and Schaeffer),
/// then points made, less a penalty for blots the opponent can reach.
pub fn heuristic_score(play: &Play) -> i32 {
    let after = &play.position;
    let hits = play.steps().iter().filter(|s| s.hit).count() as i32;
    let [_, made, blots, opponent] = after.slot_masks();
    const HOME: u32 = 0x7E;
    const OUTER: u32 = 0x01FF_FF80;
    let home_points = (made & HOME).count_ones() as i32;
    let points = (made & OUTER).count_ones() as i32;
    // The opponent moves towards slot 25 in the mover's numbering: a blot is exposed to
    // any opponent checker 1 to 11 slots behind it (direct or combination range).
    // The opponent's checkers spread over 0..=10 slots by doubling, then moved on by one.
    let two = opponent | opponent << 1;
    let four = two | two << 2;
    let reach = (four | four << 4 | four << 7) << 1;
    let exposed = (blots & (HOME | OUTER) & reach).count_ones() as i32;
    10 * hits + 3 * home_points + 2 * points - 4 * exposed
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::legal_plays;

    #[test]
    fn prefers_the_point_making_opening_play() {
        // 3-1 at the opening: 8/5 6/5 makes the 5-point and leaves no blot.
        let pos = Position::OPENING;
        let plays = legal_plays(&pos, Dice::new(3, 1).unwrap());
        let best = plays.iter().max_by_key(|p| heuristic_score(p)).unwrap();
        assert_eq!(best.position.slots()[5], 2);
        assert_eq!(best.position.slots()[8], 2);
    }

    /// The score counts exposed blots as the rule says, checker by checker: a blot with an
    /// opponent checker 1 to 11 slots behind it (the opponent's bar included), on every
    /// play of the positions of 200 seeded games.
    #[test]
    fn exposed_blots_are_counted_slot_by_slot() {
        let mut list = crate::game::PlayList::new();
        let mut plays = 0;
        for (pos, dice) in crate::testing::random_game_positions(44, 200) {
            crate::game::generate_plays(&pos, dice, &mut list);
            for play in list.iter() {
                let s = play.position.slots();
                let hits = play.steps().iter().filter(|st| st.hit).count() as i32;
                let (mut home, mut points, mut exposed) = (0, 0, 0);
                for i in 1..=24 {
                    if s[i] >= 2 {
                        if i <= 6 {
                            home += 1;
                        } else {
                            points += 1;
                        }
                    } else if s[i] == 1 && (0..i).any(|j| s[j] < 0 && i - j <= 11) {
                        exposed += 1;
                    }
                }
                let want = 10 * hits + 3 * home + 2 * points - 4 * exposed;
                assert_eq!(heuristic_score(play), want, "{:?}", play.position);
                plays += 1;
            }
        }
        assert!(plays > 10_000, "{plays} plays");
    }
}
