//! A set of layers opened through memory maps, probed by the search and the protocol.

use super::index::{index_of, layers_with};
use super::layer_file::{Kind, TableFile, prefetch_headers, value_of};
use super::legacy::legacy_file_name;
use super::symmetry::canonical;
use super::value::{Outcome, Value};
use crate::rules::Rules;
use crate::rules::board::Board;
use crate::rules::notation::spelled_turns;
use crate::rules::position::Position;
use anyhow::{Context, Result, bail};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The most stones a layer of the tables can have.
pub const MAX_STONES: usize = 8;

/// Decoded blocks kept: shards, each locked apart so that search threads rarely wait for
/// each other, of a few slots each. 64 x 128 blocks: 16 MiB of value blocks (2 KiB each),
/// up to 64 MiB where distance blocks (8 KiB) take the slots, allocated as probes fill it.
const CACHE_SHARDS: usize = 64;
const SLOTS_PER_SHARD: usize = 128;

/// Values probed lately, by position: the search probes the same positions again and
/// again (transpositions, each iteration), and one word read beats finding the block.
/// 64 Ki words: 512 KiB.
const VALUE_CACHE_WORDS: usize = 1 << 16;

/// A layer's two files.
pub(super) struct MappedLayer {
    pub(super) wdl: TableFile,
    pub(super) distance: TableFile,
    /// Set when a block failed its checksum: the layer is treated as absent from then on.
    damaged: AtomicBool,
}

/// A decoded block in the cache.
struct Slot {
    /// Which file and block it holds ([`block_key`]), `u64::MAX` when empty.
    key: u64,
    entries: Vec<u8>,
}

struct Shard {
    slots: Vec<Slot>,
    /// Made when the shard decodes its first block.
    decompressor: Option<zstd::bulk::Decompressor<'static>>,
}

/// A set of solved layers, mapped into memory and probed through shared references so that
/// every search thread (and every engine process on the machine) uses one copy.
pub struct Tablebase {
    /// Layer `(a, b)` at `a * (MAX_STONES + 1) + b`, when it was found.
    layers: Vec<Option<MappedLayer>>,
    rules: Rules,
    cache: Vec<Mutex<Shard>>,
    /// Each word a probed position (part of its Zobrist key) and its value code, 0 when
    /// empty: see [`value_word`].
    values: Vec<AtomicU64>,
    /// What went wrong since the last [`Tablebase::take_faults`], one line each.
    faults: Mutex<Vec<String>>,
    /// Layers refused when the set was opened, one line each.
    refused: Vec<String>,
}

/// Layers as words, `4v3, 3v4`, for messages.
pub fn layer_names(layers: &[(usize, usize)]) -> String {
    let names: Vec<String> = layers.iter().map(|(a, b)| format!("{a}v{b}")).collect();
    names.join(", ")
}

/// The layers that a set holding `held` lacks, up to its largest stone count.
pub fn missing_layers(held: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let largest = held.iter().map(|&(a, b)| a + b).max().unwrap_or(0);
    (2..=largest)
        .flat_map(layers_with)
        .filter(|layer| !held.contains(layer))
        .collect()
}

pub(super) fn slot_of(a: usize, b: usize) -> usize {
    a * (MAX_STONES + 1) + b
}

/// The cache key of block `block` of layer `slot`'s file of `kind`.
fn block_key(slot: usize, kind: Kind, block: u64) -> u64 {
    let file = 2 * slot as u64 + u64::from(kind == Kind::Distance);
    file << 48 | block
}

/// The value cache's word for `value` of the position whose Zobrist key is `key`: the key's
/// bits from 17 up (the low ones pick the word), whether the distance is known in bit 16,
/// the value's code in the low 16 (its distance 0 when not known). Keyed by the position
/// as the search has it, a hit costs no mirror images and no ranking.
fn value_word(key: u64, value: Value, distance_known: bool) -> u64 {
    key & KEY_BITS | u64::from(distance_known) << 16 | u64::from(value.code())
}

/// The bits of a value cache word that hold the position's key.
const KEY_BITS: u64 = !((1 << 17) - 1);

/// Opens layer `(a, b)`'s two files; `Ok(None)` when neither is there.
pub(super) fn open_layer(
    dir: &Path,
    rules: &Rules,
    a: usize,
    b: usize,
) -> Result<Option<MappedLayer>> {
    let wdl = TableFile::open(dir, rules, Kind::Wdl, a, b)?;
    let distance = TableFile::open(dir, rules, Kind::Distance, a, b)?;
    match (wdl, distance) {
        (None, None) => Ok(None),
        (Some(wdl), Some(distance)) if wdl.block_entries() != distance.block_entries() => {
            bail!(
                "{}: blocks of another size than the layer's other file",
                wdl.name()
            )
        }
        (Some(wdl), Some(distance)) => Ok(Some(MappedLayer {
            wdl,
            distance,
            damaged: AtomicBool::new(false),
        })),
        (Some(file), None) | (None, Some(file)) => {
            bail!("{}: the layer's other file is missing", file.name())
        }
    }
}

