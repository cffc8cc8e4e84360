//! Rendering diagnostics as text for people, with ariadne.
//!
//! The output looks like this (without colour):
//!
//! ```text
//! error[E0101]: expected `;`
//!    ╭─[ main.amp:2:14 ]
//!    │
//!  2 │     int x = 1
//!    │              ┬
//!    │              ╰── add `;` here
//!  3 │     x = 2;
//!    │     ┬
//!    │     ╰── next statement starts here
//!    │
//!    │ Help: insert `;` after `1`
//!    │
//!    │ Note: a statement ends with `;`
//! ───╯
//! ```
//!
//! The header line is ours (rustc's layout, `error[CODE]: message`); the rest
//! is ariadne's. The `file:line:col` after `╭─[` is where the primary label
//! starts (in an excerpt of another file: where that file's first label
//! starts), with lines and columns (in characters) as [`Sources::line_col`]
//! counts them. Help comes before notes; several notes are numbered
//! (`Note 1:`, `Note 2:`). Without colour, trailing blanks are trimmed from
//! every line.
//!
//! Whether to colour is the caller's decision (the CLI asks anstream); with
//! `color == false` the text contains no ANSI escape sequences at all.
//!
//! Rendering never panics: spans that do not fit their file (past its end, off
//! a character boundary, naming a file that is not in [`Sources`]) are clamped
//! to something displayable, and empty spans are widened by one character so
//! that ariadne has something to point at.

use crate::{Diagnostic, FileId, Label, Severity, Sources, Span};
use ariadne::{Cache, Color, Config, IndexType, ReportKind, Source};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Name shown for a span whose file is not part of the [`Sources`].
const UNKNOWN_FILE: &str = "<unknown>";

/// Colour of secondary labels (the primary one takes the severity's colour).
const SECONDARY_COLOR: Color = Color::Blue;

const ANSI_RESET: &str = "\x1b[0m";
const ANSI_BOLD: &str = "\x1b[1m";
const ANSI_BOLD_RED: &str = "\x1b[1;31m";
const ANSI_BOLD_YELLOW: &str = "\x1b[1;33m";

/// Renders one diagnostic as multi-line text ending in a newline.
///
/// The first line is `error[CODE]: message` (or `warning[CODE]: ...`),
/// followed by ariadne's source excerpt with the primary label (in the
/// severity's colour) and the secondary labels (in blue), then the help line
/// and the notes. `color` switches ANSI colours on; when it is false the
/// output is plain text.
///
/// Each call indexes the files it shows; to render many diagnostics of large
/// files, use [`render_all`] or a [`Renderer`], which index each file once.
pub fn render(diag: &Diagnostic, sources: &Sources, color: bool) -> String {
    Renderer::new(sources, color).render(diag)
}

/// Renders several diagnostics, in the order given, one after the other
/// (the concatenation of what [`render`] gives for each).
pub fn render_all<'d>(
    diags: impl IntoIterator<Item = &'d Diagnostic>,
    sources: &Sources,
    color: bool,
) -> String {
    let mut renderer = Renderer::new(sources, color);
    diags
        .into_iter()
        .map(|diag| renderer.render(diag))
        .collect()
}

/// Renders diagnostics one at a time, remembering the line index of each file
/// it has shown so that later diagnostics in the same file are cheap.
///
/// Gives exactly the same text as [`render`].
pub struct Renderer<'a> {
    cache: SourcesCache<'a>,
    color: bool,
}

impl<'a> Renderer<'a> {
    /// A renderer for diagnostics about `sources`, with or without colour.
    pub fn new(sources: &'a Sources, color: bool) -> Self {
        Renderer {
            cache: SourcesCache::new(sources),
            color,
        }
    }

