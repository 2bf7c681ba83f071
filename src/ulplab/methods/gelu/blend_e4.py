"""The seed's blending family: E4 Hermite, E4v3 Quintic, E4v2 Wide.

Idea: instead of switching from the core approximation to the asymptotic tail at one threshold
(a jump in value and slope there), blend them over a window [a, b]:

    t = clamp((x - a)/(b - a), 0, 1),  w = s(t),  GELU = tail + w (core - tail)   (one FMA)

so GELU is the tail below a, the core above b, and a smooth mix between. s is the blending
polynomial: the cubic Hermite smoothstep s(t) = t^2 (3 - 2t) (s' = 0 at both ends: C^1), or the
quintic smootherstep s(t) = t^3 (10 - 15t + 6t^2) (s' = s'' = 0 at both ends: C^2); both Horner.

Pieces (reused, not copied):
    core  x Phi_b3(x): ``erf_b3.phi_b3``, the seed's B3 core (Taylor polynomial of erf for
          |x| < sqrt 2, A&S 7.1.26 form refitted for relative error beyond; the seed's E4 rows
          repeat B3's core_neg figures 2.03/23 exactly, so this is the seed's core);
    tail  ``tail.asymptotic_tail``: -phi(x)(1 - 1/x^2 + 3/x^4 - 15/x^6), error < 105/x^8.

Windows: inside the window the error is at most w e_core + (1-w) e_tail, so the window must lie
where the tail series is already good; its left end should also be above -8.3125, where the
seed's Pure methods start the tail anyway. Measured (all bfloat16 and float16 inputs):
[-4.5, -3.5] float16 max 2 (series 3e-3 at -3.5); [-5.5, -4.5], [-6, -5], [-7, -4], [-8, -4]
all max 1/1.
    E4 Hermite    cubic smoothstep on [-5.5, -4.5] (series error at most 6.3e-4 at -4.5)
    E4v3 Quintic  quintic smootherstep on the same window
    E4v2 Wide     cubic smoothstep on the wide window [-7, -4] (series 1.1e-3 at -4, weighted
                  by w near 0 there)

Seed (bfloat16): E4 Hermite max 58 / mean 0.05, E4v3 Quintic 61 / 0.04, E4v2 Wide 81 / 0.08,
all worst in tail_neg: the seed's core was the A&S erf (1.2% relative error of erfc) and its
tail series was blended in at |x| where its truncation shows. With the refitted core both pieces
are accurate in the window and all three measure max 1 ulp (the claims below). The blend keeps
the transition smooth at a cost of evaluating both pieces inside the window.

Variants: the seed's names are the seed's pieces, its B3 core (erf Taylor to z^9, A&S's own a_k)
and its fast exp (``tail.seed_fast_exp_neg``) in the core and the tail, on the windows above; the
seed gives neither its windows nor its blend's form beyond "Hermite", "quintic", "wide".
"(improved)": the improved B3 core and this project's exp.

Measured (every input; bfloat16 max / mean, float16 max / mean):
    E4 Hermite    1 / 0.0023, 9 / 0.019    seed 58     (improved) 1 / 0.0020, 1 / 0.0007
    E4v3 Quintic  1 / 0.0023, 9 / 0.019    seed 61     (improved) 1 / 0.0020, 1 / 0.0007
    E4v2 Wide     1 / 0.0025, 9 / 0.019    seed 81     (improved) 1 / 0.0020, 1 / 0.0007
The seed's 58 / 61 / 81 (all in tail_neg) are not reproduced: with its constants and its fast exp
as read here both pieces are within 1 bfloat16 ulp on these windows, so the seed's figures come
from its windows (not published; a window where the 4-term series is poor, above -4, gives such
errors) or from a fast exp less accurate than any polynomial reading of it (degree 1, the least,
gives 7 for B3 Pure). The improvement (the B3 core's) buys float16 9 -> 1.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.methods.gelu import erf_b3, tail
from ulplab.methods.gelu.seed_table import SEED_BF16, seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs, evaluate_poly, threshold
from ulplab.methods.registry import ArrayFn, Claim, built, register

# smoothstep polynomials in t, low to high (exact small integers)
SMOOTHSTEP = (0.0, 0.0, 3.0, -2.0)               # 3t^2 - 2t^3 (cubic Hermite, C^1)
SMOOTHERSTEP = (0.0, 0.0, 0.0, 10.0, -15.0, 6.0)  # 10t^3 - 15t^4 + 6t^5 (quintic, C^2)
E4_WINDOW = (-5.5, -4.5)
E4V2_WINDOW = (-7.0, -4.0)


def build_e4(p: Params) -> ArrayFn:
    """An E4 kernel: asymptotic tail below BLEND_FROM, B3 core above BLEND_TO, the blend
    polynomial BLEND (s(0) = 0, s(1) = 1) of t = (x - BLEND_FROM)/(BLEND_TO - BLEND_FROM)
    between."""
    a, b = p.BLEND_FROM, p.BLEND_TO
    inv_w = 1.0 / (b - a)  # 1, 1/3: the window widths are 1 and 3 (1/3 rounds once)

    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            core = x * erf_b3.phi_b3(x, p)
            tl = tail.asymptotic_tail(x, p)
            t = np.minimum(np.maximum((x - a) * inv_w, 0.0), 1.0)
            w = evaluate_poly(p.SCHEME, t, p.BLEND)
            mix = fma(w, core - tl, tl)
            y = where32(x < a, tl, where32(x > b, core, mix))
            return where32(np.isnan(x), x, y)  # NaN -> the input NaN itself

    return impl


def _params(window: tuple[float, float], blend: tuple[float, ...], seed: bool) -> Params:
    """An E4 method's parameters; ``seed``: the seed's B3 constants (erf Taylor to z^9, A&S's own
    a_k) and its fast exp, else the improved B3 core and this project's exp."""
    decl = {**erf_b3.PHI_DECL, "BLEND": coeffs(blend), "BLEND_FROM": threshold(window[0]),
            "BLEND_TO": threshold(window[1])}
    if not seed:
        return Params(decl)
    return Params({**decl, **tail.SEED_EXP_PARAMS}).replace(
        ERF_TAYLOR=erf_b3.ERF_TAYLOR[:erf_b3.SEED_ERF_TERMS], AS_COEFFS=erf_b3.AS_COEFFS_SEED)


