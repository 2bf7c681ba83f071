"""GELU approximations of the seed research, one module per family (see each module's docstring)."""

from ulplab.methods.gelu import erf_b3 as _erf_b3  # noqa: F401  (B3 Pure, B3 Erf Poly, D2 ...)
from ulplab.methods.gelu import lut_r5 as _lut_r5  # noqa: F401  (R5 Pure, R5 LUT)
from ulplab.methods.gelu import tt as _tt  # noqa: F401  (TT Accurate, TT Fast)
