//! `tessera repl` as a process: scripted through a pipe, and used through a
//! pseudo-terminal as a person would (line editing, completion, Ctrl-C,
//! Ctrl-D, the history file). What each input does is covered by the REPL's
//! own transcript tests (`crates/repl/tests/`); these check the process
//! around them.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long the terminal test waits for any one answer; each comes in
/// milliseconds, the margin absorbs a loaded machine.
const PATIENCE: Duration = Duration::from_secs(20);

/// The repository root: this crate is `crates/cli`.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A history file of this test's own, removed first.
fn scratch_history(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "tessera-repl-{name}-{}.history",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}

/// Runs `tessera repl ARGS` with `script` on a pipe as standard input.
fn piped(args: &[&str], script: &str, history: &Path) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(repo_root())
        .arg("repl")
        .args(args)
        .env("TESSERA_HISTORY", history)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tessera runs");
    let mut stdin = child.stdin.take().expect("a pipe to stdin");
    stdin
        .write_all(script.as_bytes())
        .expect("write the script");
    drop(stdin);
    child.wait_with_output().expect("tessera ends")
}

const SCRIPT: &str = "#include <iostream>
#include <amp.h>
using namespace concurrency;
std::vector<int> v(4);
array_view<int, 1> av(4, v);
parallel_for_each(av.extent, [=](index<1> i) restrict(amp) {
    av[i] = i[0] * i[0];
});
av
std::cout << v[3] << \"\\n\";
v[3] + missing
:type v[0] * 0.5
";

#[test]
fn a_piped_session_prints_plain_results_and_fails_if_an_input_did() {
    let history = scratch_history("piped");
    let output = piped(&[], SCRIPT, &history);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stdout,
        "= [0, 1, 4, 9] extent (4) : array_view<int, 1>\n9\ndouble\n"
    );
    assert!(
        stderr.starts_with("error[E0200]: cannot find `missing` in this scope\n"),
        "{stderr}"
    );
    assert!(!stdout.contains('\x1b') && !stderr.contains('\x1b'));
    assert_eq!(output.status.code(), Some(1));
    assert!(!history.exists(), "a script must not write the history");
}

