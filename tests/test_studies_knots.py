"""The studies of the committed tables and knots: calibrate (the tail LUT against the oracle),
verify-knots (every knot table against certified values), epss (knot placement under a budget),
and the certified rounding they rest on."""

import numpy as np
from flint import arb, ctx

from ulplab.formats import get_format
from ulplab.methods.gelu import tail
from ulplab.oracle.table import evaluate
from ulplab.studies import RENDERERS, STUDIES
from ulplab.studies.common import patched
from ulplab.studies.verify_knots import certified_bits, phi_ball, phi_bits

BF16 = get_format("bfloat16")
STUDIES_HERE = ("calibrate", "verify-knots", "epss")


def test_renderers(bf16_study):
    for name in STUDIES_HERE:
        assert name in STUDIES and RENDERERS[name](bf16_study(name))


# ------------------------------------------------------------------ certified rounding
def test_certified_phi_is_correctly_rounded():
    prec = ctx.prec
    # Phi(0) = 1/2 exactly
    assert phi_bits([0.0])[0] == np.float32(0.5).view(np.uint32)
    # GELU through Arb equals the oracle at float32 inputs
    xs = [-3.5, -0.7518, 1.25, -8.3125, 2.0**-20]
    for x in xs:
        x = float(np.float32(x))
        b = certified_bits(lambda x=x: arb(x) * phi_ball(x))
        assert b == int(evaluate("gelu", np.array([x]), "float32")[0])
    # an exact value is rounded once: 1 + 2^-24 is a float32 midpoint (ties to even -> 1.0)
    assert certified_bits(lambda: arb(1) + arb(2) ** -24) == np.float32(1).view(np.uint32)
    assert certified_bits(lambda: arb(1) + arb(2) ** -24 + arb(2) ** -60) == \
        np.nextafter(np.float32(1), np.float32(2)).view(np.uint32)
    assert ctx.prec == prec  # restored


# ------------------------------------------------------------------ calibrate
def test_calibrate_recomputes_the_tail_table(bf16_study):
    res = bf16_study("calibrate")
    assert res["knots"] == tail.TAIL_COARSE.size + tail.TAIL_FINE.size == 25
    committed = np.concatenate([tail.TAIL_COARSE, tail.TAIL_FINE]).view(np.uint32)
    knots = [e["knot"] for e in res["entries"]]
    assert knots[:19] == [-8 + 0.25 * i for i in range(19)]
    assert knots[19:] == [-8.3125 + 0.0625 * i for i in range(6)]
    oracle = evaluate("gelu", np.array(knots), "float32").astype(np.uint32)
    diff = int((committed != oracle).sum())
    assert res["bits_differ"] == diff  # exactly as recomputed (0: the table is built from mpmath)
    for e, c, o in zip(res["entries"], committed, oracle, strict=True):
        assert e["committed_hex"] == f"0x{int(c):08x}" and e["oracle_hex"] == f"0x{int(o):08x}"
        assert e["bits_equal"] == (c == o) and (e["ulp_float32"] == 0) == (c == o)
        assert e["arb_agrees"]
    assert res["arb_disagreements"] == 0 and res["bfloat16_differ"] == 0
    # the seed's hand-typed constants: -3.5 close, -8.25 and -8.3125 far off (wrong order)
    seed = {s["knot"]: s for s in res["seed_decimals"]}
    assert seed[-3.5]["relative_error"] < 1e-6
    assert seed[-8.25]["relative_error"] > 0.2 and seed[-8.3125]["relative_error"] > 0.1


def test_calibrate_sees_a_changed_entry():
    bad = tail.TAIL_COARSE.copy()
    bad[3] = np.nextafter(bad[3], np.float32(0))  # one float32 ulp toward zero
    with patched(tail, "TAIL_COARSE", bad):
        res = STUDIES["calibrate"]("bfloat16")
    assert res["bits_differ"] == 1 and res["max_ulp_float32"] == 1
    e = res["entries"][3]
    assert not e["bits_equal"] and e["ulp_float32"] == 1  # negative values: toward 0 is +1
    assert e["knot"] == -7.25


