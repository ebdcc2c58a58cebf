//! Move notations: reading a move against a position and roll, and writing a play.
//!
//! Three styles, all from the mover's side of the board unless said otherwise:
//! - **gnubg** (what gnubg shows and records): `24/18 13/10`, one checker moving on as a
//!   chain `24/18*/13` (intermediate points written only where they hit), repeats as
//!   `13/7(2)`, `bar/22*`, `6/off`; sub-moves from the highest source down.
//! - **plain** (gnubg's external-interface replies): every step written singly, bar `25`,
//!   off `0`, `*` after the first step that hits on a point: `13/10 13/10 8/5 8/5`.
//! - **FIBS** (what a FIBS server takes after `move`): absolute board numbers for the
//!   mover's colour and direction, dashes, `bar`, `off`: `bar-22 8-5`.
//!
//! Reading is lenient: any step order, `*` optional, `(n)` repeats, bare number pairs
//! (`13 7 24 22`), `bar`/`off`/`home` in any case, a trailing `\r`. A move denotes the legal
//! play whose resulting position it produces; where a multi-pip sub-move could pass over
//! an opponent blot or not, the path that hits nothing unnamed is meant (gnubg writes the
//! hit as `24/18*/13` when it happens), and a move that still fits two plays is reported
//! as ambiguous rather than guessed.

use std::collections::HashSet;
use std::fmt;

use crate::game::{legal_plays, Dice, Play, Position, Step, BAR};

/// How a FIBS board's absolute point numbers relate to the mover's own numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FibsOrientation {
    /// The mover's point `p` is absolute point `p`: the mover moves 24 -> 1 on the board
    /// array, its bar is 25 and its home 0.
    Direct,
    /// The mover's point `p` is absolute point `25 - p`: the mover moves 1 -> 24, its bar
    /// is 0 and its home 25.
    Reversed,
}

impl FibsOrientation {
    /// The orientation of a side that moves in FIBS `direction` (-1: 24 -> 1, +1: 1 -> 24).
    pub fn from_direction(direction: i32) -> FibsOrientation {
        if direction < 0 {
            FibsOrientation::Direct
        } else {
            FibsOrientation::Reversed
        }
    }

    /// Absolute number of the mover's point `p` (0 and 25 map to the home and bar slots).
    pub fn to_absolute(self, p: u8) -> u8 {
        match self {
            FibsOrientation::Direct => p,
            FibsOrientation::Reversed => 25 - p.min(25),
        }
    }

    /// The mover's number of absolute point `a` (the inverse of [`Self::to_absolute`]).
    pub fn to_mover(self, a: u8) -> u8 {
        self.to_absolute(a)
    }
}

/// A move notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveStyle {
    /// gnubg's display style (`24/18*/13 6/off`).
    Gnubg,
    /// Single steps with `25`/`0` for bar and off (`25/22* 6/0`).
    Plain,
    /// FIBS server style in absolute numbers for the given orientation (`bar-22 6-off`).
    Fibs(FibsOrientation),
}

/// Why a move text cannot be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// The offending piece of text.
    pub token: String,
    pub kind: SyntaxKind,
}

/// The kinds of unreadable move text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxKind {
    /// Not a point number, `bar`, `off` or `home`.
    BadPoint,
    /// A point number above 25.
    PointOutOfRange,
    /// `bar` anywhere but at the start of a sub-move.
    BarNotFirst,
    /// `off` anywhere but at the end of a sub-move.
    OffNotLast,
    /// A sub-move with fewer than two points.
    MissingPoint,
    /// A repeat count that is not `(1)` to `(4)`, or with nothing to repeat.
    BadRepeat,
    /// An odd number of bare points (`13 7 24`).
    UnpairedPoint,
    /// A character that has no place in a move.
    BadChar,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            SyntaxKind::BadPoint => "is not a point (1-24, bar, off)",
            SyntaxKind::PointOutOfRange => "is not a point number (0-25)",
            SyntaxKind::BarNotFirst => "has the bar after the start of a sub-move",
            SyntaxKind::OffNotLast => "has `off` before the end of a sub-move",
            SyntaxKind::MissingPoint => "needs a start and an end point",
            SyntaxKind::BadRepeat => "is not a repeat count (1)-(4) after a sub-move",
            SyntaxKind::UnpairedPoint => "has no partner point (bare points come in pairs)",
            SyntaxKind::BadChar => "contains a character that has no place in a move",
        };
        write!(f, "{:?} {what}", self.token)
    }
}

