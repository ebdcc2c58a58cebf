//! The fixed-point value grid.
//!
//! Every value the search compares is an `i32` equity multiplied by 2^18 and rounded,
//! as Hauk, Buro and Schaeffer did: Star1 and Star2 decide cut-offs from sums and
//! quotients of child values, and floating-point arithmetic could make the same
//! comparison come out differently depending on evaluation order. On an integer grid the
//! chance-node average is computed exactly (as a weighted sum over 36) and every
//! comparison is reproducible, so the exact algorithms agree with Expectimax bit for bit.

use std::sync::Arc;

use crate::cube::{CubeSettings, CubeView, CubefulValue};
use crate::eval::Probabilities;
use crate::game::{Ending, GamePosition, GameResult, Phase};

/// A value on the grid, from the view of the side to act at the node.
pub type Value = i32;

/// Grid units per point of equity.
pub const SCALE: i32 = 1 << 18;

/// The widest possible values: a backgammon either way.
pub const MAX_VALUE: Value = 3 * SCALE;
/// See [`MAX_VALUE`].
pub const MIN_VALUE: Value = -3 * SCALE;

/// Converts an equity to the grid, rounding to the nearest unit and clamping to
/// [`MIN_VALUE`, `MAX_VALUE`].
#[inline]
pub fn to_value(equity: f64) -> Value {
    let v = (equity * SCALE as f64).round();
    if v.is_nan() {
        return 0;
    }
    v.clamp(MIN_VALUE as f64, MAX_VALUE as f64) as Value
}

/// Converts a grid value back to an equity.
#[inline]
pub fn to_equity(v: Value) -> f64 {
    v as f64 / SCALE as f64
}

/// What the search maximises: the value of each result of the game for the side to act,
/// on the grid's scale. Money play values a result at its points (a single game 1, a
/// gammon 2, a backgammon 3), which makes a leaf's value the cubeless equity. In a match
/// the points are worth what they do to the match-winning chance at the score: a gammon
/// may be worth nothing more than a single game (when a single win takes the match), or
/// far more. Any utility that is an increasing affine function of the root side's
/// match-winning chance keeps the negamax convention (the opponent's value is minus the
/// root side's), so the search, its pruning and its table work unchanged; only the leaf
/// values, the results of finished games and the bounds depend on it, and on which side
/// acts (0: the side the search was asked for, 1: its opponent).
///
/// A match utility may also value its leaves cubefully ([`Utility::with_cube`]): each leaf
/// by the match-winning chance the cube model gives its probabilities with the cube where
/// it is, as depth 1 ranks plays, instead of by the cubeless chance.
#[derive(Debug, Clone, PartialEq)]
pub struct Utility {
    /// Per side: the value of winning a single game, a gammon, a backgammon.
    win: [[f64; 3]; 2],
    /// Per side: the value of losing them (negative).
    loss: [[f64; 3]; 2],
    /// Per side: the bounds of every value, before and after both sides have borne off.
    range: [[(Value, Value); 2]; 2],
    money: bool,
    /// Mixed into table keys, so searches under other utilities never share entries.
    salt: u64,
    /// Match play: the root side's match-winning chance `m` is worth `(m - mid) * scale`.
    mid: f64,
    scale: f64,
    /// Match play with cubeful leaves: the cube valued as each side sees it when it is to
    /// roll (0: the root side).
    cube: Option<Arc<[CubefulValue; 2]>>,
}

impl Default for Utility {
    fn default() -> Self {
        Utility::MONEY
    }
}

impl Utility {
    /// Money play: a result is worth its points.
    pub const MONEY: Utility = Utility {
        win: [[1.0, 2.0, 3.0]; 2],
        loss: [[-1.0, -2.0, -3.0]; 2],
        range: [[(MIN_VALUE, MAX_VALUE), (-SCALE, SCALE)]; 2],
        money: true,
        salt: 0,
        mid: 0.0,
        scale: 1.0,
        cube: None,
    };

    /// The utility of the side to act with these match-winning chances after it wins
    /// (`win[k]`) or loses (`lose[k]`) a single game (k = 0), a gammon (1) or a
    /// backgammon (2) at the present cube. Scaled so that a single game is worth 1 either
    /// way, or less where some result would be worth more than 3 (the grid's range);
    /// money play where winning and losing a single game are worth the same.
    pub fn from_match_chances(win: [f64; 3], lose: [f64; 3]) -> Utility {
        let spread = win[0] - lose[0];
        if win.iter().chain(&lose).any(|x| !x.is_finite()) || spread <= 1e-9 {
            return Utility::MONEY;
        }
        let mid = (win[0] + lose[0]) / 2.0;
        let mut a = 2.0 / spread;
        let widest = win
            .iter()
            .chain(&lose)
            .map(|x| ((x - mid) * a).abs())
            .fold(0.0, f64::max);
        if widest > 3.0 {
            a *= 3.0 / widest;
        }
        let w0 = win.map(|x| (x - mid) * a);
        let l0 = lose.map(|x| (x - mid) * a);
        let win = [w0, l0.map(|x| -x)];
        let loss = [l0, w0.map(|x| -x)];
        let span = |lo: &[f64], hi: &[f64]| {
            let lo = lo.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = hi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (
                ((lo * SCALE as f64).floor() as Value).max(MIN_VALUE),
                ((hi * SCALE as f64).ceil() as Value).min(MAX_VALUE),
            )
        };
        let range = [0, 1].map(|s| [span(&loss[s], &win[s]), span(&loss[s][..1], &win[s][..1])]);
        let text = format!("{w0:?}/{l0:?}");
        Utility {
            win,
            loss,
            range,
            money: false,
            salt: crate::game::zobrist::salt(&text) | 1,
            mid,
            scale: a,
            cube: None,
        }
    }

