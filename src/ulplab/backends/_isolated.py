"""Each backend in a child process of its own, with a time limit per call.

A framework can crash the process it runs in (a segfault in a kernel, an abort in a half-built
library) or hang (a dead lock in a thread pool, a compiler that never returns). A thread cannot be
stopped from outside and a crash takes its whole process down, so the card runs each backend
in a child process (``multiprocessing``'s spawn: a fresh interpreter, nothing inherited from the
parent's thread pools, and environment variables read at a framework's start — the ISA caps of
the determinism card — applied before it is imported). The parent waits for each answer at most
``limit`` seconds; a child that does not answer is killed and the row says "timed out", one that
dies says "crashed" with its signal or exit code and the last line it printed (its output goes to
a log file, not to the terminal). The worker is kept for the backend's next function and started
anew after a failure. Cost: one interpreter and one framework import per backend and card.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ulplab.backends._base import ArrayFn, Backend, Unavailable, one_line


class BackendFailed(Exception):
    """A backend crashed, hung or raised while running; the message is the row's one line."""


def _serve(conn: Any, log: str) -> None:
    """The child's loop: make (cached) and run, answering ("ok", value), ("unavailable", why)
    or ("error", one line)."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    from ulplab.backends import BACKENDS
    from ulplab.formats import get_format

    made: dict[tuple[str, str, str, bool], ArrayFn] = {}
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg[0] == "call":  # ("call", "module:function", args): any function, its answer
            try:
                mod, _, name = msg[1].partition(":")
                import importlib

                answer: tuple[str, Any] = ("ok", getattr(importlib.import_module(mod), name)(
                    *msg[2]))
            except Unavailable as why:
                answer = ("unavailable", str(why))
            except Exception as exc:
                answer = ("error", one_line(exc))
            conn.send(answer)
            continue
        op, backend, func, fmt_name, backward = msg[:5]
        try:
            key = (backend if isinstance(backend, str) else backend.name, func, fmt_name,
                   backward)
            if key not in made:
                b = BACKENDS[backend] if isinstance(backend, str) else backend
                made[key] = b.make(func, get_format(fmt_name), backward)
            run, takes = made[key]
            if op == "make":
                answer = ("ok", (takes, getattr(run, "why_float32", None)))
            else:
                with np.errstate(all="ignore"):
                    answer = ("ok", np.asarray(run(msg[5])))
        except Unavailable as why:
            answer = ("unavailable", str(why))
        except Exception as exc:
            answer = ("error", one_line(exc))
        conn.send(answer)


@contextlib.contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    """``env`` in ``os.environ`` while a child is started (it inherits the environment)."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Worker:
    """One child process serving one backend (and one environment)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        fd, self.log = tempfile.mkstemp(prefix="ulplab-backend-", suffix=".log")
        os.close(fd)
        with _environment(env or {}):
            self.proc = ctx.Process(target=_serve, args=(child, self.log), daemon=True)
            self.proc.start()
        child.close()

    def alive(self) -> bool:
        return self.proc.is_alive()

    def _last_line(self) -> str:
        try:
            lines = [ln.strip() for ln in Path(self.log).read_text(errors="replace").splitlines()
                     if ln.strip()]
        except OSError:
            return ""
        return f": {lines[-1][:120]}" if lines else ""

    def call(self, msg: tuple[Any, ...], limit: float) -> Any:
        try:
            self.conn.send(msg)
            ready = self.conn.poll(limit)
        except (BrokenPipeError, EOFError, OSError):
            ready = True  # dead already: recv says so
        if not ready:
            self.close(graceful=False)
            raise BackendFailed(f"timed out: no answer in {limit:g} s (killed)")
        try:
            status, value = self.conn.recv()
        except (EOFError, OSError):
            self.proc.join(5)
            code = self.proc.exitcode
            how = (f"killed by {signal.Signals(-code).name}" if code is not None and code < 0
                   else f"exit status {code}")
            why = f"crashed ({how}){self._last_line()}"
            self.close(graceful=False)
            raise BackendFailed(why) from None
        if status == "unavailable":
            raise Unavailable(value)
        if status == "error":
            raise BackendFailed(f"failed: {value}")
        return value

    def close(self, graceful: bool = True) -> None:
        """End the child: asked to (its pipe closed, so that its exit handlers run), killed
        if it has not exited within 5 s or when it hangs (``graceful=False``)."""
        self.conn.close()
        if graceful:
            self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        with contextlib.suppress(OSError):
            os.unlink(self.log)


class Pool:
    """A worker per (backend, environment), started on first use and after each failure."""

    def __init__(self, limit: float, env: Mapping[str, str] | None = None) -> None:
        self.limit = limit
        self.env = dict(env or {})
        self.workers: dict[str, Worker] = {}

    def _worker(self, name: str) -> Worker:
        w = self.workers.get(name)
        if w is None or not w.alive():
            w = self.workers[name] = Worker(self.env)
        return w

    def _call(self, name: str, msg: tuple[Any, ...]) -> Any:
        try:
            return self._worker(name).call(msg, self.limit)
        except BackendFailed:
            self.workers.pop(name, None)
            raise

    def make(self, backend: Backend, func: str, fmt_name: str, backward: bool,
             registered: bool = True) -> tuple[ArrayFn, str, str | None]:
        """(callable, takes, why float32) of ``backend`` run in its worker; the callable sends
        its input to the worker and returns the answer. ``registered``: the child finds the
        backend by name (else the Backend itself is sent: its ``make`` must be importable)."""
        ref: str | Backend = backend.name if registered else backend
        takes, why = self._call(backend.name, ("make", ref, func, fmt_name, backward))

        def run(x: np.ndarray) -> np.ndarray:
            return self._call(backend.name, ("run", ref, func, fmt_name, backward,
                                             np.ascontiguousarray(x)))

        return run, takes, why

    def call(self, name: str, target: str, *args: Any) -> Any:
        """``target`` ('module:function') called with ``args`` in the worker ``name``."""
        return self._call(name, ("call", target, args))

    def close(self) -> None:
        for w in self.workers.values():
            w.close()
        self.workers.clear()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
