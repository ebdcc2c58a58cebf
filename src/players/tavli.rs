//! Players of the Tavli games (Portes, Plakoto, Fevga): backgammon's deciders, each a
//! [`Decide<TavliPosition>`](Decide) too, built from the same player specs by
//! [`factory`]:
//!
//! - `random`: a uniformly random legal play (seeded by each game's seed);
//! - `heuristic`: the yardstick of each game, one score of the position after the play
//!   (see [`heuristic_score`]): the race, the safety of its checkers, and what the game
//!   turns on (hits in Portes, pins in Plakoto, blocks and primes in Fevga);
//! - `pubeval` (Portes only): Tesauro's pubeval on the same checkers as a backgammon
//!   position (Portes moves as backgammon does);
//! - `net` / `net:PATH`, with any option of an engine spec (`depth=3`, `algo=filter`,
//!   `time_ms=...`, MCTS's `playouts=...`): the game's net searched by the one searcher of
//!   [`crate::search`], built by [`crate::engine::build::tavli`]. In Portes `net` is the
//!   backgammon nets on the same checkers, valued with Tavli scoring (a gammon counts 2
//!   and there are no triples, so the backgammon outputs count as gammons), and
//!   `net:PATH` either kind of weights file;
//! - `tcp://HOST:PORT`: an engine over TCP answering Tavli request lines ([`RemoteTavli`]).
//!
//! Every net player maximises the expected value of the game's four scores (single and
//! double win, single and double loss) under the weights of its [`TavliTurn`]: the points
//! in money play ([`super::MONEY`]), or the chances of winning a match after each score
//! (`match --variant tavli`).

use std::sync::Arc;

use super::{
    Decide, DecideError, DecideErrorKind, GameBuildError, HeuristicPlayer, PlayerFactory,
    PlayerSpec, PlayerSpecError, PubevalPlayer, RandomPlayer, SearchPlayer, TavliTurn,
};
use crate::engine::cube_detail::r6;
use crate::engine::game::utility_of_scores;
use crate::engine::{EngineSpec, EvaluatorKind};
use crate::eval::pubeval;
pub use crate::eval::tavli::TavliNets;
use crate::eval::tavli::{TavliNet, TavliProbs};
use crate::game::Variant;
use crate::search::Utility;
use crate::tavli::position::TavliPosition;
use crate::tavli::{RuleSwitches, TavliPlay};

/// Parses `text` as a player of `variant` and builds it (loading its nets once): a
/// factory of one decider per thread. A player the game cannot have is refused with the
/// reason.
pub fn factory(
    text: &str,
    variant: Variant,
) -> Result<PlayerFactory<TavliPosition>, GameBuildError> {
    if !variant.is_tavli() {
        return Err(PlayerSpecError::NotForGame(
            "these players are for the Tavli games (portes, plakoto, fevga)".into(),
        )
        .into());
    }
    let text = text.trim();
    if let Some(addrs) = super::socket::parse_tcp_engine(text) {
        let [addr] = <[String; 1]>::try_from(addrs).map_err(|_| {
            PlayerSpecError::NotForGame("a Tavli engine over TCP has one address".into())
        })?;
        return Ok(PlayerFactory::of_game(text, move || {
            Box::new(RemoteTavli::new(&addr))
        }));
    }
    if text.starts_with("tcp://") {
        return Err(PlayerSpecError::NotForGame(format!(
            "bad engine {:?}: expected tcp://HOST:PORT",
            text.chars().take(60).collect::<String>()
        ))
        .into());
    }
    let spec = PlayerSpec::parse(text)?;
    build(&spec.engine, spec.text(), variant)
}

/// The factory of the net of `variant` searched at `depth`.
pub fn net(variant: Variant, depth: u8) -> Result<PlayerFactory<TavliPosition>, GameBuildError> {
    let spec = EngineSpec {
        depth: crate::engine::Depth::new(u32::from(depth)).unwrap_or(crate::engine::Depth::ONE),
        ..EngineSpec::default()
    };
    build(&spec, &spec.to_string(), variant)
}

/// Builds the player of an engine spec for `variant`, named `name`.
fn build(
    spec: &EngineSpec,
    name: &str,
    variant: Variant,
) -> Result<PlayerFactory<TavliPosition>, GameBuildError> {
    spec.validate()?;
    let name = name.to_string();
    Ok(match &spec.evaluator {
        EvaluatorKind::Random => PlayerFactory::of_game(name, || Box::new(RandomPlayer::new(0))),
        EvaluatorKind::Heuristic => {
            PlayerFactory::of_game(name, || Box::new(HeuristicPlayer::new()))
        }
        EvaluatorKind::Pubeval => {
            if variant != Variant::Portes {
                return Err(PlayerSpecError::NotForGame(format!(
                    "pubeval plays {} only through backgammon's evaluation, which fits \
                     Portes alone; {} takes net, heuristic or random",
                    variant.name(),
                    variant.name()
                ))
                .into());
            }
            PlayerFactory::of_game(name, || Box::new(PubevalPlayer))
        }
        _ => {
            let engine = crate::engine::build::tavli(spec, variant)?;
            let player = SearchPlayer::new(
                engine.searcher.clone(),
                engine.settings(Utility::MONEY),
                name.clone(),
            );
            PlayerFactory::of_game(name, move || Box::new(player.clone()))
        }
    })
}

