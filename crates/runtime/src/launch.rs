//! A kernel launch handed from the engine running host code to a kernel
//! engine, as plain data in C++ layout.
//!
//! The interpreter runs host code. At a `parallel_for_each` it may offer the
//! launch to a [`KernelEngine`] (the JIT): the captured values become
//! [`Arg`]s and the memory the kernel can reach becomes [`Buffer`]s of
//! elements laid out as C++ lays them out. The engine runs the kernel on the
//! buffers, and the interpreter copies them back only when it reports
//! [`LaunchOutcome::Done`]. On any other outcome the buffers are dropped and
//! the interpreter runs the launch itself from the untouched state, so a
//! failure (an out-of-bounds index, a division by zero, barrier divergence,
//! the time limit) is reported by the reference engine, with the same text,
//! whichever engine found it first.

use std::time::Instant;
use tessera_ir::{FuncId, GlobalId, LocalId, Scalar, Stmt, StmtId, Type};

/// Elements of one type (a scalar, or a struct or C array of scalars), in
/// C++ layout, 8-byte aligned (a large zeroed one on a huge page: see
/// [`crate::pages`]).
#[derive(Clone, Debug)]
pub struct Buffer {
    /// The element type.
    pub elem: Type,
    /// Bytes per element (with padding, as `sizeof`).
    pub elem_size: u32,
    /// Elements in the buffer.
    pub len: usize,
    words: Words,
}

/// The words of a buffer: a vector of which the buffer uses the part from
/// `start` on. A large zeroed buffer starts where a huge page does (see
/// [`crate::pages`]): a buffer that `malloc` places wherever it likes
/// covers one huge page fewer than it could (a 4 MiB matrix gets one of
/// two), and a kernel walking it misses the TLB on the rest. The words
/// before `start` are never touched, so the system never backs them.
#[derive(Debug)]
struct Words {
    vec: Vec<u64>,
    /// Where the buffer's words start in `vec`.
    start: usize,
}

impl Words {
    /// `n` zero words, starting on a huge page when that pays (see
    /// [`crate::pages::huge_page_padding`]).
    fn zeroed(n: usize) -> Words {
        let pad = crate::pages::huge_page_padding(n.saturating_mul(8)) / 8;
        if pad == 0 {
            return Words {
                vec: vec![0; n],
                start: 0,
            };
        }
        let mut vec = vec![0u64; n.saturating_add(pad)];
        let at = vec.as_ptr() as usize;
        let start = (crate::pages::next_huge_page(at) - at) / 8;
        // `at` is 8-byte aligned and within one huge page of the next.
        let start = start.min(pad);
        vec.truncate(start + n);
        Words { vec, start }
    }

    /// Sets the number of words, new ones `value`.
    fn resize(&mut self, n: usize, value: u64) {
        self.vec.resize(self.start + n, value);
    }

    /// Drops the words from `n` on.
    fn truncate(&mut self, n: usize) {
        self.vec.truncate(self.start + n);
    }

    /// Makes room for `extra` more words.
    fn reserve(&mut self, extra: usize) {
        self.vec.reserve(extra);
    }

    /// Drops every word.
    fn clear(&mut self) {
        self.vec.truncate(self.start);
    }

    /// Appends `words`.
    fn extend_from_slice(&mut self, words: &[u64]) {
        self.vec.extend_from_slice(words);
    }

    /// The words as a vector of their own (moved down when they start
    /// past its first).
    fn into_vec(mut self) -> Vec<u64> {
        self.vec.drain(..self.start);
        self.vec
    }
}

impl Clone for Words {
    /// A copy of the words only (a copy made by `clone` starts where the
    /// allocator puts it).
    fn clone(&self) -> Words {
        Words {
            vec: self.to_vec(),
            start: 0,
        }
    }
}

impl std::ops::Deref for Words {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        self.vec.get(self.start..).unwrap_or(&[])
    }
}

impl std::ops::DerefMut for Words {
    fn deref_mut(&mut self) -> &mut [u64] {
        self.vec.get_mut(self.start..).unwrap_or(&mut [])
    }
}

impl Buffer {
    /// A zeroed buffer of `len` elements of `elem_size` bytes, or `None` if
    /// its size overflows.
    pub fn zeroed(elem: Type, elem_size: u32, len: usize) -> Option<Buffer> {
        let bytes = len.checked_mul(elem_size as usize)?;
        let mut words = Words::zeroed(bytes.div_ceil(8));
        crate::pages::advise_huge_pages(&mut words);
        Some(Buffer {
            elem,
            elem_size,
            len,
            words,
        })
    }

    /// A zeroed buffer of `len` scalars.
    pub fn scalars(elem: Scalar, len: usize) -> Option<Buffer> {
        Buffer::zeroed(Type::Scalar(elem), elem.size(), len)
    }

