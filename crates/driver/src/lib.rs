//! The one way from source files to a checked program, and the one choice of
//! engine.
//!
//! [`compile`] reads a program's main file through a [`SourceLoader`] the
//! caller gives (the CLI's reads the disk; tests give [`MemoryFiles`]),
//! parses it, checks every item that parsed (also when other items have
//! syntax errors) and returns a [`Checked`]: the typed program and every
//! diagnostic of every stage, merged and sorted by position.
//! [`check_parsed`] is the same from a syntax tree already built (the REPL
//! builds its program from accepted inputs). [`engine`] decides which engine
//! runs a program's kernels.
//!
//! The crate does no IO of its own: every byte it reads comes through the
//! loader, so the front end stays pure and the caller decides what a path
//! means. The loader also reads the files named by `#include "..."`
//! (relative to the including file, then the [`Input::include_dirs`]).

pub mod engine;
mod recovery;

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use tessera_diagnostics::FileId;
use tessera_diagnostics::{Diagnostic, SourceFile, Sources};
use tessera_syntax::Parsed;
use tessera_syntax::ast::TranslationUnit;
use tessera_syntax::include::{
    Included, NoFiles, read_headers, read_headers_pruned, restore_pruned,
};

pub use engine::Engine;
pub use tessera_sema::Checked;

pub use tessera_syntax::include::SourceLoader;

/// Files held in memory, by path: for tests and for text that is not on
/// disk.
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles {
    files: HashMap<PathBuf, Vec<u8>>,
}

impl MemoryFiles {
    /// No files.
    pub fn new() -> MemoryFiles {
        MemoryFiles::default()
    }

    /// Adds (or replaces) the file at `path`.
    pub fn insert(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), bytes.into());
    }
}

impl SourceLoader for MemoryFiles {
    fn load(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files.get(path).cloned().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("no file `{}` in memory", path.display()),
            )
        })
    }

    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }

    fn list(&self, dir: &Path) -> Vec<String> {
        let dir = if dir == Path::new(".") {
            Path::new("")
        } else {
            dir
        };
        self.files
            .keys()
            .filter_map(|p| p.strip_prefix(dir).ok())
            .filter_map(|rest| rest.components().next())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect()
    }
}

/// What to compile: a program's main file and how to read files.
pub struct Input<'a> {
    /// The main file, as the loader understands paths.
    pub main: PathBuf,
    /// Reads every file the compilation needs.
    pub loader: &'a dyn SourceLoader,
    /// Folders searched for `#include "..."` after the including file's own
    /// (`-I`), in order.
    pub include_dirs: Vec<PathBuf>,
    /// Macros defined before the main file is read (`-D`), in order: each a
    /// name (or a function-like head such as `F(x)`) and its replacement
    /// text, as `#define NAME VALUE` would define it.
    pub defines: Vec<(String, String)>,
}

