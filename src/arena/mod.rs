//! In-process games between players, and duels that measure strength honestly.
//!
//! A duel plays N/2 *mirrored pairs*: one dice sequence, derived from (seed, pair index),
//! is played twice with the players swapped, and the mean of the two results is one
//! sample. Luck largely cancels inside a pair, so the interval computed from the pair
//! samples is much narrower than from single games. Pairs are spread over threads and
//! aggregated in index order, so a seed gives the same figures whatever the thread count.

pub mod export;
pub mod luck;
pub mod referee;
pub mod stats;
pub mod tavli;

use crate::game::Rng;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

pub use stats::mean_ci95;

use crate::engine::Action;
use crate::eval::luck::Judge;
use crate::game::{
    generate_plays, splitmix, Decision, Dice, GameResult, MatchState, PlayList, Position,
};
use crate::players::{Decide, PlayerFactory};

/// How one game of backgammon ended (no cube), from the first player's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackgammonOutcome {
    /// True when the first player (`p0`, who rolled first) won.
    pub first_won: bool,
    pub result: GameResult,
    /// Plays made by both sides.
    pub plies: u32,
}

impl BackgammonOutcome {
    /// Points for the first player: +1/+2/+3 for a win, negative for a loss.
    pub fn points(&self) -> i32 {
        if self.first_won {
            self.result.points()
        } else {
            -self.result.points()
        }
    }
}

/// The opening roll: re-rolled until it is not a double, as in real play.
pub fn opening_roll(rng: &mut Rng) -> Dice {
    loop {
        let d = Dice::roll(rng);
        if !d.is_double() {
            return d;
        }
    }
}

/// Plays one game from the opening, `p0` rolling first, dice from `rng`.
pub fn play_game(
    p0: &mut dyn Decide,
    p1: &mut dyn Decide,
    rng: &mut Rng,
    list: &mut PlayList,
) -> BackgammonOutcome {
    play_game_visiting(p0, p1, rng, list, |_, _, _| {})
}

/// [`play_game`], showing `visit` each checker decision (the position of the side to act,
/// its roll and its legal plays) before the side answers: how positions are sampled from
/// games between players.
pub fn play_game_visiting(
    p0: &mut dyn Decide,
    p1: &mut dyn Decide,
    rng: &mut Rng,
    list: &mut PlayList,
    mut visit: impl FnMut(&Position, Dice, &PlayList),
) -> BackgammonOutcome {
    let mut pos = Position::OPENING;
    let mut mover = 0usize;
    let mut plies = 0u32;
    let mut dice = opening_roll(rng);
    loop {
        generate_plays(&pos, dice, list);
        visit(&pos, dice, list);
        let player: &mut dyn Decide = if mover == 0 { &mut *p0 } else { &mut *p1 };
        let state = MatchState::money(pos, Decision::Move(dice));
        // In-process players answer checker plays with a legal play (the referee, not
        // the duel, is where untrusted answers are checked); should one ever fail, the
        // first legal play keeps the duel going.
        let play = match player.decide(&state, list) {
            Ok(Action::Move(p)) => p,
            _ => list[0],
        };
        plies += 1;
        if let Some(result) = play.position.mover_result() {
            return BackgammonOutcome {
                first_won: mover == 0,
                result,
                plies,
            };
        }
        pos = play.next_position();
        mover ^= 1;
        dice = Dice::roll(rng);
    }
}

/// The seed of pair `index` in a duel seeded with `seed`.
pub fn pair_seed(seed: u64, index: u64) -> u64 {
    splitmix(seed ^ splitmix(index.wrapping_add(0x5EED)))
}

/// Both games of a mirrored pair, from A's view: (A rolled first, B rolled first).
pub fn play_pair(
    a: &mut dyn Decide,
    b: &mut dyn Decide,
    seed: u64,
    list: &mut PlayList,
) -> [PairGame; 2] {
    play_pair_judged(a, b, seed, list, None).0
}

