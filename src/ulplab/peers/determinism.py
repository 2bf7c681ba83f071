"""The determinism card: does a backend's result for an input change with (a) the thread count,
(b) the input's position in the array (lengths 1..65: vector body or scalar tail, and offsets
that misalign the buffer), (c) the batch shape, (d) the ISA the library dispatches to, (e) eager
vs compiled? For each backend and function: how many inputs' bits differ from the backend's
own default run, and the worst example (the largest ULP distance between the two results).

Every input of the format (bfloat16: 65,536) is run once as one array in a child process with
the framework's defaults (the baseline). (a) a child with one thread
(``ULPLAB_BACKEND_THREADS=1``, ``OMP_NUM_THREADS=1``, ``ULPLAB_NUM_THREADS=1``) against the
default (every core); (b) and (c) run in the baseline's child; (d) one child per ISA setting the
backend module names (``ISA_SETTINGS``: read at the framework's start, so a process each), only
for levels this CPU has; (e) the module's ``COMPILED`` variant (the same framework in the other
mode: torch.compile for torch, op-by-op JAX for the jitted JAX, XLA for eager TensorFlow) in the
baseline's environment.
Results are compared as bits (+0 and -0 differ; every NaN matches every NaN). ``ulplab.det``
is a row like the others and must show 0 everywhere.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ulplab.backends import BACKENDS, Backend, Unavailable, backend_modules, registered_backends
from ulplab.backends._isolated import BackendFailed, Pool
from ulplab.formats import Format, all_patterns, get_format
from ulplab.peers.machine import backend_versions, cpu_flags, machine
from ulplab.ulp import NO_INDEX, ordinal_bitwise

DIMENSIONS = ("threads", "position", "shape", "isa", "compiled")
LENGTHS = range(1, 66)
"""Array lengths of the position check: every length up to 65 crosses the vector widths (4, 8,
16, 32 and 64 elements) and their tails."""
OFFSETS = (1, 2, 3)
"""Elements by which the position check shifts an array's start inside a larger buffer."""
OFFSET_LENGTHS = (7, 16, 33, 64)
POSITION_SAMPLE = 512
"""Inputs the position check places at every position (spread over all patterns)."""
SHAPES = ((256, 256), (65536, 1), "transposed")
"""Batch shapes: 2-D square, a column, and a transposed (non-contiguous) view of (16, 4096)."""
DEFAULT_BACKENDS = ("torch", "jax", "numpy", "libm", "tensorflow", "onnxruntime", "openvino",
                    "tinygrad", "paddle", "det")
