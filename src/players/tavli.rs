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
//!   gammons), and `net:PATH` either kind of weights file. The options of an engine spec
//!   search it as they search backgammon (`depth=3`, `algo=filter`, `time=...`, MCTS's
//!   `playouts=...`): the one searcher of [`crate::search`], built by
//!   [`crate::engine::build::tavli`].
//!
//! Every net player maximises the expected value of the game's four scores (single and
//! double win, single and double loss) under weights it is given: the points (money
//! play, `[1, 2, -1, -2]`) by default, or the chances of winning a match after each
//! score (`match --variant tavli`).

use std::fmt;
use std::sync::Arc;

use crate::engine::game::{utility_of_scores, GameEngine};
use crate::engine::EngineSpec;
use crate::eval::pubeval;
pub use crate::eval::tavli::TavliNets;
use crate::eval::tavli::{TavliNet, TavliProbs};
use crate::game::Rng;
use crate::search::{Cancel, Utility};
use crate::tavli::position::TavliPosition;
use crate::tavli::{RuleSwitches, TavliPlay, Variant};

/// A Tavli player spec, as `duel --variant` reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum TavliSpec {
    Random,
    Heuristic,
    Pubeval,
    /// The game's net searched as an engine spec says (`net`, `net:PATH`, any depth,
    /// algorithm, time budget), built by the engine builder.
    Net(Box<EngineSpec>),
    /// An engine over TCP (`tcp://HOST:PORT`) answering Tavli request lines
    /// (docs/VARIANTS.md, "Over the wire"): `stargammon serve` or any engine speaking them.
    Tcp(String),
}

impl TavliSpec {
    /// Parses `text` for `variant`; a player the variant cannot have is refused with the
    /// reason.
    pub fn parse(text: &str, variant: Variant) -> Result<TavliSpec, String> {
        if !variant.is_tavli() {
            return Err("these players are for the Tavli games (portes, plakoto, fevga)".into());
        }
        let t = text.trim();
        if let Some(addr) = t.strip_prefix("tcp://") {
            if addr.is_empty() || addr.contains(char::is_whitespace) || !addr.contains(':') {
                return Err(format!(
                    "bad engine {:?}: expected tcp://HOST:PORT",
                    t.chars().take(60).collect::<String>()
                ));
            }
            return Ok(TavliSpec::Tcp(addr.to_string()));
        }
        let head = t.split(',').next().unwrap_or("").trim();
        let fixed = match head {
            "random" => Some(TavliSpec::Random),
            "heuristic" => Some(TavliSpec::Heuristic),
            "pubeval" => Some(TavliSpec::Pubeval),
            _ => None,
        };
        if let Some(spec) = fixed {
            if t.contains(',') {
                return Err(format!("'{head}' takes no options (only a net searches)"));
            }
            if spec == TavliSpec::Pubeval && variant != Variant::Portes {
                return Err(format!(
                    "pubeval plays {} only through backgammon's evaluation, which fits \
                     Portes alone; {} takes net, heuristic or random",
                    variant.name(),
                    variant.name()
                ));
            }
            return Ok(spec);
        }
        if !(head == "net" || head.starts_with("net:")) {
            return Err(format!(
                "unknown {} player '{}' (known: net, net:PATH, heuristic, random{})",
                variant.name(),
                head.chars().take(40).collect::<String>(),
                if variant == Variant::Portes {
                    ", pubeval"
                } else {
                    ""
                }
            ));
        }
        let spec: EngineSpec = t
            .parse()
            .map_err(|e: crate::engine::SpecError| e.to_string())?;
        crate::engine::build::check_tavli(&spec).map_err(|e| e.to_string())?;
        Ok(TavliSpec::Net(Box::new(spec)))
    }

    /// The spec of the game's net at `depth` (Star2).
    pub fn net(depth: u8) -> TavliSpec {
        TavliSpec::Net(Box::new(EngineSpec {
            depth: crate::engine::Depth::new(u32::from(depth)).unwrap_or(crate::engine::Depth::ONE),
            ..EngineSpec::default()
        }))
    }
}

impl fmt::Display for TavliSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TavliSpec::Random => f.write_str("random"),
            TavliSpec::Heuristic => f.write_str("heuristic"),
            TavliSpec::Pubeval => f.write_str("pubeval"),
            TavliSpec::Net(spec) => write!(f, "{spec}"),
            TavliSpec::Tcp(addr) => write!(f, "tcp://{addr}"),
        }
    }
}

/// The value of each score to the player (single win, double win, single loss, double
/// loss): points in money play.
pub const MONEY: [f64; 4] = [1.0, 2.0, -1.0, -2.0];

/// A net player: the game's engine and what the player maximises.
#[derive(Clone, Debug)]
pub struct TavliSearchPlayer {
    pub engine: GameEngine<TavliPosition>,
    /// Money points unless a match sets the chances of each score.
    pub utility: Utility,
}

impl TavliSearchPlayer {
    pub fn new(engine: GameEngine<TavliPosition>) -> TavliSearchPlayer {
        TavliSearchPlayer {
            engine,
            utility: Utility::MONEY,
        }
    }

