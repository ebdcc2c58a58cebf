//! The Jellyfish `.mat` match format, as gnubg imports it (`import mat FILE`).

use crate::arena::referee::{Event, MatchRecord};

/// Writes matches in the Jellyfish `.mat` text format that gnubg imports
/// (`import mat FILE`). Moves are written as gnubg does in that format: dice high-low,
/// each step `from/to` in the mover's numbering, bar 25, off 0, `*` after a hit.
pub fn write_mat(
    out: &mut dyn std::io::Write,
    length: u32,
    matches: &[MatchRecord],
) -> std::io::Result<()> {
    for record in matches {
        let names = match record.games.first() {
            Some((setup, _)) => setup.names.clone(),
            None => continue,
        };
        writeln!(out, " {length} point match")?;
        writeln!(out)?;
        for (i, (setup, game)) in record.games.iter().enumerate() {
            writeln!(out, " Game {}", i + 1)?;
            let left = format!("{} : {}", mat_name(&names[0]), setup.score[0]);
            let right = format!("{} : {}", mat_name(&names[1]), setup.score[1]);
            writeln!(out, " {left:<31}{right}")?;
            // Actions strictly alternate between the two columns.
            let mut cells: Vec<String> = Vec::new();
            let starter = if game.opening.0 > game.opening.1 {
                0
            } else {
                1
            };
            if starter == 1 {
                cells.push(String::new());
            }
            for e in &game.events {
                cells.push(match e {
                    Event::Move { dice, play, .. } => {
                        let steps: Vec<String> = play
                            .steps()
                            .iter()
                            .map(|s| format!("{}/{}{}", s.from, s.to, if s.hit { "*" } else { "" }))
                            .collect();
                        format!("{}{}: {}", dice.high(), dice.low(), steps.join(" "))
                    }
                    Event::Double { cube, .. } => format!(" Doubles => {cube}"),
                    Event::Take { .. } => " Takes".to_string(),
                    Event::Drop { .. } => " Drops".to_string(),
                });
            }
            let pts = if game.points == 1 { "point" } else { "points" };
            let wins = format!(" Wins {} {pts}", game.points);
            // The result goes in the winner's column: on the last row when that cell is
            // still free (a left-column drop, the right side wins), else on a line of its
            // own.
            let same_row = cells.len() % 2 == 1 && game.winner == 1;
            if same_row {
                cells.push(wins.clone());
            }
            for (row, pair) in cells.chunks(2).enumerate() {
                let l = &pair[0];
                match pair.get(1) {
                    // A long left cell still keeps a space before the right one.
                    Some(r) => writeln!(out, "{:>3}) {:<28}{r}", row + 1, format!("{l} "))?,
                    None => writeln!(out, "{:>3}) {l}", row + 1)?,
                }
            }
            if !same_row {
                let indent = if game.winner == 0 { 5 } else { 33 };
                writeln!(out, "{:indent$}{wins}", "")?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

/// Names in .mat files are single words.
fn mat_name(name: &str) -> String {
    let n: String = name
        .chars()
        .map(|c| {
            if c.is_whitespace() || c == ':' {
                '_'
            } else {
                c
            }
        })
        .collect();
    if n.is_empty() {
        "player".into()
    } else {
        n
    }
}
