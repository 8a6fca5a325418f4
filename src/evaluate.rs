//! Static evaluation, in hundredths of a stone from the side to move's point of view.
//!
//! For now material only; positional terms come with the search work, each kept only when
//! games show it wins. Every term must be colour-symmetric: a position and its
//! [`Position::flip`] score the same for the side to move.

use crate::position::Position;

/// The value of one stone.
pub const STONE_VALUE: i32 = 100;

/// One named term of the evaluation, for the `eval` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// Short name.
    pub name: &'static str,
    /// Score of the side to move, in hundredths of a stone.
    pub value: i32,
}

/// The terms that add up to [`evaluate`].
pub fn terms(position: &Position) -> Vec<Term> {
    let material = (position.us().count() as i32 - position.them().count() as i32) * STONE_VALUE;
    vec![Term {
        name: "material",
        value: material,
    }]
}

/// The score of the position for the side to move.
#[inline]
pub fn evaluate(position: &Position) -> i32 {
    (position.us().count() as i32 - position.them().count() as i32) * STONE_VALUE
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::parse_position;

    #[test]
    fn terms_add_up_and_flip_is_symmetric() {
        for fen in [
            "9/9/1BB6/9/W1B6 w",
            "B1BB1BBBB/B3BBBBB/1B2WBWBW/W2BWWWWW/W4WWWW b",
        ] {
            let p = parse_position(fen).unwrap();
            let sum: i32 = terms(&p).iter().map(|t| t.value).sum();
            assert_eq!(sum, evaluate(&p));
            assert_eq!(evaluate(&p), evaluate(&p.flip()));
        }
        assert_eq!(
            evaluate(&parse_position("9/9/1BB6/9/W1B6 w").unwrap()),
            -200
        );
    }
}
