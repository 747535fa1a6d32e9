"""What a how-to question asks of the notes it is answered from, when that is one fact inside a quoted passage rather
than the passage: one option of a list the note gives ("which DATA_TYPE for ShareGPT data?"), one step of a numbered
list by its place ("what to check first, before touching TP/PP?", "after npu-smi info, what next?"), or the absence of
an official figure ("is there an official BF16 TFLOPS number?"). The writer states that fact first, the note's own lead
after it. Pure functions over the question and the passages found; nothing here knows a note by name."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from ..note_kinds import kinds_asked, kinds_held
from ..notes import ASKS_FIX, ASKS_HOW, SAYS_WHAT_TO_DO, explains_other_excerpt, subject_rx
from ..tools.tables import NotePassage

# "which DATA_TYPE", "which one fits", "what should I pick", "该选哪个", "用哪个", "适合哪个"
WHICH_ONE = re.compile(r"\bwhich\b|\bwhat\s+(?:\w+\s+){0,3}(?:should|do|to)\s+(?:i\s+|we\s+)?(?:use|pick|choose|set|select|pass|give|specify)|"
                       r"\b(?:fits?|suits?)\b|哪个|哪一个|哪种|选哪|用哪|选什么|用什么|适合", re.I)
# "which files do I copy", "哪些文件", "哪几个": several asked, the list is the answer, not one option singled out of it
# (a plural noun is followed by what is done with them: "which one fits …" names one, its verb ends in s too)
ASKS_SEVERAL = re.compile(r"\b(?:which|what)\s+(?:\w+\s+){0,2}?\w+(?<!s)(?<!u)(?<!i)s\s+(?:do|does|should|must|need|are|have|to)\b|哪些|哪几", re.I)
# an option: a code name of at least four characters, an identifier ("SharegptStyleInstructionHandler", "ds_z3_config")
OPTION = re.compile(r"`([A-Za-z][A-Za-z0-9_.-]{3,})`")
# the characters beside an option that say what it is for: a few before ("动态测试（`benchmark_serving.py`"), more after
# ("`generate_dataset.py`（生成测试数据）"); further back the words belong to the option listed before it
NEAR_BEFORE, NEAR_AFTER = 8, 30
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

# "what first / before touching X", "第一步先做什么": the list's first step, or the one before the step naming X
ASKS_FIRST = re.compile(r"first\s+(?:thing|step|command)|(?:check|do|try|look\s+at|run|execute|type|use)\s+first|\bfirst\b[^?]{0,60}\bbefore\b|"
                        r"\bbefore\s+(?:touching|changing|lowering|raising|reducing|trying|increasing|adding)|"
                        r"第一步|先做什么|先(?:查|检查|试|看|改|执行|跑|运行|敲|用)(?:什么|啥|哪)|先[^，。,？?]{0,6}(?:什么|啥|哪个)命令|首先(?:做|查|检查|要)|之前(?:先|应该|要)", re.I)
# "what's next", "after npu-smi info shows nothing, what next?", "下一步", "npu-smi 之后呢", "set X already and still OOM, now
# what": the step after the one named (or that step itself when its check only found something: FOUND)
ASKS_NEXT = re.compile(r"next\s+(?:thing|step)|what(?:'s|\s+is)?\s+next|then\s+what|\b(?:already|still|tried|found|see|saw|shows?)\b[^?]{0,80}\b(?:now\s+what|what\s+now)\b|\b(?:do|try|check)\s+next\b|\bafter\b[^?]{0,60}\b(?:next|then|what)\b|"
                       r"下一步|接下来|然后(?:呢|做什么|怎么办|该)|之后(?:呢|做什么|怎么办|该|再)", re.I)
# "found a leftover process", "npu-smi 看到有个残留进程": what a step's check turned up, the step's own fix not yet done
FOUND = re.compile(r"\b(?:found|finds?|see|saw|spotted|shows?|showed|there(?:'s|\s+is|\s+are))\b|看到|发现|查到|显示有", re.I)
# a step that checks for something ("Check for leftover processes … kill the residual process"): what it finds is its own fix
CHECK_STEP = re.compile(r"\bcheck|\blook\s+for|检查|查看|确认", re.I)
# "what to do next after that": the user is past the step named
AFTER = re.compile(r"\bafter\b|之后|以后", re.I)
# ("after npu-smi info shows nothing left over, next?": the check found nothing, its step is done)
FOUND_NOTHING = re.compile(r"\b(?:nothing|none|no\s+(?:\w+\s+)?(?:process(?:es)?|leftovers?)|not)\b|没(?:有|看到|发现|查到)|什么都没", re.I)
# "what should I look at", "where do I start", "怎么排查": where to begin, which a section headed as the first step answers
ASKS_START = re.compile(ASKS_FIRST.pattern + r"|what\s+(?:should|do|can)\s+(?:i|we)\s+(?:look\s+at|check|look\s+into)|"
                        r"where\s+(?:do|should|can)\s+(?:i|we)\s+(?:start|begin|look)|how\s+(?:do\s+i|to|can\s+i)\s+(?:debug|troubleshoot|diagnose)|"
                        r"怎么排查|如何排查|从哪(?:里|儿)?(?:查|看|开始|入手)|(?:先|该|要)(?:查|看)(?:什么|哪)", re.I)
FIRST_HEADING = re.compile(r"(?<![a-z])first(?![a-z])|第一步|先(?:执行|做|查|看)", re.I)
STEP = re.compile(r"(?m)^\s*(\d+)\.\s+(.+(?:\n(?!\s*\d+\.\s)(?:\s{2,}|>).*)*)")
WORD = re.compile(r"[a-z][a-z0-9_-]+")
STOP = frozenset({"the", "and", "for", "with", "what", "when", "does", "should", "first", "next", "step", "thing",
                  "then", "after", "before", "vendor", "page", "say", "says", "training", "train", "fine", "tune",
                  "oom", "shows", "show", "nothing", "left", "over", "still", "this", "that", "from", "into", "your",
                  "have", "already", "now",
                  # verbs of asking a value ("what is X set to", "what do they use") name no part of a note
                  "set", "use", "used", "uses",
                  # pronouns of a choice ("which one is it?") name nothing either
                  "one", "ones", "which",
                  # function words of two letters, which the word pattern keeps
                  "to", "of", "in", "is", "are", "an", "it", "do", "be", "by", "at", "or", "as", "if", "so", "we", "my"})

# "official figure?": a sentence of the notes saying no official figure exists or was found
ASKS_OFFICIAL = re.compile(r"official|官方|公布|公开", re.I)
NO_OFFICIAL = re.compile(r"[^.。\n]*(?:no official|not officially|没有(?:找到)?官方|未(?:找到|见)?官方|官方[^。\n]{0,12}(?:未|没有)公布)[^.。\n]*[.。]?",
                         re.I)


class Step(NamedTuple):
    number: int
    total: int
    heading: str
    text: str


def terms(text: str) -> set[str]:
    """The question's content words: ASCII words of two letters or more (not common ones), Chinese character pairs."""
    low = text.lower()
    ascii_words = {w for w in WORD.findall(low) if w not in STOP}
    han = [run for run in re.findall(r"[\u4e00-\u9fff]+", low)]
    return ascii_words | {run[i:i + 2] for run in han for i in range(len(run) - 1)}


