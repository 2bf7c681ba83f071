"""The kernel registry: the one list of ulplab's deterministic kernels that everything reads.

``ulplab.det``, ``ulplab.export`` (and its compiled runner), ``ulplab.torch``, the methods, the
CLI, the benchmarks and the tests all find the kernels here; no other module keeps a list of
kernels or of the formats they serve. Each ``Kernel`` says:

* ``function``: the function it computes (a name of ``ulplab.functions``);
* ``module``: the module of ``ulplab.kernels`` whose ``KERNELS`` entry defines it (imported only
  when the kernel is traced, built or run in NumPy: ``entry()``, ``impl()``);
* its two entry points, ``ENTRY_POINTS``: ``"float32"``, the correctly rounded float32 result
  (nearest-even: the kernel's double-float result rounded to nearest plus its exception table,
  ``exceptions``), which is what ``det`` means; and ``"odd"``, the float32 round-to-odd that the
  narrower formats round from (``det-odd``);
* ``formats``: the formats in which ``ulplab.det.FUNC`` returns the correctly rounded result,
  each backed by a recorded proof (``proofs``: every input of the format compared with the
  oracle, 0 mismatches, for the kernel whose golden hash the proof names). A format is listed
  only while its proof is for the current kernel: a changed kernel loses its formats until they
  are proved again;
* ``derivative``: the kernel whose result is this function's derivative (``-name`` for its
  negation), or None;
* ``exceptions``: how many inputs its exception table holds;
* ``golden``: the SHA-256 of each entry point's output bits on the golden input set
  (``ulplab.kernels.golden``), which every backend must reproduce;
* ``first_pass`` / ``fast_path_below``: what the compiled runner needs to know without importing
  the kernel (``ulplab.export.native``);
* ``fast64_proofs``: per build variant (avx512, avx2, portable), the exhaustive proof that the
  compiled runner with the kernel's float64 first pass (``ulplab.export.fast64``) gives the
  float32 entry point's bits on all 2^32 inputs (``benchmarks/verify_native.py --fast64``), for
  the kernel whose golden hash and the float64 pass whose C source SHA-256 it names;
* ``runner_proofs``: the same for the kernels without a float64 first pass, whose runner's first
  pass is the float32 one (``benchmarks/verify_native.py --runner``; the SHA-256 is that pass's
  C source, ``ulplab.export.native.float32_pass_sha256``).

The data is ``registry.json`` beside this module, generated from the kernel modules, the golden
hashes and the proofs by ``python -m ulplab.analysis.kernel_registry --write`` (the analysis layer
runs the oracle; this module only reads, so that ``import ulplab.det`` stays light);
tests/test_registry.py checks that it agrees with the modules and re-proves every narrow format
on every input.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ulplab.errors import ArgumentTypeError, UsageError, shown

ENTRY_POINTS = ("float32", "odd")
"""``float32``: correctly rounded float32 (what ``det`` means); ``odd``: float32 round-to-odd."""

PROOF_INPUTS_FLOAT32 = 1 << 32


@dataclass(frozen=True)
class Proof:
    """Every input of ``format`` compared with the oracle (nearest-even, IEEE subnormals):
    ``mismatches`` of ``inputs`` differ, for the kernel entry point whose golden hash is
    ``golden``; ``record`` names where the run is kept (a JSON file or a command)."""

    format: str
    inputs: int
    mismatches: int
    golden: str
    record: str


@dataclass(frozen=True)
class Fast64Proof:
    """All 2^32 inputs run through the compiled runner with its first pass (the float64 one in
    ``fast64_proofs``, the float32 one in ``runner_proofs``) built for ``variant``, compared
    with the float32 entry point's one-pass build: ``mismatches`` of ``inputs`` differ
    (``flagged`` went to the second pass), for the kernel whose golden float32 hash is
    ``golden`` and the first pass whose C source has SHA-256 ``source_sha256``; ``record``
    names the JSON that keeps the run (date, seconds, CPU, compiler)."""

    variant: str
    inputs: int
    mismatches: int
    flagged: int
    golden: str
    source_sha256: str
    date: str
    seconds: float
    record: str

    def holds_for(self, golden: str, source_sha256: str) -> bool:
        """Whether this proof proves the current kernel (``golden``) and float64 pass (the
        SHA-256 of ``ulplab.export.fast64.source``)."""
        return (self.inputs == PROOF_INPUTS_FLOAT32 and self.mismatches == 0
                and self.golden == golden and self.source_sha256 == source_sha256)


@dataclass(frozen=True)
class Kernel:
    function: str
    module: str
    golden: dict[str, str] = field(repr=False)
    proofs: dict[str, Proof] = field(repr=False)
    derivative: str | None = None
    exceptions: int = 0
    first_pass: bool = False
    fast_path_below: int | None = None
    idea: str = ""
    fast64_proofs: dict[str, Fast64Proof] = field(default_factory=dict, repr=False)
    runner_proofs: dict[str, Fast64Proof] = field(default_factory=dict, repr=False)

    @property
    def formats(self) -> tuple[str, ...]:
        """The formats where det returns the correctly rounded result: those whose proof has 0
        mismatches over every input, for the current kernel (float32: the correctly rounded
        entry point; the others: the round-to-odd one, rounded to the format)."""
        out = []
        for name, p in self.proofs.items():
            entry = "float32" if name == "float32" else "odd"
            if p.mismatches == 0 and p.golden == self.golden[entry]:
                out.append(name)
        return tuple(out)

    def entry(self) -> dict[str, Any]:
        """The module's ``KERNELS`` entry (imports the kernel module)."""
        mod = importlib.import_module(self.module)
        for k in mod.KERNELS:
            if k["function"] == self.function:
                return k
        raise LookupError(f"{self.module} has no KERNELS entry for {self.function}")

    def impl(self, entry_point: str = "float32") -> Any:
        """The NumPy kernel of ``entry_point``: float32 array in, float32 array out."""
        check_entry_point(entry_point)
        odd = self.entry()["impl"]
        if entry_point == "odd":
            return odd
        return _float32_impl(self.function)


