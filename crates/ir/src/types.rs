//! Types of the typed program.

use std::fmt;
use tessera_diagnostics::Span;

/// A struct type (index into `Program::structs`).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct StructId(pub u32);

/// The rank of an index, extent, array or view: 1 to 3 for tiles, any positive value otherwise.
pub type Rank = u8;

/// Fundamental arithmetic types.
///
/// Widths follow the LP64 model of the platforms Tessera runs on (and of the
/// oracle it is tested against): `long` is 64 bits. `char` is signed.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub enum Scalar {
    /// `bool`
    Bool,
    /// `char` (8-bit, signed)
    Char,
    /// `unsigned char` (8-bit)
    UChar,
    /// `short` (16-bit)
    Short,
    /// `unsigned short` (16-bit)
    UShort,
    /// `wchar_t` (32-bit, signed, as with g++ on Linux; host code only).
    /// Its size differs between platforms (2 bytes with MSVC), so the
    /// checker refuses `sizeof` of it.
    WChar,
    /// `int` (32-bit)
    Int,
    /// `unsigned int` (32-bit)
    UInt,
    /// `long` (64-bit)
    Long,
    /// `unsigned long` (64-bit)
    ULong,
    /// `float` (IEEE single)
    Float,
    /// `double` (IEEE double)
    Double,
}

impl Scalar {
    /// True for the integer types (and `bool` and `char`).
    pub fn is_integral(self) -> bool {
        !self.is_floating()
    }

    /// True for `float` and `double`.
    pub fn is_floating(self) -> bool {
        matches!(self, Scalar::Float | Scalar::Double)
    }

    /// True for the unsigned integer types.
    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            Scalar::UChar | Scalar::UShort | Scalar::UInt | Scalar::ULong
        )
    }

    /// True for the types narrower than `int` that arithmetic promotes to
    /// `int` first (`bool`, the character types, `short`, `unsigned short`).
    pub fn promotes_to_int(self) -> bool {
        matches!(
            self,
            Scalar::Bool
                | Scalar::Char
                | Scalar::UChar
                | Scalar::Short
                | Scalar::UShort
                | Scalar::WChar
        )
    }

    /// Size in bytes.
    pub fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int | Scalar::UInt | Scalar::WChar | Scalar::Float => 4,
            Scalar::Long | Scalar::ULong | Scalar::Double => 8,
        }
    }

    /// Integer conversion rank (C++ [conv.rank]); floats rank above all integers.
    pub fn rank(self) -> u8 {
        match self {
            Scalar::Bool => 0,
            Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int | Scalar::UInt | Scalar::WChar => 3,
            Scalar::Long | Scalar::ULong => 4,
            Scalar::Float => 5,
            Scalar::Double => 6,
        }
    }

    /// The C++ spelling.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::UChar => "unsigned char",
            Scalar::Short => "short",
            Scalar::UShort => "unsigned short",
            Scalar::WChar => "wchar_t",
            Scalar::Int => "int",
            Scalar::UInt => "unsigned int",
            Scalar::Long => "long",
            Scalar::ULong => "unsigned long",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }
}

/// The static shape of a tile: `tile<D0[, D1[, D2]]>`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileShape {
    /// The dimensions; only the first `rank` are meaningful, the rest are 1.
    pub dims: [u32; 3],
    /// 1, 2 or 3.
    pub rank: Rank,
}

impl TileShape {
    /// The dimensions in use.
    pub fn dims(&self) -> &[u32] {
        &self.dims[..usize::from(self.rank).min(3)]
    }

    /// Work-items per tile.
    pub fn threads(&self) -> u64 {
        self.dims().iter().map(|&d| u64::from(d)).product()
    }
}

impl fmt::Display for TileShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self.dims().iter().map(u32::to_string).collect();
        f.write_str(&dims.join(", "))
    }
}

