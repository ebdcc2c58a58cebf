//! Settings of the FIBS bot account (`config/fibs.toml`) and the invitation policy.
//!
//! Everything that changes how the account behaves towards other people lives here so an
//! operator can review it in one file: which invitations are accepted, how fast the bot
//! may send, how it backs off after a disconnect. The password is never part of the
//! configuration file; it comes from an environment variable or a separate file.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use super::clip::InviteKind;
use crate::config::EnvOverrides;

/// Which invitations to accept.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InvitePolicy {
    /// Longest match accepted, in points.
    pub max_length: u32,
    /// Accept unlimited (money) matches.
    pub allow_unlimited: bool,
    /// When not empty, only these players may invite the bot.
    pub allow: Vec<String>,
    /// Players whose invitations are always declined.
    pub deny: Vec<String>,
    /// Accept invitations to resume a saved match.
    pub resume_saved: bool,
}

impl Default for InvitePolicy {
    fn default() -> InvitePolicy {
        InvitePolicy {
            max_length: 11,
            allow_unlimited: false,
            allow: Vec::new(),
            deny: Vec::new(),
            resume_saved: true,
        }
    }
}

impl InvitePolicy {
    /// True when an invitation from `from` of this kind should be joined.
    pub fn accepts(&self, from: &str, kind: InviteKind) -> bool {
        self.decline_reason(from, kind).is_none()
    }

    /// Why an invitation is declined, in words fit to tell the inviter; None to join.
    pub fn decline_reason(&self, from: &str, kind: InviteKind) -> Option<String> {
        let same = |n: &String| n.eq_ignore_ascii_case(from);
        if self.deny.iter().any(same) || (!self.allow.is_empty() && !self.allow.iter().any(same)) {
            return Some("Sorry, I am not taking invitations from you.".into());
        }
        match kind {
            InviteKind::Points(n) if n >= 1 && n <= self.max_length => None,
            InviteKind::Points(_) => Some(format!(
                "Sorry, I play matches of 1 to {} points. Please invite me to a shorter match.",
                self.max_length
            )),
            InviteKind::Unlimited if self.allow_unlimited => None,
            InviteKind::Unlimited => Some(format!(
                "Sorry, I do not play unlimited matches; invite me to 1 to {} points.",
                self.max_length
            )),
            InviteKind::Resume if self.resume_saved => None,
            InviteKind::Resume => {
                Some("Sorry, I do not resume saved matches; invite me to a new one.".into())
            }
        }
    }
}

/// Reconnection and pacing.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConnectionConfig {
    /// First wait after a disconnect, in milliseconds; doubled after each failure.
    pub backoff_initial_ms: u64,
    /// Longest wait between reconnection attempts, in milliseconds.
    pub backoff_max_ms: u64,
    /// A session that stayed logged in this long resets the back-off, in seconds.
    pub stable_after_s: u64,
    /// Give up connecting after this long, in milliseconds.
    pub connect_timeout_ms: u64,
    /// Minimum gap between two lines sent, in milliseconds.
    pub min_send_interval_ms: u64,
    /// Lines that may go out back to back before the gap applies.
    pub send_burst: u32,
    /// With no traffic for this long the connection is considered dead, in seconds.
    pub idle_timeout_s: u64,
    /// After this many seconds without a line from the server, send `keepalive_command`
    /// so that neither side takes the connection for dead (0 = never); below
    /// `idle_timeout_s`.
    pub keepalive_s: u64,
    /// A command with no effect on play, sent as the keep-alive.
    pub keepalive_command: String,
}

impl Default for ConnectionConfig {
    fn default() -> ConnectionConfig {
        ConnectionConfig {
            backoff_initial_ms: 2000,
            backoff_max_ms: 300_000,
            stable_after_s: 60,
            connect_timeout_ms: 20_000,
            min_send_interval_ms: 250,
            send_burst: 4,
            idle_timeout_s: 900,
            keepalive_s: 300,
            keepalive_command: "time".into(),
        }
    }
}

