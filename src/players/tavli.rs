//! Players of the Tavli games (Portes, Plakoto, Fevga): they pick one of the legal plays
//! of [`crate::tavli`].
//!
//! - `random`: a uniformly random legal play (seeded).
//! - `heuristic`: the yardstick of each game, one score of the position after the play
//!   (see [`heuristic_score`]): the race, the safety of its checkers, and what the game
//!   turns on (hits in Portes, pins in Plakoto, blocks and primes in Fevga).
//! - `pubeval` (Portes only): Tesauro's pubeval on the same checkers as a backgammon
//!   position (Portes moves as backgammon does).
//! - `net` / `net:PATH`: the game's net (three outputs, [`crate::eval::tavli`]); in Portes
//!   `net` is the backgammon nets on the same checkers, valued with Tavli scoring (a
//!   gammon counts 2 and there are no triples, so the backgammon outputs count as
//!   gammons), and `net:PATH` either kind of weights file. `,depth=3` adds a look-ahead:
//!   the best candidates of the one-ply ranking are valued by the opponent's best reply
//!   to each of the 21 rolls (expectimax; the paper's "2-ply").
//!
//! Every net player maximises the expected value of the game's four scores (single and
//! double win, single and double loss) under weights it is given: the points (money
//! play, `[1, 2, -1, -2]`) by default, or the chances of winning a match after each
//! score (`match --variant tavli`, M5).

use std::fmt;
use std::sync::Arc;

use crate::eval::tavli::{TavliNet, TavliProbs, TavliScratch};
use crate::eval::{pubeval, Evaluator, NeuralEvaluator};
use crate::game::Rng;
use crate::tavli::position::TavliPosition;
use crate::tavli::{generate_plays, Rules, TavliPlay, TavliPlayList, Variant};

/// A Tavli player spec, as `duel --variant` reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TavliSpec {
    Random,
    Heuristic,
    Pubeval,
    /// The game's net (the shipped one, or a weights file), searched to `depth` (1 or 3).
    Net {
        path: Option<String>,
        depth: u8,
    },
}

impl TavliSpec {
    /// Parses `text` for `variant`; a player the variant cannot have is refused with the
    /// reason.
    pub fn parse(text: &str, variant: Variant) -> Result<TavliSpec, String> {
        let t = text.trim();
        let (head, options) = match t.split_once(',') {
            Some((h, o)) => (h.trim(), Some(o)),
            None => (t, None),
        };
        let mut spec = match head {
            "random" => TavliSpec::Random,
            "heuristic" => TavliSpec::Heuristic,
            "pubeval" => TavliSpec::Pubeval,
            "net" => TavliSpec::Net {
                path: None,
                depth: 1,
            },
            _ => match head.strip_prefix("net:") {
                Some("") => return Err("net: needs a weights file (net:PATH)".into()),
                Some(path) => TavliSpec::Net {
                    path: Some(path.to_string()),
                    depth: 1,
                },
                None => {
                    return Err(format!(
                        "unknown {} player '{}' (known: net, net:PATH, heuristic, random{})",
                        variant.name(),
                        head.chars().take(40).collect::<String>(),
                        if variant == Variant::Portes {
                            ", pubeval"
                        } else {
                            ""
                        }
                    ))
                }
            },
        };
        if let Some(options) = options {
            for opt in options.split(',') {
                let opt = opt.trim();
                let value = opt.strip_prefix("depth=");
                match (&mut spec, value) {
                    (TavliSpec::Net { depth, .. }, Some(v)) => {
                        *depth = match v.trim() {
                            "1" => 1,
                            "3" => 3,
                            _ => {
                                return Err(format!(
                                    "depth={} (a Tavli net searches to depth 1 or 3)",
                                    v.chars().take(20).collect::<String>()
                                ))
                            }
                        }
                    }
                    (TavliSpec::Net { .. }, None) => {
                        return Err(format!(
                            "unknown option '{}' (a Tavli net takes depth=1 or depth=3)",
                            opt.chars().take(40).collect::<String>()
                        ))
                    }
                    _ => {
                        return Err(format!(
                            "'{head}' takes no options (only a net takes depth=...)"
                        ))
                    }
                }
            }
        }
        if spec == TavliSpec::Pubeval && variant != Variant::Portes {
            return Err(format!(
                "pubeval plays {} only through backgammon's evaluation, which fits Portes \
                 alone; {} takes net, heuristic or random",
                variant.name(),
                variant.name()
            ));
        }
        if !variant.is_tavli() {
            return Err("these players are for the Tavli games (portes, plakoto, fevga)".into());
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
            TavliSpec::Net { path, depth } => {
                match path {
                    None => f.write_str("net")?,
                    Some(p) => write!(f, "net:{p}")?,
                }
                if *depth != 1 {
                    write!(f, ",depth={depth}")?;
                }
                Ok(())
            }
        }
    }
}

