//! The board's symmetries, and the canonical member of a class of placements.
//!
//! Both capture boards keep their lines and strong points under three mirrors: of the files
//! (a <-> i on Tsivy, a <-> e on Dimy), of the ranks (1 <-> 5), and both (the half turn).
//! (Dimy's square board has four more, through its diagonals, which Tsivy lacks; the
//! tables use the four that both share.) A position and its mirror images have the same
//! value, so the files store one of them, the *canonical* one: of the four placements
//! `(T(us), T(them))`, the one whose mover's stones, read as a 45-bit number, are
//! smallest, the opponent's deciding between mirrors that map the mover's stones onto
//! themselves. Comparing the mover's stones first makes a whole run of a layer's indices
//! (one set of the mover's stones, every placement of the opponent's) canonical or not
//! together, which the block compression turns into almost nothing.

use crate::rules::bitboard::Bitboard;
use crate::rules::board::Board;
use crate::rules::geometry::{FILES, RANKS};

/// Bits of one rank in a bitboard.
const RANK_MASK: u64 = (1 << FILES) - 1;

/// Each rank's points mirrored, for a board of `files` points a rank: bit `f` to bit
/// `files - 1 - f`.
const fn rank_mirror(files: u32) -> [u16; 1 << FILES] {
    let mut table = [0u16; 1 << FILES];
    let mut bits = 0;
    while bits < (1 << FILES) {
        let mut f = 0;
        while f < files {
            if bits & (1 << f) != 0 {
                table[bits] |= 1 << (files - 1 - f);
            }
            f += 1;
        }
        bits += 1;
    }
    table
}

static TSIVY_RANK_MIRROR: [u16; 1 << FILES] = rank_mirror(FILES as u32);
static DIMY_RANK_MIRROR: [u16; 1 << FILES] = rank_mirror(Board::Dimy.files() as u32);

/// The files mirrored: each rank's points reversed within the board's width.
#[inline]
fn mirror_files(board: Board, bits: u64) -> u64 {
    let table = match board {
        Board::Tsivy => &TSIVY_RANK_MIRROR,
        Board::Dimy => &DIMY_RANK_MIRROR,
    };
    let mut out = 0;
    for rank in 0..RANKS as u32 {
        let shift = rank * FILES as u32;
        out |= u64::from(table[((bits >> shift) & RANK_MASK) as usize]) << shift;
    }
    out
}

/// The ranks mirrored: rank 1 swaps with 5, 2 with 4.
#[inline]
fn mirror_ranks(bits: u64) -> u64 {
    let rank = |r: u32| (bits >> (r * FILES as u32)) & RANK_MASK;
    let mut out = 0;
    for r in 0..RANKS as u32 {
        out |= rank(r) << ((RANKS as u32 - 1 - r) * FILES as u32);
    }
    out
}

/// The four symmetries, as the image of `bits` under each: identity, files mirrored,
/// ranks mirrored, both.
#[inline]
fn images(board: Board, bits: u64) -> [u64; 4] {
    let files = mirror_files(board, bits);
    [bits, files, mirror_ranks(bits), mirror_ranks(files)]
}

/// The canonical placement of the class of `(us, them)` on `board` (see the module's
/// text): the one the files store.
#[inline]
pub fn canonical(board: Board, us: Bitboard, them: Bitboard) -> (Bitboard, Bitboard) {
    let ours = images(board, us.bits());
    let least = ours.iter().copied().min().expect("four images");
    if ours[1..].iter().all(|&image| image != least) {
        return (us, them); // the usual case: only the identity gives the least
    }
    let theirs = images(board, them.bits());
    let (u, t) = (0..4)
        .filter(|&i| ours[i] == least)
        .map(|i| (ours[i], theirs[i]))
        .min_by_key(|&(_, t)| t)
        .expect("the least image is some symmetry's");
    (Bitboard::from_bits(u), Bitboard::from_bits(t))
}

/// How the mover's stones `us` decide whether the placements with them are canonical.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Class {
    /// Every placement with these stones of the mover is canonical.
    All,
    /// None is: a mirror image of these stones is smaller.
    None,
    /// A mirror maps these stones onto themselves: the opponent's stones decide, one
    /// placement at a time (see [`canonical`]).
    Some,
}

