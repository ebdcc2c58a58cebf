//! A TD training run of any game's nets, in a directory: created from a config, trained
//! in steps (backgammon's rounds of parallel games, a Tavli game's single games),
//! benchmarked every `bench_every` games, checkpointed so that it resumes exactly.
//!
//! The directory holds `config.toml` (as started, or as last resumed with a new config),
//! `state.json` ([`TrainState`]: games played, time, best benchmark, the checkpoint's
//! weights file), `checkpoint-N.sgnet` (the latest weights), `best.sgnet` (the best
//! benchmark so far), `snapshots/games-N.sgnet` (the weights at each benchmark) and
//! `curve.csv` / `curve.svg` (the learning curve). A checkpoint writes the new weights
//! file, then the state naming it, then removes the old file, so a crash leaves a run that
//! resumes from its last checkpoint.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{
    curve, io_err, read_state, Checkpointed, RunClock, StopReason, TrainError, TrainState,
};
use crate::arena::DuelResult;
use crate::eval::WeightsError;

/// What every run's config says besides its nets: where the run lives, when it stops and
/// checkpoints, how it is benchmarked, its step sizes.
pub trait RunConfig: Serialize + DeserializeOwned + Clone {
    /// Reads and checks a config file.
    fn load(path: &Path) -> Result<Self, TrainError>;
    /// Refuses values that cannot work.
    fn check(&self) -> Result<(), TrainError>;
    /// Refuses a config that cannot replace `stored` when a run resumes (other nets).
    fn keeps(&self, stored: &Self) -> Result<(), TrainError>;
    fn name(&self) -> &str;
    fn run_dir(&self) -> &Path;
    fn set_run_dir(&mut self, dir: &Path);
    fn seed(&self) -> u64;
    fn max_games(&self) -> u64;
    fn max_minutes(&self) -> f64;
    /// The stopping limits to change from the command line: minutes of this session and
    /// games in all.
    fn limits_mut(&mut self) -> (&mut f64, &mut u64);
    fn checkpoint_minutes(&self) -> f64;
    fn bench_every(&self) -> u64;
    /// Alpha and lambda for game number `games`.
    fn schedule_at(&self, games: u64) -> (f32, f32);
}

/// The accessors of [`RunConfig`] for a config struct with the fields every run's config
/// has (`name`, `run_dir`, `seed`, `max_games`, `max_minutes`, `checkpoint_minutes`,
/// `bench_every`), inside its `impl RunConfig`.
macro_rules! run_config_fields {
    () => {
        fn name(&self) -> &str {
            &self.name
        }

        fn run_dir(&self) -> &std::path::Path {
            &self.run_dir
        }

        fn set_run_dir(&mut self, dir: &std::path::Path) {
            self.run_dir = dir.to_path_buf();
        }

        fn seed(&self) -> u64 {
            self.seed
        }

        fn max_games(&self) -> u64 {
            self.max_games
        }

        fn max_minutes(&self) -> f64 {
            self.max_minutes
        }

        fn limits_mut(&mut self) -> (&mut f64, &mut u64) {
            (&mut self.max_minutes, &mut self.max_games)
        }

        fn checkpoint_minutes(&self) -> f64 {
            self.checkpoint_minutes
        }

        fn bench_every(&self) -> u64 {
            self.bench_every
        }
    };
}
pub(crate) use run_config_fields;

/// The nets a run trains, and how self-play moves them.
pub trait Learner: Sized {
    type Config: RunConfig;
    /// Buffers a session's steps reuse (per-thread scratch space, learner copies).
    type Workspace;

    /// The nets of a new run.
    fn fresh(config: &Self::Config) -> Result<Self, TrainError>;
    fn load(path: &Path) -> Result<Self, WeightsError>;
    fn save(&self, path: &Path) -> Result<(), WeightsError>;
    /// Games the weights were trained on (stored in the weights file).
    fn games(&self) -> u64;
    fn set_games(&mut self, games: u64);
    /// Refuses nets that do not fit the run's config (a weights file of other inputs).
    fn fits(&self, config: &Self::Config) -> Result<(), TrainError>;
    fn workspace(&self, config: &Self::Config) -> Self::Workspace;
    /// Plays the next self-play games, game `first` on, and learns from them; returns how
    /// many were played.
    fn step(&mut self, config: &Self::Config, first: u64, ws: &mut Self::Workspace) -> u64;
    /// The benchmark duel of the nets (the learning curve's next point).
    fn benchmark(&self, config: &Self::Config) -> DuelResult;
    /// The player the benchmark plays against, for reports.
    fn opponent(&self) -> &'static str;
    /// The tag of the run's log lines (`[train]`, `[train plakoto]`).
    fn tag(&self) -> String;
    /// What `stargammon train` needs besides `--resume DIR` to resume the run.
    fn resume_flags(&self) -> String;
}

