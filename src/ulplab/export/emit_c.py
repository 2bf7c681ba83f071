"""C source from a traced kernel: one loop, every operation written out in trace order.

Written so that a compiler vectorizes the loop: the body is straight-line code with selects
(``c ? a : b`` on values already computed) and no calls except ``fmaf`` and ``rintf``, which
become single instructions on targets with FMA and SSE4.1; tables are read by index (gathers);
``ldexp`` is three select steps and a multiplication by a power of two built from bits; uint32 ->
float conversion is two exact int32 conversions and one rounding addition. Compiled with
``-O3 -ffp-contract=off`` (no fused multiply-add except the explicit ``fmaf`` of an FMA node) and
without -ffast-math; bit casts go through memcpy; integer arithmetic wraps through uint32_t as
NumPy's does; a float -> int32 conversion gives INT32_MIN for NaN and out-of-range values, as
NumPy's does on x86-64; a shift by a variable count of 32 or more gives what NumPy gives (0, or
-1 for a negative int32 shifted right).
"""

from __future__ import annotations

import math
import struct

import numpy as np

from ulplab.export.trace import Graph, Node

# A boolean is a uint32_t mask, all ones or all zeros, as vector compares give it.
CTYPE = {"<f4": "float", "<u4": "uint32_t", "<i4": "int32_t", "|b1": "uint32_t", "<i8": "int64_t",
         "<u8": "uint64_t"}

PRELUDE = r"""#include <math.h>
#include <stdint.h>
#include <string.h>

UL_FN uint32_t ul_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
UL_FN float ul_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
UL_FN int32_t ul_f2i_bits(float f) { int32_t i; memcpy(&i, &f, 4); return i; }
UL_FN float ul_i2f_bits(int32_t i) { float f; memcpy(&f, &i, 4); return f; }
/* Booleans are masks (all ones: true) and selects are bit operations on them: a compiler keeps
   them as blends instead of turning them into branches (which would stop vectorization). */
UL_FN uint32_t ul_mask(int c) { return 0u - (uint32_t)(c != 0); }
UL_FN float ul_self(uint32_t m, float a, float b) {
    return ul_u2f((ul_f2u(a) & m) | (ul_f2u(b) & ~m));
}
UL_FN int32_t ul_seli(uint32_t m, int32_t a, int32_t b) {
    return (int32_t)(((uint32_t)a & m) | ((uint32_t)b & ~m));
}
UL_FN uint32_t ul_selu(uint32_t m, uint32_t a, uint32_t b) { return (a & m) | (b & ~m); }
UL_FN int32_t ul_f2i(float f) {
    /* in range: truncation; NaN and out of range: INT32_MIN (cvttps2dq's answer) */
    const uint32_t ok = ul_mask(f > -2147483904.0f) & ul_mask(f < 2147483648.0f);
    return ul_seli(ok, (int32_t)ul_self(ok, f, 0.0f), INT32_MIN);
}
UL_FN float ul_u2float(uint32_t u) {
    /* (float)u rounded once: both halves convert exactly, the addition rounds */
    return UL_ADD(UL_MUL((float)(int32_t)(u >> 16), 0x1p16f), (float)(int32_t)(u & 0xFFFFu));
}
UL_FN float ul_ldexp(float x, int32_t e) {
    /* x * 2^e rounded once, as ldexpf: scale into range by exact steps (a step that rounds
       only does so when the final result is +-0 anyway), then one multiplication */
    e = ul_seli(ul_mask(e < -400), -400, ul_seli(ul_mask(e > 400), 400, e));
    for (int step = 0; step < 2; step++) {
        const uint32_t up = ul_mask(e > 127);
        x = ul_self(up, UL_MUL(x, 0x1p127f), x);
        e = ul_seli(up, e - 127, e);
    }
    e = ul_seli(ul_mask(e > 127), 127, e);
    for (int step = 0; step < 2; step++) {
        const uint32_t down = ul_mask(e < -126);
        x = ul_self(down, UL_MUL(x, 0x1p-102f), x);
        e = ul_seli(down, e + 102, e);
    }
    e = ul_seli(ul_mask(e < -126), -126, e);
    return UL_MUL(x, ul_u2f((uint32_t)(e + 127) << 23));
}
/* Classification on the bits: integer compares vectorize where the library macros may not. */
UL_FN uint32_t ul_isnan(float a) {
    return ul_mask((ul_f2u(a) & 0x7FFFFFFFu) > 0x7F800000u);
}
UL_FN uint32_t ul_isinf(float a) {
    return ul_mask((ul_f2u(a) & 0x7FFFFFFFu) == 0x7F800000u);
}
UL_FN uint32_t ul_isfinite(float a) {
    return ul_mask((ul_f2u(a) & 0x7F800000u) != 0x7F800000u);
}
UL_FN uint32_t ul_signbit(float a) { return (uint32_t)((int32_t)ul_f2u(a) >> 31); }
UL_FN float ul_min(float a, float b) {  /* np.minimum: a NaN operand wins, a first */
    return ul_self(ul_isnan(a), a, ul_self(ul_isnan(b), b, ul_self(ul_mask(a < b), a, b)));
}
UL_FN float ul_max(float a, float b) {
    return ul_self(ul_isnan(a), a, ul_self(ul_isnan(b), b, ul_self(ul_mask(a > b), a, b)));
}
UL_FN int32_t ul_mini(int32_t a, int32_t b) { return ul_seli(ul_mask(a < b), a, b); }
UL_FN int32_t ul_maxi(int32_t a, int32_t b) { return ul_seli(ul_mask(a > b), a, b); }
UL_FN uint32_t ul_minu(uint32_t a, uint32_t b) { return ul_selu(ul_mask(a < b), a, b); }
UL_FN uint32_t ul_maxu(uint32_t a, uint32_t b) { return ul_selu(ul_mask(a > b), a, b); }
UL_FN float ul_frexp_m(float a) { int e; return frexpf(a, &e); }
UL_FN int32_t ul_frexp_e(float a) { int e; frexpf(a, &e); return e; }
"""


