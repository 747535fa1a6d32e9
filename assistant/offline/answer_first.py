"""The direct answer first in an answer from the notes: when a question asks for a fix ("how do I fix", "怎么办"), a
limit ("what is the maximum", "最大多大") or a choice ("which should I use", "选哪个"), the first sentence of the lead
is the one that holds that kind of answer (says what to do, states the number with its unit, recommends one), taken
from the lead or, when the lead lacks it, from the passages of the same note; for "A vs B" each side the lead does
not define gets the note's own line that defines it. The note's words are kept as written: sentences move, none is
made up."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from ..note_kinds import kinds_asked, kinds_held
from ..notes import (
    _MARKED,
    _REMARK,
    _SENTENCE_END,
    ASKS_DIFFERENCE,
    ASKS_HOW,
    SAYS_WHAT_TO_DO,
    facts,
    named_parameters,
    opens_with,
    tokenize,
)
from ..tools.tables import NotePassage
from .note_pick import about_done
from .wording import W

ASKS_FIX = re.compile(r"怎么办|怎么解决|如何解决|怎么处理|如何处理|怎么修|怎么改|报错|what\s+(?:should|can|do)\s+i\s+do|"
                      r"how\s+(?:do\s+i|to|can\s+i|should\s+i)\s+(?:fix|solve|avoid|resolve|get\s+rid|get\s+(?:past|around)|work\s+around|bypass)|"
                      r"(?<![a-z])(?:fix|workaround)(?![a-z])|怎么绕过|如何绕过", re.I)
ASKS_LIMIT = re.compile(r"(?<![\w-])(?:max(?:imum)?|limit|largest|upper\s+bound|how\s+(?:large|big|long|much\s+time)|timeout)(?![a-z])|"
                        r"最大|上限|多大|多久|多长时间|超时时间|限制是", re.I)
ASKS_CHOICE = re.compile(r"which\s+(?:one\s+|\w+\s+)?(?:should|do\s+i|to\s+(?:use|choose|pick))|should\s+i\s+(?:use|choose|pick|run)|"
                         r"选哪|该选|用哪|选择哪|该用哪|推荐用哪|应该用哪", re.I)
# what a sentence holds that answers each kind
FIX_SAYS = re.compile(SAYS_WHAT_TO_DO.pattern + r"|comment\s+out|ignore|keep|check|edit|change|patch|modify|注释|忽略|保持|检查|重装|重启|修改|改成", re.I)
LIMIT_SAYS = re.compile(r"\d+(?:\.\d+)?\s*\**\s*(?:MB|GB|KB|M|G|s|min|minutes?|h|hours?|分钟|秒|小时|%)(?![A-Za-z])")
CHOICE_SAYS = re.compile(r"(?<![A-Za-z])(?:use|choose|pick|prefer|recommended?|go\s+with)(?![A-Za-z])|用|选|推荐|建议", re.I)
ELSEWHERE = re.compile(r"(?<![a-z])(?:is|are)\s+(?:a|an)\s+(?:different|separate|other)\s+(?:\w+\s+)?(?:limit|setting|problem|error|issue|case)|"
                       r"是另一个|是另一种|是不同的(?:限制|问题|报错|设置)", re.I)
# "is the checkpoint still usable?", "权重会不会坏": the state of what the user has after the problem, answered by the
# sentence that says whether it is affected
ASKS_STATE = re.compile(r"still\s+(?:usable|valid|good|ok(?:ay)?|intact|safe)|(?<![a-z])(?:is|are)\s+(?:it|they|(?:the|my|our)\s+[\w-]+)\s+"
                        r"(?:corrupt(?:ed)?|affected|damaged|broken|intact)|safe\s+to\s+use|还能用|能不能用|可以用吗|会不会坏|坏了吗|坏掉|受影响|有没有影响|有影响吗", re.I)
STATE_SAYS = re.compile(r"(?<![a-z])(?:affect(?:s|ed)?|unaffected|corrupt(?:s|ed)?|intact|usable|damag(?:e|es|ed)|safe)(?![a-z])|影响|损坏|完好|可用|能用", re.I)
# "is the dynamic test supported for multimodal?", "能做动态测试吗": whether a thing is allowed, answered by the sentence
# that says what is supported or not ("only the static test", "只支持静态测试")
ASKS_WHETHER = re.compile(r"(?<![a-z])(?:is|are)\s+(?:[\w.-]+\s+){0,6}supported|(?<![a-z])(?:does|do)\s+(?:[\w.-]+\s+){0,6}support(?![a-z])|"
                          r"(?<![a-z])(?:can|could)\s+(?:i|we)(?![a-z])|is\s+it\s+possible|支持[^，。？?]{0,12}吗|能不能|能否|可不可以|能做|可以做", re.I)
# "which methods does it support?" lists, it asks no yes or no
LISTS_ASKED = re.compile(r"(?<![a-z])(?:which|what)\s+(?:[\w.-]+\s+){0,6}(?:does|do|is|are|can)\s+(?:[\w.-]+\s+){0,6}support|哪些|哪几|哪种", re.I)
WHETHER_SAYS = re.compile(r"(?<![a-z])(?:(?<!reference\s)only|not\s+supported|unsupported|cannot|can't|not\s+available|supported|supports?)(?![a-z])|"
                          r"只支持|仅支持|不支持|只能|不能|无法|支持", re.I)
SAYS = {"fix": FIX_SAYS, "limit": LIMIT_SAYS, "choice": CHOICE_SAYS, "state": STATE_SAYS, "whether": WHETHER_SAYS}
# a sentence that plainly gives the fix: it opens with what to do ("Use BF16 …", "On LLaMA-Factory: export …", "Training OOM
# on MindSpeed-LLM, in the vendor's order: kill …"), or names
# itself the remedy ("the vendor says to comment out …", "厂商的办法：…"); a verb in passing ("examples use …") does not
FIX_GIVEN = re.compile(r"^[\W\d]*(?:(?:on|for|in)\s[^:：,]{1,60}[:：,][\s`*]*|[^:：.。]{1,60}[:：][\s`*]*)?(?:use|set|copy|run|add|export|delete|raise|lower|install|remove|"
                       r"replace|switch|upgrade|restart|kill|reduce|increase|keep|check|comment|ignore|stop|edit|change|shorten|turn)\b|"
                       r"办法|解决|workaround|(?:vendor|page)\s+says\s+to|(?<![a-z])fix(?:es)?\s+(?:given|from|by)|(?:vendor(?:'s)?|the)\s+fix(?:es)?\s*[:：]|remed(?:y|ies)|改用|调大|调低|换成|重装|注释掉|忽略", re.I)
# a sentence that plainly makes the choice: it opens with the pick ("Use BF16 …", "Choose …") or says what is recommended
CHOICE_GIVEN = re.compile(r"^[\W\d]*(?:(?:on|for|in)\s[^:：,]{1,60}[:：,][\s`*]*)?(?:use|choose|pick|prefer|take|go\s+with|start\s+with)\b|"
                          r"recommend|(?<![a-z])(?:best|should)(?![a-z])|^[^，。：]{0,40}(?:用|选)|建议|推荐|就用", re.I)
# a sentence saying what does not help ("the training remedies above do not apply", "重启解决不了这个事件") gives no fix
NO_FIX = re.compile(r"不适用|没有用|没用|无效|解决不了|不能解决|(?:do|does|did|will)\s*(?:not|n't)\s+(?:apply|help|work|fix)|won't\s+(?:help|fix|work)", re.I)
SAYS["helps"] = NO_FIX  # the sentence that answers "does it help?": one saying it does not
# an FAQ item "problem → fix" gives its fix
FIX_GIVEN = re.compile(FIX_GIVEN.pattern + r"|\s(?:→|->|=>)\s", re.I)
GIVEN = {"fix": FIX_GIVEN, "choice": CHOICE_GIVEN}
# words every question of a kind has: they pick no sentence
_KIND_WORDS = {"fix", "how", "do", "i", "what", "which", "should", "use", "choose", "one", "max", "maximum", "limit", "size",
               "is", "the", "a", "before", "after", "when", "while", "during", "on", "in", "with", "my", "it", "怎么", "办", "解决", "选", "哪个", "最大", "多大"}
_SENTENCE = re.compile(r"(?<=[。！？])(?!\*\*)|(?<=[.!?])\s+(?=[A-Z`*“\"(（])")  # "**忽略这个报错。**" is one sentence


# "will restarting the scheduler fix that?", "重启 scheduler 能解决吗": whether a way the user names helps, answered by the
# note's sentence saying it does not help (NO_FIX), led by a plain no; a note with no such sentence answers it as a fix
ASKS_HELPS = re.compile(r"(?:^|[,.;:?!，。；：？]\s*|(?<![a-z])(?:and|but|so)\s+)(?:will|would|does|do|did|can|could|is|are)\s+(?!(?:i|we|you)\s)((?:[\w.'-]+\s+){1,8}?)(?:fix|help|solve|resolve|cure)(?:s|es)?(?![a-z])"
                        r"[^?？.。;；]{0,80}[?？]|([^，。；？?,;]{1,24}?)(?:能|可以|会)(?:解决|修好|好)吗|([^，。；？?,;]{1,24}?)(?:能不能解决|有用吗|管用吗|有没有用|有效吗)", re.I)


def kind_asked(question: str) -> str | None:
    """helps, state, fix, choice, limit or whether: what the question asks for, or None."""
    for kind, rx in (("helps", ASKS_HELPS), ("state", ASKS_STATE), ("fix", ASKS_FIX), ("choice", ASKS_CHOICE), ("limit", ASKS_LIMIT), ("whether", ASKS_WHETHER)):
        if rx.search(question) and not (kind == "whether" and LISTS_ASKED.search(question)):
            return kind
    return None


def _plain(text: str) -> str:
    """A fact as one sentence of prose: no bullet mark, no line breaks."""
    return " ".join(re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", ln).strip() for ln in text.splitlines() if ln.strip())


def _terms(text: str) -> set[str]:
    return set(tokenize(text.lower(), unigrams=False))


def answer_first(question: str, lead: str, passages: Sequence[NotePassage], lang: str = "en", done: str | None = None) -> str:
    """``lead`` with the sentence that answers the kind asked first (see the module's docstring); unchanged when its
    first sentence already does, or when no sentence of the note holds that kind of answer with the question's words.
    A sentence's fit is the question's words it holds, each weighing by how rare it is among the note's sentences
    (a word in every sentence picks none), plus half the fit of its section's heading."""
    if not lead.strip() or "\n" in lead.strip():
        return lead
    lead = both_sides(question, lead, passages, lang)
    lead = remark_after_its_fact(question, lead, passages, lang)
    kind = kind_asked(question)
    if kind is None:
        return how_first(question, lead, passages, lang)
    asked = _terms(question) - _KIND_WORDS
    says = SAYS[kind]
    sentences = [s.strip() for s in _SENTENCE.split(lead) if s and s.strip()]
    if not asked or not sentences:
        return lead
    found: list[tuple[str, str]] = [(s, "") for s in sentences]  # (sentence, its section's heading)
    seen = {re.sub(r"\W+", "", s) for s in sentences}
    # the sentences that continue the lead's own paragraph ("… the training remedies do not apply. The vendor's FAQ says to
    # lower `--gpu-memory-utilization`"): as good as the lead's own
    first_key = re.sub(r"\W+", "", sentences[0]) if sentences else ""
    own = [k for p in passages for para in re.split(r"\n\s*\n", p.text)
           if first_key and first_key in (k := re.sub(r"\W+", "", _plain(para)))]
    for p in passages:
        for f in (f for f in facts(p.text) if "\n" not in f):  # a list with its introduction: its items come one by one
            for s in (_plain(x) for x in _SENTENCE_END.split(f) if x and x.strip()):
                key = re.sub(r"\W+", "", s)
                if key not in seen and not s.endswith((":", "：")) and "```" not in s:
                    seen.add(key)
                    found.append((s, p.heading))
    df = Counter(t for s, _ in found for t in _terms(s) & asked)

    def weight(text: str) -> float:
        return sum(1 / df[t] if df[t] else 0.5 for t in _terms(text) & asked)

    def fit(s: str, heading: str) -> float:
        return weight(s) + weight(heading) / 2

    first = sentences[0]
    if kind == "fix" and (items := problem_items(sentences, weight)) is not None:  # "problem → fix": the problem asked
        sentences = items
        lead = ("" if lang == "zh" else " ").join(sentences)
        first = sentences[0]

    def answers(s: str) -> bool:
        return (bool(says.search(s)) and (kind not in GIVEN or bool(GIVEN[kind].search(s)))
                and not (kind == "fix" and NO_FIX.search(s)))

    if kind == "helps":  # a plain no, with the note's sentence saying so first; else the question is answered as a fix
        return helps_not(lead, sentences, [(s, fit(s, h)) for s, h in found], way_asked(question), lang) or answer_first(
            ASKS_HELPS.sub(" fix? ", question), lead, passages, lang, done)
    # the lead's first sentence already answers: plainly (a fix or a pick given), or a number with the question's words
    if answers(first) and not ELSEWHERE.search(first) and (kind in GIVEN or weight(first) > 0):
        return lead
    # "图像宽高用哪两个参数传", "which script for the dynamic test": a choice asked as a kind (note_kinds) is answered by
    # the lead's first sentence when that holds the kind, not by a neighbour's "use …" sentence
    if kind == "choice" and (held := kinds_asked(question)) and kinds_held(first, held):
        return lead
    # a sentence that says it is about something else ("… is a different limit: `HCCL_CONNECT_TIMEOUT` …") answers not this
    # (nor one naming what the user already did: "restarting the scheduler does not fix this" after "restarted it twice")
    pool = [(fit(s, h) + (LEAD_BONUS if lead_own else 0), lead_own, -i, s) for i, (s, h) in enumerate(found)
            if answers(s) and not ELSEWHERE.search(s) and not (done and about_done(done, s))
            for lead_own in [i < len(sentences) or any(re.sub(r"\W+", "", s) in k for k in own)]]
    if not pool:
        return lead
    best = max(pool, key=lambda c: c[:3])
    if best[3] == first or best[0] < (LEAD_BONUS if best[1] else MIN_FIT):  # the lead's own sentence needs no more words
        return lead
    # (but at least one word of the question: a rule about a neighbouring parameter, "`--backend` 的可选值 … 使用 `openai`",
    # says the kind asked of another thing, and never goes first)
    if best[0] - (LEAD_BONUS if best[1] else 0) <= 0:
        return lead
    chosen = best[3]
    rest = [s for s in sentences if s != chosen]  # a sentence of the lead moves to the front; the note's goes before it
    return ("" if lang == "zh" else " ").join([chosen, *rest])


def way_asked(question: str) -> set[str]:
    """The words of the way "does it help?" asks about ("restarting the volcano scheduler pod", "重启 scheduler")."""
    m = ASKS_HELPS.search(question)
    if not m:
        return set()
    said = next((g for g in m.groups() if g), "")
    if not _terms(said) - PRONOUNS:  # "…, does that fix it?": the clause before says the way
        said = question[:m.start()]
    rest = question.replace(said, " ") if said else question
    # (its own words: not those of the problem it is asked against, "raising --gpu-memory-utilization" for "out of memory")
    return _terms(said) - _terms(rest) - _KIND_WORDS - PRONOUNS


PRONOUNS = frozenset({"that", "this", "it", "them", "these", "those", "这个", "那个", "这样"})


def helps_not(lead: str, sentences: list[str], fits: list[tuple[str, float]], way: set[str], lang: str) -> str | None:
    """"Will X fix it?": the note's sentence saying X does not fix it (one saying no way helps that names a word of X, the
    best fit of the question's words), after a plain no, then the rest of the lead; None when no sentence says so."""
    said = [(f, -i, s) for i, (s, f) in enumerate(fits) if NO_FIX.search(s) and way & _terms(s)]
    if not said:
        return None
    chosen = max(said)[2]
    rest = [s for s in sentences if s != chosen]
    return W["note_helps_no"][lang].format(sentence=chosen) + ("" if lang == "zh" else " ") + ("" if lang == "zh" else " ").join(rest)


ARROW = re.compile(r"\s(?:→|->|=>)\s")


def problem_items(sentences: list[str], weight: Callable[[str], float]) -> list[str] | None:
    """A lead of FAQ items ("**NPU out of memory** → lower …", "**`ValueError: … max_model_len`** → export …"), when a
    fix is asked: the item whose problem side holds the question's words, first; the items of problems nobody named
    dropped. None when the lead holds fewer than two items or no one problem is named most."""
    items = [(i, weight(ARROW.split(s, maxsplit=1)[0])) for i, s in enumerate(sentences) if ARROW.search(s)]
    if len(items) < 2:
        return None
    scores = sorted((w for _, w in items), reverse=True)
    if scores[0] <= 0 or scores[0] == scores[1]:
        return None
    best = next(i for i, w in items if w == scores[0])
    unnamed = {i for i, w in items if w == 0}
    return [sentences[best], *(s for i, s in enumerate(sentences) if i != best and i not in unnamed)]


# "can I reuse …?", "is it possible to …", "还能直接用吗": whether a way exists
ASKS_CAN = re.compile(r"(?<![a-z])(?:can|could|may)\s+(?:i|we)(?![a-z])|(?<![a-z])is\s+it\s+(?:possible|ok(?:ay)?|safe)|(?<![a-z])possible\s+to(?![a-z])|"
                      r"是否(?:可以|能)|能不能|可不可以|能否|可以[^？?。，,]{0,30}吗|还能[^？?。，,]{0,20}吗", re.I)


def remark_after_its_fact(question: str, lead: str, passages: Sequence[NotePassage], lang: str = "en") -> str:
    """"Can I reuse the preprocessed data?": a lead that opens with the note-writer's remark ("redo it when the tokenizer or
    the length changes") answers a can-I question only after the vendor's sentences of its paragraph that say the way
    ("`USER_PROCESSED_DATA_DIR` … when set, training skips preprocessing"): those go first, in the note's order."""
    sentences = [s.strip() for s in _SENTENCE.split(lead) if s and s.strip()]
    if not sentences or not ASKS_CAN.search(question) or not _REMARK.match(sentences[0]):
        return lead
    first_key = re.sub(r"\W+", "", sentences[0])
    for p in passages:
        for para in re.split(r"\n\s*\n", p.text):
            plain = _plain(para)
            if first_key not in re.sub(r"\W+", "", plain):
                continue
            own = [s.strip() for s in _SENTENCE.split(plain) if s and s.strip()]
            at = next((i for i, s in enumerate(own) if re.sub(r"\W+", "", s) == first_key), None)
            before = [s for s in own[:at or 0] if re.sub(r"\W+", "", s) not in re.sub(r"\W+", "", lead)]
            if before and not any(_REMARK.match(s) for s in before):
                return ("" if lang == "zh" else " ").join([*before, lead])
    return lead


LEAD_BONUS = 0.5  # a sentence the notes' search already chose for the question, over a neighbour with as many of its words
MIN_FIT = 1.0  # at least one of the question's rarer words (or two common ones) in the sentence that goes first


def both_sides(question: str, lead: str, passages: Sequence[NotePassage], lang: str = "en") -> str:
    """"A vs B", "A 和 B 的区别": each side the lead does not define on its own (a sentence that opens with it and names
    no other side) is defined first by the note's own line that does (`cutoff_len` (default 2048): …), in the
    question's order; the lead's comparison follows."""
    if not ASKS_DIFFERENCE.search(question):
        return lead
    names = [p for p in named_parameters(question) if _MARKED.search(p) or re.fullmatch(r"[A-Z][A-Z0-9]+", p)]
    if len(names) < 2:
        return lead
    sentences = [s.strip() for s in _SENTENCE.split(lead) if s and s.strip()]

    def alone(s: str, name: str) -> bool:  # opens with ``name`` and names no other side
        return opens_with(s, name) and not any(o.lower() in s.lower() for o in names if o != name)

    added: list[str] = []
    for name in names:
        if any(alone(s, name) for s in sentences + added):
            continue
        line = next((_plain(f) for p in passages for f in facts(p.text) if "\n" not in f and alone(f, name)), None)
        if line is not None and line not in added and line not in lead:  # a table row the lead holds already defines it
            added.append(line)
    if not added:
        return lead
    return ("" if lang == "zh" else " ").join([*added, lead])


def how_first(question: str, lead: str, passages: Sequence[NotePassage], lang: str = "en") -> str:
    """"How do I …", "怎么准备": a lead whose first sentence says nothing to do (what goes wrong without network) is
    preceded by the note's answer-first summary when that opens with what to do (download these, at these commits)."""
    summary = passages[0].summary.strip() if passages else ""
    if not summary or not ASKS_HOW.search(question.lower()) or summary in lead:
        return lead
    opening = next((s.strip() for s in _SENTENCE.split(lead) if s and s.strip()), "")
    said = next((s.strip() for s in _SENTENCE.split(summary) if s and s.strip()), "")
    if SAYS_WHAT_TO_DO.search(opening) or not (SAYS_WHAT_TO_DO.search(said) or FIX_GIVEN.search(said)):
        return lead
    # a lead about the parameter the question names ("how does … set MASTER_ADDR"): that line is the direct answer
    if any(p.lower() in opening.lower() for p in named_parameters(question) if _MARKED.search(p) or re.fullmatch(r"[A-Z][A-Z0-9_]+", p)):
        return lead
    return ("" if lang == "zh" else " ").join([summary, lead])



def held_first(question: str, lead: str, passages: Sequence[NotePassage], lang: str = "en", kinds: Sequence[str] = ()) -> str:
    """"What command do I run first?", "HF 权重输出到哪个目录": a lead whose first sentence holds none of the kinds the
    question asks for (note_kinds: a command, a path, a variable, a script, a flag; or the ``kinds`` given) opens with
    the first sentence that does, of the lead or else of the note's paragraph the lead opens ("默认不会转回 HF。… 输出在
    `saved_models/pretrain_hf/` 下"); the lead's sentences follow in their order."""
    given = bool(kinds)
    kinds = list(kinds) or kinds_asked(question)
    sentences = [s.strip() for s in _SENTENCE.split(lead) if s and s.strip()]
    # (a sentence moved for its kind alone must share a word of the question's own: "API key 在哪里拿到" asks the key's
    # place, not the URL path of the sentence beside it; a where-to-begin section's command needs none)
    asked = {w for w in _terms(question) - _KIND_WORDS if not re.search(r"[哪里么什啥怎]", w)}
    if not kinds or not sentences or kinds_held(sentences[0], kinds):
        return lead
    first_key = re.sub(r"\W+", "", sentences[0])
    own = [s.strip() for p in passages for para in re.split(r"\n\s*\n", p.text)
           if first_key and first_key in re.sub(r"\W+", "", (plain := _plain(para))) for s in _SENTENCE.split(plain) if s and s.strip()]
    said = {re.sub(r"\W+", "", s) for s in sentences}
    # (the lead's own paragraph first: a later sentence of the lead may be another section's fact)
    pick = next((s for s in [s for s in own if re.sub(r"\W+", "", s) not in said] + sentences[1:]
                 if kinds_held(s, kinds) and (given or _terms(s) & asked)), None)
    if pick is None:
        return lead
    # (a lead's sentence that holds the one moved, run on with the next: "…`ModelLink`。**TP、PP 必须…**", keeps the rest)
    rest = [r for s in sentences if s != pick and (r := s.replace(pick, "").strip())]
    if not re.search(r"[.。!！?？]\**$", pick):  # a sentence ending in its code: ended before the next one
        pick += "。" if lang == "zh" else "."
    return ("" if lang == "zh" else " ").join([pick, *rest])


# a sentence that leans on the one before it: it opens with a pronoun ("When it is set, …", "This keeps …", "它会…")
LEANS_BACK = re.compile(r"^[*`\s]*(?:(?:when|if|once|so|and|but)\s+)?(?:it|this|that|they|these|those|both)(?![a-z])|^[*`\s]*(?:它|这|该|此|其|二者|两者)", re.I)


def with_antecedent(lead: str, passages: Sequence[NotePassage], lang: str = "en") -> str:
    """A lead whose first sentence leans on the one before it in the note ("When it is set, training skips
    preprocessing": set is `USER_PROCESSED_DATA_DIR`) opens with that sentence of its paragraph, so the answer names
    what it is about."""
    sentences = [s.strip() for s in _SENTENCE.split(lead) if s and s.strip()]
    if not sentences or not LEANS_BACK.search(sentences[0]):
        return lead
    key = re.sub(r"\W+", "", sentences[0])
    for p in passages:
        for para in re.split(r"\n\s*\n", p.text):
            own = [s.strip() for s in _SENTENCE.split(_plain(para)) if s and s.strip()]
            at = next((i for i, s in enumerate(own) if re.sub(r"\W+", "", s) == key), None)
            if at:  # (not the paragraph's first sentence: nothing before it to carry)
                before = own[at - 1]
                if re.sub(r"\W+", "", before) not in re.sub(r"\W+", "", lead):
                    return ("" if lang == "zh" else " ").join([before, lead])
                return lead
    return lead


# "ModelLink 和 MindSpeed 各自锁的 commit", "X and Y respectively": the same thing asked of each name
EACH = re.compile(r"各自|分别|各是|每个|(?<![a-z])(?:each|both|respectively)(?![a-z])", re.I)
NAME_WORD = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9.-]{3,}(?![\w-])")


