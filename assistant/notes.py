"""Notes: markdown files with front matter, split into sections, ranked with BM25.

Every note exists in English (``notes/*.md``) and Chinese (``notes/zh/*.md``, same file names and
the same ``##`` sections in the same order); each language has its own BM25 index, so a Chinese
question is answered from Chinese passages and an English one from English passages.

Why bm25s and not DuckDB's fts extension: fts is not bundled with the DuckDB wheel and would be
downloaded on first use, which fails offline; bm25s is a small, maintained BM25 library that works
on pre-tokenised text, so Chinese can be tokenised into character unigrams and bigrams here.
"""

from __future__ import annotations

import ast
import operator
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .note_kinds import kinds_asked, kinds_held

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[a-z0-9_]+(?:[.\-][a-z0-9_]+)*")
LANGS = ("en", "zh")
# Chinese function characters and question words: as unigrams they occur in every note and only add
# noise to a question like "TP 和 PP 怎么设置" (the content bigrams carry the meaning).
_CJK_STOP = set("的了吗呢啊吧是和与及或在把被就都也还很么什怎哪这那个些") | {"怎么", "什么", "为什", "如何", "怎样", "哪个", "是不", "不是"}
_STOP = {"the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "is", "are", "do", "does", "what", "how", "why", "my", "i", "it", "with", "when", "be", "can", "that", "this", "should",
         "but", "from", "did", "t", "s", "will", "just", "if", "at", "by", "as", "so", "any", "our", "we", "you", "your", "me",
         "there", "which", "then", "than", "was", "were", "has", "have", "had", "its", "their", "they",
         # generic modifiers and wants: a question's "extra pip packages" or "I need" names nothing a fact is about
         "extra", "additional", "more", "other", "some", "also", "really", "actually", "still", "need", "want", "get"}


def _stem(word: str) -> str:
    """A plain English word without its -ing/-ed/-es/-s ending ("missing" -> "miss", "requests" -> "request"), so
    a question's wording meets the note's; names with digits, dots or underscores stay whole."""
    if len(word) > 4 and word.isalpha():
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith(("ss", "eed")):
                stem = word[: -len(suffix)]
                # "pinned" -> pin, "running" -> run: a doubled last consonant before -ed/-ing is one
                return stem[:-1] if suffix in ("ed", "ing") and stem[-1] == stem[-2] and stem[-1] not in "aeiouls" else stem
    return word


def tokenize(text: str, unigrams: bool = True) -> list[str]:
    """Lower-case words (keeping `expandable_segments`, `ds_z3`, `3.1`), plus CJK unigrams and bigrams; without
    ``unigrams``, a single Chinese character counts only where it stands alone (the facts' index: in a sentence
    every common character would match)."""
    out: list[str] = []
    for m in _TOKEN.finditer(text.lower()):
        tok = m.group(0)
        if re.match(rf"[{_CJK}]", tok):
            if unigrams or len(tok) == 1:
                out.extend(c for c in tok if c not in _CJK_STOP)
            out.extend(b for b in (tok[i : i + 2] for i in range(len(tok) - 1)) if b not in _CJK_STOP)
        elif tok not in _STOP:
            out.append(_stem(tok))
            if re.search(r"[.\-_]", tok):  # also index the parts: "zero-3" -> zero, 3
                # a flag's words are words ("--num-prompts": prompt); a file's or key's parts stay as written
                # ("learning_rate": learn, rate, so the question's "learning rate" meets it)
                out.extend(_stem(p) for p in re.split(r"[.\-_]", tok) if p and p not in _STOP)
            elif m2 := re.fullmatch(r"(\d+)([a-z]{1,2})", tok):  # "32gb" -> 32, gb: the notes write "32 GB"
                out.extend(m2.groups())
    return out


# Latin words that Chinese questions open with as freely as English ones (jargon, product and model
# names); they say nothing about the question's language. Words with digits, dots, hyphens or
# underscores (qwen2.5-72b, max_model_len) and single letters are skipped as well.
_JARGON_WORDS = """
lora qlora zero offload deepspeed megatron mindspeed modellink ascendspeed llamafactory factory llama qwen glm chatglm
baichuan deepseek mixtral gemma yi internvl vllm sglang npu npus gpu gpus cpu oom die dies ascend snt modelarts cann
hccl flashattention flash attention attn sdpa checkpoint ckpt bf fp tp pp dp cp ep sp mbs gbs ga tps mfu flops kv moe
sft pt dpo ppo rm rlhf full freeze peft yaml json config batch token tokens seq len cutoff epoch epochs torch pytorch
nvidia rtx hbm obs sfs hf huggingface transformers bitsandbytes bnb gptq awq nf adam adamw ok
"""
_JARGON = frozenset(_JARGON_WORDS.split())
_WORD = re.compile(rf"[{_CJK}]|[A-Za-z0-9_.\-']+")


def query_lang(text: str) -> str:
    """'zh' when the query contains Chinese, unless it starts in English: an ordinary English word
    before the first Chinese character. Callers append glosses in the other language ("OOM? out
    of memory 显存溢出"), so the mere presence of a few Chinese characters is not enough."""
    for m in _WORD.finditer(text):
        tok = m.group(0)
        if re.match(rf"[{_CJK}]", tok):
            return "zh"
        word = tok.lower().removesuffix("'s").removesuffix("'t").strip("'.-")
        if re.fullmatch(r"[a-z]{2,}", word) and word not in _JARGON:
            return "en"
    return "en"


@dataclass
class NoteSection:
    note_id: str
    section_id: int
    file: str
    title: str
    topic: str
    source: str
    heading: str
    text: str
    keywords: list[str] = field(default_factory=list)
    lang: str = "en"
    summary: str = ""  # the note's answer-first summary (front matter), the same for every section
    # the words that name the procedure the note tells how to do ("convert the weights", "权重转换"): a question naming
    # one asks how to do it, whatever job it states beside it (front matter ``procedures``)
    procedures: list[str] = field(default_factory=list)
    # what the section answers, as the question states it ("<!-- answers: deployed service, 已部署, --url -->" under its
    # heading): the context that makes this section, not a neighbour sharing the question's words, the one to lead from
    answers: list[str] = field(default_factory=list)
    # what the vendor page behind the note is about, when that is one framework, stack or product (front matter
    # ``subject``: "ModelLink", "MindSpeed"): a question naming another subject of the notes is told the note's scope
    subjects: list[str] = field(default_factory=list)


LABELLED = re.compile(r"^[\s>*-]*\*\*([^*\n`]{1,30})\*\*\s*[:：(（]")  # "- **Token**: …", "**APP** (…)"

ANSWERS_LINE = re.compile(r"^\s*<!--\s*answers:\s*(.*?)\s*-->\s*$")


# "(不是本地 host/port)", "instead of localhost", "rather than the local one": the words after it up to the clause's end
NEGATED = re.compile(r"(?:\binstead\s+of|\brather\s+than|\bnot\s+(?:on|via|through|using|from|the|a|my|our)\b|(?<!是)不是|而非|而不是|并非)"
                     r"[^，,。;；？?！!）)\n]*", re.I)


def without_negated(text: str) -> str:
    """The question without what it rules out (NEGATED)."""
    return NEGATED.sub(" ", text)


def answers_named(question: str, answers: list[str]) -> int:
    """How many of a section's ``answers`` phrases the question holds (a Latin phrase as whole words)."""
    low = question.lower()
    return sum(bool(re.search(rf"(?<![a-z0-9_-]){re.escape(a)}(?![a-z0-9_-])", low)) if a.isascii() else bool(re.search(spaced(a), low))
               for a in answers)


def parse_note(path: Path, lang: str = "en") -> list[NoteSection]:
    raw = path.read_text(encoding="utf-8")
    meta: dict[str, Any] = {}
    body = raw
    if raw.startswith("---"):
        _, fm, body = raw.split("---", 2)
        meta = yaml.safe_load(fm) or {}
    note_id = path.stem
    title = str(meta.get("title", note_id))
    keywords = [str(k) for k in meta.get("keywords", []) or []]
    sections: list[NoteSection] = []
    heading = title
    buf: list[str] = []  # lines of the current section
    answers: list[str] = []  # what the current section answers

    def flush():
        text = "\n".join(buf).strip()
        if text:
            sections.append(
                NoteSection(note_id, len(sections), path.name, title, str(meta.get("topic", note_id)),
                            str(meta.get("source", "")), heading, text, keywords, lang,
                            str(meta.get("summary", "") or "").strip(), [str(k) for k in meta.get("procedures", []) or []],
                            list(answers), [str(k) for k in meta.get("subject", []) or []])
            )

    for line in body.splitlines():
        if line.startswith("## "):
            flush()
            heading, buf, answers = line[3:].strip(), [], []
        elif m := ANSWERS_LINE.match(line):
            answers += [a.strip().lower() for a in m.group(1).split(",") if a.strip()]
        elif not line.startswith("# "):
            buf.append(line)
    flush()
    return sections


def note_dirs(notes_dir: Path) -> dict[str, Path]:
    """Language -> folder: English notes at the top, their Chinese versions in ``zh/``."""
    return {"en": notes_dir, "zh": notes_dir / "zh"}


def load_notes(notes_dir: Path) -> list[NoteSection]:
    """Sections of every note in every language (README.md files are indexes, not notes)."""
    out: list[NoteSection] = []
    for lang, folder in note_dirs(notes_dir).items():
        for p in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            if p.name.lower() != "readme.md":
                out.extend(parse_note(p, lang))
    return out


class _Bm25:
    """BM25 over a list of token lists (one language's sections, or its facts)."""

    def __init__(self, docs: list[list[str]]):
        import bm25s

        self._bm25 = bm25s.BM25()
        self.size = len(docs)
        if docs:
            self._bm25.index([d or ["_"] for d in docs], show_progress=False)

    def scores(self, toks: list[str]) -> list[float]:
        if not toks or not self.size:
            return [0.0] * self.size
        return [float(x) for x in self._bm25.get_scores(toks)]