    /// Renders one diagnostic; see [`render`].
    pub fn render(&mut self, diag: &Diagnostic) -> String {
        let color = self.color;
        if touches_long_line(diag, self.cache.sources) {
            return render_plain(diag, self.cache.sources, color);
        }
        let cache = &mut self.cache;
        // The span clean-up below should make ariadne safe to call; this
        // guard is a last line of defence so that a bug in the renderer can
        // never take the compiler down with it.
        match catch_unwind(AssertUnwindSafe(|| {
            render_with_ariadne(diag, &mut *cache, color)
        })) {
            Ok(Some(text)) => text,
            Ok(None) | Err(_) => render_plain(diag, self.cache.sources, color),
        }
    }
}

impl fmt::Debug for Renderer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Renderer")
            .field("color", &self.color)
            .field("indexed_files", &self.cache.files.len())
            .finish_non_exhaustive()
    }
}

/// The header line, e.g. `error[E0101]: expected `;``, with its newline.
fn header(diag: &Diagnostic, color: bool) -> String {
    let kind = match diag.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    if color {
        let paint = match diag.severity {
            Severity::Error => ANSI_BOLD_RED,
            Severity::Warning => ANSI_BOLD_YELLOW,
        };
        format!(
            "{paint}{kind}[{code}]{ANSI_RESET}{ANSI_BOLD}: {message}{ANSI_RESET}\n",
            code = diag.code,
            message = diag.message,
        )
    } else {
        format!("{kind}[{}]: {}\n", diag.code, diag.message)
    }
}

/// Renders through ariadne; `None` if ariadne reported a write error.
fn render_with_ariadne(
    diag: &Diagnostic,
    cache: &mut SourcesCache<'_>,
    color: bool,
) -> Option<String> {
    let primary = display_range(cache, diag.primary.span);
    let labels: Vec<_> = labels_in_display_order(diag)
        .into_iter()
        .map(|(label, is_primary)| (label, is_primary, display_range(cache, label.span)))
        .collect();

    let (kind, primary_color) = match diag.severity {
        Severity::Error => (ReportKind::Error, Color::Red),
        Severity::Warning => (ReportKind::Warning, Color::Yellow),
    };
    let config = Config::default()
        .with_index_type(IndexType::Char)
        .with_color(color);

    let mut builder =
        ariadne::Report::build(kind, (diag.primary.span.file, primary)).with_config(config);
    for (order, (label, is_primary, range)) in labels.into_iter().enumerate() {
        let label_color = if is_primary {
            primary_color
        } else {
            SECONDARY_COLOR
        };
        builder.add_label(make_label(
            label,
            range,
            color.then_some(label_color),
            i32::try_from(order).unwrap_or(i32::MAX),
        ));
    }
    if let Some(help) = &diag.help {
        builder = builder.with_help(help);
    }
    for note in notes(diag) {
        builder.add_note(note);
    }
    let report = builder.finish();

    let mut out = Vec::new();
    report.write(cache, &mut out).ok()?;
    let body = String::from_utf8_lossy(&out);
    // ariadne opens with its own "Error:" line (we gave it no message, so it
    // is a single line); ours, with the code in rustc's position, replaces it.
    let body = body.split_once('\n').map_or("", |(_, rest)| rest);

    let mut text = header(diag, color);
    if color {
        text.push_str(body);
    } else {
        // ariadne pads some lines with blanks; without colour nothing can
        // depend on them, and expected-output files are easier to keep
        // without trailing whitespace.
        for line in body.lines() {
            text.push_str(line.trim_end_matches(' '));
            text.push('\n');
        }
    }
    Some(text)
}

/// All labels of `diag`, flagged `true` for the primary one, in the order
/// ariadne should lay them out: the primary label's file first, then the
/// other files in order of first mention, and within a file by where the
/// labels end.
///
/// ariadne starts a new excerpt whenever a label ends on an earlier line than
/// the one before it, so this order lets the labels of one file share a
/// single excerpt.
fn labels_in_display_order(diag: &Diagnostic) -> Vec<(&Label, bool)> {
    let mut files: Vec<FileId> = Vec::new();
    let all = std::iter::once((&diag.primary, true))
        .chain(diag.secondary.iter().map(|label| (label, false)));
    let mut keyed: Vec<(usize, u32, u32, (&Label, bool))> = all
        .map(|(label, is_primary)| {
            let file = label.span.file;
            let rank = files.iter().position(|&f| f == file).unwrap_or_else(|| {
                files.push(file);
                files.len() - 1
            });
            (rank, label.span.end, label.span.start, (label, is_primary))
        })
        .collect();
    // Stable, so equal spans keep their given order (primary first).
    keyed.sort_by_key(|&(rank, end, start, _)| (rank, end, start));
    keyed.into_iter().map(|(.., entry)| entry).collect()
}