_IMPROVED = {"bfloat16": Claim(1, 0.002), "float16": Claim(1, 0.0007)}
# name, blend polynomial, window, claims of the seed's (measured), idea
_VARIANTS = (
    ("E4 Hermite", SMOOTHSTEP, E4_WINDOW, "the cubic smoothstep on [-5.5, -4.5]",
     {"bfloat16": Claim(1, 0.0024), "float16": Claim(9, 0.019)}),
    ("E4v3 Quintic", SMOOTHERSTEP, E4_WINDOW, "the quintic smootherstep on [-5.5, -4.5]",
     {"bfloat16": Claim(1, 0.0024), "float16": Claim(9, 0.019)}),
    ("E4v2 Wide", SMOOTHSTEP, E4V2_WINDOW, "the cubic smoothstep on the wide window [-7, -4]",
     {"bfloat16": Claim(1, 0.0025), "float16": Claim(9, 0.019)}),
)
for _name, _blend, _window, _how, _claims in _VARIANTS:
    register(built(
        "gelu", _name, "blend",
        f"the seed's B3 erf core (its constants, its fast exp) and asymptotic tail blended by "
        f"{_how}",
        build_e4, _params(_window, _blend, seed=True), claims=_claims,
        seed=seed_figures(_name),
        note=f"seed {SEED_BF16[_name][0]}, measured {_claims['bfloat16'].max_ulp}: the seed does "
        "not give its window; on this one its core and tail are both accurate",
    ))
    register(built(
        "gelu", f"{_name} (improved)", "blend",
        f"B3 erf core (improved) and asymptotic tail blended by {_how}",
        build_e4, _params(_window, _blend, seed=False), claims=_IMPROVED,
        seed=seed_figures(f"{_name} (improved)"),
        note="the improved B3 core (Taylor to z^19, refitted A&S a_k, accurate exp)",
    ))
