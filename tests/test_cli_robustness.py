"""The CLI and the exhaustive engine never crash, hang, lose data or lie.

Outputs go only to regular files, atomically; --dump-above streams to its file and a resumed
run's dump is the uninterrupted run's, byte for byte, with a checkpoint that stays small; a
failing --callable is one line; worker counts and the other numbers are checked against the
machine; progress bars draw on standard error; Dask stays quiet; the CLI modules import no
circle."""

from __future__ import annotations

import ast
import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import needs, one_line_error
from ulplab.cli.main import main
from ulplab.errors import UsageError
from ulplab.files import check_writable, open_atomic, write_bytes, write_json, write_text
from ulplab.sweep import exhaustive
from ulplab.sweep.exhaustive import (
    DUMP_HEADER,
    Job,
    dump_parts_dir,
    float32_bit_ranges,
    load_checkpoint,
    run_job,
)

SRC = Path(exhaustive.__file__).parents[1]
CORES = os.cpu_count() or 1
# [1, 1.001]: 8,389 float32 inputs; f32-naive exp is 1 ULP off on 2,707 of them
SMALL = ("analyze", "exp", "--format", "float32", "--method", "f32-naive", "--exhaustive",
         "--range", "1", "1.001", "--workers", "1", "--quiet")
RANGES = ((0x3F7FF000, 0x3F801000), (0xC2A00000, 0xC2A01800))




# ---------------------------------------------------------------- 1. regular files only
def _fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _socket(tmp_path):
    path = tmp_path / "sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()
    return path


def _directory(tmp_path):
    path = tmp_path / "adir"
    path.mkdir()
    return path


def _kind(path):
    mode = os.stat(path).st_mode
    return next(k for k, test in (("char", stat.S_ISCHR), ("fifo", stat.S_ISFIFO),
                                  ("socket", stat.S_ISSOCK), ("dir", stat.S_ISDIR),
                                  ("file", stat.S_ISREG)) if test(mode))


TARGETS = {"/dev/null": lambda tmp: Path("/dev/null"), "/dev/full": lambda tmp: Path("/dev/full"),
           "fifo": _fifo, "socket": _socket, "directory": _directory}
WHY = {"/dev/null": "character device", "/dev/full": "character device", "fifo": "FIFO",
       "socket": "socket", "directory": "directory"}
COMMANDS = {  # a command with {} where the output path goes: refused before any work
    "checkpoint": (*SMALL, "--checkpoint", "{}"),
    "json": (*SMALL, "--json", "{}"),
    "csv": (*SMALL, "--csv", "{}"),
    "dump": (*SMALL, "--dump-above", "0", "-o", "{}"),
    "peers json": ("peers", "exp", "--format", "float32", "--exhaustive", "--range", "1",
                   "1.001", "--backends", "numpy", "--workers", "1", "--quiet", "--json", "{}"),
    "oracle": ("oracle", "exp", "--format", "float8_e5m2", "-o", "{}", "--quiet"),
    "eval": ("eval", "exp", "--format", "float8_e5m2", "--method", "det", "-o", "{}"),
    "formats": ("formats", "--json", "{}"),
    "report": ("report", "exp", "--format", "float8_e5m2", "--method", "det", "-o", "{}",
               "--quiet"),
    "export": ("export", "exp", "--lang", "c", "-o", "{}"),
    "study": ("study", "sanity", "--json", "{}"),
}


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_outputs_go_only_to_regular_files(command, target, tmp_path, capsys):
    path = TARGETS[target](tmp_path)
    before = _kind(path)
    argv = [str(path) if a == "{}" else a for a in COMMANDS[command]]
    one_line_error(capsys, argv, str(path), WHY[target])
    assert _kind(path) == before  # the device, FIFO, socket or directory is untouched
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_a_png_directory_holding_a_fifo_is_refused(tmp_path, capsys):
    figures = _directory(tmp_path)
    os.mkfifo(figures / "regions.png")
    one_line_error(capsys, ["report", "exp", "--format", "float8_e5m2", "--method", "det",
                             "--png", str(figures), "--quiet"], "regions.png", "FIFO")
    assert stat.S_ISFIFO(os.stat(figures / "regions.png").st_mode)


