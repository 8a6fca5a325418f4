//! The two vector loops of inference, with AVX2 where the processor has it (checked at
//! run time) and a scalar version everywhere else. All arithmetic is integer and cannot
//! overflow, so both give exactly the same result.

use super::features::INPUTS;
use super::{HIDDEN, LAYER2};

/// Which implementation runs, chosen once when a network is made.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Plain loops.
    Scalar,
    /// 256-bit integer instructions.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// The fastest kernel this processor runs.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        Kernel::Scalar
    }

    /// `values += Σ columns[a] - Σ columns[s]` over the inputs `a` in `add` and `s` in
    /// `sub`.
    #[inline]
    pub fn update(
        self,
        values: &mut [i16; HIDDEN],
        columns: &[[i16; HIDDEN]; INPUTS],
        add: &[u8],
        sub: &[u8],
    ) {
        match self {
            Kernel::Scalar => update_scalar(values, columns, add, sub),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` is only chosen after the processor reported AVX2.
            Kernel::Avx2 => unsafe { update_avx2(values, columns, add, sub) },
        }
    }

    /// `Σ clamp(values[i], 0, ceiling) * weights[i]`.
    #[inline]
    pub fn clipped_dot(self, values: &[i16; HIDDEN], weights: &[i16], ceiling: i16) -> i32 {
        debug_assert_eq!(weights.len(), HIDDEN);
        match self {
            Kernel::Scalar => clipped_dot_scalar(values, weights, ceiling),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Kernel::Avx2 => unsafe { clipped_dot_avx2(values, weights, ceiling) },
        }
    }

    /// The second layer's sums before its bias: for each row, `Σ clamp(ours[i], 0,
    /// ceiling) * row[i] + Σ clamp(theirs[i], 0, ceiling) * row[HIDDEN + i]`.
    #[inline]
    pub fn layer2_sums(
        self,
        ours: &[i16; HIDDEN],
        theirs: &[i16; HIDDEN],
        rows: &[[i16; 2 * HIDDEN]; LAYER2],
        ceiling: i16,
    ) -> [i32; LAYER2] {
        match self {
            Kernel::Scalar => layer2_sums_scalar(ours, theirs, rows, ceiling),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Kernel::Avx2 => unsafe { layer2_sums_avx2(ours, theirs, rows, ceiling) },
        }
    }
}

fn layer2_sums_scalar(
    ours: &[i16; HIDDEN],
    theirs: &[i16; HIDDEN],
    rows: &[[i16; 2 * HIDDEN]; LAYER2],
    ceiling: i16,
) -> [i32; LAYER2] {
    std::array::from_fn(|k| {
        clipped_dot_scalar(ours, &rows[k][..HIDDEN], ceiling)
            + clipped_dot_scalar(theirs, &rows[k][HIDDEN..], ceiling)
    })
}

#[inline(always)]
fn update_scalar(
    values: &mut [i16; HIDDEN],
    columns: &[[i16; HIDDEN]; INPUTS],
    add: &[u8],
    sub: &[u8],
) {
    // A local copy the compiler can keep in vector registers (128 values: 8 of 256 bits)
    // while every changed column is added in.
    let mut sum = *values;
    for &input in add {
        let column = &columns[input as usize];
        for (s, w) in sum.iter_mut().zip(column) {
            *s = s.wrapping_add(*w);
        }
    }
    for &input in sub {
        let column = &columns[input as usize];
        for (s, w) in sum.iter_mut().zip(column) {
            *s = s.wrapping_sub(*w);
        }
    }
    *values = sum;
}

fn clipped_dot_scalar(values: &[i16; HIDDEN], weights: &[i16], ceiling: i16) -> i32 {
    values
        .iter()
        .zip(weights)
        .map(|(&v, &w)| i32::from(v.clamp(0, ceiling)) * i32::from(w))
        .sum()
}

/// The scalar loop compiled for AVX2: the compiler vectorises it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn update_avx2(
    values: &mut [i16; HIDDEN],
    columns: &[[i16; HIDDEN]; INPUTS],
    add: &[u8],
    sub: &[u8],
) {
    update_scalar(values, columns, add, sub)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn clipped_dot_avx2(values: &[i16; HIDDEN], weights: &[i16], ceiling: i16) -> i32 {
    use std::arch::x86_64::*;
    const LANES: usize = 16;
    let weights: &[i16; HIDDEN] = weights.try_into().expect("one weight per value");
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi16(ceiling);
    let mut sum = _mm256_setzero_si256();
    for i in (0..HIDDEN).step_by(LANES) {
        // SAFETY: i + 16 <= HIDDEN, and unaligned loads accept any address.
        let (v, w) = unsafe {
            (
                _mm256_loadu_si256(values.as_ptr().add(i).cast()),
                _mm256_loadu_si256(weights.as_ptr().add(i).cast()),
            )
        };
        let clipped = _mm256_min_epi16(_mm256_max_epi16(v, zero), top);
        // Pairs of 16-bit products added into 32-bit lanes.
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(clipped, w));
    }
    horizontal_sum(sum)
}

/// The sum of the eight 32-bit lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn horizontal_sum(sum: std::arch::x86_64::__m256i) -> i32 {
    use std::arch::x86_64::*;
    let halves = _mm_add_epi32(
        _mm256_castsi256_si128(sum),
        _mm256_extracti128_si256(sum, 1),
    );
    let pairs = _mm_add_epi32(halves, _mm_shuffle_epi32(halves, 0b01_00_11_10));
    let total = _mm_add_epi32(pairs, _mm_shuffle_epi32(pairs, 0b10_11_00_01));
    _mm_cvtsi128_si32(total)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn layer2_sums_avx2(
    ours: &[i16; HIDDEN],
    theirs: &[i16; HIDDEN],
    rows: &[[i16; 2 * HIDDEN]; LAYER2],
    ceiling: i16,
) -> [i32; LAYER2] {
    use std::arch::x86_64::*;
    const LANES: usize = 16;
    const VECTORS: usize = 2 * HIDDEN / LANES;
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi16(ceiling);
    // Both halves clipped once, the side to move's first, as the rows are laid out.
    let mut clipped = [zero; VECTORS];
    for (i, c) in clipped.iter_mut().enumerate() {
        let half = if i < VECTORS / 2 { ours } else { theirs };
        let at = (i % (VECTORS / 2)) * LANES;
        // SAFETY: at + 16 <= HIDDEN, and unaligned loads accept any address.
        let v = unsafe { _mm256_loadu_si256(half.as_ptr().add(at).cast()) };
        *c = _mm256_min_epi16(_mm256_max_epi16(v, zero), top);
    }
    let mut sums = [0i32; LAYER2];
    for (row, out) in rows.iter().zip(sums.iter_mut()) {
        let mut sum = _mm256_setzero_si256();
        for (i, c) in clipped.iter().enumerate() {
            // SAFETY: (i + 1) * 16 <= 2 * HIDDEN.
            let w = unsafe { _mm256_loadu_si256(row.as_ptr().add(i * LANES).cast()) };
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(*c, w));
        }
        *out = horizontal_sum(sum);
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Rng;

    #[test]
    fn every_kernel_gives_the_scalar_result() {
        let mut rng = Rng::new(9);
        let mut random = || (rng.below(4001) as i32 - 2000) as i16;
        for _ in 0..50 {
            let values: [i16; HIDDEN] = std::array::from_fn(|_| random());
            let weights: Vec<i16> = (0..HIDDEN).map(|_| random()).collect();
            let columns: Box<[[i16; HIDDEN]; INPUTS]> =
                Box::new(std::array::from_fn(|_| std::array::from_fn(|_| random())));
            let (add, sub) = ([3u8, 50, 89], [7u8, 0]);
            let expected_dot = clipped_dot_scalar(&values, &weights, 255);
            let mut expected = values;
            update_scalar(&mut expected, &columns, &add, &sub);
            let kernel = Kernel::detect();
            assert_eq!(kernel.clipped_dot(&values, &weights, 255), expected_dot);
            let theirs: [i16; HIDDEN] = std::array::from_fn(|_| random());
            let rows: Box<[[i16; 2 * HIDDEN]; LAYER2]> =
                Box::new(std::array::from_fn(|_| std::array::from_fn(|_| random())));
            assert_eq!(
                kernel.layer2_sums(&values, &theirs, &rows, 255),
                layer2_sums_scalar(&values, &theirs, &rows, 255)
            );
            let mut got = values;
            kernel.update(&mut got, &columns, &add, &sub);
            assert_eq!(got, expected);
        }
    }
}
