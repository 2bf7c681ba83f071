"""det cos's float64 first pass: sin's (``ulplab.export.fast64.sin``: ``ul_sin_half``, its
reduction, polynomial, error bound and flags) with v = (2k + 1) pi/2 + r, k = nearest(v/pi -
1/2), and cos v = (-1)^(k+1) sin r."""

from __future__ import annotations

from ulplab.export.fast64.sin import CORE, ERR_HALF, source, tables

SOURCE = CORE + source("cos", 1)

__all__ = ["ERR_HALF", "SOURCE", "tables"]
