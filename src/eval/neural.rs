//! The neural evaluator: the contact net or the race net, picked by [`Position::phase`].
//!
//! Finished games return their exact result, and so do bear-offs with both sides in their
//! home boards (the one-sided database, [`super::bearoff`]); the race net answers only for
//! the rest of the race. Net outputs are made consistent with [`consistent`]. The default nets are compiled into the binary from `weights/`, so
//! `stargammon` plays at full strength with no files around; a path overrides them.
//!
//! The nets run in one of two [`Precision`]s: the float nets, or their integer form
//! ([`super::qnet`]: a 16-bit first layer, summed from the previous position's sums where
//! that is cheaper). A position whose integer sums would overflow is evaluated in float.

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use super::bearoff;
use super::encoding::{SparseInput, BOARD_SIDE};
use super::net::{consistent, Mlp, MAX_HIDDEN, OUTPUTS};
pub use super::qnet::Precision;
use super::qnet::{QuantMlp, QuantState};
use super::sides::SideCache;
use super::weights::{NetSet, WeightsError};
use super::{Evaluator, Probabilities};
use crate::game::{Phase, Position};

/// The shipped nets, embedded at build time.
pub const DEFAULT_WEIGHTS: &[u8] = include_bytes!("../../weights/default.sgnet");
/// The shipped pruning nets (encoding [`super::encoding::Encoding::Board`], a few hidden
/// units; [`super::prune`]), which rank a roll's plays where a search prunes; embedded at
/// build time.
pub const PRUNE_WEIGHTS: &[u8] = include_bytes!("../../weights/prune.sgnet");

/// Contact and race nets behind the [`Evaluator`] interface.
#[derive(Debug, Clone)]
pub struct NeuralEvaluator {
    nets: NetSet,
    name: String,
    precision: Precision,
    /// The integer forms of the contact and race nets (`None` when a net has no usable
    /// integer form: it is then evaluated in float).
    quant: Arc<(Option<QuantMlp>, Option<QuantMlp>)>,
    /// Further nets whose outputs are averaged with these nets' (an ensemble; empty for
    /// one set of nets).
    partners: Arc<Vec<NeuralEvaluator>>,
}

/// Per-thread scratch space for evaluations without stack arrays.
#[derive(Debug, Clone)]
pub struct Scratch {
    pub input: SparseInput,
    pub hidden: Vec<f32>,
    /// The integer nets' remembered sums.
    pub quant: QuantState,
    /// The side to act's part of encoding 2, kept from the previous position.
    pub sides: SideCache,
    /// Within one batch, the float sums of the last position's first inputs (see
    /// [`Prefix`]).
    prefix: Prefix,
}

/// The float hidden sums of a position's first inputs, those of the side to act's
/// checkers (board indices below [`BOARD_SIDE`]): the children of one position (a
/// batch) share them unless a play hits, so a batch sums them once. Kept only within
/// one batch, where the nets cannot change.
#[derive(Debug, Clone)]
struct Prefix {
    /// Which net the sums are of: 0 none, 1 the contact net, 2 the race net.
    net: u8,
    /// The first inputs the sums are of.
    input: SparseInput,
    sums: Vec<f32>,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            input: SparseInput::default(),
            hidden: vec![0.0; MAX_HIDDEN],
            quant: QuantState::default(),
            sides: SideCache::default(),
            prefix: Prefix {
                net: 0,
                input: SparseInput::default(),
                sums: vec![0.0; MAX_HIDDEN],
            },
        }
    }
}

impl NeuralEvaluator {
    /// Wraps a pair of nets, evaluated in the default [`Precision`].
    pub fn new(nets: NetSet, name: impl Into<String>) -> NeuralEvaluator {
        let quant = Arc::new((QuantMlp::new(&nets.contact), QuantMlp::new(&nets.race)));
        NeuralEvaluator {
            nets,
            name: name.into(),
            precision: Precision::default(),
            quant,
            partners: Arc::new(Vec::new()),
        }
    }

