//! Luck-adjusted results of duels and refereed games (variance reduction).
//!
//! Every roll of a game has a luck, measured by a judge ([`crate::eval::luck`]): the
//! judge's value of the position after its own play of that roll, minus the mean of that
//! value over all the rolls that could have come (the opening roll over its 15
//! non-doubles). A game's adjusted result is its result minus A's luck plus B's luck.
//! Each roll's luck has mean zero whatever the position, so the adjusted mean estimates
//! the same thing as the plain mean; with a judge that predicts the game well, its spread
//! is much smaller, and so is the number of games an interval of a given width needs.
//!
//! The value is the judge's cubeless money equity times the cube in money play, and the
//! mover's match-winning chance at the score (the Kazaross-XG2 table, the cube where it
//! is) in match play, so adjusted results are in points per game or in match wins.
//!
//! The judge is an evaluator at depth 1, never one of the players' own searches: the same
//! judge for both sides, chosen by the user (default: the shipped nets).

use crate::cube::{self, CubeView};
use crate::engine::{build as engine_build, EngineSpec};
use crate::eval::luck::{After, Judge};
use crate::game::{CubeOwner, Dice, Position};

use super::referee::{Event, GameRecord, GameSetup};
use super::stats;

/// The judge a spec names: an evaluator (`net`, `net:PATH`, `pipsigmoid`) at depth 1,
/// without noise.
pub fn judge(text: &str) -> Result<Judge, String> {
    let spec: EngineSpec = text.parse().map_err(|e| format!("{e}"))?;
    if !spec.evaluator.is_evaluator() {
        return Err(format!(
            "the judge must value positions (net, net:PATH or pipsigmoid), not {}",
            spec.evaluator
        ));
    }
    if spec.depth.get() != 1 || !spec.noise.is_none() {
        return Err(
            "the judge evaluates at depth 1 without noise: give an evaluator alone (e.g. net)"
                .into(),
        );
    }
    let evaluator =
        engine_build::evaluator_with(&spec.evaluator, spec.precision).map_err(|e| e.to_string())?;
    let name = if spec.precision == Default::default() {
        spec.evaluator.to_string()
    } else {
        format!("{},precision={}", spec.evaluator, spec.precision)
    };
    Ok(Judge::new(evaluator, name))
}

/// The first player's luck minus the second's over one cubeless money game, given each
/// turn's position (the mover's view, before the roll) and roll in order, the first
/// player rolling the opening roll.
pub fn duel_luck(judge: &mut Judge, turns: &[(Position, Dice)]) -> f64 {
    let mut net = 0.0;
    for (i, (pos, roll)) in turns.iter().enumerate() {
        let l = judge.luck(pos, *roll, i == 0, |a| a.equity());
        if i % 2 == 0 {
            net += l;
        } else {
            net -= l;
        }
    }
    net
}

/// A's luck minus B's over one refereed game, `a_seat` being the seat A sat in: in points
/// (the judge's cubeless equity times the cube) in money play, in match-winning chance
/// at the score in match play. The game is replayed from its events: every roll, the
/// opening roll and rolls without a legal play included.
pub fn game_luck(judge: &mut Judge, setup: &GameSetup, record: &GameRecord, a_seat: usize) -> f64 {
    let mut position = Position::OPENING;
    let mut cube = 1u32;
    let mut owner: Option<usize> = None;
    let mut first = true;
    let mut net = 0.0;
    for event in &record.events {
        match event {
            Event::Double { cube: c, .. } => cube = *c,
            Event::Take { seat } => owner = Some(*seat),
            Event::Drop { .. } => {}
            Event::Move { seat, dice, play } => {
                let seat = (*seat).min(1);
                let luck = if setup.match_length == 0 {
                    let c = cube as f64;
                    judge.luck(&position, *dice, first, |a: &After| c * a.equity())
                } else {
                    let view = CubeView {
                        cube,
                        owner: match owner {
                            None => CubeOwner::Centered,
                            Some(o) if o == seat => CubeOwner::Me,
                            Some(_) => CubeOwner::Opponent,
                        },
                        match_length: setup.match_length,
                        away: setup.match_length.saturating_sub(setup.score[seat]),
                        opp_away: setup.match_length.saturating_sub(setup.score[1 - seat]),
                        crawford: setup.crawford,
                        post_crawford: setup.post_crawford,
                    };
                    judge.luck(&position, *dice, first, |a: &After| {
                        cube::value_at_score(
                            &a.probabilities(),
                            cube::result_chances(&view).as_ref(),
                        )
                    })
                };
                if seat == a_seat {
                    net += luck;
                } else {
                    net -= luck;
                }
                first = false;
                position = play.position.swap();
            }
        }
    }
    net
}

/// The half-width of interval for which reports give the games needed.
pub const TARGET_HALF_WIDTH: f64 = 0.02;

/// Plain and luck-adjusted results side by side, as duels and matches report them.
#[derive(Debug, Clone, PartialEq)]
pub struct Adjusted {
    /// The judge's spec.
    pub judge: String,
    /// The luck-adjusted mean (points per game, or match wins per match) and the
    /// half-width of its 95% interval.
    pub mean: f64,
    pub ci95: f64,
    /// Variance of the plain samples over that of the adjusted ones: how many times fewer
    /// games the adjusted result needs for the same interval.
    pub variance_ratio: f64,
    /// Games a 95% interval of +/- [`TARGET_HALF_WIDTH`] needs, plain and adjusted
    /// (matches, in match play).
    pub needed_plain: f64,
    pub needed_adjusted: f64,
}

