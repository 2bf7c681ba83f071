"""Every float32: chunked, resumable sweeps over bit-pattern ranges, in one process or on Dask.

A job is (function, methods, bit ranges, rounding, denormals, chunk size, worst-k, dump
threshold). Each chunk of consecutive bit patterns is one task: the oracle
(``oracle.fast32``: float64 with a proven bound, Arb for the rest) and every method run on the
whole chunk, and the chunk's statistics come back as a ``Partial``. Partials merge exactly (integer
histograms of every ULP value, sums as Python integers, worst inputs ordered by (ULP desc, input
bits asc)), so the result does not depend on chunking, worker count or the order chunks finish.

A checkpoint file (JSON with a SHA-256 of its body, written to a temporary file and renamed)
holds the finished chunks and the merged partial; a run given the same checkpoint continues.

Inputs above ``dump_above`` never enter the merged partial or the checkpoint: each finished
chunk's lines go to a file of their own (one per method) in a parts directory, beside the
checkpoint (``CHECKPOINT.dump-parts/``) or, without one, a temporary directory beside the dump
file; the checkpoint records each chunk's byte count. At the end the parts are concatenated, by
method then by chunk start (so by input bits), into the dump file (atomically) and removed. A
resumed run writes the same file, byte for byte, as an uninterrupted one.

Methods are named, not shipped: ``det``, ``f32-naive`` or any registered name,
``peer:numpy`` / ``peer:libm`` / ``peer:torch`` ..., ``callable:module:function``; each worker
resolves them itself.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import functools
import hashlib
import json
import logging
import math
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ulplab.errors import UsageError
from ulplab.files import check_writable, open_atomic, write_text
from ulplab.formats import get_format, get_policy, to_values
from ulplab.functions import get_function
from ulplab.methods import Method, get_method
from ulplab.oracle.fast32 import correctly_rounded32
from ulplab.stats import hex_bits, histogram_edges
from ulplab.ulp import ulp_distance

F32 = get_format("float32")
ALL = ((0, 1 << 32),)
"""Every float32 bit pattern."""
CHECKPOINT_VERSION = 2
"""2: the dumped inputs live in the parts directory, the checkpoint holds their byte counts."""
BLOCK = 1 << 17
"""Inputs per inner block of a chunk: the oracle's float64 temporaries stay in cache and need no
fresh pages (measured: a sweep of exp 2x faster than in whole 2^22 chunks; 2^16-2^17
best, see benchmarks/bench_exhaustive.py --block)."""


def resolve_method(function: str, spec: str) -> Method:
    """A method by name: a registered one, ``peer:BACKEND`` or ``callable:module:function``."""
    if spec.startswith("peer:"):
        from ulplab.backends import BACKENDS, Unavailable

        name = spec[5:]
        if name not in BACKENDS:
            raise UsageError(f"unknown backend {name!r}; valid: {', '.join(BACKENDS)}")
        try:
            impl, takes = BACKENDS[name].make(function, F32, False)
        except Unavailable as why:
            raise UsageError(f"{spec}: {why}") from None
        return Method(function, spec, "peer", BACKENDS[name].describe, impl, takes=takes)
    if spec.startswith("callable:"):
        from ulplab.backends import user_callable

        label, fn = user_callable(spec[9:])
        return Method(function, label, "peer", "user callable", fn)
    if spec in _DET_ENTRIES:
        return _compiled_det(function, spec)
    return get_method(function, spec)


# every 65,521st float32 pattern (a prime stride: every sign, binade and mantissa class, NaNs)
_PROBE = np.arange(0, 1 << 32, 65_521, dtype=np.int64).astype(np.uint32)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal float32 results, any NaN matching any NaN."""
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    return bool(np.array_equal(nan_a, nan_b)
                and np.array_equal(a.view(np.uint32)[~nan_a], b.view(np.uint32)[~nan_b]))


_DET_ENTRIES = {"det": "float32", "det-odd": "odd"}
"""det methods -> the ``rounding`` of their ``ulplab.det.float32_kernel`` entry point."""


@functools.cache
def _compiled_det(function: str, spec: str) -> Method:
    """A det method through its compiled kernel (``ulplab.det.float32_kernel``: the C export,
    10x faster than the NumPy kernel), after checking that it gives the bits of the method's
    NumPy definition (``Method.float32_impl``) on 65,552 spread patterns; else that NumPy
    kernel itself."""
    from ulplab.det import float32_kernel

    method = get_method(function, spec)
    numpy_kernel = method.float32_impl
    assert numpy_kernel is not None
    plain = dataclasses.replace(method, impl=numpy_kernel, takes="float32", compiled=None)
    compiled = float32_kernel(function, _DET_ENTRIES[spec])
    probe = _PROBE.view(np.float32)
    with np.errstate(all="ignore"):
        if not _same_bits(np.asarray(compiled(probe)), np.asarray(numpy_kernel(probe))):
            return plain
    return dataclasses.replace(plain, impl=compiled)


