"""Generate the kernel registry's data (``ulplab/kernels/registry.json``) and its proofs.

    python -m ulplab.analysis.kernel_registry --check          # does registry.json agree?
    python -m ulplab.analysis.kernel_registry --write          # regenerate it (keeps proofs)
    python -m ulplab.analysis.kernel_registry --write --prove  # and re-prove every narrow format
    python -m ulplab.analysis.kernel_registry --write --float32-records DIR
    python -m ulplab.analysis.kernel_registry --write --fast64-record \
        benchmarks/results/native/fast64-proofs.json

What it reads: every kernel module's ``KERNELS`` entry (``ulplab.kernels.registry.declared``:
function, module, first pass, fast path, idea), each function's derivative
(``ulplab.functions``: ``Function.derivative``, kept where that function has a kernel), the
exception tables, and the golden hash of both entry points (``ulplab.kernels.golden``).

Proofs. A narrow format (every format of ``EXHAUSTIVE_FORMATS``: bfloat16, float16 and the
fp8/fp6/fp4 formats) is proved by ``prove``: ``ulplab.det.table`` — exactly what ``det.FUNC``
returns for that format — compared with the oracle (nearest-even, IEEE subnormals) on every
input; a mismatch is any result whose bits differ (signed zeros differ; two NaNs agree). float32
is proved by the exhaustive sweep over all 2^32 inputs (``ulplab analyze FUNC --format float32
--method det --exhaustive``), whose JSON records are read with ``--float32-records DIR`` (a
record counts when it covers 4,294,967,296 inputs with max ULP 0 and no NaN/inf mismatch; it is
tied to the golden hash of the kernel as it is when the record is read, so a record must be
read right after its sweep). Every proof keeps the golden hash of the kernel it was made for;
``Kernel.formats`` lists a format only while that hash is the kernel's current one.

The float64 first passes (``ulplab.export.fast64``) are proved per build variant by
``benchmarks/verify_native.py --fast64`` (the compiled runner against the float32 entry point's
one-pass build on all 2^32 inputs), whose JSON record ``--fast64-record PATH`` reads into
``fast64_proofs`` (each with the kernel's golden hash and the float64 pass's source SHA-256 at
the time of the sweep); without it they are carried over. The runners of the kernels without
a float64 pass (their first pass is the float32 one) likewise by ``verify_native.py --runner``,
read with ``--runner-record PATH`` into ``runner_proofs``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from ulplab.errors import UsageError
from ulplab.kernels.registry import PROOF_INPUTS_FLOAT32, declared

PATH = Path(__file__).resolve().parent.parent / "kernels" / "registry.json"


def _existing() -> dict[str, Any]:
    try:
        return json.loads(PATH.read_text())["kernels"]
    except (OSError, ValueError, KeyError):
        return {}


def derivative_of(func: str, have: set[str]) -> str | None:
    from ulplab.functions import get_function

    d = get_function(func).derivative
    if d is None or d.lstrip("-") not in have:
        return None
    return d


def generate(old: dict[str, Any] | None = None) -> dict[str, Any]:
    """The registry's data from the kernel modules (proofs carried over from ``old``)."""
    from ulplab.export import fast64
    from ulplab.kernels.exceptions import table
    from ulplab.kernels.golden import golden_hash

    old = _existing() if old is None else old
    decl = declared()
    out: dict[str, Any] = {}
    for func in sorted(decl):
        e = decl[func]
        t = table(func)
        fast = e.get("fast_path")
        odd = e["impl"]
        from ulplab.kernels.exceptions import correctly_rounded

        out[func] = {
            "module": e["module"],
            "idea": e.get("idea", ""),
            "derivative": derivative_of(func, set(decl)),
            "exceptions": 0 if t is None else int(t.keys.size),
            "first_pass": "first_pass" in e,
            "fast_path_below": None if fast is None else int(fast[0]),
            "golden": {"float32": golden_hash(func, correctly_rounded(func, odd)),
                       "odd": golden_hash(func, odd)},
            "proofs": old.get(func, {}).get("proofs", {}),
            "fast64_proofs": old.get(func, {}).get("fast64_proofs", {}),
            # a kernel with a float64 first pass runs it: the proofs of its runner with the
            # float32 one (before that pass existed) no longer describe what det runs
            "runner_proofs": {} if func in fast64.FUNCTIONS
            else old.get(func, {}).get("runner_proofs", {}),
        }
    return out


FAST64_FIELDS = ("inputs", "mismatches", "flagged", "golden", "source_sha256", "date",
                 "seconds")


def fast64_proofs(func: str, record: Path, runner: bool = False) -> dict[str, Any]:
    """``func``'s proofs of the float64 first pass per build variant in a record of
    ``benchmarks/verify_native.py --fast64`` (full sweeps only: 2^32 inputs); with ``runner``,
    of its float32 first pass in a record of ``--runner``."""
    option = "--runner-record" if runner else "--fast64-record"
    try:
        doc = json.loads(record.read_text())
    except (OSError, ValueError) as exc:
        raise UsageError(f"{option}: cannot read {record}: {exc}") from None
    out = {}
    for variant, r in sorted(doc.get("kernels", {}).get(func, {}).items()):
        if r.get("inputs") != PROOF_INPUTS_FLOAT32:
            continue
        sha = r.get("pass_source_sha256" if runner else "fast64_source_sha256")
        fields = {**r, "source_sha256": sha}
        out[variant] = {k: fields[k] for k in FAST64_FIELDS} | {"record": str(record)}
    return out


