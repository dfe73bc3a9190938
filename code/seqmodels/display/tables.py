"""Results shown as tables, the same way in every chapter.

:func:`result_table` turns rows of values into a :class:`Table`: Jupyter and the book show it as an
HTML table (headers with their units, one number format per column, numbers right-aligned), and the
``.ipynb`` download keeps a plain-text copy of it. Chapters use it instead of printing a Markdown
table or a dict.

>>> t = result_table([("RNN", 0.5, 3), ("LSTM", 1.0, None)],
...                  [Column("model"), Column("accuracy", fmt=".0%"), Column("time", "ms", ".1f")])
>>> print(t)
model  accuracy  time (ms)
RNN         50%        3.0
LSTM       100%          —
>>> '<th class="text-right">time (ms)</th>' in t._repr_html_()
True
"""

from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass
from typing import Any, Sequence

#: What a cell with no value (``None``) shows.
MISSING = "\N{EM DASH}"


@dataclass(frozen=True)
class Column:
    """One column: its ``header``, the ``unit`` shown after it in parentheses, and the format
    spec of its numbers (``".2f"``, ``".0%"``, ``","``; empty: ``str``).

    Raises
    ------
    ValueError
        ``header``, ``unit`` or ``fmt`` not a string, or ``fmt`` not a format spec for numbers.
    """

    header: str
    unit: str = ""
    fmt: str = ""

    def __post_init__(self) -> None:
        for name in ("header", "unit", "fmt"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be a str, got {type(getattr(self, name)).__name__}")
        try:
            format(1.5, self.fmt)
        except ValueError as err:
            raise ValueError(f"fmt must be a format spec for numbers such as '.2f', got {self.fmt!r} ({err})") from None

    @property
    def title(self) -> str:
        return f"{self.header} ({self.unit})" if self.unit else self.header


def _cell(value: Any, column: Column, where: str) -> tuple[str, bool]:
    """The text of one cell and whether it is a number (right-aligned)."""
    if value is None:
        return MISSING, False
    if isinstance(value, str):
        return value, False
    if isinstance(value, bool):
        return ("yes" if value else "no"), False
    if isinstance(value, numbers.Number):
        if isinstance(value, numbers.Real) and not math.isfinite(float(value)):
            raise ValueError(f"rows: {where} is {value!r}; a table shows finite numbers (None for no value)")
        return format(value, column.fmt), True
    raise ValueError(f"rows: {where} is a {type(value).__name__}; expected a number, a string or None")


class Table:
    """A formatted table; build it with :func:`result_table`.

    Raises
    ------
    ValueError
        ``columns`` not all :class:`Column`, or ``cells`` not one row of ``(text, is_number)`` pairs
        per row with one pair per column.
    """

    def __init__(self, columns: Sequence[Column], cells: list[list[tuple[str, bool]]], caption: str):
        if not all(isinstance(c, Column) for c in columns):
            raise ValueError("columns must all be Column objects (use result_table to build a Table)")
        if not all(len(row) == len(columns) and all(isinstance(c, tuple) and len(c) == 2 for c in row)
                   for row in cells):
            raise ValueError("cells must hold one (text, is_number) pair per column in every row")
        self.columns, self.cells, self.caption = list(columns), cells, caption

    def _repr_html_(self) -> str:
        numeric = [any(row[j][1] for row in self.cells) for j in range(len(self.columns))]
        style = lambda j: ' class="text-right"' if numeric[j] else ""  # noqa: E731
        head = "".join(f"<th{style(j)}>{html.escape(c.title)}</th>" for j, c in enumerate(self.columns))
        body = "".join("<tr>" + "".join(f"<td{style(j)}>{html.escape(text)}</td>" for j, (text, _) in enumerate(row))
                       + "</tr>" for row in self.cells)
        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        return (f'<div class="pst-scrollable-table-container"><table class="table seqmodels-table">{caption}'
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")

    def __str__(self) -> str:
        grid = [[c.title for c in self.columns]] + [[text for text, _ in row] for row in self.cells]
        numeric = [any(row[j][1] for row in self.cells) for j in range(len(self.columns))]
        widths = [max(len(line[j]) for line in grid) for j in range(len(self.columns))]
        lines = ["  ".join(text.rjust(w) if numeric[j] and n else text.ljust(w)
                           for j, (text, w) in enumerate(zip(line, widths))).rstrip()
                 for n, line in enumerate(grid)]
        return "\n".join(([self.caption] if self.caption else []) + lines)

    __repr__ = __str__


def result_table(rows: Sequence[Sequence[Any]], columns: Sequence[Column | str], caption: str = "") -> Table:
    """A :class:`Table` of ``rows`` (one sequence of values per row) under ``columns`` (a
    :class:`Column`, or a header string for a column of text or plain numbers).

    Raises
    ------
    ValueError
        ``rows`` or ``columns`` empty, a row of the wrong length, a cell that is not a finite
        number, a string or None, or a column that is neither a :class:`Column` nor a str.

    >>> result_table([], ["a"])
    Traceback (most recent call last):
    ...
    ValueError: rows: expected at least one row, got none
    >>> result_table([(1, 2)], ["a"])
    Traceback (most recent call last):
    ...
    ValueError: rows: row 0 has 2 values for 1 columns
    >>> result_table([(float("nan"),)], [Column("loss", fmt=".3f")])
    Traceback (most recent call last):
    ...
    ValueError: rows: row 0, column 'loss' is nan; a table shows finite numbers (None for no value)
    """
    columns = [c if isinstance(c, Column) else Column(str(c)) for c in columns]
    if not columns:
        raise ValueError("columns: expected at least one column, got none")
    rows = [list(row) for row in rows]
    if not rows:
        raise ValueError("rows: expected at least one row, got none")
    cells = []
    for i, row in enumerate(rows):
        if len(row) != len(columns):
            raise ValueError(f"rows: row {i} has {len(row)} values for {len(columns)} columns")
        cells.append([_cell(v, c, f"row {i}, column {c.header!r}") for v, c in zip(row, columns)])
    return Table(columns, cells, caption)