@dataclass(frozen=True)
class Job:
    function: str
    methods: tuple[str, ...]
    ranges: tuple[tuple[int, int], ...] = ALL
    rounding: str = "nearest-even"
    denormals: str = "ieee"
    chunk: int = 1 << 22
    worst: int = 10
    dump_above: int | None = None
    block: int = BLOCK  # no figure depends on it, so it is not part of ``key``

    def chunks(self) -> list[tuple[int, int]]:
        """Every chunk, in a spread order (chunk i of n at position bit-reverse(i)): at any
        moment the finished chunks cover the whole range evenly, so the statistics of an
        unfinished run (its checkpoint) are those of a stratified sample."""
        ordered = [(s, min(s + self.chunk, hi)) for lo, hi in self.ranges
                   for s in range(lo, hi, self.chunk)]
        bits = max(len(ordered) - 1, 0).bit_length()
        rank = [int(f"{i:0{bits}b}"[::-1], 2) if bits else 0 for i in range(len(ordered))]
        return [c for _, c in sorted(zip(rank, ordered, strict=True))]

    @property
    def size(self) -> int:
        return sum(hi - lo for lo, hi in self.ranges)

    def key(self) -> dict[str, Any]:
        return {"function": self.function, "methods": list(self.methods),
                "ranges": [list(r) for r in self.ranges], "rounding": self.rounding,
                "denormals": self.denormals, "chunk": self.chunk, "worst": self.worst,
                "dump_above": self.dump_above}


# ---------------------------------------------------------------- mergeable statistics
_RECORD = ("ulp", "x", "got", "expected")  # columns of worst / mismatch / dump records
_DENSE = 1 << 16  # ULP values below this are counted with one bincount


def _records(ulp: np.ndarray, x: np.ndarray, got: np.ndarray, exp: np.ndarray,
             idx: np.ndarray) -> list[list[int]]:
    return np.stack([ulp[idx].astype(np.int64), x[idx].astype(np.int64),
                     got[idx].astype(np.int64), exp[idx].astype(np.int64)], 1).tolist()


def _hist_merge(a: tuple[list[int], list[int]], b: tuple[list[int], list[int]]
                ) -> tuple[list[int], list[int]]:
    vals = np.array(a[0] + b[0], np.int64)
    counts = np.array(a[1] + b[1], np.int64)
    keys, inv = np.unique(vals, return_inverse=True)
    total = np.zeros(keys.size, np.int64)
    np.add.at(total, inv, counts)
    return keys.tolist(), total.tolist()


@dataclass
class MethodPartial:
    """One method's statistics over some chunks, exactly mergeable."""

    hist: tuple[list[int], list[int]] = ([], [])  # ULP value -> count, finite pairs
    ulp_sum: int = 0
    nan_mismatches: int = 0
    inf_mismatches: int = 0
    worst: list[list[int]] = field(default_factory=list)  # best first: ULP desc, x asc
    mismatches: list[list[int]] = field(default_factory=list)  # x asc
    regions: dict[str, list[int]] = field(default_factory=dict)  # name -> [count, max, sum]
    dump: list[list[int]] = field(default_factory=list)
    inputs: int = 0  # every input compared, non-finite pairs included
    agree: int = 0  # NaN against NaN, an infinity against the same infinity: exact too

    def merge(self, o: MethodPartial, k: int) -> MethodPartial:
        regions = {n: list(v) for n, v in self.regions.items()}
        for n, (c, m, s) in o.regions.items():
            r = regions.setdefault(n, [0, 0, 0])
            r[0], r[1], r[2] = r[0] + c, max(r[1], m), r[2] + s
        return MethodPartial(
            _hist_merge(self.hist, o.hist), self.ulp_sum + o.ulp_sum,
            self.nan_mismatches + o.nan_mismatches, self.inf_mismatches + o.inf_mismatches,
            sorted(self.worst + o.worst, key=lambda r: (-r[0], r[1]))[:k],
            sorted(self.mismatches + o.mismatches, key=lambda r: r[1])[:k],
            regions, self.dump + o.dump, self.inputs + o.inputs, self.agree + o.agree)

    def to_json(self) -> dict[str, Any]:
        """Everything but ``dump`` (streamed to the parts directory, never checkpointed)."""
        return {"hist": [list(self.hist[0]), list(self.hist[1])], "ulp_sum": self.ulp_sum,
                "nan_mismatches": self.nan_mismatches, "inf_mismatches": self.inf_mismatches,
                "worst": self.worst, "mismatches": self.mismatches, "regions": self.regions,
                "inputs": self.inputs, "agree": self.agree}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> MethodPartial:
        return cls((list(d["hist"][0]), list(d["hist"][1])), d["ulp_sum"], d["nan_mismatches"],
                   d["inf_mismatches"], d["worst"], d["mismatches"], d["regions"], [],
                   d["inputs"], d["agree"])


