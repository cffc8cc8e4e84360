//! Small pieces every robustness test and benchmark needs: panic counting,
//! span validation, numbers from the environment, median timing.

use std::cell::Cell;
use std::sync::Once;
use std::time::{Duration, Instant};
use tessera_diagnostics::{Sources, Span};

thread_local! {
    /// Panics seen on this thread, caught or not. The renderer catches its own
    /// panics (it falls back to plain text); those are bugs all the same.
    static PANICS: Cell<usize> = const { Cell::new(0) };
}

/// Makes every later panic count in [`panics_here`], keeping the default report.
pub fn count_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.with(|p| p.set(p.get() + 1));
            default(info);
        }));
    });
}

/// Panics seen on the current thread since [`count_panics`] was first called.
pub fn panics_here() -> usize {
    PANICS.with(Cell::get)
}

/// A span must name a file of `sources` and lie within its text, on
/// character boundaries; `what` names the span in the error.
pub fn check_span(sources: &Sources, span: Span, what: &str) -> Result<(), String> {
    let Some(file) = sources.get(span.file) else {
        return Err(format!("{what}: span {span:?} names no file"));
    };
    let text = &file.text;
    let (start, end) = (span.start as usize, span.end as usize);
    if start > end || end > text.len() {
        return Err(format!(
            "{what}: span {start}..{end} outside the text (length {})",
            text.len()
        ));
    }
    if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return Err(format!(
            "{what}: span {start}..{end} is not on character boundaries"
        ));
    }
    Ok(())
}

/// A number from environment variable `name` (decimal or `0x` hex), if set.
///
/// # Panics
/// If the variable is set to something that is not a number: a test run with
/// a mistyped seed should stop, not silently use the default.
pub fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.trim();
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name} must be a number, not {text:?}")))
}

/// The median wall time of `runs` calls of `job` (after one warm-up call).
pub fn median_time(runs: usize, mut job: impl FnMut()) -> Duration {
    job();
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            job();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}
