//! The referee: plays games and matches between two engines under the project's own rules.
//!
//! Engines are only trusted to *answer*: the referee rolls the dice, keeps the board, the
//! cube and the score, asks each side exactly the questions the rules allow (the same ones
//! gnubg asks an external player) and checks every answer against [`crate::game`]. An answer
//! that is not one of the allowed replies, a play that is not legal, or no answer at all
//! forfeits the game for that side; the forfeit is recorded with the request and the reply
//! so it can be reproduced.
//!
//! Dice come from a seeded stream per game (money play) or per match, so a run is
//! reproducible whatever the thread count. Money games are played in mirrored pairs: both
//! games of a pair use the same dice stream with the engines in swapped seats, which
//! cancels most of the luck from a comparison.

use std::fmt;

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::game::{legal_plays, CubeOwner, Decision, Dice, GameResult, MatchState, Play, Position};

/// The largest cube value the referee lets a side double to (gnubg's limit).
pub const MAX_CUBE: u32 = 4096;

/// A turn cannot run forever: a game longer than this many decisions is stopped and
/// counted as a forfeit of the side to act (no sensible engine gets near it).
pub const MAX_DECISIONS: u32 = 5000;

/// One answer from an engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A checker play (already matched to a legal play of the position asked about).
    Move(Play),
    /// At a "double or roll?" question: roll.
    Roll,
    /// At a "double or roll?" question: double.
    Double,
    /// At a "take or drop?" question: take.
    Take,
    /// At a "take or drop?" question: drop (pass).
    Drop,
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Move(p) => write!(f, "move {p:?}"),
            Reply::Roll => write!(f, "roll"),
            Reply::Double => write!(f, "double"),
            Reply::Take => write!(f, "take"),
            Reply::Drop => write!(f, "drop"),
        }
    }
}

/// Why an engine's answer was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatErrorKind {
    /// The engine could not be reached or closed the connection.
    Io(String),
    /// No answer within the time limit.
    Timeout,
    /// The reply could not be read as any answer.
    Unparseable(String),
    /// The reply was readable but not legal here (an illegal play, `take` at a move ...).
    Illegal(String),
    /// The engine reported an error itself (`Error: ...`).
    EngineError,
}

impl fmt::Display for SeatErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeatErrorKind::Io(e) => write!(f, "connection failed: {e}"),
            SeatErrorKind::Timeout => write!(f, "no reply in time"),
            SeatErrorKind::Unparseable(e) => write!(f, "unparseable reply: {e}"),
            SeatErrorKind::Illegal(e) => write!(f, "illegal reply: {e}"),
            SeatErrorKind::EngineError => write!(f, "the engine answered with an error"),
        }
    }
}

/// A rejected answer, with what was asked and what came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatError {
    pub kind: SeatErrorKind,
    /// The request as sent (a board line for socket engines).
    pub request: String,
    /// The raw reply, empty when there was none.
    pub reply: String,
}

impl fmt::Display for SeatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (request {:?}, reply {:?})",
            self.kind, self.request, self.reply
        )
    }
}

impl std::error::Error for SeatError {}

/// One side of the table: anything that answers decisions.
pub trait Seat: Send {
    /// A short name for reports.
    fn name(&self) -> String;

    /// Answers the decision in `state` (see [`MatchState`] for whose view it is).
    /// The referee checks the kind of answer and, for plays, its legality again.
    fn act(&mut self, state: &MatchState) -> Result<Reply, SeatError>;
}

impl Seat for Box<dyn Seat> {
    fn name(&self) -> String {
        self.as_ref().name()
    }

    fn act(&mut self, state: &MatchState) -> Result<Reply, SeatError> {
        self.as_mut().act(state)
    }
}

/// A seat played by the engine facade ([`crate::engine::Engine`]): every decision,
/// checker plays and cube, the way the bot server answers.
#[derive(Debug, Clone)]
pub struct EngineSeat {
    pub name: String,
    pub engine: crate::engine::Engine,
}

fn engine_reply(action: crate::engine::Action, state: &MatchState) -> Result<Reply, SeatError> {
    use crate::engine::Action;
    match action {
        Action::Move(p) => Ok(Reply::Move(p)),
        Action::Roll => Ok(Reply::Roll),
        Action::Double => Ok(Reply::Double),
        // Beavers are not in use: keeping the doubled cube is a take.
        Action::Take | Action::Beaver => Ok(Reply::Take),
        Action::Drop => Ok(Reply::Drop),
        other => Err(SeatError {
            kind: SeatErrorKind::Illegal(format!("the engine answered {other:?}")),
            request: format!("{:?}", state.decision),
            reply: format!("{other:?}"),
        }),
    }
}

impl Seat for EngineSeat {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&mut self, state: &MatchState) -> Result<Reply, SeatError> {
        let action = self
            .engine
            .decide(state, &crate::search::Cancel::new())
            .map_err(|e| SeatError {
                kind: SeatErrorKind::EngineError,
                request: format!("{:?}", state.decision),
                reply: e.to_string(),
            })?;
        engine_reply(action, state)
    }
}

/// A seat played by a duel player ([`crate::arena::Player`]) for checker plays, with cube
/// decisions from an engine when one is given.
pub struct PlayerSeat {
    pub name: String,
    pub player: Box<dyn crate::arena::Player>,
    pub cube: Option<crate::engine::Engine>,
}

impl std::fmt::Debug for PlayerSeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlayerSeat")
            .field("name", &self.name)
            .field("cube", &self.cube.is_some())
            .finish()
    }
}

