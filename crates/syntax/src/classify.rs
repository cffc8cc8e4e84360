//! Resolves the two context-dependent questions of C++ tokens that an LR(1)
//! grammar cannot answer, so the parser sees them as different tokens:
//!
//! - does this `<` open a template argument list (`extent<2>`, `.tile<2, 3>()`,
//!   `static_cast<float>`) or compare (`index < n`)?
//! - does this identifier name a type (`Description d;`, `tile_barrier b`) or a
//!   value?
//!
//! The Tessera language has no user-defined templates, so the template names
//! are the library's; type names are the library's classes plus every
//! `struct`/`class`/`enum` and every alias (`typedef`, `using name = T;`)
//! declared earlier in the file (the classic "lexer hack": C++ requires a type
//! to be declared before use).

use crate::lexer::Token;
use crate::token::Tok;
// Sets keyed by identifiers and token positions, probed for nearly every
// token: FxHash is several times cheaper than the default SipHash, and
// nothing here is keyed by input an attacker could choose to collide
// (a compile is one program, run once).
use rustc_hash::FxHashSet as HashSet;

/// Class templates of the library, usable as `name<args>`.
pub const TEMPLATE_NAMES: &[&str] = &[
    "array",
    "array_view",
    "extent",
    "index",
    "tiled_extent",
    "tiled_index",
    "vector",
    "deque",
    "list",
    "set",
    "multiset",
    "unordered_set",
    "unordered_multiset",
    "tuple",
    "shared_future",
    "task",
    "uniform_int_distribution",
    "uniform_real_distribution",
    "normal_distribution",
    "__iterator",
    "__const_iterator",
    "__reverse_iterator",
    "__const_reverse_iterator",
    "__remove_const",
    "__remove_volatile",
    "__remove_cv",
    "__is_same",
];

/// Member function templates called with explicit arguments: `e.tile<2, 3>()`.
const MEMBER_TEMPLATES: &[&str] = &["tile", "reinterpret_as"];

/// Library classes that are not templates.
pub const CLASS_NAMES: &[&str] = &[
    "tile_barrier",
    // A fundamental type C++ has and Tessera does not: a name, so that the
    // checker can say so (and C3581 in amp code).
    "wchar_t",
    "accelerator",
    "accelerator_view",
    "access_type",
    "completion_future",
    "runtime_exception",
    "invalid_compute_domain",
    "out_of_memory",
    "unsupported_feature",
    "size_t",
    "ptrdiff_t",
    "clock_t",
    "time_t",
    // `std::streamsize` and `std::ios::fmtflags`, what the format members
    // of a stream take and answer.
    "streamsize",
    "fmtflags",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "string",
    "ostream",
    "stringstream",
    "istringstream",
    "ostringstream",
    "wstringstream",
    "wistringstream",
    "wostringstream",
    "wostream",
    "istream",
    "wistream",
    "mt19937",
    "mt19937_64",
    "minstd_rand0",
    "minstd_rand",
    "default_random_engine",
    "bernoulli_distribution",
    "random_device",
];

/// Library classes named only as `std::name`: common words (`exception`)
/// that a program may also use for its own variables.
pub const STD_CLASS_NAMES: &[&str] = &["wstring", "exception"];

/// Whether `name` is one of [`CLASS_NAMES`]: asked for nearly every
/// identifier, so through a hash set rather than a scan of the list.
fn is_class_name(name: &str) -> bool {
    static SET: std::sync::OnceLock<HashSet<&'static str>> = std::sync::OnceLock::new();
    SET.get_or_init(|| CLASS_NAMES.iter().copied().collect())
        .contains(name)
}

/// Class templates of the library written in the Tessera language
/// (`crate::headers`) whose names programs also use for their own
/// variables (`auto pair = ...`): the name is a type only inside the class's
/// own definition (for its constructors), and a template wherever `<`
/// follows it (`std::pair<int, int>`).
const LIBRARY_TEMPLATE_NAMES: &[&str] = &["pair"];

/// How far a template argument list may reach before `<` is taken as "less than".
const MAX_TEMPLATE_SCAN: usize = 512;

/// The names declared so far that decide how later tokens read.
#[derive(Clone, Debug, Default)]
pub struct KnownNames {
    /// Struct, class, enumeration and alias names, and template type parameters.
    pub types: HashSet<String>,
    /// Names of the user's class and function templates.
    pub templates: HashSet<String>,
}

