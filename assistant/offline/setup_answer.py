"""A pasted setup in the chat (a config, a command line, an out-of-memory message): detected here,
routed to check_setup with the whole message, and its result written in the question's language,
the verdict first. Kept apart from the planner's reader: one detection, one route, one renderer."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from ..setup_check import deepspeed
from ..setup_check.errors import JSON_PROBLEMS
from ..setup_check.framework_errors import is_framework_error
from ..setup_check.notices import in_language
from ..setup_check.rules import BENCHMARK_URL_BACKEND, RULES, UNNAMED_MODEL
from ..setup_check.text import blocks
from . import error_signature, tool_flags
from .asked import ASKS_VERDICT
from .parse import language
from .wording import W, assumption_zh

CJK = re.compile(r"[\u4e00-\u9fff]")
CJK_RUN = re.compile(r"[\u4e00-\u9fff][\u4e00-\u9fff\w\s？?，,]*")
TOOL = "check_setup"
# check_setup found no setup it can read, or read a word of the question as the model ("vllm serve line for X"): when
# the planner's own reader finds a model in the words (its slots read YAML, JSON, env-var and flag forms too), the
# question is answered as a question instead of with the tool's refusal
ASKS_MEANING = re.compile(r"what\s+(?:does|do|is|are)\s+(?:this|these|that|it|they|the\s+\w+)|mean(?:s|ing)?(?![a-z])|explain|"
                          r"什么意思|啥意思|含义|作用|干(?:什么|嘛|啥)|是干|是什么", re.I)
READER_TAKES_OVER = {"nothing_recognised", "unknown_model", "invalid_json"}
OUTSIDE_SHARE = 0.10  # memory outside PyTorch's allocator worth naming: more than the runtime's usual reserve
_PASTED = re.compile(
    r"out of memory\.?\s*Tried to allocate[^\n]*total capacity|No available memory for the cache blocks|is larger than the maximum number of "
    r"tokens that can be stored in KV cache|GiB KV cache is needed|Available KV cache memory:|KV cache size:\s*[\d,]+\s*tokens|^[ \t]*(?:\S+=\S+[ \t]+)*vllm\s+serve\s|vllm\.entrypoints|"
    r"(?<![\w-])vllm\s+serve\s+\S+\s+--[a-z]|"  # a serve line inside a sentence ("帮我看下这条命令 vllm serve /m --tp …")
    r"^[ \t]*(?:export[ \t]+)?(?:[A-Z_]+=\S+[ \t]+)*(?:TP|PP|CP|MBS|GBS|SEQ_LEN)=\d|[\"']zero_optimization[\"']\s*:|"
    r"^[ \t]*zero_optimization[ \t]*:[ \t]*\n(?:[ \t]*\n)*[ \t]+\w|"  # a DeepSpeed config written as YAML (setup_check: read as its JSON)
    r"num[_ ]layers\s*\(?\d+\)?\s*(?:must|should)\s+be\s+divisible|"  # Megatron's start-up assertion (framework_errors.py)
    r"preprocess_data\.(?:sh|py)\s+-|"  # the dataset preprocessing line (setup_check/preprocess.py)
    r"^[ \t]*(?:model_name_or_path|finetuning_type|cutoff_len|per_device_train_batch_size)[ \t]*:[ \t]*\S|"
    r"^[ \t]*(?:\S+=\S+[ \t]+)*(?-i:torchrun|deepspeed|llamafactory-cli)\s+(?:-|\S+\.(?:py|ya?ml)\b|train\b)|"
    r"--(?:prompt-tokens|output-tokens|request-rate|num-prompts)[ =]+\d|"  # the vendor's benchmark scripts: lists checked
    r"\A\s*\{\s*\"[\w.-]+\"\s*:",  # a JSON object pasted whole (a DeepSpeed file, a request body): read, or located where broken
    re.IGNORECASE | re.MULTILINE)


def is_pasted_setup(text: str) -> bool:
    """A message that carries a config, a launch or serve command, or an out-of-memory message; not one whose error
    message has a signature (signatures.toml: "llamafactory-cli train 报错：Please use `FORCE_TORCHRUN=1` …"), which its
    note section answers, the command beside it only where it was run."""
    return bool(_PASTED.search(text) or is_framework_error(text)) and error_signature.read(text) is None


def setup_reply(messages: list[BaseMessage], tool_fields: dict[str, set[str]],
                read_prose: Callable[[str], dict[str, Any]] | None = None) -> AIMessage | None:
    """The planner's turn for a pasted setup: the check_setup call, then the answer from its result;
    None when the last question carries no setup (the planner's own reader takes it). ``read_prose`` reads the
    words around the paste with the planner's own reader ("2台8卡910B", "llama3-8b full", "on 8 A100 40GB"): the
    model, part and device count they state go to the tool beside the text."""
    if TOOL not in tool_fields:
        return None
    humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    if not humans:
        return None
    text = _text(messages[humans[-1]])
    if not is_pasted_setup(text):
        return None
    after = messages[humans[-1] + 1:]
    result = next((m for m in after if isinstance(m, ToolMessage) and m.name in (TOOL, None)
                   and str(m.tool_call_id).endswith(TOOL)), None)
    if result is None:
        said = read_prose(blocks(text)[1]) if read_prose else {}
        if read_prose and not {"hardware", "devices"} & set(said):  # "vllm serve X on 2 x A100 80G with --flag …": the
            said |= {k: v for k, v in read_prose(text).items() if k in ("hardware", "devices")}  # words sat in the line
        if read_prose and "model" not in said and is_framework_error(text):  # a parser's message with the words on its
            said |= {k: v for k, v in read_prose(text).items() if k in ("model", "params_b")}  # lines: no file, all words
        args = {"text": text, **{k: v for k, v in said.items() if k in tool_fields[TOOL]}}
        return AIMessage(content="", tool_calls=[{"name": TOOL, "args": args, "id": f"offline-1-0-{TOOL}",
                                                  "type": "tool_call"}])
    r = _result(result)
    # nothing checked: the reader answers when the words name a model, or when the turn follows a conversation whose
    # job it changes ("tp=2 呢", "SEQ_LEN=8192 then?" after a sizing answer: a setting said, no setup pasted)
    # a command whose flags are only talked about ("--request-rate 1 2 4 8, --num-prompts 只写一个 1000 行吗"): nothing of it
    # could be checked, so the question is one about the flags, which the notes answer
    # keys pasted to ask what they do ("what does this do in my deepspeed json: …", "这段 ds 配置是什么意思"), with nothing
    # the check could size or fault: the notes say what each key does, not a request for the model
    # and a text in which the check recognised no setup at all ("SN=50000, GBS=128, EPOCH=3: what TRAIN_ITERS?"): the
    # values are a question's, which the reader answers (a "no setup I can read" is no answer to anything)
    if read_prose and (not_checked(r) and (len(humans) > 1 or set(read_prose(text)) & {"model", "params_b", "quantity", "layout"}
                                           or ASKS_MEANING.search(blocks(text)[1]) or recognised_nothing(r))
                       or command_unchecked(r)):
        return None
    lang = question_language(text)
    # the values given a documented tool's flags, each said with its meaning and the figures they give (tool_flags.py)
    # asked of ("what does … mean", "how long does it run"): what they asked of the flags first, then the check; a
    # command pasted to be checked gets the check alone
    words = blocks(text)[1]
    flags_at = tool_flags.asked_at(text, words)
    asked = ASKS_MEANING.search(words) or flags_at is not None
    flags = tool_flags.stated(text, lang) if asked else []
    checked = render_setup(r, lang, batch_asked=bool(BATCH_ASKED.search(words.lower())), verdict_asked=bool(ASKS_VERDICT.search(words)))
    # each part in the order asked: "is that ok? and how many rounds …" is answered by the check first, then the flags
    if flags and flags_at is not None and (j := JUDGED.search(words)) and j.start() < flags_at and not ASKS_MEANING.search(words[:j.start()]):
        return AIMessage(content=checked + "\n\n" + "\n".join(flags))
    return AIMessage(content="\n".join(flags) + "\n\n" + checked if flags else checked)


# a judgement of the pasted setup asked ("is that ok?", "anything wrong?", "有问题吗", "对吗")
JUDGED = re.compile(r"(?<![a-z])(?:ok(?:ay)?|fine|right|correct|valid|wrong|problems?|issues?|mistakes?)(?![a-z])|"
                    r"有问题|有没有问题|有啥问题|问题吗|对吗|对不对|行吗|可以吗|没问题吧|哪里错", re.I)


MALFORMED = ("invalid_json", "invalid_yaml")


def unreadable_paste(messages: list[BaseMessage]) -> str | None:
    """When check_setup could not read the last question's paste because it is malformed and the reader answers the
    question's words instead: what is wrong with the paste and where (said before that answer, never dropped)."""
    humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    if not humans:
        return None
    result = next((m for m in messages[humans[-1] + 1:] if isinstance(m, ToolMessage) and m.name in (TOOL, None)
                   and str(m.tool_call_id).endswith(TOOL)), None)
    r = _result(result) if result is not None else {}
    if (r.get("error") or {}).get("code") not in MALFORMED:
        return None
    lang = question_language(_text(messages[humans[-1]]))
    return render_setup(r, lang) + " " + W["setup_unreadable_then"][lang]


def not_checked(r: dict[str, Any]) -> bool:
    """check_setup read nothing, or nothing it could size or find fault with (a launch line without its model)."""
    if "error" in r:
        return (r["error"] or {}).get("code") in READER_TAKES_OVER
    if r.get("kind") in ("benchmark", "preprocess"):  # a command checked flag by flag: the answer is the check
        return False
    return not (r.get("findings") or r.get("training") or r.get("serving") or r.get("oom") or r.get("vllm_log"))


def recognised_nothing(r: dict[str, Any]) -> bool:
    return (r.get("error") or {}).get("code") == "nothing_recognised"


def command_unchecked(r: dict[str, Any]) -> bool:
    """A benchmark or preprocessing command in which no rule found a fault and nothing could be checked either (no
    pair of lists, no backend with its URL, no flag value the check reads): the words ask about it, not a paste."""
    return r.get("kind") in ("benchmark", "preprocess") and not r.get("findings") and not _checked_items(r, "en")


def without_setup_turn(after: list[BaseMessage]) -> list[BaseMessage]:
    """The messages after the question without the check_setup call and its result (the reader took the question over)."""
    return [m for m in after if not (isinstance(m, ToolMessage) and str(m.tool_call_id).endswith(TOOL))
            and not (isinstance(m, AIMessage) and m.tool_calls and all(c["name"] == TOOL for c in m.tool_calls))]


def question_language(text: str) -> str:
    """The language of the words around the paste (the paste itself is English whatever the question)."""
    pasted, words = blocks(text)
    prose = [ln for ln in words.splitlines() if not _PASTED.search(ln)]
    chinese = [ln for ln in prose if CJK.search(ln)]  # an unfenced log is English whatever the question
    # a question written on the command's own line ("vllm serve … 这行有问题吗"): its Chinese words count too
    pasted_lines = [ln for b in pasted for ln in b.text.splitlines()] + [ln for ln in words.splitlines() if _PASTED.search(ln)]
    chinese += [" ".join(CJK_RUN.findall(ln)) for ln in pasted_lines if CJK_RUN.search(ln)]
    return language("\n".join(chinese)) if chinese else "en"



def _text(m: BaseMessage) -> str:
    c = m.content
    return c if isinstance(c, str) else " ".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in c)


