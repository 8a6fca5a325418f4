//! Compact proofs: a strategy written as the owner's choices alone. A checker follows
//! every line of a strategy in a fixed order anyway (see `check::follow`), so it meets the
//! owner's positions in an order the file need not spell: each choice is the index of the
//! owner's turn among its legal turns there, one byte as a rule, and the choices of a
//! strategy are compressed together. The keys of the full form (8 bytes a position, and
//! as random as keys are) are what made a proof of millions of positions too large to
//! keep; a compact one costs about a byte a position before compression. Reading one
//! back needs the move generator and the tables it rests on, and checks it on the way.

use super::certificate::{
    COMPACT, Certificate, Head, Shaped, guarantee_byte, owner_byte, read_shape,
};
use super::check::{ByKey, Checked, Chooser, follow};
use super::strategy::{Guarantee, Strategy};
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::safe_file::write_atomically;
use crate::tablebase::Tablebase;
use anyhow::{Context, Result, bail};
use std::io::Read;
use std::path::Path;

/// A proof whose strategies are compact.
pub type CompactProof = Certificate<Choices>;

/// The bytes of a compact strategy's head: owner, guarantee, six zero bytes, the number
/// of choices and the length of the compressed choices.
const HEAD_BYTES: usize = 24;
/// A choice of this byte or more is written as this byte and then two bytes.
const ESCAPE: u8 = 0xFF;
/// How hard the choices are compressed: written once, read many times.
const ZSTD_LEVEL: i32 = 19;

/// One strategy as the owner's choices, in the order a checker meets its positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choices {
    /// The side that plays the strategy.
    pub owner: Color,
    /// What it achieves.
    pub guarantee: Guarantee,
    /// How many positions of the owner the strategy reaches.
    pub count: u64,
    /// The choices, one byte each below [`ESCAPE`], else [`ESCAPE`] and two bytes.
    stream: Vec<u8>,
}

impl Shaped for Choices {
    fn shape(&self) -> (Color, Guarantee) {
        (self.owner, self.guarantee)
    }
}

impl Choices {
    /// The choices of `strategy` from `root`, in the order `follow` meets them with
    /// `tables` (the layers the proof rests on, and no larger: a larger layer would leave
    /// out positions a reader with only those layers needs a choice for).
    pub fn of(
        strategy: &Strategy,
        root: &Position,
        rules: &crate::rules::Rules,
        tables: Option<&Tablebase>,
    ) -> Result<Choices> {
        let mut recorder = Recorder {
            by_key: ByKey(|key| strategy.turn(key)),
            stream: Vec::new(),
            count: 0,
        };
        follow(
            root,
            rules,
            tables,
            strategy.owner,
            strategy.guarantee,
            &mut recorder,
        )?;
        Ok(Choices {
            owner: strategy.owner,
            guarantee: strategy.guarantee,
            count: recorder.count,
            stream: recorder.stream,
        })
    }

    /// The strategy in full, found by following every line from `root` with `tables`,
    /// and the number of positions reached; an error if a line breaks the guarantee or the
    /// choices do not fit the positions they are met in.
    pub fn expand(
        &self,
        root: &Position,
        rules: &crate::rules::Rules,
        tables: Option<&Tablebase>,
    ) -> Result<(Strategy, usize)> {
        let mut reader = Reader {
            stream: &self.stream,
            count: 0,
        };
        let reached = follow(root, rules, tables, self.owner, self.guarantee, &mut reader)?;
        if !reader.stream.is_empty() || reader.count != self.count {
            bail!(
                "damaged: {} choices written, {} met",
                self.count,
                reader.count
            );
        }
        let mut turns: Vec<(u64, Turn)> = reached
            .iter()
            .filter_map(|&(key, turn)| Some((key, turn?)))
            .collect();
        turns.sort_unstable_by_key(|&(key, _)| key);
        let strategy = Strategy {
            owner: self.owner,
            guarantee: self.guarantee,
            turns,
        };
        Ok((strategy, reached.len()))
    }

