"""The det runtime behind ``ulplab.det`` (see its docstring): dispatch by array type and format,
the compiled float32 kernels, the narrow-format tables, autograd and the derivatives."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np

from ulplab.errors import UsageError, check_name, shown
from ulplab.kernels import registry

FUNCTIONS = registry.functions()
ROUNDINGS = ("float32", "odd")
"""``float32``: correctly rounded (the default, what det means); ``odd``: float32 round-to-odd."""

_COMPILED: dict[tuple[str, str], Callable[..., np.ndarray]] = {}
_WARNED: set[str] = set()
_FORMAT_NAMES: dict[tuple[str, Any], str] = {}
"""(func, dtype) -> the format's name, for the dtypes ``_format_name`` has accepted (``str`` of
a NumPy dtype and the registry's proved formats cost about 3 us a call)."""
_NATIVE: list[ModuleType] = []


def _native() -> ModuleType:
    """``ulplab.export.native``, imported on first use (importing ``ulplab.det`` reads the
    registry and nothing else: tests/test_layering.py); kept here because an import statement
    in a function costs about a microsecond on every call."""
    if not _NATIVE:
        from ulplab.export import native

        _NATIVE.append(native)
    return _NATIVE[0]


def formats(func: str) -> tuple[str, ...]:
    """The formats in which ``det.func`` is proved correctly rounded on every input."""
    return registry.get(func).formats


def _warn_once(reason: str) -> None:
    if reason not in _WARNED:
        _WARNED.add(reason)
        print(f"ulplab: warning: {reason}; running ulplab's NumPy kernels (same bits, slower)",
              file=sys.stderr)


def float32_kernel(func: str, rounding: str = "float32") -> Callable[..., np.ndarray]:
    """The det kernel of ``func`` on float32 arrays in ``rounding`` ("float32": correctly
    rounded; "odd"), as ``run(x, out=None, threads=None)`` (``ulplab.export.native.kernel``:
    threads as in ``ulplab.det``, the bits independent of them): compiled if a C compiler is at
    hand, else ulplab's NumPy kernel over the same slices (the same bits; one warning line on
    stderr says why). Only a compiled kernel is kept: a build that failed is tried again on the
    next call rather than leaving the process on the slow path."""
    _check(func, rounding)
    key = (func, rounding)
    if key in _COMPILED:
        return _COMPILED[key]
    from ulplab.export import native

    try:
        _COMPILED[key] = native.kernel(func, rounding=rounding)
        return _COMPILED[key]
    except (RuntimeError, OSError) as exc:
        _warn_once(f"no compiled det kernel ({str(exc).splitlines()[0][:160]})")
        numpy_kernel = registry.get(func).impl(rounding)

        def run(x: np.ndarray, out: np.ndarray | None = None,
                threads: int | None = None) -> np.ndarray:
            count = native.resolve_threads(threads)
            xs, result = native.float32_output(native.float32_input(x), out)
            flat_x, flat_out = xs.reshape(-1), result.reshape(-1)

            def work(lo: int, hi: int) -> None:
                with np.errstate(all="ignore"):  # in each thread: the error state is its own
                    flat_out[lo:hi] = numpy_kernel(flat_x[lo:hi].copy())

            native.run_sliced(work, xs.size, count, native.MIN_PER_THREAD)
            return result

        return run


def table(func: str, fmt: str, proved_only: bool = True) -> np.ndarray:
    """Bits of the det result for every bit pattern of ``fmt`` (uint16 or uint8, indexed by the
    input's bits): the kernel's float32 round-to-odd rounded to ``fmt`` (nearest-even), from the
    disk cache or built. ``proved_only``: refuse a format the registry has not proved."""
    if proved_only and (not isinstance(fmt, str) or fmt not in formats(func)):
        raise UsageError(f"det.{func} is not proved correctly rounded in {shown(fmt)}; proved: "
                         f"{', '.join(formats(func))}")
    return _table(func, fmt)


