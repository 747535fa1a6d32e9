"""Every page of the vendor's page index (../shared/seeds/002_*.txt) is answered, in English and in
Chinese, through the offline planner: the answer carries the page's own fact (a number or identifier
transcribed from the page), and a knowledge question that names no model leads with the summary of the
note that covers the page instead of asking "which model?"."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

NOTES = Path(__file__).resolve().parents[2] / "knowledge" / "notes"
HEAD = {"en": "**Answer:** ", "zh": "**结论**："}


@dataclass(frozen=True)
class Page:
    title: str  # the page's title in the vendor index
    note: str | None  # the note whose summary leads a knowledge question (None: a sizing answer from the tables)
    questions: dict[str, str]
    facts: dict[str, tuple[str, ...]]  # per language: strings of the page that the answer must contain


def both(*facts: str) -> dict[str, tuple[str, ...]]:
    return {"en": facts, "zh": facts}


PAGES = [
    Page("模型NPU卡数、梯度累积值取值表", None,
         {"en": "llama3-70b lora 4096 on snt9b: which zero stage, gradient accumulation and how many cards?",
          "zh": "llama3-70b lora 4096 在 snt9b 上用什么 zero、梯度累积多少、几张卡？"},
         both("16", "ZeRO-3", "8")),  # llama3 70B lora 4096: gradient_accumulation_steps 8, ZeRO-3, 2*节点 & 8*Ascend
    Page("模型NPU卡数、梯度累积值取值表 (规格与节点数)", "snt9b_vs_snt9b23.md",
         {"en": "In the vendor's card table, what does 1*节点 & 4*Ascend mean?",
          "zh": "厂商表格里的 1*节点 & 4*Ascend 是什么意思？"},
         both("4*Ascend")),
    Page("训练启动脚本说明和参数配置", "launch_scripts.md",
         {"en": "PP must match what?", "zh": "启动脚本里 TP、PP 要和什么保持一致？"},
         {"en": ("converted", "TP × PP"), "zh": ("权重转换", "TP × PP")}),
    Page("训练启动脚本说明和参数配置 (GBS / MBS)", None,
         {"en": "GBS vs MBS", "zh": "GBS 和 MBS 有什么区别"},
         both("GBS", "MBS", "GBS = MBS × GA × DP")),  # the difference: per-card micro batch vs samples per iteration
    Page("训练的数据集预处理说明", "data_preprocessing.md",
         {"en": "what does the training script do if the dataset was not preprocessed?",
          "zh": "数据集没有预处理，训练脚本会怎么做？"},
         both("1_preprocess_data.sh")),
    Page("NPU_Flash_Attn融合算子约束", "flash_attention.md",
         {"en": "head_dim 576, does NPU_Flash_Attn support it?", "zh": "head_dim 576 支持 NPU_Flash_Attn 吗？"},
         both("D ≤ 512", "2048")),
    Page("BF16和FP16说明", "bf16_fp16.md",
         {"en": "what's the difference between bf16 and fp16?", "zh": "BF16 和 FP16 有什么区别？"},
         {"en": ("8-bit exponent",), "zh": ("8 位指数",)}),
    Page("保存ckpt时超时报错", "ckpt_timeout.md",
         {"en": "my multi-node job times out while saving the checkpoint", "zh": "多机训练保存ckpt时超时报错怎么办"},
         both("36", "60", "40")),
    Page("离线训练安装包准备说明", "offline_package.md",
         {"en": "my resource pool has no internet, how do I install the training package?",
          "zh": "资源池不能联网，怎么准备离线安装包？"},
         both("scripts/install.sh", "8f50777", "4ea42a23", "core_r0.6.0")),
    Page("显存溢出错误", "oom.md",
         {"en": "NPU out of memory during training, what should I do?", "zh": "训练时报 NPU out of memory 怎么办"},
         both("npu-smi info", "expandable_segments")),
    Page("工作负载Pod异常 (Pending)", "pod_pending.md",
         {"en": "the pod of my training job is stuck in Pending", "zh": "训练作业一直Pending怎么办"},
         both("kubectl describe pod ${pod_name}", "kube-system")),
    Page("工作负载Pod异常 (kubectl Insufficient)", "pod_pending.md",
         {"en": "kubectl describe pod shows 0/2 nodes are available: 2 Insufficient huawei.com/ascend-1980",
          "zh": "训练 Pod 报 0/2 nodes are available: 2 Insufficient huawei.com/ascend-1980，一直调度不上，是什么原因？"},
         both("Insufficient", "kubectl describe pod")),
    Page("通过公网访问通道的方式访问在线服务", "public_access.md",
         {"en": "how do I call my online service from the public network?", "zh": "公网怎么访问在线服务"},
         both("12 MB", "40 s", "调用指南")),
    Page("上传本地文件至JupyterLab", "jupyterlab_upload.md",
         {"en": "how do I upload a 2GB file to JupyterLab?", "zh": "上传大文件到JupyterLab"},
         both("100 MB", "50 GB", "OBS")),
    Page("使用预置镜像制作自定义镜像用于训练模型", "custom_image.md",
         {"en": "how to build a custom image from a preset image for training?", "zh": "如何用预置镜像制作自定义镜像"},
         both("自定义", "SWR")),
    Page("多模态模型推理性能测试", "inference_benchmark.md",
         {"en": "how do I benchmark a multimodal model?", "zh": "多模态模型推理性能怎么测"},
         both("modal_benchmark_parallel.py")),
    Page("语言模型推理性能测试", "inference_benchmark.md",
         {"en": "how do I benchmark my vLLM service?", "zh": "怎么测试vLLM服务的性能？"},
         both("benchmark_parallel.py", "benchmark_serving.py")),
    Page("附录:基于vLLM不同模型推理支持最小卡数和最大序列说明", None,
         {"en": "how many cards to serve qwen2.5-72b with vllm on snt9b?", "zh": "用vLLM部署qwen2.5-72b在snt9b上最少几张卡？"},
         both("4", "32768", "gpu-memory-utilization")),  # newest table: Qwen2.5-72B 4 cards, 32K
]


def title(file: str, lang: str) -> str:
    path = NOTES / ("zh" if lang == "zh" else "") / file
    return str(yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])["title"]).strip()


def leads_with_note(answer: str, file: str, lang: str) -> bool:
    """The headline is in the question's language and cites ``file`` (its summary or the facts of it that answer)."""
    head = answer.split("\n\n")[0]
    cite = f"(notes: {title(file, lang)})" if lang == "en" else f"（笔记：《{title(file, lang)}》）"
    return head.startswith(HEAD[lang]) and head.rstrip().endswith(cite)


