//! Literal values: integer, floating and character literals as C++ reads them.

use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::Scalar;

/// Value and type of an integer literal (C++ [lex.icon]: the first type of the
/// list for its base and suffix that can hold the value). `None` if it fits
/// no supported type.
pub fn parse_int(text: &str) -> Option<(i64, Scalar)> {
    let lower = text.to_ascii_lowercase();
    let digits_end = lower.trim_end_matches(['u', 'l']).len();
    let (digits, suffix) = lower.split_at(digits_end);
    let unsigned = suffix.contains('u');
    let long = suffix.contains('l');
    // `ll` (`long long`) is 64 bits like `long` here (LP64), so the literal
    // has the same value and prints the same as with `l`; `lul` is no suffix.
    if suffix.matches('l').count() > 1 && !suffix.contains("ll") || suffix.matches('u').count() > 1
    {
        return None;
    }
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = digits.strip_prefix("0b") {
        (2, b)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    let value = u64::from_str_radix(body, radix).ok()?;
    let decimal = radix == 10;
    let candidates: &[Scalar] = match (unsigned, long, decimal) {
        (false, false, true) => &[Scalar::Int, Scalar::Long],
        (false, false, false) => &[Scalar::Int, Scalar::UInt, Scalar::Long, Scalar::ULong],
        (true, false, _) => &[Scalar::UInt, Scalar::ULong],
        (false, true, true) => &[Scalar::Long],
        (false, true, false) => &[Scalar::Long, Scalar::ULong],
        (true, true, _) => &[Scalar::ULong],
    };
    candidates
        .iter()
        .find(|s| fits(value, **s))
        .map(|s| (value as i64, *s))
}

fn fits(v: u64, s: Scalar) -> bool {
    match s {
        Scalar::Int => v <= i32::MAX as u64,
        Scalar::UInt => v <= u64::from(u32::MAX),
        Scalar::Long => v <= i64::MAX as u64,
        _ => true,
    }
}

/// Whether an integer literal's value (as [`parse_int`] gives it) fits in 32
/// bits, as every integer constant in amp code must (MSVC's C3595). The
/// suffix does not matter: `6LL` is a small constant of a wide type.
pub fn fits_32_bits(value: i64, ty: Scalar) -> bool {
    (value as u64) <= u64::from(u32::MAX) || !matches!(ty, Scalar::Long | Scalar::ULong)
}

/// Whether a floating literal is beyond the largest value of its type, which
/// MSVC refuses (C2177, "constant too big"). A `float` literal is compared
/// as written, before rounding: `3.402823467e+38f` rounds to `FLT_MAX` but
/// is above it. A `double` one is too big when it rounds to infinity.
pub fn float_too_big(text: &str, value: f64, ty: Scalar) -> bool {
    match ty {
        Scalar::Float => {
            let body = text.trim_end_matches(['f', 'F']);
            body.parse::<f64>()
                .is_ok_and(|exact| exact > f64::from(f32::MAX))
                || value.is_infinite()
        }
        _ => value.is_infinite(),
    }
}

/// The error for a floating literal [`float_too_big`] refuses (E0223).
pub fn float_too_big_error(text: &str, ty: Scalar, span: Span) -> Diagnostic {
    let (name, max) = match ty {
        Scalar::Float => ("float", "3.402823466e+38f (`FLT_MAX`)"),
        _ => ("double", "1.7976931348623157e+308 (`DBL_MAX`)"),
    };
    Diagnostic::error(
        codes::E0223,
        span,
        format!("floating-point constant `{text}` is too large for `{name}`"),
    )
    .with_label(format!("beyond the largest `{name}`"))
    .with_msvc("C2177")
    .with_help(format!("the largest `{name}` is {max}"))
}

/// Value and type (`float` or `double`) of a floating literal; `None` for `long double`.
pub fn parse_float(text: &str) -> Option<(f64, Scalar)> {
    let lower = text.to_ascii_lowercase();
    if lower.ends_with('l') {
        return None;
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        return parse_hex_float(hex);
    }
    if let Some(body) = lower.strip_suffix('f') {
        let v: f32 = body.parse().ok()?;
        Some((f64::from(v), Scalar::Float))
    } else {
        Some((lower.parse().ok()?, Scalar::Double))
    }
}

/// A hexadecimal floating literal after its `0x` (lower case): hex digits
/// with an optional point, `p`, a decimal exponent of 2, an optional `f`.
/// The digits are gathered exactly (up to 128 bits), then scaled, so a
/// literal with at most 53 significant bits is exact, as C++ reads it.
fn parse_hex_float(hex: &str) -> Option<(f64, Scalar)> {
    let (digits, exponent) = hex.split_once('p')?;
    let (exponent, ty) = match exponent.strip_suffix('f') {
        Some(e) => (e, Scalar::Float),
        None => (exponent, Scalar::Double),
    };
    let exponent: i32 = exponent.parse().ok()?;
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let mut mantissa: u128 = 0;
    let mut scale = exponent;
    for (i, c) in whole.chars().chain(fraction.chars()).enumerate() {
        let d = c.to_digit(16)?;
        if mantissa >> 120 != 0 {
            // Beyond 120 bits a digit only scales the value (its bits are
            // far below a `double`'s precision).
            if i < whole.len() {
                scale = scale.checked_add(4)?;
            }
            continue;
        }
        mantissa = mantissa * 16 + u128::from(d);
        if i >= whole.len() {
            scale = scale.checked_sub(4)?;
        }
    }
    let value = mantissa as f64 * 2f64.powi(scale);
    match ty {
        Scalar::Float => Some((f64::from(value as f32), Scalar::Float)),
        _ => Some((value, Scalar::Double)),
    }
}

/// Value of a character literal `'a'`, `'\n'`, `'\x41'` (as a signed `char`).
pub fn parse_char(text: &str) -> Option<i8> {
    let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
    let bytes = unescape(inner)?;
    match bytes.as_slice() {
        [b] => Some(*b as i8),
        _ => None,
    }
}

/// Value of a wide character literal `L'a'`, `L'\u00e9'` written as the
/// character itself, `L'\n'`: its code point.
pub fn parse_wide_char(text: &str) -> Option<i32> {
    let inner = text.strip_prefix("L'")?.strip_suffix('\'')?;
    let bytes = unescape(inner)?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => i32::try_from(u32::from(c)).ok(),
        _ => None,
    }
}

