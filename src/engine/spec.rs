//! [`EngineSpec`]: everything that defines how a player or engine plays, as typed values.
//!
//! Every front end parses into this one type: the server's TOML `[engine]` and `[cube]`
//! tables ([`crate::config`]), the duel and match player specs
//! (`net,depth=3,algorithm=star2`), the `--engine` argument and flags of `hint`, `rollout`,
//! `analyse` and the benchmarks, and the FIBS bot's `play.engine`. A bad value is refused
//! when the text is parsed, with one [`SpecError`] message whatever the front end, and
//! [`crate::engine::build`] turns a spec into a ready engine.
//!
//! The text form is `KIND[:PATH][,key=value]*`:
//!
//! | part | values | default |
//! |---|---|---|
//! | KIND | `net`, `net:PATH` (`net:A+B`: an ensemble, the mean of several files' nets), `pipsigmoid`, `pubeval`, `heuristic`, `random` | |
//! | `depth` | odd, 1 to 9 (1 = evaluate each play) | 1 |
//! | `algorithm` | `star2`, `star1`, `expectimax`, `filter`, `mcts` | `star2` |
//! | `noise` | equity noise, a number >= 0 | 0 |
//! | `cube_noise` | equity noise on cube decisions only (a player that errs on the cube), >= 0 | 0 |
//! | `cube_depth` | odd, 1 to 9 | 1 |
//! | `cube_lookahead` | rolls looked ahead past the searched probabilities by cube decisions, 0 to 2 (`off` = 0, `on` = 1): the model applied after each roll, the cube choices between them made explicitly ([`Lookahead`]) | `off` |
//! | `time_ms` | per-decision budget in ms (0 = none) | 0 |
//! | `min_depth` | odd, 1 to 9: iterations up to it (and the depth) complete whatever the budget | 1 |
//! | `cubeful_plays` | `on`: plays ranked by cubeful value at the score | `off` |
//! | `tt_megabytes` | transposition table, megabytes (>= 1) | 32 |
//! | `playouts` | with `algorithm=mcts`: iterations per decision (0 = by `time_ms`, else 2,000) | 0 |
//! | `playout` | with `algorithm=mcts`: `random` or `net` (the evaluator's best play each ply) | `random` |
//! | `truncate` | with `algorithm=mcts`: end playouts after this many plies with the evaluator | none |
//! | `precision` | `net`: `float` (the float nets, the reference) or `int16` (the integer first layer) | `float` |
//! | `filter` | with `algorithm=filter`: root stages `KEEP:MARGIN[/KEEP:MARGIN...]`, the first after depth 1, the next after depth 3, ... ([`FilterConfig`]) | `9:0.16` |
//! | `width` | with `algorithm=filter`: replies searched per roll below the root, by static value | 1 |
//!
//! `pubeval`, `heuristic` and `random` pick plays by fixed rules and take no options.
//! [`EngineSpec`]'s `Display` writes the canonical text (the kind and every option that
//! differs from its default), which parses back to the same spec. The options' old names
//! (`algo`, `time`, `cubeful`, `tt`; [`super::names`]) are still read, with a warning.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cube::CubeSettings;
pub use crate::eval::qnet::Precision;
use crate::search::mcts::MctsConfig;
use crate::search::{Algorithm, FilterConfig, MAX_DEPTH};

/// What values positions (or, for the fixed-rule players, picks plays directly).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum EvaluatorKind {
    /// The neural nets: the ones built into the binary, or a weights file, or several
    /// files joined by `+` (an ensemble: the mean of their probabilities).
    Net(Option<PathBuf>),
    /// A pip-count sigmoid (weak; for tests and as a fallback).
    PipSigmoid,
    /// Tesauro's pubeval, choosing plays by its linear score.
    Pubeval,
    /// Pip ratio with a two-ply lookahead.
    Heuristic,
    /// A uniformly random legal play.
    Random,
}

/// The weights files `net:PATH` names: `PATH` itself, or the files it joins with `+` (an
/// ensemble).
pub fn net_files(path: &Path) -> Vec<&Path> {
    match path.to_str() {
        Some(text) => text.split('+').map(Path::new).collect(),
        None => vec![path],
    }
}

impl EvaluatorKind {
    /// Whether this kind values positions, so that it can be searched and can answer cube
    /// questions. The fixed-rule players cannot.
    pub fn is_evaluator(&self) -> bool {
        matches!(self, EvaluatorKind::Net(_) | EvaluatorKind::PipSigmoid)
    }

