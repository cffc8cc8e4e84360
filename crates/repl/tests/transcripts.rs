//! Sessions driven through the library's script entry point, as `tessera
//! repl` runs them when standard input is not a terminal, with their
//! transcripts checked byte for byte. (The binary itself is driven, through a
//! pipe and through a pseudo-terminal, by `crates/cli/tests/repl.rs`.)

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use tessera_repl::{Config, EXIT_FAILED_INPUT, run_script};

/// One buffer behind two writers, so that results and diagnostics land in
/// the order they were written, as with `2>&1`.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What a scripted session wrote.
struct Transcript {
    /// Results: echoed inputs, program output, values, messages.
    out: String,
    /// Diagnostics and the REPL's errors.
    err: String,
    /// Everything, in order.
    all: String,
    /// The exit status.
    status: u8,
}

fn run_with(config: &Config, script: &str) -> Transcript {
    let all = Shared::default();
    let (out_buf, err_buf) = (Shared::default(), Shared::default());
    struct Tee(Shared, Shared);
    impl Write for Tee {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.write_all(buf)?;
            self.1.write_all(buf)?;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut out = Tee(out_buf.clone(), all.clone());
    let mut err = Tee(err_buf.clone(), all.clone());
    let status = run_script(config, &mut script.as_bytes(), &mut out, &mut err);
    let text = |s: &Shared| String::from_utf8_lossy(&s.0.borrow()).into_owned();
    Transcript {
        out: text(&out_buf),
        err: text(&err_buf),
        all: text(&all),
        status,
    }
}

/// Runs `script` with each input echoed after the prompt.
fn session(script: &str) -> Transcript {
    run_with(
        &Config {
            echo: true,
            ..Config::default()
        },
        script,
    )
}

/// Fails with both texts in full when they differ.
#[track_caller]
fn assert_text(actual: &str, expected: &str) {
    assert!(
        actual == expected,
        "transcript differs\n--- expected\n{expected}--- actual\n{actual}---"
    );
}

const PRELUDE: &str = "#include <iostream>\n#include <amp.h>\nusing namespace concurrency;\n";

#[test]
fn declaring_a_vector_and_an_array_view() {
    let t = session(&format!(
        "{PRELUDE}std::vector<int> v(6, 1);
v
array_view<int, 2> av(2, 3, v);
av(1, 2) = 5;
av
av[1]
v[5]
av.extent
"
    ));
    assert_text(
        &t.out,
        "amp> #include <iostream>
amp> #include <amp.h>
amp> using namespace concurrency;
amp> std::vector<int> v(6, 1);
amp> v
= [1, 1, 1, 1, 1, 1] (size 6) : std::vector<int>
amp> array_view<int, 2> av(2, 3, v);
amp> av(1, 2) = 5;
amp> av
= extent (2,3) : array_view<int, 2>
  1 1 1
  1 1 5
amp> av[1]
= [1, 1, 5] extent (3) : array_view<int, 1>
amp> v[5]
= 5 : int
amp> av.extent
= (2,3) : extent<2>
",
    );
    assert_eq!(t.err, "");
    assert_eq!(t.status, 0);
}

/// The seed's `tile_static` example (seed 003), one step at a time.
#[test]
fn the_seeds_tile_static_example_step_by_step() {
    let t = session(&format!(
        "{PRELUDE}int sampledata[] = {{
    2, 2, 9, 7, 1, 4,
    4, 4, 8, 8, 3, 4,
    1, 5, 1, 2, 5, 2,
    6, 8, 3, 2, 7, 2}};
int averagedata[24] = {{}};
array_view<int, 2> sample(4, 6, sampledata);
array_view<int, 2> average(4, 6, averagedata);
sample
sample.extent.tile<2,2>()
parallel_for_each(
    // Create threads for sample.extent and divide the extent into 2 x 2 tiles.
    sample.extent.tile<2,2>(),
    [=](tiled_index<2,2> idx) restrict(amp)
    {{
        tile_static int nums[2][2];
        nums[idx.local[1]][idx.local[0]] = sample[idx.global];
        idx.barrier.wait();
        int sum = nums[0][0] + nums[0][1] + nums[1][0] + nums[1][1];
        average[idx.global] = sum / 4;
    }}
);
average
for (int i = 0; i < 4; i++) {{
    for (int j = 0; j < 6; j++) {{
        std::cout << average(i,j) << \" \";
    }}
    std::cout << \"\\n\";
}}
"
    ));
    let out = t.out.split("amp> sample\n").nth(1).unwrap_or_default();
    assert_text(
        out,
        "= extent (4,6) : array_view<int, 2>
  2 2 9 7 1 4
  4 4 8 8 3 4
  1 5 1 2 5 2
  6 8 3 2 7 2
amp> sample.extent.tile<2,2>()
= extent (4,6) in tiles of 2x2 : tiled_extent<2, 2>
  0,0 0,0 0,1 0,1 0,2 0,2
  0,0 0,0 0,1 0,1 0,2 0,2
  1,0 1,0 1,1 1,1 1,2 1,2
  1,0 1,0 1,1 1,1 1,2 1,2
amp> parallel_for_each(
...>     // Create threads for sample.extent and divide the extent into 2 x 2 tiles.
...>     sample.extent.tile<2,2>(),
...>     [=](tiled_index<2,2> idx) restrict(amp)
...>     {
...>         tile_static int nums[2][2];
...>         nums[idx.local[1]][idx.local[0]] = sample[idx.global];
...>         idx.barrier.wait();
...>         int sum = nums[0][0] + nums[0][1] + nums[1][0] + nums[1][1];
...>         average[idx.global] = sum / 4;
...>     }
...> );
amp> average
= extent (4,6) : array_view<int, 2>
  3 3 8 8 3 3
  3 3 8 8 3 3
  5 5 2 2 4 4
  5 5 2 2 4 4
amp> for (int i = 0; i < 4; i++) {
...>     for (int j = 0; j < 6; j++) {
...>         std::cout << average(i,j) << \" \";
...>     }
...>     std::cout << \"\\n\";
...> }
3 3 8 8 3 3 
3 3 8 8 3 3 
5 5 2 2 4 4 
5 5 2 2 4 4 
",
    );
    assert_eq!(t.err, "");
    assert_eq!(t.status, 0);
}

