"""What a new user of the web chat expects, in Debian's Chromium at desktop (1440x900) and phone
(390x844) sizes, against `sizing web` with the offline planner (issue 15): nothing struck through,
no Share button, one font family with a real bold, typed HTML shown as text, the start of a new
answer in view, turn 10 as fast as turn 1, example questions once, conversations that survive a
reload, regenerate; the Plan and Tables tabs' fixes. Screenshots of each step are kept when
SIZING_TEST_SCREENSHOTS is set; SIZING_UPDATE_DOCS=1 also writes the README's two screenshots."""

from __future__ import annotations

import csv
import os
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from tests.frontends.conftest import needs_chromium
from tests.frontends.test_web_browser import (
    ANSWER_TIMEOUT_MS,
    EN_QUESTION,
    YAML_QUESTION,
    ask,
    last_reply,
    numbers,
    server,
    shots,
    users,
)

pytestmark = needs_chromium
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
__all__ = ["server", "shots"]  # module fixtures shared with test_web_browser (one server per module)

DESKTOP, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}
DOCS = Path(__file__).resolve().parents[2] / "docs"
HOSTILE = "<b>bold</b> <a href='http://evil.example'>link</a> <img src=x onerror=alert(1)> https://x.example ~a~ **b**"


def doc_shot(page, name: str) -> None:
    """A README screenshot from the top of the page, reduced to 128 colours (a third of the bytes)."""
    from PIL import Image

    DOCS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    path = DOCS / name
    page.screenshot(path=path)
    Image.open(path).convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def open_page(browser, server, size=DESKTOP, context=None, path=""):
    context = context or browser.new_context(viewport=size, accept_downloads=True, locale="en-US")
    page = context.new_page()
    page.requested_hosts = set()
    page.on("request", lambda r: page.requested_hosts.add(urlparse(r.url).netloc) if r.url.startswith("http") else None)
    page.goto(server + path, wait_until="load")
    # the app mounts after the page loads: an example clicked before its handlers exist does nothing (a
    # flake under load), so wait for the question box to be visible and editable
    expect(page.locator("#question textarea")).to_be_editable(timeout=30_000)
    return page


@pytest.fixture(params=["desktop", "phone"])
def size(request):
    return DESKTOP if request.param == "desktop" else PHONE


@pytest.fixture()
def desk(browser, server):
    page = open_page(browser, server)
    yield page
    hosts = page.requested_hosts
    page.context.close()
    assert hosts == {urlparse(server).netloc}, f"the page reached beyond the app: {hosts}"


def chat_box_view(page, locator) -> tuple[float, float, float]:
    """(top of the element, top and bottom of the chat's scroll box) in page coordinates."""
    return page.evaluate("""el => {
        let box = el.parentElement; while (box && box.scrollHeight <= box.clientHeight + 1) box = box.parentElement;
        const b = box.getBoundingClientRect(); return [el.getBoundingClientRect().top, b.top, b.bottom]; }""",
                         locator.element_handle())


# ------------------------------------------------------------------ chat
def test_answers_have_no_strikethrough_and_files_no_share_button(desk, shots):
    desk.locator("#chat button").filter(has_text=EN_QUESTION).first.click()  # the first example question
    expect(desk.locator("#question textarea")).to_be_enabled(timeout=ANSWER_TIMEOUT_MS)
    ask(desk, YAML_QUESTION)
    desk.screenshot(path=shots / "e01_no_strike_no_share.png", full_page=True)
    assert desk.locator("#chat del, #chat s, #chat strike").count() == 0
    expect(desk.locator("#chat a[download]").first).to_be_visible()
    assert [b for b in desk.locator("#chat button").all() if b.is_visible()
            and "share" in ((b.get_attribute("aria-label") or "") + (b.get_attribute("title") or "")).lower()] == []


