//! Used by `tessera dump ast` and by the parser's golden tests
//! (`tests/parse/*.ast`).
//!
//! # Format
//!
//! An indented S-expression. Every top-level item, struct member, function
//! parameter, block and statement starts a line of its own, two spaces deeper
//! than the line of the node it belongs to; expressions stay on their line.
//! Each line ends with the `line:col` where the first node on it starts,
//! aligned at column 65 (or two spaces after a longer line). A node's closing
//! parentheses go at the end of its last line, as in Lisp. For
//!
//! ```c++
//! using namespace concurrency;
//!
//! int twice(const float& x) restrict(cpu) {
//!     int y = 1 + 2 * 3;
//!     return y;
//! }
//! ```
//!
//! the dump is
//!
//! ```text
//! (using-namespace concurrency)                                   1:1
//! (function twice -> (int) restrict(cpu)                          3:1
//!   (param (const float &) x)                                     3:11
//!   (block                                                        3:41
//!     (decl (int) (y = (+ 1 (* 2 3))))                            4:5
//!     (return (name y))))                                         5:5
//! ```
//!
//! Items and members:
//!
//! - `(using-namespace concurrency::fast_math)`, `(using std::cout)`;
//! - `(function NAME -> (TYPE) restrict(amp, cpu)` with a `(param ...)` line
//!   per parameter and a `(block ...)`; `(prototype ...)` when there is no
//!   body; `restrict(...)` only when written;
//! - `(struct NAME` or `(class NAME` with a `(field (TYPE) DECLARATOR...)` line
//!   per data member, `(access public)` where an access label was written,
//!   and `(trailing DECLARATOR...)` for `struct P {...} p;`;
//! - `(global (TYPE) DECLARATOR...)`, `(empty)` for a stray `;`, `(error)`.
//!
//! Types are parenthesised and spelled as C++ writes them, the specifiers in
//! the order `extern static inline constexpr tile_static const volatile`, then
//! the base type, then `*` (and `const` for a const pointer) and `&`/`&&`:
//! `(static const int)`, `(array_view<const float, 2>)`, `(unsigned int)`,
//! `(std::vector<std::vector<int>>)`, `(const float &)`. Inside `<...>` a type
//! argument is a bare type and a value argument an expression in the form
//! below: `(extent<2>)`, `(array<int, (name N)>)`.
//!
//! Declarators are `([MODIFIERS] NAME [DIM]... [INIT])`: `(x)`, `(& r = (name y))`,
//! `(nums [2] [2])`, `(v [])`, with the initialiser `= EXPR`,
//! `(paren-init ARG...)` for `x(a, b)` or `(brace-init ARG...)` for `x{a, b}`.
//! A parameter is `(param (TYPE) [NAME] [DIM]... [= DEFAULT])`, its `*`/`&`
//! shown in the type.
//!
//! Statements: `(expr E)`, `(decl (TYPE) DECLARATOR...)`, `(block S...)`,
//! `(if C S [(else S)])`, `(for INIT C STEP S)` with `_` for a missing part,
//! `(for-range (decl (TYPE) DECLARATOR) RANGE S)`, `(while C S)`,
//! `(do-while C S)`, `(switch C S)`, `(break)`, `(continue)`, `(return [E])`,
//! `(goto L)`, `(try (block ...))`, `(empty)`, `(error)`. A label wraps the one
//! statement it labels, on the same line: `(case 1 (case 2 (break)))`,
//! `(default (expr ...))`, `(label NAME S)`; the statements after it in the
//! `switch` body are its siblings. `(else S)` shows the position of `S`.
//!
//! Expressions, every operation parenthesised with its operator first:
//!
//! - literals as written (`0x1Fu`, `1.5f`, `'\n'`, `L"wide"`), `true`,
//!   `false`, `nullptr`, `this`; adjacent string literals as
//!   `(strings "a" "b")`; names as `(name std::cout)`;
//! - `(+ A B)` and the other binary operators by their symbol, except the
//!   comma operator, `(comma A B)`; `(= A B)`, `(+= A B)`, ...; `(? C A B)`;
//! - unary `(- A)`, `(+ A)`, `(! A)`, `(~ A)`, `(* A)`, `(& A)`, `(pre++ A)`,
//!   `(pre-- A)`, `(post++ A)`, `(post-- A)` (one operand tells `(- A)` from
//!   `(- A B)`);
//! - `(cast c-style (float) A)`, `(cast static (float) A)` (also `const`,
//!   `reinterpret`, `dynamic`); `(construct (extent<2>) 4 6)` for `T(args)`
//!   (a functional cast included) and `(construct-brace (T) ...)` for `T{args}`;
//! - `(call F ARG...)`, `(index A I)`, `(member A name)`, `(arrow A name)`,
//!   `(member A tile<2, 3>)` with template arguments;
//! - `(lambda [=, &x] (param ...)... [restrict(amp)] [mutable] [-> (TYPE)]`
//!   followed by its `(block ...)` on the next lines; if the enclosing
//!   expression has more operands after it, they continue on a new line one
//!   deeper than the line where the lambda began;
//! - `(init-list A...)`, `(sizeof A)`, `(sizeof-type (TYPE))`, `(typeid A)`,
//!   `(typeid-type (TYPE))`, `(new (TYPE))`, `(delete A)`, `(throw [A])`,
//!   `(error)`;
//! - in a type, `(decltype A)` and `(decltype-paren A)` (`decltype((a))`).
//!
//! The printer is pure and total: every variant of the tree has a form, and
//! it never panics. It recurses over the tree, whose height the parser bounds
//! ([`crate::ast::MAX_HEIGHT`]).

