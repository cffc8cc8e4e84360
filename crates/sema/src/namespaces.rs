//! User namespaces, resolved before checking: every entity declared in
//! `namespace a::b { ... }` gets the flat name `a::b::x`, and every name that
//! refers to it (qualified, unqualified from inside the namespace, through a
//! `using` directive or declaration, or through a namespace alias) is
//! rewritten to that flat name. The checker then sees a file without
//! namespaces, and its diagnostics name entities as C++ does (`ns::f`).

use std::borrow::Cow;
use std::rc::Rc;
// The pass looks every name of the unit up in these tables, the library
// headers' included: FxHash is several times cheaper there than SipHash,
// and the keys are the program's own names (see docs/dependencies.md).
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_syntax::ast::*;

/// What a name declared in a namespace stands for.
#[derive(Clone, Debug)]
enum Member {
    /// An entity with its flat name; `true` for a function.
    Entity(String, bool),
    /// A namespace (or an alias of one), by its full name.
    Namespace(String),
}

/// Functions of several namespaces that one unqualified call names together
/// (a global `Equal` beside a `using namespace` that brings another in): the
/// key the callee is renamed to, the name as written, and each flat name.
pub type OverloadSets = HashMap<String, (String, Vec<String>)>;

/// The names a block scope declares: `None` for a local, the flat name
/// for a block-scope using-declaration.
type Names = HashMap<String, Option<String>>;

/// The pass's state kept after it, for the library bodies it met set
/// aside (see `tessera_syntax::lazy`): each is rewritten when the checker
/// parses it, with [`rewrite_lazy`], as it would have been in its place.
pub struct Pending(Box<Flat>);

/// The file with its namespaces flattened, or `unit` itself when it has
/// none, and the pass's state when bodies set aside wait for it.
/// Unqualified calls whose name reaches functions of several namespaces
/// are renamed to a key of `sets`. The items are moved, not copied, when
/// the caller gives the tree away: the library headers put `std` into
/// nearly every program, and copying their bodies was a large part of the
/// front end's cost.
pub fn flatten<'u>(
    unit: Cow<'u, TranslationUnit>,
    diags: &mut Vec<Diagnostic>,
    sets: &mut OverloadSets,
) -> (Cow<'u, TranslationUnit>, Option<Pending>) {
    let has = unit.items.iter().any(|i| {
        matches!(
            i.kind,
            ItemKind::Namespace(_) | ItemKind::NamespaceAlias { .. }
        ) || item_has_local_class(i)
            || item_has_nested_class(i)
    });
    if !has {
        return (unit, None);
    }
    let mut flat = Flat {
        place: None,
        clock: 0,
        horizon: u32::MAX,
        lazy: Vec::new(),
        ns: String::new(),
        members: HashMap::default(),
        directives: Vec::new(),
        locals: Vec::new(),
        function: String::new(),
        local_classes: HashSet::default(),
        class_members: HashMap::default(),
        nested: HashMap::default(),
        class_scope: Vec::new(),
        class_friends: HashMap::default(),
        class_bases: HashMap::default(),
        in_template: false,
        enclosing_members: HashMap::default(),
        deferred: Vec::new(),
        out: Vec::new(),
        callee: false,
        sets: std::mem::take(sets),
        diags: Vec::new(),
    };
    for item in unit.into_owned().items {
        flat.item(item);
    }
    *sets = std::mem::take(&mut flat.sets);
    diags.append(&mut flat.diags);
    let unit = Cow::Owned(TranslationUnit {
        items: std::mem::take(&mut flat.out),
        library_files: Vec::new(),
        standard_headers: None,
    });
    let pending = (!flat.lazy.is_empty()).then(|| Pending(Box::new(flat)));
    (unit, pending)
}

/// Rewrites `block`, the library body set aside numbered `index`, just
/// parsed, as the pass would have in its place: in the scopes around it,
/// seeing the declarations and `using` directives that came before it and
/// none after. A body the pass did not meet is left as it is.
pub fn rewrite_lazy(
    pending: &mut Pending,
    index: u32,
    block: &mut Block,
    diags: &mut Vec<Diagnostic>,
    sets: &mut OverloadSets,
) {
    let flat = &mut *pending.0;
    let Some(scope) = flat.lazy.get_mut(index as usize).and_then(Option::take) else {
        return;
    };
    flat.sets = std::mem::take(sets);
    let ns = std::mem::replace(&mut flat.ns, scope.place.0.clone());
    let locals = std::mem::replace(&mut flat.locals, scope.locals);
    let class_scope = std::mem::replace(&mut flat.class_scope, scope.place.1.clone());
    let in_template = std::mem::replace(&mut flat.in_template, scope.in_template);
    let later = flat
        .directives
        .split_off(scope.directives.min(flat.directives.len()));
    flat.horizon = scope.clock;
    flat.callee = false;
    flat.block(block);
    flat.horizon = u32::MAX;
    flat.directives.extend(later);
    flat.ns = ns;
    flat.locals = locals;
    flat.class_scope = class_scope;
    flat.in_template = in_template;
    *sets = std::mem::take(&mut flat.sets);
    diags.append(&mut flat.diags);
}

/// Where a library body set aside stood: what rewriting it there would
/// have seen. The tables keyed by class (members, bases, friends, nested
/// classes) are read as they are at the end, which is what they were for
/// the library's own classes.
///
/// The name of the function it is the body of is left out: the pass uses
/// it only to name local classes, and a body declaring one is not set
/// aside.
struct BodyScope {
    place: Rc<Place>,
    locals: Vec<Rc<Names>>,
    in_template: bool,
    /// How many `using` directives were in force.
    directives: usize,
    /// The declarations made before it: those with a smaller stamp.
    clock: u32,
}

/// A namespace and the classes around (`class_scope`): shared by the
/// bodies set aside in one class.
type Place = (String, Vec<String>);