def _result(m: ToolMessage) -> dict[str, Any]:
    import json

    if isinstance(m.artifact, dict):
        return m.artifact
    try:
        out = json.loads(_text(m))
        return out if isinstance(out, dict) else {}
    except ValueError:
        return {"error": {"code": "tool_failed", "message": _text(m)[:500]}}


# ---------------------------------------------------------------- the answer
P = {
    "fits": {"en": "**Fits: {total:.1f} GiB per {unit} of {usable:.1f} GiB usable on {hw}** ({head:.1f} GiB to spare; estimate).",
             "zh": "**放得下：每{unit} {total:.1f} GiB，{hw} 可用 {usable:.1f} GiB**（余 {head:.1f} GiB；估算）。"},
    "tight": {"en": "**Tight: {total:.1f} GiB per {unit} of {usable:.1f} GiB usable on {hw}** (only {head:.1f} GiB to spare; estimate).",
              "zh": "**勉强放得下：每{unit} {total:.1f} GiB，{hw} 可用 {usable:.1f} GiB**（仅余 {head:.1f} GiB；估算）。"},
    # tight with the point above the usable memory: only the range's lower part fits, said as such (never "-3.4 to spare")
    "tight_over": {"en": "**Tight: {total:.1f} GiB per {unit} against {usable:.1f} GiB usable on {hw}** (the estimate is {over:.1f} GiB "
                         "over; only the lower part of its range, down to {low:.1f} GiB, fits; estimate).",
                   "zh": "**偏紧：每{unit} {total:.1f} GiB，{hw} 可用 {usable:.1f} GiB**（估算值超出 {over:.1f} GiB，只有范围下端"
                         "（低至 {low:.1f} GiB）放得下；估算）。"},
    "does_not_fit": {"en": "**Does not fit: {total:.1f} GiB per {unit} needed, {usable:.1f} GiB usable on {hw}** "
                           "(over by {over:.1f} GiB; estimate).",
                     "zh": "**放不下：每{unit}需要 {total:.1f} GiB，{hw} 可用 {usable:.1f} GiB**（超出 {over:.1f} GiB；估算）。"},
    "serve_fits": {"en": "**Fits: the KV cache holds {seqs} sequence(s) of {length} tokens on {devices} {unit}(s) (TP {tp}) of {hw}** "
                         "({kv:.1f} GiB of KV cache per {unit}; estimate).",
                   "zh": "**放得下：{hw} {devices} {unit}（TP {tp}）的 KV cache 可容纳 {seqs} 条 {length} token 的序列**"
                         "（每{unit} KV cache {kv:.1f} GiB；估算）。"},
    "serve_not_all": {"en": "**No, not all {cap} at once: the KV cache holds {seqs} sequence(s) of {length} tokens on {devices} "
                            "{unit}(s) (TP {tp}) of {hw}** ({kv:.1f} GiB of KV cache per {unit}; estimate). The server starts, but "
                            "--max-num-seqs {cap} is only a cap: beyond {seqs} full-length sequences vLLM queues or preempts the rest.",
                      "zh": "**不能，{cap} 条无法同时满长运行：{hw} {devices} {unit}（TP {tp}）的 KV cache 只能容纳 {seqs} 条 {length} token 的序列**"
                            "（每{unit} KV cache {kv:.1f} GiB；估算）。服务能启动，但 --max-num-seqs {cap} 只是上限：超过 {seqs} 条满长序列时，"
                            "vLLM 会让其余请求排队或被抢占。"},
    "serve_beyond": {"en": "Only with the context extended to {length} tokens (rope scaling; at {context} tokens, the model's own, "
                           "it holds more): ",
                     "zh": "仅在用 rope scaling 把上下文扩展到 {length} token 时（按模型自身的 {context} token 可容纳更多）："},
    "serve_no": {"en": "**Does not fit: on {devices} {unit}(s) (TP {tp}) of {hw} the KV cache cannot hold one sequence of {length} "
                       "tokens** ({kv:.1f} GiB left for it per {unit}; estimate).",
                 "zh": "**放不下：{hw} {devices} {unit}（TP {tp}）的 KV cache 放不下一条 {length} token 的序列**"
                       "（每{unit}留给 KV cache {kv:.1f} GiB；估算）。"},
    "serve_weights": {"en": "**Does not fit: on {devices} {unit}(s) (TP {tp}) of {hw} the weights alone take {w:.1f} GiB per {unit} "
                            "of the {budget:.1f} GiB vLLM may use** (gpu-memory-utilization × capacity; estimate).",
                      "zh": "**放不下：{hw} {devices} {unit}（TP {tp}）上仅权重就占每{unit} {w:.1f} GiB，超过 vLLM 可用的 {budget:.1f} GiB**"
                            "（gpu-memory-utilization × 容量；估算）。"},
    "held_elsewhere": {"en": "Out-of-memory message: **memory held by another process**: this job had only {alloc:.2f} of "
                             "{cap:.2f} GiB allocated on {platform} {dev} when {tried:.2f} GiB more was asked ({share:.0%} of "
                             "capacity), and the process you see holds {outside:.2f} GiB: find it with `npu-smi info` "
                             "(`nvidia-smi` on GPUs), end it, and run again (the vendor's MindSpeed-LLM OOM FAQ lists this first).",
                       "zh": "OOM 报错：**显存被其他进程占用**：本任务在 {platform} {dev} 上只分配了 {alloc:.2f} / {cap:.2f} GiB"
                             "（加上申请的 {tried:.2f} GiB 占容量 {share:.0%}），而你看到的进程占了 {outside:.2f} GiB：用 "
                             "`npu-smi info`（GPU 上用 `nvidia-smi`）找到它并结束，再重跑（厂商 MindSpeed-LLM OOM FAQ 的第一步）。"},
    "too_big": {"en": "Out-of-memory message: **too big**: {platform} {dev} had {alloc:.2f} of {cap:.2f} GiB allocated when "
                      "{tried:.2f} GiB more was asked ({share:.0%} of capacity); at least {short:.2f} GiB short at that "
                      "moment, and the step was not done allocating.",
                "zh": "OOM 报错：**模型/配置太大**：{platform} {dev} 已分配 {alloc:.2f} / {cap:.2f} GiB 时再申请 {tried:.2f} GiB"
                      "（占容量 {share:.0%}）；当时至少差 {short:.2f} GiB，而这一步还没分配完。"},
    # the part told from the capacity the message reports (check_setup's assumed hardware, why "capacity"): said after the
    # cause, so the card size asked about (or silently taken) is the one the figures below use (round 19 c6-09)
    "capacity_part": {"en": "**The card: {hw}**: {cap:.2f} GiB total capacity is what a card of that catalog memory reports{also} "
                            "(a 64 GB card reports about 61 GiB); the estimate below uses it.",
                      "zh": "**这张卡：{hw}**：报错中的总容量 {cap:.2f} GiB 对应目录中这档显存的卡{also}（64 GB 的卡报告约 61 GiB）；"
                            "下面的估算按它计算。"},
    "too_big_in_use": {"en": "Out-of-memory message: **too big**: {platform} {dev} had {alloc:.2f} of {cap:.2f} GiB in use "
                             "when {tried:.2f} GiB more was asked ({share:.0%} of capacity); at least {short:.2f} GiB short.",
                       "zh": "OOM 报错：**模型/配置太大**：{platform} {dev} 已占用 {alloc:.2f} / {cap:.2f} GiB 时再申请 "
                             "{tried:.2f} GiB（占容量 {share:.0%}）；至少差 {short:.2f} GiB。"},
    "oom_fits_on_paper": {"en": "**Out of memory in your run, although the estimate fits: about {total:.1f} GiB per {unit} (likely "
                                "{low:.1f}-{high:.1f}) of {usable:.1f} GiB usable on {hw}** (estimate), while the message shows {alloc:.2f} "
                                "GiB already allocated. What the run holds beyond the estimate is the thing to find: first look for "
                                "leftover processes with `{smi}` and end them, then make the changes above, first to last.",
                          "zh": "**你的任务已经显存溢出，而估算认为放得下：每{unit}约 {total:.1f} GiB（可能 {low:.1f}-{high:.1f} GiB），"
                                "{hw} 可用 {usable:.1f} GiB**（估算），报错时已分配 {alloc:.2f} GiB。要找的是任务比估算多占的部分："
                                "先用 `{smi}` 查找并结束残留进程，再按上面的顺序逐项修改。"},
    "oom_estimate_over": {"en": "**Out of memory in your run, and the estimate agrees: about {total:.1f} GiB per {unit} (likely "
                                "{low:.1f}-{high:.1f}) against {usable:.1f} GiB usable on {hw}** (estimate, {over:.1f} GiB over), "
                                "with {alloc:.2f} GiB already allocated when the message came: the changes above, first to last, "
                                "bring it under.",
                          "zh": "**你的任务已经显存溢出，估算也超出可用显存：每{unit}约 {total:.1f} GiB（可能 {low:.1f}-{high:.1f} GiB），"
                                "{hw} 可用 {usable:.1f} GiB**（估算，超出 {over:.1f} GiB），报错时已分配 {alloc:.2f} GiB：按上面的顺序"
                                "逐项修改即可降下来。"},
    "below_table": {"en": "**Below the vendor's minimum: its minimum-card table lists {table} {unit}s for this job, you have "
                          "{devices}.** The estimate fits on paper; the vendor has not run it on fewer than {table}.",
                    "zh": "**低于厂商最小卡数：最小卡数表中此任务为 {table} {unit}，你只有 {devices} {unit}。** 按估算能放下，"
                          "但厂商未在少于 {table} {unit}上验证过。"},
    "global_batch_is": {"en": "**Global batch = {gbs}** samples per optimizer step: micro batch {mbs} × gradient accumulation {ga} × "
                              "{dp} data-parallel devices{dp_how} = {gbs}.",
                        "zh": "**全局 batch = {gbs}**（每个优化器步的样本数）：micro batch {mbs} × 梯度累积 {ga} × 数据并行 {dp} 张卡{dp_how} = {gbs}。"},
    "ds_tbs_optional": {"en": "`train_batch_size` need not be set: DeepSpeed derives it as micro batch × gradient accumulation × "
                              "data-parallel size ({gbs} here); if you set it, it must equal that product or DeepSpeed refuses to "
                              "start (LLaMA-Factory's own configs write \"auto\").",
                        "zh": "`train_batch_size` 不必写：DeepSpeed 会按 micro batch × 梯度累积 × 数据并行数推出（这里是 {gbs}）；"
                              "如果写了，必须等于这个乘积，否则 DeepSpeed 启动时报错（LLaMA-Factory 自带的配置写 \"auto\"）。"},
    "gbs_splits": {"en": "**GBS {gbs} splits whole**: MBS {mbs} × DP {dp} × GA {ga} = {gbs} (DP = {devices} / (TP {tp} × PP {pp}"
                         "{cp}) = {dp}); Megatron needs the global batch to be a multiple of MBS × DP.",
                   "zh": "**GBS {gbs} 可以整除**：MBS {mbs} × DP {dp} × GA {ga} = {gbs}（DP = {devices} / (TP {tp} × PP {pp}{cp}) = "
                         "{dp}）；Megatron 要求全局 batch 是 MBS × DP 的整数倍。"},
    "below_table_no_fit": {"en": "**Not enough by the vendor's minimum-card table: it lists {table} {unit}s for this job, "
                                 "you have {devices}.**",
                           "zh": "**按厂商最小卡数表不够：此任务为 {table} {unit}，你只有 {devices} {unit}。**"},
    # the user's own count at or above the vendor's minimum for the job: the table's yes leads, the estimate beside it
    "at_table": {"en": "**Enough by the vendor's minimum-card table: it lists {table} {unit}(s) for this job, you have {devices}.**",
                 "zh": "**按厂商最小卡数表够用：此任务为 {table} {unit}，你有 {devices} {unit}。**"},
    # the pasted setup says no card count: the count the check assumed is said as assumed, never as what the user has
    "below_table_assumed": {"en": "**On the assumed {devices} {unit}(s) (no count given) this is also below the vendor's minimum: "
                                  "its minimum-card table lists {table} {unit}s for this job.**",
                            "zh": "**按假设的 {devices} {unit}（你没有给出卡数），也低于厂商最小卡数：最小卡数表中此任务为 {table} {unit}。**"},
    # a verdict reached on values the setup does not state (a framework default, an assumed count): said beside it
    "on_assumed": {"en": "This verdict uses assumed values, not yours: {items}; give yours for a verdict on your setup.",
                   "zh": "这个结论用的是假设值而非你给出的值：{items}；给出实际值即可得到针对你配置的结论。"},
    "remedies": {"en": "What to change, first to last:", "zh": "按顺序尝试："},
    "fragmenting": {"en": "Out-of-memory message: **fragmenting**: {platform} {dev} had {reserved:.2f} GiB reserved but only "
                          "{alloc:.2f} GiB allocated ({cached:.2f} GiB cached, more than the {tried:.2f} GiB asked): set "
                          "`{env}` and run again.",
                    "zh": "OOM 报错：**显存碎片**：{platform} {dev} 已保留 {reserved:.2f} GiB，但只分配了 {alloc:.2f} GiB"
                          "（缓存 {cached:.2f} GiB，多于申请的 {tried:.2f} GiB）：设置 `{env}` 后重跑。"},
    "outside": {"en": "{outside:.2f} GiB of the {cap:.2f} GiB was held outside PyTorch (other processes, the runtime, "
                        "communication buffers): check `npu-smi info` / `nvidia-smi` for leftover processes.",
                "zh": "{cap:.2f} GiB 中有 {outside:.2f} GiB 不在 PyTorch 手里（其他进程、运行时、通信缓冲）：用 `npu-smi info` / "
                      "`nvidia-smi` 检查残留进程。"},
    # a vLLM start-up that failed: the log's own verdict leads, with the user's values in the remedies
    "log_no_cache": {"en": "**vLLM stopped at start-up: no memory was left for the KV cache** after the weights{weights} and its "
                           "profiling run (one forward pass over `--max-num-batched-tokens` tokens{batched}). Make room, one "
                           "change at a time: raise `--gpu-memory-utilization`{util} (the message's own hint; the vendor's newest "
                           "vLLM table was measured at 0.95), lower `--max-num-batched-tokens`{batched_now} (a smaller profiling "
                           "batch), or spread the weights over more cards with `--tensor-parallel-size`{tp}.",
                     "zh": "**vLLM 启动失败：加载权重{weights}并做完 profiling（按 `--max-num-batched-tokens`{batched} 个 token 跑一次"
                           "前向）后，没有显存留给 KV cache**。逐项腾出空间：调高 `--gpu-memory-utilization`{util}（报错本身的提示；"
                           "厂商最新的 vLLM 表在 0.95 下测得）、调小 `--max-num-batched-tokens`{batched_now}（profiling 的批更小），"
                           "或用更大的 `--tensor-parallel-size`{tp} 把权重分到更多卡上。"},
    "log_too_long": {"en": "**vLLM refuses to start: `--max-model-len` {length:,} is longer than the {cap:,} tokens its KV cache "
                           "holds** (your log's figures). Set `--max-model-len {cap}` or less, or make room for the cache: raise "
                           "`--gpu-memory-utilization`{util}, or spread the weights over more cards with `--tensor-parallel-size`{tp}.",
                     "zh": "**vLLM 拒绝启动：`--max-model-len` {length:,} 超过了 KV cache 能放下的 {cap:,} 个 token**（你日志里的数字）。"
                           "把 `--max-model-len` 设为 {cap} 或更小；或者给 KV cache 腾空间：调高 `--gpu-memory-utilization`{util}，"
                           "或用更大的 `--tensor-parallel-size`{tp}。"},
    "serving_load": {"en": "Out-of-memory message from a running vLLM server, under load: **the headroom outside vLLM's share ran "
                           "out**: {platform} {dev} had {alloc:.2f} of {cap:.2f} GiB allocated when {tried:.2f} GiB more was asked "
                           "({share:.0%} of capacity). vLLM takes `--gpu-memory-utilization` of the card for weights and KV cache "
                           "at start; what a busy batch needs beyond that (sampling, activations of many requests) comes from "
                           "the rest, so the vendor's Ascend-vLLM FAQ lowers `--gpu-memory-utilization` first.",
                     "zh": "推理服务运行中（有负载时）的 OOM 报错：**vLLM 预留份额之外的余量不够了**：{platform} {dev} 已分配 "
                           "{alloc:.2f} / {cap:.2f} GiB 时再申请 {tried:.2f} GiB（占容量 {share:.0%}）。vLLM 启动时按 "
                           "`--gpu-memory-utilization` 占下权重和 KV cache；负载高时一批请求额外需要的（采样、多条请求的激活）"
                           "只能从剩下的部分来，所以厂商 Ascend-vLLM FAQ 的第一步是调低 `--gpu-memory-utilization`。"},
    "eval_phase": {"en": "**It ran out in evaluation, not in a training step**{batch}: the training steps ran, so the eval batch is "
                         "what to lower first.",
                   "zh": "**这是评估（eval）时的溢出，不是训练步**{batch}：训练步已经正常跑过，先调小 eval 的 batch。"},
    "log_estimate": {"en": "For comparison, the estimate (your log is what happened): ", "zh": "对照估算（以你的日志为准）："},
    "vllm_over": {"en": "**Does not fit: one request of {length} tokens needs {need:.2f} GiB of KV cache, {have:.2f} GiB is "
                        "available** (over by {over:.2f} GiB; vLLM's own figures).",
                  "zh": "**放不下：一条 {length} token 的请求需要 {need:.2f} GiB KV cache，可用 {have:.2f} GiB**"
                        "（超出 {over:.2f} GiB；vLLM 自己的数字）。"},
    "vllm_fit_len": {"en": "The KV cache holds {tokens:,} tokens: `--max-model-len {tokens}` or less fits one request "
                           "(or free memory: more tensor parallel, an 8-bit KV cache).",
                     "zh": "KV cache 可容纳 {tokens:,} 个 token：`--max-model-len {tokens}` 或更小即可放下一条请求"
                           "（或腾出显存：加大张量并行、8 bit KV cache）。"},
    "also_env": {"en": "Setting `{env}` also lets the allocator use the {cached:.2f} GiB it holds in cache.",
                 "zh": "设置 `{env}` 也能让分配器用上缓存中的 {cached:.2f} GiB。"},
    "change": {"en": "**Smallest change that fits: {desc}** → {total:.1f} GiB of {usable:.1f} GiB ({verdict}; estimate). "
                     "Speed: {speed}.",
               "zh": "**能放下的最小改动：{desc}** → {total:.1f} / {usable:.1f} GiB（{verdict}；估算）。速度代价：{speed}。"},
    # the closest change still needs more than the usable memory (a "tight" whose figure is over): never called one that fits
    "change_over": {"en": "**Closest change, still over: {desc}** → {total:.1f} GiB of {usable:.1f} GiB (estimate; it does not fit "
                          "on its own: combine it with more {unit}s). Speed: {speed}.",
                    "zh": "**最接近的改动，仍然超出：{desc}** → {total:.1f} / {usable:.1f} GiB（估算；单独改这一项放不下，"
                          "需要再加{unit}）。速度代价：{speed}。"},
    # fewer devices than the vendor's minimum: a change that fits on paper is the estimate's, not a setting the vendor ran
    "change_below_table": {"en": "This change fits on paper only: the vendor has not run this job on fewer than {table} {unit}s.",
                           "zh": "这个改动只是估算上放得下：厂商没有在少于 {table} {unit}上跑过这个任务。"},
    "host_ram": {"en": "Offload needs {ram:.0f} GiB of host RAM per node.", "zh": "卸载需要每节点 {ram:.0f} GiB 主机内存。"},
    "no_change": {"en": "No change in the usual order (micro batch, ZeRO stage, recompute, offload, more devices, shorter "
                        "length) fits on its own.",
                  "zh": "按常用顺序（micro batch、ZeRO 阶段、重计算、卸载、加卡、缩短长度）单独改其中任何一项，都放不下。"},
    "vendor_fits_combined": {"en": "The vendor's minimum-card table runs this job on {table} {unit}s (you have {devices}), so a "
                                   "setting that fits exists: combine the changes above (micro batch 1 with a larger TP × PP, full "
                                   "recompute) rather than one at a time.",
                             "zh": "厂商最小卡数表中此任务用 {table} {unit}（你有 {devices} {unit}）就能跑，所以能放下的设置是存在的："
                                   "把上面的改动组合起来（micro batch 1 加上更大的 TP × PP、完全重计算），而不是一次只改一项。"},
    "tried": {"en": "Tried first, not enough on its own: {items}.", "zh": "先试过但单独不够：{items}。"},
    "file": {"en": "The changed file, ready to use:", "zh": "改好的配置文件，可直接使用："},
    "table": {"en": "Vendor table for the same job: {rows}.", "zh": "厂商表格中同一任务：{rows}。"},
    "read": {"en": "Read: {items}.", "zh": "读到：{items}。"},
    # a DeepSpeed JSON read on its own: what it does, from the file alone (no model is needed to say it)
    "ds_does": {"en": "**This DeepSpeed config: ZeRO-{stage}** ({splits} split across the data-parallel devices); optimizer states "
                      "{opt}; parameters {par}{prec}.",
                "zh": "**这份 DeepSpeed 配置是 ZeRO-{stage}**（在数据并行的卡之间切分{splits}）；优化器状态{opt}；参数{par}{prec}。"},
    "ds_opt_off": {"en": "offloaded to {device} (`offload_optimizer.device {device}`)", "zh": "卸载到 {device}（`offload_optimizer.device {device}`）"},
    "ds_opt_on": {"en": "stay on the devices (no `offload_optimizer` to cpu/nvme)", "zh": "留在卡上（没有把 `offload_optimizer` 设为 cpu/nvme）"},
    "ds_par_off": {"en": "offloaded to {device} (`offload_param.device {device}`)", "zh": "卸载到 {device}（`offload_param.device {device}`）"},
    "ds_par_on": {"en": "are not offloaded (`offload_param` is none or absent)", "zh": "没有卸载（`offload_param` 为 none 或未写）"},
    "ds_par_ignored": {"en": "are not offloaded: `offload_param.device {device}` is read only by ZeRO-3, so at ZeRO-{stage} it does nothing",
                       "zh": "并没有卸载：`offload_param.device {device}` 只有 ZeRO-3 才读取，在 ZeRO-{stage} 下不起作用"},
    "ds_prec": {"en": "; {precision} training", "zh": "；{precision} 训练"},
    "assumed": {"en": "Assumed: {items}.", "zh": "假设：{items}。"},
    "unused": {"en": "Read but not used for memory: {items}.", "zh": "已读取但不影响显存：{items}。"},
    "kept": {"en": "Kept as they are in the changed file: {items}.", "zh": "改动后的文件中原样保留：{items}。"},
    "unknown": {"en": "Not a setting the framework has (check the spelling): {items}.",
                "zh": "框架没有这些参数（请检查拼写）：{items}。"},
    "error": {"en": "I could not check this setup: {message}", "zh": "无法检查这个配置：{message}"},
    "oom_only": {"en": "Paste the config or command beside the message to get the per-device estimate and the change that fits.",
                 "zh": "请把配置文件或启动命令一起贴上，以便给出每卡估算和能放下的改动。"},
    "source": {"en": "Source: estimate ({how}).", "zh": "来源：估算（{how}）。"},
}
ASSUMED = {
    "framework_default": {"en": "{name} {value} ({detail}'s default)", "zh": "{name} {value}（{detail} 默认值）"},
    "vllm_default": {"en": "{name} {value} (vLLM's default)", "zh": "{name} {value}（vLLM 默认值）"},
    "model_context": {"en": "{name} {value} (vLLM's default: the model's context length)",
                      "zh": "{name} {value}（vLLM 默认：模型的上下文长度）"},
    "devices_not_given": {"en": "{name} {value} (the text does not say how many; give devices)",
                          "zh": "{name} {value}（文本未说明卡数，可另行给出）"},
    "per_node_default": {"en": "{name} {value} (a full node; NPUS_PER_NODE not given)",
                         "zh": "{name} {value}（整机；未给出 NPUS_PER_NODE）"},
    "no_part_named": {"en": "{name} {value} (the text names no part)", "zh": "{name} {value}（文本未指明硬件）"},
    "recipe_default": {"en": "{name} {value} (the vendor recipe tables' value; the message gives no config)",
                       "zh": "{name} {value}（厂商配方表的取值；报错中没有配置）"},
    "trainer_fills": {"en": "{name} {value} (set by the trainer's arguments, which are not pasted: a DeepSpeed JSON leaves it "
                               "to them (\"auto\"); the vendor recipe tables' value)",
                      "zh": "{name} {value}（由训练参数决定，未贴出；DeepSpeed JSON 中为 \"auto\" 或未写；按厂商配方表的取值）"},
    "capacity": {"en": "{name} {value} (from the total capacity the message reports{detail})",
                 "zh": "{name} {value}（按报错中的总容量{detail}）"},
    "params_b": {"en": "{name} {value}B as given, Llama-like shape inferred",
                 "zh": "{name} {value}B（按给定参数量，推断为 Llama 式结构）"},
    "config_json": {"en": "{name} {value}B from the pasted config.json", "zh": "{name} {value}B（来自粘贴的 config.json）"},
}
REMEDY = {
    "expandable_segments": {"en": "`export {env}` (the allocator grows segments instead of splitting them: less fragmentation)",
                            "zh": "`export {env}`（分配器扩展内存段而不是切分，减少碎片）"},
    "micro_batch": {"en": "lower `per_device_train_batch_size` (to 1) and raise `gradient_accumulation_steps` to keep the global batch",
                    "zh": "调小 `per_device_train_batch_size`（到 1），调大 `gradient_accumulation_steps` 保持全局 batch"},
    "zero_next": {"en": "a more memory-saving DeepSpeed stage, one step at a time: {next}",
                  "zh": "逐级换更省显存的 DeepSpeed 阶段：{next}"},
    "offload": {"en": "ZeRO-3 with CPU offload (`ds_z3_offload_config.json`), if the host has the RAM; slower steps",
                "zh": "ZeRO-3 加 CPU 卸载（`ds_z3_offload_config.json`），前提是主机内存够；每步变慢"},
    "more_devices": {"en": "more cards, so ZeRO-2/3 split the states further", "zh": "增加卡数，让 ZeRO-2/3 切分得更细"},
    "seq_len": {"en": "a shorter `cutoff_len` / `SEQ_LEN` (activations grow with the length)",
                "zh": "缩短 `cutoff_len` / `SEQ_LEN`（激活随长度增长）"},
    "tp_pp": {"en": "raise `TP` and/or `PP` (TP × PP must divide the card count)", "zh": "加大 `TP` 和/或 `PP`（TP × PP 须整除卡数）"},
    "mbs_1": {"en": "`MBS=1` (GBS / MBS must stay divisible by the data-parallel size)",
              "zh": "`MBS=1`（GBS / MBS 仍须能被数据并行数整除）"},
    "recompute": {"en": "full recomputation: `--recompute-granularity full --recompute-method block --recompute-num-layers <num-layers>`",
                  "zh": "开启完全重计算：`--recompute-granularity full --recompute-method block --recompute-num-layers <层数>`"},
    "lower_utilization": {"en": "lower `--gpu-memory-utilization` (vLLM FAQ)", "zh": "调低 `--gpu-memory-utilization`（vLLM 常见问题）"},
    "max_model_len": {"en": "a smaller `--max-model-len` or fewer `--max-num-seqs`", "zh": "调小 `--max-model-len` 或 `--max-num-seqs`"},
    "tensor_parallel": {"en": "a larger `--tensor-parallel-size`", "zh": "加大 `--tensor-parallel-size`"},
    "leftover_processes": {"en": "", "zh": ""},
    "eval_batch": {"en": "it ran out in evaluation, not in training: lower `per_device_eval_batch_size` (now {value}; the training "
                         "steps fit), e.g. to 1 or to `per_device_train_batch_size`",
                   "zh": "是在评估（eval）时溢出，不是训练步：调小 `per_device_eval_batch_size`（现为 {value}；训练步本身放得下），"
                         "例如降到 1 或与 `per_device_train_batch_size` 相同"},
}
ERROR_ZH = {  # the tool's errors a Chinese question meets most, in Chinese (the English message kept where it names a line)
    "unknown_model": "模型不在目录中：请给出参数量（params_b，例如 7）或把它的 config.json 一起贴上。",
    "no_hardware": "配置在 GPU 上运行，但没有说明型号：请给出硬件（例如 a100、h100、4090）。",
    "nothing_recognised": "没有识别到可读取的配置：LLaMA-Factory YAML、DeepSpeed JSON、MindSpeed-LLM 变量、vLLM / torchrun / "
                          "deepspeed / llamafactory-cli 命令或 OOM 报错。",
    "invalid_yaml": "YAML 格式有误（{message}）",
    "invalid_json": "JSON 格式有误（{message}）",
}
FIX = {"en": "Corrected line:", "zh": "改为："}
GA_FIX = {"en": "Or keep {value} and set `\"gradient_accumulation_steps\": {ga_fix}` ({value} / ({micro} × {dp})).",
          "zh": "或保留 {value}，把 `\"gradient_accumulation_steps\"` 改为 {ga_fix}（{value} / ({micro} × {dp})）。"}
