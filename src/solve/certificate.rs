//! Proof files: a solved position, its value and the strategies that prove it, written
//! by `vato solve --proof FILE`, verified by `vato solve --check FILE` and read by the
//! engine (`ProofFile`). Specified byte by byte in `docs/proof-format.md`.

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
const VERSION: u32 = 1;
const HEADER_BYTES: usize = 48;
const STRATEGY_HEADER_BYTES: usize = 16;
const ENTRY_BYTES: usize = 16;
/// The bits of a packed turn that hold the captured points.
const CAPTURED_BITS: u64 = (1 << 45) - 1;

/// A proof: the position, the rules, its value for the side to move, and the strategies
/// that show it (see [`super::Solved::strategies`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
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
    pub strategies: Vec<Strategy>,
}

impl Certificate {
    /// The strategies a `verdict` of `mover` needs: `(owner, guarantee)` each.
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

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let fen = self.root.to_string();
        let mut body = fen.as_bytes().to_vec();
        for strategy in &self.strategies {
            body.push(color_code(strategy.owner));
            body.push(match strategy.guarantee {
                Guarantee::Win => 0,
                Guarantee::NoLoss => 1,
            });
            body.extend_from_slice(&[0; 6]);
            body.extend_from_slice(&(strategy.turns.len() as u64).to_le_bytes());
            for (key, turn) in &strategy.turns {
                body.extend_from_slice(&key.to_le_bytes());
                body.extend_from_slice(&turn.key().to_le_bytes());
            }
        }
        let mut bytes = Vec::with_capacity(HEADER_BYTES + body.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
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
        bytes.extend_from_slice(&(self.strategies.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        let sum = sum_of(&bytes, &body);
        bytes.extend_from_slice(&sum.to_le_bytes());
        bytes.extend_from_slice(&body);
        bytes
    }

    /// Writes the file through a temporary name.
    pub fn write(&self, path: &Path) -> Result<()> {
        write_atomically(path, &self.to_bytes())
    }

    /// Reads and checks the file at `path` (its form and checksum; whether the strategies
    /// prove the value is `check`'s business).
    pub fn read(path: &Path) -> Result<Certificate> {
        let bytes = std::fs::read(path)
            .with_context(|| format!("cannot read the proof {}", path.display()))?;
        Certificate::from_bytes(&bytes).with_context(|| format!("{}", path.display()))
    }

    /// Reads a proof from its bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Certificate> {
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            bail!("not a Vato proof file");
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let half = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let version = half(8);
        if version != VERSION {
            bail!("proof format {version}, this Vato reads {VERSION}");
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
        let mut rest = &body[fen_len..];
        let mut strategies = Vec::new();
        for _ in 0..count {
            let (strategy, after) = read_strategy(rest)?;
            strategies.push(strategy);
            rest = after;
        }
        if !rest.is_empty() {
            bail!("damaged: bytes after the last strategy");
        }
        let shapes: Vec<(Color, Guarantee)> =
            strategies.iter().map(|s| (s.owner, s.guarantee)).collect();
        if shapes != Certificate::expected(verdict, root.side_to_move()) {
            bail!("its strategies do not fit its value ({verdict})");
        }
        Ok(Certificate {
            root,
            rules: Rules {
                board,
                chain_rule,
                ..Rules::default()
            },
            verdict,
            table_stones,
            strategies,
        })
    }
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
    let owner = match color_of(head[0]) {
        Some(color) => color,
        None => bail!("damaged: a strategy has no owner"),
    };
    let guarantee = match head[1] {
        0 => Guarantee::Win,
        1 => Guarantee::NoLoss,
        _ => bail!("damaged: a strategy has no guarantee"),
    };
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
