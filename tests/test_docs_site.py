"""The documentation site: it builds with ``mkdocs build --strict``, its generated pages hold what
the registries hold, its code examples run, and the README is a front page that links to it."""

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"

# one worker builds the site once for every test here
pytestmark = pytest.mark.xdist_group("docs_site")

FENCE = re.compile(r"^(?P<skip><!-- skip[^\n]*-->\n)?```(?P<lang>[a-z]*)\n(?P<body>.*?)^```$",
                   re.MULTILINE | re.DOTALL)


def code_blocks(markdown: str, lang: str) -> list[str]:
    """The ```lang blocks of a page, in order, less those with a ``<!-- skip: why -->`` line
    right above them."""
    return [m["body"] for m in FENCE.finditer(markdown)
            if m["lang"] == lang and not m["skip"]]


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _env():
    env = dict(os.environ)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra is not installed")
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f",
                          str(ROOT / "mkdocs.yml"), "-d", str(out)],
                         capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=300)
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout}\n{run.stderr}"
    return out


def _text(site: Path, page: str) -> str:
    """A built page's HTML, table cells without their alignment attributes."""
    return re.sub(r"<td [^>]*>", "<td>", (site / page / "index.html").read_text())


def test_site_builds_strict_with_every_page_of_the_nav(site):
    nav_pages = re.findall(r":\s+([\w/.-]+\.md)$", (ROOT / "mkdocs.yml").read_text(),
                           re.MULTILINE)
    assert len(nav_pages) >= 30
    for page in nav_pages:
        assert (DOCS / page).exists(), page
        html = site / (page[:-3].removesuffix("index") + "/index.html").lstrip("/")
        assert html.exists(), f"{page} was not built"
    # the build's own scripts and data stay out of the site
    assert not list(site.rglob("*.py")) and not (site / "data").exists()


def test_cli_reference_has_every_subcommand_and_option(site):
    from ulplab.cli.main import build_parser

    html = _text(site, "reference/cli")
    hooks = _hooks()
    subs = hooks._subcommands(build_parser())
    assert len(subs) >= 15
    for name, _, sub in subs:
        assert f'id="{name}"' in html, name
        for action in sub._actions:
            for opt in action.option_strings:
                assert opt in html, f"{name} {opt}"