#[test]
fn an_error_leaves_the_session_as_it_was() {
    let t = session(&format!(
        "{PRELUDE}int n = 4;
std::vector<int> v(n, 2);
n + missing
int m = n * ;
int k = v[10];
v[10] = 1;
n * v[3]
k
"
    ));
    assert_text(
        &t.all,
        "amp> #include <iostream>
amp> #include <amp.h>
amp> using namespace concurrency;
amp> int n = 4;
amp> std::vector<int> v(n, 2);
amp> n + missing
error[E0200]: cannot find `missing` in this scope
   ╭─[ <input 6>:1:5 ]
   │
 1 │ n + missing
   │     ───┬───
   │        ╰───── not declared
   │
   │ Help: declare it before this use
───╯
amp> int m = n * ;
error[E0100]: expected an expression, found `;`
   ╭─[ <input 7>:1:13 ]
   │
 1 │ int m = n * ;
   │             ┬
   │             ╰── expected an expression
───╯
amp> int k = v[10];
error[R0001]: index 10 is out of bounds for a `std::vector` of size 4
   ╭─[ <input 8>:1:9 ]
   │
 1 │ int k = v[10];
   │         ──┬──
   │           ╰──── index 10
   │
   │ Note: the valid indices are 0 to 3
───╯
amp> v[10] = 1;
error[R0001]: index 10 is out of bounds for a `std::vector` of size 4
   ╭─[ <input 9>:1:1 ]
   │
 1 │ v[10] = 1;
   │ ──┬──
   │   ╰──── index 10
   │
   │ Note: the valid indices are 0 to 3
───╯
amp> n * v[3]
= 8 : int
amp> k
error[E0200]: cannot find `k` in this scope
   ╭─[ <input 11>:1:1 ]
   │
 1 │ k
   │ ┬
   │ ╰── not declared
   │
   │ Help: declare it before this use
───╯
",
    );
    assert_eq!(t.status, EXIT_FAILED_INPUT);
}

