"""The seed-named GELU methods that compute exactly what the seed's C++ computes, checked bit for
bit: the SHA-256 of each one's 65,536 bfloat16 outputs (every input pattern 0x0000..0xffff in
order, little-endian uint16) against tests/data/seed_gelu_golden.json, the hashes of the seed's
own build (docs/seed-rebuild.md says how it was made).

The method runs on every bfloat16 input as float32; its float32 result is rounded to bfloat16
as the seed's cast does: nearest-even, and a NaN keeps its sign and top payload bits, made quiet
(so NaN inputs pass through with their payloads, as in the seed).
"""

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from ulplab.formats import get_format
from ulplab.formats.rounding import round_to_format
from ulplab.methods import get_method
from ulplab.methods.gelu.seed_table import SEED_BF16

GOLDEN = json.loads((Path(__file__).parent / "data" / "seed_gelu_golden.json").read_text())

BIT_EXACT = sorted(GOLDEN["methods"])
"""Every seed name: each one's outputs are the seed's on every input."""


def seed_cast_bf16(y: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns as the seed's static_cast<std::bfloat16_t> does."""
    out = round_to_format(y, get_format("bfloat16")).astype(np.uint16)
    nan = np.isnan(y)
    out[nan] = ((y[nan].view(np.uint32) >> np.uint32(16)) | np.uint32(0x40)).astype(np.uint16)
    return out


def outputs(name: str) -> np.ndarray:
    x = (np.arange(65536, dtype=np.uint32) << np.uint32(16)).view(np.float32)
    y = np.asarray(get_method("gelu", name)(x), dtype=np.float32)
    return seed_cast_bf16(y)


def test_seed_cast_keeps_nan_payloads_and_rounds_to_nearest_even():
    y = np.array([np.uint32(0x7F800001), 0xFFA50000, 0x3F808000, 0x3F818000, 0x80000000],
                 dtype=np.uint32).view(np.float32)
    assert seed_cast_bf16(y).tolist() == [0x7FC0, 0xFFE5, 0x3F80, 0x3F82, 0x8000]


def test_golden_file_names_the_seed_build():
    assert GOLDEN["seed"]["commit"].startswith("c2bf7bb")
    assert GOLDEN["build"]["flags"] == "-std=c++23 -O3 -march=native"
    assert len(GOLDEN["methods"]) == 39
    assert set(GOLDEN["methods"]) == set(SEED_BF16)  # the seed's table's 39 names


@pytest.mark.parametrize("name", BIT_EXACT)
def test_seed_method_is_bit_exact(name):
    out = outputs(name)
    digest = hashlib.sha256(out.astype("<u2").tobytes()).hexdigest()
    assert digest == GOLDEN["methods"][name]["sha256"], (
        f"{name}: outputs differ from the seed's build; regenerate the seed's outputs "
        "(docs/seed-rebuild.md) to see which inputs")
