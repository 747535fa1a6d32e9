"""Every answer is in the question's language: a corpus over every route (sizing, serving, tables, notes and how-to,
hardware facts, config checks, pastes, errors, bad input, follow-ups), in Chinese and in English, with Chinese
questions around English terms and pastes and English questions around Chinese messages, run through the offline
planner and read by the ``other_language`` checker (code, identifiers, citations, glossed labels and quoted messages
keep their own language).

The corpus is generated from templates (``corpus``): a phrasing not written here still goes through the same
writers, so a slip is found at its source (a phrase with one language, an English-only remark, a note quoted in
the other language), not per question."""

from __future__ import annotations

import itertools

import pytest

from assistant.agent import Assistant
from assistant.answer import ChatTurn
from assistant.offline.other_language import english_runs, other_language
from assistant.offline.parse import language_is_weak
from assistant.setup_check.notices import notice
from assistant.wordings import REGISTERED, in_language

MODELS = ["qwen2.5-7b", "llama3.1-70b", "qwen2.5-72b", "glm4-9b", "qwen3-32b"]
PARTS = ["910B", "Snt9B23", "H100", "4090"]
# (route, English template, Chinese template): {m} model, {p} part, {n} count, {s} length
TEMPLATES = [
    ("sizing", "how many cards to LoRA fine-tune {m} at {s} tokens on {p}?", "{m} LoRA 微调 {s} 长度，在 {p} 上要几张卡？"),
    ("sizing", "{m} full fine-tuning {s}, I have {n} {p} cards, enough?", "{m} 全参微调 {s}，我有 {n} 张 {p}，够吗"),
    ("zero", "which ZeRO stage and gradient accumulation for {m} lora {s} on {n} {p}?", "{m} lora {s} 用 {n} 张 {p}，ZeRO 选几，梯度累积多少"),
    ("serving", "how many {p} to serve {m} with vLLM at max-model-len {s}?", "vLLM 部署 {m}，max-model-len {s}，需要几张 {p}"),
    ("memory", "memory per card for {m} full ZeRO-3 on {n} {p}?", "{m} 全参 ZeRO-3 {n} 张 {p}，每卡显存多少"),
    ("time", "how long to train {m} on 1B tokens with {n} {p} cards at 1500 tokens/s per card?",
     "{m} 训练 10亿 token，{n} 张 {p}，每卡 1500 tokens/s，要多久"),
    ("config", "give me the LLaMA-Factory yaml for {m} lora {s}", "给我 {m} lora {s} 的 LLaMA-Factory yaml"),
    ("table", "what does the min-card table say for {m} full {s}?", "最小卡数表里 {m} 全参 {s} 是多少卡"),
    ("hardware", "how much memory does one {p} have and how many per node?", "{p} 每张卡多少显存，每台几张"),
    ("mixed", "{m} 的 lora 微调 on {n} {p}, cutoff {s}, which zero stage?", "{m} lora {s} on {n} cards {p}，ZeRO 用哪个"),
]
KNOWLEDGE = [
    ("en", "difference between bf16 and fp16 for training on Ascend?"), ("zh", "昇腾上训练用 bf16 还是 fp16"),
    ("en", "what do GBS and MBS mean?"), ("zh", "GBS 和 MBS 是什么意思"),
    ("en", "checkpoint save times out on a multi-node job, what now?"), ("zh", "多机训练保存权重超时怎么办"),
    ("en", "training pod stuck in Pending, what to check?"), ("zh", "训练作业 Pod 一直 Pending 怎么排查"),
    ("en", "how do I upload a 20 GB dataset to JupyterLab?"), ("zh", "怎么把 20GB 的数据上传到 JupyterLab"),
    ("en", "how do I benchmark my vLLM service?"), ("zh", "vLLM 服务怎么做性能压测"),
    ("en", "how do I call my online service from the internet?"), ("zh", "在线服务怎么通过公网调用"),
    ("en", "NPU out of memory with LLaMA-Factory, what are the vendor's fixes?"), ("zh", "LLaMA-Factory 训练 NPU 显存溢出怎么办"),
    ("en", "ZeRO-2 vs ZeRO-3, which is faster?"), ("zh", "ZeRO-2 和 ZeRO-3 哪个快"),
    ("en", "does NPU_Flash_Attn support head_dim 576?"), ("zh", "head_dim 576 能用 NPU_Flash_Attn 吗"),
    ("en", "is a 910B 32 GB or 64 GB?"), ("zh", "910B 是 32G 还是 64G"),
    ("en", "does a Snt9B23 node have 16 DIE?"), ("zh", "Snt9B23 一台是 16 个 DIE 吗"),
    ("en", "what is the capital of France?"), ("zh", "今天天气怎么样"),
    ("en", "gpt-99-ultra fine-tuning, how many cards?"), ("zh", "gpt-99-ultra 微调要几张卡"),
    ("en", "asdf qwer ???"), ("zh", "？？？"),
    ("en", "qwen2.5-7b lora on 1e6 nodes?"), ("zh", "qwen2.5-7b lora 用 0.5 个节点"),
    # GPU parts compared and described (hardware.csv interconnect_zh / notes_zh)
    ("zh", "H800 和 H100 有什么区别"), ("zh", "A800 跟 A100 差在哪"), ("zh", "V100 16G 和 32G 啥区别"), ("zh", "H20 对比 H100"),
    ("zh", "4090 有没有 nvlink，多卡怎么通信"), ("zh", "3090 两张能桥接吗"), ("zh", "L40S 和 A6000 互联有什么不同"),
    ("zh", "MI300X 显存多少，卡间怎么互联"), ("zh", "B200 每卡多大显存"), ("zh", "910A 和 910B 的区别"),
    ("en", "H800 vs H100, what's different?"),
    # bad input the tools refuse (tools/error_messages.py)
    ("zh", "一个 13B 模型，32 个头 kv heads 5，lora 4096 每卡显存"), ("zh", "qwen2.5-7b lora 4096 micro batch 10000 8卡 910B 显存多少"),
    ("en", "a 13B model with 32 heads and 5 kv heads, lora 4096, memory per card?"),
    # the vLLM tables by version
    ("zh", "chatglm3-6b 推理 32G 卡几张，这个表是什么版本"), ("zh", "老的 vllm 表 baichuan2-7b 64G 能跑多长"),
    ("zh", "vllm-older-fragment 是哪个 vLLM 版本的表"), ("zh", "yi-6b 在 32GB 的卡上 vllm 能到多长"),
]
DS_OFFLOAD = ('{"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "none"}}, '
              '"bf16": {"enabled": "auto"}}')
