"""The compiled float32 runner against the one-pass build of the float32 entry point, on every
float32 input.

    python benchmarks/verify_native.py FUNC [FUNC ...] [--rounding float32|odd] [--log2-chunk 24]
        [--first-pass float64|float32] [--variants avx512,avx2,portable] [--threads T]
        [--log2-inputs 32]
    python benchmarks/verify_native.py --fast64 [FUNC ...] [--variants ...] [--record PATH]
    python benchmarks/verify_native.py --runner [FUNC ...] [--variants ...] [--record PATH]

``ulplab.export.native.kernel(FUNC, rounding="float32")`` runs two passes (the first pass: the
kernel's float64 one, ``ulplab.export.fast64``, where it has one, else its float32 one,
``KERNELS[..]["first_pass"]``, or without one the kernel in the ``fast`` rounding mode; then the
whole entry point on the results it flagged) and, for tan, a fast-path build on chunks of small
inputs. This script compares its output, bit for
bit, with the one-pass C build of the whole entry point (nearest rounding and exception table
on every input: the build the golden hashes and the exhaustive oracle sweeps hold; built for the
best variant this machine runs, whatever the variant under test, since the portable build's
software fmaf makes it about ten times slower) on all 2^32 bit patterns, both native and on
``--threads`` threads (default every core), and prints the mismatches (none expected) and how
many results the first pass flagged per build variant (default: the best this machine runs;
``--variants`` names others, each of which the machine must run; all of them are swept
together, the entry point computed once per chunk), and the time.

``--fast64``: the proof of the float64 first passes, ``--first-pass float64`` over every variant
the machine runs (avx512, avx2, portable; ``ULPLAB_MAX_ISA`` caps them) for every kernel of
``ulplab.export.fast64.FUNCTIONS`` (or those named), each full sweep recorded in ``--record``
(default ``benchmarks/results/native/fast64-proofs.json``: kernel, variant, the kernel's golden
float32 hash, the SHA-256 of the float64 pass's C source, inputs, mismatches, flagged, seconds,
threads, the variants swept together, date, CPU, compiler; a build with two loops,
``fast64.two_loops``, is swept with each, its mismatches summed and each loop's counts under
``paths``), which ``python -m ulplab.analysis.kernel_registry --write --fast64-record PATH``
copies into
``registry.json`` (``fast64_proofs``). ``--runner``: the same for the kernels without a float64
first pass (their runner's first pass is the float32 one: ``native._float32_pass_specs``), the
record ``benchmarks/results/native/runner-proofs.json`` naming the SHA-256 of that pass's C
source (``native.float32_pass_sha256``), read by ``kernel_registry --runner-record PATH``
(``runner_proofs``). ``--log2-inputs K`` below 32 sweeps every 2^(32-K)-th
bit pattern only (a quick check; never recorded). Exit status 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

RECORD = Path(__file__).resolve().parent / "results" / "native" / "fast64-proofs.json"
RUNNER_RECORD = RECORD.with_name("runner-proofs.json")


def verify(func: str, rounding: str, log2_chunk: int, variants: list[str],
           first_pass: str = "float64", threads: int | None = None,
           log2_inputs: int = 32) -> dict[str, dict[str, Any]]:
    """Sweep ``func``'s runner built for each of ``variants`` against its one-pass entry point
    (computed once per chunk for all of them); returns per variant the counts (inputs,
    mismatches, flagged where the runner has a first pass) and the seconds of the sweep; an
    build with two loops (``fast64.two_loops``) is swept with each, its mismatches
    summed and each loop's counts under ``paths``."""
    from ulplab.export import fast64, native
    from ulplab.kernels.core import FLAG_NAN

    count = native.resolve_threads(threads)
    one_pass = native._entry(func, native.best_variant(), rounding)
    runners = {v: native.kernel(func, v, rounding, first_pass) for v in variants}
    firsts = {v: native._float32_passes(func, v, first_pass)[0] for v in variants
              } if rounding == "float32" else {}
    total = 1 << log2_inputs
    n = min(1 << log2_chunk, total)
    stride = 1 << (32 - log2_inputs)
    got, want, flags = (np.empty(n, np.float32) for _ in range(3))
    w_at, f_at = want.ctypes.data, flags.ctypes.data
    # a build with two loops (fast64.two_loops) is swept with each: 0, the tables by gathers;
    # 1, the AMD loop (by permutes, or tanh's rational function)
    paths = {v: (0, 1) if (first_pass == "float64" and fast64.two_loops(func, v))
             else (None,) for v in variants}
    keys = [(v, p) for v in variants for p in paths[v]]
    bad = dict.fromkeys(keys, 0)
    flagged = dict.fromkeys(keys, 0)
    start = time.perf_counter()
    base = np.arange(n, dtype=np.uint32) * np.uint32(stride)
    for c in range(total // n):
        x = (base + np.uint32(c * n * stride)).view(np.float32)  # c * n * stride < 2^32
        x_at = x.ctypes.data

        def whole(lo: int, hi: int, x_at: int = x_at) -> None:
            one_pass(x_at + 4 * lo, w_at + 4 * lo, hi - lo)

        native.run_sliced(whole, n, count)
        for v, p in keys:
            if p is not None:
                native.set_fast64_tables(func, v, p)
            runners[v](x, got, threads=count)
            diff = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
            if diff.size:
                bad[v, p] += diff.size
                i = int(diff[0])
                print(f"  {func} ({_label(func, v, p)}): {diff.size} mismatches in chunk {c}; "
                      f"first "
                      f"x = {float(x[i]).hex()} (0x{int(x.view(np.uint32)[i]):08x}): got "
                      f"{float(got[i]).hex()}, want {float(want[i]).hex()}", flush=True)
            if v in firsts:
                def first_only(lo: int, hi: int, fn: Any = firsts[v], x_at: int = x_at) -> None:
                    fn(x_at + 4 * lo, f_at + 4 * lo, hi - lo)

                native.run_sliced(first_only, n, count)
                flagged[v, p] += int(np.count_nonzero((flags.view(np.uint32)
                                                       & np.uint32(0x7FFFFFFF)) == FLAG_NAN))
    for v, p in keys:
        if p is not None:
            native.set_fast64_tables(func, v, -1)
    secs = time.perf_counter() - start
    span = "all 2^32 inputs" if log2_inputs == 32 else f"2^{log2_inputs} inputs (stride {stride})"
    out = {}
    for v, p in keys:
        share = (f", first pass ({first_pass}) flagged {flagged[v, p]:,} "
                 f"({flagged[v, p] / total:.1e})" if v in firsts else "")
        print(f"{func} ({rounding}, {_label(func, v, p)}): {bad[v, p]} mismatches over "
              f"{span}{share}",
              flush=True)
    for v in variants:
        first = paths[v][0]
        out[v] = {"inputs": total, "mismatches": sum(bad[v, p] for p in paths[v]),
                  "flagged": flagged[v, first] if v in firsts else None}
        if first is not None:
            out[v]["paths"] = {_path_name(func, p): {"mismatches": bad[v, p],
                                                     "flagged": flagged[v, p]}
                               for p in paths[v]}
    print(f"{func}: {len(variants)} variants swept on {count} threads in {secs:.0f} s",
          flush=True)
    for v in variants:
        out[v] |= {"seconds": round(secs, 1), "threads": count, "variants_together": variants}
    return out


def _path_name(func: str, path: int) -> str:
    """The name of loop ``path`` of a two-loop build (``native.set_fast64_tables``'s argument):
    0 "gathers", 1 the AMD loop (``fast64.amd_loop``: "permutes", or tanh's "rational")."""
    from ulplab.export import fast64

    return "gathers" if path == 0 else fast64.amd_loop(func)


def _label(func: str, variant: str, path: int | None) -> str:
    if path is None:
        return variant
    name = _path_name(func, path)
    return f"{variant}, {'rational function' if name == 'rational' else 'tables by ' + name}"


def record_fast64(path: Path, func: str, variant: str, result: dict[str, Any],
                  runner: bool = False) -> None:
    """Add one full sweep of ``func``'s float64 first pass on ``variant`` to ``path`` (or, with
    ``runner``, of its float32 first pass: ``--runner``)."""
    from ulplab.export import fast64, native
    from ulplab.files import write_json
    from ulplab.kernels import registry

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from timing import cpu_isa

    doc = json.loads(path.read_text()) if path.is_file() else {}
    key, sha = (("pass_source_sha256", native.float32_pass_sha256(func)) if runner
                else ("fast64_source_sha256", fast64.source_sha256(func)))
    doc.setdefault("kernels", {}).setdefault(func, {})[variant] = {
        "golden": registry.get(func).golden["float32"],
        key: sha,
        **result,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cpu": cpu_isa(), "compiler": native._compiler_id(native.compiler()),
        "command": f"python benchmarks/verify_native.py {'--runner' if runner else '--fast64'} "
                   f"{func} --variants {','.join(result['variants_together'])}"}
    write_json(path, doc)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("functions", nargs="*")
    ap.add_argument("--rounding", default="float32", choices=("float32", "odd"))
    ap.add_argument("--first-pass", default="float64", choices=("float64", "float32"))
    ap.add_argument("--log2-chunk", type=int, default=24)
    ap.add_argument("--log2-inputs", type=int, default=32)
    ap.add_argument("--variants", default=None,
                    help="comma-separated build variants (default: the best; --fast64: all "
                         "this machine runs)")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--fast64", action="store_true",
                    help="prove the float64 first passes on every variant and record it")
    ap.add_argument("--runner", action="store_true",
                    help="prove the runner of the kernels without a float64 first pass (their "
                         "float32 one) on every variant and record it")
    ap.add_argument("--record", default=None,
                    help="--fast64's or --runner's JSON record (default: "
                         "benchmarks/results/native/fast64-proofs.json or runner-proofs.json)")
    args = ap.parse_args()
    from ulplab.errors import UsageError
    from ulplab.export import fast64, native
    from ulplab.kernels import registry

    det = registry.functions()
    if args.fast64 and args.runner:
        ap.error("--fast64 and --runner prove different passes: name one")
    without = [f for f in det if f not in fast64.FUNCTIONS]
    if args.runner and not without:
        ap.error("every kernel has a float64 first pass: --runner has none left to prove "
                 "(--fast64 proves their runners)")
    funcs = args.functions or (list(fast64.FUNCTIONS) if args.fast64 else
                               without if args.runner else [])
    if not funcs:
        ap.error("name at least one function (or --fast64, --runner)")
    for f in funcs:
        if f not in det:
            ap.error(f"no det kernel for {f!r}; valid: {', '.join(det)}")
        if args.fast64 and f not in fast64.FUNCTIONS:
            ap.error(f"no float64 first pass for {f!r}; valid: {', '.join(fast64.FUNCTIONS)}")
        if args.runner and f in fast64.FUNCTIONS:
            ap.error(f"{f!r} has a float64 first pass (--fast64 proves its runner); valid: "
                     f"{', '.join(without)}")
    if not 12 <= args.log2_chunk <= 28:
        ap.error(f"--log2-chunk must be in [12, 28], not {args.log2_chunk}")
    if not 12 <= args.log2_inputs <= 32:
        ap.error(f"--log2-inputs must be in [12, 32], not {args.log2_inputs}")
    if args.threads is not None and args.threads < 1:
        ap.error(f"--threads must be positive, not {args.threads}")
    try:
        runnable = [v for v in native.runnable_variants() if v != "O0"]
    except UsageError as exc:
        ap.error(str(exc))
    variants = (args.variants.split(",") if args.variants
                else runnable if args.fast64 or args.runner else runnable[:1])
    for v in variants:
        if v not in runnable:
            ap.error(f"variant {v!r} does not run here; valid: {', '.join(runnable)}")
    if (args.fast64 or args.runner) and args.rounding != "float32":
        ap.error("--fast64 and --runner prove the float32 entry point: no --rounding odd")
    first_pass = "float64" if args.fast64 else "float32" if args.runner else args.first_pass
    record = Path(args.record) if args.record else RUNNER_RECORD if args.runner else RECORD
    bad = 0
    for f in funcs:
        results = verify(f, args.rounding, args.log2_chunk, variants, first_pass, args.threads,
                         args.log2_inputs)
        for v, result in results.items():
            bad += result["mismatches"]
            if (args.fast64 or args.runner) and args.log2_inputs == 32:
                record_fast64(record, f, v, result, runner=args.runner)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