/// A type of the typed program.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `void`
    Void,
    /// A fundamental arithmetic type.
    Scalar(Scalar),
    /// A struct.
    Struct(StructId),
    /// A fixed-size C array `T[n]`.
    CArray(Box<Type>, u32),
    /// `index<N>`
    Index(Rank),
    /// `extent<N>`
    Extent(Rank),
    /// `tiled_extent<D0, ...>`
    TiledExtent(TileShape),
    /// `tiled_index<D0, ...>`
    TiledIndex(TileShape),
    /// `tile_barrier`
    TileBarrier,
    /// `concurrency::array<T, N>`: owns global memory.
    Array(Box<Type>, Rank),
    /// `array_view<T, N>` (`read_only` for `array_view<const T, N>`).
    ArrayView {
        /// The element type.
        elem: Box<Type>,
        /// The rank.
        rank: Rank,
        /// Elements may not be written through this view.
        read_only: bool,
    },
    /// `std::vector<T>`
    Vector(Box<Type>),
    /// `std::deque<T>`, `std::list<T>`, `std::set<T>` and the other host
    /// containers: held like a vector, its elements in iteration order.
    Container(Container, Box<Type>),
    /// `std::ostream` (`std::cout`).
    Ostream,
    /// `concurrency::accelerator`: the default accelerator (the CPU engine
    /// that runs kernels) or C++ AMP's CPU accelerator; a run-time value.
    Accelerator,
    /// `concurrency::accelerator_view`: a view (queue) of an accelerator,
    /// with its own identity and queuing mode; a run-time value.
    AcceleratorView,
    /// `std::vector<T>::iterator` (only from `begin()`/`end()`).
    Iterator(Box<Type>),
    /// An iterator held as a value whose operations differ from a
    /// pointer's: those of lists and sets (no `+ k`), of unordered sets
    /// (forward only), and reverse iterators. At run time it is a pointer
    /// into the container's elements (held in iteration order); a reverse
    /// iterator points one past the element it designates, as
    /// `std::reverse_iterator` keeps its base.
    Iter(Box<IterType>),
    /// A stream manipulator value (`std::setw(2)`, `std::endl`).
    Manipulator,
    /// A string literal (printed, or bound to a `const char*`).
    Str,
    /// A pointer `T*` (`const T*` when `is_const`): one element of an
    /// object, array or allocation, or one past its end, or null.
    Ptr {
        /// The pointee's type.
        elem: Box<Type>,
        /// The pointee is `const`: no writes through this pointer.
        is_const: bool,
    },
    /// The type of `nullptr` (`std::nullptr_t`).
    Null,
    /// A pointer to a host function, `int (*)(int)` (also what a function
    /// reference `int (&)(int)` is held as): host code only, C++ AMP has
    /// none in amp code.
    FnPtr(Box<FnSig>),
    /// A wide string literal `L"..."` or an accelerator's wide string
    /// (`description`); only as an operand of `<<` on a wide stream. The
    /// bytes are the UTF-8 text, which is what `std::wcout` writes under a
    /// UTF-8 locale.
    WideStr,
    /// `std::wostream` (`std::wcout`, `std::wcerr`).
    WideOstream,
    /// `std::stringstream`, `std::istringstream`, `std::ostringstream`: a
    /// stream over text it holds. At run time a handle shared by every
    /// name of the one stream (it cannot be copied).
    StringStream(StringStreamKind),
    /// The type of an expression that could not be checked (already reported).
    Error,
}

/// Which of the string streams a `Type::StringStream` is: what it reads
/// and writes.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StringStreamKind {
    /// `std::stringstream`: reads and writes.
    Both,
    /// `std::istringstream`: reads only.
    In,
    /// `std::ostringstream`: writes only.
    Out,
    /// `std::wstringstream`: reads and writes wide text.
    WideBoth,
    /// `std::wistringstream`: reads wide text only.
    WideIn,
    /// `std::wostringstream`: writes wide text only.
    WideOut,
    /// `std::istream`: `std::cin`, reading the program's input, or a
    /// reading string stream bound to a `std::istream&`.
    Cin,
    /// `std::wistream`: `std::wcin`, or a wide reading string stream bound
    /// to a `std::wistream&`.
    WideCin,
}

