//! C's `printf` formatting, byte for byte as glibc does it.
//!
//! The checker parses a format with [`parse`] to match each conversion with
//! its argument (as gcc's `-Wformat` does) and the engines format with
//! [`format`], so both read a format the same way. Only conversions whose
//! behaviour C defines reach [`format`]: the checker refuses the others
//! (`%n`, `%p`, a `#` on `%d`, a precision on `%c`, ...).

use crate::format::{Exponential, FloatField, exponent_suffix, format_float, strip_fraction_zeros};

/// A width or precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Written in the format (saturated at `u32::MAX`).
    Fixed(u32),
    /// `*`: taken from an `int` argument.
    Star,
}

/// A length modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// None: `int`, `unsigned int`, `double`.
    Plain,
    /// `hh`: the value is converted to `signed char`/`unsigned char`.
    Char,
    /// `h`: converted to `short`/`unsigned short`.
    Short,
    /// `l`: `long`.
    Long,
    /// `ll`: `long long` (64 bits, as `long` under LP64).
    LongLong,
    /// `z`: `size_t`.
    Size,
    /// `L`, `j`, `t`, `q`: read, and refused by the checker.
    Other(u8),
}

impl Length {
    /// As written in the format.
    pub fn text(self) -> String {
        match self {
            Length::Plain => String::new(),
            Length::Char => "hh".into(),
            Length::Short => "h".into(),
            Length::Long => "l".into(),
            Length::LongLong => "ll".into(),
            Length::Size => "z".into(),
            Length::Other(c) => char::from(c).to_string(),
        }
    }

    /// True for the 64-bit lengths.
    pub fn wide(self) -> bool {
        matches!(self, Length::Long | Length::LongLong | Length::Size)
    }
}

/// One conversion specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// `-`: left-justify.
    pub minus: bool,
    /// `+`: always a sign.
    pub plus: bool,
    /// ` `: a space where a `+` would go.
    pub space: bool,
    /// `#`: the alternative form.
    pub hash: bool,
    /// `0`: pad with zeros.
    pub zero: bool,
    /// The minimum field width.
    pub width: Option<Count>,
    /// The precision.
    pub precision: Option<Count>,
    /// The length modifier.
    pub length: Length,
    /// The conversion character (`d`, `x`, `%`, ...; 0 when the format
    /// ends inside the specification).
    pub conv: u8,
    /// Byte offsets of the `%` and just past the conversion character.
    pub start: usize,
    /// See `start`.
    pub end: usize,
}

/// What a conversion takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `%%`: nothing.
    Percent,
    /// `d`, `i`.
    Signed,
    /// `u`, `o`, `x`, `X`.
    Unsigned,
    /// `c`: an `int`.
    Char,
    /// `s`: a string.
    Str,
    /// `f`, `F`, `e`, `E`, `g`, `G`, `a`, `A`: a `double`.
    Double,
    /// Anything else (`n`, `p`, an unknown letter): refused.
    Invalid,
}

impl Spec {
    /// What the conversion takes.
    pub fn kind(&self) -> Kind {
        match self.conv {
            b'%' => Kind::Percent,
            b'd' | b'i' => Kind::Signed,
            b'u' | b'o' | b'x' | b'X' => Kind::Unsigned,
            b'c' => Kind::Char,
            b's' => Kind::Str,
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => Kind::Double,
            _ => Kind::Invalid,
        }
    }
}

/// A piece of a format: text written as it is, or a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// The bytes `start..end` of the format.
    Text(usize, usize),
    /// A conversion.
    Conv(Spec),
}

/// Splits a format into its pieces.
pub fn parse(fmt: &[u8]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut text = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        if text < i {
            out.push(Piece::Text(text, i));
        }
        let spec = parse_spec(fmt, i);
        i = spec.end;
        text = i;
        out.push(Piece::Conv(spec));
    }
    if text < fmt.len() {
        out.push(Piece::Text(text, fmt.len()));
    }
    out
}

/// Reads a decimal number, saturating.
fn number(fmt: &[u8], i: &mut usize) -> u32 {
    let mut n: u32 = 0;
    while let Some(d) = fmt.get(*i).filter(|b| b.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(u32::from(d - b'0'));
        *i += 1;
    }
    n
}

