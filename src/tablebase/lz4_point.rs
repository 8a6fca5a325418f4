//! One byte of an LZ4 block, found without decoding the block.
//!
//! A search probe that meets a block for the first time wants one entry of its 8,192, and
//! most such blocks are never met again: decoding the whole block (2 KiB, most of it
//! copies of short matches) cost about 14,500 instructions a probe and 9% of `bench`'s
//! instructions with the 7-stone set. Here the block's sequences are only parsed up to
//! the wanted byte, their places noted, and the byte is followed back through the matches
//! that copied it to the literal it came from.
//!
//! LZ4's block format: a sequence is a token (literal length in the high four bits, match
//! length less 4 in the low four, 15 meaning that bytes follow, each added, until one is
//! not 255), the literals, a two-byte little-endian offset back into the output, and the
//! match length's extra bytes. The last sequence has literals only.

/// Runs noted at most (a value block of 8,192 entries has about 60 sequences); a block
/// needing more is decoded the usual way. Small, since the array is cleared on every call.
const MOST_PIECES: usize = 512;

/// Output and input places a [`Piece`] can hold; a longer block is decoded the usual way.
const MOST_PLACE: usize = 1 << 15;

/// In [`Piece::from`]: the run is a match.
const MATCH: u16 = 1 << 15;

/// A run of the output: literals copied from the input, or a match copied from earlier.
#[derive(Copy, Clone, Default)]
struct Piece {
    /// Where the run starts in the output.
    start: u16,
    /// For literals, where they are in the input; for a match, its offset back, with
    /// [`MATCH`].
    from: u16,
}

/// What [`byte_at`] found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Found {
    Byte(u8),
    /// The block is malformed before the byte (it cannot come from a checked file).
    Damaged,
    /// Too many sequences before the byte to note: decode the block instead.
    TooLong,
}

/// An extended length: `nibble`, plus the bytes at `*at` while they are 255, and the
/// first that is not.
#[inline]
fn length(input: &[u8], at: &mut usize, nibble: usize) -> Option<usize> {
    let mut length = nibble;
    if nibble == 15 {
        loop {
            let byte = *input.get(*at)?;
            *at += 1;
            length += usize::from(byte);
            if byte != 255 {
                break;
            }
        }
    }
    Some(length)
}

/// The byte at `target` of the output of the LZ4 block `input`.
pub(super) fn byte_at(input: &[u8], target: usize) -> Found {
    let mut pieces = [Piece::default(); MOST_PIECES];
    let mut count = 0;
    let (mut at, mut out) = (0usize, 0usize);
    // Parse until a piece reaches past the target.
    loop {
        let Some(&token) = input.get(at) else {
            return Found::Damaged;
        };
        at += 1;
        let Some(literals) = length(input, &mut at, usize::from(token >> 4)) else {
            return Found::Damaged;
        };
        if at + literals > input.len() {
            return Found::Damaged;
        }
        if literals > 0 {
            if target < out + literals {
                return Found::Byte(input[at + target - out]);
            }
            if count == MOST_PIECES || out >= MOST_PLACE || at >= MOST_PLACE {
                return Found::TooLong;
            }
            pieces[count] = Piece {
                start: out as u16,
                from: at as u16,
            };
            count += 1;
        }
        at += literals;
        out += literals;
        let Some(offset) = input.get(at..at + 2) else {
            return Found::Damaged; // the last sequence ended before the target
        };
        let offset = usize::from(u16::from_le_bytes([offset[0], offset[1]]));
        at += 2;
        let Some(matched) = length(input, &mut at, usize::from(token & 15)) else {
            return Found::Damaged;
        };
        let matched = matched + 4;
        if offset == 0 || offset > out {
            return Found::Damaged;
        }
        if target < out + matched {
            // Follow the copy back: a match copies from `offset` earlier, and an
            // overlapping one repeats its first `offset` bytes.
            let mut place = target;
            let (mut start, mut back) = (out, offset);
            loop {
                let into = place - start;
                place = start - back + into % back;
                // The piece holding `place`: the last one starting at or before it.
                let k = pieces[..count].partition_point(|p| usize::from(p.start) <= place) - 1;
                let piece = pieces[k];
                if piece.from & MATCH == 0 {
                    return Found::Byte(
                        input[usize::from(piece.from) + place - usize::from(piece.start)],
                    );
                }
                (start, back) = (usize::from(piece.start), usize::from(piece.from & !MATCH));
            }
        }
        if count == MOST_PIECES || out >= MOST_PLACE || offset >= MOST_PLACE {
            return Found::TooLong;
        }
        pieces[count] = Piece {
            start: out as u16,
            from: offset as u16 | MATCH,
        };
        count += 1;
        out += matched;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn every_byte_matches(data: &[u8]) {
        let block = lz4_flex::block::compress(data);
        for (i, &byte) in data.iter().enumerate() {
            assert_eq!(
                byte_at(&block, i),
                Found::Byte(byte),
                "byte {i} of {}",
                data.len()
            );
        }
        assert_eq!(byte_at(&block, data.len()), Found::Damaged);
    }

    #[test]
    fn runs_repeats_and_literals() {
        every_byte_matches(&[7; 2048]);
        let mut data = vec![0u8; 2048];
        for (i, byte) in data.iter_mut().enumerate() {
            *byte = [1, 2, 3, 1, 2, 3, 9][i % 7] ^ if i % 301 == 0 { 0x55 } else { 0 };
        }
        every_byte_matches(&data);
        let noise: Vec<u8> = (0..3000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        every_byte_matches(&noise);
    }

    #[test]
    fn a_block_too_long_to_note_is_left_to_the_decoder() {
        let long: Vec<u8> = (0..40_000u32)
            .map(|i| ((i / 37).wrapping_mul(2_654_435_761) >> 20) as u8 % 3)
            .collect();
        let block = lz4_flex::block::compress(&long);
        assert_eq!(byte_at(&block, 10), Found::Byte(long[10]));
        assert_eq!(byte_at(&block, 39_000), Found::TooLong);
    }

    #[test]
    fn malformed_blocks_are_found_not_panicked_on() {
        let block = lz4_flex::block::compress(&[5u8; 600]);
        for cut in 0..block.len() {
            let _ = byte_at(&block[..cut], 599);
        }
        assert_eq!(byte_at(&[], 0), Found::Damaged);
        // An offset reaching before the output's start.
        assert_eq!(byte_at(&[0x10, 9, 200, 0], 3), Found::Damaged);
    }

    proptest! {
        #[test]
        fn any_block_gives_its_bytes(
            runs in prop::collection::vec((0u8..4, 1usize..90), 1..60),
        ) {
            // Runs of few distinct values, as the tables' packed values are.
            let data: Vec<u8> = runs
                .iter()
                .flat_map(|&(value, len)| std::iter::repeat_n(value * 37, len))
                .collect();
            every_byte_matches(&data);
        }

        #[test]
        fn garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200), target in 0usize..400) {
            let _ = byte_at(&bytes, target);
        }
    }
}
