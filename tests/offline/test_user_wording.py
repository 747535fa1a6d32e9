"""Answer wording a new user tripped on (found by asking as a user, 2026-12-03): an estimate beside the
table's '-' for the same framework, an estimate below the shorter row that bounds it, and the DIE unit in
the slower-setting line on Snt9B23. Table values come from the hand-typed seeds (tests/seedfiles.py)."""

from __future__ import annotations

import pytest

from tests.offline.dialog import lead_line
from tests.seedfiles import min_cards_rows


def seed_cards(model, strategy, seq, framework, hardware="Snt9B"):
    return next(c for m, s, q, fw, hw, c in min_cards_rows() if (m, s, q, fw, hw) == (model, strategy, seq, framework, hardware))


def test_an_estimate_beside_a_dash_says_what_the_dash_means(assistant):
    assert seed_cards("mixtral-8x7b", "full", 4096, "LLaMA-Factory") is None  # the seed's '-'
    zh = assistant.ask("Mixtral 8x7B 全参微调，Snt9B 要几张卡？").answer
    assert "LLaMA-Factory：**不支持**（“-”）" in zh
    assert "最小卡数表中 LLaMA-Factory 为“-”（不支持）：厂商没有为这个组合给出验证过的配置。以上是本工具按显存做的估算" in zh
    en = assistant.ask("How many Snt9B cards to fully fine-tune Mixtral 8x7B?").answer
    assert "The minimum-card table marks LLaMA-Factory '-' (not supported) for this case" in en
    assert "it does not mean LLaMA-Factory runs this model" in en


def test_an_estimate_below_the_shorter_rows_bound_leads_with_the_bound(assistant):
    # the 8192-token rows bound a 32768-token job from below; the estimate's MindSpeed-LLM layout needs fewer
    bound = seed_cards("llama3.1-70b", "full", 8192, "MindSpeed-LLM", "Snt9B23")
    ans = assistant.ask("Llama-3.1-70B full fine-tuning with MindSpeed-LLM on Snt9B23 at 32k, how many DIE?")
    plan = next(c.result for c in ans.tool_calls if c.name == "plan_training" and "devices" in c.result)
    assert plan["framework"] == "MindSpeed-LLM" and plan["devices"] < bound  # the case this wording is for
    lead = lead_line(ans)
    assert lead.startswith(f"**Answer:** at least MindSpeed-LLM {bound} DIE")
    assert f"The estimate (**{plan['devices']} DIE**" in lead and "below that bound" in lead


def test_an_estimate_at_the_bound_keeps_the_estimate_first(assistant):
    bound = seed_cards("qwen2.5-7b", "full", 8192, "MindSpeed-LLM")
    ans = assistant.ask("qwen2.5-7b 全参 32k 需要几张 910B")
    plans = [c.result for c in ans.tool_calls if c.name == "plan_training" and c.result.get("fits")]
    assert plans and all(p["devices"] >= bound for p in plans if p["framework"] == "MindSpeed-LLM")
    assert lead_line(ans).startswith("**结论**：估算：")


def test_snt9b23_slower_setting_is_per_die(assistant):
    ans = assistant.ask("在 Snt9B23 上全参微调 GLM-4-9B，需要几个节点？")
    slower = next(line for line in ans.answer.splitlines() if line.strip().startswith("更少的卡（更慢）"))
    assert "DIE" in slower and "每 DIE 约" in slower and "每卡约" not in slower


def calls_of(ans, tool):
    return [c for c in ans.tool_calls if c.name == tool]


@pytest.mark.parametrize("q,model,hardware", [
    ("用 vLLM 部署 DeepSeek-V2-Lite，L4 需要几张？最大上下文多少？", "deepseek-v2-lite", "l4-24g"),
    ("How many L40S to serve Qwen2.5-32B with vLLM, and what max context?", "qwen2.5-32b", "l40s-48g"),
])
def test_how_many_cards_and_what_max_context_searches_on_the_count_needed(assistant, q, model, hardware):
    ans = assistant.ask(q)
    (need,) = calls_of(ans, "estimate_inference")
    (fits,) = calls_of(ans, "what_fits")
    assert need.args["model"] == model and "max_devices" not in need.args
    # the longest context is searched on the devices the estimate needs, not on one device by default
    assert (fits.args["devices"], fits.args["hardware"]) == (need.result["devices"], hardware)
    assert fits.result["value"] and f"{fits.result['value']:,}" in lead_line(ans)


