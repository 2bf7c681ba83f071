"""The correctly rounded float32 entry point: nearest rounding plus a table of exceptional inputs.

A det kernel evaluated in the ``nearest`` mode (``core.rounding``) returns RN(hi + lo), which is
the correctly rounded f(x) wherever hi + lo is farther from a float32 midpoint than its error
bound. The inputs where it is not that far were found once over all 2^32 float32 inputs (the
kernel's compiled ``flag`` variant, ``ulplab.analysis.cr_scan``), their correctly rounded results
computed by the oracle, and the inputs where RN(hi + lo) differs from it are kept here, one JSON
file per function (``exceptions/FUNC.json``: input and output bit patterns in hex, the kernel's
bound, how many inputs were undecided, the hash of the nearest kernel the table was made for,
and a SHA-256 of the pairs, checked on load).

The table is applied last, branch-free, by a two-choice (cuckoo) hash of the input bits: slot
i1 = (b A1 mod 2^32) >> s, i2 = (b A2 mod 2^32) >> s in tables of 2^(32 - s) keys and values;
an input equal to the key in either slot takes that slot's value. Four gathers, two compares;
traceable (``ulplab.kit.lookup``), so every export (C, NumPy, PyTorch, JAX) applies the same
table. Empty slots hold the key 0xFFFFFFFF (a NaN input, whose result is the canonical NaN
0x7FC00000, which is what the empty slots hold as value).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

import numpy as np

from ulplab.kit import lookup

u32 = np.uint32
EMPTY_KEY = 0xFFFFFFFF
EMPTY_VALUE = 0x7FC00000


@dataclass(frozen=True)
class ExceptionTable:
    """The exceptional inputs of one function and the hash tables that find them."""

    function: str
    keys: np.ndarray  # uint32 input bits, ascending
    values: np.ndarray  # uint32 correctly rounded output bits
    bound: str  # the relative error bound the scan used, as a hex float
    undecided: int  # inputs whose rounding the bound left undecided (all checked by the oracle)
    kernel_hash: str  # golden hash of the nearest kernel the table was made for
    a1: int = 0
    a2: int = 0
    shift: int = 32
    slot_keys: np.ndarray | None = None
    slot_values: np.ndarray | None = None


def pairs_digest(keys: np.ndarray, values: np.ndarray) -> str:
    """SHA-256 of the pairs as little-endian uint32 (key, value) records."""
    rec = np.empty((keys.size, 2), "<u4")
    rec[:, 0], rec[:, 1] = keys, values
    return hashlib.sha256(rec.tobytes()).hexdigest()


def _mix(b: np.ndarray, a: int, shift: int) -> np.ndarray:
    return (b * u32(a)) >> u32(shift)


def build_cuckoo(keys: np.ndarray, values: np.ndarray,
                 seed: int = 2026) -> tuple[int, int, int, np.ndarray, np.ndarray]:
    """(A1, A2, shift, slot keys, slot values): a two-choice hash holding every key, with at
    least twice as many slots as keys; deterministic for given pairs (seeded multipliers)."""
    n = int(keys.size)
    size_bits = max(4, int(np.ceil(np.log2(max(2 * n, 16)))))
    rng = np.random.default_rng(seed)
    while True:
        for _ in range(64):
            a1, a2 = (int(v) | 1 for v in rng.integers(1 << 20, 1 << 32, 2, dtype=np.uint64))
            placed = _place(keys, values, a1, a2, 32 - size_bits)
            if placed is not None:
                return a1, a2, 32 - size_bits, placed[0], placed[1]
        size_bits += 1


def _place(keys: np.ndarray, values: np.ndarray, a1: int, a2: int,
           shift: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Cuckoo insertion of every key (None when a key keeps being kicked out)."""
    size = 1 << (32 - shift)
    h1 = _mix(keys.astype(u32), a1, shift).astype(np.int64).tolist()
    h2 = _mix(keys.astype(u32), a2, shift).astype(np.int64).tolist()
    slot = [-1] * size
    for i in range(keys.size):  # a few thousand keys at most, built once per process
        item, pos = i, h1[i]
        for _ in range(64):
            if slot[pos] < 0:
                slot[pos] = item
                break
            slot[pos], item = item, slot[pos]
            pos = h2[item] if h1[item] == pos else h1[item]
        else:
            return None
    occupant = np.array(slot, np.int64)
    used = occupant >= 0
    sk = np.full(size, EMPTY_KEY, u32)
    sv = np.full(size, EMPTY_VALUE, u32)
    sk[used], sv[used] = keys[occupant[used]], values[occupant[used]]
    return sk, sv


