//! Simultaneous perturbation stochastic approximation (SPSA), the tuner behind `vato tune`:
//! every step moves all parameters at once, each by a random sign, plays the engine with
//! the parameters pushed one way against itself with them pushed the other, and moves the
//! parameters toward the side that scored better.
//!
//! The gain schedules follow Spall's recommended exponents (0.602 for the step, 0.101 for
//! the perturbation) with the parametrisation common in engine testing: each parameter's
//! perturbation shrinks to `c_end` and its step to `r_end * c_end` per point of result at
//! the last planned iteration, and the stability constant is a tenth of the iterations.
//!
//! The state is a text log, one checksummed line per iteration, from which a stopped run
//! resumes exactly where it was.

use crate::random::Rng;
use crate::safe_file::{checksum, legacy_fnv1a};
use std::fmt;

/// The step's decay exponent.
const ALPHA: f64 = 0.602;
/// The perturbation's decay exponent.
const GAMMA: f64 = 0.101;
/// The first line of every tuning log.
const MAGIC: &str = "vato-tune 1";

/// One parameter being tuned.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    /// The engine option's name.
    pub name: String,
    /// The smallest value the engine accepts.
    pub min: i64,
    /// The largest value the engine accepts.
    pub max: i64,
    /// Where the run started.
    pub start: f64,
    /// The perturbation at the last planned iteration.
    pub c_end: f64,
}

/// A run's fixed settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The parameters.
    pub params: Vec<Tuned>,
    /// Iterations (colour-swapped game pairs) the schedules are laid out for.
    pub iterations: u64,
    /// The step at the last iteration, per point of result, as a fraction of `c_end`.
    pub r_end: f64,
    /// Seed of the perturbation signs and the openings.
    pub seed: u64,
}

/// One iteration's engines: the values to play with, rounded for the engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturbation {
    /// The iteration, from 1.
    pub iteration: u64,
    /// Each parameter's sign.
    pub signs: Vec<f64>,
    /// The engine whose parameters are pushed by `+sign * size`.
    pub plus: Vec<i64>,
    /// The engine whose parameters are pushed by `-sign * size`.
    pub minus: Vec<i64>,
}

/// A damaged or foreign tuning log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogError(pub String);

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LogError {}

/// A run in progress: its plan, the current values and every finished iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct Spsa {
    /// The settings.
    pub plan: Plan,
    /// The current values.
    pub theta: Vec<f64>,
    /// Each finished iteration's result: the plus engine's points minus the minus engine's.
    pub results: Vec<i32>,
    /// The log's iteration lines so far, each written when its iteration is recorded.
    lines: String,
}

impl Plan {
    fn stability(&self) -> f64 {
        0.1 * self.iterations as f64
    }

    /// The perturbation size of parameter `i` at iteration `k` (from 1).
    pub fn size(&self, i: usize, k: u64) -> f64 {
        let c = self.params[i].c_end * (self.iterations as f64).powf(GAMMA);
        c / (k as f64).powf(GAMMA)
    }

    /// The step of parameter `i` at iteration `k`, per point of result, before the sign.
    pub fn step(&self, i: usize, k: u64) -> f64 {
        let c_end = self.params[i].c_end;
        let a_end = self.r_end * c_end * c_end;
        let a = a_end * (self.stability() + self.iterations as f64).powf(ALPHA);
        let a_k = a / (self.stability() + k as f64).powf(ALPHA);
        a_k / self.size(i, k)
    }

    fn header(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("{}:{}:{}:{}:{}", p.name, p.min, p.max, p.start, p.c_end))
            .collect();
        format!(
            "{MAGIC} iterations={} r_end={} seed={} params={}",
            self.iterations,
            self.r_end,
            self.seed,
            params.join(",")
        )
    }

    fn parse_header(line: &str) -> Result<Plan, LogError> {
        let bad = || LogError(format!("not a tuning log header: '{line}'"));
        let rest = line.strip_prefix(MAGIC).ok_or_else(bad)?;
        let mut plan = Plan {
            params: Vec::new(),
            iterations: 0,
            r_end: 0.0,
            seed: 0,
        };
        for word in rest.split_whitespace() {
            let (key, value) = word.split_once('=').ok_or_else(bad)?;
            match key {
                "iterations" => plan.iterations = value.parse().map_err(|_| bad())?,
                "r_end" => plan.r_end = value.parse().map_err(|_| bad())?,
                "seed" => plan.seed = value.parse().map_err(|_| bad())?,
                "params" => {
                    for item in value.split(',') {
                        let fields: Vec<&str> = item.split(':').collect();
                        let [name, min, max, start, c_end] = fields[..] else {
                            return Err(bad());
                        };
                        plan.params.push(Tuned {
                            name: name.to_string(),
                            min: min.parse().map_err(|_| bad())?,
                            max: max.parse().map_err(|_| bad())?,
                            start: start.parse().map_err(|_| bad())?,
                            c_end: c_end.parse().map_err(|_| bad())?,
                        });
                    }
                }
                _ => return Err(bad()),
            }
        }
        if plan.params.is_empty() || plan.iterations == 0 {
            return Err(bad());
        }
        Ok(plan)
    }
}

