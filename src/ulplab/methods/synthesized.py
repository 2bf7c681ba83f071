"""Kernels made by ``ulplab synth``: a recipe (JSON) and the one float32 kernel it defines.

A recipe says which template the kernel follows, how its pieces are chosen, the float32
coefficients of each piece (hex literals), the saturation tails (compares and selects) and the
proof that came with it (how many inputs were verified, against what). ``kernel(recipe)``
builds the float32 array function from it with the kit's IEEE float32 operations only (+ − ×,
FMA where the recipe says so, compare, select, bit manipulation, table reads through
``kit.lookup``): the same function is what ``ulplab synth`` verified on every input, what
``Method.ops`` counts and what ``ulplab export`` traces — there is no second model of it.

Templates (``u`` is ``x`` or ``|x|``, ``P`` the piece's polynomial in ``u``):

* ``poly``: ``P(u)``;
* ``x_poly``: ``x * P(u)`` (odd functions, ``x Phi(x)``-like ones: tiny inputs come out right by
  construction and a NaN propagates);
* ``exp2`` / ``x_exp2``: ``2^P(u)`` / ``x * 2^P(u)``: ``t = P(u)``, ``n = rint(t)``,
  ``f = t - n`` (exact), ``q = Q(f)`` (the recipe's ``core``: a polynomial close to ``2^f`` on
  [-1/2, 1/2]), then ``q * 2^n`` with ``2^n`` built from its bits (``scale``: ``one`` when
  ``n`` stays in [-126, 127], ``offset64`` — ``(q 2^(n+64)) 2^-64``, one extra
  multiplication, when ``n`` is in [-190, 63] — or ``two``: two factors, for ``n`` in
  [-252, 254]); the integer arithmetic is unsigned (it wraps, never overflows), so a NaN or
  an input in a saturation tail computes garbage bits there that the tail's select replaces,
  and nothing is undefined in the exported C;
* ``log``: ``x = m 2^e`` with ``m`` in [1, 2) from the bits (subnormal inputs scaled by 2^23
  first), ``e * ln2 + P(m)`` with one FMA, pieces chosen by the leading bits of ``m``;
* ``log_table``: ``min(E[bits >> 23] + P(r), x)``: the top nine bits of the input (sign and
  biased exponent) read ``E`` (``log_exponent_table``: ``e ln2`` rounded to float32, and the
  specials: -inf for ±0, +inf for +inf, NaN for every negative input), the mantissa's leading
  bits choose P's piece, P's variable ``r`` is the mantissa field as an integer
  (``(m - 1) 2^23``, converted exactly), and the minimum with ``x`` itself turns a NaN input
  into NaN (log x < x for every x > 0, and min(inf, inf) = inf). ``scale``: ``one``, or
  ``tiny23`` where the format has inputs below 2^-126 (bfloat16): those are scaled by 2^23
  first and ``E`` corrected by -23 ln2 (a compare, a multiplication, two selects and an
  addition);
* ``exp_table``: ``e^x = Q(r) T[n mod K]``: ``x`` clamped into the range where the result is
  neither 0 nor an overflow (``u_clamp``), ``s = fma(x, N/ln2, 1.5 2^23)`` (the addition of the
  magic constant rounds: ``n = s - 1.5 2^23`` is ``rint(x N/ln2)`` and the low bits of ``s``
  hold ``n``), ``r = fma(n, -L, x)`` with ``L`` close to ln2/N (``reduction``: [N/ln2, -L]; L
  has 12 significant bits, so ``n L`` is exact and ``r`` too), ``Q`` a polynomial close to
  ``e^r``, and ``T`` (``table``, K a power of two, read by ``bits(s) & (K - 1)``) close to
  ``e^(n L)`` — each entry chosen so that every input with that ``n`` comes out right. No
  compare, no select: a NaN input stays NaN through the clamp and the arithmetic.

Pieces: ``uniform`` over ``[a, b]``: ``i = min(uint(max(fma(u, s, o), 0)), K - 1)`` — the
conversion's answer for NaN or out of range is clamped too, so a table read never leaves the
table — or ``mantissa`` (log: the top bits of ``m``). Tails: ``x >= T`` (or ``|x| >= T``,
``x <= T``) selects ``x``, a constant, or ``copysign(c, x)``; a NaN input fails every compare
and reaches the template's value, which is NaN by propagation.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ulplab.kit.fma import fma
from ulplab.kit.ops import f32hex, lookup

ArrayFn = Callable[[np.ndarray], np.ndarray]

TEMPLATES = ("poly", "x_poly", "exp2", "x_exp2", "log", "log_table", "exp_table")
SCALES = ("one", "offset64", "two")
LOG_SCALES = ("one", "tiny23")
LOG_EXPONENT_ENTRIES = 512
"""Words of the ``log_table`` template's exponent table (indexed by the top nine bits)."""
MAGIC = "0x1.8p+23"
"""1.5 2^23: adding it to a float32 |t| < 2^22 rounds t to an integer held in the low bits."""
TAIL_VALUES = ("x", "const", "copysign")

