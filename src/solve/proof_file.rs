//! A proof file as read from disk, in either form: in full (`certificate`) or compact
//! (`compact_proof`). What every reader of a file (the checker, the store's merge, the
//! engine) starts from.

use super::certificate::{COMPACT, Certificate, FULL, Head, read_full};
use super::compact_proof::{CompactProof, read_compact};
use crate::rules::Rules;
use crate::tablebase::Tablebase;
use anyhow::{Context, Result, bail};
use std::path::Path;

/// A proof file as read: in full, or compact (which the tables turn back into the full
/// form, see [`CompactProof::expand`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProofFile {
    /// Every position's turn (version 1).
    Full(Certificate),
    /// The owner's choices only (version 2).
    Compact(CompactProof),
}

impl ProofFile {
    /// Reads and checks the file at `path` (its form and checksum; whether the strategies
    /// prove the value is `check`'s business, or for a compact one `expand`'s).
    pub fn read(path: &Path) -> Result<ProofFile> {
        let bytes = std::fs::read(path)
            .with_context(|| format!("cannot read the proof {}", path.display()))?;
        ProofFile::from_bytes(&bytes).with_context(|| format!("{}", path.display()))
    }

    /// Reads a proof from its bytes, in either form.
    pub fn from_bytes(bytes: &[u8]) -> Result<ProofFile> {
        let (head, rest) = Head::read(bytes)?;
        Ok(match head.version {
            FULL => ProofFile::Full(read_full(head, rest)?),
            COMPACT => ProofFile::Compact(read_compact(head, rest)?),
            version => bail!("proof format {version}, this Vato reads {FULL} and {COMPACT}"),
        })
    }

    /// The board and chain rule of the proof.
    pub fn rules(&self) -> Rules {
        match self {
            ProofFile::Full(c) => c.rules,
            ProofFile::Compact(c) => c.rules,
        }
    }

    /// The most stones of the table layers the proof takes as leaves.
    pub fn table_stones(&self) -> u8 {
        match self {
            ProofFile::Full(c) => c.table_stones,
            ProofFile::Compact(c) => c.table_stones,
        }
    }

    /// The proof in full: a compact one's turns found again by following its choices
    /// with `tables`, the layers it rests on (which checks it on the way).
    pub fn into_full(self, tables: Option<&Tablebase>) -> Result<Certificate> {
        match self {
            ProofFile::Full(certificate) => Ok(certificate),
            ProofFile::Compact(compact) => Ok(compact.expand(tables)?.0),
        }
    }
}
