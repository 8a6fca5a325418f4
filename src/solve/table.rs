//! The proof table: proof and disproof numbers by position, so that transpositions and
//! re-expansions are not searched again.

use super::huge_pages;

/// Proof numbers at or above this are infinite: a disproved node has proof number
/// [`INFINITE`] and disproof number 0, a proved one the reverse.
pub const INFINITE: u32 = u32::MAX / 4;

/// The largest proof number of a node not yet decided.
pub const FINITE_MAX: u32 = INFINITE - 1;

/// An entry as it is saved and read back: key, phi, delta, and its order of proof (high
/// 32 bits) with its work and its mark of a value resting on the path (low 32 bits).
pub type Stored = (u64, u32, u32, u64);

#[derive(Copy, Clone, Default)]
struct Entry {
    /// The position's key, 0 for an empty slot.
    key: u64,
    /// `phi` and `delta` of the node for the side to move (see `dfpn`).
    phi: u32,
    delta: u32,
    /// Nodes searched below it (at most [`MOST_WORK`]), to keep the costly entries when
    /// two collide; its top bit is [`RESTS_ON_PATH`].
    work: u32,
    /// For a decided entry: how many entries were decided before it, plus one.
    order: u32,
}

/// The bit of an entry's work that marks a value resting on a repetition of a position
/// above it on the line it was found on: it may not hold on another line. (A bit of the
/// work, not a field: an entry stays 24 bytes.)
const RESTS_ON_PATH: u32 = 1 << 31;

/// The most work an entry records.
const MOST_WORK: u32 = RESTS_ON_PATH - 1;

impl Entry {
    fn decided(&self) -> bool {
        self.phi == 0 || self.delta == 0
    }

