//! Finding a key among sorted Zobrist keys: they are uniform, so where a key would fall if
//! the keys were spread evenly is close to where it is (within about the square root of
//! their number), and a search that starts there reads nearby keys before scattered ones.

/// Where `key` would fall among `len` sorted keys spread evenly from `low` to `high`.
pub fn interpolate(key: u64, low: u64, high: u64, len: usize) -> usize {
    let span = u128::from(high.saturating_sub(low)) + 1;
    let offset = u128::from(key.saturating_sub(low));
    ((offset * len as u128 / span) as usize).min(len)
}

/// [`partition_point`] started from `guess`: steps that double from it until the point is
/// bracketed, then a binary search inside, so a close guess (as interpolated ones are)
/// reads only nearby keys.
pub fn search_near(len: usize, guess: usize, below: impl Fn(usize) -> bool) -> usize {
    let guess = guess.min(len);
    let (mut low, mut high);
    if guess < len && below(guess) {
        // The point is after `guess`.
        let mut step = 1;
        low = guess + 1;
        loop {
            let probe = guess + step;
            if probe >= len {
                high = len;
                break;
            }
            if !below(probe) {
                high = probe;
                break;
            }
            low = probe + 1;
            step *= 2;
        }
    } else {
        // The point is at or before `guess`.
        let mut step = 1;
        high = guess;
        loop {
            if step > guess {
                low = 0;
                break;
            }
            let probe = guess - step;
            if below(probe) {
                low = probe + 1;
                break;
            }
            high = probe;
            step *= 2;
        }
    }
    low + partition_point(high - low, |i| below(low + i))
}

/// The first of `0..len` for which `below` is false, `below` being true up to a point
/// and false after it.
pub fn partition_point(len: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = low + (high - low) / 2;
        if below(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_from_any_guess_finds_the_point() {
        for len in [0usize, 1, 2, 7, 100] {
            for point in 0..=len {
                for guess in 0..=len + 2 {
                    let found = search_near(len, guess, |i| i < point);
                    assert_eq!(found, point, "len {len} guess {guess}");
                }
            }
        }
        assert_eq!(interpolate(u64::MAX, 0, u64::MAX, 10), 9);
        assert_eq!(interpolate(5, 10, 20, 10), 0);
    }
}