    /// This match utility with its leaves valued cubefully: `view` is the cube as the root
    /// side sees it, `settings` how the cube is valued (its efficiencies). A finished
    /// game's value stays its points at the present cube, which is its cubeful value too.
    /// Money play's utility, or any utility given a money view, is returned as it is.
    pub fn with_cube(self, view: CubeView, settings: CubeSettings) -> Utility {
        if self.money || view.is_money() {
            return self;
        }
        let text = format!("cube {view:?} {settings:?}");
        Utility {
            cube: Some(Arc::new(
                [view, view.swap()].map(|v| CubefulValue::new(v, settings)),
            )),
            salt: (self.salt ^ crate::game::zobrist::salt(&text)) | 1,
            ..self
        }
    }

    /// Whether leaves are valued cubefully ([`Utility::with_cube`]).
    pub fn is_cubeful(&self) -> bool {
        self.cube.is_some()
    }

    /// Whether this is money play's utility.
    pub fn is_money(&self) -> bool {
        self.money
    }

    /// The key salt of a node whose side to act is `side` (0 for every node in money
    /// play, where both sides value results alike).
    #[inline]
    pub(crate) fn key_salt(&self, side: usize) -> u64 {
        match (self.money, side & 1) {
            (true, _) => 0,
            (false, 0) => self.salt,
            (false, _) => self.salt.rotate_left(29) ^ 0x9e37_79b9_7f4a_7c15,
        }
    }

    /// The bounds (L, U) every value in the subtree below `pos` lies in, for `side` to
    /// act there. Once both sides have borne off a checker neither can be gammoned.
    #[inline]
    pub fn bounds<P: GamePosition>(&self, side: usize, pos: &P) -> (Value, Value) {
        self.range[side & 1][pos.gammons_settled() as usize]
    }

    /// The value of a position for `side`, to act there, with its probabilities `p`,
    /// clamped to [`Self::bounds`].
    #[inline]
    pub fn leaf<P: GamePosition>(&self, side: usize, p: &Probabilities, pos: &P) -> Value {
        let (l, u) = self.bounds(side, pos);
        if self.money {
            return to_value(p.equity() as f64).clamp(l, u);
        }
        if let Some(c) = &self.cube {
            let cube = &c[side & 1];
            let efficiency = match pos.race_pips() {
                Some(pips) => cube.settings().efficiency(Phase::Race, pips),
                None => cube.settings().efficiency(Phase::Contact, 0),
            };
            let own = cube.value(p, efficiency);
            // The root side's chance, and its value; the opponent's value is its negation.
            let root = if side & 1 == 0 { own } else { 1.0 - own };
            let v = (root - self.mid) * self.scale;
            return to_value(if side & 1 == 0 { v } else { -v }).clamp(l, u);
        }
        let (w, g) = (&self.win[side & 1], &self.loss[side & 1]);
        let q = p.0.map(f64::from);
        let v = w[0] * (q[0] - q[1])
            + w[1] * (q[1] - q[2])
            + w[2] * q[2]
            + g[0] * (1.0 - q[0] - q[3])
            + g[1] * (q[3] - q[4])
            + g[2] * q[4];
        to_value(v).clamp(l, u)
    }

    /// The value of a finished game for `side`, which won it with `result`.
    #[inline]
    pub fn won(&self, side: usize, result: GameResult) -> Value {
        if self.money {
            return result.points() * SCALE;
        }
        to_value(self.win[side & 1][result.points() as usize - 1])
    }

    /// The value of a finished game for `side`, whose last play ended it with `ending`.
    /// A tie is worth half a single win and half a single loss.
    #[inline]
    pub fn ended(&self, side: usize, ending: Ending) -> Value {
        match ending {
            Ending::Won(result) => self.won(side, result),
            Ending::Tie if self.money => 0,
            Ending::Tie => to_value(0.5 * (self.win[side & 1][0] + self.loss[side & 1][0])),
        }
    }
}

/// Floor of `a / b` for `b > 0`.
#[inline]
pub(crate) fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// Ceiling of `a / b` for `b > 0`.
#[inline]
pub(crate) fn ceil_div(a: i64, b: i64) -> i64 {
    -((-a).div_euclid(b))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::Position;

    #[test]
    fn grid_round_trip_and_division() {
        assert_eq!(to_value(1.0), SCALE);
        assert_eq!(to_value(-0.5), -SCALE / 2);
        assert_eq!(to_value(9.0), MAX_VALUE);
        assert_eq!(to_value(f64::NAN), 0);
        assert_eq!(to_equity(SCALE / 4), 0.25);
        assert_eq!(floor_div(-7, 2), -4);
        assert_eq!(ceil_div(-7, 2), -3);
        assert_eq!(floor_div(7, 2), 3);
        assert_eq!(ceil_div(7, 2), 4);
        assert_eq!(ceil_div(8, 2), 4);
        assert_eq!(
            Utility::MONEY.bounds(0, &Position::OPENING),
            (MIN_VALUE, MAX_VALUE)
        );
    }
}
