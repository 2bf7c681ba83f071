"""PyTorch operators and modules over the det kernels, deterministic forward and backward.

Operators (``torch.library``; opaque to torch.compile, so they survive it with the same bits):
``torch.ops.ulplab.<func>(x)`` for every function of ``ulplab.det`` (x: CPU float32, any device
for bfloat16/float16/fp8, as ``ulplab.det``), and ``torch.ops.ulplab.<func>_backward(grad, x)``
for gelu, gelu_tanh, silu, softplus, tanh, sigmoid (CPU).

Modules, drop-in replacements with autograd: ``GELU(approximate="none"|"tanh")``, ``SiLU``,
``Softplus`` (beta=1, threshold=20 as torch's default: the det kernel is the exact softplus at
every input), ``Tanh``, ``Sigmoid``.

The derivatives are computed in float32 from the det kernels' results by the float32 operations
written in ``_DERIVATIVES`` (each rounded to nearest-even, no FMA, in this order): deterministic,
bit-identical in eager and compiled mode, but not claimed correctly rounded (the det results they
use are float32 rounded to odd, within 1 ulp; forms that cancel near saturation are avoided).
softplus' = det sigmoid(x); sigmoid' = s * (1 - s) with s = det sigmoid(-|x|); silu' = det
sigmoid(x) * (1 + x * det sigmoid(-x)); tanh' = 4e / ((1 + e) * (1 + e)), e = det exp(-2|x|);
gelu' = Phi + x * phi with Phi = 0.5 * (1 + det erf(x * 2^-1/2)) and phi = det exp(-(0.5 * x *
x)) * (2 pi)^-1/2; gelu_tanh' = sp + x * ((2 * sp * sn) * du) with sp, sn = det sigmoid(+-2u),
u = c (x + a x^3), du = c (1 + 3a x^2). At x = +-inf every derivative is its limit (1 or 0).
The incoming gradient is multiplied in float32 and the product rounded once to its dtype.
(Dedicated det derivative kernels, when ulplab ships them, replace the gelu and tanh formulas.)
"""

from collections.abc import Callable

import numpy as np
import torch

from ulplab import det
from ulplab.errors import UsageError
from ulplab.kit.ops import f32hex

F32 = np.float32
ONE, HALF = F32(1.0), F32(0.5)
RSQRT2 = f32hex("0x1.6a09e6p-1")  # 1/sqrt(2) rounded to float32
RSQRT_2PI = f32hex("0x1.988454p-2")  # 1/sqrt(2 pi) rounded to float32
SQRT_2_OVER_PI = f32hex("0x1.988454p-1")  # sqrt(2/pi), the tanh form's constant
GELU_TANH_A = f32hex("0x1.6e4e26p-5")  # 0.044715 rounded to float32
GELU_TANH_3A = f32hex("0x1.12ba9ep-3")  # 3 * 0.044715 rounded to float32


def _k(func: str, x: np.ndarray) -> np.ndarray:
    return det.float32_kernel(func)(x)


def _d_sigmoid(x: np.ndarray) -> np.ndarray:
    small = _k("sigmoid", -np.abs(x))  # s(1 - s) is even; 1 - small >= 1/2 does not cancel
    return small * (ONE - small)


def _d_silu(x: np.ndarray) -> np.ndarray:
    return _k("sigmoid", x) * (ONE + x * _k("sigmoid", -x))  # 1 - s as sigmoid(-x)


def _d_softplus(x: np.ndarray) -> np.ndarray:
    return _k("sigmoid", x)


def _d_tanh(x: np.ndarray) -> np.ndarray:
    e = _k("exp", F32(-2.0) * np.abs(x))  # 1 - tanh^2 = 4 e / (1 + e)^2, e = exp(-2|x|)
    return F32(4.0) * e / ((ONE + e) * (ONE + e))


def _d_gelu(x: np.ndarray) -> np.ndarray:
    big_phi = HALF * (ONE + _k("erf", x * RSQRT2))
    phi = _k("exp", -(HALF * x * x)) * RSQRT_2PI
    return big_phi + x * phi