/// An ariadne label for one of ours.
fn make_label(
    label: &Label,
    range: Range<usize>,
    color: Option<Color>,
    order: i32,
) -> ariadne::Label<(FileId, Range<usize>)> {
    // ariadne draws no arrow for a label without a message, which without
    // colour would leave nothing at all to see; an empty message keeps the
    // arrow.
    let mut out = ariadne::Label::new((label.span.file, range))
        .with_order(order)
        .with_message(&label.message);
    if let Some(color) = color {
        out = out.with_color(color);
    }
    out
}

/// The range ariadne should underline for `span`, in characters.
///
/// Both ends are clamped into the file and moved onto character boundaries,
/// and an empty range is widened to the character after it (or, at the end
/// of the file, the one before it), because ariadne draws nothing for an
/// empty label. Only an empty file yields an empty range.
///
/// ariadne is given character offsets although our spans count bytes:
/// in its byte mode (0.6.0), a file excerpt other than the primary label's
/// takes a character offset for a byte offset in its `file:line:col` header,
/// which shows a wrong column and can slice inside a character. Converting
/// here keeps every offset ariadne sees in one unit.
fn display_range(cache: &mut SourcesCache<'_>, span: Span) -> Range<usize> {
    let text = cache.sources.get(span.file).map_or("", |f| f.text.as_str());
    let bytes = widen_empty(text, clamp_range(text, span.range()));
    let Ok(source) = cache.fetch(&span.file) else {
        return 0..0;
    };
    let start = char_offset(source, bytes.start);
    start..start.max(char_offset(source, bytes.end))
}

/// The character offset of a byte offset (on a character boundary) of
/// `source`, found through its line table rather than by counting from the
/// start of the file.
fn char_offset(source: &Source<Cow<'_, str>>, byte: usize) -> usize {
    let Some((line, _, byte_column)) = source.get_byte_line(byte) else {
        return source.len();
    };
    let before = source
        .get_line_text(line)
        .and_then(|text| text.get(..byte_column))
        .map_or(0, |text| text.chars().count());
    line.offset() + before
}

/// An empty (in-bounds, on-boundary) byte range widened to the character
/// after it, or failing that the one before it; other ranges unchanged.
fn widen_empty(text: &str, range: Range<usize>) -> Range<usize> {
    let Range { start, end } = range;
    if start < end {
        return start..end;
    }
    if let Some(c) = text.get(start..).and_then(|rest| rest.chars().next()) {
        return start..start + c.len_utf8();
    }
    match text
        .get(..start)
        .and_then(|before| before.chars().next_back())
    {
        Some(c) => start - c.len_utf8()..start,
        None => start..start,
    }
}

