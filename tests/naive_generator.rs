//! A small, slow, obviously correct Fanorona generator for a board of any size, written from
//! the rules alone and sharing nothing with Vato's generator. It checks Vato's counts on
//! Fanoron-Tsivy (9 x 5) and fixes the counts that Fanoron-Dimy (5 x 5) must reproduce.
//!
//! Everything here is plain: the board is a vector of cells, a capture chain is a
//! depth-first search over copies of it, and turns are merged by what they do (the stone
//! that moves, where it ends, the stones it removes), as the rules merge them.

#[path = "common/vectors.rs"]
mod vectors;

use std::collections::BTreeSet;
use vato::rules::ChainRule;
use vato::rules::board::Board as Variant;
use vato::rules::fen::{parse_position, parse_position_on};
use vato::rules::movegen::legal_turns;
use vato::rules::perft::perft;
use vato::rules::position::{Color, Position};
use vato::rules::vela::{generate_vela_turns, in_phase_one};
use vectors::perft_vectors;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Cell {
    Empty,
    White,
    Black,
}

#[derive(Clone, Debug)]
struct Board {
    width: i32,
    height: i32,
    /// `cells[rank * width + file]`, rank 0 at the bottom.
    cells: Vec<Cell>,
    white_to_move: bool,
    /// The side favoured in a vela game, if this is one.
    vela: Option<Cell>,
}

/// A turn by what it does: start, end, removed stones (sorted).
type Turn = (i32, i32, Vec<i32>);

impl Board {
    /// From a position string: ranks from the top, `W`, `B`, digits for empty points, then
    /// the side to move.
    fn parse(text: &str, width: i32) -> Board {
        let mut words = text.split_whitespace();
        let rows: Vec<&str> = words.next().unwrap().split('/').collect();
        let height = rows.len() as i32;
        let mut cells = vec![Cell::Empty; (width * height) as usize];
        for (i, row) in rows.iter().enumerate() {
            let rank = height - 1 - i as i32;
            let mut file = 0;
            for c in row.chars() {
                match c {
                    'W' | 'B' => {
                        let cell = if c == 'W' { Cell::White } else { Cell::Black };
                        cells[(rank * width + file) as usize] = cell;
                        file += 1;
                    }
                    digit => file += digit.to_digit(10).unwrap() as i32,
                }
            }
            assert_eq!(file, width, "row {row}");
        }
        let white_to_move = words.next() == Some("w");
        Board {
            width,
            height,
            cells,
            white_to_move,
            vela: None,
        }
    }

    fn point(&self, file: i32, rank: i32) -> Option<i32> {
        let on_board = (0..self.width).contains(&file) && (0..self.height).contains(&rank);
        on_board.then_some(rank * self.width + file)
    }

    fn cell(&self, p: i32) -> Cell {
        self.cells[p as usize]
    }

    /// The point one step from `p` along `(df, dr)`, if that step follows a line: every
    /// point has the four orthogonal lines, only strong points (file + rank even) the
    /// diagonals.
    fn step(&self, p: i32, (df, dr): (i32, i32)) -> Option<i32> {
        let (file, rank) = (p % self.width, p / self.width);
        if df != 0 && dr != 0 && (file + rank) % 2 != 0 {
            return None;
        }
        self.point(file + df, rank + dr)
    }

    fn mover(&self) -> Cell {
        if self.white_to_move {
            Cell::White
        } else {
            Cell::Black
        }
    }

    fn enemy(&self) -> Cell {
        other(self.mover())
    }

    /// The enemy stones from `first` onwards along `d`, up to the first point that is not
    /// an enemy stone.
    fn run(&self, first: Option<i32>, d: (i32, i32)) -> Vec<i32> {
        let mut run = Vec::new();
        let mut at = first;
        while let Some(p) = at {
            if self.cell(p) != self.enemy() {
                break;
            }
            run.push(p);
            at = self.step(p, d);
        }
        run
    }

    /// Every legal turn, merged: the vela game's phase 1 turns while the side not favoured
    /// has more than five stones, the ordinary ones otherwise.
    fn turns(&self) -> BTreeSet<Turn> {
        match self.vela {
            Some(favoured) if self.count(other(favoured)) > 5 => self.vela_turns(favoured),
            _ => self.ordinary_turns(),
        }
    }

