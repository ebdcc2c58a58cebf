//! The server's configuration file (TOML). `config/default.toml` holds every key with its
//! default and a comment; a file may set any subset. Unknown keys are rejected with the
//! key's name, so a typo never silently falls back to a default.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cube::CubeSettings;
use crate::engine::{Budget, CubePolicy, Depth, EngineSpec, EvaluatorKind};
use crate::notation::fibs_board::Convention;
use crate::search::Algorithm;

/// Everything `stargammon serve` reads.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub server: ServerConfig,
    pub http: HttpConfig,
    pub engine: EngineConfig,
    pub cube: CubeSettings,
}

/// Which FIBS-board convention the external interface assumes for boards whose fields do
/// not tell (gnubg's external players are always read in gnubg's convention).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BoardConvention {
    /// Detect per board; gnubg's reading when the fields cannot tell. The external
    /// interface stands in for gnubg's, whose own reader applies gnubg's rule, so a client
    /// that gets right answers from gnubg sends boards that rule reads right.
    Auto,
    Fibs,
    Gnubg,
}

impl BoardConvention {
    /// The convention for a board record under this setting.
    pub fn resolve(self, board: &crate::notation::fibs_board::FibsBoard) -> Convention {
        match self {
            BoardConvention::Fibs => Convention::Fibs,
            BoardConvention::Gnubg => Convention::Gnubg,
            BoardConvention::Auto => {
                crate::notation::fibs_board::detect_convention(board).unwrap_or(Convention::Gnubg)
            }
        }
    }
}

/// Network limits and behaviour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    pub listen: String,
    pub max_connections: usize,
    pub max_line_bytes: usize,
    pub idle_timeout_secs: u64,
    pub shutdown_grace_ms: u64,
    pub board_convention: BoardConvention,
    pub nul_wait_ms: u64,
    /// The deepest search one request may ask for (`evaluation ... plies N`); deeper
    /// requests are answered at this depth, with a note in the log.
    pub max_request_depth: Depth,
    /// The longest one request may search, in milliseconds (0 = no cap): the deepest
    /// iteration completed by then answers.
    pub max_request_ms: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: "127.0.0.1:4321".to_string(),
            max_connections: 256,
            max_line_bytes: 1024,
            idle_timeout_secs: 0,
            shutdown_grace_ms: 2000,
            board_convention: BoardConvention::Auto,
            nul_wait_ms: 30,
            max_request_depth: Depth::new(5).unwrap_or(Depth::ONE),
            max_request_ms: 10_000,
        }
    }
}

impl ServerConfig {
    pub fn idle_timeout(&self) -> Option<Duration> {
        (self.idle_timeout_secs > 0).then(|| Duration::from_secs(self.idle_timeout_secs))
    }
}

/// The HTTP/JSON API and board page, a second listener of `serve` (off by default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// Address of the HTTP listener; empty: no HTTP listener.
    pub listen: String,
    /// Largest accepted request body in bytes.
    pub max_body_bytes: usize,
    /// Most trials one `/v1/rollout` request may ask for (per play with dice).
    pub max_rollout_trials: u64,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            listen: String::new(),
            max_body_bytes: 16 * 1024,
            max_rollout_trials: 1296,
        }
    }
}

impl HttpConfig {
    /// The address to listen on, when the listener is on.
    pub fn address(&self) -> Option<&str> {
        let a = self.listen.trim();
        (!a.is_empty()).then_some(a)
    }
}

/// What plays and how hard it thinks: the keys of [`EngineSpec`] as the file spells them,
/// typed (a bad value fails the parse with the spec's own message), plus the worker pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EngineConfig {
    pub evaluator: EvaluatorKind,
    pub algorithm: Algorithm,
    pub depth: Depth,
    pub cube_depth: Depth,
    pub time_budget_ms: Budget,
    pub cubeful_plays: bool,
    pub threads: usize,
    pub queue: usize,
    pub tt_megabytes: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            evaluator: EvaluatorKind::Net(None),
            algorithm: Algorithm::Star2,
            depth: Depth::ONE,
            cube_depth: Depth::ONE,
            time_budget_ms: Budget::Unlimited,
            cubeful_plays: true,
            threads: 0,
            queue: 256,
            tt_megabytes: 64,
        }
    }
}

impl EngineConfig {
    /// Worker threads: the configured number, or one per available core when 0.
    pub fn worker_threads(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism().map_or(2, |n| n.get())
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug)]
pub enum ConfigError {
    Read { path: String, error: std::io::Error },
    Parse { path: String, message: String },
    Invalid(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Read { path, error } => write!(f, "cannot read config {path}: {error}"),
            ConfigError::Parse { path, message } => {
                write!(f, "config {path}: {}", message.trim().replace('\n', " "))
            }
            ConfigError::Invalid(m) => write!(f, "invalid config: {m}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Parses TOML text; `origin` names it in messages.
    pub fn from_toml(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let c: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: origin.to_string(),
            message: e.to_string(),
        })?;
        c.validate()?;
        Ok(c)
    }

