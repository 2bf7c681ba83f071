"""NumPy, PyTorch and JAX sources from a traced kernel: straight-line code, one line per operation.

Each generated module depends on its framework alone and defines ``kernel(x)`` (float32 array /
tensor in, float32 out) and, for PyTorch and JAX, the helpers the framework lacks:

* fma: the product of two float32 values is exact in float64; the sum is made round-to-odd with
  TwoSum and then rounded to float32 (the same proof as ``ulplab.kit.fma``). JAX needs float64
  for it, so the JAX module computes under ``jax.enable_x64(True)``.
* ldexp: two multiplications by powers of two built from their bits (x 2^(e//2) 2^(e - e//2)),
  the first exact for the kernels' arguments (|x| within 2^±60), so one rounding in all.
* PyTorch has no unsigned 32-bit arithmetic: 32-bit integers are int64 tensors holding the exact
  value, wrapped to 32 bits after each operation.
* XLA on CPU may contract a product and a following sum into an FMA and simplify TwoSum-like
  sequences: in the JAX module every float32 product goes through an integer xor with a run-time
  zero, and every arithmetic result through ``lax.optimization_barrier``.
"""

from __future__ import annotations

import math

import numpy as np

from ulplab.export.trace import Graph, Node

_BIN = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/",
        "greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=", "equal": "==",
        "not_equal": "!=", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
        "logical_and": "&", "logical_or": "|", "left_shift": "<<", "right_shift": ">>"}

_HELPERS = {
    "numpy": '''import numpy as np

F32 = np.float32


def _fma(a, b, c):
    with np.errstate(all="ignore"):
        a64, b64, c64 = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
        p = a64 * b64
        s = p + c64
        bp = s - c64
        e = (p - bp) + (c64 - (s - bp))
        bits = s.view(np.int64)
        fix = np.isfinite(s) & (e != 0) & ((bits & 1) == 0)
        odd = np.where((e > 0) == (s > 0), bits + 1, bits - 1).view(np.float64)
        return np.where(fix, odd, s).astype(np.float32)


def _f32(bits):
    return np.array([bits], np.uint32).view(np.float32)[0]
''',
    "torch": '''import torch

F32 = torch.float32
_M32 = 0xFFFFFFFF


def _u32(v):  # wrap to unsigned 32 bits (held in int64)
    return v & _M32


def _i32(v):  # wrap to signed 32 bits (held in int64)
    v = v & _M32
    return torch.where(v >= 2**31, v - 2**32, v)


def _bits(x):  # float32 -> its encoding as unsigned 32-bit, in int64
    return x.view(torch.int32).to(torch.int64) & _M32


def _float(v):  # 32-bit encoding in int64 -> float32
    return _i32(v).to(torch.int32).view(torch.float32)


def _f2i(x):  # NumPy's float32 -> int32 on x86-64: NaN and out of range give INT32_MIN
    ok = (x > -2147483904.0) & (x < 2147483648.0)
    return torch.where(ok, torch.where(ok, x, 0.0).to(torch.int64), -2**31)


def _pow2(e):
    return _float(_u32((e + 127) << 23))


def _ldexp(x, e):
    e1 = torch.div(e, 2, rounding_mode="floor")
    return x * _pow2(e1) * _pow2(e - e1)


def _fma(a, b, c):
    a, b, c = (torch.as_tensor(v, dtype=torch.float32) for v in (a, b, c))
    p = a.to(torch.float64) * b.to(torch.float64)
    c64 = c.to(torch.float64)
    s = p + c64
    bp = s - c64
    e = (p - bp) + (c64 - (s - bp))
    bits = s.view(torch.int64)
    fix = torch.isfinite(s) & (e != 0) & ((bits & 1) == 0)
    odd = torch.where((e > 0) == (s > 0), bits + 1, bits - 1).view(torch.float64)
    return torch.where(fix, odd, s).to(torch.float32)


def _f32(bits):
    return _float(torch.tensor(bits, dtype=torch.int64))


_MOVED = {}


def _on(table, index):  # the table on the index's device, copied there once
    if table.device == index.device:
        return table
    key = (id(table), str(index.device))
    if key not in _MOVED:
        _MOVED[key] = table.to(index.device)
    return _MOVED[key]
''',
    "jax": '''import jax
import jax.numpy as jnp
from jax import lax

F32 = jnp.float32


def _fma(a, b, c):
    a, b, c = (jnp.asarray(v, dtype=jnp.float32) for v in (a, b, c))
    p = a.astype(jnp.float64) * b.astype(jnp.float64)
    c64 = c.astype(jnp.float64)
    s = p + c64
    bp = s - c64
    e = (p - bp) + (c64 - (s - bp))
    bits = lax.bitcast_convert_type(s, jnp.int64)
    fix = jnp.isfinite(s) & (e != 0) & ((bits & 1) == 0)
    odd = lax.bitcast_convert_type(jnp.where((e > 0) == (s > 0), bits + 1, bits - 1),
                                   jnp.float64)
    return jnp.where(fix, odd, s).astype(jnp.float32)


def _pow2(e):
    return lax.bitcast_convert_type(((e + 127) << 23).astype(jnp.uint32), jnp.float32)


def _ldexp(x, e):
    e1 = jnp.floor_divide(e, 2)
    return x * _pow2(e1) * _pow2(e - e1)


def _f2i(x):
    ok = (x > -2147483904.0) & (x < 2147483648.0)
    return jnp.where(ok, jnp.where(ok, x, 0.0).astype(jnp.int32), jnp.int32(-2**31))


def _opaque(v, z):
    # XLA's LLVM backend may fuse a product into a following add (an FMA); passing the product
    # through an integer xor with a run-time zero makes that impossible, and changes no bit
    return lax.bitcast_convert_type(lax.bitcast_convert_type(v, jnp.uint32) ^ z, jnp.float32)


def _f32(bits):
    return lax.bitcast_convert_type(jnp.uint32(bits), jnp.float32)
''',
}