def test_files_refuses_what_is_not_a_regular_file(tmp_path):
    for make, why in ((TARGETS["/dev/full"], "character device"), (_fifo, "FIFO"),
                      (_directory, "directory")):
        path = make(tmp_path)
        for write in (lambda p: write_text(p, "x"), lambda p: write_bytes(p, b"x"),
                      lambda p: write_json(p, {"x": 1}), check_writable):
            with pytest.raises(UsageError, match=why):
                write(path)
    with pytest.raises(UsageError, match="does not exist"):
        write_text(tmp_path / "no-such-dir" / "x.txt", "x")


def test_writes_are_atomic_and_keep_the_file_mode(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("old\n")
    path.chmod(0o640)
    with pytest.raises(RuntimeError), open_atomic(path) as fh:
        fh.write(b"half of the new")
        raise RuntimeError("the run failed half way")
    assert path.read_text() == "old\n"  # a failure leaves the old file, and no temporary
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]
    write_json(path, {"max": float("inf"), "nan": float("nan")})
    assert json.loads(path.read_text()) == {"max": "inf", "nan": "nan"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    link = tmp_path / "link.txt"
    link.symlink_to(path)
    write_text(link, "through the link\n")  # the file it points to is replaced
    assert link.is_symlink() and path.read_text() == "through the link\n"


def test_two_options_naming_one_file_are_refused(tmp_path, capsys):
    same = tmp_path / "same"
    one_line_error(capsys, [*SMALL, "--json", str(same), "--checkpoint", str(same)],
                    "both name")
    assert not same.exists()


# ---------------------------------------------------------------- 2. the dump, streamed
def _interrupt_after(n):
    def on_chunk(done):
        if done == n:
            raise KeyboardInterrupt
    return on_chunk


def test_a_resumed_dump_is_the_uninterrupted_dump_byte_for_byte(tmp_path):
    job = Job("sin", ("f32-naive", "peer:numpy"), RANGES, chunk=1024, worst=3, dump_above=0)
    whole = tmp_path / "whole.tsv"
    res = run_job(job, workers=1, progress=False, dump_path=whole)
    lines = whole.read_text().splitlines()
    assert lines[0] + "\n" == DUMP_HEADER and res["dumped"] == len(lines) - 1 > 1000
    ckpt, dump = tmp_path / "sin.ckpt", tmp_path / "resumed.tsv"
    for stop in (3, 5):  # interrupted twice
        with pytest.raises(KeyboardInterrupt):
            run_job(job, workers=1, progress=False, checkpoint=ckpt, dump_path=dump,
                    on_chunk=_interrupt_after(stop))
        assert not dump.exists() and len(load_checkpoint(ckpt, job)[0]) == stop
    assert any(dump_parts_dir(ckpt).iterdir())  # the finished chunks' lines wait on disk
    again = run_job(job, workers=1, progress=False, checkpoint=ckpt, dump_path=dump)
    assert dump.read_bytes() == whole.read_bytes() and again["dumped"] == res["dumped"]
    assert not dump_parts_dir(ckpt).exists()  # assembled, then removed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["resumed.tsv", "sin.ckpt",
                                                          "whole.tsv"]


@needs("dask", "distributed")
def test_the_dump_does_not_depend_on_dask(tmp_path):
    job = Job("exp", ("f32-naive",), RANGES, chunk=2048, dump_above=0)
    run_job(job, workers=1, progress=False, dump_path=tmp_path / "one.tsv")
    run_job(job, workers=2, progress=False, dump_path=tmp_path / "two.tsv")
    assert (tmp_path / "one.tsv").read_bytes() == (tmp_path / "two.tsv").read_bytes()


