//! A dense numbering of a layer's symmetry classes, so that the solver keeps about a
//! quarter of a layer in memory.
//!
//! A layer's index is the rank of the mover's stones times the number of placements of the
//! opponent's, plus the opponent's rank (see [`super::index`]): one *row* of indices for
//! each set of the mover's stones. The canonical member of a class (see
//! [`super::symmetry`]) has the least of its mover's images, so a row whose mover's stones
//! have a smaller mirror image holds no canonical placement at all. The numbering keeps the
//! other rows, in index order, and drops those: an *entry* is a kept row's number times the
//! row's width plus the opponent's rank. A row whose stones a mirror maps onto themselves
//! keeps all its placements, some of them not canonical; their entries are slots the solver
//! leaves unused, which costs a little memory and keeps the numbering a multiplication.

use super::index::{binomial, mover_rank, opponent_rank, placement_of};
use super::symmetry::{Class, canonical, class_of, is_canonical};
use crate::rules::bitboard::Bitboard;
use crate::rules::board::Board;

/// In [`Classes::row_of_rank`]: the row holds no canonical placement.
const NO_ROW: u32 = u32::MAX;
/// In [`Classes::row_of_rank`]: a mirror maps the row's stones onto themselves, so the
/// opponent's stones decide which placements are canonical.
const SYMMETRIC: u32 = 1 << 31;

/// The entries of one layer: which rows are kept, and where.
pub(super) struct Classes {
    board: Board,
    /// Stones of the side to move and of the opponent.
    layer: (usize, usize),
    /// Placements of the opponent's stones in a row.
    width: u64,
    /// By the rank of the mover's stones: the kept row's number (with [`SYMMETRIC`]), or
    /// [`NO_ROW`].
    row_of_rank: Vec<u32>,
    /// By kept row: the rank of its mover's stones.
    rank_of_row: Vec<u32>,
}

impl Classes {
    /// The numbering of layer `(a, b)` on `board`.
    pub(super) fn new(board: Board, (a, b): (usize, usize)) -> Classes {
        let points = board.point_count();
        let sets = binomial(points, a);
        assert!(
            sets < u64::from(SYMMETRIC),
            "{a} stones have too many placements"
        );
        let mut row_of_rank = Vec::with_capacity(sets as usize);
        let mut rank_of_row = Vec::new();
        for rank in 0..sets {
            // With no stone of the opponent, a layer index is the mover's rank.
            let (us, _) = placement_of(board, a, 0, rank);
            let row = rank_of_row.len() as u32;
            let class = class_of(board, us);
            row_of_rank.push(match class {
                Class::None => NO_ROW,
                Class::All => row,
                Class::Some => row | SYMMETRIC,
            });
            if class != Class::None {
                rank_of_row.push(rank as u32);
            }
        }
        Classes {
            board,
            layer: (a, b),
            width: binomial(points - a, b),
            row_of_rank,
            rank_of_row,
        }
    }

    /// How many entries the layer has.
    pub(super) fn len(&self) -> u64 {
        self.rank_of_row.len() as u64 * self.width
    }

    /// The layer index of `entry`.
    #[inline]
    pub(super) fn layer_index(&self, entry: u64) -> u64 {
        u64::from(self.rank_of_row[(entry / self.width) as usize]) * self.width + entry % self.width
    }

    /// The placement of `entry`, and whether it is canonical: `false` marks an unused slot
    /// of a symmetric row.
    #[inline]
    pub(super) fn placement(&self, entry: u64) -> (Bitboard, Bitboard, bool) {
        let (a, b) = self.layer;
        let (us, them) = placement_of(self.board, a, b, self.layer_index(entry));
        let row = self.row_of_rank_of(entry);
        let canonical = row & SYMMETRIC == 0 || is_canonical(self.board, us, them);
        (us, them, canonical)
    }

