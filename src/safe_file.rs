//! Files that Vato writes for itself to read back (training data, networks, training
//! checkpoints): a checksum that the reader verifies, and writing through a temporary name
//! renamed when complete, so that an interrupted write never leaves a file that looks whole.

use anyhow::{Context, Result};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// The checksum of the files Vato writes: XXH3 with 64 bits, a standard hash that reads
/// many bytes a cycle (the byte-at-a-time FNV-1a of older files took seconds on a data
/// set), and enough to catch truncation and bit rot (not tampering).
pub fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// [`checksum`] over bytes that come in pieces: the same value as over their concatenation.
#[derive(Clone, Default)]
pub struct Checksum(xxhash_rust::xxh3::Xxh3Default);

impl Checksum {
    /// Adds `bytes` to the hash.
    pub fn update(&mut self, bytes: &[u8]) -> &mut Checksum {
        self.0.update(bytes);
        self
    }

    /// The hash of everything added.
    pub fn finish(&self) -> u64 {
        self.0.digest()
    }
}

/// FNV-1a with 64 bits, the checksum of files written before [`checksum`]: read only, so
/// that those files still load.
pub fn legacy_fnv1a(pieces: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in pieces.iter().flat_map(|piece| piece.iter()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// `path` with `.partial` appended: where a file is written before it is complete.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Writes the file at `path` through its partial name: `write` fills a buffered writer of
/// the partial file, which is then synced and renamed; on an error the partial file is
/// removed. For files written as they are made (a store segment, a saved defence), too
/// large to build in memory first.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    let temporary = partial_path(path);
    let written = (|| -> Result<()> {
        let file = File::create(&temporary)
            .with_context(|| format!("cannot write {}", temporary.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        write(&mut out)?;
        out.into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .with_context(|| format!("cannot write {}", temporary.display()))?;
        std::fs::rename(&temporary, path).with_context(|| {
            format!(
                "cannot rename {} to {}",
                temporary.display(),
                path.display()
            )
        })
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
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
    fn a_streamed_file_appears_whole_or_not_at_all() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("vato-streamed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("file");
        write_atomically_with(&path, |out| Ok(out.write_all(b"whole")?)).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
        assert!(!partial_path(&path).exists());
        let failed = dir.join("failed");
        let error = write_atomically_with(&failed, |out| {
            out.write_all(b"half")?;
            anyhow::bail!("stopped")
        });
        assert!(error.is_err());
        assert!(!failed.exists() && !partial_path(&failed).exists());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn known_hashes_and_pieces() {
        // XXH3-64's published values for the empty input and "a".
        assert_eq!(checksum(b""), 0x2d06_8005_38d3_94c2);
        assert_eq!(checksum(b"a"), 0xe6c6_32b6_1e96_4e1f);
        let long: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        let mut pieces = Checksum::default();
        for chunk in long.chunks(333) {
            pieces.update(chunk);
        }
        assert_eq!(pieces.finish(), checksum(&long));
        assert_ne!(checksum(&long[1..]), checksum(&long));
    }

    #[test]
    fn the_legacy_hash_is_fnv1a() {
        assert_eq!(legacy_fnv1a(&[]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(legacy_fnv1a(&[b"a"]), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(legacy_fnv1a(&[b"fo", b"o"]), legacy_fnv1a(&[b"foo"]));
    }
}