    /// The first byte, for an engine to read and write through.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr().cast()
    }

    /// Element `i` of a scalar buffer (`None` past the end).
    pub fn get(&self, i: usize) -> Option<Bits> {
        let s = self.elem.scalar()?;
        if i >= self.len {
            return None;
        }
        self.get_at(i * self.elem_size as usize, s)
    }

    /// Stores element `i` of a scalar buffer (ignored past the end).
    pub fn set(&mut self, i: usize, v: Bits) {
        if let Some(s) = self.elem.scalar()
            && i < self.len
        {
            self.set_at(i * self.elem_size as usize, s, v);
        }
    }

    /// The scalar of type `s` at byte `at` (aligned to its size, as C++
    /// layout puts it, so it never straddles two words).
    #[inline(always)]
    pub fn get_at(&self, at: usize, s: Scalar) -> Option<Bits> {
        load(&self.words, at, s)
    }

    /// Stores a scalar of type `s` at byte `at` (ignored past the end).
    /// Always inlined, as [`Buffer::get_at`] is: the interpreter's element
    /// writes then store the number straight from registers.
    #[inline(always)]
    pub fn set_at(&mut self, at: usize, s: Scalar, v: Bits) {
        store(&mut self.words, at, s, v);
    }

    /// A buffer of `len` elements of `elem_size` bytes whose bytes are
    /// `words` (C++ layout, zero past the last element), or `None` when
    /// they are not that many.
    pub fn from_words(elem: Type, elem_size: u32, len: usize, words: Vec<u64>) -> Option<Buffer> {
        let bytes = len.checked_mul(elem_size as usize)?;
        (words.len() == bytes.div_ceil(8)).then_some(Buffer {
            elem,
            elem_size,
            len,
            words: Words {
                vec: words,
                start: 0,
            },
        })
    }

    /// Makes room for `n` elements (zero bytes past the last element), so
    /// that elements up to `n` can be written in place before
    /// [`Buffer::set_len`] counts them; `false` when the size overflows.
    /// The words may move: addresses taken before name nothing.
    pub fn reserve_elements(&mut self, n: usize) -> bool {
        let Some(bytes) = n.checked_mul(self.elem_size as usize) else {
            return false;
        };
        let words = bytes.div_ceil(8);
        if words > self.words.len() {
            self.words.resize(words, 0);
        }
        true
    }

    /// Counts `len` elements, those past the old length written in place
    /// in the room [`Buffer::reserve_elements`] made; `false` (nothing
    /// changed) when there is no room for them.
    pub fn set_len(&mut self, len: usize) -> bool {
        match len.checked_mul(self.elem_size as usize) {
            Some(bytes) if bytes.div_ceil(8) <= self.words.len() => {
                self.len = len;
                true
            }
            _ => false,
        }
    }

    /// Writes `bytes` from byte `at` on (nothing past the room made).
    pub fn write_bytes(&mut self, at: usize, bytes: &[u8]) {
        for (k, byte) in bytes.iter().enumerate() {
            let w = (at + k) / 8;
            let shift = ((at + k) % 8) * 8;
            if let Some(word) = self.words.get_mut(w) {
                *word = (*word & !(0xff << shift)) | (u64::from(*byte) << shift);
            }
        }
    }

    /// Gives back the room past the last element: the words are then
    /// exactly the elements' bytes, zero past the last.
    pub fn fit(&mut self) {
        let bytes = self.len * self.elem_size as usize;
        self.words.truncate(bytes.div_ceil(8));
        if let Some(last) = self.words.last_mut()
            && !bytes.is_multiple_of(8)
        {
            *last &= (1u64 << ((bytes % 8) * 8)) - 1;
        }
    }

    /// Drops the elements from `len` on (nothing when it has fewer).
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
        self.fit();
    }

    /// The bytes, as words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The bytes, as words, the buffer given up.
    pub fn into_words(self) -> Vec<u64> {
        self.words.into_vec()
    }
}

/// The scalar of type `s` at byte `at` of memory held as words (C++
/// layout, little-endian; aligned to its size, so it never straddles two
/// words), or `None` past the end.
#[inline(always)]
pub fn load(words: &[u64], at: usize, s: Scalar) -> Option<Bits> {
    let word = words.get(at / 8)? >> ((at % 8) * 8);
    Some(match s {
        Scalar::Bool => Bits::Bool(word as u8 != 0),
        Scalar::Char => Bits::Int(i64::from(word as u8 as i8)),
        Scalar::UChar => Bits::Int(i64::from(word as u8)),
        Scalar::Short => Bits::Int(i64::from(word as u16 as i16)),
        Scalar::UShort => Bits::Int(i64::from(word as u16)),
        Scalar::Int | Scalar::WChar => Bits::Int(i64::from(word as u32 as i32)),
        Scalar::UInt => Bits::Int(i64::from(word as u32)),
        Scalar::Long | Scalar::ULong => Bits::Int(word as i64),
        Scalar::Float => Bits::Float(f32::from_bits(word as u32)),
        Scalar::Double => Bits::Double(f64::from_bits(word)),
    })
}

