"""Stage: the truth. Correctly rounded results, proven with Arb balls, cached, cross-checked.

The oracle never imports ``ulplab.methods``.
"""

import sys as _sys

from ulplab import _CallablePackage

_sys.modules[__name__].__class__ = _CallablePackage  # ulplab.oracle(function, format)
