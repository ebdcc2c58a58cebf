//! `stargammon analyse FILE`: every checker play and cube decision of a `.mat` or `.sgf` file
//! scored by the engine (see [`crate::analysis`] for what is measured), with per-player
//! error rates, gnubg's Snowie-style rate, a rating label and luck; text or JSON. Many
//! files at once (`--files LIST`, shards, `--merge`): [`super::analyse_batch`].

use std::path::PathBuf;

use clap::Args;

use super::hint::parse_depth_arg;
use super::CliError;
use crate::analysis::{replay, Analyser, Analysis, FlaggedRollout, ReplayedGame, Skill};
use crate::engine::build as engine_build;
use crate::engine::{CubePolicy, Depth, Engine, EngineSpec};
use crate::notation::match_file::{read_match_file, MatchText};

#[derive(Debug, Args)]
pub struct AnalyseArgs {
    /// The match file: .mat (Jellyfish text, as gnubg imports and exports it) or gnubg's
    /// .sgf (a file starting with `(`).
    #[arg(required_unless_present_any = ["files", "merge"])]
    pub file: Option<PathBuf>,
    /// Analyse every match file named in LIST instead: one path per line (relative paths
    /// from LIST's directory; blank lines and lines starting with `#` skipped). Writes one
    /// JSON line per file (to --out, or stdout) with the figures of `--json` for that file
    /// alone, without the timing; a file that does not read gets a line with its `error`.
    #[arg(long, value_name = "LIST", conflicts_with_all = ["file", "merge"])]
    pub files: Option<PathBuf>,
    /// With --files: only the files with index % N == I (counting files from 0 in list
    /// order), for job arrays; `--merge` joins the parts.
    #[arg(long, value_name = "I/N", default_value = "0/1", requires = "files")]
    pub shard: String,
    /// The JSON-lines file of --files (appended to: files already in it are not analysed
    /// again, so a stopped run resumes) or of --merge.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Join the JSON-lines files of the shards of one --files run into --out (or stdout),
    /// in list order; the result is byte for byte what one unsharded run writes.
    #[arg(long, value_name = "PART", num_args = 1.., conflicts_with = "file")]
    pub merge: Vec<PathBuf>,
    /// The engine as a spec (`net,depth=3,cube_depth=3,cubeful_plays=on`, as duel and
    /// match players take); --depth or --plies, where given, set its checker and cube
    /// depth. Default: the shipped nets with cubeful plays, at depth 1.
    #[arg(long, value_name = "SPEC")]
    pub engine: Option<String>,
    /// Search depth (odd): 1 = static evaluation of each play, 3, 5, ...
    #[arg(long, value_parser = parse_depth_arg, conflicts_with = "plies")]
    pub depth: Option<Depth>,
    /// gnubg plies: 0-ply = depth 1, 1-ply = depth 3, 2-ply = depth 5.
    #[arg(long, conflicts_with = "depth")]
    pub plies: Option<u32>,
    /// Worker threads (default: the machine's cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// No progress bar on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Then roll out every flagged decision (cubefully, at the score): the play made
    /// against the best play, a cube decision's three choices; the rollout's verdict
    /// replaces the analysis's for that decision and the totals are summed again.
    #[arg(long)]
    pub rollout: bool,
    /// With --rollout: trials per decision.
    #[arg(long, value_name = "N", default_value_t = ROLLOUT_TRIALS, requires = "rollout")]
    pub rollout_trials: u64,
    /// With --rollout: the least flag rolled out (doubtful, error or blunder).
    #[arg(long, value_name = "SKILL", default_value = "doubtful", value_parser = parse_skill,
        requires = "rollout")]
    pub rollout_skill: Skill,
    /// With --rollout: the rollout players' engine as a spec (default: the shipped nets
    /// at depth 1, cube decisions at depth 1, as `stargammon rollout` plays).
    #[arg(long, value_name = "SPEC", requires = "rollout")]
    pub rollout_engine: Option<String>,
    /// With --rollout: the seed of the rollouts' dice (each decision rolled out on it).
    #[arg(long, value_name = "SEED", default_value_t = 1, requires = "rollout")]
    pub rollout_seed: u64,
}

/// Trials per flagged decision by default: a fraction of a full stratification of the
/// first two rolls (1,296), enough for standard errors of a few hundredths with variance
/// reduction in a time an analyst waits for.
pub const ROLLOUT_TRIALS: u64 = 216;

/// A least flag to roll out: `doubtful`, `error` or `blunder`.
pub fn parse_skill(s: &str) -> Result<Skill, String> {
    match s {
        "doubtful" => Ok(Skill::Doubtful),
        "error" => Ok(Skill::Error),
        "blunder" => Ok(Skill::Blunder),
        other => Err(format!("{other:?}: expected doubtful, error or blunder")),
    }
}

