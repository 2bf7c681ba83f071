"""from ulplab import det: every dtype x framework gives the same bits, the type, dtype and shape
of its input, and the narrow formats' tables are the kernel's own float32 results rounded; every
format the registry proves is accepted; autograd through det.* or a clear error."""

import ml_dtypes
import numpy as np
import pytest

from ulplab import det
from ulplab.errors import UsageError
from ulplab.export import det_kernel
from ulplab.formats import get_format, round_to_format
from ulplab.kernels import registry

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = jax.numpy

NARROW_CASES = [(f, fmt) for f, k in registry.kernels().items() for fmt in k.formats
                if fmt != "float32"]


def every_pattern(fmt: str) -> np.ndarray:
    spec = get_format(fmt)
    return np.arange(spec.n_patterns, dtype=np.int64).astype(spec.uint).view(spec.dtype)


def bits(a) -> np.ndarray:
    if isinstance(a, torch.Tensor):
        a = a.view(torch.int16 if a.element_size() == 2 else
                   torch.uint8 if a.element_size() == 1 else torch.int32).numpy()
    a = np.asarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def test_every_kernel_accepts_all_fourteen_formats():
    """The registry proves every kernel in float32 and the 13 enumerable formats, and det takes
    exactly the formats the registry proves (tests/test_registry.py re-proves them)."""
    for func in det.FUNCTIONS:
        assert len(det.formats(func)) == 14, (func, det.formats(func))


@pytest.mark.parametrize(("func", "fmt"), NARROW_CASES)
def test_every_narrow_input_same_bits_in_numpy_torch_jax(func, fmt):
    spec = get_format(fmt)
    x = every_pattern(fmt)
    with np.errstate(all="ignore"):  # the definition: the NumPy round-to-odd kernel, rounded
        want = round_to_format(det_kernel(func, "odd")(x.astype(np.float32)), spec)
    got_np = det.apply(func, x)
    assert got_np.dtype == x.dtype and got_np.shape == x.shape
    assert np.array_equal(bits(got_np), want)
    tdtype = getattr(torch, fmt, None)
    if isinstance(tdtype, torch.dtype) and tdtype.itemsize == x.itemsize:  # torch has it
        tx = torch.from_numpy(x.view(np.int16 if x.itemsize == 2 else np.uint8).copy()).view(
            tdtype)
        got_t = det.apply(func, tx)
        assert isinstance(got_t, torch.Tensor) and got_t.dtype == tdtype
        assert np.array_equal(bits(got_t), want)
    try:
        jx = jnp.asarray(x)
    except Exception:  # a format this JAX's XLA has no arrays of (fp6 today)
        return
    # fp4/fp6 have no NaN: a NaN result is the oracle's marker pattern (2^bits, no encoding) in
    # NumPy, which a JAX array packed below a byte cannot hold: compared where it is a pattern
    valid = want < spec.n_patterns
    assert np.all(valid) or spec.n_patterns < 256
    for got_j in (det.apply(func, jx), jax.jit(lambda v: det.apply(func, v))(jx)):
        assert isinstance(got_j, jax.Array) and got_j.dtype == x.dtype
        assert np.array_equal(bits(got_j)[valid], want[valid])