def test_one_font_family_with_a_real_bold_for_latin_and_cjk(desk):
    ask(desk, EN_QUESTION)
    strong = desk.locator("#chat [data-testid='bot'] strong").first
    family = strong.evaluate("e => getComputedStyle(e).fontFamily")
    assert family.startswith('"Sizing Sans"') and "Noto Sans CJK SC" in family, family
    faces = desk.evaluate("""async () => { await document.fonts.ready;
        return [...document.fonts].filter(f => f.family.includes('Sizing Sans')).map(f => [f.weight, f.status]); }""")
    # the served Latin faces, regular and bold, both loaded (bold is a real face, not synthesised)
    assert ["100 550", "loaded"] in faces and ["551 900", "loaded"] in faces, faces
    assert desk.evaluate("document.fonts.check('bold 16px \"Sizing Sans\"', 'QWEN ZeRO')")


def test_user_html_is_shown_as_text(desk, shots):
    ask(desk, HOSTILE)
    bubble = users(desk).last
    expect(bubble).to_have_text(HOSTILE)
    assert bubble.locator("a, b, img, strong, em, del, s").count() == 0
    desk.screenshot(path=shots / "e02_html_as_text.png")


def test_start_of_a_long_answer_is_in_view(browser, server, size, shots):
    page = open_page(browser, server, size)
    for q in (EN_QUESTION, "Which ZeRO stage for full fine-tuning Llama-3-8B?", YAML_QUESTION):
        ask(page, q)
    page.wait_for_timeout(300)
    q_top, box_top, box_bottom = chat_box_view(page, users(page).last)
    page.screenshot(path=shots / f"e03_answer_start_{size['width']}.png")
    assert box_top - 1 <= q_top <= box_top + 80, (q_top, box_top, box_bottom)  # the question at the top of the chat
    # the answer's first message (its tool steps and headline) starts inside the visible chat
    answer_top = page.evaluate("""() => {
        const els = [...document.querySelectorAll("#chat [data-testid='user'], #chat [data-testid='bot']")];
        const i = els.map(e => e.dataset.testid).lastIndexOf('user');
        return els[i + 1].getBoundingClientRect().top; }""")
    assert q_top < answer_top < box_bottom - 40, (answer_top, box_bottom)
    page.context.close()


def test_ten_turns_are_each_answered_with_their_times_printed(desk):
    times, replies = [], []
    for _ in range(10):
        t = time.perf_counter()
        replies.append(ask(desk, YAML_QUESTION))
        times.append(time.perf_counter() - t)
    ratio = times[-1] / times[0]
    # the ratio is printed, not asserted (shared machines are noisy); what is asserted is that every turn is answered
    print(f"\nbrowser seconds per turn: {[round(x, 2) for x in times]}; turn 10 / turn 1 = {ratio:.2f}")
    assert all(replies)


def test_example_questions_appear_once(desk):
    for q in (EN_QUESTION, YAML_QUESTION):
        assert desk.get_by_text(q, exact=True).count() == 1


def test_conversations_survive_a_reload_and_are_listed(browser, server, shots):
    page = open_page(browser, server)
    ask(page, EN_QUESTION)
    page.locator("#new-conversation").click()
    expect(users(page)).to_have_count(0)
    ask(page, YAML_QUESTION)
    page.reload(wait_until="domcontentloaded")
    expect(users(page)).to_have_count(1, timeout=15_000)
    expect(users(page).first).to_have_text(YAML_QUESTION)
    assert "cutoff_len" in last_reply(page) or page.locator("#chat a[download]").count() == 1
    # the earlier conversation is in the list; picking it shows it, and it still answers follow-ups
    page.locator("#history input").click()
    page.get_by_role("option").filter(has_text="Minimum cards for Qwen2.5").first.click()
    expect(users(page).first).to_have_text(EN_QUESTION)
    page.screenshot(path=shots / "e04_history.png")
    follow = ask(page, "and with 8192?")
    assert re.search(r"qwen2\.5[- ]?72b", follow, re.I), follow
    # another browser (no shared storage) starts empty
    other = open_page(browser, server)
    assert users(other).count() == 0
    other.context.close()
    page.context.close()


