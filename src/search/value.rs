//! The fixed-point value grid.
//!
//! Every value the search compares is an `i32` equity multiplied by 2^18 and rounded,
//! as Hauk, Buro and Schaeffer did: Star1 and Star2 decide cut-offs from sums and
//! quotients of child values, and floating-point arithmetic could make the same
//! comparison come out differently depending on evaluation order. On an integer grid the
//! chance-node average is computed exactly (as a weighted sum over 36) and every
//! comparison is reproducible, so the exact algorithms agree with Expectimax bit for bit.

use crate::game::Position;

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

/// The bounds (L, U) every value in the subtree below `pos` lies in. Once both sides
/// have borne off a checker neither can be gammoned, and the game is worth one point.
#[inline]
pub fn bounds(pos: &Position) -> (Value, Value) {
    if pos.off() > 0 && pos.opp_off() > 0 {
        (-SCALE, SCALE)
    } else {
        (MIN_VALUE, MAX_VALUE)
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
        assert_eq!(bounds(&Position::OPENING), (MIN_VALUE, MAX_VALUE));
    }
}
