"""Triton source from a traced kernel: one ``@triton.jit`` function over a 1-D block of float32.

The generated module defines the jit kernel ``<name>_kernel(x_ptr, y_ptr, tab_ptr, n, BLOCK)``
and a launcher ``kernel(x, block=None)`` taking a float32 torch tensor (on a CUDA device, or on
the CPU under Triton's interpreter, ``TRITON_INTERPRET=1``). The body is the traced graph in
trace order, one line per operation, with the C export's semantics (``ulplab.export.emit_c``):

* float32 ``+ - *`` as written, launched with ``enable_fp_fusion=False`` so that no product is
  contracted into an FMA; ``tl.fma`` where the kernel says FMA; division and square root as
  ``tl.math.div_rn`` and ``tl.sqrt_rn`` (Triton's ``/`` and ``tl.sqrt`` may be approximate);
  negation, absolute value, copysign and the classifications are bit operations, so they are
  exact on hardware that flushes subnormals;
* rint is ties-to-even by the 2^23 addition (|x| < 2^23; other values are integers already);
  ldexp scales by exact steps and one multiplication by a power of two built from bits;
* float -> int32 truncates in range and gives INT32_MIN for NaN and out-of-range values (the
  x86-64 answer NumPy gives; a GPU's conversion would saturate); a shift by a variable count of
  32 or more gives 0 (or the sign for an int32 shifted right), never LLVM's poison;
* every constant is a typed ``tl.full`` (no weak-typing promotion, float32 subnormal constants
  stay float32), non-finite float constants are built from their bits;
* the constant tables are packed into one uint32 tensor (``TABLE_WORDS``, each table at its
  offset), read by ``tl.load`` gathers and bit casts.
"""

from __future__ import annotations

import math

import numpy as np

from ulplab.export.emit_c import operand_dtype
from ulplab.export.trace import Graph, Node

TL_DTYPE = {"<f4": "tl.float32", "<u4": "tl.uint32", "<i4": "tl.int32", "|b1": "tl.int1"}

