//! The strength benchmark: a fixed set of checker-play decisions, each with reference
//! equities for its candidate plays, and the error rate of any player on it.
//!
//! How the set is made (three steps, each a command of `stargammon bench strength-set`):
//! 1. **sample**: seeded cubeless money games between pairs of different players
//!    ([`SOURCES`]: the nets against pubeval and the heuristic, pubeval against the
//!    heuristic, the nets against a noisy copy, a depth-3 search against the nets); each
//!    checker play with at least two distinct legal plays is kept with probability
//!    1/`every`, duplicates dropped, until each phase's quota is full. Deterministic for a
//!    seed.
//! 2. **label**: for each sampled decision, the best `top` plays by the nets (depth 1) are
//!    rolled out side by side ([`crate::rollout`]: variance reduction, stratified dice,
//!    truncation after a number of plies, depth-1 players). Labels are appended one line per
//!    decision, so a stopped run resumes where it stopped, and `--shard I/N` labels every
//!    N-th decision for runs on several machines.
//! 3. **merge**: the label files are joined, checked against the sample (every decision
//!    labelled once) and written sorted by id: the shipped set.
//!
//! Scoring ([`score`]): the player chooses among all legal plays; its error is the best
//! listed equity minus the equity of the play it chose. A play outside the listed
//! candidates is charged the error of the worst listed one: a lower bound on its true
//! error, counted separately as `unlisted`.
//!
//! Equities are cubeless money equities (gammons and backgammons count) for the side that
//! plays; errors are reported in millipoints per decision.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use crate::engine::Action;
use crate::engine::EngineSpec;
use crate::eval::bearoff;
use crate::game::{
    generate_plays, legal_plays, splitmix, Decision, Dice, MatchState, Phase, PlayList, Position,
    Rng,
};
use crate::notation::ids::{decode_position_id, position_id, position_key};
use crate::players::{factory, BuildOptions, Decide, MakeDecider};
use crate::rollout::{Hooks, Rollout, RolloutSettings};

/// The shipped decision set (made by the commands in docs/BENCHMARKS.md).
pub const STRENGTH_SET: &str = include_str!("../../tests/data/strength_set.txt");

/// The pairs of players whose games the decisions are drawn from (game `g` is played by
/// pair `g % SOURCES.len()`, the first player rolling first in even rounds).
pub const SOURCES: &[(&str, &str)] = &[
    (TD_NETS, "pubeval"),
    (TD_NETS, "heuristic"),
    ("pubeval", "heuristic"),
    (TD_NETS, "net:weights/td.sgnet,noise=0.05"),
    ("net:weights/td.sgnet,depth=3", TD_NETS),
];

/// The nets that played and ranked the shipped set: the TD-trained nets, by file (relative
/// to the repository root, where the set's commands run), so that the set stays what its
/// commands make whatever nets are shipped.
pub const TD_NETS: &str = "net:weights/td.sgnet";

/// The phase of a decision, as the benchmark reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SetPhase {
    /// The checkers can still meet.
    Contact,
    /// No contact, but a side still has checkers outside its home board.
    Race,
    /// Both sides bearing off (the bear-off database's positions).
    Bearoff,
}

impl SetPhase {
    pub const ALL: [SetPhase; 3] = [SetPhase::Contact, SetPhase::Race, SetPhase::Bearoff];

    pub fn of(pos: &Position) -> SetPhase {
        match pos.phase() {
            Phase::Contact => SetPhase::Contact,
            Phase::Race if bearoff::home_boards(pos).is_some() => SetPhase::Bearoff,
            Phase::Race => SetPhase::Race,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SetPhase::Contact => "contact",
            SetPhase::Race => "race",
            SetPhase::Bearoff => "bearoff",
        }
    }

    fn parse(text: &str) -> Option<SetPhase> {
        SetPhase::ALL.into_iter().find(|p| p.name() == text)
    }
}

impl fmt::Display for SetPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One sampled decision: a position (its side to act has rolled) and the roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampled {
    pub id: u32,
    pub phase: SetPhase,
    pub position: Position,
    pub dice: Dice,
    /// Index into [`SOURCES`] of the game it came from.
    pub source: u8,
}

impl Sampled {
    /// `id phase position-id roll source`.
    pub fn line(&self) -> String {
        format!(
            "{} {} {} {}{} {}",
            self.id,
            self.phase,
            position_id(&self.position),
            self.dice.high(),
            self.dice.low(),
            self.source
        )
    }

