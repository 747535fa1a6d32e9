"""Issue 24, the chat's tools, in Debian's Chromium against `sizing web` with the offline planner: copying a
question gives it as typed (not the escaped Markdown the chat stores), copying an answer gives the answer
as shown (not its tool steps' JSON), and "copy conversation" names every message (no "undefined" for a
config file); a deleted conversation can be brought back for a few seconds, and a conversation renamed; a
Plan form run with a bad number clears the old result and names the field."""

from __future__ import annotations

import re

import pytest

from assistant.frontends.web_history import UNDO_SECONDS
from tests.frontends.conftest import needs_chromium
from tests.frontends.test_web_browser import EN_QUESTION, YAML_QUESTION, ask, server, shots, users
from tests.frontends.test_web_expectations import DESKTOP, open_page
from tests.frontends.test_web_lost_work import listed

pytestmark = needs_chromium
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
__all__ = ["server", "shots"]  # module fixtures shared with test_web_browser (one server per module)


def clipboard(page) -> str:
    return page.evaluate("navigator.clipboard.readText()")


def copy_button(page, nth: int):
    """The nth "Copy message" button of the chat (questions and answers alternate)."""
    return page.locator("#chat button[aria-label='Copy message']").nth(nth)


def test_copy_buttons_copy_what_is_shown(browser, server, shots):
    context = browser.new_context(viewport=DESKTOP, locale="en-US", permissions=["clipboard-read", "clipboard-write"])
    page = open_page(browser, server, context=context)
    ask(page, EN_QUESTION)
    # the question as typed: the chat stores it Markdown-escaped ("Qwen2\.5\-72B … Snt9B\?")
    page.get_by_text(EN_QUESTION).first.hover()
    copy_button(page, 0).click()
    assert clipboard(page) == EN_QUESTION
    # the answer as shown: its text, without the folded tool steps' arguments and JSON results
    answer = page.locator("#chat [data-testid='bot'] > .message-content").last.inner_text().strip()
    copy_button(page, 1).click()
    copied = clipboard(page)
    assert copied == answer, (len(copied), len(answer))
    assert "32 cards" in copied or "32 " in copied  # the vendor's 32 Snt9B cards for Qwen2.5-72B LoRA at 4096
    assert "```json" not in copied and '"model_id"' not in copied and "**Result**" not in copied
    # a config file answer, then the whole conversation: every message named, none "undefined"
    ask(page, YAML_QUESTION)
    page.locator("#chat button[aria-label='Copy conversation']").click()
    whole = clipboard(page)
    assert "undefined" not in whole and "```json" not in whole, whole[:500]
    assert whole.startswith(f"You: {EN_QUESTION}\n\nAssistant: ")
    assert f"You: {YAML_QUESTION}" in whole and ".yaml" in whole
    assert whole.count("You: ") == users(page).count() == 2
    page.screenshot(path=shots / "c01_copied.png")
    context.close()


def test_delete_can_be_undone_and_a_rename_is_kept(browser, server, shots):
    """Delete removes a conversation at once with an Undo link that brings it back (reopened, listed in a
    new tab); a renamed conversation keeps its name after its next answer and in a new tab."""
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = open_page(browser, server, context=context)
    ask(page, EN_QUESTION)
    page.locator("#new-conversation").click()
    expect(users(page)).to_have_count(0)  # the new conversation is open before the next question is counted
    ask(page, YAML_QUESTION)
    assert len(listed(page)) == 2
    page.locator("#delete-conversation").click()
    bar = page.locator("#undo-bar")
    expect(bar).to_contain_text("Deleted “Generate the LLaMA-Factory yaml")
    expect(users(page).first).to_have_text(EN_QUESTION)  # the newest one left is opened
    assert len(listed(open_page(browser, server, context=context))) == 1  # gone from the browser's storage
    page.screenshot(path=shots / "c02_undo_bar.png")
    bar.get_by_role("button", name="Undo · 撤销").click()
    expect(bar).to_have_count(0)
    expect(users(page).first).to_have_text(YAML_QUESTION)  # back, and open
    again = open_page(browser, server, context=context)
    assert len(listed(again)) == 2
    # the bar goes by itself after UNDO_SECONDS, and then nothing is left to undo
    page.locator("#delete-conversation").click()
    expect(bar).to_be_visible()
    expect(bar).to_have_count(0, timeout=(UNDO_SECONDS + 5) * 1000)
    assert len(listed(page)) == 1
    # rename: the name typed is listed, kept after the next answer and in another tab
    page.once("dialog", lambda d: d.accept("Qwen 72B LoRA plan"))
    page.locator("#rename-conversation").click()
    expect(page.locator("#history input")).to_have_value(re.compile("^Qwen 72B LoRA plan · "))
    ask(page, "and with 8192?")
    expect(page.locator("#history input")).to_have_value(re.compile("^Qwen 72B LoRA plan · "))  # listed again after the save
    assert "Qwen 72B LoRA plan · " in listed(open_page(browser, server, context=context))[0]
    # a dismissed prompt changes nothing
    page.once("dialog", lambda d: d.dismiss())
    page.locator("#rename-conversation").click()
    page.wait_for_timeout(500)
    expect(page.locator("#history input")).to_have_value(re.compile("^Qwen 72B LoRA plan · "))
    context.close()


