//! The names through which a program reaches a library file it may do
//! without (`tessera_syntax::headers::names_reaching`), found again from the
//! texts: each file is parsed as a program including it would read it, and
//! every name it declares at namespace scope or defines as a macro is
//! collected, with the built-in names of `REACHING_WITHOUT_NAMING`.
//!
//! `BLESS=1 cargo test -p tessera-syntax --test library_names` rewrites
//! `src/headers/names.rs` from what is found.
//!
//! A namespace-scope operator is reached without its name, so each one such
//! a file declares must take a class the same file declares: a program
//! holding an object of that class has named the class (or a function of
//! the file giving one).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use tessera_diagnostics::{SourceFile, Sources};
use tessera_syntax::ast::{Item, ItemKind};
use tessera_syntax::headers::{REACHING_WITHOUT_NAMING, names_reaching};

/// What one file declares.
#[derive(Default)]
struct Declared {
    names: BTreeSet<String>,
    classes: BTreeSet<String>,
    /// Each namespace-scope operator: its name and the text of its
    /// parameter list.
    operators: Vec<(String, String)>,
}

fn walk(items: &[Item], sources: &Sources, out: &mut Declared) {
    for item in items {
        walk_item(item, sources, out);
    }
}

fn walk_item(item: &Item, sources: &Sources, out: &mut Declared) {
    match &item.kind {
        ItemKind::Namespace(ns) => {
            for seg in &ns.name {
                if seg.name != "std" {
                    out.names.insert(seg.name.clone());
                }
            }
            walk(&ns.items, sources, out);
        }
        ItemKind::NamespaceAlias { name, .. } => {
            out.names.insert(name.name.clone());
        }
        ItemKind::UsingDecl(path) => {
            out.names.insert(path.last().to_string());
        }
        ItemKind::Struct(def) => {
            out.names.insert(def.name.name.clone());
            out.classes.insert(def.name.name.clone());
            for d in &def.trailing {
                if let Some(name) = &d.name {
                    out.names.insert(name.name.clone());
                }
            }
        }
        ItemKind::Function(f) if f.class.is_none() => {
            if f.name.name.starts_with("operator") {
                let params = f
                    .params
                    .iter()
                    .map(|p| sources.snippet(p.span))
                    .collect::<Vec<_>>()
                    .join(", ");
                out.operators.push((f.name.name.clone(), params));
            } else {
                out.names.insert(f.name.name.clone());
            }
        }
        ItemKind::Global(decl) => {
            for d in &decl.declarators {
                if let Some(name) = &d.name {
                    out.names.insert(name.name.clone());
                }
            }
        }
        ItemKind::Enum(e) => {
            out.names.insert(e.name.name.clone());
            for (name, _) in &e.enumerators {
                out.names.insert(name.name.clone());
            }
        }
        ItemKind::Template(t) => walk_item(&t.item, sources, out),
        _ => {}
    }
}

/// The names `#define` lines of `text` define.
fn macros(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().filter_map(|line| {
        let rest = line.trim_start().strip_prefix('#')?.trim_start();
        let rest = rest.strip_prefix("define")?;
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        (!name.is_empty()).then_some(name)
    })
}

/// What a program including `<header>` reads of the library, declared.
fn declared_by(header: &str) -> Declared {
    let mut sources = Sources::new();
    let text = format!("#include <{header}>\n");
    let main = sources.add(SourceFile {
        name: "main.amp".to_string(),
        text,
    });
    let parsed = tessera_syntax::parse_with_library(&mut sources, main, &[]);
    assert!(
        !parsed.has_errors(),
        "<{header}> does not parse: {:?}",
        parsed.diagnostics
    );
    let mut out = Declared::default();
    walk(&parsed.unit.items, &sources, &mut out);
    for &id in &parsed.unit.library_files {
        if let Some(file) = sources.get(id) {
            out.names.extend(macros(&file.text));
        }
    }
    out
}

/// The prunable files: the name a program includes each by, the name it is
/// shown under, and the constant of `names.rs` holding its names.
const FILES: [(&str, &str, &str); 2] = [
    ("algorithm", "<algorithm>", "ALGORITHM"),
    ("string", "<string>", "STRING"),
];

/// The constant `name` listing `names`, as `names.rs` writes it.
fn constant(doc: &str, name: &str, names: &BTreeSet<String>) -> String {
    let mut out = format!("/// {doc}\npub(super) const {name}: &[&str] = &[\n");
    for n in names {
        let _ = writeln!(out, "    \"{n}\",");
    }
    out.push_str("];\n");
    out
}

#[test]
fn reaching_names_are_current() {
    let mut file = String::from(
        "//! The names through which a program reaches each library file it may do\n\
         //! without (see [`super::names_reaching`]). Written by the test\n\
         //! `library_names` of this crate, which finds them from the texts:\n\
         //! `BLESS=1 cargo test -p tessera-syntax --test library_names` after\n\
         //! changing a library text.\n",
    );
    let mut stale = Vec::new();
    for (header, shown, konst) in FILES {
        let declared = declared_by(header);
        for (op, params) in &declared.operators {
            let takes_own_class = params
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| declared.classes.contains(w));
            assert!(
                takes_own_class,
                "{shown} declares `{op}({params})`, which takes no class of its own: \
                 a program reaches it without naming anything of {shown}, so the file \
                 cannot be left out"
            );
        }
        let mut names = declared.names;
        let extra = REACHING_WITHOUT_NAMING
            .iter()
            .find(|(s, _)| *s == shown)
            .map_or(&[][..], |(_, n)| n);
        names.extend(extra.iter().map(|s| s.to_string()));
        let committed: BTreeSet<String> = names_reaching(shown)
            .unwrap_or_default()
            .iter()
            .map(|s| s.to_string())
            .collect();
        if committed != names {
            stale.push(shown);
        }
        file.push('\n');
        file.push_str(&constant(
            &format!("{shown} and the library texts it includes."),
            konst,
            &names,
        ));
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/headers/names.rs");
    let bless = std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    if bless {
        std::fs::write(path, &file).expect("write names.rs");
        return;
    }
    assert!(
        stale.is_empty(),
        "the names reaching {stale:?} differ from the texts' (BLESS=1 rewrites src/headers/names.rs):\n{file}"
    );
}