impl Seat for PlayerSeat {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&mut self, state: &MatchState) -> Result<Reply, SeatError> {
        match state.decision {
            Decision::Move(dice) => {
                let plays = legal_plays(&state.position, dice);
                let i = self.player.choose(&state.position, dice, &plays);
                match plays.get(i) {
                    Some(p) => Ok(Reply::Move(*p)),
                    None => Err(SeatError {
                        kind: SeatErrorKind::Illegal(format!(
                            "play index {i} of {} plays",
                            plays.len()
                        )),
                        request: state.position.debug_string(),
                        reply: i.to_string(),
                    }),
                }
            }
            _ => match &self.cube {
                Some(engine) => {
                    let action = engine
                        .decide(state, &crate::search::Cancel::new())
                        .map_err(|e| SeatError {
                            kind: SeatErrorKind::EngineError,
                            request: format!("{:?}", state.decision),
                            reply: e.to_string(),
                        })?;
                    engine_reply(action, state)
                }
                None => Err(SeatError {
                    kind: SeatErrorKind::Illegal(format!("{} makes no cube decisions", self.name)),
                    request: format!("{:?}", state.decision),
                    reply: String::new(),
                }),
            },
        }
    }
}

/// Why an in-process engine specification was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineSpecError {
    /// The duel player specification is wrong.
    Player(crate::arena::SpecError),
    /// An `engine` option is unknown or its value is wrong.
    BadOption(String),
    /// The weights could not be loaded.
    Weights(String),
    /// The player cannot answer cube questions and the cube is in use.
    NoCube(String),
}

impl fmt::Display for EngineSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpecError::Player(e) => write!(f, "{e}"),
            EngineSpecError::BadOption(o) => write!(f, "engine spec: {o}"),
            EngineSpecError::Weights(e) => write!(f, "cannot load weights: {e}"),
            EngineSpecError::NoCube(s) => write!(
                f,
                "{s} makes no cube decisions: use --cube off, `net` or `engine`"
            ),
        }
    }
}

impl std::error::Error for EngineSpecError {}

/// In-process seats: `engine[:CONFIG][,depth=N][,cube_depth=N]` for the engine facade as
/// `stargammon serve` runs it (its config file, default `config/default.toml`), or a duel
/// player spec (`net`, `pubeval`, ...), whose cube decisions come from that engine over the
/// same nets for `net` players.
#[derive(Clone)]
pub enum InProcessFactory {
    Engine {
        name: String,
        engine: crate::engine::Engine,
    },
    Player {
        name: String,
        players: crate::arena::PlayerFactory,
        cube: Option<crate::engine::Engine>,
    },
}

impl std::fmt::Debug for InProcessFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InProcessFactory({})", self.name())
    }
}

/// The engine `stargammon serve` would run with `config` (default: `config/default.toml`
/// when present, else the built-in defaults), answering synchronously, with an optional
/// evaluator override (`net:PATH`) and depth overrides.
fn config_engine(
    config: Option<&std::path::Path>,
    evaluator: Option<String>,
    depth: Option<u32>,
    cube_depth: Option<u32>,
) -> Result<crate::engine::Engine, EngineSpecError> {
    use std::sync::Arc;
    let mut cfg = match config {
        Some(p) => crate::config::Config::load(p),
        None => {
            let default = std::path::Path::new("config/default.toml");
            if default.exists() {
                crate::config::Config::load(default)
            } else {
                Ok(crate::config::Config::default())
            }
        }
    }
    .map_err(|e| EngineSpecError::BadOption(e.to_string()))?;
    if let Some(e) = evaluator {
        cfg.engine.evaluator = e;
    }
    let eval = crate::server::make_evaluator(&cfg.engine.evaluator)
        .map_err(|e| EngineSpecError::Weights(e.to_string()))?;
    let name = eval.name();
    let searcher = crate::search::Searcher::new(
        eval,
        Arc::new(crate::search::TranspositionTable::new(
            cfg.engine.tt_megabytes.max(1),
        )),
    );
    let mut settings = cfg.engine_settings();
    if let Some(d) = depth {
        settings.depth = d;
    }
    if let Some(d) = cube_depth {
        settings.cube_depth = d;
    }
    let decider = crate::engine::SearchDecider::new(searcher, cfg.search_plan(), name);
    Ok(crate::engine::Engine::new(Arc::new(decider), settings))
}

impl InProcessFactory {
    /// Builds seats for `spec`; `cube` says whether cube decisions will be asked.
    pub fn parse(spec: &str, cube: bool) -> Result<InProcessFactory, EngineSpecError> {
        let mut parts = spec.split(',');
        let head = parts.next().unwrap_or("").trim();
        if head == "engine" || head.starts_with("engine:") {
            let config = head.strip_prefix("engine:").map(std::path::PathBuf::from);
            let (mut depth, mut cube_depth) = (None, None);
            for opt in parts {
                let (k, v) = opt.split_once('=').ok_or_else(|| {
                    EngineSpecError::BadOption(format!("{opt:?} is not key=value"))
                })?;
                let n: u32 = v.trim().parse().map_err(|_| {
                    EngineSpecError::BadOption(format!("{k}={v}: expected a number"))
                })?;
                match k.trim() {
                    "depth" if (1..=9).contains(&n) => depth = Some(n),
                    "cube_depth" if (1..=9).contains(&n) => cube_depth = Some(n),
                    _ => {
                        return Err(EngineSpecError::BadOption(format!(
                            "{k}={v}: known options are depth=1..9 and cube_depth=1..9"
                        )))
                    }
                }
            }
            let engine = config_engine(config.as_deref(), None, depth, cube_depth)?;
            return Ok(InProcessFactory::Engine {
                name: spec.to_string(),
                engine,
            });
        }
        let parsed = crate::arena::PlayerSpec::parse(spec).map_err(EngineSpecError::Player)?;
        let players = parsed.build().map_err(EngineSpecError::Player)?;
        let cube_engine = if cube {
            if parsed.kind != crate::arena::PlayerKind::Net {
                return Err(EngineSpecError::NoCube(spec.to_string()));
            }
            let evaluator = parsed.path.as_ref().map(|p| format!("net:{}", p.display()));
            Some(config_engine(None, evaluator, None, None)?)
        } else {
            None
        };
        Ok(InProcessFactory::Player {
            name: spec.to_string(),
            players,
            cube: cube_engine,
        })
    }
}

