"""Two setups compared on headroom ("哪个余量大", "which has more headroom"): the lead names the one with more free memory
per device first, with each one's free memory (usable minus its estimate) and the difference (fresh round 25 c5-07: both
estimates shown, the comparison never said)."""

from __future__ import annotations

import re

import pytest


def lead_of(answer: str) -> str:
    return next(line for line in answer.splitlines() if line.startswith(("**Answer:**", "**结论**")))


def figures(lead: str) -> list[tuple[float, float, float]]:
    """(free, used, usable) per setup, in the order the lead names them."""
    en = re.findall(r"about ([\d.]+) GiB free per \S+ \(about ([\d.]+) of ([\d.]+) GiB usable", lead)
    zh = re.findall(r"约剩 ([\d.]+) GiB（约用 ([\d.]+) GiB，可用 ([\d.]+) GiB", lead)
    return [(float(a), float(b), float(c)) for a, b, c in en or zh]


@pytest.mark.parametrize("question,winner", [
    # the same LoRA job on a 80 GB H800 and a 64 GB Snt9B card (64 GB x 0.953 = 61.0 GiB usable): the bigger card has more room
    ("h800 还是 snt9b，llama3-8b lora 4k 4卡，哪边更宽裕", "**结论**：**H800 80GB 余量更大**"),
    # the same QLoRA job on a 24 GB RTX 4090 and a 48 GB L40S
    ("rtx 4090 vs l40s for qwen2.5-7b qlora seq 1024 single card - which has more margin?",
     "**Answer:** **L40S 48GB has more headroom**"),
    # the same model and cards at 4096 and 8192 tokens: the longer sequence holds more activations, so 4096 has more room
    ("seq 4096 vs 8192, qwen2.5-7b full on 8 910b cards - which has more headroom left?", "**Answer:** **4096 has more headroom**"),
])
def test_the_one_with_more_headroom_leads_with_both_figures(assistant, question, winner):
    lead = lead_of(assistant.ask(question).answer)
    assert lead.startswith(winner)
    (fa, ua, ca), (fb, ub, cb) = figures(lead)
    assert fa == pytest.approx(ca - ua, abs=0.11) and fb == pytest.approx(cb - ub, abs=0.11)  # free = usable - estimate
    assert fa > fb
    diff = float(re.search(r"(?:about|多约) ([\d.]+) GiB", lead).group(1))
    assert diff == pytest.approx(fa - fb, abs=0.11)


def test_snt9b_usable_memory_is_the_capacity_reported(assistant):
    # 64 GB x 0.953 (the runtime's reported capacity, hardware catalog) = 61.0 GiB usable per Snt9B card
    lead = lead_of(assistant.ask("A100 40GB vs 910B 64GB: lora qwen2.5-7b on 4 cards, seq 2048 - which one has more headroom?").answer)
    assert lead.startswith("**Answer:** **Snt9B has more headroom**")
    assert figures(lead)[0][2] == pytest.approx(64 * 0.953, abs=0.05)


def test_without_headroom_asked_the_counts_are_compared(assistant):
    # seeds/004 qwen2.5-7b full Snt9B: 4096 fewest 4 (MindSpeed-LLM), 8192 fewest 8 -> the count lead stays
    lead = lead_of(assistant.ask("seq 4096 vs 8192, qwen2.5-7b full on 8 910b cards - how many cards each?").answer)
    assert "headroom" not in lead and "needs 4 cards more than 4096" in lead


def test_two_methods_named_with_headroom_asked_are_both_sized(assistant):
    # full fine-tuning holds ~16 B/param of model states (ZeRO-3 shards them), LoRA a frozen 2 B/param base plus small adapter
    # states: on the same 8 H100s LoRA leaves more free memory per GPU; both methods are sized, not LoRA alone
    lead = lead_of(assistant.ask("qwen2.5-14b on 8x h100 80gb - full vs lora, which leaves more spare memory per gpu and how much").answer)
    assert lead.startswith("**Answer:** **LoRA has more headroom**") and "full fine-tuning about" in lead


@pytest.mark.parametrize("follow_up,winner", [
    ("和 910B 64G 比，哪个余量多", "**结论**：**A100 80GB 余量更大**"),
    ("vs snt9b, which one has more headroom?", "**Answer:** **A100 80GB has more headroom**"),
])
def test_a_follow_up_naming_another_part_compares_headroom_with_the_earlier_one(assistant, follow_up, winner):
    from tests.offline.dialog import converse
    # the same LoRA job on an 80 GB A100 and a 64 GB Snt9B card (64 GB x 0.953 = 61.0 GiB usable): the A100 has more room
    _, second = converse(assistant, "qwen2.5-7b lora seq 2048 on 4 x A100 80GB, fits?", follow_up)
    lead = lead_of(second.answer)
    assert lead.startswith(winner) and len(figures(lead)) == 2


def test_two_zero_stages_compared_on_headroom_lead_with_the_one_with_more(assistant):
    # qwen2.5-7b full on 8 cards: ZeRO-3 also shards the 2 B/param bf16 weights that ZeRO-2 keeps whole on every card
    # (7.6B x 2 B = 15.2 GB vs 15.2 / 8 = 1.9 GB), so ZeRO-3 leaves more free memory per card
    lead = lead_of(assistant.ask("8 张 snt9b 全参 qwen2.5-7b，zero2 跟 zero3 哪个单卡显存余量更大？").answer)
    assert lead.startswith("**结论**：**ZeRO-3 余量更大**")
    (f3, u3, c3), (f2, u2, c2) = figures(lead)
    assert c3 == c2 == pytest.approx(64 * 0.953, abs=0.05) and u3 < u2 and f3 == pytest.approx(c3 - u3, abs=0.11)


def test_one_setups_headroom_is_the_usable_memory_less_its_estimate(assistant):
    # 64 GB x 0.953 = 61.0 GiB usable per Snt9B card; the headroom said is that less the per-card estimate beside it
    lead = lead_of(assistant.ask("qwen2.5-7b full sft 16384 with ZeRO-3 on 8 Snt9B cards, how much headroom per card?").answer)
    used = float(re.search(r"about \*\*([\d.]+) GiB per card\*\*", lead).group(1))
    free = float(re.search(r"Headroom: about \*\*([\d.]+) GiB per card\*\* left of the ([\d.]+) GiB usable", lead).group(1))
    assert free == pytest.approx(64 * 0.953 - used, abs=0.11)
