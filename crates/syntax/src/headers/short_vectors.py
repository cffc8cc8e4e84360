#!/usr/bin/env python3
"""Writes short_vectors.h: C++ AMP's `norm` and `unorm` and its short vector
types (concurrency::graphics int_2 ... unorm_4) in the Tessera language.

The types are many and regular (four element types, three sizes, every
swizzle), so their text is generated rather than written by hand. Run it
from this folder after changing it:

    python3 short_vectors.py > short_vectors.h

A swizzle or component alias (`v.xy`, `v.r`) is a property, as in MSVC's
header, whose properties name the members `get_xy` and `set_xy` (`rg`
names them too): the checker reads `v.xy` and `v.rg` as `v.get_xy()`, and
`v.xy = e` as `v.set_xy(e)` (see `Checker::property_accessor`). The
vectors so have the member functions MSVC's have and no others.
"""

import itertools

SCALARS = [
    # (prefix, element type, integral, signed)
    ("int", "int", True, True),
    ("uint", "unsigned int", True, False),
    ("float", "float", False, True),
    ("double", "double", False, True),
    ("norm", "norm", False, True),
    ("unorm", "unorm", False, False),
]
# The element types that are classes: their vectors also take their
# components as `float`s (each clamped), and `norm`'s take `unorm`s.
CLAMPED = {"norm": ["float", "unorm"], "unorm": ["float"]}
# The ranges `norm` and `unorm` clamp to.
RANGES = {"norm": ("-1.0f", "1.0f"), "unorm": ("0.0f", "1.0f")}
COMPONENTS = "xyzw"


def cast(elem):
    """What converts a component to `elem` in a member initialiser: a cast
    to a number type; nothing for `norm` and `unorm`, whose (explicit)
    constructors the initialiser calls directly."""
    return "" if elem in CLAMPED else f"({elem})"


def name(prefix, n):
    return f"{prefix}_{n}"


def struct(prefix, elem, integral, signed, n):
    t = name(prefix, n)
    comps = COMPONENTS[:n]
    out = []
    w = out.append
    w(f"struct {t} {{")
    w(f"    static const int size = {n};")
    w(f"    {elem} {', '.join(comps)};")
    w("")
    zero = ", ".join(f"{c}(0)" for c in comps)
    w(f"    {t}() restrict(cpu, amp) : {zero} {{}}")
    params = ", ".join(f"{elem} v{i}" for i in range(n))
    init = ", ".join(f"{c}(v{i})" for i, c in enumerate(comps))
    w(f"    {t}({params}) restrict(cpu, amp) : {init} {{}}")
    # One value for every component converts implicitly (MSVC's header and
    # its conformance tests: `*it = rand()` into an `int_4`); from a
    # `float`, a `norm` or `unorm` vector only explicitly.
    bcast = ", ".join(f"{c}(v)" for c in comps)
    w(f"    {t}({elem} v) restrict(cpu, amp) : {bcast} {{}}")
    for scalar in CLAMPED.get(prefix, []):
        params = ", ".join(f"{scalar} v{i}" for i in range(n))
        init = ", ".join(f"{c}(v{i})" for i, c in enumerate(comps))
        w(f"    {t}({params}) restrict(cpu, amp) : {init} {{}}")
    if prefix in CLAMPED:
        bcast = ", ".join(f"{c}(v)" for c in comps)
        w(f"    explicit {t}(float v) restrict(cpu, amp) : {bcast} {{}}")
    # Conversions from every other vector of this size, each component
    # cast. Those from the vectors declared before this one are defined
    # here; the others only declared, and defined once every vector of the
    # size is complete (`conversions`).
    earlier = True
    for other_prefix, _, _, _ in SCALARS:
        if other_prefix == prefix:
            earlier = False
            continue
        o = name(other_prefix, n)
        if earlier:
            conv = ", ".join(f"{c}({cast(elem)}other.{c})" for c in comps)
            w(f"    explicit {t}(const {o}& other) restrict(cpu, amp) : {conv} {{}}")
        else:
            w(f"    explicit {t}(const {o}& other) restrict(cpu, amp);")
    w("")
    for c in comps:
        w(f"    {elem} get_{c}() const restrict(cpu, amp) {{ return {c}; }}")
        w(f"    void set_{c}({elem} v) restrict(cpu, amp) {{ {c} = v; }}")
    # Swizzles of two or more distinct components. A setter takes its value
    # by copy, so `p.yx = p` swaps the components. The colour names
    # (`v.bgr`) are properties of these members too, so none is written
    # for them.
    for k in range(2, n + 1):
        rt = name(prefix, k)
        for perm in itertools.permutations(range(n), k):
            sw = "".join(COMPONENTS[p] for p in perm)
            vals = ", ".join(comps[p] for p in perm)
            sets = " ".join(f"{comps[p]} = v.{COMPONENTS[j]};" for j, p in enumerate(perm))
            w(f"    {rt} get_{sw}() const restrict(cpu, amp) {{ return {rt}({vals}); }}")
            w(f"    void set_{sw}({rt} v) restrict(cpu, amp) {{ {sets} }}")
    w("")
    # Compound assignment, increments, unary operators.
    ops = ["+", "-", "*", "/"]
    if integral:
        ops += ["%", "&", "|", "^", "<<", ">>"]
    for op in ops:
        body = " ".join(f"{c} {op}= v.{c};" for c in comps)
        w(f"    {t}& operator{op}=(const {t}& v) restrict(cpu, amp) {{ {body} return *this; }}")
    inc = " ".join(f"{c}++;" for c in comps)
    dec = " ".join(f"{c}--;" for c in comps)
    w(f"    {t}& operator++() restrict(cpu, amp) {{ {inc} return *this; }}")
    w(f"    {t} operator++(int) restrict(cpu, amp) {{ {t} old = *this; {inc} return old; }}")
    w(f"    {t}& operator--() restrict(cpu, amp) {{ {dec} return *this; }}")
    w(f"    {t} operator--(int) restrict(cpu, amp) {{ {t} old = *this; {dec} return old; }}")
    if signed:
        neg = ", ".join(f"-{c}" for c in comps)
        w(f"    {t} operator-() const restrict(cpu, amp) {{ return {t}({neg}); }}")
    if integral:
        inv = ", ".join(f"~{c}" for c in comps)
        w(f"    {t} operator~() const restrict(cpu, amp) {{ return {t}({inv}); }}")
        nt = ", ".join(f"({elem})!{c}" for c in comps)
        w(f"    {t} operator!() const restrict(cpu, amp) {{ return {t}({nt}); }}")
    w("};")
    w("")
    return "\n".join(out)


