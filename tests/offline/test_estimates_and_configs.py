"""Estimates and config checks that must not contradict the vendor or misjudge the user's config (fresh round 9,
classes 5-7). Vendor figures come from the hand-typed seeds (tests/golden: 000 recipe table, 004 minimum-card table)
through tests/seedfiles.py; the rest are hand computations written out beside each assertion."""

from __future__ import annotations

from tests.offline.dialog import lead_line as lead
from tests.seedfiles import min_cards_rows, recipe_rows


def recipe(model: str, strategy: str, cutoff: int):
    """(ga, zero_stage, offload, nodes, per_node) of 000's row."""
    row = next(r for r in recipe_rows() if r[0] == model and r[2] == strategy and r[3] == cutoff)
    return row[4:]


def die_row(model: str, strategy: str, seq: int) -> int | None:
    """004's LLaMA-Factory Snt9B23 cell (DIE)."""
    return next(c for m, s, q, fw, hw, c in min_cards_rows()
                if (m, s, q, fw, hw) == (model, strategy, seq, "LLaMA-Factory", "Snt9B23"))


# -- class 5: the recipe table is read on Snt9B23 (its N*Ascend is N DIE there) ----------------------------------

def test_the_recipe_rows_zero_stage_answers_on_snt9b23(assistant):
    # 000: Qwen2_vl 7B lora 8192 -> ZeRO-1, GA 8, 1x1; 004: qwen2vl-7b lora LF Snt9B23 = 2 DIE (2 DIE is the smallest unit)
    ga, stage, offload, _, _ = recipe("Qwen2_vl 7B", "lora", 8192)
    dies = die_row("qwen2vl-7b", "lora", 8192)
    ans = assistant.ask("Qwen2-VL-7B LoRA at 8192 tokens on Snt9B23 with LLaMA-Factory - which deepspeed stage and GA?")
    first = lead(ans)
    assert (stage, ga, offload, dies) == (1, 8, False, 2)
    assert f"**{dies} DIE**" in first and f"ZeRO-{stage}" in first and f"gradient accumulation {ga}" in first
    assert "recipe table has no row" not in ans.answer and "(estimate" not in first


def test_the_recipe_row_backs_a_stage_the_user_runs_on_snt9b23(assistant):
    # 000: GLM4 9B lora 4096/8192 -> ZeRO-2, GA 8; round 9 c2-08 said "the recipe table has no row" and suggested ZeRO-0
    ga, stage, _, _, _ = recipe("GLM4 9B", "lora", 8192)
    ans = assistant.ask("glm4-9b lora 8192，Snt9B23 上只给了 2 个 DIE，ZeRO-2，per_device 1，能跑吗")
    assert "配方表中没有这个组合" not in ans.answer
    assert f"DeepSpeed **ZeRO-{stage}**" in ans.answer and f"gradient_accumulation_steps **{ga}**" in ans.answer
    assert "在 Snt9B23 上每张按 1 DIE" in ans.answer  # the recipe's cards read as DIE, said once
    # the user's ZeRO-2 is the recipe's: its 1*Ascend read as DIE, with 004's Snt9B23 floor beside it
    _, _, _, nodes, per_node = recipe("GLM4 9B", "lora", 8192)
    dies = die_row("glm4-9b", "lora", 8192)
    assert lead(ans).startswith(f"**结论**：**能跑：厂商就是用 ZeRO-{stage}、{nodes * per_node} DIE（按 DIE 计；Snt9B23 上至少 "
                                f"{dies} DIE")


# -- class 7: where the vendor ran the job with the named setting, its row settles the verdict ------------------

def test_the_vendors_run_of_the_named_setting_leads_the_verdict(assistant):
    # 000: Yi 34B full 4096 -> ZeRO-3 (no offload), GA 8, 2 nodes x 8 = 16 cards: the user's exact setup (round 9 c2-13)
    ga, stage, offload, nodes, per_node = recipe("Yi 34B", "full", 4096)
    ans = assistant.ask("yi-34b 全参 4096，2 台 Snt9B (16 卡)，zero3，能跑吗")
    first = lead(ans)
    assert (stage, offload, nodes * per_node) == (3, False, 16)
    assert first.startswith(f"**结论**：**能跑：厂商就是用 ZeRO-{stage}、{nodes * per_node} 张卡") and f"梯度累积 {ga}" in first
    assert "可能显存不足" not in ans.answer.split("\n- ", 1)[0]  # the estimate's range is said under it, not as a second no
    # 000: llama2 13B full 4096/8192 -> ZeRO-3 on 1x8
    stage13 = recipe("llama2 13B", "full", 8192)[1]
    en = lead(assistant.ask("llama2-13b full finetune at 8192 on one 8-card 910B node with ZeRO-3 - will it fit?"))
    assert en.startswith(f"**Answer:** **Yes: the vendor runs this job with ZeRO-{stage13} on 8 cards**")