/// The bytes of a string literal's contents, escapes decoded; `None` if an
/// escape is invalid (the lexer reported it).
pub fn unescape(inner: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(inner.len());
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b >= 0x80 {
            // A byte that was not UTF-8 in the source file (see
            // `SourceFile::from_bytes`) is the byte itself, as g++ copies it.
            let c = inner.get(i..).and_then(|rest| rest.chars().next())?;
            match tessera_diagnostics::foreign_byte(c) {
                Some(byte) => out.push(byte),
                None => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
            i += c.len_utf8();
            continue;
        }
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let next = *bytes.get(i + 1)?;
        i += 2;
        let decoded = match next {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'\\' | b'\'' | b'"' | b'?' => next,
            b'0'..=b'7' => {
                let mut v = u32::from(next - b'0');
                let mut n = 1;
                while n < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    v = v * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    n += 1;
                }
                v as u8
            }
            b'x' => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    i += 1;
                }
                let hex = inner.get(start..i)?;
                u32::from_str_radix(hex, 16).ok()? as u8
            }
            _ => return None,
        };
        out.push(decoded);
    }
    Some(out)
}

/// The text of a string literal token (with quotes and optional `L`), decoded.
pub fn parse_str(raw: &str) -> Option<Vec<u8>> {
    let raw = raw.strip_prefix('L').unwrap_or(raw);
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    unescape(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_literal_types_follow_cpp() {
        assert_eq!(parse_int("42"), Some((42, Scalar::Int)));
        assert_eq!(parse_int("2147483648"), Some((2147483648, Scalar::Long)));
        assert_eq!(parse_int("0xFFFFFFFF"), Some((0xFFFF_FFFF, Scalar::UInt)));
        assert_eq!(parse_int("7u"), Some((7, Scalar::UInt)));
        assert_eq!(parse_int("7UL"), Some((7, Scalar::ULong)));
        assert_eq!(parse_int("010"), Some((8, Scalar::Int)));
        assert_eq!(parse_int("0b101"), Some((5, Scalar::Int)));
        assert_eq!(parse_int("99999999999999999999"), None);
        assert_eq!(parse_int("6LL"), Some((6, Scalar::Long)));
        assert_eq!(
            parse_int("0xFFFFFFFFFFFFFFFFULL"),
            Some((-1, Scalar::ULong))
        );
        assert_eq!(parse_int("1llu"), Some((1, Scalar::ULong)));
        assert_eq!(parse_int("1lul"), None);
        assert_eq!(parse_int("1uu"), None);
    }

    #[test]
    fn amp_integer_constants_fit_32_bits_whatever_their_suffix() {
        let fits = |text: &str| parse_int(text).is_some_and(|(v, s)| fits_32_bits(v, s));
        assert!(fits("6LL"));
        assert!(fits("6ull"));
        assert!(fits("0x10ULL"));
        assert!(fits("4294967295"));
        assert!(fits("0xFFFFFFFFll"));
        assert!(!fits("4294967296"));
        assert!(!fits("0x2ffffffffLL"));
        assert!(!fits("0xFFFFFFFFFFFFFFFFULL"));
    }

    #[test]
    fn float_constants_beyond_their_type() {
        let too_big =
            |text: &str| parse_float(text).is_some_and(|(v, s)| float_too_big(text, v, s));
        assert!(!too_big("3.402823466e+38f"));
        assert!(too_big("3.402823467e+38f"));
        assert!(too_big("1e39f"));
        assert!(!too_big("3.402823467e+38"));
        assert!(!too_big("1.7976931348623157e+308"));
        assert!(too_big("1.7976931348623159e+308"));
        assert!(!too_big("1e-50f"));
    }

    #[test]
    fn floats_and_chars() {
        assert_eq!(
            parse_float("0x1.0p-23f"),
            Some((f64::from(f32::EPSILON), Scalar::Float))
        );
        assert_eq!(
            parse_float("0x1.0p-52"),
            Some((f64::EPSILON, Scalar::Double))
        );
        assert_eq!(parse_float("0x1.8P1"), Some((3.0, Scalar::Double)));
        assert_eq!(parse_float("0xA.p0"), Some((10.0, Scalar::Double)));
        assert_eq!(parse_float("0x.8p0"), Some((0.5, Scalar::Double)));
        assert_eq!(parse_float("1.5f"), Some((1.5, Scalar::Float)));
        assert_eq!(parse_float("2e3"), Some((2000.0, Scalar::Double)));
        assert_eq!(parse_float("1.0L"), None);
        assert_eq!(parse_char("'a'"), Some(97));
        assert_eq!(parse_char("'\\n'"), Some(10));
        assert_eq!(parse_char("'\\x41'"), Some(65));
        assert_eq!(parse_str("\"a\\tb\""), Some("a\tb".into()));
    }
}
