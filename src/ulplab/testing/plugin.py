"""The pytest plugin (entry point ``pytest11``: ``ulplab``): the ``ulp_oracle`` fixture and the
``--ulplab-rounding`` / ``--ulplab-denormals`` options that set its defaults.

Loaded in every pytest run where ulplab is installed, so it imports nothing heavy until a test
asks for the fixture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest


@dataclass(frozen=True)
class UlpOracle:
    """The correctly rounded truth under this session's rounding and denormal options."""

    rounding: str = "nearest-even"
    denormals: str = "ieee"

    def table(self, function: str, format: str) -> Any:
        """f at every bit pattern of a 16/8-bit format, as an array of the format's dtype."""
        from ulplab.api import oracle

        return oracle(function, format, self.rounding, self.denormals)

    def correctly_rounded(self, function: str, x: Any, format: str) -> Any:
        from ulplab.api import correctly_rounded

        return correctly_rounded(function, x, format, self.rounding, self.denormals)

    def assert_max_ulp(self, impl: Any, function: str, format: str,
                       max_ulp: float, **options: Any) -> Any:
        """``ulplab.testing.assert_max_ulp`` with this oracle's rounding and denormals."""
        __tracebackhide__ = True
        from ulplab.testing import assert_max_ulp

        options.setdefault("rounding", self.rounding)
        options.setdefault("denormals", self.denormals)
        return assert_max_ulp(impl, function, format, max_ulp, **options)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ulplab", "ulplab: ULP error against a correctly rounded oracle")
    group.addoption("--ulplab-rounding", default="nearest-even",
                    help="rounding of the ulp_oracle fixture's truth (default nearest-even)")
    group.addoption("--ulplab-denormals", default="ieee",
                    help="denormal policy of the ulp_oracle fixture (default ieee)")


@pytest.fixture(scope="session")
def ulp_oracle(pytestconfig: pytest.Config) -> UlpOracle:
    """Correctly rounded tables and ``assert_max_ulp`` under --ulplab-rounding/-denormals."""
    from ulplab.formats import check_mode, get_policy

    rounding = pytestconfig.getoption("ulplab_rounding")
    denormals = pytestconfig.getoption("ulplab_denormals")
    check_mode(rounding)
    get_policy(denormals)
    return UlpOracle(rounding, denormals)
