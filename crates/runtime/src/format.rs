//! `std::cout` formatting, emulated byte for byte as libstdc++ does it.
//!
//! A program's output must be identical to the same program built with
//! g++/libstdc++, so this module reproduces what `std::ostream`'s `operator<<`
//! and the `<iomanip>` manipulators do to the stream state and to the text. It
//! holds the state and produces text; writing and flushing stay with the
//! caller, so both engines share one implementation and cannot drift apart.
//!
//! libstdc++ formats floating point by handing `%.*g`, `%.*f` or `%.*e` to
//! glibc's `snprintf`. Rust's `format!` has no `%g` and writes exponents
//! differently, so those conversions are rebuilt here on top of Rust's
//! correctly rounded `{:.*e}` and `{:.*}`, which agree with glibc digit for
//! digit (both are exact and round ties to even).
//!
//! Output is bytes, as a C++ stream's is: a `char` value or a `setfill`
//! character is written as its one byte whatever its value (a byte of 128 or
//! more is not UTF-8 on its own), and string literals as their UTF-8 bytes.
//! Widths count bytes, as g++'s do.

use tessera_ir::{Manipulator, fmtflags};

/// A scalar value with its C++ type, as written to a stream.
///
/// The type matters as much as the value: `int` and `long` differ in how
/// `hex` shows negatives, and `char` prints as a character, not a number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    /// `bool`.
    Bool(bool),
    /// `char` (signed on the x86-64 targets g++ is compared against).
    Char(i8),
    /// `short`.
    Short(i16),
    /// `unsigned short`.
    UShort(u16),
    /// `wchar_t`, written to a wide stream: the character (as UTF-8, as
    /// wide text is written).
    WChar(i32),
    /// `int`.
    Int(i32),
    /// `unsigned int`.
    UInt(u32),
    /// `long` (64 bits under the LP64 model g++ uses on Linux).
    Long(i64),
    /// `unsigned long`.
    ULong(u64),
    /// `float`; C++ promotes it to `double` before formatting.
    Float(f32),
    /// `double`.
    Double(f64),
}

/// Which of `std::ios_base::floatfield`'s settings is in force.
///
/// Both `fixed` and `scientific` at once is `hexfloat`, which
/// `StreamFormat::float_field` answers beside this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatField {
    /// Neither flag: `%g`.
    General,
    /// `std::fixed`: `%f`.
    Fixed,
    /// `std::scientific`: `%e`.
    Scientific,
}

/// `std::ios_base::basefield`: the base integers are written (and read) in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    Dec,
    Hex,
    Oct,
}

/// `std::ios_base::adjustfield`: where the padding of a field goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Adjust {
    /// `std::right`, and the default (which pads on the left alike).
    Right,
    /// `std::left`.
    Left,
    /// `std::internal`: after a sign or a `0x`, before the digits.
    Internal,
}

/// The formatting state of one stream (what `std::cout`'s flags, width,
/// precision and fill hold).
///
/// The flags are kept as the `fmtflags` word libstdc++ keeps, with its bit
/// values, because a program can read and write the word whole
/// (`flags()`, `setf`) and can set combinations no manipulator makes
/// (`left | right`, which pads as `right` does); each formatting decision
/// reads the word as libstdc++'s `num_put` and `__pad` read it.
#[derive(Clone, Debug)]
pub struct StreamFormat {
    /// As set by `setprecision`; a negative value is kept, because libstdc++
    /// only replaces it by 6 when a floating-point value is formatted.
    precision: i64,
    /// Minimum field width of the next formatted output only; zero or
    /// negative means no padding.
    width: i64,
    /// The padding character, already mapped from the C++ byte.
    fill: u8,
    /// `fmtflags`, libstdc++'s bits (`tessera_ir::fmtflags`).
    flags: i32,
}

impl Default for StreamFormat {
    /// The state of a fresh `std::cout`: precision 6, width 0, fill `' '`,
    /// the flags `skipws | dec` (so right-aligned, decimal, default float
    /// notation, `noboolalpha`).
    fn default() -> Self {
        StreamFormat {
            precision: 6,
            width: 0,
            fill: b' ',
            flags: fmtflags::SKIPWS | fmtflags::DEC,
        }
    }
}

impl StreamFormat {
    /// The state of a fresh `std::cerr`: as `std::cout`'s, with `unitbuf`.
    pub fn unbuffered() -> Self {
        StreamFormat {
            flags: fmtflags::SKIPWS | fmtflags::DEC | fmtflags::UNITBUF,
            ..StreamFormat::default()
        }
    }

    /// Whether flag `bit` is set.
    fn has(&self, bit: i32) -> bool {
        self.flags & bit != 0
    }

    /// The base numbers are written in: libstdc++ writes octal or hex only
    /// when `basefield` holds exactly that flag, decimal otherwise.
    fn base(&self) -> Base {
        match self.flags & fmtflags::BASEFIELD {
            fmtflags::OCT => Base::Oct,
            fmtflags::HEX => Base::Hex,
            _ => Base::Dec,
        }
    }

    /// Where padding goes: `left` or `internal` only when `adjustfield`
    /// holds exactly that flag.
    fn adjust(&self) -> Adjust {
        match self.flags & fmtflags::ADJUSTFIELD {
            fmtflags::LEFT => Adjust::Left,
            fmtflags::INTERNAL => Adjust::Internal,
            _ => Adjust::Right,
        }
    }

    /// The floating-point notation, and whether it is `hexfloat` (both
    /// bits of `floatfield`).
    fn float_field(&self) -> (FloatField, bool) {
        match self.flags & fmtflags::FLOATFIELD {
            fmtflags::FIXED => (FloatField::Fixed, false),
            fmtflags::SCIENTIFIC => (FloatField::Scientific, false),
            fmtflags::FLOATFIELD => (FloatField::General, true),
            _ => (FloatField::General, false),
        }
    }