def test_a_setting_the_recipe_does_not_run_keeps_the_estimates_verdict(assistant):
    # 000: Yi 34B full 4096 is ZeRO-3; ZeRO-2 on the same 16 cards is not the vendor's run, so no "yes" from the table
    first = lead(assistant.ask("yi-34b 全参 4096，2 台 Snt9B (16 卡)，zero2，能跑吗"))
    assert "厂商就是用" not in first


# -- class 6: a pasted config read as written -------------------------------------------------------------------

DS_Z2_AUTO = ('{"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto", '
              '"bf16": {"enabled": "auto"}, "zero_optimization": {"stage": 2, "overlap_comm": false, "contiguous_gradients": true}}')


def test_an_all_auto_deepspeed_json_is_not_judged_on_an_invented_micro_batch(assistant):
    # round 9 c6-02: "auto" is filled by the trainer from arguments not pasted; Hugging Face's per_device 8 was taken and
    # the valid JSON judged "does not fit". The recipe tables' micro batch 1 (000: every row, per_device 1) is taken and said.
    ans = assistant.ask(f"qwen1.5-7b 全参，8 张 Snt9B，这个 ds 配置行不行？\n{DS_Z2_AUTO}")
    (call,) = [c for c in ans.tool_calls if c.name == "check_setup"]
    assumed = {a["name"]: (a["value"], a["why"]) for a in call.result["assumed"]}
    assert assumed["micro_batch"] == (1, "trainer_fills") and assumed["grad_accum"] == (8, "trainer_fills")
    assert not ans.answer.startswith("**放不下")
    assert "micro_batch 1（由训练参数决定，未贴出" in ans.answer


def test_an_offload_the_recipe_does_not_use_is_named_as_the_difference(assistant):
    # 000: llama3 8B full 4096 -> ZeRO-2 without offload on 1x8; the JSON offloads the optimizer
    js = ('{"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 2, '
          '"offload_optimizer": {"device": "cpu", "pin_memory": true}}}')
    a = assistant.ask(f"llama3-8b full SFT on 8x 910B (4096 tokens). Is this deepspeed json ok?\n{js}").answer
    assert "you use ZeRO-2 + offload; the recipe uses ZeRO-2" in a


def test_an_invalid_llamafactory_stage_is_said_in_the_questions_language(assistant):
    # round 9 c6-05: "estimate_training_memory: stage: Input should be ..." reached a Chinese question in English
    a = assistant.ask("帮我看下这个 yaml：\nmodel_name_or_path: /data/Qwen2.5-7B-Instruct\nstage: grpo\nfinetuning_type: lora\n"
                      "cutoff_len: 4096\nper_device_train_batch_size: 1").answer
    assert a.startswith("**`stage: grpo` 不是 LLaMA-Factory 的训练阶段**：只接受 pt | sft | rm | ppo | dpo | kto")
    assert "Input should be" not in a
    orpo = assistant.ask("model_name_or_path: Qwen/Qwen2.5-7B\nstage: orpo\nfinetuning_type: lora\ncutoff_len: 2048\n"
                         "is this yaml right?").answer
    assert "stage: dpo\npref_loss: orpo" in orpo  # ORPO is a DPO-stage loss in LLaMA-Factory


