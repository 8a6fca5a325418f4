//! Proof files: a solved position, its value and the strategies that prove it, written
//! by `vato solve --proof FILE`, verified by `vato solve --check FILE` and read by the
//! engine (`ProofFile`). Specified byte by byte in `docs/proof-format.md`. A file holds
//! its strategies in one of two forms: in full (every position's key and the owner's
//! turn, version 1, here), or compact (only the owner's choices, in the order a checker
//! meets them, version 2, in `compact_proof`); `proof_file` reads either.

use super::codes::{board_code, board_of, chain_code, chain_of, color_code, color_of};
use super::strategy::{Guarantee, Strategy};
use super::verdict::Verdict;
use crate::rules::Rules;
use crate::rules::bitboard::Bitboard;
use crate::rules::fen::parse_position_on;
use crate::rules::geometry::Square;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::safe_file::{Checksum, write_atomically};
use anyhow::{Context, Result, bail};
use std::path::Path;

const MAGIC: &[u8; 8] = b"VATOPRF1";
/// The version of a file whose strategies are in full.
pub(super) const FULL: u32 = 1;
/// The version of a file whose strategies are compact.
pub(super) const COMPACT: u32 = 2;
const HEADER_BYTES: usize = 48;
const STRATEGY_HEADER_BYTES: usize = 16;
const ENTRY_BYTES: usize = 16;
/// The bits of a packed turn that hold the captured points.
const CAPTURED_BITS: u64 = (1 << 45) - 1;

/// A proof: the position, the rules, its value for the side to move, and the strategies
/// that show it (see [`super::Solved::strategies`]), in full ([`Strategy`]) or compact
/// ([`Choices`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate<S = Strategy> {
    /// The solved position.
    pub root: Position,
    /// The board and chain rule (the other rules are the defaults: the proof has no
    /// no-capture limit).
    pub rules: Rules,
    /// Win, draw or loss for the root's side to move.
    pub verdict: Verdict,
    /// The most stones of the table layers the proof takes as leaves (0: none).
    pub table_stones: u8,
    /// One strategy for a win or a loss (the winner's), two for a draw (each side's).
    pub strategies: Vec<S>,
}

/// The fields of a file's header and its root, and the number of strategies after them.
pub(super) struct Head {
    /// [`FULL`] or [`COMPACT`].
    pub(super) version: u32,
    root: Position,
    rules: Rules,
    verdict: Verdict,
    table_stones: u8,
    /// The number of strategies.
    pub(super) count: usize,
}

impl Head {
    /// The header and root at the front of `bytes`, checked against the file's length and
    /// checksum, and the bytes of the strategies after them.
    pub(super) fn read(bytes: &[u8]) -> Result<(Head, &[u8])> {
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            bail!("not a Vato proof file");
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let half = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let version = half(8);
        if version != FULL && version != COMPACT {
            bail!("proof format {version}, this Vato reads {FULL} and {COMPACT}");
        }
        let board = match board_of(bytes[12]) {
            Some(board) => board,
            None => bail!("unknown board in the proof"),
        };
        let chain_rule = match chain_of(bytes[13]) {
            Some(rule) => rule,
            None => bail!("unknown chain rule in the proof"),
        };
        let verdict = match bytes[14] {
            0 => Verdict::Win,
            1 => Verdict::Draw,
            2 => Verdict::Loss,
            3 => Verdict::Unknown,
            _ => bail!("the proof has no value"),
        };
        let table_stones = bytes[15];
        let (root_key, fen_len, count) = (word(16), half(24) as usize, half(28) as usize);
        let body = &bytes[HEADER_BYTES..];
        if word(32) != body.len() as u64 {
            bail!("truncated or damaged (its length does not match)");
        }
        if sum_of(&bytes[..HEADER_BYTES - 8], body) != word(40) {
            bail!("damaged: its checksum does not match");
        }
        let fen = body
            .get(..fen_len)
            .and_then(|b| std::str::from_utf8(b).ok())
            .context("damaged: no position")?;
        let root = parse_position_on(board, fen).context("damaged: a bad position")?;
        if root.key() != root_key {
            bail!("damaged: the position does not match its key");
        }
        let rules = Rules {
            board,
            chain_rule,
            ..Rules::default()
        };
        let head = Head {
            version,
            root,
            rules,
            verdict,
            table_stones,
            count,
        };
        Ok((head, &body[fen_len..]))
    }

