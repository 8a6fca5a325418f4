//! Files that Vato writes for itself to read back (training data, networks, training
//! checkpoints): a checksum that the reader verifies, and writing through a temporary name
//! renamed when complete, so that an interrupted write never leaves a file that looks whole.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits: fast, and enough to catch truncation and bit rot (not tampering).
#[derive(Copy, Clone, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    /// Adds `bytes` to the hash.
    pub fn update(&mut self, bytes: &[u8]) -> &mut Fnv1a {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self
    }

    /// The hash of everything added.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// The FNV-1a hash of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    Fnv1a::default().update(bytes).finish()
}

/// `path` with `.partial` appended: where a file is written before it is complete.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Writes `bytes` to `path` through its partial name, renamed once the bytes are written.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let temporary = partial_path(path);
    std::fs::write(&temporary, bytes)
        .with_context(|| format!("cannot write {}", temporary.display()))?;
    std::fs::rename(&temporary, path).with_context(|| {
        format!(
            "cannot rename {} to {}",
            temporary.display(),
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_hashes_and_pieces() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            Fnv1a::default().update(b"fo").update(b"o").finish(),
            fnv1a(b"foo")
        );
    }
}
