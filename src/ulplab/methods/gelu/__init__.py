"""GELU approximations of the seed research, one module per family (see each module's docstring).

Every module in this package registers its methods when imported; all of them are imported here,
in name order, so a new family is a new module and nothing else.
"""

import importlib
import pkgutil

for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_mod}")
