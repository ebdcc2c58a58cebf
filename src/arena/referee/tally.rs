//! Running totals of a series from engine A's view: points per game and their 95%
//! interval, wins, gammons, forfeits and matches.

use super::game::{Ending, GameRecord};
use super::series::SeriesGame;
use crate::arena::stats::{self, Moments};
use crate::game::GameResult;

/// Running totals for a series, from engine A's view.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    pub games: u64,
    /// Sum of A's points (negative for losses).
    pub sum: f64,
    pub sum_sq: f64,
    pub a_wins: u64,
    pub gammons_a: u64,
    pub gammons_b: u64,
    pub backgammons_a: u64,
    pub backgammons_b: u64,
    pub forfeits_a: u64,
    pub forfeits_b: u64,
    pub matches: u64,
    pub match_wins_a: u64,
    /// Mirrored money pairs: count, sum and sum of squares of A's mean points per pair.
    /// With pairs the interval comes from them, since luck largely cancels inside a pair.
    pub pairs: u64,
    pub pair_sum: f64,
    pub pair_sum_sq: f64,
    /// With a judge (variance reduction): A's luck-adjusted points per game, and their
    /// mean per mirrored pair (money play).
    pub adjusted_games: Moments,
    pub adjusted_pairs: Moments,
    /// With a judge, in match play: A's luck-adjusted match result (1 for a win, 0 for a
    /// loss, minus A's luck in match-winning chance plus B's), one sample per match.
    pub adjusted_matches: Moments,
}

impl Tally {
    /// Adds the sample of one mirrored pair (or a lone last game): A's mean points.
    pub fn add_pair(&mut self, games: &[SeriesGame]) {
        if games.is_empty() {
            return;
        }
        let total: f64 = games
            .iter()
            .map(|g| {
                let pts = g.record.points as f64;
                if g.record.winner == g.a_seat {
                    pts
                } else {
                    -pts
                }
            })
            .sum();
        let mean = stats::mean_of_sum(games.len() as u64, total);
        self.pairs += 1;
        self.pair_sum += mean;
        self.pair_sum_sq += mean * mean;
    }

    /// Adds the luck-adjusted samples of a mirrored pair (or a lone last game) whose games
    /// were all judged; nothing otherwise.
    pub fn add_adjusted_pair(&mut self, games: &[SeriesGame]) {
        let adjusted: Option<Vec<f64>> = games.iter().map(SeriesGame::a_adjusted).collect();
        let Some(adjusted) = adjusted.filter(|a| !a.is_empty()) else {
            return;
        };
        for x in &adjusted {
            self.adjusted_games.add(*x);
        }
        self.adjusted_pairs.add(stats::mean_of_sum(
            adjusted.len() as u64,
            adjusted.iter().sum(),
        ));
    }

    /// Adds one match's luck-adjusted result: `a_won` minus A's net luck over its games.
    pub fn add_adjusted_match(&mut self, a_won: bool, net_luck: f64) {
        self.adjusted_matches
            .add(if a_won { 1.0 } else { 0.0 } - net_luck);
    }

    /// Luck-adjusted points per game for A, with the half-width of its 95% interval (from
    /// the pair samples when there are two or more, as for [`Tally::ci95`]); None without
    /// a judge.
    pub fn adjusted(&self) -> Option<(f64, f64)> {
        if self.adjusted_games.n == 0 {
            return None;
        }
        let ci = if self.adjusted_pairs.n >= 2 {
            self.adjusted_pairs.ci95()
        } else {
            self.adjusted_games.ci95()
        };
        Some((self.adjusted_games.mean(), ci))
    }

    /// Sample variance of one interval sample of [`Tally::ppg`] (a pair's mean, or a game)
    /// and the number of games per sample.
    pub fn sample_variance(&self) -> (f64, f64) {
        if self.pairs >= 2 {
            let v = stats::sample_variance_of_sums(self.pairs, self.pair_sum, self.pair_sum_sq);
            (v, self.games as f64 / self.pairs as f64)
        } else {
            (
                stats::sample_variance_of_sums(self.games, self.sum, self.sum_sq),
                1.0,
            )
        }
    }