    fn base_name(&self) -> &'static str {
        match self {
            EvaluatorKind::Net(_) => "net",
            EvaluatorKind::PipSigmoid => "pipsigmoid",
            EvaluatorKind::Pubeval => "pubeval",
            EvaluatorKind::Heuristic => "heuristic",
            EvaluatorKind::Random => "random",
        }
    }
}

impl fmt::Display for EvaluatorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvaluatorKind::Net(Some(p)) => write!(f, "net:{}", p.display()),
            other => f.write_str(other.base_name()),
        }
    }
}

impl FromStr for EvaluatorKind {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<EvaluatorKind, SpecError> {
        let (head, path) = match s.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (s, None),
        };
        let kind = match head {
            "net" => EvaluatorKind::Net(None),
            "pipsigmoid" => EvaluatorKind::PipSigmoid,
            "pubeval" => EvaluatorKind::Pubeval,
            "heuristic" => EvaluatorKind::Heuristic,
            "random" => EvaluatorKind::Random,
            "" => return Err(SpecError::Empty),
            other => return Err(SpecError::UnknownKind(other.to_string())),
        };
        match (kind, path) {
            (k, None) => Ok(k),
            (EvaluatorKind::Net(_), Some(p)) if p.split('+').any(str::is_empty) => {
                Err(SpecError::EmptyPath)
            }
            (EvaluatorKind::Net(_), Some(p)) => Ok(EvaluatorKind::Net(Some(PathBuf::from(p)))),
            (k, Some(_)) => Err(SpecError::PathNotAllowed(k.base_name())),
        }
    }
}

impl TryFrom<String> for EvaluatorKind {
    type Error = SpecError;
    fn try_from(s: String) -> Result<EvaluatorKind, SpecError> {
        s.parse()
    }
}

impl From<EvaluatorKind> for String {
    fn from(k: EvaluatorKind) -> String {
        k.to_string()
    }
}

/// How many rolls deeper than the searched probabilities a cube decision is valued
/// ([`crate::cube::analyse_rolls`]): 0 applies the cube model to the searched mean (off),
/// 1 after each of the roller's rolls, 2 after each of the opponent's rolls below those
/// too, the opponent's cube choice made between them (as gnubg's 2-ply cube does). A
/// level needs two plies of the cube search: `cube_depth` 5 reaches 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct Lookahead(u8);

const LOOKAHEAD_VALUES: &str = "0, 1 or 2 rolls (off = 0, on = 1)";

impl Lookahead {
    /// The deepest lookahead.
    pub const MAX: u8 = 2;
    pub const OFF: Lookahead = Lookahead(0);
    /// One roll: what the engine serves (two measured no better).
    pub const ON: Lookahead = Lookahead(1);

    pub fn new(rolls: u32) -> Result<Lookahead, SpecError> {
        match u8::try_from(rolls) {
            Ok(r) if r <= Self::MAX => Ok(Lookahead(r)),
            _ => Err(Self::refused(&rolls.to_string())),
        }
    }

    /// The error for a value that names no lookahead.
    fn refused(value: &str) -> SpecError {
        SpecError::BadValue {
            option: "cube_lookahead",
            value: value.into(),
            expected: LOOKAHEAD_VALUES,
        }
    }

    /// The rolls looked ahead.
    pub fn get(self) -> u8 {
        self.0
    }
}

impl TryFrom<u32> for Lookahead {
    type Error = SpecError;
    fn try_from(rolls: u32) -> Result<Lookahead, SpecError> {
        Lookahead::new(rolls)
    }
}

impl From<Lookahead> for u32 {
    fn from(l: Lookahead) -> u32 {
        l.0 as u32
    }
}

impl FromStr for Lookahead {
    type Err = SpecError;
    fn from_str(text: &str) -> Result<Lookahead, SpecError> {
        match text {
            "off" | "false" => Ok(Lookahead::OFF),
            "on" | "true" => Ok(Lookahead::ON),
            n => n
                .parse::<u32>()
                .map_err(|_| Lookahead::refused(n))
                .and_then(Lookahead::new),
        }
    }
}

/// A search depth: odd, from 1 (evaluate each play) to [`MAX_DEPTH`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct Depth(u8);

impl Depth {
    pub const ONE: Depth = Depth(1);
    pub const THREE: Depth = Depth(3);
    pub const FIVE: Depth = Depth(5);
    pub const SEVEN: Depth = Depth(7);

    pub fn new(d: u32) -> Result<Depth, SpecError> {
        if d % 2 == 1 && d <= MAX_DEPTH as u32 {
            Ok(Depth(d as u8))
        } else {
            Err(SpecError::BadValue {
                option: "depth",
                value: d.to_string(),
                expected: DEPTH_EXPECTED,
            })
        }
    }

    pub fn get(self) -> u32 {
        self.0 as u32
    }
}