@cache
def _table(func: str, fmt: str) -> np.ndarray:
    from ulplab import cache as disk
    from ulplab.formats import get_format, round_to_format

    spec = get_format(fmt)
    key = f"det-table-{func}-{fmt}-{registry.get(func).golden['odd'][:16]}"
    bits = disk.load(key)
    if bits is not None and bits.dtype == spec.uint and bits.size == spec.n_patterns:
        return bits
    patterns = np.arange(spec.n_patterns, dtype=np.int64).astype(spec.uint)
    with np.errstate(all="ignore"):
        wide = patterns.view(spec.dtype).astype(np.float32)
        bits = round_to_format(float32_kernel(func, "odd")(wide), spec, "nearest-even")
    disk.save(key, bits)
    return bits


def _check(func: str, rounding: str) -> None:
    registry.get(func)
    if not isinstance(rounding, str) or rounding not in ROUNDINGS:
        check_name("rounding", rounding, ROUNDINGS)


def _format_name(func: str, dtype: Any) -> str:
    known = _FORMAT_NAMES.get((func, dtype))
    if known is not None:
        return known
    name = str(dtype).removeprefix("torch.")
    if name not in formats(func):
        raise UsageError(f"det.{func} takes {', '.join(formats(func))}; got {name}")
    _FORMAT_NAMES[(func, dtype)] = name
    return name


def _gather(tab: np.ndarray, index: np.ndarray, threads: int | None) -> np.ndarray:
    return _native().lookup(tab, index, threads)


def _numpy(func: str, x: np.ndarray, rounding: str, threads: int | None) -> np.ndarray:
    if not x.dtype.isnative:  # '>f4', '>f2': the result is in native byte order
        x = x.astype(x.dtype.newbyteorder("="))
    name = _format_name(func, x.dtype)
    if name == "float32":
        return float32_kernel(func, rounding)(x, threads=threads).reshape(x.shape)
    tab = _table(func, name)  # name is a proved format (_format_name)
    index = _native().c_contiguous(x).view(tab.dtype)
    return _gather(tab, index, threads).view(x.dtype)


def _torch_threads(threads: int | None) -> int:
    """PyTorch tensors: ``threads`` (``apply`` passes ``$ULPLAB_NUM_THREADS`` there where no
    count was given and the variable is set), else torch's intra-op thread count
    (``torch.get_num_threads()``)."""
    import torch

    return threads if threads is not None else torch.get_num_threads()


def dense_tensor(x: Any, what: str) -> Any:
    """PyTorch tensor ``x`` as det's paths read it: a sparse or nested one is a ``UsageError``
    naming ``what`` (the caller), a lazy negation (torch's negative bit, which ``.numpy()``
    refuses) is resolved to its values."""
    import torch

    if x.layout is not torch.strided or x.is_nested:
        kind = "nested" if x.is_nested else str(x.layout).removeprefix("torch.")
        hint = "one call per .unbind() component" if x.is_nested else ".to_dense() first"
        raise UsageError(f"{what} takes a dense tensor, not a {kind} one ({hint})")
    return x.resolve_neg() if x.is_neg() else x


def _torch(func: str, x: Any, rounding: str, threads: int | None) -> Any:
    import torch

    x = dense_tensor(x, f"det.{func}")
    threads = _torch_threads(threads)
    if x.requires_grad and torch.is_grad_enabled():
        return _autograd(func, rounding).apply(x, threads)
    name = _format_name(func, x.dtype)
    if x.requires_grad:  # under no_grad: .numpy() refuses a tensor that requires grad
        x = x.detach()
    if name == "float32":
        if x.device.type != "cpu":
            raise UsageError(f"float32 det on a {x.device.type} tensor: use the exported kernel "
                             "(ulplab export FUNC --lang torch/triton/cuda) on that device")
        # the result has x's shape already (a torch reshape costs 1.6 us)
        return torch.from_numpy(float32_kernel(func, rounding)(x.contiguous().numpy(),
                                                               threads=threads))
    tab = _table(func, name)  # name is a proved format (_format_name)
    carrier = torch.int16 if tab.dtype == np.uint16 else torch.uint8
    if x.device.type == "cpu":
        result = _gather(tab, x.contiguous().view(carrier).numpy().view(tab.dtype), threads)
        if carrier is torch.int16:
            result = result.view(np.int16)
        return torch.from_numpy(result).view(x.dtype)  # x's shape already
    index = x.view(carrier).to(torch.int32)
    if carrier is torch.int16:
        index = index & 0xFFFF
    lookup = torch.from_numpy(tab.view(np.int16) if carrier is torch.int16 else tab)
    return lookup.to(x.device)[index].view(x.dtype)