/// Classifies `tokens` in place. `known` holds the names declared by
/// earlier inputs (the REPL); names declared here are added to it.
pub fn classify<'s>(tokens: &mut Vec<Token<'s>>, known: &mut KnownNames) {
    mark_virt_specifiers(tokens);
    drop_elaborating_keywords(tokens);
    join_used_operators(tokens);
    join_called_operators(tokens);
    crate::limits::rewrite(tokens);
    crate::member_types::rewrite(tokens);
    crate::class_forms::rewrite(tokens);
    drop_template_disambiguators(tokens);
    drop_typename_qualifiers(tokens);
    restrict_as_name(tokens);
    mark_parenthesised_decltype(tokens);
    let KnownNames {
        types: known_types,
        templates,
    } = known;
    let mut splits = Vec::new();
    // Positions of the names a `typedef` declares.
    let mut alias_names: HashSet<usize> = HashSet::default();
    // Where a library class template's definition ends, and its name.
    let mut definition_ends: Vec<(usize, &str)> = Vec::new();
    for i in 0..tokens.len() {
        // A template's type parameters, and a library class template's
        // name, stop naming types where their declaration ends.
        if !definition_ends.is_empty() {
            definition_ends.retain(|&(end, name)| {
                if end == i {
                    known_types.remove(name);
                }
                end != i
            });
        }
        if !alias_names.is_empty()
            && alias_names.remove(&i)
            && let Tok::Ident(name) = tokens[i].tok
        {
            known_types.insert(name.to_string());
            continue;
        }
        let prev = i.checked_sub(1).map(|p| tokens[p].tok);
        let next = tokens.get(i + 1).map(|t| t.tok);
        match tokens[i].tok {
            Tok::Template if next == Some(Tok::Lt) => {
                template_header(
                    tokens,
                    i + 1,
                    known_types,
                    templates,
                    &mut splits,
                    &mut definition_ends,
                );
            }
            Tok::Struct | Tok::Class | Tok::Union => {
                if let Some(Tok::Ident(name)) = next {
                    known_types.insert(name.to_string());
                    if LIBRARY_TEMPLATE_NAMES.contains(&name) {
                        match definition_end(tokens, i) {
                            Some(end) => definition_ends.push((end, name)),
                            None => {
                                known_types.remove(name);
                            }
                        }
                    }
                }
            }
            Tok::Typedef => typedef_names(tokens, i, &mut alias_names),
            // `using name = T;` and `enum name`, `enum class name`.
            Tok::Ident(name)
                if (prev == Some(Tok::Using) && next == Some(Tok::Assign))
                    || prev == Some(Tok::Enum) =>
            {
                known_types.insert(name.to_string());
            }
            Tok::Ident(name) => {
                // `auto f(int x) -> T {`: a trailing return type, not a
                // member access (which no `{`, `;` or declarator follows).
                let trailing_return = prev == Some(Tok::Arrow)
                    && i >= 2
                    && matches!(tokens[i - 2].tok, Tok::RParen | Tok::Const)
                    && matches!(
                        next,
                        Some(
                            Tok::LBrace
                                | Tok::Semi
                                | Tok::Amp
                                | Tok::AndAnd
                                | Tok::Star
                                | Tok::Lt
                                | Tok::ColonColon
                        )
                    );
                let after_member = matches!(prev, Some(Tok::Dot | Tok::Arrow)) && !trailing_return;
                let declaring = matches!(
                    prev,
                    Some(Tok::Struct | Tok::Class | Tok::Union | Tok::Typename)
                );
                if next == Some(Tok::Lt) {
                    // `std::get<0>(t)`: the library's one function template
                    // called with explicit arguments, named through `std::`.
                    let std_get = name == "get"
                        && prev == Some(Tok::ColonColon)
                        && i >= 2
                        && tokens[i - 2].tok == Tok::Ident("std");
                    // `copy<int, 1>(src, dst)`: concurrency's copy with
                    // its element type and rank given.
                    let amp_copy = matches!(name, "copy" | "copy_async")
                        && match tokens.get(i + 2).map(|t| t.tok) {
                            Some(Tok::Ident(n)) => known_types.contains(n) || is_class_name(n),
                            other => starts_type(other),
                        };
                    let is_template = if after_member {
                        MEMBER_TEMPLATES.contains(&name) || templates.contains(name)
                    } else {
                        TEMPLATE_NAMES.contains(&name)
                            || templates.contains(name)
                            || std_get
                            || amp_copy
                    };
                    if is_template && mark_template_args(tokens, i + 1, &mut splits, templates) {
                        if !after_member {
                            tokens[i].tok = Tok::TemplateName(name);
                        }
                        continue;
                    }
                }
                let std_qualified = prev == Some(Tok::ColonColon)
                    && i >= 2
                    && tokens[i - 2].tok == Tok::Ident("std")
                    && STD_CLASS_NAMES.contains(&name);
                if !after_member
                    && !declaring
                    && (std_qualified || is_class_name(name) || known_types.contains(name))
                {
                    tokens[i].tok = Tok::TypeName(name);
                }
            }
            Tok::StaticCast | Tok::ConstCast | Tok::ReinterpretCast | Tok::DynamicCast
                if next == Some(Tok::Lt) =>
            {
                mark_template_args(tokens, i + 1, &mut splits, templates);
            }
            _ => {}
        }
    }
    mark_class_qualifiers(tokens);
    mark_qualifiers(tokens);
    if !splits.is_empty() {
        split_shifts(tokens, &splits);
    }
    mark_specialised_functions(tokens);
    join_delete_array(tokens);
    // Declarator parentheses first: `T f(T (*g)(T));` declares a function
    // whose parameter is a function pointer, not a variable built from
    // `T(*g)`.
    mark_declarator_parens(tokens);
    mark_init_parens(tokens);
    mark_local_function_declarations(tokens);
}

/// Drops the class-key of an elaborated type specifier (`struct S s;`,
/// `class C* p`, `enum E e`, `(struct S)x`, `struct S (*f)()`): `struct S`
/// names what `S` names (a class C++ would declare there, never defined,
/// stays an unknown name, which Tessera reports). The keyword stays
/// where it declares or defines (`struct S {`, `struct S final`, `class
/// S;`, `friend class S;`, `enum class E`) and in a template parameter list
/// (`template <class T>`, whose next token is `>`, `,` or `=`).
fn drop_elaborating_keywords(tokens: &mut Vec<Token<'_>>) {
    let elaborates = |i: usize, tokens: &[Token<'_>]| {
        let tok = |k: usize| tokens.get(k).map(|t| t.tok);
        matches!(
            tokens[i].tok,
            Tok::Struct | Tok::Class | Tok::Union | Tok::Enum
        ) && !(i > 0 && tokens[i - 1].tok == Tok::Enum)
            && matches!(tok(i + 1), Some(Tok::Ident(_)))
            && matches!(
                tok(i + 2),
                Some(
                    Tok::Ident(_)
                        | Tok::Star
                        | Tok::Amp
                        | Tok::AndAnd
                        | Tok::RParen
                        | Tok::LParen
                        | Tok::Const
                        | Tok::Volatile
                )
            )
            && tok(i + 2) != Some(Tok::Ident("final"))
    };
    if !(0..tokens.len()).any(|i| elaborates(i, tokens)) {
        return;
    }
    let keep: Vec<bool> = (0..tokens.len()).map(|i| !elaborates(i, tokens)).collect();
    let mut k = keep.iter();
    tokens.retain(|_| k.next().copied().unwrap_or(true));
}

/// Whether `tok` is a fundamental type keyword or a cv-qualifier.
fn is_type_keyword(tok: Tok<'_>) -> bool {
    matches!(
        tok,
        Tok::Void
            | Tok::Bool
            | Tok::CharKw
            | Tok::Short
            | Tok::IntKw
            | Tok::Long
            | Tok::Signed
            | Tok::Unsigned
            | Tok::FloatKw
            | Tok::Double
            | Tok::Const
            | Tok::Volatile
    )
}

