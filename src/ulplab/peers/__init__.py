"""The report card: native implementations swept over every input of a format, against the oracle.

For each backend (``backends.BACKENDS``, plus any ``module:function`` callable): the statistics of
``ulplab analyze`` and three behaviours that decide whether results can be trusted:

* DAZ: subnormal inputs read as zero — the backend's result for a subnormal x equals its
  (correct, not NaN) result for the zero of the same sign while the correctly rounded f(x)
  differs from f(±0);
* FTZ: subnormal results flushed — the correctly rounded result is subnormal and the backend
  gives a zero;
* scalar vs vector: one-element calls give other bits than the same inputs inside a long array.

For a function whose module names its ``derivative`` (``gelu``, ``tanh``) the backward pass
(autograd) is measured too, against the oracle's derivative (``gelu_grad``, ``tanh_grad``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ulplab.backends import BACKENDS, Unavailable, registered_backends, user_callable
from ulplab.backends._isolated import BackendFailed, Pool
from ulplab.errors import UsageError
from ulplab.formats import (
    Format,
    Kind,
    check_mode,
    classify,
    get_format,
    get_policy,
    signed_zero,
    to_values,
)
from ulplab.functions import get_function
from ulplab.inputs import input_set
from ulplab.methods import Method
from ulplab.progress import steps
from ulplab.stats import summarize
from ulplab.sweep import Outputs, compare, method_outputs, reference
from ulplab.ulp import NO_INDEX, ordinal_bitwise

SCALAR_SAMPLE = 256
USER_IDEA = "user callable"


def _one_line(exc: BaseException) -> str:
    """'TypeError: first line of the message' (the type alone when the message is empty)."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:120]}" if lines else type(exc).__name__


def _behaviours(method: Method, out: Outputs, fmt: Format, denormals: str) -> dict[str, Any]:
    bits, got, expected = out.x_bits, out.got, out.expected
    sub_in = classify(bits, fmt) == Kind.SUBNORMAL
    # the position in the sweep of the zero with the same sign (+0 in fnuz), -1 if not swept
    order = np.argsort(bits, kind="stable")
    swept = bits[order]
    zeros = signed_zero(bits, fmt)
    at = np.clip(np.searchsorted(swept, zeros), 0, len(bits) - 1)
    zero_at = np.where(swept[at] == zeros, order[at], -1)
    has_zero = zero_at >= 0
    z = np.where(has_zero, zero_at, 0)
    differs = has_zero & (expected != expected[z])
    daz_cand = sub_in & differs
    # A backend reads x as zero only if it gets f(±0) itself right (as a value: the sign of a
    # zero result aside): a method that is NaN, or a wrong constant, everywhere repeats its
    # result for zero without reading anything as zero.
    zero_right = to_values(got[z], fmt) == to_values(expected[z], fmt)  # NaN != NaN
    read_as_zero = daz_cand & zero_right & (got == got[z])
    ftz_cand = classify(expected, fmt) == Kind.SUBNORMAL
    flushed = ftz_cand & (classify(got, fmt) == Kind.ZERO)
    idx = np.linspace(0, len(bits) - 1, SCALAR_SAMPLE).astype(np.int64)
    scalar = np.array([method_outputs(method, fmt, denormals, bits=bits[i:i + 1])[1][0]
                       for i in idx])
    same = (scalar == got[idx]) | ((classify(scalar, fmt) == Kind.NAN) &
                                   (classify(got[idx], fmt) == Kind.NAN))
    return {
        "daz": {"subnormal_inputs": int(daz_cand.sum()), "read_as_zero": int(read_as_zero.sum())},
        "ftz": {"subnormal_results": int(ftz_cand.sum()), "flushed": int(flushed.sum())},
        "scalar_vs_vector": {"checked": SCALAR_SAMPLE, "mismatches": int((~same).sum())},
    }


def ordinal_index(bits: np.ndarray, fmt: Format, ftz: bool) -> np.ndarray:
    """Position in the ordered finite values, most negative = 0 (seed 002's index: bfloat16
    under flush-to-zero runs 0xff7f -> 0, 0x0000 -> 32,512, 0x7f7f -> 65,024); -1 for NaN/inf."""
    lowest = ordinal_bitwise(np.array([fmt.sign_bit | fmt.max_bits]), fmt, ftz)[0]
    idx = ordinal_bitwise(np.asarray(bits), fmt, ftz)
    return np.where(idx == NO_INDEX, -1, idx - lowest)


def _add_index(stats: dict[str, Any], fmt: Format, ftz: bool) -> None:
    for key in ("worst", "mismatch_examples"):
        for w in stats[key]:
            for field in ("hex", "got_hex", "expected_hex"):
                if field in w:
                    name = "x_index" if field == "hex" else field.replace("_hex", "_index")
                    w[name] = int(ordinal_index(np.array([int(w[field], 16)]), fmt, ftz)[0])