    /// The certificate of this header with `strategies`, which must fit its value and
    /// leave no bytes after them (`rest`).
    pub(super) fn certificate<S: Shaped>(
        self,
        strategies: Vec<S>,
        rest: &[u8],
    ) -> Result<Certificate<S>> {
        if !rest.is_empty() {
            bail!("damaged: bytes after the last strategy");
        }
        let certificate = Certificate {
            root: self.root,
            rules: self.rules,
            verdict: self.verdict,
            table_stones: self.table_stones,
            strategies,
        };
        if !certificate.fits() {
            bail!(
                "its strategies do not fit its value ({})",
                certificate.verdict
            );
        }
        Ok(certificate)
    }
}

impl<S: Shaped> Certificate<S> {
    /// Whether the strategies are those the value needs: [`Certificate::expected`] for a
    /// value, one side's defence for one side's result (value unknown).
    pub fn fits(&self) -> bool {
        let shapes = self.shapes();
        match self.verdict {
            Verdict::Unknown => matches!(shapes[..], [(_, Guarantee::NoLoss)]),
            verdict => shapes == Certificate::expected(verdict, self.root.side_to_move()),
        }
    }

    /// What the proof shows, for the report: `win for white`, or for one side's result
    /// `draw or better for black`.
    pub fn claim(&self) -> String {
        match (self.verdict, self.shapes().first()) {
            (Verdict::Unknown, Some((owner, _))) => {
                format!("draw or better for {}", owner.name())
            }
            (verdict, _) => format!("{verdict} for {}", self.root.side_to_move().name()),
        }
    }

    /// The same proof with `strategies` in another form.
    pub fn with<T>(&self, strategies: Vec<T>) -> Certificate<T> {
        Certificate {
            root: self.root,
            rules: self.rules,
            verdict: self.verdict,
            table_stones: self.table_stones,
            strategies,
        }
    }

    /// Each strategy's owner and guarantee, in order.
    pub fn shapes(&self) -> Vec<(Color, Guarantee)> {
        self.strategies.iter().map(Shaped::shape).collect()
    }

