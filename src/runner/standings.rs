//! Results tallied per pairing and per engine, and the standings block printed while a
//! match runs, at its end and by `--summary`.

use super::pgn::{GameResult, Termination};
use super::stats::{EloModel, Pentanomial, Sprt, Trinomial};
use crate::rules::position::Color;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// One finished game, as the standings need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// White's engine.
    pub white: String,
    /// Black's engine.
    pub black: String,
    /// The games of one colour-swapped pair share this key (the `Round` tag).
    pub pair: String,
    /// The result.
    pub result: GameResult,
    /// How it ended.
    pub termination: Termination,
}

/// The results of two engines against each other.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairingTally {
    /// The engine whose point of view the figures take.
    pub first: String,
    /// Its opponent.
    pub second: String,
    /// The first engine's wins, draws and losses.
    pub games: Trinomial,
    /// Completed colour-swapped pairs by the first engine's points.
    pub pairs: Pentanomial,
    /// Pairs with one game so far: the first engine's points in it.
    pending: HashMap<String, f64>,
    /// Games by how they ended.
    pub terminations: BTreeMap<Termination, u64>,
}

impl PairingTally {
    fn add(&mut self, outcome: &Outcome) {
        let color = if outcome.white == self.first {
            Color::White
        } else {
            Color::Black
        };
        let points = outcome.result.points(color);
        match outcome.result {
            GameResult::Draw => self.games.draws += 1,
            _ if points == 1.0 => self.games.wins += 1,
            _ => self.games.losses += 1,
        }
        *self.terminations.entry(outcome.termination).or_default() += 1;
        match self.pending.remove(&outcome.pair) {
            Some(first_game) => self.pairs.add(first_game + points),
            None => {
                self.pending.insert(outcome.pair.clone(), points);
            }
        }
    }
}

/// Every pairing's tally and every engine's points.
#[derive(Clone, Debug, Default)]
pub struct Standings {
    /// The engines in the order of the match (or of first appearance).
    engines: Vec<String>,
    /// The pairings in the order they were declared or first met.
    pairings: Vec<PairingTally>,
}

impl Standings {
    /// Empty standings for these engines and pairings (by index into `engines`, the first
    /// of each pair taking the point of view). Games between other engines add pairings.
    pub fn new(engines: &[String], pairings: &[(usize, usize)]) -> Standings {
        Standings {
            engines: engines.to_vec(),
            pairings: pairings
                .iter()
                .map(|&(a, b)| PairingTally {
                    first: engines[a].clone(),
                    second: engines[b].clone(),
                    ..PairingTally::default()
                })
                .collect(),
        }
    }

    /// Counts a finished game.
    pub fn add(&mut self, outcome: &Outcome) {
        for name in [&outcome.white, &outcome.black] {
            if !self.engines.contains(name) {
                self.engines.push(name.clone());
            }
        }
        let index = self.pairings.iter().position(|p| {
            (p.first == outcome.white && p.second == outcome.black)
                || (p.first == outcome.black && p.second == outcome.white)
        });
        let index = index.unwrap_or_else(|| {
            let rank = |name: &String| self.engines.iter().position(|e| e == name);
            let (first, second) = if rank(&outcome.white) <= rank(&outcome.black) {
                (&outcome.white, &outcome.black)
            } else {
                (&outcome.black, &outcome.white)
            };
            self.pairings.push(PairingTally {
                first: first.clone(),
                second: second.clone(),
                ..PairingTally::default()
            });
            self.pairings.len() - 1
        });
        self.pairings[index].add(outcome);
    }

    /// The tallies, in order.
    pub fn pairings(&self) -> &[PairingTally] {
        &self.pairings
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.pairings.iter().map(|p| p.games.games()).sum()
    }

    /// Each engine's games and points, best first (ties in match order).
    pub fn table(&self) -> Vec<(String, u64, f64)> {
        let mut rows: Vec<(String, u64, f64)> = self
            .engines
            .iter()
            .map(|name| {
                let mut games = 0;
                let mut points = 0.0;
                for p in &self.pairings {
                    if &p.first == name {
                        games += p.games.games();
                        points += p.games.points();
                    } else if &p.second == name {
                        games += p.games.games();
                        points += p.games.games() as f64 - p.games.points();
                    }
                }
                (name.clone(), games, points)
            })
            .collect();
        rows.sort_by(|a, b| {
            let score = |r: &(String, u64, f64)| if r.1 == 0 { 0.0 } else { r.2 / r.1 as f64 };
            score(b).total_cmp(&score(a))
        });
        rows
    }