# The float operations by dialect: C relies on -ffp-contract=off; CUDA spells every rounding out
# with the _rn intrinsics, which nvcc never contracts into FMA whatever -fmad says.
DIALECT_MACROS = {
    "c": """#define UL_FN static inline
#define UL_TABLE static const
#define UL_ADD(a, b) ((a) + (b))
#define UL_SUB(a, b) ((a) - (b))
#define UL_MUL(a, b) ((a) * (b))
#define UL_DIV(a, b) ((a) / (b))
#define UL_FMA(a, b, c) fmaf(a, b, c)
#define UL_SQRT(a) sqrtf(a)
""",
    "cuda": """#define UL_FN static __device__ __forceinline__
#define UL_TABLE static __device__ const
#define UL_ADD(a, b) __fadd_rn(a, b)
#define UL_SUB(a, b) __fsub_rn(a, b)
#define UL_MUL(a, b) __fmul_rn(a, b)
#define UL_DIV(a, b) __fdiv_rn(a, b)
#define UL_FMA(a, b, c) __fmaf_rn(a, b, c)
#define UL_SQRT(a) __fsqrt_rn(a)
""",
}
_FLOAT_OPS = {"+": "UL_ADD", "-": "UL_SUB", "*": "UL_MUL", "/": "UL_DIV"}


def c_float(v: float) -> str:
    """An exact C float literal (hex), or the bit pattern for NaN/inf."""
    if math.isnan(v) or math.isinf(v):
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        return f"ul_u2f(0x{bits:08x}u)"
    return f"{float(np.float32(v)).hex()}f"


def _lit(value: object, dtype: str) -> str:
    if dtype == "<f4":
        return c_float(float(value))  # type: ignore[arg-type]
    if dtype == "|b1":
        return "0xFFFFFFFFu" if value else "0u"
    if dtype in ("<u4", "<u8"):
        return f"{int(value) & 0xFFFFFFFF}u"  # type: ignore[call-overload]
    return f"({CTYPE[dtype]}){int(value)}"  # type: ignore[call-overload]