/// `text` with its checksum appended, as a log line.
fn sealed(text: &str) -> String {
    format!("{text} ~{:016x}\n", checksum(text.as_bytes()))
}

/// The text of a log line whose checksum holds.
fn unsealed(line: &str) -> Option<&str> {
    let (text, sum) = line.rsplit_once(" ~")?;
    // Logs written before XXH3 sealed their lines with FNV-1a; they still resume.
    let sum = u64::from_str_radix(sum, 16).ok()?;
    (sum == checksum(text.as_bytes()) || sum == legacy_fnv1a(&[text.as_bytes()])).then_some(text)
}

impl Spsa {
    /// A new run at the parameters' start values.
    pub fn new(plan: Plan) -> Spsa {
        let theta = plan.params.iter().map(|p| p.start).collect();
        Spsa {
            plan,
            theta,
            results: Vec::new(),
            lines: String::new(),
        }
    }

    /// Iterations finished.
    pub fn done(&self) -> u64 {
        self.results.len() as u64
    }

    /// The current values rounded as the engine gets them.
    pub fn rounded(&self) -> Vec<i64> {
        self.theta.iter().map(|t| t.round() as i64).collect()
    }

    /// The engines of iteration `k` (from 1): the signs are drawn from the seed and `k`
    /// alone, so a resumed run draws what the uninterrupted one would have.
    pub fn perturbation(&self, k: u64) -> Perturbation {
        let mut rng = Rng::new(self.plan.seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let signs: Vec<f64> = self
            .plan
            .params
            .iter()
            .map(|_| if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 })
            .collect();
        let push = |direction: f64| -> Vec<i64> {
            self.plan
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let value = self.theta[i] + direction * signs[i] * self.plan.size(i, k);
                    (value.round() as i64).clamp(p.min, p.max)
                })
                .collect()
        };
        Perturbation {
            iteration: k,
            plus: push(1.0),
            minus: push(-1.0),
            signs,
        }
    }

    /// Records iteration `perturbation.iteration`'s result (plus engine's points minus the
    /// minus engine's, -2 to 2 for a pair), moves the values and adds the iteration's log
    /// line.
    pub fn update(&mut self, perturbation: &Perturbation, result: i32) {
        let k = perturbation.iteration;
        for (i, p) in self.plan.params.iter().enumerate() {
            let step = self.plan.step(i, k) * f64::from(result) * perturbation.signs[i];
            self.theta[i] = (self.theta[i] + step).clamp(p.min as f64, p.max as f64);
        }
        self.results.push(result);
        let values: Vec<String> = self.theta.iter().map(|t| format!("{t:.4}")).collect();
        self.lines
            .push_str(&sealed(&format!("{k} {result:+} {}", values.join(" "))));
    }

    /// The whole log: the header, then one line per finished iteration with its result
    /// and the values after it.
    pub fn log_text(&self) -> String {
        sealed(&self.plan.header()) + &self.lines
    }

    /// A run from its log: the header's plan, replayed through the recorded results (the
    /// values are recomputed, and checked against the recorded ones).
    pub fn from_log(text: &str) -> Result<Spsa, LogError> {
        let mut lines = text.lines().enumerate();
        let (_, first) = lines
            .next()
            .ok_or_else(|| LogError("the tuning log is empty".into()))?;
        let header =
            unsealed(first).ok_or_else(|| LogError("line 1: checksum does not match".into()))?;
        let mut spsa = Spsa::new(Plan::parse_header(header)?);
        for (index, line) in lines {
            let number = index + 1;
            let text = unsealed(line)
                .ok_or_else(|| LogError(format!("line {number}: checksum does not match")))?;
            let words: Vec<&str> = text.split_whitespace().collect();
            let bad = || LogError(format!("line {number}: not an iteration: '{text}'"));
            if words.len() != 2 + spsa.theta.len() {
                return Err(bad());
            }
            let k: u64 = words[0].parse().map_err(|_| bad())?;
            let result: i32 = words[1].parse().map_err(|_| bad())?;
            if k != spsa.done() + 1 || !(-2..=2).contains(&result) {
                return Err(bad());
            }
            let perturbation = spsa.perturbation(k);
            spsa.update(&perturbation, result);
            for (word, theta) in words[2..].iter().zip(&spsa.theta) {
                let recorded: f64 = word.parse().map_err(|_| bad())?;
                if (recorded - theta).abs() > 1e-3 {
                    return Err(LogError(format!(
                        "line {number}: recorded values differ from the replay"
                    )));
                }
            }
        }
        Ok(spsa)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            params: vec![
                Tuned {
                    name: "A".into(),
                    min: 0,
                    max: 100,
                    start: 50.0,
                    c_end: 5.0,
                },
                Tuned {
                    name: "B".into(),
                    min: -10,
                    max: 10,
                    start: 0.0,
                    c_end: 1.0,
                },
            ],
            iterations: 200,
            r_end: 0.02,
            seed: 7,
        }
    }

    #[test]
    fn schedules_end_at_their_end_values() {
        let plan = plan();
        assert!((plan.size(0, 200) - 5.0).abs() < 1e-9);
        assert!(plan.size(0, 1) > plan.size(0, 100));
        // At the end a point of result moves a parameter by r_end * c_end.
        assert!((plan.step(0, 200) - 0.02 * 5.0).abs() < 1e-9);
        assert!(plan.step(0, 1) > plan.step(0, 200));
    }

    #[test]
    fn the_winning_side_pulls_the_values() {
        let mut spsa = Spsa::new(plan());
        let p = spsa.perturbation(1);
        assert_eq!(p.plus[0] - 50, 50 - p.minus[0]);
        spsa.update(&p, 2);
        // Each value moved toward the plus engine's.
        for i in 0..2 {
            let moved = spsa.theta[i] - spsa.plan.params[i].start;
            assert!(moved * p.signs[i] > 0.0, "parameter {i}");
        }
        let before = spsa.theta.clone();
        let q = spsa.perturbation(2);
        spsa.update(&q, 0);
        assert_eq!(spsa.theta, before);
    }

    #[test]
    fn values_stay_in_range() {
        let mut spsa = Spsa::new(plan());
        for k in 1..=200 {
            let p = spsa.perturbation(k);
            // Always rewarding a larger B drives it to its bound, and no further.
            let result = if p.signs[1] > 0.0 { 2 } else { -2 };
            spsa.update(&p, result);
            assert!(
                p.plus
                    .iter()
                    .zip(&spsa.plan.params)
                    .all(|(v, t)| (t.min..=t.max).contains(v))
            );
        }
        assert_eq!(spsa.theta[1], 10.0);
    }

    #[test]
    fn a_log_resumes_the_run_exactly() {
        let mut spsa = Spsa::new(plan());
        for k in 1..=30 {
            let p = spsa.perturbation(k);
            spsa.update(&p, [(k % 5) as i32 - 2, 1, -1][(k % 3) as usize]);
        }
        let text = spsa.log_text();
        let resumed = Spsa::from_log(&text).unwrap();
        assert_eq!(resumed.results, spsa.results);
        for (a, b) in resumed.theta.iter().zip(&spsa.theta) {
            assert!((a - b).abs() < 1e-12);
        }
        assert_eq!(resumed.perturbation(31), spsa.perturbation(31));
    }

    #[test]
    fn a_damaged_log_is_refused_with_the_line() {
        let mut spsa = Spsa::new(plan());
        let p = spsa.perturbation(1);
        spsa.update(&p, 1);
        let text = spsa.log_text();
        let damaged = text.replacen(" +1 ", " +2 ", 1);
        assert_eq!(
            Spsa::from_log(&damaged).unwrap_err().to_string(),
            "line 2: checksum does not match"
        );
        assert!(Spsa::from_log("").is_err());
        assert!(Spsa::from_log("hello\n").is_err());
    }
}
