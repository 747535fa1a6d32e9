"""Knowledge and hardware answers whose first sentence is the asked thing (fresh questions of 2026-12-07, howto11):
the first command for a Pending pod (`kubectl describe pod`, ModelArts modelarts_llm_train_c_5910043), the multimodal
benchmark being static only (modelarts_llm_infer_5905030 / 91107), the deployed-service flags `--url` / `--app-code`
(91151), `USER_PROCESSED_DATA_DIR` for reusing preprocessed data (91113), the offline package's pinned commits
(ModelLink 8f50777, MindSpeed 4ea42a23; modelarts_llm_train_91016), the parts of one question answered from its own note
(no training-time formula beside the token validity of inference-modelarts-0097), PCIe cards as their own catalog rows
(NVIDIA H100 / H800 PCIe: 1513 TFLOPS BF16 with sparsity = 756 dense, the SXM5 module 989), encoder-decoder models
refused by name, 1 Snt9B23 DIE = 64 GB = 1 Snt9B card (seeds/004), and the 910B4 32 GB row hedged throughout."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from assistant.answer import ChatTurn

ROOT = Path(__file__).resolve().parents[2]
with open(ROOT / "knowledge/catalog/hardware.csv", encoding="utf-8", newline="") as f:
    HARDWARE = {r["id"]: r for r in csv.DictReader(f)}


def lead(answer: str) -> str:
    """The answer's first paragraph."""
    return answer.split("\n\n")[0]


def test_pending_first_command_leads(assistant):
    first = lead(assistant.ask("training job pod is pending since morning — what command do I run first to see why?").answer)
    assert "kubectl describe pod" in first.split(".")[0] + first.split(".")[1]
    assert first.index("kubectl describe pod") < first.index("Pending")
    assert "kubectl delete" not in first


def test_pending_first_command_leads_in_chinese(assistant):
    first = lead(assistant.ask("训练任务一直 pending，先执行啥命令看原因").answer)
    assert first.index("kubectl describe pod") < first.index("Pending")


def test_multimodal_dynamic_test_is_answered_static_only_first(assistant):
    ans = assistant.ask("for a multimodal model like qwen2-vl, is the dynamic benchmark supported on ModelArts or only static?").answer
    assert "Which model" not in ans and "which model" not in ans
    assert lead(ans).split("**Answer:** ")[1].startswith("Multimodal models get the static test only")


def test_multimodal_dynamic_test_in_chinese_leads_with_static_only(assistant):
    first = lead(assistant.ask("qwen2.5-vl 能做动态性能测试吗").answer)
    assert "只支持**静态**测试" in first.split("。")[0]


def test_deployed_service_benchmark_uses_url_not_host(assistant):
    first = lead(assistant.ask("我的服务已经在 ModelArts 上部署好了，benchmark 脚本要怎么指向它而不是本地 host/port").answer)
    assert "`--url`" in first and "`--app-code`" in first
    assert "--host <host>" not in first


def test_reusing_preprocessed_data_names_the_variable(assistant):
    first = lead(assistant.ask("I already preprocessed my dataset in an earlier run, can I point the script at it and skip preprocessing?").answer)
    assert first.split("**Answer:** ")[1].startswith("`USER_PROCESSED_DATA_DIR`")
    assert "--handler-name" not in first


def test_each_of_two_names_gets_its_pinned_commit(assistant):
    first = lead(assistant.ask("内网环境装训练代码包，ModelLink 和 MindSpeed 各自锁的 commit 是多少").answer)
    assert "8f50777" in first and "4ea42a23" in first


def test_parts_of_one_question_stay_in_its_note(assistant):
    ans = assistant.ask("which auth methods does a ModelArts online service support, and how long does a token stay valid?").answer
    first = lead(ans)
    assert "24 h" in first and "AK/SK" in first
    assert "Tok_total" not in ans and "N_cards" not in ans


def test_hf_output_directory_leads(assistant):
    first = lead(assistant.ask("MindSpeed 训完之后 HF 格式的权重输出到哪个目录？默认会转吗").answer)
    assert "saved_models/pretrain_hf/" in first.split("。")[0]
    assert "默认不会" in first


