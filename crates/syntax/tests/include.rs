//! Local headers: `#include "x.h"` read through a `FileSystem`, spliced in
//! place, with guards, `#pragma once`, folders and case-insensitive names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tessera_diagnostics::{Diagnostic, FileId, SourceFile, Sources, Span};
use tessera_syntax::ast::ItemKind;
use tessera_syntax::include::{SourceLoader, read_headers, read_headers_pruned, restore_pruned};
use tessera_syntax::parse_unit;
use tessera_testkit::harness::check_span;
use tessera_testkit::mutate::{Rng, mutate};
use tessera_testkit::samples;

/// Files in memory, by path.
struct Memory(BTreeMap<PathBuf, String>);

impl Memory {
    fn new(files: &[(&str, &str)]) -> Self {
        Memory(
            files
                .iter()
                .map(|(p, t)| (PathBuf::from(p), (*t).to_string()))
                .collect(),
        )
    }
}

impl SourceLoader for Memory {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.0
            .get(path)
            .map(|t| t.clone().into_bytes())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }
    fn is_file(&self, path: &Path) -> bool {
        self.0.contains_key(path)
    }
    fn list(&self, dir: &Path) -> Vec<String> {
        let dir = if dir == Path::new(".") {
            Path::new("")
        } else {
            dir
        };
        self.0
            .keys()
            .filter_map(|p| p.strip_prefix(dir).ok())
            .filter_map(|rest| rest.components().next())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect()
    }
}

struct Unit {
    sources: Sources,
    functions: Vec<(String, Span)>,
    diagnostics: Vec<Diagnostic>,
}

impl Unit {
    fn file_name(&self, span: Span) -> &str {
        self.sources.get(span.file).map_or("?", |f| f.name.as_str())
    }
    fn codes(&self) -> Vec<&str> {
        self.diagnostics.iter().map(|d| d.code.as_str()).collect()
    }
}

fn parse(fs: &Memory, main: &str, dirs: &[&str]) -> Unit {
    let mut sources = Sources::new();
    let text = fs.0.get(Path::new(main)).cloned().unwrap_or_default();
    let (file, replaced) = SourceFile::from_bytes(main, text.as_bytes());
    let file: FileId = sources.add(file);
    let dirs: Vec<PathBuf> = dirs.iter().map(PathBuf::from).collect();
    let included = read_headers(&mut sources, file, fs, &dirs);
    let parsed = parse_unit(&sources, file, &replaced, &included);
    let functions = parsed
        .unit
        .items
        .iter()
        .filter_map(|item| match &item.kind {
            ItemKind::Function(f) => Some((f.name.name.clone(), f.name.span)),
            _ => None,
        })
        .collect();
    Unit {
        sources,
        functions,
        diagnostics: parsed.diagnostics,
    }
}

#[test]
fn a_header_is_read_in_place_with_its_own_spans() {
    let fs = Memory::new(&[
        (
            "src/main.amp",
            "int before();\n#include \"util.h\"\nint after();\n",
        ),
        ("src/util.h", "// helpers\nint helper();\n"),
    ]);
    let unit = parse(&fs, "src/main.amp", &[]);
    assert!(unit.diagnostics.is_empty(), "{:?}", unit.diagnostics);
    let names: Vec<&str> = unit.functions.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["before", "helper", "after"]);
    let (_, helper) = &unit.functions[1];
    assert_eq!(unit.file_name(*helper), "src/util.h");
    assert_eq!(helper.start, 15, "offset within the header");
    let (_, after) = &unit.functions[2];
    assert_eq!(unit.file_name(*after), "src/main.amp");
    assert_eq!(after.start, 36);
}

#[test]
fn guards_and_pragma_once_read_a_header_once() {
    let fs = Memory::new(&[
        (
            "main.amp",
            "#include \"a.h\"\n#include \"a.h\"\n#include \"b.h\"\n#include \"b.h\"\n",
        ),
        ("a.h", "#ifndef A_H\n#define A_H\nint a();\n#endif\n"),
        ("b.h", "#pragma once\nint b();\n"),
    ]);
    let unit = parse(&fs, "main.amp", &[]);
    assert!(unit.diagnostics.is_empty(), "{:?}", unit.diagnostics);
    assert_eq!(unit.functions.len(), 2);
}