use crate::ast::{
    BaseType, BinaryOp, Block, CaptureDefault, CastKind, Decl, DeclSpecs, Declarator, Expr,
    ExprKind, Function, Init, Item, ItemKind, Label, Lambda, Modifiers, Param, Restrict, Stmt,
    StmtKind, StructDef, TemplateArg, TranslationUnit, TypeName, UnaryOp,
};
use tessera_diagnostics::{Sources, Span};

/// Column (0-based) where positions start when the line is short enough.
const POSITION_COLUMN: usize = 64;

/// Renders `unit` in the format described in the module documentation.
/// Positions are looked up in `sources`; a span in a file it does not hold
/// shows as `1:1`.
pub fn dump(unit: &TranslationUnit, sources: &Sources) -> String {
    let mut printer = Printer {
        sources,
        lines: Vec::new(),
        resume: None,
    };
    for item in &unit.items {
        printer.item(item);
    }
    printer.finish()
}

/// One output line before layout.
struct Line {
    /// Indentation level.
    depth: usize,
    /// The text, without indentation or position.
    text: String,
    /// Position of the first node on the line.
    line: usize,
    col: usize,
}

struct Printer<'a> {
    sources: &'a Sources,
    lines: Vec<Line>,
    /// Set when the current line ends with the last line of a lambda body:
    /// the depth at which the enclosing expression continues if another
    /// operand follows (see [`Printer::sep`]).
    resume: Option<usize>,
}