/// Marks the `(` of `T name(params);` in a block as [`Tok::DeclParen`] when
/// C++ reads the statement as a function declaration ("the most vexing
/// parse"): the parentheses are empty (`S s();`) or begin a parameter
/// declaration (`S f(int(a))`, `int g(float x)`), and a `;`, `restrict` or
/// exception specification follows them. Only simple declaration
/// specifiers are looked through (type keywords, a class name, `struct S`);
/// a template instance or a qualified name keeps the variable reading.
fn mark_local_function_declarations(tokens: &mut [Token<'_>]) {
    fn tok<'s>(tokens: &[Token<'s>], k: usize) -> Option<Tok<'s>> {
        tokens.get(k).map(|t| t.tok)
    }
    // For each open brace: whether it holds statements (a function body or
    // block, not a namespace or class body).
    let mut braces: Vec<bool> = Vec::new();
    for i in 0..tokens.len() {
        match tokens[i].tok {
            Tok::LBrace => {
                let mut j = i;
                let mut statements = true;
                while j > 0 {
                    j -= 1;
                    match tokens[j].tok {
                        Tok::Semi | Tok::LBrace | Tok::RBrace | Tok::RParen => break,
                        Tok::Struct
                        | Tok::Class
                        | Tok::Union
                        | Tok::Enum
                        | Tok::Namespace
                        | Tok::Extern
                        | Tok::Assign => {
                            statements = false;
                            break;
                        }
                        _ => {}
                    }
                }
                braces.push(statements);
            }
            Tok::RBrace => {
                braces.pop();
            }
            Tok::LParen if braces.last() == Some(&true) && i >= 2 => {
                if !matches!(tokens[i - 1].tok, Tok::Ident(_)) {
                    continue;
                }
                // The declaration specifiers and pointer/reference marks
                // before the name, back to the start of the statement.
                let mut j = i - 1;
                let mut typed = false;
                while j > 0 {
                    let t = tokens[j - 1].tok;
                    if is_type_keyword(t) || matches!(t, Tok::TypeName(_)) {
                        typed |= !matches!(t, Tok::Const | Tok::Volatile);
                    } else if matches!(t, Tok::Ident(_))
                        && j >= 2
                        && matches!(tokens[j - 2].tok, Tok::Struct | Tok::Class | Tok::Enum)
                    {
                        typed = true;
                        j -= 1;
                    } else if !matches!(t, Tok::Star | Tok::Amp | Tok::AndAnd | Tok::Static) {
                        break;
                    }
                    j -= 1;
                }
                let at_start = j == 0
                    || matches!(
                        tokens[j - 1].tok,
                        Tok::Semi | Tok::LBrace | Tok::RBrace | Tok::Colon
                    );
                if !typed || !at_start || !starts_parameters(&tokens[i + 1..]) {
                    continue;
                }
                // The matching `)` must end the declarator.
                let mut depth = 0usize;
                let mut k = i;
                while let Some(t) = tok(tokens, k) {
                    match t {
                        Tok::LParen | Tok::DeclParen | Tok::InitParen => depth += 1,
                        Tok::RParen => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                break;
                            }
                        }
                        Tok::Semi | Tok::LBrace | Tok::RBrace => break,
                        _ => {}
                    }
                    k += 1;
                }
                if tok(tokens, k) != Some(Tok::RParen) {
                    continue;
                }
                // Past a `restrict(...)` clause: a declaration ends there; a
                // definition's body would follow.
                let mut end = k + 1;
                if tok(tokens, end) == Some(Tok::Restrict) {
                    while tok(tokens, end).is_some_and(|t| t != Tok::RParen && t != Tok::Semi) {
                        end += 1;
                    }
                    end += 1;
                }
                if matches!(tok(tokens, end), Some(Tok::Semi | Tok::Throw)) {
                    tokens[i].tok = Tok::DeclParen;
                }
            }
            _ => {}
        }
    }
}

/// Whether `rest` (after a `(`) is an empty parameter list or begins a
/// parameter declaration rather than an expression: a type keyword not
/// used as a functional cast (`int(a)` and `int()` declare, `int(2)` is a
/// value), or a class name followed by what a declarator starts with.
fn starts_parameters(rest: &[Token<'_>]) -> bool {
    let tok = |k: usize| rest.get(k).map(|t| t.tok);
    match tok(0) {
        Some(Tok::RParen) => true,
        Some(Tok::Struct | Tok::Class | Tok::Enum) => true,
        Some(t) if is_type_keyword(t) => {
            let mut k = 1;
            while tok(k).is_some_and(is_type_keyword) {
                k += 1;
            }
            match tok(k) {
                // `int(a)`: a parameter named in parentheses; `int()`: a
                // parameter of function type.
                Some(Tok::LParen) => {
                    matches!(tok(k + 1), Some(Tok::RParen))
                        || (matches!(tok(k + 1), Some(Tok::Ident(_)))
                            && tok(k + 2) == Some(Tok::RParen))
                }
                _ => true,
            }
        }
        Some(Tok::TypeName(_)) => matches!(
            tok(1),
            Some(
                Tok::Ident(_)
                    | Tok::Star
                    | Tok::Amp
                    | Tok::AndAnd
                    | Tok::Comma
                    | Tok::RParen
                    | Tok::Const
            )
        ),
        _ => false,
    }
}

/// Marks the `(` of a function declarator (`int (*p)(int)`, `void
/// (&r)(float)`, `int (C::*pm)(int)`, `int (*)(int)` in a cast or a
/// template argument) as [`Tok::DeclParen`]: after a type (through `*`,
/// `&` and `const`), a parenthesised `*`/`&` with at most a name and array
/// bounds, followed by a parameter list. C++ reads these as declarations
/// too; one token of lookahead could not tell `int (*p)` from the
/// functional cast `int(*p)`.
fn mark_declarator_parens(tokens: &mut [Token<'_>]) {
    fn tok<'s>(tokens: &[Token<'s>], k: usize) -> Option<Tok<'s>> {
        tokens.get(k).map(|t| t.tok)
    }
    for i in 1..tokens.len() {
        if tokens[i].tok != Tok::LParen {
            continue;
        }
        let mut j = i - 1;
        while j > 0
            && matches!(
                tokens[j].tok,
                Tok::Star | Tok::Amp | Tok::AndAnd | Tok::Const
            )
        {
            j -= 1;
        }
        let after_type = matches!(
            tokens[j].tok,
            Tok::Void
                | Tok::Bool
                | Tok::CharKw
                | Tok::Short
                | Tok::IntKw
                | Tok::Long
                | Tok::Signed
                | Tok::Unsigned
                | Tok::FloatKw
                | Tok::Double
                | Tok::Auto
                | Tok::TypeName(_)
                | Tok::TplClose
        );
        if !after_type || closes_cast(tokens, j) {
            continue;
        }
        let mut k = i + 1;
        if matches!(tok(tokens, k), Some(Tok::ClassQual(_)))
            && tok(tokens, k + 1) == Some(Tok::ColonColon)
            && tok(tokens, k + 2) == Some(Tok::Star)
        {
            k += 1 + 1;
        }
        let first = k;
        while matches!(
            tok(tokens, k),
            Some(Tok::Star | Tok::Amp | Tok::AndAnd | Tok::Const)
        ) {
            k += 1;
        }
        if k == first || !matches!(tok(tokens, first), Some(Tok::Star | Tok::Amp | Tok::AndAnd)) {
            continue;
        }
        if matches!(tok(tokens, k), Some(Tok::Ident(_))) {
            k += 1;
        }
        // Array bounds: `int (*ops[3])(int)`, within a bounded look ahead.
        let limit = k + MAX_TEMPLATE_SCAN;
        while tok(tokens, k) == Some(Tok::LBracket) && k < limit {
            let mut depth = 0usize;
            while let Some(t) = tok(tokens, k) {
                match t {
                    Tok::LBracket => depth += 1,
                    Tok::RBracket => depth = depth.saturating_sub(1),
                    Tok::Semi | Tok::LBrace | Tok::RBrace => break,
                    _ => {}
                }
                k += 1;
                if depth == 0 || k >= limit {
                    break;
                }
            }
        }
        if tok(tokens, k) == Some(Tok::RParen) && tok(tokens, k + 1) == Some(Tok::LParen) {
            tokens[i].tok = Tok::DeclParen;
        }
    }
}

