//! Reading what a FIBS-style server sends: byte framing and line classification.
//!
//! The server speaks telnet-flavoured text: lines end with CRLF, telnet negotiation bytes
//! (0xFF and two more) may appear around the password prompt, the `login: ` prompt has no
//! newline, and interactive prompts (`> `) may precede a line. [`LineBuffer`] turns raw
//! bytes into clean lines and spots the bare prompt; [`classify`] maps each line to the
//! few things a bot reacts to. The bot decides from `board:` lines; the prose lines only
//! trigger requests for a fresh board, joins and bookkeeping, so the classifier is
//! deliberately tolerant about wording it does not need.

use std::fmt;

const IAC: u8 = 0xFF;
/// Telnet sub-negotiation begin and end.
const SB: u8 = 250;
const SE: u8 = 240;

/// The longest line kept, in bytes; the rest of a longer line is dropped (no server line
/// comes near it: boards are about 200 bytes).
pub const MAX_LINE: usize = 16 * 1024;

/// Splits a byte stream into lines with telnet bytes, CR and prompts removed.
#[derive(Debug, Default)]
pub struct LineBuffer {
    pending: Vec<u8>,
    /// Telnet state: bytes still to skip after an IAC, or inside a sub-negotiation.
    skip: u8,
    in_sub: bool,
    after_iac_in_sub: bool,
    /// The line being read is over [`MAX_LINE`]: it is dropped whole.
    overlong: bool,
}

impl LineBuffer {
    pub fn new() -> LineBuffer {
        LineBuffer::default()
    }

    /// Adds raw bytes; returns the complete lines they finish.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        for &b in bytes {
            if self.in_sub {
                if self.after_iac_in_sub {
                    self.after_iac_in_sub = false;
                    if b == SE {
                        self.in_sub = false;
                    }
                } else if b == IAC {
                    self.after_iac_in_sub = true;
                }
                continue;
            }
            if self.skip > 0 {
                // First byte after IAC: a command. WILL/WONT/DO/DONT take one more byte,
                // SB opens a sub-negotiation, IAC IAC is a literal 0xFF (dropped: not text).
                if self.skip == 2 {
                    self.skip = match b {
                        251..=254 => 1,
                        SB => {
                            self.in_sub = true;
                            0
                        }
                        _ => 0,
                    };
                } else {
                    self.skip = 0;
                }
                continue;
            }
            match b {
                IAC => self.skip = 2,
                b'\n' => {
                    let raw = std::mem::take(&mut self.pending);
                    if !std::mem::take(&mut self.overlong) {
                        lines.push(clean_line(&raw));
                    }
                }
                b'\r' | 0 => {}
                _ if self.pending.len() >= MAX_LINE => {
                    self.overlong = true;
                    self.pending.clear();
                }
                _ => self.pending.push(b),
            }
        }
        lines
    }

    /// The unfinished text after the last newline, cleaned, e.g. a `login: ` prompt.
    pub fn partial(&self) -> String {
        clean_line(&self.pending)
    }

    /// True when the unfinished text is the login prompt.
    pub fn at_login_prompt(&self) -> bool {
        let p = self.partial();
        p.trim_end().ends_with("login:")
    }

    /// Forgets the unfinished text (after it has been answered).
    pub fn clear_partial(&mut self) {
        self.pending.clear();
    }
}

fn clean_line(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let mut s: &str = &text;
    // Prompts may stack up (`> > board:...`) when several lines arrive at once.
    loop {
        let t = s.trim_start_matches(' ');
        if let Some(rest) = t.strip_prefix('>') {
            s = rest.strip_prefix(' ').unwrap_or(rest);
        } else {
            s = t;
            break;
        }
    }
    s.trim_end().to_string()
}

/// Settings from the `2` line (own info) that the bot enforces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnInfo {
    pub name: String,
    pub autoboard: bool,
    pub autodouble: bool,
    pub away: bool,
    pub bell: bool,
    pub crawford: bool,
    pub moreboards: bool,
    pub ready: bool,
    pub redoubles: String,
}

