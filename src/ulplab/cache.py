"""ulplab's on-disk cache (oracle tables, det lookup tables): one file per key, written
atomically, verified on every load.

A file holds a magic line, a JSON header line (key, dtype, length, SHA-256 of the payload) and
the raw payload. A file whose header, length or checksum does not match is deleted and rebuilt,
never used. Writes go to a temporary file in the same directory, are flushed to disk and then
renamed over the target, so a reader sees either the old file or the complete new one.

Location: $ULPLAB_CACHE_DIR, else $XDG_CACHE_HOME/ulplab, else ~/.cache/ulplab (on macOS
~/Library/Caches/ulplab). Written by hand rather than with platformdirs: these few lines are all
ulplab needs and they keep the dependency list to the chosen libraries.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

MAGIC = b"ULPLAB-CACHE 1\n"


def cache_dir() -> Path:
    if env := os.environ.get("ULPLAB_CACHE_DIR"):
        return Path(env)
    if env := os.environ.get("XDG_CACHE_HOME"):
        return Path(env) / "ulplab"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "ulplab"
    return Path.home() / ".cache" / "ulplab"


def path_for(key: str) -> Path:
    return cache_dir() / f"{key}.ulpc"


_MEMORY: dict[str, np.ndarray] = {}
"""Tables kept in memory when the cache directory cannot be written (said once, on stderr)."""
_WARNED: set[str] = set()
STALE_TMP_SECONDS = 3600
"""A temporary file older than this was left by a writer that died: removed by the next save."""


def warn_unusable(directory: Path, exc: OSError) -> None:
    if str(directory) not in _WARNED:
        _WARNED.add(str(directory))
        print(f"ulplab: warning: cache directory {directory} is unusable ({exc.strerror or exc}); "
              "results are kept in memory only: set ULPLAB_CACHE_DIR to a writable directory",
              file=sys.stderr)


def _remove_stale_tmp(directory: Path) -> None:
    import time

    now = time.time()
    for tmp in directory.glob(".*.tmp"):
        try:
            if now - tmp.stat().st_mtime > STALE_TMP_SECONDS:
                tmp.unlink()
        except OSError:
            pass  # another process removed or renamed it meanwhile


def _file_mode() -> int:
    """rw for everyone the umask allows (0o644 under the usual 022): a shared cache directory
    is readable by the group, as any file the user writes would be."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def save(key: str, array: np.ndarray) -> Path:
    """Write ``array`` (1-D) under ``key`` atomically; if the cache directory cannot be written,
    keep it in memory for this process (one warning line on stderr)."""
    arr = np.ascontiguousarray(array)
    target = path_for(key)
    try:
        return _save_file(key, arr, target)
    except OSError as exc:
        warn_unusable(target.parent, exc)
        _MEMORY[key] = arr.copy()
        return target


def _save_file(key: str, arr: np.ndarray, target: Path) -> Path:
    payload = arr.tobytes()
    header = {"key": key, "dtype": arr.dtype.str, "length": int(arr.size),
              "sha256": hashlib.sha256(payload).hexdigest()}
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_tmp(target.parent)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{key}.", suffix=".tmp")
    try:
        os.fchmod(fd, _file_mode())
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC + json.dumps(header).encode() + b"\n" + payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def load(key: str) -> np.ndarray | None:
    """The array stored under ``key``, or None if absent or damaged (a damaged file is removed)."""
    if key in _MEMORY:
        return _MEMORY[key].copy()
    path = path_for(key)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        if not data.startswith(MAGIC):
            raise ValueError("bad magic")
        end = data.index(b"\n", len(MAGIC))
        header = json.loads(data[len(MAGIC):end])
        payload = data[end + 1:]
        if header["key"] != key:
            raise ValueError("key mismatch")
        if hashlib.sha256(payload).hexdigest() != header["sha256"]:
            raise ValueError("checksum mismatch")
        arr = np.frombuffer(payload, dtype=np.dtype(header["dtype"])).copy()
        if arr.size != header["length"]:
            raise ValueError("length mismatch")
        return arr
    except (ValueError, KeyError, TypeError) as exc:
        warnings.warn(f"ulplab: discarding damaged cache file {path} ({exc}); rebuilding",
                      RuntimeWarning, stacklevel=2)
        with contextlib.suppress(OSError):  # a read-only directory: rebuilt in memory
            path.unlink(missing_ok=True)
        return None