@dataclass
class Partial:
    """Every method's statistics over some chunks, with the oracle's counts."""

    inputs: int = 0
    arb: int = 0
    methods: dict[str, MethodPartial] = field(default_factory=dict)

    def merge(self, o: Partial, k: int) -> Partial:
        names = list(dict.fromkeys([*self.methods, *o.methods]))
        return Partial(self.inputs + o.inputs, self.arb + o.arb,
                       {n: self.methods.get(n, MethodPartial()).merge(
                           o.methods.get(n, MethodPartial()), k) for n in names})

    def to_json(self) -> dict[str, Any]:
        return {"inputs": self.inputs, "arb": self.arb,
                "methods": {n: m.to_json() for n, m in self.methods.items()}}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Partial:
        return cls(d["inputs"], d["arb"],
                   {n: MethodPartial.from_json(m) for n, m in d["methods"].items()})


_EXP_MASK = 0x7F800000  # float32 exponent field: all ones for inf and NaN


@dataclass
class _Side:
    """Bit-level facts of float32 results: NaN, inf, ordinal index (``ulp`` module's bitwise
    calculator, +0 and -0 both 0), computed once per chunk for the oracle."""

    nan: np.ndarray
    inf: np.ndarray
    index: np.ndarray

    @classmethod
    def of(cls, bits: np.ndarray) -> _Side:
        mag = (bits & np.uint32(0x7FFFFFFF)).view(np.int32)
        signed = bits.view(np.int32)
        return cls(mag > _EXP_MASK, mag == _EXP_MASK,
                   np.where(signed < 0, -mag, mag).astype(np.int64))


def _ulp(got: _Side, exp: _Side) -> np.ndarray:
    """ulp_distance(got, expected, float32) (IEEE ordinal): -1 where a side is NaN or inf."""
    bad = got.nan | got.inf | exp.nan | exp.inf
    return np.where(bad, -1, np.abs(got.index - exp.index))


def _method_partial(x: np.ndarray, got: np.ndarray, exp: np.ndarray, ulp: np.ndarray,
                    job: Job, gs: _Side, es: _Side) -> MethodPartial:
    nan_mm = gs.nan != es.nan
    inf_mm = ~gs.nan & ~es.nan & (gs.inf | es.inf) & (got != exp)
    finite = ulp >= 0
    u = ulp if finite.all() else ulp[finite]
    top = int(u.max()) if u.size else -1
    small = np.bincount(u if top < _DENSE else np.minimum(u, _DENSE))[:_DENSE]
    vals, counts = np.flatnonzero(small), small[small > 0]
    if top >= _DENSE:  # rare large errors: counted value by value
        big_vals, big_counts = np.unique(u[u >= _DENSE], return_counts=True)
        vals, counts = np.concatenate([vals, big_vals]), np.concatenate([counts, big_counts])
    k = job.worst
    worst: list[list[int]] = []
    if k and vals.size and vals[-1] > 0:
        # the k-th largest ULP from the histogram; within a chunk x ascends, so the first rows
        # at that ULP are the ones that sort first
        above = np.cumsum(counts[::-1])
        kth = int(vals[::-1][min(np.searchsorted(above, k), vals.size - 1)])
        kth = max(kth, 1)
        over = np.flatnonzero(ulp > kth)
        tie = np.flatnonzero(ulp == kth)[: max(k - over.size, 0)]
        cand = np.concatenate([over, tie])
        order = np.lexsort((x[cand], -ulp[cand]))[:k]
        worst = _records(ulp, x, got, exp, cand[order])
    mism = _records(ulp, x, got, exp, np.flatnonzero(nan_mm | inf_mm)[:k])
    regions: dict[str, list[int]] = {}
    spec = get_function(job.function)
    if spec.regions:
        xs = x.view(np.float32)
        nan = np.isnan(xs)
        ordered = xs[~nan] if nan.any() else xs
        lowest, highest = (float(ordered.min()), float(ordered.max())) if ordered.size \
            else (math.nan, math.nan)
        for name, lo, hi in spec.regions:
            if lowest >= lo and highest < hi:  # the whole chunk (a NaN input is never finite)
                r = u
            elif highest < lo or lowest >= hi or math.isnan(lowest):
                r = u[:0]
            else:
                r = ulp[finite & (xs >= lo) & (xs < hi)]
            regions[name] = [int(r.size), int(r.max()) if r.size else 0,
                             int(r.sum(dtype=np.int64))]
    dump: list[list[int]] = []
    if job.dump_above is not None:
        dump = _records(ulp, x, got, exp,
                        np.flatnonzero((finite & (ulp > job.dump_above)) | nan_mm | inf_mm))
    agree = int(np.count_nonzero((gs.nan & es.nan) | (~gs.nan & ~es.nan & (gs.inf | es.inf)
                                                     & (got == exp))))
    return MethodPartial((vals.tolist(), counts.tolist()), int(u.sum(dtype=np.int64)),
                         int(nan_mm.sum()), int(inf_mm.sum()), worst, mism, regions, dump,
                         int(x.size), agree)