def prove(func: str, fmt: str) -> dict[str, Any]:
    """``ulplab.det``'s result for every input of ``fmt`` against the oracle."""
    from ulplab import det
    from ulplab.formats import get_format, is_nan
    from ulplab.kernels.registry import get
    from ulplab.oracle.table import oracle_table

    spec = get_format(fmt)
    got = det.table(func, fmt, proved_only=False)
    truth = oracle_table(func, spec, "nearest-even", "ieee")
    same = (got == truth) | (is_nan(got, spec) & is_nan(truth, spec))
    return {"inputs": int(spec.n_patterns), "mismatches": int((~same).sum()),
            "golden": get(func).golden["odd"],
            "record": "python -m ulplab.analysis.kernel_registry --write --prove"}


def float32_proof(func: str, record: Path, golden: str) -> dict[str, Any] | None:
    """The proof in an exhaustive float32 sweep's JSON, or None if it proves nothing."""
    doc = json.loads(record.read_text())
    if doc.get("function") != func or doc.get("format") != "float32":
        return None
    for m in doc.get("methods", []):
        if m.get("method") not in ("det", "det-float32"):
            continue
        if m.get("inputs") != PROOF_INPUTS_FLOAT32 or doc.get("rounding") != "nearest-even":
            return None
        bad = int(m["nan_mismatches"]) + int(m["inf_mismatches"])
        bad += 0 if m["max_ulp"] == 0 else int(m["count"] * (1 - m["exact_fraction"])) or 1
        return {"inputs": PROOF_INPUTS_FLOAT32, "mismatches": bad, "golden": golden,
                "record": str(record)}
    return None


def write(data: dict[str, Any], path: Path = PATH) -> None:
    text = json.dumps({"kernels": data}, indent=1, sort_keys=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".registry-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ulplab.analysis.kernel_registry",
                                description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help="write registry.json")
    p.add_argument("--check", action="store_true", help="exit 1 if registry.json is stale")
    p.add_argument("--prove", action="store_true",
                   help="re-prove every narrow format on every input against the oracle")
    p.add_argument("--float32-records", metavar="DIR",
                   help="read exhaustive float32 sweeps (DIR/FUNC.json) as float32 proofs")
    p.add_argument("--fast64-record", metavar="PATH",
                   help="read the float64 first passes' proofs (benchmarks/verify_native.py "
                        "--fast64's JSON)")
    p.add_argument("--runner-record", metavar="PATH",
                   help="read the float32 first passes' runner proofs "
                        "(benchmarks/verify_native.py --runner's JSON)")
    p.add_argument("--functions", default="all", help="comma-separated (with --prove)")
    args = p.parse_args(argv)
    try:
        data = generate()
        funcs = list(data) if args.functions == "all" else args.functions.split(",")
        for f in funcs:
            if f not in data:
                raise UsageError(f"no kernel for {f!r}; valid: {', '.join(data)}")
        if args.float32_records:
            folder = Path(args.float32_records)
            if not folder.is_dir():
                raise UsageError(f"--float32-records: {folder} is not a directory")
            for f in funcs:
                rec = folder / f"{f}.json"
                proof = float32_proof(f, rec, data[f]["golden"]["float32"]) \
                    if rec.is_file() else None
                if proof is not None:
                    data[f]["proofs"]["float32"] = proof
        if args.fast64_record:
            for f in funcs:
                proofs = fast64_proofs(f, Path(args.fast64_record))
                if proofs:
                    data[f]["fast64_proofs"] = proofs
        if args.runner_record:
            from ulplab.export import fast64

            for f in (f for f in funcs if f not in fast64.FUNCTIONS):
                proofs = fast64_proofs(f, Path(args.runner_record), runner=True)
                if proofs:
                    data[f]["runner_proofs"] = proofs
        if args.prove:
            from ulplab.formats import EXHAUSTIVE_FORMATS

            if args.write:  # det.table reads the registry: let it see the new hashes
                write(data)
                from ulplab.kernels import registry

                registry.kernels.cache_clear()
            for f in funcs:
                for fmt in EXHAUSTIVE_FORMATS:
                    data[f]["proofs"][fmt] = prove(f, fmt)
                    bad = data[f]["proofs"][fmt]["mismatches"]
                    print(f"{f:10s} {fmt:20s} {bad} mismatches", file=sys.stderr)
        if args.check:
            stale = [f for f in data if data[f] != _existing().get(f)]
            stale += [f for f in _existing() if f not in data]
            if stale:
                print(f"registry.json is stale for: {', '.join(stale)}", file=sys.stderr)
                return 1
        if args.write:
            write(data)
            print(f"wrote {PATH}", file=sys.stderr)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