    /// The same for the adjusted points.
    pub fn adjusted_sample_variance(&self) -> (f64, f64) {
        if self.adjusted_pairs.n >= 2 {
            (
                self.adjusted_pairs.variance(),
                self.adjusted_games.n as f64 / self.adjusted_pairs.n as f64,
            )
        } else {
            (self.adjusted_games.variance(), 1.0)
        }
    }

    /// Match wins of A as a rate with its 95% interval (one 0/1 sample per match).
    pub fn match_win_rate(&self) -> (f64, f64) {
        // A 0/1 sample's square is itself: the sum of squares is the number of wins.
        let wins = self.match_wins_a as f64;
        (
            stats::mean_of_sum(self.matches, wins),
            stats::ci95_of_sums(self.matches, wins, wins),
        )
    }

    /// Sample variance of one match's 0/1 result.
    pub fn match_variance(&self) -> f64 {
        let wins = self.match_wins_a as f64;
        stats::sample_variance_of_sums(self.matches, wins, wins)
    }

    /// Adds one game; `a_seat` is the seat engine A sat in.
    pub fn add_game(&mut self, a_seat: usize, g: &GameRecord) {
        let a_won = g.winner == a_seat;
        let pts = if a_won {
            g.points as f64
        } else {
            -(g.points as f64)
        };
        self.games += 1;
        self.sum += pts;
        self.sum_sq += pts * pts;
        if a_won {
            self.a_wins += 1;
        }
        if let Ending::Played(r) = g.ending {
            let (gm, bg) = if a_won {
                (&mut self.gammons_a, &mut self.backgammons_a)
            } else {
                (&mut self.gammons_b, &mut self.backgammons_b)
            };
            if r >= GameResult::Gammon {
                *gm += 1;
            }
            if r == GameResult::Backgammon {
                *bg += 1;
            }
        }
        if g.ending == Ending::Forfeit {
            if a_won {
                self.forfeits_b += 1;
            } else {
                self.forfeits_a += 1;
            }
        }
    }

    /// Points per game for A.
    pub fn ppg(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            stats::mean_of_sum(self.games, self.sum)
        }
    }

    /// Half-width of the 95% confidence interval of [`Tally::ppg`].
    /// From the pair samples in money play (see [`Tally::add_pair`]), else per game.
    pub fn ci95(&self) -> f64 {
        let (n, sum, sum_sq) = if self.pairs >= 2 {
            (self.pairs, self.pair_sum, self.pair_sum_sq)
        } else {
            (self.games, self.sum, self.sum_sq)
        };
        stats::ci95_of_sums(n, sum, sum_sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::referee::testing::money;

    #[test]
    fn tally_counts_from_a_view() {
        let mut t = Tally::default();
        let g = GameRecord {
            winner: 1,
            points: 2,
            ending: Ending::Played(GameResult::Gammon),
            cube: 1,
            opening: (3, 1),
            events: vec![],
            forfeit: None,
        };
        t.add_game(1, &g);
        t.add_game(0, &g);
        assert_eq!(t.games, 2);
        assert_eq!(t.ppg(), 0.0);
        assert_eq!(t.a_wins, 1);
        assert_eq!(t.gammons_a, 1);
        assert_eq!(t.gammons_b, 1);
    }

    #[test]
    fn the_interval_comes_from_pairs_in_money_play() {
        let game = |winner: usize, a_seat: usize| SeriesGame {
            index: 0,
            match_index: None,
            a_seat,
            dice_seed: 0,
            setup: money(false),
            luck: None,
            record: GameRecord {
                winner,
                points: 2,
                ending: Ending::Played(GameResult::Gammon),
                cube: 1,
                opening: (3, 1),
                events: vec![],
                forfeit: None,
            },
        };
        let mut t = Tally::default();
        for _ in 0..3 {
            // Seat 0 wins both games of the pair: A wins one, loses the other.
            let pair = [game(0, 0), game(0, 1)];
            for g in &pair {
                t.add_game(g.a_seat, &g.record);
            }
            t.add_pair(&pair);
        }
        assert_eq!(t.games, 6);
        assert_eq!(t.pairs, 3);
        assert_eq!(t.ppg(), 0.0);
        assert_eq!(t.ci95(), 0.0);
    }
}