/// Stores a scalar of type `s` at byte `at` of memory held as words (see
/// [`load`]); nothing past the end.
#[inline(always)]
pub fn store(words: &mut [u64], at: usize, s: Scalar, v: Bits) {
    let size = s.size() as usize;
    let raw: u64 = match v {
        Bits::Bool(b) => u64::from(b),
        Bits::Int(n) => n as u64,
        Bits::Float(f) => u64::from(f.to_bits()),
        Bits::Double(d) => d.to_bits(),
    };
    let shift = (at % 8) * 8;
    let mask: u64 = if size == 8 {
        u64::MAX
    } else {
        ((1u64 << (size * 8)) - 1) << shift
    };
    if let Some(w) = words.get_mut(at / 8) {
        *w = (*w & !mask) | ((raw << shift) & mask);
    }
}

/// Copies `n` bytes from byte `from` of `src` to byte `to` of `dst` (both
/// memory held as words; the caller keeps `n` within both), whole words
/// at a time where both positions are equally far past a word's start.
pub fn copy_bytes(dst: &mut [u64], to: usize, src: &[u64], from: usize, n: usize) {
    let n = n
        .min((src.len() * 8).saturating_sub(from))
        .min((dst.len() * 8).saturating_sub(to));
    let mut k = 0;
    let byte = |dst: &mut [u64], k: usize| {
        let b = (src[(from + k) / 8] >> (((from + k) % 8) * 8)) as u8;
        let (at, shift) = ((to + k) / 8, ((to + k) % 8) * 8);
        dst[at] = (dst[at] & !(0xff << shift)) | (u64::from(b) << shift);
    };
    // Positions equally far from a word's start: bytes up to the next
    // word, then whole words.
    if to % 8 == from % 8 {
        while k < n && !(to + k).is_multiple_of(8) {
            byte(dst, k);
            k += 1;
        }
        let (t, f, whole) = ((to + k) / 8, (from + k) / 8, (n - k) / 8);
        dst[t..t + whole].copy_from_slice(&src[f..f + whole]);
        k += whole * 8;
    }
    while k < n {
        byte(dst, k);
        k += 1;
    }
}

/// Growing, shrinking and moving the elements of a scalar buffer: the
/// interpreter keeps a container of scalars in one such buffer (the memory
/// a launch hands to the JIT as it is), so `push_back`, `insert`, `erase`
/// and `resize` work on it directly.
///
/// Invariant: the bytes past the last element (up to the end of the last
/// word) are zero, so that growing only has to add zeroed words.
impl Buffer {
    /// Bytes the elements take.
    fn bytes(&self) -> usize {
        self.len * self.elem_size as usize
    }

    /// The raw bits of element `i` (element size 1, 2, 4 or 8 bytes, which
    /// never straddles two words), or 0 past the end.
    fn raw(&self, i: usize) -> u64 {
        let size = self.elem_size as usize;
        let at = i * size;
        let Some(word) = self.words.get(at / 8) else {
            return 0;
        };
        let word = word >> ((at % 8) * 8);
        if size >= 8 {
            word
        } else {
            word & ((1u64 << (size * 8)) - 1)
        }
    }

    /// Stores the raw bits of element `i`.
    fn set_raw(&mut self, i: usize, raw: u64) {
        let size = self.elem_size as usize;
        let at = i * size;
        let shift = (at % 8) * 8;
        let mask: u64 = if size >= 8 {
            u64::MAX
        } else {
            ((1u64 << (size * 8)) - 1) << shift
        };
        if let Some(w) = self.words.get_mut(at / 8) {
            *w = (*w & !mask) | ((raw << shift) & mask);
        }
    }

    /// True when the elements of this buffer can be moved a word at a time
    /// between positions `a` and `b`.
    fn word_aligned(&self, a: usize, b: usize) -> bool {
        let size = self.elem_size as usize;
        (a * size).is_multiple_of(8) && (b * size).is_multiple_of(8)
    }

    /// Sets the number of elements to `n`: new elements are zero (whatever
    /// their size: a vector of structs grows this way too).
    pub fn resize(&mut self, n: usize) {
        let size = self.elem_size as usize;
        if size == 0 {
            return;
        }
        if n < self.len {
            // Zero the dropped elements within the word that stays.
            let keep = n * size;
            self.words.truncate(keep.div_ceil(8));
            if !keep.is_multiple_of(8)
                && let Some(w) = self.words.last_mut()
            {
                *w &= (1u64 << ((keep % 8) * 8)) - 1;
            }
        } else {
            self.words.resize((n * size).div_ceil(8), 0);
        }
        self.len = n;
    }

    /// Reserves room for `extra` more elements.
    pub fn reserve(&mut self, extra: usize) {
        let want = (self.len.saturating_add(extra))
            .saturating_mul(self.elem_size as usize)
            .div_ceil(8);
        let have = self.words.len();
        self.words.reserve(want.saturating_sub(have));
    }

