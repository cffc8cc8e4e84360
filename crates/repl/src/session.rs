//! The state of a session and what one input does to it, without a terminal.
//!
//! A session is a program that grows: the accepted declarations, then a
//! `main` whose body is every accepted statement. Each input is parsed (as
//! declarations or as statements, see [`Session::eval`]), added to that
//! program, and the whole program is checked again; only an input that checks
//! without errors and runs without a run-time error is kept. Lowering is
//! deterministic, so the accepted prefix lowers to the same globals and the
//! same first statements of `main` every time, and the interpreter's
//! [`tessera_interp::Session`] runs only what is new.
//!
//! With the JIT engine (the default, as for `tessera run`), each input's
//! program gets a fresh [`tessera_jit::Jit`], which the interpreter offers
//! every kernel launch (and the host loops it can compile); a kernel is
//! compiled at its first launch. A launch the JIT declines or fails is run by
//! the interpreter, so both engines print the same output and the same
//! errors. `:check on` watches every access, which only the interpreter
//! sees, so checked inputs run there whatever the engine.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tessera_diagnostics::{Diagnostic, FileId, SourceFile, Sources, Span};
use tessera_interp::Shown;
use tessera_ir::{Program, StmtKind as IrStmtKind};
use tessera_syntax::ast::{
    BaseType, Block, Builtin, DeclSpecs, Function, Ident, Item, ItemKind, Modifiers, Stmt,
    StmtKind, TranslationUnit,
};
use tessera_syntax::token::Tok;
use tessera_syntax::{ParseSession, parse_in, parse_stmts_in};

/// Why an input may not name `main`.
const NAMES_MAIN: &str = "`main` is the session itself: C++ does not let a program use `main`, and calling it here would run every input again";

/// The text of the file that `main`'s own spans point into.
const MAIN_TEXT: &str = "int main() {}";

/// What one input did.
#[derive(Debug, Default)]
pub struct Report {
    /// Whether the input became part of the session.
    pub accepted: bool,
    /// What to show the user, in order: the checker's warnings (or errors),
    /// the findings of `:check on`, the run-time error.
    pub diagnostics: Vec<Diagnostic>,
    /// The value of a final expression written without `;`.
    pub shown: Option<Shown>,
    /// A problem with the input that is the session's own rule, not C++'s
    /// (a `main` typed at the prompt, an unreadable file).
    pub error: Option<String>,
    /// Something to tell the user about an accepted input (what `:load` did).
    pub message: Option<String>,
    /// Time spent parsing and checking.
    pub check_time: Duration,
    /// Time spent running.
    pub run_time: Duration,
    /// Of the run time, what the JIT spent compiling, when the JIT ran the
    /// input.
    pub jit_compile: Option<Duration>,
}

impl Report {
    fn rejected(diagnostics: Vec<Diagnostic>) -> Report {
        Report {
            diagnostics,
            ..Report::default()
        }
    }

    fn refused(error: String) -> Report {
        Report {
            error: Some(error),
            ..Report::default()
        }
    }
}

/// What `:type` found.
#[derive(Debug)]
pub enum TypeOf {
    /// The expression's type as C++ writes it.
    Type(String),
    /// The input was not a single expression.
    NotAnExpression,
    /// The expression does not check.
    Errors(Vec<Diagnostic>),
}

pub use tessera_driver::Engine;

/// One kernel of the session and the JIT's code for it (see
/// [`Session::kernels`]).
#[derive(Clone, Debug)]
pub struct KernelCode {
    /// Where the kernel was written: `<input N>:line:col`, or a loaded file.
    pub place: String,
    /// Its tile shape, when tiled.
    pub tile: Option<tessera_ir::TileShape>,
    /// Its Cranelift IR, or why it runs in the interpreter.
    pub clif: Result<String, String>,
}

/// How an accepted input was read, to read it again (see [`Session::replay`]).
#[derive(Debug)]
struct Accepted {
    file: FileId,
    replaced: Vec<usize>,
    as_stmts: bool,
}

/// An input as read, before it is checked.
enum Reading {
    /// Top-level declarations.
    Items(Vec<Item>),
    /// Statements for `main`; `show` when the last one is an expression
    /// written without its `;`.
    Stmts { stmts: Vec<Stmt>, show: bool },
}