/// A player of an in-memory Tavli net searched at `depth` (training benchmarks).
pub fn of_net(net: Arc<TavliNet>, depth: u8) -> SearchPlayer<TavliPosition> {
    let spec = EngineSpec {
        depth: crate::engine::Depth::new(u32::from(depth)).unwrap_or(crate::engine::Depth::ONE),
        tt_megabytes: 1,
        ..EngineSpec::default()
    };
    let table = Arc::new(crate::search::TranspositionTable::new(1));
    let engine = crate::engine::build::game_engine(&spec, Arc::new(TavliNets::Tavli(net)), table);
    SearchPlayer::new(
        engine.searcher.clone(),
        engine.settings(Utility::MONEY),
        format!("net,depth={depth}"),
    )
}

/// The play of `plays` at index `i` as an answer (the first when `i` is out of range:
/// in-process choosers return an index of the list they were given).
fn pick(plays: &[TavliPlay], i: usize) -> Result<TavliPlay, DecideError> {
    plays.get(i).or(plays.first()).copied().ok_or(DecideError {
        kind: DecideErrorKind::Illegal("no legal play to choose from".into()),
        request: String::new(),
        reply: String::new(),
    })
}

impl Decide<TavliPosition> for SearchPlayer<TavliPosition> {
    fn name(&self) -> String {
        self.player_name()
    }

    fn decide(&mut self, turn: &TavliTurn, plays: &[TavliPlay]) -> Result<TavliPlay, DecideError> {
        self.settings.utility = utility_of_scores(turn.values);
        let i = self.choose(&turn.position, turn.dice, plays);
        pick(plays, i)
    }
}

impl Decide<TavliPosition> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn new_game(&mut self, seed: u64) {
        self.reseed(seed);
    }

    fn decide(&mut self, _turn: &TavliTurn, plays: &[TavliPlay]) -> Result<TavliPlay, DecideError> {
        let i = self.index(plays.len());
        pick(plays, i)
    }
}

impl Decide<TavliPosition> for HeuristicPlayer {
    fn name(&self) -> String {
        "heuristic".into()
    }

    fn decide(&mut self, _turn: &TavliTurn, plays: &[TavliPlay]) -> Result<TavliPlay, DecideError> {
        pick(
            plays,
            argmax(plays.iter().map(|p| heuristic_score(&p.after))),
        )
    }
}

impl Decide<TavliPosition> for PubevalPlayer {
    fn name(&self) -> String {
        "pubeval".into()
    }

