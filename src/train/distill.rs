//! Self-distillation: the nets learn the values of the engine's own deeper search.
//!
//! The pipeline, and why each step is as it is:
//! - **Generate** ([`generate`]): seeded cubeless games between pairs of players (the
//!   `sources` of [`DataConfig`]: self-play with noise, games against pubeval, older nets,
//!   deeper searches), so the positions cover what the nets meet and also what they would
//!   not choose themselves. Each position before a roll is kept with probability `keep`
//!   (positions answered exactly, finished games and both sides home, are left out) and
//!   labelled with the five probabilities of the `labeller`'s search at its depth (Star2
//!   depth 3: every roll's best play, averaged), or, with a `[rollout]` table, with those
//!   of a rollout by the labeller's players (variance-reduced, usually truncated: labels
//!   that look further ahead than a short search, at more cost per position). Training
//!   targets come only from the engine itself.
//! - **Chunks and a manifest**: chunk `k` holds the positions of games
//!   `k * games_per_chunk ..`, written whole to `chunk-KKKKK.bin` (checksummed) and then
//!   recorded in `manifest.jsonl` with its game range, labeller, the labelling nets'
//!   checksum and the file's checksum. A stopped run loses at most the chunks in hand;
//!   `--shard I/N` generates the chunks with `k % N == I`, so N machines (or a job array)
//!   run the same command and [`merge`] joins their directories.
//! - **Train** ([`train`]): minibatch Adam on the cross-entropy of the five sigmoid outputs
//!   (reported beyond the targets' own entropy, so a perfect fit reads 0),
//!   starting from given nets (a warm start), the contact and race nets each on their own
//!   positions; every tenth chunk is held out to measure the loss, and the epoch with the
//!   lowest held-out loss is kept.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::TrainError;
use crate::engine::{build as engine_build, EngineSpec, EvaluatorKind};
use crate::eval::encoding::{Encoding, SparseInput};
use crate::eval::net::{consistent, Mlp, MAX_HIDDEN, OUTPUTS};
use crate::eval::neural::exact;
use crate::eval::weights::fnv1a64;
use crate::eval::NetSet;
use crate::game::{splitmix, Phase, PlayList, Position, Rng};
use crate::players::{factory, BuildOptions, Decide};
use crate::rollout::{Hooks, Rollout, RolloutSettings};
use crate::search::{Cancel, SearchSettings};

/// What a data directory holds and how it is made (`config/distill.toml` documents each key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataConfig {
    /// Where the chunks and the manifest go (relative to where the command runs).
    pub dir: PathBuf,
    pub seed: u64,
    pub games_per_chunk: u64,
    /// Chunks in all (chunk k covers games k * games_per_chunk ..).
    pub chunks: u64,
    /// Probability of keeping each position before a roll.
    pub keep: f64,
    /// The search whose values are the targets (an engine spec; its depth is used).
    pub labeller: String,
    /// Pairs of players, `"A vs B"`; game g is played by pair g % len, A first in even
    /// rounds.
    pub sources: Vec<String>,
    /// Worker threads (chunks in parallel).
    pub threads: usize,
    /// Label with a rollout instead of the search (the labeller's depth is then its
    /// players' depth).
    #[serde(default)]
    pub rollout: Option<RolloutLabels>,
    /// Keep only positions of one game plan (none: every position).
    #[serde(default)]
    pub only: Option<Plan>,
}

/// A game plan a data set can be kept to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    /// Either side plays a back game ([`Position::back_game`]).
    BackGame,
}

impl Plan {
    /// Whether `pos` is of this plan.
    pub fn holds(self, pos: &Position) -> bool {
        match self {
            Plan::BackGame => pos.back_game(),
        }
    }
}

/// Rollout labels: how many trials per position and where they are truncated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RolloutLabels {
    pub trials: u64,
    /// Plies after which a trial is valued by the nets (none: played to the end).
    #[serde(default)]
    pub truncate: Option<u32>,
    /// Variance reduction in each trial (default on). Off, a trial played to the end costs
    /// a thirtieth as much, for a noisier label.
    #[serde(default = "yes")]
    pub variance_reduction: bool,
}