def option_parts(name: str) -> set[str]:
    """The parts of an option's name: its words of three letters or more, and its two-letter acronyms ("HF")."""
    return {p.lower() for p in CAMEL.findall(name.replace("_", " ").replace("-", " "))
            if len(p) >= 3 or len(p) == 2 and p.isupper()}


def pick_option(question: str, lead: str, passages: Sequence[NotePassage]) -> str | None:
    """The one option of the lead's list that the question's own words single out: by a distinctive part of its name
    ("ShareGPT-style" → `SharegptStyleInstructionHandler`), else by what the notes say of it ("预训练" beside
    `GeneralPretrainHandler`（默认，用于预训练）). None when no one option stands out."""
    if not WHICH_ONE.search(question) or ASKS_SEVERAL.search(question):
        return None
    # "which handler is the default?": the default is a value the note states, not an option picked for the user
    if re.search(r"(?:which|what)\s+(?:\w+\s+){0,3}(?:is|are)\s+(?:the\s+)?default|默认(?:是|用|为)?(?:哪个|哪一个|什么)|哪个是默认", question, re.I):
        return None
    # the flags and files the question names say where the option goes, not which one ("which --tokenizer-type …": the
    # "tokenizer" of the flag's name singles out no `GPT2BPETokenizer`)
    own = re.sub(r"--[\w-]+|[\w-]+\.(?:sh|py|json|ya?ml)", " ", question.lower())
    low = re.sub(r"[-_ ]", "", own)
    options = [o for o in dict.fromkeys(OPTION.findall(lead)) if o.lower() not in question.lower()]
    if kinds := kinds_asked(question):  # "哪个变量": the variables of the lead are the options, not the files beside them
        options = [o for o in options if kinds_held(f"`{o}`", kinds)]
    if len(options) < 3:
        return None
    parts = {o: option_parts(o) for o in options}
    # the flag the question names says the kind of value ("which --handler-name …": the handlers, not `DATA_TYPE`)
    flagged = set().union(set(), *(option_parts(f) for f in re.findall(r"--[\w-]+", question))) - {"name", "type", "path"}
    if flagged and 2 <= len(narrowed := [o for o in options if parts[o] & flagged]) < len(options):
        options = narrowed
        parts = {o: parts[o] for o in options}
    shared = {p: sum(p in ps for ps in parts.values()) for p in set().union(*parts.values())}

    def named(p: str) -> bool:  # a two-letter part ("HF" of `PretrainedFromHF`) only as a word of its own
        return bool(re.search(rf"(?<![a-z]){p}(?![a-z])", own)) if len(p) < 3 else p in low
    # a part several options share that the question names ("哪个 handler"): the kind asked; the others are no answer
    kind = {p for p, n in shared.items() if n >= 2 and named(p)}
    if kind and 2 <= len(narrowed := [o for o in options if parts[o] & kind]) < len(options):
        options = narrowed
        parts = {o: parts[o] for o in options}
        shared = {p: sum(p in ps for ps in parts.values()) for p in set().union(*parts.values())}
    # a part only one option has ("sharegpt", "alpaca") singles it out; one most options share ("handler") says nothing
    for most in (1, len(options) // 2):
        by_name = [o for o in options if any(named(p) for p in parts[o] if shared[p] <= most)]
        if len(by_name) == 1:
            return by_name[0]
    return singled_out(terms(question), by_name or options, passages)


def said_beside(option: str, passages: Sequence[NotePassage], others: Sequence[str] = ()) -> str:
    """What the notes say right beside an option ("动态测试（`benchmark_serving.py` 跑数据集"), not a whole sentence
    that opens with the note's general words before it, and not what they say of another of the ``others`` named
    beside it ("预训练用 `A`，SFT、LoRA 用 `B`"); a code name that is no option ("多轮数据的 `DATA_TYPE` 还可以是 `C`")
    is part of what is said."""
    mark, out = f"`{option}`", []
    other = re.compile("|".join(re.escape(f"`{o}`") for o in others if o != option) or r"(?!)")
    for text in (t for p in passages for t in (p.text, p.summary)):
        for m in re.finditer(re.escape(mark), text):
            window = text[max(m.start() - NEAR_BEFORE - NEAR_AFTER, 0):m.start()]
            start = max(len(window) - NEAR_BEFORE, 0)
            codes = [c for c in re.finditer(r"`[^`\n]+`", window) if c.end() > start and not other.fullmatch(c.group(0))]
            if codes:  # a code name that is no option just before: what is said before it is said of both
                start = max(codes[0].start() - NEAR_BEFORE, 0)
            if hits := [h for h in other.finditer(window) if h.end() > start]:  # no further back than the option before it
                start = hits[-1].end()
            before = window[start:]
            after = text[m.end():m.end() + NEAR_AFTER]
            if (hit := other.search(text, m.end())) and hit.start() < m.end() + NEAR_AFTER:
                after = _to_comma(text[m.end():hit.start()])
            # within its clause: a sentence, a list item or a bracket's closing comma ends what is said of it
            before = re.split(r"[;；。、|\n]|\)[,，]\s*|）[,，]\s*", before)[-1]
            after = re.split(r"[;；。、|\n]|(?<=\))[,，]|(?<=）)[,，]", after)[0]
            out.append(before + mark + after)
    return " ".join(out)


def _to_comma(text: str) -> str:
    """``text`` up to its first comma outside brackets ("（默认，用于预训练）" is one remark)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch in "(（") - (ch in ")）")
        if ch in ",，" and depth <= 0:
            return text[:i]
    return text


def singled_out(asked: set[str], options: Sequence[str], passages: Sequence[NotePassage]) -> str | None:
    """The one option whose words beside it (said_beside) share the most of the question's words that no other option
    shares; None on a tie or no word at all."""
    matched = {o: asked & terms(said_beside(o, passages, options)) - terms(o) - {"data", "type"} for o in options}
    # a word the notes say of every option ("性能测试" beside the static and the dynamic script) singles out none: an
    # option named in more places would win on such words alone
    scores = {o: len(ws - set().union(*(w for other, w in matched.items() if other != o))) for o, ws in matched.items()}
    best = max(scores.values(), default=0)
    winners = [o for o, n in scores.items() if n == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


# "A 还是 B", "A or B", "A vs B", "which of A and B": a choice between options the question names itself
BETWEEN = re.compile(r"还是|或者|或是|二选一|\bor\b|\bvs\.?|\bversus\b|\bwhich\b|哪个|哪一个|选哪|用哪", re.I)


def pick_named(question: str, passages: Sequence[NotePassage]) -> str | None:
    """"--handler-name 选 GeneralPretrainHandler 还是 GeneralInstructionHandler？我做 sft": of two or more options the
    question names (names the notes write in code), the one the notes say fits what the question states beside them
    ("用于 SFT 和 LoRA" beside `GeneralInstructionHandler`). None when the question names fewer than two or none stands out."""
    if not BETWEEN.search(question):
        return None
    low = question.lower()
    found = dict.fromkeys(o for p in passages for o in OPTION.findall(p.text + "\n" + p.summary))
    named = [o for o in found if re.search(rf"(?<![\w-]){re.escape(o.lower())}(?![\w-])", low)]
    if len(named) < 2:
        return None
    # the question's words besides the options' names, the flags and files it names (where the option goes)
    rest = re.sub("|".join(re.escape(o.lower()) for o in named) + r"|--[\w-]+|[\w-]+\.(?:sh|py|json|ya?ml)", " ", low)
    return singled_out(terms(rest), named, passages)


# "我该怎么一步步排查", "what are the steps", "walk me through it": the note's step list, given whole
ASKS_STEPS = re.compile(r"一步步|一步一步|逐步|(?:哪些|什么|几个)?步骤|哪几步|几步|(?:两|三|几)个(?:解决)?(?:办法|方法)|(?:办法|方法)分别|"
                        r"(?:what|which)\s+are\s+the\s+(?:two|three)\s+(?:fixes|ways|options)|step[\s-]+by[\s-]+step|(?<![a-z])steps(?![a-z])|walk\s+(?:me|us)\s+through", re.I)


def steps_listed(question: str, lead: str, passages: Sequence[NotePassage]) -> tuple[str, list[str]] | None:
    """When the question asks for the steps, the numbered list of the notes' passages (in their order) that the lead
    does not already give: its section's heading and its steps, whole. None when no steps are asked, no passage holds a
    list of two steps or more, or the lead already gives every step of it."""
    # (a how asked whose lead is one step of a list, "how do I build it?" led by "1. Write a Dockerfile…": the list whole)
    how = bool(ASKS_HOW.search(question))
    if not ASKS_STEPS.search(question) and not how:
        return None
    flat = re.sub(r"[*`>\s]", "", lead)
    for p in passages:
        steps = [re.sub(r"\s*\n\s*>?\s*", " ", text).strip() for _, text in STEP.findall(p.text)]
        if not ASKS_STEPS.search(question) and not any(re.sub(r"[*`>\s]", "", step)[:30] in flat for step in steps):
            continue
        # (a lead holding the first step alone, "在预置镜像上写 Dockerfile…", gives no steps: the list follows it whole)
        if len(steps) >= 2 and not all(re.sub(r"[*`>\s]", "", step)[:30] in flat for step in steps):
            return p.heading, steps
    return None


def step_asked(question: str, passages: Sequence[NotePassage]) -> Step | None:
    """The step of a numbered list that the question asks by its place: the first, the one before the step naming
    what the question names ("before touching TP/PP"), or the one after it ("after npu-smi info … next")."""
    first, nxt = ASKS_FIRST.search(question), ASKS_NEXT.search(question)
    if not (first or nxt):
        return None
    listed = next(((p, steps) for p in passages if len(steps := STEP.findall(p.text)) >= 3), None)
    if listed is None:
        return None
    passage, steps = listed
    # "first thing to check?" of a note with a section that is the first step itself ("… and the first command"):
    # that section answers, not step 1 of a later list
    if first and not nxt and not re.search(r"before|之前", question, re.I) and any(
            p is not passage and FIRST_HEADING.search(p.heading) for p in passages):
        return None
    asked = terms(question)
    shared = [len(asked & terms(re.sub(r"`", " ", text))) for _, text in steps]
    named = [i for i, n in enumerate(shared) if n]
    if nxt and not first:
        if not named:
            return None
        # the step done is the one naming most of what the question names ("killed the leftover npu processes": the
        # `npu-smi` step, not a later one that only says "NPU count"); of as many, the later
        done = max(named, key=lambda i: (shared[i], i))
        at = done + 1 if done + 1 < len(steps) else None
        if (FOUND.search(question) and not FOUND_NOTHING.search(question) and not done_clause(question)
                and not AFTER.search(question) and CHECK_STEP.search(steps[done][1])):
            at = done  # "npu-smi shows a leftover process, what next?": what the step's check found is fixed by that step
    else:
        tail = question[first.end():] if first else ""
        before = [i for i, (_, text) in enumerate(steps) if terms(tail) & terms(text)] if re.search(r"before|之前", question, re.I) else []
        at = max(min(before) - 1, 0) if before else 0
    if at is None:
        return None
    number, text = steps[at]
    return Step(int(number), len(steps), passage.heading, " ".join(ln.strip(" >") for ln in text.splitlines()).strip())


def no_official(question: str, passages: Sequence[NotePassage]) -> str | None:
    """The notes' sentence that no official figure exists, when the question asks for an official one."""
    if not ASKS_OFFICIAL.search(question):
        return None
    for p in passages:
        m = NO_OFFICIAL.search(p.text)
        if m:
            return m.group(0).strip()
    return None


# "每台机器分别怎么设", "how do I set them on each node": the way to set the named parameters, not their list
ASKS_HOW_SET = re.compile(r"怎么(?:设|配|填|写|改)|如何(?:设|配|填|写)|分别(?:怎么|设|填)|how\s+(?:do|should|can|to)\s+(?:i\s+|we\s+)?(?:set|configure|fill)|"
                          r"how\s+(?:are|is)\s+(?:\w+\s+){0,3}set|what\s+(?:values?|should)\s+(?:\w+\s+){0,4}(?:set|be)", re.I)
NAME = re.compile(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_])|(?<![A-Za-z0-9_])[A-Z]{4,}(?![A-Za-z0-9_])")
PARAGRAPH = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.)\s)")