def test_a_failed_form_run_clears_the_old_result_and_names_the_field(browser, server, shots):
    page = open_page(browser, server)
    page.get_by_role("tab", name=re.compile("Plan")).click()
    result, table = page.locator("#plan-result"), page.locator("#plan-table")
    page.locator("#plan-train").click()
    expect(result).to_contain_text("Estimate")
    expect(table).to_contain_text("card")
    page.locator("#plan-seq input").fill("0")
    page.locator("#plan-train").click()
    expect(result).to_contain_text("Sequence length (tokens)")
    text = result.inner_text()
    assert "0 is not allowed; the least is 1" in text and "Estimate" not in text, text
    expect(table).to_have_text("")  # the vendor rows of the earlier run went with it
    expect(page.locator(".toast-body")).to_have_count(0)  # no Gradio error toast beside it
    page.screenshot(path=shots / "c03_form_error.png", full_page=True)
    # fixed, the form answers again
    page.locator("#plan-seq input").fill("4096")
    page.locator("#plan-train").click()
    expect(result).to_contain_text("Estimate")
    page.context.close()


def test_longest_context_on_ascend_in_the_chat_is_searched(browser, server):
    """The chat answers "the longest context … on 8 Snt9B" with the searched length (the own limit of Qwen2.5-7B-Instruct,
    the variant used when none is named: 32,768 in its config.json, binds) and no yes/no."""
    page = open_page(browser, server)
    reply = ask(page, "What is the longest context for qwen2.5-7b serving on 8 Snt9B?")
    assert "32,768 tokens" in reply[:600] and "Instruct" in reply, reply[:600]
    assert "Yes." not in reply, reply
    page.context.close()


def test_screen_readers_get_the_text_shown_and_the_steps_state(browser, server):
    """Each message's accessible name is its text as shown (not raw Markdown or tool JSON); each step toggle
    says whether it is open."""
    page = open_page(browser, server)
    ask(page, EN_QUESTION)
    expect(users(page).first).to_have_attribute("aria-label", f"Your question: {EN_QUESTION}")
    labels = page.locator("#chat [data-testid='bot']").evaluate_all("ms => ms.map(m => m.getAttribute('aria-label'))")
    assert labels and all(a.startswith(("Answer: ", "Tool step: ")) for a in labels), labels
    assert not any("**" in a or "```" in a or '"model_id"' in a for a in labels), labels
    assert any(a.startswith("Answer: ") and "32" in a for a in labels), labels
    toggle = page.locator("#chat .thought-group > .title[role='button']").first
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    page.context.close()


# WCAG contrast of every visible text in the chat and the tab bar, against the nearest opaque background
LOW_CONTRAST_JS = """() => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const bg = el => { for (; el; el = el.parentElement) { const c = rgb(getComputedStyle(el).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c; } return [255, 255, 255]; };
  const low = [];
  for (const el of document.querySelectorAll('#chat *, .tab-container *')) {
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()) || !el.getClientRects().length) continue;
    const a = lum(rgb(getComputedStyle(el).color)), b = lum(bg(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) low.push(`${el.className} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
  }
  return low; }"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_in_the_chat_has_contrast_in_light_and_dark(browser, server, theme):
    """A YAML answer (comments, booleans, numbers), its download links' file types and the tab bar at 4.5:1 or more
    (were 1.8:1 for the file type, 2.5:1 for YAML comments in dark mode)."""
    page = open_page(browser, server, path=f"?__theme={theme}")
    ask(page, YAML_QUESTION)
    expect(page.locator("#chat .token.comment").first).to_be_visible()
    assert page.evaluate(LOW_CONTRAST_JS) == []
    page.context.close()