/// Why a `2` line is not own info.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnInfoError {
    TooShort(usize),
    BadFlag { field: &'static str, value: String },
}

impl fmt::Display for OwnInfoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OwnInfoError::TooShort(n) => write!(f, "own-info line has {n} fields, expected 22"),
            OwnInfoError::BadFlag { field, value } => {
                write!(f, "own-info field {field} is {value:?}, expected 0 or 1")
            }
        }
    }
}

impl std::error::Error for OwnInfoError {}

impl OwnInfo {
    /// Parses `2 name allowpip autoboard autodouble automove away bell crawford double
    /// experience greedy moreboards moves notify rating ratings ready redoubles report
    /// silent timezone`.
    pub fn parse(line: &str) -> Result<OwnInfo, OwnInfoError> {
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.len() < 19 || t[0] != "2" {
            return Err(OwnInfoError::TooShort(t.len()));
        }
        let flag = |i: usize, field: &'static str| -> Result<bool, OwnInfoError> {
            match t[i] {
                "0" => Ok(false),
                "1" => Ok(true),
                v => Err(OwnInfoError::BadFlag {
                    field,
                    value: v.to_string(),
                }),
            }
        };
        Ok(OwnInfo {
            name: t[1].to_string(),
            autoboard: flag(3, "autoboard")?,
            autodouble: flag(4, "autodouble")?,
            away: flag(6, "away")?,
            bell: flag(7, "bell")?,
            crawford: flag(8, "crawford")?,
            moreboards: flag(12, "moreboards")?,
            ready: flag(17, "ready")?,
            redoubles: t[18].to_string(),
        })
    }

    /// The commands that bring these settings to what the bot needs, in order.
    /// `toggle` flips a setting, so only settings that are wrong are toggled.
    pub fn fixes(&self) -> Vec<String> {
        let mut out = vec!["set boardstyle 3".to_string()];
        if !self.autoboard {
            out.push("toggle autoboard".into());
        }
        if !self.moreboards {
            out.push("toggle moreboards".into());
        }
        if !self.crawford {
            out.push("toggle crawford".into());
        }
        if self.autodouble {
            out.push("toggle autodouble".into());
        }
        if self.bell {
            out.push("toggle bell".into());
        }
        if self.redoubles != "none" && self.redoubles != "0" {
            out.push("set redoubles none".into());
        }
        if !self.ready {
            out.push("toggle ready".into());
        }
        if self.away {
            out.push("back".into());
        }
        out
    }
}

/// Whether `name` can be a player's name: 1 to 32 ASCII letters, digits or `_`. Names
/// that are not are never put into a command.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A CLIP who-info line: `5 name opponent watching ready away rating experience idle
/// login hostname client email`.
#[derive(Debug, Clone, PartialEq)]
pub struct WhoInfo {
    pub name: String,
    /// The opponent of the match the player is in (`-`: none).
    pub opponent: Option<String>,
    pub ready: bool,
    pub away: bool,
    pub rating: f64,
    pub experience: u32,
}

impl WhoInfo {
    /// Reads a `5` line; None when it is not one.
    pub fn parse(line: &str) -> Option<WhoInfo> {
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.len() < 8 || t[0] != "5" {
            return None;
        }
        let flag = |s: &str| match s {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        };
        let rating: f64 = t[6].parse().ok().filter(|r: &f64| r.is_finite())?;
        Some(WhoInfo {
            name: t[1].to_string(),
            opponent: (t[2] != "-").then(|| t[2].to_string()),
            ready: flag(t[4])?,
            away: flag(t[5])?,
            rating,
            experience: t[7].parse().ok()?,
        })
    }
}

/// What kind of match an invitation is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InviteKind {
    Points(u32),
    Unlimited,
    Resume,
}