/// Why a readable move is not a legal play here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IllegalMove {
    /// A sub-move that does not move towards home.
    Backwards { from: u8, to: u8 },
    /// No legal play of this roll produces what the move describes.
    NoSuchPlay,
    /// The roll has a legal play but the move is empty.
    MustMove,
    /// The move fits several legal plays (e.g. a multi-pip move that may or may not hit
    /// on the way); the count of plays it fits.
    Ambiguous(usize),
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::Backwards { from, to } => {
                write!(f, "the sub-move {from}/{to} does not move towards home")
            }
            IllegalMove::NoSuchPlay => write!(f, "no legal play of this roll matches the move"),
            IllegalMove::MustMove => write!(f, "the move is empty but the roll can be played"),
            IllegalMove::Ambiguous(n) => {
                write!(
                    f,
                    "the move fits {n} different legal plays; name the points passed"
                )
            }
        }
    }
}

/// A move text that cannot be read, or that denotes no legal play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    Syntax(SyntaxError),
    Illegal(IllegalMove),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(e) => write!(f, "cannot read the move: {e}"),
            MoveError::Illegal(e) => write!(f, "illegal move: {e}"),
        }
    }
}

impl std::error::Error for MoveError {}

fn syntax(token: &str, kind: SyntaxKind) -> MoveError {
    MoveError::Syntax(SyntaxError {
        token: token.to_string(),
        kind,
    })
}

/// A parsed point: a number in the mover's numbering (25 bar, 0 off).
fn parse_point(text: &str, style: MoveStyle) -> Result<u8, MoveError> {
    let t = text.trim_end_matches('*');
    if t.is_empty() {
        return Err(syntax(text, SyntaxKind::MissingPoint));
    }
    match t {
        "bar" | "b" => return Ok(BAR as u8),
        "off" | "o" | "home" => return Ok(0),
        _ => {}
    }
    if !t.bytes().all(|b| b.is_ascii_digit()) {
        let kind = if t.bytes().all(|b| b.is_ascii_alphanumeric()) {
            SyntaxKind::BadPoint
        } else {
            SyntaxKind::BadChar
        };
        return Err(syntax(text, kind));
    }
    let n: u32 = if t.len() > 3 {
        u32::MAX
    } else {
        t.parse().map_err(|_| syntax(text, SyntaxKind::BadPoint))?
    };
    if n > 25 {
        return Err(syntax(text, SyntaxKind::PointOutOfRange));
    }
    Ok(match style {
        MoveStyle::Fibs(o) => o.to_mover(n as u8),
        _ => n as u8,
    })
}

/// Splits a trailing `(n)` off a token.
fn split_repeat(token: &str) -> Result<(&str, u8), MoveError> {
    let Some(open) = token.find('(') else {
        return Ok((token, 1));
    };
    let rest = &token[open + 1..];
    let Some(inner) = rest.strip_suffix(')') else {
        return Err(syntax(token, SyntaxKind::BadRepeat));
    };
    match inner {
        "1" | "2" | "3" | "4" => Ok((&token[..open], inner.as_bytes()[0] - b'0')),
        _ => Err(syntax(token, SyntaxKind::BadRepeat)),
    }
}

