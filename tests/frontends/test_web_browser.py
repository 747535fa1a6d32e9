"""The web chat in a real browser: Debian's Chromium driven by Playwright against `sizing web`
started as a subprocess on loopback (one server and one browser for the whole module), with the
real Assistant and the offline planner. Every page also checks that nothing but the app's own
address was requested. Screenshots of each step go to a temp folder removed at the end (set
SIZING_TEST_SCREENSHOTS=/some/dir to keep them)."""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

from tests.conftest import _free_port
from tests.frontends.conftest import needs_chromium

ANSWER_TIMEOUT_MS = 90_000
# the page's own reaction (a bubble, a spinner gone): generous, because CI shares its machine with other jobs
UI_TIMEOUT_MS = 30_000

pytestmark = needs_chromium
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

EN_QUESTION = "Minimum cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?"
ZH_QUESTION = "qwen2 72b 全参微调，序列长度4096，需要几个节点？"
YAML_QUESTION = "Generate the LLaMA-Factory yaml for llama3-8b LoRA 8192"


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def shots():
    keep = os.environ.get("SIZING_TEST_SCREENSHOTS")
    folder = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="sizing-web-shots-"))
    folder.mkdir(parents=True, exist_ok=True)
    yield folder
    if not keep:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`sizing web` in a subprocess, exactly as `make run` starts it (but on a free port)."""
    port = _free_port()
    exe = Path(sys.executable).with_name("sizing")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "assistant.frontends.cli"]
    env = {**os.environ, "SIZING_LLM": "offline", "SIZING_CACHE_DIR": str(tmp_path_factory.mktemp("web-kb")),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
    log = tmp_path_factory.mktemp("web-log") / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([*cmd, "web", "--host", "127.0.0.1", "--port", str(port)], stdout=out,
                                stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"sizing web did not start: {log.read_text()[-3000:]}")
        time.sleep(0.3)
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]



def new_page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, accept_downloads=True, locale="en-US")
    page = context.new_page()
    page.requested_hosts = set()
    page.on("request", lambda r: page.requested_hosts.add(urlparse(r.url).netloc) if r.url.startswith("http") else None)
    page.goto(server, wait_until="domcontentloaded")  # never "networkidle": Gradio keeps a stream open
    page.locator("#question textarea").wait_for(timeout=30_000)
    return page


@pytest.fixture()
def page(browser, server):
    page = new_page(browser, server)
    yield page
    hosts = page.requested_hosts
    page.context.close()
    assert hosts == {urlparse(server).netloc}, f"the page reached beyond the app: {hosts}"


# ------------------------------------------------------------------ helpers
def users(page):
    return page.locator("#chat [data-testid='user']")


def ask(page, text: str) -> str:
    """Submit a question and wait until the answer is complete (the box is unlocked); return the
    text of every assistant message after the last question."""
    box = page.locator("#question textarea")
    before, bots = questions_asked(page), page.locator("#chat [data-testid='bot']").count()
    box.fill(text)
    box.press("Enter")
    if text.strip():
        page.wait_for_function(f"() => ({QUESTIONS_ASKED_JS})() === {before + 1}", timeout=UI_TIMEOUT_MS)
    else:  # no question bubble: wait for the reply that asks for one
        expect(page.locator("#chat [data-testid='bot']")).to_have_count(bots + 1, timeout=UI_TIMEOUT_MS)
    expect(box).to_be_enabled(timeout=ANSWER_TIMEOUT_MS)
    expect(page.locator("#chat .thought-group [class*='pending'], #chat .loading")).to_have_count(0, timeout=UI_TIMEOUT_MS)
    return last_reply(page)


# questions in the conversation: those shown plus the earlier ones behind "Show N earlier questions"
QUESTIONS_ASKED_JS = """() => document.querySelectorAll("#chat [data-testid='user']").length
    + Number((document.querySelector('#show-earlier')?.innerText.match(/Show (\\d+) earlier/) || [0, 0])[1])"""


def questions_asked(page) -> int:
    return page.evaluate(QUESTIONS_ASKED_JS)


def last_reply(page) -> str:
    return page.evaluate("""() => {
        const els = [...document.querySelectorAll("#chat [data-testid='user'], #chat [data-testid='bot']")];
        let i = els.map(e => e.dataset.testid).lastIndexOf('user');
        return els.slice(i + 1).map(e => e.innerText).join('\\n');
    }""")


def numbers(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"(?<![\d.])\d+(?![\d.])", text)}


# ------------------------------------------------------------------ tests
def test_english_question_answers_from_the_vendor_table(page, shots):
    expect(page.locator("#chat-model")).to_contain_text("offline planner")
    page.screenshot(path=shots / "01_start.png")
    reply = ask(page, EN_QUESTION)
    page.screenshot(path=shots / "02_english.png", full_page=True)
    # ModelArts minimum-card table (2025-06-24): Qwen2.5-72B, LoRA, 4096, LLaMA-Factory, Snt9B -> 32*Ascend
    assert 32 in numbers(reply), reply

    # each tool call is a collapsed step; opening one shows arguments, result and source
    step = page.locator("#chat .thought-group").filter(has_text="min_cards").last
    expect(step).to_be_visible()
    assert "Arguments" not in step.inner_text()
    step.locator("button, [role='button']").first.click()
    expect(step).to_contain_text("Arguments")
    expect(step).to_contain_text("Result")
    expect(step).to_contain_text("ModelArts: 模型最小卡数配置, 2025-06-24")  # the minimum-card table's page, as users know it
    page.screenshot(path=shots / "03_tool_step.png", full_page=True)


def test_chinese_example_click_answers_in_chinese(page, shots):
    # the empty chat offers example questions; clicking one asks it (once the page has loaded: the box unlocks then)
    expect(page.locator("#question textarea")).to_be_enabled(timeout=30_000)
    page.locator("#chat button").filter(has_text=ZH_QUESTION).first.click()
    expect(users(page)).to_have_count(1)
    expect(users(page).first).to_have_text(ZH_QUESTION)
    expect(page.locator("#question textarea")).to_be_enabled(timeout=ANSWER_TIMEOUT_MS)
    reply = last_reply(page)
    page.screenshot(path=shots / "04_chinese.png", full_page=True)
    # LLaMA-Factory recipe table: Qwen2 72B, full, 4096 -> 4 nodes x 8 cards, ZeRO-3-Offload
    assert 4 in numbers(reply), reply
    assert re.search(r"[\u4e00-\u9fff]", reply), "the answer should be in Chinese"
    assert re.search(r"ZeRO[- ]?3", reply), reply
    # Chinese glyphs render with a CJK font (not tofu): the bubble is wider than a box per glyph would be
    box = page.locator("#chat [data-testid='user']").last.bounding_box()
    assert box and box["width"] > 100


def test_generated_config_is_a_code_block_and_a_download(page, shots):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    ask(page, YAML_QUESTION)
    page.screenshot(path=shots / "05_config.png", full_page=True)
    link = page.locator("#chat a[download]").filter(has_text=re.compile(r"\.ya?ml")).last
    with page.expect_download() as dl:
        link.click()
    cfg = yaml.safe_load(Path(dl.value.path()).read_text())
    assert cfg["finetuning_type"] == "lora" and cfg["cutoff_len"] == 8192 and cfg["template"] == "llama3"
    # the code block's copy button puts the same YAML on the clipboard
    code = page.locator("#chat .code_wrap").filter(has_text="cutoff_len").last
    code.hover()
    code.locator(".copy_code_button").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert yaml.safe_load(copied)["cutoff_len"] == 8192


def test_tool_error_leaves_a_readable_answer(page):
    reply = ask(page, "How many cards for gpt-99-ultra LoRA?")
    assert re.search(r"unknown|not (found|in)|no (data|record)", reply, re.I), reply
    expect(page.locator("#chat .thought-group").filter(has_text="error").first).to_be_visible()
    assert 32 in numbers(ask(page, EN_QUESTION))  # still answering


def test_empty_and_20kb_messages(page, shots):
    reply = ask(page, "   ")
    assert "Please type a question" in reply
    long_q = EN_QUESTION + " " + "x" * 20_500
    reply = ask(page, long_q)
    page.screenshot(path=shots / "06_long.png")
    assert reply.strip(), "a 20 kB question still gets an answer"
    expect(page.locator("#llm-notice")).to_contain_text("20000")
    assert 32 in numbers(ask(page, EN_QUESTION))


def test_rapid_repeated_submits_keep_one_answer_per_question(page):
    box = page.locator("#question textarea")
    box.fill(EN_QUESTION)
    box.focus()
    for _ in range(5):
        page.keyboard.press("Enter")
    page.locator("#question button").last.click(force=True, no_wait_after=True)
    expect(users(page)).to_have_count(1)
    expect(box).to_be_enabled(timeout=ANSWER_TIMEOUT_MS)
    time.sleep(0.5)
    expect(users(page)).to_have_count(1)
    assert 32 in numbers(last_reply(page))
    assert 4 in numbers(ask(page, ZH_QUESTION))


def test_two_sessions_keep_separate_histories(browser, server, shots):
    a, b = new_page(browser, server), new_page(browser, server)
    try:
        for p, q in ((a, EN_QUESTION), (b, ZH_QUESTION)):
            p.locator("#question textarea").fill(q)
        a.locator("#question textarea").press("Enter")
        b.locator("#question textarea").press("Enter")
        for p in (a, b):
            expect(users(p)).to_have_count(1)
            expect(p.locator("#question textarea")).to_be_enabled(timeout=ANSWER_TIMEOUT_MS)
        assert 32 in numbers(last_reply(a)) and 4 in numbers(last_reply(b))
        # a follow-up uses this session's history only: session a talked about Qwen2.5-72B LoRA
        follow = ask(a, "and with 8192?")
        a.screenshot(path=shots / "07_session_a.png", full_page=True)
        assert re.search(r"qwen2\.5[- ]?72b", follow, re.I), follow
        assert users(a).all_inner_texts() == [EN_QUESTION, "and with 8192?"]
        assert users(b).all_inner_texts() == [ZH_QUESTION]
    finally:
        a.context.close()
        b.context.close()


def test_tables_tab_filters_sorts_and_downloads(page, shots):
    page.get_by_role("tab", name=re.compile("Tables")).click()
    caption = page.locator("#table-caption")
    # the source as users know it: the vendor page and its date, not the file it was transcribed into
    expect(caption).to_contain_text("ModelArts: 模型最小卡数配置, 2025-06-24")
    assert "seeds/" not in caption.inner_text() and ".txt" not in caption.inner_text()
    filt = page.locator("#table-filter textarea, #table-filter input").first
    filt.click()
    filt.press_sequentially("qwen2.5-72b lora LLaMA-Factory 4096", delay=10)
    expect(caption).to_contain_text("2 of ")
    grid = page.locator("#table-grid")
    expect(grid).to_contain_text("32")
    page.screenshot(path=shots / "08_tables.png", full_page=True)
    with page.expect_download() as dl:
        page.locator("#table-csv").click()
    with Path(dl.value.path()).open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["hardware"], r["cards"]) for r in rows] == [("Snt9B", "32"), ("Snt9B23", "32")]

    # another table, sorted with the tab's own control (so the CSV follows the order)
    page.locator("#table-name input").click()
    page.get_by_role("option", name="hardware", exact=True).click()
    expect(caption).to_contain_text("Hardware catalog")
    page.locator("#table-sort input").click()
    page.get_by_role("option", name="memory_gb", exact=True).click()
    page.locator("#table-desc input").check()
    expect(caption).to_contain_text("sorted by memory_gb descending")
    header = grid.locator("th").filter(has=page.get_by_text("memory_gb", exact=True)).first
    col = header.evaluate("th => [...th.parentElement.children].indexOf(th)")
    page.screenshot(path=shots / "09_sorted.png", full_page=True)
    cells = grid.locator(f"[role='gridcell'][data-col='{col}']")
    expect(cells.first).not_to_have_text("")
    vals = [float(v) for v in cells.all_inner_texts() if v.strip()]
    assert len(vals) >= 10 and vals == sorted(vals, reverse=True), vals


def _choose(page, elem_id: str, option: str) -> None:
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=option, exact=True).click()


def test_plan_tab_training_and_inference(page, shots):
    page.get_by_role("tab", name=re.compile("Plan")).click()
    model = page.locator("#plan-model input")
    model.fill("Qwen2.5-72B-Instruct")  # free text in any spelling; the tool resolves it
    model.press("Enter")
    _choose(page, "plan-method", "lora")
    page.locator("#plan-train").click()
    table = page.locator("#plan-table")
    # minimum-card table: Qwen2.5-72B LoRA 4096 LLaMA-Factory Snt9B -> 32 cards, beside the estimate
    expect(table).to_contain_text("min_cards")
    assert 32 in numbers(table.inner_text())
    expect(page.locator("#plan-result")).to_contain_text("Estimate:")
    expect(page.locator("#plan-chart")).to_contain_text("usable per device")
    assert page.locator("#plan-chart canvas, #plan-chart svg").count() > 0
    page.screenshot(path=shots / "10_plan_training.png", full_page=True)

    _choose(page, "plan-fw", "MindSpeed-LLM")
    page.locator("#plan-train").click()
    # same row of the minimum-card table for MindSpeed-LLM: 16 cards
    expect(page.locator("#plan-result")).to_contain_text("MindSpeed-LLM")
    assert 16 in numbers(table.inner_text())

    page.get_by_role("tab", name=re.compile("Inference")).click()
    page.locator("#infer-len input").fill("32768")
    page.locator("#plan-infer").click()
    result = page.locator("#infer-result")
    # Qwen2.5-72B KV cache: 2 x 80 layers x 8 KV heads x 128 x 2 B = 327,680 bytes per token
    expect(result).to_contain_text("327,680")
    # newest vLLM table: Qwen2.5-72B at 32K on 64 GB cards -> 4 cards ("4/32")
    expect(page.locator("#infer-table")).to_contain_text("vllm-newest")
    assert 4 in numbers(page.locator("#infer-table").inner_text())
    page.screenshot(path=shots / "11_plan_inference.png", full_page=True)


def test_new_conversation_forgets_the_history(page):
    assert 32 in numbers(ask(page, EN_QUESTION))
    page.locator("#new-conversation").click()
    expect(users(page)).to_have_count(0)
    follow = ask(page, "and with 8192?")
    assert not re.search(r"qwen2\.5[- ]?72b", follow, re.I), follow  # nothing left of the earlier question
    assert users(page).all_inner_texts() == ["and with 8192?"]


def test_phone_layout_keeps_text_clear_of_controls(browser, server, shots):
    """At 390 px: the chat's empty-state text is not covered by a "Chat" label (there is none), and a long saved
    title in the history dropdown ends before the dropdown's arrow instead of running under it."""
    page = new_page(browser, server)
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.locator("#chat [data-testid='block-label']").count() == 0
        ask(page, "I have 2 RTX 3090s. Can I do QLoRA on a 13B model with 4096 tokens, and which ZeRO stage?")
        expect(page.locator("#history input")).not_to_have_value("", timeout=10_000)
        text_right, arrow_left = page.evaluate("""() => {
            const i = document.querySelector('#history input'), a = document.querySelector('#history .icon-wrap');
            const r = i.getBoundingClientRect();
            return [r.right - parseFloat(getComputedStyle(i).paddingRight), a.getBoundingClientRect().left];
        }""")
        assert text_right <= arrow_left + 1
        page.screenshot(path=shots / "12_phone_history.png")
    finally:
        page.context.close()
