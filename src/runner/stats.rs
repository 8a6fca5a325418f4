//! Match statistics: Elo with its error bars, likelihood of superiority, pentanomial counts
//! over colour-swapped game pairs and the sequential probability ratio test over them.
//!
//! Every figure is from the point of view of the first engine of a pairing.

use statrs::distribution::{ContinuousCDF, Normal};
use std::fmt;

/// The two-sided 95% quantile of the standard normal distribution.
fn z_95() -> f64 {
    Normal::standard().inverse_cdf(0.975)
}

/// The logistic Elo difference that a score (a fraction of the points, in `(0, 1)`) means.
/// A score of 0 or 1 gives an infinite difference.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if score >= 1.0 {
        return f64::INFINITY;
    }
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score of a side that is `elo` logistic Elo stronger.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The standard normal distribution's cumulative probability at `z`.
pub fn standard_normal_cdf(z: f64) -> f64 {
    Normal::standard().cdf(z)
}

/// Wins, draws and losses of the first engine of a pairing.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Trinomial {
    /// Games the first engine won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the first engine lost.
    pub losses: u64,
}

impl Trinomial {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points of the first engine: one per win, a half per draw.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// The first engine's fraction of the points; `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.points() / games as f64)
    }

    /// The fraction of drawn games; `None` before the first game.
    pub fn draw_ratio(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.draws as f64 / games as f64)
    }

    /// The Elo difference the score means, with the half-width of its 95% interval: the
    /// score's standard error over games, carried through the logistic curve (the interval
    /// is not symmetric in Elo, so the half-width is half the distance between its ends).
    /// `None` before the first game; the half-width is infinite when the interval reaches a
    /// score of 0 or 1.
    pub fn elo(&self) -> Option<(f64, f64)> {
        let score = self.score()?;
        let n = self.games() as f64;
        let variance = (self.wins as f64 * (1.0 - score).powi(2)
            + self.draws as f64 * (0.5 - score).powi(2)
            + self.losses as f64 * score.powi(2))
            / n;
        let margin = z_95() * (variance / n).sqrt();
        let high = elo_from_score(score + margin);
        let low = elo_from_score(score - margin);
        Some((elo_from_score(score), (high - low) / 2.0))
    }

    /// The likelihood of superiority: the probability that the first engine is the
    /// stronger, from the decisive games alone (draws say nothing about it). `None` when no
    /// game was decisive.
    pub fn los(&self) -> Option<f64> {
        let decisive = self.wins + self.losses;
        if decisive == 0 {
            return None;
        }
        let z = (self.wins as f64 - self.losses as f64) / (decisive as f64).sqrt();
        Some(standard_normal_cdf(z))
    }
}

/// Counts of colour-swapped game pairs by the first engine's points in the pair: 0, 1/2,
/// 1, 3/2 and 2.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Counts a pair in which the first engine scored `points` (0, 0.5, 1, 1.5 or 2).
    pub fn add(&mut self, points: f64) {
        let bin = (points * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[bin] += 1;
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.0;
        write!(f, "[{a}, {b}, {c}, {d}, {e}]")
    }
}

/// How the SPRT's Elo bounds are read.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum EloModel {
    /// Logistic Elo, the scale of [`elo_from_score`] (the default).
    #[default]
    Logistic,
    /// Normalized Elo: the score's distance from 1/2 in units of the pair score's standard
    /// deviation, so that the bounds do not depend on the draw rate.
    Normalized,
}

/// Pairs played before an SPRT may stop a match. The pentanomial variance of a handful of
/// pairs is no estimate (one pair has none, and the regularisation leaves it near zero),
/// so the log-likelihood ratio of the first pairs can pass any bound by itself: a single
/// pair of 1.5 points gave an LLR of 7.3 against bounds of +/- 2.94.
pub const SPRT_MIN_PAIRS: u64 = 10;

/// The settings of a sequential probability ratio test: H0 "the first engine is `elo0`
/// stronger" against H1 "it is `elo1` stronger", with error rates `alpha` and `beta`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sprt {
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1; above `elo0`.
    pub elo1: f64,
    /// The probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The probability of accepting H0 when H1 holds.
    pub beta: f64,
    /// The scale of `elo0` and `elo1`.
    pub model: EloModel,
}

/// What an SPRT says so far.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// The LLR is between the bounds: keep playing.
    Continue,
    /// The LLR reached the lower bound: H0 is accepted (no improvement of `elo1`).
    AcceptH0,
    /// The LLR reached the upper bound: H1 is accepted.
    AcceptH1,
}