impl std::fmt::Debug for Tablebase {
    /// The layers held: what tells two sets apart in a diagnostic.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tablebase({})", layer_names(&self.layers()))
    }
}

impl Tablebase {
    /// Opens every layer of up to `max_stones` stones found in `dir`, for the given rules:
    /// headers and block indexes only, the blocks being read as probes touch them. Missing
    /// layers are left out; a layer whose files are damaged or were built for other rules
    /// is left out too, and said in [`Tablebase::refused`]. Only a folder that cannot be
    /// read is an error.
    pub fn open(dir: &Path, rules: Rules, max_stones: usize) -> Result<Tablebase> {
        if !dir.is_dir() {
            bail!("{}: not a directory", dir.display());
        }
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot be read", dir.display()))?;
        let mut layers: Vec<Option<MappedLayer>> = Vec::new();
        layers.resize_with(slot_of(MAX_STONES, MAX_STONES) + 1, || None);
        let mut refused = Vec::new();
        let mut legacy = Vec::new();
        let wanted: Vec<(usize, usize)> = (2..=max_stones.min(MAX_STONES))
            .flat_map(layers_with)
            .collect();
        prefetch_headers(dir, &rules, &wanted);
        for &(a, b) in &wanted {
            match open_layer(dir, &rules, a, b) {
                Ok(layer) => layers[slot_of(a, b)] = layer,
                Err(e) => refused.push(format!("{e:#}")),
            }
            if layers[slot_of(a, b)].is_none()
                && dir.join(legacy_file_name(rules.board, a, b)).exists()
            {
                legacy.push((a, b));
            }
        }
        if !legacy.is_empty() {
            refused.push(format!(
                "{} holds version 2 files ({}) that this Vato does not read: `vato tablebase \
                 convert {} NEW` turns them into version 3",
                dir.display(),
                layer_names(&legacy),
                dir.display()
            ));
        }
        let cache = (0..CACHE_SHARDS)
            .map(|_| {
                Mutex::new(Shard {
                    slots: Vec::new(),
                    decompressor: None,
                })
            })
            .collect();
        Ok(Tablebase {
            layers,
            rules,
            cache,
            values: (0..VALUE_CACHE_WORDS).map(|_| AtomicU64::new(0)).collect(),
            faults: Mutex::new(Vec::new()),
            refused,
        })
    }

    /// The board whose positions the tables hold.
    pub fn board(&self) -> Board {
        self.rules.board
    }

    /// The layers held (and not found damaged), smallest first.
    pub fn layers(&self) -> Vec<(usize, usize)> {
        (2..=MAX_STONES)
            .flat_map(layers_with)
            .filter(|&(a, b)| self.layer(a, b).is_some())
            .collect()
    }

    /// One line for each layer left out when the set was opened (damaged, built for other
    /// rules, of another version).
    pub fn refused(&self) -> &[String] {
        &self.refused
    }

