//! How the system backs large buffers: with transparent huge pages where
//! Linux offers them on request (`madvise` mode, as on most
//! distributions). A 4 MiB matrix then takes two page faults instead of
//! 1,024 when it is first written, and a kernel reading it by columns
//! misses the TLB far less often (each row of a 1024 x 1024 `float`
//! matrix is another 4 KiB page). Such a buffer also starts where a huge
//! page does (`launch::Words`): placed where `malloc` puts it, a 4 MiB
//! matrix would hold one whole huge page instead of two.
#![allow(unsafe_code)]

/// Buffers from this size on are advised; smaller ones would hold at most
/// one huge page, whose zeroing on first touch costs more than the faults
/// it saves when only part of the buffer is used.
const ADVISED_FROM: usize = 4 << 20;

/// The size of a huge page on x86-64 and the usual arm64 configuration;
/// the advice is ignored for memory that does not hold a whole one.
const HUGE_PAGE: usize = 2 << 20;

/// Asks the kernel to back the whole huge pages inside `words` with huge
/// pages. Only advice: the contents stay what they are (zero for fresh
/// memory), and a kernel without huge pages ignores it.
pub(crate) fn advise_huge_pages(words: &mut [u64]) {
    let bytes = std::mem::size_of_val(words);
    if bytes < ADVISED_FROM {
        return;
    }
    let start = words.as_mut_ptr() as usize;
    let Some(first) = start.checked_next_multiple_of(HUGE_PAGE) else {
        return;
    };
    let end = (start + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end <= first {
        return;
    }
    advise(first, end - first);
}

/// The bytes to allocate beyond `bytes` so that a buffer of `bytes` can
/// start on a huge page: a huge page's worth for a buffer that is advised
/// (the system never backs them, as nothing touches them), none for one
/// that is not.
pub(crate) fn huge_page_padding(bytes: usize) -> usize {
    if bytes < ADVISED_FROM { 0 } else { HUGE_PAGE }
}

/// The first address from `at` on where a huge page starts (`at` itself
/// past the end of the address space, where nothing is allocated).
pub(crate) fn next_huge_page(at: usize) -> usize {
    at.checked_next_multiple_of(HUGE_PAGE).unwrap_or(at)
}

#[cfg(target_os = "linux")]
fn advise(at: usize, len: usize) {
    // SAFETY: `[at, at + len)` lies inside a live allocation the caller
    // owns; `MADV_HUGEPAGE` changes how the kernel backs those pages and
    // never their contents, so no Rust value is affected. A failure (no
    // huge pages configured) leaves the memory as it was.
    unsafe {
        libc::madvise(at as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_at: usize, _len: usize) {}