impl Printer<'_> {
    // ------------------------------------------------------------ layout

    /// Starts a new line at `depth` for the node at `span`.
    fn begin(&mut self, depth: usize, span: Span) {
        let (line, col) = self.sources.line_col(span.file, span.start);
        self.lines.push(Line {
            depth,
            text: String::new(),
            line,
            col,
        });
        self.resume = None;
    }

    /// Appends to the current line.
    fn push(&mut self, text: &str) {
        match self.lines.last_mut() {
            Some(line) => line.text.push_str(text),
            None => self.lines.push(Line {
                depth: 0,
                text: text.to_string(),
                line: 1,
                col: 1,
            }),
        }
    }

    /// Depth of the current line.
    fn depth(&self) -> usize {
        self.lines.last().map_or(0, |l| l.depth)
    }

    /// Separates two parts of a node: a space, or, after a lambda body, a
    /// new line for the part starting at `next`.
    fn sep(&mut self, next: Span) {
        match self.resume.take() {
            Some(depth) => self.begin(depth, next),
            None => self.push(" "),
        }
    }

    fn finish(self) -> String {
        let mut out = String::new();
        for line in self.lines {
            let indent = 2 * line.depth;
            for _ in 0..indent {
                out.push(' ');
            }
            // Tokens never hold line breaks; a tree built by hand might.
            let text = line.text.replace('\n', "\\n").replace('\r', "\\r");
            out.push_str(&text);
            let width = indent + text.chars().count();
            let pad = POSITION_COLUMN.saturating_sub(width).max(2);
            for _ in 0..pad {
                out.push(' ');
            }
            out.push_str(&format!("{}:{}\n", line.line, line.col));
        }
        out
    }

    // ------------------------------------------------------------ items

    fn item(&mut self, item: &Item) {
        self.begin(0, item.span);
        match &item.kind {
            ItemKind::UsingNamespace(path) => {
                self.push("(using-namespace ");
                self.push(&path.text());
                self.push(")");
            }
            ItemKind::UsingDecl(path) => {
                self.push("(using ");
                self.push(&path.text());
                self.push(")");
            }
            ItemKind::Namespace(ns) => {
                self.push("(namespace ");
                let name: Vec<&str> = ns.name.iter().map(|i| i.name.as_str()).collect();
                self.push(&name.join("::"));
                self.push(&format!(", {} items)", ns.items.len()));
                for inner in &ns.items {
                    self.item(inner);
                }
            }
            ItemKind::NamespaceAlias { name, target } => {
                self.push("(namespace-alias ");
                self.push(&name.name);
                self.push(" ");
                self.push(&target.text());
                self.push(")");
            }
            ItemKind::Struct(def) => self.struct_def(def),
            ItemKind::Function(function) => self.function(function),
            ItemKind::Global(decl) => self.decl("global", decl),
            ItemKind::StaticAssert(a) => self.static_assert(a),
            ItemKind::Enum(e) => {
                self.push(if e.scoped { "(enum-class " } else { "(enum " });
                self.push(&e.name.name);
                for (name, value) in &e.enumerators {
                    self.push(" (");
                    self.push(&name.name);
                    if let Some(v) = value {
                        self.push(" ");
                        self.expr(v);
                    }
                    self.push(")");
                }
                self.push(")");
            }
            ItemKind::Template(t) => {
                let depth = self.depth() + 1;
                self.push("(template");
                if let Some(args) = &t.specialised {
                    self.template_args(args);
                }
                for param in &t.params {
                    self.push(" (");
                    match param {
                        crate::ast::TemplateParam::Type { name, default } => {
                            self.push("typename ");
                            self.push(&name.name);
                            if let Some(d) = default {
                                self.push(" = ");
                                self.ty(&d.specs, &d.modifiers);
                            }
                        }
                        crate::ast::TemplateParam::Value {
                            specs,
                            name,
                            default,
                        } => {
                            self.ty(specs, &Modifiers::default());
                            self.push(" ");
                            self.push(&name.name);
                            if let Some(d) = default {
                                self.push(" = ");
                                self.expr(d);
                            }
                        }
                        crate::ast::TemplateParam::Template { params, name } => {
                            self.push(&format!(
                                "template of {} parameter{} ",
                                params.len(),
                                if params.len() == 1 { "" } else { "s" }
                            ));
                            self.push(&name.name);
                        }
                    }
                    self.push(")");
                }
                self.begin(depth, t.item.span);
                self.item(&t.item);
                self.push(")");
            }
            ItemKind::Empty => self.push("(empty)"),
            ItemKind::Error => self.push("(error)"),
        }
    }

    /// `(static_assert COND "message")`.
    fn static_assert(&mut self, a: &crate::ast::StaticAssert) {
        self.push("(static_assert ");
        self.expr(&a.cond);
        for m in a.message.iter().flatten() {
            self.push(" ");
            self.push(m);
        }
        self.push(")");
    }

    fn struct_def(&mut self, def: &StructDef) {
        let depth = self.depth() + 1;
        self.push(if def.is_union {
            "(union "
        } else if def.is_class {
            "(class "
        } else {
            "(struct "
        });
        self.push(&def.name.name);
        // Access labels are kept apart from the fields; put them back in order.
        let mut members: Vec<(u32, Option<&Decl>, Span)> = def
            .fields
            .iter()
            .map(|f| (f.span.start, Some(f), f.span))
            .chain(def.access_spans.iter().map(|s| (s.start, None, *s)))
            .collect();
        members.sort_by_key(|m| m.0);
        for (_, field, span) in members {
            self.begin(depth, span);
            match field {
                Some(decl) => self.decl("field", decl),
                None => {
                    let written = self.sources.snippet(span);
                    let word: String = written
                        .chars()
                        .take_while(char::is_ascii_alphabetic)
                        .collect();
                    self.push("(access");
                    if !word.is_empty() {
                        self.push(" ");
                        self.push(&word);
                    }
                    self.push(")");
                }
            }
        }
        for method in &def.methods {
            self.begin(depth, method.item.name.span);
            self.function(&method.item);
        }
        for nested in &def.classes {
            self.begin(depth, nested.item.name.span);
            self.struct_def(&nested.item);
        }
        if let Some(first) = def.trailing.first() {
            self.begin(depth, first.span);
            self.push("(trailing");
            for declarator in &def.trailing {
                self.sep(declarator.span);
                self.declarator(declarator);
            }
            self.push(")");
        }
        self.push(")");
    }

    fn function(&mut self, function: &Function) {
        let depth = self.depth() + 1;
        self.push(if function.body.is_some() {
            "(function "
        } else {
            "(prototype "
        });
        if let Some(class) = &function.class {
            self.push(&class.name);
            self.push("::");
        }
        self.push(&function.name.name);
        match &function.method.special {
            crate::ast::Special::None => {
                self.push(" -> ");
                self.ty(&function.ret, &function.ret_modifiers);
            }
            crate::ast::Special::Constructor(_) => self.push(" constructor"),
            crate::ast::Special::Destructor => self.push(" destructor"),
        }
        let m = &function.method;
        for (set, word) in [
            (m.is_const, " const"),
            (m.is_virtual, " virtual"),
            (m.is_override, " override"),
            (m.is_final, " final"),
            (m.is_explicit, " explicit"),
            (m.defaulted, " = default"),
            (m.deleted, " = delete"),
        ] {
            if set {
                self.push(word);
            }
        }
        if let Some(restrict) = &function.restrict {
            self.sep(restrict.span);
            self.restrict(restrict);
        }
        for param in &function.params {
            self.begin(depth, param.span);
            self.param(param);
        }
        if let crate::ast::Special::Constructor(inits) = &function.method.special {
            for init in inits {
                self.begin(depth, init.span);
                self.push("(init ");
                self.push(&init.name.name);
                for arg in &init.args {
                    self.push(" ");
                    self.expr(arg);
                }
                self.push(")");
            }
        }
        if let Some(body) = &function.body {
            self.begin(depth, body.span);
            self.block(body);
        }
        self.push(")");
    }

    fn restrict(&mut self, restrict: &Restrict) {
        self.push("restrict(");
        for (i, spec) in restrict.specifiers.iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.push(&spec.name);
        }
        self.push(")");
    }

    fn param(&mut self, param: &Param) {
        self.push("(param ");
        self.ty(&param.specs, &param.declarator.modifiers);
        self.declarator_rest(&param.declarator, true);
        self.push(")");
    }

    // ------------------------------------------------------------ declarations

    /// `(HEAD (TYPE) DECLARATOR...)`
    fn decl(&mut self, head: &str, decl: &Decl) {
        self.push("(");
        self.push(head);
        self.push(" ");
        self.ty(&decl.specs, &Modifiers::default());
        for declarator in &decl.declarators {
            self.sep(declarator.span);
            self.declarator(declarator);
        }
        self.push(")");
    }

    fn declarator(&mut self, declarator: &Declarator) {
        self.push("(");
        let modifiers = modifiers_text(&declarator.modifiers);
        self.push(&modifiers);
        self.declarator_rest(declarator, !modifiers.is_empty());
        self.push(")");
    }

    /// The name, bounds and initialiser of a declarator; `started` says
    /// whether something precedes them in the node (and so needs a space).
    fn declarator_rest(&mut self, declarator: &Declarator, started: bool) {
        let mut started = started;
        let mut gap = |printer: &mut Self, span: Span| {
            if started {
                printer.sep(span);
            }
            started = true;
        };
        if let Some(name) = &declarator.name {
            gap(self, name.span);
            self.push(&name.name);
        }
        for dim in &declarator.array_dims {
            gap(self, dim.as_ref().map_or(declarator.span, |e| e.span));
            self.push("[");
            if let Some(e) = dim {
                self.expr(e);
            }
            self.push("]");
        }
        if let Some(init) = &declarator.init {
            let span = match init {
                Init::Assign(e) => e.span,
                Init::Paren(args) | Init::Brace(args) => {
                    args.first().map_or(declarator.span, |e| e.span)
                }
            };
            gap(self, span);
            match init {
                Init::Assign(e) => {
                    self.push("= ");
                    self.expr(e);
                }
                Init::Paren(args) => self.list("paren-init", args),
                Init::Brace(args) => self.list("brace-init", args),
            }
        }
    }

    /// `(HEAD A...)`
    fn list(&mut self, head: &str, items: &[Expr]) {
        self.push("(");
        self.push(head);
        for item in items {
            self.sep(item.span);
            self.expr(item);
        }
        self.push(")");
    }

    // ------------------------------------------------------------ types

    /// A type in parentheses.
    fn ty(&mut self, specs: &DeclSpecs, modifiers: &Modifiers) {
        self.push("(");
        self.type_text(specs, modifiers);
        self.push(")");
    }

    /// A type as C++ writes it.
    fn type_text(&mut self, specs: &DeclSpecs, modifiers: &Modifiers) {
        let words = [
            (specs.is_extern, "extern "),
            (specs.is_static, "static "),
            (specs.is_inline, "inline "),
            (specs.is_typedef, "typedef "),
            (specs.is_constexpr, "constexpr "),
            (specs.tile_static.is_some(), "tile_static "),
            (specs.is_const, "const "),
            (specs.is_volatile, "volatile "),
        ];
        for (present, word) in words {
            if present {
                self.push(word);
            }
        }
        match &specs.ty {
            BaseType::Builtin(builtin) => self.push(builtin.name()),
            BaseType::Auto => self.push("auto"),
            BaseType::Named(path) => self.push(&path.text()),
            BaseType::Template { path, args } => {
                self.push(&path.text());
                self.template_args(args);
            }
            BaseType::Decltype {
                expr,
                parenthesised,
                ..
            } => {
                self.push(if *parenthesised {
                    "(decltype-paren "
                } else {
                    "(decltype "
                });
                self.expr(expr);
                self.push(")");
            }
            BaseType::Error => self.push("<error>"),
        }
        let modifiers = modifiers_text(modifiers);
        if !modifiers.is_empty() {
            self.push(" ");
            self.push(&modifiers);
        }
    }

    /// `<A, B>`
    fn template_args(&mut self, args: &[TemplateArg]) {
        self.push("<");
        for (i, arg) in args.iter().enumerate() {
            let span = match arg {
                TemplateArg::Type(t) => t.span,
                TemplateArg::Expr(e) => e.span,
            };
            if i > 0 {
                self.push(",");
                self.sep(span);
            }
            match arg {
                TemplateArg::Type(t) => self.type_text(&t.specs, &t.modifiers),
                TemplateArg::Expr(e) => self.expr(e),
            }
        }
        self.push(">");
    }

    fn type_name(&mut self, ty: &TypeName) {
        self.ty(&ty.specs, &ty.modifiers);
    }

    // ------------------------------------------------------------ statements

    /// `(block S...)`, its statements on lines of their own.
    fn block(&mut self, block: &Block) {
        let depth = self.depth() + 1;
        self.push("(block");
        for stmt in &block.stmts {
            self.begin(depth, stmt.span);
            self.stmt(stmt);
        }
        self.push(")");
    }

    /// A statement, from the current position of the current line.
    fn stmt(&mut self, stmt: &Stmt) {
        let depth = self.depth() + 1;
        match &stmt.kind {
            StmtKind::Expr(e) => {
                self.push("(expr ");
                self.expr(e);
                self.push(")");
            }
            StmtKind::Decl(decl) => self.decl("decl", decl),
            StmtKind::FnDecl(f) => self.function(f),
            StmtKind::StaticAssert(a) => self.static_assert(a),
            StmtKind::Class(def) => self.struct_def(def),
            StmtKind::Block(block) => self.block(block),
            StmtKind::If { cond, then, els } => {
                self.push("(if ");
                self.expr(cond);
                self.begin(depth, then.span);
                self.stmt(then);
                if let Some(els) = els {
                    self.begin(depth, els.span);
                    self.push("(else ");
                    self.stmt(els);
                    self.push(")");
                }
                self.push(")");
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.push("(for ");
                match init {
                    Some(init) => self.stmt(init),
                    None => self.push("_"),
                }
                for part in [cond, step] {
                    match part {
                        Some(e) => {
                            self.sep(e.span);
                            self.expr(e);
                        }
                        None => {
                            self.sep(stmt.span);
                            self.push("_");
                        }
                    }
                }
                self.body(depth, body);
            }
            StmtKind::ForRange {
                specs,
                declarator,
                range,
                body,
            } => {
                self.push("(for-range (decl ");
                self.ty(specs, &Modifiers::default());
                self.sep(declarator.span);
                self.declarator(declarator);
                self.push(")");
                self.sep(range.span);
                self.expr(range);
                self.body(depth, body);
            }
            StmtKind::While { cond, body } => {
                self.push("(while ");
                self.expr(cond);
                self.body(depth, body);
            }
            StmtKind::DoWhile { body, cond } => {
                self.push("(do-while ");
                self.expr(cond);
                self.body(depth, body);
            }
            StmtKind::Switch { cond, body } => {
                self.push("(switch ");
                self.expr(cond);
                self.body(depth, body);
            }
            StmtKind::Labeled { label, stmt: inner } => {
                match label {
                    Label::Case(e) => {
                        self.push("(case ");
                        self.expr(e);
                    }
                    Label::Default => self.push("(default"),
                    Label::Named(name) => {
                        self.push("(label ");
                        self.push(&name.name);
                    }
                }
                self.sep(inner.span);
                self.stmt(inner);
                self.push(")");
            }
            StmtKind::Break => self.push("(break)"),
            StmtKind::Continue => self.push("(continue)"),
            StmtKind::Return(value) => {
                self.push("(return");
                if let Some(e) = value {
                    self.sep(e.span);
                    self.expr(e);
                }
                self.push(")");
            }
            StmtKind::Using { namespace, path } => {
                self.push(if *namespace {
                    "(using-namespace "
                } else {
                    "(using "
                });
                self.push(&path.text());
                self.push(")");
            }
            StmtKind::Goto(label) => {
                self.push("(goto ");
                self.push(&label.name);
                self.push(")");
            }
            StmtKind::Try { body, handlers } => {
                let depth = self.depth() + 1;
                self.push("(try ");
                self.block(body);
                for h in handlers {
                    self.begin(depth, h.span);
                    self.push("(catch ");
                    match &h.param {
                        Some(p) => self.param(p),
                        None => self.push("..."),
                    }
                    self.push(" ");
                    self.block(&h.body);
                    self.push(")");
                }
                self.push(")");
            }
            StmtKind::Empty => self.push("(empty)"),
            StmtKind::Error => self.push("(error)"),
        }
    }

    /// The body of a loop or `switch` on a line of its own, and the loop's `)`.
    fn body(&mut self, depth: usize, body: &Stmt) {
        self.begin(depth, body.span);
        self.stmt(body);
        self.push(")");
    }

    // ------------------------------------------------------------ expressions

    /// An expression, on the current line (but for lambda bodies).
    fn expr(&mut self, expr: &Expr) {
        match &expr.kind {
            ExprKind::Int(text) | ExprKind::Float(text) | ExprKind::Char(text) => self.push(text),
            ExprKind::Str(parts) => match parts.as_slice() {
                [one] => self.push(one),
                _ => {
                    self.push("(strings");
                    for part in parts {
                        self.sep(expr.span);
                        self.push(part);
                    }
                    self.push(")");
                }
            },
            ExprKind::Bool(value) => self.push(if *value { "true" } else { "false" }),
            ExprKind::Nullptr => self.push("nullptr"),
            ExprKind::This => self.push("this"),
            ExprKind::Name(path) => {
                self.push("(name ");
                self.push(&path.text());
                self.push(")");
            }
            ExprKind::Unary { op, operand } => {
                self.push("(");
                self.push(unary_name(*op));
                self.push(" ");
                self.expr(operand);
                self.push(")");
            }
            ExprKind::Binary { op, lhs, rhs } => {
                self.operation(binary_name(*op), &[lhs, rhs]);
            }
            ExprKind::Assign { op, lhs, rhs } => {
                let name = op.map_or_else(|| "=".to_string(), |op| format!("{}=", op.symbol()));
                self.operation(&name, &[lhs, rhs]);
            }
            ExprKind::Conditional { cond, then, els } => self.operation("?", &[cond, then, els]),
            ExprKind::Cast { kind, ty, operand } => {
                self.push("(cast ");
                self.push(cast_name(*kind));
                self.push(" ");
                self.type_name(ty);
                self.sep(operand.span);
                self.expr(operand);
                self.push(")");
            }
            ExprKind::Construct { ty, args, braces } => {
                self.push(if *braces {
                    "(construct-brace "
                } else {
                    "(construct "
                });
                self.type_name(ty);
                for arg in args {
                    self.sep(arg.span);
                    self.expr(arg);
                }
                self.push(")");
            }
            ExprKind::Call { callee, args } => {
                self.push("(call ");
                self.expr(callee);
                for arg in args {
                    self.sep(arg.span);
                    self.expr(arg);
                }
                self.push(")");
            }
            ExprKind::Index { base, index } => self.operation("index", &[base, index]),
            ExprKind::Member {
                base,
                name,
                arrow,
                template_args,
            } => {
                self.push(if *arrow { "(arrow " } else { "(member " });
                self.expr(base);
                self.sep(name.span);
                self.push(&name.name);
                if let Some(args) = template_args {
                    self.template_args(args);
                }
                self.push(")");
            }
            ExprKind::Lambda(lambda) => self.lambda(lambda, expr.span),
            ExprKind::InitList(items) => self.list("init-list", items),
            ExprKind::TypeMember {
                ty,
                member,
                template_args,
            } => {
                self.push("(type-member ");
                self.ty(&ty.specs, &ty.modifiers);
                self.push(" ");
                self.push(&member.name);
                if let Some(args) = template_args {
                    self.template_args(args);
                }
                self.push(")");
            }
            ExprKind::SizeofType(ty) => {
                self.push("(sizeof-type ");
                self.type_name(ty);
                self.push(")");
            }
            ExprKind::SizeofExpr(operand) => {
                self.push("(sizeof ");
                self.expr(operand);
                self.push(")");
            }
            ExprKind::TypeidType(ty) => {
                self.push("(typeid-type ");
                self.type_name(ty);
                self.push(")");
            }
            ExprKind::TypeidExpr(operand) => {
                self.push("(typeid ");
                self.expr(operand);
                self.push(")");
            }
            ExprKind::New { ty, args, count } => {
                self.push("(new ");
                self.type_name(ty);
                if let Some(args) = args {
                    for a in args {
                        self.sep(a.span);
                        self.expr(a);
                    }
                }
                if let Some(n) = count {
                    self.push(" [");
                    self.expr(n);
                    self.push("]");
                }
                self.push(")");
            }
            ExprKind::Delete { operand, array } => {
                self.push(if *array { "(delete[] " } else { "(delete " });
                self.expr(operand);
                self.push(")");
            }
            ExprKind::Throw(operand) => {
                self.push("(throw");
                if let Some(e) = operand {
                    self.sep(e.span);
                    self.expr(e);
                }
                self.push(")");
            }
            ExprKind::Error => self.push("(error)"),
        }
    }

    /// `(NAME A B...)`
    fn operation(&mut self, name: &str, operands: &[&Expr]) {
        self.push("(");
        self.push(name);
        for operand in operands {
            self.sep(operand.span);
            self.expr(operand);
        }
        self.push(")");
    }

    fn lambda(&mut self, lambda: &Lambda, span: Span) {
        let depth = self.depth() + 1;
        self.push("(lambda [");
        let mut first = true;
        if let Some(default) = lambda.default_capture {
            self.push(match default {
                CaptureDefault::ByValue => "=",
                CaptureDefault::ByRef => "&",
            });
            first = false;
        }
        for capture in &lambda.captures {
            if !first {
                self.push(", ");
            }
            first = false;
            if capture.by_ref {
                self.push("&");
            }
            self.push(&capture.name.name);
        }
        self.push("]");
        for param in &lambda.params {
            self.sep(param.span);
            self.param(param);
        }
        if let Some(restrict) = &lambda.restrict {
            self.sep(restrict.span);
            self.restrict(restrict);
        }
        if lambda.is_mutable {
            self.sep(span);
            self.push("mutable");
        }
        if let Some(ret) = &lambda.ret {
            self.sep(ret.span);
            self.push("-> ");
            self.type_name(ret);
        }
        self.begin(depth, lambda.body.span);
        self.block(&lambda.body);
        self.push(")");
        self.resume = Some(depth);
    }
}

