"""One hardware object from the catalog: which vendor tables describe a part, its column name in them and its
device unit come from knowledge/catalog/hardware.csv, carried in the frame, and nothing in the planner keeps its
own list of part names (issue #22)."""

from __future__ import annotations

import ast
import csv
from pathlib import Path

import pytest

from assistant.offline.frame import DEFAULT_HARDWARE, PartFacts
from assistant.offline.model import is_follow_up

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "knowledge" / "catalog" / "hardware.csv"


def talk(parse, *turns: str):
    frame = None
    for text in turns:
        frame = parse(text).with_history(frame, is_follow_up(text))
    return frame


def test_the_vendor_parts_facts_are_the_catalogs(ctx):
    """Seed 004 (模型最小卡数配置) has the columns Snt9B (cards) and Snt9B23 (DIE, 2 per card, 16 per node); seed 000
    (the LLaMA-Factory recipe table) is Snt9B cards; the vLLM tables have 64 GB and 32 GB columns."""
    facts = {h["id"]: PartFacts.from_row(h) for h in ctx.kb.hardware()}
    assert (facts["snt9b"].table_part, facts["snt9b"].unit) == ("Snt9B", "card")
    assert (facts["snt9b23"].table_part, facts["snt9b23"].unit) == ("Snt9B23", "die")
    assert facts["snt9b"].vendor_tables == {"min_cards", "recipes", "vllm"}
    assert "recipes" not in facts["snt9b23"].vendor_tables
    assert facts["snt9b-32g"].vendor_tables == {"vllm"} and facts["snt9b-32g"].memory_gb == 32
    assert not facts["h100-80g"].vendor_tables and facts["h100-80g"].kind == "gpu" and facts["h100-80g"].table_part is None


def test_the_frame_carries_the_facts_of_every_part_it_names(parse):
    s = parse("llama3-8b lora on A100 vs 910C, how many cards?")
    assert set(s.part_facts) >= {"a100-80g", "snt9b23"}
    parts = {v.hardware: v.effective().part for v in s.variants()}
    assert parts == {"a100-80g": None, "snt9b23": "Snt9B23"}
    assert parse("qwen2.5-7b lora 4096, how many cards?").effective().part == "Snt9B"  # the default part, Snt9B


def test_a_follow_up_keeps_the_facts_of_the_conversations_part(parse):
    s = talk(parse, "qwen2.5-7b lora on 16 snt9b23 DIE, which zero stage?", "and at 8192?")
    assert s.hardware == "snt9b23" and s.effective().part == "Snt9B23" and s.effective().facts.unit == "die"
    back = talk(parse, "DeepSeek-R1-Distill-Llama-8B on a 32GB 910B with vllm, max-model-len?", "and on the 64GB card?")
    assert "vllm" in back.effective().facts.vendor_tables  # the default part's facts, not lost to the 32 GB one


def test_the_planner_keeps_no_list_of_part_names():
    """No catalog hardware id is written in the planner's code except the default part (frame.DEFAULT_HARDWARE) and
    the 32 GB variant the reader picks for "32G 卡" (parse.py); a new part is one catalog row."""
    ids = {row["id"] for row in csv.DictReader(CATALOG.open(encoding="utf-8"))}
    found = []
    for path in sorted((ROOT / "assistant" / "offline").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ids:
                found.append((path.name, node.value))
    assert sorted(found) == sorted([("frame.py", DEFAULT_HARDWARE), ("parse.py", "snt9b"), ("parse.py", "snt9b-32g")])


@pytest.mark.parametrize("question, lang", [("how many Atlas 300I Duo cards to full fine-tune qwen2.5-7b?", "en"),
                                            ("用 300I Duo 做 qwen2.5-1.5b lora 微调要几张卡", "zh")])
def test_training_on_an_inference_card_is_said_first(assistant, question, lang):
    """The catalog's training column is false for the Atlas 300I Duo: torch_npu's installation guide lists the Atlas
    inference series as not supported for training, so the answer says so before any figure."""
    first = assistant.ask(question).answer.split("\n")[0]
    assert ("inference card, not a training part" if lang == "en" else "是推理卡，不能用于训练") in first
    assert "torch_npu" in first


def test_serving_on_an_inference_card_counts_chips_in_fp16(assistant):
    """The Atlas 300I Duo is counted per chip (catalog unit "chip", 2 per card) and has no BF16 (catalog bf16 false):
    a 7B model's 15.2 GB of 16-bit weights fit one 48 GB chip, served in FP16."""
    answer = assistant.ask("serve qwen2.5-7b on atlas 300i duo, how many chips?").answer
    lead = answer.split("\n")[0] + answer.split("\n")[2]
    assert "training" not in lead and "**1 chip**" in lead and "FP16 (the device has no BF16)" in lead
    zh = assistant.ask("300I Duo 部署 qwen2.5-7b 需要几个芯片").answer
    assert "**1 个芯片**" in zh and "FP16" in zh and "BF16）" in zh