fn parse_spec(fmt: &[u8], start: usize) -> Spec {
    let mut s = Spec {
        minus: false,
        plus: false,
        space: false,
        hash: false,
        zero: false,
        width: None,
        precision: None,
        length: Length::Plain,
        conv: 0,
        start,
        end: start + 1,
    };
    let mut i = start + 1;
    while let Some(&b) = fmt.get(i) {
        match b {
            b'-' => s.minus = true,
            b'+' => s.plus = true,
            b' ' => s.space = true,
            b'#' => s.hash = true,
            b'0' => s.zero = true,
            _ => break,
        }
        i += 1;
    }
    if fmt.get(i) == Some(&b'*') {
        s.width = Some(Count::Star);
        i += 1;
    } else if fmt.get(i).is_some_and(u8::is_ascii_digit) {
        s.width = Some(Count::Fixed(number(fmt, &mut i)));
    }
    if fmt.get(i) == Some(&b'.') {
        i += 1;
        if fmt.get(i) == Some(&b'*') {
            s.precision = Some(Count::Star);
            i += 1;
        } else {
            s.precision = Some(Count::Fixed(number(fmt, &mut i)));
        }
    }
    s.length = match (fmt.get(i), fmt.get(i + 1)) {
        (Some(b'h'), Some(b'h')) => Length::Char,
        (Some(b'h'), _) => Length::Short,
        (Some(b'l'), Some(b'l')) => Length::LongLong,
        (Some(b'l'), _) => Length::Long,
        (Some(b'z'), _) => Length::Size,
        (Some(&c @ (b'L' | b'j' | b't' | b'q')), _) => Length::Other(c),
        _ => Length::Plain,
    };
    i += s.length.text().len();
    if let Some(&c) = fmt.get(i) {
        s.conv = c;
        i += 1;
    }
    s.end = i;
    s
}

/// An argument as the engines hand it over, already promoted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg<'a> {
    /// An integer, as its 64 bits (sign-extended from a signed type,
    /// zero-extended from an unsigned one).
    Int(i64),
    /// A `double`.
    Double(f64),
    /// A string's bytes.
    Str(&'a [u8]),
}

impl Arg<'_> {
    fn int(&self) -> i64 {
        match *self {
            Arg::Int(v) => v,
            Arg::Double(d) => d as i64,
            Arg::Str(_) => 0,
        }
    }

    fn double(&self) -> f64 {
        match *self {
            Arg::Double(d) => d,
            Arg::Int(v) => v as f64,
            Arg::Str(_) => 0.0,
        }
    }
}

/// Width and precision with the `*` arguments taken: a negative width is
/// `-` and its magnitude, a negative precision none.
struct Resolved {
    minus: bool,
    width: usize,
    precision: Option<usize>,
}

