//! TD(lambda) self-play training of the contact and race nets.
//!
//! How a run works, and why:
//! - The nets play both sides, each side choosing the play whose resulting position they
//!   value most. After a game the positions are walked backwards computing lambda-returns
//!   (each prediction blends the next position's prediction, seen from the other side,
//!   with the return after it; the last move gets the exact result), and each position
//!   is moved towards its return. With the weights frozen during a game this is the same
//!   update as accumulating TD(lambda) with eligibility traces, at a fraction of the cost.
//! - Games run in *rounds*: the round's games are split over the threads, each game
//!   writes its update into its own buffer against a frozen copy of the weights, and the
//!   buffers are added in game order. A run is therefore fully determined by its config,
//!   whatever the thread count, and game `i` always gets the dice of seed (seed, i).
//! - The whole state is the weights and the number of games played, saved at round
//!   boundaries: resuming continues exactly as if never stopped.
//! - Every `bench_every` games the current nets play pubeval (mirrored pairs); the figures
//!   go to `curve.csv` and `curve.svg`, and the best nets so far to `best.sgnet`.

pub mod config;
pub mod curve;
pub mod distill;
pub mod run;
pub mod tavli;

use crate::game::Rng;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use config::{ScheduleStep, TrainConfig};
pub use run::{Learner, Run, RunConfig};

use crate::arena::{duel, opening_roll, DuelConfig};
use crate::eval::encoding::SparseInput;
use crate::eval::net::{Gradient, Mlp, MAX_HIDDEN};
use crate::eval::neural::{finished, Scratch};
use crate::eval::{NetSet, NeuralEvaluator, Probabilities};
use crate::game::splitmix;
use crate::game::{generate_plays, Dice, Phase, PlayList, Position};
use crate::players::{NetPlayer, PlayerFactory, PubevalPlayer};

/// Why training stopped or failed.
#[derive(Debug)]
pub enum TrainError {
    Config(String),
    Io(String),
    Weights(crate::eval::WeightsError),
    State(String),
}

impl std::fmt::Display for TrainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrainError::Config(s) => write!(f, "training config: {s}"),
            TrainError::Io(s) => write!(f, "training files: {s}"),
            TrainError::Weights(e) => write!(f, "{e}"),
            TrainError::State(s) => write!(f, "training state: {s}"),
        }
    }
}

impl std::error::Error for TrainError {}

fn io_err(path: &Path, e: std::io::Error) -> TrainError {
    TrainError::Io(format!("{}: {e}", path.display()))
}

/// The trainer's saved state besides the weights.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TrainState {
    /// Self-play games played so far (also the index of the next game's dice seed).
    pub games: u64,
    /// Wall-clock seconds spent training over all sessions.
    pub seconds: f64,
    /// Best pubeval benchmark so far (ppg) and when.
    pub best_ppg: Option<f64>,
    pub best_games: u64,
    /// File name of the weights of this checkpoint inside the run directory.
    #[serde(default)]
    pub weights_file: String,
}

/// Reads a run directory's `state.json`.
pub fn read_state(dir: &Path) -> Result<TrainState, TrainError> {
    let state_path = dir.join("state.json");
    let text = std::fs::read_to_string(&state_path).map_err(|e| io_err(&state_path, e))?;
    serde_json::from_str(&text).map_err(|e| TrainError::State(e.to_string()))
}

/// The seed of self-play game `index`.
pub fn game_seed(seed: u64, index: u64) -> u64 {
    splitmix(splitmix(seed) ^ index.wrapping_mul(0xA076_1D64_78BD_642F))
}

/// Per-thread buffers for self-play.
#[derive(Debug)]
pub struct Workspace {
    scratch: Scratch,
    list: PlayList,
    states: Vec<Position>,
    input: SparseInput,
    hidden: Vec<f32>,
    contact_grad: Option<Gradient>,
    race_grad: Option<Gradient>,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            scratch: Scratch::default(),
            list: PlayList::new(),
            states: Vec::with_capacity(256),
            input: SparseInput::default(),
            hidden: vec![0.0; MAX_HIDDEN],
            contact_grad: None,
            race_grad: None,
        }
    }
}