APPLIED = {"en": "The estimate below uses the corrected value.", "zh": "下面的估算按改正后的值计算。"}
KEPT_BATCH = {"en": " (global batch kept)", "zh": "（全局 batch 不变）"}
VERDICT = {"fits": {"en": "fits", "zh": "放得下"}, "tight": {"en": "tight", "zh": "勉强"},
           "does_not_fit": {"en": "does not fit", "zh": "放不下"}}
SPEED_ZH = {"micro_batch": "吞吐基本不变：同样的全局 batch 分成更多更小的 micro step",
            "zero_stage": "ZeRO-3 在前向和反向中还要聚合参数：通信量约为 1.5 倍（每步 3 份 vs 2 份模型大小）",
            "recompute": "每步计算量约多 1/3：反向时重算一次前向",
            "offload": "每步变慢：优化器在主机 CPU 上运行，梯度和参数每步经 PCIe 传输（视主机而定，先跑几步测一下）",
            "devices": "单步不变慢；需要更多卡（和节点）", "seq_len": "不变慢；超出新长度的样本会被截断（数据变化，请检查样本长度）",
            "kv_cache_dtype": "在支持的硬件上基本不变慢；8 bit KV cache 有少量精度损失",
            "tensor_parallel": "需要更多卡；每层的 token 在卡间做两次 all-reduce", "max_model_len": "不变慢；超出新长度的请求会被拒绝"}