impl SeatFactory for InProcessFactory {
    fn make(&self, _worker: usize) -> Result<Box<dyn Seat>, String> {
        Ok(match self {
            InProcessFactory::Engine { name, engine } => Box::new(EngineSeat {
                name: name.clone(),
                engine: engine.clone(),
            }),
            InProcessFactory::Player {
                name,
                players,
                cube,
            } => Box::new(PlayerSeat {
                name: name.clone(),
                player: players.make(),
                cube: cube.clone(),
            }),
        })
    }

    fn name(&self) -> String {
        match self {
            InProcessFactory::Engine { name, .. } | InProcessFactory::Player { name, .. } => {
                name.clone()
            }
        }
    }
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Played to the end.
    Played(GameResult),
    /// The loser dropped a double.
    Dropped,
    /// The loser gave an unacceptable answer.
    Forfeit,
}

impl Ending {
    /// A lower-case word for reports and JSON.
    pub fn word(self) -> &'static str {
        match self {
            Ending::Played(GameResult::Single) => "single",
            Ending::Played(GameResult::Gammon) => "gammon",
            Ending::Played(GameResult::Backgammon) => "backgammon",
            Ending::Dropped => "drop",
            Ending::Forfeit => "forfeit",
        }
    }
}

/// One event of a game, for game records and .mat files. Seats are 0 and 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// `seat` rolled `dice` and played `play` (empty steps when it could not move).
    Move {
        seat: usize,
        dice: Dice,
        play: Play,
    },
    /// `seat` doubled to `cube`.
    Double {
        seat: usize,
        cube: u32,
    },
    Take {
        seat: usize,
    },
    Drop {
        seat: usize,
    },
}

/// The table state at the start of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSetup {
    /// Points to win the match; 0 for money play.
    pub match_length: u32,
    /// Scores of seat 0 and seat 1 before the game.
    pub score: [u32; 2],
    /// This game is the Crawford game.
    pub crawford: bool,
    /// The Crawford game has already been played.
    pub post_crawford: bool,
    /// The doubling cube is in use.
    pub cube: bool,
    /// Names of seat 0 and seat 1 (written into requests).
    pub names: [String; 2],
}

/// The outcome of one game.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The winning seat.
    pub winner: usize,
    /// Points the winner gets (cube value times the result).
    pub points: u32,
    pub ending: Ending,
    /// The final cube value.
    pub cube: u32,
    /// Opening dice for seat 0 and seat 1.
    pub opening: (u8, u8),
    pub events: Vec<Event>,
    /// The rejected answer, when the game was forfeited.
    pub forfeit: Option<SeatError>,
}

/// A reproducible stream of dice.
#[derive(Debug, Clone)]
pub struct DiceStream {
    rng: ChaCha8Rng,
}

