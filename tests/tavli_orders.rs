//! The two searches of the Tavli move generator against each other on positions no game
//! needs to reach: seeded random boards of each game (endings weighted heavily, Plakoto's
//! pins and lone mothers, the switches of the rules text), every roll. The canonical step
//! order that settles most positions, with its plays that end the game, must give exactly
//! the plays of the search of every step order (`legal_plays_every_order`). The same
//! comparison runs on the movegen sets of the shipped nets' self-play, positions as the
//! engine meets them.

use std::collections::BTreeSet;

use stargammon::bench::tavli_engine_movegen_set;
use stargammon::game::{Dice, Rng, Variant, ALL_ROLLS};
use stargammon::tavli::position::opp_point;
use stargammon::tavli::{
    legal_plays, legal_plays_every_order, movegen_split, position_string, GameEnd, RuleSwitches,
    TavliPosition, CHECKERS,
};

/// A random board of `variant`, or `None` when the draw is not a position of the game.
///
/// Each side keeps 0 to 15 checkers on the board (fewer than five half the time, so that
/// the last checker can come off within the roll), placed on points chosen among its home
/// board, its start and the rest; a point the other side holds is skipped, except in
/// Plakoto where landing on a lone checker pins it. Portes sometimes puts checkers on the
/// bar.
fn random_board(variant: Variant, rng: &mut Rng) -> Option<TavliPosition> {
    let mut sides = [[0u8; 26]; 2];
    let mut pins = [0u32; 2];
    for side in 0..2 {
        let on_board = if rng.below(2) == 0 {
            1 + rng.below(4) as u8
        } else {
            rng.below(u64::from(CHECKERS) + 1) as u8
        };
        let home_only = rng.below(3) == 0;
        for _ in 0..on_board {
            let point = match rng.below(if home_only { 1 } else { 4 }) {
                0 => 1 + rng.below(6) as usize,
                1 => 24,
                2 if variant == Variant::Portes => 25,
                _ => 1 + rng.below(24) as usize,
            };
            if point == 25 {
                sides[side][25] += 1;
                continue;
            }
            // The other side's view of this point.
            let q = opp_point(variant, point);
            let theirs = sides[1 - side][q];
            if theirs == 0 {
                sides[side][point] += 1;
            } else if variant == Variant::Plakoto
                && theirs == 1
                && pins[1 - side] >> q & 1 == 0
                && pins[side] >> point & 1 == 0
            {
                sides[side][point] += 1;
                pins[1 - side] |= 1 << q;
            }
        }
    }
    TavliPosition::new(variant, sides[0], sides[1], pins).ok()
}

/// The switches of the rules text, drawn.
fn random_rules(rng: &mut Rng) -> RuleSwitches {
    RuleSwitches {
        pinned_counts_home: rng.below(4) == 0,
        unblock_when_piled: rng.below(4) == 0,
        start_quarter_only: rng.below(4) == 0,
    }
}

fn plays_of(
    plays: &[stargammon::tavli::TavliPlay],
) -> (BTreeSet<(String, Option<GameEnd>)>, usize) {
    let set: BTreeSet<_> = plays
        .iter()
        .map(|p| (position_string(&p.after), p.end))
        .collect();
    (set, plays.len())
}

fn compare(variant: Variant, seed: u64, boards: usize) {
    let mut rng = Rng::seeded(seed);
    let (mut done, mut ending, mut tried) = (0, 0, 0);
    while done < boards {
        tried += 1;
        assert!(tried < boards * 50, "{variant}: too few boards drawn");
        let Some(pos) = random_board(variant, &mut rng) else {
            continue;
        };
        if pos.result().is_some() {
            continue;
        }
        done += 1;
        let rules = random_rules(&mut rng);
        for &roll in ALL_ROLLS.iter() {
            let dice: Dice = roll;
            let fast = legal_plays(&pos, dice, &rules);
            let slow = legal_plays_every_order(&pos, dice, &rules);
            let (fast_set, fast_len) = plays_of(&fast);
            let (slow_set, _) = plays_of(&slow);
            assert_eq!(fast_set.len(), fast_len, "{pos:?} {dice:?}: a result twice");
            assert_eq!(
                fast_set, slow_set,
                "{pos:?} {dice:?} {rules:?}: the canonical order differs"
            );
            ending += usize::from(fast.iter().any(|p| p.end.is_some()));
        }
    }
    eprintln!("{variant}: {done} boards of {tried} drawn, {ending} rolls with an ending play");
    // The draws reach the endings the canonical order now settles.
    assert!(
        ending > boards,
        "{variant}: {ending} rolls with an ending play"
    );
}

#[test]
fn portes_random_boards_every_roll() {
    compare(Variant::Portes, 11, 5000);
}

#[test]
fn plakoto_random_boards_every_roll() {
    compare(Variant::Plakoto, 12, 5000);
}

#[test]
fn fevga_random_boards_every_roll() {
    compare(Variant::Fevga, 13, 5000);
}

/// Every position of the engine's movegen set of `variant` (12,000 pairs of the shipped
/// net's self-play at depth 1): the canonical order and the search of every order give
/// the same plays, each once, and the canonical order settles most of them.
fn compare_engine_set(variant: Variant) {
    let rules = RuleSwitches::default();
    let set = tavli_engine_movegen_set(variant).expect("the shipped nets");
    let mut ending = 0;
    for (pos, dice) in set.iter().filter(|(p, _)| p.result().is_none()) {
        let fast = legal_plays(pos, *dice, &rules);
        let slow = legal_plays_every_order(pos, *dice, &rules);
        let (fast_set, fast_len) = plays_of(&fast);
        assert_eq!(fast_set.len(), fast_len, "{pos:?} {dice:?}: a result twice");
        assert_eq!(fast_set, plays_of(&slow).0, "{pos:?} {dice:?}");
        ending += usize::from(fast.iter().any(|p| p.end.is_some()));
    }
    let split = movegen_split(&set, &rules, 1);
    eprintln!(
        "{variant}: {} settled by the canonical order ({ending} with a play that ends the \
         game), {} handed back, {} where it does not apply",
        split.canonical, split.handed_back, split.not_order_free
    );
    assert!(split.canonical > split.positions * 3 / 4, "{split:?}");
    assert!(ending > 0, "{variant}: no play that ends the game");
}

#[test]
fn portes_engine_set() {
    compare_engine_set(Variant::Portes);
}

#[test]
fn plakoto_engine_set() {
    compare_engine_set(Variant::Plakoto);
}

#[test]
fn fevga_engine_set() {
    compare_engine_set(Variant::Fevga);
}
