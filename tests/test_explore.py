"""seqmodels.display.explore: the HTML of an explorable figure holds every state, the default as an image."""

from __future__ import annotations

import re

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from seqmodels.display.explore import MAX_STATES, compact_svg, data_uri, explorable, svg_text  # noqa: E402
from seqmodels.display.plotting import use_book_style  # noqa: E402


def line(slope):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, slope])
    return fig


def make(**kw):
    args = dict(name="slope", label="slope", alt=lambda s: f"A line of slope {s}.")
    args.update(kw)
    return explorable(line, [1, 2, 3], **args)


def test_every_state_is_in_the_page_and_the_default_is_the_image():
    ex = make(default=2, text=lambda s: f"a = {s}")
    page = ex.html()
    assert ex.default == 1
    img = re.search(r'<img class="sm-explore-figure" src="([^"]*)" alt="([^"]*)" data-state="1"', page)
    assert img and img.group(2) == "A line of slope 2."
    assert img.group(1) == data_uri(ex.states[1].svg)
    blocks = re.findall(r'<script type="image/svg\+xml" data-state="(\d)" data-alt="([^"]*)"[^>]*>(.*?)</script>', page, re.S)
    assert [(b[0], b[1]) for b in blocks] == [("0", "A line of slope 1."), ("2", "A line of slope 3.")]
    assert [b[2] for b in blocks] == [ex.states[0].svg, ex.states[2].svg]
    assert 'min="0" max="2"' in page and 'value="1"' in page and 'aria-valuetext="a = 2"' in page
    assert '<div class="sm-explore-control" hidden>' in page  # shown by explore.js, not without it
    assert len({s.svg for s in ex.states}) == 3                 # three different drawings


def test_select_lists_the_values_with_the_default_selected():
    page = make(control="select", default=3).html()
    assert re.findall(r'<option value="(\d)"( selected)?>', page) == [("0", ""), ("1", ""), ("2", " selected")]
    assert "<output" not in page


def test_figures_are_closed_and_two_renderings_are_identical():
    use_book_style()
    before = len(plt.get_fignums())
    first, second = make(), make()
    assert len(plt.get_fignums()) == before
    assert first.html() == second.html()
    assert "<!--" not in first.states[0].svg and "Date" not in first.states[0].svg


def test_svg_coordinates_are_rounded_and_the_data_uri_is_valid():
    svg = svg_text(line(1 / 3))
    numbers = re.findall(r'\sd="([^"]*)"', svg)
    assert numbers and not any(re.search(r"\.\d{3}", d) for d in numbers)
    uri = data_uri(svg)
    assert uri.startswith("data:image/svg+xml;charset=utf-8,%3C") and not set('"#<>\n&') & set(uri[30:])


def test_compact_svg_keeps_every_element_and_moves_no_point_by_more_than_0_005_pt():
    """The book's figures pass through compact_svg (plotting.use_book_style): it may drop comments,
    metadata, whitespace and unused ids, and round coordinates, but not drop or move what is drawn."""
    from io import StringIO

    use_book_style()
    fig = line(1 / 3)
    fig.axes[0].plot([0.1, 0.7], [0.123456, 0.654321], "o")
    buffer = StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    plain = buffer.getvalue()
    small = compact_svg(plain)
    assert len(small) < 0.9 * len(plain) and compact_svg(small) == small
    tags = lambda s: sorted(re.findall(r"<(path|use|text|g|clipPath)\b", s))
    assert tags(small) == tags(plain)
    numbers = lambda s: [float(x) for x in re.findall(r"-?\d+\.\d+|-?\d+", " ".join(
        re.findall(r'\s(?:d|x|y|width|height)="([^"]*)"', s)))]
    a, b = numbers(plain), numbers(small)
    assert len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b)) <= 0.005 + 1e-9


@pytest.mark.parametrize("kw, arg", [
    (dict(name="Bad Name"), "name"), (dict(label=" "), "label"), (dict(control="slider"), "control"),
    (dict(default=7), "default"), (dict(alt="text"), "alt"), (dict(alt=lambda s: ""), "alt"),
    (dict(text=lambda s: "same"), "text"),
])
def test_bad_arguments_name_themselves(kw, arg):
    with pytest.raises(ValueError, match=arg):
        make(**kw)


def test_bad_values_and_draw():
    with pytest.raises(ValueError, match="values"):
        explorable(line, [1], name="a", label="a", alt=str)
    with pytest.raises(ValueError, match="values"):
        explorable(line, list(range(MAX_STATES + 1)), name="a", label="a", alt=str)
    with pytest.raises(ValueError, match="values"):
        explorable(line, "abc", name="a", label="a", alt=str)
    with pytest.raises(ValueError, match="draw"):
        explorable(lambda v: None, [1, 2], name="a", label="a", alt=str)
    with pytest.raises(ValueError, match="draw"):
        explorable(3, [1, 2], name="a", label="a", alt=str)