#[test]
fn nested_headers_resolve_from_their_own_folder_then_include_dirs() {
    let fs = Memory::new(&[
        (
            "app/main.amp",
            "#include \"lib/outer.h\"\n#include <shared.h>\n",
        ),
        ("app/lib/outer.h", "#include \"inner.h\"\nint outer();\n"),
        ("app/lib/inner.h", "int inner();\n"),
        ("common/shared.h", "int shared();\n"),
    ]);
    let unit = parse(&fs, "app/main.amp", &["common"]);
    assert!(unit.diagnostics.is_empty(), "{:?}", unit.diagnostics);
    let names: Vec<&str> = unit.functions.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["inner", "outer", "shared"]);
    assert_eq!(unit.file_name(unit.functions[0].1), "app/lib/inner.h");
}

#[test]
fn angle_brackets_search_the_include_dirs_in_order_and_not_the_includer() {
    let fs = Memory::new(&[
        (
            "tests/main.amp",
            "#include <lib.h>\n#include <mine.h>\n#include \"mine.h\"\n",
        ),
        ("tests/mine.h", "int mine();\n"),
        // `lib.h` includes `<lib/detail.h>`: found through the folders, not
        // under `first/lib/`, where the header itself lives.
        ("first/lib.h", "#include <lib/detail.h>\nint first();\n"),
        ("first/lib/detail.h", "int detail();\n"),
        ("first/lib/lib/detail.h", "int wrong_detail();\n"),
        ("second/lib.h", "int second();\n"),
    ]);
    let unit = parse(&fs, "tests/main.amp", &["first", "second"]);
    // `<mine.h>` is not looked for next to the file that includes it, as
    // compilers do; the quoted spelling finds it there.
    assert_eq!(unit.codes(), ["W0050"], "{:?}", unit.diagnostics);
    let names: Vec<&str> = unit.functions.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["detail", "first", "mine"]);
    assert_eq!(unit.file_name(unit.functions[0].1), "first/lib/detail.h");
}

#[test]
fn known_headers_keep_their_meaning_beside_include_dirs() {
    let fs = Memory::new(&[
        (
            "main.amp",
            "#include <amp.h>\n#include <vector>\n#include <shim.h>\nint main() { return 0; }\n",
        ),
        ("inc/amp.h", "int not_the_library();\n"),
        ("inc/vector", "int not_the_vector();\n"),
        (
            "inc/shim.h",
            "#include <amp.h>\n#include <iostream>\nint shim();\n",
        ),
    ]);
    let unit = parse(&fs, "main.amp", &["inc"]);
    assert!(unit.diagnostics.is_empty(), "{:?}", unit.diagnostics);
    let names: Vec<&str> = unit.functions.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["shim", "main"]);
}

#[test]
fn a_name_in_other_case_is_found_with_a_warning() {
    let fs = Memory::new(&[
        ("main.amp", "#include \"scan.h\"\n"),
        ("Scan.h", "int scan();\n"),
    ]);
    let unit = parse(&fs, "main.amp", &[]);
    assert_eq!(unit.codes(), ["W0060"]);
    assert_eq!(unit.functions.len(), 1);
    assert!(unit.diagnostics[0].message.contains("Scan.h"));
}

#[test]
fn missing_and_unknown_headers_do_not_stop_the_rest() {
    let fs = Memory::new(&[(
        "main.amp",
        "#include \"nowhere.h\"\n#include <windows.h>\nint main() { return 0; }\n",
    )]);
    let unit = parse(&fs, "main.amp", &[]);
    assert_eq!(unit.codes(), ["E0059", "W0050"]);
    assert_eq!(unit.functions.len(), 1);
}

#[test]
fn errors_in_a_header_point_into_it() {
    let fs = Memory::new(&[
        ("main.amp", "#include \"bad.h\"\nint main() { return 0; }\n"),
        ("bad.h", "int broken( { }\n#if 1\n"),
    ]);
    let unit = parse(&fs, "main.amp", &[]);
    assert!(!unit.diagnostics.is_empty());
    for d in &unit.diagnostics {
        assert_eq!(unit.file_name(d.primary.span), "bad.h", "{d:?}");
    }
    assert!(unit.codes().contains(&"E0052"), "{:?}", unit.codes());
    assert!(unit.functions.iter().any(|(n, _)| n == "main"));
}

