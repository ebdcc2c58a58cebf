//! Players of the Tavli games (Portes, Plakoto, Fevga): they pick one of the legal plays
//! of [`crate::tavli`].
//!
//! - `random`: a uniformly random legal play (seeded).
//! - `heuristic`: the yardstick of each game, one score of the position after the play
//!   (see [`heuristic_score`]): the race, the safety of its checkers, and what the game
//!   turns on (hits in Portes, pins in Plakoto, blocks and primes in Fevga).
//! - `pubeval` (Portes only): Tesauro's pubeval on the same checkers as a backgammon
//!   position (Portes moves as backgammon does).
//! - `net` / `net:PATH` (Portes only): the backgammon nets on the same checkers, valued
//!   with Tavli scoring (a gammon counts 2 and there are no triples, so the backgammon
//!   outputs count as gammons), one ply.
//!
//! Nets of their own for Plakoto and Fevga are not trained yet: those games take
//! `heuristic` and `random`.

use std::fmt;
use std::sync::Arc;

use crate::eval::{pubeval, Evaluator, NetSet, NeuralEvaluator};
use crate::game::Rng;
use crate::tavli::position::TavliPosition;
use crate::tavli::{TavliPlay, Variant};

/// A Tavli player spec, as `duel --variant` reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TavliSpec {
    Random,
    Heuristic,
    Pubeval,
    /// The backgammon nets: the shipped ones, or a weights file.
    Net(Option<String>),
}

impl TavliSpec {
    /// Parses `text` for `variant`; a player the variant cannot have is refused with the
    /// reason.
    pub fn parse(text: &str, variant: Variant) -> Result<TavliSpec, String> {
        let t = text.trim();
        let spec = match t {
            "random" => TavliSpec::Random,
            "heuristic" => TavliSpec::Heuristic,
            "pubeval" => TavliSpec::Pubeval,
            "net" => TavliSpec::Net(None),
            _ => match t.strip_prefix("net:") {
                Some("") => return Err("net: needs a weights file (net:PATH)".into()),
                Some(path) => TavliSpec::Net(Some(path.to_string())),
                None => {
                    return Err(format!(
                        "unknown {} player '{t}' (known: heuristic, random{})",
                        variant.name(),
                        if variant == Variant::Portes {
                            ", pubeval, net, net:PATH"
                        } else {
                            ""
                        }
                    ))
                }
            },
        };
        if matches!(spec, TavliSpec::Pubeval | TavliSpec::Net(_)) && variant != Variant::Portes {
            return Err(format!(
                "'{t}' plays {} only through backgammon's evaluation, which fits Portes alone; \
                 {} takes heuristic or random",
                variant.name(),
                variant.name()
            ));
        }
        Ok(spec)
    }
}

impl fmt::Display for TavliSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TavliSpec::Random => f.write_str("random"),
            TavliSpec::Heuristic => f.write_str("heuristic"),
            TavliSpec::Pubeval => f.write_str("pubeval"),
            TavliSpec::Net(None) => f.write_str("net"),
            TavliSpec::Net(Some(p)) => write!(f, "net:{p}"),
        }
    }
}

/// A ready player: it picks the index of a play.
#[derive(Clone)]
pub enum TavliPlayer {
    Random(Rng),
    Heuristic,
    Pubeval,
    Net(Arc<NeuralEvaluator>),
}

impl fmt::Debug for TavliPlayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TavliPlayer::Random(_) => "TavliPlayer::Random",
            TavliPlayer::Heuristic => "TavliPlayer::Heuristic",
            TavliPlayer::Pubeval => "TavliPlayer::Pubeval",
            TavliPlayer::Net(_) => "TavliPlayer::Net",
        })
    }
}

impl TavliPlayer {
    /// Builds the player of `spec` (loads the nets once); `seed` seeds a random player.
    pub fn build(spec: &TavliSpec, seed: u64) -> Result<TavliPlayer, String> {
        Ok(match spec {
            TavliSpec::Random => TavliPlayer::Random(Rng::seeded(seed)),
            TavliSpec::Heuristic => TavliPlayer::Heuristic,
            TavliSpec::Pubeval => TavliPlayer::Pubeval,
            TavliSpec::Net(None) => TavliPlayer::Net(Arc::new(
                NeuralEvaluator::default_nets().map_err(|e| e.to_string())?,
            )),
            TavliSpec::Net(Some(path)) => {
                let nets = NetSet::load(std::path::Path::new(path)).map_err(|e| e.to_string())?;
                TavliPlayer::Net(Arc::new(NeuralEvaluator::new(nets, path.clone())))
            }
        })
    }

    /// The index of the chosen play among `plays` (not empty), for the side to act of
    /// `before`.
    pub fn choose(&mut self, before: &TavliPosition, plays: &[TavliPlay]) -> usize {
        match self {
            TavliPlayer::Random(rng) => rng.index(plays.len()),
            TavliPlayer::Heuristic => argmax(plays.iter().map(|p| heuristic_score(&p.after))),
            TavliPlayer::Pubeval => {
                let race = before.to_backgammon().is_some_and(|b| pubeval::is_race(&b));
                argmax(plays.iter().map(|p| match p.after.to_backgammon() {
                    Some(after) => f64::from(pubeval::score(&after, race)),
                    None => f64::NEG_INFINITY,
                }))
            }
            TavliPlayer::Net(ev) => argmax(plays.iter().map(|p| net_equity(ev, &p.after))),
        }
    }
}

