//! The games Vato plays: Fanoron-Tsivy, Fanoron-Dimy and Fanoron-Telo, as the `Variant`
//! option names them.

use crate::rules::board::Board;
use std::fmt;

/// A Fanorona game.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Fanoron-Tsivy, the 9 x 5 capture game.
    #[default]
    Tsivy,
    /// Fanoron-Dimy, the same capture game on 5 x 5.
    Dimy,
    /// Fanoron-Telo, the 3 x 3 alignment game.
    Telo,
}

impl Variant {
    /// Every game, in the order the `Variant` option lists them.
    pub const ALL: [Variant; 3] = [Variant::Tsivy, Variant::Dimy, Variant::Telo];

    /// The name as the `Variant` option spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Tsivy => "tsivy",
            Variant::Dimy => "dimy",
            Variant::Telo => "telo",
        }
    }

    /// The game called `name`: its option name, in any letter case, with or without the
    /// `fanoron-` prefix.
    pub fn from_name(name: &str) -> Option<Variant> {
        let name = name.trim().to_ascii_lowercase();
        let name = name.strip_prefix("fanoron-").unwrap_or(&name);
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Points a rank.
    pub const fn files(self) -> u8 {
        match self {
            Variant::Tsivy => 9,
            Variant::Dimy => 5,
            Variant::Telo => 3,
        }
    }

    /// Ranks.
    pub const fn ranks(self) -> u8 {
        match self {
            Variant::Tsivy | Variant::Dimy => 5,
            Variant::Telo => 3,
        }
    }

    /// The board of a capture game; `None` for Telo.
    pub const fn board(self) -> Option<Board> {
        match self {
            Variant::Tsivy => Some(Board::Tsivy),
            Variant::Dimy => Some(Board::Dimy),
            Variant::Telo => None,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Board> for Variant {
    fn from(board: Board) -> Variant {
        match board {
            Board::Tsivy => Variant::Tsivy,
            Board::Dimy => Variant::Dimy,
        }
    }
}

impl std::str::FromStr for Variant {
    type Err = String;

    fn from_str(text: &str) -> Result<Variant, String> {
        Variant::from_name(text)
            .ok_or_else(|| format!("unknown variant '{text}' (expected tsivy, dimy or telo)"))
    }
}

/// A capture game's board from its `Variant` name, for the commands that work on capture
/// games only (refereeing, bench, tables); Telo has no captures.
pub fn parse_capture_board(text: &str) -> Result<Board, String> {
    let variant: Variant = text.parse()?;
    variant
        .board()
        .ok_or_else(|| format!("this takes a capture game, tsivy or dimy, not {variant}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for variant in Variant::ALL {
            assert_eq!(Variant::from_name(variant.name()), Some(variant));
            assert_eq!(variant.name().parse::<Variant>(), Ok(variant));
        }
        assert_eq!(Variant::from_name("Fanoron-Dimy"), Some(Variant::Dimy));
        assert_eq!(Variant::from_name("TELO"), Some(Variant::Telo));
        assert!("vela".parse::<Variant>().is_err());
        assert_eq!(Variant::Dimy.board(), Some(Board::Dimy));
        assert_eq!(Variant::Telo.board(), None);
        for board in Board::ALL {
            let variant = Variant::from(board);
            assert_eq!(variant.board(), Some(board));
            assert_eq!(variant.files(), board.files());
            assert_eq!(variant.name(), board.name());
        }
    }
}
