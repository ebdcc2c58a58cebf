//! `stargammon train [--config FILE] [--resume DIR]`: TD(lambda) self-play training.
//! With `--variant portes|plakoto|fevga` the run trains that game's net
//! (`crate::train::tavli`; config/tavli-*.toml).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::Args;

use super::CliError;
use crate::eval::net::Mlp;
use crate::eval::tavli::TavliNet;
use crate::eval::NetSet;
use crate::game::Variant;
use crate::train::{stop_on_signals, Learner, Run, RunConfig, TrainConfig};

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Training config (TOML); with --resume it replaces the run's stored config.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Continue the run in this directory exactly where it stopped.
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Stop (with a checkpoint) after this many minutes of this session.
    #[arg(long)]
    pub max_minutes: Option<f64>,
    /// Stop (with a checkpoint) once this many games in all have been played.
    #[arg(long)]
    pub max_games: Option<u64>,
    /// Copy a run's best nets (or its latest checkpoint with --latest) to this path and exit.
    #[arg(long, value_name = "PATH")]
    pub export: Option<PathBuf>,
    /// With --export: the latest checkpoint instead of the best benchmarked nets.
    #[arg(long)]
    pub latest: bool,
    /// With --export and no --resume: write the weight-by-weight mean of these weights
    /// files (snapshots of one run) instead.
    #[arg(long, value_name = "FILE", num_args = 1.., requires = "export")]
    pub average: Vec<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// The game whose net to train: backgammon (default), or portes, plakoto or fevga with
    /// a config/tavli-*.toml file.
    #[arg(long)]
    pub variant: Option<Variant>,
}

/// Opens the run the flags name (resumed from `--resume`, or created from the config, or
/// from `default_config`), checks it with `header` (which returns its first log line),
/// applies the limits and trains until a limit or a signal stops it.
fn train<L: Learner>(
    a: &TrainArgs,
    config: Option<L::Config>,
    default_config: &str,
    header: impl FnOnce(&Run<L>) -> Result<String, CliError>,
) -> Result<(), CliError> {
    let mut trainer = match (&a.resume, config) {
        (Some(dir), c) => Run::<L>::resume(dir, c)?,
        (None, Some(c)) => Run::create(c)?,
        (None, None) => Run::create(L::Config::load(&PathBuf::from(default_config))?)?,
    };
    let line = header(&trainer)?;
    let (minutes, games) = trainer.config.limits_mut();
    apply_limits(a, minutes, games)?;
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_signals(stop.clone())?;
    eprintln!("{line}");
    trainer.run(&stop, !a.quiet)?;
    Ok(())
}

/// `--max-minutes` and `--max-games` over a run's config.
fn apply_limits(a: &TrainArgs, minutes: &mut f64, games: &mut u64) -> Result<(), CliError> {
    if let Some(m) = a.max_minutes {
        if !(m.is_finite() && m >= 0.0) {
            return Err("--max-minutes must be a number >= 0".into());
        }
        *minutes = m;
    }
    if let Some(g) = a.max_games {
        *games = g;
    }
    Ok(())
}

fn run_tavli(a: TrainArgs, variant: Variant) -> Result<(), CliError> {
    use crate::train::tavli::TavliTrainConfig;
    if !a.average.is_empty() {
        return Err("--average is for backgammon nets".into());
    }
    let config = match &a.config {
        Some(p) => Some(TavliTrainConfig::load(p)?),
        None => None,
    };
    if let Some(c) = &config {
        if c.variant()? != variant {
            return Err(format!("--variant {variant} but the config trains {}", c.variant).into());
        }
    }
    if let Some(out) = &a.export {
        let Some(dir) = &a.resume else {
            return Err("--export needs --resume DIR".into());
        };
        let file = if a.latest {
            crate::train::read_state(dir)?.weights_file
        } else {
            "best.sgnet".to_string()
        };
        let net = crate::eval::tavli::TavliNet::load(&dir.join(file))?;
        if net.variant() != variant {
            return Err(format!("{} holds a {} net", dir.display(), net.variant()).into());
        }
        net.save(out)?;
        eprintln!(
            "exported the {variant} net trained on {} games to {}",
            net.games,
            out.display()
        );
        return Ok(());
    }
    let default = format!("config/tavli-{variant}.toml");
    train::<TavliNet>(&a, config, &default, |trainer| {
        if trainer.nets.variant() != variant {
            return Err(format!(
                "the run in {} trains {}, not {variant}",
                trainer.dir().display(),
                trainer.nets.variant()
            )
            .into());
        }
        Ok(format!(
            "[train {variant}] run {} in {}: {} games so far, net {}x{}x3",
            trainer.config.name,
            trainer.dir().display(),
            trainer.state.games,
            crate::eval::tavli::TAVLI_INPUTS,
            trainer.nets.hidden(),
        ))
    })
}

pub fn run(a: TrainArgs) -> Result<(), CliError> {
    match a.variant.unwrap_or(Variant::Backgammon) {
        Variant::Backgammon => run_backgammon(a),
        v @ (Variant::Portes | Variant::Plakoto | Variant::Fevga) => run_tavli(a, v),
    }
}

/// Training backgammon's nets (config/train.toml).
fn run_backgammon(a: TrainArgs) -> Result<(), CliError> {
    let config = match &a.config {
        Some(p) => Some(TrainConfig::load(p)?),
        None => None,
    };
    if let (Some(out), false) = (&a.export, a.average.is_empty()) {
        let sets = a
            .average
            .iter()
            .map(|p| NetSet::load(p))
            .collect::<Result<Vec<_>, _>>()?;
        let contact: Vec<_> = sets.iter().map(|s| &s.contact).collect();
        let race: Vec<_> = sets.iter().map(|s| &s.race).collect();
        let (Some(contact), Some(race)) = (Mlp::average(&contact), Mlp::average(&race)) else {
            return Err("--average needs weights files with nets of the same sizes".into());
        };
        let games = sets.iter().map(|s| s.games).max().unwrap_or(0);
        let encoding = sets.first().map(|s| s.encoding).unwrap_or_default();
        if sets.iter().any(|s| s.encoding != encoding) {
            return Err("--average needs weights files of one input encoding".into());
        }
        NetSet {
            encoding,
            contact,
            race,
            games,
        }
        .save(out)?;
        eprintln!("wrote the mean of {} nets to {}", sets.len(), out.display());
        return Ok(());
    }
    if a.export.is_some() && a.resume.is_none() {
        return Err("--export needs --resume DIR or --average FILES".into());
    }
    if let (Some(out), Some(dir)) = (&a.export, &a.resume) {
        // Read-only: a run may be training in that directory right now.
        let nets = if a.latest {
            let state = crate::train::read_state(dir)?;
            NetSet::load(&dir.join(state.weights_file))?
        } else {
            NetSet::load(&dir.join("best.sgnet"))?
        };
        nets.save(out)?;
        eprintln!(
            "exported nets trained on {} games to {}",
            nets.games,
            out.display()
        );
        return Ok(());
    }
    train::<NetSet>(&a, config, "config/train.toml", |trainer| {
        Ok(format!(
            "[train] run {} in {}: {} games so far, contact {}x{} (encoding {}), race {}x{}, {} threads",
            trainer.config.name,
            trainer.dir().display(),
            trainer.state.games,
            trainer.nets.contact.inputs(),
            trainer.nets.contact.hidden(),
            trainer.nets.encoding.id(),
            trainer.nets.race.inputs(),
            trainer.nets.race.hidden(),
            trainer.config.threads
        ))
    })
}
