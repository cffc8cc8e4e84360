//! Finding and reading the local headers a file includes, before it is
//! preprocessed.
//!
//! The compiler core does no IO: the caller (the CLI, a test) gives a
//! [`SourceLoader`]. Every `#include "name"` (and `#include <name>` of a header
//! Tessera does not know) in the main file and, in turn, in each header found
//! is looked up: next to the including file, then in each include folder, in
//! order. A name that matches a file only when case is ignored is found too
//! (Windows sources often spell headers another way); the preprocessor warns.
//!
//! A standard header whose part of the library is written in the Tessera
//! language (see [`crate::headers`]) is read from the binary, as a header
//! named `<name>`, and is included like any other.
//!
//! The scan does not evaluate conditionals: a header inside `#if 0` is read
//! if it exists, and a missing one is reported only if the preprocessor
//! reaches its `#include`.

use crate::lexer::{Token, lex};
use crate::parse::MAX_SOURCE_LEN;
use crate::preprocess::{Found, KNOWN_HEADERS};
use crate::token::Tok;
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Component, Path, PathBuf};
use tessera_diagnostics::{FileId, SourceFile, Sources};

/// Most header files one unit reads.
const MAX_HEADERS: usize = 4096;

/// Most bytes of headers one unit reads: positions of all files of a unit
/// share 32 bits (see [`crate::files`]).
const MAX_HEADER_BYTES: usize = 1 << 30;

/// Reads source files for the compiler, which never touches the filesystem
/// itself: what a path means is the caller's choice (the CLI reads the disk,
/// tests hold files in memory).
pub trait SourceLoader {
    /// The bytes of the file at `path`.
    fn load(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Whether `path` names a file that can be read.
    fn is_file(&self, path: &Path) -> bool {
        self.load(path).is_ok()
    }
    /// The names of the entries of folder `dir` (empty if it cannot be
    /// read); used to find a header whose name differs in case.
    fn list(&self, _dir: &Path) -> Vec<String> {
        Vec::new()
    }
}

/// A [`SourceLoader`] with no files: nothing is ever included.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFiles;

impl SourceLoader for NoFiles {
    fn load(&self, path: &Path) -> io::Result<Vec<u8>> {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no file `{}`", path.display()),
        ))
    }
}

/// The headers found for one unit: added to its [`Sources`], with what each
/// `#include` names.
#[derive(Clone, Debug, Default)]
pub struct Included {
    /// `(including file, name as written, written in quotes)` to what it
    /// names: `"x.h"` and `<x.h>` are looked for in different folders.
    pub resolved: HashMap<(FileId, String, bool), Found>,
    /// Each header read, with the offsets of bytes that were not UTF-8, in
    /// the order they were found.
    pub headers: Vec<(FileId, Vec<usize>)>,
    /// A file read before the main file, as if the main file included it on
    /// its first line: the macros given on the command line (`-D`), which a
    /// C++ compiler defines before it reads the first line of the program.
    /// Its `#include`s are not looked for.
    pub prelude: Option<FileId>,
    /// The `#include <name>`s whose library text was left out, by including
    /// file and name (see [`read_headers_pruned`]): the preprocessor takes
    /// them as included headers whose text brings nothing.
    pub pruned: Vec<(FileId, String, bool)>,
}

/// Finds and reads, through `fs`, every local header `main` includes
/// (directly or through other headers), adding each to `sources` once.
/// `dirs` are the include folders (`-I`), searched after the including
/// file's own folder.
pub fn read_headers(
    sources: &mut Sources,
    main: FileId,
    fs: &dyn SourceLoader,
    dirs: &[PathBuf],
) -> Included {
    let mut reader = Reader::default();
    reader.queue.push(main);
    reader.drain(sources, fs, dirs, false);
    reader.included
}