    /// Appends a scalar.
    pub fn push(&mut self, v: Bits) {
        let i = self.len;
        self.resize(i + 1);
        self.set(i, v);
    }

    /// Makes room for `count` zeroed elements at `at` (at most the length),
    /// moving the later ones up.
    pub fn insert_zeroed(&mut self, at: usize, count: usize) {
        let old = self.len;
        if at > old || count == 0 {
            return;
        }
        self.resize(old + count);
        if self.word_aligned(at, count) {
            let size = self.elem_size as usize;
            let (from, by) = (at * size / 8, count * size / 8);
            let end = (old * size).div_ceil(8);
            self.words.copy_within(from..end, from + by);
            self.words[from..from + by].fill(0);
            return;
        }
        self.shift_up(
            at * self.elem_size as usize,
            count * self.elem_size as usize,
        );
        for i in at..at + count {
            self.set_raw(i, 0);
        }
    }

    /// Removes elements `lo..hi`, moving the later ones down.
    pub fn remove_range(&mut self, lo: usize, hi: usize) {
        let len = self.len;
        let hi = hi.min(len);
        if lo >= hi {
            return;
        }
        let count = hi - lo;
        if self.word_aligned(lo, count) {
            let size = self.elem_size as usize;
            let (to, from) = (lo * size / 8, hi * size / 8);
            let end = self.bytes().div_ceil(8);
            self.words.copy_within(from..end, to);
        } else {
            self.shift_down(
                lo * self.elem_size as usize,
                count * self.elem_size as usize,
            );
        }
        self.resize(len - count);
    }

    /// Moves the bytes from byte `from` on up by `by` bytes (not a whole
    /// number of words), a word at a time: each word written is made of
    /// two neighbouring source words, funnel-shifted. Bytes before `from`
    /// stay; bytes `from..from + by` are left as they come and the caller
    /// overwrites them. The words must already reach the new end.
    ///
    /// Why words rather than elements: an `insert` at the front of a big
    /// container of `int`s moves them all, and this is a few instructions
    /// per 8 bytes rather than a read and a write per element.
    fn shift_up(&mut self, from: usize, by: usize) {
        let (q, r) = (by / 8, (by % 8) as u32 * 8);
        let first = from / 8;
        let n = self.words.len();
        let Some(&keep) = self.words.get(first) else {
            return;
        };
        // Whole words first (a memmove), then the bytes within words, with
        // the word below carried along: the loop the compiler vectorises.
        if q > 0 && first + q < n {
            self.words.copy_within(first..n - q, first + q);
        }
        if r > 0 {
            let mut carry = 0u64;
            for w in self.words.iter_mut().skip(first + q) {
                let cur = *w;
                *w = (cur << r) | (carry >> (64 - r));
                carry = cur;
            }
        }
        self.put_back_prefix(first, from, keep);
    }

    /// Moves the bytes from byte `from + by` on down to byte `from` (see
    /// [`Buffer::shift_up`]); bytes before `from` stay, and the bytes
    /// freed at the end are zero.
    fn shift_down(&mut self, from: usize, by: usize) {
        let (q, r) = (by / 8, (by % 8) as u32 * 8);
        let first = from / 8;
        let n = self.words.len();
        let Some(&keep) = self.words.get(first) else {
            return;
        };
        if q > 0 {
            if first + q < n {
                self.words.copy_within(first + q..n, first);
            }
            let tail = n.saturating_sub(q).max(first);
            self.words[tail..].fill(0);
        }
        if r > 0 {
            for j in first..n {
                let next = self.words.get(j + 1).copied().unwrap_or(0);
                self.words[j] = (self.words[j] >> r) | (next << (64 - r));
            }
        }
        self.put_back_prefix(first, from, keep);
    }

    /// Restores the bytes of word `first` before byte `from` from `keep`,
    /// the word as it was.
    fn put_back_prefix(&mut self, first: usize, from: usize, keep: u64) {
        let bytes = from - first * 8;
        if bytes > 0
            && let Some(w) = self.words.get_mut(first)
        {
            let mask = (1u64 << (bytes * 8)) - 1;
            *w = (*w & !mask) | (keep & mask);
        }
    }

    /// Reverses elements `lo..hi`.
    pub fn reverse(&mut self, lo: usize, hi: usize) {
        let hi = hi.min(self.len);
        if lo >= hi {
            return;
        }
        let (mut a, mut b) = (lo, hi - 1);
        while a < b {
            let (x, y) = (self.raw(a), self.raw(b));
            self.set_raw(a, y);
            self.set_raw(b, x);
            a += 1;
            b -= 1;
        }
    }