def test_longest_training_context_on_ascend_searches_both_frameworks_longest_first(assistant):
    ans = assistant.ask("what max context can I LoRA fine-tune qwen2.5-7b on 8 910B?")
    found = {c.args.get("framework", "LLaMA-Factory"): c.result["value"] for c in calls_of(ans, "what_fits")}
    assert set(found) == {"LLaMA-Factory", "MindSpeed-LLM"}
    best = max(found, key=lambda fw: found[fw])
    lead = lead_line(ans)
    assert f"{found[best]:,}" in lead and f"with {best}" in lead


def test_a_named_framework_searches_only_that_one(assistant):
    ans = assistant.ask("what max context can I LoRA fine-tune qwen2.5-7b on 8 910B with LLaMA-Factory?")
    assert [c.args.get("framework") for c in calls_of(ans, "what_fits")] == ["LLaMA-Factory"]


@pytest.mark.parametrize("q,model,hardware,method,seq_len,lang", [
    ("Phi-3-medium QLoRA on a T4, what micro batch can I use at 2048 tokens?", "phi3-medium", "t4-16g", "qlora", 2048, "en"),
    ("qwen2.5-7b LoRA 单张 910B，序列 4096，batch size 最大能开多大？", "qwen2.5-7b", "snt9b", "lora", 4096, "zh"),
])
def test_what_micro_batch_can_i_use_searches_the_biggest_batch(assistant, call, q, model, hardware, method, seq_len, lang):
    ans = assistant.ask(q)
    (fits,) = calls_of(ans, "what_fits")
    assert (fits.args["goal"], fits.args["model"], fits.args["hardware"], fits.args["method"], fits.args["seq_len"]) == \
        ("batch", model, hardware, method, seq_len)
    n = fits.result["value"]
    # the bound is real: one more sequence per device does not fit on the user's one device
    more = call("plan_training", model=model, method=method, seq_len=seq_len, hardware=hardware, max_devices=1, micro_batch=n + 1)
    assert not (more.get("fits") and more.get("devices", 2) <= 1)
    lead = lead_line(ans)
    assert (f"micro batch **{n}** per device" in lead) if lang == "en" else (f"每卡 micro batch 最大 **{n}**" in lead)


def test_a_given_batch_is_not_a_max_batch_question(assistant):
    ans = assistant.ask("qwen2.5-7b LoRA on one 910B with batch size 4, will the largest batch fit?")
    assert not calls_of(ans, "what_fits")


def test_no_row_for_the_model_points_at_the_row_of_its_same_architecture_twin(assistant):
    # seeds: no min-card row for llama3-70b; llama3.1-70b (same layers, hidden, heads, vocabulary) full 4096 on Snt9B
    assert not [r for r in min_cards_rows() if r[0] == "llama3-70b"]
    lf, ms = seed_cards("llama3.1-70b", "full", 4096, "LLaMA-Factory"), seed_cards("llama3.1-70b", "full", 4096, "MindSpeed-LLM")
    ans = assistant.ask("How many Snt9B cards to fully fine-tune Llama-3-70B?")
    twin = [c for c in calls_of(ans, "min_cards") if c.args["model"] == "llama3.1-70b"]
    assert twin and twin[0].args["strategy"] == "full"
    lines = ans.answer.splitlines()
    i = next(i for i, x in enumerate(lines) if "no row for llama3-70b" in x)
    assert lines[i + 1].strip().startswith("llama3.1-70b has the same architecture")
    assert f"LLaMA-Factory: **{lf} cards**" in lines[i + 1] and f"MindSpeed-LLM: **{ms} cards**" in lines[i + 1]
    assert f"**{ms} cards**" not in lead_line(ans)  # the twin's row supports the answer; it is not the model's own row



