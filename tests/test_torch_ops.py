"""ulplab.torch: custom operators and modules with det bits forward and backward, the same bits
under torch.compile as in eager mode, the GELU and Tanh backward correctly rounded on every
bfloat16/float16 input (det gelu_grad, tanh_grad), and derivatives within their measured
absolute error."""

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


@pytest.mark.parametrize("module, func", [(ut.GELU, "gelu_grad"), (ut.Tanh, "tanh_grad")],
                         ids=["gelu", "tanh"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_backward_with_unit_grad_is_the_correctly_rounded_derivative(module, func, dtype):
    """Every one of the 65,536 inputs (NaN matching NaN): x.grad of module(x).backward(ones) in
    the input's dtype is the oracle's nearest-even derivative in that dtype."""
    from ulplab.formats import get_format
    from ulplab.oracle.table import oracle_table

    fmt = get_format(dtype)
    patterns = np.arange(fmt.n_patterns, dtype=np.int64).astype(np.int16)
    x = torch.from_numpy(patterns).view(getattr(torch, dtype)).requires_grad_()
    module()(x).backward(torch.ones_like(x))
    got = x.grad.view(torch.int16).numpy().view(np.uint16)
    want = oracle_table(func, fmt, progress=False)
    both_nan = np.isnan(x.grad.float().numpy()) & np.isnan(
        want.view(fmt.dtype).astype(np.float32))
    bad = np.flatnonzero((got != want) & ~both_nan)
    assert bad.size == 0, [(hex(int(patterns.view(np.uint16)[i])), hex(int(got[i])),
                            hex(int(want[i]))) for i in bad[:8]]


# Largest |derivative - exact| on 25,000 points of [-10, 10] (20,000 uniform, 5,000 in [-1, 1]),
# measured with the derivatives of ulplab.torch against double-precision math (this session's
# run): gelu 1.19e-7 and tanh 5.96e-8 (the det gelu_grad/tanh_grad kernels: within 1 ulp of
# float32), gelu_tanh 1.62e-7, silu 1.70e-7, softplus 5.96e-8, sigmoid 2.87e-8. Bounds below:
# those figures rounded up. (Relative error where |derivative| > 1e-3: gelu 1.2e-7, tanh 1.2e-7,
# gelu_tanh 2.9e-5, silu 1.2e-5, softplus 1.2e-7, sigmoid 1.9e-7.)
ABS_BOUND = {"gelu": 1.2e-7, "gelu_tanh": 1.7e-7, "silu": 1.8e-7, "softplus": 6e-8,
             "tanh": 6e-8, "sigmoid": 3e-8}


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
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
def test_torch_compile_gives_the_eager_bits(dtype):
    """A compiled module built from ulplab.torch modules (and an exact scaling) gives the eager
    bits forward and backward: the custom operators are opaque to inductor, nothing is fused;
    a compiled GELU's backward is grad times the det gelu_grad kernel, rounded to the dtype."""

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gelu, self.tanh, self.silu = ut.GELU(), ut.Tanh(), ut.SiLU()

        def forward(self, x):
            return self.silu(self.tanh(self.gelu(x) * 0.5) * 4.0)

    x0 = (torch.randn(257, 33, generator=torch.Generator().manual_seed(0)) * 4).to(dtype)
    g = torch.randn(257, 33, generator=torch.Generator().manual_seed(1)).to(dtype)

    def run(m):
        x = x0.clone().requires_grad_()
        out = m(x)
        (grad,) = torch.autograd.grad(out, x, g)
        return bits(out), bits(grad)

    def bits(t):
        return t.detach().contiguous().view(torch.int32 if dtype == torch.float32
                                            else torch.int16).numpy()

    block = Block()
    eager = run(block)
    compiled = run(torch.compile(block, backend="inductor", fullgraph=True))
    assert np.array_equal(eager[0], compiled[0]) and np.array_equal(eager[1], compiled[1])
    out, grad = run(torch.compile(ut.GELU(), backend="inductor", fullgraph=True))
    assert np.array_equal(out, bits(det.gelu(x0)))
    d = det.derivative("gelu", x0.float().numpy())
    assert np.array_equal(grad, bits(torch.from_numpy(g.float().numpy() * d).to(dtype)))


def test_ops_are_registered_and_bad_arguments_are_usage_errors():
    x = torch.linspace(-2, 2, 9)
    assert torch.equal(torch.ops.ulplab.exp(x).view(torch.int32), det.exp(x).view(torch.int32))
    with pytest.raises(UsageError):
        ut.Softplus(beta=2.0)
    with pytest.raises(UsageError):
        ut.GELU("erf")
