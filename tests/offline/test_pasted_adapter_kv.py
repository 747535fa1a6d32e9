"""Two more kinds of pasted log read as data (helper howto6): PEFT's trainable-parameter line and vLLM's KV-cache
start-up lines. Hand computations:
- Llama-2-7B (HF config: 32 layers, hidden 4096, MHA 32 heads): LoRA on q_proj and v_proj at rank 1 is
  32 × (4096 + 4096 + 4096 + 4096) = 524,288, so 4,194,304 = rank 8; the base is 6,742,609,920 − 4,194,304 =
  6,738,415,616 (the catalog's 6.738B); 4,194,304 / 6,742,609,920 = 0.0622 %.
- Qwen2.5-7B (28 layers, hidden 3584, 28 heads, 4 KV heads of 128, ffn 18944): every linear at rank 1 is
  28 × (7168 + 4096 + 4096 + 7168 + 3 × 22528) = 2,523,136, so 20,185,088 = rank 8 on every linear layer — and also
  rank 64 on q,v (28 × 11,264 = 315,392 per rank): both readings are said.
- vLLM: 2,048 blocks × 128 tokens = 262,144 tokens; 4,096 × 16 = 65,536 (512 CPU blocks × 16 = 8,192 swap tokens);
  "Maximum concurrency for 4096 tokens per request: 42.50x" = 42 full requests, 42.5 × 4,096 = 174,080 tokens."""

from __future__ import annotations

from assistant.offline import pasted_log as pl

PEFT = ("I got this from peft:\ntrainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622\n"
        "is that right for lora on llama2-7b? what does it mean?")
PEFT_ZH = "lora 日志：trainable params: 20,185,088 || all params: 7,635,801,600 || trainable%: 0.2643 qwen2.5-7b 对吗"


def test_peft_line_is_read():
    a = pl.read(PEFT)
    assert isinstance(a, pl.AdapterLine)
    assert (a.trainable, a.total, a.percent) == (4_194_304, 6_742_609_920, 0.0622)
    assert round(a.share, 4) == 0.0622


def test_peft_line_of_a_named_model_finds_the_rank(assistant):
    text = assistant.ask(PEFT).answer
    first = text.splitlines()[0]
    assert "4,194,304" in first and "0.0622%" in first
    assert "rank 8 on q_proj and v_proj" in text and "8 × 524,288" in text
    assert "6,738,415,616" in text  # the frozen base


def test_peft_line_with_two_readings_says_both(assistant):
    text = assistant.ask(PEFT_ZH).answer
    assert text.startswith("**结论**")
    assert "rank 8、目标为全部线性层" in text and "8 × 2,523,136" in text
    assert "rank 64" in text and "64 × 315,392" in text


def test_kv_blocks_times_block_size(assistant):
    text = assistant.ask("vllm 服务起来日志里有 `# NPU blocks: 2048`，block size 128，这能放下多少 token 的 KV？").answer
    assert text.startswith("**结论**") and "262,144" in text and "2,048" in text


def test_gpu_and_cpu_blocks(assistant):
    text = assistant.ask("# GPU blocks: 4096, # CPU blocks: 512 — how many tokens can vllm cache? block_size 16").answer
    assert text.splitlines()[0].startswith("**Answer:** **The KV cache holds 65,536 tokens**")
    assert "8,192" in text and "swap" in text


def test_maximum_concurrency_is_explained(assistant):
    text = assistant.ask("vLLM log says: Maximum concurrency for 4096 tokens per request: 42.50x — what does that mean "
                         "for my qwen2.5-7b service?").answer
    assert text.startswith("**Answer:** **Maximum concurrency 42.5x**")
    assert "42 full-length requests" in text and "174,080" in text


def test_blocks_without_block_size_ask_for_it():
    k = pl.read("my log: # NPU blocks: 1500 — is that a lot?")
    assert isinstance(k, pl.KvBlocks) and k.tokens is None
    assert "block size" in pl.render(k, "en")
