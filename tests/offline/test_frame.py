"""The question frame: each value says where it came from (the user's words, an earlier turn, a rule,
a correction), the defaults a plan fills in, and the bad-input rules with one message each."""

from __future__ import annotations

import pytest

from assistant.offline.frame import DEFAULT_HARDWARE, DEFAULT_SEQ_LEN, QuestionFrame
from assistant.offline.model import is_follow_up
from assistant.offline.parse import Parser, Slots


@pytest.fixture(scope="module")
def talk(parse):
    """The conversation's frame after each of ``turns``, as the planner builds it."""
    def run(*turns: str) -> QuestionFrame:
        frame = None
        for text in turns:
            frame = parse(text).with_history(frame, is_follow_up(text))
        assert frame is not None
        return frame
    return run


def test_slots_is_the_frame():
    assert Slots is QuestionFrame


def test_said_values_and_defaults(parse):
    s = parse("qwen2.5-7b lora 8 cards")
    assert (s.origin("model"), s.origin("method"), s.origin("devices")) == ("said", "said", "said")
    # the length and the part are not said: a rule fills them, and the plan says so
    assert (s.origin("seq_len"), s.origin("hardware")) == ("default", "default")
    e = s.effective()
    assert (e.seq_len, e.hardware, e.part) == (DEFAULT_SEQ_LEN, DEFAULT_HARDWARE, "Snt9B")
    assert s.assumed() == ["seq_len", "hardware"]
    assert s.origin("zero_stage") is None  # neither said nor filled


def test_zero_stage_zero_is_said(parse):
    s = parse("llama3-8b full zero0 8 cards")
    assert s.zero_stage == 0 and s.origin("zero_stage") == "said"


def test_a_misspelt_model_is_read_as(parse):
    s = parse("lama3-8b full finetune which zero stage")
    assert s.model == "llama3-8b" and s.model_read_as == "lama3-8b"
    assert s.origin("model") == "read_as"


def test_a_length_next_to_a_device_word_is_read_as(parse):
    s = parse("llama3.1-8b full 16384 npus")
    assert (s.seq_len, s.devices) == (16384, None)
    assert s.origin("seq_len") == "read_as"


def test_a_part_guessed_from_memory_is_default(parse):
    s = parse("llama3-8b lora on a 24GB GPU")
    assert s.hardware_guessed and s.origin("hardware") == "default"
    assert "hardware" in s.assumed()


def test_conversation_values_are_marked(talk):
    s = talk("qwen2.5-7b lora, I only have 8 cards", "give me the yaml")
    assert (s.model, s.devices) == ("qwen2.5-7b", 8)
    assert s.origin("model") == "conversation" and s.origin("devices") == "conversation"
    assert s.origin("config_format") == "said"


def test_follow_up_changes_only_what_it_names(talk):
    s = talk("qwen2.5-7b lora 8k on 16 cards", "and with 32k?")
    assert (s.seq_len, s.origin("seq_len")) == (32768, "said")
    assert (s.devices, s.origin("devices")) == (16, "conversation")
    assert s.origin("method") == "conversation"


def test_a_bare_count_follow_up_is_the_device_count(talk):
    s = talk("llama3-8b full 8k how many cards", "and with 16?")
    assert (s.devices, s.origin("devices")) == (16, "said")
    assert s.origin("seq_len") == "conversation"


def test_a_new_model_starts_a_new_frame(talk):
    s = talk("qwen2.5-7b lora 8k on 16 cards", "How many cards for llama3-70b full fine-tuning?")
    assert s.model == "llama3-70b" and s.devices is None and s.seq_len is None
    assert s.origin("seq_len") == "default"


def test_a_troubleshooting_question_is_a_new_topic(talk):
    s = talk("qwen2.5-7b lora 8k on 16 cards", "BF16 vs FP16, which one should I use for training stability?")
    assert s.model is None


def test_a_correction_carried_from_an_earlier_turn_stays_read_as(talk):
    s = talk("lama3-8b full finetune which zero stage", "and the yaml?")
    assert s.model == "llama3-8b" and s.origin("model") == "read_as"


@pytest.mark.parametrize("q,rule", [
    ("qwen2.5-7b lora seq_len=-4096", "not a valid sequence length"),
    ("qwen2.5-7b lora on -4 cards", "not a valid device count"),
    ("qwen2.5-7b lora on 2.5 cards", "devices come whole"),
    ("qwen2.5-7b lora on 0 cards", "at least 1"),
    ("qwen2.5-7b lora on 1e9 cards", "too large a device count"),
])
def test_one_message_per_rule(parse, q, rule):
    s = parse(q)
    assert len(s.problems) == 2  # the rule's sentence and what is valid
    assert rule in s.problems[0] and s.problems[1].startswith("Ask again with valid values")


def test_rule_messages_in_chinese(parse):
    s = parse("qwen2.5-7b lora 微调，-4 张卡够吗")
    assert s.lang == "zh" and "不是有效的卡数" in s.problems[0]


def test_intents_are_data(tmp_path):
    from assistant.offline.vocab import INTENTS, INTENTS_FILE, load_intents
    assert set(INTENTS) >= {"cards", "memory", "config", "inference", "time", "troubleshoot", "compare", "list_models"}
    # a row added to the table is an intent, in either language, with no code
    extra = tmp_path / "intents.toml"
    extra.write_text(INTENTS_FILE.read_text(encoding="utf-8") + "\n[[intent]]\nname = \"price\"\nen = ['(?<![a-z])price']\nzh = ['价格']\n",
                     encoding="utf-8")
    table = load_intents(extra)
    assert table["price"].search("what price per hour") and table["price"].search("价格是多少")
    assert table["cards"].pattern == INTENTS["cards"].pattern