impl StringStreamKind {
    /// The class's name, as C++ spells it.
    pub fn name(self) -> &'static str {
        match self {
            StringStreamKind::Both => "std::stringstream",
            StringStreamKind::In => "std::istringstream",
            StringStreamKind::Out => "std::ostringstream",
            StringStreamKind::WideBoth => "std::wstringstream",
            StringStreamKind::WideIn => "std::wistringstream",
            StringStreamKind::WideOut => "std::wostringstream",
            StringStreamKind::Cin => "std::istream",
            StringStreamKind::WideCin => "std::wistream",
        }
    }

    /// The class named `name` (unqualified), if it is one.
    pub fn named(name: &str) -> Option<StringStreamKind> {
        match name {
            "stringstream" => Some(StringStreamKind::Both),
            "istringstream" => Some(StringStreamKind::In),
            "ostringstream" => Some(StringStreamKind::Out),
            "wstringstream" => Some(StringStreamKind::WideBoth),
            "wistringstream" => Some(StringStreamKind::WideIn),
            "wostringstream" => Some(StringStreamKind::WideOut),
            _ => None,
        }
    }

    /// It has `>>` and `getline`.
    pub fn reads(self) -> bool {
        !matches!(self, StringStreamKind::Out | StringStreamKind::WideOut)
    }

    /// It has `<<` (and is a `std::ostream`, or a `std::wostream` when
    /// wide).
    pub fn writes(self) -> bool {
        !matches!(
            self,
            StringStreamKind::In
                | StringStreamKind::WideIn
                | StringStreamKind::Cin
                | StringStreamKind::WideCin
        )
    }

    /// The `std::istream` (`std::wistream`) a reading string stream
    /// derives from and binds, as the type of `std::cin` (`Cin`) is;
    /// `None` for a stream that only writes, and for `std::cin` itself.
    pub fn istream_base(self) -> Option<Type> {
        match self {
            StringStreamKind::Both | StringStreamKind::In => {
                Some(Type::StringStream(StringStreamKind::Cin))
            }
            StringStreamKind::WideBoth | StringStreamKind::WideIn => {
                Some(Type::StringStream(StringStreamKind::WideCin))
            }
            _ => None,
        }
    }

    /// It is `std::cin` or `std::wcin` (or a `std::istream&`, whose type
    /// theirs is), which has no text of its own (`str()`).
    pub fn is_stdin(self) -> bool {
        matches!(self, StringStreamKind::Cin | StringStreamKind::WideCin)
    }

    /// Its text is wide (`std::wstring`, written as UTF-8).
    pub fn wide(self) -> bool {
        matches!(
            self,
            StringStreamKind::WideBoth
                | StringStreamKind::WideIn
                | StringStreamKind::WideOut
                | StringStreamKind::WideCin
        )
    }

    /// The stream type it derives from and binds: `std::ostream` or
    /// `std::wostream`.
    pub fn base(self) -> Type {
        if self.wide() {
            Type::WideOstream
        } else {
            Type::Ostream
        }
    }
}

/// The signature a function pointer points to (`Type::FnPtr`).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FnSig {
    /// The return type (the referent's, when returned by reference).
    pub ret: Type,
    /// The function returns a reference.
    pub ret_by_ref: bool,
    /// The parameters in order (for a member function, the object first).
    pub params: Vec<FnParam>,
    /// A pointer to a member function of this class, `int (C::*)(int)`:
    /// its first parameter is the object (a reference), as for the member
    /// function itself.
    pub member_of: Option<StructId>,
}

/// One parameter of a [`FnSig`].
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FnParam {
    /// Its type (the referent's, for a reference).
    pub ty: Type,
    /// Passed by reference.
    pub by_ref: bool,
    /// A reference to `const`.
    pub is_const: bool,
}

/// The type of an iterator value (`Type::Iter`).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct IterType {
    /// The element type.
    pub elem: Type,
    /// The container iterated: `None` for `std::vector`.
    pub of: Option<Container>,
    /// A reverse iterator (`rbegin()`, `std::vector<T>::reverse_iterator`).
    pub reverse: bool,
    /// Elements may not be written through it (`const_iterator`, and
    /// every iterator of a set).
    pub is_const: bool,
}

impl IterType {
    /// Moves by `+ k` and measures distances (vector and deque).
    pub fn random_access(&self) -> bool {
        matches!(self.of, None | Some(Container::Deque))
    }

