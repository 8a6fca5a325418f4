//! Win, draw and loss chances for a score, as `UCI_ShowWDL` reports them: a model fitted
//! on Vato's own games (`examples/fit_wdl.rs` over `vato match` records; README, "Win,
//! draw and loss").
//!
//! For a score `x` in centi-stones from the side to move's view, the chance of a win is
//! `1 / (1 + exp((A - x) / B))` and of a loss `1 / (1 + exp((A + x) / B))`; the rest is a
//! draw. `A` is the lead at which a win and a draw are equally likely, `B` how quickly the
//! chances turn.

use crate::engine::search::Score;

/// The lead, in centi-stones, at which a win is as likely as not.
const A: f64 = 240.0;
/// How many centi-stones make the chances turn by a factor of `e`.
const B: f64 = 80.0;

/// The chances of a win, a draw and a loss for the side to move, in permille (they add up
/// to 1000). A mate is certain.
pub fn wdl(score: Score) -> (u32, u32, u32) {
    let x = match score {
        Score::Mate(n) if n > 0 => return (1000, 0, 0),
        Score::Mate(_) => return (0, 0, 1000),
        Score::Centi(cp) => f64::from(cp),
    };
    let win = (1000.0 / (1.0 + ((A - x) / B).exp())).round() as u32;
    let loss = (1000.0 / (1.0 + ((A + x) / B).exp())).round() as u32;
    let loss = loss.min(1000 - win);
    (win, 1000 - win - loss, loss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_add_up_and_follow_the_score() {
        for cp in [-3000, -500, -100, 0, 50, 300, 1200, 20_000] {
            let (w, d, l) = wdl(Score::Centi(cp));
            assert_eq!(w + d + l, 1000, "{cp}");
        }
        let (w0, _, l0) = wdl(Score::Centi(0));
        assert_eq!(w0, l0);
        let (w1, _, l1) = wdl(Score::Centi(200));
        assert!(w1 > w0 && l1 < l0);
        assert_eq!(wdl(Score::Mate(3)), (1000, 0, 0));
        assert_eq!(wdl(Score::Mate(-2)), (0, 0, 1000));
        assert_eq!(wdl(Score::Mate(0)), (0, 0, 1000));
    }
}