def usage_paragraph(question: str, passages: Sequence[NotePassage]) -> str | None:
    """The paragraph of the notes that shows how to set two or more parameters the question names together (a
    worked example), when the question asks how to set them; a table row listing one of them is not one."""
    if not ASKS_HOW_SET.search(question):
        return None
    names = set(NAME.findall(question))
    if len(names) < 2:
        return None
    found = [(sum(n in para for n in names), -i, para) for i, para in enumerate(
        para.strip() for p in passages for para in PARAGRAPH.split(p.text)) if not para.startswith("|")]
    best = max(found, default=None)
    if best is None or best[0] < 2:
        return None
    return " ".join(line.strip(" -*>") for line in best[2].splitlines()).strip()


# A question of several parts ("the default and the max, and should I raise it?", "TP PP 要怎么设，转出来放哪"): each
# part is answered by the note's bullet that matches it best; the parts the lead leaves out are stated before it.
PART_SPLIT = re.compile(r"[，,;；？?、]|\band\b|以及|还有|另外")
BULLET = re.compile(r"(?m)^\s*>?\s*(?:[-*]|\d+\.)\s+(.+)$")
# what a person asks and what a note writes for it: a maximum is a range's end, a raise a larger value
ASKED_AS = [(re.compile(r"(?<![a-z])max(?:imum)?(?![a-z])|最大|上限|最多", re.I), "range 范围 取值 maximum"),
            (re.compile(r"default|默认", re.I), "default 默认"),
            (re.compile(r"raise|increase|bump|调大|加大|提高|调高", re.I), "raising raise 调大"),
            (re.compile(r"怎么设|how\s+(?:do|should)\s+i\s+set|what\s+values?", re.I), "一般取 usually"),
            (re.compile(r"超时|time\s*out|多久|how\s+long", re.I), "最长 longest timeout 超时")]


