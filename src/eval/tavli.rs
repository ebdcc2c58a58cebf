//! The nets of the Tavli games: one net per game with three outputs for the side to act
//! before its roll, W = P(win, single or double), WD = P(double win, a mother win
//! included), LD = P(double loss) (docs/VARIANTS.md, section 9). Cubeless value
//! V = 2W - 1 + WD - LD.
//!
//! Inputs (docs/VARIANTS.md, "Net inputs"), the same layout in every game, each game its
//! own encoding id so that a Plakoto net is never read as a Fevga one:
//!
//! - raw counts: for each side and each of its own points 1..=24, four units (at least
//!   one checker, at least two, at least three, and (n - 3) / 2 beyond three);
//! - pins (Plakoto): for each side and point, 1 when that side's checker there is pinned;
//! - [`SIDE_FEATURES`] expert features per side (see [`side_features`]);
//! - three global ones: the race flag and the pip difference when behind and when ahead,
//!   over 60.
//!
//! The weights file has the backgammon nets' layout ([`super::weights`]): the same magic,
//! version and checksum, the game's encoding id, one net of three outputs.

use std::fmt;
use std::path::Path;

use std::sync::Arc;

use super::net::{Mlp, OUTPUTS};
use super::weights::{fnv1a64, WeightsError, FORMAT_VERSION, MAGIC};
use super::{Evaluator, NeuralEvaluator};
use crate::game::{Dice, Variant, ALL_ROLLS};
use crate::tavli::position::{opp_point, TavliPosition, TavliResult};

/// W, WD, LD.
pub const TAVLI_OUTPUTS: usize = 3;
/// Expert features per side.
pub const SIDE_FEATURES: usize = 16;
/// Features of the whole position.
pub const GLOBAL_FEATURES: usize = 3;
const RAW: usize = 24 * 4;
const PINS: usize = 24;
/// Inputs of every Tavli net.
pub const TAVLI_INPUTS: usize = 2 * RAW + 2 * PINS + 2 * SIDE_FEATURES + GLOBAL_FEATURES;
/// Largest hidden layer a Tavli net may have.
pub const TAVLI_MAX_HIDDEN: usize = 512;

/// The encoding id of a game's net (backgammon's are 1 and 2).
pub fn encoding_id(variant: Variant) -> Option<u32> {
    match variant {
        Variant::Portes => Some(10),
        Variant::Plakoto => Some(11),
        Variant::Fevga => Some(12),
        Variant::Backgammon => None,
    }
}

/// The game whose net reads encoding `id`.
pub fn variant_of_encoding(id: u32) -> Option<Variant> {
    match id {
        10 => Some(Variant::Portes),
        11 => Some(Variant::Plakoto),
        12 => Some(Variant::Fevga),
        _ => None,
    }
}

/// W, WD, LD for the side to act, before it rolls.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TavliProbs(pub [f32; TAVLI_OUTPUTS]);

impl TavliProbs {
    /// Cubeless value in points per game: 2W - 1 + WD - LD.
    #[inline]
    pub fn value(&self) -> f32 {
        let [w, wd, ld] = self.0;
        2.0 * w - 1.0 + wd - ld
    }

    /// The same chances seen from the other side.
    #[inline]
    pub fn invert(&self) -> TavliProbs {
        let [w, wd, ld] = self.0;
        TavliProbs([1.0 - w, ld, wd])
    }

    /// The certain outcome of a finished game, for the side to act.
    pub fn of_outcome(o: TavliResult) -> TavliProbs {
        match o {
            TavliResult::MoverWins(p) => TavliProbs([1.0, if p >= 2 { 1.0 } else { 0.0 }, 0.0]),
            TavliResult::OpponentWins(p) => TavliProbs([0.0, 0.0, if p >= 2 { 1.0 } else { 0.0 }]),
            TavliResult::Tie => TavliProbs([0.5, 0.0, 0.0]),
        }
    }

    /// Chances of the four scores (single win, double win, single loss, double loss), for
    /// match play; a Plakoto tie's half win is shared out as half a single win and half a
    /// single loss.
    pub fn scores(&self) -> [f64; 4] {
        let [w, wd, ld] = self.0.map(f64::from);
        let wd = wd.clamp(0.0, w);
        let ld = ld.clamp(0.0, 1.0 - w);
        [w - wd, wd, 1.0 - w - ld, ld]
    }
}