    fn count(&self, cell: Cell) -> usize {
        self.cells.iter().filter(|&&c| c == cell).count()
    }

    /// Vela phase 1: the favoured side takes exactly the first stone of a line, with no
    /// continuation; the other side plays paikas only, keeping those that leave the
    /// favoured side a capture if there are any.
    fn vela_turns(&self, favoured: Cell) -> BTreeSet<Turn> {
        if self.mover() == favoured {
            let mut captures = BTreeSet::new();
            for (from, to, d) in self.steps() {
                let ahead = self.step(to, d);
                let behind = self.step(from, (-d.0, -d.1));
                for victim in [ahead, behind].into_iter().flatten() {
                    if self.cell(victim) == self.enemy() {
                        captures.insert((from, to, vec![victim]));
                    }
                }
            }
            return captures;
        }
        let turns = self.paikas();
        let leave_a_capture: BTreeSet<Turn> = turns
            .iter()
            .filter(|t| {
                let mut after = self.play(t);
                after.vela = None;
                after
                    .ordinary_turns()
                    .iter()
                    .any(|(_, _, captured)| !captured.is_empty())
            })
            .cloned()
            .collect();
        if leave_a_capture.is_empty() {
            turns
        } else {
            leave_a_capture
        }
    }

    /// Every step of a stone of the side to move to an empty neighbour: (from, to, direction).
    fn steps(&self) -> Vec<(i32, i32, (i32, i32))> {
        let mut steps = Vec::new();
        for from in 0..self.width * self.height {
            if self.cell(from) != self.mover() {
                continue;
            }
            for d in DIRECTIONS {
                if let Some(to) = self
                    .step(from, d)
                    .filter(|&to| self.cell(to) == Cell::Empty)
                {
                    steps.push((from, to, d));
                }
            }
        }
        steps
    }

    /// Every paika of the side to move.
    fn paikas(&self) -> BTreeSet<Turn> {
        self.steps()
            .into_iter()
            .map(|(from, to, _)| (from, to, Vec::new()))
            .collect()
    }

    /// Every legal turn under the ordinary rules, merged.
    fn ordinary_turns(&self) -> BTreeSet<Turn> {
        let mut captures = BTreeSet::new();
        for start in 0..self.width * self.height {
            if self.cell(start) == self.mover() {
                let mut board = self.clone();
                board.cells[start as usize] = Cell::Empty;
                board.chains(start, start, &[start], None, &[], &mut captures);
            }
        }
        if !captures.is_empty() {
            return captures;
        }
        self.paikas()
    }

    /// Every capturing step of the stone (lifted off the board) standing on `at`, then
    /// every chain that goes on from it; a turn may end after any step.
    fn chains(
        &self,
        start: i32,
        at: i32,
        visited: &[i32],
        last: Option<(i32, i32)>,
        captured: &[i32],
        out: &mut BTreeSet<Turn>,
    ) {
        for d in DIRECTIONS {
            if Some(d) == last {
                continue;
            }
            let Some(to) = self.step(at, d) else { continue };
            if self.cell(to) != Cell::Empty || visited.contains(&to) {
                continue;
            }
            let back = (-d.0, -d.1);
            let approach = self.run(self.step(to, d), d);
            let withdrawal = self.run(self.step(at, back), back);
            for run in [approach, withdrawal] {
                if run.is_empty() {
                    continue;
                }
                let mut board = self.clone();
                for &p in &run {
                    board.cells[p as usize] = Cell::Empty;
                }
                let mut now_captured = captured.to_vec();
                now_captured.extend(&run);
                let mut sorted = now_captured.clone();
                sorted.sort();
                out.insert((start, to, sorted));
                let mut now_visited = visited.to_vec();
                now_visited.push(to);
                board.chains(start, to, &now_visited, Some(d), &now_captured, out);
            }
        }
    }

    fn play(&self, (from, to, captured): &Turn) -> Board {
        let mut board = self.clone();
        // Captures first: the stone may end on a point it emptied itself.
        for &p in captured {
            board.cells[p as usize] = Cell::Empty;
        }
        board.cells[*from as usize] = Cell::Empty;
        board.cells[*to as usize] = self.mover();
        board.white_to_move = !self.white_to_move;
        board
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let turns = self.turns();
        if depth == 1 {
            return turns.len() as u64;
        }
        turns.iter().map(|t| self.play(t).perft(depth - 1)).sum()
    }
}