    /// These nets with `others` beside them (an ensemble): every evaluation is the mean
    /// of all their probabilities, each set of nets (an ensemble's members included)
    /// counted once.
    pub fn with_partners(mut self, others: Vec<NeuralEvaluator>) -> NeuralEvaluator {
        let mut members: Vec<NeuralEvaluator> = self.partners.iter().cloned().collect();
        for o in others {
            self.name.push('+');
            self.name
                .push_str(o.name.strip_prefix("net:").unwrap_or(&o.name));
            members.extend(o.partners.iter().cloned());
            members.push(NeuralEvaluator {
                partners: Arc::new(Vec::new()),
                ..o
            });
        }
        let precision = self.precision;
        self.partners = Arc::new(members);
        self.with_precision(precision)
    }

    /// The mean of `own` (these nets' probabilities of `pos`, a position that is not
    /// [`exact`], whose inputs are in `scratch.input`) and the partners'.
    #[inline]
    fn mean_with_partners(
        &self,
        own: Probabilities,
        pos: &Position,
        scratch: &mut Scratch,
    ) -> Probabilities {
        if self.partners.is_empty() {
            return own;
        }
        let mut sum = own.0;
        // The encoding whose inputs `scratch.input` holds.
        let mut encoded = self.nets.encoding;
        for other in self.partners.iter() {
            let raw = if other.nets.encoding == encoded {
                other.raw_encoded(pos, scratch)
            } else {
                encoded = other.nets.encoding;
                other.raw_with(pos, scratch)
            };
            let p = consistent(raw, pos.off(), pos.opp_off());
            for (s, v) in sum.iter_mut().zip(p.0) {
                *s += v;
            }
        }
        let n = (1 + self.partners.len()) as f32;
        Probabilities(sum.map(|s| s / n))
    }

    /// The same nets evaluated in `precision`.
    pub fn with_precision(mut self, precision: Precision) -> NeuralEvaluator {
        self.precision = precision;
        if !self.partners.is_empty() {
            let others = self
                .partners
                .iter()
                .map(|o| o.clone().with_precision(precision))
                .collect();
            self.partners = Arc::new(others);
        }
        self
    }

    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The integer form of the net that values `pos`, when this evaluator uses it.
    #[inline]
    pub fn quant_for(&self, pos: &Position) -> Option<&QuantMlp> {
        if self.precision != Precision::Int16 {
            return None;
        }
        match pos.phase() {
            Phase::Contact => self.quant.0.as_ref(),
            Phase::Race => self.quant.1.as_ref(),
        }
    }

    /// The nets compiled into the binary.
    pub fn default_nets() -> Result<NeuralEvaluator, WeightsError> {
        Ok(NeuralEvaluator::new(
            NetSet::from_bytes(DEFAULT_WEIGHTS)?,
            "net",
        ))
    }

    /// Nets from a weights file.
    pub fn load(path: &Path) -> Result<NeuralEvaluator, WeightsError> {
        Ok(NeuralEvaluator::new(
            NetSet::load(path)?,
            format!("net:{}", path.display()),
        ))
    }

    pub fn nets(&self) -> &NetSet {
        &self.nets
    }

    /// The weights files' bytes of these nets and then of each partner (for one set of
    /// nets, its file).
    pub fn weights_bytes(&self) -> Vec<u8> {
        let mut bytes = self.nets.to_bytes();
        for p in self.partners.iter() {
            bytes.extend(p.nets.to_bytes());
        }
        bytes
    }

    /// The net that values `pos`.
    #[inline]
    pub fn net_for(&self, pos: &Position) -> &Mlp {
        match pos.phase() {
            Phase::Contact => &self.nets.contact,
            Phase::Race => &self.nets.race,
        }
    }

    /// Encodes `pos` for the net of its phase: the contact net reads the file's
    /// encoding, the race net encoding 1.
    #[inline]
    pub fn encode(&self, pos: &Position, out: &mut SparseInput) {
        self.nets.encoding.encode_for(pos, out);
    }

    /// Raw outputs of the right net (no consistency fix, no finished-game check).
    #[inline]
    pub fn raw_with(&self, pos: &Position, scratch: &mut Scratch) -> [f32; OUTPUTS] {
        self.nets
            .encoding
            .encode_for_cached(pos, &mut scratch.input, &mut scratch.sides);
        self.raw_encoded(pos, scratch)
    }

