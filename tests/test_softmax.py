"""det softmax: the same bits in NumPy, PyTorch, JAX (eager and jit) and C for any row length,
the documented order of operations, and the measured accuracy against an exact softmax."""

import mpmath as mp
import numpy as np
import pytest

from ulplab import det
from ulplab.det.softmax import softmax_c, softmax_numpy
from ulplab.errors import UsageError

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = jax.numpy


def u32(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32)).view(np.uint32)


def rows(n: int, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scale = rng.choice(np.array([0.1, 1, 10, 60], np.float32), (count, 1))
    x = (rng.standard_normal((count, n)) * scale).astype(np.float32)
    if n > 2:  # special values in a few rows
        x[0, 1], x[1, 0], x[2, -1] = -np.inf, 1e-40, 3e38
        x[3 % count, 0] = np.nan
    return x


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 17, 255, 1000, 1001, 4097])
def test_same_bits_numpy_torch_jax_c(n):
    """NumPy's operations (an ``exp`` given: the path of large arrays), the C steps (what
    det.softmax runs on a NumPy array below two threads' share), PyTorch, JAX: the same
    bits."""
    x = rows(n, 6, n).reshape(2, 3, n)
    want = u32(softmax_numpy(x, exp=det.float32_kernel("exp", "odd")))
    assert np.array_equal(u32(det.softmax(x)), want)
    assert np.array_equal(u32(det.softmax(torch.from_numpy(x.copy())).numpy()), want)
    assert np.array_equal(u32(det.softmax(jnp.asarray(x))), want)
    assert np.array_equal(u32(jax.jit(det.softmax)(jnp.asarray(x))), want)
    assert np.array_equal(u32(softmax_c(x)), want)


def test_the_documented_order():
    """Four elements: ((e0 + e1) + (e2 + e3)) / ..., each a float32 operation; NaN rows are NaN."""
    x = np.array([0.5, -1.25, 3.0, 2.0], np.float32)
    e = det.float32_kernel("exp", "odd")(x - np.float32(3.0))
    s = (e[0] + e[1]) + (e[2] + e[3])
    assert np.array_equal(u32(det.softmax(x)), u32(e / s))
    assert np.isnan(det.softmax(np.array([1, np.nan, 2], np.float32))).all()
    assert det.softmax(np.zeros((3, 0), np.float32)).shape == (3, 0)


def _worst_ulps(x: np.ndarray) -> float:
    mp.mp.dps = 60
    y = softmax_numpy(x)
    worst = 0.0
    for row, got in zip(x, y, strict=True):
        m = max(float(v) for v in row)
        es = [mp.exp(mp.mpf(float(v)) - m) for v in row]
        s = mp.fsum(es)
        for v, e in zip(got, es, strict=True):
            exact = float(e / s)
            if exact < 2.0 ** -126:
                continue
            worst = max(worst, abs(float(v) - exact) / float(np.spacing(np.float32(exact))))
    return worst


# Measured in this session (the rows below, seed 5): worst error in float32 ulps
# (n, rows, scale of the standard-normal inputs, worst measured: 3.43, 27.4, 4.21, 31.8, 5.66,
# 61.1 ulps, rounded up)
ACCURACY = [(3, 200, 1.0, 3.5), (3, 200, 10.0, 27.5), (17, 100, 1.0, 4.25),
            (17, 100, 10.0, 32.0), (1000, 10, 1.0, 5.7), (1000, 10, 10.0, 61.2)]


def test_accuracy_against_an_exact_softmax():
    rng = np.random.default_rng(5)
    for n, count, scale, bound in ACCURACY:
        x = (rng.standard_normal((count, n)) * scale).astype(np.float32)
        worst = _worst_ulps(x)
        assert worst <= bound, (n, scale, worst)
        assert worst >= bound / 4, (n, scale, worst)  # the figure is measured, not a loose cap


def test_bad_inputs_are_usage_errors():
    with pytest.raises(UsageError):
        det.softmax(np.ones(3))
    with pytest.raises(UsageError):
        det.softmax(np.float32(1.0))
    with pytest.raises(UsageError):
        det.softmax(torch.ones(3, dtype=torch.float64))
