"""ulplab.torch: custom operators and modules with det bits forward and backward, the same bits
under torch.compile as in eager mode, and derivatives within their measured absolute error."""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ulplab.torch as ut  # noqa: E402
from ulplab import det  # noqa: E402
from ulplab.errors import UsageError  # noqa: E402

MODULES = [(ut.GELU(), torch.nn.GELU(), "gelu"),
           (ut.GELU("tanh"), torch.nn.GELU("tanh"), "gelu_tanh"),
           (ut.SiLU(), torch.nn.SiLU(), "silu"), (ut.Softplus(), torch.nn.Softplus(), "softplus"),
           (ut.Tanh(), torch.nn.Tanh(), "tanh"), (ut.Sigmoid(), torch.nn.Sigmoid(), "sigmoid")]


def u32(t):
    return t.detach().contiguous().view(torch.int32).numpy()


@pytest.mark.parametrize("ours, theirs, func", MODULES, ids=[m[2] for m in MODULES])
def test_modules_forward_det_bits_backward_documented_formula(ours, theirs, func):
    x = torch.linspace(-9, 9, 4001).reshape(4001, 1).repeat(1, 3).requires_grad_()
    y = ours(x)
    assert np.array_equal(u32(y), u32(det.apply(func, x.detach())))
    g = torch.randn(x.shape, generator=torch.Generator().manual_seed(1))
    y.backward(g)
    want = g.numpy() * ut.derivative(func, x.detach().numpy())
    assert np.array_equal(u32(x.grad), want.view(np.int32))
    x2 = x.detach().clone().requires_grad_()
    theirs(x2).backward(g)  # torch's own gradient, for scale: the formulas agree closely
    assert torch.allclose(x.grad, x2.grad, rtol=1e-5, atol=1e-5)


def test_bfloat16_forward_and_backward():
    x = torch.linspace(-5, 5, 301).to(torch.bfloat16).requires_grad_()
    y = ut.SiLU()(x)
    assert y.dtype == torch.bfloat16
    assert torch.equal(y.view(torch.int16), det.silu(x.detach()).view(torch.int16))
    y.sum().backward()
    want = torch.from_numpy(ut.derivative("silu", x.detach().float().numpy())).to(torch.bfloat16)
    assert x.grad.dtype == torch.bfloat16 and torch.equal(x.grad.view(torch.int16),
                                                          want.view(torch.int16))


# Largest |derivative - exact| on 25,000 points of [-10, 10] (20,000 uniform, 5,000 in [-1, 1]),
# measured with the formulas of ulplab.torch against double-precision math (this session's run):
# gelu 1.32e-7, gelu_tanh 1.62e-7, silu 1.70e-7, softplus 5.96e-8, tanh 1.71e-7, sigmoid
# 2.87e-8. Bounds below: those figures rounded up. (Relative error where |derivative| > 1e-3:
# gelu 2.8e-5, gelu_tanh 2.9e-5, silu 1.2e-5, softplus 1.2e-7, tanh 2.8e-7, sigmoid 1.9e-7.)
ABS_BOUND = {"gelu": 1.4e-7, "gelu_tanh": 1.7e-7, "silu": 1.8e-7, "softplus": 6e-8,
             "tanh": 1.8e-7, "sigmoid": 3e-8}


def _exact(func: str, v: float) -> float:
    s = 1 / (1 + math.exp(-v))
    k, a = math.sqrt(2 / math.pi), 0.044715
    th = math.tanh(k * (v + a * v ** 3))
    return {"gelu": 0.5 * (1 + math.erf(v / math.sqrt(2)))
            + v * math.exp(-v * v / 2) / math.sqrt(2 * math.pi),
            "gelu_tanh": 0.5 * (1 + th) + 0.5 * v * (1 - th * th) * k * (1 + 3 * a * v * v),
            "silu": s * (1 + v * (1 - s)), "softplus": s, "tanh": 1 - math.tanh(v) ** 2,
            "sigmoid": s * (1 - s)}[func]


@pytest.mark.parametrize("func", sorted(ABS_BOUND))
def test_derivatives_within_their_measured_absolute_error(func):
    x = np.concatenate([np.random.default_rng(1).uniform(-10, 10, 20000),
                        np.random.default_rng(2).uniform(-1, 1, 5000)]).astype(np.float32)
    d = ut.derivative(func, x).astype(np.float64)
    exact = np.array([_exact(func, float(v)) for v in x])
    assert np.abs(d - exact).max() <= ABS_BOUND[func]
    ends = ut.derivative(func, np.array([-np.inf, np.inf], np.float32))
    assert np.all(np.isfinite(ends)) and ends[0] == 0


@pytest.mark.filterwarnings("ignore:.*torch.jit.script_method. is deprecated:DeprecationWarning")
def test_torch_compile_gives_the_eager_bits():
    """A compiled module built from ulplab.torch modules (and an exact scaling) gives the eager
    bits forward and backward: the custom operators are opaque to inductor, nothing is fused."""

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gelu, self.tanh, self.silu = ut.GELU(), ut.Tanh(), ut.SiLU()

        def forward(self, x):
            return self.silu(self.tanh(self.gelu(x) * 0.5) * 4.0)

    x0 = torch.randn(257, 33, generator=torch.Generator().manual_seed(0)) * 4
    g = torch.randn(257, 33, generator=torch.Generator().manual_seed(1))

    def run(m):
        x = x0.clone().requires_grad_()
        out = m(x)
        (grad,) = torch.autograd.grad(out, x, g)
        return u32(out), u32(grad)

    block = Block()
    eager = run(block)
    compiled = run(torch.compile(block, backend="inductor", fullgraph=True))
    assert np.array_equal(eager[0], compiled[0]) and np.array_equal(eager[1], compiled[1])


def test_ops_are_registered_and_bad_arguments_are_usage_errors():
    x = torch.linspace(-2, 2, 9)
    assert torch.equal(torch.ops.ulplab.exp(x).view(torch.int32), det.exp(x).view(torch.int32))
    with pytest.raises(UsageError):
        ut.Softplus(beta=2.0)
    with pytest.raises(UsageError):
        ut.GELU("erf")