RECIPE_DIR = Path(__file__).with_name("recipes")
"""The recipes shipped with ulplab (registered as methods at import)."""


def hex32(v: float) -> str:
    """The exact hex literal of a float32 value (``float.hex`` of it)."""
    return float(np.float32(v)).hex()


@dataclass(frozen=True)
class Tail:
    """Inputs past ``threshold`` (``side``: ``above``: x >= T, ``below``: x <= T, ``abs_above``:
    |x| >= T, ``equal``: x == T, an exception) take ``value``: ``x`` itself, the constant
    ``const``, or ``copysign(const, x)``."""

    side: str
    threshold: str
    value: str
    const: str = "0x0.0p+0"


@dataclass(frozen=True)
class Recipe:
    """Everything ``kernel`` needs, and where it came from. Coefficients are float32 hex
    literals, lowest degree first, one list per piece."""

    function: str
    format: str
    template: str
    variable: str  # "x" or "abs"
    coefficients: list[list[str]]
    partition: dict[str, Any] = field(default_factory=lambda: {"kind": "none"})
    use_fma: bool = True
    core: list[str] = field(default_factory=list)
    clamp: list[str] = field(default_factory=list)
    scale: str = "one"
    tails: list[Tail] = field(default_factory=list)
    ln2: str = ""
    u_clamp: list[str] = field(default_factory=list)
    """[low, high] (hex, "" for none): the polynomial's variable clamped into [low, high]
    (NaN passes), so the inputs past ``high`` reuse its piece's value — x P or x 2^P then gives
    x itself, +inf included, with one minmax instead of a tail's compare and select."""
    table: list[str] = field(default_factory=list)
    """``exp_table``: the float32 table T (hex), a power of two long."""
    reduction: list[str] = field(default_factory=list)
    """``exp_table``: [N/ln2, -L] (hex): the scaling that picks n and the step removed per n."""
    tiny: str = ""
    """Hex ``d``: ``copysign(v + d, x)`` after the template (x-templates): nudges a result that
    would sit exactly on a midpoint of the format's subnormals (x Phi(x) = x/2 + O(x^2) for
    subnormal x) to the right side, keeping the sign of x (gelu(-0) = -0)."""
    rounding: str = "nearest-even"
    target: dict[str, Any] = field(default_factory=dict)
    profile: str = "fma"
    name: str = ""
    proof: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def pieces(self) -> int:
        return len(self.coefficients)

    @property
    def degree(self) -> int:
        return len(self.coefficients[0]) - 1

    @property
    def table_entries(self) -> int:
        """Float32 words of the kernel's tables (0 for a single piece of a template without
        one)."""
        fixed = LOG_EXPONENT_ENTRIES if self.template == "log_table" else len(self.table)
        return fixed + (self.pieces * (self.degree + 1) if self.pieces > 1 else 0)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Recipe:
        d = dict(d)
        d["tails"] = [Tail(**t) for t in d.get("tails", [])]
        return cls(**d)