class CallableFailed(UsageError):
    """A ``callable:`` method raised, or returned the wrong dtype or shape, on a block."""


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:200]}" if lines else type(exc).__name__


def _outputs(spec: str, method: Method, job: Job, x: np.ndarray) -> np.ndarray:
    """The method's result patterns on the block ``x``; a user callable's failure becomes one
    line naming it, the block (its first input's bits and value, its size) and the error."""
    from ulplab.sweep import method_outputs

    try:
        with np.errstate(all="ignore"):  # overflow / invalid are results, not news
            return method_outputs(method, F32, job.denormals, "nearest-even", x)[1]
    except Exception as exc:
        if not spec.startswith("callable:"):
            raise
        first = float(x[:1].view(np.float32)[0])
        raise CallableFailed(f"{spec} failed on the block of {x.size:,} inputs from "
                             f"0x{int(x[0]):08x} ({first!r}): {_first_line(exc)}") from None


def _run_block(job: Job, methods: Sequence[tuple[str, Method]], start: int, stop: int
               ) -> Partial:
    x = np.arange(start, stop, dtype=np.int64).astype(np.uint32)
    expected, arb = correctly_rounded32(job.function, x.view(np.float32), job.rounding,
                                        job.denormals)
    ftz = get_policy(job.denormals).ftz
    out = Partial(int(x.size), arb)
    es = _Side.of(expected)
    for spec, method in methods:
        got = _outputs(spec, method, job, x)
        gs = _Side.of(got)
        # the flush-to-zero ordinal is the ulp module's; the IEEE one is computed here directly
        ulp = ulp_distance(got, expected, F32, ftz=True) if ftz else _ulp(gs, es)
        out.methods[spec] = _method_partial(x, got, expected, ulp, job, gs, es)
    return out


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


@functools.cache
def _steady_heap() -> bool:
    """Once per process (glibc only): arrays up to 32 MiB come from the heap, and up to 1 GiB
    of freed heap stays with the process. Otherwise glibc hands the block's ~1 MiB temporaries
    back to the kernel and takes fresh zeroed pages for the next ones (measured: exp with det,
    2^25 inputs, 7.0-7.4 M inputs/s per core with glibc's defaults, 20.5-21.5 with these).
    The price: the process keeps what it freed, at most the sweep's peak. True if set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20)) and bool(
        mallopt(_M_TRIM_THRESHOLD, 1 << 30))


def run_chunk(job: Job, start: int, stop: int) -> Partial:
    """Oracle and every method over bit patterns start .. stop-1 (one task), in blocks of
    ``job.block`` inputs whose partials merge exactly."""
    _steady_heap()
    methods = [(spec, resolve_method(job.function, spec)) for spec in job.methods]
    out = Partial()
    for lo in range(start, stop, job.block):
        out = out.merge(_run_block(job, methods, lo, min(lo + job.block, stop)), job.worst)
    return out


# ---------------------------------------------------------------- the report (summarize's JSON)
def _fraction(n: int, d: int) -> float:
    return n / d if d else 1.0


def method_stats(m: MethodPartial, worst: int) -> dict[str, Any]:
    """The statistics of ``stats.summarize`` from a merged partial (the same keys)."""
    vals = np.array(m.hist[0], np.int64)
    counts = np.array(m.hist[1], np.int64)
    n = int(counts.sum())
    total = m.inputs
    out: dict[str, Any] = {
        "inputs": total, "count": n,  # fractions over every input, as stats.summarize does
        "exact_fraction": _fraction(int(counts[vals == 0].sum()) + m.agree, total),
        "within1_fraction": _fraction(int(counts[vals <= 1].sum()) + m.agree, total),
    }
    if n:
        mx = int(vals.max())
        cum = np.cumsum(counts)

        def at_rank(p: int) -> int:
            r = max(int(np.ceil(p / 100 * n)) - 1, 0)
            return int(vals[np.searchsorted(cum, r, side="right")])

        out.update(
            max_ulp=mx, mean_ulp=m.ulp_sum / n,
            percentiles={f"p{p}": at_rank(p) for p in (50, 90, 99)},
            histogram={(str(lo) if lo == hi else f"{lo}-{hi}"):
                       int(counts[(vals >= lo) & (vals <= hi)].sum())
                       for lo, hi in histogram_edges(mx)})
    else:
        out.update(max_ulp=0, mean_ulp=0.0, percentiles={"p50": 0, "p90": 0, "p99": 0},
                   histogram={})
    out["nan_mismatches"] = m.nan_mismatches
    out["inf_mismatches"] = m.inf_mismatches

    def value(b: int) -> float:
        return float(to_values(np.array([b], np.uint32), F32)[0])

    out["worst"] = [{"x": value(x), "hex": hex_bits(x, F32), "ulp": u, "got": value(g),
                     "got_hex": hex_bits(g, F32), "expected": value(e),
                     "expected_hex": hex_bits(e, F32)} for u, x, g, e in m.worst[:worst]]
    out["mismatch_examples"] = [{"x": value(x), "hex": hex_bits(x, F32),
                                 "got_hex": hex_bits(g, F32), "expected_hex": hex_bits(e, F32)}
                                for _, x, g, e in m.mismatches[:worst]]
    out["regions"] = {name: {"count": c, "max_ulp": mx, "mean_ulp": s / c if c else 0.0}
                      for name, (c, mx, s) in m.regions.items()}
    return out


def _seed_figure(function: str, spec: str) -> int | None:
    """The seed research's published float32 figure of a registered method (as sweep gives)."""
    if spec.startswith(("peer:", "callable:")):
        return None
    return resolve_method(function, spec).seed.get("float32")


