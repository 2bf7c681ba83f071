"""Bad input, every time: each malformed invocation exits 2 with one line on stderr, never a
traceback; nothing is left behind on failure; an unusable cache still gives the result."""

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bad_invocations import CASES
from ulplab import cache
from ulplab.cli.main import FIT_MAX_DEGREE, main
from ulplab.fit import MAX_DEGREE


def _run(capsys, argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if line.strip()]


@pytest.mark.smoke
@pytest.mark.parametrize("case", CASES, ids=[c.id[:90] for c in CASES])
def test_malformed_invocation_exits_2_with_one_line(case, capsys, monkeypatch, tmp_path):
    for k, v in case.env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(capsys, case.argv)
    assert code == case.code, err
    assert not any("Traceback" in line for line in err)
    if case.code == 2:
        assert len(err) == 1 and err[0].startswith("ulplab: error: "), err
    assert not Path("/tmp/ulplab-never-written.npy").exists()


def test_the_generator_covers_every_subcommand():
    from ulplab.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    covered = {c.argv[0] for c in CASES}
    assert set(sub.choices) - {"functions"} <= covered  # `functions` takes no argument
    assert len(CASES) > 250


def test_fit_degree_limit_is_the_fitters():
    assert FIT_MAX_DEGREE == MAX_DEGREE


def _module(tmp_path, name, body):
    (tmp_path / f"{name}.py").write_text(body)


@pytest.mark.parametrize(("name", "body", "needle"), [
    ("raises_empty", "def f(x):\n    raise ValueError()\n", "failed: ValueError"),
    ("raises_msg", "def f(x):\n    raise RuntimeError('no\\nway')\n", "RuntimeError: no"),
    ("syntax_bad", "def f(x) return x\n", "SyntaxError"),
    ("import_raises", "raise ImportError('broken at import')\n", "broken at import"),
    ("wrong_dtype", "import numpy as np\ndef f(x):\n    return x.astype(np.float64)\n",
     "float64"),
])
def test_a_failing_callable_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, name, body,
                                                   needle):
    _module(tmp_path, name, body)
    monkeypatch.chdir(tmp_path)  # the current directory is on the import path
    code, _, err = _run(capsys, ["peers", "tanh", "--backends", "numpy", "--quiet",
                                 "--callable", f"{name}:f"])
    assert code == 2 and len(err) == 1 and needle in err[0], err
    sys.modules.pop(name, None)


def test_a_callable_in_the_current_directory_is_found(tmp_path, monkeypatch, capsys):
    _module(tmp_path, "here_tanh", "import numpy as np\ndef f(x):\n    return np.tanh(x)\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run(capsys, ["peers", "tanh", "--backends", "numpy", "--quiet",
                                 "--callable", "here_tanh:f"])
    assert code == 0 and "here_tanh:f" in out


def test_a_failed_run_leaves_no_empty_output_file(tmp_path, capsys):
    target = tmp_path / "r.json"
    code, _, _ = _run(capsys, ["analyze", "gelu", "--method", "nope", "--json", str(target)])
    assert code == 2 and not target.exists()


def test_export_build_directories_are_removed_at_exit(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-m", "ulplab", "determinism", "tanh", "--backends",
                          "c,numpy", "--samples", "10", "--quiet"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert not list(tmp_path.glob("ulplab-export-*"))


def test_cache_files_are_group_readable_and_stale_tmp_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("ULPLAB_CACHE_DIR", str(tmp_path))
    stale = tmp_path / ".old-key.abc.tmp"
    fresh = tmp_path / ".new-key.def.tmp"
    stale.write_bytes(b"x")
    fresh.write_bytes(b"x")
    old = time.time() - cache.STALE_TMP_SECONDS - 10
    os.utime(stale, (old, old))
    umask = os.umask(0o022)
    try:
        path = cache.save("group-readable-test", np.arange(5, dtype=np.uint16))
    finally:
        os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert not stale.exists() and fresh.exists()  # a live writer's file is left alone


def test_an_unusable_cache_directory_warns_once_and_computes(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("ULPLAB_CACHE_DIR", str(blocker / "cache"))
    code, out, err = _run(capsys, ["analyze", "exp", "--format", "float8_e5m2", "--method",
                                   "det", "--quiet"])
    assert code == 0 and "det" in out
    assert len(err) == 1 and str(blocker / "cache") in err[0] and "ULPLAB_CACHE_DIR" in err[0]
    cache._MEMORY.clear()
    cache._WARNED.clear()


def _children(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_no_orphan_workers_after_the_main_process_is_killed(tmp_path):
    env = {**os.environ, "ULPLAB_WORKERS": "2", "ULPLAB_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join(sys.path)}
    main_proc = subprocess.Popen([sys.executable, "-m", "ulplab", "oracle", "erfc", "--format",
                                  "float16", "-o", str(tmp_path / "o.npy"), "--quiet"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    family: list[int] = []
    while time.time() < deadline and len(family) < 4:  # tracker, fork server, 2 workers
        time.sleep(0.2)
        kids = _children(main_proc.pid)
        family = kids + [g for k in kids for g in _children(k)]
    assert len(family) >= 4, family
    main_proc.kill()
    main_proc.wait()
    time.sleep(4)  # the workers' watch runs every second
    assert [p for p in family if _running(p)] == []


def _running(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"  # a zombie is gone
    except OSError:
        return False