/// The index of the largest value (the first of equals).
fn argmax(values: impl Iterator<Item = f64>) -> usize {
    let mut best = (0, f64::NEG_INFINITY);
    for (i, v) in values.enumerate() {
        if v > best.1 {
            best = (i, v);
        }
    }
    best.0
}

/// The mover's equity in Tavli scoring of `after` (the position after its play, from its
/// view): exact when the game is over, else the backgammon nets' view of the opponent to
/// roll, negated, with gammons and backgammons both worth 2.
pub fn net_equity(ev: &NeuralEvaluator, after: &TavliPosition) -> f64 {
    if let Some(done) = after.result() {
        return f64::from(done.mover_points());
    }
    let Some(bg) = after.swap().to_backgammon() else {
        return 0.0;
    };
    let p = ev.evaluate(&bg).0;
    let opponent = 2.0 * f64::from(p[0]) - 1.0 + f64::from(p[1]) - f64::from(p[3]);
    -opponent
}

/// The heuristic's score of `after` (the position after the play, from the mover's view;
/// higher is better). In points-like units:
/// - race: the opponent's pips minus the mover's, over 10 (in Portes hitting raises the
///   opponent's count), and 1 for each checker borne off;
/// - safety (Portes and Plakoto, where a lone checker can be hit or pinned): -1 for each
///   lone checker of the mover's on the board, -0.5 more for one outside its home
///   quarter, and +0.5 for each point held with two or more;
/// - Plakoto: +3 for each opposing checker pinned (+10 for the mother checker on the
///   opponent's starting point), -3 for each of the mover's pinned (-10 for its mother);
/// - Fevga (no hits, any checker blocks a point): +0.5 for each point held, and the
///   square of the longest run of consecutive points held, over 4 (primes);
/// - a finished game: its points times 100.
pub fn heuristic_score(after: &TavliPosition) -> f64 {
    if let Some(done) = after.result() {
        return 100.0 * f64::from(done.mover_points());
    }
    let variant = after.variant();
    let me = after.counts(0);
    let mut s = (f64::from(after.pips(1)) - f64::from(after.pips(0))) / 10.0;
    s += f64::from(after.off(0));
    match variant {
        Variant::Fevga => {
            let mut run = 0u32;
            let mut longest = 0u32;
            for &n in &me[1..=24] {
                if n > 0 {
                    s += 0.5;
                    run += 1;
                    longest = longest.max(run);
                } else {
                    run = 0;
                }
            }
            s += f64::from(longest * longest) / 4.0;
        }
        _ => {
            let pinned = after.pins(0);
            for (point, &n) in me.iter().enumerate().take(25).skip(1) {
                let is_pinned = pinned & (1 << point) != 0;
                if n == 1 && !is_pinned {
                    s -= 1.0;
                    if point > 6 {
                        s -= 0.5;
                    }
                } else if n >= 2 {
                    s += 0.5;
                }
            }
            if variant == Variant::Plakoto {
                let pin_value = |side: usize| {
                    let mother = after.mother_pinned(side);
                    let others = after.pins(side).count_ones() - u32::from(mother);
                    3.0 * f64::from(others) + if mother { 10.0 } else { 0.0 }
                };
                s += pin_value(1) - pin_value(0);
            }
        }
    }
    s
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::Dice;
    use crate::tavli::{legal_plays, Rules};

    #[test]
    fn specs_parse_by_variant() {
        assert_eq!(
            TavliSpec::parse("heuristic", Variant::Fevga),
            Ok(TavliSpec::Heuristic)
        );
        assert_eq!(
            TavliSpec::parse("net:x.sgnet", Variant::Portes),
            Ok(TavliSpec::Net(Some("x.sgnet".into())))
        );
        for (text, variant) in [
            ("net", Variant::Plakoto),
            ("pubeval", Variant::Fevga),
            ("alpha", Variant::Portes),
            ("net:", Variant::Portes),
        ] {
            let e = TavliSpec::parse(text, variant).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn every_player_picks_a_legal_play_in_every_game() {
        let rules = Rules::default();
        let dice = Dice::new(6, 1).unwrap();
        for variant in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            let start = TavliPosition::start(variant);
            let plays = legal_plays(&start, dice, &rules);
            assert!(!plays.is_empty());
            let mut specs = vec![TavliSpec::Random, TavliSpec::Heuristic];
            if variant == Variant::Portes {
                specs.extend([TavliSpec::Pubeval, TavliSpec::Net(None)]);
            }
            for spec in specs {
                let mut p = TavliPlayer::build(&spec, 1).unwrap();
                assert!(p.choose(&start, &plays) < plays.len(), "{variant:?} {spec}");
            }
        }
    }

    #[test]
    fn the_heuristic_values_a_pin_in_plakoto_and_a_win_most() {
        // Pinning costs the pinned side: the same checkers score higher with the opponent's
        // checker pinned than with the mover's.
        let rules = Rules::default();
        let start = TavliPosition::start(Variant::Plakoto);
        let plays = legal_plays(&start, Dice::new(5, 2).unwrap(), &rules);
        let best = &plays[TavliPlayer::Heuristic.choose(&start, &plays)];
        assert!(heuristic_score(&best.after).is_finite());
        assert!(heuristic_score(&best.after) < 100.0);
    }
}
