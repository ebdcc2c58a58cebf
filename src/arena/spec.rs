//! Player specifications: `net`, `net:PATH`, `pubeval`, `heuristic`, `random`, each with
//! optional `key=value` options after commas (`net,noise=0.03`).
//!
//! Option parsing is generic on purpose: every kind declares the options it knows in
//! [`PlayerKind::known_options`], an unknown option is an error that lists them, and values
//! are read through typed getters. Search players extend this with their own keys.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use super::players::{HeuristicPlayer, NetPlayer, Player, PubevalPlayer, RandomPlayer};
use crate::eval::{NeuralEvaluator, WeightsError};

/// The kinds of player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerKind {
    Net,
    Pubeval,
    Heuristic,
    Random,
}

impl PlayerKind {
    pub const ALL: [PlayerKind; 4] = [
        PlayerKind::Net,
        PlayerKind::Pubeval,
        PlayerKind::Heuristic,
        PlayerKind::Random,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PlayerKind::Net => "net",
            PlayerKind::Pubeval => "pubeval",
            PlayerKind::Heuristic => "heuristic",
            PlayerKind::Random => "random",
        }
    }

    /// The option keys this kind accepts.
    pub fn known_options(self) -> &'static [&'static str] {
        match self {
            PlayerKind::Net => &["noise", "depth", "algo"],
            PlayerKind::Pubeval | PlayerKind::Heuristic | PlayerKind::Random => &[],
        }
    }

    /// Whether `kind:PATH` is allowed.
    pub fn takes_path(self) -> bool {
        self == PlayerKind::Net
    }
}

/// Why a player specification was refused.
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
        option: String,
        value: String,
        expected: &'static str,
    },
    Weights(WeightsError),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::Empty => write!(f, "empty player specification"),
            SpecError::UnknownKind(k) => write!(
                f,
                "unknown player '{k}' (known: net, net:PATH, pubeval, heuristic, random)"
            ),
            SpecError::PathNotAllowed(k) => write!(f, "player '{k}' takes no path"),
            SpecError::EmptyPath => write!(f, "'net:' needs a weights file path"),
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
            SpecError::Weights(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SpecError {}

/// A parsed specification.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerSpec {
    pub kind: PlayerKind,
    pub path: Option<PathBuf>,
    /// Options in the order given, keys checked against the kind's known options.
    pub options: Vec<(String, String)>,
    text: String,
}

impl PlayerSpec {
    /// Parses `kind[:path][,key=value]*`.
    pub fn parse(text: &str) -> Result<PlayerSpec, SpecError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpecError::Empty);
        }
        let mut parts = text.split(',');
        let head = parts.next().unwrap_or_default();
        let (kind_text, path) = match head.split_once(':') {
            Some((k, p)) => (k, Some(p)),
            None => (head, None),
        };
        let kind = PlayerKind::ALL
            .into_iter()
            .find(|k| k.as_str() == kind_text)
            .ok_or_else(|| SpecError::UnknownKind(kind_text.to_string()))?;
        let path = match path {
            None => None,
            Some(_) if !kind.takes_path() => return Err(SpecError::PathNotAllowed(kind.as_str())),
            Some("") => return Err(SpecError::EmptyPath),
            Some(p) => Some(PathBuf::from(p)),
        };
        let mut options: Vec<(String, String)> = Vec::new();
        for opt in parts {
            let (k, v) = opt
                .split_once('=')
                .filter(|(k, _)| !k.is_empty())
                .ok_or_else(|| SpecError::MalformedOption(opt.to_string()))?;
            if !kind.known_options().contains(&k) {
                return Err(SpecError::UnknownOption {
                    kind: kind.as_str(),
                    option: k.to_string(),
                    known: kind.known_options(),
                });
            }
            if options.iter().any(|(o, _)| o == k) {
                return Err(SpecError::DuplicateOption(k.to_string()));
            }
            options.push((k.to_string(), v.to_string()));
        }
        Ok(PlayerSpec {
            kind,
            path,
            options,
            text: text.to_string(),
        })
    }

    /// The specification as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The raw value of an option.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A finite float option, or `default`.
    pub fn f32_option(&self, key: &str, default: f32) -> Result<f32, SpecError> {
        match self.option(key) {
            None => Ok(default),
            Some(v) => v
                .parse::<f32>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| SpecError::BadValue {
                    option: key.to_string(),
                    value: v.to_string(),
                    expected: "a finite number",
                }),
        }
    }

    /// An unsigned integer option, or `default`.
    pub fn u32_option(&self, key: &str, default: u32) -> Result<u32, SpecError> {
        match self.option(key) {
            None => Ok(default),
            Some(v) => v.parse::<u32>().map_err(|_| SpecError::BadValue {
                option: key.to_string(),
                value: v.to_string(),
                expected: "a non-negative integer",
            }),
        }
    }

    /// Loads what the player needs (weights files) and returns a factory that makes one
    /// player per thread.
    pub fn build(&self) -> Result<PlayerFactory, SpecError> {
        let name = self.text.clone();
        match self.kind {
            PlayerKind::Net => {
                let eval = match &self.path {
                    None => NeuralEvaluator::default_nets(),
                    Some(p) => NeuralEvaluator::load(p),
                }
                .map_err(SpecError::Weights)?;
                let noise = self.f32_option("noise", 0.0)?;
                if noise < 0.0 {
                    return Err(SpecError::BadValue {
                        option: "noise".into(),
                        value: noise.to_string(),
                        expected: "a number >= 0",
                    });
                }
                // Search players: `depth=N` (odd, > 1) and/or `algo=...`.
                if self.option("depth").is_some() || self.option("algo").is_some() {
                    return crate::search::player::factory_from_spec(self, Arc::new(eval), noise);
                }
                Ok(PlayerFactory::net(Arc::new(eval), noise, name))
            }
            PlayerKind::Pubeval => Ok(PlayerFactory::new(name, || Box::new(PubevalPlayer))),
            PlayerKind::Heuristic => {
                Ok(PlayerFactory::new(
                    name,
                    || Box::new(HeuristicPlayer::new()),
                ))
            }
            PlayerKind::Random => Ok(PlayerFactory::new(name, || Box::new(RandomPlayer::new(0)))),
        }
    }
}

type MakePlayer = dyn Fn() -> Box<dyn Player> + Send + Sync;

/// Makes fresh players of one specification, one per thread.
#[derive(Clone)]
pub struct PlayerFactory {
    name: String,
    make: Arc<MakePlayer>,
}

impl fmt::Debug for PlayerFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlayerFactory({})", self.name)
    }
}

impl PlayerFactory {
    /// A factory from any constructor.
    pub fn new(
        name: impl Into<String>,
        make: impl Fn() -> Box<dyn Player> + Send + Sync + 'static,
    ) -> PlayerFactory {
        PlayerFactory {
            name: name.into(),
            make: Arc::new(make),
        }
    }

    /// Net players sharing one set of weights.
    pub fn net(eval: Arc<NeuralEvaluator>, noise: f32, name: String) -> PlayerFactory {
        let n = name.clone();
        PlayerFactory::new(name, move || {
            Box::new(NetPlayer::new(eval.clone(), noise, n.clone()))
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A new player.
    pub fn make(&self) -> Box<dyn Player> {
        (self.make)()
    }
}
