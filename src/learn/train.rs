//! `vato train`: fits the network to self-play data on the CPU, in 32-bit floats, and
//! writes it quantised.
//!
//! The network is the engine's ([`crate::engine::nnue`]): 90 inputs per perspective, an
//! accumulator of `HIDDEN` per side clipped to [0, 1], one linear output per bucket of stone
//! counts, and with `second_layer` `LAYER2` clipped values in between that the output reads
//! besides the accumulator. The output `y` is a score of `y * EVAL_SCALE` hundredths of a
//! stone; the loss is the squared distance between `sigmoid(score / SCORE_SCALE)` and the
//! target, a blend of the same sigmoid of the search's score and the game's result (the
//! exact result for positions labelled by the tables). The inputs are sparse (at most 44 of
//! 90 active), so a hand-written loop over the active inputs beats a dense tensor library
//! here; each batch is split between threads, each with its own gradient, summed for one
//! Adam step.

use super::data::Record;
use crate::engine::nnue::features::{INPUTS, feature};
use crate::engine::nnue::network::SecondLayer;
use crate::engine::nnue::network::bucket;
use crate::engine::nnue::{BUCKETS, EVAL_SCALE, HIDDEN, LAYER2, Network, QA, QB, TrainingSummary};
use crate::progress::JobProgress;
use crate::random::Rng;
use crate::rules::geometry::{NUM_SQUARES, Square};
use crate::rules::position::Color;
use crate::safe_file::{checksum, legacy_fnv1a, write_atomically};
use anyhow::{Context, Result, bail};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Hundredths of a stone per unit of the sigmoid's argument: a score of this many is a
/// 73% expected result.
pub const SCORE_SCALE: f32 = 200.0;
/// Feature weights stay within this, so that 44 of them and a bias fit the quantised
/// accumulator's 16 bits.
const FEATURE_WEIGHT_LIMIT: f32 = 1.98;
/// Output weights stay within this: times QB it fits 16 bits, and 256 products with the
/// clipped accumulator (at most 255 each) fit the 32-bit sum.
const OUTPUT_WEIGHT_LIMIT: f32 = 8.0;

const FEATURE_WEIGHTS: usize = 0;
const FEATURE_BIAS: usize = FEATURE_WEIGHTS + INPUTS * HIDDEN;
const OUTPUT_WEIGHTS: usize = FEATURE_BIAS + HIDDEN;
const OUTPUT_BIAS: usize = OUTPUT_WEIGHTS + BUCKETS * 2 * HIDDEN;
/// Parameters of a network without the second layer.
const FIRST_LAYER_PARAMETERS: usize = OUTPUT_BIAS + BUCKETS;
// The optional second layer follows: its weights (one row of 2 x HIDDEN per value), its
// biases, and per bucket the output's weights of its values.
const LAYER2_WEIGHTS: usize = FIRST_LAYER_PARAMETERS;
const LAYER2_BIAS: usize = LAYER2_WEIGHTS + LAYER2 * 2 * HIDDEN;
const LAYER2_OUTPUT: usize = LAYER2_BIAS + LAYER2;
/// Parameters of a network with the second layer.
const TWO_LAYER_PARAMETERS: usize = LAYER2_OUTPUT + BUCKETS * LAYER2;

/// Whether a parameter vector holds a second layer.
fn has_second_layer(params: &[f32]) -> bool {
    params.len() == TWO_LAYER_PARAMETERS
}

/// How many parameters a network has, with or without the second layer.
fn parameter_count(second_layer: bool) -> usize {
    if second_layer {
        TWO_LAYER_PARAMETERS
    } else {
        FIRST_LAYER_PARAMETERS
    }
}