_NP_DTYPE = {"<f4": "np.float32", "<u4": "np.uint32", "<i4": "np.int32", "|b1": "np.bool_"}
_JNP_DTYPE = {"<f4": "jnp.float32", "<u4": "jnp.uint32", "<i4": "jnp.int32", "|b1": "jnp.bool_"}


def _float_lit(v: float, lang: str) -> str:
    f = float(np.float32(v))
    if math.isnan(f) or math.isinf(f):
        bits = int(np.array([f], np.float32).view(np.uint32)[0])
        return f"_f32(0x{bits:08x})"
    head = f"float.fromhex('{f.hex()}')"
    return {"numpy": f"F32({head})", "torch": head, "jax": f"F32({head})"}[lang]


def _lit(value: object, dtype: str, lang: str) -> str:
    if dtype == "<f4":
        return _float_lit(float(value), lang)  # type: ignore[arg-type]
    if dtype == "|b1":
        return "True" if value else "False"
    iv = int(value)  # type: ignore[call-overload]
    if dtype == "<u4":
        iv &= 0xFFFFFFFF
    if lang == "torch":
        return str(iv)
    return f"{(_NP_DTYPE if lang == 'numpy' else _JNP_DTYPE)[dtype]}({iv})"


def operand_dtype(g: Graph, node: Node, pos: int) -> str:
    if node.op == "where":
        return "|b1" if pos == 0 else node.dtype
    if node.op in ("left_shift", "right_shift"):
        return node.dtype
    if node.op == "ldexp":
        return "<i4" if pos == 1 else "<f4"
    if node.op == "full":
        return node.dtype
    for a in node.args:
        if a[0] == "node":
            return g.nodes[a[1]].dtype
    return node.dtype


def _args(g: Graph, n: Node, lang: str) -> list[str]:
    out = []
    for i, a in enumerate(n.args):
        if a[0] == "node":
            out.append(f"v{a[1]}")
        elif a[0] == "table":
            out.append(a[1])
        else:
            dt = operand_dtype(g, n, i)
            out.append(_lit(a[1], dt, lang))
    return out


