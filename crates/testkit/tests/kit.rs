//! The kit's own promises: determinism, mutants that parse, a clean program.

use std::collections::BTreeSet;
use tessera_diagnostics::{SourceFile, Sources};
use tessera_testkit::mutate::{self, Rng};
use tessera_testkit::{generate, samples, semantic};

fn parses_cleanly(text: &str) -> bool {
    let mut sources = Sources::new();
    let id = sources.add(SourceFile {
        name: "t.amp".into(),
        text: text.to_string(),
    });
    // The parts of the standard headers written in the Tessera language
    // (`<chrono>`, `<array>`) are read as the driver reads them.
    tessera_syntax::parse_with_library(&mut sources, id, &[])
        .diagnostics
        .is_empty()
}

#[test]
fn rng_is_splitmix64() {
    // The first outputs of SplitMix64 from 0, as published with it.
    let mut rng = Rng::new(0);
    assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
    assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    let mut rng = Rng::new(7);
    for n in [1, 2, 3, 10, 1000] {
        assert!(rng.below(n) < n);
        assert!(rng.pos(n) <= n);
        let (a, b) = rng.range(n);
        assert!(a <= b && b <= n);
    }
    assert_eq!(rng.below(0), 0);
}

#[test]
fn same_seed_same_mutants() {
    let samples = samples::load();
    let donors: Vec<Vec<u8>> = samples.iter().map(|s| s.bytes.clone()).collect();
    let mut differ = 0;
    for i in 0..200 {
        let original = &samples[i % samples.len()];
        let a = mutate::mutate(&mut Rng::for_mutant(1, i), &original.bytes, &donors);
        let b = mutate::mutate(&mut Rng::for_mutant(1, i), &original.bytes, &donors);
        assert_eq!(a, b);
        assert!(a.bytes.len() <= mutate::MAX_MUTANT);
        let c = mutate::mutate(&mut Rng::for_mutant(2, i), &original.bytes, &donors);
        differ += usize::from(a != c);
        let text = original.text();
        let s = semantic::mutate(&mut Rng::for_mutant(1, i), &text);
        assert_eq!(s, semantic::mutate(&mut Rng::for_mutant(1, i), &text));
    }
    assert!(differ > 190, "other seeds should give other mutants");
    // Without donors the mutant gives to itself.
    let m = mutate::mutate(&mut Rng::new(3), b"int main() { return 0; }", &[]);
    assert!(!m.log.is_empty());
}

#[test]
fn semantic_mutants_mostly_parse() {
    let samples = samples::load();
    let mut kinds = BTreeSet::new();
    let mut clean = 0;
    let total = 300;
    for i in 0..total {
        let mut text = samples[i % samples.len()].text();
        let mut log = String::new();
        assert!(semantic::mutate_once(
            &mut Rng::for_mutant(5, i),
            &mut text,
            &mut log
        ));
        // The kind: the words before the first offset.
        let kind: String = log
            .trim()
            .split(|c: char| c.is_ascii_digit())
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        kinds.insert(kind);
        clean += usize::from(parses_cleanly(&text));
    }
    assert!(clean * 10 >= total * 9, "only {clean} of {total} parse");
    assert_eq!(kinds.len(), 11, "kinds seen: {kinds:?}");
    let mut empty = String::new();
    assert!(!semantic::mutate_once(
        &mut Rng::new(0),
        &mut empty,
        &mut String::new()
    ));
}

#[test]
fn large_program_parses_cleanly() {
    let texts = samples::texts();
    let text = generate::large_program(&texts, 50_000);
    assert!(text.len() >= 50_000);
    assert_eq!(text, generate::large_program(&texts, 50_000));
    assert!(parses_cleanly(&text));
}