/// [`read_headers`], leaving out the library texts the program cannot
/// reach. A library file that [`crate::headers::names_reaching`] lists
/// (`<algorithm>`, `<string>`) is read only when some file of the program
/// (`main`, its local headers, or `prelude`, the `-D` definitions' text)
/// writes one of the names it lists (outside comments and literals): a
/// program that names none of them means the same without it, and its
/// front end does not read, parse and check the text. Only what a
/// program's own files (or `<amp.h>`, which stands for what MSVC's
/// includes) include is left out: a library text that needs another
/// includes it itself.
///
/// A name made by pasting tokens (`##`) or split by a line continuation
/// cannot be seen in the text, so a program writing either keeps every
/// library text. The caller reads the texts left out with
/// [`restore_pruned`] when it needs the unit as it would be without this
/// (the driver does, for a program with diagnostics, so that they are
/// those of the whole library).
pub fn read_headers_pruned(
    sources: &mut Sources,
    main: FileId,
    fs: &dyn SourceLoader,
    dirs: &[PathBuf],
    prelude: &str,
) -> Included {
    let mut reader = Reader::default();
    reader.queue.push(main);
    reader.drain(sources, fs, dirs, true);
    let own: Vec<(FileId, &str)> = reader
        .own
        .iter()
        .filter_map(|&id| sources.get(id).map(|f| (id, f.text.as_str())))
        .chain(std::iter::once((main, prelude)))
        .collect();
    let hidden = own
        .iter()
        .any(|(_, t)| t.contains("##") || t.contains("\\\n") || t.contains("\\\r\n"));
    // The identifiers as the lexer reads them: a word in a comment or a
    // literal names nothing.
    let mut ignored = Vec::new();
    let words: HashSet<&str> = own
        .iter()
        .flat_map(|&(id, text)| lex(id, text, &[], &mut ignored))
        .filter_map(|t| match t.tok {
            Tok::Ident(word) => Some(word),
            _ => None,
        })
        .collect();
    let keep: Vec<bool> = reader
        .deferred
        .iter()
        .map(|(_, name, _)| {
            let Some((shown, _)) = crate::headers::source_of(name) else {
                return true;
            };
            let read = reader.by_path.contains_key(Path::new(shown));
            let reaching = crate::headers::names_reaching(shown);
            hidden || read || reaching.is_none_or(|names| names.iter().any(|n| words.contains(n)))
        })
        .collect();
    drop(words);
    for (key, keep) in std::mem::take(&mut reader.deferred).into_iter().zip(keep) {
        if keep {
            reader.resolve_library(sources, key);
        } else {
            reader.included.pruned.push(key);
        }
    }
    reader.drain(sources, fs, dirs, false);
    reader.included
}

/// Reads the library texts [`read_headers_pruned`] left out of
/// `included`, as [`read_headers`] would have read them.
pub fn restore_pruned(sources: &mut Sources, included: &mut Included) {
    let mut reader = Reader {
        included: std::mem::take(included),
        ..Reader::default()
    };
    for &(id, _) in &reader.included.headers {
        if let Some(file) = sources.get(id) {
            reader.by_path.insert(PathBuf::from(&file.name), id);
        }
    }
    for key in std::mem::take(&mut reader.included.pruned) {
        reader.resolve_library(sources, key);
    }
    reader.drain(sources, &NoFiles, &[], false);
    *included = reader.included;
}

/// The state of reading one unit's headers.
#[derive(Default)]
struct Reader {
    included: Included,
    by_path: HashMap<PathBuf, FileId>,
    /// Files whose `#include`s are still to be looked at.
    queue: Vec<FileId>,
    /// Bytes of local headers read so far (at most `MAX_HEADER_BYTES`).
    used: usize,
    /// The program's own files read (the main file and its local headers).
    own: Vec<FileId>,
    /// Library includes left for [`read_headers_pruned`] to decide:
    /// including file, name, written in quotes.
    deferred: Vec<(FileId, String, bool)>,
}