def _d_gelu_tanh(x: np.ndarray) -> np.ndarray:
    # 0.5 (1 + tanh u) = sigmoid(2u) and 1 - tanh^2 u = 4 sigmoid(2u) sigmoid(-2u): no cancellation
    x2 = x * x
    two_u = F32(2.0) * (SQRT_2_OVER_PI * (x + GELU_TANH_A * x2 * x))
    sp, sn = _k("sigmoid", two_u), _k("sigmoid", -two_u)
    du = SQRT_2_OVER_PI * (ONE + GELU_TANH_3A * x2)
    return sp + x * ((F32(2.0) * sp * sn) * du)


_DERIVATIVES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "gelu": _d_gelu, "gelu_tanh": _d_gelu_tanh, "silu": _d_silu, "softplus": _d_softplus,
    "tanh": _d_tanh, "sigmoid": _d_sigmoid,
}
_LIMIT_AT_INF = {"gelu", "gelu_tanh", "silu", "softplus"}  # 1 at +inf, 0 at -inf


def derivative(func: str, x: np.ndarray) -> np.ndarray:
    """The float32 derivative of ``func`` at float32 ``x`` (the documented formula)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    with np.errstate(all="ignore"):
        d = _DERIVATIVES[func](x)
        if func in _LIMIT_AT_INF:
            d = np.where(np.isinf(x), (x > 0).astype(np.float32), d)
        elif func in ("tanh", "sigmoid"):
            d = np.where(np.isinf(x), F32(0.0), d)
    return d


def _forward_op(func: str) -> Callable[[torch.Tensor], torch.Tensor]:
    def impl(x: torch.Tensor) -> torch.Tensor:
        return det.apply(func, x)

    op = torch.library.custom_op(f"ulplab::{func}", impl, mutates_args=())

    @op.register_fake
    def _(x: torch.Tensor) -> torch.Tensor:
        return x.new_empty(x.shape)

    return op


def _backward_op(func: str) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    def impl(grad: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        if x.device.type != "cpu":
            raise UsageError(f"the det {func} backward runs on CPU tensors; got {x.device}")
        xs = x.detach().to(torch.float32).contiguous().numpy()
        g = grad.detach().to(torch.float32).contiguous().numpy()
        with np.errstate(all="ignore"):
            out = g * derivative(func, xs)
        return torch.from_numpy(out).reshape(x.shape).to(grad.dtype)

    op = torch.library.custom_op(f"ulplab::{func}_backward", impl, mutates_args=())

    @op.register_fake
    def _(grad: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return grad.new_empty(x.shape)

    return op


OPS = {func: _forward_op(func) for func in det.FUNCTIONS}
BACKWARD_OPS = {func: _backward_op(func) for func in _DERIVATIVES}


def _register_autograd(func: str) -> None:
    backward_op = BACKWARD_OPS[func]

    def setup_context(ctx, inputs, output) -> None:  # noqa: ANN001
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):  # noqa: ANN001
        (x,) = ctx.saved_tensors
        return backward_op(grad, x)

    OPS[func].register_autograd(backward, setup_context=setup_context)


for _func in _DERIVATIVES:
    _register_autograd(_func)


class _Det(torch.nn.Module):
    func = ""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return OPS[self.func](x)


class GELU(_Det):
    """torch.nn.GELU with det bits; ``approximate="tanh"`` is the det gelu_tanh kernel."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise UsageError(f"unknown approximate {approximate!r}; valid: none, tanh")
        self.approximate = approximate
        self.func = "gelu" if approximate == "none" else "gelu_tanh"

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(_Det):
    func = "silu"


class Tanh(_Det):
    func = "tanh"


class Sigmoid(_Det):
    func = "sigmoid"


class Softplus(_Det):
    """torch.nn.Softplus(beta=1, threshold=20) with det bits (other betas are not offered)."""

    func = "softplus"

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        if beta != 1.0:
            raise UsageError("ulplab.torch.Softplus offers beta=1 only")
        self.beta, self.threshold = beta, threshold


__all__ = ["BACKWARD_OPS", "GELU", "OPS", "SiLU", "Sigmoid", "Softplus", "Tanh", "derivative"]
