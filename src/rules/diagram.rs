//! A text drawing of the board with its lines, for people debugging at a terminal.

use crate::rules::geometry::{RANKS, Square};
use crate::rules::position::{Color, Position};

/// The board as text: rank 5 at the top, stones `W`/`B`, empty points `.`, the lines
/// between points (`-`, `|`, and `\` or `/` where a diagonal joins two strong points),
/// and the file letters underneath.
pub fn draw(position: &Position) -> String {
    draw_grid(position.board().files(), RANKS, |file, rank| {
        let square = Square::new(file, rank).expect("on the board");
        match position.stone_at(square) {
            Some(Color::White) => 'W',
            Some(Color::Black) => 'B',
            None => '.',
        }
    })
}

/// A board of `files` x `ranks` points as [`draw`] shows it, the character of each point
/// given by `point(file, rank)`. Diagonals join the points where file + rank is even, as
/// on every Fanorona board (Telo's 3 x 3 has just its two long diagonals, which this
/// rule also gives).
pub fn draw_grid(files: u8, ranks: u8, point: impl Fn(u8, u8) -> char) -> String {
    let mut text = String::new();
    for rank in (0..ranks).rev() {
        text.push_str(&format!("{}  ", rank + 1));
        for file in 0..files {
            text.push(point(file, rank));
            if file + 1 < files {
                text.push_str(" - ");
            }
        }
        text.push('\n');
        if rank > 0 {
            text.push_str("   ");
            for file in 0..files {
                text.push('|');
                if file + 1 < files {
                    // The box to the right of this point, between this rank and the one
                    // below, holds the diagonal that joins its two strong corners.
                    let upper_left_strong = (file + rank) % 2 == 0;
                    text.push_str(if upper_left_strong { " \\ " } else { " / " });
                }
            }
            text.push('\n');
        }
    }
    let letters: Vec<String> = (0..files)
        .map(|file| char::from(b'a' + file).to_string())
        .collect();
    text.push_str(&format!("   {}\n", letters.join("   ")));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_drawing() {
        let drawing = draw(&Position::start());
        let lines: Vec<&str> = drawing.lines().collect();
        assert_eq!(lines[0], "5  B - B - B - B - B - B - B - B - B");
        assert_eq!(lines[1], "   | \\ | / | \\ | / | \\ | / | \\ | / |");
        assert_eq!(lines[3], "   | / | \\ | / | \\ | / | \\ | / | \\ |");
        assert_eq!(lines[4], "3  B - W - B - W - . - B - W - B - W");
        assert_eq!(lines[9], "   a   b   c   d   e   f   g   h   i");
        let dimy = draw(&Position::start_on(crate::rules::board::Board::Dimy));
        let lines: Vec<&str> = dimy.lines().collect();
        assert_eq!(lines[4], "3  B - W - . - B - W");
        assert_eq!(lines[5], "   | \\ | / | \\ | / |");
        assert_eq!(lines[9], "   a   b   c   d   e");
    }
}
