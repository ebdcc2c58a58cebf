//! Cheap move-ordering and probe heuristics.
//!
//! The evaluator is most of the search's cost, so ordering plays by their static value
//! costs evaluations; these heuristics cost none. They follow the probe rule of Hauk,
//! Buro and Schaeffer (prefer hits, then points made) and add a penalty for blots the
//! opponent can reach.

use crate::game::Play;

/// A score for `play`: higher is tried earlier.
pub fn heuristic_score(play: &Play) -> i32 {
    let after = &play.position;
    let hits = play.steps().iter().filter(|s| s.hit).count() as i32;
    let s = after.slots();
    let mut home_points = 0;
    let mut points = 0;
    let mut exposed = 0;
    for i in 1..=24 {
        let c = s[i];
        if c >= 2 {
            if i <= 6 {
                home_points += 1;
            } else {
                points += 1;
            }
        } else if c == 1 {
            // The opponent moves towards slot 25 in the mover's numbering: a blot is
            // exposed to any opponent checker behind it (slot 0 is its bar) within
            // direct or combination range.
            if (0..i).any(|j| s[j] < 0 && i - j <= 11) {
                exposed += 1;
            }
        }
    }
    10 * hits + 3 * home_points + 2 * points - 4 * exposed
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::{legal_plays, Dice, Position};

    #[test]
    fn prefers_the_point_making_opening_play() {
        // 3-1 at the opening: 8/5 6/5 makes the 5-point and leaves no blot.
        let pos = Position::OPENING;
        let plays = legal_plays(&pos, Dice::new(3, 1).unwrap());
        let best = plays.iter().max_by_key(|p| heuristic_score(p)).unwrap();
        assert_eq!(best.position.slots()[5], 2);
        assert_eq!(best.position.slots()[8], 2);
    }
}