def test_methods_zoo_lists_every_registered_method_and_the_figure(site):
    from ulplab.methods import all_methods
    from ulplab.studies.cost_model import cost_model

    html = _text(site, "methods/zoo")
    import html as html_lib

    text = html_lib.unescape(html)
    for m in all_methods():
        assert m.name in text, m.name
    ops = cost_model("bfloat16")["methods"]
    b3 = next(r for r in ops if r["method"] == "B3 Pure")
    row = re.search(r"<td>B3 Pure</td>(.*?)</tr>", text, re.DOTALL)
    assert row and f"<td>{b3['total_ops']}</td>" in row.group(1)
    svg = (site / "methods" / "pareto-bfloat16.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "Pareto front" in svg


def test_kernel_pages_hold_the_registry_and_the_runs(site):
    import json

    from ulplab.kernels import registry

    html = _text(site, "kernels")
    for name, k in registry.kernels().items():
        assert f"<code>{name}</code>" in html
        assert k.golden["float32"][:12] in html
    cr = _text(site, "kernels/float32")
    exp = json.loads((ROOT / "src/ulplab/kernels/exceptions/exp.json").read_text())
    assert f"{exp['undecided']:,}" in cr
    speed = _text(site, "kernels/speed")
    for path in (ROOT / "benchmarks/results/native").glob("*.json"):
        run = json.loads(path.read_text())
        if not isinstance(run, dict) or "functions" not in run:  # not a bench_native run
            continue
        assert path.stem in speed and run["machine"]["cpu"] in speed
        first = next(iter(run["functions"].values()))  # exp in the default runs
        for rate in first["melem_per_s"].values():
            assert f"<td>{rate:.0f}</td>" in speed


def test_recorded_analyze_table_matches_its_json(site):
    import json

    rec = json.loads((DOCS / "data" / "analyze-gelu-bfloat16.json").read_text())
    html = _text(site, "output")
    assert rec["command"] in html and rec["machine"]["cpu"] in html
    for m in rec["result"]["methods"]:
        assert f"<td>{m['max_ulp']}</td>" in html


def test_report_card_pages_render_every_committed_card(site):
    import json

    for page, pattern in (("card", "card-*.json"), ("determinism", "determinism*.json")):
        html = _text(site, page)
        for path in (DOCS / "data").glob(pattern):
            assert f"docs/data/{path.name}" in html
            data = json.loads(path.read_text())
            assert data["command"] in html
            for card in data.get("cards", []):
                assert f"<h3 id=\"{card['function']}" in html, (path.name, card["function"])


def test_an_unknown_generator_fails_the_build():
    hooks = _hooks()

    class Page:
        class file:
            src_uri = "x.md"

    with pytest.raises(KeyError, match="no generator named 'no-such-table'"):
        hooks.on_page_markdown("a\n<!-- generated: no-such-table -->\n", Page, None, None)
    assert hooks.on_page_markdown("no marker\n", Page, None, None) == "no marker\n"


BUILT_FROM_REGISTRIES = {"cli", "methods-zoo", "methods-cost", "gelu-improvements", "kernels",
                         "kernel-proofs", "fast64-proofs", "cr-table", "formats", "synth-recipes",
                         "b3-steps", "pytest-failure", "synth-profiles"}
"""Generators that compute their table at build time from the registries (no JSON run)."""
FROM_JSON = [("card-float32", None), ("cards", None), ("determinism", None),
             ("synth-pareto", None), ("synth-runs", None), ("native-speed", None),
             ("gpu-runs", None),
             ("float32-peers", None), ("float32-det", None), ("sollya", None),
             ("analyze", "analyze-gelu-bfloat16"), ("peers-terminal", "peers-gelu-bfloat16"),
             ("determinism-kernels", "kernels-determinism"), ("faithful", "faithful-kernels"),
             ("recorded-output", "bench-analyze"),
             ("native-ratios", "fast64-avx512-2026-11-25")]


def test_every_generator_from_a_json_run_fails_loudly_without_it(tmp_path, monkeypatch):
    """With no committed JSON, each generator that reads one raises, naming what is missing and
    the command that writes it: a page never shows a table that was not generated."""
    hooks = _hooks()
    assert {name for name, _ in FROM_JSON} == set(hooks.GENERATORS) - BUILT_FROM_REGISTRIES
    for folder in ("data", "results/float32/torch", "results/float32/det-float32",
                   "results/native", "results/synth", "results/gpu"):
        (tmp_path / folder).mkdir(parents=True)
    monkeypatch.setattr(hooks, "ROOT", tmp_path)
    monkeypatch.setattr(hooks, "DATA", tmp_path / "data")
    monkeypatch.setattr(hooks, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(hooks, "FLOAT32_CARD", tmp_path / "data" / "card-float32.json")
    for name, arg in FROM_JSON:
        with pytest.raises(FileNotFoundError, match=r"missing|no JSON|no docs/data|no bench"):
            hooks.GENERATORS[name]() if arg is None else hooks.GENERATORS[name](arg)


def _float32_card(rows):
    return {"kind": "accuracy card", "format": "float32", "command": "ulplab peers X",
            "coverage": "float32: rows", "machine": {"cpu": "CPU A"}, "versions": {"numpy": "2"},
            "seconds": 1.0, "cards": [{"function": "exp", "backends": rows, "skipped": []}]}


def test_float32_card_rows_render_what_they_cover(tmp_path, monkeypatch):
    hooks = _hooks()
    base = {"computes_in": "float32", "mean_ulp": 0.1, "exact_fraction": 0.9,
            "nan_mismatches": 0, "inf_mismatches": 0}
    rows = [{**base, "backend": "det", "max_ulp": 0, "coverage": "exhaustive (2^32)",
             "record": "benchmarks/results/float32/det-float32/exp.json",
             "record_method": "det-float32", "record_machine": None, "record_command": None,
             "record_commit": None},
            {**base, "backend": "libm", "max_ulp": 1,
             "coverage": "exhaustive (2^32), another machine", "record": "old/exp.json",
             "record_method": "peer:libm", "record_machine": {"cpu": "CPU B"},
             "record_command": "ulplab peers exp --exhaustive", "record_commit": "abc"},
            {**base, "backend": "numpy", "max_ulp": 3, "coverage": "sampled (67,090 inputs)",
             "record_rejected": {"record": "forged.json", "reason": "not the bits"}}]
    path = tmp_path / "card-float32.json"
    path.write_text(__import__("json").dumps(_float32_card(rows)))
    monkeypatch.setattr(hooks, "FLOAT32_CARD", path)
    monkeypatch.setattr(hooks, "_source", lambda p, c, m: f"from {c} on {m}")
    text = hooks.gen_card_float32()
    lines = {line.split(" | ")[0].strip("| "): line for line in text.splitlines()
             if line.startswith("| ") and " | float32 | " in line}
    assert lines["det"].endswith("| exhaustive (2^32): `exp.json` |")
    assert lines["libm"].endswith("| exhaustive (2^32), another machine: `exp.json` |")
    assert lines["numpy"].endswith("| sampled (67,090 inputs) |")
    assert "- numpy: the sweep `forged.json` is not used: not the bits." in text
    assert ("1 rows exhaustive over all 2^32 inputs on this card's machine, 1 exhaustive on "
            "another machine, 1 sampled") in text
    assert "cpu CPU B" in text and "`ulplab peers exp --exhaustive`" in text
    path.write_text(__import__("json").dumps({**_float32_card(rows), "format": "bfloat16"}))
    with pytest.raises(ValueError, match="not a float32 accuracy card"):
        hooks.gen_card_float32()


def test_committed_float32_card_rows_say_exhaustive_or_sampled(site):
    """Every row of docs/data/card-float32.json: a row with a record covers all 2^32 inputs and
    says exhaustive; a row without says how many inputs it sampled; the page shows each."""
    import json

    data = json.loads((DOCS / "data" / "card-float32.json").read_text())
    html = _text(site, "card")
    section = html[html.index('id="float32"'):]
    seen = {"exhaustive": 0, "sampled": 0}
    for card in data["cards"]:
        for r in card["backends"]:
            if "record" in r:
                assert r["coverage"].startswith("exhaustive (2^32)") and r["inputs"] == 1 << 32
                assert r["sampled"]["max_ulp"] == r["max_ulp"]
                assert r["record_method"] in (f"peer:{r['backend']}", f"peer:{r['backend']}-f32",
                                              "det", "det-float32")
                seen["exhaustive"] += 1
            else:
                assert r["coverage"] == f"sampled ({r['inputs']:,} inputs)"
                assert r["inputs"] < 1 << 20
                seen["sampled"] += 1
    assert seen["exhaustive"] >= len(data["cards"])  # det at least, on every function
    assert section.count("exhaustive (2^32)") >= seen["exhaustive"]
    assert section.count("sampled (") >= seen["sampled"]


def test_converted_tables_hold_their_recorded_runs(site):
    import json

    def rec(name):
        return json.loads((DOCS / "data" / f"{name}.json").read_text())

    out = _text(site, "output")
    peers = rec("peers-gelu-bfloat16")
    assert peers["command"] in out
    for r in peers["result"]["backends"]:
        assert f"{r['daz']['read_as_zero']}/{r['daz']['subnormal_inputs']}" in out
    det = rec("kernels-determinism")
    for func, r in det["result"].items():
        assert f"<td>{func}</td>" in out and f"{r['backends'][0]['checked']:,}" in out
    kernels = _text(site, "kernels")
    for func, r in rec("faithful-kernels")["result"].items():
        assert re.search(rf"<td>{func}</td>\s*<td>{r['checked']:,}</td>\s*"
                         rf"<td>{r['unfaithful']:,}</td>", kernels), func
    kit = _text(site, "design/kit")
    for name in ("fit-sin", "fit-exp", "fit-erf"):
        assert f"{rec(name)['result']['error']:.4e}" in kit
    assert "Sollya 8.0 (published)" in kit
    gelu = _text(site, "methods/gelu")
    assert gelu.count("refitted") >= 2 and "A&amp;S 7.1.26 a_k" in gelu


def test_code_blocks_honour_the_skip_marker():
    md = ("```python\nrun = 1\n```\n\n<!-- skip: a sketch -->\n```python\nskipped\n```\n"
          "```console\n$ ulplab functions\n```\n")
    assert code_blocks(md, "python") == ["run = 1\n"]
    assert code_blocks(md, "console") == ["$ ulplab functions\n"]


PYTHON_PAGES = [p for p in [*pages(), README] if code_blocks(p.read_text(), "python")]
CONSOLE_LINES = [(p, line[2:]) for p in pages() for block in code_blocks(p.read_text(), "console")
                 for line in block.splitlines() if line.startswith("$ ulplab ")]


def test_the_pages_have_examples_to_run():
    assert {p.name for p in PYTHON_PAGES} >= {"tour.md", "python.md", "README.md"}
    assert len(CONSOLE_LINES) >= 3


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_examples_run(page, tmp_path):
    """Each page's ```python blocks, in order, in one fresh interpreter (a block may use what an
    earlier block of its page defined)."""
    code = "\n".join(code_blocks(page.read_text(), "python"))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env=_env(), timeout=300)
    assert run.returncode == 0, f"{page.name}:\n{run.stderr[-3000:]}"


@pytest.mark.parametrize("page,command", CONSOLE_LINES,
                         ids=[f"{p.name}:{c.split()[1]}" for p, c in CONSOLE_LINES])
def test_console_examples_run(page, command, tmp_path):
    argv = shlex.split(command)
    run = subprocess.run([sys.executable, "-m", "ulplab", *argv[1:]], capture_output=True,
                         text=True, cwd=tmp_path, env=_env(), timeout=300)
    assert run.returncode == 0, f"{page.name}: {command}\n{run.stderr[-3000:]}"
    assert run.stdout.strip() or run.stderr.strip()


# ---------------------------------------------------------------- the README as a front page

MAIN_JOB = "python3 -m pip install . && ulplab analyze gelu --format bfloat16 --method all"
TEST_COMMAND = "python3 -m pip install -e '.[test]' && ruff check . && python3 -m pytest"


def test_readme_is_a_front_page_with_the_two_setup_commands():
    text = README.read_text()
    assert len(text.splitlines()) <= 300
    assert MAIN_JOB in text.splitlines()
    assert TEST_COMMAND in text.splitlines()
    assert TEST_COMMAND in (ROOT / ".ci" / "run").read_text()
    assert "## Documentation" in text and "mkdocs serve" in text


def test_readme_links_to_pages_that_exist():
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", README.read_text())
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).exists(), link