const DEPTH_EXPECTED: &str = "an odd depth from 1 to 9";

impl TryFrom<u32> for Depth {
    type Error = SpecError;
    fn try_from(d: u32) -> Result<Depth, SpecError> {
        Depth::new(d)
    }
}

impl From<Depth> for u32 {
    fn from(d: Depth) -> u32 {
        d.get()
    }
}

impl fmt::Display for Depth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// How long one decision may think. Deeper iterations stop at the budget and the deepest
/// completed one answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(from = "u64", into = "u64")]
pub enum Budget {
    #[default]
    Unlimited,
    Time(Duration),
}

impl Budget {
    /// From milliseconds, 0 meaning no budget (the config's `time_budget_ms`).
    pub fn from_millis(ms: u64) -> Budget {
        if ms == 0 {
            Budget::Unlimited
        } else {
            Budget::Time(Duration::from_millis(ms))
        }
    }

    pub fn millis(self) -> u64 {
        match self {
            Budget::Unlimited => 0,
            Budget::Time(d) => d.as_millis().min(u64::MAX as u128) as u64,
        }
    }

    pub fn duration(self) -> Option<Duration> {
        match self {
            Budget::Unlimited => None,
            Budget::Time(d) => Some(d),
        }
    }
}

impl From<u64> for Budget {
    fn from(ms: u64) -> Budget {
        Budget::from_millis(ms)
    }
}

impl From<Budget> for u64 {
    fn from(b: Budget) -> u64 {
        b.millis()
    }
}

/// The standard deviation of deterministic noise on the equity of checker plays (0 = none),
/// as in the tournaments of the search papers: a weaker, varied opponent.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(try_from = "f32", into = "f32")]
pub struct Noise(f32);

impl Noise {
    pub const NONE: Noise = Noise(0.0);

    pub fn new(sigma: f32) -> Result<Noise, SpecError> {
        if sigma.is_finite() && sigma >= 0.0 {
            Ok(Noise(sigma))
        } else {
            Err(SpecError::BadValue {
                option: "noise",
                value: sigma.to_string(),
                expected: NOISE_EXPECTED,
            })
        }
    }

    /// The noise written as a number (`0.05`); `None` when it is not one or not allowed.
    pub fn parse(text: &str) -> Option<Noise> {
        text.parse::<f32>().ok().and_then(|x| Noise::new(x).ok())
    }

    pub fn sigma(self) -> f32 {
        self.0
    }

    pub fn is_none(self) -> bool {
        self.0 == 0.0
    }
}

const NOISE_EXPECTED: &str = "a finite number >= 0";

impl TryFrom<f32> for Noise {
    type Error = SpecError;
    fn try_from(x: f32) -> Result<Noise, SpecError> {
        Noise::new(x)
    }
}

impl From<Noise> for f32 {
    fn from(n: Noise) -> f32 {
        n.0
    }
}

/// How checker plays weigh the cube.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CubePolicy {
    /// Plays by cubeless money equity: what duels measure, and the fastest.
    #[default]
    Cubeless,
    /// At depth 1, plays re-ranked by their cubeful value at the match score (money
    /// equity with the cube where it is, or match-winning chance), as the server plays.
    Cubeful,
}

/// Transposition-table size of a spec that does not name one.
pub const DEFAULT_TT_MB: usize = 32;

/// How a player or engine plays. See the module docs for the text form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EngineSpec {
    pub evaluator: EvaluatorKind,
    pub algorithm: Algorithm,
    /// Depth of checker-play searches.
    pub depth: Depth,
    /// Depth of cube decisions (and resignation judgements).
    pub cube_depth: Depth,
    /// Cube decisions valued after each of the roller's rolls rather than on their mean
    /// (a searched `cube_depth` only).
    pub cube_lookahead: Lookahead,
    pub budget: Budget,
    /// Iterations of the search up to this depth complete whatever the budget.
    pub min_depth: Depth,
    pub noise: Noise,
    /// Noise on the evaluations behind cube decisions (not with `cubeful=on`, whose one
    /// evaluator takes `noise`).
    pub cube_noise: Noise,
    pub cube_policy: CubePolicy,
    /// Cube efficiencies and money rules for cube decisions.
    pub cube: CubeSettings,
    pub tt_megabytes: usize,
    /// Playouts and budget of `algo=mcts`.
    pub mcts: MctsConfig,
    /// How the neural nets compute.
    pub precision: Precision,
    /// Root stages and reply width of `algo=filter`.
    pub filter: FilterConfig,
    /// Plays valued per pruned move node, ranked by the pruning nets (0 = every play).
    pub prune: usize,
}

