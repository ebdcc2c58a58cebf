//! The server's configuration file (TOML). `config/default.toml` holds every key with its
//! default and a comment; a file may set any subset. Unknown keys are rejected with the
//! key's name, so a typo never silently falls back to a default.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cube::CubeSettings;
use crate::engine::{Budget, CubePolicy, Depth, EngineSpec, EvaluatorKind, Lookahead};
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
    /// The game served to clients that do not name one: `backgammon`, or a Tavli game
    /// (`portes`, `plakoto`, `fevga`), which the external interface, UBGI sessions and the
    /// HTTP API's `/v1/tavli/move` then read position strings without a prefix as.
    #[serde(with = "variant_name")]
    pub variant: crate::game::Variant,
}

/// A [`crate::game::Variant`] as its name in TOML.
mod variant_name {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &crate::game::Variant, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<crate::game::Variant, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
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
            max_request_depth: Depth::SEVEN,
            max_request_ms: 10_000,
            variant: crate::game::Variant::Backgammon,
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
    /// Cube decisions valued after each of the roller's rolls (the spec's
    /// `cube_lookahead`).
    pub cube_lookahead: Lookahead,
    /// The time one decision may search, in milliseconds (0 = no limit); the spec's
    /// `time_ms` (before, this key was `time_budget_ms`, still read with a warning).
    pub time_ms: Budget,
    /// Iterations up to this depth complete whatever the budget.
    pub min_depth: Depth,
    pub cubeful_plays: bool,
    pub threads: usize,
    pub queue: usize,
    /// A decision that starts while every other worker is idle and nothing waits is
    /// searched on all the workers' cores (its root split over them).
    pub share_idle_cores: bool,
    pub tt_megabytes: usize,
    /// `[engine.mcts]`: playouts, playout policy and truncation when `algorithm = "mcts"`.
    pub mcts: crate::search::mcts::MctsConfig,
    /// How the neural nets compute: `"int16"` or `"float"`.
    pub precision: crate::eval::qnet::Precision,
    /// With `algorithm = "filter"`: the root stages, `"KEEP:MARGIN[/KEEP:MARGIN...]"` (the
    /// spec's `filter` option).
    pub filter: String,
    /// With `algorithm = "filter"`: replies searched per roll below the root (the spec's
    /// `width` option).
    pub width: usize,
    /// Plays valued per pruned move node, ranked by the pruning nets (0 = every play;
    /// the spec's `prune` option).
    pub prune: usize,
}

/// The served engine's root stages (`algorithm = "filter"`): after depth 1 at most 9 plays
/// within 0.16 of the best, after depth 3 at most 3 within 0.06, after depth 5 at most 3
/// within 0.015, so that only close decisions are searched to depth 7
/// (docs/BENCHMARKS.md, "Depth 7 on close decisions").
pub const SERVED_FILTER: &str = "9:0.16/3:0.06/3:0.015";

/// The served engine's pruned move nodes: the pruning nets' best 6 plays valued
/// (docs/BENCHMARKS.md, "Pruned move nodes").
pub const SERVED_PRUNE: usize = 6;

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            evaluator: EvaluatorKind::Net(None),
            algorithm: Algorithm::Filter,
            depth: Depth::SEVEN,
            cube_depth: Depth::FIVE,
            cube_lookahead: Lookahead::ON,
            time_ms: Budget::from_millis(500),
            min_depth: Depth::THREE,
            cubeful_plays: true,
            threads: 0,
            queue: 256,
            share_idle_cores: true,
            tt_megabytes: 64,
            mcts: crate::search::mcts::MctsConfig::default(),
            precision: crate::eval::qnet::Precision::Int16,
            filter: SERVED_FILTER.to_string(),
            width: crate::search::FilterConfig::default().reply_width,
            prune: SERVED_PRUNE,
        }
    }
}

