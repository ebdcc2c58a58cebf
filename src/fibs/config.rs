//! Settings of the FIBS bot account (`config/fibs.toml`) and the invitation policy.
//!
//! Everything that changes how the account behaves towards other people lives here so an
//! operator can review it in one file: which invitations are accepted, how fast the bot
//! may send, how it backs off after a disconnect. The password is never part of the
//! configuration file; it comes from an environment variable or a separate file. The
//! invitation policy (`[invitations]`) is in `policy.rs`, re-exported here.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use crate::config::EnvOverrides;

mod policy;

pub use policy::{DeclineReason, InvitePolicy, Inviter, Lookup, Verdict};

/// Time limits of every wait (docs/protocols.md, "FIBS bot"): when one passes, the bot
/// acts instead of waiting on.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WatchdogConfig {
    /// The bot needs a board to act on (it asked for one, or answered one and nothing
    /// changed): ask again (`board`) after this many milliseconds, and again each time.
    pub board_ms: u64,
    /// The bot's turn before the roll, without access to the cube, and the server has
    /// not rolled for it: send `roll` after this many milliseconds.
    pub roll_ms: u64,
    /// An invitation joined (or an opponent invited) with no match begun: send the
    /// command once more after this many milliseconds, and give the invitation up after
    /// twice as long. The next game of a match not begun: `join` again every this many
    /// milliseconds until the reminder is due.
    pub join_ms: u64,
    /// The opponent is to act and the server has said nothing of it for this many
    /// milliseconds: ask for the board.
    pub opponent_board_ms: u64,
    /// ... for this long: remind the opponent (`tell NAME reminder`).
    pub opponent_remind_ms: u64,
    /// ... for this long: leave the match (the server saves it; the bot invites the
    /// opponent to resume it later).
    pub opponent_leave_ms: u64,
    /// With no match, invite opponents of saved matches who are online this often (each
    /// one at most once per `opponent_leave_ms`, and whenever they log in).
    pub reinvite_ms: u64,
    /// The reminder's text.
    pub reminder: String,
}

impl Default for WatchdogConfig {
    fn default() -> WatchdogConfig {
        WatchdogConfig {
            board_ms: 4000,
            roll_ms: 2000,
            join_ms: 20_000,
            opponent_board_ms: 30_000,
            opponent_remind_ms: 120_000,
            opponent_leave_ms: 300_000,
            reinvite_ms: 120_000,
            reminder: "It is your turn in our match; I will leave it (saved) if you stay away."
                .into(),
        }
    }
}

impl WatchdogConfig {
    fn validate(&self) -> Result<(), FibsConfigError> {
        let all = [
            self.board_ms,
            self.roll_ms,
            self.join_ms,
            self.opponent_board_ms,
            self.opponent_remind_ms,
            self.opponent_leave_ms,
            self.reinvite_ms,
        ];
        if all.contains(&0) {
            return Err(FibsConfigError::Invalid(
                "every watchdog limit must be positive".into(),
            ));
        }
        if !(self.opponent_board_ms < self.opponent_remind_ms
            && self.opponent_remind_ms < self.opponent_leave_ms
            && self.join_ms < self.opponent_remind_ms)
        {
            return Err(FibsConfigError::Invalid(
                "watchdog: need join_ms and opponent_board_ms below opponent_remind_ms, \
                 and opponent_remind_ms below opponent_leave_ms"
                    .into(),
            ));
        }
        if self.reminder.trim().is_empty() || self.reminder.chars().any(char::is_control) {
            return Err(FibsConfigError::Invalid(
                "watchdog.reminder must be one non-empty line".into(),
            ));
        }
        Ok(())
    }
}

/// What the first SIGTERM finishes before the bot logs out (a second one quits at once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Finish {
    /// The game in progress (the server saves the match between games).
    Game,
    /// The whole match in progress.
    Match,
    /// Nothing: log out at once (the server saves the match).
    Now,
}

/// Stopping.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShutdownConfig {
    pub finish: Finish,
    /// Log out after this many seconds whatever is unfinished.
    pub max_wait_s: u64,
}

impl Default for ShutdownConfig {
    fn default() -> ShutdownConfig {
        ShutdownConfig {
            finish: Finish::Game,
            max_wait_s: 1800,
        }
    }
}

/// What the bot reports to operators.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct StatusConfig {
    /// Serve Prometheus metrics (`/metrics`) and `/healthz` on this address, e.g.
    /// `127.0.0.1:9187` (empty: no listener).
    pub metrics_listen: String,
}

