"""Values stated with a role the reader has to know (stated16): the tokens per sample with packing reach the step count
(packed sequences, not samples), and a device count listed under a per-node word ("每台1TB内存、8张卡", "each node: 512GB
RAM, 8 cards") is each node's, so the host RAM per node is worked out on the nodes said. Expected figures are hand
computations written here."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("q,devices,nodes", [
    ("4台机器，每台1TB内存、8张卡，qwen2.5-72b全参 ZeRO-3 offload，主机内存够不够？", 32, 4),
    ("每个节点 host RAM 512GB, 8 cards x 64GB, 4 nodes. qwen2.5-72b full finetune ZeRO-3 offload, enough?", 32, 4),
    ("Each server has 256GB RAM and 8 NPUs; we have 3 servers. llama3.1-70b full ZeRO-3 offload", 24, 3),
    # a total said as such stays the total; the per-node word after the count opens no list of it
    ("2 nodes, each with 768 GB of host RAM, 16 cards in all. qwen2.5-32b full ZeRO-3 offload", 16, 2),
    ("2 nodes, 16 cards, each node has 1TB RAM. qwen2.5-32b full ZeRO-3 offload", 16, 2),
])
def test_a_count_listed_under_a_per_node_word_is_each_nodes(parse, q, devices, nodes):
    f = parse(q)
    assert (f.devices, f.nodes) == (devices, nodes)


def test_host_ram_per_node_is_worked_out_on_the_nodes_said(assistant):
    # 3 nodes × 8 cards = 24 cards: the lead names the 3 nodes and 24 cards, not 1 node of 8
    ans = assistant.ask("每台服务器 2TB 内存、8 张卡，一共 3 台。qwen2.5-72b 全参，ZeRO-3 把参数和优化器 offload 到 CPU，内存够吗？").answer
    lead = next(line for line in ans.splitlines() if line.startswith("**结论**"))
    assert "3 个节点" in lead and "24 张卡" in lead, ans


def test_packed_steps_lead_with_the_packed_sequences(assistant):
    # 600,000 × 1,000 / 8192 = 73,242.2 → 73,243 packed sequences; GBS 8 × 1 × 8 = 64; ⌊73,243 / 64⌋ = 1,144 × 2 = 2,288
    ans = assistant.ask("60万条样本，平均每条1000 token，开启packing，cutoff_len 8192，8卡，per_device_train_batch_size 1，"
                        "gradient_accumulation_steps 8，2个epoch，总步数是多少？").answer
    first = ans.splitlines()[0]
    assert "2,288" in first and "73,243" in first, ans


def test_tokens_per_sample_without_packing_are_named_with_why(assistant):
    # no packing: 100,000 / (8 × 2 × 4 = 64) = 1,562 steps (⌊1,562.5⌋); the 800 tokens per sample change no step count
    ans = assistant.ask("100k samples, 800 tokens per sample, packing off, seq 4096, 8 cards, micro batch 2, GA 4, "
                        "one epoch: how many steps?").answer
    assert "1,562" in ans.splitlines()[0], ans
    unused = next(line for line in ans.splitlines() if line.startswith("Not used from your question"))
    assert "800" in unused and "packing" in unused, ans


def test_thousands_written_with_a_comma_are_no_zero_length(assistant):
    # "2,000 tokens each": one number (the tokens per sample), not a length "000"; no packing: 100,000 / 64 = 1,562 × 5
    ans = assistant.ask("100k rows, 2,000 tokens each, without packing, seq 4096, 4 cards, micro batch 1, grad accum 16, "
                        "5 epochs — total steps?").answer
    assert "not a valid" not in ans and "7,810" in ans.splitlines()[0], ans
