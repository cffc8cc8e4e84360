//! The semantic checker.
//!
//! Lowers a syntax tree to the typed program ([`tessera_ir::Program`]) and
//! reports every violation of C++'s typing rules and of C++ AMP's rules for
//! `restrict(amp)` code, captures, `tile_static` and barriers.
//!
//! It works in three steps:
//! 1. [`declare`]: structs, globals and function signatures, in source order
//!    (C++ requires declaration before use);
//! 2. lowering of every function body, kernels included ([`stmt`], [`expr`],
//!    with the library in [`library`]); rules that need only the expression at
//!    hand are checked here;
//! 3. [`analysis`]: whole-program rules on the typed program (recursion,
//!    barrier uniformity, `tile_static` reachability and races).
//!
//! No IO; diagnostics are returned as data.

mod analysis;
mod barrier_calls;
mod bound_temporaries;
mod call;
mod class;
mod context;
mod convert;
mod cx;
mod declare;
mod decltype;
mod downcast;
mod enums;
mod expr;
mod fnptr;
mod goto;
mod init;
mod lambda;
mod launch;
mod library;
mod literal;
mod namespaces;
mod ordering;
mod overload;
mod pointer;
mod special;
mod stmt;
mod template;
mod traits;
mod typeinfo;
mod types;

use std::borrow::Cow;
use tessera_diagnostics::Diagnostic;
use tessera_ir::Program;
use tessera_syntax::ast::TranslationUnit;

/// The result of checking: the typed program (complete only when no
/// diagnostic is an error) and every diagnostic, sorted by position.
#[derive(Debug)]
pub struct Checked {
    /// The typed program.
    pub program: Program,
    /// Errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
    /// What the checker built on the way and no longer needs.
    pub scratch: Scratch,
}

/// What the checker built on its way to the program and no longer needs:
/// its tables of declarations, classes, templates and namespaces. It goes
/// with the [`Checked`] that holds it.
/// Freeing it is about a tenth of the front end's time for a program that
/// includes the library, and needless in a process that is about to end:
/// such a caller may [`Scratch::leave`] it to the operating system.
#[derive(Default)]
pub struct Scratch {
    /// Held only to be freed (or left) with the scratch.
    _held: Option<Box<dyn std::any::Any>>,
}

impl Scratch {
    /// Leaves the memory allocated until the process ends, without
    /// freeing it piece by piece (for a process that ends soon).
    pub fn leave(self) {
        std::mem::forget(self);
    }
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

impl Checked {
    /// True when any diagnostic is an error: the program must not run.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Checks a parsed file.
pub fn check(unit: &TranslationUnit) -> Checked {
    check_tree(Cow::Borrowed(unit))
}

/// [`check`] of a tree the caller no longer needs: the namespace pass moves
/// its items instead of copying them.
pub fn check_owned(unit: TranslationUnit) -> Checked {
    check_tree(Cow::Owned(unit))
}

fn check_tree(unit: Cow<'_, TranslationUnit>) -> Checked {
    let mut checker = cx::Checker {
        library_files: unit.library_files.clone(),
        headers: library::headers::Included::of(&unit),
        ..cx::Checker::default()
    };
    let (flat, pending) = namespaces::flatten(unit, &mut checker.diags, &mut checker.overload_sets);
    checker.namespaces = pending;
    // Bodies are lowered as their items are declared.
    declare::declare_all(&mut checker, flat);
    // Library members and template instances used by what the other
    // lowered, until neither adds a body.
    loop {
        template::define_used_instances(&mut checker);
        if !class::define_used_library_members(&mut checker) {
            break;
        }
    }
    context::specialise(&mut checker);
    // Numbered once every body is complete, so the ids are a function of the
    // body alone (the engines and the REPL key statements by them).
    checker.program.number_statements();
    // The analyses tolerate error nodes, so rules are reported together.
    analysis::analyse(&checker.program, &mut checker.diags);
    // After the analyses, which report on the program as written: calls of
    // functions with barriers become statements of their own, numbered
    // again with the rest.
    barrier_calls::lift(&mut checker.program);
    bound_temporaries::as_variables(&mut checker.program);
    checker.program.number_statements();
    let mut diagnostics = std::mem::take(&mut checker.diags);
    // A name the namespace pass reported is not reported again as unknown.
    let reported: Vec<_> = diagnostics
        .iter()
        .filter(|d| {
            [
                tessera_diagnostics::codes::E0242,
                tessera_diagnostics::codes::E0243,
            ]
            .contains(&d.code)
        })
        .map(|d| d.primary.span)
        .collect();
    if !reported.is_empty() {
        diagnostics.retain(|d| {
            d.code != tessera_diagnostics::codes::E0200
                || !reported.iter().any(|r| {
                    r.file == d.primary.span.file
                        && r.start < d.primary.span.end
                        && d.primary.span.start < r.end
                })
        });
    }
    diagnostics.sort_by_key(|d| (d.primary.span.file, d.primary.span.start));
    let program = std::mem::take(&mut checker.program);
    Checked {
        program,
        diagnostics,
        scratch: Scratch {
            _held: Some(Box::new(checker)),
        },
    }
}

/// A refusal for a program that passed every rule but holds an expression
/// the checker gave no type (the error type, with no error reported): a
/// construct some path accepted without typing it, which would run as
/// nothing. Refused at the expression instead of printing what C++ does
/// not. For the caller that has every stage's diagnostics: after a syntax
/// error, the tree holds such expressions by design.
pub fn untyped(program: &Program) -> Option<Diagnostic> {
    for (_, f) in program.functions_with_ids() {
        let Some(body) = &f.body else { continue };
        let mut found = None;
        tessera_ir::visit::for_each_expr_deep(body, &mut |e| {
            if found.is_none() && e.ty.is_error() {
                found = Some(e.span);
            }
        });
        if let Some(span) = found {
            return Some(
                Diagnostic::error(
                    tessera_diagnostics::codes::E0211,
                    span,
                    "this is not supported yet: Tessera could not give it a type",
                )
                .with_label("no type")
                .with_help("write it another way (this should have been refused with a reason: please report the program)"),
            );
        }
    }
    None
}