    fn parse_fields<'a>(fields: &mut impl Iterator<Item = &'a str>) -> Result<Sampled, String> {
        let mut next = |what: &str| fields.next().ok_or_else(|| format!("missing {what}"));
        let id: u32 = next("id")?.parse().map_err(|_| "bad id".to_string())?;
        let phase_text = next("phase")?;
        let phase =
            SetPhase::parse(phase_text).ok_or_else(|| format!("bad phase {phase_text:?}"))?;
        let position = decode_position_id(next("position")?).map_err(|e| e.to_string())?;
        let roll = next("roll")?.as_bytes();
        let dice = match roll {
            [a, b] if a.is_ascii_digit() && b.is_ascii_digit() => {
                Dice::new(a - b'0', b - b'0').map_err(|e| e.to_string())?
            }
            _ => return Err("bad roll".to_string()),
        };
        let source: u8 = next("source")?
            .parse()
            .map_err(|_| "bad source".to_string())?;
        if usize::from(source) >= SOURCES.len() {
            return Err(format!("source {source} out of range"));
        }
        if SetPhase::of(&position) != phase {
            return Err(format!("position is not in phase {phase}"));
        }
        Ok(Sampled {
            id,
            phase,
            position,
            dice,
            source,
        })
    }
}

/// Parses a sample file (one [`Sampled::line`] per line; `#` comments).
pub fn parse_sample(text: &str) -> Result<Vec<Sampled>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split_whitespace();
        let s = Sampled::parse_fields(&mut fields).map_err(|e| format!("line {}: {e}", n + 1))?;
        if fields.next().is_some() {
            return Err(format!("line {}: trailing fields", n + 1));
        }
        out.push(s);
    }
    Ok(out)
}

/// What `sample` collects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleConfig {
    pub seed: u64,
    pub contact: usize,
    pub race: usize,
    pub bearoff: usize,
    /// Keep a decision with probability 1/every.
    pub every: u64,
    /// Give up after this many games even if a quota is not full.
    pub max_games: u64,
}

impl Default for SampleConfig {
    fn default() -> Self {
        SampleConfig {
            seed: 1,
            contact: 5_000,
            race: 2_000,
            bearoff: 1_000,
            every: 8,
            max_games: 200_000,
        }
    }
}

/// What `sample` returns: the decisions and how many games it took.
#[derive(Debug, Clone)]
pub struct Sample {
    pub decisions: Vec<Sampled>,
    pub games: u64,
}

/// Plays seeded games between the [`SOURCES`] pairs and keeps decisions until every quota
/// is full (see the module doc). Deterministic for a config.
pub fn sample(cfg: &SampleConfig) -> Result<Sample, String> {
    if cfg.every == 0 {
        return Err("every must be at least 1".to_string());
    }
    let mut pairs: Vec<[Box<dyn Decide>; 2]> = Vec::new();
    for (a, b) in SOURCES {
        let fa = factory(a, BuildOptions::default()).map_err(|e| e.to_string())?;
        let fb = factory(b, BuildOptions::default()).map_err(|e| e.to_string())?;
        pairs.push([fa.make(), fb.make()]);
    }
    let quota = |p: SetPhase| match p {
        SetPhase::Contact => cfg.contact,
        SetPhase::Race => cfg.race,
        SetPhase::Bearoff => cfg.bearoff,
    };
    let mut counts: BTreeMap<SetPhase, usize> = BTreeMap::new();
    let mut seen: HashSet<([u8; 10], usize)> = HashSet::new();
    let mut decisions = Vec::new();
    let mut list = PlayList::new();
    let full = |counts: &BTreeMap<SetPhase, usize>| {
        SetPhase::ALL
            .iter()
            .all(|p| counts.get(p).copied().unwrap_or(0) >= quota(*p))
    };
    let mut games = 0u64;
    while !full(&counts) && games < cfg.max_games {
        let g = games;
        games += 1;
        let k = (g % SOURCES.len() as u64) as usize;
        let round = g / SOURCES.len() as u64;
        let game_seed = splitmix(cfg.seed ^ splitmix(g.wrapping_add(0x57_2E_46)));
        let mut dice_rng = Rng::seeded(game_seed);
        let mut keep_rng = Rng::seeded(splitmix(game_seed ^ 0x6B_65_65_70));
        let [p0, p1] = &mut pairs[k];
        p0.new_game(splitmix(game_seed ^ 1));
        p1.new_game(splitmix(game_seed ^ 2));
        let (first, second) = if round % 2 == 1 { (p1, p0) } else { (p0, p1) };
        crate::arena::play_game_visiting(
            Position::OPENING,
            first.as_mut(),
            second.as_mut(),
            &mut dice_rng,
            &mut list,
            |pos, dice, plays| {
                let phase = SetPhase::of(pos);
                if plays.len() >= 2
                    && keep_rng.below(cfg.every) == 0
                    && counts.get(&phase).copied().unwrap_or(0) < quota(phase)
                    && seen.insert((position_key(pos), dice.index()))
                {
                    *counts.entry(phase).or_default() += 1;
                    decisions.push(Sampled {
                        id: decisions.len() as u32,
                        phase,
                        position: *pos,
                        dice,
                        source: k as u8,
                    });
                }
            },
        );
    }
    Ok(Sample { decisions, games })
}