def _ranges_text(ranges: Sequence[tuple[int, int]]) -> str:
    if tuple(ranges) == ALL:
        return "exhaustive"
    return ", ".join(f"0x{lo:08x}..0x{hi - 1:08x}" for lo, hi in ranges)


def report(job: Job, state: Partial, seconds: float, swept: int | None = None
           ) -> dict[str, Any]:
    """The JSON of ``ulplab analyze`` (per method: the 16-bit sweeps' statistics). ``swept``:
    the inputs swept in these ``seconds`` (fewer than ``state.inputs`` when a checkpoint held
    the rest; those are reported as ``resumed_inputs``)."""
    spec = get_function(job.function)
    policy = get_policy(job.denormals)
    swept = state.inputs if swept is None else swept
    return {
        "function": job.function, "format": "float32", "rounding": job.rounding,
        "output_rounding": "nearest-even", "denormals": policy.name,
        "inputs": _ranges_text(job.ranges), "input_count": state.inputs,
        "oracle": {"arb_evaluations": state.arb, "fast_path": state.inputs - state.arb},
        "seconds": round(seconds, 3),
        "inputs_per_second": round(swept / seconds) if seconds > 0 else None,
        "resumed_inputs": state.inputs - swept,
        "ulp_ordinal": "flush-to-zero" if policy.ftz else "ieee",
        "regions": [{"name": n, "lo": lo, "hi": hi} for n, lo, hi in spec.regions],
        "methods": [{"method": name, **method_stats(m, job.worst),
                     "seed_max_ulp": _seed_figure(job.function, name)}
                    for name, m in state.methods.items()],
    }


DUMP_HEADER = "method\tx_hex\tx\tgot_hex\texpected_hex\tulp\n"
"""The first line of a --dump-above file."""


def dump_text(method: str, records: Sequence[Sequence[int]]) -> str:
    """Dumped records (ulp, x, got, expected bits) of one method as tab-separated lines, by x."""
    rows = sorted(records, key=lambda r: r[1])
    xs = to_values(np.array([r[1] for r in rows], np.uint32), F32) if rows else []
    return "".join(f"{method}\t0x{x:08x}\t{float(xv)!r}\t0x{g:08x}\t0x{e:08x}\t"
                   f"{u if u >= 0 else 'nan/inf'}\n" for (u, x, g, e), xv in zip(rows, xs,
                                                                                  strict=True))


# ---------------------------------------------------------------- checkpoints
def _body_hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def save_checkpoint(path: str | Path, job: Job, done: Sequence[int], state: Partial,
                    dump_bytes: dict[int, int] | None = None) -> None:
    """Atomic (``ulplab.files``: a temporary file beside the target, synced, renamed over it).
    ``dump_bytes``: chunk start -> bytes of its dumped lines in the parts directory, for a run
    that writes a dump file (None: the finished chunks' dumped lines were not kept)."""
    body = {"version": CHECKPOINT_VERSION, "job": job.key(), "done": sorted(done),
            "state": state.to_json(),
            "dump_bytes": None if dump_bytes is None else
            {str(k): v for k, v in sorted(dump_bytes.items()) if v}}
    write_text(path, json.dumps({"sha256": _body_hash(body), "body": body}))