impl Reader {
    /// Reads the includes of every file in the queue, and of the files
    /// they bring in turn. With `defer`, an include of a library text that
    /// a program may do without, written in the program's own files or in
    /// `<amp.h>`, is set aside in `deferred`.
    fn drain(
        &mut self,
        sources: &mut Sources,
        fs: &dyn SourceLoader,
        dirs: &[PathBuf],
        defer: bool,
    ) {
        while let Some(file) = self.queue.pop() {
            let Some(source) = sources.get(file) else {
                continue;
            };
            let library = crate::headers::is_library_source(&source.name);
            if !library {
                self.own.push(file);
            }
            let deferring = defer && (!library || source.name == "<amp.h>");
            let folder = Path::new(&source.name)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let names = include_names(file, &source.text);
            for (name, quoted) in names {
                let key = (file, name.clone(), quoted);
                if self.included.resolved.contains_key(&key) {
                    continue;
                }
                if let Some((shown, _)) = crate::headers::source_of(&name) {
                    let prunable = crate::headers::names_reaching(shown).is_some();
                    if deferring && prunable && !self.by_path.contains_key(Path::new(shown)) {
                        if !self.deferred.contains(&key) {
                            self.deferred.push(key);
                        }
                        continue;
                    }
                    self.resolve_library(sources, key);
                    continue;
                }
                let own = quoted.then_some(folder.as_path());
                let found = match find(
                    fs,
                    own.into_iter().chain(dirs.iter().map(PathBuf::as_path)),
                    &name,
                ) {
                    Some((path, spelled)) => match self.by_path.get(&path) {
                        Some(&known) => Found::File {
                            file: known,
                            spelled,
                        },
                        None if self.included.headers.len() < MAX_HEADERS => {
                            match fs.load(&path).ok().filter(|b| {
                                b.len()
                                    <= MAX_SOURCE_LEN
                                        .min(MAX_HEADER_BYTES.saturating_sub(self.used))
                            }) {
                                Some(bytes) => {
                                    self.used += bytes.len();
                                    let shown = path.to_string_lossy().into_owned();
                                    let (header, replaced) = SourceFile::from_bytes(shown, &bytes);
                                    let id = sources.add(header);
                                    self.by_path.insert(path, id);
                                    self.included.headers.push((id, replaced));
                                    self.queue.push(id);
                                    Found::File { file: id, spelled }
                                }
                                None => Found::Missing,
                            }
                        }
                        None => Found::Missing,
                    },
                    None => Found::Missing,
                };
                self.included.resolved.insert(key, found);
            }
        }
    }

    /// Resolves an include, `key` as in [`Included::resolved`], to the
    /// library text of its name (which [`crate::headers::source_of`] has),
    /// read once per unit.
    fn resolve_library(&mut self, sources: &mut Sources, key: (FileId, String, bool)) {
        let Some((shown, text)) = crate::headers::source_of(&key.1) else {
            return;
        };
        let id = match self.by_path.get(Path::new(shown)) {
            Some(&id) => id,
            None => {
                let id = sources.add(SourceFile {
                    name: shown.to_string(),
                    text: text.to_string(),
                });
                self.by_path.insert(PathBuf::from(shown), id);
                self.included.headers.push((id, Vec::new()));
                self.queue.push(id);
                id
            }
        };
        self.included.resolved.insert(
            key,
            Found::File {
                file: id,
                spelled: None,
            },
        );
    }
}