/// One account of `[[account]]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountConfig {
    pub user: String,
    /// Read the password from this environment variable ...
    #[serde(default)]
    pub password_env: Option<String>,
    /// ... or from the first line of this file.
    #[serde(default)]
    pub password_file: Option<std::path::PathBuf>,
    /// HOST:PORT, when not the command line's `--server`.
    #[serde(default)]
    pub server: Option<String>,
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
    /// Worker threads deciding for every account together.
    pub threads: usize,
}

impl Default for PlayConfig {
    fn default() -> PlayConfig {
        PlayConfig {
            engine: "engine".into(),
            resign_below: 0.001,
            threads: 1,
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
    pub watchdog: WatchdogConfig,
    pub shutdown: ShutdownConfig,
    pub status: StatusConfig,
    /// Several accounts in one process (each its own connection and state, one engine
    /// and worker pool for all); empty: the command line's `--user`.
    pub account: Vec<AccountConfig>,
}

impl Default for FibsConfig {
    fn default() -> FibsConfig {
        FibsConfig {
            client_name: "stargammon".into(),
            invitations: InvitePolicy::default(),
            connection: ConnectionConfig::default(),
            play: PlayConfig::default(),
            watchdog: WatchdogConfig::default(),
            shutdown: ShutdownConfig::default(),
            status: StatusConfig::default(),
            account: Vec::new(),
        }
    }
}

/// Why the FIBS bot's configuration could not be loaded.
#[derive(Debug)]
pub enum FibsConfigError {
    Read(String, std::io::Error),
    Parse(String, toml::de::Error),
    Invalid(String),
    /// An environment variable that overrides a key could not be used.
    Env {
        var: String,
        message: String,
    },
}

impl fmt::Display for FibsConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FibsConfigError::Read(p, e) => write!(f, "cannot read {p}: {e}"),
            FibsConfigError::Parse(p, e) => write!(f, "{p}: {e}"),
            FibsConfigError::Invalid(m) => write!(f, "invalid FIBS configuration: {m}"),
            FibsConfigError::Env { var, message } => write!(f, "{var}: {message}"),
        }
    }
}

impl std::error::Error for FibsConfigError {}

impl FibsConfig {
    /// Parses TOML text.
    pub fn from_toml(text: &str, origin: &str) -> Result<FibsConfig, FibsConfigError> {
        let cfg: FibsConfig =
            toml::from_str(text).map_err(|e| FibsConfigError::Parse(origin.to_string(), e))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The sections of the file.
    pub const SECTIONS: [&'static str; 6] = [
        "invitations",
        "connection",
        "play",
        "watchdog",
        "shutdown",
        "status",
    ];
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
    ) -> Result<FibsConfig, FibsConfigError> {
        let default = Path::new("config/fibs.toml");
        let path = path.or(default.exists().then_some(default));
        let (text, origin) = match path {
            Some(p) => {
                let shown = p.display().to_string();
                let text = std::fs::read_to_string(p)
                    .map_err(|e| FibsConfigError::Read(shown.clone(), e))?;
                (text, shown)
            }
            None => (String::new(), "built-in defaults".to_string()),
        };
        let parse = |t: &toml::Table| t.clone().try_into::<FibsConfig>();
        let mut table: toml::Table =
            toml::from_str(&text).map_err(|e| FibsConfigError::Parse(origin.clone(), e))?;
        parse(&table).map_err(|e| FibsConfigError::Parse(origin.clone(), e))?;
        let overrides = EnvOverrides::new(vars, &Self::sections(), &Self::TOP_KEYS);
        overrides
            .apply(&mut table, |t| {
                parse(t).map(drop).map_err(|e| e.to_string())
            })
            .map_err(|e| match e {
                crate::config::ConfigError::Env { var, message } => {
                    FibsConfigError::Env { var, message }
                }
                other => FibsConfigError::Invalid(other.to_string()),
            })?;
        let cfg = parse(&table).map_err(|e| FibsConfigError::Parse(origin, e))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<FibsConfig, FibsConfigError> {
        let shown = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| FibsConfigError::Read(shown.clone(), e))?;
        FibsConfig::from_toml(&text, &shown)
    }

