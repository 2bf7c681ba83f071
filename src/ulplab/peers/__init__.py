"""The report card: native implementations swept over every input of a format, against the oracle.

For each backend (``backends.BACKENDS``, plus any ``module:function`` callable): the statistics of
``ulplab analyze`` and three behaviours that decide whether results can be trusted:

* DAZ: subnormal inputs read as zero — the backend's result for a subnormal x equals its result
  for the zero of the same sign while the correctly rounded f(x) differs from f(±0);
* FTZ: subnormal results flushed — the correctly rounded result is subnormal and the backend
  gives a zero;
* scalar vs vector: one-element calls give other bits than the same inputs inside a long array.

For ``gelu`` and ``tanh`` the backward pass (autograd) is measured too, against the oracle's
``gelu_grad`` and ``tanh_grad``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ulplab.formats import Format, Kind, classify, get_format, signed_zero
from ulplab.methods import Method
from ulplab.peers.backends import BACKENDS, Unavailable, user_callable
from ulplab.stats import summarize
from ulplab.sweep import Outputs, compare, method_outputs

BACKWARD = {"gelu": "gelu_grad", "tanh": "tanh_grad"}
SCALAR_SAMPLE = 256


def _behaviours(method: Method, out: Outputs, fmt: Format) -> dict[str, Any]:
    bits, got, expected = out.x_bits, out.got, out.expected
    sub_in = classify(bits, fmt) == Kind.SUBNORMAL
    zero_of = signed_zero(bits, fmt)  # index of the zero with the same sign (+0 in fnuz)
    differs = expected != expected[zero_of]
    daz_cand = sub_in & differs
    read_as_zero = daz_cand & (got == got[zero_of])
    ftz_cand = classify(expected, fmt) == Kind.SUBNORMAL
    flushed = ftz_cand & (classify(got, fmt) == Kind.ZERO)
    idx = np.linspace(0, len(bits) - 1, SCALAR_SAMPLE).astype(np.int64)
    scalar = np.array([method_outputs(method, fmt, bits=bits[i:i + 1])[1][0] for i in idx])
    same = (scalar == got[idx]) | ((classify(scalar, fmt) == Kind.NAN) &
                                   (classify(got[idx], fmt) == Kind.NAN))
    return {
        "daz": {"subnormal_inputs": int(daz_cand.sum()), "read_as_zero": int(read_as_zero.sum())},
        "ftz": {"subnormal_results": int(ftz_cand.sum()), "flushed": int(flushed.sum())},
        "scalar_vs_vector": {"checked": SCALAR_SAMPLE, "mismatches": int((~same).sum())},
    }


def report_card(func: str, fmt: Format | str, backends: Sequence[str] | None = None,
                callables: Sequence[str] = (), backward: bool = True,
                worst: int = 8) -> dict[str, Any]:
    """Every backend over every input of ``fmt``: the JSON of ``ulplab peers``."""
    fmt = get_format(fmt)
    names = list(BACKENDS) if backends is None else list(backends)
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    passes = [(func, False)] + ([(BACKWARD[func], True)] if backward and func in BACKWARD else [])
    for target, is_backward in passes:
        candidates: list[tuple[str, Method]] = []
        for name in names:
            label = f"{name} (backward)" if is_backward else name
            try:
                impl, takes = BACKENDS[name].make(func, fmt, is_backward)
            except Unavailable as why:
                skipped.append({"backend": label, "reason": str(why)})
                continue
            candidates.append((label, Method(target, label, "peer", BACKENDS[name].describe,
                                             impl, takes=takes)))
        if not is_backward:
            for spec in callables:
                label, fn = user_callable(spec)
                candidates.append((label, Method(target, label, "peer", "user callable", fn)))
        for label, m in candidates:
            try:
                with np.errstate(all="ignore"):  # overflow/invalid are results here, not news
                    out = compare(m, target, fmt, progress=False)
            except Exception as exc:  # a backend that fails is reported, not fatal
                skipped.append({"backend": label, "reason": f"failed: {type(exc).__name__}: "
                                                           f"{str(exc).splitlines()[0][:120]}"})
                continue
            stats = summarize(out.x_bits, out.got, out.expected, out.ulp, fmt, (), worst)
            stats.pop("regions", None)
            with np.errstate(all="ignore"):
                behaviours = _behaviours(m, out, fmt)
            rows.append({"backend": label, "reference": target, **stats, **behaviours})
    return {"function": func, "format": fmt.name, "backends": rows, "skipped": skipped}


__all__ = ["BACKENDS", "report_card"]