struct Flat {
    /// The place of the last body set aside.
    place: Option<Rc<Place>>,
    /// The stamp of the next declaration (see `members`).
    clock: u32,
    /// Declarations stamped at or after this are not seen (while a body
    /// set aside is rewritten: those came after it).
    horizon: u32,
    /// Where each library body set aside stood, by its number.
    lazy: Vec<Option<BodyScope>>,
    /// The current namespace's full name ("" at file scope).
    ns: String,
    /// What each name of each namespace has stood for, with the stamp of
    /// each declaration, latest last: a body set aside sees the meaning its
    /// place saw.
    members: HashMap<String, HashMap<String, Vec<(u32, Member)>>>,
    /// `using namespace N;`: (the namespace it is written in, N).
    directives: Vec<(String, String)>,
    /// The names declared in each open block: `None` for a local variable,
    /// the flat name for a block-scope using-declaration.
    /// Shared, so that a body set aside keeps the scopes around it
    /// without copying them (see [`BodyScope`]).
    locals: Vec<Rc<Names>>,
    /// The function whose body is being rewritten (it names local classes).
    function: String,
    /// The flat names given to local classes so far.
    local_classes: HashSet<String>,
    /// The names of each class's members, its bases' included, by the
    /// class's flat name: inside a member function they are found before
    /// any namespace's names.
    class_members: HashMap<String, Rc<Names>>,
    /// The classes nested in each class, by the enclosing class's flat
    /// name: each one's flat name (`Outer::Inner`) and the access that
    /// applies to its name.
    nested: HashMap<String, HashMap<String, (String, Access)>>,
    /// The classes whose scope the code being rewritten is in (a class's
    /// members, a member function defined outside it), innermost last.
    class_scope: Vec<String>,
    /// The friends each class declares, as written.
    class_friends: HashMap<String, Vec<String>>,
    /// The bases of each class, by flat name.
    class_bases: HashMap<String, Vec<String>>,
    /// True while a template's item is rewritten.
    in_template: bool,
    /// The names given to enclosing classes' members inside nested
    /// classes (`Outer::count` for `count`): `Outer`'s member names (every
    /// set recorded under that name), a name naming a member when its
    /// entry is `None`. Kept as the classes' shared name sets rather than
    /// one joined string per member, which cost a string per member of
    /// every class (hundreds for each library short vector class).
    enclosing_members: HashMap<String, Vec<Rc<Names>>>,
    /// The bodies of nested classes' member functions, as definitions
    /// outside the class, to follow the enclosing class.
    deferred: Vec<Item>,
    out: Vec<Item>,
    /// True while the callee of a call is rewritten: only a call can name
    /// an overload set of several namespaces' functions.
    callee: bool,
    sets: OverloadSets,
    diags: Vec<Diagnostic>,
}

/// Whether a function (or a member function of a class) defines a class in
/// its body: local classes get names of their own in this pass.
fn item_has_local_class(item: &Item) -> bool {
    match &item.kind {
        ItemKind::Function(f) => f.body.as_ref().is_some_and(block_has_local_class),
        ItemKind::Struct(s) => s
            .methods
            .iter()
            .any(|m| m.item.body.as_ref().is_some_and(block_has_local_class)),
        ItemKind::Template(t) => item_has_local_class(&t.item),
        _ => false,
    }
}

/// Whether a class (at file scope or in a template) defines a class among
/// its members: nested classes are hoisted out in this pass.
fn item_has_nested_class(item: &Item) -> bool {
    match &item.kind {
        ItemKind::Struct(s) => !s.classes.is_empty(),
        ItemKind::Template(t) => item_has_nested_class(&t.item),
        _ => false,
    }
}

/// The class-key a class was defined with.
fn class_key(s: &StructDef) -> ClassKey {
    if s.is_union {
        ClassKey::Union
    } else if s.is_class {
        ClassKey::Class
    } else {
        ClassKey::Struct
    }
}

/// Moves the bodies of a nested class's member functions out of it, as
/// definitions outside the class (`int Outer::Inner::f() { ... }`): they
/// are checked after the enclosing class, which C++ lets them use (its
/// members are complete there), while the nested class itself is checked
/// before it.
fn defer_bodies(c: &mut StructDef) -> Vec<Item> {
    let mut out = Vec::new();
    for m in &mut c.methods {
        let f = &mut m.item;
        if f.body.is_none() {
            continue;
        }
        let mut def = f.clone();
        def.class = Some(Ident {
            name: c.name.name.clone(),
            span: f.name.span,
        });
        // What only the declaration says.
        def.ret.is_static = false;
        def.method.is_virtual = false;
        def.method.is_override = false;
        def.method.is_final = false;
        def.method.is_explicit = false;
        for p in &mut def.params {
            p.declarator.init = None;
        }
        f.body = None;
        if let Special::Constructor(inits) = &mut f.method.special {
            inits.clear();
        }
        out.push(Item {
            span: def.name.span,
            kind: ItemKind::Function(def),
        });
    }
    out
}

fn block_has_local_class(block: &Block) -> bool {
    block.stmts.iter().any(stmt_has_local_class)
}

fn stmt_has_local_class(stmt: &Stmt) -> bool {
    match &stmt.kind {
        StmtKind::Class(_) => true,
        StmtKind::Block(b) => block_has_local_class(b),
        StmtKind::Try { body, handlers } => {
            block_has_local_class(body) || handlers.iter().any(|h| block_has_local_class(&h.body))
        }
        StmtKind::If { then, els, .. } => {
            stmt_has_local_class(then) || els.as_deref().is_some_and(stmt_has_local_class)
        }
        StmtKind::For { body, .. }
        | StmtKind::ForRange { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. }
        | StmtKind::Switch { body, .. }
        | StmtKind::Labeled { stmt: body, .. } => stmt_has_local_class(body),
        _ => false,
    }
}

/// Makes `path` name the namespace `full` by its full name, as one segment
/// (the form of the flat names the checker sees).
fn flat_namespace(path: &mut Path, full: String) {
    let span = path.span;
    path.global = false;
    path.segments = vec![Ident { name: full, span }];
}

fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}::{name}")
    }
}

fn parent(scope: &str) -> Option<&str> {
    if scope.is_empty() {
        None
    } else {
        Some(scope.rfind("::").map_or("", |i| &scope[..i]))
    }
}

/// True when `outer` is `inner` or encloses it.
fn encloses(outer: &str, inner: &str) -> bool {
    outer.is_empty() || inner == outer || inner.starts_with(&format!("{outer}::"))
}

/// The innermost namespace enclosing both.
fn common(a: &str, b: &str) -> String {
    let mut out = String::new();
    for (x, y) in a.split("::").zip(b.split("::")) {
        if x != y || x.is_empty() {
            break;
        }
        out = join(&out, x);
    }
    out
}