def _line(g: Graph, n: Node, lang: str) -> str:
    a = _args(g, n, lang)
    dt = n.dtype
    src = g.nodes[n.args[0][1]].dtype if n.args and n.args[0][0] == "node" else None
    torch_int = lang == "torch" and dt in ("<u4", "<i4")
    wrap = ("_u32" if dt == "<u4" else "_i32") if torch_int else ""
    mod = {"numpy": "np", "torch": "torch", "jax": "jnp"}[lang]
    if n.op == "input":
        return "x"
    if n.op in _BIN:
        e = f"({a[0]} {_BIN[n.op]} {a[1]})"
        return f"{wrap}{e}" if torch_int else e
    if n.op == "negative":
        return f"{wrap}(-{a[0]})" if torch_int else f"(-{a[0]})"
    if n.op == "invert":
        return f"{wrap}(~{a[0]})" if torch_int else f"(~{a[0]})"
    if n.op == "logical_not":
        return f"{mod}.logical_not({a[0]})"
    if n.op in ("absolute", "fabs"):
        return f"{mod}.abs({a[0]})"
    if n.op in ("sqrt", "isnan", "isinf", "isfinite", "signbit", "floor", "ceil", "trunc",
                "copysign", "minimum", "maximum"):
        if lang == "torch":  # torch's binary functions take tensors only
            a = [v if n.args[i][0] == "node" else f"torch.as_tensor({v})"
                 for i, v in enumerate(a)]
        return f"{mod}.{n.op}({', '.join(a)})"
    if n.op == "rint":
        return f"{mod}.round({a[0]})" if lang != "numpy" else f"np.rint({a[0]})"
    if n.op == "square":
        return f"({a[0]} * {a[0]})"
    if n.op == "ldexp":
        return f"np.ldexp({a[0]}, {a[1]})" if lang == "numpy" else f"_ldexp({a[0]}, {a[1]})"
    if n.op == "fma":
        return f"_fma({a[0]}, {a[1]}, {a[2]})"
    if n.op == "where":
        return f"{mod}.where({a[0]}, {a[1]}, {a[2]})"
    if n.op == "full":
        if lang == "torch":
            tdt = "torch.int64" if dt in ("<u4", "<i4") else {"<f4": "torch.float32",
                                                              "|b1": "torch.bool"}[dt]
            return f"torch.full_like({a[0]}, {a[1]}, dtype={tdt})"
        table = _NP_DTYPE if lang == "numpy" else _JNP_DTYPE
        return f"{mod}.full_like({a[0]}, {a[1]}, dtype={table[dt]})"
    if n.op == "take":
        if lang == "torch":  # the table moved once to the index's device (a CUDA tensor)
            return f"_on({a[0]}, {a[1]})[{a[1]}]"
        return f"{a[0]}[{a[1]}]"
    if n.op == "bitcast":
        if lang == "numpy":
            return f"{a[0]}.view({_NP_DTYPE[dt]})"
        if lang == "jax":
            return f"lax.bitcast_convert_type({a[0]}, {_JNP_DTYPE[dt]})"
        if src == "<f4":
            return f"_bits({a[0]})" if dt == "<u4" else f"_i32(_bits({a[0]}))"
        return f"_float({a[0]})" if dt == "<f4" else f"{wrap}({a[0]})"
    if n.op == "convert":
        if src == dt:
            return a[0]
        if lang == "numpy":
            return f"{a[0]}.astype({_NP_DTYPE[dt]})"
        if src == "<f4" and dt == "<i4":
            return f"_f2i({a[0]})"
        if lang == "jax":
            return f"{a[0]}.astype({_JNP_DTYPE[dt]})"
        if dt == "<f4":
            return f"{a[0]}.to(torch.float32)"
        return f"{wrap}({a[0]})"
    raise NotImplementedError(f"{lang} emitter: {n.op}")


def _table(name: str, t: np.ndarray, lang: str) -> str:
    if t.dtype == np.float32:
        items = ", ".join(f"'{float(v).hex()}'" for v in t)
        vals = f"[float.fromhex(s) for s in ({items},)]"
        if lang == "torch":
            return f"{name} = torch.tensor({vals}, dtype=torch.float32)"
        return f"{name} = {'np' if lang == 'numpy' else 'jnp'}.array({vals}, " \
               f"dtype={'np' if lang == 'numpy' else 'jnp'}.float32)"
    items = ", ".join(str(int(v)) for v in t)
    if lang == "torch":
        return f"{name} = torch.tensor([{items}], dtype=torch.int64)"
    table = _NP_DTYPE if lang == "numpy" else _JNP_DTYPE
    mod = "np" if lang == "numpy" else "jnp"
    return f"{name} = {mod}.array([{items}], dtype={table[t.dtype.str]})"


_BARRIER = {"add", "subtract", "multiply", "divide", "true_divide", "fma", "negative"}


def emit_python(g: Graph, lang: str, header: str) -> str:
    """Source of a module defining ``kernel(x)`` in ``lang`` (numpy, torch, jax)."""
    lines = ['"""' + header + '"""', "", _HELPERS[lang]]
    lines += [_table(k, t, lang) for k, t in g.tables.items()]
    lines += ["", "", "def _kernel(x, z=None):" if lang == "jax" else "def _kernel(x):"]
    if lang == "numpy":
        lines.append("    with np.errstate(all='ignore'):")
        indent = "        "
    else:
        indent = "    "
    for n in g.nodes:
        expr = _line(g, n, lang)
        if lang == "jax" and n.op in ("multiply", "square") and n.dtype == "<f4":
            expr = f"_opaque({expr}, z)"  # no contraction of this product into an FMA
        if lang == "jax" and n.op in _BARRIER:  # XLA must not reassociate TwoSum-like steps
            expr = f"lax.optimization_barrier({expr})"
        lines.append(f"{indent}v{n.id} = {expr}")
    lines.append(f"{indent}return v{g.output}")
    if lang == "jax":
        lines += ["", "", "_jitted = jax.jit(_kernel)", "", "",
                  "def kernel(x):",
                  "    with jax.enable_x64(True):",
                  "        return _jitted(jnp.asarray(x, dtype=jnp.float32), jnp.uint32(0))"]
    else:
        lines += ["", "", "kernel = _kernel"]
    return "\n".join(lines) + "\n"