/// The evaluator behind a net player.
#[derive(Clone, Debug)]
pub enum TavliNets {
    /// Backgammon's nets on Portes' checkers.
    Backgammon(Arc<NeuralEvaluator>),
    /// A Tavli net of the game.
    Tavli(Arc<TavliNet>),
}

impl TavliNets {
    /// Loads the nets of `path` (or the game's shipped ones) for `variant`: a Tavli net
    /// must be the game's own; backgammon nets fit Portes only.
    pub fn load(variant: Variant, path: Option<&str>) -> Result<TavliNets, String> {
        let path = match (path, variant) {
            (Some(p), _) => std::path::PathBuf::from(p),
            (None, Variant::Portes) => {
                return Ok(TavliNets::Backgammon(Arc::new(
                    NeuralEvaluator::default_nets().map_err(|e| e.to_string())?,
                )))
            }
            (None, v) => {
                return TavliNet::shipped(v)
                    .map(|n| TavliNets::Tavli(Arc::new(n)))
                    .map_err(|e| format!("the shipped {v} net: {e}"))
            }
        };
        let bytes =
            std::fs::read(&path).map_err(|e| format!("weights file {}: {e}", path.display()))?;
        match TavliNet::from_bytes(&bytes) {
            Ok(net) if net.variant() == variant => Ok(TavliNets::Tavli(Arc::new(net))),
            Ok(net) => Err(format!(
                "{} holds a {} net, not a {variant} one",
                path.display(),
                net.variant()
            )),
            Err(tavli_err) if variant == Variant::Portes => {
                match crate::eval::NetSet::from_bytes(&bytes) {
                    Ok(nets) => Ok(TavliNets::Backgammon(Arc::new(NeuralEvaluator::new(
                        nets,
                        path.display().to_string(),
                    )))),
                    Err(_) => Err(format!("{}: {tavli_err}", path.display())),
                }
            }
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// W, WD, LD of `pos` for its side to act (exact when the game is over).
    pub fn probs(&self, pos: &TavliPosition, scratch: &mut TavliScratch) -> TavliProbs {
        match self {
            TavliNets::Tavli(net) => net.evaluate(pos, scratch),
            TavliNets::Backgammon(ev) => {
                if let Some(o) = pos.result() {
                    return TavliProbs::of_outcome(o);
                }
                match pos.to_backgammon() {
                    Some(bg) => {
                        let p = ev.evaluate(&bg).0;
                        TavliProbs([p[0], p[1], p[3]])
                    }
                    None => TavliProbs([0.5, 0.0, 0.0]),
                }
            }
        }
    }
}

/// The value of each score to the player (single win, double win, single loss, double
/// loss): points in money play.
pub const MONEY: [f64; 4] = [1.0, 2.0, -1.0, -2.0];

/// The expected value of `p` (the mover's chances) under score values `v`.
#[inline]
pub fn expected(p: &TavliProbs, v: &[f64; 4]) -> f64 {
    let s = p.scores();
    s[0] * v[0] + s[1] * v[1] + s[2] * v[2] + s[3] * v[3]
}

/// A net player's state: its nets, depth, score values and scratch space.
#[derive(Clone, Debug)]
pub struct NetPlayer {
    pub nets: TavliNets,
    pub depth: u8,
    /// The value to this player of each score ([`MONEY`] unless a match sets them).
    pub values: [f64; 4],
    rules: Rules,
    scratch: TavliScratch,
    list: TavliPlayList,
}

/// Candidates of the one-ply ranking that depth 3 looks at more closely.
const DEPTH3_CANDIDATES: usize = 8;
/// Candidates further behind the best one-ply value than this are not searched.
const DEPTH3_MARGIN: f64 = 0.25;

impl NetPlayer {
    pub fn new(nets: TavliNets, depth: u8) -> NetPlayer {
        NetPlayer {
            nets,
            depth,
            values: MONEY,
            rules: Rules::default(),
            scratch: TavliScratch::default(),
            list: TavliPlayList::new(),
        }
    }

    /// The mover's value of the position after its play (`after`, its view): the
    /// opponent's chances before its roll, seen from the mover's side.
    fn one_ply(&mut self, after: &TavliPosition) -> f64 {
        let p = match after.result() {
            Some(o) => TavliProbs::of_outcome(o),
            None => self.nets.probs(&after.swap(), &mut self.scratch).invert(),
        };
        expected(&p, &self.values)
    }

    /// The mover's value of `after` when the opponent answers each roll with its best
    /// one-ply play (the play that leaves the mover least).
    fn two_ply(&mut self, after: &TavliPosition) -> f64 {
        if let Some(o) = after.result() {
            return expected(&TavliProbs::of_outcome(o), &self.values);
        }
        let opp = after.swap();
        let mut total = 0.0;
        let mut list = std::mem::take(&mut self.list);
        for dice in crate::game::ALL_ROLLS {
            generate_plays(&opp, dice, &self.rules, &mut list);
            let mut worst = f64::INFINITY;
            for play in list.iter() {
                // The opponent's play leaves the mover to act in `play.next_position()`.
                let p = match play.after.result() {
                    Some(o) => TavliProbs::of_outcome(o).invert(),
                    None => self.nets.probs(&play.next_position(), &mut self.scratch),
                };
                worst = worst.min(expected(&p, &self.values));
            }
            if worst.is_finite() {
                total += worst * f64::from(dice.weight());
            }
        }
        self.list = list;
        total / 36.0
    }

    /// The index of the best play and the values of every play (one ply; the searched
    /// candidates get their depth-3 value).
    pub fn rank(&mut self, plays: &[TavliPlay]) -> (usize, Vec<f64>) {
        let mut values: Vec<f64> = plays.iter().map(|p| self.one_ply(&p.after)).collect();
        if self.depth >= 3 && plays.len() > 1 {
            let mut order: Vec<usize> = (0..plays.len()).collect();
            order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
            let best = values[order[0]];
            for &i in order.iter().take(DEPTH3_CANDIDATES) {
                if values[i] < best - DEPTH3_MARGIN && i != order[0] {
                    values[i] = f64::NEG_INFINITY;
                    continue;
                }
                values[i] = self.two_ply(&plays[i].after);
            }
            for &i in order.iter().skip(DEPTH3_CANDIDATES) {
                values[i] = f64::NEG_INFINITY;
            }
        }
        (argmax(values.iter().copied()), values)
    }
}

/// One play of a Tavli hint, best first.
#[derive(Debug, Clone)]
pub struct TavliHintPlay {
    pub play: TavliPlay,
    /// The play in gnubg's notation (`*` a hit or pin).
    pub notation: String,
    /// The value for the mover (points per game at money play) at `depth`.
    pub value: f64,
    /// The depth of `value`: the hint's depth for the plays depth 3 searched, 1 for the
    /// others (listed after them).
    pub depth: u8,
    /// The mover's chances after the play (one ply: the net's view of the opponent to
    /// roll, inverted; exact when the play ends the game).
    pub probs: TavliProbs,
}

/// Every legal play of `dice` in `pos`, ranked by `nets` searched to `depth` (1 or 3),
/// best first. A finished position has no plays; a roll that cannot be played gives the
/// one empty play.
pub fn hint(
    nets: &TavliNets,
    depth: u8,
    pos: &TavliPosition,
    dice: crate::game::Dice,
) -> Vec<TavliHintPlay> {
    let plays = crate::tavli::legal_plays(pos, dice, &Rules::default());
    let mut player = NetPlayer::new(nets.clone(), depth);
    let (_, values) = player.rank(&plays);
    let mut out: Vec<TavliHintPlay> = plays
        .iter()
        .zip(&values)
        .map(|(play, &value)| {
            let probs = match play.after.result() {
                Some(o) => TavliProbs::of_outcome(o),
                None => nets
                    .probs(&play.next_position(), &mut player.scratch)
                    .invert(),
            };
            // Plays depth 3 did not search keep their one-ply value, so that every play
            // is listed with a number, after the searched ones.
            let (value, d) = if value.is_finite() {
                (value, depth.max(1))
            } else {
                (f64::from(probs.value()), 1)
            };
            TavliHintPlay {
                play: *play,
                notation: crate::tavli::format_play(play),
                value,
                depth: d,
                probs,
            }
        })
        .collect();
    out.sort_by(|a, b| b.depth.cmp(&a.depth).then(b.value.total_cmp(&a.value)));
    out
}

/// A ready player: it picks the index of a play.
#[derive(Clone)]
pub enum TavliPlayer {
    Random(Rng),
    Heuristic,
    Pubeval,
    Net(Box<NetPlayer>),
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
    /// Builds the player of `spec` for `variant` (loads the nets once); `seed` seeds a
    /// random player.
    pub fn build(spec: &TavliSpec, variant: Variant, seed: u64) -> Result<TavliPlayer, String> {
        Ok(match spec {
            TavliSpec::Random => TavliPlayer::Random(Rng::seeded(seed)),
            TavliSpec::Heuristic => TavliPlayer::Heuristic,
            TavliSpec::Pubeval => TavliPlayer::Pubeval,
            TavliSpec::Net { path, depth } => TavliPlayer::Net(Box::new(NetPlayer::new(
                TavliNets::load(variant, path.as_deref())?,
                *depth,
            ))),
        })
    }

    /// A player of an in-memory Tavli net (training benchmarks).
    pub fn of_net(net: Arc<TavliNet>, depth: u8) -> TavliPlayer {
        TavliPlayer::Net(Box::new(NetPlayer::new(TavliNets::Tavli(net), depth)))
    }

    /// Sets the value of each score (single win, double win, single loss, double loss)
    /// for a net player; the others ignore it.
    pub fn set_values(&mut self, values: [f64; 4]) {
        if let TavliPlayer::Net(p) = self {
            p.values = values;
        }
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
            TavliPlayer::Net(p) => {
                if plays.len() == 1 {
                    0
                } else {
                    p.rank(plays).0
                }
            }
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
            Ok(TavliSpec::Net {
                path: Some("x.sgnet".into()),
                depth: 1
            })
        );
        let deep = TavliSpec::parse("net,depth=3", Variant::Plakoto).unwrap();
        assert_eq!(deep.to_string(), "net,depth=3");
        assert_eq!(
            TavliSpec::parse(&deep.to_string(), Variant::Plakoto),
            Ok(deep)
        );
        for (text, variant) in [
            ("net,depth=2", Variant::Plakoto),
            ("net,speed=3", Variant::Plakoto),
            ("heuristic,depth=3", Variant::Plakoto),
            ("pubeval", Variant::Fevga),
            ("alpha", Variant::Portes),
            ("net:", Variant::Portes),
            ("net", Variant::Backgammon),
            ("net,depth=\u{e9}\u{e9}", Variant::Fevga),
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
            let mut specs = vec![
                TavliSpec::Random,
                TavliSpec::Heuristic,
                TavliSpec::Net {
                    path: None,
                    depth: 1,
                },
                TavliSpec::Net {
                    path: None,
                    depth: 3,
                },
            ];
            if variant == Variant::Portes {
                specs.push(TavliSpec::Pubeval);
            }
            for spec in specs {
                let mut p = TavliPlayer::build(&spec, variant, 1).unwrap();
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