/// A REPL session: every accepted input, the interpreter's state and the
/// engine inputs run with.
pub struct Session {
    sources: Sources,
    /// The file `main`'s own spans point into.
    main_file: FileId,
    /// Every accepted input, in order.
    accepted: Vec<Accepted>,
    /// Accepted top-level declarations, in order.
    decls: Vec<Item>,
    /// Accepted statements: the body of `main`.
    body: Vec<Stmt>,
    /// Globals of the program already initialised by the engine.
    globals_run: usize,
    /// Statements of `main`'s lowered body already run.
    stmts_run: usize,
    /// The interpreter's state: globals and `main`'s variables.
    interp: tessera_interp::Session,
    /// The engine chosen to run inputs.
    engine: Engine,
    /// Worker threads for kernels under the JIT: one per core.
    threads: usize,
    /// Machine code kept for the session: an input that launches the
    /// kernels of earlier inputs again does not compile them again.
    code: std::sync::Arc<dyn tessera_jit::CodeStore>,
    /// The program of the last accepted input (for `:clif`).
    program: Option<Program>,
    /// Inputs read so far (for their names, `<input N>`), across resets.
    inputs: usize,
    /// Set by Ctrl-C while an input runs: stops it (R0012). Kept across
    /// resets, since the signal handler holds it.
    interrupt: Arc<AtomicBool>,
    /// The `-D` definitions the session started with, as a file of
    /// `#define` lines read before every input (kept across resets, as
    /// the command line that gave them does not change).
    prelude: Option<(FileId, Vec<usize>)>,
    /// What `prelude` defines, for [`Session::reset`].
    defines: Vec<(String, String)>,
    /// The parts of the library's own source (`tessera_syntax::headers`)
    /// read so far, by the name they are shown under (`<algorithm>`).
    libraries: Vec<&'static str>,
}

impl Session {
    /// An empty session whose inputs run with `options`.
    pub fn new(options: tessera_interp::Options) -> Session {
        let mut sources = Sources::new();
        let main_file = sources.add(SourceFile {
            name: "<session>".into(),
            text: MAIN_TEXT.into(),
        });
        let interrupt = Arc::new(AtomicBool::new(false));
        let mut interp = tessera_interp::Session::new(options);
        interp.set_interrupt(Arc::clone(&interrupt));
        Session {
            sources,
            main_file,
            accepted: Vec::new(),
            decls: Vec::new(),
            body: Vec::new(),
            globals_run: 0,
            stmts_run: 0,
            interp,
            engine: Engine::default(),
            threads: tessera_jit::Jit::default_threads(),
            code: std::sync::Arc::new(tessera_jit::MemoryStore::default()),
            program: None,
            inputs: 0,
            interrupt,
            prelude: None,
            defines: Vec::new(),
            libraries: Vec::new(),
        }
    }

    /// Reads the library's own source into the session when `text`
    /// includes one of its headers (`#include <algorithm>`), as a file
    /// does: its templates become the session's declarations.
    fn include_library(&mut self, text: &str) {
        for name in library_headers(text) {
            let Some((shown, library)) = tessera_syntax::headers::source_of(name) else {
                continue;
            };
            if self.libraries.contains(&shown) {
                continue;
            }
            self.libraries.push(shown);
            // What the library's text includes comes first, as in a file
            // (`<amp.h>` includes `<algorithm>` and `<string>`); each text
            // is read once, so this ends.
            self.include_library(library);
            let file = self.sources.add(SourceFile {
                name: shown.into(),
                text: library.into(),
            });
            let parsed = {
                let mut session = self.replay();
                parse_in(&mut session, file, self.text(file), &[])
            };
            if parsed.has_errors() {
                continue;
            }
            self.decls.extend(parsed.unit.items);
            self.accepted.push(Accepted {
                file,
                replaced: Vec::new(),
                as_stmts: false,
            });
        }
    }