def each_named(question: str, lead: str, passages: Sequence[NotePassage], lang: str = "en") -> str:
    """A question asking the same thing of each of two or more names ("ModelLink 和 MindSpeed 各自的 commit"), whose lead
    answers it for some: the note's sentence for each other name, the one most like the lead's (the same fact of the
    other name: "克隆 MindSpeed，检出 commit …" beside "克隆 ModelLink，检出 commit …"), after the lead."""
    if not EACH.search(question):
        return lead
    body = "\n".join(p.text for p in passages).lower()
    names = [n for n in dict.fromkeys(NAME_WORD.findall(question)) if re.search(r"[A-Z]", n[1:]) or re.search(r"\d", n)]
    names = [n for n in names if n.lower() in body]
    said = [n for n in names if n.lower() in lead.lower()]
    missing = [n for n in names if n.lower() not in lead.lower()]
    if len(names) < 2 or not said or not missing:
        return lead
    shape = _terms(lead) - {n.lower() for n in names}
    added: list[str] = []
    for name in missing:
        rx = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.I)
        found = [(len(_terms(f) & shape), -i, _plain(f)) for i, f in enumerate(
            f for p in passages for f in facts(p.text) if "\n" not in f) if rx.search(f)]
        best = max(found, default=None)
        if best and best[0] > 0 and best[2] not in lead and best[2] not in added:
            added.append(best[2])
    return ("" if lang == "zh" else " ").join([lead, *added]) if added else lead


