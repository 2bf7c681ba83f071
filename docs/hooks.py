"""The site's generated tables and figures, made at build time (``mkdocs build``, ``mkdocs serve``).

A page asks for one with a line ``<!-- generated: NAME -->``; ``on_page_markdown`` replaces it by
the Markdown that ``GENERATORS[NAME]`` returns, built from the registries in ``src/ulplab`` or
from a committed JSON run (``benchmarks/results``, ``docs/data``). Each table says which command
produced its data and on what machine, with which versions. An unknown name fails the build.
Figures (the methods' Pareto plot) are added as files in ``on_files``. Nothing generated here is
committed.
"""

from __future__ import annotations

import argparse
import html
import importlib
import io
import json
import math
import platform
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DATA = DOCS / "data"
RESULTS = ROOT / "benchmarks" / "results"
if str(ROOT / "src") not in sys.path:  # a checkout that is not installed builds too
    sys.path.insert(0, str(ROOT / "src"))

MARKER = re.compile(r"^<!-- generated: ([a-z0-9-]+)(?: (\S+))? -->$", re.MULTILINE)
PARETO_SVG = "methods/pareto-bfloat16.svg"


# ---------------------------------------------------------------- helpers


def _cell(text: object) -> str:
    """Text for a Markdown table cell: HTML-escaped, pipes and line breaks made harmless."""
    return html.escape(str(text), quote=False).replace("|", "\\|").replace("\n", " ")