@cache
def _float32_impl(function: str) -> Any:
    from ulplab.kernels.exceptions import correctly_rounded

    return correctly_rounded(function, get(function).entry()["impl"])


def check_entry_point(entry_point: str) -> str:
    if entry_point not in ENTRY_POINTS:
        raise UsageError(f"unknown entry point {entry_point!r}; valid: "
                         f"{', '.join(ENTRY_POINTS)}")
    return entry_point


def _load() -> dict[str, Kernel]:
    doc = json.loads((Path(__file__).parent / "registry.json").read_text())
    out = {}
    for func, d in doc["kernels"].items():
        proofs = {fmt: Proof(fmt, **p) for fmt, p in d.get("proofs", {}).items()}
        fast64 = {v: Fast64Proof(v, **p) for v, p in d.get("fast64_proofs", {}).items()}
        runner = {v: Fast64Proof(v, **p) for v, p in d.get("runner_proofs", {}).items()}
        out[func] = Kernel(func, d["module"], dict(d["golden"]), proofs, d.get("derivative"),
                           int(d.get("exceptions", 0)), bool(d.get("first_pass", False)),
                           d.get("fast_path_below"), d.get("idea", ""), fast64, runner)
    return out


@cache
def kernels() -> dict[str, Kernel]:
    """Every registered kernel by function name, in the order of ``registry.json``."""
    return _load()


def functions() -> tuple[str, ...]:
    return tuple(kernels())


def get(function: str) -> Kernel:
    if not isinstance(function, str):
        raise ArgumentTypeError(f"a det kernel is named by a string ({', '.join(functions())});"
                                f" got {shown(function)}")
    try:
        return kernels()[function]
    except KeyError:
        raise UsageError(f"no det kernel for {function!r}; valid: "
                         f"{', '.join(functions())}") from None


def formats() -> tuple[str, ...]:
    """Every format some kernel is proved in (the union, in a stable order)."""
    seen: dict[str, None] = {}
    for k in kernels().values():
        seen.update(dict.fromkeys(k.formats))
    return tuple(seen)


def module_names() -> tuple[str, ...]:
    """The kernel modules (``ulplab.kernels.NAME``) that define ``KERNELS``: every module of
    this package but the shared ones (``SHARED``)."""
    import pkgutil

    import ulplab.kernels as pkg

    return tuple(f"ulplab.kernels.{m.name}" for m in sorted(pkgutil.iter_modules(pkg.__path__),
                                                             key=lambda m: m.name)
                 if not m.ispkg and m.name not in SHARED)


SHARED = ("core", "exceptions", "golden", "registry")
"""Modules of ``ulplab.kernels`` that define no kernel (building blocks and bookkeeping);
a kernel-library module that defines no ``KERNELS`` list is skipped by ``declared`` too."""


def declared() -> dict[str, dict[str, Any]]:
    """The ``KERNELS`` entries of every kernel module, by function (imports them all: for the
    registry's generator and its tests, not for ``det``)."""
    out: dict[str, dict[str, Any]] = {}
    for name in module_names():
        mod = importlib.import_module(name)
        for k in getattr(mod, "KERNELS", ()):
            if k["function"] in out:
                raise ValueError(f"two kernels for {k['function']}: {name} and "
                                 f"{out[k['function']]['module']}")
            out[k["function"]] = {**k, "module": name}
    return out


__all__ = ["ENTRY_POINTS", "Fast64Proof", "Kernel", "Proof", "check_entry_point", "declared",
           "formats", "functions", "get", "kernels", "module_names"]
