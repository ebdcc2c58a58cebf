//! `stargammon hint`: ranks the plays of a roll with the search, or gives the cube
//! decision (double or roll, take or drop) from the searched probabilities.
//!
//! Position input: `POS` in any format [`parse_pos_arg`] reads (gnubg ids, XGID, FIBS
//! board), or `--slots` with the 26 signed slot counts of [`Position`] (side to act's
//! view, money play, centred cube).

use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::pos_arg::parse_pos_arg;
use super::CliError;
use crate::cube::{CubeDecision, DoubleAction, TakeAction};
use crate::engine::build as engine_build;
use crate::engine::{Budget, Depth, EngineSpec, EvaluatorKind};
use crate::eval::{Evaluator, Probabilities};
use crate::game::{Decision, MatchState, Position};
use crate::notation::{format_play, MoveStyle};
use crate::search::{Algorithm, Cancel, SearchSettings};

#[derive(Debug, Args)]
pub struct HintArgs {
    /// The position: gnubg Position ID (with optional Match ID), XGID or FIBS board.
    pub pos: Option<String>,
    /// The position as 26 comma-separated signed slot counts (side to act's view).
    #[arg(long, allow_hyphen_values = true)]
    pub slots: Option<String>,
    /// The roll (overrides dice in POS); without dice the cube decision is given.
    #[arg(long, num_args = 2, value_names = ["D1", "D2"])]
    pub dice: Option<Vec<u8>>,
    /// Search depth (odd): 1 = static evaluation, 3, 5, ...
    #[arg(long, default_value = "3", value_parser = parse_depth_arg)]
    pub depth: Depth,
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
    /// Evaluator: net (the shipped nets), net:PATH, or pipsigmoid.
    #[arg(long, default_value = "net", value_parser = parse_evaluator_arg)]
    pub eval: EvaluatorKind,
    /// Configuration file (TOML) whose [cube] section sets the cube model.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// A depth argument, with the spec's message for a bad one.
pub fn parse_depth_arg(text: &str) -> Result<Depth, String> {
    let d: u32 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?}: expected an odd depth from 1 to 9"))?;
    Depth::new(d).map_err(|e| e.to_string())
}

/// An evaluator argument of the search commands: those of the server's config (`net`,
/// `net:PATH`, `pipsigmoid`), with `pip-sigmoid` also accepted.
pub fn parse_evaluator_arg(text: &str) -> Result<EvaluatorKind, String> {
    let text = if text == "pip-sigmoid" {
        "pipsigmoid"
    } else {
        text
    };
    let kind: EvaluatorKind = text
        .parse()
        .map_err(|e: crate::engine::SpecError| e.to_string())?;
    if !kind.is_evaluator() {
        return Err(format!(
            "{kind} is not an evaluator (use net, net:PATH or pipsigmoid)"
        ));
    }
    Ok(kind)
}

/// The evaluator of a search command.
pub fn load_evaluator(kind: &EvaluatorKind) -> Result<Arc<dyn Evaluator>, CliError> {
    Ok(engine_build::evaluator(kind)?)
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

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The answer cli.md names for the acting side: "double" or "no double" for the roller,
/// "take", "drop" or "beaver" at a take question.
fn cube_action(state: &MatchState, d: &CubeDecision) -> &'static str {
    if matches!(state.decision, Decision::TakeOrDrop) {
        return match d.response {
            TakeAction::Take => "take",
            TakeAction::Drop => "drop",
            TakeAction::Beaver if state.is_money() => "beaver",
            TakeAction::Beaver => "take",
        };
    }
    let can_double = state.may_double && !state.crawford;
    match d.action {
        DoubleAction::DoubleTake | DoubleAction::DoublePass | DoubleAction::DoubleBeaver
            if can_double =>
        {
            "double"
        }
        _ => "no double",
    }
}

/// "win w wg wbg - lose l lg lbg" for text output.
fn probs_text(p: &Probabilities) -> String {
    let pr = &p.0;
    format!(
        "{:.3} {:.3} {:.3} - {:.3} {:.3} {:.3}",
        pr[0],
        pr[1],
        pr[2],
        1.0 - pr[0],
        pr[3],
        pr[4]
    )
}

fn probs_json(p: &Probabilities) -> serde_json::Value {
    serde_json::json!(p
        .0
        .iter()
        .map(|&x| (x as f64 * 1e4).round() / 1e4)
        .collect::<Vec<_>>())
}

