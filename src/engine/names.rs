//! One name for each engine setting, on every surface: the `[engine]` keys of a
//! configuration file, the options of the spec text (`net,depth=3,algorithm=star2`), the
//! command-line flags (the same word with `-` for `_`) and the HTTP API's fields.
//!
//! [`SETTINGS`] is the table docs/cli.md prints; the names a setting had before it was
//! given its one word are still read for one release, each with one warning that names
//! the new word ([`warn_renamed`]).

use std::collections::BTreeSet;
use std::sync::Mutex;

/// One setting's names. `None`: the surface has no such setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The one word (the spec option and the `[engine]` key where they exist).
    pub name: &'static str,
    /// The key of the configuration's `[engine]` table.
    pub toml: Option<&'static str>,
    /// The option of the spec text (`KIND` is the first part of the spec, not an option).
    pub spec: Option<&'static str>,
    /// The long flag of the commands that take it (`hint`, `rollout`, `analyse`, `bench
    /// search`), without the dashes.
    pub flag: Option<&'static str>,
    /// The query or body field of the HTTP API.
    pub http: Option<&'static str>,
    /// Names read for one more release, with a warning.
    pub old: &'static [&'static str],
}

const fn setting(
    name: &'static str,
    toml: Option<&'static str>,
    spec: Option<&'static str>,
    flag: Option<&'static str>,
    http: Option<&'static str>,
    old: &'static [&'static str],
) -> Setting {
    Setting {
        name,
        toml,
        spec,
        flag,
        http,
        old,
    }
}

/// Every engine setting with its name on each surface.
pub const SETTINGS: &[Setting] = &[
    setting(
        "evaluator",
        Some("evaluator"),
        Some("KIND"),
        Some("evaluator"),
        None,
        &["--eval"],
    ),
    setting(
        "algorithm",
        Some("algorithm"),
        Some("algorithm"),
        Some("algorithm"),
        None,
        &["algo=", "--algo"],
    ),
    setting(
        "depth",
        Some("depth"),
        Some("depth"),
        Some("depth"),
        Some("depth"),
        &[],
    ),
    setting(
        "cube_depth",
        Some("cube_depth"),
        Some("cube_depth"),
        None,
        None,
        &[],
    ),
    setting(
        "cube_lookahead",
        Some("cube_lookahead"),
        Some("cube_lookahead"),
        None,
        None,
        &[],
    ),
    setting(
        "time_ms",
        Some("time_ms"),
        Some("time_ms"),
        Some("time-ms"),
        None,
        &["engine.time_budget_ms", "time="],
    ),
    setting(
        "min_depth",
        Some("min_depth"),
        Some("min_depth"),
        None,
        None,
        &[],
    ),
    setting(
        "cubeful_plays",
        Some("cubeful_plays"),
        Some("cubeful_plays"),
        None,
        None,
        &["cubeful="],
    ),
    setting(
        "tt_megabytes",
        Some("tt_megabytes"),
        Some("tt_megabytes"),
        Some("tt-megabytes"),
        None,
        &["tt=", "--tt-mb"],
    ),
    setting("noise", None, Some("noise"), None, None, &[]),
    setting("cube_noise", None, Some("cube_noise"), None, None, &[]),
    setting(
        "precision",
        Some("precision"),
        Some("precision"),
        None,
        None,
        &[],
    ),
    setting(
        "playouts",
        Some("mcts.playouts"),
        Some("playouts"),
        Some("playouts"),
        None,
        &[],
    ),
    setting(
        "playout",
        Some("mcts.playout"),
        Some("playout"),
        Some("playout"),
        None,
        &[],
    ),
    setting(
        "truncate",
        Some("mcts.truncate"),
        Some("truncate"),
        Some("truncate"),
        None,
        &[],
    ),
    setting("filter", Some("filter"), Some("filter"), None, None, &[]),
    setting("width", Some("width"), Some("width"), None, None, &[]),
    setting("prune", Some("prune"), Some("prune"), None, None, &[]),
];

/// The spec options renamed: `(old, new)`.
pub const OLD_SPEC_OPTIONS: &[(&str, &str)] = &[
    ("algo", "algorithm"),
    ("time", "time_ms"),
    ("cubeful", "cubeful_plays"),
    ("tt", "tt_megabytes"),
];

/// The `[engine]` keys renamed: `(old, new)`.
pub const OLD_ENGINE_KEYS: &[(&str, &str)] = &[("time_budget_ms", "time_ms")];

/// The spec option `key` under its one name, and whether `key` was an old name.
pub fn spec_option(key: &str) -> (&str, bool) {
    match OLD_SPEC_OPTIONS.iter().find(|(old, _)| *old == key) {
        Some((_, new)) => (new, true),
        None => (key, false),
    }
}

static WARNED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// The line [`warn_renamed`] writes.
pub fn renamed_message(old: &str, new: &str) -> String {
    format!("{old} is deprecated and will be removed in the next release: use {new}")
}

/// Warns, once per process, that a setting was given by its old name `old` (written as
/// the user wrote it: `algo=`, `--tt-mb`, `engine.time_budget_ms`) and is now `new`: a
/// `tracing` warning where a subscriber is installed (the server, the FIBS bot), else one
/// line on stderr.
pub fn warn_renamed(old: &str, new: &str) {
    let first = WARNED
        .lock()
        .map(|mut seen| seen.insert(old.to_string()))
        .unwrap_or(true);
    if !first {
        return;
    }
    let message = renamed_message(old, new);
    if tracing::dispatcher::has_been_set() {
        tracing::warn!("{message}");
    } else {
        eprintln!("stargammon: warning: {message}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_old_name_belongs_to_one_setting() {
        for (old, new) in OLD_SPEC_OPTIONS {
            let s = SETTINGS.iter().find(|s| s.spec == Some(new));
            assert!(
                s.is_some_and(|s| s.old.contains(&format!("{old}=").as_str())),
                "{old}"
            );
        }
        for (old, new) in OLD_ENGINE_KEYS {
            let s = SETTINGS.iter().find(|s| s.toml == Some(new));
            assert!(
                s.is_some_and(|s| s.old.contains(&format!("engine.{old}").as_str())),
                "{old}"
            );
        }
        // One word: the spec option, the key and the flag agree where they exist.
        for s in SETTINGS {
            for name in [s.toml, s.spec, s.flag].into_iter().flatten() {
                let name = name.trim_start_matches("mcts.").replace('-', "_");
                assert!(name == s.name || name == "KIND", "{s:?}");
            }
        }
        assert_eq!(spec_option("algo"), ("algorithm", true));
        assert_eq!(spec_option("depth"), ("depth", false));
    }
}