ONE_THREAD = {"ULPLAB_BACKEND_THREADS": "1", "OMP_NUM_THREADS": "1", "ULPLAB_NUM_THREADS": "1",
              "TF_NUM_INTRAOP_THREADS": "1", "XLA_FLAGS":
              "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}


def _module_attr(backend: str, attr: str) -> dict[str, Any]:
    for mod in backend_modules():
        if any(b.name == backend for b in mod.BACKENDS):
            return dict(getattr(mod, attr, {}))
    return {}


def _host_has(flag: str) -> bool:
    if not flag:
        return True
    if flag.startswith("numpy:"):
        from numpy._core._multiarray_umath import __cpu_features__ as features

        return bool(features.get(flag.split(":", 1)[1], False))
    return flag in cpu_flags()


def isa_settings(backend: str) -> tuple[dict[str, dict[str, str]], list[str]]:
    """The backend's ISA settings this CPU can honour (label -> environment), and the labels
    left out because the CPU lacks the level."""
    usable, lacking = {}, []
    for label, (env, flag) in _module_attr(backend, "ISA_SETTINGS").items():
        if _host_has(flag):
            usable[label] = env
        else:
            lacking.append(label)
    return usable, lacking


# ---------------------------------------------------------------- run in the child process
def _inputs(fmt: Format, takes: str) -> np.ndarray:
    x = all_patterns(fmt).view(fmt.dtype)
    return x.astype(np.float32) if takes == "float32" else x


def _bits(y: Any) -> np.ndarray:
    y = np.asarray(y)
    return np.ascontiguousarray(y).reshape(-1).view({1: np.uint8, 2: np.uint16,
                                                     4: np.uint32}[y.dtype.itemsize])


def child_baseline(backend: str | Backend, func: str, fmt_name: str, layouts: bool
                   ) -> dict[str, Any]:
    """In the backend's process: its results on every input as one array ("base", bits, and
    the output dtype), and with ``layouts`` the position and shape checks, each as (indices of
    the inputs whose bits differed from the base, the bits they got). ``backend``: a name in
    the registry, or a Backend (one added at run time, whose ``make`` the child imports)."""
    fmt = get_format(fmt_name)
    b = BACKENDS[backend] if isinstance(backend, str) else backend
    run, takes = b.make(func, fmt, False)
    x = _inputs(fmt, takes)
    with np.errstate(all="ignore"):
        y = np.asarray(run(x))
        base = _bits(y)
        out: dict[str, Any] = {"base": base, "dtype": str(y.dtype), "takes": takes}
        if not layouts:
            return out
        n = x.size
        pick = np.unique(np.linspace(0, n - 1, POSITION_SAMPLE).astype(np.int64))
        got: dict[int, int] = {}

        def note(idx: np.ndarray, res: Any) -> None:
            r = _bits(res)
            for i, b in zip(idx.tolist(), r.tolist(), strict=True):
                if not _same_one(b, int(base[i]), y.dtype) and i not in got:
                    got[i] = b

        for length in LENGTHS:
            for s in range(0, pick.size, length):
                idx = pick[s:s + length]
                note(idx, run(x[idx].copy()))
        for length in OFFSET_LENGTHS:
            for off in OFFSETS:
                buf = np.empty(length + off, dtype=x.dtype)
                for s in range(0, pick.size, length):
                    idx = pick[s:s + length]
                    buf[off:off + idx.size] = x[idx]
                    note(idx, run(buf[off:off + idx.size]))
        out["position"] = (np.array(sorted(got), dtype=np.int64),
                           np.array([got[i] for i in sorted(got)], dtype=base.dtype))
        shaped: dict[int, int] = {}
        for shape in SHAPES:
            xs = x.reshape(16, 4096).T if shape == "transposed" else x.reshape(shape)
            r = np.asarray(run(xs))
            if r.shape != xs.shape:
                raise TypeError(f"shape {xs.shape} in, {r.shape} out")
            rb = _bits(r.T if shape == "transposed" else r)
            for i in np.flatnonzero(~_same(rb, base, y.dtype)).tolist():
                shaped.setdefault(i, int(rb[i]))
        out["shape"] = (np.array(sorted(shaped), dtype=np.int64),
                        np.array([shaped[i] for i in sorted(shaped)], dtype=base.dtype))
    return out


def _is_nan(bits: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.isnan(bits.view(dtype).astype(np.float32))


def _same(a: np.ndarray, b: np.ndarray, dtype: Any) -> np.ndarray:
    dtype = np.dtype(dtype)
    return (a == b) | (_is_nan(a, dtype) & _is_nan(b, dtype))


def _same_one(a: int, b: int, dtype: Any) -> bool:
    return bool(_same(np.array([a], dtype=_carrier(dtype)), np.array([b], _carrier(dtype)),
                      dtype)[0])


def _carrier(dtype: Any) -> Any:
    return {1: np.uint8, 2: np.uint16, 4: np.uint32}[np.dtype(dtype).itemsize]


# ---------------------------------------------------------------- the parent
def _out_format(dtype: str, fmt: Format) -> Format:
    return get_format("float32") if np.dtype(dtype) == np.float32 else fmt


def _summary(idx: np.ndarray, got: np.ndarray, base: np.ndarray, fmt: Format, dtype: str
             ) -> dict[str, Any]:
    """{"differ": count, "worst": {x, base, got (hex), ulp}}: the worst is the largest ordinal
    distance (a NaN or inf against a number counts as the farthest)."""
    if idx.size == 0:
        return {"differ": 0}
    of = _out_format(dtype, fmt)
    a = ordinal_bitwise(base[idx], of)
    b = ordinal_bitwise(got, of)
    dist = np.where((a == NO_INDEX) | (b == NO_INDEX), np.iinfo(np.int64).max,
                    np.abs(a - b))
    k = int(np.argmax(dist))
    width = fmt.bits // 4
    owidth = of.bits // 4
    x_bits = int(all_patterns(fmt)[idx[k]])
    return {"differ": int(idx.size), "worst": {
        "x": f"0x{x_bits:0{width}x}", "x_value": float(np.array([x_bits], fmt.uint).view(
            fmt.dtype).astype(np.float64)[0]),
        "base": f"0x{int(base[idx[k]]):0{owidth}x}", "got": f"0x{int(got[k]):0{owidth}x}",
        "ulp": None if dist[k] == np.iinfo(np.int64).max else int(dist[k])}}


def _against(base: dict[str, Any], other: dict[str, Any], fmt: Format) -> dict[str, Any]:
    if other["dtype"] != base["dtype"]:
        return {"error": f"dtype {other['dtype']} against {base['dtype']}"}
    a, b = base["base"], other["base"]
    idx = np.flatnonzero(~_same(a, b, base["dtype"]))
    return _summary(idx, b[idx], a, fmt, base["dtype"])


def _ref(name: str) -> str | Backend:
    """What a child is sent: the name of a registered backend, else the Backend itself."""
    return name if name in registered_backends() else BACKENDS[name]


def _compare(pool: Pool, backend: str, func: str, fmt: Format, base: dict[str, Any]
             ) -> dict[str, Any]:
    """``backend``'s results on every input, run in ``pool`` (its environment), against the
    baseline; a backend that cannot run there is {"skipped": why}, one that fails {"error"}."""
    try:
        other = pool.call(backend, f"{__name__}:child_baseline", _ref(backend), func, fmt.name,
                          False)
    except Unavailable as why:
        return {"skipped": str(why)}
    except BackendFailed as why:
        return {"error": str(why)}
    return _against(base, other, fmt)


def determinism_card(fmt: str = "bfloat16", functions: Sequence[str] | None = None,
                     backends: Sequence[str] = DEFAULT_BACKENDS, *, time_limit: float = 300.0,
                     command: str = "", progress: Callable[[str], None] | None = None
                     ) -> dict[str, Any]:
    """The determinism card as JSON: per backend and function, the five dimensions, each
    {"differ": n, "worst": {...}} or {"skipped": why} / {"error": one line}."""
    from ulplab.peers.card import CARD_FUNCTIONS

    f = get_format(fmt)
    funcs = list(CARD_FUNCTIONS if functions is None else functions)
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    cores = os.cpu_count() or 1
    for name in backends:
        settings, lacking = isa_settings(name)
        compiled = _module_attr(name, "COMPILED").get(name)
        pools = {"base": Pool(time_limit), "threads": Pool(time_limit, ONE_THREAD)}
        pools.update({label: Pool(time_limit, env) for label, env in settings.items()})
        try:
            for func in funcs:
                if progress is not None:
                    progress(f"{name} {func}")
                row: dict[str, Any] = {"backend": name, "function": func}
                try:
                    base = pools["base"].call(name, f"{__name__}:child_baseline", _ref(name),
                                              func, f.name, True)
                except (Unavailable, BackendFailed) as why:
                    status = "skipped" if isinstance(why, Unavailable) else "failed"
                    rows.append({**row, "status": status, "reason": str(why)})
                    continue
                row["computes_in"] = f.name if base["takes"] == "format" else "float32"
                row["status"] = "measured"
                row["threads"] = (_compare(pools["threads"], name, func, f, base) if cores > 1
                                  else {"skipped": "one core: no other thread count to try"})
                row["position"] = _summary(*base["position"], base["base"], f, base["dtype"])
                row["shape"] = _summary(*base["shape"], base["base"], f, base["dtype"])
                row["isa"] = {label: _compare(pools[label], name, func, f, base)
                              for label in settings}
                row["isa_not_on_this_cpu"] = lacking
                row["compiled"] = (_compare(pools["base"], compiled, func, f, base) if compiled
                                   else {"skipped": "no compiled variant"})
                if compiled:
                    row["compiled_variant"] = compiled
                rows.append(row)
        finally:
            for p in pools.values():
                p.close()
    return {"kind": "determinism card", "format": f.name, "functions": funcs,
            "backends": list(backends), "command": command, "machine": machine(),
            "cpu_flags": sorted(cpu_flags() & {"avx2", "avx512f", "fma", "avx512_bf16",
                                               "avx512fp16", "amx_bf16"}),
            "versions": backend_versions(), "lengths": [LENGTHS.start, LENGTHS.stop - 1],
            "offsets": list(OFFSETS), "shapes": [str(s) for s in SHAPES],
            "position_sample": POSITION_SAMPLE, "time_limit_s": time_limit,
            "seconds": round(time.perf_counter() - start, 1), "rows": rows}
