//! Calls that resolve differently in amp and in cpu code.
//!
//! C++ AMP compiles a `restrict(amp, cpu)` function once for each context,
//! and overload resolution in each considers only the functions that can run
//! there: with `int f(int) restrict(amp)` and `int f(int) restrict(cpu)`, a
//! call `f(x)` in a `restrict(amp, cpu)` function calls the first on the
//! accelerator and the second on the host.
//!
//! The typed program has one body per function, so the checker lowers such a
//! call for the host (the body as lowered) and keeps the amp call beside it
//! ([`Checker::dual_calls`]). After lowering, [`specialise`] gives every
//! `restrict(amp, cpu)` function that makes such a call, directly or through
//! another, an amp copy with the amp calls in place, and points the calls of
//! amp code (kernels, amp-only functions, those copies) at the copies.
//!
//! Both calls must have the same type, so that the expression around them
//! means the same in both contexts; overloads returning different types
//! in amp and cpu code are refused (E0211) until bodies are lowered once per
//! context.

use crate::cx::{Checker, FnCx, error_expr};
use std::collections::HashMap;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Expr, ExprKind, FuncId, Function, FunctionKind, Restriction, visit};
use tessera_syntax::ast;

impl FnCx<'_> {
    /// Lowers a call of the overloads `ids` from a `restrict(amp, cpu)`
    /// function once per context when the overloads include functions for
    /// one context only; `None` (lower it as usual) otherwise.
    pub(crate) fn call_in_both_contexts(
        &mut self,
        path: &ast::Path,
        ids: &[FuncId],
        args: &[Expr],
        span: Span,
        object: bool,
    ) -> Option<Expr> {
        let here = self.restriction();
        if !(here.amp && here.cpu) {
            return None;
        }
        let restrictions: Vec<Restriction> = ids
            .iter()
            .filter_map(|id| self.ck.program.get_function(*id).map(|f| f.restriction))
            .collect();
        let one_sided = restrictions.iter().any(|r| r.amp != r.cpu);
        let for_amp = restrictions.iter().any(|r| r.amp);
        let for_cpu = restrictions.iter().any(|r| r.cpu);
        // Without a candidate for one context the usual path reports it.
        if !(one_sided && for_amp && for_cpu) {
            return None;
        }
        let before = self.ck.diags.len();
        self.func.restriction = Restriction {
            amp: true,
            cpu: false,
        };
        let on_amp = self.call_user(path, ids, args.to_vec(), span, object);
        let middle = self.ck.diags.len();
        self.func.restriction = Restriction {
            amp: false,
            cpu: true,
        };
        let on_cpu = self.call_user(path, ids, args.to_vec(), span, object);
        self.func.restriction = here;
        drop_repeated(&mut self.ck.diags, before, middle);
        let (ExprKind::Call { func: a, .. }, ExprKind::Call { func: c, .. }) =
            (&on_amp.kind, &on_cpu.kind)
        else {
            return Some(error_expr(span));
        };
        let (a, c) = (*a, *c);
        // A context whose only fitting candidates cannot run there (by
        // arity, say): the usual report, as for any restriction mismatch.
        let runs = |ck: &Checker, id: FuncId, amp: bool| {
            ck.program.get_function(id).is_some_and(|f| {
                if amp {
                    f.restriction.amp
                } else {
                    f.restriction.cpu
                }
            })
        };
        for (id, amp) in [(a, true), (c, false)] {
            if !runs(self.ck, id, amp) {
                self.ck.diags.truncate(before);
                if let Some(f) = self.ck.program.get_function(id) {
                    let (r, at) = (f.restriction, f.span);
                    self.check_call_restriction(path, r, at, span);
                }
                return Some(error_expr(span));
            }
        }
        if a == c {
            return Some(on_cpu);
        }
        let recorded = self.ck.dual_calls.get(&(span, c)).map(|e| match e.kind {
            ExprKind::Call { func, .. } => func,
            _ => a,
        });
        if on_amp.ty != on_cpu.ty
            || on_amp.place != on_cpu.place
            || recorded.is_some_and(|r| r != a)
        {
            let (ta, tc) = (self.ck.show(&on_amp.ty), self.ck.show(&on_cpu.ty));
            let mut d = Diagnostic::error(
                codes::E0211,
                span,
                format!(
                    "`{}` calls different overloads in amp and in cpu code, returning `{ta}` and `{tc}`; overloads that differ in what they return per context are not supported yet",
                    path.text()
                ),
            )
            .with_label("resolved once per context")
            .with_help("give the amp and the cpu overload the same return type, or call them from functions restricted to one context");
            for id in [a, c] {
                if let Some(f) = self.ck.program.get_function(id) {
                    d = d.with_secondary(f.span, "a candidate");
                }
            }
            self.ck.report(d);
            return Some(error_expr(span));
        }
        self.ck.dual_calls.insert((span, c), on_amp);
        Some(on_cpu)
    }
}