def operand_dtype(g: Graph, node: Node, pos: int) -> str:
    """The dtype a constant operand takes: that of the op's traced operands."""
    if node.op == "where":
        return "|b1" if pos == 0 else node.dtype
    if node.op in ("left_shift", "right_shift", "ldexp"):
        if pos == 1:
            return "<i4" if node.op == "ldexp" else node.dtype
        return node.dtype
    for a in node.args:
        if a[0] == "node":
            return g.nodes[a[1]].dtype
    return node.dtype


def _arg(g: Graph, node: Node, pos: int) -> str:
    a = node.args[pos]
    if a[0] == "node":
        return f"v{a[1]}"
    want = operand_dtype(g, node, pos)
    dt = a[2] if a[2] != "weak" else want
    if dt == "|b1" and want != "|b1":  # True as a number is 1, not the mask
        dt, a = want, (a[0], int(bool(a[1])), want)
    lit = _lit(a[1], dt)
    return lit if dt == want else f"(({CTYPE[want]}){lit})"


_BIN = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/",
        "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
        "logical_and": "&", "logical_or": "|"}  # on masks: no short circuit
_CMP = {"greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=", "equal": "==",
        "not_equal": "!="}
_SEL = {"<f4": "ul_self", "<i4": "ul_seli", "<u4": "ul_selu", "|b1": "ul_selu"}
_UN = {"sqrt": "UL_SQRT", "fabs": "fabsf", "absolute": "fabsf", "rint": "rintf",
       "floor": "floorf", "ceil": "ceilf", "trunc": "truncf", "isnan": "ul_isnan",
       "isinf": "ul_isinf", "isfinite": "ul_isfinite", "signbit": "ul_signbit",
       "frexp": None}


