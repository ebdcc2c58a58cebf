//! Duels: mirrored pairs of cubeless money games between the deciders of two factories,
//! spread over threads, summarised from A's view, luck-adjusted when a judge is given.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::{luck, mean_ci95, pair_seed, play_pair_judged, stats, PairGame};
use crate::eval::luck::Judge;
use crate::game::{Dice, GameResult, Position};
use crate::players::{Game, PlayerFactory};
use crate::tavli::TavliPosition;

/// A game whose duels can be luck-adjusted: its judge and how it measures a game's luck.
pub trait Judged: Game {
    /// What measures the luck of each roll (a game without one: [`Infallible`]).
    type Judge: Clone + Send + Sync;

    /// The first player's luck minus the second's over one game, given each turn's
    /// position (the mover's view, before the roll) and roll in order.
    fn game_luck(judge: &mut Self::Judge, turns: &[(Self, Dice)]) -> f64;

    /// The judge's name in reports.
    fn judge_name(judge: &Self::Judge) -> String;

    /// The judge of an evaluator spec (`net`, `net:PATH`, `pipsigmoid`), at depth 1.
    fn judge(spec: &str) -> Result<Self::Judge, String>;
}

impl Judged for Position {
    type Judge = Judge;

    fn game_luck(judge: &mut Judge, turns: &[(Position, Dice)]) -> f64 {
        luck::duel_luck(judge, turns)
    }

    fn judge_name(judge: &Judge) -> String {
        judge.name().to_string()
    }

    fn judge(spec: &str) -> Result<Judge, String> {
        luck::judge(spec).map_err(|e| e.to_string())
    }
}

/// The Tavli games have no judge yet.
impl Judged for TavliPosition {
    type Judge = Infallible;

    fn game_luck(judge: &mut Infallible, _turns: &[(TavliPosition, Dice)]) -> f64 {
        match *judge {}
    }

    fn judge_name(judge: &Infallible) -> String {
        match *judge {}
    }

    fn judge(_spec: &str) -> Result<Infallible, String> {
        Err("--vr measures luck with backgammon's judge; the Tavli games have none".into())
    }
}

/// Duel settings.
#[derive(Debug, Clone)]
pub struct DuelConfig<G: Judged = Position> {
    /// Games; rounded down to an even number (whole pairs), at least one pair.
    pub games: u64,
    pub seed: u64,
    pub threads: usize,
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// Measure every game's luck with this judge and report luck-adjusted results too.
    pub judge: Option<G::Judge>,
}

/// What a duel measured, from A's view.
#[derive(Debug, Clone, PartialEq)]
pub struct DuelResult {
    pub a: String,
    pub b: String,
    pub games: u64,
    pub pairs: u64,
    pub ppg: f64,
    pub ci95: f64,
    pub a_wins: u64,
    pub b_wins: u64,
    /// Games neither side won (Plakoto's tie).
    pub ties: u64,
    /// Games A won with a gammon or backgammon (a double game in the Tavli games).
    pub gammons_a: u64,
    pub backgammons_a: u64,
    pub gammons_b: u64,
    pub backgammons_b: u64,
    /// Games stopped at [`super::MAX_TURNS`] (0 unless a rule is broken); they count 0.
    pub unfinished: u64,
    /// Games A's (B's) decider forfeited, and why the first of them was.
    pub forfeits_a: u64,
    pub forfeits_b: u64,
    pub first_forfeit: Option<String>,
    pub seconds: f64,
    /// Luck-adjusted results, when the duel had a judge.
    pub adjusted: Option<luck::Adjusted>,
}

impl DuelResult {
    /// The JSON object of `stargammon duel --json`.
    pub fn to_json(&self) -> serde_json::Value {
        let num = stats::json_number;
        let mut v = serde_json::json!({
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "pairs": self.pairs,
            "ppg": num(self.ppg),
            "ci95": num(self.ci95),
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "ties": self.ties,
            "a_win_rate": num(self.a_wins as f64 / self.games as f64),
            "gammons_a": self.gammons_a,
            "gammons_b": self.gammons_b,
            "backgammons_a": self.backgammons_a,
            "backgammons_b": self.backgammons_b,
            "gammon_rate_a": num(self.gammons_a as f64 / self.games as f64),
            "gammon_rate_b": num(self.gammons_b as f64 / self.games as f64),
            "unfinished": self.unfinished,
            "forfeits": {"a": self.forfeits_a, "b": self.forfeits_b},
            "first_forfeit": self.first_forfeit,
            "seconds": self.seconds,
        });
        if let Some(adj) = &self.adjusted {
            adj.add_to_json(&mut v, "adjusted_ppg", "adjusted_ci95");
        }
        v
    }
}

