"""Stage: the truth. Correctly rounded results, proven with Arb balls, cached, cross-checked.

The oracle never imports ``ulplab.methods``.
"""