    /// Steps back by `--` (all but the unordered containers').
    pub fn bidirectional(&self) -> bool {
        !self.of.is_some_and(Container::is_unordered)
    }
}

/// The host containers besides `std::vector` (`Type::Container`).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Container {
    /// `std::deque<T>`: random access, `push_front` and `push_back`.
    Deque,
    /// `std::list<T>`: `push_front` and `push_back`, no indexing.
    List,
    /// `std::set<T>`: ascending, each value once.
    Set,
    /// `std::multiset<T>`: ascending, equal values in insertion order.
    MultiSet,
    /// `std::unordered_set<T>`: libstdc++'s hash-table order.
    UnorderedSet,
    /// `std::unordered_multiset<T>`.
    UnorderedMultiSet,
}

impl Container {
    /// The name after `std::`, as C++ spells it.
    pub fn name(self) -> &'static str {
        match self {
            Container::Deque => "deque",
            Container::List => "list",
            Container::Set => "set",
            Container::MultiSet => "multiset",
            Container::UnorderedSet => "unordered_set",
            Container::UnorderedMultiSet => "unordered_multiset",
        }
    }

    /// The container a template name denotes.
    pub fn from_name(name: &str) -> Option<Container> {
        Some(match name {
            "deque" => Container::Deque,
            "list" => Container::List,
            "set" => Container::Set,
            "multiset" => Container::MultiSet,
            "unordered_set" => Container::UnorderedSet,
            "unordered_multiset" => Container::UnorderedMultiSet,
            _ => return None,
        })
    }

    /// `set` and `multiset`: kept ordered by `<`.
    pub fn is_ordered(self) -> bool {
        matches!(self, Container::Set | Container::MultiSet)
    }

    /// `unordered_set` and `unordered_multiset`.
    pub fn is_unordered(self) -> bool {
        matches!(self, Container::UnorderedSet | Container::UnorderedMultiSet)
    }

    /// The associative containers: `insert(x)` rather than `push_back(x)`.
    pub fn is_associative(self) -> bool {
        self.is_ordered() || self.is_unordered()
    }

    /// The containers that keep one element per value.
    pub fn is_unique(self) -> bool {
        matches!(self, Container::Set | Container::UnorderedSet)
    }
}

