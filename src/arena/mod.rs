//! In-process games between players, and duels that measure strength honestly, in every
//! game: backgammon without the cube, and the Tavli games.
//!
//! A duel plays N/2 *mirrored pairs*: one dice sequence, derived from (seed, pair index),
//! is played twice with the players swapped, and the mean of the two results is one
//! sample. Luck largely cancels inside a pair, so the interval computed from the pair
//! samples is much narrower than from single games. Pairs are spread over threads and
//! aggregated in index order, so a seed gives the same figures whatever the thread count.
//! Cubeful games and matches of backgammon are the [`referee`]'s.

pub mod duel;
pub mod export;
pub mod luck;
pub mod referee;
pub mod stats;
pub mod tavli;

use crate::game::{Ending, GamePlay, GameResult, Rng};

pub use duel::{
    duel, duel_from, duel_until, summarise, summarise_judged, DuelConfig, DuelResult, Judged,
};
pub use stats::mean_ci95;

use crate::game::{splitmix, Dice, Position};
use crate::players::{Decide, Game, MONEY};

/// A game longer than this many turns (passes included) is stopped and reported: the
/// rules end every game, so the guard only keeps a defect from hanging a run.
pub const MAX_TURNS: u32 = 5_000;

/// How one cubeless game ended, from the first player's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameEnd {
    /// A play ended it: made by the first player (`by_first`) or the second, with the
    /// ending for the side that made it.
    Ended { by_first: bool, ending: Ending },
    /// Stopped at [`MAX_TURNS`].
    Unfinished,
    /// A player's decider failed or answered no legal play: it loses the most a game of
    /// the kind can cost. `first`: whether it was the first player.
    Forfeit { first: bool, reason: String },
}

/// One cubeless game: how it ended and how many turns it took (passes included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubelessGame {
    pub end: GameEnd,
    pub turns: u32,
}

/// Plays one cubeless game from `start`: the first player rolls `first_roll`, then the
/// sides alternate, dice from `rng`. Each side values the final scores as its entry of
/// `values` says (see [`Game::turn`]); `visit` sees each checker decision (the position
/// of the side to act, its roll and its legal plays) before the side answers: how
/// positions are sampled from games between players.
#[allow(clippy::too_many_arguments)]
pub fn play_cubeless<G: Game>(
    start: G,
    first_roll: Dice,
    rng: &mut Rng,
    players: [&mut dyn Decide<G>; 2],
    values: [[f64; 4]; 2],
    list: &mut G::List,
    mut visit: impl FnMut(&G, Dice, &[G::Play]),
) -> CubelessGame {
    let [first, second] = players;
    let mut pos = start;
    let mut dice = first_roll;
    let mut mover = 0usize;
    for turn in 1..=MAX_TURNS {
        pos.generate(dice, list);
        if list.is_empty() {
            // A finished position: no play ended it, which the rules never allow.
            break;
        }
        visit(&pos, dice, list);
        let player: &mut dyn Decide<G> = if mover == 0 {
            &mut *first
        } else {
            &mut *second
        };
        let forfeit = |reason: String| CubelessGame {
            end: GameEnd::Forfeit {
                first: mover == 0,
                reason,
            },
            turns: turn,
        };
        let play = match player.decide(&G::turn(pos, dice, values[mover]), list) {
            Ok(action) => match G::play_of(action) {
                Some(p) if list.iter().any(|q| q.after() == p.after()) => p,
                Some(p) => return forfeit(format!("illegal play {p:?}")),
                None => return forfeit("a cube action at a checker play".into()),
            },
            Err(e) => return forfeit(e.to_string()),
        };
        if let Some(ending) = play.ending() {
            return CubelessGame {
                end: GameEnd::Ended {
                    by_first: mover == 0,
                    ending,
                },
                turns: turn,
            };
        }
        pos = play.next();
        mover ^= 1;
        dice = rng.dice();
    }
    CubelessGame {
        end: GameEnd::Unfinished,
        turns: MAX_TURNS,
    }
}

/// The opening roll of backgammon: re-rolled until it is not a double, as in real play.
pub fn opening_roll(rng: &mut Rng) -> Dice {
    <Position as Game>::opening_roll(rng)
}

