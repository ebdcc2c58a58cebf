//! Dice and the 21 distinct rolls.

use std::fmt;

/// A roll of two dice, stored with the larger die first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dice {
    high: u8,
    low: u8,
}

/// Why two numbers are not a roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiceError {
    pub die: u8,
}

impl fmt::Display for DiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a die shows 1 to 6, not {}", self.die)
    }
}

impl std::error::Error for DiceError {}

impl Dice {
    /// A roll from two die faces in any order.
    pub fn new(a: u8, b: u8) -> Result<Dice, DiceError> {
        for d in [a, b] {
            if !(1..=6).contains(&d) {
                return Err(DiceError { die: d });
            }
        }
        Ok(Dice {
            high: a.max(b),
            low: a.min(b),
        })
    }

    /// Used only where the faces are known to be valid.
    pub(crate) const fn new_unchecked(a: u8, b: u8) -> Dice {
        if a >= b {
            Dice { high: a, low: b }
        } else {
            Dice { high: b, low: a }
        }
    }

    #[inline]
    pub fn high(self) -> u8 {
        self.high
    }

    #[inline]
    pub fn low(self) -> u8 {
        self.low
    }

    #[inline]
    pub fn is_double(self) -> bool {
        self.high == self.low
    }

    /// 1/36 for a double, 2/36 otherwise.
    #[inline]
    pub fn probability(self) -> f64 {
        self.weight() as f64 / 36.0
    }

    /// The roll's weight out of 36.
    #[inline]
    pub fn weight(self) -> u32 {
        if self.is_double() {
            1
        } else {
            2
        }
    }

    /// Index of this roll in [`ALL_ROLLS`].
    pub fn index(self) -> usize {
        ALL_ROLLS
            .iter()
            .position(|&d| d == self)
            .unwrap_or_default()
    }

    /// Roll two dice with the project's generator (see [`crate::game::rng`]).
    pub fn roll(rng: &mut crate::game::Rng) -> Dice {
        rng.dice()
    }
}

impl fmt::Debug for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.high, self.low)
    }
}

impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.high, self.low)
    }
}

const fn all_rolls() -> [Dice; 21] {
    let mut out = [Dice { high: 1, low: 1 }; 21];
    let mut i = 0;
    let mut a = 1;
    while a <= 6 {
        let mut b = 1;
        while b <= a {
            out[i] = Dice { high: a, low: b };
            i += 1;
            b += 1;
        }
        a += 1;
    }
    out
}

/// The 21 distinct rolls: 6 doubles (weight 1) and 15 non-doubles (weight 2), 36 in all.
pub const ALL_ROLLS: [Dice; 21] = all_rolls();

/// SplitMix64's finaliser: a good 64-bit mixing function.
#[inline]
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_one_rolls_weigh_thirty_six() {
        assert_eq!(ALL_ROLLS.len(), 21);
        let total: u32 = ALL_ROLLS.iter().map(|d| d.weight()).sum();
        assert_eq!(total, 36);
        let p: f64 = ALL_ROLLS.iter().map(|d| d.probability()).sum();
        assert!((p - 1.0).abs() < 1e-12);
        assert_eq!(ALL_ROLLS.iter().filter(|d| d.is_double()).count(), 6);
        for (i, d) in ALL_ROLLS.iter().enumerate() {
            assert_eq!(d.index(), i);
        }
    }

    #[test]
    fn dice_validate_faces() {
        assert!(Dice::new(0, 3).is_err());
        assert!(Dice::new(3, 7).is_err());
        let d = Dice::new(2, 5).expect("valid");
        assert_eq!((d.high(), d.low()), (5, 2));
    }
}