def check(recipe: Recipe) -> None:
    """Refuse a malformed recipe with a ValueError naming what is wrong."""
    r = recipe
    if r.template not in TEMPLATES:
        raise ValueError(f"recipe template {r.template!r}: expected one of {TEMPLATES}")
    if r.variable not in ("x", "abs"):
        raise ValueError(f"recipe variable {r.variable!r}: expected 'x' or 'abs'")
    if not r.coefficients or len({len(c) for c in r.coefficients}) != 1:
        raise ValueError("recipe coefficients: one non-empty list per piece, all the same length")
    for c in [*[v for cs in r.coefficients for v in cs], *r.core, *r.clamp,
              *[v for t in r.tails for v in (t.threshold, t.const) if v not in _INFINITE]]:
        f32hex(c)  # raises on a non-float32 literal
    kind = r.partition.get("kind")
    if (r.pieces > 1) != (kind in ("uniform", "mantissa")):
        raise ValueError(f"recipe partition {kind!r} does not fit {r.pieces} pieces")
    if kind == "mantissa" and (r.template not in ("log", "log_table")
                               or r.pieces & (r.pieces - 1)):
        raise ValueError("a mantissa partition is for the log templates, 2^k pieces")
    if r.template in ("exp2", "x_exp2") and (not r.core or r.scale not in SCALES):
        raise ValueError("an exp2 recipe needs a core polynomial and a scale in "
                         f"{SCALES}")
    if r.template in ("log", "log_table") and not r.ln2:
        raise ValueError("a log recipe needs ln2")
    if r.template == "exp_table" and (
            r.pieces != 1 or len(r.reduction) != 2 or len(r.u_clamp) != 2
            or not all(r.u_clamp) or not r.table or len(r.table) & (len(r.table) - 1)):
        raise ValueError("an exp_table recipe needs one polynomial, a reduction [N/ln2, -L], "
                         "both clamp ends and a table of 2^k entries")
    for v in [*r.table, *r.reduction]:
        f32hex(v)
    if r.template == "log_table" and r.scale not in LOG_SCALES:
        raise ValueError(f"a log_table recipe needs a scale in {LOG_SCALES}")
    for t in r.tails:
        if t.side not in ("above", "below", "abs_above", "equal") or t.value not in TAIL_VALUES:
            raise ValueError(f"recipe tail {t}: bad side or value")


_INFINITE = {"inf": 0x7F800000, "-inf": 0xFF800000}


def _const(x: np.ndarray, lit: str) -> np.ndarray:
    if lit in _INFINITE:
        return np.full_like(x, _INFINITE[lit], dtype=np.uint32).view(np.float32)
    return np.full_like(x, f32hex(lit))


def _u32(x: np.ndarray, v: int) -> np.ndarray:
    return np.full_like(x, v, dtype=np.uint32)


def _mad(a: np.ndarray, b: np.ndarray, c: np.ndarray, use_fma: bool) -> np.ndarray:
    return fma(a, b, c) if use_fma else a * b + c


def _horner(u: np.ndarray, cs: list[np.ndarray], use_fma: bool) -> np.ndarray:
    acc = cs[-1]
    for c in reversed(cs[:-1]):
        acc = _mad(acc, u, c, use_fma)
    return acc


def _coefficient_arrays(r: Recipe, u: np.ndarray, index: np.ndarray | None) -> list[np.ndarray]:
    if index is None:
        return [_const(u, c) for c in r.coefficients[0]]
    tables = np.array([[float(f32hex(c)) for c in piece] for piece in r.coefficients],
                      dtype=np.float32)
    return [lookup(np.ascontiguousarray(tables[:, j]), index) for j in range(r.degree + 1)]


def clamp_variable(recipe: Recipe, u: np.ndarray) -> np.ndarray:
    """The polynomial's variable after the recipe's ``u_clamp`` (NaN propagates)."""
    if recipe.u_clamp and recipe.u_clamp[1]:
        u = np.minimum(u, _const(u, recipe.u_clamp[1]))
    if recipe.u_clamp and recipe.u_clamp[0]:
        u = np.maximum(u, _const(u, recipe.u_clamp[0]))
    return u


