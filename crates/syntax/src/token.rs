//! Tokens, produced by [logos] over byte offsets.
//!
//! The lexer produces every variant except the ones marked "classified": those
//! are assigned after preprocessing by [`crate::classify`], which resolves the
//! two ambiguities of C++ that a context-free grammar cannot: whether `<` opens
//! a template argument list and whether an identifier names a type.

use logos::Logos;
use std::fmt;

/// Skips a `/* ... */` comment; fails (making an error token) when it is not closed.
fn block_comment<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> logos::FilterResult<(), ()> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            logos::FilterResult::Skip
        }
        None => {
            lex.bump(lex.remainder().len());
            logos::FilterResult::Emit(())
        }
    }
}

/// A token. Text-carrying variants borrow the raw text from the source.
// `Hash` stays derived: the written-out `PartialEq` below is the derived
// equality (same variant, equal payload), so equal tokens hash alike.
#[allow(clippy::derived_hash_with_manual_eq)]
#[derive(Logos, Clone, Copy, Debug, Eq, Hash)]
// A byte-order mark is whitespace: editors on Windows put one at the start.
#[logos(skip r"[ \t\r\x0b\x0c\u{FEFF}]+")]
#[logos(skip r"\\\r?\n")]
pub enum Tok<'s> {
    /// End of a line: directives end here. Removed by the preprocessor.
    #[token("\n")]
    Newline,
    /// `// ...`, skipped.
    #[regex(r"//[^\n]*", logos::skip, allow_greedy = true)]
    LineComment,
    /// `/* ...` that never ends (a closed one is skipped).
    #[token("/*", block_comment)]
    UnterminatedComment,

    /// An identifier.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'s str),
    /// Classified: an identifier that names a type (a struct, or a library class).
    TypeName(&'s str),
    /// Classified: a namespace name qualifying a type (`std` in `std::vector<int>`).
    NsQual(&'s str),
    /// Classified: a class (or enumeration) name followed by `::` and a member:
    /// `Point` in `Point::length`, `Point::Point`, `Color::Red`.
    ClassQual(&'s str),
    /// Classified: a class name qualifying a nested class named as a type:
    /// `Outer` in `Outer::Inner k;` (a token of its own, so that a type
    /// after other declaration specifiers is not read as the class of a
    /// member defined outside it, `int Outer::f()`).
    NestedQual(&'s str),
    /// Classified: a class template's name whose argument list is followed by
    /// `::`: `Matrix` in `Matrix<T>::get`, `Traits<int>::size`.
    TemplateQual(&'s str),
    /// Classified: an identifier that names a class template and is followed by `<`.
    TemplateName(&'s str),
    /// Classified: the `<` that opens a template argument list.
    TplOpen,
    /// Classified: the `>` that closes a template argument list (also half of a `>>`).
    TplClose,
    /// Never lexed: put first by [`crate::parse_stmts_in`] to make the parser
    /// read a sequence of statements instead of a translation unit.
    StmtsMarker,
    /// Classified: `delete []`, the array form of `delete`.
    DeleteArray,
    /// Classified: the `(` that opens the constructor arguments of a
    /// variable at namespace scope (`accelerator a(path);`), which would
    /// otherwise read as a function declaration.
    InitParen,
    /// Classified: the `(` that opens the parenthesised part of a function
    /// declarator (`int (*p)(int)`, `int (&)(int)` in a cast), which would
    /// otherwise read as a functional cast of `*p`.
    DeclParen,

    /// An integer literal, raw text (suffixes included).
    #[regex(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)[uUlL]*")]
    Int(&'s str),
    /// A floating-point literal, raw text (suffix included).
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?[fFlL]?")]
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?[fFlL]?")]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+[fFlL]?")]
    // Hexadecimal: `0x1.8p3` (the exponent, of 2, is required).
    #[regex(r"0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFlL]?")]
    Float(&'s str),
    /// Something that starts like a number but is not one (`0x`, `12abc`).
    #[regex(r"[0-9][0-9A-Za-z_.]*", priority = 1)]
    BadNumber(&'s str),
    /// A string literal with its quotes (and `L` prefix), raw text.
    #[regex(r#"L?"([^"\\\n]|\\[^\n])*""#)]
    Str(&'s str),
    /// A character literal with its quotes, raw text.
    #[regex(r#"L?'([^'\\\n]|\\[^\n])*'"#)]
    Char(&'s str),
    /// A string or character literal missing its closing quote.
    #[regex(r#"L?"([^"\\\n]|\\[^\n])*"#, priority = 1)]
    #[regex(r#"L?'([^'\\\n]|\\[^\n])*"#, priority = 1)]
    UnterminatedLiteral,

    // Keywords.
    /// `void`
    #[token("void")]
    Void,
    /// `bool`
    #[token("bool")]
    Bool,
    /// `char`
    #[token("char")]
    CharKw,
    /// `short`
    #[token("short")]
    Short,
    /// `int`
    #[token("int")]
    IntKw,
    /// `long`
    #[token("long")]
    Long,
    /// `signed`
    #[token("signed")]
    Signed,
    /// `unsigned`
    #[token("unsigned")]
    Unsigned,
    /// `float`
    #[token("float")]
    FloatKw,
    /// `double`
    #[token("double")]
    Double,
    /// `auto`
    #[token("auto")]
    Auto,
    /// `const`
    #[token("const")]
    Const,
    /// `constexpr`
    #[token("constexpr")]
    Constexpr,
    /// `static`
    #[token("static")]
    Static,
    /// `volatile`
    #[token("volatile")]
    Volatile,
    /// `extern`
    #[token("extern")]
    Extern,
    /// `inline`
    #[token("inline")]
    Inline,
    /// `register` (a storage class C++17 removed; accepted with a warning)
    #[token("register")]
    Register,
    /// `tile_static`
    #[token("tile_static")]
    TileStatic,
    /// `struct`
    #[token("struct")]
    Struct,
    /// `class`
    #[token("class")]
    Class,
    /// `union`
    #[token("union")]
    Union,
    /// `enum`
    #[token("enum")]
    Enum,
    /// `typedef`
    #[token("typedef")]
    Typedef,
    /// `static_assert`
    #[token("static_assert")]
    StaticAssert,
    /// `template`
    #[token("template")]
    Template,
    /// `typename`
    #[token("typename")]
    Typename,
    /// `using`
    #[token("using")]
    Using,
    /// `namespace`
    #[token("namespace")]
    Namespace,
    /// `public`
    #[token("public")]
    Public,
    /// `private`
    #[token("private")]
    Private,
    /// `protected`
    #[token("protected")]
    Protected,
    /// `virtual`
    #[token("virtual")]
    Virtual,
    /// Classified: `override` after a member function's declarator (an
    /// ordinary name anywhere else).
    Override,
    /// Classified: `final` after a member function's declarator or a class
    /// definition's name (an ordinary name anywhere else).
    Final,
    /// `operator`
    #[token("operator")]
    Operator,
    /// `mutable`
    #[token("mutable")]
    Mutable,
    /// `friend`
    #[token("friend")]
    Friend,
    /// `explicit`
    #[token("explicit")]
    Explicit,
    /// `restrict` (C++ AMP's restriction specifier)
    #[token("restrict")]
    Restrict,
    /// `if`
    #[token("if")]
    If,
    /// `else`
    #[token("else")]
    Else,
    /// `for`
    #[token("for")]
    For,
    /// `while`
    #[token("while")]
    While,
    /// `do`
    #[token("do")]
    Do,
    /// `switch`
    #[token("switch")]
    Switch,
    /// `case`
    #[token("case")]
    Case,
    /// `default`
    #[token("default")]
    Default,
    /// `break`
    #[token("break")]
    Break,
    /// `continue`
    #[token("continue")]
    Continue,
    /// `return`
    #[token("return")]
    Return,
    /// `goto`
    #[token("goto")]
    Goto,
    /// `try`
    #[token("try")]
    Try,
    /// `catch`
    #[token("catch")]
    Catch,
    /// `throw`
    #[token("throw")]
    Throw,
    /// `new`
    #[token("new")]
    New,
    /// `delete`
    #[token("delete")]
    Delete,
    /// `this`
    #[token("this")]
    This,
    /// `sizeof`
    #[token("sizeof")]
    Sizeof,
    /// `decltype`
    #[token("decltype")]
    Decltype,
    /// Classified: `decltype` whose operand is written in parentheses of
    /// its own, `decltype((x))`, which C++ reads as an expression rather
    /// than a name (an lvalue gives `T&`).
    DecltypeParen,
    /// `typeid`
    #[token("typeid")]
    Typeid,
    /// `true`
    #[token("true")]
    True,
    /// `false`
    #[token("false")]
    False,
    /// `nullptr`
    #[token("nullptr")]
    Nullptr,
    /// `static_cast`
    #[token("static_cast")]
    StaticCast,
    /// `const_cast`
    #[token("const_cast")]
    ConstCast,
    /// `reinterpret_cast`
    #[token("reinterpret_cast")]
    ReinterpretCast,
    /// `dynamic_cast`
    #[token("dynamic_cast")]
    DynamicCast,

    // Punctuation.
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `;`
    #[token(";")]
    Semi,
    /// `,`
    #[token(",")]
    Comma,
    /// `:`
    #[token(":")]
    Colon,
    /// `::`
    #[token("::")]
    ColonColon,
    /// `.`
    #[token(".")]
    Dot,
    /// `->`
    #[token("->")]
    Arrow,
    /// `.*` (pointer to member through an object)
    #[token(".*")]
    DotStar,
    /// `->*` (pointer to member through a pointer)
    #[token("->*")]
    ArrowStar,
    /// `...`
    #[token("...")]
    Ellipsis,
    /// `?`
    #[token("?")]
    Question,
    /// `~`
    #[token("~")]
    Tilde,
    /// `!`
    #[token("!")]
    Bang,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `%`
    #[token("%")]
    Percent,
    /// `^`
    #[token("^")]
    Caret,
    /// `&`
    #[token("&")]
    Amp,
    /// `|`
    #[token("|")]
    Pipe,
    /// `=`
    #[token("=")]
    Assign,
    /// `<`
    #[token("<")]
    Lt,
    /// `>`
    #[token(">")]
    Gt,
    /// `+=`
    #[token("+=")]
    PlusAssign,
    /// `-=`
    #[token("-=")]
    MinusAssign,
    /// `*=`
    #[token("*=")]
    StarAssign,
    /// `/=`
    #[token("/=")]
    SlashAssign,
    /// `%=`
    #[token("%=")]
    PercentAssign,
    /// `^=`
    #[token("^=")]
    CaretAssign,
    /// `&=`
    #[token("&=")]
    AmpAssign,
    /// `|=`
    #[token("|=")]
    PipeAssign,
    /// `<<=`
    #[token("<<=")]
    ShlAssign,
    /// `>>=`
    #[token(">>=")]
    ShrAssign,
    /// `==`
    #[token("==")]
    EqEq,
    /// `!=`
    #[token("!=")]
    NotEq,
    /// `<=`
    #[token("<=")]
    Le,
    /// `>=`
    #[token(">=")]
    Ge,
    /// `&&`
    #[token("&&")]
    AndAnd,
    /// `||`
    #[token("||")]
    OrOr,
    /// `<<`
    #[token("<<")]
    Shl,
    /// `>>`
    #[token(">>")]
    Shr,
    /// `++`
    #[token("++")]
    PlusPlus,
    /// `--`
    #[token("--")]
    MinusMinus,
    /// `#` (starts a directive at the beginning of a line)
    #[token("#")]
    Hash,
    /// `##`
    #[token("##")]
    HashHash,
    /// Never lexed: the body of a library function whose tokens were set
    /// aside, to be parsed when the checker needs it (the index of its
    /// [`crate::lazy::LazyBody`] among the unit's).
    LazyBody(u32),
}

// Written out rather than derived so that it inlines: the classifier's
// passes compare every token with a payload-free variant several times
// (`tokens[i].tok == Tok::LParen`), and the derived comparison stayed an
// out-of-line call there. Same equality as the derived one: the same
// variant, and equal payloads for the variants that carry one.
impl PartialEq for Tok<'_> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        if std::mem::discriminant(self) != std::mem::discriminant(other) {
            return false;
        }
        match (self, other) {
            (Tok::Ident(a), Tok::Ident(b))
            | (Tok::TypeName(a), Tok::TypeName(b))
            | (Tok::NsQual(a), Tok::NsQual(b))
            | (Tok::ClassQual(a), Tok::ClassQual(b))
            | (Tok::NestedQual(a), Tok::NestedQual(b))
            | (Tok::TemplateQual(a), Tok::TemplateQual(b))
            | (Tok::TemplateName(a), Tok::TemplateName(b))
            | (Tok::Int(a), Tok::Int(b))
            | (Tok::Float(a), Tok::Float(b))
            | (Tok::BadNumber(a), Tok::BadNumber(b))
            | (Tok::Str(a), Tok::Str(b))
            | (Tok::Char(a), Tok::Char(b)) => a == b,
            (Tok::LazyBody(a), Tok::LazyBody(b)) => a == b,
            // Same variant, no payload.
            _ => true,
        }
    }
}

impl<'s> Tok<'s> {
    /// How the token is shown in "expected ..., found ..." messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s)
            | Tok::TypeName(s)
            | Tok::NsQual(s)
            | Tok::ClassQual(s)
            | Tok::NestedQual(s)
            | Tok::TemplateQual(s)
            | Tok::TemplateName(s) => {
                format!("identifier `{s}`")
            }
            Tok::Int(s) | Tok::Float(s) | Tok::BadNumber(s) => format!("number `{s}`"),
            Tok::Str(_) => "string literal".into(),
            Tok::Char(_) => "character literal".into(),
            Tok::Newline => "end of line".into(),
            other => format!("`{other}`"),
        }
    }
}

impl<'s> Tok<'s> {
    /// The token's text: the source it carries, or how its kind is spelt
    /// (`"<"` for both kinds of `<`, `"{...}"` for a set-aside body).
    pub fn spelling(&self) -> &'s str {
        match *self {
            Tok::Ident(s)
            | Tok::TypeName(s)
            | Tok::TemplateName(s)
            | Tok::NsQual(s)
            | Tok::ClassQual(s)
            | Tok::NestedQual(s)
            | Tok::TemplateQual(s)
            | Tok::Int(s)
            | Tok::Float(s)
            | Tok::BadNumber(s)
            | Tok::Str(s)
            | Tok::Char(s) => s,
            Tok::Newline => "\\n",
            Tok::LineComment => "//",
            Tok::UnterminatedComment => "/*",
            Tok::UnterminatedLiteral => "\"",
            Tok::TplOpen => "<",
            Tok::TplClose => ">",
            Tok::StmtsMarker => "<statements>",
            Tok::DeleteArray => "delete[]",
            Tok::InitParen | Tok::DeclParen => "(",
            Tok::Void => "void",
            Tok::Bool => "bool",
            Tok::CharKw => "char",
            Tok::Short => "short",
            Tok::IntKw => "int",
            Tok::Long => "long",
            Tok::Signed => "signed",
            Tok::Unsigned => "unsigned",
            Tok::FloatKw => "float",
            Tok::Double => "double",
            Tok::Auto => "auto",
            Tok::Const => "const",
            Tok::Constexpr => "constexpr",
            Tok::Static => "static",
            Tok::Volatile => "volatile",
            Tok::Extern => "extern",
            Tok::Inline => "inline",
            Tok::Register => "register",
            Tok::TileStatic => "tile_static",
            Tok::Struct => "struct",
            Tok::Class => "class",
            Tok::Union => "union",
            Tok::Enum => "enum",
            Tok::Typedef => "typedef",
            Tok::StaticAssert => "static_assert",
            Tok::Template => "template",
            Tok::Typename => "typename",
            Tok::Using => "using",
            Tok::Namespace => "namespace",
            Tok::Public => "public",
            Tok::Private => "private",
            Tok::Protected => "protected",
            Tok::Virtual => "virtual",
            Tok::Override => "override",
            Tok::Final => "final",
            Tok::Operator => "operator",
            Tok::Mutable => "mutable",
            Tok::Friend => "friend",
            Tok::Explicit => "explicit",
            Tok::Restrict => "restrict",
            Tok::If => "if",
            Tok::Else => "else",
            Tok::For => "for",
            Tok::While => "while",
            Tok::Do => "do",
            Tok::Switch => "switch",
            Tok::Case => "case",
            Tok::Default => "default",
            Tok::Break => "break",
            Tok::Continue => "continue",
            Tok::Return => "return",
            Tok::Goto => "goto",
            Tok::Try => "try",
            Tok::Catch => "catch",
            Tok::Throw => "throw",
            Tok::New => "new",
            Tok::Delete => "delete",
            Tok::This => "this",
            Tok::Sizeof => "sizeof",
            Tok::Decltype | Tok::DecltypeParen => "decltype",
            Tok::Typeid => "typeid",
            Tok::True => "true",
            Tok::False => "false",
            Tok::Nullptr => "nullptr",
            Tok::StaticCast => "static_cast",
            Tok::ConstCast => "const_cast",
            Tok::ReinterpretCast => "reinterpret_cast",
            Tok::DynamicCast => "dynamic_cast",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::Semi => ";",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::ColonColon => "::",
            Tok::Dot => ".",
            Tok::Arrow => "->",
            Tok::DotStar => ".*",
            Tok::ArrowStar => "->*",
            Tok::Ellipsis => "...",
            Tok::Question => "?",
            Tok::Tilde => "~",
            Tok::Bang => "!",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Caret => "^",
            Tok::Amp => "&",
            Tok::Pipe => "|",
            Tok::Assign => "=",
            Tok::Lt => "<",
            Tok::Gt => ">",
            Tok::PlusAssign => "+=",
            Tok::MinusAssign => "-=",
            Tok::StarAssign => "*=",
            Tok::SlashAssign => "/=",
            Tok::PercentAssign => "%=",
            Tok::CaretAssign => "^=",
            Tok::AmpAssign => "&=",
            Tok::PipeAssign => "|=",
            Tok::ShlAssign => "<<=",
            Tok::ShrAssign => ">>=",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Le => "<=",
            Tok::Ge => ">=",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
            Tok::PlusPlus => "++",
            Tok::MinusMinus => "--",
            Tok::Hash => "#",
            Tok::HashHash => "##",
            Tok::LazyBody(_) => "{...}",
        }
    }

    /// The same token carrying `text` instead of its own text (kinds
    /// without text are copied). The front end keeps the tokens of library
    /// bodies set aside with the library's text, which lives as long as the
    /// program, so that the tree may hold them (see [`crate::lazy`]).
    pub fn with_text<'t>(self, text: &'t str) -> Tok<'t> {
        match self {
            Tok::Ident(_) => Tok::Ident(text),
            Tok::TypeName(_) => Tok::TypeName(text),
            Tok::NsQual(_) => Tok::NsQual(text),
            Tok::ClassQual(_) => Tok::ClassQual(text),
            Tok::NestedQual(_) => Tok::NestedQual(text),
            Tok::TemplateQual(_) => Tok::TemplateQual(text),
            Tok::TemplateName(_) => Tok::TemplateName(text),
            Tok::Int(_) => Tok::Int(text),
            Tok::Float(_) => Tok::Float(text),
            Tok::BadNumber(_) => Tok::BadNumber(text),
            Tok::Str(_) => Tok::Str(text),
            Tok::Char(_) => Tok::Char(text),
            Tok::LazyBody(i) => Tok::LazyBody(i),
            Tok::Newline => Tok::Newline,
            Tok::LineComment => Tok::LineComment,
            Tok::UnterminatedComment => Tok::UnterminatedComment,
            Tok::UnterminatedLiteral => Tok::UnterminatedLiteral,
            Tok::TplOpen => Tok::TplOpen,
            Tok::TplClose => Tok::TplClose,
            Tok::StmtsMarker => Tok::StmtsMarker,
            Tok::DeleteArray => Tok::DeleteArray,
            Tok::InitParen => Tok::InitParen,
            Tok::DeclParen => Tok::DeclParen,
            Tok::Void => Tok::Void,
            Tok::Bool => Tok::Bool,
            Tok::CharKw => Tok::CharKw,
            Tok::Short => Tok::Short,
            Tok::IntKw => Tok::IntKw,
            Tok::Long => Tok::Long,
            Tok::Signed => Tok::Signed,
            Tok::Unsigned => Tok::Unsigned,
            Tok::FloatKw => Tok::FloatKw,
            Tok::Double => Tok::Double,
            Tok::Auto => Tok::Auto,
            Tok::Const => Tok::Const,
            Tok::Constexpr => Tok::Constexpr,
            Tok::Static => Tok::Static,
            Tok::Volatile => Tok::Volatile,
            Tok::Extern => Tok::Extern,
            Tok::Inline => Tok::Inline,
            Tok::Register => Tok::Register,
            Tok::TileStatic => Tok::TileStatic,
            Tok::Struct => Tok::Struct,
            Tok::Class => Tok::Class,
            Tok::Union => Tok::Union,
            Tok::Enum => Tok::Enum,
            Tok::Typedef => Tok::Typedef,
            Tok::StaticAssert => Tok::StaticAssert,
            Tok::Template => Tok::Template,
            Tok::Typename => Tok::Typename,
            Tok::Using => Tok::Using,
            Tok::Namespace => Tok::Namespace,
            Tok::Public => Tok::Public,
            Tok::Private => Tok::Private,
            Tok::Protected => Tok::Protected,
            Tok::Virtual => Tok::Virtual,
            Tok::Override => Tok::Override,
            Tok::Final => Tok::Final,
            Tok::Operator => Tok::Operator,
            Tok::Mutable => Tok::Mutable,
            Tok::Friend => Tok::Friend,
            Tok::Explicit => Tok::Explicit,
            Tok::Restrict => Tok::Restrict,
            Tok::If => Tok::If,
            Tok::Else => Tok::Else,
            Tok::For => Tok::For,
            Tok::While => Tok::While,
            Tok::Do => Tok::Do,
            Tok::Switch => Tok::Switch,
            Tok::Case => Tok::Case,
            Tok::Default => Tok::Default,
            Tok::Break => Tok::Break,
            Tok::Continue => Tok::Continue,
            Tok::Return => Tok::Return,
            Tok::Goto => Tok::Goto,
            Tok::Try => Tok::Try,
            Tok::Catch => Tok::Catch,
            Tok::Throw => Tok::Throw,
            Tok::New => Tok::New,
            Tok::Delete => Tok::Delete,
            Tok::This => Tok::This,
            Tok::Sizeof => Tok::Sizeof,
            Tok::Decltype => Tok::Decltype,
            Tok::DecltypeParen => Tok::DecltypeParen,
            Tok::Typeid => Tok::Typeid,
            Tok::True => Tok::True,
            Tok::False => Tok::False,
            Tok::Nullptr => Tok::Nullptr,
            Tok::StaticCast => Tok::StaticCast,
            Tok::ConstCast => Tok::ConstCast,
            Tok::ReinterpretCast => Tok::ReinterpretCast,
            Tok::DynamicCast => Tok::DynamicCast,
            Tok::LBrace => Tok::LBrace,
            Tok::RBrace => Tok::RBrace,
            Tok::LParen => Tok::LParen,
            Tok::RParen => Tok::RParen,
            Tok::LBracket => Tok::LBracket,
            Tok::RBracket => Tok::RBracket,
            Tok::Semi => Tok::Semi,
            Tok::Comma => Tok::Comma,
            Tok::Colon => Tok::Colon,
            Tok::ColonColon => Tok::ColonColon,
            Tok::Dot => Tok::Dot,
            Tok::Arrow => Tok::Arrow,
            Tok::DotStar => Tok::DotStar,
            Tok::ArrowStar => Tok::ArrowStar,
            Tok::Ellipsis => Tok::Ellipsis,
            Tok::Question => Tok::Question,
            Tok::Tilde => Tok::Tilde,
            Tok::Bang => Tok::Bang,
            Tok::Plus => Tok::Plus,
            Tok::Minus => Tok::Minus,
            Tok::Star => Tok::Star,
            Tok::Slash => Tok::Slash,
            Tok::Percent => Tok::Percent,
            Tok::Caret => Tok::Caret,
            Tok::Amp => Tok::Amp,
            Tok::Pipe => Tok::Pipe,
            Tok::Assign => Tok::Assign,
            Tok::Lt => Tok::Lt,
            Tok::Gt => Tok::Gt,
            Tok::PlusAssign => Tok::PlusAssign,
            Tok::MinusAssign => Tok::MinusAssign,
            Tok::StarAssign => Tok::StarAssign,
            Tok::SlashAssign => Tok::SlashAssign,
            Tok::PercentAssign => Tok::PercentAssign,
            Tok::CaretAssign => Tok::CaretAssign,
            Tok::AmpAssign => Tok::AmpAssign,
            Tok::PipeAssign => Tok::PipeAssign,
            Tok::ShlAssign => Tok::ShlAssign,
            Tok::ShrAssign => Tok::ShrAssign,
            Tok::EqEq => Tok::EqEq,
            Tok::NotEq => Tok::NotEq,
            Tok::Le => Tok::Le,
            Tok::Ge => Tok::Ge,
            Tok::AndAnd => Tok::AndAnd,
            Tok::OrOr => Tok::OrOr,
            Tok::Shl => Tok::Shl,
            Tok::Shr => Tok::Shr,
            Tok::PlusPlus => Tok::PlusPlus,
            Tok::MinusMinus => Tok::MinusMinus,
            Tok::Hash => Tok::Hash,
            Tok::HashHash => Tok::HashHash,
        }
    }
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelling())
    }
}
