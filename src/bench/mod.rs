//! Benchmark kernels shared by `stargammon bench` and the tests. Figures are printed by
//! the CLI; tests only check that the kernels run and agree.

use crate::game::Rng;
use std::time::Instant;

use crate::game::{Dice, GamePosition, Position};
use crate::players::PubevalPlayer;
use crate::testing::seeded_game_positions;
pub use crate::testing::{random_game_positions, tavli_movegen_set, TAVLI_MOVEGEN_PAIRS};

pub mod search;
pub mod server;
pub mod strength;

/// The committed movegen benchmark set (from seeded pubeval self-play games, see
/// tests/movegen_set.rs): one `slots d1 d2` line per (position, roll) pair,
/// `slots` being the 26 signed slot counts of [`Position`], comma-separated.
pub const MOVEGEN_SET: &str = include_str!("../../tests/data/movegen_bench.txt");

/// Parses a set in the `MOVEGEN_SET` format.
pub fn parse_position_rolls(text: &str) -> Result<Vec<(Position, Dice)>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |what: &str| format!("line {}: {what}", n + 1);
        let mut parts = line.split_whitespace();
        let slots_text = parts.next().ok_or_else(|| bad("missing slots"))?;
        let mut slots = [0i8; 26];
        let mut count = 0;
        for (i, v) in slots_text.split(',').enumerate() {
            if i >= 26 {
                return Err(bad("more than 26 slots"));
            }
            slots[i] = v.parse().map_err(|_| bad("bad slot count"))?;
            count += 1;
        }
        if count != 26 {
            return Err(bad("fewer than 26 slots"));
        }
        let pos = Position::from_slots(slots).map_err(|e| bad(&e.to_string()))?;
        let d1: u8 = parts
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("bad die"))?;
        let d2: u8 = parts
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("bad die"))?;
        let dice = Dice::new(d1, d2).map_err(|e| bad(&e.to_string()))?;
        out.push((pos, dice));
    }
    Ok(out)
}

/// The committed movegen set.
pub fn movegen_set() -> Result<Vec<(Position, Dice)>, String> {
    parse_position_rolls(MOVEGEN_SET)
}

/// The backgammon movegen set of random games: the first [`TAVLI_MOVEGEN_PAIRS`]
/// (position, roll) pairs of [`random_game_positions`] with seed 2026, the counterpart of
/// the Tavli games' random sets ([`tavli_movegen_set`]).
pub fn random_movegen_set() -> Vec<(Position, Dice)> {
    // 400 games hold about 25,000 pairs; more are played should they fall short.
    let mut games = 400;
    loop {
        let mut set = random_game_positions(2026, games);
        if set.len() >= TAVLI_MOVEGEN_PAIRS {
            set.truncate(TAVLI_MOVEGEN_PAIRS);
            return set;
        }
        games *= 2;
    }
}

/// Positions and rolls met in `games` seeded games of pubeval against itself: the
/// kind of positions real play produces.
pub fn pubeval_game_positions(seed: u64, games: usize) -> Vec<(Position, Dice)> {
    seeded_game_positions(|p, d, l| PubevalPlayer.choose(p, d, l), seed, games)
}

/// What one movegen benchmark run measured.
#[derive(Debug, Clone, Copy)]
pub struct MovegenResult {
    pub decisions: u64,
    pub plays: u64,
    /// Over all rounds.
    pub ns_per_decision: f64,
    pub decisions_per_sec: f64,
    /// The fastest and the median round (each round is one pass over the set), which show
    /// how much a shared machine disturbed the run.
    pub min_round_ns_per_decision: f64,
    pub median_round_ns_per_decision: f64,
}

/// Generates every distinct play for each pair, `rounds` times over, on this thread, in
/// any game (the Tavli games under the default rules).
pub fn run_movegen<G: GamePosition>(set: &[(G, Dice)], rounds: u32) -> MovegenResult {
    let mut list = G::List::default();
    time_rounds(set, rounds, |(p, d)| {
        p.generate(*d, &mut list);
        list.len()
    })
}

