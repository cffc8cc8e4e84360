//! The sessions in `docs/repl.md` are real. Every code block there whose
//! first line starts with the prompt is typed into one session, block after
//! block, and what the REPL writes (results and diagnostics, in order,
//! without colour) must be exactly what the block shows.
//!
//! `BLESS=1 cargo test -p tessera-repl --test tutorial` rewrites the blocks
//! from what the REPL actually wrote; review the diff before committing.
//!
//! This file holds a single test: it changes the working directory to the
//! repository root, as a reader would run `tessera repl` there (for
//! `:load samples/...`).

use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use std::rc::Rc;
use tessera_repl::driver::Driver;
use tessera_repl::{CONTINUATION, PROMPT};

/// One buffer behind both of the driver's writers.
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

/// A session block of the page: lines `first..end` (0-based, between its
/// fences) and the inputs typed in it.
struct Block {
    first: usize,
    end: usize,
    inputs: Vec<String>,
}

fn blocks(lines: &[&str]) -> Vec<Block> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].starts_with("```") {
            i += 1;
            continue;
        }
        let first = i + 1;
        let end = (first..lines.len())
            .find(|&j| lines[j].starts_with("```"))
            .unwrap_or(lines.len());
        if lines.get(first).is_some_and(|l| l.starts_with(PROMPT)) {
            let mut inputs: Vec<String> = Vec::new();
            for line in &lines[first..end] {
                if let Some(input) = line.strip_prefix(PROMPT) {
                    inputs.push(input.to_string());
                } else if let (Some(more), Some(last)) =
                    (line.strip_prefix(CONTINUATION), inputs.last_mut())
                {
                    last.push('\n');
                    last.push_str(more);
                }
            }
            found.push(Block { first, end, inputs });
        }
        i = end + 1;
    }
    found
}

#[test]
fn the_tutorials_sessions_are_what_the_repl_prints() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    std::env::set_current_dir(&root).expect("go to the repository root");
    let page_path = root.join("docs/repl.md");
    let page = std::fs::read_to_string(&page_path).expect("read docs/repl.md");
    let lines: Vec<&str> = page.lines().collect();
    let found = blocks(&lines);
    assert!(found.len() >= 4, "docs/repl.md has too few sessions");

    let shared = Shared::default();
    let (mut out, mut err) = (shared.clone(), shared.clone());
    let mut driver = Driver::new(
        tessera_interp::Options::default(),
        &mut out,
        &mut err,
        false,
    );
    let mut actual: Vec<String> = Vec::new();
    for block in &found {
        let mark = shared.0.borrow().len();
        for input in &block.inputs {
            driver.echo(input);
            driver.handle(input);
        }
        let text = String::from_utf8_lossy(&shared.0.borrow()[mark..]).into_owned();
        actual.push(text);
    }

    let bless = std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    if bless {
        let mut rewritten: Vec<String> = Vec::new();
        let mut next = 0;
        for (block, text) in found.iter().zip(&actual) {
            rewritten.extend(lines[next..block.first].iter().map(|l| l.to_string()));
            rewritten.extend(text.lines().map(str::to_string));
            next = block.end;
        }
        rewritten.extend(lines[next..].iter().map(|l| l.to_string()));
        let mut text = rewritten.join("\n");
        text.push('\n');
        std::fs::write(&page_path, text).expect("write docs/repl.md");
        return;
    }
    for (block, text) in found.iter().zip(&actual) {
        let mut shown = lines[block.first..block.end].join("\n");
        shown.push('\n');
        assert!(
            shown == *text,
            "the session at docs/repl.md:{} differs from what the REPL prints \
             (BLESS=1 rewrites it)\n--- page\n{shown}--- REPL\n{text}---",
            block.first + 1
        );
    }
}