def test_the_twins_full_and_lora_rows_each_say_which_they_are(assistant):
    # no strategy named: the twin's full and LoRA rows stand side by side, so each names its strategy (seeds/004,
    # llama3.1-8b at 4096 on Snt9B: full LLaMA-Factory 8, LoRA LLaMA-Factory 1, MindSpeed-LLM 4 for both)
    full, lora = seed_cards("llama3.1-8b", "full", 4096, "LLaMA-Factory"), seed_cards("llama3.1-8b", "lora", 4096, "LLaMA-Factory")
    ans = assistant.ask("llama3-8b 4k 在 snt9b 上最少几张卡")
    line = next(x for x in ans.answer.splitlines() if "llama3.1-8b 与它结构完全相同" in x)
    assert f"全参 LLaMA-Factory：**{full} 张卡**" in line and f"LoRA LLaMA-Factory：**{lora} 张卡**" in line

@pytest.mark.parametrize("q,lang", [
    ("Which is cheaper for LoRA on Qwen2.5-72B: 910B or H100?", "en"),
    ("训练 qwen2.5-7b 一小时多少钱？", "zh"),
])
def test_a_price_question_says_first_that_no_price_is_known(assistant, q, lang):
    first = assistant.ask(q).answer.splitlines()[0]
    assert first.startswith("Prices are in none of the vendor tables" if lang == "en" else "厂商表格和目录中都没有价格")


def test_a_price_question_with_nothing_sized_gets_only_the_not_covered_answer(assistant):
    ans = assistant.ask("How much does a Snt9B node cost per hour on Huawei Cloud?")
    assert "Prices are in none" not in ans.answer and "do not cover" in ans.answer


def test_what_fits_says_the_one_device_and_the_guessed_part_it_assumed(assistant):
    ans = assistant.ask("DeepSeek-V2-Lite 在 Snt9B 上 LoRA 最长能跑多长的序列？")
    assert {c.args["devices"] for c in calls_of(ans, "what_fits")} == {1}
    assert "按 1 张卡计算（问题中没有给出卡数）" in ans.answer
    guessed = assistant.ask("一张 24GB 的卡能 LoRA 微调多大的模型？")
    (fits,) = calls_of(guessed, "what_fits")
    assert fits.args["hardware"] == "rtx4090-24g" and "RTX 4090 24GB 代表问题中的 24 GB 卡" in guessed.answer  # the part as users name it
    assert "问题中没有给出卡数" not in guessed.answer  # "一张" gave the count


def test_which_stage_with_offload_on_fewer_cards_is_said_once_and_answers_the_offload_part(assistant):
    from tests.offline.dialog import converse

    *_, ans = converse(assistant, "How many Snt9B cards to fully fine-tune Qwen2.5-7B?",
                       "and if I only have 4 cards, which ZeRO stage with offload?")
    plan = next(c.result for c in ans.tool_calls if c.name == "plan_training" and c.args.get("max_devices") == 4)
    lead = lead_line(ans)
    stage = f"ZeRO-{plan['zero_stage']}" + (" + offload" if plan["offload"] else "")
    assert stage in lead and ("CPU offload is needed" if plan["offload"] else "no CPU offload needed") in lead
    bullet = next(x for x in ans.answer.splitlines() if x.startswith("- **ZeRO stage**"))
    assert f"**{stage}**" in bullet and "on 4 cards" in bullet  # the same setting as the headline, on the user's 4


@pytest.mark.parametrize("q,said", [
    ("MI300X 上 vLLM 跑 Llama-3.1-405B 需要几张卡？", "（默认：max-model-len 4096）"),
    ("How many H100 to serve Mixtral-8x7B with 32 concurrent users?", "(assumed: max-model-len 4096)"),
])
def test_serving_without_a_length_says_the_max_model_len_it_assumed(assistant, q, said):
    ans = assistant.ask(q)
    assert {c.args["max_model_len"] for c in calls_of(ans, "estimate_inference")} == {4096}
    assert said in ans.answer.splitlines()[0]


def test_serving_with_a_length_assumes_none(assistant):
    ans = assistant.ask("How many H100 to serve Mixtral-8x7B at 32k context?")
    assert "max-model-len 4096" not in ans.answer.splitlines()[0]
