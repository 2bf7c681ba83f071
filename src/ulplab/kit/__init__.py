"""The float32 kit: the only operations a deterministic kernel uses.

Correctly rounded FMA, exact helpers (bit casts, ldexp/frexp, rint), error-free transformations
and double-float arithmetic, Horner and Estrin with and without FMA, and the float32 guard that
tests use to prove a kernel never leaves float32 arithmetic.
"""

from ulplab.kit.fma import fma
from ulplab.kit.guard import ARITHMETIC_UFUNCS, Float32Guard, GuardViolation, run_guarded
from ulplab.kit.ops import (
    bits_of,
    dd_add,
    dd_mul,
    estrin,
    f32hex,
    fast_two_sum,
    frexp,
    from_bits,
    horner,
    ldexp,
    lookup,
    rint,
    two_prod,
    two_sum,
)

__all__ = ["ARITHMETIC_UFUNCS", "Float32Guard", "GuardViolation", "bits_of", "dd_add", "dd_mul",
           "estrin", "f32hex", "fast_two_sum", "fma", "frexp", "from_bits", "horner", "ldexp",
           "lookup", "rint", "run_guarded", "two_prod", "two_sum"]