    /// The strategy's bytes in a file: its head, then the compressed choices.
    pub(super) fn to_bytes(&self) -> Vec<u8> {
        let packed = zstd::bulk::compress(&self.stream, ZSTD_LEVEL)
            .expect("compressing bytes in memory does not fail");
        let mut bytes = vec![owner_byte(self.owner), guarantee_byte(self.guarantee)];
        bytes.extend_from_slice(&[0; 6]);
        bytes.extend_from_slice(&self.count.to_le_bytes());
        bytes.extend_from_slice(&(packed.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&packed);
        bytes
    }

    /// One strategy from the front of `bytes`, and the bytes after it.
    pub(super) fn read(bytes: &[u8]) -> Result<(Choices, &[u8])> {
        let Some(head) = bytes.get(..HEAD_BYTES) else {
            bail!("damaged: a strategy is cut short");
        };
        let (owner, guarantee) = read_shape(head)?;
        let word = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().expect("8 bytes"));
        let (count, packed_len) = (word(8), word(16));
        let rest = &bytes[HEAD_BYTES..];
        let packed = usize::try_from(packed_len)
            .ok()
            .and_then(|n| rest.get(..n))
            .context("damaged: a strategy is cut short")?;
        // At most three bytes a choice: reading stops there, whatever the frame says.
        let limit = count.saturating_mul(3).saturating_add(1);
        let mut stream = Vec::new();
        zstd::stream::read::Decoder::new(packed)
            .context("damaged: compressed choices that cannot be read")?
            .take(limit)
            .read_to_end(&mut stream)
            .context("damaged: compressed choices that cannot be read")?;
        if stream.len() as u64 >= limit {
            bail!("damaged: more choices than the strategy says");
        }
        let choices = Choices {
            owner,
            guarantee,
            count,
            stream,
        };
        Ok((choices, &rest[packed.len()..]))
    }
}

impl Certificate {
    /// The compact form of this proof, its choices met with `tables` (the layers it
    /// rests on).
    pub fn compact(&self, tables: Option<&Tablebase>) -> Result<CompactProof> {
        let strategies = self
            .strategies
            .iter()
            .map(|strategy| Choices::of(strategy, &self.root, &self.rules, tables))
            .collect::<Result<Vec<Choices>>>()?;
        Ok(self.with(strategies))
    }
}

impl CompactProof {
    /// The file's bytes, compact.
    pub fn to_bytes(&self) -> Vec<u8> {
        let strategies: Vec<Vec<u8>> = self.strategies.iter().map(Choices::to_bytes).collect();
        self.file_bytes(COMPACT, &strategies)
    }

    /// Writes the file, compact, through a temporary name.
    pub fn write(&self, path: &Path) -> Result<()> {
        write_atomically(path, &self.to_bytes())
    }

    /// The proof in full, each strategy found again by following its choices with
    /// `tables` (the layers it rests on), which checks it: what `check` would say too.
    /// Tables of fewer stones cannot settle its leaves, and tables of more would settle
    /// positions its choices were written for: both are refused.
    pub fn expand(&self, tables: Option<&Tablebase>) -> Result<(Certificate, Checked)> {
        let have = tables.map_or(0, |t| t.max_stones());
        if have != usize::from(self.table_stones) {
            bail!(
                "a compact proof is read with the tables of up to {} stones and no more, and those given go to {have}",
                self.table_stones
            );
        }
        let mut strategies = Vec::new();
        let mut positions = Vec::new();
        for choices in &self.strategies {
            let (strategy, reached) = choices.expand(&self.root, &self.rules, tables)?;
            strategies.push(strategy);
            positions.push(reached);
        }
        Ok((self.with(strategies), Checked { positions }))
    }

    /// The number of choices of each strategy, as `N` or `N + M`.
    pub fn choice_counts(&self) -> String {
        let counts: Vec<String> = self
            .strategies
            .iter()
            .map(|s| s.count.to_string())
            .collect();
        counts.join(" + ")
    }
}

/// The compact proof of the header `head` and the strategies' bytes `rest`.
pub(super) fn read_compact(head: Head, mut rest: &[u8]) -> Result<CompactProof> {
    let mut strategies = Vec::new();
    for _ in 0..head.count {
        let (choices, after) = Choices::read(rest)?;
        strategies.push(choices);
        rest = after;
    }
    head.certificate(strategies, rest)
}

/// Writes down the index of each turn a strategy in full plays, as `follow` meets it.
struct Recorder<F> {
    by_key: ByKey<F>,
    stream: Vec<u8>,
    count: u64,
}

