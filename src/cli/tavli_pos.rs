//! The `--variant` side of `moves` and `show`: a Tavli position string, with or without
//! its `VARIANT:` prefix.

use super::CliError;
use crate::game::Variant;
use crate::tavli::{parse_position_string, PositionStringError, TavliPosition};

/// Reads POS as a position of `variant`: a full position string naming that variant, or
/// `MOVER:OPPONENT` alone.
pub fn parse_variant_pos(variant: Variant, text: &str) -> Result<TavliPosition, CliError> {
    let t = text.trim();
    let parsed = match parse_position_string(t) {
        Err(PositionStringError::Parts) if t.split(':').count() == 2 => {
            parse_position_string(&format!("{variant}:{t}"))
        }
        other => other,
    };
    let pos = parsed.map_err(|e| format!("bad {variant} position: {e}"))?;
    if pos.variant() != variant {
        return Err(format!(
            "the position is a {} position but --variant is {variant}",
            pos.variant()
        )
        .into());
    }
    Ok(pos)
}

/// How a play ended the game, as the JSON and text outputs name it.
pub fn end_name(end: Option<crate::tavli::GameEnd>) -> Option<String> {
    end.map(crate::tavli::GameEnd::name)
}
