"""Record one ulplab run as JSON for the documentation site, with the machine it ran on.

    python docs/record_run.py NAME -- ulplab analyze gelu --format bfloat16 --json {json}

runs the command (``{json}`` is replaced by a temporary path that the command writes its JSON
to), then writes ``docs/data/NAME.json``: ``{"command", "machine", "versions", "date", "commit",
"result"}``, where ``result`` is the command's own JSON and ``machine`` is
``benchmarks/timing.machine()`` (CPU and ISA level, cores, Python, NumPy, PyTorch). The site's
hook (``docs/hooks.py``) renders the tables from that file; rerun this to refresh them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _machine() -> dict[str, object]:
    spec = importlib.util.spec_from_file_location("timing", ROOT / "benchmarks" / "timing.py")
    if spec is None or spec.loader is None:
        raise SystemExit("docs/record_run.py: benchmarks/timing.py is missing")
    timing = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timing)
    return timing.machine()


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("ulplab", "numpy", "ml_dtypes", "flint", "mpmath", "torch", "jax"):
        try:
            out[name] = __import__(name).__version__
        except (ImportError, AttributeError):
            continue
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", help="docs/data/NAME.json is written")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command, with {json}")
    args = ap.parse_args()
    command = [c for c in args.command if c != "--"] if args.command[:1] == ["--"] else \
        args.command
    if "{json}" not in command:
        ap.error("the command must write its JSON to {json}")
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "run.json")
        argv = [path if c == "{json}" else c for c in command]
        if argv[0] == "ulplab":
            argv = [sys.executable, "-m", "ulplab", *argv[1:]]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        result = json.loads(Path(path).read_text())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False, cwd=ROOT).stdout.strip()
    record = {"command": " ".join(c if " " not in c else f'"{c}"' for c in command).replace(
                  "{json}", "PATH"),
              "machine": _machine(), "versions": _versions(),
              "date": datetime.now(UTC).strftime("%Y-%m-%d"), "commit": commit or "unknown",
              "result": result}
    out = ROOT / "docs" / "data" / f"{args.name}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