def free_functions(prefix, elem, integral, n):
    t = name(prefix, n)
    comps = COMPONENTS[:n]
    out = []
    w = out.append
    ops = ["+", "-", "*", "/"]
    if integral:
        ops += ["%", "&", "|", "^", "<<", ">>"]
    for op in ops:
        vals = ", ".join(f"a.{c} {op} b.{c}" for c in comps)
        w(f"inline {t} operator{op}(const {t}& a, const {t}& b) restrict(cpu, amp) {{ return {t}({vals}); }}")
    eq = " && ".join(f"a.{c} == b.{c}" for c in comps)
    w(f"inline bool operator==(const {t}& a, const {t}& b) restrict(cpu, amp) {{ return {eq}; }}")
    w(f"inline bool operator!=(const {t}& a, const {t}& b) restrict(cpu, amp) {{ return !(a == b); }}")
    return "\n".join(out)


def conversions(prefix, elem, n):
    """The constructors of `prefix`_n from the vectors declared after it."""
    t = name(prefix, n)
    comps = COMPONENTS[:n]
    out = []
    later = False
    for other_prefix, _, _, _ in SCALARS:
        if other_prefix == prefix:
            later = True
            continue
        if not later:
            continue
        o = name(other_prefix, n)
        conv = ", ".join(f"{c}({cast(elem)}other.{c})" for c in comps)
        out.append(f"{t}::{t}(const {o}& other) restrict(cpu, amp) : {conv} {{}}")
    return "\n".join(out)


