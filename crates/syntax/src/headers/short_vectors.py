#!/usr/bin/env python3
"""Writes short_vectors.h: C++ AMP's short vector types (concurrency::graphics
int_2 ... double_4) in the Tessera language.

The types are many and regular (four element types, three sizes, every
swizzle), so their text is generated rather than written by hand. Run it
from this folder after changing it:

    python3 short_vectors.py > short_vectors.h

A swizzle or component alias (`v.xy`, `v.r`) is a property, as in MSVC's
header: the checker reads `v.xy` as `v.__get_xy()` and `v.xy = e` as
`v.__set_xy(e)` when the class has such members and no data member `xy`.
"""

import itertools

SCALARS = [
    # (prefix, element type, integral, signed)
    ("int", "int", True, True),
    ("uint", "unsigned int", True, False),
    ("float", "float", False, True),
    ("double", "double", False, True),
]
COMPONENTS = "xyzw"
COLORS = "rgba"


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
    bcast = ", ".join(f"{c}(v)" for c in comps)
    w(f"    explicit {t}({elem} v) restrict(cpu, amp) : {bcast} {{}}")
    # Conversions from the vectors of this size declared before this one
    # (a class is complete only after its definition here, so `int_2` has
    # no constructor from `float_2` yet).
    for other_prefix, other_elem, _, _ in SCALARS:
        if other_prefix == prefix:
            break
        o = name(other_prefix, n)
        conv = ", ".join(f"{c}(({elem})other.{c})" for c in comps)
        w(f"    explicit {t}(const {o}& other) restrict(cpu, amp) : {conv} {{}}")
    w("")
    for i, c in enumerate(comps):
        cap = c
        w(f"    {elem} get_{cap}() const restrict(cpu, amp) {{ return {c}; }}")
        w(f"    void set_{cap}({elem} v) restrict(cpu, amp) {{ {c} = v; }}")
        color = COLORS[i]
        w(f"    {elem} __get_{color}() const restrict(cpu, amp) {{ return {c}; }}")
        w(f"    void __set_{color}({elem} v) restrict(cpu, amp) {{ {c} = v; }}")
        w(f"    {elem} get_{color}() const restrict(cpu, amp) {{ return {c}; }}")
        w(f"    void set_{color}({elem} v) restrict(cpu, amp) {{ {c} = v; }}")
    # Swizzles of two or more distinct components. A setter takes its value
    # by copy, so `p.yx = p` swaps the components.
    for k in range(2, n + 1):
        rt = name(prefix, k)
        for perm in itertools.permutations(range(n), k):
            for letters in (COMPONENTS, COLORS):
                sw = "".join(letters[p] for p in perm)
                vals = ", ".join(comps[p] for p in perm)
                sets = " ".join(f"{comps[p]} = v.{COMPONENTS[j]};" for j, p in enumerate(perm))
                w(f"    {rt} __get_{sw}() const restrict(cpu, amp) {{ return {rt}({vals}); }}")
                w(f"    void __set_{sw}({rt} v) restrict(cpu, amp) {{ {sets} }}")
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


def main():
    print("// Generated by short_vectors.py; do not edit (see there).")
    print("//")
    print("// C++ AMP's short vector types: concurrency::graphics::int_2 ... double_4")
    print("// (<amp_short_vectors.h>, also brought by <amp_graphics.h>), with their")
    print("// constructors, component access (`v.x`, `get_x()`, `set_x(v)`), swizzle")
    print("// properties (`v.yx`, `v.rgb = w`), and component-wise operators.")
    print("#pragma once")
    print()
    print("namespace concurrency {")
    print("namespace graphics {")
    print()
    for n in (2, 3, 4):
        for prefix, elem, integral, signed in SCALARS:
            print(struct(prefix, elem, integral, signed, n))
    for n in (2, 3, 4):
        for prefix, elem, integral, signed in SCALARS:
            print(free_functions(prefix, elem, integral, n))
            print()
    print("} // namespace graphics")
    print("} // namespace concurrency")


main()
