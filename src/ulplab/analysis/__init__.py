"""Analyses built on the oracle tables: saturation thresholds, reference values."""