    /// The faults met by probes since the last call, one line each (a block that failed its
    /// checksum: its layer is no longer used).
    pub fn take_faults(&self) -> Vec<String> {
        std::mem::take(&mut *self.faults.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The layers missing from a complete set up to [`Tablebase::max_stones`]: empty for
    /// a set built in full, or collected in full from builds on several machines.
    pub fn missing(&self) -> Vec<(usize, usize)> {
        missing_layers(&self.layers())
    }

    /// The most stones of any layer held (0 when empty).
    pub fn max_stones(&self) -> usize {
        self.layers().iter().map(|&(a, b)| a + b).max().unwrap_or(0)
    }

    fn layer(&self, a: usize, b: usize) -> Option<&MappedLayer> {
        self.layers[slot_of(a, b)]
            .as_ref()
            .filter(|layer| !layer.damaged.load(Ordering::Relaxed))
    }

    /// The entry of `index` in `file` (layer `slot`'s file of `kind`): read from the
    /// compressed block on the block's first two uses, later from the cache or decoded into it.
    fn entry(&self, slot: usize, kind: Kind, file: &TableFile, index: u64) -> Result<u8> {
        let block = index / file.block_entries() as u64;
        let offset = (index % file.block_entries() as u64) as usize;
        if let Some(entry) = file.early_use_entry(block, offset)? {
            return Ok(entry);
        }
        let key = block_key(slot, kind, block);
        let hash = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let shard = &self.cache[(hash >> 58) as usize % CACHE_SHARDS];
        let mut shard = shard.lock().unwrap_or_else(|e| e.into_inner());
        let Shard {
            slots,
            decompressor,
        } = &mut *shard;
        let at = (hash >> 32) as usize % SLOTS_PER_SHARD;
        if slots.len() <= at {
            slots.resize_with(at + 1, || Slot {
                key: u64::MAX,
                entries: Vec::new(),
            });
        }
        let cached = &mut slots[at];
        if cached.key != key {
            cached.key = u64::MAX;
            let decompressor = match decompressor {
                Some(d) => d,
                None => decompressor
                    .insert(zstd::bulk::Decompressor::new().context("starting the decompressor")?),
            };
            file.decode_block(block, decompressor, &mut cached.entries)?;
            cached.key = key;
        }
        Ok(kind.entry_in(&cached.entries, offset))
    }

    /// Records a fault of layer `(a, b)` and stops using the layer.
    fn fault(&self, a: usize, b: usize, layer: &MappedLayer, error: anyhow::Error) {
        if !layer.damaged.swap(true, Ordering::Relaxed) {
            self.faults
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(format!("{error:#}; layer {a}v{b} is no longer used"));
        }
    }

    /// The value of `position` for its side to move, or `None` when its layer is not in
    /// the tables (or a side has no stones, which is not a position the tables hold, or
    /// the layer's file turned out damaged).
    #[inline]
    pub fn probe(&self, position: &Position) -> Option<Value> {
        self.probe_with(position, true)
    }

    /// The outcome of `position` for its side to move, reading the win/draw/loss file only;
    /// `None` as for [`Tablebase::probe`].
    #[inline]
    pub fn probe_outcome(&self, position: &Position) -> Option<Outcome> {
        self.probe_with(position, false).map(|value| value.outcome)
    }

    /// The value of `position` for the search, found `turns_since_capture` turns after the
    /// last capture under a no-capture limit of `limit` turns (0: none), when it holds
    /// within that limit. When even the layer's longest distance is within the limit, the
    /// win/draw/loss file alone is read and a win or loss carries that longest distance (a
    /// bound: the search ranks wins by it, the root picks the fastest from the distances);
    /// otherwise the distance is read, and a win or loss that could cross the limit is
    /// `None`, left to the search.
    #[inline]
    pub fn probe_for_search(
        &self,
        position: &Position,
        turns_since_capture: u32,
        limit: u32,
    ) -> Option<Value> {
        let (a, b) = (
            position.us().count() as usize,
            position.them().count() as usize,
        );
        if a == 0 || b == 0 || a + b > MAX_STONES {
            return None;
        }
        let longest = self.layer(a, b)?.wdl.longest();
        if limit == 0 || turns_since_capture + u32::from(longest) <= limit {
            let value = self.probe_with(position, false)?;
            return Some(match value.outcome {
                Outcome::Draw => value,
                outcome => Value {
                    outcome,
                    distance: longest,
                },
            });
        }
        self.probe(position)
            .filter(|value| value.holds_within(turns_since_capture, limit))
    }

    /// [`Tablebase::probe`], with the distance read only when `distance` is set (else 0).
    fn probe_with(&self, position: &Position, distance: bool) -> Option<Value> {
        let (us, them) = (position.us(), position.them());
        let (a, b) = (us.count() as usize, them.count() as usize);
        if a == 0 || b == 0 || a + b > MAX_STONES {
            return None;
        }
        let layer = self.layer(a, b)?;
        let key = position.key();
        let word = &self.values[key as usize % VALUE_CACHE_WORDS];
        let known = word.load(Ordering::Relaxed);
        // A word without its distance serves only probes that do not ask for one.
        if known != 0 && known & KEY_BITS == key & KEY_BITS && (!distance || known >> 16 & 1 == 1) {
            return Some(Value::decode(known as u16));
        }
        let slot = slot_of(a, b);
        let (us, them) = canonical(self.rules.board, us, them);
        let index = index_of(self.rules.board, us, them);
        let read = || -> Result<Value> {
            let wdl = self.entry(slot, Kind::Wdl, &layer.wdl, index)?;
            let turns = if distance && wdl != 1 {
                self.entry(slot, Kind::Distance, &layer.distance, index)?
            } else {
                0
            };
            value_of(wdl, turns).with_context(|| {
                format!("{}: entry {index} holds {wdl}, no value", layer.wdl.name())
            })
        };
        match read() {
            Ok(value) => {
                word.store(value_word(key, value, distance), Ordering::Relaxed);
                Some(value)
            }
            Err(e) => {
                self.fault(a, b, layer, e);
                None
            }
        }
    }

    /// Every legal turn of `position` with its value for the side to move, best first;
    /// `None` when some child is not in the tables.
    pub fn probe_turns(&self, position: &Position) -> Option<Vec<(String, Value)>> {
        let mut out = Vec::new();
        for (text, turn) in spelled_turns(position, self.rules.chain_rule) {
            let child = position.play(turn);
            let value = if child.us().is_empty() {
                Value {
                    outcome: Outcome::Win,
                    distance: 1,
                }
            } else {
                self.probe(&child)?.through_turn(turn.is_capture())
            };
            out.push((text, value));
        }
        out.sort_by_key(|(text, value)| (-value.preference(), text.clone()));
        Some(out)
    }

    /// Decodes every block of every layer held, verifying each checksum, and checks every
    /// entry as a probe would; one line per damaged layer (its first bad block or entry).
    /// Reads the whole set, one block at a time.
    pub fn verify(&self) -> Vec<String> {
        let mut damaged = Vec::new();
        for (a, b) in self.layers() {
            let layer = self.layer(a, b).expect("a layer held");
            for file in [&layer.wdl, &layer.distance] {
                if let Err(e) = file.check_every_entry() {
                    damaged.push(format!("layer {a}v{b}: {e:#}"));
                    break;
                }
            }
        }
        damaged
    }
}