/// Whether the placements with the mover's stones `us` are canonical.
#[inline]
pub fn class_of(board: Board, us: Bitboard) -> Class {
    let ours = images(board, us.bits());
    if ours[1..].iter().any(|&image| image < ours[0]) {
        Class::None
    } else if ours[1..].contains(&ours[0]) {
        Class::Some
    } else {
        Class::All
    }
}

/// The distinct placements of the class of `(us, them)`, as bits: the first `count` of
/// the array, `count` being 4, or 2 or 1 for a placement that a mirror maps onto itself.
#[inline]
pub fn members(board: Board, us: Bitboard, them: Bitboard) -> ([(u64, u64); 4], usize) {
    let ours = images(board, us.bits());
    let theirs = images(board, them.bits());
    let mut seen = [(0u64, 0u64); 4];
    let mut count = 0;
    for i in 0..4 {
        let image = (ours[i], theirs[i]);
        if !seen[..count].contains(&image) {
            seen[count] = image;
            count += 1;
        }
    }
    (seen, count)
}

/// How many placements the class of `(us, them)` holds: 4, or 2 or 1 for a placement that
/// a mirror maps onto itself.
pub fn class_size(board: Board, us: Bitboard, them: Bitboard) -> u8 {
    members(board, us, them).1 as u8
}

/// Whether `(us, them)` is the canonical member of its class.
#[inline]
pub fn is_canonical(board: Board, us: Bitboard, them: Bitboard) -> bool {
    canonical(board, us, them) == (us, them)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::geometry::{ADJACENT, Square};

    fn squares(board: Board) -> Vec<Square> {
        board.points().into_iter().collect()
    }

    #[test]
    fn mirrors_keep_the_board_and_its_lines() {
        for board in Board::ALL {
            for transform in 1..4 {
                let image = |s: Square| {
                    let bits = images(board, 1u64 << s.index())[transform];
                    assert_eq!(bits.count_ones(), 1, "{board}: a point goes to one point");
                    bits.trailing_zeros() as usize
                };
                for s in squares(board) {
                    let to = image(s);
                    assert!(
                        board.points().bits() & (1 << to) != 0,
                        "{board}: on the board"
                    );
                    // Neighbours stay neighbours, so lines and strong points are kept.
                    let neighbours = ADJACENT[s.index()] & board.points().bits();
                    let mapped: u64 = Bitboard::from_bits(neighbours)
                        .into_iter()
                        .map(|n| 1u64 << image(n))
                        .sum();
                    assert_eq!(mapped, ADJACENT[to] & board.points().bits(), "{board} {s}");
                }
                // Each mirror is its own inverse.
                let all = board.points().bits();
                assert_eq!(images(board, images(board, all)[transform])[transform], all);
            }
        }
    }

    #[test]
    fn every_member_of_a_class_has_the_same_canonical_member() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for board in Board::ALL {
            let points = squares(board);
            for _ in 0..2_000 {
                let mut us = 0u64;
                let mut them = 0u64;
                for (i, &s) in points.iter().enumerate() {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    match (seed >> 20) % 9 {
                        0 if i % 3 != 1 => us |= 1 << s.index(),
                        1 => them |= 1 << s.index(),
                        _ => {}
                    }
                }
                let (u, t) = (Bitboard::from_bits(us), Bitboard::from_bits(them));
                let least = canonical(board, u, t);
                assert!(is_canonical(board, least.0, least.1));
                let ours = images(board, us);
                let theirs = images(board, them);
                for i in 0..4 {
                    let image = (Bitboard::from_bits(ours[i]), Bitboard::from_bits(theirs[i]));
                    assert_eq!(canonical(board, image.0, image.1), least);
                }
                let members: std::collections::HashSet<_> =
                    (0..4).map(|i| (ours[i], theirs[i])).collect();
                assert_eq!(usize::from(class_size(board, u, t)), members.len());
                assert_eq!(
                    images(board, us)[1],
                    board.mirror_files(Bitboard::from_bits(us)).bits()
                );
                assert_eq!(
                    images(board, us)[2],
                    Bitboard::from_bits(us).mirror_ranks().bits()
                );
                let class = class_of(board, u);
                match class {
                    Class::All => assert!(is_canonical(board, u, t)),
                    Class::None => assert!(!is_canonical(board, u, t)),
                    Class::Some => {}
                }
            }
        }
    }
}