impl Type {
    /// `int`
    pub const INT: Type = Type::Scalar(Scalar::Int);
    /// `bool`
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);
    /// `float`
    pub const FLOAT: Type = Type::Scalar(Scalar::Float);

    /// The element type of a `std::vector` or another host container.
    pub fn sequence_elem(&self) -> Option<&Type> {
        match self {
            Type::Vector(elem) | Type::Container(_, elem) => Some(elem),
            _ => None,
        }
    }

    /// The scalar, if this is one.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The pointee of a pointer type.
    pub fn pointee(&self) -> Option<&Type> {
        match self {
            Type::Ptr { elem, .. } => Some(elem),
            _ => None,
        }
    }

    /// True when this type is or contains a pointer (struct fields are
    /// not looked into: see [`Type::contains_pointer`]).
    pub fn is_pointer_like(&self) -> bool {
        match self {
            Type::Ptr { .. } | Type::Null | Type::FnPtr(_) => true,
            Type::CArray(elem, _)
            | Type::Vector(elem)
            | Type::Container(_, elem)
            | Type::Array(elem, _) => elem.is_pointer_like(),
            Type::ArrayView { elem, .. } | Type::Iterator(elem) => elem.is_pointer_like(),
            Type::Iter(it) => it.elem.is_pointer_like(),
            _ => false,
        }
    }

    /// True when this type is or contains a union (struct fields, elements
    /// of arrays, vectors and views included). A pointer's pointee is not
    /// looked into: a class may point to itself (`struct Node { Node* left,
    /// *right; }`), which a walk through pointers would follow forever (or,
    /// bounded, exponentially often), and code with pointers runs in the
    /// interpreter anyway, which tracks unions (see `Type::contains_pointer`).
    pub fn contains_union(&self, structs: &[StructDef]) -> bool {
        self.contains_part(structs, &mut Vec::new(), 0, &|t| {
            matches!(t, Type::Struct(id) if structs.get(id.index()).is_some_and(|s| s.is_union))
        })
    }

    /// True when this type is or contains a pointer, struct fields included.
    pub fn contains_pointer(&self, structs: &[StructDef]) -> bool {
        self.contains_part(structs, &mut Vec::new(), 0, &Type::is_pointer_like)
    }

    /// True when the type is or holds `unsigned char`, `short`, `unsigned
    /// short` or `wchar_t` (host-only types, which the compiled engine leaves to the
    /// interpreter).
    pub fn contains_narrow_integer(&self, structs: &[StructDef]) -> bool {
        self.contains_part(structs, &mut Vec::new(), 0, &|t| {
            matches!(
                t,
                Type::Scalar(Scalar::UChar | Scalar::Short | Scalar::UShort | Scalar::WChar)
            )
        })
    }

    /// True when the type is or holds a string stream.
    pub fn contains_string_stream(&self, structs: &[StructDef]) -> bool {
        self.contains_part(structs, &mut Vec::new(), 0, &|t| {
            matches!(t, Type::StringStream(_))
        })
    }

    /// True when the type is or holds the scalar `s`.
    pub fn contains_leaf_scalar(&self, structs: &[StructDef], s: Scalar) -> bool {
        self.contains_part(structs, &mut Vec::new(), 0, &|t| *t == Type::Scalar(s))
    }

    /// Whether the type or a part of it satisfies `part`: struct fields and
    /// the elements of arrays, containers, views and iterators are parts.
    /// Pointers are not looked into: their pointee is not part of the
    /// object, and following it would not end for a class that points to
    /// itself. `seen` marks the structs already looked into: a struct met
    /// again (two members of one class type, a diamond of classes) was
    /// answered the first time, so the walk stays linear in the program's
    /// classes.
    fn contains_part(
        &self,
        structs: &[StructDef],
        seen: &mut Vec<bool>,
        depth: u32,
        part: &dyn Fn(&Type) -> bool,
    ) -> bool {
        if depth > 64 {
            return false;
        }
        if part(self) {
            return true;
        }
        match self {
            Type::Struct(id) => {
                if seen.is_empty() {
                    // Allocated at the first struct: most types have none.
                    seen.resize(structs.len(), false);
                }
                match seen.get_mut(id.index()) {
                    Some(s) if !*s => *s = true,
                    _ => return false,
                }
                structs.get(id.index()).is_some_and(|s| {
                    s.fields
                        .iter()
                        .any(|(_, t)| t.contains_part(structs, seen, depth + 1, part))
                })
            }
            Type::CArray(elem, _)
            | Type::Vector(elem)
            | Type::Container(_, elem)
            | Type::Array(elem, _) => elem.contains_part(structs, seen, depth + 1, part),
            Type::ArrayView { elem, .. } | Type::Iterator(elem) => {
                elem.contains_part(structs, seen, depth + 1, part)
            }
            Type::Iter(it) => it.elem.contains_part(structs, seen, depth + 1, part),
            _ => false,
        }
    }

    /// True for `Type::Error`: checks on it are skipped to avoid cascades.
    pub fn is_error(&self) -> bool {
        matches!(self, Type::Error)
    }
}

/// A struct definition.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct StructDef {
    /// Its name.
    pub name: String,
    /// Its fields in order.
    pub fields: Vec<(String, Type)>,
    /// A `union`: every field starts at offset 0, one of them is alive.
    pub is_union: bool,
    /// Where it was declared.
    pub span: Span,
}

/// The element type under the nested C arrays of `ty` and their bounds as
/// C++ writes them, outermost first: `int[2][3]` is an array of two
/// arrays of three `int`s.
fn array_dims(mut ty: &Type) -> (&Type, String) {
    let mut dims = String::new();
    while let Type::CArray(elem, n) = ty {
        dims.push_str(&format!("[{n}]"));
        ty = elem;
    }
    (ty, dims)
}

