//! Compiled code kept on disk between runs (`tessera run`).
//!
//! The JIT asks a [`CodeStore`] for each function's machine code by a name
//! and checks the record it gets against the whole of what the code was
//! made from (see `tessera_jit`'s `cache` module). This is that store as
//! files: `<root>/build-<id>/<name>`, one folder per build of `tessera`
//! (the executable's size and modification time), so a rebuilt binary
//! starts afresh. Records are written to a temporary file and renamed
//! into place, so runs at the same time never see half a record. Every
//! failure (no home, a read-only disk, a full one) only means compiling
//! again.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use tessera_jit::CodeStore;

/// Build folders kept beside the current one: older ones are removed
/// when a new build first saves.
const BUILDS_KEPT: usize = 3;

/// A build folder holding this many records loses its older half at the
/// next run that saves one (a record is a few KB to a few hundred: the
/// function's IR, its key, and its code).
const MAX_RECORDS: usize = 4_000;

/// A record larger than this is not read (a function's code and its key
/// are far smaller).
const MAX_RECORD_BYTES: u64 = 64 << 20;

/// The folder the cache lives in: `$TESSERA_CACHE_DIR` (empty: no cache),
/// else `$XDG_CACHE_HOME/tessera`, else `$HOME/.cache/tessera`.
pub fn root_from_env() -> Option<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = std::env::var_os("TESSERA_CACHE_DIR") {
        return (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
    if let Some(xdg) = non_empty("XDG_CACHE_HOME") {
        return Some(PathBuf::from(xdg).join("tessera"));
    }
    non_empty("HOME").map(|home| PathBuf::from(home).join(".cache").join("tessera"))
}

/// Compiled code kept in files under one build's folder.
pub struct FileStore {
    root: PathBuf,
    dir: PathBuf,
    /// Whether the folder exists and takes records (made at the first save).
    ready: OnceLock<bool>,
    /// Temporary files written by this process, for unique names.
    written: AtomicU64,
}

impl FileStore {
    /// The store of this build of `tessera` under `root`, or `None` when
    /// the running executable cannot be looked at.
    pub fn for_this_build(root: &Path) -> Option<FileStore> {
        let exe = std::env::current_exe().ok()?;
        let meta = std::fs::metadata(exe).ok()?;
        let modified = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (env!("CARGO_PKG_VERSION"), meta.len(), modified).hash(&mut h);
        Some(FileStore {
            root: root.to_path_buf(),
            dir: root.join(format!("build-{:016x}", h.finish())),
            ready: OnceLock::new(),
            written: AtomicU64::new(0),
        })
    }

    /// Makes the build folder on first use, removing the oldest other
    /// build folders, or the older half of its records when it holds
    /// [`MAX_RECORDS`]; false when records cannot be saved.
    fn ready(&self) -> bool {
        *self.ready.get_or_init(|| {
            let fresh = !self.dir.is_dir();
            if std::fs::create_dir_all(&self.dir).is_err() {
                return false;
            }
            if fresh {
                self.remove_old_builds();
            } else if std::fs::read_dir(&self.dir).is_ok_and(|e| e.count() >= MAX_RECORDS) {
                self.remove_older_half();
            }
            true
        })
    }

    /// Removes the least recently written half of the build folder's
    /// records (a record read often was written long ago too: the cache
    /// forgets by age, which keeps it simple and bounded).
    fn remove_older_half(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut records: Vec<(std::time::SystemTime, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        records.sort_by_key(|r| r.0);
        let half = records.len() / 2;
        for (_, old) in records.into_iter().take(half) {
            let _ = std::fs::remove_file(old);
        }
    }

    /// Removes all but the [`BUILDS_KEPT`] most recently changed build
    /// folders other than this one.
    fn remove_old_builds(&self) {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return;
        };
        let mut builds: Vec<(std::time::SystemTime, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("build-"))
            .map(|e| e.path())
            .filter(|p| *p != self.dir)
            .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
            .collect();
        builds.sort_by_key(|b| std::cmp::Reverse(b.0));
        for (_, old) in builds.into_iter().skip(BUILDS_KEPT) {
            let _ = std::fs::remove_dir_all(old);
        }
    }
}

/// Whether `name` is one the engine gives: hex digits only, so it names
/// a file in the folder and nothing else.
fn plain_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

impl CodeStore for FileStore {
    fn load(&self, name: &str) -> Option<Vec<u8>> {
        if !plain_name(name) {
            return None;
        }
        let path = self.dir.join(name);
        if std::fs::metadata(&path).ok()?.len() > MAX_RECORD_BYTES {
            return None;
        }
        std::fs::read(path).ok()
    }

    fn save(&self, name: &str, record: &[u8]) {
        if !plain_name(name) || !self.ready() {
            return;
        }
        let n = self.written.fetch_add(1, Ordering::Relaxed);
        let temp = self
            .dir
            .join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        if std::fs::write(&temp, record).is_err()
            || std::fs::rename(&temp, self.dir.join(name)).is_err()
        {
            let _ = std::fs::remove_file(&temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("tessera-code-cache-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_saved_record_loads_back_and_odd_names_are_refused() {
        let root = scratch("roundtrip");
        let Some(store) = FileStore::for_this_build(&root) else {
            panic!("the test binary can be looked at");
        };
        assert_eq!(store.load("00ff"), None);
        store.save("00ff", b"record");
        assert_eq!(store.load("00ff").as_deref(), Some(&b"record"[..]));
        store.save("../escape", b"x");
        store.save("", b"x");
        assert_eq!(store.load("../escape"), None);
        let files: Vec<_> = std::fs::read_dir(&store.dir)
            .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert_eq!(
            files,
            vec![std::ffi::OsString::from("00ff")],
            "no temporary file is left"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_new_build_removes_all_but_the_newest_other_builds() {
        let root = scratch("builds");
        for n in 0..5 {
            let old = root.join(format!("build-old{n}"));
            let _ = std::fs::create_dir_all(&old);
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = std::fs::create_dir_all(root.join("not-a-build"));
        let Some(store) = FileStore::for_this_build(&root) else {
            panic!("the test binary can be looked at");
        };
        store.save("01", b"r");
        let mut left: Vec<String> = std::fs::read_dir(&root)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        left.sort();
        let mut expected = vec![
            "build-old2".to_string(),
            "build-old3".to_string(),
            "build-old4".to_string(),
            "not-a-build".to_string(),
            store
                .dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ];
        expected.sort();
        assert_eq!(left, expected);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_full_build_folder_loses_its_older_half() {
        let root = scratch("full");
        let Some(store) = FileStore::for_this_build(&root) else {
            panic!("the test binary can be looked at");
        };
        let _ = std::fs::create_dir_all(&store.dir);
        for n in 0..MAX_RECORDS {
            let _ = std::fs::write(store.dir.join(format!("{n:08x}")), b"r");
        }
        // The newest record, written last, is kept.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let _ = std::fs::write(store.dir.join("ffffffff"), b"new");
        store.save("0e", b"r");
        let left = std::fs::read_dir(&store.dir).map_or(0, |d| d.count());
        let before = MAX_RECORDS + 1;
        let removed = before / 2;
        assert_eq!(
            left,
            before - removed + 1,
            "the older half gone, the new record in"
        );
        assert_eq!(store.load("ffffffff").as_deref(), Some(&b"new"[..]));
        assert_eq!(store.load("0e").as_deref(), Some(&b"r"[..]));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_store_that_cannot_write_only_misses() {
        let root = scratch("blocked");
        // A file where the folder should be: nothing can be saved.
        let _ = std::fs::write(&root, b"in the way");
        let Some(store) = FileStore::for_this_build(&root) else {
            panic!("the test binary can be looked at");
        };
        store.save("01", b"r");
        assert_eq!(store.load("01"), None);
        let _ = std::fs::remove_file(&root);
    }
}