pub fn run(a: HintArgs) -> Result<(), CliError> {
    let state = match (&a.slots, &a.pos) {
        (Some(s), _) => MatchState::money(parse_slots(s)?, Decision::DoubleOrRoll),
        (None, Some(text)) => parse_pos_arg(text)?,
        (None, None) => return Err(PosArgError::Missing.into()),
    };
    let pos = state.position;
    let dice = super::pos_arg::roll_arg(a.dice.as_deref(), &state)?;
    if a.threads == 0 || a.threads > 64 {
        return Err("--threads must be 1..=64".into());
    }
    let config = super::serve::load_config(a.config.as_ref())?;
    // The position's own rules (an XGID's Jacoby and beaver flags, a Match ID's Jacoby
    // bit) hold for it whatever the configuration says.
    let cube = config.cube.under(state.rules);
    let spec = EngineSpec {
        evaluator: a.eval.clone(),
        algorithm: a.algo,
        depth: a.depth,
        cube_depth: a.depth,
        budget: Budget::from_millis(a.time_ms.unwrap_or(0)),
        cube,
        tt_megabytes: a.tt_mb.max(1),
        ..config.engine_spec()
    };
    let engine = engine_build::engine(&spec)?;
    let searcher = engine.searcher();
    let mut settings = SearchSettings::new(a.depth.get() as u8, a.algo);
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
                            "move": format_play(&pos, &p.play, MoveStyle::Gnubg),
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
                    println!(
                        "{:>3}. {:<24} {:+.4}  (depth {})  {}",
                        k + 1,
                        format_play(&pos, &p.play, MoveStyle::Gnubg),
                        p.equity,
                        p.depth,
                        probs_text(&p.probs)
                    );
                }
            }
        }
        None => {
            // At a take question the doubler is the one about to roll.
            let taking = matches!(state.decision, Decision::TakeOrDrop);
            let roller = if taking { pos.swap() } else { pos };
            let e = searcher.evaluate_position(&roller, &settings, &cancel);
            let analysis = engine.cube_analysis(&state, &e.probs);
            let action = cube_action(&state, &analysis);
            if a.json {
                let mut equities = serde_json::json!({
                    "no_double": round6(analysis.no_double),
                    "double_take": round6(analysis.double_take),
                    "double_pass": round6(analysis.double_pass),
                });
                if let Some(b) = analysis.double_beaver {
                    equities["double_beaver"] = serde_json::json!(round6(b));
                }
                println!(
                    "{}",
                    serde_json::json!({
                        "cube": {
                            "action": action,
                            "equities": equities,
                            "proper": analysis.action.to_string(),
                            "response": analysis.response.to_string(),
                            "efficiency": analysis.efficiency,
                            "jacoby": cube.jacoby,
                            "beavers": cube.beavers,
                        },
                        "evaluation": {
                            "equity": (e.equity * 1e6).round() / 1e6,
                            "probs": probs_json(&e.probs),
                            "depth": e.depth,
                            "roller": if taking { "opponent" } else { "self" },
                        },
                        "ms": e.elapsed.as_secs_f64() * 1000.0,
                    })
                );
            } else {
                println!(
                    "{} cubeless equity {:+.4} at depth {}:  {}",
                    if taking { "doubler's" } else { "roller's" },
                    e.equity,
                    e.depth,
                    probs_text(&e.probs)
                );
                let unit = if state.is_money() {
                    "equity"
                } else {
                    "match winning chance"
                };
                if state.is_money() {
                    println!(
                        "rules: Jacoby {}, beavers {}",
                        on_off(cube.jacoby),
                        on_off(cube.beavers)
                    );
                }
                println!("cubeful {unit} for the roller:");
                println!("  no double     {:+.4}", analysis.no_double);
                println!("  double, take  {:+.4}", analysis.double_take);
                println!("  double, pass  {:+.4}", analysis.double_pass);
                if let Some(b) = analysis.double_beaver {
                    println!("  double, beaver {:+.4}", b);
                }
                println!(
                    "proper cube action: {}; answer: {}",
                    analysis.action, analysis.response
                );
                println!("decision: {action}");
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
    fn parses_slots() {
        let s: Vec<String> = Position::OPENING
            .slots()
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(parse_slots(&s.join(",")).unwrap(), Position::OPENING);
        assert!(matches!(parse_slots("1,2"), Err(PosArgError::Syntax(_))));
    }
}