/// Plays one self-play game with the frozen nets of `eval`, computes the lambda-returns
/// with those nets, then moves `learner` (a copy of the same nets) towards them one
/// position at a time, from the last position back (step size `alpha`). Returns the
/// number of positions in the game.
pub fn train_game(
    eval: &NeuralEvaluator,
    seed: u64,
    alpha: f32,
    lambda: f32,
    ws: &mut Workspace,
    learner: &mut NetSet,
) -> usize {
    let mut rng = Rng::seeded(seed);
    ws.states.clear();
    let mut pos = Position::OPENING;
    let mut dice: Dice = opening_roll(&mut rng);
    let final_result;
    loop {
        ws.states.push(pos);
        generate_plays(&pos, dice, &mut ws.list);
        let mut best = 0;
        let mut best_eq = f32::NEG_INFINITY;
        let mut won = None;
        for (i, play) in ws.list.iter().enumerate() {
            if let Some(r) = play.position.mover_result() {
                won = Some(r);
                best = i;
                break;
            }
            let e = -eval
                .evaluate_with(&play.next_position(), &mut ws.scratch)
                .equity();
            if e > best_eq {
                best_eq = e;
                best = i;
            }
        }
        if let Some(r) = won {
            final_result = r;
            break;
        }
        pos = ws.list[best].next_position();
        dice = Dice::roll(&mut rng);
    }
    // Walk backwards: G_{T-1} = exact win for the last mover;
    // G_t = (1 - lambda) * inv(V(s_{t+1})) + lambda * inv(G_{t+1}).
    let n = ws.states.len();
    let mut ret = Probabilities::from_result(final_result, true);
    for t in (0..n).rev() {
        let s = ws.states[t];
        if t + 1 < n {
            let next_v = eval
                .evaluate_with(&ws.states[t + 1], &mut ws.scratch)
                .invert();
            let back = ret.invert();
            let mut g = [0.0f32; 5];
            for k in 0..5 {
                g[k] = (1.0 - lambda) * next_v.0[k] + lambda * back.0[k];
            }
            ret = Probabilities(g);
        }
        if finished(&s).is_some() {
            continue;
        }
        learner.encoding.encode_for(&s, &mut ws.input);
        let (net, grad) = match s.phase() {
            Phase::Contact => (&mut learner.contact, &mut ws.contact_grad),
            Phase::Race => (&mut learner.race, &mut ws.race_grad),
        };
        let grad = grad.get_or_insert_with(|| net.zero_gradient());
        net.accumulate_gradient(&ws.input, &ret.0, alpha, &mut ws.hidden, grad);
        net.apply(grad);
        grad.clear();
    }
    n
}

/// What stopped a call to [`Run::run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    MaxGames,
    TimeLimit,
    Signal,
}

/// The bookkeeping a training run's loop shares between its steps (backgammon's rounds,
/// Tavli's games): when to stop, when a benchmark or a checkpoint is due, the rate and the
/// run's total time across sessions.
pub(crate) struct RunClock {
    start: Instant,
    base_seconds: f64,
    session_games: u64,
    last_checkpoint: Instant,
    last_log: Instant,
    checkpoint_every: Duration,
    limit: Option<Duration>,
}

/// What a training run does between its steps besides training.
pub(crate) trait Checkpointed {
    /// Measures the nets (the learning curve's next point); their ppg.
    fn benchmark(&mut self) -> Result<f64, TrainError>;
    /// Saves the run so that it resumes from here.
    fn checkpoint(&mut self) -> Result<(), TrainError>;
}

/// What a run does after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Due {
    Nothing,
    Checkpoint,
    /// A benchmark, then a checkpoint.
    Benchmark,
}

impl RunClock {
    /// A clock for a session that resumes a run of `games` games and `seconds` seconds.
    pub(crate) fn new(seconds: f64, games: u64, checkpoint_minutes: f64, max_minutes: f64) -> Self {
        let now = Instant::now();
        RunClock {
            start: now,
            base_seconds: seconds,
            session_games: games,
            last_checkpoint: now,
            last_log: now,
            checkpoint_every: Duration::from_secs_f64(checkpoint_minutes * 60.0),
            limit: (max_minutes > 0.0).then(|| Duration::from_secs_f64(max_minutes * 60.0)),
        }
    }

    /// Why the run stops before its next step, if it does.
    pub(crate) fn stop(&self, games: u64, max_games: u64, stop: &AtomicBool) -> Option<StopReason> {
        if games >= max_games {
            Some(StopReason::MaxGames)
        } else if stop.load(Ordering::Relaxed) {
            Some(StopReason::Signal)
        } else if self.limit.is_some_and(|l| self.start.elapsed() >= l) {
            Some(StopReason::TimeLimit)
        } else {
            None
        }
    }

    /// The run's seconds in all, earlier sessions included.
    pub(crate) fn seconds(&self) -> f64 {
        self.base_seconds + self.start.elapsed().as_secs_f64()
    }

    /// Games per second in this session.
    pub(crate) fn rate(&self, games: u64) -> f64 {
        (games - self.session_games) as f64 / self.start.elapsed().as_secs_f64()
    }

    /// True at most once a minute: a progress line is due.
    pub(crate) fn log_due(&mut self) -> bool {
        let due = self.last_log.elapsed() >= Duration::from_secs(60);
        if due {
            self.last_log = Instant::now();
        }
        due
    }

