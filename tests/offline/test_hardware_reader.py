"""The hardware reader's examples (tests/offline/readers/hardware.yaml): the part, the count and the node size, all
from the catalog's rows and aliases. The node sizes are the catalog's (8 cards per Snt9B node, 16 DIE per Snt9B23
node: ModelArts docs; 8 per GPU server)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

EXAMPLES = yaml.safe_load((Path(__file__).parent / "readers" / "hardware.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["q"] for e in EXAMPLES])
def test_hardware_examples(parse, example):
    frame = parse(example["q"])
    e = frame.effective()
    assert (frame.hardware, e.devices) == (example["hardware"], example["devices"])
    assert e.per_node == example["per_node"]
    if frame.hardware:  # the part is a span read from the catalog
        assert [sp.value for sp in frame.spans if sp.slot == "hardware"][:1] == [frame.hardware]
        assert {sp.how for sp in frame.spans if sp.slot == "hardware"} == {"catalog"}


def test_the_reader_keeps_no_part_names_of_its_own():
    """No part name or node size is written in the planner's code: they are the catalog's."""
    src = Path(__file__).parents[2] / "assistant" / "offline"
    for path in src.glob("*.py"):
        text = path.read_text(encoding="utf-8").lower()
        for word in ("910\\s*b", "h100|", "a100|", "(4090)", "def per_node"):
            assert word not in text, (path.name, word)


# A part the catalog does not have is said, never read as the default part (fresh round 7 s83: "Snt9B99" was sized as
# Snt9B): the error names it, the nearest catalog parts and every part, in the question's language.
@pytest.mark.parametrize(
    "question,name,closest",
    [
        ("llama3.1-8b full 4096 on Snt9B99, how many cards?", "Snt9B99", "snt9b"),
        ("qwen3-8b 在 Snt9B99 上推理要几张卡", "Snt9B99", "snt9b"),
        ("llama3-8b lora on 8 MI300A?", "MI300A", "mi300x-192g"),
        # fresh round 15 c5-07: a catalog model number with another generation letter (910b / 910c in the catalog)
        ("910D 的卡跑 qwen2.5-72b lora 要几张", "910D", "snt9b"),
        ("qwen2.5-14b full on 16 910E, enough?", "910E", "snt9b"),
    ],
)
def test_an_unknown_part_is_said_with_the_parts_there_are(parse, ctx, question, name, closest):
    frame = parse(question)
    (said,) = frame.problems
    assert f"“{name}”" in said and closest in said
    assert all(hw in said for hw in ctx.resolver.hardware)
    assert ("目录" in said) == (frame.lang == "zh")


@pytest.mark.parametrize(
    "question", ["qwenLLaMA-FactorySnt9BLoRA", "qwen2.5-7b lora on 2 x a800s", "qwen2.5-7b lora on h100x8",
                 "qwen2.5-7b lora on 8 910b3", "qwen2.5-7b lora on 910c, how many?"]
)
def test_a_known_part_with_words_or_a_count_glued_on_is_no_unknown_part(parse, question):
    assert not parse(question).problems


# A memory size is no part name (fresh round 8 F3: "32GB cards" was refused as an unknown part). The vLLM v0.7.2 table
# (research/modelarts.md §1, page modelarts_llm_infer_5902037) serves QwQ-32B on 4 cards of 32 GB.
@pytest.mark.parametrize("question", ["QwQ-32B vLLM inference on 32GB cards, how many?", "qwq-32b 在 32G 的卡上推理要几张"])
def test_a_memory_size_is_no_unknown_part(parse, question):
    assert not parse(question).problems


def test_a_32gb_card_serving_question_gets_the_32gb_column(assistant):
    ans = assistant.ask("QwQ-32B vLLM inference on 32GB cards, how many?")
    assert ans.answer.splitlines()[2].startswith("**Answer:** **4 cards** (32 GB)")


# A move between two parts with no model to size asks how they differ (fresh round 15 c5-01: "H800s instead of H100s,
# does the memory side change?" fell to "Which model?"); the catalog holds 80 GB for both NVIDIA parts, 64 GB per DIE
# and 2 DIE per card on Snt9B23 against 64 GB per Snt9B card (knowledge/catalog/hardware.csv).
@pytest.mark.parametrize(
    "question,parts,lead",
    [
        ("we're switching from A100 80G to H800, does memory sizing change?", ["a100-80g", "h800-80g"],
         "**Answer:** **The same memory per card**: 80 GB on both"),
        ("从 910B 换到 A3，显存有什么变化？", ["snt9b", "snt9b23"], "**结论**：**Snt9B23 的每张卡显存是 Snt9B 的 2 倍**：128 GB 对 64 GB"),
    ],
)
def test_a_move_between_parts_with_no_model_compares_them(parse, assistant, question, parts, lead):
    assert parse(question).hardwares == parts
    assert assistant.ask(question).answer.startswith(lead)


@pytest.mark.parametrize("question", ["910B 换成 A3 呢", "what if we go from 910B to A3 instead?",
                                      "qwen2.5-7b lora, switching from 910B to A3, how many?"])
def test_a_move_that_asks_no_part_fact_keeps_the_part_moved_to(parse, question):
    s = parse(question)
    assert s.hardware == "snt9b23" and s.hardwares == []