    /// The file's bytes: the header, the root, then each strategy's bytes.
    pub(super) fn file_bytes(&self, version: u32, strategies: &[Vec<u8>]) -> Vec<u8> {
        let fen = self.root.to_string();
        let mut body = fen.as_bytes().to_vec();
        for strategy in strategies {
            body.extend_from_slice(strategy);
        }
        let mut bytes = Vec::with_capacity(HEADER_BYTES + body.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.push(board_code(self.rules.board));
        bytes.push(chain_code(self.rules.chain_rule));
        bytes.push(match self.verdict {
            Verdict::Win => 0,
            Verdict::Draw => 1,
            Verdict::Loss => 2,
            Verdict::Unknown => 3,
        });
        bytes.push(self.table_stones);
        bytes.extend_from_slice(&self.root.key().to_le_bytes());
        bytes.extend_from_slice(&(fen.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(strategies.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        let sum = sum_of(&bytes, &body);
        bytes.extend_from_slice(&sum.to_le_bytes());
        bytes.extend_from_slice(&body);
        bytes
    }
}

/// What every form of a strategy says first: whose it is and what it guarantees.
pub trait Shaped {
    /// The owner and the guarantee.
    fn shape(&self) -> (Color, Guarantee);
}

impl Shaped for Strategy {
    fn shape(&self) -> (Color, Guarantee) {
        (self.owner, self.guarantee)
    }
}

/// The first byte of a strategy's head: its owner.
pub(super) fn owner_byte(owner: Color) -> u8 {
    color_code(owner)
}

/// The second byte of a strategy's head: its guarantee.
pub(super) fn guarantee_byte(guarantee: Guarantee) -> u8 {
    match guarantee {
        Guarantee::Win => 0,
        Guarantee::NoLoss => 1,
    }
}

/// The owner and guarantee of a strategy's head, if they are ones.
pub(super) fn read_shape(head: &[u8]) -> Result<(Color, Guarantee)> {
    let owner = match color_of(head[0]) {
        Some(color) => color,
        None => bail!("damaged: a strategy has no owner"),
    };
    let guarantee = match head[1] {
        0 => Guarantee::Win,
        1 => Guarantee::NoLoss,
        _ => bail!("damaged: a strategy has no guarantee"),
    };
    Ok((owner, guarantee))
}

impl Certificate {
    /// The strategies a `verdict` of `mover` needs: `(owner, guarantee)` each (none for an
    /// unknown value; one side's result has that side's defence, see
    /// [`Certificate::fits`]).
    pub fn expected(verdict: Verdict, mover: Color) -> Vec<(Color, Guarantee)> {
        match verdict {
            Verdict::Win => vec![(mover, Guarantee::Win)],
            Verdict::Loss => vec![(mover.opposite(), Guarantee::Win)],
            Verdict::Draw => vec![
                (mover.opposite(), Guarantee::NoLoss),
                (mover, Guarantee::NoLoss),
            ],
            Verdict::Unknown => Vec::new(),
        }
    }

    /// The number of turns of each strategy, as `N` or `N + M`.
    pub fn turn_counts(&self) -> String {
        let counts: Vec<String> = self
            .strategies
            .iter()
            .map(|s| s.turns.len().to_string())
            .collect();
        counts.join(" + ")
    }

    /// The file's bytes, in full.
    pub fn to_bytes(&self) -> Vec<u8> {
        let strategies: Vec<Vec<u8>> = self
            .strategies
            .iter()
            .map(|strategy| {
                let mut bytes = vec![
                    owner_byte(strategy.owner),
                    guarantee_byte(strategy.guarantee),
                ];
                bytes.extend_from_slice(&[0; 6]);
                bytes.extend_from_slice(&(strategy.turns.len() as u64).to_le_bytes());
                for (key, turn) in &strategy.turns {
                    bytes.extend_from_slice(&key.to_le_bytes());
                    bytes.extend_from_slice(&turn.key().to_le_bytes());
                }
                bytes
            })
            .collect();
        self.file_bytes(FULL, &strategies)
    }

    /// Writes the file in full through a temporary name.
    pub fn write(&self, path: &Path) -> Result<()> {
        write_atomically(path, &self.to_bytes())
    }

    /// Reads a proof in full from its bytes (a compact one is refused:
    /// [`super::ProofFile`] reads both).
    pub fn from_bytes(bytes: &[u8]) -> Result<Certificate> {
        let (head, rest) = Head::read(bytes)?;
        if head.version != FULL {
            bail!("a compact proof, read with the tables it rests on");
        }
        read_full(head, rest)
    }
}

/// The proof in full of the header `head` and the strategies' bytes `rest`.
pub(super) fn read_full(head: Head, mut rest: &[u8]) -> Result<Certificate> {
    let mut strategies = Vec::new();
    for _ in 0..head.count {
        let (strategy, after) = read_strategy(rest)?;
        strategies.push(strategy);
        rest = after;
    }
    head.certificate(strategies, rest)
}

/// The checksum of a file: XXH3 over the header before the checksum, then the body.
fn sum_of(header: &[u8], body: &[u8]) -> u64 {
    Checksum::default().update(header).update(body).finish()
}

/// One strategy from the front of `bytes`, and the bytes after it.
fn read_strategy(bytes: &[u8]) -> Result<(Strategy, &[u8])> {
    let Some(head) = bytes.get(..STRATEGY_HEADER_BYTES) else {
        bail!("damaged: a strategy is cut short");
    };
    let (owner, guarantee) = read_shape(head)?;
    let count = u64::from_le_bytes(head[8..16].try_into().expect("8 bytes"));
    let size = usize::try_from(count)
        .ok()
        .and_then(|n| n.checked_mul(ENTRY_BYTES))
        .filter(|&n| n <= bytes.len() - STRATEGY_HEADER_BYTES)
        .context("damaged: a strategy is cut short")?;
    let entries = &bytes[STRATEGY_HEADER_BYTES..STRATEGY_HEADER_BYTES + size];
    let mut turns = Vec::with_capacity(entries.len() / ENTRY_BYTES);
    for entry in entries.chunks_exact(ENTRY_BYTES) {
        let key = u64::from_le_bytes(entry[..8].try_into().expect("8 bytes"));
        let bits = u64::from_le_bytes(entry[8..].try_into().expect("8 bytes"));
        let turn = unpack_turn(bits).context("damaged: a turn that is no turn")?;
        if turns.last().is_some_and(|&(previous, _)| previous >= key) {
            bail!("damaged: a strategy's positions are out of order");
        }
        turns.push((key, turn));
    }
    let strategy = Strategy {
        owner,
        guarantee,
        turns,
    };
    Ok((strategy, &bytes[STRATEGY_HEADER_BYTES + size..]))
}

/// The turn packed in `bits`, if its points are points of a board.
pub(super) fn unpack_turn(bits: u64) -> Option<Turn> {
    let from = Square::from_index((bits >> 56) as usize)?;
    let to = Square::from_index((bits >> 48 & 0xFF) as usize)?;
    let turn = Turn::new(from, to, Bitboard::from_bits(bits & CAPTURED_BITS));
    (turn.key() == bits).then_some(turn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Board;

    fn sample() -> Certificate {
        let rules = Rules {
            board: Board::Dimy,
            ..Rules::default()
        };
        let root = rules.start();
        let mut turns = Vec::new();
        rules.turn_rules().generate(&root, &mut turns);
        let strategy = |owner| Strategy {
            owner,
            guarantee: Guarantee::NoLoss,
            turns: vec![(1, turns[0]), (root.key(), turns[1])],
        };
        Certificate {
            root,
            rules,
            verdict: Verdict::Draw,
            table_stones: 3,
            strategies: vec![strategy(Color::Black), strategy(Color::White)],
        }
    }

    #[test]
    fn a_proof_reads_back_as_written() {
        let certificate = sample();
        let bytes = certificate.to_bytes();
        assert_eq!(Certificate::from_bytes(&bytes).unwrap(), certificate);
    }

    #[test]
    fn one_sides_result_is_one_defence() {
        let draw = sample();
        let one_side = Certificate {
            verdict: Verdict::Unknown,
            strategies: draw.strategies[..1].to_vec(),
            ..draw.clone()
        };
        assert!(one_side.fits());
        assert_eq!(one_side.claim(), "draw or better for black");
        let bytes = one_side.to_bytes();
        assert_eq!(Certificate::from_bytes(&bytes).unwrap(), one_side);
        let both = Certificate {
            verdict: Verdict::Unknown,
            ..draw
        };
        assert!(!both.fits());
        assert!(Certificate::from_bytes(&both.to_bytes()).is_err());
    }

    #[test]
    fn every_flipped_byte_and_every_cut_is_refused() {
        let bytes = sample().to_bytes();
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert!(Certificate::from_bytes(&damaged).is_err(), "byte {at}");
            assert!(
                Certificate::from_bytes(&bytes[..at]).is_err(),
                "cut at {at}"
            );
        }
    }
}