/// `*`, `** const`, `&`, `* &&`: pointer and reference modifiers as written
/// after a type.
fn modifiers_text(modifiers: &Modifiers) -> String {
    if let Some(f) = &modifiers.function {
        return function_text(f);
    }
    let mut parts: Vec<String> = Vec::new();
    if modifiers.pointers > 0 {
        parts.push("*".repeat(modifiers.pointers as usize));
        if modifiers.const_pointer {
            parts.push("const".to_string());
        }
    }
    if modifiers.reference > 0 {
        parts.push("&".repeat(usize::from(modifiers.reference)));
    }
    parts.join(" ")
}

/// `(*)(int, float) restrict(cpu)`: a function declarator, its name left
/// out (the declarator prints it), its parameters by type.
fn function_text(f: &crate::ast::FunctionDeclarator) -> String {
    let class = f
        .class
        .as_ref()
        .map_or(String::new(), |c| format!("{}::", c.name));
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            let base = match &p.specs.ty {
                BaseType::Builtin(builtin) => builtin.name().to_string(),
                BaseType::Auto => "auto".to_string(),
                BaseType::Named(path) => path.text(),
                BaseType::Template { path, .. } => format!("{}<...>", path.text()),
                BaseType::Decltype { .. } => "decltype(...)".to_string(),
                BaseType::Error => "<error>".to_string(),
            };
            let c = if p.specs.is_const { "const " } else { "" };
            let m = modifiers_text(&p.declarator.modifiers);
            if m.is_empty() {
                format!("{c}{base}")
            } else {
                format!("{c}{base} {m}")
            }
        })
        .collect();
    let restrict = f.restrict.as_ref().map_or(String::new(), |r| {
        let names: Vec<&str> = r.specifiers.iter().map(|i| i.name.as_str()).collect();
        format!(" restrict({})", names.join(", "))
    });
    let ret = modifiers_text(&f.ret);
    let gap = if ret.is_empty() { "" } else { " " };
    format!(
        "{ret}{gap}({class}{})({}){restrict}",
        modifiers_text(&f.inner),
        params.join(", ")
    )
}

fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "-",
        UnaryOp::Plus => "+",
        UnaryOp::Not => "!",
        UnaryOp::BitNot => "~",
        UnaryOp::Deref => "*",
        UnaryOp::AddrOf => "&",
        UnaryOp::PreInc => "pre++",
        UnaryOp::PreDec => "pre--",
        UnaryOp::PostInc => "post++",
        UnaryOp::PostDec => "post--",
    }
}

/// The operator's symbol, but `comma` for `,`, which would be hard to read.
fn binary_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Comma => "comma",
        BinaryOp::MemberPointer => ".*",
        BinaryOp::MemberPointerArrow => "->*",
        BinaryOp::Mul
        | BinaryOp::Div
        | BinaryOp::Rem
        | BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Shl
        | BinaryOp::Shr
        | BinaryOp::Lt
        | BinaryOp::Gt
        | BinaryOp::Le
        | BinaryOp::Ge
        | BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::BitAnd
        | BinaryOp::BitXor
        | BinaryOp::BitOr
        | BinaryOp::And
        | BinaryOp::Or => op.symbol(),
    }
}

fn cast_name(kind: CastKind) -> &'static str {
    match kind {
        CastKind::CStyle => "c-style",
        CastKind::Static => "static",
        CastKind::Const => "const",
        CastKind::Reinterpret => "reinterpret",
        CastKind::Dynamic => "dynamic",
    }
}