/// Reads the text into checker paths (lists of points, mover numbering), repeats expanded.
fn parse_paths(text: &str, style: MoveStyle) -> Result<Vec<Vec<u8>>, MoveError> {
    let lower = text.trim().to_ascii_lowercase();
    let mut tokens: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    let fibs = matches!(style, MoveStyle::Fibs(_));
    if fibs {
        if tokens.first() == Some(&"move") {
            tokens.remove(0);
        }
        if tokens.last() == Some(&".") {
            tokens.pop();
        }
    }
    let is_sep = |c: char| c == '/' || (fibs && c == '-');
    let mut paths: Vec<Vec<u8>> = Vec::new();
    let mut pending: Option<u8> = None;
    let mut last_path: Option<Vec<u8>> = None;
    for token in tokens {
        if token.starts_with('(') {
            let (_, n) = split_repeat(token)?;
            let Some(path) = last_path.as_ref() else {
                return Err(syntax(token, SyntaxKind::BadRepeat));
            };
            for _ in 1..n {
                paths.push(path.clone());
            }
            last_path = None;
            continue;
        }
        if !token.contains(is_sep) {
            let (body, n) = split_repeat(token)?;
            if n != 1 {
                return Err(syntax(token, SyntaxKind::BadRepeat));
            }
            let p = parse_point(body, style)?;
            match pending.take() {
                None => pending = Some(p),
                Some(from) => {
                    let path = vec![from, p];
                    check_path(&path, token)?;
                    paths.push(path.clone());
                    last_path = Some(path);
                }
            }
            continue;
        }
        if pending.is_some() {
            return Err(syntax(token, SyntaxKind::UnpairedPoint));
        }
        let (body, n) = split_repeat(token)?;
        let mut path = Vec::new();
        for part in body.split(is_sep) {
            path.push(parse_point(part, style)?);
        }
        check_path(&path, token)?;
        for _ in 0..n {
            paths.push(path.clone());
        }
        last_path = Some(path);
    }
    if let Some(p) = pending {
        return Err(syntax(&p.to_string(), SyntaxKind::UnpairedPoint));
    }
    Ok(paths)
}

fn check_path(path: &[u8], token: &str) -> Result<(), MoveError> {
    if path.len() < 2 {
        return Err(syntax(token, SyntaxKind::MissingPoint));
    }
    for (i, &p) in path.iter().enumerate() {
        if p == BAR as u8 && i > 0 {
            return Err(syntax(token, SyntaxKind::BarNotFirst));
        }
        if p == 0 && i + 1 < path.len() {
            return Err(syntax(token, SyntaxKind::OffNotLast));
        }
    }
    Ok(())
}

/// One checker step by the rules, checked here independently of the move generator:
/// bar first, no landing on two or more opposing checkers, bearing off only with every
/// checker home and, with a larger die, only from the highest point.
fn try_step(p: &Position, from: usize, die: u8) -> Option<(Position, Step)> {
    let s = p.slots();
    if s[from] <= 0 || (s[BAR] > 0 && from != BAR) {
        return None;
    }
    let to = from as i32 - die as i32;
    if to >= 1 {
        if s[to as usize] < -1 {
            return None;
        }
    } else {
        if s[7..=BAR].iter().any(|&c| c > 0) {
            return None;
        }
        if to < 0 && s[from + 1..=6].iter().any(|&c| c > 0) {
            return None;
        }
    }
    let mut q = *p;
    let hit = q.apply_step(from, die);
    Some((
        q,
        Step {
            from: from as u8,
            to: to.max(0) as u8,
            hit,
        },
    ))
}

/// Calls `f` with every sequence of `len` legal steps using the dice in `dice`.
fn each_sequence(
    p: &Position,
    dice: &mut Vec<u8>,
    len: usize,
    steps: &mut Vec<Step>,
    f: &mut dyn FnMut(&Position, &[Step]),
) {
    if steps.len() == len {
        f(p, steps);
        return;
    }
    for i in 0..dice.len() {
        if dice[..i].contains(&dice[i]) {
            continue;
        }
        let die = dice.remove(i);
        for from in 1..=BAR {
            if let Some((q, s)) = try_step(p, from, die) {
                steps.push(s);
                each_sequence(&q, dice, len, steps, f);
                steps.pop();
            }
        }
        dice.insert(i, die);
    }
}

