//! Diagnostics as JSON, one object per line, for tools.
//!
//! The schema is documented in `docs/diagnostics-json.md`. It is stable: later
//! versions may add fields, but never remove, rename or retype one, so
//! consumers should ignore fields they do not know.

use crate::render::clamp_range;
use crate::{Code, Diagnostic, Severity, Sources, Span};
use serde::Serialize;

/// Name given for a span whose file is not part of the [`Sources`].
const UNKNOWN_FILE: &str = "<unknown>";

/// One diagnostic as a single line of JSON (no trailing newline).
///
/// Byte offsets are clamped into the file and onto character boundaries, so
/// `text[start..end]` is always valid for a consumer holding the same text.
/// Lines and columns are 1-based, with columns counted in characters; the
/// `end_line`/`end_column` pair is the position just past the span.
pub fn to_json(diag: &Diagnostic, sources: &Sources) -> String {
    let primary = Located::new(sources, diag.primary.span);
    let object = JsonDiagnostic {
        code: diag.code,
        severity: diag.severity,
        message: &diag.message,
        file: primary.file,
        span: primary.span,
        label: &diag.primary.message,
        secondary: diag
            .secondary
            .iter()
            .map(|label| {
                let at = Located::new(sources, label.span);
                JsonLabel {
                    file: at.file,
                    span: at.span,
                    message: &label.message,
                }
            })
            .collect(),
        notes: &diag.notes,
        help: diag.help.as_deref(),
        msvc: diag.msvc(),
    };
    // Serialising these plain structs cannot fail; the fallback is only there
    // so that no input can ever make this function panic.
    serde_json::to_string(&object).unwrap_or_else(|_| {
        serde_json::json!({
            "code": diag.code.as_str(),
            "severity": severity_name(diag.severity),
            "message": diag.message,
        })
        .to_string()
    })
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// The top-level object.
#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: Code,
    severity: Severity,
    message: &'a str,
    file: &'a str,
    span: JsonSpan,
    label: &'a str,
    secondary: Vec<JsonLabel<'a>>,
    notes: &'a [String],
    help: Option<&'a str>,
    /// The MSVC error it stands for, e.g. `"C3581"` (absent when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    msvc: Option<&'static str>,
}

/// A secondary label.
#[derive(Serialize)]
struct JsonLabel<'a> {
    file: &'a str,
    span: JsonSpan,
    message: &'a str,
}

/// Where a span is, in bytes and in lines and columns.
#[derive(Serialize)]
struct JsonSpan {
    start: usize,
    end: usize,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
}

/// A span resolved against the sources.
struct Located<'a> {
    file: &'a str,
    span: JsonSpan,
}

impl<'a> Located<'a> {
    fn new(sources: &'a Sources, span: Span) -> Self {
        let file = sources.get(span.file);
        let text = file.map_or("", |f| f.text.as_str());
        let range = clamp_range(text, span.range());
        let offset = |at: usize| u32::try_from(at).unwrap_or(u32::MAX);
        let (line, column) = sources.line_col(span.file, offset(range.start));
        let (end_line, end_column) = sources.line_col(span.file, offset(range.end));
        Located {
            file: file.map_or(UNKNOWN_FILE, |f| f.name.as_str()),
            span: JsonSpan {
                start: range.start,
                end: range.end,
                line,
                column,
                end_line,
                end_column,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FileId, SourceFile, codes};
    use serde_json::Value;

    fn sources_with(name: &str, text: &str) -> (Sources, FileId) {
        let mut sources = Sources::new();
        let id = sources.add(SourceFile {
            name: name.to_owned(),
            text: text.to_owned(),
        });
        (sources, id)
    }

    #[test]
    fn round_trips_with_documented_fields() {
        let text = "void f() {\n  int é = 1\n  g();\n}\n";
        let (sources, file) = sources_with("dir/x.amp", text);
        let at = text.find("1\n").map_or(0, |i| i + 1);
        let g = text.find("g()").unwrap_or(0);
        let diag = Diagnostic::error(codes::E0101, Span::new(file, at..at), "expected `;`")
            .with_label("add `;` here")
            .with_secondary(Span::new(file, g..g + 3), "next statement")
            .with_note("first note")
            .with_note("second \"note\"\nwith a newline")
            .with_help("insert `;`");
        let line = to_json(&diag, &sources);
        assert!(!line.contains('\n'), "{line}");

        let value: Value = match serde_json::from_str(&line) {
            Ok(value) => value,
            Err(e) => panic!("not JSON: {e}: {line}"),
        };
        assert_eq!(value["code"], "E0101");
        assert_eq!(value["severity"], "error");
        assert_eq!(value["message"], "expected `;`");
        assert_eq!(value["file"], "dir/x.amp");
        assert_eq!(value["label"], "add `;` here");
        let span = &value["span"];
        assert_eq!(span["start"], at);
        assert_eq!(span["end"], at);
        // "  int é = 1": the é is two bytes but one column.
        assert_eq!(span["line"], 2);
        assert_eq!(span["column"], 12);
        assert_eq!(span["end_line"], 2);
        assert_eq!(span["end_column"], 12);

        let secondary = &value["secondary"][0];
        assert_eq!(secondary["file"], "dir/x.amp");
        assert_eq!(secondary["message"], "next statement");
        assert_eq!(secondary["span"]["start"], g);
        assert_eq!(secondary["span"]["end"], g + 3);
        assert_eq!(secondary["span"]["line"], 3);
        assert_eq!(secondary["span"]["column"], 3);
        assert_eq!(secondary["span"]["end_column"], 6);

        assert_eq!(value["notes"][0], "first note");
        assert_eq!(value["notes"][1], "second \"note\"\nwith a newline");
        assert_eq!(value["help"], "insert `;`");

        let mut keys: Vec<&str> = value
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "code",
                "file",
                "help",
                "label",
                "message",
                "notes",
                "secondary",
                "severity",
                "span"
            ]
        );
    }