    /// Defines macros before anything the session reads, as `tessera repl
    /// -D NAME=VALUE` asks: each `(name, value)` as `#define name value`.
    pub fn predefine(&mut self, defines: &[(String, String)]) {
        if defines.is_empty() {
            self.prelude = None;
            return;
        }
        self.defines = defines.to_vec();
        let text = tessera_driver::prelude_text(defines);
        let (file, replaced) =
            SourceFile::from_bytes(tessera_driver::COMMAND_LINE, text.as_bytes());
        self.prelude = Some((self.sources.add(file), replaced));
    }

    /// The flag that stops the running input when set (from a Ctrl-C
    /// handler).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.interrupt)
    }

    /// Forgets every declaration and variable; the options, the engine and
    /// its threads stay.
    pub fn reset(&mut self) {
        let inputs = self.inputs;
        let interrupt = Arc::clone(&self.interrupt);
        let (engine, threads) = (self.engine, self.threads);
        let defines = std::mem::take(&mut self.defines);
        *self = Session::new(self.interp.options());
        // The new session's sources are new: the prelude is added again.
        self.predefine(&defines);
        self.inputs = inputs;
        self.interp.set_interrupt(Arc::clone(&interrupt));
        self.interrupt = interrupt;
        self.engine = engine;
        self.threads = threads;
    }

    /// Every input read so far, for rendering diagnostics.
    pub fn sources(&self) -> &Sources {
        &self.sources
    }

    /// The options inputs run with.
    pub fn options(&self) -> tessera_interp::Options {
        self.interp.options()
    }

    /// Changes the options for later inputs.
    pub fn set_options(&mut self, options: tessera_interp::Options) {
        self.interp.set_options(options);
    }

    /// The engine chosen to run inputs.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Chooses the engine for later inputs.
    pub fn set_engine(&mut self, engine: Engine) {
        self.engine = engine;
    }

    /// Worker threads for kernels under the JIT.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Sets the worker threads for kernels under the JIT (at least one).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Whether the next input runs with the JIT: it is chosen and the
    /// dynamic checks, which only the interpreter makes, are off.
    pub fn runs_jit(&self) -> bool {
        tessera_driver::engine::uses_jit(self.engine, &self.interp.options())
    }

    /// Every kernel of the session's program, in the order they were typed
    /// (a file's in its order, where it was loaded), with the JIT's code for
    /// each. Compiles them all, whichever engine runs inputs.
    pub fn kernels(&self) -> Vec<KernelCode> {
        let Some(program) = &self.program else {
            return Vec::new();
        };
        let mut kernels = tessera_jit::Jit::new(program, 1).dump_clif();
        // Function order puts declarations before `main`, so a kernel in a
        // function declared late comes before one typed early at the prompt;
        // files are numbered as they are read.
        kernels.sort_by_key(|k| (k.span.file, k.span.start));
        kernels
            .into_iter()
            .map(|k| {
                let name = self
                    .sources
                    .get(k.span.file)
                    .map_or("<input>", |f| f.name.as_str());
                let (line, col) = self.sources.line_col(k.span.file, k.span.start);
                KernelCode {
                    place: format!("{name}:{line}:{col}"),
                    tile: k.tile,
                    clif: k.clif,
                }
            })
            .collect()
    }

    /// The names the session has declared: structs, functions, globals and
    /// `main`'s variables, sorted, for completion.
    pub fn names(&self) -> Vec<String> {
        let mut names = Vec::new();
        let declarators = |decl: &tessera_syntax::ast::Decl, names: &mut Vec<String>| {
            for d in &decl.declarators {
                if let Some(n) = &d.name {
                    names.push(n.name.clone());
                }
            }
        };
        for item in &self.decls {
            match &item.kind {
                ItemKind::Struct(s) => {
                    names.push(s.name.name.clone());
                    for d in &s.trailing {
                        if let Some(n) = &d.name {
                            names.push(n.name.clone());
                        }
                    }
                }
                ItemKind::Function(f) => names.push(f.name.name.clone()),
                ItemKind::Global(decl) => declarators(decl, &mut names),
                _ => {}
            }
        }
        for stmt in &self.body {
            if let StmtKind::Decl(decl) = &stmt.kind {
                declarators(decl, &mut names);
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// Adds an input's text as a new source file, `<input N>`.
    fn add_input(&mut self, text: &str) -> (FileId, Vec<usize>) {
        self.inputs += 1;
        let (file, replaced) =
            SourceFile::from_bytes(format!("<input {}>", self.inputs), text.as_bytes());
        (self.sources.add(file), replaced)
    }

    fn text(&self, file: FileId) -> &str {
        self.sources.get(file).map_or("", |f| f.text.as_str())
    }

    /// A parse session that has read every accepted input again, so it knows
    /// their macros and struct names. (A `ParseSession` borrows the texts it
    /// has read, so it cannot be kept beside them; reading them again costs
    /// little next to checking the whole program, which every input does.)
    fn replay(&self) -> ParseSession<'_> {
        let mut session = ParseSession::default();
        if let Some((file, replaced)) = &self.prelude {
            parse_in(&mut session, *file, self.text(*file), replaced);
        }
        for input in &self.accepted {
            let text = self.text(input.file);
            if input.as_stmts {
                parse_stmts_in(&mut session, input.file, text, &input.replaced);
            } else {
                parse_in(&mut session, input.file, text, &input.replaced);
            }
        }
        session
    }

    /// Reads an input as declarations or as statements.
    ///
    /// A declaration of variables reads both ways; it becomes a variable of
    /// `main` (kernels capture those, and `T x(args)` means what it means in
    /// a function), unless it is `static` or `extern`, which makes it a
    /// global that functions can use. Anything else that reads as
    /// declarations (`struct`, functions, `using`, directives) is declared,
    /// and so is an input that reads only as declarations (globals written
    /// together with the functions that use them, as in a file). When
    /// neither reading works, the errors of the one that got further are
    /// returned.
    fn read(
        &self,
        file: FileId,
        replaced: &[usize],
    ) -> Result<(Reading, Vec<Diagnostic>), Vec<Diagnostic>> {
        let text = self.text(file);
        let base = self.replay();
        let mut as_items = base.clone();
        let items = parse_in(&mut as_items, file, text, replaced);
        if !items.has_errors() && items.unit.items.iter().all(is_declaration) {
            return Ok((Reading::Items(items.unit.items), items.diagnostics));
        }
        let mut as_stmts = base;
        let stmts = parse_stmts_in(&mut as_stmts, file, text, replaced);
        if !stmts.has_errors() {
            let show = stmts.implicit_semicolon
                && stmts
                    .stmts
                    .last()
                    .is_some_and(|s| matches!(s.kind, StmtKind::Expr(_)));
            let reading = Reading::Stmts {
                stmts: stmts.stmts,
                show,
            };
            return Ok((reading, stmts.diagnostics));
        }
        if !items.has_errors() {
            return Ok((Reading::Items(items.unit.items), items.diagnostics));
        }
        let first_error = |diags: &[Diagnostic]| {
            diags
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.primary.span.start)
                .min()
        };
        if first_error(&items.diagnostics) > first_error(&stmts.diagnostics) {
            Err(items.diagnostics)
        } else {
            Err(stmts.diagnostics)
        }
    }

    /// Reads, checks and runs one input; the program's output goes to `out`.
    ///
    /// An input that does not parse, does not check or stops with a run-time
    /// error leaves the session as it was (though what it printed, and what
    /// it wrote to existing variables before the error, stays done).
    pub fn eval(&mut self, text: &str, out: &mut dyn Write) -> Report {
        let started = Instant::now();
        self.include_library(text);
        let (file, replaced) = self.add_input(text);
        let (reading, diagnostics) = match self.read(file, &replaced) {
            Ok(read) => read,
            Err(diagnostics) => {
                let mut report = Report::rejected(diagnostics);
                report.check_time = started.elapsed();
                return report;
            }
        };
        let (items, stmts, show, as_stmts) = match reading {
            Reading::Items(items) => (items, Vec::new(), false, false),
            Reading::Stmts { stmts, show } => (Vec::new(), stmts, show, true),
        };
        if let Some(main) = items.iter().find_map(|item| match &item.kind {
            ItemKind::Function(f) if f.name.name == "main" => Some(f.name.span),
            _ => None,
        }) {
            return self.refuse_at(
                main,
                "the session is the body of `main`: what you type at the prompt runs in it, so a `main` of your own cannot be defined (`:load` a file with a `main` to get its other declarations)",
            );
        }
        if let Some(at) = self.names_main(file, &replaced) {
            return self.refuse_at(at, NAMES_MAIN);
        }
        if let Some(at) = stmts.iter().find_map(find_return) {
            return self.refuse_at(
                at,
                "`return` would end `main`, and `main` is the session itself; to see a value, write it without `;`",
            );
        }
        // Each input runs on its own, so a label among `main`'s own
        // statements could not be jumped to from a later one.
        if let Some(at) = stmts.iter().find_map(|s| match &s.kind {
            StmtKind::Labeled {
                label: tessera_syntax::ast::Label::Named(name),
                ..
            } => Some(name.span),
            _ => None,
        }) {
            return self.refuse_at(
                at,
                "a label among the session's own statements cannot be jumped to; put the label and its `goto` in a block `{ ... }`",
            );
        }
        let input = Accepted {
            file,
            replaced,
            as_stmts,
        };
        self.commit(input, items, stmts, show, diagnostics, started, out)
    }

    /// Where the text of `file` names `main` (after its own macros).
    fn names_main(&self, file: FileId, replaced: &[usize]) -> Option<Span> {
        let (tokens, _) = tessera_syntax::tokens(file, self.text(file), replaced);
        tokens
            .iter()
            .find(|t| t.tok == Tok::Ident("main"))
            .map(|t| t.span_in(file))
    }

    /// A refusal that names the place in the input it is about.
    fn refuse_at(&self, at: Span, message: &str) -> Report {
        let name = self
            .sources
            .get(at.file)
            .map_or("<input>", |f| f.name.as_str());
        let (line, col) = self.sources.line_col(at.file, at.start);
        Report::refused(format!("{name}:{line}:{col}: {message}"))
    }

    /// Adds `items` and `stmts` to the program, checks it, runs what is new,
    /// and keeps the input if all went well.
    #[allow(clippy::too_many_arguments)]
    fn commit(
        &mut self,
        input: Accepted,
        items: Vec<Item>,
        stmts: Vec<Stmt>,
        show: bool,
        mut diagnostics: Vec<Diagnostic>,
        started: Instant,
        out: &mut dyn Write,
    ) -> Report {
        let (n_decls, n_body) = (self.decls.len(), self.body.len());
        self.decls.extend(items);
        self.body.extend(stmts);
        let checked = self.check();
        // Warnings about earlier inputs were shown when they were accepted.
        diagnostics.extend(
            checked
                .diagnostics
                .iter()
                .filter(|d| d.is_error() || d.primary.span.file == input.file)
                .cloned(),
        );
        let check_time = started.elapsed();
        if checked.has_errors() {
            self.decls.truncate(n_decls);
            self.body.truncate(n_body);
            let mut report = Report::rejected(diagnostics);
            report.check_time = check_time;
            return report;
        }
        let program = checked.program;
        let running = Instant::now();
        // A Ctrl-C pressed at the prompt is not meant for this input.
        self.interrupt.store(false, Ordering::Relaxed);
        let (globals_run, stmts_run) = (self.globals_run, self.stmts_run);
        let options = self.interp.options();
        let (outcome, jit_compile) = match tessera_driver::engine::kernel_engine(
            &program,
            self.engine,
            &options,
            self.threads,
            Some(&self.code),
        ) {
            Some(mut jit) => {
                let outcome = self.interp.run_with_engine(
                    &program,
                    globals_run,
                    stmts_run,
                    out,
                    Some(&mut jit),
                );
                (outcome, Some(jit.stats().compile))
            }
            None => (self.interp.run(&program, globals_run, stmts_run, out), None),
        };
        let run_time = running.elapsed();
        // A session has one terminal: the input's `stderr` follows its output.
        let _ = out.write_all(&outcome.stderr);
        diagnostics.extend(outcome.findings.iter().map(|f| f.to_diagnostic()));
        if let Some(error) = &outcome.error {
            diagnostics.push(error.to_diagnostic());
            self.decls.truncate(n_decls);
            self.body.truncate(n_body);
            let mut report = Report::rejected(diagnostics);
            report.check_time = check_time;
            report.run_time = run_time;
            report.jit_compile = jit_compile;
            return report;
        }
        self.globals_run = program.globals.len();
        self.stmts_run = main_body_len(&program);
        self.program = Some(program);
        self.accepted.push(input);
        Report {
            accepted: true,
            diagnostics,
            shown: outcome.shown.filter(|_| show),
            error: None,
            message: None,
            check_time,
            run_time,
            jit_compile,
        }
    }

    /// Checks the session's program: the declarations, then `main`.
    fn check(&mut self) -> tessera_driver::Checked {
        let mut items = std::mem::take(&mut self.decls);
        let body = std::mem::take(&mut self.body);
        items.push(self.main_item(body));
        let unit = TranslationUnit {
            items,
            library_files: Vec::new(),
            standard_headers: None,
        };
        let checked = tessera_driver::check_parsed(&self.sources, &unit, Vec::new());
        let mut items = unit.items;
        if let Some(Item {
            kind: ItemKind::Function(Function {
                body: Some(block), ..
            }),
            ..
        }) = items.pop()
        {
            self.body = block.stmts;
        }
        self.decls = items;
        checked
    }

    /// `int main() { stmts }`, with spans in the session's own file.
    fn main_item(&self, stmts: Vec<Stmt>) -> Item {
        let file = self.main_file;
        let span = |start: usize, end: usize| Span::new(file, start..end);
        let whole = span(0, MAIN_TEXT.len());
        let function = Function {
            ret: DeclSpecs {
                is_const: false,
                is_volatile: false,
                is_static: false,
                is_constexpr: false,
                tile_static: None,
                is_extern: false,
                is_inline: false,
                is_typedef: false,
                ty: BaseType::Builtin(Builtin::Int),
                span: span(0, 3),
            },
            ret_modifiers: Modifiers::default(),
            name: Ident {
                name: "main".into(),
                span: span(4, 8),
            },
            params: Vec::new(),
            restrict: None,
            exception_spec: None,
            class: None,
            class_args: None,
            method: tessera_syntax::ast::MethodInfo::default(),
            c_linkage: None,
            body: Some(Block {
                stmts,
                span: span(11, MAIN_TEXT.len()),
                lazy: None,
            }),
        };
        Item {
            kind: ItemKind::Function(function),
            span: whole,
        }
    }

    /// The type of expression `text` in the session, without running it.
    pub fn type_of(&mut self, text: &str) -> TypeOf {
        let (file, replaced) = self.add_input(text);
        let parsed = {
            let mut session = self.replay();
            parse_stmts_in(&mut session, file, self.text(file), &replaced)
        };
        if parsed.has_errors() {
            return TypeOf::Errors(parsed.diagnostics);
        }
        if self.names_main(file, &replaced).is_some() {
            return TypeOf::NotAnExpression;
        }
        let [stmt] = <[Stmt; 1]>::try_from(parsed.stmts).unwrap_or_else(|stmts| {
            // Not one statement: an empty statement stands for "no expression".
            let span = stmts.first().map_or(Span::new(file, 0..0), |s| s.span);
            [Stmt {
                kind: StmtKind::Empty,
                span,
                height: 1,
            }]
        });
        if !matches!(stmt.kind, StmtKind::Expr(_)) {
            return TypeOf::NotAnExpression;
        }
        let n_body = self.body.len();
        self.body.push(stmt);
        let checked = self.check();
        self.body.truncate(n_body);
        if checked.has_errors() {
            let errors = checked
                .diagnostics
                .into_iter()
                .filter(Diagnostic::is_error)
                .collect();
            return TypeOf::Errors(errors);
        }
        let program = &checked.program;
        let last = program
            .main
            .and_then(|m| program.functions.get(m.0 as usize))
            .and_then(|f| f.body.as_ref())
            .and_then(|b| b.stmts.last());
        match last.map(|s| &s.kind) {
            Some(IrStmtKind::Expr(e)) => TypeOf::Type(tessera_ir::display(&e.ty, &program.structs)),
            _ => TypeOf::NotAnExpression,
        }
    }

    /// `:load`: declares the top-level declarations of the file at `path`
    /// (and initialises its globals). A `main` in the file is left out: the
    /// session is `main`.
    pub fn load(&mut self, path: &Path, out: &mut dyn Write) -> Report {
        let started = Instant::now();
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(err) => {
                return Report::refused(format!("cannot read `{}`: {err}", path.display()));
            }
        };
        let (source, replaced) = SourceFile::from_bytes(path.display().to_string(), &bytes);
        self.include_library(&source.text);
        let file = self.sources.add(source);
        let parsed = {
            let mut session = self.replay();
            parse_in(&mut session, file, self.text(file), &replaced)
        };
        if parsed.has_errors() {
            let mut report = Report::rejected(parsed.diagnostics);
            report.check_time = started.elapsed();
            return report;
        }
        let (mains, items): (Vec<Item>, Vec<Item>) =
            parsed.unit.items.into_iter().partition(
                |item| matches!(&item.kind, ItemKind::Function(f) if f.name.name == "main"),
            );
        let declared = items
            .iter()
            .filter(|i| !matches!(i.kind, ItemKind::Empty))
            .count();
        let input = Accepted {
            file,
            replaced,
            as_stmts: false,
        };
        let mut report = self.commit(
            input,
            items,
            Vec::new(),
            false,
            parsed.diagnostics,
            started,
            out,
        );
        if report.accepted {
            let plural = if declared == 1 { "" } else { "s" };
            let mut message = format!(
                "loaded {declared} declaration{plural} from {}",
                path.display()
            );
            if !mains.is_empty() {
                message.push_str(&format!(
                    "; its `main` was not run (`tessera run {}` runs the whole program)",
                    path.display()
                ));
            }
            report.message = Some(message);
        }
        report
    }
}

