"""det cos's float64 first pass: cos x = sin(x + pi/2), sin's float64 core
(``ulplab.export.fast64.sin``: its reduction, polynomials, error bound and flags) with the
quadrant shifted by one."""

from __future__ import annotations

from ulplab.export.fast64.sin import CORE, ERR, source, tables

SOURCE = CORE + source("cos", 1)

__all__ = ["ERR", "SOURCE", "tables"]
