"""The seed's G4: an arithmetic GELU' kernel, GELU'(x) = Phi(x) + x phi(x), for ``gelu_grad``.

The seed's backward-pass kernel (seeds/001_*, "G4: Backward Pass"): Phi by the same piecewise erf
as B3 (``erf_b3.phi_b3``: Taylor series for |x| < sqrt 2, the A&S 7.1.26 form for erfc beyond, no
cancellation for x < 0), phi(x) = e^(-x^2/2)/sqrt(2 pi) by the arithmetic exp
(``tail.gauss_pdf``), then Phi + x phi as a float32 multiply and a float32 add, clamped to
[CLAMP_LO, CLAMP_HI] = [-0.5, 1.5] (the seed's bounds after its fix: it first clamped to
[0, inf), which loses the negative GELU' of x < -0.7518). NaN gives the input NaN; +-inf give
the limits 1 and -0 (x phi would be inf * 0).

    G4             the seed's: B3's seed constants (erf Taylor to z^9, A&S's own a_k).
    G4 (improved)  B3 Pure (improved)'s constants (Taylor to z^19, a_k refitted for relative
                   error).
Measured (every input, against the oracle's gelu_grad, ``ulplab analyze gelu_grad``): G4 max 1 /
mean 0.0003 ULP in bfloat16, 7 / 0.0096 in float16 (its 5-term Taylor series near |x| = sqrt 2);
G4 (improved) 0 ULP on every bfloat16 input, 1 / 0.00013 in float16. The seed's first clamp
[0, inf) would give 15876 ULP in bfloat16 (``rebuild(CLAMP_LO=0, CLAMP_HI=inf)``). The
``derivative`` study reports both kernels, the sign of GELU' where it is negative and that clamp.
"""

from __future__ import annotations

import numpy as np

from ulplab.methods.gelu import erf_b3, tail
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, threshold
from ulplab.methods.registry import ArrayFn, Claim, built, register

CLAMP_LO = -0.5  # the seed's bounds for GELU' (true range [-0.1289, 1.1289], at x = -+sqrt 2)
CLAMP_HI = 1.5


def build_g4(p: Params) -> ArrayFn:
    """GELU' = Phi_b3(x) + x phi(x), clamped to [CLAMP_LO, CLAMP_HI]."""

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            y = erf_b3.phi_b3(x, p) + x * tail.gauss_pdf(x, p)
            y = np.minimum(np.maximum(y, p.CLAMP_LO), p.CLAMP_HI)
            y = where32(x == -np.inf, np.copysign(np.zeros_like(x), x), y)
            y = where32(x == np.inf, 1.0, y)
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


def g4_params(**changes: object) -> Params:
    decl = {**erf_b3.PHI_DECL, "CLAMP_LO": threshold(CLAMP_LO), "CLAMP_HI": threshold(CLAMP_HI)}
    return Params(decl).replace(**changes)


register(built(
    "gelu_grad", "G4", "erf",
    "the seed's G4: Phi (B3's piecewise erf, the seed's constants) + x phi, clamped to "
    "[-0.5, 1.5]",
    build_g4, g4_params(ERF_TAYLOR=erf_b3.ERF_TAYLOR[:erf_b3.SEED_ERF_TERMS],
                        AS_COEFFS=erf_b3.AS_COEFFS_SEED),
    claims={"bfloat16": Claim(1, 0.0003), "float16": Claim(7, 0.0096)},
    note="the seed's backward-pass kernel; its table has no figure for it",
))
register(built(
    "gelu_grad", "G4 (improved)", "erf",
    "Phi (B3 Pure (improved)'s piecewise erf) + x phi, clamped to [-0.5, 1.5]",
    build_g4, g4_params(),
    claims={"bfloat16": Claim(0, 0.0), "float16": Claim(1, 0.00013)},
    note="G4 with B3 Pure (improved)'s constants",
))