    fn rests_on_path(&self) -> bool {
        self.work & RESTS_ON_PATH != 0
    }
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
    /// The order the next decided entry gets.
    next_order: u32,
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
            entries: huge_pages::filled(slots, Entry::default()),
            mask: slots - 2,
            filled: 0,
            most,
            next_order: 1,
        }
    }

    /// Four times the slots, every entry moved to its new bucket.
    fn grow(&mut self) {
        let slots = (self.entries.len() * 4).min(self.most);
        let mut grown = ProofTable::with_slots(slots, self.most);
        grown.next_order = self.next_order;
        for entry in self.entries.iter().filter(|e| e.key != 0) {
            grown.place(*entry);
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

    fn entry(&self, key: u64) -> Option<&Entry> {
        let at = self.bucket(key);
        self.entries[at..at + 2]
            .iter()
            .find(|e| e.key == key && key != 0)
    }

    /// The nodes searched below the position with key `key`, 0 if it is not stored.
    pub fn work(&self, key: u64) -> u64 {
        self.entry(key).map_or(0, |e| u64::from(e.work & MOST_WORK))
    }

    /// Whether the value stored for `key` was put with
    /// [`ProofTable::put_resting_on_path`].
    pub fn rests_on_path(&self, key: u64) -> bool {
        self.entry(key).is_some_and(Entry::rests_on_path)
    }

    /// Forgets every value that rests on a repetition of its line: what is left holds
    /// whatever the path (a value resting on one read from the table was marked too).
    pub fn forget_what_rests_on_path(&mut self) {
        for entry in &mut self.entries {
            if entry.key != 0 && entry.rests_on_path() {
                *entry = Entry::default();
                self.filled -= 1;
            }
        }
    }

    /// For a decided position, how many were decided before it, plus one: a position
    /// decided by its children was decided after them, so following the earlier-decided
    /// child does not go round in a circle while the entries last. 0 when the position is
    /// not decided here.
    pub fn order(&self, key: u64) -> u32 {
        self.entry(key)
            .filter(|e| e.decided())
            .map_or(0, |e| e.order)
    }

    /// Every stored entry (see [`Stored`]).
    pub fn stored(&self) -> impl Iterator<Item = Stored> + '_ {
        self.entries.iter().filter(|e| e.key != 0).map(|e| {
            (
                e.key,
                e.phi,
                e.delta,
                u64::from(e.order) << 32 | u64::from(e.work),
            )
        })
    }

    /// Puts back an entry as [`ProofTable::stored`] gave it.
    pub fn restore(&mut self, (key, phi, delta, packed): Stored) {
        let order = (packed >> 32) as u32;
        self.next_order = self.next_order.max(order.saturating_add(1));
        self.make_room(key);
        self.place(Entry {
            key,
            phi,
            delta,
            work: packed as u32,
            order,
        });
    }

    /// Stores `(phi, delta)` for `key`, found with `work` nodes below it. A position
    /// decided again with the same value keeps the order it was first decided in.
    pub fn put(&mut self, key: u64, phi: u32, delta: u32, work: u64) {
        self.put_marked(key, phi, delta, work, false);
    }

    /// [`ProofTable::put`] for a value that rests on a repetition of a position above it
    /// on the line it was found on, marked so that
    /// [`ProofTable::forget_what_rests_on_path`] forgets it.
    pub fn put_resting_on_path(&mut self, key: u64, phi: u32, delta: u32, work: u64) {
        self.put_marked(key, phi, delta, work, true);
    }

    fn put_marked(&mut self, key: u64, phi: u32, delta: u32, work: u64, on_path: bool) {
        self.make_room(key);
        let work = u32::try_from(work).unwrap_or(MOST_WORK).min(MOST_WORK);
        let mut entry = Entry {
            key,
            phi,
            delta,
            work: if on_path { work | RESTS_ON_PATH } else { work },
            order: 0,
        };
        if entry.decided() {
            entry.order = match self.entry(key) {
                Some(old) if (old.phi, old.delta) == (phi, delta) && old.order != 0 => old.order,
                _ => {
                    let order = self.next_order;
                    self.next_order = order.saturating_add(1);
                    order
                }
            };
        }
        self.place(entry);
    }

    /// Grows the table when it is half full, or when the bucket of `key` is full.
    fn make_room(&mut self, key: u64) {
        if self.filled * 2 >= self.entries.len() && self.entries.len() < self.most {
            self.grow();
        }
        let at = self.bucket(key);
        // Below its full size the table grows rather than drop an entry: a lost entry is
        // searched again, and in a graph with cycles df-pn may then never finish.
        let full = |slots: &[Entry]| slots.iter().all(|e| e.key != 0 && e.key != key);
        if full(&self.entries[at..at + 2]) && self.entries.len() < self.most {
            self.grow();
            self.make_room(key);
        }
    }

    /// Writes `entry` in its bucket: over the same key, else in an empty slot, else over
    /// an open entry rather than a decided one (a proof's small leaves have little work
    /// below them, and writing the proof down needs them), else over the one with less
    /// work below it.
    fn place(&mut self, entry: Entry) {
        let at = self.bucket(entry.key);
        let key = entry.key;
        let slots = &mut self.entries[at..at + 2];
        let worth = |e: &Entry| (e.decided(), e.work & MOST_WORK);
        let index = slots
            .iter()
            .position(|e| e.key == key)
            .or_else(|| slots.iter().position(|e| e.key == 0))
            .unwrap_or(if worth(&slots[0]) <= worth(&slots[1]) {
                0
            } else {
                1
            });
        if slots[index].key == 0 {
            self.filled += 1;
        }
        slots[index] = entry;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_decided_after_another_comes_after_it_and_keeps_its_place() {
        let mut table = ProofTable::new(1);
        table.put(11, 0, INFINITE, 5);
        table.put(12, 3, 4, 9);
        table.put(13, INFINITE, 0, 20);
        assert!(table.order(11) > 0 && table.order(13) > table.order(11));
        assert_eq!(table.order(12), 0, "an open entry has no order");
        let first = table.order(11);
        table.put(11, 0, INFINITE, 50);
        assert_eq!(table.order(11), first, "decided again the same way");
        table.put(11, INFINITE, 0, 50);
        assert!(
            table.order(11) > table.order(13),
            "decided the other way: a new place"
        );

        let mut copy = ProofTable::new(1);
        for entry in table.stored() {
            copy.restore(entry);
        }
        for key in [11, 12, 13] {
            assert_eq!(copy.get(key), table.get(key));
            assert_eq!(copy.order(key), table.order(key));
            assert_eq!(copy.work(key), table.work(key));
        }
        copy.put(14, 0, INFINITE, 1);
        assert!(copy.order(14) > copy.order(11), "restored orders go on");
    }

    #[test]
    fn values_resting_on_the_path_are_marked_kept_through_a_checkpoint_and_forgotten() {
        let mut table = ProofTable::new(1);
        table.put(21, 0, INFINITE, 5);
        table.put_resting_on_path(22, INFINITE, 0, 6);
        table.put_resting_on_path(23, 4, 4, u64::MAX);
        assert!(!table.rests_on_path(21) && table.rests_on_path(22));
        assert_eq!(table.work(22), 6, "the mark is not work");
        assert_eq!(u64::from(MOST_WORK), table.work(23));
        table.put(22, INFINITE, 0, 7);
        assert!(!table.rests_on_path(22), "decided again on no repetition");
        table.put_resting_on_path(22, INFINITE, 0, 7);

        let mut copy = ProofTable::new(1);
        for entry in table.stored() {
            copy.restore(entry);
        }
        assert!(copy.rests_on_path(22) && !copy.rests_on_path(21));
        copy.forget_what_rests_on_path();
        assert_eq!(copy.get(21), Some((0, INFINITE)));
        assert_eq!((copy.get(22), copy.get(23)), (None, None));
        copy.put(24, 1, 1, 1);
        assert_eq!(copy.filled, 2, "forgotten slots are free again");
    }

    #[test]
    fn a_full_bucket_gives_up_an_open_entry_before_a_decided_one() {
        // The smallest table: two slots, one bucket, no room to grow.
        let mut table = ProofTable::with_slots(2, 2);
        table.put(1, 0, INFINITE, 1);
        table.put(2, 5, 7, 1_000);
        table.put(3, 2, 2, 10);
        assert!(table.get(1).is_some(), "the decided entry stays");
        assert!(table.get(2).is_none() && table.get(3).is_some());
    }
}