FILE_TYPES = frozenset({"py", "sh", "json", "yaml", "yml"})  # a file name's ending names nothing a part asks


def stems(text: str) -> set[str]:
    """Content words cut to five letters (raise / raising), Chinese character pairs."""
    # (a code name stays whole: "benchmark_parallel" is not "benchmark_serving")
    return {w if re.search(r"[_-]", w) else (re.sub(r"(?:ing|es|ed|s)$", "", w) if len(w) > 4 else w)[:5]
            for w in terms(text) if w.isascii() and w not in FILE_TYPES} | {
        w for w in terms(text) if not w.isascii()}


# what makes a part of a question a question: a question mark after it, a question word or particle in it
ASKING = re.compile(r"吗|呢|怎么|如何|什么|多少|多大|多久|哪|是否|能否|能不能|要不要|可不可以|会不会|有没有|几|为何|为啥|"
                    r"(?<![a-z])(?:what|how|which|why|when|where|should|can|could|does|do|is|are|will|would|any)(?![a-z])", re.I)


TOLD_WORDS = 6  # a part without a question word, of this many words (Chinese characters) or more, tells the situation
TOLD_BY_USER = re.compile(r"(?<![a-z])(?:i|we|i've|we've|i'm|we're)(?![a-z])|我", re.I)  # a part said of the user's own doing