pub fn run(a: AnalyseArgs) -> Result<(), CliError> {
    if !a.merge.is_empty() {
        return super::analyse_batch::merge(&a.merge, a.out.as_deref());
    }
    let spec = engine_spec(&a)?;
    let depth = spec.depth;
    let threads = super::threads_arg(a.threads)?.min(64);
    if a.files.is_some() {
        return super::analyse_batch::run(&a, &spec, threads);
    }
    let engines = Engines::new(&spec)?;
    let file = a
        .file
        .as_deref()
        .ok_or("give a match file, --files LIST or --merge")?;
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let (text, games) = read_and_replay(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    let total: usize = games.iter().map(|g| g.decisions.len()).sum();
    let bar = progress_bar(a.quiet, total, "analysed");
    let start = std::time::Instant::now();
    let mut analysis = engines.analyser().analyse(&games, threads, &|| bar.inc(1));
    bar.finish_and_clear();
    let rolled = match RolloutPlan::of(&a, threads)? {
        Some(plan) => {
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            super::rollout::stop_on_ctrl_c(stop.clone(), "keeping the decisions not rolled out")?;
            Some(plan.apply(&mut analysis, &games, &stop, a.quiet)?)
        }
        None => None,
    };
    let seconds = start.elapsed().as_secs_f64();
    if a.json {
        let mut v = analysis_json(&analysis, &file.display().to_string(), depth, text.length)?;
        if let Some(r) = &rolled {
            v["rollout"] = r.json();
        }
        v["seconds"] = serde_json::json!((seconds * 1000.0).round() / 1000.0);
        println!("{v}");
    } else {
        print_text(
            file,
            depth,
            text.length,
            &analysis,
            seconds,
            rolled.as_ref(),
        );
    }
    Ok(())
}

/// What `--rollout` asks for, as its flags (and Python's keywords) give it.
#[derive(Debug, Clone)]
pub struct RolloutOptions {
    /// Trials per decision.
    pub trials: u64,
    pub seed: u64,
    /// The least flag rolled out.
    pub min_skill: Skill,
    /// The rollout players' spec (default: the shipped nets at depth 1).
    pub engine: Option<String>,
}

impl Default for RolloutOptions {
    fn default() -> Self {
        RolloutOptions {
            trials: ROLLOUT_TRIALS,
            seed: 1,
            min_skill: Skill::Doubtful,
            engine: None,
        }
    }
}

/// `--rollout` ready to run: the rollout players and settings, and the least flag.
#[derive(Debug)]
pub struct RolloutPlan {
    rollout: crate::rollout::Rollout,
    settings: crate::rollout::RolloutSettings,
    min_skill: Skill,
    engine: String,
}

/// What `--rollout` did to one analysis.
#[derive(Debug)]
pub struct Rolled {
    flagged: usize,
    rolled_out: usize,
    trials: u64,
    seed: u64,
    engine: String,
    min_skill: Skill,
    stopped: bool,
}

impl Rolled {
    /// The analysis JSON's `rollout` object.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "flagged": self.flagged,
            "rolled_out": self.rolled_out,
            "trials": self.trials,
            "seed": self.seed,
            "engine": self.engine,
            "min_skill": self.min_skill,
            "stopped": self.stopped,
        })
    }
}

impl RolloutPlan {
    /// The plan of `a`'s --rollout flags on `threads` threads; `None` without --rollout.
    pub(super) fn of(a: &AnalyseArgs, threads: usize) -> Result<Option<RolloutPlan>, CliError> {
        if !a.rollout {
            return Ok(None);
        }
        let options = RolloutOptions {
            trials: a.rollout_trials,
            seed: a.rollout_seed,
            min_skill: a.rollout_skill,
            engine: a.rollout_engine.clone(),
        };
        RolloutPlan::new(&options, threads).map(Some)
    }

    /// The plan of `options` on `threads` threads.
    pub fn new(options: &RolloutOptions, threads: usize) -> Result<RolloutPlan, CliError> {
        if options.trials == 0 {
            return Err("--rollout-trials must be at least 1".into());
        }
        let mut spec = match &options.engine {
            Some(text) => super::engine_arg::engine_arg(text)?,
            None => EngineSpec::of(crate::engine::EvaluatorKind::Net(None)),
        };
        if spec.tt_megabytes == crate::engine::spec::DEFAULT_TT_MB {
            spec.tt_megabytes = super::rollout::TRIAL_TT_MB;
        }
        Ok(RolloutPlan {
            rollout: crate::rollout::Rollout::new(&spec)?,
            settings: crate::rollout::RolloutSettings {
                trials: options.trials,
                seed: options.seed,
                threads,
                ..crate::rollout::RolloutSettings::default()
            },
            min_skill: options.min_skill,
            engine: spec.to_string(),
        })
    }

