//! Board geometry: the 45 points, the eight directions and the lines that join them.
//!
//! Points are numbered `rank * 9 + file` (a1 = 0, i1 = 8, a2 = 9, ..., i5 = 44), so one point
//! is one bit of a `u64` (see [`crate::rules::bitboard`]). A step north adds 9, a step east adds 1.

use std::fmt;

/// Number of files (columns `a`..`i`).
pub const FILES: u8 = 9;
/// Number of ranks (rows `1`..`5`).
pub const RANKS: u8 = 5;
/// Number of points on the board.
pub const NUM_SQUARES: usize = (FILES as usize) * (RANKS as usize);

/// A point of the board. Always one of the 45 points: the constructor checks the range.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// The point at `file` (0 = a) and `rank` (0 = rank 1), if both are on the board.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < FILES && rank < RANKS {
            Some(Square(rank * FILES + file))
        } else {
            None
        }
    }

    /// The point with index `index` (`rank * 9 + file`), if it is below 45.
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < NUM_SQUARES {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// Caller guarantees `index < 45`; used where the index comes from a board bitboard.
    #[inline]
    pub(crate) const fn from_index_unchecked(index: u8) -> Square {
        debug_assert!((index as usize) < NUM_SQUARES);
        Square(index)
    }

    /// Every point, a1 first, in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..NUM_SQUARES as u8).map(Square)
    }

    /// Index `rank * 9 + file`, in `0..45`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File index, 0 (a) to 8 (i).
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % FILES
    }

    /// Rank index, 0 (rank 1) to 4 (rank 5).
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / FILES
    }

    /// A strong point has diagonal lines as well as orthogonal ones.
    #[inline]
    pub const fn is_strong(self) -> bool {
        (self.file() + self.rank()).is_multiple_of(2)
    }

    /// The neighbouring point in `direction`, if a line joins them.
    #[inline]
    pub fn neighbor(self, direction: Direction) -> Option<Square> {
        let next = NEIGHBORS[self.index()][direction.index()];
        (next != NO_SQUARE).then_some(Square(next))
    }

    /// The direction of the line from `self` to the adjacent point `to`, if there is one.
    pub fn direction_to(self, to: Square) -> Option<Direction> {
        Direction::ALL
            .into_iter()
            .find(|&d| self.neighbor(d) == Some(to))
    }

    /// Mirror image across the centre file (a <-> i).
    pub const fn mirror_files(self) -> Square {
        Square(self.rank() * FILES + (FILES - 1 - self.file()))
    }

    /// Mirror image across the centre rank (1 <-> 5).
    pub const fn mirror_ranks(self) -> Square {
        Square((RANKS - 1 - self.rank()) * FILES + self.file())
    }

    /// The point opposite through the centre e3 (180 degree rotation).
    pub const fn rotate(self) -> Square {
        Square(NUM_SQUARES as u8 - 1 - self.0)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

/// One of the eight directions of travel. Diagonals exist only between strong points.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Direction {
    /// Towards rank 5.
    North = 0,
    /// Towards rank 5 and file i.
    NorthEast = 1,
    /// Towards file i.
    East = 2,
    /// Towards rank 1 and file i.
    SouthEast = 3,
    /// Towards rank 1.
    South = 4,
    /// Towards rank 1 and file a.
    SouthWest = 5,
    /// Towards file a.
    West = 6,
    /// Towards rank 5 and file a.
    NorthWest = 7,
}

impl Direction {
    /// All eight directions, clockwise from north.
    pub const ALL: [Direction; 8] = [
        Direction::North,
        Direction::NorthEast,
        Direction::East,
        Direction::SouthEast,
        Direction::South,
        Direction::SouthWest,
        Direction::West,
        Direction::NorthWest,
    ];

    /// Position in [`Direction::ALL`], for table look-ups.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The direction at `index` in [`Direction::ALL`] (taken modulo 8).
    #[inline]
    pub const fn from_index(index: usize) -> Direction {
        Direction::ALL[index % 8]
    }

    /// The reverse direction.
    #[inline]
    pub const fn opposite(self) -> Direction {
        Direction::from_index(self.index() + 4)
    }

    /// True for the four diagonal directions.
    #[inline]
    pub const fn is_diagonal(self) -> bool {
        self.index() % 2 == 1
    }

