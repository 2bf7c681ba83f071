"""What every backend module shares: the Backend record, ``Unavailable``, importing a
framework that may be absent, the function modules' peers, and moving a format's bits in and out
of a framework through an integer carrier (bit for bit, whatever the framework's own NumPy
conversion does with bfloat16 or fp8)."""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ulplab.formats import Format
from ulplab.functions import Peer, get_function

ArrayFn = Callable[[np.ndarray], np.ndarray]
Make = Callable[[str, Format, bool], tuple[ArrayFn, str]]

CARRIERS = {1: np.uint8, 2: np.uint16, 4: np.uint32}
"""The unsigned integer of each format width: a format's bits cross into a framework as these."""


class Unavailable(Exception):
    """The backend cannot run this (function, format); the message says why."""


@dataclass(frozen=True)
class Backend:
    name: str
    describe: str
    make: Make
    """(function, format, backward) -> (callable, takes)"""
    distributions: tuple[str, ...] = field(default=())
    """The packages whose versions the card records (their distribution names, any one of
    which may be the installed one: tensorflow-cpu or tensorflow)."""
    on_card: bool = True
    """False: only when named (a compiled variant the determinism card compares against)."""


def onednn_isa_settings(avx512: bool = False) -> dict[str, tuple[dict[str, str], str]]:
    """oneDNN's ISA cap (``ONEDNN_MAX_CPU_ISA``, read when the library starts) for a backend
    built on it: label -> (environment, the CPU flag the level needs; "" for none); AVX512_CORE
    only where ``avx512``."""
    levels = [("SSE41", ""), ("AVX2", "avx2")] + ([("AVX512_CORE", "avx512f")] if avx512 else [])
    return {f"ONEDNN_MAX_CPU_ISA={name}": ({"ONEDNN_MAX_CPU_ISA": name}, flag)
            for name, flag in levels}


def one_line(exc: BaseException) -> str:
    """'TypeError: first line of the message' (the type alone when the message is empty)."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:120]}" if lines else type(exc).__name__


def _module(name: str) -> Any:
    """Import ``name``; absent, or present but failing to import (a half-installed package: a
    missing shared library, a broken dependency), it is ``Unavailable`` with the reason."""
    try:
        if importlib.util.find_spec(name.split(".")[0]) is None:
            raise Unavailable(f"{name} is not installed")
    except (ImportError, ValueError):  # a parent package whose import fails
        raise Unavailable(f"{name} is not installed") from None
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if getattr(exc, "name", None) == name:
            raise Unavailable(f"{name} is not installed") from None
        raise Unavailable(f"{name} is installed but does not import: {one_line(exc)}") from None
    except Exception as exc:  # whatever a broken install raises on import
        raise Unavailable(f"{name} is installed but does not import: {one_line(exc)}") from None


def _peer_callable(func: str, library: str) -> Callable[..., Any]:
    """The function module's peer in ``library`` (torch, jax, numpy), imported and bound."""
    named: Peer | None = getattr(get_function(func).peers, library)
    if named is None:
        raise Unavailable(f"{library} has no {func}")
    parts = named.path.split(".")
    obj = _module(parts[0])
    for i, attr in enumerate(parts[1:], start=1):
        if not hasattr(obj, attr):  # a submodule not imported by its parent (jax.scipy ...)
            _module(".".join(parts[:i + 1]))
        obj = getattr(obj, attr)
    return functools.partial(obj, **dict(named.kwargs)) if named.kwargs else obj


def op_for(func: str, ops: dict[str, Any], library: str) -> Any:
    """``ops[func]``, or ``Unavailable`` naming the library that has no such function."""
    if func not in ops:
        raise Unavailable(f"{library} has no {func}")
    return ops[func]


def _probe(run: ArrayFn, fmt: Format, what: str, dtype: Any = None) -> None:
    """Run ``run`` on one value of ``fmt`` (or of ``dtype``: float32 for a float32 callable); a
    backend that refuses the dtype is Unavailable."""
    try:
        with np.errstate(all="ignore"):
            run(np.ones(1, dtype=fmt.dtype if dtype is None else dtype))
    except Exception as exc:  # each library has its own "not implemented for this dtype"
        first = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        raise Unavailable(f"{what} in {fmt.name}: {first}") from None


def native_or_float32(fmt: Format, build: Callable[[bool], ArrayFn], what: str
                      ) -> tuple[ArrayFn, str]:
    """The callable that computes in ``fmt`` itself (``build(True)``) when the framework runs it
    (probed on one value), else the float32 one (``build(False)``), with its ``takes``."""
    refused = None
    if fmt.dtype != np.float32:
        try:
            run = build(True)
            _probe(run, fmt, what)
            return run, "format"
        except Unavailable as why:
            refused = str(why)
    run = build(False)
    _probe(run, fmt, what, np.float32)
    if refused is not None:
        run.why_float32 = refused  # type: ignore[attr-defined]  # shown in the card's row
    return run, "float32"


def as_carrier(x: np.ndarray, native: bool) -> np.ndarray:
    """The array handed to a framework: the format's bits as unsigned integers (``native``), or
    float32 values."""
    if native and x.dtype != np.float32:
        return np.ascontiguousarray(x).view(CARRIERS[x.dtype.itemsize])
    return np.ascontiguousarray(x, dtype=np.float32)


def from_carrier(y: np.ndarray, fmt: Format, native: bool) -> np.ndarray:
    """A framework's result (integer bits or float32) back as the sweep wants it; a result of
    another width or kind is returned as it is, for the sweep to reject with its dtype."""
    y = np.asarray(y)
    if native and fmt.dtype != np.float32:
        if y.dtype == CARRIERS[fmt.dtype.itemsize] or (y.dtype.kind in "iu" and
                                                        y.dtype.itemsize == fmt.dtype.itemsize):
            return y.view(fmt.dtype)
        return y
    return y.astype(np.float32, copy=False) if y.dtype == np.float32 else y


def user_callable(spec: str) -> tuple[str, ArrayFn]:
    """'module:function' -> a float32 callable; the module is looked up on the import path and
    in the current directory. Any failure to get it is a ``UsageError`` naming the spec."""
    import os
    import sys

    from ulplab.errors import UsageError

    mod, sep, name = spec.partition(":")
    mod, name = mod.strip(), name.strip()
    if not sep or not mod or not name:
        raise UsageError(f"--callable {spec!r}: expected module:function")
    added = os.getcwd() not in sys.path
    if added:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(mod)
    except Exception as exc:  # SyntaxError, ImportError, whatever the module raises on import
        lines = str(exc).strip().splitlines()
        why = f"{type(exc).__name__}: {lines[0][:120]}" if lines else type(exc).__name__
        raise UsageError(f"--callable {spec!r}: importing {mod} failed: {why}") from None
    finally:
        if added:
            sys.path.remove(os.getcwd())
    fn = getattr(module, name, None)
    if fn is None:
        raise UsageError(f"--callable {spec!r}: module {mod} has no attribute {name!r}")
    if not callable(fn):
        raise UsageError(f"--callable {spec!r}: {name} is a {type(fn).__name__}, not a function")
    return spec, fn


THREADS_VARIABLE = "ULPLAB_BACKEND_THREADS"
"""Set in a backend's process (the determinism card's child processes), the thread count each
framework is asked for through its own setting; unset, every framework keeps its default."""


def thread_count() -> int | None:
    """``$ULPLAB_BACKEND_THREADS`` as a positive int, or None when unset."""
    import os

    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise Unavailable(f"{THREADS_VARIABLE}={text!r} is not a positive thread count")
    return int(text)
