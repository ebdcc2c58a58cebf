//! Tavli requests over the line protocols (docs/VARIANTS.md, "Over the wire"): a position
//! string and a roll on one line, `[VARIANT:]MOVER:OPPONENT D1D2`, answered with the
//! chosen play. The same grammar serves UBGI's `variant` extension, the server's external
//! interface and its `server.variant` setting.
//!
//! The roll is two digits 1-6, written `65`, `6 5`, `6-5` or `6,5`. The variant prefix
//! may be left out when the session's variant is a Tavli game; given, it must be that
//! game.

use std::fmt;

use crate::game::{Dice, Variant};
use crate::tavli::{parse_position_string, TavliPlay, TavliPosition};

/// A Tavli request: the position (side to act's view) and its roll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TavliRequest {
    pub position: TavliPosition,
    pub dice: Dice,
}

/// Why a Tavli request line was refused (one line of text each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TavliRequestError {
    /// No roll after the position.
    NoDice,
    /// The roll is not two dice 1-6.
    BadDice(String),
    /// The position string does not read, or is not a position of the game.
    Position(String),
    /// The position names another game than the session's.
    WrongVariant { session: Variant, line: Variant },
    /// The position is finished: nothing to play.
    GameOver,
}

impl fmt::Display for TavliRequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TavliRequestError::NoDice => {
                f.write_str("a Tavli request is a position string and a roll (e.g. 65)")
            }
            TavliRequestError::BadDice(d) => write!(f, "bad roll {d:?}: two dice 1-6"),
            TavliRequestError::Position(e) => write!(f, "bad position: {e}"),
            TavliRequestError::WrongVariant { session, line } => {
                write!(f, "a {line} position in a {session} session")
            }
            TavliRequestError::GameOver => f.write_str("the game is over; nothing to play"),
        }
    }
}

impl std::error::Error for TavliRequestError {}

/// Whether `line` is meant as a Tavli request in a session of `session`: it starts with a
/// Tavli game's name and a colon, or the session is a Tavli game and the line's first word
/// holds a colon (a position string without its prefix).
pub fn is_tavli_line(line: &str, session: Variant) -> bool {
    let t = line.trim_start();
    let first = t.split_whitespace().next().unwrap_or("");
    let named = [Variant::Portes, Variant::Plakoto, Variant::Fevga]
        .iter()
        .any(|v| {
            crate::notation::strip_prefix_ignore_case(first, v.name())
                .is_some_and(|rest| rest.starts_with(':'))
        });
    named || (session.is_tavli() && first.contains(':') && !first.contains("board:"))
}

/// Reads a request line in a session of `session` (the game a prefix-less position is
/// read as).
pub fn parse_request(line: &str, session: Variant) -> Result<TavliRequest, TavliRequestError> {
    let t = line.trim();
    let (pos_text, dice_text) = match t.split_once(char::is_whitespace) {
        Some((p, d)) => (p, d.trim()),
        None => return Err(TavliRequestError::NoDice),
    };
    let dice = parse_dice(dice_text)?;
    let full = if pos_text.split(':').count() == 2 && session.is_tavli() {
        format!("{session}:{pos_text}")
    } else {
        pos_text.to_string()
    };
    let position =
        parse_position_string(&full).map_err(|e| TavliRequestError::Position(e.to_string()))?;
    if session.is_tavli() && position.variant() != session {
        return Err(TavliRequestError::WrongVariant {
            session,
            line: position.variant(),
        });
    }
    if position.result().is_some() {
        return Err(TavliRequestError::GameOver);
    }
    Ok(TavliRequest { position, dice })
}

fn parse_dice(text: &str) -> Result<Dice, TavliRequestError> {
    let bad = || TavliRequestError::BadDice(text.chars().take(12).collect());
    let digits: Vec<char> = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | ',' | '\t'))
        .collect();
    match digits.as_slice() {
        [a, b] => {
            let a = a.to_digit(10).ok_or_else(bad)? as u8;
            let b = b.to_digit(10).ok_or_else(bad)? as u8;
            Dice::new(a, b).map_err(|_| bad())
        }
        _ => Err(bad()),
    }
}

/// The play as UBGI writes moves: each step on its own as from/to in the mover's
/// numbering (`bar` 25, `off` 0), no marks; empty for the empty play.
pub fn ubgi_play(play: &TavliPlay) -> String {
    let name = crate::tavli::notation::point_name;
    play.steps()
        .iter()
        .map(|s| format!("{}/{}", name(s.from), name(s.to)))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn requests_read_with_or_without_the_prefix() {
        let r = parse_request("plakoto:24-15:24-15 65", Variant::Plakoto).unwrap();
        assert_eq!(r.dice, Dice::new(6, 5).unwrap());
        let s = parse_request("24-15:24-15 6-5", Variant::Plakoto).unwrap();
        assert_eq!(r, s);
        let t = parse_request("fevga:24-15:24-15 3 3", Variant::Backgammon).unwrap();
        assert_eq!(t.position.variant(), Variant::Fevga);
        assert!(is_tavli_line("fevga:24-15:24-15 3 3", Variant::Backgammon));
        assert!(is_tavli_line("24-15:24-15 33", Variant::Fevga));
        assert!(!is_tavli_line("24-15:24-15 33", Variant::Backgammon));
        assert!(!is_tavli_line("board:a:b:1:2", Variant::Fevga));
    }

    #[test]
    fn bad_requests_get_one_line_errors() {
        for (line, session) in [
            ("plakoto:24-15:24-15", Variant::Plakoto),
            ("plakoto:24-15:24-15 67", Variant::Plakoto),
            ("plakoto:24-15:24-15 6", Variant::Plakoto),
            ("plakoto:24-16:24-15 65", Variant::Plakoto),
            ("fevga:24-15:24-15 65", Variant::Plakoto),
            ("plakoto:24-15:24-15 \u{e9}\u{e9}", Variant::Plakoto),
            ("\u{1F600}:24-15 65", Variant::Fevga),
            ("portes::24-15 11", Variant::Portes),
        ] {
            let e = parse_request(line, session).unwrap_err();
            assert!(!e.to_string().contains('\n'), "{line}: {e}");
        }
    }
}