impl DiceStream {
    pub fn new(seed: u64) -> DiceStream {
        DiceStream {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The next roll.
    pub fn roll(&mut self) -> Dice {
        Dice::roll(&mut self.rng)
    }

    /// The opening roll: one die per seat, rolled again while equal.
    pub fn opening(&mut self) -> (u8, u8) {
        loop {
            let a: u8 = self.rng.gen_range(1..=6);
            let b: u8 = self.rng.gen_range(1..=6);
            if a != b {
                return (a, b);
            }
        }
    }
}

/// Mixes a run seed and an index into the seed of one dice stream.
pub fn stream_seed(seed: u64, index: u64) -> u64 {
    // SplitMix64 finaliser: nearby indices give unrelated streams.
    let mut z = seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Table {
    setup: GameSetup,
    cube: u32,
    /// Seat that owns the cube, None when centred.
    owner: Option<usize>,
}

impl Table {
    fn may_double(&self, seat: usize) -> bool {
        if !self.setup.cube || self.setup.crawford || self.cube >= MAX_CUBE {
            return false;
        }
        if self.owner.is_some_and(|o| o != seat) {
            return false;
        }
        if self.setup.match_length == 0 {
            return true;
        }
        // A cube that already wins the match for this side is dead.
        let away = self
            .setup
            .match_length
            .saturating_sub(self.setup.score[seat]);
        self.cube < away
    }

    fn state(&self, seat: usize, position: Position, decision: Decision) -> MatchState {
        let other = 1 - seat;
        MatchState {
            position,
            decision,
            cube: self.cube,
            cube_owner: match self.owner {
                None => CubeOwner::Centered,
                Some(o) if o == seat => CubeOwner::Me,
                Some(_) => CubeOwner::Opponent,
            },
            may_double: self.may_double(seat),
            opp_may_double: self.may_double(other),
            match_length: self.setup.match_length,
            score: self.setup.score[seat],
            opp_score: self.setup.score[other],
            crawford: self.setup.crawford,
            post_crawford: self.setup.post_crawford,
            acting_player: seat as u8,
            names: (
                self.setup.names[seat].clone(),
                self.setup.names[other].clone(),
            ),
        }
    }
}

fn forfeit_record(
    loser: usize,
    table: &Table,
    opening: (u8, u8),
    events: Vec<Event>,
    error: SeatError,
) -> GameRecord {
    GameRecord {
        winner: 1 - loser,
        points: table.cube,
        ending: Ending::Forfeit,
        cube: table.cube,
        opening,
        events,
        forfeit: Some(error),
    }
}

fn wrong_kind(state: &MatchState, reply: &Reply, wanted: &str) -> SeatError {
    SeatError {
        kind: SeatErrorKind::Illegal(format!("expected {wanted}, got {reply}")),
        request: format!("{:?}", state.decision),
        reply: reply.to_string(),
    }
}

/// Plays one game between `seats[0]` and `seats[1]` with dice from `dice`.
pub fn play_game(
    seats: &mut [&mut dyn Seat; 2],
    dice: &mut DiceStream,
    setup: &GameSetup,
) -> GameRecord {
    let mut table = Table {
        setup: setup.clone(),
        cube: 1,
        owner: None,
    };
    let mut events = Vec::new();
    let opening = dice.opening();
    let mut turn = if opening.0 > opening.1 { 0 } else { 1 };
    // The opening roll is the starter's first roll (no cube decision before it).
    let mut roll = Some(Dice::new(opening.0, opening.1).unwrap_or_else(|_| dice.roll()));
    let mut position = Position::OPENING;
    let mut decisions = 0u32;

    loop {
        decisions += 1;
        if decisions > MAX_DECISIONS {
            let error = SeatError {
                kind: SeatErrorKind::Illegal(format!("game longer than {MAX_DECISIONS} decisions")),
                request: position.debug_string(),
                reply: String::new(),
            };
            return forfeit_record(turn, &table, opening, events, error);
        }
        let this_roll = match roll.take() {
            Some(r) => r,
            None => {
                if table.may_double(turn) {
                    let state = table.state(turn, position, Decision::DoubleOrRoll);
                    match seats[turn].act(&state) {
                        Err(e) => return forfeit_record(turn, &table, opening, events, e),
                        Ok(Reply::Roll) => {}
                        Ok(Reply::Double) => {
                            let taker = 1 - turn;
                            events.push(Event::Double {
                                seat: turn,
                                cube: table.cube * 2,
                            });
                            let take_state =
                                table.state(taker, position.swap(), Decision::TakeOrDrop);
                            match seats[taker].act(&take_state) {
                                Err(e) => return forfeit_record(taker, &table, opening, events, e),
                                Ok(Reply::Take) => {
                                    events.push(Event::Take { seat: taker });
                                    table.cube *= 2;
                                    table.owner = Some(taker);
                                }
                                Ok(Reply::Drop) => {
                                    events.push(Event::Drop { seat: taker });
                                    return GameRecord {
                                        winner: turn,
                                        points: table.cube,
                                        ending: Ending::Dropped,
                                        cube: table.cube,
                                        opening,
                                        events,
                                        forfeit: None,
                                    };
                                }
                                Ok(other) => {
                                    let e = wrong_kind(&take_state, &other, "take or drop");
                                    return forfeit_record(taker, &table, opening, events, e);
                                }
                            }
                        }
                        Ok(other) => {
                            let e = wrong_kind(&state, &other, "double or roll");
                            return forfeit_record(turn, &table, opening, events, e);
                        }
                    }
                }
                dice.roll()
            }
        };

        let plays = legal_plays(&position, this_roll);
        let chosen = if plays.len() <= 1 {
            // Forced (or no) play: nothing to ask.
            match plays.first() {
                Some(p) => *p,
                None => Play::none(position),
            }
        } else {
            let state = table.state(turn, position, Decision::Move(this_roll));
            match seats[turn].act(&state) {
                Err(e) => return forfeit_record(turn, &table, opening, events, e),
                Ok(Reply::Move(play)) => {
                    if !plays.iter().any(|p| p.position == play.position) {
                        let e = SeatError {
                            kind: SeatErrorKind::Illegal(format!(
                                "{play:?} is not a legal play of {}",
                                position.debug_string()
                            )),
                            request: format!("{:?}", state.decision),
                            reply: format!("{play:?}"),
                        };
                        return forfeit_record(turn, &table, opening, events, e);
                    }
                    play
                }
                Ok(other) => {
                    let e = wrong_kind(&state, &other, "a move");
                    return forfeit_record(turn, &table, opening, events, e);
                }
            }
        };
        events.push(Event::Move {
            seat: turn,
            dice: this_roll,
            play: chosen,
        });
        if let Some(result) = chosen.position.mover_result() {
            return GameRecord {
                winner: turn,
                points: table.cube * result.points() as u32,
                ending: Ending::Played(result),
                cube: table.cube,
                opening,
                events,
                forfeit: None,
            };
        }
        position = chosen.position.swap();
        turn = 1 - turn;
    }
}

/// The outcome of a match.
#[derive(Debug, Clone)]
pub struct MatchRecord {
    /// Final scores of seat 0 and seat 1.
    pub score: [u32; 2],
    pub winner: usize,
    /// Every game with the score before it and whether it was the Crawford game.
    pub games: Vec<(GameSetup, GameRecord)>,
}

/// Plays a match to `length` points, all games drawing dice from one stream.
pub fn play_match(
    seats: &mut [&mut dyn Seat; 2],
    dice: &mut DiceStream,
    length: u32,
    cube: bool,
    names: [String; 2],
) -> MatchRecord {
    let length = length.max(1);
    let mut score = [0u32; 2];
    let mut crawford_done = false;
    let mut games = Vec::new();
    loop {
        let leader_at_one = score.iter().any(|&s| s + 1 == length);
        let crawford = leader_at_one && !crawford_done;
        let setup = GameSetup {
            match_length: length,
            score,
            crawford,
            post_crawford: crawford_done,
            cube,
            names: names.clone(),
        };
        let record = play_game(seats, dice, &setup);
        if crawford {
            crawford_done = true;
        }
        score[record.winner] += record.points;
        games.push((setup, record));
        if let Some(w) = (0..2).find(|&s| score[s] >= length) {
            return MatchRecord {
                score,
                winner: w,
                games,
            };
        }
    }
}

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
        let mean = crate::arena::stats::mean_of_sum(games.len() as u64, total);
        self.pairs += 1;
        self.pair_sum += mean;
        self.pair_sum_sq += mean * mean;
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
            crate::arena::stats::mean_of_sum(self.games, self.sum)
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
        crate::arena::stats::ci95_of_sums(n, sum, sum_sq)
    }
}

/// Makes the seats of one engine, one per worker (a socket engine opens a connection).
pub trait SeatFactory: Sync {
    /// A seat for worker `worker` (0-based).
    fn make(&self, worker: usize) -> Result<Box<dyn Seat>, String>;
    /// The engine's name for reports.
    fn name(&self) -> String;
}

/// What a series plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesKind {
    /// Money games, in mirrored pairs.
    Money { games: u64 },
    /// Matches to `length` points.
    Matches { length: u32, matches: u64 },
}

