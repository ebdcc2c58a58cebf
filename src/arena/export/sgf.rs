//! gnubg's SGF dialect for backgammon (`GM[6]`), as gnubg saves and loads matches
//! (`save match`, `load match`): one game tree per game; the root node holds the match
//! (`MI[length:L][game:G][ws:S0][bs:S1]`), the players (`PW` seat 0, `PB` seat 1), the
//! rules (`RU`) and the result (`RE[W+N]`); then one node per action: `W[...]` or
//! `B[...]` holding `double`, `take`, `drop`, or the dice followed by a letter pair per
//! step. Letters: seat 0's point p is the (p-1)th letter from `a`, seat 1's point p the
//! (24-p)th; `y` is the bar and `z` off, for both.

use crate::arena::referee::{Event, MatchRecord};

/// Writes matches in gnubg's SGF dialect (each game a tree; several matches one after
/// another).
pub fn write_sgf(
    out: &mut dyn std::io::Write,
    length: u32,
    matches: &[MatchRecord],
) -> std::io::Result<()> {
    for record in matches {
        for (i, (setup, game)) in record.games.iter().enumerate() {
            let mut rules = Vec::new();
            if !setup.cube {
                rules.push("NoCube");
            }
            if length > 0 {
                rules.push("Crawford");
                if setup.crawford {
                    rules.push("CrawfordGame");
                }
            }
            write!(
                out,
                "(;FF[4]GM[6]CA[UTF-8]AP[stargammon]MI[length:{length}][game:{i}][ws:{}][bs:{}]PW[{}]PB[{}]",
                setup.score[0],
                setup.score[1],
                escape(&setup.names[0]),
                escape(&setup.names[1]),
            )?;
            if !rules.is_empty() {
                write!(out, "RU[{}]", rules.join(":"))?;
            }
            writeln!(
                out,
                "RE[{}+{}]",
                if game.winner == 0 { "W" } else { "B" },
                game.points
            )?;
            for e in &game.events {
                let (seat, value) = match e {
                    Event::Move { seat, dice, play } => {
                        let mut v = format!("{}{}", dice.high(), dice.low());
                        for s in play.steps() {
                            v.push(letter(*seat, s.from));
                            v.push(letter(*seat, s.to));
                        }
                        (*seat, v)
                    }
                    Event::Double { seat, .. } => (*seat, "double".to_string()),
                    Event::Take { seat } => (*seat, "take".to_string()),
                    Event::Drop { seat } => (*seat, "drop".to_string()),
                };
                writeln!(out, ";{}[{value}]", if seat == 0 { "W" } else { "B" })?;
            }
            writeln!(out, ")")?;
        }
    }
    Ok(())
}

/// The letter of point `p` (mover's numbering, 25 bar, 0 off) of `seat`.
fn letter(seat: usize, p: u8) -> char {
    let index = match p {
        25 => 24,
        0 => 25,
        p if seat == 0 => p - 1,
        p => 24 - p,
    };
    char::from(b'a' + index.min(25))
}

fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ']' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s
}