    /// The base integers are read in: 8, 10 or 16 when `basefield` holds
    /// exactly one flag (decimal for two), and 0 when it holds none, which
    /// `num_get` then reads as C's `strtol` does with base 0 (`0x1A`, `017`).
    pub fn radix(&self) -> u32 {
        match self.flags & fmtflags::BASEFIELD {
            0 => 0,
            fmtflags::OCT => 8,
            fmtflags::HEX => 16,
            _ => 10,
        }
    }

    /// The pending field width, which reading a string uses up (and resets
    /// to 0, as `operator>>` into a string does).
    pub fn take_width(&mut self) -> i64 {
        std::mem::take(&mut self.width)
    }

    /// `precision()`.
    pub fn precision(&self) -> i64 {
        self.precision
    }

    /// `precision(n)`: answers the precision before.
    pub fn set_precision(&mut self, n: i64) -> i64 {
        std::mem::replace(&mut self.precision, n)
    }

    /// `width()`.
    pub fn width(&self) -> i64 {
        self.width
    }

    /// `width(n)`: answers the width before.
    pub fn set_width(&mut self, n: i64) -> i64 {
        std::mem::replace(&mut self.width, n)
    }

    /// `fill()`: the padding character's byte.
    pub fn fill(&self) -> u8 {
        self.fill
    }

    /// `fill(c)`: answers the character before.
    pub fn set_fill(&mut self, c: u8) -> u8 {
        std::mem::replace(&mut self.fill, c)
    }

    /// `flags()`.
    pub fn flags(&self) -> i32 {
        self.flags
    }

    /// `flags(f)`: replaces every flag; answers the flags before.
    pub fn set_flags(&mut self, f: i32) -> i32 {
        std::mem::replace(&mut self.flags, f)
    }

    /// `setf(f)` (and `std::setiosflags(f)`): sets the bits of `f`.
    pub fn setf(&mut self, f: i32) -> i32 {
        let old = self.flags;
        self.flags |= f;
        old
    }

    /// `setf(f, mask)`: clears `mask`, then sets the bits of `f` in it.
    pub fn setf_masked(&mut self, f: i32, mask: i32) -> i32 {
        let old = self.flags;
        self.flags = (old & !mask) | (f & mask);
        old
    }

    /// `unsetf(mask)` (and `std::resetiosflags(mask)`).
    pub fn unsetf(&mut self, mask: i32) {
        self.flags &= !mask;
    }

    /// Applies a manipulator; `arg` is the int argument of
    /// `setw`/`setprecision`/`setfill`/`setiosflags`/`resetiosflags`
    /// (ignored by the others). `Endl` appends `"\n"` to `out` (the caller
    /// flushes).
    ///
    /// `endl` is unformatted output (`put` then `flush`), so unlike every
    /// value it leaves a pending `setw` in place for the next value.
    /// `setfill`'s argument is a C++ `char`, so only its low byte counts.
    /// Each flag manipulator is the `setf` libstdc++ defines it as.
    pub fn apply(&mut self, m: Manipulator, arg: i32, out: &mut Vec<u8>) {
        use fmtflags::*;
        match m {
            Manipulator::Endl => out.push(b'\n'),
            Manipulator::Setw => self.width = i64::from(arg),
            Manipulator::Setprecision => self.precision = i64::from(arg),
            Manipulator::Fixed => {
                self.setf_masked(FIXED, FLOATFIELD);
            }
            Manipulator::Scientific => {
                self.setf_masked(SCIENTIFIC, FLOATFIELD);
            }
            Manipulator::DefaultFloat => self.unsetf(FLOATFIELD),
            Manipulator::Hexfloat => {
                self.setf_masked(FLOATFIELD, FLOATFIELD);
            }
            Manipulator::Left => {
                self.setf_masked(LEFT, ADJUSTFIELD);
            }
            Manipulator::Right => {
                self.setf_masked(RIGHT, ADJUSTFIELD);
            }
            Manipulator::Internal => {
                self.setf_masked(INTERNAL, ADJUSTFIELD);
            }
            Manipulator::Hex => {
                self.setf_masked(HEX, BASEFIELD);
            }
            Manipulator::Dec => {
                self.setf_masked(DEC, BASEFIELD);
            }
            Manipulator::Oct => {
                self.setf_masked(OCT, BASEFIELD);
            }
            Manipulator::Boolalpha => {
                self.setf(BOOLALPHA);
            }
            Manipulator::Noboolalpha => self.unsetf(BOOLALPHA),
            Manipulator::Showpos => {
                self.setf(SHOWPOS);
            }
            Manipulator::Noshowpos => self.unsetf(SHOWPOS),
            Manipulator::Showpoint => {
                self.setf(SHOWPOINT);
            }
            Manipulator::Noshowpoint => self.unsetf(SHOWPOINT),
            Manipulator::Uppercase => {
                self.setf(UPPERCASE);
            }
            Manipulator::Nouppercase => self.unsetf(UPPERCASE),
            Manipulator::Showbase => {
                self.setf(SHOWBASE);
            }
            Manipulator::Noshowbase => self.unsetf(SHOWBASE),
            Manipulator::Setiosflags => {
                self.setf(arg);
            }
            Manipulator::Resetiosflags => self.unsetf(arg),
            // Unformatted output: no padding, the width stays pending.
            Manipulator::Ends => out.push(0),
            // The byte of the `char` argument.
            Manipulator::Put => out.push(arg as u8),
            Manipulator::Flush => {}
            // Truncation to the low byte is the point: this is the
            // int-to-char conversion at the call of `setfill`.
            Manipulator::Setfill => self.fill = arg as u8,
        }
    }

