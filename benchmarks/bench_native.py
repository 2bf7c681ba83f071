"""Speed of the compiled det kernels against glibc's scalar float functions and NumPy's ufuncs.

    python benchmarks/bench_native.py [--n 16777216] [--runs 7] [--variant avx2] [--funcs exp,log]
        [--threads T] [--json PATH] [--threshold]
    python benchmarks/bench_native.py --overhead [--funcs exp] [--runs 7] [--json PATH]

2^24 float32 inputs per function (ranges as benchmarks/bench_kernels.py: [-80, 80]
for exp, log-uniform [1e-30, 1e30] for log, [-100, 100] for sin/cos, [-8, 8] for the
activations), every column measured in the same run on the same array, each call writing a
fresh output array: one warm-up call each, then ``--runs`` rounds that time every column once in
a rotating order, each timed call right after an untimed one of the same column
(``timing.interleaved_medians``: since 2026-11-27, as PyTorch's OpenMP workers spin on after
each op and took a core from the column timed next), medians shown. Columns:
* odd: the compiled det kernel's round-to-odd entry point (``det-odd``; ``ulplab.export.native``,
  the chosen build variant);
* det: its correctly rounded float32 entry point (the two-pass runner, first pass then the
  entry point on the flagged inputs), what ``ulplab.det`` and a float32 user call; the ratios
  are det's; its first pass is the kernel's float64 one where it has one
  (``ulplab.export.fast64.FUNCTIONS``: every kernel since 2026-11-26), else its
  float32 one;
* f32p: the same runner with the float32 first pass (``first_pass="float32"``), the runner
  before the float64 passes, for the kernels that have one ("-" for the others: it is det);
  same bits;
* glibc: a C loop calling glibc's float function per element (expf, logf, sinf, cosf, tanhf,
  erff; the activations as their textbook float formula over expf/erff, softplus as
  log1pf(expf(x))), built with the same
  compiler and flags as det (-O3 -ffp-contract=off and the variant's -march), called the same
  way;
* numpy: NumPy's ufunc (exp, log, sin, cos, tanh), or for the activations the NumPy expression
  of the same textbook formula (for gelu the tanh form, for softplus log1p(exp(x)); NumPy has
  no erf: "-").
The default run is the ten functions of the issue's targets (``TARGETS``); ``--funcs`` also
takes the other nine kernels, against glibc's exp2f, log2f, expm1f, log1pf, tanf, 1/sqrtf and
the float formulas of the tanh form of GELU, of 1 - tanh^2 and of Phi(x) + x phi(x), NumPy's
exp2, log2, expm1, log1p, tan ufuncs and expressions (1/sqrt, 1 - tanh^2, the tanh form; none
for gelu_grad), and PyTorch's exp2, log2, expm1, log1p, tan, rsqrt, ``F.gelu(approximate=
"tanh")``, 1 - tanh^2 and ``aten.gelu_backward`` (autograd's kernel, times ones); their ranges:
[-100, 100] for exp2 and tan, [-80, 80] for expm1, log-uniform [1e-30, 1e30] for log2, log1p
and rsqrt, [-8, 8] for the rest.
These four on one thread (``threads=1`` for det). Then, on ``--threads`` T threads (default every
core), in the same rounds on the same array (converted once by ``torch.from_numpy``):
* det T: the float32 entry point on T threads (``ulplab.det``'s default on this machine);
* torch 1, torch T: PyTorch's op (torch.exp, log, sin, cos, tanh, sigmoid, F.silu, F.gelu,
  torch.erf, F.softplus) after ``torch.set_num_threads(1)`` or ``(T)``; det T/torch T is the
  ratio of times;
* scaling: det's time on one thread over its time on T (likewise torch's);
* det/best (printed after the table, ``det_over_best`` in the JSON): det's time on one thread
  over the faster of NumPy's and PyTorch's on one thread (the target of the activations).
OpenMP's threads wait passively (``OMP_WAIT_POLICY=PASSIVE`` unless set): spinning after a torch
op they would hold the cores the next det call needs.
Then the drop-in API on a bfloat16 PyTorch CPU tensor of 2^24 elements: ``det.gelu(t)`` (the
exact lookup, on torch's thread count) against ``torch.nn.functional.gelu(t)`` on the same
tensor, torch set to T threads.
``--json PATH`` writes every figure (seconds and Melem/s) with the machine (``timing.machine``)
so that a README table can be generated from it. ``--threshold``: det exp (float32) and the
bfloat16 gelu lookup at 2^11 to 2^20 elements on one thread and forced onto T (the
``native.MIN_PER_THREAD`` threshold set to one chunk), to see where threads start to pay.
``--overhead`` (instead of the table): where a one-thread call's time goes at 2^12 to 2^24
elements (``overhead``: the runner and its first pass alone, fresh and reused outputs, against
NumPy and a copy), in thread CPU time.
``--loops permutes|gathers`` runs the avx512 builds of log, log2, log1p, softplus and tanh (and
tanh's avx2 build) on one loop whatever the processor (``native.set_fast64_tables``: the
permutes, float32 lanes for log and softplus, tanh's rational function, which AMD processors
run by default, and log's and softplus's avx512 builds on every processor; or gcc's gathers,
which the other processors run for log2, log1p and tanh), ``--lookup
gathers|scalar`` the 16-bit lookup likewise (``native.set_lookup_gathers``); the JSON records
them (``avx512_loops``, ``lookup``). On the 2-core AMD EPYC VM the gather loops took log 2.10×
NumPy's time and softplus 1.84× the faster peer's (one thread, 2^24), against 0.95–1.00 and
0.92–0.96 on the vendor's choice.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from timing import cpu_isa, interleaved_medians, machine

GLIBC = {  # C expression over x (float) per function
    "exp": "expf(x)", "log": "logf(x)", "sin": "sinf(x)", "cos": "cosf(x)",
    "tanh": "tanhf(x)", "sigmoid": "1.0f / (1.0f + expf(-x))",
    "silu": "x / (1.0f + expf(-x))",
    "gelu": "0.5f * x * (1.0f + erff(x * 0x1.6a09e6p-1f))",
    "erf": "erff(x)", "softplus": "log1pf(expf(x))",
    # the kernels outside the issue's target table (``--funcs``; not in the default run)
    "exp2": "exp2f(x)", "log2": "log2f(x)", "expm1": "expm1f(x)", "log1p": "log1pf(x)",
    "tan": "tanf(x)", "rsqrt": "1.0f / sqrtf(x)",
    "gelu_tanh": "0.5f * x * (1.0f + tanhf(0x1.988454p-1f * (x + 0.044715f * x * x * x)))",
    "tanh_grad": "1.0f - tanhf(x) * tanhf(x)",
    "gelu_grad": "0.5f * (1.0f + erff(x * 0x1.6a09e6p-1f)) + x * 0x1.988454p-2f"
                 " * expf(-0.5f * x * x)",
}
TARGETS = ("exp", "log", "sin", "cos", "tanh", "sigmoid", "silu", "gelu", "erf", "softplus")
"""The functions of the issue's target table: the default ``--funcs``."""
RANGES: dict[str, Callable[[np.random.Generator, int], np.ndarray]] = {
    "exp": lambda r, n: r.uniform(-80, 80, n), "log": lambda r, n: 10.0 ** r.uniform(-30, 30, n),
    "sin": lambda r, n: r.uniform(-100, 100, n), "cos": lambda r, n: r.uniform(-100, 100, n),
    "act": lambda r, n: r.uniform(-8, 8, n),
    "exp2": lambda r, n: r.uniform(-100, 100, n), "expm1": lambda r, n: r.uniform(-80, 80, n),
    "log2": lambda r, n: 10.0 ** r.uniform(-30, 30, n),
    "log1p": lambda r, n: 10.0 ** r.uniform(-30, 30, n),
    "rsqrt": lambda r, n: 10.0 ** r.uniform(-30, 30, n),
    "tan": lambda r, n: r.uniform(-100, 100, n)}