impl Adjusted {
    /// From the plain and adjusted interval samples: each a (sample variance, games per
    /// sample) pair, with the adjusted mean and interval.
    pub fn new(
        judge: &str,
        plain: (f64, f64),
        adjusted: (f64, f64),
        mean: f64,
        ci95: f64,
    ) -> Adjusted {
        Adjusted {
            judge: judge.to_string(),
            mean,
            ci95,
            variance_ratio: plain.0 / adjusted.0,
            needed_plain: stats::samples_for(plain.0, TARGET_HALF_WIDTH) * plain.1,
            needed_adjusted: stats::samples_for(adjusted.0, TARGET_HALF_WIDTH) * adjusted.1,
        }
    }

    /// Adds the adjusted figures to a report's JSON object, under `mean_key` and
    /// `ci_key` (`adjusted_ppg` / `adjusted_ci95` for points per game).
    pub fn add_to_json(&self, v: &mut serde_json::Value, mean_key: &str, ci_key: &str) {
        v[mean_key] = stats::json_number(self.mean);
        v[ci_key] = stats::json_number(self.ci95);
        v["variance_ratio"] = stats::json_number(self.variance_ratio);
        v["judge"] = serde_json::json!(self.judge);
        v["games_needed"] = serde_json::json!({
            "ci95": TARGET_HALF_WIDTH,
            "plain": stats::json_number(self.needed_plain),
            "adjusted": stats::json_number(self.needed_adjusted),
        });
    }

    /// The line text reports print.
    pub fn text(&self, what: &str) -> String {
        format!(
            "luck-adjusted {what}: {:+.4} +/- {:.4} (95%; judge {}); variance ratio {:.2}; \
             games for +/- {TARGET_HALF_WIDTH}: {} plain, {} adjusted",
            self.mean,
            self.ci95,
            self.judge,
            self.variance_ratio,
            count_text(self.needed_plain),
            count_text(self.needed_adjusted),
        )
    }
}

fn count_text(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.0}")
    } else {
        "n/a".into()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::arena::referee::testing::{money, seat};
    use crate::arena::referee::{play_game, play_match, DiceStream};
    use crate::players::Decide;

    fn pip_judge() -> Judge {
        judge("pipsigmoid").unwrap()
    }

    #[test]
    fn judges_are_evaluators_at_depth_one() {
        assert!(judge("pipsigmoid").is_ok());
        assert!(judge("pubeval").is_err());
        assert!(judge("net,depth=3").is_err());
        assert!(judge("net,noise=0.1").is_err());
        assert!(judge("bogus").is_err());
        assert!(judge("").is_err());
        // The judge's precision is the spec's, and its name says so.
        assert_eq!(judge("net").unwrap().name(), "net");
        assert_eq!(
            judge("net,precision=int16").unwrap().name(),
            "net,precision=int16"
        );
    }

    #[test]
    fn money_luck_scales_with_the_cube() {
        // The same game valued with the cube at 1 and at 2 from the first roll on.
        let mut a = seat(7, 0.0, true);
        let mut b = seat(8, 0.0, true);
        let mut seats: [&mut dyn Decide; 2] = [&mut a, &mut b];
        let g = play_game(&mut seats, &mut DiceStream::new(7), &money(false));
        let mut j = pip_judge();
        let plain = game_luck(&mut j, &money(false), &g, 0);
        let mut doubled = g.clone();
        doubled.events.insert(0, Event::Double { seat: 0, cube: 2 });
        let twice = game_luck(&mut j, &money(false), &doubled, 0);
        assert!((twice - 2.0 * plain).abs() < 1e-9, "{twice} {plain}");
        // Seen from the other seat, the net luck changes sign.
        assert!((game_luck(&mut j, &money(false), &g, 1) + plain).abs() < 1e-12);
    }

    #[test]
    fn match_luck_is_in_match_winning_chance() {
        let mut a = seat(3, 0.3, true);
        let mut b = seat(4, 0.3, true);
        let mut seats: [&mut dyn Decide; 2] = [&mut a, &mut b];
        let m = play_match(
            &mut seats,
            &mut DiceStream::new(3),
            5,
            true,
            ["a".into(), "b".into()],
        );
        let mut j = pip_judge();
        for (setup, game) in &m.games {
            let l = game_luck(&mut j, setup, game, 0);
            // A game's luck in match-winning chance cannot exceed a whole match.
            assert!(l.is_finite() && l.abs() <= 2.0, "{l}");
        }
    }

    #[test]
    fn a_duel_game_and_a_refereed_game_agree() {
        // The referee's events replayed give the same luck as the turns listed directly.
        let mut a = seat(11, 0.0, true);
        let mut b = seat(12, 0.0, true);
        let mut seats: [&mut dyn Decide; 2] = [&mut a, &mut b];
        let g = play_game(&mut seats, &mut DiceStream::new(11), &money(false));
        let mut turns = Vec::new();
        let mut pos = Position::OPENING;
        let mut starter = None;
        for e in &g.events {
            if let Event::Move { seat, dice, play } = e {
                starter.get_or_insert(*seat);
                turns.push((pos, *dice));
                pos = play.position.swap();
            }
        }
        let mut j = pip_judge();
        let starter = starter.unwrap();
        let direct = duel_luck(&mut j, &turns);
        let replayed = game_luck(&mut j, &money(false), &g, starter);
        assert!((direct - replayed).abs() < 1e-12);
    }
}