#[test]
fn a_header_including_itself_stops_at_the_depth_limit() {
    let fs = Memory::new(&[
        ("main.amp", "#include \"loop.h\"\n"),
        ("loop.h", "#include \"loop.h\"\n"),
    ]);
    let unit = parse(&fs, "main.amp", &[]);
    assert_eq!(unit.codes(), ["E0061"]);
    assert_eq!(unit.file_name(unit.diagnostics[0].primary.span), "loop.h");
}

/// Every span of a tree (serialised) and of the diagnostics lies inside the
/// file it names.
fn check_spans(sources: &Sources, parsed: &tessera_syntax::Parsed) -> Result<(), String> {
    for d in &parsed.diagnostics {
        check_span(sources, d.primary.span, &d.message)?;
        for label in &d.secondary {
            check_span(sources, label.span, &d.message)?;
        }
    }
    let tree = serde_json::to_value(&parsed.unit).map_err(|e| e.to_string())?;
    let mut stack = vec![&tree];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(map) => {
                let field = |k: &str| map.get(k).and_then(serde_json::Value::as_u64);
                if let (Some(file), Some(start), Some(end), 3) =
                    (field("file"), field("start"), field("end"), map.len())
                {
                    let span = Span {
                        file: FileId(file as u32),
                        start: start as u32,
                        end: end as u32,
                    };
                    check_span(sources, span, "syntax tree")?;
                } else {
                    stack.extend(map.values());
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[test]
fn mutated_headers_give_diagnostics_with_valid_spans() {
    // Each sample cut in two at a line: the first part becomes a header the
    // rest includes, and the header is mutated (guards, unclosed
    // conditionals, broken literals and brackets across the file boundary).
    let all = samples::load();
    let donors: Vec<Vec<u8>> = all.iter().map(|s| s.bytes.clone()).collect();
    let mut rng = Rng::new(0x1C1_0DE5);
    for sample in &all {
        let text = String::from_utf8_lossy(&sample.bytes).into_owned();
        let lines: Vec<&str> = text.lines().collect();
        for round in 0..6 {
            let cut = 1 + rng.below(lines.len().max(2) - 1);
            let header = lines[..cut.min(lines.len())].join("\n");
            let rest = lines[cut.min(lines.len())..].join("\n");
            let mutant = mutate(&mut rng, header.as_bytes(), &donors);
            let mut sources = Sources::new();
            let main = format!("#include \"part.h\"\n{rest}\n");
            let (file, replaced) = SourceFile::from_bytes("dir/main.amp", main.as_bytes());
            let file = sources.add(file);
            let fs = MemoryBytes(vec![(PathBuf::from("dir/part.h"), mutant.bytes.clone())]);
            let included = read_headers(&mut sources, file, &fs, &[]);
            let parsed = parse_unit(&sources, file, &replaced, &included);
            if let Err(e) = check_spans(&sources, &parsed) {
                panic!("{} round {round} ({}): {e}", sample.name, mutant.log);
            }
        }
    }
}

/// Files as raw bytes (a mutated header need not be UTF-8).
struct MemoryBytes(Vec<(PathBuf, Vec<u8>)>);

impl SourceLoader for MemoryBytes {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.0
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, b)| b.clone())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }
}

/// The library files `read_headers_pruned` reads for `main` (with `prelude`
/// as the `-D` text), by the names they are shown under, and the includes
/// it left out, by name.
fn pruned(fs: &Memory, main: &str, prelude: &str) -> (Vec<String>, Vec<String>) {
    let mut sources = Sources::new();
    let text = fs.0.get(Path::new(main)).cloned().unwrap_or_default();
    let (file, _) = SourceFile::from_bytes(main, text.as_bytes());
    let file = sources.add(file);
    let included = read_headers_pruned(&mut sources, file, fs, &[], prelude);
    let mut read: Vec<String> = included
        .headers
        .iter()
        .filter_map(|(id, _)| sources.get(*id))
        .map(|f| f.name.clone())
        .filter(|n| n.starts_with('<'))
        .collect();
    read.sort();
    let mut left: Vec<String> = included.pruned.iter().map(|(_, n, _)| n.clone()).collect();
    left.sort();
    (read, left)
}

