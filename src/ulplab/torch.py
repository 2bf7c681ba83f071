"""PyTorch operators and modules over the det kernels, deterministic forward and backward.

Operators (``torch.library``; opaque to torch.compile, so they survive it with the same bits):
``torch.ops.ulplab.<func>(x)`` for every function of ``ulplab.det`` (x: CPU float32, any device
for bfloat16/float16/fp8, as ``ulplab.det``), and ``torch.ops.ulplab.<func>_backward(grad, x)``
for every function of ``ulplab.det.DIFFERENTIABLE`` (CPU).

Modules, drop-in replacements with autograd: ``GELU(approximate="none"|"tanh")``, ``SiLU``,
``Softplus`` (beta=1, threshold=20 as torch's default: the det kernel is the exact softplus at
every input), ``Tanh``, ``Sigmoid``.

Backward of ``GELU()`` (exact) and ``Tanh``: the det derivative kernels ``gelu_grad`` and
``tanh_grad`` (``ulplab.kernels``). What is correctly rounded: f'(x) itself, the kernel's float32
round-to-odd, rounded to bfloat16 or float16 is the correctly rounded f'(x) on every bfloat16 and
float16 input (the kernels' exhaustive 0-ULP claim; tests/test_torch_ops.py holds the modules'
backward to it on all 65,536 inputs of each). dx = grad * f'(x) is one float32 multiplication
(nearest-even) of the float32 grad and that f'(x), rounded once more to grad's dtype: with
grad = ±1, dx is the correctly rounded ±f'(x); for other grads in a narrow dtype the product is
rounded twice (to float32, then to the dtype), as torch's own backward rounds it.
At x = -inf gelu_grad gives -0 (the limit, approached from below), at x = ±inf tanh_grad +0.

The derivatives are ``ulplab.det.derivative``: the registry's derivative kernel where there is
one (gelu, tanh above; exp -> exp, sin -> cos, softplus -> sigmoid), else computed in float32 from
the det kernels' results by the float32 operations of ``ulplab.det.core.FORMULAS`` (each rounded
to nearest-even, no FMA, in this order):
deterministic, bit-identical in eager and compiled mode, but not claimed correctly rounded (the
det results they use are float32 rounded to odd, within 1 ulp; forms that cancel near saturation
are avoided). softplus' = det sigmoid(x); sigmoid' = s * (1 - s) with s = det sigmoid(-|x|);
silu' = det sigmoid(x) * (1 + x * det sigmoid(-x)); gelu_tanh' = sp + x * ((2 * sp * sn) * du)
with sp, sn = det sigmoid(+-2u), u = c (x + a x^3), du = c (1 + 3a x^2). At x = +-inf each is
its limit (1 or 0). The incoming gradient is multiplied in float32 and the product rounded once
to its dtype.
"""

from collections.abc import Callable

import numpy as np
import torch

from ulplab import det
from ulplab.det import derivative
from ulplab.errors import UsageError


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
BACKWARD_OPS = {func: _backward_op(func) for func in sorted(det.DIFFERENTIABLE)}


def _register_autograd(func: str) -> None:
    backward_op = BACKWARD_OPS[func]

    def setup_context(ctx, inputs, output) -> None:  # noqa: ANN001
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):  # noqa: ANN001
        (x,) = ctx.saved_tensors
        return backward_op(grad, x)

    OPS[func].register_autograd(backward, setup_context=setup_context)


for _func in BACKWARD_OPS:
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
