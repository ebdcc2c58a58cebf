//! The pruning evaluator: small nets over the board alone that rank a roll's plays
//! before the full nets value the best few (gnubg's pruning nets play the same part).
//!
//! The nets read [`Encoding::Board`]: each side's checkers point by point, its bar and
//! its borne-off checkers, nothing computed from them. A point's four units depend only
//! on its count, so their first-layer contribution is a table row per (slot, count),
//! built once: a position's hidden sums are the bias plus one row per occupied slot of
//! either side, about thirty additions of one short vector, where the general evaluator
//! encodes the position and sums a weight row per nonzero input. The outputs are those
//! of [`super::NeuralEvaluator`] on the same nets up to the order of the float additions
//! (a test holds them within 1e-4).

use super::encoding::{point_units, Encoding, BOARD_SIDE};
use super::net::{add_rows, consistent, forward_rows, Mlp, OUTPUTS};
use super::neural::exact;
use super::weights::{NetSet, WeightsError};
use super::{Evaluator, Probabilities};
use crate::game::{Phase, Position};

/// Hidden units of the tables (smaller nets are padded with units that say nothing).
pub const PRUNE_HIDDEN: usize = 32;
/// Counts a slot's table has rows for (0 to 15 checkers).
const COUNTS: usize = 16;
/// Slots per side: the 24 points, the bar, borne off.
const SLOTS: usize = 26;

/// One pruning net as tables.
#[derive(Debug, Clone)]
struct PruneNet {
    /// Rows of `PRUNE_HIDDEN` hidden sums; row `(side * SLOTS + slot) * COUNTS + n` is
    /// what `n` checkers of `side` (0 the side to act, 1 the other) on `slot` (0-23 the
    /// side's points 1-24 in its own numbering, 24 its bar, 25 borne off) add.
    rows: Vec<f32>,
    b1: Vec<f32>,
    /// `OUTPUTS` rows of `PRUNE_HIDDEN` output weights.
    w2: Vec<f32>,
    b2: [f32; OUTPUTS],
}

impl PruneNet {
    fn new(net: &Mlp) -> Result<PruneNet, WeightsError> {
        let h = net.hidden();
        if h > PRUNE_HIDDEN || net.inputs() != 2 * BOARD_SIDE {
            return Err(WeightsError::BadShape(format!(
                "a pruning net reads the {} board inputs with at most {PRUNE_HIDDEN} hidden \
                 units, not {}x{h}",
                2 * BOARD_SIDE,
                net.inputs()
            )));
        }
        let w1 = |i: usize, j: usize| net.w1[i * h + j];
        let mut rows = vec![0.0; 2 * SLOTS * COUNTS * PRUNE_HIDDEN];
        for side in 0..2 {
            let base = side * BOARD_SIDE;
            for slot in 0..SLOTS {
                for n in 1..COUNTS {
                    let at = ((side * SLOTS + slot) * COUNTS + n) * PRUNE_HIDDEN;
                    let row = &mut rows[at..at + h];
                    let mut add = |i: usize, v: f32| {
                        for (j, r) in row.iter_mut().enumerate() {
                            *r += v * w1(i, j);
                        }
                    };
                    match slot {
                        24 => add(base + 96, n as f32 / 2.0),
                        25 => add(base + 97, n as f32 / 15.0),
                        p => point_units(base + 4 * p, n as u8, &mut add),
                    }
                }
            }
        }
        let mut b1 = vec![0.0; PRUNE_HIDDEN];
        b1[..h].copy_from_slice(&net.b1[..h]);
        let mut w2 = vec![0.0; OUTPUTS * PRUNE_HIDDEN];
        for k in 0..OUTPUTS {
            w2[k * PRUNE_HIDDEN..k * PRUNE_HIDDEN + h].copy_from_slice(&net.w2[k * h..(k + 1) * h]);
        }
        Ok(PruneNet {
            rows,
            b1,
            w2,
            b2: net.b2,
        })
    }

    /// The table offsets of one side's occupied slots in `pos` (`side` 0 the side to
    /// act), appended to `rows`; `occupied` is [`Position::slot_masks`]'s first and last
    /// masks (the slots holding the side to act's checkers, and the other side's), `off`
    /// the checkers each side has borne off.
    #[inline(always)]
    fn side_rows(
        pos: &Position,
        side: usize,
        occupied: (u32, u32),
        off: (u8, u8),
        rows: &mut Vec<u32>,
    ) {
        /// Slots 1 to 24: the points.
        const POINTS: u32 = ((1 << 24) - 1) << 1;
        let s = pos.slots();
        let row = |slot: usize, n: u8| {
            let n = (n as usize).min(COUNTS - 1);
            (((side * SLOTS + slot) * COUNTS + n) * PRUNE_HIDDEN) as u32
        };
        let (mut m, bar, off) = if side == 0 {
            (occupied.0 & POINTS, s[25].unsigned_abs(), off.0)
        } else {
            (occupied.1 & POINTS, s[0].unsigned_abs(), off.1)
        };
        while m != 0 {
            let j = m.trailing_zeros() as usize;
            m &= m - 1;
            // Slot j is the side to act's point j, and the other side's point 25 - j.
            let slot = if side == 0 { j - 1 } else { 24 - j };
            rows.push(row(slot, s[j].unsigned_abs()));
        }
        if bar > 0 {
            rows.push(row(24, bar));
        }
        if off > 0 {
            rows.push(row(25, off));
        }
    }
}

/// A batch's scratch: the hidden sums of the side to act's rows (with the biases), kept
/// from one position to the next while that side's checkers stay where they are (the
/// children of one position, but for a hit).
#[derive(Debug, Default)]
struct Kept {
    /// Which net (1 contact, 2 race; 0 none) and which side-to-act rows the sums are of.
    net: u8,
    own: Vec<u32>,
    sums: Vec<f32>,
    rows: Vec<u32>,
}

