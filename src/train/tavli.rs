//! TD self-play training of the Tavli nets (`stargammon train --variant V --config FILE`).
//!
//! The scheme of the Palamedes paper (docs/VARIANTS.md, section 11): one game of greedy
//! self-play with the current net, then the game is walked backwards from its last
//! position; each position is moved (one cross-entropy gradient step, no batches)
//! towards its lambda-return, computed with the net as it is at that moment ("target
//! recalculation"): G(last) = the result, G(t) = invert((1 - lambda) V(t+1) +
//! lambda G(t+1)), invert because the next position is seen from the other side.
//!
//! A run lives in a directory: `config.toml` (as started), `state.json` (games played,
//! best benchmark), `net.sgnet` (the latest weights), `best.sgnet` (the best benchmark
//! so far), `curve.csv` / `curve.svg` (the benchmark against the game's heuristic player
//! every `bench_every` games). Game `i` always gets the dice of seed (seed, i), and a
//! checkpoint is written between games, so a resumed run continues exactly as if it had
//! never stopped.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::config::ScheduleStep;
use super::curve::{append_csv, read_csv, svg, truncate_csv, CurvePoint};
use super::{game_seed, io_err, Checkpointed, RunClock, StopReason, TrainError};
use crate::arena::{duel_from, DuelConfig, MAX_TURNS};
use crate::eval::tavli::{TavliNet, TavliProbs, TavliScratch, TAVLI_MAX_HIDDEN};
use crate::game::{splitmix, Rng};
use crate::players::{HeuristicPlayer, PlayerFactory};
use crate::tavli::{generate_plays, RuleSwitches, TavliPlayList, TavliPosition, Variant};

/// Everything that determines a Tavli training run (`config/tavli-*.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TavliTrainConfig {
    pub name: String,
    /// portes, plakoto or fevga.
    pub variant: String,
    pub run_dir: PathBuf,
    pub seed: u64,
    pub hidden: usize,
    pub init_scale: f32,
    pub max_games: u64,
    #[serde(default)]
    pub max_minutes: f64,
    pub checkpoint_minutes: f64,
    pub bench_every: u64,
    pub bench_games: u64,
    pub bench_seed: u64,
    pub schedule: Vec<ScheduleStep>,
}

impl TavliTrainConfig {
    /// Reads and checks a config file.
    pub fn load(path: &Path) -> Result<TavliTrainConfig, TrainError> {
        let text = std::fs::read_to_string(path).map_err(|e| io_err(path, e))?;
        let c: TavliTrainConfig = toml::from_str(&text)
            .map_err(|e| TrainError::Config(format!("{}: {e}", path.display())))?;
        c.check()?;
        Ok(c)
    }

    /// The game of the run.
    pub fn variant(&self) -> Result<Variant, TrainError> {
        match self.variant.parse::<Variant>() {
            Ok(v) if v.is_tavli() => Ok(v),
            _ => Err(TrainError::Config(format!(
                "variant {:?}: a Tavli run trains portes, plakoto or fevga",
                self.variant.chars().take(20).collect::<String>()
            ))),
        }
    }

    /// Refuses values that cannot work.
    pub fn check(&self) -> Result<(), TrainError> {
        let bad = |s: &str| Err(TrainError::Config(s.to_string()));
        self.variant()?;
        if self.hidden == 0 || self.hidden > TAVLI_MAX_HIDDEN {
            return bad("hidden must be in 1..=512");
        }
        super::config::check_run(&super::config::RunLimits {
            init_scale: self.init_scale,
            checkpoint_minutes: self.checkpoint_minutes,
            max_minutes: self.max_minutes,
            bench_every: self.bench_every,
            bench_games: self.bench_games,
            schedule: &self.schedule,
        })
    }

    /// Alpha and lambda for game number `games`.
    pub fn schedule_at(&self, games: u64) -> (f32, f32) {
        super::config::schedule_at(&self.schedule, games)
    }
}

/// The saved state of a run besides the weights.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TavliTrainState {
    pub games: u64,
    pub seconds: f64,
    pub best_ppg: Option<f64>,
    pub best_games: u64,
}