impl Flat {
    fn declare(&mut self, name: &str, member: Member) {
        let stamp = self.clock;
        self.clock = self.clock.saturating_add(1);
        self.members
            .entry(self.ns.clone())
            .or_default()
            .entry(name.to_string())
            .or_default()
            .push((stamp, member));
    }

    /// Declares an entity in the current namespace and renames it.
    fn declare_entity(&mut self, ident: &mut Ident, is_fn: bool) {
        let flat = join(&self.ns, &ident.name);
        self.check_joins(&ident.name, &flat, ident.span);
        self.declare(&ident.name, Member::Entity(flat.clone(), is_fn));
        ident.name = flat;
    }

    /// A using-declaration and a declaration of the same name in one scope
    /// would make one overload set of two namespaces' functions (or clash).
    fn check_joins(&mut self, name: &str, flat: &str, span: Span) {
        if let Some(Member::Entity(other, _)) = self.member(&self.ns, name)
            && other != flat
        {
            let other = other.clone();
            self.diags.push(
                Diagnostic::error(
                    codes::E0211,
                    span,
                    format!(
                        "a using-declaration and another declaration of `{name}` in one scope are not supported yet"
                    ),
                )
                .with_label(format!("`{flat}` here, `{other}` already"))
                .with_help("drop the using-declaration and qualify the uses"),
            );
        }
    }

    fn member(&self, scope: &str, name: &str) -> Option<&Member> {
        let history = self.members.get(scope)?.get(name)?;
        history
            .iter()
            .rev()
            .find(|(stamp, _)| *stamp < self.horizon)
            .map(|(_, m)| m)
    }

    /// Rewrites a function's body, or notes where a library body set
    /// aside stands, to rewrite it if the checker parses it.
    fn body(&mut self, body: &mut Block) {
        let Some(lazy) = &body.lazy else {
            self.block(body);
            return;
        };
        let place = match &self.place {
            Some(p) if p.0 == self.ns && p.1 == self.class_scope => Rc::clone(p),
            _ => {
                let p = Rc::new((self.ns.clone(), self.class_scope.clone()));
                self.place = Some(Rc::clone(&p));
                p
            }
        };
        let scope = BodyScope {
            place,
            locals: self.locals.clone(),
            in_template: self.in_template,
            directives: self.directives.len(),
            clock: self.clock,
        };
        let at = lazy.index as usize;
        if self.lazy.len() <= at {
            self.lazy.resize_with(at + 1, || None);
        }
        self.lazy[at] = Some(scope);
    }

    /// Unqualified lookup from the current namespace outwards (only the
    /// file scope when `global`). `want_ns` looks for a namespace name.
    fn lookup(&mut self, name: &str, want_ns: bool, global: bool, span: Span) -> Option<Member> {
        let found = self.lookup_spelled(name, want_ns, global, span);
        // MSVC's `concurrency` is an alias of `Concurrency`: a program (or a
        // header) that adds to one reaches it through the other too.
        match (found, name) {
            (None, "concurrency") if want_ns => {
                self.lookup_spelled("Concurrency", want_ns, global, span)
            }
            (None, "Concurrency") if want_ns => {
                self.lookup_spelled("concurrency", want_ns, global, span)
            }
            (found, _) => found,
        }
    }

    fn lookup_spelled(
        &mut self,
        name: &str,
        want_ns: bool,
        global: bool,
        span: Span,
    ) -> Option<Member> {
        let mut scope = if global {
            String::new()
        } else {
            self.ns.clone()
        };
        loop {
            let mut found: Vec<Member> = Vec::new();
            let push = |m: &Member, found: &mut Vec<Member>| {
                let fits = matches!(m, Member::Namespace(_)) == want_ns;
                let same = found.iter().any(|f| match (f, m) {
                    (Member::Entity(a, _), Member::Entity(b, _)) => a == b,
                    (Member::Namespace(a), Member::Namespace(b)) => a == b,
                    _ => false,
                });
                if fits && !same {
                    found.push(m.clone());
                }
            };
            if let Some(m) = self.member(&scope, name) {
                push(&m.clone(), &mut found);
            }
            // A qualified lookup (`::x`) follows directives only when the
            // namespace itself does not declare the name.
            let follow = !global || found.is_empty();
            for (written, nominated) in self.directives.iter().filter(|_| follow) {
                if encloses(written, &self.ns)
                    && common(written, nominated) == scope
                    && let Some(m) = self.member(nominated, name)
                {
                    push(m, &mut found);
                }
            }
            match found.len() {
                0 => {}
                1 => return found.pop(),
                _ => {
                    let fns = found.iter().all(|m| matches!(m, Member::Entity(_, true)));
                    if fns && self.callee {
                        let flats: Vec<String> = found
                            .iter()
                            .filter_map(|m| match m {
                                Member::Entity(n, _) => Some(n.clone()),
                                Member::Namespace(_) => None,
                            })
                            .collect();
                        // Not a valid C++ name, so it names nothing else.
                        let key = format!("{name} {{{}}}", flats.join(", "));
                        self.sets.insert(key.clone(), (name.to_string(), flats));
                        return Some(Member::Entity(key, true));
                    }
                    let names: Vec<String> = found
                        .iter()
                        .map(|m| match m {
                            Member::Entity(n, _) | Member::Namespace(n) => format!("`{n}`"),
                        })
                        .collect();
                    let d = if fns {
                        Diagnostic::error(
                            codes::E0211,
                            span,
                            format!(
                                "calling functions named `{name}` from several namespaces as one overload set is not supported yet"
                            ),
                        )
                        .with_label(format!("could be {}", names.join(" or ")))
                        .with_help("qualify the name: `ns::f(...)`")
                    } else {
                        Diagnostic::error(codes::E0242, span, format!("`{name}` is ambiguous"))
                            .with_label(format!("could be {}", names.join(" or ")))
                            .with_help("qualify the name to say which one you mean")
                            .with_msvc("C2872")
                    };
                    self.diags.push(d);
                    return None;
                }
            }
            if global {
                return None;
            }
            scope = parent(&scope)?.to_string();
        }
    }

    /// What a block scope says about `name`: `Some(None)` for a local.
    fn local(&self, name: &str) -> Option<Option<String>> {
        self.locals.iter().rev().find_map(|s| s.get(name).cloned())
    }