"""The inputs' ranges (``--overhead``; the main table draws the same ranges in one stream)."""
C_KAPPA = np.float32(0.7978845608028654)  # sqrt(2/pi), the tanh form's constant
NUMPY = {
    "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "sigmoid": lambda x: np.float32(1) / (np.float32(1) + np.exp(-x)),
    "silu": lambda x: x / (np.float32(1) + np.exp(-x)),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "gelu": lambda x: np.float32(0.5) * x * (np.float32(1) + np.tanh(
        C_KAPPA * (x + np.float32(0.044715) * x * x * x))),
    "exp2": np.exp2, "log2": np.log2, "expm1": np.expm1, "log1p": np.log1p, "tan": np.tan,
    "rsqrt": lambda x: np.float32(1) / np.sqrt(x),
    "tanh_grad": lambda x: np.float32(1) - np.square(np.tanh(x)),
}
NUMPY["gelu_tanh"] = NUMPY["gelu"]



LOOPS = {"vendor": -1, "permutes": 1, "gathers": 0}
"""``--loops``: the argument of ``native.set_fast64_tables`` for each choice."""

LOOKUPS = {"vendor": -1, "gathers": 1, "scalar": 0}
"""``--lookup``: the argument of ``native.set_lookup_gathers`` for each choice."""