/// Plays one greedy self-play game with `net` on the dice of `seed` and trains the net on
/// it (module docs). Returns the number of positions trained.
pub fn train_game(
    net: &mut TavliNet,
    seed: u64,
    alpha: f32,
    lambda: f32,
    states: &mut Vec<TavliPosition>,
    list: &mut TavliPlayList,
    s: &mut TavliScratch,
) -> usize {
    let variant = net.variant();
    let rules = RuleSwitches::default();
    let mut rng = Rng::seeded(seed);
    let (_, mut dice) = crate::tavli::driver::opening(&mut rng);
    let mut pos = TavliPosition::start(variant);
    states.clear();
    let mut last = None;
    for _ in 0..MAX_TURNS {
        states.push(pos);
        generate_plays(&pos, dice, &rules, list);
        let mut best = (f32::NEG_INFINITY, 0usize);
        for (i, play) in list.iter().enumerate() {
            let v = match play.after.result() {
                Some(o) => TavliProbs::of_outcome(o).value(),
                None => -net.evaluate(&play.next_position(), s).value(),
            };
            if v > best.0 {
                best = (v, i);
            }
        }
        let Some(play) = list.get(best.1).copied() else {
            break;
        };
        if let Some(o) = play.after.result() {
            last = Some(TavliProbs::of_outcome(o));
            break;
        }
        pos = play.next_position();
        dice = rng.dice();
    }
    // A game cut at MAX_TURNS ends on the net's own view of its last position.
    let Some(&final_pos) = states.last() else {
        return 0;
    };
    let mut g = match last {
        Some(p) => p,
        None => net.evaluate(&final_pos, s),
    };
    net.train(&final_pos, &g, alpha, s);
    for t in (0..states.len() - 1).rev() {
        let next = net.evaluate(&states[t + 1], s);
        let mut blend = [0.0f32; 3];
        for (k, b) in blend.iter_mut().enumerate() {
            *b = (1.0 - lambda) * next.0[k] + lambda * g.0[k];
        }
        g = TavliProbs(blend).invert();
        net.train(&states[t], &g, alpha, s);
    }
    states.len()
}

/// A Tavli training run in a directory.
#[derive(Debug)]
pub struct TavliTrainer {
    pub config: TavliTrainConfig,
    pub net: TavliNet,
    pub state: TavliTrainState,
    dir: PathBuf,
}

impl TavliTrainer {
    /// Starts a new run in `config.run_dir` (which must not hold a run already).
    pub fn create(config: TavliTrainConfig) -> Result<TavliTrainer, TrainError> {
        config.check()?;
        let variant = config.variant()?;
        let dir = config.run_dir.clone();
        if dir.join("state.json").exists() {
            return Err(TrainError::Config(format!(
                "{} already holds a run; use --resume {}",
                dir.display(),
                dir.display()
            )));
        }
        std::fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
        let mut rng = Rng::seeded(splitmix(config.seed ^ 0x7a71));
        let net = TavliNet::random(variant, config.hidden, config.init_scale, &mut rng)
            .ok_or_else(|| TrainError::Config("no net for this variant and size".into()))?;
        let text =
            toml::to_string_pretty(&config).map_err(|e| TrainError::Config(e.to_string()))?;
        let cfg_path = dir.join("config.toml");
        std::fs::write(&cfg_path, text).map_err(|e| io_err(&cfg_path, e))?;
        let mut t = TavliTrainer {
            config,
            net,
            state: TavliTrainState {
                games: 0,
                seconds: 0.0,
                best_ppg: None,
                best_games: 0,
            },
            dir,
        };
        t.checkpoint()?;
        Ok(t)
    }

