"""Progress bars on standard error (rich), transient, off with ``--quiet``.

Standard output keeps only the tables, so ``ulplab ... > report.txt`` holds no bar. Every bar of
the package is made here. Bottom layer: imports rich, not ``ulplab.report``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)


def progress_bar(enabled: bool = True, columns: tuple[ProgressColumn | str, ...] = ()
                 ) -> Progress:
    """A rich Progress on standard error, disabled (draws nothing) when ``enabled`` is False.
    ``columns``: rich's columns (default: description, bar, done/total, elapsed time)."""
    columns = columns or (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn())
    return Progress(*columns, console=Console(stderr=True), transient=True,
                    disable=not enabled)


@contextmanager
def steps(description: str, total: int, enabled: bool = True) -> Iterator[Callable[..., None]]:
    """``with steps("peers tanh", 12) as advance: ... advance()`` — one bar of ``total`` steps."""
    with progress_bar(enabled) as bar:
        task = bar.add_task(description, total=total)

        def advance(n: int = 1) -> None:
            bar.advance(task, n)

        yield advance


__all__ = ["progress_bar", "steps"]
