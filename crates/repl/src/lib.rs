//! `tessera repl`: write and run C++ AMP code one input at a time.
//!
//! An input is either top-level declarations (`#include`, `#define`,
//! `using`, structs, functions, `static` globals) or statements, which run
//! as if written inside `main`; both stay for later inputs. An expression
//! written without its final `;` shows its value and type. An input that does
//! not check, or stops with a run-time error, is reported (with the same
//! rendering as `tessera check`, pointing into the input) and forgotten: the
//! session stays as it was.
//!
//! On a terminal the line editor (rustyline) keeps a history, continues an
//! input while brackets are open, completes names and meta-commands, cancels
//! an input on Ctrl-C and quits on Ctrl-D. Otherwise inputs are read line by
//! line, with the same rule for continuing, and nothing but the results is
//! written, so sessions can be scripted.
//!
//! The interpreter may use a deep native stack (user recursion, nested
//! expressions): call [`run`] and [`run_script`] on a thread with a large
//! stack, as the CLI does.
//!
//! Modules: [`input`] decides when an input is whole; [`session`] is the
//! state and what an input does to it (no terminal; it reads only the files
//! `:load` names); [`driver`] handles
//! meta-commands and writes results; `editor` is the terminal side.

pub mod driver;
mod editor;
pub mod input;
pub mod session;

use driver::{Driver, Flow};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{CompletionType, Editor};
use std::io::{BufRead, IsTerminal, Write};

pub use editor::history_path;
pub use session::{Engine, KernelCode, Report, Session, TypeOf};

/// Exit status when a scripted session had an input that failed.
pub const EXIT_FAILED_INPUT: u8 = 1;

/// Exit status when the terminal could not be used.
pub const EXIT_TERMINAL: u8 = 2;

/// How to run a session.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Colour diagnostics.
    pub color: bool,
    /// How inputs run (`check` is `:check on` from the start).
    pub options: tessera_interp::Options,
    /// When reading a script: write each input after a prompt before its
    /// results, so the output reads like the terminal session would.
    pub echo: bool,
    /// Macros defined before the first input (`-D NAME=VALUE`), each as
    /// `#define NAME VALUE`.
    pub defines: Vec<(String, String)>,
    /// The engine inputs run with at the start (`:engine` changes it).
    pub engine: Engine,
    /// Worker threads for kernels under the JIT; `None`: one per core.
    pub threads: Option<usize>,
}

/// The prompt of a new input.
pub const PROMPT: &str = "amp> ";

/// What `echo` puts before each further line of an input.
pub const CONTINUATION: &str = "...> ";

/// Runs a session on the process's standard streams: with the line editor
/// when standard input is a terminal, as a script otherwise. Returns the exit
/// status.
pub fn run(config: &Config) -> u8 {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        run_terminal(config)
    } else {
        let mut out = std::io::stdout();
        let mut err = std::io::stderr();
        run_script(config, &mut stdin.lock(), &mut out, &mut err)
    }
}

/// Runs a session over `input` read line by line (lines are joined while an
/// input is not whole, see [`input::is_complete`]), writing results to `out`
/// and diagnostics to `err`. Returns 0 when every input succeeded and
/// [`EXIT_FAILED_INPUT`] otherwise.
pub fn run_script(
    config: &Config,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let mut driver = Driver::new(config.options, out, err, config.color);
    driver.configure(config);
    let mut buffer = String::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let end = match input.read_until(b'\n', &mut line) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => {
                driver.fail(&format!("cannot read the input: {e}"));
                true
            }
        };
        if !end {
            let text = String::from_utf8_lossy(&line);
            if buffer.is_empty() && text.trim().is_empty() {
                continue;
            }
            buffer.push_str(text.trim_end_matches(['\n', '\r']));
            buffer.push('\n');
            if !input::is_complete(&buffer) {
                continue;
            }
        }
        let whole = std::mem::take(&mut buffer);
        let whole = whole.trim_end();
        if !whole.is_empty() {
            if config.echo {
                driver.echo(whole);
            }
            if driver.handle(whole) == Flow::Quit {
                break;
            }
        }
        if end {
            break;
        }
    }
    if driver.failures() > 0 {
        EXIT_FAILED_INPUT
    } else {
        0
    }
}

/// The interactive session.
fn run_terminal(config: &Config) -> u8 {
    let editor_config = rustyline::Config::builder()
        .auto_add_history(false)
        .completion_type(CompletionType::List)
        .build();
    let mut editor: Editor<editor::ReplHelper, DefaultHistory> =
        match Editor::with_config(editor_config) {
            Ok(editor) => editor,
            Err(e) => {
                eprintln!("error: cannot use the terminal: {e}");
                return EXIT_TERMINAL;
            }
        };
    editor.set_helper(Some(editor::ReplHelper::new()));
    let history = history_path();
    if let Some(path) = &history {
        // A missing file is the first session; anything else is worth a word.
        if path.exists()
            && let Err(e) = editor.load_history(path)
        {
            eprintln!("warning: cannot read the history {}: {e}", path.display());
        }
    }
    let mut out = std::io::stdout();
    let mut err = std::io::stderr();
    println!(
        "Tessera {} REPL: C++ AMP on the CPU. `:help` lists the commands, Ctrl-D quits.",
        env!("CARGO_PKG_VERSION")
    );
    let mut driver = Driver::new(config.options, &mut out, &mut err, config.color);
    driver.configure(config);
    // At the prompt the editor reads Ctrl-C as a key; while an input runs the
    // terminal sends SIGINT, which stops that input instead of the REPL.
    let flag = driver.interrupt_flag();
    if let Err(e) =
        ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed))
    {
        eprintln!("warning: Ctrl-C will end the REPL, not just the running input: {e}");
    }
    let mut history_failed = false;
    loop {
        match editor.readline(PROMPT) {
            Ok(line) => {
                if line.trim().is_empty() {
                    continue;
                }
                let _ = editor.add_history_entry(line.as_str());
                if let Some(path) = &history
                    && !history_failed
                    && let Err(e) = save_history(&mut editor, path)
                {
                    history_failed = true;
                    eprintln!("warning: cannot write the history {}: {e}", path.display());
                }
                if driver.handle(&line) == Flow::Quit {
                    break;
                }
                if let Some(helper) = editor.helper_mut() {
                    helper.names = driver.names();
                }
            }
            // Ctrl-C: the input is dropped; a new prompt follows.
            Err(ReadlineError::Interrupted) => {}
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("error: cannot read the terminal: {e}");
                return EXIT_TERMINAL;
            }
        }
    }
    0
}

/// Appends the new history entries to the history file, creating its folder.
fn save_history(
    editor: &mut Editor<editor::ReplHelper, DefaultHistory>,
    path: &std::path::Path,
) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    editor.append_history(path).map_err(|e| e.to_string())
}