def summary(file: str, lang: str) -> str:
    path = NOTES / ("zh" if lang == "zh" else "") / file
    return str(yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])["summary"]).strip()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", PAGES, ids=[p.title for p in PAGES])
def test_every_vendor_page_is_answered_with_its_own_fact(assistant, page, lang):
    answer = assistant.ask(page.questions[lang]).answer
    assert "Which model" not in answer and "是哪个模型" not in answer, answer[:300]
    missing = [f for f in page.facts[lang] if f not in answer]
    assert not missing, (missing, answer[:600])
    if page.note:  # a knowledge question: the covering note leads, in the question's language
        assert leads_with_note(answer, page.note, lang), answer[:400]


def test_the_index_pages_are_all_listed():
    """Every distinct page title of the vendor's index has a test above (the index is read, not copied)."""
    found = [d / "shared" / "seeds" for d in Path(__file__).resolve().parents if (d / "shared" / "seeds").is_dir()]
    index = next(iter(sorted(found[0].glob("002_*.txt"))), None) if found else None
    if index is None:
        pytest.skip("the vendor index is not in this checkout")
    titles = {p.title.split(" (")[0] for p in PAGES}
    lines = [ln for ln in index.read_text(encoding="utf-8").splitlines()[2:] if ln.strip()]
    unlisted = [ln[:40] for ln in lines if not any(ln.startswith(t) for t in titles)]
    assert not unlisted, unlisted


@pytest.mark.parametrize("q", ["how many cards do I need?", "需要几张卡？", "which zero stage should I use?"])
def test_a_sizing_question_without_a_model_still_asks_for_one(assistant, q):
    answer = assistant.ask(q).answer
    assert "Which model" in answer or "是哪个模型" in answer, answer[:300]