def _read_checkpoint(path: str | Path, job: Job) -> dict[str, Any] | None:
    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:  # empty: just created, nothing recorded
        return None
    try:
        data = json.loads(path.read_text())
        body = data["body"]
        ok = data["sha256"] == _body_hash(body)
    except (OSError, ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise UsageError(f"checkpoint {path} is damaged (checksum); remove it to start over")
    if body.get("version") != CHECKPOINT_VERSION:
        raise UsageError(f"checkpoint {path} has format {body.get('version')!r}, this ulplab "
                         f"reads {CHECKPOINT_VERSION}; remove it to start over")
    if body["job"] != job.key():
        raise UsageError(f"checkpoint {path} belongs to another job; remove it or give "
                         "another --checkpoint path")
    return body


def load_checkpoint(path: str | Path, job: Job) -> tuple[set[int], Partial] | None:
    """(finished chunk starts, merged partial), or None when there is no checkpoint yet."""
    body = _read_checkpoint(path, job)
    if body is None:
        return None
    return set(body["done"]), Partial.from_json(body["state"])


# ---------------------------------------------------------------- the dump file, streamed
def dump_parts_dir(checkpoint: str | Path) -> Path:
    """Where a checkpointed job keeps its finished chunks' dumped lines until the end:
    ``CHECKPOINT.dump-parts/`` beside the checkpoint (refused when that name is taken by
    something other than a directory)."""
    target = Path(os.path.realpath(checkpoint))
    parts = target.with_name(target.name + ".dump-parts")
    if (parts.exists() or parts.is_symlink()) and not parts.is_dir():
        raise UsageError(f"cannot keep the dump's parts in {parts}: it exists and is not a "
                         "directory")
    return parts


_PART = re.compile(r"[0-9a-f]{8}-\d+\.tsv")
"""A part's name: chunk start (8 hex digits), method index."""


@dataclass
class _DumpSpool:
    """Each finished chunk's dumped lines in a file per method (``parts/START-I.tsv``), written
    when the chunk finishes; ``assemble`` concatenates them into the dump file."""

    job: Job
    parts: Path
    sizes: dict[int, int]  # chunk start -> bytes of its parts (what the checkpoint records)
    temporary: bool  # a directory of this run only (no checkpoint): removed whatever happens

    def _path(self, start: int, i: int) -> Path:
        return self.parts / f"{start:08x}-{i}.tsv"

    def clear(self) -> None:
        """Remove every part (a fresh start: parts of an earlier job are not this one's)."""
        for f in self.parts.iterdir():
            if _PART.fullmatch(f.name):
                f.unlink()

    def add(self, start: int, part: Partial) -> None:
        """Write ``part``'s dumped lines (replacing any of an unrecorded earlier attempt)."""
        total = 0
        for i, spec in enumerate(self.job.methods):
            m = part.methods.get(spec)
            path = self._path(start, i)
            if m is None or not m.dump:
                path.unlink(missing_ok=True)
                continue
            data = dump_text(spec, m.dump).encode()
            with open_atomic(path) as fh:
                fh.write(data)
            total += len(data)
        self.sizes[start] = total

    def verify(self, done: set[int], checkpoint: str | Path | None) -> None:
        """The parts of every finished chunk are there, at the recorded sizes."""
        for start in sorted(done):
            have = sum(p.stat().st_size for p in (self._path(start, i)
                                                 for i in range(len(self.job.methods)))
                       if p.exists())
            if have != self.sizes.get(start, 0):
                raise UsageError(
                    f"checkpoint {checkpoint} records {self.sizes.get(start, 0):,} bytes of "
                    f"dumped lines for the chunk at 0x{start:08x}, {self.parts} holds "
                    f"{have:,} (its parts are removed once -o FILE is written): remove the "
                    "checkpoint to sweep again")

    def assemble(self, path: str | Path, done: set[int]) -> int:
        """The dump file (atomically): the header, then by method, by chunk start, each part.
        Returns the number of lines below the header."""
        lines = 0
        with open_atomic(path) as out:
            out.write(DUMP_HEADER.encode())
            for i in range(len(self.job.methods)):
                for start in sorted(done):
                    part = self._path(start, i)
                    if not self.sizes.get(start) or not part.exists():
                        continue  # no lines of this chunk, or none of this method
                    with open(part, "rb") as fh:
                        while block := fh.read(1 << 20):
                            lines += block.count(b"\n")
                            out.write(block)
        return lines

    def remove(self) -> None:
        if self.temporary:
            shutil.rmtree(self.parts, ignore_errors=True)
            return
        self.clear()
        with contextlib.suppress(OSError):  # something else was put there: left alone
            self.parts.rmdir()


def _spool(job: Job, checkpoint: str | Path | None, dump_path: str | Path,
           body: dict[str, Any] | None) -> _DumpSpool:
    if checkpoint is None:
        target = Path(os.path.realpath(dump_path))
        parts = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.",
                                      suffix=".dump-parts"))
        return _DumpSpool(job, parts, {}, temporary=True)
    parts = dump_parts_dir(checkpoint)
    try:
        parts.mkdir(exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot make {parts}: {exc.strerror}") from None
    spool = _DumpSpool(job, parts, {}, temporary=False)
    if body is None or not body["done"]:
        spool.clear()
        return spool
    if body.get("dump_bytes") is None:
        raise UsageError(f"checkpoint {checkpoint} was written by a run that kept no dump "
                         "file: its finished chunks' lines are not on disk; remove it to "
                         "start over")
    spool.sizes = {int(k): v for k, v in body["dump_bytes"].items()}
    spool.verify(set(body["done"]), checkpoint)
    return spool


# ---------------------------------------------------------------- running a job
ChunkDone = Callable[[int, int, Partial], None]


def _in_process(job: Job, todo: list[tuple[int, int]], done: ChunkDone) -> None:
    for s, e in todo:
        done(s, e, run_chunk(job, s, e))


@contextlib.contextmanager
def _quiet_distributed() -> Iterator[None]:
    """distributed's log lines off in this process while the job runs: a failed task comes back
    as its exception from ``Future.result`` (and ends the run with it), so the "Compute Failed"
    and shutdown messages only repeat it, with tracebacks, on standard error."""
    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)