    fn is_local(&self, name: &str) -> bool {
        matches!(self.local(name), Some(None))
    }

    fn add_local(&mut self, name: &str, flat: Option<String>) {
        if let Some(s) = self.locals.last_mut() {
            Rc::make_mut(s).insert(name.to_string(), flat);
        }
    }

    /// Whether `name` is `Outer::member` for a class `Outer` and one of
    /// its members (not a nested class), at any `::` of it: a member's
    /// own name may hold one (`operator std::string`).
    fn is_enclosing_member(&self, name: &str) -> bool {
        if self.enclosing_members.is_empty() {
            return false;
        }
        name.match_indices("::").any(|(at, _)| {
            let (class, member) = (&name[..at], &name[at + 2..]);
            self.enclosing_members
                .get(class)
                .is_some_and(|sets| sets.iter().any(|m| matches!(m.get(member), Some(None))))
        })
    }

    /// Rewrites a path to the flat name of what it names, when that is in
    /// a user namespace or is a nested class (`Outer::Inner`).
    fn path(&mut self, path: &mut Path) {
        self.path_in_namespaces(path);
        // An enclosing class's member named plainly in a nested class:
        // `Outer::count`, a class and its member, as if written so.
        if let [one] = path.segments.as_slice()
            && self.is_enclosing_member(&one.name)
            && let Some((class, member)) = one.name.rsplit_once("::")
        {
            let span = one.span;
            path.segments = vec![
                Ident {
                    name: class.to_string(),
                    span,
                },
                Ident {
                    name: member.to_string(),
                    span,
                },
            ];
        }
        self.fold_nested(path);
    }

    /// `Outer::Inner` (after `Outer` was resolved): the nested class's
    /// flat name as one segment, once its name's access is checked.
    fn fold_nested(&mut self, path: &mut Path) {
        while path.segments.len() >= 2 {
            let outer = path.segments[0].name.clone();
            let inner = &path.segments[1];
            let Some((flat, access)) = self.nested.get(&outer).and_then(|m| m.get(&inner.name))
            else {
                return;
            };
            let (flat, access) = (flat.clone(), *access);
            let span = path.segments[0].span.to(inner.span);
            if !self.may_name(&outer, access) {
                let word = if access == Access::Private {
                    "private"
                } else {
                    "protected"
                };
                self.diags.push(
                    Diagnostic::error(
                        codes::E0250,
                        span,
                        format!("class `{}` is {word} in `{outer}`", inner.name),
                    )
                    .with_label(format!("{word} member"))
                    .with_msvc("C2248")
                    .with_help(if access == Access::Private {
                        format!(
                            "only `{outer}`'s own members can use it; make it `public` in `{outer}`"
                        )
                    } else {
                        format!(
                            "only `{outer}` and the classes derived from it can use it; make it `public` in `{outer}`"
                        )
                    }),
                );
            }
            path.segments.splice(0..2, [Ident { name: flat, span }]);
        }
    }

    /// Whether the code being rewritten may name a member of class `outer`
    /// that has `access`: inside the class (or a class nested in it), in a
    /// friend, or, for a protected one, in a class derived from it.
    fn may_name(&self, outer: &str, access: Access) -> bool {
        if access == Access::Public {
            return true;
        }
        let friends = self.class_friends.get(outer);
        self.class_scope.iter().any(|c| {
            c == outer
                || c.starts_with(&format!("{outer}::"))
                || friends.is_some_and(|f| {
                    f.iter()
                        .any(|f| f == c || c.rsplit("::").next() == Some(f.as_str()))
                })
                || (access == Access::Protected && self.derives(c, outer, 0))
        })
    }

    /// Whether class `class` has `base` among its bases, directly or not.
    fn derives(&self, class: &str, base: &str, depth: usize) -> bool {
        depth < 64
            && self.class_bases.get(class).is_some_and(|bs| {
                bs.iter()
                    .any(|b| b == base || self.derives(b, base, depth + 1))
            })
    }

    fn path_in_namespaces(&mut self, path: &mut Path) {
        let Some(first) = path.segments.first() else {
            return;
        };
        let first_name = first.name.clone();
        let first_span = first.span;
        if path.segments.len() == 1 {
            if !path.global {
                match self.local(&first_name) {
                    Some(None) => return,
                    Some(Some(flat)) => {
                        path.segments[0].name = flat;
                        return;
                    }
                    None => {}
                }
            }
            if let Some(Member::Entity(flat, _)) =
                self.lookup(&first_name, false, path.global, first_span)
                && flat != first_name
            {
                path.segments[0].name = flat;
                path.global = false;
            }
            return;
        }
        // `C::f` where `C` is a local class.
        if !path.global
            && let Some(Some(flat)) = self.local(&first_name)
        {
            path.segments[0].name = flat;
            return;
        }
        // Qualified: the first segment names a namespace, or an entity
        // (an enumeration: `Color::Red`).
        match self.lookup(&first_name, true, path.global, first_span) {
            Some(Member::Namespace(mut cur)) => {
                let mut used = 1;
                while used + 1 < path.segments.len() {
                    match self.member(&cur, &path.segments[used].name) {
                        Some(Member::Namespace(next)) => {
                            cur = next.clone();
                            used += 1;
                        }
                        _ => break,
                    }
                }
                let seg = &path.segments[used];
                let found = self.member(&cur, &seg.name).cloned();
                // A library namespace the program adds to (`Concurrency`,
                // `std`) still holds the library's names.
                let library_root = ["concurrency", "Concurrency", "std"]
                    .iter()
                    .any(|l| cur == *l || cur.starts_with(&format!("{l}::")));
                if library_root && !matches!(found, Some(Member::Entity(..))) {
                    return;
                }
                let Some(Member::Entity(flat, _)) = found else {
                    self.diags.push(
                        Diagnostic::error(
                            codes::E0243,
                            seg.span,
                            format!("namespace `{cur}` has no member `{}`", seg.name),
                        )
                        .with_label("not declared in this namespace")
                        .with_help("declare it in the namespace before this use")
                        .with_msvc("C2039"),
                    );
                    return;
                };
                let span = path.segments[0].span.to(seg.span);
                let rest = path.segments.split_off(used + 1);
                path.segments = std::iter::once(Ident { name: flat, span })
                    .chain(rest)
                    .collect();
                path.global = false;
            }
            _ => {
                if !self.is_local(&first_name)
                    && let Some(Member::Entity(flat, _)) =
                        self.lookup(&first_name, false, path.global, first_span)
                    && flat != first_name
                {
                    path.segments[0].name = flat;
                    path.global = false;
                }
            }
        }
    }

