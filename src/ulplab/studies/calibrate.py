"""calibrate: the seed's tail-LUT values recomputed from the oracle (the seed's --calibrate).

The seed's shared tail LUT holds GELU at 25 knots: x = -8, -7.75, ..., -3.5 (19 coarse knots,
step 1/4) and x = -8.3125, ..., -8 (6 fine knots, step 1/16; -8 is in both tiers). The seed's
--calibrate printed float64 GELU at those knots so that its hand-typed 6-digit decimals could be
corrected. Here each knot's value is the oracle's: GELU correctly rounded to float32
(``evaluate("gelu", knots, "float32")``), cross-checked by an independent certified evaluation
of x Phi(x) with Arb (``verify_knots.certified_bits``), and compared entry by entry with the
table committed in ``ulplab.methods.gelu.tail`` (``TAIL_COARSE``, ``TAIL_FINE``): bits equal?
signed float32 ULP distance (committed minus correct).

Also reported per entry: the entry rounded to the study's format against the oracle's GELU of
that format at the knot (the knots are values of every 16-bit format), which shows whether the
float32 table, once rounded again, still gives the correctly rounded result there; and the
seed's own decimals for the four knots its README quotes (``SEED_DECIMALS``), as float32, against
the oracle.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from flint import arb
from rich.table import Table

from ulplab.formats import Format, get_format, round_to_format
from ulplab.oracle.table import evaluate
from ulplab.studies.common import float32_ulps_apart, seed_note
from ulplab.studies.verify_knots import certified_bits, phi_ball
from ulplab.ulp import ulp_distance

F32 = get_format("float32")

# The seed's tail_lut constants quoted in its README (x -> the float literal it committed)
SEED_DECIMALS = {-3.5: -8.14202e-04, -3.75: -3.31556e-04, -8.25: -4.57967e-16,
                 -8.3125: -4.61436e-16}


def tail_knots() -> list[tuple[str, int, float, np.float32]]:
    """(tier, index, knot, committed float32) for every entry of the tail LUT."""
    from ulplab.methods.gelu import tail

    rows = [("coarse", i, tail.TAIL_LUT_FINE + 0.25 * i, tail.TAIL_COARSE[i])
            for i in range(tail.TAIL_COARSE.size)]
    rows += [("fine", i, tail.TAIL_LUT_END + 0.0625 * i, tail.TAIL_FINE[i])
             for i in range(tail.TAIL_FINE.size)]
    return rows


def _f32(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])


def calibrate(fmt: Format | str = "bfloat16") -> dict[str, Any]:
    fmt = get_format(fmt)
    rows = tail_knots()
    ks = np.array([r[2] for r in rows], dtype=np.float64)
    committed = np.array([r[3] for r in rows], dtype=np.float32)
    oracle = evaluate("gelu", ks, F32).astype(np.uint32)
    arb_bits = np.array([certified_bits(lambda x=float(x): arb(x) * phi_ball(x)) for x in ks],
                        dtype=np.uint32)
    d = float32_ulps_apart(oracle.view(np.float32), committed)
    fmt_ok = np.ones(ks.size, dtype=bool)
    fmt_ulp = np.zeros(ks.size, dtype=np.int64)
    if fmt.bits < 32:
        fmt_oracle = evaluate("gelu", ks, fmt)
        fmt_got = round_to_format(committed.astype(np.float64), fmt)
        fmt_ulp = ulp_distance(fmt_got, fmt_oracle, fmt)
        fmt_ok = fmt_got == fmt_oracle
    entries = []
    for j, (tier, i, x, c) in enumerate(rows):
        entries.append({"tier": tier, "index": i, "knot": x, "committed": float(c),
                        "committed_hex": f"0x{int(committed.view(np.uint32)[j]):08x}",
                        "oracle": _f32(int(oracle[j])), "oracle_hex": f"0x{int(oracle[j]):08x}",
                        "bits_equal": bool(committed.view(np.uint32)[j] == oracle[j]),
                        "ulp_float32": int(d[j]),
                        "arb_agrees": bool(arb_bits[j] == oracle[j]),
                        f"{fmt.name}_equal": bool(fmt_ok[j]), f"{fmt.name}_ulp": int(fmt_ulp[j])})
    seed = []
    for x, v in SEED_DECIMALS.items():
        o = int(evaluate("gelu", np.array([x]), F32)[0])
        s = np.array([v], dtype=np.float32)
        seed.append({"knot": x, "seed_literal": v, "seed_float32": float(s[0]),
                     "oracle": _f32(o), "ulp_float32": int(float32_ulps_apart(
                         np.array([o], dtype=np.uint32).view(np.float32), s)[0]),
                     "relative_error": float(abs(float(s[0]) / _f32(o) - 1.0))})
    return {"study": "calibrate", "function": "gelu", "format": fmt.name,
            "truth": "oracle GELU correctly rounded to float32 at each knot (Arb cross-check)",
            "entries": entries, "knots": len(entries),
            "bits_differ": sum(not e["bits_equal"] for e in entries),
            "max_ulp_float32": int(np.abs(d).max()),
            "arb_disagreements": sum(not e["arb_agrees"] for e in entries),
            f"{fmt.name}_differ": int((~fmt_ok).sum()), "seed_decimals": seed}


# The comparison with the seed's --calibrate (docs/seed-studies.md).
SEED_NOTE = (
    "its 24 knots down to -8.3125 have the same float32 GELU and bfloat16 bits as here; it "
    "also prints -8.375, -8.4375, -8.5 (past the committed table) and labels knots to one "
    "decimal under duplicate names (GELU_N3_5 twice), a print defect"
)


def render(res: dict[str, Any]) -> list[Table]:
    f = res["format"]
    t = Table(title=f"calibrate: the tail LUT ({res['knots']} entries) against the oracle's "
              f"float32 GELU: {res['bits_differ']} differ, max {res['max_ulp_float32']} float32 "
              f"ulps; rounded to {f}: {res[f + '_differ']} differ", title_justify="left")
    for c in ("tier", "knot", "committed", "oracle (float32)", "bits equal", "ULP f32",
              f"{f} equal", "arb"):
        t.add_column(c, justify="left" if c == "tier" else "right")
    for e in res["entries"]:
        t.add_row(e["tier"], f"{e['knot']:g}", f"{e['committed']:.8e}",
                  f"{e['oracle']:.8e} ({e['oracle_hex']})", "yes" if e["bits_equal"] else "NO",
                  f"{e['ulp_float32']:+d}", "yes" if e[f"{f}_equal"] else f"NO ({e[f + '_ulp']})",
                  "ok" if e["arb_agrees"] else "DIFFERS")
    s = Table(title="calibrate: the seed's hand-typed tail constants (README) against the oracle",
              title_justify="left")
    for c in ("knot", "seed literal", "oracle (float32)", "ULP f32", "relative error"):
        s.add_column(c, justify="right")
    for e in res["seed_decimals"]:
        s.add_row(f"{e['knot']:g}", f"{e['seed_literal']:.6e}", f"{e['oracle']:.8e}",
                  f"{e['ulp_float32']:+d}", f"{e['relative_error']:.2e}")
    return seed_note([t, s], "--calibrate", SEED_NOTE)