def test_extractors_read_one_kind_each(ctx):
    from assistant.offline.frame import QuestionFrame
    from assistant.offline.names import ModelNames
    from assistant.offline.setting import Setting
    from assistant.offline.spans import Reading
    names = ModelNames(ctx.resolver, ctx.kb.models())
    assert [m for m, _ in names.model_mentions("llama3-8b vs qwen2.5-7b")] == ["llama3-8b", "qwen2.5-7b"]
    s = QuestionFrame()
    text = "8张910b 用 mindspeed-llm 跑 qwen2.5-7b"
    r = Reading(text)
    count = Setting(ctx.resolver).read(r, s)
    assert (s.hardware, s.framework, count) == ("snt9b", "MindSpeed-LLM", 8)
    # each reading is a typed span on the question as typed; the model's words are left for the name reader
    assert {(text[sp.start:sp.end], sp.slot, sp.value, sp.how) for sp in r.spans} == {
        ("910b", "hardware", "snt9b", "catalog"), ("mindspeed-llm", "framework", "MindSpeed-LLM", "vocabulary")}
    assert not r.claimed(text.index("qwen"), len(text))


def test_values_filled_by_a_reading_rule_say_so(parse):
    pt = parse("qwen2.5-7b 预训练 8 cards")
    assert (pt.method, pt.origin("method")) == ("full", "default")  # pre-training trains every weight unless LoRA is named
    assert parse("qwen2.5-7b lora pretrain").origin("method") == "said"
    cfg = parse("give me the config for qwen2.5-7b lora")
    assert (cfg.config_format, cfg.origin("config_format")) == ("llamafactory_yaml", "default")
    ms = parse("qwen2.5-7b lora with MindSpeed-LLM, give me the yaml")
    assert (ms.config_format, ms.origin("config_format")) == ("mindspeed_env", "read_as")  # MindSpeed-LLM has no YAML
    card32 = parse("qwen2.5-7b lora on 32G cards")
    assert (card32.hardware, card32.origin("hardware")) == ("snt9b-32g", "read_as")


def test_a_negative_chinese_numeral_is_bad_input(parse):
    s = parse("我有负八张卡，qwen3-8b lora 够吗")
    assert s.problems and "“-8”不是有效的卡数" in s.problems[0]


def test_a_comparison_carries_until_one_value_is_named(talk):
    s = talk("A100 vs 910B for llama3-8b lora", "and with full?")
    assert s.hardwares == ["a100-80g", "snt9b"] and s.method == "full"
    one = talk("A100 vs 910B for llama3-8b lora", "on H100 then?")
    assert one.hardwares == [] and one.hardware == "h100-80g"


def test_variants_name_one_value_each(parse):
    s = parse("llama3-8b vs qwen2.5-7b lora on A100 vs 910B")
    pairs = {(v.model, v.hardware) for v in s.variants()}
    assert pairs == {(m, h) for m in ("llama3-8b", "qwen2.5-7b") for h in ("a100-80g", "snt9b")}
    assert all("compare" not in v.intents and not v.models and not v.hardwares for v in s.variants())
    single = parse("llama3-8b lora on A100")
    assert single.variants() == [single]


def test_same_architecture_models_are_named(parse):
    # catalog rows (HF config.json): llama3-70b and llama3.1-70b are both 80 layers, hidden 8192, FFN 28672,
    # 64 heads, 8 KV heads, vocabulary 128256
    assert "llama3.1-70b" in parse("llama3-70b lora how many cards").same_shape
    assert "llama3-70b" in parse("llama3.1-70b lora").same_shape
    assert parse("qwen2.5-7b lora").same_shape == [] or "qwen2.5-7b" not in parse("qwen2.5-7b lora").same_shape


def test_a_turn_read_again_is_an_independent_copy(ctx):
    parser = Parser(ctx.resolver, ctx.kb.models())
    first = parser.parse("qwen2.5-7b lora 8 cards")
    first.intents.add("config")
    first.devices = 16
    again = parser.parse("qwen2.5-7b lora 8 cards")
    assert again.devices == 8 and "config" not in again.intents
    assert again == parser.read("qwen2.5-7b lora 8 cards")


def test_claim_all_claims_every_match_and_later_readers_skip_it():
    import re

    from assistant.offline.spans import Reading
    text = "how many bytes per token, and how many cards?"
    r = Reading(text)
    spans = r.claim_all(re.compile(r"how\s+many\s+bytes"), "amount_asked")
    assert [(text[sp.start:sp.end], sp.slot, sp.how) for sp in spans] == [("how many bytes", "amount_asked", "vocabulary")]
    # offsets are kept: what is left unread is the question with the claimed words read as spaces
    assert len(r.unread()) == len(text)
    assert [m.start() for m in r.finditer(re.compile(r"how\s+many"))] == [text.index("how many cards")]


def test_a_reading_holding_other_spans_leaves_the_rest_unread():
    from assistant.offline.spans import Reading, Span
    text = "recipe 表里 llama2-70b 哪几行要多机"
    at = text.index("llama2-70b")
    model = Span(at, at + len("llama2-70b"), "model", "llama2-70b", "catalog")
    unread = Reading.holding(text, [model]).unread()
    assert unread == text.replace("llama2-70b", " " * len("llama2-70b"))
    # a span reaching past the text (the head of a question) is cut to it
    assert Reading.holding(text[: at + 6], [model]).unread() == text[:at] + " " * 6
    assert Reading.holding(text, []).unread() == text
