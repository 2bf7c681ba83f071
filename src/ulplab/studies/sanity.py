"""sanity: self-checks of the measuring framework (the seed's ULP sanity mode).

Checks, each reported with what was compared and whether it passed:
  1. adjacent values: for every finite pattern b below the largest finite value, both ULP
     calculators (bitwise ordinal and sorted-table lookup) give ulp(b, nextUp(b)) = 1, also on
     the flush-to-zero ordinal for normal values; +0 and -0 are 0 apart; the two calculators
     agree on every pair (b, b') of a random sample;
  2. distinct ordinals: the number of distinct finite ordinal indices equals
     ``formats.counts(fmt)["distinct_finite"]``;
  3. oracle vs mpmath: on a sample of patterns, the Arb oracle table equals the independent
     mpmath cross-check (``oracle.crosscheck.check_value``), which rounds by another route;
  4. a method that returns the oracle's own results scores max 0 ULP (through
     ``sweep.compare``, so its ULP calculators' agreement check runs too);
  5. a method that returns the oracle's result moved one value up (nextUp; nextDown for the
     largest finite result) scores exactly 1 ULP on every finite result.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.table import Table

from ulplab.formats import (
    Format,
    all_patterns,
    counts,
    from_format,
    is_finite,
    is_nan,
    magnitude,
    next_down,
    next_up,
    to_format,
    to_values,
)
from ulplab.methods import Method
from ulplab.oracle.crosscheck import check_value
from ulplab.oracle.table import oracle_table
from ulplab.studies.common import exhaustive_fmt, seed_note
from ulplab.sweep import compare
from ulplab.ulp import ordinal_bitwise, ulp_distance


def _check(name: str, passed: bool, detail: str) -> dict[str, Any]:
    return {"check": name, "passed": bool(passed), "detail": detail}


def _oracle_method(fmt: Format, table: np.ndarray, shift: bool) -> Method:
    def impl(x: np.ndarray) -> np.ndarray:
        r = table[from_format(x, fmt)]
        if shift:
            up = next_up(r, fmt)
            r = np.where(is_finite(up, fmt) | ~is_finite(r, fmt), up, next_down(r, fmt))
        return to_format(np.asarray(r).astype(fmt.uint), fmt)

    name = "oracle + 1 ulp" if shift else "oracle"
    return Method("gelu", name, "sanity", name, impl, takes="format")


def sanity(fmt: Format | str = "bfloat16", sample: int = 400, seed: int = 0) -> dict[str, Any]:
    fmt = exhaustive_fmt(fmt, "sanity")
    checks = []
    bits = all_patterns(fmt)
    fin = bits[is_finite(bits, fmt)]
    mag = magnitude(fin.astype(np.int64), fmt)
    lower = fin[(mag != fmt.max_bits) | ((fin.astype(np.int64) & fmt.sign_bit) != 0)]
    up = next_up(lower, fmt)
    a = ulp_distance(lower, up, fmt)
    b = ulp_distance(lower, up, fmt, calculator="sorted")
    checks.append(_check("adjacent values are 1 ulp apart (both calculators)",
                         bool((a == 1).all() and (b == 1).all()),
                         f"{len(lower)} pairs (b, nextUp b); bitwise ok {int((a == 1).sum())}, "
                         f"sorted ok {int((b == 1).sum())}"))
    nlow = lower[magnitude(lower.astype(np.int64), fmt) >= fmt.min_normal_bits]
    nup = next_up(nlow, fmt)
    nup_ok = magnitude(nup.astype(np.int64), fmt) >= fmt.min_normal_bits
    af = ulp_distance(nlow[nup_ok], nup[nup_ok], fmt, ftz=True)
    bf = ulp_distance(nlow[nup_ok], nup[nup_ok], fmt, ftz=True, calculator="sorted")
    checks.append(_check("adjacent normals are 1 ulp apart on the flush-to-zero ordinal",
                         bool((af == 1).all() and (bf == 1).all()),
                         f"{int(nup_ok.sum())} pairs of normal values"))
    z = np.array([0, fmt.sign_bit], dtype=np.int64).astype(fmt.uint)
    if fmt.has_zero and not fmt.has_neg_zero:  # fnuz: the sign-bit pattern is the NaN, no -0
        checks.append(_check("no -0: the sign-bit pattern is NaN, not a second zero",
                             bool(is_nan(z[1:], fmt)[0]), f"0x{int(z[1]):x} is NaN"))
    else:
        zz = ulp_distance(z[:1], z[1:], fmt), ulp_distance(z[:1], z[1:], fmt,
                                                           calculator="sorted")
        checks.append(_check("+0 and -0 are 0 ulp apart",
                             bool(zz[0][0] == 0 and zz[1][0] == 0),
                             f"bitwise {int(zz[0][0])}, sorted {int(zz[1][0])}"))
    rng = np.random.default_rng(seed)
    p = rng.choice(fin, 20_000), rng.choice(fin, 20_000)
    same = np.array_equal(ulp_distance(*p, fmt), ulp_distance(*p, fmt, calculator="sorted"))
    checks.append(_check("calculators agree on random pairs", same, "20000 random finite pairs"))
    n_ord = len(np.unique(ordinal_bitwise(fin, fmt)))
    want = counts(fmt)["distinct_finite"]
    checks.append(_check("distinct ordinals = distinct finite values", n_ord == want,
                         f"{n_ord} ordinals, counts() says {want}"))
    table = oracle_table("gelu", fmt, progress=False)
    pick = np.unique(np.concatenate([rng.choice(bits, min(sample, len(bits)), replace=False),
                                     [0, 1, fmt.sign_bit | 1, fmt.max_bits]]).astype(np.int64))
    xs = to_values(pick.astype(fmt.uint), fmt)
    cross = np.array([check_value("gelu", float(x), fmt) for x in xs])
    agree = int((cross == table[pick].astype(np.int64)).sum())
    checks.append(_check("oracle (Arb) = mpmath cross-check on a sample", agree == len(pick),
                         f"{agree}/{len(pick)} sampled patterns agree"))
    exact = compare(_oracle_method(fmt, table, False), "gelu", fmt, progress=False,
                    expected=table)
    u = exact.ulp[exact.ulp >= 0]
    checks.append(_check("a method equal to the oracle scores 0", int(u.max()) == 0,
                         f"max {int(u.max())} over {u.size} finite results"))
    shifted = compare(_oracle_method(fmt, table, True), "gelu", fmt, progress=False,
                      expected=table)
    u1 = shifted.ulp[shifted.ulp >= 0]
    checks.append(_check("a method one ulp off scores 1 everywhere",
                         bool(u1.size and (u1 == 1).all()),
                         f"min {int(u1.min())}, max {int(u1.max())} over {u1.size} "
                         "finite results"))
    return {"study": "sanity", "format": fmt.name, "checks": checks,
            "all_passed": all(c["passed"] for c in checks)}


# The comparison with the seed's --sanity (docs/seed-studies.md).
SEED_NOTE = (
    "it injects +0, +1, +5 and +100 ULP through its own calculator and finds 0, 1, 5, 100 "
    "(all pass); checks 4 and 5 here are its first two, the others check more (two "
    "calculators, ordinals, the oracle)"
)


def render(res: dict[str, Any]) -> list[Table]:
    t = Table(title=f"sanity: self-checks of the ULP framework ({res['format']}): "
              f"{'all passed' if res['all_passed'] else 'FAILED'}", title_justify="left")
    for c in ("check", "result", "detail"):
        t.add_column(c)
    for c in res["checks"]:
        t.add_row(c["check"], "pass" if c["passed"] else "FAIL", c["detail"])
    return seed_note([t], "--sanity", SEED_NOTE)
