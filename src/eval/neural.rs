//! The neural evaluator: the contact net or the race net, picked by [`Position::phase`].
//!
//! Finished games return their exact result, and so do bear-offs with both sides in their
//! home boards (the one-sided database, [`super::bearoff`]); the race net answers only for
//! the rest of the race. Net outputs are made consistent with [`consistent`]. The default nets are compiled into the binary from `weights/`, so
//! `stargammon` plays at full strength with no files around; a path overrides them.

use std::path::Path;

use super::bearoff;
use super::encoding::SparseInput;
use super::net::{consistent, Mlp, MAX_HIDDEN, OUTPUTS};
use super::weights::{NetSet, WeightsError};
use super::{Evaluator, Probabilities};
use crate::game::{Phase, Position};

/// The shipped nets, embedded at build time.
pub const DEFAULT_WEIGHTS: &[u8] = include_bytes!("../../weights/default.sgnet");

/// Contact and race nets behind the [`Evaluator`] interface.
#[derive(Debug, Clone)]
pub struct NeuralEvaluator {
    nets: NetSet,
    name: String,
}

/// Per-thread scratch space for evaluations without stack arrays.
#[derive(Debug, Clone)]
pub struct Scratch {
    pub input: SparseInput,
    pub hidden: Vec<f32>,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            input: SparseInput::default(),
            hidden: vec![0.0; MAX_HIDDEN],
        }
    }
}

impl NeuralEvaluator {
    /// Wraps a pair of nets.
    pub fn new(nets: NetSet, name: impl Into<String>) -> NeuralEvaluator {
        NeuralEvaluator {
            nets,
            name: name.into(),
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
        self.encode(pos, &mut scratch.input);
        self.net_for(pos)
            .forward_into(&scratch.input, &mut scratch.hidden)
    }

    /// Evaluates with caller-provided scratch space.
    #[inline]
    pub fn evaluate_with(&self, pos: &Position, scratch: &mut Scratch) -> Probabilities {
        if let Some(p) = exact(pos) {
            return p;
        }
        let raw = self.raw_with(pos, scratch);
        consistent(raw, pos.off(), pos.opp_off())
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

impl Evaluator for NeuralEvaluator {
    fn evaluate(&self, pos: &Position) -> Probabilities {
        if let Some(p) = exact(pos) {
            return p;
        }
        let mut input = SparseInput::default();
        self.encode(pos, &mut input);
        let raw = self.net_for(pos).forward(&input);
        consistent(raw, pos.off(), pos.opp_off())
    }

    fn evaluate_batch(&self, positions: &[Position], out: &mut [Probabilities]) {
        let mut scratch = Scratch::default();
        for (p, o) in positions.iter().zip(out.iter_mut()) {
            *o = self.evaluate_with(p, &mut scratch);
        }
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}
