//! The weights file: both nets (contact and race) in one versioned, checksummed file.
//!
//! Layout, all integers and floats little-endian:
//!
//! ```text
//!   8 bytes   magic "SGNETS\r\n" (the CR LF catches text-mode transfers)
//!   u32       format version (FORMAT_VERSION)
//!   u32       input-encoding id (encoding::Encoding::id: 1 or 2, the contact net's
//!             inputs, the race net reading encoding 1; 3 for the pruning nets, the
//!             board block alone, which both nets read)
//!   u64       self-play games the nets were trained on (informational)
//!   u32       number of nets (2)
//!   per net:  u32 phase (0 contact, 1 race), u32 inputs, u32 hidden, u32 outputs (5)
//!   per net:  f32 w1[inputs * hidden] (input-major), b1[hidden], w2[5 * hidden], b2[5]
//!   u64       FNV-1a 64 checksum of every byte before it
//! ```
//!
//! A file is refused, with a [`WeightsError`] saying why, unless every part checks out:
//! a net with the wrong encoding would silently play nonsense. An encoding id this build
//! does not know is refused, and so is a net whose input count is not its encoding's.

use std::fmt;
use std::path::Path;

use super::encoding::Encoding;
use super::net::{Mlp, MAX_HIDDEN, OUTPUTS};

/// The file's magic bytes.
pub const MAGIC: [u8; 8] = *b"SGNETS\r\n";
/// The current format version.
pub const FORMAT_VERSION: u32 = 1;

/// Why a weights file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WeightsError {
    /// The file could not be read or written.
    Io(String),
    /// The file ends before the part named.
    Truncated { needed: usize, found: usize },
    /// The first bytes are not [`MAGIC`].
    BadMagic,
    /// A format version this program does not read.
    UnsupportedVersion(u32),
    /// The nets read an input encoding this program does not compute.
    UnknownEncoding(u32),
    /// Layer sizes that do not fit this program (wrong input count, too many units...).
    BadShape(String),
    /// The checksum does not match the contents: the file is corrupt.
    ChecksumMismatch { stored: u64, computed: u64 },
    /// Bytes after the checksum.
    TrailingBytes(usize),
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::Io(e) => write!(f, "weights file: {e}"),
            WeightsError::Truncated { needed, found } => write!(
                f,
                "weights file truncated: needs at least {needed} bytes, has {found}"
            ),
            WeightsError::BadMagic => write!(f, "not a stargammon weights file (bad magic)"),
            WeightsError::UnsupportedVersion(v) => write!(
                f,
                "weights file format version {v} is not supported (this program reads {FORMAT_VERSION})"
            ),
            WeightsError::UnknownEncoding(found) => write!(
                f,
                "weights file uses input encoding {found}, which this program does not know \
                 (it reads encodings {}); a newer stargammon may read it",
                known_encodings()
            ),
            WeightsError::BadShape(s) => write!(f, "weights file has unusable layer sizes: {s}"),
            WeightsError::ChecksumMismatch { stored, computed } => write!(
                f,
                "weights file is corrupt: checksum {stored:016x} stored, {computed:016x} computed"
            ),
            WeightsError::TrailingBytes(n) => {
                write!(f, "weights file has {n} unexpected bytes after its checksum")
            }
        }
    }
}

impl std::error::Error for WeightsError {}

