"""The number formats ulplab measures, described from ml_dtypes' metadata.

Every per-format fact (precision, exponent range, largest finite value, whether the format has
infinities, its canonical NaN) is read from ``ml_dtypes.finfo`` and from casts through the
dtype itself, so a format added here inherits every test written against this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

from ulplab.errors import unknown_choice

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


@dataclass(frozen=True)
class Format:
    """A binary floating-point format with a sign bit, an exponent field and a trailing significand.

    ``precision`` counts the implicit bit (bfloat16: 8). A finite value is ``m * 2**q`` with the
    quantum ``q = max(e, emin) - (precision - 1)`` where ``e`` is its binary exponent.
    """

    name: str
    dtype: np.dtype = field(repr=False)
    bits: int
    precision: int
    emin: int
    emax: int
    has_inf: bool
    nan_bits: int
    max_bits: int
    exhaustive: bool

    @property
    def uint(self) -> np.dtype:
        """The unsigned integer dtype of the same width, used for bit patterns."""
        return np.dtype(_UINT[self.bits // 8])

    @property
    def sign_bit(self) -> int:
        return 1 << (self.bits - 1)

    @property
    def mag_mask(self) -> int:
        return self.sign_bit - 1

    @property
    def min_normal_bits(self) -> int:
        """Bit pattern of the smallest positive normal number."""
        return 1 << (self.precision - 1)

    @property
    def inf_bits(self) -> int | None:
        """Bit pattern of +inf, or None for formats without infinities (float8_e4m3fn)."""
        return self.max_bits + 1 if self.has_inf else None

    @property
    def n_patterns(self) -> int:
        return 1 << self.bits

    @property
    def max_value(self) -> float:
        bits = np.array([self.max_bits], dtype=self.uint)
        return float(bits.view(self.dtype).astype(np.float64)[0])

    @property
    def min_normal(self) -> float:
        return 2.0**self.emin

    @property
    def min_subnormal(self) -> float:
        return 2.0 ** (self.emin - self.precision + 1)


def _describe(name: str, dtype: type, exhaustive: bool) -> Format:
    dt = np.dtype(dtype)
    fi = ml_dtypes.finfo(dt)
    uint = _UINT[dt.itemsize]
    nan_bits = int(np.array([np.nan], np.float32).astype(dt).view(uint)[0])
    has_inf = bool(np.isinf(np.array([np.inf], np.float32).astype(dt))[0])
    max_bits = int(np.array([fi.max], np.float64).astype(np.float32).astype(dt).view(uint)[0])
    return Format(
        name=name,
        dtype=dt,
        bits=dt.itemsize * 8,
        precision=int(fi.nmant) + 1,
        emin=int(fi.minexp),
        emax=int(fi.maxexp) - 1,
        has_inf=has_inf,
        nan_bits=nan_bits,
        max_bits=max_bits,
        exhaustive=exhaustive,
    )


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        _describe("bfloat16", ml_dtypes.bfloat16, True),
        _describe("float16", np.float16, True),
        _describe("float8_e4m3fn", ml_dtypes.float8_e4m3fn, True),
        _describe("float8_e5m2", ml_dtypes.float8_e5m2, True),
        _describe("float32", np.float32, False),
    )
}

EXHAUSTIVE_FORMATS = tuple(name for name, f in FORMATS.items() if f.exhaustive)


def get_format(name: str | Format) -> Format:
    """Look a format up by name; an unknown name raises a UsageError naming the valid ones."""
    if isinstance(name, Format):
        return name
    try:
        return FORMATS[name]
    except KeyError:
        raise unknown_choice("format", name, FORMATS) from None