    /// Change of file and rank for one step.
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::North => (0, 1),
            Direction::NorthEast => (1, 1),
            Direction::East => (1, 0),
            Direction::SouthEast => (1, -1),
            Direction::South => (0, -1),
            Direction::SouthWest => (-1, -1),
            Direction::West => (-1, 0),
            Direction::NorthWest => (-1, 1),
        }
    }

    /// True when a step in this direction increases the point index.
    #[inline]
    pub const fn is_increasing(self) -> bool {
        let (df, dr) = self.delta();
        dr > 0 || (dr == 0 && df > 0)
    }

    /// The direction mirrored across the centre file.
    pub const fn mirror_files(self) -> Direction {
        Direction::from_index(8 - self.index())
    }

    /// The direction mirrored across the centre rank.
    pub const fn mirror_ranks(self) -> Direction {
        Direction::from_index(12 - self.index())
    }
}

const NO_SQUARE: u8 = u8::MAX;

const fn neighbor_index(index: usize, direction: Direction) -> u8 {
    let file = (index % FILES as usize) as i8;
    let rank = (index / FILES as usize) as i8;
    if direction.is_diagonal() && (file + rank) % 2 != 0 {
        return NO_SQUARE;
    }
    let (df, dr) = direction.delta();
    let (f, r) = (file + df, rank + dr);
    if f < 0 || f >= FILES as i8 || r < 0 || r >= RANKS as i8 {
        NO_SQUARE
    } else {
        (r * FILES as i8 + f) as u8
    }
}

/// Row count of the per-point tables: every bit index of a `u64`, so that indexing them
/// with a bit position (as from `trailing_zeros`) needs no bounds check. Rows 45..63 are
/// never used.
pub(crate) const TABLE_ROWS: usize = 64;

const fn build_neighbors() -> [[u8; 8]; TABLE_ROWS] {
    let mut table = [[NO_SQUARE; 8]; TABLE_ROWS];
    let mut sq = 0;
    while sq < NUM_SQUARES {
        let mut d = 0;
        while d < 8 {
            table[sq][d] = neighbor_index(sq, Direction::ALL[d]);
            d += 1;
        }
        sq += 1;
    }
    table
}

const fn build_rays() -> [[u64; 8]; TABLE_ROWS] {
    let mut table = [[0u64; 8]; TABLE_ROWS];
    let mut sq = 0;
    while sq < NUM_SQUARES {
        let mut d = 0;
        while d < 8 {
            let mut ray = 0u64;
            let mut next = NEIGHBORS[sq][d];
            while next != NO_SQUARE {
                ray |= 1 << next;
                next = NEIGHBORS[next as usize][d];
            }
            table[sq][d] = ray;
            d += 1;
        }
        sq += 1;
    }
    table
}

/// Every point's neighbours as one set: the union of its row of `NEIGHBOR_BITS`.
const fn build_adjacent() -> [u64; TABLE_ROWS] {
    let mut table = [0u64; TABLE_ROWS];
    let mut sq = 0;
    while sq < NUM_SQUARES {
        let mut d = 0;
        while d < 8 {
            table[sq] |= NEIGHBOR_BITS[sq][d];
            d += 1;
        }
        sq += 1;
    }
    table
}

const fn build_neighbor_bits() -> [[u64; 8]; TABLE_ROWS] {
    let mut table = [[0u64; 8]; TABLE_ROWS];
    let mut sq = 0;
    while sq < NUM_SQUARES {
        let mut d = 0;
        while d < 8 {
            let n = NEIGHBORS[sq][d];
            if n != NO_SQUARE {
                table[sq][d] = 1 << n;
            }
            d += 1;
        }
        sq += 1;
    }
    table
}

const fn build_directions_between() -> [[u8; TABLE_ROWS]; TABLE_ROWS] {
    let mut table = [[8u8; TABLE_ROWS]; TABLE_ROWS];
    let mut sq = 0;
    while sq < NUM_SQUARES {
        let mut d = 0;
        while d < 8 {
            let n = NEIGHBORS[sq][d];
            if n != NO_SQUARE {
                table[sq][n as usize] = d as u8;
            }
            d += 1;
        }
        sq += 1;
    }
    table
}

/// `NEIGHBORS[point][direction]`: the adjacent point along a line, or `NO_SQUARE`.
pub(crate) const NEIGHBORS: [[u8; 8]; TABLE_ROWS] = build_neighbors();

