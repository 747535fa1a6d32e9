"""The Plan tab's memory chart (web_chart) from the chart rows, without a browser: bars as long as their GiB
on a round scale, the likely range drawn from its low end, every term named with its GiB."""

from __future__ import annotations

import re

from assistant.frontends import web_plan
from assistant.frontends.web_chart import memory_chart_html

MEMORY = {"weights_gib": 10.0, "gradients_gib": 2.5, "optimizer_gib": 5.0, "total_gib": 17.5, "low_gib": 16.6,
          "high_gib": 19.1, "usable_gib": 58.0, "verdict": "fits"}


def rects(html: str) -> list[tuple[str, float, float, str]]:
    """(part, x %, width %, title) of each bar part."""
    return [(p, float(x), float(w), t) for p, x, w, t in re.findall(
        r'<rect class="part" data-part="([^"]+)" x="([\d.]+)%" y="\d+" width="([\d.]+)%" [^>]*><title>([^<]+)</title>', html)]


def test_bars_are_as_long_as_their_gib_on_a_round_scale():
    html = memory_chart_html(web_plan.memory_chart_rows(MEMORY))
    # the longest bar is the usable 58 GiB: the scale runs to 60 in steps of 20 (0, 20, 40, 60)
    assert re.findall(r'<text class="tick"[^>]*>([\d,.]+)</text>', html) == ["0", "20", "40", "60"]
    parts = {p: (x, w) for p, x, w, _ in rects(html)}
    assert parts["weights"][0] == 0 and abs(parts["weights"][1] - 100 * 10 / 60) < 1e-3
    assert abs(parts["gradients"][0] - 100 * 10 / 60) < 1e-3 and abs(parts["optimizer"][0] - 100 * 12.5 / 60) < 1e-3
    assert abs(parts["usable memory"][1] - 100 * 58 / 60) < 1e-3
    # the likely range starts where its low end stops: 16.6 to 19.1 GiB
    assert abs(parts["likely range"][0] - 100 * 16.6 / 60) < 1e-3 and abs(parts["likely range"][1] - 100 * 2.5 / 60) < 1e-3


def test_every_term_is_named_with_its_gib_in_the_labels_titles_and_legend():
    html = memory_chart_html(web_plan.memory_chart_rows(MEMORY))
    assert "estimate per device: 17.50 GiB" in html and "likely range of the estimate: 16.60–19.10 GiB" in html
    assert "usable per device (the limit): 58.00 GiB" in html
    titles = [t for *_, t in rects(html)]
    assert titles == ["weights: 10.00 GiB", "gradients: 2.50 GiB", "optimizer: 5.00 GiB",
                      "low end of the likely range: 16.60 GiB", "likely range: 16.60–19.10 GiB", "usable memory: 58.00 GiB"]
    legend = re.findall(r'<li data-part="([^"]+)">', html)
    assert legend == ["weights", "gradients", "optimizer", "likely range", "usable memory"]
    assert f'background:{web_plan.PART_COLOURS["weights"]}' in html  # the same colour for a term in every plan


def test_nothing_to_draw_is_no_chart_and_names_are_escaped():
    assert memory_chart_html([]) == ""
    html = memory_chart_html([{"bar": "<b>x</b>", "part": "a&b", "GiB": 1.0}])
    assert "<b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html and "a&amp;b" in html