@cache
def _autograd(func: str, rounding: str) -> Any:
    """A torch.autograd.Function: forward ``det.func``, backward grad * ``derivative(func)``
    (one float32 multiplication, rounded once to grad's dtype); no second derivative."""
    import torch

    if func not in DIFFERENTIABLE:
        raise UsageError(f"det.{func} has no derivative kernel: call it on a tensor that does "
                         f"not require grad (x.detach()); differentiable: "
                         f"{', '.join(sorted(DIFFERENTIABLE))}")

    class DetFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, threads: int | None) -> Any:
            ctx.save_for_backward(x)
            ctx.threads = threads
            return apply(func, x.detach(), rounding, threads)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            if torch.is_grad_enabled():  # create_graph=True: a second derivative is asked for
                raise UsageError(f"det.{func} has no second derivative (backward with "
                                 "create_graph=True); differentiate the result once")
            (x,) = ctx.saved_tensors
            xs = x.detach().to("cpu", torch.float32).contiguous().numpy()
            g = grad.detach().to("cpu", torch.float32).contiguous().numpy()
            with np.errstate(all="ignore"):
                out = g * derivative(func, xs, ctx.threads)
            return torch.from_numpy(out).reshape(x.shape).to(grad.device, grad.dtype), None

    DetFunction.__name__ = f"det_{func}"
    return DetFunction


def _jax(func: str, x: Any, rounding: str, threads: int | None) -> Any:
    import jax
    import jax.numpy as jnp

    name = _format_name(func, x.dtype)
    concrete = not isinstance(x, jax.core.Tracer)
    if concrete and (name == "float32" or all(d.platform == "cpu" for d in x.devices())):
        # a concrete array: NumPy's path (the compiled kernel, or the table lookup for an array
        # on the CPU: jnp's gather of a fresh device copy of the table took 68 us on 1,024
        # bfloat16 values, this 17), then the result on x's device
        out = _numpy(func, np.asarray(x), rounding, threads)
        return jax.device_put(out, x.sharding) if x.committed else jnp.asarray(out)
    if concrete:
        return _jax_value(func, name, rounding, threads, x)
    return _jax_traced(func, name, rounding, threads)(x)


def _jax_value(func: str, name: str, rounding: str, threads: int | None, x: Any) -> Any:
    """det ``func`` on the JAX array ``x`` of format ``name`` in JAX operations: the compiled
    kernel through ``jax.pure_callback`` for float32, the table's gather for the others."""
    import jax
    import jax.numpy as jnp

    if name == "float32":
        spec = jax.ShapeDtypeStruct(x.shape, jnp.float32)
        # elementwise, so any batch shape: vmap hands the callback the whole batch
        return jax.pure_callback(_jax_callback(func, rounding, threads), spec, x,
                                 vmap_method="broadcast_all")
    tab = _table(func, name)  # name is a proved format (_format_name)
    if _bits(name) < 8:
        return _jax_sub_byte(func, name, x)
    bits = jax.lax.bitcast_convert_type(x, jnp.uint16 if tab.dtype == np.uint16 else jnp.uint8)
    return jax.lax.bitcast_convert_type(jnp.take(jnp.asarray(tab), bits.astype(jnp.int32)),
                                        x.dtype)