/// `range` made valid for `text`: ordered, within bounds, and on character
/// boundaries (the start moves back, the end forward).
pub(crate) fn clamp_range(text: &str, range: Range<usize>) -> Range<usize> {
    let (low, high) = if range.start <= range.end {
        (range.start, range.end)
    } else {
        (range.end, range.start)
    };
    let mut start = low.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    if low == high {
        return start..start;
    }
    let mut end = high.min(text.len()).max(start);
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// The rendering used if ariadne fails: header, location, help and notes.
fn render_plain(diag: &Diagnostic, sources: &Sources, color: bool) -> String {
    let mut text = header(diag, color);
    let span = diag.primary.span;
    let name = sources.get(span.file).map_or(UNKNOWN_FILE, |f| &f.name);
    let text_of_file = sources.get(span.file).map_or("", |f| f.text.as_str());
    let start = clamp_range(text_of_file, span.range()).start;
    let (line, column) = sources.line_col(span.file, u32::try_from(start).unwrap_or(u32::MAX));
    text.push_str(&format!("  --> {name}:{line}:{column}\n"));
    if !diag.primary.message.is_empty() {
        text.push_str(&format!("  = {}\n", diag.primary.message));
    }
    if let Some(help) = &diag.help {
        text.push_str(&format!("  = help: {help}\n"));
    }
    for note in notes(diag) {
        text.push_str(&format!("  = note: {note}\n"));
    }
    text
}

/// The notes shown for a diagnostic: its own, and for a rule of C++ AMP
/// (`E0300`-`E0499`) whose notes do not say which MSVC error it stands for,
/// that error, from the registry.
fn notes(diag: &Diagnostic) -> Vec<String> {
    let mut notes = diag.notes.clone();
    let amp_rule = diag
        .code
        .as_str()
        .get(1..)
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| (300..500).contains(&n));
    let named = notes.iter().any(|n| n.contains("MSVC"));
    if amp_rule
        && !named
        && let Some(msvc) = diag.msvc()
    {
        notes.push(format!("MSVC reports this as {msvc}"));
    }
    notes
}

/// An ariadne [`Cache`] over our [`Sources`].
///
/// Each file is indexed into lines once, on first use. Files that are not in
/// the sources show up as an empty file named `<unknown>` rather than as an
/// error (ariadne prints fetch errors to stderr).
struct SourcesCache<'a> {
    sources: &'a Sources,
    files: BTreeMap<FileId, Source<Cow<'a, str>>>,
}

impl<'a> SourcesCache<'a> {
    fn new(sources: &'a Sources) -> Self {
        SourcesCache {
            sources,
            files: BTreeMap::new(),
        }
    }
}

impl<'a> Cache<FileId> for SourcesCache<'a> {
    type Storage = Cow<'a, str>;

    fn fetch(&mut self, id: &FileId) -> Result<&Source<Cow<'a, str>>, impl fmt::Debug> {
        let sources = self.sources;
        let source = self.files.entry(*id).or_insert_with(|| {
            let text = sources.get(*id).map_or("", |f| f.text.as_str());
            Source::from(line_breaks_as_ours(text))
        });
        Ok::<_, fmt::Error>(source)
    }

    fn display<'b>(&self, id: &'b FileId) -> Option<impl fmt::Display + 'b> {
        Some(
            self.sources
                .get(*id)
                .map_or_else(|| UNKNOWN_FILE.to_owned(), |f| f.name.clone()),
        )
    }
}

/// `text` with every character that ariadne would take for a line break,
/// other than `\n`, replaced by a blank of the same length in bytes.
///
/// Our line numbers (see [`Sources::line_col`]) count only `\n`; ariadne also
/// breaks lines at `\r`, vertical tab, form feed, U+0085, U+2028 and U+2029.
/// Replacing those keeps the two in agreement while leaving every byte offset
/// and character count as it was (`\r\n` becomes ` \n`, and the trailing
/// blank is trimmed when ariadne prints the line).
///
/// Other control characters (escape, bell, NUL, ...) become a visible
/// placeholder of the same length: quoting them raw would let a source file
/// send commands to the terminal.
fn line_breaks_as_ours(text: &str) -> Cow<'_, str> {
    if !text.contains(needs_replacing) {
        return Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| match c {
            '\r' | '\x0B' | '\x0C' => ' ',
            '\u{0085}' => '\u{00A0}',
            '\u{2028}' | '\u{2029}' => '\u{2002}',
            '\n' | '\t' => c,
            c if c.is_ascii_control() => '?',
            '\u{0080}'..='\u{009F}' => '\u{00BF}',
            c if crate::source::foreign_byte(c).is_some() => char::REPLACEMENT_CHARACTER,
            other => other,
        })
        .collect::<String>()
        .into()
}

