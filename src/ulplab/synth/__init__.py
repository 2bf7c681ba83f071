"""Stage: design. ``ulplab synth``: the cheapest kernel proven correct on every input of a format.

For a function, a format and a target's profile (``cost.PROFILES``: FMA or not, division or
not, how large a table), ``synthesize`` searches templates, degrees and piece counts in order
of cost; each candidate's coefficients come from a linear program over the rounding intervals
of every input (``intervals``, ``lp``: RLibm's method — the polynomial does not approximate the
function, it lands inside the set of values that round to the right result), and the candidate
is accepted only when its kernel (``ulplab.methods.synthesized.kernel``, the code that is
exported) gives the right result on every input. ``pareto`` repeats it for a ladder of error
targets and sets the registered methods and ``det`` beside it.

Packages below: formats, functions, kit, methods (the recipe's kernel), oracle (the tables),
export (tracing, for op counts and code). Nothing below imports synth.
"""

from __future__ import annotations

from typing import Any

from ulplab.synth.cost import (
    PROFILES,
    Profile,
    kind_counts,
    op_counts,
    op_kind,
    total,
    weighted,
)
from ulplab.synth.search import Result, problem, synthesize

__all__ = ["PROFILES", "Profile", "Result", "kind_counts", "listing", "op_counts", "op_kind",
           "pareto", "problem", "source", "synthesize", "total", "weighted"]

LANGS = ("c", "cuda", "numpy", "torch", "jax", "triton", "ops")


def source(recipe: Any, lang: str) -> str:
    """The recipe's kernel as source in ``lang`` through ulplab's exporters (the traced kernel:
    the same operations in the same order), or ``ops``: a plain operation listing."""
    from ulplab.errors import unknown_choice
    from ulplab.export.emit_c import emit_c
    from ulplab.export.emit_py import emit_python
    from ulplab.export.emit_triton import emit_triton
    from ulplab.export.trace import trace
    from ulplab.methods.synthesized import c_identifier, kernel

    if lang not in LANGS:
        raise unknown_choice("language", lang, LANGS)
    graph = trace(kernel(recipe))
    name = c_identifier(recipe)
    head = (f"{recipe.function} for {recipe.format} ({recipe.rounding}), made by "
            f"`{recipe.provenance.get('command', 'ulplab synth')}`\n"
            f"Verified on {recipe.proof.get('inputs_verified', 0)} inputs: max "
            f"{recipe.proof.get('max_ulp', '?')} ULP after rounding the float32 result once "
            f"to {recipe.format}.")
    if lang == "ops":
        return listing(recipe, graph)
    if lang in ("c", "cuda"):
        return emit_c(graph, name, head, dialect=lang)
    if lang == "triton":
        return emit_triton(graph, name, head)
    text = emit_python(graph, lang, head)
    if recipe.function.isidentifier():  # the module defines FUNC(x) too
        text = text.rstrip("\n") + f"\n{recipe.function} = _kernel\n"
    return text


def listing(recipe: Any, graph: Any = None) -> str:
    """The kernel as a plain operation listing, what a kernel author ports by hand: one
    operation a line, its first word the kind (``add sub mul fma div sqrt min max select cmp
    abs neg copysign round cvt iadd isub and or xor not shl shr``, ``load`` for a table read,
    ``convert`` for the final conversion to the format), then ``dest = op(args)``; reinterpreting
    a register's bits costs nothing and is a comment, as are the tables (``#`` starts one). The
    lines other than ``load`` and ``convert`` are the operations the cost model counts."""
    from ulplab.export.trace import trace
    from ulplab.methods.synthesized import kernel

    g = graph if graph is not None else trace(kernel(recipe))
    names: dict[int, str] = {}
    types = {"<i4": "int32", "<u4": "uint32", "|b1": "mask", "<f4": "float32"}
    lines = [f"# {recipe.function} / {recipe.format} ({recipe.rounding}): one operation a "
             "line, its kind first; float32 unless noted; constants as hex"]

    def arg(a: tuple[Any, ...]) -> str:
        if a[0] == "node":
            return names.get(a[1], f"v{a[1]}")
        if a[0] == "table":
            return a[1]
        v = a[1]
        return float(v).hex() if isinstance(v, float) else str(v)

    for n in g.nodes:
        if n.op == "input":
            names[n.id] = "x"
            continue
        if n.op == "full":
            names[n.id] = arg(n.args[1])
            continue
        names[n.id] = f"v{n.id}"
        note = "" if n.dtype == "<f4" else f"  ({types.get(n.dtype, n.dtype)})"
        if n.op == "bitcast":
            lines.append(f"# v{n.id} = the bits of {arg(n.args[0])} as "
                         f"{types.get(n.dtype, n.dtype)} (free)")
            continue
        if n.op == "take":
            body = f"{arg(n.args[0])}[{arg(n.args[1])}]"
        else:
            body = f"{n.op}({', '.join(arg(a) for a in n.args)})"
        lines.append(f"{op_kind(n.op, n.dtype)} v{n.id} = {body}{note}")
    out = names.get(g.output, f"v{g.output}")
    lines.append(f"convert y = round_to_{recipe.format}({out}, {recipe.rounding})")
    for name, t in g.tables.items():
        if t.dtype.kind == "f":
            vals = ", ".join(float(v).hex() for v in t.tolist())
        elif name in _float_bit_tables(g):
            vals = "float32 bit patterns " + ", ".join(f"0x{int(v):08x}" for v in t.tolist())
        else:
            vals = ", ".join(str(int(v)) for v in t.tolist())
        lines.append(f"# table {name}, {t.size} x {types.get(t.dtype.str, t.dtype.str)}: "
                     f"{vals}")
    return "\n".join(lines) + "\n"


def _float_bit_tables(graph: Any) -> set[str]:
    """The uint32 tables whose reads are reinterpreted as float32 (log_table's E)."""
    out = set()
    for n in graph.nodes:
        if n.op == "bitcast" and n.dtype == "<f4":
            src = graph.nodes[n.args[0][1]]
            if src.op == "take":
                out.add(src.args[0][1])
    return out


def pareto(function: str, fmt: str, profile: Profile, levels: tuple[int, ...] = (0, 1, 2, 4),
           rounding: str = "nearest-even", progress: Any = None) -> dict[str, Any]:
    """Operations against max ULP: a synthesized kernel per level, then every registered
    method of the function with a claim for the format, ``det`` included."""
    from ulplab.methods import methods_for

    rows = []
    for lvl in levels:
        res = synthesize(function, fmt, profile, max_ulp=lvl, rounding=rounding,
                         progress=progress)
        r = res.recipe
        rows.append({"method": f"synth (≤ {lvl} ULP)", "kind": "synthesized",
                     "max_ulp": None if r is None else r.proof["max_ulp"],
                     "ops": None if r is None else total(res.ops),
                     "table_words": None if r is None else r.table_entries,
                     "seconds": round(res.seconds, 1), "recipe": None if r is None else
                     r.to_json()})
    for m in methods_for(function):
        c = m.claims.get(fmt)
        if c is None or m.family == "synthesized":
            continue
        ops = {k: v for k, v in m.ops.items() if not k.startswith("lib:")}
        rows.append({"method": m.name, "kind": m.family, "max_ulp": c.max_ulp,
                     "ops": sum(v for k, v in ops.items() if k != "lookup"),
                     "table_words": m.table_bytes // 4, "library_calls": list(m.library_calls)})
    return {"function": function, "format": fmt, "profile": profile.name,
            "rounding": rounding, "rows": rows}
