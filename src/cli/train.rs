//! `stargammon train [--config FILE] [--resume DIR]`: TD(lambda) self-play training.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::Args;

use super::CliError;
use crate::eval::NetSet;
use crate::train::{stop_on_signals, TrainConfig, Trainer};

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
    #[arg(long, value_name = "PATH", requires = "resume")]
    pub export: Option<PathBuf>,
    /// With --export: the latest checkpoint instead of the best benchmarked nets.
    #[arg(long)]
    pub latest: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(a: TrainArgs) -> Result<(), CliError> {
    let config = match &a.config {
        Some(p) => Some(TrainConfig::load(p)?),
        None => None,
    };
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
    let mut trainer = match (&a.resume, config) {
        (Some(dir), c) => Trainer::resume(dir, c)?,
        (None, Some(c)) => Trainer::create(c)?,
        (None, None) => Trainer::create(TrainConfig::load(&PathBuf::from("config/train.toml"))?)?,
    };
    if let Some(m) = a.max_minutes {
        if !(m.is_finite() && m >= 0.0) {
            return Err("--max-minutes must be a number >= 0".into());
        }
        trainer.config.max_minutes = m;
    }
    if let Some(g) = a.max_games {
        trainer.config.max_games = g;
    }
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_signals(stop.clone())?;
    eprintln!(
        "[train] run {} in {}: {} games so far, contact {}x{}, race {}x{}, {} threads",
        trainer.config.name,
        trainer.dir().display(),
        trainer.state.games,
        trainer.nets.contact.inputs(),
        trainer.nets.contact.hidden(),
        trainer.nets.race.inputs(),
        trainer.nets.race.hidden(),
        trainer.config.threads
    );
    trainer.run(&stop, !a.quiet)?;
    Ok(())
}