/// A training run in a directory.
#[derive(Debug)]
pub struct Run<L: Learner> {
    pub config: L::Config,
    pub nets: L,
    pub state: TrainState,
    dir: PathBuf,
}

impl<L: Learner> Run<L> {
    /// Starts a new run in the config's `run_dir` (which must not hold a run already).
    pub fn create(config: L::Config) -> Result<Run<L>, TrainError> {
        config.check()?;
        let dir = config.run_dir().to_path_buf();
        if dir.join("state.json").exists() {
            return Err(TrainError::Config(format!(
                "{} already holds a run; use --resume {}",
                dir.display(),
                dir.display()
            )));
        }
        std::fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
        let nets = L::fresh(&config)?;
        write_config(&dir, &config)?;
        let mut run = Run {
            config,
            nets,
            state: TrainState {
                games: 0,
                seconds: 0.0,
                best_ppg: None,
                best_games: 0,
                weights_file: String::new(),
            },
            dir,
        };
        run.checkpoint()?;
        Ok(run)
    }

    /// Reopens the run in `dir`. `config` replaces the stored config when given (to
    /// extend a schedule or change limits); the nets must stay those of the run.
    pub fn resume(dir: &Path, config: Option<L::Config>) -> Result<Run<L>, TrainError> {
        let state = read_state(dir)?;
        let stored = L::Config::load(&dir.join("config.toml"))?;
        let mut config = match config {
            Some(c) => {
                c.keeps(&stored)?;
                write_config(dir, &c)?;
                c
            }
            None => stored,
        };
        config.set_run_dir(dir);
        config.check()?;
        let nets = L::load(&dir.join(&state.weights_file)).map_err(TrainError::Weights)?;
        nets.fits(&config)?;
        if nets.games() != state.games {
            return Err(TrainError::State(format!(
                "weights hold {} games, state says {}",
                nets.games(),
                state.games
            )));
        }
        // Benchmark rows written after this checkpoint would be repeated: drop them.
        curve::truncate_csv(&dir.join("curve.csv"), state.games)?;
        Ok(Run {
            config,
            nets,
            state,
            dir: dir.to_path_buf(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Saves weights and state atomically: a new weights file, then the state naming it,
    /// then the old weights file is removed.
    pub fn checkpoint(&mut self) -> Result<(), TrainError> {
        self.nets.set_games(self.state.games);
        let name = format!("checkpoint-{}.sgnet", self.state.games);
        self.nets
            .save(&self.dir.join(&name))
            .map_err(TrainError::Weights)?;
        let old = std::mem::replace(&mut self.state.weights_file, name);
        let state_path = self.dir.join("state.json");
        let tmp = self.dir.join("state.json.tmp");
        let text = serde_json::to_string_pretty(&self.state)
            .map_err(|e| TrainError::State(e.to_string()))?;
        std::fs::write(&tmp, text).map_err(|e| io_err(&tmp, e))?;
        std::fs::rename(&tmp, &state_path).map_err(|e| io_err(&state_path, e))?;
        if !old.is_empty() && old != self.state.weights_file {
            let _ = std::fs::remove_file(self.dir.join(old));
        }
        Ok(())
    }

    /// Plays the benchmark, records it (curve, snapshot) and keeps the best nets. Returns
    /// the ppg.
    pub fn benchmark(&mut self) -> Result<f64, TrainError> {
        let r = self.nets.benchmark(&self.config);
        let (alpha, lambda) = self.config.schedule_at(self.state.games);
        let csv = self.dir.join("curve.csv");
        curve::append_csv(
            &csv,
            &curve::CurvePoint {
                games: self.state.games,
                minutes: self.state.seconds / 60.0,
                ppg: r.ppg,
                ci95: r.ci95,
                alpha,
                lambda,
            },
        )?;
        let points = curve::read_csv(&csv)?;
        let title = format!(
            "{}: TD(lambda) self-play against {} (ppg, {} games each)",
            self.config.name(),
            self.nets.opponent(),
            r.games
        );
        let svg_path = self.dir.join("curve.svg");
        std::fs::write(&svg_path, curve::svg(&points, &title)).map_err(|e| io_err(&svg_path, e))?;
        let snaps = self.dir.join("snapshots");
        std::fs::create_dir_all(&snaps).map_err(|e| io_err(&snaps, e))?;
        self.nets.set_games(self.state.games);
        self.nets
            .save(&snaps.join(format!("games-{}.sgnet", self.state.games)))
            .map_err(TrainError::Weights)?;
        if self.state.best_ppg.is_none_or(|b| r.ppg > b) {
            self.state.best_ppg = Some(r.ppg);
            self.state.best_games = self.state.games;
            self.nets
                .save(&self.dir.join("best.sgnet"))
                .map_err(TrainError::Weights)?;
        }
        eprintln!(
            "{} games {}: {:+.3} +/- {:.3} ppg against {} ({} games, {:.0} s); best {:+.3} at {}",
            self.nets.tag(),
            self.state.games,
            r.ppg,
            r.ci95,
            self.nets.opponent(),
            r.games,
            r.seconds,
            self.state.best_ppg.unwrap_or(f64::NAN),
            self.state.best_games
        );
        Ok(r.ppg)
    }

    /// Trains until `max_games`, the time limit, or `stop` is set; checkpoints on the way
    /// and at the end.
    pub fn run(&mut self, stop: &AtomicBool, progress: bool) -> Result<StopReason, TrainError> {
        let mut ws = self.nets.workspace(&self.config);
        let mut clock = RunClock::new(
            self.state.seconds,
            self.state.games,
            self.config.checkpoint_minutes(),
            self.config.max_minutes(),
        );
        let bar = if progress {
            let pb = indicatif::ProgressBar::new(self.config.max_games());
            pb.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            pb.set_position(self.state.games);
            pb
        } else {
            indicatif::ProgressBar::hidden()
        };
        if self.state.games == 0 && self.config.bench_every() > 0 && !curve_has_start(&self.dir) {
            self.benchmark()?;
        }
        let reason = loop {
            if let Some(reason) = clock.stop(self.state.games, self.config.max_games(), stop) {
                break reason;
            }
            let before = self.state.games;
            self.state.games += self.nets.step(&self.config, before, &mut ws);
            self.state.seconds = clock.seconds();
            let rate = clock.rate(self.state.games);
            let (alpha, lambda) = self.config.schedule_at(self.state.games);
            bar.set_position(self.state.games);
            bar.set_message(format!("{rate:.0} games/s alpha {alpha} lambda {lambda}"));
            if clock.log_due() {
                eprintln!(
                    "{} games {} ({rate:.1} games/s this session), alpha {alpha}, lambda {lambda}",
                    self.nets.tag(),
                    self.state.games
                );
            }
            let (now, every) = (self.state.games, self.config.bench_every());
            clock.tick(self, before, now, every)?;
        };
        self.state.seconds = clock.seconds();
        self.checkpoint()?;
        bar.finish_and_clear();
        eprintln!(
            "{} stopped ({reason:?}) at {} games, {:.1} h in all; resume with: stargammon train{} --resume {}",
            self.nets.tag(),
            self.state.games,
            self.state.seconds / 3600.0,
            self.nets.resume_flags(),
            self.dir.display()
        );
        Ok(reason)
    }
}

impl<L: Learner> Checkpointed for Run<L> {
    fn benchmark(&mut self) -> Result<f64, TrainError> {
        Run::benchmark(self)
    }

    fn checkpoint(&mut self) -> Result<(), TrainError> {
        Run::checkpoint(self)
    }
}

/// Whether the run's curve already has its point at game 0 (a run resumed before its
/// first step).
fn curve_has_start(dir: &Path) -> bool {
    curve::read_csv(&dir.join("curve.csv")).is_ok_and(|p| p.iter().any(|p| p.games == 0))
}

fn write_config<C: RunConfig>(dir: &Path, config: &C) -> Result<(), TrainError> {
    let text = toml::to_string_pretty(config).map_err(|e| TrainError::Config(e.to_string()))?;
    let path = dir.join("config.toml");
    std::fs::write(&path, text).map_err(|e| io_err(&path, e))
}