impl ConnectionConfig {
    /// The wait before reconnection attempt `failures` (0 = the first).
    pub fn backoff(&self, failures: u32) -> Duration {
        let factor = 1u64.checked_shl(failures.min(32)).unwrap_or(u64::MAX);
        let ms = self
            .backoff_initial_ms
            .saturating_mul(factor)
            .min(self.backoff_max_ms);
        Duration::from_millis(ms)
    }
}

/// How the bot decides.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlayConfig {
    /// Who decides: a player spec with an evaluator (`engine[:CONFIG][,key=value]`, the
    /// engine facade as `serve` runs it; `net,depth=3`; ...), whose engine also judges
    /// resignations, or `tcp://HOST:PORT` (any gnubg external-interface server, e.g.
    /// `stargammon serve`; resignations are then accepted only for the most the position
    /// could give).
    pub engine: String,
    /// Resign a game whose winning chance the engine puts at or below this (0 = never),
    /// at the lowest level (single, gammon, backgammon) that gives away at most this
    /// much more; once per game. Needs an engine (not `tcp://`).
    pub resign_below: f64,
}

impl Default for PlayConfig {
    fn default() -> PlayConfig {
        PlayConfig {
            engine: "engine".into(),
            resign_below: 0.001,
        }
    }
}

/// The whole `fibs.toml`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FibsConfig {
    /// Client name sent in the CLIP login line.
    pub client_name: String,
    pub invitations: InvitePolicy,
    pub connection: ConnectionConfig,
    pub play: PlayConfig,
}

impl Default for FibsConfig {
    fn default() -> FibsConfig {
        FibsConfig {
            client_name: "stargammon".into(),
            invitations: InvitePolicy::default(),
            connection: ConnectionConfig::default(),
            play: PlayConfig::default(),
        }
    }
}

