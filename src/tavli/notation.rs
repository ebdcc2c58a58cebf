//! Text around the Tavli rules: plays in gnubg's notation, a text board, and the
//! position string of docs/VARIANTS.md.
//!
//! Position string: `VARIANT:MOVER:OPPONENT`. Each side is a comma-separated list of
//! `POINT-COUNT` entries in the side's own numbering, points 24 down to 1, then `bar-N`
//! (Portes and backgammon); a `p` after the count marks that side's single checker on the
//! point as pinned (Plakoto). A side with nothing on the board is empty. Borne-off
//! checkers are the rest of the 15. The writer lists points from 24 down, which makes
//! the string of a position unique, so `parse(write(p)) == p` and writing a parsed
//! string gives the canonical form.
//! Example: Plakoto's start is `plakoto:24-15:24-15`.

use std::fmt;

use super::position::{opp_point, TavliPosition, TavliPositionError, BAR};
use super::TavliPlay;
use crate::game::{Variant, VariantError};

/// Longest position string accepted.
const MAX_LEN: usize = 400;

/// Why a position string was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionStringError {
    Empty,
    TooLong,
    /// Not three `:`-separated parts.
    Parts,
    Variant(VariantError),
    /// An entry that is not `POINT-COUNT[p]`.
    Entry(String),
    /// A point named twice for one side.
    Repeated(String),
    /// Well formed, but not a position of the variant.
    Position(TavliPositionError),
}

impl fmt::Display for PositionStringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionStringError::Empty => write!(f, "empty position string"),
            PositionStringError::TooLong => {
                write!(f, "position string longer than {MAX_LEN} bytes")
            }
            PositionStringError::Parts => {
                write!(f, "a position string is VARIANT:MOVER:OPPONENT")
            }
            PositionStringError::Variant(e) => write!(f, "{e}"),
            PositionStringError::Entry(e) => {
                write!(f, "bad entry {e:?}: expected POINT-COUNT (point 1-24 or bar, count 1-15, optional p)")
            }
            PositionStringError::Repeated(e) => write!(f, "point of {e:?} given twice"),
            PositionStringError::Position(e) => write!(f, "impossible position: {e}"),
        }
    }
}

impl std::error::Error for PositionStringError {}

fn side_string(pos: &TavliPosition, side: usize) -> String {
    let counts = pos.counts(side);
    let pins = pos.pins(side);
    let mut parts = Vec::new();
    for m in (1..=24).rev() {
        if counts[m] > 0 {
            let pin = if pins >> m & 1 == 1 { "p" } else { "" };
            parts.push(format!("{m}-{}{pin}", counts[m]));
        }
    }
    if counts[BAR] > 0 {
        parts.push(format!("bar-{}", counts[BAR]));
    }
    parts.join(",")
}

/// The position string of `pos` (module docs).
pub fn position_string(pos: &TavliPosition) -> String {
    format!(
        "{}:{}:{}",
        pos.variant(),
        side_string(pos, 0),
        side_string(pos, 1)
    )
}

fn parse_side(text: &str) -> Result<([u8; 26], u32), PositionStringError> {
    let mut counts = [0u8; 26];
    let mut pins = 0u32;
    let text = text.trim();
    if text.is_empty() {
        return Ok((counts, pins));
    }
    for entry in text.split(',') {
        let e = entry.trim();
        let bad = || PositionStringError::Entry(e.chars().take(20).collect());
        let (point, count) = e.split_once('-').ok_or_else(bad)?;
        let point: usize = if point.eq_ignore_ascii_case("bar") {
            BAR
        } else {
            match point.parse::<usize>() {
                Ok(p) if (1..=24).contains(&p) && point.bytes().all(|b| b.is_ascii_digit()) => p,
                _ => return Err(bad()),
            }
        };
        let (count, pinned) = match count.strip_suffix(['p', 'P']) {
            Some(c) => (c, true),
            None => (count, false),
        };
        if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) || count.len() > 2 {
            return Err(bad());
        }
        let n: u8 = count.parse().map_err(|_| bad())?;
        if !(1..=15).contains(&n) || (pinned && point == BAR) {
            return Err(bad());
        }
        if counts[point] != 0 {
            return Err(PositionStringError::Repeated(e.chars().take(20).collect()));
        }
        counts[point] = n;
        if pinned {
            pins |= 1 << point;
        }
    }
    Ok((counts, pins))
}

