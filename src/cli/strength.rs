//! `stargammon bench strength` (a player's error rate on the shipped decision set) and
//! `stargammon bench strength-set sample|label|merge` (how the set is made).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::{Args, Subcommand};

use super::CliError;
use crate::bench::strength::{self, LabelConfig, SampleConfig, SetPhase};
use crate::engine::EngineSpec;

/// How long one decision of an engine over TCP may take.
const TCP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

#[derive(Debug, Args)]
pub struct StrengthArgs {
    /// The player to score: any player spec (`net`, `net,depth=3`, `pubeval`, `engine`...),
    /// or an engine over TCP speaking gnubg's external interface (`tcp://HOST:PORT`, one
    /// connection per thread, e.g. gnubg's `external` at some plies).
    #[arg(long, value_name = "SPEC")]
    pub engine: Option<String>,
    /// The old name of --engine.
    #[arg(long, hide = true, conflicts_with = "engine")]
    pub player: Option<String>,
    /// A set file instead of the shipped one (the format of `strength-set merge`).
    #[arg(long)]
    pub set: Option<PathBuf>,
    /// Threads (one decider each; the result does not depend on it). Default: all cores.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StrengthSetArgs {
    #[command(subcommand)]
    pub step: SetStep,
}

#[derive(Debug, Subcommand)]
pub enum SetStep {
    /// Sample decisions from seeded games between different players.
    Sample(SampleArgs),
    /// Label sampled decisions with rollouts of their best plays (appends; resumes).
    Label(LabelArgs),
    /// Join label files into the set, checked against the sample.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct SampleArgs {
    /// Where to write the sampled decisions.
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, default_value_t = 5000)]
    pub contact: usize,
    #[arg(long, default_value_t = 2000)]
    pub race: usize,
    #[arg(long, default_value_t = 1000)]
    pub bearoff: usize,
    /// Keep each eligible decision with probability 1/EVERY.
    #[arg(long, default_value_t = 8)]
    pub every: u64,
}

#[derive(Debug, Args)]
pub struct LabelArgs {
    /// The sampled decisions.
    #[arg(long)]
    pub sample: PathBuf,
    /// The label file to append to (created if missing; decisions already in it are skipped).
    #[arg(long)]
    pub out: PathBuf,
    /// Label only the decisions with id % N == I.
    #[arg(long, default_value = "0/1")]
    pub shard: String,
    /// Players, evaluator and candidate ranking of the rollouts (default: the TD nets that
    /// labelled the shipped set).
    #[arg(long, default_value = crate::bench::strength::TD_NETS)]
    pub spec: String,
    /// Plays rolled out per decision.
    #[arg(long, default_value_t = 6)]
    pub top: usize,
    #[arg(long, default_value_t = 36)]
    pub trials: u64,
    /// Plies after which a trial is valued by the evaluator (0: full games).
    #[arg(long, default_value_t = 7)]
    pub truncate: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Decisions labelled at once. Default: all cores.
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The sampled decisions.
    #[arg(long)]
    pub sample: PathBuf,
    /// The set file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Header lines (each becomes a `#` comment), e.g. the commands that made the set.
    #[arg(long)]
    pub note: Vec<String>,
    /// The label files.
    #[arg(required = true)]
    pub labels: Vec<PathBuf>,
}

fn read(path: &PathBuf) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()).into())
}

pub fn run(a: StrengthArgs) -> Result<(), CliError> {
    let threads = super::threads_arg(a.threads)?;
    let set = match &a.set {
        Some(p) => strength::parse_set(&read(p)?).map_err(|e| format!("{}: {e}", p.display()))?,
        None => strength::shipped_set()?,
    };
    if set.is_empty() {
        return Err("the decision set is empty".into());
    }
    let player = super::engine_arg::renamed(&a.engine, &a.player, "--engine", "--player")
        .unwrap_or_else(|| "net".to_string());
    let players = super::match_cmd::engine_factory(&player, TCP_TIMEOUT, false)?;
    let s = strength::score(&set, players.as_ref(), threads)?;
    let mut command = format!("stargammon bench strength --engine {player}");
    if let Some(p) = &a.set {
        command.push_str(&format!(" --set {}", p.display()));
    }
    if a.json {
        command.push_str(" --json");
        let phase = |p: &strength::PhaseScore| {
            serde_json::json!({
                "decisions": p.decisions,
                "error_mppg": p.error_mppg,
                "best": p.best,
                "unlisted": p.unlisted,
            })
        };
        // `by_phase` as docs/cli.md has it (the error rate of each phase); `phases` with counts.
        let by_phase: serde_json::Map<String, serde_json::Value> = SetPhase::ALL
            .iter()
            .filter_map(|k| {
                s.by_phase
                    .get(k)
                    .map(|p| (k.name().to_string(), serde_json::json!(p.error_mppg)))
            })
            .collect();
        let phases: serde_json::Map<String, serde_json::Value> = SetPhase::ALL
            .iter()
            .filter_map(|k| s.by_phase.get(k).map(|p| (k.name().to_string(), phase(p))))
            .collect();
        println!(
            "{}",
            serde_json::json!({
                "player": s.player,
                "decisions": s.all.decisions,
                "error_mppg": s.all.error_mppg,
                "best": s.all.best,
                "unlisted": s.all.unlisted,
                "by_phase": by_phase,
                "phases": phases,
                "seconds": s.seconds,
                "ms_per_decision": s.ms_per_decision,
                "threads": threads,
                "command": command,
            })
        );
    } else {
        println!("strength of {} on {} decisions", s.player, s.all.decisions);
        println!(
            "{:<9} {:>9} {:>12} {:>10} {:>9}",
            "phase", "decisions", "error mppg", "best play", "unlisted"
        );
        let row = |name: &str, p: &strength::PhaseScore| {
            println!(
                "{:<9} {:>9} {:>12.1} {:>9.1}% {:>9}",
                name,
                p.decisions,
                p.error_mppg,
                100.0 * p.best as f64 / p.decisions.max(1) as f64,
                p.unlisted
            );
        };
        for k in SetPhase::ALL {
            if let Some(p) = s.by_phase.get(&k) {
                row(k.name(), p);
            }
        }
        row("all", &s.all);
        println!("seconds:  {:.2}", s.seconds);
        println!("ms per decision:  {:.2}", s.ms_per_decision);
        println!("command:  {command}");
    }
    Ok(())
}

