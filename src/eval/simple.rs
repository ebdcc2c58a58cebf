//! A cheap hand-written evaluator: pip counts through a sigmoid, with small terms for
//! checkers on the bar and gammon chances.
//!
//! Why it exists: the search's exactness, table and pool tests need an evaluator that is
//! deterministic, fast and sensible (it prefers races it leads and hitting), but they do
//! not need a strong one. It is also the fallback evaluator of `bench search` and `hint`
//! when no trained net is available. It is not a substitute for the net in strength
//! measurements.

use crate::eval::{Evaluator, Probabilities};
use crate::game::Position;

/// See the module docs.
#[derive(Debug, Clone, Copy, Default)]
pub struct PipSigmoid;

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl Evaluator for PipSigmoid {
    fn evaluate(&self, pos: &Position) -> Probabilities {
        if let Some(r) = pos.mover_result() {
            return Probabilities::from_result(r, true);
        }
        if let Some(r) = pos.opponent_result() {
            return Probabilities::from_result(r, false);
        }
        let me = pos.pips() as f64;
        let them = pos.opp_pips() as f64;
        // Being on roll is worth about 4 pips plus a share of the race length.
        let lead = them - me + 4.0 + 0.04 * me;
        let spread = 0.1 * (me + them) / 2.0 + 4.0;
        let bar = pos.bar() as f64 - pos.opp_bar() as f64;
        let win = sigmoid(lead / spread - 0.5 * bar).clamp(0.001, 0.999);
        // Gammons: only while the loser has borne off nothing; likelier the further
        // behind the loser is.
        let wg = if pos.opp_off() == 0 {
            win * 0.35 * sigmoid((them - 110.0) / 20.0)
        } else {
            0.0
        };
        let lg = if pos.off() == 0 {
            (1.0 - win) * 0.35 * sigmoid((me - 110.0) / 20.0)
        } else {
            0.0
        };
        Probabilities([
            win as f32,
            wg as f32,
            (wg * 0.05) as f32,
            lg as f32,
            (lg * 0.05) as f32,
        ])
    }

    fn name(&self) -> String {
        "pip-sigmoid".to_string()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_opening_and_leader_favoured() {
        let p = PipSigmoid.evaluate(&Position::OPENING);
        assert!(p.0[0] > 0.5 && p.0[0] < 0.7, "{p:?}");
        let mut s = *Position::OPENING.slots();
        s[24] = 0;
        s[6] = 7; // two back checkers brought home: a big lead
        let q = PipSigmoid.evaluate(&Position::from_slots(s).unwrap());
        assert!(q.equity() > p.equity());
    }
}