#[test]
fn library_texts_a_program_does_not_reach_are_left_out() {
    let main = "#include <iostream>\n#include <vector>\n#include <amp.h>\n\
                int main() { std::vector<int> v(4); std::cout << v[0] << std::endl; }\n";
    let fs = Memory::new(&[("main.amp", main)]);
    let (read, left) = pruned(&fs, "main.amp", "");
    assert_eq!(read, ["<amp.h>", "<iterator>", "<vector>"]);
    assert_eq!(left, ["algorithm", "iostream", "string"]);
    // The same unit with the whole library reads both texts.
    let unit = parse(&fs, "main.amp", &[]);
    assert!(unit.diagnostics.is_empty(), "{:?}", unit.diagnostics);
    let all: Vec<&str> = (0..8)
        .filter_map(|i| unit.sources.get(FileId(i)))
        .map(|f| f.name.as_str())
        .collect();
    assert!(
        all.contains(&"<algorithm>") && all.contains(&"<string>"),
        "{all:?}"
    );
}

#[test]
fn a_name_anywhere_in_the_program_keeps_the_text_declaring_it() {
    let amp = "#include <amp.h>\n#include \"util.h\"\nint main() { WORK; }\n";
    // In the main file's code, not in a comment or a literal.
    let fs = Memory::new(&[("main.amp", "#include <amp.h>\nint main() { std::sort; }\n")]);
    assert_eq!(pruned(&fs, "main.amp", "").1, ["string"]);
    let fs = Memory::new(&[(
        "main.amp",
        "#include <amp.h>\n// sort\nint main() { /* sort */ \"sort\"; 's'; }\n",
    )]);
    assert_eq!(pruned(&fs, "main.amp", "").1, ["algorithm", "string"]);
    // In a local header.
    let fs = Memory::new(&[
        ("main.amp", amp),
        ("util.h", "#define WORK std::to_string(1)\n"),
    ]);
    assert_eq!(pruned(&fs, "main.amp", "").1, ["algorithm"]);
    // In the `-D` definitions.
    let fs = Memory::new(&[("main.amp", amp), ("util.h", "")]);
    let (read, left) = pruned(&fs, "main.amp", "#define WORK std::for_each\n");
    assert!(read.contains(&"<algorithm>".to_string()), "{read:?}");
    assert_eq!(left, ["string"]);
    // A built-in name that makes a `std::string`.
    let fs = Memory::new(&[(
        "main.amp",
        "#include <sstream>\nint main() { std::ostringstream s; }\n",
    )]);
    assert_eq!(
        pruned(&fs, "main.amp", ""),
        (
            vec!["<cctype>".into(), "<iterator>".into(), "<string>".into()],
            vec![]
        )
    );
}

#[test]
fn pasted_or_continued_names_keep_every_text() {
    for main in [
        "#include <amp.h>\n#define CAT(a, b) a##b\nint main() { }\n",
        "#include <amp.h>\nint main() { so\\\nrt; }\n",
    ] {
        let fs = Memory::new(&[("main.amp", main)]);
        let (read, left) = pruned(&fs, "main.amp", "");
        assert!(left.is_empty(), "{main}: {left:?}");
        assert!(read.contains(&"<algorithm>".to_string()), "{read:?}");
    }
}

#[test]
fn a_text_another_library_text_includes_is_kept() {
    // `<array>` includes `<stdexcept>` (in `<string>`'s text): `at` throws.
    let fs = Memory::new(&[(
        "main.amp",
        "#include <amp.h>\n#include <array>\nint main() { }\n",
    )]);
    let (read, left) = pruned(&fs, "main.amp", "");
    assert!(read.contains(&"<string>".to_string()), "{read:?}");
    assert_eq!(left, ["algorithm"]);
}

#[test]
fn texts_restored_give_the_unit_the_whole_library_gives() {
    let main = "#include <iostream>\n#include <amp.h>\nint f() { return 1; }\n";
    let fs = Memory::new(&[("main.amp", main)]);
    let read = |prune: bool| {
        let mut sources = Sources::new();
        let (file, replaced) = SourceFile::from_bytes("main.amp", main.as_bytes());
        let file = sources.add(file);
        let included = if prune {
            let mut included = read_headers_pruned(&mut sources, file, &fs, &[], "");
            assert_eq!(included.pruned.len(), 3);
            restore_pruned(&mut sources, &mut included);
            assert!(included.pruned.is_empty());
            included
        } else {
            read_headers(&mut sources, file, &fs, &[])
        };
        let parsed = parse_unit(&sources, file, &replaced, &included);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        tessera_syntax::pretty::dump(&parsed.unit, &sources)
    };
    let (whole, restored) = (read(false), read(true));
    assert!(whole.contains("for_each") && whole.contains("to_string"));
    assert_eq!(whole, restored);
}