impl EngineConfig {
    /// The filter's settings from `filter` and `width`, checked as the spec checks them.
    pub fn filter_config(&self) -> Result<crate::search::FilterConfig, String> {
        let default = crate::search::FilterConfig::default();
        let mut f = default.with_stages(&self.filter).ok_or_else(|| {
            format!(
                "engine.filter = {:?}: expected root stages KEEP:MARGIN[/KEEP:MARGIN...], \
                 at most 4, KEEP >= 1, MARGIN 0 to 3 (e.g. \"9:0.16/2:0.04\")",
                self.filter
            )
        })?;
        if !(1..=64).contains(&self.width) {
            return Err(format!(
                "engine.width = {}: expected replies per roll, 1 to 64",
                self.width
            ));
        }
        f.reply_width = self.width;
        let served = default.with_stages(SERVED_FILTER);
        if f != default && Some(f) != served && self.algorithm != Algorithm::Filter {
            return Err(
                "engine.filter and engine.width apply only with algorithm = \"filter\"".into(),
            );
        }
        Ok(f)
    }

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
    Read {
        path: String,
        error: std::io::Error,
    },
    Parse {
        path: String,
        message: String,
    },
    Invalid(String),
    /// An environment variable that overrides a key could not be used.
    Env {
        var: String,
        message: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Read { path, error } => write!(f, "cannot read config {path}: {error}"),
            ConfigError::Parse { path, message } => {
                write!(f, "config {path}: {}", message.trim().replace('\n', " "))
            }
            ConfigError::Invalid(m) => write!(f, "invalid config: {m}"),
            ConfigError::Env { var, message } => write!(f, "{var}: {message}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Parses TOML text; `origin` names it in messages. Old key names are read as the new
    /// ones, with a warning ([`rename_old_keys`]).
    pub fn from_toml(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let parse_error = |message: String| ConfigError::Parse {
            path: origin.to_string(),
            message,
        };
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| parse_error(e.to_string()))?;
        let c: Config = if rename_old_keys(&mut table, true).map_err(parse_error)? {
            table.try_into().map_err(|e| parse_error(e.to_string()))?
        } else {
            // Parsed from the text, so that a message points at the line.
            toml::from_str(text).map_err(|e| parse_error(e.to_string()))?
        };
        c.validate()?;
        Ok(c)
    }

    /// Reads a file (or, with `None`, the default file or the built-in defaults, as
    /// [`Config::load_default`]), applies the overrides among `vars` (see [`EnvOverrides`])
    /// and checks the result. A bad override is an error naming its variable.
    pub fn load_with_env(
        path: Option<&Path>,
        vars: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let default = Path::new("config/default.toml");
        let path = path.or(default.exists().then_some(default));
        let (text, origin) = match path {
            Some(p) => (
                std::fs::read_to_string(p).map_err(|error| ConfigError::Read {
                    path: p.display().to_string(),
                    error,
                })?,
                p.display().to_string(),
            ),
            None => (String::new(), "built-in defaults".to_string()),
        };
        let mut table: toml::Table = toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: origin.clone(),
            message: e.to_string(),
        })?;
        rename_old_keys(&mut table, true).map_err(|message| ConfigError::Parse {
            path: origin.clone(),
            message,
        })?;
        let whole = |t: &toml::Table| {
            let mut t = t.clone();
            rename_old_keys(&mut t, false)?;
            t.try_into::<Config>().map_err(|e| e.to_string())
        };
        whole(&table).map_err(|message| ConfigError::Parse {
            path: origin.clone(),
            message,
        })?;
        let overrides = EnvOverrides::new(vars, &Config::sections(), &[]);
        overrides.apply(&mut table, |t| whole(t).map(drop))?;
        // An override under an old name (`STARGAMMON_ENGINE__TIME_BUDGET_MS`) warns too.
        rename_old_keys(&mut table, true).map_err(|message| ConfigError::Parse {
            path: origin.clone(),
            message,
        })?;
        let c = whole(&table).map_err(|message| ConfigError::Parse {
            path: origin,
            message,
        })?;
        c.validate().map_err(|e| overrides.blame(e))?;
        Ok(c)
    }

    /// The sections of the file (`server`, `engine`, `cube`, ...), from the defaults.
    pub fn sections() -> Vec<String> {
        toml::Table::try_from(Config::default())
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
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
        if let Err(e) = self.engine.filter_config() {
            return bad(e);
        }
        if self.engine.prune > crate::engine::spec::MAX_PRUNE {
            return bad(format!(
                "engine.prune = {}: expected {}",
                self.engine.prune,
                crate::engine::spec::PRUNE_EXPECTED
            ));
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
            cube_lookahead: e.cube_lookahead,
            budget: e.time_ms,
            // A file that sets only `depth = 1` gets the depth-1 engine: the guaranteed
            // depth never exceeds the depth.
            min_depth: e.min_depth.min(e.depth),
            noise: crate::engine::Noise::NONE,
            cube_noise: crate::engine::Noise::NONE,
            cube_policy: if e.cubeful_plays {
                CubePolicy::Cubeful
            } else {
                CubePolicy::Cubeless
            },
            cube: self.cube,
            precision: e.precision,
            tt_megabytes: e.tt_megabytes,
            mcts: e.mcts,
            // The stages are the filter's alone: another algorithm gets the defaults.
            filter: if e.algorithm == Algorithm::Filter {
                e.filter_config().unwrap_or_default()
            } else {
                crate::search::FilterConfig::default()
            },
            prune: e.prune,
        }
    }

    /// The shipped defaults with the depth-1 throughput engine: every decision by the nets
    /// alone, no search, no budget (`config/throughput.toml`).
    pub fn throughput() -> Config {
        let mut c = Config::default();
        c.engine.algorithm = Algorithm::Star2;
        c.engine.depth = Depth::ONE;
        c.engine.cube_depth = Depth::ONE;
        c.engine.min_depth = Depth::ONE;
        c.engine.time_ms = Budget::Unlimited;
        // Depth 1 values every play of a roll: nothing to prune.
        c.engine.prune = 0;
        // The reference arithmetic, which every seeded figure of this mode was made with.
        c.engine.precision = crate::eval::qnet::Precision::Float;
        // Peers' requests no deeper than gnubg's 2-ply.
        c.server.max_request_depth = Depth::FIVE;
        c
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

/// Renames the `[engine]` keys of `table` that have a new name
/// ([`crate::engine::names::OLD_ENGINE_KEYS`]), warning once for each when `warn`; whether
/// any was renamed. A key given under both names is an error.
pub fn rename_old_keys(table: &mut toml::Table, warn: bool) -> Result<bool, String> {
    let Some(toml::Value::Table(engine)) = table.get_mut("engine") else {
        return Ok(false);
    };
    let mut renamed = false;
    for (old, new) in crate::engine::names::OLD_ENGINE_KEYS {
        let Some(value) = engine.remove(*old) else {
            continue;
        };
        if engine.contains_key(*new) {
            return Err(format!(
                "engine.{old} and engine.{new} are one setting: keep engine.{new}"
            ));
        }
        if warn {
            crate::engine::names::warn_renamed(&format!("engine.{old}"), &format!("engine.{new}"));
        }
        engine.insert(new.to_string(), value);
        renamed = true;
    }
    Ok(renamed)
}

/// One configuration key set by an environment variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvOverride {
    /// The variable's name, as set.
    pub var: String,
    /// The section (`server`), or `None` for a key outside any section.
    pub section: Option<String>,
    pub key: String,
    pub value: String,
}