    /// [`NeuralEvaluator::raw_with`] of `pos`, whose inputs are already in
    /// `scratch.input`.
    #[inline]
    fn raw_encoded(&self, pos: &Position, scratch: &mut Scratch) -> [f32; OUTPUTS] {
        if let Some(q) = self.quant_for(pos) {
            if let Some(out) = scratch.quant.forward(q, &scratch.input) {
                return out;
            }
        }
        self.net_for(pos)
            .forward_into(&scratch.input, &mut scratch.hidden)
    }

    /// These nets' own probabilities of `pos` (not [`exact`]) in one batch: the float
    /// sums of the side to act's checkers are taken from the batch's previous position
    /// where those inputs are the same (the same outputs bit for bit).
    #[inline]
    fn own_in_batch(&self, pos: &Position, scratch: &mut Scratch) -> Probabilities {
        if self.quant_for(pos).is_some() {
            let raw = self.raw_with(pos, scratch);
            return consistent(raw, pos.off(), pos.opp_off());
        }
        self.nets
            .encoding
            .encode_for_cached(pos, &mut scratch.input, &mut scratch.sides);
        let x = &scratch.input;
        let split = x.index[..x.len].partition_point(|&i| (i as usize) < BOARD_SIDE);
        let net = match pos.phase() {
            Phase::Contact => 1,
            Phase::Race => 2,
        };
        let p = &mut scratch.prefix;
        let reuse = p.net == net
            && p.input.len == split
            && p.input.index[..split] == x.index[..split]
            && p.input.value[..split]
                .iter()
                .zip(&x.value[..split])
                .all(|(a, b)| a.to_bits() == b.to_bits());
        if !reuse {
            p.net = net;
            p.input.len = split;
            p.input.index[..split].copy_from_slice(&x.index[..split]);
            p.input.value[..split].copy_from_slice(&x.value[..split]);
        }
        let raw =
            self.net_for(pos)
                .forward_split(x, split, &mut p.sums, reuse, &mut scratch.hidden);
        consistent(raw, pos.off(), pos.opp_off())
    }

    /// Evaluates with caller-provided scratch space.
    #[inline]
    pub fn evaluate_with(&self, pos: &Position, scratch: &mut Scratch) -> Probabilities {
        exact(pos).unwrap_or_else(|| self.value_with(pos, scratch))
    }

    /// The probabilities of `pos`, a position that is not [`exact`]: these nets', or the
    /// mean of an ensemble's.
    #[inline]
    fn value_with(&self, pos: &Position, scratch: &mut Scratch) -> Probabilities {
        let raw = self.raw_with(pos, scratch);
        let own = consistent(raw, pos.off(), pos.opp_off());
        self.mean_with_partners(own, pos, scratch)
    }
}

/// The exact probabilities where they are known: a finished game, or both sides in their
/// home boards (the bear-off database).
#[inline]
pub fn exact(pos: &Position) -> Option<Probabilities> {
    finished(pos).or_else(|| bearoff::exact(pos))
}

/// The exact result when the game is over, from the view of the side to act.
#[inline]
pub fn finished(pos: &Position) -> Option<Probabilities> {
    if let Some(r) = pos.opponent_result() {
        return Some(Probabilities::from_result(r, false));
    }
    pos.mover_result()
        .map(|r| Probabilities::from_result(r, true))
}

thread_local! {
    /// A thread's scratch space, kept between calls: no buffers to allocate or clear per
    /// evaluation, and the integer nets sum successive positions (the children of one
    /// position) from each other.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl NeuralEvaluator {
    /// `f` with this thread's scratch space, or with fresh space when it is in use (an
    /// evaluation inside an evaluation).
    #[inline]
    fn with_scratch<T>(&self, f: impl FnOnce(&mut Scratch) -> T) -> T {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut s) => f(&mut s),
            Err(_) => f(&mut Scratch::default()),
        })
    }
}