fn yes() -> bool {
    true
}

impl RolloutLabels {
    /// The rollout of one position; its seed comes from the position's game and ply.
    fn settings(&self, seed: u64) -> RolloutSettings {
        RolloutSettings {
            trials: self.trials,
            seed,
            truncate: self.truncate,
            variance_reduction: self.variance_reduction,
            threads: 1,
        }
    }
}

/// What labels a chunk's positions: the search at the labeller's depth, or a rollout.
enum Labeller {
    Search(crate::engine::Engine, SearchSettings),
    Rollout(Rollout, RolloutLabels),
}

impl Labeller {
    fn label(&self, pos: &Position, seed: u64) -> [f32; OUTPUTS] {
        match self {
            Labeller::Search(engine, settings) => {
                engine
                    .searcher()
                    .evaluate_position(pos, settings, &Cancel::new())
                    .probs
                    .0
            }
            Labeller::Rollout(rollout, labels) => {
                match rollout.position(pos, &labels.settings(seed), Hooks::none()) {
                    // Variance-reduced estimates can stray a little outside the
                    // probabilities a position can have: the nets' own clamps put them back.
                    Ok(r) => {
                        consistent(
                            r.estimate.probs().map(|p| p as f32),
                            pos.off(),
                            pos.opp_off(),
                        )
                        .0
                    }
                    // Only finished games are refused, and those are never kept.
                    Err(_) => exact(pos).map(|p| p.0).unwrap_or([0.0; OUTPUTS]),
                }
            }
        }
    }
}

impl DataConfig {
    pub fn load(path: &Path) -> Result<DataConfig, TrainError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| TrainError::Io(format!("{}: {e}", path.display())))?;
        let c: DataConfig = toml::from_str(&text)
            .map_err(|e| TrainError::Config(format!("{}: {e}", path.display())))?;
        c.check()?;
        Ok(c)
    }

    pub fn check(&self) -> Result<(), TrainError> {
        let bad = |s: String| Err(TrainError::Config(s));
        if self.games_per_chunk == 0 || self.chunks == 0 {
            return bad("games_per_chunk and chunks must be at least 1".into());
        }
        if !(self.keep > 0.0 && self.keep <= 1.0) {
            return bad("keep must be in (0, 1]".into());
        }
        if self.threads == 0 || self.threads > 256 {
            return bad("threads must be in 1..=256".into());
        }
        if self.sources.is_empty() {
            return bad("sources must name at least one pair".into());
        }
        for s in &self.sources {
            pair(s)?;
        }
        self.labeller_spec()?;
        if let Some(r) = &self.rollout {
            if r.trials == 0 || r.truncate == Some(0) {
                return bad("rollout: trials and truncate must be at least 1".into());
            }
        }
        Ok(())
    }

    /// The labeller as the manifest records it (the rollout's settings included, so a
    /// directory never mixes labels of two kinds).
    fn labeller_name(&self, spec: &EngineSpec) -> String {
        match &self.rollout {
            None => spec.to_string(),
            Some(r) => {
                let mut name = format!("rollout of {spec}, trials={}", r.trials);
                if let Some(t) = r.truncate {
                    name += &format!(", truncate={t}");
                }
                if !r.variance_reduction {
                    name += ", no variance reduction";
                }
                name
            }
        }
    }

    fn labeller_spec(&self) -> Result<EngineSpec, TrainError> {
        let spec: EngineSpec = self
            .labeller
            .parse()
            .map_err(|e| TrainError::Config(format!("labeller: {e}")))?;
        if !matches!(spec.evaluator, EvaluatorKind::Net(_)) {
            return Err(TrainError::Config(
                "labeller must be a net engine (net or net:PATH, with its depth)".into(),
            ));
        }
        Ok(spec)
    }
}

