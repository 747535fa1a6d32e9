"""The fused attention operator's shape limits, checked against the numbers a question states ("head_dim
576, does NPU_Flash_Attn support it?", "40 query heads and 6 kv heads"), so that the answer can say yes or
no first. The limits are the vendor's page NPU_Flash_Attn融合算子约束 (modelarts_llm_train_5901150):
query [B, N1, S1, D] with N1 ≤ 2048 and D ≤ 512, key [B, N2, S2, D] with N2 ≤ 2048, N1 a positive
integer multiple of N2, attn_mask bool or None (the mask's dtype when the question states it: "my mask is
float16"). The page's other condition (q, k and v need gradients) is not a value a question states, so a "within
the limits" verdict says it still applies."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .spans import Reading

NOTE = "flash_attention.md"  # the note of the vendor page whose limits this module checks
HEADS_LIMIT = 2048  # N1 and N2
HEAD_DIM_LIMIT = 512  # D
# The shape reader (numbers.SHAPE_FIELDS) reads "64 heads, 8 kv heads" of a model to size; these also read
# the operator's own words ("40 query heads", "N1=40", "head_dim 576", "D=576"); a number inside a name is none
# ("deepseek-v3 head dim is 576": not 3 heads).
QUERY_HEADS = re.compile(r"(?<![0-9a-z.\-])(\d{1,4})\s*(?:个\s*)?(?:query\s+|q\s+|attention\s+|查询|注意力)?(?:heads?|头)(?![a-z_])|"
                         r"(?:query\s+heads?|num_attention_heads|(?<![a-z0-9])n1|查询头数?|注意力头数?)[\"']?\s*(?:is|=|:|为|是)?\s*(\d{1,4})(?![0-9])")
KV_HEADS = re.compile(r"(?<![0-9a-z.\-])(\d{1,4})\s*(?:个\s*)?(?:kv|key[-_ ]value)[-_ ]?(?:heads?|头)|"
                      r"(?:kv[-_ ]?(?:heads?|头数?)|num_key_value_heads|(?<![a-z0-9])n2)[\"']?\s*(?:is|=|:|为|是)?\s*(\d{1,4})(?![0-9])")
# "head_dim is exactly 512", "D 刚好等于 512": a word of degree between the name and the number is no number either
# (a config.json pasted: the key's closing quote stands between the name and its colon: '"num_key_value_heads": 5')
HEAD_DIM = re.compile(r"(?:head[_\s-]?dim(?:ension)?|(?<![a-z0-9])d)[\"']?\s*(?:is|=|:|为|是)?\s*(?:exactly|just|set\s+to|刚好|正好|恰好|等于)?\s*"
                      r"(?:=|:|是|为)?\s*(\d{1,5})(?![0-9])|"
                      r"(?<![0-9a-z.\-])(\d{1,5})\s*(?:-|的)?\s*head[_\s-]?dim")


# the page's conditions that are no numbers, as a question states them: the mask's dtype ("a float16 additive mask",
# "attn_mask 是 fp32") must be bool or None; recomputation on leaves q/k/v without gradients in the forward pass
_DTYPE = r"(bool(?:ean)?|none|float16|fp16|half|bfloat16|bf16|float32|fp32|float|int8|uint8|int64|long|additive)"
MASK_DTYPE = re.compile(rf"(?<![a-z0-9]){_DTYPE}(?:\s+(?:additive|causal|padding|attention|float))*\s+(?:attention\s+|attn\s+)?mask|"
                        rf"(?:attn_mask|attention[-_ ]mask|mask)\s*(?:is|=|:|为|是|用的是|dtype\s*(?:is|=|:)?)?\s*(?:a\s+|an\s+)?{_DTYPE}(?![a-z0-9])")
RECOMPUTE_ON = re.compile(r"(?<!no\s)(?<!without\s)(?<!disable_)(?<!disable\s)(?<!disable-)(?:recompute|recomputation|gradient[-_ ]checkpointing|重计算)\s*(?:is\s+|=\s*|:\s*)?(?:on|enabled|true|开启|打开|开着)|"
                          r"(?:with|enable[ds]?|turn(?:ed)?\s+on|开(?:了|启)?|打开)\s*(?:full\s+)?(?:recompute|recomputation|gradient[-_ ]checkpointing|重计算)", re.I)


# "disable_gradient_checkpointing: true", "关掉重计算", "turn recompute off": q/k/v keep their gradients, that condition holds
RECOMPUTE_OFF = re.compile(r"disable[_\s-]gradient[_\s-]checkpointing(?!\s*[:=]\s*false)|(?:recompute|recomputation|gradient[-_ ]checkpointing|重计算)\s*"
                           r"(?:is\s+|=\s*|:\s*)?(?:off|disabled|false|关闭|关掉|关了)|(?:(?<![a-z])no|without|disabl\w*|turn(?:ed|ing)?\s+off|关(?:掉|闭|了)|不开)\s*(?:the\s+)?"
                           r"(?:full\s+)?(?:recompute|recomputation|gradient[-_ ]checkpointing|重计算)", re.I)


CAUSE_ASKED = re.compile(r"reason|why|cause|because|原因|为什么|是不是因为|导致|造成")


@dataclass(frozen=True)
class Verdict:
    fits: bool
    reasons_en: list[str]
    reasons_zh: list[str]
    cause_asked: bool = False  # "could that be the reason?": a broken limit answers it yes
    numbers: bool = True  # the question states numbers or a mask's dtype, not only that recomputation is off

    def text(self, lang: str) -> str:
        zh = lang == "zh"
        reasons = ("；" if zh else "; ").join(self.reasons_zh if zh else self.reasons_en)
        if self.fits and not self.numbers:  # only recomputation off: that condition holds, memory is its cost
            return (f"{reasons}；其余条件见下。" if zh else f"{reasons[0].upper() + reasons[1:]}; the other conditions below still apply.")
        if self.fits:
            # a value at the limit is allowed (the page's limits are "≤"): say so, it is what such a question doubts
            edge = [n for n in (HEAD_DIM_LIMIT, HEADS_LIMIT) if f"= {n} ≤ {n}" in reasons]
            at_en = f" {' and '.join(map(str, edge))} itself is allowed;" if edge else ""
            at_zh = f"{'、'.join(map(str, edge))} 本身也允许；" if edge else ""
            return (f"给出的数值在 NPU_Flash_Attn 的限制内（{reasons}）；{at_zh}其余条件见下。" if zh else
                    f"The numbers you gave are within NPU_Flash_Attn's limits ({reasons});{at_en} the other conditions below still apply.")
        if self.cause_asked:
            return (f"是的，这就是原因：{reasons}，因此不会使用 NPU_Flash_Attn。" if zh else
                    f"Yes, that is the reason: {reasons}, so NPU_Flash_Attn is not used.")
        return (f"不能：{reasons}，因此不会使用 NPU_Flash_Attn。" if zh else
                f"No: {reasons}, so NPU_Flash_Attn is not used.")


def first_number(rx: re.Pattern[str], text: str) -> int | None:
    m = rx.search(text)
    return int(next(g for g in m.groups() if g)) if m else None


def check(question: str) -> Verdict | None:
    """The verdict on the head dimension and head counts the question gives; None when it gives none."""
    text = question.lower()
    head_dim = first_number(HEAD_DIM, text)
    kv_heads = first_number(KV_HEADS, text)
    heads = first_number(QUERY_HEADS, Reading.claiming(text, "kv_heads", KV_HEADS).unread())  # "8 kv heads": no query heads
    mask = MASK_DTYPE.search(text)
    dtype = next((g for g in mask.groups() if g), None) if mask else None
    off = RECOMPUTE_OFF.search(text)
    recompute = None if off else RECOMPUTE_ON.search(text)
    if head_dim is None and heads is None and kv_heads is None and dtype is None and recompute is None and off is None:
        return None
    broken_en: list[str] = []
    broken_zh: list[str] = []
    held_en: list[str] = []
    held_zh: list[str] = []

    def rule(ok: bool, en: str, zh: str) -> None:
        (held_en if ok else broken_en).append(en)
        (held_zh if ok else broken_zh).append(zh)

    if head_dim is not None:
        ok = head_dim <= HEAD_DIM_LIMIT
        rule(ok, f"head_dim D = {head_dim} {'≤' if ok else '>'} {HEAD_DIM_LIMIT}",
             f"head_dim D = {head_dim} {'≤' if ok else '>'} {HEAD_DIM_LIMIT}")
    for name, n in (("N1", heads), ("N2", kv_heads)):
        if n is not None:
            ok = n <= HEADS_LIMIT
            rule(ok, f"{name} = {n} {'≤' if ok else '>'} {HEADS_LIMIT}", f"{name} = {n} {'≤' if ok else '>'} {HEADS_LIMIT}")
    if heads and kv_heads:
        ok = heads % kv_heads == 0
        rule(ok, f"{heads} query heads are {'' if ok else 'not '}a multiple of {kv_heads} KV heads",
             f"{heads} 个查询头{'是' if ok else '不是'} {kv_heads} 个 KV 头的整数倍")
    if dtype is not None:
        ok = dtype in ("bool", "boolean", "none")
        said = "an additive (float)" if dtype == "additive" else dtype
        rule(ok, f"attn_mask is {said}{'' if ok else ', but it must be bool or None'}",
             f"attn_mask 是 {said}{'' if ok else '，而它必须是 bool 或 None'}")
    if recompute is not None:
        rule(False, "recomputation is on, so q/k/v carry no gradient in the forward pass, while the operator needs all "
             "three to need gradients", "开启了重计算，前向时 q/k/v 不带梯度，而该算子要求三者都需要梯度")
    numbers = bool(held_en or broken_en)
    if off is not None:
        rule(True, "recomputation is off, so q/k/v keep their gradients and that condition holds, but memory use rises sharply, per the vendor",
             "关掉了重计算，q/k/v 带梯度，这一条满足，但厂商提醒显存占用会直线上升")
    if broken_en:
        return Verdict(False, broken_en, broken_zh, bool(CAUSE_ASKED.search(text)))
    return Verdict(True, held_en, held_zh, numbers=numbers)


def judged(question: str, notes_named: set[str] | None) -> bool:
    """The question names the note and states values its limits judge ("llama3-8b: 32 q heads, 8 kv heads, head dim
    128, will NPU_Flash_Attn kick in?"): the note's rule applied to them is the answer, not a sizing of the model
    named as their owner."""
    return NOTE in (notes_named or set()) and check(question) is not None
