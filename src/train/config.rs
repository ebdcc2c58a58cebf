//! The training configuration (TOML). `config/train.toml` documents every key.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::TrainError;
use crate::eval::encoding::Encoding;
use crate::eval::net::MAX_HIDDEN;

/// From game `until` on (exclusive of earlier steps), learn with `alpha` and `lambda`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleStep {
    /// This step applies to games before `until` (and after the previous step's `until`).
    pub until: u64,
    pub alpha: f32,
    pub lambda: f32,
}

/// Everything that determines a training run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    pub name: String,
    pub run_dir: PathBuf,
    pub seed: u64,
    pub threads: usize,
    pub games_per_round: usize,
    pub contact_hidden: usize,
    /// Input encoding of the contact net (1 or 2); absent means 1, the encoding of the
    /// runs made before the key existed.
    #[serde(default = "default_encoding")]
    pub contact_encoding: u32,
    pub race_hidden: usize,
    pub init_scale: f32,
    #[serde(default)]
    pub init_weights: Option<PathBuf>,
    pub max_games: u64,
    #[serde(default)]
    pub max_minutes: f64,
    pub checkpoint_minutes: f64,
    pub bench_every: u64,
    pub bench_games: u64,
    pub bench_seed: u64,
    pub schedule: Vec<ScheduleStep>,
}

fn default_encoding() -> u32 {
    1
}

impl TrainConfig {
    /// The contact net's encoding (checked by [`TrainConfig::check`]).
    pub fn encoding(&self) -> Result<Encoding, TrainError> {
        // Encoding 3, the board alone, is the pruning nets' (taught by distillation).
        Encoding::from_id(self.contact_encoding)
            .filter(|e| *e != Encoding::Board)
            .ok_or_else(|| {
                TrainError::Config(format!(
                    "contact_encoding {} is not an encoding self-play trains (1 or 2)",
                    self.contact_encoding
                ))
            })
    }

    /// Reads and checks a config file.
    pub fn load(path: &Path) -> Result<TrainConfig, TrainError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| TrainError::Io(format!("{}: {e}", path.display())))?;
        let c: TrainConfig = toml::from_str(&text)
            .map_err(|e| TrainError::Config(format!("{}: {e}", path.display())))?;
        c.check()?;
        Ok(c)
    }

    /// Refuses values that cannot work.
    pub fn check(&self) -> Result<(), TrainError> {
        let bad = |s: &str| Err(TrainError::Config(s.to_string()));
        if self.threads == 0 || self.threads > 256 {
            return bad("threads must be in 1..=256");
        }
        if self.games_per_round == 0 || self.games_per_round > 4096 {
            return bad("games_per_round must be in 1..=4096");
        }
        for h in [self.contact_hidden, self.race_hidden] {
            if h == 0 || h > MAX_HIDDEN {
                return bad("hidden sizes must be in 1..=1024");
            }
        }
        self.encoding()?;
        check_run(&RunLimits {
            init_scale: self.init_scale,
            checkpoint_minutes: self.checkpoint_minutes,
            max_minutes: self.max_minutes,
            bench_every: self.bench_every,
            bench_games: self.bench_games,
            schedule: &self.schedule,
        })
    }

    /// Alpha and lambda for the round starting at game `games` (the last step extends
    /// past its `until`).
    pub fn schedule_at(&self, games: u64) -> (f32, f32) {
        schedule_at(&self.schedule, games)
    }
}

/// Alpha and lambda of `schedule` at game `games` (the last step extends past its
/// `until`).
pub fn schedule_at(schedule: &[ScheduleStep], games: u64) -> (f32, f32) {
    let s = schedule
        .iter()
        .find(|s| games < s.until)
        .or(schedule.last());
    s.map_or((0.0, 0.0), |s| (s.alpha, s.lambda))
}

/// The settings every self-play run has, for [`check_run`].
#[derive(Debug, Clone, Copy)]
pub struct RunLimits<'a> {
    pub init_scale: f32,
    pub checkpoint_minutes: f64,
    pub max_minutes: f64,
    pub bench_every: u64,
    pub bench_games: u64,
    pub schedule: &'a [ScheduleStep],
}

/// Refuses run settings that cannot work (the checks shared by the backgammon and the
/// Tavli runs).
pub fn check_run(r: &RunLimits<'_>) -> Result<(), TrainError> {
    run_limits(r).map_err(|s| TrainError::Config(s.to_string()))
}

fn run_limits(r: &RunLimits<'_>) -> Result<(), &'static str> {
    if !(r.init_scale.is_finite() && r.init_scale > 0.0) {
        return Err("init_scale must be a positive number");
    }
    if !(r.checkpoint_minutes.is_finite() && r.checkpoint_minutes > 0.0) {
        return Err("checkpoint_minutes must be positive");
    }
    if !(r.max_minutes.is_finite() && r.max_minutes >= 0.0) {
        return Err("max_minutes must be >= 0 (0: no limit)");
    }
    if r.bench_every > 0 && r.bench_games < 2 {
        return Err("bench_games must be at least 2 (one mirrored pair)");
    }
    if r.schedule.is_empty() {
        return Err("the schedule needs at least one step");
    }
    let mut prev = 0;
    for s in r.schedule {
        if s.until <= prev {
            return Err("schedule steps must have increasing 'until'");
        }
        if !(s.alpha.is_finite() && s.alpha > 0.0) {
            return Err("alpha must be positive");
        }
        if !(0.0..=1.0).contains(&s.lambda) {
            return Err("lambda must be in [0, 1]");
        }
        prev = s.until;
    }
    Ok(())
}