def piece_index(recipe: Recipe, x: np.ndarray) -> np.ndarray:
    """Which piece each float32 input falls in (the kernel's own computation; 0 for one piece)."""
    x = np.asarray(x, dtype=np.float32)
    if recipe.pieces == 1:
        return np.zeros(x.shape, dtype=np.uint32)
    with np.errstate(all="ignore"):
        if recipe.template in ("log", "log_table"):
            tiny = x < np.float32(2.0**-126)
            bits = np.where(tiny, x * np.float32(2.0**23), x).view(np.uint32)
            b = recipe.pieces.bit_length() - 1
            return (bits >> np.uint32(23 - b)) & np.uint32(recipe.pieces - 1)
        u = np.abs(x) if recipe.variable == "abs" else x
        return _uniform_index(recipe, clamp_variable(recipe, u))


def _uniform_index(r: Recipe, u: np.ndarray) -> np.ndarray:
    p = r.partition
    s, o = _const(u, p["scale"]), _const(u, p["offset"])
    t = _mad(u, s, o, r.use_fma) if float(f32hex(p["offset"])) != 0 else u * s
    if r.variable == "x" or float(f32hex(p["offset"])) != 0:
        t = np.maximum(t, np.zeros_like(t))
    i = t.astype(np.int32).view(np.uint32)  # NaN / too large: a value the clamp below bounds
    return np.minimum(i, _u32(i, r.pieces - 1))


def _pow2_bits(k: np.ndarray, bias: int) -> np.ndarray:
    """2^(k + bias - 127) from its bits (k a uint32 view of an int32; wraps, never traps)."""
    return ((k + _u32(k, bias)) << _u32(k, 23)).view(np.float32)


def exp2_part(r: Recipe, t: np.ndarray, factor: np.ndarray | None) -> np.ndarray:
    """The exp2 templates after the polynomial: ``[factor *] 2^t`` by the recipe's core and
    scale (``synth`` inverts it to find each input's interval for ``t``)."""
    if r.clamp:
        t = np.minimum(np.maximum(t, _const(t, r.clamp[0])), _const(t, r.clamp[1]))
    n = np.rint(t)
    f = t - n
    q = _horner(f, [_const(t, c) for c in r.core], r.use_fma)
    if factor is not None:
        q = factor * q
    k = n.astype(np.int32).view(np.uint32)
    if r.scale == "one":
        return q * _pow2_bits(k, 127)
    if r.scale == "offset64":
        return (q * _pow2_bits(k, 127 + 64)) * _const(t, "0x1p-64")
    k1 = (k.view(np.int32) >> np.full_like(k.view(np.int32), 1)).view(np.uint32)
    return (q * _pow2_bits(k1, 127)) * _pow2_bits(k - k1, 127)


def _log(r: Recipe, x: np.ndarray) -> np.ndarray:
    tiny = x < _const(x, "0x1p-126")
    xs = np.where(tiny, x * _const(x, "0x1p+23"), x)
    bits = xs.view(np.uint32)
    e = (bits >> _u32(bits, 23)).view(np.int32) - np.where(
        tiny, np.full_like(bits.view(np.int32), 127 + 23), np.full_like(bits.view(np.int32), 127))
    m = ((bits & _u32(bits, 0x7FFFFF)) | _u32(bits, 0x3F800000)).view(np.float32)
    index = None
    if r.pieces > 1:
        b = r.pieces.bit_length() - 1
        index = (bits >> _u32(bits, 23 - b)) & _u32(bits, r.pieces - 1)
    p = _horner(m, _coefficient_arrays(r, m, index), r.use_fma)
    v = _mad(e.astype(np.float32), _const(x, r.ln2), p, r.use_fma)
    inf = _u32(x, 0x7F800000).view(np.float32)
    nan = _u32(x, 0x7FC00000).view(np.float32)
    ninf = _u32(x, 0xFF800000).view(np.float32)
    v = np.where(x == inf, inf, v)
    zero = np.zeros_like(x)
    return np.where(x > zero, v, np.where(x == zero, ninf, nan))