#[cfg(test)]
mod tests {
    use super::dump;
    use crate::ast::{
        Expr, ExprKind, Ident, Item, ItemKind, Path, Stmt, StmtKind, TranslationUnit,
    };
    use tessera_diagnostics::{FileId, SourceFile, Sources, Span};

    fn dump_source(text: &str) -> (String, usize) {
        let mut sources = Sources::new();
        let file = sources.add(SourceFile {
            name: "test.amp".into(),
            text: text.into(),
        });
        let parsed = crate::parse_file(&sources, file, &[]);
        (dump(&parsed.unit, &sources), parsed.diagnostics.len())
    }

    #[test]
    fn positions_are_aligned_or_two_spaces_after_long_lines() {
        let (text, _) = dump_source("int main() {\n    return 0;\n}\n");
        let expected = format!(
            "{:<64}1:1\n{:<64}1:12\n{:<64}2:5\n",
            "(function main -> (int)", "  (block", "    (return 0)))"
        );
        assert_eq!(text, expected);
        let long = format!("int {}() {{}}\n", "x".repeat(70));
        let (text, _) = dump_source(&long);
        assert!(text.starts_with(&format!("(function {} -> (int)  1:1\n", "x".repeat(70))));
    }

    #[test]
    fn operands_after_a_lambda_body_continue_on_a_new_line() {
        let (text, _) = dump_source("void g() {\n    f([] { return; }, 3);\n}\n");
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        assert_eq!(
            lines,
            [
                format!("{:<64}1:1", "(function g -> (void)"),
                format!("{:<64}1:10", "  (block"),
                format!("{:<64}2:5", "    (expr (call (name f) (lambda []"),
                format!("{:<64}2:10", "      (block"),
                format!("{:<64}2:12", "        (return)))"),
                format!("{:<64}2:23", "      3))))"),
            ]
        );
    }