/// Training settings.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Passes over the training positions.
    pub epochs: u32,
    /// Positions per Adam step.
    pub batch: usize,
    /// Adam's step size at the start.
    pub learning_rate: f32,
    /// The epoch (from 0) from which the step size is a tenth; by default the last quarter.
    pub drop_epoch: Option<u32>,
    /// Weight of the search's score in the target; the rest is the game's result.
    pub lambda: f32,
    /// Share of the positions held out for validation.
    pub validation: f64,
    /// Threads per batch.
    pub threads: usize,
    /// Seed of the initial weights, the split and the order.
    pub seed: u64,
    /// Mirror each position by a random symmetry of the board (the four preserve the
    /// rules and the value).
    pub augment: bool,
    /// Add a second layer of [`LAYER2`] clipped values between the accumulator and the
    /// output (which keeps its direct weights from the accumulator as well).
    pub second_layer: bool,
    /// Where to keep the state after each epoch, to resume from.
    pub checkpoint: Option<PathBuf>,
    /// Whether to show progress and per-epoch lines on standard error.
    pub verbose: bool,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            epochs: 20,
            batch: 16_384,
            learning_rate: 1e-3,
            drop_epoch: None,
            lambda: 0.7,
            validation: 0.02,
            threads: 2,
            seed: 1,
            augment: true,
            second_layer: false,
            checkpoint: None,
            verbose: true,
        }
    }
}

/// The trainer's state: parameters and Adam's moments, all that a resumed run needs.
#[derive(Clone, Debug, PartialEq)]
struct State {
    epoch: u32,
    step: u64,
    params: Vec<f32>,
    m: Vec<f32>,
    v: Vec<f32>,
}