impl Evaluator for NeuralEvaluator {
    fn evaluate(&self, pos: &Position) -> Probabilities {
        if let Some(p) = exact(pos) {
            return p;
        }
        self.with_scratch(|s| self.value_with(pos, s))
    }

    fn evaluate_batch(&self, positions: &[Position], out: &mut [Probabilities]) {
        self.with_scratch(|s| {
            s.prefix.net = 0;
            for (p, o) in positions.iter().zip(out.iter_mut()) {
                *o = match exact(p) {
                    Some(known) => known,
                    None => {
                        let own = self.own_in_batch(p, s);
                        self.mean_with_partners(own, p, s)
                    }
                };
            }
            s.prefix.net = 0;
        })
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{generate_plays, PlayList};

    /// Batches of each position's children, contact and race, run back to back: every
    /// child gets the probabilities a single evaluation gives it, bit for bit, with the
    /// shipped nets and with the TD nets (encoding 1), in float and in int16.
    #[test]
    fn batches_give_the_single_evaluations_bit_for_bit() {
        let shipped = NeuralEvaluator::default_nets().expect("embedded weights");
        let td = NeuralEvaluator::load(Path::new("weights/td.sgnet")).expect("weights/td.sgnet");
        let mut list = PlayList::new();
        let bits = |p: &Probabilities| p.0.map(f32::to_bits);
        let mut batches = 0;
        // An ensemble whose members read different encodings (2 and 1).
        let ensemble = shipped.clone().with_partners(vec![td.clone()]);
        for ev in [
            shipped.clone(),
            td,
            shipped.with_precision(Precision::Int16),
            ensemble.clone(),
            ensemble.with_precision(Precision::Int16),
        ] {
            for (pos, dice) in crate::testing::random_game_positions(41, 40) {
                generate_plays(&pos, dice, &mut list);
                let children: Vec<Position> = list
                    .iter()
                    .filter(|p| p.position.mover_result().is_none())
                    .map(|p| p.next_position())
                    .collect();
                let mut out = vec![Probabilities::default(); children.len()];
                ev.evaluate_batch(&children, &mut out);
                for (c, o) in children.iter().zip(&out) {
                    assert_eq!(bits(&ev.evaluate(c)), bits(o), "{c:?}");
                }
                batches += 1;
            }
        }
        assert!(batches > 5000, "only {batches} batches");
    }

    /// An ensemble values a position by the mean of its members' probabilities (in each
    /// precision, members of the same encoding and of another, races and bear-offs
    /// included), and an ensemble of one set of nets twice is that set, bit for bit.
    #[test]
    fn an_ensemble_is_the_mean_of_its_members() {
        let shipped = NeuralEvaluator::default_nets().expect("embedded weights");
        let td = NeuralEvaluator::load(Path::new("weights/td.sgnet")).expect("weights/td.sgnet");
        let bits = |p: &Probabilities| p.0.map(f32::to_bits);
        let mut differ = 0;
        for precision in [Precision::Float, Precision::Int16] {
            let a = shipped.clone().with_precision(precision);
            let b = td.clone().with_precision(precision);
            let three = shipped
                .clone()
                .with_partners(vec![td.clone(), shipped.clone()])
                .with_precision(precision);
            let twice = shipped
                .clone()
                .with_partners(vec![shipped.clone()])
                .with_precision(precision);
            assert_eq!(three.name(), "net+weights/td.sgnet+net");
            for (pos, _) in crate::testing::random_game_positions(43, 30) {
                let (pa, pb) = (a.evaluate(&pos), b.evaluate(&pos));
                // Known results (finished games, bear-offs) are taken as they are.
                let mean = match exact(&pos) {
                    Some(p) => p,
                    None => {
                        Probabilities(std::array::from_fn(|k| (pa.0[k] + pb.0[k] + pa.0[k]) / 3.0))
                    }
                };
                assert_eq!(bits(&three.evaluate(&pos)), bits(&mean), "{pos:?}");
                assert_eq!(bits(&twice.evaluate(&pos)), bits(&pa), "{pos:?}");
                differ += usize::from(pa != pb);
            }
        }
        assert!(
            differ > 1000,
            "the members agree on all but {differ} positions"
        );
    }
}