    /// Benchmarks and checkpoints `run` as [`Self::due`] says.
    pub(crate) fn tick<R: Checkpointed>(
        &mut self,
        run: &mut R,
        before: u64,
        now: u64,
        bench_every: u64,
    ) -> Result<(), TrainError> {
        match self.due(before, now, bench_every) {
            Due::Benchmark => {
                run.benchmark()?;
                run.checkpoint()
            }
            Due::Checkpoint => run.checkpoint(),
            Due::Nothing => Ok(()),
        }
    }

    /// After the games `before..now`: a benchmark when they crossed a multiple of
    /// `bench_every` (0 = never), else a checkpoint when the interval has passed.
    pub(crate) fn due(&mut self, before: u64, now: u64, bench_every: u64) -> Due {
        let due = if bench_every > 0 && before / bench_every != now / bench_every {
            Due::Benchmark
        } else if self.last_checkpoint.elapsed() >= self.checkpoint_every {
            Due::Checkpoint
        } else {
            Due::Nothing
        };
        if due != Due::Nothing {
            self.last_checkpoint = Instant::now();
        }
        due
    }
}

/// Backgammon's run: the contact and race nets.
pub type Trainer = Run<NetSet>;

impl RunConfig for TrainConfig {
    fn load(path: &Path) -> Result<TrainConfig, TrainError> {
        TrainConfig::load(path)
    }

    fn check(&self) -> Result<(), TrainError> {
        TrainConfig::check(self)
    }

    fn keeps(&self, stored: &TrainConfig) -> Result<(), TrainError> {
        if self.contact_hidden != stored.contact_hidden || self.race_hidden != stored.race_hidden {
            return Err(TrainError::Config(
                "a resumed run keeps its net sizes".into(),
            ));
        }
        if self.contact_encoding != stored.contact_encoding {
            return Err(TrainError::Config(format!(
                "a resumed run keeps its contact encoding ({}; the config says {})",
                stored.contact_encoding, self.contact_encoding
            )));
        }
        Ok(())
    }

    run::run_config_fields!();

    fn schedule_at(&self, games: u64) -> (f32, f32) {
        TrainConfig::schedule_at(self, games)
    }
}

/// A session's buffers: one workspace per thread, one learner copy per game of a round.
#[derive(Debug)]
pub struct Rounds {
    workspaces: Vec<Workspace>,
    learners: Vec<NetSet>,
}

impl Learner for NetSet {
    type Config = TrainConfig;
    type Workspace = Rounds;

    fn fresh(config: &TrainConfig) -> Result<NetSet, TrainError> {
        let encoding = config.encoding()?;
        Ok(match &config.init_weights {
            Some(p) => {
                let nets = NetSet::load(p).map_err(TrainError::Weights)?;
                if nets.encoding != encoding {
                    return Err(TrainError::Config(format!(
                        "init_weights {} read input encoding {}, the config asks for {}",
                        p.display(),
                        nets.encoding.id(),
                        encoding.id()
                    )));
                }
                nets
            }
            None => {
                let mut rng = Rng::seeded(splitmix(config.seed ^ 0x1417));
                NetSet {
                    encoding,
                    contact: Mlp::random(
                        encoding.contact_inputs(),
                        config.contact_hidden,
                        config.init_scale,
                        &mut rng,
                    ),
                    race: Mlp::random(
                        encoding.race_inputs(),
                        config.race_hidden,
                        config.init_scale,
                        &mut rng,
                    ),
                    games: 0,
                }
            }
        })
    }

    fn load(path: &Path) -> Result<NetSet, crate::eval::WeightsError> {
        NetSet::load(path)
    }

    fn save(&self, path: &Path) -> Result<(), crate::eval::WeightsError> {
        NetSet::save(self, path)
    }

    fn games(&self) -> u64 {
        self.games
    }

    fn set_games(&mut self, games: u64) {
        self.games = games;
    }

    fn fits(&self, config: &TrainConfig) -> Result<(), TrainError> {
        if self.encoding != config.encoding()? {
            return Err(TrainError::State(format!(
                "weights read input encoding {}, the run's config says {}",
                self.encoding.id(),
                config.contact_encoding
            )));
        }
        Ok(())
    }

    fn workspace(&self, config: &TrainConfig) -> Rounds {
        Rounds {
            workspaces: (0..config.threads.max(1))
                .map(|_| Workspace::default())
                .collect(),
            learners: (0..config.games_per_round).map(|_| self.clone()).collect(),
        }
    }

