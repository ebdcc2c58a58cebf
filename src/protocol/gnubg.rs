//! gnubg's two socket protocols, as pure parsing and formatting (docs/protocols.md, "gnubg's
//! external player" and "gnubg's external interface").
//!
//! - **External player** (`set player N external HOST:PORT`): gnubg connects and sends one
//!   NUL-terminated board per decision; the reply is one line gnubg acts on. Everything gnubg
//!   could misread is ruled out here: replies are a legal move in `a/b` notation, `roll`,
//!   `double`, `take`, `drop` or `beaver`, and the empty line only for "no legal move". No
//!   reply starts with `Error:` (gnubg would stop) or `re` (gnubg would read a resignation).
//! - **External interface** (gnubg's `external` command, which this server can replace):
//!   requests `board:...` with options, `evaluation fibsboard ...`, `version`, `help`,
//!   `set debug on|off`, `exit`/`quit`; bad input gets an `Error: ...` line.
//!
//! Which of the two a connection speaks is decided from its first line (a board ending in NUL
//! means gnubg as an external player); see [`crate::server`].

use std::fmt;

use crate::engine::{Action, EvalReport};
use crate::game::Play;
use crate::notation::strip_prefix_ignore_case;

/// How a checker play is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveStyle {
    /// gnubg's plain external format: every step singly, bar 25, off 0, `*` on hitting steps.
    Gnubg,
    /// UBGI: every step singly, bar 25, off 0, no `*`.
    Ubgi,
}

/// Writes a play; the empty play (no legal move) is the empty string.
pub fn format_play(play: &Play, style: MoveStyle) -> String {
    let mut out = String::with_capacity(24);
    for (i, st) in play.steps().iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&st.from.to_string());
        out.push('/');
        out.push_str(&st.to.to_string());
        if st.hit && style == MoveStyle::Gnubg {
            out.push('*');
        }
    }
    out
}

/// The reply line (without `\n`) to a board gnubg sent its external player, or `None` for an
/// action that has no place on this path (resignation answers, "nothing to do"): the caller
/// must not send those, since gnubg would read `accept` as a take and `reject` as a
/// resignation.
pub fn player_reply(action: &Action) -> Option<String> {
    match action {
        Action::Move(p) => Some(format_play(p, MoveStyle::Gnubg)),
        Action::Roll => Some("roll".to_string()),
        Action::Double => Some("double".to_string()),
        Action::Take => Some("take".to_string()),
        Action::Drop => Some("drop".to_string()),
        Action::Beaver => Some("beaver".to_string()),
        Action::AcceptResignation | Action::RejectResignation | Action::Nothing => None,
    }
}

/// The reply line to a `board:` request of the external interface.
pub fn interface_reply(action: &Action) -> String {
    match action {
        Action::Move(p) => format_play(p, MoveStyle::Gnubg),
        Action::Roll => "roll".to_string(),
        Action::Double => "double".to_string(),
        Action::Take => "take".to_string(),
        Action::Drop => "drop".to_string(),
        Action::Beaver => "beaver".to_string(),
        Action::AcceptResignation => "accept".to_string(),
        Action::RejectResignation => "reject".to_string(),
        Action::Nothing => String::new(),
    }
}

/// The six numbers of an evaluation reply: five probabilities and the value.
pub fn evaluation_reply(report: &EvalReport) -> String {
    let p = &report.probs.0;
    format!(
        "{:.6} {:.6} {:.6} {:.6} {:.6} {:.6}",
        p[0], p[1], p[2], p[3], p[4], report.value
    )
}

/// Rule overrides that may follow a `board:` request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BoardOptions {
    pub jacoby: Option<bool>,
    pub crawford: Option<bool>,
    /// The opponent offers to resign this many points per cube (1, 2 or 3).
    pub resignation: Option<u32>,
    pub beavers: Option<bool>,
}

/// Options of an `evaluation fibsboard` request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvaluationOptions {
    /// gnubg plies; this project's depth is `2 * plies + 1`.
    pub plies: u32,
    pub cubeful: bool,
    pub noise: f64,
    pub prune: bool,
    pub deterministic: bool,
}

impl Default for EvaluationOptions {
    fn default() -> Self {
        EvaluationOptions {
            plies: 0,
            cubeful: true,
            noise: 0.0,
            prune: false,
            deterministic: false,
        }
    }
}

impl EvaluationOptions {
    /// The search depth for these plies: 0-ply = depth 1, 1-ply = depth 3, ...
    pub fn depth(&self) -> u32 {
        2 * self.plies + 1
    }
}

/// One request of the external interface.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Best action for the side to act; `board` is the board text (`board:...`).
    Board {
        board: String,
        options: BoardOptions,
    },
    Evaluation {
        board: String,
        options: EvaluationOptions,
    },
    Version,
    Help,
    SetDebug(bool),
    Exit,
}

