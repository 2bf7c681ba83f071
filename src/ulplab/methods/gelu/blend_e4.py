"""The seed's blending family: E4 Hermite, E4v3 Quintic, E4v2 Wide.

Idea: instead of switching from the core approximation to the asymptotic tail at one threshold
(a jump in value and slope there), blend them over a window [a, b]:

    t = clamp((x - a)/(b - a), 0, 1),  w = s(t),  GELU = tail + w (core - tail)   (one FMA)

so GELU is the tail below a, the core above b, and a smooth mix between. s is the blending
polynomial: the cubic Hermite smoothstep s(t) = t^2 (3 - 2t) (s' = 0 at both ends: C^1), or the
quintic smootherstep s(t) = t^3 (10 - 15t + 6t^2) (s' = s'' = 0 at both ends: C^2); both Horner.

Pieces (reused, not copied):
    core  x Phi_b3(x): ``erf_b3.phi_b3``, the improved B3 core (Taylor polynomial of erf for
          |x| < sqrt 2, A&S 7.1.26 form refitted for relative error beyond);
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
all worst in tail_neg. With the refitted core both pieces are accurate in the improved windows
and all three "(improved)" measure max 1 ulp. The blend keeps the transition smooth at a cost of
evaluating both pieces inside the window.

Variants: the seed's names are the seed's methods, bit for bit (``build_e4_seed``; its C++ at
c2bf7bb, every bfloat16 output checked against its build by tests/test_gelu_seed_bits.py): its
B3 exp-free erf core without the clamp, blended with its own asymptotic tail on [-4, -3] (E4
Hermite: smoothstep; E4v3 Quintic: smootherstep) or [-5, -2] (E4v2 Wide: smoothstep), the tail
below, x -> x from 3, the FMAs its build contracts. "(improved)": the improved B3 core and this
project's exp on the windows above.

Measured (every input; bfloat16 max / mean, float16 max / mean):
    E4 Hermite    58 / 0.0465, 474 / 2.92    seed 58 / 0.05   (improved) 1 / 0.0020, 1 / 0.0007
    E4v3 Quintic  61 / 0.0448, 500 / 2.80    seed 61 / 0.04   (improved) 1 / 0.0020, 1 / 0.0007
    E4v2 Wide     81 / 0.0832, 667 / 4.49    seed 81 / 0.08   (improved) 1 / 0.0020, 1 / 0.0007
The seed's windows reach up to -3 and -2, where its 4-term series is percents off; what the
improvement buys: windows where both pieces are accurate and the accurate core, 58-81 -> 1.
"""

from __future__ import annotations

import numpy as np

from ulplab.kit import fma
from ulplab.methods.gelu import erf_b3, tail
from ulplab.methods.gelu.seed_table import seed_figures
from ulplab.methods.gelu.tail import where32
from ulplab.methods.params import Params, coeffs, constant, evaluate_poly, integer, threshold
from ulplab.methods.registry import ArrayFn, Claim, built, register

# smoothstep polynomials in t, low to high (exact small integers)
f32 = np.float32

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


def _params(window: tuple[float, float], blend: tuple[float, ...]) -> Params:
    """An improved E4 method's parameters: the improved B3 core, this project's exp."""
    return Params({**erf_b3.PHI_DECL, "BLEND": coeffs(blend), "BLEND_FROM": threshold(window[0]),
                   "BLEND_TO": threshold(window[1])})


# The seed's E4 family (gelu_implementations.cpp at c2bf7bb: gelu_e4_hermite_blend :4346,
# gelu_e4v2_wide_blend :4422, gelu_e4v3_quintic_blend :4486), bit for bit. The core is B3's
# exp-free erf (``erf_b3`` SEED_ERF_* constants) without its clamp and with (1 + p)^4 as
# ((1 + p)^2)^2; the window is [-4, -3] (E4, E4v3) or [-5, -2] (E4v2), below it the seed's
# asymptotic tail, x from 3.
SEED_WINDOWS = {"E4 Hermite": (-4.0, -3.0), "E4v3 Quintic": (-4.0, -3.0),
                "E4v2 Wide": (-5.0, -2.0)}
SEED_FUNCTIONS = {"E4 Hermite": ("gelu_e4_hermite_blend", 4346),
                  "E4v3 Quintic": ("gelu_e4v3_quintic_blend", 4486),
                  "E4v2 Wide": ("gelu_e4v2_wide_blend", 4422)}


def _seed_smoothstep(t: np.ndarray, quintic: int) -> np.ndarray:
    """hermite_smoothstep (:4318) (t t) fma(-2, t, 3), or quintic_smoothstep (:4406)
    ((t t) t) fma(t, fma(t, 6, -15), 10), t limited to [0, 1] first."""
    t = np.clip(t, 0.0, 1.0)
    if quintic:
        inner = fma(t, fma(t, np.full_like(t, 6.0), np.full_like(t, -15.0)), np.full_like(t, 10.0))
        return ((t * t) * t) * inner
    return (t * t) * fma(np.full_like(t, -2.0), t, np.full_like(t, 3.0))


