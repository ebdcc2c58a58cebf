//! Player specifications as users type them: an [`EngineSpec`] in its text form (`net`,
//! `net:PATH,depth=3,algo=star2`, `pubeval`, ...), or `engine[:CONFIG][,key=value]*` for
//! the engine exactly as `stargammon serve` runs it with that configuration file (default
//! `config/default.toml`), with the spec's options as overrides.

use std::fmt;
use std::path::Path;

use crate::config::{Config, EnvOverrides};
use crate::engine::{EngineSpec, SpecError};

/// Why a player specification was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayerSpecError {
    Spec(SpecError),
    /// The configuration file of an `engine:CONFIG` spec cannot be used.
    Config(String),
    /// A player the game cannot have, with the reason.
    NotForGame(String),
}

impl fmt::Display for PlayerSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpecError::Spec(e) => write!(f, "{e}"),
            PlayerSpecError::Config(e) | PlayerSpecError::NotForGame(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for PlayerSpecError {}

impl From<SpecError> for PlayerSpecError {
    fn from(e: SpecError) -> PlayerSpecError {
        PlayerSpecError::Spec(e)
    }
}

/// A parsed player specification: the engine spec it stands for, and the text as written
/// (the player's name in reports).
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerSpec {
    pub engine: EngineSpec,
    text: String,
}

impl PlayerSpec {
    /// Parses a player specification (see the module docs).
    pub fn parse(text: &str) -> Result<PlayerSpec, PlayerSpecError> {
        let text = text.trim();
        let mut parts = text.split(',');
        let head = parts.next().unwrap_or_default();
        let engine = if head == "engine" || head.starts_with("engine:") {
            // The server's configuration as `stargammon serve` reads it, environment
            // overrides (`STARGAMMON_ENGINE__DEPTH=3`) included.
            let path = match head.strip_prefix("engine:") {
                Some("") => return Err(SpecError::EmptyPath.into()),
                Some(path) => Some(Path::new(path)),
                None => None,
            };
            let config = Config::load_with_env(path, EnvOverrides::process_vars())
                .map_err(|e| PlayerSpecError::Config(e.to_string()))?;
            let mut spec = config.engine_spec();
            spec.apply_options(parts)?;
            spec
        } else {
            text.parse::<EngineSpec>()?
        };
        Ok(PlayerSpec {
            engine,
            text: text.to_string(),
        })
    }

    /// The specification as written.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl From<EngineSpec> for PlayerSpec {
    fn from(engine: EngineSpec) -> PlayerSpec {
        let text = engine.to_string();
        PlayerSpec { engine, text }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::engine::CubePolicy;

    #[test]
    fn engine_form_reads_the_config_and_takes_overrides() {
        let s = PlayerSpec::parse("engine").unwrap();
        assert_eq!(s.engine, Config::default().engine_spec());
        assert_eq!(s.engine.cube_policy, CubePolicy::Cubeful);
        let s = PlayerSpec::parse("engine,depth=3,cube_depth=3").unwrap();
        assert_eq!((s.engine.depth.get(), s.engine.cube_depth.get()), (3, 3));
        assert_eq!(s.text(), "engine,depth=3,cube_depth=3");
        let e = PlayerSpec::parse("engine,depth=4").unwrap_err();
        assert!(e.to_string().contains("odd depth"), "{e}");
        let e = PlayerSpec::parse("engine:/nonexistent.toml").unwrap_err();
        assert!(e.to_string().contains("nonexistent.toml"), "{e}");
    }

    #[test]
    fn plain_specs_are_engine_specs() {
        let s = PlayerSpec::parse("net,depth=3").unwrap();
        assert_eq!(s.engine, "net,depth=3".parse::<EngineSpec>().unwrap());
        assert_eq!(PlayerSpec::from(s.engine.clone()).text(), "net,depth=3");
    }
}
