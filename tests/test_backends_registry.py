"""The backends package: one module per framework, found by the registry; the names callers
import are still there; listing the backends imports no framework."""

import pkgutil
import subprocess
import sys

import ulplab.backends as backends
from ulplab.backends import BACKENDS, Backend, backend_modules


def test_every_public_module_is_registered_once():
    names = {i.name for i in pkgutil.iter_modules(backends.__path__) if not i.name.startswith("_")}
    found = {m.__name__.rsplit(".", 1)[1] for m in backend_modules()}
    assert found == names
    assert {"torch", "jax", "numpy", "libm", "tensorflow", "onnxruntime", "openvino", "tinygrad",
            "paddle", "det"} <= names
    defined = [b.name for m in backend_modules() for b in m.BACKENDS]
    assert len(defined) == len(set(defined)) == len(BACKENDS)
    assert list(BACKENDS)[:2] == ["torch", "torch-f32"]  # ORDER: torch first
    assert all(isinstance(b, Backend) for b in BACKENDS.values())


def test_names_existing_callers_import_are_still_there():
    from ulplab.backends import (  # noqa: F401 - importable is the test
        ArrayFn,
        Unavailable,
        _libm,
        _libm_loop,
        _libm_note,
        _peer_callable,
        user_callable,
    )


def test_listing_backends_imports_no_framework():
    code = ("import sys, ulplab, ulplab.backends, ulplab.peers\n"
            "heavy = ['tensorflow', 'torch', 'jax', 'onnxruntime', 'openvino', 'tinygrad', "
            "'paddle']\n"
            "print(','.join(m for m in heavy if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""