def build_e4_seed(p: Params) -> ArrayFn:
    """The seed's E4 kernel as its README build evaluates it: poly = x Phi with the B3 core
    (unclamped, d4 = (d d)(d d)); on [BLEND_FROM, BLEND_TO) t = (x - BLEND_FROM)/(BLEND_TO -
    BLEND_FROM), b = smoothstep(t), GELU = fma(tail, 1 - b, poly b); the seed's asymptotic tail
    below BLEND_FROM; x from 3. A NaN input gives its NaN with the sign flipped, as the seed's
    build returns it (built with -ffp-contract=off it sets the sign instead)."""
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            one = np.full_like(x, 1.0)
            z = x * p.SEED_ERF_INV_SQRT2
            z2 = z * z
            z4 = z2 * z2
            z6 = z4 * z2
            s0, s1, s2, s3 = (np.full_like(x, c) for c in p.SEED_ERF_SERIES)
            small = (p.SEED_ERF_SCALE * z) * fma(s3, z6, fma(s2, z4, fma(s1, z2, s0)))
            a1, a2, a3, a4 = (np.full_like(x, c) for c in p.SEED_ERF_RATIONAL)
            t = np.abs(z)
            t2 = t * t
            d = f32(1.0) + fma(a4, t2 * t2, fma(a3, t2 * t, fma(a1, t, a2 * t2)))
            d2 = d * d
            big = one - one / (d2 * d2)
            big = where32(z >= 0.0, big, -big)
            erf = where32(t < 1.0, small, big)
            poly = x * (f32(0.5) * (f32(1.0) + erf))
            lo, hi = p.BLEND_FROM, p.BLEND_TO
            tl = tail.seed_asymptotic_tail(x, p)
            b = _seed_smoothstep((x - f32(lo)) / f32(hi - lo), p.QUINTIC)
            mix = fma(tl, one - b, poly * b)
            y = where32(x < hi, mix, poly)
            y = where32(x < lo, tl, y)
            y = where32(x >= p.SATURATION, x, y)
            return where32(np.isnan(x), -x, y)

    return impl


def _seed_params(name: str) -> Params:
    lo, hi = SEED_WINDOWS[name]
    return Params({"SEED_ERF_INV_SQRT2": constant(erf_b3.SEED_ERF_INV_SQRT2),
                   "SEED_ERF_SCALE": constant(erf_b3.SEED_ERF_SCALE),
                   "SEED_ERF_SERIES": coeffs(erf_b3.SEED_ERF_SERIES),
                   "SEED_ERF_RATIONAL": coeffs(erf_b3.SEED_ERF_RATIONAL),
                   "BLEND_FROM": threshold(lo), "BLEND_TO": threshold(hi),
                   "QUINTIC": integer(int(name == "E4v3 Quintic")),
                   "SATURATION": threshold(3.0), **tail.tail_params("seed-pure")})


_IMPROVED = {"bfloat16": Claim(1, 0.002), "float16": Claim(1, 0.0007)}
# name, blend polynomial, window of the improved variant, idea
_VARIANTS = (
    ("E4 Hermite", SMOOTHSTEP, E4_WINDOW, "the cubic smoothstep on [-5.5, -4.5]"),
    ("E4v3 Quintic", SMOOTHERSTEP, E4_WINDOW, "the quintic smootherstep on [-5.5, -4.5]"),
    ("E4v2 Wide", SMOOTHSTEP, E4V2_WINDOW, "the cubic smoothstep on the wide window [-7, -4]"),
)
# measured (``ulplab analyze``): bfloat16 and float16 (max, mean)
_SEED_CLAIMS = {"E4 Hermite": {"bfloat16": Claim(58, 0.0465), "float16": Claim(474, 2.9155)},
                "E4v3 Quintic": {"bfloat16": Claim(61, 0.0448), "float16": Claim(500, 2.7978)},
                "E4v2 Wide": {"bfloat16": Claim(81, 0.0832), "float16": Claim(667, 4.4937)}}
_SEED_HOW = {"E4 Hermite": "the cubic smoothstep on [-4, -3]",
             "E4v3 Quintic": "the quintic smootherstep on [-4, -3]",
             "E4v2 Wide": "the cubic smoothstep on the wide window [-5, -2]"}
for _name, _blend, _window, _how in _VARIANTS:
    _fn, _line = SEED_FUNCTIONS[_name]
    register(built(
        "gelu", _name, "blend",
        f"the seed's B3 erf core (unclamped) and its asymptotic tail blended by "
        f"{_SEED_HOW[_name]}",
        build_e4_seed, _seed_params(_name), claims=_SEED_CLAIMS[_name],
        seed=seed_figures(_name),
        note=f"bit for bit the seed's {_fn} (gelu_implementations.cpp:{_line} at c2bf7bb)",
    ))
    register(built(
        "gelu", f"{_name} (improved)", "blend",
        f"B3 erf core (improved) and asymptotic tail blended by {_how}",
        build_e4, _params(_window, _blend), claims=_IMPROVED,
        seed=seed_figures(f"{_name} (improved)"),
        note="the improved B3 core (Taylor to z^19, refitted A&S a_k, accurate exp) on the "
        "window " + f"[{_window[0]}, {_window[1]}]",
    ))