def test_the_checkpoint_does_not_grow_with_the_dumped_lines(tmp_path):
    sizes, dumped = [], []
    for above in (0, 10**6):  # about a third of the inputs dumped, then none
        job = Job("exp", ("f32-naive",), RANGES, chunk=1024, dump_above=above)
        ckpt = tmp_path / f"{above}.ckpt"
        res = run_job(job, workers=1, progress=False, checkpoint=ckpt,
                      dump_path=tmp_path / f"{above}.tsv")
        sizes.append(ckpt.stat().st_size)
        dumped.append(res["dumped"])
    chunks = len(job.chunks())
    assert dumped[0] > 1000 and dumped[1] == 0
    # one byte count per chunk is all the dump adds (the lines themselves took ~40 bytes each)
    assert sizes[0] - sizes[1] <= 24 * chunks
    assert (tmp_path / "0.tsv").stat().st_size > 20 * sizes[0]


def test_a_resumed_cli_run_writes_the_same_dump(tmp_path, capsys, monkeypatch):
    argv = [*SMALL, "--chunk", "1024", "--dump-above", "0"]
    assert main([*argv, "-o", str(tmp_path / "whole.tsv")]) == 0
    calls = []
    real = exhaustive.run_chunk

    def stop_on_the_fourth(*args):
        calls.append(args)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(exhaustive, "run_chunk", stop_on_the_fourth)
    ckpt, dump = tmp_path / "c.json", tmp_path / "resumed.tsv"
    assert main([*argv, "-o", str(dump), "--checkpoint", str(ckpt)]) == 130
    monkeypatch.setattr(exhaustive, "run_chunk", real)
    held = json.loads(ckpt.read_text())["body"]["state"]["inputs"]  # three chunks' worth
    capsys.readouterr()
    assert main([*argv, "-o", str(dump), "--checkpoint", str(ckpt)]) == 0
    assert dump.read_bytes() == (tmp_path / "whole.tsv").read_bytes()
    assert f"{8_389 - held:,} of 8,389 (the rest from the checkpoint)" in capsys.readouterr().out


def test_lost_dump_parts_are_refused_not_silently_dropped(tmp_path, capsys):
    job = Job("exp", ("f32-naive",), RANGES, chunk=1024, dump_above=0)
    ckpt, dump = tmp_path / "c.ckpt", tmp_path / "d.tsv"
    with pytest.raises(KeyboardInterrupt):
        run_job(job, workers=1, progress=False, checkpoint=ckpt, dump_path=dump,
                on_chunk=_interrupt_after(2))
    next(dump_parts_dir(ckpt).iterdir()).unlink()
    with pytest.raises(UsageError, match="remove the checkpoint"):
        run_job(job, workers=1, progress=False, checkpoint=ckpt, dump_path=dump)
    assert not dump.exists()


def test_a_finished_checkpoint_without_its_parts_says_so(tmp_path, capsys):
    argv = [*SMALL, "--dump-above", "0", "-o", str(tmp_path / "d.tsv"), "--checkpoint",
            str(tmp_path / "c.json")]
    assert main(argv) == 0
    capsys.readouterr()
    written = (tmp_path / "d.tsv").read_bytes()
    assert written.count(b"\n") == 2_708  # the header and 2,707 inputs 1 ULP off
    one_line_error(capsys, argv, "remove the checkpoint")
    assert (tmp_path / "d.tsv").read_bytes() == written  # left as it was


# ---------------------------------------------------------------- 3. a failing callable
BAD = '''import numpy as np

def raises(x):
    raise ValueError("no result\\nsecond line")

def float64(x):
    return x.astype(np.float64)

def short(x):
    return x[:3]
'''


@pytest.mark.parametrize("workers", ["1", pytest.param("2", marks=needs("dask", "distributed"))])
@pytest.mark.parametrize(("fn", "why"), [("raises", "ValueError: no result"),
                                         ("float64", "TypeError: method bad_callables:float64 "
                                                     "returned float64(8389,)"),
                                         ("short", "returned float32(3,)")])