FORCED_LOOPS: int | None = None
"""The loop ``--loops`` forced (1 or 0), or None: the processor's choice."""


def choose_loops(loops: str, lookup: str) -> dict[str, str]:
    """Set the avx512 builds' loops (``--loops``) and the lookup's (``--lookup``) for this
    process; what the JSON records of them (only where they are not the processor's
    choice)."""
    from ulplab.export import fast64, native

    global FORCED_LOOPS
    out = {}
    if loops != "vendor":
        for func in fast64.AVX512_PATHS:
            native.set_fast64_tables(func, "avx512", LOOPS[loops])
        if native.best_variant() == "avx2":
            for func in fast64.AVX2_PATHS:
                native.set_fast64_tables(func, "avx2", LOOPS[loops])
        out["avx512_loops"] = loops
        FORCED_LOOPS = LOOPS[loops]
    if lookup != "vendor":
        native.set_lookup_gathers(LOOKUPS[lookup])
        out["lookup"] = lookup
    return out


def permute_loop(func: str, variant: str) -> bool:
    """Whether ``func``'s pass runs its ``variant`` build's AMD loop (the tables read by
    permutes, or tanh's rational function: ``fast64.two_loops``; the default, by the vendor
    or everywhere: ``fast64.amd_everywhere``) on this processor."""
    from ulplab.export import fast64, native

    if not fast64.two_loops(func, variant):
        return False
    if FORCED_LOOPS is not None:
        return FORCED_LOOPS == 1
    return native.set_fast64_tables(func, variant, -1) == 1

def glibc_kernels(flags: list[str], cc: str) -> ctypes.CDLL:
    src = ["#include <math.h>"]
    for name, expr in GLIBC.items():
        src.append(f"void peer_{name}(const float *restrict xs, float *restrict y, long n) "
                   f"{{ for (long i = 0; i < n; i++) {{ const float x = xs[i]; "
                   f"y[i] = {expr}; }} }}")
    d = Path(tempfile.mkdtemp(prefix="ulplab-bench-"))
    (d / "peer.c").write_text("\n".join(src) + "\n")
    subprocess.run([cc, *flags, str(d / "peer.c"), "-o", str(d / "peer.so"), "-lm"], check=True)
    return ctypes.CDLL(str(d / "peer.so"))