/// How decisions are labelled.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelConfig {
    /// The players and evaluator of the rollouts (and the ranking of the candidates).
    pub spec: EngineSpec,
    /// Plays rolled out per decision (the best by the spec's ranking).
    pub top: usize,
    pub trials: u64,
    pub truncate: Option<u32>,
    pub seed: u64,
}

impl Default for LabelConfig {
    fn default() -> Self {
        LabelConfig {
            spec: TD_NETS.parse().unwrap_or_default(),
            top: 6,
            trials: 36,
            truncate: Some(7),
            seed: 1,
        }
    }
}

impl LabelConfig {
    /// The settings as the set's header states them.
    pub fn describe(&self) -> String {
        format!(
            "rollouts of the top {} plays by {}: {} trials, {}, variance reduction, seed {}",
            self.top,
            self.spec,
            self.trials,
            match self.truncate {
                Some(p) => format!("truncated after {p} plies"),
                None => "full games".to_string(),
            },
            self.seed
        )
    }
}

/// A decision with the reference equities of its candidate plays, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct Labelled {
    pub decision: Sampled,
    /// (the position after the play from the mover's view, its key, cubeless equity).
    pub plays: Vec<(Position, [u8; 10], f64)>,
}

impl Labelled {
    /// The sample's line followed by `position-id:equity` for each play, best first.
    pub fn line(&self) -> String {
        let mut s = self.decision.line();
        for (p, _, e) in &self.plays {
            s.push_str(&format!(" {}:{:.5}", position_id(p), e));
        }
        s
    }

    fn best(&self) -> f64 {
        self.plays.first().map_or(0.0, |p| p.2)
    }

    fn worst(&self) -> f64 {
        self.plays.last().map_or(0.0, |p| p.2)
    }
}

/// Labels one decision (see [`LabelConfig`]).
pub fn label_one(rollout: &Rollout, d: &Sampled, cfg: &LabelConfig) -> Result<Labelled, String> {
    let settings = RolloutSettings {
        trials: cfg.trials,
        seed: splitmix(cfg.seed ^ u64::from(d.id)),
        truncate: cfg.truncate,
        variance_reduction: true,
        threads: 1,
    };
    let r = rollout
        .plays(&d.position, d.dice, cfg.top, &settings, Hooks::none())
        .map_err(|e| e.to_string())?;
    Ok(Labelled {
        decision: *d,
        plays: r
            .plays
            .iter()
            .map(|p| {
                (
                    p.play.position,
                    position_key(&p.play.position),
                    p.estimate.equity(),
                )
            })
            .collect(),
    })
}

/// Parses a label or set file: lines of [`Labelled::line`], `#` comments.
pub fn parse_set(text: &str) -> Result<Vec<Labelled>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |e: String| format!("line {}: {e}", n + 1);
        let mut fields = line.split_whitespace();
        let decision = Sampled::parse_fields(&mut fields).map_err(bad)?;
        let legal: HashSet<[u8; 10]> = legal_plays(&decision.position, decision.dice)
            .iter()
            .map(|p| position_key(&p.position))
            .collect();
        let mut plays = Vec::new();
        for f in fields {
            let (id, eq) = f
                .split_once(':')
                .ok_or_else(|| bad(format!("bad play {f:?}")))?;
            let p = decode_position_id(id).map_err(|e| bad(e.to_string()))?;
            let e: f64 = eq
                .parse()
                .ok()
                .filter(|e: &f64| e.is_finite() && e.abs() <= 3.0)
                .ok_or_else(|| bad(format!("bad equity {eq:?}")))?;
            let key = position_key(&p);
            if !legal.contains(&key) {
                return Err(bad(format!("{id} is no legal play of this roll")));
            }
            if plays.last().is_some_and(|&(_, _, prev)| e > prev) {
                return Err(bad("plays not sorted best first".to_string()));
            }
            plays.push((p, key, e));
        }
        if plays.is_empty() {
            return Err(bad("no plays".to_string()));
        }
        out.push(Labelled { decision, plays });
    }
    Ok(out)
}