def asks(part: str, question: str) -> bool:
    """Whether ``part`` of ``question`` asks something: a question mark right after it, or a question word in it."""
    at = question.find(part)
    after = question[at + len(part):at + len(part) + 1] if at >= 0 else ""
    return after in ("?", "？") or bool(ASKING.search(part))


def parts_unanswered(question: str, lead: str, passages: Sequence[NotePassage]) -> list[str]:
    """For each part of a question of several, the note's bullet that answers it when the lead does not hold it, in
    the question's order; empty for a question of one part. A word every bullet shares (the subject) decides nothing."""
    parts = [p for p in PART_SPLIT.split(question) if len(p.strip()) >= 2]
    if len(parts) < 2:
        return []
    # a part that tells the situation ("其他节点等了半个多小时后报错退出") asks nothing: its words are the context of the
    # part that asks, not a question a neighbouring bullet answers
    # (a short part names an item asked in a list: "the default, the max, and should I raise it?")
    # (a short part the user says of themselves, "I already preprocessed my data", tells too)
    parts = [p for p in parts if asks(p, question) or len(re.findall(r"[\u4e00-\u9fff]|[A-Za-z]+", p)) < TOLD_WORDS
             and not TOLD_BY_USER.search(p)]
    # whole bullets only: one that runs on to the next line ("… and change") is no answer on its own
    where: dict[str, NotePassage] = {}  # each bullet's section (the first that holds it)
    for p in passages:
        for b in BULLET.findall(p.text):
            if len(b.strip()) >= 12 and re.search(r"[.。)）!！]$", b.strip()) and not explains_other_excerpt(b, question):
                where.setdefault(b.strip(), p)  # (not a sample message's piece they never wrote)
    bullets = list(where)
    if len(bullets) < 2:
        return []
    seen = [stems(b) for b in bullets]
    # a section's own words ("动态测试"), to tell bullets alike ("结果写入 `…csv`") by the section the question is about
    section = [stems(where[b].heading) for b in bullets]
    # the note's subject names no part of the question: its title, and the code names its headings give
    # ("HCCL_EXEC_TIMEOUT facts"); a heading's other words ("限制：请求体 12 MB") describe what the section answers
    subject = " ".join(p.title + " " + " ".join(re.findall(r"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+", p.heading)) for p in passages)
    common = {w for w in set().union(*seen) if sum(w in s for s in seen) * 2 > len(seen)} | stems(subject)
    flat_lead = re.sub(r"[*`>\s]", "", lead)
    out: list[str] = []
    for part in parts:
        if (kinds := kinds_asked(part)) and all(kinds_held(lead, [k]) for k in kinds):
            continue  # the part asks a kind the lead holds ("参数怎么给": the lead gives the flags)
        want = stems(part + " " + " ".join(words for rx, words in ASKED_AS if rx.search(part))) - common
        # ("动态 benchmark 用哪个 script": only a bullet naming a script answers it, not one sharing "benchmark")
        # (a file named answers "where are the results written" as a path does)
        held = [*kinds, "file"] if "path" in kinds else kinds
        context = stems(question) - want - common  # the question's other words: the topic the part is asked of
        scored = [(len(want & s) if not kinds or kinds_held(bullets[i], held) else 0, len(context & section[i]), -i)
                  for i, s in enumerate(seen)]
        best, _, at = max(scored)
        if best < 1 or len(want & stems(lead)) >= best:  # the lead answers this part as well as any bullet would
            continue
        # one Chinese character pair in common ("能放开" and "能放下") is no match; one word of the part's own is
        if best == 1 and not any(w.isascii() for w in want & seen[-at]):
            continue
        bullet = bullets[-at]
        if re.sub(r"[*`>\s]", "", bullet)[:40] not in flat_lead and bullet not in out:
            out.append(bullet)
    return out


