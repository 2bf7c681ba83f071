"""Output files: only regular files, always written atomically.

Every file ulplab writes (JSON, CSV, text, HTML, PNG, .npy, checkpoints, dumps) goes through
here. A path is accepted when it names an existing regular file, or a new name in an existing
directory; the directory must be writable, because the data goes to a temporary file beside the
target and ``os.replace`` then puts it in place: a reader never sees half a file, and a failed
run leaves the old file (or none) behind. A device (``/dev/null``, ``/dev/full``), a directory, a
FIFO or a socket is refused with a ``UsageError`` naming the path, and left untouched.

Bottom layer: the standard library and ``ulplab.errors`` only.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ulplab.errors import UsageError

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def check_writable(path: str | Path) -> Path:
    """``path`` as a Path if ulplab may write it, else a one-line ``UsageError`` saying why.

    Asks without creating anything, so that a run refused later leaves no empty file behind.
    A symbolic link is followed: the file it points to is the one replaced."""
    p = Path(path)
    if not str(path).strip():
        raise UsageError("an output path is empty")
    target = Path(os.path.realpath(p))
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise UsageError(f"cannot write {p}: {exc.strerror}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UsageError(f"cannot write {p}: it is {_kind(st.st_mode)}, not a regular file")
    parent = target.parent
    if not parent.is_dir():
        raise UsageError(f"cannot write {p}: directory {parent} does not exist")
    if st is not None and not os.access(target, os.W_OK):
        raise UsageError(f"cannot write {p}: permission denied")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {p}: directory {parent} is not writable (files are "
                         "written beside their target, then renamed over it)")
    return p


def _new_file_mode() -> int:
    """What ``open(path, "w")`` would give a new file: 0o666 less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def open_atomic(path: str | Path) -> Iterator[IO[bytes]]:
    """``with open_atomic(p) as fh: fh.write(...)``: a binary file handle on a temporary file
    beside ``p`` (after ``check_writable``), flushed, synced and renamed over ``p`` when the
    block ends without an exception; on an exception it is removed and ``p`` is untouched. An
    existing file keeps its permission bits; a new one gets those ``open`` would give it."""
    p = check_writable(path)
    target = Path(os.path.realpath(p))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = _new_file_mode()
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise UsageError(f"cannot write {p}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise UsageError(f"cannot write {p}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to the regular file ``path``, atomically (see ``open_atomic``)."""
    with open_atomic(path) as fh:
        fh.write(data)


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to the regular file ``path``, atomically."""
    write_bytes(path, text.encode())


def _json_default(o: Any) -> Any:
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def json_ready(o: Any) -> Any:
    """Replace infinities (region bounds) and NaN by strings so the JSON is strict."""
    if isinstance(o, float) and math.isinf(o):
        return "inf" if o > 0 else "-inf"
    if isinstance(o, float) and math.isnan(o):
        return "nan"
    if isinstance(o, dict):
        return {k: json_ready(v) for k, v in o.items()}
    if isinstance(o, list | tuple):
        return [json_ready(v) for v in o]
    return o


def write_json(path: str | Path, data: Any) -> None:
    """Strict JSON (infinities and NaN as strings), indented, atomically."""
    write_text(path, json.dumps(json_ready(data), indent=2, allow_nan=False, default=_json_default)
               + "\n")


__all__ = ["check_writable", "open_atomic", "write_bytes", "write_json", "write_text"]