def notice_text(notice: str, lang: str) -> str:
    """A remark of the reader in the answer's language (setup_check.notices holds each in both)."""
    return in_language(notice, lang)


def _p(key: str, lang: str, **kw: Any) -> str:
    return P[key][lang].format(**kw)


# what each ZeRO stage splits across the data-parallel devices (DeepSpeed's ZeRO stages)
DS_SPLITS = {"en": ["nothing", "optimizer states", "optimizer states and gradients", "optimizer states, gradients and parameters"],
             "zh": ["（不切分）", "优化器状态", "优化器状态和梯度", "优化器状态、梯度和参数"]}


def _ds_does(r: dict[str, Any], lang: str) -> list[str]:
    """A DeepSpeed JSON with no model to size: what the file does (stage, where optimizer states and parameters live,
    precision) leads, from the file alone; the request for a model follows for the memory figures."""
    if "deepspeed_json" not in (r.get("recognised") or []) or r.get("training") or r.get("serving"):
        return []
    got = {x["name"]: x["value"] for x in r.get("read") or []}
    stage = got.get("zero_stage")
    if not isinstance(stage, int) or not 0 <= stage <= 3:
        return []
    opt, par = got.get("offload_optimizer_device"), got.get("offload_param_device")
    splits = DS_SPLITS[lang][stage]
    par_text = (_p("ds_par_off", lang, device=par) if par and stage == 3 else
                _p("ds_par_ignored", lang, device=par, stage=stage) if par else _p("ds_par_on", lang))
    prec = _p("ds_prec", lang, precision=str(got["precision"]).upper()) if got.get("precision") else ""
    return [_p("ds_does", lang, stage=stage, splits=splits, par=par_text, prec=prec,
               opt=_p("ds_opt_off", lang, device=opt) if opt else _p("ds_opt_on", lang))]