/// The header names of a file's `#include` lines that Tessera does not
/// provide itself, each with whether it was written in quotes.
fn include_names(file: FileId, text: &str) -> Vec<(String, bool)> {
    // Most files include only headers Tessera knows: a look at the lines
    // spares lexing them a second time (the preprocessor lexes them again).
    // Any line with `include` other than `#include <known>` is lexed (a
    // comment between `#` and `include` is rare but valid). A line that
    // starts with `//` is a comment, or inside one, or spliced onto a line
    // that has its own `#`: never the directive itself, so the word in a
    // comment (as in every library header's opening lines) costs no lexing.
    //
    // A library header with source (`<amp.h>`, `<iostream>`) is named from
    // its line too, when no line can hide in a block comment or continue
    // another (`/*`, a `\` ending a line): then the line is the directive
    // the lexer would find, and the file is not lexed for it.
    let plain_lines = !text.contains("/*") && !text.contains("\\\n") && !text.contains("\\\r\n");
    let mut from_lines = Vec::new();
    let may_name_a_file = text
        .lines()
        .filter(|l| l.contains("include") && !l.trim_start().starts_with("//"))
        .any(|line| {
            let name = line
                .trim_start()
                .strip_prefix('#')
                .and_then(|rest| rest.trim_start().strip_prefix("include"))
                .and_then(|rest| rest.trim_start().strip_prefix('<'))
                .and_then(|angled| angled.split_once('>'))
                .map(|(name, _)| name.trim());
            let Some(name) = name else {
                return true;
            };
            if crate::headers::source_of(name).is_some() {
                if plain_lines && !name.is_empty() {
                    from_lines.push((name.to_string(), false));
                    return false;
                }
                return true;
            }
            !KNOWN_HEADERS.contains(&name)
        });
    if !may_name_a_file {
        return from_lines;
    }
    let mut ignored = Vec::new();
    let toks = lex(file, text, &[], &mut ignored);
    let mut names = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let at_line_start = i == 0 || toks.get(i - 1).is_some_and(|p| p.tok == Tok::Newline);
        if t.tok != Tok::Hash || !at_line_start {
            continue;
        }
        let line: Vec<&Token<'_>> = toks
            .get(i + 1..)
            .unwrap_or_default()
            .iter()
            .take_while(|t| t.tok != Tok::Newline)
            .collect();
        let [kw, first, rest @ ..] = line.as_slice() else {
            continue;
        };
        if kw.tok != Tok::Ident("include") {
            continue;
        }
        let (name, quoted) = match first.tok {
            Tok::Str(s) if s.starts_with('"') => (s.trim_matches('"').trim().to_string(), true),
            Tok::Lt => {
                let Some(close) = rest.iter().find(|t| t.tok == Tok::Gt) else {
                    continue;
                };
                let inner = text
                    .get(first.end as usize..close.start as usize)
                    .unwrap_or("");
                (inner.trim().to_string(), false)
            }
            _ => continue,
        };
        let known =
            KNOWN_HEADERS.contains(&name.as_str()) && crate::headers::source_of(&name).is_none();
        if !name.is_empty() && !known {
            names.push((name, quoted));
        }
    }
    names
}

/// The first folder of `folders` holding `name`: the file's path, and its
/// real spelling when found only by ignoring case.
fn find<'a>(
    fs: &dyn SourceLoader,
    folders: impl Iterator<Item = &'a Path>,
    name: &str,
) -> Option<(PathBuf, Option<String>)> {
    let relative = Path::new(name);
    // An absolute name is looked up as it is.
    if relative.is_absolute() {
        return fs.is_file(relative).then(|| (relative.to_path_buf(), None));
    }
    let folders: Vec<&Path> = folders.collect();
    for folder in &folders {
        let path = folder.join(relative);
        if fs.is_file(&path) {
            return Some((normal(&path), None));
        }
    }
    for folder in &folders {
        if let Some(path) = find_ignoring_case(fs, folder, relative) {
            let spelled = path
                .strip_prefix(folder)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            return Some((normal(&path), Some(spelled)));
        }
    }
    None
}

/// `relative` under `folder`, each component matched ignoring ASCII case.
fn find_ignoring_case(fs: &dyn SourceLoader, folder: &Path, relative: &Path) -> Option<PathBuf> {
    let mut path = folder.to_path_buf();
    for component in relative.components() {
        match component {
            Component::Normal(part) => {
                let part = part.to_string_lossy();
                let entries = fs.list(if path.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    &path
                });
                let entry = entries
                    .iter()
                    .find(|e| **e == part)
                    .or_else(|| entries.iter().find(|e| e.eq_ignore_ascii_case(&part)))?;
                path.push(entry);
            }
            other => path.push(other.as_os_str()),
        }
    }
    fs.is_file(&path).then_some(path)
}

/// `path` without `.` components and with `dir/..` folded, so that one file
/// reached by two spellings is read once.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if out
                    .components()
                    .next_back()
                    .is_some_and(|c| matches!(c, Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