/// The ids this build reads, as "1, 2".
fn known_encodings() -> String {
    Encoding::ALL
        .iter()
        .map(|e| e.id().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// FNV-1a, 64-bit.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The contact and race nets as stored together.
#[derive(Debug, Clone, PartialEq)]
pub struct NetSet {
    /// The contact net's input encoding (the race net reads encoding 1).
    pub encoding: Encoding,
    pub contact: Mlp,
    pub race: Mlp,
    /// Self-play games behind these weights.
    pub games: u64,
}

impl NetSet {
    /// Serialises to the file format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        b.extend_from_slice(&self.encoding.id().to_le_bytes());
        b.extend_from_slice(&self.games.to_le_bytes());
        b.extend_from_slice(&2u32.to_le_bytes());
        for (phase, net) in [(0u32, &self.contact), (1u32, &self.race)] {
            for v in [phase, net.inputs as u32, net.hidden as u32, OUTPUTS as u32] {
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        for net in [&self.contact, &self.race] {
            for part in [&net.w1[..], &net.b1[..], &net.w2[..], &net.b2[..]] {
                for v in part {
                    b.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        let c = fnv1a64(&b);
        b.extend_from_slice(&c.to_le_bytes());
        b
    }

    /// Parses and checks the file format.
    pub fn from_bytes(bytes: &[u8]) -> Result<NetSet, WeightsError> {
        let mut r = Reader { bytes, pos: 0 };
        let magic = r.take(8)?;
        if magic != MAGIC {
            return Err(WeightsError::BadMagic);
        }
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(WeightsError::UnsupportedVersion(version));
        }
        let id = r.u32()?;
        let encoding = Encoding::from_id(id).ok_or(WeightsError::UnknownEncoding(id))?;
        let games = r.u64()?;
        let count = r.u32()?;
        if count != 2 {
            return Err(WeightsError::BadShape(format!("{count} nets (expected 2)")));
        }
        let mut shapes = [(0usize, 0usize); 2];
        for (expected_phase, shape) in shapes.iter_mut().enumerate() {
            let phase = r.u32()?;
            let inputs = r.u32()? as usize;
            let hidden = r.u32()? as usize;
            let outputs = r.u32()? as usize;
            if phase != expected_phase as u32 {
                return Err(WeightsError::BadShape(format!(
                    "net {expected_phase} has phase tag {phase}"
                )));
            }
            let (want, net) = if expected_phase == 0 {
                (encoding.contact_inputs(), "contact")
            } else {
                (encoding.race_inputs(), "race")
            };
            if inputs != want {
                return Err(WeightsError::BadShape(format!(
                    "the {net} net has {inputs} inputs, encoding {id} gives it {want}"
                )));
            }
            if hidden == 0 || hidden > MAX_HIDDEN {
                return Err(WeightsError::BadShape(format!(
                    "{hidden} hidden units (1..={MAX_HIDDEN})"
                )));
            }
            if outputs != OUTPUTS {
                return Err(WeightsError::BadShape(format!(
                    "{outputs} outputs (expected {OUTPUTS})"
                )));
            }
            *shape = (inputs, hidden);
        }
        let floats: usize = shapes
            .iter()
            .map(|&(i, h)| i * h + h + OUTPUTS * h + OUTPUTS)
            .sum();
        let body_end = r.pos + floats * 4;
        if bytes.len() < body_end + 8 {
            return Err(WeightsError::Truncated {
                needed: body_end + 8,
                found: bytes.len(),
            });
        }
        let stored = u64::from_le_bytes(le8(&bytes[body_end..body_end + 8]));
        let computed = fnv1a64(&bytes[..body_end]);
        if stored != computed {
            return Err(WeightsError::ChecksumMismatch { stored, computed });
        }
        if bytes.len() > body_end + 8 {
            return Err(WeightsError::TrailingBytes(bytes.len() - body_end - 8));
        }
        let mut nets = Vec::with_capacity(2);
        for &(inputs, hidden) in &shapes {
            let w1 = r.floats(inputs * hidden)?;
            let b1 = r.floats(hidden)?;
            let w2 = r.floats(OUTPUTS * hidden)?;
            let b2v = r.floats(OUTPUTS)?;
            let mut b2 = [0.0; OUTPUTS];
            b2.copy_from_slice(&b2v);
            if w1
                .iter()
                .chain(&b1)
                .chain(&w2)
                .chain(&b2)
                .any(|v| !v.is_finite())
            {
                return Err(WeightsError::BadShape("a weight is not finite".into()));
            }
            let net = Mlp::from_parts(inputs, hidden, w1, b1, w2, b2)
                .ok_or_else(|| WeightsError::BadShape("inconsistent layer sizes".into()))?;
            nets.push(net);
        }
        let race = nets
            .pop()
            .ok_or(WeightsError::BadShape("missing net".into()))?;
        let contact = nets
            .pop()
            .ok_or(WeightsError::BadShape("missing net".into()))?;
        Ok(NetSet {
            encoding,
            contact,
            race,
            games,
        })
    }

    /// Random nets of the given sizes (weights uniform in +/-0.1, seeded), the contact
    /// net reading `encoding`: the start of a net of a shape no file has yet.
    pub fn random(
        encoding: Encoding,
        contact_hidden: usize,
        race_hidden: usize,
        seed: u64,
    ) -> Result<NetSet, WeightsError> {
        for h in [contact_hidden, race_hidden] {
            if h == 0 || h > MAX_HIDDEN {
                return Err(WeightsError::BadShape(format!(
                    "{h} hidden units (1..={MAX_HIDDEN})"
                )));
            }
        }
        let mut rng = crate::game::Rng::seeded(seed);
        let contact = Mlp::random(encoding.contact_inputs(), contact_hidden, 0.1, &mut rng);
        let race = Mlp::random(encoding.race_inputs(), race_hidden, 0.1, &mut rng);
        Ok(NetSet {
            encoding,
            contact,
            race,
            games: 0,
        })
    }

    /// These nets with the contact net read through `encoding` and given `contact_hidden`
    /// hidden units, and the race net given `race_hidden`, evaluating every position as
    /// before ([`Mlp::widened`]: what is added starts with no say). An encoding whose inputs
    /// do not begin with the current ones (only encoding 1 is the prefix of another), or a
    /// smaller hidden layer, is refused.
    pub fn widened(
        &self,
        encoding: Encoding,
        contact_hidden: usize,
        race_hidden: usize,
        seed: u64,
    ) -> Result<NetSet, WeightsError> {
        let prefix = self.encoding == encoding
            || (self.encoding == Encoding::V1 && encoding != Encoding::Board);
        if !prefix {
            return Err(WeightsError::BadShape(format!(
                "encoding {} cannot be widened to encoding {}",
                self.encoding.id(),
                encoding.id()
            )));
        }
        let mut rng = crate::game::Rng::seeded(seed);
        let contact = self
            .contact
            .widened(encoding.contact_inputs(), contact_hidden, 0.1, &mut rng)
            .ok_or_else(|| {
                WeightsError::BadShape(format!(
                    "the contact net ({}x{}) cannot be widened to {}x{contact_hidden}",
                    self.contact.inputs(),
                    self.contact.hidden(),
                    encoding.contact_inputs()
                ))
            })?;
        let race = self
            .race
            .widened(self.race.inputs(), race_hidden, 0.1, &mut rng)
            .ok_or_else(|| {
                WeightsError::BadShape(format!(
                    "the race net ({}x{}) cannot be widened to {race_hidden} hidden units",
                    self.race.inputs(),
                    self.race.hidden(),
                ))
            })?;
        Ok(NetSet {
            encoding,
            contact,
            race,
            games: self.games,
        })
    }

    /// Reads and checks a weights file.
    pub fn load(path: &Path) -> Result<NetSet, WeightsError> {
        NetSet::from_bytes(&read_file(path)?)
    }

    /// Writes the file atomically (a temporary file renamed over the target).
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        write_file(path, &self.to_bytes())
    }
}

/// The bytes of a weights file.
pub fn read_file(path: &Path) -> Result<Vec<u8>, WeightsError> {
    std::fs::read(path).map_err(|e| WeightsError::Io(format!("{}: {e}", path.display())))
}

/// Writes a weights file atomically (a temporary file renamed over the target).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), WeightsError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).map_err(|e| WeightsError::Io(format!("{}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(|e| WeightsError::Io(format!("{}: {e}", path.display())))
}

fn le8(b: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    a
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], WeightsError> {
        if self.bytes.len() < self.pos + n {
            return Err(WeightsError::Truncated {
                needed: self.pos + n,
                found: self.bytes.len(),
            });
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, WeightsError> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    fn u64(&mut self) -> Result<u64, WeightsError> {
        let s = self.take(8)?;
        Ok(u64::from_le_bytes(le8(s)))
    }

    fn floats(&mut self, n: usize) -> Result<Vec<f32>, WeightsError> {
        let s = self.take(n * 4)?;
        Ok(s.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}
