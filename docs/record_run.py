"""Record one ulplab run as JSON for the documentation site, with the machine it ran on.

    python docs/record_run.py NAME -- ulplab analyze gelu --format bfloat16 --json {json}
    python docs/record_run.py NAME --each exp,log -- ulplab faithful {each} --json {json}
    python docs/record_run.py NAME --stdout -- python benchmarks/bench_analyze.py

runs the command (``{json}`` is replaced by a temporary path that the command writes its JSON
to), then writes ``docs/data/NAME.json``: ``{"command", "machine", "versions", "date", "commit",
"load_average", "result"}``, where ``result`` is the command's own JSON and ``machine`` is
``benchmarks/timing.machine()`` (CPU and ISA level, cores, Python, NumPy, PyTorch). With
``--each A,B,...`` the command runs once per item (``{each}`` replaced by it) and ``result``
maps each item to its JSON. With ``--stdout`` the command writes no JSON: ``result`` is
``{"stdout": ...}``, what it printed, for a benchmark that prints its figures (the site shows
that output verbatim). ``load_average`` is the 1-minute load average before and after the run
(timings on a busy machine are pessimistic). The site's hook (``docs/hooks.py``) renders the
tables from that file; rerun this to refresh them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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


def _run(command: list[str], stdout: bool) -> Any:
    """Run ``command`` once: its JSON (written to ``{json}``), or what it printed."""
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "run.json")
        argv = [path if c == "{json}" else c for c in command]
        if argv[0] == "ulplab":
            argv = [sys.executable, "-m", "ulplab", *argv[1:]]
        elif argv[0] in ("python", "python3"):
            argv = [sys.executable, *argv[1:]]
        done = subprocess.run(argv, check=True, cwd=ROOT, text=True,
                              stdout=subprocess.PIPE if stdout else subprocess.DEVNULL)
        if stdout:
            return {"stdout": done.stdout}
        return json.loads(Path(path).read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 usage="%(prog)s NAME [--each A,B] [--stdout] -- COMMAND ...")
    ap.add_argument("name", help="docs/data/NAME.json is written")
    ap.add_argument("--each", help="comma-separated: run the command once per item, {each} "
                                   "replaced by it")
    ap.add_argument("--stdout", action="store_true",
                    help="keep what the command prints (it writes no JSON)")
    argv = sys.argv[1:]
    if "--" not in argv:
        ap.error("give the command after --")
    cut = argv.index("--")
    args = ap.parse_args(argv[:cut])
    command = argv[cut + 1:]
    if not command:
        ap.error("give the command after --")
    if args.stdout == ("{json}" in command):
        ap.error("the command must write its JSON to {json}, or give --stdout (and no {json})")
    if (args.each is None) == any("{each}" in c for c in command):
        ap.error("--each and {each} in the command go together")
    load_before = round(os.getloadavg()[0], 2)
    if args.each is None:
        result = _run(command, args.stdout)
    else:
        items = [i for i in args.each.split(",") if i]
        result = {i: _run([c.replace("{each}", i) for c in command], args.stdout) for i in items}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False, cwd=ROOT).stdout.strip()
    record = {"command": " ".join(c if " " not in c else f'"{c}"' for c in command).replace(
                  "{json}", "PATH"),
              "machine": _machine(), "versions": _versions(),
              "date": datetime.now(UTC).strftime("%Y-%m-%d"), "commit": commit or "unknown",
              "load_average": [load_before, round(os.getloadavg()[0], 2)],
              "result": result}
    if args.each is not None:
        record["each"] = list(result)
    out = ROOT / "docs" / "data" / f"{args.name}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