/// [`play_cubeless`] of a money game from `start`, the first player rolling the game's
/// opening roll from `rng`, both sides playing for points.
pub fn play_game_visiting<G: Game>(
    start: G,
    p0: &mut dyn Decide<G>,
    p1: &mut dyn Decide<G>,
    rng: &mut Rng,
    list: &mut G::List,
    visit: impl FnMut(&G, Dice, &[G::Play]),
) -> CubelessGame {
    let dice = G::opening_roll(rng);
    play_cubeless(start, dice, rng, [p0, p1], [MONEY; 2], list, visit)
}

/// The seed of pair `index` in a duel seeded with `seed`.
pub fn pair_seed(seed: u64, index: u64) -> u64 {
    splitmix(seed ^ splitmix(index.wrapping_add(0x5EED)))
}

/// One game's result from A's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairGame {
    /// A won (`a_won`) or B did, `result` the size of the win (a double game of the Tavli
    /// games is a gammon).
    Won { a_won: bool, result: GameResult },
    /// Neither side won (Plakoto, both mothers pinned).
    Tie,
    /// Stopped at [`MAX_TURNS`]; it counts 0 points.
    Unfinished,
    /// A (`a_forfeited`) or B forfeited, losing `points`.
    Forfeit {
        a_forfeited: bool,
        points: i32,
        reason: String,
    },
}

impl PairGame {
    /// Points to A (negative when A lost).
    pub fn points(&self) -> i32 {
        match self {
            PairGame::Won { a_won, result } => {
                if *a_won {
                    result.points()
                } else {
                    -result.points()
                }
            }
            PairGame::Tie | PairGame::Unfinished => 0,
            PairGame::Forfeit {
                a_forfeited,
                points,
                ..
            } => {
                if *a_forfeited {
                    -points
                } else {
                    *points
                }
            }
        }
    }

    /// A game's end from its first player's view as A's result: `a_first` whether A
    /// played first.
    fn of(end: GameEnd, a_first: bool, most: i32) -> PairGame {
        match end {
            GameEnd::Ended { by_first, ending } => match ending {
                Ending::Won(result) => PairGame::Won {
                    a_won: by_first == a_first,
                    result,
                },
                Ending::Tie => PairGame::Tie,
            },
            GameEnd::Unfinished => PairGame::Unfinished,
            GameEnd::Forfeit { first, reason } => PairGame::Forfeit {
                a_forfeited: first == a_first,
                points: most,
                reason,
            },
        }
    }
}

/// Both games of a mirrored pair, from A's view: (A rolled first, B rolled first), each
/// from `start`.
pub fn play_pair<G: Judged>(
    start: G,
    a: &mut dyn Decide<G>,
    b: &mut dyn Decide<G>,
    seed: u64,
    list: &mut G::List,
) -> [PairGame; 2] {
    play_pair_judged(start, a, b, seed, list, None).0
}

/// [`play_pair`], with A's net luck in each game (A's luck minus B's, see [`luck`]) when
/// a judge is given (zero otherwise).
pub fn play_pair_judged<G: Judged>(
    start: G,
    a: &mut dyn Decide<G>,
    b: &mut dyn Decide<G>,
    seed: u64,
    list: &mut G::List,
    mut judge: Option<&mut G::Judge>,
) -> ([PairGame; 2], [f64; 2]) {
    let mut turns: Vec<(G, Dice)> = Vec::new();
    let mut game = |first: &mut dyn Decide<G>, second: &mut dyn Decide<G>, list: &mut G::List| {
        let mut rng = Rng::seeded(seed);
        turns.clear();
        let judged = judge.is_some();
        let outcome = play_game_visiting(start, first, second, &mut rng, list, |pos, dice, _| {
            if judged {
                turns.push((*pos, dice))
            }
        });
        let luck = judge
            .as_deref_mut()
            .map_or(0.0, |j| G::game_luck(j, &turns));
        (outcome, luck)
    };
    a.new_game(splitmix(seed ^ 1));
    b.new_game(splitmix(seed ^ 2));
    let (g1, l1) = game(a, b, list);
    a.new_game(splitmix(seed ^ 3));
    b.new_game(splitmix(seed ^ 4));
    let (g2, l2) = game(b, a, list);
    let games = [
        PairGame::of(g1.end, true, G::MOST_POINTS),
        PairGame::of(g2.end, false, G::MOST_POINTS),
    ];
    (games, [l1, -l2])
}
