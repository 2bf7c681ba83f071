"""Denormal policies, as hardware applies them (see the tanh diagnostic in the seeds).

* ``ieee``: subnormals are ordinary values.
* ``daz`` (denormals are zero): a subnormal input is read as a zero of the same sign.
* ``ftz`` (flush to zero): a subnormal result becomes a zero of the same sign; this is applied to
  the implementation's output and to the reference alike, after rounding.
* ``daz-ftz``: both.

Under FTZ, ULP distances are measured on the flush-to-zero ordinal, in which subnormals do not
exist and the smallest normal number is one step from zero (see ``ulplab.ulp``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ulplab.errors import unknown_choice
from ulplab.formats.encoding import Kind, classify, signed_zero
from ulplab.formats.spec import Format


@dataclass(frozen=True)
class DenormalPolicy:
    name: str
    daz: bool
    ftz: bool


POLICIES: dict[str, DenormalPolicy] = {
    p.name: p
    for p in (
        DenormalPolicy("ieee", False, False),
        DenormalPolicy("daz", True, False),
        DenormalPolicy("ftz", False, True),
        DenormalPolicy("daz-ftz", True, True),
    )
}


def get_policy(name: str | DenormalPolicy) -> DenormalPolicy:
    if isinstance(name, DenormalPolicy):
        return name
    try:
        return POLICIES[name]
    except KeyError:
        raise unknown_choice("denormal policy", name, POLICIES) from None


def flush_subnormals(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """Replace every subnormal pattern by the zero of its sign (+0 in a format without -0);
    other patterns are unchanged."""
    sub = classify(bits, fmt) == Kind.SUBNORMAL
    return np.where(sub, signed_zero(bits, fmt), np.asarray(bits)).astype(fmt.uint)