/// A series of games between engines A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesConfig {
    pub kind: SeriesKind,
    pub cube: bool,
    pub seed: u64,
    /// Worker threads (each with its own seats).
    pub parallel: usize,
}

impl SeriesConfig {
    /// Units of work: money pairs or matches.
    pub fn units(&self) -> u64 {
        match self.kind {
            SeriesKind::Money { games } => games.div_ceil(2),
            SeriesKind::Matches { matches, .. } => matches,
        }
    }

    /// Games the series has in total (money) or None (matches: depends on play).
    pub fn planned_games(&self) -> Option<u64> {
        match self.kind {
            SeriesKind::Money { games } => Some(games),
            SeriesKind::Matches { .. } => None,
        }
    }
}

/// One finished game with where it belongs in the series.
#[derive(Debug, Clone)]
pub struct SeriesGame {
    /// 0-based game number over the series.
    pub index: u64,
    /// The match it belongs to (match play).
    pub match_index: Option<u64>,
    /// The seat engine A sat in.
    pub a_seat: usize,
    /// Seed of the dice stream the game drew from (shared by a mirrored pair, and by all
    /// games of a match).
    pub dice_seed: u64,
    pub setup: GameSetup,
    pub record: GameRecord,
}

impl SeriesGame {
    /// One JSON object describing the game from A's view.
    pub fn to_json(&self) -> serde_json::Value {
        let r = &self.record;
        let a_won = r.winner == self.a_seat;
        let side = |seat: usize| if seat == self.a_seat { "a" } else { "b" };
        let forfeit = r.forfeit.as_ref().map(|f| {
            serde_json::json!({
                "side": side(1 - r.winner),
                "reason": f.kind.to_string(),
                "request": f.request,
                "reply": f.reply,
            })
        });
        let moves = r
            .events
            .iter()
            .filter(|e| matches!(e, Event::Move { .. }))
            .count();
        serde_json::json!({
            "game": self.index,
            "match": self.match_index,
            "a_seat": self.a_seat,
            "dice_seed": self.dice_seed,
            "winner": side(r.winner),
            "points": r.points,
            "a_points": if a_won { r.points as i64 } else { -(r.points as i64) },
            "ending": r.ending.word(),
            "cube": r.cube,
            "score_before": {
                "a": self.setup.score[self.a_seat],
                "b": self.setup.score[1 - self.a_seat],
            },
            "crawford": self.setup.crawford,
            "moves": moves,
            "forfeit": forfeit,
        })
    }
}

/// The outcome of a unit of work.
#[derive(Debug)]
pub enum UnitResult {
    /// A mirrored money pair (one or two games).
    Pair(Vec<SeriesGame>),
    /// A match, with the seat A sat in.
    Match {
        index: u64,
        a_seat: usize,
        record: MatchRecord,
        games: Vec<SeriesGame>,
    },
}

impl UnitResult {
    /// The games of the unit.
    pub fn games(&self) -> &[SeriesGame] {
        match self {
            UnitResult::Pair(g) => g,
            UnitResult::Match { games, .. } => games,
        }
    }
}

/// Everything a series produced.
#[derive(Debug, Default)]
pub struct SeriesSummary {
    pub tally: Tally,
    pub seconds: f64,
}

