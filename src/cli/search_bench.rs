//! `stargammon bench search`: every algorithm at depths 1, 3, 5 over the committed set of
//! contact decisions (tests/data/search_positions.txt), and `--generate` to re-create
//! that set from seeded self-play.

use clap::Args;

use super::engine_arg::renamed;
use super::hint::parse_evaluator_arg;
use super::CliError;
use crate::engine::EvaluatorKind;
use std::io::Write;

use crate::bench::search::{run_search_bench, search_set, summarize, AlgoFigures, DecisionRecord};
use crate::search::positions::{format_set, self_play_positions};
use crate::search::{
    parse_depth, Algorithm, OrderingConfig, PlayOrder, ProbeChoice, RollOrder, SearchSettings,
};

#[derive(Debug, Args)]
pub struct SearchBenchArgs {
    /// The engine as a spec (`net,depth=5,algorithm=filter,filter=9:0.16/3:0.06`): its
    /// evaluator, table size, filter stages and pruning (`prune=N`), and, unless
    /// --depth(s) or --algorithms are given, its depth and algorithm alone.
    #[arg(long, value_name = "SPEC")]
    pub engine: Option<String>,
    /// One search depth (overrides --depths).
    #[arg(long, value_parser = parse_depth)]
    pub depth: Option<u8>,
    /// Comma-separated depths (default 1,3).
    #[arg(long)]
    pub depths: Option<String>,
    /// Use N decisions of the set (from --start on).
    #[arg(long)]
    pub positions: Option<usize>,
    /// Skip the first N decisions of the set (to resume a long run).
    #[arg(long, default_value_t = 0)]
    pub start: usize,
    /// Append one JSON line per searched decision to FILE as the run goes.
    #[arg(long, value_name = "FILE")]
    pub record: Option<std::path::PathBuf>,
    /// Instead of searching, print the figures of the decision records in FILE (from one
    /// or more --record runs; a decision searched twice counts once).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["record", "generate"])]
    pub summarize: Option<std::path::PathBuf>,
    /// Comma-separated algorithms (expectimax is the reference for the root play; default
    /// expectimax,star1,star2,filter).
    #[arg(long)]
    pub algorithms: Option<String>,
    /// The old name of --algorithms.
    #[arg(long, hide = true, conflicts_with = "algorithms")]
    pub algos: Option<String>,
    /// Search threads per decision.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Transposition table size in MB, cleared before every decision (default 64).
    #[arg(long)]
    pub tt_megabytes: Option<usize>,
    /// The old name of --tt-megabytes.
    #[arg(long, hide = true, conflicts_with = "tt_megabytes")]
    pub tt_mb: Option<usize>,
    /// Evaluator at the leaves: net (the shipped nets, default), net:PATH, or pip-sigmoid.
    #[arg(long, value_parser = parse_evaluator_arg)]
    pub evaluator: Option<EvaluatorKind>,
    /// The old name of --evaluator.
    #[arg(long, hide = true, value_parser = parse_evaluator_arg, conflicts_with = "evaluator")]
    pub eval: Option<EvaluatorKind>,
    /// Interior play ordering: evaluator, heuristic or none.
    #[arg(long, default_value = "evaluator")]
    pub plays: String,
    /// Star2 probe choice: evaluator, heuristic or first.
    #[arg(long, default_value = "evaluator")]
    pub probe: String,
    /// Roll order at chance nodes: nondoubles (non-doubles first) or natural.
    #[arg(long, default_value = "nondoubles")]
    pub rolls: String,
    /// Do not try the table's best play first.
    #[arg(long)]
    pub no_tt_best: bool,
    /// Instead of benchmarking, print a new set of N decisions from seeded self-play.
    #[arg(long)]
    pub generate: Option<usize>,
    /// Seed for --generate.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: SearchBenchArgs) -> Result<(), CliError> {
    if let Some(path) = &a.summarize {
        return summarize_file(path, a.json);
    }
    let spec = match &a.engine {
        Some(text) => Some(super::engine_arg::engine_arg(text)?),
        None => None,
    };
    let eval = renamed(&a.evaluator, &a.eval, "--evaluator", "--eval")
        .or_else(|| spec.as_ref().map(|s| s.evaluator.clone()))
        .unwrap_or(EvaluatorKind::Net(None));
    let tt_mb = renamed(&a.tt_megabytes, &a.tt_mb, "--tt-megabytes", "--tt-mb")
        .or_else(|| spec.as_ref().map(|s| s.tt_megabytes))
        .unwrap_or(64);
    // The spec's precision, as `engine::build` would evaluate it.
    let precision = spec.as_ref().map(|s| s.precision).unwrap_or_default();
    let evaluator = crate::engine::build::evaluator_with(&eval, precision)?;
    if let Some(n) = a.generate {
        let set = self_play_positions(evaluator.as_ref(), a.seed, n, 3);
        let header = format!(
            "Search benchmark set: {n} contact decisions (position, roll) from seeded self-play.\n\
             Made with: stargammon bench search --generate {n} --seed {} --eval {}\n\
             Format: 26 signed slot counts (side to act's view), then the two dice.",
            a.seed, eval
        );
        print!("{}", format_set(&set, &header));
        return Ok(());
    }
    let depths: Vec<u8> = match (a.depth, &a.depths, &spec) {
        (Some(d), _, _) => vec![d],
        (None, Some(list), _) => list.split(',').map(parse_depth).collect::<Result<_, _>>()?,
        (None, None, Some(s)) => vec![s.depth.get() as u8],
        (None, None, None) => vec![1, 3],
    };
    let algos: Vec<Algorithm> = match renamed(&a.algorithms, &a.algos, "--algorithms", "--algos") {
        Some(list) => list
            .split(',')
            .map(|s| s.trim().parse())
            .collect::<Result<_, _>>()?,
        None => match &spec {
            Some(s) => vec![s.algorithm],
            None => vec![
                Algorithm::Expectimax,
                Algorithm::Star1,
                Algorithm::Star2,
                Algorithm::Filter,
            ],
        },
    };
    if a.threads == 0 || a.threads > 64 {
        return Err("--threads must be 1..=64".into());
    }
    let ordering = OrderingConfig {
        tt_best: !a.no_tt_best,
        plays: match a.plays.as_str() {
            "evaluator" => PlayOrder::Evaluator,
            "heuristic" => PlayOrder::Heuristic,
            "none" => PlayOrder::None,
            other => return Err(format!("unknown --plays {other:?}").into()),
        },
        probe: match a.probe.as_str() {
            "evaluator" => ProbeChoice::Evaluator,
            "heuristic" => ProbeChoice::Heuristic,
            "first" => ProbeChoice::First,
            other => return Err(format!("unknown --probe {other:?}").into()),
        },
        rolls: match a.rolls.as_str() {
            "nondoubles" => RollOrder::NonDoublesFirst,
            "natural" => RollOrder::Natural,
            other => return Err(format!("unknown --rolls {other:?}").into()),
        },
    };
    let mut template = SearchSettings {
        threads: a.threads,
        ordering,
        ..SearchSettings::default()
    };
    if let Some(s) = &spec {
        template.filter = s.filter;
        template.prune = s.prune;
    }
    let full = search_set()?;
    if a.start >= full.len() {
        return Err(format!("--start must be below {}", full.len()).into());
    }
    let mut set = full[a.start..].to_vec();
    if let Some(n) = a.positions {
        if n == 0 {
            return Err("--positions must be at least 1".into());
        }
        set.truncate(n);
    }
    let mut command = format!(
        "stargammon bench search --depths {}{} --positions {} --algorithms {} --threads {} --tt-megabytes {} --evaluator {}",
        depths.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(","),
        if a.start > 0 { format!(" --start {}", a.start) } else { String::new() },
        set.len(),
        algos.iter().map(|a| a.name()).collect::<Vec<_>>().join(","),
        a.threads,
        tt_mb,
        eval
    );
    if template.ordering != OrderingConfig::default() {
        command.push_str(&format!(
            " --plays {} --probe {} --rolls {}{}",
            a.plays,
            a.probe,
            a.rolls,
            if a.no_tt_best { " --no-tt-best" } else { "" }
        ));
    }
    if let Some(s) = &spec {
        command.push_str(&format!(" --engine {s}"));
    }
    if a.json {
        command.push_str(" --json");
    }
    let mut record_file = match &a.record {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?,
        ),
        None => None,
    };
    let mut records: Vec<DecisionRecord> = Vec::new();
    let mut write_error: Option<String> = None;
    for &d in &depths {
        records.extend(run_search_bench(
            evaluator.clone(),
            &set,
            a.start,
            &algos,
            d,
            &template,
            tt_mb,
            |r| {
                if let Some(f) = record_file.as_mut() {
                    let line = serde_json::to_string(r).unwrap_or_default();
                    if let Err(e) = writeln!(f, "{line}") {
                        write_error.get_or_insert(format!("cannot write the record: {e}"));
                    }
                }
                let done = r.index - a.start + 1;
                if done == set.len() || done.is_multiple_of(20) {
                    eprint!("\rdepth {d} {}: {done}/{}   ", r.algo, set.len());
                }
            },
        ));
        eprintln!();
    }
    if let Some(e) = write_error {
        return Err(e.into());
    }
    print_figures(
        &summarize(&records),
        a.json,
        &command,
        a.threads,
        &eval.to_string(),
    );
    Ok(())
}