fn pair(s: &str) -> Result<(String, String), TrainError> {
    s.split_once(" vs ")
        .map(|(a, b)| (a.trim().to_string(), b.trim().to_string()))
        .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        .ok_or_else(|| TrainError::Config(format!("source {s:?}: expected \"A vs B\"")))
}

/// One labelled position: before its side to act rolls, with the probabilities for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Example {
    pub position: Position,
    pub target: [f32; OUTPUTS],
}

const CHUNK_MAGIC: [u8; 8] = *b"SGDATA\r\n";
const CHUNK_VERSION: u32 = 1;
const RECORD: usize = 26 + 4 * OUTPUTS;

fn chunk_bytes(examples: &[Example]) -> Vec<u8> {
    let mut b = Vec::with_capacity(16 + examples.len() * RECORD + 8);
    b.extend_from_slice(&CHUNK_MAGIC);
    b.extend_from_slice(&CHUNK_VERSION.to_le_bytes());
    b.extend_from_slice(&(examples.len() as u32).to_le_bytes());
    for e in examples {
        b.extend(e.position.slots().iter().map(|&s| s as u8));
        for p in e.target {
            b.extend_from_slice(&p.to_le_bytes());
        }
    }
    let sum = fnv1a64(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

/// Reads a chunk file's bytes; any damage is an error naming it.
pub fn parse_chunk(bytes: &[u8]) -> Result<Vec<Example>, String> {
    if bytes.len() < 24 || bytes[..8] != CHUNK_MAGIC {
        return Err("not a stargammon data chunk".into());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let stored = u64::from_le_bytes(sum.try_into().map_err(|_| "short checksum")?);
    if fnv1a64(body) != stored {
        return Err("checksum mismatch: the chunk is damaged".into());
    }
    let word = |i: usize| -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            body.get(i..i + 4)
                .and_then(|s| s.try_into().ok())
                .ok_or("truncated")?,
        ))
    };
    if word(8)? != CHUNK_VERSION {
        return Err(format!("chunk version {} is not {CHUNK_VERSION}", word(8)?));
    }
    let n = word(12)? as usize;
    let records = &body[16..];
    if records.len() != n * RECORD {
        return Err(format!(
            "chunk says {n} records but holds {} bytes",
            records.len()
        ));
    }
    let mut out = Vec::with_capacity(n);
    for r in records.chunks_exact(RECORD) {
        let mut slots = [0i8; 26];
        for (s, &b) in slots.iter_mut().zip(&r[..26]) {
            *s = b as i8;
        }
        let position = Position::from_slots(slots).map_err(|e| e.to_string())?;
        let mut target = [0f32; OUTPUTS];
        for (k, t) in target.iter_mut().enumerate() {
            let o = 26 + 4 * k;
            *t = f32::from_le_bytes([r[o], r[o + 1], r[o + 2], r[o + 3]]);
            if !(0.0..=1.0).contains(t) {
                return Err(format!("target {t} out of [0, 1]"));
            }
        }
        out.push(Example { position, target });
    }
    Ok(out)
}

/// One line of `manifest.jsonl`: a chunk and how it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkRecord {
    pub chunk: u64,
    pub first_game: u64,
    pub games: u64,
    pub positions: usize,
    pub seed: u64,
    pub keep: f64,
    pub labeller: String,
    /// FNV-1a 64 of the labelling nets' weights file bytes, hex.
    pub net: String,
    pub sources: Vec<String>,
    /// The one game plan kept, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<Plan>,
    pub file: String,
    /// FNV-1a 64 of the chunk file, hex.
    pub fnv: String,
}

impl ChunkRecord {
    /// Whether two chunks come from the same generation settings (mergeable).
    fn same_run(&self, o: &ChunkRecord) -> bool {
        self.seed == o.seed
            && self.games == o.games
            && self.keep == o.keep
            && self.labeller == o.labeller
            && self.net == o.net
            && self.sources == o.sources
            && self.only == o.only
    }
}