    /// The standings block: per pairing W/D/L, score, Elo with its 95% error bars, LOS,
    /// draw ratio, pentanomial counts, the terminations and, when given, the SPRT's LLR
    /// for the first pairing; with more than two engines, a table of points.
    pub fn report(&self, sprt: Option<&Sprt>) -> String {
        let mut text = String::new();
        let games = self.games();
        let _ = writeln!(
            text,
            "Standings after {games} game{}:",
            if games == 1 { "" } else { "s" }
        );
        for (i, p) in self.pairings.iter().enumerate() {
            let g = &p.games;
            let _ = writeln!(text, "  {} vs {}: {} games", p.first, p.second, g.games());
            if g.games() == 0 {
                continue;
            }
            let _ = writeln!(
                text,
                "    W/D/L {}/{}/{}, score {:.1}/{} ({:.1}%), draw ratio {:.1}%",
                g.wins,
                g.draws,
                g.losses,
                g.points(),
                g.games(),
                100.0 * g.score().unwrap_or(0.0),
                100.0 * g.draw_ratio().unwrap_or(0.0)
            );
            // Adding 0.0 turns a negative zero into a plain one for printing.
            let elo = match g.elo().map(|(elo, error)| (elo + 0.0, error)) {
                Some((elo, error)) if elo.is_finite() && error.is_finite() => {
                    format!("{elo:+.1} +/- {error:.1}")
                }
                Some((elo, _)) if elo.is_finite() => format!("{elo:+.1} +/- inf"),
                Some((elo, _)) => format!("{}inf", if elo > 0.0 { "+" } else { "-" }),
                None => "-".into(),
            };
            let los = g
                .los()
                .map_or("-".to_string(), |l| format!("{:.1}%", 100.0 * l));
            let _ = writeln!(text, "    Elo {elo} (95%), LOS {los}");
            let _ = writeln!(
                text,
                "    pairs by points 0/0.5/1/1.5/2: {} ({} pairs)",
                p.pairs,
                p.pairs.pairs()
            );
            let ends: Vec<String> = p
                .terminations
                .iter()
                .map(|(t, n)| format!("{t} {n}"))
                .collect();
            let _ = writeln!(text, "    ended by: {}", ends.join(", "));
            if let (Some(sprt), 0) = (sprt, i) {
                let _ = writeln!(text, "    {}", sprt_line(sprt, &p.pairs));
            }
        }
        if self.engines.len() > 2 {
            let _ = writeln!(
                text,
                "  {:<4} {:<20} {:>6} {:>7} {:>7}",
                "rank", "engine", "games", "points", "score"
            );
            for (rank, (name, games, points)) in self.table().iter().enumerate() {
                let score = if *games == 0 {
                    0.0
                } else {
                    100.0 * points / *games as f64
                };
                let _ = writeln!(
                    text,
                    "  {:<4} {:<20} {:>6} {:>7.1} {:>6.1}%",
                    rank + 1,
                    name,
                    games,
                    points,
                    score
                );
            }
        }
        text
    }
}

/// `SPRT [elo0, elo1] (model): LLR x (bounds lo, hi)`.
pub fn sprt_line(sprt: &Sprt, pairs: &Pentanomial) -> String {
    let model = match sprt.model {
        EloModel::Logistic => "logistic",
        EloModel::Normalized => "normalized",
    };
    format!(
        "SPRT [{}, {}] ({model} Elo, alpha {}, beta {}): LLR {:.2} (bounds {:.2}, {:.2})",
        sprt.elo0,
        sprt.elo1,
        sprt.alpha,
        sprt.beta,
        sprt.llr(pairs),
        sprt.lower_bound(),
        sprt.upper_bound()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(white: &str, black: &str, pair: &str, result: GameResult) -> Outcome {
        Outcome {
            white: white.into(),
            black: black.into(),
            pair: pair.into(),
            result,
            termination: Termination::Normal,
        }
    }

    #[test]
    fn pairs_and_points() {
        let names = vec!["a".to_string(), "b".to_string()];
        let mut s = Standings::new(&names, &[(0, 1)]);
        // Pair 1.1: a wins with White, draws with Black: 1.5 points.
        s.add(&outcome("a", "b", "1.1", GameResult::WhiteWins));
        s.add(&outcome("b", "a", "1.1", GameResult::Draw));
        // Pair 1.2: a loses both: 0 points.
        s.add(&outcome("a", "b", "1.2", GameResult::BlackWins));
        s.add(&outcome("b", "a", "1.2", GameResult::WhiteWins));
        // Pair 1.3: one game so far.
        s.add(&outcome("b", "a", "1.3", GameResult::BlackWins));
        let p = &s.pairings()[0];
        assert_eq!(
            p.games,
            Trinomial {
                wins: 2,
                draws: 1,
                losses: 2
            }
        );
        assert_eq!(p.pairs, Pentanomial([1, 0, 0, 1, 0]));
        assert_eq!(s.games(), 5);
        let table = s.table();
        assert_eq!(table[0], ("a".to_string(), 5, 2.5));
        let report = s.report(None);
        assert!(report.contains("W/D/L 2/1/2"), "{report}");
        assert!(report.contains("[1, 0, 0, 1, 0] (2 pairs)"), "{report}");
    }

    #[test]
    fn unknown_pairings_are_added_in_order_of_appearance() {
        let mut s = Standings::default();
        s.add(&outcome("x", "y", "1.1", GameResult::Draw));
        s.add(&outcome("z", "x", "1.1", GameResult::WhiteWins));
        assert_eq!(s.pairings().len(), 2);
        assert_eq!(s.pairings()[1].first, "x");
        assert_eq!(s.pairings()[1].games.losses, 1);
        assert!(s.report(None).contains("rank"));
    }
}
