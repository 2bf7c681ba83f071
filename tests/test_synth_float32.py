"""ulplab synth exp --format float32: the float64-evaluated exp (#19's float32 stretch).

The proof on all 2^32 inputs is a command (``ulplab synth exp --format float32``; the record is
benchmarks/results/float32-synth/exp.json); here: the kernel against det on the fixed input
sets and a million random patterns, a degree the full proof rejected is caught on the input it
gets wrong, and the command's odd requests.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import one_line_error

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler")

RECORD = Path(__file__).resolve().parents[1] / "benchmarks/results/float32-synth/exp.json"


def _det(x: np.ndarray) -> np.ndarray:
    from ulplab.export import native

    return native.kernel("exp")(np.ascontiguousarray(x, dtype=np.float32))


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


def test_degree_found_by_the_proof_matches_det_on_fixed_and_random_inputs():
    from ulplab.kernels.golden import input_sets
    from ulplab.synth import float32

    rec = json.loads(RECORD.read_text())
    assert rec["proof"]["mismatches"] == 0 and rec["proof"]["inputs_checked"] == 2**32
    run = float32.kernel(rec["degree"])
    sets = input_sets(samples=1_000_000)
    for name, x in sets.items():
        with np.errstate(all="ignore"):
            assert _same(run(x), _det(x)).all(), name


def test_a_degree_the_proof_rejected_is_wrong_on_its_counterexample():
    """Every rejected degree's first counterexample, run again: the kernel and det differ there
    (the proof's mismatches are real), and the chosen degree agrees."""
    from ulplab.synth import float32

    rec = json.loads(RECORD.read_text())
    rejected = [t for t in rec["tried"] if t["mismatches"]]
    assert rejected, "the record shows no rejected degree"
    for t in rejected:
        b = int(t["examples"][0], 16)
        x = np.array([b], dtype=np.uint32).view(np.float32)
        assert not _same(float32.kernel(t["degree"])(x), _det(x)).all()
        assert _same(float32.kernel(rec["degree"])(x), _det(x)).all()
        part = float32.prove(t["degree"], start=b, stop=b + 1)
        assert part["mismatches"] == 1 and part["examples"] == [f"0x{b:08x}"]


def test_source_is_exact_literals():
    from ulplab.synth import float32

    src = float32.exp_source(4)
    assert "ulplab_exp_f64" in src and "0x1.8p+52" in src
    assert "e-" not in src.split("T_HI")[1]  # hex literals only, no decimal exponents


@pytest.mark.parametrize("argv", [
    ["synth", "gelu", "--format", "float32"],
    ["synth", "exp", "--format", "float32", "--max-ulp", "1"],
    ["synth", "exp", "--format", "float32", "--profile", "sfpu"],
    ["synth", "exp", "--format", "float32", "--emit", "numpy"],
    ["synth", "exp", "--format", "float32", "--rounding", "up"],
    ["synth", "exp", "--format", "float32", "--pareto"],
])
def test_float32_synth_odd_requests(argv, capsys):
    one_line_error(capsys, argv)
