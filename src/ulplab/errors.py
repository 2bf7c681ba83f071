"""Errors that the command line turns into a one-line message and exit status 2."""

from __future__ import annotations

from collections.abc import Iterable


class UsageError(ValueError):
    """Bad input from the user: an unknown name, a malformed number, an unwritable path."""


def unknown_choice(kind: str, value: str, choices: Iterable[str]) -> UsageError:
    """The error for a name that is not one of ``choices``, naming every valid one."""
    return UsageError(f"unknown {kind} {value!r}; valid: {', '.join(choices)}")