    /// Reopens the run in `dir`; `config` replaces the stored one when given (the net
    /// size and game must stay).
    pub fn resume(
        dir: &Path,
        config: Option<TavliTrainConfig>,
    ) -> Result<TavliTrainer, TrainError> {
        let state_path = dir.join("state.json");
        let text = std::fs::read_to_string(&state_path).map_err(|e| io_err(&state_path, e))?;
        let state: TavliTrainState =
            serde_json::from_str(&text).map_err(|e| TrainError::State(e.to_string()))?;
        let stored = TavliTrainConfig::load(&dir.join("config.toml"))?;
        let mut config = match config {
            Some(c) if c.hidden != stored.hidden || c.variant != stored.variant => {
                return Err(TrainError::Config(
                    "a resumed run keeps its game and net size".into(),
                ))
            }
            Some(c) => c,
            None => stored,
        };
        config.run_dir = dir.to_path_buf();
        let net = TavliNet::load(&dir.join("net.sgnet")).map_err(TrainError::Weights)?;
        if net.games != state.games {
            return Err(TrainError::State(format!(
                "net.sgnet holds {} games, state.json {}",
                net.games, state.games
            )));
        }
        // Benchmarks written after the checkpoint are dropped: they will be made again.
        truncate_csv(&dir.join("curve.csv"), state.games)?;
        Ok(TavliTrainer {
            config,
            net,
            state,
            dir: dir.to_path_buf(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the weights, then the state that names them.
    pub fn checkpoint(&mut self) -> Result<(), TrainError> {
        self.net.games = self.state.games;
        self.net
            .save(&self.dir.join("net.sgnet"))
            .map_err(TrainError::Weights)?;
        let path = self.dir.join("state.json");
        let tmp = self.dir.join("state.json.tmp");
        let text = serde_json::to_string_pretty(&self.state)
            .map_err(|e| TrainError::State(e.to_string()))?;
        std::fs::write(&tmp, text).map_err(|e| io_err(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| io_err(&path, e))
    }

    /// Plays the benchmark against the game's heuristic player, records it and keeps the
    /// best net. Returns the ppg.
    pub fn benchmark(&mut self) -> Result<f64, TrainError> {
        let variant = self.net.variant();
        let me = crate::players::tavli::of_net(Arc::new(self.net.clone()), 1);
        let r = duel_from(
            TavliPosition::start(variant),
            &PlayerFactory::of_game("net", move || Box::new(me.clone())),
            &PlayerFactory::of_game("heuristic", || Box::new(HeuristicPlayer::new())),
            &DuelConfig {
                games: self.config.bench_games,
                seed: self.config.bench_seed,
                threads: 1,
                progress: false,
                judge: None,
            },
        );
        let (alpha, lambda) = self.config.schedule_at(self.state.games);
        let point = CurvePoint {
            games: self.state.games,
            minutes: self.state.seconds / 60.0,
            ppg: r.ppg,
            ci95: r.ci95,
            alpha,
            lambda,
        };
        let csv = self.dir.join("curve.csv");
        append_csv(&csv, &point)?;
        let points = read_csv(&csv)?;
        let title = format!(
            "{}: {} net against the heuristic player (ppg, {} games each)",
            self.config.name, variant, self.config.bench_games
        );
        let svg_path = self.dir.join("curve.svg");
        std::fs::write(&svg_path, svg(&points, &title)).map_err(|e| io_err(&svg_path, e))?;
        if self.state.best_ppg.map_or(true, |b| r.ppg > b) {
            self.state.best_ppg = Some(r.ppg);
            self.state.best_games = self.state.games;
            let mut best = self.net.clone();
            best.games = self.state.games;
            best.save(&self.dir.join("best.sgnet"))
                .map_err(TrainError::Weights)?;
        }
        eprintln!(
            "[train {variant}] games {}: {:+.3} +/- {:.3} ppg against the heuristic (best {:+.3} at {})",
            self.state.games,
            r.ppg,
            r.ci95,
            self.state.best_ppg.unwrap_or(r.ppg),
            self.state.best_games
        );
        Ok(r.ppg)
    }

    /// Trains until `max_games`, the time limit, or `stop`; checkpoints on the way and at
    /// the end.
    pub fn run(&mut self, stop: &AtomicBool, progress: bool) -> Result<StopReason, TrainError> {
        let mut states = Vec::with_capacity(512);
        let mut list = TavliPlayList::new();
        let mut scratch = TavliScratch::default();
        let mut clock = RunClock::new(
            self.state.seconds,
            self.state.games,
            self.config.checkpoint_minutes,
            self.config.max_minutes,
        );
        if self.state.games == 0 && self.config.bench_every > 0 {
            self.benchmark()?;
        }
        let reason = loop {
            if let Some(reason) = clock.stop(self.state.games, self.config.max_games, stop) {
                break reason;
            }
            let (alpha, lambda) = self.config.schedule_at(self.state.games);
            let seed = game_seed(self.config.seed, self.state.games);
            train_game(
                &mut self.net,
                seed,
                alpha,
                lambda,
                &mut states,
                &mut list,
                &mut scratch,
            );
            self.state.games += 1;
            self.state.seconds = clock.seconds();
            if progress && clock.log_due() {
                eprintln!(
                    "[train {}] games {} ({:.1} games/s), alpha {alpha}, lambda {lambda}",
                    self.net.variant(),
                    self.state.games,
                    clock.rate(self.state.games)
                );
            }
            let (now, every) = (self.state.games, self.config.bench_every);
            clock.tick(self, now - 1, now, every)?;
        };
        self.state.seconds = clock.seconds();
        self.checkpoint()?;
        eprintln!(
            "[train {}] stopped ({reason:?}) at {} games, {:.1} h in all; resume with: \
             stargammon train --variant {} --resume {}",
            self.net.variant(),
            self.state.games,
            self.state.seconds / 3600.0,
            self.net.variant(),
            self.dir.display()
        );
        Ok(reason)
    }
}

impl Checkpointed for TavliTrainer {
    fn benchmark(&mut self) -> Result<f64, TrainError> {
        TavliTrainer::benchmark(self)
    }

    fn checkpoint(&mut self) -> Result<(), TrainError> {
        TavliTrainer::checkpoint(self)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn config(dir: &Path, variant: &str) -> TavliTrainConfig {
        TavliTrainConfig {
            name: "test".into(),
            variant: variant.into(),
            run_dir: dir.to_path_buf(),
            seed: 5,
            hidden: 8,
            init_scale: 0.1,
            max_games: 6,
            max_minutes: 0.0,
            checkpoint_minutes: 5.0,
            bench_every: 3,
            bench_games: 2,
            bench_seed: 1,
            schedule: vec![
                ScheduleStep {
                    until: 3,
                    alpha: 0.1,
                    lambda: 0.7,
                },
                ScheduleStep {
                    until: 10,
                    alpha: 0.03,
                    lambda: 0.0,
                },
            ],
        }
    }

    #[test]
    fn a_stopped_run_resumes_exactly() {
        for variant in ["plakoto", "fevga"] {
            let root = std::env::temp_dir()
                .join(format!("sg-tavli-train-{variant}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            let stop = AtomicBool::new(false);
            // Straight through.
            let straight = root.join("straight");
            let mut t = TavliTrainer::create(config(&straight, variant)).unwrap();
            t.run(&stop, false).unwrap();
            // Stopped at 4 games, then resumed.
            let parts = root.join("parts");
            let mut c = config(&parts, variant);
            c.max_games = 4;
            let mut t2 = TavliTrainer::create(c).unwrap();
            t2.run(&stop, false).unwrap();
            let mut t3 = TavliTrainer::resume(&parts, Some(config(&parts, variant))).unwrap();
            t3.run(&stop, false).unwrap();
            assert_eq!(t3.state.games, 6);
            assert_eq!(t3.net, t.net, "{variant}");
            assert_eq!(read_csv(&parts.join("curve.csv")).unwrap().len(), 3);
            assert!(parts.join("best.sgnet").exists());
            let _ = std::fs::remove_dir_all(&root);
        }
    }

    #[test]
    fn configs_are_checked() {
        let dir = std::env::temp_dir();
        let mut c = config(&dir, "backgammon");
        assert!(c.check().is_err());
        c.variant = "fevga".into();
        assert!(c.check().is_ok());
        c.hidden = 0;
        assert!(c.check().is_err());
        assert_eq!(config(&dir, "fevga").schedule_at(100), (0.03, 0.0));
    }
}