    fn validate(&self) -> Result<(), FibsConfigError> {
        if self.client_name.is_empty() || self.client_name.contains(char::is_whitespace) {
            return Err(FibsConfigError::Invalid(
                "client_name must be one non-empty word".into(),
            ));
        }
        let c = &self.connection;
        if c.backoff_initial_ms == 0 || c.backoff_max_ms < c.backoff_initial_ms {
            return Err(FibsConfigError::Invalid(
                "backoff_initial_ms must be positive and at most backoff_max_ms".into(),
            ));
        }
        if c.keepalive_s > 0 && c.keepalive_s >= c.idle_timeout_s {
            return Err(FibsConfigError::Invalid(
                "keepalive_s must be below idle_timeout_s (or 0 to send no keep-alive)".into(),
            ));
        }
        if c.keepalive_s > 0
            && (c.keepalive_command.trim().is_empty() || c.keepalive_command.contains(['\r', '\n']))
        {
            return Err(FibsConfigError::Invalid(
                "keepalive_command must be one non-empty line".into(),
            ));
        }
        if c.send_burst == 0 {
            return Err(FibsConfigError::Invalid(
                "send_burst must be at least 1".into(),
            ));
        }
        self.invitations.validate()?;
        self.watchdog.validate()?;
        if self.play.threads == 0 {
            return Err(FibsConfigError::Invalid(
                "play.threads must be at least 1".into(),
            ));
        }
        let mut users: Vec<String> = Vec::new();
        for a in &self.account {
            if !super::clip::valid_name(&a.user) {
                return Err(FibsConfigError::Invalid(format!(
                    "account user {:?} is not a player name (letters, digits and _)",
                    a.user
                )));
            }
            if users.iter().any(|u| u.eq_ignore_ascii_case(&a.user)) {
                return Err(FibsConfigError::Invalid(format!(
                    "account {} is listed twice",
                    a.user
                )));
            }
            users.push(a.user.clone());
            if a.password_env.is_some() == a.password_file.is_some() {
                return Err(FibsConfigError::Invalid(format!(
                    "account {}: give exactly one of password_env and password_file",
                    a.user
                )));
            }
            if a.server.as_deref().is_some_and(|s| !s.contains(':')) {
                return Err(FibsConfigError::Invalid(format!(
                    "account {}: server must be HOST:PORT",
                    a.user
                )));
            }
        }
        if !(0.0..0.5).contains(&self.play.resign_below) {
            return Err(FibsConfigError::Invalid(
                "play.resign_below must be a probability from 0 (never resign) to below 0.5".into(),
            ));
        }
        let engine = self.play.engine.trim();
        if engine.is_empty() {
            return Err(FibsConfigError::Invalid(
                "play.engine must not be empty".into(),
            ));
        }
        // A player spec is checked here, when the file is read, with the spec's message.
        if !engine.starts_with("tcp://") {
            crate::players::PlayerSpec::parse(engine)
                .map_err(|e| FibsConfigError::Invalid(format!("play.engine = {engine:?}: {e}")))?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn shipped_config_is_the_built_in_defaults() {
        let text = include_str!("../../config/fibs.toml");
        let cfg = FibsConfig::from_toml(text, "config/fibs.toml").unwrap();
        assert_eq!(cfg, FibsConfig::default());
    }

    #[test]
    fn accounts_and_limits_are_checked() {
        let ok = "[[account]]\nuser = \"bot1\"\npassword_env = \"P1\"\n\
                  [[account]]\nuser = \"bot2\"\npassword_file = \"/p2\"\nserver = \"h:1\"\n";
        let c = FibsConfig::from_toml(ok, "t").unwrap();
        assert_eq!(c.account.len(), 2);
        assert_eq!(c.account[1].server.as_deref(), Some("h:1"));
        for bad in [
            "[[account]]\nuser = \"bot1\"\n",
            "[[account]]\nuser = \"bot1\"\npassword_env = \"P\"\npassword_file = \"f\"\n",
            "[[account]]\nuser = \"b o t\"\npassword_env = \"P\"\n",
            "[[account]]\nuser = \"bot\"\npassword_env = \"P\"\n[[account]]\nuser = \"BOT\"\npassword_env = \"Q\"\n",
            "[[account]]\nuser = \"bot\"\npassword_env = \"P\"\nserver = \"nohost\"\n",
            "[watchdog]\nboard_ms = 0",
            "[watchdog]\nopponent_remind_ms = 400000",
            "[watchdog]\nreminder = \"two\\nlines\"",
            "[invitations]\nmin_length = 9\nmax_length = 7",
            "[invitations]\nmin_rating = 1800.0\nmax_rating = 1500.0",
            "[invitations]\ndeny = [\"a b\"]",
            "[shutdown]\nfinish = \"later\"",
            "[play]\nthreads = 0",
        ] {
            assert!(FibsConfig::from_toml(bad, "t").is_err(), "{bad}");
        }
        let c = FibsConfig::from_toml("[shutdown]\nfinish = \"match\"", "t").unwrap();
        assert_eq!(c.shutdown.finish, Finish::Match);
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
            assert!(matches!(e, FibsConfigError::Env { .. }), "{e}");
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
            } else if k == "account" {
                // The list of accounts: not a section, and not set from the environment.
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
