//! The Universal Backgammon Interface (UBGI, draft 2025): a stdin/stdout engine protocol
//! modelled on chess's UCI (docs/protocols.md, "UBGI").
//!
//! The user interface sends `ubgi`, the engine identifies itself and says `readyok`; then each
//! line is a position (a FIBS board or an XGID) and the engine answers with a move (steps written singly
//! in the mover's numbering, no `*`, no `(n)`), `double`, `roll`, `take`, `drop`, or a blank
//! line when no move is legal. `isready` is answered `readyok`, `stop` ends the current search
//! early, `quit` ends the process, anything else gets `sorry`.
//!
//! The Tavli extension (docs/VARIANTS.md, "Over the wire"): `variant NAME` (backgammon,
//! portes, plakoto, fevga) is answered `variant NAME` and sets the game of the lines that
//! follow; a Tavli line is a position string and a roll ([`super::tavli`]), answered with
//! the play's steps written singly (no marks), or a blank line when no play is legal. A
//! refused Tavli line or an unknown variant gets `sorry` followed by the reason on the
//! same line.

use crate::engine::Action;
use crate::notation::strip_prefix_ignore_case;
use crate::protocol::gnubg::{format_play, MoveStyle};

/// One line from the user interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UbgiCommand {
    /// `ubgi`: identify.
    Hello,
    /// `isready`.
    IsReady,
    /// A position to decide, as a FIBS board line.
    Board(String),
    /// A position to decide, as an XGID (`XGID=...`).
    Xgid(String),
    /// `stop`: answer now with what is known.
    Stop,
    /// `quit`.
    Quit,
    /// `variant NAME` (the Tavli extension): the name as sent.
    Variant(String),
    /// A blank line: ignored.
    Blank,
    /// Any other readable line: a Tavli request in a Tavli session, else unknown.
    Text(String),
    /// A line that cannot be read (not UTF-8, too long).
    Unknown,
}

/// Parses a line (terminator removed).
pub fn parse_command(line: &str) -> UbgiCommand {
    let t = line.trim();
    if t.is_empty() {
        return UbgiCommand::Blank;
    }
    if let Some(rest) = strip_prefix_ignore_case(t, "board:") {
        return UbgiCommand::Board(format!("board:{rest}"));
    }
    if strip_prefix_ignore_case(t, "xgid=").is_some() {
        return UbgiCommand::Xgid(t.to_string());
    }
    if let Some(rest) = strip_prefix_ignore_case(t, "variant") {
        if rest.starts_with(char::is_whitespace) || rest.is_empty() {
            return UbgiCommand::Variant(rest.trim().to_string());
        }
    }
    match t.to_ascii_lowercase().as_str() {
        "ubgi" => UbgiCommand::Hello,
        "isready" => UbgiCommand::IsReady,
        "stop" => UbgiCommand::Stop,
        "quit" => UbgiCommand::Quit,
        _ => UbgiCommand::Text(t.to_string()),
    }
}

/// The identification block sent after `ubgi`.
pub fn hello_lines(engine: &str) -> Vec<String> {
    vec![
        "id name Stargammon".to_string(),
        "id author The Stargammon authors".to_string(),
        format!("id version {} ({engine})", env!("CARGO_PKG_VERSION")),
        "readyok".to_string(),
    ]
}

/// The reply to an unknown command.
pub const SORRY: &str = "sorry";

/// The reply line for a decision. Beavers are not part of UBGI's vocabulary: a beaver is
/// answered as a take; resignation answers do not occur on this path.
pub fn reply(action: &Action) -> String {
    match action {
        Action::Move(p) => format_play(p, MoveStyle::Ubgi),
        Action::Roll => "roll".to_string(),
        Action::Double => "double".to_string(),
        Action::Take | Action::Beaver => "take".to_string(),
        Action::Drop => "drop".to_string(),
        Action::AcceptResignation => "accept".to_string(),
        Action::RejectResignation => "reject".to_string(),
        Action::Nothing => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse_command("ubgi"), UbgiCommand::Hello);
        assert_eq!(parse_command(" QUIT "), UbgiCommand::Quit);
        assert_eq!(parse_command("isready"), UbgiCommand::IsReady);
        assert_eq!(parse_command(""), UbgiCommand::Blank);
        assert_eq!(
            parse_command("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"),
            UbgiCommand::Xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10".to_string())
        );
        assert_eq!(
            parse_command("Board:a:b"),
            UbgiCommand::Board("board:a:b".to_string())
        );
        assert_eq!(parse_command("é"), UbgiCommand::Text("é".into()));
        assert_eq!(
            parse_command("variant  Plakoto "),
            UbgiCommand::Variant("Plakoto".into())
        );
        assert_eq!(
            parse_command("variants"),
            UbgiCommand::Text("variants".into())
        );
    }
}
