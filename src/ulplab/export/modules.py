"""The Python exports (NumPy, PyTorch, JAX, Triton) imported as modules, from a private folder.

``python_module(func, lang)`` writes ``export_source(func, lang)`` into ``build_dir()`` (a
temporary folder removed at exit) and imports it once per process (``sys.modules``).
"""

from __future__ import annotations

import atexit
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from ulplab.export.source import export_source

_BUILD_DIR: list[Path] = []


def build_dir() -> Path:
    """This process's folder of exported modules (created on first use, removed at exit)."""
    if not _BUILD_DIR:
        d = Path(tempfile.mkdtemp(prefix="ulplab-export-"))
        atexit.register(shutil.rmtree, d, ignore_errors=True)  # none left behind
        _BUILD_DIR.append(d)
    return _BUILD_DIR[0]


def python_module(func: str, lang: str, rounding: str = "float32", variant: str = "") -> Any:
    """The NumPy/PyTorch/JAX/Triton export of ``func`` imported as a module (its ``kernel``);
    ``variant`` keeps apart modules imported in different modes (Triton's interpreter)."""
    name = (f"ulplab_export_{func}_{lang}" + ("" if rounding == "float32" else f"_{rounding}")
            + variant)
    if name in sys.modules:
        return sys.modules[name]
    path = build_dir() / f"{name}.py"
    path.write_text(export_source(func, lang, rounding))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


__all__ = ["build_dir", "python_module"]
