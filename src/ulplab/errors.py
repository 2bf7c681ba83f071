"""Errors that the command line turns into a one-line message and exit status 2."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


class UsageError(ValueError):
    """Bad input from the user: an unknown name, a malformed number, an unwritable path."""


def unknown_choice(kind: str, value: str, choices: Iterable[str]) -> UsageError:
    """The error for a name that is not one of ``choices``, naming every valid one."""
    return UsageError(f"unknown {kind} {value!r}; valid: {', '.join(choices)}")


class ArgumentTypeError(UsageError, TypeError):
    """An argument of the wrong type. A TypeError for Python callers, and a UsageError (so a
    ValueError too) for the command line, which prints it as one line."""


def shown(value: Any) -> str:
    """``value`` as an error message shows it: its repr, or its type when that is long."""
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


def check_name(name: str, value: Any, choices: Sequence[str], kind: type | None = None,
               noun: str | None = None) -> Any:
    """``value`` when it is a string among ``choices`` (or an instance of ``kind``, the object
    such a name stands for); else a TypeError (not a string) or ValueError (unknown name) that
    names the argument ``name`` and the valid choices. ``noun``: what a choice is (default
    ``name``), as in "unknown rounding mode 'x'"."""
    if kind is not None and isinstance(value, kind):
        return value
    noun = noun or name
    valid = ", ".join(choices)
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{name} must be a string naming a {noun} ({valid}); got "
                                f"{shown(value)}")
    if value not in choices:
        where = "" if noun == name else f" (argument {name})"
        raise UsageError(f"unknown {noun} {value!r}{where}; valid: {valid}")
    return value
