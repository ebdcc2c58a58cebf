//! The dice of one trial: the first two rolls stratified over the trial index, the rest from
//! a generator seeded by (seed, trial index) alone.
//!
//! Stratification: the 1,296 ordered outcomes of the first two rolls (36 x 36) are dealt
//! out so that trials `0..1296` (and every following block of 1,296) hold each pair
//! exactly once, and every run of 36 consecutive trials of a block holds each first roll
//! once. Pair `j = i mod 1296` takes first outcome `a = j mod 36` and second outcome
//! `(a + j / 36) mod 36`: a Latin square, so short runs also vary the second roll. Both
//! outcomes go through a permutation drawn from the seed, so two seeds stratify the same
//! way but in a different order.

use crate::game::{splitmix, Dice, Rng};

/// Ordered outcomes of two dice.
const OUTCOMES: usize = 36;
/// Ordered outcomes of the first two rolls together.
pub const STRATA: u64 = (OUTCOMES * OUTCOMES) as u64;

/// The seed's two permutations of the 36 ordered outcomes (first roll, second roll).
#[derive(Debug, Clone)]
pub struct Strata {
    seed: u64,
    first: [u8; OUTCOMES],
    second: [u8; OUTCOMES],
}

impl Strata {
    pub fn new(seed: u64) -> Strata {
        let mut rng = Rng::seeded(splitmix(seed ^ 0x5724_A7A5));
        let mut first: [u8; OUTCOMES] = std::array::from_fn(|k| k as u8);
        let mut second = first;
        rng.shuffle(&mut first);
        rng.shuffle(&mut second);
        Strata {
            seed,
            first,
            second,
        }
    }

    /// The first two rolls of `trial` as ordered die faces.
    pub fn first_rolls(&self, trial: u64) -> [(u8, u8); 2] {
        let j = trial % STRATA;
        let a = (j % OUTCOMES as u64) as usize;
        let b = (a + (j / OUTCOMES as u64) as usize) % OUTCOMES;
        [faces(self.first[a]), faces(self.second[b])]
    }

    /// Every roll of `trial`.
    pub fn trial(&self, trial: u64) -> TrialDice {
        let [a, b] = self.first_rolls(trial);
        TrialDice {
            first: [Dice::new_unchecked(a.0, a.1), Dice::new_unchecked(b.0, b.1)],
            rng: Rng::seeded(splitmix(self.seed ^ splitmix(trial ^ 0x7121_A15E))),
        }
    }
}

fn faces(outcome: u8) -> (u8, u8) {
    (outcome / 6 + 1, outcome % 6 + 1)
}

/// The rolls of one trial, ply by ply. Cloning it gives another game the same rolls.
#[derive(Debug, Clone)]
pub struct TrialDice {
    first: [Dice; 2],
    rng: Rng,
}

impl TrialDice {
    /// The roll of ply `ply` (0 = the first roll of the trial). Call once per ply, in order.
    pub fn roll(&mut self, ply: u32) -> Dice {
        match ply {
            0 | 1 => self.first[ply as usize],
            _ => Dice::roll(&mut self.rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_covers_every_pair_once_and_every_run_of_36_every_first_roll() {
        let s = Strata::new(9);
        let mut seen = std::collections::HashSet::new();
        for i in 0..STRATA {
            assert!(seen.insert(s.first_rolls(i)), "pair repeated at trial {i}");
        }
        assert_eq!(seen.len(), 1296);
        for start in (0..STRATA).step_by(36) {
            let firsts: std::collections::HashSet<_> =
                (start..start + 36).map(|i| s.first_rolls(i)[0]).collect();
            assert_eq!(firsts.len(), 36);
        }
        assert_eq!(s.first_rolls(5), s.first_rolls(5 + STRATA));
    }

    #[test]
    fn later_rolls_depend_on_seed_and_trial_only() {
        let a = Strata::new(3);
        let rolls = |s: &Strata, t: u64| {
            let mut d = s.trial(t);
            (0..20).map(|p| d.roll(p)).collect::<Vec<_>>()
        };
        assert_eq!(rolls(&a, 7), rolls(&Strata::new(3), 7));
        assert_ne!(rolls(&a, 7)[2..], rolls(&a, 8)[2..]);
        assert_ne!(rolls(&a, 7)[2..], rolls(&Strata::new(4), 7)[2..]);
    }
}