/// Whether the steps realise the notation's segments (each segment a chain of steps of
/// one checker from its start to its end), and at what cost: the number of hits on
/// points the notation does not name. `None` when they do not fit.
fn fit_cost(segments: &[(u8, u8)], named: &[u8], steps: &[Step]) -> Option<u32> {
    fn chain(
        segments: &[(u8, u8)],
        named: &[u8],
        steps: &[Step],
        used: &mut [bool; 4],
        at: u8,
        target: u8,
        cost: u32,
        best: &mut Option<u32>,
    ) {
        if at == target {
            match segments.split_first() {
                Some((&(from, to), rest)) => {
                    chain(rest, named, steps, used, from, to, cost, best);
                }
                None => {
                    if used[..steps.len()].iter().all(|&u| u) && best.is_none_or(|b| cost < b) {
                        *best = Some(cost);
                    }
                }
            }
            return;
        }
        for i in 0..steps.len() {
            let s = steps[i];
            if used[i] || s.from != at || s.to < target || (s.to == 0 && target != 0) {
                continue;
            }
            let extra = (s.hit && s.to != target && !named.contains(&s.to)) as u32;
            used[i] = true;
            chain(
                segments,
                named,
                steps,
                used,
                s.to,
                target,
                cost + extra,
                best,
            );
            used[i] = false;
        }
    }
    let mut best = None;
    let mut used = [false; 4];
    chain(segments, named, steps, &mut used, 0, 0, 0, &mut best);
    best
}

/// Reads `text` as a play of `dice` in `pos` (the mover's view) and returns the one legal
/// play it denotes. `style` selects the numbering: the gnubg and plain styles read the
/// same way (mover's numbers); FIBS reads absolute numbers for its orientation and also
/// takes dashes, `home`, a leading `move` and a trailing `.`.
pub fn parse_move(
    text: &str,
    pos: &Position,
    dice: Dice,
    style: MoveStyle,
) -> Result<Play, MoveError> {
    let paths = parse_paths(text, style)?;
    let legal = legal_plays(pos, dice);
    let mut segments = Vec::new();
    let mut named = Vec::new();
    for path in &paths {
        for w in path.windows(2) {
            if w[0] <= w[1] {
                return Err(MoveError::Illegal(IllegalMove::Backwards {
                    from: w[0],
                    to: w[1],
                }));
            }
            segments.push((w[0], w[1]));
        }
        named.extend_from_slice(path);
    }
    let len = legal.first().map_or(0, |p| p.steps().len());
    if segments.is_empty() {
        return match legal.first() {
            Some(p) if len == 0 => Ok(*p),
            _ => Err(MoveError::Illegal(IllegalMove::MustMove)),
        };
    }
    if len == 0 {
        return Err(MoveError::Illegal(IllegalMove::NoSuchPlay));
    }
    let targets: HashSet<Position> = legal.iter().map(|p| p.position).collect();
    let mut best: Option<u32> = None;
    let mut found: HashSet<Position> = HashSet::new();
    let mut dice_list = if dice.is_double() {
        vec![dice.high(); 4]
    } else {
        vec![dice.high(), dice.low()]
    };
    let mut steps = Vec::with_capacity(4);
    each_sequence(pos, &mut dice_list, len, &mut steps, &mut |q, seq| {
        if !targets.contains(q) {
            return;
        }
        if let Some(cost) = fit_cost(&segments, &named, seq) {
            match best {
                Some(b) if cost > b => {}
                Some(b) if cost == b => {
                    found.insert(*q);
                }
                _ => {
                    best = Some(cost);
                    found.clear();
                    found.insert(*q);
                }
            }
        }
    });
    match found.len() {
        0 => Err(MoveError::Illegal(IllegalMove::NoSuchPlay)),
        1 => {
            let q = found.iter().next().copied();
            legal
                .into_iter()
                .find(|p| Some(p.position) == q)
                .ok_or(MoveError::Illegal(IllegalMove::NoSuchPlay))
        }
        n => Err(MoveError::Illegal(IllegalMove::Ambiguous(n))),
    }
}

