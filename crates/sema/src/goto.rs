//! `goto` and labels in host code (amp code has neither: E0304).
//!
//! A label is a `StmtKind::Label` marker in the block that holds it, and a
//! `goto` a `StmtKind::Goto` that the engines carry up through the blocks
//! and loops around it to the block holding the label, which goes on from
//! there. So a `goto` may reach a label of its own block or of a block
//! around it, forwards or backwards; a jump into a block (a label nested
//! deeper than the `goto`) is refused as not supported yet. Each block's
//! labels are found before its statements are lowered, so a forward jump
//! knows its target, and the declarations it would skip: jumping past an
//! initialised declaration into its scope is an error, as in C++.

use crate::cx::FnCx;
use std::collections::HashMap;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Stmt, StmtKind};
use tessera_syntax::ast::{self, Label, StmtKind as S};

/// The labels of a function being lowered.
#[derive(Debug, Default)]
pub struct Labels {
    /// The blocks around the current statement, innermost last.
    blocks: Vec<LabelBlock>,
    /// Every label of the function found so far: its number and where it
    /// is written (a block lowered twice finds its labels again).
    ids: HashMap<String, (u32, Span)>,
    /// `goto`s whose label is not in a block around them, with where they
    /// are: reported when the function's outermost block ends, once every
    /// label is known.
    pending: Vec<(String, Span)>,
}

/// One block's labels and declarations.
#[derive(Debug)]
struct LabelBlock {
    /// The scope depth inside the block (`FnCx::scopes.len()`).
    depth: usize,
    /// Its labels: name, number, and the position of the labelled
    /// statement among the block's statements.
    labels: Vec<(String, u32, usize)>,
    /// Its declarations: position, name, where, and whether initialised.
    decls: Vec<(usize, String, Span, bool)>,
    /// The position of the statement being lowered.
    current: usize,
}

/// The names a statement is labelled with (`a: b: x = 1;` has two).
fn named_labels(mut s: &ast::Stmt) -> Vec<&ast::Ident> {
    let mut out = Vec::new();
    while let S::Labeled { label, stmt } = &s.kind {
        if let Label::Named(name) = label {
            out.push(name);
        }
        s = stmt;
    }
    out
}

impl FnCx<'_> {
    /// Starts lowering block `b`: finds its labels and declarations.
    pub(crate) fn enter_label_block(&mut self, b: &ast::Block) {
        let mut block = LabelBlock {
            depth: self.scopes.len(),
            labels: Vec::new(),
            decls: Vec::new(),
            current: 0,
        };
        if !self.in_amp() {
            for (i, s) in b.stmts.iter().enumerate() {
                for name in named_labels(s) {
                    let id = self.new_label(name);
                    block.labels.push((name.name.clone(), id, i));
                }
                if let S::Decl(d) = &s.kind {
                    for decl in &d.declarators {
                        if let Some(n) = &decl.name {
                            block
                                .decls
                                .push((i, n.name.clone(), decl.span, decl.init.is_some()));
                        }
                    }
                }
            }
        }
        self.labels.blocks.push(block);
    }

    /// The statement at position `i` of the innermost block is lowered next.
    pub(crate) fn at_statement(&mut self, i: usize) {
        if let Some(b) = self.labels.blocks.last_mut() {
            b.current = i;
        }
    }

    /// Ends the innermost block; after the function's outermost one, the
    /// `goto`s that found no label around them are reported.
    pub(crate) fn leave_label_block(&mut self) {
        self.labels.blocks.pop();
        if !self.labels.blocks.is_empty() {
            return;
        }
        for (name, span) in std::mem::take(&mut self.labels.pending) {
            if self.labels.ids.contains_key(&name) {
                self.ck.error(
                    codes::E0211,
                    span,
                    format!("a `goto` into the block holding `{name}` is not supported yet"),
                    "jumps into a block",
                    "Tessera jumps to labels of the `goto`'s own block or of a block around it",
                );
            } else {
                self.ck.report(
                    Diagnostic::error(
                        codes::E0200,
                        span,
                        format!("no label `{name}` in this function"),
                    )
                    .with_label("undefined label")
                    .with_msvc("C2094")
                    .with_help("a `goto` jumps to a label (`name:`) of the same function"),
                );
            }
        }
    }

    /// The number of a label found in a block, or an error for a name
    /// already used by another label of the function.
    fn new_label(&mut self, name: &ast::Ident) -> u32 {
        if let Some(&(id, at)) = self.labels.ids.get(&name.name) {
            if at != name.span {
                self.ck.report(
                    Diagnostic::error(
                        codes::E0202,
                        name.span,
                        format!("label `{}` defined twice", name.name),
                    )
                    .with_label("defined again here")
                    .with_secondary(at, "first defined here")
                    .with_msvc("C2045")
                    .with_help("the labels of a function must have different names"),
                );
            }
            return id;
        }
        let id = self.labels.ids.len() as u32;
        self.labels.ids.insert(name.name.clone(), (id, name.span));
        id
    }

    /// The number of the label `name:` about to be lowered.
    pub(crate) fn label_id(&mut self, name: &ast::Ident) -> u32 {
        match self.labels.ids.get(&name.name) {
            Some(&(id, _)) => id,
            // A label outside a block (`if (c) done: f();`): no `goto`
            // reaches it, as it is in no block around one.
            None => self.new_label(name),
        }
    }

    /// `goto label;`, appending to `out`.
    pub(crate) fn goto(&mut self, label: &ast::Ident, span: Span, out: &mut Vec<Stmt>) {
        let name = &label.name;
        let found = self.labels.blocks.iter().rev().find_map(|b| {
            b.labels
                .iter()
                .find(|(n, _, _)| n == name)
                .map(|&(_, id, at)| (b, id, at))
        });
        let Some((block, id, at)) = found else {
            self.labels.pending.push((name.clone(), span));
            out.push(Stmt::new(StmtKind::Goto(u32::MAX), span));
            return;
        };
        let (depth, current) = (block.depth, block.current);
        if at > current {
            // Forwards: the declarations between the `goto` and the label
            // would be in scope at the label without having run.
            let skipped: Vec<(String, Span, bool)> = block
                .decls
                .iter()
                .filter(|(i, ..)| *i > current && *i < at)
                .map(|(_, n, s, init)| (n.clone(), *s, *init))
                .collect();
            if let Some((var, at_decl, _)) = skipped.iter().find(|(_, _, init)| *init) {
                self.ck.report(
                    Diagnostic::error(
                        codes::E0225,
                        span,
                        format!("`goto {name}` skips the initialisation of `{var}`"),
                    )
                    .with_label("jumps past the initialisation")
                    .with_secondary(*at_decl, format!("`{var}` is initialised here"))
                    .with_msvc("C2362")
                    .with_help(format!(
                        "put the declaration of `{var}` in a block of its own, or before the `goto`"
                    )),
                );
                return;
            }
            if !skipped.is_empty() && self.ck.any_dtor {
                self.ck.error(
                    codes::E0211,
                    span,
                    "a `goto` past declarations in a program whose classes declare destructors is not supported yet",
                    "jumps past a declaration",
                    "",
                );
                return;
            }
        } else if self.cleanups.iter().any(|(d, ..)| *d == depth) {
            // Backwards past objects with destructors, which C++ destroys.
            self.ck.error(
                codes::E0211,
                span,
                "a `goto` backwards in a block holding objects with destructors is not supported yet",
                "jumps backwards",
                "",
            );
            return;
        }
        out.extend(self.jump_cleanups(depth, None, span));
        out.push(Stmt::new(StmtKind::Goto(id), span));
    }
}
