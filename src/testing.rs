//! Fixtures that tests and benchmarks share: positions met in seeded games of random legal
//! plays, for backgammon and for the Tavli games.
//!
//! The module sits just above `tavli` in the layer order and builds only on `game` and
//! `tavli`, so that the unit tests of any layer, the lowest included, may use it without
//! reaching up to the players or the benchmarks (`tests/layers.rs` lets test code name it
//! from every layer). It is compiled in every build, not only under `cfg(test)`: the
//! integration tests in `tests/` and `stargammon bench movegen --games random` use the
//! same sets, and a set that exists twice could drift apart. It is hidden from the API
//! documentation; `crate::bench` re-exports what its commands use.

use crate::game::{generate_plays, Dice, Play, PlayList, Position, Rng, Variant};
use crate::tavli::{play_random_game, RuleSwitches, TavliPosition};

/// Positions and rolls met in `games` seeded games of backgammon in which both sides pick
/// uniformly random legal plays.
pub fn random_game_positions(seed: u64, games: usize) -> Vec<(Position, Dice)> {
    let mut pick = Rng::seeded(seed ^ 0x5EED);
    seeded_game_positions(|_, _, plays| pick.index(plays.len()), seed, games)
}

/// Positions and rolls met in `games` seeded games of backgammon from the opening, both
/// sides playing the index `choose` gives among the legal plays; the dice come from a
/// generator seeded with `seed`.
pub fn seeded_game_positions(
    mut choose: impl FnMut(&Position, Dice, &[Play]) -> usize,
    seed: u64,
    games: usize,
) -> Vec<(Position, Dice)> {
    let mut rng = Rng::seeded(seed);
    let mut list = PlayList::new();
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::OPENING;
        loop {
            let dice = Dice::roll(&mut rng);
            out.push((pos, dice));
            generate_plays(&pos, dice, &mut list);
            let play = list[choose(&pos, dice, &list)];
            if play.position.mover_result().is_some() {
                break;
            }
            pos = play.next_position();
        }
    }
    out
}

/// Pairs in a Tavli movegen benchmark set.
pub const TAVLI_MOVEGEN_PAIRS: usize = 12_000;

/// The fixed Tavli movegen set of `variant`: the first 12,000 (position, roll) pairs of
/// seeded games of random legal plays (seed 2026, one generator per game).
pub fn tavli_movegen_set(variant: Variant) -> Vec<(TavliPosition, Dice)> {
    let rules = RuleSwitches::default();
    let mut seeds = Rng::seeded(2026);
    let mut set = Vec::with_capacity(TAVLI_MOVEGEN_PAIRS);
    while set.len() < TAVLI_MOVEGEN_PAIRS {
        let mut rng = Rng::seeded(seeds.next_u64());
        play_random_game(variant, &rules, &mut rng, 5000, |p, d| {
            if set.len() < TAVLI_MOVEGEN_PAIRS {
                set.push((*p, d));
            }
        });
    }
    set
}
