//! String streams (`std::stringstream` and its one-way forms) and the
//! text-to-number functions of `<string>` (`std::stoi` ...).
//!
//! A stream is shared by every name it has (`Value::Stream`): it cannot be
//! copied, and a `std::ostream&` bound to it writes into it. Writing
//! formats as `std::cout` does (the same `StreamFormat`); reading follows
//! libstdc++'s `operator>>` and `num_get`: white space skipped, the longest
//! text that can start a number of the type taken, failbit (and a value of
//! 0, or the type's limit when out of range) when there is none, eofbit
//! when the text ran out.

use crate::machine::{Machine, Res, Stop};
use crate::value::{Meter, Place, Value};
use std::cell::RefCell;
use std::rc::Rc;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Expr, Intrinsic, Manipulator, Scalar, StreamMember, StreamQuery, Type};
use tessera_runtime::format::StreamFormat;

/// A string stream's state.
#[derive(Debug)]
pub(crate) struct StringStream {
    /// Its text.
    text: Vec<u8>,
    /// Where the next read starts.
    get: usize,
    /// Where the next write goes: over the text there, then past its end.
    put: usize,
    /// Its format, shared by reading and writing as in C++.
    pub(crate) format: StreamFormat,
    /// failbit: an operation failed.
    fail: bool,
    /// eofbit: a read reached the end of the text.
    eof: bool,
    /// The bytes of text counted against the memory limit, given back
    /// when the stream goes.
    counted: u64,
    meter: Rc<Meter>,
}

impl Drop for StringStream {
    fn drop(&mut self) {
        self.meter.give(self.counted);
    }
}

impl StringStream {
    /// `good()`: no flag set.
    fn good(&self) -> bool {
        !self.fail && !self.eof
    }

    /// Whether the text left to read has what a read of `std::cin` needs.
    fn has(&self, need: Need) -> bool {
        let rest = &self.text[self.get.min(self.text.len())..];
        match need {
            Need::Byte => !rest.is_empty(),
            Need::Through(delim) => rest.contains(&delim),
            Need::Word => rest.iter().any(|b| !is_space(*b)) && rest.last() == Some(&b'\n'),
        }
    }

    /// The next byte to read, if any.
    fn peek(&self) -> Option<u8> {
        self.text.get(self.get).copied()
    }

    /// Skips white space as `operator>>`'s sentry does; false (with
    /// failbit and eofbit set) when the text ran out first, or when the
    /// stream had failed already (failbit set).
    fn sentry(&mut self, skip_space: bool) -> bool {
        if !self.good() {
            self.fail = true;
            return false;
        }
        if skip_space {
            while self.peek().is_some_and(is_space) {
                self.get += 1;
            }
            if self.peek().is_none() {
                self.eof = true;
                self.fail = true;
                return false;
            }
        }
        true
    }
}

/// What a read of `std::cin` needs in its text before it runs (see
/// `Machine::fill_stdin`).
#[derive(Clone, Copy, Debug)]
enum Need {
    /// One byte (`get`, `peek`, `getchar`).
    Byte,
    /// Text through this byte (`std::getline`, `ignore(n, delim)`).
    Through(u8),
    /// A word after white space, and the rest of its line (`>>`).
    Word,
}

/// The C locale's `isspace`.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The characters of a `std::string` (a `std::vector<char>` ending in a
/// zero) as bytes, without the zero; or a `std::wstring`'s text (UTF-8).
fn chars_bytes(v: &Value) -> Vec<u8> {
    if let Value::Str(text) = v {
        return text.to_vec();
    }
    let Value::Vector(s) = v else {
        return Vec::new();
    };
    let n = s.len().saturating_sub(1);
    s.values(0, n).iter().map(|c| c.int() as u8).collect()
}

