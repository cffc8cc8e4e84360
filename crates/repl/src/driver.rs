//! One input at a time, whatever it came from: meta-commands, then code
//! through the [`Session`], with the results written out for people.
//!
//! Program output, shown values and the answers of meta-commands go to
//! `out`; diagnostics and the REPL's own error messages go to `err`. `out`
//! is flushed before anything is written to `err`, so the two interleave in
//! order when they end up in one place (`2>&1`).

use crate::input::meta_command;
use crate::session::{Engine, Report, Session, TypeOf};
use crate::{CONTINUATION, PROMPT};
use std::io::Write;
use std::path::Path;
use std::time::Duration;
use tessera_diagnostics::render::Renderer;

/// The meta-commands, for `:help` and completion.
pub const META_COMMANDS: &[(&str, &str)] = &[
    (":help", "show this help"),
    (":type EXPR", "show the type of EXPR without running it"),
    (
        ":load FILE",
        "declare a file's structs, functions and globals (its `main` is not run)",
    ),
    (
        ":check on|off",
        "find races, barrier divergence and uninitialised reads while running",
    ),
    (":time [INPUT]", "time INPUT, or the next input"),
    (
        ":engine jit|interp",
        "choose the engine that runs inputs (jit by default)",
    ),
    (
        ":clif [all]",
        "show the JIT's Cranelift IR for the last kernel (or for every kernel)",
    ),
    (":reset", "forget every declaration and variable"),
    (":quit", "leave (Ctrl-D does too)"),
];

/// Whether to go on reading inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next input.
    Continue,
    /// `:quit`.
    Quit,
}

/// Writes `text` as it was written, remembering whether it ended a line.
struct Tracked<'a> {
    inner: &'a mut dyn Write,
    last: Option<u8>,
}

impl Write for Tracked<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        if n > 0 {
            self.last = buf.get(n - 1).copied();
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Runs inputs against a session and writes what happened.
pub struct Driver<'w> {
    session: Session,
    out: &'w mut dyn Write,
    err: &'w mut dyn Write,
    color: bool,
    /// `:time` was given alone: time the next input.
    time_next: bool,
    /// Inputs that were not accepted (or meta-commands that failed).
    failures: usize,
}

impl<'w> Driver<'w> {
    /// Defines macros before every input (see [`Session::predefine`]).
    pub fn predefine(&mut self, defines: &[(String, String)]) {
        self.session.predefine(defines);
    }

    /// Takes the rest of `config` (its options and colour are
    /// [`Driver::new`]'s): the macros, the engine and the worker threads.
    pub fn configure(&mut self, config: &crate::Config) {
        self.session.predefine(&config.defines);
        self.session.set_engine(config.engine);
        if let Some(threads) = config.threads {
            self.session.set_threads(threads);
        }
    }