#[test]
fn load_declares_a_samples_structs_functions_and_globals() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../samples/struct_and_functions.amp"
    );
    let t = session(&format!(
        "{PRELUDE}:load {path}
SCALE
classify(5) + digitSum(1234)
Particle p = {{7, 1.5f, 2.5f, 0u}};
nudge(p, 1.0f, 0.5f);
p
"
    ));
    let out = t.out.replace(path, "samples/struct_and_functions.amp");
    assert_text(
        &out,
        "amp> #include <iostream>
amp> #include <amp.h>
amp> using namespace concurrency;
amp> :load samples/struct_and_functions.amp
loaded 9 declarations from samples/struct_and_functions.amp; its `main` was not run (`tessera run samples/struct_and_functions.amp` runs the whole program)
amp> SCALE
= 3 : int
amp> classify(5) + digitSum(1234)
= 31 : int
amp> Particle p = {7, 1.5f, 2.5f, 0u};
amp> nudge(p, 1.0f, 0.5f);
amp> p
= {id = 7, x = 2.5, y = 2, flags = 1} : Particle
",
    );
    assert_eq!(t.err, "");
    assert_eq!(t.status, 0);
}

#[test]
fn load_reports_a_missing_file_and_a_file_with_errors() {
    let t = session(":load no/such/file.amp\n");
    assert!(
        t.err.starts_with("error: cannot read `no/such/file.amp`: "),
        "{}",
        t.err
    );
    let broken =
        std::env::temp_dir().join(format!("tessera-repl-broken-{}.amp", std::process::id()));
    std::fs::write(&broken, "int f() { return 1 }\n").expect("write a temporary file");
    let t = session(&format!(":load {}\nf()\n", broken.display()));
    let _ = std::fs::remove_file(&broken);
    assert!(t.err.contains("error[E0101]: expected `;`"), "{}", t.err);
    assert!(t.err.contains("cannot find function `f`"), "{}", t.err);
    assert_eq!(t.status, EXIT_FAILED_INPUT);
}

#[test]
fn type_shows_an_expressions_type_without_running_it() {
    let t = session(&format!(
        "{PRELUDE}std::vector<float> v(4);
array_view<float, 2> av(2, 2, v);
:type av
:type av(0, 1) * 2
:type av.extent.tile<1, 2>()
:type std::cout << 1
:type v[99]
:type int x = 1
:type nothing
v[0]
"
    ));
    assert_text(
        &t.out,
        "amp> #include <iostream>
amp> #include <amp.h>
amp> using namespace concurrency;
amp> std::vector<float> v(4);
amp> array_view<float, 2> av(2, 2, v);
amp> :type av
array_view<float, 2>
amp> :type av(0, 1) * 2
float
amp> :type av.extent.tile<1, 2>()
tiled_extent<1, 2>
amp> :type std::cout << 1
std::ostream
amp> :type v[99]
float
amp> :type int x = 1
amp> :type nothing
amp> v[0]
= 0 : float
",
    );
    assert!(
        t.err.contains("error: `:type` takes one expression"),
        "{}",
        t.err
    );
    assert!(t.err.contains("cannot find `nothing`"), "{}", t.err);
}

#[test]
fn declarations_persist_across_inputs() {
    let t = session(&format!(
        "{PRELUDE}#define N 4
struct P {{ int x; float y; }};
static const int SCALE = 3;
int scaled(int v) restrict(amp, cpu) {{ return v * SCALE; }}
P p = {{N, 0.5f}};
std::vector<int> out(N);
array_view<int, 1> o(N, out);
parallel_for_each(o.extent, [=](index<1> i) restrict(amp) {{ o[i] = scaled(i[0]) + p.x; }});
o
p
"
    ));
    let tail = t.out.split("amp> o\n").nth(1).unwrap_or_default();
    assert_text(
        tail,
        "= [4, 7, 10, 13] extent (4) : array_view<int, 1>
amp> p
= {x = 4, y = 0.5} : P
",
    );
    assert_eq!(t.err, "");
}

