"""The exact value of f(x) as text, for people: a decimal Arb ball (and its anchor form)."""

from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx

from ulplab.oracle.forms import evaluate, special


def exact_text(name: str, x: float, digits: int = 30) -> str:
    exact = special(name, x)
    if isinstance(exact, Fraction):
        return f"{exact} (exact)"
    if exact is not None:
        return f"{exact} (exact)"
    saved = ctx.prec
    try:
        ctx.prec = 4 * digits + 64
        anchor, d, _ = evaluate(name, x)
        total = (arb(anchor) + d).str(digits, radius=False)
        if anchor != 0 and not (d.abs_upper() > abs(anchor) * arb(2) ** -(4 * digits)):
            return f"{anchor!r} + {d.str(digits, radius=False)}"
        return total
    finally:
        ctx.prec = saved
