//! Duels in the Tavli games: seeded games of one variant between two players with
//! mirrored dice (each pair of games is played on one dice sequence, A starting the first
//! game and B the second), scored as Tavli scores them (1 or 2 points, 0 for a Plakoto
//! tie, no triples).

use std::time::Instant;

use crate::game::{splitmix, Rng};
use crate::players::tavli::{TavliPlayer, TavliSpec};
use crate::tavli::position::{Outcome, TavliPosition};
use crate::tavli::{generate_plays, Rules, TavliPlayList, Variant};

/// A game longer than this many turns is stopped and reported (the rules end every game;
/// the guard keeps a defect from hanging a duel).
pub const MAX_TURNS: u32 = 5_000;

/// The figures of a duel, from A's view.
#[derive(Debug, Clone, PartialEq)]
pub struct TavliDuel {
    pub variant: Variant,
    pub a: String,
    pub b: String,
    pub games: u64,
    pub pairs: u64,
    pub ppg: f64,
    pub ci95: f64,
    pub a_wins: u64,
    pub b_wins: u64,
    pub ties: u64,
    /// Games won with 2 points (gammons; in Plakoto mother wins too).
    pub doubles_a: u64,
    pub doubles_b: u64,
    /// Games stopped at [`MAX_TURNS`] (0 unless a rule is broken); they count 0 points.
    pub unfinished: u64,
    pub seconds: f64,
}

impl TavliDuel {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "variant": self.variant.name(),
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "pairs": self.pairs,
            "ppg": self.ppg,
            "ci95": self.ci95,
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "ties": self.ties,
            "doubles_a": self.doubles_a,
            "doubles_b": self.doubles_b,
            "unfinished": self.unfinished,
            "seconds": self.seconds,
        })
    }
}

/// Plays one game on the dice of `seed`: `first` moves first (the opening roll of C8
/// decides only the first roll, which may be a double). Returns the points of `first`
/// (negative when it lost), or `None` when [`MAX_TURNS`] ran out.
pub fn play_game(
    variant: Variant,
    rules: &Rules,
    players: [&mut TavliPlayer; 2],
    seed: u64,
) -> Option<i32> {
    let [first, second] = players;
    let mut rng = Rng::seeded(seed);
    let (_, mut dice) = crate::tavli::driver::opening(&mut rng);
    let mut pos = TavliPosition::start(variant);
    let mut list = TavliPlayList::new();
    for turn in 0..MAX_TURNS {
        let side = (turn % 2) as usize;
        generate_plays(&pos, dice, rules, &mut list);
        let plays = list.as_slice();
        if !plays.is_empty() {
            let k = if side == 0 {
                first.choose(&pos, plays)
            } else {
                second.choose(&pos, plays)
            };
            let play = plays[k.min(plays.len() - 1)];
            if let Some(done) = play.after.result() {
                let points = match done {
                    Outcome::Tie => 0,
                    o => o.mover_points(),
                };
                return Some(if side == 0 { points } else { -points });
            }
            pos = play.next_position();
        } else {
            // No legal play: the turn passes.
            pos = pos.swap();
        }
        dice = rng.dice();
    }
    None
}

/// Plays `games` (an even number) games of `variant` between `a` and `b`.
pub fn duel(
    variant: Variant,
    a: &TavliSpec,
    b: &TavliSpec,
    games: u64,
    seed: u64,
) -> Result<TavliDuel, String> {
    let rules = Rules::default();
    let started = Instant::now();
    let mut pa = TavliPlayer::build(a, splitmix(seed ^ 0xa))?;
    let mut pb = TavliPlayer::build(b, splitmix(seed ^ 0xb))?;
    let pairs = games / 2;
    let mut r = TavliDuel {
        variant,
        a: a.to_string(),
        b: b.to_string(),
        games: pairs * 2,
        pairs,
        ppg: 0.0,
        ci95: f64::NAN,
        a_wins: 0,
        b_wins: 0,
        ties: 0,
        doubles_a: 0,
        doubles_b: 0,
        unfinished: 0,
        seconds: 0.0,
    };
    let mut pair_means = Vec::with_capacity(pairs as usize);
    for pair in 0..pairs {
        let dice_seed = splitmix(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ pair);
        let mut sum = 0i32;
        for a_first in [true, false] {
            let result = if a_first {
                play_game(variant, &rules, [&mut pa, &mut pb], dice_seed)
            } else {
                play_game(variant, &rules, [&mut pb, &mut pa], dice_seed).map(|p| -p)
            };
            let Some(points) = result else {
                r.unfinished += 1;
                continue;
            };
            sum += points;
            match points {
                0 => r.ties += 1,
                p if p > 0 => {
                    r.a_wins += 1;
                    r.doubles_a += u64::from(p >= 2);
                }
                p => {
                    r.b_wins += 1;
                    r.doubles_b += u64::from(p <= -2);
                }
            }
        }
        pair_means.push(f64::from(sum) / 2.0);
    }
    let (mean, ci) = super::stats::mean_ci95(&pair_means);
    r.ppg = mean;
    r.ci95 = ci;
    r.seconds = started.elapsed().as_secs_f64();
    Ok(r)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn duels_finish_every_game_and_repeat_for_a_seed() {
        for variant in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            let d = duel(variant, &TavliSpec::Heuristic, &TavliSpec::Random, 20, 5).unwrap();
            assert_eq!(d.unfinished, 0, "{variant:?}");
            assert_eq!(d.a_wins + d.b_wins + d.ties, 20);
            // The yardstick beats random play.
            assert!(d.ppg > 0.0, "{variant:?}: {d:?}");
            let again = duel(variant, &TavliSpec::Heuristic, &TavliSpec::Random, 20, 5).unwrap();
            assert_eq!((again.ppg, again.a_wins), (d.ppg, d.a_wins));
        }
    }

    #[test]
    fn a_player_against_itself_scores_zero_on_mirrored_dice() {
        let d = duel(
            Variant::Fevga,
            &TavliSpec::Heuristic,
            &TavliSpec::Heuristic,
            10,
            3,
        )
        .unwrap();
        assert_eq!(d.ppg, 0.0);
    }
}
