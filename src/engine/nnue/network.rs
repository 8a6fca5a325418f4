//! The network's weights, its file format, and the output layer.
//!
//! File layout (little-endian), described for users in `docs/network.md`:
//! magic `VATONNUE`, format version (u32), inputs, hidden size, output buckets, QA, QB and
//! the evaluation scale (u32 each), the training summary (positions u64, epochs u32,
//! validation loss f32, description length u32 and UTF-8 text), then the feature weights
//! (inputs x hidden i16, one input's column after another), the feature biases (hidden
//! i16), the output weights (buckets x 2 hidden i16: the side to move's half first), the
//! output biases (buckets i32), and a checksum (u64) of every byte before it: XXH3-64
//! from version 3 on, FNV-1a before. Version 2 adds the second layer's size (u32, 0 for
//! none) after the evaluation scale, and, when it has one, its weights (size x 2 hidden
//! i16), biases (size i32) and output weights (buckets x size i16) after the output
//! biases; files of versions 1 and 2 still load.

use super::features::INPUTS;
use super::simd::Kernel;
use super::{BUCKETS, EVAL_SCALE, HIDDEN, LAYER2, QA, QB};
use crate::safe_file::{checksum, legacy_fnv1a, write_atomically};
use anyhow::{Context, Result, bail};
use std::path::Path;

const MAGIC: [u8; 8] = *b"VATONNUE";
/// Bump when the layout or the meaning of a field changes.
pub const FORMAT_VERSION: u32 = 3;
/// The first version summed with [`checksum`] rather than FNV-1a.
const XXH3_SINCE: u32 = 3;
/// The longest description a file may carry.
const MAX_DESCRIPTION: usize = 4096;

/// What a network was trained on, as its file records it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrainingSummary {
    /// Positions in the training set.
    pub positions: u64,
    /// Passes over them.
    pub epochs: u32,
    /// Loss on the held-out positions at the end.
    pub validation_loss: f32,
    /// Free text: the data and the settings.
    pub description: String,
}

/// The optional second layer: [`LAYER2`] values, each a linear function of both clipped
/// accumulators (the side to move's first) and clipped itself, read by the output with
/// weights of its bucket.
#[derive(Clone, Debug, PartialEq)]
pub struct SecondLayer {
    /// Per value: the weights of the side to move's accumulator, then the other side's,
    /// in units of 1/QB.
    pub weights: [[i16; 2 * HIDDEN]; LAYER2],
    /// Per value, in units of 1/(QA QB).
    pub bias: [i32; LAYER2],
    /// Per bucket, the output's weight of each value, in units of 1/QB.
    pub output_weights: [[i16; LAYER2]; BUCKETS],
}

/// A quantised network: 2 x 45 inputs per perspective, a clipped-ReLU accumulator of
/// [`HIDDEN`] per perspective, one output per bucket of stone counts, and optionally a
/// [`SecondLayer`] in between.
#[derive(Clone)]
pub struct Network {
    /// Column of each input: added to the accumulator while the input is active.
    pub(super) feature_weights: Box<[[i16; HIDDEN]; INPUTS]>,
    pub(super) feature_bias: [i16; HIDDEN],
    /// Per bucket: the side to move's accumulator's weights, then the other side's.
    pub(super) output_weights: Box<[[i16; 2 * HIDDEN]; BUCKETS]>,
    pub(super) output_bias: [i32; BUCKETS],
    pub(super) second: Option<Box<SecondLayer>>,
    pub(super) kernel: Kernel,
    summary: TrainingSummary,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({INPUTS}x{HIDDEN}x{}x{BUCKETS}, {:?})",
            self.second_layer_size(),
            self.summary
        )
    }
}

/// The output bucket of a position with `stones` stones on the board.
#[inline]
pub fn bucket(stones: u32) -> usize {
    (stones.saturating_sub(1) as usize / 6).min(BUCKETS - 1)
}

/// The shape fields of the header: inputs, accumulator size, buckets, QA, QB, scale.
const ARCHITECTURE: [u32; 6] = [
    INPUTS as u32,
    HIDDEN as u32,
    BUCKETS as u32,
    QA as u32,
    QB as u32,
    EVAL_SCALE as u32,
];

/// Reads little-endian fields in order, failing on a short file.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        if self.bytes.len() - self.at < n {
            bail!("truncated at byte {}", self.at);
        }
        let slice = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(slice)
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn i16s(&mut self, out: &mut [i16]) -> Result<()> {
        let n = out.len();
        for (v, b) in out.iter_mut().zip(self.take(2 * n)?.chunks_exact(2)) {
            *v = i16::from_le_bytes([b[0], b[1]]);
        }
        Ok(())
    }
}

impl Network {
    /// A network from its quantised parts.
    pub fn from_parts(
        feature_weights: Box<[[i16; HIDDEN]; INPUTS]>,
        feature_bias: [i16; HIDDEN],
        output_weights: Box<[[i16; 2 * HIDDEN]; BUCKETS]>,
        output_bias: [i32; BUCKETS],
        summary: TrainingSummary,
    ) -> Network {
        Network {
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            second: None,
            kernel: Kernel::detect(),
            summary,
        }
    }

    /// The same network with (or without) a second layer.
    pub fn with_second_layer(mut self, second: Option<Box<SecondLayer>>) -> Network {
        self.second = second;
        self
    }

    /// Whether the network has a second layer.
    pub fn has_second_layer(&self) -> bool {
        self.second.is_some()
    }

    /// The second layer's size as the file records it: 0 for none.
    fn second_layer_size(&self) -> usize {
        if self.has_second_layer() { LAYER2 } else { 0 }
    }