def torch_ops() -> dict[str, Callable[[Any], Any]]:
    """PyTorch's op for each function (empty where PyTorch is not installed)."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return {}
    return {"exp": torch.exp, "log": torch.log, "sin": torch.sin, "cos": torch.cos,
            "tanh": torch.tanh, "sigmoid": torch.sigmoid, "silu": F.silu, "gelu": F.gelu,
            "erf": torch.erf, "softplus": F.softplus,
            "exp2": torch.exp2, "log2": torch.log2, "expm1": torch.expm1,
            "log1p": torch.log1p, "tan": torch.tan, "rsqrt": torch.rsqrt,
            "gelu_tanh": partial(F.gelu, approximate="tanh"),
            "tanh_grad": lambda t: 1 - torch.tanh(t).square(),
            # autograd's own kernel for gelu's derivative (times an output gradient of ones)
            "gelu_grad": lambda t: torch.ops.aten.gelu_backward(torch.ones_like(t), t)}


def on_threads(op: Callable[[Any], Any], threads: int) -> Callable[[Any], Any]:
    """``op`` run after ``torch.set_num_threads(threads)`` (every call: the rounds interleave
    the thread counts)."""
    import torch

    def run(t: Any) -> Any:
        torch.set_num_threads(threads)
        return op(t)

    return run


def peer_simd() -> dict[str, str | None]:
    """The SIMD level NumPy's ufuncs and PyTorch's ops dispatch to on this machine (they follow
    ``NPY_DISABLE_CPU_FEATURES`` and ``ATEN_CPU_CAPABILITY``: an AVX-512 machine measured as an
    AVX2 one runs with ``ULPLAB_MAX_ISA=avx2 NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL
    AVX512_SPR" ATEN_CPU_CAPABILITY=avx2``)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:
        features = {}
    levels = ("AVX512_SPR", "AVX512_ICL", "X86_V4", "AVX512_SKX", "X86_V3", "AVX2")
    numpy_level = next((name for name in levels if features.get(name)), None)
    try:
        import torch

        torch_level: str | None = torch.backends.cpu.get_cpu_capability()
    except (ImportError, AttributeError):
        torch_level = None
    return {"numpy": numpy_level, "torch": torch_level}


def melem(n: int, seconds: float | None) -> str:
    return "     -" if seconds is None else f"{n / seconds / 1e6:6.0f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--variant", default=None, help="native build variant (default: best)")
    ap.add_argument("--funcs", default=",".join(TARGETS),
                    help=f"comma-separated subset of {','.join(GLIBC)} (default: "
                         f"{','.join(TARGETS)})")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="threads of the all-thread columns (default: every core)")
    ap.add_argument("--json", default=None, metavar="PATH", help="write every figure here")
    ap.add_argument("--threshold", action="store_true",
                    help="also time 2^11..2^20 elements on 1 and T threads")
    ap.add_argument("--overhead", action="store_true",
                    help="only: where a one-thread call's time goes, 2^12..2^24 elements")
    ap.add_argument("--bfloat16-only", action="store_true",
                    help="only: det.gelu against F.gelu on a bfloat16 tensor (all threads)")
    ap.add_argument("--reused-output", action="store_true",
                    help="also time det into a reused output (out=) on 1 and T threads: the "
                         "scaling without the fresh output's page faults")
    from ulplab.export import fast64

    ap.add_argument("--loops", choices=sorted(LOOPS), default="vendor",
                    help="which loop the avx512 builds of " + ",".join(fast64.AVX512_PATHS)
                         + " run: the processor's choice (default), the one with permutes "
                           "(float32 lanes for log and softplus) or gcc's with gathers")
    ap.add_argument("--lookup", choices=sorted(LOOKUPS), default="vendor",
                    help="the 16-bit lookup's loop (bfloat16, float16): the processor's "
                         "choice (default), gathers or the scalar loop")
    args = ap.parse_args()
    funcs = args.funcs.split(",")
    if (not funcs or not set(funcs) <= set(GLIBC) or args.n < 1 or args.runs < 1
            or args.threads < 1):
        ap.error(f"--funcs takes names from {','.join(GLIBC)}; --n, --runs and --threads "
                 "positive")
    if args.json:
        from ulplab.errors import UsageError
        from ulplab.files import check_writable

        try:
            check_writable(args.json)
        except UsageError as exc:
            ap.error(str(exc))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    choices = choose_loops(args.loops, args.lookup)
    if args.overhead:
        rows = {f: overhead(f, args.runs) for f in funcs}
        if args.json:
            from ulplab.files import write_json

            write_json(args.json, {"machine": machine(), "peer_simd": peer_simd(),
                                   "runs": args.runs, "overhead": rows, **choices})
            print(f"figures written to {args.json}")
        return
    if args.bfloat16_only:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        row = bfloat16_torch(args.n, args.runs, args.threads)
        if args.json:
            from ulplab.files import write_json

            write_json(args.json, {"machine": machine(), "n": args.n, "runs": args.runs,
                                   "bfloat16_gelu": row, **choices})
            print(f"figures written to {args.json}")
        return
    # torch's OpenMP threads otherwise spin for milliseconds after each op, holding the cores
    # that the det call timed next needs (measured: 2^20 elements, det on 2 threads right after
    # torch.exp took 2256 us, no faster than one thread; 1275 us with PASSIVE)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from ulplab.export import native
    from ulplab.kernels import registry

    variant = args.variant or native.best_variant()
    flags = [*native.BASE_FLAGS, *native.VARIANTS[variant][0]]
    lib = glibc_kernels(flags, native.compiler())
    rng = np.random.default_rng(0)
    n = args.n
    ranges = {"exp": rng.uniform(-80, 80, n), "log": 10.0 ** rng.uniform(-30, 30, n),
              "sin": rng.uniform(-100, 100, n), "cos": rng.uniform(-100, 100, n)}
    act = rng.uniform(-8, 8, n)
    for func in funcs:  # the other kernels' ranges, drawn after the target table's
        if func not in ranges and func in RANGES:
            ranges[func] = RANGES[func](rng, n)
    threads = args.threads
    ops = torch_ops()
    if ops:
        import torch

        torch_threads = torch.get_num_threads()
    capped = min(threads, native.cpu_count())
    print(f"n = {n}, variant {variant}, flags {' '.join(flags)}; Melem/s (median of {args.runs}"
          f" interleaved rounds); T = {threads} threads" + (
              f" (det capped at {capped} cores)" if capped < threads else ""))
    simd = peer_simd()
    print(f"CPU: {cpu_isa()}, {os.cpu_count()} cores; NumPy dispatches to {simd['numpy']}, "
          f"PyTorch to {simd['torch']}")
    print(f"{'':<9} {'------------- one thread -------------':>37}  {'time ratios':>20}   "
          f"{'---------- T threads ----------':>31}  {'det T/':>6}  {'scaling 1->T':>12}")
    print(f"{'function':<9} {'odd':>6} {'det':>6} {'f32p':>6} {'glibc':>6} {'numpy':>6}  "
          f"{'/glibc':>6} {'/numpy':>6} {'f32p/np':>7}   {'det T':>6} {'torch1':>6} "
          f"{'torchT':>6}  {'torchT':>6}  {'det':>5} {'torch':>6}")
    record: dict[str, Any] = {"machine": machine(), "peer_simd": simd, "n": n,
                              "runs": args.runs, **choices,
                              "variant": variant, "flags": flags, "threads": threads,
                              "functions": {}}
    for func in funcs:
        x = ranges.get(func, act).astype(np.float32)
        det = native.kernel(func, variant, "odd")
        det32 = native.kernel(func, variant, "float32")
        det32_f32p = native.kernel(func, variant, "float32", first_pass="float32")
        peer = getattr(lib, f"peer_{func}")

        def glibc(x: np.ndarray, peer=peer) -> np.ndarray:
            out = np.empty_like(x)
            peer(ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(out.ctypes.data),
                 ctypes.c_long(x.size))
            return out

        fns = {"odd": partial(det, x, threads=1), "det": partial(det32, x, threads=1),
               "glibc": partial(glibc, x), "det_T": partial(det32, x, threads=threads)}
        if func in fast64.FUNCTIONS:
            fns["f32p"] = partial(det32_f32p, x, threads=1)
        if args.reused_output:
            reused = np.empty_like(x)
            fns["det_out"] = partial(det32, x, out=reused, threads=1)
            fns["det_T_out"] = partial(det32, x, out=reused, threads=threads)
        if func in NUMPY:
            fns["numpy"] = partial(NUMPY[func], x)
        if func in ops:
            tx = torch.from_numpy(x)
            fns["torch_1"] = partial(on_threads(ops[func], 1), tx)
            fns["torch_T"] = partial(on_threads(ops[func], threads), tx)
        with np.errstate(all="ignore"):
            t: dict[str, Any] = interleaved_medians(fns, args.runs)
        if ops:
            torch.set_num_threads(torch_threads)
        t_np, t_1, t_tt = t.get("numpy"), t.get("torch_1"), t.get("torch_T")
        peers = [v for v in (t_np, t_1) if v is not None]
        best = min(peers) if peers else None
        ratio_np = "     -" if t_np is None else f"{t['det'] / t_np:6.2f}"
        t_f32p = t.get("f32p")
        ratio_f32p = ("      -" if t_np is None or t_f32p is None
                      else f"{t_f32p / t_np:7.2f}")
        vs_torch = "     -" if t_tt is None else f"{t['det_T'] / t_tt:6.2f}"
        torch_scaling = "     -" if t_1 is None or t_tt is None else f"{t_1 / t_tt:6.2f}"
        print(f"{func:<9} {melem(n, t['odd'])} {melem(n, t['det'])} {melem(n, t_f32p)} "
              f"{melem(n, t['glibc'])} {melem(n, t_np)}  {t['det'] / t['glibc']:6.2f} "
              f"{ratio_np} {ratio_f32p}   "
              f"{melem(n, t['det_T'])} {melem(n, t_1)} {melem(n, t_tt)}  {vs_torch}  "
              f"{t['det'] / t['det_T']:5.2f} {torch_scaling}", flush=True)
        record["functions"][func] = {
            "seconds": t, "melem_per_s": {k: n / v / 1e6 for k, v in t.items()},
            "first_pass": fast64.description(func, "fma" in native.VARIANTS[variant][1],
                                             permute_loop(func, variant))
            if func in fast64.FUNCTIONS else (
                "float32" if registry.get(func).first_pass else "fast rounding mode"),
            "det_over_numpy": None if t_np is None else t["det"] / t_np,
            "det_over_torch_1": None if t_1 is None else t["det"] / t_1,
            "det_over_best": None if best is None else t["det"] / best,
            "f32p_over_numpy": None if t_np is None or t_f32p is None else t_f32p / t_np,
            "det_T_over_torch_T": None if t_tt is None else t["det_T"] / t_tt,
            "det_scaling": t["det"] / t["det_T"],
            "torch_scaling": None if t_1 is None or t_tt is None else t_1 / t_tt}
        if args.reused_output:
            record["functions"][func]["det_out_scaling"] = t["det_out"] / t["det_T_out"]

    print("det/best (one thread, against the faster of NumPy and PyTorch): " + ", ".join(
        f"{f} {r['det_over_best']:.2f}" for f, r in record["functions"].items()
        if r["det_over_best"] is not None))
    if args.reused_output:
        print("det into a reused output (out=), 1 -> T scaling: " + ", ".join(
            f"{f} {r['det_out_scaling']:.2f}" for f, r in record["functions"].items()))
    record["bfloat16_gelu"] = bfloat16_torch(n, args.runs, threads)
    if args.threshold:
        record["threshold"] = threshold(native, threads, args.runs)
    if args.json:
        from ulplab.files import write_json

        write_json(args.json, record)
        print(f"figures written to {args.json}")