def _table(columns: list[str], rows: list[list[object]], align: str = "") -> str:
    """A Markdown table; ``align`` holds one of ``l``/``r`` per column (default: left)."""
    marks = [("---:" if a == "r" else "---") for a in align.ljust(len(columns), "l")]
    lines = ["| " + " | ".join(columns) + " |", "| " + " | ".join(marks) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _build_machine() -> str:
    """The machine and versions of this build (for tables computed while the site is built)."""
    import numpy

    from ulplab import __version__

    return (f"ulplab {__version__}, Python {platform.python_version()}, NumPy "
            f"{numpy.__version__}, {platform.system()} {platform.machine()}")


def _machine(m: dict[str, Any] | None) -> str:
    """A JSON run's ``machine`` record as one line."""
    if not m:
        return "not recorded in the JSON"
    return ", ".join(f"{k} {v}" for k, v in m.items() if v is not None)


def _source(path: Path, command: str, machine: str) -> str:
    rel = path.relative_to(ROOT) if path.is_absolute() else path
    return (f"*Generated from `{rel}`, written by `{command}`; machine: {machine}.*")


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _need(path: Path, command: str) -> Path:
    """``path``, which a table is generated from; a missing file fails the build, naming the
    command that writes it (a page never shows a table that was not generated)."""
    if not path.exists():
        raise FileNotFoundError(f"{_rel(path)} is missing: it is written by {command}")
    return path


def _globbed(folder: Path, command: str) -> list[Path]:
    """The JSON runs in ``folder``; none fails the build, naming the command that writes them."""
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise FileNotFoundError(f"no JSON run in {_rel(folder)}: they are written by {command}")
    return paths


# ---------------------------------------------------------------- the CLI reference


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            return [(name, helps.get(name, ""), sub) for name, sub in action.choices.items()]
    return []


def _arguments(parser: argparse.ArgumentParser) -> str:
    fmt = parser._get_formatter()
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        invocation = fmt._format_action_invocation(action)
        if not action.option_strings and action.metavar is None:
            invocation = fmt._format_args(action, action.dest)
        default = action.default
        shown = ("" if default is None or default is False or default == argparse.SUPPRESS
                 or isinstance(action, argparse._VersionAction) else f"`{default}`")
        choices = ", ".join(f"`{c}`" for c in action.choices) if action.choices else ""
        text = fmt._expand_help(action) if action.help else ""
        rows.append([f"`{invocation}`", _cell(text), shown, choices])
    if not rows:
        return "No arguments."
    return _table(["argument", "what it is", "default", "choices"], rows)


def gen_cli() -> str:
    """Every subcommand of ``ulplab``: usage, help and arguments, read from the argparse parser
    that the command itself runs (``ulplab.cli.main.build_parser``)."""
    from ulplab.cli.main import build_parser

    parser = build_parser()
    parts = [f"*Generated at build time from `ulplab.cli.main.build_parser()` "
             f"({_build_machine()}).*", "", "## ulplab", "", _cell(parser.description or ""), "",
             "```text", parser.format_usage().strip(), "```", "", _arguments(parser)]
    for name, helptext, sub in _subcommands(parser):
        parts += ["", f"## {name}", "", _cell(helptext), "", "```text",
                  sub.format_usage().strip(), "```", ""]
        if sub.description:
            parts += [_cell(sub.description), ""]
        parts.append(_arguments(sub))
    return "\n".join(parts)


# ---------------------------------------------------------------- methods


def _claim(m: Any, fmt: str) -> tuple[str, str]:
    c = m.claims.get(fmt)
    return ("-", "-") if c is None else (str(c.max_ulp), f"{c.mean_ulp:g}")


def gen_methods_zoo() -> str:
    """Every registered method of every function, with its idea and claims (the registry)."""
    from ulplab.methods import all_methods

    rows = []
    for m in sorted(all_methods(), key=lambda m: (m.function, m.family, m.name)):
        bmax, bmean = _claim(m, "bfloat16")
        fmax, fmean = _claim(m, "float16")
        rows.append([m.function, _cell(m.name), _cell(m.family), _cell(m.idea),
                     ", ".join(m.library_calls) or "none", bmax, bmean,
                     m.seed.get("bfloat16", ""), fmax, fmean])
    return "\n".join([
        f"*Generated at build time from the methods registry (`ulplab.methods.all_methods()`, "
        f"what `ulplab methods --details` prints; {_build_machine()}). Claims: max and mean ULP "
        f"measured on every input by `ulplab analyze FUNC --format F --method M`, re-measured "
        f"by tests/test_methods.py; seed: the seed research's published bfloat16 max.*", "",
        _table(["function", "method", "family", "idea", "library calls", "bf16 max",
                "bf16 mean", "seed", "fp16 max", "fp16 mean"], rows, "lllllrrrrr")])


def gen_gelu_improvements() -> str:
    """Each seed GELU method beside this project's rebuild of it (``NAME (improved)``), with the
    registry's claims of both and the rebuild's note on what it changes."""
    from ulplab.methods import methods_for

    ms = {m.name: m for m in methods_for("gelu")}
    rows = []
    for name, m in ms.items():
        seed = ms.get(name.removesuffix(" (improved)"))
        if not name.endswith(" (improved)") or seed is None:
            continue
        rows.append([_cell(seed.name), _claim(seed, "bfloat16")[0], _claim(m, "bfloat16")[0],
                     _claim(seed, "float16")[0], _claim(m, "float16")[0], _cell(m.note)])
    return "\n".join([
        f"*Generated at build time from the methods registry (claims measured on every input by "
        f"`ulplab analyze gelu --format F --method M`, re-measured by tests/test_methods.py; "
        f"notes from each method's registry entry; {_build_machine()}).*", "",
        _table(["method", "seed's bf16 max", "improved bf16 max", "seed's fp16 max",
                "improved fp16 max", "what changes"], rows, "lrrrrl")])


def _cost_model() -> dict[str, Any]:
    from ulplab.studies.cost_model import cost_model

    return cost_model("bfloat16")


def gen_methods_cost() -> str:
    """The GELU methods' traced operation counts (``ulplab study cost-model``)."""
    res = _cost_model()
    kinds = res["op_kinds"]
    rows = []
    for r in res["methods"]:
        rows.append([_cell(r["method"]), *[r["ops"].get(k, "") for k in kinds], r["total_ops"],
                     r["table_bytes"], ", ".join(r["library_calls"]) or "none",
                     "-" if r["claim_max_ulp"] is None else r["claim_max_ulp"],
                     "-" if r["claim_mean_ulp"] is None else f"{r['claim_mean_ulp']:g}"])
    return "\n".join([
        f"*Generated at build time by `ulplab.studies.cost_model.cost_model(\"bfloat16\")`, the "
        f"data of `ulplab study cost-model --format bfloat16 --json PATH` ({_build_machine()}); "
        f"operations are traced from one call of each method, so they do not depend on the "
        f"machine.*", "",
        _table(["method", *kinds, "total", "table bytes", "library", "bf16 max", "bf16 mean"],
               rows, "l" + "r" * (len(kinds) + 2) + "lrr"),
        "", "![GELU methods: traced operations against bfloat16 max ULP]"
            f"({Path(PARETO_SVG).name})"])


def pareto_svg() -> bytes:
    """Total traced operations against bfloat16 max ULP for every GELU method with a claim; the
    Pareto front (no other method both cheaper and more accurate) joined by a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = _cost_model()
    pts = [(r["total_ops"], r["claim_max_ulp"], r["method"]) for r in res["methods"]
           if r["claim_max_ulp"] is not None and r["arithmetic_only"]]
    front, best = [], math.inf
    for ops, ulp, name in sorted(pts, key=lambda p: (p[0], p[1])):
        if ulp < best:
            front.append((ops, ulp, name))
            best = ulp
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    ax.scatter([p[0] for p in pts], [p[1] + 1 for p in pts], s=14, color="0.55",
               label="method (arithmetic only)")
    ax.plot([p[0] for p in front], [p[1] + 1 for p in front], "o-", color="tab:red", ms=5,
            label="Pareto front")
    for ops, ulp, name in front:
        ax.annotate(name, (ops, ulp + 1), fontsize=7, xytext=(4, 4),
                    textcoords="offset points")
    ax.set_yscale("log")
    ax.set_xlabel("operations per element (traced: ulplab study cost-model)")
    ax.set_ylabel("bfloat16 max ULP + 1 (registry claims)")
    ax.set_title("GELU methods: cost against accuracy on every bfloat16 input")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    plt.close(fig)
    return buf.getvalue().encode()


# ---------------------------------------------------------------- kernels


def gen_kernels() -> str:
    """The kernel registry: each det kernel with its entry points and its proofs."""
    from ulplab.kernels import registry

    reg = DOCS.parent / "src" / "ulplab" / "kernels" / "registry.json"
    rows = []
    for name, k in registry.kernels().items():
        narrow = [p for f, p in k.proofs.items() if f != "float32"]
        proved = [p for p in narrow if p.mismatches == 0 and p.golden == k.golden["odd"]]
        f32 = k.proofs.get("float32")
        f32_text = ("none" if f32 is None else
                    f"{f32.mismatches:,} of {f32.inputs:,} differ (`{f32.record}`)")
        rows.append([f"`{name}`", f"`{k.module}`", _cell(k.idea), k.derivative or "-",
                     k.exceptions, "yes" if k.first_pass else "no",
                     f"{len(proved)} of {len(narrow)}", f32_text, f"`{k.golden['float32'][:12]}`"])
    records = sorted({p.record for k in registry.kernels().values() for f, p in k.proofs.items()
                      if f != "float32"})
    return "\n".join([
        f"*Generated at build time from `{_rel(reg)}` (`ulplab.kernels.registry`), written by "
        f"`python -m ulplab.analysis.kernel_registry --write --prove` ({_build_machine()}).*",
        "", _table(["kernel", "module", "idea", "derivative", "exceptions", "first pass",
                    "narrow formats proved (every input, 0 mismatches)",
                    "float32 proof (all 2^32 inputs)", "golden (float32)"], rows, "llllrllll"),
        "", "Narrow-format proofs were recorded by: " + ", ".join(f"`{r}`" for r in records)
        + "."])


def gen_kernel_proofs() -> str:
    """Per kernel and format: inputs compared with the oracle and mismatches."""
    from ulplab.kernels import registry

    ks = registry.kernels()
    fmts = list(dict.fromkeys(f for k in ks.values() for f in k.proofs))
    rows = []
    for name, k in ks.items():
        cells = []
        for f in fmts:
            p = k.proofs.get(f)
            cells.append("-" if p is None else f"{p.mismatches}/{p.inputs:,}")
        rows.append([f"`{name}`", *cells])
    return "\n".join([
        "*Generated at build time from the `proofs` of each registry entry: mismatches against "
        "the oracle / inputs compared (every input of the format, nearest-even).*", "",
        _table(["kernel", *fmts], rows, "l" + "r" * len(fmts))])


def gen_fast64_proofs() -> str:
    """The registry's proofs that the compiled runner with its first pass (float64 or float32)
    gives the float32 entry point's bits on all 2^32 inputs, per build variant
    (``fast64_proofs``, ``runner_proofs``)."""
    from ulplab.kernels import registry

    rows = []
    for name, k in registry.kernels().items():
        for field, first in (("fast64_proofs", "float64"), ("runner_proofs", "float32")):
            for variant, p in getattr(k, field, {}).items():
                rows.append([f"`{name}`", first, variant, f"{p.inputs:,}", f"{p.mismatches:,}",
                             f"{p.flagged:,}", p.date, f"{p.seconds:,.0f}", f"`{p.record}`"])
    if not rows:
        return "No kernel of the registry records a first-pass proof yet."
    missing = []
    for name, k in registry.kernels().items():
        have = {*getattr(k, "fast64_proofs", {}), *getattr(k, "runner_proofs", {})}
        lack = [v for v in ("avx512", "avx2", "portable") if v not in have]
        if lack:
            missing.append(f"`{name}` ({', '.join(lack)})")
    return "\n".join([
        "*Generated at build time from the `fast64_proofs` and `runner_proofs` of the registry "
        "entries, each run by `python benchmarks/verify_native.py --fast64 FUNC` (a float64 first "
        "pass) or `--runner FUNC` (the float32 one) and kept in the JSON named in the last column "
        "(with its date, time, CPU and compiler).*", "",
        _table(["kernel", "first pass", "build variant", "inputs", "mismatches",
                "sent to the second pass", "date", "seconds", "record"], rows, "lllrrrlrl")]
        + (["", "Not proved yet (build variants): " + ", ".join(missing) + "."] if missing
           else []))


def gen_cr_table() -> str:
    """The correctly rounded float32 entry point of each kernel: its rounding test's bound, the
    inputs it leaves undecided, its exceptions, and the exhaustive sweep against the oracle."""
    from ulplab.kernels import registry

    rows = []
    for name in registry.kernels():
        path = ROOT / "src" / "ulplab" / "kernels" / "exceptions" / f"{name}.json"
        if not path.exists():
            continue
        e = json.loads(path.read_text())
        bound = math.log2(float.fromhex(e["bound"]))
        sweep = RESULTS / "float32" / "det-float32" / f"{name}.json"
        if sweep.exists():
            s = json.loads(sweep.read_text())
            m = s["methods"][0]
            n = s["input_count"]
            wrong = n - round(m["exact_fraction"] * n)
            swept = (f"{wrong:,} of {n:,} (max {m['max_ulp']} ULP, NaN/inf "
                     f"{m['nan_mismatches']}/{m['inf_mismatches']})")
        else:
            swept = "not run"
        rows.append([f"`{name}`", f"2^{bound:g}", f"{e['undecided']:,}",
                     len(e["exceptions"]), swept, f"`{e['command']}`"])
    return "\n".join([
        "*Generated at build time from `src/ulplab/kernels/exceptions/*.json` (written by the "
        "command in the last column) and the exhaustive sweeps in "
        "`benchmarks/results/float32/det-float32/*.json` (`ulplab analyze FUNC --format float32 "
        "--method det --exhaustive --workers 2`, on the shared 2-core development machine; the "
        "JSON records no machine). Not correctly rounded: inputs whose result differs from the "
        "oracle's correctly rounded float32.*", "",
        _table(["kernel", "bound", "undecided (of 2^32)", "exceptions",
                "sweep: not correctly rounded", "scan"], rows, "lrrrll")])


# ---------------------------------------------------------------- speed


NATIVE_COLUMNS = (("odd", "odd, 1 thread"), ("det", "det, 1 thread"),
                  ("f32p", "det with its float32 first pass, 1 thread"), ("glibc", "glibc"),
                  ("numpy", "NumPy"), ("torch_1", "torch, 1 thread"), ("det_T", "det, T threads"),
                  ("torch_T", "torch, T threads"))


def _bfloat16_gelu(d: dict) -> str:
    """The sentence of a ``bench_native.py`` run's bfloat16 row (det.gelu against F.gelu)."""
    g = d["bfloat16_gelu"]
    return (f"bfloat16 `det.gelu` against `torch.nn.functional.gelu` on the same "
            f"{d['n']:,}-element PyTorch CPU tensor, {g['torch_threads']} torch threads: "
            f"{g['det_gelu_s'] * 1e3:.1f} ms against {g['torch_gelu_s'] * 1e3:.1f} ms "
            f"(ratio {g['ratio']:.2f}).")


def _native_targets() -> tuple[str, ...]:
    """``bench_native.py``'s default functions, its ``TARGETS`` (read from the script's source:
    it is not a module of the package)."""
    import ast

    tree = ast.parse((ROOT / "benchmarks" / "bench_native.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "TARGETS" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise RuntimeError("benchmarks/bench_native.py has no TARGETS")


def _native_cmd(d: dict, path: Path) -> str:
    """The ``bench_native.py`` command of a kept run: ``--funcs`` where it ran other functions
    than the default ones, ``--reused-output`` where it has those columns."""
    funcs = list(d.get("functions", {}))
    named = "" if sorted(funcs) == sorted(_native_targets()) else f" --funcs {','.join(funcs)}"
    if any("det_out_scaling" in f for f in d.get("functions", {}).values()):
        named += " --reused-output"
    return f"python benchmarks/bench_native.py --runs {d.get('runs', 7)}{named} --json {_rel(path)}"


def gen_native_speed() -> str:
    """Every ``bench_native.py`` run kept in ``benchmarks/results/native``: Melem/s per column,
    the det/torch ratio and the scaling from 1 to T threads, with the machine of each run."""
    parts = []
    for path in sorted((RESULTS / "native").glob("*.json")):
        d = json.loads(path.read_text())
        if isinstance(d, dict) and "functions" not in d and d.get("bfloat16_gelu"):
            cmd = (f"python benchmarks/bench_native.py --bfloat16-only --runs {d.get('runs')} "
                   f"--json {_rel(path)}")
            parts += [f"### {path.stem}", "", _source(path, cmd, _machine(d.get("machine"))),
                      "", _bfloat16_gelu(d), ""]
            continue
        if not isinstance(d, dict) or "functions" not in d:  # another script's record
            continue
        t = d.get("threads", "T")
        present = {k for f in d["functions"].values() for k in f["melem_per_s"]}
        known = [k for k, _ in NATIVE_COLUMNS]
        cols = [(k, label.replace("T threads", f"{t} threads")) for k, label in NATIVE_COLUMNS
                if k in present] + [(k, k) for k in sorted(present - set(known))]
        rows = []
        for func, f in d["functions"].items():
            mel = f["melem_per_s"]
            rows.append([func, *[f"{mel[k]:.0f}" if k in mel else "-" for k, _ in cols],
                         f"{f['det_T_over_torch_T']:.2f}" if "det_T_over_torch_T" in f else "-",
                         f"{f['det_scaling']:.2f}" if "det_scaling" in f else "-",
                         f"{f['torch_scaling']:.2f}" if "torch_scaling" in f else "-"])
        cmd = _native_cmd(d, path)
        parts += [f"### {path.stem}", "",
                  _source(path, cmd, _machine(d.get("machine"))), "",
                  f"{d['n']:,} float32 elements, median of {d.get('runs')} interleaved runs, "
                  f"build variant `{d.get('variant')}` (`{' '.join(d.get('flags', []))}`). "
                  "Melem/s (higher is faster); det/torch: time of det over time of torch, both "
                  f"on {t} threads; scaling: 1-thread time over {t}-thread time.", "",
                  _table(["function", *[c[1] for c in cols], f"det/torch time ({t} threads)",
                          "det scaling", "torch scaling"], rows, "l" + "r" * (len(cols) + 3))]
        if d.get("bfloat16_gelu"):
            parts += ["", _bfloat16_gelu(d)]
        th = d.get("threshold")
        if th:
            trows = [[f"{r['n']:,}", *[f"{r[k] * 1e6:.1f}" for k in
                                       ("exp_1", "exp_T", "lookup_1", "lookup_T")]]
                     for r in th]
            parts += ["", "Where more threads start to pay (`--threshold`; µs per call):", "",
                      _table(["elements", "exp, 1 thread", f"exp, {t} threads",
                              "lookup, 1 thread", f"lookup, {t} threads"], trows, "lrrrr")]
        parts.append("")
    if not parts:
        raise FileNotFoundError("no bench_native.py run in benchmarks/results/native: they are "
                                "written by python benchmarks/bench_native.py --json PATH")
    return "\n".join(parts)


# ---------------------------------------------------------------- float32 sweeps


def _float32_rows(paths: list[Path]) -> list[list[object]]:
    rows = []
    for path in paths:
        r = json.loads(path.read_text())
        n, arb = r["input_count"], r["oracle"]["arb_evaluations"]
        run = r.get("run")
        resumed = r.get("resumed_inputs", 0)
        when = f"{r['seconds'] / 60:.1f} min"
        if resumed:
            when += f" for the last {1 - resumed / n:.0%} (resumed)"
        if run:
            w = run["workers"]
            when += f", {w} worker{'s' if w > 1 else ''}"
        for m in r["methods"]:
            wrong = n - round(m["exact_fraction"] * n)
            rows.append([r["function"], m["method"].removeprefix("peer:"),
                         "all 2^32" if n == 1 << 32 else f"{n:,}",
                         f"{wrong:,} ({wrong / n:.2e})", m["max_ulp"],
                         f"{m['nan_mismatches']}/{m['inf_mismatches']}", when,
                         f"{arb:,} ({arb / n:.1e})"])
    return rows


F32_COLUMNS = ["function", "backend", "inputs", "not correctly rounded (share)", "max ULP",
               "NaN/inf disagreements", "sweep time", "inputs sent to Arb"]


def gen_float32_peers() -> str:
    """NumPy and glibc (and PyTorch) over all 2^32 float32 inputs, from the committed sweeps."""
    main = _globbed(RESULTS / "float32", "python benchmarks/float32_peers.py run")
    torch = _globbed(RESULTS / "float32" / "torch", "ulplab peers FUNC --format float32 "
                     "--exhaustive --backends torch-f32 --json PATH")
    commands = sorted({json.loads(p.read_text()).get("run", {}).get("commit", "") for p in main}
                      - {""})
    out = [
        "*Generated at build time from `benchmarks/results/float32/*.json`, written by `python "
        "benchmarks/float32_peers.py run` (each file's `run` records the command, the workers, "
        "the load average and the commit: " + ", ".join(commands) + "; machine: the shared "
        "2-core development machine, AMD EPYC with AVX2, not recorded in the JSON).*", "",
        _table(F32_COLUMNS, _float32_rows(main), "lllrrrlr")]
    if torch:
        out += ["", "*PyTorch's CPU float32 functions, from `benchmarks/results/float32/torch/"
                "*.json`, written by `ulplab peers FUNC --format float32 --exhaustive --backends "
                "torch-f32 --workers 2 --json PATH` (torch 2.13.0, CPU capability AVX2; machine "
                "not recorded in the JSON).*", "",
                _table(F32_COLUMNS, _float32_rows(torch), "lllrrrlr")]
    return "\n".join(out)


def gen_float32_det() -> str:
    """The det kernels' correctly rounded entry point over all 2^32 float32 inputs."""
    paths = _globbed(RESULTS / "float32" / "det-float32", "ulplab analyze FUNC --format "
                     "float32 --method det --exhaustive --json PATH")
    return "\n".join([
        "*Generated at build time from `benchmarks/results/float32/det-float32/*.json`, written "
        "by `ulplab analyze FUNC --format float32 --method det --exhaustive --workers 2 --json "
        "PATH` (the method was then named `det-float32`; machine: the shared 2-core development "
        "machine, not recorded in the JSON).*", "",
        _table(F32_COLUMNS, _float32_rows(paths), "lllrrrlr")])


# ---------------------------------------------------------------- formats


def gen_formats() -> str:
    """Every format's traits and counts, as ``ulplab formats --details --json`` computes them."""
    from ulplab.formats import FORMATS, counts

    rows = []
    for f in FORMATS.values():
        c = counts(f, ftz=False)
        nan = (f"0x{f.nan_bits:x}" if f.has_nan else
               f"none (ulplab marks a NaN result 0x{f.nan_bits:x})")
        rows.append([f.name, f.bits, f.precision, f"{f.emin}..{f.emax}", _power_of_two(f.max_value),
                     _power_of_two(f.min_subnormal), "yes" if f.signed else "no",
                     "yes" if f.has_neg_zero else "no", "yes" if f.has_inf else "no", nan,
                     f.overflow, f"{c['patterns']:,} / {c['finite']:,} / {c['subnormal']:,}"])
    return "\n".join([
        f"*Generated at build time from `ulplab.formats.FORMATS` (what `ulplab formats --details "
        f"--json PATH` writes; {_build_machine()}, ml_dtypes {_version('ml_dtypes')}).*", "",
        _table(["format", "bits", "p", "emin..emax", "max", "min positive", "sign", "−0", "∞",
                "NaN pattern", "overflow", "patterns / finite / subnormal"], rows,
               "lrrlrrllllll")])


def _power_of_two(v: float) -> str:
    """2^k for an exact power of two from 2^±8 on, else 6 significant digits."""
    m, e = math.frexp(v)
    return f"2^{e - 1}" if m == 0.5 and abs(e - 1) >= 8 else f"{v:.6g}"


def _version(module: str) -> str:
    try:
        return importlib.import_module(module).__version__
    except (ImportError, AttributeError):
        return "not installed"


# ---------------------------------------------------------------- report cards


CARD_COMMANDS = {
    "card-*.json": "ulplab peers --all-functions --format F --json docs/data/card-F.json",
    "determinism*.json": "ulplab determinism --card --json docs/data/determinism.json",
}


def _demoted(markdown: str) -> str:
    """A card's Markdown under the page's own title: every ATX heading one level deeper (outside
    code fences)."""
    out, fenced = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        out.append("#" + line if not fenced and re.match(r"#{1,5} ", line) else line)
    return "\n".join(out)


def _card_pages(pattern: str, what: str) -> str:
    """Every ``docs/data/PATTERN`` rendered by ``ulplab.report.card_md.card_markdown`` (which
    writes the machine, the versions and the command of the run above its tables)."""
    paths = [p for p in sorted(DATA.glob(pattern)) if p.name != FLOAT32_CARD.name]
    try:
        from ulplab.report.card_md import card_markdown
    except ImportError:
        card_markdown = None
    if not paths:
        raise FileNotFoundError(f"no docs/data/{pattern} is committed: the {what} is made by "
                                f"{CARD_COMMANDS[pattern]}")
    parts = []
    for path in paths:
        data = json.loads(path.read_text())
        command = data.get("command", "not recorded in the JSON")
        if card_markdown is None:
            parts += [f"## {path.stem}", "",
                      _source(path, command if isinstance(command, str) else " ".join(command),
                              _machine(data.get("machine"))), "",
                      "This card has not been rendered: `ulplab.report.card_md` is not in "
                      "this checkout.", ""]
            continue
        parts += [_demoted(card_markdown(data)), "",
                  f"*Rendered at build time from `{_rel(path)}` by "
                  "`ulplab.report.card_md.card_markdown`.*", ""]
    return "\n".join(parts)


def gen_cards() -> str:
    return _card_pages("card-*.json", "accuracy card")


def gen_determinism() -> str:
    return _card_pages("determinism*.json", "determinism card")


# ---------------------------------------------------------------- recorded runs


def _recorded(name: str) -> tuple[Path, dict[str, Any]]:
    """``docs/data/NAME.json``, written by ``python docs/record_run.py NAME -- COMMAND``."""
    path = DATA / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"{_rel(path)} is missing: record it with python "
                                f"docs/record_run.py {name} -- COMMAND (see docs/record_run.py)")
    return path, json.loads(path.read_text())


def _recorded_source(path: Path, rec: dict[str, Any]) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in rec["versions"].items())
    each = f" for each of {', '.join(rec['each'])}" if rec.get("each") else ""
    load = rec.get("load_average")
    busy = (f"; 1-minute load average {load[0]} before, {load[1]} after (other jobs on the "
            "machine make timings pessimistic)" if load else "")
    results = rec["result"].values() if rec.get("each") else [rec["result"]]
    flags = (f" --each {','.join(rec['each'])}" if rec.get("each") else "") + (
        " --stdout" if all(isinstance(r, dict) and set(r) == {"stdout"} for r in results) else "")
    return (f"*Generated from `{_rel(path)}`: `{rec['command']}`{each}, run on {rec['date']} "
            f"at commit {rec['commit']} (recorded by `python docs/record_run.py {path.stem}"
            f"{flags} -- COMMAND`); machine: {_machine(rec['machine'])}; versions: "
            f"{versions}{busy}.*")


def gen_peers_terminal(name: str) -> str:
    """What ``ulplab peers`` prints for a recorded run: its JSON through the CLI's own tables
    (``ulplab.report.peers_tables``), at 100 columns."""
    from ulplab.report import console, peers_tables

    path, rec = _recorded(name)
    card = json.loads(json.dumps(rec["result"]))
    for row in card["backends"]:  # JSON keeps inf and NaN as text; the tables take floats
        for w in row["worst"] + row["mismatch_examples"]:
            for key in ("x", "got", "expected"):
                if isinstance(w.get(key), str):
                    w[key] = float(w[key])
    con = console(width=100)
    with con.capture() as cap:
        for t in peers_tables(card):
            con.print(t)
    text = "\n".join(line.rstrip() for line in cap.get().splitlines())
    return "\n".join([_recorded_source(path, rec), "", "```text", text.strip("\n"), "```"])


def gen_determinism_kernels(name: str) -> str:
    """``ulplab determinism FUNC`` for each kernel of a recorded run: inputs checked and the
    mismatches of every backend against ulplab's NumPy kernel."""
    path, rec = _recorded(name)
    backends = list(dict.fromkeys(b["backend"] for r in rec["result"].values()
                                  for b in r["backends"]))
    rows = []
    for func, r in rec["result"].items():
        got = {b["backend"]: b for b in r["backends"]}
        checked = {b["checked"] for b in r["backends"]}
        rows.append([func, ", ".join(f"{c:,}" for c in sorted(checked)),
                     *[f"{got[b]['mismatches']:,}" if b in got else "skipped" for b in backends]])
    return "\n".join([_recorded_source(path, rec), "",
                      _table(["function", "inputs checked", *backends], rows,
                             "lr" + "r" * len(backends))])


def gen_faithful(name: str) -> str:
    """``ulplab faithful FUNC`` for each kernel of a recorded run."""
    path, rec = _recorded(name)
    rows = [[func, f"{r['checked']:,}", f"{r['unfaithful']:,}", f"{r['outside_bracket']:,}",
             f"{r['decided_by_oracle']:,}"] for func, r in rec["result"].items()]
    return "\n".join([_recorded_source(path, rec), "",
                      _table(["function", "inputs", "beyond 1 ULP",
                              "outside bracket (1 ULP)", "decided by Arb"], rows, "lrrrr")])


SOLLYA_PUBLISHED = {"fit-sin": "1.81e−9", "fit-exp": "1.07e−4", "fit-erf": "— (fails: non-Haar)"}
"""Sollya 8.0's figures for the same three fits, as published with Sollya (float32
coefficients, absolute error). Sollya is not installed here, so they are quoted, not re-run; the
ulplab column beside them is generated from the recorded runs."""


def gen_sollya() -> str:
    """``ulplab fit`` beside Sollya's published figures for the same fits."""
    rows, sources = [], []
    for name, sollya in SOLLYA_PUBLISHED.items():
        path, rec = _recorded(name)
        r = rec["result"]
        lo, hi = (float.fromhex(v) for v in r["interval"])
        what = (f"{r['function']} on [{lo:.6g}, {hi:.6g}], monomials "
                f"{','.join(map(str, r['monomials']))}")
        rows.append([_cell(what), sollya, f"{r['error']:.4e}", f"{r['real_minimax_error']:.4e}",
                     f"`{_cell(r['command'].split(' --json')[0])}`"])
        sources.append(_recorded_source(path, rec))
    return "\n".join([
        *sources, "",
        _table(["fit (float32 coefficients, absolute error)", "Sollya 8.0 (published)",
                "ulplab (measured)", "real minimax (exact coefficients)", "command"], rows,
               "lrrrl")])


def gen_b3_steps() -> str:
    """What each change of B3 Pure (improved)'s Phi buys: the method rebuilt with the seed's
    5 erf Taylor terms or 10, and A&S 7.1.26's own a_k or the refitted ones, each measured on
    every bfloat16 and float16 input (``ulplab.analyze``)."""
    import ulplab
    from ulplab.methods import methods_for
    from ulplab.methods.gelu import erf_b3

    method = {m.name: m for m in methods_for("gelu")}["B3 Pure (improved)"]
    rows = []
    for terms in (erf_b3.SEED_ERF_TERMS, len(erf_b3.ERF_TAYLOR)):
        for label, a_k in (("A&S", erf_b3.AS_COEFFS_SEED), ("refitted", erf_b3.AS_COEFFS)):
            built = method.rebuild(ERF_TAYLOR=erf_b3.ERF_TAYLOR[:terms], AS_COEFFS=a_k)
            cells = []
            for fmt in ("bfloat16", "float16"):
                r = ulplab.analyze(built, "gelu", fmt)
                cells.append(f"{r.max_ulp} / {r.mean_ulp:.4f}")
            seed = " (seed)" if terms == erf_b3.SEED_ERF_TERMS else ""
            rows.append([f"{terms}{seed}", label, *cells])
    return "\n".join([
        "*Generated at build time: `B3 Pure (improved)` rebuilt "
        "(`method.rebuild(ERF_TAYLOR=..., AS_COEFFS=...)`, `ulplab.methods.gelu.erf_b3`) and "
        f"measured by `ulplab.analyze(method, \"gelu\", FORMAT)` on every input "
        f"({_build_machine()}); max / mean ULP; this project's exp throughout.*", "",
        _table(["erf Taylor terms", "A&S 7.1.26 a_k", "bfloat16", "float16"], rows, "llrr")])


def gen_recorded_output(name: str) -> str:
    """A benchmark's output as it printed it, from a run recorded with ``--stdout``."""
    path, rec = _recorded(name)
    results = rec["result"] if rec.get("each") else {"": rec["result"]}
    parts = [_recorded_source(path, rec), ""]
    for item, r in results.items():
        if item:
            parts += [f"`{item}`:", ""]
        parts += ["```text", r["stdout"].rstrip("\n"), "```", ""]
    return "\n".join(parts).rstrip("\n")


def gen_native_ratios(name: str) -> str:
    """One kept ``bench_native.py`` run as the correctly rounded entry point's time against
    glibc's scalar function and NumPy's ufunc, single thread."""
    path = _need(RESULTS / "native" / f"{name}.json",
                 "python benchmarks/bench_native.py --runs N --json PATH")
    d = json.loads(path.read_text())
    rows = []
    for func, f in d["functions"].items():
        mel = f["melem_per_s"]
        if not {"det", "glibc", "numpy"} <= set(mel):
            continue
        rows.append([func, f"{mel['det']:.0f}", f"{mel['glibc']:.0f}", f"{mel['numpy']:.0f}",
                     f"{mel['glibc'] / mel['det']:.2f}", f"{mel['numpy'] / mel['det']:.2f}"])
    cmd = _native_cmd(d, path)
    simd = d.get("peer_simd")
    out = [_source(path, cmd, _machine(d.get("machine"))), "",
           f"{d['n']:,} float32 elements, 1 thread, median of {d.get('runs')} interleaved runs, "
           f"build variant `{d.get('variant')}`"
           + (", peers dispatching to " + ", ".join(f"{k} {v}" for k, v in simd.items())
              if simd else "")
           + "; Melem/s, and det's time over glibc's and over NumPy's (below 1: det is "
           "faster).", "",
           _table(["function", "det", "glibc", "numpy", "det/glibc time", "det/numpy time"],
                  rows, "lrrrrr")]
    if d.get("bfloat16_gelu"):
        out += ["", _bfloat16_gelu(d)]
    return "\n".join(out)


def gen_pytest_failure() -> str:
    """The failure ``assert_max_ulp`` raises for the tanh form of GELU in float32 measured
    against GELU on every bfloat16 input, as pytest prints it (``E`` lines), made at build
    time."""
    import numpy as np

    from ulplab.testing import UlpAssertionError, assert_max_ulp

    def tanh_gelu(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, np.float32)
        inner = np.float32(0.7978846) * (x + np.float32(0.044715) * x * x * x)
        return np.float32(0.5) * x * (np.float32(1) + np.tanh(inner))

    try:
        with np.errstate(all="ignore"):
            assert_max_ulp(tanh_gelu, "gelu", "bfloat16", max_ulp=1)
    except UlpAssertionError as failure:
        first, *rest = str(failure).splitlines()
    else:
        raise AssertionError("tanh_gelu passed max_ulp=1: the page's example no longer fails")
    lines = [f"E       {UlpAssertionError.__module__}.{UlpAssertionError.__name__}: {first}"]
    lines += [f"E       {line}" for line in rest]
    return "\n".join([f"*Generated at build time by calling `assert_max_ulp(tanh_gelu, \"gelu\", "
                      f"\"bfloat16\", max_ulp=1)` ({_build_machine()}).*", "", "```text",
                      *lines, "```"])


# ---------------------------------------------------------------- the float32 card


FLOAT32_CARD = DATA / "card-float32.json"
FLOAT32_CARD_COMMAND = ("ulplab peers --all-functions --format float32 --records "
                        "benchmarks/results/float32/card --records "
                        "benchmarks/results/float32/det-float32 --json docs/data/card-float32.json")


def gen_card_float32() -> str:
    """The float32 report card: per function, every backend's row with what it covers
    (exhaustive over 2^32 inputs from the sweep it names, or sampled), then the sweeps."""
    path = _need(FLOAT32_CARD, FLOAT32_CARD_COMMAND)
    data = json.loads(path.read_text())
    if data.get("format") != "float32" or data.get("kind") != "accuracy card":
        raise ValueError(f"{path.name} is not a float32 accuracy card")
    m = data["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in data["versions"].items() if v is not None)
    out = [_source(path, data["command"], _machine(m)) + f" Versions: {versions}. "
           f"Wall time {data['seconds']:.0f} s.", "", _cell(data["coverage"]) + ".", ""]
    records: dict[str, dict[str, Any]] = {}
    exhaustive = elsewhere = sampled = 0
    for card in data["cards"]:
        rows, notes = [], []
        for r in card["backends"]:
            cov = r["coverage"]
            if cov.startswith("exhaustive"):
                exhaustive += cov == "exhaustive (2^32)"
                elsewhere += cov != "exhaustive (2^32)"
                records[r["record"]] = r
                cov = f"{cov}: `{Path(r['record']).name}`"
            else:
                sampled += 1
            rows.append([_cell(r["backend"]), r["computes_in"], f"{r['max_ulp']:,}",
                         f"{r['mean_ulp']:.3g}", f"{100 * r['exact_fraction']:.3f}%",
                         r["nan_mismatches"], r["inf_mismatches"], cov])
            if "record_rejected" in r:
                notes.append(f"- {r['backend']}: the sweep `{r['record_rejected']['record']}` "
                             f"is not used: {r['record_rejected']['reason']}.")
        absent = "; ".join(f"{s['backend']} ({s['reason']})" for s in card["skipped"])
        out += [f"### {card['function']}", "",
                _table(["backend", "in", "max ULP", "mean ULP", "exact", "NaN!", "inf!",
                        "inputs"], rows, "llrrrrrl"), "", *notes,
                *([_cell(f"Not measured: {absent}."), ""] if absent else [])]
    srows = []
    for rec, r in sorted(records.items()):
        mach = r.get("record_machine")
        srows.append([f"`{rec}`", _cell(r["record_method"]),
                      _cell(_machine(mach) if mach else "not recorded in the JSON"),
                      _cell(f"`{r['record_command']}`" if r.get("record_command") else
                            "ulplab analyze FUNC --format float32 --method det --exhaustive"),
                      r.get("record_commit") or "-"])
    out += ["### The sweeps merged", "",
            f"{exhaustive} rows exhaustive over all 2^32 inputs on this card's machine, "
            f"{elsewhere} exhaustive on another machine, {sampled} sampled. Each "
            "exhaustive row's figures are those of the sweep below; its DAZ/FTZ behaviour was "
            "measured on the sample, which holds the sweep's worst inputs and gave the same "
            "max ULP there (a sweep that disagrees with the sample is not used).", "",
            _table(["record", "method", "machine", "command", "commit"], srows, "lllll")]
    return "\n".join(out)


def gen_analyze(name: str) -> str:
    """The table of ``ulplab analyze`` from a recorded run: one row per method, by max ULP."""
    path, rec = _recorded(name)
    res = rec["result"]
    rows = []
    for m in sorted(res["methods"], key=lambda m: (m["max_ulp"], m["mean_ulp"])):
        regions = m.get("regions", {})
        worst = max(regions, key=lambda r: regions[r]["max_ulp"]) if regions else "-"
        mean = m["mean_ulp"]
        rows.append([_cell(m["method"]), f"{mean:.3f}" if mean < 1000 else f"{mean:.1f}",
                     m["max_ulp"], f"{m['exact_fraction']:.2%}", f"{m['within1_fraction']:.3%}",
                     m["nan_mismatches"], m["inf_mismatches"],
                     f"{worst} {regions[worst]['max_ulp']}" if regions else "-"])
    return "\n".join([
        _recorded_source(path, rec), "",
        f"{res['function']} on every {res['format']} input (oracle: {res['rounding']}, "
        f"denormals: {res['denormals']}), sorted by max ULP:", "",
        _table(["method", "mean", "max", "exact", "<=1", "NaN!", "Inf!", "worst region"], rows,
               "lrrrrrrl")])


# ---------------------------------------------------------------- ulplab synth


def gen_synth_recipes() -> str:
    """The recipes ulplab ships (src/ulplab/methods/recipes), each with its cost and proof."""
    from ulplab.methods.synthesized import RECIPE_DIR, method_name, shipped_recipes
    from ulplab.synth import op_counts, total

    rows = []
    for r in shipped_recipes():
        ops = op_counts(r)
        shape = f"{r.template}, {r.pieces} × deg {r.degree}"
        if r.core:
            shape += f", core deg {len(r.core) - 1}"
        rows.append([r.function, r.format, _cell(method_name(r)), total(ops), r.table_entries,
                     _cell(shape), f"{r.proof['accepted']:,} / {r.proof['inputs_verified']:,}",
                     r.proof["max_ulp"], _cell(f"`{r.provenance.get('command', '')}`")])
    rows.sort(key=lambda row: (row[1], row[0], str(row[2])))
    return "\n".join([
        f"*Generated from the recipes in `{_rel(RECIPE_DIR)}` (each recipe's own proof and "
        f"command); operations traced at build time ({_build_machine()}).*", "",
        _table(["function", "format", "method", "ops", "table", "shape", "inputs right",
                "max ULP", "made by"], rows, "lllrrlrrl")])


def gen_synth_profiles() -> str:
    """The target profiles of ``ulplab synth`` (``ulplab.synth.cost.PROFILES``)."""
    from ulplab.synth.cost import PROFILES

    rows = [[f"`{p.name}`", "yes" if p.use_fma else "no (multiply, then add)",
             "yes" if p.division else "no", f"{p.max_table:,}",
             _cell(", ".join(f"{k} {v:g}" for k, v in p.weights.items()) or "1 each")]
            for p in PROFILES.values()]
    return "\n".join([
        "*Generated at build time from `ulplab.synth.cost.PROFILES`.*", "",
        _table(["profile", "FMA", "division", "table (float32 words)", "operation weights"],
               rows, "lllrl")])


def gen_synth_runs() -> str:
    """Every ``benchmarks/bench_synth.py`` run kept in ``benchmarks/results/synth``."""
    out = []
    for path in sorted((RESULTS / "synth").glob("*.json")):
        data = json.loads(path.read_text())
        rows = [[r["function"], r["format"], r["profile"], r["max_ulp"],
                 r.get("ops", "none found"), r.get("table_words", "-"), r["det_ops"],
                 r.get("det_over_synth", "-"), r["seconds"], r["candidates"]]
                for r in data["rows"]]
        out += [f"#### `{_rel(path)}`", "",
                _source(path, data.get("command", "python benchmarks/bench_synth.py"),
                        _machine(data.get("machine"))), "",
                _table(["function", "format", "profile", "≤ ULP", "ops", "table", "det ops",
                        "det / synth", "seconds", "candidates"], rows, "lllrrrrrrr"), ""]
    if not out:
        raise FileNotFoundError("no JSON run in benchmarks/results/synth: they are written by "
                                "python benchmarks/bench_synth.py")
    return "\n".join(out)


def gen_synth_pareto() -> str:
    """``ulplab synth gelu --format bfloat16 --pareto --json ...``: synthesized kernels at 0, 1,
    2 and 4 ULP beside every registered method with a claim, sorted by max ULP then cost."""
    path = _need(DATA / "synth-pareto-gelu-bfloat16.json",
                 "ulplab synth gelu --format bfloat16 --pareto --json PATH")
    res = json.loads(path.read_text())
    rows = sorted(res["rows"], key=lambda r: (r["max_ulp"] is None, r["max_ulp"] or 0,
                                              r["ops"] or 0))
    table = [[_cell(r["method"]), _cell(r["kind"]), "-" if r["max_ulp"] is None else r["max_ulp"],
              "-" if r["ops"] is None else r["ops"],
              "-" if r.get("table_words") is None else r["table_words"]] for r in rows]
    return "\n".join([
        _source(path, "ulplab synth gelu --format bfloat16 --pareto --json " + _rel(path),
                "see the benchmark runs below for the machine of that session"), "",
        _table(["method", "kind", "max ULP", "ops", "table words"], table, "llrrr")])


def gen_gpu_runs() -> str:
    """Every ``verify_gpu.py`` run kept in ``benchmarks/results/gpu``: per kernel and GPU backend,
    the inputs compared with the CPU kernel and the results whose bits differ."""
    paths = _globbed(RESULTS / "gpu", "python benchmarks/verify_gpu.py --json PATH")
    parts = []
    for path in paths:
        d = json.loads(path.read_text())
        v = d.get("versions", {})
        machine = (f"{d.get('gpu')} (compute capability {'.'.join(map(str, d['capability']))}),"
                   f" CUDA {v.get('cuda')}, torch {v.get('torch')}, Triton {v.get('triton')}; "
                   f"reference on {d.get('cpu')}, {d.get('cpu_count')} cores, "
                   f"{d.get('reference')}; {d.get('date')}")
        backends = sorted({r["backend"] for r in d["rows"]})
        cells: dict[str, dict[str, str]] = {}
        for r in d["rows"]:
            if "error" in r:
                cell = r["error"]
            else:
                cell = f"{r['mismatches']:,}" if r["mismatches"] else "0"
                if r["mismatches"] and r.get("first"):
                    e = r["first"][0]
                    cell += f" (x = {e['x']}: {e['got']}, want {e['want']})"
            cells.setdefault(r["function"], {})[r["backend"]] = cell
        inputs = {r.get("inputs") for r in d["rows"] if "inputs" in r}
        parts += [f"### {path.stem}", "", _source(path, d["command"], machine), "",
                  f"Inputs per kernel and backend: {', '.join(f'{n:,}' for n in sorted(inputs))}"
                  f" (2^{d['log2_inputs']}). Cells: results whose bits differ from the CPU "
                  "kernel's (the first one in brackets).", "",
                  _table(["kernel", *backends],
                         [[f, *[c.get(b, "-") for b in backends]] for f, c in cells.items()],
                         "l" + "r" * len(backends)), ""]
    return "\n".join(parts)


GENERATORS: dict[str, Callable[..., str]] = {
    "card-float32": gen_card_float32,
    "peers-terminal": gen_peers_terminal,
    "determinism-kernels": gen_determinism_kernels,
    "faithful": gen_faithful,
    "sollya": gen_sollya,
    "b3-steps": gen_b3_steps,
    "pytest-failure": gen_pytest_failure,
    "recorded-output": gen_recorded_output,
    "native-ratios": gen_native_ratios,
    "synth-pareto": gen_synth_pareto,
    "synth-recipes": gen_synth_recipes,
    "synth-runs": gen_synth_runs,
    "synth-profiles": gen_synth_profiles,
    "analyze": gen_analyze,
    "cli": gen_cli,
    "methods-zoo": gen_methods_zoo,
    "methods-cost": gen_methods_cost,
    "gelu-improvements": gen_gelu_improvements,
    "kernels": gen_kernels,
    "kernel-proofs": gen_kernel_proofs,
    "fast64-proofs": gen_fast64_proofs,
    "cr-table": gen_cr_table,
    "native-speed": gen_native_speed,
    "gpu-runs": gen_gpu_runs,
    "float32-peers": gen_float32_peers,
    "float32-det": gen_float32_det,
    "formats": gen_formats,
    "cards": gen_cards,
    "determinism": gen_determinism,
}


# ---------------------------------------------------------------- mkdocs events


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    files.append(File.generated(config, PARETO_SVG, content=pareto_svg()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    def replace(match: re.Match[str]) -> str:
        name, arg = match.group(1), match.group(2)
        if name not in GENERATORS:
            raise KeyError(f"{page.file.src_uri}: no generator named {name!r} in docs/hooks.py "
                           f"(known: {', '.join(GENERATORS)})")
        return GENERATORS[name]() if arg is None else GENERATORS[name](arg)

    return MARKER.sub(replace, markdown)