/// Plays unit `unit` of a series with the given seats (A, B).
pub fn play_unit(
    cfg: &SeriesConfig,
    unit: u64,
    a: &mut dyn Seat,
    b: &mut dyn Seat,
    names: &[String; 2],
) -> UnitResult {
    match cfg.kind {
        SeriesKind::Money { games } => {
            let mut out = Vec::new();
            for half in 0..2u64 {
                let index = unit * 2 + half;
                if index >= games {
                    break;
                }
                let a_seat = half as usize;
                let mut dice = DiceStream::new(stream_seed(cfg.seed, unit));
                let seat_names = if a_seat == 0 {
                    names.clone()
                } else {
                    [names[1].clone(), names[0].clone()]
                };
                let setup = GameSetup {
                    match_length: 0,
                    score: [0, 0],
                    crawford: false,
                    post_crawford: false,
                    cube: cfg.cube,
                    names: seat_names,
                };
                let record = if a_seat == 0 {
                    let mut seats: [&mut dyn Seat; 2] = [&mut *a, &mut *b];
                    play_game(&mut seats, &mut dice, &setup)
                } else {
                    let mut seats: [&mut dyn Seat; 2] = [&mut *b, &mut *a];
                    play_game(&mut seats, &mut dice, &setup)
                };
                out.push(SeriesGame {
                    index,
                    match_index: None,
                    a_seat,
                    dice_seed: stream_seed(cfg.seed, unit),
                    setup,
                    record,
                });
            }
            UnitResult::Pair(out)
        }
        SeriesKind::Matches { length, .. } => {
            let a_seat = (unit % 2) as usize;
            let mut dice = DiceStream::new(stream_seed(cfg.seed, unit));
            let seat_names = if a_seat == 0 {
                names.clone()
            } else {
                [names[1].clone(), names[0].clone()]
            };
            let record = if a_seat == 0 {
                let mut seats: [&mut dyn Seat; 2] = [&mut *a, &mut *b];
                play_match(&mut seats, &mut dice, length, cfg.cube, seat_names)
            } else {
                let mut seats: [&mut dyn Seat; 2] = [&mut *b, &mut *a];
                play_match(&mut seats, &mut dice, length, cfg.cube, seat_names)
            };
            let games = record
                .games
                .iter()
                .map(|(setup, rec)| SeriesGame {
                    index: 0,
                    match_index: Some(unit),
                    a_seat,
                    dice_seed: stream_seed(cfg.seed, unit),
                    setup: setup.clone(),
                    record: rec.clone(),
                })
                .collect();
            UnitResult::Match {
                index: unit,
                a_seat,
                record,
                games,
            }
        }
    }
}

/// True when a seat's failure means its connection is gone and must be remade.
fn broken(unit: &UnitResult) -> bool {
    unit.games().iter().any(|g| {
        g.record
            .forfeit
            .as_ref()
            .is_some_and(|f| matches!(f.kind, SeatErrorKind::Io(_) | SeatErrorKind::Timeout))
    })
}

