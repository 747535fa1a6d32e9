"""Conversations (fresh 2026-12-08 conv19): a follow-up keeps the thread. A bare size in a follow-up is the thread's
family at that size, a MoE model by its total size too ("换成 235b 那个呢" after qwen3-30b-a3b is qwen3-235b-a22b); a
method ruled out in the follow-up ("不全参了，改 lora") is the one the job changes from; a troubleshooting follow-up
that reports what a step's check found ("found a leftover python on NPU 3 eating 50GB, now what") stays on the topic
and leads with that step's fix, one that says a step was done leads with the next; a negated filter ("does NOT
support", "跑不了") lists the '-' rows. Counts pinned to the hand-typed seed of the minimum-card table (tests/golden)
and to the vendor's vLLM table (Qwen3-235B-A22B: 16 cards, 64K, 64 GB cards at 0.95, page modelarts_llm_infer_5910003)."""

from __future__ import annotations

from tests.seedfiles import min_cards_rows

from .dialog import converse, lead


def seed_cards(model, strategy, seq, framework, hardware="Snt9B"):
    return next(c for m, s, q, fw, hw, c in min_cards_rows() if (m, s, q, fw, hw) == (model, strategy, seq, framework, hardware))


def unsupported(framework, hardware="Snt9B"):
    """The seed's models whose every row of ``framework`` is '-'."""
    rows = [(m, c) for m, _s, _q, fw, hw, c in min_cards_rows() if fw == framework and hw == hardware]
    return {m for m, _ in rows if all(c is None for mm, c in rows if mm == m)}


def test_a_size_in_a_follow_up_is_the_threads_moe_model_at_that_total_size(assistant):
    _, served = converse(assistant, "qwen3-30b-a3b 用 vllm 部署要几张卡", "换成 235b 那个呢")
    assert "qwen3-235b-a22b" in served.answer.split("\n", 1)[0], served.answer
    assert "**16 张卡**" in lead(served) and "65536" in lead(served), served.answer  # vendor vLLM table: 16 cards / 64K
    _, trained = converse(assistant, "how many cards for lora on qwen3-30b-a3b at 4096?", "and the 235b one, same settings?")
    ms = seed_cards("qwen3_moe-235B_A22B", "lora", 4096, "MindSpeed-LLM")
    lf = seed_cards("qwen3_moe-235B_A22B", "lora", 4096, "LLaMA-Factory")
    assert (ms, lf) == (128, 256)
    assert f"**{lf} cards**" in lead(trained) and f"**{ms} cards**" in lead(trained), trained.answer


def test_the_names_reader_gives_a_moe_model_by_its_family_and_total_size(parse):
    names = parse.__self__.names
    assert names.sibling("qwen3-30b-a3b", 235) == "qwen3-235b-a22b"
    assert names.sibling("qwen3-235b-a22b", 30) == "qwen3-30b-a3b"
    assert names.member("qwen3", 235) == "qwen3-235b-a22b"
    assert names.sibling("qwen2.5-7b", 14) == "qwen2.5-14b"  # a dense sibling as before
    # a family and a size written apart with a variant word after the size ("qwen3 的 235b moe")
    assert parse("qwen3 的 235b moe 全参 4096 要多少卡").model == "qwen3-235b-a22b"


def test_a_method_ruled_out_by_a_bare_negation_is_the_one_changed_from(assistant):
    _, lora = converse(assistant, "qwen2.5-72b 全参 4096 最少几张卡", "不全量了，lora 的话呢")
    ms, lf = seed_cards("qwen2.5-72b", "lora", 4096, "MindSpeed-LLM"), seed_cards("qwen2.5-72b", "lora", 4096, "LLaMA-Factory")
    assert "LoRA" in lora.answer.split("\n", 1)[0], lora.answer
    assert f"**{lf} 张卡**" in lead(lora) and f"**{ms} 张卡**" in lead(lora), lora.answer
    _, full = converse(assistant, "qwen2.5 32b lora 8192 两台 snt9b 够吗", "不 lora 了，全参呢，还是两台")
    assert "全参" in full.answer.split("\n", 1)[0], full.answer
    assert seed_cards("qwen2.5-32b", "full", 8192, "LLaMA-Factory") == 32
    assert "32 张卡，不够" in lead(full), full.answer


def test_a_negated_filter_lists_the_unsupported_models(assistant):
    lf = unsupported("LLaMA-Factory")
    assert lf == {"qwen2-1.5b", "mixtral-8x7b", "DeepSeek-V3/R1"}
    for q in ("which models does LLaMA-Factory not support in the minimum card table?",
              "list the models llamafactory cannot run according to the min card table",
              "in the minimum-card table, what models are there that llama-factory doesn't have a card count for?"):
        ans = assistant.ask(q, [])
        assert "**3 models**" in ans.answer and "not supported" in ans.answer, ans.answer
        assert "mixtral-8x7b" in ans.answer and "llama3.1-8b" not in ans.answer, ans.answer
    ms = unsupported("MindSpeed-LLM")
    assert len(ms) == 9
    for q in ("list every model the min card table says MindSpeed-LLM does NOT support", "最小卡数表里哪些模型 mindspeed 跑不了"):
        ans = assistant.ask(q, [])
        assert "9" in lead(ans) and "gemma3-27b" in ans.answer and "llama3.1-8b" not in ans.answer, ans.answer


def test_a_troubleshooting_follow_up_stays_on_the_topic(assistant):
    oom = "MindSpeed training OOM on ModelArts, what should I check first?"
    _, found = converse(assistant, oom, "found a leftover python on NPU 3 eating 50GB, now what")
    assert "Step 1 of 5" in found.answer.split("\n", 1)[0] and "kill" in found.answer.split("\n", 1)[0], found.answer
    assert "JupyterLab" not in found.answer, found.answer  # "50GB" is no upload question
    _, after = converse(assistant, "llamafactory OOM on 910B, what do I try?", "set expandable_segments already and it's still OOM, now what")
    assert "Step 2 of 4" in after.answer.split("\n", 1)[0] and "per_device_train_batch_size" in after.answer.split("\n", 1)[0], after.answer
    _, zh = converse(assistant, "训练时 OOM 了，mindspeed 的，先查啥", "npu-smi 看到有个残留进程占了 40G，接下来呢")
    assert "第 1 步" in zh.answer.split("\n", 1)[0] and "杀掉残留进程" in zh.answer.split("\n", 1)[0], zh.answer
