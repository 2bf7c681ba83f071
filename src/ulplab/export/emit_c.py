"""C source from a traced kernel: one scalar loop, every operation written out in trace order.

Compiled with ``-O2 -ffp-contract=off`` (no fused multiply-add except the explicit ``fmaf`` of an
FMA node) and without -ffast-math; bit casts go through memcpy; integer arithmetic wraps through
uint32_t as NumPy's does; a float -> int32 conversion gives INT32_MIN for NaN and out-of-range
values, as NumPy's does on x86-64.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from ulplab.export.trace import Graph, Node

CTYPE = {"<f4": "float", "<u4": "uint32_t", "<i4": "int32_t", "|b1": "int", "<i8": "int64_t",
         "<u8": "uint64_t"}

PRELUDE = r"""#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t ul_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float ul_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline int32_t ul_f2i_bits(float f) { int32_t i; memcpy(&i, &f, 4); return i; }
static inline float ul_i2f_bits(int32_t i) { float f; memcpy(&f, &i, 4); return f; }
static inline int32_t ul_f2i(float f) {
    if (!(f > -2147483904.0f && f < 2147483648.0f)) return INT32_MIN;
    return (int32_t)f;
}
static inline float ul_min(float a, float b) {
    return isnan(a) ? a : isnan(b) ? b : (a < b ? a : b);
}
static inline float ul_max(float a, float b) {
    return isnan(a) ? a : isnan(b) ? b : (a > b ? a : b);
}
static inline float ul_frexp_m(float a) { int e; return frexpf(a, &e); }
static inline int32_t ul_frexp_e(float a) { int e; frexpf(a, &e); return e; }
"""


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
        return "1" if value else "0"
    if dtype in ("<u4", "<u8"):
        return f"{int(value) & 0xFFFFFFFF}u"  # type: ignore[call-overload]
    return f"({CTYPE[dtype]}){int(value)}"  # type: ignore[call-overload]


def _operand_dtype(g: Graph, node: Node, pos: int) -> str:
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
    dt = a[2] if a[2] != "weak" else _operand_dtype(g, node, pos)
    want = _operand_dtype(g, node, pos)
    lit = _lit(a[1], dt)
    return lit if dt == want else f"(({CTYPE[want]}){lit})"


_BIN = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/",
        "greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=", "equal": "==",
        "not_equal": "!=", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
        "logical_and": "&&", "logical_or": "||"}
_UN = {"sqrt": "sqrtf", "fabs": "fabsf", "absolute": "fabsf", "rint": "rintf",
       "floor": "floorf", "ceil": "ceilf", "trunc": "truncf", "isnan": "isnan",
       "isinf": "isinf", "isfinite": "isfinite", "signbit": "signbit",
       "frexp": None}


def _expr(g: Graph, n: Node) -> str:
    a = [_arg(g, n, i) if n.args[i][0] != "table" else n.args[i][1]
         for i in range(len(n.args))]
    dt = n.dtype
    if n.op == "input":
        return "x[i]"
    if n.op in _BIN:
        op = _BIN[n.op]
        in_dt = _operand_dtype(g, n, 0)
        if in_dt == "<i4" and op in "+-*":
            return f"(int32_t)((uint32_t){a[0]} {op} (uint32_t){a[1]})"
        return f"({a[0]} {op} {a[1]})"
    if n.op == "negative":
        return f"(int32_t)(0u - (uint32_t){a[0]})" if dt == "<i4" else f"(-{a[0]})"
    if n.op == "absolute" and dt != "<f4":
        return f"({a[0]} < 0 ? -{a[0]} : {a[0]})"
    if n.op == "frexp":
        return f"ul_frexp_m({a[0]})" if n.index == 0 else f"ul_frexp_e({a[0]})"
    if n.op in _UN:
        return f"{_UN[n.op]}({a[0]})"
    if n.op == "logical_not":
        return f"(!{a[0]})"
    if n.op == "invert":
        return f"(~{a[0]})"
    if n.op == "left_shift":
        return f"({CTYPE[dt]})((uint32_t){a[0]} << {a[1]})"
    if n.op == "right_shift":
        return f"({a[0]} >> {a[1]})"
    if n.op in ("minimum", "fmin"):
        return f"ul_min({a[0]}, {a[1]})"
    if n.op in ("maximum", "fmax"):
        return f"ul_max({a[0]}, {a[1]})"
    if n.op == "copysign":
        return f"copysignf({a[0]}, {a[1]})"
    if n.op == "ldexp":
        return f"ldexpf({a[0]}, {a[1]})"
    if n.op == "square":
        return f"({a[0]} * {a[0]})"
    if n.op == "fma":
        return f"fmaf({a[0]}, {a[1]}, {a[2]})"
    if n.op == "where":
        return f"({a[0]} ? {a[1]} : {a[2]})"
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
        return f"({CTYPE[dt]}){a[0]}"
    raise NotImplementedError(f"C emitter: {n.op}")


def _table_source(name: str, t: np.ndarray) -> str:
    if t.dtype == np.float32:
        items = ", ".join(c_float(float(v)) for v in t)
        return f"static const float {name}[{len(t)}] = {{{items}}};"
    ctype = CTYPE[t.dtype.str]
    items = ", ".join(str(int(v)) for v in t)
    return f"static const {ctype} {name}[{len(t)}] = {{{items}}};"


def emit_c(g: Graph, name: str, header: str) -> str:
    lines = [f"/*\n{header}\n*/", PRELUDE]
    lines += [_table_source(k, t) for k, t in g.tables.items()]
    lines.append(f"\nvoid {name}(const float *x, float *y, long n) {{")
    lines.append("    for (long i = 0; i < n; i++) {")
    for n in g.nodes:
        lines.append(f"        const {CTYPE[n.dtype]} v{n.id} = {_expr(g, n)};")
    lines.append(f"        y[i] = v{g.output};")
    lines.append("    }\n}\n")
    return "\n".join(lines)
