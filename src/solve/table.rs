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

/// A table of two-slot buckets that grows, up to its size, as it fills: a small proof
/// costs no more than its entries, whatever size the table may reach.
pub struct ProofTable {
    entries: Vec<Entry>,
    mask: usize,
    /// Slots in use.
    filled: usize,
    /// The most slots the table may have.
    most: usize,
}

/// Slots a table starts with (a power of two): 1.5 MiB.
const FIRST_SLOTS: usize = 1 << 16;

impl ProofTable {
    /// A table of at most about `megabytes` MiB.
    pub fn new(megabytes: usize) -> ProofTable {
        let wanted = (megabytes.max(1) << 20) / std::mem::size_of::<Entry>();
        let most = (wanted.next_power_of_two() / 2).max(2);
        ProofTable::with_slots(most.min(FIRST_SLOTS), most)
    }

    fn with_slots(slots: usize, most: usize) -> ProofTable {
        ProofTable {
            entries: vec![Entry::default(); slots],
            mask: slots - 2,
            filled: 0,
            most,
        }
    }

    /// Four times the slots, every entry moved to its new bucket.
    fn grow(&mut self) {
        let slots = (self.entries.len() * 4).min(self.most);
        let mut grown = ProofTable::with_slots(slots, self.most);
        for entry in self.entries.iter().filter(|e| e.key != 0) {
            grown.put(entry.key, entry.phi, entry.delta, entry.work);
        }
        *self = grown;
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
        if self.filled * 2 >= self.entries.len() && self.entries.len() < self.most {
            self.grow();
        }
        let mut at = self.bucket(key);
        // Below its full size the table grows rather than drop an entry: a lost entry is
        // searched again, and in a graph with cycles df-pn may then never finish.
        let full = |slots: &[Entry]| slots.iter().all(|e| e.key != 0 && e.key != key);
        while full(&self.entries[at..at + 2]) && self.entries.len() < self.most {
            self.grow();
            at = self.bucket(key);
        }
        let slots = &mut self.entries[at..at + 2];
        let index = slots
            .iter()
            .position(|e| e.key == key)
            .or_else(|| slots.iter().position(|e| e.key == 0))
            .unwrap_or(if slots[0].work <= slots[1].work { 0 } else { 1 });
        if slots[index].key == 0 {
            self.filled += 1;
        }
        slots[index] = Entry {
            key,
            phi,
            delta,
            work,
        };
    }
}
