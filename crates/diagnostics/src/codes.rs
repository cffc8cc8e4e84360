//! The registry of diagnostic codes.
//!
//! Codes are stable: once released, a code keeps its meaning forever and is
//! never reused. They are grouped by the phase that reports them:
//!
//! | range | phase |
//! | --- | --- |
//! | `E0001`-`E0049` | lexing (characters, literals, comments) |
//! | `E0050`-`E0099` | preprocessing (`#include`, `#define`, `#if`) |
//! | `E0100`-`E0199` | parsing |
//!
//! Every code has a page `docs/errors/CODE.md`, embedded here so that
//! `tessera explain CODE` works from an installed binary. Warnings use `W`
//! with the same ranges.

use serde::Serialize;
use std::fmt;

/// A stable diagnostic code such as `E0101`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Code(&'static str);

impl Code {
    /// The code as text, e.g. `"E0101"`.
    pub fn as_str(self) -> &'static str {
        self.0
    }

    /// The registry entry of this code.
    pub fn info(self) -> Option<&'static CodeInfo> {
        REGISTRY.iter().find(|info| info.code == self)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The compiler phase a code belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Turning bytes into tokens.
    Lex,
    /// Directives and macro expansion.
    Preprocess,
    /// Turning tokens into a syntax tree.
    Parse,
}

/// What the registry knows of a code.
#[derive(Debug)]
pub struct CodeInfo {
    /// The code.
    pub code: Code,
    /// The phase that reports it.
    pub phase: Phase,
    /// A short title.
    pub title: &'static str,
    /// The Markdown page that `tessera explain` prints.
    pub explanation: &'static str,
}

/// Looks a code up by its text, case-insensitively (`e0101` finds `E0101`).
pub fn lookup(text: &str) -> Option<&'static CodeInfo> {
    REGISTRY
        .iter()
        .find(|info| info.code.0.eq_ignore_ascii_case(text.trim()))
}

macro_rules! registry {
    ($($name:ident, $phase:ident, $title:literal;)*) => {
        $(
            #[doc = $title]
            pub const $name: Code = Code(stringify!($name));
        )*
        /// Every code, in order.
        pub static REGISTRY: &[CodeInfo] = &[
            $(CodeInfo {
                code: $name,
                phase: Phase::$phase,
                title: $title,
                explanation: include_str!(concat!("../../../docs/errors/", stringify!($name), ".md")),
            },)*
        ];
    };
}

registry! {
    E0001, Lex, "invalid character in source";
    E0002, Lex, "source is not valid UTF-8";
    E0003, Lex, "unterminated block comment";
    E0004, Lex, "unterminated string or character literal";
    E0005, Lex, "malformed number literal";
    E0006, Lex, "invalid escape sequence";
    E0007, Lex, "source file too large";
    E0050, Preprocess, "unknown header";
    E0051, Preprocess, "malformed preprocessor directive";
    E0052, Preprocess, "unterminated conditional block";
    E0053, Preprocess, "conditional directive without `#if`";
    E0054, Preprocess, "wrong number of macro arguments";
    E0055, Preprocess, "macro expansion too large";
    E0056, Preprocess, "invalid `#if` expression";
    E0057, Preprocess, "`#error` directive";
    W0058, Preprocess, "macro redefined with a different body";
    E0100, Parse, "unexpected token";
    E0101, Parse, "expected `;`";
    E0102, Parse, "unclosed delimiter";
    E0103, Parse, "unexpected end of file";
    E0104, Parse, "nesting too deep";
    E0105, Parse, "invalid type specifiers";
    E0106, Parse, "unsupported C++ construct";
    E0107, Parse, "mismatched closing delimiter";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_starts_with_its_code_and_title() {
        for info in REGISTRY {
            let first = info.explanation.lines().next().unwrap_or("");
            let expected = format!("# {}: {}", info.code, info.title);
            assert_eq!(first, expected, "docs/errors/{}.md", info.code);
            for section in ["\n## Example\n", "\n## Fix\n", "```amp\n"] {
                assert!(
                    info.explanation.contains(section),
                    "docs/errors/{}.md lacks {section:?}",
                    info.code
                );
            }
        }
    }

    #[test]
    fn lookup_ignores_case() {
        assert_eq!(lookup("e0101").map(|info| info.code), Some(E0101));
        assert!(lookup("E9999").is_none());
    }
}
