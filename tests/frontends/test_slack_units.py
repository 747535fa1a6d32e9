"""The Slack bridge's pure parts: markdown to mrkdwn, message splitting, reading questions, the
bounded thread memory and event-id deduplication. Expected strings are written by hand from
Slack's formatting rules (https://api.slack.com/reference/surfaces/formatting)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.answer import Answer, GeneratedFile
from assistant.frontends.slack import (
    ATTACHED,
    SlackBridge,
    is_from_person,
    question_text,
    retry_number,
)
from assistant.frontends.slack_format import code_block, split_message, to_mrkdwn


def test_headings_bold_italic_strike_links():
    md = "## The **answer**\n**32 cards** and *four* nodes, ~~16~~, see [the table](https://x.org/a_b*c) or <https://y.org>."
    assert to_mrkdwn(md) == ("*The answer*\n*32 cards* and _four_ nodes, ~16~, see <https://x.org/a_b*c|the table> "
                             "or <https://y.org>.")


def test_special_characters_are_escaped_but_code_is_kept():
    assert to_mrkdwn("a < b && c > d, `x<y>` ok") == "a &lt; b &amp;&amp; c &gt; d, `x&lt;y&gt;` ok"
    assert to_mrkdwn("`**not bold**` and snake_case_name") == "`**not bold**` and snake_case_name"


def test_bullets_quotes_rules():
    assert to_mrkdwn("- one\n  * two\n+ three\n1. four") == "• one\n  • two\n• three\n1. four"
    assert to_mrkdwn("> **note** here\n---\nafter") == "> *note* here\n──────────\nafter"


def test_fenced_code_keeps_content_and_drops_language_tag():
    md = "Config:\n```yaml\nstage: sft\nlr: 1.0e-05  # **not bold**\nx: a<b\n```\ndone"
    assert to_mrkdwn(md) == "Config:\n```\nstage: sft\nlr: 1.0e-05  # **not bold**\nx: a&lt;b\n```\ndone"


def test_narrow_table_becomes_an_aligned_code_block():
    md = "| model | cards | ZeRO |\n|---|---:|:---:|\n| **qwen2.5-72b** | 32 | `ZeRO-3` |\n| llama2-7b | 8 | ZeRO-2 |\nafter"
    assert to_mrkdwn(md) == (
        "```\n"
        "model        cards  ZeRO\n"
        "-----------  -----  ------\n"
        "qwen2.5-72b  32     ZeRO-3\n"
        "llama2-7b    8      ZeRO-2\n"
        "```\nafter"
    )
    assert "|" not in to_mrkdwn(md)


def test_wide_table_becomes_bullets():
    long = "a fairly long explanation of the assumptions behind this particular row of the table"
    md = f"| model | cards | note |\n|---|---|---|\n| qwen2.5-72b | 32 | {long} |\n| llama2-7b | 8 | |"
    assert to_mrkdwn(md) == f"• *qwen2.5-72b* — cards: 32, note: {long}\n• *llama2-7b* — cards: 8"


def test_code_block_for_a_file():
    assert code_block("a: 1\nb: <2>\n", "x_y.yaml") == "*x_y.yaml*\n```\na: 1\nb: &lt;2&gt;\n```"


def test_split_message_keeps_code_blocks_closed_and_under_the_limit():
    text = "intro\n```\n" + "\n".join(f"line {i:03d} " + "x" * 40 for i in range(100)) + "\n```\noutro"
    parts = split_message(text, limit=1000)
    assert len(parts) > 4 and all(len(p) <= 1000 for p in parts)
    assert all(p.count("```") % 2 == 0 for p in parts)
    body = [ln for p in parts for ln in p.split("\n") if ln.startswith("line ")]
    assert body == [f"line {i:03d} " + "x" * 40 for i in range(100)]  # nothing lost, nothing doubled
    assert parts[0].startswith("intro\n```") and parts[-1].endswith("```\noutro")
    assert split_message("short") == ["short"] and split_message("") == [""]


def test_split_message_never_cuts_a_file_that_fits_in_a_message():
    """Issue 25: a launch script, a YAML and a DeepSpeed JSON each fit in a message, together they do
    not; each must arrive whole (the YAML's batch size, accumulation and learning rate included)."""
    launch = "\n".join(f"export VAR_{i}=value_{i}" for i in range(40))  # ~800 characters
    yaml = "\n".join([f"key_{i}: {i}" for i in range(120)] + ["per_device_train_batch_size: 1",
                      "gradient_accumulation_steps: 8", "learning_rate: 1.0e-5"])  # ~1.4k
    ds = "{\n" + ",\n".join(f'  "k{i}": {i}' for i in range(60)) + "\n}"  # ~700
    text = (f"*Answer* first.\n`train_launch.sh`:\n```\n{launch}\n```\n`train.yaml`:\n```\n{yaml}\n```\n"
            f"`ds_z2_config.json`:\n```\n{ds}\n```\nThat is all.")
    parts = split_message(text, limit=2000)
    assert len(parts) == 3 and all(len(p) <= 2000 for p in parts)
    for name, body in (("train_launch.sh", launch), ("train.yaml", yaml), ("ds_z2_config.json", ds)):
        [holder] = [p for p in parts if f"`{name}`:" in p]
        assert f"`{name}`:\n```\n{body}\n```" in holder  # whole, with its name, in one message
    assert "\n".join(parts).count("```") == 6  # no block closed and reopened
    assert parts[0].startswith("*Answer* first.") and parts[-1].endswith("That is all.")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.just("```"), st.text(alphabet="ab c*|#-\n", max_size=120)), max_size=40),
       st.integers(min_value=60, max_value=400))