def _on_dask(job: Job, todo: list[tuple[int, int]], done: ChunkDone, scheduler: str | None,
             workers: int) -> None:
    try:
        import dask
        from distributed import Client, KilledWorker, LocalCluster, as_completed
    except ImportError as exc:
        raise UsageError(f"more than one worker runs on Dask, which is not installed ({exc}); "
                         "pip install 'dask[distributed]' or use --workers 1") from None

    with _quiet_distributed():
        if scheduler:
            client = Client(scheduler)
            cluster = None
        else:
            # Dask's nannies set MALLOC_TRIM_THRESHOLD_=65536 in their workers, which turns off
            # glibc's adaptive mmap threshold: every temporary array of a chunk is then a fresh
            # mmap, and NumPy runs ~10x slower (measured: a loop of array ops, 0.08 s CPU here,
            # 0.79 s in such a worker). The job's own cluster keeps glibc's defaults.
            # Without a dashboard the scheduler still serves /health and /metrics, by default on
            # port 8787, and warns when another cluster holds it: a free port on 127.0.0.1
            # instead. silence_logs: the workers' and scheduler's log lines (see
            # _quiet_distributed) stay off standard error. One det thread per worker process
            # (ULPLAB_NUM_THREADS=1): the workers already take one core each.
            with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_":
                                  None,
                                  "distributed.nanny.pre-spawn-environ.ULPLAB_NUM_THREADS": "1"}):
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address="127.0.0.1:0",
                                       scheduler_kwargs={"dashboard": False}, host="127.0.0.1",
                                       silence_logs=logging.CRITICAL)
            client = Client(cluster)
        futures: list[Any] = []
        try:
            futures = [client.submit(run_chunk, job, s, e, pure=False) for s, e in todo]
            where = {f.key: c for f, c in zip(futures, todo, strict=True)}
            for fut in as_completed(futures):
                s, e = where[fut.key]
                try:
                    part = fut.result()
                except KilledWorker as exc:
                    raise UsageError(f"the Dask workers running the chunk at 0x{s:08x} died "
                                     f"({_first_line(exc)}); fewer --workers or a smaller "
                                     "--chunk may fit in memory") from None
                done(s, e, part)
                fut.release()
        finally:
            if futures:
                client.cancel(futures)
            client.close()  # the client first, then the cluster it talks to
            if cluster is not None:
                cluster.close()


def _check_job(job: Job) -> None:
    """A job the engine can run, or a one-line ``UsageError``."""
    if job.chunk < 1 or job.block < 1:
        raise UsageError(f"chunk ({job.chunk}) and block ({job.block}) must be at least 1")
    if job.worst < 0:
        raise UsageError(f"worst must be at least 0, got {job.worst}")
    if job.dump_above is not None and job.dump_above < 0:
        raise UsageError(f"--dump-above must be at least 0, got {job.dump_above}")
    for lo, hi in job.ranges:
        if not 0 <= lo <= hi <= 1 << 32:
            raise UsageError(f"bit range [0x{lo:x}, 0x{hi:x}) is not within the float32 "
                             "patterns")


def _worker_count(workers: int | None, scheduler: str | None) -> int:
    """Local worker processes: 1 to os.cpu_count() (default: all of them)."""
    cores = os.cpu_count() or 1
    if workers is None or scheduler:
        return cores
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= cores:
        raise UsageError(f"workers {workers!r}: expected a whole number from 1 to {cores} (the "
                         "cores of this machine, os.cpu_count())")
    return workers


