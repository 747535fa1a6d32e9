"""Every row of the two vendor training tables, asked as a free-form question (English or Chinese,
rotating spellings of model, method, framework, hardware and length), answered by the offline
planner through the agent loop. Expected numbers come from the hand-typed seed transcriptions in
tests/golden/*_seed.txt (tests/seedfiles.py), not from the project's CSVs."""

from __future__ import annotations

import pytest

from tests.seedfiles import min_cards_rows, recipe_rows

METHOD_WORDS = {"lora": ["LoRA", "lora", "LoRA微调", "LoRA fine-tuning"], "full": ["full fine-tuning", "全参", "full-parameter", "全量微调"]}
FRAMEWORK_WORDS = {"MindSpeed-LLM": ["MindSpeed-LLM", "mindspeed", "MindSpeed"], "LLaMA-Factory": ["LLaMA-Factory", "llama factory", "LlamaFactory"]}
HARDWARE_WORDS = {"Snt9B": ["Snt9B", "910B", "snt9b"], "Snt9B23": ["Snt9B23", "910C", "snt9b23"]}
SEQ_WORDS = {1024: ["1024", "1k"], 4096: ["4096", "4k", "4K"], 8192: ["8192", "8k", "8K tokens"]}


def pick(options: list[str], i: int) -> str:
    return options[i % len(options)]


def headline(answer: str) -> str:
    return next(line for line in answer.splitlines() if line.startswith(("**Answer:**", "**结论**：")))


MIN_ROWS = list(min_cards_rows())


@pytest.mark.parametrize("i,row", list(enumerate(MIN_ROWS)), ids=lambda v: str(v) if not isinstance(v, tuple) else "-".join(map(str, v)))
def test_min_cards_row_as_a_question(assistant, i, row):
    model, strategy, seq, fw, hw, cards = row
    words = dict(m=model, s=pick(METHOD_WORDS[strategy], i), f=pick(FRAMEWORK_WORDS[fw], i // 2),
                 h=pick(HARDWARE_WORDS[hw], i // 3), q=pick(SEQ_WORDS[seq], i // 5))
    zh = i % 2 == 1
    q = ("{m} {s} 用{f} 序列长度{q} 在{h}上最少需要几张卡？" if zh else
         "How many cards for {m} {s} with {f} at {q} on {h}?").format(**words)
    ans = assistant.ask(q)
    mc = [c for c in ans.tool_calls if c.name == "min_cards"]
    assert mc and mc[0].args["hardware"] == hw and mc[0].args["strategy"] == strategy, (q, mc)
    line = headline(ans.answer)
    if cards is None:
        assert ("不支持" if zh else "not supported") in line, (q, line)
    else:
        unit = "DIE" if hw == "Snt9B23" else ("张卡" if zh else ("card" if cards == 1 else "cards"))
        assert f"{fw}{'：' if zh else ': '}**{cards} {unit}**" in line, (q, ans.answer)
        nodes = -(-cards // (16 if hw == "Snt9B23" else 8))
        assert (f"{nodes} 个节点" if zh else f"{nodes} node") in line


RECIPES = list(recipe_rows())


@pytest.mark.parametrize("i,row", list(enumerate(RECIPES)), ids=lambda v: str(v) if not isinstance(v, tuple) else "-".join(map(str, v)))
def test_recipe_row_as_a_question(assistant, i, row):
    model, template, strategy, cut, ga, stage, offload, nodes, per_node = row
    zh = i % 2 == 0
    method = pick(METHOD_WORDS[strategy], i)
    q = (f"{model} {method} cutoff_len {cut}，用哪个ZeRO？梯度累积多少？" if zh else
         f"Which ZeRO stage and gradient accumulation for {model} {method} at {pick(SEQ_WORDS[cut], i)} tokens?")
    ans = assistant.ask(q)
    line = headline(ans.answer)
    assert f"ZeRO-{stage}" in line, (q, line)
    assert (f"梯度累积 {ga}" if zh else f"gradient accumulation {ga}") in line, (q, line)
    assert f"{nodes * per_node} {'张卡' if zh else 'card'}" in line, (q, line)
    assert (("开启 offload" if zh else "with offload") if offload else ("不开 offload" if zh else "no offload")) in line
    assert f"template `{template}`" in ans.answer
    assert "ModelArts LLaMA-Factory" in line