def test_regenerate_asks_the_last_question_again(desk):
    ask(desk, EN_QUESTION)
    desk.locator("#chat button[aria-label='Retry'], #chat button[title='Retry']").last.click()
    expect(desk.locator("#question textarea")).to_be_enabled(timeout=ANSWER_TIMEOUT_MS)
    desk.wait_for_timeout(300)
    assert users(desk).all_inner_texts() == [EN_QUESTION]
    assert 32 in numbers(last_reply(desk))


# ------------------------------------------------------------------ Plan tab
def plan_tab(page):
    page.get_by_role("tab", name=re.compile("Plan")).click()
    return page.locator("#plan-result")


def legend_colours(page, chart: str) -> dict[str, str]:
    return page.evaluate("""id => {
        return Object.fromEntries([...document.querySelectorAll(`#${id} .mem-legend li`)].map(li =>
            [li.dataset.part, getComputedStyle(li.querySelector('.swatch')).backgroundColor])); }""", chart)


def test_plan_exact_name_wins_and_results_name_the_model(desk, shots):
    result = plan_tab(desk)
    model = desk.locator("#plan-model input")
    model.fill("deepseek-r1")
    model.press("Enter")
    expect(result).to_contain_text("from “deepseek-r1”")
    assert "distill" not in result.inner_text()
    # a small model fits on one card: "1 card", never "1 cards"
    model.fill("qwen2.5-0.5b")
    model.press("Enter")
    expect(result).to_contain_text("Model: qwen2.5-0.5b")
    text = result.inner_text()
    assert re.search(r"\b1 card\b", text) and not re.search(r"\b1 (cards|nodes)\b", text), text
    # labels people read, not field names
    assert "DeepSpeed ZeRO stage" in text and "zero_stage" not in text and "grad_accum" not in text
    desk.screenshot(path=shots / "e05_plan_small.png", full_page=True)


def test_plan_chart_is_labelled_with_stable_colours(desk, shots):
    plan_tab(desk)
    desk.locator("#plan-train").click()
    chart = desk.locator("#plan-chart")
    expect(chart).to_contain_text("usable memory")
    expect(chart).to_contain_text("GiB per device")
    first = legend_colours(desk, "plan-chart")
    desk.locator("#plan-model input").fill("llama3.1-8b")
    _choose(desk, "plan-method", "full")
    desk.locator("#plan-train").click()
    expect(desk.locator("#plan-result")).to_contain_text("llama3.1-8b")
    desk.wait_for_timeout(500)
    second = legend_colours(desk, "plan-chart")
    common = set(first) & set(second)
    assert {"weights", "usable memory"} <= common and all(first[k] == second[k] for k in common), (first, second)
    # each term's GiB on hover (the bar's own title: the browser shows it, screen readers read it)
    bar = chart.locator("svg rect.part").first
    assert re.fullmatch(r"weights: [\d,.]+ GiB", bar.locator("title").text_content()), bar.locator("title").text_content()
    # the vendor table sits below the estimate at full width, not squeezed beside it
    table, res = desk.locator("#plan-table").bounding_box(), desk.locator("#plan-result").bounding_box()
    assert table["y"] > res["y"] and table["width"] >= 0.9 * res["width"]
    desk.screenshot(path=shots / "e06_plan_chart.png", full_page=True)
    if os.environ.get("SIZING_UPDATE_DOCS"):
        desk.locator("#plan-model input").fill("qwen2.5-72b")
        _choose(desk, "plan-method", "lora")
        desk.locator("#plan-train").click()
        expect(desk.locator("#plan-result")).to_contain_text("qwen2.5-72b")
        doc_shot(desk, "web-plan.png")


def _choose(page, elem_id: str, option: str) -> None:
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=option, exact=True).click()


