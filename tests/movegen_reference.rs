//! Compares the fast generator with a deliberately naive one written from the rules
//! text: try every order of the dice and every checker for every step, keep the
//! sequences that use the most dice (the larger die when only one can be used), and
//! collect the distinct resulting positions.

use std::collections::BTreeSet;

use stargammon::bench::{movegen_set, random_game_positions};
use stargammon::game::{legal_plays, Dice, Position, ALL_ROLLS};

/// Slots as signed counts: 0 opponent bar, 1..=24 points, 25 own bar.
type Slots = [i8; 26];

fn naive_step(s: &Slots, from: usize, die: usize) -> Option<Slots> {
    if s[from] <= 0 {
        return None;
    }
    if s[25] > 0 && from != 25 {
        return None;
    }
    let mut t = *s;
    t[from] -= 1;
    if from > die {
        let to = from - die;
        if t[to] < -1 {
            return None;
        }
        if t[to] == -1 {
            t[to] = 0;
            t[0] -= 1;
        }
        t[to] += 1;
        return Some(t);
    }
    // Bearing off: every checker must be home (points 1..=6).
    if (7..=25).any(|i| s[i] > 0) {
        return None;
    }
    if from == die {
        return Some(t);
    }
    // A larger die than needed: only when no checker stands higher.
    if (from + 1..=6).any(|i| s[i] > 0) {
        return None;
    }
    Some(t)
}

/// Every end position reachable playing `dice` in this order, with how many were used.
fn naive_sequences(s: &Slots, dice: &[usize], used: usize, out: &mut Vec<(usize, Slots)>) {
    let Some((&die, rest)) = dice.split_first() else {
        out.push((used, *s));
        return;
    };
    let mut moved = false;
    for from in 1..=25 {
        if let Some(t) = naive_step(s, from, die) {
            moved = true;
            naive_sequences(&t, rest, used + 1, out);
        }
    }
    if !moved {
        out.push((used, *s));
    }
}

fn naive_plays(p: &Position, dice: Dice) -> BTreeSet<Slots> {
    let (h, l) = (dice.high() as usize, dice.low() as usize);
    let orders: Vec<Vec<usize>> = if h == l {
        vec![vec![h; 4]]
    } else {
        vec![vec![h, l], vec![l, h]]
    };
    let mut all = Vec::new();
    for order in &orders {
        naive_sequences(p.slots(), order, 0, &mut all);
    }
    let best = all.iter().map(|(u, _)| *u).max().unwrap_or(0);
    if best == 1 && h != l {
        // Only one die can be used: the larger one if it can be.
        let mut high = Vec::new();
        naive_sequences(p.slots(), &[h], 0, &mut high);
        let high: BTreeSet<Slots> = high
            .into_iter()
            .filter(|(u, _)| *u == 1)
            .map(|(_, s)| s)
            .collect();
        if !high.is_empty() {
            return high;
        }
        let mut low = Vec::new();
        naive_sequences(p.slots(), &[l], 0, &mut low);
        return low
            .into_iter()
            .filter(|(u, _)| *u == 1)
            .map(|(_, s)| s)
            .collect();
    }
    all.into_iter()
        .filter(|(u, _)| *u == best)
        .map(|(_, s)| s)
        .collect()
}

fn check(pairs: &[(Position, Dice)]) {
    for (p, d) in pairs {
        let fast: Vec<Slots> = legal_plays(p, *d)
            .iter()
            .map(|pl| *pl.position.slots())
            .collect();
        let fast_set: BTreeSet<Slots> = fast.iter().copied().collect();
        assert_eq!(
            fast.len(),
            fast_set.len(),
            "duplicate plays for {p:?} {d:?}"
        );
        let naive = naive_plays(p, *d);
        assert_eq!(fast_set, naive, "plays differ for {p:?} {d:?}");
    }
}

#[test]
fn fast_generator_equals_naive_rules_on_benchmark_set() {
    check(&movegen_set().expect("set"));
}

#[test]
fn fast_generator_equals_naive_rules_on_more_random_games() {
    let pairs = random_game_positions(7, 150);
    check(&pairs);
}

/// Every one of the 21 rolls on every position of random games: the bear-off and hitting
/// corners where two different sequences reach one position come up for every pair of dice.
#[test]
fn fast_generator_equals_naive_rules_for_every_roll() {
    let mut pairs = Vec::new();
    for (p, _) in random_game_positions(11, 30) {
        for dice in ALL_ROLLS {
            pairs.push((p, dice));
        }
    }
    assert!(pairs.len() > 50_000, "{} pairs", pairs.len());
    check(&pairs);
}

#[test]
fn steps_replay_to_the_play_position() {
    for (p, d) in movegen_set().expect("set").iter().take(3000) {
        for play in legal_plays(p, *d) {
            let mut s = *p.slots();
            for st in play.steps() {
                let die = st.from as usize - st.to as usize;
                let die = if st.to == 0 {
                    // A bear-off may use a larger die than the distance.
                    [d.high() as usize, d.low() as usize]
                        .into_iter()
                        .find(|&x| naive_step(&s, st.from as usize, x).is_some())
                        .expect("a die explains the bear-off")
                } else {
                    die
                };
                s = naive_step(&s, st.from as usize, die).expect("each step legal in turn");
            }
            assert_eq!(&s, play.position.slots());
        }
    }
}