/// The shipped set.
pub fn shipped_set() -> Result<Vec<Labelled>, String> {
    parse_set(STRENGTH_SET)
}

/// Labels the decisions of `sample` whose `id % shard.1 == shard.0` and that `out` does not
/// hold yet, appending one line per decision to `out` as each finishes; `progress` is
/// called with (done, to do). A raised `stop` ends the run after the decisions in hand.
/// Returns the number labelled by this call.
pub fn label_file(
    sample: &[Sampled],
    out: &Path,
    cfg: &LabelConfig,
    shard: (u32, u32),
    threads: usize,
    stop: &AtomicBool,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<usize, String> {
    let (index, count) = shard;
    if count == 0 || index >= count {
        return Err(format!("shard {index}/{count}: needs 0 <= I < N"));
    }
    let done = existing_ids(out)?;
    let todo: Vec<Sampled> = sample
        .iter()
        .filter(|d| d.id % count == index && !done.contains(&d.id))
        .copied()
        .collect();
    let rollout = Rollout::new(&cfg.spec).map_err(|e| e.to_string())?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    if done.is_empty() && file.metadata().map(|m| m.len() == 0).unwrap_or(false) {
        writeln!(file, "# {}", cfg.describe()).map_err(|e| e.to_string())?;
    }
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Result<Labelled, String>>();
    let total = todo.len();
    let mut written = 0usize;
    let mut failure = None;
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next, todo, rollout) = (&next, &todo, &rollout);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(d) = todo.get(i) else { break };
                if tx.send(label_one(rollout, d, cfg)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for r in rx {
            match r {
                Ok(l) => {
                    let line = format!("{}\n", l.line());
                    if let Err(e) = file.write_all(line.as_bytes()).and_then(|_| file.flush()) {
                        failure = Some(format!("{}: {e}", out.display()));
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                    written += 1;
                    progress(written, total);
                }
                Err(e) => {
                    failure = Some(e);
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(written),
    }
}

/// Ids already labelled in `out` (empty if it does not exist). A last line cut short by a
/// stop is removed from the file.
fn existing_ids(out: &Path) -> Result<HashSet<u32>, String> {
    let text = match std::fs::read_to_string(out) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashSet::new()),
        Err(e) => return Err(format!("{}: {e}", out.display())),
    };
    let complete = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => "",
    };
    if complete.len() != text.len() {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(out)
            .map_err(|e| format!("{}: {e}", out.display()))?;
        f.set_len(complete.len() as u64)
            .map_err(|e| format!("{}: {e}", out.display()))?;
    }
    Ok(parse_set(complete)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .iter()
        .map(|l| l.decision.id)
        .collect())
}

/// Joins label files into the set: every decision of `sample` exactly once (the same
/// position and roll), sorted by id, under `header` comment lines.
pub fn merge(
    sample: &[Sampled],
    labels: &[Vec<Labelled>],
    header: &[String],
) -> Result<String, String> {
    let mut by_id: BTreeMap<u32, &Labelled> = BTreeMap::new();
    for l in labels.iter().flatten() {
        if by_id.insert(l.decision.id, l).is_some() {
            return Err(format!("decision {} labelled twice", l.decision.id));
        }
    }
    let mut text = String::new();
    for h in header {
        text.push_str(&format!("# {h}\n"));
    }
    for d in sample {
        let l = by_id
            .remove(&d.id)
            .ok_or_else(|| format!("decision {} is not labelled", d.id))?;
        if l.decision != *d {
            return Err(format!("decision {} differs from the sample", d.id));
        }
        text.push_str(&l.line());
        text.push('\n');
    }
    if let Some(id) = by_id.keys().next() {
        return Err(format!("decision {id} is not in the sample"));
    }
    Ok(text)
}

/// Errors of one phase.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PhaseScore {
    pub decisions: usize,
    /// Mean equity lost per decision, in millipoints.
    pub error_mppg: f64,
    /// Decisions where the best listed play was chosen.
    pub best: usize,
    /// Decisions where the play chosen was not among the listed candidates.
    pub unlisted: usize,
}