# A sentence ends at 。！？ or at . ! ? before a capital, a backtick or an opening bracket ("v0.6.0", "e.g. the")
# do not end one; a semicolon joins the parts of one fact.
_SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)(?<!etc\.)(?<!vs\.)\s+(?=[A-Z`*“\"(（])")
_BULLET = re.compile(r"^\s*(?:[-*]|\d+\.)\s+")
# A sentence that names something of the sentence before ("If that wait exceeds…", "这段等待…") is kept with it.
_LEANS_BACK = re.compile(r"(?i:(?:if\s+)?(?:this|that|these|those|it|its|they|their|then|so|otherwise|both|such)\b)|(?:如果)?(?:这|那|该|此|它|其|所以|因此|否则)")
_INTRO = re.compile(r"[:：]\s*$")  # a sentence that introduces the list or block after it


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _blocks(text: str) -> list[tuple[str, str]]:
    """(kind, text) of a section's paragraphs, bullets, table rows and code blocks, in order. A table row
    is written with its header's names ("`TP` / `PP` / `CP`: 8 / 4 / 1 …"); a bullet keeps its indented lines."""
    out: list[tuple[str, str]] = []
    kind, buf, header, fence = "", [], [], False  # type: ignore[var-annotated]

    def flush():
        nonlocal kind, buf
        if buf:
            out.append((kind, " ".join(x.strip() for x in buf if x.strip())))
        kind, buf = "", []

    for line in text.splitlines():
        if fence or line.strip().startswith("```"):
            if not fence:
                flush()
                kind = "code"
            buf.append(line)
            fence = not fence if line.strip().startswith("```") else fence
            if not fence:
                out.append(("code", "\n".join(buf)))
                kind, buf = "", []
            continue
        if line.strip().startswith("|"):
            flush()
            cells = _cells(line)
            if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                continue
            if not header:
                header = cells
                continue
            if len(cells) == 2 or len(header) != len(cells):
                out.append(("row", f"{cells[0]}: {' | '.join(cells[1:])}"))
            else:
                out.append(("row", f"{cells[0]}: " + "; ".join(f"{h} {c}" for h, c in zip(header[1:], cells[1:], strict=True))))
            continue
        header = []
        if not line.strip():
            flush()
        elif _BULLET.match(line):
            flush()
            kind, buf = "bullet", [_BULLET.sub("", line)]
        elif kind and line.startswith((" ", "\t")) or kind == "para":
            buf.append(line)
        else:
            flush()
            kind, buf = "para", [line]
    flush()
    return out


def facts(text: str) -> list[str]:
    """A section's text cut into facts, each whole: every sentence of a paragraph or bullet, every table row,
    a code block kept with the sentence before it, and a sentence that ends in a colon kept with the list
    or block it introduces (as well as each item on its own)."""
    out: list[str] = []
    blocks = _blocks(text)
    for i, (kind, block) in enumerate(blocks):
        if kind == "code":
            if out:
                out[-1] = f"{out[-1]}\n{block}"
            continue
        sentences: list[str] = []
        for x in _SENTENCE_END.split(block) if kind == "para" else [block]:  # a bullet is one fact, as written
            if x and x.strip():
                if sentences and _LEANS_BACK.match(x.strip()):
                    sentences[-1] = f"{sentences[-1]} {x.strip()}"
                else:
                    sentences.append(x.strip())
        out.extend(sentences)
        if sentences and _INTRO.search(sentences[-1]):
            items = []
            for k, b in blocks[i + 1:]:
                if k not in ("bullet", "row"):
                    break
                items.append(b)
            if items:
                out[-1] = "\n".join([sentences[-1], *("- " + b for b in items)])
    return out


@dataclass(frozen=True)
class Lead:
    """The facts of one note that answer a query best, in the note's order; ``summary`` when the note's
    own summary answers it better than any fact does."""

    text: str
    score: float
    summary: bool
    named: tuple[str, ...] = ()  # the parameters of the question the lead's facts are about (`--epochs`)


class NoteIndex:
    """Per language, one BM25 index over note sections and one over their facts (sentences, bullets, table
    rows) plus each note's summary: sections are ranked by their own score and their best fact's, and a
    note's lead is the facts whose terms best match the query's, weighted by how rare each term is."""

    def __init__(self, rows: list[dict[str, Any]]):
        self.rows = rows
        self._sections: dict[str, tuple[list[dict[str, Any]], _Bm25]] = {}
        # per language: (row index or -1 for a summary, note file, order, text), their tokens and the index
        self._facts: dict[str, tuple[list[tuple[int, str, int, str]], list[set[str]], _Bm25]] = {}
        self._rare: dict[str, set[str]] = {}  # per language: words found in only a few facts
        self._headings: dict[str, _Bm25] = {}  # per language: the sections' headings, which say what their facts are about
        # per language and section row: what the section answers, as questions state it (the notes' "<!-- answers: -->")
        self._answers: dict[str, list[list[str]]] = {}
        for lang in LANGS:
            own = [r for r in rows if r.get("lang", "en") == lang]
            self._sections[lang] = (own, _Bm25([tokenize(f"{r['title']} {r['heading']} {r['keywords']} {r['text']}") for r in own]))
            self._headings[lang] = _Bm25([tokenize(r["heading"], unigrams=False) for r in own])
            self._answers[lang] = [[a for a in str(r.get("answers") or "").split("|") if a] for r in own]
            units: list[tuple[int, str, int, str]] = []
            summaries: dict[str, str] = {}
            for i, r in enumerate(own):
                units += [(i, r["file"], n, f) for n, f in enumerate(facts(r["text"]))]
                if r.get("summary"):
                    summaries.setdefault(r["file"], r["summary"])
            units += [(-1, file, -1, text) for file, text in summaries.items()]
            toks = [tokenize(u[3], unigrams=False) for u in units]
            self._facts[lang] = (units, [set(t) for t in toks], _Bm25(toks))
            # rarity over the facts' prose: a flag repeated in every example command ("--backend openai") is still
            # a rare word where the prose says what it takes
            prose = [set(tokenize(re.sub(r"```.*?```", " ", u[3], flags=re.S), unigrams=False)) for u in units]
            self._rare[lang] = {w for w, n in Counter(w for t in prose for w in t).items() if n <= RARE_FACTS}

    def search(self, query: str, limit: int = 5, lang: str = "auto", focus: str | None = None) -> list[tuple[float, dict[str, Any]]]:
        """Ranked sections of the ``lang`` notes ("auto" picks the language with ``query_lang``): each
        section scores its own BM25 plus its best fact's, so a section holding the one sentence that
        answers ranks above one that merely shares the topic's words. Every row carries its note's lead, chosen
        for ``focus`` (the user's own words) when given, else for the query (which may carry added synonyms)."""
        lang = query_lang(query) if lang == "auto" else lang
        own, index = self._sections[lang]
        toks = tokenize(query)
        if not toks or not own:
            return []
        units, _, fact_index = self._facts[lang]
        fact_scores = fact_index.scores(tokenize(query, unigrams=False))
        best_fact = [0.0] * len(own)
        note_best: dict[str, float] = {}  # each note's best fact for the whole query: how well the note answers it
        for (row, file, _n, _t), sc in zip(units, fact_scores, strict=True):
            if row >= 0:
                best_fact[row] = max(best_fact[row], sc)
                note_best[file] = max(note_best.get(file, 0.0), sc)
        scores = [sec + FACT_WEIGHT * fact for sec, fact in zip(index.scores(toks), best_fact, strict=True)]
        ranked = [i for i in sorted(range(len(own)), key=lambda i: -scores[i])[:limit] if scores[i] > 0]
        leads: dict[str, Lead] = {}
        for i in ranked:
            file = own[i]["file"]
            if file not in leads:
                leads[file] = self.lead(focus or query, file, lang)
        return [(scores[i], {**own[i], "lead": leads[own[i]["file"]].text, "lead_score": note_best.get(own[i]["file"], 0.0),
                             "lead_is_summary": leads[own[i]["file"]].summary, "lead_names": list(leads[own[i]["file"]].named)})
                for i in ranked]

    def lead(self, text: str, file: str, lang: str) -> Lead:
        """The facts of ``file`` that answer ``toks``. The note's title words are left out (the note was
        chosen for them; the lead answers the rest): the best-scoring fact leads, then, while query terms are
        left unmatched, the fact that best matches those (a second part of the question: "TRAIN_ITERS default?
        and when CP?"), at most three. The note's summary leads instead when nothing is left to match, or when
        the best fact's terms that the summary lacks are no rare word ("conda", "过期", "tokenizer") or weigh less
        than a third of its score: a question as broad as the note gets the note's answer-first summary."""
        units, unit_toks, index = self._facts[lang]
        mine = [k for k, u in enumerate(units) if u[1] == file]
        summary = next((k for k in mine if units[k][0] < 0), None)
        facts_ = [k for k in mine if units[k][0] >= 0]
        if ASKS_FIX.search(text.lower()):  # "…怎么办", "how do I fix…": only a fact that says what to do answers it
            facts_ = [k for k in facts_ if SAYS_WHAT_TO_DO.search(units[k][3])]
        # a line explaining a piece of the note's sample message ("`NPU 4` is the device…") answers only a question that
        # quotes that piece: said to a user whose message has no "NPU 4", it explains something they never wrote
        # and the line explaining a piece the question quotes ("total capacity 才 60.97 GiB，少的去哪了") answers it: the
        # sample message itself, which the user already has, does not (a failure reported whole, "out of memory (NPU 5;
        # 60.97 GiB total capacity; 58.31 GiB already allocated)，哪里不对", asks what went wrong, not what the piece is)
        quoted = [] if REPORTED_WHOLE.search(text) else [k for k in facts_ if explains_quoted_excerpt(units[k][3], text)]
        if quoted:
            return Lead(units[quoted[0]][3], 0.0, False)
        facts_ = [k for k in facts_ if not explains_other_excerpt(units[k][3], text)]
        every_fact = facts_  # (a parameter's own line says what it means, whatever its words: "`--epochs` … is the number of rounds")
        meaning = ASKS_MEANING.search(text.lower()) and [k for k in facts_ if SAYS_MEANING.search(units[k][3])]
        if meaning:  # the fact that says what the terms mean, over the note's summary of what to do
            facts_, summary = meaning, None
        own = next((r for r in self._sections[lang][0] if r["file"] == file), None)
        title_text = own["title"].lower() if own else ""
        title = set(tokenize(title_text, unigrams=False))
        # what the question rules out ("不是本地 host/port", "instead of localhost") is not what it asks
        asked = sorted(set(tokenize(without_runs_of(without_negated(text).lower(), title_text), unigrams=False)) - title)
        summary_lead = Lead(units[summary][3], 0.0, True) if summary is not None else Lead("", 0.0, False)
        if meaning:  # with nothing else asked ("explain ZeRO offload": its words are the note's title), the definition
            summary_lead = Lead(units[meaning[0]][3], 0.0, False)
        if not asked or not facts_:
            return summary_lead
        # the section whose "answers" the question states ("已部署的服务", "exit barrier"): its facts lead, a neighbour's
        # that shares more of the question's words (the local example's --host/--port) does not
        named_count = {units[k][0]: answers_named(text, self._answers[lang][units[k][0]]) for k in facts_}
        most = max(named_count.values(), default=0)
        context = {row for row, n in named_count.items() if n and n == most}
        if len(context) > 1:  # two sections named as often ("多模态 … 动态测试"): the usual lead weighs them
            context = set()
        # a fact is also about what its section's heading names: "new console … which header?" is answered by the
        # header line of the section headed "New console", not by the old console's line that shares "authenticate"
        # (it picks among the facts only: whether a fact or the note's summary answers is judged on the fact's own words)
        scores = index.scores(asked)
        headed = self._headings[lang].scores(asked)
        # (of the section the question's context names, when one is: "after the mg2hf conversion … where does the output
        # go" is the export's line, not the other direction's line that also names `mg2hf`)
        # (of the section the question's context names first, when it has one: "after the mg2hf conversion … where does the
        # output go" is the export's line, not the other direction's line that also names `mg2hf`)
        inside = [k for k in every_fact if units[k][0] in context]
        named = (self.named_lead(text, inside, lang, scores) if inside else None) or self.named_lead(text, every_fact, lang, scores)
        if named is not None and context and not any(units[k][3] in named.text for k in facts_ if units[k][0] in context):
            named = None  # the parameter's line is in another section than the one the question's context asks
        if named is None and not context and (subject := self.subject_default(text, file, lang, facts_)):
            # "ckpt 保存超时默认多少秒": a default asked with no setting named is the default of the note's own subject
            # (the setting its summary gives a default for), not another setting's the note also states (exit barrier)
            named = self.named_lead(f"{text} `{subject}` {'默认' if lang == 'zh' else 'default'}", every_fact, lang, scores)
        if named is not None:  # "--epochs 默认多少": the note's line about that parameter, never a neighbouring one
            return named
        # what the question asks for ("哪个变量", "在哪个目录", "命令怎么写"): a fact holding one answers, a neighbour
        # sharing only the words does not (note_kinds.py)
        # a remark the note-writer adds beside the vendor's fact ("Note-writer's remark: another guide gives 60 s") backs
        # the vendor's own sentence, it does not lead before it
        scores = [sc * REMARK_WEIGHT if sc > 0 and units[k][1] == file and _REMARK.match(units[k][3]) else sc for k, sc in enumerate(scores)]
        # a list item labelled in bold ("**Token**: valid for 24 h") is about what its label names: a question naming the
        # label ("token 多久过期") is answered by that item over a neighbour sharing its other words ("APP … never expires")
        # (one item named: a question naming two, "ZeRO-1 和 ZeRO-3", compares them and the usual lead weighs them)
        low, best_own = text.lower(), max((sc for k, sc in enumerate(scores) if units[k][1] == file), default=0.0)
        labelled = {k for k in facts_ if scores[k] > 0 and (m := LABELLED.match(units[k][3]))
                    and re.search(rf"(?<![a-z0-9]){re.escape(m.group(1).strip().lower())}(?![a-z0-9])", low)}
        if len({LABELLED.match(units[k][3]).group(1).strip().lower() for k in labelled}) == 1:  # type: ignore[union-attr]
            scores = [sc + best_own if k in labelled else sc for k, sc in enumerate(scores)]
        kinds = kinds_asked(text)
        if kinds:
            scores = [sc * (1 + kinds_held(units[k][3], kinds)) if sc > 0 and units[k][1] == file else sc for k, sc in enumerate(scores)]
        if context:  # the facts of the section asked, over the rest (one with none of the question's words still leads)
            scores = [sc * CONTEXT_WEIGHT + CONTEXT_FLOOR if units[k][1] == file and units[k][0] in context else sc
                      for k, sc in enumerate(scores)]
            facts_ = [k for k in facts_ if units[k][0] in context]
            # "how do I use it?": the section's steps, in its order (a list with its introduction, or its first fact
            # that says what to do), not the one step that shares the most words
            steps = sorted((k for k in facts_ if "\n" in units[k][3] or SAYS_WHAT_TO_DO.search(units[k][3])),
                           key=lambda k: (units[k][0], units[k][2]))
            if ASKS_HOW.search(text.lower()) and steps:
                # the sentence just before the first step, when it holds the question's words, says what the step
                # does ("trained weights are not converted back by default" before "set `CONVERT_MG2HF=TRUE`")
                before = [k for k in facts_ if units[k][0] == units[steps[0]][0] and units[k][2] == units[steps[0]][2] - 1
                          and scores[k] > CONTEXT_FLOOR and not units[k][3].rstrip().endswith((":", "："))]
                # (the steps that follow in the same paragraph go on with it: "set CONVERT_MG2HF=TRUE …; afterwards copy the
                # tokenizer files")
                more = [k for k in steps[1:] if units[k][0] == units[steps[0]][0] and units[k][2] == units[steps[0]][2] + 1]
                return Lead(self.joined(before + steps[:1] + more[:1], lang), scores[steps[0]], False)
        top = max(facts_, key=lambda k: scores[k])
        if scores[top] <= 0:
            return summary_lead
        if summary is not None and not context and not (kinds and kinds_held(units[top][3], kinds) > kinds_held(units[summary][3], kinds)):
            beyond = sorted((unit_toks[top] & set(asked)) - unit_toks[summary])
            # a rare word of the question's own, not a stop-character pair or a product name it merely mentions ("pytorch")
            specific = {w for w in beyond if w in self._rare[lang] and not _CJK_STOP_CHAR.search(w) and w not in _JARGON}
            weight = index.scores(beyond)[top]
            if not (specific and weight >= min(scores[top] / 3, MIN_FURTHER_FACT) or len(beyond) >= 2 and weight >= scores[top] * 2 / 3):
                return Lead(units[summary][3], scores[top], True)
        # of the facts that answer, the one whose section's heading also names what is asked ("new console … header")
        top = max(facts_, key=lambda k: (scores[k] + HEADING_WEIGHT * headed[units[k][0]], scores[k]))
        picked, left = [top], set(asked) - unit_toks[top]
        while left and len(picked) < MAX_LEAD_FACTS:
            rest = index.scores(sorted(left))
            if kinds:  # the kinds asked weigh the further facts too; the best fact's own section goes on with its answer
                rest = [sc * (1 + kinds_held(units[k][3], kinds)) * (SAME_SECTION_WEIGHT if units[k][0] == units[top][0] else 1)
                        if sc > 0 and units[k][1] == file else sc for k, sc in enumerate(rest)]
            # every kind asked held by the facts picked: a fact of another section adds only a neighbour's words
            covered = bool(kinds) and all(any(kinds_held(units[k][3], [kind]) for k in picked) for kind in kinds)
            nxt = max((k for k in facts_ if k not in picked and not (covered and units[k][0] != units[top][0])),
                      key=lambda k: rest[k], default=None)
            if nxt is None or rest[nxt] < max(SECOND_FACT_SHARE * scores[top], MIN_FURTHER_FACT):
                break
            picked.append(nxt)
            left -= unit_toks[nxt]
        for kind in kinds:  # a kind asked that no fact picked holds: the best fact that holds one
            if not any(kinds_held(units[k][3], [kind]) for k in picked) and len(picked) < MAX_LEAD_FACTS:
                held = [k for k in facts_ if k not in picked and scores[k] > 0 and kinds_held(units[k][3], [kind])]
                if held:
                    picked.append(max(held, key=lambda k: scores[k]))
        how: list[int] = []  # the facts that go on from the best one to say how (they follow it directly)
        # (the best fact's own section goes on to say how: a further fact elsewhere that says what to do is another step)
        if ASKS_HOW.search(text.lower()) and not SAYS_WHAT_TO_DO.search(units[top][3]):
            # "how do I …?": a fact that only describes is followed by the next ones of its section up to one that says how
            row, n = units[top][0], units[top][2]
            after = sorted((k for k in facts_ if units[k][0] == row and units[k][2] > n and k not in picked), key=lambda k: units[k][2])
            for k in after[:2]:
                how.append(k)
                if SAYS_WHAT_TO_DO.search(units[k][3]):
                    break
            else:
                how = []
        # the best fact first, the way on from it, the rest in the notes' order
        picked = [top, *how, *sorted((k for k in picked[1:] if k not in how), key=lambda k: (units[k][0], units[k][2]))]
        # a bullet picked with the list that holds it is said once, in the list
        picked = [k for k in picked if not any(j != k and units[k][3] in units[j][3] for j in picked)]
        return Lead(self.joined(picked, lang), scores[top], False)

    def joined(self, picked: list[int], lang: str) -> str:
        units = self._facts[lang][0]
        joiner = "" if lang == "zh" else " "
        return joiner.join(units[k][3] if "\n" not in units[k][3] else "\n" + units[k][3] + "\n" for k in picked).strip()

    def subject_default(self, text: str, file: str, lang: str, facts_: list[int]) -> str | None:
        """The setting whose default a question asks when it names none: the one the note's summary states a default for
        ("raising `HCCL_EXEC_TIMEOUT` (default 1836 s)"). None when no default is asked, the summary states none or
        several, or a fact stating another default shares rare words of the question that the subject's facts lack
        ("建链超时默认几秒，大集群初始化…": the connect timeout's own line names 建链 and 初始化)."""
        if "default" not in kinds_asked(text) or not re.search(r"默认|缺省|(?<![a-z])defaults?(?![a-z])", text, re.I):
            return None  # (the default asked in so many words: "不改的话是多久" is left to the usual lead)
        units, unit_toks, _ = self._facts[lang]
        summary = next((units[k][3] for k, u in enumerate(units) if u[1] == file and u[0] < 0), "")
        names = set(_SUMMARY_DEFAULT.findall(summary))
        if len(names) != 1:
            return None
        subject = names.pop()
        rows = self._sections[lang][0]
        # the question is about the note's subject: it shares a word of the note's title, and every setting it names by
        # its name (`--handler-name`, EPOCH) is one the note holds (else another note's default is asked)
        title_text = next((r["title"] for r in rows if r["file"] == file), "").lower()
        plain = ASKS_VALUE.sub(" ", text.lower())
        if not set(tokenize(title_text, unigrams=False)) & set(tokenize(plain, unigrams=False)):
            return None
        body = "\n".join(units[k][3] for k in facts_).lower()
        low = text.lower()
        # (questions arrive lower-cased: a setting is also any name the notes write in code, `EPOCH`, named as a word)
        names = set(_SETTING_NAME.findall(text)) | {n for u in units for n in _SPAN.findall(u[3]) if _SETTING_NAME.fullmatch(n)
                                                  and re.search(rf"(?<![\w-]){re.escape(n.lower())}(?![\w-])", low)}
        if any(name.lower() not in body for name in names):
            return None
        held = [k for k in facts_ if kinds_held(units[k][3], ["default"])]
        held = [k for k in held if not any(j != k and units[j][3] in units[k][3] for j in held)]  # a list's rows, not the list
        mine = [k for k in held if is_about(units[k][3], rows[units[k][0]]["heading"], subject)]
        if not mine:
            return None
        # (the words naming a setting, without the value word asked: "超时默认是" names no "时默")
        asked = set(tokenize(_CJK_STOP_CHAR.sub(" ", ASKS_VALUE.sub(" ", text.lower())), unigrams=False)) & self._rare[lang]
        own = set().union(*(unit_toks[k] for k in facts_ if is_about("", rows[units[k][0]]["heading"], subject)), *(unit_toks[k] for k in mine))
        # (two words at least: one shared piece of CJK text, "其他节点" read as "他节", names nothing)
        if any(len((unit_toks[k] & asked) - own) >= 2 for k in held if k not in mine):
            return None
        return subject

    def named_lead(self, text: str, facts_: list[int], lang: str, scores: list[float]) -> Lead | None:
        """The lead for a question that names parameters of the note (a flag, a variable, a key, a script: `--epochs`,
        `HCCL_EXEC_TIMEOUT`, `2_convert_mg_hf.sh`): for each, the fact that is about it (names it in its prose, not
        only inside an example command, or sits in a section headed by it), the one matching the rest of the
        question best; one fact covering several named parameters is said once ("with `--backend openai`,
        `--tokenizer` must be …"). A parameter most of the note's facts are about says nothing (the note's subject);
        a script or command named beside a flag or variable is where it is set, not what is asked. None: no
        parameter of the note is named, the usual lead applies."""
        units = self._facts[lang][0]
        rows = self._sections[lang][0]
        about: dict[str, list[int]] = {}
        # upper-case names the note writes as names or in formulas (`CP`, `SN / GBS * EPOCH`), not words of a pasted message
        upper = {span.strip() for k in facts_ for span in _SPAN.findall(units[k][3]) if re.fullmatch(r"[A-Z][A-Z0-9_]+", span.strip())}
        accepted = [p for p in named_parameters(text) if _MARKED.search(p) or p.upper() in upper and p.lower() not in _PLAIN_WORDS]
        title = rows[units[facts_[0]][0]]["title"].lower() if facts_ else ""
        # "what does the example set --max-num-seqs to?": the example command that sets it is the line about it
        example_asked = bool(EXAMPLE_ASKED.search(text.lower()))
        # when an example's value is asked, a flag named without its dashes ("dtype", "gpu-memory-utilization") is that
        # flag where the note writes it so
        flags = {m.lower() for k in facts_ for m in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*[a-z0-9])", units[k][3].lower())}
        accepted += [f"--{w.lower()}" for w in re.findall(r"(?<![\w-])([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)(?![\w-])", text)
                     if example_asked and w.lower() in flags and f"--{w.lower()}" not in accepted]
        for p in accepted:
            if p.lower() in title:  # the note's subject ("NPU_Flash_Attn 的 D 上限"): the rest of the question picks the line
                continue
            ks = [k for k in facts_ if is_about(units[k][3], rows[units[k][0]]["heading"], p)
                  or example_asked and sets_in_code(units[k][3], p)]
            if ks and len(ks) * 2 <= len(facts_):
                about.setdefault(p, ks)
        # a list's introduction carries its rows: the row about the parameter is its line, not the whole list
        about = {p: [k for k in ks if not any(j != k and units[j][3] in units[k][3] for j in ks)] for p, ks in about.items()}
        # in a failing setup the user reports ("finetuning_type: lora … 哪里有问题"), a setting written with its value is the
        # user's own, not a parameter asked ("what does `lora_target: all` mean", "I set HCCL_EXEC_TIMEOUT=600 …" ask it)
        if REPORTS_PROBLEM.search(text):
            about = {p: ks for p, ks in about.items() if not re.search(rf"(?<![\w-]){re.escape(p.lower())}\s*[:=：]\s*\S", text.lower())}
        if any(not _CONTEXT_PARAM.search(p) for p in about):
            about = {p: ks for p, ks in about.items() if not _CONTEXT_PARAM.search(p)}
        elif REPORTS_PROBLEM.search(text):  # only the files of a setup that fails: what is wrong with it is asked, not them
            about = {}
        if not about:
            return None
        # ranked by the question's other words (the parameter's own name is in every one of its facts)
        own_words = {t for p in accepted for t in tokenize(p.lower(), unigrams=False)}
        # (the user's own numbers are values, not what is asked: "SAVE_INTERVAL=10" does not ask for a line with "10")
        rest = self._facts[lang][2].scores(sorted(t for t in set(tokenize(text.lower(), unigrams=False)) - own_words
                                                  if not re.fullmatch(r"[\d.]+", t)))
        if ASKS_HOW.search(text.lower()):  # "怎么开启": of the lines about it, those that say what to do
            about = {p: [k for k in ks if SAYS_WHAT_TO_DO.search(units[k][3])] or ks for p, ks in about.items()}
        picked: list[int] = []
        # the value words the question asks with ("默认", "default", "范围"): a parameter's own line that says them answers it
        value_words = [m.group(0) for m in ASKS_VALUE.finditer(text.lower())]
        for p in sorted(about, key=lambda p: len(about[p])):  # the most specific parameter first
            # the parameter's own line ("`TRAIN_ITERS` 可选：不设置时默认为 …") over a list that only names it beside others
            # (in a section headed by it, the line that opens with the value word: "Default: **1836 s**", "默认值：…")
            own_line = {k: opens_with(units[k][3], p) and any(w in units[k][3].lower() for w in value_words)
                        or any(units[k][3].lower().lstrip("-*• ").startswith(w) for w in value_words)
                        and is_about("", rows[units[k][0]]["heading"], p) for k in about[p]}
            if any(k in about[p] for k in picked) and not (any(own_line.values()) and not any(own_line.get(k) for k in picked)):
                continue
            covers = {k: sum(k in ks for ks in about.values()) for k in about[p]}
            # a section headed by the parameters is where the note explains them ("GBS 与 MBS 的区别")
            headed = {k: sum(bool(re.search(rf"(?<![\w\-]){re.escape(q.lower())}(?![\w\-])", rows[units[k][0]]["heading"].lower()))
                             for q in about) for k in about[p]}
            # the parameter's own line ("`TRAIN_ITERS` is optional: it defaults to …") over a list that only names it beside
            # others, when the question asks what it is worth ("默认怎么算", "default?")
            picked.append(max(about[p], key=lambda k: (own_line[k], covers[k], headed[k], rest[k], opens_with(units[k][3], p), -k)))
        # in the question's order of parameters; a further fact about them when the question asks more ("默认多少，设了会怎样")
        order = [p for p in accepted if p in about]
        picked.sort(key=lambda k: min(order.index(p) for p in about if k in about[p]))
        if ASKS_DIFFERENCE.search(text.lower()) and len(about) >= 2:  # "GBS 和 MBS 有什么区别": how they relate follows
            nxt = picked[0] + 1
            if nxt in facts_ and units[nxt][0] == units[picked[0]][0] and nxt not in picked:
                picked.insert(1, nxt)
        # "set 了会怎样? 默认有没有?": what setting it does is the sentence that goes on about it ("设置后，训练会…"), when the
        # line picked gives only its default
        if ASKS_EFFECT.search(text.lower()) and len(picked) < MAX_LEAD_FACTS and not any(SAYS_EFFECT.search(units[k][3]) for k in picked):
            effect = next((k + 1 for k in picked if k + 1 in facts_ and units[k + 1][0] == units[k][0] and k + 1 not in picked
                           and SAYS_EFFECT.search(units[k + 1][3])), None)
            if effect is not None:
                picked.append(effect)
        left = set(t for t in tokenize(text.lower(), unigrams=False)) - {t for k in picked for t in self._facts[lang][1][k]}
        left -= own_words
        if left and len(picked) < MAX_LEAD_FACTS:
            # a further fact about them, or the sentence right after a picked one ("设置后，…" goes on about the variable)
            after = {k + 1 for k in picked if k + 1 in facts_ and units[k + 1][0] == units[k][0]}
            pool = [k for k in {*(k for ks in about.values() for k in ks), *after} if k not in picked]
            more = self._facts[lang][2].scores(sorted(left))
            further = max(pool, key=lambda k: more[k], default=None)
            # the next sentence continues the picked one: any word of the question left is enough for it
            # (a further line about the same parameter, "Default: 1836 s" beside its range, needs only a word of the question)
            about_it = {k for ks in about.values() for k in ks}
            if further is not None and more[further] >= (0.5 if further in after or further in about_it else MIN_FURTHER_FACT):
                picked.append(further)
        return Lead(self.joined(picked, lang), max(scores[k] for k in picked), False, tuple(order))


# What a question names as a parameter: a flag (`--epochs`), a variable or key with an underscore (`HCCL_EXEC_TIMEOUT`,
# `cutoff_len`), an upper-case variable (`EPOCH`, `GBS`), a script or file (`2_convert_mg_hf.sh`), a command (`llamafactory-cli`).
# (questions arrive lower-cased: a plain word counts only where the note writes it as an upper-case name, `CP`, `EPOCH`)
_PARAM = re.compile(r"(?<![\w.\-])(--[A-Za-z][\w-]*\w|[\w-]+\.(?:sh|py|json|ya?ml)|[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+|[A-Za-z][A-Za-z0-9]+|"
                    r"[a-z]+-cli)(?![\w\-])")
# English words a note may also write as a name in code (`FROM` of a Dockerfile): in a question they are words
_PLAIN_WORDS = _STOP | {"from", "into", "not", "all", "none", "true", "false", "value", "run", "set", "copy", "add", "env", "user"}
_MARKED = re.compile(r"^--|_|\.(?:sh|py|json|ya?ml)$|-cli$")
# a script or command named beside a flag or variable says where it is set, not what is asked
_CONTEXT_PARAM = re.compile(r"\.(?:sh|py|json|ya?ml)$|-cli$")
_SPAN = re.compile(r"`([^`\n]+)`")
# a note summary's "`HCCL_EXEC_TIMEOUT` (default 1836 s)" / "`HCCL_EXEC_TIMEOUT`（默认 1836 s）": the setting it gives a default for
_SETTING_NAME = re.compile(r"--[A-Za-z][\w-]*|(?<![\w-])[A-Za-z]\w*_\w+|(?<![\w-])[A-Z][A-Z0-9]{2,}(?![\w-])")  # --flag, snake_name, EPOCH
_SUMMARY_DEFAULT = re.compile(r"`([A-Za-z][\w.-]*)`\s*[（(]\s*(?:default|默认)\s*[\d.]+", re.I)


def named_parameters(text: str) -> list[str]:
    """The parameters ``text`` names, in its order, each once."""
    out: list[str] = []
    for m in _PARAM.finditer(re.sub(r"[\u3400-\u9fff]", " ", text)):  # "设置USER_PROCESSED_DATA_DIR" is still a name
        if m.group(1) not in out:
            out.append(m.group(1))
    return out


_INTERPRETERS = frozenset({"python", "python3", "bash", "sh", "torchrun"})


def _span_names(span: str) -> set[str]:
    """What a backticked span names, lower-cased: a command (`python benchmark_serving.py --backend …`, `kubectl …`)
    names its program only; a setting, flag or formula (`--backend openai`, `CONVERT_MG2HF=TRUE`,
    `TRAIN_ITERS//SAVE_INTERVAL + 1`) every name in it."""
    words = span.strip().split()
    if not words:
        return set()
    if len(words) > 1 and re.match(r"[a-z]", words[0]) and not re.search(r"[=:(]", words[0]):
        # `python generate_dataset.py …`, `bash 0_pl_sft_13b.sh`: the interpreter runs the script the command is about
        return {words[0].lower(), words[1].lower()} if words[0].lower() in _INTERPRETERS else {words[0].lower()}
    return {w.lower() for w in re.findall(r"-{0,2}\w[\w.\-]*\w|\w+", span) if not w.startswith("<")}


def is_about(fact: str, heading: str, param: str) -> bool:
    """``fact`` is about ``param``: its section is headed by it, it names it in backticks as a setting or term of its
    own (not inside an example command of another program), or names it in its prose."""
    low = param.lower()
    word = rf"(?<![\w\-]){re.escape(low)}(?![\w\-])"
    if re.search(word, heading.lower()) if _MARKED.search(param) else re.search(rf"(?<![\w\-]){re.escape(param.upper())}(?![\w\-])", heading):
        return True
    text = re.sub(r"```.*?```", " ", fact, flags=re.S)
    for span in _SPAN.findall(text):
        if low in _span_names(span):
            return True
        # a setting line (`export PYTORCH_NPU_ALLOC_CONF="expandable_segments:True"`) is about every name it sets
        if re.match(r"\s*(?:export\s+)?[A-Za-z_]\w*=", span) and re.search(word, span.lower()):
            return True
    if not _MARKED.search(param):  # a plain name ("cp") only where the note writes it as a name (`CP`), not in prose
        return any(param.upper() == span.strip() or param.upper() in re.findall(r"[A-Z][A-Z0-9_]+", span)
                   for span in _SPAN.findall(text) if re.fullmatch(r"[A-Z0-9_ /*+\-()=.×]+", span.strip()))
    return bool(re.search(word, _SPAN.sub(" ", text).lower()))


_EXCERPT = re.compile(r"^[\s\-*>\d.]*`([^`\n]*\d[^`\n]*\s[^`\n]*|[^`\n]*\s[^`\n]*\d[^`\n]*)`\s*(?:is|are|means|shows|是|表示|说明)")


def explains_other_excerpt(fact: str, question: str) -> bool:
    """The fact opens by explaining a quoted piece of a sample message (a backticked span with a space and a digit:
    `NPU 4`, `60.97 GiB total capacity`) that the question does not contain."""
    m = _EXCERPT.match(fact)
    return m is not None and re.sub(r"\s+", " ", m.group(1).lower()) not in re.sub(r"\s+", " ", question.lower())


REPORTED_WHOLE = re.compile(r"out\s+of\s+memory|tried\s+to\s+allocate|already\s+allocated|reserved\s+in\s+total", re.I)


def explains_quoted_excerpt(fact: str, question: str) -> bool:
    """The fact opens by explaining a quoted piece of a sample message that the question quotes: the piece itself, or its
    distinctive figure ("60.97" of `60.97 GiB total capacity`; a one-digit figure such as `NPU 4`'s is no quote of it)."""
    m = _EXCERPT.match(fact)
    if m is None:
        return False
    piece, asked = re.sub(r"\s+", " ", m.group(1).lower()), re.sub(r"\s+", " ", question.lower())
    figures = [f for f in re.findall(r"\d+(?:\.\d+)?", piece) if len(f) >= 3]
    return piece in asked or any(re.search(rf"(?<![\d.]){re.escape(f)}(?![\d.])", asked) for f in figures)


EXAMPLE_ASKED = re.compile(r"example|示例|例子|样例|set\s+to|设(?:的|成|为)?多少|取值是")


def sets_in_code(fact: str, param: str) -> bool:
    """A code block of the fact sets the flag (`--max-num-seqs=256`, `--block-size 128`)."""
    if not param.startswith("--"):
        return False
    return any(re.search(rf"(?<![\w-]){re.escape(param)}[=\s]", block) for block in re.findall(r"```.*?```", fact, flags=re.S))


def opens_with(fact: str, param: str) -> bool:
    """The fact is the parameter's own line ("- `--epochs` (default 5) …", a table row of it)."""
    head = re.sub(r"^[\s\-*\d.|]*", "", fact)
    m = _SPAN.match(head)
    return bool(m and param.lower() in _span_names(m.group(1))) or head.lower().startswith(param.lower())


def without_runs_of(text: str, other: str) -> str:
    """``text`` with every run of two or more Chinese characters that ``other`` also contains blanked out: the
    bigrams left are the question's own words, not halves of the note title's words ("离线安装包" leaves no "线安")."""
    out, i = [], 0
    while i < len(text):
        j = i
        while j < len(text) and re.match(rf"[{_CJK}]", text[j]) and text[i:j + 1] in other:
            j += 1
        if j - i >= 2:
            out.append(" ")
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


# A fact that says what to do (an instruction, or names a way) and a question that asks how to do something.
SAYS_WHAT_TO_DO = re.compile(r"办法|解决|改用|设置|设为|拷贝|复制|补拷|执行|删除|调大|调低|加上|换成|运行|停掉|重装|对照|增加节点|(?<![A-Za-z])(?:use|set|copy|run|add|"
                             r"export|delete|raise|lower|install|reinstall|remove|replace|switch|upgrade|restart|kill|reduce|increase|stop)(?![A-Za-z])", re.I)
ASKS_FIX = re.compile(r"怎么办|怎么解决|如何解决|怎么处理|如何处理|有什么办法|怎么绕|绕过|what\s+(?:should|can|do)\s+(?:i|we)\s+do|"
                      r"what\s+now|how\s+(?:do\s+(?:i|we)|to|can\s+(?:i|we))\s+(?:fix|solve|avoid|resolve|get\s+around)|"
                      r"(?<![a-z])(?:fix|workaround|work\s+around|get\s+around|way\s+around)(?![a-z])")
# "what does ZeRO-0 mean", "各阶段什么意思": a meaning asked is answered by the fact that says what things mean
ASKS_MEANING = re.compile(r"(?<![a-z])(?:mean(?:s|ing)?|explain)(?![a-z])|什么意思|含义|意思是|是指")
SAYS_MEANING = re.compile(r"(?<![A-Za-z])(?:means?|meaning)(?![a-z])|含义|意思|是指")
# the difference between two things asked ("差在哪", "有什么区别", "how do they differ"); with the comparison words
# ("vs", "对比") it is any comparison of two named things
DIFFERENCE_ASKED = re.compile(r"区别|差在哪|差别|不同|不一样|差异|阉割|(?<![a-z])(?:differ\w*|distinguish\w*)(?![a-z])")
ASKS_DIFFERENCE = re.compile(rf"{DIFFERENCE_ASKED.pattern}|(?<![a-z])(?:vs\.?|versus|compared?)(?![a-z])|对比|比较")
# a value asked of a parameter: its default, its range, how it is computed
# "what happens if I set it", "设了会怎样", "有什么作用": what a setting does, said by a sentence of its effect
ASKS_EFFECT = re.compile(r"会怎样|会怎么样|会如何|有(?:什么|啥)(?:用|作用|效果|影响)|起什么作用|作用是|what\s+happens|what\s+does\s+[\w.-]+\s+do\b|"
                         r"(?<![a-z])effects?(?![a-z])|what\s+(?:is|'s)\s+it\s+for|"
                         # "配了之后还会再跑预处理吗", "once it is set, does training still …": a yes or no on what setting it does
                         r"(?:设|配|set)[^，。?？]{0,6}(?:之后|以后|后)[^，。?？]{0,30}吗|(?:once|after|when|if)\s+(?:i\s+)?(?:it\s+is\s+)?set[^?]{0,40}\b(?:still|does|will)\b")
SAYS_EFFECT = re.compile(r"设置后|设了|开启后|打开后|之后|会|则|跳过|优先|(?<![a-z])(?:when\s+set|once\s+set|if\s+set|then|skips?|loads?|makes?|"
                         r"turns?|causes?|rises?|drops?)(?![a-z])", re.I)
ASKS_VALUE = re.compile(r"default|默认|取值|范围|(?<![a-z])range")
# "哪里有问题", "一直报错", "what's wrong", "getting errors": the user reports a setup that fails
REPORTS_PROBLEM = re.compile(r"哪里(?:有)?(?:问题|不对|错)|报错|出错|有什么问题|what'?s\s+wrong|wrong\s+with|errors?\b|fails?\b|failing", re.I)
ASKS_HOW = re.compile(r"(?<![a-z])how\s+(?:do|can|to|should)|怎么|如何|怎样|咋")
_CJK_STOP_CHAR = re.compile("[" + "".join(c for c in _CJK_STOP if len(c) == 1) + "]")
MAX_LEAD_FACTS = 3
RARE_FACTS = 6  # a word in at most this many facts of one language is specific enough to lead with its fact
FACT_WEIGHT = 0.5  # a section is ranked by its own score and half its best fact's (a one-line pointer to another note stays below that note)
MIN_FURTHER_FACT = 2.0  # ... and at least this well (a common word alone, "need", adds no fact)
REMARK_WEIGHT = 0.5  # a fact that opens as the note-writer's remark, against the vendor's facts beside it
_REMARK = re.compile(r"\s*(?:note-writer's\s+(?:remark|reading|inference|suggestion|note)|笔记作者(?:的)?(?:补充|推断|说明|读法|建议|注|提示))", re.I)
SAME_SECTION_WEIGHT = 2.0  # a further fact of the best one's section, when a kind is asked ("哪个变量": the variable beside it)
HEADING_WEIGHT = 0.5  # a fact's score adds this share of its section heading's match with the question
CONTEXT_WEIGHT, CONTEXT_FLOOR = 3.0, 1.0  # a fact of the section whose "answers" the question states, over its neighbours
SECOND_FACT_SHARE = 0.25  # a further fact leads too when it matches the terms left at least this well


# -- the user's numbers against a limit a lead states ---------------------------------------------
# A size or a duration, in the unit it was written ("60GB", "75G", "12 MB", "40 s", "50 秒", "36 minutes").
_UNITS = {"tb": ("size", 1024**2), "t": ("size", 1024**2), "gb": ("size", 1024), "g": ("size", 1024), "mb": ("size", 1),
          "m": ("size", 1), "kb": ("size", 1 / 1024), "s": ("time", 1), "sec": ("time", 1), "secs": ("time", 1),
          "second": ("time", 1), "seconds": ("time", 1), "秒": ("time", 1), "min": ("time", 60), "mins": ("time", 60),
          "minute": ("time", 60), "minutes": ("time", 60), "分钟": ("time", 60), "h": ("time", 3600), "hour": ("time", 3600),
          "hours": ("time", 3600), "小时": ("time", 3600)}
_QUANTITY = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(tb|gb|mb|kb|g|m|t|seconds?|secs?|s|minutes?|mins?|min|hours?|h|秒|分钟|小时)"
                       r"(?![a-z0-9])", re.I)
# What makes a number a limit: a maximum ("at most 12 MB", "最长 40 s", "up to 50 GB") or a minimum ("at least 64 GB").
_MAXIMUM = re.compile(r"(?:at\s+most|up\s+to|no\s+more\s+than|not\s+exceed|maximum(?:\s+of)?|max\.?|under|below|within|limited\s+to|≤|"
                      r"最大|最多|最长|不超过|不能超过|上限|以内|不到)\W{0,3}$", re.I)
# "times out after ~36 min", "gets cut at 60 seconds", "在 60 秒被断开": when the failure came, not a size to measure
_WHEN_IT_HAPPENED = re.compile(r"(?:after|(?:cut|killed|dropped|stopped|disconnected|times?\s+out)(?:\s+off)?\s+at|过了|等了|在)\s*"
                               r"(?:about|around|roughly|~|约|大约)?\s*$", re.I)
_MINIMUM = re.compile(r"(?:at\s+least|minimum(?:\s+of)?|no\s+less\s+than|≥|至少|不低于|不少于|最少)\W{0,3}$", re.I)


@dataclass(frozen=True)
class LimitCheck:
    """A number the user wrote measured against a limit of the same kind that a note states."""

    said: str  # the user's quantity as written ("60GB")
    limit: str  # the note's limit as written ("50 GB")
    kind: str  # "max" or "min"
    breaks: bool  # above the maximum, or below the minimum


def _quantities(text: str) -> list[tuple[str, str, float, int]]:
    """(as written, dimension, value in MB or seconds, end offset) of each size or duration in ``text``."""
    out = []
    for m in _QUANTITY.finditer(text):
        dim, scale = _UNITS[m.group(2).lower()]
        out.append((m.group(0).strip(), dim, float(m.group(1)) * scale, m.start()))
    return out


_SAID_OVER = re.compile(r"(?:超过|超出|大于|多于|高于|(?<![a-z])(?:longer|more|larger|bigger)\s+than|(?<![a-z])(?:over|above|beyond|exceed(?:s|ing)?))\s*$", re.I)


_NAMES_LIMIT = re.compile(r"(?:-?\s*(?:long|limit)?\s*)(?:[a-z]+\s+){0,2}(?:time[-\s]?out|limit|cap)(?![a-z])|\s*(?:的)?\s*(?:超时|上限)", re.I)


def limit_checks(question: str, text: str) -> list[LimitCheck]:
    """Each size or duration of the question against the limits ``text`` states for that kind of quantity: the
    largest maximum it exceeds, else the smallest it stays within; a minimum it falls short of. Numbers in the
    text with no limit word just before them (a default, an example) are not limits."""
    limits = []
    for said, dim, value, start in _quantities(text):
        before = text[max(0, start - 24):start].replace("*", "")
        kind = "max" if _MAXIMUM.search(before) else "min" if _MINIMUM.search(before) else None
        if kind:
            limits.append((said, dim, value, kind))
    out = []
    for said, dim, value, start in _quantities(question):
        # "times out after ~36 min", "36 分钟后报错": when the failure came, the limit reached, not a size to measure
        if _WHEN_IT_HAPPENED.search(question[max(0, start - 12):start]) or re.match(r"\s*(?:之?后|以后)", question[start + len(said):]):
            continue
        # "the 36 minute ckpt timeout", "36 分钟的超时": the limit itself named, not a size or duration of theirs to measure
        if _NAMES_LIMIT.match(question[start + len(said):]):
            continue
        maxima = sorted((v, w) for w, d, v, k in limits if d == dim and k == "max")
        minima = sorted((v, w) for w, d, v, k in limits if d == dim and k == "min")
        # "超过 40 秒会怎样", "longer than 40 s": a value said as exceeded is past a maximum equal to it
        over = bool(_SAID_OVER.search(question[max(0, start - 14):start]))
        broken = [w for v, w in maxima if value > v or over and value == v]
        if broken:
            out.append(LimitCheck(said, broken[-1], "max", True))
        elif maxima:
            out.append(LimitCheck(said, maxima[0][1], "max", False))
        short = [w for v, w in minima if value < v]
        if short:
            out.append(LimitCheck(said, short[-1], "min", True))
    return out[:2]


# A rule by ranges: sibling bullets each bounded by the same kind of quantity ("- **Up to 100 MB**: uploaded directly",
# "- **Over 100 MB and up to 50 GB**: relayed through OBS"). A size or duration the user states selects its range.
_LOWER = re.compile(r"(?:(?<![a-z])(?:over|above|more\s+than|larger\s+than|greater\s+than|longer\s+than|exceeding)|(?<!不)(?<!不能)超过|大于|多于|高于)\W{0,3}$",
                    re.I)
_RANGE_BULLET = re.compile(r"(?m)^\s*>?\s*[-*]\s+(.+)$")


@dataclass(frozen=True)
class RangeRow:
    """The bullet of a rule by ranges that holds a quantity the user wrote."""

    said: str  # the user's quantity as written ("3GB")
    row: str  # the bullet, as one plain sentence


def _bounds(line: str) -> tuple[str, float | None, float | None] | None:
    """(dimension, lower bound, upper bound) of a bullet that opens a range, in MB or seconds; None when it states none."""
    dims, low, high = set(), None, None
    for _said, dim, value, start in _quantities(line):
        before = line[max(0, start - 24):start].replace("*", "")
        if _LOWER.search(before):
            low = value
        elif _MAXIMUM.search(before):
            high = value
        else:
            continue
        dims.add(dim)
    return (dims.pop(), low, high) if len(dims) == 1 else None


def range_rows(question: str, texts: Sequence[str]) -> list[RangeRow]:
    """Each size or duration of the question placed in the range row that holds it, when a text states a rule by
    ranges (two or more sibling bullets bounded by that kind of quantity); a value past every row is left to
    limit_checks. "3 GB file to JupyterLab": the 100 MB–50 GB row (through OBS), not the >50 GB remark."""
    rules = []
    for text in texts:
        rows = [(m.group(1), b) for m in _RANGE_BULLET.finditer(text) if (b := _bounds(m.group(1))) is not None]
        if len(rows) >= 2:
            rules.append(rows)
    out: list[RangeRow] = []
    for said, dim, value, start in _quantities(question):
        if _WHEN_IT_HAPPENED.search(question[max(0, start - 12):start]):
            continue
        for rows in rules:
            row = next((line for line, (d, low, high) in rows if d == dim and (low is None or value > low)
                        and (high is None or value <= high)), None)
            if row is not None:
                out.append(RangeRow(said, re.sub(r"\*\*", "", row).strip()))
                break
    return out[:2]


# -- a formula of a lead worked with the user's values ---------------------------------------------
_FORMULA = re.compile(r"`([A-Z][A-Z0-9_]*(?:\s*(?://|[-+*/])\s*(?:[A-Z][A-Z0-9_]*|\d+))+)`")
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv}


