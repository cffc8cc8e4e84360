//! Checked programs kept on disk between runs (`tessera run`).
//!
//! The front end is a pure function: from the main file's path, the `-D`
//! macros, the `-I` folders and what the loader answers to each question
//! it asks (the bytes of a file, whether a path is a file, the names in a
//! folder), it makes the sources, the typed program and the diagnostics.
//! So a run keeps them in a record beside the answers it got, under a key
//! of the other inputs (and the working folder, which relative paths are
//! read from); a later run with the same key asks the same questions again,
//! in the same order, and takes the kept program only when every answer
//! is the same as before. A header added where an `#include` looks first,
//! or any byte changed in any file read, changes an answer, and the
//! program is checked again. Records live in the code cache's folder of
//! this build of `tessera` (see `code_cache`), so a new build, whose
//! library or checker may differ, starts afresh.
//!
//! Only a program without errors is kept (its warnings are kept with it,
//! and shown again). A record that does not read back whole, or whose
//! checksum does not match, is only a miss.

use crate::code_cache::FileStore;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use tessera_diagnostics::{Diagnostic, Sources};
use tessera_driver::SourceLoader;
use tessera_ir::Program;
use tessera_jit::CodeStore;

/// The first bytes of a record, naming what it is. The layout of the
/// types in it needs no version: records live in the folder of the build
/// that wrote them.
const MAGIC: &[u8; 8] = b"TSRFRNT1";

/// A record larger than this is not written (the code cache reads none
/// larger than 64 MiB either).
const MAX_RECORD_BYTES: usize = 32 << 20;

/// The inputs of the front end other than the loader's answers.
#[derive(Serialize, Deserialize, PartialEq, Eq, Hash, Debug)]
pub struct Key {
    /// The main file's path, as given (it names the file in diagnostics).
    main: Vec<u8>,
    /// The working folder, which relative paths are read from.
    cwd: Vec<u8>,
    /// The `-I` folders, in order.
    include: Vec<Vec<u8>>,
    /// The `-D` macros, in order.
    define: Vec<(String, String)>,
}

impl Key {
    /// The key of compiling `main` with `include` and `define` from the
    /// current folder; `None` when that folder cannot be known.
    pub fn new(main: &Path, include: &[PathBuf], define: &[(String, String)]) -> Option<Key> {
        let cwd = std::env::current_dir().ok()?;
        Some(Key {
            main: path_bytes(main),
            cwd: path_bytes(&cwd),
            include: include.iter().map(|p| path_bytes(p)).collect(),
            define: define.to_vec(),
        })
    }

    /// The record's name in the store: hex digits, as the store requires.
    fn name(&self) -> String {
        let half = |salt: &str| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (salt, self).hash(&mut h);
            h.finish()
        };
        format!(
            "{:016x}{:016x}",
            half("tessera front end"),
            half("checked program")
        )
    }
}

fn path_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

fn bytes_path(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

/// One question the front end asked the loader, with its answer.
#[derive(Serialize, Deserialize, PartialEq, Eq, Debug)]
enum Answer {
    /// `load(path)`: the bytes, or the error's text.
    Load(Vec<u8>, Result<Vec<u8>, String>),
    /// `is_file(path)`.
    IsFile(Vec<u8>, bool),
    /// `list(dir)`.
    List(Vec<u8>, Vec<String>),
}

impl Answer {
    /// Whether `loader` gives the same answer now.
    fn holds(&self, loader: &dyn SourceLoader) -> bool {
        match self {
            Answer::Load(path, kept) => {
                let now = loader.load(&bytes_path(path)).map_err(|e| e.to_string());
                now == *kept
            }
            Answer::IsFile(path, kept) => loader.is_file(&bytes_path(path)) == *kept,
            Answer::List(dir, kept) => loader.list(&bytes_path(dir)) == *kept,
        }
    }
}

/// A loader that answers as `inner` does and notes every answer.
pub struct Recorder<'l> {
    inner: &'l dyn SourceLoader,
    answers: RefCell<Vec<Answer>>,
}

impl<'l> Recorder<'l> {
    /// Records the answers of `inner`.
    pub fn new(inner: &'l dyn SourceLoader) -> Self {
        Recorder {
            inner,
            answers: RefCell::new(Vec::new()),
        }
    }
}

impl SourceLoader for Recorder<'_> {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        let result = self.inner.load(path);
        let kept = match &result {
            Ok(bytes) => Ok(bytes.clone()),
            Err(e) => Err(e.to_string()),
        };
        self.answers
            .borrow_mut()
            .push(Answer::Load(path_bytes(path), kept));
        result
    }

    fn is_file(&self, path: &Path) -> bool {
        let yes = self.inner.is_file(path);
        self.answers
            .borrow_mut()
            .push(Answer::IsFile(path_bytes(path), yes));
        yes
    }

    fn list(&self, dir: &Path) -> Vec<String> {
        let names = self.inner.list(dir);
        self.answers
            .borrow_mut()
            .push(Answer::List(path_bytes(dir), names.clone()));
        names
    }
}

/// What a record holds, as written.
#[derive(Serialize)]
struct RecordOut<'a> {
    key: &'a Key,
    answers: &'a [Answer],
    sources: &'a Sources,
    diagnostics: &'a [Diagnostic],
    program: &'a Program,
}

/// What a record holds, as read back.
#[derive(Deserialize)]
struct RecordIn {
    key: Key,
    answers: Vec<Answer>,
    sources: Sources,
    diagnostics: Vec<Diagnostic>,
    program: Program,
}

/// The checksum of a record's contents.
fn checksum(payload: &[u8]) -> [u8; 8] {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    payload.hash(&mut h);
    h.finish().to_le_bytes()
}

/// The sources and the checked program kept under `key`, when the record
/// reads back whole and every answer it was made from still holds through
/// `loader`.
pub fn load(
    store: &FileStore,
    key: &Key,
    loader: &dyn SourceLoader,
) -> Option<(Sources, tessera_driver::Checked)> {
    let bytes = store.load(&key.name())?;
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let (sum, payload) = rest.split_at_checked(8)?;
    if sum != checksum(payload) {
        return None;
    }
    let record: RecordIn = postcard::from_bytes(payload).ok()?;
    if record.key != *key || !record.answers.iter().all(|a| a.holds(loader)) {
        return None;
    }
    let checked = tessera_driver::Checked {
        program: record.program,
        diagnostics: record.diagnostics,
        scratch: Default::default(),
    };
    Some((record.sources, checked))
}

/// Keeps the program checked under `key` with the answers `recorder`
/// noted; a record that cannot be made or is too large is not written.
pub fn save(
    store: &FileStore,
    key: &Key,
    recorder: Recorder<'_>,
    sources: &Sources,
    diagnostics: &[Diagnostic],
    program: &Program,
) {
    let answers = recorder.answers.into_inner();
    let record = RecordOut {
        key,
        answers: &answers,
        sources,
        diagnostics,
        program,
    };
    let Ok(payload) = postcard::to_allocvec(&record) else {
        return;
    };
    if payload.len() > MAX_RECORD_BYTES {
        return;
    }
    let mut bytes = Vec::with_capacity(payload.len() + 16);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&checksum(&payload));
    bytes.extend_from_slice(&payload);
    store.save(&key.name(), &bytes);
}
