//! The checker-play players: the neural nets evaluating each play, pubeval, the pip-count
//! heuristic with a two-ply lookahead, and a seeded random player.

use crate::game::Rng;
use std::sync::Arc;

use super::{checker_play, Decide, DecideError};
use crate::engine::Action;
use crate::eval::neural::Scratch;
use crate::eval::noisy::position_noise;
use crate::eval::{pubeval, NeuralEvaluator};
use crate::game::{generate_plays, Dice, MatchState, Play, PlayList, Position, ALL_ROLLS};

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

impl NetPlayer {
    /// The index into `plays` (every legal play, never empty) of the play to make.
    pub fn choose(&mut self, _pos: &Position, _dice: Dice, plays: &[Play]) -> usize {
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

impl Decide for NetPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn decide(&mut self, state: &MatchState, plays: &[Play]) -> Result<Action, DecideError> {
        checker_play(state, plays, |pos, dice, plays| {
            self.choose(pos, dice, plays)
        })
    }
}

/// Tesauro's pubeval.
#[derive(Debug, Default)]
pub struct PubevalPlayer;

impl PubevalPlayer {
    /// The index into `plays` (every legal play, never empty) of the play to make.
    pub fn choose(&mut self, pos: &Position, _dice: Dice, plays: &[Play]) -> usize {
        let race = pubeval::is_race(pos);
        argmax(plays.iter().map(|p| pubeval::score(&p.position, race)))
    }
}

impl Decide for PubevalPlayer {
    fn name(&self) -> String {
        "pubeval".into()
    }

    fn decide(&mut self, state: &MatchState, plays: &[Play]) -> Result<Action, DecideError> {
        checker_play(state, plays, |pos, dice, plays| {
            self.choose(pos, dice, plays)
        })
    }
}

/// Uniformly random legal plays from a seeded generator.
#[derive(Debug)]
pub struct RandomPlayer {
    rng: Rng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: Rng::seeded(seed),
        }
    }
}

impl RandomPlayer {
    /// Restarts the player's stream at `seed`.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Rng::seeded(seed);
    }

    /// A uniformly random index below `len`.
    pub fn index(&mut self, len: usize) -> usize {
        self.rng.index(len)
    }

    /// The index into `plays` (every legal play, never empty) of the play to make.
    pub fn choose(&mut self, _pos: &Position, _dice: Dice, plays: &[Play]) -> usize {
        self.rng.index(plays.len())
    }
}

impl Decide for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = Rng::seeded(seed);
    }

    fn decide(&mut self, state: &MatchState, plays: &[Play]) -> Result<Action, DecideError> {
        checker_play(state, plays, |pos, dice, plays| {
            self.choose(pos, dice, plays)
        })
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

impl HeuristicPlayer {
    /// The index into `plays` (every legal play, never empty) of the play to make.
    pub fn choose(&mut self, _pos: &Position, _dice: Dice, plays: &[Play]) -> usize {
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

impl Decide for HeuristicPlayer {
    fn name(&self) -> String {
        "heuristic".into()
    }

    fn decide(&mut self, state: &MatchState, plays: &[Play]) -> Result<Action, DecideError> {
        checker_play(state, plays, |pos, dice, plays| {
            self.choose(pos, dice, plays)
        })
    }
}
