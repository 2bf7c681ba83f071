"""The number formats ulplab measures, described from ml_dtypes' metadata and casts.

Every per-format fact is read from ``ml_dtypes.finfo`` and from casts through the dtype itself,
so a format added to ``FORMATS`` inherits every test written against this module:

* ``bits``: the value's storage bits (float4_e2m1fn: 4, although NumPy stores it in a byte);
* ``precision``, ``emin``, ``emax``: significand bits (implicit bit counted) and exponent range;
* ``signed``: has a sign bit (float8_e8m0fnu has none: 254 positive powers of two and a NaN);
* ``has_zero``: a zero exists (not in float8_e8m0fnu);
* ``has_neg_zero``: -0 exists (not in the ``fnuz`` formats, whose 0x80 is the NaN);
* ``has_inf``: infinities exist;
* ``nan_bits``: the canonical NaN; a format without NaN (float6_*, float4_*) gets the pattern
  ``1 << bits``, outside its encodings, as ulplab's marker for "no value of the format" (a NaN
  result, e.g. log(-1)); ml_dtypes itself casts NaN to -0 there;
* ``overflow``: what ml_dtypes' cast does with a finite value beyond the largest:
  ``"inf"`` (IEEE), ``"nan"`` (float8_e4m3fn, the fnuz formats, float8_e8m0fnu) or
  ``"saturate"`` (the OCP MX float6/float4 formats, which give the largest finite value).

The NaN patterns follow from the traits (see ``encoding.classify``): every magnitude above the
largest finite one that is not an infinity, plus the negative zero pattern in a signed format
without -0 (fnuz: 0x80), plus the marker.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

from ulplab.errors import unknown_choice

OVERFLOW_RULES = ("inf", "nan", "saturate")

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


@dataclass(frozen=True)
class Format:
    """A binary floating-point format: an optional sign bit, an exponent field, a significand.

    ``precision`` counts the implicit bit (bfloat16: 8). A finite value is ``m * 2**q`` with the
    quantum ``q = max(e, emin) - (precision - 1)`` where ``e`` is its binary exponent.
    """

    name: str
    dtype: np.dtype = field(repr=False)
    bits: int
    precision: int
    emin: int
    emax: int
    signed: bool
    has_zero: bool
    has_neg_zero: bool
    has_inf: bool
    nan_bits: int
    overflow: str
    max_bits: int
    min_normal_bits: int
    exhaustive: bool

    @property
    def uint(self) -> np.dtype:
        """The unsigned integer dtype of the storage (a byte for 4-, 6- and 8-bit formats)."""
        return np.dtype(_UINT[self.dtype.itemsize])

    @property
    def sign_bit(self) -> int:
        """The sign bit's mask (0 for an unsigned format)."""
        return 1 << (self.bits - 1) if self.signed else 0

    @property
    def mag_mask(self) -> int:
        return (1 << (self.bits - 1 if self.signed else self.bits)) - 1

    @property
    def has_nan(self) -> bool:
        """Does the format encode a NaN (otherwise ``nan_bits`` is ulplab's marker)?"""
        return self.nan_bits < self.n_patterns

    @property
    def encoding_offset(self) -> int:
        """How far the smallest normal's pattern sits below the IEEE layout's ``2**(p-1)``.

        0 for every format with a zero; 1 for float8_e8m0fnu, whose pattern 0 is 2**-127.
        """
        return (1 << (self.precision - 1)) - self.min_normal_bits

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
        """The smallest positive value (the smallest normal where there are no subnormals)."""
        if self.min_normal_bits == 0:
            return self.min_normal
        return 2.0 ** (self.emin - self.precision + 1)


def _cast(value: float, dt: np.dtype) -> tuple[int, float]:
    """Bit pattern and decoded value of ml_dtypes' float32 -> ``dt`` cast of ``value``."""
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array([value], np.float32).astype(dt)
        pattern = int(x.view(_UINT[dt.itemsize])[0])
        return pattern, float(x.astype(np.float64)[0])


def _describe(name: str, dtype: type, exhaustive: bool) -> Format:
    dt = np.dtype(dtype)
    fi = ml_dtypes.finfo(dt)
    bits = int(fi.bits)
    max_bits, _ = _cast(float(fi.max), dt)
    nan_pattern, nan_value = _cast(float("nan"), dt)
    _, beyond = _cast(float(fi.max) * 4 if float(fi.max) < 2.0**126 else float("inf"), dt)
    _, huge = _cast(float(np.finfo(np.float32).max), dt)
    if np.isinf(beyond):
        overflow = "inf"
    elif np.isnan(beyond) or np.isnan(huge):
        overflow = "nan"
    else:
        overflow = "saturate"
    zero_pattern, zero_value = _cast(0.0, dt)
    neg_zero_pattern, _ = _cast(-0.0, dt)
    return Format(
        name=name,
        dtype=dt,
        bits=bits,
        precision=int(fi.nmant) + 1,
        emin=int(fi.minexp),
        emax=int(fi.maxexp) - 1,
        signed=_cast(-1.0, dt)[1] == -1.0,
        has_zero=zero_value == 0.0,
        has_neg_zero=zero_value == 0.0 and neg_zero_pattern != zero_pattern,
        has_inf=bool(np.isinf(_cast(float("inf"), dt)[1])),
        nan_bits=nan_pattern if np.isnan(nan_value) else 1 << bits,
        overflow=overflow,
        max_bits=max_bits,
        min_normal_bits=_cast(float(fi.smallest_normal), dt)[0],
        exhaustive=exhaustive,
    )


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        _describe("bfloat16", ml_dtypes.bfloat16, True),
        _describe("float16", np.float16, True),
        _describe("float8_e4m3fn", ml_dtypes.float8_e4m3fn, True),
        _describe("float8_e5m2", ml_dtypes.float8_e5m2, True),
        _describe("float8_e4m3", ml_dtypes.float8_e4m3, True),
        _describe("float8_e3m4", ml_dtypes.float8_e3m4, True),
        _describe("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, True),
        _describe("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, True),
        _describe("float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz, True),
        _describe("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu, True),
        _describe("float6_e2m3fn", ml_dtypes.float6_e2m3fn, True),
        _describe("float6_e3m2fn", ml_dtypes.float6_e3m2fn, True),
        _describe("float4_e2m1fn", ml_dtypes.float4_e2m1fn, True),
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