/// Why a request line was not understood. Displayed after `Error: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// An empty line.
    NoCommand,
    /// Bytes that are not text.
    NotText,
    /// An over-long line.
    TooLong { max: usize },
    /// A command word this interface does not know.
    UnknownCommand(String),
    /// A known command with arguments that do not fit.
    BadArguments {
        command: &'static str,
        detail: String,
    },
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::NoCommand => f.write_str("no command given"),
            RequestError::NotText => f.write_str("the line is not text"),
            RequestError::TooLong { max } => write!(f, "line longer than {max} bytes"),
            RequestError::UnknownCommand(w) => write!(f, "unknown command `{w}`; try `help`"),
            RequestError::BadArguments { command, detail } => {
                write!(f, "bad arguments to `{command}`: {detail}")
            }
        }
    }
}

impl std::error::Error for RequestError {}

/// An `Error: ...` reply line (without `\n`) for any displayable error.
pub fn error_reply(e: &dyn fmt::Display) -> String {
    let text: String = e
        .to_string()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    format!("Error: {text}")
}

fn on_off(command: &'static str, key: &str, value: Option<&str>) -> Result<bool, RequestError> {
    match value.map(str::to_ascii_lowercase).as_deref() {
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        _ => Err(RequestError::BadArguments {
            command,
            detail: format!("`{key}` takes on or off"),
        }),
    }
}

fn bad(command: &'static str, detail: impl Into<String>) -> RequestError {
    RequestError::BadArguments {
        command,
        detail: detail.into(),
    }
}

/// The board text of a token `board:...` (keyword case-insensitive), with the keyword in
/// lower case as the board reader expects it; `None` for any other token.
fn board_text(tok: &str) -> Option<String> {
    strip_prefix_ignore_case(tok, "board:").map(|rest| format!("board:{rest}"))
}

/// Parses one request line (terminator already removed).
pub fn parse_request(line: &[u8]) -> Result<Request, RequestError> {
    let text = std::str::from_utf8(line).map_err(|_| RequestError::NotText)?;
    if text.chars().any(|c| c.is_control() && c != '\t') {
        return Err(RequestError::NotText);
    }
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        return Err(RequestError::NoCommand);
    };
    if let Some(board) = board_text(first) {
        let mut options = BoardOptions::default();
        while let Some(key) = words.next() {
            match key.to_ascii_lowercase().as_str() {
                "jacobyrule" => options.jacoby = Some(on_off("board", key, words.next())?),
                "crawfordrule" => options.crawford = Some(on_off("board", key, words.next())?),
                "beavers" => options.beavers = Some(on_off("board", key, words.next())?),
                "resignation" => {
                    let n = words
                        .next()
                        .and_then(|v| v.parse::<u32>().ok())
                        .filter(|n| (1..=3).contains(n))
                        .ok_or_else(|| bad("board", "`resignation` takes 1, 2 or 3"))?;
                    options.resignation = Some(n);
                }
                other => return Err(bad("board", format!("unknown option `{other}`"))),
            }
        }
        return Ok(Request::Board { board, options });
    }
    let command = first.to_ascii_lowercase();
    match command.as_str() {
        "evaluation" => {
            let sub = words.next().unwrap_or("");
            if !sub.eq_ignore_ascii_case("fibsboard") {
                return Err(bad(
                    "evaluation",
                    "expected `evaluation fibsboard board:...`",
                ));
            }
            let Some(board) = words.next().and_then(board_text) else {
                return Err(bad("evaluation", "missing the board"));
            };
            let mut options = EvaluationOptions::default();
            while let Some(key) = words.next() {
                match key.to_ascii_lowercase().as_str() {
                    "plies" => {
                        options.plies = words
                            .next()
                            .and_then(|v| v.parse::<u32>().ok())
                            .filter(|&n| n <= 7)
                            .ok_or_else(|| bad("evaluation", "`plies` takes 0 to 7"))?;
                    }
                    "cubeful" => options.cubeful = true,
                    "cubeless" => options.cubeful = false,
                    "noise" => {
                        options.noise = words
                            .next()
                            .and_then(|v| v.parse::<f64>().ok())
                            .filter(|x| x.is_finite() && (0.0..=1.0).contains(x))
                            .ok_or_else(|| {
                                bad("evaluation", "`noise` takes a number from 0 to 1")
                            })?;
                    }
                    "prune" => options.prune = true,
                    "deterministic" => options.deterministic = true,
                    other => return Err(bad("evaluation", format!("unknown option `{other}`"))),
                }
            }
            Ok(Request::Evaluation { board, options })
        }
        "version" => no_more(words, "version", Request::Version),
        "help" => no_more(words, "help", Request::Help),
        "exit" => no_more(words, "exit", Request::Exit),
        "quit" => no_more(words, "quit", Request::Exit),
        "set" => {
            let what = words.next().unwrap_or("");
            if !what.eq_ignore_ascii_case("debug") {
                return Err(bad("set", "only `set debug on|off` is supported"));
            }
            let on = on_off("set", "debug", words.next())?;
            no_more(words, "set", Request::SetDebug(on))
        }
        _ => Err(RequestError::UnknownCommand(
            first.chars().take(40).collect(),
        )),
    }
}