    fn row_of_rank_of(&self, entry: u64) -> u32 {
        let rank = self.rank_of_row[(entry / self.width) as usize];
        self.row_of_rank[rank as usize]
    }

    /// The entry of the layer index `index`, when its row is kept. Every canonical
    /// placement's row is.
    #[inline]
    pub(super) fn entry_of_index(&self, index: u64) -> Option<u64> {
        let row = self.row_of_rank[(index / self.width) as usize];
        (row != NO_ROW).then(|| u64::from(row & !SYMMETRIC) * self.width + index % self.width)
    }

    /// The entry of `(us, them)` when that placement is canonical, `None` when it is not.
    #[inline]
    pub(super) fn entry_if_canonical(&self, us: Bitboard, them: Bitboard) -> Option<u64> {
        // Three rows in four hold no canonical placement: they are told by the mover's
        // stones alone, before the opponent's are ranked.
        let row = self.row_of_rank[mover_rank(self.board, us) as usize];
        if row == NO_ROW || (row & SYMMETRIC != 0 && !is_canonical(self.board, us, them)) {
            return None;
        }
        Some(u64::from(row & !SYMMETRIC) * self.width + opponent_rank(self.board, us, them))
    }

    /// The entry of the class of any placement `(us, them)` of the layer.
    #[inline]
    pub(super) fn entry_of(&self, us: Bitboard, them: Bitboard) -> u64 {
        let (us, them) = canonical(self.board, us, them);
        self.entry_if_canonical(us, them)
            .expect("a canonical placement has an entry")
    }

    /// The layer indices of the kept rows, one range a row, in order.
    pub(super) fn rows(&self) -> impl Iterator<Item = std::ops::Range<u64>> + '_ {
        self.rank_of_row.iter().map(|&rank| {
            let start = u64::from(rank) * self.width;
            start..start + self.width
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::index::{index_of, layer_size};
    use crate::tablebase::symmetry::members;
    use std::collections::HashSet;

    #[test]
    fn every_class_has_one_entry_and_every_member_finds_it() {
        for board in Board::ALL {
            for layer in [(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (3, 2)] {
                let classes = Classes::new(board, layer);
                let size = layer_size(board, layer.0, layer.1);
                let mut used = HashSet::new();
                let mut classes_seen = 0;
                for index in 0..size {
                    let (us, them) = placement_of(board, layer.0, layer.1, index);
                    let entry = classes.entry_of(us, them);
                    assert!(entry < classes.len());
                    let (u, t, canonical) = classes.placement(entry);
                    assert!(canonical, "{board} {layer:?}: a used entry is canonical");
                    assert!(
                        members(board, u, t).0.contains(&(us.bits(), them.bits())),
                        "{board} {layer:?}: the entry holds a member of the class"
                    );
                    assert_eq!(classes.entry_of_index(index_of(board, u, t)), Some(entry));
                    if classes.entry_if_canonical(us, them).is_some() {
                        classes_seen += 1;
                    }
                    used.insert(entry);
                }
                // One entry per class, and the rows kept cover them with little to spare.
                assert_eq!(used.len(), classes_seen, "{board} {layer:?}");
                assert!(classes.len() < size / 3 + size / 10, "{board} {layer:?}");
                let unused = (0..classes.len())
                    .filter(|&entry| !classes.placement(entry).2)
                    .count();
                assert_eq!(used.len() + unused, classes.len() as usize);
            }
        }
    }

    #[test]
    fn rows_list_the_kept_rows_in_index_order() {
        let classes = Classes::new(Board::Tsivy, (2, 1));
        let rows: Vec<_> = classes.rows().collect();
        assert_eq!(rows.len() as u64 * 43, classes.len());
        for (row, range) in rows.iter().enumerate() {
            assert_eq!(
                classes.entry_of_index(range.start),
                Some(row as u64 * 43),
                "row {row}"
            );
        }
        assert!(rows.windows(2).all(|pair| pair[0].end <= pair[1].start));
    }
}
