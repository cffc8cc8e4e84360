//! `#if` expressions: a macro-expanded directive line evaluated in `i64`
//! with C's precedence.

use super::{ExprError, MAX_EXPR_DEPTH, is_keyword};
use crate::files::Files;
use crate::lexer::Token;
use crate::token::Tok;
use tessera_diagnostics::Span;

/// Evaluates a macro-expanded `#if` line in `i64`, with C's precedence.
///
/// `eval` is false in operands that C does not evaluate (`0 && x`, the
/// untaken side of `?:`), so that `0 && 1 / 0` is not an error.
pub(super) struct ExprParser<'t, 's> {
    /// The line's tokens, macros expanded.
    pub(super) toks: &'t [Token<'s>],
    /// The next token to read.
    pub(super) pos: usize,
    /// Nesting so far (bounded by `MAX_EXPR_DEPTH`).
    pub(super) depth: u32,
    /// Where positions lie.
    pub(super) file: Files<'t, 's>,
    /// Where a missing operand is reported: the end of the line.
    pub(super) end: Span,
}

type Eval = Result<i64, ExprError>;

impl<'s> ExprParser<'_, 's> {
    pub(super) fn peek(&self) -> Option<Token<'s>> {
        self.toks.get(self.pos).copied()
    }

    pub(super) fn error(&self, at: Option<Token<'s>>, message: String, label: &str) -> ExprError {
        ExprError {
            span: at.map_or(self.end, |t| t.span(self.file)),
            message,
            label: label.to_string(),
        }
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return Err(self.error(
                self.peek(),
                "`#if` expression nested too deeply".to_string(),
                "too many nested parentheses or operators",
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// `c ? a : b` (right-associative) or a binary expression.
    pub(super) fn conditional(&mut self, eval: bool) -> Eval {
        self.enter()?;
        let c = self.binary(1, eval)?;
        let value = match self.peek() {
            Some(t) if t.tok == Tok::Question => {
                self.pos += 1;
                let a = self.conditional(eval && c != 0)?;
                match self.peek() {
                    Some(t) if t.tok == Tok::Colon => self.pos += 1,
                    other => {
                        return Err(self.error(
                            other,
                            "expected `:` in `?:` expression".to_string(),
                            "expected `:`",
                        ));
                    }
                }
                let b = self.conditional(eval && c == 0)?;
                if c != 0 { a } else { b }
            }
            _ => c,
        };
        self.leave();
        Ok(value)
    }

    /// Precedence climbing over the binary operators binding at least as
    /// tightly as `min`; the recursion is at most one level per precedence.
    fn binary(&mut self, min: u8, eval: bool) -> Eval {
        let mut lhs = self.unary(eval)?;
        while let Some(op) = self.peek() {
            let Some(prec) = precedence(&op.tok) else {
                break;
            };
            if prec < min {
                break;
            }
            self.pos += 1;
            let rhs_eval = match op.tok {
                Tok::AndAnd => eval && lhs != 0,
                Tok::OrOr => eval && lhs == 0,
                _ => eval,
            };
            let rhs = self.binary(prec + 1, rhs_eval)?;
            lhs = self.apply(op, lhs, rhs, eval)?;
        }
        Ok(lhs)
    }

    fn apply(&self, op: Token<'s>, a: i64, b: i64, eval: bool) -> Eval {
        let truth = |x: bool| i64::from(x);
        Ok(match op.tok {
            Tok::Star => a.wrapping_mul(b),
            Tok::Slash | Tok::Percent if b == 0 => {
                if eval {
                    return Err(self.error(
                        Some(op),
                        "division by zero in `#if`".to_string(),
                        "division by zero",
                    ));
                }
                0
            }
            Tok::Slash => a.wrapping_div(b),
            Tok::Percent => a.wrapping_rem(b),
            Tok::Plus => a.wrapping_add(b),
            Tok::Minus => a.wrapping_sub(b),
            Tok::Shl => shift_left(a, b),
            Tok::Shr => shift_right(a, b),
            Tok::Lt => truth(a < b),
            Tok::Le => truth(a <= b),
            Tok::Gt => truth(a > b),
            Tok::Ge => truth(a >= b),
            Tok::EqEq => truth(a == b),
            Tok::NotEq => truth(a != b),
            Tok::Amp => a & b,
            Tok::Caret => a ^ b,
            Tok::Pipe => a | b,
            Tok::AndAnd => truth(a != 0 && b != 0),
            Tok::OrOr => truth(a != 0 || b != 0),
            _ => 0,
        })
    }

    fn unary(&mut self, eval: bool) -> Eval {
        self.enter()?;
        let value = match self.peek() {
            Some(t) if matches!(t.tok, Tok::Bang | Tok::Tilde | Tok::Minus | Tok::Plus) => {
                self.pos += 1;
                let v = self.unary(eval)?;
                match t.tok {
                    Tok::Bang => i64::from(v == 0),
                    Tok::Tilde => !v,
                    Tok::Minus => v.wrapping_neg(),
                    _ => v,
                }
            }
            _ => self.primary(eval)?,
        };
        self.leave();
        Ok(value)
    }

    fn primary(&mut self, eval: bool) -> Eval {
        let Some(t) = self.peek() else {
            return Err(self.error(
                None,
                "expected a value at the end of the `#if` expression".to_string(),
                "expected a value here",
            ));
        };
        self.pos += 1;
        match t.tok {
            Tok::Int(s) => parse_int(s).ok_or_else(|| {
                self.error(
                    Some(t),
                    format!("invalid integer constant `{s}` in `#if`"),
                    "not a valid integer, or too large for 64 bits",
                )
            }),
            Tok::Char(s) => parse_char(s).ok_or_else(|| {
                self.error(
                    Some(t),
                    format!("unsupported character constant {s} in `#if`"),
                    "expected a single character",
                )
            }),
            Tok::True => Ok(1),
            Tok::False => Ok(0),
            Tok::Ident("defined") => Err(self.error(
                Some(t),
                "`defined` must be followed by a macro name".to_string(),
                "write `defined NAME` or `defined(NAME)`",
            )),
            // As in C, an identifier left after expansion is 0.
            Tok::Ident(_) => Ok(0),
            k if is_keyword(&k) => Ok(0),
            Tok::LParen => {
                let v = self.conditional(eval)?;
                match self.peek() {
                    Some(close) if close.tok == Tok::RParen => {
                        self.pos += 1;
                        Ok(v)
                    }
                    other => Err(self.error(
                        other,
                        "expected `)` in `#if` expression".to_string(),
                        "expected `)` to close the parenthesis",
                    )),
                }
            }
            Tok::Float(_) => Err(self.error(
                Some(t),
                "floating-point constant in `#if`".to_string(),
                "`#if` takes integer expressions only",
            )),
            Tok::Str(_) => Err(self.error(
                Some(t),
                "string literal in `#if`".to_string(),
                "`#if` takes integer expressions only",
            )),
            other => Err(self.error(
                Some(t),
                format!(
                    "expected a value in `#if` expression, found {}",
                    other.describe()
                ),
                "expected a value",
            )),
        }
    }
}

/// Binding strength of a binary operator in `#if` (higher binds tighter).
fn precedence(tok: &Tok<'_>) -> Option<u8> {
    Some(match tok {
        Tok::Star | Tok::Slash | Tok::Percent => 10,
        Tok::Plus | Tok::Minus => 9,
        Tok::Shl | Tok::Shr => 8,
        Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge => 7,
        Tok::EqEq | Tok::NotEq => 6,
        Tok::Amp => 5,
        Tok::Caret => 4,
        Tok::Pipe => 3,
        Tok::AndAnd => 2,
        Tok::OrOr => 1,
        _ => return None,
    })
}

/// `a << b`, total: C leaves big and negative shifts undefined; here a
/// negative count shifts the other way and 64 or more gives 0 (or the sign).
fn shift_left(a: i64, b: i64) -> i64 {
    match b {
        0..=63 => a.wrapping_shl(b as u32),
        64.. => 0,
        _ => shift_right(a, b.saturating_neg()),
    }
}

/// `a >> b` (arithmetic), total like [`shift_left`].
fn shift_right(a: i64, b: i64) -> i64 {
    match b {
        0..=63 => a >> b,
        64.. => a >> 63,
        _ => shift_left(a, b.saturating_neg()),
    }
}

/// The value of an integer literal: decimal, `0x` hex, `0b` binary or
/// leading-`0` octal, with `u`/`l` suffixes ignored. `None` if it does not fit in 64 bits.
fn parse_int(s: &str) -> Option<i64> {
    let digits = s.trim_end_matches(['u', 'U', 'l', 'L']);
    let (radix, body) = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, hex)
    } else if let Some(bin) = digits
        .strip_prefix("0b")
        .or_else(|| digits.strip_prefix("0B"))
    {
        (2, bin)
    } else if let Some(oct) = digits.strip_prefix('0').filter(|o| !o.is_empty()) {
        (8, oct)
    } else {
        (10, digits)
    };
    // `from_str_radix` would accept a sign; a literal never has one.
    if body.starts_with(['+', '-']) {
        return None;
    }
    // Unsigned constants above `i64::MAX` wrap, like the rest of the arithmetic.
    u64::from_str_radix(body, radix).ok().map(|v| v as i64)
}

/// The value of a one-character literal such as `'a'` or `'\n'`.
fn parse_char(s: &str) -> Option<i64> {
    let inner = s
        .strip_prefix('L')
        .unwrap_or(s)
        .strip_prefix('\'')?
        .strip_suffix('\'')?;
    let mut chars = inner.chars();
    let value = match chars.next()? {
        '\\' => {
            let esc = chars.next()?;
            match esc {
                'n' => 10,
                't' => 9,
                'r' => 13,
                'a' => 7,
                'b' => 8,
                'f' => 12,
                'v' => 11,
                '\\' | '\'' | '"' | '?' => u32::from(esc),
                'x' => {
                    let hex: String = chars.by_ref().collect();
                    return u32::from_str_radix(&hex, 16).ok().map(i64::from);
                }
                '0'..='7' => {
                    let oct: String = std::iter::once(esc).chain(chars.by_ref()).collect();
                    return (oct.len() <= 3)
                        .then(|| u32::from_str_radix(&oct, 8).ok().map(i64::from))
                        .flatten();
                }
                _ => return None,
            }
        }
        c => u32::from(c),
    };
    chars.next().is_none().then_some(i64::from(value))
}