# ------------------------------------------------------------------ verify-knots
def test_verify_knots_finds_no_mismatch(bf16_study):
    res = bf16_study("verify-knots")
    names = {r["table"] for r in res["tables"]}
    assert {"TAIL_COARSE", "TAIL_FINE", "PHI_TABLE", "D3 LUT+Corr (improved): TABLE",
            "D4 Non-uniform (improved): TABLE", "POS_TABLE", "NEG_TABLE", "SEED_PHI_TABLE",
            "SEED_TAIL_MAIN", "SEED_TAIL_FINE",
            "C1 Pure (improved): SPLINE_C0", "C1 Pure (improved): SPLINE_C1",
            "C1 Spline (improved): SPLINE_C0", "EXP2_TABLE", "EXP_VALUES"} <= names
    sizes = {r["table"]: r["entries"] for r in res["tables"]}
    assert sizes["PHI_TABLE"] == 513 and sizes["D4 Non-uniform (improved): TABLE"] == 163
    assert sizes["POS_TABLE"] == 417 and sizes["C1 Pure (improved): SPLINE_C0"] == 32
    rows = {r["table"]: r for r in res["tables"]}
    assert {"R5 Pure (improved)", "R5 LUT (improved)"} <= set(rows["PHI_TABLE"]["methods"])
    # every table of this project's is built from mpmath and rounded once: all entries are
    # correctly rounded; the seed's own tables (bit for bit its decimals, its erff) are not
    seed = {"SEED_PHI_TABLE", "SEED_TAIL_MAIN", "SEED_TAIL_FINE", "EXP_VALUES"}
    assert all(r["max_ulp"] == 0 and r["mismatch_list"] == [] for r in res["tables"]
               if r["table"] not in seed)
    assert all(rows[t]["mismatches"] > 0 for t in seed)
    assert res["total_mismatches"] == sum(rows[t]["mismatches"] for t in seed)
    # every other declared table is listed (coefficients, nodes), none silently skipped
    others = {a["array"] for a in res["other_arrays"]}
    assert {"C2_COEFFS", "GL_A", "TT_FAST_SLOPES", "SEED_PHI"} <= others


def _with_extra_methods(monkeypatch, module, *extra):
    from ulplab.methods import methods_for

    registered = list(methods_for("gelu"))
    monkeypatch.setattr(module, "gelu_methods", lambda names=None: [*registered, *extra])


def test_verify_knots_reads_a_new_or_renamed_methods_tables(monkeypatch):
    import dataclasses

    from ulplab.methods import get_method
    from ulplab.studies import verify_knots

    r5 = get_method("gelu", "R5 LUT (improved)")
    bad = r5.params.PHI_TABLE.copy()
    bad[7] = np.nextafter(bad[7], np.float32(1))
    renamed = dataclasses.replace(r5.rebuild(PHI_TABLE=bad), name="R5 renamed")
    _with_extra_methods(monkeypatch, verify_knots, renamed)
    res = verify_knots.verify_knots("bfloat16")
    rows = {r["table"]: r for r in res["tables"]}
    new = rows["R5 renamed: PHI_TABLE"]  # its own row: same name, other entries
    assert new["methods"] == ["R5 renamed"] and new["mismatches"] == 1
    assert new["mismatch_list"][0]["index"] == 7 and new["mismatch_list"][0]["ulp"] == 1
    assert rows["R5 Pure (improved): PHI_TABLE"]["mismatches"] == 0


def test_verify_knots_lists_a_real_mismatch(monkeypatch):
    import dataclasses

    from ulplab.methods import get_method
    from ulplab.studies import verify_knots

    r5 = get_method("gelu", "R5 Pure (improved)")
    bad = r5.params.PHI_TABLE.copy()
    bad[100] = np.nextafter(bad[100], np.float32(1))
    bad[400] = np.nextafter(np.nextafter(bad[400], np.float32(0)), np.float32(0))
    monkeypatch.setattr(verify_knots, "gelu_methods", lambda names=None: [
        dataclasses.replace(r5.rebuild(PHI_TABLE=bad), name="R5 bad")])
    res = STUDIES["verify-knots"]("bfloat16", tables=["PHI_TABLE"])
    (r,) = res["tables"]
    assert r["mismatches"] == 2 and r["max_ulp"] == 2
    got = {m["index"]: m for m in r["mismatch_list"]}
    assert got[100]["ulp"] == 1 and got[400]["ulp"] == -2
    assert got[100]["knot"] == -9 + 100 * 0.0234375
    assert got[100]["correct"] == f"0x{int(r5.params.PHI_TABLE.view(np.uint32)[100]):08x}"
    assert len(RENDERERS["verify-knots"](res)) == 3  # the mismatch table is shown


# ------------------------------------------------------------------ epss
def test_epss_non_increasing_with_budget(bf16_study):
    res = bf16_study("epss")
    for kind in ("pwl", "hermite"):
        k = res["kinds"][kind]
        maxes = [k["start"]["max_ulp"], *(r["max_ulp"] for r in k["budgets"])]
        assert maxes == sorted(maxes, reverse=True) and k["monotone"]
        assert [r["knots"] for r in k["budgets"]] == [16, 32, 64]
        for r in k["budgets"]:
            assert len(r["knot_list"]) == r["knots"]
            assert r["knot_list"][0] == -8.0 and r["knot_list"][-1] == 3.0
            assert r["max_ulp"] <= r["uniform"]["max_ulp"]  # refinement beats uniform knots
    assert res["kinds"]["pwl"]["budgets"][-1]["max_ulp"] < 30
    assert res["kinds"]["hermite"]["budgets"][-1]["max_ulp"] <= 2


def test_epss_runs_fast():
    import time

    t = time.perf_counter()
    STUDIES["epss"]("bfloat16")
    assert time.perf_counter() - t < 10.0
