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
    assert len(page.images) == 1 + 2 * 3  # region bars, then error and histogram per method
    assert all(img["src"].startswith("data:image/png;base64,") for img in page.images)
    assert "http://" not in text and "https://" not in text


def test_png_files(rendered):
    files = sorted(p.name for p in (rendered / "png").iterdir())
    assert files == ["det-error.png", "det-histogram.png", "e9-remez-bf16-error.png",
                     "e9-remez-bf16-histogram.png", "f32-naive-error.png",
                     "f32-naive-histogram.png", "regions.png"]
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
    assert len(page.images) == 7
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
