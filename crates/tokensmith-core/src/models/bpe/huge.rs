//! Fixed-size tables on 2 MB memory pages where the system offers them.
//!
//! The encoder's large tables (the merge table, the bytes-to-rank table, the per-thread piece
//! cache) are read at random places, a few times per byte of text. With 4 KB pages, megabytes
//! of such tables span thousands of pages, more than the CPU's address-translation cache holds,
//! so many lookups pay a page-table walk on top of their cache miss (and a longer one inside a
//! virtual machine). On Linux, a table of 2 MB or more gets its own anonymous mapping on a 2 MB
//! boundary, marked with `madvise(MADV_HUGEPAGE)` before it is first written, so the kernel can
//! back it with 2 MB pages: a few entries then cover the whole table. The mapping's pages are
//! zero until written, so a zeroed table is only paid for where it is used. This changes no
//! result; where huge pages are off or unsupported, the table is ordinary memory.

use std::alloc::{alloc, alloc_zeroed, dealloc, handle_alloc_error, Layout};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// The size of a huge page on x86-64 and (by default) aarch64 Linux.
const HUGE_PAGE: usize = 2 << 20;

/// A boxed slice of `Copy` values that asks for huge pages when it is at least [`HUGE_PAGE`]
/// bytes long.
pub struct HugeSlice<T: Copy> {
    ptr: NonNull<T>,
    len: usize,
    backing: Backing,
}

/// Where a [`HugeSlice`]'s memory comes from, so that it is given back the same way.
enum Backing {
    /// Nothing allocated (zero bytes).
    Empty,
    /// The global allocator, with this layout.
    Heap(Layout),
    /// An anonymous mapping of this many bytes, on a huge-page boundary.
    Mapped(usize),
}

// SAFETY: a `HugeSlice` owns its values like a `Box<[T]>` does.
unsafe impl<T: Copy + Send> Send for HugeSlice<T> {}
// SAFETY: shared access only hands out `&[T]`, like a `Box<[T]>`.
unsafe impl<T: Copy + Sync> Sync for HugeSlice<T> {}

/// Types for which all-zero bytes are a valid value (the value a fresh table starts with).
///
/// # Safety
/// Every field must accept all-zero bytes: integers, arrays and structs of them.
pub unsafe trait Zeroable: Copy {}

// SAFETY: an integer of zero bytes is 0.
unsafe impl Zeroable for u64 {}
// SAFETY: as for `u64`.
unsafe impl Zeroable for u8 {}
// SAFETY: as for `u64`.
unsafe impl Zeroable for u32 {}

impl<T: Zeroable> HugeSlice<T> {
    /// `len` all-zero values. The memory comes zeroed from the system and is touched only
    /// where it is used, so a large, sparsely used table costs little up front.
    pub fn zeroed(len: usize) -> Self {
        Self::allocate(len, None)
    }

    /// `len` all-zero values, of which the first `bytes` bytes (all of them if the table is
    /// shorter) are backed by memory now rather than on first use: by writing a zero byte to
    /// every 4 KB page. A zeroed table is otherwise backed page by page where it is first
    /// written, and on huge pages the first write to each 2 MB clears all of them. For tables
    /// a thread sets up before its first encode call, so that the call does not pay for it.
    pub fn zeroed_backed(len: usize, bytes: usize) -> Self {
        const PAGE: usize = 4096;
        let table = Self::allocate(len, None);
        let size = std::mem::size_of_val::<[T]>(&table).min(bytes);
        let base = table.ptr.as_ptr().cast::<u8>();
        for offset in (0..size).step_by(PAGE) {
            // SAFETY: `offset < size`, within the table, which nothing else refers to yet;
            // writing zero to zeroed memory keeps every value as it was. The write is
            // volatile so that it happens although it changes nothing.
            unsafe { base.add(offset).write_volatile(0) };
        }
        table
    }
}

impl<T: Copy> HugeSlice<T> {
    /// `len` copies of `value`.
    pub fn filled(value: T, len: usize) -> Self {
        Self::allocate(len, Some(value))
    }

    /// `len` copies of `value`, or `len` zeroed values when `value` is `None` (only for
    /// `T: Zeroable`).
    fn allocate(len: usize, value: Option<T>) -> Self {
        let bytes = std::mem::size_of::<T>()
            .checked_mul(len)
            .expect("table size overflows");
        let (raw, backing) = if bytes == 0 {
            (
                NonNull::<T>::dangling().as_ptr().cast::<u8>(),
                Backing::Empty,
            )
        } else if let Some((raw, size)) = map_huge(bytes) {
            (raw, Backing::Mapped(size))
        } else {
            let layout = Layout::array::<T>(len).expect("table layout is valid");
            // SAFETY: the layout has a non-zero size.
            let raw = unsafe {
                match value {
                    Some(_) => alloc(layout),
                    None => alloc_zeroed(layout),
                }
            };
            (raw, Backing::Heap(layout))
        };
        let Some(ptr) = NonNull::new(raw.cast::<T>()) else {
            handle_alloc_error(Layout::array::<T>(len).expect("table layout is valid"))
        };
        if let Some(value) = value {
            for i in 0..len {
                // SAFETY: `i < len` and the allocation holds `len` values of `T`.
                unsafe { ptr.as_ptr().add(i).write(value) };
            }
        }
        Self { ptr, len, backing }
    }
}