#[test]
fn a_value_shows_only_without_the_final_semicolon() {
    let t = session("int x = 2;\nx = 5;\nx = 6\nx;\nx++\n(void)x\n");
    assert_text(
        &t.out,
        "amp> int x = 2;
amp> x = 5;
amp> x = 6
= 6 : int
amp> x;
amp> x++
= 6 : int
amp> (void)x
",
    );
}

#[test]
fn inputs_continue_while_brackets_are_open() {
    let t = session(
        "int total = 0;\nfor (int i = 0;\n     i < 4;\n     i++) {\n  // a comment with a ( in it\n  total += i;\n}\ntotal\n",
    );
    assert_text(
        &t.out,
        "amp> int total = 0;
amp> for (int i = 0;
...>      i < 4;
...>      i++) {
...>   // a comment with a ( in it
...>   total += i;
...> }
amp> total
= 6 : int
",
    );
}

#[test]
fn a_main_or_a_return_of_ones_own_is_refused() {
    let t = session(
        "int main() { return 0; }\nint y = 1;\nif (y > 0) { return 1; }\nint f() { return main(); }\ny + main()\ny\n",
    );
    assert_text(
        &t.err,
        "error: <input 1>:1:5: the session is the body of `main`: what you type at the prompt runs in it, so a `main` of your own cannot be defined (`:load` a file with a `main` to get its other declarations)
error: <input 3>:1:14: `return` would end `main`, and `main` is the session itself; to see a value, write it without `;`
error: <input 4>:1:18: `main` is the session itself: C++ does not let a program use `main`, and calling it here would run every input again
error: <input 5>:1:5: `main` is the session itself: C++ does not let a program use `main`, and calling it here would run every input again
",
    );
    assert!(t.out.ends_with("amp> y\n= 1 : int\n"), "{}", t.out);
}

#[test]
fn a_label_of_the_sessions_own_is_refused_and_one_in_a_block_works() {
    let t = session(
        "int x = 0;\nagain: x++;\n{ int k = 0; top: k++; if (k < 3) goto top; x = k; }\nx\n",
    );
    assert_text(
        &t.err,
        "error: <input 2>:1:1: a label among the session's own statements cannot be jumped to; put the label and its `goto` in a block `{ ... }`
",
    );
    assert!(t.out.ends_with("amp> x\n= 3 : int\n"), "{}", t.out);
}

#[test]
fn check_on_reports_races_and_the_input_is_kept() {
    let t = session(&format!(
        "{PRELUDE}std::vector<int> v(4);
array_view<int, 1> a(4, v);
:check
:check on
parallel_for_each(a.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {{
    tile_static int s[4];
    s[t.local[0]] = t.local[0];
    a[t.global] = s[3 - t.local[0]];
}});
a
:check off
"
    ));
    assert!(
        t.out.contains("amp> :check\ndynamic checks are off\n"),
        "{}",
        t.out
    );
    // Checks watch every access, which only the interpreter sees.
    assert!(
        t.out.contains("dynamic checks run in the interpreter: inputs run there, not in the JIT, until `:check off`\n"),
        "{}",
        t.out
    );
    assert!(
        t.out
            .contains("amp> :check off\ndynamic checks off\ninputs run in the JIT again\n"),
        "{}",
        t.out
    );
    assert!(
        t.err
            .contains("error[R0100]: data race on `tile_static` memory"),
        "{}",
        t.err
    );
    // Findings do not stop the run: the input was kept, and `a` shows.
    assert!(t.out.contains("amp> a\n= ["), "{}", t.out);
    assert_eq!(t.status, 0);
}

