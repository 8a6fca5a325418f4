//! Shards: one of N disjoint parts of a job, so that N machines can share a match or a
//! data generation run and their results add up to exactly the unsharded run's.
//!
//! A job is a numbered sequence of units (a colour-swapped pair of games, one self-play
//! game); shard `K/N` takes the units whose number is `K - 1` modulo `N`. Interleaving
//! rather than cutting into blocks gives every shard the same mix of early and late units.

use std::fmt;
use std::str::FromStr;

/// The `K`-th of `N` parts of a job (`1 <= K <= N`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// `K - 1`.
    index: u64,
    /// `N`.
    count: u64,
}

/// Why a text is not a shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardError(String);

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// The whole job: `1/1`.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Shard `k` of `count` (`k` from 1).
    pub fn new(k: u64, count: u64) -> Result<Shard, ShardError> {
        if count == 0 || k == 0 || k > count {
            return Err(ShardError(format!(
                "shard {k}/{count}: K/N needs 1 <= K <= N"
            )));
        }
        Ok(Shard {
            index: k - 1,
            count,
        })
    }

    /// True for the whole job.
    pub fn is_whole(self) -> bool {
        self.count == 1
    }

    /// True when unit `unit` (from 0) belongs to this shard.
    #[inline]
    pub fn contains(self, unit: u64) -> bool {
        unit % self.count == self.index
    }

    /// How many of the units `0..total` belong to this shard.
    pub fn units_of(self, total: u64) -> u64 {
        total / self.count + u64::from(total % self.count > self.index)
    }

    /// The number of this shard's `n`-th unit (from 0) in the whole job.
    #[inline]
    pub fn unit(self, n: u64) -> u64 {
        n * self.count + self.index
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError(format!("'{text}' is not a shard: write K/N, as 2/4"));
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let k = k.trim().parse().map_err(|_| bad())?;
        let n = n.trim().parse().map_err(|_| bad())?;
        Shard::new(k, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_a_job_into_disjoint_parts_that_cover_it() {
        for count in 1..=5u64 {
            for total in 0..=13u64 {
                let shards: Vec<Shard> =
                    (1..=count).map(|k| Shard::new(k, count).unwrap()).collect();
                for unit in 0..total {
                    assert_eq!(shards.iter().filter(|s| s.contains(unit)).count(), 1);
                }
                let sizes: u64 = shards.iter().map(|s| s.units_of(total)).sum();
                assert_eq!(sizes, total);
                for shard in shards {
                    let listed: Vec<u64> =
                        (0..shard.units_of(total)).map(|n| shard.unit(n)).collect();
                    let expected: Vec<u64> = (0..total).filter(|&u| shard.contains(u)).collect();
                    assert_eq!(listed, expected);
                }
            }
        }
    }

    #[test]
    fn shards_read_and_print_as_k_of_n() {
        assert_eq!("2/4".parse::<Shard>().unwrap().to_string(), "2/4");
        assert!("1/1".parse::<Shard>().unwrap().is_whole());
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/2/3", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
