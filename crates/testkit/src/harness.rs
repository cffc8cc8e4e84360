//! Small pieces every robustness test and benchmark needs: panic counting,
//! span validation, a watched worker thread, numbers from the environment,
//! median timing.

use std::cell::Cell;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Once, mpsc};
use std::thread;
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

/// The message of a panic payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(not a string)".to_string()
    }
}

/// Runs `job` on a thread named `name` with a stack of `stack` bytes and
/// waits for its result. The job counts its units of work in the counter it
/// is given; if the count stands still for longer than `limit`, the wait
/// ends with an error that includes `on_hang()` (a description of the stuck
/// unit). A job whose thread dies (a panic that escaped) is an error too.
pub fn run_watched<T: Send + 'static>(
    name: &str,
    stack: usize,
    limit: Duration,
    job: impl FnOnce(&AtomicUsize) -> Result<T, String> + Send + 'static,
    on_hang: impl Fn() -> String,
) -> Result<T, String> {
    let progress = Arc::new(AtomicUsize::new(0));
    let worker_progress = Arc::clone(&progress);
    let (tx, rx) = mpsc::channel();
    let worker = thread::Builder::new()
        .name(name.into())
        .stack_size(stack)
        .spawn(move || {
            let _ = tx.send(job(&worker_progress));
        })
        .map_err(|e| format!("cannot start the {name} thread: {e}"))?;
    let mut last = (0, Instant::now());
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(outcome) => return outcome,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let why = worker
                    .join()
                    .err()
                    .map(|p| panic_text(&*p))
                    .unwrap_or_default();
                return Err(format!("the {name} thread died: {why}"));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let now = progress.load(Ordering::Relaxed);
                if now != last.0 {
                    last = (now, Instant::now());
                } else if last.1.elapsed() > limit {
                    return Err(format!(
                        "a unit of work took more than {limit:?} (a hang?): {}",
                        on_hang()
                    ));
                }
            }
        }
    }
}

/// What one process did.
#[derive(Debug)]
pub struct Ran {
    /// What it wrote to standard output.
    pub stdout: Vec<u8>,
    /// What it wrote to standard error.
    pub stderr: String,
    /// The exit status, or why there is none (a signal, the time limit).
    pub status: Result<i32, String>,
}

/// Runs `command` without stdin, collecting its output, killed after `limit`.
pub fn run_limited(command: &mut Command, limit: Duration) -> Ran {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(err) => {
            return Ran {
                stdout: Vec::new(),
                stderr: String::new(),
                status: Err(format!("cannot start {command:?}: {err}")),
            };
        }
    };
    let out_pipe = child.stdout.take();
    let err_pipe = child.stderr.take();
    std::thread::scope(|scope| {
        let out = scope.spawn(move || read_all(out_pipe));
        let err = scope.spawn(move || read_all(err_pipe));
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    break status
                        .code()
                        .ok_or_else(|| format!("killed by a signal ({status})"));
                }
                Ok(None) if started.elapsed() > limit => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break Err(format!("no result after {limit:?}; killed"));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(err) => break Err(format!("cannot wait: {err}")),
            }
        };
        Ran {
            stdout: out.join().unwrap_or_default(),
            stderr: String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned(),
            status,
        }
    })
}

fn read_all(pipe: Option<impl Read>) -> Vec<u8> {
    let mut bytes = Vec::new();
    if let Some(mut pipe) = pipe {
        let _ = pipe.read_to_end(&mut bytes);
    }
    bytes
}