impl Default for EngineSpec {
    fn default() -> Self {
        EngineSpec {
            evaluator: EvaluatorKind::Net(None),
            algorithm: Algorithm::Star2,
            depth: Depth::ONE,
            cube_depth: Depth::ONE,
            cube_lookahead: Lookahead::OFF,
            budget: Budget::Unlimited,
            min_depth: Depth::ONE,
            noise: Noise::NONE,
            cube_noise: Noise::NONE,
            cube_policy: CubePolicy::Cubeless,
            cube: CubeSettings::default(),
            tt_megabytes: DEFAULT_TT_MB,
            mcts: MctsConfig::default(),
            precision: Precision::default(),
            filter: FilterConfig::default(),
            prune: 0,
        }
    }
}

/// Why a specification was refused. One message per mistake, whatever the front end.
#[derive(Debug, Clone, PartialEq)]
pub enum SpecError {
    Empty,
    UnknownKind(String),
    PathNotAllowed(&'static str),
    EmptyPath,
    /// An option without `=`, or with an empty key.
    MalformedOption(String),
    UnknownOption {
        kind: &'static str,
        option: String,
        known: &'static [&'static str],
    },
    DuplicateOption(String),
    BadValue {
        option: &'static str,
        value: String,
        expected: &'static str,
    },
    /// A fixed-rule player given search or noise settings.
    NotSearchable(&'static str),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::Empty => write!(f, "empty player specification"),
            SpecError::UnknownKind(k) => write!(
                f,
                "unknown player '{k}' (known: net, net:PATH, pipsigmoid, pubeval, heuristic, random)"
            ),
            SpecError::PathNotAllowed(k) => write!(f, "player '{k}' takes no path"),
            SpecError::EmptyPath => write!(
                f,
                "'net:' needs a weights file path (or several joined by `+`, none of them empty)"
            ),
            SpecError::MalformedOption(o) => {
                write!(f, "option '{o}' is not of the form key=value")
            }
            SpecError::UnknownOption {
                kind,
                option,
                known,
            } => {
                if known.is_empty() {
                    write!(f, "player '{kind}' takes no options (got '{option}')")
                } else {
                    write!(
                        f,
                        "unknown option '{option}' for player '{kind}' (known: {})",
                        known.join(", ")
                    )
                }
            }
            SpecError::DuplicateOption(o) => write!(f, "option '{o}' given twice"),
            SpecError::BadValue {
                option,
                value,
                expected,
            } => write!(f, "option {option}={value}: expected {expected}"),
            SpecError::NotSearchable(k) => write!(
                f,
                "player '{k}' picks plays by fixed rules: it takes no depth, algorithm or noise"
            ),
        }
    }
}

impl std::error::Error for SpecError {}

/// The option keys of the text form.
pub const OPTIONS: &[&str] = &[
    "depth",
    "algorithm",
    "noise",
    "cube_noise",
    "cube_depth",
    "cube_lookahead",
    "time_ms",
    "min_depth",
    "cubeful_plays",
    "tt_megabytes",
    "playouts",
    "playout",
    "truncate",
    "precision",
    "filter",
    "width",
    "prune",
];

/// The most plays a pruned move node may keep.
pub const MAX_PRUNE: usize = 64;
/// What `prune` accepts, as the messages that refuse another value say it.
pub const PRUNE_EXPECTED: &str = "plays kept per pruned move node, 0 (every play) to 64";
const ALGO_EXPECTED: &str = "expectimax, star1, star2, filter or mcts";
const FILTER_EXPECTED: &str =
    "root stages KEEP:MARGIN[/KEEP:MARGIN...], at most 4, KEEP >= 1, MARGIN 0 to 3 (e.g. 9:0.16/2:0.04)";

impl EngineSpec {
    /// The spec of `kind` with every other field at its default.
    pub fn of(evaluator: EvaluatorKind) -> EngineSpec {
        EngineSpec {
            evaluator,
            ..EngineSpec::default()
        }
    }

    /// Whether checker plays are chosen by a search deeper than one ply or under a budget
    /// (rather than by evaluating each play once).
    pub fn searches(&self) -> bool {
        self.depth > Depth::ONE
            || self.budget != Budget::Unlimited
            || self.algorithm == Algorithm::Mcts
    }

