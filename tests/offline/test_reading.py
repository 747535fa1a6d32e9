"""How the parser reads numbers and names people write (issue 13): Chinese numerals with place words,
a length written beside a device word, hardware from the catalog's aliases, typos said in the answer."""

from __future__ import annotations

import pytest

from assistant.agent import Assistant
from assistant.offline.parse import Parser


@pytest.fixture(scope="module")
def assistant(ctx):
    return Assistant(ctx)


@pytest.fixture(scope="module")
def parse(ctx):
    return Parser(ctx.resolver, ctx.kb.models()).parse


@pytest.mark.parametrize(("q", "seq_len"), [
    ("qwen3-32b lora，序列长度八千左右，要几张卡", 8000),
    ("qwen2.5-7b 推理，上下文三万两千", 32000),
    ("qwen3-8b lora 序列长度两千零四十八", 2048),
])
def test_chinese_numerals_are_numbers(parse, q, seq_len):
    assert parse(q).seq_len == seq_len


def test_a_typical_length_beside_a_device_word_is_the_length(parse):
    s = parse("llama3.1-8b full 16384 npus")
    assert (s.seq_len, s.devices, s.length_from_count) == (16384, None, 16384)
    mine = parse("I have 1024 npus, llama3-8b full")  # "I have" makes it a count
    assert (mine.devices, mine.seq_len) == (1024, None)


@pytest.mark.parametrize(("q", "hardware"), [
    ("qwen2.5-7b lora 8192 on V100", "v100-16g"),   # hardware.csv: v100-16g has the alias "v100"
    ("2张A10能跑qwen2.5-7b lora吗", "a10-24g"),
    ("deploy qwen2.5-7b on Atlas 300I Duo", "atlas-300i-duo"),
])
def test_hardware_comes_from_the_catalog_aliases(parse, q, hardware):
    assert parse(q).hardware == hardware


def test_a_typo_is_read_and_said(assistant):
    ans = assistant.ask("lama3-8b full finetune which zero stage").answer
    assert "read “lama3-8b” as llama3-8b" in ans
    assert "ZeRO-2" in ans  # seed 000 (recipe table): Llama3 8B full = ZeRO-2


def test_family_and_size_lists_the_candidates(assistant):
    ans = assistant.ask("llama 70b lora cards?").answer
    assert ans.startswith("“llama 70b” is a model family")
    for model in ("llama2-70b", "llama3-70b", "llama3.1-70b", "llama3.3-70b"):
        assert model in ans