@pytest.mark.parametrize("flag", ["--method", "--callable"])
def test_a_failing_callable_is_one_line_naming_it_and_the_input(tmp_path, monkeypatch, capsys,
                                                                flag, fn, why, workers):
    if int(workers) > CORES:
        pytest.skip("one core")
    (tmp_path / "bad_callables.py").write_text(BAD)
    monkeypatch.chdir(tmp_path)  # the current directory is on the import path
    argv = [*SMALL, "--workers", workers]
    if flag == "--method":
        argv[argv.index("f32-naive")] = f"callable:bad_callables:{fn}"
    else:
        argv += ["--callable", f"bad_callables:{fn}"]
    line = one_line_error(capsys, argv, f"callable:bad_callables:{fn}", "0x3f800000 (1.0)",
                           "8,389 inputs", why)
    assert "second line" not in line
    sys.modules.pop("bad_callables", None)


# ---------------------------------------------------------------- 4. numbers
@pytest.mark.parametrize("value", ["0", "-1", "1.5", "x", "", str(CORES + 1), "1000"])
def test_worker_counts_are_checked_against_the_machine(value, capsys):
    one_line_error(capsys, [*SMALL, "--workers", value], "--workers")
    if value in (str(CORES + 1), "1000"):
        one_line_error(capsys, [*SMALL, "--workers", value], f"from 1 to {CORES}",
                        "os.cpu_count()")


def test_the_engine_refuses_impossible_jobs():
    job = Job("exp", ("f32-naive",), ((0x3F800000, 0x3F800100),))
    for workers in (0, -1, CORES + 1, 1000, 1.5, True):
        with pytest.raises(UsageError, match="cores of this machine"):
            run_job(job, workers=workers, progress=False)
    for bad in (Job("exp", ("f32-naive",), job.ranges, chunk=0),
                Job("exp", ("f32-naive",), job.ranges, block=0),
                Job("exp", ("f32-naive",), job.ranges, worst=-1),
                Job("exp", ("f32-naive",), job.ranges, dump_above=-1),
                Job("exp", ("f32-naive",), ((5, 3),)),
                Job("exp", ("f32-naive",), ((0, (1 << 32) + 1),))):
        with pytest.raises(UsageError):
            run_job(bad, workers=1, progress=False)


@pytest.mark.parametrize(("extra", "needle"), [
    (("--chunk", "0"), "--chunk"),
    (("--chunk", "-5"), "--chunk"),
    (("--chunk", str((1 << 32) + 1)), "--chunk"),
    (("--dump-above", "-1", "-o", "d.tsv"), "--dump-above"),
    (("--worst", "10001"), "--worst"),
    (("--range", "2", "1"), "LO <= HI"),
    (("--range", "nan", "1"), "NaN"),
    (("--range", "1", "nan"), "NaN"),
    (("--range", "1.00000001", "1.00000002"), "no float32 lies in"),
    (("--scheduler", "tcp://127.0.0.1:8786", "--workers", "1"), "--workers"),
])
def test_odd_numbers_of_an_exhaustive_run(extra, needle, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = ["analyze", "exp", "--format", "float32", "--method", "f32-naive", "--exhaustive",
            "--quiet", *extra]
    if "--range" not in extra:
        argv += ["--range", "1", "1.001"]
    if "--workers" not in extra:
        argv += ["--workers", "1"]
    one_line_error(capsys, argv, needle)
    assert not (tmp_path / "d.tsv").exists()


@pytest.mark.parametrize("samples", ["0", "-3"])
def test_samples_must_be_positive(samples, capsys):
    one_line_error(capsys, ["analyze", "exp", "--format", "float32", "--method", "f32-naive",
                             "--samples", samples, "--quiet"], "--samples")


def test_a_range_between_float32_values_holds_none():
    assert float32_bit_ranges(1.00000001, 1.00000002) == ()
    # 1.00000001 rounds to 1.0 in float32, which lies below it: the range starts after 1.0
    assert float32_bit_ranges(1.00000001, 2.0) == ((0x3F800001, 0x40000001),)
    assert float32_bit_ranges(1e39, float("inf")) == ((0x7F800000, 0x7F800001),)


# ---------------------------------------------------------------- 5. progress on stderr
def test_progress_bars_draw_on_stderr_only(tmp_path, monkeypatch, capsys):
    """With a terminal (rich's TTY_COMPATIBLE/TTY_INTERACTIVE), the bar of an exhaustive run
    draws on standard error; standard output holds the tables and the JSON stays a file."""
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("TTY_INTERACTIVE", "1")
    argv = [a for a in SMALL if a != "--quiet"]
    assert main([*argv, "--json", str(tmp_path / "r.json")]) == 0
    out, err = capsys.readouterr()
    assert "M inputs/s" in err and "\x1b[?25l" in err  # the bar's rate; the hidden cursor
    assert "M inputs/s" not in out and "\x1b[?25l" not in out
    assert json.loads((tmp_path / "r.json").read_text())["input_count"] == 8_389


def test_every_progress_helper_uses_stderr():
    from ulplab.progress import progress_bar, steps

    assert progress_bar().console.stderr
    with steps("x", 1) as advance:
        advance()
    tree = ast.parse((SRC / "sweep" / "exhaustive.py").read_text())
    made = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and getattr(n.func, "id", getattr(n.func, "attr", "")) == "Progress"]
    assert made == []  # the engine's bar comes from ulplab.progress