/// Formats types as C++ writes them; struct names come from `structs`.
pub fn display(ty: &Type, structs: &[StructDef]) -> String {
    match ty {
        Type::Void => "void".into(),
        Type::Scalar(s) => s.name().into(),
        Type::Struct(id) => structs
            .get(id.index())
            .map_or_else(|| "<struct>".into(), |s| s.name.clone()),
        Type::CArray(..) => {
            let (base, dims) = array_dims(ty);
            format!("{}{dims}", display(base, structs))
        }
        Type::Index(n) => format!("index<{n}>"),
        Type::Extent(n) => format!("extent<{n}>"),
        Type::TiledExtent(t) => format!("tiled_extent<{t}>"),
        Type::TiledIndex(t) => format!("tiled_index<{t}>"),
        Type::TileBarrier => "tile_barrier".into(),
        Type::Array(elem, n) => format!("array<{}, {n}>", display(elem, structs)),
        Type::ArrayView {
            elem,
            rank,
            read_only,
        } => {
            let c = if *read_only { "const " } else { "" };
            format!("array_view<{c}{}, {rank}>", display(elem, structs))
        }
        Type::Vector(elem) => format!("std::vector<{}>", display(elem, structs)),
        Type::Container(c, elem) => format!("std::{}<{}>", c.name(), display(elem, structs)),
        Type::Ostream => "std::ostream".into(),
        Type::Accelerator => "accelerator".into(),
        Type::AcceleratorView => "accelerator_view".into(),
        Type::Iterator(elem) => format!("std::vector<{}>::iterator", display(elem, structs)),
        Type::Iter(it) => {
            let container = match it.of {
                Some(c) => format!("std::{}<{}>", c.name(), display(&it.elem, structs)),
                None => format!("std::vector<{}>", display(&it.elem, structs)),
            };
            let name = match (
                it.reverse,
                it.is_const && !it.of.is_some_and(Container::is_associative),
            ) {
                (false, false) => "iterator",
                (false, true) => "const_iterator",
                (true, false) => "reverse_iterator",
                (true, true) => "const_reverse_iterator",
            };
            format!("{container}::{name}")
        }
        Type::Manipulator => "stream manipulator".into(),
        Type::Str => "string literal".into(),
        Type::Ptr { elem, is_const } => {
            let c = if *is_const { "const " } else { "" };
            match &**elem {
                // `int (*)[4]` is how C++ spells a pointer to an array.
                Type::CArray(..) => {
                    let (base, dims) = array_dims(elem);
                    format!("{c}{} (*){dims}", display(base, structs))
                }
                other => format!("{c}{}*", display(other, structs)),
            }
        }
        Type::Null => "std::nullptr_t".into(),
        Type::FnPtr(sig) => {
            let class = sig.member_of.map_or(String::new(), |c| {
                let name = structs.get(c.index()).map_or("<struct>", |s| &s.name);
                format!("{name}::")
            });
            let object = usize::from(sig.member_of.is_some());
            let params: Vec<String> = sig
                .params
                .iter()
                .skip(object)
                .map(|p| {
                    let c = if p.is_const { "const " } else { "" };
                    let r = if p.by_ref { "&" } else { "" };
                    format!("{c}{}{r}", display(&p.ty, structs))
                })
                .collect();
            let r = if sig.ret_by_ref { "&" } else { "" };
            // A pointer to a `const` member function: its object is const.
            let object_const =
                sig.member_of.is_some() && sig.params.first().is_some_and(|p| p.is_const);
            let cv = if object_const { " const" } else { "" };
            format!(
                "{}{r} ({class}*)({}){cv}",
                display(&sig.ret, structs),
                params.join(", ")
            )
        }
        Type::WideStr => "std::wstring".into(),
        Type::WideOstream => "std::wostream".into(),
        Type::StringStream(kind) => kind.name().into(),
        Type::Error => "<error>".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_c_arrays_show_their_bounds_outermost_first() {
        let int = Type::Scalar(Scalar::Int);
        let rows = Type::CArray(Box::new(Type::CArray(Box::new(int), 3)), 2);
        assert_eq!(display(&rows, &[]), "int[2][3]");
        let pointer = Type::Ptr {
            elem: Box::new(rows),
            is_const: false,
        };
        assert_eq!(display(&pointer, &[]), "int (*)[2][3]");
    }
}