fn point_name(p: u8) -> String {
    match p {
        0 => "off".to_string(),
        25 => "bar".to_string(),
        _ => p.to_string(),
    }
}

/// The play's steps from the highest source down (ties: the longer step first).
fn sorted_steps(play: &Play) -> Vec<Step> {
    let mut steps = play.steps().to_vec();
    steps.sort_by(|a, b| b.from.cmp(&a.from).then(b.to.cmp(&a.to)));
    steps
}

/// gnubg's display of a play of the position `before`.
///
/// The rules, learnt from gnubg's own output (tests/gnubg_rules.rs checks them on every
/// sampled play): steps are taken from the highest source down; a step hits when it is
/// the first to land on a point that held an opposing blot; steps that continue one
/// another form one checker's path, written with its intermediate points only where they
/// hit (`24/18*/13`); equal paths are written once with a count (`24/20*(2)`, where the
/// mark shows that one of them hit).
fn format_gnubg(before: &Position, play: &Play) -> String {
    let steps = sorted_steps(play);
    let hits = first_hits(before, &steps);
    let mut used = vec![false; steps.len()];
    // Each path: its points and whether the checker hit on arriving at each.
    let mut paths: Vec<(Vec<u8>, Vec<bool>, usize)> = Vec::new();
    for i in 0..steps.len() {
        if used[i] {
            continue;
        }
        used[i] = true;
        let mut points = vec![steps[i].from, steps[i].to];
        let mut hit = vec![false, hits[i]];
        let mut at = steps[i].to;
        while at != 0 {
            let Some(j) = (0..steps.len()).find(|&j| !used[j] && steps[j].from == at) else {
                break;
            };
            used[j] = true;
            points.push(steps[j].to);
            hit.push(hits[j]);
            at = steps[j].to;
        }
        match paths.iter_mut().find(|(p, _, _)| *p == points) {
            Some((_, h, n)) => {
                for (a, b) in h.iter_mut().zip(&hit) {
                    *a |= *b;
                }
                *n += 1;
            }
            None => paths.push((points, hit, 1)),
        }
    }
    let parts: Vec<String> = paths
        .iter()
        .map(|(points, hit, n)| {
            let mut text = point_name(points[0]);
            let last = points.len() - 1;
            for k in 1..=last {
                if k == last || hit[k] {
                    text.push('/');
                    text.push_str(&point_name(points[k]));
                    if hit[k] {
                        text.push('*');
                    }
                }
            }
            if *n > 1 {
                text.push_str(&format!("({n})"));
            }
            text
        })
        .collect();
    parts.join(" ")
}

/// For steps in the given order: whether each is the first to land on a point that held
/// an opposing blot before the play.
fn first_hits(before: &Position, steps: &[Step]) -> Vec<bool> {
    let mut hit_points: Vec<u8> = Vec::new();
    steps
        .iter()
        .map(|s| {
            let hit = (1..=24).contains(&s.to)
                && before.at(s.to as usize) == -1
                && !hit_points.contains(&s.to);
            if hit {
                hit_points.push(s.to);
            }
            hit
        })
        .collect()
}