# "why …?": the sentence of the notes that gives a reason or says what a thing is: a cause word, or an identity
# ("each die is its own device", "1 个 DIE 相当于 1 张 Snt9B 卡")
CAUSE = re.compile(r"(?<![a-z])(?:because|since|so\s+that|due\s+to|reason|its\s+own|separate|counts?\s+\w+\s+as|equals?|"
                   r"the\s+same\s+as|means?)(?![a-z])|因为|由于|所以|因此|原因|相当于|独立|各自|即|就是", re.I)
SENTENCE = re.compile(r"[^.。!！?？\n]+[.。!！?？]?")


def why_sentence(question: str, passages: Sequence[NotePassage]) -> str | None:
    """The one sentence of the best-matching note that answers a "why" (a cause or an identity), by the question's own
    content words; None when no sentence of that note holds both."""
    if not passages:
        return None
    file = passages[0].file
    asked = terms(question) - {"why", "为什", "什么", "么按"}
    found = []
    for i, p in enumerate(x for x in passages if x.file == file):
        for m in SENTENCE.finditer(re.sub(r"[*`>]|^\s*[-*]\s+", "", p.summary + "\n" + p.text, flags=re.M)):
            sent = m.group(0).strip()
            if len(sent) < 12 or not CAUSE.search(sent):
                continue
            shared = asked & terms(sent)  # a word of the question's own ("snt9b23", "die") weighs more than a character pair
            found.append((sum(2 if w.isascii() else 1 for w in shared), -i, -m.start(), sent))
    best = max(found, default=None)
    return best[3] if best and best[0] >= 3 else None


# a note's bullet that lists a key's values: "- `stage`：`sft`、`pt`、`rm`、`ppo`、`dpo`。"
KEY_VALUES = re.compile(r"(?m)^\s*>?\s*[-*]\s+`([\w.-]+)`\s*[：:]\s*(.+)$")


def key_values(question: str, passages: Sequence[NotePassage]) -> list[tuple[str, str]]:
    """"DPO 和 SFT 的 stage 分别怎么写": the (key, value) pairs the question asks, when it names a key a note lists the
    values of and one or more of those values; in the order the question names the values. Empty otherwise."""
    q = question.lower()
    for p in passages:
        for m in KEY_VALUES.finditer(p.text):
            key = m.group(1)
            if not re.search(rf"(?<![a-z0-9_]){re.escape(key.lower())}(?![a-z0-9_])", q):
                continue
            values = re.findall(r"`([^`\n]{1,40})`", m.group(2))
            # a value the question sets ("stage: ppo, finetuning_type: lora …"): the user's own setting, not a value asked
            stated = re.compile(rf"(?<![a-z0-9_]){re.escape(key.lower())}\s*[:=：]\s*[\"']?([^\s,，;；\"']+)")
            set_by_user = {m2.group(1) for m2 in stated.finditer(q)}
            named = sorted((at.start(), v) for v in values
                           if (at := re.search(rf"(?<![a-z0-9_]){re.escape(v.lower())}(?![a-z0-9_])", q)) and v.lower() != key.lower()
                           and v.lower() not in set_by_user)
            if named:
                return [(key, v) for _, v in named]
    return []


# the pieces of a section a follow-up's lead is picked from: its sentences and bullets (a table row or code line is no
# answer of its own)
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
PIECE = re.compile(r"[^\n。！？!?]+?(?:[。！？!?]|\.(?=\s|$)|$)", re.M)
# Chinese function characters: a character pair holding one says nothing of what is asked ("那个", "还是", "了重")
CJK_FUNCTION = re.compile(r"[那这个还是了的吗呢么什怎啥也都就把被在有没不你我他它们一]")


def follow_up_words(text: str) -> set[str]:
    """The content words of a follow-up or a note's piece, compared alike: the parts of hyphenated and underscored names
    ("--dataset-type": dataset, type), cut to their first four letters (type / types, save / saved), Chinese pairs
    without function characters, and numbers."""
    plain = re.sub(r"[-_`*]", " ", text)
    return ({w[:4] if w.isascii() else w for w in terms(plain) if w.isascii() or not CJK_FUNCTION.search(w)}
            | set(NUMBER.findall(text)))


