"""The lead of a how-to answer comes from the note section the question asks about: the notes' sections carry
`<!-- answers: … -->` lines (data) naming what each one answers, as users ask it (issue #22, helper notes9b). Facts are
pinned to the vendor pages as knowledge/notes transcribe them (page ids in each case); one or more rows per note whose
sections got such lines, in both languages."""

from __future__ import annotations

import pytest

from assistant.offline import note_pick
from assistant.tools.tables import NotePassage

from .test_leads_pages import lead_of

# (question, words the lead must hold, words it must not hold)
ROWS = [
    # public_access.md (inference-modelarts-0105): a request body is at most 12 MB; APIG cuts a request after 40 s
    ("what's the max payload size I can POST to a modelarts online service over the public channel?", ["12 MB"], []),
    ("公网调用在线服务，请求体最大能多大？", ["12 MB"], ["40 s"]),
    # inference2.0-modelarts-0010: the API key goes in the header `Authorization: Bearer <API KEY>`
    ("which http header carries the api key when calling the new-console service?", ["Authorization", "Bearer <API KEY>"], ["12 MB"]),
    ("新版控制台调用服务，请求头怎么带 api key", ["Authorization", "Bearer <API KEY>"], []),
    # jupyterlab_upload.md: up to 100 MB direct; the SDK's session.obs.copy moves folders between OBS and the notebook
    ("how do i copy a folder from obs into my notebook with the modelarts sdk?", ["session.obs.copy"], []),
    ("jupyterlab 直接上传文件的大小上限是多少", ["100 MB"], []),
    # data_preprocessing.md (modelarts_llm_train_91113): the default output directory
    ("where does 1_preprocess_data.sh write the processed dataset?", ["/home/ma-user/ws/llm_train/processed_for_input/llama2-13b/"], ["--handler-name"]),
    ("预处理后的数据输出到哪个目录", ["/home/ma-user/ws/llm_train/processed_for_input/llama2-13b/"], []),
    # offline_package.md (modelarts_llm_train_91016): ModelLink 8f50777, Megatron-LM core_r0.6.0
    ("which commit of ModelLink do I need for the offline package?", ["8f50777"], []),
    ("离线安装包里 Megatron-LM 用哪个分支", ["core_r0.6.0"], ["8f50777"]),
    # launch_scripts.md (5901042): not converted back by default; CONVERT_MG2HF=TRUE does it
    ("how do I get the trained weights back to hugging face format after the launch script?", ["not converted back", "CONVERT_MG2HF=TRUE"], ["hf2hg"]),
    ("启动脚本训练完，权重怎么转回 hugging face 格式", ["默认不会", "CONVERT_MG2HF=TRUE"], ["hf2hg"]),
    # vllm_faq.md (Ascend-vLLM FAQ 5906036): VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 for the derived max_model_len error
    ("vllm 报 derived max_model_len 的错，加哪个环境变量能放开", ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"], []),
    ("vLLM errors that max_model_len is greater than the derived one, which env var lets me go past it?", ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"], []),
    # oom.md (modelarts_llm_train_c_5910041): after the npu-smi step (1) comes raising TP/PP (2 of 5)
    ("killed the leftover npu processes but mindspeed still OOMs — what should I try next?", ["Step 2 of 5", "TP", "PP"], ["npu-smi"]),
    ("mindspeed oom, npu-smi shows leftover process, what to do next after that?", ["Step 2 of 5", "TP", "PP"], ["npu-smi"]),
]


@pytest.mark.parametrize(("question", "held", "absent"), ROWS)
def test_the_section_asked_leads(assistant, question, held, absent):
    first = lead_of(assistant.ask(question).answer)
    opening = first.split("\n")[0]  # (a step asked is followed by the note's own lead on the next line)
    assert all(w in first for w in held) and not any(w in opening for w in absent), first


def test_the_step_done_is_the_one_named_most():
    """"killed the leftover npu processes … next?": step 1 names npu, processes and leftover; steps 2 and 3 only say "NPU"
    count, so the next step is 2, not 4."""
    text = ("1. Check for leftover processes holding NPU memory with `npu-smi info`.\n"
            "2. Raise `TP`; the NPU count must be divisible by TP×PP.\n"
            "3. Lower `MBS`; GBS/MBS divisible by NPU/(TP×PP).\n"
            "4. Reduce `SEQ_LEN`.\n5. Turn on recomputation.\n")
    p = NotePassage(file="oom.md", title="NPU out-of-memory remedies", heading="MindSpeed-LLM OOM remedies", text=text,
                    source="", summary="", lang="en", score=1.0)
    step = note_pick.step_asked("killed the leftover npu processes but it still OOMs, what should I try next?", [p])
    assert step is not None and step.number == 2


def test_a_part_the_user_tells_of_themselves_asks_nothing():
    assert not note_pick.asks("I already preprocessed my data", "I already preprocessed my data, how do I skip it?")
    bullets = NotePassage(file="d.md", title="t", heading="h", source="", summary="", lang="en", score=1.0,
                          text="- `--handler-name`: the handler for the data.\n- `--input`: the raw dataset files.\n")
    assert note_pick.parts_unanswered("I already preprocessed my data, how do I skip preprocessing?", "Set the variable.", [bullets]) == []