/// Reads a position string (module docs). Any bytes give a position or a typed error.
pub fn parse_position_string(text: &str) -> Result<TavliPosition, PositionStringError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(PositionStringError::Empty);
    }
    if text.len() > MAX_LEN {
        return Err(PositionStringError::TooLong);
    }
    let parts: Vec<&str> = text.split(':').collect();
    let [v, a, b] = parts.as_slice() else {
        return Err(PositionStringError::Parts);
    };
    let variant: Variant = v.parse().map_err(PositionStringError::Variant)?;
    let (ma, pa) = parse_side(a)?;
    let (mb, pb) = parse_side(b)?;
    TavliPosition::new(variant, ma, mb, [pa, pb]).map_err(PositionStringError::Position)
}

/// Why a play's text does not name a legal play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayTextError {
    /// Not moves of the form `FROM/TO[*][/TO...][(N)]` (points 1-24, `bar`, `off`).
    Syntax(String),
    /// Readable, but no legal play of the roll gives this result.
    Illegal(String),
    /// Several legal plays move the checkers so; the `*` marks must tell them apart.
    Ambiguous(String),
}

impl fmt::Display for PlayTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayTextError::Syntax(t) => write!(
                f,
                "cannot read the play {t:?}: expected moves like 24/18 13/11* 8/5(2) bar/22 6/off"
            ),
            PlayTextError::Illegal(t) => write!(f, "illegal play {t:?} for this roll"),
            PlayTextError::Ambiguous(t) => {
                write!(
                    f,
                    "the play {t:?} fits several legal plays: mark hits or pins with *"
                )
            }
        }
    }
}

impl std::error::Error for PlayTextError {}

fn point_of(text: &str) -> Option<u8> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("bar") {
        return Some(25);
    }
    if t.eq_ignore_ascii_case("off") {
        return Some(0);
    }
    if t.is_empty() || t.len() > 2 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok().filter(|p| (1..=24).contains(p))
}

/// Reads a play in the notation [`format_play`] writes (or its steps written singly, in
/// any order) and finds it among the legal plays of `dice` in `pos`: the play whose
/// result moves the mover's checkers so (and, where hits or pins tell plays apart, with
/// as many `*` marks). An empty text is the empty play. Any bytes give a play or a typed
/// error.
pub fn parse_play(
    pos: &TavliPosition,
    dice: crate::game::Dice,
    rules: &super::RuleSwitches,
    text: &str,
) -> Result<TavliPlay, PlayTextError> {
    let shown: String = text.chars().take(60).collect();
    let syntax = || PlayTextError::Syntax(shown.clone());
    let mut counts = *pos.counts(0);
    // The landing points marked `*` (hits or pins), each as often as it is marked.
    let mut marks: Vec<u8> = Vec::new();
    for token in text.split_whitespace() {
        if token.len() > 40 {
            return Err(syntax());
        }
        let (body, times) = match token.strip_suffix(')') {
            Some(rest) => {
                let (b, n) = rest.rsplit_once('(').ok_or_else(syntax)?;
                let n: u8 = n.parse().map_err(|_| syntax())?;
                if !(1..=4).contains(&n) {
                    return Err(syntax());
                }
                (b, n)
            }
            None => (token, 1),
        };
        let mut points = Vec::new();
        for part in body.split('/') {
            let (p, marked) = match part.strip_suffix('*') {
                Some(p) => (p, true),
                None => (part, false),
            };
            let point = point_of(p).ok_or_else(syntax)?;
            points.push(point);
            if marked {
                marks.extend(std::iter::repeat_n(point, usize::from(times)));
            }
        }
        if points.len() < 2 {
            return Err(syntax());
        }
        let (from, to) = (points[0], points[points.len() - 1]);
        if from == 0 || to == 25 || to >= from {
            return Err(syntax());
        }
        for _ in 0..times {
            let f = usize::from(from);
            if counts[f] == 0 {
                return Err(PlayTextError::Illegal(shown.clone()));
            }
            counts[f] -= 1;
            if to > 0 {
                counts[usize::from(to)] += 1;
            }
        }
    }
    let plays = super::legal_plays(pos, dice, rules);
    let fits: Vec<&TavliPlay> = plays
        .iter()
        .filter(|p| p.after.counts(0) == &counts)
        .collect();
    marks.sort_unstable();
    let marked: Vec<&&TavliPlay> = fits
        .iter()
        .filter(|p| {
            let mut m: Vec<u8> = p.steps().iter().filter(|s| s.mark).map(|s| s.to).collect();
            m.sort_unstable();
            m == marks
        })
        .collect();
    match (fits.as_slice(), marked.as_slice()) {
        ([], _) => Err(PlayTextError::Illegal(shown)),
        (_, [one]) => Ok(***one),
        // The marks left out (or wrong) where the moves alone decide.
        ([one], _) => Ok(**one),
        _ => Err(PlayTextError::Ambiguous(shown)),
    }
}