@cache
def _jax_traced(func: str, name: str, rounding: str, threads: int | None) -> Callable[[Any], Any]:
    """``_jax_value`` for traced arrays (jit, vmap, grad), differentiable as PyTorch's autograd
    is (``_autograd``): a ``jax.custom_jvp`` whose tangent is t * ``derivative(func, x)``, one
    float32 product rounded to t's dtype (computed by XLA, which on the CPU flushes a subnormal
    product to zero); a function without a derivative, or a second derivative, is a
    ``UsageError`` at trace time. Without it the float32 callback raised JAX's own error and
    the gather of the narrow formats, through integer bits, gave a gradient of 0."""
    import jax
    import jax.numpy as jnp

    f = jax.custom_jvp(lambda x: _jax_value(func, name, rounding, threads, x))

    def jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        if func not in DIFFERENTIABLE:
            raise UsageError(f"det.{func} has no derivative kernel: differentiate a function "
                             f"that has one, or stop the gradient (jax.lax.stop_gradient(x)); "
                             f"differentiable: {', '.join(sorted(DIFFERENTIABLE))}")
        d = _jax_derivative(func, threads)(x.astype(jnp.float32))
        return f(x), (d * t.astype(jnp.float32)).astype(t.dtype)

    f.defjvp(jvp)
    return f