HELPERS = '''

@triton.jit
def _bits(a):
    return a.to(tl.uint32, bitcast=True)


@triton.jit
def _float(u):
    return u.to(tl.float32, bitcast=True)


@triton.jit
def _u32(v, like):
    return tl.full(like.shape, v, tl.uint32)


@triton.jit
def _i32(v, like):
    return tl.full(like.shape, v, tl.int32)


@triton.jit
def _isnan(a):  # 0x7F800000: +inf; above it, sign cleared: NaN
    return (_bits(a) & _u32(0x7FFFFFFF, a)) > _u32(0x7F800000, a)


@triton.jit
def _isinf(a):
    return (_bits(a) & _u32(0x7FFFFFFF, a)) == _u32(0x7F800000, a)


@triton.jit
def _isfinite(a):
    return (_bits(a) & _u32(0x7F800000, a)) != _u32(0x7F800000, a)


@triton.jit
def _signbit(a):
    return (_bits(a) >> _u32(31, a)) == _u32(1, a)


@triton.jit
def _neg(a):
    return _float(_bits(a) ^ _u32(0x80000000, a))


@triton.jit
def _fabs(a):
    return _float(_bits(a) & _u32(0x7FFFFFFF, a))


@triton.jit
def _copysign(a, b):
    return _float((_bits(a) & _u32(0x7FFFFFFF, a)) | (_bits(b) & _u32(0x80000000, a)))


@triton.jit
def _min(a, b):  # np.minimum: a NaN operand wins, a first
    return tl.where(_isnan(a), a, tl.where(_isnan(b), b, tl.where(a < b, a, b)))


@triton.jit
def _max(a, b):
    return tl.where(_isnan(a), a, tl.where(_isnan(b), b, tl.where(a > b, a, b)))


@triton.jit
def _rint(a):  # ties to even: |a| + 2^23 rounds to an integer, the subtraction is exact
    big = _float(_u32(0x4B000000, a))  # 2^23: from there on every float32 is an integer
    r = _copysign((_fabs(a) + big) - big, a)
    return tl.where(_fabs(a) < big, r, a)


@triton.jit
def _trunc(a):
    return tl.where(a < _float(_u32(0, a)), tl.ceil(a), tl.floor(a))


@triton.jit
def _f2i(f):  # in range: truncation; NaN and out of range: INT32_MIN (cvttps2dq's answer)
    # 0xCF000001: -(2^31 + 256), the float32 below -2^31; 0x4F000000: 2^31
    ok = (f > _float(_u32(0xCF000001, f))) & (f < _float(_u32(0x4F000000, f)))
    return tl.where(ok, tl.where(ok, f, _float(_u32(0, f))).to(tl.int32), _i32(-2147483648, f))


@triton.jit
def _pow2(e):  # 2^e from its bits, e in [-126, 127]
    return _float(((e + _i32(127, e)) << _i32(23, e)).to(tl.uint32, bitcast=True))


@triton.jit
def _ldexp(x, e):  # x 2^e rounded once, as ldexpf (the C export's steps)
    e = tl.where(e < _i32(-400, e), _i32(-400, e), tl.where(e > _i32(400, e), _i32(400, e), e))
    for _step in tl.static_range(2):
        up = e > _i32(127, e)
        x = tl.where(up, x * _float(_u32(0x7F000000, x)), x)  # 2^127
        e = tl.where(up, e - _i32(127, e), e)
    e = tl.where(e > _i32(127, e), _i32(127, e), e)
    for _step in tl.static_range(2):
        down = e < _i32(-126, e)
        x = tl.where(down, x * _float(_u32(0x0C800000, x)), x)  # 2^-102
        e = tl.where(down, e + _i32(102, e), e)
    e = tl.where(e < _i32(-126, e), _i32(-126, e), e)
    return x * _pow2(e)


@triton.jit
def _frexp_e(a):  # the exponent e of a = m 2^e, 1/2 <= |m| < 1; 0 for 0, inf, NaN
    sub = (_bits(a) & _u32(0x7F800000, a)) == _u32(0, a)
    s = tl.where(sub, a * _float(_u32(0x4C000000, a)), a)  # 0x4C000000: 2^25, subnormals up
    e = ((_bits(s) >> _u32(23, a)) & _u32(0xFF, a)).to(tl.int32, bitcast=True)
    e = e - tl.where(sub, _i32(25, e), _i32(0, e)) - _i32(126, e)
    plain = (a == _float(_u32(0, a))) | ~_isfinite(a)
    return tl.where(plain, _i32(0, e), e)


@triton.jit
def _frexp_m(a):
    sub = (_bits(a) & _u32(0x7F800000, a)) == _u32(0, a)
    s = tl.where(sub, a * _float(_u32(0x4C000000, a)), a)  # 2^25
    m = _float((_bits(s) & _u32(0x807FFFFF, a)) | _u32(0x3F000000, a))  # sign, fraction; 2^-1
    plain = (a == _float(_u32(0, a))) | ~_isfinite(a)
    return tl.where(plain, a, m)
'''


def _float_lit(v: float) -> str:
    """A float32 constant: by its bits for NaN, the infinities and -0.0 (Triton's ``tl.full``
    makes its null value, +0.0, of any constant equal to 0: -0.0 came out as +0.0 on an H200,
    1.0e9 wrong results each for gelu, gelu_tanh and silu, while the interpreter kept the
    sign), else the repr of the float32 value (exact)."""
    f = float(np.float32(v))
    if math.isnan(f) or math.isinf(f) or (f == 0.0 and math.copysign(1.0, f) < 0):
        bits = int(np.array([f], np.float32).view(np.uint32)[0])
        return f"tl.full([BLOCK], 0x{bits:08x}, tl.uint32).to(tl.float32, bitcast=True)"
    return f"tl.full([BLOCK], {f!r}, tl.float32)"  # repr of a float32 value: exact


def _lit(value: object, dtype: str) -> str:
    if dtype == "<f4":
        return _float_lit(float(value))  # type: ignore[arg-type]
    if dtype == "|b1":
        return f"tl.full([BLOCK], {int(bool(value))}, tl.int1)"
    iv = int(value)  # type: ignore[call-overload]
    if dtype == "<u4":
        return f"tl.full([BLOCK], 0x{iv & 0xFFFFFFFF:08x}, tl.uint32)"
    if dtype == "<i4":
        return f"tl.full([BLOCK], {iv}, tl.int32)"
    raise NotImplementedError(f"Triton emitter: a constant of dtype {dtype}")


