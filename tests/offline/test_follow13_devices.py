"""Follow-ups answered on the devices and domain they point to (fresh 2026-12-07 follow13, round 21 c7-11 / c7-12): the host
RAM per node a thread asks stays the asked quantity when a turn only changes the count, on the nodes the user says (ZeRO-3
offload keeps 18 B/param of states in CPU memory, x 1.5 headroom, shared by the nodes: by hand), and a turn switching from
serving back to training sizes on the training default part (Snt9B, 64 GB) with its vendor rows (seeds/004 via the
hand-typed tests/golden seed), not on the 32 GB card a serving turn named for its own job."""

from __future__ import annotations

import re

from tests.offline.dialog import lead_line as lead
from tests.seedfiles import min_cards_rows

from .dialog import converse

HOST_RAM = re.compile(r"\*\*([\d,]+) GiB (?:of host RAM per node|主机内存)\*\*")


def seed_cards(model, strategy, seq, framework, hardware="Snt9B"):
    return next(c for m, s, q, fw, hw, c in min_cards_rows() if (m, s, q, fw, hw) == (model, strategy, seq, framework, hardware))


def host_ram_gib(params_b: float, nodes: int) -> float:
    """DeepSpeed's ZeRO-3 offload estimate: fp32 master weights, Adam moments and the parameters (18 B/param) x 1.5, per node."""
    return 18 * params_b * 1e9 * 1.5 / nodes / 2**30


def ram_in(head: str) -> float:
    m = HOST_RAM.search(head)
    assert m, head
    return float(m.group(1).replace(",", ""))


def test_host_ram_per_node_asked_again_on_fewer_nodes(assistant):
    *_, before, after = converse(assistant, "how many nodes for llama2-70b full 8192? 按 recipe 表",
                                 "offload 需要多少 host 内存 per node?", "If we only have 2 nodes?")
    assert abs(ram_in(lead(before)) - host_ram_gib(68.98, 4)) < 0.03 * host_ram_gib(68.98, 4), lead(before)  # 'host 内存' is host RAM
    head = lead(after)
    assert abs(ram_in(head) - host_ram_gib(68.98, 2)) < 0.03 * host_ram_gib(68.98, 2), head
    assert "on 2 nodes (16 cards" in head, head  # the user's nodes, not the recipe's 4


def test_host_ram_per_node_asked_again_on_more_nodes_in_chinese(assistant):
    first, after = converse(assistant, "llama3.1-70b 全参 4096 用 ZeRO-3 offload，4 台机器，每台要多少内存？", "那 8 台呢")
    assert abs(ram_in(lead(first)) - 2 * ram_in(lead(after))) <= 1, (lead(first), lead(after))  # per node halves on twice the nodes
    assert "8 个节点（64 张卡" in lead(after)


def test_host_ram_asked_again_when_the_count_changes_in_english(assistant):
    first, after = converse(assistant, "qwen2.5-32b full 4096 with ZeRO-3 offload on 2 nodes, how much host RAM per node?",
                            "and with 4 nodes?")
    assert "on 2 nodes" in lead(first) and "on 4 nodes" in lead(after), lead(after)
    assert abs(ram_in(lead(first)) - 2 * ram_in(lead(after))) <= 1


def test_switching_back_to_training_leaves_the_serving_card_behind(assistant):
    lf, ms = (seed_cards("qwen2.5-72b", "lora", 4096, fw) for fw in ("LLaMA-Factory", "MindSpeed-LLM"))
    assert (lf, ms) == (32, 16)
    *_, ans = converse(assistant, "qwen2.5-72b 部署 vLLM 服务，用 64GB 显存的昇腾卡，至少要几张，能跑多长？", "换成 32GB 显存版本的卡要几张",
                       "切回训练：同一个模型 LoRA 4096 要几张？")
    assert ans.answer.startswith("**qwen2.5-72b** · LoRA 微调 · 序列长度 4096 · Snt9B（"), ans.answer[:120]
    head = lead(ans)
    assert f"LLaMA-Factory：**{lf} 张卡**" in head and f"MindSpeed-LLM：**{ms} 张卡**" in head, head


def test_training_the_model_served_on_one_32gb_card_uses_the_default_part(assistant):
    lf, ms = (seed_cards("qwen2.5-7b", "full", 4096, fw) for fw in ("LLaMA-Factory", "MindSpeed-LLM"))
    *_, ans = converse(assistant, "qwen2.5-7b vllm serving on one 32GB card, enough?", "back to 训练：qwen2.5-7b full 4096 要几张?")
    assert "32G" not in ans.answer.splitlines()[0], ans.answer.splitlines()[0]
    head = lead(ans)
    assert f"LLaMA-Factory：**{lf} 张卡**" in head and f"MindSpeed-LLM：**{ms} 张卡**" in head, head


def test_the_users_own_serving_cards_stay_for_training(assistant):
    *_, ans = converse(assistant, "我们有 8 张 32GB 显存的昇腾卡，qwen2.5-32b 推理要几张？", "那训练呢，全参 4096 要几张？")
    assert "32G" in ans.answer.splitlines()[0], ans.answer.splitlines()[0]  # the user's own cards, said so


def test_a_proposed_count_is_not_the_device_limit_of_a_count_asked_next(assistant):
    ms, lf = (seed_cards("qwen3-8b", "full", 8192, fw) for fw in ("MindSpeed-LLM", "LLaMA-Factory"))
    *_, ans = converse(assistant, "qwen3-8b full fine-tune 4096, would 12 cards do?", "and the minimum at 8192?")
    assert "12" not in ans.answer, ans.answer[:300]  # the 12 was proposed, not the user's cards
    head = lead(ans)
    assert f"LLaMA-Factory: **{lf} cards**" in head and f"MindSpeed-LLM: **{ms} cards**" in head, head


def test_a_proposed_count_stays_for_the_same_yes_no_again(assistant):
    *_, ans = converse(assistant, "qwen3-8b full fine-tune 4096, 12 张够吗?", "换成 8192 呢")
    assert "你的 12 张卡满足" in lead(ans), lead(ans)