BULLET_LINE = re.compile(r"(?m)^\s*[-*]\s+(.+)$")


def named_item_first(question: str, lead: str) -> str:
    """A lead that is a list ("On the connected machine: - … - Clone **MindSpeed** … `4ea42a23`."), asked of one of its
    items by a name only that item holds ("which MindSpeed commit?"): that item first, as a sentence, the list after."""
    items = BULLET_LINE.findall(lead)
    if len(items) < 3:
        return lead
    names = [n for n in dict.fromkeys(NAME_WORD.findall(question)) if re.search(r"[A-Z]", n[1:]) or re.search(r"\d", n)]
    hits = {i for n in names for i, item in enumerate(items)
            if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", item, re.I)}
    if len(hits) != 1:
        return lead
    item = items[hits.pop()].strip()
    return item + "\n" + lead


def in_ask_order(lead: str, parts: Sequence[str], lang: str = "en") -> str:
    """A lead answering a question of several parts ("how long is a Token valid, and when should I use it over AK/SK?"):
    the sentence answering the part asked first goes first. That is the sentence holding most of the first part's own
    words (those no other part has), when the lead's first sentence holds fewer of them (or as many, among more words
    of its own); the rest keep their order. The
    note's words are kept: a sentence moves, none is made up; the note named at the end stays at the end."""
    cite = _NOTE_CITED.search(lead)
    body = lead[:cite.start()] if cite else lead
    sentences = [x.strip() for x in _SENTENCE.split(body) if x and x.strip()]
    if len(parts) < 2 or len(sentences) < 2 or "\n" in body.strip():  # (a list or a command block keeps its lines)
        return lead
    # a kind the first part asks ("输出到哪个目录": a path): the first sentence holding it answers; only such a sentence moves
    # (the first sentence may hold that kind of another thing, "`TOKENIZER_PATH`（默认取 …）" in a list beside the
    # part's own "`TRAIN_ITERS` … 默认为 …": the part's own words decide among the sentences holding it)
    if (kinds := kinds_asked(parts[0])) and any(kinds_held(x, kinds) for x in sentences):
        # (a sentence giving another setting's value, "`HCCL_CONNECT_TIMEOUT` … (default 120 s)" when the part names
        # `HCCL_EXEC_TIMEOUT`, holds no value of the setting asked)
        named = {n.lower() for n in _VARIABLE.findall(parts[0])}
        holding = [bool(kinds_held(x, kinds)) and not (named and (own := {n.lower() for n in _VARIABLE.findall(x)}) and not own & named)
                   for x in sentences]
    else:
        holding = [True] * len(sentences)
    words = [_terms(p) - _KIND_WORDS for p in parts]
    first_own = words[0] - set().union(*words[1:])
    # (on a tie, the sentence about fewer things: "`TRAIN_ITERS` defaults to …" over a list naming it among others)
    sentence_terms = [_terms(x) for x in sentences]
    scores = [(len(first_own & ts) if held else 0, -len(ts)) for ts, held in zip(sentence_terms, holding, strict=True)]
    best = scores.index(max(scores))
    # (the kind the first part asks, "the default", held by no sentence before it: its sentence moves even when it holds
    # none of the part's other words, "Default: **1836 s**" after the variable's description)
    kind_only = holding[0] is False and all(holding[k] is False for k in range(best))
    if best == 0 or not (scores[best][0] or kind_only) or scores[0] >= scores[best]:
        return lead
    # (the sentences that go on from it, "因此一个 epoch 是 …", "So …", move with it)
    end = best + 1
    while end < len(sentences) and GOES_ON.match(sentences[end]):
        end += 1
    ordered = [*sentences[best:end], *sentences[:best], *sentences[end:]]
    return ("" if lang == "zh" else " ").join(ordered) + (cite.group(0) if cite else "")


_VARIABLE = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w-])")  # a setting's name: HCCL_EXEC_TIMEOUT
GOES_ON = re.compile(r"(?:因此|所以|于是|也就是说)|(?:so|therefore|thus|hence|that\s+is)(?![a-z])", re.I)


_NOTE_CITED = re.compile(r"\s*\(notes: (?:[^()]|\([^()]*\))*\)\s*$|（笔记：《[^》]*》）\s*$")  # (a title may hold its own brackets)
