//! `--engine SPEC` and the renamed flags of the commands that build an engine (`hint`,
//! `rollout`, `analyse`, `bench search`, `bench strength`).
//!
//! `--engine` takes the spec text `duel` and `match` players take
//! (`net,depth=3,algorithm=star2`, `engine[:CONFIG][,key=value...]`); each command's
//! separate flags, where given, override the spec's settings. A flag's old name (`--algo`,
//! `--eval`, `--tt-mb`, ...) is a hidden argument of its own: it still works, with one
//! warning naming the new flag ([`crate::engine::names::warn_renamed`]).

use super::CliError;
use crate::engine::EngineSpec;
use crate::players::spec::PlayerSpec;

/// The engine spec of an `--engine` argument (a player spec's text; `engine[:CONFIG]`
/// reads that configuration).
pub fn engine_arg(text: &str) -> Result<EngineSpec, CliError> {
    Ok(PlayerSpec::parse(text)
        .map_err(|e| format!("--engine {text}: {e}"))?
        .engine)
}

/// The value of a renamed flag: the new flag's, else the old one's with a warning (clap
/// refuses both at once).
pub fn renamed<T: Clone>(
    new: &Option<T>,
    old: &Option<T>,
    new_flag: &str,
    old_flag: &str,
) -> Option<T> {
    match (new, old) {
        (Some(v), _) => Some(v.clone()),
        (None, Some(v)) => {
            crate::engine::names::warn_renamed(old_flag, new_flag);
            Some(v.clone())
        }
        (None, None) => None,
    }
}