    /// Stores `v` in elements `lo..hi`.
    pub fn fill(&mut self, lo: usize, hi: usize, v: Bits) {
        let hi = hi.min(self.len);
        if lo >= hi {
            return;
        }
        self.set(lo, v);
        let raw = self.raw(lo);
        let size = self.elem_size as usize;
        // A whole word of the value, when the range covers whole words.
        let mut word = 0u64;
        for k in 0..(8 / size.max(1)) {
            word |= raw << (k * size * 8);
        }
        let mut i = lo + 1;
        while i < hi && !(i * size).is_multiple_of(8) {
            self.set_raw(i, raw);
            i += 1;
        }
        let per = (8 / size.max(1)).max(1);
        while i + per <= hi {
            if let Some(w) = self.words.get_mut(i * size / 8) {
                *w = word;
            }
            i += per;
        }
        while i < hi {
            self.set_raw(i, raw);
            i += 1;
        }
    }

    /// Copies `n` bytes from byte `from` of `src` (memory held as words,
    /// as [`Buffer::words`] gives it) to byte `to` of this buffer, clipped
    /// to this buffer's elements: a C array of scalars goes into an object
    /// handed to a launch as its bytes.
    pub fn copy_bytes(&mut self, to: usize, src: &[u64], from: usize, n: usize) {
        let n = n.min(self.bytes().saturating_sub(to));
        copy_bytes(&mut self.words, to, src, from, n);
    }

    /// Copies the elements of `other` (of the same type) over this one's.
    pub fn copy_from(&mut self, other: &Buffer) {
        self.elem = other.elem.clone();
        self.elem_size = other.elem_size;
        self.len = other.len;
        self.words.clear();
        self.words.extend_from_slice(&other.words);
    }
}

/// A scalar element's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bits {
    /// `bool`
    Bool(bool),
    /// Any integer type, sign- or zero-extended (`unsigned long` as its bits).
    Int(i64),
    /// `float`
    Float(f32),
    /// `double`
    Double(f64),
}

/// One captured value of a kernel, by capture slot.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A scalar.
    Scalar(Bits),
    /// An `index<N>` or `extent<N>`.
    Shape(Vec<i64>),
    /// A struct or C array: the one element of buffer `buffer`.
    Object {
        /// Position in [`Launch::buffers`].
        buffer: usize,
    },
    /// An `array` or `array_view`: a window on buffer `buffer`.
    View {
        /// Position in [`Launch::buffers`].
        buffer: usize,
        /// Element `(0, ..., 0)`'s position in the buffer.
        offset: usize,
        /// The extent.
        extent: Vec<i64>,
        /// Distance between neighbours in each dimension, in elements.
        strides: Vec<usize>,
    },
    /// A struct holding views (a function object, a lambda's closure),
    /// which has no plain memory layout: its fields one by one, in order.
    Fields(Vec<Arg>),
    /// A view made by `reinterpret_as`: a window on the bytes of buffer
    /// `buffer` (whose elements are of another type) read as `elem`s.
    PunView {
        /// Position in [`Launch::buffers`].
        buffer: usize,
        /// The type the bytes are read as.
        elem: Type,
        /// Its size in bytes.
        elem_size: u32,
        /// Element `(0, ..., 0)`'s position, in `elem`s from the buffer's
        /// first byte plus `skew`.
        offset: usize,
        /// Bytes before the view's first whole `elem` (a view whose first
        /// byte is not a whole number of `elem`s from the buffer's start;
        /// a multiple of `elem`'s alignment, or of 4 when that is larger).
        skew: usize,
        /// The extent.
        extent: Vec<i64>,
        /// Distance between neighbours in each dimension, in `elem`s.
        strides: Vec<usize>,
    },
}

/// One `parallel_for_each`.
#[derive(Debug)]
pub struct Launch {
    /// The kernel function.
    pub kernel: FuncId,
    /// The compute domain's extent (checked: positive, divisible by the tile).
    pub extent: Vec<i64>,
    /// The captured values, by slot.
    pub args: Vec<Arg>,
    /// The memory the kernel reaches: one buffer per distinct storage, so two
    /// views of the same data share one.
    pub buffers: Vec<Buffer>,
    /// When the run's time limit passes.
    pub deadline: Option<Instant>,
    /// Set from outside (Ctrl-C in the REPL) to stop the run; an engine
    /// stops with `Failed` and leaves the flag set for the interpreter.
    pub interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// A host statement's `std::cout`: its format, and what the run
    /// printed (`None` for a kernel, which cannot print).
    pub output: Option<HostOutput>,
    /// A host statement's copy of C's `rand()` state, which its code
    /// advances; the interpreter takes it back when the run ends well
    /// (`None` for a kernel).
    pub rand: Option<crate::rand::Rand>,
    /// The vectors a compiled host statement appends to, and the memory
    /// it may take doing so (`None` for a kernel, or a statement that
    /// appends to none).
    pub growth: Option<HostGrowth>,
    /// The bytes the memory limit leaves when the launch starts: the
    /// engine's own memory for it (work-items' frames, private arrays)
    /// stays within them.
    pub memory_left: u64,
}