@pytest.mark.parametrize("q,note,lang", [
    ("our cluster is air-gapped, how do we get the pip dependencies for training?", "offline_package.md", "en"),
    ("why is my vcjob pending forever?", "pod_pending.md", "en"),
    ("vcjob 一直 pending 是什么原因？", "pod_pending.md", "zh"),
    ("is there a timeout when calling my deployed model over the internet?", "public_access.md", "en"),
    ("在线服务请求体最大多少？", "public_access.md", "zh"),
    ("JupyterLab 能上传多大的文件？", "jupyterlab_upload.md", "zh"),
    ("which script does the static benchmark?", "inference_benchmark.md", "en"),
    ("动态性能测试怎么构造数据集？", "inference_benchmark.md", "zh"),
    ("SFT 的数据预处理用哪个 handler？", "data_preprocessing.md", "zh"),
    ("do I need to reconvert weights if I change PP?", "launch_scripts.md", "en"),
    ("D=576 还能用融合注意力吗？", "flash_attention.md", "zh"),
])
def test_other_phrasings_reach_the_page_note(assistant, q, note, lang):
    """Phrasings other than the ones above (no model named): the covering note leads."""
    answer = assistant.ask(q).answer
    assert leads_with_note(answer, note, lang), answer[:300]


@pytest.mark.parametrize("q,lead", [
    ("head_dim 576, does NPU_Flash_Attn support it?", "**Answer:** **No: head_dim D = 576 > 512"),
    ("head_dim 576 支持 NPU_Flash_Attn 吗？", "**结论**：**不能：head_dim D = 576 > 512"),
    ("my model has 40 query heads and 6 kv heads, can NPU_Flash_Attn be used?",
     "**Answer:** **No: 40 query heads are not a multiple of 6 KV heads"),
    ("我的模型 40 个注意力头、6 个 KV 头，能用 NPU_Flash_Attn 吗？", "**结论**：**不能：40 个查询头不是 6 个 KV 头的整数倍"),
])
def test_a_fused_attention_question_with_numbers_is_answered_yes_or_no_first(assistant, q, lead):
    """The page's limits (D ≤ 512, N1 a multiple of N2) applied to the numbers asked about, before the note."""
    assert assistant.ask(q).answer.startswith(lead)


def lead_of(answer: str) -> str:
    return answer.split("\n\n")[0]


# The fact a question asks leads, not the summary of the page around it (fresh round 6, classes 1 and 6). Each
# expected string is the vendor page's own fact (research/modelarts_pages.md §3, §5, §7; research/modelarts.md §10).
@pytest.mark.parametrize("q,note,facts", [
    ("预置框架+自定义镜像跑训练作业，conda activate 不生效怎么办", "custom_image.md", ("ANACONDA_DIR", "conda run -n <env>")),
    ("conda activate has no effect in my preset-framework job with a custom image, what do I do?", "custom_image.md",
     ("ANACONDA_DIR", "conda run -n <env>")),
    ("MindSpeed 启动脚本里 TRAIN_ITERS 不设的话默认是多少？", "launch_scripts.md", ("SN / GBS * EPOCH",)),
    ("what does TRAIN_ITERS default to when I leave it unset in the launch script?", "launch_scripts.md", ("SN / GBS * EPOCH",)),
    ("converted my mindspeed weights back with mg2hf but vllm can't load the tokenizer, what did i miss", "launch_scripts.md",
     ("tokenizer_config.json", "special_tokens_map.json")),
    ("在线服务公网调用用 token 认证，token 有效期多久？AK/SK 对请求体大小有限制吗", "public_access.md", ("24 h", "12M")),
    ("how long does a Token for calling my online service stay valid?", "public_access.md", ("24 h",)),
    ("APP 认证方式调用在线服务会过期吗", "public_access.md", ("永不过期",)),
    ("docker build AscendFactory 镜像的时候，Dockerfile 里的 FROM 基础镜像要写成什么", "offline_package.md", ("FROM", "SWR")),
    # ("original Ascend 910: FP16 TFLOPS and AI cores?" is a hardware fact now: tests/offline/test_part_facts.py)
    ("what --backend values does benchmark_parallel.py accept?", "inference_benchmark.md", ("tgi", "mindspore", "openai")),
])
def test_the_fact_asked_leads(assistant, q, note, facts):
    answer = assistant.ask(q).answer
    lang = "zh" if re.search(r"[\u4e00-\u9fff]", q) else "en"
    assert leads_with_note(answer, note, lang), answer[:300]
    missing = [f for f in facts if f not in lead_of(answer)]
    assert not missing, (missing, lead_of(answer))