    /// Rolls out the flagged decisions of `analysis` (with a progress bar unless `quiet`);
    /// a raised `stop` ends the rollout under way and keeps the rest as analysed.
    pub fn apply(
        &self,
        analysis: &mut Analysis,
        games: &[ReplayedGame],
        stop: &std::sync::atomic::AtomicBool,
        quiet: bool,
    ) -> Result<Rolled, CliError> {
        let flagged = FlaggedRollout {
            rollout: &self.rollout,
            settings: self.settings,
            min_skill: self.min_skill,
        };
        let n = flagged.flagged(analysis).len();
        let bar = progress_bar(quiet, n, "rolled out");
        let rolled_out = flagged.apply(analysis, games, stop, &|| bar.inc(1))?;
        bar.finish_and_clear();
        Ok(Rolled {
            flagged: n,
            rolled_out,
            trials: self.settings.trials,
            seed: self.settings.seed,
            engine: self.engine.clone(),
            min_skill: self.min_skill,
            stopped: stop.load(std::sync::atomic::Ordering::Relaxed),
        })
    }
}

/// A progress bar over `len` decisions on stderr, hidden when `quiet`.
fn progress_bar(quiet: bool, len: usize, what: &str) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(len as u64);
    pb.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} decisions {what} {{per_sec}} eta {{eta}}"
        ))
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    pb
}

/// `--depth` or `--plies`, if given.
fn depth_arg(a: &AnalyseArgs) -> Result<Option<Depth>, CliError> {
    Ok(match (a.depth, a.plies) {
        (Some(d), _) => Some(d),
        (None, Some(p)) if p <= 4 => Some(Depth::new(2 * p + 1).map_err(|e| e.to_string())?),
        (None, Some(p)) => return Err(format!("--plies {p}: expected 0 to 4").into()),
        (None, None) => None,
    })
}

/// The engine that scores decisions: `--engine` (default: the shipped nets ranking plays
/// by their cubeful value, at depth 1) with `--depth` or `--plies` setting both its
/// checker-play and cube depth.
pub fn engine_spec(a: &AnalyseArgs) -> Result<EngineSpec, CliError> {
    let mut spec = match &a.engine {
        Some(text) => super::engine_arg::engine_arg(text)?,
        None => EngineSpec {
            cube_policy: CubePolicy::Cubeful,
            ..EngineSpec::default()
        },
    };
    if let Some(d) = depth_arg(a)? {
        spec.depth = d;
        spec.cube_depth = d;
        spec.min_depth = spec.min_depth.min(d);
    }
    Ok(spec)
}

/// The engines of an analysis at one depth: the one that scores decisions, and the
/// depth-1 one that values luck (sharing the first's searcher and table).
pub(super) struct Engines {
    engine: Engine,
    luck_engine: Engine,
    depth: Depth,
}

impl Engines {
    pub(super) fn new(spec: &EngineSpec) -> Result<Engines, CliError> {
        let depth = spec.depth;
        let engine = engine_build::engine(spec)?;
        let luck_spec = EngineSpec {
            depth: Depth::ONE,
            cube_depth: Depth::ONE,
            ..spec.clone()
        };
        let luck_engine = engine_build::engine_with(&luck_spec, engine.searcher().clone());
        Ok(Engines {
            engine,
            luck_engine,
            depth,
        })
    }

    pub(super) fn analyser(&self) -> Analyser<'_> {
        Analyser {
            engine: &self.engine,
            depth: self.depth.get(),
            luck_engine: &self.luck_engine,
        }
    }
}

/// The JSON of `--json` for the match file at `path` (named `name` in it), without its
/// timing: read, replayed, analysed with `spec` on `threads` threads and, with `rollout`,
/// its flagged decisions rolled out. A raised `stop` ends the analysis early (decisions
/// not reached are left out) and the rollouts as [`RolloutPlan::apply`] says.
pub fn file_json(
    path: &std::path::Path,
    name: &str,
    spec: &EngineSpec,
    threads: usize,
    rollout: Option<&RolloutPlan>,
    stop: &crate::search::Cancel,
) -> Result<serde_json::Value, CliError> {
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let (text, games) = read_and_replay(&bytes).map_err(|e| format!("{name}: {e}"))?;
    let engines = Engines::new(spec)?;
    let mut analysis = engines
        .analyser()
        .analyse_until(&games, threads, &|| {}, stop);
    let rolled = match rollout {
        Some(p) => Some(p.apply(&mut analysis, &games, stop.flag(), true)?),
        None => None,
    };
    let mut v = analysis_json(&analysis, name, spec.depth, text.length)?;
    if let Some(r) = rolled {
        v["rollout"] = r.json();
    }
    Ok(v)
}