def follow_up_fact(question: str, passages: Sequence[NotePassage], lead: str, lead_is_summary: bool,
                   said_before: str = "") -> str | None:
    """A follow-up of a how-to topic ("where do I find the API key itself?", "and Megatron?", "which dataset types can I
    feed it?") asks what the topic's answer did not say, in few words: the one sentence or bullet of the note's passages
    that shares most of the follow-up's own words (ASCII words and numbers weigh two, Chinese character pairs and words
    of the note's title one), when it shares more than the ``lead`` found for them; as many, when that lead is the
    note's summary or the lead the answer before gave (``said_before``), with three words shared or a name or number
    the follow-up states ("NODE_RANK 呢" after the MASTER_ADDR line). None otherwise: that lead answers."""
    if not passages:
        return None
    file = passages[0].file
    done = done_clause(question)
    fix = ASKS_FIX.search(question.lower())

    title = follow_up_words(passages[0].title)

    def weight(words: set[str]) -> int:  # (a word of the note's title, what the note is about, weighs one)
        return sum(2 if w.isascii() and w not in title else 1 for w in words)

    asked = follow_up_words(question)
    if not asked - title:
        return None
    found = []
    for i, p in enumerate(x for x in passages if x.file == file):
        for m in PIECE.finditer(p.text):
            piece = m.group(0).strip(" >-*\t")
            if piece.count("**") % 2:  # a bold run cut by the sentence's end
                piece = piece.replace("**", "")
            if len(piece) < 12 or piece.startswith("|") or piece.startswith("`") and piece.endswith("`"):
                continue
            if done and about_done(done, piece):  # what they already did ("restarted it twice") is no next step
                continue
            if fix and not SAYS_WHAT_TO_DO.search(piece):  # "what can we do about it?": a piece saying what to do answers
                continue
            shared = asked & follow_up_words(piece)
            # (of pieces sharing as much, one the answer before did not say, then the shorter one, which says it more
            # directly: a bullet over the command it explains)
            fresh = not (said_before and unicodedata.normalize("NFKC", piece) in said_before)
            found.append((weight(shared), len(shared), fresh, -len(piece) // 40, -i, -m.start(), piece))
    best = max(found, default=None)
    if best is None or best[-1] in lead or best[0] < 2:
        return None
    if (kinds := kinds_asked(question)) and kinds_held(lead, kinds) > kinds_held(best[-1], kinds):
        return None  # "静态测试怎么跑": the lead holds the command asked, a piece sharing more words does not
    said = weight(asked & follow_up_words(lead))
    if not (lead_is_summary or said_before and unicodedata.normalize("NFKC", lead)[:60] in said_before):
        return best[-1] if best[0] > said else None  # ("token 多久过期": the Token line over the APP line's 过期)
    if best[1] < 2:  # two words of the follow-up at least ("that path" alone is no `src_path`)
        return None
    # over the summary, or the lead said before: three words of the follow-up, or a name or number it states
    # ("NODE_RANK 呢", "超过 40 秒"); a word or two ("a limit on the request size") is answered by the summary
    named = {n.lower() for n in NAME.findall(question)} | set(re.findall(r"--[\w-]+", question.lower())) | set(NUMBER.findall(question))
    # (a name of the piece's said in words counts: "dataset types" is `--dataset-type`)
    spelled = [follow_up_words(code) for code in re.findall(r"`([^`\s]+)`", best[-1]) if re.search(r"\w[-_]\w", code)]
    specific = best[1] >= 3 or any(n in best[-1].lower() for n in named) or any(len(w) >= 2 and w <= asked for w in spelled)
    return best[-1] if specific and best[0] >= said else None


# What the user says they already did ("I already deleted the scheduler pod three times", "ok I restarted it, still
# Pending", "重启了两次 scheduler 还是 pending", "已经加了 export …"): the section whose heading names that action is no
# answer of its own any more; the note's next section leads.
_DONE_VERBS = (r"tried|restarted|rebooted|deleted|killed|reinstalled|reran|re-ran|relaunched|resubmitted|lowered|raised|reduced|"
               r"increased|removed|changed|exported|upgraded|downgraded|checked|disabled|enabled|set|ran|added|turned")
# what a Chinese "已经…了" did to fix something (restarted, deleted, changed, set …); "已经部署好了", "已经预处理过了" state the
# situation the question is about, not a step done
_DONE_ZH = r"重启|重装|重新|删|杀|kill|改|调|设|加|装|卸|降|升|换|关|开|清|试|执行|运行|跑|export"
DONE = re.compile(
    rf"\balready\s+(?:(?:have|did)\s+)?(?:{_DONE_VERBS})\b[^,.;?!]*|(?<!\bif\s)(?<!\bwhen\s)(?<!\bonce\s)(?<!\bshould\s)(?<!\bcan\s)(?<!\bdo\s)\b(?:i|we)(?:'ve|\s+have)?\s+(?:already\s+)?(?:{_DONE_VERBS})\b[^,.;?!]*|"
    rf"(?:^|[,.;!?]\s*)(?:ok(?:ay)?\s*,?\s*|so\s+)?(?:{_DONE_VERBS})\b[^,.;?!]*|"
    r"(?:试过|试了|做过|都试了)[^，。,；;？?！!]+|已经[^，。,；;？?！!的]{0,14}(?:" + _DONE_ZH + r")[^，。,；;？?！!的]{0,16}(?:了|过)|[^，。,；;？?！!\s]{1,16}(?:了|过)\s*(?:两次|三次|几次|好几次|多次|\d+\s*次)?[^，。,；;？?！!]{0,16}(?=[，,。]?\s*(?:还是|仍然|依然|依旧|还))",
    re.I)
_DONE_STOP = frozenset({"already", "twice", "times", "time", "three", "two", "several", "again", "ok", "okay", "still"})


def done_clause(question: str) -> str | None:
    """The user's own words for what they already did, or None ("if I set X, what happens?" supposes, it did nothing)."""
    # (up to the clause's "and"/"but"/"still": "… three times and the job is still Pending" did not do the Pending)
    found = [re.split(r"\b(?:and|but|still)\b|还是|仍然|依然", m.group(0), flags=re.I)[0].strip(" ,.;，")
             for m in DONE.finditer(question)]
    return " ".join(found) or None


def _stems(text: str) -> set[str]:
    """terms() with ASCII words cut to their first five letters ("restarted", "restart", "restarting" alike)."""
    return {w[:5] if w.isascii() else w for w in terms(re.sub(r"[-_`]", " ", text)) if w not in _DONE_STOP}


def about_done(done: str, heading: str) -> bool:
    """The section heading names what the user already did: two of the done clause's words (one, when it has one)."""
    words = _stems(done)
    return bool(words) and len(words & _stems(heading)) >= min(2, len(words))


def first_section(question: str, passages: Sequence[NotePassage]) -> NotePassage | None:
    """"Pending for an hour, what should I look at?", "第一步先查什么": the note's section headed as the first step ("What
    Pending means and the first command"), when the question asks where to begin and nothing it did already."""
    if not ASKS_START.search(question) or ASKS_NEXT.search(question) or done_clause(question):
        return None
    return next((p for p in passages if FIRST_HEADING.search(p.heading)), None)


def after_done(done: str, passages: Sequence[NotePassage], said: str = "") -> NotePassage | None:
    """The section to lead with once the user has done what ``done`` says: not one about that, not the first step (they
    are past it), of those one whose opening the conversation has not said yet; None when every section is about it."""
    others = [p for p in passages if not about_done(done, p.heading) and not about_done(done, p.text[:160])]
    later = [p for p in others if not FIRST_HEADING.search(p.heading)] or others
    flat = re.sub(r"[*`>\s]", "", said)
    return next((p for p in later if re.sub(r"[*`>\s]", "", p.text[:80]) not in flat), later[0] if later else None)


# Text the question quotes: 'an error message', "a flag", `code`, “中文引号”, 「…」.
QUOTED = re.compile(r"'([^'\n]{8,200})'|\"([^\"\n]{8,200})\"|`([^`\n]{8,200})`|“([^”\n]{8,200})”|「([^」\n]{8,200})」")
# An error message pasted into the question without quotes: a run of at least five Latin words.
ERROR_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_.:'-]*(?:\s+[A-Za-z_][A-Za-z0-9_.:'-]*){4,}")
ERROR_TOKEN = re.compile(r"\w_\w|\w[:.]\w|\d|error|exception|failed|timeout|traceback|invalid|not found|cannot")


