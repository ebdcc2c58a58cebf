//! Match files as text: the game record every reader produces ([`MatchText`]) and the
//! Jellyfish `.mat` reader (the format gnubg imports and exports, and that
//! `stargammon match --mat` writes).
//!
//! A reader only checks the syntax: moves stay text here (single steps in the mover's
//! numbering, bar 25, off 0) and are resolved against the position when the game is
//! replayed, so "cannot parse" and "not legal here" stay different errors.
//!
//! The `.mat` layout read here: a `N point match` header (`0` for money), then per game a
//! ` Game K` line, a score line `NAME : S    NAME : S`, numbered rows `  1) CELL   CELL`
//! holding one action per column (left column: the first player of the score line), and
//! a `Wins N point(s)` line in the winner's column. Lines starting with `;` (gnubg's
//! header comments) are skipped. A roll is `DD: steps` (`DD:` alone when the roll could
//! not be played); a cube action is `Doubles => N`, `Takes`, `Drops` (also `Passes`).

use std::fmt;

use crate::game::Dice;

/// One action of a game as a file states it. Seats: 0 is the first player of the score
/// line (the left column of a `.mat` file), 1 the second.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionText {
    /// `seat` rolled `dice` and played `play` (single steps, `25` bar, `0` off; empty
    /// when the roll could not be played).
    Roll {
        seat: usize,
        dice: Dice,
        play: String,
    },
    /// `seat` doubled to `cube`.
    Double {
        seat: usize,
        cube: u32,
    },
    Take {
        seat: usize,
    },
    Drop {
        seat: usize,
    },
}

impl ActionText {
    /// The seat that acted.
    pub fn seat(&self) -> usize {
        match self {
            ActionText::Roll { seat, .. }
            | ActionText::Double { seat, .. }
            | ActionText::Take { seat }
            | ActionText::Drop { seat } => *seat,
        }
    }
}

/// One game of a match file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameText {
    /// Names of seat 0 and seat 1.
    pub names: [String; 2],
    /// Scores of seat 0 and seat 1 before the game.
    pub score: [u32; 2],
    pub actions: Vec<ActionText>,
    /// The winning seat and the points it won, where the file states them.
    pub result: Option<(usize, u32)>,
}

/// A whole match file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchText {
    /// Points to win the match; 0 for money play.
    pub length: u32,
    pub games: Vec<GameText>,
}

/// Why a match file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchFileError {
    /// 1-based line number (0: the file as a whole).
    pub line: usize,
    pub kind: MatchFileErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchFileErrorKind {
    /// No `N point match` header before the first game.
    MissingHeader,
    /// A header whose length is not a number.
    BadHeader(String),
    /// A game without a score line, or a score line that cannot be read.
    BadScoreLine(String),
    /// A row or cell that cannot be read.
    BadCell(String),
    /// Moves before any `Game` line.
    OutsideGame(String),
    /// The file holds no game.
    NoGames,
    /// Not a file of this format at all (binary data, another format).
    NotThisFormat,
}

impl fmt::Display for MatchFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        match &self.kind {
            MatchFileErrorKind::MissingHeader => f.write_str("no 'N point match' header"),
            MatchFileErrorKind::BadHeader(s) => write!(f, "bad match header {s:?}"),
            MatchFileErrorKind::BadScoreLine(s) => write!(f, "bad score line {s:?}"),
            MatchFileErrorKind::BadCell(s) => write!(f, "cannot read {s:?}"),
            MatchFileErrorKind::OutsideGame(s) => write!(f, "{s:?} before any 'Game' line"),
            MatchFileErrorKind::NoGames => f.write_str("no games in the file"),
            MatchFileErrorKind::NotThisFormat => f.write_str("not a .mat match file"),
        }
    }
}

impl std::error::Error for MatchFileError {}

fn err(line: usize, kind: MatchFileErrorKind) -> MatchFileError {
    MatchFileError { line, kind }
}

/// Offset in a row's text (after `N)`) from which a single cell is the right column's.
const RIGHT_COLUMN: usize = 14;

/// A cell of a `.mat` row before seats are known.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cell {
    Roll { dice: Dice, play: String },
    Double(u32),
    Take,
    Drop,
    Wins(u32),
}

