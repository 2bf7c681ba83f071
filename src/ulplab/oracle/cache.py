"""The oracle's on-disk cache: one file per key, written atomically, verified on every load.

A file holds a magic line, a JSON header line (key, dtype, length, SHA-256 of the payload) and
the raw payload. A file whose header, length or checksum does not match is deleted and rebuilt,
never used. Writes go to a temporary file in the same directory, are flushed to disk and then
renamed over the target, so a reader sees either the old file or the complete new one.

Location: $ULPLAB_CACHE_DIR, else $XDG_CACHE_HOME/ulplab, else ~/.cache/ulplab (on macOS
~/Library/Caches/ulplab). Written by hand rather than with platformdirs: these few lines are all
ulplab needs and they keep the dependency list to the chosen libraries.
"""

from __future__ import annotations

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


def save(key: str, array: np.ndarray) -> Path:
    """Write ``array`` (1-D) under ``key`` atomically."""
    arr = np.ascontiguousarray(array)
    payload = arr.tobytes()
    header = {"key": key, "dtype": arr.dtype.str, "length": int(arr.size),
              "sha256": hashlib.sha256(payload).hexdigest()}
    target = path_for(key)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{key}.", suffix=".tmp")
    try:
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
        path.unlink(missing_ok=True)
        return None
