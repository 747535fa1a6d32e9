"""The Plan tab's memory chart as a small SVG of horizontal stacked bars, drawn here from the chart rows
(``web_plan.memory_chart_rows`` / ``inference_chart_rows``).

Gradio's BarPlot drew the bars a third of a pixel wide below about 900 px (its band scale shared the width
with labels that overlapped), warned in the console about its Vega-Lite spec version on every plan, and
needed pandas. Here every bar is a full-width row with its name and total above it, its parts sized in
percent of the width (so the bars scale with the column, at 390 px too), each part's GiB on hover
(an SVG ``<title>``, also read by screen readers) and in the legend below."""

from __future__ import annotations

import html
import math
from typing import Any

from .web_plan import CAPACITY_BAR, ESTIMATE_BAR, PART_COLOURS, RANGE_BAR

BAR_HEIGHT = 26  # px: a finger's width, and room for the part names' colours to be told apart
ROW = 58  # px per bar: its label line, the bar and a gap
AXIS = 22  # px below the bars for the GiB scale
ORDER = [ESTIMATE_BAR, RANGE_BAR, CAPACITY_BAR]
TITLE = "Memory in GiB per device: the estimate's terms stacked, its likely range and the usable memory (hover for each GiB)"


def _step(top: float) -> float:
    """A round tick spacing giving about four ticks up to ``top``."""
    raw = max(top, 1e-9) / 4
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def _num(v: float) -> str:
    """GiB as the rows hold them (two decimals): rounding again would put 23.75 beside the plan's 23.7."""
    return f"{v:,.2f}"


def memory_chart_html(rows: list[dict[str, Any]], title: str = TITLE) -> str:
    """The chart for ``rows`` ({"bar", "part", "GiB"}), or "" when there is nothing to draw."""
    bars: dict[str, list[tuple[str, float]]] = {}
    for r in rows:
        if float(r["GiB"]) > 0:
            bars.setdefault(str(r["bar"]), []).append((str(r["part"]), float(r["GiB"])))
    if not bars:
        return ""
    names = sorted(bars, key=lambda b: ORDER.index(b) if b in ORDER else len(ORDER))
    totals = {b: sum(v for _, v in bars[b]) for b in names}
    step = _step(max(totals.values()))
    top = step * math.ceil(max(totals.values()) / step)
    height = ROW * len(names) + AXIS
    esc = html.escape

    def pct(v: float) -> str:
        return f"{100 * v / top:.3f}%"

    svg = [f'<svg class="mem-chart-bars" width="100%" height="{height}" aria-hidden="false">']
    ticks = [i * step for i in range(int(round(top / step)) + 1)]
    for t in ticks:  # grid lines behind the bars, the scale below them
        anchor = "start" if t == 0 else "end" if t == ticks[-1] else "middle"
        svg.append(f'<line class="grid" x1="{pct(t)}" x2="{pct(t)}" y1="0" y2="{height - AXIS + 4}"/>'
                   f'<text class="tick" x="{pct(t)}" y="{height - 6}" text-anchor="{anchor}">{t:,g}</text>')
    legend: dict[str, str] = {}
    for i, b in enumerate(names):
        y = ROW * i
        low = dict(bars[b]).get("range low end")
        amount = f"{_num(low)}–{_num(totals[b])} GiB" if low is not None else f"{_num(totals[b])} GiB"
        svg.append(f'<text class="bar-name" x="0" y="{y + 15}">{esc(b)}: {amount}</text>')
        x = 0.0
        for part, v in bars[b]:
            colour = PART_COLOURS.get(part, PART_COLOURS["other"])
            tip = ("low end of the likely range" if part == "range low end" else part) + f": {v:,.2f} GiB"
            if part == "likely range" and low is not None:
                tip = f"likely range: {amount}"
            svg.append(f'<rect class="part" data-part="{esc(part)}" x="{pct(x)}" y="{y + 22}" width="{pct(v)}" '
                       f'height="{BAR_HEIGHT}" fill="{colour}"><title>{esc(tip)}</title></rect>')
            x += v
            if part == "likely range" and low is not None:
                legend[part] = amount
            elif part != "range low end":
                legend[part] = f"{v:,.2f} GiB"
    svg.append("</svg>")
    items = "".join(
        f'<li data-part="{esc(p)}"><span class="swatch" style="background:{PART_COLOURS.get(p, PART_COLOURS["other"])}">'
        f'</span>{esc(p)} {esc(v)}</li>' for p, v in legend.items())
    summary = "; ".join(f"{p}: {v}" for p, v in legend.items())
    return (f'<figure class="mem-chart" aria-label="{esc(title)}. {esc(summary)}">'
            f'<figcaption>{esc(title)}</figcaption>{"".join(svg)}<ul class="mem-legend">{items}</ul></figure>')
