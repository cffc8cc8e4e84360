//! The C library: `printf` and the other `<cstdio>` output functions,
//! `rand`/`srand`, `exit`, `abort` and `assert`.
//!
//! `stdout` is the buffer `std::cout` writes to, so C and C++ output keep
//! their order. What the program writes to `stderr` is kept apart and handed
//! back with the outcome (the interpreter does no IO of its own).

use crate::arith;
use crate::machine::{Machine, Res};
use crate::value::Value;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Expr, ExprKind, Intrinsic, OutStream, Scalar, Type};
use tessera_runtime::printf;
use tessera_runtime::rand::Rand;

/// The C library's state in a run.
#[derive(Debug, Default)]
pub(crate) struct CState {
    /// `rand`'s generator.
    pub(crate) rand: Rand,
    /// Bytes written to `stderr`.
    pub(crate) stderr: Vec<u8>,
    /// `std::cerr`'s formatting state (its flags are its own, apart from
    /// `std::cout`'s).
    pub(crate) err_format: tessera_runtime::format::StreamFormat,
    /// `std::wcerr`'s.
    pub(crate) wide_err_format: tessera_runtime::format::StreamFormat,
    /// Set by `exit(status)`: the run is stopping with this status, not
    /// failing (the error that unwinds the interpreter is dropped).
    pub(crate) exit: Option<i32>,
    /// When the run started, for `clock()`.
    pub(crate) started: Started,
}

/// The moment a run's C library state was made: `clock()` counts from it.
#[derive(Debug)]
pub(crate) struct Started(std::time::Instant);

impl Default for Started {
    fn default() -> Self {
        Started(std::time::Instant::now())
    }
}

/// Nanoseconds on the monotonic clock, from a start fixed for the process
/// (libstdc++'s `steady_clock` counts from the machine's boot, which no
/// program can rely on either), or on the system clock since 1970.
fn clock_nanos(steady: bool) -> i64 {
    use std::sync::OnceLock;
    use std::time::{Instant, SystemTime, UNIX_EPOCH};
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    let nanos = if steady {
        // Offset by a second, so that no reading is zero.
        ORIGIN.get_or_init(Instant::now).elapsed().as_nanos() + 1_000_000_000
    } else {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    };
    i64::try_from(nanos).unwrap_or(i64::MAX)
}

impl CState {
    /// The format of `std::cerr`, or of `std::wcerr` when `wide`.
    pub(crate) fn err_format(&mut self, wide: bool) -> &mut tessera_runtime::format::StreamFormat {
        if wide {
            &mut self.wide_err_format
        } else {
            &mut self.err_format
        }
    }
}

/// Output past which a write is held to the memory and time limits before
/// the text is built.
const LARGE_OUTPUT: u64 = 1 << 16;

