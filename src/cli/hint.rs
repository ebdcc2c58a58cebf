//! `stargammon hint`: ranks the plays of a roll with the search, or values a position
//! before the roll.
//!
//! Position input: `POS` as a gnubg Position ID, or `--slots` with the 26 signed slot
//! counts of [`Position`] (side to act's view). The Position ID decoder and the move
//! formatter below are local stand-ins until the shared position-argument parser and
//! move notation module are merged; `--slots` stays as a precise input for tests.

use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::CliError;
use crate::eval::{Evaluator, NeuralEvaluator, Probabilities};
use crate::game::{Dice, Play, Position};
use crate::search::simple_eval::PipSigmoid;
use crate::search::{parse_depth, Algorithm, Cancel, SearchSettings, Searcher, TranspositionTable};

#[derive(Debug, Args)]
pub struct HintArgs {
    /// The position (gnubg Position ID, player on roll to act).
    pub pos: Option<String>,
    /// The position as 26 comma-separated signed slot counts (side to act's view).
    #[arg(long, allow_hyphen_values = true)]
    pub slots: Option<String>,
    /// The roll; without it the position is valued before the roll.
    #[arg(long, num_args = 2, value_names = ["D1", "D2"])]
    pub dice: Option<Vec<u8>>,
    /// Search depth (odd): 1 = static evaluation, 3, 5, ...
    #[arg(long, default_value = "3", value_parser = parse_depth)]
    pub depth: u8,
    /// Search algorithm: star2, star1, expectimax or filter.
    #[arg(long, default_value = "star2")]
    pub algo: Algorithm,
    /// How many of the best plays get an exact value at the full depth.
    #[arg(long, default_value_t = 5)]
    pub rank: usize,
    /// Search threads for this decision.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Time budget in milliseconds (the deepest completed iteration answers).
    #[arg(long)]
    pub time_ms: Option<u64>,
    /// Transposition table size in MB.
    #[arg(long, default_value_t = 64)]
    pub tt_mb: usize,
    /// Evaluator: net (the shipped nets), net:PATH, or pip-sigmoid.
    #[arg(long, default_value = "net")]
    pub eval: String,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The evaluators the search commands can use, by name.
pub fn evaluator_by_name(name: &str) -> Result<Arc<dyn Evaluator>, CliError> {
    match name {
        "pip-sigmoid" => Ok(Arc::new(PipSigmoid)),
        "net" => Ok(Arc::new(NeuralEvaluator::default_nets()?)),
        _ => match name.strip_prefix("net:") {
            Some(path) if !path.is_empty() => {
                Ok(Arc::new(NeuralEvaluator::load(std::path::Path::new(path))?))
            }
            _ => Err(
                format!("unknown evaluator {name:?} (expected net, net:PATH or pip-sigmoid)")
                    .into(),
            ),
        },
    }
}

/// Why a position argument was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PosArgError {
    /// Not a well-formed Position ID or slot list.
    Syntax(String),
    /// Well-formed but not a legal position.
    Illegal(String),
    Missing,
}

impl std::fmt::Display for PosArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PosArgError::Syntax(s) => write!(f, "cannot parse position: {s}"),
            PosArgError::Illegal(s) => write!(f, "not a legal position: {s}"),
            PosArgError::Missing => f.write_str("a position is required (POS or --slots)"),
        }
    }
}

impl std::error::Error for PosArgError {}

/// Parses 26 comma-separated signed slot counts.
pub fn parse_slots(text: &str) -> Result<Position, PosArgError> {
    let mut slots = [0i8; 26];
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 26 {
        return Err(PosArgError::Syntax(format!(
            "expected 26 slot counts, got {}",
            parts.len()
        )));
    }
    for (i, p) in parts.iter().enumerate() {
        slots[i] = p
            .parse()
            .map_err(|_| PosArgError::Syntax(format!("bad slot count {p:?}")))?;
    }
    Position::from_slots(slots).map_err(|e| PosArgError::Illegal(e.to_string()))
}

/// Decodes a gnubg Position ID (14 base64 characters, 80 bits: the side not on roll's 25
/// runs of ones, then the side on roll's, each point's count followed by a zero bit,
/// least significant bit of each byte first).
pub fn parse_position_id(id: &str) -> Result<Position, PosArgError> {
    let id = id.trim();
    if id.len() != 14 {
        return Err(PosArgError::Syntax(format!(
            "a Position ID has 14 characters, got {}",
            id.len()
        )));
    }
    let mut bytes = [0u8; 11];
    let mut acc = 0u32;
    let mut nbits = 0;
    let mut k = 0;
    for c in id.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => {
                return Err(PosArgError::Syntax(format!(
                    "bad Position ID character {:?}",
                    c as char
                )))
            }
        };
        acc = (acc << 6) | v as u32;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            if k < bytes.len() {
                bytes[k] = (acc >> nbits) as u8;
                k += 1;
            }
        }
    }
    let mut sides = [[0u8; 25]; 2];
    let mut bit = 0usize;
    for side in sides.iter_mut() {
        for point in side.iter_mut() {
            loop {
                if bit >= 80 {
                    return Err(PosArgError::Syntax("Position ID runs out of bits".into()));
                }
                let set = bytes[bit / 8] >> (bit % 8) & 1 == 1;
                bit += 1;
                if !set {
                    break;
                }
                *point = point.saturating_add(1);
            }
        }
    }
    Position::from_sides(&sides[1], &sides[0]).map_err(|e| PosArgError::Illegal(e.to_string()))
}