/// Reads a `.mat` file. Any bytes give a match or a typed error.
pub fn read_mat(bytes: &[u8]) -> Result<MatchText, MatchFileError> {
    let text = std::str::from_utf8(bytes).map_err(|_| err(0, MatchFileErrorKind::NotThisFormat))?;
    if text.contains('\0') {
        return Err(err(0, MatchFileErrorKind::NotThisFormat));
    }
    let mut length: Option<u32> = None;
    let mut games: Vec<GameText> = Vec::new();
    // Cells of the current game in column order: (column, cell).
    let mut cells: Vec<(usize, Cell)> = Vec::new();
    let mut in_game = false;
    let mut need_score = false;

    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end_matches('\r');
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with(';') {
            continue;
        }
        let lower = trimmed.to_ascii_lowercase();
        if lower.ends_with("point match") && !in_game && games.is_empty() {
            let num = lower.trim_end_matches("point match").trim();
            length = Some(
                num.parse()
                    .map_err(|_| err(n, MatchFileErrorKind::BadHeader(trimmed.into())))?,
            );
            continue;
        }
        if let Some(rest) = lower.strip_prefix("game ") {
            if rest.trim().parse::<u32>().is_ok() {
                if length.is_none() {
                    return Err(err(n, MatchFileErrorKind::MissingHeader));
                }
                if in_game {
                    finish_game(&mut games, &mut cells, n)?;
                }
                in_game = true;
                need_score = true;
                continue;
            }
        }
        if !in_game {
            if length.is_none() {
                return Err(err(n, MatchFileErrorKind::NotThisFormat));
            }
            return Err(err(n, MatchFileErrorKind::OutsideGame(trimmed.into())));
        }
        if need_score {
            let (names, score) = score_line(trimmed)
                .ok_or_else(|| err(n, MatchFileErrorKind::BadScoreLine(trimmed.into())))?;
            games.push(GameText {
                names,
                score,
                actions: Vec::new(),
                result: None,
            });
            need_score = false;
            continue;
        }
        // A numbered row, or a line holding only the result.
        match row_body(line) {
            Some(body) => {
                let found = cells_of(body).map_err(|c| err(n, MatchFileErrorKind::BadCell(c)))?;
                match found.as_slice() {
                    [] => {}
                    [(off, c)] => {
                        let col = usize::from(*off >= RIGHT_COLUMN);
                        cells.push((col, c.clone()));
                    }
                    [(_, a), (_, b)] => {
                        cells.push((0, a.clone()));
                        cells.push((1, b.clone()));
                    }
                    _ => return Err(err(n, MatchFileErrorKind::BadCell(trimmed.into()))),
                }
            }
            None => {
                let indent = line.len() - line.trim_start().len();
                let found = cells_of(line.trim_start())
                    .map_err(|c| err(n, MatchFileErrorKind::BadCell(c)))?;
                match found.as_slice() {
                    [(_, Cell::Wins(p))] => {
                        let col = usize::from(indent >= 20);
                        cells.push((col, Cell::Wins(*p)));
                    }
                    _ => return Err(err(n, MatchFileErrorKind::BadCell(trimmed.into()))),
                }
            }
        }
    }
    if need_score {
        return Err(err(0, MatchFileErrorKind::BadScoreLine(String::new())));
    }
    if in_game {
        finish_game(&mut games, &mut cells, 0)?;
    }
    if games.is_empty() {
        return Err(err(
            0,
            if length.is_none() {
                MatchFileErrorKind::NotThisFormat
            } else {
                MatchFileErrorKind::NoGames
            },
        ));
    }
    Ok(MatchText {
        length: length.unwrap_or(0),
        games,
    })
}

/// Turns the cells of the game just read into its actions.
fn finish_game(
    games: &mut [GameText],
    cells: &mut Vec<(usize, Cell)>,
    line: usize,
) -> Result<(), MatchFileError> {
    let Some(game) = games.last_mut() else {
        return Err(err(line, MatchFileErrorKind::NoGames));
    };
    for (seat, cell) in cells.drain(..) {
        match cell {
            Cell::Roll { dice, play } => game.actions.push(ActionText::Roll { seat, dice, play }),
            Cell::Double(cube) => game.actions.push(ActionText::Double { seat, cube }),
            Cell::Take => game.actions.push(ActionText::Take { seat }),
            Cell::Drop => game.actions.push(ActionText::Drop { seat }),
            Cell::Wins(points) => game.result = Some((seat, points)),
        }
    }
    Ok(())
}

/// `NAME : S   NAME : S` -> names and scores.
fn score_line(text: &str) -> Option<([String; 2], [u32; 2])> {
    let parts: Vec<&str> = text.split(':').collect();
    let [first, middle, last] = parts.as_slice() else {
        return None;
    };
    let name0 = first.trim();
    let mut mid = middle.split_whitespace();
    let s0: u32 = mid.next()?.parse().ok()?;
    let name1: Vec<&str> = mid.collect();
    let s1: u32 = last.trim().parse().ok()?;
    if name0.is_empty() || name1.is_empty() {
        return None;
    }
    Some(([name0.to_string(), name1.join(" ")], [s0, s1]))
}