    /// Checks combinations the field types cannot: the fixed-rule players take no search
    /// or noise settings, and the table needs at least one megabyte.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.tt_megabytes == 0 {
            return Err(SpecError::BadValue {
                option: "tt_megabytes",
                value: "0".into(),
                expected: "megabytes, at least 1",
            });
        }
        if self.algorithm != Algorithm::Mcts && self.mcts != MctsConfig::default() {
            return Err(SpecError::BadValue {
                option: "playouts",
                value: "(playouts, playout or truncate)".into(),
                expected: "these options only with algorithm=mcts",
            });
        }
        if self.algorithm != Algorithm::Filter && self.filter != FilterConfig::default() {
            return Err(SpecError::BadValue {
                option: "filter",
                value: "(filter or width)".into(),
                expected: "these options only with algorithm=filter",
            });
        }
        if self.cube_policy == CubePolicy::Cubeful && !self.cube_noise.is_none() {
            return Err(SpecError::BadValue {
                option: "cube_noise",
                value: self.cube_noise.sigma().to_string(),
                expected: "no cube_noise with cubeful_plays=on (its one evaluator takes noise)",
            });
        }
        if !self.evaluator.is_evaluator() {
            let plain = EngineSpec::of(self.evaluator.clone());
            let same_play = self.depth == plain.depth
                && self.algorithm == plain.algorithm
                && self.budget == plain.budget
                && self.min_depth == plain.min_depth
                && self.noise == plain.noise
                && self.cube_noise == plain.cube_noise
                && self.cube_policy == plain.cube_policy
                && self.cube_depth == plain.cube_depth
                && self.cube_lookahead == plain.cube_lookahead
                && self.precision == plain.precision
                && self.filter == plain.filter;
            if !same_play {
                return Err(SpecError::NotSearchable(self.evaluator.base_name()));
            }
        }
        Ok(())
    }

    /// Applies one `key=value` option of the text form (an option's old name is read too,
    /// with a warning naming the new one).
    pub fn set_option(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
        let (name, old) = super::names::spec_option(key);
        if old {
            super::names::warn_renamed(&format!("the spec option {key}="), &format!("{name}="));
        }
        let key = name;
        let bad = |option: &'static str, expected: &'static str| SpecError::BadValue {
            option,
            value: value.to_string(),
            expected,
        };
        match key {
            "depth" => {
                self.depth = parse_depth_value(value).ok_or_else(|| bad("depth", DEPTH_EXPECTED))?
            }
            "cube_depth" => {
                self.cube_depth =
                    parse_depth_value(value).ok_or_else(|| bad("cube_depth", DEPTH_EXPECTED))?
            }
            "algorithm" => {
                self.algorithm = value.parse().map_err(|_| bad("algorithm", ALGO_EXPECTED))?;
            }
            "noise" => {
                self.noise = Noise::parse(value).ok_or_else(|| bad("noise", NOISE_EXPECTED))?
            }
            "cube_noise" => {
                self.cube_noise =
                    Noise::parse(value).ok_or_else(|| bad("cube_noise", NOISE_EXPECTED))?
            }
            "min_depth" => {
                self.min_depth =
                    parse_depth_value(value).ok_or_else(|| bad("min_depth", DEPTH_EXPECTED))?
            }
            "time_ms" => {
                self.budget = Budget::from_millis(
                    value
                        .parse::<u64>()
                        .map_err(|_| bad("time_ms", "milliseconds (0 = no budget)"))?,
                )
            }
            "cube_lookahead" => self.cube_lookahead = value.parse()?,
            "cubeful_plays" => {
                self.cube_policy = match value {
                    "on" | "true" => CubePolicy::Cubeful,
                    "off" | "false" => CubePolicy::Cubeless,
                    _ => return Err(bad("cubeful_plays", "on or off")),
                }
            }
            "playouts" => {
                let n = value
                    .parse::<u64>()
                    .map_err(|_| bad("playouts", "a number of playouts (0 = by time)"))?;
                self.mcts.playouts = (n > 0).then_some(n);
            }
            "playout" => {
                self.mcts.playout = value.parse().map_err(|_| bad("playout", "random or net"))?
            }
            "truncate" => {
                self.mcts.truncate = Some(
                    value
                        .parse::<u32>()
                        .map_err(|_| bad("truncate", "plies, 0 or more"))?,
                )
            }
            "precision" => {
                self.precision = value
                    .parse()
                    .map_err(|_| bad("precision", "float or int16"))?
            }
            "filter" => {
                self.filter = self
                    .filter
                    .with_stages(value)
                    .ok_or_else(|| bad("filter", FILTER_EXPECTED))?
            }
            "width" => {
                self.filter.reply_width = value
                    .parse::<usize>()
                    .ok()
                    .filter(|w| (1..=64).contains(w))
                    .ok_or_else(|| bad("width", "replies per roll, 1 to 64"))?
            }
            "prune" => {
                self.prune = value
                    .parse::<usize>()
                    .ok()
                    .filter(|k| *k <= MAX_PRUNE)
                    .ok_or_else(|| bad("prune", PRUNE_EXPECTED))?
            }
            "tt_megabytes" => {
                self.tt_megabytes = value
                    .parse::<usize>()
                    .ok()
                    .filter(|&m| m >= 1)
                    .ok_or_else(|| bad("tt_megabytes", "megabytes, at least 1"))?
            }
            other => {
                return Err(SpecError::UnknownOption {
                    kind: self.evaluator.base_name(),
                    option: other.to_string(),
                    known: if self.evaluator.is_evaluator() {
                        OPTIONS
                    } else {
                        &[]
                    },
                })
            }
        }
        Ok(())
    }

    /// Applies `key=value` options (the text after the kind), checking each key once.
    pub fn apply_options<'a>(
        &mut self,
        options: impl Iterator<Item = &'a str>,
    ) -> Result<(), SpecError> {
        let mut seen: Vec<&str> = Vec::new();
        for opt in options {
            let (k, v) = opt
                .split_once('=')
                .filter(|(k, _)| !k.is_empty())
                .ok_or_else(|| SpecError::MalformedOption(opt.to_string()))?;
            if !self.evaluator.is_evaluator() {
                return Err(SpecError::UnknownOption {
                    kind: self.evaluator.base_name(),
                    option: k.to_string(),
                    known: &[],
                });
            }
            // An option given under its old and its new name is given twice.
            let (one, _) = super::names::spec_option(k);
            if seen.contains(&one) {
                return Err(SpecError::DuplicateOption(one.to_string()));
            }
            seen.push(one);
            self.set_option(k, v)?;
        }
        // Another algorithm chosen over a base (`engine,algo=star2` over a configured
        // filter) drops the base's settings of the algorithm it replaces.
        if seen.contains(&"algo") {
            if self.algorithm != Algorithm::Filter
                && !seen.iter().any(|k| matches!(*k, "filter" | "width"))
            {
                self.filter = FilterConfig::default();
            }
            if self.algorithm != Algorithm::Mcts
                && !seen
                    .iter()
                    .any(|k| matches!(*k, "playouts" | "playout" | "truncate"))
            {
                self.mcts = MctsConfig::default();
            }
        }
        self.validate()
    }
}