/// A play in gnubg-like notation: `8/5 6/5`, `bar/22*`, `4/off`.
pub fn format_play(play: &Play) -> String {
    let mut steps: Vec<_> = play.steps().to_vec();
    steps.sort_by(|a, b| b.from.cmp(&a.from).then(b.to.cmp(&a.to)));
    let parts: Vec<String> = steps
        .iter()
        .map(|s| {
            let from = if s.from == 25 {
                "bar".to_string()
            } else {
                s.from.to_string()
            };
            let to = if s.to == 0 {
                "off".to_string()
            } else {
                s.to.to_string()
            };
            format!("{from}/{to}{}", if s.hit { "*" } else { "" })
        })
        .collect();
    parts.join(" ")
}

fn probs_json(p: &Probabilities) -> serde_json::Value {
    serde_json::json!(p
        .0
        .iter()
        .map(|&x| (x as f64 * 1e4).round() / 1e4)
        .collect::<Vec<_>>())
}

pub fn run(a: HintArgs) -> Result<(), CliError> {
    let pos = match (&a.slots, &a.pos) {
        (Some(s), _) => parse_slots(s)?,
        (None, Some(id)) => parse_position_id(id)?,
        (None, None) => return Err(PosArgError::Missing.into()),
    };
    let dice = match &a.dice {
        Some(d) if d.len() == 2 => Some(Dice::new(d[0], d[1])?),
        Some(_) => return Err("--dice takes two values".into()),
        None => None,
    };
    if a.threads == 0 || a.threads > 64 {
        return Err("--threads must be 1..=64".into());
    }
    let searcher = Searcher::new(
        evaluator_by_name(&a.eval)?,
        Arc::new(TranspositionTable::new(a.tt_mb.max(1))),
    );
    let mut settings = SearchSettings::new(a.depth, a.algo);
    settings.rank = a.rank.max(1);
    settings.threads = a.threads;
    settings.probabilities = true;
    settings.time_budget = a.time_ms.map(Duration::from_millis);
    let cancel = Cancel::new();
    match dice {
        Some(dice) => {
            let d = searcher.choose(&pos, dice, &settings, &cancel);
            if a.json {
                let plays: Vec<_> = d
                    .plays
                    .iter()
                    .map(|p| {
                        serde_json::json!({
                            "move": format_play(&p.play),
                            "equity": (p.equity * 1e6).round() / 1e6,
                            "probs": probs_json(&p.probs),
                            "depth": p.depth,
                        })
                    })
                    .collect();
                println!(
                    "{}",
                    serde_json::json!({
                        "plays": plays,
                        "depth": d.depth,
                        "algo": a.algo.name(),
                        "ms": d.elapsed.as_secs_f64() * 1000.0,
                        "nodes": d.stats.nodes(),
                        "evals": d.stats.evals,
                    })
                );
            } else {
                println!(
                    "{} to play {dice}, {} at depth {} ({} ms, {} evaluations)",
                    pos.debug_string(),
                    a.algo,
                    d.depth,
                    d.elapsed.as_millis(),
                    d.stats.evals
                );
                for (k, p) in d.plays.iter().enumerate() {
                    let pr = &p.probs.0;
                    println!(
                        "{:>3}. {:<24} {:+.4}  (depth {})  {:.3} {:.3} {:.3} - {:.3} {:.3} {:.3}",
                        k + 1,
                        format_play(&p.play),
                        p.equity,
                        p.depth,
                        pr[0],
                        pr[1],
                        pr[2],
                        1.0 - pr[0],
                        pr[3],
                        pr[4]
                    );
                }
            }
        }
        None => {
            let e = searcher.evaluate_position(&pos, &settings, &cancel);
            if a.json {
                println!(
                    "{}",
                    serde_json::json!({
                        "evaluation": {
                            "equity": (e.equity * 1e6).round() / 1e6,
                            "probs": probs_json(&e.probs),
                            "depth": e.depth,
                        },
                        "ms": e.elapsed.as_secs_f64() * 1000.0,
                    })
                );
            } else {
                let pr = &e.probs.0;
                println!(
                    "cubeless equity {:+.4} at depth {}: win {:.3} (g {:.3} bg {:.3}) lose {:.3} (g {:.3} bg {:.3})",
                    e.equity,
                    e.depth,
                    pr[0],
                    pr[1],
                    pr[2],
                    1.0 - pr[0],
                    pr[3],
                    pr[4]
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_opening_id_and_slots() {
        assert_eq!(
            parse_position_id("4HPwATDgc/ABMA").unwrap(),
            Position::OPENING
        );
        assert!(matches!(
            parse_position_id("4HPwATDgc/AB"),
            Err(PosArgError::Syntax(_))
        ));
        assert!(matches!(
            parse_position_id("////////////AA"),
            Err(PosArgError::Illegal(_) | PosArgError::Syntax(_))
        ));
        let s: Vec<String> = Position::OPENING
            .slots()
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(parse_slots(&s.join(",")).unwrap(), Position::OPENING);
        assert!(matches!(parse_slots("1,2"), Err(PosArgError::Syntax(_))));
    }
}