/// Runs a series on `cfg.parallel` worker threads. `sink` receives every unit in order
/// (unit 0 first) on the calling thread, with game indices numbered over the series.
pub fn run_series(
    cfg: &SeriesConfig,
    a: &dyn SeatFactory,
    b: &dyn SeatFactory,
    sink: &mut dyn FnMut(&UnitResult),
) -> Result<SeriesSummary, String> {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    let start = std::time::Instant::now();
    let units = cfg.units();
    let workers = cfg.parallel.max(1).min(units.max(1) as usize);
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let names = [seat_name(&a.name(), "A"), seat_name(&b.name(), "B")];
    let (tx, rx) = crossbeam::channel::unbounded::<Result<(u64, UnitResult), String>>();
    let mut summary = SeriesSummary::default();
    let mut failure = None;
    std::thread::scope(|scope| {
        for w in 0..workers {
            let tx = tx.clone();
            let next = &next;
            let stop = &stop;
            let names = &names;
            scope.spawn(move || {
                let mut seats = match (a.make(w), b.make(w)) {
                    (Ok(x), Ok(y)) => (x, y),
                    (Err(e), _) | (_, Err(e)) => {
                        stop.store(true, Ordering::Relaxed);
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                while !stop.load(Ordering::Relaxed) {
                    let unit = next.fetch_add(1, Ordering::Relaxed);
                    if unit >= units {
                        break;
                    }
                    let result = play_unit(cfg, unit, seats.0.as_mut(), seats.1.as_mut(), names);
                    if broken(&result) {
                        match (a.make(w), b.make(w)) {
                            (Ok(x), Ok(y)) => seats = (x, y),
                            (Err(e), _) | (_, Err(e)) => {
                                stop.store(true, Ordering::Relaxed);
                                let _ = tx.send(Err(e));
                                return;
                            }
                        }
                    }
                    if tx.send(Ok((unit, result))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut pending: BTreeMap<u64, UnitResult> = BTreeMap::new();
        let mut next_out = 0u64;
        let mut game_index = 0u64;
        for msg in rx.iter() {
            match msg {
                Err(e) => {
                    if failure.is_none() {
                        failure = Some(e);
                    }
                }
                Ok((unit, result)) => {
                    pending.insert(unit, result);
                    while let Some(mut r) = pending.remove(&next_out) {
                        let games = match &mut r {
                            UnitResult::Pair(g) => g,
                            UnitResult::Match { games, .. } => games,
                        };
                        for g in games.iter_mut() {
                            g.index = game_index;
                            game_index += 1;
                            summary.tally.add_game(g.a_seat, &g.record);
                        }
                        if let UnitResult::Pair(games) = &r {
                            summary.tally.add_pair(games);
                        }
                        if let UnitResult::Match { a_seat, record, .. } = &r {
                            summary.tally.matches += 1;
                            if record.winner == *a_seat {
                                summary.tally.match_wins_a += 1;
                            }
                        }
                        sink(&r);
                        next_out += 1;
                    }
                }
            }
        }
    });
    summary.seconds = start.elapsed().as_secs_f64();
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// A name safe in board lines and .mat files: the leading letters and digits of the
/// engine's name plus a suffix telling the two sides apart (`tcp://...` -> `tcpA`).
pub fn seat_name(engine: &str, suffix: &str) -> String {
    let stem: String = engine
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .take(12)
        .collect();
    format!("{stem}{suffix}")
}

/// Writes matches in the Jellyfish `.mat` text format that gnubg imports
/// (`import mat FILE`). Moves are written as gnubg does in that format: dice high-low,
/// each step `from/to` in the mover's numbering, bar 25, off 0, `*` after a hit.
pub fn write_mat(
    out: &mut dyn std::io::Write,
    length: u32,
    matches: &[MatchRecord],
) -> std::io::Result<()> {
    for record in matches {
        let names = match record.games.first() {
            Some((setup, _)) => setup.names.clone(),
            None => continue,
        };
        writeln!(out, " {length} point match")?;
        writeln!(out)?;
        for (i, (setup, game)) in record.games.iter().enumerate() {
            writeln!(out, " Game {}", i + 1)?;
            let left = format!("{} : {}", mat_name(&names[0]), setup.score[0]);
            let right = format!("{} : {}", mat_name(&names[1]), setup.score[1]);
            writeln!(out, " {left:<31}{right}")?;
            // Actions strictly alternate between the two columns.
            let mut cells: Vec<String> = Vec::new();
            let starter = if game.opening.0 > game.opening.1 {
                0
            } else {
                1
            };
            if starter == 1 {
                cells.push(String::new());
            }
            for e in &game.events {
                cells.push(match e {
                    Event::Move { dice, play, .. } => {
                        let steps: Vec<String> = play
                            .steps()
                            .iter()
                            .map(|s| format!("{}/{}{}", s.from, s.to, if s.hit { "*" } else { "" }))
                            .collect();
                        format!("{}{}: {}", dice.high(), dice.low(), steps.join(" "))
                    }
                    Event::Double { cube, .. } => format!(" Doubles => {cube}"),
                    Event::Take { .. } => " Takes".to_string(),
                    Event::Drop { .. } => " Drops".to_string(),
                });
            }
            let pts = if game.points == 1 { "point" } else { "points" };
            let wins = format!(" Wins {} {pts}", game.points);
            // The result goes in the winner's column: on the last row when that cell is
            // still free (a left-column drop, the right side wins), else on a line of its
            // own.
            let same_row = cells.len() % 2 == 1 && game.winner == 1;
            if same_row {
                cells.push(wins.clone());
            }
            for (row, pair) in cells.chunks(2).enumerate() {
                let l = &pair[0];
                match pair.get(1) {
                    Some(r) => writeln!(out, "{:>3}) {l:<28}{r}", row + 1)?,
                    None => writeln!(out, "{:>3}) {l}", row + 1)?,
                }
            }
            if !same_row {
                let indent = if game.winner == 0 { 5 } else { 33 };
                writeln!(out, "{:indent$}{wins}", "")?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

/// Names in .mat files are single words.
fn mat_name(name: &str) -> String {
    let n: String = name
        .chars()
        .map(|c| {
            if c.is_whitespace() || c == ':' {
                '_'
            } else {
                c
            }
        })
        .collect();
    if n.is_empty() {
        "player".into()
    } else {
        n
    }
}

/// A deterministic seat for tests: plays the first legal play, takes every double and
/// answers "double or roll?" with `at_roll`.
#[cfg(test)]
pub(crate) struct FirstPlaySeat {
    pub at_roll: Reply,
}

#[cfg(test)]
impl Seat for FirstPlaySeat {
    fn name(&self) -> String {
        "first".into()
    }
    fn act(&mut self, state: &MatchState) -> Result<Reply, SeatError> {
        Ok(match state.decision {
            Decision::Move(d) => Reply::Move(legal_plays(&state.position, d)[0]),
            Decision::TakeOrDrop => Reply::Take,
            _ => self.at_roll.clone(),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;

    /// Picks uniformly among the legal plays; doubles when told to.
    struct RandomSeat {
        rng: ChaCha8Rng,
        double_prob: f64,
        take: bool,
    }

    impl Seat for RandomSeat {
        fn name(&self) -> String {
            "random".into()
        }
        fn act(&mut self, state: &MatchState) -> Result<Reply, SeatError> {
            Ok(match state.decision {
                Decision::Move(d) => {
                    let plays = legal_plays(&state.position, d);
                    Reply::Move(*plays.choose(&mut self.rng).unwrap())
                }
                Decision::DoubleOrRoll => {
                    assert!(state.may_double);
                    if self.rng.gen_bool(self.double_prob) {
                        Reply::Double
                    } else {
                        Reply::Roll
                    }
                }
                Decision::TakeOrDrop => {
                    if self.take {
                        Reply::Take
                    } else {
                        Reply::Drop
                    }
                }
                _ => Reply::Roll,
            })
        }
    }

    fn seat(seed: u64, double_prob: f64, take: bool) -> RandomSeat {
        RandomSeat {
            rng: ChaCha8Rng::seed_from_u64(seed),
            double_prob,
            take,
        }
    }

    fn money(cube: bool) -> GameSetup {
        GameSetup {
            match_length: 0,
            score: [0, 0],
            crawford: false,
            post_crawford: false,
            cube,
            names: ["a".into(), "b".into()],
        }
    }

    #[test]
    fn cubeless_games_finish_with_a_result() {
        for s in 0..20 {
            let mut a = seat(s, 0.0, true);
            let mut b = seat(s + 100, 0.0, true);
            let mut seats: [&mut dyn Seat; 2] = [&mut a, &mut b];
            let g = play_game(&mut seats, &mut DiceStream::new(s), &money(false));
            assert!(matches!(g.ending, Ending::Played(_)));
            assert_eq!(g.cube, 1);
            assert!((1..=3).contains(&g.points));
            assert!(g.forfeit.is_none());
        }
    }

    #[test]
    fn a_dropped_double_gives_the_doubler_the_cube_value() {
        let mut a = seat(1, 1.0, false);
        let mut b = seat(2, 1.0, false);
        let mut seats: [&mut dyn Seat; 2] = [&mut a, &mut b];
        let g = play_game(&mut seats, &mut DiceStream::new(7), &money(true));
        assert_eq!(g.ending, Ending::Dropped);
        assert_eq!(g.points, 1);
        // The second player to act doubles at its first turn and the starter drops.
        let starter = if g.opening.0 > g.opening.1 { 0 } else { 1 };
        assert_eq!(g.winner, 1 - starter);
    }

    #[test]
    fn the_cube_passes_to_the_taker() {
        let mut a = seat(1, 1.0, true);
        let mut b = seat(2, 1.0, true);
        let mut seats: [&mut dyn Seat; 2] = [&mut a, &mut b];
        let g = play_game(&mut seats, &mut DiceStream::new(9), &money(true));
        // Every turn both sides redouble and take until the cube reaches its limit.
        assert_eq!(g.cube, MAX_CUBE);
        let doubles: Vec<_> = g
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Double { seat, .. } => Some(*seat),
                _ => None,
            })
            .collect();
        assert!(doubles.windows(2).all(|w| w[0] != w[1]));
    }

    #[test]
    fn matches_play_the_crawford_game_once() {
        for s in 0..10 {
            let mut a = seat(s, 0.3, true);
            let mut b = seat(s + 50, 0.3, true);
            let mut seats: [&mut dyn Seat; 2] = [&mut a, &mut b];
            let m = play_match(
                &mut seats,
                &mut DiceStream::new(s),
                5,
                true,
                ["a".into(), "b".into()],
            );
            assert!(m.score[m.winner] >= 5);
            let crawfords = m.games.iter().filter(|(s, _)| s.crawford).count();
            assert!(crawfords <= 1);
            for (setup, game) in &m.games {
                if setup.crawford {
                    assert!(game
                        .events
                        .iter()
                        .all(|e| !matches!(e, Event::Double { .. })));
                    assert!(setup.score.contains(&4));
                }
            }
            let total: [u32; 2] = m.games.iter().fold([0, 0], |mut acc, (_, g)| {
                acc[g.winner] += g.points;
                acc
            });
            assert_eq!(total, m.score);
        }
    }

    #[test]
    fn mirrored_streams_repeat_the_dice() {
        let mut x = DiceStream::new(stream_seed(3, 4));
        let mut y = DiceStream::new(stream_seed(3, 4));
        for _ in 0..50 {
            assert_eq!(x.roll(), y.roll());
        }
        assert_ne!(stream_seed(3, 4), stream_seed(3, 5));
    }

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

    struct RandomFactory(u64);

    impl SeatFactory for RandomFactory {
        fn make(&self, worker: usize) -> Result<Box<dyn Seat>, String> {
            Ok(Box::new(seat(self.0 * 1000 + worker as u64, 0.1, true)))
        }
        fn name(&self) -> String {
            format!("random{}", self.0)
        }
    }

    #[test]
    fn series_results_do_not_depend_on_the_thread_count() {
        // Random players draw from their own generators, so only a deterministic seat
        // gives equal results; a seat that always plays the first legal play is one.
        struct FirstFactory;
        impl SeatFactory for FirstFactory {
            fn make(&self, _: usize) -> Result<Box<dyn Seat>, String> {
                Ok(Box::new(FirstPlaySeat {
                    at_roll: Reply::Roll,
                }))
            }
            fn name(&self) -> String {
                "first".into()
            }
        }
        let run = |parallel| {
            let cfg = SeriesConfig {
                kind: SeriesKind::Money { games: 21 },
                cube: false,
                seed: 5,
                parallel,
            };
            let mut lines = Vec::new();
            let s = run_series(&cfg, &FirstFactory, &FirstFactory, &mut |u| {
                for g in u.games() {
                    lines.push(g.to_json().to_string());
                }
            })
            .unwrap();
            (s.tally, lines)
        };
        let (t1, l1) = run(1);
        let (t3, l3) = run(3);
        assert_eq!(t1, t3);
        assert_eq!(l1, l3);
        assert_eq!(t1.games, 21);
        // Identical players with mirrored dice: every pair cancels out.
        assert!(t1.ppg().abs() <= 3.0 / 21.0 + 1e-9);
    }

    #[test]
    fn match_series_counts_match_wins_and_writes_mat() {
        let cfg = SeriesConfig {
            kind: SeriesKind::Matches {
                length: 3,
                matches: 4,
            },
            cube: true,
            seed: 11,
            parallel: 2,
        };
        let mut records = Vec::new();
        let s = run_series(&cfg, &RandomFactory(1), &RandomFactory(2), &mut |u| {
            if let UnitResult::Match { record, .. } = u {
                records.push(record.clone());
            }
        })
        .unwrap();
        assert_eq!(s.tally.matches, 4);
        assert!(s.tally.match_wins_a <= 4);
        assert_eq!(records.len(), 4);
        let mut buf = Vec::new();
        write_mat(&mut buf, 3, &records).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(text.matches(" 3 point match").count(), 4);
        assert!(text.contains(" Game 1\n"));
        assert!(text.contains("Wins "));
    }

    #[test]
    fn the_interval_comes_from_pairs_in_money_play() {
        let game = |winner: usize, a_seat: usize| SeriesGame {
            index: 0,
            match_index: None,
            a_seat,
            dice_seed: 0,
            setup: money(false),
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
