//! A text drawing of the board with its lines, for people debugging at a terminal.

use crate::rules::geometry::{RANKS, Square};
use crate::rules::position::{Color, Position};

/// The board as text: rank 5 at the top, stones `W`/`B`, empty points `.`, the lines
/// between points (`-`, `|`, and `\` or `/` where a diagonal joins two strong points),
/// and the file letters underneath.
pub fn draw(position: &Position) -> String {
    let files = position.board().files();
    let mut text = String::new();
    for rank in (0..RANKS).rev() {
        text.push_str(&format!("{}  ", rank + 1));
        for file in 0..files {
            let square = Square::new(file, rank).expect("on the board");
            text.push(match position.stone_at(square) {
                Some(Color::White) => 'W',
                Some(Color::Black) => 'B',
                None => '.',
            });
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
                    let upper_left = Square::new(file, rank).expect("on the board");
                    text.push_str(if upper_left.is_strong() {
                        " \\ "
                    } else {
                        " / "
                    });
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