/// Aggregates pair results, in index order.
pub fn summarise(a: &str, b: &str, pairs: &[[PairGame; 2]], seconds: f64) -> DuelResult {
    let samples: Vec<f64> = pairs
        .iter()
        .map(|p| stats::mean_of_sum(2, (p[0].points() + p[1].points()) as f64))
        .collect();
    let (ppg, ci95) = mean_ci95(&samples);
    let mut r = DuelResult {
        a: a.to_string(),
        b: b.to_string(),
        games: 2 * pairs.len() as u64,
        pairs: pairs.len() as u64,
        ppg,
        ci95,
        a_wins: 0,
        b_wins: 0,
        ties: 0,
        gammons_a: 0,
        backgammons_a: 0,
        gammons_b: 0,
        backgammons_b: 0,
        unfinished: 0,
        forfeits_a: 0,
        forfeits_b: 0,
        first_forfeit: None,
        seconds,
        adjusted: None,
    };
    for g in pairs.iter().flatten() {
        let (a_won, result) = match g {
            PairGame::Won { a_won, result } => (*a_won, *result),
            PairGame::Tie => {
                r.ties += 1;
                continue;
            }
            PairGame::Unfinished => {
                r.unfinished += 1;
                continue;
            }
            PairGame::Forfeit {
                a_forfeited,
                reason,
                ..
            } => {
                r.first_forfeit.get_or_insert_with(|| reason.clone());
                if *a_forfeited {
                    r.forfeits_a += 1;
                } else {
                    r.forfeits_b += 1;
                }
                // A forfeit counts as the most a game can cost: a win of the other side.
                (!*a_forfeited, GameResult::Single)
            }
        };
        let gammon = matches!(g, PairGame::Won { .. }) && result >= GameResult::Gammon;
        let bg = matches!(g, PairGame::Won { .. }) && result == GameResult::Backgammon;
        if a_won {
            r.a_wins += 1;
            r.gammons_a += gammon as u64;
            r.backgammons_a += bg as u64;
        } else {
            r.b_wins += 1;
            r.gammons_b += gammon as u64;
            r.backgammons_b += bg as u64;
        }
    }
    r
}

/// [`summarise`], with the luck-adjusted results of a judged duel: `luck[i]` is A's net
/// luck in each game of pair `i`.
pub fn summarise_judged(
    a: &str,
    b: &str,
    pairs: &[[PairGame; 2]],
    luck: &[[f64; 2]],
    judge: &str,
    seconds: f64,
) -> DuelResult {
    let mut r = summarise(a, b, pairs, seconds);
    let mut plain = stats::Moments::default();
    let mut adjusted = stats::Moments::default();
    let mut games = stats::Moments::default();
    for (p, l) in pairs.iter().zip(luck) {
        plain.add(stats::mean_of_sum(
            2,
            (p[0].points() + p[1].points()) as f64,
        ));
        let adj = [p[0].points() as f64 - l[0], p[1].points() as f64 - l[1]];
        games.add(adj[0]);
        games.add(adj[1]);
        adjusted.add(stats::mean_of_sum(2, adj[0] + adj[1]));
    }
    r.adjusted = Some(luck::Adjusted::new(
        judge,
        (plain.variance(), 2.0),
        (adjusted.variance(), 2.0),
        games.mean(),
        adjusted.ci95(),
    ));
    r
}

/// Plays a duel of backgammon between the players the two factories make.
pub fn duel(a: &PlayerFactory, b: &PlayerFactory, cfg: &DuelConfig) -> DuelResult {
    duel_from(Position::OPENING, a, b, cfg)
}

/// Plays a duel of any game between the players the two factories make, every game from
/// `start`.
pub fn duel_from<G: Judged>(
    start: G,
    a: &PlayerFactory<G>,
    b: &PlayerFactory<G>,
    cfg: &DuelConfig<G>,
) -> DuelResult {
    duel_until(start, a, b, cfg, &AtomicBool::new(false))
}

/// [`duel_from`] that stops early when `stop` is raised: no pair starts after it, and the
/// result sums the pairs finished by then (`games` counts them).
pub fn duel_until<G: Judged>(
    start: G,
    a: &PlayerFactory<G>,
    b: &PlayerFactory<G>,
    cfg: &DuelConfig<G>,
    stop: &AtomicBool,
) -> DuelResult {
    let pairs = (cfg.games / 2).max(1) as usize;
    let threads = cfg.threads.clamp(1, pairs);
    let clock = Instant::now();
    let bar = if cfg.progress {
        let pb = indicatif::ProgressBar::new(2 * pairs as u64);
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} games {per_sec} {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    } else {
        indicatif::ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<PairResult>>> = Mutex::new(vec![None; pairs]);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let mut judge = cfg.judge.clone();
            let next = &next;
            let results = &results;
            let bar = &bar;
            scope.spawn(move || {
                let mut pa = a.make();
                let mut pb = b.make();
                let mut list = G::List::default();
                let mut local = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= pairs {
                        break;
                    }
                    let r = play_pair_judged(
                        start,
                        &mut *pa,
                        &mut *pb,
                        pair_seed(cfg.seed, i as u64),
                        &mut list,
                        judge.as_mut(),
                    );
                    local.push((i, r));
                    bar.inc(2);
                    if local.len() >= 64 {
                        flush(results, &mut local);
                    }
                }
                flush(results, &mut local);
            });
        }
    });
    bar.finish_and_clear();
    let (all, luck): (Vec<[PairGame; 2]>, Vec<[f64; 2]>) = results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .unzip();
    let seconds = clock.elapsed().as_secs_f64();
    match &cfg.judge {
        Some(j) => summarise_judged(a.name(), b.name(), &all, &luck, &G::judge_name(j), seconds),
        None => summarise(a.name(), b.name(), &all, seconds),
    }
}

/// A pair's games and A's net luck in each.
type PairResult = ([PairGame; 2], [f64; 2]);

fn flush(results: &Mutex<Vec<Option<PairResult>>>, local: &mut Vec<(usize, PairResult)>) {
    let mut r = results.lock().unwrap_or_else(|e| e.into_inner());
    for (i, g) in local.drain(..) {
        r[i] = Some(g);
    }
}