#[test]
fn engine_clif_time_reset_and_quit() {
    let t = session(
        "int x = 3;\n:engine\n:engine interp\n:engine\n:engine fast\n:engine jit\n:clif\n:clif everything\n:time x * 2\n:time\nx + 1\n:engine interp\n:time x + 2\n:reset\n:engine\nx\n:quit\nx\n",
    );
    assert_text(
        &t.out,
        "amp> int x = 3;
amp> :engine
engine: jit (Cranelift: kernels and the host loops it can compile run as native code, the rest in the interpreter)
amp> :engine interp
engine: interp (the reference interpreter)
amp> :engine
engine: interp (the reference interpreter)
amp> :engine fast
amp> :engine jit
engine: jit (Cranelift: kernels and the host loops it can compile run as native code, the rest in the interpreter)
amp> :clif
no kernel yet
amp> :clif everything
amp> :time x * 2
= 6 : int
amp> :time
the next input will be timed
amp> x + 1
= 4 : int
amp> :engine interp
engine: interp (the reference interpreter)
amp> :time x + 2
= 5 : int
amp> :reset
session reset: every declaration and variable is gone
amp> :engine
engine: interp (the reference interpreter)
amp> x
amp> :quit
",
    );
    let lines: Vec<&str> = t.err.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "error: `:engine fast`: the engines are `jit` and `interp`",
            "error: `:clif everything`: say `:clif` for the last kernel or `:clif all` for every kernel",
        ],
        "{}",
        t.err
    );
    // Under the JIT the time says what compiling took; in the interpreter
    // nothing compiles.
    for line in &lines[2..4] {
        assert!(
            line.starts_with("time: ")
                && line.contains(" ms (parse and check ")
                && line.ends_with(" ms)")
                && line.contains(", of which JIT compile "),
            "{}",
            t.err
        );
    }
    assert!(
        lines[4].starts_with("time: ") && !lines[4].contains("JIT"),
        "{}",
        t.err
    );
    assert!(
        lines[5].starts_with("error[E0200]: cannot find `x`"),
        "{}",
        t.err
    );
    assert_eq!(t.status, EXIT_FAILED_INPUT);
}

/// Inputs with tiled kernels, printed results, shown values and run-time
/// errors in kernels, to type under each engine.
const KERNELS: &str = "std::vector<int> data(24);
for (int i = 0; i < 24; i++) data[i] = (i * 7) % 10;
array_view<int, 2> sample(4, 6, data);
std::vector<int> averages(24);
array_view<int, 2> average(4, 6, averages);
parallel_for_each(sample.extent.tile<2, 2>(), [=](tiled_index<2, 2> idx) restrict(amp) {
    tile_static int nums[2][2];
    nums[idx.local[0]][idx.local[1]] = sample[idx.global];
    idx.barrier.wait();
    int sum = nums[0][0] + nums[0][1] + nums[1][0] + nums[1][1];
    average[idx.global] = sum / 4;
});
average
for (int r = 0; r < 4; r++) { for (int c = 0; c < 6; c++) std::cout << average(r, c) << ' '; std::cout << '\\n'; }
std::vector<float> f(8);
array_view<float, 1> fv(8, f);
parallel_for_each(fv.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {
    tile_static float s[4];
    s[t.local[0]] = t.global[0] * 0.5f;
    t.barrier.wait();
    fv[t.global] = s[3 - t.local[0]] + s[0];
});
fv
parallel_for_each(average.extent.tile<2, 2>(), [=](tiled_index<2, 2> idx) restrict(amp) {
    average(idx.global[0], idx.global[1] + 1) = idx.tile[1];
});
int zero = 0;
parallel_for_each(sample.extent, [=](index<2> i) restrict(amp) { average[i] = sample[i] / zero; });
average
";