YAML = ("model_name_or_path: /data/Qwen2.5-7B-Instruct\nstage: sft\nfinetuning_type: lora\n"
        "deepspeed: examples/deepspeed/ds_z2_config.json\ncutoff_len: 4096\nper_device_train_batch_size: 2\n"
        "gradient_accumulation_steps: 8")
OOM = ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 3; 60.97 GiB total capacity; 58.10 GiB already "
       "allocated; 0 bytes free)")
PASTES = [
    ("zh", f"这个 ds 配置是 zero 几？参数有没有卸载？\n{DS_OFFLOAD}"), ("en", f"is the param offload on in this ds config?\n{DS_OFFLOAD}"),
    ("zh", f"这个 ds json 卸载的是什么 {DS_OFFLOAD}"),
    ("zh", f"8 张 910B 跑这个 yaml 够吗\n{YAML}"), ("en", f"check my yaml for 8 910B:\n{YAML}"),
    ("zh", f"yaml 里的 deepspeed 文件没贴，能判断吗\n{YAML.replace('examples/deepspeed/ds_z2_config.json', '/data/my_ds.json')}"),
    ("zh", f"llamafactory qwen2.5-14b full 4096 8 卡报错了怎么办\n{OOM}"), ("en", f"qwen2.5-14b full 4096 on 8 cards, fix?\n{OOM}"),
    ("en", "the pod event says 实例调度失败, what do I do?"), ("en", "log shows 保存权重超时 on node 2, why?"),
    ("zh", "MindSpeed 这么配对吗\nexport NNODES=2\nexport TP=8\nexport PP=4\nexport MODEL_NAME=llama3.1-70b\nexport SEQ_LEN=4096"),
    ("zh", "vllm serve /data/Qwen2.5-7B-Instruct --max-model-len 262144 单卡910B能起来吗"),
    ("en", "vllm serve /data/Qwen2.5-7B-Instruct --max-model-len 262144 on one 910B, will it start?"),
]
FOLLOW_UPS = [
    ("en", "and on 16 cards?", "llama3.1-70b lora 8k 需要几张卡"),
    ("zh", "那 32k 呢", "how many cards for qwen2.5-7b full 4096?"),
    ("zh", "换成 H100 呢", "qwen2.5-72b lora 4096 on 910B, how many cards?"),
    ("en", "what about full fine-tuning?", "qwen2.5-7b lora 4096 要几张卡"),
    ("zh", "用英文再说一遍", "qwen2.5-7b lora 4096 要几张卡"),
]