/// Times `rounds` passes of `generate` over `set` (after one warm-up pass); `generate`
/// returns the number of plays it found.
fn time_rounds<T>(set: &[T], rounds: u32, mut generate: impl FnMut(&T) -> usize) -> MovegenResult {
    for item in set {
        generate(item);
    }
    let mut plays = 0u64;
    let mut round_secs = Vec::with_capacity(rounds as usize);
    let start = Instant::now();
    for _ in 0..rounds {
        let round = Instant::now();
        for item in set {
            plays += generate(item) as u64;
        }
        round_secs.push(round.elapsed().as_secs_f64());
    }
    let secs = start.elapsed().as_secs_f64();
    let decisions = set.len() as u64 * rounds as u64;
    round_secs.sort_by(f64::total_cmp);
    let per_round = |s: f64| s * 1e9 / set.len().max(1) as f64;
    MovegenResult {
        decisions,
        plays,
        ns_per_decision: secs * 1e9 / decisions.max(1) as f64,
        decisions_per_sec: decisions as f64 / secs,
        min_round_ns_per_decision: round_secs.first().map_or(0.0, |&s| per_round(s)),
        median_round_ns_per_decision: round_secs
            .get(round_secs.len() / 2)
            .map_or(0.0, |&s| per_round(s)),
    }
}

/// What one evaluator benchmark run measured.
#[derive(Debug, Clone, Copy)]
pub struct EvalResult {
    pub evals: u64,
    pub evals_per_sec: f64,
    /// Contact positions in the set.
    pub positions: usize,
}

/// The contact positions of the committed movegen set (the benchmark's fixed positions).
pub fn eval_positions() -> Result<Vec<Position>, String> {
    let mut v: Vec<Position> = movegen_set()?
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.phase() == crate::game::Phase::Contact && !p.is_game_over())
        .collect();
    v.dedup();
    Ok(v)
}

