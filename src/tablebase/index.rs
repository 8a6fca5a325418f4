//! Dense indexing of a layer's placements: the combinatorial number system over the 45 points.

use crate::rules::bitboard::Bitboard;
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

/// The number of positions in layer `(a, b)`: `C(45, a) * C(45 - a, b)`.
pub fn layer_size(a: usize, b: usize) -> u64 {
    binomial(NUM_SQUARES, a) * binomial(NUM_SQUARES - a.min(NUM_SQUARES), b)
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
fn compress(bits: u64, taken: u64) -> u64 {
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

/// The index of a placement within its layer `(us.count(), them.count())`.
pub fn index_of(us: Bitboard, them: Bitboard) -> u64 {
    let (a, b) = (us.count() as usize, them.count() as usize);
    rank_set(us.bits()) * binomial(NUM_SQUARES - a, b) + rank_set(compress(them.bits(), us.bits()))
}

/// The placement `(us, them)` with index `index` in layer `(a, b)`.
pub fn placement_of(a: usize, b: usize, index: u64) -> (Bitboard, Bitboard) {
    let width = binomial(NUM_SQUARES - a, b);
    let us = unrank_set(index / width, a, NUM_SQUARES);
    let them = expand(unrank_set(index % width, b, NUM_SQUARES - a), us);
    (Bitboard::from_bits(us), Bitboard::from_bits(them))
}

/// The position of layer `(a, b)` with index `index`, White to move, counters at zero.
pub fn position_of(a: usize, b: usize, index: u64) -> Position {
    let (us, them) = placement_of(a, b, index);
    Position::new(us, them, Color::White, 0, 1).expect("a placement never overlaps")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_up_to_seven_stones_hold_the_published_count() {
        let total: u64 = (2..=7)
            .flat_map(layers_with)
            .map(|(a, b)| layer_size(a, b))
            .sum();
        assert_eq!(total, 6_261_651_660);
    }

    #[test]
    fn ranking_round_trips() {
        for (a, b) in [(1, 1), (2, 1), (1, 2), (3, 2), (2, 3), (4, 3)] {
            let size = layer_size(a, b);
            let step = (size / 5_000).max(1);
            let mut index = 0;
            while index < size {
                let (us, them) = placement_of(a, b, index);
                assert_eq!((us.count() as usize, them.count() as usize), (a, b));
                assert!((us & them).is_empty());
                assert_eq!(index_of(us, them), index);
                index += step;
            }
            let (us, them) = placement_of(a, b, size - 1);
            assert_eq!(index_of(us, them), size - 1);
        }
    }

    #[test]
    fn small_layers_rank_densely() {
        // Every placement of the (2, 1) layer appears exactly once.
        let mut seen = vec![false; layer_size(2, 1) as usize];
        for x in 0..45u64 {
            for y in x + 1..45 {
                for z in 0..45u64 {
                    if z == x || z == y {
                        continue;
                    }
                    let us = Bitboard::from_bits(1 << x | 1 << y);
                    let index = index_of(us, Bitboard::from_bits(1 << z)) as usize;
                    assert!(!seen[index]);
                    seen[index] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}