def corpus() -> list[tuple[str, str, str | None]]:
    """(language, question, earlier question or None): every template in both languages over a spread of values."""
    out: list[tuple[str, str, str | None]] = []
    values = itertools.cycle(itertools.product(MODELS, PARTS, (8, 16), (4096, "8k", 32768)))
    for (_, en, zh), _round in itertools.product(TEMPLATES, range(4)):
        m, p, n, s = next(values)
        out += [("en", en.format(m=m, p=p, n=n, s=s), None), ("zh", zh.format(m=m, p=p, n=n, s=s), None)]
    out += [(lang, q, None) for lang, q in KNOWLEDGE + PASTES]
    # a turn asking for the other language ("用英文再说一遍") is answered in the language asked
    out += [("en" if "英文" in q else lang, q, first) for lang, q, first in FOLLOW_UPS]
    return out


CORPUS = corpus()


@pytest.fixture(scope="module")
def answers(ctx):
    a = Assistant(ctx)
    out = {}
    for lang, q, first in CORPUS:
        history = None
        if first:
            history = [{"role": "user", "content": first}, {"role": "assistant", "content": a.ask(first).answer}]
        out[(q, first)] = (lang, a.ask(q, history).answer, " ".join(filter(None, (q, first))))
    return out


def test_corpus_covers_both_languages_and_routes():
    assert len(CORPUS) >= 100
    assert {lang for lang, _, _ in CORPUS} == {"en", "zh"}


def test_every_answer_is_in_the_question_language(answers):
    slips = {q: s for (q, _), (lang, answer, asked) in answers.items() if (s := other_language(answer, asked, lang))}
    assert not slips, slips


def test_the_checker_finds_the_slips_it_is_for():
    # round 18 c6-02: an English remark inside a Chinese answer
    assert english_runs("DeepSpeed JSON offloads only the optimizer; the estimate sizes DeepSpeed's offload of optimizer "
                        "states and (on ZeRO-3) parameters together.")
    # round 18 c7-08#1: a Chinese answer to an English question
    assert other_language("训练作业 Pod 一直 Pending：先用 kubectl describe pod 查看事件。", "pods Pending, event 实例调度失败", "en")
    # round 18 c5-02: a catalog remark quoted in English, not labelled as the English original
    assert other_language("**对**，每张卡 32 GB（目录备注：“Inferred row: the vLLM min-card tables have a 32GB column next to the "
                          "64 GB one; that it is a 32 GB Snt9B part (910B4) is not verified”）", "910B4 是 32G 吗", "zh")


def test_the_checker_leaves_code_names_citations_and_quoted_messages():
    zh = ("**放得下：每卡 33.2 GiB，snt9b 可用 61.0 GiB**（估算）。读到：zero_stage 3 (DeepSpeed JSON: zero_optimization.stage 3)。\n"
          "vLLM 启动时会拒绝（\"User-specified max_model_len is greater than the derived max_model_len\"）。\n"
          "```yaml\n# Generated by the sizing assistant for this job\nstage: sft\n```\n"
          "> Quoted note passages keep their source language when they are quoted as such.\n"
          "（来源：ModelArts LLM training guide, common errors chapter, via the help-center excerpts）")
    assert other_language(zh, "能放下吗", "zh") == []
    en = ("Tick 外网访问 (public access) when deploying; the address is on the tab 调用指南 (Usage Guides).\n"
          "Sources: ModelArts 模型最小卡数配置 (2025-06-24)")
    assert other_language(en, "where is the address?", "en") == []