def test_cp_1_beyond_32768_tokens_is_said_wrong_first(assistant):
    # research/modelarts.md §7 (modelarts_llm_train_5901042): CP >= 2 when SEQ_LEN > 32768. 16 cards / (TP 8 x PP 1 x CP 2)
    # = DP 1 (round 9 c6-09 switched to CP 2 without saying so)
    a = assistant.ask("MindSpeed llama3.1-8b 全参，SEQ_LEN=65536：\nexport NNODES=2 NPUS_PER_NODE=8 TP=8 PP=1 CP=1 MBS=1 GBS=32 "
                      "SEQ_LEN=65536 MODEL_NAME=llama3.1-8b FINETUNING_TYPE=full\n这样行吗").answer
    assert a.startswith("**`SEQ_LEN=65536` 时 `CP=1` 不对**") and "TP 8 × PP 1 × CP 2 = 每个模型副本 16 张卡" in a
    assert "CP=2" in a.split("```")[1]


def test_a_tp_offered_for_the_heads_fits_a_node_and_the_devices(assistant):
    # qwen2.5-7b: 28 heads. Divisors 1/2/4/7/14/28; of them 1/2/4 split an 8-device node, so TP 8 -> 4, never 14 (c6-08)
    a = assistant.ask("vllm serve /models/Qwen2.5-7B-Instruct --tensor-parallel-size 8 on 8x 910B fails with:\n"
                      "ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8).").answer
    assert "TP must divide 28: TP 1 / 2 / 4." in a and "--tensor-parallel-size 4" in a and "14" not in a.split("Read:")[0]
    # qwen2.5-14b: 40 heads, 4 cards: 1/2/4 (5 and 8 do not fit 4 devices)
    b = assistant.ask("vllm serve Qwen/Qwen2.5-14B-Instruct --tensor-parallel-size 3 on 4x 910B: heads (40) not divisible "
                      "by 3. What should I use?").answer
    assert "TP must divide 40: TP 1 / 2 / 4." in b and "--tensor-parallel-size 4" in b


def test_a_ga_question_on_twelve_cards_is_answered_without_the_card_rule(assistant):
    # GA = 96 / (2 x 12) = 4; the training-time page's "multiple of 8" is about choosing a count, not this (c3-07)
    a = assistant.ask("LLaMA-Factory on 12 cards, per_device_train_batch_size 2, I want a global batch of 96 — what GA?").answer
    assert a.startswith("**Gradient accumulation 4**") and "multiple of 8" not in a
    zh = assistant.ask("Snt9B 10 张卡，per_device_train_batch_size 1，想要 global batch 80，梯度累积设多少").answer
    assert zh.startswith("**梯度累积设为 8**") and "8 的倍数" not in zh  # 80 / (1 x 10) = 8


# -- issue #23: a pool whose cached blocks only fill the free room is not shown as "61.0 of 61.0" ---------------

def test_a_pool_filled_to_the_usable_memory_shows_what_the_job_holds(assistant):
    ans = assistant.ask("yi-34b 全参 4096，2 台 Snt9B (16 卡)，zero3，能跑吗")
    (call,) = [c for c in ans.tool_calls if c.name == "estimate_training_memory"]
    m = call.result
    assert m["cached_gib"] > 0 and abs(m["total_gib"] - m["usable_gib"]) < 0.05  # the cache capped at the free room
    held = m["total_gib"] - m["cached_gib"]
    assert f"每卡约 {held:.1f} GiB" in ans.answer and f"每卡约 {m['total_gib']:.1f} GiB" not in ans.answer
    assert f"另有 {m['cached_gib']:.1f} GiB 缓存块" in ans.answer


def test_a_micro_batch_that_needs_more_devices_gets_micro_batch_1_said_once(assistant):
    # qwen2.5-1.5b full 4096 at micro batch 4: the fp32 loss over 4 x 4096 x 151,936 logits is 4 x 4096 x 151936 x 4 B
    # = 9.3 GiB per copy on every device, which ZeRO does not split; at micro batch 1 it is a quarter. The answer said
    # "8 GPUs with offload" or "32 GPUs" and never the micro batch (fresh question ec-15).
    ans = assistant.ask("4 张 A100 40G 全参 qwen2.5-1.5b，4096，zero2，micro batch 4，行不行")
    one = next(c.result["smaller_micro_batch"] for c in ans.tool_calls if c.name == "plan_training")
    assert one["micro_batch"] == 1 and one["grad_accum"] * one["devices"] == one["global_batch"] and one["devices"] <= 4
    assert ans.answer.count("把 micro batch 从 4 降到 1") == 1
    assert f"梯度累积 {one['grad_accum']}，每步仍是 {one['global_batch']} 条序列" in ans.answer