    fn decide(&mut self, turn: &TavliTurn, plays: &[TavliPlay]) -> Result<TavliPlay, DecideError> {
        let race = turn
            .position
            .to_backgammon()
            .is_some_and(|b| pubeval::is_race(&b));
        let best = argmax(plays.iter().map(|p| match p.after.to_backgammon() {
            Some(after) => f64::from(pubeval::score(&after, race)),
            None => f64::NEG_INFINITY,
        }));
        pick(plays, best)
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

impl TavliHintPlay {
    /// The play as `hint --json` and `/v1/tavli/move` list it, with its value less the
    /// `best` one.
    pub fn json(&self, best: f64) -> serde_json::Value {
        let [w, wd, ld] = self.probs.0.map(|x| r6(f64::from(x)));
        serde_json::json!({
            "move": self.notation,
            "value": r6(self.value),
            "diff": r6(self.value - best),
            "depth": self.depth,
            "win": w, "win_double": wd, "lose_double": ld,
            "position": crate::tavli::position_string(&self.play.next_position()),
            "end": self.play.end.map(crate::tavli::GameEnd::name),
        })
    }
}

/// The ranked plays of `dice` in `pos`, best first, as `hint --json` and
/// `/v1/tavli/move` answer them: the position, the roll, the depth of the best play's
/// value and each play ([`TavliHintPlay::json`]).
pub fn hint_json(
    pos: &TavliPosition,
    dice: crate::game::Dice,
    plays: &[TavliHintPlay],
) -> serde_json::Value {
    let best = plays.first().map_or(0.0, |p| p.value);
    serde_json::json!({
        "variant": pos.variant().name(),
        "position": crate::tavli::position_string(pos),
        "dice": [dice.high(), dice.low()],
        "depth": plays.first().map_or(1, |p| p.depth),
        "plays": plays.iter().map(|p| p.json(best)).collect::<Vec<_>>(),
    })
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

    fn ask(&mut self, line: &str) -> Result<String, DecideError> {
        let timeout = std::time::Duration::from_secs(REMOTE_TIMEOUT_S);
        let failed = |e: String| DecideError {
            kind: DecideErrorKind::Io(e),
            request: line.to_string(),
            reply: String::new(),
        };
        let conn = match self.conn.as_mut() {
            Some(c) => c,
            None => self.conn.insert(
                super::socket::EngineConnection::connect(&self.addr, timeout)
                    .map_err(|e| failed(format!("cannot connect to {}: {e}", self.addr)))?,
            ),
        };
        conn.request(line).map_err(|e| {
            self.conn = None;
            failed(format!("{}: {e}", self.addr))
        })
    }
}

impl Decide<TavliPosition> for RemoteTavli {
    fn name(&self) -> String {
        format!("tcp://{}", self.addr)
    }

    /// The engine's play of the turn's roll: one of `plays` (the legal plays), or why its
    /// answer is none of them.
    fn decide(&mut self, turn: &TavliTurn, plays: &[TavliPlay]) -> Result<TavliPlay, DecideError> {
        let (before, dice) = (&turn.position, turn.dice);
        let line = format!(
            "{} {}{}",
            crate::tavli::position_string(before),
            dice.high(),
            dice.low()
        );
        let reply = self.ask(&line)?;
        let error = |kind| DecideError {
            kind,
            request: line.clone(),
            reply: reply.clone(),
        };
        if reply.starts_with("Error") || reply.starts_with("sorry") {
            return Err(error(DecideErrorKind::EngineError));
        }
        let play = crate::tavli::parse_play(before, dice, &RuleSwitches::default(), &reply)
            .map_err(|e| error(DecideErrorKind::Unparseable(e.to_string())))?;
        plays
            .iter()
            .find(|p| p.after == play.after)
            .copied()
            .ok_or_else(|| error(DecideErrorKind::Illegal("not among the legal plays".into())))
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
    use crate::players::MONEY;
    use crate::tavli::{legal_plays, RuleSwitches};

    #[test]
    fn specs_parse_by_variant() {
        assert_eq!(
            factory("heuristic", Variant::Fevga).unwrap().name(),
            "heuristic"
        );
        assert_eq!(
            factory("net,depth=3", Variant::Plakoto).unwrap().name(),
            "net,depth=3"
        );
        // Every algorithm, depth and budget of backgammon's searcher plays the Tavli games.
        for text in [
            "net,depth=7",
            "net,algo=mcts,playouts=100",
            "net,depth=5,algo=filter,filter=9:0.16/3:0.06",
            "net,depth=5,time_ms=200",
        ] {
            assert!(factory(text, Variant::Plakoto).is_ok(), "{text}");
        }
        for (text, variant) in [
            ("net,depth=2", Variant::Plakoto),
            ("net,noise=0.1", Variant::Fevga),
            ("pubeval,depth=3", Variant::Portes),
            ("net,speed=3", Variant::Plakoto),
            ("heuristic,depth=3", Variant::Plakoto),
            ("pubeval", Variant::Fevga),
            ("pipsigmoid", Variant::Fevga),
            ("alpha", Variant::Portes),
            ("net:", Variant::Portes),
            ("net", Variant::Backgammon),
            ("tcp://", Variant::Portes),
            ("tcp://127.0.0.1:1,127.0.0.1:2", Variant::Portes),
            ("net,depth=\u{e9}\u{e9}", Variant::Fevga),
        ] {
            let e = factory(text, variant).err().unwrap().to_string();
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
            let mut specs = vec!["random", "heuristic", "net", "net,depth=3"];
            if variant == Variant::Portes {
                specs.push("pubeval");
            }
            for spec in specs {
                let mut p = factory(spec, variant).unwrap().make();
                let turn = TavliTurn {
                    position: start,
                    dice,
                    values: MONEY,
                };
                let play = p.decide(&turn, &plays).unwrap();
                assert!(plays.contains(&play), "{variant:?} {spec}");
            }
        }
    }

    #[test]
    fn the_heuristic_values_a_pin_in_plakoto_and_a_win_most() {
        let rules = RuleSwitches::default();
        let start = TavliPosition::start(Variant::Plakoto);
        let dice = Dice::new(5, 2).unwrap();
        let plays = legal_plays(&start, dice, &rules);
        let turn = TavliTurn {
            position: start,
            dice,
            values: MONEY,
        };
        let best =
            Decide::<TavliPosition>::decide(&mut HeuristicPlayer::new(), &turn, &plays).unwrap();
        assert!(heuristic_score(&best.after).is_finite());
        assert!(heuristic_score(&best.after) < 100.0);
    }
}
