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
use std::collections::HashMap;
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
    let mut included = Included::default();
    let mut by_path: HashMap<PathBuf, FileId> = HashMap::new();
    let mut queue = vec![main];
    let mut budget = MAX_HEADER_BYTES;
    while let Some(file) = queue.pop() {
        let Some(source) = sources.get(file) else {
            continue;
        };
        let folder = Path::new(&source.name)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let names = include_names(file, &source.text);
        for (name, quoted) in names {
            let key = (file, name.clone(), quoted);
            if included.resolved.contains_key(&key) {
                continue;
            }
            if let Some((shown, text)) = crate::headers::source_of(&name) {
                let id = match by_path.get(Path::new(shown)) {
                    Some(&id) => id,
                    None => {
                        let id = sources.add(SourceFile {
                            name: shown.to_string(),
                            text: text.to_string(),
                        });
                        by_path.insert(PathBuf::from(shown), id);
                        included.headers.push((id, Vec::new()));
                        queue.push(id);
                        id
                    }
                };
                included.resolved.insert(
                    key,
                    Found::File {
                        file: id,
                        spelled: None,
                    },
                );
                continue;
            }
            let own = quoted.then_some(folder.as_path());
            let found = match find(
                fs,
                own.into_iter().chain(dirs.iter().map(PathBuf::as_path)),
                &name,
            ) {
                Some((path, spelled)) => match by_path.get(&path) {
                    Some(&known) => Found::File {
                        file: known,
                        spelled,
                    },
                    None if included.headers.len() < MAX_HEADERS => {
                        match fs
                            .load(&path)
                            .ok()
                            .filter(|b| b.len() <= MAX_SOURCE_LEN.min(budget))
                        {
                            Some(bytes) => {
                                budget -= bytes.len();
                                let shown = path.to_string_lossy().into_owned();
                                let (header, replaced) = SourceFile::from_bytes(shown, &bytes);
                                let id = sources.add(header);
                                by_path.insert(path, id);
                                included.headers.push((id, replaced));
                                queue.push(id);
                                Found::File { file: id, spelled }
                            }
                            None => Found::Missing,
                        }
                    }
                    None => Found::Missing,
                },
                None => Found::Missing,
            };
            included.resolved.insert(key, found);
        }
    }
    included
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