/// A wide string's text (held as UTF-8).
fn wide_text(v: &Value) -> String {
    match v {
        Value::Str(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        _ => String::new(),
    }
}

/// How a read number ended: its value, or why there is none.
enum Parsed<T> {
    /// A value in range.
    Value(T),
    /// No number: the target becomes 0.
    Invalid,
    /// Out of range: the target becomes this limit.
    Range(T),
}

/// The integer text at the start of `s` (sign, then digits of the base),
/// as `num_get` and `strtol` take it: how many bytes it has, whether it is
/// negative and its magnitude (`None` past `u64`). Base 16 may start with
/// `0x`; base 0 is 16 after `0x`, 8 after `0` and 10 otherwise (as for
/// `strtol`). Zero bytes when there is no digit.
fn integer_text(s: &[u8], base: u32) -> (usize, bool, Option<u64>) {
    let mut i = 0;
    let negative = s.first() == Some(&b'-');
    if matches!(s.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let prefixed = s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    let base = match base {
        0 if prefixed => 16,
        0 if s.get(i) == Some(&b'0') => 8,
        0 => 10,
        other => other,
    };
    if base == 16 && prefixed {
        i += 2;
    }
    let start = i;
    let mut value: Option<u64> = Some(0);
    while let Some(d) = s.get(i).and_then(|c| char::from(*c).to_digit(base)) {
        value = value
            .and_then(|v| v.checked_mul(u64::from(base)))
            .and_then(|v| v.checked_add(u64::from(d)));
        i += 1;
    }
    if i == start {
        return (0, negative, Some(0));
    }
    (i, negative, value)
}

/// The smallest value of integer type `s` and the largest.
fn int_bounds(s: Scalar) -> (i64, u64) {
    match s {
        Scalar::ULong => (0, u64::MAX),
        other => {
            let (lo, hi) = other.int_range();
            (lo, hi as u64)
        }
    }
}

/// An integer of type `s` from its sign and magnitude, as libstdc++'s
/// `num_get` makes it (an unsigned type takes a negated value modulo its
/// range; a magnitude past the type's range is its limit). The value is
/// held as the interpreter holds integers (`unsigned long` as its bits).
fn integer_of(s: Scalar, negative: bool, magnitude: Option<u64>) -> Parsed<i64> {
    let (lo, hi) = int_bounds(s);
    if s.is_unsigned() {
        return match magnitude {
            Some(m) if m <= hi => {
                let v = if negative { m.wrapping_neg() & hi } else { m };
                Parsed::Value(v as i64)
            }
            _ => Parsed::Range(hi as i64),
        };
    }
    let limit = if negative { lo.unsigned_abs() } else { hi };
    match magnitude {
        Some(m) if m <= limit => Parsed::Value(if negative {
            0i64.wrapping_sub_unsigned(m)
        } else {
            m as i64
        }),
        _ => Parsed::Range(if negative { lo } else { hi as i64 }),
    }
}

/// The floating-point text at the start of `s`, as `num_get` gathers it:
/// a sign, digits, one point, an exponent after some digit.
fn float_text(s: &[u8]) -> usize {
    let mut i = 0;
    if matches!(s.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let (mut point, mut exponent, mut digits) = (false, false, false);
    while let Some(&c) = s.get(i) {
        if c.is_ascii_digit() {
            digits = true;
        } else if c == b'.' && !point && !exponent {
            point = true;
        } else if matches!(c, b'e' | b'E') && !exponent && digits {
            exponent = true;
            if matches!(s.get(i + 1), Some(b'-' | b'+')) {
                i += 1;
            }
        } else {
            break;
        }
        i += 1;
    }
    i
}

/// A floating-point value of type `s` from its text, as `strtod` (or
/// `strtof`) reads it whole: `Invalid` when the text is not all a number,
/// `Range` (the largest finite value) when it overflows.
fn float_of(s: Scalar, text: &[u8]) -> Parsed<f64> {
    let Ok(text) = std::str::from_utf8(text) else {
        return Parsed::Invalid;
    };
    // Rust's parsers take what `strtod` takes for this text (the gathered
    // text never has `inf`, `nan` or hexadecimal), and round correctly, as
    // glibc does.
    let parsed = if s == Scalar::Float {
        text.parse::<f32>().ok().map(f64::from)
    } else {
        text.parse::<f64>().ok()
    };
    let max = if s == Scalar::Float {
        f64::from(f32::MAX)
    } else {
        f64::MAX
    };
    match parsed {
        None => Parsed::Invalid,
        Some(v) if v.is_infinite() => Parsed::Range(max.copysign(v)),
        Some(v) => Parsed::Value(v),
    }
}

/// A number read into a scalar of type `s`, as a value.
fn scalar_value(s: Scalar, v: f64) -> Value {
    match s {
        Scalar::Float => Value::Float(v as f32),
        _ => Value::Double(v),
    }
}

impl Machine<'_> {
    /// The string stream a stream value is, if it is one (`std::cout` is
    /// not).
    fn string_stream(&mut self, stream: &Expr) -> Res<Option<Rc<RefCell<StringStream>>>> {
        Ok(match self.eval(stream)? {
            Value::Stream(s) => Some(s),
            _ => None,
        })
    }

    /// Runs `f` on the format of the stream `stream` is (`std::cout`,
    /// `std::cerr` or a string stream; `wide` for the type of `std::wcout`
    /// and `std::wcerr`, which have formats of their own).
    pub(crate) fn with_format<R>(
        &mut self,
        stream: &Value,
        wide: bool,
        f: impl FnOnce(&mut StreamFormat) -> R,
    ) -> R {
        match stream {
            Value::Stream(s) => f(&mut s.borrow_mut().format),
            Value::Int(crate::library::STDERR) => f(self.clib.err_format(wide)),
            _ => f(self.out_format(wide)),
        }
    }

    /// `std::cin`: one stream for the run, made when first named.
    pub(crate) fn stdin_stream(&mut self, span: Span) -> Res<Rc<RefCell<StringStream>>> {
        if let Some(cin) = &self.cin {
            return Ok(Rc::clone(cin));
        }
        let Value::Stream(cin) = self.new_string_stream(Vec::new(), span)? else {
            return Err(self.error(codes::R0007, span, "the input stream could not be made"));
        };
        self.cin = Some(Rc::clone(&cin));
        Ok(cin)
    }

    /// When `stream` is `std::cin`, reads lines of the program's input into
    /// its text until the next read has what it `need`s, or the input
    /// ends. Reading whole lines is what a terminal gives, and a word never
    /// spans a line, so the reads then parse the text as a string
    /// stream's, their end of text being the input's.
    fn fill_stdin(
        &mut self,
        stream: &Rc<RefCell<StringStream>>,
        need: Need,
        span: Span,
    ) -> Res<()> {
        if !self.cin.as_ref().is_some_and(|cin| Rc::ptr_eq(cin, stream)) {
            return Ok(());
        }
        // `std::cin` is tied to `std::cout`: a prompt shows first.
        self.flush();
        loop {
            if self.input_done || stream.borrow().has(need) {
                return Ok(());
            }
            let mut line = Vec::new();
            let read = match self.input.as_mut() {
                Some(input) => input.read_until(b'\n', &mut line).unwrap_or(0),
                None => 0,
            };
            if read == 0 {
                self.input_done = true;
                return Ok(());
            }
            let mut s = stream.borrow_mut();
            // The text already read goes: only what is left is kept.
            let get = s.get;
            s.text.drain(..get);
            s.get = 0;
            s.put = 0;
            let more = (s.text.len() + line.len()).saturating_sub(s.counted as usize) as u64;
            self.grow_stream(&mut s, more, span)?;
            s.text.extend_from_slice(&line);
        }
    }

    /// `in.ignore(count, delim)`: skips up to `count` bytes, stopping after
    /// `delim` (-1: none); the end of the text sets eofbit. libstdc++ takes
    /// the largest `std::streamsize` as no limit.
    fn ignore(
        &mut self,
        stream: &Rc<RefCell<StringStream>>,
        count: i64,
        delim: i64,
        span: Span,
    ) -> Res<()> {
        if !stream.borrow_mut().sentry(false) {
            return Ok(());
        }
        let mut taken = 0i64;
        while count == i64::MAX || taken < count {
            let need = match u8::try_from(delim) {
                Ok(d) => Need::Through(d),
                Err(_) => Need::Byte,
            };
            self.fill_stdin(stream, need, span)?;
            let mut s = stream.borrow_mut();
            let Some(b) = s.peek() else {
                s.eof = true;
                return Ok(());
            };
            s.get += 1;
            taken += 1;
            if i64::from(b) == delim {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Counts `more` bytes of a stream's text against the memory limit.
    fn grow_stream(&mut self, s: &mut StringStream, more: u64, span: Span) -> Res<()> {
        self.take_memory(more, span)?;
        s.counted += more;
        Ok(())
    }

    /// A new string stream holding `text`.
    fn new_string_stream(&self, text: Vec<u8>, span: Span) -> Res<Value> {
        self.take_memory(text.len() as u64, span)?;
        let counted = text.len() as u64;
        Ok(Value::Stream(Rc::new(RefCell::new(StringStream {
            text,
            get: 0,
            put: 0,
            format: StreamFormat::default(),
            fail: false,
            eof: false,
            counted,
            meter: Rc::clone(&self.meter),
        }))))
    }

    /// An empty string stream: what a variable of the type starts as.
    pub(crate) fn empty_string_stream(&self, span: Span) -> Res<Value> {
        self.new_string_stream(Vec::new(), span)
    }

    /// `stream << v` on a string stream: formatted as `std::cout` formats
    /// it, written at the put position. A stream that is not `good()`
    /// writes nothing, as the output sentry of C++ decides.
    pub(crate) fn print_to_string(
        &mut self,
        stream: &Rc<RefCell<StringStream>>,
        v: &Value,
        ty: &Type,
        span: Span,
    ) -> Res<()> {
        let floating = ty.scalar().is_some_and(Scalar::is_floating);
        let bound = stream.borrow().format.output_bound(floating) as u64;
        if bound > 1 << 16 {
            self.take_memory(bound, span)?;
            self.meter.give(bound);
            self.charge(bound / 64, span)?;
        }
        let bytes = match v {
            Value::Ptr(_) => Some(self.c_string(v, span)?),
            _ => None,
        };
        let mut s = stream.borrow_mut();
        let mut out = Vec::new();
        if let Value::Manip(m, arg) = v {
            if *m != Manipulator::Endl || s.good() {
                s.format.apply(*m, *arg, &mut out);
            }
        } else if s.good() {
            match (v, ty) {
                (Value::Str(text), _) => s.format.write_bytes(text, &mut out),
                (Value::Ptr(_), _) => s
                    .format
                    .write_bytes(bytes.as_deref().unwrap_or_default(), &mut out),
                (_, Type::Scalar(sc)) => s
                    .format
                    .write_scalar(crate::library::scalar_of(v, *sc), &mut out),
                _ => {}
            }
        }
        let end = s.put + out.len();
        let more = end.saturating_sub(s.text.len()) as u64;
        self.grow_stream(&mut s, more, span)?;
        let put = s.put;
        let overlap = s.text.len().min(end).saturating_sub(put);
        s.text[put..put + overlap].copy_from_slice(&out[..overlap]);
        s.text.extend_from_slice(&out[overlap..]);
        s.put = end;
        Ok(())
    }

    /// The string-stream intrinsics that answer a value.
    pub(crate) fn string_stream_op(
        &mut self,
        op: &Intrinsic,
        args: &[Expr],
        e: &Expr,
    ) -> Res<Value> {
        let span = e.span;
        match op {
            Intrinsic::StringStreamNew => {
                let text = match args.first() {
                    Some(a) => chars_bytes(&self.eval(a)?),
                    None => Vec::new(),
                };
                self.new_string_stream(text, span)
            }
            Intrinsic::StreamText => {
                let text = match self.string_stream(&args[0])? {
                    Some(s) => s.borrow().text.clone(),
                    None => Vec::new(),
                };
                // A wide stream's text is a `std::wstring`.
                if e.ty == Type::WideStr {
                    return Ok(Value::Str(Rc::new(text)));
                }
                self.chars_value(text, span)
            }
            Intrinsic::StreamSetText => {
                let stream = self.string_stream(&args[0])?;
                let text = chars_bytes(&self.eval(&args[1])?);
                if let Some(stream) = stream {
                    let mut s = stream.borrow_mut();
                    let more = (text.len() as u64).saturating_sub(s.counted);
                    self.grow_stream(&mut s, more, span)?;
                    s.text = text;
                    s.get = 0;
                    s.put = 0;
                }
                Ok(Value::Void)
            }
            Intrinsic::StreamClear => {
                if let Some(stream) = self.string_stream(&args[0])? {
                    let mut s = stream.borrow_mut();
                    s.fail = false;
                    s.eof = false;
                }
                Ok(Value::Void)
            }
            Intrinsic::StreamQuery(q) => {
                // `std::cout` and `std::cerr` never fail here.
                let Some(stream) = self.string_stream(&args[0])? else {
                    return Ok(Value::Bool(matches!(
                        q,
                        StreamQuery::Good | StreamQuery::Ok
                    )));
                };
                let s = stream.borrow();
                Ok(Value::Bool(match q {
                    StreamQuery::Good => s.good(),
                    StreamQuery::Fail => s.fail,
                    StreamQuery::Eof => s.eof,
                    StreamQuery::Bad => false,
                    StreamQuery::Ok => !s.fail,
                }))
            }
            Intrinsic::StreamFormat(member) => {
                let stream = self.eval(&args[0])?;
                let mut values = Vec::with_capacity(args.len() - 1);
                for a in &args[1..] {
                    values.push(self.eval(a)?.int());
                }
                let wide = args[0].ty == Type::WideOstream;
                Ok(self.with_format(&stream, wide, |f| format_member(f, *member, &values)))
            }
            Intrinsic::StreamGet | Intrinsic::StreamPeek => {
                let Some(stream) = self.string_stream(&args[0])? else {
                    return Ok(Value::Int(-1));
                };
                self.fill_stdin(&stream, Need::Byte, span)?;
                let mut s = stream.borrow_mut();
                // `get` and `peek` build a sentry that does not skip white
                // space: a stream that is not good gives EOF and failbit.
                if !s.sentry(false) {
                    return Ok(Value::Int(-1));
                }
                match s.peek() {
                    Some(b) => {
                        if *op == Intrinsic::StreamGet {
                            s.get += 1;
                        }
                        Ok(Value::Int(i64::from(b)))
                    }
                    None => {
                        // `get` fails at the end; `peek` only sets eofbit.
                        s.eof = true;
                        s.fail |= *op == Intrinsic::StreamGet;
                        Ok(Value::Int(-1))
                    }
                }
            }
            Intrinsic::StreamIgnore => {
                let stream = self.string_stream(&args[0])?;
                let count = self.eval(&args[1])?.int();
                let delim = self.eval(&args[2])?.int();
                if let Some(stream) = stream {
                    self.ignore(&stream, count, delim, span)?;
                }
                Ok(Value::Void)
            }
            Intrinsic::Getchar => {
                let cin = self.stdin_stream(span)?;
                self.fill_stdin(&cin, Need::Byte, span)?;
                let mut s = cin.borrow_mut();
                // C's stdio and `std::cin` share the input (as libstdc++
                // keeps them in step by default), but not the state flags.
                Ok(Value::Int(match s.peek() {
                    Some(b) => {
                        s.get += 1;
                        i64::from(b)
                    }
                    None => -1,
                }))
            }
            Intrinsic::StringToNumber { name } => self.string_to_number(name.0, args, e),
            Intrinsic::WideStrLen => {
                let text = wide_text(&self.eval(&args[0])?);
                Ok(Value::Int(text.chars().count() as i64))
            }
            Intrinsic::WideStrChars => {
                let text = wide_text(&self.eval(&args[0])?);
                let mut data: Vec<Value> = text
                    .chars()
                    .map(|c| Value::Int(i64::from(u32::from(c))))
                    .collect();
                data.push(Value::Int(0));
                let storage = self.storage_of(
                    data,
                    &Type::Scalar(Scalar::WChar),
                    crate::value::StorageKind::Vector,
                    span,
                )?;
                Ok(crate::value::Pointer::to_storage(storage))
            }
            Intrinsic::WideStrFromPtr => {
                let p = self.eval(&args[0])?;
                let codes = self.zero_terminated(&p, span)?;
                let text: String = codes
                    .into_iter()
                    .map(|c| {
                        u32::try_from(c)
                            .ok()
                            .and_then(char::from_u32)
                            .unwrap_or(char::REPLACEMENT_CHARACTER)
                    })
                    .collect();
                Ok(Value::Str(Rc::new(text.into_bytes())))
            }
            _ => Ok(Value::Void),
        }
    }

    /// The string-stream intrinsics that are places (the stream, for the
    /// next operator of a chain).
    pub(crate) fn string_stream_place(
        &mut self,
        op: &Intrinsic,
        args: &[Expr],
        e: &Expr,
    ) -> Res<Place> {
        let span = e.span;
        let stream = self.eval(&args[0])?;
        let Value::Stream(s) = &stream else {
            return Ok(Machine::temp(stream));
        };
        match op {
            Intrinsic::StreamRead => {
                if args[1].ty != Type::Manipulator {
                    self.fill_stdin(s, Need::Word, span)?;
                }
                self.stream_read(s, &args[1], span)?;
            }
            Intrinsic::StreamGetChar => {
                let target = self.place(&args[1])?;
                self.fill_stdin(s, Need::Byte, span)?;
                let byte = {
                    let mut s = s.borrow_mut();
                    if s.sentry(false) {
                        let b = s.peek();
                        match b {
                            Some(_) => s.get += 1,
                            None => {
                                s.eof = true;
                                s.fail = true;
                            }
                        }
                        b
                    } else {
                        None
                    }
                };
                if let Some(b) = byte {
                    self.write(&target, Value::Int(i64::from(b as i8)), span)?;
                }
            }
            Intrinsic::StreamGetlineBuf => {
                let buffer = self.eval(&args[1])?;
                let count = self.eval(&args[2])?.int();
                let delim = self.eval(&args[3])?.int() as u8;
                self.fill_stdin(s, Need::Through(delim), span)?;
                let stored = {
                    let mut s = s.borrow_mut();
                    if s.sentry(false) {
                        let room = usize::try_from(count.saturating_sub(1)).unwrap_or(0);
                        let rest = &s.text[s.get..];
                        let n = rest
                            .iter()
                            .take(room)
                            .position(|&b| b == delim)
                            .unwrap_or(rest.len().min(room));
                        let line = rest[..n].to_vec();
                        let mut taken = n;
                        match rest.get(n) {
                            None => s.eof = true,
                            Some(&b) if b == delim => taken += 1,
                            // The buffer filled before the delimiter.
                            Some(_) => s.fail = true,
                        }
                        if taken == 0 {
                            s.fail = true;
                        }
                        s.get += taken;
                        Some(line)
                    } else {
                        // A stream that is not good stores an empty text.
                        Some(Vec::new())
                    }
                };
                if let Some(line) = stored.filter(|_| count > 0) {
                    let bytes = line
                        .into_iter()
                        .map(|b| Value::Int(i64::from(b as i8)))
                        .chain(std::iter::once(Value::Int(0)));
                    self.write_pointed(&buffer, 0, bytes, span)?;
                }
            }
            Intrinsic::StreamGetline => {
                let target = self.place(&args[1])?;
                let delim = self.eval(&args[2])?.int() as u8;
                self.fill_stdin(s, Need::Through(delim), span)?;
                let line = {
                    let mut s = s.borrow_mut();
                    if s.sentry(false) {
                        let rest = &s.text[s.get..];
                        match rest.iter().position(|&b| b == delim) {
                            Some(n) => {
                                let line = rest[..n].to_vec();
                                s.get += n + 1;
                                Some(line)
                            }
                            None if rest.is_empty() => {
                                s.eof = true;
                                s.fail = true;
                                None
                            }
                            None => {
                                let line = rest.to_vec();
                                s.get = s.text.len();
                                s.eof = true;
                                Some(line)
                            }
                        }
                    } else {
                        None
                    }
                };
                // libstdc++ empties the string before it reads, when the
                // sentry lets it read at all.
                if let Some(line) = line {
                    let v = self.chars_value(line, span)?;
                    self.write(&target, v, span)?;
                } else if s.borrow().eof
                    && s.borrow().fail
                    && s.borrow().get >= s.borrow().text.len()
                {
                    let v = self.chars_value(Vec::new(), span)?;
                    self.write(&target, v, span)?;
                }
            }
            _ => {}
        }
        Ok(Machine::temp(stream))
    }

    /// `stream >> target`.
    fn stream_read(
        &mut self,
        stream: &Rc<RefCell<StringStream>>,
        target: &Expr,
        span: Span,
    ) -> Res<()> {
        if target.ty == Type::Manipulator {
            if let Value::Manip(m, arg) = self.eval(target)?
                && m != Manipulator::Endl
            {
                stream.borrow_mut().format.apply(m, arg, &mut Vec::new());
            }
            return Ok(());
        }
        let place = self.place(target)?;
        let read = {
            let mut s = stream.borrow_mut();
            match &target.ty {
                _ if !s.sentry(true) => None,
                Type::Scalar(Scalar::Char | Scalar::UChar) => {
                    let c = s.peek().unwrap_or(0);
                    s.get += 1;
                    Some(Value::Int(if target.ty == Type::Scalar(Scalar::Char) {
                        i64::from(c as i8)
                    } else {
                        i64::from(c)
                    }))
                }
                Type::Scalar(sc) if sc.is_floating() => {
                    let rest = &s.text[s.get..];
                    let n = float_text(rest);
                    let parsed = float_of(*sc, &rest[..n]);
                    s.get += n;
                    if s.get >= s.text.len() {
                        s.eof = true;
                    }
                    Some(match parsed {
                        Parsed::Value(v) => scalar_value(*sc, v),
                        Parsed::Invalid => {
                            s.fail = true;
                            scalar_value(*sc, 0.0)
                        }
                        Parsed::Range(v) => {
                            s.fail = true;
                            scalar_value(*sc, v)
                        }
                    })
                }
                Type::Scalar(sc) => {
                    let rest = &s.text[s.get..];
                    let (n, negative, magnitude) = integer_text(rest, s.format.radix());
                    // `num_get` takes the sign even when no digit follows.
                    let taken = if n == 0 {
                        usize::from(matches!(rest.first(), Some(b'-' | b'+')))
                    } else {
                        n
                    };
                    s.get += taken;
                    if s.get >= s.text.len() {
                        s.eof = true;
                    }
                    Some(Value::Int(
                        match (n, integer_of(*sc, negative, magnitude)) {
                            (0, _) | (_, Parsed::Invalid) => {
                                s.fail = true;
                                0
                            }
                            (_, Parsed::Value(v)) => v,
                            (_, Parsed::Range(v)) => {
                                s.fail = true;
                                v
                            }
                        },
                    ))
                }
                // A word, into a `std::string`'s characters.
                _ => {
                    let width = s.format.take_width();
                    let limit = usize::try_from(width)
                        .ok()
                        .filter(|w| *w > 0)
                        .unwrap_or(usize::MAX);
                    let rest = &s.text[s.get..];
                    let n = rest
                        .iter()
                        .take(limit)
                        .position(|&b| is_space(b))
                        .unwrap_or(rest.len().min(limit));
                    let word = rest[..n].to_vec();
                    s.get += n;
                    if s.get >= s.text.len() {
                        s.eof = true;
                    }
                    drop(s);
                    if target.ty == Type::WideStr {
                        Some(Value::Str(Rc::new(word)))
                    } else {
                        Some(self.chars_value(word, span)?)
                    }
                }
            }
        };
        if let Some(v) = read {
            self.write(&place, v, span)?;
        }
        Ok(())
    }

    /// A `std::vector<char>` holding `text` and a zero: a `std::string`'s
    /// characters.
    fn chars_value(&mut self, text: Vec<u8>, span: Span) -> Res<Value> {
        let mut data: Vec<Value> = text
            .into_iter()
            .map(|b| Value::Int(i64::from(b as i8)))
            .collect();
        data.push(Value::Int(0));
        let storage = self.storage_of(
            data,
            &Type::Scalar(Scalar::Char),
            crate::value::StorageKind::Vector,
            span,
        )?;
        Ok(Value::Vector(storage))
    }

    /// `std::stoi(s, idx, base)` and its family: the one place a bad
    /// text is reported, naming the exception C++ throws.
    fn string_to_number(&mut self, name: &str, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        let text = chars_bytes(&self.eval(&args[0])?);
        let idx = self.eval(&args[1])?;
        let base = self.eval(&args[2])?.int();
        let skipped = text.iter().take_while(|b| is_space(**b)).count();
        let rest = &text[skipped..];
        let (n, value) = match e.ty {
            Type::Scalar(s) if s.is_floating() => {
                let n = float_text(rest);
                match float_of(s, &rest[..n]) {
                    Parsed::Value(v) => (n, scalar_value(s, v)),
                    Parsed::Invalid => return Err(self.stdexcept_error(INVALID, name, span)),
                    Parsed::Range(_) => return Err(self.stdexcept_error(RANGE, name, span)),
                }
            }
            Type::Scalar(s) => {
                let Some(base) = u32::try_from(base)
                    .ok()
                    .filter(|b| *b == 0 || (2..=36).contains(b))
                else {
                    return Err(self.error(
                        codes::R0007,
                        span,
                        format!("`std::{name}` with base {base}: a base is 0 or 2 to 36"),
                    ));
                };
                let (n, negative, magnitude) = integer_text(rest, base);
                if n == 0 {
                    return Err(self.stdexcept_error(INVALID, name, span));
                }
                // `stoi` reads a `long` and then checks it fits in `int`;
                // `stoul` and `stoull` take a negated value modulo their range.
                let read_as = match s {
                    Scalar::Int => Scalar::Long,
                    other => other,
                };
                let v = match integer_of(read_as, negative, magnitude) {
                    Parsed::Value(v) => v,
                    _ => return Err(self.stdexcept_error(RANGE, name, span)),
                };
                let (lo, hi) = s.int_range();
                if s == Scalar::Int && (v < lo || v > hi) {
                    return Err(self.stdexcept_error(RANGE, name, span));
                }
                (n, Value::Int(v))
            }
            _ => (0, Value::Int(0)),
        };
        if !matches!(&idx, Value::Ptr(p) if p.is_null()) && matches!(idx, Value::Ptr(_)) {
            let at = self.deref_place(&idx, span)?;
            self.write(&at, Value::Int((skipped + n) as i64), span)?;
        }
        Ok(value)
    }

    /// A library function failing where C++ throws `exception` (a class of
    /// `<stdexcept>`) with `what()` being the function's name, as
    /// libstdc++'s `std::stoi` does: a handler for the class (or a base)
    /// catches it; uncaught, it ends the run as any uncaught exception.
    fn stdexcept_error(&self, exception: StdExcept, what: &str, span: Span) -> Stop {
        let (class, why) = match exception {
            StdExcept::InvalidArgument => {
                ("invalid_argument", "the text does not start with a number")
            }
            StdExcept::OutOfRange => ("out_of_range", "the number is out of the range of its type"),
        };
        crate::exceptions::std_exception(
            self,
            span,
            class,
            what.to_string(),
            format!("`std::{what}` throws `std::{class}` here: {why}"),
            format!("catch `std::{class}` (or `std::exception`) where the text is read"),
        )
    }
}

/// A format member function (`Intrinsic::StreamFormat`) on `f` with its
/// arguments (all integers): the value before the call, as C++ answers.
fn format_member(f: &mut StreamFormat, member: StreamMember, args: &[i64]) -> Value {
    // The checker made the arguments `long` (a `std::streamsize`) or `int`
    // (flags, a fill character), so the narrowing casts keep their values.
    match (member, args) {
        (StreamMember::Precision, []) => Value::Int(f.precision()),
        (StreamMember::Precision, [n, ..]) => Value::Int(f.set_precision(*n)),
        (StreamMember::Width, []) => Value::Int(f.width()),
        (StreamMember::Width, [n, ..]) => Value::Int(f.set_width(*n)),
        // The fill is a C++ `char`: its byte, signed.
        (StreamMember::Fill, []) => Value::Int(i64::from(f.fill() as i8)),
        (StreamMember::Fill, [c, ..]) => Value::Int(i64::from(f.set_fill(*c as u8) as i8)),
        (StreamMember::Flags, []) => Value::Int(i64::from(f.flags())),
        (StreamMember::Flags, [v, ..]) => Value::Int(i64::from(f.set_flags(*v as i32))),
        (StreamMember::Setf | StreamMember::SetfMasked, [v]) => {
            Value::Int(i64::from(f.setf(*v as i32)))
        }
        (StreamMember::Setf | StreamMember::SetfMasked, [v, mask, ..]) => {
            Value::Int(i64::from(f.setf_masked(*v as i32, *mask as i32)))
        }
        (StreamMember::Unsetf, [mask, ..]) => {
            f.unsetf(*mask as i32);
            Value::Void
        }
        (StreamMember::Setf | StreamMember::SetfMasked | StreamMember::Unsetf, []) => Value::Void,
    }
}

/// The exceptions of `<stdexcept>` a library function of this module
/// throws in C++.
#[derive(Clone, Copy, Debug)]
enum StdExcept {
    /// `std::invalid_argument`.
    InvalidArgument,
    /// `std::out_of_range`.
    OutOfRange,
}

use StdExcept::{InvalidArgument as INVALID, OutOfRange as RANGE};
