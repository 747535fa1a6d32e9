"""Table queries beyond one lookup (a row's count said as the minimum itself, the largest or smallest count, one card of
a memory size) and the part a node is told from what the user sees on it (a pasted npu-smi table, or its devices and
memory in words). Counts are from seeds/004 (模型最小卡数配置, 2025-06-24) and the vLLM table; the parts from the
hardware catalog (Snt9B: 8 cards of 64 GB per node; Snt9B23: 16 DIE of 64 GB = 8 cards of 2 DIE)."""

from __future__ import annotations

import pytest


def table_call(ans):
    calls = [c for c in ans.tool_calls if c.name == "find_table_rows"]
    assert calls, ans.answer
    return calls[0].args


@pytest.mark.parametrize("q,args", [
    ("which models have a MindSpeed-LLM full minimum of 8 cards at 4096?",
     {"table": "min_cards", "framework": "MindSpeed-LLM", "strategy": "full", "seq_len": 4096, "cards": {"op": "eq", "value": 8}}),
    ("list the models whose LLaMA-Factory LoRA minimum at 8192 is 4", {"cards": {"op": "eq", "value": 4}}),
    ("最小卡数表里 MindSpeed-LLM 全参 8192 最小卡数为 32 的有哪些模型？", {"cards": {"op": "eq", "value": 32}, "seq_len": 8192}),
    ("which model needs the most cards for MindSpeed-LLM LoRA at 4096?", {"extreme": "max", "strategy": "lora"}),
    ("MindSpeed-LLM 全参 8192 在 Snt9B 上哪个模型需要的卡最少？", {"extreme": "min", "strategy": "full", "seq_len": 8192}),
    ("in the newest vllm table which models run on one 64GB card?", {"table": "vllm", "cards": {"op": "eq", "value": 1}}),
])
def test_filter_read(assistant, q, args):
    got = table_call(assistant.ask(q))
    assert {k: got.get(k) for k in args} == args


def test_least_and_most_are_not_extremes(assistant):
    # "at least 32", "at most 8" compare a count; they ask for no largest or smallest row
    for q in ("which models need at least 32 cards for LLaMA-Factory LoRA at 8192?",
              "which models need at most 8 cards with MindSpeed-LLM full at 4096?"):
        assert table_call(assistant.ask(q)).get("extreme") is None


def test_most_cards_answer_leads_with_the_count(assistant):
    # seeds/004, Snt9B, MindSpeed-LLM LoRA 4096: qwen3-235b-a22b 128 is the largest (deepseek-v3 64 is next)
    ans = assistant.ask("which model needs the most cards for MindSpeed-LLM LoRA at 4096?")
    assert ans.answer.startswith("**Answer:** The largest count is **128 cards** (qwen3-235b-a22b)"), ans.answer
    assert "deepseek-v3" not in ans.answer


def test_minimum_of_8_lists_the_rows(assistant):
    # seeds/004, Snt9B, MindSpeed-LLM LoRA 4096 = 8: the six Qwen3 dense models (0.6b … 32b)
    ans = assistant.ask("Which models have a MindSpeed-LLM LoRA minimum of 8 cards at 4096 on Snt9B?")
    assert "**6 rows** (6 models)" in ans.answer, ans.answer
    for m in ("qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-32b"):
        assert f"| {m} |" in ans.answer
    assert "qwen3-30b-a3b" not in ans.answer


def smi(devices: int, chips: int, mb: int, name: str) -> str:
    lines = ["| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
             "| Chip  Phy-ID              | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |"]
    for i in range(devices):
        lines.append(f"| {i}     {name}           | OK            | 180.0       35                0    / 0             |")
        for c in range(chips):
            lines.append(f"| {c}     {chips * i + c}                   | 0000:{0x9d + i:02X}:00.0  | 0           0    / 0          3100 / {mb}         |")
    return "\n".join(lines)


def test_npu_smi_of_an_a3_node_is_snt9b23(assistant):
    ans = assistant.ask("what hardware is this? A2 or A3?\n" + smi(8, 2, 65536, "Ascend910"))
    assert ans.answer.startswith("**Answer:** **This is Snt9B23**"), ans.answer
    assert "16 DIE = 8 Snt9B23 cards = 1 node" in ans.answer
    assert "Not Snt9B:" in ans.answer


def test_npu_smi_of_a_910b_node_is_snt9b(assistant):
    ans = assistant.ask("which part is this node, snt9b or snt9b23?\n" + smi(8, 1, 65536, "910B2"))
    assert ans.answer.startswith("**Answer:** **This is Snt9B**"), ans.answer