/// A match file's bytes read and replayed through the rules.
pub(super) fn read_and_replay(bytes: &[u8]) -> Result<(MatchText, Vec<ReplayedGame>), CliError> {
    let text = read_match_file(bytes)?;
    let games = replay(&text)?;
    Ok((text, games))
}

/// The JSON of `--json` for one file, without its timing (`seconds`).
pub(super) fn analysis_json(
    analysis: &Analysis,
    file: &str,
    depth: Depth,
    match_length: u32,
) -> Result<serde_json::Value, CliError> {
    let mut v = serde_json::to_value(analysis)?;
    v["file"] = serde_json::json!(file);
    v["depth"] = serde_json::json!(depth.get());
    v["plies"] = serde_json::json!((depth.get() - 1) / 2);
    v["match_length"] = serde_json::json!(match_length);
    v["units"] = serde_json::json!(
        "equity_lost and luck in normalised equity (EMG); error rates in millipoints (EMG x 1000)"
    );
    Ok(v)
}

fn print_text(
    file: &std::path::Path,
    depth: Depth,
    length: u32,
    a: &Analysis,
    seconds: f64,
    rolled: Option<&Rolled>,
) {
    let kind = if length == 0 {
        "money session".to_string()
    } else {
        format!("{length}-point match")
    };
    println!(
        "{}: {kind}, {} games, analysed at depth {} (gnubg {}-ply) in {seconds:.1} s",
        file.display(),
        a.games.len(),
        depth.get(),
        (depth.get() - 1) / 2
    );
    if let Some(r) = rolled {
        println!(
            "{} of {} flagged decisions ({} and worse) rolled out, {} trials each, {}{}",
            r.rolled_out,
            r.flagged,
            r.min_skill.word(),
            r.trials,
            r.engine,
            if r.stopped { " (stopped early)" } else { "" }
        );
    }
    for (g, game) in a.games.iter().enumerate() {
        let flagged: Vec<_> = game
            .decisions
            .iter()
            .filter(|d| d.skill != crate::analysis::Skill::None)
            .collect();
        if flagged.is_empty() {
            continue;
        }
        println!();
        println!("Game {} (score {}-{})", g + 1, game.score[0], game.score[1]);
        for d in flagged {
            let dice = d.dice.map(|[h, l]| format!("{h}{l}: ")).unwrap_or_default();
            println!(
                "  {:>3}. {:<10} {dice}{:<22} {:<3} -{:.3}  best: {}",
                d.move_no,
                d.player,
                d.played,
                d.skill.mark(),
                d.equity_lost,
                d.best
            );
            if let Some(r) = &d.rollout {
                let values: Vec<String> = r
                    .choices
                    .iter()
                    .map(|c| {
                        if r.value_kind == "mwc" {
                            format!("{} {:.2}% ({:.2})", c.choice, c.value * 100.0, c.se * 100.0)
                        } else {
                            format!("{} {:+.3} ({:.3})", c.choice, c.value, c.se)
                        }
                    })
                    .collect();
                println!(
                    "       rollout, {} trials{}: -{:.3} +/- {:.3} (at depth {}: {} -{:.3}); {}",
                    r.trials,
                    if r.partial { " (partial)" } else { "" },
                    d.equity_lost,
                    1.96 * r.equity_lost_se,
                    depth.get(),
                    r.evaluated_skill.mark(),
                    r.evaluated_equity_lost,
                    values.join(", ")
                );
            }
        }
    }
    println!();
    println!(
        "{:<28}{:>14}{:>14}",
        "",
        a.players.first().map_or("", |p| p.name.as_str()),
        a.players.get(1).map_or("", |p| p.name.as_str())
    );
    let row = |label: &str, f: &dyn Fn(&crate::analysis::PlayerSummary) -> String| {
        let cells: Vec<String> = a.players.iter().map(f).collect();
        println!(
            "{label:<28}{:>14}{:>14}",
            cells.first().map_or("", String::as_str),
            cells.get(1).map_or("", String::as_str)
        );
    };
    row("decisions (counted)", &|p| p.decisions.to_string());
    row("  checker / cube", &|p| {
        format!("{} / {}", p.checker_decisions, p.cube_decisions)
    });
    row("doubtful (?!)", &|p| p.doubtful.to_string());
    row("errors (?)", &|p| p.errors.to_string());
    row("blunders (??)", &|p| p.blunders.to_string());
    row("error rate (mEMG/decision)", &|p| {
        format!("{:.1}", p.error_mppg)
    });
    row("  checker / cube", &|p| {
        format!("{:.1} / {:.1}", p.checker_error_mppg, p.cube_error_mppg)
    });
    row("Snowie error rate", &|p| {
        format!("{:.1}", p.snowie_error_rate)
    });
    row("luck (EMG)", &|p| format!("{:+.3}", p.luck));
    row("rating", &|p| p.rating.to_string());
}