    /// What the network was trained on.
    pub fn summary(&self) -> &TrainingSummary {
        &self.summary
    }

    /// The same network computed with plain loops, for checking the vector kernels.
    pub fn with_scalar_kernel(mut self) -> Network {
        self.kernel = Kernel::Scalar;
        self
    }

    /// The file's bytes, checksum included.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(2 * INPUTS * HIDDEN + 4096);
        b.extend_from_slice(&MAGIC);
        for v in std::iter::once(FORMAT_VERSION)
            .chain(ARCHITECTURE)
            .chain([self.second_layer_size() as u32])
        {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let s = &self.summary;
        b.extend_from_slice(&s.positions.to_le_bytes());
        b.extend_from_slice(&s.epochs.to_le_bytes());
        b.extend_from_slice(&s.validation_loss.to_bits().to_le_bytes());
        let text = &s.description.as_bytes()[..s.description.len().min(MAX_DESCRIPTION)];
        b.extend_from_slice(&(text.len() as u32).to_le_bytes());
        b.extend_from_slice(text);
        let i16s = |b: &mut Vec<u8>, values: &[i16]| {
            for v in values {
                b.extend_from_slice(&v.to_le_bytes());
            }
        };
        for column in self.feature_weights.iter() {
            i16s(&mut b, column);
        }
        i16s(&mut b, &self.feature_bias);
        for row in self.output_weights.iter() {
            i16s(&mut b, row);
        }
        for v in self.output_bias {
            b.extend_from_slice(&v.to_le_bytes());
        }
        if let Some(layer) = &self.second {
            for row in &layer.weights {
                i16s(&mut b, row);
            }
            for v in layer.bias {
                b.extend_from_slice(&v.to_le_bytes());
            }
            for row in &layer.output_weights {
                i16s(&mut b, row);
            }
        }
        let sum = checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads a network file's bytes; a foreign, damaged or mismatched file is refused
    /// with a one-line reason.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network> {
        if bytes.len() < 8 || bytes[..8] != MAGIC {
            bail!("not a Vato network file (no VATONNUE header)");
        }
        if bytes.len() < 16 {
            bail!("truncated header");
        }
        let (body, stored) = bytes.split_at(bytes.len() - 8);
        let mut r = Reader { bytes: body, at: 8 };
        let version = r.u32()?;
        if !(1..=FORMAT_VERSION).contains(&version) {
            bail!("format version {version}, this Vato reads 1 to {FORMAT_VERSION}");
        }
        let shape = [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
        let expected = ARCHITECTURE;
        if shape != expected {
            bail!(
                "architecture {}x{}x{} (QA {}, QB {}, scale {}), this Vato runs {}x{}x{} \
                 (QA {}, QB {}, scale {})",
                shape[0],
                shape[1],
                shape[2],
                shape[3],
                shape[4],
                shape[5],
                expected[0],
                expected[1],
                expected[2],
                expected[3],
                expected[4],
                expected[5]
            );
        }
        let second = if version >= 2 { r.u32()? as usize } else { 0 };
        if second != 0 && second != LAYER2 {
            bail!("a second layer of {second} values, this Vato runs {LAYER2} (or none)");
        }
        let sum = if version >= XXH3_SINCE {
            checksum(body)
        } else {
            legacy_fnv1a(&[body])
        };
        if sum != u64::from_le_bytes(stored.try_into().unwrap()) {
            bail!("checksum mismatch (the file is damaged)");
        }
        let positions = r.u64()?;
        let epochs = r.u32()?;
        let validation_loss = f32::from_bits(r.u32()?);
        let length = r.u32()? as usize;
        if length > MAX_DESCRIPTION {
            bail!("description of {length} bytes (at most {MAX_DESCRIPTION})");
        }
        let description = String::from_utf8_lossy(r.take(length)?).into_owned();
        let mut feature_weights = Box::new([[0i16; HIDDEN]; INPUTS]);
        for column in feature_weights.iter_mut() {
            r.i16s(column)?;
        }
        let mut feature_bias = [0i16; HIDDEN];
        r.i16s(&mut feature_bias)?;
        let mut output_weights = Box::new([[0i16; 2 * HIDDEN]; BUCKETS]);
        for row in output_weights.iter_mut() {
            r.i16s(row)?;
        }
        let mut output_bias = [0i32; BUCKETS];
        for v in output_bias.iter_mut() {
            *v = r.u32()? as i32;
        }
        let second = if second == 0 {
            None
        } else {
            let mut layer = Box::new(SecondLayer {
                weights: [[0; 2 * HIDDEN]; LAYER2],
                bias: [0; LAYER2],
                output_weights: [[0; LAYER2]; BUCKETS],
            });
            for row in layer.weights.iter_mut() {
                r.i16s(row)?;
            }
            for v in layer.bias.iter_mut() {
                *v = r.u32()? as i32;
            }
            for row in layer.output_weights.iter_mut() {
                r.i16s(row)?;
            }
            Some(layer)
        };
        if r.at != body.len() {
            bail!("{} bytes too many", body.len() - r.at);
        }
        Ok(Network::from_parts(
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            TrainingSummary {
                positions,
                epochs,
                validation_loss,
                description,
            },
        )
        .with_second_layer(second))
    }

    /// Reads a network file.
    pub fn load(path: &Path) -> Result<Network> {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        Network::from_bytes(&bytes).with_context(|| format!("{}", path.display()))
    }

    /// Writes the network to `path` through a temporary file renamed when complete.
    pub fn save(&self, path: &Path) -> Result<()> {
        write_atomically(path, &self.to_bytes())
    }
}