#[test]
fn the_jit_and_the_interpreter_write_the_same_transcript() {
    let under = |engine: &str| {
        let t = session(&format!(":engine {engine}\n{PRELUDE}{KERNELS}"));
        let from = t.all.find("amp> #include").unwrap_or(0);
        (t.all[from..].to_string(), t.status)
    };
    let (jit, jit_status) = under("jit");
    let (interp, interp_status) = under("interp");
    assert_text(&jit, &interp);
    assert_eq!(jit_status, interp_status);
    assert_eq!(jit_status, EXIT_FAILED_INPUT);
    // The kernels ran and the errors are there.
    assert!(
        jit.contains(
            "amp> average
= extent (4,6) : array_view<int, 2>
  4 4 3 3 5 5
  4 4 3 3 5 5
  3 3 5 5 4 4
  3 3 5 5 4 4
"
        ),
        "{jit}"
    );
    assert!(jit.contains("= [1.5, 1, 0.5, 0, 5.5, 5, 4.5, 4]"), "{jit}");
    assert_eq!(jit.matches("error[R").count(), 2, "{jit}");
    // The JIT compiles the kernels the session kept (the inputs that failed
    // are forgotten), so it ran them rather than the interpreter.
    let t = session(&format!("{PRELUDE}{KERNELS}:clif all\n"));
    let all = t.out.split("amp> :clif all\n").nth(1).unwrap_or_default();
    assert_eq!(all.matches("\nfunction ").count(), 2, "{all}");
    assert!(!all.contains("runs in the interpreter"), "{all}");
    // What a failed launch wrote before its error stays written, alike.
    assert!(
        jit.ends_with(
            "amp> average
= extent (4,6) : array_view<int, 2>
  4 0 0 1 1 2
  4 0 0 1 1 5
  3 3 5 5 4 4
  3 3 5 5 4 4
"
        ),
        "{jit}"
    );
}

#[test]
fn clif_shows_the_jits_code_for_the_last_kernel_typed() {
    let t = session(&format!(
        "{PRELUDE}:clif
std::vector<int> v(16);
array_view<int, 2> av(4, 4, v);
parallel_for_each(av.extent, [=](index<2> i) restrict(amp) {{ av[i] = i[0] * 4 + i[1]; }});
void flip(array_view<int, 2> a) {{
    parallel_for_each(a.extent.tile<2, 2>(), [=](tiled_index<2, 2> t) restrict(amp) {{
        tile_static int s[2][2];
        s[t.local[0]][t.local[1]] = a[t.global];
        t.barrier.wait();
        a[t.global] = s[1 - t.local[0]][1 - t.local[1]];
    }});
}}
:clif
parallel_for_each(av.extent, [=](index<2> i) restrict(amp) {{ av[i] = missing; }});
:engine interp
:clif all
flip(av);
av
"
    ));
    assert!(t.out.contains("amp> :clif\nno kernel yet\n"), "{}", t.out);
    // `flip`, declared after the first kernel was typed, holds the last one
    // (though the program's functions list declarations first).
    let last = t
        .out
        .split("amp> :clif\n")
        .nth(2)
        .and_then(|s| s.split("amp> ").next())
        .unwrap_or_default();
    assert!(
        last.starts_with("; tiled kernel <2, 2> at <input 7>:2:46\n"),
        "{last}"
    );
    assert!(last.contains("\nfunction "), "{last}");
    assert!(!last.contains("; kernel at"), "{last}");
    // A rejected input leaves the session's kernels as they were; `all`
    // lists them in the order they were typed, whichever engine runs.
    let all = t
        .out
        .split("amp> :clif all\n")
        .nth(1)
        .and_then(|s| s.split("amp> ").next())
        .unwrap_or_default();
    let first = all.find("; kernel at <input 6>:1:30\n");
    let second = all.find("; tiled kernel <2, 2> at <input 7>:2:46\n");
    assert!(first.is_some() && first < second, "{all}");
    assert_eq!(all.matches("\nfunction ").count(), 2, "{all}");
    assert!(
        t.out
            .ends_with("   5  4  7  6\n   1  0  3  2\n  13 12 15 14\n   9  8 11 10\n"),
        "{}",
        t.out
    );
    assert!(t.err.contains("cannot find `missing`"), "{}", t.err);
}

#[test]
fn help_and_unknown_commands() {
    let t = session(":help\n:frobnicate\n");
    for command in [
        ":type EXPR",
        ":load FILE",
        ":check on|off",
        ":time",
        ":engine jit|interp",
        ":clif [all]",
        ":reset",
        ":quit",
    ] {
        assert!(t.out.contains(command), "{command} missing from\n{}", t.out);
    }
    assert_eq!(
        t.err,
        "error: unknown command `:frobnicate`; `:help` lists the commands\n"
    );
}

#[test]
fn without_echo_only_results_are_written() {
    let t = run_with(
        &Config::default(),
        "int x = 6;\n\n  \nstd::cout << x * 7;\nx\n",
    );
    assert_eq!(t.out, "42\n= 6 : int\n");
    assert_eq!(t.err, "");
    assert_eq!(t.status, 0);
}

