//! Everything that answers "what do I do here?", behind one trait: [`Decide`].
//!
//! The neural-net player, the search players, pubeval, the heuristic and random players,
//! the engine facade, engines over sockets ([`socket`]) and the FIBS bot's
//! decision-maker are all a `Box<dyn Decide>`. The referee, the duel runner, the FIBS
//! client and the benchmarks ask it the same question: a [`MatchState`] and, at a checker
//! play, the legal plays.
//!
//! A [`PlayerFactory`] makes one decider per thread from a [`PlayerSpec`], which is an
//! [`crate::engine::EngineSpec`] (or the server's own configuration, `engine[:CONFIG]`);
//! [`mod@build`] is the one place that turns a spec into deciders.

use std::fmt;
use std::sync::Arc;

use crate::engine::{Action, Engine};
use crate::game::{Decision, Dice, GamePosition, MatchState, Play, Position, Variant};
use crate::search::Cancel;
use crate::tavli::{TavliPlay, TavliPosition};

pub mod build;
pub mod search;
pub mod simple;
pub mod socket;
pub mod spec;
pub mod split;
pub mod tavli;
pub mod timed;

pub use build::{build, factory, BuildOptions};
pub use search::SearchPlayer;
pub use simple::{play_equity, HeuristicPlayer, NetPlayer, PubevalPlayer, RandomPlayer};
pub use spec::{PlayerSpec, PlayerSpecError};

/// Why a decider's answer is missing or unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecideErrorKind {
    /// The engine could not be reached or closed the connection.
    Io(String),
    /// No answer within the time limit.
    Timeout,
    /// The reply could not be read as any answer.
    Unparseable(String),
    /// The reply was readable but not legal here (an illegal play, `take` at a move ...).
    Illegal(String),
    /// The engine reported an error itself (`Error: ...`, or a cancelled search).
    EngineError,
}

impl fmt::Display for DecideErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecideErrorKind::Io(e) => write!(f, "connection failed: {e}"),
            DecideErrorKind::Timeout => write!(f, "no reply in time"),
            DecideErrorKind::Unparseable(e) => write!(f, "unparseable reply: {e}"),
            DecideErrorKind::Illegal(e) => write!(f, "illegal reply: {e}"),
            DecideErrorKind::EngineError => write!(f, "the engine answered with an error"),
        }
    }
}

/// A missing or rejected answer, with what was asked and what came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecideError {
    pub kind: DecideErrorKind,
    /// The request as sent (a board line for socket engines).
    pub request: String,
    /// The raw reply, empty when there was none.
    pub reply: String,
}

impl fmt::Display for DecideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (request {:?}, reply {:?})",
            self.kind, self.request, self.reply
        )
    }
}

impl std::error::Error for DecideError {}

impl DecideError {
    /// An answer of the wrong kind for `state`'s decision.
    pub fn illegal(state: &MatchState, what: String, reply: String) -> DecideError {
        DecideError {
            kind: DecideErrorKind::Illegal(what),
            request: format!("{:?}", state.decision),
            reply,
        }
    }
}

/// What a decider of a game is shown and what it answers: backgammon's deciders see a
/// [`MatchState`] (the cube and the score included) and answer an [`Action`]; the Tavli
/// games' see a [`TavliTurn`] and answer a play.
pub trait Game: GamePosition {
    /// Everything one decision sees.
    type State: fmt::Debug + Send + Sync;
    /// The answer.
    type Action: fmt::Debug + Send;

    /// The most points one game can win or lose without the cube: what a side that
    /// forfeits a game loses.
    const MOST_POINTS: i32;

    /// The question of a checker play: `dice` to play in `position` (the side to act's
    /// view), each final score valued as `values` says (single and double win, single and
    /// double loss; games with triples value those as doubles).
    fn turn(position: Self, dice: Dice, values: [f64; 4]) -> Self::State;

    /// The play of an answer to [`Game::turn`] (None: an answer of another kind).
    fn play_of(action: Self::Action) -> Option<Self::Play>;