fn parse_depth_value(v: &str) -> Option<Depth> {
    v.trim()
        .parse::<u32>()
        .ok()
        .and_then(|d| Depth::new(d).ok())
}

impl FromStr for EngineSpec {
    type Err = SpecError;

    /// Parses `KIND[:PATH][,key=value]*`.
    fn from_str(text: &str) -> Result<EngineSpec, SpecError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpecError::Empty);
        }
        let mut parts = text.split(',');
        let head = parts.next().unwrap_or_default();
        let mut spec = EngineSpec::of(head.parse()?);
        spec.apply_options(parts)?;
        Ok(spec)
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = EngineSpec::default();
        write!(f, "{}", self.evaluator)?;
        if self.depth != d.depth {
            write!(f, ",depth={}", self.depth)?;
        }
        if self.algorithm != d.algorithm {
            write!(f, ",algorithm={}", self.algorithm)?;
        }
        if self.noise != d.noise {
            write!(f, ",noise={}", self.noise.sigma())?;
        }
        if self.cube_noise != d.cube_noise {
            write!(f, ",cube_noise={}", self.cube_noise.sigma())?;
        }
        if self.cube_depth != d.cube_depth {
            write!(f, ",cube_depth={}", self.cube_depth)?;
        }
        if self.cube_lookahead != d.cube_lookahead {
            write!(f, ",cube_lookahead={}", self.cube_lookahead.get())?;
        }
        if self.budget != d.budget {
            write!(f, ",time_ms={}", self.budget.millis())?;
        }
        if self.min_depth != d.min_depth {
            write!(f, ",min_depth={}", self.min_depth)?;
        }
        if self.cube_policy != d.cube_policy {
            f.write_str(",cubeful_plays=on")?;
        }
        if self.tt_megabytes != d.tt_megabytes {
            write!(f, ",tt_megabytes={}", self.tt_megabytes)?;
        }
        if let Some(n) = self.mcts.playouts {
            write!(f, ",playouts={n}")?;
        }
        if self.mcts.playout != d.mcts.playout {
            write!(f, ",playout={}", self.mcts.playout)?;
        }
        if self.precision != d.precision {
            write!(f, ",precision={}", self.precision)?;
        }
        if let Some(t) = self.mcts.truncate {
            write!(f, ",truncate={t}")?;
        }
        let (mine, plain) = (&self.filter, &d.filter);
        if (mine.accept, mine.extra, mine.threshold, mine.deeper)
            != (plain.accept, plain.extra, plain.threshold, plain.deeper)
        {
            write!(f, ",filter={}", mine.stages_text())?;
        }
        if mine.reply_width != plain.reply_width {
            write!(f, ",width={}", mine.reply_width)?;
        }
        if self.prune != d.prune {
            write!(f, ",prune={}", self.prune)?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_minimum_depth_round_trips() {
        let spec: EngineSpec = "net,depth=5,time_ms=400,min_depth=3".parse().unwrap();
        assert_eq!(spec.min_depth.get(), 3);
        assert_eq!(spec.to_string(), "net,depth=5,time_ms=400,min_depth=3");
        assert_eq!(spec.to_string().parse::<EngineSpec>().unwrap(), spec);
        // A guaranteed depth beyond the depth guarantees the depth (the spec that starts
        // from the server's config, `engine,depth=1`, is the depth-1 engine).
        let shallow: EngineSpec = "net,depth=1,min_depth=3".parse().unwrap();
        assert_eq!(crate::engine::build::plan(&shallow).settings(1).depth, 1);
        assert!("net,depth=5,min_depth=2".parse::<EngineSpec>().is_err());
        assert!("pubeval,min_depth=3".parse::<EngineSpec>().is_err());
    }

    #[test]
    fn the_cube_lookahead_parses_round_trips_and_reaches_the_plan() {
        for (text, rolls) in [("off", 0), ("0", 0), ("on", 1), ("1", 1), ("2", 2)] {
            let s: EngineSpec = format!("net,cube_depth=5,cube_lookahead={text}")
                .parse()
                .unwrap();
            assert_eq!(s.cube_lookahead.get(), rolls, "{text}");
            assert_eq!(s.to_string().parse::<EngineSpec>().unwrap(), s);
            // A position evaluation keeps at least the roller's rolls.
            let plan = crate::engine::build::plan(&s);
            assert_eq!(plan.settings(5).rolls, rolls.max(1));
        }
        for bad in ["3", "yes", "-1", "1ü", ""] {
            let e = format!("net,cube_lookahead={bad}")
                .parse::<EngineSpec>()
                .unwrap_err();
            assert!(e.to_string().contains("0, 1 or 2"), "{bad}: {e}");
        }
        // Through a configuration too, where it is a number of rolls.
        assert_eq!(Lookahead::try_from(2).unwrap().get(), 2);
        assert!(Lookahead::try_from(3).is_err());
    }

    #[test]
    fn filter_options_need_algo_filter_and_round_trip() {
        let text = "net,depth=5,algorithm=filter,filter=9:0.16/3:0.06,width=2";
        let s: EngineSpec = text.parse().unwrap();
        assert_eq!(s.to_string(), text);
        assert_eq!(s.filter.stage_after(3).map(|st| st.keep), Some(3));
        assert_eq!(s.filter.reply_width, 2);
        let plan = crate::engine::build::plan(&s);
        assert_eq!(plan.settings(5).filter, s.filter);
        // The default stage is not written.
        let d: EngineSpec = "net,depth=3,algorithm=filter,filter=9:0.16,width=1"
            .parse()
            .unwrap();
        assert_eq!(d.to_string(), "net,depth=3,algorithm=filter");
        let e = "net,depth=5,filter=9:0.16/2:0.04"
            .parse::<EngineSpec>()
            .unwrap_err();
        assert!(e.to_string().contains("algorithm=filter"), "{e}");
        for bad in [
            "filter=9",
            "filter=0:0.1",
            "width=0",
            "width=65",
            "filter=9:0.1ü",
        ] {
            let e = format!("net,algorithm=filter,{bad}")
                .parse::<EngineSpec>()
                .unwrap_err();
            assert!(e.to_string().contains("expected"), "{bad}: {e}");
        }
    }

    #[test]
    fn mcts_options_need_algo_mcts() {
        let e = "net,playouts=100".parse::<EngineSpec>().unwrap_err();
        assert!(e.to_string().contains("algorithm=mcts"), "{e}");
        let e = "net,algorithm=mcts,playout=smart"
            .parse::<EngineSpec>()
            .unwrap_err();
        assert!(e.to_string().contains("random or net"), "{e}");
        let s: EngineSpec = "net,algorithm=mcts,playouts=0".parse().unwrap();
        assert_eq!(s.mcts.playouts, None);
        assert!(s.searches());
    }

    #[test]
    fn text_forms_parse_and_round_trip() {
        for text in [
            "net",
            "net:weights/x.sgnet",
            "net:weights/x.sgnet+weights/y.sgnet",
            "net:a.sgnet+b.sgnet,depth=5,algorithm=filter,precision=int16",
            "net,depth=3",
            "net,depth=5,algorithm=expectimax",
            "net,noise=0.03",
            "net,depth=3,noise=0.015",
            "net,noise=0.03,cube_noise=0.2",
            "net,algorithm=mcts",
            "net,algorithm=mcts,time_ms=500,playout=net,truncate=10",
            "pipsigmoid,algorithm=mcts,playouts=800",
            "net,cube_depth=3,time_ms=800,cubeful_plays=on,tt_megabytes=64",
            "pipsigmoid,depth=3",
            "pubeval",
            "heuristic",
            "random",
        ] {
            let s: EngineSpec = text.parse().unwrap();
            assert_eq!(s.to_string(), text);
            assert_eq!(s.to_string().parse::<EngineSpec>().unwrap(), s);
        }
        // Other spellings parse to the canonical text.
        let s: EngineSpec = "net,algorithm=star2,depth=1,noise=0".parse().unwrap();
        assert_eq!(s.to_string(), "net");
        let s: EngineSpec = "net,algorithm=STAR1,depth=3".parse().unwrap();
        assert_eq!(s.to_string(), "net,depth=3,algorithm=star1");
    }

    #[test]
    fn old_option_names_are_read_as_the_new_ones() {
        let old: EngineSpec = "net,depth=3,algo=star1,time=400,cubeful=on,tt=8"
            .parse()
            .unwrap();
        let new: EngineSpec =
            "net,depth=3,algorithm=star1,time_ms=400,cubeful_plays=on,tt_megabytes=8"
                .parse()
                .unwrap();
        assert_eq!(old, new);
        assert_eq!(
            old.to_string(),
            "net,depth=3,algorithm=star1,time_ms=400,cubeful_plays=on,tt_megabytes=8"
        );
        // One setting under both names is one setting given twice.
        let e = "net,algo=star1,algorithm=star2"
            .parse::<EngineSpec>()
            .unwrap_err();
        assert_eq!(e, SpecError::DuplicateOption("algorithm".into()));
        let e = "net,tt=0".parse::<EngineSpec>().unwrap_err().to_string();
        assert!(e.contains("tt_megabytes=0"), "{e}");
    }

    #[test]
    fn bad_values_are_refused_with_one_line() {
        for (text, needle) in [
            ("", "empty"),
            ("alpha", "unknown player 'alpha'"),
            ("pubeval:x", "takes no path"),
            ("net:", "needs a weights file"),
            ("net:a.sgnet+", "needs a weights file"),
            ("net:+b.sgnet", "needs a weights file"),
            ("net,depth", "key=value"),
            ("net,depth=2", "odd depth"),
            ("net,depth=11", "odd depth"),
            ("net,algorithm=alpha", "star2"),
            ("net,noise=-1", "noise=-1"),
            ("net,noise=NaN", "noise"),
            ("net,cube_noise=-1", "cube_noise=-1"),
            ("net,cubeful_plays=on,cube_noise=0.1", "cubeful_plays=on"),
            ("pubeval,cube_noise=0.1", "takes no options"),
            ("net,tt_megabytes=0", "at least 1"),
            ("net,cubeful=maybe", "on or off"),
            ("net,depth=3,depth=5", "twice"),
            ("net,speed=3", "unknown option 'speed'"),
            ("pubeval,depth=3", "takes no options"),
        ] {
            let e = text.parse::<EngineSpec>().unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
            assert!(!e.contains('\n'), "{text:?}: {e}");
        }
    }

    #[test]
    fn serde_uses_the_same_checks() {
        let s = EngineSpec::default();
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<EngineSpec>(&json).unwrap(), s);
        let e = serde_json::from_str::<EngineSpec>(r#"{"depth":4}"#).unwrap_err();
        assert!(e.to_string().contains("odd depth"), "{e}");
        let e = serde_json::from_str::<EngineSpec>(r#"{"evaluator":"alpha"}"#).unwrap_err();
        assert!(e.to_string().contains("unknown player"), "{e}");
        let s: EngineSpec =
            serde_json::from_str(r#"{"evaluator":"net:a.sgnet","algorithm":"star1","budget":500}"#)
                .unwrap();
        assert_eq!(s.to_string(), "net:a.sgnet,algorithm=star1,time_ms=500");
    }

    #[test]
    fn fixed_rule_players_take_no_search() {
        let mut s = EngineSpec::of(EvaluatorKind::Random);
        assert!(s.validate().is_ok());
        s.depth = Depth::new(3).unwrap();
        assert_eq!(
            s.validate().unwrap_err(),
            SpecError::NotSearchable("random")
        );
    }
}