/// The manifest of `dir` (empty when there is none yet).
pub fn read_manifest(dir: &Path) -> Result<Vec<ChunkRecord>, TrainError> {
    let path = dir.join("manifest.jsonl");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(TrainError::Io(format!("{}: {e}", path.display()))),
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| TrainError::State(format!("{} line {}: {e}", path.display(), i + 1)))
        })
        .collect()
}

fn append_manifest(dir: &Path, r: &ChunkRecord) -> Result<(), TrainError> {
    let path = dir.join("manifest.jsonl");
    let line = serde_json::to_string(r).map_err(|e| TrainError::State(e.to_string()))?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| TrainError::Io(format!("{}: {e}", path.display())))?;
    writeln!(f, "{line}").map_err(|e| TrainError::Io(format!("{}: {e}", path.display())))
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| TrainError::Io(format!("{}: {e}", path.display())))
}

fn chunk_name(k: u64) -> String {
    format!("chunk-{k:05}.bin")
}

/// The games of chunk `k`, played and labelled (deterministic for the config).
fn make_chunk(
    cfg: &DataConfig,
    k: u64,
    players: &mut [[Box<dyn Decide>; 2]],
    labeller: &Labeller,
) -> Vec<Example> {
    let mut positions = Vec::new();
    let mut list = PlayList::new();
    for g in k * cfg.games_per_chunk..(k + 1) * cfg.games_per_chunk {
        let n = players.len() as u64;
        let [p0, p1] = &mut players[(g % n) as usize];
        let game_seed = splitmix(cfg.seed ^ splitmix(g.wrapping_add(0xD157)));
        let mut dice_rng = Rng::seeded(game_seed);
        let mut keep_rng = Rng::seeded(splitmix(game_seed ^ 0x6B65_6570));
        p0.new_game(splitmix(game_seed ^ 1));
        p1.new_game(splitmix(game_seed ^ 2));
        let (first, second) = if (g / n) % 2 == 1 { (p1, p0) } else { (p0, p1) };
        let mut ply = 0u32;
        crate::arena::play_game_visiting(
            Position::OPENING,
            first.as_mut(),
            second.as_mut(),
            &mut dice_rng,
            &mut list,
            |pos, _, _| {
                // The opening position is valued before the opening roll, which is no
                // position the nets are asked about mid-game; it is left out.
                if ply > 0
                    && keep_rng.chance(cfg.keep)
                    && exact(pos).is_none()
                    && cfg.only.is_none_or(|plan| plan.holds(pos))
                {
                    let label_seed = splitmix(game_seed ^ 0x726F_6C6C ^ u64::from(ply));
                    positions.push((*pos, label_seed));
                }
                ply += 1;
            },
        );
    }
    positions
        .iter()
        .map(|(p, seed)| Example {
            position: *p,
            target: labeller.label(p, *seed),
        })
        .collect()
}

fn labeller_net_checksum(spec: &EngineSpec) -> Result<String, TrainError> {
    let EvaluatorKind::Net(path) = &spec.evaluator else {
        return Err(TrainError::Config("labeller must be a net".into()));
    };
    let nets =
        engine_build::nets(path.as_deref()).map_err(|e| TrainError::Config(e.to_string()))?;
    Ok(format!("{:016x}", fnv1a64(&nets.weights_bytes())))
}

