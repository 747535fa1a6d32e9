"""The web app's "Check my setup" tab in Debian's Chromium (Playwright), against `sizing web` in a
subprocess (the server fixture of test_web_browser): paste a config, then upload one, and read the answer
the chat would give."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.frontends.conftest import needs_chromium
from tests.frontends.test_web_browser import new_page, server  # noqa: F401  (the shared `sizing web` fixture)

pytestmark = needs_chromium
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

FIXTURES = Path(__file__).parents[1] / "setup_check" / "fixtures"


def test_paste_and_upload_in_the_check_my_setup_tab(browser, server, tmp_path):  # noqa: F811
    page = new_page(browser, server)
    page.get_by_role("tab", name="Check my setup 检查配置").click()
    answer = page.locator("#setup-answer")

    yaml_text = (FIXTURES / "qwen7b_lora_sft_z2.yaml").read_text()
    page.locator("#setup-text textarea").fill(f"OOM on 8 cards of 910B:\n```yaml\n{yaml_text}```")
    page.locator("#setup-check").click()
    expect(answer).to_contain_text("Does not fit", timeout=60_000)
    expect(answer).to_contain_text("Smallest change that fits: micro_batch 4 → 1, grad_accum 2 → 8 (global batch kept)")
    expect(answer).to_contain_text("gradient_accumulation_steps: 8")

    page.locator("#setup-text textarea").fill("")
    log = tmp_path / "train.log"
    log.write_text((FIXTURES / "oom_5491_npu.log").read_text(), encoding="utf-8")
    page.locator("#setup-file input[type=file]").set_input_files(str(log))
    page.locator("#setup-check").click()
    # LLaMA-Factory #5491: (59.57 + 386/1024) / 60.97 = 98 % of capacity
    expect(answer).to_contain_text("too big", timeout=60_000)
    expect(answer).to_contain_text("NPU 2 had 59.57 of 60.97 GiB allocated when 0.38 GiB more was asked (98% of capacity)")
    hosts = page.requested_hosts
    page.context.close()
    assert hosts == {urlparse(server).netloc}, f"the page reached beyond the app: {hosts}"
