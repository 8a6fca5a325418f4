//! Asking the memory for a cache line ahead of a read: the solver's lookups (the store's
//! keys, a writer's index) each miss every cache, and a node asks about all its children
//! at once, so that the misses of one node overlap instead of following one another.

/// Asks for the cache line that holds `item`; does nothing where there is no such hint.
#[inline]
pub(super) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let line = std::ptr::from_ref(item).cast::<i8>();
        // SAFETY: a prefetch reads nothing and cannot fault; the pointer is a reference's.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(line) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}