    /// The roll that opens a game, for whoever starts it.
    fn opening_roll(rng: &mut crate::game::Rng) -> Dice;

    /// The starting position of `variant` (one of this game's).
    fn start(variant: Variant) -> Self;

    /// Parses a player spec (`net,depth=3`, `heuristic`, `tcp://HOST:PORT`, ...) for
    /// `variant` and builds the deciders it stands for: the one path from a spec to the
    /// players of any game.
    fn factory(text: &str, variant: Variant) -> Result<PlayerFactory<Self>, GameBuildError>;
}

/// Why a player of some game cannot be built from its spec (the one-line reason).
pub type GameBuildError = Box<dyn std::error::Error + Send + Sync>;

/// Each final score worth its points: money play without the cube.
pub const MONEY: [f64; 4] = [1.0, 2.0, -1.0, -2.0];

impl Game for Position {
    type State = MatchState;
    type Action = Action;
    const MOST_POINTS: i32 = 3;

    fn turn(position: Position, dice: Dice, _values: [f64; 4]) -> MatchState {
        MatchState::money(position, Decision::Move(dice))
    }

    fn play_of(action: Action) -> Option<Play> {
        match action {
            Action::Move(p) => Some(p),
            _ => None,
        }
    }

    /// Re-rolled until it is not a double, as in real play.
    fn opening_roll(rng: &mut crate::game::Rng) -> Dice {
        loop {
            let d = Dice::roll(rng);
            if !d.is_double() {
                return d;
            }
        }
    }

    fn start(_variant: Variant) -> Position {
        Position::OPENING
    }

    fn factory(text: &str, _variant: Variant) -> Result<PlayerFactory, GameBuildError> {
        build::factory(text, BuildOptions::default())
    }
}

/// A checker play of a Tavli game, with the value of each final score to the side to act
/// (money points, or its chances of winning a match after each).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TavliTurn {
    pub position: TavliPosition,
    pub dice: Dice,
    pub values: [f64; 4],
}

impl Game for TavliPosition {
    type State = TavliTurn;
    type Action = TavliPlay;
    const MOST_POINTS: i32 = 2;

    fn turn(position: TavliPosition, dice: Dice, values: [f64; 4]) -> TavliTurn {
        TavliTurn {
            position,
            dice,
            values,
        }
    }

    fn play_of(action: TavliPlay) -> Option<TavliPlay> {
        Some(action)
    }

    /// The opening of C8: the higher of two single dice starts and rolls both dice again,
    /// so the first roll may be a double.
    fn opening_roll(rng: &mut crate::game::Rng) -> Dice {
        crate::tavli::driver::opening(rng).1
    }

    fn start(variant: Variant) -> TavliPosition {
        TavliPosition::start(variant)
    }

    fn factory(
        text: &str,
        variant: Variant,
    ) -> Result<PlayerFactory<TavliPosition>, GameBuildError> {
        tavli::factory(text, variant)
    }
}

/// The one decision trait, for every game (backgammon's by default). A value lives on one
/// thread and may keep scratch state.
pub trait Decide<G: Game = Position>: Send {
    /// A short name for reports.
    fn name(&self) -> String;

    /// Called before each game with a seed derived from the run's seed, so deciders with
    /// randomness stay reproducible.
    fn new_game(&mut self, _seed: u64) {}

    /// The action for the acting side of `state` (see [`MatchState`] for whose view it
    /// is). At a checker play (`Decision::Move`), `plays` holds every distinct legal play,
    /// never empty (a lone empty play when nothing is legal), and the answer is
    /// `Action::Move` with one of them; otherwise `plays` is empty and the answer is a
    /// cube action (`Roll`/`Double`, `Take`/`Drop`/`Beaver`). Callers check the answer
    /// against the rules again.
    fn decide(&mut self, state: &G::State, plays: &[G::Play]) -> Result<G::Action, DecideError>;
}

impl<G: Game> Decide<G> for Box<dyn Decide<G>> {
    fn name(&self) -> String {
        self.as_ref().name()
    }

