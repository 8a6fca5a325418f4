//! The solver's large arrays read at random (the proof table, the store's keys, a
//! writer's index) miss the address cache on nearly every read when their pages are
//! 4 KiB; pages of 2 MiB cover gigabytes with a few thousand entries. Linux gives them
//! to memory that asks for them (transparent huge pages in `madvise` mode, the common
//! default); elsewhere, or when none are free, the memory is as before.

/// `len` copies of `value`, in memory that asked for huge pages before it was written.
pub(super) fn filled<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut items = Vec::with_capacity(len);
    advise(&items);
    items.resize(len, value);
    items
}

/// Asks for huge pages for the whole capacity of `items`; best before it is written, so
/// that its pages come huge from the start.
pub(super) fn advise<T>(items: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = items.as_ptr() as usize;
        let end = start + items.capacity() * std::mem::size_of::<T>();
        let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if last > first {
            // SAFETY: advice about whole pages inside the vector's own allocation; it
            // changes no contents, and a refusal leaves the memory as it was.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = items;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_advice_changes_no_contents() {
        for len in [0, 1, 1000, 3 << 20] {
            let items = filled(len, 7u32);
            assert_eq!(items.len(), len);
            assert!(items.iter().all(|&item| item == 7));
            let mut grown: Vec<u64> = Vec::with_capacity(len);
            advise(&grown);
            grown.extend(0..len as u64);
            assert!(grown.iter().enumerate().all(|(i, &item)| item == i as u64));
        }
    }
}