/// A line break for ariadne but not for us, or a control character.
fn needs_replacing(c: char) -> bool {
    matches!(
        c,
        '\r' | '\x0B' | '\x0C' | '\u{0085}' | '\u{2028}' | '\u{2029}'
    ) || (c.is_control() && c != '\n' && c != '\t')
        || crate::source::foreign_byte(c).is_some()
}

/// Lines longer than this are not quoted: the plain form is shown instead.
const MAX_QUOTED_LINE: usize = 1000;

/// True when a label of `diag` sits on a line too long to quote.
fn touches_long_line(diag: &Diagnostic, sources: &Sources) -> bool {
    std::iter::once(&diag.primary)
        .chain(&diag.secondary)
        .any(|label| {
            let Some(file) = sources.get(label.span.file) else {
                return false;
            };
            let text = file.text.as_bytes();
            let at = (label.span.start as usize).min(text.len());
            let before = text[..at]
                .iter()
                .rev()
                .take(MAX_QUOTED_LINE + 1)
                .take_while(|b| **b != b'\n')
                .count();
            let after = text[at..]
                .iter()
                .take(MAX_QUOTED_LINE + 1)
                .take_while(|b| **b != b'\n')
                .count();
            before + after > MAX_QUOTED_LINE
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SourceFile, codes};

    /// Renders through ariadne without the panic guard, so that a panic in
    /// ariadne fails the test instead of being papered over.
    fn strict(diag: &Diagnostic, sources: &Sources, color: bool) -> String {
        let mut cache = SourcesCache::new(sources);
        match render_with_ariadne(diag, &mut cache, color) {
            Some(text) => text,
            None => panic!("ariadne failed to write"),
        }
    }

    fn one_file(name: &str, text: &str) -> (Sources, FileId) {
        let mut sources = Sources::new();
        let id = sources.add(SourceFile {
            name: name.to_owned(),
            text: text.to_owned(),
        });
        (sources, id)
    }

    #[test]
    fn full_diagnostic_without_colour() {
        let text = "void f() {\n    int x = 1\n    x = 2;\n}\n";
        let (sources, file) = one_file("main.amp", text);
        let at = text.find("1\n").unwrap_or(0) + 1;
        let next = text.find("x = 2").unwrap_or(0);
        let diag = Diagnostic::error(codes::E0101, Span::new(file, at..at), "expected `;`")
            .with_label("add `;` here")
            .with_secondary(
                Span::new(file, next..next + 1),
                "next statement starts here",
            )
            .with_note("every statement ends with `;`")
            .with_help("insert `;` after `1`");
        let out = strict(&diag, &sources, false);

        assert!(out.starts_with("error[E0101]: expected `;`\n"), "{out}");
        assert!(out.contains("main.amp:2:14"), "{out}");
        assert!(out.contains("add `;` here"), "{out}");
        assert!(out.contains("next statement starts here"), "{out}");
        assert!(out.contains("every statement ends with `;`"), "{out}");
        assert!(out.contains("insert `;` after `1`"), "{out}");
        assert!(!out.contains('\x1b'), "{out}");
        assert!(out.ends_with('\n'));
        // Deterministic.
        assert_eq!(out, render(&diag, &sources, false));
    }

    #[test]
    fn exact_layout() {
        let text = "void f() {\n    int x = 1\n    x = 2;\n}\n";
        let (sources, file) = one_file("main.amp", text);
        let diag = Diagnostic::error(codes::E0101, Span::new(file, 24..24), "expected `;`")
            .with_label("add `;` here")
            .with_secondary(Span::new(file, 29..30), "next statement starts here")
            .with_note("a statement ends with `;`")
            .with_help("insert `;` after `1`");
        let expected = "\
error[E0101]: expected `;`
   ╭─[ main.amp:2:14 ]
   │
 2 │     int x = 1
   │              ┬
   │              ╰── add `;` here
 3 │     x = 2;
   │     ┬
   │     ╰── next statement starts here
   │
   │ Help: insert `;` after `1`
   │
   │ Note: a statement ends with `;`
───╯
";
        assert_eq!(render(&diag, &sources, false), expected);
    }

    #[test]
    fn warning_header() {
        let (sources, file) = one_file("m.amp", "#define A 1\n#define A 2\n");
        let diag =
            Diagnostic::warning(codes::W0058, Span::new(file, 20..21), "macro `A` redefined")
                .with_secondary(Span::new(file, 8..9), "first defined here");
        let out = render(&diag, &sources, false);
        assert!(
            out.starts_with("warning[W0058]: macro `A` redefined\n"),
            "{out}"
        );
        assert!(out.contains("m.amp:2:9"), "{out}");
    }

    #[test]
    fn colour_only_when_asked() {
        let (sources, file) = one_file("a.amp", "int x = 1\n");
        let diag = Diagnostic::error(codes::E0101, Span::new(file, 9..9), "expected `;`")
            .with_label("here");
        assert!(render(&diag, &sources, true).contains('\x1b'));
        assert!(!render(&diag, &sources, false).contains('\x1b'));
    }

    #[test]
    fn zero_width_span_at_end_of_file() {
        for text in ["int x = 1", "int x = 1\n", "", "\n", "x = \"é\""] {
            let (sources, file) = one_file("end.amp", text);
            let diag = Diagnostic::error(
                codes::E0101,
                Span::new(file, text.len()..text.len()),
                "expected `;`",
            )
            .with_label("add `;` here")
            .with_help("end the statement");
            let out = strict(&diag, &sources, false);
            assert!(out.starts_with("error[E0101]: expected `;`\n"), "{out}");
            assert!(out.contains("end.amp:"), "{text:?}: {out}");
            assert!(out.contains("end the statement"), "{text:?}: {out}");
        }
    }

    #[test]
    fn zero_width_span_before_newline_points_after_the_line() {
        let (sources, file) = one_file("z.amp", "int x = 1\nint y;\n");
        let diag = Diagnostic::error(codes::E0101, Span::new(file, 9..9), "expected `;`")
            .with_label("add `;` here");
        let out = render(&diag, &sources, false);
        assert!(out.contains("z.amp:1:10"), "{out}");
        assert!(out.contains("add `;` here"), "{out}");
    }

    #[test]
    fn bad_spans_do_not_panic() {
        let text = "a = \"é€\";\r\nb\tc;\u{2028}d\n";
        let (sources, file) = one_file("bad.amp", text);
        let missing = FileId(7);
        let spans = [
            (0, 1000),
            (1000, 2000),
            (u32::MAX, u32::MAX),
            (6, 5),
            (6, 6),
            (5, 7),
            (7, 8),
            (11, 11),
            (10, 11),
            (17, 19),
        ];
        for (start, end) in spans {
            for primary_file in [file, missing] {
                let span = Span {
                    file: primary_file,
                    start,
                    end,
                };
                let diag = Diagnostic::error(codes::E0100, span, "unexpected token")
                    .with_label("here")
                    .with_secondary(Span { file, start, end }, "and here")
                    .with_secondary(
                        Span {
                            file: missing,
                            ..span
                        },
                        "elsewhere",
                    )
                    .with_note("a note")
                    .with_help("a help");
                let out = strict(&diag, &sources, false);
                assert!(out.starts_with("error[E0100]: unexpected token\n"));
                assert!(out.contains("a help"), "{out}");
                let _ = strict(&diag, &sources, true);
            }
        }
    }

    #[test]
    fn every_span_of_a_tricky_file_renders() {
        let text = "é\r\n\t€x\u{85}y\u{2029}\n\n😀;";
        let (sources, file) = one_file("t.amp", text);
        for start in 0..=text.len() + 1 {
            for end in 0..=text.len() + 1 {
                let diag = Diagnostic::error(
                    codes::E0001,
                    Span::new(file, start..end),
                    "invalid character in source",
                )
                .with_secondary(Span::new(file, end..start), "other")
                .with_note("n");
                let out = strict(&diag, &sources, false);
                assert!(out.contains("t.amp:"), "{start}..{end}: {out}");
            }
        }
    }

    #[test]
    fn columns_count_characters_in_every_file() {
        let mut sources = Sources::new();
        let main = sources.add(SourceFile {
            name: "main.amp".to_owned(),
            text: "#include \"b.h\"\nint ü = Ä;\n".to_owned(),
        });
        let header = sources.add(SourceFile {
            name: "b.h".to_owned(),
            text: "// é€\n#define Ä (1\n".to_owned(),
        });
        // `;` in main.amp: line 2, column 10; `(` in b.h: line 2, column 11.
        let semi = "#include \"b.h\"\nint ü = Ä".len();
        let paren = "// é€\n#define Ä ".len();
        let diag = Diagnostic::error(codes::E0102, Span::new(main, semi..semi + 1), "unclosed")
            .with_secondary(Span::new(header, paren..paren + 1), "opened here");
        let out = strict(&diag, &sources, false);
        assert!(out.contains("main.amp:2:10"), "{out}");
        assert!(out.contains("b.h:2:11"), "{out}");
    }

    #[test]
    fn line_breaks_other_than_newline_do_not_start_lines() {
        // Lines and columns agree with `Sources::line_col`, which counts `\n`
        // only: `\r\n` ends a line, a lone `\r` or form feed does not.
        let text = "a;\r\nbé\x0Cx\r c;\n";
        let (sources, file) = one_file("crlf.amp", text);
        let at = text.find('c').unwrap_or(0);
        assert_eq!(sources.line_col(file, at as u32), (2, 7));
        let diag = Diagnostic::error(codes::E0100, Span::new(file, at..at + 1), "unexpected")
            .with_label("this");
        let out = strict(&diag, &sources, false);
        assert!(out.contains("crlf.amp:2:7"), "{out}");
        assert!(out.contains(" 2 │ bé x  c;\n"), "{out}");
        assert!(!out.contains('\r'), "{out}");
    }

    #[test]
    fn renderer_matches_render() {
        let (sources, file) = one_file("r.amp", "int a = 1\nint b = 2\n");
        let first = Diagnostic::error(codes::E0101, Span::new(file, 9..9), "expected `;`");
        let second = Diagnostic::error(codes::E0101, Span::new(file, 19..19), "expected `;`");
        let mut renderer = Renderer::new(&sources, false);
        assert_eq!(renderer.render(&first), render(&first, &sources, false));
        assert_eq!(renderer.render(&second), render(&second, &sources, false));
        assert_eq!(
            render_all([&first, &second], &sources, false),
            render(&first, &sources, false) + &render(&second, &sources, false)
        );
    }

    #[test]
    fn plain_fallback() {
        let (sources, file) = one_file("p.amp", "a\nbc;\n");
        let diag = Diagnostic::error(codes::E0100, Span::new(file, 4..5), "unexpected token")
            .with_label("this `;`")
            .with_note("n1")
            .with_help("h1");
        assert_eq!(
            render_plain(&diag, &sources, false),
            "error[E0100]: unexpected token\n  --> p.amp:2:3\n  = this `;`\n  \
             = help: h1\n  = note: n1\n"
        );
    }

    #[test]
    #[allow(clippy::reversed_empty_ranges)] // reversed on purpose
    fn clamp_range_stays_on_boundaries() {
        let text = "aé€";
        assert_eq!(clamp_range(text, 2..2), 1..1);
        assert_eq!(clamp_range(text, 2..4), 1..6);
        assert_eq!(clamp_range(text, 9..2), 1..6);
        assert_eq!(clamp_range("", 3..9), 0..0);
    }

    #[test]
    fn render_all_keeps_input_order() {
        let (sources, file) = one_file("o.amp", "a b c\n");
        let late = Diagnostic::error(codes::E0100, Span::new(file, 4..5), "late");
        let early = Diagnostic::error(codes::E0100, Span::new(file, 0..1), "early");
        let out = render_all([&late, &early], &sources, false);
        let late_at = out.find("late").unwrap_or(usize::MAX);
        let early_at = out.find("early").unwrap_or(0);
        assert!(late_at < early_at, "{out}");
    }
}
