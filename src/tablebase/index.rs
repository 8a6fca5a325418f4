//! Dense indexing of a layer's placements: the combinatorial number system over the points
//! of the board (45 for Tsivy, 25 for Dimy).

use crate::rules::bitboard::Bitboard;
use crate::rules::board::Board;
use crate::rules::geometry::NUM_SQUARES;
use crate::rules::position::{Color, Position};

/// The binomial coefficients `C(n, k)` for `n, k <= 45`.
static BINOMIAL: [[u64; NUM_SQUARES + 1]; NUM_SQUARES + 1] = binomial_table();

const fn binomial_table() -> [[u64; NUM_SQUARES + 1]; NUM_SQUARES + 1] {
    let mut table = [[0u64; NUM_SQUARES + 1]; NUM_SQUARES + 1];
    let mut n = 0;
    while n <= NUM_SQUARES {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
}

/// `C(n, k)`, zero when `k > n`.
pub fn binomial(n: usize, k: usize) -> u64 {
    if k > n || n > NUM_SQUARES {
        0
    } else {
        BINOMIAL[n][k]
    }
}

/// The number of positions in layer `(a, b)` on `board` of `n` points: `C(n, a) * C(n - a, b)`.
pub fn layer_size(board: Board, a: usize, b: usize) -> u64 {
    let n = board.point_count();
    binomial(n, a) * binomial(n - a.min(n), b)
}

/// Every layer `(a, b)` with `a, b >= 1` and `a + b == stones`, mover's count descending.
pub fn layers_with(stones: usize) -> Vec<(usize, usize)> {
    (1..stones).rev().map(|a| (a, stones - a)).collect()
}

/// The rank of a set among the sets of its size (combinatorial number system).
fn rank_set(bits: u64) -> u64 {
    let mut rank = 0;
    let mut rest = bits;
    let mut i = 1;
    while rest != 0 {
        let p = rest.trailing_zeros() as usize;
        rank += BINOMIAL[p][i];
        rest &= rest - 1;
        i += 1;
    }
    rank
}

/// The set of `k` elements out of `0..n` with the given rank.
fn unrank_set(mut rank: u64, k: usize, n: usize) -> u64 {
    let mut bits = 0u64;
    let mut top = n;
    for i in (1..=k).rev() {
        // The largest p below `top` with C(p, i) <= rank.
        let mut p = top - 1;
        while BINOMIAL[p][i] > rank {
            p -= 1;
        }
        bits |= 1 << p;
        rank -= BINOMIAL[p][i];
        top = p;
    }
    bits
}

/// Squeezes the points of `bits` outside `taken` down to indices among the free points.
#[inline]
fn compress(bits: u64, taken: u64) -> u64 {
    if taken == 0 {
        return bits; // Tsivy's stones of the side to move: every point is an index
    }
    let mut out = 0;
    let mut rest = bits;
    while rest != 0 {
        let p = rest.trailing_zeros();
        let below = taken & ((1u64 << p) - 1);
        out |= 1 << (p - below.count_ones());
        rest &= rest - 1;
    }
    out
}

/// The inverse of [`compress`]: the free point of each compressed index. Each taken point,
/// from the lowest up, opens a gap by moving the bits at and above it up by one (a few
/// shifts per taken point, no branch per board point).
fn expand(bits: u64, taken: u64) -> u64 {
    let mut out = bits;
    let mut rest = taken;
    while rest != 0 {
        let below = (rest & rest.wrapping_neg()) - 1;
        out = (out & below) | ((out & !below) << 1);
        rest &= rest - 1;
    }
    out
}

/// The index of a placement on `board` within its layer `(us.count(), them.count())`. The
/// board's missing points are squeezed out first, so that Dimy's 25 points rank as densely
/// as Tsivy's 45.
#[inline]
pub fn index_of(board: Board, us: Bitboard, them: Bitboard) -> u64 {
    let width = binomial(
        board.point_count() - us.count() as usize,
        them.count() as usize,
    );
    mover_rank(board, us) * width + opponent_rank(board, us, them)
}

/// The first part of [`index_of`]: the rank of the mover's stones among the sets of their
/// size, which decides alone whether a placement can be canonical (see
/// [`super::classes`]).
#[inline]
pub fn mover_rank(board: Board, us: Bitboard) -> u64 {
    match board {
        Board::Tsivy => rank_set(us.bits()),
        Board::Dimy => rank_set(compress(us.bits(), Board::Dimy.off_board().bits())),
    }
}

/// The second part of [`index_of`]: the rank of the opponent's stones among the sets of
/// their size on the points the mover leaves free.
#[inline]
pub fn opponent_rank(board: Board, us: Bitboard, them: Bitboard) -> u64 {
    let taken = us.bits() | board.off_board().bits();
    rank_set(compress(them.bits(), taken))
}

/// The placement `(us, them)` on `board` with index `index` in layer `(a, b)`.
pub fn placement_of(board: Board, a: usize, b: usize, index: u64) -> (Bitboard, Bitboard) {
    let (us, them) = match board {
        Board::Tsivy => placement_in::<NUM_SQUARES, 0>(a, b, index),
        Board::Dimy => placement_in::<
            { Board::Dimy.point_count() },
            { Board::Dimy.off_board().bits() },
        >(a, b, index),
    };
    (Bitboard::from_bits(us), Bitboard::from_bits(them))
}

/// [`placement_of`] on a board of `N` points, `OFF` the points of the 9 x 5 grid it lacks:
/// constants, so that each board's unranking compiles to its own straight code.
#[inline(always)]
fn placement_in<const N: usize, const OFF: u64>(a: usize, b: usize, index: u64) -> (u64, u64) {
    let width = binomial(N - a, b);
    let us = expand(unrank_set(index / width, a, N), OFF);
    let them = expand(unrank_set(index % width, b, N - a), us | OFF);
    (us, them)
}

/// The position of layer `(a, b)` on `board` with index `index`, White to move, counters at
/// zero.
pub fn position_of(board: Board, a: usize, b: usize, index: u64) -> Position {
    let (us, them) = placement_of(board, a, b, index);
    Position::new_on(board, us, them, Color::White, 0, 1).expect("a placement is on the board")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_up_to_seven_stones_hold_the_published_count() {
        let total: u64 = (2..=7)
            .flat_map(layers_with)
            .map(|(a, b)| layer_size(Board::Tsivy, a, b))
            .sum();
        assert_eq!(total, 6_261_651_660);
        // Dimy: the same sums over 25 points, C(25, n) * (2^n - 2) for n stones.
        let dimy: u64 = (2..=7)
            .flat_map(layers_with)
            .map(|(a, b)| layer_size(Board::Dimy, a, b))
            .sum();
        let expected: u64 = (2..=7u32)
            .map(|n| binomial(25, n as usize) * ((1 << n) - 2))
            .sum();
        assert_eq!(dimy, expected);
    }

    #[test]
    fn ranking_round_trips() {
        for board in Board::ALL {
            for (a, b) in [(1, 1), (2, 1), (1, 2), (3, 2), (2, 3), (4, 3)] {
                let size = layer_size(board, a, b);
                let step = (size / 5_000).max(1);
                let mut index = 0;
                while index < size {
                    let (us, them) = placement_of(board, a, b, index);
                    assert_eq!((us.count() as usize, them.count() as usize), (a, b));
                    assert!((us & them).is_empty());
                    assert!(((us | them) & board.off_board()).is_empty(), "{board}");
                    assert_eq!(index_of(board, us, them), index);
                    index += step;
                }
                let (us, them) = placement_of(board, a, b, size - 1);
                assert_eq!(index_of(board, us, them), size - 1);
            }
        }
    }

    #[test]
    fn small_layers_rank_densely() {
        // Every placement of the (2, 1) layer appears exactly once, on either board.
        for board in Board::ALL {
            let points: Vec<u64> = board
                .points()
                .into_iter()
                .map(|s| s.index() as u64)
                .collect();
            let mut seen = vec![false; layer_size(board, 2, 1) as usize];
            for (i, &x) in points.iter().enumerate() {
                for &y in &points[i + 1..] {
                    for &z in &points {
                        if z == x || z == y {
                            continue;
                        }
                        let us = Bitboard::from_bits(1 << x | 1 << y);
                        let index = index_of(board, us, Bitboard::from_bits(1 << z)) as usize;
                        assert!(!seen[index]);
                        seen[index] = true;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s), "{board}");
        }
    }
}