/// The encoded inputs of one position: the nonzero inputs, as (index, value).
#[derive(Debug, Clone)]
pub struct TavliInputs {
    index: Vec<u16>,
    value: Vec<f32>,
}

impl Default for TavliInputs {
    fn default() -> Self {
        TavliInputs {
            index: Vec::with_capacity(TAVLI_INPUTS),
            value: Vec::with_capacity(TAVLI_INPUTS),
        }
    }
}

impl TavliInputs {
    #[inline]
    fn push(&mut self, i: usize, v: f32) {
        if v != 0.0 {
            self.index.push(i as u16);
            self.value.push(v);
        }
    }

    /// Number of nonzero inputs.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Every input as a dense vector (for tests and tools).
    pub fn to_dense(&self) -> Vec<f32> {
        let mut v = vec![0.0; TAVLI_INPUTS];
        for (&i, &x) in self.index.iter().zip(&self.value) {
            v[i as usize] = x;
        }
        v
    }
}

mod features;

pub use features::{encode, is_race, side_features};

/// A game's net: backgammon's [`Mlp`] (its SIMD kernels, one hidden layer of sigmoid
/// units) with the Tavli inputs, of whose five outputs the three of the Tavli games are
/// used and trained (W, WD, LD in outputs 0, 1 and 3, where backgammon keeps win, win
/// gammon and lose gammon); the two backgammon outputs keep zero weights.
#[derive(Clone, PartialEq)]
pub struct TavliNet {
    variant: Variant,
    mlp: Mlp,
    /// Self-play games behind these weights.
    pub games: u64,
}

/// The outputs of the [`Mlp`] that hold W, WD and LD.
const USED: [usize; TAVLI_OUTPUTS] = [0, 1, 3];

impl fmt::Debug for TavliNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TavliNet({}, {}x{}x{}, {} games)",
            self.variant,
            TAVLI_INPUTS,
            self.mlp.hidden(),
            TAVLI_OUTPUTS,
            self.games
        )
    }
}

/// Scratch space of one evaluation or update.
#[derive(Debug, Clone, Default)]
pub struct TavliScratch {
    inputs: TavliInputs,
    hidden: Vec<f32>,
    back: Vec<f32>,
}

impl TavliNet {
    /// A new net of `variant` with uniform random weights in [-scale, scale]; `None` for
    /// backgammon or a hidden layer outside 1..=[`TAVLI_MAX_HIDDEN`].
    pub fn random(
        variant: Variant,
        hidden: usize,
        scale: f32,
        rng: &mut crate::game::Rng,
    ) -> Option<TavliNet> {
        encoding_id(variant)?;
        if hidden == 0 || hidden > TAVLI_MAX_HIDDEN {
            return None;
        }
        let mut u = || rng.uniform_f32(-scale, scale);
        let w1 = (0..TAVLI_INPUTS * hidden).map(|_| u()).collect();
        let b1 = (0..hidden).map(|_| u()).collect();
        let w2: Vec<f32> = (0..TAVLI_OUTPUTS * hidden).map(|_| u()).collect();
        let b2 = [u(), u(), u()];
        TavliNet::of_parts(variant, hidden, w1, b1, &w2, b2, 0)
    }