def bfloat16_torch(n: int, runs: int, threads: int) -> dict[str, float | int] | None:
    """det.gelu against F.gelu on a bfloat16 tensor, torch on ``threads`` threads (det follows
    torch's count)."""
    try:
        import torch
    except ImportError:
        print("torch not installed: no bfloat16 tensor row")
        return None
    from ulplab import det

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    t = (torch.rand(n, generator=torch.Generator().manual_seed(0)) * 16 - 8).to(torch.bfloat16)
    # interleaved (since 2026-11-27): timed one after the other, a slow spell of the shared VM
    # fell on one of them alone (ratios 0.60-0.62 in two runs, 0.36-0.43 in the others)
    medians = interleaved_medians({"det": lambda: det.gelu(t),
                                   "torch": lambda: torch.nn.functional.gelu(t)}, runs)
    t_det, t_torch = medians["det"], medians["torch"]
    torch.set_num_threads(before)
    print(f"bfloat16 torch CPU tensor, n = {n}, {threads} torch threads: "
          f"det.gelu {t_det * 1e3:.1f} ms, F.gelu {t_torch * 1e3:.1f} ms, "
          f"ratio {t_det / t_torch:.2f}")
    return {"torch_threads": threads, "det_gelu_s": t_det,
            "torch_gelu_s": t_torch, "ratio": t_det / t_torch}