/// Whether the token at `at` is the `>` closing the type of a named cast
/// (`static_cast<F&>(*p)(x)` calls what the cast makes).
fn closes_cast(tokens: &[Token<'_>], at: usize) -> bool {
    if tokens[at].tok != Tok::TplClose {
        return false;
    }
    let mut depth = 0usize;
    for k in (0..=at).rev().take(MAX_TEMPLATE_SCAN) {
        match tokens[k].tok {
            Tok::TplClose => depth += 1,
            Tok::TplOpen => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k > 0
                        && matches!(
                            tokens[k - 1].tok,
                            Tok::StaticCast
                                | Tok::ConstCast
                                | Tok::ReinterpretCast
                                | Tok::DynamicCast
                        );
                }
            }
            _ => {}
        }
    }
    false
}

/// Marks the `(` of `T name(args);` at namespace scope as [`Tok::InitParen`]
/// when its first argument cannot begin a parameter declaration (a literal,
/// a name that is not a type, `Class::member`, an operator): C++ reads such
/// a declaration as a variable with constructor arguments, and one token of
/// lookahead could not tell it from a function declaration.
fn mark_init_parens(tokens: &mut [Token<'_>]) {
    // For each open brace: whether it is a namespace body.
    let mut braces: Vec<bool> = Vec::new();
    for i in 0..tokens.len() {
        match tokens[i].tok {
            Tok::LBrace => {
                let mut j = i;
                while j > 0
                    && matches!(
                        tokens[j - 1].tok,
                        Tok::Ident(_) | Tok::NsQual(_) | Tok::ColonColon
                    )
                {
                    j -= 1;
                }
                braces.push(j > 0 && tokens[j - 1].tok == Tok::Namespace);
            }
            Tok::RBrace => {
                braces.pop();
            }
            Tok::LParen if braces.iter().all(|b| *b) && i >= 2 => {
                // The name follows a type, possibly through `*`, `&` and
                // `const` (`a * f(2)` in an initialiser is no declaration).
                let mut j = i - 2;
                while j > 0 && matches!(tokens[j].tok, Tok::Star | Tok::Amp | Tok::Const) {
                    j -= 1;
                }
                let declares = matches!(tokens[i - 1].tok, Tok::Ident(_))
                    && matches!(tokens[j].tok, Tok::TypeName(_) | Tok::TplClose);
                if declares && starts_argument(&tokens[i + 1..]) {
                    tokens[i].tok = Tok::InitParen;
                }
            }
            _ => {}
        }
    }
}

/// Whether `rest` (after a `(`) begins with an expression that cannot be
/// the start of a parameter declaration.
fn starts_argument(rest: &[Token<'_>]) -> bool {
    let tok = |k: usize| rest.get(k).map(|t| t.tok);
    match tok(0) {
        Some(
            Tok::Int(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::Char(_)
            | Tok::True
            | Tok::False
            | Tok::Nullptr
            | Tok::Minus
            | Tok::Bang
            | Tok::Tilde
            | Tok::Amp
            | Tok::Star
            | Tok::LParen,
        ) => true,
        // A variable, enumerator or function: type names were classified.
        Some(Tok::Ident(_)) => true,
        // `accelerator::cpu_accelerator`: a member that is not a type.
        Some(Tok::TypeName(_) | Tok::ClassQual(_)) if tok(1) == Some(Tok::ColonColon) => {
            matches!(tok(2), Some(Tok::Ident(_)))
        }
        // `Counter(7, 1)`: a temporary built from arguments (with `()` or a
        // type inside, it would declare a parameter of function type).
        Some(Tok::TypeName(_)) if tok(1) == Some(Tok::LParen) => {
            rest.get(2..).is_some_and(starts_argument)
        }
        _ => false,
    }
}

/// Drops the `template` of `e.template tile<4>()`, `p->template f<T>()` and
/// `N::template C<T>`: C++ requires it to read a dependent member as a
/// template, and this classifier already knows which members are templates,
/// so it carries nothing the parser needs.
fn drop_template_disambiguators(tokens: &mut Vec<Token<'_>>) {
    let is_disambiguator = |i: usize, tokens: &[Token<'_>]| {
        tokens[i].tok == Tok::Template
            && i > 0
            && matches!(tokens[i - 1].tok, Tok::Dot | Tok::Arrow | Tok::ColonColon)
            && matches!(tokens.get(i + 1).map(|t| t.tok), Some(Tok::Ident(_)))
    };
    if !(0..tokens.len()).any(|i| is_disambiguator(i, tokens)) {
        return;
    }
    let keep: Vec<bool> = (0..tokens.len())
        .map(|i| !is_disambiguator(i, tokens))
        .collect();
    let mut k = keep.iter();
    tokens.retain(|_| k.next().copied().unwrap_or(true));
}

/// `typename C::value_type`: the keyword says that the last name of the
/// qualified name is a type, which nothing declared may say for a member of
/// a template parameter. That name becomes a type name and the keyword is
/// dropped; the checker looks the member up once `C` is bound (a class's
/// member alias, a container's element type). Names with template
/// arguments in the chain are left as written (the library's are
/// rewritten by `member_types`).
fn drop_typename_qualifiers(tokens: &mut Vec<Token<'_>>) {
    fn tok<'s>(tokens: &[Token<'s>], k: usize) -> Option<Tok<'s>> {
        tokens.get(k).map(|t| t.tok)
    }
    let mut drop = Vec::new();
    for i in 0..tokens.len() {
        if tokens[i].tok != Tok::Typename
            || !matches!(tok(tokens, i + 1), Some(Tok::Ident(_) | Tok::TypeName(_)))
            || tok(tokens, i + 2) != Some(Tok::ColonColon)
        {
            continue;
        }
        let mut k = i + 1;
        while matches!(tok(tokens, k), Some(Tok::Ident(_) | Tok::TypeName(_)))
            && tok(tokens, k + 1) == Some(Tok::ColonColon)
        {
            k += 2;
        }
        if matches!(tok(tokens, k + 1), Some(Tok::Lt | Tok::ColonColon)) {
            continue;
        }
        if let Some(Tok::Ident(name)) = tok(tokens, k) {
            tokens[k].tok = Tok::TypeName(name);
        }
        if matches!(tok(tokens, k), Some(Tok::TypeName(_))) {
            drop.push(i);
        }
    }
    if drop.is_empty() {
        return;
    }
    let mut keep = vec![true; tokens.len()];
    for i in drop {
        keep[i] = false;
    }
    let mut k = keep.iter();
    tokens.retain(|_| k.next().copied().unwrap_or(true));
}

/// True when `tok` can only start a type: a type keyword or a type name.
fn starts_type(tok: Option<Tok<'_>>) -> bool {
    matches!(
        tok,
        Some(
            Tok::TypeName(_)
                | Tok::Const
                | Tok::Void
                | Tok::Bool
                | Tok::CharKw
                | Tok::Short
                | Tok::IntKw
                | Tok::Long
                | Tok::Signed
                | Tok::Unsigned
                | Tok::FloatKw
                | Tok::Double
        )
    )
}