/// A point of the mover's numbering as plays write it: `off` for 0, `bar` for 25.
pub fn point_name(p: u8) -> String {
    match p {
        0 => "off".to_string(),
        25 => "bar".to_string(),
        p => p.to_string(),
    }
}

/// The play in gnubg's notation (`24/18 13/11`, `13/7(2)`, `24/13`, `bar/22*`), in the
/// mover's own numbering; `*` marks a hit in Portes and a pin in Plakoto. The empty play
/// is the empty string.
pub fn format_play(play: &TavliPlay) -> String {
    // Chains of one checker: (from, [(to, mark)]).
    let mut chains: Vec<(u8, Vec<(u8, bool)>)> = Vec::new();
    for s in play.steps() {
        let cont = chains
            .iter_mut()
            .rev()
            .find(|(_, path)| path.last().is_some_and(|&(to, _)| to == s.from && to != 0));
        match cont {
            Some((_, path)) => path.push((s.to, s.mark)),
            None => chains.push((s.from, vec![(s.to, s.mark)])),
        }
    }
    let mut texts: Vec<(u8, u8, String)> = chains
        .iter()
        .map(|(from, path)| {
            let mut t = point_name(*from);
            let n = path.len();
            for (i, &(to, mark)) in path.iter().enumerate() {
                if mark || i + 1 == n {
                    t.push('/');
                    t.push_str(&point_name(to));
                    if mark {
                        t.push('*');
                    }
                }
            }
            let last = path.last().map_or(0, |&(to, _)| to);
            (*from, last, t)
        })
        .collect();
    texts.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < texts.len() {
        let mut j = i + 1;
        while j < texts.len() && texts[j].2 == texts[i].2 {
            j += 1;
        }
        if j - i > 1 {
            out.push(format!("{}({})", texts[i].2, j - i));
        } else {
            out.push(texts[i].2.clone());
        }
        i = j;
    }
    out.join(" ")
}

/// The checkers of one point from the edge inwards: the pinned checker (lower case)
/// first, then the other side's.
fn stack(pos: &TavliPosition, m: usize) -> Vec<char> {
    let mut v = Vec::new();
    let mine = pos.counts(0)[m] as usize;
    let (theirs, pinned_mine, pinned_theirs) = if m == 0 || m == BAR {
        (0, false, false)
    } else {
        let q = opp_point(pos.variant(), m);
        (
            pos.counts(1)[q] as usize,
            pos.pins(0) >> m & 1 == 1,
            pos.pins(1) >> q & 1 == 1,
        )
    };
    if pinned_mine {
        v.push('x');
        v.extend(std::iter::repeat_n('O', theirs));
    } else if pinned_theirs {
        v.push('o');
        v.extend(std::iter::repeat_n('X', mine));
    } else {
        v.extend(std::iter::repeat_n('X', mine));
        v.extend(std::iter::repeat_n('O', theirs));
    }
    v
}

