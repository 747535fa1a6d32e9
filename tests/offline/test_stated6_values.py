"""Every value the user states is used or named as not used (issue 22), for the value kinds the stated6 helper found
dropped or misread (tests/eval/fresh/2026-12-06-stated6-helper.yaml): a layout said in words ("pure data parallel" is TP 1
and PP 1), a token total and a per-card throughput written as people write them, a fact about a part's nodes ("Snt9B 一台是
8 卡": their size, no devices of the user's), a ModelArts flavor's own device count, vLLM's --max-num-seqs and a memory
share said as a percentage, a length said as a lower bound, optimizer settings no tool takes, and bad input (punctuation
alone, a YAML with several faults).

Expected figures are hand computations: the vendor's time formula (ModelArts 590604: Time = tokens / (TPS × N × η), η =
0.9), the batch identity (GBS = MBS × DP × GA, DP = devices / (TP × PP)), the KV cache per token (2 × layers × KV heads ×
head_dim × 2 B, models.csv) and the hardware catalog (knowledge/catalog/hardware.csv: node sizes, flavors), read here."""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = max(8, int(os.environ.get("QUESTION_EXAMPLES", "400")) // 10)
ETA = 0.9  # the vendor's linear speed-up factor, the tool's default
with open(ROOT / "knowledge/catalog/hardware.csv", encoding="utf-8", newline="") as f:
    HARDWARE = {r["id"]: r for r in csv.DictReader(f)}
with open(ROOT / "knowledge/catalog/models.csv", encoding="utf-8", newline="") as f:
    MODELS = {r["id"]: r for r in csv.DictReader(f)}
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def lead(ans) -> str:
    return next(line for line in ans.answer.splitlines() if line.startswith(("**Answer:**", "**结论**", "**Gradient", "**梯度")))


def args_of(ans, tool):
    return [c.args for c in ans.tool_calls if c.name == tool]


def unused_line(ans) -> str:
    return next((line for line in ans.answer.splitlines() if line.startswith(("Not used from your question", "问题中未使用的数值"))), "")


# ---------------------------------------------------------------- a token total and a throughput, as people write them
TOKEN_FORMS = ["{v:g} training tokens", "a {m}M-token dataset", "{m} million tokens", "{y} 亿个训练 token", "{y} 亿 token"]
TPS_FORMS = ["TPS 按 {t} 算", "measured {t} tokens/s per card", "throughput {t} tokens/s/card", "每卡吞吐 {t} tokens/s",
             "TPS={t}"]


@PROPERTY
@given(st.sampled_from(TOKEN_FORMS), st.sampled_from([1, 2, 5]), st.sampled_from(TPS_FORMS), st.sampled_from([800, 1500, 2500]),
       st.sampled_from([8, 16, 32]), st.sampled_from([None, 2, 3]), st.booleans())
def test_a_token_total_and_a_throughput_give_the_time(assistant, form, y, tps_form, tps, cards, epochs, zh):
    """Tokens, a per-card TPS and cards stated: the vendor formula's time leads, from exactly those values (round 14 c3-05,
    c7-09: the formula was asked for again, or TPS said to be unpublished)."""
    tokens = y * 1e8
    said_tokens = form.format(v=tokens, m=int(tokens / 1e6), y=y)
    parts = [said_tokens, tps_form.format(t=tps), f"{cards} 张 910B" if zh else f"{cards} Snt9B cards"]
    if epochs:
        parts.append(f"{epochs} 个 epoch" if zh else f"{epochs} epochs")
    question = ("，".join(parts) + "，训练要多久？") if zh else (", ".join(parts) + ": how long will training take?")
    ans = assistant.ask(question)
    (call,) = args_of(ans, "estimate_training_time")
    assert (call["tokens"], call["tps"], call["devices"], call.get("epochs", 1.0)) == (tokens, tps, cards, epochs or 1.0), question
    seconds = tokens * (epochs or 1) / (tps * cards * ETA)
    assert f"{seconds:,.0f}" in lead(ans), (question, ans.answer)


# ---------------------------------------------------------------- a layout said in words
DP_WORDS = {"en": ["pure data parallel", "plain data parallel", "data parallel only", "DP only", "no model parallelism",
                   "no TP/PP"],
            "zh": ["纯数据并行", "只做数据并行", "只用数据并行", "不开 TP/PP", "不开模型并行"]}


@PROPERTY
@given(st.sampled_from(["en", "zh"]), st.data(), st.sampled_from([8, 16, 32]), st.sampled_from([1, 2]),
       st.sampled_from([4, 8, 16]), st.booleans())
def test_pure_data_parallel_makes_every_device_a_replica(assistant, lang, data, cards, mbs, ga, mindspeed):
    """"8 卡纯数据并行": TP 1 and PP 1, so DP = the devices and GBS = MBS × devices × GA (round 14 c2-05: TP 4 assumed,
    global batch 64 instead of 256); never a TP the user ruled out in the layout said back."""
    words = data.draw(st.sampled_from(DP_WORDS[lang]))
    fw = " MindSpeed-LLM" if mindspeed else ""
    question = (f"qwen2.5-7b 全参 4096{fw}，{cards} 卡{words}，MBS {mbs}，GA {ga}，全局 batch 是多少" if lang == "zh" else
                f"qwen2.5-7b full 4096{fw} on {cards} cards, {words}, MBS {mbs}, GA {ga}: what global batch?")
    ans = assistant.ask(question)
    gbs = mbs * cards * ga
    assert (f"Global batch {gbs}**" if lang == "en" else f"全局 batch 为 {gbs}**") in lead(ans), (question, ans.answer)
    for call in args_of(ans, "estimate_training_memory"):  # the user's layout, when estimated, is theirs
        assert (call.get("tp", 1), call.get("pp", 1)) == (1, 1), (question, call)


def test_a_stated_split_is_still_split_beside_no_tp(parse):
    """"no TP, PP 4": TP 1 said in words and PP 4 in digits; the one does not swallow the other."""
    s = parse("qwen2.5-32b full 4k mindspeed on 16 cards, no TP, PP 4")
    assert (s.tp, s.pp) == (1, 4)


# ---------------------------------------------------------------- a fact about a part's nodes is no count of the user's
@PROPERTY
@given(st.sampled_from([("snt9b", "Snt9B"), ("snt9b23", "Snt9B23")]), st.sampled_from([
    "{part} 一台是 {n} 卡，qwen2.5-72b 全参 4096 需要几台？", "{part} 每台 {n} 卡，qwen2.5-72b lora 8192 要几台",
    "A {part} node has {n} cards; how many nodes for qwen2.5-72b full 4096?",
    "each {part} node holds {n} NPUs - how many nodes does qwen2.5-72b lora 4096 need?"]))
def test_a_fact_about_a_parts_nodes_is_no_count_of_the_users(parse, part, form):
    hw, name = part
    n = int(HARDWARE[hw]["devices_per_node"])  # the catalog's node size: 8 cards (Snt9B) or 16 DIE (Snt9B23)
    s = parse(form.format(part=name, n=n))
    assert s.devices is None and s.nodes is None, form
    assert s.node_size == n, (form, s.node_size)


def test_a_nodes_count_with_its_size_is_the_users(parse):
    s = parse("用 2 台 Snt9B（每台 8 卡）做 qwen2.5-72b lora 8k 够不够？")
    assert (s.nodes, s.devices) == (2, 16)


def test_the_node_fact_answers_in_nodes_without_a_count_of_the_users(assistant):
    ans = assistant.ask("Snt9B 一台是 8 卡，qwen2.5-72b 全参 4096 需要几台？")
    # seeds/004 (2025-06-24) qwen2.5-72b full 4096 Snt9B: MindSpeed-LLM 32 cards, LLaMA-Factory 64 cards
    assert "MindSpeed-LLM：**32 张卡**（4 个节点）" in ans.answer and "LLaMA-Factory：**64 张卡**（8 个节点）" in ans.answer
    assert "你只有" not in ans.answer and "你的 8" not in ans.answer


# ---------------------------------------------------------------- a flavor names its devices
FLAVORS = [(f.split(" (")[0], int(re.search(r"\((\d+)", f).group(1)), hw) for hw, row in HARDWARE.items()
           for f in (row.get("flavors") or "").split(";") if re.search(r"\(\d+", f)]


@pytest.mark.parametrize("flavor,n,hw", FLAVORS, ids=[f for f, _, _ in FLAVORS])
def test_a_flavor_is_its_parts_device_count(assistant, flavor, n, hw):
    ans = assistant.ask(f"We rent the ModelArts flavor {flavor}. Can it serve qwen2.5-14b-instruct at 8k?")
    assert {c.get("max_devices") for c in args_of(ans, "estimate_inference")} <= {n}
    assert f"has {n} NPU" in ans.answer.splitlines()[0]
    zh = assistant.ask(f"规格 {flavor} 能部署 qwen2.5-14b-instruct 吗，8k 上下文")
    assert f"有 {n} 张 NPU" in zh.answer.splitlines()[0]


# ---------------------------------------------------------------- vLLM's flags said in a serving question
def kv_per_token(model: str) -> int:
    m = MODELS[model]
    return 2 * int(m["layers"]) * int(m["kv_heads"]) * int(m["head_dim"] or int(m["hidden"]) // int(m["heads"])) * 2


@PROPERTY
@given(st.sampled_from([16, 64, 128, 512]), st.sampled_from([4096, 8192, 16384]), st.sampled_from([None, 80, 85, 95]),
       st.sampled_from(["--gpu-memory-utilization {u}%", "gpu util at {u}%", "gpu util {f}"]), st.booleans())
def test_max_num_seqs_and_a_memory_share_are_used(assistant, seqs, length, util, util_form, zh):
    """"--max-num-seqs 128", "gpu util at 80%": each reaches the estimate and the answer sets the cap against the
    full-length sequences the KV cache holds (round 14 c6-08: neither addressed)."""
    parts = [f"--max-num-seqs {seqs}", f"--max-model-len {length}"]
    if util:
        parts.append(util_form.format(u=util, f=util / 100))
    question = (f"在单张 H100 上部署 llama3-8b-instruct，{' '.join(parts)}，KV cache 够吗？" if zh else
                f"serve llama3-8b-instruct on one H100 with {', '.join(parts)}: is the KV cache enough?")
    ans = assistant.ask(question)
    (call,) = args_of(ans, "estimate_inference")
    assert (call["max_num_seqs"], call["max_model_len"], call["gpu_memory_utilization"]) == (seqs, length, (util or 90) / 100)
    assert not unused_line(ans), (question, ans.answer)
    held = next(c.result for c in ans.tool_calls if c.name == "estimate_inference")["max_sequences_at_len"]
    assert held == next(c.result for c in ans.tool_calls if c.name == "estimate_inference")["kv_tokens_fit"] // length
    said = f"`--max-num-seqs {seqs}`"
    first = next(line for line in ans.answer.splitlines()[1:] if line.strip())
    if held < seqs:  # fewer full-length sequences fit than the cap: that leads
        assert said in first and f"{held}" in first, (question, ans.answer)
    else:
        assert said in ans.answer


def test_the_kv_cache_per_token_is_the_models_shape():
    # llama3-8b: 2 × 32 layers × 8 KV heads × 128 head_dim × 2 B = 131,072 B = 128 KiB (models.csv)
    assert kv_per_token("llama3-8b") == 128 * 1024


# ---------------------------------------------------------------- a length said as a bound
@pytest.mark.parametrize("question,said,n", [
    ("Serving qwen2.5-7b-instruct where prompts are longer than 20k tokens: is one 4090 enough?", "longer than 20k", "20,480"),
    ("qwen2.5-14b-instruct 推理，上下文至少 32k，需要几张 Snt9B？", "至少 32k", "32,768"),
    ("qwen2.5-7b lora, sequences of 8k or longer, how many 910B?", "8k or longer", "8,192"),
])
def test_a_length_said_as_a_lower_bound_is_named(assistant, question, said, n):
    ans = assistant.ask(question)
    first = ans.answer.splitlines()[0]
    assert f"“{said}”" in first and n in first, ans.answer


def test_a_length_said_as_an_upper_bound_needs_no_words(assistant):
    ans = assistant.ask("序列不到 8k，qwen2-7b lora 要几张 Snt9B？")
    assert "下限" not in ans.answer and "序列长度 8192" in ans.answer.splitlines()[0]


# ---------------------------------------------------------------- optimizer settings no tool takes
@PROPERTY
@given(st.sampled_from([("warmup ratio {v}", [0.03, 0.1]), ("weight decay {v}", [0.0, 0.01, 0.1]), ("预热比例 {v}", [0.05]),
                        ("权重衰减 {v}", [0.01])]), st.data())
def test_an_optimizer_setting_is_named_with_its_words_and_why(assistant, form, data):
    template, values = form
    v = data.draw(st.sampled_from(values))
    phrase = template.format(v=v)
    ans = assistant.ask(f"qwen2.5-7b full 4096 on 8 910B, {phrase}, enough?")
    line = unused_line(ans)
    assert f"“{phrase}”" in line and ("memory" in line or "显存" in line), (phrase, ans.answer)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("question", ["？？？", "！！！", "。。。？", "？", "，，，"])
def test_punctuation_alone_in_chinese_is_answered_in_chinese(assistant, question):
    assert assistant.ask(question).answer.startswith("请问")


@pytest.mark.parametrize("question", ["???", "!!!", "..."])
def test_ascii_punctuation_alone_stays_english(assistant, question):
    assert assistant.ask(question).answer.startswith("Which model")


CLEAN = {"model_name_or_path": "Qwen/Qwen2.5-7B", "stage": "sft", "finetuning_type": "lora",
         "lora_target": ["q_proj", "v_proj"], "per_device_train_batch_size": 2, "cutoff_len": 4096, "template": "qwen"}
# one way to break each line, and the finding it is named by (a tab before a top-level setting; the list never closed; ...)
BREAKS = {"colon": (lambda k, v: f"{k} {v}", "yaml_missing_colon"), "indent": (lambda k, v: f"  {k}: {v}", "yaml_stray_indent"),
          "tab": (lambda k, v: f"\t{k}: {v}", "yaml_tab_indent")}


def written(value) -> str:
    return "[" + ", ".join(value) + "]" if isinstance(value, list) else str(value)


@PROPERTY
@given(st.lists(st.tuples(st.sampled_from(list(CLEAN)[1:]), st.sampled_from(sorted(BREAKS))), min_size=2, max_size=4,
                unique_by=lambda t: t[0]), st.booleans())
def test_every_fault_of_a_pasted_yaml_is_named_and_the_file_mended(picks, unclosed):
    """Round 14 c8-04's class: each broken line of a YAML is named with its line number, not only the first the parser
    stops at, and the file is given back as meant (its values those of the clean file). The first line stays whole: a
    pasted block is read stripped, so its own indent is no fault."""
    from assistant.setup_check import read_setup

    broken = dict(picks)
    lines, expected = [], []
    for i, (key, value) in enumerate(CLEAN.items(), start=1):
        text = written(value)
        if key == "lora_target" and unclosed:
            lines.append(f"{key}: {text[:-1]}")
            expected.append(("yaml_unclosed_bracket", i))
            continue
        if key in broken and not (key == "lora_target" and broken[key] == "colon"):  # a list keeps its colon here
            make, code = BREAKS[broken[key]]
            lines.append(make(key, text))
            expected.append((code, i))
            continue
        lines.append(f"{key}: {text}")
    if len(expected) < 2:
        return
    r, _ = read_setup("```yaml\n" + "\n".join(lines) + "\n```\nwhat is wrong?")
    named = [(f.code, f.value) for f in r.findings if f.code.startswith("yaml_") and f.code != "yaml_fixed_file"]
    assert named == expected, ("\n".join(lines), named)
    mended = next(f.corrected for f in r.findings if f.code == "yaml_fixed_file")
    assert yaml.safe_load(mended) == CLEAN


# ---------------------------------------------------------------- a count attached to a part is the user's devices
@pytest.mark.parametrize("question,devices,nodes", [
    ("deepseek-v3 fp8 serving on an 8x MI300X box: enough?", 8, None),  # round 14 c5-06's class: "Not used: 8x"
    ("llama3-70b serving on an 8x H100 node?", 8, 1),
    ("qwen2.5-72b lora on 2 nodes of 8x A800", 16, 2),
    ("qwen2.5-72b lora on 4 H100 nodes", None, 4),  # a count of nodes, not of devices
    ("llama3-70b lora 4k on 4 x H100, TP 4 ok?", 4, None),
    ("qwen2.5-72b full on H100 x8?", 8, None),
])
def test_a_count_written_with_the_part_is_the_users(parse, question, devices, nodes):
    s = parse(question)
    assert (s.devices, s.nodes) == (devices, nodes)