/// Generates the missing chunks of `cfg` with `k % shard.1 == shard.0`, in parallel, each
/// written and recorded as it completes; `progress(done, todo, positions)` after each.
/// A raised `stop` ends the run after the chunks in hand. Returns the chunks written.
pub fn generate(
    cfg: &DataConfig,
    shard: (u64, u64),
    stop: &AtomicBool,
    progress: &(dyn Fn(usize, usize, usize) + Sync),
) -> Result<usize, TrainError> {
    cfg.check()?;
    if shard.1 == 0 || shard.0 >= shard.1 {
        return Err(TrainError::Config(
            "shard must be I/N with 0 <= I < N".into(),
        ));
    }
    let spec = cfg.labeller_spec()?;
    let net = labeller_net_checksum(&spec)?;
    std::fs::create_dir_all(&cfg.dir)
        .map_err(|e| TrainError::Io(format!("{}: {e}", cfg.dir.display())))?;
    let template = ChunkRecord {
        chunk: 0,
        first_game: 0,
        games: cfg.games_per_chunk,
        positions: 0,
        seed: cfg.seed,
        keep: cfg.keep,
        labeller: cfg.labeller_name(&spec),
        net,
        sources: cfg.sources.clone(),
        only: cfg.only,
        file: String::new(),
        fnv: String::new(),
    };
    let existing = read_manifest(&cfg.dir)?;
    if let Some(r) = existing.iter().find(|r| !r.same_run(&template)) {
        return Err(TrainError::Config(format!(
            "{}: chunk {} was made with other settings (seed, games per chunk, keep, labeller, \
             its nets or sources); use another dir",
            cfg.dir.display(),
            r.chunk
        )));
    }
    let have: BTreeSet<u64> = existing.iter().map(|r| r.chunk).collect();
    let todo: Vec<u64> = (0..cfg.chunks)
        .filter(|k| k % shard.1 == shard.0 && !have.contains(k))
        .collect();
    // Each thread labels with its own engine and table, so threads never share one.
    let threads = cfg.threads.min(todo.len().max(1));
    let mut engines = Vec::with_capacity(threads);
    for _ in 0..threads {
        engines.push(match cfg.rollout {
            None => {
                let engine =
                    engine_build::engine(&spec).map_err(|e| TrainError::Config(e.to_string()))?;
                let settings = engine.plan().settings(spec.depth.get());
                Labeller::Search(engine, settings)
            }
            Some(r) => Labeller::Rollout(
                Rollout::new(&spec).map_err(|e| TrainError::Config(e.to_string()))?,
                r,
            ),
        });
    }
    let mut pairs = Vec::new();
    for s in &cfg.sources {
        let (a, b) = pair(s)?;
        let fa = factory(&a, BuildOptions::default())
            .map_err(|e| TrainError::Config(format!("source {s:?}: {e}")))?;
        let fb = factory(&b, BuildOptions::default())
            .map_err(|e| TrainError::Config(format!("source {s:?}: {e}")))?;
        pairs.push((fa, fb));
    }
    let next = AtomicUsize::new(0);
    let written = Mutex::new((0usize, 0usize));
    let failure: Mutex<Option<TrainError>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for engine in &engines {
            let (next, todo, pairs, written, failure, template) =
                (&next, &todo, &pairs, &written, &failure, &template);
            scope.spawn(move || {
                let mut players: Vec<[Box<dyn Decide>; 2]> =
                    pairs.iter().map(|(a, b)| [a.make(), b.make()]).collect();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some(&k) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let examples = make_chunk(cfg, k, &mut players, engine);
                    let bytes = chunk_bytes(&examples);
                    let record = ChunkRecord {
                        chunk: k,
                        first_game: k * cfg.games_per_chunk,
                        positions: examples.len(),
                        file: chunk_name(k),
                        fnv: format!("{:016x}", fnv1a64(&bytes)),
                        ..template.clone()
                    };
                    let Ok(mut w) = written.lock() else { break };
                    let r = write_atomically(&cfg.dir.join(&record.file), &bytes)
                        .and_then(|_| append_manifest(&cfg.dir, &record));
                    if let Err(e) = r {
                        if let Ok(mut f) = failure.lock() {
                            *f = Some(e);
                        }
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                    w.0 += 1;
                    w.1 += examples.len();
                    progress(w.0, todo.len(), w.1);
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    Ok(written.into_inner().map(|w| w.0).unwrap_or(0))
}

/// Copies the chunks of `from` that `into` lacks (checking their checksums and that both
/// come from the same settings) and records them in `into`'s manifest. Returns the number
/// copied.
pub fn merge(into: &Path, from: &Path) -> Result<usize, TrainError> {
    let mine = read_manifest(into)?;
    let theirs = read_manifest(from)?;
    let reference = mine.first().or(theirs.first()).cloned();
    std::fs::create_dir_all(into)
        .map_err(|e| TrainError::Io(format!("{}: {e}", into.display())))?;
    let have: BTreeSet<u64> = mine.iter().map(|r| r.chunk).collect();
    let mut copied = 0;
    for r in theirs {
        if let Some(reference) = &reference {
            if !r.same_run(reference) {
                return Err(TrainError::Config(format!(
                    "{}: chunk {} was made with other settings than {}",
                    from.display(),
                    r.chunk,
                    into.display()
                )));
            }
        }
        if have.contains(&r.chunk) {
            continue;
        }
        let bytes = read_chunk_file(from, &r)?;
        write_atomically(&into.join(&r.file), &bytes)?;
        append_manifest(into, &r)?;
        copied += 1;
    }
    Ok(copied)
}

fn read_chunk_file(dir: &Path, r: &ChunkRecord) -> Result<Vec<u8>, TrainError> {
    let path = dir.join(&r.file);
    let bytes =
        std::fs::read(&path).map_err(|e| TrainError::Io(format!("{}: {e}", path.display())))?;
    if format!("{:016x}", fnv1a64(&bytes)) != r.fnv {
        return Err(TrainError::State(format!(
            "{}: checksum differs from the manifest",
            path.display()
        )));
    }
    Ok(bytes)
}

/// Every example of the data directories, as (chunk index, examples).
pub fn load(dirs: &[PathBuf]) -> Result<Vec<(u64, Vec<Example>)>, TrainError> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for dir in dirs {
        for r in read_manifest(dir)? {
            if !seen.insert((r.seed, r.chunk)) {
                continue;
            }
            let bytes = read_chunk_file(dir, &r)?;
            let examples = parse_chunk(&bytes)
                .map_err(|e| TrainError::State(format!("{}: {e}", dir.join(&r.file).display())))?;
            out.push((r.chunk, examples));
        }
    }
    Ok(out)
}

/// How [`train`] learns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitConfig {
    pub epochs: usize,
    pub batch: usize,
    pub learning_rate: f32,
    pub seed: u64,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            epochs: 10,
            batch: 128,
            learning_rate: 3e-4,
            seed: 1,
        }
    }
}