    fn new_game(&mut self, seed: u64) {
        self.as_mut().new_game(seed)
    }

    fn decide(&mut self, state: &G::State, plays: &[G::Play]) -> Result<G::Action, DecideError> {
        self.as_mut().decide(state, plays)
    }
}

/// Answers a checker play with `choose`'s index into `plays`; refuses cube questions.
/// What the checker-play-only deciders (net, search, pubeval, heuristic, random) share.
pub fn checker_play(
    state: &MatchState,
    plays: &[Play],
    choose: impl FnOnce(&Position, Dice, &[Play]) -> usize,
) -> Result<Action, DecideError> {
    let Decision::Move(dice) = state.decision else {
        return Err(DecideError::illegal(
            state,
            "this player makes checker plays only, no cube decisions".to_string(),
            String::new(),
        ));
    };
    if plays.is_empty() {
        return Ok(Action::Move(Play::none(state.position)));
    }
    let i = choose(&state.position, dice, plays);
    match plays.get(i) {
        Some(p) => Ok(Action::Move(*p)),
        None => Err(DecideError::illegal(
            state,
            format!("play index {i} of {} plays", plays.len()),
            i.to_string(),
        )),
    }
}

/// The engine facade as a decider: every decision, checker plays and cube, the way the
/// bot server answers.
#[derive(Debug, Clone)]
pub struct EnginePlayer {
    pub name: String,
    pub engine: Engine,
}

impl Decide for EnginePlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn decide(&mut self, state: &MatchState, _plays: &[Play]) -> Result<Action, DecideError> {
        engine_decision(&self.engine, state)
    }
}

/// The engine facade's action for `state`, its failure as a decider's error.
fn engine_decision(engine: &Engine, state: &MatchState) -> Result<Action, DecideError> {
    engine
        .decide(state, &Cancel::new())
        .map_err(|e| DecideError {
            kind: DecideErrorKind::EngineError,
            request: format!("{:?}", state.decision),
            reply: e.to_string(),
        })
}

/// Makes deciders: one per thread (or per connection, for engines over sockets).
pub trait MakeDecider: Send + Sync {
    /// The name of what it makes, for reports.
    fn name(&self) -> String;

    /// A fresh decider for worker `worker`.
    fn make(&self, worker: usize) -> Result<Box<dyn Decide>, String>;
}

type MakeFn<G> = dyn Fn() -> Box<dyn Decide<G>> + Send + Sync;

/// Makes in-process deciders of one specification (they cannot fail once built), for
/// backgammon by default or for another [`Game`].
pub struct PlayerFactory<G: Game = Position> {
    name: String,
    make: Arc<MakeFn<G>>,
}

impl<G: Game> Clone for PlayerFactory<G> {
    fn clone(&self) -> PlayerFactory<G> {
        PlayerFactory {
            name: self.name.clone(),
            make: self.make.clone(),
        }
    }
}

impl<G: Game> fmt::Debug for PlayerFactory<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlayerFactory({})", self.name)
    }
}

impl PlayerFactory {
    /// A factory of backgammon deciders from any constructor.
    pub fn new(
        name: impl Into<String>,
        make: impl Fn() -> Box<dyn Decide> + Send + Sync + 'static,
    ) -> PlayerFactory {
        PlayerFactory::of_game(name, make)
    }
}

impl<G: Game> PlayerFactory<G> {
    /// A factory of deciders of game `G` from any constructor.
    pub fn of_game(
        name: impl Into<String>,
        make: impl Fn() -> Box<dyn Decide<G>> + Send + Sync + 'static,
    ) -> PlayerFactory<G> {
        PlayerFactory {
            name: name.into(),
            make: Arc::new(make),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A new decider.
    pub fn make(&self) -> Box<dyn Decide<G>> {
        (self.make)()
    }
}

impl MakeDecider for PlayerFactory {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn make(&self, _worker: usize) -> Result<Box<dyn Decide>, String> {
        Ok(PlayerFactory::make(self))
    }
}