fn cell(stack: &[char], row: usize) -> String {
    if row == 4 && stack.len() > 5 {
        format!("{:>2} ", stack.len())
    } else {
        match stack.get(row) {
            Some(c) => format!(" {c} "),
            None => "   ".to_string(),
        }
    }
}

/// The board as text in gnubg's layout, the side to act as X at the bottom moving
/// 24 -> 1; a pinned checker is drawn in lower case at the edge under its pinners. The
/// bar column shows Portes' bars (O's above, X's below).
pub fn draw_board(pos: &TavliPosition) -> String {
    let stacks: Vec<Vec<char>> = (0..=25).map(|m| stack(pos, m)).collect();
    let opp_bar: Vec<char> = std::iter::repeat_n('O', pos.counts(1)[BAR] as usize).collect();
    let mut out = String::new();
    out.push_str(" +13-14-15-16-17-18------19-20-21-22-23-24-+\n");
    for row in 0..5 {
        out.push_str(" |");
        for p in 13..=18 {
            out.push_str(&cell(&stacks[p], row));
        }
        out.push('|');
        out.push_str(&cell(&opp_bar, row));
        out.push('|');
        for p in 19..=24 {
            out.push_str(&cell(&stacks[p], row));
        }
        out.push_str("|\n");
    }
    out.push_str(" |                  |BAR|                  |\n");
    for row in (0..5).rev() {
        out.push_str(" |");
        for p in (7..=12).rev() {
            out.push_str(&cell(&stacks[p], row));
        }
        out.push('|');
        out.push_str(&cell(&stacks[BAR], row));
        out.push('|');
        for p in (1..=6).rev() {
            out.push_str(&cell(&stacks[p], row));
        }
        out.push_str("|\n");
    }
    out.push_str(" +12-11-10--9--8--7-------6--5--4--3--2--1-+\n");
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::{Dice, Rng};
    use crate::tavli::{legal_plays, play_random_game, RuleSwitches};

    #[test]
    fn every_legal_play_reads_back_from_its_text_and_from_its_single_steps() {
        let rules = RuleSwitches::default();
        for variant in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            let mut rng = Rng::seeded(17);
            let mut checked = 0;
            for _ in 0..20 {
                play_random_game(variant, &rules, &mut rng, 2000, |pos, dice| {
                    for play in legal_plays(pos, dice, &rules) {
                        let text = format_play(&play);
                        let read = parse_play(pos, dice, &rules, &text).unwrap();
                        assert_eq!(read.after, play.after, "{pos:?} {dice:?} {text}");
                        // Each step on its own, with its mark.
                        let single: Vec<String> = play
                            .steps()
                            .iter()
                            .map(|s| {
                                format!(
                                    "{}/{}{}",
                                    point_name(s.from),
                                    point_name(s.to),
                                    if s.mark { "*" } else { "" }
                                )
                            })
                            .collect();
                        let read = parse_play(pos, dice, &rules, &single.join(" ")).unwrap();
                        assert_eq!(read.after, play.after);
                        checked += 1;
                    }
                });
            }
            assert!(checked > 1000, "{variant:?}: {checked}");
        }
    }

    #[test]
    fn plays_that_are_not_legal_or_not_plays_are_refused() {
        let rules = RuleSwitches::default();
        let start = parse_position_string("plakoto:24-15:24-15").unwrap();
        let d = Dice::new(6, 5).unwrap();
        assert!(parse_play(&start, d, &rules, "24/18 24/19").is_ok());
        assert!(parse_play(&start, d, &rules, "24/13").is_ok());
        for (text, illegal) in [
            ("24/18 24/18", true),
            ("24/17 24/20", true),
            ("13/7", true),
            ("", true),
            ("24-18", false),
            ("24/25", false),
            ("18/24", false),
            ("24/18(9)", false),
            ("\u{e9}/\u{e9}", false),
            ("24//18", false),
        ] {
            let e = parse_play(&start, d, &rules, text).unwrap_err();
            assert_eq!(
                matches!(e, PlayTextError::Illegal(_)),
                illegal,
                "{text}: {e}"
            );
            assert!(!e.to_string().contains('\n'));
        }
    }
}