    /// A driver over a new session; `color` colours diagnostics.
    pub fn new(
        options: tessera_interp::Options,
        out: &'w mut dyn Write,
        err: &'w mut dyn Write,
        color: bool,
    ) -> Driver<'w> {
        Driver {
            session: Session::new(options),
            out,
            err,
            color,
            time_next: false,
            failures: 0,
        }
    }

    /// How many inputs failed so far.
    pub fn failures(&self) -> usize {
        self.failures
    }

    /// The flag that stops the running input (for a Ctrl-C handler).
    pub fn interrupt_flag(&self) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
        self.session.interrupt_flag()
    }

    /// The session's names, for completion.
    pub fn names(&self) -> Vec<String> {
        self.session.names()
    }

    fn say(&mut self, text: &str) {
        // A closed pipe is not worth a panic; the next read ends the session.
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    fn complain(&mut self, text: &str) {
        self.failures += 1;
        let _ = self.out.flush();
        let _ = self.err.write_all(format!("error: {text}\n").as_bytes());
        let _ = self.err.flush();
    }

    /// Writes `input` after the prompt, each further line after
    /// [`CONTINUATION`], as a transcript of the session shows it.
    pub fn echo(&mut self, input: &str) {
        let mut text = String::new();
        for (i, line) in input.lines().enumerate() {
            text.push_str(if i == 0 { PROMPT } else { CONTINUATION });
            text.push_str(line);
            text.push('\n');
        }
        self.say(&text);
    }

    /// Reports a problem of the REPL's own (an unreadable input).
    pub fn fail(&mut self, message: &str) {
        self.complain(message);
    }

    /// Handles one whole input (see [`crate::input::is_complete`]).
    pub fn handle(&mut self, input: &str) -> Flow {
        if input.trim().is_empty() {
            return Flow::Continue;
        }
        match meta_command(input) {
            Some((word, arg)) => self.meta(word, arg),
            None => {
                self.code(input);
                Flow::Continue
            }
        }
    }

    fn meta(&mut self, word: &str, arg: &str) -> Flow {
        match (word, arg) {
            ("help" | "h" | "?", _) => self.help(),
            ("quit" | "q" | "exit", _) => return Flow::Quit,
            ("type" | "t", "") => {
                self.complain("`:type` needs an expression, e.g. `:type v[0] + 1`")
            }
            ("type" | "t", expr) => self.type_of(expr),
            ("load" | "l", "") => {
                self.complain("`:load` needs a file, e.g. `:load samples/sampling_average.amp`")
            }
            ("load" | "l", path) => {
                let timed = std::mem::take(&mut self.time_next);
                let report = {
                    let mut tracked = Tracked {
                        inner: &mut *self.out,
                        last: Some(b'\n'),
                    };
                    let report = self.session.load(Path::new(path), &mut tracked);
                    end_line(&mut tracked);
                    report
                };
                self.report(report, timed);
            }
            ("check", "") => {
                let state = if self.session.options().check {
                    "on"
                } else {
                    "off"
                };
                self.say(&format!("dynamic checks are {state}\n"));
            }
            ("check", "on" | "off") => {
                let mut options = self.session.options();
                options.check = arg == "on";
                self.session.set_options(options);
                let mut text = String::from(if options.check {
                    "dynamic checks on: races, barrier divergence, uninitialised `tile_static` reads, missing `synchronize()` and reads of discarded data are reported\n"
                } else {
                    "dynamic checks off\n"
                });
                if self.session.engine() == Engine::Jit {
                    text.push_str(if options.check {
                        "dynamic checks run in the interpreter: inputs run there, not in the JIT, until `:check off`\n"
                    } else {
                        "inputs run in the JIT again\n"
                    });
                }
                self.say(&text);
            }
            ("check", other) => self.complain(&format!(
                "`:check {other}`: say `:check on` or `:check off`"
            )),
            ("engine", "") => self.engine(),
            ("engine", "jit") => {
                self.session.set_engine(Engine::Jit);
                self.engine();
            }
            ("engine", "interp") => {
                self.session.set_engine(Engine::Interp);
                self.engine();
            }
            ("engine", other) => self.complain(&format!(
                "`:engine {other}`: the engines are `jit` and `interp`"
            )),
            ("clif", "") => self.clif(false),
            ("clif", "all") => self.clif(true),
            ("clif", other) => self.complain(&format!(
                "`:clif {other}`: say `:clif` for the last kernel or `:clif all` for every kernel"
            )),
            ("time", "") => {
                self.time_next = true;
                self.say("the next input will be timed\n");
            }
            ("time", code) => {
                self.time_next = true;
                self.handle(code);
            }
            ("reset", _) => {
                self.session.reset();
                self.time_next = false;
                self.say("session reset: every declaration and variable is gone\n");
            }
            (other, _) => self.complain(&format!(
                "unknown command `:{other}`; `:help` lists the commands"
            )),
        }
        Flow::Continue
    }

    fn help(&mut self) {
        let mut text = String::from(
            "Type C++ AMP declarations (`#include`, `#define`, `using`, structs, functions,\n\
             `static` globals) or statements, which run as if inside `main`; variables stay\n\
             from one input to the next. End an expression without `;` to see its value.\n\
             Lines continue while a bracket is open. Commands:\n",
        );
        let width = META_COMMANDS
            .iter()
            .map(|(c, _)| c.len())
            .max()
            .unwrap_or(0);
        for (command, what) in META_COMMANDS {
            text.push_str(&format!("  {command:width$}  {what}\n"));
        }
        self.say(&text);
    }

    /// `:engine`: the engine chosen, and whether it is the one that runs.
    fn engine(&mut self) {
        let engine = self.session.engine();
        let what = match engine {
            Engine::Jit => {
                "Cranelift: kernels and the host loops it can compile run as native code, the rest in the interpreter"
            }
            Engine::Interp => "the reference interpreter",
        };
        let mut text = format!("engine: {} ({what})\n", engine.name());
        if engine == Engine::Jit && !self.session.runs_jit() {
            text.push_str(
                "dynamic checks are on, and they run in the interpreter: inputs run there until `:check off`\n",
            );
        }
        self.say(&text);
    }

    /// `:clif`: the JIT's code for the session's last kernel, or with `all`
    /// for every kernel.
    fn clif(&mut self, all: bool) {
        let mut kernels = self.session.kernels();
        if kernels.is_empty() {
            self.say("no kernel yet\n");
            return;
        }
        if !all {
            kernels.drain(..kernels.len() - 1);
        }
        let mut text = String::new();
        for (i, k) in kernels.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let what = match k.tile {
                Some(t) => format!("tiled kernel <{t}>"),
                None => "kernel".to_string(),
            };
            text.push_str(&format!("; {what} at {}\n", k.place));
            match &k.clif {
                Ok(clif) => {
                    text.push_str(clif);
                    if !clif.ends_with('\n') {
                        text.push('\n');
                    }
                }
                Err(why) => text.push_str(&format!("; runs in the interpreter: {why}\n")),
            }
        }
        self.say(&text);
    }

    fn type_of(&mut self, expr: &str) {
        match self.session.type_of(expr) {
            TypeOf::Type(ty) => self.say(&format!("{ty}\n")),
            TypeOf::NotAnExpression => self.complain("`:type` takes one expression"),
            TypeOf::Errors(diagnostics) => {
                self.failures += 1;
                self.render(&diagnostics);
            }
        }
    }

    fn code(&mut self, input: &str) {
        let timed = std::mem::take(&mut self.time_next);
        let report = {
            let mut tracked = Tracked {
                inner: &mut *self.out,
                last: Some(b'\n'),
            };
            let report = self.session.eval(input, &mut tracked);
            end_line(&mut tracked);
            report
        };
        self.report(report, timed);
    }

    /// Writes what an input did: diagnostics, the REPL's complaint, the shown
    /// value, the message, the time.
    fn report(&mut self, report: Report, timed: bool) {
        self.render(&report.diagnostics);
        if let Some(error) = &report.error {
            self.complain(error);
        } else if !report.accepted {
            self.failures += 1;
        }
        if let Some(shown) = &report.shown {
            self.say(&show(&shown.text, &shown.ty));
        }
        if let Some(message) = &report.message {
            self.say(&format!("{message}\n"));
        }
        if timed {
            let total = report.check_time + report.run_time;
            let compile = report.jit_compile.map_or(String::new(), |c| {
                format!(", of which JIT compile {}", millis(c))
            });
            let _ = self.out.flush();
            let _ = writeln!(
                self.err,
                "time: {} (parse and check {}, run {}{compile})",
                millis(total),
                millis(report.check_time),
                millis(report.run_time)
            );
            let _ = self.err.flush();
        }
    }

    fn render(&mut self, diagnostics: &[tessera_diagnostics::Diagnostic]) {
        if diagnostics.is_empty() {
            return;
        }
        let _ = self.out.flush();
        let mut renderer = Renderer::new(self.session.sources(), self.color);
        for d in diagnostics {
            let _ = self.err.write_all(renderer.render(d).as_bytes());
        }
        let _ = self.err.flush();
    }
}

/// Ends the program's last line if it left one open, so that what follows
/// (a value, the next prompt) starts on a line of its own.
fn end_line(tracked: &mut Tracked<'_>) {
    if tracked.last.is_some_and(|b| b != b'\n') {
        let _ = tracked.inner.write_all(b"\n");
    }
    let _ = tracked.inner.flush();
}

/// `= 5 : int`; a value of several lines (a grid, a tile map) keeps its
/// first line beside the type and the rest below, indented.
fn show(text: &str, ty: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    let mut shown = format!("= {first} : {ty}\n");
    for line in lines {
        shown.push_str("  ");
        shown.push_str(line);
        shown.push('\n');
    }
    shown
}

fn millis(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::show;

    #[test]
    fn values_show_with_their_type() {
        assert_eq!(show("5", "int"), "= 5 : int\n");
        assert_eq!(
            show("extent (2,2)\n1 2\n3 4", "array_view<int, 2>"),
            "= extent (2,2) : array_view<int, 2>\n  1 2\n  3 4\n"
        );
    }
}
