"""Stated values read as what they are (round 13 class 2): a per-card rate is no device count, a value set with a
bare 设 is read (and refused when out of range), a part the catalog lacks but whose memory is stated is sized by that
memory and said so. Expected values come from the question's own numbers and the hardware catalog's CSV."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

CATALOG = Path(__file__).resolve().parents[2] / "knowledge" / "catalog" / "hardware.csv"


def catalog_gpus_with(gb: int) -> list[dict]:
    with CATALOG.open(encoding="utf-8") as f:
        return [row for row in csv.DictReader(f) if row["kind"] == "gpu" and float(row["memory_gb"]) == gb]


@pytest.mark.parametrize("q, tps", [
    ("单卡吞吐 900 tokens/s，推理 qwen2.5-14b 需要多少张 910B？", 900),
    ("每卡 1,500 tok/s，训 qwen2.5-7b lora 1 亿 token 要多久", 1500),
    ("per-GPU throughput of 2000 tokens/s, how long for llama3-8b full on 300M tokens?", 2000),
    ("单卡 TPS 1200，qwen3-32b 全参 60 亿 token", 1200),
])
def test_a_rate_per_card_is_no_device_count(parse, q, tps):
    s = parse(q)
    assert s.tps == tps
    assert s.devices is None  # "单卡" / "per GPU" says what the rate counts over, not one card


@pytest.mark.parametrize("q, util", [
    ("用 vllm 部署 qwen2-72b，gpu_memory_utilization 设 70%，910B 需要几张卡？", 0.70),
    ("vllm qwen2.5-32b, 显存利用率设置 0.6, A100 80GB 几张", 0.60),
])
def test_a_utilisation_set_with_she_is_read(parse, q, util):
    assert parse(q).gpu_util == pytest.approx(util)


def test_the_utilisation_set_is_the_estimates(assistant):
    ans = assistant.ask("用 vllm 部署 Qwen2-72B，gpu_memory_utilization 设 70%，910B 需要几张卡？").answer
    assert "gpu-memory-utilization 0.7" in ans  # the stated share sizes the estimate beside the table's 0.95 row
    assert "未使用" not in ans


@pytest.mark.parametrize("q, name, gb, lang", [
    ("我们有 L20 48GB，部署 Qwen2.5-14B 推理要几张？", "L20", 48, "zh"),
    ("Can an RTX 5880 48GB fine-tune Qwen2.5-7B with LoRA?", "RTX 5880", 48, "en"),
])
def test_a_part_missing_from_the_catalog_is_sized_by_its_stated_memory(parse, assistant, q, name, gb, lang):
    # a generic GPU of the stated memory, not the catalog's part of that size (which brings its own precisions)
    s = parse(q)
    assert s.hardware == f"custom-{gb}gb-gpu" and s.part_stand_in
    ans = assistant.ask(q).answer
    assert f"“{name}”" in ans and f"{gb} GB" in ans
    assert ("不在硬件目录中" if lang == "zh" else "is not in the hardware catalog") in ans
    assert "Did you mean" not in ans and "是指" not in ans  # sized, not refused
    assert "Not used from your question" not in ans and "问题中未使用" not in ans  # the name is read as the part


def test_a_missing_part_without_a_stated_memory_is_still_refused(assistant):
    ans = assistant.ask("How many RTX 5880 cards to LoRA fine-tune Qwen2.5-7B?").answer
    assert "is not a part in the hardware catalog" in ans


@pytest.mark.parametrize("q, words, rule", [
    ("Qwen2.5-7B LoRA 微调，gradient_accumulation_steps 设 0 可以吗？用 8 张 910B", "设 0", "不小于 1"),
    ("Qwen2.5-32B 全参微调，训练时间 -5 小时，需要多少卡？", "-5 小时", "大于 0"),
    ("llama3-8b lora, finish within -3 hours, 1e8 tokens at 2000 tokens/s per card", "-3 hours", "above 0"),
])
def test_an_out_of_range_value_is_refused_with_what_is_valid(assistant, q, words, rule):
    ans = assistant.ask(q).answer
    assert words in ans and rule in ans