/// Why the configuration could not be loaded.
#[derive(Debug)]
pub enum ConfigError {
    Read(String, std::io::Error),
    Parse(String, toml::de::Error),
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
            ConfigError::Read(p, e) => write!(f, "cannot read {p}: {e}"),
            ConfigError::Parse(p, e) => write!(f, "{p}: {e}"),
            ConfigError::Invalid(m) => write!(f, "invalid FIBS configuration: {m}"),
            ConfigError::Env { var, message } => write!(f, "{var}: {message}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl FibsConfig {
    /// Parses TOML text.
    pub fn from_toml(text: &str, origin: &str) -> Result<FibsConfig, ConfigError> {
        let cfg: FibsConfig =
            toml::from_str(text).map_err(|e| ConfigError::Parse(origin.to_string(), e))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The sections of the file.
    pub const SECTIONS: [&'static str; 3] = ["invitations", "connection", "play"];
    /// Its keys outside any section.
    pub const TOP_KEYS: [&'static str; 1] = ["client_name"];

    /// The sections of the file, as [`crate::config::EnvOverrides`] takes them.
    pub fn sections() -> Vec<String> {
        Self::SECTIONS.iter().map(|s| s.to_string()).collect()
    }

    /// Reads a file (or, with `None`, `config/fibs.toml` when present, else the built-in
    /// defaults), applies the overrides among `vars` (`STARGAMMON_PLAY__ENGINE=...`,
    /// `STARGAMMON_CLIENT_NAME=...`; see [`crate::config::EnvOverrides`]) and checks the
    /// result. A bad override is an error naming its variable.
    pub fn load_with_env(
        path: Option<&Path>,
        vars: impl IntoIterator<Item = (String, String)>,
    ) -> Result<FibsConfig, ConfigError> {
        let default = Path::new("config/fibs.toml");
        let path = path.or(default.exists().then_some(default));
        let (text, origin) = match path {
            Some(p) => {
                let shown = p.display().to_string();
                let text =
                    std::fs::read_to_string(p).map_err(|e| ConfigError::Read(shown.clone(), e))?;
                (text, shown)
            }
            None => (String::new(), "built-in defaults".to_string()),
        };
        let parse = |t: &toml::Table| t.clone().try_into::<FibsConfig>();
        let mut table: toml::Table =
            toml::from_str(&text).map_err(|e| ConfigError::Parse(origin.clone(), e))?;
        parse(&table).map_err(|e| ConfigError::Parse(origin.clone(), e))?;
        let overrides = EnvOverrides::new(vars, &Self::sections(), &Self::TOP_KEYS);
        overrides
            .apply(&mut table, |t| {
                parse(t).map(drop).map_err(|e| e.to_string())
            })
            .map_err(|e| match e {
                crate::config::ConfigError::Env { var, message } => {
                    ConfigError::Env { var, message }
                }
                other => ConfigError::Invalid(other.to_string()),
            })?;
        let cfg = parse(&table).map_err(|e| ConfigError::Parse(origin, e))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<FibsConfig, ConfigError> {
        let shown = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| ConfigError::Read(shown.clone(), e))?;
        FibsConfig::from_toml(&text, &shown)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if self.client_name.is_empty() || self.client_name.contains(char::is_whitespace) {
            return Err(ConfigError::Invalid(
                "client_name must be one non-empty word".into(),
            ));
        }
        let c = &self.connection;
        if c.backoff_initial_ms == 0 || c.backoff_max_ms < c.backoff_initial_ms {
            return Err(ConfigError::Invalid(
                "backoff_initial_ms must be positive and at most backoff_max_ms".into(),
            ));
        }
        if c.keepalive_s > 0 && c.keepalive_s >= c.idle_timeout_s {
            return Err(ConfigError::Invalid(
                "keepalive_s must be below idle_timeout_s (or 0 to send no keep-alive)".into(),
            ));
        }
        if c.keepalive_s > 0
            && (c.keepalive_command.trim().is_empty() || c.keepalive_command.contains(['\r', '\n']))
        {
            return Err(ConfigError::Invalid(
                "keepalive_command must be one non-empty line".into(),
            ));
        }
        if c.send_burst == 0 {
            return Err(ConfigError::Invalid("send_burst must be at least 1".into()));
        }
        if !(0.0..0.5).contains(&self.play.resign_below) {
            return Err(ConfigError::Invalid(
                "play.resign_below must be a probability from 0 (never resign) to below 0.5".into(),
            ));
        }
        let engine = self.play.engine.trim();
        if engine.is_empty() {
            return Err(ConfigError::Invalid("play.engine must not be empty".into()));
        }
        // A player spec is checked here, when the file is read, with the spec's message.
        if !engine.starts_with("tcp://") {
            crate::players::PlayerSpec::parse(engine)
                .map_err(|e| ConfigError::Invalid(format!("play.engine = {engine:?}: {e}")))?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn shipped_config_parses() {
        let text = include_str!("../../config/fibs.toml");
        let cfg = FibsConfig::from_toml(text, "config/fibs.toml").unwrap();
        assert!(cfg.invitations.max_length >= 1);
    }

    #[test]
    fn unknown_keys_and_bad_values_are_rejected() {
        assert!(FibsConfig::from_toml("colour = 1", "t").is_err());
        assert!(FibsConfig::from_toml("[connection]\nsend_burst = 0", "t").is_err());
        assert!(FibsConfig::from_toml("client_name = \"a b\"", "t").is_err());
        // The decider's spec is checked when the file is read, with the spec's message.
        let e = FibsConfig::from_toml("[play]\nengine = \"net,depth=2\"", "t").unwrap_err();
        assert!(
            e.to_string()
                .contains("option depth=2: expected an odd depth"),
            "{e}"
        );
        assert!(FibsConfig::from_toml("[play]\nengine = \"engine,depth=3\"", "t").is_ok());
        assert!(FibsConfig::from_toml("[play]\nengine = \"tcp://127.0.0.1:1\"", "t").is_ok());
    }

    #[test]
    fn declines_come_with_a_reason_in_one_line() {
        let p = InvitePolicy {
            deny: vec!["spammer".into()],
            ..InvitePolicy::default()
        };
        assert_eq!(p.decline_reason("alice", InviteKind::Points(5)), None);
        for (from, kind, needle) in [
            ("alice", InviteKind::Points(25), "1 to 11 points"),
            ("alice", InviteKind::Unlimited, "unlimited"),
            ("Spammer", InviteKind::Points(1), "not taking invitations"),
        ] {
            let r = p.decline_reason(from, kind).unwrap();
            assert!(r.contains(needle) && !r.contains('\n'), "{r}");
        }
    }

    #[test]
    fn policy_follows_lists_and_limits() {
        let p = InvitePolicy {
            max_length: 7,
            allow_unlimited: false,
            allow: vec![],
            deny: vec!["Spammer".into()],
            resume_saved: true,
        };
        assert!(p.accepts("alice", InviteKind::Points(7)));
        assert!(!p.accepts("alice", InviteKind::Points(9)));
        assert!(!p.accepts("alice", InviteKind::Unlimited));
        assert!(p.accepts("alice", InviteKind::Resume));
        assert!(!p.accepts("spammer", InviteKind::Points(1)));
        let only = InvitePolicy {
            allow: vec!["bob".into()],
            ..p
        };
        assert!(!only.accepts("alice", InviteKind::Points(3)));
        assert!(only.accepts("bob", InviteKind::Points(3)));
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let c = ConnectionConfig {
            backoff_initial_ms: 100,
            backoff_max_ms: 1000,
            ..ConnectionConfig::default()
        };
        let waits: Vec<u64> = (0..6).map(|k| c.backoff(k).as_millis() as u64).collect();
        assert_eq!(waits, vec![100, 200, 400, 800, 1000, 1000]);
        assert_eq!(c.backoff(200).as_millis(), 1000);
    }

    #[test]
    fn environment_variables_override_the_fibs_file() {
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/config/fibs.toml"));
        let vars = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let c = FibsConfig::load_with_env(
            Some(path),
            vars(&[
                ("STARGAMMON_CLIENT_NAME", "mybot"),
                ("STARGAMMON_INVITATIONS__ALLOW", r#"["alice", "bob"]"#),
                ("STARGAMMON_INVITATIONS__MAX_LENGTH", "5"),
                ("STARGAMMON_PLAY__ENGINE", "net,depth=3"),
                ("STARGAMMON_CONNECTION__KEEPALIVE_COMMAND", "who"),
                // The server's sections are the server's.
                ("STARGAMMON_SERVER__LISTEN", "0.0.0.0:1"),
            ]),
        )
        .unwrap();
        assert_eq!(c.client_name, "mybot");
        assert_eq!(c.invitations.allow, vec!["alice", "bob"]);
        assert_eq!(c.invitations.max_length, 5);
        assert_eq!(c.play.engine, "net,depth=3");
        assert_eq!(c.connection.keepalive_command, "who");
        // A number where text is wanted is taken as text.
        let c = FibsConfig::load_with_env(Some(path), vars(&[("STARGAMMON_CLIENT_NAME", "42")]))
            .unwrap();
        assert_eq!(c.client_name, "42");
        for (var, value) in [
            ("STARGAMMON_INVITATIONS__MAX_LENGHT", "5"),
            ("STARGAMMON_INVITATIONS__MAX_LENGTH", "five"),
        ] {
            let e = FibsConfig::load_with_env(Some(path), vars(&[(var, value)])).unwrap_err();
            assert!(matches!(e, ConfigError::Env { .. }), "{e}");
            assert!(e.to_string().starts_with(var), "{e}");
        }
    }

    #[test]
    fn the_section_list_is_the_files() {
        let text = include_str!("../../config/fibs.toml");
        let table: toml::Table = toml::from_str(text).unwrap();
        for (k, v) in &table {
            if v.is_table() {
                assert!(FibsConfig::SECTIONS.contains(&k.as_str()), "{k}");
            } else {
                assert!(FibsConfig::TOP_KEYS.contains(&k.as_str()), "{k}");
            }
        }
        assert_eq!(
            table.len(),
            FibsConfig::SECTIONS.len() + FibsConfig::TOP_KEYS.len()
        );
    }
}