/// Keys of a configuration file overridden by environment variables:
/// `STARGAMMON_<SECTION>__<KEY>=VALUE` (`STARGAMMON_SERVER__LISTEN=0.0.0.0:4321`), and
/// `STARGAMMON_<KEY>` for a key outside any section. Names are case-insensitive; a value is
/// read as a TOML value (`true`, `5`, `0.7`, `["a", "b"]`) and otherwise, or where the key
/// wants text, as a string. Overrides apply after the file is read, so they win over it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvOverrides {
    items: Vec<EnvOverride>,
}

/// The prefix of every override variable.
pub const ENV_PREFIX: &str = "STARGAMMON_";

/// `(section, key)` of an override variable, `None` for any other variable. Only names
/// with `__` after the prefix name a section; others are top-level keys or belong to
/// something else (`STARGAMMON_GNUBG` of the test harness).
fn split_var(var: &str) -> Option<(Option<String>, String)> {
    let upper = var.to_ascii_uppercase();
    let rest = upper.strip_prefix(ENV_PREFIX)?;
    match rest.split_once("__") {
        Some((section, key)) => {
            Some((Some(section.to_ascii_lowercase()), key.to_ascii_lowercase()))
        }
        None => Some((None, rest.to_ascii_lowercase())),
    }
}