def test_each_domain_message_has_both_wordings_and_comes_back_in_chinese():
    import string

    import assistant.configs.messages  # noqa: F401  (registers the plan errors)
    import assistant.setup_check.notices  # noqa: F401  (registers the reading's remarks)
    import assistant.tools.error_messages  # noqa: F401  (registers the tools' refusals)
    import assistant.tools.setup_tools  # noqa: F401  (registers a setup check's vendor-row lines)

    assert len(REGISTERED) >= 4
    for table in REGISTERED:
        for key, wordings in table.table.items():
            assert set(wordings) == {"en", "zh"}, key
            fields = {f for _, f, _, _ in string.Formatter().parse(wordings["en"]) if f}
            # a field the Chinese wording translates takes a word of its table, any other a number or a path
            values = {f: next(iter(table.words_zh)) if "{" + f + "_zh}" in wordings["zh"] else "7" for f in fields}
            text = table.en(key, **values)
            zh = in_language(text, "zh")
            assert zh != text and not english_runs(zh), (key, zh)
            # read back by its own template, not by a looser one before it in the table
            assert next(k for k, rx in table.patterns.items() if rx.match(text)) == key, key
            assert in_language(text, "en") == text
    assert in_language(notice("offloads_one", name="DeepSpeed JSON", what="parameters"), "zh").startswith(
        "DeepSpeed JSON 只卸载了参数")


@pytest.mark.parametrize("question, lang", [
    ("llama3.1-70b 的 lora 微调 on 8 H100, cutoff 4096, which zero stage?", "en"),  # English sentence, Chinese terms
    ("8 张 Snt9B 跑这个 yaml 够吗\nmodel_name_or_path: /data/Qwen2.5-7B-Instruct\nstage: sft\nfinetuning_type: full\n"
     "deepspeed: examples/deepspeed/ds_z3_config.json\ncutoff_len: 4096", "zh"),  # the pasted YAML is no English question
    ('这个 ds json 能用吗 {"zero_optimization": {"stage": 3}, "bf16": {"enabled": true}, "train_micro_batch_size_per_gpu": 1}',
     "zh"),  # a JSON object on the question's own line
    ("check my yaml:\nmodel_name_or_path: /data/Qwen2.5-7B\nstage: sft", "en"),
    ("qwen2.5-72b lora 8k 需要几张卡 how many", "zh"),
    ("LoRA微调 with LlamaFactory, how many cards?", "en"),
])
def test_question_language_of_mixed_questions(parse, question, lang):
    assert parse(question).lang == lang


def test_catalog_remark_quoted_in_the_answer_language(assistant):
    # hardware.csv snt9b: naming "… the catalog takes all three as 64 GB, and the 32 GB 910B4 is a separate, inferred
    # row (snt9b-32g)", naming_zh "… 32 GB 的 910B4 是单独的推断行（snt9b-32g）"
    zh = assistant.ask("910B 是 32G 还是 64G 的？").answer
    assert "每张卡 64 GB" in zh and "32 GB 的 910B4 是单独的推断行" in zh and "inferred row" not in zh
    en = assistant.ask("is the 910B a 32 GB or a 64 GB card?").answer
    assert "64 GB per card" in en and "separate, inferred row" in en


def test_setup_remark_and_plan_error_in_chinese(assistant):
    ds = '{"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "nvme"}}}'
    answer = assistant.ask(f"这份 ds json 卸载的是优化器还是参数？\n{ds}").answer
    assert "只卸载了优化器状态" in answer and "offloads only" not in answer
    answer = assistant.ask("llama3-8b 跑 ppo，finetuning_type: lora，deepspeed 用 ds_z3_config.json，给我配置").answer
    assert "does not support" not in answer


def test_flags_named_without_values_are_not_values(assistant):
    answer = assistant.ask("For benchmark_serving.py, what does --request-rate actually control, and how many values "
                           "does --num-prompts need?").answer
    assert "could not format" not in answer and "--num-prompts" in answer


def test_every_catalog_part_has_its_facts_in_chinese(ctx):
    # hardware.csv: a Chinese answer quotes interconnect_zh / notes_zh / naming_zh; a row without them is answered in English
    for row in ctx.kb.hardware():
        assert row.get("interconnect_zh"), row["id"]
        assert not row.get("notes") or row.get("notes_zh"), row["id"]
        assert not row.get("naming") or row.get("naming_zh"), row["id"]