/// `decltype((x))` names the type of the expression `(x)` (an lvalue gives
/// `T&`), `decltype(x)` the declared type of `x`. The parser drops
/// parentheses around an expression, so the difference is marked here: a
/// `decltype` whose operand is wholly enclosed in a second pair of
/// parentheses becomes [`Tok::DecltypeParen`].
fn mark_parenthesised_decltype(tokens: &mut [Token<'_>]) {
    for i in 0..tokens.len() {
        if tokens[i].tok != Tok::Decltype
            || tokens.get(i + 1).map(|t| t.tok) != Some(Tok::LParen)
            || tokens.get(i + 2).map(|t| t.tok) != Some(Tok::LParen)
        {
            continue;
        }
        // The `)` closing the inner `(`: the operand is parenthesised when
        // the outer `)` follows it at once.
        let mut depth = 0usize;
        for k in i + 2..tokens.len() {
            match tokens[k].tok {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        if tokens.get(k + 1).map(|t| t.tok) == Some(Tok::RParen) {
                            tokens[i].tok = Tok::DecltypeParen;
                        }
                        break;
                    }
                }
                Tok::Semi | Tok::LBrace | Tok::RBrace => break,
                _ => {}
            }
        }
    }
}

/// `override` and `final` are keywords only after a member function's
/// declarator (`int f() const override;`) and, for `final`, after the name
/// of a class being defined (`struct Leaf final : Base {`); anywhere else
/// they are ordinary names. `noexcept` after a declarator promises no
/// exception, which changes nothing Tessera runs: it is dropped there,
/// with its operand (`noexcept(true)`).
fn mark_virt_specifiers(tokens: &mut Vec<Token<'_>>) {
    let mut drop = vec![false; tokens.len()];
    for i in 0..tokens.len() {
        let prev = i.checked_sub(1).map(|p| tokens[p].tok);
        let next = tokens.get(i + 1).map(|t| t.tok);
        let after_declarator = matches!(
            prev,
            Some(Tok::RParen | Tok::Const | Tok::Volatile | Tok::Override | Tok::Final)
        );
        match tokens[i].tok {
            Tok::Ident("noexcept") if after_declarator || (i > 0 && drop[i - 1]) => {
                drop[i] = true;
                if next == Some(Tok::LParen) {
                    let mut depth = 0usize;
                    for (k, t) in tokens.iter().enumerate().skip(i + 1) {
                        match t.tok {
                            Tok::LParen => depth += 1,
                            Tok::RParen => depth = depth.saturating_sub(1),
                            Tok::Semi | Tok::LBrace | Tok::RBrace => break,
                            _ => {}
                        }
                        drop[k] = true;
                        if depth == 0 {
                            break;
                        }
                    }
                }
            }
            Tok::Ident(word @ ("override" | "final")) => {
                // A dropped `noexcept` stands where a declarator ended.
                let after = after_declarator || (i > 0 && drop[i - 1]);
                let ends_declaration = matches!(
                    next,
                    Some(
                        Tok::LBrace
                            | Tok::Semi
                            | Tok::Assign
                            | Tok::Ident("override" | "final")
                            | Tok::Restrict
                    )
                );
                let class_head = word == "final"
                    && i >= 2
                    && matches!(tokens[i - 2].tok, Tok::Struct | Tok::Class | Tok::Union)
                    && matches!(prev, Some(Tok::Ident(_) | Tok::TypeName(_)))
                    && matches!(next, Some(Tok::Colon | Tok::LBrace));
                if (after && ends_declaration) || class_head {
                    tokens[i].tok = if word == "final" {
                        Tok::Final
                    } else {
                        Tok::Override
                    };
                }
            }
            _ => {}
        }
    }
    if drop.iter().any(|d| *d) {
        let mut k = drop.iter();
        tokens.retain(|_| !k.next().copied().unwrap_or(false));
    }
}