/// Who won something, as the server words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    Me,
    Player(String),
}

/// One server line, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum ClipLine {
    /// `1 <user> <time> <host>`: logged in.
    Welcome { user: String },
    /// `2 ...`: own settings.
    OwnInfo(OwnInfo),
    /// `3`..`6` and who-info lines: login chatter.
    LoginBlock,
    /// `board:...` (the whole line).
    Board(String),
    /// `<name> wants to play ...` invitation.
    Invitation { from: String, kind: InviteKind },
    /// A match started or was resumed with `opponent`.
    MatchStarted { opponent: String },
    /// `... Your running match was loaded.`
    MatchLoaded,
    /// `Starting a new game with <name>.`
    NewGame,
    /// A prose line saying the bot must act now (`It's your turn ...`, `Please move ...`,
    /// `You make the first move.`).
    YourTurn,
    /// `<name> doubles. Type 'accept' or 'reject'.`
    Doubled { by: String },
    /// `<name> wants to resign. You will win N points. ...`
    ResignOffer { by: String, points: u32 },
    /// `... wins the game and gets N points.` / `You win the game and get N points.`
    GameOver { winner: Who, points: u32 },
    /// `Type 'join' if you want to play the next game, ...`
    JoinNextGame,
    /// `... wins the N point match ...` / `You win the N point match ...`
    MatchOver { winner: Who },
    /// A player left, dropped or logged out (`8 <name> <name> drops connection.`,
    /// `<name> logs out. The game was saved.`); a match with them, if any, was saved.
    OpponentGone { name: String },
    /// `7 <name> <name> logs in.`: a player logged in.
    LoggedIn { name: String },
    /// An error about our last command (`It's not your turn`, `You must give N moves`, ...).
    CommandError(String),
    /// `** You're not playing.`: a game command came while no game is on (between games,
    /// or the match is over or saved).
    NotPlaying,
    /// Another player's invitation was refused because we are not ready.
    Refusing,
    /// `5 ...`: a player's who-info.
    PlayerInfo(WhoInfo),
    /// The header of `show saved`'s table (`opponent matchlength score ...`).
    SavedHeader,
    /// A row of `show saved`: `[*]NAME LENGTH SCORE - SCORE`; a star in front means the
    /// opponent is logged in.
    SavedEntry {
        name: String,
        online: bool,
        /// None: unlimited.
        length: Option<u32>,
        score: (u32, u32),
    },
    /// `show saved` has nothing to list.
    NoSaved,
    /// `NAME has N saved games.` (`show savedcount NAME`).
    SavedCount { name: String, count: u32 },
    /// Anything else.
    Other(String),
}

/// A row of `show saved`'s table, if `words` are one.
fn saved_entry(words: &[&str]) -> Option<ClipLine> {
    if words.len() < 3 {
        return None;
    }
    let raw = words[0];
    let name = raw.trim_start_matches('*');
    if !valid_name(name) || name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let length = match words[1] {
        "unlimited" => None,
        n => Some(n.parse::<u32>().ok()?),
    };
    let score: String = words[2..].concat();
    let (a, b) = score.split_once('-')?;
    Some(ClipLine::SavedEntry {
        name: name.to_string(),
        online: raw.starts_with('*'),
        length,
        score: (a.parse().ok()?, b.parse().ok()?),
    })
}

fn number_before(words: &[&str], marker: &str) -> Option<u32> {
    let i = words.iter().position(|w| *w == marker)?;
    if i == 0 {
        return None;
    }
    words[i - 1].parse().ok()
}