#[test]
fn echo_shows_each_input_after_its_prompt() {
    let history = scratch_history("echo");
    let output = piped(
        &["--echo", "--check"],
        "int x = 6;\nint y = (x +\n  1);\nx * y\n:check\n",
        &history,
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "amp> int x = 6;\namp> int y = (x +\n...>   1);\namp> x * y\n= 42 : int\namp> :check\ndynamic checks are on\n"
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn run_options_apply_to_each_input() {
    // The engine, the workers and the limits of `tessera run`, for every
    // input: one that runs too long is stopped and forgotten, and the
    // session goes on with the same limit.
    let history = scratch_history("options");
    let script = "#include <vector>
:engine
long n = 0;
while (true) { n++; }
std::vector<int> big(100000000);
int kept = 7;
kept
while (kept > 0) { n++; }
";
    let started = Instant::now();
    let output = piped(
        &[
            "--engine",
            "interp",
            "--threads",
            "3",
            "--timeout",
            "0.5",
            "--max-memory",
            "64M",
        ],
        script,
        &history,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stdout, "engine: interp (the reference interpreter)\n= 7 : int\n",
        "{stderr}"
    );
    let codes: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("error["))
        .filter_map(|l| l.get(..5))
        .collect();
    assert_eq!(codes, ["R0009", "R0010", "R0009"], "{stderr}");
    assert_eq!(output.status.code(), Some(1));
    assert!(started.elapsed() < PATIENCE, "{:?}", started.elapsed());
    // Without the options, the JIT is the engine.
    let output = piped(&[], ":engine\n", &history);
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("engine: jit "));
    // The options are checked as `tessera run` checks them.
    for bad in [["--threads", "0"], ["--timeout", "-1"], ["--engine", "gpu"]] {
        let output = piped(&bad, "", &history);
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn load_reads_paths_from_the_working_directory() {
    let history = scratch_history("load");
    let output = piped(
        &[],
        ":load samples/tiling_description.amp\nROWS * COLS\n",
        &history,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("loaded ") && stdout.ends_with("= 72 : int\n"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(0));
}

/// The terminal side of a pseudo-terminal: what the REPL wrote so far, and
/// how far the test has read it.
struct Terminal {
    child: Child,
    keys: File,
    screen: Receiver<Vec<u8>>,
    text: Vec<u8>,
    seen: usize,
}

impl Terminal {
    /// Waits until `what` appears after what was read so far, and reads up
    /// to its end.
    fn expect(&mut self, what: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(at) = find(&self.text[self.seen..], what.as_bytes()) {
                self.seen += at + what.len();
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.screen.recv_timeout(left) {
                Ok(bytes) => self.text.extend_from_slice(&bytes),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => panic!(
                    "the REPL never wrote {what:?}; after what the test read it wrote:\n{}",
                    String::from_utf8_lossy(&self.text[self.seen..])
                ),
            }
        }
    }

    /// Types `keys`.
    fn send(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).expect("type");
        self.keys.flush().expect("type");
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        // A failed test must not leave the REPL behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Starts `tessera repl` on a new pseudo-terminal, through `wrapper` (a
/// command and its arguments before the binary) if given.
fn open_terminal(history: &Path, wrapper: &[&str]) -> Terminal {
    let size = nix::pty::Winsize {
        ws_row: 40,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = nix::pty::openpty(Some(&size), None).expect("open a pseudo-terminal");
    let child = {
        let slave = File::from(pty.slave);
        let stdio = |f: &File| Stdio::from(f.try_clone().expect("share the terminal"));
        let tessera = env!("CARGO_BIN_EXE_tessera");
        let mut command = match wrapper.split_first() {
            Some((first, rest)) => {
                let mut c = Command::new(first);
                c.args(rest).arg(tessera);
                c
            }
            None => Command::new(tessera),
        };
        command
            .current_dir(repo_root())
            .arg("repl")
            .env("TESSERA_HISTORY", history)
            .env("TERM", "xterm")
            .env("NO_COLOR", "1")
            .stdin(stdio(&slave))
            .stdout(stdio(&slave))
            .stderr(stdio(&slave))
            .spawn()
            .expect("tessera runs")
        // The test's own ends of the terminal close here, so the screen
        // ends when the REPL does.
    };
    let master = File::from(pty.master);
    let mut reader = master.try_clone().expect("read the terminal");
    let (tx, screen) = channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    Terminal {
        child,
        keys: master,
        screen,
        text: Vec::new(),
        seen: 0,
    }
}

#[test]
fn a_terminal_session_edits_completes_cancels_and_keeps_history() {
    let history = scratch_history("terminal");
    let mut term = open_terminal(&history, &[]);

    // Each input is typed only once the prompt is there: the editor asks the
    // terminal where the cursor is before it shows the prompt.
    term.expect("`:help` lists the commands");
    term.expect("amp> ");
    term.send("int x_long = 6; x_long\r");
    term.expect("= 6 : int");
    term.expect("amp> ");
    // Tab completes a name the session declared.
    term.send("x_l\t * 7\r");
    term.expect("= 42 : int");
    term.expect("amp> ");
    // An open bracket continues the input on the next line.
    term.send("int z = (1 +\r2); z\r");
    term.expect("= 3 : int");
    term.expect("amp> ");
    // Ctrl-C drops the input being typed: `y` was never declared.
    term.send("int y = 1");
    term.send("\x03");
    term.expect("amp> ");
    term.send("y\r");
    term.expect("cannot find `y`");
    term.expect("amp> ");
    // Tab completes a command.
    term.send(":ty\t z\r");
    term.expect(":type");
    term.expect(" z");
    term.expect("int\r\n");
    term.expect("amp> ");
    // Ctrl-D on an empty line leaves.
    term.send("\x04");
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = term.child.try_wait().expect("wait for the REPL") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the REPL did not leave on Ctrl-D"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status:?}");

    let saved = std::fs::read_to_string(&history).expect("the history was written");
    let _ = std::fs::remove_file(&history);
    for entry in ["int x_long = 6; x_long", "x_long * 7", "y", ":type z"] {
        assert!(
            saved.lines().any(|l| l == entry),
            "{entry:?} missing from the history:\n{saved}"
        );
    }
    assert!(
        saved.contains("int z = (1 +"),
        "the two-line input is missing from the history:\n{saved}"
    );
}

#[test]
fn ctrl_c_stops_the_running_input_and_the_session_goes_on() {
    // Ctrl-C reaches the REPL as SIGINT only when the terminal is its
    // controlling terminal; `setsid --ctty` (util-linux) arranges that.
    if Command::new("setsid").arg("--version").output().is_err() {
        eprintln!("setsid is not available: the test of Ctrl-C while running is skipped");
        return;
    }
    let history = scratch_history("interrupt");
    let mut term = open_terminal(&history, &["setsid", "--ctty"]);
    term.expect("amp> ");
    term.send("int kept = 5;\r");
    term.expect("amp> ");
    term.send("unsigned int spin = 1u; while (spin != 0u) { spin = spin * 3u + 1u; }\r");
    std::thread::sleep(Duration::from_millis(300));
    term.send("\x03");
    term.expect("R0012");
    term.expect("amp> ");
    term.send("kept + 1\r");
    term.expect("= 6 : int");
    term.expect("amp> ");
    // A kernel that never ends, compiled by the JIT (the default engine),
    // stops the same way.
    term.send("#include <amp.h>\r");
    term.expect("amp> ");
    term.send("std::vector<int> w(4); concurrency::array_view<int, 1> aw(4, w);\r");
    term.expect("amp> ");
    term.send(
        "concurrency::parallel_for_each(aw.extent, [=](concurrency::index<1> i) restrict(amp) { unsigned int s = 1u; while (s != 0u) { s = s * 3u + 2u; } aw[i] = (int)s; });\r",
    );
    std::thread::sleep(Duration::from_millis(300));
    term.send("\x03");
    term.expect("R0012");
    term.expect("amp> ");
    term.send("kept + 2\r");
    term.expect("= 7 : int");
    term.expect("amp> ");
    term.send("\x04");
    let _ = std::fs::remove_file(&history);
}
