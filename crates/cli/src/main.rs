//! `tessera`: check, run and explore `.amp` programs.
//!
//! This binary does the IO (files, terminal, exit codes); everything it calls
//! is pure and lives in the library crates.

mod code_cache;
mod front_cache;

use clap::{Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tessera_diagnostics::{Diagnostic, SourceFile, Sources, codes, json, render};

/// Run and check C++ AMP kernels on the CPU.
#[derive(Parser)]
#[command(name = "tessera", version, about, propagate_version = true)]
struct Cli {
    /// When to colour diagnostics (`auto` honours NO_COLOR and terminals).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    color: ColorChoice,
    /// A folder to look for `#include "..."` headers in, after the including
    /// file's own folder (may be given several times).
    #[arg(short = 'I', value_name = "DIR", global = true)]
    include: Vec<PathBuf>,
    /// Define a macro before the program's first line, as `#define NAME
    /// VALUE` would (VALUE defaults to 1; may be given several times).
    #[arg(short = 'D', value_name = "NAME[=VALUE]", global = true, value_parser = parse_define)]
    define: Vec<(String, String)>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check programs for errors without running them.
    Check {
        /// The `.amp` files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// How to print diagnostics.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Run a program: host code and kernels.
    Run {
        /// The `.amp` file.
        file: PathBuf,
        /// Which engine runs it: `jit` compiles kernels to native code (host
        /// code and any kernel it cannot compile run in the interpreter);
        /// `interp` is the reference interpreter alone.
        #[arg(long, value_enum, default_value_t = Engine::Jit)]
        engine: Engine,
        /// Worker threads for kernels under the JIT (default: one per core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: Option<u16>,
        /// Print timings to standard error at the end (one `tessera-stats` line).
        #[arg(long)]
        stats: bool,
        /// Compile every kernel afresh: neither read nor keep compiled code
        /// in the cache (`$TESSERA_CACHE_DIR`, else `~/.cache/tessera`; an
        /// empty `TESSERA_CACHE_DIR` also turns it off).
        #[arg(long)]
        no_cache: bool,
        /// Also find data races, barrier divergence, reads of uninitialised
        /// `tile_static` memory, missing `synchronize()` and reads of
        /// discarded data (slower).
        #[arg(long)]
        check: bool,
        /// Stop the program after this many seconds.
        #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
        timeout: Option<std::time::Duration>,
        /// The most data the program may allocate at once, e.g. `512M`, `2G`.
        #[arg(long, value_name = "SIZE", value_parser = tessera_runtime::parse_size)]
        max_memory: Option<u64>,
        /// Arguments after `--` (the subset's `main` takes no parameters, so
        /// they are accepted for compatibility and not passed on).
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Write and run code interactively, one input at a time.
    Repl {
        /// Start with the dynamic checks on (`:check on`).
        #[arg(long)]
        check: bool,
        /// When standard input is not a terminal, print each input after a
        /// prompt before its results, as a terminal session shows it.
        #[arg(long)]
        echo: bool,
        /// Which engine runs inputs at the start (`:engine` changes it):
        /// `jit` compiles kernels to native code, `interp` is the reference
        /// interpreter alone.
        #[arg(long, value_enum, default_value_t = Engine::Jit)]
        engine: Engine,
        /// Worker threads for kernels under the JIT (default: one per core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: Option<u16>,
        /// Stop each input after it has run this many seconds (the input
        /// is then forgotten, as after any run-time error).
        #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
        timeout: Option<std::time::Duration>,
        /// The most data the session may hold at once, e.g. `512M`, `2G`
        /// (the variables of earlier inputs count).
        #[arg(long, value_name = "SIZE", value_parser = tessera_runtime::parse_size)]
        max_memory: Option<u64>,
    },
    /// Explain an error code, e.g. `tessera explain E0101`.
    Explain {
        /// The code.
        code: String,
    },
    /// Show what the compiler sees.
    Dump {
        #[command(subcommand)]
        what: DumpWhat,
    },
}

#[derive(Subcommand)]
enum DumpWhat {
    /// The syntax tree of a file.
    Ast {
        /// The `.amp` file.
        file: PathBuf,
        /// `human` (an indented tree) or `json`.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// The tokens of a file after preprocessing.
    Tokens {
        /// The `.amp` file.
        file: PathBuf,
    },
    /// The Cranelift IR of each kernel after the barrier split.
    Clif {
        /// The `.amp` file.
        file: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// For people.
    Human,
    /// One JSON object per line, for tools.
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Engine {
    /// The reference interpreter.
    Interp,
    /// The Cranelift JIT.
    Jit,
}

/// `-D NAME[=VALUE]`: the macro's name (an identifier, or a function-like
/// head `F(a,b)`) and its replacement text, `1` when none is given, as a
/// C++ compiler reads the option.
fn parse_define(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once('=').unwrap_or((text, "1"));
    if text.contains(['\n', '\r']) {
        return Err("a macro definition cannot hold a line break".to_string());
    }
    let ident = name.split_once('(').map_or(name, |(head, _)| head);
    let is_ident = ident
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && ident.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_ident {
        return Err(format!(
            "`{name}`: a macro name must be an identifier (letters, digits and `_`, not starting with a digit)"
        ));
    }
    if ident.len() != name.len() && !name.ends_with(')') {
        return Err(format!(
            "`{name}`: a function-like macro's parameters end with `)`"
        ));
    }
    Ok((name.to_string(), value.to_string()))
}

/// `--timeout`: a positive number of seconds.
fn parse_timeout(text: &str) -> Result<std::time::Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(secs > 0.0 && secs <= 1e9) {
        return Err(format!(
            "`{text}`: the time limit must be more than 0 seconds"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// The run limits of `--timeout` and `--max-memory`, the same for `run`
/// and `repl`.
fn limits(
    timeout: Option<std::time::Duration>,
    max_memory: Option<u64>,
) -> tessera_runtime::Limits {
    let defaults = tessera_runtime::Limits::default();
    tessera_runtime::Limits {
        timeout,
        max_memory: max_memory.unwrap_or(defaults.max_memory),
        ..defaults
    }
}

/// The engine `--engine` names.
fn driver_engine(engine: Engine) -> tessera_driver::Engine {
    match engine {
        Engine::Jit => tessera_driver::Engine::Jit,
        Engine::Interp => tessera_driver::Engine::Interp,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    /// Colour on a terminal, unless NO_COLOR is set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Exit status for a program with errors.
const EXIT_ERRORS: u8 = 1;
/// Exit status for a bad invocation (unreadable file, unknown code); clap uses it too.
const EXIT_USAGE: u8 = 2;

/// Stack for the compiler thread: the tree's height is bounded (see
/// `tessera_syntax::ast::MAX_HEIGHT`), and this leaves ample room for the
/// recursive passes over it.
const COMPILER_STACK: usize = 256 << 20;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let worker = std::thread::Builder::new()
        .name("tessera".into())
        .stack_size(COMPILER_STACK)
        .spawn(move || run(cli));
    match worker.map(|handle| handle.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!(
                "error: internal compiler error; please report it with the input that caused it"
            );
            ExitCode::from(101)
        }
    }
}

fn run(cli: Cli) -> ExitCode {
    let mut out = Output::new(cli.color);
    let front = &Front {
        include: cli.include,
        define: cli.define,
    };
    match cli.command {
        Command::Check { files, format } => check(&mut out, &files, front, format),
        Command::Run {
            file,
            engine,
            threads,
            stats,
            no_cache,
            check,
            timeout,
            max_memory,
            args: _,
        } => {
            let options = tessera_interp::Options {
                check,
                limits: limits(timeout, max_memory),
            };
            let how = RunHow {
                engine,
                threads: threads.map_or_else(tessera_jit::Jit::default_threads, usize::from),
                stats,
                cache: !no_cache,
            };
            run_file(&mut out, &file, front, &how, &options)
        }
        Command::Repl {
            check,
            echo,
            engine,
            threads,
            timeout,
            max_memory,
        } => {
            let options = tessera_interp::Options {
                check,
                limits: limits(timeout, max_memory),
            };
            let config = tessera_repl::Config {
                color: out.color,
                options,
                echo,
                defines: front.define.clone(),
                engine: driver_engine(engine),
                threads: threads.map(usize::from),
            };
            ExitCode::from(tessera_repl::run(&config))
        }
        Command::Explain { code } => explain(&mut out, &code),
        Command::Dump { what } => match what {
            DumpWhat::Ast { file, format } => dump_ast(&mut out, &file, front, format),
            DumpWhat::Tokens { file } => dump_tokens(&mut out, &file),
            DumpWhat::Clif { file } => dump_clif(&mut out, &file, front),
        },
    }
}

/// Where output goes, with the colour decision made once.
struct Output {
    stdout: anstream::AutoStream<std::io::Stdout>,
    stderr: anstream::AutoStream<std::io::Stderr>,
    color: bool,
}

impl Output {
    fn new(choice: ColorChoice) -> Self {
        let anstream_choice = match choice {
            ColorChoice::Auto => anstream::ColorChoice::Auto,
            ColorChoice::Always => anstream::ColorChoice::Always,
            ColorChoice::Never => anstream::ColorChoice::Never,
        };
        let stderr = anstream::AutoStream::new(std::io::stderr(), anstream_choice);
        let color = !matches!(stderr.current_choice(), anstream::ColorChoice::Never);
        Output {
            stdout: anstream::AutoStream::new(std::io::stdout(), anstream_choice),
            stderr,
            color,
        }
    }

    fn out(&mut self, text: &str) {
        // A closed pipe (`tessera dump ast x | head`) is not an error worth a panic.
        let _ = self.stdout.write_all(text.as_bytes());
    }

    fn err(&mut self, text: &str) {
        let _ = self.stderr.write_all(text.as_bytes());
    }
}

/// Reads a file into `sources`; on failure prints why and returns `None`.
fn load(
    out: &mut Output,
    sources: &mut Sources,
    path: &PathBuf,
) -> Option<(tessera_diagnostics::FileId, Vec<usize>)> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let (file, replaced) = SourceFile::from_bytes(path.display().to_string(), &bytes);
            Some((sources.add(file), replaced))
        }
        Err(err) => {
            out.err(&format!("error: cannot read `{}`: {err}\n", path.display()));
            None
        }
    }
}

/// The front-end options every command shares: `-I` folders and `-D`
/// macros.
struct Front {
    include: Vec<PathBuf>,
    define: Vec<(String, String)>,
}

impl Front {
    /// What to compile for the main file `path`, read from the disk.
    fn input<'l>(
        &self,
        path: &Path,
        loader: &'l dyn tessera_driver::SourceLoader,
    ) -> tessera_driver::Input<'l> {
        let mut input = tessera_driver::Input::new(path, loader);
        input.include_dirs = self.include.clone();
        input.defines = self.define.clone();
        input
    }
}

/// Reads source files from the disk, for the compiler.
struct DiskFiles;

impl tessera_driver::SourceLoader for DiskFiles {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn list(&self, dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Compiles the program whose main file is `path`, read from the disk with
/// the headers it includes (looked for in the `-I` folders after their
/// includer's folder) and the `-D` macros defined first.
fn compile(
    sources: &mut Sources,
    path: &Path,
    front: &Front,
    loader: &dyn tessera_driver::SourceLoader,
) -> Result<tessera_driver::Checked, tessera_driver::LoadError> {
    let input = front.input(path, loader);
    tessera_driver::compile(sources, &input)
}

fn report(out: &mut Output, sources: &Sources, diags: &[Diagnostic], format: Format) {
    match format {
        Format::Human => {
            let mut renderer = render::Renderer::new(sources, out.color);
            for d in diags {
                let text = renderer.render(d);
                out.err(&text);
            }
        }
        Format::Json => {
            for d in diags {
                let line = json::to_json(d, sources);
                out.out(&format!("{line}\n"));
            }
        }
    }
}

fn check(out: &mut Output, files: &[PathBuf], front: &Front, format: Format) -> ExitCode {
    let mut sources = Sources::new();
    let mut failed = false;
    let mut unreadable = false;
    let (mut errors, mut warnings) = (0usize, 0usize);
    for path in files {
        let diagnostics = match compile(&mut sources, path, front, &DiskFiles) {
            Ok(mut checked) => {
                // One file: the process ends after it, and the checker's
                // tables go with it rather than being freed one by one.
                if files.len() == 1 {
                    std::mem::take(&mut checked.scratch).leave();
                }
                checked
                    .diagnostics
                    .into_iter()
                    .filter(|d| !is_link_error(d))
                    .collect::<Vec<_>>()
            }
            Err(err) => {
                out.err(&format!("error: {err}\n"));
                unreadable = true;
                continue;
            }
        };
        report(out, &sources, &diagnostics, format);
        for d in &diagnostics {
            if d.is_error() {
                errors += 1;
            } else {
                warnings += 1;
            }
        }
        failed |= diagnostics.iter().any(Diagnostic::is_error);
    }
    if matches!(format, Format::Human) && (errors > 0 || warnings > 0) {
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        out.err(&format!(
            "{}, {}\n",
            plural(errors, "error"),
            plural(warnings, "warning")
        ));
    }
    if unreadable {
        ExitCode::from(EXIT_USAGE)
    } else if failed {
        ExitCode::from(EXIT_ERRORS)
    } else {
        ExitCode::SUCCESS
    }
}

/// A diagnostic that C++ gives when linking, not when compiling: a call of
/// (or a pointer to) a function declared and never defined (E0216). As for
/// a missing `main` (E0230), `check` accepts such a file, as a compiler
/// does; `run` and the REPL report it, since they need the body.
fn is_link_error(d: &Diagnostic) -> bool {
    d.code == codes::E0216
}

/// How `tessera run` runs a program.
struct RunHow {
    engine: Engine,
    threads: usize,
    stats: bool,
    /// Whether compiled code is kept on disk between runs.
    cache: bool,
}

/// `tessera run`: compile, then execute; the program's output goes to
/// stdout untouched, diagnostics to stderr.
fn run_file(
    out: &mut Output,
    path: &Path,
    front: &Front,
    how: &RunHow,
    options: &tessera_interp::Options,
) -> ExitCode {
    let started = std::time::Instant::now();
    let store = how
        .cache
        .then(code_cache::root_from_env)
        .flatten()
        .and_then(|root| code_cache::FileStore::for_this_build(&root))
        .map(std::sync::Arc::new);
    let (sources, checked, kept) = match front_end_kept(out, path, front, store.as_deref()) {
        Ok(done) => done,
        Err(code) => return code,
    };
    if let Some(missing) = missing_main(&sources, path, &checked) {
        report(out, &sources, &[missing], Format::Human);
        return ExitCode::from(EXIT_ERRORS);
    }
    let front_end = started.elapsed();
    let engine = driver_engine(how.engine);
    let ran = {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        // The program reads standard input only when it asks (`std::cin`).
        let mut input = std::io::stdin().lock();
        let store = store.map(|s| s as std::sync::Arc<dyn tessera_jit::CodeStore>);
        tessera_driver::engine::run(
            &checked.program,
            engine,
            how.threads,
            options,
            &mut lock,
            &mut input,
            store.as_ref(),
        )
    };
    if how.stats {
        print_stats(out, started.elapsed(), front_end, kept, ran.jit.as_ref());
    }
    let outcome = ran.outcome;
    if !outcome.stderr.is_empty() {
        let _ = out.stderr.write_all(&outcome.stderr);
    }
    let mut found: Vec<Diagnostic> = outcome.findings.iter().map(|f| f.to_diagnostic()).collect();
    if let Some(error) = &outcome.error {
        found.push(error.to_diagnostic());
    }
    report(out, &sources, &found, Format::Human);
    if outcome.error.is_none() && !outcome.findings.is_empty() {
        let n = outcome.findings.len();
        out.err(&format!(
            "--check found {n} problem{}\n",
            if n == 1 { "" } else { "s" }
        ));
        if outcome.exit_code == 0 {
            end_run(tessera_runtime::EXIT_RUNTIME_ERROR);
        }
    }
    // As a C++ program's exit status: the low 8 bits of `main`'s value.
    end_run(outcome.exit_code as u8)
}

/// Ends the process with `status` once a program has run: what is left
/// (the typed program, the source texts, the compiler thread's stack) goes
/// with the process instead of being freed piece by piece, and the main
/// thread's join is skipped, about a tenth of a millisecond of every run.
/// Output is flushed first, as a return from `main` would.
fn end_run(status: u8) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(i32::from(status))
}

/// E0230, when the program to run has no `main` with a body. As in C++,
/// where a compiler compiles such a file and only linking it into a program
/// fails, `check` accepts the file: only `run` needs the entry point.
fn missing_main(
    sources: &Sources,
    path: &Path,
    checked: &tessera_driver::Checked,
) -> Option<Diagnostic> {
    let program = &checked.program;
    let declared = program.main.and_then(|id| program.get_function(id));
    if declared.is_some_and(|f| f.body.is_some()) {
        return None;
    }
    let diagnostic = match declared {
        Some(f) => Diagnostic::error(codes::E0230, f.span, "`main` is declared but never defined")
            .with_label("declared here, without a body"),
        None => {
            // The end of the main file's text: where a `main` would go.
            let name = path.display().to_string();
            let file = (0..)
                .map(tessera_diagnostics::FileId)
                .map_while(|id| sources.get(id).map(|f| (id, f)))
                .find(|(_, f)| f.name == name);
            let (file, end) = file.map_or((tessera_diagnostics::FileId(0), 0), |(id, f)| {
                (id, f.text.trim_end().len())
            });
            Diagnostic::error(
                codes::E0230,
                tessera_diagnostics::Span::new(file, end..end),
                "this program has no `main` function",
            )
            .with_label("the program ends here without one")
        }
    };
    Some(
        diagnostic
            .with_note("a program starts in `main`: a C++ compiler accepts a file without one (so does `tessera check`), but building a program from it fails (g++: undefined reference to `main`)")
            .with_help("define `int main() { ... }` to run the file, or `:load` it in `tessera repl` to call its functions"),
    )
}

/// `--stats`: one `tessera-stats` line of timings and counts on stderr.
fn print_stats(
    out: &mut Output,
    total: std::time::Duration,
    front_end: std::time::Duration,
    kept: bool,
    jit: Option<&tessera_jit::Stats>,
) {
    let s = jit.cloned().unwrap_or_default();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    let host = total.saturating_sub(front_end + s.compile + s.kernels);
    // Each launch's time, `t` marking tiled ones, `;`-separated.
    let launch_ms: Vec<String> = s
        .launch_times
        .iter()
        .map(|(tiled, d)| format!("{:.3}{}", ms(*d), if *tiled { "t" } else { "" }))
        .collect();
    out.err(&format!(
        "tessera-stats front_end_ms={:.3} kept_program={} compile_ms={:.3} kernel_ms={:.3} host_ms={:.3} compiled_host_ms={:.3} total_ms={:.3} launches={} fallbacks={} reruns={} host_loops={} compiled={} cached={} threads={} launch_ms={}\n",
        ms(front_end),
        u8::from(kept),
        ms(s.compile),
        ms(s.kernels),
        ms(host),
        ms(s.host),
        ms(total),
        s.launches,
        s.fallbacks,
        s.reruns,
        s.host_runs,
        s.compiled,
        s.cached,
        if jit.is_some() { s.threads } else { 1 },
        if launch_ms.is_empty() { "-".to_string() } else { launch_ms.join(";") },
    ));
}

fn explain(out: &mut Output, code: &str) -> ExitCode {
    match codes::lookup(code) {
        Some(info) => {
            out.out(info.explanation);
            ExitCode::SUCCESS
        }
        None => {
            out.err(&format!(
                "error: `{code}` is not a Tessera error code\nhelp: codes look like `E0101`; every diagnostic shows its code in brackets, e.g. `error[E0101]`\n"
            ));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn dump_ast(out: &mut Output, path: &Path, front: &Front, format: Format) -> ExitCode {
    let mut sources = Sources::new();
    let input = front.input(path, &DiskFiles);
    let parsed = match tessera_driver::parse(&mut sources, &input) {
        Ok(parsed) => parsed,
        Err(err) => {
            out.err(&format!("error: {err}\n"));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    report(out, &sources, &parsed.diagnostics, Format::Human);
    // The library's own source (`<algorithm>`) is not the program's: the
    // dump shows what the file and its local headers declare.
    let mut unit = parsed.unit.clone();
    unit.items.retain(|item| {
        sources
            .get(item.span.file)
            .is_none_or(|f| !tessera_syntax::headers::is_library_source(&f.name))
    });
    match format {
        Format::Json => match serde_json::to_string(&unit) {
            Ok(text) => out.out(&format!("{text}\n")),
            Err(err) => out.err(&format!("error: cannot serialise the tree: {err}\n")),
        },
        Format::Human => {
            let text = tessera_syntax::pretty::dump(&unit, &sources);
            out.out(&text);
        }
    }
    if parsed.has_errors() {
        ExitCode::from(EXIT_ERRORS)
    } else {
        ExitCode::SUCCESS
    }
}

/// Compiles one file (for `run` and `dump clif`): its sources and the
/// checked program, or, reported here, the exit status when the file cannot
/// be read or has errors. Warnings are reported too when `warnings`.
fn front_end(
    out: &mut Output,
    path: &Path,
    front: &Front,
    warnings: bool,
) -> Result<(Sources, tessera_driver::Checked), ExitCode> {
    front_end_through(out, path, front, warnings, &DiskFiles)
}

/// [`front_end`] for `tessera run`: the checked program an earlier run of
/// the same program kept in `store`, when every file it read reads the
/// same now (see `front_cache`), else the front end's, kept for the next
/// run. The flag says whether the program was a kept one.
fn front_end_kept(
    out: &mut Output,
    path: &Path,
    front: &Front,
    store: Option<&code_cache::FileStore>,
) -> Result<(Sources, tessera_driver::Checked, bool), ExitCode> {
    let key = store.and_then(|_| front_cache::Key::new(path, &front.include, &front.define));
    let (Some(store), Some(key)) = (store, key) else {
        let (sources, checked) = front_end(out, path, front, true)?;
        return Ok((sources, checked, false));
    };
    if let Some((sources, checked)) = front_cache::load(store, &key, &DiskFiles) {
        report(out, &sources, &checked.diagnostics, Format::Human);
        return Ok((sources, checked, true));
    }
    let recorder = front_cache::Recorder::new(&DiskFiles);
    let (sources, checked) = front_end_through(out, path, front, true, &recorder)?;
    front_cache::save(
        store,
        &key,
        recorder,
        &sources,
        &checked.diagnostics,
        &checked.program,
    );
    Ok((sources, checked, false))
}

/// [`front_end`], reading files through `loader`.
fn front_end_through(
    out: &mut Output,
    path: &Path,
    front: &Front,
    warnings: bool,
    loader: &dyn tessera_driver::SourceLoader,
) -> Result<(Sources, tessera_driver::Checked), ExitCode> {
    let mut sources = Sources::new();
    let mut checked = match compile(&mut sources, path, front, loader) {
        Ok(checked) => checked,
        Err(err) => {
            out.err(&format!("error: {err}\n"));
            return Err(ExitCode::from(EXIT_USAGE));
        }
    };
    // The process ends after one program: the checker's tables go with it
    // rather than being freed one by one.
    std::mem::take(&mut checked.scratch).leave();
    if checked.has_errors() {
        report(out, &sources, &checked.diagnostics, Format::Human);
        return Err(ExitCode::from(EXIT_ERRORS));
    }
    if warnings {
        report(out, &sources, &checked.diagnostics, Format::Human);
    }
    Ok((sources, checked))
}

fn dump_clif(out: &mut Output, path: &Path, front: &Front) -> ExitCode {
    let (sources, checked) = match front_end(out, path, front, false) {
        Ok(done) => done,
        Err(code) => return code,
    };
    let mut jit = tessera_jit::Jit::new(&checked.program, 1);
    let kernels = jit.dump_clif();
    let mut text = String::new();
    if kernels.is_empty() {
        text.push_str("; no kernels\n");
    }
    for k in kernels {
        let (line, col) = sources.line_col(k.span.file, k.span.start);
        let what = match k.tile {
            Some(t) => format!("tiled kernel <{t}>"),
            None => "kernel".to_string(),
        };
        text.push_str(&format!("; {what} at {}:{line}:{col}\n", path.display()));
        match k.clif {
            Ok(clif) => text.push_str(&clif),
            Err(why) => text.push_str(&format!("; runs in the interpreter: {why}\n")),
        }
        text.push('\n');
    }
    out.out(&text);
    ExitCode::SUCCESS
}

fn dump_tokens(out: &mut Output, path: &PathBuf) -> ExitCode {
    let mut sources = Sources::new();
    let Some((file, replaced)) = load(out, &mut sources, path) else {
        return ExitCode::from(EXIT_USAGE);
    };
    let text = sources.get(file).map_or("", |f| f.text.as_str());
    let (tokens, diags) = tessera_syntax::tokens(file, text, &replaced);
    report(out, &sources, &diags, Format::Human);
    let mut listing = String::new();
    for t in &tokens {
        let (line, col) = sources.line_col(file, t.start);
        listing.push_str(&format!("{line}:{col}\t{}\t{:?}\n", t.tok, t.tok));
    }
    out.out(&listing);
    if diags.iter().any(Diagnostic::is_error) {
        ExitCode::from(EXIT_ERRORS)
    } else {
        ExitCode::SUCCESS
    }
}