/// `restrict` is a contextual keyword in C++ AMP: it is the restriction
/// specifier only right after a function's or lambda's parameter list (and
/// its `const`, `volatile` or `mutable`), before `(`; anywhere else it is an
/// ordinary name (`int restrict = 2;`, `class restrict`, `f.restrict()`).
fn restrict_as_name(tokens: &mut [Token<'_>]) {
    for i in 0..tokens.len() {
        if tokens[i].tok != Tok::Restrict {
            continue;
        }
        let after_declarator = i > 0
            && matches!(
                tokens[i - 1].tok,
                Tok::RParen | Tok::Const | Tok::Volatile | Tok::Mutable
            );
        let opens = tokens.get(i + 1).is_some_and(|t| t.tok == Tok::LParen);
        if !(after_declarator && opens) {
            tokens[i].tok = Tok::Ident("restrict");
        }
    }
}

/// The name of an operator function as one identifier, for a
/// using-declaration: `operator<<`.
fn operator_name(tok: Tok<'_>) -> Option<&'static str> {
    Some(match tok {
        Tok::Shl => "operator<<",
        Tok::Shr => "operator>>",
        Tok::EqEq => "operator==",
        Tok::NotEq => "operator!=",
        Tok::Lt => "operator<",
        Tok::Gt => "operator>",
        Tok::Le => "operator<=",
        Tok::Ge => "operator>=",
        Tok::Plus => "operator+",
        Tok::Minus => "operator-",
        Tok::Star => "operator*",
        Tok::Slash => "operator/",
        Tok::Percent => "operator%",
        _ => return None,
    })
}

/// `operator+(a, b)` called by name in an expression (after `=`, `(`, `,`,
/// `return`, ...): the operator's name becomes one identifier, so the call
/// reads as any other. A declaration's `operator+` follows its return type
/// instead.
fn join_called_operators(tokens: &mut Vec<Token<'_>>) {
    let mut i = 1;
    while i + 2 < tokens.len() {
        let in_expression = matches!(
            tokens[i - 1].tok,
            Tok::Assign
                | Tok::LParen
                | Tok::Comma
                | Tok::Return
                | Tok::Question
                | Tok::Bang
                | Tok::AndAnd
                | Tok::OrOr
        );
        if in_expression
            && tokens[i].tok == Tok::Operator
            && tokens[i + 2].tok == Tok::LParen
            && let Some(name) = operator_name(tokens[i + 1].tok)
        {
            tokens[i].tok = Tok::Ident(name);
            tokens[i].end = tokens[i + 1].end;
            tokens.remove(i + 1);
        }
        i += 1;
    }
}

/// `using ns::operator<<;`: the operator's name becomes one identifier, so
/// the using-declaration reads as any other (`using ns::name;`).
fn join_used_operators(tokens: &mut Vec<Token<'_>>) {
    let mut i = 0;
    while i + 3 < tokens.len() {
        let joined = tokens[i].tok == Tok::ColonColon
            && tokens[i + 1].tok == Tok::Operator
            && tokens[i + 3].tok == Tok::Semi
            && operator_name(tokens[i + 2].tok).is_some()
            && {
                // Back over `a::b` to the `using` that starts the declaration.
                let mut j = i;
                while j > 0 && matches!(tokens[j - 1].tok, Tok::Ident(_) | Tok::ColonColon) {
                    j -= 1;
                }
                j > 0 && tokens[j - 1].tok == Tok::Using
            };
        if let Some(name) = operator_name(tokens[i + 2].tok).filter(|_| joined) {
            tokens[i + 1].tok = Tok::Ident(name);
            tokens[i + 1].end = tokens[i + 2].end;
            tokens.remove(i + 2);
        }
        i += 1;
    }
}

/// `delete [ ]` becomes one `delete[]` token: after `delete`, a `[` could
/// also open a lambda's captures, which one token of lookahead cannot tell
/// apart (C++ reads `delete []` as the array form, so does Tessera).
fn join_delete_array(tokens: &mut Vec<Token<'_>>) {
    let joined = tokens
        .windows(3)
        .any(|w| w[0].tok == Tok::Delete && w[1].tok == Tok::LBracket && w[2].tok == Tok::RBracket);
    if !joined {
        return;
    }
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        if t.tok == Tok::Delete
            && tokens.get(i + 1).map(|t| t.tok) == Some(Tok::LBracket)
            && let Some(close) = tokens.get(i + 2).filter(|t| t.tok == Tok::RBracket)
        {
            out.push(Token {
                tok: Tok::DeleteArray,
                start: t.start,
                end: close.end.max(t.end),
            });
            i += 3;
            continue;
        }
        out.push(t);
        i += 1;
    }
    *tokens = out;
}

/// Reads the parameter list of `template <...>` opening at `open`: marks its
/// brackets and those nested in it (template template parameters
/// `template <typename, int> class C`, defaults `= std::allocator<T>`, a
/// `>>` closing two lists recorded in `splits`), declares its type
/// parameters (`typename T`, `class T`) as type names and its template
/// template parameters as template names, and declares the name of the
/// template that follows (the class after `struct`/`class`, or the function
/// before the first `(`).
/// The position of the `}` that ends the class definition whose key
/// (`struct`) is at `key`, if a body follows its name.
fn definition_end(tokens: &[Token<'_>], key: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(key + 2) {
        match t.tok {
            Tok::LBrace => depth += 1,
            Tok::RBrace => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            Tok::Semi if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

fn template_header<'s>(
    tokens: &mut [Token<'s>],
    open: usize,
    known_types: &mut HashSet<String>,
    templates: &mut HashSet<String>,
    splits: &mut Vec<usize>,
    scoped: &mut Vec<(usize, &'s str)>,
) {
    // The type parameters this header makes type names, to be forgotten
    // where the template's declaration ends.
    let mut params: Vec<&'s str> = Vec::new();
    let end = tokens.len().min(open + MAX_TEMPLATE_SCAN);
    let mut opens: Vec<usize> = Vec::new();
    let mut all_opens: Vec<usize> = Vec::new();
    let mut closes: Vec<usize> = Vec::new();
    let mut double_closes: Vec<usize> = Vec::new();
    let mut names: Vec<usize> = Vec::new();
    let mut close = None;
    for k in open..end {
        match tokens[k].tok {
            Tok::Lt => {
                if k > open && matches!(tokens[k - 1].tok, Tok::Ident(_)) {
                    names.push(k - 1);
                }
                opens.push(k);
                all_opens.push(k);
            }
            Tok::Gt => {
                opens.pop();
                closes.push(k);
            }
            Tok::Shr if opens.len() >= 2 => {
                opens.pop();
                opens.pop();
                double_closes.push(k);
            }
            Tok::Semi | Tok::LBrace | Tok::RBrace => return,
            Tok::Typename | Tok::Class if !opens.is_empty() => {
                if let Some(Tok::Ident(name)) = tokens.get(k + 1).map(|t| t.tok) {
                    // `template <...> class C` at the outer level: `C` takes
                    // template arguments.
                    let after_list = opens.len() == 1
                        && k > open
                        && matches!(tokens[k - 1].tok, Tok::Gt | Tok::Shr);
                    if after_list {
                        templates.insert(name.to_string());
                    } else if known_types.insert(name.to_string()) {
                        params.push(name);
                    }
                }
            }
            _ => {}
        }
        if opens.is_empty() {
            close = Some(k);
            break;
        }
    }
    let Some(close) = close else { return };
    if !params.is_empty() {
        let end = declaration_end(tokens, close + 1);
        scoped.extend(params.iter().map(|&p| (end, p)));
    }
    for &o in &all_opens {
        tokens[o].tok = Tok::TplOpen;
    }
    for &c in &closes {
        tokens[c].tok = Tok::TplClose;
    }
    for &c in &double_closes {
        tokens[c].tok = Tok::TplClose;
        splits.push(c);
    }
    for &n in &names {
        if let Tok::Ident(name) = tokens[n].tok {
            tokens[n].tok = Tok::TemplateName(name);
        }
    }
    match (
        tokens.get(close + 1).map(|t| t.tok),
        tokens.get(close + 2).map(|t| t.tok),
    ) {
        (Some(Tok::Struct | Tok::Class), Some(Tok::Ident(name) | Tok::TypeName(name))) => {
            templates.insert(name.to_string());
            if !LIBRARY_TEMPLATE_NAMES.contains(&name) {
                known_types.insert(name.to_string());
            }
        }
        _ => {
            let stop = tokens.len().min(close + MAX_TEMPLATE_SCAN);
            for k in close + 1..stop {
                match tokens[k].tok {
                    Tok::LParen => {
                        if let Some(Tok::Ident(name)) = tokens.get(k - 1).map(|t| t.tok) {
                            templates.insert(name.to_string());
                        }
                        return;
                    }
                    Tok::Semi | Tok::LBrace | Tok::RBrace => return,
                    _ => {}
                }
            }
        }
    }
}

/// The position of the token that ends the declaration starting at `from`:
/// its `;`, or the `}` closing its body (a function's or a class's); the end
/// of the input if neither comes.
fn declaration_end(tokens: &[Token<'_>], from: usize) -> usize {
    let mut braces = 0usize;
    let mut parens = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(from) {
        match t.tok {
            Tok::LParen => parens += 1,
            Tok::RParen => parens = parens.saturating_sub(1),
            Tok::LBrace => braces += 1,
            Tok::RBrace => {
                braces = braces.saturating_sub(1);
                if braces == 0 && parens == 0 {
                    return k;
                }
            }
            Tok::Semi if braces == 0 && parens == 0 => return k,
            _ => {}
        }
    }
    tokens.len()
}

/// Finds the names declared by the `typedef` at `at`: the identifiers, outside
/// brackets and template arguments, that end a declarator (followed by `,`,
/// `;` or an array bound) before the `;` that ends the declaration.
fn typedef_names(tokens: &[Token<'_>], at: usize, names: &mut HashSet<usize>) {
    let mut depth = 0i64;
    let mut start = at + 1;
    // `typedef union { ... } name;`: the name follows the class body.
    if matches!(
        tokens.get(at + 1).map(|t| t.tok),
        Some(Tok::Struct | Tok::Class | Tok::Union)
    ) && tokens.get(at + 2).map(|t| t.tok) == Some(Tok::LBrace)
    {
        let mut braces = 0usize;
        let Some(close) = (at + 2..tokens.len()).find(|&k| {
            match tokens[k].tok {
                Tok::LBrace => braces += 1,
                Tok::RBrace => braces = braces.saturating_sub(1),
                _ => {}
            }
            braces == 0
        }) else {
            return;
        };
        start = close + 1;
    }
    let end = tokens.len().min(start + MAX_TEMPLATE_SCAN);
    for k in start..end {
        match tokens[k].tok {
            Tok::LParen | Tok::LBracket | Tok::Lt => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::Gt => depth -= 1,
            Tok::Shr => depth -= 2,
            Tok::Semi | Tok::LBrace | Tok::RBrace => return,
            Tok::Ident(_)
                if depth == 0
                    && matches!(
                        tokens.get(k + 1).map(|t| t.tok),
                        Some(Tok::Comma | Tok::Semi | Tok::LBracket)
                    ) =>
            {
                names.insert(k);
            }
            // `typedef int (*Fn)(int);`: the name of a function declarator.
            Tok::Ident(_)
                if depth == 1
                    && k > 0
                    && matches!(tokens[k - 1].tok, Tok::Star | Tok::Amp)
                    && tokens.get(k + 1).map(|t| t.tok) == Some(Tok::RParen)
                    && tokens.get(k + 2).map(|t| t.tok) == Some(Tok::LParen) =>
            {
                names.insert(k);
            }
            _ => {}
        }
    }
}

/// Tries to read a template argument list opening at `open` (a `<`). On
/// success marks its `<` and `>` (and those of nested lists) and returns true.
/// `>>` closing two lists is recorded in `splits` to become two tokens.
fn mark_template_args(
    tokens: &mut [Token<'_>],
    open: usize,
    splits: &mut Vec<usize>,
    templates: &HashSet<String>,
) -> bool {
    let mut opens = vec![open];
    let mut closes: Vec<usize> = Vec::new();
    let mut double_closes: Vec<usize> = Vec::new();
    let mut nested_names: Vec<usize> = Vec::new();
    let mut parens = 0usize;
    let end = tokens.len().min(open + MAX_TEMPLATE_SCAN);
    let mut k = open + 1;
    let mut close_at = None;
    while k < end {
        let tok = tokens[k].tok;
        match tok {
            Tok::LParen | Tok::LBracket => parens += 1,
            Tok::RParen | Tok::RBracket => {
                if parens == 0 {
                    return false;
                }
                parens -= 1;
            }
            Tok::Semi | Tok::LBrace | Tok::RBrace => return false,
            _ if parens > 0 => {}
            Tok::AndAnd
            | Tok::OrOr
            | Tok::Question
            | Tok::Assign
            | Tok::PlusAssign
            | Tok::MinusAssign
            | Tok::StarAssign
            | Tok::SlashAssign
            | Tok::Str(_) => return false,
            Tok::Lt => {
                let prev_is_template = matches!(tokens[k - 1].tok,
                    Tok::Ident(n) if TEMPLATE_NAMES.contains(&n) || templates.contains(n));
                if !prev_is_template {
                    return false;
                }
                nested_names.push(k - 1);
                opens.push(k);
            }
            Tok::Gt => {
                opens.pop();
                closes.push(k);
                if opens.is_empty() {
                    close_at = Some(k);
                    break;
                }
            }
            Tok::Shr => {
                if opens.len() < 2 {
                    return false;
                }
                opens.pop();
                opens.pop();
                double_closes.push(k);
                if opens.is_empty() {
                    close_at = Some(k);
                    break;
                }
            }
            Tok::Ident(_)
            | Tok::TypeName(_)
            | Tok::Int(_)
            | Tok::Float(_)
            | Tok::Char(_)
            | Tok::True
            | Tok::False
            | Tok::Void
            | Tok::Bool
            | Tok::CharKw
            | Tok::Short
            | Tok::IntKw
            | Tok::Long
            | Tok::Signed
            | Tok::Unsigned
            | Tok::FloatKw
            | Tok::Double
            | Tok::Const
            | Tok::Volatile
            | Tok::ColonColon
            | Tok::Comma
            | Tok::Star
            | Tok::Amp
            | Tok::Plus
            | Tok::Minus
            | Tok::Slash
            | Tok::Percent
            | Tok::Shl
            | Tok::Tilde
            | Tok::Bang
            | Tok::Sizeof
            | Tok::Decltype
            | Tok::DecltypeParen
            // `static_cast<int (*)(int) restrict(cpu)>`: a function type's clause.
            | Tok::Restrict => {}
            _ => return false,
        }
        k += 1;
    }
    let Some(close) = close_at else {
        return false;
    };
    // What may follow a template-id; anything else means `<` was a comparison.
    let follows = tokens.get(close + 1).map(|t| t.tok);
    let plausible = matches!(
        follows,
        None | Some(
            Tok::LParen
                | Tok::RParen
                | Tok::LBrace
                | Tok::RBrace
                | Tok::RBracket
                | Tok::Semi
                | Tok::Comma
                | Tok::Colon
                | Tok::ColonColon
                | Tok::Dot
                | Tok::Arrow
                | Tok::Ident(_)
                | Tok::Gt
                | Tok::Shr
                | Tok::Amp
                | Tok::AndAnd
                | Tok::Star
                | Tok::EqEq
                | Tok::NotEq
                | Tok::Const
                // `Box<int> operator*(...)`: an operator function's result.
                | Tok::Operator
        )
    );
    if !plausible {
        return false;
    }
    tokens[open].tok = Tok::TplOpen;
    for &c in &closes {
        tokens[c].tok = Tok::TplClose;
    }
    for &c in &double_closes {
        tokens[c].tok = Tok::TplClose;
        splits.push(c);
    }
    for &n in &nested_names {
        if let Tok::Ident(name) = tokens[n].tok {
            tokens[n].tok = Tok::TemplateName(name);
        }
        if let Some(t) = tokens.get_mut(n + 1) {
            t.tok = Tok::TplOpen;
        }
    }
    true
}

/// The index of the `>` that closes the template argument list opened
/// right after the template name at `name` (within `MAX_TEMPLATE_SCAN`
/// tokens), if it closes.
fn template_args_end(tokens: &[Token<'_>], name: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens
        .iter()
        .enumerate()
        .skip(name + 1)
        .take(MAX_TEMPLATE_SCAN)
    {
        match t.tok {
            Tok::TplOpen => depth += 1,
            Tok::TplClose => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Marks a type name followed by `::` and a member (`Point::length`,
/// `Point::~Point`, `Point::operator+`, `Color::Red`) as [`Tok::ClassQual`],
/// so that an out-of-class definition `float Point::length()` is not read as
/// two type specifiers.
fn mark_class_qualifiers(tokens: &mut [Token<'_>]) {
    // `Matrix<T>::get`: a template-id followed by `::`.
    for i in 0..tokens.len() {
        let Tok::TemplateName(name) = tokens[i].tok else {
            continue;
        };
        if tokens.get(i + 1).map(|t| t.tok) != Some(Tok::TplOpen) {
            continue;
        }
        if let Some(k) = template_args_end(tokens, i)
            && tokens.get(k + 1).map(|t| t.tok) == Some(Tok::ColonColon)
        {
            tokens[i].tok = Tok::TemplateQual(name);
        }
    }
    for i in 0..tokens.len().saturating_sub(2) {
        if let Tok::TypeName(name) = tokens[i].tok
            && tokens[i + 1].tok == Tok::ColonColon
            && matches!(
                tokens[i + 2].tok,
                Tok::Ident(_)
                    | Tok::TypeName(_)
                    | Tok::TemplateName(_)
                    | Tok::Tilde
                    | Tok::Operator
                    | Tok::Star
            )
        {
            tokens[i].tok = Tok::ClassQual(name);
        }
    }
    // `List<int>::Node`: a template-id qualifying a type (read so that the
    // checker can refuse it).
    for i in 0..tokens.len() {
        let Tok::TemplateQual(name) = tokens[i].tok else {
            continue;
        };
        let Some(k) = template_args_end(tokens, i) else {
            continue;
        };
        let at = |j: usize| tokens.get(j).map(|t| t.tok);
        if at(k + 1) == Some(Tok::ColonColon)
            && matches!(at(k + 2), Some(Tok::TypeName(inner)) if inner != name)
            && at(k + 3) != Some(Tok::ColonColon)
        {
            tokens[i].tok = Tok::NestedQual(name);
        }
    }
    // `Outer::Inner` naming a nested class as a type: the last class
    // qualifier before a type name that ends the chain. `Outer::Outer(`
    // (a constructor) and `Outer::Inner::f` keep their class qualifiers.
    for i in 0..tokens.len().saturating_sub(2) {
        if let Tok::ClassQual(name) = tokens[i].tok
            && tokens[i + 1].tok == Tok::ColonColon
            && let Tok::TypeName(inner) = tokens[i + 2].tok
            && inner != name
            && tokens.get(i + 3).map(|t| t.tok) != Some(Tok::ColonColon)
        {
            tokens[i].tok = Tok::NestedQual(name);
            // `A::B::C`: the qualifiers before it qualify a type too.
            let mut k = i;
            while k >= 2
                && tokens[k - 1].tok == Tok::ColonColon
                && let Tok::ClassQual(outer) = tokens[k - 2].tok
            {
                tokens[k - 2].tok = Tok::NestedQual(outer);
                k -= 2;
            }
        }
    }
}

/// `template <> bool f<u>(u x)`: the name of a function written with
/// template arguments after a template header goes back to a plain
/// identifier, so that the grammar reads it as the function's name followed
/// by the arguments (as a template name it would be one more type
/// specifier, and one token of lookahead could not tell `bool f<u>(` from
/// `Box<u> f(`). The checker accepts the form only as an explicit
/// specialisation (`template <>`).
fn mark_specialised_functions<'s>(tokens: &mut [Token<'s>]) {
    fn tok<'s>(tokens: &[Token<'s>], k: usize) -> Option<Tok<'s>> {
        tokens.get(k).map(|t| t.tok)
    }
    /// The `template >` closing the `template <` at `open`.
    fn closing(tokens: &[Token<'_>], open: usize, end: usize) -> Option<usize> {
        let mut depth = 0usize;
        for (j, t) in tokens.iter().enumerate().take(end).skip(open) {
            match t.tok {
                Tok::TplOpen => depth += 1,
                Tok::TplClose => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
        None
    }
    for i in 0..tokens.len() {
        if tokens[i].tok != Tok::Template || tok(tokens, i + 1) != Some(Tok::TplOpen) {
            continue;
        }
        let end = tokens.len().min(i + 1 + 2 * MAX_TEMPLATE_SCAN);
        let Some(header_end) = closing(tokens, i + 1, end) else {
            continue;
        };
        let mut k = header_end + 1;
        while k < end {
            match tokens[k].tok {
                Tok::LParen | Tok::Semi | Tok::LBrace | Tok::Assign | Tok::Template => break,
                Tok::TemplateName(name) if tok(tokens, k + 1) == Some(Tok::TplOpen) => {
                    let Some(close) = closing(tokens, k + 1, end) else {
                        break;
                    };
                    // `operator Box<T>()` names a conversion, not a
                    // specialisation.
                    if tok(tokens, close + 1) == Some(Tok::LParen)
                        && tok(tokens, k - 1) != Some(Tok::Operator)
                    {
                        tokens[k].tok = Tok::Ident(name);
                        break;
                    }
                    k = close + 1;
                    continue;
                }
                _ => {}
            }
            k += 1;
        }
    }
}

/// Marks `std` in `std::vector<int>` (a qualifier of a type) as [`Tok::NsQual`].
fn mark_qualifiers(tokens: &mut [Token<'_>]) {
    for i in (0..tokens.len()).rev() {
        let is_type_part = matches!(
            tokens[i].tok,
            Tok::TypeName(_)
                | Tok::TemplateName(_)
                | Tok::NsQual(_)
                | Tok::ClassQual(_)
                | Tok::NestedQual(_)
                | Tok::TemplateQual(_)
        );
        if is_type_part
            && i >= 2
            && tokens[i - 1].tok == Tok::ColonColon
            && let Tok::Ident(q) = tokens[i - 2].tok
        {
            tokens[i - 2].tok = Tok::NsQual(q);
        }
    }
}

/// Replaces each `>>` at `splits` (already retagged as a close) by two closes.
fn split_shifts(tokens: &mut Vec<Token<'_>>, splits: &[usize]) {
    let mut out = Vec::with_capacity(tokens.len() + splits.len());
    let mut sorted = splits.to_vec();
    sorted.sort_unstable();
    let mut next = sorted.iter().peekable();
    for (i, t) in tokens.iter().enumerate() {
        if next.peek() == Some(&&i) {
            next.next();
            let mid = t.start + 1;
            out.push(Token {
                tok: Tok::TplClose,
                start: t.start,
                end: mid.min(t.end),
            });
            out.push(Token {
                tok: Tok::TplClose,
                start: mid.min(t.end),
                end: t.end,
            });
        } else {
            out.push(*t);
        }
    }
    *tokens = out;
}
