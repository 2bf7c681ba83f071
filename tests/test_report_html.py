"""`ulplab report`: the HTML page in headless Chromium (loads without errors, every image present
and not blank, the table's figures equal the JSON's), the PNG files, bad input."""

import json
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from ulplab.cli.main import main

METHODS = "det,E9 Remez BF16,f32-naive"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _Page(HTMLParser):
    """Images (their attributes) and the summary table's cells (data-key -> text, per row)."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[dict[str, str]] = []
        self.body: dict[str, str] = {}
        self.rows: list[dict[str, str]] = []
        self._table = ""
        self._key: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "img":
            self.images.append(a)
        elif tag == "body":
            self.body = a
        elif tag == "table":
            self._table = a.get("id", "")
        elif tag == "tr" and self._table == "summary":
            self.rows.append({})
        elif tag == "td" and self._table == "summary":
            self._key = a.get("data-key")

    def handle_endtag(self, tag):
        if tag == "td":
            self._key = None
        elif tag == "table":
            self._table = ""

    def handle_data(self, data):
        if self._key:
            self.rows[-1][self._key] = self.rows[-1].get(self._key, "") + data


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.rows = [r for r in page.rows if r]
    return page


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    rc = main(["report", "gelu", "--format", "bfloat16", "--method", METHODS, "--quiet",
               "-o", str(out / "r.html"), "--png", str(out / "png"), "--json",
               str(out / "r.json")])
    assert rc == 0
    return out


def _chromium() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
                 if p), None)


def test_page_is_self_contained(rendered):
    text = (rendered / "r.html").read_text()
    page = _parse(text)
    # region bars, operations against max ULP (det and E9: the arithmetic-only methods), then
    # error and histogram per method
    assert len(page.images) == 1 + 1 + 2 * 3
    assert all(img["src"].startswith("data:image/png;base64,") for img in page.images)
    assert "http://" not in text and "https://" not in text


def test_png_files(rendered):
    files = sorted(p.name for p in (rendered / "png").iterdir())
    assert files == ["det-error.png", "det-histogram.png", "e9-remez-bf16-error.png",
                     "e9-remez-bf16-histogram.png", "f32-naive-error.png",
                     "f32-naive-histogram.png", "pareto.png", "regions.png"]
    assert all((rendered / "png" / f).read_bytes().startswith(PNG_MAGIC) for f in files)


def test_in_headless_chromium(rendered):
    exe = _chromium()
    if exe is None:
        pytest.skip("no chromium binary on PATH (Debian: apt-get install -y chromium)")
    run = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu",
                          "--virtual-time-budget=10000", "--enable-logging=stderr", "--v=0",
                          f"--user-data-dir={rendered / 'profile'}", "--dump-dom",
                          (rendered / "r.html").as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Uncaught" not in run.stderr
    page = _parse(run.stdout)
    assert page.body.get("data-checked") == "1", "the page's load handler did not run"
    assert page.body.get("data-errors") == "0"
    assert len(page.images) == 8  # with the operations-against-max-ULP figure
    for img in page.images:
        w, h = int(img["data-natural-width"]), int(img["data-natural-height"])
        assert w >= 300 and h >= 200, img["alt"]
        assert int(img["data-ink-pixels"]) > 0.01 * w * h, f"blank image: {img['alt']}"
    expected = json.loads((rendered / "r.json").read_text())["methods"]
    assert [r["method"] for r in page.rows] == [m["method"] for m in expected]
    for row, m in zip(page.rows, expected, strict=True):
        for key in ("count", "max_ulp", "nan_mismatches", "inf_mismatches"):
            assert int(row[key]) == m[key], (m["method"], key)
        assert float(row["mean_ulp"]) == pytest.approx(m["mean_ulp"], abs=5e-5)
        for key in ("exact_fraction", "within1_fraction"):
            assert float(row[key].rstrip("%")) == pytest.approx(100 * m[key], abs=5e-3)


@pytest.mark.parametrize("argv", [
    ["report", "gelu", "--method", "nope", "-o", "{d}/x.html"],
    ["report", "gelu", "--method", "det"],
    ["report", "gelu", "--method", "det", "--worst", "-1", "-o", "{d}/x.html"],
    ["report", "gelu", "--method", "det", "--png", "{d}/missing/dir"],
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, argv):
    rc = main([a.format(d=tmp_path) for a in argv])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_peers_and_determinism_tables(tmp_path):
    """Both flags add their table, with the figures of their JSON (about a minute: C build)."""
    rc = main(["report", "tanh", "--format", "float8_e5m2", "--method", "det", "--quiet",
               "--peers", "--determinism", "--determinism-samples", "1000",
               "-o", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json")])
    assert rc == 0
    text = (tmp_path / "r.html").read_text()
    data = json.loads((tmp_path / "r.json").read_text())
    assert '<table id="peers">' in text and '<table id="determinism">' in text
    for row in data["peers"]["backends"]:
        assert f"<td>{row['backend']}</td>" in text
    for row in data["determinism"]["backends"]:
        assert (f'<td>{row["backend"]}</td><td class="num">{row["checked"]}</td>'
                f'<td class="num">{row["mismatches"]}</td>') in text


# ---------------------------------------------------------------- sorted by error, inputs exact
def _cells(text: str, table_id: str = "summary") -> list[dict[str, str]]:
    page = _parse(text)
    assert table_id == "summary"
    return page.rows


def test_summary_sorted_by_error_with_the_real_error_and_the_worst_input(rendered):
    from ulplab.formats import get_format
    from ulplab.report.html import error_key, format_cell
    from ulplab.stats import hex_bits, shortest_decimal

    methods = json.loads((rendered / "r.json").read_text())["methods"]
    for m in methods:  # the JSON writes an infinite error as "inf"
        m["max_error"] = float(m["max_error"])
    assert [error_key(m) for m in methods] == sorted(error_key(m) for m in methods)
    assert [m["method"] for m in methods] == ["det", "E9 Remez BF16", "f32-naive"]  # measured
    rows = _cells((rendered / "r.html").read_text())
    fmt = get_format("bfloat16")
    for row, m in zip(rows, methods, strict=True):
        assert row["max_error"] == format_cell("max_error", m["max_error"])
        assert int(row["errors_ge_1"]) == m["errors_ge_1"]
        assert int(row["errors_gt_half"]) == m["errors_gt_half"]
        bits = int(m["worst"][0]["hex"], 16) if m["worst"] else None
        assert row["worst"] == ("-" if bits is None else
                                f"{shortest_decimal(bits, fmt)} ({hex_bits(bits, fmt)})")
    assert float(rows[0]["max_error"]) <= 0.5 and rows[0]["worst"] == "-"  # det: exact


def test_float32_worst_inputs_are_printed_exactly(tmp_path):
    """float32 inputs next to 1 used to print as "1": now the shortest decimal that reads back
    as the input, and its bits, in the summary and in the worst-input table."""
    from fractions import Fraction

    from ulplab.formats import get_format, round_value

    page = tmp_path / "r.html"
    assert main(["report", "exp", "--format", "float32", "--method", "f32-naive", "--quiet",
                 "-o", str(page), "--json", str(tmp_path / "r.json")]) == 0
    text = page.read_text()
    worst = json.loads((tmp_path / "r.json").read_text())["methods"][0]["worst"]
    fmt = get_format("float32")
    cell = _cells(text)[0]["worst"]
    decimal, bits = cell.split(" (")
    assert bits == worst[0]["hex"] + ")"
    assert round_value(Fraction(decimal), fmt) == int(worst[0]["hex"], 16)
    shown_before = f"{worst[0]['x']:.6g}"
    assert round_value(Fraction(shown_before), fmt) != int(worst[0]["hex"], 16)  # measured
    assert f"<td>{decimal}</td>" in text  # the worst-input table's x column


def test_shortest_decimal_reads_back_and_is_shortest():
    from fractions import Fraction

    import numpy as np

    from ulplab.formats import all_patterns, get_format, is_finite, round_value, to_values
    from ulplab.stats import shortest_decimal

    f32 = get_format("float32")
    assert shortest_decimal(0x3F800001, f32) == "1.0000001"
    assert [shortest_decimal(b, f32) for b in (0x3F800000, 0x80000000, 0x7F800000, 0x7FC00000,
                                               0x00000001)] == ["1", "-0", "inf", "nan", "1e-45"]

    def digits(text: str) -> int:
        mantissa = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
        return len(mantissa.rstrip("0")) or 1

    f16 = get_format("float16")
    bits = all_patterns(f16)
    bits = bits[is_finite(bits, f16) & (to_values(bits, f16) != 0)][::7]
    for b in bits.tolist():  # numpy's shortest repr of a float16 is the reference length
        text = shortest_decimal(b, f16)
        assert round_value(Fraction(text), f16) == b
        ref = np.format_float_scientific(np.uint16(b).view(np.float16), unique=True)
        assert digits(text) == digits(ref), (hex(b), text, ref)
    rng = np.random.default_rng(21)
    for b in rng.integers(0, 0x7F800000, 300).tolist():
        text = shortest_decimal(b, f32)
        assert round_value(Fraction(text), f32) == b
        ref = np.format_float_scientific(np.uint32(b).view(np.float32), unique=True)
        assert digits(text) == digits(ref), (hex(b), text, ref)
