//! The random program generator's own promises: the same seed and number
//! give the same program, other seeds give other programs, and every
//! program parses without a diagnostic. (That the checker accepts them and
//! that they run as the oracle runs them is the differential test's job:
//! `crates/cli/tests/differential.rs`.)

use tessera_diagnostics::{SourceFile, Sources};
use tessera_testkit::programs::{self, Options};

fn diagnostics(text: &str) -> Vec<String> {
    let mut sources = Sources::new();
    let id = sources.add(SourceFile {
        name: "generated.amp".into(),
        text: text.to_string(),
    });
    tessera_syntax::parse_file(&sources, id, &[])
        .diagnostics
        .iter()
        .map(|d| format!("{d:?}"))
        .collect()
}

#[test]
fn same_seed_same_program() {
    let mut differ = 0;
    for i in 0..20 {
        let a = programs::program(11, i);
        assert_eq!(a, programs::program(11, i), "program {i} of seed 11");
        differ += usize::from(a != programs::program(12, i));
        assert!(a.contains("int main()"));
        assert!(a.contains("parallel_for_each"));
    }
    assert_eq!(differ, 20, "other seeds should give other programs");
}

#[test]
fn programs_parse_cleanly() {
    for i in 0..40 {
        for options in [Options::default(), Options { known_gaps: true }] {
            let text = programs::program_with(3, i, options);
            let found = diagnostics(&text);
            assert!(
                found.is_empty(),
                "program {i} of seed 3 ({options:?}) does not parse:\n{}\n{text}",
                found.join("\n")
            );
        }
    }
}