/// `NEIGHBOR_BITS[point][direction]`: the adjacent point along a line as a one-point set,
/// or 0.
pub(crate) const NEIGHBOR_BITS: [[u64; 8]; TABLE_ROWS] = build_neighbor_bits();

/// `RAYS[point][direction]`: every point beyond `point` along the line in `direction`.
pub(crate) const RAYS: [[u64; 8]; TABLE_ROWS] = build_rays();

/// `ADJACENT[point]`: the set of points one line step away.
pub(crate) const ADJACENT: [u64; TABLE_ROWS] = build_adjacent();

/// `DIRECTION_BETWEEN[from][to]`: index of the direction from `from` to the adjacent `to`,
/// or 8 when they are not adjacent.
pub(crate) const DIRECTION_BETWEEN: [[u8; TABLE_ROWS]; TABLE_ROWS] = build_directions_between();

/// `NEIGHBORS` entry for "no point"; exposed to the move generator's hot loop.
pub(crate) const NONE: u8 = NO_SQUARE;

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        let b = name.as_bytes();
        Square::new(b[0] - b'a', b[1] - b'1').unwrap()
    }

    #[test]
    fn strong_points_are_corners_centre_and_alternate() {
        for name in ["a1", "i1", "a5", "i5", "e3", "c1", "b2"] {
            assert!(sq(name).is_strong(), "{name}");
        }
        for name in ["b1", "a2", "e2", "d3"] {
            assert!(!sq(name).is_strong(), "{name}");
        }
        assert_eq!(Square::all().filter(|s| s.is_strong()).count(), 23);
    }

    #[test]
    fn weak_points_have_no_diagonals() {
        assert_eq!(sq("b1").neighbor(Direction::NorthEast), None);
        assert_eq!(sq("a1").neighbor(Direction::NorthEast), Some(sq("b2")));
        assert_eq!(sq("e3").neighbor(Direction::SouthWest), Some(sq("d2")));
        assert_eq!(sq("d3").neighbor(Direction::NorthWest), None);
    }

    #[test]
    fn edges_stop_lines() {
        assert_eq!(sq("i1").neighbor(Direction::East), None);
        assert_eq!(sq("a3").neighbor(Direction::West), None);
        assert_eq!(sq("e5").neighbor(Direction::North), None);
        assert_eq!(sq("e1").neighbor(Direction::South), None);
    }

    #[test]
    fn line_count_matches_the_board_drawing() {
        // 5 rows of 8 and 9 columns of 4 orthogonal segments; each of the 8 x 4 unit boxes
        // carries exactly one diagonal, the one joining its two strong corners.
        let links: usize = Square::all()
            .map(|s| {
                Direction::ALL
                    .iter()
                    .filter(|&&d| s.neighbor(d).is_some())
                    .count()
            })
            .sum();
        let orthogonal = 2 * (5 * 8 + 9 * 4);
        let diagonal = 2 * (4 * 8);
        assert_eq!(links, orthogonal + diagonal);
    }

    #[test]
    fn rays_follow_lines() {
        let ray = RAYS[sq("a1").index()][Direction::NorthEast.index()];
        let expected = [sq("b2"), sq("c3"), sq("d4"), sq("e5")]
            .iter()
            .fold(0u64, |acc, s| acc | 1 << s.index());
        assert_eq!(ray, expected);
        assert_eq!(RAYS[sq("b1").index()][Direction::NorthEast.index()], 0);
    }

    #[test]
    fn directions_mirror_and_reverse() {
        for d in Direction::ALL {
            assert_eq!(d.opposite().opposite(), d);
            assert_eq!(d.mirror_files().mirror_files(), d);
            assert_eq!(d.mirror_ranks().mirror_ranks(), d);
            let (df, dr) = d.delta();
            assert_eq!(d.mirror_files().delta(), (-df, dr));
            assert_eq!(d.mirror_ranks().delta(), (df, -dr));
            assert_eq!(d.opposite().delta(), (-df, -dr));
        }
    }

    #[test]
    fn square_names_and_symmetries() {
        assert_eq!(sq("e3").to_string(), "e3");
        assert_eq!(sq("a1").rotate(), sq("i5"));
        assert_eq!(sq("b2").mirror_files(), sq("h2"));
        assert_eq!(sq("b2").mirror_ranks(), sq("b4"));
        assert_eq!(sq("d3").direction_to(sq("e3")), Some(Direction::East));
        assert_eq!(sq("d3").direction_to(sq("e4")), None);
    }
}