def test_devices_said_in_words(assistant):
    ans = assistant.ask("npu-smi 里有 16 个设备，每个 64GB，是 910B 还是 910C？")
    assert ans.answer.startswith("**结论**：**这是 Snt9B23**"), ans.answer
    assert "8 张 Snt9B23 卡" in ans.answer
    ans = assistant.ask("my node lists 8 devices with 65536 MB each: which part is that, A2 or A3?")
    assert ans.answer.startswith("**Answer:** **This is Snt9B**"), ans.answer


def test_two_letter_alias_asked_about(assistant):
    ans = assistant.ask("A2 是什么？")
    assert "Snt9B" in ans.answer.split("\n")[0] and "Snt9B23" not in ans.answer.split("\n")[0], ans.answer


def test_one_models_most_cards(assistant):
    # seeds/004, Snt9B: qwen3-235b-a22b's rows go up to 512 (LLaMA-Factory full 4096); "the fewest" stays the plain lookup
    ans = assistant.ask("what is the most cards qwen3-235b-a22b needs in the min card table?")
    assert table_call(ans) == {"table": "min_cards", "model": "qwen3-235b-a22b", "extreme": "max", "hardware": "Snt9B"}
    assert ans.answer.startswith("**Answer:** The largest count is **512 cards** (qwen3-235b-a22b)"), ans.answer
    assert not [c for c in assistant.ask("qwen3-8b 最少要几张卡？").tool_calls if c.name == "find_table_rows"]


def test_flavour_named_answers_its_own_npus(assistant):
    # hardware catalog, snt9b flavors: modelarts.bm.arm.48u.384g.npu.2d910b (2 NPU); "how many" is the flavour's count
    for q in ("what card is modelarts.bm.arm.48u.384g.npu.2d910b and how many?", "规格 modelarts.bm.arm.48u.384g.npu.2d910b 是什么卡？几张？"):
        ans = assistant.ask(q)
        head = ans.answer.split("\n")[0]
        assert "Snt9B" in head and ("(2 NPUs)" in head or "（2 张 NPU）" in head), ans.answer
        assert "8 cards per node" not in head and "每节点 8 张卡" not in head


@pytest.mark.parametrize("q,args", [
    # seeds/004 LF LoRA 4096 Snt9B = 1: a count said as all a job needs is a row's count with no table named
    ("哪些模型用 LLaMA-Factory 做 LoRA 4096 只要 1 张卡？", {"table": "min_cards", "cards": {"op": "eq", "value": 1}}),
    ("which models need only 2 cards for MindSpeed-LLM LoRA at 4096?", {"cards": {"op": "eq", "value": 2}}),
    # "the most 32GB cards": the memory size is no count beside "most"
    ("In the vLLM v0.7.2 table, which model needs the most 32GB cards?", {"table": "vllm", "extreme": "max", "vllm_table": "vllm-v0.7.2"}),
])
def test_more_filters_read(assistant, q, args):
    got = table_call(assistant.ask(q))
    assert {k: got.get(k) for k in args} == args


def test_32gb_node_with_910b_named_is_the_32g_row(assistant):
    # catalog: snt9b-32g (910B4, inferred) and ascend910a-32g share 32 GB x 8; "910B" said picks the 910B row
    ans = assistant.ask("我的机器 npu-smi info 里每张卡 HBM 是 32768 MB，一共 8 张，是 910B 吗？")
    assert ans.answer.startswith("**结论**：**这是 Snt9B 32G**"), ans.answer
    assert "未经核实" in ans.answer


def test_family_largest_row_with_the_table_named(assistant):
    # seeds/004 Snt9B LoRA 4096, qwen3 rows: qwen3-235b-a22b LLaMA-Factory 256 is the largest
    ans = assistant.ask("what is the largest count in the min card table for qwen3 models lora 4096?")
    assert table_call(ans).get("family") == "qwen3" and table_call(ans).get("extreme") == "max"
    assert ans.answer.startswith("**Answer:** The largest count is **256 cards** (qwen3-235b-a22b)"), ans.answer


def test_a_setting_key_is_no_extreme(assistant):
    # "max_grad_norm", "max-model-len" are settings or columns, not "the most"
    from assistant.offline import table_query
    assert table_query.read("which models in the min card table need 8 cards with max_grad_norm 0.3?") .extreme is None
    assert table_query.read("which vllm table rows have max-model-len 32768 on 1 card?").extreme is None