def log_exponent_table(ln2: str) -> np.ndarray:
    """The ``log_table`` template's ``E`` as float32 bits (uint32), indexed by the top nine bits
    of a float32 (sign, biased exponent): ``E[k] = e * ln2`` rounded once to float32 for
    ``k = e + 127`` in 1..254 (``e * ln2`` is exact in float64: ``ln2`` is the recipe's float32
    constant, ``e`` has 8 bits), -inf for k = 0 and 256 (±0), +inf for 255 (+inf; a positive NaN
    becomes NaN through the template's minimum with x), NaN for 257..511 (negative inputs)."""
    c = float(f32hex(ln2))
    e = np.arange(256, dtype=np.float64) - 127
    pos = (e * c).astype(np.float32)
    pos[0], pos[255] = -np.inf, np.inf
    neg = np.full(256, np.nan, dtype=np.float32)
    neg[0] = -np.inf
    return np.concatenate([pos, neg]).view(np.uint32)


def _log_prelude(r: Recipe, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bits, E) of the ``log_table`` template: the input's bits (after the ``tiny23`` scaling)
    and its exponent-table value (corrected for the scaling)."""
    xs, tiny = x, None
    if r.scale == "tiny23":
        tiny = x < _const(x, "0x1p-126")
        xs = np.where(tiny, x * _const(x, "0x1p+23"), x)
    bits = xs.view(np.uint32)
    table = log_exponent_table(r.ln2)
    e = lookup(table, bits >> _u32(bits, 23)).view(np.float32)
    if tiny is not None:
        c23 = hex32(-23.0 * float(f32hex(r.ln2)))
        e = np.where(tiny, e + _const(x, c23), e)
    return bits, e


def _log_table(r: Recipe, x: np.ndarray) -> np.ndarray:
    bits, e = _log_prelude(r, x)
    index = None
    if r.pieces > 1:
        b = r.pieces.bit_length() - 1
        index = (bits >> _u32(bits, 23 - b)) & _u32(bits, r.pieces - 1)
    # the mantissa field as an integer, converted exactly: (m - 1) 2^23, so a piece near m = 1
    # (log x near 0) is evaluated without cancellation; degree 0 reads no variable
    m = (bits & _u32(bits, 0x7FFFFF)).view(np.int32).astype(np.float32) if r.degree else x
    p = _horner(m, _coefficient_arrays(r, m, index), r.use_fma)
    return np.minimum(e + p, x)


def exp_table_parts(r: Recipe, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(r, index, n) of the ``exp_table`` template: the reduced argument, the table index and
    the number of steps (``synth`` fits Q and T to the kernel's own values)."""
    u = clamp_variable(r, x)
    magic = _const(x, MAGIC)
    s = _mad(u, _const(x, r.reduction[0]), magic, r.use_fma)
    n = s - magic
    rr = _mad(n, _const(x, r.reduction[1]), u, r.use_fma)
    return rr, s.view(np.uint32) & _u32(x, len(r.table) - 1), n


def kernel(recipe: Recipe) -> ArrayFn:
    """The float32 -> float32 array kernel the recipe defines (see the module docstring)."""
    check(recipe)
    r = recipe

    def run(x: np.ndarray) -> np.ndarray:
        # a NaN input, or one in a tail, computes garbage that a select replaces: no warnings
        with np.errstate(all="ignore"):
            if r.template == "log":
                v = _log(r, x)
            elif r.template == "log_table":
                v = _log_table(r, x)
            elif r.template == "exp_table":
                rr, index, _ = exp_table_parts(r, x)
                q = _horner(rr, _coefficient_arrays(r, rr, None), r.use_fma)
                table = np.array([f32hex(v) for v in r.table], dtype=np.float32)
                v = q * lookup(table, index)
            else:
                u = clamp_variable(r, np.abs(x) if r.variable == "abs" else x)
                index = _uniform_index(r, u) if r.pieces > 1 else None
                p = _horner(u, _coefficient_arrays(r, u, index), r.use_fma)
                v = from_poly(r, p, x)
            for tail in r.tails:
                v = _apply_tail(tail, x, v)
        return v

    run.__name__ = f"synth_{r.function}"
    return run


