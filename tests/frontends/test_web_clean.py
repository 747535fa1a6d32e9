"""Issue 24, what was left open, in Debian's Chromium against `sizing web` with the offline planner: download
links name no folder of the server (they were Gradio's /gradio_api/file=/tmp/gradio/<hash>/... address),
a question and a Plan run leave no failed request and no console warning or error (Gradio's aborted
queue/data stream; its chart's Vega-Lite version warning), and the Plan chart is readable on a phone (its
bars were a third of a pixel wide at 390 px). Desktop 1440x900 and phone 390x844, light and dark.
Screenshots are kept when SIZING_TEST_SCREENSHOTS is set."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.frontends.conftest import needs_chromium
from tests.frontends.test_web_browser import ANSWER_TIMEOUT_MS, YAML_QUESTION, ask, server, shots
from tests.frontends.test_web_expectations import DESKTOP, PHONE, chat_box_view

pytestmark = needs_chromium
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
__all__ = ["server", "shots"]  # module fixtures shared with test_web_browser (one server per module)

# Gradio aborts a finished stream's request a moment late (web.DEFER_STREAM_ABORT waits 3 s): wait past that,
# so an abort of a stream still open would be seen
AFTER_ABORTS_MS = 3_500


def watched_page(browser, server, size, theme="light"):
    """A page whose failed requests, console warnings and errors and page errors are recorded from the start."""
    context = browser.new_context(viewport=size, accept_downloads=True, locale="en-US")
    page = context.new_page()
    page.problems = []
    page.on("console", lambda m: page.problems.append(f"console {m.type}: {m.text}") if m.type in ("warning", "error") else None)
    page.on("pageerror", lambda e: page.problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: page.problems.append(f"failed request: {r.url} {r.failure}"))
    page.on("response", lambda r: page.problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    page.goto(f"{server}?__theme={theme}", wait_until="load")
    expect(page.locator("#question textarea")).to_be_editable(timeout=30_000)
    return page


def run_plan(page):
    page.get_by_role("tab", name=re.compile("Plan")).click()
    page.locator("#plan-train").click()
    expect(page.locator("#plan-chart")).to_contain_text("usable per device", timeout=ANSWER_TIMEOUT_MS)
    expect(page.locator("#plan-result")).to_contain_text("qwen2.5-72b")


# ------------------------------------------------------------------ downloads
def test_downloads_are_served_under_a_neutral_address(browser, server, shots):
    page = watched_page(browser, server, DESKTOP)
    ask(page, YAML_QUESTION)
    links = page.locator("#chat a[download]")
    expect(links.first).to_be_visible()
    root = server.rstrip("/")
    for link in links.all():
        href, name = link.get_attribute("href"), link.get_attribute("download")
        assert re.fullmatch(re.escape(root) + r"/download/[0-9a-f]{12}/" + re.escape(name), href), href
        assert link.inner_text().strip().startswith(name)
    # nothing on the page names a folder of the server (the temp folder, Gradio's cache, the download folder)
    markup = page.content()
    assert not re.search(r"/tmp/|gradio_api/file=/tmp|sizing-web-|/gradio/[0-9a-f]{20,}", markup), \
        re.findall(r".{60}(?:/tmp/|sizing-web-).{40}", markup)
    # the file downloaded is the config shown in the code block above it, under its own name
    yaml_link = links.filter(has_text=".yaml").first
    with page.expect_download() as dl:
        yaml_link.click()
    text = Path(dl.value.path()).read_text(encoding="utf-8")
    assert dl.value.suggested_filename == yaml_link.get_attribute("download")
    assert "cutoff_len: 8192" in text and "finetuning_type: lora" in text
    code = page.locator("#chat pre").filter(has_text="cutoff_len").first.inner_text()
    assert "cutoff_len: 8192" in code
    # the Tables tab's CSV: the same route, relative to the page
    page.get_by_role("tab", name=re.compile("Tables")).click()
    csv_link = page.locator("#table-csv a")
    assert re.fullmatch(r"download/tables/[0-9a-f]{16}/min_cards\.csv", csv_link.get_attribute("href"))
    with page.expect_download() as dl:
        csv_link.click()
    assert Path(dl.value.path()).read_text(encoding="utf-8").startswith("model_id,")
    page.screenshot(path=shots / "c01_downloads.png")
    page.wait_for_timeout(AFTER_ABORTS_MS)
    assert page.problems == []
    page.context.close()


@pytest.mark.parametrize("path", ["download/../../etc/passwd", "download/%2e%2e/%2e%2e/etc/passwd",
                                  "download/0123456789ab/nothing.yaml", "download/tables/x/min_cards.csv"])
def test_the_download_route_serves_only_files_the_app_wrote(server, path):
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(server + path, timeout=10)
    assert err.value.code == 404


def test_fonts_are_served_under_a_neutral_address(server):
    # the page's own font subsets, by name only; the install folder is never part of the address
    with urllib.request.urlopen(server + "static/fonts/NotoSansSC-Regular-latin.woff2", timeout=10) as r:
        assert r.status == 200 and r.headers["Content-Type"] == "font/woff2" and r.read(4) == b"wOF2"
    for path in ("static/fonts/OFL.txt", "static/fonts/..%2fweb.py", "static/fonts/nothing.woff2"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(server + path, timeout=10)
        assert err.value.code == 404


# ------------------------------------------------------------------ a clean browser console and network log
@pytest.mark.parametrize(("size", "theme"), [(DESKTOP, "light"), (PHONE, "dark")], ids=["desktop-light", "phone-dark"])
def test_a_question_and_a_plan_leave_no_failed_request_or_warning(browser, server, size, theme, shots):
    page = watched_page(browser, server, size, theme)
    ask(page, "Minimum cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    ask(page, "and with 8192?")
    run_plan(page)
    page.wait_for_timeout(AFTER_ABORTS_MS)
    page.screenshot(path=shots / f"c02_clean_{size['width']}_{theme}.png", full_page=True)
    assert page.problems == []
    assert urlparse(page.url).netloc == urlparse(server).netloc
    page.context.close()


# ------------------------------------------------------------------ the Plan chart on a phone
CHART_JS = """() => {
  const svg = document.querySelector('#plan-chart svg'); const box = svg.getBoundingClientRect();
  const bars = {};
  for (const r of svg.querySelectorAll('rect.part')) {
    const b = r.getBoundingClientRect(); const y = Math.round(b.top);
    (bars[y] ||= {left: b.left, right: b.left, height: b.height, tips: []});
    bars[y].right = Math.max(bars[y].right, b.right); bars[y].tips.push(r.querySelector('title').textContent);
  }
  const labels = [...svg.querySelectorAll('text.bar-name')].map(t => { const b = t.getBoundingClientRect();
    return {text: t.textContent, left: b.left, right: b.right, size: parseFloat(getComputedStyle(t).fontSize), fill: getComputedStyle(t).fill}; });
  return {width: box.width, left: box.left, right: box.right, bars: Object.values(bars), labels,
          legend: [...document.querySelectorAll('#plan-chart .mem-legend li')].map(li => li.innerText)}; }"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_plan_chart_is_readable_on_a_phone(browser, server, theme, shots):
    page = watched_page(browser, server, PHONE, theme)
    run_plan(page)
    chart = page.locator("#plan-chart")
    chart.scroll_into_view_if_needed()
    got = page.evaluate(CHART_JS)
    page.screenshot(path=shots / f"c03_phone_chart_{theme}.png", full_page=False)
    assert got["width"] >= 280  # the chart takes the phone's width (390 px less the page's margins and padding)
    # three bars (the estimate, its likely range, the usable memory), each a finger high and as long as its GiB
    assert len(got["bars"]) == 3, got["bars"]
    totals = [float(re.search(r": ([\d,.]+)(?:–([\d,.]+))? GiB$", lab["text"]).group(2 if "–" in lab["text"] else 1)
                    .replace(",", "")) for lab in got["labels"]]
    widths = [b["right"] - b["left"] for b in got["bars"]]
    for bar, width in zip(got["bars"], widths, strict=True):
        assert bar["height"] >= 24 and width >= 40, (bar, width)
        assert bar["left"] >= got["left"] - 0.5 and bar["right"] <= got["right"] + 0.5
    # the bars' lengths stand in the ratio of the GiB their labels state (to the label's rounding)
    for total, width in zip(totals[1:], widths[1:], strict=True):
        assert abs(width / widths[0] - total / totals[0]) < 0.02, (totals, widths)
    # labels at 12 px or more, inside the chart, in the theme's text colour (light on dark, dark on light)
    for lab in got["labels"]:
        assert lab["size"] >= 12 and lab["left"] >= got["left"] - 0.5 and lab["right"] <= got["right"] + 0.5, lab
        level = sum(int(c) for c in re.findall(r"\d+", lab["fill"])[:3]) / 3
        assert (level > 180) if theme == "dark" else (level < 80), lab
    # every term is named with its GiB in the legend and on hover; a tiny term is in the legend though its bar is thin
    assert any(t.startswith("weights") and t.endswith("GiB") for t in got["legend"]), got["legend"]
    assert all(re.search(r"\d GiB$", t) for bar in got["bars"] for t in bar["tips"])
    page.wait_for_timeout(AFTER_ABORTS_MS)
    assert page.problems == []
    page.context.close()