@cache
def _jax_derivative(func: str, threads: int | None) -> Callable[[Any], Any]:
    """``derivative(func, x)`` on a traced float32 JAX array (a host callback), which itself
    has no derivative (a ``UsageError``, as PyTorch's second derivative is)."""
    import jax
    import jax.numpy as jnp

    def host(a: Any) -> np.ndarray:
        return derivative(func, np.asarray(a), threads)

    d = jax.custom_jvp(lambda x: jax.pure_callback(
        host, jax.ShapeDtypeStruct(x.shape, jnp.float32), x, vmap_method="broadcast_all"))

    def second(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
        raise UsageError(f"det.{func} has no second derivative; differentiate the result once")

    d.defjvp(second)
    return d


@cache
def _jax_callback(func: str, rounding: str, threads: int | None) -> Callable[[Any], np.ndarray]:
    """The host function of ``jax.pure_callback`` for ``func`` under a JAX trace (jit, vmap,
    grad), one object per (func, rounding, threads): JAX caches what it builds for a callback
    by the function's identity, and a new lambda on every eager call made it compile again
    each time (15 ms a det.exp call on a 1,024-element array, against 16 us now that eager
    calls run the kernel directly)."""

    def run(a: Any) -> np.ndarray:
        return float32_kernel(func, rounding)(np.asarray(a), threads=threads)

    return run


def _bits(fmt: str) -> int:
    from ulplab.formats import get_format

    return int(get_format(fmt).n_patterns).bit_length() - 1


@cache
def _sub_byte_table(func: str, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """(sorted float32 bits of every input value of ``fmt``, the det result of each as a
    float32 value): JAX packs fp6/fp4 below a byte, so its arrays cannot be bitcast to an
    index; the input's float32 bits (exact, and distinct for distinct patterns of these
    formats, which have no NaN) are searched instead."""
    from ulplab.formats import get_format

    spec = get_format(fmt)
    patterns = np.arange(spec.n_patterns, dtype=np.int64).astype(spec.uint)
    keys = patterns.view(spec.dtype).astype(np.float32).view(np.uint32)
    out = table(func, fmt).view(spec.dtype).astype(np.float32)
    order = np.argsort(keys, kind="stable")
    return keys[order], out[order]


def _jax_sub_byte(func: str, fmt: str, x: Any) -> Any:
    import jax
    import jax.numpy as jnp

    keys, out = _sub_byte_table(func, fmt)
    try:
        wide = jax.lax.bitcast_convert_type(x.astype(jnp.float32), jnp.uint32)
    except Exception as exc:  # XLA without this type (JaxRuntimeError): say so in one line
        raise UsageError(f"this JAX cannot compute on {fmt} arrays ({str(exc).splitlines()[0]}"
                         f"); pass np.asarray(x) to det.{func}") from None
    index = jnp.searchsorted(jnp.asarray(keys), wide)
    return jnp.take(jnp.asarray(out), index).astype(x.dtype)


def check_threads(threads: int | None) -> None:
    """``threads`` is a positive int (else a ``UsageError`` naming ``threads``), or None and
    ``$ULPLAB_NUM_THREADS`` unset or a positive int (else one naming the variable)."""
    if threads is not None:
        _native().check_threads(threads)
    else:
        _native().env_threads()


def apply(func: str, x: Any, rounding: str = "float32", threads: int | None = None) -> Any:
    """``func``'s det kernel on ``x`` (NumPy array, PyTorch tensor or JAX array) on ``threads``
    threads (see ``ulplab.det``: default every core, or ``$ULPLAB_NUM_THREADS``, or torch's
    thread count for a tensor; capped at ``os.cpu_count()``; the bits do not depend on it)."""
    _check(func, rounding)
    native = _native()
    # threads checked, else $ULPLAB_NUM_THREADS (checked; None where unset), read once a call
    wanted = native.check_threads(threads) if threads is not None else native.env_threads()
    count = wanted or native.cpu_count()  # NumPy and JAX arrays; a tensor: torch's count
    if type(x) is np.ndarray:  # the common case first
        return _numpy(func, x, rounding, count)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return _torch(func, x, rounding, wanted)
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(x, jax.Array):
        return _jax(func, x, rounding, count)
    if isinstance(x, np.ma.MaskedArray):  # every value computed, the mask kept (as a ufunc)
        out = _numpy(func, np.ma.getdata(x), rounding, count)
        return np.ma.MaskedArray(out, mask=np.ma.getmaskarray(x).copy())
    if isinstance(x, np.ndarray | np.generic):
        out = _numpy(func, np.asarray(x), rounding, count)
        return out[()] if isinstance(x, np.generic) else out
    raise UsageError(f"det functions take a NumPy array, a PyTorch tensor or a JAX array; "
                     f"got {type(x).__name__}")


# --- derivatives -------------------------------------------------------------------------------
F32 = np.float32
_ONE = F32(1.0)
_SQRT_2_OVER_PI = np.uint32(0x3F4C422A).view(F32)  # 0x1.988454p-1: sqrt(2/pi) rounded to float32
_GELU_TANH_A = np.uint32(0x3D372713).view(F32)  # 0x1.6e4e26p-5: 0.044715 rounded to float32
_GELU_TANH_3A = np.uint32(0x3E095D4F).view(F32)  # 0x1.12ba9ep-3: 3 * 0.044715 to float32


def _k(func: str, x: np.ndarray, threads: int | None = None) -> np.ndarray:
    return float32_kernel(func, "odd")(x, threads=threads)


def _d_sigmoid(x: np.ndarray) -> np.ndarray:
    small = _k("sigmoid", -np.abs(x))  # s(1 - s) is even; 1 - small >= 1/2 does not cancel
    return small * (_ONE - small)


def _d_silu(x: np.ndarray) -> np.ndarray:
    return _k("sigmoid", x) * (_ONE + x * _k("sigmoid", -x))  # 1 - s as sigmoid(-x)


def _d_gelu_tanh(x: np.ndarray) -> np.ndarray:
    # 0.5 (1 + tanh u) = sigmoid(2u) and 1 - tanh^2 u = 4 sigmoid(2u) sigmoid(-2u): no cancellation
    x2 = x * x
    two_u = F32(2.0) * (_SQRT_2_OVER_PI * (x + _GELU_TANH_A * x2 * x))
    sp, sn = _k("sigmoid", two_u), _k("sigmoid", -two_u)
    du = _SQRT_2_OVER_PI * (_ONE + _GELU_TANH_3A * x2)
    return sp + x * ((F32(2.0) * sp * sn) * du)


FORMULAS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "gelu_tanh": _d_gelu_tanh, "silu": _d_silu, "sigmoid": _d_sigmoid,
}
"""Derivatives with no kernel of their own, as float32 formulas over det kernels (each operation
rounded to nearest-even, no FMA, in this order): deterministic, not claimed correctly rounded."""
_LIMIT_AT_INF = {"gelu_tanh", "silu"}  # 1 at +inf, 0 at -inf
_ZERO_AT_INF = {"sigmoid"}

DIFFERENTIABLE = frozenset({f for f, k in registry.kernels().items() if k.derivative}
                           | set(FORMULAS))
"""The functions ``det`` differentiates: the registry's derivative kernels and ``FORMULAS``."""


def derivative(func: str, x: np.ndarray, threads: int | None = None) -> np.ndarray:
    """The float32 derivative of ``func`` at float32 ``x``: its derivative kernel's round-to-odd
    result where the registry names one (gelu -> gelu_grad, tanh -> tanh_grad, exp -> exp,
    sin -> cos, cos -> -sin, softplus -> sigmoid: rounded to bfloat16 or float16 it is the
    correctly rounded f'(x)), else the formula of ``FORMULAS``. ``threads``: of the derivative
    kernel (the formulas' own operations run on one)."""
    if not isinstance(func, str) or func not in DIFFERENTIABLE:
        name = func if isinstance(func, str) else shown(func)
        raise UsageError(f"det.{name} has no derivative; differentiable: "
                         f"{', '.join(sorted(DIFFERENTIABLE))}")
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):  # its values, on the host
        x = dense_tensor(x, "det.derivative").detach().cpu()
    x = np.asarray(x)
    if x.dtype.kind in "cOUSMm":  # complex (the imaginary part would be dropped), objects,
        raise UsageError(f"det.derivative takes real float32 values; got {x.dtype}")  # text
    x = np.ascontiguousarray(x, dtype=np.float32)
    with np.errstate(all="ignore"):
        kernel = registry.get(func).derivative
        if kernel:
            d = _k(kernel.lstrip("-"), x, threads)
            return -d if kernel.startswith("-") else d
        d = FORMULAS[func](x)
        if func in _LIMIT_AT_INF:
            d = np.where(np.isinf(x), (x > 0).astype(np.float32), d)
        elif func in _ZERO_AT_INF:
            d = np.where(np.isinf(x), F32(0.0), d)
    return d