def from_poly(recipe: Recipe, p: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The template's value from the polynomial's value ``p`` at input ``x`` (everything after
    the polynomial but the tails; ``synth`` inverts it to find each input's interval for p)."""
    r = recipe
    if r.template == "log_table":
        return np.minimum(_log_prelude(r, x)[1] + p, x)
    if r.template == "poly":
        v = p
    elif r.template == "x_poly":
        v = x * p
    else:
        v = exp2_part(r, p, x if r.template == "x_exp2" else None)
    if r.tiny:
        v = np.copysign(v + _const(x, r.tiny), x)
    return v


def _apply_tail(tail: Tail, x: np.ndarray, v: np.ndarray) -> np.ndarray:
    t = _const(x, tail.threshold)
    if tail.side == "above":
        hit = x >= t
    elif tail.side == "below":
        hit = x <= t
    elif tail.side == "equal":  # one exception: an input the polynomial cannot serve
        hit = x == t
    else:
        hit = np.abs(x) >= t
    if tail.value == "x":
        value = x
    elif tail.value == "const":
        value = _const(x, tail.const)
    else:
        value = np.copysign(_const(x, tail.const), x)
    return np.where(hit, value, v)


def load_recipe(path: str | Path) -> Recipe:
    """A recipe from a JSON file written by ``ulplab synth`` (checked)."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    r = Recipe.from_json(data.get("recipe", data))
    check(r)
    return r


def shipped_recipes() -> list[Recipe]:
    """The recipes in the package's ``recipes`` directory, in name order."""
    if not RECIPE_DIR.is_dir():
        return []
    return [load_recipe(p) for p in sorted(RECIPE_DIR.glob("*.json"))]


def method_name(recipe: Recipe) -> str:
    """``synth <format>[ <N>ulp| e<X>][ (<profile>)][ <rounding>]``: what it is, for which
    format and target — correctly rounded, the fma profile and nearest-even unless it says
    otherwise (``synth bfloat16``, ``synth bfloat16 1ulp (sfpu)``). Spaces, so that a table
    can wrap it; ``synth-bfloat16-1ulp-sfpu`` names it too (``canonical_name``)."""
    if recipe.name:
        return recipe.name
    tgt = recipe.target
    if tgt.get("max_error") is not None:
        err = f" e{tgt['max_error']:g}"
    else:
        err = "" if not tgt.get("max_ulp") else f" {tgt['max_ulp']}ulp"
    rnd = "" if recipe.rounding == "nearest-even" else f" {recipe.rounding}"
    prof = "" if recipe.profile == "fma" else f" ({recipe.profile})"
    return f"synth {recipe.format}{err}{prof}{rnd}"


def slug(recipe: Recipe) -> str:
    """``<function>-<canonical method name>``: the recipe's file name (without .json)."""
    from ulplab.methods.registry import canonical_name

    return f"{recipe.function}-{canonical_name(method_name(recipe))}"


def c_identifier(recipe: Recipe) -> str:
    """The exported kernel's function name: ``ulplab_<function>_synth_<format>...``."""
    return "ulplab_" + slug(recipe).replace("-", "_")


# ------------------------------------------------------------------ saved recipes


def user_recipe_dir() -> Path:
    """Where ``ulplab synth --register`` keeps recipes: ``<cache>/synth``."""
    from ulplab.cache import cache_dir

    return cache_dir() / "synth"


def _digest(data: dict[str, Any]) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def recipe_document(recipe: Recipe) -> dict[str, Any]:
    """The JSON document of a recipe: the recipe and the SHA-256 of its canonical JSON."""
    data = recipe.to_json()
    return {"recipe": data, "sha256": _digest(data)}


def save_user_recipe(recipe: Recipe) -> Path:
    """Write the recipe into ``user_recipe_dir()`` atomically (one file per function, format and
    name); methods registered from it on the next import of ``ulplab.methods``."""
    from ulplab.files import write_text

    path = user_recipe_dir() / f"{slug(recipe)}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(recipe_document(recipe), indent=1) + "\n")
    return path


def user_recipes() -> list[Recipe]:
    """The recipes in ``user_recipe_dir()`` whose checksum matches; a damaged or foreign file is
    skipped with one warning line on stderr, never loaded."""
    import sys

    d = user_recipe_dir()
    if not d.is_dir():
        return []
    out = []
    for path in sorted(d.glob("*.json")):
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
            if not isinstance(doc, dict) or doc.get("sha256") != _digest(doc.get("recipe", {})):
                raise ValueError("checksum does not match")
            r = Recipe.from_json(doc["recipe"])
            check(r)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            print(f"ulplab: warning: synthesized recipe {path} skipped ({exc})", file=sys.stderr)
            continue
        out.append(r)
    return out


def as_method(recipe: Recipe) -> Any:
    """The recipe as a registered-style Method (claims from its proof, nearest-even only)."""
    from ulplab.methods.registry import Claim

    claims = {}
    proof = recipe.proof
    if recipe.rounding == "nearest-even" and proof.get("accepted") == proof.get("inputs_verified"):
        # the mean to 4 decimals, rounded up (a bound, as the registry's claims are written)
        mean = math.ceil(float(proof.get("mean_ulp", 0.0)) * 1e4) / 1e4
        claims[recipe.format] = Claim(int(proof.get("max_ulp", 0)), mean)
    idea = (f"ulplab synth ({recipe.template}, {recipe.pieces} piece(s) of degree "
            f"{recipe.degree}" + (f", exp2 core degree {len(recipe.core) - 1}" if recipe.core
                                  else "") + f"; {recipe.profile} profile): "
            f"{proof.get('inputs_verified', 0)} inputs verified")
    from ulplab.methods.registry import built

    return built(recipe.function, method_name(recipe), "synthesized", idea,
                 lambda p: kernel(recipe_with(recipe, p)), recipe_params(recipe),
                 table_bytes=4 * recipe.table_entries, claims=claims,
                 note=recipe.provenance.get("command", ""))


def recipe_params(recipe: Recipe) -> Any:
    """The recipe's numbers as declared parameters (so the studies can perturb and rebuild
    it): ``C0``.. ``Cd`` (coefficient j of every piece: a table, or a constant for one piece),
    ``CORE`` (the exp2 core), ``T0``.. (the tails' thresholds), ``CLAMP_LO``/``CLAMP_HI``."""
    from ulplab.methods.params import Param, Params, coeffs, threshold

    decl: dict[str, Param] = {}
    for j in range(recipe.degree + 1):
        col = [float.fromhex(piece[j]) for piece in recipe.coefficients]
        decl[f"C{j}"] = Param("table", col, of="P") if recipe.pieces > 1 else Param(
            "constant", col[0])
    if recipe.core:
        decl["CORE"] = coeffs([float.fromhex(c) for c in recipe.core])
    for i, t in enumerate(recipe.tails):
        decl[f"T{i}"] = threshold(float.fromhex(t.threshold))
    for name, v in zip(("CLAMP_LO", "CLAMP_HI"), recipe.u_clamp or ["", ""], strict=True):
        if v:
            decl[name] = threshold(float.fromhex(v))
    return Params(decl)


def recipe_with(recipe: Recipe, params: Any) -> Recipe:
    """The recipe with the numbers of ``params`` (see ``recipe_params``)."""
    from dataclasses import replace

    cols = [params[f"C{j}"] for j in range(recipe.degree + 1)]
    pieces = [[hex32(np.atleast_1d(c)[k]) for c in cols] for k in range(recipe.pieces)]
    tails = [replace(t, threshold=hex32(params[f"T{i}"])) for i, t in enumerate(recipe.tails)]
    clamp = list(recipe.u_clamp)
    for i, name in enumerate(("CLAMP_LO", "CLAMP_HI")):
        if name in params:
            clamp[i] = hex32(params[name])
    core = [hex32(c) for c in params["CORE"]] if recipe.core else []
    return replace(recipe, coefficients=pieces, tails=tails, u_clamp=clamp, core=core)


def register_all() -> None:
    """Register the shipped recipes, then the user's (a user recipe whose name is taken is
    skipped: the shipped one stays what the name means)."""
    from ulplab.methods.registry import methods_for, register

    for r in [*shipped_recipes(), *user_recipes()]:
        if any(m.name == method_name(r) for m in methods_for(r.function)):
            continue
        register(as_method(r))