# ---------------------------------------------------------------- 6. Dask is quiet
def _cli(*argv, cwd):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "ulplab", *argv], capture_output=True,
                          text=True, timeout=300, env=env, cwd=cwd)


@pytest.mark.skipif(CORES < 2, reason="two Dask workers need two cores")
@needs("dask", "distributed")
def test_a_dask_run_prints_only_its_results(tmp_path):
    res = _cli("analyze", "exp", "--format", "float32", "--method", "f32-naive",
               "--exhaustive", "--range", "1", "1.0001", "--workers", "2", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr and "distributed." not in res.stderr, res.stderr
    assert "inputs in" in res.stdout


@pytest.mark.skipif(CORES < 2, reason="two Dask workers need two cores")
@needs("dask", "distributed")
def test_a_failing_task_on_dask_is_one_line(tmp_path):
    (tmp_path / "bad_callables.py").write_text(BAD)
    res = _cli("analyze", "exp", "--format", "float32", "--method",
               "callable:bad_callables:raises", "--exhaustive", "--range", "1", "1.01",
               "--chunk", "8192", "--workers", "2", cwd=tmp_path)
    err = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2 and len(err) == 1, res.stderr
    assert "ValueError: no result" in err[0] and "distributed." not in res.stderr


# ---------------------------------------------------------------- 7. layers
def _imports(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_import_circle_in_the_cli():
    assert {n for n in _imports(SRC / "cli" / "exhaustive.py")
            if n.startswith("ulplab.cli")} == {"ulplab.cli.args"}
    assert not {n for n in _imports(SRC / "cli" / "args.py") if n.startswith("ulplab.cli")}
    res = subprocess.run([sys.executable, "-c", "import sys, ulplab.cli.exhaustive; "
                          "print('ulplab.cli.main' in sys.modules)"], capture_output=True,
                         text=True, timeout=60)
    assert res.stdout.strip() == "False", res.stderr


def test_files_and_progress_are_bottom_layers():
    files = {n for n in _imports(SRC / "files.py") if n.split(".")[0] == "ulplab"}
    assert files == {"ulplab.errors"}
    assert all(n.split(".")[0] in sys.stdlib_module_names or n == "ulplab.errors"
               or n == "__future__" for n in _imports(SRC / "files.py"))
    assert not {n for n in _imports(SRC / "progress.py") if n.startswith("ulplab")}
    assert not (SRC / "report" / "progress.py").exists()