/// Takes the `*` arguments of `spec` from `args` at `*next`.
fn resolve(spec: &Spec, args: &[Arg<'_>], next: &mut usize) -> Resolved {
    let mut take = || {
        let v = args.get(*next).map_or(0, Arg::int) as i32;
        *next += 1;
        v
    };
    let mut minus = spec.minus;
    let width = match spec.width {
        None => 0,
        Some(Count::Fixed(n)) => n as usize,
        Some(Count::Star) => {
            let w = take();
            if w < 0 {
                minus = true;
            }
            w.unsigned_abs() as usize
        }
    };
    let precision = match spec.precision {
        None => None,
        Some(Count::Fixed(n)) => Some(n as usize),
        Some(Count::Star) => usize::try_from(take()).ok(),
    };
    Resolved {
        minus,
        width,
        precision,
    }
}

/// The most bytes `format` can write for these arguments: lets a caller
/// refuse an absurd width or precision before anything is built.
pub fn bound(fmt: &[u8], args: &[Arg<'_>]) -> u64 {
    let mut total: u64 = 0;
    let mut next = 0;
    for piece in parse(fmt) {
        match piece {
            Piece::Text(a, b) => total = total.saturating_add((b - a) as u64),
            Piece::Conv(spec) => {
                let r = resolve(&spec, args, &mut next);
                let arg = args.get(next);
                if spec.kind() != Kind::Percent {
                    next += 1;
                }
                let body = match (spec.kind(), arg) {
                    (Kind::Str, Some(Arg::Str(s))) => s.len() as u64,
                    _ => (r.precision.unwrap_or(0) as u64).saturating_add(340),
                };
                total = total.saturating_add(body.max(r.width as u64));
            }
        }
    }
    total
}

/// Formats `args` by `fmt` into `out`, as glibc's `printf` writes them;
/// returns the number of bytes written.
pub fn format(fmt: &[u8], args: &[Arg<'_>], out: &mut Vec<u8>) -> usize {
    let before = out.len();
    let mut next = 0;
    for piece in parse(fmt) {
        match piece {
            Piece::Text(a, b) => out.extend_from_slice(&fmt[a..b]),
            Piece::Conv(spec) => {
                let r = resolve(&spec, args, &mut next);
                if spec.kind() == Kind::Percent {
                    out.push(b'%');
                    continue;
                }
                let arg = args.get(next).copied().unwrap_or(Arg::Int(0));
                next += 1;
                conversion(&spec, &r, arg, out);
            }
        }
    }
    out.len() - before
}

/// Writes `sign`, `prefix` and `body` padded to the width: with spaces
/// before or after, or with zeros between the prefix and the body.
fn pad(r: &Resolved, zeros: bool, sign_prefix: &[u8], body: &[u8], out: &mut Vec<u8>) {
    let len = sign_prefix.len() + body.len();
    let fill = r.width.saturating_sub(len);
    if r.minus {
        out.extend_from_slice(sign_prefix);
        out.extend_from_slice(body);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if zeros {
        out.extend_from_slice(sign_prefix);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(body);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(sign_prefix);
        out.extend_from_slice(body);
    }
}

fn conversion(spec: &Spec, r: &Resolved, arg: Arg<'_>, out: &mut Vec<u8>) {
    match spec.kind() {
        Kind::Signed | Kind::Unsigned => integer(spec, r, arg.int(), out),
        Kind::Char => {
            let byte = [arg.int() as u8];
            pad(r, false, &[], &byte, out);
        }
        Kind::Str => {
            let s = match arg {
                Arg::Str(s) => s,
                _ => &[],
            };
            let s = match r.precision {
                Some(p) if p < s.len() => &s[..p],
                _ => s,
            };
            pad(r, false, &[], s, out);
        }
        Kind::Double => floating(spec, r, arg.double(), out),
        Kind::Percent | Kind::Invalid => {}
    }
}

/// `%d`, `%i`, `%u`, `%o`, `%x`, `%X`.
fn integer(spec: &Spec, r: &Resolved, bits: i64, out: &mut Vec<u8>) {
    let signed = spec.kind() == Kind::Signed;
    // The argument as the type the length modifier names.
    let (negative, magnitude): (bool, u64) = if signed {
        let v: i64 = match spec.length {
            Length::Char => i64::from(bits as i8),
            Length::Short => i64::from(bits as i16),
            l if l.wide() => bits,
            _ => i64::from(bits as i32),
        };
        (v < 0, v.unsigned_abs())
    } else {
        let v: u64 = match spec.length {
            Length::Char => u64::from(bits as u8),
            Length::Short => u64::from(bits as u16),
            l if l.wide() => bits as u64,
            _ => u64::from(bits as u32),
        };
        (false, v)
    };
    let mut digits = match spec.conv {
        b'o' => format!("{magnitude:o}"),
        b'x' => format!("{magnitude:x}"),
        b'X' => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    }
    .into_bytes();
    if let Some(p) = r.precision {
        if p == 0 && magnitude == 0 {
            digits.clear();
        }
        if digits.len() < p {
            let mut padded = vec![b'0'; p - digits.len()];
            padded.extend_from_slice(&digits);
            digits = padded;
        }
    }
    let mut prefix: Vec<u8> = Vec::new();
    if signed {
        if negative {
            prefix.push(b'-');
        } else if spec.plus {
            prefix.push(b'+');
        } else if spec.space {
            prefix.push(b' ');
        }
    }
    if spec.hash {
        match spec.conv {
            b'o' if digits.first() != Some(&b'0') => digits.insert(0, b'0'),
            b'x' if magnitude != 0 => prefix.extend_from_slice(b"0x"),
            b'X' if magnitude != 0 => prefix.extend_from_slice(b"0X"),
            _ => {}
        }
    }
    let zeros = spec.zero && r.precision.is_none();
    pad(r, zeros, &prefix, &digits, out);
}

/// `%f`, `%e`, `%g`, `%a` and their capitals.
fn floating(spec: &Spec, r: &Resolved, v: f64, out: &mut Vec<u8>) {
    let upper = spec.conv.is_ascii_uppercase();
    let mut sign: Vec<u8> = Vec::new();
    if v.is_sign_negative() {
        sign.push(b'-');
    } else if spec.plus {
        sign.push(b'+');
    } else if spec.space {
        sign.push(b' ');
    }
    let a = v.abs();
    if !a.is_finite() {
        let name = match (a.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        // glibc pads infinities and NaNs with spaces, whatever the flags.
        return pad(r, false, &sign, name.as_bytes(), out);
    }
    let body = match spec.conv.to_ascii_lowercase() {
        b'f' => {
            let p = r.precision.unwrap_or(6);
            let mut t = format_float(a, FloatField::Fixed, p);
            if spec.hash && p == 0 {
                t.push('.');
            }
            t
        }
        b'e' => {
            let p = r.precision.unwrap_or(6);
            let e = Exponential::new(a, p);
            let point = if spec.hash && p == 0 { "." } else { "" };
            format!("{}{point}{}", e.mantissa, exponent_suffix(e.exponent))
        }
        b'g' => general(a, r.precision.unwrap_or(6), spec.hash),
        _ => {
            sign.extend_from_slice(if upper { b"0X" } else { b"0x" });
            hex_float(a, r.precision, spec.hash)
        }
    };
    let body = if upper {
        body.to_ascii_uppercase()
    } else {
        body
    };
    pad(r, spec.zero, &sign, body.as_bytes(), out);
}

/// `%g` of a finite non-negative value; `alt` (`#`) keeps trailing zeros
/// and the point.
fn general(a: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    let e = Exponential::new(a, p - 1);
    let x = e.exponent;
    let text = if x < -4 || i64::from(x) >= p as i64 {
        let mut m = e.mantissa;
        if alt && !m.contains('.') {
            m.push('.');
        }
        let m = if alt {
            m
        } else {
            strip_fraction_zeros(&m).to_owned()
        };
        return format!("{m}{}", exponent_suffix(x));
    } else {
        let frac = (p as i64 - 1 - i64::from(x)) as usize;
        format_float(a, FloatField::Fixed, frac)
    };
    if alt {
        if text.contains('.') { text } else { text + "." }
    } else {
        strip_fraction_zeros(&text).to_owned()
    }
}

/// `%a` of a finite non-negative value, without the `0x`: glibc's form,
/// `1.8p+1` for 3; a subnormal keeps a leading 0 and the exponent -1022;
/// rounding to a precision may carry into the leading digit (`2p+0`).
fn hex_float(a: f64, precision: Option<usize>, alt: bool) -> String {
    let bits = a.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let mut frac = bits & ((1u64 << 52) - 1);
    let (mut lead, exponent) = match (biased, frac) {
        (0, 0) => (0u64, 0i64),
        (0, _) => (0, -1022),
        _ => (1, biased - 1023),
    };
    let mut digits = 13usize;
    if let Some(p) = precision
        && p < 13
    {
        // Round the 52 fraction bits to `p` hex digits, ties to even.
        let drop = (13 - p) * 4;
        let kept = frac >> drop;
        let rest = frac & ((1u64 << drop) - 1);
        let half = 1u64 << (drop - 1);
        let last = if p == 0 { lead } else { kept };
        let up = rest > half || (rest == half && last & 1 == 1);
        let mut kept = kept + u64::from(up);
        if p == 0 {
            lead += kept;
            kept = 0;
        } else if kept >> (p * 4) != 0 {
            lead += 1;
            kept &= (1u64 << (p * 4)) - 1;
        }
        frac = kept;
        digits = p;
    }
    let mut fraction = if digits == 0 {
        String::new()
    } else {
        format!("{frac:0digits$x}")
    };
    match precision {
        None => {
            while fraction.ends_with('0') {
                fraction.pop();
            }
        }
        Some(p) if p > 13 => fraction.extend(std::iter::repeat_n('0', p - 13)),
        Some(_) => {}
    }
    let point = if !fraction.is_empty() || alt { "." } else { "" };
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{lead}{point}{fraction}p{sign}{}", exponent.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[Arg<'_>]) -> String {
        let mut out = Vec::new();
        format(fmt.as_bytes(), args, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn integers() {
        assert_eq!(
            f(
                "%d|%5d|%-5d|%05d",
                &[Arg::Int(-3), Arg::Int(42), Arg::Int(7), Arg::Int(-12)]
            ),
            "-3|   42|7    |-0012"
        );
        assert_eq!(
            f(
                "%+d % d %.3d %.0d|",
                &[Arg::Int(5), Arg::Int(5), Arg::Int(7), Arg::Int(0)]
            ),
            "+5  5 007 |"
        );
        assert_eq!(
            f(
                "%x %X %#x %#o %o %#x",
                &[
                    Arg::Int(255),
                    Arg::Int(255),
                    Arg::Int(255),
                    Arg::Int(8),
                    Arg::Int(8),
                    Arg::Int(0)
                ]
            ),
            "ff FF 0xff 010 10 0"
        );
        assert_eq!(
            f(
                "%u %hhd %hu %lu",
                &[Arg::Int(-1), Arg::Int(300), Arg::Int(-1), Arg::Int(-1)]
            ),
            "4294967295 44 65535 18446744073709551615"
        );
        assert_eq!(
            f(
                "%*d|%-*d|%.*d",
                &[
                    Arg::Int(4),
                    Arg::Int(1),
                    Arg::Int(-3),
                    Arg::Int(2),
                    Arg::Int(3),
                    Arg::Int(9)
                ]
            ),
            "   1|2  |009"
        );
    }

    #[test]
    fn floats() {
        assert_eq!(
            f(
                "%f %.2f %e %g %g",
                &[
                    Arg::Double(3.5),
                    Arg::Double(2.675),
                    Arg::Double(12345.678),
                    Arg::Double(0.0001),
                    Arg::Double(1e20)
                ]
            ),
            "3.500000 2.67 1.234568e+04 0.0001 1e+20"
        );
        assert_eq!(
            f(
                "%a %a %.0a %A",
                &[
                    Arg::Double(3.0),
                    Arg::Double(1.0),
                    Arg::Double(1.5),
                    Arg::Double(0.5)
                ]
            ),
            "0x1.8p+1 0x1p+0 0x2p+0 0X1P-1"
        );
        assert_eq!(
            f(
                "%08.2f|%-8.1e|%+.0f|%#.0f|%#g",
                &[
                    Arg::Double(-1.5),
                    Arg::Double(100.0),
                    Arg::Double(2.5),
                    Arg::Double(3.0),
                    Arg::Double(1.0)
                ]
            ),
            "-0001.50|1.0e+02 |+2|3.|1.00000"
        );
        assert_eq!(
            f(
                "%5f|%05F|%G",
                &[
                    Arg::Double(f64::INFINITY),
                    Arg::Double(f64::NAN),
                    Arg::Double(1e-10)
                ]
            ),
            "  inf|  NAN|1E-10"
        );
    }

    #[test]
    fn strings_and_chars() {
        assert_eq!(
            f(
                "%s|%5s|%-5s|%.2s|%c|%3c|%%",
                &[
                    Arg::Str(b"ab"),
                    Arg::Str(b"ab"),
                    Arg::Str(b"ab"),
                    Arg::Str(b"abc"),
                    Arg::Int(65),
                    Arg::Int(66)
                ]
            ),
            "ab|   ab|ab   |ab|A|  B|%"
        );
    }

    #[test]
    fn bound_covers_width() {
        assert!(bound(b"%1000000d", &[Arg::Int(1)]) >= 1_000_000);
        assert!(bound(b"%.500f", &[Arg::Double(1.0)]) >= 500);
    }
}