    #[test]
    fn documented_example() {
        // The example of docs/diagnostics-json.md.
        let (sources, file) =
            sources_with("main.amp", "void f() {\n    int x = 1\n    x = 2;\n}\n");
        let diag = Diagnostic::error(codes::E0101, Span::new(file, 24..24), "expected `;`")
            .with_label("add `;` here")
            .with_secondary(Span::new(file, 29..30), "next statement starts here")
            .with_note("a statement ends with `;`")
            .with_help("insert `;` after `1`");
        let expected = concat!(
            r#"{"code":"E0101","severity":"error","message":"expected `;`","file":"main.amp","#,
            r#""span":{"start":24,"end":24,"line":2,"column":14,"end_line":2,"end_column":14},"#,
            r#""label":"add `;` here","secondary":[{"file":"main.amp","#,
            r#""span":{"start":29,"end":30,"line":3,"column":5,"end_line":3,"end_column":6},"#,
            r#""message":"next statement starts here"}],"notes":["a statement ends with `;`"],"#,
            r#""help":"insert `;` after `1`"}"#,
        );
        assert_eq!(to_json(&diag, &sources), expected);
    }

    #[test]
    fn warning_without_help_or_notes() {
        let (sources, file) = sources_with("w.amp", "#define A 1\n#define A 2\n");
        let diag = Diagnostic::warning(codes::W0058, Span::new(file, 20..21), "macro redefined");
        let value: Value = serde_json::from_str(&to_json(&diag, &sources)).unwrap_or_default();
        assert_eq!(value["severity"], "warning");
        assert_eq!(value["code"], "W0058");
        assert_eq!(value["help"], Value::Null);
        assert_eq!(value["notes"], serde_json::json!([]));
        assert_eq!(value["secondary"], serde_json::json!([]));
        assert_eq!(value["label"], "");
    }

    #[test]
    fn out_of_range_spans_are_clamped() {
        let (sources, file) = sources_with("c.amp", "ab\né");
        let diag = Diagnostic::error(codes::E0103, Span::new(file, 4..99), "unexpected end")
            .with_secondary(Span::new(FileId(9), 1..2), "nowhere");
        let value: Value = serde_json::from_str(&to_json(&diag, &sources)).unwrap_or_default();
        assert_eq!(value["span"]["start"], 3);
        assert_eq!(value["span"]["end"], 5);
        assert_eq!(value["span"]["line"], 2);
        assert_eq!(value["span"]["column"], 1);
        assert_eq!(value["span"]["end_column"], 2);
        assert_eq!(value["secondary"][0]["file"], "<unknown>");
        assert_eq!(value["secondary"][0]["span"]["start"], 0);
        assert_eq!(value["secondary"][0]["span"]["line"], 1);
    }
}