def run_job(job: Job, workers: int | None = None, scheduler: str | None = None,
            checkpoint: str | Path | None = None, progress: bool = True,
            on_chunk: Callable[[int], None] | None = None,
            dump_path: str | Path | None = None) -> dict[str, Any]:
    """Run (or continue) ``job``; returns the report. ``workers=1`` without a scheduler runs in
    this process; otherwise Dask (a LocalCluster of ``workers`` processes, from 1 to the number
    of cores, default all; or ``scheduler``). ``on_chunk(n)`` is called after each finished
    chunk is recorded (n: chunks finished). With ``job.dump_above`` the inputs above it are
    streamed to ``dump_path`` (``dump_text`` lines, by method then input bits; ``dumped`` in
    the report counts them); without ``dump_path`` they are not kept."""
    from rich.progress import BarColumn, TextColumn, TimeRemainingColumn

    from ulplab.progress import progress_bar

    get_function(job.function)
    _check_job(job)
    workers = _worker_count(workers, scheduler)
    for spec in job.methods:
        resolve_method(job.function, spec)  # fail early, in one line
    if checkpoint is not None:
        check_writable(checkpoint)
    dumping = job.dump_above is not None and dump_path is not None
    if dumping:
        check_writable(dump_path)
    body = _read_checkpoint(checkpoint, job) if checkpoint is not None else None
    state, finished = Partial(), set()
    if body is not None:
        finished, state = set(body["done"]), Partial.from_json(body["state"])
    spool = _spool(job, checkpoint, dump_path, body) if dumping else None
    try:
        out = _run(job, workers, scheduler, checkpoint, progress, on_chunk, state, finished,
                   spool, progress_bar(progress, (TextColumn("{task.description}"), BarColumn(),
                                                  TextColumn("{task.completed:,.0f}/"
                                                             "{task.total:,.0f}"),
                                                  TextColumn("{task.fields[rate]}"),
                                                  TimeRemainingColumn())))
        if spool is not None:
            spool.verify(finished, checkpoint)
            out["dumped"] = spool.assemble(dump_path, finished)
            spool.remove()
    finally:
        if spool is not None and spool.temporary:
            spool.remove()
    return out


def _run(job: Job, workers: int, scheduler: str | None, checkpoint: str | Path | None,
         progress: bool, on_chunk: Callable[[int], None] | None, state: Partial,
         finished: set[int], spool: _DumpSpool | None, bar: Any) -> dict[str, Any]:
    todo = [c for c in job.chunks() if c[0] not in finished]
    t0 = time.perf_counter()
    fresh = 0
    with bar:
        task = bar.add_task(f"{job.function} float32", total=job.size,
                            completed=state.inputs, rate="")

        def done(s: int, e: int, part: Partial) -> None:
            nonlocal state, fresh
            if spool is not None:
                spool.add(s, part)  # on disk before the checkpoint records the chunk
            for m in part.methods.values():
                m.dump = []  # never merged: the state (and the checkpoint) stays small
            state = state.merge(part, job.worst)
            finished.add(s)
            fresh += e - s
            if checkpoint is not None:
                save_checkpoint(checkpoint, job, finished, state,
                                None if spool is None else spool.sizes)
            rate = fresh / max(time.perf_counter() - t0, 1e-9)
            bar.update(task, completed=state.inputs, rate=f"{rate / 1e6:.2f} M inputs/s")
            if on_chunk is not None:
                on_chunk(len(finished))

        if todo:
            if workers == 1 and scheduler is None:
                _in_process(job, todo, done)
            else:
                _on_dask(job, todo, done, scheduler, workers)
    return report(job, state, time.perf_counter() - t0, fresh)


def float32_bit_ranges(lo: float, hi: float) -> tuple[tuple[int, int], ...]:
    """The bit-pattern ranges of every float32 in [lo, hi] (both zeros when 0 is inside);
    none when no float32 lies in it."""
    if not lo <= hi:
        raise UsageError("--range needs LO <= HI")
    f = np.float32
    with np.errstate(over="ignore"):  # beyond the largest float32: inf, then stepped back
        a, b = f(lo), f(hi)
    if float(a) < lo:  # compared in float64: NumPy would round lo to float32 first (NEP 50)
        a = np.nextafter(a, f(math.inf))
    if float(b) > hi:
        b = np.nextafter(b, f(-math.inf))
    if a > b:  # no float32 lies in [lo, hi]
        return ()

    def bits(v: Any) -> int:
        return int(np.array([v], np.float32).view(np.uint32)[0])

    out = []
    if b >= 0:  # positives (and +0 when 0 is inside): patterns grow with the value
        out.append((bits(a) if a > 0 else 0, bits(b) + 1 if b > 0 else 1))
    if a <= 0:  # negatives (and -0): patterns grow with the magnitude
        out.append((bits(b) if b < 0 else 0x80000000, bits(a) + 1 if a < 0 else 0x80000001))
    return tuple(sorted(out))


__all__ = ["ALL", "BLOCK", "DUMP_HEADER", "CallableFailed", "Job", "MethodPartial", "Partial",
           "dump_parts_dir", "dump_text", "float32_bit_ranges", "load_checkpoint",
           "method_stats", "report", "resolve_method", "run_chunk", "run_job",
           "save_checkpoint"]