    #[test]
    fn error_nodes_are_shown() {
        let (text, diagnostics) = dump_source("int main() {\n    int x = ;\n}\nstruct;\n");
        assert!(diagnostics > 0);
        assert!(text.contains("    (error)"), "{text}");
        assert!(text.lines().any(|l| l.starts_with("(error)")), "{text}");
    }

    #[test]
    fn hand_built_nodes_the_parser_never_makes() {
        // A global path, adjacent strings, and a span of a file not in `sources`.
        let span = Span {
            file: FileId(7),
            start: 3,
            end: 4,
        };
        let ident = |name: &str| Ident {
            name: name.into(),
            span,
        };
        let expr = |kind| Expr {
            kind,
            span,
            height: 1,
        };
        let call = expr(ExprKind::Call {
            callee: Box::new(expr(ExprKind::Name(Path {
                global: true,
                segments: vec![ident("std"), ident("puts")],
                span,
            }))),
            args: vec![expr(ExprKind::Str(vec!["\"a\"".into(), "\"b\"".into()]))],
        });
        let unit = TranslationUnit {
            library_files: Vec::new(),
            standard_headers: None,
            items: vec![Item {
                kind: ItemKind::Function(crate::ast::Function {
                    ret: crate::ast::DeclSpecs {
                        is_const: false,
                        is_volatile: false,
                        is_static: false,
                        is_constexpr: false,
                        tile_static: None,
                        is_extern: false,
                        is_inline: false,
                        is_typedef: false,
                        ty: crate::ast::BaseType::Error,
                        span,
                    },
                    ret_modifiers: crate::ast::Modifiers::default(),
                    name: ident("f"),
                    params: Vec::new(),
                    restrict: None,
                    exception_spec: None,
                    class: None,
                    class_args: None,
                    method: crate::ast::MethodInfo::default(),
                    c_linkage: None,
                    body: Some(crate::ast::Block {
                        stmts: vec![Stmt {
                            kind: StmtKind::Expr(call),
                            span,
                            height: 2,
                        }],
                        lazy: None,
                        span,
                    }),
                }),
                span,
            }],
        };
        let text = dump(&unit, &Sources::new());
        let lines: Vec<&str> = text
            .lines()
            .map(|l| l.split("  1:1").next().unwrap_or("").trim_end())
            .collect();
        assert_eq!(
            lines,
            [
                "(function f -> (<error>)",
                "  (block",
                "    (expr (call (name ::std::puts) (strings \"a\" \"b\")))))",
            ]
        );
    }
}
