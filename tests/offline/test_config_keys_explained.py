"""A config key asked about, bare or pasted, is answered by what it does (helper howto6): the notes hold the DeepSpeed
`zero_optimization` keys (DeepSpeed config-json reference, HF Transformers DeepSpeed guide) and LLaMA-Factory's
`lora_target` / `cutoff_len` (LLaMA-Factory argument definitions). A pasted fragment whose words ask what it means is
explained key by key, not met with "which model?" or "no setup I can read"; the keys' names (`pin_memory`, `device`)
ask no memory figure and no count."""

from __future__ import annotations

import pytest


def lead(text: str) -> str:
    return text.split("\n\n")[0]


@pytest.mark.parametrize("question,words", [
    ("what does `stage3_prefetch_bucket_size` do?", ["`stage3_prefetch_bucket_size`", "fetched ahead"]),
    ("sub_group_size 调小有什么用", ["`sub_group_size`", "主机内存"]),
    ("what does `lora_target: all` mean in the llamafactory yaml?", ["every linear layer", "not the output (LM) head"]),
    ("stage3_gather_16bit_weights_on_model_save 设成 false 会怎样", ["`zero_to_fp32.py`"]),
])
def test_a_key_asked_is_explained_first(assistant, question, words):
    first = lead(assistant.ask(question).answer)
    assert all(w in first for w in words), first


def test_a_pasted_fragment_is_explained_key_by_key(assistant):
    q = ('what does this do in my deepspeed json: "zero_optimization": {"stage": 2, "overlap_comm": true, '
         '"contiguous_gradients": true, "reduce_bucket_size": 5e8}')
    first = lead(assistant.ask(q).answer)
    assert "`overlap_comm`" in first and "`contiguous_gradients`" in first and "`reduce_bucket_size`" in first
    assert "could not check" not in first


def test_a_pasted_json_asking_its_meaning_needs_no_model(assistant):
    q = ('这段 ds 配置是什么意思？\n{"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu", "pin_memory": true}, '
         '"offload_optimizer": {"device": "cpu"}}}')
    text = assistant.ask(q).answer
    assert text.startswith("**结论**") and "`offload_param`" in lead(text) and "`offload_optimizer`" in lead(text)
    assert "哪个模型" not in text and "请给出模型名" not in text


def test_batch_assertion_names_the_identity(assistant):
    q = ("deepspeed 报错: AssertionError: Check batch related parameters. train_batch_size is not equal to "
         "micro_batch_per_gpu * gradient_acc_step * world_size 16 != 2 * 4 * 4")
    text = assistant.ask(q).answer
    # 2 x 4 x 4 = 32 against 16: set 32 or "auto", or GA 16 / (2 x 4) = 2
    assert text.startswith("**结论**：**对不上：2 × 4 × 4 = 32，而 `train_batch_size` 是 16**")
    assert "`\"auto\"`" in text and "梯度累积改成 2（2 × 2 × 4 = 16）" in text


@pytest.mark.parametrize("question,words", [
    # CANN: EI0002 = HCCL notify wait timeout; the named remote rank is the one to read first
    ("EI0002: The wait execution of the Notify register times out. Reason: The Notify register has not received the "
     "Notify record from remote rank [3]. 多机训练卡住然后报这个", ["`EI0002`", "remote rank", "plog"]),
    ("my 4-node job dies with EI0002 Notify Wait Timeout, what do I check?", ["`EI0002`", "first read the log"]),
    ("export HCCL_CONNECT_TIMEOUT=1200 是干什么的", ["`HCCL_CONNECT_TIMEOUT`", "建链"]),
])
def test_hccl_timeouts_are_read(assistant, question, words):
    first = lead(assistant.ask(question).answer)
    assert all(w in first for w in words), first


@pytest.mark.parametrize("question,figure", [
    # HF config: GLM-4-9B 40 layers x 2 KV heads x 128 x 2 (K,V) x 2 B = 40,960 B = 40 KiB
    ("per-token KV bytes of glm4-9b", "40 KiB per token"),
    # Yi-34B 60 x 8 x 128 x 2 x 2 B = 245,760 B = 240 KiB ("how many kv bytes" asks bytes, not a count)
    ("how many kv bytes per token does yi-34b need?", "240 KiB per token"),
    # Mistral-7B-v0.3 32 x 8 x 128 x 2 x 2 B = 131,072 B = 128 KiB
    ("mistral-7b-v0.3 每个 token 的 KV 多大", "每 token 128 KiB"),
])
def test_kv_per_token_with_the_token_said_first(assistant, question, figure):
    first = next(line for line in assistant.ask(question).answer.splitlines() if line.startswith(("**Answer:**", "**结论**")))
    assert figure in first, first
