import atexit
import os
import shutil
import tempfile

if "TORCHINDUCTOR_CACHE_DIR" not in os.environ:
    # torch.compile's on-disk cache, private to this test process: inductor's shared cache is
    # not keyed by ATEN_CPU_CAPABILITY, and a graph cached under one capability and run under
    # another gave wrong bits, then a double free (torch 2.13, measured here)
    _inductor = tempfile.mkdtemp(prefix="ulplab-tests-inductor-")
    atexit.register(shutil.rmtree, _inductor, ignore_errors=True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = _inductor

if os.environ.get("PYTEST_XDIST_WORKER"):  # one thread per xdist worker: no oversubscription
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    # and one process: the oracle's and the cross-check's pools would start processes for
    # every table on cores the other xdist workers already use (tests that exercise the pool
    # set ULPLAB_WORKERS themselves)
    os.environ.setdefault("ULPLAB_WORKERS", "1")
    # and det's kernels on one thread each (tests of threads pass threads= or clear it)
    os.environ.setdefault("ULPLAB_NUM_THREADS", "1")

import importlib.util
from functools import cache

import numpy as np
import pytest
from hypothesis import settings

from ulplab.formats import EXHAUSTIVE_FORMATS, get_format

settings.register_profile("ulplab", deadline=None, max_examples=300, derandomize=True)
settings.load_profile("ulplab")


@pytest.fixture(autouse=True, scope="session")
def _temporary_oracle_cache(tmp_path_factory):
    """Tests build their oracle tables in a temporary cache, never the user's (one per run,
    shared by the xdist workers: writes are atomic, so concurrent builders are safe).

    ULPLAB_TEST_CACHE_DIR names a cache to keep between runs instead (safe: tables are keyed by a
    hash of the oracle's source, so a stale one is never read).
    """
    kept = os.environ.get("ULPLAB_TEST_CACHE_DIR")
    if kept:
        path = kept
    else:
        base = tmp_path_factory.getbasetemp()
        if os.environ.get("PYTEST_XDIST_WORKER"):  # one cache for every xdist worker of a run
            base = base.parent
        (base / "oracle-cache").mkdir(exist_ok=True)
        path = str(base / "oracle-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ULPLAB_CACHE_DIR", path)
        yield


@pytest.fixture(params=EXHAUSTIVE_FORMATS)
def small_format(request):
    """Every format small enough to enumerate (16- and 8-bit)."""
    return get_format(request.param)


def hexbits(b, fmt):
    return f"0x{int(b):0{(fmt.bits + 3) // 4}x}"


def assert_bits_equal(got, expected, fmt, xs=None, what="result"):
    """Compare bit patterns; failures print the first inputs as decimal, hex bits, hex float."""
    got, expected = np.asarray(got), np.asarray(expected)
    bad = np.flatnonzero(got != expected)
    if bad.size:
        lines = []
        for i in bad[:8]:
            x = "" if xs is None else f"x={float(xs[i])!r} ({float(xs[i]).hex()}) "
            lines.append(f"{x}index {i}: got {hexbits(got[i], fmt)} expected "
                         f"{hexbits(expected[i], fmt)}")
        pytest.fail(f"{bad.size} {what} mismatches in {fmt.name}:\n" + "\n".join(lines))


@pytest.fixture(scope="session")
def bf16_study():
    """run(name): ``run_study(name, "bfloat16")``, each study run once per session."""
    from ulplab.studies import run_study

    cache = {}

    def run(name):
        if name not in cache:
            cache[name] = run_study(name, "bfloat16")
        return cache[name]

    return run


# ---------------------------------------------------------------- optional packages
OPTIONAL = {"torch": "torch", "torch-f32": "torch", "jax": "jax", "jax-f32": "jax",
            "dask": "dask", "distributed": "distributed", "triton": "triton"}
"""Names a test may need that the default install may lack: packages, and the backends that
run on them (``needs("torch-f32")`` needs torch)."""


@cache
def installed(package: str) -> bool:
    """Whether ``package`` can be imported here (found, not imported)."""
    return importlib.util.find_spec(package) is not None


def missing(*names: str) -> list[str]:
    """The packages of ``names`` (packages or backend names) that are not installed; the C and
    NumPy backends ("c", "c-avx2", "numpy", "libm") need none."""
    builtin = {n for n in names if n in ("c", "numpy", "libm") or n.startswith("c-")}
    packages = dict.fromkeys(OPTIONAL.get(n, n) for n in names if n not in builtin)
    return [p for p in packages if not installed(p)]


def needs(*names: str) -> pytest.MarkDecorator:
    """A skip mark for a test (``@needs("torch", "jax")``), a module (``pytestmark =
    needs("torch")``) or one parameter (``pytest.param(b, marks=needs(b))``) that needs these
    packages: skipped, with the missing ones named, where they are not installed."""
    absent = missing(*names)
    return pytest.mark.skipif(bool(absent), reason=f"needs {' and '.join(absent)} (not "
                              "installed)")


def with_needs(names: tuple[str, ...] | list[str]) -> list[object]:
    """``names`` (backends or packages) as parameters, each marked with what it ``needs``."""
    return [pytest.param(n, marks=needs(n)) if n in OPTIONAL else n for n in names]


def run_cli(capsys, argv):
    """(exit status, stdout, the non-blank stderr lines) of ``ulplab ARGV`` run in-process."""
    from ulplab.cli.main import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if line.strip()]


def one_line_error(capsys, argv, *needles):
    """``ulplab ARGV`` exits 2 with one line on stderr, holding every needle; that line."""
    code, _, err = run_cli(capsys, argv)
    assert code == 2 and len(err) == 1 and err[0].startswith("ulplab: error: "), err
    for n in needles:
        assert n in err[0], err
    return err[0]

