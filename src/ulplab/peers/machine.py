"""What a card was measured on: the CPU, its ISA, its cores, and the version of every framework
the card knows (read from the installed packages' metadata: nothing is imported)."""

from __future__ import annotations

import os
import platform
from importlib import metadata


def cpu_flags() -> set[str]:
    """The CPU's feature flags (``/proc/cpuinfo``: avx2, avx512f, ...); empty where unreadable."""
    from ulplab.export.native import cpu_flags as flags

    return set(flags())


def cpu_isa() -> str:
    """The CPU's model and the best ISA level ulplab's builds use on it (avx512, avx2 or
    portable: ``ulplab.export.native.best_variant``)."""
    from ulplab.export import native

    return f"{native.cpu_model()}, ISA level {native.best_variant()}"


def machine() -> dict[str, str | int | None]:
    """The CPU and ISA level, the core count, the OS, Python and the C library."""
    libc, libc_version = platform.libc_ver()
    return {"cpu": cpu_isa(), "cpu_count": os.cpu_count(), "system": platform.platform(),
            "python": platform.python_version(), "libc": f"{libc} {libc_version}".strip()}


def versions(distributions: list[str]) -> dict[str, str | None]:
    """The installed version of each distribution (None: not installed)."""
    out: dict[str, str | None] = {}
    for name in distributions:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def backend_versions() -> dict[str, str | None]:
    """The versions of every package a backend names, and of NumPy and ml_dtypes (whichever of
    alternatives such as tensorflow-cpu / tensorflow is installed is kept; both when neither)."""
    from ulplab.backends import BACKENDS

    out = versions(["numpy", "ml_dtypes"])
    for b in BACKENDS.values():
        found = {k: v for k, v in versions(list(b.distributions)).items() if v is not None}
        out.update(found or dict.fromkeys(b.distributions[:1]))
    return out