/// Classifies one cleaned line (see [`LineBuffer`]).
pub fn classify(line: &str) -> ClipLine {
    let line = line.trim();
    if line.starts_with("board:") {
        return ClipLine::Board(line.to_string());
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words.first().copied().unwrap_or("");
    // CLIP's numbered login and logout notices name the player in their second word.
    match (first, words.get(1)) {
        ("7", Some(name)) => {
            return ClipLine::LoggedIn {
                name: name.to_string(),
            }
        }
        ("8", Some(name)) => {
            return ClipLine::OpponentGone {
                name: name.to_string(),
            }
        }
        _ => {}
    }
    match first {
        "1" if words.len() >= 2 => {
            return ClipLine::Welcome {
                user: words[1].to_string(),
            }
        }
        "2" => {
            if let Ok(info) = OwnInfo::parse(line) {
                return ClipLine::OwnInfo(info);
            }
        }
        "5" => {
            return match WhoInfo::parse(line) {
                Some(w) => ClipLine::PlayerInfo(w),
                None => ClipLine::LoginBlock,
            }
        }
        "3" | "4" | "6" => return ClipLine::LoginBlock,
        _ => {}
    }
    let unstarred = line.trim_start_matches("**").trim();
    if first == "opponent" && line.contains("matchlength") {
        return ClipLine::SavedHeader;
    }
    if line.contains("saved game") {
        // `alice has 3 saved games.`, `alice has no saved games.`, `no saved games.`
        if words.get(1) == Some(&"has") && words.len() >= 4 {
            let count = match words[2] {
                "no" => Some(0),
                n => n.parse().ok(),
            };
            if let Some(count) = count {
                return ClipLine::SavedCount {
                    name: first.to_string(),
                    count,
                };
            }
        }
        if line.contains("no saved games") {
            return ClipLine::NoSaved;
        }
    }
    if let Some(entry) = (words.len() <= 6).then(|| saved_entry(&words)).flatten() {
        return entry;
    }
    if line.contains("wants to play") && line.contains("match with you") {
        let kind = if line.contains("unlimited") {
            InviteKind::Unlimited
        } else {
            match number_before(&words, "point") {
                Some(n) => InviteKind::Points(n),
                None => return ClipLine::Other(line.to_string()),
            }
        };
        return ClipLine::Invitation {
            from: first.to_string(),
            kind,
        };
    }
    if line.contains("wants to resume a saved match with you") {
        return ClipLine::Invitation {
            from: first.to_string(),
            kind: InviteKind::Resume,
        };
    }
    {
        // `** Player alice has joined you for a 5 point match.`, also without `Player`.
        let rest = unstarred.strip_prefix("Player ").unwrap_or(unstarred);
        let name = rest
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_end_matches('.')
            .to_string();
        if rest.contains("has joined you") && !name.is_empty() {
            return ClipLine::MatchStarted { opponent: name };
        }
        if rest.contains("has left the game") && !name.is_empty() {
            return ClipLine::OpponentGone { name };
        }
    }
    if let Some(rest) = unstarred.strip_prefix("You are now playing") {
        // `... a 5 point match with alice` or `... with alice. Your running match was
        // loaded.`: the name is the word after `with`.
        let mut after_with = rest.split_whitespace().skip_while(|w| *w != "with").skip(1);
        let name = after_with
            .next()
            .unwrap_or("")
            .trim_end_matches('.')
            .to_string();
        if !name.is_empty() {
            return ClipLine::MatchStarted { opponent: name };
        }
    }
    if line.contains("Your running match was loaded") {
        return ClipLine::MatchLoaded;
    }
    if line.contains("drops connection")
        || (words.get(1) == Some(&"logs") && words.get(2) == Some(&"out."))
        || (line.ends_with("The game was saved.") && !first.is_empty() && first != "**")
    {
        return ClipLine::OpponentGone {
            name: first.to_string(),
        };
    }
    if line.starts_with("Starting a new game with") {
        return ClipLine::NewGame;
    }
    if line.starts_with("It's your turn")
        || line.starts_with("Please move")
        || line.starts_with("You make the first move")
    {
        return ClipLine::YourTurn;
    }
    if words.len() >= 2 && words[1] == "doubles." {
        return ClipLine::Doubled {
            by: first.to_string(),
        };
    }
    if line.contains("wants to resign") {
        let points = number_before(&words, "points.")
            .or_else(|| number_before(&words, "point."))
            .unwrap_or(0);
        return ClipLine::ResignOffer {
            by: first.to_string(),
            points,
        };
    }
    // Games that end by a refused double or an accepted resignation are worded apart:
    // `alice gives up. You win 1 point.`, `You give up. alice wins 2 points.`,
    // `You accept and win 2 points.`, `alice accepts and wins 1 point.`
    let gives_up = matches!(words.get(1), Some(&"gives" | &"give")) && words.get(2) == Some(&"up.");
    let ended_early = gives_up
        || (words.get(1) == Some(&"accept") || words.get(1) == Some(&"accepts"))
            && words.get(2) == Some(&"and")
            && (words.get(3) == Some(&"win") || words.get(3) == Some(&"wins"));
    if ended_early {
        let points = number_before(&words, "points.")
            .or_else(|| number_before(&words, "point."))
            .unwrap_or(0);
        // `X give(s) up.`: the other side wins; `X accept(s) and win(s)`: X wins.
        let winner = match (first == "You", gives_up) {
            (true, false) | (false, true) => Who::Me,
            (true, true) => Who::Player(words.get(3).unwrap_or(&"").to_string()),
            (false, false) => Who::Player(first.to_string()),
        };
        return ClipLine::GameOver { winner, points };
    }
    if line.starts_with("You win the game and get") || line.contains(" wins the game and gets ") {
        let points = number_before(&words, "points.")
            .or_else(|| number_before(&words, "point."))
            .or_else(|| number_before(&words, "points"))
            .or_else(|| number_before(&words, "point"))
            .unwrap_or(0);
        let winner = if first == "You" {
            Who::Me
        } else {
            Who::Player(first.to_string())
        };
        return ClipLine::GameOver { winner, points };
    }
    if line.starts_with("Type 'join' if you want to play the next game") {
        return ClipLine::JoinNextGame;
    }
    if (line.starts_with("You win the ") || line.contains(" wins the "))
        && line.contains("point match")
    {
        let winner = if first == "You" {
            Who::Me
        } else {
            Who::Player(first.to_string())
        };
        return ClipLine::MatchOver { winner };
    }
    if unstarred.starts_with("You're not playing") {
        return ClipLine::NotPlaying;
    }
    let normal_cant_move = unstarred == "You can't move.";
    if unstarred.starts_with("It's not your turn")
        || unstarred.starts_with("You must give")
        || unstarred.starts_with("Error")
        || (unstarred.starts_with("You can't") && !normal_cant_move)
        || unstarred.starts_with("There's no double")
    {
        return ClipLine::CommandError(line.to_string());
    }
    if line.contains("is refusing games") {
        return ClipLine::Refusing;
    }
    ClipLine::Other(line.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn telnet_bytes_crlf_and_prompts_are_removed() {
        let mut b = LineBuffer::new();
        let mut input = b"Welcome\r\n\xff\xfb\x01password\xff\xfc\x01\r\n> board:You:x\r\n> > 1 bot 123 host\r\nlogin: ".to_vec();
        input.extend_from_slice(b"");
        let lines = b.push(&input);
        assert_eq!(
            lines,
            vec!["Welcome", "password", "board:You:x", "1 bot 123 host"]
        );
        assert!(b.at_login_prompt());
        b.clear_partial();
        assert!(!b.at_login_prompt());
    }

    #[test]
    fn bytes_split_anywhere_give_the_same_lines() {
        let input = b"abc\r\n\xff\xfd\x18def\r\n> ghi\r\nlogin: ";
        for cut in 0..input.len() {
            let mut b = LineBuffer::new();
            let mut lines = b.push(&input[..cut]);
            lines.extend(b.push(&input[cut..]));
            assert_eq!(lines, vec!["abc", "def", "ghi"], "cut at {cut}");
            assert!(b.at_login_prompt());
        }
    }

    #[test]
    fn an_overlong_line_is_dropped_whole() {
        let mut b = LineBuffer::new();
        let mut input = vec![b'x'; MAX_LINE * 3];
        input.extend_from_slice(b"\r\nnext\r\n");
        assert_eq!(b.push(&input), vec!["next"]);
        assert!(b.pending.capacity() <= 2 * MAX_LINE);
    }

    #[test]
    fn subnegotiation_is_skipped() {
        let mut b = LineBuffer::new();
        let lines = b.push(b"a\xff\xfa\x18\x01\xff\xf0b\r\n");
        assert_eq!(lines, vec!["ab"]);
    }

    #[test]
    fn own_info_is_read_and_fixed() {
        let line = "2 bot 1 0 1 0 1 1 0 1 5 0 0 0 1 1500.00 0 0 unlimited 1 0 UTC";
        let info = OwnInfo::parse(line).unwrap();
        assert!(!info.ready && info.away && info.autodouble && info.bell);
        assert_eq!(
            info.fixes(),
            vec![
                "set boardstyle 3",
                "toggle autoboard",
                "toggle moreboards",
                "toggle crawford",
                "toggle autodouble",
                "toggle bell",
                "set redoubles none",
                "toggle ready",
                "back"
            ]
        );
        let good = "2 bot 1 1 0 0 0 0 1 1 5 0 1 0 1 1500.00 0 1 none 1 0 UTC";
        assert_eq!(
            OwnInfo::parse(good).unwrap().fixes(),
            vec!["set boardstyle 3"]
        );
        assert!(OwnInfo::parse("2 bot 1 x").is_err());
    }

    #[test]
    fn lines_are_classified() {
        use ClipLine::*;
        assert_eq!(
            classify("1 bot 1041253132 host.example"),
            Welcome { user: "bot".into() }
        );
        assert_eq!(
            classify("alice wants to play a 5 point match with you."),
            Invitation {
                from: "alice".into(),
                kind: InviteKind::Points(5)
            }
        );
        assert_eq!(
            classify("alice wants to play an unlimited match with you."),
            Invitation {
                from: "alice".into(),
                kind: InviteKind::Unlimited
            }
        );
        assert_eq!(
            classify("alice wants to resume a saved match with you."),
            Invitation {
                from: "alice".into(),
                kind: InviteKind::Resume
            }
        );
        assert_eq!(
            classify("** Player alice has joined you for a 5 point match."),
            MatchStarted {
                opponent: "alice".into()
            }
        );
        assert_eq!(
            classify("** alice has joined you. Your running match was loaded."),
            MatchStarted {
                opponent: "alice".into()
            }
        );
        assert_eq!(
            classify("** You are now playing a 5 point match with alice"),
            MatchStarted {
                opponent: "alice".into()
            }
        );
        assert_eq!(
            classify("alice doubles. Type 'accept' or 'reject'."),
            Doubled { by: "alice".into() }
        );
        assert_eq!(
            classify("alice wants to resign. You will win 2 points. Type 'accept' or 'reject'."),
            ResignOffer {
                by: "alice".into(),
                points: 2
            }
        );
        assert_eq!(
            classify("You win the game and get 2 points. Congratulations!"),
            GameOver {
                winner: Who::Me,
                points: 2
            }
        );
        assert_eq!(
            classify("alice wins the game and gets 1 point. Sorry."),
            GameOver {
                winner: Who::Player("alice".into()),
                points: 1
            }
        );
        assert_eq!(
            classify("You win the 5 point match 5-1 ."),
            MatchOver { winner: Who::Me }
        );
        assert_eq!(
            classify("alice wins the 5 point match 1-5 ."),
            MatchOver {
                winner: Who::Player("alice".into())
            }
        );
        assert_eq!(
            classify("Type 'join' if you want to play the next game, type 'leave' if you don't."),
            JoinNextGame
        );
        assert_eq!(
            classify("** Player alice has left the game. The game was saved."),
            OpponentGone {
                name: "alice".into()
            }
        );
        assert_eq!(
            classify("alice drops connection. The game was saved."),
            OpponentGone {
                name: "alice".into()
            }
        );
        assert_eq!(classify("It's your turn. Please roll or double."), YourTurn);
        assert_eq!(classify("Please move 2 pieces."), YourTurn);
        assert!(matches!(
            classify("** It's not your turn to move."),
            CommandError(_)
        ));
        assert!(matches!(
            classify("** You must give 2 moves"),
            CommandError(_)
        ));
        assert_eq!(classify("You can't move."), Other("You can't move.".into()));
        assert_eq!(classify("** You're not playing."), NotPlaying);
        assert_eq!(
            classify("5 alice - - 0 1 1612.20 2011 4 1041253100 host - -"),
            PlayerInfo(WhoInfo {
                name: "alice".into(),
                opponent: None,
                ready: false,
                away: true,
                rating: 1612.2,
                experience: 2011,
            })
        );
        assert_eq!(
            classify("  opponent          matchlength   score (your points first)"),
            SavedHeader
        );
        assert_eq!(
            classify("  *alice                5               3 -  1"),
            SavedEntry {
                name: "alice".into(),
                online: true,
                length: Some(5),
                score: (3, 1)
            }
        );
        assert_eq!(
            classify("   bob          unlimited              0 - 12"),
            SavedEntry {
                name: "bob".into(),
                online: false,
                length: None,
                score: (0, 12)
            }
        );
        assert_eq!(classify("no saved games."), NoSaved);
        assert_eq!(
            classify("alice has 3 saved games."),
            SavedCount {
                name: "alice".into(),
                count: 3
            }
        );
        assert_eq!(
            classify("alice has no saved games."),
            SavedCount {
                name: "alice".into(),
                count: 0
            }
        );
        // Names that are no player's are told apart, and odd score rows are other lines.
        assert!(
            valid_name("alice_2")
                && !valid_name("al ice")
                && !valid_name("")
                && !valid_name("al\u{1}")
        );
        assert!(matches!(classify("  *gh\u{2}ost 5 1 - 2"), Other(_)));
        assert!(matches!(
            classify("score in 3 point match: You-2 alice-0"),
            Other(_)
        ));
        assert_eq!(classify("** bot is refusing games."), Refusing);
        assert!(matches!(classify("board:You:alice:5:0"), Board(_)));
        assert_eq!(classify("Your running match was loaded."), MatchLoaded);
        assert_eq!(
            classify("alice gives up. You win 1 point."),
            GameOver {
                winner: Who::Me,
                points: 1
            }
        );
        assert_eq!(
            classify("You give up. alice wins 2 points."),
            GameOver {
                winner: Who::Player("alice".into()),
                points: 2
            }
        );
        assert_eq!(
            classify("You accept and win 4 points."),
            GameOver {
                winner: Who::Me,
                points: 4
            }
        );
        assert_eq!(
            classify("alice accepts and wins 1 point."),
            GameOver {
                winner: Who::Player("alice".into()),
                points: 1
            }
        );
        // The lines an independent FIBS-compatible server sends.
        assert_eq!(
            classify("8 alice alice drops connection."),
            OpponentGone {
                name: "alice".into()
            }
        );
        assert_eq!(
            classify("alice logs out. The game was saved."),
            OpponentGone {
                name: "alice".into()
            }
        );
        assert_eq!(
            classify("You are now playing with alice. Your running match was loaded."),
            MatchStarted {
                opponent: "alice".into()
            }
        );
        assert_eq!(
            classify("7 alice alice logs in."),
            LoggedIn {
                name: "alice".into()
            }
        );
        assert_eq!(classify("Starting a new game with alice."), NewGame);
    }
}