def test_gpu_comparison_in_chinese(assistant):
    # hardware.csv h800-80g: interconnect "NVLink limited to 400 GB/s per GPU", notes "China-market H100 variant: same
    # BF16 peak, reduced NVLink bandwidth"; h100-80g: "NVLink 4 (900 GB/s per GPU) via NVSwitch in HGX/DGX"
    zh = assistant.ask("H800 和 H100 到底差在哪里？").answer
    assert "NVLink 限制为每张 GPU 400 GB/s" in zh and "NVLink 4（每张 GPU 900 GB/s）" in zh
    assert "面向中国市场的 H100 变体" in zh and "limited to" not in zh and "China-market" not in zh
    en = assistant.ask("What is the difference between the H800 and the H100?").answer
    assert "NVLink limited to 400 GB/s per GPU" in en and "China-market H100 variant" in en
    # rtx4090-24g: "PCIe Gen4 x16, no NVLink, no P2P on most drivers"
    assert "多数驱动下不支持 P2P" in assistant.ask("4090 之间有 nvlink 吗").answer


def test_tool_refusal_in_chinese(assistant):
    # estimate_support.resolve_shape: 32 heads do not split into 5 KV-head groups (32 % 5 = 2)
    zh = assistant.ask("一个 13B 的模型，32 个头，kv heads 5，lora 4096 每卡显存要多少").answer
    assert "KV 头数 5 必须能整除注意力头数 32" in zh and "must divide" not in zh
    en = assistant.ask("custom 13B model, 32 heads, 5 kv heads, lora 4096, memory per card?").answer
    assert "kv_heads 5 must divide heads 32" in en
    # the tool schema bounds micro_batch at 4096
    zh = assistant.ask("qwen2.5-7b lora 4096 micro batch 10000，8 卡 910B 每卡显存多少").answer
    assert "micro_batch 必须小于或等于 4096" in zh and "Input should" not in zh


def test_setup_check_vendor_row_in_chinese(assistant):
    # seeds/004 minimum-card table (2025-06-24): LLaMA-Factory qwen2.5-7b LoRA SEQ_LEN 4096 on Snt9B: 1 card
    zh = assistant.ask(f"8 张 910B 跑这个 yaml 够吗\n{YAML}").answer
    assert "LLaMA-Factory qwen2.5-7b LoRA SEQ_LEN 4096，Snt9B：1 张卡" in zh and " on Snt9B" not in zh
    en = assistant.ask(f"check my yaml for 8 910B:\n{YAML}").answer
    assert "LLaMA-Factory qwen2.5-7b lora SEQ_LEN 4096 on Snt9B: 1 card (" in en


def test_vllm_table_of_unknown_version_named_in_the_answer_language(assistant):
    # vllm_min_cards.csv baichuan2-13b 32 GB: 2 cards, 4096 (source: "older vLLM table fragment (rows 35-40, version
    # unknown, v0.5.0/v0.6.x era)")
    zh = assistant.ask("baichuan2-13b 用 32GB 的卡做 vllm 推理要几张？是哪个版本的表").answer
    assert "**2 张卡**" in zh and "版本不明，约 v0.5.0/v0.6.x 时期" in zh and "era" not in zh
    en = assistant.ask("baichuan2-13b vLLM serving on 32GB cards: how many, and from which table version?").answer
    assert "**2 cards**" in en and "version unknown, v0.5.0/v0.6.x era" in en


@pytest.mark.parametrize(("question", "weak"), [
    ("16呢", True),  # too few words
    ("describe 里写着 resource fit failed", True),  # both languages, a log line at the end
    ("back to 训练：qwen2.5-7b full 4096 要几张?", False),  # asked in Chinese at the end
    ("why does llamafactory need twice as many?", False),
    ("如果不做全参只训 LoRA 呢，卡数多少", False),
])
def test_a_balanced_turn_without_a_chinese_ending_is_weak(question, weak):
    assert language_is_weak(question) is weak


def test_a_log_line_quoted_in_a_chinese_thread_is_answered_in_chinese(assistant):
    history = [ChatTurn(role="user", content="训练作业一直卡在 Pending，怎么排查"),
               ChatTurn(role="assistant", content="先用 kubectl describe pod 看事件。")]
    question = "日志里写着 pod group not ready"
    answer = assistant.ask(question, history).answer
    assert not other_language(answer.split("\n\n")[0], question, "zh"), answer[:200]
