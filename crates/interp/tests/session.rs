//! A REPL session through the interpreter's API: state lives on between
//! inputs, only new statements run, a failed input leaves state alone.

use tessera_diagnostics::Sources;
use tessera_interp::{Options, Session};
use tessera_ir::Program;

/// Checks `text` (it must be error-free) and returns the typed program and
/// how many statements `main` has.
fn program(text: &str) -> (Program, usize) {
    let mut sources = Sources::new();
    let checked = tessera_driver::compile_source(&mut sources, "session.amp", text.as_bytes());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let main = checked.program.main.expect("a main");
    let n = checked
        .program
        .function(main)
        .body
        .as_ref()
        .map_or(0, |b| b.stmts.len());
    (checked.program, n)
}

const HEAD: &str = "#include <iostream>\n#include <vector>\n#include <amp.h>\nusing namespace concurrency;\nint g = 40;\n";

#[test]
fn state_lives_between_inputs_and_only_new_statements_run() {
    let mut session = Session::new(Options::default());
    let mut out = Vec::new();

    let (p1, n1) = program(&format!(
        "{HEAD}int main() {{ std::vector<int> v(3, 7); std::cout << \"made\\n\"; }}"
    ));
    let r = session.run(&p1, 0, 0, &mut out);
    assert!(r.error.is_none() && r.shown.is_none());
    assert_eq!(String::from_utf8_lossy(&out), "made\n");

    let (p2, n2) = program(&format!(
        "{HEAD}int main() {{ std::vector<int> v(3, 7); std::cout << \"made\\n\"; v[1] = g + 2; v; }}"
    ));
    let r = session.run(&p2, p1.globals.len(), n1, &mut out);
    assert!(r.error.is_none(), "{:?}", r.error);
    let shown = r.shown.expect("a value");
    assert_eq!(shown.text, "[7, 42, 7] (size 3)");
    assert_eq!(shown.ty, "std::vector<int>");
    // "made" was not printed again.
    assert_eq!(String::from_utf8_lossy(&out), "made\n");

    // A failing input: the error comes back, earlier state is intact.
    let (p3, _) = program(&format!(
        "{HEAD}int main() {{ std::vector<int> v(3, 7); std::cout << \"made\\n\"; v[1] = g + 2; v; v[5] = 1; }}"
    ));
    let r = session.run(&p3, p2.globals.len(), n2, &mut out);
    assert!(r.error.is_some());

    let (p4, _) = program(&format!(
        "{HEAD}int main() {{ std::vector<int> v(3, 7); std::cout << \"made\\n\"; v[1] = g + 2; v; v[0] + v[1]; }}"
    ));
    let r = session.run(&p4, p2.globals.len(), n2, &mut out);
    assert_eq!(r.shown.map(|s| s.text), Some("49".to_string()));
}

#[test]
fn rank_two_views_show_as_grids_and_tiled_extents_as_tile_maps() {
    let mut session = Session::new(Options::default());
    let mut out = Vec::new();
    let text = format!(
        "{HEAD}int main() {{ std::vector<int> d(12); for (int i = 0; i < 12; i++) d[i] = i * 3; array_view<int, 2> a(3, 4, d); a; }}"
    );
    let (p, _) = program(&text);
    let r = session.run(&p, 0, 0, &mut out);
    let shown = r.shown.expect("a value");
    assert_eq!(
        shown.text,
        "extent (3,4)\n 0  3  6  9\n12 15 18 21\n24 27 30 33"
    );
    assert_eq!(shown.ty, "array_view<int, 2>");

    let text = format!("{HEAD}int main() {{ extent<2> e(4, 6); e.tile<2, 3>(); }}");
    let (p, _) = program(&text);
    let mut session = Session::new(Options::default());
    let r = session.run(&p, 0, 0, &mut out);
    let shown = r.shown.expect("a value");
    assert_eq!(
        shown.text,
        "extent (4,6) in tiles of 2x3\n0,0 0,0 0,0 0,1 0,1 0,1\n0,0 0,0 0,0 0,1 0,1 0,1\n1,0 1,0 1,0 1,1 1,1 1,1\n1,0 1,0 1,0 1,1 1,1 1,1"
    );
}