    /// The net of a game's three-output weights (`w2` and `b2` in the order W, WD, LD),
    /// placed in the [`Mlp`]'s outputs of the same meaning.
    fn of_parts(
        variant: Variant,
        hidden: usize,
        w1: Vec<f32>,
        b1: Vec<f32>,
        w2: &[f32],
        b2: [f32; TAVLI_OUTPUTS],
        games: u64,
    ) -> Option<TavliNet> {
        let mut wide = vec![0.0f32; OUTPUTS * hidden];
        let mut bias = [0.0f32; OUTPUTS];
        for (k, &o) in USED.iter().enumerate() {
            wide[o * hidden..(o + 1) * hidden]
                .copy_from_slice(w2.get(k * hidden..(k + 1) * hidden)?);
            bias[o] = b2[k];
        }
        let mlp = Mlp::from_parts(TAVLI_INPUTS, hidden, w1, b1, wide, bias)?;
        Some(TavliNet {
            variant,
            mlp,
            games,
        })
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    pub fn hidden(&self) -> usize {
        self.mlp.hidden()
    }

    /// Raw outputs (W, WD, LD) for encoded inputs; the hidden activations are left in
    /// `hidden`.
    fn forward(&self, x: &TavliInputs, hidden: &mut Vec<f32>) -> [f32; TAVLI_OUTPUTS] {
        hidden.resize(self.mlp.hidden(), 0.0);
        let out = self.mlp.forward_sparse(&x.index, &x.value, hidden);
        USED.map(|o| out[o])
    }

    /// W, WD, LD of `pos` for the side to act: exact when the game is over, else the
    /// net's outputs made consistent (WD <= W, LD <= 1 - W, no double result a side can
    /// no longer score because the loser has borne a checker off).
    pub fn evaluate(&self, pos: &TavliPosition, s: &mut TavliScratch) -> TavliProbs {
        if let Some(o) = pos.result() {
            return TavliProbs::of_outcome(o);
        }
        encode(pos, &mut s.inputs);
        let raw = self.forward(&s.inputs, &mut s.hidden);
        let w = raw[0].clamp(0.0, 1.0);
        let mut wd = raw[1].clamp(0.0, w);
        let mut ld = raw[2].clamp(0.0, 1.0 - w);
        if pos.off(1) > 0 {
            wd = 0.0;
        }
        if pos.off(0) > 0 {
            ld = 0.0;
        }
        TavliProbs([w, wd, ld])
    }

    /// One step of gradient descent on the cross-entropy between the outputs for `pos`
    /// and `target`, with learning rate `alpha`. Returns the outputs before the step.
    pub fn train(
        &mut self,
        pos: &TavliPosition,
        target: &TavliProbs,
        alpha: f32,
        s: &mut TavliScratch,
    ) -> [f32; TAVLI_OUTPUTS] {
        encode(pos, &mut s.inputs);
        let h = self.mlp.hidden();
        s.hidden.resize(h, 0.0);
        s.back.resize(h, 0.0);
        let mut wide = [0.0f32; OUTPUTS];
        for (k, &o) in USED.iter().enumerate() {
            wide[o] = target.0[k];
        }
        let out = self.mlp.cross_entropy_step(
            &s.inputs.index,
            &s.inputs.value,
            &wide,
            &USED,
            alpha,
            &mut s.hidden,
            &mut s.back,
        );
        USED.map(|o| out[o])
    }

    /// Serialises to the weights file format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        let id = encoding_id(self.variant).unwrap_or(0);
        b.extend_from_slice(&id.to_le_bytes());
        b.extend_from_slice(&self.games.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        for v in [
            TAVLI_PHASE,
            TAVLI_INPUTS as u32,
            self.mlp.hidden() as u32,
            TAVLI_OUTPUTS as u32,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let h = self.mlp.hidden();
        let w2 = USED.iter().flat_map(|&o| &self.mlp.w2[o * h..(o + 1) * h]);
        let b2 = USED.iter().map(|&o| &self.mlp.b2[o]);
        for v in self.mlp.w1.iter().chain(&self.mlp.b1).chain(w2).chain(b2) {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let c = fnv1a64(&b);
        b.extend_from_slice(&c.to_le_bytes());
        b
    }

    /// Parses and checks a weights file of a Tavli net.
    pub fn from_bytes(bytes: &[u8]) -> Result<TavliNet, WeightsError> {
        let mut pos = 0usize;
        let mut take = |n: usize| -> Result<&[u8], WeightsError> {
            let end = pos + n;
            if bytes.len() < end {
                return Err(WeightsError::Truncated {
                    needed: end,
                    found: bytes.len(),
                });
            }
            let s = &bytes[pos..end];
            pos = end;
            Ok(s)
        };
        let u32_at = |s: &[u8]| u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        if take(8)? != MAGIC {
            return Err(WeightsError::BadMagic);
        }
        let version = u32_at(take(4)?);
        if version != FORMAT_VERSION {
            return Err(WeightsError::UnsupportedVersion(version));
        }
        let id = u32_at(take(4)?);
        let Some(variant) = variant_of_encoding(id) else {
            return Err(if id == 1 || id == 2 {
                WeightsError::BadShape(format!(
                    "encoding {id} is a backgammon net's; a Tavli game needs its own net \
                     (encodings 10 Portes, 11 Plakoto, 12 Fevga)"
                ))
            } else {
                WeightsError::UnknownEncoding(id)
            });
        };
        let g = take(8)?;
        let games = u64::from_le_bytes([g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]]);
        let count = u32_at(take(4)?);
        if count != 1 {
            return Err(WeightsError::BadShape(format!(
                "{count} nets (a Tavli file holds 1)"
            )));
        }
        let phase = u32_at(take(4)?);
        let inputs = u32_at(take(4)?) as usize;
        let hidden = u32_at(take(4)?) as usize;
        let outputs = u32_at(take(4)?) as usize;
        if phase != TAVLI_PHASE || inputs != TAVLI_INPUTS || outputs != TAVLI_OUTPUTS {
            return Err(WeightsError::BadShape(format!(
                "net of phase {phase}, {inputs} inputs, {outputs} outputs (a Tavli net has \
                 phase {TAVLI_PHASE}, {TAVLI_INPUTS} inputs, {TAVLI_OUTPUTS} outputs)"
            )));
        }
        if hidden == 0 || hidden > TAVLI_MAX_HIDDEN {
            return Err(WeightsError::BadShape(format!(
                "{hidden} hidden units (1..={TAVLI_MAX_HIDDEN})"
            )));
        }
        let floats = inputs * hidden + hidden + outputs * hidden + outputs;
        let body_end = pos + floats * 4;
        if bytes.len() < body_end + 8 {
            return Err(WeightsError::Truncated {
                needed: body_end + 8,
                found: bytes.len(),
            });
        }
        let c = &bytes[body_end..body_end + 8];
        let stored = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let computed = fnv1a64(&bytes[..body_end]);
        if stored != computed {
            return Err(WeightsError::ChecksumMismatch { stored, computed });
        }
        if bytes.len() > body_end + 8 {
            return Err(WeightsError::TrailingBytes(bytes.len() - body_end - 8));
        }
        let values: Vec<f32> = bytes[pos..body_end]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if values.iter().any(|v| !v.is_finite()) {
            return Err(WeightsError::BadShape("a weight is not finite".into()));
        }
        let (w1, rest) = values.split_at(inputs * hidden);
        let (b1, rest) = rest.split_at(hidden);
        let (w2, b2) = rest.split_at(outputs * hidden);
        TavliNet::of_parts(
            variant,
            hidden,
            w1.to_vec(),
            b1.to_vec(),
            w2,
            [b2[0], b2[1], b2[2]],
            games,
        )
        .ok_or_else(|| WeightsError::BadShape(format!("{hidden} hidden units")))
    }

    /// The net compiled into the binary for `variant` (Plakoto and Fevga; Portes plays
    /// with the backgammon nets).
    pub fn shipped(variant: Variant) -> Result<TavliNet, WeightsError> {
        let bytes: &[u8] = match variant {
            Variant::Plakoto => PLAKOTO_WEIGHTS,
            Variant::Fevga => FEVGA_WEIGHTS,
            _ => {
                return Err(WeightsError::BadShape(format!(
                    "no Tavli net is shipped for {variant}"
                )))
            }
        };
        TavliNet::from_bytes(bytes)
    }

    /// Reads and checks a weights file.
    pub fn load(path: &Path) -> Result<TavliNet, WeightsError> {
        TavliNet::from_bytes(&super::weights::read_file(path)?)
    }

    /// Writes the file atomically (a temporary file renamed over the target).
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        super::weights::write_file(path, &self.to_bytes())
    }
}

/// The shipped nets (weights/tavli-*.sgnet; docs/TRAINING.md says how they were made).
static PLAKOTO_WEIGHTS: &[u8] = include_bytes!("../../weights/tavli-plakoto.sgnet");
static FEVGA_WEIGHTS: &[u8] = include_bytes!("../../weights/tavli-fevga.sgnet");

/// The evaluator behind a net player.
#[derive(Clone, Debug)]
pub enum TavliNets {
    /// Backgammon's nets on Portes' checkers.
    Backgammon(Arc<NeuralEvaluator>),
    /// A Tavli net of the game.
    Tavli(Arc<TavliNet>),
}

impl TavliNets {
    /// Loads the nets of `path` (or the game's shipped ones) for `variant`: a Tavli net
    /// must be the game's own; backgammon nets fit Portes only.
    pub fn load(variant: Variant, path: Option<&str>) -> Result<TavliNets, String> {
        let path = match (path, variant) {
            (Some(p), _) => std::path::PathBuf::from(p),
            (None, Variant::Portes) => {
                return Ok(TavliNets::Backgammon(Arc::new(
                    NeuralEvaluator::default_nets().map_err(|e| e.to_string())?,
                )))
            }
            (None, v) => {
                return TavliNet::shipped(v)
                    .map(|n| TavliNets::Tavli(Arc::new(n)))
                    .map_err(|e| format!("the shipped {v} net: {e}"))
            }
        };
        let bytes =
            std::fs::read(&path).map_err(|e| format!("weights file {}: {e}", path.display()))?;
        match TavliNet::from_bytes(&bytes) {
            Ok(net) if net.variant() == variant => Ok(TavliNets::Tavli(Arc::new(net))),
            Ok(net) => Err(format!(
                "{} holds a {} net, not a {variant} one",
                path.display(),
                net.variant()
            )),
            Err(tavli_err) if variant == Variant::Portes => {
                match crate::eval::NetSet::from_bytes(&bytes) {
                    Ok(nets) => Ok(TavliNets::Backgammon(Arc::new(NeuralEvaluator::new(
                        nets,
                        path.display().to_string(),
                    )))),
                    Err(_) => Err(format!("{}: {tavli_err}", path.display())),
                }
            }
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// W, WD, LD of `pos` for its side to act (exact when the game is over).
    pub fn probs(&self, pos: &TavliPosition, scratch: &mut TavliScratch) -> TavliProbs {
        match self {
            TavliNets::Tavli(net) => net.evaluate(pos, scratch),
            TavliNets::Backgammon(ev) => {
                if let Some(o) = pos.result() {
                    return TavliProbs::of_outcome(o);
                }
                match pos.to_backgammon() {
                    Some(bg) => TavliProbs::of_probabilities(&ev.evaluate(&bg)),
                    None => TavliProbs([0.5, 0.0, 0.0]),
                }
            }
        }
    }
}

impl TavliProbs {
    /// The same chances as the five probabilities every evaluator gives: no backgammons
    /// in the Tavli games.
    #[inline]
    pub fn to_probabilities(self) -> super::Probabilities {
        let [w, wd, ld] = self.0;
        super::Probabilities([w, wd, 0.0, ld, 0.0])
    }

    /// The Tavli games' three chances of five probabilities (a backgammon counts as a
    /// double game): the inverse of [`TavliProbs::to_probabilities`].
    #[inline]
    pub fn of_probabilities(p: &super::Probabilities) -> TavliProbs {
        TavliProbs([p.0[0], p.0[1], p.0[3]])
    }
}

thread_local! {
    /// One evaluation's scratch space per thread, for evaluations through [`Evaluator`].
    static SCRATCH: std::cell::RefCell<TavliScratch> = std::cell::RefCell::new(TavliScratch::default());
}

impl Evaluator<TavliPosition> for TavliNets {
    fn evaluate(&self, pos: &TavliPosition) -> super::Probabilities {
        SCRATCH
            .with(|s| match s.try_borrow_mut() {
                Ok(mut scratch) => self.probs(pos, &mut scratch),
                // Never nested; should it be, a fresh buffer gives the same answer.
                Err(_) => self.probs(pos, &mut TavliScratch::default()),
            })
            .to_probabilities()
    }

    fn name(&self) -> String {
        match self {
            TavliNets::Backgammon(ev) => format!("portes:{}", ev.name()),
            TavliNets::Tavli(net) => format!(
                "tavli:{}:{}:{:016x}",
                net.variant(),
                net.hidden(),
                fnv1a64(&net.to_bytes())
            ),
        }
    }
}

/// The phase tag of a Tavli net in the file (backgammon's are 0 contact, 1 race).
const TAVLI_PHASE: u32 = 2;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::Rng;
    use crate::tavli::parse_position_string;

    fn pos(text: &str) -> TavliPosition {
        parse_position_string(text).unwrap()
    }

    #[test]
    fn the_file_round_trips_and_refuses_the_wrong_kind() {
        let mut rng = Rng::seeded(1);
        let mut net = TavliNet::random(Variant::Plakoto, 8, 0.5, &mut rng).unwrap();
        net.games = 77;
        let bytes = net.to_bytes();
        assert_eq!(TavliNet::from_bytes(&bytes).unwrap(), net);
        // Backgammon's loader refuses a Tavli net, and the other way round.
        assert!(matches!(
            crate::eval::NetSet::from_bytes(&bytes),
            Err(WeightsError::UnknownEncoding(11))
        ));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 20;
        flipped[last] ^= 1;
        assert!(matches!(
            TavliNet::from_bytes(&flipped),
            Err(WeightsError::ChecksumMismatch { .. })
        ));
        assert!(TavliNet::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(TavliNet::random(Variant::Backgammon, 8, 0.5, &mut rng).is_none());
    }

    #[test]
    fn outcomes_and_inversion() {
        let win2 = TavliProbs::of_outcome(TavliResult::MoverWins(2));
        assert_eq!(win2.value(), 2.0);
        assert_eq!(win2.invert().value(), -2.0);
        assert_eq!(TavliProbs::of_outcome(TavliResult::Tie).value(), 0.0);
        let p = TavliProbs([0.6, 0.2, 0.1]);
        let s = p.scores();
        assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-6);
        assert!((p.value() + p.invert().value()).abs() < 1e-6);
    }

    #[test]
    fn shots_count_the_rolls_that_reach_a_lone_checker() {
        // Portes: the mover's lone checker on its 6-point, one opposing checker on the
        // mover's 1-point (its own 24), five pips behind. Every roll with a 5 (11), 4-1
        // (2) and 3-2 (2) hits; 1-1 moves at most four pips.
        let p = pos("portes:8-14,6-1:24-1,13-14");
        let f = side_features(&p);
        assert!((f[4] - 15.0 / 36.0).abs() < 1e-6, "{}", f[4]);
        // With the mover's 3 and 4 points made, 3-2 cannot pass (both ways land on a
        // block); 4-1 still passes through 5 or 2.
        let q = pos("portes:8-10,6-1,4-2,3-2:24-1,13-14");
        let g = side_features(&q);
        assert!((g[4] - 13.0 / 36.0).abs() < 1e-6, "{}", g[4]);
        assert_eq!(g[7], 2.0 / 6.0);
    }

    #[test]
    fn plakoto_features_see_pins_and_the_stack_behind_them() {
        // The mover pins the opponent's checker on its own 3-point (the opponent's 22)
        // with two checkers there, four on 5 and nine on its 24.
        let p = pos("plakoto:24-9,5-4,3-2:24-14,22-1p");
        let f = side_features(&p);
        assert_eq!(f[8], 0.0);
        // On the pin's point and behind it: 2 + 4 + 9, the pinner excluded.
        assert!((f[10] - 14.0 / 14.0).abs() < 1e-6, "{}", f[10]);
        let o = side_features(&p.swap());
        assert!((o[8] - 1.0 / 3.0).abs() < 1e-6);
        // The pinned checker is no target: no shot at the pinned side.
        assert_eq!(o[4], 0.0);
    }

    #[test]
    fn fevga_primes_and_the_runner() {
        let start = TavliPosition::start(Variant::Fevga);
        let f = side_features(&start);
        assert_eq!(f[15], 1.0);
        assert_eq!(f[12], 0.0);
        // Five points in a row (13..=17): the five-point prime is made. The six-point one
        // misses 18 (12 is the opponent's): checkers on 20 and 24 fill it with any 2 or 6
        // (20 rolls), 1-1, 3-3 (24, 21, 18) and 5-1 (2 rolls): 24 rolls.
        let p = pos("fevga:24-9,20-1,17-1,16-1,15-1,14-1,13-1:24-15");
        let f = side_features(&p);
        assert_eq!(f[13], 1.0);
        assert!((f[12] - 24.0 / 36.0).abs() < 1e-6, "{}", f[12]);
        assert_eq!(f[11], 5.0 / 6.0);
    }

    #[test]
    fn races_and_encoding_sizes() {
        assert!(!is_race(&TavliPosition::start(Variant::Portes)));
        assert!(!is_race(&TavliPosition::start(Variant::Fevga)));
        assert!(is_race(&pos("fevga:1-15:2-15")));
        for v in [Variant::Portes, Variant::Plakoto, Variant::Fevga] {
            let mut x = TavliInputs::default();
            encode(&TavliPosition::start(v), &mut x);
            let d = x.to_dense();
            assert_eq!(d.len(), TAVLI_INPUTS);
            assert!(d.iter().all(|v| v.is_finite() && (0.0..=6.5).contains(v)));
        }
    }

    #[test]
    fn training_moves_the_outputs_toward_the_target() {
        let mut rng = Rng::seeded(3);
        let mut net = TavliNet::random(Variant::Fevga, 16, 0.1, &mut rng).unwrap();
        let mut s = TavliScratch::default();
        let p = TavliPosition::start(Variant::Fevga);
        let target = TavliProbs([1.0, 1.0, 0.0]);
        let before = net.evaluate(&p, &mut s);
        for _ in 0..50 {
            net.train(&p, &target, 0.1, &mut s);
        }
        let after = net.evaluate(&p, &mut s);
        assert!(after.0[0] > before.0[0] && after.0[1] > before.0[1]);
        assert!(after.0[2] < before.0[2]);
    }
}