pub fn run_set(a: StrengthSetArgs) -> Result<(), CliError> {
    match a.step {
        SetStep::Sample(a) => sample(a),
        SetStep::Label(a) => label(a),
        SetStep::Merge(a) => merge(a),
    }
}

fn sample(a: SampleArgs) -> Result<(), CliError> {
    if a.every == 0 {
        return Err("--every must be at least 1".into());
    }
    let cfg = SampleConfig {
        seed: a.seed,
        contact: a.contact,
        race: a.race,
        bearoff: a.bearoff,
        every: a.every,
        ..SampleConfig::default()
    };
    let s = strength::sample(&cfg)?;
    let mut text = format!(
        "# stargammon bench strength-set sample --seed {} --contact {} --race {} --bearoff {} --every {}\n\
         # id phase position-id roll source ({} games; sources: {})\n",
        a.seed,
        a.contact,
        a.race,
        a.bearoff,
        a.every,
        s.games,
        strength::SOURCES
            .iter()
            .enumerate()
            .map(|(i, (x, y))| format!("{i} = {x} vs {y}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for d in &s.decisions {
        text.push_str(&d.line());
        text.push('\n');
    }
    std::fs::write(&a.out, text).map_err(|e| format!("{}: {e}", a.out.display()))?;
    let count = |p: SetPhase| s.decisions.iter().filter(|d| d.phase == p).count();
    eprintln!(
        "{} decisions ({} contact, {} race, {} bear-off) from {} games -> {}",
        s.decisions.len(),
        count(SetPhase::Contact),
        count(SetPhase::Race),
        count(SetPhase::Bearoff),
        s.games,
        a.out.display()
    );
    Ok(())
}

fn label(a: LabelArgs) -> Result<(), CliError> {
    let threads = super::threads_arg(a.threads)?;
    let (i, n) = super::shard_arg(&a.shard)?;
    // Decision ids are u32, so a larger shard count is one no decision falls into.
    let shard = (
        u32::try_from(i).map_err(|_| "--shard: I/N beyond 2^32")?,
        u32::try_from(n).map_err(|_| "--shard: I/N beyond 2^32")?,
    );
    if a.top == 0 {
        return Err("--top must be at least 1".into());
    }
    if a.trials == 0 {
        return Err("--trials must be at least 1".into());
    }
    let spec: EngineSpec = a.spec.parse().map_err(|e| format!("--spec: {e}"))?;
    let cfg = LabelConfig {
        spec,
        top: a.top,
        trials: a.trials,
        truncate: (a.truncate > 0).then_some(a.truncate),
        seed: a.seed,
    };
    let sample = strength::parse_sample(&read(&a.sample)?)
        .map_err(|e| format!("{}: {e}", a.sample.display()))?;
    let stop = Arc::new(AtomicBool::new(false));
    super::rollout::stop_on_ctrl_c(stop.clone(), "finishing the decisions in hand")?;
    let started = std::time::Instant::now();
    let progress = |done: usize, total: usize| {
        if done.is_multiple_of(50) || done == total {
            let t = started.elapsed().as_secs_f64();
            let eta = t / done as f64 * (total - done) as f64;
            eprintln!(
                "labelled {done}/{total} ({:.2} s each, about {:.0} min left)",
                t / done as f64,
                eta / 60.0
            );
        }
    };
    let n = strength::label_file(&sample, &a.out, &cfg, shard, threads, &stop, &progress)?;
    eprintln!(
        "{n} decisions labelled into {} in {:.0} s",
        a.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn merge(a: MergeArgs) -> Result<(), CliError> {
    let sample = strength::parse_sample(&read(&a.sample)?)
        .map_err(|e| format!("{}: {e}", a.sample.display()))?;
    // The header: the notes, then the distinct comment lines of the sample and label files
    // (the sampling command and the labelling settings).
    let mut header = a.note.clone();
    let mut labels = Vec::new();
    let mut comments = |text: &str| {
        for c in text.lines().filter_map(|l| l.strip_prefix('#')) {
            let c = c.trim().to_string();
            if !header.contains(&c) {
                header.push(c);
            }
        }
    };
    comments(&read(&a.sample)?);
    for p in &a.labels {
        let text = read(p)?;
        comments(&text);
        labels.push(strength::parse_set(&text).map_err(|e| format!("{}: {e}", p.display()))?);
    }
    let text = strength::merge(&sample, &labels, &header)?;
    std::fs::write(&a.out, text).map_err(|e| format!("{}: {e}", a.out.display()))?;
    eprintln!("{} decisions -> {}", sample.len(), a.out.display());
    Ok(())
}