/// One epoch's figures for one net.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpochReport {
    pub net: Phase,
    pub epoch: usize,
    pub train_loss: f64,
    pub held_out_loss: f64,
}

/// Cross-entropy of output `o` against target `t` minus the target's own entropy (the
/// Kullback-Leibler divergence, 0 when the output equals the target), in nats.
fn excess_loss(o: f32, t: f32) -> f64 {
    let term = |p: f32, q: f32| {
        if p <= 0.0 {
            0.0
        } else {
            f64::from(p) * (f64::from(p) / f64::from(q)).ln()
        }
    };
    let o = o.clamp(1e-7, 1.0 - 1e-7);
    term(t, o) + term(1.0 - t, 1.0 - o)
}

/// Adam's state for one net.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

/// A net's weights as one flat view: w1, b1, w2, b2.
fn param_count(net: &Mlp) -> usize {
    net.w1.len() + net.b1.len() + net.w2.len() + OUTPUTS
}

/// Adds the cross-entropy gradient of one example to `g` (flat, in [`param_count`]
/// order); returns the example's loss.
fn add_gradient(
    net: &Mlp,
    x: &SparseInput,
    target: &[f32; OUTPUTS],
    hidden: &mut [f32],
    g: &mut [f32],
) -> f64 {
    let h = net.hidden;
    let out = net.forward_into(x, hidden);
    let hidden = &hidden[..h];
    let (gw1, rest) = g.split_at_mut(net.w1.len());
    let (gb1, rest) = rest.split_at_mut(h);
    let (gw2, gb2) = rest.split_at_mut(OUTPUTS * h);
    let mut back = [0f32; MAX_HIDDEN];
    let back = &mut back[..h];
    let mut loss = 0f64;
    for k in 0..OUTPUTS {
        let t = target[k];
        loss += excess_loss(out[k], t);
        // d loss / d pre-activation of a sigmoid output under cross-entropy.
        let d = out[k] - t;
        gb2[k] += d;
        let row = &net.w2[k * h..(k + 1) * h];
        for j in 0..h {
            gw2[k * h + j] += d * hidden[j];
            back[j] += d * row[j];
        }
    }
    for j in 0..h {
        back[j] *= hidden[j] * (1.0 - hidden[j]);
        gb1[j] += back[j];
    }
    for k in 0..x.len {
        let i = x.index[k] as usize;
        let v = x.value[k];
        for (gw, b) in gw1[i * h..(i + 1) * h].iter_mut().zip(back.iter()) {
            *gw += v * b;
        }
    }
    loss
}