/// What a compiled host statement may append (`push_back`): the vectors,
/// each a view argument whose buffer the statement alone reaches, and the
/// bytes the memory limit leaves. An append past them stops the run, and
/// the interpreter runs the statement again and reports where the limit
/// was passed.
#[derive(Clone, Debug, Default)]
pub struct HostGrowth {
    /// For each vector appended to: its position in [`Launch::args`] and
    /// the bytes the memory limit counts per element.
    pub vectors: Vec<(usize, u64)>,
    /// The bytes the memory limit leaves for the appended elements.
    pub memory_left: u64,
}

/// What a compiled host statement prints to `std::cout`. The text is kept
/// until the run ends: a failed run is run again by the interpreter, which
/// prints it then, so the engine's text is dropped; a run to the end hands
/// it over with the format as the printing left it (a `setw` is used up).
#[derive(Clone, Debug, Default)]
pub struct HostOutput {
    /// `std::cout`'s format.
    pub format: crate::format::StreamFormat,
    /// The bytes printed.
    pub bytes: Vec<u8>,
    /// Whether a `std::endl` or `std::flush` was printed (the interpreter
    /// flushes its output then).
    pub flushed: bool,
    /// The most bytes the run may keep: one that would print more stops,
    /// and the interpreter, which writes as it goes, runs the statement.
    pub limit: usize,
}

/// What a compiled host statement prints other than numbers: a string
/// literal's bytes, or a manipulator (with its argument, if it takes one,
/// computed by the code).
#[derive(Clone, Debug, PartialEq)]
pub enum PrintItem {
    /// A string literal (without its terminating zero).
    Bytes(Vec<u8>),
    /// `std::endl`, `std::setw(n)`, `std::fixed`...
    Manip(tessera_ir::Manipulator),
    /// `printf(format, values...)` to standard output: the format, and for
    /// each value whether it is a `double` (else an integer, as its 64 bits
    /// sign- or zero-extended as its type is).
    Printf {
        /// The format's bytes.
        format: Vec<u8>,
        /// Which values are `double`s.
        doubles: Vec<bool>,
    },
}

/// How a kernel engine handled a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchOutcome {
    /// Ran to the end; the buffers hold the results.
    Done,
    /// The engine does not handle this kernel; nothing was run.
    Declined,
    /// Stopped by a failed check; the buffers are partly written and must be
    /// dropped. The reference engine reruns the launch to report the error.
    Failed,
}

/// What the engine needs to run a host statement, and how it may leave it.
///
/// `launch.args` holds, in order: one argument per local of
/// [`HostPlan::locals`] and per global of [`HostPlan::globals`] (a scalar's
/// value, a vector's or view's window, a C array or struct as the one
/// element of a buffer), one [`Arg::Scalar`] per local of [`HostPlan::exit_locals`] (any value
/// in; the local's value at the exit out), and one [`Arg::Scalar`] that
/// the engine sets to the exit it took: 0 when the statement ran to its
/// end, `k` for exit `k - 1` of [`HostPlan::exits`].
#[derive(Clone, Debug, Default)]
pub struct HostPlan {
    /// The locals declared outside the statement that it names, each with
    /// whether the statement may write through it (a vector's or view's
    /// elements). A reference stands for what it refers to.
    pub locals: Vec<(LocalId, bool)>,
    /// The vector locals among them that the statement appends to
    /// (`push_back`): the interpreter gives each as its own typed buffer
    /// and a share of the memory limit ([`HostGrowth`]).
    pub appended: Vec<LocalId>,
    /// The globals the statement, or a function it calls, names, each with
    /// whether the statement may write through it.
    pub globals: Vec<(GlobalId, bool)>,
    /// Scalar locals declared inside the statement that the code of an
    /// exit reads.
    pub exit_locals: Vec<LocalId>,
    /// Where the engine may stop and leave the rest of the statement to
    /// the interpreter.
    pub exits: Vec<HostExit>,
    /// Every function the statement calls, directly or not (the engine
    /// inlines them: the interpreter checks its call depth, stack and
    /// memory would allow those calls before offering the statement).
    pub calls: Vec<FuncId>,
}

/// A point where a compiled host statement stops and the interpreter runs
/// code that leaves the statement (at most once per run, so it need not be
/// fast): the interpreter runs it with the locals as the engine left them,
/// and whatever it does (a `return`, a `break` out of the statement, output
/// on the way) ends the statement.
#[derive(Clone, Debug)]
pub struct HostExit {
    /// What the interpreter runs.
    pub kind: HostExitKind,
    /// Positions in [`HostPlan::exit_locals`] of the locals this exit's
    /// code may read: the engine set them.
    pub locals: Vec<usize>,
}

/// The code a [`HostExit`] leaves to the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostExitKind {
    /// The `return` statement of this id.
    Return(StmtId),
    /// A branch of the `if` statement of this id (`then` or `else`), which
    /// ends with a `return`, or a `break` out of the loop that is the
    /// statement.
    Branch {
        /// The `if`.
        stmt: StmtId,
        /// Its `then` branch (else its `else`).
        then: bool,
    },
}