impl<F: Fn(u64) -> Option<Turn>> Chooser for &mut Recorder<F> {
    fn choose(&mut self, key: u64, turns: &[Turn]) -> Result<Turn> {
        let index = self.by_key.index(key, turns)?;
        match u8::try_from(index) {
            Ok(byte) if byte < ESCAPE => self.stream.push(byte),
            _ => {
                let wide = u16::try_from(index).context("more turns than a choice can name")?;
                self.stream.push(ESCAPE);
                self.stream.extend_from_slice(&wide.to_le_bytes());
            }
        }
        self.count += 1;
        Ok(turns[index])
    }
}

/// Plays the choices of a compact strategy, one each time `follow` meets the owner's
/// position.
struct Reader<'a> {
    stream: &'a [u8],
    count: u64,
}

impl Chooser for &mut Reader<'_> {
    fn choose(&mut self, _key: u64, turns: &[Turn]) -> Result<Turn> {
        let (index, used) = match self.stream {
            [] => bail!("has no choice left (the proof's choices end early)"),
            [ESCAPE, low, high, ..] => (usize::from(u16::from_le_bytes([*low, *high])), 3),
            [ESCAPE, ..] => bail!("has a choice cut short"),
            [byte, ..] => (usize::from(*byte), 1),
        };
        self.stream = &self.stream[used..];
        self.count += 1;
        turns
            .get(index)
            .copied()
            .with_context(|| format!("chooses turn {index} of {}", turns.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use crate::rules::board::Board;
    use crate::solve::proof_file::ProofFile;
    use crate::solve::{Budget, Verdict, solve};
    use std::sync::atomic::AtomicBool;

    /// A stone against a stone on Tsivy's board, proved a draw with no tables: two
    /// strategies of hundreds of positions, each with its cycles.
    fn lone_stones_draw() -> Certificate {
        let rules = Rules::default();
        let root = crate::rules::fen::parse_position_on(Board::Tsivy, "9/9/8B/5W3/9 w")
            .expect("a position");
        let stop = AtomicBool::new(false);
        let budget = Budget {
            proof: true,
            ..Budget::until(&stop)
        };
        let solved = solve(&root, rules, None, budget).expect("solved");
        assert_eq!(solved.verdict, Verdict::Draw);
        Certificate {
            root,
            rules,
            verdict: solved.verdict,
            table_stones: 0,
            strategies: solved.strategies,
        }
    }

    #[test]
    fn a_compact_proof_reads_back_into_the_same_strategies() {
        let full = lone_stones_draw();
        let compact = full.compact(None).unwrap();
        let bytes = compact.to_bytes();
        assert!(
            bytes.len() * 4 < full.to_bytes().len(),
            "{} bytes",
            bytes.len()
        );
        let ProofFile::Compact(read) = ProofFile::from_bytes(&bytes).unwrap() else {
            panic!("read as a full proof");
        };
        assert_eq!(read, compact);
        let (expanded, checked) = read.expand(None).unwrap();
        assert_eq!(checked, crate::solve::check(&full, None).unwrap());
        // What a strategy in full holds beyond the positions it reaches is not kept.
        for (again, before) in expanded.strategies.iter().zip(&full.strategies) {
            assert!(again.turns.iter().all(|entry| before.turns.contains(entry)));
        }
        assert_eq!(expanded.compact(None).unwrap(), compact);
    }

    #[test]
    fn a_changed_choice_or_a_missing_one_is_refused() {
        let compact = lone_stones_draw().compact(None).unwrap();
        let choices = &compact.strategies[0];
        let mut shorter = choices.clone();
        shorter.stream.pop();
        let mut longer = choices.clone();
        longer.stream.push(0);
        longer.count += 1;
        let mut beyond = choices.clone();
        beyond.stream[0] = 200;
        for broken in [shorter, longer, beyond] {
            let error = broken
                .expand(&compact.root, &compact.rules, None)
                .unwrap_err();
            assert!(!format!("{error:#}").is_empty());
        }
    }

    #[test]
    fn every_flipped_byte_and_every_cut_of_a_compact_file_is_refused() {
        let bytes = lone_stones_draw().compact(None).unwrap().to_bytes();
        for at in (0..bytes.len()).step_by(7) {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert!(ProofFile::from_bytes(&damaged).is_err(), "byte {at}");
            assert!(ProofFile::from_bytes(&bytes[..at]).is_err(), "cut at {at}");
        }
    }
}