    fn item(&mut self, mut item: Item) {
        match &mut item.kind {
            ItemKind::Namespace(ns) => {
                let saved = self.ns.clone();
                for seg in &ns.name {
                    let full = join(&self.ns, &seg.name);
                    let clash = match self.member(&self.ns, &seg.name) {
                        Some(Member::Namespace(f)) => *f != full,
                        Some(Member::Entity(..)) => true,
                        None => false,
                    };
                    if clash {
                        self.diags.push(
                            Diagnostic::error(
                                codes::E0202,
                                seg.span,
                                format!(
                                    "`{}` is already declared, and not as a namespace",
                                    seg.name
                                ),
                            )
                            .with_label("cannot name a namespace")
                            .with_help("choose another name for the namespace")
                            .with_msvc("C2757"),
                        );
                        self.ns = saved;
                        return;
                    }
                    self.declare(&seg.name, Member::Namespace(full.clone()));
                    self.ns = full;
                }
                for inner in std::mem::take(&mut ns.items) {
                    self.item(inner);
                }
                self.ns = saved;
                return;
            }
            ItemKind::NamespaceAlias { name, target } => {
                let mut segs = target.segments.iter();
                let Some(first) = segs.next() else { return };
                let Some(Member::Namespace(mut cur)) =
                    self.lookup(&first.name, true, target.global, first.span)
                else {
                    self.diags.push(unknown_namespace(&first.name, first.span));
                    return;
                };
                for seg in segs {
                    match self.member(&cur, &seg.name) {
                        Some(Member::Namespace(next)) => cur = next.clone(),
                        _ => {
                            self.diags.push(unknown_namespace(&seg.name, seg.span));
                            return;
                        }
                    }
                }
                let name = name.name.clone();
                self.declare(&name, Member::Namespace(cur));
                return;
            }
            ItemKind::UsingNamespace(path) => {
                if let Some(cur) = self.namespace_of(path) {
                    self.directives.push((self.ns.clone(), cur.clone()));
                    // Names are resolved here; the checker still needs the
                    // directive for the operators an expression uses, so it
                    // stays, naming the namespace by its full name.
                    flat_namespace(path, cur);
                    self.out.push(item);
                    return;
                }
                self.check_library(path);
            }
            ItemKind::UsingDecl(path) => {
                // `using ns::f;`, and `using ::f;` in a namespace.
                if path.segments.len() > 1 || (path.global && !self.ns.is_empty()) {
                    let mut p = path.clone();
                    let before = self.diags.len();
                    self.path(&mut p);
                    if self.diags.len() > before {
                        return;
                    }
                    if p.segments.len() == 1 {
                        let is_fn = matches!(
                            self.lookup_flat(&p.segments[0].name),
                            Some(Member::Entity(_, true))
                        );
                        let last = path.last().to_string();
                        let target = p.segments[0].name.clone();
                        self.check_joins(&last, &target, path.span);
                        self.declare(&last, Member::Entity(target, is_fn));
                        return;
                    }
                }
            }
            ItemKind::Function(f) => {
                // A member defined outside its class names the class, which
                // may live in a namespace; the member itself is the class's.
                if let Some(class) = &mut f.class {
                    // `Outer::Inner` (a nested class's member) is one name
                    // from the parser; each class is resolved in turn.
                    let segments = class
                        .name
                        .split("::")
                        .map(|n| Ident {
                            name: n.to_string(),
                            span: class.span,
                        })
                        .collect();
                    let mut path = Path {
                        global: false,
                        segments,
                        span: class.span,
                    };
                    // Its members may define a private nested class's
                    // members (`void Outer::Hidden::f() {}`).
                    let before = self.diags.len();
                    self.path(&mut path);
                    let mut k = before;
                    while k < self.diags.len() {
                        if self.diags[k].code == codes::E0250 {
                            self.diags.remove(k);
                        } else {
                            k += 1;
                        }
                    }
                    if let [one] = path.segments.as_slice() {
                        class.name = one.name.clone();
                    }
                } else {
                    self.declare_entity(&mut f.name, true);
                }
                let class_scope = self.class_scope.len();
                if let Some(c) = &f.class {
                    self.class_scope.push(c.name.clone());
                }
                self.specs(&mut f.ret);
                let members = f
                    .class
                    .as_ref()
                    .and_then(|c| self.class_members.get(&c.name))
                    .cloned();
                let scoped = members.is_some();
                if let Some(m) = members {
                    self.locals.push(m);
                }
                self.locals.push(Rc::default());
                for p in &mut f.params {
                    self.param(p);
                }
                let outer = std::mem::replace(&mut self.function, f.name.name.clone());
                self.member_inits(&mut f.method.special);
                if let Some(body) = &mut f.body {
                    self.body(body);
                }
                self.function = outer;
                self.locals.pop();
                if scoped {
                    self.locals.pop();
                }
                self.class_scope.truncate(class_scope);
            }
            ItemKind::Struct(s) => self.struct_def(s),
            ItemKind::Global(decl) => {
                self.specs(&mut decl.specs);
                for d in &mut decl.declarators {
                    self.declarator_parts(d);
                    if let Some(n) = &mut d.name {
                        self.declare_entity(n, false);
                    }
                }
            }
            ItemKind::StaticAssert(a) => self.expr(&mut a.cond),
            ItemKind::Enum(e) => {
                if !e.name.name.is_empty() {
                    self.declare_entity(&mut e.name, false);
                }
                if let Some(t) = &mut e.underlying {
                    self.specs(&mut t.specs);
                }
                for (name, value) in &mut e.enumerators {
                    if let Some(v) = value {
                        self.expr(v);
                    }
                    if !e.scoped {
                        self.declare_entity(name, false);
                    }
                }
            }
            ItemKind::Template(t) => {
                // Default template arguments name types and constants of
                // the namespace the template is declared in.
                for p in &mut t.params {
                    match p {
                        TemplateParam::Type {
                            default: Some(d), ..
                        } => self.type_name(d),
                        TemplateParam::Value {
                            default: Some(d), ..
                        } => self.expr(d),
                        _ => {}
                    }
                }
                // The templated item is rewritten like any other; it stays
                // inside its `template` header.
                let outer = std::mem::replace(&mut self.in_template, true);
                // A class or function is always given back to `out`, so it
                // is moved; anything else (which returns without a result)
                // is rewritten from a copy and left in place, as before.
                let inner = if matches!(t.item.kind, ItemKind::Struct(_) | ItemKind::Function(_)) {
                    let span = t.item.span;
                    std::mem::replace(
                        &mut *t.item,
                        Item {
                            kind: ItemKind::Empty,
                            span,
                        },
                    )
                } else {
                    (*t.item).clone()
                };
                self.item(inner);
                self.in_template = outer;
                if let Some(inner) = self.out.pop() {
                    *t.item = inner;
                }
            }
            ItemKind::Empty | ItemKind::Error => {}
        }
        self.out.push(item);
        self.out.append(&mut self.deferred);
    }