def _path(func: str) -> Traversable:
    return resources.files("ulplab.kernels").joinpath("exceptions", f"{func}.json")


@cache
def table(func: str) -> ExceptionTable | None:
    """The exception table of ``func`` (checksum verified), or None if none was made."""
    path = _path(func)
    if not path.is_file():
        return None
    doc = json.loads(path.read_text())
    pairs = doc["exceptions"]
    keys = np.array([int(k, 16) for k, _ in pairs], u32)
    values = np.array([int(v, 16) for _, v in pairs], u32)
    if pairs_digest(keys, values) != doc["sha256"]:
        raise RuntimeError(f"the exception table of {func} is corrupt (SHA-256 mismatch): "
                           f"reinstall ulplab or rerun python -m ulplab.analysis.cr_scan {func}")
    if keys.size and not np.all(np.diff(keys.astype(np.int64)) > 0):
        raise RuntimeError(f"the exception table of {func} is not sorted by input")
    a1, a2, shift, sk, sv = build_cuckoo(keys, values)
    return ExceptionTable(func, keys, values, doc["bound"], int(doc["undecided"]),
                          doc["kernel_hash"], a1, a2, shift, sk, sv)


def write_table(func: str, keys: np.ndarray, values: np.ndarray, *, bound: float,
                undecided: int, kernel_hash: str, scanned: int, command: str,
                directory: str | None = None) -> str:
    """Write ``exceptions/FUNC.json`` (atomically) and return its path."""
    import os
    import tempfile
    from pathlib import Path

    order = np.argsort(keys, kind="stable")
    keys, values = keys[order].astype(u32), values[order].astype(u32)
    head = {"function": func, "bound": float(bound).hex(), "scanned": int(scanned),
            "undecided": int(undecided), "kernel_hash": kernel_hash, "command": command,
            "sha256": pairs_digest(keys, values)}
    pairs = ",\n".join(f'  ["0x{int(k):08x}", "0x{int(v):08x}"]'
                       for k, v in zip(keys, values, strict=True))
    text = json.dumps(head, indent=1)[:-2] + ',\n "exceptions": [\n' + pairs + "\n ]\n}\n"
    json.loads(text)  # well formed
    folder = Path(directory) if directory else Path(__file__).parent / "exceptions"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{func}.json"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{func}-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.replace(tmp, target)
    table.cache_clear()
    return str(target)


def apply(func: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """y with the correctly rounded results of ``func``'s exceptional inputs put in."""
    t = table(func)
    if t is None or t.keys.size == 0:
        return y
    assert t.slot_keys is not None and t.slot_values is not None
    b = x.view(u32)
    i1 = _mix(b, t.a1, t.shift).astype(np.int32)
    i2 = _mix(b, t.a2, t.shift).astype(np.int32)
    k1, k2 = lookup(t.slot_keys, i1), lookup(t.slot_keys, i2)
    v1, v2 = lookup(t.slot_values, i1), lookup(t.slot_values, i2)
    bits = np.where(k1 == b, v1, np.where(k2 == b, v2, y.view(u32)))
    return bits.view(np.float32)


def correctly_rounded(func: str,
                      nearest: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray],
                                                                               np.ndarray]:
    """The float32 entry point of ``func``: ``nearest`` (the kernel) run in the nearest mode,
    then the exception table."""
    from ulplab.kernels.core import rounding

    def kernel(x: np.ndarray) -> np.ndarray:
        with rounding("nearest"):
            return apply(func, x, nearest(x))

    kernel.__name__ = f"{func}_float32"
    kernel.__doc__ = f"{func}, correctly rounded float32 (nearest mode + exception table)."
    return kernel