/// True for the items an input is declared as rather than run: everything
/// but variables, unless they are `static` or `extern` (see [`Session::read`]).
/// The headers `text` includes whose part of the library is written in the
/// Tessera language, in order.
fn library_headers(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| {
            line.trim_start()
                .strip_prefix('#')
                .and_then(|rest| rest.trim_start().strip_prefix("include"))
                .and_then(|rest| rest.trim_start().strip_prefix('<'))
                .and_then(|angled| angled.split('>').next())
                .map(str::trim)
        })
        .filter(|name| tessera_syntax::headers::source_of(name).is_some())
        .collect()
}

fn is_declaration(item: &Item) -> bool {
    match &item.kind {
        ItemKind::UsingNamespace(_)
        | ItemKind::UsingDecl(_)
        | ItemKind::Namespace(_)
        | ItemKind::NamespaceAlias { .. }
        | ItemKind::Struct(_)
        | ItemKind::Function(_)
        | ItemKind::StaticAssert(_)
        | ItemKind::Enum(_)
        | ItemKind::Template(_)
        | ItemKind::Empty => true,
        ItemKind::Global(decl) => {
            decl.specs.is_static || decl.specs.is_extern || decl.specs.is_typedef
        }
        ItemKind::Error => false,
    }
}

/// Where `stmt` returns from the function it is in (kernels, which are
/// expressions, aside).
fn find_return(stmt: &Stmt) -> Option<Span> {
    match &stmt.kind {
        StmtKind::Return(_) => Some(stmt.span),
        StmtKind::Block(block) => block.stmts.iter().find_map(find_return),
        StmtKind::Try { body, handlers } => body
            .stmts
            .iter()
            .chain(handlers.iter().flat_map(|h| h.body.stmts.iter()))
            .find_map(find_return),
        StmtKind::If { then, els, .. } => {
            find_return(then).or_else(|| els.as_deref().and_then(find_return))
        }
        StmtKind::For { body, .. }
        | StmtKind::ForRange { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. }
        | StmtKind::Switch { body, .. }
        | StmtKind::Labeled { stmt: body, .. } => find_return(body),
        StmtKind::Expr(_)
        | StmtKind::Decl(_)
        | StmtKind::FnDecl(_)
        | StmtKind::StaticAssert(_)
        | StmtKind::Class(_)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Goto(_)
        | StmtKind::Using { .. }
        | StmtKind::Empty
        | StmtKind::Error => None,
    }
}

/// The number of statements in the lowered body of `main`.
fn main_body_len(program: &Program) -> usize {
    program
        .main
        .and_then(|m| program.functions.get(m.0 as usize))
        .and_then(|f| f.body.as_ref())
        .map_or(0, |b| b.stmts.len())
}