# The user's own number against the page's limit, said first (round 6 s60, s64): seeds/002 JupyterLab ≤ 100 MB direct,
# ≤ 50 GB via OBS; 保存ckpt时超时报错: at most 60 GB per node; public access: body ≤ 12 MB, APIG ≤ 40 s.
@pytest.mark.parametrize("q,said", [
    ("can I just drag a 60GB checkpoint into JupyterLab's upload in a modelarts notebook?", "**Your 60GB is over the 50 GB limit.**"),
    # a value inside a rule by ranges is placed in its row (the page: up to 100 MB uploads directly)
    ("在 notebook 里上传一个 80MB 的 csv 到 jupyterlab，需要走 OBS 中转吗", "**你的 80MB：不超过 100 MB：直接上传"),
    ("our 4-node job saves a ~140GB checkpoint from a single node and then hits the save timeout. is that expected?",
     "**Your 140GB is over the 60 GB limit.**"),
    ("多机训练保存权重，单节点要写 75G，会不会超时", "**你的 75G 超过了 60 GB 的上限。**"),
    ("my request body is 20 MB, will the online service's public endpoint accept it?", "**Your 20 MB is over the 12 MB limit.**"),
])
def test_the_users_number_is_measured_against_the_page_limit(assistant, q, said):
    lead = lead_of(assistant.ask(q).answer)
    assert lead.startswith(HEAD["zh" if re.search(r"[\u4e00-\u9fff]", q) else "en"] + said), lead


def test_a_chinese_question_around_pasted_kubectl_output_is_answered_in_chinese(assistant):
    """Round 6 s96: the event text after '显示：' is pasted output; the question is the Chinese around it."""
    answer = assistant.ask("kubectl describe pod 显示：0/2 nodes are available: 2 Insufficient huawei.com/ascend-1980. "
                           "我申请了 16 卡，pod 一直 pending").answer
    assert leads_with_note(answer, "pod_pending.md", "zh"), answer[:300]


@pytest.mark.parametrize("q,fact", [
    ("expandable_segments 怎么开启，环境变量写什么", "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"),
])
def test_asking_what_to_write_is_a_knowledge_question(assistant, q, fact):
    """'写什么' asks what to write, not for a config file of a model: answered from the notes (oom.md)."""
    answer = assistant.ask(q).answer
    assert "是哪个模型" not in answer and fact in lead_of(answer), answer[:300]


def test_asking_what_utilization_the_vllm_table_was_measured_at_needs_no_model(assistant):
    """Round 6 s74: '多少 gpu-memory-utilization' counts no cards and '最小卡数表' names the table: the vLLM appendix
    was measured at 0.9 (v0.6.0, v0.7.2) and 0.95 (newest table, modelarts_llm_infer_5910003)."""
    answer = assistant.ask("vllm 附录里那个最小卡数表是在多少 gpu-memory-utilization 下测的？").answer
    assert "是哪个模型" not in answer and all(v in lead_of(answer) for v in ("0.9", "0.95")), answer[:300]


@pytest.mark.parametrize("q,said", [
    # research/modelarts_pages.md §7: checkpoints saved = TRAIN_ITERS//SAVE_INTERVAL + 1 -> 100//10 + 1 = 11 (the relation is
    # the quantity table's, estimate/derived.py FORMULAS "saves": the arithmetic in the page's own spelling leads)
    ("SAVE_INTERVAL 设 10，TRAIN_ITERS 100，最后会存几个 checkpoint", "TRAIN_ITERS//SAVE_INTERVAL + 1 = 100//10 + 1 = 11"),
    ("with SAVE_INTERVAL=10 and TRAIN_ITERS=100, how many checkpoints are saved?", "TRAIN_ITERS//SAVE_INTERVAL + 1 = 100//10 + 1 = 11"),
    # the run's iterations said in words ("总共跑 2000 个 iteration") are TRAIN_ITERS: 2000//300 + 1 = 7
    ("存盘间隔 SAVE_INTERVAL 设 300、总共跑 2000 个 iteration，最后能留下几个 checkpoint？", "TRAIN_ITERS//SAVE_INTERVAL + 1 = 2000//300 + 1 = 7"),
])
def test_the_pages_formula_is_worked_with_the_users_values(assistant, q, said):
    lead = lead_of(assistant.ask(q).answer)
    assert said in lead, lead


def test_a_question_in_two_parts_gets_a_fact_for_each(assistant):
    """Round 6 s69: TRAIN_ITERS defaults to SN / GBS * EPOCH; CP >= 2 when SEQ_LEN > 32768 (Llama3 only)."""
    lead = lead_of(assistant.ask("MindSpeed 启动脚本里 TRAIN_ITERS 不设的话默认是多少？CP 什么时候需要改").answer)
    assert "SN / GBS * EPOCH" in lead and "32768" in lead, lead