    /// The most bytes the next formatted output can take: the pending
    /// width, and for a floating-point value the digits the precision asks
    /// for. Lets a caller refuse an absurd `setw` or `setprecision` before
    /// the text is built.
    pub fn output_bound(&self, floating: bool) -> usize {
        let width = usize::try_from(self.width).unwrap_or(0);
        let digits = if floating {
            usize::try_from(self.precision)
                .unwrap_or(6)
                .saturating_add(330)
        } else {
            64
        };
        width.max(digits)
    }

    /// Writes a scalar as `std::cout << v` would.
    pub fn write_scalar(&mut self, v: ScalarValue, out: &mut Vec<u8>) {
        let body = match v {
            ScalarValue::Bool(b) => match (self.has(fmtflags::BOOLALPHA), b) {
                (true, true) => "true".to_owned(),
                (true, false) => "false".to_owned(),
                // Without boolalpha libstdc++ prints the bool as a `long`
                // (so `showpos` gives `+1`); 0 and 1 look alike in any base.
                (false, b) => self.integer(i64::from(b), u64::from(b), true),
            },
            ScalarValue::Char(c) => {
                return self.pad_and_write(&[c as u8], out);
            }
            ScalarValue::WChar(c) => {
                let c = u32::try_from(c)
                    .ok()
                    .and_then(char::from_u32)
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                let mut buf = [0u8; 4];
                return self.pad_and_write(c.encode_utf8(&mut buf).as_bytes(), out);
            }
            // In hex, libstdc++ converts signed values to their unsigned type
            // of the same width first, so negatives show all their bits.
            ScalarValue::Short(i) => self.integer(i64::from(i), u64::from(i as u16), true),
            ScalarValue::UShort(u) => self.integer(i64::from(u), u64::from(u), false),
            ScalarValue::Int(i) => self.integer(i64::from(i), u64::from(i as u32), true),
            ScalarValue::UInt(u) => self.integer(i64::from(u), u64::from(u), false),
            ScalarValue::Long(l) => self.integer(l, l as u64, true),
            ScalarValue::ULong(u) => self.integer(u as i64, u, false),
            ScalarValue::Float(f) => self.float(f64::from(f)),
            ScalarValue::Double(d) => self.float(d),
        };
        self.pad(body.as_bytes(), true, out);
    }

    /// Writes a string literal's text as `std::cout << "..."` would
    /// (width/fill/adjust apply).
    ///
    /// The literal's bytes are its UTF-8 encoding, as in g++'s default
    /// execution character set, so the width counts UTF-8 bytes.
    pub fn write_str(&mut self, s: &str, out: &mut Vec<u8>) {
        self.pad_and_write(s.as_bytes(), out);
    }

    /// Writes a string literal's bytes as `<<` does (padded to the width,
    /// which counts bytes, as `char`s).
    pub fn write_bytes(&mut self, s: &[u8], out: &mut Vec<u8>) {
        self.pad_and_write(s, out);
    }

    /// Text of an integer as libstdc++'s `num_put` writes it: in decimal
    /// `signed` (or `bits` for an unsigned type) with a `-`, or a `+` under
    /// `showpos` for a type that is `signed`; in hex or octal `bits` (the
    /// value as its unsigned type) with `0x`/`0` under `showbase` unless it
    /// is zero, and capitals under `uppercase`.
    fn integer(&self, value: i64, bits: u64, signed: bool) -> String {
        let showbase = self.has(fmtflags::SHOWBASE);
        let uppercase = self.has(fmtflags::UPPERCASE);
        match self.base() {
            Base::Dec if signed => {
                if value >= 0 && self.has(fmtflags::SHOWPOS) {
                    format!("+{value}")
                } else {
                    value.to_string()
                }
            }
            Base::Dec => bits.to_string(),
            Base::Hex => {
                let digits = if uppercase {
                    format!("{bits:X}")
                } else {
                    format!("{bits:x}")
                };
                match (showbase && bits != 0, uppercase) {
                    (true, false) => format!("0x{digits}"),
                    (true, true) => format!("0X{digits}"),
                    (false, _) => digits,
                }
            }
            Base::Oct => {
                if showbase && bits != 0 {
                    format!("0{bits:o}")
                } else {
                    format!("{bits:o}")
                }
            }
        }
    }