def quoted_texts(question: str) -> list[str]:
    """What the question quotes, lower-cased: quoted text, and every run of five or more words of an error
    pasted without quotes, longest first ("vllm says User-specified max_model_len is … max_model_len")."""
    texts = [next(q for q in quote if q).strip().lower() for quote in QUOTED.findall(question)]
    for m in ERROR_WORDS.finditer(question):
        words = m.group(0).lower().split()
        texts += [run for n in range(len(words), 4, -1) for i in range(len(words) - n + 1)
                  if ERROR_TOKEN.search(run := " ".join(words[i:i + n]))]  # an error's words, not plain prose
    return texts


def code_asked(question: str, text: str) -> list[str]:
    """The terms a note defines (a line or bullet that opens with the term in code: "- `60.97 GiB total capacity` is
    what torch_npu sees…") that the question contains, lower-cased, 8 characters or more."""
    question = question.lower()
    return [c for c in (m.lower() for m in re.findall(r"(?m)^\s*(?:[-*]\s+)?`([^`\n]{8,80})`", text)) if c in question]


def passage_fit(h: NotePassage, framework: str | None, serving: bool) -> tuple[bool, bool, float]:
    """The section about the user's framework and task first."""
    head, fw = h.heading.lower(), (framework or "").lower()
    return (bool(fw) and fw in head, serving or not re.search(r"vllm|inference|推理", head), h.score)


def line_naming(question: str, named: Sequence[str], passages: Sequence[NotePassage]) -> str | None:
    """The note's own line naming a subject the question names, about what the question asks of it: "AscendFactory 镜像只装
    llamafactory 那部分？" against the page of the ModelLink package, whose Dockerfile line takes `install_type=llamafactory`.
    The page covers that subject there, so it answers, with no "not covered" before it. The line must share a word of the
    question beyond the subject and the note's title (an offline install of LLaMA-Factory shares only the title's words
    with that line: the page is still about another package)."""
    if not named or not passages:
        return None
    names = [subject_rx(n) for n in named]
    shared = _stems(" ".join(named)) | _stems(passages[0].title)
    want = _stems(question) - shared
    for p in passages:
        for b in BULLET.findall(p.text):
            if any(rx.search(b) for rx in names) and want & (_stems(b) - shared):
                return b.strip()
    return None
