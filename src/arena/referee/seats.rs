//! Seats: the sides of the table the referee asks, and the factories that make them.
//!
//! A seat answers one decision at a time ([`Seat::act`]) and the referee checks every
//! answer again. The in-process seats are here: [`EngineSeat`] for the engine facade and
//! [`PlayerSeat`] for duel players, both made by [`InProcessFactory`]; engines over TCP
//! are in [`crate::arena::socket`].

use std::fmt;

use crate::game::{legal_plays, Decision, MatchState, Play};

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

/// Makes the seats of one engine, one per worker (a socket engine opens a connection).
pub trait SeatFactory: Sync {
    /// A seat for worker `worker` (0-based).
    fn make(&self, worker: usize) -> Result<Box<dyn Seat>, String>;
    /// The engine's name for reports.
    fn name(&self) -> String;
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
