"""ulplab: measure, design and ship elementwise float kernels against a correctly rounded truth.

Data flows through one package per stage::

    formats -> inputs -> methods -> (outputs) -> oracle -> ulp -> stats -> report

``sweep`` ties the stages together and ``cli`` exposes them as the ``ulplab`` command.
"""

__version__ = "0.1.0"