impl Adam {
    fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    /// One step on the mean gradient `g` (already divided by the batch size).
    fn step(&mut self, net: &mut Mlp, g: &[f32], lr: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        const EPS: f32 = 1e-8;
        self.t += 1;
        let c1 = 1.0 - B1.powi(self.t);
        let c2 = 1.0 - B2.powi(self.t);
        let mut i = 0;
        let mut update = |w: &mut f32| {
            let gi = g[i];
            let m = B1 * self.m[i] + (1.0 - B1) * gi;
            let v = B2 * self.v[i] + (1.0 - B2) * gi * gi;
            self.m[i] = m;
            self.v[i] = v;
            *w -= lr * (m / c1) / ((v / c2).sqrt() + EPS);
            i += 1;
        };
        net.w1.iter_mut().for_each(&mut update);
        net.b1.iter_mut().for_each(&mut update);
        net.w2.iter_mut().for_each(&mut update);
        net.b2.iter_mut().for_each(&mut update);
    }
}

/// Mean loss of `net` (reading `encoding`) on `examples`: the cross-entropy of the five
/// outputs beyond the targets' own entropy (summed over the outputs), in nats.
pub fn loss(net: &Mlp, encoding: Encoding, examples: &[&Example]) -> f64 {
    if examples.is_empty() {
        return 0.0;
    }
    let mut x = SparseInput::default();
    let mut total = 0f64;
    for e in examples {
        encoding.encode_for(&e.position, &mut x);
        let out = net.forward(&x);
        for k in 0..OUTPUTS {
            total += excess_loss(out[k], e.target[k]);
        }
    }
    total / examples.len() as f64
}

/// Fits one net to its examples (see the module doc); returns the best net by held-out
/// loss and the per-epoch figures.
#[allow(clippy::too_many_arguments)]
fn fit(
    start: &Mlp,
    encoding: Encoding,
    phase: Phase,
    train_set: &[&Example],
    held_out: &[&Example],
    cfg: &FitConfig,
    stop: &AtomicBool,
    report: &mut dyn FnMut(EpochReport),
) -> Mlp {
    let mut net = start.clone();
    let mut best = (loss(&net, encoding, held_out), net.clone());
    report(EpochReport {
        net: phase,
        epoch: 0,
        train_loss: loss(&net, encoding, train_set),
        held_out_loss: best.0,
    });
    let n = param_count(&net);
    let mut adam = Adam::new(n);
    let mut g = vec![0f32; n];
    let mut hidden = vec![0f32; net.hidden];
    let mut x = SparseInput::default();
    let mut order: Vec<usize> = (0..train_set.len()).collect();
    let mut rng = Rng::seeded(splitmix(cfg.seed ^ phase as u64));
    for epoch in 1..=cfg.epochs {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        rng.shuffle(&mut order);
        let mut total = 0f64;
        for batch in order.chunks(cfg.batch.max(1)) {
            g.fill(0.0);
            for &i in batch {
                let e = train_set[i];
                encoding.encode_for(&e.position, &mut x);
                total += add_gradient(&net, &x, &e.target, &mut hidden, &mut g);
            }
            let scale = 1.0 / batch.len() as f32;
            g.iter_mut().for_each(|v| *v *= scale);
            adam.step(&mut net, &g, cfg.learning_rate);
        }
        let held = loss(&net, encoding, held_out);
        report(EpochReport {
            net: phase,
            epoch,
            train_loss: total / train_set.len().max(1) as f64,
            held_out_loss: held,
        });
        if held < best.0 {
            best = (held, net.clone());
        }
    }
    best.1
}