/// Formats `play` (a legal play of `before`, the mover's view) in `style`.
///
/// The empty play (no legal move) is the empty string in every style.
pub fn format_play(before: &Position, play: &Play, style: MoveStyle) -> String {
    match style {
        MoveStyle::Gnubg => format_gnubg(before, play),
        MoveStyle::Plain => {
            let steps = sorted_steps(play);
            let hits = first_hits(before, &steps);
            let parts: Vec<String> = steps
                .iter()
                .zip(hits)
                .map(|(s, hit)| format!("{}/{}{}", s.from, s.to, if hit { "*" } else { "" }))
                .collect();
            parts.join(" ")
        }
        MoveStyle::Fibs(o) => {
            // In the order the steps are legal, since a server may apply them one by one.
            let parts: Vec<String> = play
                .steps()
                .iter()
                .map(|s| {
                    let name = |p: u8| match p {
                        0 => "off".to_string(),
                        25 => "bar".to_string(),
                        _ => o.to_absolute(p).to_string(),
                    };
                    format!("{}-{}", name(s.from), name(s.to))
                })
                .collect();
            parts.join(" ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dice(a: u8, b: u8) -> Dice {
        Dice::new(a, b).expect("dice")
    }

    #[test]
    fn opening_plays_round_trip_in_every_style() {
        let p = Position::OPENING;
        for (a, b) in [(3, 1), (6, 6), (6, 5), (2, 1)] {
            for play in legal_plays(&p, dice(a, b)) {
                for style in [
                    MoveStyle::Gnubg,
                    MoveStyle::Plain,
                    MoveStyle::Fibs(FibsOrientation::Direct),
                    MoveStyle::Fibs(FibsOrientation::Reversed),
                ] {
                    let text = format_play(&p, &play, style);
                    let back = parse_move(&text, &p, dice(a, b), style);
                    assert_eq!(back.map(|q| q.position), Ok(play.position), "{text}");
                }
            }
        }
    }

    #[test]
    fn lenient_forms() {
        let p = Position::OPENING;
        let d = dice(6, 5);
        let want = parse_move("24/13", &p, d, MoveStyle::Gnubg).expect("legal");
        for text in [
            "24/18/13",
            "24/18 18/13",
            "18/13 24/18",
            "24 18 18 13",
            "24/13\r",
        ] {
            let got = parse_move(text, &p, d, MoveStyle::Gnubg).expect(text);
            assert_eq!(got.position, want.position, "{text}");
        }
        let f = parse_move(
            "move 24-18 18-13",
            &p,
            d,
            MoveStyle::Fibs(FibsOrientation::Direct),
        );
        assert_eq!(f.map(|q| q.position), Ok(want.position));
        let f = parse_move(
            "1-7 7-12",
            &p,
            d,
            MoveStyle::Fibs(FibsOrientation::Reversed),
        );
        assert_eq!(f.map(|q| q.position), Ok(want.position));
    }

    #[test]
    fn errors_are_typed() {
        let p = Position::OPENING;
        let d = dice(3, 1);
        assert!(matches!(
            parse_move("8/5 6/x", &p, d, MoveStyle::Gnubg),
            Err(MoveError::Syntax(_))
        ));
        assert!(matches!(
            parse_move("8/5 6/30", &p, d, MoveStyle::Gnubg),
            Err(MoveError::Syntax(_))
        ));
        assert!(matches!(
            parse_move("8/4 6/5", &p, d, MoveStyle::Gnubg),
            Err(MoveError::Illegal(IllegalMove::NoSuchPlay))
        ));
        assert!(matches!(
            parse_move("5/8", &p, d, MoveStyle::Gnubg),
            Err(MoveError::Illegal(IllegalMove::Backwards { .. }))
        ));
        assert!(matches!(
            parse_move("", &p, d, MoveStyle::Gnubg),
            Err(MoveError::Illegal(IllegalMove::MustMove))
        ));
        assert!(matches!(
            parse_move("8/5", &p, d, MoveStyle::Gnubg),
            Err(MoveError::Illegal(IllegalMove::NoSuchPlay))
        ));
    }

    #[test]
    fn gnubg_style_examples() {
        let p = Position::OPENING;
        let show = |a, b, text: &str| {
            let play = parse_move(text, &p, dice(a, b), MoveStyle::Gnubg).expect(text);
            format_play(&p, &play, MoveStyle::Gnubg)
        };
        assert_eq!(show(3, 1, "6/5 8/5"), "8/5 6/5");
        assert_eq!(show(6, 6, "24/18 24/18 13/7 13/7"), "24/18(2) 13/7(2)");
        assert_eq!(show(6, 5, "24/18 18/13"), "24/13");
        assert_eq!(show(3, 1, "24 23 13 10"), "24/23 13/10");
    }
}