#[test]
fn an_unfinished_input_at_the_end_is_still_read() {
    let t = session("int a[] = {1, 2,\n");
    assert!(t.out.starts_with("amp> int a[] = {1, 2,\n"), "{}", t.out);
    assert!(t.err.contains("error["), "{}", t.err);
    assert_eq!(t.status, EXIT_FAILED_INPUT);
}

#[test]
fn warnings_are_shown_once_for_the_input_they_are_about() {
    let t = session(&format!(
        "{PRELUDE}std::vector<int> v(4);
array_view<int, 1> a(4, v);
parallel_for_each(a.extent.tile<4>(), [=](tiled_index<4> t) restrict(amp) {{
    tile_static int total;
    total = a[t.global];
    t.barrier.wait();
    a[t.global] = total;
}});
int later = 1;
"
    ));
    let warnings = t.err.matches("warning[").count();
    assert!(warnings >= 1, "{}", t.err);
    // The input after it checks the whole program again, silently.
    let after = t
        .all
        .split("amp> int later = 1;\n")
        .nth(1)
        .unwrap_or("missing");
    assert_eq!(after, "");
}

#[test]
fn globals_written_with_their_functions_are_declared_as_written() {
    let t = session(
        "int counter = 10; void bump() { counter++; }\nbump();\nbump();\ncounter\nint x = 1;\nint x = 2;\nx\n",
    );
    assert!(t.out.contains("amp> counter\n= 12 : int\n"), "{}", t.out);
    // A name declared again in the session is an error, as in one function.
    assert!(t.err.starts_with("error[E0"), "{}", t.err);
    assert!(t.err.contains("`x`"), "{}", t.err);
    assert!(t.out.ends_with("amp> x\n= 1 : int\n"), "{}", t.out);
}

#[test]
fn the_run_options_of_the_config_apply_to_each_input() {
    // `tessera repl --engine interp --threads 2 --timeout 0.3`: the engine
    // is chosen from the start and kept by `:reset`; each input that runs
    // too long stops with R0009 and is forgotten, and the next input has
    // the whole limit again (what it did to the variables stays).
    let options = tessera_interp::Options {
        limits: tessera_runtime::Limits {
            timeout: Some(std::time::Duration::from_millis(300)),
            ..tessera_runtime::Limits::default()
        },
        ..tessera_interp::Options::default()
    };
    let config = Config {
        echo: true,
        options,
        engine: tessera_repl::Engine::Interp,
        threads: Some(2),
        ..Config::default()
    };
    let t = run_with(
        &config,
        ":engine\nlong n = 0;\nwhile (true) { n++; }\nn = 5;\nfor (long i = 0; i < 3000000000L; i++) { n++; }\nint kept = 7;\nkept\n:reset\n:engine\n",
    );
    assert_text(
        &t.out,
        "amp> :engine
engine: interp (the reference interpreter)
amp> long n = 0;
amp> while (true) { n++; }
amp> n = 5;
amp> for (long i = 0; i < 3000000000L; i++) { n++; }
amp> int kept = 7;
amp> kept
= 7 : int
amp> :reset
session reset: every declaration and variable is gone
amp> :engine
engine: interp (the reference interpreter)
",
    );
    let stopped = t.err.matches("error[R0009]").count();
    assert_eq!(stopped, 2, "{}", t.err);
    assert_eq!(t.status, 1);
}

/// `#include <algorithm>` brings the library's own templates into the
/// session, as into a file: algorithms taking a lambda work at the prompt.
#[test]
fn the_library_written_in_the_language_in_a_session() {
    let t = session(
        "#include <algorithm>
#include <vector>
std::vector<int> v(4);
int k = 0;
std::generate(v.begin(), v.end(), [&]() { return ++k * 10; });
std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
v
",
    );
    assert!(
        t.out
            .contains("= [40, 30, 20, 10] (size 4) : std::vector<int>"),
        "{}",
        t.out
    );
    assert_eq!(t.err, "");
    assert_eq!(t.status, 0);
}
