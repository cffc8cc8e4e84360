//! The sample programs (`samples/*.amp`) and the workspace's directories.

use std::path::PathBuf;

/// The workspace's root directory (where the root `Cargo.toml` is).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The `samples` directory.
pub fn dir() -> PathBuf {
    workspace_root().join("samples")
}

/// The workspace's `target` directory, where tests leave reproducers of
/// their failures (`target/fuzz-failure*.amp`).
pub fn target_dir() -> PathBuf {
    workspace_root().join("target")
}

/// One sample program, as read from disk.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Sample {
    /// The file name, such as `matmul_tiled.amp`.
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

impl Sample {
    /// The sample's text (the samples are UTF-8; anything else is replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// Every `samples/*.amp`, sorted by name.
///
/// # Panics
///
/// When the directory cannot be read, a sample cannot be read, or there are
/// fewer than ten samples (the directory is probably not the right one).
pub fn load() -> Vec<Sample> {
    let dir = dir();
    let mut samples: Vec<Sample> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the samples directory {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "amp"))
        .map(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            Sample { name, bytes }
        })
        .collect();
    samples.sort();
    assert!(
        samples.len() >= 10,
        "expected the samples in {}",
        dir.display()
    );
    samples
}

/// The texts of every sample, sorted by file name.
///
/// # Panics
///
/// As [`load`], and when a sample is not UTF-8.
pub fn texts() -> Vec<String> {
    load()
        .into_iter()
        .map(|s| String::from_utf8(s.bytes).unwrap_or_else(|_| panic!("{} is not UTF-8", s.name)))
        .collect()
}
