//! Time management: how long one search may take, from the `go` limits.

use std::time::Duration;

/// A side's clock as `go` gives it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the clock (negative values, which some interfaces send, count as 0).
    pub time: Duration,
    /// Increment per turn.
    pub increment: Duration,
    /// Turns to the next time control, if any.
    pub moves_to_go: Option<u32>,
}

/// How long a search may run: past `soft` no new iteration starts; at `hard` it stops.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// Target time: an iteration that ends after it is the last.
    pub soft: Duration,
    /// Never exceeded: the search stops at once.
    pub hard: Duration,
}

/// The least time a search gets, so that it always completes depth 1.
const MIN_TIME: Duration = Duration::from_millis(1);

/// The budget for a fixed time per turn: all of it, less the overhead that the interface and
/// the operating system add between our `bestmove` and the clock stopping.
pub fn fixed_budget(movetime: Duration, overhead: Duration) -> TimeBudget {
    let hard = movetime.saturating_sub(overhead).max(MIN_TIME);
    TimeBudget { soft: hard, hard }
}

/// The budget for a turn on a running clock. Every turn still to play costs the overhead
/// once more whatever it is searched for, so the overhead of all of them (the turns to go
/// and two more) is kept in hand; the target is an even share of the rest over the turns to
/// go (30 when the control has no end) plus three quarters of the increment left after the
/// overhead. On the increment alone a turn then uses less than the increment, so delays
/// outside the engine up to the overhead can never drain the clock. The hard limit allows
/// overshooting the target for a difficult turn, but never more than a fifth of the time
/// left.
pub fn clock_budget(clock: Clock, overhead: Duration) -> TimeBudget {
    let turns = clock.moves_to_go.unwrap_or(30).clamp(1, 50);
    let spare = clock.time.saturating_sub(overhead * (turns + 2));
    let increment = clock.increment.saturating_sub(overhead);
    let share = spare / turns + increment * 3 / 4;
    let available = clock.time.saturating_sub(overhead);
    let ceiling = if clock.moves_to_go == Some(1) {
        available * 4 / 5
    } else {
        available / 5
    };
    let soft = share.min(ceiling).max(MIN_TIME);
    let hard = (soft * 4).min(ceiling).max(soft);
    TimeBudget { soft, hard }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn fixed_time_leaves_the_overhead() {
        assert_eq!(fixed_budget(ms(100), ms(10)).hard, ms(90));
        assert_eq!(fixed_budget(ms(5), ms(10)).hard, ms(1));
    }

    #[test]
    fn clock_budget_stays_well_inside_the_time_left() {
        for time in [0, 5, 50, 1000, 60_000, 3_600_000] {
            for inc in [0, 10, 1000] {
                for mtg in [None, Some(1), Some(5), Some(40)] {
                    let clock = Clock {
                        time: ms(time),
                        increment: ms(inc),
                        moves_to_go: mtg,
                    };
                    let b = clock_budget(clock, ms(10));
                    assert!(b.soft <= b.hard);
                    assert!(
                        b.hard <= ms(time).saturating_sub(ms(10)).max(ms(1)),
                        "{clock:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn typical_blitz_turn() {
        let clock = Clock {
            time: ms(1000),
            increment: ms(10),
            moves_to_go: None,
        };
        let b = clock_budget(clock, ms(10));
        // 1000 ms less 32 overheads (680 ms), a 30th of it; the increment is all overhead.
        assert_eq!(b.soft, ms(680) / 30);
        assert_eq!(b.hard, ms(680) / 30 * 4);
    }

    #[test]
    fn on_the_increment_alone_a_turn_uses_less_than_the_increment() {
        for time in [0, 20, 100, 300] {
            let clock = Clock {
                time: ms(time),
                increment: ms(20),
                moves_to_go: None,
            };
            let b = clock_budget(clock, ms(10));
            assert!(b.soft + ms(10) < ms(20), "{time} ms left: {b:?}");
        }
    }
}