@pytest.mark.parametrize("rounding", det.ROUNDINGS)
@pytest.mark.parametrize("func", det.FUNCTIONS)
def test_float32_same_bits_in_numpy_torch_jax(func, rounding):
    rng = np.random.default_rng(11)
    x = rng.integers(0, 2**32, 1 << 16, dtype=np.uint64).astype(np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        want = bits(det_kernel(func, rounding)(x))
    r = rounding
    assert np.array_equal(bits(det.apply(func, x, r)), want)
    assert np.array_equal(bits(det.apply(func, torch.from_numpy(x.copy()), r)), want)
    assert np.array_equal(bits(det.apply(func, jnp.asarray(x), r)), want)
    assert np.array_equal(bits(jax.jit(lambda v: det.apply(func, v, r))(jnp.asarray(x))), want)
    batched = jax.vmap(lambda v: det.apply(func, v, r))(jnp.asarray(x).reshape(256, 256))
    assert np.array_equal(bits(batched).ravel(), want)


def test_jax_calls_are_not_compiled_again_each_time():
    """An eager det call on a concrete JAX array runs the kernel and puts the result on x's
    device (a committed x stays committed), with no JAX compilation; under a trace the callback
    is one object per (func, rounding, threads), so JAX reuses what it built for it (a new
    lambda on every call had made each eager det.exp compile again: 15 ms a call). Counted
    through jax.monitoring's compile events, not timed."""
    from jax import monitoring

    from ulplab.det import core

    compiles: list[str] = []
    counting = [False]

    def listen(name: str, _seconds: float, **_kw: object) -> None:
        if counting[0] and name == "/jax/core/compile/backend_compile_duration":
            compiles.append(name)

    monitoring.register_event_duration_secs_listener(listen)
    x = jnp.linspace(-3, 3, 1024, dtype=jnp.float32)
    want = bits(det.exp(np.asarray(x)))
    det.exp(x)
    counting[0] = True
    for _ in range(3):
        assert np.array_equal(bits(det.exp(x)), want)
    counting[0] = False
    assert compiles == []
    placed = det.exp(jax.device_put(x, jax.devices()[0]))
    assert placed.committed and np.array_equal(bits(placed), want)
    assert core._jax_callback("exp", "float32", None) is core._jax_callback("exp", "float32",
                                                                            None)


def test_float32_default_is_correctly_rounded():
    x = np.array([1.0, -105.0], np.float32)  # exp(1) and an underflow to +0
    assert bits(det.exp(x)).tolist() == [0x402DF854, 0]
    assert bits(det.exp(x, rounding="odd")).tolist() == [0x402DF855, 1]
    assert bits(det.tanh(np.array([10.0], np.float32))).tolist() == [0x3F800000]


def test_shape_type_and_layout_are_kept():
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4)
    flat = det.gelu(x.ravel())
    for arr in (x, x.astype(ml_dtypes.bfloat16)):
        out = det.gelu(arr)
        assert type(out) is np.ndarray and out.shape == (2, 3, 4) and out.dtype == arr.dtype
    assert np.array_equal(bits(det.gelu(x.transpose(2, 0, 1))),
                          bits(flat.reshape(2, 3, 4).transpose(2, 0, 1)))  # non-contiguous
    t = torch.from_numpy(x).transpose(0, 2)
    assert det.gelu(t).shape == t.shape
    assert np.array_equal(bits(det.gelu(t).contiguous()), bits(det.gelu(x).transpose(2, 1, 0)))
    scalar = det.exp(np.float32(1.0))
    assert isinstance(scalar, np.float32) and scalar == det.exp(np.array([1.0], np.float32))[0]
    s, c = det.sincos(x)
    assert np.array_equal(bits(s), bits(det.sin(x))) and np.array_equal(bits(c), bits(det.cos(x)))
    b = torch.zeros(3, 0, dtype=torch.bfloat16)
    assert det.tanh(b).shape == (3, 0)


def test_bad_calls_are_usage_errors():
    x = np.ones(4, np.float32)
    with pytest.raises(UsageError, match="unknown rounding 'up'"):
        det.gelu(x, rounding="up")
    with pytest.raises(UsageError, match="got float64"):
        det.gelu(np.ones(4))
    with pytest.raises(UsageError, match="got list"):
        det.gelu([1.0, 2.0])
    with pytest.raises(UsageError, match="no det kernel for 'cosh'"):
        det.apply("cosh", x)
    with pytest.raises(UsageError, match="takes float32, bfloat16"):
        det.exp(np.ones(3, np.int8))


def test_tables_are_cached_on_disk(tmp_path, monkeypatch):
    from ulplab import cache as disk

    monkeypatch.setenv("ULPLAB_CACHE_DIR", str(tmp_path))
    det.core._table.cache_clear()
    try:
        first = det.table("silu", "float8_e5m2")
        files = list(tmp_path.glob("det-table-silu-float8_e5m2-*.ulpc"))
        assert len(files) == 1 and first.dtype == np.uint8 and first.size == 256
        assert np.array_equal(disk.load(files[0].stem), first)
        det.core._table.cache_clear()
        assert np.array_equal(det.table("silu", "float8_e5m2"), first)  # read back, checked
    finally:
        det.core._table.cache_clear()