/// Why SPRT settings were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SprtError(pub String);

impl fmt::Display for SprtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SprtError {}

impl Sprt {
    /// Checked settings.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: EloModel,
    ) -> Result<Sprt, SprtError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(SprtError(format!(
                "elo0 ({elo0}) must be below elo1 ({elo1})"
            )));
        }
        for (name, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 1.0) {
                return Err(SprtError(format!(
                    "{name} must be between 0 and 1, found {value}"
                )));
            }
        }
        if alpha + beta >= 1.0 {
            return Err(SprtError("alpha + beta must be below 1".into()));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        })
    }

    /// The lower bound ln(beta / (1 - alpha)): at or below it H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The upper bound ln((1 - beta) / alpha): at or above it H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The log-likelihood ratio of H1 against H0 over game pairs (the pentanomial model).
    ///
    /// It is the generalised SPRT in its normal approximation (M. Van den Bergh), the form
    /// engine-testing frameworks use for pentanomial results: with `N` pairs whose mean
    /// score (a fraction of the pair's two points) is `m` with variance `v` per pair, and
    /// the scores `s0` and `s1` that the two Elo bounds mean,
    /// `LLR = N (s1 - s0) (2m - s0 - s1) / (2v)`. An empty bin counts as 0.001 pairs, as
    /// in those frameworks, so that a short or one-sided run has a variance. 0 before the
    /// first pair.
    pub fn llr(&self, pentanomial: &Pentanomial) -> f64 {
        if pentanomial.pairs() == 0 {
            return 0.0;
        }
        let counts = pentanomial.0.map(|c| if c == 0 { 1e-3 } else { c as f64 });
        let n: f64 = counts.iter().sum();
        let values = [0.0, 0.25, 0.5, 0.75, 1.0];
        let mean: f64 = counts.iter().zip(values).map(|(c, x)| c * x).sum::<f64>() / n;
        let variance: f64 = counts
            .iter()
            .zip(values)
            .map(|(c, x)| c * (x - mean).powi(2))
            .sum::<f64>()
            / n;
        let (s0, s1) = match self.model {
            EloModel::Logistic => (score_from_elo(self.elo0), score_from_elo(self.elo1)),
            EloModel::Normalized => {
                // The pair score's deviation is sqrt(2) times a game's, hence the factor.
                let scale = (2.0 * variance).sqrt() / (800.0 / std::f64::consts::LN_10);
                (0.5 + self.elo0 * scale, 0.5 + self.elo1 * scale)
            }
        };
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
    }

    /// Whether the pairs so far are evidence enough for a verdict: at least
    /// [`SPRT_MIN_PAIRS`] of them, and not all of exactly one point. Even pairs alone
    /// (often each opening won by the same colour whoever plays it) say nothing of the
    /// variance, which is then the regularisation's, and the log-likelihood ratio runs to
    /// the lower bound at once: ten one-point pairs gave -16.6 against bounds of +/- 2.94.
    /// (Pairs that all went one way are evidence of a difference, and may decide.)
    pub fn may_decide(&self, pentanomial: &Pentanomial) -> bool {
        let pairs = pentanomial.pairs();
        pairs >= SPRT_MIN_PAIRS && pentanomial.0[2] < pairs
    }

    /// The decision that `llr` means.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} is not within {tolerance} of {expected}"
        );
    }

    #[test]
    fn elo_and_score_are_inverse() {
        // A score of 3/4 is 400 log10(3) = 190.85 Elo; 1/2 is 0.
        close(elo_from_score(0.75), 190.849, 1e-3);
        close(elo_from_score(0.5), 0.0, 1e-12);
        close(score_from_elo(190.849), 0.75, 1e-6);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn normal_distribution_matches_tabulated_values() {
        // Tables: Phi(0.5) = 0.6914625, Phi(1) = 0.8413447, Phi(2) = 0.9772499.
        close(standard_normal_cdf(0.0), 0.5, 1e-9);
        close(standard_normal_cdf(0.5), 0.691_462_5, 2e-7);
        close(standard_normal_cdf(1.0), 0.841_344_7, 2e-7);
        close(standard_normal_cdf(-1.0), 0.158_655_3, 2e-7);
        close(standard_normal_cdf(2.0), 0.977_249_9, 2e-7);
        close(z_95(), 1.959_964_0, 2e-7);
    }

    #[test]
    fn trinomial_figures_by_hand() {
        // W 10, D 5, L 5: N = 20.
        // score s = (10 + 5/2) / 20 = 0.625
        // Elo = -400 log10(1/0.625 - 1) = -400 log10(0.6) = 88.7395
        // variance per game = (10 (1 - s)^2 + 5 (1/2 - s)^2 + 5 s^2) / 20
        //                   = (1.40625 + 0.078125 + 1.953125) / 20 = 0.171875
        // standard error = sqrt(0.171875 / 20) = 0.0927025; times 1.959964 = 0.1816936
        // interval of the score: 0.4433064 .. 0.8066936
        // Elo at the ends: -400 log10(1/0.4433064 - 1) = -39.5648
        //                  -400 log10(1/0.8066936 - 1) = 248.1849
        // half-width = (248.1849 + 39.5648) / 2 = 143.8749
        // LOS = Phi((10 - 5) / sqrt(15)) = Phi(1.2909944) = 0.90165
        // draw ratio = 5 / 20 = 0.25
        let t = Trinomial {
            wins: 10,
            draws: 5,
            losses: 5,
        };
        assert_eq!(t.games(), 20);
        close(t.points(), 12.5, 1e-12);
        close(t.score().unwrap(), 0.625, 1e-12);
        let (elo, error) = t.elo().unwrap();
        close(elo, 88.7395, 1e-3);
        close(error, 143.8749, 1e-3);
        close(t.los().unwrap(), 0.901_65, 1e-4);
        close(t.draw_ratio().unwrap(), 0.25, 1e-12);
    }

    #[test]
    fn even_and_empty_results() {
        // W 3, D 4, L 3: score 1/2, Elo 0; LOS Phi(0) = 1/2.
        let even = Trinomial {
            wins: 3,
            draws: 4,
            losses: 3,
        };
        close(even.elo().unwrap().0, 0.0, 1e-9);
        close(even.los().unwrap(), 0.5, 1e-9);
        let none = Trinomial::default();
        assert_eq!(none.score(), None);
        assert_eq!(none.elo(), None);
        assert_eq!(none.los(), None);
        // All draws: no decisive game, so no LOS; Elo 0 with a zero-width interval.
        let draws = Trinomial {
            wins: 0,
            draws: 6,
            losses: 0,
        };
        assert_eq!(draws.los(), None);
        assert_eq!(draws.elo(), Some((0.0, 0.0)));
        // All wins: infinite Elo.
        let wins = Trinomial {
            wins: 4,
            draws: 0,
            losses: 0,
        };
        assert_eq!(wins.elo().unwrap().0, f64::INFINITY);
    }

    #[test]
    fn pentanomial_bins() {
        let mut p = Pentanomial::default();
        for points in [0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0] {
            p.add(points);
        }
        assert_eq!(p.0, [1, 1, 2, 1, 2]);
        assert_eq!(p.pairs(), 7);
        assert_eq!(p.to_string(), "[1, 1, 2, 1, 2]");
    }

    #[test]
    fn sprt_bounds_by_hand() {
        // alpha = beta = 0.05: ln(0.05 / 0.95) = -2.944439, ln(0.95 / 0.05) = 2.944439.
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, EloModel::Logistic).unwrap();
        close(sprt.lower_bound(), -2.944_439, 1e-6);
        close(sprt.upper_bound(), 2.944_439, 1e-6);
        // alpha = 0.05, beta = 0.1: ln(0.1 / 0.95) = -2.251292, ln(0.9 / 0.05) = 2.890372.
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.1, EloModel::Logistic).unwrap();
        close(sprt.lower_bound(), -2.251_292, 1e-6);
        close(sprt.upper_bound(), 2.890_372, 1e-6);
    }

    #[test]
    fn sprt_llr_by_hand_logistic() {
        // Pairs [1, 2, 3, 3, 1], N = 10, pair scores 0, 1/4, 1/2, 3/4, 1.
        // mean m = (0 + 2/4 + 3/2 + 9/4 + 1) / 10 = 5.25 / 10 = 0.525
        // E[x^2] = (0 + 2/16 + 3/4 + 27/16 + 1) / 10 = 0.35625; v = 0.35625 - 0.525^2 = 0.080625
        // s0 = 1/2 (0 Elo); s1 = 1 / (1 + 10^(-5/400)) = 0.5071951
        // LLR = 10 (0.0071951) (1.05 - 1.0071951) / (2 * 0.080625) = 0.0190998
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, EloModel::Logistic).unwrap();
        let llr = sprt.llr(&Pentanomial([1, 2, 3, 3, 1]));
        close(llr, 0.019_100, 1e-5);
        assert_eq!(sprt.decide(llr), SprtDecision::Continue);
    }

    #[test]
    fn sprt_llr_by_hand_strong_result() {
        // Pairs [1, 1, 2, 6, 10], N = 20.
        // m = (0 + 0.25 + 1 + 4.5 + 10) / 20 = 15.75 / 20 = 0.7875
        // E[x^2] = (0 + 0.0625 + 0.5 + 3.375 + 10) / 20 = 13.9375 / 20 = 0.696875
        // v = 0.696875 - 0.7875^2 = 0.696875 - 0.62015625 = 0.07671875
        // bounds 0 and 20 Elo: s0 = 0.5, s1 = 1 / (1 + 10^(-20/400)) = 0.5287506
        // LLR = 20 (0.0287506) (1.575 - 1.0287506) / (2 * 0.07671875) = 2.047085
        // With alpha = beta = 0.05 the upper bound is ln(0.95 / 0.05) = 2.944: go on.
        // With alpha = beta = 0.15 it is ln(0.85 / 0.15) = 1.734601: H1 is accepted.
        let pairs = Pentanomial([1, 1, 2, 6, 10]);
        let strict = Sprt::new(0.0, 20.0, 0.05, 0.05, EloModel::Logistic).unwrap();
        let llr = strict.llr(&pairs);
        close(llr, 2.047_085, 1e-5);
        assert_eq!(strict.decide(llr), SprtDecision::Continue);
        let loose = Sprt::new(0.0, 20.0, 0.15, 0.15, EloModel::Logistic).unwrap();
        close(loose.upper_bound(), 1.734_601, 1e-6);
        assert_eq!(loose.decide(loose.llr(&pairs)), SprtDecision::AcceptH1);
        // The mirror image, tested against bounds -20 and 0, accepts H0 just as clearly:
        // m = 0.2125, s0 = 0.4712494, s1 = 0.5, LLR = -2.047085.
        let mirrored = Pentanomial([10, 6, 2, 1, 1]);
        let sprt = Sprt::new(-20.0, 0.0, 0.15, 0.15, EloModel::Logistic).unwrap();
        close(sprt.llr(&mirrored), -2.047_085, 1e-5);
        assert_eq!(sprt.decide(sprt.llr(&mirrored)), SprtDecision::AcceptH0);
    }

    #[test]
    fn sprt_llr_by_hand_normalized() {
        // Pairs [1, 2, 3, 3, 1] as above: m = 0.525, v = 0.080625.
        // scale = sqrt(2 v) / (800 / ln 10) = sqrt(0.16125) / 347.43590 = 0.4015595 / 347.43590
        //       = 0.00115578
        // nElo bounds 0 and 5: s0 = 0.5, s1 = 0.5 + 5 * 0.00115578 = 0.5057789
        // LLR = 10 (0.0057789) (1.05 - 1.0057789) / 0.16125 = 0.015848
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        close(sprt.llr(&Pentanomial([1, 2, 3, 3, 1])), 0.015_848, 1e-5);
    }

    #[test]
    fn sprt_with_empty_bins_stays_finite() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, EloModel::Logistic).unwrap();
        assert_eq!(sprt.llr(&Pentanomial::default()), 0.0);
        let llr = sprt.llr(&Pentanomial([0, 0, 3, 0, 0]));
        assert!(llr.is_finite());
        let llr = sprt.llr(&Pentanomial([0, 0, 0, 0, 40]));
        assert!(llr.is_finite() && llr > 0.0);
    }

    #[test]
    fn no_verdict_before_enough_pairs_of_more_than_one_score() {
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05, EloModel::Logistic).unwrap();
        let alike = Pentanomial([0, 0, 10, 0, 0]);
        assert!(sprt.llr(&alike) < sprt.lower_bound());
        assert!(!sprt.may_decide(&alike));
        assert!(!sprt.may_decide(&Pentanomial([0, 0, 40, 0, 0])));
        assert!(!sprt.may_decide(&Pentanomial([0, 0, 4, 5, 0])));
        assert!(sprt.may_decide(&Pentanomial([0, 0, 9, 1, 0])));
        assert!(sprt.may_decide(&Pentanomial([0, 0, 0, 0, 10])));
    }

    #[test]
    fn sprt_settings_are_checked() {
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05, EloModel::Logistic).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05, EloModel::Logistic).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.6, 0.5, EloModel::Logistic).is_err());
    }
}
