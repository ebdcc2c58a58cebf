//! Which game a position belongs to: backgammon or one of the three Tavli games, with the
//! names the command line, position strings, configuration files and protocols use.

use std::fmt;
use std::str::FromStr;

/// Which game a position belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    Backgammon,
    Portes,
    Plakoto,
    Fevga,
}

impl Variant {
    /// The lower-case name used on the command line and in position strings.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Backgammon => "backgammon",
            Variant::Portes => "portes",
            Variant::Plakoto => "plakoto",
            Variant::Fevga => "fevga",
        }
    }

    /// Whether this is one of the three Tavli games.
    pub fn is_tavli(self) -> bool {
        self != Variant::Backgammon
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown variant name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantError(pub String);

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown variant {:?} (expected backgammon, portes, plakoto or fevga)",
            self.0
        )
    }
}

impl std::error::Error for VariantError {}

impl FromStr for Variant {
    type Err = VariantError;
    fn from_str(s: &str) -> Result<Variant, VariantError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "backgammon" | "bg" => Ok(Variant::Backgammon),
            "portes" => Ok(Variant::Portes),
            "plakoto" => Ok(Variant::Plakoto),
            "fevga" => Ok(Variant::Fevga),
            _ => Err(VariantError(s.chars().take(40).collect())),
        }
    }
}
