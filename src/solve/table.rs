//! The proof table: proof and disproof numbers by position, so that transpositions and
//! re-expansions are not searched again.

/// Proof numbers at or above this are infinite: a disproved node has proof number
/// [`INFINITE`] and disproof number 0, a proved one the reverse.
pub const INFINITE: u32 = u32::MAX / 4;

/// The largest proof number of a node not yet decided.
pub const FINITE_MAX: u32 = INFINITE - 1;

/// An entry as it is saved and read back: key, phi, delta, work.
pub type Stored = (u64, u32, u32, u64);

#[derive(Copy, Clone, Default)]
struct Entry {
    /// The position's key, 0 for an empty slot.
    key: u64,
    /// `phi` and `delta` of the node for the side to move (see `dfpn`).
    phi: u32,
    delta: u32,
    /// Nodes searched below it, to keep the costly entries when two collide.
    work: u64,
}

/// A fixed-size table of two-slot buckets.
pub struct ProofTable {
    entries: Vec<Entry>,
    mask: usize,
}

impl ProofTable {
    /// A table of about `megabytes` MiB.
    pub fn new(megabytes: usize) -> ProofTable {
        let wanted = (megabytes.max(1) << 20) / std::mem::size_of::<Entry>();
        let size = wanted.next_power_of_two() / 2;
        ProofTable {
            entries: vec![Entry::default(); size.max(2)],
            mask: size.max(2) - 2,
        }
    }

    fn bucket(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 20) as usize & self.mask
    }

    /// The stored `(phi, delta)` of the position with key `key`.
    pub fn get(&self, key: u64) -> Option<(u32, u32)> {
        let at = self.bucket(key);
        self.entries[at..at + 2]
            .iter()
            .find(|e| e.key == key && key != 0)
            .map(|e| (e.phi, e.delta))
    }

    /// The nodes searched below the position with key `key`, 0 if it is not stored.
    pub fn work(&self, key: u64) -> u64 {
        let at = self.bucket(key);
        self.entries[at..at + 2]
            .iter()
            .find(|e| e.key == key && key != 0)
            .map_or(0, |e| e.work)
    }

    /// Every stored entry: key, phi, delta, work.
    pub fn stored(&self) -> impl Iterator<Item = Stored> + '_ {
        self.entries
            .iter()
            .filter(|e| e.key != 0)
            .map(|e| (e.key, e.phi, e.delta, e.work))
    }

    /// Stores `(phi, delta)` for `key`, found with `work` nodes below it.
    pub fn put(&mut self, key: u64, phi: u32, delta: u32, work: u64) {
        let at = self.bucket(key);
        let slots = &mut self.entries[at..at + 2];
        let index = slots
            .iter()
            .position(|e| e.key == key)
            .unwrap_or_else(|| if slots[0].work <= slots[1].work { 0 } else { 1 });
        slots[index] = Entry {
            key,
            phi,
            delta,
            work,
        };
    }
}