# the batch a question asks of a pasted setup ("what's the effective global batch", "等效的全局 batch", "train_batch_size 要不要写")
BATCH_ASKED = re.compile(r"(?:global|effective|total|overall)\s+batch|train_batch_size|(?:全局|等效|总的?|实际的?|有效的?)\s*(?:的\s*)?batch"
                         r"|\bgbs\b|batch\s*(?:size)?\s*(?:is|=)\s*(?:how|what)")


def _global_batch(r: dict[str, Any], lang: str) -> list[str]:
    """The global batch a pasted setup makes when it gives micro batch, gradient accumulation and the devices but no
    global batch of its own: micro × GA × DP (DP = devices / (TP × PP × CP)), and for a DeepSpeed JSON without
    train_batch_size that DeepSpeed derives it (its rule: train_batch_size = micro × GA × DP)."""
    got = {x["name"]: x["value"] for x in r.get("read") or []}
    mbs, ga, devices = got.get("micro_batch"), got.get("grad_accum"), got.get("devices")
    if "global_batch" in got or not (isinstance(mbs, int) and isinstance(ga, int) and isinstance(devices, int)) or min(mbs, ga, devices) <= 0:
        return []
    split = 1
    for k in ("tp", "pp", "cp"):
        v = got.get(k)
        split *= v if isinstance(v, int) and v > 0 else 1
    if devices % split:
        return []
    dp = devices // split
    how = "" if split == 1 else (f" ({devices} / {split})" if lang == "en" else f"（{devices} / {split}）")
    out = [_p("global_batch_is", lang, gbs=mbs * ga * dp, mbs=mbs, ga=ga, dp=dp, dp_how=how)]
    if "deepspeed_json" in (r.get("recognised") or []):
        out.append(_p("ds_tbs_optional", lang, gbs=mbs * ga * dp))
    return out