    /// The index among `plays` (the legal plays of `dice` in `before`) of the engine's
    /// choice.
    pub fn best(
        &self,
        before: &TavliPosition,
        dice: crate::game::Dice,
        plays: &[TavliPlay],
    ) -> usize {
        let decision = self
            .engine
            .choose(before, dice, self.utility, &Cancel::new());
        decision
            .best()
            .and_then(|b| plays.iter().position(|p| p.after == b.play.after))
            .unwrap_or(0)
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
    /// The depth of `value`: the deepest iteration that valued the play exactly (the
    /// plays valued deeper are listed first).
    pub depth: u8,
    /// The mover's chances after the play, searched as deep as its value (exact when the
    /// play ends the game).
    pub probs: TavliProbs,
}

/// Every legal play of `dice` in `pos`, ranked by `engine` (exact values at its deepest
/// iteration for up to `rank` plays), best first. A finished position has no plays; a roll
/// that cannot be played gives the one empty play. `cancel` stops the search: the last
/// completed iteration answers.
pub fn hint(
    engine: &GameEngine<TavliPosition>,
    pos: &TavliPosition,
    dice: crate::game::Dice,
    rank: usize,
    cancel: &Cancel,
) -> Vec<TavliHintPlay> {
    if pos.result().is_some() {
        return Vec::new();
    }
    hint_plays(&engine.hint(pos, dice, rank, cancel))
}

/// A search's ranked plays as hint lines (notation, value, depth, chances), in its order.
pub fn hint_plays(decision: &crate::search::MoveDecision<TavliPlay>) -> Vec<TavliHintPlay> {
    decision
        .plays
        .iter()
        .map(|r| TavliHintPlay {
            play: r.play,
            notation: crate::tavli::format_play(&r.play),
            value: r.equity,
            depth: r.depth,
            // A play that ends the game carries its certain outcome already.
            probs: TavliProbs::of_probabilities(&r.probs),
        })
        .collect()
}

/// Seconds a remote engine may take for one answer.
const REMOTE_TIMEOUT_S: u64 = 30;

/// An engine over TCP: one connection (opened at the first question, again after a
/// failure: [`super::socket::EngineConnection`], backgammon's engines' connection), one
/// request line per decision, the reply checked against the legal plays.
#[derive(Debug)]
pub struct RemoteTavli {
    addr: String,
    conn: Option<super::socket::EngineConnection>,
}

impl Clone for RemoteTavli {
    /// A copy opens its own connection.
    fn clone(&self) -> RemoteTavli {
        RemoteTavli {
            addr: self.addr.clone(),
            conn: None,
        }
    }
}

impl RemoteTavli {
    pub fn new(addr: &str) -> RemoteTavli {
        RemoteTavli {
            addr: addr.to_string(),
            conn: None,
        }
    }

    fn ask(&mut self, line: &str) -> Result<String, String> {
        let timeout = std::time::Duration::from_secs(REMOTE_TIMEOUT_S);
        let conn = match self.conn.as_mut() {
            Some(c) => c,
            None => self.conn.insert(
                super::socket::EngineConnection::connect(&self.addr, timeout)
                    .map_err(|e| format!("cannot connect to {}: {e}", self.addr))?,
            ),
        };
        conn.request(line).map_err(|e| {
            self.conn = None;
            format!("{}: {e}", self.addr)
        })
    }