def test_plan_form_inputs_time_and_link(browser, server, desk, shots):
    result = plan_tab(desk)
    desk.locator("#plan-model input").fill("")
    desk.get_by_text("Model not in the catalog").click()
    # Llama-3-8B's config.json: read into a shape and a parameter count
    desk.locator("#plan-config textarea").fill(
        '{"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,'
        ' "num_key_value_heads": 8, "vocab_size": 128256}')
    desk.locator("#plan-tokens input").fill("100")
    desk.locator("#plan-mb input").fill("2")
    desk.locator("#plan-train").click()
    expect(result).to_contain_text("custom-8.03b")  # the tool names a model from its size
    text = result.inner_text()
    assert re.search(r"Micro batch per device\s+2", text), text
    assert "Training time (estimate)" in text  # on Ascend the tool asks for a measured throughput
    desk.screenshot(path=shots / "e07_plan_config.png", full_page=True)
    # the link reopens the same plan
    link = desk.locator("#plan-link input, #plan-link textarea").first.input_value()
    q = parse_qs(urlparse(link).query)
    assert q["plan"] == ["training"] and q["micro_batch"] == ["2"] and "config" in q
    other = open_page(browser, server, path="?" + urlparse(link).query)
    expect(other.locator("#plan-result")).to_contain_text("custom-8.03b", timeout=15_000)
    assert other.locator("#plan-config textarea").input_value().startswith('{"hidden_size": 4096')
    other.context.close()


def test_inference_form_quantization_and_time_on_gpu(desk):
    plan_tab(desk)
    desk.get_by_role("tab", name=re.compile("Inference")).click()
    _choose(desk, "infer-bits", "4-bit (AWQ / GPTQ)")
    desk.locator("#plan-infer").click()
    result = desk.locator("#infer-result")
    expect(result).to_contain_text("weights 4-bit (AWQ / GPTQ)")
    # Qwen2.5-72B: 72.7B parameters (model card) x 0.5 B = 33.85 GiB of weights, so one 64 GB card
    text = result.inner_text()
    assert re.search(r"Weights per device \(GiB\)\s+33\.85", text) and "1 card " in text, text


def test_what_fits_and_any_device_memory(desk, shots):
    plan_tab(desk)
    desk.get_by_role("tab", name=re.compile("What fits")).click()
    hw = desk.locator("#fits-hw input")
    hw.fill("24 GB card")
    hw.press("Enter")
    desk.locator("#fits-devices input").fill("1")
    desk.get_by_role("radio", name="the biggest batch").check()
    desk.locator("#fits-model input").fill("llama3.1-8b")
    desk.locator("#fits-len input").fill("8192")
    desk.locator("#fits-run").click()
    result = desk.locator("#fits-result")
    expect(result).to_contain_text("sequences at max-model-len")
    # Llama-3.1-8B in bf16: 8.03B x 2 B = 14.96 GiB of weights, so a 24 GB card holds a few 8K sequences, not dozens
    n = int(re.search(r"(\d+)\s+sequences at max-model-len", result.inner_text()).group(1))
    assert 1 <= n < 20, n
    desk.get_by_role("radio", name="the largest model").check()
    desk.locator("#fits-run").click()
    expect(result).to_contain_text("Plan (estimate_inference)")
    desk.screenshot(path=shots / "e10_what_fits.png", full_page=True)


# ------------------------------------------------------------------ Tables tab
def test_tables_csv_follows_filter_and_sort_and_switch_resets(desk, shots):
    desk.get_by_role("tab", name=re.compile("Tables")).click()
    caption = desk.locator("#table-caption")
    filt = desk.locator("#table-filter textarea, #table-filter input").first
    filt.fill("qwen2.5-72b lora")
    filt.press("Enter")
    _choose(desk, "table-sort", "cards")
    desk.locator("#table-desc input").check()
    expect(caption).to_contain_text("sorted by cards descending")
    shown = int(re.search(r"(\d+) of \d+ rows", caption.inner_text()).group(1))
    with desk.expect_download() as dl:
        desk.locator("#table-csv").click()
    with Path(dl.value.path()).open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == shown and all("qwen2.5-72b" in " ".join(r.values()).lower() for r in rows)
    cards = [int(r["cards"]) for r in rows if r["cards"]]
    assert cards == sorted(cards, reverse=True)
    # the grid shows the same first row as the CSV
    first_cells = desk.locator("#table-grid [role='gridcell'][data-row='0']").all_inner_texts()
    assert rows[0]["model_id"] in first_cells
    # no repeated columns; the grid's own sort/filter menus (which the CSV could not follow) are gone
    heads = [h.strip() for h in desk.locator("#table-grid th").all_inner_texts() if h.strip()]
    assert len(heads) == len(set(heads)) and "model_id" in heads
    assert desk.locator("#table-grid button.cell-menu-button:visible").count() == 0
    desk.screenshot(path=shots / "e08_tables_sorted.png", full_page=True)
    _choose(desk, "table-name", "hardware")
    expect(caption).to_contain_text("Hardware catalog")
    assert filt.input_value() == "" and "match" not in caption.inner_text()