    /// Text of a floating-point value under the current notation and
    /// precision.
    fn float(&self, v: f64) -> String {
        // libstdc++ itself replaces a negative precision by 6 before calling
        // snprintf, so a negative `setprecision` means 6 in every notation.
        let precision = usize::try_from(self.precision).unwrap_or(6);
        let (field, hexfloat) = self.float_field();
        let (showpos, showpoint, uppercase) = (
            self.has(fmtflags::SHOWPOS),
            self.has(fmtflags::SHOWPOINT),
            self.has(fmtflags::UPPERCASE),
        );
        if !(showpos || showpoint || uppercase || hexfloat) {
            return format_float(v, field, precision);
        }
        // libstdc++ builds a `printf` format from the flags and hands it to
        // snprintf: `+` for showpos, `#` for showpoint, a precision except
        // for hexfloat, and `f`, `e`/`E`, `a`/`A` or `g`/`G` (`fixed` has
        // no capital form there, so it writes `inf` even under uppercase).
        let mut spec = String::from("%");
        if showpos {
            spec.push('+');
        }
        if showpoint {
            spec.push('#');
        }
        if !hexfloat {
            spec.push_str(".*");
        }
        spec.push(match (hexfloat, field, uppercase) {
            (true, _, false) => 'a',
            (true, _, true) => 'A',
            (false, FloatField::Fixed, _) => 'f',
            (false, FloatField::Scientific, false) => 'e',
            (false, FloatField::Scientific, true) => 'E',
            (false, FloatField::General, false) => 'g',
            (false, FloatField::General, true) => 'G',
        });
        let precision = i64::try_from(precision).unwrap_or(i64::MAX);
        let args = if hexfloat {
            vec![crate::printf::Arg::Double(v)]
        } else {
            vec![
                crate::printf::Arg::Int(precision),
                crate::printf::Arg::Double(v),
            ]
        };
        let mut out = Vec::new();
        crate::printf::format(spec.as_bytes(), &args, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Pads `body` to the pending width and consumes the width, as every
    /// formatted output does; `internal` padding goes after the sign or
    /// base of a number, and is right padding for text.
    fn pad_and_write(&mut self, body: &[u8], out: &mut Vec<u8>) {
        self.pad(body, false, out);
    }

    /// [`StreamFormat::pad_and_write`] for a number (`numeric`) or text.
    fn pad(&mut self, body: &[u8], numeric: bool, out: &mut Vec<u8>) {
        let width = usize::try_from(self.width).unwrap_or(0);
        self.width = 0;
        let padding = width.saturating_sub(body.len());
        match self.adjust() {
            Adjust::Left => {
                out.extend_from_slice(body);
                out.extend(std::iter::repeat_n(self.fill, padding));
            }
            Adjust::Right => {
                out.extend(std::iter::repeat_n(self.fill, padding));
                out.extend_from_slice(body);
            }
            Adjust::Internal if !numeric => {
                out.extend(std::iter::repeat_n(self.fill, padding));
                out.extend_from_slice(body);
            }
            Adjust::Internal => {
                // After a sign, or else after a `0x`/`0X`; then the rest.
                let split = match body {
                    [b'-' | b'+', ..] => 1,
                    [b'0', b'x' | b'X', ..] => 2,
                    _ => 0,
                };
                out.extend_from_slice(&body[..split]);
                out.extend(std::iter::repeat_n(self.fill, padding));
                out.extend_from_slice(&body[split..]);
            }
        }
    }
}

/// Digits after the point past which every double's exact decimal expansion
/// has only zeros (the smallest subnormal, 2^-1074, has 1074), and below
/// Rust's limit on a formatting precision.
const EXACT_DIGITS: usize = 1100;

/// Formats `v` as glibc's `printf` does with `%.{precision}g` (`General`),
/// `%.{precision}f` (`Fixed`) or `%.{precision}e` (`Scientific`).
pub(crate) fn format_float(v: f64, field: FloatField, precision: usize) -> String {
    if !v.is_finite() {
        // glibc shows the sign bit of a NaN too, so `-NAN` prints "-nan".
        let sign = if v.is_sign_negative() { "-" } else { "" };
        let name = if v.is_nan() { "nan" } else { "inf" };
        return format!("{sign}{name}");
    }
    match field {
        // Rust's fixed notation is exact, keeps the sign of negative zero and
        // of values that round to zero, and rounds ties to even: glibc's %f.
        FloatField::Fixed => {
            let exact = precision.min(EXACT_DIGITS);
            let mut text = format!("{v:.exact$}");
            text.extend(std::iter::repeat_n('0', precision - exact));
            text
        }
        FloatField::Scientific => {
            let e = Exponential::new(v, precision);
            format!("{}{}", e.mantissa, exponent_suffix(e.exponent))
        }
        FloatField::General => format_general(v, precision),
    }
}

/// `%.{precision}g`, following C's definition: with `P` the precision (0
/// counts as 1) and `X` the exponent `%.{P-1}e` would print, use `%e` with
/// precision `P-1` when `X < -4` or `X >= P`, otherwise `%f` with precision
/// `P-1-X`; then drop trailing fractional zeros and a bare decimal point.
fn format_general(v: f64, precision: usize) -> String {
    // Beyond the exact digits `%g` only adds zeros, which it then strips.
    let significant = precision.clamp(1, EXACT_DIGITS);
    let e = Exponential::new(v, significant - 1);
    let too_small = e.exponent < -4;
    let too_large = usize::try_from(e.exponent).is_ok_and(|x| x >= significant);
    if too_small || too_large {
        let mantissa = strip_fraction_zeros(&e.mantissa);
        return format!("{mantissa}{}", exponent_suffix(e.exponent));
    }
    // `%f` at precision P-1-X rounds at the same decimal place as the `%e`
    // above whenever X is the exponent after rounding, so its digits are
    // exactly the `%e` digits with the point moved; reuse them rather than
    // rounding twice.
    let (sign, unsigned) = match e.mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", e.mantissa.as_str()),
    };
    let digits: String = unsigned.chars().filter(char::is_ascii_digit).collect();
    let fixed = match usize::try_from(e.exponent) {
        Ok(x) => {
            // X < P, so the integer part never needs more digits than exist.
            let (int_part, frac_part) = digits.split_at(x + 1);
            format!("{sign}{int_part}.{frac_part}")
        }
        Err(_) => {
            // -4 <= X <= -1: leading zeros after the point, then the digits.
            let zeros = "0".repeat(e.exponent.unsigned_abs() as usize - 1);
            format!("{sign}0.{zeros}{digits}")
        }
    };
    strip_fraction_zeros(&fixed).to_owned()
}

/// A finite value in `%e` form, split where the exponent goes.
pub(crate) struct Exponential {
    /// Sign, leading digit, and the point and fraction digits if any.
    pub(crate) mantissa: String,
    /// The decimal exponent after rounding.
    pub(crate) exponent: i32,
}

impl Exponential {
    /// Rounds `v` (finite) to `precision` digits after the point, as `%e`
    /// does: correctly, ties to even, keeping the sign of negative zero.
    pub(crate) fn new(v: f64, precision: usize) -> Self {
        // Rust writes e.g. "-1.50e-7" and "0e0"; only the exponent's
        // spelling differs from C.
        let exact = precision.min(EXACT_DIGITS);
        let text = format!("{v:.exact$e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
        let mut mantissa = mantissa.to_owned();
        mantissa.extend(std::iter::repeat_n('0', precision - exact));
        Exponential {
            mantissa,
            exponent: parse_exponent(exponent),
        }
    }
}

/// Parses the exponent Rust's `{:e}` writes: an optional `-`, then digits.
///
/// Written out by hand so there is no failure case to handle: the input
/// always comes from `format!`.
fn parse_exponent(text: &str) -> i32 {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = digits
        .bytes()
        .filter(u8::is_ascii_digit)
        .fold(0i32, |acc, d| acc * 10 + i32::from(d - b'0'));
    if negative { -magnitude } else { magnitude }
}

/// C's exponent suffix: `e`, a sign always, and at least two digits.
pub(crate) fn exponent_suffix(exponent: i32) -> String {
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("e{sign}{:02}", exponent.unsigned_abs())
}

/// Drops trailing zeros after a decimal point, then the point itself if
/// nothing follows it; text without a point is returned unchanged (its zeros
/// are significant).
pub(crate) fn strip_fraction_zeros(text: &str) -> &str {
    if !text.contains('.') {
        return text;
    }
    text.trim_end_matches('0').trim_end_matches('.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use Manipulator::*;
    use ScalarValue::*;

    /// One step of a test program: a manipulator with its argument, a
    /// scalar, or a string literal.
    enum Step {
        M(Manipulator, i32),
        V(ScalarValue),
        S(&'static str),
    }
    use Step::{M, S, V};

    /// Runs the steps on a fresh stream, as a C++ program's `std::cout`
    /// statements would.
    fn run(steps: &[Step]) -> String {
        let mut format = StreamFormat::default();
        let mut out = Vec::new();
        for step in steps {
            match *step {
                M(m, arg) => format.apply(m, arg, &mut out),
                V(v) => format.write_scalar(v, &mut out),
                S(s) => format.write_str(s, &mut out),
            }
        }
        // Bytes shown one char each (Latin-1), so that the table can spell a
        // non-ASCII `char` byte as a Rust character.
        out.iter().map(|&b| char::from(b)).collect()
    }

    /// Expected output, produced by g++ 12.2 with libstdc++ (Debian 12) and
    /// glibc: each row was written by a C++ program that performed the same
    /// steps on a fresh `std::ostringstream` (whose initial state equals a
    /// fresh `std::cout`'s) and printed the result. Non-ASCII bytes are shown
    /// as the Latin-1 character of the same number (see `run`).
    // Some values are deliberately close to pi and e.
    #[allow(clippy::approx_constant)]
    const CASES: &[(&[Step], &str)] = &[
        (&[V(Bool(true))], "1"),
        (&[V(Bool(false))], "0"),
        (
            &[M(Boolalpha, 0), V(Bool(true)), S(" "), V(Bool(false))],
            "true false",
        ),
        (&[M(Setw, 6), M(Boolalpha, 0), V(Bool(true))], "  true"),
        (
            &[
                M(Left, 0),
                M(Setw, 7),
                M(Boolalpha, 0),
                V(Bool(false)),
                S("|"),
            ],
            "false  |",
        ),
        (&[M(Hex, 0), V(Bool(true))], "1"),
        (&[M(Setw, 3), V(Bool(false))], "  0"),
        (&[V(Char(65))], "A"),
        (&[M(Setw, 3), V(Char(120))], "  x"),
        (
            &[M(Left, 0), M(Setfill, 42), M(Setw, 4), V(Char(121)), S("|")],
            "y***|",
        ),
        (&[V(Char(-23))], "\u{e9}"),
        (&[V(Char(0))], "\u{0}"),
        (&[M(Hex, 0), V(Char(97))], "a"),
        (&[M(Setw, 2), V(Char(10))], " \n"),
        (&[V(Int(0))], "0"),
        (&[V(Int(42))], "42"),
        (&[V(Int(-42))], "-42"),
        (&[V(Int(-2147483648))], "-2147483648"),
        (&[V(Int(2147483647))], "2147483647"),
        (&[M(Hex, 0), V(Int(-1))], "ffffffff"),
        (
            &[M(Hex, 0), V(Int(255)), S(" "), M(Dec, 0), V(Int(255))],
            "ff 255",
        ),
        (&[M(Hex, 0), V(Int(-2147483648))], "80000000"),
        (&[M(Hex, 0), M(Setw, 6), V(Int(3054))], "   bee"),
        (&[M(Setw, 6), V(Int(-42))], "   -42"),
        (
            &[M(Left, 0), M(Setfill, 48), M(Setw, 6), V(Int(-42))],
            "-42000",
        ),
        (&[M(Setfill, 48), M(Setw, 5), V(Int(-42))], "00-42"),
        (&[M(Left, 0), M(Right, 0), M(Setw, 4), V(Int(7))], "   7"),
        (&[M(Setw, -3), V(Int(5))], "5"),
        (&[M(Setw, 2), V(Int(12345))], "12345"),
        (&[M(Setw, 0), V(Int(1))], "1"),
        (&[V(UInt(0))], "0"),
        (&[V(UInt(4294967295))], "4294967295"),
        (&[M(Hex, 0), V(UInt(4294967295))], "ffffffff"),
        (&[M(Hex, 0), V(UInt(48879))], "beef"),
        (&[V(Long(-9223372036854775808))], "-9223372036854775808"),
        (&[V(Long(9223372036854775807))], "9223372036854775807"),
        (&[M(Hex, 0), V(Long(-1))], "ffffffffffffffff"),
        (
            &[M(Hex, 0), V(Long(-9223372036854775808))],
            "8000000000000000",
        ),
        (
            &[M(Setw, 22), V(Long(-1234567890123))],
            "        -1234567890123",
        ),
        (&[V(ULong(18446744073709551615))], "18446744073709551615"),
        (
            &[M(Hex, 0), V(ULong(18446744073709551615))],
            "ffffffffffffffff",
        ),
        (&[M(Hex, 0), V(ULong(244837814094590))], "deadbeefcafe"),
        (&[V(Float(0.1))], "0.1"),
        (&[M(Setprecision, 10), V(Float(3.1415927))], "3.141592741"),
        (&[V(Float(3.1415927))], "3.14159"),
        (&[V(Float(1e+10))], "1e+10"),
        (&[V(Float(3.4028235e+38))], "3.40282e+38"),
        (&[V(Float(1e-45))], "1.4013e-45"),
        (&[M(Fixed, 0), V(Float(0.33333334))], "0.333333"),
        (&[M(Scientific, 0), V(Float(0.1))], "1.000000e-01"),
        (&[M(Setprecision, 17), V(Float(0.1))], "0.10000000149011612"),
        (&[V(Float(-f32::NAN))], "-nan"),
        (&[V(Float(f32::NEG_INFINITY))], "-inf"),
        (&[V(Float(16777216.0))], "1.67772e+07"),
        (&[M(Fixed, 0), M(Setprecision, 2), V(Float(2.675))], "2.67"),
        (&[V(Double(0.0))], "0"),
        (&[V(Double(-0.0))], "-0"),
        (&[V(Double(1.0))], "1"),
        (&[V(Double(-1.5))], "-1.5"),
        (&[V(Double(1e-05))], "1e-05"),
        (&[V(Double(123456.0))], "123456"),
        (&[V(Double(1234567.0))], "1.23457e+06"),
        (&[V(Double(1e-04))], "0.0001"),
        (&[V(Double(1.234e-05))], "1.234e-05"),
        (&[V(Double(1e+05))], "100000"),
        (&[V(Double(1e+21))], "1e+21"),
        (&[V(Double(5e-324))], "4.94066e-324"),
        (&[V(Double(1.7976931348623157e+308))], "1.79769e+308"),
        (&[V(Double(2.2250738585072014e-308))], "2.22507e-308"),
        (&[V(Double(3.14159265358979))], "3.14159"),
        (&[V(Double(9.9999995))], "10"),
        (&[V(Double(999999.5))], "1e+06"),
        (&[V(Double(999999.4))], "999999"),
        (&[V(Double(9.9999995e-05))], "0.0001"),
        (&[V(Double(9.999994e-05))], "9.99999e-05"),
        (&[V(Double(1e+15))], "1e+15"),
        (&[V(Double(123.456))], "123.456"),
        (&[V(Double(0.30000000000000004))], "0.3"),
        (&[M(Setprecision, 0), V(Double(123.456))], "1e+02"),
        (&[M(Setprecision, 0), V(Double(0.0))], "0"),
        (&[M(Setprecision, 1), V(Double(9.5))], "1e+01"),
        (&[M(Setprecision, 1), V(Double(8.5))], "8"),
        (&[M(Setprecision, 1), V(Double(0.25))], "0.2"),
        (&[M(Setprecision, 2), V(Double(0.125))], "0.12"),
        (
            &[M(Setprecision, 17), V(Double(0.1))],
            "0.10000000000000001",
        ),
        (
            &[M(Setprecision, 20), V(Double(0.1))],
            "0.10000000000000000555",
        ),
        (
            &[M(Setprecision, 40), V(Double(0.1))],
            "0.1000000000000000055511151231257827021182",
        ),
        (&[M(Setprecision, 20), V(Double(1e+21))], "1e+21"),
        (&[M(Setprecision, 3), V(Double(1e-300))], "1e-300"),
        (
            &[M(Setprecision, -1), V(Double(3.14159265358979))],
            "3.14159",
        ),
        (
            &[M(Setprecision, -5), M(Fixed, 0), V(Double(2.5))],
            "2.500000",
        ),
        (
            &[M(Setprecision, -1), M(Scientific, 0), V(Double(2.5))],
            "2.500000e+00",
        ),
        (&[M(Setprecision, 15), V(Double(100.0))], "100"),
        (&[M(Setprecision, 70000), V(Double(1.5))], "1.5"),
        (&[M(Setprecision, 1), V(Double(100.0))], "1e+02"),
        (&[M(Setprecision, 2), V(Double(100.0))], "1e+02"),
        (&[M(Setprecision, 3), V(Double(100.0))], "100"),
        (&[M(Fixed, 0), V(Double(0.0))], "0.000000"),
        (&[M(Fixed, 0), V(Double(-0.0))], "-0.000000"),
        (&[M(Fixed, 0), V(Double(1.0))], "1.000000"),
        (
            &[M(Fixed, 0), V(Double(1e+21))],
            "1000000000000000000000.000000",
        ),
        (&[M(Fixed, 0), V(Double(123.456))], "123.456000"),
        (&[M(Fixed, 0), V(Double(1e-07))], "0.000000"),
        (
            &[M(Fixed, 0), M(Setprecision, 2), V(Double(-0.001))],
            "-0.00",
        ),
        (&[M(Fixed, 0), M(Setprecision, 0), V(Double(0.5))], "0"),
        (&[M(Fixed, 0), M(Setprecision, 0), V(Double(1.5))], "2"),
        (&[M(Fixed, 0), M(Setprecision, 0), V(Double(2.5))], "2"),
        (&[M(Fixed, 0), M(Setprecision, 0), V(Double(-2.5))], "-2"),
        (&[M(Fixed, 0), M(Setprecision, 0), V(Double(3.5))], "4"),
        (
            &[
                M(Fixed, 0),
                M(Setprecision, 0),
                V(Double(0.49999999999999994)),
            ],
            "0",
        ),
        (&[M(Fixed, 0), M(Setprecision, 2), V(Double(0.125))], "0.12"),
        (&[M(Fixed, 0), M(Setprecision, 2), V(Double(0.375))], "0.38"),
        (&[M(Fixed, 0), M(Setprecision, 1), V(Double(0.05))], "0.1"),
        (
            &[M(Fixed, 0), M(Setprecision, 20), V(Double(0.1))],
            "0.10000000000000000555",
        ),
        (
            &[M(Fixed, 0), M(Setprecision, 3), V(Double(999.9996))],
            "1000.000",
        ),
        (
            &[M(Fixed, 0), V(Double(1.7976931348623157e+308))],
            "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368.000000",
        ),
        (
            &[M(Fixed, 0), M(Setprecision, 30), V(Double(5e-324))],
            "0.000000000000000000000000000000",
        ),
        (&[M(Fixed, 0), V(Double(5e-324))], "0.000000"),
        (&[M(Scientific, 0), V(Double(0.0))], "0.000000e+00"),
        (&[M(Scientific, 0), V(Double(-0.0))], "-0.000000e+00"),
        (&[M(Scientific, 0), V(Double(1.0))], "1.000000e+00"),
        (&[M(Scientific, 0), V(Double(123.456))], "1.234560e+02"),
        (&[M(Scientific, 0), V(Double(1e+300))], "1.000000e+300"),
        (&[M(Scientific, 0), V(Double(1e-300))], "1.000000e-300"),
        (&[M(Scientific, 0), V(Double(5e-324))], "4.940656e-324"),
        (
            &[M(Scientific, 0), V(Double(1.7976931348623157e+308))],
            "1.797693e+308",
        ),
        (&[M(Scientific, 0), V(Double(1e-05))], "1.000000e-05"),
        (
            &[M(Scientific, 0), M(Setprecision, 0), V(Double(2.5))],
            "2e+00",
        ),
        (
            &[M(Scientific, 0), M(Setprecision, 0), V(Double(3.5))],
            "4e+00",
        ),
        (
            &[M(Scientific, 0), M(Setprecision, 0), V(Double(123.456))],
            "1e+02",
        ),
        (
            &[M(Scientific, 0), M(Setprecision, 0), V(Double(9.6))],
            "1e+01",
        ),
        (
            &[M(Scientific, 0), M(Setprecision, 2), V(Double(9.996))],
            "1.00e+01",
        ),
        (
            &[M(Scientific, 0), M(Setprecision, 20), V(Double(0.1))],
            "1.00000000000000005551e-01",
        ),
        (
            &[M(Scientific, 0), M(Setprecision, 17), V(Double(0.1))],
            "1.00000000000000006e-01",
        ),
        (&[M(Scientific, 0), V(Double(-7.25e-10))], "-7.250000e-10"),
        (
            &[M(Fixed, 0), M(Scientific, 0), V(Double(1.5))],
            "1.500000e+00",
        ),
        (&[M(Scientific, 0), M(Fixed, 0), V(Double(1.5))], "1.500000"),
        (
            &[
                M(Fixed, 0),
                V(Double(1.5)),
                S(" "),
                M(DefaultFloat, 0),
                V(Double(1.5)),
            ],
            "1.500000 1.5",
        ),
        (
            &[
                M(Fixed, 0),
                M(Setprecision, 3),
                V(Double(1.0)),
                S(" "),
                V(Double(2.0)),
            ],
            "1.000 2.000",
        ),
        (&[V(Double(f64::INFINITY))], "inf"),
        (&[V(Double(f64::NEG_INFINITY))], "-inf"),
        (&[V(Double(f64::NAN))], "nan"),
        (&[V(Double(-f64::NAN))], "-nan"),
        (&[M(Fixed, 0), V(Double(f64::INFINITY))], "inf"),
        (&[M(Scientific, 0), V(Double(-f64::NAN))], "-nan"),
        (&[M(Setw, 6), V(Double(f64::NEG_INFINITY))], "  -inf"),
        (
            &[M(Left, 0), M(Setfill, 35), M(Setw, 5), V(Double(f64::NAN))],
            "nan##",
        ),
        (
            &[M(Setfill, 48), M(Setw, 6), V(Double(f64::NEG_INFINITY))],
            "00-inf",
        ),
        (&[M(Setw, 10), V(Double(3.5))], "       3.5"),
        (
            &[M(Left, 0), M(Setw, 10), V(Double(3.5)), S("|")],
            "3.5       |",
        ),
        (
            &[
                M(Setfill, 46),
                M(Setw, 10),
                M(Fixed, 0),
                M(Setprecision, 2),
                V(Double(-3.14159)),
            ],
            ".....-3.14",
        ),
        (&[M(Setw, 5), S("a"), S("b")], "    ab"),
        (&[M(Setw, 5), V(Int(1)), V(Int(2))], "    12"),
        (&[M(Setw, 4), M(Endl, 0), V(Int(3))], "\n   3"),
        (
            &[
                M(Left, 0),
                M(Setw, 4),
                V(Int(1)),
                M(Setw, 4),
                V(Int(2)),
                S("|"),
            ],
            "1   2   |",
        ),
        (
            &[M(Setfill, 42), M(Setw, 3), V(Int(1)), M(Setw, 3), V(Int(2))],
            "**1**2",
        ),
        (&[M(Setw, 8), S("hello")], "   hello"),
        (&[M(Left, 0), M(Setw, 8), S("hello"), S("|")], "hello   |"),
        (&[M(Setw, 3), S("")], "   "),
        (&[M(Setw, 3), S("toolong")], "toolong"),
        (
            &[
                M(Setfill, 45),
                M(Left, 0),
                M(Setw, 6),
                S("ab"),
                M(Setw, 6),
                S("cd"),
                S("|"),
            ],
            "ab----cd----|",
        ),
        (
            &[
                M(Setfill, 61),
                M(Setw, 4),
                M(Fixed, 0),
                M(Setprecision, 1),
                V(Double(-0.0)),
            ],
            "-0.0",
        ),
        (
            &[
                M(Hex, 0),
                M(Left, 0),
                M(Setfill, 95),
                M(Setw, 10),
                V(Long(-2)),
                S("|"),
            ],
            "fffffffffffffffe|",
        ),
        (
            &[S("line"), M(Endl, 0), S("next"), M(Endl, 0)],
            "line\nnext\n",
        ),
        (
            &[S("quote\" backslash\\ tab\u{9}")],
            "quote\" backslash\\ tab\u{9}",
        ),
        (
            &[
                M(Setprecision, 3),
                V(Double(3.14159)),
                S(" "),
                V(Double(2.71828)),
                S(" "),
                M(Hex, 0),
                V(Int(26)),
                S(" "),
                V(Double(26.5)),
            ],
            "3.14 2.72 1a 26.5",
        ),
    ];

    #[test]
    fn matches_libstdcxx_output() {
        let mut failures = Vec::new();
        for (i, (steps, expected)) in CASES.iter().enumerate() {
            let got = run(steps);
            if got != *expected {
                failures.push(format!("case {i}: expected {expected:?}, got {got:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn fresh_state_is_cout_default() {
        let f = StreamFormat::default();
        assert_eq!(f.precision, 6);
        assert_eq!(f.width, 0);
        assert_eq!(f.fill, b' ');
        assert!(f.adjust() == Adjust::Right && f.base() == Base::Dec);
        assert_eq!(f.flags(), fmtflags::SKIPWS | fmtflags::DEC);
        assert_eq!(f.float_field(), (FloatField::General, false));
    }

    #[test]
    fn setfill_keeps_only_the_low_byte() {
        // setfill takes a C++ char, so an int argument is truncated.
        let out = run(&[M(Setfill, 0x100 + i32::from(b'#')), M(Setw, 3), V(Int(1))]);
        assert_eq!(out, "##1");
    }

    #[test]
    fn non_ascii_char_counts_as_one_byte_of_width() {
        let out = run(&[M(Setw, 3), V(Char(-23))]);
        assert_eq!(out, "  \u{e9}");
    }

    /// A small deterministic generator so the sweep is reproducible.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        /// A finite double: raw bit patterns (every exponent, subnormals
        /// included) alternating with values of magnitude 1e-9..1e9, where
        /// `%g` switches between its two styles.
        fn double(&mut self, i: usize) -> f64 {
            if i.is_multiple_of(2) {
                loop {
                    let v = f64::from_bits(self.next());
                    if v.is_finite() {
                        return v;
                    }
                }
            }
            let unit = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
            let magnitude = (self.next() % 19) as i32 - 9;
            let sign = if self.next().is_multiple_of(2) {
                1.0
            } else {
                -1.0
            };
            sign * (1.0 + 9.0 * unit) * 10f64.powi(magnitude)
        }
    }

    /// Whether `text` has the shape of C's `%.{precision}e`: optional `-`,
    /// one digit, the point and `precision` digits, `e`, a sign and at least
    /// two exponent digits.
    fn is_c_exponential(text: &str, precision: usize) -> bool {
        let text = text.strip_prefix('-').unwrap_or(text);
        let Some((mantissa, exponent)) = text.split_once('e') else {
            return false;
        };
        let Some((int_part, frac_part)) = mantissa.split_once('.') else {
            return false;
        };
        let Some(exp_digits) = exponent.strip_prefix(['+', '-']) else {
            return false;
        };
        int_part.len() == 1
            && frac_part.len() == precision
            && exp_digits.len() >= 2
            && (int_part.to_owned() + frac_part + exp_digits)
                .bytes()
                .all(|b| b.is_ascii_digit())
    }

    /// `%.6g` straight from C's definition, using Rust's fixed notation for
    /// the `%f` style instead of moving the point in the `%e` digits as the
    /// module does.
    fn reference_g6(v: f64) -> String {
        let trim = |s: String| {
            if s.contains('.') {
                s.trim_end_matches('0').trim_end_matches('.').to_owned()
            } else {
                s
            }
        };
        let rust_e = format!("{v:.5e}");
        let (mantissa, exponent) = rust_e.split_once('e').expect("Rust writes an exponent");
        let x: i32 = exponent.parse().expect("Rust's exponent is an integer");
        if !(-4..6).contains(&x) {
            let sign = if x < 0 { '-' } else { '+' };
            format!("{}e{sign}{:02}", trim(mantissa.to_owned()), x.abs())
        } else {
            let decimals = usize::try_from(5 - x).expect("x <= 5 here");
            trim(format!("{v:.decimals$}"))
        }
    }

    #[test]
    fn pseudo_random_doubles() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        let mut general_fixed_style = 0;
        for i in 0..4000 {
            let v = rng.double(i);

            let e17 = format_float(v, FloatField::Scientific, 17);
            assert!(is_c_exponential(&e17, 17), "{v:e}: malformed {e17}");
            let back: f64 = e17.parse().expect("%e output parses");
            assert_eq!(
                back.to_bits(),
                v.to_bits(),
                "{v:e}: {e17} does not round-trip"
            );

            let g17 = format_float(v, FloatField::General, 17);
            let back: f64 = g17.parse().expect("%g output parses");
            assert_eq!(
                back.to_bits(),
                v.to_bits(),
                "{v:e}: {g17} does not round-trip"
            );

            let g6 = format_float(v, FloatField::General, 6);
            assert_eq!(g6, reference_g6(v), "{v:e}: %.6g");
            let back: f64 = g6.parse().expect("%g output parses");
            assert!(
                (back - v).abs() <= v.abs() * 5e-6,
                "{v:e}: {g6} is not within 6 significant digits"
            );
            if !g6.contains('e') {
                general_fixed_style += 1;
            }
        }
        // The sweep must exercise both styles of %g to mean anything.
        assert!(
            general_fixed_style > 1000,
            "only {general_fixed_style} fixed-style %g"
        );
    }
}