/// [`play_pair`], with A's net luck in each game (A's luck minus B's, see [`luck`]) when
/// a judge is given (zero otherwise).
pub fn play_pair_judged(
    a: &mut dyn Decide,
    b: &mut dyn Decide,
    seed: u64,
    list: &mut PlayList,
    mut judge: Option<&mut Judge>,
) -> ([PairGame; 2], [f64; 2]) {
    let mut turns: Vec<(Position, Dice)> = Vec::new();
    let mut game = |first: &mut dyn Decide, second: &mut dyn Decide, list: &mut PlayList| {
        let mut rng = Rng::seeded(seed);
        turns.clear();
        let outcome = if judge.is_some() {
            play_game_visiting(first, second, &mut rng, list, |pos, dice, _| {
                turns.push((*pos, dice))
            })
        } else {
            play_game(first, second, &mut rng, list)
        };
        let luck = judge
            .as_deref_mut()
            .map_or(0.0, |j| luck::duel_luck(j, &turns));
        (outcome, luck)
    };
    a.new_game(splitmix(seed ^ 1));
    b.new_game(splitmix(seed ^ 2));
    let (g1, l1) = game(a, b, list);
    a.new_game(splitmix(seed ^ 3));
    b.new_game(splitmix(seed ^ 4));
    let (g2, l2) = game(b, a, list);
    let games = [
        PairGame {
            a_won: g1.first_won,
            result: g1.result,
        },
        PairGame {
            a_won: !g2.first_won,
            result: g2.result,
        },
    ];
    (games, [l1, -l2])
}

/// One game's result from A's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairGame {
    pub a_won: bool,
    pub result: GameResult,
}

impl PairGame {
    pub fn points(&self) -> i32 {
        if self.a_won {
            self.result.points()
        } else {
            -self.result.points()
        }
    }
}

/// Duel settings.
#[derive(Debug, Clone)]
pub struct DuelConfig {
    /// Games; rounded down to an even number (whole pairs), at least one pair.
    pub games: u64,
    pub seed: u64,
    pub threads: usize,
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// Measure every game's luck with this judge and report luck-adjusted results too.
    pub judge: Option<Judge>,
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
    /// Games A won with a gammon or backgammon.
    pub gammons_a: u64,
    pub backgammons_a: u64,
    pub gammons_b: u64,
    pub backgammons_b: u64,
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
            "a_win_rate": num(self.a_wins as f64 / self.games as f64),
            "gammons_a": self.gammons_a,
            "gammons_b": self.gammons_b,
            "backgammons_a": self.backgammons_a,
            "backgammons_b": self.backgammons_b,
            "gammon_rate_a": num(self.gammons_a as f64 / self.games as f64),
            "gammon_rate_b": num(self.gammons_b as f64 / self.games as f64),
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
        gammons_a: 0,
        backgammons_a: 0,
        gammons_b: 0,
        backgammons_b: 0,
        seconds,
        adjusted: None,
    };
    for g in pairs.iter().flatten() {
        let gammon = g.result >= GameResult::Gammon;
        let bg = g.result == GameResult::Backgammon;
        if g.a_won {
            r.a_wins += 1;
            r.gammons_a += gammon as u64;
            r.backgammons_a += bg as u64;
        } else {
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

/// Plays a duel between the players the two factories make.
pub fn duel(a: &PlayerFactory, b: &PlayerFactory, cfg: &DuelConfig) -> DuelResult {
    let pairs = (cfg.games / 2).max(1) as usize;
    let threads = cfg.threads.clamp(1, pairs);
    let start = Instant::now();
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
                let mut list = PlayList::new();
                let mut local = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= pairs {
                        break;
                    }
                    let r = play_pair_judged(
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
    let seconds = start.elapsed().as_secs_f64();
    match &cfg.judge {
        Some(j) => summarise_judged(a.name(), b.name(), &all, &luck, j.name(), seconds),
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
