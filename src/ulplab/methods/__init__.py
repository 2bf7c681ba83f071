"""Stage: implementations under test. Methods never import the oracle."""

from ulplab.methods import baseline as _baseline  # noqa: F401  (registers the f32-naive methods)
from ulplab.methods import det as _det  # noqa: F401  (registers the deterministic kernels)
from ulplab.methods import gelu as _gelu  # noqa: F401  (registers the GELU research methods)
from ulplab.methods import synthesized as _synthesized
from ulplab.methods.registry import (
    Claim,
    Method,
    all_methods,
    canonical_name,
    get_method,
    methods_for,
    register,
    select_methods,
)

_synthesized.register_all()  # the recipes ulplab synth made (shipped, then the user's)

__all__ = ["Claim", "Method", "all_methods", "canonical_name", "get_method", "methods_for",
           "register", "select_methods"]
