"""Malformed ``ulplab`` invocations: issue 10's list and a generator (every subcommand x odd
values). Each must end with exit status 2 and one line on stderr, never a traceback; the few
``code=0`` cases are ordinary requests that used to fail (negative numbers to ``reference``).
Shared by tests/test_bad_input.py; not a test module itself."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]
    code: int = 2
    env: dict[str, str] = field(default_factory=dict)
    slow: bool = False

    @property
    def id(self) -> str:
        env = " ".join(f"{k}={v}" for k, v in self.env.items())
        return (env + " " if env else "") + " ".join(a if a else "''" for a in self.argv)


def _c(*argv: str, code: int = 2, env: dict[str, str] | None = None, slow: bool = False) -> Case:
    return Case(tuple(argv), code, env or {}, slow)


TERMS_5000 = "+".join(["1"] * 5000)

ISSUE = [
    # fit: impossible or unbounded requests
    _c("fit", "gelu", "--interval", "0", "1e999", "--degree", "3"),
    _c("fit", "gelu", "--interval", "0", "1/0", "--degree", "3"),
    _c("fit", "gelu", "--interval", "0", "sqrt(-1)", "--degree", "3"),
    _c("fit", "gelu", "--interval", "log(0)", "1", "--degree", "3"),
    _c("fit", "gelu", "--interval", "0", "0x1p99999", "--degree", "3"),
    _c("fit", "gelu", "--interval", "0", "exp(exp(exp(10)))", "--degree", "3"),
    _c("fit", "gelu", "--interval", "0", TERMS_5000, "--degree", "3"),
    _c("fit", "gelu", "--interval", "0", "1", "--degree", "-1"),
    _c("fit", "gelu", "--interval", "0", "1", "--degree", "100000000"),
    _c("fit", "log", "--interval", "-1", "1", "--degree", "3"),
    _c("fit", "exp", "--interval", "0", "1e300", "--degree", "3"),
    _c("fit", "sin", "--interval", "-1e10", "1e10", "--degree", "3"),
    _c("fit", "gelu", "--interval", "0", "1", "--degree", "3", "--format", "float32"),
    # reference
    _c("reference", "gelu", "0x1p99999"),
    _c("reference", "tanh", "-1e-3", code=0),
    _c("reference", "tanh", "-0x1.8p+1", code=0),
    _c("reference", "tanh", "-inf", code=0),
    _c("reference", "tanh", "1", "-2", "--format", "float16", code=0),
    # integers out of range
    _c("analyze", "gelu", "--format", "float32", "--samples", "10", "--seed", "-1"),
    _c("faithful", "gelu", "--samples", "10", "--seed", "-1"),
    _c("determinism", "gelu", "--samples", "-3"),
    _c("analyze", "gelu", "--worst", "-1"),
    _c("peers", "tanh", "--worst", "-1"),
    _c("oracle", "exp", "-o", "/tmp/ulplab-never-written.npy", "--format", "float8_e5m2",
       env={"ULPLAB_WORKERS": "abc"}),
    _c("crosscheck", "exp", "--format", "float8_e5m2", env={"ULPLAB_WORKERS": "-2"}),
    # empty values
    _c("analyze", "gelu", "--method", ""),
    _c("analyze", "gelu", "--method", ","),
    _c("peers", "tanh", "--backends", ","),
    _c("determinism", "tanh", "--backends", ","),
    _c("analyze", "gelu", "--json", ""),
    _c("analyze", "gelu", "--csv", ""),
    _c("oracle", "gelu", "-o", ""),
    # --callable
    _c("peers", "tanh", "--backends", "numpy", "--callable", ":f"),
    _c("peers", "tanh", "--backends", "numpy", "--callable", "numpy:"),
    _c("peers", "tanh", "--backends", "numpy", "--callable", "numpy"),
    _c("peers", "tanh", "--backends", "numpy", "--callable", "no_such_module_xyz:f"),
    _c("peers", "tanh", "--backends", "numpy", "--callable", "numpy:no_such_function"),
    _c("peers", "tanh", "--backends", "numpy", "--callable", "numpy:pi"),
    # an empty range
    _c("analyze", "gelu", "--range", "0.1", "0.1"),
    _c("analyze", "gelu", "--range", "2", "1"),
    # every float32: odd ranges, counts and combinations
    *(_c("analyze", "exp", "--format", "float32", "--exhaustive", "--method", "f32-naive",
         "--workers", "1", "--quiet", *extra) for extra in (
        ("--range", "2", "1"), ("--range", "nan", "1"), ("--range", "1", "nan"),
        ("--range", "1.00000001", "1.00000002"),  # no float32 between
        ("--range", "1", "2", "--dump-above", "-1", "-o", "/tmp/ulplab-never-written.npy"),
        ("--range", "1", "2", "--scheduler", "tcp://127.0.0.1:8786"),  # and --workers
        ("--range", "1", "2", "--json", "/tmp/ulplab-never-written.npy", "--checkpoint",
         "/tmp/ulplab-never-written.npy"))),
    _c("analyze", "exp", "--format", "float32", "--samples", "0"),
    _c("analyze", "exp", "--format", "float32", "--samples", "-3"),
]

# valid base invocations, cheap to run once they are given one bad value
BASES: dict[str, tuple[str, ...]] = {
    "analyze": ("analyze", "tanh", "--method", "det", "--quiet"),
    "oracle": ("oracle", "tanh", "-o", "/tmp/ulplab-never-written.npy", "--quiet"),
    "eval": ("eval", "tanh", "--method", "det", "-o", "/tmp/ulplab-never-written.npy"),
    "reference": ("reference", "tanh", "1"),
    "saturation": ("saturation", "tanh"),
    "formats": ("formats",),
    "methods": ("methods",),
    "fit": ("fit", "tanh", "--interval", "0", "1", "--degree", "3"),
    "peers": ("peers", "tanh", "--backends", "numpy", "--quiet"),
    "study": ("study", "sanity"),
    "export": ("export", "tanh", "--lang", "c"),
    "faithful": ("faithful", "tanh", "--samples", "100", "--quiet"),
    "rounded": ("rounded", "exp", "--samples", "100", "--quiet"),
    "determinism": ("determinism", "tanh", "--backends", "numpy", "--samples", "10", "--quiet"),
    "crosscheck": ("crosscheck", "tanh", "--format", "float8_e5m2", "--quiet"),
    "report": ("report", "tanh", "--method", "det", "-o", "/tmp/ulplab-never-written.html",
               "--quiet"),
    "synth": ("synth", "exp", "--format", "float8_e4m3fn", "--quiet"),
    "exhaustive": ("analyze", "exp", "--format", "float32", "--exhaustive", "--range", "1",
                   "1.0001", "--method", "det", "--workers", "1", "--quiet"),
}

# option -> odd values that must each be refused
ODD = {
    "--format": ("", "nope", "float64", "BFLOAT16x"),
    "--rounding": ("", "nearest", "up,down"),
    "--denormals": ("", "flush"),
    "--output-rounding": ("", "away"),
    "--method": ("", " ", ",", "nope"),
    "--samples": ("-1", "0", "abc", "1e3", "", "99999999999999"),
    "--seed": ("-1", "x", ""),
    "--worst": ("-1", "many", "", "10001"),
    "--json": ("", "/nonexistent-dir/x.json", "/tmp", "/dev/null"),
    "--csv": ("", "/nonexistent-dir/x.csv", "/dev/null"),
    "-o": ("", "/nonexistent-dir/x.npy", "/tmp", "/dev/null", "/dev/full"),
    "--lang": ("", "rust"),
    "--emit": ("", "rust", "C"),
    "--backends": ("", ",", "mxnet"),
    "--degree": ("-1", "x", "100000000"),
    "--monomials": ("", ",", "a,b", "-1,2"),
    "--coefficients": ("", "float64"),
    "--error": ("", "squared"),
    "--inputs": ("", "subnormal"),
    "--via": ("", "bfloat16", "nope"),
    "--png": ("", "/nonexistent-dir/figures"),
    "--determinism-samples": ("-1", "0", "x", "1.5"),
    "--workers": ("-1", "0", "x", "", "1.5", "1000"),
    "--chunk": ("0", "-5", "x", "4294967297"),
    "--checkpoint": ("", "/nonexistent-dir/ck.json", "/dev/null", "/dev/full", "/tmp"),
    "--dump-above": ("-1", "x"),
    "--scheduler": ("", "http://", "tcp://"),
    "--range": ("",),
}

# which odd options each subcommand takes (the others are unknown options: also exit 2)
TAKES = {
    "analyze": ("--format", "--rounding", "--denormals", "--output-rounding", "--method",
                "--samples", "--seed", "--worst", "--json", "--csv"),
    "oracle": ("--format", "--rounding", "--denormals", "-o"),
    "eval": ("--format", "--denormals", "--output-rounding", "--method", "-o"),
    "reference": ("--format", "--rounding", "--denormals"),
    "saturation": ("--format", "--rounding", "--denormals", "--json"),
    "formats": ("--format", "--denormals"),
    "methods": (),
    "fit": ("--format", "--degree", "--monomials", "--coefficients", "--error", "--json"),
    "peers": ("--format", "--rounding", "--denormals", "--method", "--worst", "--json",
              "--backends", "--inputs", "--via"),
    "study": ("--format", "--json"),
    "export": ("--lang", "-o", "--rounding"),
    "faithful": ("--samples", "--seed", "--json"),
    "rounded": ("--samples", "--seed", "--json", "--rounding"),
    "determinism": ("--samples", "--json", "--backends", "--rounding"),
    "crosscheck": ("--format",),
    "report": ("--format", "--rounding", "--denormals", "--method", "--worst", "--json", "-o",
               "--png", "--determinism-samples"),
    "synth": ("--format", "--rounding", "--json", "--lang", "--emit"),
    "exhaustive": ("--rounding", "--denormals", "--method", "--worst", "--json", "--workers",
                   "--chunk", "--checkpoint", "--dump-above", "--scheduler"),
}


def _replace(base: tuple[str, ...], option: str, value: str) -> tuple[str, ...]:
    argv = list(base)
    if option in argv:
        argv[argv.index(option) + 1] = value
    else:
        argv += [option, value]
    return tuple(argv)


def generated() -> list[Case]:
    cases = []
    for cmd, base in BASES.items():
        for option in TAKES[cmd]:
            for value in ODD[option]:
                cases.append(Case(_replace(base, option, value)))
        # the positional: an unknown function (or study) name, and an empty one
        if len(base) > 1 and not base[1].startswith("-"):
            for value in ("", "nope", "gelu,tanh"):
                argv = list(base)
                argv[1] = value
                cases.append(Case(tuple(argv)))
        cases.append(Case((*base, "--no-such-option")))
    return cases


def all_cases() -> list[Case]:
    seen, out = set(), []
    for c in ISSUE + generated():
        if c.id not in seen:
            seen.add(c.id)
            out.append(c)
    return out


CASES = all_cases()
