//! `stargammon distill generate|merge|train|dump`: self-distillation data and training
//! (see [`crate::train::distill`]).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Subcommand};

use super::CliError;
use crate::eval::encoding::Encoding;
use crate::eval::NetSet;
use crate::train::distill::{self, DataConfig, FitConfig};
use crate::train::stop_on_signals;

#[derive(Debug, Args)]
pub struct DistillArgs {
    #[command(subcommand)]
    pub step: DistillStep,
}

#[derive(Debug, Subcommand)]
pub enum DistillStep {
    /// Play and label the missing chunks of a data config (resumes; --shard I/N).
    Generate(GenerateArgs),
    /// Copy the chunks of other data directories (other shards) into one.
    Merge(MergeArgs),
    /// Train nets on data directories by minibatch Adam (cross-entropy), from given nets.
    Train(FitArgs),
    /// Print labelled positions of data directories: chunk, Position ID, cubeless equity
    /// and the five probabilities, one tab-separated line each.
    Dump(DumpArgs),
}

#[derive(Debug, Args)]
pub struct DumpArgs {
    /// Data directories (their manifests and chunks).
    #[arg(long, required = true)]
    pub data: Vec<PathBuf>,
    /// Print every K-th position only.
    #[arg(long, default_value_t = 1)]
    pub every: usize,
    /// Stop after this many lines.
    #[arg(long)]
    pub limit: Option<usize>,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The data config (TOML), e.g. config/distill.toml.
    #[arg(long)]
    pub config: PathBuf,
    /// Generate only the chunks with index % N == I.
    #[arg(long, default_value = "0/1")]
    pub shard: String,
    /// Override the config's number of chunks (to grow a data set).
    #[arg(long)]
    pub chunks: Option<u64>,
    /// Override the config's threads.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write the chunks and the manifest to DIR instead of the config's `dir` (one
    /// directory per task of a job array; `distill merge` joins them).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The directory to merge into.
    #[arg(long)]
    pub into: PathBuf,
    /// Directories whose chunks are copied.
    #[arg(required = true)]
    pub from: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct FitArgs {
    /// Data directories (their manifests and chunks).
    #[arg(long, required = true)]
    pub data: Vec<PathBuf>,
    /// Starting nets (default: the shipped nets).
    #[arg(long, conflicts_with = "fresh")]
    pub from: Option<PathBuf>,
    /// Start from random nets instead (small random weights, seeded by `--seed`): their
    /// sizes from `--contact-hidden` and `--race-hidden`, which are then required, the
    /// contact net reading `--encoding` (default 1). For nets of another shape than the
    /// shipped ones, such as the pruning nets.
    #[arg(long)]
    pub fresh: bool,
    /// Where to write the trained nets.
    #[arg(long)]
    pub out: PathBuf,
    /// Widen the starting contact net to read this encoding first (only 1 -> 2: the new
    /// inputs start with zero weights, so training begins from the same evaluations).
    #[arg(long)]
    pub encoding: Option<u32>,
    /// Widen the starting contact net to this many hidden units first (the new units start
    /// with zero output weights).
    #[arg(long)]
    pub contact_hidden: Option<usize>,
    /// Widen the starting race net to this many hidden units first (the new units start
    /// with zero output weights).
    #[arg(long)]
    pub race_hidden: Option<usize>,
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    #[arg(long, default_value_t = 128)]
    pub batch: usize,
    #[arg(long, default_value_t = 3e-4)]
    pub lr: f32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: DistillArgs) -> Result<(), CliError> {
    match a.step {
        DistillStep::Generate(a) => generate(a),
        DistillStep::Merge(a) => merge(a),
        DistillStep::Train(a) => fit(a),
        DistillStep::Dump(a) => dump(a),
    }
}

fn dump(a: DumpArgs) -> Result<(), CliError> {
    use std::io::Write;
    if a.every == 0 {
        return Err("--every must be at least 1".into());
    }
    let data = distill::load(&a.data)?;
    if data.is_empty() {
        return Err("the data directories hold no chunks".into());
    }
    let lines = data
        .iter()
        .flat_map(|(k, ex)| ex.iter().map(move |e| (*k, e)))
        .step_by(a.every)
        .take(a.limit.unwrap_or(usize::MAX));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (k, e) in lines {
        let t = e.target;
        let p = crate::eval::Probabilities(t);
        let line = format!(
            "{k}\t{}\t{:.4}\t{:.4} {:.4} {:.4} {:.4} {:.4}",
            crate::notation::ids::position_id(&e.position),
            p.equity(),
            t[0],
            t[1],
            t[2],
            t[3],
            t[4]
        );
        if writeln!(out, "{line}").is_err() {
            // A closed pipe (`| head`) ends the listing.
            return Ok(());
        }
    }
    out.flush().ok();
    Ok(())
}

fn generate(a: GenerateArgs) -> Result<(), CliError> {
    let mut cfg = DataConfig::load(&a.config)?;
    if let Some(c) = a.chunks {
        cfg.chunks = c;
    }
    if let Some(t) = a.threads {
        cfg.threads = t;
    }
    if let Some(d) = a.dir {
        cfg.dir = d;
    }
    let shard = super::shard_arg(&a.shard)?;
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_signals(stop.clone())?;
    let started = Instant::now();
    let progress = |done: usize, todo: usize, positions: usize| {
        let t = started.elapsed().as_secs_f64();
        eprintln!(
            "chunk {done}/{todo}: {positions} positions, {:.0} positions/s, about {:.0} min left",
            positions as f64 / t.max(1e-9),
            t / done as f64 * (todo - done) as f64 / 60.0
        );
    };
    let n = distill::generate(&cfg, shard, &stop, &progress)?;
    eprintln!(
        "{n} chunks written to {} in {:.0} s",
        cfg.dir.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn merge(a: MergeArgs) -> Result<(), CliError> {
    for from in &a.from {
        let n = distill::merge(&a.into, from)?;
        eprintln!("{n} chunks copied from {}", from.display());
    }
    Ok(())
}

fn fit(a: FitArgs) -> Result<(), CliError> {
    if a.epochs == 0 || a.batch == 0 {
        return Err("--epochs and --batch must be at least 1".into());
    }
    if !(a.lr > 0.0 && a.lr < 1.0) {
        return Err("--lr must be in (0, 1)".into());
    }
    let start = if a.fresh {
        let (Some(hidden), Some(race_hidden)) = (a.contact_hidden, a.race_hidden) else {
            return Err("--fresh needs --contact-hidden and --race-hidden".into());
        };
        let id = a.encoding.unwrap_or(1);
        let encoding = Encoding::from_id(id)
            .ok_or_else(|| format!("--encoding {id}: no such input encoding"))?;
        eprintln!(
            "random nets: contact {}x{hidden} (encoding {id}), race {}x{race_hidden}",
            encoding.contact_inputs(),
            encoding.race_inputs()
        );
        NetSet::random(encoding, hidden, race_hidden, a.seed)?
    } else {
        let start = match &a.from {
            Some(p) => NetSet::load(p)?,
            None => NetSet::from_bytes(crate::eval::neural::DEFAULT_WEIGHTS)?,
        };
        widen_if_asked(&a, start)?
    };
    let data = distill::load(&a.data)?;
    let positions: usize = data.iter().map(|(_, e)| e.len()).sum();
    if positions == 0 {
        return Err("the data directories hold no positions".into());
    }
    eprintln!("{positions} positions in {} chunks", data.len());
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_signals(stop.clone())?;
    let cfg = FitConfig {
        epochs: a.epochs,
        batch: a.batch,
        learning_rate: a.lr,
        seed: a.seed,
    };
    let curve = a.out.with_extension("csv");
    let mut rows = String::from("net,epoch,train_loss,held_out_loss\n");
    let started = Instant::now();
    let nets = distill::train(&start, &data, &cfg, &stop, &mut |r| {
        let net = match r.net {
            crate::game::Phase::Contact => "contact",
            crate::game::Phase::Race => "race",
        };
        eprintln!(
            "{net} epoch {}: train {:.5}, held out {:.5} ({:.0} s)",
            r.epoch,
            r.train_loss,
            r.held_out_loss,
            started.elapsed().as_secs_f64()
        );
        rows.push_str(&format!(
            "{net},{},{:.6},{:.6}\n",
            r.epoch, r.train_loss, r.held_out_loss
        ));
    });
    nets.save(&a.out)?;
    std::fs::write(&curve, rows).map_err(|e| format!("{}: {e}", curve.display()))?;
    eprintln!(
        "nets with the lowest held-out loss -> {} (curve {})",
        a.out.display(),
        curve.display()
    );
    Ok(())
}

/// The starting nets widened as `--encoding`, `--contact-hidden` and `--race-hidden` ask.
fn widen_if_asked(a: &FitArgs, start: NetSet) -> Result<NetSet, CliError> {
    if a.encoding.is_none() && a.contact_hidden.is_none() && a.race_hidden.is_none() {
        return Ok(start);
    }
    let encoding = match a.encoding {
        None => start.encoding,
        Some(id) => Encoding::from_id(id)
            .ok_or_else(|| format!("--encoding {id}: no such input encoding"))?,
    };
    let hidden = a.contact_hidden.unwrap_or(start.contact.hidden());
    let race_hidden = a.race_hidden.unwrap_or(start.race.hidden());
    let wide = start.widened(encoding, hidden, race_hidden, a.seed)?;
    eprintln!(
        "contact net widened from {}x{} to {}x{} (encoding {}), race net from {}x{} to {}x{}",
        start.contact.inputs(),
        start.contact.hidden(),
        wide.contact.inputs(),
        wide.contact.hidden(),
        encoding.id(),
        start.race.inputs(),
        start.race.hidden(),
        wide.race.inputs(),
        wide.race.hidden(),
    );
    Ok(wide)
}
