"""Deterministic float32 kernels: one module per function (or family), built from ``ulplab.kit``
operations only, each ending in one final rounding (``core``): round-to-odd, so that any narrower
format rounds correctly, or nearest plus an exception table, the correctly rounded float32
(``exceptions``). The registry (``registry``) is the one list of them that every other part of
ulplab reads; ``golden`` holds the golden input set and hash. Kernels never import methods,
the fitter or the oracle."""