def _expr(g: Graph, n: Node) -> str:
    a = [_arg(g, n, i) if n.args[i][0] != "table" else n.args[i][1]
         for i in range(len(n.args))]
    dt = n.dtype
    if n.op == "input":
        return "x[i]"
    if n.op in _CMP:
        return f"ul_mask({a[0]} {_CMP[n.op]} {a[1]})"
    if n.op in _BIN:
        op = _BIN[n.op]
        in_dt = operand_dtype(g, n, 0)
        if in_dt == "<i4" and op in "+-*":
            return f"(int32_t)((uint32_t){a[0]} {op} (uint32_t){a[1]})"
        if in_dt == "<f4" and op in _FLOAT_OPS:
            return f"{_FLOAT_OPS[op]}({a[0]}, {a[1]})"
        return f"({a[0]} {op} {a[1]})"
    if n.op == "negative":
        return f"(int32_t)(0u - (uint32_t){a[0]})" if dt == "<i4" else f"(-{a[0]})"
    if n.op == "absolute" and dt != "<f4":
        return f"ul_seli(ul_mask({a[0]} < 0), (int32_t)(0u - (uint32_t){a[0]}), {a[0]})"
    if n.op == "frexp":
        return f"ul_frexp_m({a[0]})" if n.index == 0 else f"ul_frexp_e({a[0]})"
    if n.op in _UN:
        return f"{_UN[n.op]}({a[0]})"
    if n.op == "logical_not":
        return f"(~{a[0]})"
    if n.op == "invert":
        return f"(~{a[0]})"
    variable_count = len(n.args) > 1 and n.args[1][0] == "node"
    if n.op == "left_shift":
        shifted = f"({CTYPE[dt]})((uint32_t){a[0]} << ((uint32_t){a[1]} & 31u))"
        if not variable_count:
            return shifted
        return f"{_SEL[dt]}(ul_mask((uint32_t){a[1]} < 32u), {shifted}, 0)"
    if n.op == "right_shift":
        if not variable_count:
            return f"({a[0]} >> {a[1]})"
        beyond = f"({a[0]} >> 31)" if dt == "<i4" else "0u"
        return (f"{_SEL[dt]}(ul_mask((uint32_t){a[1]} < 32u), "
                f"{a[0]} >> ((uint32_t){a[1]} & 31u), {beyond})")
    suffix = {"<f4": "", "<i4": "i", "<u4": "u", "|b1": "u"}[dt] if dt in _SEL else ""
    if n.op in ("minimum", "fmin"):
        return f"ul_min{suffix}({a[0]}, {a[1]})"
    if n.op in ("maximum", "fmax"):
        return f"ul_max{suffix}({a[0]}, {a[1]})"
    if n.op == "copysign":
        return f"copysignf({a[0]}, {a[1]})"
    if n.op == "ldexp":
        return f"ul_ldexp({a[0]}, {a[1]})"
    if n.op == "square":
        return f"UL_MUL({a[0]}, {a[0]})"
    if n.op == "fma":
        return f"UL_FMA({a[0]}, {a[1]}, {a[2]})"
    if n.op == "where":
        return f"{_SEL[dt]}({a[0]}, {a[1]}, {a[2]})"
    if n.op == "full":
        return _arg(g, n, 1) if n.args[1][2] == n.dtype else f"(({CTYPE[dt]}){_arg(g, n, 1)})"
    if n.op == "take":
        return f"{n.args[0][1]}[{a[1]}]"
    if n.op in ("bitcast", "convert"):
        src = g.nodes[n.args[0][1]].dtype
        if src == dt:
            return a[0]
        if n.op == "bitcast":
            fn = {("<f4", "<u4"): "ul_f2u", ("<u4", "<f4"): "ul_u2f",
                  ("<f4", "<i4"): "ul_f2i_bits", ("<i4", "<f4"): "ul_i2f_bits"}.get((src, dt))
            return f"{fn}({a[0]})" if fn else f"({CTYPE[dt]}){a[0]}"
        if src == "<f4" and dt == "<i4":
            return f"ul_f2i({a[0]})"
        if src == "<u4" and dt == "<f4":
            return f"ul_u2float({a[0]})"
        if src == "|b1":
            return f"({CTYPE[dt]})(int32_t)({a[0]} & 1u)"
        if dt == "|b1":
            return f"ul_mask({a[0]} != 0)"
        return f"({CTYPE[dt]}){a[0]}"
    raise NotImplementedError(f"C emitter: {n.op}")


def _table_source(name: str, t: np.ndarray) -> str:
    if t.dtype == np.float32:
        items = ", ".join(c_float(float(v)) for v in t)
        return f"UL_TABLE float {name}[{len(t)}] = {{{items}}};"
    ctype = CTYPE[t.dtype.str]
    items = ", ".join(str(int(v)) for v in t)
    return f"UL_TABLE {ctype} {name}[{len(t)}] = {{{items}}};"


def emit_c(g: Graph, name: str, header: str, dialect: str = "c") -> str:
    """C (``dialect="c"``: one loop over the array) or CUDA C (``"cuda"``: one thread per
    element, ``extern "C" __global__``) source of the traced kernel."""
    lines = [f"/*\n{header}\n*/", DIALECT_MACROS[dialect] + PRELUDE]
    lines += [_table_source(k, t) for k, t in g.tables.items()]
    if dialect == "cuda":
        lines.append(f'\nextern "C" __global__ void {name}(const float *__restrict__ x, '
                     "float *__restrict__ y, long n) {")
        lines.append("    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;")
        lines.append("    if (i < n) {")
    else:
        lines.append(f"\nvoid {name}(const float *restrict x, float *restrict y, long n) {{")
        lines.append("    for (long i = 0; i < n; i++) {")
    for n in g.nodes:
        lines.append(f"        const {CTYPE[n.dtype]} v{n.id} = {_expr(g, n)};")
    lines.append(f"        y[i] = v{g.output};")
    lines.append("    }\n}\n")
    return "\n".join(lines)