/// The longest chain of nested calls a kernel engine runs (inlined, with
/// no call stack): the interpreter hands a launch over only where its own
/// call stack could take that many more calls, so an engine never finishes
/// a launch the interpreter would stop for want of call depth. Inlining
/// costs compile time and memory that grow with the square of the depth
/// (some 100 MB at 300), hence no more.
pub const MAX_KERNEL_CALL_CHAIN: u32 = 320;

/// Runs kernels on [`Launch`] data.
pub trait KernelEngine {
    /// Runs `launch` to the end, or declines it, or stops at a failed check.
    fn launch(&mut self, launch: &mut Launch) -> LaunchOutcome;

    /// A launch of `kernel` the interpreter kept because its data has no
    /// plain form (a view of structs or over a C array, say).
    fn kept(&mut self, kernel: FuncId) {
        let _ = kernel;
    }

    /// Whether the engine runs host statement `stmt` of function `func` (a
    /// loop, say), and if so what it needs: see [`HostPlan`].
    fn host_plan(&mut self, func: FuncId, stmt: &Stmt) -> Option<HostPlan> {
        let _ = (func, stmt);
        None
    }

    /// Runs host statement `stmt` once with the arguments
    /// [`HostPlan`] describes as `launch.args` (`launch.kernel` is `func`,
    /// `launch.extent` empty); on `Done` the scalars among them hold their
    /// new values, the buffers the new elements, and the last argument the
    /// exit taken.
    fn run_host(&mut self, func: FuncId, stmt: &Stmt, launch: &mut Launch) -> LaunchOutcome {
        let _ = (func, stmt, launch);
        LaunchOutcome::Declined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_keep_their_type_and_neighbours() {
        let mut b = Buffer::scalars(Scalar::Char, 10).expect("small");
        b.set(3, Bits::Int(-2));
        b.set(4, Bits::Int(127));
        assert_eq!(b.get(3), Some(Bits::Int(-2)));
        assert_eq!(b.get(4), Some(Bits::Int(127)));
        assert_eq!(b.get(2), Some(Bits::Int(0)));
        assert_eq!(b.get(10), None);
        let mut f = Buffer::scalars(Scalar::Float, 3).expect("small");
        f.set(1, Bits::Float(-1.5));
        assert_eq!(f.get(1), Some(Bits::Float(-1.5)));
        assert_eq!(f.get(0), Some(Bits::Float(0.0)));
        let mut u = Buffer::scalars(Scalar::UInt, 2).expect("small");
        u.set(1, Bits::Int(4_294_967_295));
        assert_eq!(u.get(1), Some(Bits::Int(4_294_967_295)));
        let mut d = Buffer::scalars(Scalar::Double, 1).expect("small");
        d.set(0, Bits::Double(2.5));
        assert_eq!(d.get(0), Some(Bits::Double(2.5)));
    }

    #[test]
    fn bytes_copy_to_any_position() {
        let mut src = Buffer::scalars(Scalar::Short, 7).expect("small");
        for i in 0..7 {
            src.set(i, Bits::Int(i as i64 * 1000 - 3000));
        }
        // Aligned on both sides, then at an odd byte, inside neighbours
        // that must keep their values.
        for to in [0usize, 8, 3, 5] {
            let mut dst = Buffer::scalars(Scalar::UChar, 40).expect("small");
            dst.fill(0, 40, Bits::Int(0xab));
            dst.copy_bytes(to, src.words(), 0, 14);
            for b in 0..40 {
                let want = if (to..to + 14).contains(&b) {
                    let k = b - to;
                    let v = src.get(k / 2).map_or(0, |v| match v {
                        Bits::Int(n) => n as u16,
                        _ => 0,
                    });
                    i64::from((v >> ((k % 2) * 8)) as u8)
                } else {
                    0xab
                };
                assert_eq!(dst.get(b), Some(Bits::Int(want)), "to {to}, byte {b}");
            }
        }
        // Clipped to the destination.
        let mut small = Buffer::scalars(Scalar::Short, 2).expect("small");
        small.copy_bytes(0, src.words(), 2, 100);
        assert_eq!(small.get(0), Some(Bits::Int(-2000)));
        assert_eq!(small.get(1), Some(Bits::Int(-1000)));
        // Nothing past the last element: growing finds zeros there.
        small.resize(4);
        assert_eq!(small.get(2), Some(Bits::Int(0)));
        assert_eq!(small.get(3), Some(Bits::Int(0)));
    }

    #[test]
    fn bytes_copy_between_positions_of_any_offset_in_their_words() {
        let mut src = Buffer::scalars(Scalar::UChar, 64).expect("small");
        for i in 0..64 {
            src.set(i, Bits::Int(i as i64 + 1));
        }
        // Equally far past a word's start (bytes, words, bytes), and not.
        for (from, to, n) in [(4, 12, 30), (3, 3, 21), (5, 21, 7), (1, 2, 30), (8, 0, 16)] {
            let mut dst = Buffer::scalars(Scalar::UChar, 64).expect("small");
            dst.fill(0, 64, Bits::Int(0xee));
            dst.copy_bytes(to, src.words(), from, n);
            for b in 0..64usize {
                let want = if (to..to + n).contains(&b) {
                    (b - to + from) as i64 + 1
                } else {
                    0xee
                };
                assert_eq!(
                    dst.get(b),
                    Some(Bits::Int(want)),
                    "{from} to {to}, byte {b}"
                );
            }
        }
    }

    /// Growing, shrinking and moving elements agree with a `Vec` of the
    /// same numbers, for every element size, over a long pseudo-random
    /// sequence of operations (positions that are and are not word-aligned).
    #[test]
    fn growth_and_moves_agree_with_a_vec() {
        for s in [Scalar::Char, Scalar::Short, Scalar::Int, Scalar::Long] {
            agrees_with_a_vec(Buffer::scalars(s, 0).expect("empty"), s);
        }
    }

    #[test]
    fn a_large_buffer_starts_on_a_huge_page_and_behaves_as_any() {
        let n = (4 << 20) / 4;
        let mut b = Buffer::scalars(Scalar::Int, n).expect("4 MiB");
        assert!((b.as_mut_ptr() as usize).is_multiple_of(2 << 20));
        assert_eq!(b.words().len(), n / 2);
        assert!(b.words().iter().all(|w| *w == 0));
        b.set(n - 1, Bits::Int(-7));
        b.set(0, Bits::Int(5));
        assert_eq!(b.get(n - 1), Some(Bits::Int(-7)));
        assert_eq!(b.get(n), None);
        let copy = b.clone();
        assert_eq!(copy.words(), b.words());
        let mut other = Buffer::scalars(Scalar::Int, 3).expect("small");
        other.copy_from(&b);
        assert_eq!(other.words(), b.words());
        let words = b.clone().into_words();
        assert_eq!(words.len(), n / 2);
        assert_eq!(words[0], 5);
        assert_eq!(words[n / 2 - 1], 0xffff_fff9 << 32);
        // Growth, moves and room made in place work past the start.
        assert!(b.reserve_elements(n + 5));
        assert!(b.set_len(n + 5));
        b.set(n + 4, Bits::Int(9));
        assert_eq!(b.get(n + 4), Some(Bits::Int(9)));
        b.truncate(40);
        assert_eq!(b.words().len(), 20);
        b.copy_from(&Buffer::scalars(Scalar::Int, 6).expect("small"));
        assert_eq!(b.words(), &[0, 0, 0]);
        agrees_with_a_vec(b, Scalar::Int);
    }

    /// Random growth, moves, fills and reversals of `b`, of scalars `s`,
    /// checked against the same on a `Vec`.
    fn agrees_with_a_vec(mut b: Buffer, s: Scalar) {
        {
            let mut model: Vec<i64> = (0..b.len)
                .map(|i| match b.get(i) {
                    Some(Bits::Int(v)) => v,
                    _ => 0,
                })
                .collect();
            let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
            let mut next = |n: u64| {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (seed >> 33) % n.max(1)
            };
            // Values that fit every type, so that the model needs no wrap.
            let value = |k: u64| (k % 200) as i64 - 100;
            for _ in 0..3000 {
                let len = model.len() as u64;
                match next(7) {
                    0 | 1 => {
                        let v = value(next(1000));
                        b.push(Bits::Int(v));
                        model.push(v);
                    }
                    2 => {
                        let at = next(len + 1) as usize;
                        let count = next(20) as usize;
                        b.insert_zeroed(at, count);
                        model.splice(at..at, std::iter::repeat_n(0, count));
                    }
                    3 => {
                        let lo = next(len + 1) as usize;
                        let hi = lo + next(len - lo as u64 + 1) as usize;
                        b.remove_range(lo, hi);
                        model.drain(lo..hi);
                    }
                    4 => {
                        let n = next(len + 40) as usize;
                        b.resize(n);
                        model.resize(n, 0);
                    }
                    5 => {
                        let lo = next(len + 1) as usize;
                        let hi = lo + next(len - lo as u64 + 1) as usize;
                        let v = value(next(1000));
                        b.fill(lo, hi, Bits::Int(v));
                        model[lo..hi].fill(v);
                    }
                    _ => {
                        let lo = next(len + 1) as usize;
                        let hi = lo + next(len - lo as u64 + 1) as usize;
                        b.reverse(lo, hi);
                        model[lo..hi].reverse();
                    }
                }
                assert_eq!(b.len, model.len(), "{s:?}");
                for (i, &v) in model.iter().enumerate() {
                    assert_eq!(b.get(i), Some(Bits::Int(v)), "{s:?} element {i}");
                }
            }
            // The bytes past the end are zero: growing shows zeros.
            let n = b.len;
            b.resize(n + 9);
            for i in n..n + 9 {
                assert_eq!(b.get(i), Some(Bits::Int(0)), "{s:?} grown {i}");
            }
        }
    }
}
