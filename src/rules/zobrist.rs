//! Zobrist keys: one random 64-bit number per (colour, point) and one for Black to move,
//! fixed at compile time so that keys are the same in every run and every build.

use crate::rules::geometry::NUM_SQUARES;

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn build_stone_keys() -> [[u64; NUM_SQUARES]; 2] {
    let mut keys = [[0u64; NUM_SQUARES]; 2];
    let mut state = 0x5641_544F_u64; // "VATO"
    let mut color = 0;
    while color < 2 {
        let mut sq = 0;
        while sq < NUM_SQUARES {
            let (next, value) = splitmix64(state);
            state = next;
            keys[color][sq] = value;
            sq += 1;
        }
        color += 1;
    }
    keys
}

/// `STONE_KEYS[colour][point]`, colour 0 = White.
pub(crate) const STONE_KEYS: [[u64; NUM_SQUARES]; 2] = build_stone_keys();

/// Xored into the key when Black is to move.
pub(crate) const BLACK_TO_MOVE_KEY: u64 = splitmix64(0xB1AC_0000_0000_0001).1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut all: Vec<u64> = STONE_KEYS.iter().flatten().copied().collect();
        all.push(BLACK_TO_MOVE_KEY);
        assert!(all.iter().all(|&k| k != 0));
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
