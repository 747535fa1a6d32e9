"""Sentences of an answer written in the other language than the question's: English prose inside a Chinese
answer, Chinese prose inside an English one.

What is not prose and keeps its own language is left out before looking: code blocks and inline code, quoted
note passages (lines starting with ``>``), URLs, identifiers (snake_case keys, CamelCase names, flags, file names,
names with digits such as ``qwen2.5-7b`` or ``Snt9B23``), the answer's source line, and text the question itself
holds (a pasted error echoed back is the user's material, not the writer's words).

A Chinese answer slips when one stretch outside those has a run of ordinary English words (``RUN_WORDS`` or more, jargon
such as LoRA, ZeRO, DeepSpeed, token not counted); an English answer slips when a stretch outside those holds
Chinese characters that the question did not.
"""

from __future__ import annotations

import re

# a citation: the vendor page titles it names are the pages' own (Chinese) names, labelled as such
CITATION = re.compile(r"[（(]\s*(?:sources?|rules?|ModelArts|来源|规则出处|出处)\s*[:：].*$|(?:sources?|来源)\s*[:：].*$", re.I | re.M)
# a Chinese console label or term with its English gloss ("调用指南 (Usage Guides)"), a page named as a page, or a
# vendor's term in parentheses after the English ("(volcano资源调度失败)"): labelled, not prose
GLOSSED = re.compile(r"[\u3400-\u9fff][^\s,;.()（）]*\s*[（(][A-Za-z][^)）]*[)）]|(?:page|tab|titled|called|named)\s+[“\"']?[^\s,;]*[\u3400-\u9fff][^,;)]*"
                     r"|[（(][A-Za-z\s]*[\u3400-\u9fff][^()（）]{0,20}[)）]"
                     r"|[“\"「][^”\"」\n]*[\u3400-\u9fff][^”\"」\n]*[”\"」]\s*[,，(（]\s*[A-Za-z]", re.I)
RUN_WORDS, RUN_CONTENT = 4, 3  # ordinary English words (and of them not stop words) that make an English sentence
CODE_BLOCK = re.compile(r"```.*?(?:```|$)", re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
URL = re.compile(r"https?://\S+|\b[\w.-]+\.(?:com|cn|org|io|net)(?:/\S*)?", re.I)
CJK = re.compile(r"[\u3400-\u9fff]")
# identifiers: words with digits, snake_case, dashed or dotted names, flags, CamelCase, ALL-CAPS acronyms
IDENTIFIER = re.compile(r"(?<![\w])(?:-{1,2})?[A-Za-z0-9]*(?:[0-9_./:-][A-Za-z0-9]*)+[A-Za-z0-9]*(?![\w])"
                        r"|(?<![\w])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?![\w])|(?<![\w])[A-Z]{2,}[a-z]?s?(?![\w])")
# jargon both languages write in Latin letters: not a sign of English prose
JARGON = frozenset(re.split(r"\s+", """
lora qlora full freeze sft dpo ppo rm pt zero offload deepspeed mindspeed megatron llamafactory llama factory vllm ascend
modelarts npu gpu die token tokens cutoff len seq batch micro global stage stages yaml json env bf fp int flash attention
flashattention checkpoint checkpoints ckpt nodes node card cards oom hccl tp pp cp ep dp ga mbs gbs lm llm kv cache
pipeline tensor parallel expert experts sequence data optimizer adam adamw gradient accumulation warmup epoch epochs
learning rate scheduler pod pods kubectl volcano jupyterlab notebook obs sfs evs ecs cce swr docker image images
instruct chat base model models qwen deepseek glm chatglm baichuan mistral mixtral gemma phi yi internlm falcon nvidia
huawei cloud atlas kunpeng smi dcmi cann torch pytorch transformers peft accelerate bitsandbytes triton cuda mindie
ascendspeed gptq awq smoothquant benchmark benchmarks throughput latency ttft tpot qps rps true false none auto cpu nvme the of and or to in on for
""".strip()))
STOP = frozenset({"the", "of", "and", "or", "to", "in", "on", "for", "a", "an", "is", "are", "with", "by", "at", "as"})


def _plain(answer: str, question: str) -> list[str]:
    """The answer's own prose, one stretch per line or sentence."""
    text = CODE_BLOCK.sub("\n", answer)
    text = INLINE_CODE.sub(" ", text)
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(">") or re.match(r"(?:\*\*)?(?:来源|Sources?|出处)(?:\*\*)?\s*[:：]", stripped):
            continue
        lines.append(line)
    text = CITATION.sub(" ", "\n".join(lines))
    text = URL.sub(" ", text)
    return [s for s in re.split(r"[\n。；！？]|(?<=[.;!?])\s+", text) if s.strip()]


def _quoted_from(question: str, text: str) -> str:
    """The stretch without quoted passages the question holds (the user's own material echoed back)."""
    def drop(m: re.Match[str]) -> str:
        inner = m.group(1).strip()
        echoed = bool(inner) and inner.lower()[:40] in question.lower()
        # a system message quoted (an error, a log line) names identifiers or is short; a long remark is prose
        # a system message quoted (an error, a log line) is short or labelled as one; a long remark is prose, unless
        # it is labelled as a quote in its own language ("目录备注（英文原文）")
        before = text[max(0, m.start() - 24):m.start()]
        labelled = bool(re.search(r"报错|错误|日志|提示|消息|信息|拒绝|显示|返回|输出|原文|error|log|message|says|reads", before, re.I))
        message = len(inner.split()) < 15 or labelled
        return " " if echoed or (message and not CJK.search(inner)) else m.group(0)
    return re.sub(r"[“\"「'‘]([^“”\"「」'’\n]{1,400})[”\"」'’]", drop, text)


VALUE_LIST = re.compile(r"[\w.-]+(?:\s*\|\s*[\w.-]+)+")  # "bnb | gptq | awq": a list of accepted values


def english_runs(stretch: str) -> list[str]:
    """Runs of ordinary English words in one stretch: at least RUN_WORDS words not jargon, RUN_CONTENT of them not
    stop words, with no Chinese character or full-width punctuation between them (identifiers and jargon inside a
    run neither count nor break it: "DeepSpeed JSON offloads only the optimizer")."""
    runs, words, start = [], [], None
    tokens = list(re.finditer(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]|\bID\b|[A-Za-z][A-Za-z']+|\S", IDENTIFIER.sub(" ID ", VALUE_LIST.sub(" ID ", stretch))))
    for t in [*tokens, None]:
        breaks = t is None or bool(re.match(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]", t.group(0)))
        if not breaks and t is not None and re.match(r"[A-Za-z]{2}", t.group(0)):
            w = t.group(0).lower().removesuffix("'s")
            if w != "id" and (w not in JARGON or w in STOP):
                words.append(w)
                start = t.start() if start is None else start
            continue
        if breaks:
            content = [w for w in words if w not in STOP]
            if len(words) >= RUN_WORDS and len(content) >= RUN_CONTENT:
                runs.append(" ".join(words))
            words, start = [], None
    return runs


def other_language(answer: str, question: str, lang: str) -> list[str]:
    """The stretches of ``answer`` written in the other language than ``lang`` ('zh' or 'en')."""
    slips = []
    for stretch in _plain(answer, question):
        own = _quoted_from(question, stretch)
        if lang == "zh":
            slips.extend(english_runs(own))
        else:
            chinese = CJK.findall(GLOSSED.sub(" ", own))
            if chinese and not all(c in question for c in chinese):
                slips.append(stretch.strip())
    return slips