/// A player's score on a set.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    pub player: String,
    pub all: PhaseScore,
    pub by_phase: BTreeMap<SetPhase, PhaseScore>,
    pub seconds: f64,
    /// Mean wall time of one decision on its thread, in milliseconds (for an engine over
    /// TCP: the request, the engine's answer and the reply).
    pub ms_per_decision: f64,
}

/// One decision's outcome: equity lost, chose best, chose an unlisted play. A decider that
/// fails to answer fails the decision (an error is not a measurement).
fn judge(
    l: &Labelled,
    decider: &mut dyn Decide,
    list: &mut PlayList,
) -> Result<(f64, bool, bool), String> {
    let d = &l.decision;
    generate_plays(&d.position, d.dice, list);
    let state = MatchState::money(d.position, Decision::Move(d.dice));
    let chosen = match decider.decide(&state, list) {
        Ok(Action::Move(p)) => position_key(&p.position),
        Ok(other) => {
            return Err(format!(
                "decision {}: the player answered {other:?} to a checker play",
                d.id
            ))
        }
        Err(e) => return Err(format!("decision {}: {e}", d.id)),
    };
    Ok(match l.plays.iter().find(|p| p.1 == chosen) {
        Some(p) => (l.best() - p.2, p.1 == l.plays[0].1, false),
        None => (l.best() - l.worst(), false, true),
    })
}

/// Scores the players of `factory` on `set` on `threads` threads (one decider each; the
/// result does not depend on the thread count). The factory may be any maker of deciders,
/// an engine over TCP included (gnubg's `external`, one connection per thread). Fails when
/// a decider cannot be made.
pub fn score(set: &[Labelled], factory: &dyn MakeDecider, threads: usize) -> Result<Score, String> {
    let started = Instant::now();
    let threads = threads.clamp(1, set.len().max(1));
    let mut outcomes: Vec<(f64, bool, bool)> = vec![(0.0, false, false); set.len()];
    let chunk = set.len().div_ceil(threads).max(1);
    let mut deciders = Vec::with_capacity(threads);
    for worker in 0..set.chunks(chunk).len() {
        deciders.push(factory.make(worker)?);
    }
    let deciding = std::sync::Mutex::new(std::time::Duration::ZERO);
    let failure: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);
    std::thread::scope(|scope| {
        for ((part, out), mut decider) in set
            .chunks(chunk)
            .zip(outcomes.chunks_mut(chunk))
            .zip(deciders)
        {
            let deciding = &deciding;
            let failure = &failure;
            scope.spawn(move || {
                decider.new_game(1);
                let mut list = PlayList::new();
                let t = Instant::now();
                for (l, o) in part.iter().zip(out.iter_mut()) {
                    match judge(l, decider.as_mut(), &mut list) {
                        Ok(r) => *o = r,
                        Err(e) => {
                            if let Ok(mut f) = failure.lock() {
                                f.get_or_insert(e);
                            }
                            break;
                        }
                    }
                }
                if let Ok(mut d) = deciding.lock() {
                    *d += t.elapsed();
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(format!("{}: {e}", factory.name()));
    }
    let deciding = deciding.into_inner().unwrap_or_default();
    let mut sums: BTreeMap<Option<SetPhase>, (usize, f64, usize, usize)> = BTreeMap::new();
    for (l, &(lost, best, unlisted)) in set.iter().zip(&outcomes) {
        for key in [None, Some(l.decision.phase)] {
            let s = sums.entry(key).or_default();
            s.0 += 1;
            s.1 += lost;
            s.2 += usize::from(best);
            s.3 += usize::from(unlisted);
        }
    }
    let to_score = |s: &(usize, f64, usize, usize)| PhaseScore {
        decisions: s.0,
        error_mppg: if s.0 == 0 {
            0.0
        } else {
            1000.0 * s.1 / s.0 as f64
        },
        best: s.2,
        unlisted: s.3,
    };
    Ok(Score {
        player: factory.name(),
        all: sums.get(&None).map(to_score).unwrap_or_default(),
        by_phase: sums
            .iter()
            .filter_map(|(k, s)| k.map(|p| (p, to_score(s))))
            .collect(),
        seconds: started.elapsed().as_secs_f64(),
        ms_per_decision: 1000.0 * deciding.as_secs_f64() / set.len().max(1) as f64,
    })
}