def _evaluate(node: ast.AST) -> float:
    """Numbers and + - * / // only (a formula of the notes with numbers put in), nothing else is evaluated."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    raise ValueError("not arithmetic")


def _value_said(name: str, question: str) -> re.Match[str] | None:
    """The value the question gives a formula's variable by its name ("SAVE_INTERVAL 设 10", "TRAIN_ITERS=1500"):
    group 1 holds its digits."""
    return re.search(rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])\s*(?:=|:|：|is|of|设为|设成|设|为|是)?\s*(\d+)", question)


def worked_formulas(question: str, text: str, given: dict[str, float] | None = None) -> list[tuple[str, str, float]]:
    """(formula, formula with the user's numbers, result) for each backticked formula of ``text`` whose every
    variable the question gives a value ("SAVE_INTERVAL 设 10，TRAIN_ITERS 100" and `TRAIN_ITERS//SAVE_INTERVAL + 1`),
    by the variable's name or in ``given`` (a value read in the user's own words: "5 万条样本" is `SN`).
    A variable the user leaves unset takes the default the text gives it ("`TRAIN_ITERS` … defaults to `SN / GBS *
    EPOCH`"), worked first: a formula reached through that default (the checkpoint count) is the one asked, so it leads."""
    first = _worked(question, text, given)
    known = dict(given or {})
    for m in _DEFAULTS_TO.finditer(text):
        name, formula = m.group(1), m.group(2)
        said = _value_said(name, question)
        if not said and (done := next((r for f, _, r in first if f == formula), None)) is not None:
            known[name] = done
    if len(known) == len(given or {}):
        return first
    chained = [w for w in _worked(question, text, known) if w[0] not in {f for f, _, _ in first}]
    return chained + first


# "`TRAIN_ITERS` is optional: left unset it defaults to `SN / GBS * EPOCH`", "不设置时默认为 `SN / GBS * EPOCH`"
_DEFAULTS_TO = re.compile(r"`([A-Z][A-Z0-9_]*)`[^`]{0,60}?(?:defaults?\s+to|默认为|默认是|默认取)\s*`([^`]+)`")


def _worked(question: str, text: str, given: dict[str, float] | None) -> list[tuple[str, str, float]]:
    out: list[tuple[str, str, float]] = []
    for m in _FORMULA.finditer(text):
        formula, values = m.group(1), {}
        if any(f == formula for f, _, _ in out):
            continue  # a formula the text states twice is worked once
        for name in set(re.findall(r"[A-Z][A-Z0-9_]*", formula)):
            said = _value_said(name, question)
            if said:
                values[name] = said.group(1)
            elif given and given.get(name) is not None:
                values[name] = f"{given[name]:.15g}"  # 1000000, not 1e+06
            else:
                break
        else:
            filled = re.sub(r"[A-Z][A-Z0-9_]*", lambda v, given=values: given[v.group(0)], formula)
            try:
                out.append((formula, filled, _evaluate(ast.parse(filled, mode="eval").body)))
            except (ValueError, ZeroDivisionError, SyntaxError):
                continue
    return out


@dataclass(frozen=True)
class Solved:
    """A note's formula solved for the one variable the question asks, from the result the question wants."""

    formula: str
    name: str  # the variable asked
    value: int  # the largest whole value that gives the result (the formula holds exactly there for a // step)
    low: int  # the smallest whole value that gives it
    filled: str  # the formula with the user's numbers and ``value`` put in
    target: float


_SOLVE_LIMIT = 1_000_000  # whole values tried for the variable asked


def solved_formulas(question: str, text: str, given: dict[str, float] | None = None) -> list[Solved]:
    """Each backticked formula of ``text`` with exactly one variable the question neither gives nor leaves to a default,
    asked by name ("what SAVE_INTERVAL?", "SAVE_INTERVAL 设多少"), when the question states one more number, the result
    it wants ("6 checkpoints over TRAIN_ITERS=1500"): the whole values of the variable that give that result. With
    `TRAIN_ITERS//SAVE_INTERVAL + 1` = 6 and TRAIN_ITERS 1500, SAVE_INTERVAL 251-300 gives 6; 300 leads (1500 // 300 = 5
    exactly)."""
    out: list[Solved] = []
    for m in _FORMULA.finditer(text):
        formula = m.group(1)
        if any(x.formula == formula for x in out):
            continue
        values: dict[str, str] = {}
        used: list[tuple[int, int]] = []
        unknown = []
        for name in sorted(set(re.findall(r"[A-Z][A-Z0-9_]*", formula))):
            said = _value_said(name, question)
            if said:
                values[name] = said.group(1)
                used.append(said.span(1))
            elif given and given.get(name) is not None:
                values[name] = f"{given[name]:.15g}"
            else:
                unknown.append(name)
        if len(unknown) != 1:
            continue
        name = unknown[0]
        asked = re.search(rf"(?:what|which)\s+(?:\w+\s+){{0,2}}{name}(?![A-Za-z0-9_])|(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])\s*"
                          r"(?:\?|？|should|(?:应该|要|得)?\s*(?:设|取|填|配)(?:成|为)?\s*(?:多少|几|多大)|(?:是|为)?\s*(?:多少|几))", question, re.I)
        rest = [int(n.group(0)) for n in re.finditer(r"(?<![\w.])\d+(?![\w.])", question)
                if not any(a <= n.start() < b for a, b in used)]
        if not asked or len(rest) != 1:
            continue
        target = rest[0]
        template = re.sub(r"[A-Z][A-Z0-9_]*", lambda x, said=values: said.get(x.group(0), x.group(0)), formula)
        try:
            _evaluate(ast.parse(template.replace(name, "1"), mode="eval").body)  # numbers and + - * / // only
        except (ValueError, ZeroDivisionError, SyntaxError):
            continue
        code = compile(template, "<formula>", "eval")  # checked above: arithmetic on numbers and the one name
        limit = min(_SOLVE_LIMIT, max(10_000, 10 * target, *(10 * int(float(x)) for x in values.values())))
        hits = []
        for v in range(1, limit + 1):
            try:
                result = eval(code, {"__builtins__": {}}, {name: v})  # noqa: S307 (the note's own formula, checked above)
            except ZeroDivisionError:
                continue
            if result == target:
                hits.append(v)
            elif hits:
                break  # the values that give it are one run
        if hits:
            top = hits[-1]
            out.append(Solved(formula, name, top, hits[0], template.replace(name, str(top)), float(target)))
    return out


# -- a rounding rule of a lead applied to the value the user set --------------------------------------
# "rounded **down to a multiple of 68 s**", "向下取整到 68 s 的整数倍", "round up to a multiple of 8"
_ROUNDING = re.compile(r"round(?:ed|s)?\W+(down|up)\s+to\s+an?\s+multiple\s+of\s+(\d+)|向(下|上)取整到\s*(\d+)", re.I)
# the value the user sets or arrives at ("我设 2000", "set it to 600", "HCCL_EXEC_TIMEOUT=600", "I need 20 cards")
_SETS = re.compile(r"(?:设置为|设置成|设为|设成|设|set(?:\s+(?:it|this))?(?:\s+to)?|=|to|为|需要|need)\s*(\d+)(?![\d.])", re.I)


@dataclass(frozen=True)
class Rounded:
    said: int  # the user's value
    result: int  # what the rule makes of it
    step: int  # the multiple
    up: bool
    scope: str = ""  # what the rule's line is about ("Atlas training series (first-generation 910)"), when it names one

    def named_in(self, question: str) -> bool:
        """Whether the question names the rule's subject by one of its own words ("on an Atlas training box", "在 910
        上"; "910B" is not "910"): then the rule is the question's, said without the condition."""
        words = [w for w in re.findall(r"[A-Za-z0-9]{3,}", self.scope) if w.lower() not in _SCOPE_GENERIC]
        return any(re.search(rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])", question, re.I) for w in words)