def test_split_message_properties(pieces, limit):
    text = "\n".join(pieces)
    parts = split_message(text, limit)
    assert all(len(p) <= limit for p in parts)
    if text.count("```") % 2 == 0 and all(p.strip() != "```" for p in pieces if "```" in p):
        assert all(p.count("```") % 2 == 0 for p in parts)


def test_question_text_strips_the_mention_and_slack_markup():
    assert question_text("<@UBOT> how many cards for <https://hf.co/Qwen|Qwen2.5-72B> &amp; 4k?", "UBOT") == (
        "how many cards for Qwen2.5-72B & 4k?"
    )
    assert question_text("<@UBOT|sizing>  hi <@UALICE>", "UBOT") == "hi <@UALICE>"


def test_is_from_person():
    assert is_from_person({"user": "U1", "text": "q"})
    assert is_from_person({"user": "U1", "text": "q", "subtype": "thread_broadcast"})
    assert not is_from_person({"user": "U1", "bot_id": "B1", "text": "q"})
    assert not is_from_person({"bot_id": "B1", "subtype": "bot_message", "text": "q"})
    assert not is_from_person({"subtype": "message_changed", "message": {"user": "U1"}})
    assert not is_from_person({"user": "U1", "subtype": "channel_join"})


def test_retry_number():
    assert retry_number({}) == 0 and retry_number({"x-slack-retry-num": ["0"]}) == 0
    assert retry_number({"x-slack-retry-num": ["2"]}) == 2 and retry_number({"x-slack-retry-num": ["?"]}) == 1


def test_attachments_keep_small_configs_inline_and_take_large_ones_out(ctx):
    bridge = SlackBridge(ctx, assistant_factory=lambda c: None, store=None, client=None)  # type: ignore[arg-type]
    small, large = "a: 1\nb: 2", "\n".join(f"k{i}: {i}" for i in range(100))
    answer = Answer(
        answer=f"Here:\n`s.yaml`:\n```yaml\n{small}\n```\n`l.yaml`:\n```yaml\n{large}\n```\nend",
        model="offline",
        files=[GeneratedFile(filename="s.yaml", content=small + "\n", format="yaml"),
               GeneratedFile(filename="l.yaml", content=large, format="yaml"),
               GeneratedFile(filename="extra.json", content="{}", format="json")],
    )
    text, files = bridge.attachments(answer, "en")
    assert text == f"Here:\n`s.yaml`:\n```yaml\n{small}\n```\n{ATTACHED['en'].format(name='l.yaml')}\nend"
    assert [f.filename for f in files] == ["l.yaml", "extra.json"]


def test_manifest_grants_what_the_bridge_calls():
    import yaml

    from assistant.settings import PROJECT_ROOT

    manifest = yaml.safe_load((PROJECT_ROOT / "slack" / "manifest.yaml").read_text(encoding="utf-8"))
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    # Web API methods the bridge calls -> the bot scope Slack's method reference lists for each.
    needed = {"chat.postMessage": "chat:write", "chat.update": "chat:write", "reactions.add": "reactions:write",
              "reactions.remove": "reactions:write", "files.getUploadURLExternal": "files:write",
              "files.completeUploadExternal": "files:write", "conversations.replies (DM)": "im:history",
              "conversations.replies (channel)": "channels:history", "conversations.replies (private)": "groups:history",
              "chat.delete (own message)": "chat:write",
              "app_mention event": "app_mentions:read", "message.im event": "im:history"}
    assert set(needed.values()) <= scopes
    events = manifest["settings"]["event_subscriptions"]
    assert events["bot_events"] == ["app_mention", "message.im"]
    assert events["request_url"].endswith("/slack/events")
    assert manifest["features"]["app_home"]["messages_tab_enabled"] is True