/// Evaluates every position `rounds` times with the contact net on this thread: encoding
/// (with all features) plus the forward pass, as a search would call it.
pub fn run_eval(
    eval: &crate::eval::NeuralEvaluator,
    positions: &[Position],
    rounds: u32,
) -> EvalResult {
    use crate::eval::encoding::SparseInput;
    use crate::eval::qnet::QuantState;
    let net = &eval.nets().contact;
    let encoding = eval.nets().encoding;
    let encode = |p: &Position, out: &mut SparseInput| encoding.encode_contact(p, out);
    let mut input = SparseInput::default();
    let mut hidden = vec![0.0f32; crate::eval::net::MAX_HIDDEN];
    let mut quant = QuantState::default();
    let quant_net = positions.first().and_then(|p| eval.quant_for(p));
    // Each position from scratch (no sums carried from the one before): the cost of one
    // evaluation of an unrelated position, as gnubg's `calibrate` counts it.
    let mut one = |p: &Position| -> f32 {
        encode(p, &mut input);
        if let Some(q) = quant_net {
            quant.clear();
            if let Some(out) = quant.forward(q, &input) {
                return out[0];
            }
        }
        net.forward_into(&input, &mut hidden)[0]
    };
    let mut sink = 0.0f32;
    for p in positions.iter().take(1000) {
        sink += one(p);
    }
    let start = Instant::now();
    for _ in 0..rounds {
        for p in positions {
            sink += one(p);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    std::hint::black_box(sink);
    let evals = positions.len() as u64 * rounds as u64;
    EvalResult {
        evals,
        evals_per_sec: evals as f64 / secs,
        positions: positions.len(),
    }
}

/// `count` seeded boards made the way gnubg's `calibrate` makes the boards it times:
/// fifteen checkers a side, none on the bar or borne off, dropped one at a time (the sides
/// in turn) on a uniform point the other side does not hold. Only those still in contact
/// are kept, as the contact net's positions (in practice every one: a race needs all
/// thirty checkers drawn past each other).
pub fn calibrate_positions(seed: u64, count: usize) -> Vec<Position> {
    let mut rng = Rng::seeded(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        // Slot p is the mover's point p: its checkers count up, the opponent's down.
        let mut slots = [0i8; 26];
        for _ in 0..15 {
            for sign in [-1i8, 1] {
                loop {
                    let s = rng.below(24) as usize + 1;
                    if slots[s] * sign >= 0 {
                        slots[s] += sign;
                        break;
                    }
                }
            }
        }
        if let Ok(p) = Position::from_slots(slots) {
            if p.phase() == crate::game::Phase::Contact {
                out.push(p);
            }
        }
    }
    out
}

/// `count` seeded positions with both sides in their home boards: each side has 1 to 15
/// checkers (uniform), each on a uniform point of its home board.
pub fn bearoff_positions(seed: u64, count: usize) -> Vec<Position> {
    let mut rng = Rng::seeded(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut slots = [0i8; 26];
        for _ in 0..rng.below(15) + 1 {
            slots[rng.die() as usize] += 1;
        }
        for _ in 0..rng.below(15) + 1 {
            // The opponent's point p is the mover's 25 - p.
            slots[25 - rng.die() as usize] -= 1;
        }
        if let Ok(p) = Position::from_slots(slots) {
            out.push(p);
        }
    }
    out
}

/// What the bear-off benchmark measured.
#[derive(Debug, Clone, Copy)]
pub struct BearoffBenchResult {
    /// Evaluations of bear-off positions through the evaluator (database lookups).
    pub eval: EvalResult,
    /// Seconds to compute a fresh database.
    pub generation_secs: f64,
    pub memory_bytes: usize,
    pub max_rolls: usize,
}

/// Times a fresh computation of the bear-off database, then evaluates every position
/// `rounds` times through [`crate::eval::Evaluator::evaluate`] on this thread.
pub fn run_bearoff(
    eval: &crate::eval::NeuralEvaluator,
    positions: &[Position],
    rounds: u32,
) -> BearoffBenchResult {
    use crate::eval::{bearoff::BearoffDb, Evaluator};
    let start = Instant::now();
    let db = BearoffDb::generate();
    let generation_secs = start.elapsed().as_secs_f64();
    let mut sink = 0.0f32;
    // Builds the shared database before the timed loop.
    for p in positions {
        sink += eval.evaluate(p).0[0];
    }
    let start = Instant::now();
    for _ in 0..rounds {
        for p in positions {
            sink += eval.evaluate(p).0[0];
        }
    }
    let secs = start.elapsed().as_secs_f64();
    std::hint::black_box(sink);
    let evals = positions.len() as u64 * rounds as u64;
    BearoffBenchResult {
        eval: EvalResult {
            evals,
            evals_per_sec: evals as f64 / secs,
            positions: positions.len(),
        },
        generation_secs,
        memory_bytes: db.memory_bytes(),
        max_rolls: db.max_rolls(),
    }
}

/// The Tavli movegen set of `variant` from games as the engine plays them: the first
/// 12,000 (position, roll) pairs of seeded self-play games of the shipped net at depth 1
/// (seed 2026, the opening of C8), as backgammon's set comes from games of pubeval
/// against itself.
pub fn tavli_engine_movegen_set(
    variant: crate::game::Variant,
) -> Result<Vec<(crate::tavli::TavliPosition, Dice)>, String> {
    let rules = crate::tavli::RuleSwitches::default();
    let mut player = crate::players::tavli::net(variant, 1)
        .map_err(|e| e.to_string())?
        .make();
    let mut rng = crate::game::Rng::seeded(2026);
    let mut set = Vec::with_capacity(TAVLI_MOVEGEN_PAIRS);
    while set.len() < TAVLI_MOVEGEN_PAIRS {
        crate::tavli::play_game_with(
            variant,
            &rules,
            &mut rng,
            5000,
            |_, pos, dice, plays| {
                let turn = crate::players::TavliTurn {
                    position: *pos,
                    dice,
                    values: crate::players::MONEY,
                };
                player
                    .decide(&turn, plays)
                    .ok()
                    .and_then(|p| plays.iter().position(|q| q.after == p.after))
                    .unwrap_or(0)
            },
            |p, d| {
                if set.len() < TAVLI_MOVEGEN_PAIRS {
                    set.push((*p, d));
                }
            },
        );
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use crate::players::RandomPlayer;

    /// The random games of `crate::testing` are those of two [`RandomPlayer`]s seeded as
    /// the benchmark sets have always been, so the sets keep their positions.
    #[test]
    fn random_game_positions_are_random_players_games() {
        for seed in [7, 2026] {
            let mut player = RandomPlayer::new(seed ^ 0x5EED);
            let by_player =
                crate::testing::seeded_game_positions(|p, d, l| player.choose(p, d, l), seed, 20);
            assert_eq!(super::random_game_positions(seed, 20), by_player);
        }
    }

    /// `calibrate`'s boards: fifteen checkers a side on the 24 points, none on a bar or
    /// off, never both sides on one point; seeded, and not all alike.
    #[test]
    fn calibrate_positions_are_full_random_boards() {
        let boards = super::calibrate_positions(5, 500);
        assert_eq!(boards.len(), 500);
        assert_eq!(boards, super::calibrate_positions(5, 500));
        for p in &boards {
            let s = p.slots();
            assert_eq!((s[0], s[25]), (0, 0));
            let mine: i32 = s.iter().filter(|&&c| c > 0).map(|&c| c as i32).sum();
            let theirs: i32 = s.iter().filter(|&&c| c < 0).map(|&c| -c as i32).sum();
            assert_eq!((mine, theirs), (15, 15));
            assert_eq!(p.phase(), crate::game::Phase::Contact);
        }
        let distinct: std::collections::HashSet<_> = boards.iter().map(|p| *p.slots()).collect();
        assert!(distinct.len() > 490);
    }
}
