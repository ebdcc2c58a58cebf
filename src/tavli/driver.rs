//! Random games: the opening of C8 and games of uniformly random legal plays, for tests
//! and for drawing (position, roll) pairs from real games.

use super::position::{TavliPosition, TavliResult};
use super::{generate_plays, RuleSwitches, TavliPlay, TavliPlayList};
use crate::game::{Dice, Rng, Variant};

/// The opening of a game (C8): each side rolls one die until they differ; the higher
/// starts and rolls both dice again, so the first roll may be a double. Returns the
/// starter (0 or 1) and its first roll.
pub fn opening(rng: &mut Rng) -> (usize, Dice) {
    loop {
        let (a, b) = (rng.die(), rng.die());
        if a != b {
            return (usize::from(b > a), rng.dice());
        }
    }
}

/// How a random game went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomGame {
    /// The result from the starter's view; `None` when `max_turns` ran out first.
    pub outcome: Option<TavliResult>,
    /// Turns played (passes included).
    pub turns: u32,
}

/// Plays one game of `variant` from its start with random legal plays, the opening of
/// C8 included. `visit` sees every (position, roll) before the play is chosen, with the
/// side to act's position.
pub fn play_random_game(
    variant: Variant,
    rules: &RuleSwitches,
    rng: &mut Rng,
    max_turns: u32,
    visit: impl FnMut(&TavliPosition, Dice),
) -> RandomGame {
    play_game_with(
        variant,
        rules,
        rng,
        max_turns,
        |rng, _, _, list| {
            // Picked from the plays in a fixed order (by the position after them), so
            // that the game does not depend on the order a generator lists them in.
            let mut plays: Vec<(TavliPosition, usize)> =
                list.iter().enumerate().map(|(i, p)| (p.after, i)).collect();
            plays.sort_unstable();
            rng.pick(&plays).map_or(0, |&(_, i)| i)
        },
        visit,
    )
}

/// Plays one game of `variant` from its start, the opening of C8 included, with the
/// plays `choose` picks (an index into the legal plays of the roll it is given; it may
/// use the game's `rng`);
/// dice from `rng`. `visit` sees every (position, roll) before the play is chosen, with
/// the side to act's position.
pub fn play_game_with(
    variant: Variant,
    rules: &RuleSwitches,
    rng: &mut Rng,
    max_turns: u32,
    mut choose: impl FnMut(&mut Rng, &TavliPosition, Dice, &[TavliPlay]) -> usize,
    mut visit: impl FnMut(&TavliPosition, Dice),
) -> RandomGame {
    let mut pos = TavliPosition::start(variant);
    let (_, mut dice) = opening(rng);
    let mut list = TavliPlayList::new();
    // Whose turn, relative to the starter (0 = starter).
    let mut side = 0usize;
    for turn in 0..max_turns {
        visit(&pos, dice);
        generate_plays(&pos, dice, rules, &mut list);
        if list.is_empty() {
            break;
        }
        let i = choose(rng, &pos, dice, &list).min(list.len() - 1);
        let play = list[i];
        if let Some(done) = play.after.result() {
            let from_starter = match (done, side) {
                (o, 0) => o,
                (TavliResult::MoverWins(p), _) => TavliResult::OpponentWins(p),
                (TavliResult::OpponentWins(p), _) => TavliResult::MoverWins(p),
                (TavliResult::Tie, _) => TavliResult::Tie,
            };
            return RandomGame {
                outcome: Some(from_starter),
                turns: turn + 1,
            };
        }
        pos = play.next_position();
        side ^= 1;
        dice = rng.dice();
    }
    RandomGame {
        outcome: None,
        turns: max_turns,
    }
}