    /// Reads and checks a file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
            path: path.display().to_string(),
            error,
        })?;
        Config::from_toml(&text, &path.display().to_string())
    }

    /// Checks values serde cannot check.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError::Invalid(m));
        if !self.engine.evaluator.is_evaluator() {
            return bad(format!(
                "engine.evaluator = {:?}: the server needs an evaluator (net, net:PATH or pipsigmoid)",
                self.engine.evaluator.to_string()
            ));
        }
        let cap = self.server.max_request_depth;
        if cap < self.engine.depth || cap < self.engine.cube_depth {
            return bad(format!(
                "server.max_request_depth = {cap} is below the engine's own depth; raise it or \
                 lower engine.depth and engine.cube_depth"
            ));
        }
        if self.engine.tt_megabytes == 0 {
            return bad("engine.tt_megabytes must be at least 1".to_string());
        }
        if self.server.max_connections == 0 {
            return bad("server.max_connections must be at least 1".to_string());
        }
        if self.server.max_line_bytes < 256 {
            return bad("server.max_line_bytes must be at least 256 (gnubg lines)".to_string());
        }
        if self.http.max_body_bytes < 256 {
            return bad("http.max_body_bytes must be at least 256".to_string());
        }
        if self.http.max_rollout_trials == 0 {
            return bad("http.max_rollout_trials must be at least 1".to_string());
        }
        if self.engine.queue == 0 {
            return bad("engine.queue must be at least 1".to_string());
        }
        let c = &self.cube;
        for (key, x) in [
            ("efficiency_contact", c.efficiency_contact),
            ("race_min", c.race_min),
            ("race_max", c.race_max),
        ] {
            if !(0.0..=1.0).contains(&x) {
                return bad(format!("cube.{key} = {x}: expected 0 to 1"));
            }
        }
        if c.race_min > c.race_max {
            return bad("cube.race_min must not exceed cube.race_max".to_string());
        }
        Ok(())
    }

    /// The engine this configuration describes.
    pub fn engine_spec(&self) -> EngineSpec {
        let e = &self.engine;
        EngineSpec {
            evaluator: e.evaluator.clone(),
            algorithm: e.algorithm,
            depth: e.depth,
            cube_depth: e.cube_depth,
            budget: e.time_budget_ms,
            noise: crate::engine::Noise::NONE,
            cube_policy: if e.cubeful_plays {
                CubePolicy::Cubeful
            } else {
                CubePolicy::Cubeless
            },
            cube: self.cube,
            tt_megabytes: e.tt_megabytes,
        }
    }

    /// The configuration `stargammon serve` runs with no `--config`: `config/default.toml`
    /// when present (run from the repository), else the built-in defaults (equal to it).
    pub fn load_default() -> Result<Config, ConfigError> {
        let default = Path::new("config/default.toml");
        if default.exists() {
            Config::load(default)
        } else {
            Ok(Config::default())
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn shipped_default_file_matches_the_built_in_defaults() {
        let text = include_str!("../config/default.toml");
        let c = Config::from_toml(text, "config/default.toml").unwrap();
        assert_eq!(c, Config::default());
    }

    #[test]
    fn unknown_keys_are_rejected_by_name() {
        let e = Config::from_toml("[server]\nlisten_addr = \"x\"\n", "t").unwrap_err();
        assert!(e.to_string().contains("listen_addr"), "{e}");
        let e = Config::from_toml("[engin]\n", "t").unwrap_err();
        assert!(e.to_string().contains("engin"), "{e}");
    }

    #[test]
    fn partial_files_and_bad_values() {
        let c = Config::from_toml("[engine]\ndepth = 3\n", "t").unwrap();
        assert_eq!(c.engine.depth.get(), 3);
        assert_eq!(c.engine_spec().to_string(), "net,depth=3,cubeful=on,tt=64");
        let e = Config::from_toml("[engine]\nevaluator = \"alpha\"\n", "t").unwrap_err();
        assert!(e.to_string().contains("unknown player 'alpha'"), "{e}");
        assert!(Config::from_toml("[engine]\nevaluator = \"pubeval\"\n", "t").is_err());
        assert!(Config::from_toml("[engine]\ndepth = 7\n", "t").is_err());
        let c = Config::from_toml(
            "[engine]\ndepth = 7\n[server]\nmax_request_depth = 7\n",
            "t",
        );
        assert!(c.is_ok());
        assert!(Config::from_toml("[server]\nmax_request_depth = 4\n", "t").is_err());
        let c = Config::from_toml("[engine]\ntime_budget_ms = 700\n", "t").unwrap();
        assert_eq!(c.engine_spec().budget.millis(), 700);
        assert_eq!(c.server, ServerConfig::default());
        assert!(Config::from_toml("[engine]\ndepth = 2\n", "t").is_err());
        assert!(Config::from_toml("[engine]\nalgorithm = \"alpha\"\n", "t").is_err());
        assert!(Config::from_toml("[server]\nboard_convention = \"x\"\n", "t").is_err());
        let c = Config::from_toml("[http]\nlisten = \"127.0.0.1:8080\"\n", "t").unwrap();
        assert_eq!(c.http.address(), Some("127.0.0.1:8080"));
        assert_eq!(Config::default().http.address(), None);
        assert!(Config::from_toml("[http]\nport = 8080\n", "t").is_err());
        assert!(Config::from_toml("[http]\nmax_rollout_trials = 0\n", "t").is_err());
        let c = Config::from_toml("[server]\nboard_convention = \"gnubg\"\n", "t").unwrap();
        assert_eq!(c.server.board_convention, BoardConvention::Gnubg);
    }
}