REFUSING = frozenset(rule.code for rule in RULES if rule.refuses)  # findings the framework stops on (rules.py)


def render_setup(r: dict[str, Any], lang: str, batch_asked: bool = False, verdict_asked: bool = False) -> str:
    if "error" in r:
        e = r["error"]
        if e.get("code") == "invalid_json" and isinstance(e.get("valid"), dict) and "problem" in e["valid"]:
            return _json_error(e["valid"], lang)
        zh = ERROR_ZH.get(e.get("code", "")) if lang == "zh" else None
        return _p("error", lang, message=zh.format(message=e.get("message", "")) if zh else e.get("message", ""))
    findings = [_finding(f, lang) for f in r.get("findings") or []]
    if failed := _vllm_failed(r, lang):  # the log says the server did not start: that leads, the estimate compares
        head = _headline(r, lang)
        out = [*findings, *failed, *([_p("log_estimate", lang) + head[0], *head[1:]] if head else [])]
    elif r.get("oom"):  # a message: what it says and what to change first, then the estimate of the job it names
        out = [*findings, *_oom(r, lang), *_headline(r, lang), *_vllm_log(r, lang), *_change(r, lang)]
    else:
        batch = _global_batch(r, lang) if batch_asked else []  # the batch asked leads; what the file does follows
        # only a value the framework refuses to start on goes before the batch asked; other findings follow it
        first = [t for f, t in zip(r.get("findings") or [], findings, strict=True) if not batch or f["code"] in REFUSING]
        rest = [t for t in findings if t not in first]
        out = [*first, *batch, *rest, *_ds_does(r, lang), *_headline(r, lang, verdict_asked), *_batch_split(r, lang), *_vllm_log(r, lang),
               *_change(r, lang)]
    if r.get("kind") in ("benchmark", "preprocess") and not findings:
        out.append(_checked_command(r, lang))
    if r.get("table"):
        out.append(_p("table", lang, rows=("；" if lang == "zh" else "; ").join(in_language(t, lang) for t in r["table"])))
    sep = "；" if lang == "zh" else "; "
    if r.get("read"):
        out.append(_p("read", lang, items=sep.join(f"{x['name']} {x['value']} ({x['source']})" for x in r["read"])))
    if r.get("assumed"):
        out.append(_p("assumed", lang, items=sep.join(_assumed(a, lang) for a in r["assumed"])))
    for key in ("unused", "kept", "unknown"):
        if r.get(key):
            out.append(_p(key, lang, items=sep.join(r[key])))
    out += [notice_text(n, lang) for n in r.get("notices") or []]
    for part in ("training", "serving"):
        how = (r.get(part) or {}).get("assumptions") or []
        if how:
            out.append(_p("source", lang, how=sep.join(assumption_zh(a) if lang == "zh" else a for a in how)))
    return "\n\n".join(out)


# The JSON parser's problem codes (setup_check/errors.py JSON_PROBLEMS) in Chinese
JSON_PROBLEM_ZH = {"trailing_comma": "右括号前多了一个逗号（JSON 不允许末尾逗号）", "double_comma": "连续两个逗号（中间缺了一个值）",
                   "single_quotes": "用了单引号：JSON 的键和字符串必须用双引号", "unquoted_key": "键没有加双引号",
                   "missing_comma": "两项之间缺逗号（或括号提前闭合）", "unclosed": "文本结束时仍有括号没有闭合",
                   "comment": "有注释：JSON 不支持注释", "python_literal": "用了 Python 的值（True、False 或 None）：JSON 写作 true、false 和 null",
                   "other": "无法解析"}


def _json_error(v: dict[str, Any], lang: str) -> str:
    """Malformed JSON: where the parser stopped and what is wrong there, in the question's language."""
    n = v.get("unclosed") or 0
    more = bool(n) and v.get("problem") != "unclosed"
    if lang == "zh":
        problem = JSON_PROBLEM_ZH.get(v.get("problem", ""), "无法解析")
        unclosed, fix = (f"；另有 {n} 个括号没有闭合" if more else ""), "改正后（键用双引号、去掉多余的逗号、补齐括号）再贴一次即可检查。"
    else:
        problem = JSON_PROBLEMS.get(v.get("problem", "")) or v.get("parser", "")
        unclosed = f"; {n} bracket(s) are never closed" if more else ""
        fix = "Fix it (double-quoted keys, no trailing commas, every bracket closed) and paste it again to check it."
    # every fault has one fix (setup_check.errors.repaired_json): the file as meant, whole; only for a DeepSpeed config
    # (a trainer's log line "{'loss': 1.0, …}" parses the same way but is no file to correct)
    if v.get("repaired") and deepspeed.KNOWN & set(json.loads(v["repaired"])):
        fix = W["setup_json_repaired"][lang] + f"\n```json\n{v['repaired']}\n```"
    return W["setup_invalid_json"][lang].format(line=v.get("line"), column=v.get("column"), snippet=v.get("snippet", ""),
                                                problem=problem, unclosed=unclosed, fix=fix)


def _checked_command(r: dict[str, Any], lang: str) -> str:
    """A benchmark or preprocessing command in which no rule found a fault: what was checked, with the user's values."""
    key = "setup_benchmark_ok" if r.get("kind") == "benchmark" else "setup_preprocess_ok"
    return W[key][lang].format(items=("，" if lang == "zh" else ", ").join(_checked_items(r, lang)) or "-")


def _checked_items(r: dict[str, Any], lang: str) -> list[str]:
    """What the command check verified, each with the user's values."""
    got = {x["name"]: x["value"] for x in r.get("read") or []}
    en = lang == "en"
    items = []
    if got.get("benchmark_backend"):
        url = str(got.get("benchmark_url") or "").rstrip("/")
        ending = next((e for e in BENCHMARK_URL_BACKEND if url.endswith(e)), None)
        items.append(f"`--backend {got['benchmark_backend']}`" + (
            (f" matches the URL ending `{ending}`" if en else f" 与 URL 结尾 `{ending}` 匹配") if ending else ""))
    if got.get("prompt_tokens") and got.get("output_tokens"):
        n = len(got["prompt_tokens"])
        items.append(f"{n} prompt length(s) paired with {n} output length(s)" if en else f"{n} 个输入长度与 {n} 个输出长度一一配对")
    if got.get("parallel_num"):
        items.append(f"concurrency {' '.join(map(str, got['parallel_num']))}" if en else f"并发 {' '.join(map(str, got['parallel_num']))}")
    if got.get("request_rate") and got.get("num_prompts"):
        items.append("one --num-prompts per --request-rate" if en else "每个 --request-rate 对应一个 --num-prompts")
    for name, flag in (("data_input", "--input"), ("tokenizer_type", "--tokenizer-type"), ("handler_name", "--handler-name")):
        if got.get(name):
            items.append(f"`{flag} {got[name]}`")
    if got.get("data_purpose"):
        items.append(("for " + {"sft": "SFT / LoRA", "pt": "pretraining"}[got["data_purpose"]]) if en else
                     ("用于 " + {"sft": "SFT / LoRA", "pt": "预训练"}[got["data_purpose"]]))
    return items


