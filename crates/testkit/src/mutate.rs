//! Byte- and token-level mutation of sources, driven by a deterministic PRNG.
//!
//! A fuzz-style test takes each sample, applies a few random [`mutate_once`]
//! steps (or one [`mutate`] call), and runs the mutant through the compiler.
//! Everything here is deterministic: the same [`Rng`] state gives the same
//! mutant, and [`Rng::for_mutant`] gives every mutant of a run its own
//! stream, so a failure is reproduced from the seed and the mutant's number.

use std::fmt::Write as _;

/// Largest mutant; mutations that grow past it are cut back.
pub const MAX_MUTANT: usize = 256 << 10;

/// SplitMix64: tiny, fast, and plenty for choosing mutations. Not for
/// cryptography.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose stream is fixed by `seed`.
    pub const fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The generator for mutant number `index` of a run with `seed`: each
    /// mutant has its own stream, so changing how one is made changes no
    /// other.
    pub const fn for_mutant(seed: u64, index: usize) -> Self {
        Self(seed ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0, without drawing).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// Uniform in `0..=n`: a position in a buffer of length `n`.
    pub fn pos(&mut self, n: usize) -> usize {
        self.below(n + 1)
    }

    /// One of `items`, uniformly.
    ///
    /// # Panics
    ///
    /// When `items` is empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A length in `1..=max` (1 when `max` is 0) that is usually short
    /// (at most 8) and sometimes long (up to 64 or 1024).
    pub fn length(&mut self, max: usize) -> usize {
        let cap = match self.below(4) {
            0..=1 => 8,
            2 => 64,
            _ => 1024,
        };
        1 + self.below(cap.min(max.max(1)))
    }

    /// A random range `start..end` of a buffer of length `n`, of a length
    /// chosen by [`Rng::length`] (shorter at the end of the buffer).
    pub fn range(&mut self, n: usize) -> (usize, usize) {
        let start = self.pos(n);
        let end = (start + self.length(n)).min(n);
        (start, end)
    }
}

/// A mutated source and what was done to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutant {
    /// The mutated bytes (at most [`MAX_MUTANT`]; not necessarily UTF-8).
    pub bytes: Vec<u8>,
    /// The mutations applied, one `;`-terminated entry each, each preceded by
    /// a space (for example ` delete 10..12; insert "{" at 3;`).
    pub log: String,
}

/// Mutates a copy of `original` by one to four [`mutate_once`] steps, and
/// once in eight times by up to eleven more. `donors` supply fragments of
/// other files (usually all the samples).
pub fn mutate(rng: &mut Rng, original: &[u8], donors: &[Vec<u8>]) -> Mutant {
    let mut bytes = original.to_vec();
    let mut log = String::new();
    let rounds = 1 + rng.below(4) + if rng.below(8) == 0 { rng.below(12) } else { 0 };
    for _ in 0..rounds {
        mutate_once(rng, &mut bytes, donors, &mut log);
    }
    Mutant { bytes, log }
}