    /// One round of self-play games (one learner copy each, all starting from the
    /// current nets); each game's change is added to the nets, in game order.
    fn step(&mut self, config: &TrainConfig, first: u64, ws: &mut Rounds) -> u64 {
        let (alpha, lambda) = config.schedule_at(first);
        let eval = NeuralEvaluator::new(self.clone(), "training");
        for l in ws.learners.iter_mut() {
            l.clone_from(self);
        }
        let games = ws.learners.len();
        let threads = ws.workspaces.len().clamp(1, games);
        let seed = config.seed;
        std::thread::scope(|scope| {
            let eval = &eval;
            // Game j goes to thread j % threads.
            let mut per_thread: Vec<Vec<(usize, &mut NetSet)>> =
                (0..threads).map(|_| Vec::new()).collect();
            for (j, g) in ws.learners.iter_mut().enumerate() {
                per_thread[j % threads].push((j, g));
            }
            for (w, jobs) in ws.workspaces.iter_mut().zip(per_thread) {
                scope.spawn(move || {
                    for (j, g) in jobs {
                        train_game(eval, game_seed(seed, first + j as u64), alpha, lambda, w, g);
                    }
                });
            }
        });
        let base = eval.nets();
        for l in ws.learners.iter() {
            self.contact.add_difference(&l.contact, &base.contact);
            self.race.add_difference(&l.race, &base.race);
        }
        games as u64
    }

    /// Depth 1 against pubeval.
    fn benchmark(&self, config: &TrainConfig) -> crate::arena::DuelResult {
        let eval = Arc::new(NeuralEvaluator::new(self.clone(), "net"));
        let a = PlayerFactory::new("net", move || {
            Box::new(NetPlayer::new(eval.clone(), 0.0, "net".into()))
        });
        let b = PlayerFactory::new("pubeval", || Box::new(PubevalPlayer));
        duel(
            &a,
            &b,
            &DuelConfig {
                games: config.bench_games,
                seed: config.bench_seed,
                threads: config.threads,
                progress: false,
                judge: None,
            },
        )
    }

    fn opponent(&self) -> &'static str {
        "pubeval"
    }

    fn tag(&self) -> String {
        "[train]".into()
    }

    fn resume_flags(&self) -> String {
        String::new()
    }
}

/// Sets `flag` when the process gets SIGINT or SIGTERM (a background thread waits for
/// them), so the trainer can checkpoint and stop cleanly.
pub fn stop_on_signals(flag: Arc<AtomicBool>) -> Result<(), TrainError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| TrainError::Io(format!("signal handler: {e}")))?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            rt.block_on(async move {
                #[cfg(unix)]
                {
                    use tokio::signal::unix::{signal, SignalKind};
                    let term = signal(SignalKind::terminate());
                    let int = signal(SignalKind::interrupt());
                    if let (Ok(mut term), Ok(mut int)) = (term, int) {
                        tokio::select! {
                            _ = term.recv() => {},
                            _ = int.recv() => {},
                        }
                    } else {
                        let _ = tokio::signal::ctrl_c().await;
                    }
                }
                #[cfg(not(unix))]
                {
                    let _ = tokio::signal::ctrl_c().await;
                }
                eprintln!("[train] signal received: checkpointing and stopping");
                flag.store(true, Ordering::Relaxed);
            });
        })
        .map_err(|e| TrainError::Io(format!("signal handler: {e}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_clock_says_when_to_stop_benchmark_and_checkpoint() {
        // A long checkpoint interval: only benchmarks are due.
        let mut clock = RunClock::new(10.0, 200, 60.0, 0.0);
        assert_eq!(clock.due(200, 299, 100), Due::Nothing);
        assert_eq!(clock.due(299, 300, 100), Due::Benchmark);
        assert_eq!(clock.due(300, 399, 100), Due::Nothing);
        assert_eq!(clock.due(399, 400, 100), Due::Benchmark);
        assert_eq!(clock.due(400, 650, 100), Due::Benchmark);
        assert_eq!(clock.due(650, 700, 0), Due::Nothing);
        assert!(clock.seconds() >= 10.0);
        let flag = AtomicBool::new(false);
        assert_eq!(clock.stop(199, 200, &flag), None);
        assert_eq!(clock.stop(200, 200, &flag), Some(StopReason::MaxGames));
        flag.store(true, Ordering::Relaxed);
        assert_eq!(clock.stop(199, 200, &flag), Some(StopReason::Signal));
        // No interval: a checkpoint after every step that is not a benchmark.
        let mut every = RunClock::new(0.0, 0, 0.0, 0.0);
        assert_eq!(every.due(0, 1, 100), Due::Checkpoint);
        assert_eq!(every.due(99, 100, 100), Due::Benchmark);
        // A time limit already passed.
        let limited = RunClock::new(0.0, 0, 60.0, 1e-9);
        std::thread::sleep(Duration::from_millis(2));
        let flag = AtomicBool::new(false);
        assert_eq!(limited.stop(0, 10, &flag), Some(StopReason::TimeLimit));
    }
}