def test_api_key_place_keeps_its_own_line_first(assistant):
    history = [ChatTurn(role="user", content="用 API key 调在线服务 header 怎么写"),
               ChatTurn(role="assistant", content="**结论**：在请求头（header）中加 `Authorization`，值为 `Bearer <API KEY>`。"
                                                  "（笔记：《通过公网访问通道调用在线服务》）")]
    first = lead(assistant.ask("那 API key 本身在哪里拿到？", history).answer)
    assert "`api_key`" in first.split("。")[0]  # the CSV's api_key field (inference2.0-modelarts-0010)


@pytest.mark.parametrize("pcie, sxm", [("h100-pcie-80g", "h100-80g"), ("h800-pcie-80g", "h800-80g")])
def test_pcie_rows_are_their_own(pcie, sxm):
    # NVIDIA data sheets: PCIe BF16 1513 TFLOPS with sparsity = 756 dense; SXM5 989 dense
    assert HARDWARE[pcie]["bf16_tflops"] == "756" and HARDWARE[sxm]["bf16_tflops"] == "989"
    assert HARDWARE[pcie]["memory_gb"] == HARDWARE[sxm]["memory_gb"] == "80"
    assert not any("pcie" in a for a in HARDWARE[sxm]["aliases"].split(";"))


def test_h100_pcie_compute_is_not_the_sxm_figure(assistant):
    first = lead(assistant.ask("H100 PCIe: how many BF16 TFLOPS dense?").answer)
    assert "756 TFLOPS" in first and "989" not in first


def test_pcie_vs_sxm_compute_compared_first(assistant):
    ans = assistant.ask("H800 PCIe 和 H800 SXM 算力一样吗").answer
    assert "989 TFLOPS 对 756 TFLOPS" in lead(ans)  # 989 / 756 = 1.31
    assert "1.31 倍" in lead(ans)
    assert "未收录" not in ans


@pytest.mark.parametrize("question, family", [
    ("t5-11b 全参微调要几张 A100", "t5"),
    ("can you estimate cards for fine-tuning whisper-large-v3 on 910B?", "whisper"),
    ("flan-t5-xl lora on 4090 how much memory", "flan-t5"),
])
def test_encoder_decoder_models_are_refused_by_name(assistant, question, family):
    ans = assistant.ask(question).answer
    assert ("encoder-decoder" in ans or "编码器-解码器" in ans) and family in ans
    assert "Closest catalog models" not in ans and "请问是哪个模型" not in ans


def test_a_die_of_snt9b23_matches_one_snt9b_card(assistant):
    # seeds/004: 1 DIE of Snt9B23 counts as 1 Snt9B card; both 64 GB (catalog)
    first = lead(assistant.ask("Snt9B23 一个 DIE 多少 GB，相当于几张 Snt9B").answer)
    assert "Snt9B 1 张卡" in first and "64 GB" in first
    assert "0.5 张卡" not in first


def test_a3_also_eight_is_read_as_the_second_part(assistant):
    first = lead(assistant.ask("A2 服务器一台 8 张 NPU，A3 也是 8 张吗？").answer)
    assert "Snt9B23" in first and "16 DIE" in first


def test_inferred_910b4_row_is_hedged_not_contradicted(assistant):
    ans = assistant.ask("910B4 是 32G 还是 64G？vllm 表里 32G 那一列指的是哪种卡").answer
    first = lead(ans)
    assert first.index("未经核实") < first.index("每张卡 32 GB")
    assert "表中的行就是" not in ans


def test_one_item_of_a_listed_lead_asked_by_name_leads(assistant):
    # modelarts_llm_train_91016: MindSpeed at commit 4ea42a23 (ModelLink 8f50777 is the other item)
    first = lead(assistant.ask("offline install: which MindSpeed commit does the vendor pin?").answer)
    assert first.split("\n")[0] == "**Answer:** Clone **MindSpeed** and check out commit `4ea42a23`."