def _make(func: str) -> Callable[..., Any]:
    def fn(x: Any, rounding: str = "float32", threads: int | None = None) -> Any:
        return apply(func, x, rounding, threads)

    fn.__name__ = fn.__qualname__ = func
    fn.__doc__ = (f"det {func}(x): the correctly rounded {func} in x's format (float32, or any "
                  f"format of det.formats({func!r})); same type, dtype and shape as x; "
                  "rounding='odd' gives the float32 round-to-odd; threads=N runs on N threads "
                  "(default: every core, $ULPLAB_NUM_THREADS, or torch's count for a tensor; "
                  "the bits do not depend on it). See ulplab.det.")
    return fn


KERNEL_FUNCTIONS: dict[str, Callable[..., Any]] = {f: _make(f) for f in FUNCTIONS}
"""``det.FUNC`` for every kernel of the registry (``ulplab.det`` puts them in its namespace)."""


def sincos(x: Any, rounding: str = "float32", threads: int | None = None) -> tuple[Any, Any]:
    """(det sin(x), det cos(x)): the bits of ``sin`` and ``cos``, each on ``threads``."""
    return apply("sin", x, rounding, threads), apply("cos", x, rounding, threads)


__all__ = ["DIFFERENTIABLE", "FUNCTIONS", "KERNEL_FUNCTIONS", "ROUNDINGS", "apply",
           "check_threads", "derivative", "float32_kernel", "formats", "sincos", "table"]