    /// The engine's play of `dice` in `before`: the index among `plays` (the legal plays),
    /// or why its answer is no legal play.
    pub fn decide(
        &mut self,
        before: &TavliPosition,
        dice: crate::game::Dice,
        plays: &[TavliPlay],
    ) -> Result<usize, String> {
        let line = format!(
            "{} {}{}",
            crate::tavli::position_string(before),
            dice.high(),
            dice.low()
        );
        let reply = self.ask(&line)?;
        if reply.starts_with("Error") || reply.starts_with("sorry") {
            return Err(format!("the engine refused {line:?}: {reply}"));
        }
        let play = crate::tavli::parse_play(before, dice, &RuleSwitches::default(), &reply)
            .map_err(|e| format!("answer to {line:?}: {e}"))?;
        plays
            .iter()
            .position(|p| p.after == play.after)
            .ok_or_else(|| format!("answer to {line:?}: {reply:?} is not among the legal plays"))
    }
}

/// A ready player: it picks the index of a play.
#[derive(Clone)]
pub enum TavliPlayer {
    Random(Rng),
    Heuristic,
    Pubeval,
    Net(Box<TavliSearchPlayer>),
    Remote(Box<RemoteTavli>),
}

impl fmt::Debug for TavliPlayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TavliPlayer::Random(_) => "TavliPlayer::Random",
            TavliPlayer::Heuristic => "TavliPlayer::Heuristic",
            TavliPlayer::Pubeval => "TavliPlayer::Pubeval",
            TavliPlayer::Net(_) => "TavliPlayer::Net",
            TavliPlayer::Remote(_) => "TavliPlayer::Remote",
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
            TavliSpec::Net(spec) => TavliPlayer::Net(Box::new(TavliSearchPlayer::new(
                crate::engine::build::tavli(spec, variant).map_err(|e| e.to_string())?,
            ))),
            TavliSpec::Tcp(addr) => TavliPlayer::Remote(Box::new(RemoteTavli::new(addr))),
        })
    }

    /// A player of an in-memory Tavli net (training benchmarks).
    pub fn of_net(net: Arc<TavliNet>, depth: u8) -> TavliPlayer {
        let spec = EngineSpec {
            depth: crate::engine::Depth::new(u32::from(depth)).unwrap_or(crate::engine::Depth::ONE),
            tt_megabytes: 1,
            ..EngineSpec::default()
        };
        let table = Arc::new(crate::search::TranspositionTable::new(1));
        TavliPlayer::Net(Box::new(TavliSearchPlayer::new(
            crate::engine::build::game_engine(&spec, Arc::new(TavliNets::Tavli(net)), table),
        )))
    }

    /// Restarts a random player's stream at `seed` (the others have none).
    pub fn reseed(&mut self, seed: u64) {
        if let TavliPlayer::Random(rng) = self {
            *rng = Rng::seeded(seed);
        }
    }

    /// Sets the value of each score (single win, double win, single loss, double loss)
    /// for a net player; the others ignore it.
    pub fn set_values(&mut self, values: [f64; 4]) {
        if let TavliPlayer::Net(p) = self {
            p.utility = utility_of_scores(values);
        }
    }

    /// The index of the chosen play among `plays` (the legal plays of `dice`, not empty)
    /// for the side to act of `before`; a remote engine's failure or illegal answer is the
    /// error (the referee forfeits its game).
    pub fn decide(
        &mut self,
        before: &TavliPosition,
        dice: crate::game::Dice,
        plays: &[TavliPlay],
    ) -> Result<usize, String> {
        Ok(match self {
            TavliPlayer::Remote(r) => return r.decide(before, dice, plays),
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
                    p.best(before, dice, plays)
                }
            }
        })
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
    use crate::tavli::{legal_plays, RuleSwitches};

    #[test]
    fn specs_parse_by_variant() {
        assert_eq!(
            TavliSpec::parse("heuristic", Variant::Fevga),
            Ok(TavliSpec::Heuristic)
        );
        assert_eq!(
            TavliSpec::parse("net:x.sgnet", Variant::Portes)
                .unwrap()
                .to_string(),
            "net:x.sgnet"
        );
        let deep = TavliSpec::parse("net,depth=3", Variant::Plakoto).unwrap();
        assert_eq!(deep, TavliSpec::net(3));
        assert_eq!(deep.to_string(), "net,depth=3");
        let algo = TavliSpec::parse("net,depth=5,algorithm=star1", Variant::Fevga).unwrap();
        assert_eq!(algo.to_string(), "net,depth=5,algorithm=star1");
        assert_eq!(
            TavliSpec::parse(&deep.to_string(), Variant::Plakoto),
            Ok(deep)
        );
        // Every algorithm, depth and budget of backgammon's searcher plays the Tavli games.
        for text in [
            "net,depth=7",
            "net,algo=mcts,playouts=100",
            "net,depth=5,algo=filter,filter=9:0.16/3:0.06",
            "net,depth=5,time=200",
        ] {
            assert!(TavliSpec::parse(text, Variant::Plakoto).is_ok(), "{text}");
        }
        for (text, variant) in [
            ("net,depth=2", Variant::Plakoto),
            ("net,noise=0.1", Variant::Fevga),
            ("pubeval,depth=3", Variant::Portes),
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
        let rules = RuleSwitches::default();
        let dice = Dice::new(6, 1).unwrap();
        for variant in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            let start = TavliPosition::start(variant);
            let plays = legal_plays(&start, dice, &rules);
            assert!(!plays.is_empty());
            let mut specs = vec![
                TavliSpec::Random,
                TavliSpec::Heuristic,
                TavliSpec::net(1),
                TavliSpec::net(3),
            ];
            if variant == Variant::Portes {
                specs.push(TavliSpec::Pubeval);
            }
            for spec in specs {
                let mut p = TavliPlayer::build(&spec, variant, 1).unwrap();
                assert!(
                    p.decide(&start, dice, &plays).unwrap() < plays.len(),
                    "{variant:?} {spec}"
                );
            }
        }
    }

    #[test]
    fn the_heuristic_values_a_pin_in_plakoto_and_a_win_most() {
        // Pinning costs the pinned side: the same checkers score higher with the opponent's
        // checker pinned than with the mover's.
        let rules = RuleSwitches::default();
        let start = TavliPosition::start(Variant::Plakoto);
        let plays = legal_plays(&start, Dice::new(5, 2).unwrap(), &rules);
        let dice = Dice::new(5, 2).unwrap();
        let best = &plays[TavliPlayer::Heuristic.decide(&start, dice, &plays).unwrap()];
        assert!(heuristic_score(&best.after).is_finite());
        assert!(heuristic_score(&best.after) < 100.0);
    }
}
