//! Test and benchmark positions from seeded self-play.
//!
//! The search benchmark set (tests/data/search_positions.txt) is produced by
//! [`self_play_positions`] and written with [`format_set`]; `stargammon bench search
//! --generate N --seed S` re-creates it with the best evaluator available. Self-play
//! (rather than random play) gives the positions real games reach.
use crate::game::Rng;

use crate::eval::Evaluator;
use crate::game::{generate_plays, Dice, Phase, PlayList, Position};

/// Contact positions with their rolls (at least two legal plays each) met in games where
/// both sides play the depth-1 best play of `evaluator`, except that one play in ten is
/// random so the games do not repeat. Every `stride`-th qualifying decision is kept
/// until `count` are collected.
pub fn self_play_positions(
    evaluator: &dyn Evaluator,
    seed: u64,
    count: usize,
    stride: usize,
) -> Vec<(Position, Dice)> {
    let mut rng = Rng::seeded(seed);
    let mut list = PlayList::new();
    let mut out = Vec::new();
    let mut seen = 0usize;
    let stride = stride.max(1);
    let mut games = 0;
    while out.len() < count && games < 100_000 {
        games += 1;
        let mut pos = Position::OPENING;
        for _ in 0..400 {
            let dice = Dice::roll(&mut rng);
            generate_plays(&pos, dice, &mut list);
            if pos.phase() == Phase::Contact && list.len() >= 2 {
                if seen.is_multiple_of(stride) && out.len() < count {
                    out.push((pos, dice));
                }
                seen += 1;
            }
            let pick = if rng.index(10) == 0 {
                rng.index(list.len())
            } else {
                let mut best = 0;
                let mut best_eq = f32::NEG_INFINITY;
                for (i, p) in list.iter().enumerate() {
                    let eq = match p.position.mover_result() {
                        Some(r) => r.points() as f32,
                        None => -evaluator.evaluate(&p.next_position()).equity(),
                    };
                    if eq > best_eq {
                        best_eq = eq;
                        best = i;
                    }
                }
                best
            };
            let play = list[pick];
            if play.position.mover_result().is_some() {
                break;
            }
            pos = play.next_position();
        }
    }
    out
}

/// Writes a set in the format of `crate::bench::parse_position_rolls`: one
/// `slots d1 d2` line per decision.
pub fn format_set(set: &[(Position, Dice)], header: &str) -> String {
    let mut s = String::new();
    for line in header.lines() {
        s.push_str("# ");
        s.push_str(line);
        s.push('\n');
    }
    for (p, d) in set {
        let slots: Vec<String> = p.slots().iter().map(|c| c.to_string()).collect();
        s.push_str(&format!("{} {} {}\n", slots.join(","), d.high(), d.low()));
    }
    s
}