def _arg(g: Graph, node: Node, pos: int) -> str:
    a = node.args[pos]
    if a[0] == "node":
        return f"v{a[1]}"
    if a[0] == "table":
        return a[1]
    want = operand_dtype(g, node, pos)
    value = int(bool(a[1])) if a[2] == "|b1" and want != "|b1" else a[1]
    return _lit(value, want)


def _as(expr: str, src: str, dst: str) -> str:
    """``expr`` of dtype ``src`` reinterpreted as ``dst`` (same width)."""
    return expr if src == dst else f"{expr}.to({TL_DTYPE[dst]}, bitcast=True)"


_BIN = {"add": "+", "subtract": "-", "multiply": "*", "bitwise_and": "&", "bitwise_or": "|",
        "bitwise_xor": "^", "logical_and": "&", "logical_or": "|"}
_CMP = {"greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=", "equal": "==",
        "not_equal": "!="}
_UNARY = {"sqrt": "tl.sqrt_rn", "fabs": "_fabs", "rint": "_rint", "floor": "tl.floor",
          "ceil": "tl.ceil", "trunc": "_trunc", "isnan": "_isnan", "isinf": "_isinf",
          "isfinite": "_isfinite", "signbit": "_signbit"}


def _expr(g: Graph, n: Node, offsets: dict[str, int], tables: dict[str, np.ndarray]) -> str:
    a = [_arg(g, n, i) for i in range(len(n.args))]
    dt = n.dtype
    in_dt = operand_dtype(g, n, 0) if n.args else dt
    if n.op == "input":
        return "tl.load(x_ptr + offs, mask=live, other=0.0)"
    if n.op in _CMP:
        return f"({a[0]} {_CMP[n.op]} {a[1]})"
    if n.op in ("divide", "true_divide") and in_dt == "<f4":
        return f"tl.math.div_rn({a[0]}, {a[1]})"
    if n.op in _BIN:
        return f"({a[0]} {_BIN[n.op]} {a[1]})"
    if n.op == "negative":
        return f"_neg({a[0]})" if dt == "<f4" else f"({_lit(0, dt)} - {a[0]})"
    if n.op == "absolute":
        if dt == "<f4":
            return f"_fabs({a[0]})"
        return f"tl.where({a[0]} < {_lit(0, dt)}, {_lit(0, dt)} - {a[0]}, {a[0]})"
    if n.op == "frexp":
        return f"_frexp_m({a[0]})" if n.index == 0 else f"_frexp_e({a[0]})"
    if n.op in _UNARY:
        return f"{_UNARY[n.op]}({a[0]})"
    if n.op in ("logical_not", "invert"):
        return f"(~{a[0]})"
    if n.op in ("left_shift", "right_shift"):
        op = "<<" if n.op == "left_shift" else ">>"
        count_dt = g.nodes[n.args[1][1]].dtype if n.args[1][0] == "node" else dt
        count = _as(a[1], count_dt, dt)
        if n.args[1][0] != "node":
            return f"({a[0]} {op} {count})"
        # a count of 32 or more (as unsigned): 0, or the sign of an int32 shifted right
        ucount = _as(a[1], count_dt, "<u4")
        in_range = f"({ucount} < {_lit(32, '<u4')})"
        masked = _as(f"({ucount} & {_lit(31, '<u4')})", "<u4", dt)
        beyond = (f"({a[0]} >> {_lit(31, dt)})" if n.op == "right_shift" and dt == "<i4"
                  else _lit(0, dt))
        return f"tl.where({in_range}, {a[0]} {op} {masked}, {beyond})"
    if n.op in ("minimum", "fmin", "maximum", "fmax"):
        low = n.op in ("minimum", "fmin")
        if dt == "<f4":
            return f"{'_min' if low else '_max'}({a[0]}, {a[1]})"
        return f"tl.where({a[0]} {'<' if low else '>'} {a[1]}, {a[0]}, {a[1]})"
    if n.op == "copysign":
        return f"_copysign({a[0]}, {a[1]})"
    if n.op == "ldexp":
        return f"_ldexp({a[0]}, {a[1]})"
    if n.op == "square":
        return f"({a[0]} * {a[0]})"
    if n.op == "fma":
        return f"tl.fma({a[0]}, {a[1]}, {a[2]})"
    if n.op == "where":
        return f"tl.where({a[0]}, {a[1]}, {a[2]})"
    if n.op == "full":
        c = n.args[1]
        return _lit(c[1], dt)
    if n.op == "take":
        name = n.args[0][1]
        word = f"tl.load(tab_ptr + ({_lit(offsets[name], '<i4')} + {a[1]}), mask=live, other=0)"
        return _as(word, "<i4", tables[name].dtype.str)
    if n.op in ("bitcast", "convert"):
        src = g.nodes[n.args[0][1]].dtype
        if src == dt:
            return a[0]
        if n.op == "bitcast":
            return _as(a[0], src, dt)
        if src == "<f4" and dt == "<i4":
            return f"_f2i({a[0]})"
        if dt == "|b1":
            return f"({a[0]} != {_lit(0, src)})"
        if src in ("<u4", "<i4") and dt in ("<u4", "<i4"):
            return _as(a[0], src, dt)  # same width: the bits, as C's cast
        return f"{a[0]}.to({TL_DTYPE[dt]})"
    raise NotImplementedError(f"Triton emitter: {n.op}")