def _batch_split(r: dict[str, Any], lang: str) -> list[str]:
    """A MindSpeed-LLM global batch that the rule (rules.py gbs_not_divisible) found whole: the split it makes, so a
    stated GBS is used and checked in the answer, not only read."""
    t = r.get("training") or {}
    gbs = next((x["value"] for x in r.get("read") or [] if x["name"] == "global_batch"), None)
    if t.get("framework") != "MindSpeed-LLM" or not isinstance(gbs, int) or any(
            f["code"] == "gbs_not_divisible" for f in r.get("findings") or []):
        return []
    tp, pp, cp, mbs = t.get("tp") or 1, t.get("pp") or 1, t.get("cp") or 1, t.get("micro_batch") or 1
    dp = t["devices"] // (tp * pp * cp)
    if not dp or gbs % (mbs * dp):
        return []
    return [_p("gbs_splits", lang, gbs=gbs, mbs=mbs, dp=dp, ga=gbs // (mbs * dp), devices=t["devices"], tp=tp, pp=pp,
               cp=f" × CP {cp}" if cp > 1 else "")]


def _assumed(a: dict[str, Any], lang: str) -> str:
    detail = a.get("detail") or ""
    if a["why"] == "capacity" and detail:
        detail = f"; also {detail}" if lang == "en" else f"；也可能是 {detail}"
    return ASSUMED[a["why"]][lang].format(name=a["name"], value=a["value"], detail=detail)


def _description(c: dict[str, Any], lang: str) -> str:
    before = c.get("before") or {}
    parts = [f"{k} {before.get(k)} → {v}" for k, v in c["settings"].items() if before.get(k) != v]
    return ("，" if lang == "zh" else ", ").join(parts) + (KEPT_BATCH[lang] if c["kind"] == "micro_batch" else "")


# the assumed values that change a training verdict (memory per device, or the count against the vendor minimum)
VERDICT_INPUTS = frozenset({"devices", "micro_batch", "zero_stage", "offload", "seq_len", "hardware"})


def _headline(r: dict[str, Any], lang: str, verdict_asked: bool = False) -> list[str]:
    t, s = r.get("training"), r.get("serving")
    unit = {"en": r.get("unit") or "device", "zh": "卡" if (r.get("unit") or "card") == "card" else r.get("unit") or "卡"}[lang]
    if t:
        # what the verdict judges: the pool less the cached blocks the allocator gives back before an OOM (they fill
        # whatever room is free, so the pool itself reads "61.0 of 61.0, 0.0 to spare"; round 8 p08)
        needed = t["total_gib"] - t.get("cached_gib", 0.0)
        o = r.get("oom") or {}
        if o and r["verdict"] != "does_not_fit":
            # the user reports the OOM: an estimate that fits is no verdict on their run, only a range to compare with;
            # one above the usable memory it states ("tight", 63.7 of 61.0 GiB) agrees with the OOM and says so
            cached = t.get("cached_gib", 0.0)
            over = needed > t["usable_gib"]
            line = [_p("oom_estimate_over" if over else "oom_fits_on_paper", lang, total=needed,
                       over=round(needed, 1) - round(t["usable_gib"], 1), low=t.get("low_gib", needed) - cached, high=t.get("high_gib", needed) - cached,
                       usable=t["usable_gib"], hw=r["hardware"], unit=unit, alloc=o.get("allocated_gib") or o.get("in_use_gib") or 0.0,
                       smi="npu-smi info" if o.get("platform") == "npu" else "nvidia-smi")]
            if (r.get("table_min_devices") or 0) > t["devices"]:
                line.append(_p("below_table_no_fit", lang, table=r["table_min_devices"], devices=t["devices"], unit=unit))
            return line
        key = "tight_over" if r["verdict"] == "tight" and needed > t["usable_gib"] else r["verdict"]
        line = [_p(key, lang, total=needed, usable=t["usable_gib"], hw=r["hardware"], unit=unit, head=t["usable_gib"] - needed,
                   over=needed - t["usable_gib"], low=t.get("low_gib", needed) - t.get("cached_gib", 0.0))]
        assumed = [a for a in r.get("assumed") or [] if a.get("name") in VERDICT_INPUTS]
        table = r.get("table_min_devices") or 0
        # a yes/no on the user's own count: the vendor table's verdict leads, the estimate beside it
        own = verdict_asked and not any(a["name"] == "devices" for a in assumed)
        if table > t["devices"]:  # fewer than the vendor tested: fits on paper, or not at all
            below = "below_table_assumed" if any(a["name"] == "devices" for a in assumed) else \
                "below_table_no_fit" if key in ("does_not_fit", "tight_over") else "below_table"  # "fits on paper" only if it does
            said = _p(below, lang, table=table, devices=t["devices"], unit=unit)
            line.insert(0 if own else len(line), said)
        elif table and own and r["verdict"] != "does_not_fit":
            line.insert(0, _p("at_table", lang, table=table, devices=t["devices"], unit=unit))
        if assumed:  # "放不下 237 GiB" from a default micro batch of 8: said as the default's, not the user's
            line.append(_p("on_assumed", lang, items=("，" if lang == "zh" else ", ").join(f"{a['name']} {a['value']}" for a in assumed)))
        return line
    if s:
        key = "serve_fits" if s["fits"] else "serve_weights" if s["kv_cache_gib"] < 0 else "serve_no"
        # --max-num-seqs only caps how many run at once: more sequences of max-model-len than the KV cache holds cannot all
        # run at full length together (round 9 c8-02: "Fits" for 100,000 sequences of 40,960 tokens on one card)
        cap = next((int(x["value"]) for x in r.get("read") or [] if x.get("name") == "max_num_seqs"), 0)
        if s["fits"] and cap > s["max_sequences_at_len"]:
            key = "serve_not_all"
        # a length above the model's context was flagged, not corrected, in the estimate: say what the figure assumes
        beyond = next((f for f in r.get("findings") or [] if f["code"] == "vllm_max_model_len" and not f.get("applied")), None)
        basis = _p("serve_beyond", lang, length=s["max_model_len"], context=(beyond.get("figures") or {}).get("context")) if beyond else ""
        return [basis + _p(key, lang, cap=cap, w=s["weights_gib_per_device"], budget=s["budget_gib"], seqs=s["max_sequences_at_len"], length=s["max_model_len"], devices=s["devices"], tp=s["tp"],
                   unit=unit, hw=r["hardware"], kv=s["kv_cache_gib"])]
    return []


def _vllm_failed(r: dict[str, Any], lang: str) -> list[str]:
    """A vLLM start-up log that failed (no memory left for the cache blocks, or a max-model-len its cache cannot hold): the
    log's verdict with the user's own values in the remedies; empty when the log shows no failure."""
    v = r.get("vllm_log") or {}
    got = {x["name"]: x["value"] for x in r.get("read") or []}
    zh = lang == "zh"

    def now(name: str, fmt: str = "{}") -> str:
        return (f"（现为 {fmt.format(got[name])}）" if zh else f" (now {fmt.format(got[name])})") if got.get(name) is not None else ""
    kw = dict(util=now("gpu_memory_utilization"), tp=now("tp"), batched_now=now("max_num_batched_tokens"),
              weights=(f"（{v['weights_gib']} GiB）" if zh else f" ({v['weights_gib']} GiB)") if v.get("weights_gib") else "",
              batched=(f" {got['max_num_batched_tokens']:,}" if got.get("max_num_batched_tokens") else ""))
    if v.get("no_cache_memory"):
        return [_p("log_no_cache", lang, **kw)]
    cap = v.get("kv_capacity_tokens")
    if cap and v.get("max_seq_len") and cap < v["max_seq_len"]:
        return [_p("log_too_long", lang, length=v["max_seq_len"], cap=cap, **kw)]
    return []


def _vllm_log(r: dict[str, Any], lang: str) -> list[str]:
    v = r.get("vllm_log")
    if not v:
        return []
    out: list[str] = []  # (a log that failed leads on its own: _vllm_failed)
    if v.get("kv_needed_gib") and v.get("kv_cache_gib") is not None and not r.get("serving"):
        out.append(_p("vllm_over", lang, length=v["max_seq_len"], need=v["kv_needed_gib"], have=v["kv_cache_gib"],
                      over=v["kv_needed_gib"] - v["kv_cache_gib"]))
    names = {"weights_gib": ("weights", "权重"), "kv_cache_gib": ("KV cache memory", "KV cache 显存")}
    items = [f"{names[k][lang == 'zh']} {v[k]} GiB" for k in names if v.get(k) is not None]
    if v.get("kv_tokens"):
        items.append(f"KV cache {v['kv_tokens']:,} tokens")
    if items:
        out.append(_p("vllm_log", lang, items=", ".join(items)))
    if v.get("kv_tokens") and v.get("max_seq_len") and v["kv_tokens"] < v["max_seq_len"]:
        out.append(_p("vllm_fit_len", lang, tokens=v["kv_tokens"]))
    return out