impl State {
    fn new(seed: u64, second_layer: bool) -> State {
        let parameters = parameter_count(second_layer);
        let mut rng = Rng::new(seed);
        let mut uniform = |limit: f32| (rng.next_unit() as f32 * 2.0 - 1.0) * limit;
        let mut params = vec![0.0f32; parameters];
        for p in &mut params[FEATURE_WEIGHTS..FEATURE_BIAS] {
            *p = uniform(0.1);
        }
        for p in &mut params[FEATURE_BIAS..OUTPUT_WEIGHTS] {
            *p = 0.25;
        }
        for p in &mut params[OUTPUT_WEIGHTS..OUTPUT_BIAS] {
            *p = uniform(1.0 / 16.0);
        }
        if second_layer {
            for p in &mut params[LAYER2_WEIGHTS..LAYER2_BIAS] {
                *p = uniform(1.0 / 16.0);
            }
            for p in &mut params[LAYER2_BIAS..LAYER2_OUTPUT] {
                *p = 0.25;
            }
            for p in &mut params[LAYER2_OUTPUT..] {
                *p = uniform(1.0 / 4.0);
            }
        }
        State {
            epoch: 0,
            step: 0,
            params,
            m: vec![0.0; parameters],
            v: vec![0.0; parameters],
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(16 + 12 * self.params.len() + 8);
        b.extend_from_slice(CHECKPOINT_MAGIC);
        b.extend_from_slice(&(self.params.len() as u64).to_le_bytes());
        b.extend_from_slice(&self.epoch.to_le_bytes());
        b.extend_from_slice(&self.step.to_le_bytes());
        for list in [&self.params, &self.m, &self.v] {
            for x in list.iter() {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    fn from_bytes(bytes: &[u8], parameters: usize) -> Result<State> {
        let expected = 8 + 8 + 4 + 8 + 12 * parameters + 8;
        if bytes.len() < 8 || &bytes[..8] != CHECKPOINT_MAGIC {
            bail!("not a Vato training checkpoint");
        }
        if bytes.len() != expected {
            bail!(
                "{} bytes, expected {expected} (another network size?)",
                bytes.len()
            );
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        // Checkpoints carry no version: one written before XXH3 was summed with FNV-1a,
        // which is tried only when XXH3 does not match, so that such a run resumes.
        let stored = u64::from_le_bytes(sum.try_into().unwrap());
        if checksum(body) != stored && legacy_fnv1a(&[body]) != stored {
            bail!("checksum mismatch (the file is damaged)");
        }
        let floats = |from: usize| -> Vec<f32> {
            body[from..from + 4 * parameters]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        let start = 28;
        Ok(State {
            epoch: u32::from_le_bytes(body[16..20].try_into().unwrap()),
            step: u64::from_le_bytes(body[20..28].try_into().unwrap()),
            params: floats(start),
            m: floats(start + 4 * parameters),
            v: floats(start + 8 * parameters),
        })
    }
}

const CHECKPOINT_MAGIC: &[u8; 8] = b"VATOCKPT";

#[inline]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The four symmetries of the board as maps of point indices: identity, mirror across the
/// centre file, across the centre rank, and both (the half turn).
fn symmetries() -> [[u8; NUM_SQUARES]; 4] {
    let mut maps = [[0u8; NUM_SQUARES]; 4];
    for square in Square::all() {
        let i = square.index();
        maps[0][i] = i as u8;
        maps[1][i] = square.mirror_files().index() as u8;
        maps[2][i] = square.mirror_ranks().index() as u8;
        maps[3][i] = square.mirror_files().mirror_ranks().index() as u8;
    }
    maps
}

/// One position ready for the network: the active inputs of the side to move and of the
/// other side, the bucket and the target.
struct Sample {
    ours: [u8; 44],
    theirs: [u8; 44],
    count: u8,
    bucket: u8,
    target: f32,
}

fn target(record: &Record, lambda: f32) -> f32 {
    if record.from_tablebase {
        record.result.score()
    } else {
        let searched = sigmoid(f32::from(record.score) / SCORE_SCALE);
        lambda * searched + (1.0 - lambda) * record.result.score()
    }
}

fn sample(record: &Record, map: &[u8; NUM_SQUARES], lambda: f32) -> Sample {
    let stm = record.side_to_move;
    let mut s = Sample {
        ours: [0; 44],
        theirs: [0; 44],
        count: 0,
        bucket: bucket(record.white.count() + record.black.count()) as u8,
        target: target(record, lambda),
    };
    let mut n = 0;
    for (stones, color) in [(record.white, Color::White), (record.black, Color::Black)] {
        for square in stones {
            let point = map[square.index()] as usize;
            s.ours[n] = feature(stm, color, point) as u8;
            s.theirs[n] = feature(stm.opposite(), color, point) as u8;
            n += 1;
        }
    }
    s.count = n as u8;
    s
}

/// What the forward pass keeps for the backward one: the accumulators of both sides and
/// the second layer's values (both before their activation), and the output `y`, in units
/// of `EVAL_SCALE` hundredths of a stone.
struct Forward {
    acc: [[f32; HIDDEN]; 2],
    /// Both accumulators after the activation, the side to move's first.
    clipped: [f32; 2 * HIDDEN],
    layer2: [f32; LAYER2],
    y: f32,
}

/// The forward pass, through the second layer when `params` holds one.
fn forward(params: &[f32], s: &Sample) -> Forward {
    let mut acc = [[0f32; HIDDEN]; 2];
    for (side, inputs) in [&s.ours, &s.theirs].into_iter().enumerate() {
        acc[side].copy_from_slice(&params[FEATURE_BIAS..FEATURE_BIAS + HIDDEN]);
        for &i in &inputs[..s.count as usize] {
            let column = &params[FEATURE_WEIGHTS + i as usize * HIDDEN..][..HIDDEN];
            for (a, w) in acc[side].iter_mut().zip(column) {
                *a += w;
            }
        }
    }
    let bucket = s.bucket as usize;
    let out = OUTPUT_WEIGHTS + bucket * 2 * HIDDEN;
    let mut y = params[OUTPUT_BIAS + bucket];
    let mut clipped = [0f32; 2 * HIDDEN];
    for side in 0..2 {
        let weights = &params[out + side * HIDDEN..][..HIDDEN];
        for ((a, w), c) in acc[side]
            .iter()
            .zip(weights)
            .zip(&mut clipped[side * HIDDEN..])
        {
            *c = a.clamp(0.0, 1.0);
            y += *c * w;
        }
    }
    let mut layer2 = [0f32; LAYER2];
    if has_second_layer(params) {
        let outputs = &params[LAYER2_OUTPUT + bucket * LAYER2..][..LAYER2];
        for (k, z) in layer2.iter_mut().enumerate() {
            let row = &params[LAYER2_WEIGHTS + k * 2 * HIDDEN..][..2 * HIDDEN];
            *z =
                params[LAYER2_BIAS + k] + row.iter().zip(&clipped).map(|(w, c)| w * c).sum::<f32>();
            y += z.clamp(0.0, 1.0) * outputs[k];
        }
    }
    Forward {
        acc,
        clipped,
        layer2,
        y,
    }
}

/// Forward pass, and with `gradient` the backward pass added into it; returns the loss.
fn pass(params: &[f32], s: &Sample, gradient: Option<&mut [f32]>) -> f32 {
    let Forward {
        acc,
        clipped,
        layer2,
        y,
    } = forward(params, s);
    let bucket = s.bucket as usize;
    let out = OUTPUT_WEIGHTS + bucket * 2 * HIDDEN;
    let k = EVAL_SCALE as f32 / SCORE_SCALE;
    let predicted = sigmoid(y * k);
    let error = predicted - s.target;
    if let Some(g) = gradient {
        let dy = 2.0 * error * predicted * (1.0 - predicted) * k;
        g[OUTPUT_BIAS + bucket] += dy;
        // The gradient of each clipped accumulator value, through the output's direct
        // weights and through the second layer.
        let mut dclipped = [0f32; 2 * HIDDEN];
        for (j, d) in dclipped.iter_mut().enumerate() {
            *d = dy * params[out + j];
        }
        if has_second_layer(params) {
            let outputs = LAYER2_OUTPUT + bucket * LAYER2;
            for (k, &z) in layer2.iter().enumerate() {
                g[outputs + k] += dy * z.clamp(0.0, 1.0);
                if z <= 0.0 || z >= 1.0 {
                    continue;
                }
                let dz = dy * params[outputs + k];
                g[LAYER2_BIAS + k] += dz;
                let row = LAYER2_WEIGHTS + k * 2 * HIDDEN..LAYER2_WEIGHTS + (k + 1) * 2 * HIDDEN;
                for (((gw, w), c), d) in g[row.clone()]
                    .iter_mut()
                    .zip(&params[row])
                    .zip(&clipped)
                    .zip(&mut dclipped)
                {
                    *gw += dz * c;
                    *d += dz * w;
                }
            }
        }
        for (side, inputs) in [&s.ours, &s.theirs].into_iter().enumerate() {
            let mut da = [0f32; HIDDEN];
            for j in 0..HIDDEN {
                let a = acc[side][j];
                g[out + side * HIDDEN + j] += dy * clipped[side * HIDDEN + j];
                if a > 0.0 && a < 1.0 {
                    da[j] = dclipped[side * HIDDEN + j];
                }
            }
            for (gb, d) in g[FEATURE_BIAS..FEATURE_BIAS + HIDDEN].iter_mut().zip(&da) {
                *gb += d;
            }
            for &i in &inputs[..s.count as usize] {
                let column = &mut g[FEATURE_WEIGHTS + i as usize * HIDDEN..][..HIDDEN];
                for (gw, d) in column.iter_mut().zip(&da) {
                    *gw += d;
                }
            }
        }
    }
    error * error
}

/// Mean loss of `records` (no augmentation), on `threads` threads.
fn mean_loss(params: &[f32], records: &[Record], lambda: f32, threads: usize) -> f64 {
    if records.is_empty() {
        return 0.0;
    }
    let identity = symmetries()[0];
    let per = records.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|scope| {
        let handles: Vec<_> = records
            .chunks(per)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|r| f64::from(pass(params, &sample(r, &identity, lambda), None)))
                        .sum::<f64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    total / records.len() as f64
}

/// The losses of one epoch.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EpochReport {
    /// 1-based epoch number.
    pub epoch: u32,
    /// Mean training loss over the epoch.
    pub training_loss: f64,
    /// Mean loss on the held-out positions after it.
    pub validation_loss: f64,
    /// Time the epoch took.
    pub elapsed: Duration,
}

/// What a training run produced.
pub struct Trained {
    /// The quantised network.
    pub network: Network,
    /// Loss of the initial weights on the held-out positions.
    pub initial_validation_loss: f64,
    /// One report per epoch run (not those a resumed run had done before).
    pub epochs: Vec<EpochReport>,
}

/// Trains a network on `records` (shuffled and split here) and returns it quantised.
pub fn train(records: &[Record], config: &TrainConfig, description: &str) -> Result<Trained> {
    if records.len() < 2 {
        bail!("{} positions: too few to train on", records.len());
    }
    let mut order: Vec<usize> = (0..records.len()).collect();
    let mut rng = Rng::new(config.seed ^ 0x5EED);
    rng.shuffle(&mut order);
    let held =
        ((records.len() as f64 * config.validation).round() as usize).clamp(1, records.len() - 1);
    let validation: Vec<Record> = order[..held].iter().map(|&i| records[i]).collect();
    let training: Vec<Record> = order[held..].iter().map(|&i| records[i]).collect();

    let mut state = match &config.checkpoint {
        Some(path) if path.exists() => {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let state = State::from_bytes(&bytes, parameter_count(config.second_layer))
                .with_context(|| format!("{}: not a usable checkpoint", path.display()))?;
            if config.verbose {
                eprintln!(
                    "resuming from {} after epoch {}",
                    path.display(),
                    state.epoch
                );
            }
            state
        }
        _ => State::new(config.seed, config.second_layer),
    };
    let threads = config.threads.max(1);
    let initial_validation_loss = mean_loss(&state.params, &validation, config.lambda, threads);
    if config.verbose {
        eprintln!(
            "{} training positions, {} held out; validation loss {:.5} at epoch {}",
            training.len(),
            validation.len(),
            initial_validation_loss,
            state.epoch
        );
    }
    let maps = symmetries();
    let mut reports = Vec::new();
    while state.epoch < config.epochs {
        let started = Instant::now();
        // Each epoch's order and mirrors come from the seed and the epoch number, so a
        // resumed run goes on exactly as an uninterrupted one.
        let mut rng = Rng::new(
            config
                .seed
                .wrapping_add(u64::from(state.epoch) * 0x9E37_79B9),
        );
        let mut order: Vec<u32> = (0..training.len() as u32).collect();
        rng.shuffle(&mut order);
        let drop = config.drop_epoch.unwrap_or(config.epochs * 3 / 4);
        let late = state.epoch >= drop;
        let rate = if late {
            config.learning_rate * 0.1
        } else {
            config.learning_rate
        };
        let mut progress = config.verbose.then(|| {
            JobProgress::new(
                &format!("epoch {}/{}", state.epoch + 1, config.epochs),
                training.len() as u64,
                "positions",
                None,
            )
        });
        let mut loss_sum = 0f64;
        let mut gradients = vec![vec![0f32; state.params.len()]; threads];
        for (b, batch) in order.chunks(config.batch.max(1)).enumerate() {
            let samples: Vec<Sample> = batch
                .iter()
                .map(|&i| {
                    let r = &training[i as usize];
                    let map = if config.augment {
                        &maps[rng.below(4) as usize]
                    } else {
                        &maps[0]
                    };
                    sample(r, map, config.lambda)
                })
                .collect();
            let per = samples.len().div_ceil(threads);
            let params = &state.params;
            let losses: Vec<f64> = std::thread::scope(|scope| {
                let handles: Vec<_> = samples
                    .chunks(per)
                    .zip(gradients.iter_mut())
                    .map(|(part, g)| {
                        scope.spawn(move || {
                            g.iter_mut().for_each(|x| *x = 0.0);
                            part.iter()
                                .map(|s| f64::from(pass(params, s, Some(g))))
                                .sum::<f64>()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            loss_sum += losses.iter().sum::<f64>();
            let parts = losses.len();
            let scale = 1.0 / samples.len() as f32;
            adam_step(&mut state, &gradients[..parts], scale, rate);
            if let Some(p) = progress.as_mut() {
                p.set(((b + 1) * config.batch).min(training.len()) as u64);
            }
        }
        if let Some(p) = progress {
            p.finish();
        }
        state.epoch += 1;
        let report = EpochReport {
            epoch: state.epoch,
            training_loss: loss_sum / training.len() as f64,
            validation_loss: mean_loss(&state.params, &validation, config.lambda, threads),
            elapsed: started.elapsed(),
        };
        if config.verbose {
            eprintln!(
                "epoch {:>3}/{}: training loss {:.5}, validation loss {:.5}, {:.1} s",
                report.epoch,
                config.epochs,
                report.training_loss,
                report.validation_loss,
                report.elapsed.as_secs_f64()
            );
        }
        reports.push(report);
        if let Some(path) = &config.checkpoint {
            write_atomically(path, &state.to_bytes())?;
        }
    }
    let validation_loss = reports
        .last()
        .map_or(initial_validation_loss, |r| r.validation_loss);
    let summary = TrainingSummary {
        positions: records.len() as u64,
        epochs: state.epoch,
        validation_loss: validation_loss as f32,
        description: description.to_string(),
    };
    Ok(Trained {
        network: quantise(&state.params, summary),
        initial_validation_loss,
        epochs: reports,
    })
}

fn adam_step(state: &mut State, gradients: &[Vec<f32>], scale: f32, rate: f32) {
    const BETA1: f32 = 0.9;
    const BETA2: f32 = 0.999;
    const EPSILON: f32 = 1e-8;
    state.step += 1;
    let t = state.step as i32;
    let correction1 = 1.0 - BETA1.powi(t);
    let correction2 = 1.0 - BETA2.powi(t);
    for i in 0..state.params.len() {
        let g = gradients.iter().map(|g| g[i]).sum::<f32>() * scale;
        state.m[i] = BETA1 * state.m[i] + (1.0 - BETA1) * g;
        state.v[i] = BETA2 * state.v[i] + (1.0 - BETA2) * g * g;
        let step =
            rate * (state.m[i] / correction1) / ((state.v[i] / correction2).sqrt() + EPSILON);
        let limit = if i < FEATURE_BIAS + HIDDEN {
            FEATURE_WEIGHT_LIMIT
        } else if i < OUTPUT_BIAS
            || (LAYER2_WEIGHTS..LAYER2_BIAS).contains(&i)
            || i >= LAYER2_OUTPUT
        {
            OUTPUT_WEIGHT_LIMIT
        } else {
            f32::MAX
        };
        state.params[i] = (state.params[i] - step).clamp(-limit, limit);
    }
}

/// The float parameters as the engine's integers.
fn quantise(params: &[f32], summary: TrainingSummary) -> Network {
    let q = |x: f32, unit: i64| (x * unit as f32).round();
    let mut feature_weights = Box::new([[0i16; HIDDEN]; INPUTS]);
    for (i, column) in feature_weights.iter_mut().enumerate() {
        for (j, w) in column.iter_mut().enumerate() {
            *w = q(params[FEATURE_WEIGHTS + i * HIDDEN + j], QA) as i16;
        }
    }
    let feature_bias = std::array::from_fn(|j| q(params[FEATURE_BIAS + j], QA) as i16);
    let mut output_weights = Box::new([[0i16; 2 * HIDDEN]; BUCKETS]);
    for (b, row) in output_weights.iter_mut().enumerate() {
        for (j, w) in row.iter_mut().enumerate() {
            *w = q(params[OUTPUT_WEIGHTS + b * 2 * HIDDEN + j], QB) as i16;
        }
    }
    let output_bias = std::array::from_fn(|b| q(params[OUTPUT_BIAS + b], QA * QB) as i32);
    let second = has_second_layer(params).then(|| {
        Box::new(SecondLayer {
            weights: std::array::from_fn(|k| {
                std::array::from_fn(|c| q(params[LAYER2_WEIGHTS + k * 2 * HIDDEN + c], QB) as i16)
            }),
            bias: std::array::from_fn(|k| q(params[LAYER2_BIAS + k], QA * QB) as i32),
            output_weights: std::array::from_fn(|b| {
                std::array::from_fn(|k| q(params[LAYER2_OUTPUT + b * LAYER2 + k], QB) as i16)
            }),
        })
    });
    Network::from_parts(
        feature_weights,
        feature_bias,
        output_weights,
        output_bias,
        summary,
    )
    .with_second_layer(second)
}

/// The float network's score of a record's position, in hundredths of a stone; for
/// checking the quantised network against it.
#[cfg(test)]
fn float_score(params: &[f32], record: &Record) -> f32 {
    forward(params, &sample(record, &symmetries()[0], 0.0)).y * EVAL_SCALE as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::search::Limits;
    use crate::learn::datagen::{DatagenConfig, run};
    use std::sync::atomic::AtomicBool;

    fn small_data(name: &str) -> Vec<Record> {
        let dir = std::env::temp_dir().join(format!("vato-train-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = DatagenConfig {
            output: dir.join("d"),
            games: 12,
            limits: Limits::to_depth(2),
            opening_turns: 6,
            skip_turns: 0,
            threads: 2,
            seed: 3,
            tablebase: None,
            search: Default::default(),
            network: None,
            shard: crate::shard::Shard::WHOLE,
        };
        run(&config, &AtomicBool::new(false)).unwrap();
        let records = crate::learn::data::read_file(&dir.join("d")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        records
    }

    #[test]
    fn training_lowers_the_loss_and_resumes_where_it_stopped() {
        let records = small_data("loss");
        assert!(records.len() > 300, "{}", records.len());
        let dir = std::env::temp_dir().join(format!("vato-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = TrainConfig {
            epochs: 4,
            batch: 64,
            learning_rate: 3e-3,
            drop_epoch: Some(5),
            validation: 0.1,
            checkpoint: Some(dir.join("c")),
            verbose: false,
            ..TrainConfig::default()
        };
        let trained = train(&records, &config, "test").unwrap();
        let last = trained.epochs.last().unwrap();
        assert!(
            last.training_loss < trained.epochs[0].training_loss
                && last.validation_loss < trained.initial_validation_loss,
            "{:?} from {}",
            trained.epochs,
            trained.initial_validation_loss
        );
        // Two more epochs from the checkpoint equal six epochs in one go.
        let six = TrainConfig {
            epochs: 6,
            checkpoint: None,
            ..config.clone()
        };
        let resumed = train(
            &records,
            &TrainConfig {
                epochs: 6,
                ..config
            },
            "test",
        )
        .unwrap();
        assert_eq!(resumed.epochs.len(), 2);
        let straight = train(&records, &six, "test").unwrap();
        assert!(
            resumed.network.to_bytes() == straight.network.to_bytes(),
            "a resumed run goes on exactly as an uninterrupted one"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_quantised_network_follows_the_float_one() {
        let records = small_data("quantised");
        for second_layer in [false, true] {
            let state = State::new(7, second_layer);
            let network = quantise(&state.params, TrainingSummary::default());
            assert_eq!(network.has_second_layer(), second_layer);
            // The second layer adds the rounding of its own weights to the accumulator's.
            let slack = if second_layer { 4.0 } else { 2.0 };
            for r in records.iter().take(200) {
                let exact = float_score(&state.params, r);
                let quantised = network.evaluate(&r.position()) as f32;
                assert!(
                    (exact - quantised).abs() <= slack + exact.abs() * 0.02,
                    "{exact} vs {quantised} (second layer: {second_layer})"
                );
            }
        }
    }

    #[test]
    fn checkpoints_round_trip_and_damage_is_refused() {
        let state = State::new(3, true);
        let bytes = state.to_bytes();
        assert_eq!(
            State::from_bytes(&bytes, TWO_LAYER_PARAMETERS).unwrap(),
            state
        );
        let message = |b: &[u8], n| format!("{:#}", State::from_bytes(b, n).unwrap_err());
        assert!(message(&bytes, FIRST_LAYER_PARAMETERS).contains("another network size"));
        let mut damaged = bytes.clone();
        damaged[100] ^= 2;
        assert!(message(&damaged, TWO_LAYER_PARAMETERS).contains("checksum"));
    }
}