/// Removes from `diags[middle..]` what `diags[before..middle]` already says:
/// an argument that fits no overload in either context is one error.
fn drop_repeated(diags: &mut Vec<Diagnostic>, before: usize, middle: usize) {
    if middle > diags.len() || before > middle {
        return;
    }
    let (first, second) = diags.split_at(middle);
    let first = first.get(before..).unwrap_or_default();
    let kept: Vec<Diagnostic> = second
        .iter()
        .filter(|d| {
            !first.iter().any(|e| {
                e.code == d.code && e.primary.span == d.primary.span && e.message == d.message
            })
        })
        .cloned()
        .collect();
    diags.truncate(middle);
    diags.extend(kept);
}

/// Whether `f` runs in amp code only, whoever calls it.
fn amp_context(f: &Function) -> bool {
    matches!(f.kind, FunctionKind::Kernel { .. }) || (f.restriction.amp && !f.restriction.cpu)
}

/// Whether `f` is a `restrict(amp, cpu)` function (not a kernel).
fn both_contexts(f: &Function) -> bool {
    f.restriction.amp && f.restriction.cpu && matches!(f.kind, FunctionKind::Plain)
}

/// Whether `f`'s body calls something `pred` accepts (with the call's span).
fn calls(f: &Function, pred: &mut impl FnMut(Span, FuncId) -> bool) -> bool {
    let Some(body) = &f.body else {
        return false;
    };
    let mut found = false;
    visit::for_each_expr_deep(body, &mut |e| {
        if !found && let ExprKind::Call { func, .. } = &e.kind {
            found = pred(e.span, *func);
        }
    });
    found
}