# words of a rule's subject that do not tell one product from another
_SCOPE_GENERIC = frozenset({"series", "training", "inference", "first", "generation", "the", "and"})


# the subject a rule's line is stated for: "- Atlas training series (first-generation 910): range …" (before the colon)
_LINE_SCOPE = re.compile(r"^\s*(?:[-*]\s+)?([^:：\n]{3,80}?)\s*[:：]")


def roundings(question: str, text: str) -> list[Rounded]:
    """The user's set value put through the rounding rule ``text`` states ("rounded down to a multiple of 68 s": 2000 ->
    1972; "rounded up to a multiple of 8": 20 -> 24). A value already on the multiple, or none stated, gives nothing."""
    m = _ROUNDING.search(text)
    if not m:
        return []
    up = (m.group(1) or "").lower() == "up" or m.group(3) == "上"
    step = int(m.group(2) or m.group(4))
    # a rule stated for one subject ("- Atlas training series (first-generation 910): … rounded down") holds for that
    # subject only: the answer says it under that condition, not as what the user's own value becomes
    line = _SENTENCE_END.split(text[:m.start()])[-1].rsplit("\n", 1)[-1]  # the rule's own sentence or line (a lead joins a bullet's lines)
    scoped = _LINE_SCOPE.match(line)
    scope = scoped.group(1).strip("*_ ") if scoped and not _SETS.search(scoped.group(1)) else ""
    out = []
    for v in (int(x) for x in _SETS.findall(question)):
        if v == step or v % step == 0:
            continue
        result = -(-v // step) * step if up else max(step, v // step * step)
        out.append(Rounded(v, result, step, up, scope))
    return out[:1]


# Keywords that name the setting (hardware, frameworks, generic sizing words), not a note's topic: a
# question about cost that says "Snt9B" is not about the Snt9B-vs-Snt9B23 note.
_SETTING_TEXT = """
snt9b snt9b23 snt9b 910b 910c ascend 昇腾 npu gpu a2 a3 卡 卡数 节点 node nodes 多机 多节点 multi-node 显存 内存 lora 全参
full llama-factory llamafactory mindspeed-llm mindspeed deepspeed config 配置 启动 launch yaml 微调 限制 limits estimate 预估 注意
选择 stage 8卡 单卡 64gb 32gb 64 gb 规格 flavor 1024 2048 512 3000 60g 40g sft pt 推荐 表格 range 精度 precision 区别 对比
"""
_SETTING_WORDS = frozenset(_SETTING_TEXT.split())


@dataclass(frozen=True)
class NoteTopic:
    """What one note is about: any of its topic words, or all of the setting words its title pairs."""

    any_word: re.Pattern[str] | None
    all_words: tuple[re.Pattern[str], ...] = ()
    procedure: re.Pattern[str] | None = None  # the words that name the note's procedure (front matter ``procedures``)
    titles: str = ""  # the note's titles (both languages): the words a search for its procedure adds
    # keywords of words that name the setting alone, written "a + b": the note's topic when all of them are named
    # ("mindspeed + 32g": a framework's requirement on a part, the Snt9B note's fact)
    together: tuple[tuple[str, ...], ...] = ()
    subjects: tuple[str, ...] = ()  # what the note's vendor page is about (front matter ``subject``), as written

    def named_in(self, text: str) -> bool:
        if self.any_word is not None and self.any_word.search(text):
            return True
        if any(all(part in text for part in group) for group in self.together):
            return True
        return bool(self.all_words) and all(rx.search(text) for rx in self.all_words)


def spaced(word: str) -> str:
    """A phrase mixing Chinese and Latin as a pattern: a Latin word beside Chinese is written with a space or without
    ("hf格式", "hf 格式", "转 megatron"), so either matches."""
    return r"\s*".join(re.escape(r) for r in re.findall(rf"[{_CJK}]+|[^{_CJK}\s]+", word))


def _word_rx(word: str) -> str:
    """Latin words whole (with a plural, -ed/-ing or -ism ending: "pipeline parallelism"), Chinese and symbols as substrings."""
    if re.search(rf"[{_CJK}]", word):
        return spaced(word)
    if not re.fullmatch(r"[\w\s.\-]+", word):
        return re.escape(word)
    return rf"(?<![a-z0-9]){re.escape(word)}(?:s|es|ed|ing|ism)?(?![a-z0-9])"


def note_topics(sections: list[NoteSection]) -> dict[str, NoteTopic]:
    """Note file -> its topic (both languages merged), compiled once: the keywords that say what the
    note is about (those that only name the setting are left out), and for a title that pairs two
    setting words ("Snt9B vs Snt9B23") both of them."""
    words: dict[str, set[str]] = {}
    pairs: dict[str, set[str]] = {}
    procedures: dict[str, set[str]] = {}
    titles: dict[str, dict[str, str]] = {}
    together: dict[str, set[tuple[str, ...]]] = {}
    subjects: dict[str, list[str]] = {}
    for s in sections:
        subjects.setdefault(s.file, [])
        subjects[s.file] += [k for k in s.subjects if k not in subjects[s.file]]
        titles.setdefault(s.file, {}).setdefault(s.lang, s.title)
        procedures.setdefault(s.file, set()).update(k.lower().strip() for k in s.procedures if k.strip())
        words.setdefault(s.file, set()).update(
            k.lower().strip() for k in s.keywords
            # a keyword of punctuation alone ("-", the tables' not-supported mark) names no topic: "--" is in any junk
            if re.search(r"\w", k) and k.lower().strip() not in _SETTING_WORDS and " + " not in k)
        together.setdefault(s.file, set()).update(
            tuple(part.strip() for part in k.lower().split(" + ")) for k in s.keywords if " + " in k)
        in_title = {w for w in re.findall(r"[a-z0-9]+", s.title.lower()) if w in _SETTING_WORDS}
        if len(in_title) >= 2:
            pairs.setdefault(s.file, set()).update(in_title)
    out = {}
    for file, ws in words.items():
        alternation = "|".join(_word_rx(w) for w in sorted(ws, key=len, reverse=True))
        how = "|".join(_word_rx(w) for w in sorted(procedures.get(file, ()), key=len, reverse=True))
        out[file] = NoteTopic(re.compile(alternation) if alternation else None,
                              tuple(re.compile(_word_rx(w)) for w in sorted(pairs.get(file, ()))), re.compile(how) if how else None,
                              " ".join(titles.get(file, {}).values()), tuple(sorted(together.get(file, ()))),
                              tuple(subjects.get(file, ())))
    return out


def procedures_named(question: str, topics: dict[str, NoteTopic]) -> set[str]:
    """The notes whose procedure the question names ("how do I convert the weights back to HF?")."""
    text = question.lower()
    return {file for file, topic in topics.items() if topic.procedure is not None and topic.procedure.search(text)}


def covering(question: str, topics: dict[str, NoteTopic]) -> set[str]:
    """The notes whose topic the question names."""
    text = question.lower()
    return {file for file, topic in topics.items() if topic.named_in(text)}


def subject_rx(name: str) -> re.Pattern[str]:
    """A subject's name as a question spells it: case, spaces, hyphens and dots aside ("llama factory", "LlamaFactory")."""
    parts = [re.escape(c) for c in re.sub(r"[\s._-]+", "", name.lower())]
    return re.compile(r"(?<![a-z0-9])" + r"[\s._-]?".join(parts) + r"(?![a-z0-9])", re.I)


def subjects_named(question: str, topics: dict[str, NoteTopic]) -> list[str]:
    """The subjects of the notes (front matter ``subject``, every note's) that the question names, in the notes' spelling."""
    seen: dict[str, str] = {}
    for topic in topics.values():
        for name in topic.subjects:
            key = re.sub(r"[\s._-]+", "", name.lower())
            if key not in seen and subject_rx(name).search(question):
                seen[key] = name
    return list(seen.values())


def subject_notes(question: str, topics: dict[str, NoteTopic]) -> set[str]:
    """The notes whose vendor page is about a subject the question names (front matter ``subject``) and whose topic the
    question's other words name too ("MASTER_ADDR for a llamafactory job": the LLaMA-Factory note's multi-node topic;
    not "vllm deps offline", which the vLLM note's topics do not name)."""
    found = subjects_named(question, topics)
    named = {re.sub(r"[\s._-]+", "", n.lower()) for n in found}
    rest = question.lower()
    for name in found:
        rest = subject_rx(name).sub(" ", rest)
    return {file for file, topic in topics.items()
            if named & {re.sub(r"[\s._-]+", "", n.lower()) for n in topic.subjects} and topic.named_in(rest)}


def outside_scope(question: str, topics: dict[str, NoteTopic]) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Note file -> (the subjects the question names, the note's own), for each note that declares
    its subject while the question names only others ("offline install of LLaMA-Factory's dependencies" against the
    page about the ModelLink/MindSpeed package). A question naming one of the note's own subjects is in its scope."""
    named = subjects_named(question, topics)
    if not named:
        return {}
    out: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for file, topic in topics.items():
        own = {re.sub(r"[\s._-]+", "", n.lower()) for n in topic.subjects}
        if own and not own & {re.sub(r"[\s._-]+", "", n.lower()) for n in named}:
            out[file] = (tuple(named), topic.subjects)
    return out