impl Machine<'_> {
    /// Runs a C library intrinsic.
    pub(crate) fn clib(&mut self, op: &Intrinsic, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        match op {
            Intrinsic::Printf(stream) => self.printf(*stream, args, span),
            Intrinsic::Sprintf { bounded } => self.sprintf(*bounded, args, span),
            Intrinsic::Puts { stream, newline } => {
                let v = self.eval(&args[0])?;
                let mut bytes = match v {
                    Value::Str(s) => s.to_vec(),
                    Value::Ptr(_) => self.c_string(&v, span)?,
                    _ => Vec::new(),
                };
                if *newline {
                    bytes.push(b'\n');
                }
                self.write_c(*stream, &bytes, span)?;
                // glibc's `puts` returns a non-negative number on success: the bytes written.
                Ok(Value::Int(bytes.len() as i64))
            }
            Intrinsic::Putchar(stream) => {
                let c = self.eval(&args[0])?.int() as u8;
                self.write_c(*stream, &[c], span)?;
                Ok(Value::Int(i64::from(c)))
            }
            Intrinsic::Fflush(stream) => {
                if *stream == OutStream::Stdout {
                    self.flush();
                }
                Ok(Value::Int(0))
            }
            Intrinsic::Rand => Ok(Value::Int(i64::from(self.clib.rand.rand()))),
            // The run's elapsed time stands for the processor time glibc's
            // `clock()` reports: the interpreter runs the program on one
            // thread, so the two differ by what the process waits for.
            Intrinsic::Clock => {
                let micros = self.clib.started.0.elapsed().as_micros();
                Ok(Value::Int(i64::try_from(micros).unwrap_or(i64::MAX)))
            }
            Intrinsic::Time => Ok(Value::Int(clock_nanos(false) / 1_000_000_000)),
            Intrinsic::ClockNanos { steady } => Ok(Value::Int(clock_nanos(*steady))),
            Intrinsic::Srand => {
                let seed = self.eval(&args[0])?.int() as u32;
                self.clib.rand = Rand::seeded(seed);
                Ok(Value::Void)
            }
            Intrinsic::Exit => {
                let status = self.eval(&args[0])?.int() as i32;
                self.clib.exit = Some(status);
                Err(self.error(codes::R0012, span, format!("exit({status})")))
            }
            Intrinsic::Abort => Err(self
                .error(codes::R0021, span, "the program called `abort()`")
                .with_label("aborted here")
                .with_help("to end the program with a status of your choosing, call `exit(status)`")
                .into()),
            Intrinsic::Assert(function) => {
                if self.eval(&args[0])?.truth() {
                    return Ok(Value::Void);
                }
                Err(self
                    .error(
                        codes::R0020,
                        span,
                        format!("assertion failed in `{function}`"),
                    )
                    .with_label("this condition is false")
                    .with_note(format!(
                        "C++ prints `{function}: Assertion ... failed.` and aborts here"
                    ))
                    .into())
            }
            _ => Ok(Value::Void),
        }
    }

    /// Writes C output to `stream`.
    fn write_c(&mut self, stream: OutStream, bytes: &[u8], span: Span) -> Res<()> {
        match stream {
            OutStream::Stdout => {
                self.out.extend_from_slice(bytes);
                if self.out.len() > 1 << 16 {
                    self.flush();
                }
            }
            OutStream::Stderr => {
                // Kept until the run ends, so it counts as memory in use.
                self.take_memory(bytes.len() as u64, span)?;
                self.clib.stderr.extend_from_slice(bytes);
            }
        }
        Ok(())
    }

    /// `printf`/`fprintf`: args `[format, values...]`.
    fn printf(&mut self, stream: OutStream, args: &[Expr], span: Span) -> Res<Value> {
        let text = self.formatted(args, span)?;
        self.write_c(stream, &text, span)?;
        Ok(Value::Int(text.len().min(i32::MAX as usize) as i64))
    }

    /// `sprintf(buffer, ...)` / `snprintf(buffer, size, ...)`: the text
    /// (cut to `size - 1` bytes for `snprintf`) and a zero, written through
    /// the buffer pointer with every byte checked; the result is the whole
    /// text's length, as C returns it.
    fn sprintf(&mut self, bounded: bool, args: &[Expr], span: Span) -> Res<Value> {
        let Some(buffer) = args.first() else {
            return Ok(Value::Int(0));
        };
        let buffer = self.eval(buffer)?;
        let (size, rest) = if bounded {
            let Some(size) = args.get(1) else {
                return Ok(Value::Int(0));
            };
            (Some(self.eval(size)?.int() as u64), &args[2..])
        } else {
            (None, &args[1..])
        };
        let text = self.formatted(rest, span)?;
        let kept = match size {
            Some(0) => None,
            Some(n) => Some(text.len().min(usize::try_from(n - 1).unwrap_or(usize::MAX))),
            None => Some(text.len()),
        };
        if let Some(kept) = kept {
            let bytes = text[..kept]
                .iter()
                .map(|&b| Value::Int(i64::from(b as i8)))
                .chain(std::iter::once(Value::Int(0)));
            self.write_pointed(&buffer, 0, bytes, span)?;
        }
        Ok(Value::Int(text.len().min(i32::MAX as usize) as i64))
    }

    /// The text a format (`args[0]`, a literal) makes of its values.
    fn formatted(&mut self, args: &[Expr], span: Span) -> Res<Vec<u8>> {
        let Some(format) = args.first() else {
            return Ok(Vec::new());
        };
        let fmt = match &format.kind {
            ExprKind::Str(bytes) => bytes.clone(),
            _ => Vec::new(),
        };
        let mut values = Vec::with_capacity(args.len().saturating_sub(1));
        for a in &args[1..] {
            let v = self.eval(a)?;
            // `%s` of a `char*`: the bytes up to its zero; `%ls` of a
            // `wchar_t*`: its characters, which glibc's "C" locale (the
            // one a program starts in) converts only when they are ASCII.
            let wide =
                matches!(&a.ty, Type::Ptr { elem, .. } if **elem == Type::Scalar(Scalar::WChar));
            let v = match v {
                Value::Ptr(_) if wide => {
                    let codes = self.zero_terminated(&v, a.span)?;
                    if let Some(c) = codes.iter().find(|c| !(0..128).contains(*c)) {
                        let stop = self.error(
                            codes::R0007,
                            a.span,
                            format!("`%ls` of the wide character {c:#x}, which is not ASCII, is not supported"),
                        );
                        return Err(Box::new((*stop).with_note("in the \"C\" locale a program starts in, glibc's `printf` fails on it (it cannot be converted to a multibyte character); write the text with `std::wcout`")));
                    }
                    Value::Str(std::rc::Rc::new(codes.iter().map(|&c| c as u8).collect()))
                }
                Value::Ptr(_) => Value::Str(std::rc::Rc::new(self.c_string(&v, a.span)?)),
                other => other,
            };
            values.push(v);
        }
        let converted: Vec<printf::Arg<'_>> = values
            .iter()
            .zip(&args[1..])
            .map(|(v, a)| match (v, &a.ty) {
                (Value::Str(s), _) => printf::Arg::Str(s.as_slice()),
                (_, Type::Scalar(Scalar::Float | Scalar::Double)) => {
                    printf::Arg::Double(arith::as_f64(v))
                }
                (_, Type::Scalar(Scalar::UInt)) => printf::Arg::Int(i64::from(v.int() as u32)),
                _ => printf::Arg::Int(v.int()),
            })
            .collect();
        // C would write a field of any width; the text is built in memory
        // first, so an absurd width or precision is held to the memory and
        // time limits like any allocation.
        let bound = printf::bound(&fmt, &converted);
        if bound > LARGE_OUTPUT {
            self.take_memory(bound, span)?;
            self.meter.give(bound);
            self.charge(bound / 64, span)?;
        }
        let mut text = Vec::new();
        printf::format(&fmt, &converted, &mut text);
        Ok(text)
    }
}