def test_a_failed_build_is_retried_and_the_fallback_works_in_a_flushing_thread(monkeypatch):
    """Without a compiled kernel det falls back to the NumPy kernel, also inside a JAX
    callback, whose thread flushes subnormals (the fallback once built the constant 2^-149 by a
    float conversion and failed there); a failed build is not remembered, so the next call
    gets the compiled kernel again."""
    jnp = pytest.importorskip("jax.numpy")
    from ulplab.export import det_kernel, native

    x = np.array([-104.0, -200.0, -np.inf, 1.0, -103.0, 2.0**-149], np.float32)
    want = {r: det_kernel("exp", r)(x).view(np.uint32) for r in ("odd", "float32")}
    real = native.kernel
    det.core._COMPILED.clear()

    def no_compiler(*args, **kwargs):
        raise RuntimeError("no C compiler (cc or gcc) on this machine; set CC")

    monkeypatch.setattr(native, "kernel", no_compiler)
    for r in ("odd", "float32"):
        assert "_native" not in det.float32_kernel("exp", r).__name__
        got = np.asarray(det.exp(jnp.asarray(x), rounding=r)).view(np.uint32)
        assert np.array_equal(got, want[r]), r
    monkeypatch.setattr(native, "kernel", real)
    assert det.float32_kernel("exp", "odd").__name__.endswith("_native_odd")


@pytest.mark.parametrize("func", sorted(det.DIFFERENTIABLE))
def test_autograd_through_det(func):
    """A tensor that requires grad gets a result with a grad_fn; the gradient is grad *
    det.derivative(func) (one float32 multiplication); the forward bits are det's."""
    x = torch.linspace(-3, 3, 41, dtype=torch.float32, requires_grad=True)
    y = det.apply(func, x)
    assert y.requires_grad and y.grad_fn is not None
    assert np.array_equal(bits(y.detach()), bits(det.apply(func, x.detach())))
    g = torch.linspace(0.5, 1.5, 41, dtype=torch.float32)
    y.backward(g)
    want = g.numpy() * det.derivative(func, x.detach().numpy())
    assert np.array_equal(bits(x.grad), bits(want))


def test_autograd_where_there_is_no_derivative_is_a_clear_error():
    x = torch.ones(3, requires_grad=True)
    nondiff = sorted(set(det.FUNCTIONS) - det.DIFFERENTIABLE)
    assert nondiff  # erf, log, ... have no derivative kernel
    with pytest.raises(UsageError, match=f"det.{nondiff[0]} has no derivative kernel"):
        det.apply(nondiff[0], x)
    with torch.no_grad():  # no graph wanted: no error
        assert det.apply(nondiff[0], x).grad_fn is None
    assert det.apply(nondiff[0], x.detach()).grad_fn is None


def test_second_derivative_is_refused():
    x = torch.linspace(-2, 2, 5, requires_grad=True)
    with pytest.raises(UsageError, match=r"det\.gelu has no second derivative"):
        torch.autograd.grad(det.gelu(x).sum(), x, create_graph=True)
    (g,) = torch.autograd.grad(det.gelu(x).sum(), x)  # once is fine
    assert np.array_equal(bits(g), bits(det.derivative("gelu", x.detach().numpy())))


@pytest.mark.parametrize("func", sorted(det.DIFFERENTIABLE))
def test_jax_grad_through_det_is_torchs(func):
    """jax.grad (and jit of it, vmap of it) through det gives PyTorch autograd's bits: t *
    det.derivative(func) in float32, rounded to x's dtype; float32 and bfloat16 (whose gather
    of integer bits gave a gradient of 0 before the custom JVP). The values avoid subnormal
    products, which XLA flushes."""
    x = np.linspace(-3, 3, 41, dtype=np.float32)
    g = np.linspace(0.5, 1.5, 41, dtype=np.float32)
    want = g * det.derivative(func, x)

    def loss(v):
        return jnp.vdot(det.apply(func, v).astype(jnp.float32), jnp.asarray(g))

    for grad in (jax.grad(loss), jax.jit(jax.grad(loss))):
        assert np.array_equal(bits(grad(jnp.asarray(x))), bits(want))
    row = jax.vmap(jax.grad(lambda v: det.apply(func, v)))(jnp.asarray(x))
    assert np.array_equal(bits(row), bits(det.derivative(func, x)))
    xb = torch.linspace(-3, 3, 41, dtype=torch.bfloat16, requires_grad=True)
    det.apply(func, xb).float().backward(torch.from_numpy(g))
    got = jax.grad(loss)(jnp.asarray(xb.detach().float().numpy()).astype(jnp.bfloat16))
    assert got.dtype == jnp.bfloat16 and np.array_equal(bits(got), bits(xb.grad))