def _oom(r: dict[str, Any], lang: str) -> list[str]:
    o = r.get("oom")
    if not o:
        return []
    dev = "" if o.get("device_index") is None else str(o["device_index"])
    env = o.get("allocator_setting") or ""
    kw = dict(platform=o["platform"].upper(), dev=dev, alloc=o.get("allocated_gib") or 0.0, cap=o["capacity_gib"],
              tried=o["tried_gib"], share=o.get("allocated_share") or 0.0, short=o["short_by_gib"],
              reserved=o.get("reserved_gib") or 0.0, cached=o.get("cached_gib") or 0.0, env=env)
    under_load = any(x["name"] == "phase" and x["value"] == "serving_load" for x in r.get("read") or [])
    if under_load and o["cause"] != "held_elsewhere":
        out = [_p("serving_load", lang, **{**kw, "alloc": o.get("allocated_gib") or o.get("in_use_gib") or 0.0})]
    elif o.get("allocated_gib") is None and o.get("in_use_gib") is not None:
        out = [_p("too_big_in_use", lang, **{**kw, "alloc": o["in_use_gib"]})]
    else:
        out = [_p(o["cause"], lang, **kw, outside=o.get("outside_gib") or 0.0)]
    told = next((a for a in r.get("assumed") or [] if a.get("name") == "hardware" and a.get("why") == "capacity"), None)
    if told:  # the part the capacity tells: said, not left to the assumptions' list at the end
        also = (f" (or {told['detail']})" if lang == "en" else f"（也可能是 {told['detail']}）") if told.get("detail") else ""
        out.append(_p("capacity_part", lang, hw=told["value"], cap=o["capacity_gib"], also=also))
    phase = {x["name"]: x["value"] for x in r.get("read") or []}
    if phase.get("phase") == "eval":
        batch = phase.get("eval_batch")
        out.insert(0, _p("eval_phase", lang, batch=(f"（`per_device_eval_batch_size: {batch}`）" if lang == "zh" else
                                                    f" (`per_device_eval_batch_size: {batch}`)") if batch else ""))
    if (o.get("outside_gib") or 0) > OUTSIDE_SHARE * o["capacity_gib"] and o["cause"] != "held_elsewhere":
        out.append(_p("outside", lang, outside=o["outside_gib"], cap=o["capacity_gib"]))
    remedies = [x for x in o.get("remedies") or [] if x["code"] != "leftover_processes"]
    if remedies:
        out.append(_p("remedies", lang) + "\n" + "\n".join(
            f"{i}. {REMEDY[x['code']][lang].format(value=x.get('value'), env=_env(o), next=_next_zero(x, lang))}"
            for i, x in enumerate(remedies, 1)))
    elif o["cause"] == "too_big" and env:
        out.append(_p("also_env", lang, **kw))
    if r.get("kind") == "oom_only":
        out.append(_p("oom_only", lang))
    return out


def _env(o: dict[str, Any]) -> str:
    return ("PYTORCH_NPU_ALLOC_CONF" if o["platform"] == "npu" else "PYTORCH_CUDA_ALLOC_CONF") + "=expandable_segments:True"


def _next_zero(x: dict[str, Any], lang: str) -> str:
    if x["code"] != "zero_next":
        return ""
    if x.get("value") is None:
        return "ZeRO-1 → ZeRO-2 → ZeRO-3" if lang == "en" else "ZeRO-1 → ZeRO-2 → ZeRO-3"
    return f"ZeRO-{x['value'] - 1} → ZeRO-{x['value']}"


def finding_text(f: dict[str, Any], lang: str) -> str:
    """One finding (setup_check/rules.py) in the question's language: the rule broken by the user's value, with the
    numbers it used and where the rule is written. The same sentence for a paste and for values said in words."""
    fig = f.get("figures") or {}
    if lang == "zh" and fig.get("model") == UNNAMED_MODEL:
        fig = {**fig, "model": "该模型"}
    variant = f"_{fig['variant']}" if fig.get("variant") else ""  # one rule, several cases: one phrase per case
    text = W[f"finding_{f['code']}{variant}"][lang].format(key=f["key"], value=f["value"], valid=f["valid"],
                                                           **{**_worded(fig, lang), **fig})
    source = (f.get("source_zh") if lang == "zh" else None) or f.get("source")
    if source:
        text += " " + W["finding_source"][lang].format(source=source)
    return text


def _worded(fig: dict[str, Any], lang: str) -> dict[str, str]:
    """The parts of a finding's sentence that depend on the language: the user's devices, a CP factor, the layouts
    that fit, and the recipe's cards beside the user's."""
    en = lang == "en"

    def have(n: Any) -> str:
        return f"{n} DIE" if fig.get("die") else (f"{n} card{'s' * (n != 1)}" if en else f"{n} 张卡")

    cp = fig.get("cp") or 1
    out = {"have": have(fig.get("devices")), "cp_part": f" × CP {cp}" if cp > 1 else "", "cpx": " × CP" if cp > 1 else "",
           "fix": "", "yours": "", "theirs": ""}
    if "mp" in fig or "split" in fig:  # the split DP is counted over: "(TP 2 × PP 2) = 4", or the devices alone
        tp, pp = fig.get("tp") or 1, fig.get("pp") or 1
        out["mp"] = str(fig.get("mp") or tp * pp * cp)
        devices = fig.get("devices")
        out["dp_text"] = (f"DP = {devices} / (TP {tp} × PP {pp}{out['cp_part']})" if fig.get("split") else
                          (f"DP = all {devices} devices, no TP / PP" if en else f"DP = 全部 {devices} 张卡，无 TP / PP"))
    if fig.get("options"):
        dp = "({} {})" if en else "（{}{}）"
        shown = (", " if en else "，").join(f"TP {t} × PP {p}{out['cp_part']}" + (" " if en else "")
                                           + dp.format("DP" if en else "数据并行 ", n) for t, p, n in fig["options"])
        out["fix"] = W["finding_layout_options"][lang].format(devices=fig["devices"], options=shown)
    if fig.get("devices") and fig.get("recipe_devices") and fig["devices"] != fig["recipe_devices"]:
        out["yours"], out["theirs"] = ((f" on {have(n)}" if en else f"，{have(n)}") for n in (fig["devices"], fig["recipe_devices"]))
    return out


def _finding(f: dict[str, Any], lang: str) -> str:
    fig = f.get("figures") or {}
    text = finding_text(f, lang)
    if f["code"] == "ds_train_batch_size" and fig.get("ga_fix"):
        text += " " + GA_FIX[lang].format(value=f["value"], **fig)
    if f.get("applied") and not fig.get("as_run"):  # as_run: the finding's own sentence says what the estimate runs on
        text += " " + APPLIED[lang]
    if f.get("corrected"):  # a whole file mended is its own block (its sentence says so); a line is "Corrected line:"
        text += f"\n```yaml\n{f['corrected']}\n```" if f["code"] == "yaml_fixed_file" else "\n" + FIX[lang] + f"\n```\n{f['corrected']}\n```"
    return text


def _change(r: dict[str, Any], lang: str) -> list[str]:
    c = r.get("change")
    out = []
    if r.get("tried") and (c or r.get("verdict") == "does_not_fit"):
        out.append(_p("tried", lang, items=", ".join(r["tried"])))
    if not c:
        if r.get("verdict") == "does_not_fit":
            out.append(_p("no_change", lang))
            t = r.get("training") or {}
            unit = {"en": r.get("unit") or "device", "zh": "卡" if (r.get("unit") or "card") == "card" else r.get("unit") or "卡"}[lang]
            if r.get("table_min_devices") and t.get("devices") and r["table_min_devices"] <= t["devices"]:
                # the vendor ran this job on no more devices: "nothing fits" would contradict the row quoted below
                out.append(_p("vendor_fits_combined", lang, table=r["table_min_devices"], devices=t["devices"], unit=unit))
        return out
    speed = SPEED_ZH.get(c["kind"], c["speed_cost"]) if lang == "zh" else c["speed_cost"]
    unit = {"en": r.get("unit") or "device", "zh": "卡" if (r.get("unit") or "card") == "card" else r.get("unit") or "卡"}[lang]
    over = c["verdict"] == "does_not_fit" or c["total_gib"] > c["usable_gib"]
    out.insert(0, _p("change_over" if over else "change", lang, desc=_description(c, lang), total=c["total_gib"],
                     usable=c["usable_gib"], verdict=VERDICT[c["verdict"]][lang], speed=speed, unit=unit))
    devices = (r.get("training") or {}).get("devices") or 0
    if not over and devices and (r.get("table_min_devices") or 0) > devices:
        out.insert(1, _p("change_below_table", lang, table=r["table_min_devices"], unit=unit))
    if c.get("host_ram_gib"):
        out.append(_p("host_ram", lang, ram=c["host_ram_gib"]))
    if c.get("files"):
        out.append(_p("file", lang))
        for f in c["files"]:
            fence = "json" if f["filename"].endswith(".json") else "bash" if f["filename"].endswith(".sh") else "yaml"
            out.append(f"`{f['filename']}`\n```{fence}\n{f['content'].rstrip()}\n```")
    elif c.get("file_note"):
        out.append(c["file_note"])
    return out
