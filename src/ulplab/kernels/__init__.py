"""Deterministic float32 kernels: one module per function (or family), built from ``ulplab.kit``
operations only, each ending in one final rounding (``core``): round-to-odd, so that any narrower
format rounds correctly, or nearest plus an exception table, the correctly rounded float32
(``exceptions``). Registered as methods ``det`` and ``det-float32`` by ``ulplab.methods.det``."""


def kernel_entry(function: str) -> dict:
    """The ``KERNELS`` entry of ``function``'s det kernel: its impl, error bound ("bound", the
    relative error of hi + lo its float32 rounding test assumes) and optional "fast_path"
    (B, impl): an impl with the same bits on every input whose magnitude's encoding is below B,
    which the compiled runner uses on blocks of such inputs."""
    import importlib
    import pkgutil

    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        for k in getattr(mod, "KERNELS", ()):
            if k["function"] == function:
                return k
    raise KeyError(function)