/// At least `bytes` of zeroed memory on a huge-page boundary, marked for huge pages, with its
/// size; `None` when the table is too small to gain from huge pages or the mapping fails.
#[cfg(target_os = "linux")]
fn map_huge(bytes: usize) -> Option<(*mut u8, usize)> {
    if bytes < HUGE_PAGE {
        return None;
    }
    let size = bytes.next_multiple_of(HUGE_PAGE);
    let total = size.checked_add(HUGE_PAGE)?;
    // SAFETY: a fresh private anonymous mapping aliases nothing. The parts outside the
    // aligned range are unmapped again, and the rest is owned by the returned `HugeSlice`.
    unsafe {
        let raw = libc::mmap(
            std::ptr::null_mut(),
            total,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if raw == libc::MAP_FAILED {
            return None;
        }
        let base = raw as usize;
        let start = base.next_multiple_of(HUGE_PAGE);
        if start > base {
            libc::munmap(raw, start - base);
        }
        let tail = base + total - (start + size);
        if tail > 0 {
            libc::munmap((start + size) as *mut libc::c_void, tail);
        }
        advise_huge(start as *mut u8, size);
        Some((start as *mut u8, size))
    }
}

#[cfg(not(target_os = "linux"))]
fn map_huge(_bytes: usize) -> Option<(*mut u8, usize)> {
    None
}

/// Asks for huge pages under the spare capacity of `v` (the whole 2 MB pages inside it), so
/// that a buffer about to be filled with megabytes of data is faulted in on huge pages.
pub fn advise_huge_capacity<T>(v: &mut Vec<T>) {
    let spare = v.spare_capacity_mut();
    let bytes = std::mem::size_of_val(spare);
    if bytes < 2 * HUGE_PAGE {
        return;
    }
    let start = spare.as_mut_ptr() as usize;
    let first = start.next_multiple_of(HUGE_PAGE);
    let end = (start + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        advise_huge(first as *mut u8, end - first);
    }
}

#[cfg(target_os = "linux")]
fn advise_huge(start: *mut u8, size: usize) {
    // SAFETY: the range is one allocation this process owns, and MADV_HUGEPAGE is only a hint
    // about how to back it: it never changes the memory's contents. A failure (huge pages off
    // or unsupported) leaves ordinary pages, which is fine.
    unsafe {
        libc::madvise(start.cast(), size, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_start: *mut u8, _size: usize) {}

impl<T: Copy> Deref for HugeSlice<T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` holds `len` initialised values (or is dangling with a zero size).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> DerefMut for HugeSlice<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> Drop for HugeSlice<T> {
    fn drop(&mut self) {
        match self.backing {
            Backing::Empty => {}
            // SAFETY: allocated in `allocate` with this layout; `T: Copy` has no destructor.
            Backing::Heap(layout) => unsafe { dealloc(self.ptr.as_ptr().cast(), layout) },
            // SAFETY: mapped in `map_huge` with this size, and nothing else refers to it.
            #[cfg(target_os = "linux")]
            Backing::Mapped(size) => unsafe {
                libc::munmap(self.ptr.as_ptr().cast(), size);
            },
            #[cfg(not(target_os = "linux"))]
            Backing::Mapped(_) => {}
        }
    }
}

impl<T: Copy> Clone for HugeSlice<T> {
    fn clone(&self) -> Self {
        match self.first() {
            Some(&first) => {
                let mut copy = Self::filled(first, self.len);
                copy.copy_from_slice(self);
                copy
            }
            None => Self {
                ptr: NonNull::dangling(),
                len: self.len,
                backing: Backing::Empty,
            },
        }
    }
}

impl<T: Copy + fmt::Debug> fmt::Debug for HugeSlice<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HugeSlice(len {})", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_huge_tables_hold_their_values() {
        for len in [0usize, 1, 1000, HUGE_PAGE / 8 + 3] {
            let mut t = HugeSlice::filled(7u64, len);
            assert_eq!(t.len(), len);
            assert!(t.iter().all(|&v| v == 7));
            if len > 0 {
                t[len - 1] = 9;
                let c = t.clone();
                assert_eq!(c[len - 1], 9);
                assert_eq!(&c[..], &t[..]);
            }
        }
    }

    #[test]
    fn zeroed_tables_are_zero() {
        for len in [0usize, 5, HUGE_PAGE / 8 + 1] {
            let t = HugeSlice::<u64>::zeroed(len);
            assert_eq!(t.len(), len);
            assert!(t.iter().all(|&v| v == 0));
        }
    }

    #[test]
    fn backed_tables_are_zero() {
        for (len, bytes) in [(0usize, 100), (3, 1 << 20), (HUGE_PAGE / 8 + 5, HUGE_PAGE)] {
            let t = HugeSlice::<u64>::zeroed_backed(len, bytes);
            assert_eq!(t.len(), len);
            assert!(t.iter().all(|&v| v == 0), "{len}");
        }
    }

    #[test]
    fn huge_tables_start_on_a_huge_page_boundary() {
        let t = HugeSlice::filled(0u32, HUGE_PAGE);
        if cfg!(target_os = "linux") {
            assert_eq!(t.as_ptr() as usize % HUGE_PAGE, 0);
        }
    }
}