def _table_words(g: Graph) -> tuple[list[int], dict[str, int]]:
    words: list[int] = []
    offsets: dict[str, int] = {}
    for name, t in g.tables.items():
        if t.dtype.str not in ("<f4", "<u4", "<i4"):
            raise NotImplementedError(f"Triton emitter: a table of dtype {t.dtype}")
        offsets[name] = len(words)
        words += [int(w) for w in np.ascontiguousarray(t).view(np.int32)]
    return words or [0], offsets


def _launcher(name: str, words: list[int]) -> str:
    rows = [", ".join(str(w) for w in words[i:i + 8]) for i in range(0, len(words), 8)]
    table = ",\n    ".join(rows)
    return f'''

# Every constant table of the kernel, packed as int32 words (float32 tables by their bits).
TABLE_WORDS = [
    {table},
]
_TABLES = {{}}


def _table(device):
    if device not in _TABLES:
        _TABLES[device] = torch.tensor(TABLE_WORDS, dtype=torch.int32, device=device)
    return _TABLES[device]


def kernel(x, block=None):
    """{name} on a float32 torch tensor (CUDA, or CPU under TRITON_INTERPRET=1); same shape."""
    if x.dtype != torch.float32:
        raise TypeError(f"{name} takes float32 tensors, not {{x.dtype}}")
    xs = x.contiguous()
    y = torch.empty_like(xs)
    n = xs.numel()
    if block is None:  # the interpreter runs a block as NumPy arrays: larger is faster there
        block = 1 << 16 if xs.device.type == "cpu" else 1024
    if n:
        {name}_kernel[(triton.cdiv(n, block),)](xs, y, _table(xs.device), n, BLOCK=block,
                                                enable_fp_fusion=False)
    return y.reshape(x.shape)
'''


def emit_triton(g: Graph, name: str, header: str) -> str:
    """Source of a module defining the Triton kernel ``<name>_kernel`` and ``kernel(x)``."""
    words, offsets = _table_words(g)
    lines = ['"""' + header + '\n"""', "", "import torch", "import triton",
             "import triton.language as tl", HELPERS, "", "@triton.jit",
             f"def {name}_kernel(x_ptr, y_ptr, tab_ptr, n, BLOCK: tl.constexpr):",
             "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
             "    live = offs < n"]
    for n in g.nodes:
        lines.append(f"    v{n.id} = {_expr(g, n, offsets, g.tables)}")
    lines.append(f"    tl.store(y_ptr + offs, v{g.output}, mask=live)")
    return "\n".join(lines) + "\n" + _launcher(name, words)
