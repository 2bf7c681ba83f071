"""The kernel registry: the one list of det kernels agrees with the kernel modules, and every
format it lists for a kernel is proved again here, on every input, against the oracle."""

import json

import numpy as np
import pytest

from ulplab.analysis.kernel_registry import PATH, derivative_of, prove
from ulplab.formats import EXHAUSTIVE_FORMATS
from ulplab.kernels import exceptions, registry

KERNELS = registry.kernels()
NARROW = [(f, fmt) for f, k in KERNELS.items() for fmt in k.formats if fmt != "float32"]


def test_registry_lists_exactly_the_declared_kernels():
    """Every module's KERNELS entry is in registry.json with its module, first pass, fast path
    and idea, and nothing else is (python -m ulplab.analysis.kernel_registry --write)."""
    declared = registry.declared()
    assert set(declared) == set(KERNELS)
    for func, e in declared.items():
        k = KERNELS[func]
        assert k.module == e["module"] and k.idea == e["idea"]
        assert k.first_pass == ("first_pass" in e)
        fast = e.get("fast_path")
        assert k.fast_path_below == (None if fast is None else fast[0])
        t = exceptions.table(func)
        assert k.exceptions == (0 if t is None else t.keys.size)
        assert k.derivative == derivative_of(func, set(declared))


def test_every_kernel_is_proved_in_every_format():
    """float32 by the 2^32 sweep (its record names the JSON), the 13 enumerable formats by
    every input; each proof is for the kernel as it is now (its golden hash)."""
    for func, k in KERNELS.items():
        assert set(k.formats) == {"float32", *EXHAUSTIVE_FORMATS}, func
        assert k.proofs["float32"].inputs == 2**32 and k.proofs["float32"].mismatches == 0


@pytest.mark.parametrize(("func", "fmt"), NARROW)
def test_narrow_format_proof_holds_on_every_input(func, fmt):
    """det's lookup table of ``fmt`` (what det.FUNC returns) against the oracle, every input,
    bits compared (signed zeros differ, NaN matches NaN)."""
    proof = prove(func, fmt)
    assert proof["mismatches"] == 0, proof
    assert proof["inputs"] == KERNELS[func].proofs[fmt].inputs


def test_a_changed_kernel_loses_its_formats(monkeypatch):
    """A proof is for one kernel: when the golden hash changes, the formats go (a kernel edit
    must be proved again before det accepts it)."""
    k = KERNELS["exp"]
    stale = registry.Kernel(k.function, k.module, {"float32": "0" * 64, "odd": "1" * 64},
                            k.proofs)
    assert stale.formats == ()


def test_registry_json_is_well_formed():
    doc = json.loads(PATH.read_text())
    assert list(doc) == ["kernels"]
    for func, d in doc["kernels"].items():
        assert set(d["golden"]) == set(registry.ENTRY_POINTS), func
        for fmt, p in d["proofs"].items():
            assert p["mismatches"] == 0 and p["inputs"] > 0, (func, fmt)
    assert np.all([len(g) == 64 for d in doc["kernels"].values() for g in d["golden"].values()])


def test_unknown_kernels_and_entry_points_are_usage_errors():
    from ulplab.errors import UsageError

    with pytest.raises(UsageError, match="no det kernel for 'cosh'"):
        registry.get("cosh")
    with pytest.raises(UsageError, match="unknown entry point 'even'"):
        registry.get("exp").impl("even")