def test_jax_grad_without_a_derivative_is_a_clear_error():
    nondiff = sorted(set(det.FUNCTIONS) - det.DIFFERENTIABLE)[0]
    x = jnp.ones(3, jnp.float32)
    with pytest.raises(UsageError, match=f"det.{nondiff} has no derivative kernel"):
        jax.grad(lambda v: det.apply(nondiff, v).sum())(x)
    with pytest.raises(UsageError, match=r"det\.gelu has no second derivative"):
        jax.grad(lambda v: jax.grad(lambda w: det.gelu(w).sum())(v).sum())(x)
    assert np.array_equal(bits(jax.jit(lambda v: det.apply(nondiff, v))(x)),
                          bits(det.apply(nondiff, np.ones(3, np.float32))))


def misaligned(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` at byte offset 1 of a uint8 buffer (not aligned to its itemsize, when
    that is more than 1)."""
    buf = np.zeros(a.nbytes + 1, np.uint8)
    view = buf[1:].view(a.dtype).reshape(a.shape)
    view[...] = a
    assert a.itemsize == 1 or not view.flags.aligned
    return view


def read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.flags.writeable = False
    return a


def awkward_layouts(x: np.ndarray) -> dict[str, np.ndarray]:
    """``x`` (2-D, native order) laid out every way det must accept."""
    return {"strided": x[:, ::3], "transposed": x.T, "misaligned": misaligned(x),
            "read-only": read_only(x), "negative strides": x[::-1, ::-2],
            "big-endian": x.astype(x.dtype.newbyteorder(">")) if x.itemsize > 1 else x,
            "zero-size": x[:0], "zero-size column": x[:, :0], "0-d": np.array(x[1, 2]),
            "large misaligned": misaligned(np.tile(x.ravel(), (1 << 17) // x.size + 1))}


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float8_e4m3fn"])
@pytest.mark.parametrize("func", ["exp", "gelu"])
def test_awkward_arrays_give_the_bits_of_a_contiguous_copy(func, dtype):
    """Strided, transposed, negative strides, misaligned (byte offset 1), read-only, big-endian
    (float32 and float16: the result is native order), zero-size and 0-d arrays, on 1 and 2
    threads: the bits of the same values through a fresh contiguous native copy, x's shape,
    the native dtype; the input is left as it was."""
    dt = np.dtype(getattr(ml_dtypes, dtype, dtype))
    x = np.linspace(-6, 6, 7 * 12).astype(np.float32).reshape(7, 12).astype(dt)
    for name, arr in awkward_layouts(x).items():
        before = bits(np.ascontiguousarray(arr)).copy()
        fresh = arr.astype(dt, order="C")  # a new array, C-contiguous, aligned, native
        assert fresh.dtype.isnative and fresh.flags.aligned and fresh.flags.c_contiguous
        want = bits(det.apply(func, fresh))
        for threads in (1, 2):
            got = det.apply(func, arr, threads=threads)
            assert type(got) is np.ndarray and got.shape == arr.shape, name
            assert got.dtype == dt and got.dtype.isnative, (name, got.dtype)
            assert np.array_equal(bits(got), want), (name, threads)
        assert np.array_equal(bits(np.ascontiguousarray(arr)), before), name  # x untouched


def test_a_numpy_scalar_gives_a_scalar_and_a_0d_array_a_0d_array():
    for dt in (np.float32, ml_dtypes.bfloat16):
        s = det.exp(dt(1.5))
        assert isinstance(s, np.generic) and s.dtype == dt
        a = det.exp(np.array(1.5, dt))
        assert type(a) is np.ndarray and a.shape == () and a.dtype == dt
        assert bits(np.array(s)) == bits(a) == bits(det.exp(np.array([1.5], dt)))[0]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_awkward_tensors_give_the_bits_of_a_contiguous_copy(dtype):
    """PyTorch CPU tensors transposed, strided, misaligned (torch.frombuffer at byte offset 1),
    zero-size and 0-d: the bits of a contiguous copy, the tensor's shape and dtype."""
    tdt = getattr(torch, dtype)
    x = torch.linspace(-6, 6, 84, dtype=torch.float32).reshape(7, 12).to(tdt)
    raw = bytearray(x.numel() * x.element_size() + 1)
    mis = torch.frombuffer(raw, dtype=tdt, offset=1, count=x.numel()).reshape(7, 12)
    mis.copy_(x)
    assert mis.data_ptr() % x.element_size() != 0
    cases = {"transposed": x.T, "strided": x[:, ::3], "misaligned": mis, "zero-size": x[:0],
             "0-d": x[1, 2].clone()}
    for name, t in cases.items():
        want = bits(det.gelu(t.contiguous().clone()))
        for threads in (1, 2):
            got = det.gelu(t, threads=threads)
            assert isinstance(got, torch.Tensor) and got.shape == t.shape and got.dtype == tdt
            assert np.array_equal(bits(got.contiguous()), want), (name, threads)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_negative_view_gives_the_bits_of_its_values(dtype):
    """torch's lazy negation (the negative bit, as ``torch.Tensor._neg_view`` and the conjugate
    views of real ops leave it): the bits of the resolved tensor, forward and derivative
    (``.numpy()`` refuses such a tensor; det resolves it first)."""
    x = torch.linspace(-6, 6, 50, dtype=torch.float32).to(getattr(torch, dtype))
    view = x._neg_view()
    assert view.is_neg()
    want = bits(det.gelu(view.resolve_neg()))
    assert np.array_equal(bits(det.gelu(view)), want)
    if dtype == "float32":
        assert np.array_equal(bits(det.derivative("gelu", view)),
                              bits(det.derivative("gelu", view.resolve_neg())))


def test_sparse_and_nested_tensors_are_usage_errors():
    """Before 2026-11-27 these ended in torch's own RuntimeErrors ("unsupported memory format
    option Contiguous", "NestedTensorImpl doesn't support sizes")."""
    import warnings

    dense = torch.ones(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's prototype and beta warnings
        nested = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
        csr = dense.to_sparse_csr()
    for t, kind in ((dense.to_sparse(), "sparse_coo"), (csr, "sparse_csr"), (nested, "nested")):
        for call in (det.exp, det.gelu, det.softmax):
            with pytest.raises(UsageError, match=f"dense tensor, not a {kind} one") as e:
                call(t)
            assert "\n" not in str(e.value)


def test_a_masked_array_keeps_its_mask():
    """As NumPy's ufuncs do: every value computed (the masked ones too: det handles every
    input), the result a masked array with a copy of the input's mask. det.softmax refuses one
    (which entries a masked row normalizes over is the caller's choice)."""
    data = np.linspace(-3, 3, 8, dtype=np.float32)
    mask = np.array([0, 1, 0, 0, 1, 0, 0, 0], bool)
    x = np.ma.MaskedArray(data, mask=mask)
    y = det.tanh(x)
    assert isinstance(y, np.ma.MaskedArray) and np.array_equal(np.ma.getmaskarray(y), mask)
    assert np.array_equal(bits(np.ma.getdata(y)), bits(det.tanh(data)))
    y.mask[0] = True
    assert not x.mask[0]  # a copy, not the input's mask
    assert np.ma.getmaskarray(det.exp(np.ma.MaskedArray(data))).shape == data.shape
    with pytest.raises(UsageError, match="not a masked one"):
        det.softmax(x)


@pytest.mark.parametrize("call", [
    lambda: det.table(np.ones(3), "bfloat16"),
    lambda: det.table("gelu", np.ones(3)),
    lambda: det.formats(np.ones((40, 40))),
    lambda: det.float32_kernel(["gelu"]),
    lambda: det.apply("exp", np.ones(3, np.float32), rounding=np.ones((40, 40))),
    lambda: det.derivative(np.ones(3), np.ones(3, np.float32)),
    # values that are not real numbers: the imaginary part used to be dropped with a warning,
    # an object array to give NaN
    lambda: det.derivative("gelu", np.ones(3, np.complex64)),
    lambda: det.derivative("gelu", np.array([None, 1.0])),
    lambda: det.derivative("gelu", np.array(["1.0"])),
])
def test_a_non_string_name_is_one_line(call):
    """A name given as an array (or list) used to be put into the message by its repr, many
    lines long (or a bare "unhashable type")."""
    with pytest.raises(UsageError) as e:
        call()
    assert "\n" not in str(e.value) and len(str(e.value)) < 400
