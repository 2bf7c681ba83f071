"""The whole card in one call: every function of ``CARD_FUNCTIONS`` (forward, and backward where
the function has a derivative and the framework autograd) on every backend, in one format, with
the machine, the framework versions and the command recorded beside the rows."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ulplab.backends._isolated import Pool
from ulplab.errors import UsageError
from ulplab.formats import get_format
from ulplab.peers import report_card
from ulplab.peers.machine import backend_versions, machine

CARD_FUNCTIONS = ("gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "exp", "log", "erf",
                  "softplus", "sin", "cos")
"""The functions of the 16-bit card (issue 21)."""

DEFAULT_TIME_LIMIT = 300.0
"""Seconds a backend may take for one call (one sweep of a format's inputs) before its row says
it timed out."""


FLOAT32_RANDOM = 1 << 16
"""Random float32 patterns of the sampled float32 card, besides the hard cases."""
FLOAT32_SEED = 2026


def float32_sample(func: str, random: int = FLOAT32_RANDOM, seed: int = FLOAT32_SEED,
                   extra: Sequence[int] = ()) -> tuple[np.ndarray, str]:
    """The float32 inputs of the sampled card, sorted and unique, and what they are: the hard
    cases (the function's exception table: inputs whose correct rounding a double-float
    kernel with a 2^-44 error bound gets wrong, found over all 2^32 inputs; special values;
    every power of two and its two neighbours), ``random`` random bit patterns, and ``extra``
    (the worst inputs of the exhaustive records merged into the card)."""
    from ulplab.kernels import exceptions
    from ulplab.kernels.golden import SPECIAL_BITS

    table = exceptions.table(func)
    hard = [] if table is None else table.keys.tolist()
    exps = np.arange(0, 255, dtype=np.uint32) << np.uint32(23)
    pow2 = np.concatenate([exps, exps | np.uint32(0x80000000)])
    near = np.concatenate([pow2, pow2 + np.uint32(1), pow2 - np.uint32(1)])
    rng = np.random.default_rng(seed)
    rand = rng.integers(0, 2**32, random, dtype=np.uint64).astype(np.uint32)
    bits = np.unique(np.concatenate([np.array(hard + list(SPECIAL_BITS), np.uint32), near,
                                     rand, np.array(list(extra), np.uint32)]))
    records = f", {len(set(extra)):,} worst inputs of the exhaustive records" if extra else ""
    what = (f"sampled: {bits.size:,} float32 inputs ({len(hard)} hard cases of the exception "
            f"table, special values, powers of two and neighbours, {random:,} random patterns, "
            f"seed {seed}{records}); the exhaustive 2^32 sweep is ulplab peers FUNC --format "
            "float32 --exhaustive")
    return bits, what


RECORD_STATS = ("inputs", "count", "exact_fraction", "within1_fraction", "max_ulp", "mean_ulp",
                "percentiles", "histogram", "nan_mismatches", "inf_mismatches", "worst",
                "mismatch_examples")
"""The figures of a card row that an exhaustive record replaces (``ulplab.stats.summarize``'s
keys; the behaviours DAZ, FTZ and scalar vs vector stay those measured on the sample)."""

EXHAUSTIVE = "exhaustive (2^32)"
EXHAUSTIVE_ELSEWHERE = "exhaustive (2^32), another machine"
"""A row whose record was made on another CPU than the card (or one the record does not name)
and that the sample agrees with."""


def _record_rows(method: str) -> tuple[str, ...]:
    """The card rows an exhaustive record's method speaks for: ``peer:NAME`` for the row NAME,
    and ``peer:NAME-f32`` for NAME too (in float32 a backend and its float32 variant make the
    same call on the same float32 array); ``det`` (once named ``det-float32``) for det."""
    if method in ("det", "det-float32"):
        return ("det",)
    if not method.startswith("peer:"):
        return ()
    name = method.removeprefix("peer:")
    return (name, name.removesuffix("-f32")) if name.endswith("-f32") else (name,)


def exhaustive_records(paths: Sequence[str | Path]) -> dict[tuple[str, str], dict[str, Any]]:
    """The exhaustive float32 sweeps in ``paths`` (JSON files, or folders of them, as ``ulplab
    peers FUNC --format float32 --exhaustive --json`` and ``ulplab analyze ... --exhaustive
    --json`` write them), by (function, card row): each value holds the method's figures, the
    file and the run's circumstances. A file that is not a sweep of all 2^32 float32 inputs, or
    two files for the same row, is a ``UsageError``."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(p.glob("*.json"))
        elif p.is_file():
            files.append(p)
        else:
            raise UsageError(f"--records {p}: no such file or folder")
    if not files:
        raise UsageError("--records " + " ".join(map(str, paths)) + ": no JSON file there")
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for path in files:
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise UsageError(f"--records {path}: not readable JSON ({exc})") from None
        if not (isinstance(data, dict) and data.get("format") == "float32"
                and data.get("input_count") == 1 << 32 and data.get("inputs") == "exhaustive"
                and data.get("rounding") == "nearest-even" and data.get("denormals") == "ieee"
                and isinstance(data.get("methods"), list)):
            raise UsageError(f"--records {path}: not a sweep of all 2^32 float32 inputs "
                             "(nearest-even, IEEE denormals)")
        run = data.get("run", {})
        for m in data["methods"]:
            for row in _record_rows(m["method"]):
                key = (data["function"], row)
                if key in out:
                    raise UsageError(f"--records: {key[1]} {key[0]} is in both "
                                     f"{out[key]['record']} and {path}")
                out[key] = {"record": str(path), "method": m["method"], "figures": m,
                            "machine": run.get("machine"), "command": run.get("command"),
                            "commit": run.get("commit"), "seconds": data.get("seconds")}
    return out


def _merge_record(row: dict[str, Any], rec: dict[str, Any], cpu: str) -> None:
    """Put an exhaustive record's figures in a sampled row, if the sample agrees with it.

    The sample holds the record's worst inputs and is a subset of all 2^32, so a backend that
    gives here the bits it gave in the record has the record's max ULP on the sample, and no
    more NaN/inf disagreements than the record; otherwise the record speaks for another build
    or machine and the row stays sampled, saying why. A framework's record made on another CPU
    than ``cpu`` (the card's), or on one it does not name, is marked so in the row's coverage
    (``EXHAUSTIVE_ELSEWHERE``): its libraries may dispatch to other code there. det's records
    are not: its kernels give the same bits on every build (golden hashes, tested)."""
    fig = rec["figures"]
    sampled = {k: row[k] for k in ("inputs", "max_ulp", "mean_ulp", "exact_fraction",
                                   "nan_mismatches", "inf_mismatches")}
    agree = (row["max_ulp"] == fig["max_ulp"]
             and row["nan_mismatches"] <= fig["nan_mismatches"]
             and row["inf_mismatches"] <= fig["inf_mismatches"])
    provenance = {"record": rec["record"], "record_method": rec["method"],
                  "record_machine": rec["machine"], "record_command": rec["command"],
                  "record_commit": rec["commit"]}
    if not agree:
        row["record_rejected"] = {
            **provenance,
            "reason": f"on the sample max {row['max_ulp']} ULP, NaN/inf "
                      f"{row['nan_mismatches']}/{row['inf_mismatches']}; the record: max "
                      f"{fig['max_ulp']} ULP, NaN/inf {fig['nan_mismatches']}/"
                      f"{fig['inf_mismatches']}: not the bits this backend gives here"}
        return
    row.update({k: fig[k] for k in RECORD_STATS})
    row.update(provenance)
    here = row["backend"] == "det" or (rec["machine"] or {}).get("cpu") == cpu
    row["coverage"] = EXHAUSTIVE if here else EXHAUSTIVE_ELSEWHERE
    row["sampled"] = sampled


def full_card(fmt: str, functions: Sequence[str] = CARD_FUNCTIONS,
              backends: Sequence[str] | None = None, *, worst: int = 3,
              time_limit: float = DEFAULT_TIME_LIMIT, command: str = "",
              progress: bool = False, records: Sequence[str | Path] = ()) -> dict[str, Any]:
    """The report card of every function in ``functions`` (``report_card`` each, the backends
    in child processes reused across functions), with ``machine``, ``versions``, ``command``,
    ``coverage`` and the wall time in ``seconds``. The 16-bit and narrower formats are swept
    over every input ("exhaustive" in each row); float32 over ``float32_sample`` ("sampled (N
    inputs)"), and ``records`` (``exhaustive_records``) replace a forward row's figures by
    those of its sweep of all 2^32 inputs ("exhaustive (2^32)", the file in ``record``) where
    the sample agrees with the record (``_merge_record``)."""
    f = get_format(fmt)
    if records and f.name != "float32":
        raise UsageError("--records merges exhaustive float32 sweeps: give --format float32 "
                         f"(every {f.name} input is swept already)")
    recs = exhaustive_records(records) if records else {}
    here = machine()
    start = time.perf_counter()
    cards = []
    coverage = f"exhaustive: every one of the {f.n_patterns:,} {f.name} inputs"
    with Pool(time_limit) as pool:
        for func in functions:
            bits, inputs = None, "all"
            mine = {row: rec for (fn, row), rec in recs.items() if fn == func}
            if not f.exhaustive:
                extra = [int(w["hex"], 16) for rec in mine.values()
                         for w in rec["figures"]["worst"] + rec["figures"]["mismatch_examples"]]
                bits, coverage = float32_sample(func, extra=extra)
                inputs = "float32 sample"
            card = report_card(func, f, backends, worst=worst, pool=pool, bits=bits,
                               inputs=inputs, time_limit=time_limit, progress=progress)
            card["coverage"] = coverage
            for row in card["backends"]:
                row["coverage"] = ("exhaustive" if f.exhaustive
                                   else f"sampled ({row['inputs']:,} inputs)")
                rec = mine.get(row["backend"])
                if rec is not None and row["reference"] == func:  # forward rows only
                    _merge_record(row, rec, str(here["cpu"]))
            cards.append(card)
    if not f.exhaustive:
        coverage = ("float32: each row says what it covers, \"exhaustive (2^32)\" (every "
                    "input, from the sweep record it names; \"another machine\" where that "
                    "record was made on another CPU) or \"sampled (N inputs)\" (each "
                    "function's sample: its hard cases, special values, powers of two and "
                    f"neighbours, {FLOAT32_RANDOM:,} random patterns); DAZ, FTZ and scalar vs "
                    "vector are measured on the sample")
    out = {"kind": "accuracy card", "format": f.name, "command": command,
           "coverage": coverage,
           "machine": here, "versions": backend_versions(),
           "time_limit_s": time_limit, "seconds": round(time.perf_counter() - start, 1),
           "cards": cards}
    if records:
        out["records"] = [str(p) for p in records]
    return out