# ------------------------------------------------------------------ a reload opens at the last turn
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_reload_opens_the_chat_at_the_last_question(browser, server, size, shots):
    page = watched_page(browser, server, size)
    for q in (YAML_QUESTION, "Minimum cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?", YAML_QUESTION):
        ask(page, q)
    before_reload = len(page.problems)
    page.reload(wait_until="load")
    # the page left aborts what it still had in flight (its heartbeat; under load, a queue poll): not a problem of the page
    page.problems[before_reload:] = [
        p for p in page.problems[before_reload:] if not (p.startswith("failed request:") and "ERR_ABORTED" in p)
    ]
    page.problems[:] = [p for p in page.problems if "/heartbeat/" not in p]
    last = page.locator("#chat [data-testid='user']").last
    expect(page.locator("#chat [data-testid='user']")).to_have_count(3, timeout=15_000)
    page.wait_for_timeout(500)  # the chat scrolls once it is filled
    top, box_top, box_bottom = chat_box_view(page, last)
    page.screenshot(path=shots / f"c04_reloaded_{size['width']}.png")
    assert box_top <= top <= box_bottom - 40, (top, box_top, box_bottom)  # the last question in view, not the first
    first_top = chat_box_view(page, page.locator("#chat [data-testid='user']").first)[0]
    assert first_top < box_top, first_top  # scrolled past the first turns (three long answers)
    page.wait_for_timeout(AFTER_ABORTS_MS)
    assert page.problems == []
    page.context.close()