/// Characters and fragments that tend to reach corners of the lexer, the
/// preprocessor and the parser.
pub const SNIPPETS: &[&[u8]] = &[
    b"{",
    b"}",
    b"(",
    b")",
    b"[",
    b"]",
    b"<",
    b">",
    b";",
    b",",
    b"#",
    b"\"",
    b"'",
    b"/",
    b"*",
    b"\\",
    b"\n",
    b"\0",
    b"\xff",
    b"\r",
    b"\r\n",
    b"\\\n",
    b"/*",
    b"*/",
    b"//",
    b">>",
    b"<<",
    b"::",
    b"->",
    b"...",
    b"##",
    b"\xef\xbb\xbf",
    b"\xc3",
    b"\xe2\x80",
    b"\xe2\x80\x9c",
    b"\xf0\x9f\x98",
    b"\xed\xa0\x80",
    b"\xc3\xa9",
    b"0x",
    b"0b",
    b"1e",
    b"1.5f",
    b"1e+",
    b"08",
    b"0xfffffffffffffffffffff",
    b"'\\",
    b"'\\x",
    b"\"\\q\"",
    b"L\"",
    b"int ",
    b"float ",
    b"void ",
    b"if ",
    b"else ",
    b"for ",
    b"while ",
    b"do ",
    b"return ",
    b"struct ",
    b"class ",
    b"template ",
    b"typename ",
    b"const ",
    b"static ",
    b"auto ",
    b"switch ",
    b"case ",
    b"default:",
    b"break;",
    b"goto ",
    b"try ",
    b"catch ",
    b"throw ",
    b"new ",
    b"delete ",
    b"sizeof ",
    b"operator ",
    b"namespace ",
    b"using ",
    b"mutable ",
    b"public:",
    b"restrict(amp) ",
    b"restrict(",
    b"tile_static ",
    b"parallel_for_each",
    b"array_view<int, 2> ",
    b"extent<",
    b"tiled_index<2, 2>",
    b"vector<",
    b"std::",
    b"static_cast<",
    b".tile<",
    b"[=]",
    b"[&](index<1> i) restrict(amp) {",
    b"x",
    b"main",
    b"TS",
    b"1",
    b"0",
    b"\n#define X X\n",
    b"\n#define X\n",
    b"\n#define F(a) a F(\n",
    b"\n#define F(a, b) a b\n",
    b"\n#define F(\n",
    b"\n#define S(x) #x\n",
    b"\n#define C(a, b) a ## b\n",
    b"\n#undef X\n",
    b"\n#define TS\n",
    b"\n#undef TS\n",
    b"\n#if 1\n",
    b"\n#if 0\n",
    b"\n#if\n",
    b"\n#if (\n",
    b"\n#if 1 / 0\n",
    b"\n#if defined(X) && X > 1\n",
    b"\n#ifdef X\n",
    b"\n#ifndef X\n",
    b"\n#elif 1\n",
    b"\n#else\n",
    b"\n#endif\n",
    b"\n#include <amp.h>\n",
    b"\n#include \"",
    b"\n#include <nope.h>\n",
    b"\n#error boom\n",
    b"\n#pragma once\n",
    b"\n#line 1\n",
    b"\n#\n",
    b"\n# 12 \"x\"\n",
];

/// Fragments repeated many times by the "amplify" mutation: nesting and chains.
pub const OPENERS: &[&[u8]] = &[
    b"(",
    b"{",
    b"[",
    b"- ",
    b"!",
    b"~",
    b"*",
    b"&",
    b"f(",
    b"a[",
    b"if (1) ",
    b"else if (1) ",
    b"while (1) ",
    b"x = ",
    b"1 + ",
    b"1, ",
    b"1 ? 1 : ",
    b"vector<",
    b"extent<",
    b"static_cast<int>(",
    b"[=]() { ",
    b"case 1: ",
    b"\n#if 1\n",
    b"\n#define X X\n",
    b"F(",
    b")",
    b"}",
    b">",
    b"\n#endif\n",
];

