"""Notes: markdown files with front matter, split into sections, ranked with BM25.

Every note exists in English (``notes/*.md``) and Chinese (``notes/zh/*.md``, same file names and
the same ``##`` sections in the same order); each language has its own BM25 index, so a Chinese
question is answered from Chinese passages and an English one from English passages.

Why bm25s and not DuckDB's fts extension: fts is not bundled with the DuckDB wheel and would be
downloaded on first use, which fails offline; bm25s is a small, maintained BM25 library that works
on pre-tokenised text, so Chinese can be tokenised into character unigrams and bigrams here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[a-z0-9_]+(?:[.\-][a-z0-9_]+)*")
LANGS = ("en", "zh")
# Chinese function characters and question words: as unigrams they occur in every note and only add
# noise to a question like "TP 和 PP 怎么设置" (the content bigrams carry the meaning).
_CJK_STOP = set("的了吗呢啊吧是和与及或在把被就都也还很么什怎哪这那个些") | {"怎么", "什么", "为什", "如何", "怎样", "哪个", "是不", "不是"}
_STOP = {"the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "is", "are", "do", "does", "what", "how", "why", "my", "i", "it", "with", "when", "be", "can", "that", "this", "should"}


def tokenize(text: str) -> list[str]:
    """Lower-case words (keeping `expandable_segments`, `ds_z3`, `3.1`), plus CJK unigrams and bigrams."""
    out: list[str] = []
    for m in _TOKEN.finditer(text.lower()):
        tok = m.group(0)
        if re.match(rf"[{_CJK}]", tok):
            out.extend(c for c in tok if c not in _CJK_STOP)
            out.extend(b for b in (tok[i : i + 2] for i in range(len(tok) - 1)) if b not in _CJK_STOP)
        elif tok not in _STOP:
            out.append(tok)
            if re.search(r"[.\-_]", tok):  # also index the parts: "zero-3" -> zero, 3
                out.extend(p for p in re.split(r"[.\-_]", tok) if p and p not in _STOP)
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

    def flush():
        text = "\n".join(buf).strip()
        if text:
            sections.append(
                NoteSection(note_id, len(sections), path.name, title, str(meta.get("topic", note_id)),
                            str(meta.get("source", "")), heading, text, keywords, lang,
                            str(meta.get("summary", "") or "").strip())
            )

    for line in body.splitlines():
        if line.startswith("## "):
            flush()
            heading, buf = line[3:].strip(), []
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
    """BM25 over one language's note sections; the note's title and keywords are added to each section's text."""

    def __init__(self, rows: list[dict[str, Any]]):
        import bm25s

        self.rows = rows
        self._bm25 = bm25s.BM25()
        docs = [tokenize(f"{r['title']} {r['heading']} {r['keywords']} {r['text']}") or ["_"] for r in rows]
        if docs:
            self._bm25.index(docs, show_progress=False)

    def search(self, toks: list[str], limit: int) -> list[tuple[float, dict[str, Any]]]:
        if not toks or not self.rows:
            return []
        scores = self._bm25.get_scores(toks)
        ranked = sorted(range(len(self.rows)), key=lambda i: -scores[i])
        return [(float(scores[i]), self.rows[i]) for i in ranked[:limit] if scores[i] > 0]


class NoteIndex:
    """One BM25 index per language, built once from the rows of every note section."""

    def __init__(self, rows: list[dict[str, Any]]):
        self.rows = rows
        self._by_lang = {lang: _Bm25([r for r in rows if r.get("lang", "en") == lang]) for lang in LANGS}

    def search(self, query: str, limit: int = 5, lang: str = "auto") -> list[tuple[float, dict[str, Any]]]:
        """Ranked sections of the ``lang`` notes; "auto" picks the language with ``query_lang``."""
        index = self._by_lang[query_lang(query) if lang == "auto" else lang]
        return index.search(tokenize(query), limit)


# Keywords that name the setting (hardware, frameworks, generic sizing words), not a note's topic: a
# question about cost that says "Snt9B" is not about the Snt9B-vs-Snt9B23 note.
_SETTING_TEXT = """
snt9b snt9b23 snt9b 910b 910c ascend 昇腾 npu gpu a2 a3 卡 卡数 节点 node nodes 多机 多节点 multi-node 显存 内存 lora 全参
full llama-factory llamafactory mindspeed-llm deepspeed config 配置 启动 launch yaml 微调 限制 limits estimate 预估 注意
选择 stage 8卡 单卡 64gb 32gb 64 gb 规格 flavor 1024 2048 512 3000 60g 40g sft pt 推荐 表格 range 精度 precision 区别 对比
"""
_SETTING_WORDS = frozenset(_SETTING_TEXT.split())


@dataclass(frozen=True)
class NoteTopic:
    """What one note is about: any of its topic words, or all of the setting words its title pairs."""

    any_word: re.Pattern[str] | None
    all_words: tuple[re.Pattern[str], ...] = ()

    def named_in(self, text: str) -> bool:
        if self.any_word is not None and self.any_word.search(text):
            return True
        return bool(self.all_words) and all(rx.search(text) for rx in self.all_words)


def _word_rx(word: str) -> str:
    """Latin words whole (with a plural or -ed/-ing ending), Chinese and symbols as substrings."""
    if re.search(rf"[{_CJK}]", word) or not re.fullmatch(r"[\w\s.\-]+", word):
        return re.escape(word)
    return rf"(?<![a-z0-9]){re.escape(word)}(?:s|es|ed|ing)?(?![a-z0-9])"


def note_topics(sections: list[NoteSection]) -> dict[str, NoteTopic]:
    """Note file -> its topic (both languages merged), compiled once: the keywords that say what the
    note is about (those that only name the setting are left out), and for a title that pairs two
    setting words ("Snt9B vs Snt9B23") both of them."""
    words: dict[str, set[str]] = {}
    pairs: dict[str, set[str]] = {}
    for s in sections:
        words.setdefault(s.file, set()).update(
            k.lower().strip() for k in s.keywords
            # a keyword of punctuation alone ("-", the tables' not-supported mark) names no topic: "--" is in any junk
            if re.search(r"\w", k) and k.lower().strip() not in _SETTING_WORDS)
        in_title = {w for w in re.findall(r"[a-z0-9]+", s.title.lower()) if w in _SETTING_WORDS}
        if len(in_title) >= 2:
            pairs.setdefault(s.file, set()).update(in_title)
    out = {}
    for file, ws in words.items():
        alternation = "|".join(_word_rx(w) for w in sorted(ws, key=len, reverse=True))
        out[file] = NoteTopic(re.compile(alternation) if alternation else None,
                              tuple(re.compile(_word_rx(w)) for w in sorted(pairs.get(file, ()))))
    return out


def covering(question: str, topics: dict[str, NoteTopic]) -> set[str]:
    """The notes whose topic the question names."""
    text = question.lower()
    return {file for file, topic in topics.items() if topic.named_in(text)}