def clamped_scalar(t, other, explicit_from_other):
    """`norm` or `unorm`: a float kept in its range. Every value stored goes
    through `__set`, which clamps as MSVC's header does: on the host by two
    comparisons (so NaN and -0.0 are kept), in amp code by
    `direct3d::clamp` (a NaN becomes the low end)."""
    lo, hi = RANGES[t]
    out = []
    w = out.append
    w(f"struct {t} {{")
    w("private:")
    w("    float __value;")
    w(f"    void __set(float v) restrict(cpu) {{ v = v < {lo} ? {lo} : v; v = v > {hi} ? {hi} : v; __value = v; }}")
    w(f"    void __set(float v) restrict(amp) {{ __value = concurrency::direct3d::clamp(v, {lo}, {hi}); }}")
    w("")
    w("public:")
    w(f"    {t}() restrict(cpu, amp) : __value(0.0f) {{}}")
    w(f"    explicit {t}(float v) restrict(cpu, amp) {{ __set(v); }}")
    w(f"    explicit {t}(unsigned int v) restrict(cpu, amp) {{ __set((float)v); }}")
    w(f"    explicit {t}(int v) restrict(cpu, amp) {{ __set((float)v); }}")
    w(f"    explicit {t}(double v) restrict(cpu, amp) {{ __set((float)v); }}")
    if explicit_from_other:
        w(f"    explicit {t}(const {other}& other) restrict(cpu, amp) {{ __set((float)other); }}")
    else:
        w(f"    {t}(const {other}& other) restrict(cpu, amp);")
    w(f"    operator float() const restrict(cpu, amp) {{ return __value; }}")
    for op in ["+", "-", "*", "/"]:
        w(f"    {t}& operator{op}=(const {t}& other) restrict(cpu, amp) {{ __set(__value {op} other.__value); return *this; }}")
    w(f"    {t}& operator++() restrict(cpu, amp) {{ __set(__value + 1.0f); return *this; }}")
    w(f"    {t} operator++(int) restrict(cpu, amp) {{ {t} old = *this; __set(__value + 1.0f); return old; }}")
    w(f"    {t}& operator--() restrict(cpu, amp) {{ __set(__value - 1.0f); return *this; }}")
    w(f"    {t} operator--(int) restrict(cpu, amp) {{ {t} old = *this; __set(__value - 1.0f); return old; }}")
    if t == "norm":
        # Negation stays in range: no clamp, as in MSVC's header.
        w(f"    {t} operator-() const restrict(cpu, amp) {{ {t} r; r.__value = -__value; return r; }}")
    w("};")
    w("")
    return "\n".join(out)


def clamped_scalar_operators(t):
    out = []
    for op in ["+", "-", "*", "/"]:
        out.append(f"inline {t} operator{op}(const {t}& a, const {t}& b) restrict(cpu, amp) {{ return {t}((float)a {op} (float)b); }}")
    for op in ["==", "!=", "<", ">", "<=", ">="]:
        out.append(f"inline bool operator{op}(const {t}& a, const {t}& b) restrict(cpu, amp) {{ return (float)a {op} (float)b; }}")
    return "\n".join(out)


def main():
    print("// Generated by short_vectors.py; do not edit (see there).")
    print("//")
    print("// C++ AMP's `norm` and `unorm` and its short vector types:")
    print("// concurrency::graphics::int_2 ... unorm_4 (<amp_short_vectors.h>, also")
    print("// brought by <amp_graphics.h>), with their constructors, component access")
    print("// (`v.x`, `get_x()`, `set_x(v)`), swizzle properties (`v.yx`, `v.rgb = w`),")
    print("// and component-wise operators.")
    print("#pragma once")
    print()
    print("#define UNORM_ZERO ((concurrency::graphics::unorm)0.0f)")
    print("#define UNORM_MIN ((concurrency::graphics::unorm)0.0f)")
    print("#define UNORM_MAX ((concurrency::graphics::unorm)1.0f)")
    print("#define NORM_ZERO ((concurrency::graphics::norm)0.0f)")
    print("#define NORM_MIN ((concurrency::graphics::norm)-1.0f)")
    print("#define NORM_MAX ((concurrency::graphics::norm)1.0f)")
    print()
    print("namespace concurrency {")
    print("namespace graphics {")
    print()
    print("struct unorm;")
    print(clamped_scalar("norm", "unorm", False))
    print(clamped_scalar("unorm", "norm", True))
    print("norm::norm(const unorm& other) restrict(cpu, amp) { __value = (float)other; }")
    print()
    print(clamped_scalar_operators("norm"))
    print(clamped_scalar_operators("unorm"))
    print()
    for n in (2, 3, 4):
        for prefix, _, _, _ in SCALARS:
            print(f"struct {name(prefix, n)};")
    print()
    for n in (2, 3, 4):
        for prefix, elem, integral, signed in SCALARS:
            print(struct(prefix, elem, integral, signed, n))
        for prefix, elem, _, _ in SCALARS:
            print(conversions(prefix, elem, n))
        print()
    for n in (2, 3, 4):
        for prefix, elem, integral, signed in SCALARS:
            print(free_functions(prefix, elem, integral, n))
            print()
    print("} // namespace graphics")
    print("} // namespace concurrency")


main()
