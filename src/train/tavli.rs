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
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::config::ScheduleStep;
use super::{game_seed, io_err, Learner, Run, RunConfig, TrainError};
use crate::arena::{duel_from, DuelConfig, DuelResult, MAX_TURNS};
use crate::eval::tavli::{TavliNet, TavliProbs, TavliScratch, TAVLI_MAX_HIDDEN};
use crate::game::{splitmix, Rng, Variant};
use crate::players::{HeuristicPlayer, PlayerFactory};
use crate::tavli::{generate_plays, RuleSwitches, TavliPlayList, TavliPosition};

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

/// A Tavli game's run: the game's net.
pub type TavliTrainer = Run<TavliNet>;

impl RunConfig for TavliTrainConfig {
    fn load(path: &Path) -> Result<TavliTrainConfig, TrainError> {
        TavliTrainConfig::load(path)
    }

    fn check(&self) -> Result<(), TrainError> {
        TavliTrainConfig::check(self)
    }

    fn keeps(&self, stored: &TavliTrainConfig) -> Result<(), TrainError> {
        if self.hidden != stored.hidden || self.variant != stored.variant {
            return Err(TrainError::Config(
                "a resumed run keeps its game and net size".into(),
            ));
        }
        Ok(())
    }

    super::run::run_config_fields!();

    fn schedule_at(&self, games: u64) -> (f32, f32) {
        TavliTrainConfig::schedule_at(self, games)
    }
}

/// A session's buffers for single games.
#[derive(Debug, Default)]
pub struct GameBuffers {
    states: Vec<TavliPosition>,
    list: TavliPlayList,
    scratch: TavliScratch,
}

impl Learner for TavliNet {
    type Config = TavliTrainConfig;
    type Workspace = GameBuffers;

    fn fresh(config: &TavliTrainConfig) -> Result<TavliNet, TrainError> {
        let mut rng = Rng::seeded(splitmix(config.seed ^ 0x7a71));
        TavliNet::random(
            config.variant()?,
            config.hidden,
            config.init_scale,
            &mut rng,
        )
        .ok_or_else(|| TrainError::Config("no net for this variant and size".into()))
    }

    fn load(path: &Path) -> Result<TavliNet, crate::eval::WeightsError> {
        TavliNet::load(path)
    }

    fn save(&self, path: &Path) -> Result<(), crate::eval::WeightsError> {
        TavliNet::save(self, path)
    }

    fn games(&self) -> u64 {
        self.games
    }

    fn set_games(&mut self, games: u64) {
        self.games = games;
    }

    fn fits(&self, config: &TavliTrainConfig) -> Result<(), TrainError> {
        if self.variant() != config.variant()? || self.hidden() != config.hidden {
            return Err(TrainError::State(format!(
                "the weights are a {} net of {} hidden units, the run's config says {} and {}",
                self.variant(),
                self.hidden(),
                config.variant,
                config.hidden
            )));
        }
        Ok(())
    }

    fn workspace(&self, _config: &TavliTrainConfig) -> GameBuffers {
        GameBuffers {
            states: Vec::with_capacity(512),
            ..GameBuffers::default()
        }
    }

    /// One game, learnt from as it is walked back (module docs).
    fn step(&mut self, config: &TavliTrainConfig, first: u64, ws: &mut GameBuffers) -> u64 {
        let (alpha, lambda) = config.schedule_at(first);
        let seed = game_seed(config.seed, first);
        train_game(
            self,
            seed,
            alpha,
            lambda,
            &mut ws.states,
            &mut ws.list,
            &mut ws.scratch,
        );
        1
    }

    /// Depth 1 against the game's heuristic player.
    fn benchmark(&self, config: &TavliTrainConfig) -> DuelResult {
        let me = crate::players::tavli::of_net(Arc::new(self.clone()), 1);
        duel_from(
            TavliPosition::start(self.variant()),
            &PlayerFactory::of_game("net", move || Box::new(me.clone())),
            &PlayerFactory::of_game("heuristic", || Box::new(HeuristicPlayer::new())),
            &DuelConfig {
                games: config.bench_games,
                seed: config.bench_seed,
                threads: 1,
                progress: false,
                judge: None,
            },
        )
    }

    fn opponent(&self) -> &'static str {
        "the heuristic"
    }

    fn tag(&self) -> String {
        format!("[train {}]", self.variant())
    }

    fn resume_flags(&self) -> String {
        format!(" --variant {}", self.variant())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::curve::read_csv;
    use super::*;
    use std::sync::atomic::AtomicBool;

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
            assert_eq!(t3.nets, t.nets, "{variant}");
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