/// Applies one random mutation to `data`, and appends a description of it to
/// `log` (a space, then the mutation, then `;`).
///
/// The mutations, equally likely: flip a bit; set a byte; insert random
/// bytes; delete a few bytes; insert one of [`SNIPPETS`]; copy a range
/// elsewhere; delete a range; replace a range (or insert) with a range of
/// one of `donors` (of the mutant itself when there is none); truncate;
/// delete, repeat or swap token-like runs ([`token_at`]); replace one by one
/// of [`SNIPPETS`]; insert one of [`OPENERS`] repeated up to 2,000 times.
/// The result is cut back to [`MAX_MUTANT`] bytes.
pub fn mutate_once(rng: &mut Rng, data: &mut Vec<u8>, donors: &[Vec<u8>], log: &mut String) {
    let n = data.len();
    match rng.below(14) {
        0 => {
            if n > 0 {
                let at = rng.below(n);
                let bit = rng.below(8);
                data[at] ^= 1 << bit;
                let _ = write!(log, " flip bit {bit} at {at};");
            }
        }
        1 => {
            if n > 0 {
                let at = rng.below(n);
                let b = rng.next_u64() as u8;
                data[at] = b;
                let _ = write!(log, " set {at} to {b:#04x};");
            }
        }
        2 => {
            let at = rng.pos(n);
            let count = 1 + rng.below(4);
            let bytes: Vec<u8> = (0..count).map(|_| rng.next_u64() as u8).collect();
            let _ = write!(
                log,
                " insert {:?} at {at};",
                bytes.escape_ascii().to_string()
            );
            data.splice(at..at, bytes);
        }
        3 => {
            let at = rng.pos(n);
            let end = (at + 1 + rng.below(4)).min(n);
            data.drain(at..end);
            let _ = write!(log, " delete {at}..{end};");
        }
        4 => {
            let at = rng.pos(n);
            let s = *rng.pick(SNIPPETS);
            let _ = write!(log, " insert {:?} at {at};", s.escape_ascii().to_string());
            data.splice(at..at, s.iter().copied());
        }
        5 => {
            let (a, b) = rng.range(n);
            let at = rng.pos(n);
            let copy = data[a..b].to_vec();
            let _ = write!(log, " copy {a}..{b} to {at};");
            data.splice(at..at, copy);
        }
        6 => {
            let (a, b) = rng.range(n);
            data.drain(a..b);
            let _ = write!(log, " delete {a}..{b};");
        }
        7 => {
            // Without donors the mutant gives to itself (`below(0)` draws
            // nothing, so the stream is as with donors).
            let own;
            let (donor_index, donor): (usize, &[u8]) = {
                let i = rng.below(donors.len());
                match donors.get(i) {
                    Some(d) => (i, d),
                    None => {
                        own = data.clone();
                        (i, &own)
                    }
                }
            };
            let (a, b) = rng.range(donor.len());
            let (c, d) = if rng.below(2) == 0 {
                rng.range(n)
            } else {
                (rng.pos(n), 0)
            };
            let d = d.max(c);
            let _ = write!(
                log,
                " replace {c}..{d} by {a}..{b} of sample #{donor_index};"
            );
            data.splice(c..d, donor[a..b].iter().copied());
        }
        8 => {
            let at = rng.pos(n);
            data.truncate(at);
            let _ = write!(log, " truncate at {at};");
        }
        9 => {
            let (a, b) = token_at(data, rng.pos(n));
            let _ = write!(log, " delete token {a}..{b};");
            data.drain(a..b);
        }
        10 => {
            let (a, b) = token_at(data, rng.pos(n));
            let times = 1 + rng.below(3);
            let copy = data[a..b].repeat(times);
            let _ = write!(log, " repeat token {a}..{b} {times} more times;");
            data.splice(b..b, copy);
        }
        11 => {
            let (a, b) = token_at(data, rng.pos(n));
            let (c, d) = token_at(data, rng.pos(n));
            if b <= c || d <= a {
                let (first, second) = if b <= c {
                    ((a, b), (c, d))
                } else {
                    ((c, d), (a, b))
                };
                let x = data[first.0..first.1].to_vec();
                let y = data[second.0..second.1].to_vec();
                data.splice(second.0..second.1, x);
                data.splice(first.0..first.1, y);
                let _ = write!(
                    log,
                    " swap tokens {}..{} and {}..{};",
                    first.0, first.1, second.0, second.1
                );
            }
        }
        12 => {
            let (a, b) = token_at(data, rng.pos(n));
            let s = *rng.pick(SNIPPETS);
            let _ = write!(
                log,
                " replace token {a}..{b} by {:?};",
                s.escape_ascii().to_string()
            );
            data.splice(a..b, s.iter().copied());
        }
        _ => {
            let at = rng.pos(n);
            let s = *rng.pick(OPENERS);
            let most = if rng.below(4) == 0 { 2000 } else { 50 };
            let times = 1 + rng.below(most);
            let _ = write!(
                log,
                " insert {:?} x{times} at {at};",
                s.escape_ascii().to_string()
            );
            data.splice(at..at, s.repeat(times));
        }
    }
    data.truncate(MAX_MUTANT);
}

/// The byte range of the token-like run around `pos`: a word (letters,
/// digits, `_`, non-ASCII) or a single other byte.
pub fn token_at(data: &[u8], pos: usize) -> (usize, usize) {
    if data.is_empty() {
        return (0, 0);
    }
    let pos = pos.min(data.len() - 1);
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    if !word(data[pos]) {
        return (pos, pos + 1);
    }
    let start = data[..pos]
        .iter()
        .rposition(|&b| !word(b))
        .map_or(0, |i| i + 1);
    let end = data[pos..]
        .iter()
        .position(|&b| !word(b))
        .map_or(data.len(), |i| pos + i);
    (start, end)
}
