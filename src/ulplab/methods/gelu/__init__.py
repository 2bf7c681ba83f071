"""GELU approximations of the seed research, one module per family (see each module's docstring)."""