/// `--summarize FILE`: the figures of recorded decisions.
fn summarize_file(path: &std::path::Path, json: bool) -> Result<(), CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut records = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r: DecisionRecord = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: not a decision record: {e}", path.display(), n + 1))?;
        records.push(r);
    }
    if records.is_empty() {
        return Err(format!("{}: no decision records", path.display()).into());
    }
    let command = format!(
        "stargammon bench search --summarize {}{}",
        path.display(),
        if json { " --json" } else { "" }
    );
    print_figures(&summarize(&records), json, &command, 0, "recorded");
    Ok(())
}

/// Prints the figure lines as the table or as docs/cli.md's JSON object (`threads` 0: unknown).
fn print_figures(all: &[AlgoFigures], json: bool, command: &str, threads: usize, eval: &str) {
    let mut depths: Vec<u8> = all.iter().map(|f| f.depth).collect();
    depths.dedup();
    let deepest = depths.iter().copied().max().unwrap_or(1);
    let positions = all.iter().map(|f| f.positions).max().unwrap_or(0);
    if json {
        let mut by_depth = serde_json::Map::new();
        for &d in &depths {
            let mut algos_obj = serde_json::Map::new();
            for f in all.iter().filter(|f| f.depth == d) {
                algos_obj.insert(f.algo.clone(), figure_json(f));
            }
            by_depth.insert(d.to_string(), serde_json::Value::Object(algos_obj));
        }
        let same = all
            .iter()
            .filter(|f| f.depth == deepest && f.algo != "filter")
            .all(|f| f.same_root_play.is_none_or(|s| s == f.positions));
        println!(
            "{}",
            serde_json::json!({
                "positions": positions,
                "depth": deepest,
                "algos": by_depth.get(&deepest.to_string()),
                "same_root_play": same,
                "depths": by_depth,
                "threads": threads,
                "eval": eval,
                "command": command,
            })
        );
        return;
    }
    println!("search benchmark: {positions} decisions, evaluator {eval}, {threads} thread(s)");
    println!(
        "{:<11} {:>5} {:>9} {:>10} {:>10} {:>12} {:>12} {:>8} {:>8} {:>7} {:>12}",
        "algo",
        "depth",
        "decisions",
        "mean ms",
        "median ms",
        "mean nodes",
        "mean evals",
        "evals %",
        "TT hit",
        "probe",
        "same play"
    );
    for f in all {
        let pct = f
            .evals_vs_expectimax
            .map_or("-".to_string(), |r| format!("{:.1}%", 100.0 * r));
        let same = match f.same_root_play {
            None if f.algo == "expectimax" => "reference".to_string(),
            None => "-".to_string(),
            Some(s) if s == f.positions => "yes".to_string(),
            Some(s) => format!("no ({s}/{})", f.positions),
        };
        let probe = if f.algo == "star2" {
            format!("{:.1}%", 100.0 * f.probe_efficiency)
        } else {
            "-".to_string()
        };
        println!(
            "{:<11} {:>5} {:>9} {:>10.2} {:>10.2} {:>12.0} {:>12.0} {:>8} {:>7.1}% {:>7} {:>12}",
            f.algo,
            f.depth,
            f.positions,
            f.mean_ms,
            f.median_ms,
            f.mean_nodes,
            f.mean_evals,
            pct,
            100.0 * f.tt_hit_rate,
            probe,
            same
        );
    }
    println!("command: {command}");
}

fn figure_json(f: &AlgoFigures) -> serde_json::Value {
    serde_json::json!({
        "mean_ms": f.mean_ms,
        "median_ms": f.median_ms,
        "mean_nodes": f.mean_nodes,
        "mean_evals": f.mean_evals,
        "tt_hit_rate": f.tt_hit_rate,
        "probe_efficiency": f.probe_efficiency,
        "same_root_play": f.same_root_play.map(|s| s == f.positions),
        "same_root_play_count": f.same_root_play,
        "same_root_value_count": f.same_root_value,
        "evals_vs_expectimax": f.evals_vs_expectimax,
    })
}