def report_card(func: str, fmt: Format | str, backends: Sequence[str] | None = None,
                callables: Sequence[str] = (), backward: bool = True, worst: int = 8, *,
                methods: Sequence[Method] = (), rounding: str = "nearest-even",
                denormals: str = "ieee", inputs: str = "all", via: str | None = None,
                bits: np.ndarray | None = None,
                index: bool = False, progress: bool = False, time_limit: float | None = None,
                pool: Pool | None = None) -> dict[str, Any]:
    """Every backend over every input of ``fmt`` (or the set ``inputs``): ``ulplab peers``' JSON.

    ``rounding``/``denormals``/``via`` choose the reference (see ``ulplab.sweep.reference``);
    ``methods`` are registered ulplab methods measured beside the backends; ``index`` adds the
    ordinal index (0 = most negative finite value) of each worst input and result.

    ``bits``: the input patterns to sweep instead (``inputs`` then only names them): float32's
    sampled card (``ulplab.peers.card.float32_sample``).

    ``time_limit`` (seconds) runs each backend in a child process of its own
    (``ulplab.backends._isolated``) that may take at most that long for each call: a backend
    that crashes, hangs or raises gets a row in ``skipped`` with status "failed" and one line,
    and the card goes on (``pool``: workers to reuse across cards, with their own limit). A
    backend that cannot run (absent or half-installed package, no such function or format) is
    status "skipped". Each row says whether the backend computed in the format itself or in
    float32 (``computes_in``), and why not in the format where it tried (``why_float32``).
    """
    fmt = get_format(fmt)
    check_mode(rounding)
    policy = get_policy(denormals)
    if bits is None:
        bits = None if inputs == "all" else input_set(fmt, inputs)
    if bits is not None and bits.size == 0:
        raise UsageError(f"no {inputs} inputs in {fmt.name}")
    names = ([n for n, b in BACKENDS.items() if b.on_card] if backends is None
             else list(backends))
    user = [user_callable(spec) for spec in callables]  # import errors surface before any sweep
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    derivative = get_function(func).derivative
    passes = [(func, False)] + ([(derivative, True)] if backward and derivative else [])
    planned = len(passes) * len(names) + len(user) + len(methods)
    own_pool = pool is None and time_limit is not None
    if own_pool:
        pool = Pool(time_limit)
    try:
        with steps(f"peers {func}", planned, progress) as advance:
            for target, is_backward in passes:
                candidates: list[tuple[str, Method, str | None]] = []
                for name in names:
                    label = f"{name} (backward)" if is_backward else name
                    why_f32: str | None
                    try:
                        if pool is None:
                            impl, takes = BACKENDS[name].make(func, fmt, is_backward)
                            why_f32 = getattr(impl, "why_float32", None)
                        else:
                            impl, takes, why_f32 = pool.make(
                                BACKENDS[name], func, fmt.name, is_backward,
                                registered=name in registered_backends())
                    except Unavailable as why:
                        skipped.append({"backend": label, "status": "skipped",
                                        "reason": str(why)})
                        advance()
                        continue
                    except BackendFailed as why:
                        skipped.append({"backend": label, "status": "failed",
                                        "reason": str(why)})
                        advance()
                        continue
                    candidates.append((label, Method(target, label, "peer",
                                                     BACKENDS[name].describe, impl,
                                                     takes=takes), why_f32))
                if not is_backward:
                    candidates += [(label, Method(target, label, "peer", USER_IDEA, fn), None)
                                   for label, fn in user]
                    candidates += [(m.name, m, None) for m in methods]
                expected = None
                for label, m, why_f32 in candidates:
                    try:
                        with np.errstate(all="ignore"):  # overflow/invalid are results, not news
                            if expected is None:
                                expected = reference(target, fmt, rounding, denormals, bits,
                                                     False, via)
                            out = compare(m, target, fmt, rounding, denormals, progress=False,
                                          bits=bits, expected=expected)
                            behaviours = _behaviours(m, out, fmt, denormals)
                    except UsageError:
                        raise
                    except Exception as exc:
                        reason = str(exc) if isinstance(exc, BackendFailed) else \
                            f"failed: {_one_line(exc)}"
                        if m.idea == USER_IDEA:  # the user's own code failing is an error
                            raise UsageError(f"--callable {label} {reason}") from None
                        skipped.append({"backend": label, "status": "failed",
                                        "reason": reason})  # a backend: reported
                        advance()
                        continue
                    stats = summarize(out.x_bits, out.got, out.expected, out.ulp, fmt, (),
                                      worst)
                    stats.pop("regions", None)
                    if index:
                        _add_index(stats, fmt, policy.ftz)
                    computes_in = fmt.name if m.takes == "format" else "float32"
                    row = {"backend": label, "reference": target, "computes_in": computes_in,
                           **stats, **behaviours}
                    if why_f32:
                        row["why_float32"] = why_f32
                    rows.append(row)
                    advance()
    finally:
        if own_pool and pool is not None:
            pool.close()
    return {"function": func, "format": fmt.name, "rounding": rounding,
            "denormals": policy.name, "inputs": inputs, "reference_via": via,
            "ulp_ordinal": "flush-to-zero" if policy.ftz else "ieee",
            "backends": rows, "skipped": skipped}


__all__ = ["BACKENDS", "ordinal_index", "report_card"]