/// Trains `start`'s contact and race nets on the examples of `data` (every tenth chunk held
/// out) and returns the best nets by held-out loss.
pub fn train(
    start: &NetSet,
    data: &[(u64, Vec<Example>)],
    cfg: &FitConfig,
    stop: &AtomicBool,
    report: &mut dyn FnMut(EpochReport),
) -> NetSet {
    let mut out = start.clone();
    for phase in [Phase::Contact, Phase::Race] {
        let mut train_set = Vec::new();
        let mut held_out = Vec::new();
        for (k, examples) in data {
            for e in examples.iter().filter(|e| e.position.phase() == phase) {
                if k % 10 == 9 {
                    held_out.push(e);
                } else {
                    train_set.push(e);
                }
            }
        }
        if train_set.is_empty() {
            continue;
        }
        let net = match phase {
            Phase::Contact => &mut out.contact,
            Phase::Race => &mut out.race,
        };
        *net = fit(
            net,
            start.encoding,
            phase,
            &train_set,
            &held_out,
            cfg,
            stop,
            report,
        );
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_cross_entropy_gradient_matches_finite_differences() {
        let mut rng = Rng::seeded(3);
        let net = Mlp::random(crate::eval::encoding::INPUTS, 8, 0.5, &mut rng);
        let pos = Position::OPENING;
        let mut x = SparseInput::default();
        Encoding::V1.encode_for(&pos, &mut x);
        let target = [0.6, 0.2, 0.01, 0.1, 0.005];
        let mut g = vec![0f32; param_count(&net)];
        let mut hidden = vec![0f32; 8];
        add_gradient(&net, &x, &target, &mut hidden, &mut g);
        let ex = Example {
            position: pos,
            target,
        };
        let f = |n: &Mlp| loss(n, Encoding::V1, &[&ex]);
        // A few weights of each block: w1 of a nonzero input, b1, w2, b2.
        let i = x.index[0] as usize;
        let h = 8;
        let checks = [
            i * h + 3,
            net.w1.len() + 2,
            net.w1.len() + h + 7,
            param_count(&net) - 2,
        ];
        for idx in checks {
            let mut plus = net.clone();
            let mut minus = net.clone();
            let eps = 1e-2f32;
            let nudge = |n: &mut Mlp, d: f32| {
                let (a, b, c) = (n.w1.len(), n.b1.len(), n.w2.len());
                if idx < a {
                    n.w1[idx] += d;
                } else if idx < a + b {
                    n.b1[idx - a] += d;
                } else if idx < a + b + c {
                    n.w2[idx - a - b] += d;
                } else {
                    n.b2[idx - a - b - c] += d;
                }
            };
            nudge(&mut plus, eps);
            nudge(&mut minus, -eps);
            let numeric = (f(&plus) - f(&minus)) / (2.0 * f64::from(eps));
            assert!(
                (numeric - f64::from(g[idx])).abs() < 2e-3 * (1.0 + numeric.abs()),
                "weight {idx}: numeric {numeric}, analytic {}",
                g[idx]
            );
        }
    }

    #[test]
    fn chunks_round_trip_and_damage_is_refused() {
        let ex = vec![
            Example {
                position: Position::OPENING,
                target: [0.5, 0.1, 0.0, 0.1, 0.0],
            },
            Example {
                position: Position::OPENING.swap(),
                target: [0.4, 0.2, 0.01, 0.15, 0.02],
            },
        ];
        let b = chunk_bytes(&ex);
        assert_eq!(parse_chunk(&b).unwrap(), ex);
        for cut in [0, 8, 20, b.len() - 1] {
            assert!(parse_chunk(&b[..cut]).is_err());
        }
        let mut bad = b.clone();
        bad[30] ^= 1;
        assert!(parse_chunk(&bad).unwrap_err().contains("checksum"));
    }
}
