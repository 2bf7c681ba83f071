import numpy as np
import pytest
from hypothesis import settings

from ulplab.formats import EXHAUSTIVE_FORMATS, get_format

settings.register_profile("ulplab", deadline=None, max_examples=300, derandomize=True)
settings.load_profile("ulplab")


@pytest.fixture(params=EXHAUSTIVE_FORMATS)
def small_format(request):
    """Every format small enough to enumerate (16- and 8-bit)."""
    return get_format(request.param)


def hexbits(b, fmt):
    return f"0x{int(b):0{(fmt.bits + 3) // 4}x}"


def assert_bits_equal(got, expected, fmt, xs=None, what="result"):
    """Compare bit patterns; failures print the first inputs as decimal, hex bits, hex float."""
    got, expected = np.asarray(got), np.asarray(expected)
    bad = np.flatnonzero(got != expected)
    if bad.size:
        lines = []
        for i in bad[:8]:
            x = "" if xs is None else f"x={float(xs[i])!r} ({float(xs[i]).hex()}) "
            lines.append(f"{x}index {i}: got {hexbits(got[i], fmt)} expected "
                         f"{hexbits(expected[i], fmt)}")
        pytest.fail(f"{bad.size} {what} mismatches in {fmt.name}:\n" + "\n".join(lines))