    /// A class's name and members (a namespace-level or a local class).
    fn struct_def(&mut self, s: &mut StructDef) {
        self.declare_entity(&mut s.name, false);
        self.struct_members(s, false);
    }

    /// A class defined in a function body: named after the function
    /// (`main()::Cell`, as compilers show it; a second class of that name
    /// in the function gets a number), visible from its definition to the
    /// end of the block, its own members included.
    fn local_class(&mut self, s: &mut StructDef) {
        let plain = s.name.name.clone();
        let mut flat = format!("{}()::{plain}", self.function);
        let mut k = 1;
        while self.local_classes.contains(&flat) {
            k += 1;
            flat = format!("{}()#{k}::{plain}", self.function);
        }
        self.local_classes.insert(flat.clone());
        self.add_local(&plain, Some(flat.clone()));
        s.name.name = flat;
        self.struct_members(s, true);
    }

    /// The members of a class: types, bodies and trailing declarators.
    /// Its nested classes are hoisted out, before it, under flat names
    /// (`Outer::Inner`); returns those names, theirs included.
    fn struct_members(&mut self, s: &mut StructDef, local: bool) -> Vec<String> {
        let nested = std::mem::take(&mut s.classes);
        if let Some(first) = nested.first()
            && (local || self.in_template)
        {
            let (what, help) = if local {
                (
                    "a class nested in a local class",
                    "define the enclosing class outside the function",
                )
            } else {
                (
                    "a class nested in a class template",
                    "define the nested class outside the template, as a class template of its own",
                )
            };
            self.diags.push(
                Diagnostic::error(
                    codes::E0211,
                    first.item.name.span,
                    format!("{what} is not supported yet"),
                )
                .with_label("nested class")
                .with_help(help),
            );
        }
        let nested = if local || self.in_template {
            Vec::new()
        } else {
            nested
        };
        // The class's members and its bases' hide namespace names in its
        // member functions (C++'s class scope comes before namespace scope).
        let mut names: HashMap<String, Option<String>> = HashMap::default();
        for b in &mut s.bases {
            let is_virtual =
                matches!(&b.item, BaseType::Named(p) if p.last().starts_with("virtual "));
            if !is_virtual {
                self.base(&mut b.item);
            }
            let base = match &b.item {
                BaseType::Named(p) | BaseType::Template { path: p, .. } => p.last().to_string(),
                _ => String::new(),
            };
            if let Some(inherited) = self.class_members.get(&base) {
                names.extend(inherited.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        for d in &s.fields {
            for decl in &d.declarators {
                if let Some(n) = &decl.name {
                    names.insert(n.name.clone(), None);
                }
            }
        }
        for m in &s.methods {
            if matches!(m.item.method.special, Special::None) {
                names.insert(m.item.name.name.clone(), None);
            }
        }
        for m in &s.method_templates {
            // A constructor template is named after its class, which stays
            // the namespace's class.
            if let ItemKind::Function(f) = &m.item.item.kind
                && matches!(f.method.special, Special::None)
            {
                names.insert(f.name.name.clone(), None);
            }
        }
        let outer = s.name.name.clone();
        let mut flats = Vec::new();
        for m in &nested {
            let plain = m.item.name.name.clone();
            let flat = format!("{outer}::{plain}");
            self.nested
                .entry(outer.clone())
                .or_default()
                .insert(plain.clone(), (flat.clone(), m.access));
            names.insert(plain, Some(flat.clone()));
            flats.push(flat);
        }
        self.class_friends.insert(
            outer.clone(),
            s.friends.iter().map(|f| f.name.clone()).collect(),
        );
        let bases = s
            .bases
            .iter()
            .filter_map(|b| match &b.item {
                BaseType::Named(p) | BaseType::Template { path: p, .. } => {
                    Some(p.last().to_string())
                }
                _ => None,
            })
            .collect();
        self.class_bases.insert(outer.clone(), bases);
        let names = Rc::new(names);
        self.class_members
            .insert(s.name.name.clone(), Rc::clone(&names));
        self.locals.push(names);
        self.class_scope.push(outer.clone());
        // Each nested class is checked before its enclosing class, as a
        // class of its own; it may use the enclosing class's private
        // members, as C++ makes it a member.
        let mut hoisted = Vec::new();
        if !nested.is_empty() {
            // Declared first, so that the nested classes' member functions
            // declared without a body may take it by reference.
            let declared = std::iter::once((class_key(s), s.name.clone())).chain(
                nested.iter().zip(&flats).map(|(m, flat)| {
                    let name = Ident {
                        name: flat.clone(),
                        span: m.item.name.span,
                    };
                    (class_key(&m.item), name)
                }),
            );
            let declared: Vec<Item> = declared
                .map(|(key, name)| Item {
                    span: name.span,
                    kind: ItemKind::Struct(tessera_syntax::actions::forward_class(key, name)),
                })
                .collect();
            self.out.extend(declared);
        }
        // Inside a nested class, the enclosing class's members are named
        // through it (`count` is `Outer::count`), its nested classes as
        // they are. Only a class with nested classes needs the map: built
        // for every class, it cost a string per member of the library's
        // short vector classes.
        let enclosing: HashMap<String, Option<String>> = if nested.is_empty() {
            HashMap::default()
        } else {
            self.class_members
                .get(&outer)
                .map(|m| m.iter())
                .into_iter()
                .flatten()
                .map(|(n, v)| {
                    let flat = v.clone().unwrap_or_else(|| format!("{outer}::{n}"));
                    (n.clone(), Some(flat))
                })
                .collect()
        };
        if let Some(members) = self.class_members.get(&outer) {
            self.enclosing_members
                .entry(outer.clone())
                .or_default()
                .push(Rc::clone(members));
        }
        self.locals.push(Rc::new(enclosing));
        for (m, flat) in nested.into_iter().zip(flats) {
            let mut c = m.item;
            let span = c.name.span;
            c.name.name = flat.clone();
            hoisted.extend(self.struct_members(&mut c, false));
            hoisted.push(flat);
            let bodies = defer_bodies(&mut c);
            self.out.push(Item {
                kind: ItemKind::Struct(c),
                span,
            });
            self.deferred.extend(bodies);
        }
        self.locals.pop();
        for flat in &hoisted {
            s.friends.push(Ident {
                name: flat.clone(),
                span: s.name.span,
            });
        }
        for d in &mut s.fields {
            self.specs(&mut d.specs);
            for decl in &mut d.declarators {
                self.declarator_parts(decl);
            }
        }
        for a in &mut s.asserts {
            self.expr(&mut a.cond);
        }
        let templated = s
            .method_templates
            .iter_mut()
            .filter_map(|m| match &mut m.item.item.kind {
                ItemKind::Function(f) => Some(f),
                _ => None,
            });
        for f in s.methods.iter_mut().map(|m| &mut m.item).chain(templated) {
            self.specs(&mut f.ret);
            self.locals.push(Rc::default());
            for p in &mut f.params {
                self.param(p);
            }
            let outer = std::mem::replace(
                &mut self.function,
                format!("{}::{}", s.name.name, f.name.name),
            );
            self.member_inits(&mut f.method.special);
            if let Some(body) = &mut f.body {
                self.body(body);
            }
            self.function = outer;
            self.locals.pop();
        }
        self.locals.pop();
        self.class_scope.pop();
        for d in &mut s.trailing {
            self.declarator_parts(d);
            if let Some(n) = &mut d.name {
                if local {
                    let name = n.name.clone();
                    self.add_local(&name, None);
                } else {
                    self.declare_entity(n, false);
                }
            }
        }
        hoisted
    }

    fn lookup_flat(&self, flat: &str) -> Option<Member> {
        let (scope, name) = flat.rsplit_once("::").unwrap_or(("", flat));
        self.member(scope, name).cloned()
    }

    /// The user namespace a path names, if any.
    fn namespace_of(&mut self, path: &Path) -> Option<String> {
        let mut segs = path.segments.iter();
        let first = segs.next()?;
        let Some(Member::Namespace(mut cur)) =
            self.lookup(&first.name, true, path.global, first.span)
        else {
            return None;
        };
        for seg in segs {
            match self.member(&cur, &seg.name) {
                Some(Member::Namespace(next)) => cur = next.clone(),
                _ => {
                    self.diags.push(unknown_namespace(&seg.name, seg.span));
                    return None;
                }
            }
        }
        Some(cur)
    }

    /// A directive that names no user namespace must name the library's.
    fn check_library(&mut self, path: &Path) {
        const LIBRARY: &[&str] = &[
            "std",
            "concurrency",
            "Concurrency",
            "concurrency::fast_math",
            "concurrency::precise_math",
            "Concurrency::fast_math",
            "Concurrency::precise_math",
        ];
        let text = path.text();
        let text = text.trim_start_matches("::");
        if !LIBRARY.contains(&text)
            && let Some(first) = path.segments.first()
        {
            self.diags.push(unknown_namespace(&first.name, path.span));
        }
    }

    fn param(&mut self, p: &mut Param) {
        self.specs(&mut p.specs);
        self.declarator_parts(&mut p.declarator);
        if let Some(n) = &p.declarator.name {
            let name = n.name.clone();
            self.add_local(&name, None);
        }
    }

    fn specs(&mut self, specs: &mut DeclSpecs) {
        self.base(&mut specs.ty);
    }

    fn base(&mut self, ty: &mut BaseType) {
        match ty {
            BaseType::Named(path) => self.path(path),
            BaseType::Template { path, args } => {
                // A class template declared in a namespace is named like
                // any entity there.
                self.path(path);
                for a in args {
                    match a {
                        TemplateArg::Type(t) => self.specs(&mut t.specs),
                        TemplateArg::Expr(e) => self.expr(e),
                    }
                }
            }
            BaseType::Decltype { expr, .. } => self.expr(expr),
            BaseType::Builtin(_) | BaseType::Auto | BaseType::Error => {}
        }
    }

    fn declarator_parts(&mut self, d: &mut Declarator) {
        for e in d.array_dims.iter_mut().flatten() {
            self.expr(e);
        }
        match &mut d.init {
            Some(Init::Assign(e)) => self.expr(e),
            Some(Init::Paren(es) | Init::Brace(es)) => {
                for e in es {
                    self.expr(e);
                }
            }
            None => {}
        }
    }

    fn local_decl(&mut self, decl: &mut Decl) {
        self.specs(&mut decl.specs);
        for d in &mut decl.declarators {
            self.declarator_parts(d);
            if let Some(n) = &d.name {
                let name = n.name.clone();
                self.add_local(&name, None);
            }
        }
    }

    /// A constructor's member initialisers: their arguments name entities
    /// as the body does (`x(ns::f(a))`, `n(std::strlen(s))`).
    fn member_inits(&mut self, special: &mut Special) {
        if let Special::Constructor(inits) = special {
            for init in inits {
                for arg in &mut init.args {
                    self.expr(arg);
                }
            }
        }
    }

    /// `int f(int);` in a block declares `f` of the enclosing namespace,
    /// which calls in the block then name.
    fn local_function(&mut self, f: &mut Function) {
        self.specs(&mut f.ret);
        self.locals.push(Rc::default());
        for p in &mut f.params {
            self.param(p);
        }
        self.locals.pop();
        let name = f.name.name.clone();
        let flat = join(&self.ns, &name);
        f.name.name = flat.clone();
        self.add_local(&name, Some(flat));
    }

    fn block(&mut self, block: &mut Block) {
        self.locals.push(Rc::default());
        let directives = self.directives.len();
        for s in &mut block.stmts {
            self.stmt(s);
        }
        self.directives.truncate(directives);
        self.locals.pop();
    }

    fn scoped(&mut self, stmt: &mut Stmt) {
        self.locals.push(Rc::default());
        self.stmt(stmt);
        self.locals.pop();
    }

    fn stmt(&mut self, stmt: &mut Stmt) {
        match &mut stmt.kind {
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::StaticAssert(a) => self.expr(&mut a.cond),
            StmtKind::Class(c) => self.local_class(c),
            StmtKind::Decl(d) => self.local_decl(d),
            StmtKind::FnDecl(f) => self.local_function(f),
            StmtKind::Block(b) => self.block(b),
            StmtKind::Try { body, handlers } => {
                self.block(body);
                for h in handlers {
                    self.locals.push(Rc::default());
                    if let Some(p) = &mut h.param {
                        self.param(p);
                    }
                    self.block(&mut h.body);
                    self.locals.pop();
                }
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond);
                self.scoped(then);
                if let Some(e) = els {
                    self.scoped(e);
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.locals.push(Rc::default());
                if let Some(i) = init {
                    self.stmt(i);
                }
                if let Some(c) = cond {
                    self.expr(c);
                }
                if let Some(s) = step {
                    self.expr(s);
                }
                self.scoped(body);
                self.locals.pop();
            }
            StmtKind::ForRange {
                specs,
                declarator,
                range,
                body,
            } => {
                self.locals.push(Rc::default());
                self.specs(specs);
                self.expr(range);
                self.declarator_parts(declarator);
                if let Some(n) = &declarator.name {
                    let name = n.name.clone();
                    self.add_local(&name, None);
                }
                self.scoped(body);
                self.locals.pop();
            }
            StmtKind::While { cond, body }
            | StmtKind::DoWhile { body, cond }
            | StmtKind::Switch { cond, body } => {
                self.expr(cond);
                self.scoped(body);
            }
            StmtKind::Labeled { label, stmt } => {
                if let Label::Case(e) = label {
                    self.expr(e);
                }
                self.stmt(stmt);
            }
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    self.expr(e);
                }
            }
            StmtKind::Using { namespace, path } => {
                if *namespace {
                    if let Some(cur) = self.namespace_of(path) {
                        self.directives.push((self.ns.clone(), cur.clone()));
                        // Kept for the operators, as at namespace scope.
                        flat_namespace(path, cur);
                    } else {
                        self.check_library(path);
                    }
                } else if path.segments.len() > 1 {
                    let mut p = path.clone();
                    let before = self.diags.len();
                    self.path(&mut p);
                    if self.diags.len() == before && p.segments.len() == 1 {
                        let last = path.last().to_string();
                        if last.starts_with("operator") {
                            // An operator is found by the checker when an
                            // expression uses it, so the declaration stays,
                            // naming the operator's flat name.
                            *path = p;
                        } else {
                            self.add_local(&last, Some(p.segments[0].name.clone()));
                            stmt.kind = StmtKind::Empty;
                        }
                    }
                }
            }
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Goto(_)
            | StmtKind::Empty
            | StmtKind::Error => {}
        }
    }

    fn type_name(&mut self, t: &mut TypeName) {
        self.specs(&mut t.specs);
    }

    fn expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Char(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::Nullptr
            | ExprKind::This
            | ExprKind::Error => {}
            ExprKind::Name(p) => self.path(p),
            ExprKind::Unary { operand, .. } => self.expr(operand),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Assign { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Conditional { cond, then, els } => {
                self.expr(cond);
                self.expr(then);
                self.expr(els);
            }
            ExprKind::Cast { ty, operand, .. } => {
                self.type_name(ty);
                self.expr(operand);
            }
            ExprKind::TypeMember {
                ty, template_args, ..
            } => {
                self.type_name(ty);
                for a in template_args.iter_mut().flatten() {
                    match a {
                        TemplateArg::Type(t) => self.type_name(t),
                        TemplateArg::Expr(e) => self.expr(e),
                    }
                }
            }
            ExprKind::Construct { ty, args, .. } => {
                self.type_name(ty);
                for a in args {
                    self.expr(a);
                }
            }
            ExprKind::Call { callee, args } => {
                self.callee = matches!(&callee.kind, ExprKind::Name(p) if p.segments.len() == 1);
                self.expr(callee);
                self.callee = false;
                for a in args {
                    self.expr(a);
                }
            }
            ExprKind::Index { base, index } => {
                self.expr(base);
                self.expr(index);
            }
            ExprKind::Member {
                base,
                template_args,
                ..
            } => {
                self.expr(base);
                for a in template_args.iter_mut().flatten() {
                    match a {
                        TemplateArg::Type(t) => self.type_name(t),
                        TemplateArg::Expr(e) => self.expr(e),
                    }
                }
            }
            ExprKind::Lambda(lambda) => {
                self.locals.push(Rc::default());
                for p in &mut lambda.params {
                    self.param(p);
                }
                if let Some(t) = &mut lambda.ret {
                    self.type_name(t);
                }
                self.block(&mut lambda.body);
                self.locals.pop();
            }
            ExprKind::InitList(items) => {
                for i in items {
                    self.expr(i);
                }
            }
            ExprKind::SizeofType(t) | ExprKind::TypeidType(t) => self.type_name(t),
            ExprKind::New { ty, args, count } => {
                self.type_name(ty);
                for a in args.iter_mut().flatten() {
                    self.expr(a);
                }
                if let Some(n) = count {
                    self.expr(n);
                }
            }
            ExprKind::SizeofExpr(x)
            | ExprKind::TypeidExpr(x)
            | ExprKind::Delete { operand: x, .. } => self.expr(x),
            ExprKind::Throw(x) => {
                if let Some(x) = x {
                    self.expr(x);
                }
            }
        }
    }
}

fn unknown_namespace(name: &str, span: Span) -> Diagnostic {
    Diagnostic::error(codes::E0244, span, format!("`{name}` is not a namespace"))
        .with_label("no namespace of this name is declared here")
        .with_help("declare the namespace first, or check the spelling")
        .with_msvc("C2653")
}