impl EnvOverrides {
    /// The overrides among `vars` for a file with these sections and top-level keys.
    /// Variables of other sections are left to the other configuration files (see
    /// [`unknown_env_sections`]); other variables without `__` are ignored.
    pub fn new(
        vars: impl IntoIterator<Item = (String, String)>,
        sections: &[String],
        top_keys: &[&str],
    ) -> EnvOverrides {
        let mut items: Vec<EnvOverride> = vars
            .into_iter()
            .filter_map(|(var, value)| {
                let (section, key) = split_var(&var)?;
                let ours = match &section {
                    Some(s) => sections.iter().any(|x| x == s),
                    None => top_keys.contains(&key.as_str()),
                };
                ours.then_some(EnvOverride {
                    var,
                    section,
                    key,
                    value,
                })
            })
            .collect();
        // The process's variables come in no particular order: apply them in one.
        items.sort_by(|a, b| a.var.cmp(&b.var));
        EnvOverrides { items }
    }

    /// The process's own variables (those that are valid Unicode).
    pub fn process_vars() -> Vec<(String, String)> {
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn items(&self) -> &[EnvOverride] {
        &self.items
    }

    /// The variables applied, `NAME=VALUE` separated by spaces (for the start-up log).
    pub fn describe(&self) -> String {
        self.items
            .iter()
            .map(|o| format!("{}={}", o.var, o.value))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Applies the overrides to `table` one at a time, each checked by `check` (reading
    /// the whole configuration): an override that does not read is an error naming its
    /// variable, never a silent default.
    pub fn apply(
        &self,
        table: &mut toml::Table,
        check: impl Fn(&toml::Table) -> Result<(), String>,
    ) -> Result<(), ConfigError> {
        for o in &self.items {
            let typed = toml::from_str::<toml::Table>(&format!("v = {}", o.value))
                .ok()
                .and_then(|mut t| t.remove("v"));
            let text = toml::Value::String(o.value.clone());
            let mut last = String::new();
            let mut done = false;
            for value in typed.into_iter().chain(std::iter::once(text)) {
                let mut trial = table.clone();
                let target = match &o.section {
                    Some(section) => {
                        let entry = trial
                            .entry(section.clone())
                            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
                        match entry {
                            toml::Value::Table(t) => t,
                            _ => {
                                return Err(ConfigError::Env {
                                    var: o.var.clone(),
                                    message: format!("[{section}] is not a section"),
                                })
                            }
                        }
                    }
                    None => &mut trial,
                };
                target.insert(o.key.clone(), value);
                match check(&trial) {
                    Ok(()) => {
                        *table = trial;
                        done = true;
                        break;
                    }
                    Err(e) => last = e,
                }
            }
            if !done {
                return Err(ConfigError::Env {
                    var: o.var.clone(),
                    message: format!("{:?}: {}", o.value, one_line(&last)),
                });
            }
        }
        Ok(())
    }

    /// A validation error with the overrides that took part named in it.
    pub fn blame(&self, e: ConfigError) -> ConfigError {
        if self.items.is_empty() {
            return e;
        }
        ConfigError::Invalid(format!(
            "{} (with {})",
            e.to_string()
                .strip_prefix("invalid config: ")
                .unwrap_or(&e.to_string()),
            self.describe()
        ))
    }
}

/// The first variable `STARGAMMON_<SECTION>__<KEY>` whose section no configuration file
/// has (`sections` of all of them): a typo that would otherwise be ignored.
pub fn unknown_env_sections(
    vars: impl IntoIterator<Item = (String, String)>,
    sections: &[String],
) -> Option<ConfigError> {
    let mut names: Vec<String> = vars
        .into_iter()
        .filter(|(var, _)| match split_var(var) {
            Some((Some(section), _)) => !sections.contains(&section),
            _ => false,
        })
        .map(|(var, _)| var)
        .collect();
    names.sort();
    names.into_iter().next().map(|var| ConfigError::Env {
        message: format!(
            "no configuration has a section of that name (sections: {})",
            sections.join(", ")
        ),
        var,
    })
}

/// `text` on one line (a TOML error spans several).
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
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
        // The shipped engine searches: depth 3 always, 5 and 7 when they fit the budget.
        let e = c.engine_spec();
        assert_eq!(
            (e.depth.get(), e.min_depth.get(), e.cube_depth.get()),
            (7, 3, 5)
        );
        assert_eq!(e.filter.stages_text(), SERVED_FILTER);
        assert!(c.server.max_request_depth >= e.depth);
        assert!(e.budget.duration().is_some_and(|b| b.as_millis() <= 1000));
        let text = include_str!("../config/throughput.toml");
        let t = Config::from_toml(text, "config/throughput.toml").unwrap();
        assert_eq!(t, Config::throughput());
        assert_eq!(
            t.engine_spec().to_string(),
            "net,cube_lookahead=1,cubeful_plays=on,tt_megabytes=64"
        );
    }

    #[test]
    fn the_filter_keys_are_the_spec_options() {
        let c = Config::from_toml(
            "[engine]\nalgorithm = \"filter\"\nfilter = \"9:0.16/3:0.06\"\nwidth = 2\n",
            "t",
        )
        .unwrap();
        let e = c.engine_spec();
        assert_eq!(e.filter.stage_after(3).map(|s| s.keep), Some(3));
        assert_eq!(e.filter.reply_width, 2);
        assert!(
            e.to_string().contains("filter=9:0.16/3:0.06,width=2"),
            "{e}"
        );
        for (text, word) in [
            (
                "[engine]\nalgorithm = \"filter\"\nfilter = \"9\"\n",
                "engine.filter",
            ),
            (
                "[engine]\nalgorithm = \"filter\"\nwidth = 0\n",
                "engine.width",
            ),
            (
                "[engine]\nalgorithm = \"star2\"\nfilter = \"9:0.16/2:0.04\"\n",
                "only with algorithm",
            ),
            ("[engine]\nprune = 65\n", "engine.prune"),
        ] {
            let e = Config::from_toml(text, "t").unwrap_err();
            assert!(e.to_string().contains(word), "{text}: {e}");
        }
    }

    #[test]
    fn the_prune_key_is_the_spec_option() {
        let c = Config::from_toml("[engine]\nprune = 6\n", "t").unwrap();
        let e = c.engine_spec();
        assert_eq!(e.prune, 6);
        assert!(e.to_string().contains("prune=6"), "{e}");
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
        assert_eq!(
            c.engine_spec().to_string(),
            "net,depth=3,algorithm=filter,cube_depth=5,cube_lookahead=1,time_ms=500,min_depth=3,cubeful_plays=on,tt_megabytes=64,precision=int16,filter=9:0.16/3:0.06/3:0.015,prune=6"
        );
        let e = Config::from_toml("[engine]\nevaluator = \"alpha\"\n", "t").unwrap_err();
        assert!(e.to_string().contains("unknown player 'alpha'"), "{e}");
        assert!(Config::from_toml("[engine]\nevaluator = \"pubeval\"\n", "t").is_err());
        assert!(Config::from_toml("[engine]\ndepth = 9\n", "t").is_err());
        let c = Config::from_toml(
            "[engine]\ndepth = 9\n[server]\nmax_request_depth = 9\n",
            "t",
        );
        assert!(c.is_ok());
        assert!(Config::from_toml("[server]\nmax_request_depth = 4\n", "t").is_err());
        let c =
            Config::from_toml("[engine]\ndepth = 5\nmin_depth = 3\ntime_ms = 400\n", "t").unwrap();
        assert_eq!(
            c.engine_spec().to_string(),
            "net,depth=5,algorithm=filter,cube_depth=5,cube_lookahead=1,time_ms=400,min_depth=3,cubeful_plays=on,tt_megabytes=64,precision=int16,filter=9:0.16/3:0.06/3:0.015,prune=6"
        );
        // One line away from the depth-1 engine: the guaranteed depth follows the depth.
        let c = Config::from_toml("[engine]\ndepth = 1\n", "t").unwrap();
        assert_eq!(c.engine_spec().min_depth.get(), 1);
        assert!(c.engine_spec().validate().is_ok());
        let c = Config::from_toml("[engine]\ntime_ms = 700\n", "t").unwrap();
        assert_eq!(c.engine_spec().budget.millis(), 700);
        // The old name of the key is read as the new one; both at once are refused.
        let old = Config::from_toml("[engine]\ntime_budget_ms = 700\n", "t").unwrap();
        assert_eq!(old, c);
        let e = Config::from_toml("[engine]\ntime_budget_ms = 1\ntime_ms = 2\n", "t").unwrap_err();
        assert!(e.to_string().contains("keep engine.time_ms"), "{e}");
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

    fn vars(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn write_config(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("stargammon-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn environment_variables_override_the_file_key_by_key() {
        let path = write_config("env.toml", "[engine]\ndepth = 3\n[cube]\njacoby = false\n");
        let c = Config::load_with_env(
            Some(&path),
            vars(&[
                ("STARGAMMON_SERVER__LISTEN", "0.0.0.0:5000"),
                ("stargammon_engine__cube_depth", "3"),
                ("STARGAMMON_CUBE__EFFICIENCY_CONTACT", "0.7"),
                ("STARGAMMON_ENGINE__EVALUATOR", "pipsigmoid"),
                ("STARGAMMON_SERVER__BOARD_CONVENTION", "gnubg"),
                // Not ours: other sections (the FIBS bot's) and variables without `__`.
                ("STARGAMMON_PLAY__ENGINE", "net"),
                ("STARGAMMON_SKIP_GNUBG", "1"),
                ("PATH", "/bin"),
            ]),
        )
        .unwrap();
        assert_eq!(c.server.listen, "0.0.0.0:5000");
        assert_eq!(c.engine.depth.get(), 3, "the file's value stays");
        assert_eq!(c.engine.cube_depth.get(), 3);
        assert_eq!(c.cube.efficiency_contact, 0.7);
        assert!(!c.cube.jacoby);
        assert_eq!(c.engine.evaluator, EvaluatorKind::PipSigmoid);
        assert_eq!(c.server.board_convention, BoardConvention::Gnubg);
        // The environment wins over the file.
        let c = Config::load_with_env(Some(&path), vars(&[("STARGAMMON_ENGINE__DEPTH", "5")]));
        assert_eq!(c.unwrap().engine.depth.get(), 5);
        let c = Config::load_with_env(
            Some(&path),
            vars(&[
                ("STARGAMMON_ENGINE__DEPTH", "1"),
                ("STARGAMMON_CUBE__JACOBY", "true"),
            ]),
        )
        .unwrap();
        assert_eq!((c.engine.depth.get(), c.cube.jacoby), (1, true));
        // A key's old name works in a variable too.
        let c = Config::load_with_env(
            Some(&path),
            vars(&[("STARGAMMON_ENGINE__TIME_BUDGET_MS", "900")]),
        )
        .unwrap();
        assert_eq!(c.engine.time_ms.millis(), 900);
        let old = write_config("old.toml", "[engine]\ntime_budget_ms = 800\n");
        let c = Config::load_with_env(Some(&old), vars(&[])).unwrap();
        assert_eq!(c.engine.time_ms.millis(), 800);
    }

    #[test]
    fn bad_overrides_are_errors_naming_the_variable() {
        let path = write_config("bad.toml", "");
        for (var, value, says) in [
            ("STARGAMMON_SERVER__LISTEN_ADDR", "x", "listen_addr"),
            ("STARGAMMON_SERVER__MAX_CONNECTIONS", "many", "many"),
            ("STARGAMMON_ENGINE__DEPTH", "4", "depth"),
            ("STARGAMMON_CUBE__JACOBY", "yes", "yes"),
            ("STARGAMMON_ENGINE__ALGORITHM", "alpha", "alpha"),
        ] {
            let e = Config::load_with_env(Some(&path), vars(&[(var, value)])).unwrap_err();
            assert!(matches!(e, ConfigError::Env { .. }), "{var}: {e}");
            let text = e.to_string();
            assert!(text.starts_with(var) && text.contains(says), "{text}");
            assert_eq!(text.lines().count(), 1, "{text}");
        }
        // A value each key accepts alone but not together: the validation names them.
        let e = Config::load_with_env(
            Some(&path),
            vars(&[("STARGAMMON_SERVER__MAX_CONNECTIONS", "0")]),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("STARGAMMON_SERVER__MAX_CONNECTIONS=0"),
            "{e}"
        );
        // A section no configuration has.
        let mut sections = Config::sections();
        sections.push("play".into());
        let e =
            unknown_env_sections(vars(&[("STARGAMMON_SERVR__LISTEN", "x")]), &sections).unwrap();
        assert!(
            e.to_string().starts_with("STARGAMMON_SERVR__LISTEN: "),
            "{e}"
        );
        assert!(unknown_env_sections(
            vars(&[("STARGAMMON_PLAY__ENGINE", "x"), ("STARGAMMON_GNUBG", "y")]),
            &sections
        )
        .is_none());
    }

    #[test]
    fn the_sections_come_from_the_defaults() {
        let s = Config::sections();
        for name in ["server", "engine", "cube"] {
            assert!(s.iter().any(|x| x == name), "{s:?}");
        }
    }
}
