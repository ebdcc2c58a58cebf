//! The bgammon.org line protocol as a client sees it: the server's events (one per line,
//! JSON after `loginjson`) read into typed values, and the commands the bot writes.
//!
//! Reading never panics: a line that is not UTF-8, not JSON, has no `Type`, an unknown
//! `Type` or a field of the wrong shape is a [`ProtocolError`] naming what was wrong, and
//! the caller logs it and reads on. Text lines (the `hello` greeting before login, a
//! server in text mode) are [`Event::Text`].

use std::fmt;

use serde::Deserialize;

/// The longest line the client keeps; a longer one is skipped (a board is under 1 KiB).
pub const MAX_LINE: usize = 64 * 1024;

/// Why a line is not an event the client understands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolError {
    /// The line's bytes are not UTF-8.
    NotUtf8,
    /// The line is longer than [`MAX_LINE`].
    TooLong(usize),
    /// A line starting with `{` that is not a JSON object with a string `Type`.
    NotJson(String),
    /// A JSON event of a type this client does not know.
    UnknownType(String),
    /// A known event whose fields do not have the documented shape.
    BadFields { kind: String, why: String },
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::NotUtf8 => f.write_str("the line is not UTF-8"),
            ProtocolError::TooLong(n) => write!(f, "a line of {n} bytes (at most {MAX_LINE})"),
            ProtocolError::NotJson(why) => write!(f, "not a JSON event: {why}"),
            ProtocolError::UnknownType(t) => write!(f, "unknown event type {t:?}"),
            ProtocolError::BadFields { kind, why } => write!(f, "a {kind} event: {why}"),
        }
    }
}

impl std::error::Error for ProtocolError {}

/// One side of a game as the board event shows it (`Player1` is always the reader).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PlayerInfo {
    pub number: i64,
    pub name: String,
    pub rating: i64,
    pub points: i64,
}

/// The game state of a `board` event, from the reader's side: the server turns the board
/// round for its second player, so the reader is always player 1, owns the positive
/// counts and moves from space 24 towards space 1. Numbers are kept wide here so that
/// any value reads; [`super::board`] checks the ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GameState {
    pub player1: PlayerInfo,
    pub player2: PlayerInfo,
    pub variant: i64,
    /// 28 spaces: 0 the reader's borne-off checkers, 1..=24 the points, 25 the
    /// opponent's borne-off checkers (negative), 26 the reader's bar, 27 the opponent's
    /// bar (negative).
    pub board: Vec<i64>,
    /// 0 before the opening roll, 1 the reader, 2 the opponent.
    pub turn: i64,
    pub roll1: i64,
    pub roll2: i64,
    pub roll3: i64,
    /// Checker steps of the turn so far.
    pub moves: Option<Vec<Vec<i64>>>,
    /// 0 while the game runs, else who won it (1 the reader).
    pub winner: i64,
    /// The match length.
    pub points: i64,
    /// 0 not yet, 1 this is the Crawford game, 2 it has been played.
    pub crawford: i64,
    pub double_value: i64,
    /// 0 centred, 1 the reader owns the cube, 2 the opponent.
    pub double_player: i64,
    pub double_offered: bool,
    pub player_number: i64,
    /// The single steps the reader may make now (reader's numbering).
    pub available: Option<Vec<Vec<i64>>>,
    pub forced: bool,
    pub spectating: bool,
}

