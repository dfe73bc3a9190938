"""seqmodels.display.tables: the HTML and text forms agree, numbers are formatted per column, bad input is
refused with a message naming the argument."""

from __future__ import annotations

import numpy as np
import pytest
from bs4 import BeautifulSoup
from hypothesis import given, settings
from hypothesis import strategies as st

from seqmodels.display.tables import MISSING, Column, result_table


def html_cells(table) -> list[list[str]]:
    soup = BeautifulSoup(table._repr_html_(), "html.parser")
    return [[c.get_text() for c in tr.find_all(["th", "td"])] for tr in soup.find_all("tr")]


def test_headers_carry_units_and_numbers_their_format():
    t = result_table([("RNN", np.float64(0.123456), np.int64(1200), None)],
                     [Column("model"), Column("loss", fmt=".3f"), Column("memory", "bytes", ","), "note"])
    assert html_cells(t) == [["model", "loss", "memory (bytes)", "note"], ["RNN", "0.123", "1,200", MISSING]]
    soup = BeautifulSoup(t._repr_html_(), "html.parser")
    assert soup.find("table")["class"] == ["table", "seqmodels-table"]
    assert [td.get("class") for td in soup.find_all("td")] == [None, ["text-right"], ["text-right"], None]


def test_text_is_escaped_in_html():
    t = result_table([("<b>&</b>",)], ["x"], caption="a < b")
    assert "<b>" not in t._repr_html_() and "&lt;b&gt;&amp;&lt;/b&gt;" in t._repr_html_()
    assert html_cells(t)[1] == ["<b>&</b>"] and str(t).splitlines()[0] == "a < b"


@settings(deadline=None)  # no timing: the machine is shared
@given(st.lists(st.tuples(st.text(alphabet="abc xyz", max_size=6), st.floats(-1e6, 1e6), st.integers(-10**6, 10**6)),
                min_size=1, max_size=8))
def test_text_and_html_show_the_same_cells(rows):
    t = result_table(rows, [Column("name"), Column("value", fmt=".2f"), Column("count", fmt=",")])
    text_rows = str(t).splitlines()
    assert len(text_rows) == len(rows) + 1
    for line, cells in zip(text_rows[1:], html_cells(t)[1:]):
        assert line.split() == " ".join(cells).split()


@pytest.mark.parametrize("rows, columns, message", [
    ([], ["a"], "rows: expected at least one row"),
    ([(1,)], [], "columns: expected at least one column"),
    ([(1, 2)], ["a"], "rows: row 0 has 2 values for 1 columns"),
    ([(float("inf"),)], ["a"], "row 0, column 'a' is inf"),
    ([([1, 2],)], ["a"], "row 0, column 'a' is a list"),
])
def test_bad_input_is_refused(rows, columns, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        result_table(rows, columns)