impl<'a> Input<'a> {
    /// The program whose main file is `main`, read by `loader`, with no
    /// include directories.
    pub fn new(main: impl Into<PathBuf>, loader: &'a dyn SourceLoader) -> Input<'a> {
        Input {
            main: main.into(),
            loader,
            include_dirs: Vec::new(),
            defines: Vec::new(),
        }
    }
}

/// The name under which the `-D` definitions appear in diagnostics (a
/// redefinition of one of them points there), as g++ names them.
pub const COMMAND_LINE: &str = "<command-line>";

/// The text of the file that holds the definitions of [`Input::defines`]:
/// one `#define` line each. A line break in a name or value would start a
/// directive of its own, so it is written as a space (the CLI refuses
/// them; this keeps other callers from injecting lines).
pub fn prelude_text(defines: &[(String, String)]) -> String {
    let flat = |s: &str| s.replace(['\n', '\r'], " ");
    defines
        .iter()
        .map(|(name, value)| format!("#define {} {}\n", flat(name), flat(value)))
        .collect()
}

/// A file the loader could not read.
#[derive(Debug)]
pub struct LoadError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub error: io::Error,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read `{}`: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for LoadError {}

/// Reads, parses and checks the program of `input`; its files are added to
/// `sources` (for rendering the diagnostics), named as their paths display.
/// Every item that parsed is checked, also when others have syntax errors.
/// Fails only when a file cannot be read.
///
/// The library texts the program cannot reach are left out (see
/// [`tessera_syntax::include::read_headers_pruned`]): that changes nothing
/// a program does, and spares most of the front end's work for a small
/// one. A program with any diagnostic is read again with the whole
/// library, so that what it is told is what the whole library gives
/// (a misspelt name is compared with every name the library declares).
pub fn compile(sources: &mut Sources, input: &Input<'_>) -> Result<Checked, LoadError> {
    let (file, replaced) = read_main(sources, input)?;
    let prelude = prelude_text(&input.defines);
    let mut included =
        read_headers_pruned(sources, file, input.loader, &input.include_dirs, &prelude);
    add_prelude(sources, &mut included, input, prelude);
    Ok(check_with_fallback(sources, file, &replaced, included))
}

/// Parses and checks `file` with the headers of `included`; when library
/// texts were left out and the program has a diagnostic, again with them.
fn check_with_fallback(
    sources: &mut Sources,
    file: FileId,
    replaced: &[usize],
    mut included: Included,
) -> Checked {
    let parsed = tessera_syntax::parse_unit(sources, file, replaced, &included);
    let checked = check_parsed_owned(sources, parsed.unit, parsed.diagnostics);
    if included.pruned.is_empty() || checked.diagnostics.is_empty() {
        return checked;
    }
    restore_pruned(sources, &mut included);
    let parsed = tessera_syntax::parse_unit(sources, file, replaced, &included);
    check_parsed_owned(sources, parsed.unit, parsed.diagnostics)
}

/// Adds the file of the `-D` definitions, whose text is `prelude`, when
/// `input` has any.
fn add_prelude(sources: &mut Sources, included: &mut Included, input: &Input<'_>, prelude: String) {
    if !input.defines.is_empty() {
        let (file, _) = SourceFile::from_bytes(COMMAND_LINE, prelude.as_bytes());
        included.prelude = Some(sources.add(file));
    }
}

/// Reads the main file of `input` into `sources`: its id, and where its
/// bytes were not UTF-8.
fn read_main(sources: &mut Sources, input: &Input<'_>) -> Result<(FileId, Vec<usize>), LoadError> {
    let bytes = input.loader.load(&input.main).map_err(|error| LoadError {
        path: input.main.clone(),
        error,
    })?;
    let (file, replaced) = SourceFile::from_bytes(input.main.display().to_string(), &bytes);
    Ok((sources.add(file), replaced))
}

/// Reads the main file of `input` and the local headers it includes into
/// `sources`, with the whole library, and parses them (for `dump`). Fails
/// only when the main file cannot be read.
pub fn parse(sources: &mut Sources, input: &Input<'_>) -> Result<Parsed, LoadError> {
    let (file, replaced) = read_main(sources, input)?;
    let mut included = read_headers(sources, file, input.loader, &input.include_dirs);
    add_prelude(sources, &mut included, input, prelude_text(&input.defines));
    Ok(tessera_syntax::parse_unit(
        sources, file, &replaced, &included,
    ))
}

/// [`compile`] of a program whose main file, called `name`, holds `bytes`
/// and includes no local header (the library's own headers are read).
pub fn compile_source(sources: &mut Sources, name: &str, bytes: &[u8]) -> Checked {
    let (file, replaced) = SourceFile::from_bytes(name, bytes);
    let file = sources.add(file);
    let included = read_headers_pruned(sources, file, &NoFiles, &[], "");
    check_with_fallback(sources, file, &replaced, included)
}

/// Checks a parsed program, `unit` with the parser's `parse_diagnostics`:
/// every item that parsed, whatever the syntax errors of the others. The
/// diagnostics of both stages are merged in source order; a checker error
/// about a name that code with a syntax error may have declared is left out
/// (see the `recovery` module). `sources` holds the texts the tree's spans
/// point into.
pub fn check_parsed(
    sources: &Sources,
    unit: &TranslationUnit,
    parse_diagnostics: Vec<Diagnostic>,
) -> Checked {
    let checked = tessera_sema::check(unit);
    let check_diagnostics = if parse_diagnostics.iter().any(Diagnostic::is_error) {
        recovery::quiet_follow_ons(sources, unit, &parse_diagnostics, checked.diagnostics)
    } else {
        checked.diagnostics
    };
    merge(
        parse_diagnostics,
        check_diagnostics,
        checked.program,
        checked.scratch,
    )
}

/// [`check_parsed`] of a tree the caller no longer needs, so the checker
/// may take its items apart instead of copying them. With syntax errors
/// the tree is still needed afterwards (to quiet follow-on errors), and it
/// is checked in place.
pub fn check_parsed_owned(
    sources: &Sources,
    unit: TranslationUnit,
    parse_diagnostics: Vec<Diagnostic>,
) -> Checked {
    if parse_diagnostics.iter().any(Diagnostic::is_error) {
        return check_parsed(sources, &unit, parse_diagnostics);
    }
    let checked = tessera_sema::check_owned(unit);
    merge(
        parse_diagnostics,
        checked.diagnostics,
        checked.program,
        checked.scratch,
    )
}

/// The diagnostics of both stages in source order, one report per problem,
/// with the checked program.
fn merge(
    parse_diagnostics: Vec<Diagnostic>,
    check_diagnostics: Vec<Diagnostic>,
    program: tessera_ir::Program,
    scratch: tessera_sema::Scratch,
) -> Checked {
    let mut diagnostics = parse_diagnostics;
    diagnostics.extend(check_diagnostics);
    diagnostics.sort_by_key(|d| (d.primary.span.file, d.primary.span.start));
    // One report per problem: a construct the parser meets again (a class
    // template's member read for each instance) gives the same diagnostic
    // each time.
    diagnostics.dedup_by(|a, b| {
        a.code == b.code && a.primary.span == b.primary.span && a.message == b.message
    });
    // A program without an error runs: it may not hold what the checker
    // could not type.
    if !diagnostics.iter().any(Diagnostic::is_error)
        && let Some(d) = tessera_sema::untyped(&program)
    {
        diagnostics.push(d);
    }
    Checked {
        program,
        diagnostics,
        scratch,
    }
}