/// Gives amp code the amp versions of the calls [`Checker::dual_calls`]
/// records (see the module's documentation).
pub fn specialise(ck: &mut Checker) {
    if ck.dual_calls.is_empty() {
        return;
    }
    let dual = std::mem::take(&mut ck.dual_calls);
    let program = &mut ck.program;
    let n = program.functions.len();
    let mut split: Vec<bool> = program
        .functions
        .iter()
        .map(|f| both_contexts(f) && calls(f, &mut |span, func| dual.contains_key(&(span, func))))
        .collect();
    // A function calling one that differs per context differs too.
    loop {
        let mut changed = false;
        for i in 0..n {
            let Some(f) = program.functions.get(i) else {
                continue;
            };
            if split.get(i) == Some(&false)
                && both_contexts(f)
                && calls(f, &mut |_, func| split.get(func.index()) == Some(&true))
            {
                split[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut copy_of: HashMap<FuncId, FuncId> = HashMap::new();
    let mut copies = Vec::new();
    for (i, f) in program.functions.iter().enumerate() {
        if split.get(i) == Some(&true) {
            copy_of.insert(FuncId(i as u32), FuncId((n + copies.len()) as u32));
            copies.push(f.clone());
        }
    }
    program.functions.extend(copies);
    for (i, f) in program.functions.iter_mut().enumerate() {
        if i < n && !amp_context(f) {
            continue;
        }
        if let Some(body) = &mut f.body {
            visit::for_each_stmt_expr_mut(body, &mut |e| to_amp(e, &dual, &copy_of));
        }
    }
}

/// Rewrites `e` for amp code: recorded calls become their amp versions and
/// calls of split functions call their amp copies.
fn to_amp(e: &mut Expr, dual: &HashMap<(Span, FuncId), Expr>, copy_of: &HashMap<FuncId, FuncId>) {
    if let ExprKind::Call { func, .. } = &e.kind
        && let Some(amp) = dual.get(&(e.span, *func))
    {
        *e = amp.clone();
    }
    visit::for_each_child_mut(e, &mut |c| to_amp(c, dual, copy_of));
    if let ExprKind::Call { func, .. } = &mut e.kind
        && let Some(copy) = copy_of.get(func)
    {
        *func = *copy;
    }
}

#[cfg(test)]
mod tests {
    use tessera_diagnostics::{SourceFile, Sources};
    use tessera_ir::{ExprKind, FuncId, Program, visit};

    fn compile(src: &str) -> (Program, Vec<&'static str>) {
        let mut sources = Sources::new();
        let (file, replaced) = SourceFile::from_bytes("test.amp", src.as_bytes());
        let id = sources.add(file);
        let parsed = tessera_syntax::parse_file(&sources, id, &replaced);
        let checked = crate::check(&parsed.unit);
        let codes = checked
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        (checked.program, codes)
    }

    /// The functions `f`'s body calls, in order.
    fn callees(p: &Program, f: FuncId) -> Vec<FuncId> {
        let mut out = Vec::new();
        if let Some(body) = p.get_function(f).and_then(|f| f.body.as_ref()) {
            visit::for_each_expr_deep(body, &mut |e| {
                if let ExprKind::Call { func, .. } = &e.kind {
                    out.push(*func);
                }
            });
        }
        out
    }

    const SRC: &str = "#include <amp.h>\nusing namespace concurrency;\n\
        int f(int x) restrict(amp) { return x + 1; }\n\
        int f(int x) restrict(cpu) { return x + 2; }\n\
        int b(int x) restrict(amp, cpu) { return f(x); }\n\
        int p(int x) restrict(amp, cpu) { return b(x); }\n\
        int main() {\n\
            std::vector<int> v(4, 0);\n\
            array_view<int, 1> av(4, v);\n\
            parallel_for_each(av.extent, [=](index<1> i) restrict(amp) { av[i] = p(i[0]); });\n\
            return p(1);\n\
        }\n";

    #[test]
    fn amp_code_calls_amp_copies_of_functions_that_differ_per_context() {
        let (p, codes) = compile(SRC);
        assert!(codes.is_empty(), "{codes:?}");
        let by_name = |name: &str| -> Vec<FuncId> {
            (0..p.functions.len())
                .map(|i| FuncId(i as u32))
                .filter(|id| p.get_function(*id).is_some_and(|f| f.name == name))
                .collect()
        };
        let (fs, bs, ps) = (by_name("f"), by_name("b"), by_name("p"));
        assert_eq!((fs.len(), bs.len(), ps.len()), (2, 2, 2));
        let (f_amp, f_cpu) = (fs[0], fs[1]);
        // The originals, for the host; the copies, for amp code.
        assert_eq!(callees(&p, bs[0]), [f_cpu]);
        assert_eq!(callees(&p, ps[0]), [bs[0]]);
        assert_eq!(callees(&p, bs[1]), [f_amp]);
        assert_eq!(callees(&p, ps[1]), [bs[1]]);
        let kernel = by_name("<kernel>")[0];
        assert_eq!(callees(&p, kernel), [ps[1]]);
        let main = by_name("main")[0];
        assert!(callees(&p, main).contains(&ps[0]));
    }
}