def overhead(func: str, runs: int) -> list[dict[str, float | int]]:
    """Where one-thread time goes at 2^12 to 2^24 elements, in ns per element: det's runner and
    its first pass alone, each into a fresh output array and into a reused one (``out=``),
    against NumPy's ufunc (or expression) likewise and a plain copy (the memory traffic and
    page faults of a fresh output, no arithmetic). Medians of ``runs`` interleaved rounds of the
    calling thread's CPU time (``time.thread_time``: the page faults the kernel serves for it
    count, the time it waits for a core on a shared machine does not), short calls timed many
    at a time."""
    from ulplab.export import fast64, native

    kern = native.kernel(func)
    first = native._float32_passes(func, native.best_variant())[0]
    peer = NUMPY.get(func)  # None for erf: NumPy has none; its columns print as "-"
    ufunc = peer if isinstance(peer, np.ufunc) else None
    fma = "fma" in native.VARIANTS[native.best_variant()][1]
    label = (fast64.description(func, fma, permute_loop(func, native.best_variant()))
             if func in fast64.FUNCTIONS else "float32")
    print(f"{func}: ns per element (thread CPU time) on one thread, fresh output / reused "
          f"output (out=); first pass: {label}")
    print(f"{'n':>9} {'det':>6} {'det out':>7} {'pass':>6} {'pass out':>8} {'numpy':>6} "
          f"{'np out':>6} {'copy':>6} {'copyto':>6}")
    rows = []
    for k in range(12, 25, 2):
        n = 1 << k
        x = RANGES.get(func, RANGES["act"])(np.random.default_rng(k), n).astype(np.float32)
        y = np.empty_like(x)

        def pass_fresh(x: np.ndarray = x) -> np.ndarray:
            out = np.empty_like(x)
            first(x.ctypes.data, out.ctypes.data, x.size)
            return out

        def np_out(x: np.ndarray = x, y: np.ndarray = y) -> object:
            return ufunc(x, out=y) if ufunc is not None else np.copyto(y, peer(x))

        fns = {"det": partial(kern, x, threads=1), "det_out": partial(kern, x, y, threads=1),
               "pass": pass_fresh,
               "pass_out": partial(first, x.ctypes.data, y.ctypes.data, n),
               "copy": x.copy, "copyto": partial(np.copyto, y, x)}
        if peer is not None:
            fns |= {"numpy": partial(peer, x), "numpy_out": np_out}
        reps = max(1, (1 << 22) // n)
        samples: dict[str, list[float]] = {name: [] for name in fns}
        with np.errstate(all="ignore"):
            for fn in fns.values():
                fn()
            for r in range(runs):
                names = list(fns)[r % len(fns):] + list(fns)[:r % len(fns)]
                for name in names:
                    fn = fns[name]
                    t0 = time.thread_time()
                    for _ in range(reps):
                        fn()
                    samples[name].append((time.thread_time() - t0) / reps)
        ns = {name: sorted(v)[len(v) // 2] / n * 1e9 for name, v in samples.items()}
        cells = {k: f"{v:.2f}" for k, v in ns.items()}
        print(f"{n:>9} {cells['det']:>6} {cells['det_out']:>7} {cells['pass']:>6} "
              f"{cells['pass_out']:>8} {cells.get('numpy', '-'):>6} "
              f"{cells.get('numpy_out', '-'):>6} {cells['copy']:>6} {cells['copyto']:>6}",
              flush=True)
        rows.append({"n": n, **ns})
    return rows


def per_call(fn: Callable[[], Any], n: int, runs: int) -> float:
    """Median seconds of one ``fn()`` call, each of ``runs`` samples timing a loop of about
    2^22 elements' worth of calls (short calls are timed many at a time)."""
    reps = max(1, (1 << 22) // n)
    fn()
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        samples.append((time.perf_counter() - t) / reps)
    samples.sort()
    return samples[len(samples) // 2]


def threshold(native: Any, threads: int, runs: int) -> list[dict[str, float | int]]:
    """One thread against ``threads`` forced on (``MIN_PER_THREAD`` and its lookup twin set to
    one chunk) for det exp (float32) and the bfloat16 gelu lookup, 2^11 to 2^20 elements."""
    import ml_dtypes

    from ulplab import det

    kern = native.kernel("exp")
    tab = det.table("gelu", "bfloat16")
    rows = []
    saved = native.MIN_PER_THREAD, native.MIN_PER_THREAD_LOOKUP
    print(f"threshold: microseconds per call, 1 thread vs {threads} (forced)")
    print(f"{'n':>8} {'exp 1':>8} {'exp T':>8} {'T/1':>5}   {'lookup 1':>8} {'lookup T':>8} "
          f"{'T/1':>5}")
    try:
        for k in range(11, 21):
            n = 1 << k
            x = np.random.default_rng(k).uniform(-80, 80, n).astype(np.float32)
            idx = x.astype(ml_dtypes.bfloat16).view(np.uint16)
            native.MIN_PER_THREAD = native.MIN_PER_THREAD_LOOKUP = native.CHUNK
            t = {"exp_1": per_call(partial(kern, x, threads=1), n, runs),
                 "exp_T": per_call(partial(kern, x, threads=threads), n, runs),
                 "lookup_1": per_call(partial(native.lookup, tab, idx, 1), n, runs),
                 "lookup_T": per_call(partial(native.lookup, tab, idx, threads), n, runs)}
            native.MIN_PER_THREAD, native.MIN_PER_THREAD_LOOKUP = saved
            print(f"{n:>8} {t['exp_1'] * 1e6:8.1f} {t['exp_T'] * 1e6:8.1f} "
                  f"{t['exp_T'] / t['exp_1']:5.2f}   {t['lookup_1'] * 1e6:8.1f} "
                  f"{t['lookup_T'] * 1e6:8.1f} {t['lookup_T'] / t['lookup_1']:5.2f}", flush=True)
            rows.append({"n": n, **t})
    finally:
        native.MIN_PER_THREAD, native.MIN_PER_THREAD_LOOKUP = saved
    return rows


if __name__ == "__main__":
    main()