/// The text after a row's `N)`, or None when the line is not a numbered row.
fn row_body(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let close = t.find(')')?;
    let num = t.get(..close)?;
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.get(close + 1..)
}

/// The cells of a row body with their byte offsets; Err holds the unreadable text.
fn cells_of(body: &str) -> Result<Vec<(usize, Cell)>, String> {
    // Tokens with their offsets.
    let mut tokens: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, ch) in body.char_indices() {
        if ch.is_whitespace() {
            if let Some(s) = start.take() {
                tokens.push((s, &body[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        tokens.push((s, &body[s..]));
    }
    // A left cell that filled its column can run into the right one (`22/21*51:`).
    let mut split = Vec::with_capacity(tokens.len());
    for (off, tok) in tokens {
        let n = tok.len();
        match tok.get(n.saturating_sub(3)..) {
            Some(tail) if n > 3 && dice_token(tail).is_some() && is_step(&tok[..n - 3]) => {
                split.push((off, &tok[..n - 3]));
                split.push((off + n - 3, tail));
            }
            _ => split.push((off, tok)),
        }
    }
    let tokens = split;
    let mut cells = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        let (off, tok) = tokens[k];
        let lower = tok.to_ascii_lowercase();
        if let Some(dice) = dice_token(tok) {
            k += 1;
            let mut steps = Vec::new();
            while k < tokens.len() && is_step(tokens[k].1) {
                steps.push(tokens[k].1);
                k += 1;
            }
            cells.push((
                off,
                Cell::Roll {
                    dice,
                    play: steps.join(" "),
                },
            ));
        } else if lower == "doubles" {
            let arrow = tokens.get(k + 1).map(|t| t.1);
            let value = tokens.get(k + 2).map(|t| t.1);
            match (arrow, value.and_then(|v| v.parse::<u32>().ok())) {
                (Some("=>"), Some(c)) if c >= 2 && c.is_power_of_two() => {
                    cells.push((off, Cell::Double(c)));
                    k += 3;
                }
                _ => return Err(tok.to_string()),
            }
        } else if lower == "takes" || lower == "accepts" {
            cells.push((off, Cell::Take));
            k += 1;
        } else if lower == "drops" || lower == "passes" || lower == "rejects" {
            cells.push((off, Cell::Drop));
            k += 1;
        } else if lower == "wins" {
            let points = tokens
                .get(k + 1)
                .and_then(|t| t.1.parse::<u32>().ok())
                .ok_or_else(|| tok.to_string())?;
            k += 2;
            // "point(s)" and gnubg's "and the match".
            while k < tokens.len() && dice_token(tokens[k].1).is_none() {
                let w = tokens[k].1.to_ascii_lowercase();
                if !matches!(w.as_str(), "point" | "points" | "and" | "the" | "match") {
                    return Err(tokens[k].1.to_string());
                }
                k += 1;
            }
            cells.push((off, Cell::Wins(points)));
        } else {
            return Err(tok.to_string());
        }
    }
    Ok(cells)
}

/// `DD:` with two dice 1..=6.
fn dice_token(tok: &str) -> Option<Dice> {
    let b = tok.as_bytes();
    if b.len() != 3 || b[2] != b':' {
        return None;
    }
    let d = |c: u8| (b'1'..=b'6').contains(&c).then(|| c - b'0');
    Dice::new(d(b[0])?, d(b[1])?).ok()
}

/// A step `from/to` with an optional `*` (numbers 0..=25).
fn is_step(tok: &str) -> bool {
    let t = tok.trim_end_matches('*');
    let Some((a, b)) = t.split_once('/') else {
        return false;
    };
    let num = |s: &str| {
        !s.is_empty() && s.len() <= 2 && s.bytes().all(|c| c.is_ascii_digit()) && {
            s.parse::<u8>().is_ok_and(|v| v <= 25)
        }
    };
    num(a) && num(b)
}

/// Reads a match in gnubg's SGF dialect (`GM[6]`, as gnubg's `save match` writes it and
/// `stargammon match --sgf` too): one game tree per game, the root's `MI` (length,
/// scores), `PW`/`PB` (seat 0 and seat 1), `RE`; `W[...]`/`B[...]` nodes holding
/// `double`, `take`, `drop` or the dice and a letter pair per step. Other properties are
/// skipped. Any bytes give a match or a typed error.
pub fn read_sgf(bytes: &[u8]) -> Result<MatchText, MatchFileError> {
    let text = std::str::from_utf8(bytes).map_err(|_| err(0, MatchFileErrorKind::NotThisFormat))?;
    let b = text.as_bytes();
    let line_at = |i: usize| text.get(..i).map_or(0, |t| t.lines().count().max(1));
    let bad = |i: usize, what: &str| err(line_at(i), MatchFileErrorKind::BadCell(what.into()));
    let mut length: Option<u32> = None;
    let mut games: Vec<GameText> = Vec::new();
    let mut i = 0;
    // The game being read: (root properties seen, game).
    let mut game: Option<GameText> = None;
    let mut depth = 0usize;
    while i < b.len() {
        let c = b[i];
        match c {
            b'(' => {
                depth += 1;
                if depth == 1 {
                    game = Some(GameText {
                        names: [String::new(), String::new()],
                        score: [0, 0],
                        actions: Vec::new(),
                        result: None,
                    });
                }
                i += 1;
            }
            b')' => {
                if depth == 0 {
                    return Err(bad(i, ")"));
                }
                depth -= 1;
                if depth == 0 {
                    if let Some(g) = game.take() {
                        games.push(g);
                    }
                }
                i += 1;
            }
            b';' => {
                if depth == 0 {
                    return Err(bad(i, ";"));
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            c if c.is_ascii_uppercase() => {
                let start = i;
                while i < b.len() && b[i].is_ascii_uppercase() {
                    i += 1;
                }
                let ident = &text[start..i];
                let mut values = Vec::new();
                loop {
                    while i < b.len() && b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    if i >= b.len() || b[i] != b'[' {
                        break;
                    }
                    i += 1;
                    let mut v = String::new();
                    loop {
                        let Some(ch) = text.get(i..).and_then(|t| t.chars().next()) else {
                            return Err(bad(start, ident));
                        };
                        i += ch.len_utf8();
                        match ch {
                            ']' => break,
                            '\\' => {
                                if let Some(n) = text.get(i..).and_then(|t| t.chars().next()) {
                                    v.push(n);
                                    i += n.len_utf8();
                                }
                            }
                            ch => v.push(ch),
                        }
                    }
                    values.push(v);
                }
                if values.is_empty() {
                    return Err(bad(start, ident));
                }
                let Some(g) = game.as_mut() else {
                    return Err(bad(start, ident));
                };
                match ident {
                    "GM" if values[0] != "6" => {
                        return Err(err(line_at(start), MatchFileErrorKind::NotThisFormat))
                    }
                    "MI" => {
                        for v in &values {
                            let Some((k, val)) = v.split_once(':') else {
                                continue;
                            };
                            let num = || val.trim().parse::<u32>().map_err(|_| bad(start, v));
                            match k {
                                "length" => {
                                    let l = num()?;
                                    if length.is_some_and(|x| x != l) {
                                        return Err(bad(start, v));
                                    }
                                    length = Some(l);
                                }
                                "ws" => g.score[0] = num()?,
                                "bs" => g.score[1] = num()?,
                                _ => {}
                            }
                        }
                    }
                    "PW" => g.names[0] = values[0].clone(),
                    "PB" => g.names[1] = values[0].clone(),
                    "RE" => {
                        let v = &values[0];
                        let seat = match v.get(..2) {
                            Some("W+") => Some(0),
                            Some("B+") => Some(1),
                            _ => None,
                        };
                        let pts: String = v
                            .get(2..)
                            .unwrap_or("")
                            .chars()
                            .take_while(|c| c.is_ascii_digit())
                            .collect();
                        if let (Some(seat), Ok(p)) = (seat, pts.parse::<u32>()) {
                            g.result = Some((seat, p));
                        }
                    }
                    "W" | "B" => {
                        let seat = usize::from(ident == "B");
                        g.actions.push(
                            sgf_action(seat, &values[0]).ok_or_else(|| bad(start, &values[0]))?,
                        );
                    }
                    _ => {}
                }
            }
            _ => return Err(err(line_at(i), MatchFileErrorKind::NotThisFormat)),
        }
    }
    if depth != 0 {
        return Err(bad(b.len(), "unclosed game"));
    }
    if games.is_empty() {
        return Err(err(
            0,
            if length.is_none() {
                MatchFileErrorKind::NotThisFormat
            } else {
                MatchFileErrorKind::NoGames
            },
        ));
    }
    for g in &mut games {
        for (k, name) in g.names.iter_mut().enumerate() {
            if name.is_empty() {
                *name = format!("player {k}");
            }
        }
    }
    Ok(MatchText {
        length: length.unwrap_or(0),
        games,
    })
}

/// One `W[...]`/`B[...]` value.
fn sgf_action(seat: usize, v: &str) -> Option<ActionText> {
    match v {
        "double" => return Some(ActionText::Double { seat, cube: 0 }),
        "take" => return Some(ActionText::Take { seat }),
        "drop" => return Some(ActionText::Drop { seat }),
        _ => {}
    }
    let b = v.as_bytes();
    if b.len() < 2 || !b.len().is_multiple_of(2) || b.len() > 10 {
        return None;
    }
    let d = |c: u8| (b'1'..=b'6').contains(&c).then(|| c - b'0');
    let dice = Dice::new(d(b[0])?, d(b[1])?).ok()?;
    let point = |c: u8| -> Option<u8> {
        match c {
            b'y' => Some(25),
            b'z' => Some(0),
            b'a'..=b'x' => {
                let i = c - b'a';
                Some(if seat == 0 { i + 1 } else { 24 - i })
            }
            _ => None,
        }
    };
    let mut steps = Vec::new();
    for pair in b[2..].chunks(2) {
        let [from, to] = pair else { return None };
        steps.push(format!("{}/{}", point(*from)?, point(*to)?));
    }
    Some(ActionText::Roll {
        seat,
        dice,
        play: steps.join(" "),
    })
}

/// Reads a match file of either format: SGF when it starts with `(`, else `.mat`.
pub fn read_match_file(bytes: &[u8]) -> Result<MatchText, MatchFileError> {
    let first = bytes.iter().find(|c| !c.is_ascii_whitespace());
    if first == Some(&b'(') {
        read_sgf(bytes)
    } else {
        read_mat(bytes)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const SAMPLE: &str = "; [Site \"here\"]\n\n 3 point match\n\n Game 1\n alice : 0                      bob : 0\n  1)                             52: 13/8 13/11\n  2) 31: 8/5 6/5                 Doubles => 2\n  3)  Takes                      66: 24/18 24/18 13/7 13/7\n  4) 43:                         Doubles => 4\n  5)  Drops\n                                 Wins 2 points\n\n Game 2\n alice : 0                      bob : 2\n  1) 61: 13/7 8/7                 Doubles => 2\n  2)  Drops                       Wins 1 point and the match\n";

    #[test]
    fn reads_columns_cube_actions_and_results() {
        let m = read_mat(SAMPLE.as_bytes()).unwrap();
        assert_eq!(m.length, 3);
        assert_eq!(m.games.len(), 2);
        let g = &m.games[0];
        assert_eq!(g.names, ["alice".to_string(), "bob".to_string()]);
        assert_eq!(g.score, [0, 0]);
        assert_eq!(
            g.actions[0],
            ActionText::Roll {
                seat: 1,
                dice: Dice::new(5, 2).unwrap(),
                play: "13/8 13/11".into()
            }
        );
        assert_eq!(g.actions[2], ActionText::Double { seat: 1, cube: 2 });
        assert_eq!(g.actions[3], ActionText::Take { seat: 0 });
        assert_eq!(
            g.actions[5],
            ActionText::Roll {
                seat: 0,
                dice: Dice::new(4, 3).unwrap(),
                play: String::new()
            }
        );
        assert_eq!(g.actions[7], ActionText::Drop { seat: 0 });
        assert_eq!(g.result, Some((1, 2)));
        assert_eq!(m.games[1].score, [0, 2]);
        assert_eq!(m.games[1].result, Some((1, 1)));
    }

    #[test]
    fn bad_input_gives_typed_errors() {
        assert_eq!(
            read_mat(b"\xff\xfe").unwrap_err().kind,
            MatchFileErrorKind::NotThisFormat
        );
        assert_eq!(
            read_mat(b"hello").unwrap_err().kind,
            MatchFileErrorKind::NotThisFormat
        );
        assert_eq!(
            read_mat(b" 3 point match\n").unwrap_err().kind,
            MatchFileErrorKind::NoGames
        );
        let bad = " 3 point match\n Game 1\n a : 0  b : 0\n  1) 71: 13/6\n";
        let e = read_mat(bad.as_bytes()).unwrap_err();
        assert_eq!(e.line, 4);
        assert!(matches!(e.kind, MatchFileErrorKind::BadCell(_)));
    }
}
