"""The cost model: operations per element of a recipe's kernel, by kind, and a profile's weights.

Counted from the traced kernel (``ulplab.export.trace``: the graph the exporters print), so the
count is of the code that ships. Every operation of a branch-free SIMD kernel runs for every
element, so the count is the sum over the graph (``depth`` gives the longest dependency chain
too). Kinds: ``add`` (float add/sub), ``mul``, ``fma``, ``div``, ``sqrt``, ``cmp``, ``select``,
``minmax``, ``sign`` (abs, copysign), ``round`` (floor/rint), ``convert`` (float <-> int),
``int`` (integer add/sub), ``bit`` (and, or, xor, shifts), and apart, not in the total: ``lookup``
(table reads) — the final float32 -> format conversion is not in the kernel and not counted.
Constants and bit reinterpretations (a register seen as another type) are free.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ulplab.methods.synthesized import Recipe, kernel

KINDS = ("mul", "add", "fma", "div", "sqrt", "cmp", "select", "minmax", "sign", "round",
         "convert", "int", "bit", "lookup")

_KIND = {"add": "add", "subtract": "sub", "multiply": "mul", "square": "mul", "fma": "fma",
         "divide": "div", "true_divide": "div", "reciprocal": "div", "sqrt": "sqrt",
         "minimum": "min", "maximum": "max", "fmin": "min", "fmax": "max", "where": "select",
         "absolute": "abs", "fabs": "abs", "negative": "neg", "copysign": "copysign",
         "floor": "round", "rint": "round", "ceil": "round", "trunc": "round",
         "convert": "cvt", "take": "load", "bitwise_and": "and", "bitwise_or": "or",
         "bitwise_xor": "xor", "invert": "not", "left_shift": "shl", "right_shift": "shr",
         "logical_and": "and", "logical_or": "or", "logical_not": "not"}
_CMP = {"greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "isnan",
        "isinf", "isfinite", "signbit"}
_COARSE = {"sub": "add", "min": "minmax", "max": "minmax", "abs": "sign", "neg": "sign",
           "copysign": "sign", "cvt": "convert", "iadd": "int", "isub": "int", "and": "bit",
           "or": "bit", "xor": "bit", "not": "bit", "shl": "bit", "shr": "bit",
           "load": "lookup"}
"""The cost model's kind (``KINDS``) of each listing kind that is not one itself."""
_FREE = {"input", "full", "bitcast"}


@dataclass(frozen=True)
class Profile:
    """A target: whether it has FMA and division, how many table words it may read from, and
    the weight of each kind of operation in the cost (1 unless given; lookups weigh 0: they
    are reported apart)."""

    name: str
    use_fma: bool = True
    division: bool = True
    max_table: int = 1024
    weights: dict[str, float] = field(default_factory=dict)
    about: str = ""


PROFILES: dict[str, Profile] = {
    "fma": Profile("fma", True, True, 1024, about="CPU/GPU float32 with FMA; tables up to "
                   "1,024 words"),
    "no-fma": Profile("no-fma", False, True, 1024, about="float32 without FMA (multiply, then "
                      "add); tables up to 1,024 words"),
    "sfpu": Profile("sfpu", False, False, 64, about="SFPU-like vector unit: no FMA, no "
                    "division, a small look-up table (64 words)"),
}


def op_counts(recipe: Recipe) -> dict[str, int]:
    """Operations per element of the recipe's kernel by kind (see the module docstring)."""

    out: dict[str, int] = {}
    for kind, count in kind_counts(recipe).items():
        coarse = _COARSE.get(kind, kind)
        out[coarse] = out.get(coarse, 0) + count
    return {k: out[k] for k in [*KINDS, *sorted(set(out) - set(KINDS))] if k in out}


def op_kind(op: str, dtype: str) -> str:
    """The fine kind of one traced operation, the first word of a listing line (``cmp`` for
    every compare, ``iadd``/``isub`` for integer arithmetic, ``cvt`` for a float <-> integer
    conversion inside the kernel, ``load`` for a table read)."""
    if op in _CMP:
        return "cmp"
    if op in ("add", "subtract") and dtype != "<f4":
        return "iadd" if op == "add" else "isub"
    return _KIND.get(op, op)


def kind_counts(recipe: Recipe) -> dict[str, int]:
    """Operations per element by the listing's fine kinds, table reads as ``load``; ``op_counts``
    groups them into the cost model's kinds."""
    from ulplab.export.trace import trace

    out: dict[str, int] = {}
    for n in trace(kernel(recipe)).nodes:
        if n.op in _FREE:
            continue
        k = op_kind(n.op, n.dtype)
        out[k] = out.get(k, 0) + 1
    return dict(sorted(out.items()))


def weighted(ops: dict[str, int], profile: Profile) -> float:
    """The profile's cost of an op count: the weighted sum, lookups excluded."""
    return float(sum(profile.weights.get(k, 1.0) * v for k, v in ops.items() if k != "lookup"))


def total(ops: dict[str, int]) -> int:
    """Operations per element, table reads excluded (the figure the tables print)."""
    return sum(v for k, v in ops.items() if k != "lookup")