fn no_more<'a>(
    mut words: impl Iterator<Item = &'a str>,
    command: &'static str,
    r: Request,
) -> Result<Request, RequestError> {
    match words.next() {
        None => Ok(r),
        Some(w) => Err(bad(command, format!("unexpected `{w}`"))),
    }
}

/// The four lines of the `version` reply.
pub fn version_lines(engine: &str) -> [String; 4] {
    let v = env!("CARGO_PKG_VERSION");
    [
        "Interface: 2".to_string(),
        "RFBF: 0".to_string(),
        format!("Engine: {engine}"),
        format!("Software: stargammon {v}"),
    ]
}

/// The `help` reply: one line, as gnubg sends one line (clients read exactly one).
pub fn help_line() -> &'static str {
    "commands: board:... [jacobyrule on|off] [crawfordrule on|off] [resignation N] \
     [beavers on|off]; evaluation fibsboard board:... [plies N] [cubeful|cubeless] [noise X] \
     [prune] [deterministic]; version; help; set debug on|off; exit; quit"
}

/// The reply to `set debug on|off`, worded as gnubg words it.
pub fn debug_reply(on: bool) -> String {
    format!("Debug output {}", if on { "ON" } else { "OFF" })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::{legal_plays, Dice, Position};

    #[test]
    fn plays_are_written_step_by_step() {
        let dice = Dice::new(6, 6).unwrap_or(crate::game::ALL_ROLLS[0]);
        let plays = legal_plays(&Position::OPENING, dice);
        let texts: Vec<String> = plays
            .iter()
            .map(|p| format_play(p, MoveStyle::Gnubg))
            .collect();
        assert!(
            texts.iter().any(|t| t == "24/18 24/18 13/7 13/7"),
            "{texts:?}"
        );
    }

    #[test]
    fn requests_parse() {
        assert_eq!(parse_request(b"version"), Ok(Request::Version));
        assert_eq!(parse_request(b"  HELP "), Ok(Request::Help));
        assert_eq!(parse_request(b"quit"), Ok(Request::Exit));
        assert_eq!(parse_request(b"set debug ON"), Ok(Request::SetDebug(true)));
        assert_eq!(parse_request(b""), Err(RequestError::NoCommand));
        assert_eq!(parse_request(b"\xff\xfe"), Err(RequestError::NotText));
        assert!(matches!(
            parse_request(b"frobnicate"),
            Err(RequestError::UnknownCommand(_))
        ));
        let r = parse_request(b"board:a:b:0 jacobyrule off resignation 2 beavers on")
            .unwrap_or(Request::Help);
        assert_eq!(
            r,
            Request::Board {
                board: "board:a:b:0".to_string(),
                options: BoardOptions {
                    jacoby: Some(false),
                    crawford: None,
                    resignation: Some(2),
                    beavers: Some(true)
                }
            }
        );
        let r = parse_request(
            b"Evaluation FibsBoard board:x plies 1 cubeless noise 0.05 prune deterministic",
        )
        .unwrap_or(Request::Help);
        let Request::Evaluation { board, options } = r else {
            panic!("{r:?}");
        };
        assert_eq!(board, "board:x");
        assert_eq!(options.depth(), 3);
        assert!(!options.cubeful && options.prune && options.deterministic);
        assert_eq!(options.noise, 0.05);
        assert!(parse_request(b"evaluation fibsboard board:x plies x").is_err());
        assert!(parse_request(b"board:x resignation 9").is_err());
        // A wide letter where the keyword would end is no board (and no panic).
        assert!(matches!(
            parse_request("boardé:1:2".as_bytes()),
            Err(RequestError::UnknownCommand(_))
        ));
        assert!(parse_request("evaluation fibsboard boardé:1".as_bytes()).is_err());
    }

    #[test]
    fn player_replies_never_resign_or_error() {
        for a in [
            Action::Roll,
            Action::Double,
            Action::Take,
            Action::Drop,
            Action::Beaver,
            Action::AcceptResignation,
            Action::RejectResignation,
            Action::Nothing,
        ] {
            if let Some(r) = player_reply(&a) {
                assert!(!r.starts_with("re") && !r.starts_with("Error"), "{r}");
            }
        }
    }
}