fn other(cell: Cell) -> Cell {
    match cell {
        Cell::White => Cell::Black,
        Cell::Black => Cell::White,
        Cell::Empty => Cell::Empty,
    }
}

const DIRECTIONS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

const TSIVY_START: &str = "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w";
const DIMY_START: &str = "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w";

#[test]
fn naive_generator_agrees_with_vato_on_tsivy() {
    let naive = Board::parse(TSIVY_START, 9);
    let start = parse_position(TSIVY_START).unwrap();
    for depth in 1..=5 {
        assert_eq!(
            naive.perft(depth),
            perft(&start, depth, ChainRule::Optional),
            "depth {depth}"
        );
    }
}

#[test]
fn naive_generator_agrees_with_the_shared_vectors() {
    let vectors = perft_vectors();
    for v in &vectors {
        let board = Board::parse(v.fen, 9);
        assert_eq!(board.perft(1), v.turns, "{}", v.fen);
        assert_eq!(board.perft(2), v.perft2, "{}", v.fen);
    }
    assert_eq!(vectors.len(), 40);
}

#[test]
fn dimy_counts_from_the_start() {
    // Depth 5 is the figure the strongest public engine reports for its Dimy; depths 1 to
    // 4 are this generator's own.
    let board = Board::parse(DIMY_START, 5);
    let counts: Vec<u64> = (1..=5).map(|depth| board.perft(depth)).collect();
    assert_eq!(counts, [5, 21, 202, 3_469, 34_608]);
}

#[test]
fn vato_agrees_with_the_naive_generator_on_dimy() {
    let start = Position::start_on(Variant::Dimy);
    assert_eq!(start, parse_position_on(Variant::Dimy, DIMY_START).unwrap());
    for depth in 1..=5 {
        assert_eq!(
            perft(&start, depth, ChainRule::Optional),
            Board::parse(DIMY_START, 5).perft(depth),
            "depth {depth}"
        );
    }
    // Random games, every position checked two plies deep: the edge of the 5 x 5 board
    // must stop steps and capture runs exactly as the naive generator's edge does.
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut checked = 0;
    for _game in 0..40 {
        let mut position = start;
        for _ply in 0..60 {
            let turns = legal_turns(&position, ChainRule::Optional);
            if turns.is_empty() {
                break;
            }
            let naive = Board::parse(&position.to_string(), 5);
            assert_eq!(
                naive.perft(2),
                perft(&position, 2, ChainRule::Optional),
                "{position}"
            );
            checked += 1;
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            position = position.play(turns[(seed % turns.len() as u64) as usize]);
        }
    }
    assert!(checked > 500, "{checked} positions");
}

/// perft under the vela rules with Vato's generator.
fn vela_perft(position: &Position, beneficiary: Color, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut turns = Vec::new();
    generate_vela_turns(position, beneficiary, ChainRule::Optional, &mut turns);
    turns
        .iter()
        .map(|&t| vela_perft(&position.play(t), beneficiary, depth - 1))
        .sum()
}

#[test]
fn naive_generator_agrees_with_vato_on_vela() {
    // The start with either side favoured (and moving first), and positions where the side
    // not favoured has six stones, so that phase 2 begins inside the count.
    let cases = [
        (
            "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w",
            Color::White,
            4,
        ),
        (
            "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW b",
            Color::Black,
            4,
        ),
        ("8B/1BBB5/2W1B4/BW1WW4/W3W4 w", Color::White, 5),
        ("2B6/1WW1B4/W1BWW4/BWB6/1W1B5 b", Color::Black, 5),
    ];
    for (fen, beneficiary, depth) in cases {
        let mut naive = Board::parse(fen, 9);
        naive.vela = Some(if beneficiary == Color::White {
            Cell::White
        } else {
            Cell::Black
        });
        let position = parse_position(fen).unwrap();
        assert!(in_phase_one(&position, beneficiary), "{fen}");
        for d in 1..=depth {
            assert_eq!(
                naive.perft(d),
                vela_perft(&position, beneficiary, d),
                "{fen} depth {d}"
            );
        }
    }
}