/// A server event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A line that is not JSON (the `hello` greeting before login, text-mode output).
    Text(String),
    Welcome {
        name: String,
    },
    Ping {
        message: String,
    },
    Notice {
        message: String,
    },
    Say {
        player: String,
        message: String,
    },
    List {
        games: usize,
    },
    FailedCreate {
        reason: String,
    },
    /// `player` joined match `game_id` (the reader itself or its opponent).
    Joined {
        game_id: i64,
        player: String,
    },
    FailedJoin {
        reason: String,
    },
    Left {
        player: String,
    },
    FailedLeave {
        reason: String,
    },
    Board(Box<GameState>),
    Rolled {
        player: String,
        roll1: i64,
        roll2: i64,
    },
    FailedRoll {
        reason: String,
    },
    Moved {
        player: String,
        steps: usize,
    },
    FailedMove {
        reason: String,
    },
    FailedOk {
        reason: String,
    },
    /// `player` won a game, worth `points` in a match longer than one point.
    Win {
        player: String,
        points: i64,
    },
    /// Known events the bot has no use for (settings, achievements, replays, history,
    /// help).
    Ignored(String),
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Head {
    #[serde(rename = "Type")]
    kind: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct Common {
    player: String,
    player_name: String,
    message: String,
    reason: String,
    #[serde(rename = "GameID")]
    game_id: i64,
    roll1: i64,
    roll2: i64,
    points: i64,
    /// A list of matches in `list`, a count in `welcome`.
    games: serde_json::Value,
    moves: Option<Vec<Vec<i64>>>,
}

/// Reads one line (without its newline; a trailing `\r` is ignored).
pub fn parse_line(line: &[u8]) -> Result<Event, ProtocolError> {
    if line.len() > MAX_LINE {
        return Err(ProtocolError::TooLong(line.len()));
    }
    let text = std::str::from_utf8(line).map_err(|_| ProtocolError::NotUtf8)?;
    let text = text.trim_end_matches('\r');
    if !text.trim_start().starts_with('{') {
        return Ok(Event::Text(text.to_string()));
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ProtocolError::NotJson(e.to_string()))?;
    let head: Head =
        Head::deserialize(&value).map_err(|e| ProtocolError::NotJson(e.to_string()))?;
    let bad = |why: String| ProtocolError::BadFields {
        kind: head.kind.clone(),
        why,
    };
    if head.kind == "board" {
        let state = GameState::deserialize(&value).map_err(|e| bad(e.to_string()))?;
        return Ok(Event::Board(Box::new(state)));
    }
    let c = Common::deserialize(&value).map_err(|e| bad(e.to_string()))?;
    Ok(match head.kind.as_str() {
        "welcome" => Event::Welcome {
            name: c.player_name,
        },
        "ping" => Event::Ping { message: c.message },
        "notice" => Event::Notice { message: c.message },
        "say" => Event::Say {
            player: c.player,
            message: c.message,
        },
        "list" => Event::List {
            games: c.games.as_array().map_or(0, |g| g.len()),
        },
        "failedcreate" => Event::FailedCreate { reason: c.reason },
        "joined" => Event::Joined {
            game_id: c.game_id,
            player: c.player,
        },
        "failedjoin" => Event::FailedJoin { reason: c.reason },
        "left" => Event::Left { player: c.player },
        "failedleave" => Event::FailedLeave { reason: c.reason },
        "rolled" => Event::Rolled {
            player: c.player,
            roll1: c.roll1,
            roll2: c.roll2,
        },
        "failedroll" => Event::FailedRoll { reason: c.reason },
        "moved" => Event::Moved {
            player: c.player,
            steps: c.moves.map_or(0, |m| m.len()),
        },
        "failedmove" => Event::FailedMove { reason: c.reason },
        "failedok" => Event::FailedOk { reason: c.reason },
        "win" => Event::Win {
            player: c.player,
            points: c.points,
        },
        "settings" | "achievements" | "replay" | "history" | "help" => Event::Ignored(head.kind),
        other => return Err(ProtocolError::UnknownType(other.to_string())),
    })
}

/// Whether `name` may log in as a bot: `bot_` (any case) then letters, digits and `_`,
/// at most 18 characters in all (the server's limit), and not only digits after the
/// prefix.
pub fn valid_bot_name(name: &str) -> bool {
    name.len() > 4
        && name.len() <= 18
        && name[..4].eq_ignore_ascii_case("bot_")
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The name the server gives a bot account logged in as `user` (`BOT_` and the rest).
pub fn server_name(user: &str) -> String {
    format!("BOT_{}", user.get(4..).unwrap_or("").to_ascii_lowercase())
}

/// A space in the reader's numbering as the `move` command writes it.
pub fn space_text(space: u8) -> String {
    match space {
        0 => "off".to_string(),
        25 => "bar".to_string(),
        s => s.to_string(),
    }
}

/// Shows a name or message from the server safely in a log line (control characters and
/// other odd characters escaped, at most 60 characters).
pub fn shown(text: &str) -> String {
    let cut: String = text.chars().take(60).collect();
    let mut out = cut.escape_debug().to_string();
    if text.chars().count() > 60 {
        out.push('…');
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn events_read_as_the_server_writes_them() {
        let w = parse_line(
            br#"{"Type":"welcome","Player":"","PlayerName":"BOT_star","Clients":3,"Games":1}"#,
        );
        assert_eq!(
            w.unwrap(),
            Event::Welcome {
                name: "BOT_star".into()
            }
        );
        let j = parse_line(br#"{"Type":"joined","Player":"alice","GameID":7,"PlayerNumber":2}"#);
        assert_eq!(
            j.unwrap(),
            Event::Joined {
                game_id: 7,
                player: "alice".into()
            }
        );
        let m = parse_line(br#"{"Type":"moved","Player":"alice","Moves":[[24,18],[13,11]]}"#);
        assert_eq!(
            m.unwrap(),
            Event::Moved {
                player: "alice".into(),
                steps: 2
            }
        );
        let b = parse_line(
            br#"{"Type":"board","Player":"","Player1":{"Number":1,"Name":"BOT_star","Points":2},"Player2":{"Number":2,"Name":"alice"},"Variant":0,"Board":[0,-2,0,0,0,0,5,0,3,0,0,0,-5,5,0,0,0,-3,0,-5,0,0,0,0,2,0,0,0],"Turn":1,"Roll1":3,"Roll2":1,"Roll3":0,"Moves":null,"Winner":0,"Points":5,"Crawford":0,"DoubleValue":1,"DoublePlayer":0,"DoubleOffered":false,"PlayerNumber":1,"Available":[[8,5],[6,5]],"Forced":false,"Spectating":false}"#,
        );
        let Event::Board(s) = b.unwrap() else {
            panic!("not a board")
        };
        assert_eq!((s.turn, s.roll1, s.roll2, s.points), (1, 3, 1, 5));
        assert_eq!(s.player1.points, 2);
        assert_eq!(s.board.len(), 28);
        assert_eq!(
            parse_line(b"hello Welcome").unwrap(),
            Event::Text("hello Welcome".into())
        );
    }

    #[test]
    fn bad_lines_are_typed_errors() {
        assert_eq!(parse_line(b"\xff\xfe{"), Err(ProtocolError::NotUtf8));
        assert!(matches!(
            parse_line(b"{not json"),
            Err(ProtocolError::NotJson(_))
        ));
        assert!(matches!(
            parse_line(b"{\"Type\":5}"),
            Err(ProtocolError::NotJson(_))
        ));
        assert_eq!(
            parse_line(br#"{"Type":"fireworks"}"#),
            Err(ProtocolError::UnknownType("fireworks".into()))
        );
        assert!(matches!(
            parse_line(br#"{"Type":"board","Board":"many"}"#),
            Err(ProtocolError::BadFields { .. })
        ));
        assert!(matches!(
            parse_line(br#"{"Type":"joined","GameID":"x"}"#),
            Err(ProtocolError::BadFields { .. })
        ));
        let long = vec![b'a'; MAX_LINE + 1];
        assert_eq!(parse_line(&long), Err(ProtocolError::TooLong(MAX_LINE + 1)));
    }

    #[test]
    fn any_bytes_read_without_a_panic() {
        let mut rng = crate::game::Rng::seeded(5);
        let board = br#"{"Type":"board","Board":[0,-2,0,0,0,0,5,0,3,0,0,0,-5,5,0,0,0,-3,0,-5,0,0,0,0,2,0,0,0],"Turn":1,"Roll1":3,"Roll2":1,"Points":5,"DoubleValue":1,"Player2":{"Name":"a"}}"#;
        for _ in 0..20_000 {
            let mut line = board.to_vec();
            for _ in 0..1 + rng.index(4) {
                let i = rng.index(line.len());
                line[i] = rng.below(256) as u8;
            }
            if let Ok(Event::Board(s)) = parse_line(&line) {
                let _ = crate::bgammon::board::read(&s);
            }
            let len = rng.index(40);
            let junk: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
            let _ = parse_line(&junk);
        }
    }

    #[test]
    fn bot_names() {
        assert!(valid_bot_name("bot_star"));
        assert!(valid_bot_name("BOT_Star_2"));
        assert!(!valid_bot_name("star"));
        assert!(!valid_bot_name("bot_"));
        assert!(!valid_bot_name("bot_st ar"));
        assert!(!valid_bot_name("bot_abcdefghijklmnop"));
        assert_eq!(server_name("bot_Star"), "BOT_star");
        assert_eq!(shown("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
    }
}