def test_phone_opens_at_the_top_and_tables_fit(browser, server, shots):
    page = open_page(browser, server, PHONE)
    page.wait_for_timeout(800)
    assert page.evaluate("window.scrollY") == 0
    assert page.locator("#title").bounding_box()["y"] < 100
    page.get_by_role("tab", name=re.compile("Tables")).click()
    grid = page.locator("#table-grid")
    expect(grid).to_be_visible()
    assert grid.bounding_box()["width"] <= PHONE["width"]
    page.screenshot(path=shots / "e09_phone_tables.png", full_page=True)
    # the Plan tab stacks the form above the results, each within the screen's width
    plan_tab(page)
    page.locator("#plan-train").click()
    expect(page.locator("#plan-result")).to_contain_text("Model: qwen2.5-72b")
    for part in ("#plan-model", "#plan-chart", "#plan-result", "#plan-table"):
        box = page.locator(part).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1, (part, box)
    page.screenshot(path=shots / "e11_phone_plan.png", full_page=True)
    page.context.close()


def test_readme_chat_screenshot(desk):
    ask(desk, EN_QUESTION)
    if os.environ.get("SIZING_UPDATE_DOCS"):
        doc_shot(desk, "web-chat.png")
    assert 32 in numbers(last_reply(desk))


class SlowAssistant:
    """The real offline Assistant with a pause before each event, so an answer is still streaming
    when the Stop button is pressed."""

    def __init__(self, inner):
        self.inner, self.model_name, self.startup_notice = inner, inner.model_name, None

    def stream(self, text, history):
        for ev in self.inner.stream(text, history):
            time.sleep(0.7)
            yield ev


def test_stop_ends_an_answer_and_the_chat_stays_usable(browser, ctx, tmp_path):
    from assistant.agent import Assistant
    from assistant.frontends.web import build_app, serve
    from tests.conftest import _free_port

    demo = build_app(ctx, ctx.settings, assistant_factory=lambda c, llm=None: SlowAssistant(Assistant(c, llm="offline")),
                     files_dir=tmp_path)
    port = _free_port()
    serve(demo, "127.0.0.1", port, prevent_thread_lock=True, quiet=True)
    try:
        page = open_page(browser, f"http://127.0.0.1:{port}/")
        box = page.locator("#question textarea")
        box.fill(EN_QUESTION)
        box.press("Enter")
        stop = page.locator("#stop")
        expect(stop).to_be_visible(timeout=10_000)
        expect(box).to_be_disabled()
        stop.click()
        expect(box).to_be_enabled(timeout=3_000)
        expect(stop).to_be_hidden()
        # the chat says it stopped, and no step is left spinning
        expect(page.locator("#chat")).to_contain_text("Stopped: the answer was not finished")
        expect(page.locator("#chat .thought-group [class*='pending'], #chat .loading")).to_have_count(0)
        expect(users(page)).to_have_text([EN_QUESTION], timeout=10_000)  # the question stays
        assert 32 not in numbers(last_reply(page))  # stopped before the answer's figures came
        assert 32 in numbers(ask(page, EN_QUESTION))  # and the next question is answered in full
        page.context.close()
    finally:
        demo.close()
