"""The callable stage packages: ``ulplab.formats()`` and ``ulplab.oracle(function, format)``.

``ulplab.formats`` and ``ulplab.oracle`` are subpackages, whose attributes on ``ulplab`` would
otherwise hide the API functions of the same names; each sets its module's class to
``CallablePackage`` and defines ``call``, what calling the package does (``ulplab.api`` names the
same functions). Nothing here imports anything of ulplab's."""

from __future__ import annotations

import types
from typing import Any


class CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.call(*args, **kwargs)