def test_the_most_specific_event_signature_leads(assistant):
    # fresh round 7 s76: MindX FAQ dlug_guide_03_000046 ("annotations(7) not same node idle(8)": reinstall Ascend Device
    # Plugin) leads, not the Volcano restart of the general Pending section
    a = assistant.ask("Events: Warning FailedScheduling volcano all nodes are unavailable: 1 node annotations(7) not same "
                      "node idle(8). 这是啥问题").answer
    lead = a.split("\n")[0]
    assert lead.startswith("**结论**") and "重新安装 Ascend Device Plugin" in lead and "dlug_guide_03_000046" in lead


# A question that names a parameter of a vendor page (a flag, a variable, a script's argument) leads with the note's
# own line about that parameter, in both languages, not a neighbouring fact of the same note (fresh round 8 F1). Every
# expected string is hand-checked against research/modelarts.md §7-§8 and research/modelarts_pages.md §4, §6, §7.
@pytest.mark.parametrize("q,facts", [
    ("benchmark_parallel.py: what does --epochs default to, and which --backend values are allowed?",
     ("`--epochs` (default 5)", "`tgi`, `vllm`, `mindspore` or `openai`")),
    ("benchmark_parallel.py 的 --epochs 默认多少，--backend 能填哪些", ("`--epochs`（默认 5）", "`tgi`、`vllm`、`mindspore` 或 `openai`")),
    ("跑性能测试用 --backend openai 的时候，--tokenizer 参数应该填什么", ("`--tokenizer` 必须与启动服务时 `--model`",)),
    ("with --backend openai what must --tokenizer be?", ("`--tokenizer` must be exactly the path given as `--model`",)),
    ("2_convert_mg_hf.sh - what goes in the first argument, and where does the converted output land?",
     ("`hf2hg`", "`mg2hf`", "converted_weights_TP${TP}PP${PP}")),
    ("2_convert_mg_hf.sh 第一个参数填什么", ("`hf2hg`", "`mg2hf`")),
    ("how do I launch llama-factory training on modelarts ascend - is it llamafactory-cli train?",
     ("ascendfactory-cli train <yaml> <model_name> <exp_name>",)),
    ("modelarts 上启动 llama-factory 训练是用 llamafactory-cli train 吗", ("ascendfactory-cli train <yaml> <model_name> <exp_name>",)),
    ("Notebook 动态挂载 OBS 这个功能在哪些区域能用", ("华北-北京四", "华东-上海一")),
    ("in which regions can a notebook mount OBS dynamically?", ("华北-北京四", "华东-上海一")),
    ("USER_PROCESSED_DATA_DIR 默认是什么，设置了会怎样", ("默认没有", "跳过预处理")),
    ("what is USER_PROCESSED_DATA_DIR by default and what happens if I set it", ("absent from the script by default", "skips preprocessing")),
    ("benchmark_serving.py 的 --dataset-type 可以填哪些值", ("`alpaca`、`sharegpt` 或 `custom`",)),
    ("for SFT data, what should --handler-name be in 1_preprocess_data.sh?", ("`GeneralInstructionHandler` (for SFT (instruction tuning) and LoRA",)),
])
def test_a_named_parameter_leads_with_its_own_line(assistant, q, facts):
    lead = lead_of(assistant.ask(q).answer)
    assert all(f in lead for f in facts), lead
    assert "With your values" not in lead, lead  # no word after a flag ("should --x be") is read as its value


# The user's set value goes through the page's rounding rule: HCCL_EXEC_TIMEOUT is rounded down to a multiple of
# 68 s on the Atlas training series (CANN envref_07_0078; research/modelarts.md §4): 2000 -> 29 x 68 = 1972,
# 600 -> 8 x 68 = 544, 3000 -> 44 x 68 = 2992.
@pytest.mark.parametrize("q,said", [
    # no series named (the default part is Snt9B, an A2 910B, whose range takes the value as set): the rule under its condition
    ("HCCL_EXEC_TIMEOUT 最大能设多少？我设 2000 实际生效多少", "仅在 Atlas 训练系列（第一代 910） 上，你设的 2000 会按 1972 生效"),
    ("I set HCCL_EXEC_TIMEOUT=600 on an Atlas training box, what value actually takes effect?", "Your 600 takes effect as 544"),
    ("HCCL_EXEC_TIMEOUT 设 3000 在 910 上实际生效多少秒", "你设的 3000 实际生效为 2992"),
])
def test_the_pages_rounding_rule_is_applied_to_the_users_value(assistant, q, said):
    lead = lead_of(assistant.ask(q).answer)
    assert said in lead and "68" in lead, lead
