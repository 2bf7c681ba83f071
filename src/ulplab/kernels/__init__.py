"""Deterministic float32 kernels: one module per function (or family), built from ``ulplab.kit``
operations only, each ending in one round-to-odd (``core``) so that any narrower format rounds
correctly. Registered as method ``det`` of each function by ``ulplab.methods.det``."""
