"""A yes/no on a pasted config with the user's own card count: the vendor's minimum-card table's verdict leads and the
estimate follows (round 22 c6-08); a change the estimate still puts over the usable memory is never called one that
fits (c6-02); a start-up HCCL link timeout leads with the peer that never reached link set-up, not only the timeout
(c6-06). Expected counts are the ModelArts minimum-card table's rows (seeds/004, 2025-06-24)."""

from __future__ import annotations

from assistant.offline import setup_answer

# 004: qwen2.5-32b full SEQ_LEN 4096 on Snt9B, LLaMA-Factory: 32 cards
FULL_32B = """are 8 cards of Snt9B enough for this?
model_name_or_path: /data/Qwen2.5-32B-Instruct
stage: sft
finetuning_type: full
deepspeed: examples/deepspeed/ds_z3_config.json
cutoff_len: 4096
per_device_train_batch_size: 1
gradient_accumulation_steps: 4"""

# 004: qwen2.5-7b lora SEQ_LEN 4096 on Snt9B, LLaMA-Factory: 1 card
LORA_7B = """Qwen2.5-7B on 2 Snt9B cards, would 2 cards do?
stage: sft
finetuning_type: lora
cutoff_len: 4096
per_device_train_batch_size: 1
gradient_accumulation_steps: 8"""


def test_vendor_no_leads_a_yes_no_on_a_pasted_config(assistant):
    a = assistant.ask(FULL_32B).answer
    first = a.split("\n\n")[0]
    assert "vendor's minimum-card table" in first and "32 cards" in first and "you have 8" in first
    assert a.index("Does not fit") > a.index("32 cards")


def test_vendor_yes_leads_a_yes_no_on_a_pasted_config(assistant):
    a = assistant.ask(LORA_7B).answer
    first = a.split("\n\n")[0]
    assert first.startswith("**Enough by the vendor's minimum-card table") and "1 card" in first and "you have 2" in first


def test_a_change_still_over_the_memory_is_not_called_one_that_fits():
    # hand figures: 64.3 GiB needed after the change against 61.0 usable: over by 3.3 GiB
    r = {"verdict": "does_not_fit", "unit": "card", "training": {"devices": 8},
         "change": {"kind": "zero_stage", "total_gib": 64.3, "usable_gib": 61.0, "verdict": "tight", "speed_cost": "more traffic",
                    "settings": {"zero_stage": 3}, "before": {"zero_stage": 2}}}
    out = "\n".join(setup_answer._change(r, "en"))
    assert "Smallest change that fits" not in out and "still over" in out
    assert "仍然超出" in "\n".join(setup_answer._change(r, "zh"))


def test_below_the_table_never_says_it_fits_on_paper_when_the_estimate_is_over(assistant):
    # 004: qwen2.5-14b full SEQ_LEN 8192 on Snt9B, LLaMA-Factory: 16 cards; on 8 with ZeRO-3 the estimate is over 61.0 GiB
    # (hand: states 16 × 14.8e9 B / 8 ≈ 27.6 GiB before activations of 8192 tokens on 48 layers)
    q = ("这套配置 8 卡 910B 够吗？\nmodel_name_or_path: /models/Qwen2.5-14B-Instruct\nstage: sft\nfinetuning_type: full\n"
         "deepspeed: examples/deepspeed/ds_z3_config.json\ncutoff_len: 8192\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 2")
    a = assistant.ask(q).answer
    first = a.split("\n\n")[0]
    assert "16 卡" in first and "8 卡" in first and "不够" in first and "能放下" not in first
