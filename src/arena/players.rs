//! The players a duel can field: the neural nets, pubeval, the pip-count heuristic with
//! a two-ply lookahead, and a seeded random player.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::eval::neural::Scratch;
use crate::eval::{pubeval, NeuralEvaluator};
use crate::game::{generate_plays, Dice, Play, PlayList, Position, ALL_ROLLS};

/// Something that picks plays. One value lives on one thread and may keep scratch state.
pub trait Player: Send {
    /// A short name for reports.
    fn name(&self) -> String;

    /// Called before each game with a seed derived from the duel's seed, so players with
    /// randomness stay reproducible.
    fn new_game(&mut self, _seed: u64) {}

    /// The index into `plays` of the play to make in `pos` (side to act) with `dice`.
    /// `plays` holds every distinct legal play and is never empty (a lone empty play when
    /// nothing is legal).
    fn choose(&mut self, pos: &Position, dice: Dice, plays: &[Play]) -> usize;
}

/// Equity of a play for the side that makes it, using `value` for unfinished positions
/// (`value` returns the equity of the side to act in the position after the play).
#[inline]
pub fn play_equity(play: &Play, mut value: impl FnMut(&Position) -> f32) -> f32 {
    if let Some(r) = play.position.mover_result() {
        return r.points() as f32;
    }
    -value(&play.next_position())
}

/// Index of the largest score (the first one on ties).
fn argmax(scores: impl Iterator<Item = f32>) -> usize {
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (i, s) in scores.enumerate() {
        if s > best_score {
            best = i;
            best_score = s;
        }
    }
    best
}

/// A deterministic pseudo-Gaussian value (mean 0, variance 1) from a position: the sum of
/// four uniform values taken from a hash of its slots, rescaled.
pub fn position_noise(pos: &Position) -> f32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &c in pos.slots() {
        h ^= c as u8 as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h = splitmix(h);
    let mut sum = 0.0f32;
    for k in 0..4 {
        sum += ((h >> (16 * k)) & 0xFFFF) as f32 / 65535.0;
    }
    // Four uniforms on [0, 1]: mean 2, variance 4/12.
    (sum - 2.0) * (3.0f32).sqrt()
}

/// SplitMix64's finaliser: a good 64-bit mixing function.
#[inline]
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The neural nets, choosing the play whose resulting position they value most.
#[derive(Debug)]
pub struct NetPlayer {
    eval: Arc<NeuralEvaluator>,
    noise: f32,
    scratch: Scratch,
    name: String,
}

impl NetPlayer {
    /// `noise` is the standard deviation of the deterministic equity perturbation.
    pub fn new(eval: Arc<NeuralEvaluator>, noise: f32, name: String) -> NetPlayer {
        NetPlayer {
            eval,
            noise,
            scratch: Scratch::default(),
            name,
        }
    }
}

impl Player for NetPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, _pos: &Position, _dice: Dice, plays: &[Play]) -> usize {
        if plays.len() == 1 {
            return 0;
        }
        let eval = &self.eval;
        let scratch = &mut self.scratch;
        let noise = self.noise;
        argmax(plays.iter().map(|p| {
            play_equity(p, |q| {
                let e = eval.evaluate_with(q, scratch).equity();
                if noise != 0.0 {
                    e + noise * position_noise(q)
                } else {
                    e
                }
            })
        }))
    }
}

/// Tesauro's pubeval.
#[derive(Debug, Default)]
pub struct PubevalPlayer;

impl Player for PubevalPlayer {
    fn name(&self) -> String {
        "pubeval".into()
    }

    fn choose(&mut self, pos: &Position, _dice: Dice, plays: &[Play]) -> usize {
        let race = pubeval::is_race(pos);
        argmax(plays.iter().map(|p| pubeval::score(&p.position, race)))
    }
}

/// Uniformly random legal plays from a seeded generator.
#[derive(Debug)]
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    fn choose(&mut self, _pos: &Position, _dice: Dice, plays: &[Play]) -> usize {
        self.rng.gen_range(0..plays.len())
    }
}

/// The pip-count player with a two-ply lookahead: a position is worth (opponent's pips /
/// own pips); each of our plays is valued by the expectation over the opponent's 21
/// rolls of its reply that is worst for us.
#[derive(Debug, Default)]
pub struct HeuristicPlayer {
    list: PlayList,
}

/// Our value (opponent's pips / our pips) after the opponent's reply; `after_reply` is
/// the position from the replying opponent's view.
fn ratio_for_us(after_reply: &Position) -> f32 {
    // `after_reply` is from the replying side's view (it just moved): our pips are its
    // opponent's pips.
    let ours = after_reply.opp_pips() as f32;
    let theirs = after_reply.pips() as f32;
    if theirs == 0.0 {
        return 0.0;
    }
    if ours == 0.0 {
        return f32::INFINITY;
    }
    theirs / ours
}

impl HeuristicPlayer {
    pub fn new() -> HeuristicPlayer {
        HeuristicPlayer::default()
    }

    /// The expectation, over the opponent's rolls, of its worst-for-us reply to `play`.
    fn value(&mut self, play: &Play) -> f32 {
        if play.position.mover_result().is_some() {
            return f32::INFINITY;
        }
        let opp = play.next_position();
        let mut total = 0.0f32;
        for dice in ALL_ROLLS {
            generate_plays(&opp, dice, &mut self.list);
            let mut worst = f32::INFINITY;
            for reply in self.list.iter() {
                let v = ratio_for_us(&reply.position);
                if v < worst {
                    worst = v;
                }
            }
            total += worst * dice.weight() as f32;
        }
        total / 36.0
    }
}

impl Player for HeuristicPlayer {
    fn name(&self) -> String {
        "heuristic".into()
    }

    fn choose(&mut self, _pos: &Position, _dice: Dice, plays: &[Play]) -> usize {
        if plays.len() == 1 {
            return 0;
        }
        let mut best = 0;
        let mut best_v = f32::NEG_INFINITY;
        for (i, p) in plays.iter().enumerate() {
            let v = self.value(p);
            if v > best_v {
                best = i;
                best_v = v;
            }
        }
        best
    }
}