/// Pruning nets (a contact and a race net reading [`Encoding::Board`]) behind the
/// [`Evaluator`] interface; finished games and the bear-off database's positions get
/// their exact values, as from every evaluator.
#[derive(Debug, Clone)]
pub struct PruneEvaluator {
    contact: PruneNet,
    race: PruneNet,
    name: String,
}

impl PruneEvaluator {
    /// The tables of `nets`, which must read [`Encoding::Board`] with at most
    /// [`PRUNE_HIDDEN`] hidden units.
    pub fn new(nets: &NetSet, name: impl Into<String>) -> Result<PruneEvaluator, WeightsError> {
        if nets.encoding != Encoding::Board {
            return Err(WeightsError::BadShape(format!(
                "pruning nets read encoding {} (the board alone), not {}",
                Encoding::Board.id(),
                nets.encoding.id()
            )));
        }
        Ok(PruneEvaluator {
            contact: PruneNet::new(&nets.contact)?,
            race: PruneNet::new(&nets.race)?,
            name: name.into(),
        })
    }

    /// The pruning nets compiled into the binary.
    pub fn builtin() -> Result<PruneEvaluator, WeightsError> {
        PruneEvaluator::new(&NetSet::from_bytes(super::neural::PRUNE_WEIGHTS)?, "prune")
    }
}

impl PruneEvaluator {
    #[inline]
    fn value(&self, pos: &Position, kept: &mut Kept) -> Probabilities {
        if let Some(p) = exact(pos) {
            return p;
        }
        let (net, id) = match pos.phase() {
            Phase::Contact => (&self.contact, 1),
            Phase::Race => (&self.race, 2),
        };
        let [mine, _, _, theirs] = pos.slot_masks();
        let occupied = (mine, theirs);
        let off = (pos.off(), pos.opp_off());
        kept.rows.clear();
        PruneNet::side_rows(pos, 0, occupied, off, &mut kept.rows);
        if kept.net != id || kept.own != kept.rows {
            kept.net = id;
            kept.own.clone_from(&kept.rows);
            kept.sums.resize(PRUNE_HIDDEN, 0.0);
            kept.sums.copy_from_slice(&net.b1);
            add_rows(&mut kept.sums, &net.rows, &kept.own);
        }
        kept.rows.clear();
        PruneNet::side_rows(pos, 1, occupied, off, &mut kept.rows);
        let mut hidden = [0.0f32; PRUNE_HIDDEN];
        let raw = forward_rows(
            &mut hidden,
            &kept.sums,
            &net.rows,
            &kept.rows,
            &net.w2,
            &net.b2,
        );
        consistent(raw, off.0, off.1)
    }
}

impl Evaluator for PruneEvaluator {
    fn evaluate(&self, pos: &Position) -> Probabilities {
        self.value(pos, &mut Kept::default())
    }

    /// The side to act's sums are kept from one position to the next where its checkers
    /// have not moved (the children of one position).
    fn evaluate_batch(&self, positions: &[Position], out: &mut [Probabilities]) {
        thread_local! {
            static KEPT: std::cell::RefCell<Kept> = std::cell::RefCell::new(Kept::default());
        }
        KEPT.with(|k| {
            let mut k = k.borrow_mut();
            // A new batch may come from another evaluator's nets: start afresh.
            k.net = 0;
            for (p, o) in positions.iter().zip(out.iter_mut()) {
                *o = self.value(p, &mut k);
            }
        });
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::eval::NeuralEvaluator;

    /// The tables give the general evaluator's outputs on the same nets, in contact, in
    /// races, with checkers on the bar and borne off, and for nets narrower than the
    /// tables.
    #[test]
    fn the_tables_evaluate_as_the_nets_do() {
        for (hidden, race_hidden) in [(32, 16), (8, 5)] {
            let nets = NetSet::random(Encoding::Board, hidden, race_hidden, 7).unwrap();
            let fast = PruneEvaluator::new(&nets, "p").unwrap();
            let slow = NeuralEvaluator::new(nets, "p");
            let positions = crate::testing::random_game_positions(11, 30);
            assert!(positions.len() > 500);
            let (mut bar, mut off, mut race) = (0, 0, 0);
            let all: Vec<Position> = positions.iter().map(|(p, _)| *p).collect();
            let mut batch = vec![Probabilities::default(); all.len()];
            fast.evaluate_batch(&all, &mut batch);
            for (i, (pos, _)) in positions.iter().enumerate() {
                let (a, b) = (fast.evaluate(pos), slow.evaluate(pos));
                assert_eq!(a, batch[i]);
                for k in 0..OUTPUTS {
                    assert!((a.0[k] - b.0[k]).abs() < 1e-4, "{pos:?}: {a:?} {b:?}");
                }
                bar += usize::from(pos.slots()[25] != 0 || pos.slots()[0] != 0);
                off += usize::from(pos.off() > 0 || pos.opp_off() > 0);
                race += usize::from(pos.phase() == Phase::Race);
            }
            assert!(bar > 10 && off > 10 && race > 10, "{bar} {off} {race}");
        }
    }

    #[test]
    fn nets_of_another_shape_are_refused() {
        let v1 = NetSet::random(Encoding::V1, 8, 8, 1).unwrap();
        assert!(PruneEvaluator::new(&v1, "p").is_err());
        let wide = NetSet::random(Encoding::Board, PRUNE_HIDDEN + 1, 8, 1).unwrap();
        assert!(PruneEvaluator::new(&wide, "p").is_err());
        assert!(PruneEvaluator::builtin().is_ok());
    }
}
